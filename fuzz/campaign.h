/* campaign.h - the built-in campaign driver (`aliasfuzz fuzz`).
 *
 * Iteration i of a campaign with seed S always runs the program judge_gen_program(policy,
 * campaign_program_seed(S, i)) (the generator's program, passed over while its writes change
 * nothing eager can see), whatever the job count; job j of J runs iterations j, j+J, ... With
 * --shard K/N it runs only the iterations i with i % N == K-1 (job j: K-1 + N*j, then every
 * N*J-th), so that N campaigns of one seed, shards 1/N to N/N, together run exactly the programs
 * one campaign of the same iterations would; `aliasfuzz merge` (merge.h) makes one folder of them.
 * Each job is a forked child that judges programs in process and reports over a pipe; the parent
 * alone writes the findings store, the class index (DIR/classes.json, classes.h) and
 * DIR/state.json. A job that dies becomes a converter-crash finding for the iteration it was
 * running, one that outlives the per-program deadline a converter-timeout finding; the job is
 * restarted after that iteration and the campaign goes on. The per-program deadline covers the
 * converter's own work: while a job minimizes a finding (it says so on the pipe) the finding's
 * minimization deadline applies instead, and a job killed there keeps its program as deferred,
 * not as a timeout.
 * The folder is locked (DIR/.lock) while a campaign or campaign_reduce_deferred() writes it.
 * state.json (per-job watermarks and figures) is written atomically every second, and findings
 * remember which (job, iteration) they counted, so a campaign killed with SIGKILL and run again
 * with the same command resumes without losing or double-counting anything. */
#ifndef CAMPAIGN_H
#define CAMPAIGN_H

#include "../harness/af.h"
#include "../oracle/oracle.h"
#include "gen.h"

typedef struct campaign_opts {
  const char *converter;
  uint64_t seed;
  int64_t iterations;  /* total over all jobs; 0: no limit (then time_s is required) */
  double time_s;       /* wall-clock budget of this run; 0: no limit */
  int jobs;
  int shard, shards;   /* --shard K/N: shard = K (1..N), shards = N; 0, 0: not sharded */
  const char *out;     /* campaign folder */
  double deadline_s;   /* per program, the converter's own work only; default 10 */
  int max_reduce_tests;/* candidate tests per new finding; default 2000 */
  double reduce_share; /* at most this share of the campaign's job time goes to minimizing and
                          generalizing (default 0.25; >= 1: no cap), after the search included.
                          Each job minimizes a finding only when its budget has at least 1 s
                          left, and within what is left (at most 1.5 x reduce_time_s): with a
                          time_s, its share of time_s (it may be spent early); without, its
                          share of the time so far. The crashes the parent minimizes count in
                          the budget of the job they killed. A failing program over the budget
                          is deferred: kept under DIR/deferred/ (one per quick key); after the
                          search, those whose quick key still has no class are minimized
                          (unless no_finish) with what the budget has left, and the others stay
                          for campaign_reduce_deferred() */
  int no_finish;       /* 1: leave deferred programs for `aliasfuzz reduce --deferred` instead of
                          minimizing them after the search */
  double reduce_time_s;/* per minimized finding, the reducer's deadline (default 30), and half as
                          much again for generalizing: both stop there and keep the best so far */
  int no_reduce;
  int fail_on_residual;
  const char *baseline;   /* NULL, a converter or a previous campaign's folder: classes it also has
                             are marked (annotate.h) and listed after the new ones */
  const char *other_stack;/* NULL or the other PyTorch stack's aliasfuzz binary: each class's
                             program is rerun there (annotate.h) */
  int no_triggers;        /* 1: do not try the converter's switches on each class */
  int progress;        /* 1: live progress line on stderr */
  int batch;           /* --batch K: programs judged K at a time, combined (fuzz/batch.h); 0: the
                          converter's default (its BATCH line in workers.def, else 1); 1: off.
                          Worker converters only (campaign_batch_size) */
  gen_policy policy;
  char *policy_json;   /* the policy as JSON (recorded in every artifact) */
} campaign_opts;

typedef struct campaign_summary {
  int64_t programs;
  int64_t verdicts[V_COUNT];
  int findings;      /* distinct signatures in the store */
  int classes;       /* bug classes (classes.h), harness artifacts included */
  int artifact_classes; /* of them, not seen from the converter's public API (confirm.h): not counted as bugs */
  int limit_classes;    /* of them, what the converter refuses by design (refusals.h): not counted as bugs */
  int deferred_limits;  /* of the deferred quick keys below, those that are such refusals */
  int deferred;      /* quick keys of deferred programs that no class has yet */
  int64_t unclassified_programs; /* the failing programs counted under those quick keys */
  int deferred_new;  /* of those quick keys, the ones no baseline converter was found to fail the same way */
  int flaky;         /* findings that did not reproduce on every rerun (classes.h): in no class */
  int harness;       /* worker protocol errors (classes.h "harness"): in no class */
  double reduce_seconds; /* spent minimizing and generalizing, summed over jobs (after the search too) */
  double search_reduce_seconds; /* of which during the search (what --reduce-share caps) */
  double finish_seconds; /* wall time after the search minimizing the deferred programs no class had
                            (campaign_reduce_deferred: the wall time it took) */
  double search_job_seconds; /* the search's wall seconds times the jobs: with finish_seconds, what
                                the minimization share is of */
  int finished;          /* deferred programs minimized after the search */
  double annotate_seconds; /* wall time of the baseline, switch and other-stack reruns */
  int new_classes;       /* classes not in the baseline (all of them without one) */
  double seconds;
  int resumed;
  char write_error[1024]; /* "" when every write succeeded; else the first write that failed (the
                             campaign stopped there and wrote nothing more, its report included)
                             and the artifacts it did not write after it */
} campaign_summary;

uint64_t campaign_program_seed(uint64_t campaign_seed, int64_t iteration);

/* Reads a shard "K/N" (1 <= K <= N <= CAMPAIGN_MAX_SHARDS, decimal digits only) into *k and *n;
 * -1 with err saying what is wrong. */
#define CAMPAIGN_MAX_SHARDS 100000
int campaign_parse_shard(const char *s, int *k, int *n, af_err *err);
/* The first iteration job j runs, and the step between its iterations (jobs and shards). */
int64_t campaign_first_iteration(const campaign_opts *o, int j);
int64_t campaign_iteration_step(const campaign_opts *o);

/* Runs (or resumes) the campaign. 0 on success (findings or not), -1 on a setup error: among
 * them, the folder is locked by another process (af_dir_lock_take: its pid and command in err).
 * A write error (disk full, ...) stops the campaign where it happened and still returns 0, with
 * out->write_error set: nothing is written after it, so that running the same campaign again
 * resumes there (the iterations after the last state.json run again, among them those of the
 * failing programs DIR/pending/ names; see campaign_state_pending_replay in campaign_state.c). */
int campaign_run(campaign_opts *o, campaign_summary *out, af_err *err);

/* `aliasfuzz reduce --deferred DIR`: minimizes the programs campaign folder DIR kept deferred
 * (over its budget, or "failed": their minimization died), one at a time in a child with no
 * budget, with the campaign's converter and options (from DIR/state.json), merging each into
 * DIR's findings and classes; then annotates the classes (the campaign's baseline, switches and
 * other stack) and rewrites DIR's report. The campaign's own figures are kept; state.json gains
 * reduce_deferred_seconds and reduce_deferred. Summary: classes, findings, new_classes (classes
 * made now), deferred (quick keys still deferred), finished (programs minimized now),
 * finish_seconds (the wall time). 0 on success (whatever is left), -1 with err when DIR is not a
 * campaign folder of this stack or its converter is not available. */
typedef struct campaign_deferred_opts {
  const char *dir;
  double reduce_time_s; /* > 0: instead of the campaign's --reduce-time */
  int max_tests;        /* > 0: instead of the campaign's --max-reduce-tests */
  int no_triggers;
} campaign_deferred_opts;
int campaign_reduce_deferred(const campaign_deferred_opts *d, campaign_summary *sum, af_err *err);

/* `aliasfuzz fuzz`'s exit status for a campaign that ended with s (cli/cli_exit.c's rows): 1 for a
 * bug class, a flaky finding or a failing program in no class, what the converter refuses by
 * design (refusals.h) apart; with a baseline (with_baseline) only for what it does not have, a
 * new refusal included (the change refuses what the baseline took); else 5 for harness findings
 * or artifact classes alone, 0 for nothing or limits alone. */
int campaign_exit_status(const campaign_summary *s, int with_baseline);

/* Asks a running campaign to stop at the next chance (signal-safe). */
void campaign_request_stop(void);

#endif
