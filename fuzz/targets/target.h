/* target.h - the body shared by every fuzz target (fuzz_target.c) and by the tests: bytes ->
 * program (the generator's byte-driven mode, default policy) -> eager + converter + oracle ->
 * verdict, plus the extra-coverage ids the engines are fed because LibTorch itself carries no
 * coverage instrumentation.
 *
 * Extra coverage (ids < FT_SPACE), three regions:
 *   [0, FT_GEN_SPACE)              the generator's alias-pattern features (gen_features: view op
 *                                  x mutating op x depth class x root, and the other pattern
 *                                  counters), id for id;
 *   [FT_KIND_BASE, +FT_KIND_SPACE) node kinds ("aten::slice_scatter", "prim::ListConstruct")
 *                                  of the converter's graph text, hashed;
 *   [FT_SIZE_BASE, +64)            how many distinct patterns the program has (richer programs
 *                                  are kept).
 * The same bytes, policy and converter give the same ids and the same verdict: `aliasfuzz gen
 * --bytes FILE` writes the same program as JSON, and `aliasfuzz run` on it gives the same
 * verdict.
 *
 * Environment (read by ft_target_new):
 *   AF_FUZZ_FEATURES=0     no extra coverage ids (for measuring what they are worth)
 *   AF_FUZZ_VERDICTS=a,b   only these verdicts are findings (default: every verdict that
 *                          oracle_verdict_is_bug() says is a bug, and invalid-program, a
 *                          generator bug)
 *   AF_FUZZ_PATTERNS=FILE  a shared byte map (created, FT_GEN_SPACE bytes) where every process
 *                          marks each alias pattern it executed; for benchmarks across forks,
 *                          engines and fork modes (ft_patterns_count reads it back)
 *   AF_FUZZ_RECORD=DIR     record mode: findings do not abort (libFuzzer stops at the first
 *                          crash, and its fork mode pays a LibTorch start-up per crash); a
 *                          finding's input is written to DIR/<verdict>-<16 hex digits of its
 *                          hash> when it brings a (finding class, alias pattern) pair that no
 *                          process recording into DIR has recorded yet (class: verdict and the
 *                          detail's key line with numbers and names blanked; the pairs seen are
 *                          a shared bit map, DIR/.seen), at most AF_FUZZ_RECORD_MAX (default
 *                          20000) files per process.
 * A program the generator cannot make (ft_target_run returns -1: a generator bug, since every
 * byte string must give a valid program) is reported by the targets as verdict=generator-error
 * and always aborts. */
#ifndef FT_TARGET_H
#define FT_TARGET_H

#include "../../fuzz/gen.h"
#include "../../harness/converters/conv.h"
#include "../../oracle/oracle.h"

#define FT_SPACE 65536u
#define FT_KIND_SPACE 8192u
#define FT_KIND_BASE (FT_SPACE - FT_KIND_SPACE - 64u)
#define FT_SIZE_BASE (FT_SPACE - 64u)
#define FT_GEN_SPACE FT_KIND_BASE /* gen feature ids at or above this are folded into it */

typedef struct ft_target ft_target;

typedef struct ft_outcome {
  oracle_verdict verdict;
  int finding;   /* the verdict counts as a finding (AF_FUZZ_VERDICTS) */
  char *detail;  /* the oracle's one-line detail, new or NULL */
  char *summary; /* one line "aliasfuzz-finding: verdict=... converter=... signature=..."
                    when finding, new, else NULL */
  int nstmts;    /* statements of the generated program */
  int nids;      /* extra-coverage ids in ids[] (0 when features are off) */
  uint32_t ids[1024];
  int npatterns; /* distinct gen features of the program (counted even when off) */
  int recorded;  /* record mode: the finding is in AF_FUZZ_RECORD (new or not); do not abort */
} ft_outcome;

/* A target for converter name ("naive", "external:CMD", ...). Reads the environment above.
 * *out new, free with ft_target_free. -1 with err for an unknown or unavailable converter or a
 * bad AF_FUZZ_VERDICTS. */
int ft_target_new(const char *converter, ft_target **out, af_err *err);
void ft_target_free(ft_target *t);
const conv_converter *ft_target_converter(const ft_target *t); /* borrowed */
int ft_target_features_on(const ft_target *t);

/* One input. Fills o (clear with ft_outcome_clear). Keeps no state between calls except what
 * the target was made with (and the shared pattern map). -1 with err only when the harness
 * itself failed (inputs could not be built). */
int ft_target_run(ft_target *t, const uint8_t *data, size_t len, ft_outcome *o, af_err *err);
void ft_outcome_clear(ft_outcome *o);

/* The program data gives (same policy as ft_target_run). new, free with ir_program_free. */
int ft_program(const uint8_t *data, size_t len, ir_program **out, af_err *err);

/* Distinct patterns marked in an AF_FUZZ_PATTERNS file; -1 with err when unreadable. */
long ft_patterns_count(const char *path, af_err *err);

#endif
