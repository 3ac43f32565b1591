/* cmd_check.c - `aliasfuzz check`: a conformance suite against an expectation file (the
 * pre-merge gate; the runner is fuzz/check.h's check_run, the expectation file is described
 * there), and `aliasfuzz report`: re-rendering a report folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/check.h"
#include "../harness/converters/conv.h"
#include "../reports/report.h"
#include "cli.h"

static const char *usage_check =
    "usage: aliasfuzz check DIR --converter NAME [--expect FILE] [--junit FILE] [--report DIR]\n"
    "                       [--shard K/N] [--only GLOBS] [--update-expect [--resume]] [--isolate]\n"
    "                       [--deadline S] [--quiet]\n"
    "\n"
    "Runs every case of the conformance suite in DIR (*.json, subfolders included; a case's id is\n"
    "its file name) in eager PyTorch and through the converter, and compares each verdict with the\n"
    "expectation file of this build's PyTorch stack (default:\n"
    "DIR/../expectations/torch-MAJOR.MINOR/NAME.json, named on the first line of output): case id ->\n"
    "expected verdict, with an optional reason and issue. A case missing from the file is expected\n"
    "to pass. A file written on another stack or for another converter is refused.\n"
    "\n"
    "  --expect FILE     the expectation file\n"
    "  --junit FILE      JUnit XML: regressions fail, known failures are skipped\n"
    "  --report DIR      write DIR/check-NAME.json and re-render DIR/conformance.md and\n"
    "                    DIR/report.html (with the check files of other converters in DIR)\n"
    "  --shard K/N       run only the cases whose id hashes to K-1 mod N (FNV-1a of the id: a\n"
    "                    case stays in its shard when cases are added or removed)\n"
    "  --only GLOBS      run only the cases whose id matches one of the comma-separated shell\n"
    "                    patterns (`--only 'mx-*-setitem_and-*,ch2-*'`: the cases of a new op);\n"
    "                    like a shard, the other cases' expectations are kept as they are\n"
    "  --resume          with --update-expect: skip the cases the expectation file has an entry\n"
    "                    for (a whole-suite run of a slow converter, hours, goes on where a stopped\n"
    "                    one left off: the file is saved every minute while it runs); a failure\n"
    "                    recorded without a reason is run again to get one\n"
    "  --update-expect   rewrite the expectation file with this run's verdicts (reasons of\n"
    "                    unchanged verdicts are kept; a failure without a reason gets the first\n"
    "                    line of the run's detail, the missing op, the error or the first\n"
    "                    differing value, marked \"(the run's detail, not read case by case)\";\n"
    "                    what the file gained on disk while the run went on, a reason added by\n"
    "                    hand or other cases, is merged in; entries of cases no longer in DIR\n"
    "                    are dropped inside the run's shard and --only, unless they outnumber\n"
    "                    the file's cases in DIR); exit 0\n"
    "  --isolate         judge every case in a forked child (for in-process converters that may\n"
    "                    crash; a worker converter's crash is a verdict already, and the child\n"
    "                    starts the worker anew for every case: tvm-relax took 10 s a case so,\n"
    "                    1 s without)\n"
    "  --deadline S      per-case deadline with --isolate (default 30)\n"
    "  --quiet           print only regressions and the summary\n"
    "\n"
    "Prints REGRESSION and NEWLY-PASSING lines naming the cases, then a summary.\n";

static const char *usage_report =
    "usage: aliasfuzz report DIR [--table family|view|write]\n"
    "\n"
    "Re-renders a report folder from its JSON. A conformance folder (check-*.json, written by\n"
    "`aliasfuzz check --report DIR`) gets DIR/conformance.md and DIR/report.html; a campaign folder\n"
    "(report.json, written by `aliasfuzz fuzz`) gets DIR/report.md and DIR/report.html.\n"
    "--table BY prints the Markdown pass-rate table of a conformance folder instead, BY being\n"
    "family, view or write.\n";

static int parse_shard(const char *s, int *k, int *n) {
  char extra;
  return sscanf(s, "%d/%d%c", k, n, &extra) == 2 && *n >= 1 && *k >= 1 && *k <= *n ? 0 : -1;
}

int cmd_check(int argc, char **argv) {
  const char *dir = NULL, *conv_name = NULL, *expect_path = NULL, *junit = NULL, *report_dir = NULL, *only = NULL;
  int shard_k = 1, shard_n = 1, update = 0, isolate = 0, quiet = 0, resume = 0;
  double deadline = 30;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cli_help(usage_check, "check");
      return 0;
    } else if (!strcmp(a, "--converter") && more) conv_name = argv[++i];
    else if (!strcmp(a, "--expect") && more) expect_path = argv[++i];
    else if (!strcmp(a, "--junit") && more) junit = argv[++i];
    else if (!strcmp(a, "--report") && more) report_dir = argv[++i];
    else if (!strcmp(a, "--shard") && more) {
      if (parse_shard(argv[++i], &shard_k, &shard_n))
        return cli_usage_error(usage_check, "check: --shard wants K/N with 1 <= K <= N, not %s", argv[i]);
    } else if (!strcmp(a, "--only") && more) {
      only = argv[++i];
      if (!*only) return cli_usage_error(usage_check, "check: --only wants comma-separated patterns%s", "");
    } else if (!strcmp(a, "--update-expect")) update = 1;
    else if (!strcmp(a, "--resume")) resume = 1;
    else if (!strcmp(a, "--isolate")) isolate = 1;
    else if (!strcmp(a, "--quiet")) quiet = 1;
    else if (!strcmp(a, "--deadline") && more) deadline = atof(argv[++i]);
    else if (a[0] == '-') return cli_usage_error(usage_check, "check: unknown option %s", a);
    else if (!dir) dir = a;
    else return cli_usage_error(usage_check, "check: more than one suite folder (%s)", a);
  }
  if (!dir) return cli_usage_error(usage_check, "check: no suite folder given%s", "");
  if (resume && !update) return cli_usage_error(usage_check, "check: --resume goes with --update-expect%s", "");
  if (!conv_name) return cli_usage_error(usage_check, "check: --converter is required%s", "");
  if (!conv_find(conv_name)) return cli_usage_error(usage_check, "check: unknown converter '%s' (see `aliasfuzz converters`)", conv_name);
  check_opts o = {dir, conv_name, expect_path, junit, report_dir, shard_k, shard_n, only, update, resume, isolate, deadline, quiet};
  check_summary s;
  af_err err;
  if (check_run(&o, &s, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    return 2;
  }
  if (s.input_errors) return 2;
  return !update && s.counts[RC_REGRESSION] ? 1 : 0;
}

int cmd_report(int argc, char **argv) {
  const char *dir = NULL, *table = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      cli_help(usage_report, "report");
      return 0;
    } else if (!strcmp(argv[i], "--table") && i + 1 < argc) {
      table = argv[++i];
    } else if (argv[i][0] == '-') {
      return cli_usage_error(usage_report, "report: unknown option %s", argv[i]);
    } else if (!dir) {
      dir = argv[i];
    } else {
      return cli_usage_error(usage_report, "report: more than one folder (%s)", argv[i]);
    }
  }
  if (!dir) return cli_usage_error(usage_report, "report: no folder given%s", "");
  af_err err;
  if (table) {
    char *t = report_conformance_table(dir, table, &err);
    if (!t) {
      fprintf(stderr, "aliasfuzz: %s\n", err.msg);
      return 2;
    }
    fputs(t, stdout);
    free(t);
    return 0;
  }
  if (report_render(dir, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    return 2;
  }
  printf("rendered %s/report.html\n", dir);
  return 0;
}
