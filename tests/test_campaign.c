/* test_campaign.c - campaigns: naive's seed bugs found and minimized with working reproducers, a
 * crashing converter becomes one converter-crash finding while the campaign goes on, a
 * campaign killed with SIGKILL resumes without losing or double-counting findings, and the
 * per-program deadline does not cover minimization (issue 18's false timeouts), and a baseline
 * (another converter, or a previous campaign's folder) marks every class but the one a planted
 * mistake adds (issue 17). */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../fuzz/campaign.h"
#include "../fuzz/classes.h"
#include "../fuzz/refusals.h"
#include <cjson/cJSON.h>

#include "../harness/codec.h"
#include "../harness/ops/ops.h"
#include "../harness/converters/conv.h"
#include "../harness/torch/shim.h"
#include "tap.h"

static const char *python(void) {
  const char *p = getenv("AF_PYTHON");
  return p ? p : at_stack_python(); /* the build's stack: its torch is LibTorch's */
}

static char *tmpdir(void) { return tap_tmpdir("af_campaign"); }

static void rmrf(const char *d) { tap_rmrf(d); }

/* A campaign of conv into out (seed, iterations, jobs) with the default policy; run it with
 * run_campaign(), which frees its policy_json. */
static campaign_opts campaign_of(const char *conv, uint64_t seed, int64_t iterations, int jobs, const char *out) {
  campaign_opts o = {0};
  o.converter = conv;
  o.seed = seed;
  o.iterations = iterations;
  o.jobs = jobs;
  o.out = out;
  gen_policy_default(&o.policy);
  o.policy_json = gen_policy_to_json(&o.policy);
  return o;
}

static int run_campaign(campaign_opts *o, campaign_summary *s, af_err *err) {
  int rc = campaign_run(o, s, err);
  free(o->policy_json);
  o->policy_json = NULL;
  return rc;
}

/* "id count" lines of every finding in dir, sorted; new. */
static char *finding_counts(const char *dir) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "cd '%s/findings' 2>/dev/null && for f in */finding.json; do printf '%%s ' \"${f%%/*}\"; "
           "grep -o '\"count\":[^,]*' \"$f\" | tr -d ' \\t'; done | sort",
           dir);
  FILE *f = popen(cmd, "r");
  af_buf b = {0};
  char line[512];
  while (f && fgets(line, sizeof line, f)) af_buf_puts(&b, line);
  if (f) pclose(f);
  return af_buf_take(&b);
}


static int run_cli(const char *args) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s/aliasfuzz %s >/dev/null 2>&1", AF_BINARY_DIR, args);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(a_naive_campaign_finds_the_shape_and_the_view_write_bugs_minimized_with_failing_reproducers) {
  char *d = tmpdir();
  char args[1024];
  /* --reduce-share 1: every new finding minimized, whatever the machine's load (the budget has its
   * own test) */
  snprintf(args, sizeof args, "fuzz --converter naive --seed 7 --iterations 120 --jobs 2 --reduce-share 1 --out %s --quiet", d);
  CHECK(run_cli(args) == 1, "exit 1 (findings)");
  char path[1024];
  snprintf(path, sizeof path, "%s/findings", d);
  DIR *dir = opendir(path);
  struct dirent *e;
  int shape = 0, value = 0;
  while (dir && (e = readdir(dir))) {
    /* the view write's bug: an input's final state wrong, as wrong values or as the write lost (judge.h
       judge_same_bug: the minimizer may go from one to the other) */
    int is_shape = strncmp(e->d_name, "shape-mismatch-", 15) == 0,
        is_value = strncmp(e->d_name, "value-mismatch-", 15) == 0 || strncmp(e->d_name, "input-mutation-lost-", 20) == 0;
    if (!is_shape && !is_value) continue;
    char f[2048];
    snprintf(f, sizeof f, "%s/%s/repro.json", path, e->d_name);
    ir_program *p;
    af_err err;
    if (codec_read_file(f, &p, &err)) {
      CHECK(0, "%s", err.msg);
      continue;
    }
    int small = p->nstmts <= 3;
    ir_program_free(p);
    /* the first three small ones of each verdict (python's start-up is seconds under load) */
    if (!small || (is_shape && shape >= 3) || (is_value && value >= 3)) continue;
    char cmd[2300];
    snprintf(cmd, sizeof cmd, "%s %s/%s/repro.py >/dev/null 2>&1", python(), path, e->d_name);
    int st = system(cmd);
    int fails = WIFEXITED(st) && WEXITSTATUS(st) == 1;
    CHECK(fails, "%s/repro.py exits %d, expected 1", e->d_name, WEXITSTATUS(st));
    if (fails && is_shape) shape++;
    if (fails && is_value) value++;
  }
  if (dir) closedir(dir);
  CHECK(shape >= 1, "no shape-mismatch finding of <= 3 statements with a failing repro.py");
  CHECK(value >= 1, "no value-mismatch or input-mutation-lost finding of <= 3 statements with a failing repro.py");
  snprintf(path, sizeof path, "%s/report.md", d);
  CHECK(access(path, R_OK) == 0, "report.md written");
  rmrf(d);
  free(d);
}

TEST(a_campaign_killed_with_sigkill_resumes_without_losing_or_duplicating_findings) {
  char *ref = tmpdir(), *d = tmpdir();
  char args[1024];
  /* --reduce-share 1 and --reduce-time 600: no time budget and no per-finding time limit that a
   * loaded machine would hit, so that what is minimized does not depend on timing (a 30-s limit
   * made the two runs differ in a clean-clone CI run at load 10+) */
  snprintf(args, sizeof args, "fuzz --converter naive --seed 3 --iterations 400 --jobs 2 --reduce-share 1 --reduce-time 600 --out %s --quiet", ref);
  run_cli(args);
  char *want = finding_counts(ref);
  CHECK(strlen(want) > 0, "the reference campaign found something");

  snprintf(args, sizeof args, "fuzz --converter naive --seed 3 --iterations 400 --jobs 2 --reduce-share 1 --reduce-time 600 --out %s --quiet", d);
  pid_t pid = fork();
  if (pid == 0) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s/aliasfuzz", AF_BINARY_DIR);
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execl(cmd, cmd, "fuzz", "--converter", "naive", "--seed", "3", "--iterations", "400", "--jobs", "2", "--reduce-share", "1", "--reduce-time", "600", "--out", d,
          "--quiet", (char *)NULL);
    _exit(127);
  }
  /* kill it once some findings are on disk, mid-run */
  char probe[1100];
  snprintf(probe, sizeof probe, "%s/findings", d);
  int killed = 0;
  for (int t = 0; t < 600; t++) {
    usleep(50000);
    char *now = finding_counts(d);
    int some = strlen(now) > 0;
    free(now);
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) break; /* finished before we could kill it */
    if (some && t > 2) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      killed = 1;
      break;
    }
  }
  CHECK(killed, "the campaign was killed mid-run");
  usleep(200000); /* its jobs notice the dead parent and exit */
  CHECK(run_cli(args) == 1, "the rerun completes");
  char *got = finding_counts(d);
  CHECK(strcmp(want, got) == 0, "findings after kill+resume differ from an uninterrupted run:\n--- want\n%s--- got\n%s", want, got);
  free(want);
  free(got);
  rmrf(ref);
  rmrf(d);
  free(ref);
  free(d);
}

/* A converter that aborts on programs with a transpose (a stand-in for a converter bug that
 * crashes the process) and otherwise behaves like `script`. */
static result_status crashy_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  for (int s = 0; s < p->nstmts; s++)
    if (strstr(ops_get(p->stmts[s].op)->name, "transpose")) abort();
  return conv_script.convert(c, p, state, r);
}

static conv_converter crashy;

TEST(a_converter_that_crashes_gives_one_crash_finding_and_the_campaign_goes_on) {
  crashy = conv_script;
  crashy.name = "crashy";
  crashy.convert = crashy_convert;
  crashy.repro_py = NULL;
  CHECK(conv_register(&crashy) == 0, "register");
  char *d = tmpdir();
  campaign_opts o = campaign_of("crashy", 5, 80, 2, d);
  /* none of the ops TorchScript compiles to something else (OPF_TS_GAP: `x[i] %= v` is fmod_
   * there, `x[i] &= v` nothing; the writes through ops that return their argument itself are
   * lost): each would be a finding of its own beside the planted crash */
  for (int op = 0; op < OPS_COUNT; op++)
    if (ops_get(op)->flags & OPF_TS_GAP) o.policy.op_weight[op] = 0;
  o.policy.p_list = 0; /* nor lists: script has bug-004 with them (a write into a listed tensor lost by cat) */
  free(o.policy_json);
  o.policy_json = gen_policy_to_json(&o.policy);
  o.max_reduce_tests = 40;
  campaign_summary s;
  af_err err;
  CHECK(run_campaign(&o, &s, &err) == 0, "%s", err.msg);
  CHECK(s.programs == 80, "all 80 programs were run (got %lld)", (long long)s.programs);
  CHECK(s.verdicts[V_CRASH] >= 1, "some programs crashed the converter");
  CHECK(s.verdicts[V_PASS] >= 1, "the others still ran");
  CHECK(s.findings == 1, "one distinct finding (converter-crash), got %d", s.findings);
  char *counts = finding_counts(d);
  CHECK(strncmp(counts, "converter-crash-", 16) == 0, "%s", counts);
  free(counts);
  rmrf(d);
  free(d);
}

/* A converter that takes 0.1 s for every program (a stand-in for Inductor, TVM or OpenVINO) and
 * otherwise is naive, so that most programs fail and minimizing one takes many times the
 * per-program deadline. */
static result_status slow_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  usleep(100000);
  return conv_naive.convert(c, p, state, r);
}

static conv_converter slow;

TEST(the_per_program_deadline_covers_the_converters_work_not_the_minimization_of_a_finding) {
  slow = conv_naive;
  slow.name = "slow-naive";
  slow.convert = slow_convert;
  CHECK(conv_register(&slow) == 0, "register");
  char *d = tmpdir();
  campaign_opts o = campaign_of("slow-naive", 11, 4, 1, d);
  o.deadline_s = 2.0;    /* each program takes 0.1 s: well within, even on a loaded machine */
  o.reduce_time_s = 8.0; /* minimizing one finding (tens of tests): up to 8 s, 4x the deadline */
  o.no_finish = 1;
  o.reduce_share = 1; /* 4 programs take 0.4 s: the budget would defer them all */
  campaign_summary s;
  af_err err;
  CHECK(run_campaign(&o, &s, &err) == 0, "%s", err.msg);
  CHECK(s.programs == 4, "all 4 programs were run (got %lld)", (long long)s.programs);
  CHECK(s.verdicts[V_TIMEOUT] == 0, "%lld false converter-timeout verdicts", (long long)s.verdicts[V_TIMEOUT]);
  CHECK(s.reduce_seconds > o.deadline_s, "a minimization ran past the per-program deadline (%.1f s), so the test shows something",
        s.reduce_seconds);
  CHECK(s.classes >= 1, "the minimized finding has its class");
  rmrf(d);
  free(d);
}

/* naive, except that it aborts on a program with no output: a stand-in for a converter that
 * crashes (or, as LibTorch 1.13's functionalization on an out= op that resizes an unfold view past
 * its base, corrupts its heap) on a candidate the minimizer makes, never on a generated program
 * (every generated program has an output, and drop-outputs is the first pass). */
static result_status outless_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  if (p->noutputs == 0) abort();
  return conv_naive.convert(c, p, state, r);
}

static conv_converter outless;

TEST(a_program_whose_minimization_crashes_the_job_is_deferred_and_minimized_in_isolation) {
  outless = conv_naive;
  outless.name = "naive-outless-abort";
  outless.convert = outless_convert;
  outless.repro_py = NULL;
  CHECK(conv_register(&outless) == 0, "register");
  char *d = tmpdir();
  campaign_opts o = campaign_of("naive-outless-abort", 3, 30, 1, d);
  o.max_reduce_tests = 60;
  o.reduce_share = 1;
  campaign_summary s;
  af_err err;
  CHECK(run_campaign(&o, &s, &err) == 0, "%s", err.msg);
  CHECK(s.programs == 30, "all 30 programs counted (got %lld)", (long long)s.programs);
  CHECK(s.verdicts[V_CRASH] == 0, "no generated program crashed (%lld)", (long long)s.verdicts[V_CRASH]);
  CHECK(s.verdicts[V_PASS] < 30, "some programs failed, so minimizations crashed their job");
  CHECK(s.classes >= 1 && s.deferred == 0, "the deferred programs were minimized in isolation after the search: %d classes, %d left", s.classes,
        s.deferred);
  cJSON *idx = tap_load_json(d, "classes.json");
  cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) {
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
    CHECK(v && strcmp(v, "converter-crash") != 0, "class %s is the program's bug, not the candidate's crash",
          cJSON_GetStringValue(cJSON_GetObjectItem(c, "key")));
  }
  cJSON_Delete(idx);
  rmrf(d);
  free(d);
}

/* With the default --reduce-share (0.25) and a converter slow enough that minimizing one finding
 * takes longer than the budget has: minimizing during the search stays within the share of the
 * search's job time; after the search, each quick key no class holds is minimized under the floor
 * (half of --time), which the share does not cap (issue 25: the budget never hides a bug); what
 * even the floor leaves stays deferred and the report says it is in no class. */
TEST(minimizing_stays_within_the_reduce_share_during_the_search_and_within_the_floor_after_it) {
  if (!conv_find("slow-naive")) {
    slow = conv_naive;
    slow.name = "slow-naive";
    slow.convert = slow_convert;
    CHECK(conv_register(&slow) == 0, "register");
  }
  char *d = tmpdir();
  campaign_opts o = campaign_of("slow-naive", 11, 0, 1, d);
  o.time_s = 12;
  o.deadline_s = 3.0;
  o.reduce_time_s = 8.0; /* one full minimization: up to 12 s, the whole search */
  campaign_summary s;
  af_err err;
  CHECK(run_campaign(&o, &s, &err) == 0, "%s", err.msg);
  double share = s.search_job_seconds > 0 ? s.search_reduce_seconds / s.search_job_seconds : 1;
  /* one judgement (0.1 s and eager) may run past a limit */
  CHECK(share <= 0.25 + 0.06, "minimizing took %.1f s of the search's %.1f job-seconds (%.0f%%)", s.search_reduce_seconds,
        s.search_job_seconds, 100 * share);
  /* the floor holds for errors; a wrong value's first program is minimized past it (issue 34: what
   * matters first), each within the full limit (and one judgement) */
  CHECK(s.finish_seconds <= 0.5 * o.time_s + o.deadline_s + 1 + s.finished * (1.5 * o.reduce_time_s + o.deadline_s + 2),
        "after the search: %.1f s, within the floor of %.1f s and %d minimization(s) (and one judgement)", s.finish_seconds,
        0.5 * o.time_s, s.finished);
  {
    char ipath[1024];
    snprintf(ipath, sizeof ipath, "%s/classes.json", d);
    char *itext = codec_slurp(ipath, NULL, NULL);
    cJSON *idx = itext ? cJSON_Parse(itext) : NULL;
    int wrong_left = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(idx, "deferred")) wrong_left +=
        !classes_index_holds_quick(idx, e->string) && refusals_rank_quick(conv_find("slow-naive"), e->string) == 0;
    CHECK(idx && wrong_left == 0, "no wrong-value quick key is left in no class (%d left)", wrong_left);
    cJSON_Delete(idx);
    free(itext);
  }
  CHECK(s.verdicts[V_PASS] < s.programs, "programs failed (%lld of %lld passed)", (long long)s.verdicts[V_PASS], (long long)s.programs);
  CHECK(s.classes >= 1, "the floor minimized a representative (%d classes)", s.classes);
  char path[1024];
  snprintf(path, sizeof path, "%s/report.md", d);
  char *text = codec_slurp(path, NULL, NULL);
  if (s.deferred)
    CHECK(text && strstr(text, "in no class yet"), "report.md says %d quick key(s) are in no class yet", s.deferred);
  else
    CHECK(text && !strstr(text, "in no class yet"), "every quick key has its class: report.md says nothing is left");
  free(text);
  rmrf(d);
  free(d);
}

/* Sum of "count" over the entries of idx's member `what` ("classes" array or "deferred" object). */
static int64_t counts_in(const cJSON *idx, const char *what) {
  int64_t n = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(idx, what)) n += (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "count"));
  return n;
}

TEST(reduce_deferred_minimizes_what_a_campaign_left_into_its_classes_and_report) {
  char *d = tmpdir();
  char args[1200];
  /* a budget so small that nothing is minimized during the search, and no finish: all deferred */
  snprintf(args, sizeof args, "fuzz --converter naive --seed 3 --iterations 400 --jobs 2 --reduce-share 0.01 --no-finish --out %s --quiet", d);
  CHECK(run_cli(args) == 1, "the campaign exits 1 (deferred programs)");
  cJSON *idx = tap_load_json(d, "classes.json");
  CHECK(idx != NULL, "the campaign wrote classes.json");
  int keys = cJSON_GetArraySize(cJSON_GetObjectItem(idx, "deferred"));
  int64_t programs = counts_in(idx, "deferred") + counts_in(idx, "classes");
  CHECK(keys >= 2, "the campaign left deferred quick keys (%d)", keys);
  CHECK(classes_index_count(idx) == 0, "and no class (%d)", classes_index_count(idx));
  cJSON_Delete(idx);

  snprintf(args, sizeof args, "reduce --deferred %s", d);
  CHECK(run_cli(args) == 0, "reduce --deferred exits 0: nothing left");
  idx = tap_load_json(d, "classes.json");
  CHECK(classes_index_unclassified(idx) == 0, "%d quick keys still deferred", classes_index_unclassified(idx));
  CHECK(classes_index_count(idx) >= 2, "classes made (%d)", classes_index_count(idx));
  CHECK(counts_in(idx, "classes") == programs, "every deferred program is counted in a class (%lld of %lld)",
        (long long)counts_in(idx, "classes"), (long long)programs);
  cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) {
    int n = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(c, "statements"));
    /* issue 17's target (it was 4 while the reducer left `as_strided expand shape-write@view-of-in`
     * at 4, before value-as-input and use-base of every use at once). A class whose pattern has
     * three elements or more (`as_strided shape-write@view-of-in shape-write@view-of-in`: a view and
     * two shape writes, then the statements that show the wrong shape, here a list and a cat) cannot
     * be that small: for it, no more than three statements beyond its pattern. */
    const char *pat = cJSON_GetStringValue(cJSON_GetObjectItem(c, "pattern"));
    int elems = 1;
    for (const char *q = pat ? pat : ""; *q; q++) elems += *q == ' ';
    int bound = elems >= 3 ? elems + 3 : 3;
    CHECK(n >= 1 && n <= bound, "class %s: smallest program of %d statements (bound %d)", pat ? pat : "?", n, bound);
  }
  cJSON_Delete(idx);
  cJSON *st = tap_load_json(d, "state.json");
  CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(st, "reduce_deferred")) == keys, "state.json: %g of %d deferred programs minimized",
        cJSON_GetNumberValue(cJSON_GetObjectItem(st, "reduce_deferred")), keys);
  CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(st, "finished")) == 0, "the campaign's own figures are kept");
  cJSON_Delete(st);
  char path[1024];
  snprintf(path, sizeof path, "%s/report.md", d);
  char *text = codec_slurp(path, NULL, NULL);
  CHECK(text && strstr(text, "## Classes") && !strstr(text, "were not minimized"), "report.md lists the classes, none left");
  free(text);

  /* the findings it made name the campaign's command, seed included (it once said --seed 0) */
  snprintf(path, sizeof path, "%s/findings", d);
  DIR *fd = opendir(path);
  int readmes = 0;
  for (struct dirent *e; fd && (e = readdir(fd));) {
    if (e->d_name[0] == '.') continue;
    char rp[2048];
    snprintf(rp, sizeof rp, "%s/%s/README.md", path, e->d_name);
    char *r = codec_slurp(rp, NULL, NULL);
    if (!r) continue;
    readmes++;
    CHECK(strstr(r, "aliasfuzz fuzz --converter naive --seed 3 ") != NULL, "%s names the campaign's seed", rp);
    free(r);
  }
  if (fd) closedir(fd);
  CHECK(readmes >= 2, "findings written by reduce --deferred (%d)", readmes);

  /* without --reduce-time, a slow campaign's programs get 60 tests at its own pace: its state.json
   * made to say 5 s per program (its jobs' programs, its seconds), reduce --deferred says 300 s */
  st = tap_load_json(d, "state.json");
  double programs_judged = 0;
  cJSON *job;
  cJSON_ArrayForEach(job, cJSON_GetObjectItem(st, "jobs")) programs_judged += cJSON_GetNumberValue(cJSON_GetObjectItem(job, "programs"));
  int njobs = cJSON_GetArraySize(cJSON_GetObjectItem(st, "jobs"));
  CHECK(programs_judged > 0 && njobs == 2, "state.json counts the programs of its 2 jobs (%g)", programs_judged);
  cJSON_ReplaceItemInObject(st, "seconds", cJSON_CreateNumber(5.0 * programs_judged / njobs));
  char *stext = cJSON_Print(st);
  snprintf(path, sizeof path, "%s/state.json", d);
  FILE *sf = fopen(path, "w");
  if (sf && stext) fputs(stext, sf);
  if (sf) fclose(sf);
  free(stext);
  cJSON_Delete(st);
  char cmd[2600], log[1100];
  snprintf(log, sizeof log, "%s/deferred.log", d);
  snprintf(cmd, sizeof cmd, "%s/aliasfuzz reduce --deferred %s >/dev/null 2>%s", AF_BINARY_DIR, d, log);
  CHECK(system(cmd) == 0, "reduce --deferred again: nothing left");
  text = codec_slurp(log, NULL, NULL);
  CHECK(text && strstr(text, "300 s to minimize each deferred program (60 tests at the campaign's 5.0 s per program"),
        "it says the time it gives each program: %s", text ? text : "(no log)");
  free(text);
  snprintf(cmd, sizeof cmd, "%s/aliasfuzz reduce --deferred %s --reduce-time 20 >/dev/null 2>%s", AF_BINARY_DIR, d, log);
  CHECK(system(cmd) == 0, "and with --reduce-time");
  text = codec_slurp(log, NULL, NULL);
  CHECK(text && !strstr(text, "to minimize each deferred program"), "--reduce-time sets it: %s", text ? text : "(no log)");
  free(text);

  snprintf(args, sizeof args, "reduce --deferred %s/findings", d);
  CHECK(run_cli(args) == 2, "a folder that is not a campaign's is refused");
  rmrf(d);
  free(d);
}

/* naive with one deliberate mistake more: torch.mean lowered as torch.sum (a wrong entry in a
 * frontend's op map). mean has no in-place or out= twin, so the mistake is one bug, apart from
 * naive's own. */
static result_status planted_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  result_status st = conv_naive.convert(c, p, state, r);
  ir_program *q = st == RESULT_OK ? *state : NULL;
  for (int s = 0; q && s < q->nstmts; s++)
    if (q->stmts[s].op == ops_find("mean")) q->stmts[s].op = ops_find("sum");
  return st;
}

static conv_converter planted;

static void register_planted(void) {
  if (conv_find("naive-planted")) return;
  planted = conv_naive;
  planted.name = "naive-planted";
  planted.convert = planted_convert;
  planted.repro_py = NULL;
  conv_register(&planted);
}

/* Runs a 160-program campaign of conv into dir with baseline (may be NULL). */
static int planted_campaign(const char *conv, const char *dir, const char *baseline, campaign_summary *s, af_err *err) {
  campaign_opts o = campaign_of(conv, 3, 160, 2, dir);
  /* mean drawn often enough that these 160 programs hold the planted mistake (the reduce family
   * grew in issue 15 and the generator balances weights within a family) */
  o.policy.op_weight[OPS_mean] = 8;
  free(o.policy_json);
  o.policy_json = gen_policy_to_json(&o.policy);
  o.max_reduce_tests = 150;
  o.reduce_share = 1; /* no cap: every class of these 160 programs, whatever the machine's load */
  o.baseline = baseline;
  return run_campaign(&o, s, err);
}

/* Checks the classes of dir: exactly one not in the baseline, with mean in its pattern, first in
 * report.md, and at least one in the baseline (else the test shows nothing). */
static void check_only_the_planted_class_is_new(const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/classes.json", dir);
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *idx = text ? cJSON_Parse(text) : NULL;
  free(text);
  cJSON *c;
  int fresh = 0, also = 0, unmarked = 0, mean_new = 0;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) {
    cJSON *inb = cJSON_GetObjectItem(c, "in_baseline");
    const char *pat = cJSON_GetStringValue(cJSON_GetObjectItem(c, "pattern"));
    if (!cJSON_IsBool(inb)) unmarked++;
    else if (cJSON_IsTrue(inb)) also++;
    else {
      fresh++;
      mean_new += pat && strstr(pat, "mean") != NULL;
      CHECK(pat && strstr(pat, "mean"), "a class not in the baseline that is not the planted mistake: %s",
            cJSON_GetStringValue(cJSON_GetObjectItem(c, "key")));
    }
  }
  CHECK(unmarked == 0, "%d class(es) without a baseline mark", unmarked);
  CHECK(fresh == 1 && mean_new == 1, "one new class, the planted mean -> sum (got %d new)", fresh);
  CHECK(also >= 1, "naive's own classes are marked as in the baseline (got %d)", also);
  cJSON_Delete(idx);
  snprintf(path, sizeof path, "%s/report.md", dir);
  text = codec_slurp(path, NULL, NULL);
  const char *first = text ? strstr(text, "\n### 1. ") : NULL, *second = text ? strstr(text, "\n### 2. ") : NULL;
  CHECK(first && strstr(first, "mean") && (!second || strstr(first, "mean") < second), "report.md's first class is the planted one");
  CHECK(first && (!second || !strstr(first, "(also in the baseline)") || strstr(first, "(also in the baseline)") > second),
        "the first class is not marked as in the baseline");
  for (int n = 2; text && n < 100; n++) {
    char head[32];
    snprintf(head, sizeof head, "\n### %d. ", n);
    const char *h = strstr(text, head);
    if (!h) break;
    const char *eol = strchr(h + 1, '\n'), *mark = strstr(h, "(also in the baseline)");
    CHECK(eol && mark && mark < eol, "class %d is marked as in the baseline", n);
  }
  free(text);
}

TEST(a_baseline_converter_marks_every_class_but_the_planted_mistake_and_lists_that_one_first) {
  register_planted();
  char *d = tmpdir();
  campaign_summary s;
  af_err err;
  CHECK(planted_campaign("naive-planted", d, "naive", &s, &err) == 0, "%s", err.msg);
  CHECK(s.new_classes == 1, "one class not in the baseline, got %d of %d", s.new_classes, s.classes);
  check_only_the_planted_class_is_new(d);
  rmrf(d);
  free(d);
}

TEST(a_baseline_campaign_folder_marks_the_classes_it_has_whatever_its_converter) {
  register_planted();
  char *base = tmpdir(), *d = tmpdir();
  campaign_summary s;
  af_err err;
  CHECK(planted_campaign("naive", base, NULL, &s, &err) == 0, "%s", err.msg);
  CHECK(planted_campaign("naive-planted", d, base, &s, &err) == 0, "%s", err.msg);
  check_only_the_planted_class_is_new(d);
  rmrf(base);
  rmrf(d);
  free(base);
  free(d);
}

TEST(a_baseline_that_is_neither_a_converter_nor_a_campaign_folder_is_refused_before_the_campaign) {
  char *d = tmpdir();
  campaign_summary s;
  af_err err;
  CHECK(planted_campaign("naive", d, "no-such-converter-or-folder", &s, &err) == -1, "refused");
  CHECK(strstr(err.msg, "--baseline") != NULL, "the message names the option: %s", err.msg);
  CHECK(s.programs == 0, "no program was run");
  rmrf(d);
  free(d);
}

/* A stand-in for the other stack's aliasfuzz: says it is the other stack, and fails every
 * program with an unsqueeze_ (shape-mismatch, as naive does) and passes the others. */
TEST(the_other_stack_says_which_classes_fail_there_too_and_which_are_new_or_fixed) {
  char *d = tmpdir(), *bin = tmpdir();
  int here_2x = strcmp(at_stack(), "torch-2.0") > 0;
  const char *other = here_2x ? "torch-1.13" : "torch-2.13";
  char fake[1200];
  snprintf(fake, sizeof fake, "%s/aliasfuzz", bin);
  FILE *f = fopen(fake, "w");
  fprintf(f, "#!/bin/sh\n"
             "case \"$1\" in\n"
             "--version) echo 'aliasfuzz 0.1.0 (LibTorch %s.0, stack %s: a stand-in)' ;;\n"
             "run) if grep -q '\"unsqueeze_\"' \"$2\"; then v=shape-mismatch; else v=pass; fi\n"
             "     echo \"{\\\"file\\\": \\\"$2\\\", \\\"converter\\\": \\\"$4\\\", \\\"verdict\\\": \\\"$v\\\", \\\"detail\\\": null}\" ;;\n"
             "esac\n",
          other + 6, other);
  fclose(f);
  chmod(fake, 0755);
  /* seed 13: its 60 programs give a shape-mismatch class through unsqueeze_ and classes without it
   * (the default stream changes when an op joins the table: seed 3 stopped giving one with
   * logaddexp and arange_float, seed 2 with issue 29's ops; seeds 1..12 give none, their
   * unsqueeze_ classes being converter-errors of later statements; weighting unsqueeze_ puts it in
   * every class's smallest program instead). One job: with two, which program of a class is
   * minimized first depends on the schedule, and the shape-mismatch class came out in some runs
   * only (seen at load 15-20) */
  campaign_opts o = campaign_of("naive", 13, 60, 1, d);
  o.max_reduce_tests = 100;
  o.reduce_share = 1;
  o.other_stack = fake;
  campaign_summary s;
  af_err err;
  CHECK(run_campaign(&o, &s, &err) == 0, "%s", err.msg);
  char path[1024];
  snprintf(path, sizeof path, "%s/classes.json", d);
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *idx = text ? cJSON_Parse(text) : NULL;
  free(text);
  cJSON *c;
  int also = 0, passes = 0, wrong = 0;
  char want_also[64], want_pass[96];
  snprintf(want_also, sizeof want_also, "also fails on %s (shape-mismatch)", other);
  if (here_2x) snprintf(want_pass, sizeof want_pass, "new in %s: passes on %s", at_stack(), other);
  else snprintf(want_pass, sizeof want_pass, "fixed in %s: passes there", other);
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) {
    const char *line = cJSON_GetStringValue(cJSON_GetObjectItem(c, "other_stack"));
    const char *pat = cJSON_GetStringValue(cJSON_GetObjectItem(c, "pattern"));
    const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
    /* what the stand-in sees is the class's smallest program (its pattern may name the family,
     * shape-write, instead of unsqueeze_) */
    char prog[1400];
    snprintf(prog, sizeof prog, "%s/findings/%s/repro.json", d, cJSON_GetStringValue(cJSON_GetObjectItem(c, "smallest")));
    char *ptext = codec_slurp(prog, NULL, NULL);
    int unsq = ptext && strstr(ptext, "\"unsqueeze_\"") != NULL;
    free(ptext);
    int fails_there = unsq && verdict && !strcmp(verdict, "shape-mismatch");
    if (line && fails_there && !strcmp(line, want_also)) also++;
    else if (line && !unsq && !strcmp(line, want_pass)) passes++;
    else if (!unsq) wrong++, CHECK(0, "class %s says: %s", pat ? pat : "?", line ? line : "(nothing)");
  }
  CHECK(also >= 1, "a shape-mismatch unsqueeze_ class fails on the stand-in too (%d)", also);
  CHECK(passes >= 1, "a class without unsqueeze_ passes there: '%s' (%d)", want_pass, passes);
  CHECK(wrong == 0, "%d class(es) with the wrong line", wrong);
  cJSON_Delete(idx);
  snprintf(path, sizeof path, "%s/report.md", d);
  text = codec_slurp(path, NULL, NULL);
  CHECK(text && strstr(text, want_also) && strstr(text, want_pass), "report.md has both lines");
  free(text);
  rmrf(d);
  rmrf(bin);
  free(d);
  free(bin);
}

/* functionalize's switch is reapply_views: each class says what functionalize-noviews gives on
 * its program, and a class whose program passes there has that as its trigger. */
TEST(each_functionalize_class_records_what_reapply_views_false_gives_and_a_pass_is_its_trigger) {
  char *d = tmpdir();
  campaign_opts o = campaign_of("functionalize", 1, 40, 2, d);
  o.max_reduce_tests = 100;
  o.reduce_share = 1;
  campaign_summary s;
  af_err err;
  CHECK(run_campaign(&o, &s, &err) == 0, "%s", err.msg);
  char path[1024];
  snprintf(path, sizeof path, "%s/classes.json", d);
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *idx = text ? cJSON_Parse(text) : NULL;
  free(text);
  cJSON *c;
  int n = 0;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) {
    cJSON *sw = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "switches"), 0);
    const char *conv = cJSON_GetStringValue(cJSON_GetObjectItem(sw, "converter"));
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(sw, "verdict"));
    const char *trig = cJSON_GetStringValue(cJSON_GetObjectItem(c, "trigger"));
    oracle_verdict q;
    CHECK(conv && !strcmp(conv, "functionalize-noviews"), "class %d tried functionalize-noviews", n);
    CHECK(v && oracle_verdict_parse(v, &q) == 0, "class %d: a verdict there (%s)", n, v ? v : "none");
    CHECK(trig && (strncmp(trig, "passes with reapply_views=False", 31) == 0) == (v && !strcmp(v, "pass")),
          "class %d: the trigger line says what the switch gave (%s: %s)", n, v ? v : "?", trig ? trig : "none");
    n++;
  }
  CHECK(n >= 1, "40 functionalize programs give a class (got %d), so the test shows something", n);
  cJSON_Delete(idx);
  rmrf(d);
  free(d);
}

/* test_campaign [WORD]: only the tests whose name holds WORD */
static const char *only;
#define RUN_IF(name) \
  if (!only || strstr(#name, only)) RUN(name)

int main(int argc, char **argv) {
  only = argc > 1 ? argv[1] : NULL;
  at_init();
  RUN_IF(a_naive_campaign_finds_the_shape_and_the_view_write_bugs_minimized_with_failing_reproducers);
  RUN_IF(a_campaign_killed_with_sigkill_resumes_without_losing_or_duplicating_findings);
  RUN_IF(a_converter_that_crashes_gives_one_crash_finding_and_the_campaign_goes_on);
  RUN_IF(the_per_program_deadline_covers_the_converters_work_not_the_minimization_of_a_finding);
  RUN_IF(minimizing_stays_within_the_reduce_share_during_the_search_and_within_the_floor_after_it);
  RUN_IF(a_program_whose_minimization_crashes_the_job_is_deferred_and_minimized_in_isolation);
  RUN_IF(reduce_deferred_minimizes_what_a_campaign_left_into_its_classes_and_report);
  RUN_IF(a_baseline_that_is_neither_a_converter_nor_a_campaign_folder_is_refused_before_the_campaign);
  RUN_IF(a_baseline_converter_marks_every_class_but_the_planted_mistake_and_lists_that_one_first);
  RUN_IF(a_baseline_campaign_folder_marks_the_classes_it_has_whatever_its_converter);
  RUN_IF(the_other_stack_says_which_classes_fail_there_too_and_which_are_new_or_fixed);
  RUN_IF(each_functionalize_class_records_what_reapply_views_false_gives_and_a_pass_is_its_trigger);
  return tap_done();
}
