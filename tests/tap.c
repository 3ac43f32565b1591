/* tap.c - see tap.h */
#include "tap.h"

#include <stdarg.h>

int tap_failed, tap_passed, tap_cur_failed;

void tap_check(int ok, const char *expr, const char *file, int line, const char *fmt, ...) {
  if (ok) return;
  tap_cur_failed = 1;
  fprintf(stderr, "  %s:%d: check failed: %s: ", file, line, expr);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

void tap_run(const char *name, void (*fn)(void)) {
  tap_cur_failed = 0;
  fn();
  if (tap_cur_failed) tap_failed++; else tap_passed++;
  printf("%s %s\n", tap_cur_failed ? "FAIL" : "ok  ", name);
  fflush(stdout);
}

int tap_done(void) {
  printf("%d passed, %d failed\n", tap_passed, tap_failed);
  return tap_failed ? 1 : 0;
}
