/* gen_train.h - training programs in generated programs (issue 33, docs/training.md). */
#ifndef GEN_TRAIN_H
#define GEN_TRAIN_H

#include "../harness/ir.h"

/* With chance p_share (drawn from seed), makes p (a valid, finished program) a training program
 * in place: "train": true, a loss weight per output (1, 2 or 3, drawn from seed), and of its
 * float32/float64 inputs without a layout, each in turn, the data inputs made leaves that require
 * grad and the module buffers made nn.Parameters, each kept only where eager (autograd's in-place
 * rules, eager.c, and the backward) still accepts the program: valid by that check, one eager run
 * per candidate. The body is never changed. Returns 1 when p became a training program; 0 when
 * the draw said no, or no candidate was kept or none got a gradient (p unchanged). */
int gen_train(ir_program *p, uint64_t seed, double p_share);

#endif
