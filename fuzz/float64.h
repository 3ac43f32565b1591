/* float64.h - the dtype trigger: whether a class's failure needs float64.
 *
 * After the search, the smallest program of each class (and each known case, known.h) is rerun
 * with every float64 tensor made float32: its inputs, hidden bases and module state, and the
 * float64 dtype arguments of its ops (`x.to(torch.float64)`, `x.view(torch.float64)`). A program
 * that passes so while it fails as is needs float64: its class's trigger line says "passes with
 * float64 made float32" (annotate.h).
 *
 * Such a class keys on the dtype, not on its write pattern, when the rule below holds: one
 * converter mis-handling float64 (IREE demotes float64 to float32 by default and writes float32
 * bytes into the caller's float64 buffers, iree-org/iree#24180) is hit by any write into a
 * float64 tensor, and keyed by pattern it was three classes of one campaign (`view view
 * write@view-of-in` refused at run time, `sub_@tmp` and `sub_out@in` wrong values). The rule, each
 * part a rerun of the program (F64_*):
 *
 *   - fails as is (the class's own reruns) and passes with float64 made float32;
 *   - passes with its writes made the identity (judge_without_writes): the failure needs a write
 *     too, so a converter's float64 arithmetic (a precision loss any op shows) is not folded
 *     with its float64 writes;
 *   - still fails the same way with float32 made float64, when it has float32 tensors: the
 *     failure needs float64 itself, not two float widths meeting (export-decomp's `index_fill_`
 *     of a float32 value into a float64 tensor, docs/findings, passes both ways: it keeps its
 *     pattern).
 *
 * A rerun that eager rejects, or that cannot run, is no answer: the class keeps its key. */
#ifndef FLOAT64_H
#define FLOAT64_H

#include <cjson/cJSON.h>

#include "../harness/ir.h"
#include "classes.h"

/* What a class key's last part says for a class keyed on the dtype (classes.h): the class key is
 * "converter|verdict group|" F64_KEY. */
#define F64_KEY "needs float64"
/* The trigger line of a program that passes with float64 made float32. */
#define F64_TRIGGER "passes with float64 made float32"

/* Whether p holds a tensor of dtype d: an input, a hidden base, or a dtype argument of a statement. */
int f64_has(const ir_program *p, af_dtype d);

/* p with every tensor of dtype from made dtype to: inputs (module state included), bases, and the
 * dtype arguments of statements (an op whose dtype argument eager then refuses gives a program
 * eager rejects: no answer). new, free with ir_program_free. */
ir_program *f64_retyped(const ir_program *p, af_dtype from, af_dtype to);

/* The rule above for program p, which fails (the caller saw it), judged by judge (CLASSES_PASS,
 * CLASSES_SAME, ...). row (may be NULL) gets what each rerun gave: "as_float32", "without_writes",
 * "float32_as_float64" ("pass", "same", "other", "invalid", "not run"; absent when not tried).
 * 1: p needs float64 and a write (the class keys on the dtype); 0: it does not; -1: no answer
 * (p has no float64, or a rerun had none). *passes32 (may be NULL): 1 when p passed with float64
 * made float32 (the trigger line), whatever the rest said. */
int f64_needs(const ir_program *p, classes_judge judge, void *ctx, cJSON *row, int *passes32);

/* The name of a judge outcome in a row ("pass", "same", ...). Borrowed. */
const char *f64_outcome_name(int r);

#endif
