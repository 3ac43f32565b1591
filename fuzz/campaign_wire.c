/* campaign_wire.c - the line protocol between a campaign's jobs and its parent (the lines are
 * listed in campaign_int.h): the job's half writes lines to its pipe (campaign_wire_send, a finding
 * as one JSON line), the parent's half reads them (campaign_wire_read: what a job is doing, its
 * findings recorded, its counted and deferred programs queued). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/codec.h"
#include "campaign_int.h"

void campaign_wire_send(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(3); /* parent gone */
    s += w;
    n -= (size_t)w;
  }
}

/* JSON line describing a finding; new. */
char *campaign_wire_finding_line(char kind, int64_t it, uint64_t seed, const judgement *j, const ir_program *orig, const ir_program *min,
                          const reduce_stats *rs, const char *quick, const classes_gen *g, const char *base_graph) {
  cJSON *o = cJSON_CreateObject();
  if (quick) cJSON_AddStringToObject(o, "quick", quick);
  if (g && g->pattern) {
    cJSON_AddStringToObject(o, "pattern", g->pattern);
    cJSON_AddStringToObject(o, "gen", g->table ? g->table : "[]");
    cJSON_AddNumberToObject(o, "reruns", g->reruns);
    cJSON_AddNumberToObject(o, "reproduced", g->reproduced);
  }
  cJSON_AddNumberToObject(o, "iteration", (double)it);
  char s[32];
  snprintf(s, sizeof s, "%llu", (unsigned long long)seed);
  cJSON_AddStringToObject(o, "seed", s);
  cJSON_AddNumberToObject(o, "verdict", j->verdict);
  cJSON_AddStringToObject(o, "detail", j->detail ? j->detail : "");
  cJSON_AddStringToObject(o, "graph", j->graph ? j->graph : "");
  if (base_graph) cJSON_AddStringToObject(o, "base_graph", base_graph);
  char *a = codec_write_string(orig), *b = min ? codec_write_string(min) : NULL;
  cJSON_AddStringToObject(o, "original", a);
  if (b) cJSON_AddStringToObject(o, "minimized", b);
  free(a);
  free(b);
  if (rs) {
    cJSON_AddNumberToObject(o, "before", rs->stmts_before);
    cJSON_AddNumberToObject(o, "after", rs->stmts_after);
    cJSON_AddNumberToObject(o, "tests", rs->tests);
    cJSON_AddNumberToObject(o, "seconds", rs->seconds);
  }
  char *text = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  af_buf line = {0};
  af_buf_printf(&line, "%c %s\n", kind, text);
  cJSON_free(text);
  return af_buf_take(&line);
}

void campaign_wire_finding(camp *k, int j, const char *json) {
  cJSON *o = cJSON_Parse(json);
  ir_program *orig = NULL, *min = NULL;
  af_err err;
  const char *orig_s = o ? cJSON_GetStringValue(cJSON_GetObjectItem(o, "original")) : NULL;
  const char *min_s = o ? cJSON_GetStringValue(cJSON_GetObjectItem(o, "minimized")) : NULL;
  cJSON *spent = o ? cJSON_GetObjectItem(o, "seconds") : NULL;
  if (spent) k->reduce_seconds += spent->valuedouble;
  if (spent && k->finishing) k->finish_reduce_seconds += spent->valuedouble;
  if (spent && !k->finishing && j >= 0 && j < k->o->jobs) k->jobs[j].reduce_s += spent->valuedouble;
  const char *quick = o ? cJSON_GetStringValue(cJSON_GetObjectItem(o, "quick")) : NULL;
  if (quick && !k->finishing && j >= 0 && j < k->o->jobs) { /* the job slot minimized this key */
    job *jb = &k->jobs[j];
    uint64_t h = campaign_key_hash(quick);
    int have = 0;
    for (int q = 0; q < jb->nseen; q++) have |= jb->seen[q] == h;
    if (!have && jb->nseen < JOB_SEEN_MAX) jb->seen[jb->nseen++] = h;
  }
  if (!orig_s || !min_s || codec_read_string(orig_s, "finding", &orig, &err) || codec_read_string(min_s, "finding", &min, &err)) {
    fprintf(stderr, "\naliasfuzz: job %d sent a malformed finding (%s); ignored\n", j, orig_s && min_s ? err.msg : "no program");
    goto out;
  }
  reduce_stats rs = {0};
  cJSON *before = cJSON_GetObjectItem(o, "before");
  if (before) {
    rs.stmts_before = (int)before->valuedouble;
    rs.stmts_after = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "after"));
    rs.tests = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "tests"));
    rs.seconds = cJSON_GetNumberValue(cJSON_GetObjectItem(o, "seconds"));
  }
  char rerun[512], shard[48] = "";
  if (k->o->shards > 0) snprintf(shard, sizeof shard, " --shard %d/%d", k->o->shard, k->o->shards);
  snprintf(rerun, sizeof rerun, "aliasfuzz fuzz --converter %s --seed %llu --jobs %d%s --out %s   # the campaign", k->c->name,
           (unsigned long long)k->o->seed, k->o->jobs, shard, k->o->out);
  finding f = {
      .converter = k->c->name,
      .converter_version = k->c->version(k->c),
      .convert_py = k->c->repro_py,
      .verdict = (oracle_verdict)(int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "verdict")),
      .detail = cJSON_GetStringValue(cJSON_GetObjectItem(o, "detail")),
      .graph = cJSON_GetStringValue(cJSON_GetObjectItem(o, "graph")),
      .original = orig,
      .minimized = min,
      .reduction = before ? &rs : NULL,
      .seed = strtoull(cJSON_GetStringValue(cJSON_GetObjectItem(o, "seed")), NULL, 10),
      .iteration = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "iteration")),
      .job = j,
      .options_json = k->options_json,
      .rerun = rerun,
      .pattern = cJSON_GetStringValue(cJSON_GetObjectItem(o, "pattern")),
      .generalization = cJSON_GetStringValue(cJSON_GetObjectItem(o, "gen")),
      .reruns = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "reruns")),
      .reproduced = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "reproduced")),
      .base_graph = cJSON_GetStringValue(cJSON_GetObjectItem(o, "base_graph")),
  };
  if (f.reruns < 0) f.reruns = 0; /* NaN: absent */
  if (f.verdict >= V_COUNT) f.verdict = V_ERROR;
  campaign_state_record(k, &f, cJSON_GetStringValue(cJSON_GetObjectItem(o, "quick")));
out:
  ir_program_free(orig);
  ir_program_free(min);
  cJSON_Delete(o);
}

void campaign_wire_read(camp *k, int j) {
  job *jb = &k->jobs[j];
  char *start = jb->in.s;
  char *nl;
  while (start && (nl = strchr(start, '\n'))) {
    *nl = 0;
    if (start[0] == 'B') {
      jb->inflight = strtoll(start + 2, NULL, 10);
      jb->since = campaign_now();
      jb->batch = 0;
    } else if (start[0] == 'N') { /* "N n LAST": inside a batch ending at iteration LAST (--batch,
                                     campaign_batch.c), n programs combined: n deadlines from now;
                                     "N 0": the batch is judged */
      char *end;
      jb->batch = (int)strtol(start + 2, &end, 10);
      jb->batch_last = strtoll(end, NULL, 10);
      jb->since = campaign_now();
    } else if (start[0] == 'D') {
      char *end;
      int64_t it = strtoll(start + 2, &end, 10);
      int v = (int)strtol(end, &end, 10);
      /* then the seconds this program took generalizing and on the baseline (campaign_job.c) */
      double gs = strtod(end, &end), bs = strtod(end, NULL);
      if (gs > 0) k->generalize_seconds += gs;
      if (bs > 0) k->baseline_seconds += bs;
      jb->watermark = it;
      jb->inflight = -1;
      jb->reducing = 0;
      jb->batch = 0;
      jb->programs++;
      if (v >= 0 && v < V_COUNT) jb->verdicts[v]++;
    } else if (start[0] == 'R') { /* minimizing: the minimization deadline applies from now */
      jb->reducing = 1;
      jb->since = campaign_now();
      free(jb->pending);
      jb->pending = af_xstrdup(start + 2);
    } else if (start[0] == 'F') {
      cJSON *rec = cJSON_CreateObject(), *it = cJSON_Parse(start + 2);
      cJSON_AddStringToObject(rec, "line", start + 2);
      char pend[4096];
      if (campaign_state_pending_put(k, j, (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(it, "iteration")), rec, pend) == 0) {
        campaign_wire_finding(k, j, start + 2);
        campaign_state_pending_done(k, pend);
      }
      cJSON_Delete(it);
      jb->reducing = 0;
      jb->since = campaign_now(); /* the per-program deadline again, from the end of the minimization: the
                              D line of the iteration comes after, and until it arrives the time
                              spent minimizing must not count as the program's */
      free(jb->pending);
      jb->pending = NULL;
    } else if (start[0] == 'Q' || start[0] == 'P') {
      cJSON *o = cJSON_Parse(start + 2);
      if (o) (void)campaign_deferred_add(k, j, start + 2, o);
      cJSON_Delete(o);
    } else if (start[0] == 'G') { /* the job's policy from an iteration on (campaign_policy.c) */
      campaign_policy_record(start + 2);
    } else if (start[0] == 'E') {
      jb->finished = 1;
    } else if (start[0] == 'S' || start[0] == 'U') { /* a worker's crash being traced: its own deadline */
      jb->tracing = start[0] == 'S';
      jb->since = campaign_now();
    } else if (start[0] == 'K') { /* a native frame of the crash that is killing the job */
      af_buf_printf(&jb->crash, "%s\n", start);
    }
    start = nl + 1;
  }
  /* keep the unfinished tail */
  size_t rest = start ? strlen(start) : 0;
  if (start && start != jb->in.s) {
    memmove(jb->in.s, start, rest + 1);
    jb->in.len = rest;
  }
}
