/* check.h - the conformance runner (`aliasfuzz check`, the pre-merge gate): every case of a suite
 * folder judged through a converter (judge.h) and compared with the expectation file of this
 * build's PyTorch stack; the check document (reports/report_check.h), JUnit XML and the report
 * folder written from it. The CLI (cli/cmd_check.c) only parses options and calls check_run, as
 * `aliasfuzz fuzz` calls campaign_run.
 *
 * Expectation file (corpus/expectations/torch-<major.minor>/<converter>.json: one folder per
 * PyTorch stack, since a converter's verdicts differ between 1.13 and 2.x), one line per case,
 * sorted by id:
 *   {
 *     "format": "aliasfuzz-expectations/1",
 *     "converter": "jit",
 *     "stack": "torch-2.13", "torch": "2.13.0 (venv: ...)", "converter_version": "...",
 *     "stack_note": "how this stack's verdicts differ from the other's (kept by --update-expect)",
 *     "cases": {
 *       "mx-slice-add_-input": "pass",
 *       "mx-slice-add_-through": {"verdict": "input-mutation-lost", "reason": "why", "issue": "URL"}
 *     }
 *   }
 * A case missing from the file is expected to pass. --update-expect gives a failure that has no
 * reason the first line of the run's detail, ending " (the run's detail, not read case by case)";
 * a reason already in the file is kept while the verdict stays. */
#ifndef CHECK_H
#define CHECK_H

#include "../harness/af.h"
#include "../oracle/oracle.h"
#include "../reports/report_check.h"

typedef struct check_opts {
  const char *dir;        /* the suite folder: *.json, subfolders included; a case's id is its file name */
  const char *converter;
  const char *expect;     /* the expectation file; NULL: DIR/../expectations/<stack>/<converter>.json */
  const char *junit;      /* NULL or where JUnit XML goes */
  const char *report_dir; /* NULL or a folder: check-<converter>.json, conformance.md, report.html */
  int shard_k, shard_n;   /* run the cases whose id's FNV-1a is shard_k - 1 mod shard_n (1/1: all) */
  const char *only;       /* NULL or comma-separated shell patterns of case ids */
  int update;             /* rewrite the expectation file with this run's verdicts */
  int resume;             /* with update: skip the cases the file has an entry for (a failure
                             without a reason is run again, for the reason its detail gives) */
  int isolate;            /* each case judged in a forked child ... */
  double deadline_s;      /* ... with this deadline */
  int quiet;              /* print only regressions and the summary */
} check_opts;

typedef struct check_summary {
  int cases;                    /* judged by this run */
  int counts[RC_STATUS_COUNT];  /* by status: pass, known, newly passing, regression */
  int verdicts[V_COUNT];
  int input_errors;             /* cases that could not be read, a meta.id that is not the file's id,
                                   an output (JUnit, report, expectation file) not written: each
                                   already named on stderr */
  double seconds;
} check_summary;

/* Runs the check: prints the expectation file used, a line per regression, newly passing case
 * (and known failure unless quiet), then the summary, on stdout; writes the outputs o asks for.
 * 0 when the run went through (sum says what it found), -1 with err when it could not start:
 * unknown or unavailable converter, unreadable or malformed expectation file, one written on
 * another stack or for another converter, no case in DIR, a case id used twice. */
int check_run(const check_opts *o, check_summary *sum, af_err *err);

#endif
