/* af.c - errors, dtypes, allocation helpers and the string buffer. */
#include "af.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
