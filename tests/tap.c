/* tap.c - see tap.h */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

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

char *tap_tmpdir(const char *prefix) {
  char buf[256];
  snprintf(buf, sizeof buf, "/tmp/%s_XXXXXX", prefix);
  char *d = strdup(buf);
  if (d && !mkdtemp(d)) {
    free(d);
    return NULL;
  }
  return d;
}

void tap_rmrf(const char *d) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
  if (system(cmd) != 0) fprintf(stderr, "cleanup of %s failed\n", d);
}
