/* campaign_job.c - the job: the child side of a campaign (campaign_int.h). Each job process runs
 * its iterations (generate, eager, convert, judge: judge.h) and sends what it found to the parent
 * over the wire (campaign_wire.c); a failing program is counted under its quick key, deferred when
 * the minimization budget is spent, or minimized and generalized here. The reducer's and the
 * generalizer's predicates judge candidates with the campaign's converter (and its baseline
 * converter, when --baseline names one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/converters/conv_worker.h"
#include "campaign_int.h"
#include "classes.h"
#include "refusals.h"

typedef struct pred_ctx {
  const conv_converter *c;
  const oracle_opts *oo;
  oracle_verdict v;
  const char *detail;
  double isolate; /* > 0: each candidate judged in a child with this deadline (a candidate may crash
                     the converter, or corrupt its heap: LibTorch 1.13's functionalization does on
                     an out= op that resizes an unfold view past its base) */
  const conv_converter *base; /* the baseline converter, or NULL: every candidate must keep what
                                 the baseline said of the program as found */
  int base_known;             /* 1: the baseline showed the same bug on it, 0: it did not */
} pred_ctx;

/* Whether the baseline converter has the bug the campaign's converter shows on cand (its
 * judgement cj): the same error key for errors, crashes and unsupported programs; for wrong values
 * the same verdict with the same detail, i.e. the same wrong answer (a program that shows a
 * baseline bug and a new one beside it gives another answer than the baseline: it is new). -1
 * when the baseline cannot judge it. pass_graph, when not NULL: the baseline's graph of cand when
 * it gets cand right (new), else NULL. */
static int base_same(const conv_converter *base, double isolate, const ir_program *cand, const oracle_opts *oo, const judgement *cj,
                     char **pass_graph) {
  judgement j = {0};
  af_err err;
  int rc = isolate > 0 ? judge_isolated(base, cand, oo, isolate, &j, &err) : judge_inprocess(base, cand, oo, &j, &err);
  int r = -1;
  if (pass_graph) *pass_graph = !rc && j.verdict == V_PASS && j.graph && *j.graph ? af_xstrdup(j.graph) : NULL;
  if (!rc) {
    if (!strcmp(classes_verdict_group(cj->verdict, NULL), "wrong-result")) { /* what each converter warned aside */
      size_t la = oracle_detail_len(j.detail), lb = oracle_detail_len(cj->detail);
      r = j.verdict == cj->verdict && la == lb && (!la || !strncmp(j.detail, cj->detail, la));
    }
    else
      r = judge_same_bug(&j, cj->verdict, cj->detail);
  }
  judgement_clear(&j);
  return r;
}

/* The baseline converter of a campaign (its --baseline when that names a converter, not a
 * folder), or NULL. */
static const conv_converter *baseline_conv(const campaign_opts *o) {
  struct stat st;
  if (!o->baseline || stat(o->baseline, &st) == 0) return NULL;
  return conv_find(o->baseline);
}

static int judge_cand(const pred_ctx *x, const ir_program *cand, judgement *j, af_err *err) {
  return x->isolate > 0 ? judge_isolated(x->c, cand, x->oo, x->isolate, j, err) : judge_inprocess(x->c, cand, x->oo, j, err);
}

static int same_bug_pred(const ir_program *cand, void *vctx) {
  pred_ctx *x = vctx;
  judgement j;
  af_err err;
  if (judge_cand(x, cand, &j, &err)) return 0;
  int same = judge_same_bug(&j, x->v, x->detail) && refusals_same_limit(x->c, j.verdict, j.detail, x->v, x->detail);
  if (same && x->base) same = base_same(x->base, x->isolate, cand, x->oo, &j, NULL) == x->base_known;
  judgement_clear(&j);
  return same;
}

/* classes_judge over the campaign's converter: how a variant of a minimized program fares. */
/* Generalization variants are judged until this time (monotonic seconds). */
static double variants_until;
/* Seconds the program being judged took generalizing and on the baseline: its D line carries them
 * to the parent (the report's time split), then they start again from 0. */
static double job_generalize_s, job_baseline_s;
static int variant_judge(const ir_program *cand, void *vctx) {
  pred_ctx *x = vctx;
  judgement j;
  if (variants_until > 0 && campaign_now() > variants_until) return CLASSES_NOT_RUN; /* out of time */
  af_err err;
  if (judge_cand(x, cand, &j, &err)) return CLASSES_NOT_RUN;
  int r = classes_outcome(&j, x->v, x->detail);
  /* a variant the converter warned of with a declared limit where the program was not (or the other way round) is another case */
  if (r == CLASSES_SAME && !refusals_same_limit(x->c, j.verdict, j.detail, x->v, x->detail)) r = CLASSES_OTHER;
  /* a variant the baseline judges otherwise than the program is another bug (a new one beside a
   * known one, or the other way round) */
  if (r == CLASSES_SAME && x->base && base_same(x->base, x->isolate, cand, x->oo, &j, NULL) != x->base_known) r = CLASSES_OTHER;
  judgement_clear(&j);
  return r;
}

static int isolated_pred(const ir_program *cand, void *vctx) {
  pred_ctx *x = vctx;
  judgement j;
  af_err err;
  if (judge_isolated(x->c, cand, x->oo, 10.0, &j, &err)) return 0;
  int same = judge_same_bug(&j, x->v, x->detail);
  if (same && x->base) same = base_same(x->base, 10.0, cand, x->oo, &j, NULL) == x->base_known;
  judgement_clear(&j);
  return same;
}

void campaign_job_minimize_crash(const conv_converter *c, const oracle_opts *oo, const ir_program *p, const char *detail, int max_tests,
                                 double limit_s, ir_program **min, reduce_stats *rs) {
  pred_ctx x = {c, oo, V_CRASH, detail, 0};
  reduce_program_within(p, isolated_pred, &x, max_tests, limit_s, min, rs);
}

/* Stamps the program's meta with what makes it reproducible. */
void campaign_job_stamp_meta(ir_program *p, const campaign_opts *o, int64_t it, uint64_t seed) {
  af_buf b = {0};
  char *pol = gen_policy_diff_json(&o->policy);
  /* JSON numbers are doubles: seeds from 2^53 on go in as strings to stay exact (as gen does) */
  const char *q = seed < (1ULL << 53) ? "" : "\"", *cq = o->seed < (1ULL << 53) ? "" : "\"";
  af_buf_printf(&b, "{\"seed\": %s%llu%s, \"generator\": \"%s\", \"policy\": %s, \"campaign_seed\": %s%llu%s, \"iteration\": %lld}",
                q, (unsigned long long)seed, q, GEN_VERSION, pol, cq, (unsigned long long)o->seed, cq, (long long)it);
  free(pol);
  cJSON *j = cJSON_Parse(b.s);
  char *compact = j ? cJSON_PrintUnformatted(j) : NULL;
  ir_set_meta(p, compact);
  cJSON_free(compact);
  cJSON_Delete(j);
  af_buf_free(&b);
}

/* The longest one finding's minimization may take: --reduce-time for the reducer, half as much
 * again for generalizing. */
double campaign_job_full_limit(const campaign_opts *o) { return 1.5 * o->reduce_time_s; }
/* A minimization is not started with less time than this (it would rarely finish). */
double campaign_job_min_start(const campaign_opts *o) { return campaign_job_full_limit(o) < 1.0 ? campaign_job_full_limit(o) : 1.0; }

/* Minimizes and generalizes the failing program p of iteration it within limit_s seconds (two
 * thirds for the reducer, the rest for generalizing) and sends its F line (after an R line that
 * carries p as found). isolate: every candidate and variant judged in a child process (slower;
 * for programs whose in-process minimization died). Returns the seconds spent. */
double campaign_job_minimize(const campaign_opts *o, const conv_converter *c, const oracle_opts *oo, int64_t it, uint64_t seed,
                                const ir_program *p, judgement *j, const char *qk, int fd, double limit_s, int isolate) {
  char *rl = campaign_wire_finding_line('R', it, seed, j, p, NULL, NULL, qk, NULL, NULL);
  campaign_wire_send(fd, rl, strlen(rl));
  free(rl);
  double r0 = campaign_now();
  ir_program *min = NULL;
  reduce_stats rs = {0};
  /* with a baseline converter, the program keeps what the baseline said of it as found (its
   * quick key's mark): a new bug is not minimized into the baseline's known one */
  int inb = classes_quick_in_baseline(qk);
  pred_ctx x = {c, oo, j->verdict, j->detail, isolate ? o->deadline_s : 0, inb >= 0 ? baseline_conv(o) : NULL, inb == 1};
  reduce_program_within(p, same_bug_pred, &x, o->max_reduce_tests, limit_s / 1.5, &min, &rs);
  judgement jm;
  af_err err;
  if (judge_cand(&x, min, &jm, &err) == 0) {
    if (judge_same_bug(&jm, j->verdict, j->detail) && refusals_same_limit(c, jm.verdict, jm.detail, j->verdict, j->detail)) {
      judgement_clear(j);
      *j = jm;
    } else {
      judgement_clear(&jm);
    }
  }
  classes_gen g;
  pred_ctx y = {c, oo, j->verdict, j->detail, x.isolate, x.base, x.base_known};
  variants_until = r0 + limit_s;
  double g0 = campaign_now();
  classes_generalize(min, variant_judge, &y, 120, 3, &g);
  job_generalize_s += campaign_now() - g0;
  /* a new bug against a baseline converter: the baseline's graph of the minimized program, when
   * it gets that program right (the class keys on what the two graphs differ in: classes.h) */
  char *base_graph = NULL;
  if (x.base && !x.base_known) (void)base_same(x.base, x.isolate, min, oo, j, &base_graph);
  double spent = campaign_now() - r0;
  rs.seconds = spent;
  char *fl = campaign_wire_finding_line('F', it, seed, j, p, min, &rs, qk, &g, base_graph);
  free(base_graph);
  classes_gen_clear(&g);
  ir_program_free(min);
  campaign_wire_send(fd, fl, strlen(fl));
  free(fl);
  return spent;
}

/* Seconds a job may spend minimizing one more finding now, t seconds into the search with
 * reduce_s spent minimizing so far (by this job and the jobs it replaced): the full limit without a
 * cap (--reduce-share 1); else what keeps the job's minimizing within its share of the search's
 * length when the campaign has a --time (so the budget may be spent early, when a class saves
 * most), or of the time so far without one; and never past the end of the search. */
double campaign_job_allowance(const campaign_opts *o, double t, double reduce_s) {
  double a = campaign_job_full_limit(o), share = o->reduce_share;
  if (share < 1) {
    double left = o->time_s > 0 ? share * o->time_s - reduce_s : (share * t - reduce_s) / (1 - share);
    if (left < a) a = left;
  }
  if (o->time_s > 0 && o->time_s - t - 1 < a) a = o->time_s - t - 1;
  return a;
}

/* One failing program, in a job: counted by its quick key, deferred (over the minimization
 * budget), or minimized and generalized within what the budget allows. Minimization is
 * announced with an R line that carries the program as found, so that the parent applies the
 * minimization deadline instead of the per-program one, and keeps the program when minimization
 * does not finish. t0: the search's start (monotonic), reduce_s: this job's minimizing so far. */
static void job_failing(const campaign_opts *o, const conv_converter *c, const oracle_opts *oo, int64_t it, uint64_t seed,
                        ir_program *p, judgement *j, uint64_t *seen, int *nseen, double t0, double *reduce_s, int fd) {
  char *qk = classes_quick_key_on(c, p, j->verdict, j->detail);
  char *base_graph = NULL; /* the baseline's graph of p when it gets p right (classes.h: graph change) */
  const conv_converter *base = baseline_conv(o);
  if (base) { /* member by member: each failing program judged on the baseline, new and known apart */
    double b0 = campaign_now();
    int known = base_same(base, 0, p, oo, j, &base_graph);
    job_baseline_s += campaign_now() - b0;
    af_buf b = {0};
    af_buf_printf(&b, "%s%s%s", qk, CLASSES_BASELINE_MARK, known == 1 ? "known" : "new");
    free(qk);
    qk = af_buf_take(&b);
  }
  uint64_t h = campaign_key_hash(qk);
  int known = 0;
  for (int q = 0; q < *nseen; q++) known |= seen[q] == h;
  double elapsed = campaign_now() - t0, share = o->reduce_share;
  /* what matters first (issue 34): errors and refusals within part of the budget, wrong values all of it */
  double limit = campaign_job_allowance_rank(o, elapsed, *reduce_s, refusals_rank(c, j->verdict, j->detail));
  int under = limit >= campaign_job_min_start(o);
  /* room to look for another class behind a known quick key: half the budget unspent */
  int spare = under && (share >= 1 || *reduce_s <= share * 0.5 * elapsed);
  char *fl = NULL;
  if (o->no_reduce) {
    classes_gen g = {classes_plain_pattern(p), NULL, 0, 0, 0};
    fl = campaign_wire_finding_line('F', it, seed, j, p, p, NULL, qk, &g, base_graph);
    classes_gen_clear(&g);
  } else if (known && (classes_by_error(j->verdict) || !spare)) {
    fl = campaign_wire_finding_line('Q', it, seed, j, p, NULL, NULL, qk, NULL, base_graph); /* counted, not minimized again */
  } else if (!known && !under) {
    fl = campaign_wire_finding_line('P', it, seed, j, p, NULL, NULL, qk, NULL, base_graph); /* deferred: over the budget */
  } else {
    *reduce_s += campaign_job_minimize(o, c, oo, it, seed, p, j, qk, fd, limit, 0);
    if (*nseen < JOB_SEEN_MAX) seen[(*nseen)++] = h;
  }
  if (fl) campaign_wire_send(fd, fl, strlen(fl));
  free(fl);
  free(qk);
  free(base_graph);
}

/* A worker's crash traced to an earlier program of this job (conv_worker_take_blame): that
 * program's converter-crash finding, as found (it does not crash alone, so no minimization can
 * keep its bug), charged to its own iteration. */
static void send_blame(conv_worker *w, int fd) {
  conv_worker_blame b;
  if (!conv_worker_take_blame(w, &b)) return;
  long long it = -1;
  unsigned long long seed = 0;
  if (b.tag && sscanf(b.tag, "%lld %llu", &it, &seed) == 2 && b.program) {
    judgement j = {.verdict = V_CRASH, .detail = b.detail};
    char *qk = classes_quick_key(b.program, V_CRASH, b.detail);
    classes_gen g = {classes_plain_pattern(b.program), NULL, 0, 0, 0, 0};
    char *fl = campaign_wire_finding_line('F', it, seed, &j, b.program, b.program, NULL, qk, &g, NULL);
    campaign_wire_send(fd, fl, strlen(fl));
    free(fl);
    free(qk);
    classes_gen_clear(&g);
  }
  conv_worker_blame_clear(&b);
}

/* While a worker traces a crash to an earlier program (several fresh worker starts), the parent
 * applies the minimization deadline, not the per-program one: "S" and "U" lines. */
static void attribution_hook(void *arg, int starting) {
  campaign_wire_send(*(int *)arg, starting ? "S\n" : "U\n", 2);
}

/* Job `job` from iteration `start` on; t0: the search's start (monotonic, shared by all jobs),
 * reduce_s: what this job (and those it replaced after a crash) spent minimizing so far. */
void campaign_job_main(const campaign_opts *o, const conv_converter *c, int slot, int64_t start, int fd, double t0, double reduce_s,
                     const uint64_t *seen0, int nseen0) {
  oracle_opts oo = {o->fail_on_residual};
  char line[128];
  /* Quick keys this job slot minimized already: later programs with one are counted, not
   * minimized again (unless the budget has room to look for another class behind the same key).
   * A job started after a crash or on resume goes on from the slot's keys (seen0, which the
   * parent keeps from the slot's F lines and in the campaign state), so that what is minimized
   * does not depend on when a job process was replaced. */
  uint64_t seen[JOB_SEEN_MAX];
  int nseen = nseen0 < JOB_SEEN_MAX ? nseen0 : JOB_SEEN_MAX;
  /* this job's policy: the campaign's with the constructs its converter refuses down-weighted
   * (campaign_policy.c), from its first iteration; campaign is o as given */
  const campaign_opts *campaign = o;
  campaign_opts lo = *o;
  campaign_policy_at(campaign, slot, start, &lo.policy);
  o = &lo;
  memcpy(seen, seen0, sizeof(uint64_t) * (size_t)nseen);
  /* a worker converter's process starts and warms up (seconds, tens of seconds for Inductor)
   * before the first program's clock runs: under the worker's own start deadline, not --deadline
   * (else every job's first program was a converter-timeout finding) */
  const char *why = NULL;
  (void)c->available(c, &why);
  conv_worker *w = conv_worker_of(c);
  static int hook_fd;
  hook_fd = fd;
  if (w) conv_worker_set_attribution_hook(attribution_hook, &hook_fd);
  for (int64_t it = start; (o->iterations == 0 || it < o->iterations) && !campaign_stop_requested; it += campaign_iteration_step(o)) {
    int n = snprintf(line, sizeof line, "B %lld\n", (long long)it);
    campaign_wire_send(fd, line, (size_t)n);
    uint64_t seed = campaign_program_seed(o->seed, it);
    ir_program *p = NULL;
    af_err err;
    judgement j = {0};
    /* seed becomes the seed of the program judged (a program whose writes change nothing is
       passed over for the next draw): its meta and finding lines name it */
    if (judge_gen_program(&o->policy, seed, &p, &seed, NULL, &err)) {
      j.verdict = V_INVALID_PROGRAM;
      j.detail = af_xstrdup(err.msg);
    } else {
      campaign_job_stamp_meta(p, o, it, seed);
      char tag[64];
      snprintf(tag, sizeof tag, "%lld %llu", (long long)it, (unsigned long long)seed);
      if (w) conv_worker_set_tag(w, tag);
      if (campaign_batch_judge(o, c, &oo, it, campaign_iteration_step(o), tag, p, fd, &j, &err)) { /* --batch */
        j.verdict = V_INVALID_PROGRAM;
        j.detail = af_xstrdup(err.msg);
      }
      if (w) send_blame(w, fd);
    }
    if (j.verdict != V_PASS && p) job_failing(o, c, &oo, it, seed, p, &j, seen, &nseen, t0, &reduce_s, fd);
    if (j.verdict != V_PASS && campaign_policy_learn(campaign, c, slot, it, j.verdict, j.detail, fd))
      campaign_policy_at(campaign, slot, it + 1, &lo.policy); /* refused by design: down-weighted from the next program */
    n = snprintf(line, sizeof line, "D %lld %d %.4f %.4f\n", (long long)it, (int)j.verdict, job_generalize_s, job_baseline_s);
    job_generalize_s = job_baseline_s = 0;
    campaign_wire_send(fd, line, (size_t)n);
    judgement_clear(&j);
    ir_program_free(p);
  }
  campaign_wire_send(fd, "E\n", 2);
  (void)slot;
}
