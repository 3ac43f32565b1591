/* af.c - errors, dtypes, allocation helpers and the string buffer. */
#include "af.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

int af_fail(af_err *err, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return -1;
}

void af_err_prefix(af_err *err, const char *fmt, ...) {
  if (!err) return;
  char pre[256], old[sizeof err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pre, sizeof pre, fmt, ap);
  va_end(ap);
  memcpy(old, err->msg, sizeof old);
  size_t n = strlen(pre);
  if (n + 2 >= sizeof err->msg) return;
  memcpy(err->msg, pre, n);
  memcpy(err->msg + n, ": ", 2);
  memcpy(err->msg + n + 2, old, sizeof err->msg - n - 2);
  err->msg[sizeof err->msg - 1] = 0;
}

static const struct {
  const char *name, *torch;
  size_t size;
} dtypes[AF_DTYPE_COUNT] = {
    [AF_FLOAT32] = {"float32", "torch.float32", 4},
    [AF_FLOAT64] = {"float64", "torch.float64", 8},
    [AF_INT64] = {"int64", "torch.int64", 8},
    [AF_BOOL] = {"bool", "torch.bool", 1},
    [AF_INT32] = {"int32", "torch.int32", 4},
    [AF_INT8] = {"int8", "torch.int8", 1},
    [AF_UINT8] = {"uint8", "torch.uint8", 1},
    [AF_FLOAT16] = {"float16", "torch.float16", 2},
    [AF_BFLOAT16] = {"bfloat16", "torch.bfloat16", 2},
    [AF_COMPLEX64] = {"complex64", "torch.complex64", 8},
    [AF_COMPLEX128] = {"complex128", "torch.complex128", 16},
};

const char *af_dtype_names(void) { return "float32, float64, int64, bool, int32, int8, uint8, float16, bfloat16"; }

int af_dtype_is_float(af_dtype d) { return d == AF_FLOAT32 || d == AF_FLOAT64 || d == AF_FLOAT16 || d == AF_BFLOAT16; }
int af_dtype_is_int(af_dtype d) { return d == AF_INT64 || d == AF_INT32 || d == AF_INT8 || d == AF_UINT8; }
int af_dtype_is_complex(af_dtype d) { return d == AF_COMPLEX64 || d == AF_COMPLEX128; }

const char *af_dtype_name(af_dtype d) { return d < AF_DTYPE_COUNT ? dtypes[d].name : "?"; }
const char *af_dtype_torch(af_dtype d) { return d < AF_DTYPE_COUNT ? dtypes[d].torch : "?"; }
size_t af_dtype_size(af_dtype d) { return d < AF_DTYPE_COUNT ? dtypes[d].size : 0; }

int af_dtype_parse(const char *s, af_dtype *out) {
  for (int i = 0; i < AF_DTYPE_COUNT; i++)
    if (strcmp(s, dtypes[i].name) == 0) {
      *out = (af_dtype)i;
      return 0;
    }
  return -1;
}

int af_dtype_parse_real(const char *s, af_dtype *out) {
  af_dtype d;
  if (af_dtype_parse(s, &d) || (int)d >= AF_REAL_DTYPE_COUNT) return -1;
  *out = d;
  return 0;
}

static void *oom(void) {
  fputs("aliasfuzz: out of memory\n", stderr);
  abort();
}
void *af_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  return p ? p : oom();
}
void *af_xcalloc(size_t n, size_t m) {
  void *p = calloc(n ? n : 1, m ? m : 1);
  return p ? p : oom();
}
void *af_xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  return p ? p : oom();
}
char *af_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(af_xmalloc(n), s, n);
}

static void buf_reserve(af_buf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) cap *= 2;
  b->s = af_xrealloc(b->s, cap);
  b->cap = cap;
}

void af_buf_printf(af_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  buf_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void af_buf_puts(af_buf *b, const char *s) {
  size_t n = strlen(s);
  buf_reserve(b, n);
  memcpy(b->s + b->len, s, n + 1);
  b->len += n;
}

char *af_buf_take(af_buf *b) {
  char *s = b->s ? b->s : af_xstrdup("");
  b->s = NULL;
  b->len = b->cap = 0;
  return s;
}

void af_buf_free(af_buf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}

/* ---- durable files */

int af_write_fault(void) {
  static long limit = -2, done;
  if (limit == -2) {
    const char *v = getenv("AF_FAIL_WRITE_AFTER");
    char *end;
    limit = v && *v ? strtol(v, &end, 10) : -1;
    if (v && *v && (*end || limit < 0)) limit = -1;
  }
  return limit >= 0 && done++ >= limit ? ENOSPC : 0;
}

int af_sync_dir(const char *dir, af_err *err) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return af_fail(err, "%s: cannot open the folder to sync it: %s", dir, strerror(errno));
  int rc = fsync(fd) != 0 && errno != EINVAL ? af_fail(err, "%s: fsync of the folder failed: %s", dir, strerror(errno)) : 0;
  close(fd);
  return rc;
}

/* The folder of path into dir (at most n bytes): "." when path has no slash. */
static void folder_of(const char *path, char *dir, size_t n) {
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, n, ".");
  else if (slash == path) snprintf(dir, n, "/");
  else snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

int af_write_atomic(const char *path, const char *data, size_t len, af_err *err) {
  char tmp[4096], dir[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return af_fail(err, "%s: cannot create: %s", tmp, strerror(errno));
  int e = af_write_fault();
  for (size_t off = 0; !e && off < len;) {
    ssize_t w = write(fd, data + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) e = w < 0 ? errno : ENOSPC;
    else off += (size_t)w;
  }
  if (!e && fsync(fd) != 0) e = errno;
  if (close(fd) != 0 && !e) e = errno;
  if (e) {
    unlink(tmp);
    return af_fail(err, "%s: write failed: %s", path, strerror(e));
  }
  if (rename(tmp, path) != 0) {
    e = errno;
    unlink(tmp);
    return af_fail(err, "%s: rename failed: %s", path, strerror(e));
  }
  folder_of(path, dir, sizeof dir);
  return af_sync_dir(dir, err);
}

/* ---- folder locks */

static int held_locks[16], nheld;

int af_dir_lock_take(const char *dir, const char *what, af_dir_lock *lk, char stale[256], af_err *err) {
  char path[4096], old[512] = "";
  lk->fd = -1;
  if (stale) stale[0] = 0;
  snprintf(path, sizeof path, "%s/.lock", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return af_fail(err, "%s: cannot open the folder's lock: %s", path, strerror(errno));
  ssize_t n = pread(fd, old, sizeof old - 1, 0);
  old[n > 0 ? n : 0] = 0;
  old[strcspn(old, "\n")] = 0;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    close(fd);
    if (e != EWOULDBLOCK) return af_fail(err, "%s: cannot lock: %s", path, strerror(e));
    char *sp = strchr(old, ' ');
    if (!*old) af_fail(err, "%s is in use: another process holds %s; wait for it to end or use another folder", dir, path);
    else af_fail(err, "%s is in use: pid %.*s (aliasfuzz %s) holds %s; wait for it to end or use another folder", dir,
                 sp ? (int)(sp - old) : (int)strlen(old), old, sp ? sp + 1 : "?", path);
    return AF_LOCK_HELD;
  }
  n = pread(fd, old, sizeof old - 1, 0); /* again: the holder may have released it in between */
  old[n > 0 ? n : 0] = 0;
  old[strcspn(old, "\n")] = 0;
  if (*old && stale) {
    char *sp = strchr(old, ' ');
    long pid = strtol(old, NULL, 10);
    snprintf(stale, 256, "took over the lock of %.80s left by pid %.*s (aliasfuzz %.80s), which %s", path,
             sp ? (int)(sp - old) : (int)strlen(old), old, sp ? sp + 1 : "?",
             pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH ? "ended without releasing it" : "no longer holds it");
  }
  char mine[512];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  int m = snprintf(mine, sizeof mine, "%ld %s, since %04d-%02d-%02d %02d:%02d:%02d UTC\n", (long)getpid(), what, tm.tm_year + 1900,
                   tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (ftruncate(fd, 0) != 0 || pwrite(fd, mine, (size_t)m, 0) != m) {
    int e = errno;
    close(fd);
    return af_fail(err, "%s: cannot write the holder's pid: %s", path, strerror(e));
  }
  lk->fd = fd;
  if (nheld < (int)(sizeof held_locks / sizeof *held_locks)) held_locks[nheld++] = fd;
  return 0;
}

void af_dir_lock_release(af_dir_lock *lk) {
  if (!lk || lk->fd < 0) return;
  for (int i = 0; i < nheld; i++)
    if (held_locks[i] == lk->fd) held_locks[i] = held_locks[--nheld];
  if (ftruncate(lk->fd, 0) != 0) { /* a stale pid in the file only changes the next taker's message */
  }
  close(lk->fd); /* releases the flock */
  lk->fd = -1;
}

void af_dir_lock_drop_inherited(void) {
  for (int i = 0; i < nheld; i++) close(held_locks[i]);
  nheld = 0;
}
