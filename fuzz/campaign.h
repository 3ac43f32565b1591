/* campaign.h - the built-in campaign driver (`aliasfuzz fuzz`).
 *
 * Iteration i of a campaign with seed S always runs the program gen_program(policy,
 * campaign_program_seed(S, i)), whatever the job count; job j of J runs iterations j, j+J, ...
 * Each job is a forked child that judges programs in process and reports over a pipe; the parent
 * alone writes the findings store and DIR/state.json. A job that dies becomes a converter-crash
 * finding for the iteration it was running, one that outlives the per-program deadline a
 * converter-timeout finding; the job is restarted after that iteration and the campaign goes on.
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
  const char *out;     /* campaign folder */
  double deadline_s;   /* per program; default 10 */
  int max_reduce_tests;/* per new finding; default 400 */
  int no_reduce;
  int fail_on_residual;
  int progress;        /* 1: live progress line on stderr */
  gen_policy policy;
  char *policy_json;   /* the policy as JSON (recorded in every artifact) */
} campaign_opts;

typedef struct campaign_summary {
  int64_t programs;
  int64_t verdicts[V_COUNT];
  int findings;      /* distinct signatures in the store */
  double seconds;
  int resumed;
} campaign_summary;

uint64_t campaign_program_seed(uint64_t campaign_seed, int64_t iteration);

/* Runs (or resumes) the campaign. 0 on success (findings or not), -1 on a setup error. */
int campaign_run(campaign_opts *o, campaign_summary *out, af_err *err);

/* Asks a running campaign to stop at the next chance (signal-safe). */
void campaign_request_stop(void);

#endif
