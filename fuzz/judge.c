/* judge.c - see judge.h */
#include "judge.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../harness/eager.h"
#include "../oracle/signature.h"

void judgement_clear(judgement *j) {
  free(j->detail);
  free(j->graph);
  memset(j, 0, sizeof *j);
}

int judge_inprocess(const conv_converter *c, const ir_program *p, const oracle_opts *o, judgement *out, af_err *err) {
  memset(out, 0, sizeof *out);
  result e, r;
  result_init(&e);
  result_init(&r);
  int rc = eager_run(p, &e, err);
  if (!rc && e.status == RESULT_OK) rc = conv_execute(c, p, &r, err);
  if (!rc) {
    out->verdict = oracle_judge(p, &e, &r, o, &out->detail);
    out->residual = r.residual;
    if (r.graph) out->graph = af_xstrdup(r.graph);
  }
  result_clear(&e);
  result_clear(&r);
  return rc;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int judge_isolated(const conv_converter *c, const ir_program *p, const oracle_opts *o, double deadline_s, judgement *out,
                   af_err *err) {
  memset(out, 0, sizeof *out);
  int fd[2];
  if (pipe(fd) != 0) return af_fail(err, "pipe: %s", strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return af_fail(err, "fork: %s", strerror(errno));
  }
  if (pid == 0) {
    close(fd[0]);
    judgement j;
    af_err e2;
    int rc = judge_inprocess(c, p, o, &j, &e2);
    af_buf b = {0};
    if (rc) af_buf_printf(&b, "E %s", e2.msg);
    else af_buf_printf(&b, "V %d %d %s", (int)j.verdict, j.residual, j.detail ? j.detail : "");
    ssize_t w = write(fd[1], b.s, b.len);
    (void)w;
    _exit(0);
  }
  close(fd[1]);
  af_buf b = {0};
  double t0 = now_s();
  int timed_out = 0;
  for (;;) {
    double left = deadline_s - (now_s() - t0);
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    struct pollfd pf = {fd[0], POLLIN, 0};
    int n = poll(&pf, 1, (int)(left * 1000) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) continue;
    char chunk[4096];
    ssize_t got = read(fd[0], chunk, sizeof chunk - 1);
    if (got <= 0) break;
    chunk[got] = 0;
    af_buf_puts(&b, chunk);
  }
  close(fd[0]);
  int status = 0;
  if (timed_out) kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int rc = 0;
  if (timed_out) {
    out->verdict = V_TIMEOUT;
    char msg[128];
    snprintf(msg, sizeof msg, "no answer within %.1f s", deadline_s);
    out->detail = af_xstrdup(msg);
  } else if (b.s && b.s[0] == 'V') {
    int v = 0, res = -1, off = 0;
    sscanf(b.s, "V %d %d %n", &v, &res, &off);
    out->verdict = (oracle_verdict)v;
    out->residual = res;
    out->detail = b.s[off] ? af_xstrdup(b.s + off) : NULL;
  } else if (b.s && b.s[0] == 'E') {
    rc = af_fail(err, "%s", b.s + 2);
  } else {
    out->verdict = V_CRASH;
    char msg[128];
    if (WIFSIGNALED(status)) snprintf(msg, sizeof msg, "converter process killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else snprintf(msg, sizeof msg, "converter process exited with status %d before answering", WEXITSTATUS(status));
    out->detail = af_xstrdup(msg);
  }
  af_buf_free(&b);
  return rc;
}

int judge_same_bug(const judgement *a, oracle_verdict v, const char *detail) {
  if (a->verdict != v) return 0;
  if (v == V_ERROR || v == V_UNSUPPORTED || v == V_INVALID_PROGRAM) {
    char *x = sig_error_class(a->detail), *y = sig_error_class(detail);
    int same = strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
  }
  return 1;
}
