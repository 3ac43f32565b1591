/* af.h - basic types shared by every aliasfuzz module: dtypes, limits, the error buffer. */
#ifndef AF_H
#define AF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AF_VERSION "0.1.0"
#define AF_MAX_RANK 8

/* The first four are the original set; the others (issue 15) come after them so that every
 * table indexed by dtype keeps its old entries where they were. The complex dtypes come last:
 * a program makes them with torch.view_as_complex (or view(torch.complex64)) and never takes or
 * returns one (inputs, outputs, module buffers and the worker protocol are real: values cross as
 * doubles), so every table of what crosses those borders stops at AF_REAL_DTYPE_COUNT. */
typedef enum {
  AF_FLOAT32,
  AF_FLOAT64,
  AF_INT64,
  AF_BOOL,
  AF_INT32,
  AF_INT8,
  AF_UINT8,
  AF_FLOAT16,
  AF_BFLOAT16,
  AF_COMPLEX64,
  AF_COMPLEX128,
  AF_DTYPE_COUNT
} af_dtype;
#define AF_REAL_DTYPE_COUNT AF_COMPLEX64

/* Error buffer passed down by every function that can fail. Functions return 0 on success and a
 * non-zero status otherwise, after writing a one-line message (what and where) into err. */
typedef struct af_err {
  char msg[1024];
} af_err;

/* Formats into err (printf-style) and returns -1, so callers can write `return af_fail(...)`. */
int af_fail(af_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefixes err->msg with "prefix: ". */
void af_err_prefix(af_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

const char *af_dtype_name(af_dtype d);      /* "float32", ... borrowed */
int af_dtype_parse(const char *s, af_dtype *out); /* 0 on success */
int af_dtype_parse_real(const char *s, af_dtype *out); /* the same, refusing complex64/complex128 (inputs, outputs, buffers, policies) */
size_t af_dtype_size(af_dtype d);
const char *af_dtype_torch(af_dtype d);     /* "torch.float32" borrowed */
const char *af_dtype_names(void);          /* "float32, float64, ..." every real dtype, for messages; borrowed */
int af_dtype_is_float(af_dtype d);          /* float16/bfloat16/float32/float64 */
int af_dtype_is_int(af_dtype d);            /* uint8/int8/int32/int64 (not bool) */
int af_dtype_is_complex(af_dtype d);        /* complex64/complex128 */

/* Small helpers that abort on out-of-memory (the only sane reaction in a fuzzer). */
void *af_xmalloc(size_t n);
void *af_xcalloc(size_t n, size_t m);
void *af_xrealloc(void *p, size_t n);
char *af_xstrdup(const char *s);

/* Growable string buffer. */
typedef struct af_buf {
  char *s;
  size_t len, cap;
} af_buf;
void af_buf_printf(af_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void af_buf_puts(af_buf *b, const char *s);
char *af_buf_take(af_buf *b); /* new, free with free(); resets b */
void af_buf_free(af_buf *b);

/* Durable files (issue 27). af_write_atomic writes data to path all or nothing: a temporary file
 * beside it (path.tmp.<pid>), fsync, rename over path, fsync of the folder. On failure path is as it
 * was, the temporary file is gone, and err names path and the reason. The environment switch
 * AF_FAIL_WRITE_AFTER=N makes every durable write of this process after its first N fail with
 * "No space left on device" (ENOSPC), so that what a full disk does can be tested anywhere. */
int af_write_atomic(const char *path, const char *data, size_t len, af_err *err);
/* The switch alone, for other writers (a staging folder's rename): 0 when this write may go on,
 * else ENOSPC; counts the write either way. */
int af_write_fault(void);
/* fsync of folder dir (after a rename into it); 0 on success. */
int af_sync_dir(const char *dir, af_err *err);

/* An exclusive lock on a folder: flock(2) on DIR/.lock, which holds "<pid> <what>" of the holder
 * while it is held (emptied on release). The kernel drops a flock when its holder dies, so the lock
 * of a process killed with SIGKILL is taken over; *stale (may be NULL) then receives a line naming
 * that process ("" otherwise). The lock's file descriptor is close-on-exec; a forked child that
 * must not keep the lock alive after its parent dies calls af_dir_lock_drop_inherited(). Returns 0
 * with *lk set; AF_LOCK_HELD when another process holds it (err names its pid and what it runs); -1
 * on another error (err says which). */
#define AF_LOCK_HELD 2
typedef struct af_dir_lock {
  int fd;
} af_dir_lock;
int af_dir_lock_take(const char *dir, const char *what, af_dir_lock *lk, char stale[256], af_err *err);
/* Releases lk (taken by af_dir_lock_take); a lock with fd < 0 is left alone. */
void af_dir_lock_release(af_dir_lock *lk);
/* In a forked child: closes its copy of every lock this process holds (the parent keeps them). */
void af_dir_lock_drop_inherited(void);

#ifdef __cplusplus
}
#endif
#endif
