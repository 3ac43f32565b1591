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

#define TEST(name) static void name(void)
#define RUN(name) tap_run(#name, name)
#define CHECK(cond, ...) tap_check(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)

#endif
