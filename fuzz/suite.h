/* suite.h - the generated conformance suite (corpus/conformance/<id>.json), produced from the op
 * table: every view op of the table (kinds VIEW and GETITEM) is combined with every write of the
 * table (kinds INPLACE, SETITEM, OUT), and the ops with OPF_META / OPF_MAYBE_VIEW get families of
 * their own. What the table does not say (which arguments to give each op for the small shapes
 * the suite uses) lives in suite_cb.c's recipes, one per op; an op of the table without a recipe is
 * an error, so the suite cannot silently fall behind the table.
 *
 * Families (the prefix of every case id; the id is the file name and never changes meaning):
 *   mx-V-W-through   b = clone(x); v = V(b); W(v); return b, v      (write through the view)
 *   mx-V-W-base      b = clone(x); v = V(b); W(b); return b, v      (write the base after the view)
 *   mx-V-W-input     v = V(x); W(v); return x, v                    (write an input through a view)
 *   inb-V-W          v = V(x); W(x); return x, v                    (write an input, read its view)
 *   ch2-V1-V2-W-M    a view chain of depth 2 (M: through an intermediate base, or input)
 *   ch3-V1-V2-V3-W-M a view chain of depth 3
 *   sib-V1-V2-W      two live views of one base, write through the first, return base and both
 *   meta-M-P         a shape-changing in-place op M (OPF_META) at place P, then uses of the name
 *   mv-R-S-W-M       a maybe-view op R (OPF_MAYBE_VIEW) of a source S that makes it a view or a
 *                    copy, written through
 *
 * Every case is checked with eager PyTorch while it is generated. A combination eager rejects is
 * skipped and listed (id and eager's message) in the suite's SKIPPED.md; the rules that skip
 * them are eager's own (see suite.c, "What eager rejects"). */
#ifndef SUITE_H
#define SUITE_H

#include "../harness/ir.h"

#define SUITE_VERSION "suite/1"

typedef struct suite_case {
  char *id;
  ir_program *p;
} suite_case;

typedef struct suite_skip {
  char *id;
  char *why; /* eager's message, or why no arguments fit */
} suite_skip;

typedef struct suite {
  int ncases;
  suite_case *cases;
  int nskips;
  suite_skip *skips;
  int ndata; /* of the cases, those given fractional (or infinite) data because with the
                default small integers their writes change nothing */
  int nunchanged; /* of the skips, those whose writes change nothing with any of that data */
} suite;

/* Generates the suite (runs eager on every case). 0 and a new suite (free with suite_free) in
 * *out, or -1 with err (an op of the table without a recipe, or LibTorch failing). */
int suite_generate(suite **out, af_err *err);
void suite_free(suite *s);

/* The file text of SKIPPED.md for s. new, free with free(). */
char *suite_skipped_md(const suite *s);

/* Writes the suite into dir: one DIR/<id>.json per case, DIR/SKIPPED.md, and removes generated
 * files (top-level *.json whose meta says "generator": SUITE_VERSION...) that are no longer part
 * of it. Subfolders (hand-written cases) are left alone. With check_only nothing is written:
 * every difference (missing, changed, extra file) is listed in diff, one per line, and the
 * function returns 1 when there is one. 0 when dir matches, -1 on I/O errors. */
int suite_write(const suite *s, const char *dir, int check_only, af_buf *diff, af_err *err);

#endif
