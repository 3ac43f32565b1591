/* conv_worker.c - the worker's process life (conv_worker.h): spawn in its own process group,
 * deadlines (poll on the pipes), the resident-memory cap, the stderr drain, the hello, one
 * request and its answer, restarts. The wire format is worker_wire.c's, crash attribution
 * worker_crash.c's (worker_impl.h lists the files). */
#define _GNU_SOURCE
#include "worker_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- small helpers ---- */

double worker_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void worker_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

double worker_env_seconds(const char *var, double dflt) {
  const char *s = getenv(var);
  if (!s || !*s) return dflt;
  char *end;
  double v = strtod(s, &end);
  return (*end || !(v > 0)) ? dflt : v;
}

static void ignore_sigpipe(void) {
  struct sigaction sa;
  if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
  }
}

/* The last few non-empty lines of the worker's stderr, joined by " | ", bounded; new. */
char *worker_err_summary(const conv_worker *w) {
  size_t start = w->errlen > 600 ? w->errlen - 600 : 0;
  af_buf b = {0};
  char *copy = af_xmalloc(w->errlen - start + 1);
  memcpy(copy, w->errtail + start, w->errlen - start);
  copy[w->errlen - start] = 0;
  /* keep the last 4 non-empty lines */
  const char *lines[4] = {0};
  int nl = 0;
  for (char *save = NULL, *tok = strtok_r(copy, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
    while (*tok == ' ' || *tok == '\t' || *tok == '\r') tok++;
    if (!*tok) continue;
    if (nl == 4) memmove(lines, lines + 1, sizeof lines[0] * 3), nl = 3;
    lines[nl++] = tok;
  }
  for (int i = 0; i < nl; i++) af_buf_printf(&b, "%s%s", i ? " | " : "", lines[i]);
  free(copy);
  return af_buf_take(&b);
}

static void err_append(conv_worker *w, const char *d, size_t n) {
  static int forward = -1;
  if (forward < 0) forward = getenv("AF_WORKER_STDERR") && strcmp(getenv("AF_WORKER_STDERR"), "0") != 0;
  if (forward) fwrite(d, 1, n, stderr);
  if (n > WORKER_ERR_TAIL) {
    d += n - WORKER_ERR_TAIL;
    n = WORKER_ERR_TAIL;
  }
  if (w->errlen + n > WORKER_ERR_TAIL) {
    size_t drop = w->errlen + n - WORKER_ERR_TAIL;
    memmove(w->errtail, w->errtail + drop, w->errlen - drop);
    w->errlen -= drop;
  }
  memcpy(w->errtail + w->errlen, d, n);
  w->errlen += n;
}

/* Reads what stderr has now (non-blocking); closes it at end of file. */
static void drain_stderr(conv_worker *w) {
  char chunk[4096];
  while (w->err_fd >= 0) {
    ssize_t k = read(w->err_fd, chunk, sizeof chunk);
    if (k > 0) {
      err_append(w, chunk, (size_t)k);
    } else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
      close(w->err_fd);
      w->err_fd = -1;
    } else if (errno == EAGAIN) {
      break;
    }
  }
}

/* ---- resident memory ---- */

/* The cap on a worker's resident memory in MiB: AF_WORKER_RSS_MB when set (0: no cap), else a
 * quarter of the machine's memory, so that two jobs' workers and the eager runner fit. A compile
 * that blows up is then a converter-crash finding naming the cap, not a machine that swaps or an
 * OOM killer that picks the campaign. */
static long default_rss_cap_mb(void) {
  const char *e = getenv("AF_WORKER_RSS_MB");
  if (e && *e) {
    char *end;
    long v = strtol(e, &end, 10);
    if (*end == 0 && v >= 0) return v;
  }
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (long)((double)pages * (double)size / 4 / 1048576.0) : 0;
}

/* Resident memory (KiB) of pid and its descendants (threads' children lists under /proc; a
 * process that is gone counts 0). depth bounds a runaway tree. */
static long tree_rss_kb(pid_t pid, int depth) {
  char path[96];
  snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  long size = 0, resident = 0;
  int ok = fscanf(f, "%ld %ld", &size, &resident) == 2;
  fclose(f);
  long kb = ok ? resident * (sysconf(_SC_PAGESIZE) / 1024) : 0;
  if (depth <= 0) return kb;
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  if (!d) return kb;
  for (struct dirent *t; (t = readdir(d));) {
    if (t->d_name[0] == '.') continue;
    char cpath[160];
    snprintf(cpath, sizeof cpath, "/proc/%d/task/%.20s/children", (int)pid, t->d_name);
    FILE *c = fopen(cpath, "r");
    if (!c) continue;
    for (int child; fscanf(c, "%d", &child) == 1;) kb += tree_rss_kb((pid_t)child, depth - 1);
    fclose(c);
  }
  closedir(d);
  return kb;
}

void conv_worker_set_rss_cap(conv_worker *w, long mb) { w->rss_cap_mb = mb > 0 ? mb : 0; }

/* ---- process lifetime ---- */

conv_worker *conv_worker_new(const char *name, const char *const *argv) {
  conv_worker *w = af_xcalloc(1, sizeof *w);
  int n = 0;
  while (argv[n]) n++;
  w->argv = af_xcalloc((size_t)n + 1, sizeof(char *));
  for (int i = 0; i < n; i++) w->argv[i] = af_xstrdup(argv[i]);
  w->name = af_xstrdup(name);
  w->timeout_s = worker_env_seconds("AF_WORKER_TIMEOUT", 30);
  w->hello_timeout_s = worker_env_seconds("AF_WORKER_START_TIMEOUT", 120);
  w->rss_cap_mb = default_rss_cap_mb();
  w->in_fd = w->out_fd = w->err_fd = -1;
  pthread_mutex_init(&w->mu, NULL);
  return w;
}

conv_worker *conv_worker_new_shell(const char *name, const char *command) {
  /* A simple command is exec'd by the shell, so the worker is our child itself and its death by
   * a signal reads as such (not as a shell's exit status 128+N). */
  af_buf b = {0};
  af_buf_printf(&b, "%s%s", strpbrk(command, ";&|()`\n") ? "" : "exec ", command);
  const char *argv[] = {"/bin/sh", "-c", b.s, NULL};
  conv_worker *w = conv_worker_new(name, argv);
  af_buf_free(&b);
  return w;
}

void conv_worker_set_timeouts(conv_worker *w, double request_s, double hello_s) {
  if (request_s > 0) w->timeout_s = request_s;
  if (hello_s > 0) w->hello_timeout_s = hello_s;
}

int conv_worker_starts(const conv_worker *w) { return w->starts; }
int conv_worker_pid(const conv_worker *w) { return w->owner == getpid() ? (int)w->pid : 0; }

static void close_fds(conv_worker *w) {
  if (w->in_fd >= 0) close(w->in_fd);
  if (w->out_fd >= 0) close(w->out_fd);
  if (w->err_fd >= 0) close(w->err_fd);
  w->in_fd = w->out_fd = w->err_fd = -1;
  w->rlen = 0;
}

/* A forked child must not talk to its parent's worker: forget it (without killing it). */
static void check_owner(conv_worker *w) {
  if (w->pid && w->owner != getpid()) {
    close_fds(w);
    w->pid = 0;
  }
}

/* Kills the process group and reaps the worker; *status gets its wait status. */
void worker_kill(conv_worker *w, int *status) {
  int st = 0;
  if (w->pid) {
    kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
    }
  }
  drain_stderr(w);
  close_fds(w);
  w->pid = 0;
  if (status) *status = st;
}

/* Waits up to ms for the worker to exit by itself, then kills it. Reaps it either way. */
static void reap_worker(conv_worker *w, int ms, int *status) {
  int st = 0;
  for (int waited = 0; w->pid; waited += 10) {
    siginfo_t si;
    si.si_pid = 0;
    int r = waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 || si.si_pid == w->pid) {
      /* exited (a zombie still holds its group id): end anything it left behind in its group,
       * such as a runtime helper, then reap it */
      kill(-w->pid, SIGKILL);
      while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
      }
      w->pid = 0;
      break;
    }
    if (waited >= ms) {
      worker_kill(w, &st);
      break;
    }
    drain_stderr(w);
    worker_sleep_ms(10);
  }
  drain_stderr(w);
  close_fds(w);
  if (status) *status = st;
}

void worker_stop(conv_worker *w) {
  check_owner(w);
  if (!w->pid) return;
  close(w->in_fd); /* end of input: a worker exits by itself */
  w->in_fd = -1;
  reap_worker(w, 300, NULL);
}

void conv_worker_free(conv_worker *w) {
  if (!w) return;
  worker_stop(w);
  close_fds(w);
  for (int i = 0; w->argv[i]; i++) free(w->argv[i]);
  free(w->argv);
  free(w->name);
  free(w->rbuf);
  free(w->why);
  free(w->version);
  free(w->refuses);
  worker_hist_clear(w);
  free(w->tag);
  conv_worker_blame_clear(&w->blame);
  pthread_mutex_destroy(&w->mu);
  free(w);
}

static void describe_status(af_buf *b, int st) {
  if (WIFEXITED(st)) af_buf_printf(b, "exited with status %d", WEXITSTATUS(st));
  else if (WIFSIGNALED(st)) af_buf_printf(b, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else af_buf_puts(b, "stopped");
}

static int spawn_worker(conv_worker *w, af_err *err) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(er, O_CLOEXEC)) {
    int e = errno;
    for (int i = 0; i < 2; i++) {
      if (in[i] >= 0) close(in[i]);
      if (out[i] >= 0) close(out[i]);
      if (er[i] >= 0) close(er[i]);
    }
    return af_fail(err, "worker %s: pipe: %s", w->name, strerror(e));
  }
  ignore_sigpipe();
  /* fork + exec rather than posix_spawn: the worker must die with the process that started it
   * (PR_SET_PDEATHSIG), since a campaign kills a job that misses its deadline with SIGKILL and
   * only the job: a worker in its own process group would live on, still busy with the program.
   * Between fork and exec only async-signal-safe calls. */
  sigset_t none;
  sigemptyset(&none);
  pid_t parent = getpid();
  pid_t pid = fork();
  int rc = pid < 0 ? errno : 0;
  if (pid == 0) {
    setpgid(0, 0); /* its own group: worker_kill ends anything the worker started too */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(126); /* the parent died before the line above */
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(er[1], 2);
    execvp(w->argv[0], w->argv);
    _exit(127);
  }
  if (pid > 0) setpgid(pid, pid); /* (also here: kill(-pid) must reach it from the start) */
  close(in[0]);
  close(out[1]);
  close(er[1]);
  if (rc) {
    close(in[1]);
    close(out[0]);
    close(er[0]);
    return af_fail(err, "worker %s: cannot start %s: %s", w->name, w->argv[0], strerror(rc));
  }
  w->pid = pid;
  w->owner = getpid();
  w->in_fd = in[1];
  w->out_fd = out[0];
  w->err_fd = er[0];
  for (int fd = 0; fd < 3; fd++) {
    int f = fd == 0 ? w->in_fd : fd == 1 ? w->out_fd : w->err_fd;
    fcntl(f, F_SETFL, fcntl(f, F_GETFL) | O_NONBLOCK);
  }
  w->rlen = 0;
  w->errlen = 0;
  worker_hist_clear(w); /* a fresh process: nothing before it can have broken it */
  w->starts++;
  w->hello_pending = 1;
  w->started_at = worker_now_s();
  return 0;
}

/* ---- one exchange: write a request (may be empty), read one line, within a deadline ---- */

typedef enum { X_LINE, X_EOF, X_TIMEOUT, X_TOO_LONG, X_MEMORY } xstatus;

/* On X_LINE, *line (new, NUL-terminated, without the newline) holds the line. *unsent tells
 * whether part of the request was never written (the stream is then out of step). */
/* Whether a stdout line can be no protocol line at all (it does not start with "{"): chatter of a
 * native library the worker loaded, which exchange skips. */
static int stray_line(const char *line) {
  while (*line == ' ' || *line == '\t' || *line == '\r') line++;
  return *line != '{';
}

/* Skips a stray line: counted in w->strays (the first kept for messages), noted on stderr once
 * per worker. 1 while under the bound. */
static int skip_stray(conv_worker *w, const char *line) {
  if (w->strays++ == 0) snprintf(w->stray_first, sizeof w->stray_first, "%s", line);
  if (!w->stray_noted) {
    w->stray_noted = 1;
    fprintf(stderr,
            "aliasfuzz: worker %s wrote a line to its stdout that is not protocol (skipped; later ones are skipped "
            "without a note, up to %d per answer): %.150s\n",
            w->name, WORKER_MAX_STRAY, line);
  }
  return w->strays <= WORKER_MAX_STRAY;
}

/* " after N lines on its stdout that are not protocol (the first: ...)" when the exchange skipped
 * some, appended to b. */
static void put_strays(af_buf *b, const conv_worker *w) {
  if (w->strays)
    af_buf_printf(b, " after %d line%s on its stdout that %s not protocol (the first: %s)", w->strays,
                  w->strays == 1 ? "" : "s", w->strays == 1 ? "is" : "are", w->stray_first);
}

static xstatus exchange(conv_worker *w, const char *req, size_t len, double deadline, char **line, int *unsent) {
  size_t off = 0;
  int broken = 0; /* the worker stopped reading its stdin */
  *line = NULL;
  *unsent = 0;
  w->strays = 0;
  for (;;) {
    char *nl = w->rlen ? memchr(w->rbuf, '\n', w->rlen) : NULL;
    if (nl) {
      size_t n = (size_t)(nl - w->rbuf);
      *line = af_xmalloc(n + 1);
      memcpy(*line, w->rbuf, n);
      (*line)[n] = 0;
      memmove(w->rbuf, nl + 1, w->rlen - n - 1);
      w->rlen -= n + 1;
      *unsent = off < len || broken;
      if (stray_line(*line) && skip_stray(w, *line)) {
        free(*line);
        *line = NULL;
        continue;
      }
      return X_LINE;
    }
    if (w->rlen > WORKER_MAX_LINE) return X_TOO_LONG;
    double left = deadline - worker_now_s();
    if (left <= 0) return X_TIMEOUT;
    struct pollfd fds[3];
    int n = 0, iw = -1, io, ie = -1;
    if (off < len && w->in_fd >= 0) fds[iw = n++] = (struct pollfd){w->in_fd, POLLOUT, 0};
    fds[io = n++] = (struct pollfd){w->out_fd, POLLIN, 0};
    if (w->err_fd >= 0) fds[ie = n++] = (struct pollfd){w->err_fd, POLLIN, 0};
    int ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
    if (w->rss_cap_mb > 0 && ms > 200) ms = 200; /* look at its memory five times a second */
    int pr = poll(fds, (nfds_t)n, ms);
    if (w->rss_cap_mb > 0 && w->pid > 0) {
      long mb = tree_rss_kb(w->pid, 4) / 1024;
      if (mb > w->rss_cap_mb) {
        w->rss_seen_mb = mb;
        return X_MEMORY;
      }
    }
    if (pr < 0) {
      if (errno == EINTR) continue;
      return X_EOF;
    }
    if (iw >= 0 && fds[iw].revents) {
      if (fds[iw].revents & POLLOUT) {
        ssize_t k = write(w->in_fd, req + off, len - off);
        if (k > 0) off += (size_t)k;
        else if (k < 0 && errno != EAGAIN && errno != EINTR) off = len, broken = 1; /* reader gone: await EOF */
      } else {
        off = len, broken = 1; /* POLLERR / POLLHUP: nobody reads our stdin any more */
      }
    }
    if (ie >= 0 && fds[ie].revents) drain_stderr(w);
    if (fds[io].revents) {
      if (w->rcap < w->rlen + 65536 + 1) {
        w->rcap = (w->rlen + 65536 + 1) * 2;
        w->rbuf = af_xrealloc(w->rbuf, w->rcap);
      }
      ssize_t k = read(w->out_fd, w->rbuf + w->rlen, w->rcap - w->rlen - 1);
      if (k > 0) w->rlen += (size_t)k;
      else if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
        /* stdout closed: give stderr a moment to deliver the last words */
        for (int i = 0; i < 10 && w->err_fd >= 0; i++) {
          struct pollfd pe = {w->err_fd, POLLIN, 0};
          if (poll(&pe, 1, 20) <= 0) break;
          drain_stderr(w);
        }
        return X_EOF;
      }
    }
  }
}

/* ---- hello ---- */

/* Records why the worker cannot serve (w->why). hello_state becomes -1 (final) unless the worker
 * served before: then the next program tries a fresh one. */
static void set_unavailable(conv_worker *w, const char *msg, const char *tail) {
  af_buf b = {0};
  af_buf_puts(&b, msg);
  if (tail && *tail) af_buf_printf(&b, " (stderr: %s)", tail);
  free(w->why);
  w->why = af_buf_take(&b);
  w->hello_state = w->ever_available ? 0 : -1;
}

/* Starts the worker and reads its hello. 0 when it runs and is available; -1 otherwise, with the
 * reason in w->why and err, and *how saying what happened: RESULT_CRASH (it died before its
 * hello), RESULT_TIMEOUT (no hello in time), RESULT_PROTOCOL (no proper hello: another protocol,
 * not JSON, only stray lines), RESULT_ERROR (cannot start, or it says it is unavailable). */
static int start_worker(conv_worker *w, af_err *err, result_status *how) {
  *how = RESULT_ERROR;
  if (!w->pid && spawn_worker(w, err)) {
    set_unavailable(w, err->msg, NULL);
    return -1;
  }
  char *line = NULL;
  int unsent = 0, st = 0;
  w->hello_pending = 0;
  xstatus x = exchange(w, "", 0, w->started_at + w->hello_timeout_s, &line, &unsent);
  af_buf what = {0};
  char *tail = NULL;
  if (x != X_LINE) {
    af_buf_printf(&what, "worker %s ", w->name);
    if (w->strays) af_buf_puts(&what, "said no proper hello: "); /* it wrote only lines that are not protocol */
    if (x == X_TIMEOUT) {
      af_buf_printf(&what, "gave no hello within %.1f s", w->hello_timeout_s);
      put_strays(&what, w);
      worker_kill(w, &st);
      *how = w->strays ? RESULT_PROTOCOL : RESULT_TIMEOUT;
    } else if (x == X_TOO_LONG) {
      af_buf_puts(&what, "printed an endless line instead of its hello");
      worker_kill(w, &st);
      *how = RESULT_PROTOCOL;
    } else if (x == X_MEMORY) {
      af_buf_printf(&what, "used %ld MiB of resident memory before its hello, over its cap of %ld MiB (AF_WORKER_RSS_MB)",
                    w->rss_seen_mb, w->rss_cap_mb);
      worker_kill(w, &st);
      *how = RESULT_CRASH;
    } else {
      reap_worker(w, 1000, &st);
      af_buf_puts(&what, "exited before its hello: ");
      describe_status(&what, st);
      put_strays(&what, w);
      *how = RESULT_CRASH;
    }
    tail = worker_err_summary(w);
    set_unavailable(w, what.s, tail);
    af_fail(err, "%s", w->why);
    free(tail);
    af_buf_free(&what);
    return -1;
  }
  cJSON *h = cJSON_Parse(line);
  const cJSON *proto = cJSON_GetObjectItemCaseSensitive(h, "protocol");
  const cJSON *avail = cJSON_GetObjectItemCaseSensitive(h, "available");
  int rc = -1;
  if (!cJSON_IsObject(h) || !cJSON_IsString(proto)) {
    *how = RESULT_PROTOCOL;
    worker_kill(w, NULL);
    af_buf_printf(&what, "worker %s said no proper hello (a JSON object with \"protocol\"); it said: %.150s", w->name,
                  line);
    set_unavailable(w, what.s, NULL);
  } else if (strcmp(proto->valuestring, WORKER_PROTOCOL) != 0) {
    *how = RESULT_PROTOCOL;
    worker_kill(w, NULL);
    af_buf_printf(&what, "worker %s speaks protocol %.100s; aliasfuzz speaks " WORKER_PROTOCOL, w->name,
                  proto->valuestring);
    set_unavailable(w, what.s, NULL);
  } else {
    free(w->version);
    w->version = worker_versions_text(cJSON_GetObjectItemCaseSensitive(h, "versions"));
    if (cJSON_IsFalse(avail)) {
      const cJSON *reason = cJSON_GetObjectItemCaseSensitive(h, "reason");
      worker_stop(w);
      set_unavailable(w, cJSON_IsString(reason) ? reason->valuestring : "the worker says it is unavailable", NULL);
    } else {
      w->hello_state = 1;
      w->ever_available = 1;
      w->module_state = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "module_state"));
      w->layouts = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "layouts"));
      w->caches = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "caches"));
      w->train = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "train"));
      const cJSON *refuses = cJSON_GetObjectItemCaseSensitive(h, "refuses");
      free(w->refuses);
      w->refuses = cJSON_IsArray(refuses) ? cJSON_PrintUnformatted(refuses) : NULL;
      rc = 0;
    }
  }
  if (rc) af_fail(err, "%s", w->why);
  af_buf_free(&what);
  cJSON_Delete(h);
  free(line);
  return rc;
}

void conv_worker_start(conv_worker *w) {
  af_err err;
  pthread_mutex_lock(&w->mu);
  check_owner(w);
  if (!w->pid && w->hello_state == 0 && spawn_worker(w, &err)) set_unavailable(w, err.msg, NULL);
  pthread_mutex_unlock(&w->mu);
}

int conv_worker_available(conv_worker *w, const char **why) {
  pthread_mutex_lock(&w->mu);
  check_owner(w);
  if (w->hello_pending || (w->hello_state == 0 && !w->pid)) {
    af_err err;
    result_status how;
    start_worker(w, &err, &how);
  }
  int ok = w->hello_state > 0;
  *why = ok ? NULL : w->why;
  pthread_mutex_unlock(&w->mu);
  return ok;
}

const char *conv_worker_version(conv_worker *w) {
  const char *why;
  conv_worker_available(w, &why);
  return w->version ? w->version : "unknown";
}

/* ---- requests ---- */

/* Starts the worker when it does not run (or its hello has not been read). 0, or -1 with r's
 * message set and *how the result status. */
int worker_ensure_started(conv_worker *w, result *r, result_status *how) {
  if (w->pid && !w->hello_pending) return 0;
  af_err err;
  if (!start_worker(w, &err, how)) return 0;
  result_set_message(r, err.msg);
  return -1;
}

/* Sends one request (body: worker_request_body) to the running worker and reads its answer into r.
 * *died: the worker's stdout closed before it answered (it exited or was killed by a signal).
 * The worker is killed when it timed out, went over its memory cap or got out of step. */
result_status worker_send_request(conv_worker *w, const char *body, const ir_program *p, result *r, int *died) {
  char *req = worker_request_line(body, ++w->next_id);
  w->errlen = 0;
  char *line = NULL;
  int unsent = 0, st = 0;
  *died = 0;
  xstatus x = exchange(w, req, strlen(req), worker_now_s() + w->timeout_s, &line, &unsent);
  free(req);
  af_buf m = {0};
  result_status rs;
  if (x == X_TIMEOUT && w->strays) { /* it wrote only lines that are not protocol, and no answer */
    worker_kill(w, &st);
    af_buf_printf(&m, "worker %s: protocol error: no answer within %.1f s", w->name, w->timeout_s);
    put_strays(&m, w);
    af_buf_puts(&m, " (killed; a fresh one serves the next program)");
    rs = RESULT_PROTOCOL;
  } else if (x == X_TIMEOUT) {
    worker_kill(w, &st);
    af_buf_printf(&m, "worker %s gave no answer within %.1f s (killed; a fresh one serves the next program)", w->name,
                  w->timeout_s);
    rs = RESULT_TIMEOUT;
  } else if (x == X_EOF) {
    reap_worker(w, 1000, &st);
    af_buf_printf(&m, "worker %s crashed: ", w->name);
    describe_status(&m, st);
    af_buf_puts(&m, " before answering");
    put_strays(&m, w);
    rs = RESULT_CRASH;
    *died = 1;
  } else if (x == X_TOO_LONG) {
    worker_kill(w, &st);
    af_buf_printf(&m, "worker %s: protocol error: an answer line longer than %zu bytes", w->name, WORKER_MAX_LINE);
    rs = RESULT_PROTOCOL;
  } else if (x == X_MEMORY) {
    worker_kill(w, &st);
    af_buf_printf(&m,
                  "worker %s used %ld MiB of resident memory, over its cap of %ld MiB (AF_WORKER_RSS_MB; killed, a "
                  "fresh one serves the next program)",
                  w->name, w->rss_seen_mb, w->rss_cap_mb);
    rs = RESULT_CRASH;
  } else {
    cJSON *a = cJSON_Parse(line);
    int desync = unsent;
    if (!cJSON_IsObject(a)) {
      char snippet[200];
      snprintf(snippet, sizeof snippet, "%s", line);
      af_buf_printf(&m, "worker %s: protocol error: the answer is not a JSON object: %s%s", w->name, snippet,
                    strlen(line) >= sizeof snippet ? "..." : "");
      put_strays(&m, w);
      desync = 1;
      rs = RESULT_PROTOCOL;
    } else {
      rs = worker_read_answer(w, a, w->next_id, p, r, &desync);
    }
    cJSON_Delete(a);
    if (desync) worker_kill(w, &st);
  }
  free(line);
  if (rs == RESULT_CRASH || rs == RESULT_TIMEOUT) worker_put_crash_stderr(&m, w);
  if (m.len) {
    free(r->message);
    r->message = af_buf_take(&m);
  }
  af_buf_free(&m);
  return rs;
}

static result_status run_locked(conv_worker *w, const ir_program *p, af_tensor *const *inputs, result *r) {
  af_err err;
  check_owner(w);
  if (w->hello_state < 0) {
    af_buf b = {0};
    af_buf_printf(&b, "worker %s is not available: %s", w->name, w->why ? w->why : "unknown reason");
    free(r->message);
    r->message = af_buf_take(&b);
    return RESULT_ERROR;
  }
  result_status how;
  if (worker_ensure_started(w, r, &how)) return how; /* first program, or a fresh worker after a crash */
  int again = w->again;
  w->again = 0;
  char *body = worker_request_body(p, inputs, again, &err);
  if (!body) {
    result_set_message(r, err.msg);
    return RESULT_ERROR;
  }
  int died = 0;
  result_status rs = worker_send_request(w, body, p, r, &died);
  if (died && w->nhist > (again ? 1 : 0) && worker_attribution_on()) { /* it ran programs before: one may have broken it */
    rs = worker_attribute_crash(w, body, p, again, r);
    free(body);
  } else if (w->pid) {
    worker_hist_push(w, body, p, again);
  } else {
    free(body);
  }
  return rs;
}

const char *conv_worker_refuses(conv_worker *w) {
  pthread_mutex_lock(&w->mu);
  const char *r = w->hello_state > 0 ? w->refuses : NULL;
  pthread_mutex_unlock(&w->mu);
  return r;
}

int conv_worker_caches(conv_worker *w) {
  const char *why;
  return conv_worker_available(w, &why) && w->caches;
}

int conv_trains(const conv_converter *c) {
  conv_worker *w = c ? conv_worker_of(c) : NULL;
  const char *why;
  return w && conv_worker_available(w, &why) && w->train;
}

void conv_worker_set_again(conv_worker *w, int again) {
  pthread_mutex_lock(&w->mu);
  w->again = again != 0;
  pthread_mutex_unlock(&w->mu);
}

result_status conv_worker_run(conv_worker *w, const ir_program *p, af_tensor *const *inputs, result *r) {
  pthread_mutex_lock(&w->mu);
  result_status rs = run_locked(w, p, inputs, r);
  pthread_mutex_unlock(&w->mu);
  r->status = rs;
  return rs;
}
