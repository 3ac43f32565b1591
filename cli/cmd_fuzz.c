/* cmd_fuzz.c - `aliasfuzz fuzz`: the built-in campaign driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fuzz/campaign.h"
#include "../harness/codec.h"
#include "../reports/report.h"
#include "cli.h"

/* The exit status of a campaign stopped by a write error (1 means findings, 2 usage or setup) */
#define FUZZ_EXIT_WRITE_ERROR 4

static const char *usage_fuzz =
    "usage: aliasfuzz fuzz --converter NAME [--seed S] [--time SECONDS | --iterations N] [--jobs J]\n"
    "                      [--shard K/N]\n"
    "                      [--out DIR] [--deadline SECONDS] [--policy FILE] [--no-reduce]\n"
    "                      [--max-reduce-tests N] [--reduce-share F] [--reduce-time SECONDS]\n"
    "                      [--no-finish] [--fail-on-residual] [--quiet] [--batch K]\n"
    "                      [--baseline NAME|DIR] [--other-stack AFBIN] [--no-triggers]\n"
    "\n"
    "Runs a campaign: generated programs (iteration i always gets the same program for a seed),\n"
    "each judged against eager PyTorch; every new finding is minimized and written to\n"
    "DIR/findings/<signature>/ (repro.json, repro.py, README.md, ...), deduplicated with a count.\n"
    "At the end: DIR/report.json, DIR/report.md and DIR/report.html. Running the same command again\n"
    "resumes (Ctrl-C stops cleanly and writes the report; after SIGKILL or a write error the rerun\n"
    "goes on from the last state saved: the failing programs not yet recorded, which DIR/pending/\n"
    "names, are run and recorded again).\n"
    "DIR is locked (DIR/.lock) while a campaign writes it: a second one says which pid holds it.\n"
    "Every file is written all or nothing (temporary file, fsync, rename); the first write that\n"
    "fails (disk full, ...) stops the campaign and nothing more is written, its report included.\n"
    "Defaults: --seed 1, --jobs 1, --out out/fuzz-<converter>, --deadline 10, --time 60 when\n"
    "neither --time nor --iterations is given. After a write error (exit 4, below) run the same\n"
    "command again once there is room.\n"
    "\n"
    "--shard K/N runs only iterations i with i % N == K-1 (K from 1 to N): N campaigns with the\n"
    "same seed, policy and --iterations, shards 1/N to N/N (on one machine or many), together run\n"
    "exactly the programs one campaign of those iterations runs (--iterations counts the whole\n"
    "space, not one shard's part). Give each shard its own --out, then\n"
    "`aliasfuzz merge OUT DIR...` makes one campaign folder and report of them\n"
    "(docs/distributed.md; scripts/af_dask.py runs the shards on Dask). The shard is recorded in\n"
    "state.json, the report and every finding's options; a folder resumes only with its own shard.\n"
    "\n"
    "Findings are grouped into bug classes (DIR/classes.json; report.md lists them first): each\n"
    "minimized program is rerun with its ops replaced by the others of their op-table family and its\n"
    "inputs' dtype by the others, and findings whose generalized patterns coincide are one class;\n"
    "errors and crashes are keyed by where they fail; a finding that does not reproduce on every\n"
    "rerun is flaky and in no class (docs/classes.md).\n"
    "A failing program whose quick key (verdict, error key, what differs) already has a class is\n"
    "counted, not minimized. Minimizing gets at most --reduce-share of the campaign's job time\n"
    "(default 0.25; 1: no cap), the time after the search included: with --time a job may spend\n"
    "its share early, without it only its share of the time so far; a finding is minimized only\n"
    "when at least 1 s is left, and within what is left. Programs over the budget are kept under\n"
    "DIR/deferred/, one per quick key; those whose quick key still has no class are minimized\n"
    "after the search while the budget lasts (--no-finish: none), and what is left stays for\n"
    "`aliasfuzz reduce --deferred DIR`. --deadline bounds the converter's work on one program;\n"
    "minimizing one finding has its own limits, --reduce-time (default 30 s; generalizing gets\n"
    "half as much again) and --max-reduce-tests (default 2000 candidate programs).\n"
    "\n"
    "After the search each class's smallest program is rerun:\n"
    "  --baseline NAME   through converter NAME: classes it fails the same way are marked \"also in\n"
    "                    the baseline\" and listed after the new ones; the exit status is then 1\n"
    "                    only for new classes (what a pre-merge job wants: what the change broke)\n"
    "  --baseline DIR    against a previous campaign's folder (its classes.json): a class whose key\n"
    "                    matches one of its classes (same verdict group, same error key or patterns\n"
    "                    that contain one another, whatever the converter) is in the baseline\n"
    "  --other-stack AFBIN  with the other PyTorch stack's build (e.g. build-113/aliasfuzz):\n"
    "                    `AFBIN run repro.json --converter NAME --json`; each class says \"also fails\n"
    "                    on torch-1.13\", \"new in torch-2.13\" or \"fixed in torch-2.13\"\n"
    "  switches          for converters with cheap switches (functionalize's reapply_views, jit\n"
    "                    without its passes, functorch's remove= and mode, onnx's opset, export's\n"
    "                    strict), the class's program with each switch flipped: which one makes it\n"
    "                    pass is the class's trigger (--no-triggers: skip)\n"
    "\n"
    "--batch K judges a worker converter's programs K at a time, combined into one program (their\n"
    "inputs and outputs side by side), where its fixed cost per conversion dominates: a batch that\n"
    "passes passes each program; one that does not is split in halves down to single programs,\n"
    "each judged alone, so findings are the same as one at a time (docs/batching.md). Programs with\n"
    "input layouts or an if are judged alone. Default: the converter's BATCH line in\n"
    "harness/converters/workers.def (none on today), else 1 (off); in-process converters always 1.\n";

static int parse_u64(const char *s, uint64_t *out) {
  char *end;
  *out = strtoull(s, &end, 10);
  return *s && !*end ? 0 : -1;
}

static int load_policy(const char *file, gen_policy *pol, char **json) {
  gen_policy_default(pol);
  if (file) {
    af_err err;
    char *text = codec_slurp(file, NULL, &err);
    if (!text || gen_policy_from_json(text, pol, &err)) {
      fprintf(stderr, "aliasfuzz: %s: %s\n", file, err.msg);
      free(text);
      return -1;
    }
    free(text);
  }
  *json = gen_policy_to_json(pol);
  return 0;
}

int cmd_fuzz(int argc, char **argv) {
  campaign_opts o = {0};
  o.seed = 1;
  o.jobs = 1;
  o.progress = isatty(2);
  const char *policy = NULL;
  char outbuf[512];
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t u;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cli_help(usage_fuzz, "fuzz");
      return 0;
    } else if (!strcmp(a, "--converter") && v) {
      o.converter = v, i++;
    } else if (!strcmp(a, "--seed") && v && !parse_u64(v, &u)) {
      o.seed = u, i++;
    } else if (!strcmp(a, "--time") && v && atof(v) > 0) {
      o.time_s = atof(v), i++;
    } else if (!strcmp(a, "--iterations") && v && !parse_u64(v, &u) && u > 0) {
      o.iterations = (int64_t)u, i++;
    } else if (!strcmp(a, "--jobs") && v && atoi(v) > 0 && atoi(v) <= 256) {
      o.jobs = atoi(v), i++;
    } else if (!strcmp(a, "--shard") && v) {
      af_err e;
      if (campaign_parse_shard(v, &o.shard, &o.shards, &e)) return cli_usage_error(usage_fuzz, "fuzz: %s", e.msg);
      i++;
    } else if (!strcmp(a, "--out") && v) {
      o.out = v, i++;
    } else if (!strcmp(a, "--deadline") && v && atof(v) > 0) {
      o.deadline_s = atof(v), i++;
    } else if (!strcmp(a, "--max-reduce-tests") && v && atoi(v) > 0) {
      o.max_reduce_tests = atoi(v), i++;
    } else if (!strcmp(a, "--reduce-share") && v && atof(v) > 0) {
      o.reduce_share = atof(v), i++;
    } else if (!strcmp(a, "--batch") && v && atoi(v) >= 1 && atoi(v) <= 64) {
      o.batch = atoi(v), i++;
    } else if (!strcmp(a, "--no-finish")) {
      o.no_finish = 1;
    } else if (!strcmp(a, "--reduce-time") && v && atof(v) > 0) {
      o.reduce_time_s = atof(v), i++;
    } else if (!strcmp(a, "--policy") && v) {
      policy = v, i++;
    } else if (!strcmp(a, "--no-reduce")) {
      o.no_reduce = 1;
    } else if (!strcmp(a, "--fail-on-residual")) {
      o.fail_on_residual = 1;
    } else if (!strcmp(a, "--baseline") && v) {
      o.baseline = v, i++;
    } else if (!strcmp(a, "--other-stack") && v) {
      o.other_stack = v, i++;
    } else if (!strcmp(a, "--no-triggers")) {
      o.no_triggers = 1;
    } else if (!strcmp(a, "--quiet")) {
      o.progress = 0;
    } else if (!strcmp(a, "--progress")) {
      o.progress = 1;
    } else {
      return cli_usage_error(usage_fuzz, "fuzz: bad or incomplete option %s", a);
    }
  }
  if (!o.converter) return cli_usage_error(usage_fuzz, "fuzz: --converter is required%s", "");
  if (!o.time_s && !o.iterations) o.time_s = 60;
  if (!o.out) {
    snprintf(outbuf, sizeof outbuf, "out/fuzz-%s", o.converter);
    o.out = outbuf;
  }
  if (load_policy(policy, &o.policy, &o.policy_json)) return 2;
  campaign_summary s;
  af_err err;
  int rc = campaign_run(&o, &s, &err);
  free(o.policy_json);
  if (rc) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    return 2;
  }
  if (s.write_error[0]) {
    printf("%lld programs in %.1f s, %d bug class(es) from %d distinct finding(s) so far; NOT WRITTEN: %s. "
           "Run the same command again once there is room: it resumes from the last state written\n",
           (long long)s.programs, s.seconds, s.classes, s.findings, s.write_error);
    return FUZZ_EXIT_WRITE_ERROR;
  }
  char rate[32];
  printf("%lld programs in %.1f s (%s/s), %d bug class(es) from %d distinct finding(s)", (long long)s.programs, s.seconds,
         report_rate(s.seconds > 0 ? s.programs / s.seconds : 0.0, rate), s.classes - s.artifact_classes - s.limit_classes, s.findings);
  if (s.artifact_classes) printf(" (+%d harness artifact class(es): not seen from the converter's public API)", s.artifact_classes);
  if (s.limit_classes) printf(" (+%d class(es) the converter refuses by design: its limits, not bugs)", s.limit_classes);
  if (o.baseline) printf(" (%d new, %d also in baseline %s)", s.new_classes, s.classes - s.artifact_classes - s.new_classes, o.baseline);
  printf(", minimizing %.1f s during the search", s.search_reduce_seconds);
  if (s.finish_seconds > 0) printf(" and %.1f s after it (%d deferred program(s))", s.finish_seconds, s.finished);
  double all = s.search_job_seconds + s.finish_seconds;
  if (all > 0)
    printf(" (%.0f%% of %.1f job-seconds; --reduce-share %g)", 100.0 * (s.search_reduce_seconds + s.finish_seconds) / all, all,
           o.reduce_share > 0 ? o.reduce_share : 0.25);
  if (s.flaky) printf(", %d flaky finding(s) in no class", s.flaky);
  if (s.harness) printf(", %d harness finding(s) (protocol errors, programs aliasfuzz cannot hand to it; in no class)", s.harness);
  if (s.deferred)
    printf(", %lld failing program(s) under %d quick key(s) NOT YET IN ANY CLASS (aliasfuzz reduce --deferred %s)",
           (long long)s.unclassified_programs, s.deferred, o.out);
  printf("; report: %s/report.md (and report.html)\n", o.out);
  return campaign_exit_status(&s, o.baseline != NULL);
}

