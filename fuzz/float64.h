/* float64.h - the dtype trigger: whether a class's failure needs float64.
 *
 * After the search, the smallest program of each class (and each known case, known.h) is rerun
 * with every float64 tensor made float32: its inputs, hidden bases and module state, and the
 * float64 dtype arguments of its ops (`x.to(torch.float64)`, `x.view(torch.float64)`). A program
 * that passes so while it fails as is needs float64: its class's trigger line says "passes with
 * float64 made float32" (annotate.h).
 *
 * Such a class keys on the dtype, not on its write pattern nor its error: "converter|wrong-result|
 * needs float64", one class per converter for the classes of wrong values and converter errors
 * whose failures need float64 (a converter error that float64 brings about surfaces a mis-handled
 * float64 as one downstream of a write surfaces a mis-converted write, classes.h). One converter
 * mis-handling float64 (IREE demotes float64 to float32 by default: float64 inputs are read as
 * float32 bytes and float32 results written into the caller's float64 buffers, iree-org/iree#24180)
 * is hit by any program with float64, and keyed by pattern it was three classes of one campaign
 * (`view view write@view-of-in` refused at run time, `sub_@tmp` and `sub_out@in` wrong values);
 * without writes it fails too (`return torch.sub(x1, x2)` of float64 inputs: the same run-time
 * error), so a rule that asked for a write would split it again. The rule, each part a rerun:
 *
 *   - fails as is (the class's own reruns) and passes with float64 made float32;
 *   - still fails the same way with float32 made float64, when it has float32 tensors: the
 *     failure needs float64 itself, not two float widths meeting (export-decomp's `index_fill_`
 *     of a float32 value into a float64 tensor, docs/findings, passes both ways: it keeps its
 *     pattern).
 *
 * Crashes, refusals, timeouts and declared limits keep their keys (where and how they fail), with
 * the trigger line. A rerun that eager rejects, or that cannot run, is no answer: the class keeps
 * its key. What this merges wrongly: two float64-only bugs of one converter (aot_eager's dropped
 * write into a 0-dim float64 input, docs/findings, and a float64 arithmetic bug of aot_eager if one
 * turned up) would be one class; docs/classes.md says why that is the lesser risk. */
#ifndef FLOAT64_H
#define FLOAT64_H

#include <cjson/cJSON.h>

#include "../harness/ir.h"
#include "classes.h"

/* What a class key's last part says for a class keyed on the dtype (classes.h): the class key is
 * "converter|" F64_GROUP "|" F64_KEY (the group with a baseline's mark where it has one). */
#define F64_GROUP "wrong-result"
#define F64_KEY "needs float64"
/* The rule's version, recorded with each class's reruns ("float64": {"rule": N}): a class checked
 * under another version is checked again (the first asked for a write too). */
#define F64_RULE 2
/* The trigger line of a program that passes with float64 made float32. */
#define F64_TRIGGER "passes with float64 made float32"

/* Whether p holds a tensor of dtype d: an input, a hidden base, or a dtype argument of a statement. */
int f64_has(const ir_program *p, af_dtype d);

/* p with every tensor of dtype from made dtype to: inputs (module state included), bases, and the
 * dtype arguments of statements (an op whose dtype argument eager then refuses gives a program
 * eager rejects: no answer). new, free with ir_program_free. */
ir_program *f64_retyped(const ir_program *p, af_dtype from, af_dtype to);

/* The rule above for program p, which fails (the caller saw it), judged by judge (CLASSES_PASS,
 * CLASSES_SAME, ...). row (may be NULL) gets what each rerun gave: "as_float32",
 * "float32_as_float64" ("pass", "same", "other", "invalid", "not run"; absent when not tried).
 * 1: p needs float64 (a class of a keyable verdict keys on the dtype); 0: it does not; -1: no
 * answer (p has no float64, or a rerun had none). *passes32 (may be NULL): 1 when p passed with
 * float64 made float32 (the trigger line), whatever the rest said. */
int f64_needs(const ir_program *p, classes_judge judge, void *ctx, cJSON *row, int *passes32);

/* Whether a class of verdict v may key on the dtype: wrong values and converter errors (the group
 * "wrong-result"); crashes, refusals and timeouts keep their keys. */
int f64_keyable(oracle_verdict v);


#endif
