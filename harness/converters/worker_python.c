/* worker_python.c - which Python runs the named workers (conv_worker_python): AF_PYTHON, or the
 * first candidate whose torch is this build's stack's. */
#define _GNU_SOURCE
#include "worker_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../torch/shim.h"

/* ---- Python ---- */

/* Asks py, quietly, which torch it has (importlib.metadata: it reads the package's version
 * without importing torch, which would cost a second; a torch that is there but broken shows up in
 * the worker's hello instead). 1 with the version in ver (as pip spells it: "2.13.0+cpu"), within
 * the time limit; 0 with why. */
static int python_torch_version(const char *py, char *ver, size_t verlen, char *why, size_t whylen) {
  int fds[2];
  if (pipe(fds) != 0) {
    snprintf(why, whylen, "%s: pipe: %s", py, strerror(errno));
    return 0;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const char *argv[] = {py, "-c",
                        "import importlib.metadata as m, importlib.util as u, sys\n"
                        "if u.find_spec('torch') is None: sys.exit(1)\n"
                        "print(m.version('torch'))",
                        NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, py, &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc) {
    close(fds[0]);
    snprintf(why, whylen, "%s: %s", py, strerror(rc));
    return 0;
  }
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  char out[128];
  size_t n = 0;
  int st = 0, done = 0;
  double deadline = worker_now_s() + worker_env_seconds("AF_WORKER_START_TIMEOUT", 120);
  while (!done) {
    ssize_t k = read(fds[0], out + n, sizeof out - 1 - n);
    if (k > 0) n += (size_t)k;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) done = 1;
    else if (worker_now_s() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      close(fds[0]);
      snprintf(why, whylen, "%s: looking for torch took too long", py);
      return 0;
    } else if (k <= 0) worker_sleep_ms(10);
  }
  ssize_t k;
  while (n < sizeof out - 1 && (k = read(fds[0], out + n, sizeof out - 1 - n)) > 0) n += (size_t)k;
  close(fds[0]);
  out[n] = 0;
  out[strcspn(out, "\r\n")] = 0;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && out[0]) {
    snprintf(ver, verlen, "%s", out);
    return 1;
  }
  snprintf(why, whylen, "%s: has no torch", py);
  return 0;
}

/* The release part of a version ("2.13.0" of "2.13.0+cpu", "1.13.0" of "1.13.0a0+gitunknown"):
 * one PyTorch per build means the worker's torch and the build's LibTorch agree on it. */
static void torch_release(const char *v, char *out, size_t outlen) {
  size_t n = strspn(v, "0123456789.");
  if (n >= outlen) n = outlen - 1;
  memcpy(out, v, n);
  out[n] = 0;
  while (n && out[n - 1] == '.') out[--n] = 0;
}

/* 1 when py has this build's torch; else 0 and why. */
static int python_has_stack_torch(const char *py, char *why, size_t whylen) {
  char ver[128], got[64], want[64];
  if (!python_torch_version(py, ver, sizeof ver, why, whylen)) return 0;
  torch_release(ver, got, sizeof got);
  torch_release(at_version(), want, sizeof want);
  if (strcmp(got, want) == 0) return 1;
  snprintf(why, whylen, "%s: has torch %s, but this build's LibTorch is %s (%s; one PyTorch per build)", py, ver,
           at_version(), at_stack_origin());
  return 0;
}

static pthread_mutex_t python_mu = PTHREAD_MUTEX_INITIALIZER;

const char *conv_worker_python(const char **why) {
  static int done;
  static char path[1024], reason[2048];
  pthread_mutex_lock(&python_mu);
  if (!done) {
    done = 1;
    const char *env = getenv("AF_PYTHON");
    char one[600];
    if (env && *env) {
      if (python_has_stack_torch(env, one, sizeof one)) snprintf(path, sizeof path, "%s", env);
      else snprintf(reason, sizeof reason, "AF_PYTHON=%s cannot be used (%s)", env, one);
    } else {
      /* the build's own Python first (baked in by CMake), then the usual names */
      const char *cands[] = {at_stack_python(), "python3", "/usr/bin/python3", "/usr/local/bin/python3", "python"};
      af_buf tried = {0};
      for (size_t i = 0; i < sizeof cands / sizeof cands[0] && !path[0]; i++) {
        if (python_has_stack_torch(cands[i], one, sizeof one)) snprintf(path, sizeof path, "%s", cands[i]);
        else af_buf_printf(&tried, "%s%s", tried.len ? "; " : "", one);
      }
      if (!path[0])
        snprintf(reason, sizeof reason,
                 "no Python interpreter has this build's torch %s (tried %s); run scripts/setup.sh or set AF_PYTHON",
                 at_version(), tried.s ? tried.s : "nothing");
      af_buf_free(&tried);
    }
  }
  pthread_mutex_unlock(&python_mu);
  if (why) *why = path[0] ? NULL : reason;
  return path[0] ? path : NULL;
}
