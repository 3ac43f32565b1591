/* gen_sizes.h - sizes as values in generated programs (issue 15). */
#ifndef GEN_SIZES_H
#define GEN_SIZES_H

#include "../harness/ir.h"

/* With chance p_share (drawn from seed), a copy of p (a valid, finished program) in which int
 * literals are read from the inputs' shapes instead, each with chance 1/2: `x[:3]` becomes
 * `n = v.size(0); x[:n]` where v's dim 0 has size 3 at that point of the run, likewise for int
 * arguments (dims, indices, narrow's length), elements of int lists (view/reshape/expand sizes),
 * int subscripts and slice bounds, and `for` trip counts (`for i in range(x.size(0))`); numel()
 * and dim() where they give the literal. The shapes are eager's own at each statement (a dry run,
 * so only a share of programs pays for it), so the program computes exactly what p did.
 * Statements inside loops keep their literals (a shape may change between iterations); a
 * statement that did not run (the other branch of an if) too. The choices come from seed alone.
 * Returns a new program (free with ir_program_free), or NULL when the draw said no, nothing was
 * replaced, or eager's dry run failed (then p stands). */
ir_program *gen_sizes(const ir_program *p, uint64_t seed, double p_share);

#endif
