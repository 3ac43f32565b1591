/* test_workers.c - the external worker client (conv_worker.c) against misbehaving workers
 * (tests/workers/misbehave.py, raw protocol, no torch), and the named workers.
 *
 *   test_workers        the client: crashes, hangs, garbage, wrong sizes, hello failures, the tvm
 *                       worker saying it is unavailable (quick: a few seconds)
 *   test_workers real   the onnx and functorch workers on corpus cases (starts PyTorch twice)
 *   test_workers tvm    the tvm worker against a real TVM 0.11-0.14 (Relay; the 1.13 stack), and
 *                       its repro.py run with the build's Python */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../harness/codec.h"
#include "../harness/converters/conv_worker.h"
#include "../harness/eager.h"
#include "../harness/emit_repro.h"
#include "../oracle/oracle.h"
#include "../oracle/signature.h"
#include "../harness/torch/shim.h"
#include "tap.h"

#define MISBEHAVE "python3 " AF_SOURCE_DIR "/tests/workers/misbehave.py"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* `r = x.alias(); return r`, with meta {"misbehave": how} (how may be ""). n elements of x. */
static ir_program *echo_program(const char *how, int n) {
  char text[1024];
  snprintf(text, sizeof text,
           "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [%d], \"dtype\": \"float32\"}], "
           "\"body\": [{\"out\": \"r\", \"op\": \"alias\", \"args\": [\"x\"]}], \"outputs\": [\"r\"], "
           "\"meta\": {\"misbehave\": \"%s\"}}",
           n, how);
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(text, "echo", &p, &err)) fprintf(stderr, "echo_program: %s\n", err.msg);
  return p;
}

/* Runs p through c and judges it against eager; returns the verdict, message in *msg (new). */
static oracle_verdict judge(const conv_converter *c, const ir_program *p, char **msg) {
  result eager, conv;
  af_err err;
  result_init(&eager);
  result_init(&conv);
  *msg = NULL;
  if (eager_run(p, &eager, &err) || conv_execute(c, p, &conv, &err)) {
    *msg = strdup(err.msg);
    result_clear(&eager);
    result_clear(&conv);
    return V_COUNT;
  }
  char *detail = NULL;
  oracle_verdict v = oracle_judge(p, &eager, &conv, NULL, &detail);
  *msg = strdup(conv.message ? conv.message : detail ? detail : "");
  free(detail);
  result_clear(&eager);
  result_clear(&conv);
  return v;
}

/* Judges an echo program with the given misbehaviour and checks the verdict and message. */
static void expect(const conv_converter *c, const char *how, oracle_verdict want, const char *needle) {
  ir_program *p = echo_program(how, 6);
  char *msg;
  oracle_verdict v = judge(c, p, &msg);
  CHECK(v == want, "misbehave '%s': verdict %s, want %s (%s)", how, oracle_verdict_name(v), oracle_verdict_name(want),
        msg);
  if (needle) CHECK(msg && strstr(msg, needle), "misbehave '%s': message names '%s': %s", how, needle, msg);
  free(msg);
  ir_program_free(p);
}

static const conv_converter *misbehave(void) {
  const conv_converter *c = conv_find("external:" MISBEHAVE);
  conv_worker_set_timeout(c, 1.5);
  return c;
}

static int alive(int pid) { return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH); }

TEST(external_names_resolve_to_one_converter_per_command) {
  const conv_converter *a = conv_find("external:" MISBEHAVE), *b = conv_find("external:" MISBEHAVE);
  CHECK(a && a == b, "the same command gives the same converter");
  CHECK(a && strcmp(a->name, "external:" MISBEHAVE) == 0, "named after its command: %s", a ? a->name : "(null)");
  CHECK(conv_find("external:") == NULL, "an empty command is no converter");
  CHECK(conv_worker_set_timeout(conv_find("script"), 1) == -1, "script is no worker converter");
}

TEST(worker_is_kept_alive_across_programs) {
  const conv_converter *c = misbehave();
  const char *why;
  CHECK(c->available(c, &why), "misbehave says hello: %s", why ? why : "");
  CHECK(strstr(c->version(c), "misbehave 1") != NULL, "version from the hello: %s", c->version(c));
  conv_worker *w = conv_worker_of(c);
  int starts = conv_worker_starts(w), pid = conv_worker_pid(w);
  for (int i = 0; i < 3; i++) expect(c, "", V_PASS, NULL);
  CHECK(conv_worker_starts(w) == starts && conv_worker_pid(w) == pid, "one process served all three (starts %d -> %d)",
        starts, conv_worker_starts(w));
}

TEST(worker_exiting_mid_request_is_a_crash_and_the_next_request_works) {
  const conv_converter *c = misbehave();
  conv_worker *w = conv_worker_of(c);
  int starts = conv_worker_starts(w);
  conv_worker_set_timeout(c, 10);
  double t0 = now_s();
  expect(c, "exit", V_CRASH, "exited with status 3");
  /* (the crash, then its rerun in a fresh worker, which crashes too: the crash is its own) */
  CHECK(now_s() - t0 < 5, "noticed at once, not at the 10-s deadline (%.2f s)", now_s() - t0);
  conv_worker_set_timeout(c, 1.5);
  expect(c, "", V_PASS, NULL);
  CHECK(conv_worker_starts(w) == starts + 2, "restarted for the rerun and for the next program (starts %d -> %d)", starts,
        conv_worker_starts(w));
}

TEST(worker_killed_by_a_signal_is_a_crash_and_the_next_request_works) {
  const conv_converter *c = misbehave();
  expect(c, "segv", V_CRASH, "signal 11");
  expect(c, "", V_PASS, NULL);
}

/* The crash message names the innermost Python frames of the faulthandler dump the worker left,
 * as FILE:FUNCTION, innermost first, without line numbers (a stable key for crash classes). */
TEST(worker_crash_names_its_innermost_python_frames_without_line_numbers) {
  const conv_converter *c = conv_find("external:" MISBEHAVE " --frames-test");
  conv_worker_set_timeout(c, 5);
  ir_program *p = echo_program("segv", 6);
  char *msg;
  oracle_verdict v = judge(c, p, &msg);
  CHECK(v == V_CRASH, "verdict %s (%s)", oracle_verdict_name(v), msg);
  char *site = conv_worker_crash_site(msg);
  CHECK(site && !strcmp(site, "misbehave.py:main <- misbehave.py:<module>"), "crash site '%s' in: %s", site ? site : "(none)",
        msg);
  CHECK(msg && !strstr(msg, "line ") && !strstr(msg, "0x"), "no line numbers or addresses: %s", msg);
  free(site);
  free(msg);
  ir_program_free(p);
}

/* Judges p through c with tag (conv_worker_set_tag); the verdict. */
static oracle_verdict judge_tagged(const conv_converter *c, const char *how, const char *tag, char **msg) {
  conv_worker_set_tag(conv_worker_of(c), tag);
  ir_program *p = echo_program(how, 6);
  oracle_verdict v = judge(c, p, msg);
  ir_program_free(p);
  return v;
}

/* misbehave 'poison' answers right but leaves its process broken: the next request, whatever it
 * is, segfaults. The crash is the poisoner's (a blame naming it), the next program passes (its
 * rerun in a fresh worker), and the one after it is served as usual. */
TEST(worker_left_broken_by_a_program_charges_the_crash_to_it_and_the_next_program_passes) {
  const conv_converter *c = conv_find("external:" MISBEHAVE " --attribution-test");
  conv_worker_set_timeout(c, 5);
  conv_worker *w = conv_worker_of(c);
  char *msg;
  oracle_verdict v = judge_tagged(c, "", "first", &msg);
  CHECK(v == V_PASS, "a plain program passes: %s", msg);
  free(msg);
  v = judge_tagged(c, "poison", "poisoner", &msg);
  CHECK(v == V_PASS, "the poisoner itself answers right: %s", msg);
  free(msg);
  conv_worker_blame b;
  CHECK(!conv_worker_take_blame(w, &b), "no blame yet");
  int starts = conv_worker_starts(w);
  v = judge_tagged(c, "", "innocent", &msg);
  CHECK(v == V_PASS, "the program after it passes (its rerun in a fresh worker): %s %s", oracle_verdict_name(v), msg);
  free(msg);
  CHECK(conv_worker_starts(w) == starts + 2, "a fresh worker for the rerun, one for the poisoner's replay (starts %d -> %d)",
        starts, conv_worker_starts(w));
  CHECK(conv_worker_take_blame(w, &b) == 1, "a blame");
  CHECK(b.tag && !strcmp(b.tag, "poisoner"), "charged to the poisoner: %s", b.tag ? b.tag : "(none)");
  CHECK(b.program && b.program->meta && strstr(b.program->meta, "poison"), "with its program: %s",
        b.program && b.program->meta ? b.program->meta : "(none)");
  CHECK(b.detail && strstr(b.detail, "the worker was left broken by this program") && strstr(b.detail, "signal 11"),
        "saying so: %s", b.detail ? b.detail : "");
  char *site = conv_worker_crash_site(b.detail);
  CHECK(site && !strcmp(site, "misbehave.py:crash_in_broken_state <- misbehave.py:main <- misbehave.py:<module>"),
        "naming where it crashed: %s", site ? site : "(none)");
  free(site);
  conv_worker_blame_clear(&b);
  CHECK(conv_worker_take_blame(w, &b) == 0, "the blame is handed out once");
  v = judge_tagged(c, "", "after", &msg);
  CHECK(v == V_PASS, "the next program is served: %s", msg);
  free(msg);
  /* a program that crashes a fresh worker too is charged its own crash, and blames nobody */
  v = judge_tagged(c, "segv", "crasher", &msg);
  CHECK(v == V_CRASH && msg && strstr(msg, "crashed a fresh worker again"),
        "a crash of its own: %s", msg);
  free(msg);
  CHECK(conv_worker_take_blame(w, &b) == 0, "no blame for a crash of its own");
  conv_worker_set_tag(w, NULL);
}

/* Runs cmd with sh, its stdout in *out (new); the exit status. */
static int sh_out(const char *cmd, char **out) {
  FILE *f = popen(cmd, "r");
  static char text[1 << 16];
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[n] = 0;
  int st = f ? pclose(f) : -1;
  *out = strdup(text);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `aliasfuzz run` and `check` share one worker across files: the crash that the poisoner's
 * successor met is charged to the poisoner's file or case, the successor passes, one line a file. */
TEST(run_and_check_charge_a_worker_crash_to_the_file_that_left_the_worker_broken) {
  char dir[256], cmd[4096], *out;
  snprintf(dir, sizeof dir, "%s/attribution-%d", AF_BINARY_DIR, (int)getpid());
  snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s/suite", dir, dir);
  CHECK(system(cmd) == 0, "%s", cmd);
  const char *names[] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/suite/%s.json", dir, names[i]);
    FILE *f = fopen(path, "w");
    if (!f) continue;
    fprintf(f, "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [4], \"dtype\": \"float32\"}], "
               "\"body\": [{\"out\": \"r\", \"op\": \"alias\", \"args\": [\"x\"]}], \"outputs\": [\"r\"], "
               "\"meta\": {\"misbehave\": \"%s\"}}\n", i == 1 ? "poison" : "");
    fclose(f);
  }
  snprintf(cmd, sizeof cmd, "cd %s/suite && %s/aliasfuzz run a.json b.json c.json d.json --converter 'external:" MISBEHAVE "'",
           dir, AF_BINARY_DIR);
  int rc = sh_out(cmd, &out);
  CHECK(rc == 1, "run exits 1 (a finding): %d", rc);
  CHECK(strstr(out, "a.json external:") && strstr(out, "misbehave.py pass\nb.json external:"), "a passes: %s", out);
  const char *b = strstr(out, "b.json external:"), *c = strstr(out, "c.json external:");
  CHECK(b && strstr(b, "converter-crash  the worker was left broken by this program") && c && c > b,
        "b gets the crash: %s", out);
  CHECK(c && strncmp(strchr(c, '\n') - 4, "pass", 4) == 0 && strstr(out, "misbehave.py pass\n") , "c passes: %s", out);
  int lines = 0;
  for (const char *q = out; *q; q++) lines += *q == '\n';
  CHECK(lines == 4, "one line a file, in order: %s", out);
  free(out);
  snprintf(cmd, sizeof cmd,
           "cd %s && %s/aliasfuzz check suite --converter 'external:" MISBEHAVE "' --expect exp.json --update-expect "
           ">/dev/null && cat exp.json",
           dir, AF_BINARY_DIR);
  rc = sh_out(cmd, &out);
  CHECK(rc == 0 && strstr(out, "\"a\": \"pass\"") && strstr(out, "\"b\": {\"verdict\": \"converter-crash\"") &&
            strstr(out, "\"c\": \"pass\"") && strstr(out, "\"d\": \"pass\""),
        "check records the crash for b, pass for c: %s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

/* A program that crashes the very process it starts is not rerun (nothing came before it). */
TEST(worker_crashing_on_its_first_program_is_charged_without_a_rerun) {
  const conv_converter *c = conv_find("external:" MISBEHAVE " --first-crash-test");
  conv_worker_set_timeout(c, 5);
  conv_worker *w = conv_worker_of(c);
  char *msg;
  oracle_verdict v = judge_tagged(c, "segv", "alone", &msg);
  CHECK(v == V_CRASH && msg && !strstr(msg, "again"), "its own crash: %s", msg);
  free(msg);
  CHECK(conv_worker_starts(w) == 1, "one start, no rerun (%d)", conv_worker_starts(w));
}

TEST(worker_hanging_past_the_deadline_is_a_timeout_and_is_killed) {
  const conv_converter *c = misbehave();
  conv_worker *w = conv_worker_of(c);
  expect(c, "", V_PASS, NULL); /* make sure it runs, to know its pid */
  int pid = conv_worker_pid(w);
  double t0 = now_s();
  expect(c, "hang", V_TIMEOUT, "no answer within 1.5 s");
  double dt = now_s() - t0;
  CHECK(dt >= 1.4 && dt < 4.0, "took the deadline, not more (%.2f s)", dt);
  CHECK(!alive(pid), "the hung process %d is gone (killed and reaped)", pid);
  expect(c, "", V_PASS, NULL);
  CHECK(conv_worker_pid(w) != pid && alive(conv_worker_pid(w)), "a fresh process serves the next program");
}

/* A process is gone once it is no more or a zombie (an orphan's zombie waits for init). */
static int running(int pid) {
  char path[64], st[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(st, 1, sizeof st - 1, f);
  fclose(f);
  st[n] = 0;
  const char *close_paren = strrchr(st, ')');
  return !(close_paren && close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X'));
}

/* A worker that eats memory (misbehave 'eat': 400 MiB resident, then waits forever) is killed
 * when its process tree goes over the resident-memory cap (here 150 MiB), well before the
 * request deadline: a crash naming the cap, and a fresh process serves the next program. */
TEST(worker_eating_memory_past_its_cap_is_a_crash_naming_the_cap_and_is_killed) {
  const conv_converter *c = misbehave();
  conv_worker *w = conv_worker_of(c);
  conv_worker_set_timeout(c, 60);
  conv_worker_set_rss_cap(w, 150);
  expect(c, "", V_PASS, NULL);
  int pid = conv_worker_pid(w);
  double t0 = now_s();
  expect(c, "eat", V_CRASH, "over its cap of 150 MiB");
  double dt = now_s() - t0;
  CHECK(dt < 30, "killed for its memory, not at the 60-s deadline (%.1f s)", dt);
  CHECK(!alive(pid), "the process %d is gone (killed and reaped)", pid);
  expect(c, "", V_PASS, NULL);
  CHECK(conv_worker_pid(w) != pid && alive(conv_worker_pid(w)), "a fresh process serves the next program");
  conv_worker_set_rss_cap(w, 0);
  conv_worker_set_timeout(c, 1.5);
}

TEST(worker_dies_with_the_process_that_started_it_when_that_is_killed_mid_request) {
  /* a campaign job: a forked child that starts the worker and is SIGKILLed while the worker is busy */
  int fd[2];
  CHECK(pipe(fd) == 0, "pipe");
  fflush(NULL);
  pid_t job = fork();
  if (job == 0) {
    close(fd[0]);
    const conv_converter *c = conv_find("external:" MISBEHAVE " --orphan-test");
    conv_worker_set_timeout(c, 60);
    const char *why;
    if (!c->available(c, &why)) _exit(3);
    int wpid = conv_worker_pid(conv_worker_of(c));
    if (write(fd[1], &wpid, sizeof wpid) != (ssize_t)sizeof wpid) _exit(4);
    char *msg;
    ir_program *p = echo_program("hang", 6);
    judge(c, p, &msg); /* the worker sleeps for an hour: the parent kills us meanwhile */
    _exit(5);
  }
  close(fd[1]);
  int wpid = 0;
  CHECK(read(fd[0], &wpid, sizeof wpid) == (ssize_t)sizeof wpid && wpid > 0, "the job reports its worker's pid");
  close(fd[0]);
  if (wpid <= 0) {
    kill(job, SIGKILL);
    waitpid(job, NULL, 0);
    return;
  }
  CHECK(running(wpid), "the worker %d runs", wpid);
  sleep_ms(300); /* the request is on its way, the worker sleeps in it */
  kill(job, SIGKILL);
  waitpid(job, NULL, 0);
  double t0 = now_s();
  while (running(wpid) && now_s() - t0 < 3) sleep_ms(20);
  int orphan = running(wpid);
  CHECK(!orphan, "the worker %d died with its job (still running %.1f s after the job was killed)", wpid, now_s() - t0);
  if (orphan) kill(wpid, SIGKILL); /* the orphan this test made */
}

TEST(worker_printing_invalid_json_instead_of_an_answer_is_a_protocol_error_and_the_next_request_works) {
  const conv_converter *c = misbehave();
  conv_worker *w = conv_worker_of(c);
  int starts = conv_worker_starts(w);
  expect(c, "garbage", V_PROTOCOL, "no answer within 1.5 s after 1 line on its stdout that is not protocol");
  expect(c, "", V_PASS, NULL);
  CHECK(conv_worker_starts(w) == starts + 1, "a worker out of step is replaced (starts %d -> %d)", starts,
        conv_worker_starts(w));
}

TEST(worker_answering_wrong_tensor_sizes_is_a_protocol_error_and_the_next_request_works) {
  const conv_converter *c = misbehave();
  expect(c, "wrong-size", V_PROTOCOL, "20 bytes of data for shape [6] float32 (24 expected)");
  expect(c, "", V_PASS, NULL);
}

TEST(worker_answering_another_request_id_is_a_protocol_error) {
  const conv_converter *c = misbehave();
  expect(c, "wrong-id", V_PROTOCOL, "protocol error");
  expect(c, "", V_PASS, NULL);
}

TEST(worker_answering_the_wrong_number_of_outputs_is_a_protocol_error_not_a_converter_bug) {
  const conv_converter *c = misbehave();
  expect(c, "wrong-outputs", V_PROTOCOL, "\"outputs\" has 2 entries for 1 program outputs");
  CHECK(!oracle_verdict_is_bug(V_PROTOCOL), "%s is no converter bug", oracle_verdict_name(V_PROTOCOL));
  CHECK(!strcmp(oracle_verdict_name(V_PROTOCOL), "worker-protocol-error"), "named %s", oracle_verdict_name(V_PROTOCOL));
  expect(c, "", V_PASS, NULL);
}

static void three_plain_programs(void *arg) {
  const conv_converter *c = arg;
  for (int i = 0; i < 3; i++) expect(c, "", V_PASS, NULL);
}

/* A native library that writes a line to stdout before each answer: the lines are skipped (noted
 * once on stderr), every program is judged, and one process serves them all. */
TEST(worker_writing_a_stray_stdout_line_before_each_answer_is_served_without_restarts) {
  const conv_converter *c = conv_find("external:" MISBEHAVE " --stray-line");
  conv_worker_set_timeout(c, 5);
  const char *why;
  CHECK(c->available(c, &why), "available: %s", why ? why : "");
  conv_worker *w = conv_worker_of(c);
  int starts = conv_worker_starts(w);
  char *err = tap_capture_stderr(three_plain_programs, (void *)c);
  CHECK(conv_worker_starts(w) == starts, "no restarts (starts %d -> %d)", starts, conv_worker_starts(w));
  const char *note = strstr(err, "that is not protocol");
  CHECK(note && strstr(err, "native library: initialising kernels"), "noted on stderr: %s", err);
  CHECK(note && !strstr(note + 1, "that is not protocol"), "once: %s", err);
  free(err);
}

/* A worker whose hello lacks module_state is sent no program with buffers: converter-unsupported
 * (it declines, as the protocol allows), whose message names the field in its error class. */
TEST(program_with_buffers_for_a_worker_without_module_state_names_the_field_in_its_class) {
  const conv_converter *c = misbehave();
  ir_program *p = NULL;
  af_err err;
  const char *text =
      "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}, "
      "{\"name\": \"b\", \"shape\": [3], \"dtype\": \"float32\", \"buffer\": true}], "
      "\"body\": [{\"out\": \"r\", \"op\": \"add\", \"args\": [\"x\", \"b\"]}], \"outputs\": [\"r\"]}";
  CHECK(codec_read_string(text, "buffers", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  char *msg;
  oracle_verdict v = judge(c, p, &msg);
  CHECK(v == V_UNSUPPORTED, "verdict %s (%s)", oracle_verdict_name(v), msg);
  char *cls = sig_error_class(msg);
  CHECK(strstr(cls, "module_state"), "the class names the field: %s", cls);
  free(cls);
  free(msg);
  ir_program_free(p);
}

TEST(worker_flooding_its_stderr_does_not_block) {
  const conv_converter *c = misbehave();
  expect(c, "flood", V_PASS, NULL);
}

TEST(worker_that_stops_reading_a_large_request_is_a_crash_not_a_sigpipe) {
  const conv_converter *c = conv_find("external:" MISBEHAVE " --exit-on-request");
  conv_worker_set_timeout(c, 5);
  ir_program *p = echo_program("", 1 << 20); /* a 5 MiB request line: the pipe fills */
  char *msg;
  oracle_verdict v = judge(c, p, &msg);
  CHECK(v == V_CRASH, "verdict %s (%s)", oracle_verdict_name(v), msg);
  CHECK(msg && strstr(msg, "exited with status 4"), "message: %s", msg);
  free(msg);
  ir_program_free(p);
}

/* hello_s: the seconds the worker has for its hello; short only where the case is that it never
 * comes (a loaded machine may take seconds to start Python: a worker that dies or answers at once
 * gets 60 s, and is not waited on) */
static void expect_unavailable(const char *args, double hello_s, const char *needle) {
  char name[512];
  snprintf(name, sizeof name, "external:" MISBEHAVE " %s", args);
  const conv_converter *c = conv_find(name);
  conv_worker_set_timeout(c, hello_s);
  conv_worker_set_timeouts(conv_worker_of(c), 0, hello_s);
  const char *why = NULL;
  int ok = c->available(c, &why);
  CHECK(!ok, "%s: unavailable", args);
  CHECK(why && strstr(why, needle), "%s: why names '%s': %s", args, needle, why ? why : "(null)");
  /* a program sent to it anyway is an error, and says why */
  char *msg;
  ir_program *p = echo_program("", 2);
  oracle_verdict v = judge(c, p, &msg);
  CHECK(v == V_ERROR && msg && strstr(msg, needle), "%s: a program gets converter-error naming why: %s %s", args,
        oracle_verdict_name(v), msg);
  free(msg);
  ir_program_free(p);
}

TEST(worker_dying_before_its_hello_is_unavailable_with_its_stderr) {
  expect_unavailable("--hello die", 60, "exited before its hello: exited with status 7");
  expect_unavailable("--hello die", 60, "dying before the hello, as asked");
}

TEST(worker_with_a_bad_hello_is_unavailable) {
  expect_unavailable("--hello garbage", 8, "said no proper hello: gave no hello within 8.0 s after 1 line on its stdout");
  expect_unavailable("--hello old-protocol", 60, "speaks protocol aliasfuzz-worker/0");
  expect_unavailable("--hello silent", 1.5, "gave no hello within 1.5 s");
  expect_unavailable("--hello unavailable", 60, "misbehave is unavailable, as asked");
}

TEST(missing_worker_program_is_unavailable) {
  const conv_converter *c = conv_find("external:/nonexistent/aliasfuzz-worker");
  const char *why = NULL;
  CHECK(!c->available(c, &why), "unavailable");
  CHECK(why && strstr(why, "exited before its hello: exited with status 127"), "why: %s", why ? why : "(null)");
}

TEST(tvm_worker_without_a_tvm_is_unavailable_with_the_reason) {
  const conv_converter *c = conv_find("tvm");
  CHECK(c != NULL, "tvm is registered");
  const char *pywhy = NULL, *py = conv_worker_python(&pywhy);
  if (!py) {
    const char *why = NULL;
    CHECK(c && !c->available(c, &why) && why && strstr(why, "can import torch"), "no Python with torch here, and tvm says so: %s",
          why ? why : "");
    return;
  }
  /* the worker as the build starts it, told to take TVM from a folder that has none */
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "external:env AF_TVM_HOME=/nonexistent/tvm %s %s/harness/workers/worker_tvm.py", py, AF_SOURCE_DIR);
  const conv_converter *e = conv_find(cmd);
  const char *why = NULL;
  CHECK(!e->available(e, &why), "unavailable");
  /* on 2.x the stack itself is the first reason (Relay predates torch 2.x); on 1.13 the folder */
  const char *want = strcmp(at_stack(), "torch-1.13") ? "runs on the PyTorch 1.13 stack" : "AF_TVM_HOME=/nonexistent/tvm has no TVM";
  CHECK(why && strstr(why, want), "why names '%s': %s", want, why ? why : "(null)");
}

/* ---- real workers (`test_workers real`) ---- */

static void expect_file(const char *conv, const char *file, oracle_verdict want, const char *needle) {
  const conv_converter *c = conv_find(conv);
  const char *why = NULL;
  if (!c || !c->available(c, &why)) {
    CHECK(0, "%s is available: %s", conv, why ? why : "not registered");
    return;
  }
  ir_program *p = NULL;
  af_err err;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", AF_SOURCE_DIR, file);
  if (codec_read_file(path, &p, &err)) {
    CHECK(0, "%s", err.msg);
    return;
  }
  char *msg;
  oracle_verdict v = judge(c, p, &msg);
  CHECK(v == want, "%s on %s: %s, want %s (%s)", conv, file, oracle_verdict_name(v), oracle_verdict_name(want), msg);
  if (needle) CHECK(msg && strstr(msg, needle), "%s on %s: message names '%s': %s", conv, file, needle, msg);
  free(msg);
  ir_program_free(p);
}

TEST(onnx_passes_slice_assignment_into_an_input) {
  expect_file("onnx", "corpus/seed/design-001-slice-assign-input.json", V_PASS, NULL);
}

TEST(onnx_export_of_a_write_through_a_view_of_a_view_is_a_converter_error) {
  expect_file("onnx", "corpus/seed/design-002-view-of-view-write.json", V_ERROR, "INTERNAL ASSERT");
}

TEST(onnx_keeps_the_exporter_warning_that_the_graph_changed_meaning) {
  const conv_converter *c = conv_find("onnx");
  ir_program *p = NULL;
  af_err err;
  result r;
  CHECK(codec_read_file(AF_SOURCE_DIR "/corpus/seed/design-005-inplace-on-input.json", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  CHECK(conv_execute(c, p, &r, &err) == 0 && r.status == RESULT_OK, "runs: %s", r.message ? r.message : "");
  CHECK(r.graph && strstr(r.graph, "# warning: ") && strstr(r.graph, "changes graph semantics"),
        "the exporter's warning heads the graph text: %.300s", r.graph ? r.graph : "(null)");
  CHECK(r.ninputs == 1 && r.inputs[0] != NULL, "the final input state is expressed (returned by the wrapper)");
  result_clear(&r);
  ir_program_free(p);
}

TEST(functorch_passes_a_write_through_a_view_of_a_view) {
  expect_file("functorch", "corpus/seed/design-002-view-of-view-write.json", V_PASS, NULL);
}

/* A worker built on afworker (tests/workers/layout_eager.py, real PyTorch) that a program leaves
 * broken: the next program segfaults in native code (ctypes). afworker's faulthandler names the
 * Python frames, the crash is charged to the poisoner, and the next program passes. */
TEST(afworker_worker_left_broken_by_a_program_charges_it_and_names_the_python_frames) {
  const char *why = NULL, *py = conv_worker_python(&why);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "external:%s %s/tests/workers/layout_eager.py --breaks-after-poison", py ? py : "python3",
           AF_SOURCE_DIR);
  const conv_converter *c = conv_find(cmd);
  conv_worker_set_timeout(c, 120);
  conv_worker *w = conv_worker_of(c);
  char *msg;
  oracle_verdict v = judge_tagged(c, "", "first", &msg);
  CHECK(v == V_PASS, "a plain program passes: %s %s", oracle_verdict_name(v), msg);
  free(msg);
  v = judge_tagged(c, "poison", "poisoner", &msg);
  CHECK(v == V_PASS, "the poisoner answers right: %s %s", oracle_verdict_name(v), msg);
  free(msg);
  v = judge_tagged(c, "", "innocent", &msg);
  CHECK(v == V_PASS, "the next program passes: %s %s", oracle_verdict_name(v), msg);
  free(msg);
  conv_worker_blame b;
  CHECK(conv_worker_take_blame(w, &b) == 1 && b.tag && !strcmp(b.tag, "poisoner"), "charged to the poisoner: %s",
        b.tag ? b.tag : "(none)");
  char *site = conv_worker_crash_site(b.detail);
  CHECK(site && strstr(site, "layout_eager.py:read_freed_memory <- layout_eager.py:convert"), "frames: %s (%s)",
        site ? site : "(none)", b.detail ? b.detail : "");
  free(site);
  conv_worker_blame_clear(&b);
  conv_worker_set_tag(w, NULL);
}

/* ---- the tvm worker against a real TVM (`test_workers tvm`) ---- */

static ir_program *program_text(const char *text) {
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(text, "test", &p, &err)) fprintf(stderr, "program_text: %s\n", err.msg);
  return p;
}

/* torch.cat([x, y], 0); torch.gt(x, y): TVM 0.14 gives main the parameters x, x, y, y */
static const char *cat_then_gt =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2, 3], \"dtype\": \"float32\"}, "
    "{\"name\": \"y\", \"shape\": [2, 3], \"dtype\": \"float32\"}], \"body\": ["
    "{\"out\": \"c\", \"op\": \"cat\", \"args\": [[\"x\", \"y\"], 0]}, {\"out\": \"g\", \"op\": \"gt\", \"args\": [\"x\", \"y\"]}], "
    "\"outputs\": [\"c\", \"g\"]}";

/* the tvm worker as the build starts it, with more arguments (its own converter and process) */
static const conv_converter *tvm_with(const char *args) {
  const char *why = NULL, *py = conv_worker_python(&why);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "external:%s %s/harness/workers/worker_tvm.py %s", py ? py : "python3", AF_SOURCE_DIR, args);
  const conv_converter *c = conv_find(cmd);
  conv_worker_set_timeout(c, 120);
  return c;
}

static void expect_program(const conv_converter *c, const char *what, ir_program *p, oracle_verdict want,
                           const char *needle) {
  const char *why = NULL;
  if (!p || !c->available(c, &why)) {
    CHECK(0, "%s: %s", what, why ? why : "no program");
    ir_program_free(p);
    return;
  }
  char *msg;
  oracle_verdict v = judge(c, p, &msg);
  CHECK(v == want, "%s: %s, want %s (%s)", what, oracle_verdict_name(v), oracle_verdict_name(want), msg);
  if (needle) CHECK(msg && strstr(msg, needle), "%s: message names '%s': %s", what, needle, msg);
  free(msg);
  ir_program_free(p);
}

TEST(tvm_is_available_with_relay_and_says_where_its_tvm_comes_from) {
  const conv_converter *c = conv_find("tvm");
  const char *why = NULL;
  CHECK(c && c->available(c, &why), "tvm is available: %s", why ? why : "");
  const char *v = c ? c->version(c) : "";
  CHECK(strstr(v, "tvm 0.1") && strstr(v, "tvm_from ") && strstr(v, "executor interp"), "version: %s", v);
}

TEST(tvm_unsqueeze_in_place_is_a_shape_mismatch_5x5_against_eager_5x5x1) {
  const conv_converter *c = conv_find("tvm");
  ir_program *p = NULL;
  af_err err;
  result eager, conv;
  result_init(&eager);
  result_init(&conv);
  CHECK(codec_read_file(AF_SOURCE_DIR "/corpus/seed/design-003-unsqueeze-inplace.json", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  CHECK(eager_run(p, &eager, &err) == 0 && conv_execute(c, p, &conv, &err) == 0, "runs: %s", err.msg);
  char *detail = NULL;
  oracle_verdict v = oracle_judge(p, &eager, &conv, NULL, &detail);
  CHECK(v == V_SHAPE_MISMATCH, "verdict %s (%s)", oracle_verdict_name(v), detail ? detail : "");
  CHECK(detail && strstr(detail, "output 0 (r): shape [5, 5], eager [5, 5, 1]"), "detail: %s", detail ? detail : "");
  free(detail);
  result_clear(&eager);
  result_clear(&conv);
  ir_program_free(p);
}

TEST(tvm_feeds_every_parameter_of_an_input_used_twice_in_the_interpreter) {
  expect_program(conv_find("tvm"), "cat then gt (interp)", program_text(cat_then_gt), V_PASS, NULL);
}

TEST(tvm_feeds_every_parameter_of_an_input_used_twice_in_the_graph_executor) {
  /* fed by name, one x and one y stayed uninitialised: garbage, another each run */
  const conv_converter *c = tvm_with("--executor compiled");
  for (int i = 0; i < 3; i++) expect_program(c, "cat then gt (graph executor)", program_text(cat_then_gt), V_PASS, NULL);
}

TEST(tvm_names_the_parameters_the_frontend_left_free_after_a_loop) {
  expect_file("tvm", "corpus/seed/i9-cf-018-cat-after-inplace-in-loop.json", V_ERROR,
              "main has parameters %a.1, %b.1 that are no program input nor bound weight");
  /* the VM was handed fewer arguments than parameters ("number of provided parameters doesn't match") */
  const conv_converter *c = tvm_with("--executor compiled");
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_file(AF_SOURCE_DIR "/corpus/seed/i9-cf-018-cat-after-inplace-in-loop.json", &p, &err) == 0, "%s", err.msg);
  expect_program(c, "i9-cf-018 (vm)", p, V_ERROR, "%a.1, %b.1");
}

static void expect_clean_message(const char *file, const char *needle) {
  const conv_converter *c = conv_find("tvm");
  ir_program *p = NULL;
  af_err err;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", AF_SOURCE_DIR, file);
  CHECK(codec_read_file(path, &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  char *msg;
  oracle_verdict v = judge(c, p, &msg);
  CHECK(v == V_ERROR, "%s: %s (%s)", file, oracle_verdict_name(v), msg ? msg : "");
  CHECK(msg && strstr(msg, needle), "%s: TVM's own message '%s': %s", file, needle, msg ? msg : "");
  int stamp = 0;
  for (const char *m = msg; m && *m; m++)
    if (m[0] == '[' && m[1] >= '0' && m[1] <= '9' && m[3] == ':' && m[6] == ':') stamp = 1;
  CHECK(msg && !strstr(msg, "[bt]") && !strstr(msg, "Traceback") && !strstr(msg, "/src/") && !strstr(msg, "/include/") &&
            !strstr(msg, ".so(") && !stamp,
        "%s: no backtrace frames, paths or log timestamps: %s", file, msg ? msg : "");
  free(msg);
  ir_program_free(p);
}

TEST(tvm_reports_tvms_own_message_without_backtrace_frames_paths_or_timestamps) {
  expect_clean_message("corpus/conformance/meta-squeeze_-base-then-view.json",
                       "from_pytorch: InternalError: Check failed: *axis_ptr == 1 (4 vs. 1) : cannot squeeze axis with "
                       "dimension not equal to 1");
  expect_clean_message("corpus/conformance/ch2-t-getitem-fill_-through.json",
                       "error while converting argument 1: packed_func.h:");
}

TEST(tvm_names_the_missing_operators_in_one_order_whatever_the_process_hash_seed) {
  /* the frontend lists them from a set of strings, whose order follows the per-process hash seed */
  const char *seeds[] = {"1", "3", "5", "6"};
  for (int i = 0; i < 4; i++) {
    const char *why = NULL, *py = conv_worker_python(&why);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "external:env PYTHONHASHSEED=%s %s %s/harness/workers/worker_tvm.py", seeds[i],
             py ? py : "python3", AF_SOURCE_DIR);
    const conv_converter *c = conv_find(cmd);
    ir_program *p = NULL;
    af_err err;
    CHECK(codec_read_file(AF_SOURCE_DIR "/corpus/seed/design-001-slice-assign-input.json", &p, &err) == 0, "%s", err.msg);
    expect_program(c, "design-001 with PYTHONHASHSEED", p, V_UNSUPPORTED,
                   "The following operators are not implemented: ['aten::copy_', 'prim::dtype']");
    conv_worker_shutdown_all();
  }
}

/* Writes the repro.py of program file (as found with verdict) into dir, runs it with the build's
 * Python and the worker's TVM; returns its exit status, its output in *out (new). */
static int run_repro(const char *file, const char *verdict, const char *dir, char **out) {
  const conv_converter *c = conv_find("tvm");
  ir_program *p = NULL;
  af_err err;
  char path[1024], cmd[4096];
  *out = NULL;
  snprintf(path, sizeof path, "%s/%s", AF_SOURCE_DIR, file);
  if (codec_read_file(path, &p, &err)) return -1;
  repro_info ri = {"tvm", c->version(c), verdict, NULL, c->repro_py, NULL, "test_workers tvm"};
  char *py = emit_repro_py(p, &ri);
  ir_program_free(p);
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  if (system(cmd) != 0) return -1;
  snprintf(path, sizeof path, "%s/repro.py", dir);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(py, f);
  fclose(f);
  free(py);
  const char *why = NULL, *python = conv_worker_python(&why);
  const char *home = getenv("AF_TVM_HOME");
  snprintf(cmd, sizeof cmd, "cd %s && AF_TVM_HOME=%s %s repro.py > out.txt 2>&1", dir,
           home ? home : AF_SOURCE_DIR "/.tvm/tvm-0.14.0", python ? python : "python3");
  int st = system(cmd);
  snprintf(path, sizeof path, "%s/out.txt", dir);
  f = fopen(path, "r");
  if (f) {
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    *out = strdup(text);
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_repro(const char *file, const char *verdict, int want, const char *needle) {
  char dir[256], *out;
  snprintf(dir, sizeof dir, "%s/tvm-repro-%d", AF_BINARY_DIR, (int)getpid());
  int rc = run_repro(file, verdict, dir, &out);
  const char *tail = out && strlen(out) > 1500 ? out + strlen(out) - 1500 : out;
  CHECK(rc == want, "repro.py of %s (%s) exits %d, want %d: ...%s", file, verdict, rc, want, tail ? tail : "");
  if (needle) CHECK(out && strstr(out, needle), "repro.py of %s prints '%s': ...%s", file, needle, tail ? tail : "");
  free(out);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

TEST(tvm_repro_py_reproduces_the_unsqueeze_shape_mismatch) {
  expect_repro("corpus/seed/design-003-unsqueeze-inplace.json", "shape-mismatch", 1, "shape [5, 5], eager [5, 5, 1]");
}

TEST(tvm_repro_py_runs_a_loop_program_as_the_worker_does) {
  /* the graph executor cannot run a loop: "Expected the operator to be a global var, but got relay.Let" */
  expect_repro("corpus/seed/i9-cf-018-cat-after-inplace-in-loop.json", "converter-error", 1, "%a.1, %b.1");
}

TEST(tvm_repro_py_of_a_buffer_program_is_unsupported_as_in_the_worker) {
  expect_repro("corpus/seed/i9-cf-049-buffer-running-mean-batchnorm.json", "converter-unsupported", 1,
               "module state (buffers)");
}

TEST(tvm_repro_py_of_a_timeout_does_not_pass_off_another_failure_as_the_timeout) {
  /* the program is unsupported: that is not the timeout it was found as */
  expect_repro("corpus/seed/design-001-slice-assign-input.json", "converter-timeout", 2, "a different failure");
}

/* The worker registry (harness/converters/workers.def) and the workers folder agree: every
 * worker_*.py there has a WORKER line, and every line's script is there, its converter registered
 * under its name. A worker file without a registry line is a converter nobody can select. */
TEST(every_worker_script_has_a_registry_line_and_every_line_its_script) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/harness/workers", AF_SOURCE_DIR);
  DIR *d = opendir(dir);
  CHECK(d != NULL, "cannot list %s", dir);
  if (!d) return;
  int scripts = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (strncmp(e->d_name, "worker_", 7) != 0 || n < 4 || strcmp(e->d_name + n - 3, ".py") != 0) continue;
    scripts++;
    int lines = 0;
    for (int i = 0; i < conv_worker_named_count(); i++) lines += strcmp(conv_worker_named(i)->script, e->d_name) == 0;
    CHECK(lines == 1, "harness/workers/%s has %d WORKER lines in harness/converters/workers.def (one wanted)", e->d_name,
          lines);
  }
  closedir(d);
  CHECK(scripts == conv_worker_named_count(), "%d worker_*.py files, %d registry lines", scripts,
        conv_worker_named_count());
  for (int i = 0; i < conv_worker_named_count(); i++) {
    const conv_worker_entry *e = conv_worker_named(i);
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, e->script);
    CHECK(access(path, R_OK) == 0, "workers.def names %s for %s, which is not in harness/workers", e->script,
          e->c->name);
    CHECK(conv_find(e->c->name) == e->c, "converter %s of workers.def is not registered under its name", e->c->name);
  }
}

int main(int argc, char **argv) {
  at_init();
  if (argc > 1 && strcmp(argv[1], "registry") == 0) {
    RUN(every_worker_script_has_a_registry_line_and_every_line_its_script);
    return tap_done();
  }
  if (argc > 1 && strcmp(argv[1], "real") == 0) {
    RUN(onnx_passes_slice_assignment_into_an_input);
    RUN(onnx_export_of_a_write_through_a_view_of_a_view_is_a_converter_error);
    RUN(onnx_keeps_the_exporter_warning_that_the_graph_changed_meaning);
    RUN(functorch_passes_a_write_through_a_view_of_a_view);
    RUN(afworker_worker_left_broken_by_a_program_charges_it_and_names_the_python_frames);
    return tap_done();
  }
  if (argc > 1 && strcmp(argv[1], "tvm") == 0) {
    RUN(tvm_is_available_with_relay_and_says_where_its_tvm_comes_from);
    RUN(tvm_unsqueeze_in_place_is_a_shape_mismatch_5x5_against_eager_5x5x1);
    RUN(tvm_feeds_every_parameter_of_an_input_used_twice_in_the_interpreter);
    RUN(tvm_feeds_every_parameter_of_an_input_used_twice_in_the_graph_executor);
    RUN(tvm_names_the_parameters_the_frontend_left_free_after_a_loop);
    RUN(tvm_reports_tvms_own_message_without_backtrace_frames_paths_or_timestamps);
    RUN(tvm_names_the_missing_operators_in_one_order_whatever_the_process_hash_seed);
    RUN(tvm_repro_py_reproduces_the_unsqueeze_shape_mismatch);
    RUN(tvm_repro_py_runs_a_loop_program_as_the_worker_does);
    RUN(tvm_repro_py_of_a_buffer_program_is_unsupported_as_in_the_worker);
    RUN(tvm_repro_py_of_a_timeout_does_not_pass_off_another_failure_as_the_timeout);
    return tap_done();
  }
  RUN(external_names_resolve_to_one_converter_per_command);
  RUN(worker_is_kept_alive_across_programs);
  RUN(worker_exiting_mid_request_is_a_crash_and_the_next_request_works);
  RUN(worker_killed_by_a_signal_is_a_crash_and_the_next_request_works);
  RUN(worker_crash_names_its_innermost_python_frames_without_line_numbers);
  RUN(worker_left_broken_by_a_program_charges_the_crash_to_it_and_the_next_program_passes);
  RUN(worker_crashing_on_its_first_program_is_charged_without_a_rerun);
  RUN(run_and_check_charge_a_worker_crash_to_the_file_that_left_the_worker_broken);
  RUN(worker_hanging_past_the_deadline_is_a_timeout_and_is_killed);
  RUN(worker_eating_memory_past_its_cap_is_a_crash_naming_the_cap_and_is_killed);
  RUN(worker_dies_with_the_process_that_started_it_when_that_is_killed_mid_request);
  RUN(worker_printing_invalid_json_instead_of_an_answer_is_a_protocol_error_and_the_next_request_works);
  RUN(worker_answering_wrong_tensor_sizes_is_a_protocol_error_and_the_next_request_works);
  RUN(worker_answering_another_request_id_is_a_protocol_error);
  RUN(worker_answering_the_wrong_number_of_outputs_is_a_protocol_error_not_a_converter_bug);
  RUN(worker_writing_a_stray_stdout_line_before_each_answer_is_served_without_restarts);
  RUN(program_with_buffers_for_a_worker_without_module_state_names_the_field_in_its_class);
  RUN(worker_flooding_its_stderr_does_not_block);
  RUN(worker_that_stops_reading_a_large_request_is_a_crash_not_a_sigpipe);
  RUN(worker_dying_before_its_hello_is_unavailable_with_its_stderr);
  RUN(worker_with_a_bad_hello_is_unavailable);
  RUN(missing_worker_program_is_unavailable);
  RUN(tvm_worker_without_a_tvm_is_unavailable_with_the_reason);
  return tap_done();
}
