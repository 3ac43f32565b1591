/* campaign.c - see campaign.h */
#include "campaign.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../harness/codec.h"
#include "../harness/torch/shim.h"
#include "../harness/converters/conv.h"
#include "../harness/converters/conv_worker.h"
#include "../oracle/signature.h"
#include "../reports/report.h"
#include "annotate.h"
#include "confirm.h"
#include "crashsite.h"
#include "classes.h"
#include "findings.h"
#include "judge.h"
#include "reduce.h"

static volatile sig_atomic_t stop_requested;
void campaign_request_stop(void) { stop_requested = 1; }

uint64_t campaign_program_seed(uint64_t s, int64_t i) {
  uint64_t z = s * 0x9E3779B97F4A7C15ULL + (uint64_t)i + 0x632BE59BD9B4E019ULL; /* splitmix64 */
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ the job (child) side */

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
 * when the baseline cannot judge it. */
static int base_same(const conv_converter *base, double isolate, const ir_program *cand, const oracle_opts *oo, const judgement *cj) {
  judgement j = {0};
  af_err err;
  int rc = isolate > 0 ? judge_isolated(base, cand, oo, isolate, &j, &err) : judge_inprocess(base, cand, oo, &j, &err);
  int r = -1;
  if (!rc) {
    if (!strcmp(classes_verdict_group(cj->verdict, NULL), "wrong-result"))
      r = j.verdict == cj->verdict && !strcmp(j.detail ? j.detail : "", cj->detail ? cj->detail : "");
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
  int same = judge_same_bug(&j, x->v, x->detail);
  if (same && x->base) same = base_same(x->base, x->isolate, cand, x->oo, &j) == x->base_known;
  judgement_clear(&j);
  return same;
}

/* classes_judge over the campaign's converter: how a variant of a minimized program fares. */
/* Generalization variants are judged until this time (monotonic seconds). */
static double variants_until;
static int variant_judge(const ir_program *cand, void *vctx) {
  pred_ctx *x = vctx;
  judgement j;
  if (variants_until > 0 && now_s() > variants_until) return CLASSES_INVALID; /* out of time: not run */
  af_err err;
  if (judge_cand(x, cand, &j, &err)) return CLASSES_INVALID;
  int r = classes_outcome(&j, x->v, x->detail);
  /* a variant the baseline judges otherwise than the program is another bug (a new one beside a
   * known one, or the other way round) */
  if (r == CLASSES_SAME && x->base && base_same(x->base, x->isolate, cand, x->oo, &j) != x->base_known) r = CLASSES_OTHER;
  judgement_clear(&j);
  return r;
}

static int isolated_pred(const ir_program *cand, void *vctx) {
  pred_ctx *x = vctx;
  judgement j;
  af_err err;
  if (judge_isolated(x->c, cand, x->oo, 10.0, &j, &err)) return 0;
  int same = judge_same_bug(&j, x->v, x->detail);
  if (same && x->base) same = base_same(x->base, 10.0, cand, x->oo, &j) == x->base_known;
  judgement_clear(&j);
  return same;
}

static void send_line(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(3); /* parent gone */
    s += w;
    n -= (size_t)w;
  }
}

/* JSON line describing a finding; new. */
static char *finding_line(char kind, int64_t it, uint64_t seed, const judgement *j, const ir_program *orig, const ir_program *min,
                          const reduce_stats *rs, const char *quick, const classes_gen *g) {
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

/* Stamps the program's meta with what makes it reproducible. */
static void stamp_meta(ir_program *p, const campaign_opts *o, int64_t it, uint64_t seed) {
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

static uint64_t hash_str(const char *t) { return sig_fnv1a(t, strlen(t), 0); }

/* The longest one finding's minimization may take: --reduce-time for the reducer, half as much
 * again for generalizing. */
static double full_limit(const campaign_opts *o) { return 1.5 * o->reduce_time_s; }
/* A minimization is not started with less time than this (it would rarely finish). */
static double min_start(const campaign_opts *o) { return full_limit(o) < 1.0 ? full_limit(o) : 1.0; }

/* Minimizes and generalizes the failing program p of iteration it within limit_s seconds (two
 * thirds for the reducer, the rest for generalizing) and sends its F line (after an R line that
 * carries p as found). isolate: every candidate and variant judged in a child process (slower;
 * for programs whose in-process minimization died). Returns the seconds spent. */
static double minimize_and_send(const campaign_opts *o, const conv_converter *c, const oracle_opts *oo, int64_t it, uint64_t seed,
                                const ir_program *p, judgement *j, const char *qk, int fd, double limit_s, int isolate) {
  char *rl = finding_line('R', it, seed, j, p, NULL, NULL, qk, NULL);
  send_line(fd, rl, strlen(rl));
  free(rl);
  double r0 = now_s();
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
    if (judge_same_bug(&jm, j->verdict, j->detail)) {
      judgement_clear(j);
      *j = jm;
    } else {
      judgement_clear(&jm);
    }
  }
  classes_gen g;
  pred_ctx y = {c, oo, j->verdict, j->detail, x.isolate, x.base, x.base_known};
  variants_until = r0 + limit_s;
  classes_generalize(min, variant_judge, &y, 120, 3, &g);
  double spent = now_s() - r0;
  rs.seconds = spent;
  char *fl = finding_line('F', it, seed, j, p, min, &rs, qk, &g);
  classes_gen_clear(&g);
  ir_program_free(min);
  send_line(fd, fl, strlen(fl));
  free(fl);
  return spent;
}

/* Seconds a job may spend minimizing one more finding now, t seconds into the search with
 * reduce_s spent minimizing so far (by this job and the jobs it replaced): the full limit without a
 * cap (--reduce-share 1); else what keeps the job's minimizing within its share of the search's
 * length when the campaign has a --time (so the budget may be spent early, when a class saves
 * most), or of the time so far without one; and never past the end of the search. */
static double reduce_allowance(const campaign_opts *o, double t, double reduce_s) {
  double a = full_limit(o), share = o->reduce_share;
  if (share < 1) {
    double left = o->time_s > 0 ? share * o->time_s - reduce_s : (share * t - reduce_s) / (1 - share);
    if (left < a) a = left;
  }
  if (o->time_s > 0 && o->time_s - t - 1 < a) a = o->time_s - t - 1;
  return a;
}

#define JOB_SEEN_MAX 2048

/* One failing program, in a job: counted by its quick key, deferred (over the minimization
 * budget), or minimized and generalized within what the budget allows. Minimization is
 * announced with an R line that carries the program as found, so that the parent applies the
 * minimization deadline instead of the per-program one, and keeps the program when minimization
 * does not finish. t0: the search's start (monotonic), reduce_s: this job's minimizing so far. */
static void job_failing(const campaign_opts *o, const conv_converter *c, const oracle_opts *oo, int64_t it, uint64_t seed,
                        ir_program *p, judgement *j, uint64_t *seen, int *nseen, double t0, double *reduce_s, int fd) {
  char *qk = classes_quick_key(p, j->verdict, j->detail);
  const conv_converter *base = baseline_conv(o);
  if (base) { /* member by member: each failing program judged on the baseline, new and known apart */
    int known = base_same(base, 0, p, oo, j);
    af_buf b = {0};
    af_buf_printf(&b, "%s%s%s", qk, CLASSES_BASELINE_MARK, known == 1 ? "known" : "new");
    free(qk);
    qk = af_buf_take(&b);
  }
  uint64_t h = hash_str(qk);
  int known = 0;
  for (int q = 0; q < *nseen; q++) known |= seen[q] == h;
  double elapsed = now_s() - t0, share = o->reduce_share;
  double limit = reduce_allowance(o, elapsed, *reduce_s);
  int under = limit >= min_start(o);
  /* room to look for another class behind a known quick key: half the budget unspent */
  int spare = under && (share >= 1 || *reduce_s <= share * 0.5 * elapsed);
  char *fl = NULL;
  if (o->no_reduce) {
    classes_gen g = {classes_plain_pattern(p), NULL, 0, 0, 0};
    fl = finding_line('F', it, seed, j, p, p, NULL, qk, &g);
    classes_gen_clear(&g);
  } else if (known && (classes_by_error(j->verdict) || !spare)) {
    fl = finding_line('Q', it, seed, j, p, NULL, NULL, qk, NULL); /* counted, not minimized again */
  } else if (!known && !under) {
    fl = finding_line('P', it, seed, j, p, NULL, NULL, qk, NULL); /* deferred: over the budget */
  } else {
    *reduce_s += minimize_and_send(o, c, oo, it, seed, p, j, qk, fd, limit, 0);
    if (*nseen < JOB_SEEN_MAX) seen[(*nseen)++] = h;
  }
  if (fl) send_line(fd, fl, strlen(fl));
  free(fl);
  free(qk);
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
    char *fl = finding_line('F', it, seed, &j, b.program, b.program, NULL, qk, &g);
    send_line(fd, fl, strlen(fl));
    free(fl);
    free(qk);
    classes_gen_clear(&g);
  }
  conv_worker_blame_clear(&b);
}

/* While a worker traces a crash to an earlier program (several fresh worker starts), the parent
 * applies the minimization deadline, not the per-program one: "S" and "U" lines. */
static void attribution_hook(void *arg, int starting) {
  send_line(*(int *)arg, starting ? "S\n" : "U\n", 2);
}

/* Job `job` from iteration `start` on; t0: the search's start (monotonic, shared by all jobs),
 * reduce_s: what this job (and those it replaced after a crash) spent minimizing so far. */
static void job_main(const campaign_opts *o, const conv_converter *c, int job, int64_t start, int fd, double t0, double reduce_s,
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
  for (int64_t it = start; (o->iterations == 0 || it < o->iterations) && !stop_requested; it += o->jobs) {
    int n = snprintf(line, sizeof line, "B %lld\n", (long long)it);
    send_line(fd, line, (size_t)n);
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
      stamp_meta(p, o, it, seed);
      char tag[64];
      snprintf(tag, sizeof tag, "%lld %llu", (long long)it, (unsigned long long)seed);
      if (w) conv_worker_set_tag(w, tag);
      if (judge_inprocess(c, p, &oo, &j, &err)) {
        j.verdict = V_INVALID_PROGRAM;
        j.detail = af_xstrdup(err.msg);
      }
      if (w) send_blame(w, fd);
    }
    if (j.verdict != V_PASS && p) job_failing(o, c, &oo, it, seed, p, &j, seen, &nseen, t0, &reduce_s, fd);
    n = snprintf(line, sizeof line, "D %lld %d\n", (long long)it, (int)j.verdict);
    send_line(fd, line, (size_t)n);
    judgement_clear(&j);
    ir_program_free(p);
  }
  send_line(fd, "E\n", 2);
  (void)job;
}

/* ------------------------------------------------------------------ the parent side */

typedef struct job {
  pid_t pid;
  int fd;
  af_buf in;
  int64_t watermark; /* last iteration done, -1 none */
  int64_t inflight;  /* iteration being run, -1 none */
  double since;
  int64_t programs;
  int64_t verdicts[V_COUNT];
  int finished;
  int reducing;   /* minimizing a finding of iteration inflight: its own deadline applies */
  char *pending;  /* that finding as found (the R line's JSON), kept when minimization dies */
  double reduce_s; /* seconds this job slot spent minimizing in this run (its F lines, its lost
                      minimizations, the crashes of its programs minimized here): a job started
                      after a crash goes on from it, so its budget is not new */
  uint64_t seen[JOB_SEEN_MAX]; /* quick keys (hashes) of the slot's F lines: job_main's seen0 */
  int nseen;
  af_buf crash;   /* the K lines of a job that is dying (crashsite.h) */
  int tracing;    /* its worker traces a crash to an earlier program: the minimization deadline applies */
} job;

typedef struct camp {
  campaign_opts *o;
  const conv_converter *c;
  job *jobs;
  char *options_json;
  int distinct[V_COUNT];
  int distinct_total;
  double prior_seconds;
  int resumed;
  /* programs done over time, for the report's programs/s chart: (seconds, programs) */
  double *hist_t;
  int64_t *hist_n;
  int nhist;
  cJSON *idx;         /* the class index (classes.h) */
  int idx_dirty;
  double reduce_seconds; /* spent minimizing (all jobs, this run and the runs it resumes) */
  double finish_reduce_seconds; /* of which after the search (finish_deferred) */
  double finish_seconds; /* wall time after the search (finish_deferred) */
  int finished;          /* deferred programs finish_deferred minimized */
  int finishing;         /* 1 while finish_deferred runs */
  double annotate_seconds; /* wall time of annotate_classes */
  double search_t0;        /* monotonic start of this run's search */
  double deferred_seconds; /* `aliasfuzz reduce --deferred` runs on this folder: wall seconds */
  int deferred_done;       /* and the deferred programs they minimized */
  int retry_failed;        /* finish_deferred: also the deferred programs marked "failed" */
  af_dir_lock lock;        /* the folder's lock, held from the start to the end (lock_folder) */
  char *write_error;       /* the first write that failed (new), NULL while none did: from then on
                              nothing is written (write_failed) */
} camp;

/* What a campaign (or reduce --deferred) allocated in its camp; k itself is the caller's. */
static void camp_free(camp *k) {
  af_dir_lock_release(&k->lock);
  free(k->write_error);
  cJSON_Delete(k->idx);
  free(k->options_json);
  free(k->jobs);
  free(k->hist_t);
  free(k->hist_n);
}

/* The first write that failed (what: which artifact, may be NULL; e: the error, which names the
 * file): the campaign stops and writes nothing more, not even state.json, so that the folder is as
 * a SIGKILL at this point would leave it. A rerun resumes from there: the iterations after the
 * last state.json are run again and the programs under DIR/pending/ recorded (pending_replay). */
static void write_failed(camp *k, const char *what, const af_err *e) {
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
static int lock_folder(camp *k, const char *what, af_err *err) {
  char stale[256];
  int removed = 0;
  if (af_dir_lock_take(k->o->out, what, &k->lock, stale, err)) return -1;
  if (stale[0]) fprintf(stderr, "aliasfuzz: %s\n", stale);
  if (findings_clean_staging(k->o->out, &removed, err)) return -1;
  if (removed) fprintf(stderr, "aliasfuzz: removed %d staging folder(s) or temporary file(s) a killed run left in %s\n", removed, k->o->out);
  return 0;
}

static void history_add(camp *k, double t, int64_t n) {
  if (k->nhist >= 2048) { /* keep every other sample: the chart needs the shape, not every second */
    int m = 0;
    for (int i = 0; i < k->nhist; i += 2, m++) {
      k->hist_t[m] = k->hist_t[i];
      k->hist_n[m] = k->hist_n[i];
    }
    k->nhist = m;
  }
  k->hist_t = af_xrealloc(k->hist_t, sizeof(double) * (size_t)(k->nhist + 1));
  k->hist_n = af_xrealloc(k->hist_n, sizeof(int64_t) * (size_t)(k->nhist + 1));
  k->hist_t[k->nhist] = t;
  k->hist_n[k->nhist++] = n;
}

static char *options_json(const campaign_opts *o, const conv_converter *c) {
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
  /* the seed again as text: a JSON number holds 53 bits, a seed 64 (reduce --deferred reads this) */
  char seed_text[32];
  snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)o->seed);
  if (j) cJSON_AddStringToObject(j, "seed_text", seed_text);
  if (j && o->baseline) cJSON_AddStringToObject(j, "baseline", o->baseline);
  if (j && o->other_stack) cJSON_AddStringToObject(j, "other_stack", o->other_stack);
  char *s = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  char *r = af_xstrdup(s);
  cJSON_free(s);
  return r;
}

static const char *const identity_keys[] = {"converter", "seed", "jobs", "fail_on_residual", "policy", NULL};

static int write_state(camp *k, double elapsed, af_err *err) {
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
  int64_t total = 0;
  for (int j = 0; j < k->o->jobs; j++) total += k->jobs[j].programs;
  history_add(k, k->prior_seconds + elapsed, total);
  cJSON *h = cJSON_AddArrayToObject(s, "history");
  for (int i = 0; i < k->nhist; i++) {
    cJSON *pt = cJSON_CreateArray();
    cJSON_AddItemToArray(pt, cJSON_CreateNumber(k->hist_t[i]));
    cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)k->hist_n[i]));
    cJSON_AddItemToArray(h, pt);
  }
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

static int load_state(camp *k, af_err *err) {
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
    if (cJSON_GetArraySize(pt) == 2)
      history_add(k, cJSON_GetNumberValue(cJSON_GetArrayItem(pt, 0)), (int64_t)cJSON_GetNumberValue(cJSON_GetArrayItem(pt, 1)));
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
  cJSON *ds = cJSON_GetObjectItem(s, "reduce_deferred_seconds"), *dn = cJSON_GetObjectItem(s, "reduce_deferred");
  k->deferred_seconds = cJSON_IsNumber(ds) ? ds->valuedouble : 0;
  k->deferred_done = cJSON_IsNumber(dn) ? dn->valueint : 0;
  if (k->prior_seconds != k->prior_seconds) k->prior_seconds = 0; /* NaN: absent */
  k->resumed = 1;
out:
  cJSON_Delete(s);
  cJSON_Delete(mine);
  return rc;
}

static void count_existing_findings(camp *k) {
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

static int spawn(camp *k, int j, af_err *err) {
  job *jb = &k->jobs[j];
  int64_t start = jb->watermark < 0 ? j : jb->watermark + k->o->jobs;
  if (k->o->iterations && start >= k->o->iterations) {
    jb->finished = 1;
    jb->pid = -1;
    return 0;
  }
  int fd[2];
  if (pipe(fd) != 0) return af_fail(err, "pipe: %s", strerror(errno));
  af_buf_free(&jb->crash);
  jb->tracing = 0;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return af_fail(err, "fork: %s", strerror(errno));
  if (pid == 0) {
    close(fd[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a job never outlives its campaign */
    if (getppid() == 1) _exit(0);
    af_dir_lock_drop_inherited(); /* nor keeps its folder locked */
    signal(SIGINT, SIG_IGN); /* the parent decides when to stop */
    signal(SIGTERM, SIG_DFL);
    crashsite_install(fd[1]); /* a crash sends its native frames: each crash state its own class */
    job_main(k->o, k->c, j, start, fd[1], k->search_t0, jb->reduce_s, jb->seen, jb->nseen);
    _exit(0);
  }
  close(fd[1]);
  jb->pid = pid;
  jb->fd = fd[0];
  jb->inflight = -1;
  jb->finished = 0;
  return 0;
}

/* Records f in the findings store and in its class. quick: its quick key, may be NULL. */
static void record(camp *k, finding *f, const char *quick) {
  int is_new = 0, counted = 0, class_new = 0;
  char id[64], cid[64];
  af_err err;
  char *plain = NULL;
  if (k->write_error) return; /* nothing more is written */
  if (!f->pattern) f->pattern = plain = classes_plain_pattern(f->minimized);
  /* the class it will be in, found before its folder is written (its README names it): its own
   * key's, or the class it joins; none for a flaky finding */
  char *sigtext = NULL;
  sig_make(f->converter, f->verdict, f->minimized, f->detail, &sigtext, id);
  free(sigtext);
  classes_member probe = {f->converter, f->verdict, f->detail, f->pattern, id, f->minimized->nstmts, NULL,
                          f->reruns,    f->reproduced, f->seed, f->iteration, f->job, quick};
  classes_index_class_id(k->idx, &probe, cid);
  f->class_id = cid[0] ? cid : NULL;
  if (findings_record(k->o->out, f, &is_new, &counted, id, &err)) {
    char what[128];
    snprintf(what, sizeof what, "the finding of iteration %lld (seed %llu)", (long long)f->iteration, (unsigned long long)f->seed);
    write_failed(k, what, &err);
    free(plain);
    return;
  }
  classes_member m = {f->converter, f->verdict, f->detail, f->pattern, id,
                      f->minimized->nstmts, f->generalization, f->reruns, f->reproduced, f->seed, f->iteration, f->job, quick};
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
            classes_keyed_by_error(f->verdict, f->pattern) ? cJSON_GetStringValue(cJSON_GetObjectItem(c, "error_key")) : f->pattern,
            f->reduction ? f->reduction->stmts_before : f->original->nstmts, f->minimized->nstmts, k->o->out, id);
  }
  free(plain);
}

/* A program not minimized: counted in the class its quick key maps to, else kept (one per quick
 * key) under DIR/deferred/, for finish_deferred(). */
static cJSON *defer(camp *k, int j, const char *json, cJSON *o) {
  const char *qk = cJSON_GetStringValue(cJSON_GetObjectItem(o, "quick"));
  int64_t it = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "iteration"));
  if (!qk || k->write_error) return NULL;
  k->idx_dirty = 1;
  if (classes_index_count_quick(k->idx, qk, j, it)) return NULL;
  cJSON *d = cJSON_GetObjectItem(k->idx, "deferred"), *e = cJSON_GetObjectItemCaseSensitive(d, qk);
  if (e) {
    cJSON *n = cJSON_GetObjectItem(e, "count");
    cJSON_SetNumberValue(n, n->valuedouble + 1);
    return e;
  }
  char rel[64], path[4200];
  snprintf(rel, sizeof rel, "deferred/%lld.json", (long long)it);
  snprintf(path, sizeof path, "%s/deferred", k->o->out);
  af_err err;
  if (findings_mkdirs(path, &err)) {
    write_failed(k, "a deferred program", &err);
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
    write_failed(k, "a deferred program", &err);
    return NULL;
  }
  e = cJSON_AddObjectToObject(d, qk);
  cJSON_AddNumberToObject(e, "count", 1);
  cJSON_AddStringToObject(e, "file", rel);
  return e;
}

static void handle_finding_line(camp *k, int j, const char *json) {
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
    uint64_t h = hash_str(quick);
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
  char rerun[512];
  snprintf(rerun, sizeof rerun, "aliasfuzz fuzz --converter %s --seed %llu --jobs %d --out %s   # the campaign", k->c->name,
           (unsigned long long)k->o->seed, k->o->jobs, k->o->out);
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
  };
  if (f.reruns < 0) f.reruns = 0; /* NaN: absent */
  if (f.verdict >= V_COUNT) f.verdict = V_ERROR;
  record(k, &f, cJSON_GetStringValue(cJSON_GetObjectItem(o, "quick")));
out:
  ir_program_free(orig);
  ir_program_free(min);
  cJSON_Delete(o);
}

/* A job died or hung while running iteration it: record converter-crash / -timeout. */
/* Whether judging q and then p in one fresh process kills it (a child; deadline_s each). */
static int crashes_after(camp *k, const ir_program *q, const ir_program *p) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    oracle_opts oo = {k->o->fail_on_residual};
    judgement j = {0};
    af_err err;
    if (judge_inprocess(k->c, q, &oo, &j, &err) == 0) judgement_clear(&j);
    if (judge_inprocess(k->c, p, &oo, &j, &err) == 0) judgement_clear(&j);
    _exit(0);
  }
  double until = now_s() + 3 * k->o->deadline_s;
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return 0;
    if (now_s() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return 0;
    }
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return WIFSIGNALED(status);
}

/* A job died on iteration it, but its program does not crash a fresh process: one of the job's
 * programs before it left the process broken (a heap the converter corrupted). Of the job's last
 * few programs (iterations it - jobs, it - 2 jobs, ...), the nearest one that, judged first in a
 * fresh process, makes iteration it's program crash; NULL when none does. *culprit_it: its
 * iteration. new. */
#define CULPRIT_LOOKBACK 4
static ir_program *find_culprit(camp *k, int j, int64_t it, const ir_program *p, int64_t *culprit_it) {
  for (int back = 1; back <= CULPRIT_LOOKBACK; back++) {
    int64_t q_it = it - (int64_t)back * k->o->jobs;
    if (q_it < j) break;
    uint64_t seed = campaign_program_seed(k->o->seed, q_it);
    ir_program *q = NULL;
    af_err err;
    if (judge_gen_program(&k->o->policy, seed, &q, &seed, NULL, &err)) continue;
    stamp_meta(q, k->o, q_it, seed);
    if (crashes_after(k, q, p)) {
      *culprit_it = q_it;
      return q;
    }
    ir_program_free(q);
  }
  return NULL;
}

static void job_lost(camp *k, int j, int64_t it, oracle_verdict v, const char *why) {
  uint64_t seed = campaign_program_seed(k->o->seed, it);
  ir_program *p = NULL, *min = NULL;
  af_err err;
  if (judge_gen_program(&k->o->policy, seed, &p, &seed, NULL, &err)) {
    fprintf(stderr, "\naliasfuzz: job %d %s at iteration %lld and its program cannot be regenerated: %s\n", j, why,
            (long long)it, err.msg);
    return;
  }
  stamp_meta(p, k->o, it, seed);
  /* a crash or timeout whose quick key a class has already is counted there, not minimized
   * again: the isolated minimization below forks a child per test (a 2.13 functionalize campaign
   * spent 13 s of every 20 on re-minimizing one segfault) */
  char *qk = classes_quick_key(p, v, why);
  k->idx_dirty = 1;
  if (classes_index_count_quick(k->idx, qk, j, it)) {
    free(qk);
    ir_program_free(p);
    return;
  }
  reduce_stats rs = {0};
  oracle_opts oo = {k->o->fail_on_residual};
  judgement conf = {0};
  int have_rs = 0;
  /* within the budget of the job it killed (its minimizing, counted as such); over it, the crash
   * is recorded as found: its class keys on its error key either way */
  double limit = reduce_allowance(k->o, now_s() - k->search_t0, k->jobs[j].reduce_s);
  if (v == V_CRASH && !k->o->no_reduce && limit >= min_start(k->o)) {
    /* confirm in isolation, then minimize with an isolated predicate (each test in a child) */
    double r0 = now_s();
    int isolated = judge_isolated(k->c, p, &oo, k->o->deadline_s, &conf, &err) == 0;
    if (isolated && conf.verdict != V_CRASH) {
      /* not this program's crash: charged to the program that broke the process, if one did */
      int64_t q_it = -1;
      ir_program *q = find_culprit(k, j, it, p, &q_it);
      char detail[900];
      if (q)
        snprintf(detail, sizeof detail, "%s while judging the program after this one (iteration %lld), which passes on its own: "
                 "this program leaves the converter's process broken", why, (long long)it);
      else
        snprintf(detail, sizeof detail, "%s, but the program passes on its own (%s) and none of the %d programs before it in the job "
                 "makes it crash: not reproduced", why, oracle_verdict_name(conf.verdict), CULPRIT_LOOKBACK);
      fprintf(stderr, "\naliasfuzz: job %d crashed at iteration %lld, whose program passes alone: %s\n", j, (long long)it,
              q ? "charged to the program before it that left the process broken" : "no earlier program of the job explains it (flaky)");
      finding f = {.converter = k->c->name, .converter_version = k->c->version(k->c), .convert_py = k->c->repro_py,
                   .verdict = V_CRASH, .detail = detail, .original = q ? q : p, .minimized = q ? q : p, .seed = seed,
                   .iteration = q ? q_it : it, .job = j, .options_json = k->options_json,
                   .reruns = 1, .reproduced = q ? 1 : 0}; /* no culprit: flaky, in no class */
      char *cqk = q ? classes_quick_key(q, V_CRASH, detail) : af_xstrdup(qk);
      record(k, &f, cqk);
      free(cqk);
      ir_program_free(q);
      double spent = now_s() - r0;
      k->reduce_seconds += spent;
      k->jobs[j].reduce_s += spent;
      free(qk);
      judgement_clear(&conf);
      ir_program_free(p);
      return;
    }
    if (isolated && conf.verdict == V_CRASH) {
      pred_ctx x = {k->c, &oo, V_CRASH, conf.detail, 0};
      double left = limit - (now_s() - r0);
      reduce_program_within(p, isolated_pred, &x, k->o->max_reduce_tests < 150 ? k->o->max_reduce_tests : 150, left > 0.01 ? left : 0.01,
                            &min, &rs);
      have_rs = 1;
    }
    double spent = now_s() - r0;
    k->reduce_seconds += spent;
    k->jobs[j].reduce_s += spent;
  }
  if (!min) min = ir_program_clone(p);
  finding f = {
      .converter = k->c->name,
      .converter_version = k->c->version(k->c),
      .convert_py = k->c->repro_py,
      .verdict = v,
      .detail = conf.detail ? conf.detail : why,
      .original = p,
      .minimized = min,
      .reduction = have_rs ? &rs : NULL,
      .seed = seed,
      .iteration = it,
      .job = j,
      .options_json = k->options_json,
  };
  record(k, &f, qk);
  free(qk);
  judgement_clear(&conf);
  ir_program_free(p);
  ir_program_free(min);
}

/* A failing program is written down under DIR/pending/<job>-<iteration>.json before anything else
 * is written for it (rec: {"line": its F line} or {"lost": {verdict, why}}; taken), and the file
 * removed once it is recorded (pending_done): a write error or a kill in between leaves it for the
 * next run (pending_replay). path receives the file. 0 on success; else write_failed. */
static int pending_put(camp *k, int j, int64_t it, cJSON *rec, char path[4096]) {
  af_err e;
  snprintf(path, 4096, "%s/pending", k->o->out);
  int rc = k->write_error ? -1 : findings_mkdirs(path, &e);
  cJSON_AddNumberToObject(rec, "job", j);
  cJSON_AddNumberToObject(rec, "iteration", (double)it);
  char *text = cJSON_Print(rec);
  cJSON_Delete(rec);
  snprintf(path, 4096, "%s/pending/%d-%lld.json", k->o->out, j, (long long)it);
  if (!rc && (rc = codec_write_atomic(path, text, strlen(text), &e))) write_failed(k, "a failing program's pending record", &e);
  cJSON_free(text);
  return rc;
}

/* The pending record at path is recorded: removed, unless a write failed meanwhile. */
static void pending_done(camp *k, const char *path) {
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
static void pending_replay(camp *k) {
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
      pending_done(k, path); /* the search runs it again */
      again++;
    } else if (!k->write_error) {
      if (cJSON_IsString(line)) handle_finding_line(k, j, line->valuestring);
      else job_lost(k, j, it, (oracle_verdict)v, why);
      pending_done(k, path);
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

static void process_lines(camp *k, int j) {
  job *jb = &k->jobs[j];
  char *start = jb->in.s;
  char *nl;
  while (start && (nl = strchr(start, '\n'))) {
    *nl = 0;
    if (start[0] == 'B') {
      jb->inflight = strtoll(start + 2, NULL, 10);
      jb->since = now_s();
    } else if (start[0] == 'D') {
      char *end;
      int64_t it = strtoll(start + 2, &end, 10);
      int v = (int)strtol(end, NULL, 10);
      jb->watermark = it;
      jb->inflight = -1;
      jb->reducing = 0;
      jb->programs++;
      if (v >= 0 && v < V_COUNT) jb->verdicts[v]++;
    } else if (start[0] == 'R') { /* minimizing: the minimization deadline applies from now */
      jb->reducing = 1;
      jb->since = now_s();
      free(jb->pending);
      jb->pending = af_xstrdup(start + 2);
    } else if (start[0] == 'F') {
      cJSON *rec = cJSON_CreateObject(), *it = cJSON_Parse(start + 2);
      cJSON_AddStringToObject(rec, "line", start + 2);
      char pend[4096];
      if (pending_put(k, j, (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(it, "iteration")), rec, pend) == 0) {
        handle_finding_line(k, j, start + 2);
        pending_done(k, pend);
      }
      cJSON_Delete(it);
      jb->reducing = 0;
      jb->since = now_s(); /* the per-program deadline again, from the end of the minimization: the
                              D line of the iteration comes after, and until it arrives the time
                              spent minimizing must not count as the program's */
      free(jb->pending);
      jb->pending = NULL;
    } else if (start[0] == 'Q' || start[0] == 'P') {
      cJSON *o = cJSON_Parse(start + 2);
      if (o) (void)defer(k, j, start + 2, o);
      cJSON_Delete(o);
    } else if (start[0] == 'E') {
      jb->finished = 1;
    } else if (start[0] == 'S' || start[0] == 'U') { /* a worker's crash being traced: its own deadline */
      jb->tracing = start[0] == 'S';
      jb->since = now_s();
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

/* Job j died or was stopped while minimizing the finding of its in-flight iteration: the
 * program as found (pending, the R line's JSON) is deferred, its iteration counted as done, and the
 * time the minimization took counted as minimizing (jb->since is when it began). crashed: the job
 * died (a candidate crashed the converter or corrupted its heap): the deferred program is marked
 * to be minimized in isolation. */
static void keep_pending(camp *k, int j, const char *pending, int crashed) {
  job *jb = &k->jobs[j];
  double spent = now_s() - jb->since;
  k->reduce_seconds += spent;
  jb->reduce_s += spent;
  cJSON *o = cJSON_Parse(pending);
  int v = o ? (int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "verdict")) : V_ERROR;
  cJSON *e = o ? defer(k, j, pending, o) : NULL;
  if (e && crashed && !cJSON_GetObjectItem(e, "isolate")) cJSON_AddTrueToObject(e, "isolate");
  cJSON_Delete(o);
  jb->watermark = jb->inflight;
  jb->programs++;
  if (v >= 0 && v < V_COUNT) jb->verdicts[v]++;
  jb->inflight = -1;
}

static void reap(camp *k, int j, int killed_for_timeout) {
  job *jb = &k->jobs[j];
  int status = 0;
  if (jb->pid > 0)
    while (waitpid(jb->pid, &status, 0) < 0 && errno == EINTR) {
    }
  if (jb->fd >= 0) {
    /* what the job sent before it died (its crash frames) */
    char chunk[4096];
    ssize_t got;
    fcntl(jb->fd, F_SETFL, fcntl(jb->fd, F_GETFL) | O_NONBLOCK); /* a worker it started may hold the pipe */
    while ((got = read(jb->fd, chunk, sizeof chunk - 1)) > 0) {
      chunk[got] = 0;
      af_buf_puts(&jb->in, chunk);
    }
    process_lines(k, j);
    close(jb->fd);
  }
  jb->fd = -1;
  jb->pid = -1;
  af_buf_free(&jb->in);
  int reducing = jb->reducing;
  char *pending = jb->pending;
  jb->reducing = 0;
  jb->pending = NULL;
  if (jb->finished || stop_requested) {
    free(pending);
    return;
  }
  if (jb->inflight >= 0 && reducing && pending) {
    /* the program itself was judged; its minimization ran out of time or a candidate crashed the
     * converter: the program is kept as found, deferred, and its verdict counted */
    int64_t it = jb->inflight;
    keep_pending(k, j, pending, !killed_for_timeout);
    fprintf(stderr, "\naliasfuzz: job %d: minimizing the finding of iteration %lld %s; the program is kept under %s/deferred/\n", j,
            (long long)it, killed_for_timeout ? "ran past its deadline" : "crashed the job", k->o->out);
  } else if (jb->inflight >= 0) {
    char why[600];
    oracle_verdict v = killed_for_timeout ? V_TIMEOUT : V_CRASH;
    if (killed_for_timeout) snprintf(why, sizeof why, "no answer within %.1f s (job killed)", k->o->deadline_s);
    else if (WIFSIGNALED(status)) {
      char *site = crashsite_describe(WTERMSIG(status), jb->crash.s);
      snprintf(why, sizeof why, "%s", site);
      free(site);
    } else snprintf(why, sizeof why, "converter process exited with status %d", WEXITSTATUS(status));
    int64_t it = jb->inflight;
    cJSON *rec = cJSON_CreateObject(), *lost = cJSON_AddObjectToObject(rec, "lost");
    cJSON_AddNumberToObject(lost, "verdict", v);
    cJSON_AddStringToObject(lost, "why", why);
    char pend[4096];
    if (pending_put(k, j, it, rec, pend) == 0) {
      job_lost(k, j, it, v, why);
      pending_done(k, pend);
    }
    jb->watermark = it;
    jb->programs++;
    jb->verdicts[v]++;
    jb->inflight = -1;
  }
  free(pending);
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
  /* with a baseline, the programs the baseline does not fail first: they are what a pre-merge
   * gate is for, and the floor may not reach them all */
  for (int pass = 0; pass < 2; pass++)
    for (cJSON *e = d->child; e; e = e->next) {
      if (pass == 0 && classes_quick_in_baseline(e->string) == 1) continue;
      if (!cJSON_GetObjectItemCaseSensitive(tried, e->string) && (k->retry_failed || !cJSON_GetObjectItem(e, "failed"))) return e;
    }
  return NULL;
}

/* The end of a campaign (and `aliasfuzz reduce --deferred`): each deferred program whose quick key
 * no class has yet is minimized (in a child, within the minimization limit), then its deferred
 * entry joins the class. The minimization budget holds for the whole campaign: with search_job_s
 * job-seconds of search, minimizing during the search and after it together stay within
 * --reduce-share of the search's job-seconds plus the time after it, each program getting what is
 * left of that (at most the full limit); what the budget does not cover stays deferred, for
 * `aliasfuzz reduce --deferred`. A program whose minimization dies or sends nothing stays
 * deferred, marked "failed" (tried again only by `reduce --deferred`). */
static void finish_deferred(camp *k, double search_job_s) {
  oracle_opts oo = {k->o->fail_on_residual};
  int done = 0;
  double t0 = now_s(), f0 = k->finish_seconds, share = k->o->reduce_share;
  double search_reduce = k->reduce_seconds - k->finish_reduce_seconds;
  /* after the search: f seconds in all with search_reduce + f <= share * (search_job_s + f) */
  int capped = share < 1;
  double budget = capped ? (share * search_job_s - search_reduce) / (1 - share) : 0; /* may be < 0: spent */
  double floor_s = k->o->time_s > 0 ? 0.5 * k->o->time_s : 300;
  cJSON *tried = cJSON_CreateObject();
  k->finishing = 1;
  for (;;) {
    cJSON *e = next_deferred(k, tried);
    if (!e || stop_requested || k->write_error) break;
    double limit = full_limit(k->o);
    if (capped && budget - (f0 + now_s() - t0) < limit) limit = budget - (f0 + now_s() - t0);
    /* the floor under the share: a quick key that no class holds may be a bug of its own, and a
     * report that leaves it out looks cleaner than the converter is; its first program is
     * minimized even with the share spent, within the floor's own time (half of --time, or
     * 300 s without one) */
    if (limit < min_start(k->o) && !k->o->no_finish) {
      double floor_left = floor_s - (now_s() - t0);
      limit = full_limit(k->o) < floor_left ? full_limit(k->o) : floor_left;
    }
    if (limit < min_start(k->o)) {
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
    int fd[2] = {-1, -1};
    if (!orig || !seed_s || codec_read_string(orig, path, &p, &err)) {
      why = "its file is missing or malformed";
      goto next;
    }
    if (pipe(fd) != 0) goto next;
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
      minimize_and_send(k->o, k->c, &oo, it, strtoull(seed_s, NULL, 10), p, &j, qk, fd[1], limit, isolate);
      _exit(0);
    }
    close(fd[1]);
    af_buf in = {0};
    /* the child stops itself at the limit; one judgement may run past it (isolated: up to the
     * per-program deadline) */
    double until = now_s() + limit + (isolate ? 2 : 1) * k->o->deadline_s + 2;
    while (pid > 0) {
      struct pollfd pf = {fd[0], POLLIN, 0};
      double left = until - now_s();
      if (left <= 0 || stop_requested) {
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
        handle_finding_line(k, from_job, line + 2);
        classes_index_absorb(k->idx, qk, n - (classes_index_total(k->idx) - before));
        done++;
        got_f = 1;
      }
      line = nl + 1;
    }
    af_buf_free(&in);
  next:
    if (!got_f && !stop_requested) { /* kept, marked */
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
    fprintf(stderr, "aliasfuzz: minimized %d deferred program(s) in %.1f s\n", done, now_s() - t0);
  k->finish_seconds += now_s() - t0;
  k->finished += done;
  k->finishing = 0;
}

static void progress(camp *k, double elapsed, int final) {
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

/* The writes that end a campaign (and `aliasfuzz reduce --deferred`), in this order: classes.json,
 * state.json, report.json and report.md, report.html; the first that fails stops them (write_failed).
 * sum->write_error: "" when all were written, else the write that failed (the first of the run) and
 * the artifacts not written after it. */
static void end_writes(camp *k, double elapsed, const report_campaign_figures *fig, campaign_summary *sum) {
  static const char *const name[] = {"classes.json", "state.json", "report.json and report.md", "report.html"};
  af_buf skipped = {0};
  for (int step = 0; step < 4; step++) {
    af_err e;
    if (k->write_error) {
      af_buf_printf(&skipped, "%s%s", skipped.len ? ", " : "", name[step]);
      continue;
    }
    int bad = step == 0   ? classes_index_save(k->o->out, k->idx, &e)
              : step == 1 ? write_state(k, elapsed, &e)
              : step == 2 ? report_write_campaign(k->o->out, fig, &e)
                          : report_campaign_html(k->o->out, &e);
    if (bad) write_failed(k, NULL, &e);
  }
  sum->write_error[0] = 0;
  if (k->write_error)
    snprintf(sum->write_error, sizeof sum->write_error, "%s%s%s", k->write_error, skipped.len ? "; not written after it: " : "",
             skipped.len ? skipped.s : "");
  af_buf_free(&skipped);
}

static void on_sigint(int sig) {
  (void)sig;
  stop_requested = 1;
}

int campaign_run(campaign_opts *o, campaign_summary *sum, af_err *err) {
  memset(sum, 0, sizeof *sum);
  stop_requested = 0;
  double t0 = now_s();
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
  k.options_json = options_json(o, k.c);
  k.jobs = af_xcalloc((size_t)o->jobs, sizeof(job));
  for (int j = 0; j < o->jobs; j++) {
    k.jobs[j].watermark = -1;
    k.jobs[j].fd = -1;
    k.jobs[j].pid = -1;
  }
  char what[600];
  snprintf(what, sizeof what, "fuzz --converter %s --out %s", k.c->name, o->out);
  int rc = lock_folder(&k, what, err);
  if (!rc) rc = load_state(&k, err);
  if (rc) goto out;
  if (!(k.idx = classes_index_load(o->out, err))) {
    rc = -1;
    goto out;
  }
  count_existing_findings(&k);
  sum->resumed = k.resumed;
  if (k.resumed) fprintf(stderr, "aliasfuzz: resuming the campaign in %s\n", o->out);
  struct sigaction sa = {0}, old_int, old_pipe;
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  (void)old_pipe;
  t0 = k.search_t0 = now_s();
  pending_replay(&k);
  for (int j = 0; j < o->jobs && !k.write_error; j++)
    if ((rc = spawn(&k, j, err))) goto out_stop;
  double last_state = t0, last_progress = 0;
  for (;;) {
    double t = now_s();
    int alive = 0;
    struct pollfd pf[256];
    int map[256], n = 0;
    for (int j = 0; j < o->jobs && n < 256; j++)
      if (k.jobs[j].pid > 0) {
        pf[n] = (struct pollfd){k.jobs[j].fd, POLLIN, 0};
        map[n++] = j;
        alive++;
      }
    if (!alive || stop_requested || k.write_error || (o->time_s > 0 && t - t0 >= o->time_s)) break;
    int r = poll(pf, (nfds_t)n, 200);
    if (r < 0 && errno != EINTR) {
      rc = af_fail(err, "poll: %s", strerror(errno));
      break;
    }
    for (int q = 0; q < n && r > 0; q++) {
      int j = map[q];
      if (!(pf[q].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char chunk[65536];
      ssize_t got = read(k.jobs[j].fd, chunk, sizeof chunk - 1);
      if (got > 0) {
        chunk[got] = 0;
        af_buf_puts(&k.jobs[j].in, chunk);
        process_lines(&k, j);
      } else if (got == 0 || (got < 0 && errno != EINTR)) {
        reap(&k, j, 0);
        if (!k.jobs[j].finished && !stop_requested && (rc = spawn(&k, j, err))) goto out_stop;
      }
    }
    t = now_s();
    for (int j = 0; j < o->jobs; j++) {
      job *jb = &k.jobs[j];
      /* the per-program deadline covers the converter's own work; minimizing has its own */
      double limit = jb->reducing || jb->tracing ? 1.5 * o->reduce_time_s + 2 * o->deadline_s + 5 : o->deadline_s;
      if (jb->pid > 0 && jb->inflight >= 0 && t - jb->since > limit) {
        kill(jb->pid, SIGKILL);
        reap(&k, j, 1);
        if ((rc = spawn(&k, j, err))) goto out_stop;
      }
    }
    if (t - last_state >= 1.0 && !k.write_error) {
      af_err e2;
      if (k.idx_dirty && classes_index_save(o->out, k.idx, &e2)) write_failed(&k, NULL, &e2);
      else k.idx_dirty = 0;
      if (!k.write_error && write_state(&k, t - t0, &e2)) write_failed(&k, NULL, &e2);
      last_state = t;
    }
    if (o->progress && t - last_progress >= 0.5) {
      progress(&k, t - t0, 0);
      last_progress = t;
    }
  }
out_stop:
  for (int j = 0; j < o->jobs; j++)
    if (k.jobs[j].pid > 0) {
      job *jb = &k.jobs[j];
      kill(jb->pid, SIGKILL);
      /* a minimization the end of the search cuts: its program is deferred, not lost */
      if (!stop_requested && jb->reducing && jb->pending && jb->inflight >= 0) keep_pending(&k, j, jb->pending, 0);
      jb->finished = 1; /* other in-flight iterations are not counted: a resumed run redoes them */
      reap(&k, j, 0);
    }
  {
    /* Ctrl-C still stops cleanly while deferred programs are minimized and classes annotated
     * (the default action killed the campaign there, with no report) */
    double elapsed = now_s() - t0;
    af_err e2;
    if (!stop_requested && !k.write_error && !o->no_reduce && !o->no_finish) {
      finish_deferred(&k, (k.prior_seconds + elapsed - k.finish_seconds - k.annotate_seconds) * o->jobs);
      elapsed = now_s() - t0;
    }
    if (!stop_requested && !k.write_error) {
      /* the baseline, the converter's switches and the other stack, on each class's program */
      double a0 = now_s();
      if (annotate_classes(k.idx, &ao, &e2)) fprintf(stderr, "aliasfuzz: %s\n", e2.msg);
      k.annotate_seconds += now_s() - a0;
      elapsed = now_s() - t0;
    }
    if (o->progress) progress(&k, elapsed, 1);
    for (int j = 0; j < o->jobs; j++) {
      sum->programs += k.jobs[j].programs;
      for (int v = 0; v < V_COUNT; v++) sum->verdicts[v] += k.jobs[j].verdicts[v];
    }
    sum->findings = k.distinct_total;
    sum->classes = classes_index_count(k.idx);
    sum->deferred = classes_index_unclassified(k.idx);
  sum->unclassified_programs = classes_index_unclassified_programs(k.idx);
  sum->deferred_new = classes_index_unclassified_new(k.idx);
  sum->artifact_classes = confirm_count(k.idx, "artifact");
  sum->flaky = classes_index_flaky_count(k.idx);
  sum->harness = classes_index_harness_count(k.idx);
    sum->reduce_seconds = k.reduce_seconds;
    sum->search_reduce_seconds = k.reduce_seconds - k.finish_reduce_seconds;
    sum->finish_seconds = k.finish_seconds;
    sum->annotate_seconds = k.annotate_seconds;
    {
      cJSON *c;
      /* a harness artifact (not seen from the converter's public API, confirm.h) is no bug: not new either */
      cJSON_ArrayForEach(c, cJSON_GetObjectItem(k.idx, "classes")) sum->new_classes += !annotate_in_baseline(c) && !confirm_is_artifact(c);
    }
    sum->seconds = k.prior_seconds + elapsed;
    sum->search_job_seconds = (sum->seconds - k.finish_seconds - k.annotate_seconds) * o->jobs;
    report_campaign_figures fig = {sum->programs, sum->seconds, sum->verdicts, k.options_json, k.reduce_seconds};
    fig.finish_reduce_seconds = k.finish_reduce_seconds;
    fig.finish_seconds = k.finish_seconds;
    fig.finished = k.finished;
    fig.annotate_seconds = k.annotate_seconds;
    end_writes(&k, elapsed, &fig, sum);
  }
  sigaction(SIGINT, &old_int, NULL);
out:
  camp_free(&k);
  return rc;
}

/* ------------------------------------------------------------------ aliasfuzz reduce --deferred */

int campaign_reduce_deferred(const campaign_deferred_opts *d, campaign_summary *sum, af_err *err) {
  memset(sum, 0, sizeof *sum);
  stop_requested = 0;
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
  o.fail_on_residual = cJSON_IsTrue(cJSON_GetObjectItem(opts, "fail_on_residual"));
  cJSON *x = cJSON_GetObjectItem(opts, "deadline");
  o.deadline_s = cJSON_IsNumber(x) && x->valuedouble > 0 ? x->valuedouble : 10;
  x = cJSON_GetObjectItem(opts, "max_reduce_tests");
  o.max_reduce_tests = d->max_tests > 0 ? d->max_tests : cJSON_IsNumber(x) && x->valueint > 0 ? x->valueint : 2000;
  x = cJSON_GetObjectItem(opts, "reduce_time");
  o.reduce_time_s = d->reduce_time_s > 0 ? d->reduce_time_s : cJSON_IsNumber(x) && x->valuedouble > 0 ? x->valuedouble : 30;
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
  if ((rc = lock_folder(&k, what, err)) || (rc = load_state(&k, err))) goto out;
  if (!(k.idx = classes_index_load(d->dir, err))) {
    rc = -1;
    goto out;
  }
  count_existing_findings(&k);
  int classes_before = classes_index_count(k.idx);
  struct sigaction sa = {0}, old_int;
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &old_int);
  signal(SIGPIPE, SIG_IGN);
  /* the campaign's own figures stay its own: what this run does is counted apart */
  double keep_reduce = k.reduce_seconds, keep_fr = k.finish_reduce_seconds, keep_fs = k.finish_seconds;
  int keep_finished = k.finished;
  k.retry_failed = 1;
  k.search_t0 = now_s();
  pending_replay(&k);
  finish_deferred(&k, 0);
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
  if (!stop_requested && !k.write_error && annotate_classes(k.idx, &ao, &e2)) fprintf(stderr, "aliasfuzz: %s\n", e2.msg);
  for (int j = 0; j < o.jobs; j++) {
    sum->programs += k.jobs[j].programs;
    for (int v = 0; v < V_COUNT; v++) sum->verdicts[v] += k.jobs[j].verdicts[v];
  }
  sum->findings = k.distinct_total;
  sum->classes = classes_index_count(k.idx);
  sum->new_classes = sum->classes - classes_before;
  sum->deferred = classes_index_unclassified(k.idx);
  sum->unclassified_programs = classes_index_unclassified_programs(k.idx);
  sum->deferred_new = classes_index_unclassified_new(k.idx);
  sum->artifact_classes = confirm_count(k.idx, "artifact");
  sum->flaky = classes_index_flaky_count(k.idx);
  sum->harness = classes_index_harness_count(k.idx);
  sum->finished = done;
  sum->finish_seconds = spent;
  sum->seconds = k.prior_seconds;
  report_campaign_figures fig = {sum->programs, k.prior_seconds, sum->verdicts, k.options_json, k.reduce_seconds};
  fig.finish_reduce_seconds = k.finish_reduce_seconds;
  fig.finish_seconds = k.finish_seconds;
  fig.finished = k.finished;
  fig.annotate_seconds = k.annotate_seconds;
  end_writes(&k, 0, &fig, sum);
  if (sum->write_error[0]) rc = af_fail(err, "write error: %s; run the same command again once the disk has room", sum->write_error);
  sigaction(SIGINT, &old_int, NULL);
out:
  camp_free(&k);
  cJSON_Delete(st);
  cJSON_free(policy_text);
  return rc;
}
