/* tap.c - see tap.h */
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdarg.h>

#include <cjson/cJSON.h>

#include "../harness/codec.h"

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

cJSON *tap_load_json(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *j = text ? cJSON_Parse(text) : NULL;
  free(text);
  return j;
}

void tap_write_finding(const char *dir, const char *id, const char *json) {
  char path[4096], cmd[4200];
  snprintf(path, sizeof path, "%s/findings/%s", dir, id);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
  CHECK(system(cmd) == 0, "%s", cmd);
  strcat(path, "/repro.json");
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "%s", path);
  if (f) {
    fputs(json, f);
    fclose(f);
  }
}

cJSON *tap_class_with_finding(const cJSON *idx, const char *f) {
  cJSON *c, *x;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) cJSON_ArrayForEach(x, cJSON_GetObjectItem(c, "findings")) {
      if (cJSON_IsString(x) && !strcmp(x->valuestring, f)) return c;
    }
  return NULL;
}

char *tap_capture_stderr(void (*fn)(void *), void *arg) {
  char path[] = "/tmp/af_stderr_XXXXXX";
  int fd = mkstemp(path);
  fflush(stderr);
  int saved = dup(2);
  if (fd < 0 || saved < 0) {
    if (fd >= 0) close(fd);
    if (saved >= 0) close(saved);
    return strdup("");
  }
  unlink(path);
  dup2(fd, 2);
  fn(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  lseek(fd, 0, SEEK_SET);
  static char text[1 << 16];
  ssize_t n = read(fd, text, sizeof text - 1);
  text[n > 0 ? n : 0] = 0;
  close(fd);
  return strdup(text);
}
