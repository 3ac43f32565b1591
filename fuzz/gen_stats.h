/* gen_stats.h - running statistics in generated programs (issue 29). */
#ifndef GEN_STATS_H
#define GEN_STATS_H

#include "../harness/ir.h"
#include "gen.h"

/* With chance pol->p_running_stats (drawn from seed), a copy of p (a valid, finished program) with one
 * normalization in training mode added at the top level: `v = torch.batch_norm(x, w, b, rm, rv,
 * True, momentum, eps, False)` (two draws in three) or torch.instance_norm, whose running
 * statistics rm and rv are new module buffers (three draws in four; else new plain inputs, the
 * functional call with the statistics as arguments): each a buffer of its own, or the two rows of one
 * [2, C] buffer, or every other element of a [2C] buffer each (views made right before the call, where
 * the policy weights select and slice).
 * x is a float64 value of the program where eager has it at rank >= 2 (instance_norm 3) with more
 * than one value per channel, read right after the statement that made or wrote it (an input: at
 * the top), else a new float64 input at the end; weight and bias are None or new inputs of size C.
 * Nothing else reads the new values (the result is an output one time in two), so the rest of the
 * program computes what it did: the op family's rule and eager decide whether the copy stands
 * (both must accept it, with the rules refusing no more statements than in p). The choices come
 * from seed alone (and the policy's chances of the samplers' decision points), so with the chance at 0 every program stays byte for byte what it was. Returns a new
 * program (free with ir_program_free), or NULL (then p stands). */
ir_program *gen_running_stats(const ir_program *p, uint64_t seed, const gen_policy *pol);

#endif
