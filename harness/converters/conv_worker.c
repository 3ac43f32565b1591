/* conv_worker.c - external converter workers: process management, the aliasfuzz-worker/1
 * protocol (harness/workers/PROTOCOL.md) and the worker-backed converters. */
#define _GNU_SOURCE
#include "conv_worker.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../codec.h"
#include "../emit.h"
#include "../torch/shim.h"

#ifndef AF_WORKERS_DIR
#define AF_WORKERS_DIR "harness/workers"
#endif

#define WORKER_PROTOCOL "aliasfuzz-worker/1"
#define WORKER_MAX_LINE ((size_t)512 << 20) /* an answer line longer than this is garbage */
#define WORKER_ERR_TAIL 32768               /* bytes of the worker's stderr kept for messages (room for a
                                               faulthandler dump and its list of extension modules) */
#define WORKER_MAX_STRAY 64                 /* stray stdout lines skipped per answer before it is a protocol error */

/* A request this process answered, kept for crash attribution (conv_worker.h). */
typedef struct hist_entry {
  char *body;     /* the request object without its id (request_body), new */
  ir_program *p;  /* a clone of its program, new */
  char *tag;      /* conv_worker_set_tag when it was sent, new or NULL */
  int again;      /* it was a second call of the request before it */
} hist_entry;

extern char **environ;

struct conv_worker {
  char *name;
  char **argv; /* NULL-terminated, owned */
  double timeout_s, hello_timeout_s;
  pid_t pid, owner; /* running process (0: none) and the process that started it */
  int in_fd, out_fd, err_fd;
  char *rbuf; /* stdout bytes not yet consumed */
  size_t rlen, rcap;
  char errtail[WORKER_ERR_TAIL];
  size_t errlen;
  int hello_state;    /* 0 not yet, 1 available, -1 unavailable (final) */
  int ever_available; /* it said hello once: later start failures are findings, not final */
  int hello_pending;  /* started; its hello not read yet */
  double started_at;
  char *why, *version;
  double next_id;
  int starts;
  int module_state; /* its hello says it converts programs with module buffers */
  int layouts;      /* its hello says it builds inputs with layouts (request "bases", issue 16) */
  int caches;       /* its hello says it keeps what it converted for a request with "again" */
  int again;        /* the next request is a second call of the last program (conv_worker_set_again) */
  long rss_cap_mb;  /* resident memory of the worker's process tree that gets it killed (0: no cap) */
  long rss_seen_mb; /* what the tree used when it went over the cap */
  /* crash attribution: the requests the running process answered, oldest first (reset at each start) */
  hist_entry hist[CONV_WORKER_HISTORY];
  int nhist;
  char *tag;                /* labels the requests sent from now on (conv_worker_set_tag) */
  conv_worker_blame blame;  /* the last crash traced to an earlier program, until taken */
  int has_blame;
  /* stray stdout lines (not protocol): skipped, noted once on stderr */
  int strays;               /* in the current exchange */
  char stray_first[160];    /* the first of them, for messages */
  int stray_noted;
  pthread_mutex_t mu;
};

static void hist_clear(conv_worker *w);

/* ---- small helpers ---- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static double env_seconds(const char *var, double dflt) {
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

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const unsigned char *d, size_t n) {
  char *o = af_xmalloc(4 * ((n + 2) / 3) + 1), *p = o;
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
    *p++ = b64chars[v >> 18 & 63];
    *p++ = b64chars[v >> 12 & 63];
    *p++ = i + 1 < n ? b64chars[v >> 6 & 63] : '=';
    *p++ = i + 2 < n ? b64chars[v & 63] : '=';
  }
  *p = 0;
  return o;
}

/* Decodes standard base64 with padding; new buffer in *out (free with free()). -1 on bad input. */
static int b64_decode(const char *s, unsigned char **out, size_t *n) {
  size_t len = strlen(s);
  *out = NULL;
  *n = 0;
  if (len % 4) return -1;
  unsigned char *o = af_xmalloc(len / 4 * 3 + 1);
  size_t k = 0;
  for (size_t i = 0; i < len; i += 4) {
    int v[4], pad = 0;
    for (int j = 0; j < 4; j++) {
      char c = s[i + j];
      const char *at = c ? strchr(b64chars, c) : NULL;
      if (c == '=' && i + 4 == len && j >= 2) {
        v[j] = 0;
        pad++;
      } else if (at && !pad) {
        v[j] = (int)(at - b64chars);
      } else {
        free(o);
        return -1;
      }
    }
    unsigned w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 | (unsigned)v[3];
    o[k++] = (unsigned char)(w >> 16);
    if (pad < 2) o[k++] = (unsigned char)(w >> 8);
    if (pad < 1) o[k++] = (unsigned char)w;
  }
  *out = o;
  *n = k;
  return 0;
}

/* The last few non-empty lines of the worker's stderr, joined by " | ", bounded; new. */
static char *err_summary(const conv_worker *w) {
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
  w->timeout_s = env_seconds("AF_WORKER_TIMEOUT", 30);
  w->hello_timeout_s = env_seconds("AF_WORKER_START_TIMEOUT", 120);
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
static void kill_worker(conv_worker *w, int *status) {
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
      kill_worker(w, &st);
      break;
    }
    drain_stderr(w);
    sleep_ms(10);
  }
  drain_stderr(w);
  close_fds(w);
  if (status) *status = st;
}

static void stop_worker(conv_worker *w) {
  check_owner(w);
  if (!w->pid) return;
  close(w->in_fd); /* end of input: a worker exits by itself */
  w->in_fd = -1;
  reap_worker(w, 300, NULL);
}

void conv_worker_free(conv_worker *w) {
  if (!w) return;
  stop_worker(w);
  close_fds(w);
  for (int i = 0; w->argv[i]; i++) free(w->argv[i]);
  free(w->argv);
  free(w->name);
  free(w->rbuf);
  free(w->why);
  free(w->version);
  hist_clear(w);
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
    setpgid(0, 0); /* its own group: kill_worker ends anything the worker started too */
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
  hist_clear(w); /* a fresh process: nothing before it can have broken it */
  w->starts++;
  w->hello_pending = 1;
  w->started_at = now_s();
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
    double left = deadline - now_s();
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

static char *versions_text(const cJSON *v) {
  af_buf b = {0};
  const cJSON *e;
  cJSON_ArrayForEach(e, v) {
    if (b.len) af_buf_puts(&b, ", ");
    if (cJSON_IsString(e)) af_buf_printf(&b, "%s %s", e->string, e->valuestring);
    else if (cJSON_IsNumber(e)) af_buf_printf(&b, "%s %g", e->string, e->valuedouble);
  }
  return b.len ? af_buf_take(&b) : (af_buf_free(&b), af_xstrdup("unknown"));
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
      kill_worker(w, &st);
      *how = w->strays ? RESULT_PROTOCOL : RESULT_TIMEOUT;
    } else if (x == X_TOO_LONG) {
      af_buf_puts(&what, "printed an endless line instead of its hello");
      kill_worker(w, &st);
      *how = RESULT_PROTOCOL;
    } else if (x == X_MEMORY) {
      af_buf_printf(&what, "used %ld MiB of resident memory before its hello, over its cap of %ld MiB (AF_WORKER_RSS_MB)",
                    w->rss_seen_mb, w->rss_cap_mb);
      kill_worker(w, &st);
      *how = RESULT_CRASH;
    } else {
      reap_worker(w, 1000, &st);
      af_buf_puts(&what, "exited before its hello: ");
      describe_status(&what, st);
      put_strays(&what, w);
      *how = RESULT_CRASH;
    }
    tail = err_summary(w);
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
    kill_worker(w, NULL);
    af_buf_printf(&what, "worker %s said no proper hello (a JSON object with \"protocol\"); it said: %.150s", w->name,
                  line);
    set_unavailable(w, what.s, NULL);
  } else if (strcmp(proto->valuestring, WORKER_PROTOCOL) != 0) {
    *how = RESULT_PROTOCOL;
    kill_worker(w, NULL);
    af_buf_printf(&what, "worker %s speaks protocol %.100s; aliasfuzz speaks " WORKER_PROTOCOL, w->name,
                  proto->valuestring);
    set_unavailable(w, what.s, NULL);
  } else {
    free(w->version);
    w->version = versions_text(cJSON_GetObjectItemCaseSensitive(h, "versions"));
    if (cJSON_IsFalse(avail)) {
      const cJSON *reason = cJSON_GetObjectItemCaseSensitive(h, "reason");
      stop_worker(w);
      set_unavailable(w, cJSON_IsString(reason) ? reason->valuestring : "the worker says it is unavailable", NULL);
    } else {
      w->hello_state = 1;
      w->ever_available = 1;
      w->module_state = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "module_state"));
      w->layouts = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "layouts"));
      w->caches = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "caches"));
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

/* ---- requests and answers ---- */

/* The request for p as a JSON object without its "id" (request_line adds it, so that a request
 * can be sent again with another id); new, free with free(). NULL with err when an input cannot
 * be sent. */
static char *request_body(const ir_program *p, af_tensor *const *inputs, int again, af_err *err) {
  cJSON *root = cJSON_CreateObject();
  if (again) cJSON_AddTrueToObject(root, "again"); /* PROTOCOL.md "Calling again" */
  char *ptext = codec_write_string(p);
  cJSON *pj = cJSON_Parse(ptext);
  free(ptext);
  if (!pj) {
    cJSON_Delete(root);
    af_fail(err, "cannot re-read the program's own JSON form");
    return NULL;
  }
  cJSON_AddItemToObject(root, "program", pj);
  char *src = emit_torchscript(p, "program");
  cJSON_AddStringToObject(root, "torchscript", src);
  free(src);
  /* with module state the source is an nn.Module's forward; "buffers" names the inputs that are
   * its buffers (PROTOCOL.md, "Module state") */
  cJSON_AddStringToObject(root, "function", ir_nbuffers(p) ? "forward" : "program");
  if (ir_nbuffers(p)) {
    cJSON *bufs = cJSON_AddArrayToObject(root, "buffers");
    for (int i = 0; i < p->ninputs; i++)
      if (p->inputs[i].buffer) cJSON_AddItemToArray(bufs, cJSON_CreateString(p->names[p->inputs[i].value]));
  }
  if (p->nbases) { /* layouts (PROTOCOL.md "Input layouts"): each storage, flat */
    cJSON *bases = cJSON_AddArrayToObject(root, "bases");
    for (int b = 0; b < p->nbases; b++) {
      const af_tensor *t = inputs[p->ninputs + b];
      size_t nbytes = (size_t)at_tensor_numel(t) * af_dtype_size(p->bases[b].dtype);
      unsigned char *raw = af_xmalloc(nbytes ? nbytes : 1);
      if (at_tensor_bytes(t, raw, nbytes, err)) {
        free(raw);
        cJSON_Delete(root);
        return NULL;
      }
      char *b64 = b64_encode(raw, nbytes);
      free(raw);
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "name", ir_base_name(p, b));
      cJSON_AddBoolToObject(o, "hidden", p->bases[b].owner < 0);
      cJSON *sh = cJSON_AddArrayToObject(o, "shape");
      cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)p->bases[b].numel));
      cJSON_AddStringToObject(o, "dtype", af_dtype_name(p->bases[b].dtype));
      cJSON_AddStringToObject(o, "data", b64);
      free(b64);
      cJSON_AddItemToArray(bases, o);
    }
  }
  cJSON *arr = cJSON_AddArrayToObject(root, "inputs");
  for (int i = 0; i < p->ninputs; i++) {
    const af_tensor *t = inputs[i];
    const ir_input *pi = &p->inputs[i];
    if (pi->base) { /* a view of a storage: no data of its own */
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "name", p->names[pi->value]);
      cJSON *sh = cJSON_AddArrayToObject(o, "shape"), *st;
      for (int d = 0; d < pi->rank; d++) cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)pi->shape[d]));
      cJSON_AddStringToObject(o, "dtype", af_dtype_name(pi->dtype));
      cJSON_AddNumberToObject(o, "base", pi->base - 1);
      st = cJSON_AddArrayToObject(o, "strides");
      for (int d = 0; d < pi->rank; d++) cJSON_AddItemToArray(st, cJSON_CreateNumber((double)pi->strides[d]));
      cJSON_AddNumberToObject(o, "offset", (double)pi->offset);
      cJSON_AddItemToArray(arr, o);
      continue;
    }
    int rank = at_tensor_rank(t), dt = at_tensor_dtype(t);
    int64_t shape[AF_MAX_RANK];
    if (dt < 0 || rank > AF_MAX_RANK) {
      cJSON_Delete(root);
      af_fail(err, "input %s: a tensor aliasfuzz cannot send", p->names[p->inputs[i].value]);
      return NULL;
    }
    at_tensor_shape(t, shape);
    size_t nbytes = (size_t)at_tensor_numel(t) * af_dtype_size((af_dtype)dt);
    unsigned char *raw = af_xmalloc(nbytes ? nbytes : 1);
    if (at_tensor_bytes(t, raw, nbytes, err)) {
      free(raw);
      cJSON_Delete(root);
      return NULL;
    }
    char *b64 = b64_encode(raw, nbytes);
    free(raw);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", p->names[p->inputs[i].value]);
    cJSON *sh = cJSON_AddArrayToObject(o, "shape");
    for (int d = 0; d < rank; d++) cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)shape[d]));
    cJSON_AddStringToObject(o, "dtype", af_dtype_name((af_dtype)dt));
    cJSON_AddStringToObject(o, "data", b64);
    free(b64);
    cJSON_AddItemToArray(arr, o);
  }
  char *text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  char *body = af_xstrdup(text);
  cJSON_free(text);
  return body;
}

/* The request line: body (request_body, "{...}") with "id" first, newline-terminated; new. */
static char *request_line(const char *body, double id) {
  af_buf b = {0};
  af_buf_printf(&b, "{\"id\":%.0f%s%s\n", id, body[1] == '}' ? "" : ",", body + 1);
  return af_buf_take(&b);
}

/* A protocol tensor as a new af_tensor; -1 with what is wrong in err. */
static int decode_tensor(const cJSON *o, af_tensor **out, af_err *err) {
  *out = NULL;
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(o, "shape");
  const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(o, "dtype");
  const cJSON *data = cJSON_GetObjectItemCaseSensitive(o, "data");
  if (!cJSON_IsObject(o)) return af_fail(err, "not a tensor object");
  if (!cJSON_IsArray(shape)) return af_fail(err, "\"shape\" is not an array");
  if (!cJSON_IsString(dtype)) return af_fail(err, "\"dtype\" is not a string");
  if (!cJSON_IsString(data)) return af_fail(err, "\"data\" is not a base64 string");
  af_dtype dt;
  if (af_dtype_parse_real(dtype->valuestring, &dt))
    return af_fail(err, "dtype '%s' is not one aliasfuzz models (%s)", dtype->valuestring, af_dtype_names());
  int rank = cJSON_GetArraySize(shape);
  if (rank > AF_MAX_RANK) return af_fail(err, "rank %d is more than %d", rank, AF_MAX_RANK);
  int64_t sh[AF_MAX_RANK];
  double numel = 1;
  af_buf sb = {0};
  for (int d = 0; d < rank; d++) {
    const cJSON *e = cJSON_GetArrayItem(shape, d);
    if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble != floor(e->valuedouble) || e->valuedouble > 1e12) {
      af_buf_free(&sb);
      return af_fail(err, "shape entry %d is not a size", d);
    }
    sh[d] = (int64_t)e->valuedouble;
    numel *= e->valuedouble;
    af_buf_printf(&sb, "%s%lld", d ? ", " : "", (long long)sh[d]);
  }
  unsigned char *raw;
  size_t n;
  if (b64_decode(data->valuestring, &raw, &n)) {
    af_buf_free(&sb);
    return af_fail(err, "\"data\" is not valid base64");
  }
  double want = numel * (double)af_dtype_size(dt);
  int rc = 0;
  if ((double)n != want)
    rc = af_fail(err, "%zu bytes of data for shape [%s] %s (%.0f expected)", n, sb.s ? sb.s : "", af_dtype_name(dt),
                 want);
  else
    rc = at_tensor_from_bytes(dt, rank, sh, raw, n, out, err);
  free(raw);
  af_buf_free(&sb);
  return rc;
}

/* Sets r's message to "worker NAME: protocol error: what"; returns RESULT_PROTOCOL. */
static result_status protocol_error(result *r, const conv_worker *w, const char *what) {
  af_buf b = {0};
  af_buf_printf(&b, "worker %s: protocol error: %s", w->name, what);
  free(r->message);
  r->message = af_buf_take(&b);
  return RESULT_PROTOCOL;
}

/* Fills r from a parsed answer. Returns the status; on a protocol error, RESULT_PROTOCOL with
 * the message set and *desync when the worker can no longer be trusted to stay in step. */
static result_status read_answer(conv_worker *w, const cJSON *a, double id, const ir_program *p, result *r,
                                 int *desync) {
  af_err err;
  const cJSON *jid = cJSON_GetObjectItemCaseSensitive(a, "id");
  const cJSON *status = cJSON_GetObjectItemCaseSensitive(a, "status");
  const cJSON *message = cJSON_GetObjectItemCaseSensitive(a, "message");
  const cJSON *graph = cJSON_GetObjectItemCaseSensitive(a, "graph");
  const cJSON *warnings = cJSON_GetObjectItemCaseSensitive(a, "warnings");
  const cJSON *residual = cJSON_GetObjectItemCaseSensitive(a, "residual");
  const cJSON *timing = cJSON_GetObjectItemCaseSensitive(a, "timing");
  if (cJSON_IsObject(timing)) { /* the worker's own seconds (convert, run): its numeric fields */
    double sum = 0;
    int any = 0;
    for (const cJSON *t = timing->child; t; t = t->next)
      if (cJSON_IsNumber(t) && t->valuedouble >= 0) sum += t->valuedouble, any = 1;
    if (any) r->converter_s = sum;
  }
  if (!cJSON_IsNumber(jid) || jid->valuedouble != id) {
    *desync = 1;
    snprintf(err.msg, sizeof err.msg, "answer for request id %s, expected %.0f",
             cJSON_IsNumber(jid) ? "another" : "a missing", id);
    return protocol_error(r, w, err.msg);
  }
  if (!cJSON_IsString(status)) {
    return protocol_error(r, w, "answer without a \"status\" string");
  }
  /* graph text: warnings first, as comments */
  af_buf g = {0};
  const cJSON *e;
  af_buf wl = {0};
  if (cJSON_IsArray(warnings)) cJSON_ArrayForEach(e, warnings) if (cJSON_IsString(e)) {
      af_buf_printf(&g, "# warning: %s\n", e->valuestring);
      af_buf_printf(&wl, "%s%s", wl.len ? "; " : "", e->valuestring);
    }
  if (cJSON_IsString(graph)) af_buf_puts(&g, graph->valuestring);
  free(r->graph);
  r->graph = g.len ? af_buf_take(&g) : (af_buf_free(&g), NULL);
  if (cJSON_IsNumber(residual)) r->residual = (int)residual->valuedouble;
  const char *st = status->valuestring;
  result_status rs;
  if (!strcmp(st, "unsupported")) rs = RESULT_UNSUPPORTED;
  else if (!strcmp(st, "error")) rs = RESULT_ERROR;
  else if (!strcmp(st, "crash")) rs = RESULT_CRASH;
  else if (!strcmp(st, "ok")) rs = RESULT_OK;
  else {
    snprintf(err.msg, sizeof err.msg, "unknown status '%.100s'", st);
    af_buf_free(&wl);
    return protocol_error(r, w, err.msg);
  }
  if (rs != RESULT_OK) {
    af_buf m = {0};
    af_buf_printf(&m, "%s", cJSON_IsString(message) && *message->valuestring ? message->valuestring : st);
    free(r->message);
    r->message = af_buf_take(&m);
    af_buf_free(&wl);
    return rs;
  }
  if (wl.len) {
    free(r->message);
    r->message = af_buf_take(&wl);
  }
  af_buf_free(&wl);
  const cJSON *outs = cJSON_GetObjectItemCaseSensitive(a, "outputs");
  const cJSON *ins = cJSON_GetObjectItemCaseSensitive(a, "inputs");
  if (!cJSON_IsArray(outs) || !cJSON_IsArray(ins)) {
    return protocol_error(r, w, "an ok answer needs \"outputs\" and \"inputs\" arrays");
  }
  int no = cJSON_GetArraySize(outs), ni = cJSON_GetArraySize(ins);
  if (no != p->noutputs) { /* one per program output (a converter that lost one is the worker's to report) */
    snprintf(err.msg, sizeof err.msg, "\"outputs\" has %d entries for %d program outputs", no, p->noutputs);
    return protocol_error(r, w, err.msg);
  }
  if (ni != p->ninputs) {
    snprintf(err.msg, sizeof err.msg, "\"inputs\" has %d entries for %d program inputs", ni, p->ninputs);
    return protocol_error(r, w, err.msg);
  }
  af_tensor **o = af_xcalloc((size_t)no, sizeof *o), **in = af_xcalloc((size_t)ni, sizeof *in);
  int bad = 0;
  char what[1200];
  for (int k = 0; k < no && !bad; k++)
    if (decode_tensor(cJSON_GetArrayItem(outs, k), &o[k], &err)) {
      snprintf(what, sizeof what, "output %d: %s", k, err.msg);
      bad = 1;
    }
  for (int k = 0; k < ni && !bad; k++) {
    const cJSON *t = cJSON_GetArrayItem(ins, k);
    if (cJSON_IsNull(t)) continue;
    if (decode_tensor(t, &in[k], &err)) {
      snprintf(what, sizeof what, "input %d (%s): %s", k, p->names[p->inputs[k].value], err.msg);
      bad = 1;
    }
  }
  if (bad) {
    inputs_free(no, o);
    inputs_free(ni, in);
    return protocol_error(r, w, what);
  }
  /* the storages' final states: "bases" (layouts), one per request base or null; absent: none
     expressed (NULL entries, so the caller's untouched storages are not taken for them) */
  const cJSON *bs = cJSON_GetObjectItemCaseSensitive(a, "bases");
  af_tensor **fb = p->nbases ? af_xcalloc((size_t)p->nbases, sizeof *fb) : NULL;
  if (bs && (!cJSON_IsArray(bs) || cJSON_GetArraySize(bs) != p->nbases)) {
    snprintf(what, sizeof what, "\"bases\" must have one entry (a tensor or null) per request base (%d)", p->nbases);
    bad = 1;
  }
  for (int k = 0; bs && !bad && k < p->nbases; k++) {
    const cJSON *t = cJSON_GetArrayItem(bs, k);
    if (cJSON_IsNull(t)) continue;
    if (decode_tensor(t, &fb[k], &err)) {
      snprintf(what, sizeof what, "base %d (%s): %s", k, p->bases[k].name, err.msg);
      bad = 1;
    }
  }
  if (bad) {
    inputs_free(no, o);
    inputs_free(ni, in);
    inputs_free(p->nbases, fb);
    return protocol_error(r, w, what);
  }
  r->noutputs = no;
  r->outputs = o;
  r->ninputs = ni;
  r->inputs = in;
  r->nbases = p->nbases;
  r->bases = fb;
  return RESULT_OK;
}

/* ---- crash details: the worker's stderr and its Python frames ---- */

/* Where a faulthandler dump starts in the kept stderr ("Fatal Python error: ..."), the last one, or
 * NULL. */
static const char *fault_dump(const char *text) {
  const char *last = NULL;
  for (const char *q = text; (q = strstr(q, "Fatal Python error")); q++) last = q;
  return last;
}

/* Appends "; python: F:FN <- F:FN <- F:FN" to b: the innermost frames (at most 3) of the crashing
 * thread in a faulthandler dump in the worker's stderr, each the file's base name and the function,
 * innermost first, without line numbers or addresses (conv_worker_crash_site). Nothing when there
 * is no dump. */
static void put_python_frames(af_buf *b, const char *text) {
  const char *dump = fault_dump(text);
  if (!dump) return;
  const char *block = strstr(dump, "Current thread ");
  if (!block) block = strstr(dump, "Thread ");
  if (!block) return;
  int n = 0;
  for (const char *q = strchr(block, '\n'); q && n < 3; q = strchr(q + 1, '\n')) {
    const char *l = q + 1;
    while (*l == ' ') l++;
    if (strncmp(l, "File \"", 6) != 0) break; /* the end of the block */
    const char *file = l + 6, *fend = strchr(file, '"'), *nl = strchr(l, '\n');
    if (!fend || (nl && fend > nl)) break;
    const char *in = strstr(fend, " in ");
    if (!in || (nl && in > nl)) break;
    const char *base = file;
    for (const char *c = file; c < fend; c++)
      if (*c == '/') base = c + 1;
    const char *fn = in + 4;
    size_t fl = nl ? (size_t)(nl - fn) : strlen(fn);
    while (fl && (fn[fl - 1] == '\r' || fn[fl - 1] == ' ')) fl--;
    af_buf_printf(b, "%s%.*s:%.*s", n ? " <- " : "; python: ", (int)(fend - base), base, (int)fl, fn);
    n++;
  }
}

char *conv_worker_crash_site(const char *detail) {
  const char *at = detail ? strstr(detail, "; python: ") : NULL;
  if (!at) return NULL;
  at += 10;
  size_t n = strcspn(at, ";)\n"); /* (a blame quotes the crash in parentheses) */
  char *s = af_xmalloc(n + 1);
  memcpy(s, at, n);
  s[n] = 0;
  return s;
}

/* Appends what a crash or timeout message says of the worker's stderr: its Python frames when it
 * left a faulthandler dump, then "; stderr: " and its last lines before the dump. */
static void put_crash_stderr(af_buf *m, conv_worker *w) {
  char *text = af_xmalloc(w->errlen + 1);
  memcpy(text, w->errtail, w->errlen);
  text[w->errlen] = 0;
  put_python_frames(m, text);
  const char *dump = fault_dump(text);
  size_t keep = w->errlen;
  if (dump) keep = (size_t)(dump - text); /* the lines before it say more than the dump's end */
  size_t len = w->errlen;
  w->errlen = keep;
  char *tail = err_summary(w);
  w->errlen = len;
  if (*tail) af_buf_printf(m, "; stderr: %s", tail);
  free(tail);
  free(text);
}

/* ---- history and crash attribution ---- */

static void hist_entry_free(hist_entry *h) {
  free(h->body);
  ir_program_free(h->p);
  free(h->tag);
  memset(h, 0, sizeof *h);
}

static void hist_clear(conv_worker *w) {
  for (int i = 0; i < w->nhist; i++) hist_entry_free(&w->hist[i]);
  w->nhist = 0;
}

/* Keeps an answered request (body moves into the history), dropping the oldest past the bound. */
static void hist_push(conv_worker *w, char *body, const ir_program *p, int again) {
  if (w->nhist == CONV_WORKER_HISTORY) {
    hist_entry_free(&w->hist[0]);
    memmove(w->hist, w->hist + 1, sizeof w->hist[0] * (CONV_WORKER_HISTORY - 1));
    w->nhist--;
  }
  hist_entry *h = &w->hist[w->nhist++];
  h->body = body;
  h->p = ir_program_clone(p);
  h->tag = w->tag ? af_xstrdup(w->tag) : NULL;
  h->again = again;
}

void conv_worker_blame_clear(conv_worker_blame *b) {
  if (!b) return;
  free(b->tag);
  ir_program_free(b->program);
  free(b->detail);
  memset(b, 0, sizeof *b);
}

void conv_worker_set_tag(conv_worker *w, const char *tag) {
  pthread_mutex_lock(&w->mu);
  free(w->tag);
  w->tag = tag ? af_xstrdup(tag) : NULL;
  pthread_mutex_unlock(&w->mu);
}

int conv_worker_take_blame(conv_worker *w, conv_worker_blame *out) {
  pthread_mutex_lock(&w->mu);
  int has = w->has_blame;
  if (has) *out = w->blame;
  else memset(out, 0, sizeof *out);
  memset(&w->blame, 0, sizeof w->blame);
  w->has_blame = 0;
  pthread_mutex_unlock(&w->mu);
  return has;
}

static void (*attribution_hook)(void *arg, int starting);
static void *attribution_arg;

void conv_worker_set_attribution_hook(void (*hook)(void *arg, int starting), void *arg) {
  attribution_hook = hook;
  attribution_arg = arg;
}

/* Whether crashes are traced (AF_CRASH_ATTRIBUTION=0 turns it off). */
static int attribution_on(void) {
  const char *e = getenv("AF_CRASH_ATTRIBUTION");
  return !(e && strcmp(e, "0") == 0);
}

/* ---- requests ---- */

/* Starts the worker when it does not run (or its hello has not been read). 0, or -1 with r's
 * message set and *how the result status. */
static int ensure_started(conv_worker *w, result *r, result_status *how) {
  if (w->pid && !w->hello_pending) return 0;
  af_err err;
  if (!start_worker(w, &err, how)) return 0;
  result_set_message(r, err.msg);
  return -1;
}

/* Sends one request (body: request_body) to the running worker and reads its answer into r.
 * *died: the worker's stdout closed before it answered (it exited or was killed by a signal).
 * The worker is killed when it timed out, went over its memory cap or got out of step. */
static result_status send_request(conv_worker *w, const char *body, const ir_program *p, result *r, int *died) {
  char *req = request_line(body, ++w->next_id);
  w->errlen = 0;
  char *line = NULL;
  int unsent = 0, st = 0;
  *died = 0;
  xstatus x = exchange(w, req, strlen(req), now_s() + w->timeout_s, &line, &unsent);
  free(req);
  af_buf m = {0};
  result_status rs;
  if (x == X_TIMEOUT && w->strays) { /* it wrote only lines that are not protocol, and no answer */
    kill_worker(w, &st);
    af_buf_printf(&m, "worker %s: protocol error: no answer within %.1f s", w->name, w->timeout_s);
    put_strays(&m, w);
    af_buf_puts(&m, " (killed; a fresh one serves the next program)");
    rs = RESULT_PROTOCOL;
  } else if (x == X_TIMEOUT) {
    kill_worker(w, &st);
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
    kill_worker(w, &st);
    af_buf_printf(&m, "worker %s: protocol error: an answer line longer than %zu bytes", w->name, WORKER_MAX_LINE);
    rs = RESULT_PROTOCOL;
  } else if (x == X_MEMORY) {
    kill_worker(w, &st);
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
      rs = read_answer(w, a, w->next_id, p, r, &desync);
    }
    cJSON_Delete(a);
    if (desync) kill_worker(w, &st);
  }
  free(line);
  if (rs == RESULT_CRASH || rs == RESULT_TIMEOUT) put_crash_stderr(&m, w);
  if (m.len) {
    free(r->message);
    r->message = af_buf_take(&m);
  }
  af_buf_free(&m);
  return rs;
}

/* In a fresh worker: the requests before[0..n) (answers read and dropped), then the probe (body, p),
 * whose answer goes to pr. 1 when the probe crashed the worker, 0 when it answered (or timed out,
 * or broke the protocol: anything but dying), -1 when the run could not be made (no fresh worker,
 * or one of the requests before it did not answer). */
static int replay(conv_worker *w, const hist_entry *const *before, int n, const char *body, const ir_program *p,
                  result *pr) {
  result_status how;
  int died = 0;
  if (w->pid) kill_worker(w, NULL);
  if (ensure_started(w, pr, &how)) return -1;
  for (int i = 0; i < n; i++) {
    result scratch;
    result_init(&scratch);
    result_status rs = send_request(w, before[i]->body, before[i]->p, &scratch, &died);
    result_clear(&scratch);
    if (died || !w->pid || rs == RESULT_TIMEOUT) return -1;
  }
  pr->status = send_request(w, body, p, pr, &died);
  return died;
}

/* The crash of request (body, p) that the running worker's history may explain (conv_worker.h,
 * "Crash attribution"): reruns it in a fresh worker (after the request it calls again, if it is
 * a second call); when it then answers, r becomes that answer, and the requests before it are
 * replayed one by one (most recent first), then all together, each followed by it in a fresh
 * worker, to find the one it crashes after: that one is the blame. Returns r's status. The
 * worker is left stopped: the next program starts a fresh one. */
static result_status attribute_crash(conv_worker *w, const char *body, const ir_program *p, int again, result *r) {
  if (attribution_hook) attribution_hook(attribution_arg, 1);
  hist_entry h[CONV_WORKER_HISTORY];
  int n = w->nhist;
  memcpy(h, w->hist, sizeof h[0] * (size_t)n);
  w->nhist = 0; /* they are ours now: starting a fresh worker resets the history */
  int pre = again && n > 0 ? n - 1 : -1, ncand = again && n > 0 ? n - 1 : n;
  const hist_entry *seq[CONV_WORKER_HISTORY + 1] = {0};
  char *first = af_xstrdup(r->message ? r->message : "crashed");
  result rr;
  result_init(&rr);
  int k = 0;
  if (pre >= 0) seq[k++] = &h[pre];
  int d = replay(w, seq, k, body, p, &rr);
  result_status rs = RESULT_CRASH;
  int culprit = -1, together = 0;
  if (d != 0) { /* the crash is its own: it crashed again alone in a fresh worker (or could not be rerun) */
    af_buf m = {0};
    af_buf_printf(&m, "%s (%s)", first,
                  d > 0 ? "it crashed a fresh worker again when rerun" : "it could not be rerun in a fresh worker");
    free(r->message);
    r->message = af_buf_take(&m);
    result_clear(&rr);
    goto out;
  }
  result_clear(r);
  *r = rr;
  rs = rr.status;
  for (int j = ncand - 1; j >= 0 && culprit < 0; j--) { /* one at a time, most recent first */
    result scratch;
    result_init(&scratch);
    k = 0;
    if (h[j].again && j > 0) seq[k++] = &h[j - 1]; /* a second call goes with the call before it */
    seq[k++] = &h[j];
    if (pre >= 0) seq[k++] = &h[pre];
    if (replay(w, seq, k, body, p, &scratch) > 0) culprit = j;
    result_clear(&scratch);
  }
  if (culprit < 0 && ncand > 1) { /* together: damage that takes more than one of them */
    result scratch;
    result_init(&scratch);
    k = 0;
    for (int j = 0; j < ncand; j++) seq[k++] = &h[j];
    if (pre >= 0) seq[k++] = &h[pre];
    if (replay(w, seq, k, body, p, &scratch) > 0) culprit = ncand - 1, together = 1;
    result_clear(&scratch);
  }
  if (culprit >= 0) {
    af_buf m = {0};
    af_buf_printf(&m,
                  "the worker was left broken by this program: the program after it crashed the worker (%s); that "
                  "program answered when rerun in a fresh worker, and crashes a fresh worker again when it follows ",
                  first);
    if (together) af_buf_printf(&m, "this program and the %d before it", culprit);
    else af_buf_puts(&m, "this program");
    conv_worker_blame_clear(&w->blame);
    w->blame.tag = h[culprit].tag ? af_xstrdup(h[culprit].tag) : NULL;
    w->blame.program = ir_program_clone(h[culprit].p);
    w->blame.detail = af_buf_take(&m);
    w->has_blame = 1;
  } else {
    fprintf(stderr,
            "aliasfuzz: worker %s crashed on a program that answered when rerun in a fresh worker, and replaying the "
            "%d request%s before it did not crash a fresh worker again: the crash is charged to no program (%s)\n",
            w->name, ncand, ncand == 1 ? "" : "s", first);
  }
out:
  if (w->pid) kill_worker(w, NULL); /* replayed or damaged: the next program gets a fresh worker */
  for (int i = 0; i < n; i++) hist_entry_free(&h[i]);
  free(first);
  if (attribution_hook) attribution_hook(attribution_arg, 0);
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
  if (ensure_started(w, r, &how)) return how; /* first program, or a fresh worker after a crash */
  int again = w->again;
  w->again = 0;
  char *body = request_body(p, inputs, again, &err);
  if (!body) {
    result_set_message(r, err.msg);
    return RESULT_ERROR;
  }
  int died = 0;
  result_status rs = send_request(w, body, p, r, &died);
  if (died && w->nhist > (again ? 1 : 0) && attribution_on()) { /* it ran programs before: one may have broken it */
    rs = attribute_crash(w, body, p, again, r);
    free(body);
  } else if (w->pid) {
    hist_push(w, body, p, again);
  } else {
    free(body);
  }
  return rs;
}

int conv_worker_caches(conv_worker *w) {
  const char *why;
  return conv_worker_available(w, &why) && w->caches;
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
  double deadline = now_s() + env_seconds("AF_WORKER_START_TIMEOUT", 120);
  while (!done) {
    ssize_t k = read(fds[0], out + n, sizeof out - 1 - n);
    if (k > 0) n += (size_t)k;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) done = 1;
    else if (now_s() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      close(fds[0]);
      snprintf(why, whylen, "%s: looking for torch took too long", py);
      return 0;
    } else if (k <= 0) sleep_ms(10);
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

/* ---- converters ---- */

typedef struct slot {
  const conv_converter *c;
  const char *script;  /* named: file in the workers folder */
  char *command;       /* external: shell command */
  conv_worker *w;      /* created on first use */
  double default_s, hello_s; /* a named worker's own deadlines (0: the client's defaults) */
  char *why;           /* why no worker could be created */
  double timeout_s;    /* 0: default */
} slot;

static pthread_mutex_t slots_mu = PTHREAD_MUTEX_INITIALIZER;
static slot **slots; /* each slot allocated once: pointers to it stay valid */
static int nslots;

static slot *slot_of(const conv_converter *c) {
  for (int i = 0; i < nslots; i++)
    if (slots[i]->c == c) return slots[i];
  return NULL;
}

static slot *add_slot(const conv_converter *c, const char *script, const char *command) {
  slots = af_xrealloc(slots, sizeof *slots * (size_t)(nslots + 1));
  slot *s = slots[nslots++] = af_xcalloc(1, sizeof *s);
  s->c = c;
  s->script = script;
  s->command = command ? af_xstrdup(command) : NULL;
  return s;
}

static int registered_atexit;

/* The worker of slot s, creating it on first use; NULL with s->why when it cannot be. */
static conv_worker *slot_worker(slot *s) {
  if (s->w || s->why) return s->w;
  if (!registered_atexit) {
    registered_atexit = 1;
    atexit(conv_worker_shutdown_all);
  }
  if (s->command) {
    s->w = conv_worker_new_shell(s->c->name, s->command);
  } else {
    const char *why;
    const char *py = conv_worker_python(&why);
    if (!py) {
      s->why = af_xstrdup(why);
      return NULL;
    }
    const char *dir = getenv("AF_WORKERS_DIR");
    if (!dir || !*dir) dir = AF_WORKERS_DIR;
    af_buf script = {0};
    af_buf_printf(&script, "%s/%s", dir, s->script);
    if (access(script.s, R_OK) != 0) {
      af_buf b = {0};
      af_buf_printf(&b, "worker script %s not found (set AF_WORKERS_DIR)", script.s);
      s->why = af_buf_take(&b);
      af_buf_free(&script);
      return NULL;
    }
    const char *argv[] = {py, "-u", script.s, NULL};
    s->w = conv_worker_new(s->c->name, argv);
    af_buf_free(&script);
  }
  /* a named worker's own deadlines unless the environment sets them (AF_WORKER_TIMEOUT,
   * AF_WORKER_START_TIMEOUT); --timeout (s->timeout_s) wins over both */
  conv_worker_set_timeouts(s->w, getenv("AF_WORKER_TIMEOUT") ? 0 : s->default_s,
                           getenv("AF_WORKER_START_TIMEOUT") ? 0 : s->hello_s);
  if (s->timeout_s > 0) conv_worker_set_timeouts(s->w, s->timeout_s, 0);
  return s->w;
}

/* A converter the registry knows only through a worker: finds its slot, named ones on first use. */
static slot *find_slot(const conv_converter *c);

conv_worker *conv_worker_of(const conv_converter *c) {
  pthread_mutex_lock(&slots_mu);
  slot *s = find_slot(c);
  conv_worker *w = s ? slot_worker(s) : NULL;
  pthread_mutex_unlock(&slots_mu);
  return w;
}

int conv_worker_set_timeout(const conv_converter *c, double seconds) {
  pthread_mutex_lock(&slots_mu);
  slot *s = find_slot(c);
  if (s) {
    s->timeout_s = seconds;
    if (s->w) conv_worker_set_timeouts(s->w, seconds, 0);
  }
  pthread_mutex_unlock(&slots_mu);
  return s ? 0 : -1;
}

static int wc_available(const conv_converter *c, const char **why) {
  pthread_mutex_lock(&slots_mu);
  slot *s = find_slot(c);
  conv_worker *w = s ? slot_worker(s) : NULL;
  pthread_mutex_unlock(&slots_mu);
  if (!w) {
    *why = s && s->why ? s->why : "not a worker converter";
    return 0;
  }
  return conv_worker_available(w, why);
}

static const char *wc_version(const conv_converter *c) {
  conv_worker *w = conv_worker_of(c);
  return w ? conv_worker_version(w) : "unknown";
}

static result_status wc_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  *state = NULL; /* a worker converts and runs in one request: see wc_run */
  if (ir_has_layouts(p)) { /* only to a worker whose hello says "layouts": true (issue 16) */
    conv_worker *w = conv_worker_of(c);
    const char *why;
    if (w && conv_worker_available(w, &why) && !w->layouts) {
      /* (the field unquoted: error classes normalize quoted text away) */
      result_set_message(r, RESULT_HARNESS_LIMIT "this worker does not build inputs with layouts (inputs that share memory, strides, "
                            "offsets): its hello does not say layouts: true");
      return RESULT_UNSUPPORTED;
    }
  }
  if (ir_nbuffers(p)) { /* only to a worker whose hello says "module_state": true */
    conv_worker *w = conv_worker_of(c);
    const char *why;
    if (w && conv_worker_available(w, &why) && !w->module_state) {
      result_set_message(r, RESULT_HARNESS_LIMIT "this worker does not convert programs with module state (buffers): its hello does not "
                            "say module_state: true");
      return RESULT_UNSUPPORTED;
    }
  }
  return RESULT_OK;
}

static result_status wc_run(const conv_converter *c, void *state, const ir_program *p, af_tensor *const *inputs,
                            result *r) {
  (void)state;
  conv_worker *w = conv_worker_of(c);
  if (!w) {
    pthread_mutex_lock(&slots_mu);
    slot *s = find_slot(c);
    af_buf b = {0};
    af_buf_printf(&b, "converter %s is not available: %s", c->name, s && s->why ? s->why : "unknown reason");
    pthread_mutex_unlock(&slots_mu);
    free(r->message);
    r->message = af_buf_take(&b);
    return RESULT_ERROR;
  }
  return conv_worker_run(w, p, inputs, r);
}

static void wc_free_state(void *state) { (void)state; }

/* repro.py snippets (see conv.h): the same conversion as the worker, with PyTorch alone plus the
 * converter's own runtime (ONNX Runtime from Python where it imports, else aliasfuzz's Node
 * helper; TVM). Keep them in step with worker_*.py. */
static const char repro_onnx[] =
    "import base64, io, json, os, subprocess, warnings\n"
    "ONNX_OPSET = int(os.environ.get('AF_ONNX_OPSET', '16'))\n"
    "ORT_HELPER = os.environ.get('AF_ORT_HELPER')  # aliasfuzz's harness/workers/ort_helper.js, for Node's ONNX Runtime\n"
    "\n"
    "def wrapper_source(src, names, nout):\n"
    "    \"\"\"The program plus af_returns_inputs: its outputs, then every input after the call.\"\"\"\n"
    "    res = 'af_result'\n"
    "    while res in names:\n"
    "        res += '_'\n"
    "    call = 'program(%s)' % ', '.join(names)\n"
    "    body = ['    ' + call] if nout == 0 else ['    %s = %s' % (res, call)]\n"
    "    items = [] if nout == 0 else [res] if nout == 1 else ['%s[%d]' % (res, k) for k in range(nout)]\n"
    "    items += names\n"
    "    ret = '(%s,)' % items[0] if len(items) == 1 else '(%s)' % ', '.join(items)\n"
    "    return '%s\\n\\n\\ndef af_returns_inputs(%s):\\n%s\\n    return %s\\n' % (\n"
    "        src.rstrip('\\n'), ', '.join('%s: Tensor' % n for n in names), '\\n'.join(body), ret)\n"
    "\n"
    "def onnx_export(fn, inputs, names, outs):\n"
    "    buf = io.BytesIO()\n"
    "    with warnings.catch_warnings(record=True) as caught:\n"
    "        warnings.simplefilter('always')\n"
    "        import inspect  # PyTorch 2.x: the TorchScript-based exporter is dynamo=False\n"
    "        kw = {'dynamo': False} if 'dynamo' in inspect.signature(torch.onnx.export).parameters else {}\n"
    "        torch.onnx.export(fn, tuple(t.clone() for t in inputs), buf, opset_version=ONNX_OPSET,\n"
    "                          input_names=names, output_names=outs, do_constant_folding=True, **kw)\n"
    "    for w in caught:\n"
    "        if 'no signature found' not in str(w.message):\n"
    "            print('exporter warning:', w.message)\n"
    "    return buf.getvalue()\n"
    "\n"
    "def onnx_run(model, names, inputs):\n"
    "    \"\"\"ONNX Runtime: its Python module where it imports, else aliasfuzz's Node helper.\"\"\"\n"
    "    try:\n"
    "        import onnxruntime\n"
    "    except ImportError:\n"
    "        onnxruntime = None\n"
    "    if onnxruntime is None and not ORT_HELPER:\n"
    "        raise ImportError('ONNX Runtime: pip install onnxruntime (the version in this file\\'s CONVERTER_VERSION), '\n"
    "                          'or set AF_ORT_HELPER to aliasfuzz\\'s harness/workers/ort_helper.js (npm onnxruntime-node)')\n"
    "    if onnxruntime is not None:\n"
    "        s = onnxruntime.InferenceSession(model, providers=['CPUExecutionProvider'])\n"
    "        want = {i.name for i in s.get_inputs()}\n"
    "        return [torch.from_numpy(o) for o in s.run(None, {n: t.numpy() for n, t in zip(names, inputs) if n in want})]\n"
    "    import numpy as np\n"
    "    feeds = [{'name': n, 'shape': list(t.shape), 'dtype': str(t.dtype).replace('torch.', ''),\n"
    "              'data': base64.b64encode(t.contiguous().numpy().tobytes()).decode()} for n, t in zip(names, inputs)]\n"
    "    req = json.dumps({'id': 1, 'model': base64.b64encode(model).decode(), 'inputs': feeds})\n"
    "    p = subprocess.run([os.environ.get('AF_NODE', 'node'), ORT_HELPER], input=req + '\\n', capture_output=True, text=True)\n"
    "    lines = p.stdout.splitlines()\n"
    "    if len(lines) < 2:\n"
    "        raise RuntimeError('%s failed: %s' % (ORT_HELPER, (p.stdout + p.stderr)[-2000:]))\n"
    "    a = json.loads(lines[1])\n"
    "    if a['status'] != 'ok':\n"
    "        raise RuntimeError('onnxruntime: ' + a['message'])\n"
    "    return [torch.from_numpy(np.frombuffer(base64.b64decode(o['data']), dtype=o['dtype']).copy().reshape(o['shape']))\n"
    "            for o in a['outputs']]\n"
    "\n"
    "def convert_and_run(src, converted, inputs):\n"
    "    names = [i[0] for i in INPUTS]\n"
    "    nout = len(OUTPUT_NAMES)\n"
    "    outs = ['output_%d' % k for k in range(nout)]\n"
    "    try:\n"
    "        fn = torch.jit.CompilationUnit(wrapper_source(src, names, nout)).af_returns_inputs\n"
    "        model, with_inputs = onnx_export(fn, inputs, names, outs + ['final_' + n for n in names]), True\n"
    "    except torch.onnx.errors.UnsupportedOperatorError:\n"
    "        raise\n"
    "    except Exception as e:\n"
    "        print('exporting with the final inputs as extra outputs failed (%s); exporting the program alone' %\n"
    "              str(e).strip().splitlines()[0])\n"
    "        model, with_inputs = onnx_export(torch.jit.CompilationUnit(src).program, inputs, names, outs), False\n"
    "    vals = onnx_run(model, names, inputs)\n"
    "    return vals[:nout], vals[nout:] if with_inputs else [None] * len(names)\n";

static const char repro_functorch[] =
    "def convert_and_run(src, converted, inputs):\n"
    "    try:\n"
    "        from torch.func import functionalize  # PyTorch 2.x\n"
    "        from torch.fx.experimental.proxy_tensor import make_fx\n"
    "    except ImportError:\n"
    "        from functorch import functionalize, make_fx  # PyTorch 1.13\n"
    "    fn = torch.jit.CompilationUnit(src).program\n"
    "    gm = make_fx(functionalize(fn))(*[t.clone() for t in inputs])\n"
    "    print('--- functionalized FX graph ---')\n"
    "    print(gm.code)\n"
    "    state = [t.clone() for t in inputs]\n"
    "    return as_list(gm(*state)), state\n";

static const char repro_tvm[] =
    "# TVM: this reproducer imports TVM 0.11-0.14 (Relay) from AF_TVM_HOME (a folder with python/tvm/ and\n"
    "# lib/libtvm.so: a TVM build, or an aliasfuzz checkout's .tvm/tvm-0.14.0/ that scripts/setup.sh\n"
    "# unpacks), else an installed tvm. Run it with the PyTorch of the stack the finding came from\n"
    "# (PyTorch 1.13: Debian 12's /usr/bin/python3). AF_TVM_EXECUTOR=compiled runs relay.build + the\n"
    "# graph executor (the VM for control flow) instead of Relay's interpreter, as the worker's option.\n"
    "def wrapper_source(src, names, nout):\n"
    "    \"\"\"The program plus af_returns_inputs: its outputs, then every input after the call.\"\"\"\n"
    "    res = 'af_result'\n"
    "    while res in names:\n"
    "        res += '_'\n"
    "    call = 'program(%s)' % ', '.join(names)\n"
    "    body = ['    ' + call] if nout == 0 else ['    %s = %s' % (res, call)]\n"
    "    items = [] if nout == 0 else [res] if nout == 1 else ['%s[%d]' % (res, k) for k in range(nout)]\n"
    "    items += names\n"
    "    ret = '(%s,)' % items[0] if len(items) == 1 else '(%s)' % ', '.join(items)\n"
    "    return '%s\\n\\n\\ndef af_returns_inputs(%s):\\n%s\\n    return %s\\n' % (\n"
    "        src.rstrip('\\n'), ', '.join('%s: Tensor' % n for n in names), '\\n'.join(body), ret)\n"
    "\n"
    "def import_tvm():\n"
    "    import os\n"
    "    if 'tvm' in sys.modules:\n"
    "        import tvm\n"
    "        from tvm import relay\n"
    "        return tvm, relay\n"
    "    os.environ.setdefault('TOPHUB_LOCATION', 'NONE')\n"
    "    import numpy as np\n"
    "    for alias, real in (('int', int), ('float', float), ('bool', bool), ('object', object), ('complex', complex),\n"
    "                        ('str', str)):\n"
    "        if alias not in np.__dict__:\n"
    "            setattr(np, alias, real)  # numpy >= 1.24 removed them; the 0.11-0.14 frontend uses them\n"
    "    home = os.environ.get('AF_TVM_HOME')\n"
    "    if home:\n"
    "        sys.path.insert(0, os.path.join(home, 'python'))\n"
    "        os.environ['TVM_LIBRARY_PATH'] = os.path.join(home, 'lib')\n"
    "    try:\n"
    "        import tvm\n"
    "        from tvm import relay\n"
    "        relay.frontend.from_pytorch\n"
    "    except (ImportError, AttributeError) as e:\n"
    "        print('ENVIRONMENT: no TVM with Relay (%s: %s); set AF_TVM_HOME to a TVM 0.11-0.14 folder '\n"
    "              '(python/ and lib/), see the header of the converter code below' % (type(e).__name__, e))\n"
    "        sys.exit(3)\n"
    "    print('TVM', tvm.__version__, 'from', os.path.dirname(tvm.__file__))\n"
    "    return tvm, relay\n"
    "\n"
    "def tvm_convert_and_run(src, inputs):\n"
    "    tvm, relay = import_tvm()\n"
    "    import os\n"
    "    if BUFFERS:  # as the worker: aliasfuzz-worker/1 hands a worker a function and its arguments\n"
    "        raise NotImplementedError('the tvm worker does not convert programs with module state (buffers)')\n"
    "    names = [i[0] for i in INPUTS]\n"
    "    nout = len(OUTPUT_NAMES)\n"
    "    shapes = [(n, (list(t.shape), str(t.dtype).replace('torch.', ''))) for n, t in zip(names, inputs)]\n"
    "    try:\n"
    "        fn = torch.jit.CompilationUnit(wrapper_source(src, names, nout)).af_returns_inputs\n"
    "        mod, params = relay.frontend.from_pytorch(fn, shapes)\n"
    "        with_inputs = True\n"
    "    except NotImplementedError:\n"
    "        raise\n"
    "    except Exception as e:\n"
    "        print('converting with the final inputs as extra outputs failed (%s); converting the program alone' %\n"
    "              str(e).strip().splitlines()[-1])\n"
    "        mod, params = relay.frontend.from_pytorch(torch.jit.CompilationUnit(src).program, shapes)\n"
    "        with_inputs = False\n"
    "    print('--- Relay module ---')\n"
    "    print(mod['main'])\n"
    "    # every parameter of main by position: TVM 0.14 may give one input several parameters of one name\n"
    "    feeds = dict(zip(names, [t.numpy() for t in inputs]))\n"
    "    free = [p.name_hint for p in mod['main'].params if p.name_hint not in feeds and p.name_hint not in params]\n"
    "    if free:\n"
    "        raise LookupError(\"the Relay module's main has parameters that are no program input nor bound weight \"\n"
    "                          '(free variables the frontend left): ' + ', '.join('%' + n for n in free))\n"
    "    args = [feeds[p.name_hint] if p.name_hint in feeds else params[p.name_hint].numpy() for p in mod['main'].params]\n"
    "    dev = tvm.cpu(0)\n"
    "    how = os.environ.get('AF_TVM_EXECUTOR', 'interp')\n"
    "    if how == 'compiled':\n"
    "        how = 'vm' if any(k in src for k in ('\\n    if ', '\\n    for ', '\\n    while ')) else 'graph'\n"
    "    print('executor:', how)\n"
    "    if how == 'graph':\n"
    "        from tvm.contrib import graph_executor\n"
    "        with tvm.transform.PassContext(opt_level=3):\n"
    "            lib = relay.build(mod, target='llvm')\n"
    "        m = graph_executor.GraphModule(lib['default'](dev))\n"
    "        for k, a in enumerate(args):\n"
    "            m.set_input(k, tvm.nd.array(a, dev))\n"
    "        m.run()\n"
    "        vals = [m.get_output(k).numpy() for k in range(m.get_num_outputs())]\n"
    "    else:\n"
    "        with tvm.transform.PassContext(opt_level=0 if how == 'interp' else 3):\n"
    "            run = relay.create_executor('debug' if how == 'interp' else 'vm', mod=mod, device=dev,\n"
    "                                        target='llvm -opt-level=0' if how == 'interp' else 'llvm').evaluate()\n"
    "            vals = flatten_tvm(run(*args))\n"
    "    vals = [torch.from_numpy(v) for v in vals]\n"
    "    return vals[:nout], vals[nout:] if with_inputs else [None] * len(names)\n"
    "\n"
    "def flatten_tvm(value):\n"
    "    if hasattr(value, 'numpy'):\n"
    "        return [value.numpy()]\n"
    "    out = []\n"
    "    for v in value:\n"
    "        out.extend(flatten_tvm(v))\n"
    "    return out\n"
    "\n"
    "def convert_and_run(src, converted, inputs):\n"
    "    if VERDICT != 'converter-timeout':\n"
    "        return tvm_convert_and_run(src, inputs)\n"
    "    # a timeout finding: it reproduces when the conversion and run outlast the deadline\n"
    "    import os, time\n"
    "    deadline = float(os.environ.get('AF_DEADLINE', '10'))\n"
    "    import_tvm()  # (not timed: a worker has imported TVM before its first program)\n"
    "    t0 = time.perf_counter()\n"
    "    try:\n"
    "        tvm_convert_and_run(src, inputs)\n"
    "    except Exception as e:\n"
    "        print('RESULT: found as converter-timeout, but the converter ended after %.1f s with %s: %s: a different '\n"
    "              'failure' % (time.perf_counter() - t0, type(e).__name__, str(e).strip().splitlines()[-1] if str(e) else ''))\n"
    "        sys.exit(2)\n"
    "    dt = time.perf_counter() - t0\n"
    "    if dt > deadline:\n"
    "        print('RESULT: TIMEOUT (the bug reproduces): the converter took %.1f s, over the deadline of %g s (AF_DEADLINE)'\n"
    "              % (dt, deadline))\n"
    "        sys.exit(1)\n"
    "    print('RESULT: the converter finished in %.1f s, within the deadline of %g s (AF_DEADLINE): the timeout does not '\n"
    "          'reproduce' % (dt, deadline))\n"
    "    sys.exit(0)\n";

#define WORKER_CONVERTER(var, cname, desc, repro)                                                            \
  const conv_converter var = {.name = cname, .description = desc, .available = wc_available,               \
                              .version = wc_version, .convert = wc_convert, .run = wc_run,                 \
                              .free_state = wc_free_state, .repro_py = repro};

WORKER_CONVERTER(conv_onnx, "onnx",
                 "external worker: torch.onnx.export of the scripted program, run in ONNX Runtime", repro_onnx)
WORKER_CONVERTER(conv_functorch, "functorch",
                 "external worker: functorch.functionalize + make_fx of the scripted program, FX graph run",
                 repro_functorch)
WORKER_CONVERTER(conv_tvm, "tvm", "external worker: TVM relay.frontend.from_pytorch, run by Relay's interpreter (where TVM 0.11-0.14 is found)",
                 repro_tvm)

/* repro.py snippets of the PyTorch 2.x workers (issue 14). Each builds the program the way
 * afworker.program_module does: SRC run as Python, an nn.Module whose forward calls it (module
 * state: whose forward it is, its buffers registered from the inputs); with returns_state the
 * forward returns the outputs followed by every input's final state. Keep in step with
 * harness/workers/afworker.py and worker_*.py. */
#define REPRO_PY_MODULE                                                                                   \
  "def program_module(src, inputs, returns_state=False):\n"                                               \
  "    \"\"\"(nn.Module running SRC as Python, clones of its forward's arguments), as the worker.\"\"\"\n" \
  "    names = [i[0] for i in INPUTS]\n"                                                                  \
  "    params = [n for i, n in enumerate(names) if i not in BUFFERS]\n"                                   \
  "    ns = {'torch': torch, 'Tensor': torch.Tensor, 'Tuple': Tuple, 'List': List, 'Optional': Optional}\n" \
  "    exec(src, ns)\n"                                                                                   \
  "    call = 'af_program(%s)' % ', '.join((['self'] if BUFFERS else []) + params)\n"                     \
  "    nout = len(OUTPUT_NAMES)\n"                                                                        \
  "    if returns_state:\n"                                                                               \
  "        items = [] if nout == 0 else ['af_result'] if nout == 1 else ['af_result[%d]' % k for k in range(nout)]\n" \
  "        items += [('self.' if i in BUFFERS else '') + n + '.clone()' for i, n in enumerate(names)]\n"   \
  "        body = '    af_result = %s\\n    return (%s)\\n' % (call, ''.join(x + ', ' for x in items))\n"  \
  "    else:\n"                                                                                           \
  "        body = '    return %s\\n' % call\n"                                                            \
  "    fns = {'af_program': ns['forward'] if BUFFERS else ns['program'], 'torch': torch}\n"               \
  "    exec('def forward(self%s):\\n%s' % (''.join(', ' + p for p in params), body), fns)\n"              \
  "    m = type('Program', (torch.nn.Module,), {'forward': fns['forward']})().eval()\n"                   \
  "    for i in BUFFERS:\n"                                                                               \
  "        m.register_buffer(names[i], inputs[i].clone())\n"                                              \
  "    fresh = make_inputs()  # another set laid out as the inputs are (LAYOUTS), as the worker's req.fresh()\n" \
  "    return m, [t for i, t in enumerate(fresh) if i not in BUFFERS]\n"                                 \
  "\n"                                                                                                    \
  "def need(package, pip):\n"                                                                             \
  "    import importlib\n"                                                                                \
  "    try:\n"                                                                                            \
  "        return importlib.import_module(package)\n"                                                     \
  "    except ImportError as e:\n"                                                                        \
  "        print('ENVIRONMENT: this reproducer needs %s (pip install %s): %s' % (package, pip, e))\n"      \
  "        sys.exit(3)\n"                                                                                 \
  "\n"

#define REPRO_PY_EXPORT(decompose)                                                                         \
  "# Needs: pip install torch==2.13.0 (CPU wheel). torch.export.export, run through ep.module().\n"        \
  REPRO_PY_MODULE                                                                                         \
  "def convert_and_run(src, converted, inputs):\n"                                                        \
  "    m, args = program_module(src, inputs)\n"                                                           \
  "    ep = torch.export.export(m, tuple(args))\n"                                                        \
  decompose                                                                                               \
  "    print('--- exported program ---')\n"                                                               \
  "    print(ep)\n"                                                                                       \
  "    # ep.module() writes input mutations back into its arguments and buffer mutations into its buffers\n" \
  "    return module_call(ep.module(), inputs)\n"

static const char repro_export[] = REPRO_PY_EXPORT("");
static const char repro_export_decomp[] = REPRO_PY_EXPORT("    ep = ep.run_decompositions()\n");

#define REPRO_PY_COMPILE(backend, setup)                                                                    \
  "# Needs: pip install torch==2.13.0 (CPU wheel)" setup ". torch.compile(backend='" backend "') on the CPU.\n" \
  REPRO_PY_MODULE                                                                                         \
  "def convert_and_run(src, converted, inputs):\n"                                                        \
  "    import os, tempfile\n"                                                                             \
  "    os.environ.setdefault('TORCHINDUCTOR_CACHE_DIR', tempfile.mkdtemp(prefix='aliasfuzz-inductor-'))\n" \
  "    m, _ = program_module(src, inputs)\n"                                                              \
  "    if BUFFERS:  # the module, compiled\n"                                                             \
  "        compiled = torch.compile(m, backend='" backend "')\n"                                          \
  "    else:  # the program function, compiled\n"                                                         \
  "        ns = {'torch': torch, 'Tensor': torch.Tensor, 'Tuple': Tuple, 'List': List, 'Optional': Optional}\n" \
  "        exec(src, ns)\n"                                                                               \
  "        compiled = torch.compile(ns['program'], backend='" backend "')\n"                              \
  "    from torch._dynamo.utils import counters\n"                                                        \
  "    if any(l is not None for l in LAYOUTS) and os.environ.get('AF_SECOND_CALL') != '0':\n"            \
  "        # calling again (aliasfuzz's PROTOCOL.md): call 1 on fresh contiguous copies holding the same\n" \
  "        # values compiles; call 2 below, on the inputs as laid out (LAYOUTS), reuses what it compiled\n" \
  "        plain = [t.clone(memory_format=torch.contiguous_format) for t in inputs]\n"                    \
  "        want, want_in = run_eager([t.clone() for t in plain])\n"                                       \
  "        got, got_in = module_call(m, plain, lambda *args: compiled(*args))\n"                          \
  "        bad = ['output %d' % k for k, w in enumerate(want) if k >= len(got) or differs(w, got[k])]\n"  \
  "        bad += ['input %s' % INPUTS[i][0] for i, w in enumerate(want_in) if differs(w, got_in[i])]\n"  \
  "        print('call 1 of 2 (fresh contiguous inputs): %s' % ('differs from eager: ' + ', '.join(bad) if bad else 'agrees with eager'))\n" \
  "        if bad:\n"                                                                                     \
  "            for k, w in enumerate(want):\n"                                                            \
  "                print('call 1 output %d: eager %s\\ncall 1 output %d: converted %s' % (k, describe(w), k, describe(got[k] if k < len(got) else None)))\n" \
  "            print('RESULT: MISMATCH (the bug reproduces) on call 1 of 2: ' + ', '.join(bad))\n"         \
  "            sys.exit(1)\n"                                                                              \
  "        print('call 2 of 2: the inputs as laid out (LAYOUTS), the callable compiled for call 1')\n"    \
  "    outs, final = module_call(m, inputs, lambda *args: compiled(*args))\n"                             \
  "    for reason, n in counters['graph_break'].items():\n"                                               \
  "        print('graph break (%dx): %s' % (n, str(reason).strip().splitlines()[0]))\n"                   \
  "    return outs, final\n"

static const char repro_aot_eager[] = REPRO_PY_COMPILE("aot_eager", "");
static const char repro_inductor[] = REPRO_PY_COMPILE("inductor", " and a C++ compiler (g++)");

static const char repro_onnx_dynamo[] =
    "# Needs: pip install torch==2.13.0 onnx==1.23.2 onnxscript==0.7.2 onnxruntime==1.32.0 (CPU wheels).\n"
    "# torch.onnx.export(dynamo=True), run in ONNX Runtime; final input states are extra model outputs.\n"
    REPRO_PY_MODULE
    "def convert_and_run(src, converted, inputs):\n"
    "    for p, pip in (('onnx', 'onnx'), ('onnxscript', 'onnxscript'), ('onnxruntime', 'onnxruntime')):\n"
    "        need(p, pip)\n"
    "    import onnxruntime\n"
    "    m, args = program_module(src, inputs, returns_state=True)\n"
    "    prog = torch.onnx.export(m, tuple(args), dynamo=True, verbose=False)\n"
    "    s = onnxruntime.InferenceSession(prog.model_proto.SerializeToString(), providers=['CPUExecutionProvider'])\n"
    "    feeds = dict(zip([n for i, (n, *_) in enumerate(INPUTS) if i not in BUFFERS], [a.numpy() for a in args]))\n"
    "    vals = [torch.from_numpy(v) for v in s.run(None, {i.name: feeds[i.name] for i in s.get_inputs()})]\n"
    "    n = len(OUTPUT_NAMES)\n"
    "    return vals[:n], vals[n:]\n";

static const char repro_tvm_relax[] =
    "# Needs: pip install torch==2.13.0 apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.15.post2 (CPU wheels;\n"
    "# the FFI runtime pinned as it was found with). TVM Relax's\n"
    "# from_exported_program, tvm.compile for llvm, Relax VM; final input states are extra outputs.\n"
    REPRO_PY_MODULE
    "def convert_and_run(src, converted, inputs):\n"
    "    tvm = need('tvm', 'apache-tvm==0.27.0.post1')\n"
    "    from tvm import relax\n"
    "    from tvm.relax.frontend.torch import from_exported_program\n"
    "    m, args = program_module(src, inputs, returns_state=True)\n"
    "    mod = from_exported_program(torch.export.export(m, tuple(args)))\n"
    "    print('--- Relax module ---')\n"
    "    print(mod.script(show_meta=False))\n"
    "    build = getattr(tvm, 'compile', None) or relax.build\n"
    "    vm = relax.VirtualMachine(build(mod, target='llvm'), tvm.cpu(0))\n"
    "    make = getattr(tvm.runtime, 'tensor', None) or tvm.nd.array\n"
    "    res = vm['main'](*[make(a.numpy(), tvm.cpu(0)) for a in args])\n"
    "    vals = [torch.from_numpy(v.numpy()) for v in ([res] if hasattr(res, 'numpy') else list(res))]\n"
    "    n = len(OUTPUT_NAMES)\n"
    "    return vals[:n], vals[n:]\n";

static const char repro_openvino[] =
    "# Needs: pip install torch==2.13.0 openvino==2026.4.1 packaging (CPU wheels; OpenVINO's PyTorch\n"
    "# frontend imports packaging, which neither package installs). openvino.convert_model of the\n"
    "# program's torch.export ExportedProgram, compiled for CPU (f32); final input states are extra outputs.\n"
    REPRO_PY_MODULE
    "def convert_and_run(src, converted, inputs):\n"
    "    ov = need('openvino', 'openvino==2026.4.1')\n"
    "    need('packaging', 'packaging')\n"
    "    import numpy as np\n"
    "    m, args = program_module(src, inputs, returns_state=True)\n"
    "    model = ov.convert_model(torch.export.export(m, tuple(args)))\n"
    "    cm = ov.compile_model(model, 'CPU', {'INFERENCE_NUM_THREADS': 1, 'INFERENCE_PRECISION_HINT': 'f32'})\n"
    "    res = cm([a.numpy() for a in args])\n"
    "    vals = [torch.from_numpy(np.array(res[o])) for o in cm.outputs]\n"
    "    n = len(OUTPUT_NAMES)\n"
    "    return vals[:n], vals[n:]\n";

WORKER_CONVERTER(conv_export, "export", "external worker: torch.export.export (PyTorch 2.x), run through ep.module()",
                 repro_export)
WORKER_CONVERTER(conv_export_decomp, "export-decomp",
                 "external worker: torch.export.export + run_decompositions() (core ATen), run through ep.module()",
                 repro_export_decomp)
WORKER_CONVERTER(conv_aot_eager, "aot_eager", "external worker: torch.compile(backend='aot_eager') on the CPU",
                 repro_aot_eager)
WORKER_CONVERTER(conv_inductor, "inductor",
                 "external worker: torch.compile(backend='inductor') on the CPU (C++ codegen), its own cache folder",
                 repro_inductor)
WORKER_CONVERTER(conv_onnx_dynamo, "onnx-dynamo", "external worker: torch.onnx.export(dynamo=True), run in ONNX Runtime",
                 repro_onnx_dynamo)
WORKER_CONVERTER(conv_tvm_relax, "tvm-relax",
                 "external worker: TVM Relax from_exported_program (apache-tvm), built for llvm, Relax VM", repro_tvm_relax)
WORKER_CONVERTER(conv_openvino, "openvino",
                 "external worker: openvino.convert_model of the ExportedProgram, compiled for CPU", repro_openvino)

static const struct {
  const conv_converter *c;
  const char *script;
  double request_s, hello_s; /* its own deadlines (0: the client's defaults, 30 s and 120 s) */
} named[] = {
    {&conv_onnx, "worker_onnx.py", 0, 0},
    {&conv_functorch, "worker_functorch.py", 0, 0},
    {&conv_tvm, "worker_tvm.py", 0, 0},
    /* PyTorch 2.x (issue 14): compiles take seconds, a cold first one (Inductor's toolchain, TVM,
     * OpenVINO) tens of seconds; their warm-up runs before the hello */
    {&conv_export, "worker_export.py", 60, 300},
    {&conv_export_decomp, "worker_export_decomp.py", 120, 300},
    {&conv_aot_eager, "worker_aot_eager.py", 60, 300},
    {&conv_inductor, "worker_inductor.py", 180, 600},
    {&conv_onnx_dynamo, "worker_onnx_dynamo.py", 120, 300},
    {&conv_tvm_relax, "worker_tvm_relax.py", 120, 300},
    {&conv_openvino, "worker_openvino.py", 120, 300},
};

static slot *find_slot(const conv_converter *c) {
  slot *s = slot_of(c);
  if (s) return s;
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
    if (named[i].c == c) {
      s = add_slot(c, named[i].script, NULL);
      s->default_s = named[i].request_s;
      s->hello_s = named[i].hello_s;
      return s;
    }
  return NULL;
}

/* External converters: each one its own allocation, found again by command. */
typedef struct ext_converter {
  conv_converter c;
  char *name;
  char *description;
} ext_converter;

const conv_converter *conv_worker_external(const char *command) {
  if (!command || !*command) return NULL;
  pthread_mutex_lock(&slots_mu);
  const conv_converter *found = NULL;
  for (int i = 0; i < nslots && !found; i++)
    if (slots[i]->command && strcmp(slots[i]->command, command) == 0) found = slots[i]->c;
  if (!found) {
    ext_converter *e = af_xcalloc(1, sizeof *e);
    af_buf b = {0};
    af_buf_printf(&b, "external:%s", command);
    e->name = af_buf_take(&b);
    af_buf_printf(&b, "external worker: `%s` (aliasfuzz-worker/1)", command);
    e->description = af_buf_take(&b);
    e->c = (conv_converter){.name = e->name, .description = e->description, .available = wc_available,
                            .version = wc_version, .convert = wc_convert, .run = wc_run,
                            .free_state = wc_free_state};
    add_slot(&e->c, NULL, command);
    found = &e->c;
  }
  pthread_mutex_unlock(&slots_mu);
  return found;
}

void conv_worker_start_all(void) {
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
    conv_worker *w = conv_worker_of(named[i].c);
    if (w) conv_worker_start(w);
  }
}

void conv_worker_shutdown_all(void) {
  pthread_mutex_lock(&slots_mu);
  for (int i = 0; i < nslots; i++)
    if (slots[i]->w) {
      pthread_mutex_lock(&slots[i]->w->mu);
      stop_worker(slots[i]->w);
      pthread_mutex_unlock(&slots[i]->w->mu);
    }
  pthread_mutex_unlock(&slots_mu);
}
