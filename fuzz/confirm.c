/* confirm.c - see confirm.h */
#define _GNU_SOURCE
#include "confirm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../harness/converters/conv_worker.h"

#define CONFIRM_KEEP (64 * 1024) /* output kept from a run */
#define CONFIRM_LIMIT 600.0       /* seconds for one repro.py by default */
#define CONFIRM_MAX_PAR 8         /* repro.py runs at once, at most */

/* The in-process converters and the public API each stands for (its repro.py converts that way);
 * api NULL: aliasfuzz's own, with no public API. */
static const struct {
  const char *name, *api, *why;
} confirm_apis[] = {
    {"functionalize", "torch.func.functionalize(remove='mutations')", NULL},
    {"functionalize-noviews", "torch.func.functionalize(remove='mutations_and_views')", NULL},
    {"jit", "torch._C._jit_pass_remove_mutation from Python", NULL},
    {"script", "torch.jit (TorchScript from Python)", NULL},
    {"ref", NULL, "aliasfuzz's own reference functionalizer: no public API to confirm it through"},
    {"naive", NULL, "aliasfuzz's own deliberately wrong demo converter: no public API to confirm it through"},
};

const char *confirm_api(const conv_converter *c, char *buf, size_t bufsz, const char **why) {
  *why = NULL;
  for (size_t i = 0; i < sizeof confirm_apis / sizeof confirm_apis[0]; i++)
    if (!strcmp(c->name, confirm_apis[i].name)) {
      *why = confirm_apis[i].why;
      if (!confirm_apis[i].api) return NULL;
      snprintf(buf, bufsz, "%s", confirm_apis[i].api);
      return buf;
    }
  if (!c->repro_py) {
    *why = "its repro.py runs eager only (the converter gave no Python to convert with)";
    return NULL;
  }
  if (conv_worker_of(c)) { /* a worker converts with Python already: its repro.py is that Python, in a fresh process */
    snprintf(buf, bufsz, "%s's Python API in a fresh process (its repro.py)", c->name);
    return buf;
  }
  *why = "no public Python API is known for this converter";
  return NULL;
}

const char *confirm_status_of_exit(int exit_status) {
  return exit_status == 1 ? "confirmed" : exit_status == 0 ? "artifact" : "unconfirmed";
}

void confirm_run_clear(confirm_run *r) {
  if (!r) return;
  free(r->result);
  free(r->why);
  free(r->output);
  memset(r, 0, sizeof *r);
}

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Appends n bytes to the kept output, keeping its last CONFIRM_KEEP bytes. */
static void keep_tail(af_buf *b, const char *s, size_t n) {
  af_buf_printf(b, "%.*s", (int)n, s);
  if (b->len > 2 * CONFIRM_KEEP) {
    memmove(b->s, b->s + b->len - CONFIRM_KEEP, CONFIRM_KEEP + 1);
    b->len = CONFIRM_KEEP;
  }
}

/* The last "RESULT: " line of out, without the prefix; new, NULL when there is none. */
static char *result_line(const char *out) {
  const char *last = NULL;
  for (const char *p = out; (p = strstr(p, "RESULT: ")); p++)
    if (p == out || p[-1] == '\n') last = p;
  if (!last) return NULL;
  last += strlen("RESULT: ");
  return strndup(last, strcspn(last, "\n"));
}

/* A repro.py running: its process (group), the read end of its output, what it printed so far. */
typedef struct confirm_proc {
  pid_t pid; /* 0: none */
  int fd;
  double t0;
  int timed_out;
  af_buf out;
} confirm_proc;

/* Starts DIR/repro.py in a fresh process group, stdout and stderr into a pipe. 0, or -1 with err
 * and r filled (r->why: the reason). */
static int proc_start(const char *dir, confirm_proc *pr, confirm_run *r, af_err *err) {
  memset(pr, 0, sizeof *pr);
  memset(r, 0, sizeof *r);
  r->exit = -1;
  char path[4200];
  snprintf(path, sizeof path, "%s/repro.py", dir);
  const char *why = NULL, *py = NULL;
  af_buf w = {0};
  int fds[2] = {-1, -1};
  if (access(path, R_OK) != 0) af_buf_printf(&w, "the finding folder has no repro.py (%s)", strerror(errno));
  else if (!(py = conv_worker_python(&why))) af_buf_printf(&w, "no Python with torch to run repro.py: %s", why ? why : "none found");
  else if (pipe2(fds, O_CLOEXEC)) af_buf_printf(&w, "pipe: %s", strerror(errno));
  if (w.s) goto out_fail;
  fflush(NULL);
  pr->pid = fork();
  if (pr->pid < 0) {
    pr->pid = 0;
    af_buf_printf(&w, "fork: %s", strerror(errno));
    goto out_fail;
  }
  if (pr->pid == 0) { /* its own process group, so a time limit kills what it started too */
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    execl(py, py, path, (char *)NULL);
    dprintf(2, "aliasfuzz: cannot run %s: %s\n", py, strerror(errno));
    _exit(127);
  }
  setpgid(pr->pid, pr->pid);
  close(fds[1]);
  pr->fd = fds[0];
  pr->t0 = mono_s();
  af_buf_puts(&pr->out, "");
  return 0;
out_fail:
  if (fds[0] >= 0) close(fds[0]);
  if (fds[1] >= 0) close(fds[1]);
  r->why = af_buf_take(&w);
  r->output = strdup("");
  return af_fail(err, "%s: %s", path, r->why);
}

/* Reads what the running processes of ps (n of them, pid 0: a free slot) print, for at most a
 * second; a process whose output ends, or that runs past limit_s, is reaped into runs[k] and its
 * slot freed. Returns how many are still running. */
static int proc_pump(confirm_proc *ps, confirm_run *runs, int n, double limit_s) {
  struct pollfd pf[64];
  int idx[64], m = 0;
  for (int k = 0; k < n && m < 64; k++)
    if (ps[k].pid) {
      pf[m] = (struct pollfd){ps[k].fd, POLLIN, 0};
      idx[m++] = k;
    }
  if (!m) return 0;
  if (poll(pf, (nfds_t)m, 1000) < 0 && errno != EINTR) return m;
  int running = 0;
  for (int q = 0; q < m; q++) {
    confirm_proc *pr = &ps[idx[q]];
    int done = 0;
    if (pf[q].revents) {
      char chunk[4096];
      ssize_t got = read(pr->fd, chunk, sizeof chunk);
      if (got > 0) keep_tail(&pr->out, chunk, (size_t)got);
      else if (got == 0 || errno != EINTR) done = 1;
    }
    if (!done && mono_s() - pr->t0 > limit_s) done = pr->timed_out = 1;
    if (!done) {
      running++;
      continue;
    }
    /* reap: a time limit kills the group; after a normal end, what repro.py left behind (a guarded child) */
    close(pr->fd);
    if (pr->timed_out) kill(-pr->pid, SIGKILL);
    int st = 0;
    while (waitpid(pr->pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (!pr->timed_out) kill(-pr->pid, SIGKILL);
    confirm_run *r = &runs[idx[q]];
    r->output = af_buf_take(&pr->out);
    r->result = result_line(r->output);
    af_buf w = {0};
    if (pr->timed_out) af_buf_printf(&w, "repro.py ran past %.0f s", limit_s);
    else if (WIFSIGNALED(st)) af_buf_printf(&w, "repro.py was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 127) af_buf_puts(&w, "the stack's Python could not be started");
    else if (WIFEXITED(st)) r->exit = WEXITSTATUS(st);
    r->why = w.s ? af_buf_take(&w) : NULL;
    pr->pid = 0;
  }
  return running;
}

int confirm_repro_py(const char *dir, double limit_s, confirm_run *r, af_err *err) {
  confirm_proc pr;
  if (proc_start(dir, &pr, r, err)) return -1;
  while (proc_pump(&pr, r, 1, limit_s > 0 ? limit_s : CONFIRM_LIMIT)) {
  }
  return 0;
}

/* ------------------------------------------------------------------ classes */

static const char *str_of(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }

static void replace(cJSON *cls, const char *k, cJSON *v) {
  if (cJSON_GetObjectItem(cls, k)) cJSON_ReplaceItemInObject(cls, k, v);
  else cJSON_AddItemToObject(cls, k, v);
}

/* One line of at most 300 characters (the first line of s). */
static void add_line(cJSON *o, const char *k, const char *s) {
  char line[301];
  snprintf(line, sizeof line, "%.*s", (int)strcspn(s, "\n"), s);
  cJSON_AddStringToObject(o, k, line);
}

/* Why repro.py's exit status leaves the class unconfirmed. */
static void unconfirmed_why(af_buf *b, const confirm_run *r) {
  if (r->exit == 2) af_buf_printf(b, "it fails otherwise there (repro.py exit 2: %s)", r->result ? r->result : "no RESULT line");
  else if (r->exit == 3) af_buf_printf(b, "repro.py could not run the converter here (exit 3: %s)", r->result ? r->result : "see its output");
  else if (r->exit >= 0) af_buf_printf(b, "repro.py exit %d%s%s", r->exit, r->result ? ": " : "", r->result ? r->result : "");
  else af_buf_puts(b, r->why ? r->why : "repro.py did not end by itself");
}

/* Marks cls (user_path, user_path_line) from run r of its repro.py through api (NULL: none, why
 * says so; r NULL: not run, why says so). Returns the status (static). */
static const char *mark(cJSON *cls, const char *api, const char *why, const confirm_run *r) {
  cJSON *a = cJSON_CreateObject();
  af_buf line = {0};
  const char *status = r && r->exit >= 0 ? confirm_status_of_exit(r->exit) : "unconfirmed";
  const char *smallest = str_of(cls, "smallest");
  if (api) cJSON_AddStringToObject(a, "api", api);
  if (smallest) cJSON_AddStringToObject(a, "smallest", smallest);
  if (r && r->exit >= 0) cJSON_AddNumberToObject(a, "exit", r->exit);
  if (r && r->result) add_line(a, "result", r->result);
  if (!r) {
    add_line(a, "why", why);
    af_buf_printf(&line, "unconfirmed: %s", why);
  } else if (!strcmp(status, "confirmed")) {
    af_buf_printf(&line, "confirmed through %s", api);
  } else if (!strcmp(status, "artifact")) {
    af_buf_printf(&line, "not seen from %s: harness artifact", api);
    add_line(a, "why", "repro.py exits 0 there: converter and eager agree");
  } else {
    af_buf w = {0};
    unconfirmed_why(&w, r);
    add_line(a, "why", w.s);
    af_buf_printf(&line, "unconfirmed through %s: %s", api, w.s);
    af_buf_free(&w);
  }
  cJSON_AddStringToObject(a, "status", status);
  replace(cls, "user_path", a);
  replace(cls, "user_path_line", cJSON_CreateString(line.s));
  af_buf_free(&line);
  return status;
}

static void count_status(int counts[3], const char *status) {
  counts[!strcmp(status, "confirmed") ? 0 : !strcmp(status, "artifact") ? 1 : 2]++;
}

int confirm_classes(cJSON *idx, const char *dir, const conv_converter *c, double limit_s, af_err *err) {
  cJSON *classes = cJSON_GetObjectItem(idx, "classes"), *cls;
  if (!cJSON_IsArray(classes)) return af_fail(err, "%s/classes.json: no \"classes\" array to confirm", dir);
  const char *why = NULL;
  char apibuf[256];
  const char *api = confirm_api(c, apibuf, sizeof apibuf, &why);
  int n = 0, counts[3] = {0};
  /* the classes whose repro.py runs: up to `par` at once (one per core) */
  int ntodo = 0, next = 0, par = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (par < 1) par = 1;
  if (par > CONFIRM_MAX_PAR) par = CONFIRM_MAX_PAR;
  cJSON **todo = af_xcalloc((size_t)cJSON_GetArraySize(classes) + 1, sizeof *todo);
  cJSON_ArrayForEach(cls, classes) {
    const char *smallest = str_of(cls, "smallest");
    const cJSON *old = cJSON_GetObjectItem(cls, "user_path");
    if (old && smallest && str_of(old, "smallest") && !strcmp(str_of(old, "smallest"), smallest)) continue;
    n++;
    if (!api) count_status(counts, mark(cls, NULL, why, NULL));
    else if (!smallest) count_status(counts, mark(cls, api, "the class has no smallest finding", NULL));
    else todo[ntodo++] = cls;
  }
  confirm_proc procs[CONFIRM_MAX_PAR] = {{0}};
  confirm_run runs[CONFIRM_MAX_PAR];
  cJSON *of[CONFIRM_MAX_PAR] = {0};
  int running = 0;
  while (next < ntodo || running) {
    for (int k = 0; k < par && next < ntodo; k++) {
      if (of[k]) continue;
      of[k] = todo[next++];
      char fdir[4200];
      snprintf(fdir, sizeof fdir, "%s/findings/%s", dir, str_of(of[k], "smallest"));
      fprintf(stderr, "aliasfuzz: confirming class %s through %s (%s/repro.py)\n", str_of(of[k], "id") ? str_of(of[k], "id") : "?",
              api, fdir);
      af_err e;
      if (proc_start(fdir, &procs[k], &runs[k], &e) == 0) running++;
    }
    running = proc_pump(procs, runs, par, limit_s > 0 ? limit_s : CONFIRM_LIMIT);
    for (int k = 0; k < par; k++)
      if (of[k] && !procs[k].pid) { /* ended (or never started: runs[k].why says why) */
        count_status(counts, mark(of[k], api, NULL, &runs[k]));
        confirm_run_clear(&runs[k]);
        of[k] = NULL;
      }
  }
  free(todo);
  if (n)
    fprintf(stderr, "aliasfuzz: %d class(es) checked on the user's path (%s): %d confirmed, %d harness artifact(s), %d unconfirmed\n",
            n, api ? api : "none", counts[0], counts[1], counts[2]);
  return 0;
}

int confirm_is_artifact(const cJSON *cls) {
  const char *s = str_of(cJSON_GetObjectItem(cls, "user_path"), "status");
  return s && !strcmp(s, "artifact");
}

int confirm_count(const cJSON *idx, const char *status) {
  int n = 0;
  const cJSON *cls;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
    const char *s = str_of(cJSON_GetObjectItem(cls, "user_path"), "status");
    n += s && !strcmp(s, status);
  }
  return n;
}
