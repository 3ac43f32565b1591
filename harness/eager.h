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

/* Same, on the given input tensors (mutated in place): ir_ntensors(p) of them, laid out as
 * inputs_new makes them (the inputs, then the bases' storages). inputs are borrowed. r->bases
 * holds the storages' final states. */
int eager_run_on(const ir_program *p, af_tensor *const *inputs, result *r, af_err *err);

/* eager_run that also returns complex outputs (every other run refuses them: a program returns
 * real tensors, and the oracle and the worker protocol read values as doubles): for builders that
 * read a value's shape and layout (fuzz/suite.c), never for judging. */
int eager_run_any_dtype(const ir_program *p, result *r, af_err *err);

/* Control flow: `if` reads its one-element condition (bool(c), as Python does; more than one
 * element is an error), `for` binds its loop variable to 0..n-1 (n: a literal or an int value);
 * a program may execute at most EAGER_MAX_STEPS statements (beyond, the run returns -1 with err
 * naming the limit: aliasfuzz's limit, not an error of the program). Int values (loop variables, int ops
 * such as `x.size(d)`) are plain integers read when their statement runs; every later statement
 * runs with them replaced by their values.
 *
 * A dry run that lets the caller watch: after statement s ran, hook(ctx, s, st, values, err) sees
 * the statement with its loop variables replaced by their current values (st; a loop body runs
 * once per iteration, so s repeats) and the tensor every name is bound to now (values[v],
 * borrowed, valid during the call; NULL for values not defined yet). It is called for tensor
 * statements and for `if` (before its branch runs; the hook reads the condition itself), not for
 * else/end/for nor int ops (the statements that use an int value see it as a literal). A statement that rebinds a name it also reads (`x = x + 1`) reads the old
 * binding, so st refers to it as value p->nvalues (the shadow slot: values[p->nvalues]) while
 * values[x] is already the new tensor. Aliases share storage and TensorImpls exactly as in eager_run_on, so metadata
 * (shapes, strides, storage sharing) is eager's own. A hook returning non-zero stops the run:
 * eager_run_traced then returns -1 with the hook's message in err. Otherwise as eager_run_on. */
#define EAGER_MAX_STEPS 100000

/* How the message of a training program's in-place write refused in grad mode (a leaf that requires
 * grad, a view of one, a view made under no_grad) ends, after "body[N] (op): ...": the generator
 * (gen_train.c) finds the statement to put under no_grad by it. */
#define EAGER_GRAD_WRITE_REFUSED ", written in place outside torch.no_grad()"
/* What it says of the tensor written, for each of autograd's rules it checks before the statement
 * (the oracle's table of autograd's refusals quotes them: oracle_autograd_refusal). */
#define EAGER_GRAD_LEAF "is a leaf that requires grad, or a view of one"
#define EAGER_GRAD_NOGRAD_VIEW "is a view made under torch.no_grad() of a tensor that requires grad"
typedef int (*eager_hook)(void *ctx, int s, const ir_stmt *st, af_tensor *const *values, af_err *err);
/* bool(t) of a one-element tensor t: 0 or 1, or -1 with err. */
int eager_truth(const af_tensor *t, af_err *err);
int eager_run_traced(const ir_program *p, af_tensor *const *inputs, eager_hook hook, void *ctx, result *r, af_err *err);

/* The body index of the first statement whose result, or a tensor it wrote, holds an infinity or a
 * NaN in an eager run of p on its default inputs; p->nstmts when only the gradients of a training
 * program do; -1 when none does (or eager cannot run p). A run of its own, made only for a value
 * mismatch's detail (oracle.c) and `gen --check`'s count: which non-finite value IEEE arithmetic
 * gives past it depends on the order of operations, so the oracle takes any two as equal. */
int eager_nonfinite_at(const ir_program *p);

/* Undefined programs (docs/undefined.md): every run above refuses, as RESULT_ERROR with "body[N]
 * (op): undefined program (...): <reason>", a statement whose result eager leaves to the order its
 * kernel writes in, as the op table's validity rules (ops_shape_infer, the generator's) tell on
 * the real tensors: a write into memory an operand partly shares (`x[:, 1:].add_(x[:, :-1])`), a
 * write into a tensor whose elements overlap (expanded, overlapping unfold windows) unless it
 * writes a number or an idempotent function of each element (fill_, abs_, clamp_, ...), repeated
 * indices where the last write wins, foreach list elements that share memory. Where eager itself
 * rejects the statement, eager's message is the reason. */

/* How the memory of eager tensors a and b relates, byte by byte: OPS_LAP_NONE, OPS_LAP_SAME (the
 * same elements: one tensor, or the same dtype, shape, strides and offset in one storage) or
 * OPS_LAP_PARTIAL (ops_shape.h); PARTIAL, without looking, when either has over
 * EAGER_LAP_MAX_NUMEL elements. a, b borrowed; NULL shares nothing. */
#define EAGER_LAP_MAX_NUMEL (1 << 16)
int eager_lap(const af_tensor *a, const af_tensor *b);

#endif
