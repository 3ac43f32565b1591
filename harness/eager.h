/* eager.h - the ground truth: runs a program op by op on LibTorch tensors with real aliasing
 * (views share storage, in-place ops change every alias, shape-changing in-place ops change the
 * tensor every name of it refers to). Ops are called through the dispatcher as the op table says;
 * Python subscripts are decomposed exactly as PyTorch's indexing code does (select / slice /
 * unsqueeze, then index or index_put_ for tensor indices). */
#ifndef EAGER_H
#define EAGER_H

#include "result.h"

/* Runs p on fresh inputs. r->status is RESULT_OK, or RESULT_ERROR with "body[N] (op): message"
 * when eager PyTorch rejected the program (an invalid program). Returns 0 unless the inputs
 * could not be built (-1, err). */
int eager_run(const ir_program *p, result *r, af_err *err);

/* Same, on the given input tensors (mutated in place). inputs are borrowed. */
int eager_run_on(const ir_program *p, af_tensor *const *inputs, result *r, af_err *err);

/* A dry run that lets the caller watch: after statement s ran, hook(ctx, s, values, err) sees the
 * tensor of every value defined so far (values[v], borrowed, valid during the call; NULL for values
 * not defined yet). Aliases share storage and TensorImpls exactly as in eager_run_on, so metadata
 * (shapes, strides, storage sharing) is eager's own. A hook returning non-zero stops the run:
 * eager_run_traced then returns -1 with the hook's message in err. Otherwise as eager_run_on. */
typedef int (*eager_hook)(void *ctx, int s, af_tensor *const *values, af_err *err);
int eager_run_traced(const ir_program *p, af_tensor *const *inputs, eager_hook hook, void *ctx, result *r, af_err *err);

#endif
