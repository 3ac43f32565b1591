/* bench_gen.c - how fast the generator makes programs on one core (generation alone: policy
 * check, alias model, op table rules, the IR, and the eager dry runs that decide input layouts
 * (chances.layout) and sizes as values (chances.size_value) for their share of programs; no
 * JSON). Not a test: run on demand.
 *
 *   bench_gen [--programs N] [--runs R] [--write FILE]
 *
 * Each run generates N programs (seeds 1..N, default policy) on this thread; the figure is the
 * median over R runs of programs per second of thread CPU time (robust on a shared machine), with
 * wall-clock figures, the same without the dry runs (both chances 0) and the cost of JSON
 * serialization alongside. LibTorch runs on one thread, as in the tool. --write replaces this
 * benchmark's section of FILE (bench/RESULTS.md), between its begin/end markers. */
#define _DEFAULT_SOURCE /* getloadavg */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../fuzz/gen.h"
#include "../harness/codec.h"
#include "../harness/torch/shim.h"

static double now(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Generates n programs; returns thread CPU seconds (wall seconds in *wall). */
static double run(const gen_policy *pol, long n, int with_json, double *wall, long *stmts) {
  double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
  *stmts = 0;
  for (long s = 1; s <= n; s++) {
    ir_program *p;
    af_err err;
    if (gen_program(pol, (uint64_t)s, &p, &err)) {
      fprintf(stderr, "bench_gen: seed %ld: %s\n", s, err.msg);
      exit(2);
    }
    *stmts += p->nstmts;
    if (with_json) free(codec_write_string(p));
    ir_program_free(p);
  }
  *wall = now(CLOCK_MONOTONIC) - w0;
  return now(CLOCK_THREAD_CPUTIME_ID) - c0;
}

static int write_section(const char *path, const char *section, char **err_msg) {
  static const char *begin = "<!-- bench_gen:begin -->", *end = "<!-- bench_gen:end -->";
  char *old = NULL;
  size_t len = 0;
  FILE *f = fopen(path, "rb");
  if (f) {
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    old = calloc(len + 1, 1);
    if (fread(old, 1, len, f) != len) len = 0;
    fclose(f);
  }
  af_buf b = {0};
  const char *a = old ? strstr(old, begin) : NULL, *z = a ? strstr(a, end) : NULL;
  if (a && z) {
    af_buf_printf(&b, "%.*s%s\n%s%s", (int)(a - old), old, begin, section, z);
  } else {
    if (old && len) af_buf_printf(&b, "%s%s", old, old[len - 1] == '\n' ? "\n" : "\n\n");
    else af_buf_puts(&b, "# Benchmarks\n\nFigures measured on this project's machines; each section is written by its benchmark.\n\n");
    af_buf_printf(&b, "%s\n%s%s\n", begin, section, end);
  }
  free(old);
  af_err err;
  int rc = codec_write_atomic(path, b.s, b.len, &err);
  if (rc) *err_msg = strdup(err.msg);
  af_buf_free(&b);
  return rc;
}

int main(int argc, char **argv) {
  long n = 20000;
  int runs = 5;
  const char *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--programs") && i + 1 < argc) n = atol(argv[++i]);
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--write") && i + 1 < argc) out = argv[++i];
    else {
      fprintf(stderr, "usage: bench_gen [--programs N] [--runs R] [--write FILE]\n");
      return 2;
    }
  }
  if (n < 1 || runs < 1 || runs > 100) {
    fprintf(stderr, "bench_gen: need --programs >= 1 and 1 <= --runs <= 100\n");
    return 2;
  }
  at_init(); /* LibTorch on one thread, as the tool runs it (its idle OpenMP threads spin otherwise) */
  gen_policy pol, dry0;
  gen_policy_default(&pol);
  dry0 = pol;
  dry0.p_layout = 0, dry0.p_size_value = 0;
  double cpu[100], wall[100], cpuj[100], wallj[100], cpu0[100], wall0;
  long stmts = 0, stmts0 = 0;
  run(&pol, n < 2000 ? n : 2000, 0, &wall[0], &stmts); /* warm up */
  for (int r = 0; r < runs; r++) { /* interleaved, so the machine's load falls on each alike */
    cpu[r] = (double)n / run(&pol, n, 0, &wall[r], &stmts);
    wall[r] = (double)n / wall[r];
    cpuj[r] = (double)n / run(&pol, n, 1, &wallj[r], &stmts);
    wallj[r] = (double)n / wallj[r];
    cpu0[r] = (double)n / run(&dry0, n, 0, &wall0, &stmts0);
  }
  double load[3] = {0};
  if (getloadavg(load, 3) < 1) load[0] = -1;
  double lo = cpu[0], hi = cpu[0];
  for (int r = 0; r < runs; r++) lo = cpu[r] < lo ? cpu[r] : lo, hi = cpu[r] > hi ? cpu[r] : hi;
  qsort(cpu, (size_t)runs, sizeof(double), cmp_d);
  qsort(wall, (size_t)runs, sizeof(double), cmp_d);
  qsort(cpuj, (size_t)runs, sizeof(double), cmp_d);
  qsort(wallj, (size_t)runs, sizeof(double), cmp_d);
  qsort(cpu0, (size_t)runs, sizeof(double), cmp_d);
  double med = cpu[runs / 2];
  printf("generation: median %.0f programs/s of CPU time on one core (min %.0f, max %.0f; wall median %.0f/s); "
         "%.1f statements/program; without the eager dry runs %.0f/s; with JSON serialization %.0f/s; load average %.1f\n",
         med, lo, hi, wall[runs / 2], (double)stmts / (double)n, cpu0[runs / 2], cpuj[runs / 2], load[0]);
  if (out) {
    struct utsname u;
    uname(&u);
    char date[32];
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&t));
    char section[2048];
    snprintf(section, sizeof section,
             "## Generator (bench/bench_gen.c)\n\n"
             "Command: `build/bench_gen --programs %ld --runs %d --write bench/RESULTS.md` (default policy, seeds 1..%ld, one thread; "
             "the project's default CMake build, RelWithDebInfo = -O2)\n\n"
             "| measured | %s, %s %s, %ld online CPUs, load average %.1f, generator %s |\n| --- | --- |\n"
             "| generation alone, median of %d runs | **%.0f programs/s** of thread CPU time (min %.0f, max %.0f) |\n"
             "| same, wall clock | %.0f programs/s (the machine is shared: wall time includes waiting) |\n"
             "| same without the eager dry runs (chances.layout and size_value 0) | %.0f programs/s of CPU time |\n"
             "| generation + canonical JSON | %.0f programs/s of CPU time |\n"
             "| statements per program | %.1f |\n\n"
             "Target (issues 3 and 15): at least 20,000 programs/s on one core.\n",
             n, runs, n, date, u.sysname, u.machine, sysconf(_SC_NPROCESSORS_ONLN), load[0], GEN_VERSION, runs, med,
             lo, hi, wall[runs / 2], cpu0[runs / 2], cpuj[runs / 2], (double)stmts / (double)n);
    char *msg = NULL;
    if (write_section(out, section, &msg)) {
      fprintf(stderr, "bench_gen: %s\n", msg);
      free(msg);
      return 2;
    }
    printf("written to %s\n", out);
  }
  return 0;
}
