/* campaign_deferred.c - a campaign's deferred queue (campaign_int.h): failing programs not
 * minimized (over the budget, or their minimization died) kept under DIR/deferred/, one per quick
 * key, and listed in the class index's "deferred"; after the search (and in `aliasfuzz reduce
 * --deferred`) those whose quick key still has no class are minimized, each in a child. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/codec.h"
#include "campaign_int.h"
#include "refusals.h"

/* A program not minimized: counted in the class its quick key maps to, else kept (one per quick
 * key) under DIR/deferred/, for campaign_deferred_finish(). */
cJSON *campaign_deferred_add(camp *k, int j, const char *json, cJSON *o) {
  const char *qk = cJSON_GetStringValue(cJSON_GetObjectItem(o, "quick"));
  int64_t it = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "iteration"));
  if (!qk || k->write_error) return NULL;
  k->idx_dirty = 1;
  /* a program the baseline gets right: counted in the class of its graph change, if one has it */
  char *change = campaign_graph_change(o);
  if (classes_index_count_change(k->idx, change, j, it) || classes_index_count_quick(k->idx, qk, j, it)) {
    free(change);
    return NULL;
  }
  cJSON *d = cJSON_GetObjectItem(k->idx, "deferred"), *e = cJSON_GetObjectItemCaseSensitive(d, qk);
  if (e) {
    cJSON *n = cJSON_GetObjectItem(e, "count");
    cJSON_SetNumberValue(n, n->valuedouble + 1);
    free(change);
    return e;
  }
  char rel[64], path[4200];
  snprintf(rel, sizeof rel, "deferred/%lld.json", (long long)it);
  snprintf(path, sizeof path, "%s/deferred", k->o->out);
  af_err err;
  if (findings_mkdirs(path, &err)) {
    campaign_state_write_failed(k, "a deferred program", &err);
    free(change);
    return NULL;
  }
  snprintf(path, sizeof path, "%s/%s", k->o->out, rel);
  cJSON *copy = cJSON_Parse(json);
  cJSON_AddNumberToObject(copy, "job", j);
  char *text = cJSON_Print(copy);
  cJSON_Delete(copy);
  int bad = codec_write_atomic(path, text, strlen(text), &err);
  cJSON_free(text);
  if (bad) {
    campaign_state_write_failed(k, "a deferred program", &err);
    free(change);
    return NULL;
  }
  e = cJSON_AddObjectToObject(d, qk);
  cJSON_AddNumberToObject(e, "count", 1);
  cJSON_AddStringToObject(e, "file", rel);
  if (change) cJSON_AddStringToObject(e, "change", change);
  free(change);
  return e;
}

/* Job j died or was stopped while minimizing the finding of its in-flight iteration: the
 * program as found (pending, the R line's JSON) is deferred, its iteration counted as done, and the
 * time the minimization took counted as minimizing (jb->since is when it began). crashed: the job
 * died (a candidate crashed the converter or corrupted its heap): the deferred program is marked
 * to be minimized in isolation. */
void campaign_deferred_keep(camp *k, int j, const char *pending, int crashed) {
  job *jb = &k->jobs[j];
  double spent = campaign_now() - jb->since;
  k->reduce_seconds += spent;
  jb->reduce_s += spent;
  cJSON *o = cJSON_Parse(pending);
  int v = o ? (int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "verdict")) : V_ERROR;
  cJSON *e = o ? campaign_deferred_add(k, j, pending, o) : NULL;
  if (e && crashed && !cJSON_GetObjectItem(e, "isolate")) cJSON_AddTrueToObject(e, "isolate");
  cJSON_Delete(o);
  jb->watermark = jb->inflight;
  jb->programs++;
  if (v >= 0 && v < V_COUNT) jb->verdicts[v]++;
  jb->inflight = -1;
}

/* The next deferred entry to minimize, borrowed: entries whose quick key a class has now are
 * counted in that class and go; entries tried in this call (in `tried`) and, unless
 * k->retry_failed, those marked "failed" are passed over. NULL when none is left. */
static cJSON *next_deferred(camp *k, cJSON *tried) {
  cJSON *d = cJSON_GetObjectItem(k->idx, "deferred");
  for (cJSON *e = d->child; e;) {
    if (classes_index_absorb(k->idx, e->string, (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "count")))) {
      k->idx_dirty = 1;
      e = d->child; /* counted in the class that has its key now; from the start again */
      continue;
    }
    e = e->next;
  }
  /* what matters first (issue 34): wrong values, then errors, then refusals (refusals_rank); of
   * each, with a baseline, the programs the baseline does not fail first: they are what a
   * pre-merge gate is for, and the floor may not reach them all */
  for (int rank = 0; rank < 3; rank++)
    for (int pass = 0; pass < 2; pass++)
      for (cJSON *e = d->child; e; e = e->next) {
        if ((pass == 0) != (classes_quick_in_baseline(e->string) != 1) || refusals_rank_quick(k->c, e->string) != rank) continue;
        if (!cJSON_GetObjectItemCaseSensitive(tried, e->string) && (k->retry_failed || !cJSON_GetObjectItem(e, "failed"))) return e;
      }
  return NULL;
}

/* Minimizes the deferred program p (o: its file's JSON, seed_s its seed; qk: its quick key, counted
 * n times) in a child within limit seconds (isolate: each candidate in a child of its own) and
 * records the finding the child sends, whose class then takes the entry's count. Returns the
 * findings recorded: 0 when the pipe could not be made or the child died, ran past its limit or
 * was stopped. */
static int minimize_in_child(camp *k, const oracle_opts *oo, cJSON *o, ir_program *p, const char *seed_s, const char *qk, int64_t n,
                             double limit, int isolate) {
  int fd[2] = {-1, -1}, got_f = 0;
  if (pipe(fd) != 0) return 0;
  int from_job = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "job"));
  int64_t it = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "iteration"));
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    af_dir_lock_drop_inherited();
    judgement j = {0};
    j.verdict = (oracle_verdict)(int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "verdict"));
    j.detail = af_xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(o, "detail")) ? cJSON_GetStringValue(cJSON_GetObjectItem(o, "detail")) : "");
    campaign_job_minimize(k->o, k->c, oo, it, strtoull(seed_s, NULL, 10), p, &j, qk, fd[1], limit, isolate);
    _exit(0);
  }
  close(fd[1]);
  af_buf in = {0};
  /* the child stops itself at the limit; one judgement may run past it (isolated: up to the
   * per-program deadline) */
  double until = campaign_now() + limit + (isolate ? 2 : 1) * k->o->deadline_s + 2;
  while (pid > 0) {
    struct pollfd pf = {fd[0], POLLIN, 0};
    double left = until - campaign_now();
    if (left <= 0 || campaign_stop_requested) {
      kill(pid, SIGKILL);
      break;
    }
    if (poll(&pf, 1, (int)(left * 1000) + 1) <= 0) continue;
    char chunk[65536];
    ssize_t got = read(fd[0], chunk, sizeof chunk - 1);
    if (got <= 0) break;
    chunk[got] = 0;
    af_buf_puts(&in, chunk);
  }
  close(fd[0]);
  if (pid > 0)
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
  for (char *line = in.s; line && *line;) {
    char *nl = strchr(line, '\n');
    if (!nl) break;
    *nl = 0;
    if (line[0] == 'F') {
      int64_t before = classes_index_total(k->idx);
      campaign_wire_finding(k, from_job, line + 2);
      classes_index_absorb(k->idx, qk, n - (classes_index_total(k->idx) - before));
      got_f++;
    }
    line = nl + 1;
  }
  af_buf_free(&in);
  return got_f;
}

/* The end of a campaign (and `aliasfuzz reduce --deferred`): each deferred program whose quick key
 * no class has yet is minimized (in a child, within the minimization limit), then its deferred
 * entry joins the class. The minimization budget holds for the whole campaign: with search_job_s
 * job-seconds of search, minimizing during the search and after it together stay within
 * --reduce-share of the search's job-seconds plus the time after it, each program getting what is
 * left of that (at most the full limit); what the budget does not cover stays deferred, for
 * `aliasfuzz reduce --deferred`. A program whose minimization dies or sends nothing stays
 * deferred, marked "failed" (tried again only by `reduce --deferred`). */
void campaign_deferred_finish(camp *k, double search_job_s) {
  oracle_opts oo = {k->o->fail_on_residual};
  int done = 0;
  double t0 = campaign_now(), f0 = k->finish_seconds, share = k->o->reduce_share;
  double search_reduce = k->reduce_seconds - k->finish_reduce_seconds;
  /* after the search: f seconds in all with search_reduce + f <= share * (search_job_s + f) */
  int capped = share < 1;
  double budget = capped ? (share * search_job_s - search_reduce) / (1 - share) : 0; /* may be < 0: spent */
  double floor_s = k->o->time_s > 0 ? 0.5 * k->o->time_s : 300;
  cJSON *tried = cJSON_CreateObject();
  k->finishing = 1;
  for (;;) {
    cJSON *e = next_deferred(k, tried);
    if (!e || campaign_stop_requested || k->write_error) break;
    double limit = campaign_job_full_limit(k->o);
    if (capped && budget - (f0 + campaign_now() - t0) < limit) limit = budget - (f0 + campaign_now() - t0);
    /* the floor under the share: a quick key that no class holds may be a bug of its own, and a
     * report that leaves it out looks cleaner than the converter is; its first program is
     * minimized even with the share spent, within the floor's own time (half of --time, or
     * 300 s without one) */
    if (limit < campaign_job_min_start(k->o) && !k->o->no_finish) {
      double floor_left = floor_s - (campaign_now() - t0);
      limit = campaign_job_full_limit(k->o) < floor_left ? campaign_job_full_limit(k->o) : floor_left;
      /* and a wrong value's first program is minimized whatever the floor left (issue 34): it
       * comes first, and the campaign does not end with a wrong value in no class */
      if (refusals_rank_quick(k->c, e->string) == 0) limit = campaign_job_full_limit(k->o);
    }
    if (limit < campaign_job_min_start(k->o)) {
      fprintf(stderr, "aliasfuzz: the minimization budget (--reduce-share %g and the floor of %.0f s) is spent: %d deferred quick key(s) left under %s/deferred/ "
                      "(aliasfuzz reduce --deferred %s minimizes them)\n",
              share, floor_s, classes_index_unclassified(k->idx), k->o->out, k->o->out);
      break;
    }
    char *qk = af_xstrdup(e->string);
    cJSON_AddTrueToObject(tried, qk);
    int64_t n = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "count"));
    /* a program whose minimization died once is minimized with each test in a child */
    int isolate = cJSON_IsTrue(cJSON_GetObjectItem(e, "isolate")) || cJSON_GetObjectItem(e, "failed") != NULL;
    char rel[256];
    snprintf(rel, sizeof rel, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(e, "file")) ? cJSON_GetStringValue(cJSON_GetObjectItem(e, "file")) : "");
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", k->o->out, rel);
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItem(k->idx, "deferred"), qk); /* back below if nothing comes of it */
    k->idx_dirty = 1;
    int got_f = 0;
    const char *why = "its minimization crashed or ran past its limit";
    char *text = codec_slurp(path, NULL, NULL);
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    free(text);
    ir_program *p = NULL;
    af_err err;
    const char *orig = o ? cJSON_GetStringValue(cJSON_GetObjectItem(o, "original")) : NULL;
    const char *seed_s = o ? cJSON_GetStringValue(cJSON_GetObjectItem(o, "seed")) : NULL;
    if (!orig || !seed_s || codec_read_string(orig, path, &p, &err)) {
      why = "its file is missing or malformed";
      goto next;
    }
    int got = minimize_in_child(k, &oo, o, p, seed_s, qk, n, limit, isolate);
    done += got;
    got_f = got > 0;
  next:
    if (!got_f && !campaign_stop_requested) { /* kept, marked */
      cJSON *back = cJSON_AddObjectToObject(cJSON_GetObjectItem(k->idx, "deferred"), qk);
      cJSON_AddNumberToObject(back, "count", (double)n);
      cJSON_AddStringToObject(back, "file", rel);
      cJSON_AddStringToObject(back, "failed", isolate ? why : "its minimization crashed or ran past its limit (tried in process)");
      cJSON_AddTrueToObject(back, "isolate");
      fprintf(stderr, "aliasfuzz: the deferred program %s was not minimized: %s; it stays deferred\n", path, why);
    } else if (!got_f) { /* stopped: as it was */
      cJSON *back = cJSON_AddObjectToObject(cJSON_GetObjectItem(k->idx, "deferred"), qk);
      cJSON_AddNumberToObject(back, "count", (double)n);
      cJSON_AddStringToObject(back, "file", rel);
      if (isolate) cJSON_AddTrueToObject(back, "isolate");
    }
    ir_program_free(p);
    cJSON_Delete(o);
    free(qk);
  }
  cJSON_Delete(tried);
  if (done)
    fprintf(stderr, "aliasfuzz: minimized %d deferred program(s) in %.1f s\n", done, campaign_now() - t0);
  k->finish_seconds += campaign_now() - t0;
  k->finished += done;
  k->finishing = 0;
}
