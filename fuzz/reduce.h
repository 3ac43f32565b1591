/* reduce.h - the minimizer: delta debugging over statements, then small simplification passes
 * scheduled from one priority table until nothing changes (C-Reduce style). The predicate says
 * whether a candidate is still interesting (same converter, verdict and error class). */
#ifndef REDUCE_H
#define REDUCE_H

#include "../harness/ir.h"

/* 1 when cand still shows the behaviour being reduced, 0 otherwise. */
typedef int (*reduce_pred)(const ir_program *cand, void *ctx);

typedef struct reduce_stats {
  int stmts_before, stmts_after;
  int tests;       /* predicate calls */
  double seconds;
  int budget_hit;  /* stopped at max_tests or the time limit */
} reduce_stats;

/* Reduces p. *out is the smallest interesting program found (new, free with ir_program_free);
 * p itself when nothing smaller was. max_tests bounds predicate calls (0: 5000). */
int reduce_program(const ir_program *p, reduce_pred pred, void *ctx, int max_tests, ir_program **out, reduce_stats *st);
/* The same within max_seconds of wall-clock time as well (0: no limit): the best program found
 * when the time is up. */
int reduce_program_within(const ir_program *p, reduce_pred pred, void *ctx, int max_tests, double max_seconds, ir_program **out,
                          reduce_stats *st);

/* Names of the passes in priority order, for reports; NULL-terminated. */
extern const char *const reduce_pass_names[];

#endif
