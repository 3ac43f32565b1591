/* campaign_int.h - what the campaign's files share; internal to them (campaign.h is the face).
 *
 * A campaign (campaign.h) is split by concern:
 *   campaign.c           the driver: campaign_run and campaign_reduce_deferred, the progress line
 *   campaign_job.c       the job: one program through generate, eager, convert and judge in a forked
 *                        child, and a failing one counted, deferred or minimized and generalized
 *   campaign_wire.c      the line protocol between a job and the parent: each side's half
 *   campaign_pool.c      the process pool: job processes started, watched, reaped, restarted; the
 *                        finding of a job that died or hung
 *   campaign_state.c     what the parent keeps in DIR: the lock, state.json, the findings store and
 *                        class index writes, DIR/pending/, the final writes
 *   campaign_deferred.c  the deferred queue: programs over the budget under DIR/deferred/, and their
 *                        minimization after the search
 *
 * The wire: each line is a letter, a space and its data. From a job: "B it" (iteration it begins),
 * "D it verdict" (done), "R {json}" (minimizing the failing program it carries: the minimization
 * deadline applies), "F {json}" (a finding), "Q {json}" (a failing program counted under a quick key
 * the job minimized already), "P {json}" (deferred: over the budget), "S"/"U" (a worker's crash is
 * being traced to an earlier program / no longer), "K ..." (a native frame of the crash that kills
 * the job, crashsite.h), "G {json}" (the job's policy down-weights a refused construct from an
 * iteration on: campaign_policy.c), "E" (the job's iterations are done). */
#ifndef CAMPAIGN_INT_H
#define CAMPAIGN_INT_H

#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "../harness/converters/conv.h"
#include "../oracle/signature.h"
#include "../reports/report.h"
#include "campaign.h"
#include "classes.h"
#include "findings.h"
#include "judge.h"
#include "reduce.h"

/* Set by campaign_request_stop and SIGINT/SIGTERM: the campaign stops at the next chance. */
extern volatile sig_atomic_t campaign_stop_requested;

/* Monotonic seconds. */
static inline double campaign_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A quick key's hash (what a job slot remembers of the keys it minimized). */
static inline uint64_t campaign_key_hash(const char *t) { return sig_fnv1a(t, strlen(t), 0); }

/* Quick keys a job slot remembers. */
#define JOB_SEEN_MAX 2048

/* A job slot of the parent: its process, what it sent, its figures. */
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
  uint64_t seen[JOB_SEEN_MAX]; /* quick keys (hashes) of the slot's F lines: campaign_job_main's seen0 */
  int nseen;
  af_buf crash;   /* the K lines of a job that is dying (crashsite.h) */
  int tracing;    /* its worker traces a crash to an earlier program: the minimization deadline applies */
  int batch;      /* > 0 while the job judges a batch (--batch, campaign_batch.c): the wire's "N n" line
                     (n programs combined, 1: one of them alone) makes the deadline n per-program
                     deadlines; "N 0", B and D lines end it */
  int64_t batch_last;   /* the last iteration of that batch (the "N n LAST" line) */
  int64_t alone_before; /* a job killed or crashed inside a batch: its next process judges every
                           program before this iteration (that batch's last + 1) alone, so that
                           the per-program path charges the kill or crash to the program that
                           makes it (campaign_batch_alone_before); 0: none */
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
  /* programs done over time, for the report's charts: (seconds, programs, verdict counts) */
  double *hist_t;
  int64_t *hist_n;
  int64_t (*hist_v)[V_COUNT];
  int nhist;
  cJSON *idx;         /* the class index (classes.h) */
  int idx_dirty;
  double reduce_seconds; /* spent minimizing (all jobs, this run and the runs it resumes) */
  double finish_reduce_seconds; /* of which after the search (campaign_deferred_finish) */
  double finish_seconds; /* wall time after the search (campaign_deferred_finish) */
  int finished;          /* deferred programs campaign_deferred_finish minimized */
  int finishing;         /* 1 while campaign_deferred_finish runs */
  double annotate_seconds; /* wall time of annotate_classes */
  double generalize_seconds, baseline_seconds; /* of the search's job time (D lines): generalizing
                                                  findings, judging failing programs on --baseline */
  double search_t0;        /* monotonic start of this run's search */
  double deferred_seconds; /* `aliasfuzz reduce --deferred` runs on this folder: wall seconds */
  int deferred_done;       /* and the deferred programs they minimized */
  int retry_failed;        /* campaign_deferred_finish: also the deferred programs marked "failed" */
  af_dir_lock lock;        /* the folder's lock, held from the start to the end (campaign_state_lock) */
  char *write_error;       /* the first write that failed (new), NULL while none did: from then on
                              nothing is written (campaign_state_write_failed) */
} camp;

/* campaign.c: the progress line on stderr (final: ends it with a newline). */
void campaign_progress(camp *k, double elapsed, int final);

/* campaign_job.c: the job (child side) and the minimization budget. */
void campaign_job_main(const campaign_opts *o, const conv_converter *c, int slot, int64_t start, int fd, double t0, double reduce_s,
                       const uint64_t *seen0, int nseen0);
double campaign_job_minimize(const campaign_opts *o, const conv_converter *c, const oracle_opts *oo, int64_t it, uint64_t seed,
                             const ir_program *p, judgement *j, const char *qk, int fd, double limit_s, int isolate);
/* Minimizes p, which crashes the converter with detail, each candidate judged in a child (10 s):
 * *min new (may stay NULL), *rs filled. */
void campaign_job_minimize_crash(const conv_converter *c, const oracle_opts *oo, const ir_program *p, const char *detail, int max_tests,
                                 double limit_s, ir_program **min, reduce_stats *rs);
void campaign_job_stamp_meta(ir_program *p, const campaign_opts *o, int64_t it, uint64_t seed);
double campaign_job_full_limit(const campaign_opts *o);
double campaign_job_min_start(const campaign_opts *o);
double campaign_job_allowance(const campaign_opts *o, double t, double reduce_s);

/* campaign_batch.c: --batch. The batch size the campaign runs with (1: off; in-process converters
 * always 1). campaign_batch_judge: judge_inprocess of iteration it's program p (step: the job's
 * step between iterations; tag: its worker tag), from a batch of this job's next programs when p
 * may be combined (campaign_batch.c). */
int campaign_batch_size(const campaign_opts *o, const conv_converter *c);
/* In a job process, before campaign_job_main: its programs of iterations before it are judged
 * alone (job.alone_before; 0: none). */
void campaign_batch_alone_before(int64_t it);
int campaign_batch_judge(const campaign_opts *o, const conv_converter *c, const oracle_opts *oo, int64_t it, int64_t step,
                         const char *tag, const ir_program *p, int fd, judgement *j, af_err *err);

/* campaign_wire.c: the job's half (send, finding lines) and the parent's (read, findings). */
void campaign_wire_send(int fd, const char *s, size_t n);
char *campaign_wire_finding_line(char kind, int64_t it, uint64_t seed, const judgement *j, const ir_program *orig, const ir_program *min,
                                 const reduce_stats *rs, const char *quick, const classes_gen *g, const char *base_graph);
void campaign_wire_read(camp *k, int j);
void campaign_wire_finding(camp *k, int j, const char *json);

/* campaign_pool.c: the job processes. */
int campaign_pool_spawn(camp *k, int j, af_err *err);
void campaign_pool_reap(camp *k, int j, int killed_for_timeout);
void campaign_pool_lost(camp *k, int j, int64_t it, oracle_verdict v, const char *why);
/* The search: starts the jobs and watches them until they are done, the time is up, a stop is
 * requested or a write failed. 0, or -1 with err (poll, pipe or fork failed). */
int campaign_pool_run(camp *k, double t0, af_err *err);
/* Kills the jobs still running at the end of the search and reaps them. */
void campaign_pool_stop(camp *k);

/* campaign_state.c: what the parent writes into the campaign folder. */
void campaign_state_write_failed(camp *k, const char *what, const af_err *e);
int campaign_state_lock(camp *k, const char *what, af_err *err);
char *campaign_state_options_json(const campaign_opts *o, const conv_converter *c);
int campaign_state_write(camp *k, double elapsed, af_err *err);
int campaign_state_load(camp *k, af_err *err);
void campaign_state_count_findings(camp *k);
/* The graph change (classes.h) of the program of a job's finding line (its "verdict", "graph"
 * and "base_graph": the baseline's graph when it gets the program right), or NULL. new. */
char *campaign_graph_change(const cJSON *line);
void campaign_state_record(camp *k, finding *f, const char *quick);
int campaign_state_pending_put(camp *k, int j, int64_t it, cJSON *rec, char path[4096]);
void campaign_state_pending_done(camp *k, const char *path);
void campaign_state_pending_replay(camp *k);
void campaign_state_end_writes(camp *k, double elapsed, const report_campaign_figures *fig, campaign_summary *sum);

/* campaign_deferred.c: the deferred queue. */
cJSON *campaign_deferred_add(camp *k, int j, const char *json, cJSON *o);
void campaign_deferred_keep(camp *k, int j, const char *pending, int crashed);
void campaign_deferred_finish(camp *k, double search_job_s);

/* campaign_policy.c: the converter-aware policy (refusals.h), by epochs. */
/* Starts the campaign's epochs: those loaded from state.json (or NULL), then from iteration 0 for
 * every job each refusal of c declared certain. */
void campaign_policy_init(const campaign_opts *o, const conv_converter *c, const cJSON *loaded);
/* The policy of iteration it of job slot j: o's, with the knob of each epoch that applies down-weighted. */
void campaign_policy_at(const campaign_opts *o, int j, int64_t it, gen_policy *out);
/* Job side, after judging iteration it (verdict v, detail): when it is refused by a refusal of c
 * with a knob that job slot j does not down-weight yet, records the epoch from it + 1 and sends its
 * G line on fd; 1 then (the caller takes campaign_policy_at for its next iteration), else 0. */
int campaign_policy_learn(const campaign_opts *o, const conv_converter *c, int j, int64_t it, oracle_verdict v, const char *detail, int fd);
/* Parent side: a G line's JSON. */
void campaign_policy_record(const char *json);
/* The epochs (state.json "policy_epochs"); new. */
cJSON *campaign_policy_epochs(void);
/* Minimizing what matters first: a failing program of rank (refusals_rank) 1 or 2 (an error, a
 * refusal) is minimized only within this part of the job's --reduce-share, so that the rest stays
 * for wrong values (rank 0), which have all of it: campaign_job_allowance with the share so cut. */
#define CAMPAIGN_SHARE_NOT_WRONG 0.5
double campaign_job_allowance_rank(const campaign_opts *o, double t, double reduce_s, int rank);

#endif
