/* campaign_state.c - what a campaign's parent keeps in the campaign folder DIR (campaign_int.h):
 * the folder's lock, DIR/state.json (options, figures, per-job watermarks: what a resumed run goes
 * on from), the findings store and class index writes (campaign_state_record), DIR/pending/ (the
 * failing programs not yet recorded) and the writes that end a campaign. Every write is atomic;
 * the first that fails stops the campaign (campaign_state_write_failed). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/codec.h"
#include "../harness/torch/shim.h"
#include "campaign_int.h"
#include "graphdiff.h"

/* The first write that failed (what: which artifact, may be NULL; e: the error, which names the
 * file): the campaign stops and writes nothing more, not even state.json, so that the folder is as
 * a SIGKILL at this point would leave it. A rerun resumes from there: the iterations after the
 * last state.json are run again and the programs under DIR/pending/ recorded (campaign_state_pending_replay). */
void campaign_state_write_failed(camp *k, const char *what, const af_err *e) {
  if (k->write_error) return;
  af_buf b = {0};
  if (what) af_buf_printf(&b, "%s: ", what);
  af_buf_puts(&b, e->msg);
  k->write_error = af_buf_take(&b);
  if (k->o->progress) fputc('\n', stderr);
  fprintf(stderr, "aliasfuzz: write error: %s; the campaign stops here and writes nothing more\n", k->write_error);
}

/* Locks the campaign folder for this process (what: the command, for a second process's message)
 * and removes what writers killed mid-write left there. 0 on success. */
int campaign_state_lock(camp *k, const char *what, af_err *err) {
  char stale[256];
  int removed = 0;
  if (af_dir_lock_take(k->o->out, what, &k->lock, stale, err)) return -1;
  if (stale[0]) fprintf(stderr, "aliasfuzz: %s\n", stale);
  if (findings_clean_staging(k->o->out, &removed, err)) return -1;
  if (removed) fprintf(stderr, "aliasfuzz: removed %d staging folder(s) or temporary file(s) a killed run left in %s\n", removed, k->o->out);
  return 0;
}

/* One sample of state.json's "history": [seconds, programs, {verdict: programs}] (v: V_COUNT counts). */
static void history_add(camp *k, double t, int64_t n, const int64_t *v) {
  if (k->nhist >= 2048) { /* keep every other sample: the chart needs the shape, not every second */
    int m = 0;
    for (int i = 0; i < k->nhist; i += 2, m++) {
      k->hist_t[m] = k->hist_t[i];
      k->hist_n[m] = k->hist_n[i];
      memcpy(k->hist_v[m], k->hist_v[i], sizeof k->hist_v[0]);
    }
    k->nhist = m;
  }
  k->hist_t = af_xrealloc(k->hist_t, sizeof(double) * (size_t)(k->nhist + 1));
  k->hist_n = af_xrealloc(k->hist_n, sizeof(int64_t) * (size_t)(k->nhist + 1));
  k->hist_v = af_xrealloc(k->hist_v, sizeof k->hist_v[0] * (size_t)(k->nhist + 1));
  k->hist_t[k->nhist] = t;
  memcpy(k->hist_v[k->nhist], v, sizeof k->hist_v[0]);
  k->hist_n[k->nhist++] = n;
}

char *campaign_state_options_json(const campaign_opts *o, const conv_converter *c) {
  af_buf b = {0};
  af_buf_printf(&b, "{\"aliasfuzz\": \"%s\", \"stack\": \"%s\", \"torch\": \"%s (%s)\", ", AF_VERSION, at_stack(), at_version(),
                at_stack_origin());
  af_buf_printf(&b, "\"converter\": \"%s\", \"converter_version\": \"%s\", \"seed\": %llu, \"jobs\": %d, "
                    "\"iterations\": %lld, \"time\": %g, \"deadline\": %g, \"fail_on_residual\": %s, \"reduce\": %s, "
                    "\"max_reduce_tests\": %d, \"reduce_share\": %g, \"reduce_time\": %g, \"policy\": %s}",
                c->name, c->version(c), (unsigned long long)o->seed, o->jobs, (long long)o->iterations,
                o->time_s, o->deadline_s, o->fail_on_residual ? "true" : "false", o->no_reduce ? "false" : "true",
                o->max_reduce_tests, o->reduce_share, o->reduce_time_s, o->policy_json ? o->policy_json : "{}");
  cJSON *j = cJSON_Parse(b.s);
  af_buf_free(&b);
  if (j) cJSON_AddNumberToObject(j, "batch", campaign_batch_size(o, c)); /* --batch as run (1: off) */
  /* the seed again as text: a JSON number holds 53 bits, a seed 64 (reduce --deferred reads this) */
  char seed_text[32];
  snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)o->seed);
  if (j) cJSON_AddStringToObject(j, "seed_text", seed_text);
  if (j && o->shards > 0) { /* --shard K/N: which iterations ran (campaign.h); absent when not sharded */
    char shard[48];
    snprintf(shard, sizeof shard, "%d/%d", o->shard, o->shards);
    cJSON_AddStringToObject(j, "shard", shard);
  }
  if (j && o->baseline) cJSON_AddStringToObject(j, "baseline", o->baseline);
  if (j && o->other_stack) cJSON_AddStringToObject(j, "other_stack", o->other_stack);
  char *s = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  char *r = af_xstrdup(s);
  cJSON_free(s);
  return r;
}

static const char *const identity_keys[] = {"converter", "seed", "jobs", "fail_on_residual", "policy", NULL};

int campaign_state_write(camp *k, double elapsed, af_err *err) {
  cJSON *s = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "format", "aliasfuzz-campaign-state/1");
  cJSON_AddItemToObject(s, "options", cJSON_Parse(k->options_json));
  cJSON_AddNumberToObject(s, "seconds", k->prior_seconds + elapsed);
  cJSON_AddNumberToObject(s, "reduce_seconds", k->reduce_seconds);
  cJSON_AddNumberToObject(s, "finish_reduce_seconds", k->finish_reduce_seconds);
  cJSON_AddNumberToObject(s, "finish_seconds", k->finish_seconds);
  cJSON_AddNumberToObject(s, "finished", k->finished);
  cJSON_AddNumberToObject(s, "annotate_seconds", k->annotate_seconds);
  if (k->deferred_seconds > 0 || k->deferred_done > 0) {
    cJSON_AddNumberToObject(s, "reduce_deferred_seconds", k->deferred_seconds);
    cJSON_AddNumberToObject(s, "reduce_deferred", k->deferred_done);
  }
  cJSON_AddNumberToObject(s, "generalize_seconds", k->generalize_seconds);
  cJSON_AddNumberToObject(s, "baseline_seconds", k->baseline_seconds);
  int64_t total = 0, verdicts[V_COUNT] = {0};
  for (int j = 0; j < k->o->jobs; j++) {
    total += k->jobs[j].programs;
    for (int q = 0; q < V_COUNT; q++) verdicts[q] += k->jobs[j].verdicts[q];
  }
  history_add(k, k->prior_seconds + elapsed, total, verdicts);
  cJSON *h = cJSON_AddArrayToObject(s, "history");
  for (int i = 0; i < k->nhist; i++) {
    cJSON *pt = cJSON_CreateArray();
    cJSON_AddItemToArray(pt, cJSON_CreateNumber(k->hist_t[i]));
    cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)k->hist_n[i]));
    cJSON *v = cJSON_CreateObject();
    for (int q = 0; q < V_COUNT; q++)
      if (k->hist_v[i][q]) cJSON_AddNumberToObject(v, oracle_verdict_name((oracle_verdict)q), (double)k->hist_v[i][q]);
    cJSON_AddItemToArray(pt, v);
    cJSON_AddItemToArray(h, pt);
  }
  cJSON_AddItemToObject(s, "policy_epochs", campaign_policy_epochs()); /* refused constructs down-weighted (campaign_policy.c) */
  cJSON *js = cJSON_AddArrayToObject(s, "jobs");
  for (int j = 0; j < k->o->jobs; j++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "watermark", (double)k->jobs[j].watermark);
    cJSON_AddNumberToObject(x, "programs", (double)k->jobs[j].programs);
    cJSON *v = cJSON_AddObjectToObject(x, "verdicts");
    for (int q = 0; q < V_COUNT; q++)
      if (k->jobs[j].verdicts[q]) cJSON_AddNumberToObject(v, oracle_verdict_name((oracle_verdict)q), (double)k->jobs[j].verdicts[q]);
    cJSON *seen = cJSON_AddArrayToObject(x, "seen"); /* the quick keys (FNV-1a, hex) it minimized */
    for (int q = 0; q < k->jobs[j].nseen; q++) {
      char hx[24];
      snprintf(hx, sizeof hx, "%016llx", (unsigned long long)k->jobs[j].seen[q]);
      cJSON_AddItemToArray(seen, cJSON_CreateString(hx));
    }
    cJSON_AddItemToArray(js, x);
  }
  char *text = cJSON_Print(s);
  cJSON_Delete(s);
  char path[4096];
  snprintf(path, sizeof path, "%s/state.json", k->o->out);
  int rc = codec_write_atomic(path, text, strlen(text), err);
  cJSON_free(text);
  return rc;
}

int campaign_state_load(camp *k, af_err *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/state.json", k->o->out);
  if (access(path, F_OK) != 0) return 0;
  char *text = codec_slurp(path, NULL, err);
  if (!text) return -1;
  cJSON *s = cJSON_Parse(text);
  free(text);
  cJSON *opts = s ? cJSON_GetObjectItem(s, "options") : NULL, *mine = cJSON_Parse(k->options_json);
  cJSON *js = s ? cJSON_GetObjectItem(s, "jobs") : NULL;
  int rc = 0;
  if (!opts || !cJSON_IsArray(js)) {
    rc = af_fail(err, "%s: malformed campaign state (delete the folder or use another --out)", path);
    goto out;
  }
  for (int i = 0; identity_keys[i]; i++) {
    cJSON *a = cJSON_GetObjectItem(opts, identity_keys[i]), *b = cJSON_GetObjectItem(mine, identity_keys[i]);
    if (!a || !b || !cJSON_Compare(a, b, 1)) {
      rc = af_fail(err, "%s holds a campaign with another %s; resume it with the same options or use another --out",
                   k->o->out, identity_keys[i]);
      goto out;
    }
  }
  const char *was = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "shard")), *now = cJSON_GetStringValue(cJSON_GetObjectItem(mine, "shard"));
  if (strcmp(was ? was : "none", now ? now : "none") != 0) {
    rc = af_fail(err, "%s holds a campaign of shard %s, this one is shard %s; resume it with the same --shard or use another --out",
                 k->o->out, was ? was : "none (not sharded)", now ? now : "none (not sharded)");
    goto out;
  }
  if (cJSON_GetArraySize(js) != k->o->jobs) {
    rc = af_fail(err, "%s: state has %d jobs, expected %d", path, cJSON_GetArraySize(js), k->o->jobs);
    goto out;
  }
  for (int j = 0; j < k->o->jobs; j++) {
    cJSON *x = cJSON_GetArrayItem(js, j);
    k->jobs[j].watermark = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(x, "watermark"));
    k->jobs[j].programs = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(x, "programs"));
    cJSON *v = cJSON_GetObjectItem(x, "verdicts");
    for (cJSON *e = v ? v->child : NULL; e; e = e->next) {
      oracle_verdict q;
      if (oracle_verdict_parse(e->string, &q) == 0) k->jobs[j].verdicts[q] = (int64_t)e->valuedouble;
    }
    cJSON *e;
    k->jobs[j].nseen = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(x, "seen")) {
      if (cJSON_IsString(e) && k->jobs[j].nseen < JOB_SEEN_MAX) k->jobs[j].seen[k->jobs[j].nseen++] = strtoull(e->valuestring, NULL, 16);
    }
  }
  cJSON *pt;
  cJSON_ArrayForEach(pt, cJSON_GetObjectItem(s, "history")) {
    int64_t v[V_COUNT] = {0}; /* none in a state written before the samples had them */
    for (cJSON *e = cJSON_GetArrayItem(pt, 2) ? cJSON_GetArrayItem(pt, 2)->child : NULL; e; e = e->next) {
      oracle_verdict q;
      if (oracle_verdict_parse(e->string, &q) == 0) v[q] = (int64_t)e->valuedouble;
    }
    if (cJSON_GetArraySize(pt) >= 2)
      history_add(k, cJSON_GetNumberValue(cJSON_GetArrayItem(pt, 0)), (int64_t)cJSON_GetNumberValue(cJSON_GetArrayItem(pt, 1)), v);
  }
  k->prior_seconds = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "seconds"));
  k->reduce_seconds = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "reduce_seconds"));
  if (k->reduce_seconds != k->reduce_seconds) k->reduce_seconds = 0;
  k->finish_reduce_seconds = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "finish_reduce_seconds"));
  k->finish_seconds = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "finish_seconds"));
  k->finished = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "finished"));
  k->annotate_seconds = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "annotate_seconds"));
  if (k->finish_reduce_seconds != k->finish_reduce_seconds) k->finish_reduce_seconds = 0; /* NaN: absent (older state) */
  if (k->finish_seconds != k->finish_seconds) k->finish_seconds = 0;
  if (k->finished < 0) k->finished = 0;
  if (k->annotate_seconds != k->annotate_seconds) k->annotate_seconds = 0;
  cJSON *gs = cJSON_GetObjectItem(s, "generalize_seconds"), *bs = cJSON_GetObjectItem(s, "baseline_seconds");
  k->generalize_seconds = cJSON_IsNumber(gs) ? gs->valuedouble : 0;
  k->baseline_seconds = cJSON_IsNumber(bs) ? bs->valuedouble : 0;
  cJSON *ds = cJSON_GetObjectItem(s, "reduce_deferred_seconds"), *dn = cJSON_GetObjectItem(s, "reduce_deferred");
  k->deferred_seconds = cJSON_IsNumber(ds) ? ds->valuedouble : 0;
  k->deferred_done = cJSON_IsNumber(dn) ? dn->valueint : 0;
  if (k->prior_seconds != k->prior_seconds) k->prior_seconds = 0; /* NaN: absent */
  campaign_policy_init(k->o, k->c, cJSON_GetObjectItem(s, "policy_epochs"));
  k->resumed = 1;
out:
  cJSON_Delete(s);
  cJSON_Delete(mine);
  return rc;
}

void campaign_state_count_findings(camp *k) {
  char path[4096];
  snprintf(path, sizeof path, "%s/findings", k->o->out);
  DIR *d = opendir(path);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    for (int v = 0; v < V_COUNT; v++) {
      const char *n = oracle_verdict_name((oracle_verdict)v);
      size_t len = strlen(n);
      if (strncmp(e->d_name, n, len) == 0 && e->d_name[len] == '-' && strlen(e->d_name + len + 1) == 16) {
        k->distinct[v]++;
        k->distinct_total++;
      }
    }
  }
  if (d) closedir(d);
}

/* The graph change of a wrong-result program the baseline converter gets right (the graphs:
 * the baseline's and the campaign converter's), or NULL. new. */
static char *wrong_result_change(oracle_verdict v, const char *base_graph, const char *graph) {
  if (!base_graph || strcmp(classes_verdict_group(v, NULL), "wrong-result")) return NULL;
  return graphdiff_locus(base_graph, graph);
}

char *campaign_graph_change(const cJSON *line) {
  return wrong_result_change((oracle_verdict)(int)cJSON_GetNumberValue(cJSON_GetObjectItem(line, "verdict")),
                             cJSON_GetStringValue(cJSON_GetObjectItem(line, "base_graph")),
                             cJSON_GetStringValue(cJSON_GetObjectItem(line, "graph")));
}

/* Records f in the findings store and in its class. quick: its quick key, may be NULL. */
void campaign_state_record(camp *k, finding *f, const char *quick) {
  int is_new = 0, counted = 0, class_new = 0;
  char id[64], cid[64];
  af_err err;
  char *plain = NULL;
  if (k->write_error) return; /* nothing more is written */
  if (!f->pattern) f->pattern = plain = classes_plain_pattern(f->minimized);
  /* a new bug the baseline converter gets right: what its graph changed (classes.h) */
  char *change = wrong_result_change(f->verdict, f->base_graph, f->graph);
  f->graph_change = change;
  /* the class it will be in, found before its folder is written (its README names it): its own
   * key's, or the class it joins; none for a flaky finding */
  char *sigtext = NULL;
  sig_make(f->converter, f->verdict, f->minimized, f->detail, &sigtext, id);
  free(sigtext);
  classes_member probe = {f->converter, f->verdict, f->detail, f->pattern, id, f->minimized->nstmts, NULL,
                          f->reruns,    f->reproduced, f->seed, f->iteration, f->job, quick, change};
  classes_index_class_id(k->idx, &probe, cid);
  f->class_id = cid[0] ? cid : NULL;
  if (findings_record(k->o->out, f, &is_new, &counted, id, &err)) {
    char what[128];
    snprintf(what, sizeof what, "the finding of iteration %lld (seed %llu)", (long long)f->iteration, (unsigned long long)f->seed);
    campaign_state_write_failed(k, what, &err);
    free(plain);
    free(change);
    return;
  }
  classes_member m = {f->converter, f->verdict, f->detail, f->pattern, id,
                      f->minimized->nstmts, f->generalization, f->reruns, f->reproduced, f->seed, f->iteration, f->job, quick,
                      change};
  cJSON *c = classes_index_add(k->idx, &m, &class_new);
  k->idx_dirty = 1;
  if (is_new) {
    k->distinct[f->verdict]++;
    k->distinct_total++;
  }
  if (classes_member_harness(&m)) {
    if (k->o->progress) fprintf(stderr, "\n");
    fprintf(stderr, "aliasfuzz: a harness finding (%s), in no class: %s/findings/%s\n",
            f->verdict == V_PROTOCOL ? "the worker broke the protocol" : "aliasfuzz cannot hand the program to this converter", k->o->out, id);
  } else if (classes_member_flaky(&m)) {
    if (k->o->progress) fprintf(stderr, "\n");
    fprintf(stderr, "aliasfuzz: flaky finding (reproduced %d of %d reruns), in no class: %s/findings/%s\n", f->reproduced,
            f->reruns, k->o->out, id);
  } else if (class_new) {
    if (k->o->progress) fprintf(stderr, "\n");
    fprintf(stderr, "aliasfuzz: new class %s: %s `%s` (%d -> %d statements) in %s/findings/%s\n", cid,
            oracle_verdict_name(f->verdict),
            /* what the class keys on: its error key when it has one (an error, or a declared limit's
               error whatever write it surfaced under), a declared limit the converter warned of
               (classes.h CLASSES_WARNED), else the pattern */
            cJSON_GetStringValue(cJSON_GetObjectItem(c, "error_key"))  ? cJSON_GetStringValue(cJSON_GetObjectItem(c, "error_key"))
            : cJSON_GetStringValue(cJSON_GetObjectItem(c, "warned")) ? cJSON_GetStringValue(cJSON_GetObjectItem(c, "warned"))
                                                                      : f->pattern,
            f->reduction ? f->reduction->stmts_before : f->original->nstmts, f->minimized->nstmts, k->o->out, id);
  }
  free(plain);
  free(change);
  f->graph_change = NULL;
}

/* A failing program is written down under DIR/pending/<job>-<iteration>.json before anything else
 * is written for it (rec: {"line": its F line} or {"lost": {verdict, why}}; taken), and the file
 * removed once it is recorded (campaign_state_pending_done): a write error or a kill in between leaves it for the
 * next run (campaign_state_pending_replay). path receives the file. 0 on success; else campaign_state_write_failed. */
int campaign_state_pending_put(camp *k, int j, int64_t it, cJSON *rec, char path[4096]) {
  af_err e;
  snprintf(path, 4096, "%s/pending", k->o->out);
  int rc = k->write_error ? -1 : findings_mkdirs(path, &e);
  cJSON_AddNumberToObject(rec, "job", j);
  cJSON_AddNumberToObject(rec, "iteration", (double)it);
  char *text = cJSON_Print(rec);
  cJSON_Delete(rec);
  snprintf(path, 4096, "%s/pending/%d-%lld.json", k->o->out, j, (long long)it);
  if (!rc && (rc = codec_write_atomic(path, text, strlen(text), &e))) campaign_state_write_failed(k, "a failing program's pending record", &e);
  cJSON_free(text);
  return rc;
}

/* The pending record at path is recorded: removed, unless a write failed meanwhile. */
void campaign_state_pending_done(camp *k, const char *path) {
  if (!k->write_error && unlink(path) != 0 && errno != ENOENT)
    fprintf(stderr, "\naliasfuzz: %s: cannot remove this pending record: %s\n", path, strerror(errno));
}

static int by_iteration(const void *a, const void *b) {
  const char *x = strchr(*(char *const *)a, '-'), *y = strchr(*(char *const *)b, '-');
  long long i = x ? atoll(x + 1) : 0, q = y ? atoll(y + 1) : 0;
  return i < q ? -1 : i > q;
}

/* What DIR/pending/ holds (a run stopped by a write error or killed between writing a failing
 * program down and recording it), before the search goes on: a program of an iteration after its
 * job's watermark in state.json is run again by the search (minimized and recorded then: counts
 * are kept per job in iteration order, so it must not be counted before the iterations ahead of
 * it), and its record goes; one of an iteration the state counts as done is recorded now, in
 * iteration order. */
void campaign_state_pending_replay(camp *k) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/pending", k->o->out);
  DIR *d = opendir(dir);
  if (!d) return;
  char **names = NULL;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.' && strstr(e->d_name, ".json") && !strstr(e->d_name, ".tmp.")) {
      names = af_xrealloc(names, sizeof(char *) * (size_t)(n + 1));
      names[n++] = af_xstrdup(e->d_name);
    }
  closedir(d);
  qsort(names, (size_t)n, sizeof(char *), by_iteration);
  int again = 0, now = 0;
  for (int i = 0; i < n; i++) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    char *text = codec_slurp(path, NULL, NULL);
    cJSON *rec = text ? cJSON_Parse(text) : NULL;
    free(text);
    cJSON *line = cJSON_GetObjectItem(rec, "line"), *lost = cJSON_GetObjectItem(rec, "lost");
    int j = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(rec, "job"));
    int64_t it = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(rec, "iteration"));
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(lost, "why"));
    int v = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(lost, "verdict"));
    if (!rec || j < 0 || j >= k->o->jobs || it < 0 || (!cJSON_IsString(line) && (!why || (v != V_CRASH && v != V_TIMEOUT)))) {
      fprintf(stderr, "aliasfuzz: %s: not a pending record of this campaign (%d job(s)); left alone\n", path, k->o->jobs);
    } else if (it > k->jobs[j].watermark) {
      campaign_state_pending_done(k, path); /* the search runs it again */
      again++;
    } else if (!k->write_error) {
      if (cJSON_IsString(line)) campaign_wire_finding(k, j, line->valuestring);
      else campaign_pool_lost(k, j, it, (oracle_verdict)v, why);
      campaign_state_pending_done(k, path);
      now++;
    }
    cJSON_Delete(rec);
    free(names[i]);
  }
  if (n)
    fprintf(stderr, "aliasfuzz: %d failing program(s) a previous run left pending in %s: %d recorded now, %d run again by the search\n", n,
            dir, now, again);
  free(names);
}

/* The writes that end a campaign (and `aliasfuzz reduce --deferred`), in this order: classes.json,
 * state.json, report.json and report.md, report.html; the first that fails stops them (campaign_state_write_failed).
 * sum->write_error: "" when all were written, else the write that failed (the first of the run) and
 * the artifacts not written after it. */
void campaign_state_end_writes(camp *k, double elapsed, const report_campaign_figures *fig, campaign_summary *sum) {
  static const char *const name[] = {"classes.json", "state.json", "report.json and report.md", "report.html"};
  af_buf skipped = {0};
  for (int step = 0; step < 4; step++) {
    af_err e;
    if (k->write_error) {
      af_buf_printf(&skipped, "%s%s", skipped.len ? ", " : "", name[step]);
      continue;
    }
    int bad = step == 0   ? classes_index_save(k->o->out, k->idx, &e)
              : step == 1 ? campaign_state_write(k, elapsed, &e)
              : step == 2 ? report_write_campaign(k->o->out, fig, &e)
                          : report_campaign_html(k->o->out, &e);
    if (bad) campaign_state_write_failed(k, NULL, &e);
  }
  sum->write_error[0] = 0;
  if (k->write_error)
    snprintf(sum->write_error, sizeof sum->write_error, "%s%s%s", k->write_error, skipped.len ? "; not written after it: " : "",
             skipped.len ? skipped.s : "");
  af_buf_free(&skipped);
}
