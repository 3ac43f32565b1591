/* test_campaign.c - campaigns: naive's seed bugs found and minimized with working reproducers, a
 * crashing converter becomes one converter-crash finding while the campaign goes on, a
 * campaign killed with SIGKILL resumes without losing or double-counting findings, and the
 * per-program deadline does not cover minimization (issue 18's false timeouts). */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../fuzz/campaign.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/torch/shim.h"
#include "tap.h"

static const char *python(void) {
  const char *p = getenv("AF_PYTHON");
  return p ? p : at_stack_python(); /* the build's stack: its torch is LibTorch's */
}

static char *tmpdir(void) {
  char *d = strdup("/tmp/af_campaign_XXXXXX");
  return mkdtemp(d);
}

static void rmrf(const char *d) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
  if (system(cmd) != 0) fprintf(stderr, "cleanup of %s failed\n", d);
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
  snprintf(args, sizeof args, "fuzz --converter naive --seed 7 --iterations 120 --jobs 2 --out %s --quiet", d);
  CHECK(run_cli(args) == 1, "exit 1 (findings)");
  char path[1024];
  snprintf(path, sizeof path, "%s/findings", d);
  DIR *dir = opendir(path);
  struct dirent *e;
  int shape = 0, value = 0;
  while (dir && (e = readdir(dir))) {
    int is_shape = strncmp(e->d_name, "shape-mismatch-", 15) == 0, is_value = strncmp(e->d_name, "value-mismatch-", 15) == 0;
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
    if (!small) continue;
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
  CHECK(value >= 1, "no value-mismatch finding of <= 3 statements with a failing repro.py");
  snprintf(path, sizeof path, "%s/report.md", d);
  CHECK(access(path, R_OK) == 0, "report.md written");
  rmrf(d);
  free(d);
}

TEST(a_campaign_killed_with_sigkill_resumes_without_losing_or_duplicating_findings) {
  char *ref = tmpdir(), *d = tmpdir();
  char args[1024];
  /* --reduce-share 1: no time budget, so that what is minimized does not depend on timing */
  snprintf(args, sizeof args, "fuzz --converter naive --seed 3 --iterations 150 --jobs 2 --reduce-share 1 --out %s --quiet", ref);
  run_cli(args);
  char *want = finding_counts(ref);
  CHECK(strlen(want) > 0, "the reference campaign found something");

  snprintf(args, sizeof args, "fuzz --converter naive --seed 3 --iterations 150 --jobs 2 --reduce-share 1 --out %s --quiet", d);
  pid_t pid = fork();
  if (pid == 0) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s/aliasfuzz", AF_BINARY_DIR);
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execl(cmd, cmd, "fuzz", "--converter", "naive", "--seed", "3", "--iterations", "150", "--jobs", "2", "--reduce-share", "1", "--out", d,
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
    if (some && t > 10) {
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
  campaign_opts o = {0};
  o.converter = "crashy";
  o.seed = 5;
  o.iterations = 80;
  o.jobs = 2;
  o.out = d;
  o.max_reduce_tests = 40;
  gen_policy_default(&o.policy);
  o.policy_json = gen_policy_to_json(&o.policy);
  campaign_summary s;
  af_err err;
  CHECK(campaign_run(&o, &s, &err) == 0, "%s", err.msg);
  CHECK(s.programs == 80, "all 80 programs were run (got %lld)", (long long)s.programs);
  CHECK(s.verdicts[V_CRASH] >= 1, "some programs crashed the converter");
  CHECK(s.verdicts[V_PASS] >= 1, "the others still ran");
  CHECK(s.findings == 1, "one distinct finding (converter-crash), got %d", s.findings);
  char *counts = finding_counts(d);
  CHECK(strncmp(counts, "converter-crash-", 16) == 0, "%s", counts);
  free(counts);
  free(o.policy_json);
  rmrf(d);
  free(d);
}

/* A converter that takes 0.2 s for every program (a stand-in for Inductor, TVM or OpenVINO) and
 * otherwise is naive, so that most programs fail and minimizing one takes many times the
 * per-program deadline. */
static result_status slow_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  usleep(200000);
  return conv_naive.convert(c, p, state, r);
}

static conv_converter slow;

TEST(the_per_program_deadline_covers_the_converters_work_not_the_minimization_of_a_finding) {
  slow = conv_naive;
  slow.name = "slow-naive";
  slow.convert = slow_convert;
  CHECK(conv_register(&slow) == 0, "register");
  char *d = tmpdir();
  campaign_opts o = {0};
  o.converter = "slow-naive";
  o.seed = 11;
  o.iterations = 4;
  o.jobs = 1;
  o.out = d;
  o.deadline_s = 1.0;    /* each program takes 0.2 s: well within */
  o.reduce_time_s = 3.0; /* minimizing one finding: up to 3 s, 3x the deadline */
  o.no_finish = 1;
  gen_policy_default(&o.policy);
  o.policy_json = gen_policy_to_json(&o.policy);
  campaign_summary s;
  af_err err;
  CHECK(campaign_run(&o, &s, &err) == 0, "%s", err.msg);
  CHECK(s.programs == 4, "all 4 programs were run (got %lld)", (long long)s.programs);
  CHECK(s.verdicts[V_TIMEOUT] == 0, "%lld false converter-timeout verdicts", (long long)s.verdicts[V_TIMEOUT]);
  CHECK(s.reduce_seconds > o.deadline_s, "a minimization ran past the per-program deadline (%.1f s), so the test shows something",
        s.reduce_seconds);
  CHECK(s.classes >= 1, "the minimized finding has its class");
  free(o.policy_json);
  rmrf(d);
  free(d);
}

int main(void) {
  at_init();
  RUN(a_naive_campaign_finds_the_shape_and_the_view_write_bugs_minimized_with_failing_reproducers);
  RUN(a_campaign_killed_with_sigkill_resumes_without_losing_or_duplicating_findings);
  RUN(a_converter_that_crashes_gives_one_crash_finding_and_the_campaign_goes_on);
  RUN(the_per_program_deadline_covers_the_converters_work_not_the_minimization_of_a_finding);
  return tap_done();
}
