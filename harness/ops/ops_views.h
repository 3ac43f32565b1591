/* ops_views.h - how a write through a view reaches the view's input: the facts a functionalizer
 * needs besides the op table itself. ops.def's scatter column names the scatter ops; this module
 * adds their argument mappings, the inverse of every view op that has one, which view ops are the
 * identity for given shapes, and how Python subscripts decompose into view ops (the way
 * PyTorch's indexing code, and harness/eager.c, apply them).
 *
 * Used by the reference functionalizer (converters/conv_ref.c). Everything here is symbolic: ops,
 * arguments and shapes; nothing runs LibTorch. */
#ifndef OPS_VIEWS_H
#define OPS_VIEWS_H

#include "ops.h"

#define OPS_VIEW_MAX_RANK 16

/* How an updated view value u is written back into the view's input (its parent). */
typedef enum {
  OPS_WB_NONE,     /* not a view op */
  OPS_WB_SCATTER,  /* parent' = scatter(parent, u, ...): slice, narrow, select, diagonal */
  OPS_WB_INVERSE,  /* parent' = inverse view of u, no parent needed: view, reshape, flatten,
                      unflatten, squeeze, unsqueeze, transpose, t, permute, movedim, expand
                      (whose writable form does not repeat elements), view(dtype) (u viewed as
                      the parent's dtype) */
  OPS_WB_IDENTITY, /* the view is its input: alias, detach, contiguous when it returns its input */
  OPS_WB_STORAGE,  /* relative to the storage, not to its input: as_strided (its offset and
                      strides address the storage): parent' comes from as_strided_scatter on the
                      storage */
  OPS_WB_STRIDED,  /* no inverse in terms of its input: unfold. A writer scatters into the storage
                      with the strides eager gives the view (as_strided_scatter) */
} ops_wb_kind;

/* One application of an op: args[0] is the tensor it applies to (the caller fills it in). */
typedef struct ops_call {
  int op;
  int nargs;
  ir_arg args[OPS_MAX_ARGS];
} ops_call;

void ops_call_clear(ops_call *c);                     /* frees the args' lists; c can be reused */
void ops_call_copy(ops_call *dst, const ops_call *src); /* deep copy */

ops_wb_kind ops_view_wb(int op);

/* For OPS_WB_SCATTER views: the call that writes u into the parent. args[0] (parent) and
 * args[1] (u) are left for the caller; the rest comes from the view's arguments vargs (vargs[0]
 * ignored), normalized against the parent's shape (narrow becomes slice_scatter with an end).
 * 0, or -1 with err for ops without a scatter. *out must be clear; free with ops_call_clear. */
int ops_view_scatter(int op, const ir_arg *vargs, int prank, const int64_t *pshape, ops_call *out, af_err *err);

/* For OPS_WB_INVERSE views: up to max calls that turn u (shaped like the view, vrank/vshape)
 * back into the parent (prank/pshape, dtype pdtype: a dtype view is undone by viewing u as its
 * parent's dtype), each applied to the result of the previous one (args[0] left for the caller).
 * *n = 0 means u already is the parent. 0, or -1 with err. Each call must be freed with
 * ops_call_clear. */
int ops_view_inverse(int op, const ir_arg *vargs, int prank, const int64_t *pshape, af_dtype pdtype, int vrank,
                     const int64_t *vshape, ops_call *calls, int max, int *n, af_err *err);

/* True when the view op gives its input back unchanged for these shapes and the parent's dtype
 * pdtype (a slice covering its dim with step 1, squeeze of a dim that is not 1, reshape to the
 * same shape, alias, view(dtype) of the dtype it has, ...): a functionalizer can leave it out of
 * a view chain. */
int ops_view_is_identity(int op, const ir_arg *vargs, int prank, const int64_t *pshape, af_dtype pdtype, int vrank,
                         const int64_t *vshape);

/* True when replaying the view on a value of the parent's dtype pdtype, or undoing it, needs that
 * value in the standard layout first (a fresh tensor's strides, offset 0): a dtype view that
 * changes the element size (eager needs the last dim's stride 1, and for a larger element the
 * offset and every other stride divisible; a functional program's values have whatever layout
 * their ops gave them, and contiguous() keeps odd strides of size-1 dims and the offset). */
/* inverse: 0 for replaying the view, 1 for undoing it (view_as_complex needs the standard layout
 * as a replay and as view_as_real's inverse; view_as_real takes any layout). */
int ops_view_replay_standard(int op, const ir_arg *vargs, af_dtype pdtype, int inverse);

/* True for functional twins that give every element of their result the same value, whatever
 * its position (fill, zero): writing them through a view whose elements repeat (an expanded
 * view) is well defined, since every copy of an element receives the same value. */
int ops_write_is_uniform(int twin);

/* For functional ops whose result depends on the strides of an argument, not only on its
 * values (as_strided_scatter: it clones arg 0 and addresses the clone's memory): that argument's
 * index; -1 for other ops. */
int ops_layout_arg(int op);

/* True for views that only regroup the elements in row-major order (view, reshape, flatten,
 * unflatten, squeeze, unsqueeze, view_as): a run of them is undone by one reshape. */
int ops_view_is_reshape(int op);

/* View ops whose tensor argument 1 only lends its shape (expand_as, view_as): the op that takes
 * that shape as an int list in the same position (expand, view). -1 for other ops. */
int ops_view_shape_form(int op);

/* The op to use when replaying a view in a program that relies on no aliasing: view -> reshape
 * (reshape does not depend on strides, and with no mutation left a copy means the same); the op
 * itself otherwise. */
int ops_view_replay(int op);

/* ---- Python subscripts ----
 * x[e0, e1, ...] is applied left to right on a running dim d (from 0): an int selects
 * (select(d, i)); a slice slices dim d and moves on (slice(d, start, stop, step)); None inserts a
 * dim (unsqueeze(d)) and moves on; ... skips rank - (dims the other elements consume); a tensor
 * index is recorded at position d (tensors[d]) and moves on by one. The basic part is a view; a
 * recorded tensor turns the whole into index (read) or index_put_ (write) on that view.
 *
 * ops_subscript_decompose: for a tensor of shape rank/shape, the basic part as up to max view
 * calls (slice bounds normalized to 0 <= start <= stop <= size, select indices to 0 <= i < size)
 * with the shape after each one in call_rank/call_shape (may be NULL), and the tensor positions:
 * tensors[d] = the index tensor's value id, or -1 for a whole dim, for d < *ntensors
 * (*ntensors = 0: basic indexing only). consumed[k] says how many dims element k of the subscript
 * consumes when it is a tensor (its rank for a bool mask, 1 otherwise); ignored for other
 * elements. 0, or -1 with err (index out of range, too many dims). */
int ops_subscript_decompose(const ir_arg *idx, const int *consumed, int rank, const int64_t *shape, ops_call *calls,
                            int max, int *ncalls, int *call_rank, int64_t (*call_shape)[OPS_VIEW_MAX_RANK],
                            int *tensors, int max_tensors, int *ntensors, af_err *err);

#endif
