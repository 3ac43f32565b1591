/* cmd_reduce.c - `aliasfuzz reduce` (minimize one program into a finding folder, or a campaign's
 * deferred programs into its classes) and `aliasfuzz repro` (rerun a finding folder). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/campaign.h"
#include "../fuzz/confirm.h"
#include "../fuzz/findings.h"
#include "../fuzz/judge.h"
#include "../fuzz/reduce.h"
#include "../fuzz/refusals.h"
#include "../harness/codec.h"
#include "../harness/converters/conv_worker.h"
#include <cjson/cJSON.h>
#include "cli.h"

/* ------------------------------------------------------------------ reduce */

/* Seconds a child of --isolate has for one candidate: a worker converter starts in the child (its
 * hello comes first: 15-40 s for OpenVINO's on a loaded 2-core machine), so the campaign's 10 s per
 * program would turn a crash into a timeout. */
#define ISOLATE_DEADLINE_S 30.0

static const char *usage_reduce =
    "usage: aliasfuzz reduce FILE --converter NAME [--out DIR] [--max-tests N] [--isolate] [--deadline S]\n"
    "       aliasfuzz reduce --deferred DIR [--reduce-time SECONDS] [--max-tests N] [--no-triggers]\n"
    "\n"
    "Minimizes a program while it keeps the same verdict (and error class) on the converter\n"
    "(value-mismatch and input-mutation-lost count as one: a lost write shows as either), and\n"
    "writes a finding folder (repro.json, repro.py, README.md, ...) into DIR (default: FILE's name\n"
    "with .reduced). --isolate runs every test in a child process (for crashes and hangs).\n"
    "--deadline S: the seconds one test of a worker converter may take (default: the worker's\n"
    "own, 10 s for most; with --isolate at least 30 s): raise it for a slow converter on a busy\n"
    "machine, where a crash or a wrong value would otherwise be minimized as a timeout.\n"
    "\n"
    "--deferred DIR: the programs campaign folder DIR kept but did not minimize (DIR/deferred/:\n"
    "over the --reduce-share budget, left by --no-finish, or whose minimization died) are minimized\n"
    "now, with no budget, by the campaign's converter and options (DIR/state.json), one at a time\n"
    "in a child process, and merged into DIR's findings and bug classes as the campaign would have;\n"
    "then the classes are annotated (the campaign's --baseline, switches, --other-stack) and\n"
    "DIR/report.md and report.html are rewritten. --reduce-time and --max-tests replace the\n"
    "campaign's for each program; without --reduce-time each program gets the campaign's or, when\n"
    "longer, 60 tests at the seconds per program the campaign measured (at most 1800 s: a slow\n"
    "converter's programs are minimized, not left as they were). The campaign's own figures stay\n"
    "as they were; state.json records this run apart (reduce_deferred, reduce_deferred_seconds).\n";

static int reduce_deferred(const char *dir, double reduce_time, int max_tests, int no_triggers) {
  campaign_deferred_opts d = {dir, reduce_time, max_tests, no_triggers};
  campaign_summary s;
  af_err err;
  if (campaign_reduce_deferred(&d, &s, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    return 2;
  }
  /* fewer classes than before: the annotation folded classes it showed to be one bug (classes.h) */
  printf("%s: minimized %d deferred program(s) in %.1f s: ", dir, s.finished, s.finish_seconds);
  if (s.new_classes >= 0) printf("%d new bug class(es)", s.new_classes);
  else printf("%d class(es) folded into others (one bug each)", -s.new_classes);
  printf("; %d bug class(es) from %d distinct finding(s) in all", s.classes, s.findings);
  if (s.deferred) printf("; %d quick key(s) still deferred (see %s/classes.json, \"failed\")", s.deferred, dir);
  printf("; report: %s/report.md\n", dir);
  return s.deferred ? 1 : 0;
}

typedef struct rctx {
  const conv_converter *c;
  oracle_opts oo;
  oracle_verdict v;
  const char *detail;
  int isolate;
  double deadline_s; /* --isolate's per-test deadline */
} rctx;

static int rpred(const ir_program *cand, void *vctx) {
  rctx *x = vctx;
  judgement j;
  af_err err;
  int rc = x->isolate ? judge_isolated(x->c, cand, &x->oo, x->deadline_s, &j, &err) : judge_inprocess(x->c, cand, &x->oo, &j, &err);
  if (rc) return 0;
  int same = judge_same_bug(&j, x->v, x->detail) && refusals_same_limit(x->c, j.verdict, j.detail, x->v, x->detail);
  judgement_clear(&j);
  return same;
}

int cmd_reduce(int argc, char **argv) {
  const char *file = NULL, *conv = NULL, *out = NULL, *deferred = NULL;
  int max_tests = 2000, isolate = 0, max_tests_given = 0, no_triggers = 0;
  double reduce_time = 0, deadline = 0;
  for (int i = 0; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      cli_help(usage_reduce, "reduce");
      return 0;
    } else if (!strcmp(argv[i], "--converter") && v) {
      conv = v, i++;
    } else if (!strcmp(argv[i], "--out") && v) {
      out = v, i++;
    } else if (!strcmp(argv[i], "--max-tests") && v && atoi(v) > 0) {
      max_tests = atoi(v), i++, max_tests_given = 1;
    } else if (!strcmp(argv[i], "--deferred") && v) {
      deferred = v, i++;
    } else if (!strcmp(argv[i], "--reduce-time") && v && atof(v) > 0) {
      reduce_time = atof(v), i++;
    } else if (!strcmp(argv[i], "--deadline") && v && atof(v) > 0) {
      deadline = atof(v), i++;
    } else if (!strcmp(argv[i], "--no-triggers")) {
      no_triggers = 1;
    } else if (!strcmp(argv[i], "--isolate")) {
      isolate = 1;
    } else if (argv[i][0] != '-' && !file) {
      file = argv[i];
    } else {
      return cli_usage_error(usage_reduce, "reduce: bad or incomplete option %s", argv[i]);
    }
  }
  if (deferred) {
    if (file || conv || out || isolate || deadline > 0)
      return cli_usage_error(usage_reduce, "reduce: --deferred DIR takes no FILE, --converter, --out, --isolate or --deadline (the campaign's are used)%s", "");
    return reduce_deferred(deferred, reduce_time, max_tests_given ? max_tests : 0, no_triggers);
  }
  if (reduce_time > 0 || no_triggers)
    return cli_usage_error(usage_reduce, "reduce: --reduce-time and --no-triggers go with --deferred DIR%s", "");
  if (!file || !conv) return cli_usage_error(usage_reduce, "reduce: FILE and --converter are required%s", "");
  const conv_converter *c = conv_find(conv);
  if (!c) return cli_usage_error(usage_reduce, "reduce: unknown converter '%s'", conv);
  ir_program *p;
  af_err err;
  if (codec_read_file(file, &p, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    return 2;
  }
  if (deadline > 0 && conv_worker_set_timeout(c, deadline)) {
    ir_program_free(p);
    return cli_usage_error(usage_reduce, "reduce: --deadline applies to worker converters; '%s' runs in process", conv);
  }
  /* isolated: the child also starts the worker (its hello), so the deadline is never under 30 s */
  rctx x = {c, {0}, V_PASS, NULL, isolate, deadline + 5 > ISOLATE_DEADLINE_S ? deadline + 5 : ISOLATE_DEADLINE_S};
  judgement j;
  int rc = isolate ? judge_isolated(c, p, &x.oo, x.deadline_s, &j, &err) : judge_inprocess(c, p, &x.oo, &j, &err);
  if (rc) {
    fprintf(stderr, "aliasfuzz: %s: %s\n", file, err.msg);
    ir_program_free(p);
    return 2;
  }
  if (j.verdict == V_PASS) {
    printf("%s: passes on %s; nothing to reduce\n", file, c->name);
    judgement_clear(&j);
    ir_program_free(p);
    return 1;
  }
  x.v = j.verdict;
  x.detail = j.detail;
  ir_program *min;
  reduce_stats rs;
  reduce_program(p, rpred, &x, max_tests, &min, &rs);
  judgement jm = {0};
  if (isolate || judge_inprocess(c, min, &x.oo, &jm, &err) != 0) { /* isolated: the program may crash this process */
    judgement_clear(&jm);
    jm.verdict = j.verdict;
  }
  char outbuf[4096];
  if (!out) {
    snprintf(outbuf, sizeof outbuf, "%s", file);
    char *dot = strrchr(outbuf, '.');
    if (dot && strcmp(dot, ".json") == 0) *dot = 0;
    strncat(outbuf, ".reduced", sizeof outbuf - strlen(outbuf) - 1);
    out = outbuf;
  }
  /* the meta's seed: a string (gen and campaigns write it so, a JSON number holds 53 bits) or a
     number; a program written by hand has none */
  uint64_t seed = 0;
  int unseeded = 1;
  cJSON *meta = p->meta ? cJSON_Parse(p->meta) : NULL, *ms = cJSON_GetObjectItem(meta, "seed");
  if (cJSON_IsString(ms)) seed = strtoull(ms->valuestring, NULL, 10), unseeded = 0;
  else if (cJSON_IsNumber(ms)) seed = (uint64_t)ms->valuedouble, unseeded = 0;
  cJSON_Delete(meta);
  /* the minimized program's own judgement, where it shows the same bug (a lost write found as a
     value-mismatch may minimize to an input-mutation-lost: judge_same_bug) */
  int took = jm.detail && judge_same_bug(&jm, j.verdict, j.detail);
  finding f = {.converter = c->name, .converter_version = c->version(c), .convert_py = c->repro_py,
               .verdict = took ? jm.verdict : j.verdict, .detail = took ? jm.detail : j.detail, .graph = jm.graph,
               .original = p, .minimized = min,
               .reduction = &rs, .seed = seed, .unseeded = unseeded, .iteration = -1, .job = 0};
  int is_new, counted;
  char id[64];
  if (findings_mkdirs(out, &err) || findings_record(out, &f, &is_new, &counted, id, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    rc = 2;
  } else {
    printf("%s: %s on %s; %d -> %d statements (%d tests, %.2f s)%s\n  %s/findings/%s/\n", file,
           oracle_verdict_name(f.verdict), c->name, rs.stmts_before, rs.stmts_after, rs.tests, rs.seconds,
           rs.budget_hit ? " [test budget reached]" : "", out, id);
    rc = 0;
  }
  judgement_clear(&j);
  judgement_clear(&jm);
  ir_program_free(min);
  ir_program_free(p);
  return rc;
}

/* ------------------------------------------------------------------ repro */

static const char *usage_repro =
    "usage: aliasfuzz repro DIR [--converter NAME] [--in-process]\n"
    "\n"
    "Reruns a finding folder two ways and says whether the bug still reproduces: in process (its\n"
    "repro.json, with the converter named in finding.json, as the campaign judged it) and on the\n"
    "user's path (its repro.py in a fresh process with the build's Python: the public API the\n"
    "converter stands for, fuzz/confirm.h). The exit status is repro.py's, the verdict the\n"
    "campaign reports (a finding seen in process only is a harness artifact: 0); when repro.py\n"
    "cannot say (a converter with no public API: ref, naive; no Python; a signal or its time limit;\n"
    "--in-process), the in-process verdict's (1 or 0).\n";

int cmd_repro(int argc, char **argv) {
  const char *dir = NULL, *conv = NULL;
  int in_process_only = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      cli_help(usage_repro, "repro");
      return 0;
    } else if (!strcmp(argv[i], "--converter") && i + 1 < argc) {
      conv = argv[++i];
    } else if (!strcmp(argv[i], "--in-process")) {
      in_process_only = 1;
    } else if (argv[i][0] != '-' && !dir) {
      dir = argv[i];
    } else {
      return cli_usage_error(usage_repro, "repro: bad option %s", argv[i]);
    }
  }
  if (!dir) return cli_usage_error(usage_repro, "repro: DIR is required%s", "");
  char path[4096];
  af_err err;
  snprintf(path, sizeof path, "%s/finding.json", dir);
  char *text = codec_slurp(path, NULL, &err);
  char expected[64] = "", convname[64] = "";
  if (text) {
    const char *v = strstr(text, "\"verdict\":");
    if (v) sscanf(v + 10, " \"%63[^\"]\"", expected);
    const char *c = strstr(text, "\"converter\":");
    if (c) sscanf(c + 12, " \"%63[^\"]\"", convname);
    free(text);
  }
  if (!conv) conv = convname[0] ? convname : NULL;
  if (!conv) {
    fprintf(stderr, "aliasfuzz: %s: no converter recorded; give --converter\n", path);
    return 2;
  }
  const conv_converter *c = conv_find(conv);
  if (!c) return cli_usage_error(usage_repro, "repro: unknown converter '%s'", conv);
  snprintf(path, sizeof path, "%s/repro.json", dir);
  ir_program *p;
  if (codec_read_file(path, &p, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    return 2;
  }
  judgement j;
  oracle_opts oo = {0};
  if (judge_isolated(c, p, &oo, 30, &j, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    ir_program_free(p);
    return 2;
  }
  int still = j.verdict != V_PASS;
  printf("%s: in process: %s on %s %s (found as %s)%s\n", dir, oracle_verdict_name(j.verdict), c->name, c->version(c),
         expected[0] ? expected : "?", still ? ": still reproduces" : ": no longer reproduces");
  if (j.detail) printf("  %s\n", j.detail);
  judgement_clear(&j);
  ir_program_free(p);
  /* the user's path: repro.py in a fresh process; its exit status is the verdict */
  char apibuf[256];
  const char *why = NULL;
  const char *api = confirm_api(c, apibuf, sizeof apibuf, &why);
  if (in_process_only) why = "--in-process";
  if (!api || in_process_only) {
    printf("%s: user path: not checked (%s); the exit status is the in-process verdict's\n", dir, why);
    return still ? 1 : 0;
  }
  fflush(stdout);
  confirm_run r;
  if (confirm_repro_py(dir, 0, &r, &err) || r.exit < 0 || r.exit > 3) {
    printf("%s: user path (%s): could not check: %s; the exit status is the in-process verdict's\n", dir, api,
           r.why ? r.why : r.exit > 3 ? "repro.py exit status out of 0-3" : err.msg);
    confirm_run_clear(&r);
    return still ? 1 : 0;
  }
  const char *says = r.exit == 1   ? "reproduces"
                     : r.exit == 0 ? (still ? "not seen there: a harness artifact" : "does not reproduce")
                     : r.exit == 2 ? "fails otherwise there"
                                   : "repro.py cannot run the converter here";
  printf("%s: user path (%s): repro.py exit %d: %s\n", dir, api, r.exit, says);
  if (r.result) printf("  %s\n", r.result);
  int rc = r.exit;
  confirm_run_clear(&r);
  return rc;
}
