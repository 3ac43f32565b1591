/* campaign.c - the campaign driver (campaign.h; its parts: campaign_int.h): a campaign's setup,
 * its search (the job pool), the deferred programs after it, the annotations and the final
 * writes; and `aliasfuzz reduce --deferred`. */
#include "campaign.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/codec.h"
#include "../harness/torch/shim.h"
#include "annotate.h"
#include "campaign_int.h"
#include "confirm.h"
#include "refusals.h"

volatile sig_atomic_t campaign_stop_requested;
void campaign_request_stop(void) { campaign_stop_requested = 1; }

uint64_t campaign_program_seed(uint64_t s, int64_t i) {
  uint64_t z = s * 0x9E3779B97F4A7C15ULL + (uint64_t)i + 0x632BE59BD9B4E019ULL; /* splitmix64 */
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

int campaign_parse_shard(const char *s, int *k, int *n, af_err *err) {
  const char *slash = s ? strchr(s, '/') : NULL;
  char *end = NULL;
  long kk = -1, nn = -1;
  int digits = slash && slash > s && slash[1] && strspn(s, "0123456789") == (size_t)(slash - s) &&
               strspn(slash + 1, "0123456789") == strlen(slash + 1);
  if (digits) {
    kk = strtol(s, &end, 10);
    nn = strtol(slash + 1, &end, 10);
  }
  if (!digits || slash - s > 6 || strlen(slash + 1) > 6)
    return af_fail(err, "--shard '%s': expected K/N, two whole numbers (shard K of N, 1 <= K <= N), e.g. 2/4", s ? s : "");
  if (nn < 1 || nn > CAMPAIGN_MAX_SHARDS) return af_fail(err, "--shard '%s': N must be 1 to %d", s, CAMPAIGN_MAX_SHARDS);
  if (kk < 1 || kk > nn) return af_fail(err, "--shard '%s': K must be 1 to N (%ld); shards count from 1", s, nn);
  *k = (int)kk;
  *n = (int)nn;
  return 0;
}

int64_t campaign_first_iteration(const campaign_opts *o, int j) {
  int64_t n = o->shards > 0 ? o->shards : 1;
  return (o->shards > 0 ? o->shard - 1 : 0) + n * j;
}

int64_t campaign_iteration_step(const campaign_opts *o) { return (int64_t)o->jobs * (o->shards > 0 ? o->shards : 1); }

/* What a campaign (or reduce --deferred) allocated in its camp; k itself is the caller's. */
static void camp_free(camp *k) {
  af_dir_lock_release(&k->lock);
  free(k->write_error);
  cJSON_Delete(k->idx);
  free(k->options_json);
  free(k->jobs);
  free(k->hist_t);
  free(k->hist_n);
  free(k->hist_v);
}

void campaign_progress(camp *k, double elapsed, int final) {
  int64_t programs = 0;
  for (int j = 0; j < k->o->jobs; j++) programs += k->jobs[j].programs;
  af_buf b = {0};
  char rate[32];
  af_buf_printf(&b, "[%6.0fs] %lld programs, %s/s, classes %d, findings %d", elapsed, (long long)programs,
                report_rate(elapsed > 0 ? (double)programs / (k->prior_seconds + elapsed) : 0.0, rate), classes_index_count(k->idx),
                k->distinct_total);
  int first = 1;
  for (int v = 0; v < V_COUNT; v++)
    if (k->distinct[v]) {
      af_buf_printf(&b, "%s%s %d", first ? " (" : ", ", oracle_verdict_name((oracle_verdict)v), k->distinct[v]);
      first = 0;
    }
  if (!first) af_buf_puts(&b, ")");
  fprintf(stderr, "\r%s\033[K%s", b.s, final ? "\n" : "");
  af_buf_free(&b);
}

/* The figures a campaign (and `aliasfuzz reduce --deferred`) ends with, into sum (the programs,
 * verdicts, findings and class counts; the caller sets the rest), and the writes that end it:
 * the report's figures cover prior_seconds + elapsed. */
static void end_of_run(camp *k, double elapsed, campaign_summary *sum) {
  for (int j = 0; j < k->o->jobs; j++) {
    sum->programs += k->jobs[j].programs;
    for (int v = 0; v < V_COUNT; v++) sum->verdicts[v] += k->jobs[j].verdicts[v];
  }
  sum->findings = k->distinct_total;
  sum->limit_classes = refusals_mark_classes(k->idx, k->c); /* what the converter refuses: apart from its bugs */
  sum->deferred_limits = refusals_deferred_limits(k->idx, k->c);
  sum->classes = classes_index_count(k->idx);
  sum->deferred = classes_index_unclassified(k->idx);
  sum->unclassified_programs = classes_index_unclassified_programs(k->idx);
  sum->deferred_new = classes_index_unclassified_new(k->idx);
  sum->artifact_classes = confirm_count(k->idx, "artifact");
  sum->flaky = classes_index_flaky_count(k->idx);
  sum->harness = classes_index_harness_count(k->idx);
  report_campaign_figures fig = {sum->programs, k->prior_seconds + elapsed, sum->verdicts, k->options_json, k->reduce_seconds};
  fig.finish_reduce_seconds = k->finish_reduce_seconds;
  fig.finish_seconds = k->finish_seconds;
  fig.finished = k->finished;
  fig.annotate_seconds = k->annotate_seconds;
  campaign_state_end_writes(k, elapsed, &fig, sum);
}

static void on_sigint(int sig) {
  (void)sig;
  campaign_stop_requested = 1;
}

int campaign_run(campaign_opts *o, campaign_summary *sum, af_err *err) {
  memset(sum, 0, sizeof *sum);
  campaign_stop_requested = 0;
  double t0 = campaign_now();
  camp k = {.o = o, .c = conv_find(o->converter), .lock = {-1}};
  if (!k.c) return af_fail(err, "unknown converter '%s'", o->converter);
  const char *why = NULL;
  if (!k.c->available(k.c, &why)) return af_fail(err, "converter %s is not available here: %s", k.c->name, why ? why : "?");
  annotate_opts ao = {o->out, k.c, o->baseline, o->other_stack, o->no_triggers, o->deadline_s > 0 ? o->deadline_s : 10,
                      o->fail_on_residual};
  if (annotate_check(&ao, err)) return -1;
  if (o->jobs < 1) o->jobs = 1;
  if (o->deadline_s <= 0) o->deadline_s = 10;
  if (o->max_reduce_tests <= 0) o->max_reduce_tests = 2000; /* as `aliasfuzz reduce`; --reduce-time bounds slow converters first */
  if (o->reduce_share <= 0) o->reduce_share = 0.25;
  if (o->reduce_time_s <= 0) o->reduce_time_s = 30;
  char path[4096];
  snprintf(path, sizeof path, "%s/findings", o->out);
  if (findings_mkdirs(path, err)) return -1;
  k.options_json = campaign_state_options_json(o, k.c);
  k.jobs = af_xcalloc((size_t)o->jobs, sizeof(job));
  for (int j = 0; j < o->jobs; j++) {
    k.jobs[j].watermark = -1;
    k.jobs[j].fd = -1;
    k.jobs[j].pid = -1;
  }
  char what[600];
  snprintf(what, sizeof what, "fuzz --converter %s --out %s", k.c->name, o->out);
  int rc = campaign_state_lock(&k, what, err);
  campaign_policy_init(o, k.c, NULL); /* campaign_state_load takes the epochs of a campaign it resumes */
  if (!rc) rc = campaign_state_load(&k, err);
  if (rc) goto out;
  if (!(k.idx = classes_index_load(o->out, err))) {
    rc = -1;
    goto out;
  }
  campaign_state_count_findings(&k);
  sum->resumed = k.resumed;
  if (k.resumed) fprintf(stderr, "aliasfuzz: resuming the campaign in %s\n", o->out);
  struct sigaction sa = {0}, old_int, old_pipe;
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  (void)old_pipe;
  t0 = k.search_t0 = campaign_now();
  campaign_state_pending_replay(&k);
  rc = campaign_pool_run(&k, t0, err);
  campaign_pool_stop(&k);
  {
    /* Ctrl-C still stops cleanly while deferred programs are minimized and classes annotated
     * (the default action killed the campaign there, with no report) */
    double elapsed = campaign_now() - t0;
    af_err e2;
    /* a history sample where the search ends: the report's charts tell it from what follows */
    if (!k.write_error && campaign_state_write(&k, elapsed, &e2)) campaign_state_write_failed(&k, NULL, &e2);
    if (!campaign_stop_requested && !k.write_error && !o->no_reduce && !o->no_finish) {
      campaign_deferred_finish(&k, (k.prior_seconds + elapsed - k.finish_seconds - k.annotate_seconds) * o->jobs);
      elapsed = campaign_now() - t0;
    }
    if (!campaign_stop_requested && !k.write_error) {
      /* the baseline, the converter's switches and the other stack, on each class's program */
      double a0 = campaign_now();
      if (annotate_classes(k.idx, &ao, &e2)) fprintf(stderr, "aliasfuzz: %s\n", e2.msg);
      k.annotate_seconds += campaign_now() - a0;
      elapsed = campaign_now() - t0;
    }
    if (o->progress) campaign_progress(&k, elapsed, 1);
    sum->reduce_seconds = k.reduce_seconds;
    sum->search_reduce_seconds = k.reduce_seconds - k.finish_reduce_seconds;
    sum->finish_seconds = k.finish_seconds;
    sum->finished = k.finished; /* the deferred programs minimized after the search (the last line said 0) */
    sum->annotate_seconds = k.annotate_seconds;
    {
      cJSON *c;
      /* a harness artifact (not seen from the converter's public API, confirm.h) is no bug: not new either */
      cJSON_ArrayForEach(c, cJSON_GetObjectItem(k.idx, "classes")) sum->new_classes += !annotate_in_baseline(c) && !confirm_is_artifact(c);
    }
    sum->seconds = k.prior_seconds + elapsed;
    sum->search_job_seconds = (sum->seconds - k.finish_seconds - k.annotate_seconds) * o->jobs;
    end_of_run(&k, elapsed, sum);
  }
  sigaction(SIGINT, &old_int, NULL);
out:
  camp_free(&k);
  return rc;
}

/* ------------------------------------------------------------------ aliasfuzz reduce --deferred */

/* Without --reduce-time, `reduce --deferred` gives each program the campaign's --reduce-time or,
 * when longer, the time of REDUCE_DEFERRED_TESTS tests at the pace the campaign measured (at most
 * REDUCE_DEFERRED_MAX_S): a campaign's 30 s are a hundred tests of jit but one or two of iree at a
 * loaded machine's 16 s per program, which left an iree campaign's 13 deferred programs unminimized. */
#define REDUCE_DEFERRED_TESTS 60
#define REDUCE_DEFERRED_MAX_S 1800.0

/* The seconds one job took per program in the campaign of state st (its search's seconds over the
 * programs each job judged), or 0 when unknown. */
static double deferred_seconds_per_program(const cJSON *st) {
  double secs = cJSON_GetNumberValue(cJSON_GetObjectItem(st, "seconds")), programs = 0;
  const cJSON *j;
  int jobs = 0;
  cJSON_ArrayForEach(j, cJSON_GetObjectItem(st, "jobs")) {
    double n = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "programs"));
    if (n > 0) programs += n;
    jobs++;
  }
  return secs > 0 && programs > 0 && jobs > 0 ? secs * jobs / programs : 0;
}

int campaign_reduce_deferred(const campaign_deferred_opts *d, campaign_summary *sum, af_err *err) {
  memset(sum, 0, sizeof *sum);
  campaign_stop_requested = 0;
  char path[4096];
  snprintf(path, sizeof path, "%s/state.json", d->dir);
  if (access(path, F_OK) != 0) return af_fail(err, "%s: not a campaign folder (no state.json)", d->dir);
  char *text = codec_slurp(path, NULL, err);
  if (!text) return -1;
  cJSON *st = cJSON_Parse(text);
  free(text);
  cJSON *opts = st ? cJSON_GetObjectItem(st, "options") : NULL;
  const char *conv = opts ? cJSON_GetStringValue(cJSON_GetObjectItem(opts, "converter")) : NULL;
  if (!conv) {
    cJSON_Delete(st);
    return af_fail(err, "%s: malformed campaign state (no options.converter)", path);
  }
  campaign_opts o = {0};
  o.converter = conv;
  o.out = d->dir;
  o.jobs = cJSON_GetArraySize(cJSON_GetObjectItem(st, "jobs"));
  const char *shard = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "shard"));
  if (shard && campaign_parse_shard(shard, &o.shard, &o.shards, err)) {
    af_err_prefix(err, "%s: options.shard", path);
    cJSON_Delete(st);
    return -1;
  }
  o.fail_on_residual = cJSON_IsTrue(cJSON_GetObjectItem(opts, "fail_on_residual"));
  cJSON *x = cJSON_GetObjectItem(opts, "deadline");
  o.deadline_s = cJSON_IsNumber(x) && x->valuedouble > 0 ? x->valuedouble : 10;
  x = cJSON_GetObjectItem(opts, "max_reduce_tests");
  o.max_reduce_tests = d->max_tests > 0 ? d->max_tests : cJSON_IsNumber(x) && x->valueint > 0 ? x->valueint : 2000;
  x = cJSON_GetObjectItem(opts, "reduce_time");
  o.reduce_time_s = d->reduce_time_s > 0 ? d->reduce_time_s : cJSON_IsNumber(x) && x->valuedouble > 0 ? x->valuedouble : 30;
  if (d->reduce_time_s <= 0) { /* not asked: enough time for REDUCE_DEFERRED_TESTS tests at the campaign's pace */
    double spp = deferred_seconds_per_program(st);
    if (spp > 0 && REDUCE_DEFERRED_TESTS * spp > o.reduce_time_s) {
      o.reduce_time_s = REDUCE_DEFERRED_TESTS * spp < REDUCE_DEFERRED_MAX_S ? REDUCE_DEFERRED_TESTS * spp : REDUCE_DEFERRED_MAX_S;
      fprintf(stderr, "aliasfuzz: %.0f s to minimize each deferred program (%d tests at the campaign's %.1f s per program; "
                      "--reduce-time sets it)\n", o.reduce_time_s, REDUCE_DEFERRED_TESTS, spp);
    }
  }
  o.reduce_share = 1; /* asked for: no budget */
  o.baseline = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "baseline"));
  o.other_stack = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "other_stack"));
  o.no_triggers = d->no_triggers;
  /* the campaign's seed and policy: the findings' READMEs name the campaign's command, and a
     program whose job died is generated again from its seed */
  x = cJSON_GetObjectItem(opts, "seed_text");
  if (cJSON_IsString(x)) o.seed = strtoull(x->valuestring, NULL, 10);
  else if (cJSON_IsNumber(cJSON_GetObjectItem(opts, "seed"))) o.seed = (uint64_t)cJSON_GetObjectItem(opts, "seed")->valuedouble;
  gen_policy_default(&o.policy);
  char *policy_text = NULL;
  x = cJSON_GetObjectItem(opts, "policy");
  int rc = 0;
  camp k = {.o = &o, .c = conv_find(conv), .lock = {-1}};
  if (cJSON_IsObject(x)) {
    policy_text = cJSON_PrintUnformatted(x);
    if (gen_policy_from_json(policy_text, &o.policy, err)) {
      af_err_prefix(err, "%s: the campaign's policy", path);
      rc = -1;
      goto out;
    }
    o.policy_json = policy_text;
  }
  if (o.jobs < 1) {
    rc = af_fail(err, "%s: malformed campaign state (no jobs)", path);
    goto out;
  }
  if (!k.c) {
    rc = af_fail(err, "%s: the campaign's converter '%s' is not known to this build", d->dir, conv);
    goto out;
  }
  const char *why = NULL;
  if (!k.c->available(k.c, &why)) {
    rc = af_fail(err, "the campaign's converter %s is not available here: %s", k.c->name, why ? why : "?");
    goto out;
  }
  const char *stack = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "stack"));
  if (stack && strcmp(stack, at_stack()) != 0) {
    rc = af_fail(err, "%s is a %s campaign and this aliasfuzz is built for %s: use that stack's build", d->dir, stack, at_stack());
    goto out;
  }
  char *oj = cJSON_PrintUnformatted(opts);
  k.options_json = af_xstrdup(oj);
  cJSON_free(oj);
  k.jobs = af_xcalloc((size_t)o.jobs, sizeof(job));
  char what[600];
  snprintf(what, sizeof what, "reduce --deferred %s", d->dir);
  if ((rc = campaign_state_lock(&k, what, err)) || (rc = campaign_state_load(&k, err))) goto out;
  if (!(k.idx = classes_index_load(d->dir, err))) {
    rc = -1;
    goto out;
  }
  campaign_state_count_findings(&k);
  int classes_before = classes_index_count(k.idx);
  struct sigaction sa = {0}, old_int;
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &old_int);
  signal(SIGPIPE, SIG_IGN);
  /* the campaign's own figures stay its own: what this run does is counted apart */
  double keep_reduce = k.reduce_seconds, keep_fr = k.finish_reduce_seconds, keep_fs = k.finish_seconds;
  int keep_finished = k.finished;
  k.retry_failed = 1;
  k.search_t0 = campaign_now();
  campaign_state_pending_replay(&k);
  campaign_deferred_finish(&k, 0);
  double spent = k.finish_seconds - keep_fs;
  int done = k.finished - keep_finished;
  k.reduce_seconds = keep_reduce;
  k.finish_reduce_seconds = keep_fr;
  k.finish_seconds = keep_fs;
  k.finished = keep_finished;
  k.deferred_seconds += spent;
  k.deferred_done += done;
  annotate_opts ao = {d->dir, k.c, o.baseline, o.other_stack, o.no_triggers, o.deadline_s, o.fail_on_residual};
  af_err e2;
  if (!campaign_stop_requested && !k.write_error && annotate_classes(k.idx, &ao, &e2)) fprintf(stderr, "aliasfuzz: %s\n", e2.msg);
  sum->new_classes = classes_index_count(k.idx) - classes_before;
  sum->finished = done;
  sum->finish_seconds = spent;
  sum->seconds = k.prior_seconds;
  end_of_run(&k, 0, sum);
  if (sum->write_error[0]) rc = af_fail(err, "write error: %s; run the same command again once the disk has room", sum->write_error);
  sigaction(SIGINT, &old_int, NULL);
out:
  camp_free(&k);
  cJSON_Delete(st);
  cJSON_free(policy_text);
  return rc;
}

