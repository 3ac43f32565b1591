/* tap.h - a tiny test harness: named checks, a summary line, exit status 1 on any failure.
 *   TEST(name) { CHECK(cond, "what"); }   ... int main(void) { RUN(name); return tap_done(); } */
#ifndef TAP_H
#define TAP_H
#include <stdio.h>

extern int tap_failed, tap_passed, tap_cur_failed;
void tap_check(int ok, const char *expr, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int tap_done(void);
void tap_run(const char *name, void (*fn)(void));
/* A new empty folder /tmp/<prefix>_XXXXXX (malloc'd; NULL when it cannot be made). */
char *tap_tmpdir(const char *prefix);
/* Removes folder d and what it holds; says so on stderr when it cannot. */
void tap_rmrf(const char *d);

/* Runs fn(arg) with this process's stderr going to a file; returns what it wrote (new, at most 64 KiB). */
char *tap_capture_stderr(void (*fn)(void *), void *arg);

/* Campaign-folder helpers for the tests of classes and annotation. */
struct cJSON;
/* dir/name parsed (new, cJSON_Delete), NULL when missing or not JSON. */
struct cJSON *tap_load_json(const char *dir, const char *name);
/* Writes program json as DIR/findings/ID/repro.json, where a class's program is read (checked). */
void tap_write_finding(const char *dir, const char *id, const char *json);
/* The class of classes index idx that holds finding f (borrowed), or NULL. */
struct cJSON *tap_class_with_finding(const struct cJSON *idx, const char *f);

#define TEST(name) static void name(void)
#define RUN(name) tap_run(#name, name)
#define CHECK(cond, ...) tap_check(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)

#endif
