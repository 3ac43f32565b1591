/* test_durability.c - a campaign folder survives what the disk and other processes do to it
 * (issue 27): a second campaign (or `report`, or `reduce --deferred`) on a folder a campaign is
 * writing is refused with the holder's pid, and a killed holder's lock is taken over; staging
 * folders and temporary files a killed run left are removed on start; a write error (injected with
 * AF_FAIL_WRITE_AFTER, or a report.md that cannot be replaced, or a real full tmpfs) stops the
 * campaign with exit 4 naming what was not written, and running the same command again ends with
 * the classes and counts of an uninterrupted run; no process a campaign started outlives it.
 *
 * test_durability [WORD]: only the tests whose name holds WORD. `test_durability tmpfs` is the
 * full-disk test alone, which exits 77 (skipped) where a tmpfs cannot be mounted. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../fuzz/campaign.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/ops/ops.h"
#include "../harness/torch/shim.h"
#include "tap.h"

#define SKIP 77

static char *tmpdir(void) { return tap_tmpdir("af_durability"); }

static void rmrf(const char *d) { tap_rmrf(d); }

static int exists(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  struct stat st;
  return stat(path, &st) == 0;
}

/* Runs `env aliasfuzz args` (stdout and stderr together into *out, new); its exit status. */
static int run_cli(const char *env, const char *args, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "env %s %s/aliasfuzz %s 2>&1", env ? env : "", AF_BINARY_DIR, args);
  FILE *f = popen(cmd, "r");
  af_buf b = {0};
  char line[4096];
  while (f && fgets(line, sizeof line, f)) af_buf_puts(&b, line);
  int st = f ? pclose(f) : -1;
  *out = af_buf_take(&b);
  return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The last line of text (borrowed from a static buffer). */
static const char *last_line(const char *text) {
  static char buf[4096];
  size_t n = strlen(text);
  while (n > 0 && text[n - 1] == '\n') n--;
  size_t s = n;
  while (s > 0 && text[s - 1] != '\n') s--;
  snprintf(buf, sizeof buf, "%.*s", (int)(n - s), text + s);
  return buf;
}

/* qsort's strcmp on char* elements */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* What a campaign ended with: "class <id> <count>" per class and "finding <id> <count>" per finding,
 * sorted; new. */
static char *outcome(const char *dir) {
  char path[1024], cmd[1024];
  snprintf(path, sizeof path, "%s/classes.json", dir);
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *idx = text ? cJSON_Parse(text) : NULL, *c;
  free(text);
  af_buf b = {0};
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes"))
  af_buf_printf(&b, "class %s %.0f\n", cJSON_GetStringValue(cJSON_GetObjectItem(c, "id")), cJSON_GetNumberValue(cJSON_GetObjectItem(c, "count")));
  cJSON_Delete(idx);
  snprintf(cmd, sizeof cmd,
           "cd '%s/findings' 2>/dev/null && for f in */finding.json; do printf 'finding %%s ' \"${f%%/*}\"; "
           "grep -o '\"count\":[^,]*' \"$f\" | tr -d ' \\t'; done",
           dir);
  FILE *f = popen(cmd, "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) af_buf_puts(&b, line);
  if (f) pclose(f);
  /* sorted, so that the order classes were made in does not matter */
  char *all = af_buf_take(&b), *lines[4096];
  int n = 0;
  for (char *s = strtok(all, "\n"); s && n < 4096; s = strtok(NULL, "\n")) lines[n++] = s;
  qsort(lines, (size_t)n, sizeof *lines, cmp_str);
  for (int i = 0; i < n; i++) af_buf_printf(&b, "%s\n", lines[i]);
  free(all);
  return af_buf_take(&b);
}

/* How many entries dir/sub holds (0 when it is missing). */
static int entries(const char *dir, const char *sub) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  DIR *d = opendir(path);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d))) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return n;
}

/* The campaign every test runs: naive (deliberately wrong: many findings in few programs), one
 * job, every finding minimized whatever the load (--reduce-share 1, --reduce-time 600), so that two
 * runs of it end the same whatever the timing. */
#define CAMPAIGN "fuzz --converter naive --seed 3 --iterations 60 --jobs 1 --reduce-share 1 --reduce-time 600 --quiet --out"

static char *reference; /* outcome() of an uninterrupted run, made once */

static const char *uninterrupted(void) {
  if (reference) return reference;
  char *d = tmpdir(), args[1024], *out;
  snprintf(args, sizeof args, "%s %s", CAMPAIGN, d);
  int rc = run_cli(NULL, args, &out);
  CHECK(rc == 1, "the uninterrupted run exits 1 (findings), got %d:\n%s", rc, out);
  reference = outcome(d);
  CHECK(strstr(reference, "class ") && strstr(reference, "finding "), "the uninterrupted run has classes and findings:\n%s", reference);
  free(out);
  rmrf(d);
  free(d);
  return reference;
}

/* After a run stopped by a write error: exit 4, a last line that names what was not written and
 * does not claim a report; then the same command again completes like an uninterrupted run. */
static void check_stopped_then_resumed(const char *d, int rc, char *out, const char *what) {
  const char *last = last_line(out);
  CHECK(rc == 4, "%s: exit 4 (write error), got %d:\n%s", what, rc, out);
  CHECK(strstr(last, "NOT WRITTEN: ") != NULL, "%s: the last line names what was not written: %s", what, last);
  CHECK(strstr(last, "report.md") == NULL || strstr(last, "not written after it") || strstr(last, "report.md: "),
        "%s: the last line claims no report: %s", what, last);
  CHECK(strstr(last, "report: ") == NULL, "%s: the last line claims no report: %s", what, last);
  char args[1024], *again;
  snprintf(args, sizeof args, "%s %s", CAMPAIGN, d);
  int rc2 = run_cli(NULL, args, &again);
  CHECK(rc2 == 1, "%s: the rerun completes (exit 1, findings), got %d:\n%s", what, rc2, again);
  char *got = outcome(d);
  CHECK(strcmp(got, uninterrupted()) == 0, "%s: classes and counts after the rerun differ from an uninterrupted run:\n--- want\n%s--- got\n%s",
        what, uninterrupted(), got);
  CHECK(entries(d, "pending") == 0, "%s: nothing left pending", what);
  CHECK(exists(d, "report.md") && exists(d, "report.html"), "%s: the rerun wrote the report", what);
  free(got);
  free(again);
}

TEST(a_write_error_exits_4_naming_what_was_not_written_and_the_rerun_ends_as_an_uninterrupted_run) {
  uninterrupted();
  /* the first write (a pending record or classes.json), one inside the first finding's folder, one
   * a few findings in, one near the end */
  static const int after[] = {0, 3, 12, 40, 90};
  for (size_t i = 0; i < sizeof after / sizeof *after; i++) {
    char *d = tmpdir(), args[1024], env[64], what[64], *out;
    snprintf(env, sizeof env, "AF_FAIL_WRITE_AFTER=%d", after[i]);
    snprintf(what, sizeof what, "AF_FAIL_WRITE_AFTER=%d", after[i]);
    snprintf(args, sizeof args, "%s %s", CAMPAIGN, d);
    int rc = run_cli(env, args, &out);
    if (rc == 1) { /* fewer writes than that on this machine: nothing failed */
      CHECK(after[i] >= 40, "%s: the campaign made so few writes that none failed:\n%s", what, out);
    } else {
      CHECK(strstr(out, "No space left on device") != NULL, "%s: the error says why:\n%s", what, out);
      check_stopped_then_resumed(d, rc, out, what);
    }
    free(out);
    rmrf(d);
    free(d);
  }
}

TEST(a_report_that_cannot_be_written_is_not_claimed_and_the_rerun_writes_it) {
  uninterrupted();
  char *d = tmpdir(), args[1024], path[1024], *out;
  /* a folder where report.md goes: the rename onto it fails at the very end */
  snprintf(path, sizeof path, "%s/report.md", d);
  CHECK(mkdir(path, 0777) == 0, "mkdir %s", path);
  snprintf(path, sizeof path, "%s/report.md/x", d);
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
  snprintf(args, sizeof args, "%s %s", CAMPAIGN, d);
  int rc = run_cli(NULL, args, &out);
  const char *last = last_line(out);
  CHECK(strstr(last, "report.md") && strstr(last, "report.html"), "the last line names report.md and report.html: %s", last);
  rmrf(path);
  snprintf(path, sizeof path, "%s/report.md", d);
  rmdir(path);
  check_stopped_then_resumed(d, rc, out, "report.md a folder");
  free(out);
  rmrf(d);
  free(d);
}

/* The pid in dir/.lock, 0 while there is none. */
static long lock_pid(const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/.lock", dir);
  char *text = codec_slurp(path, NULL, NULL);
  long pid = text ? strtol(text, NULL, 10) : 0;
  free(text);
  return pid;
}

TEST(a_folder_a_campaign_writes_is_refused_to_others_naming_its_pid_and_a_killed_holders_lock_is_taken_over) {
  char *d = tmpdir(), args[1024], *out;
  /* a finished campaign first, so that `report DIR` has a campaign folder to render */
  snprintf(args, sizeof args, "fuzz --converter naive --seed 5 --iterations 4 --jobs 1 --quiet --out %s", d);
  int first = run_cli(NULL, args, &out);
  CHECK(first <= 1, "a first campaign:\n%s", out);
  free(out);
  pid_t pid = fork();
  if (pid == 0) {
    char bin[1024];
    snprintf(bin, sizeof bin, "%s/aliasfuzz", AF_BINARY_DIR);
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
    execl(bin, bin, "fuzz", "--converter", "naive", "--seed", "5", "--time", "120", "--jobs", "1", "--quiet", "--out", d, (char *)NULL);
    _exit(127);
  }
  for (int t = 0; t < 600 && lock_pid(d) != pid; t++) usleep(50000);
  CHECK(lock_pid(d) == pid, "the campaign wrote its pid into the lock");
  char want[64];
  snprintf(want, sizeof want, "pid %ld (aliasfuzz fuzz --converter naive", (long)pid);
  static const char *const others[] = {"fuzz --converter naive --seed 5 --iterations 8 --jobs 1 --quiet --out", "report", "reduce --deferred", NULL};
  for (int i = 0; others[i]; i++) {
    snprintf(args, sizeof args, "%s %s", others[i], d);
    int rc = run_cli(NULL, args, &out);
    CHECK(rc == 2, "`%s` on a locked folder exits 2, got %d:\n%s", others[i], rc, out);
    CHECK(strstr(out, "is in use") && strstr(out, want), "`%s` names the holder (%s):\n%s", others[i], want, out);
    free(out);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  snprintf(args, sizeof args, "fuzz --converter naive --seed 5 --iterations 8 --jobs 1 --quiet --out %s", d);
  int rc = run_cli(NULL, args, &out);
  CHECK(rc <= 1, "after the holder was killed a campaign runs, got %d:\n%s", rc, out);
  snprintf(want, sizeof want, "left by pid %ld", (long)pid);
  CHECK(strstr(out, "took over the lock") && strstr(out, want) && strstr(out, "ended without releasing it"),
        "it says it took over the dead holder's lock:\n%s", out);
  free(out);
  CHECK(lock_pid(d) == 0, "the lock is released (emptied) at the end");
  rmrf(d);
  free(d);
}

TEST(staging_folders_and_temporary_files_a_killed_run_left_are_removed_on_start) {
  char *d = tmpdir(), path[1024], args[1024], *out;
  static const char *const left[] = {"findings/.tmp-value-mismatch-0123456789abcdef-4000001/repro.json", "state.json.tmp.4000002",
                                     "deferred/7.json.tmp.4000003", NULL};
  for (int i = 0; left[i]; i++) {
    snprintf(path, sizeof path, "%s/%s", d, left[i]);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\" && echo half > '%s'", path, path);
    CHECK(system(cmd) == 0, "%s", cmd);
  }
  snprintf(args, sizeof args, "fuzz --converter naive --seed 5 --iterations 4 --jobs 1 --quiet --out %s", d);
  int rc = run_cli(NULL, args, &out);
  CHECK(rc <= 1, "the campaign runs, got %d:\n%s", rc, out);
  CHECK(strstr(out, "removed 3 staging") != NULL, "it says what it removed:\n%s", out);
  CHECK(!exists(d, "findings/.tmp-value-mismatch-0123456789abcdef-4000001"), "the staging folder is gone");
  CHECK(!exists(d, "state.json.tmp.4000002") && !exists(d, "deferred/7.json.tmp.4000003"), "the temporary files are gone");
  free(out);
  rmrf(d);
  free(d);
}

/* ---- no process of a campaign outlives it */

/* A converter that crashes on a program with a transpose the first time (in a job), and sleeps a
 * minute on the next one (the campaign confirming the crash in a forked child): that child is
 * there when the campaign is killed. marker: the file that says the crash happened. */
static char marker[256];
static result_status lingering_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  for (int s = 0; s < p->nstmts; s++)
    if (strstr(ops_get(p->stmts[s].op)->name, "transpose")) {
      if (access(marker, F_OK) != 0) {
        FILE *f = fopen(marker, "w");
        if (f) fclose(f);
        abort();
      }
      sleep(60);
      abort();
    }
  return conv_script.convert(c, p, state, r);
}
static conv_converter lingering;

/* pids of the live (not zombie) processes of session sid */
static int session_members(pid_t sid, pid_t *pids, int max) {
  DIR *d = opendir("/proc");
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d))) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end || pid <= 0) continue;
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = 0;
    char *close_paren = strrchr(buf, ')'), state;
    int ppid, pgrp, session;
    if (close_paren && sscanf(close_paren + 2, "%c %d %d %d", &state, &ppid, &pgrp, &session) == 4 && session == sid && state != 'Z' &&
        n < max)
      pids[n++] = (pid_t)pid;
  }
  if (d) closedir(d);
  return n;
}

TEST(no_process_a_campaign_started_outlives_it_when_it_is_killed) {
  char *d = tmpdir();
  snprintf(marker, sizeof marker, "%s.crashed", d);
  lingering = conv_script;
  lingering.name = "lingering";
  lingering.convert = lingering_convert;
  lingering.repro_py = NULL;
  CHECK(conv_register(&lingering) == 0, "register");
  pid_t pid = fork();
  if (pid == 0) {
    setsid(); /* its own session: every process it starts is in it */
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
    campaign_opts o = {0};
    o.converter = "lingering";
    o.seed = 5;
    o.iterations = 400;
    o.jobs = 2;
    o.out = d;
    o.deadline_s = 100;
    o.reduce_share = 1; /* a crash is confirmed (and minimized) whatever the time so far */
    gen_policy_default(&o.policy);
    o.policy_json = gen_policy_to_json(&o.policy);
    campaign_summary s;
    af_err err;
    _exit(campaign_run(&o, &s, &err) ? 2 : 0);
  }
  for (int t = 0; t < 1200 && access(marker, F_OK) != 0; t++) usleep(50000);
  CHECK(access(marker, F_OK) == 0, "a job crashed on a transpose");
  usleep(1500000); /* the campaign confirms the crash in a child, which sleeps */
  pid_t before[64], after[64];
  int nb = session_members(pid, before, 64);
  CHECK(nb >= 2, "the campaign has children when it is killed (%d processes)", nb);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  int na = 0;
  for (int t = 0; t < 10; t++) { /* 0.5 s: SIGKILL by PR_SET_PDEATHSIG is immediate */
    usleep(50000);
    if ((na = session_members(pid, after, 64)) == 0) break;
  }
  CHECK(na == 0, "%d process(es) of the killed campaign still run 0.5 s later (first: pid %d)", na, na ? (int)after[0] : 0);
  for (int i = 0; i < na; i++) kill(after[i], SIGKILL); /* not left behind by the test either */
  unlink(marker);
  rmrf(d);
  free(d);
}

/* ---- a real full disk: a small tmpfs */

/* Mounts a tmpfs of size_kb at dir; 0 on success. */
static int mount_tmpfs(const char *dir, int size_kb) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=%dk aliasfuzz-test '%s' 2>/dev/null", size_kb, dir);
  return geteuid() == 0 && system(cmd) == 0 ? 0 : -1;
}

static int skipped;

TEST(a_full_tmpfs_stops_the_campaign_with_exit_4_and_the_rerun_after_space_is_freed_ends_as_an_uninterrupted_run) {
  char *m = tmpdir();
  if (mount_tmpfs(m, 8192)) {
    printf("skipped: cannot mount a tmpfs at %s here (needs root and mount permission); "
           "the injected write failures (AF_FAIL_WRITE_AFTER) cover the same paths\n",
           m);
    skipped = 1;
    rmdir(m);
    free(m);
    return;
  }
  uninterrupted();
  char d[1100], filler[1100], cmd[2600], args[1400], *out;
  snprintf(d, sizeof d, "%s/campaign", m);
  snprintf(filler, sizeof filler, "%s/filler", m);
  /* leave 1.2 MB: the campaign needs about 2.4 MB (its findings take a 4-KB page per file), so the
   * disk is full about halfway */
  snprintf(cmd, sizeof cmd, "dd if=/dev/zero of='%s' bs=1k count=%d 2>/dev/null; sync", filler, 8192 - 1200);
  if (system(cmd) != 0) { /* dd stops at the full disk: fine */
  }
  snprintf(args, sizeof args, "%s %s", CAMPAIGN, d);
  int rc = run_cli(NULL, args, &out);
  CHECK(strstr(out, "No space left on device") != NULL, "the disk filled up:\n%s", out);
  unlink(filler); /* space freed */
  check_stopped_then_resumed(d, rc, out, "full tmpfs");
  free(out);
  snprintf(cmd, sizeof cmd, "umount '%s'", m);
  CHECK(system(cmd) == 0, "%s", cmd);
  rmdir(m);
  free(m);
}

static const char *only;
#define RUN_IF(name) \
  if (!only || strstr(#name, only)) RUN(name)

int main(int argc, char **argv) {
  only = argc > 1 ? argv[1] : NULL;
  at_init();
  RUN_IF(a_folder_a_campaign_writes_is_refused_to_others_naming_its_pid_and_a_killed_holders_lock_is_taken_over);
  RUN_IF(staging_folders_and_temporary_files_a_killed_run_left_are_removed_on_start);
  RUN_IF(no_process_a_campaign_started_outlives_it_when_it_is_killed);
  RUN_IF(a_write_error_exits_4_naming_what_was_not_written_and_the_rerun_ends_as_an_uninterrupted_run);
  RUN_IF(a_report_that_cannot_be_written_is_not_claimed_and_the_rerun_writes_it);
  /* the real full disk only when asked for by name (it mounts; ctest runs it apart) */
  if (only && strstr("a_full_tmpfs_stops_the_campaign_with_exit_4_and_the_rerun_after_space_is_freed_ends_as_an_uninterrupted_run", only))
    RUN(a_full_tmpfs_stops_the_campaign_with_exit_4_and_the_rerun_after_space_is_freed_ends_as_an_uninterrupted_run);
  free(reference);
  int rc = tap_done();
  return rc == 0 && skipped ? SKIP : rc;
}
