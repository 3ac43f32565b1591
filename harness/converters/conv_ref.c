/* conv_ref.c - `ref`: aliasfuzz's own functionalizer, the reference answer to "how should a
 * frontend turn a program with views and in-place ops into a functional graph?". It must pass
 * every program; the golden files under corpus/golden/ref/ show what it produces.
 *
 * THE ALGORITHM
 *
 * Input: a program in the IR (named values; an in-place op changes the tensor its target names,
 * and every view of the same memory). Output: a program in the same IR with no in-place op, no
 * out= form and no setitem, whose values never rely on sharing memory, returning the program's
 * outputs and then the final value of every input the program changed.
 *
 * 1. Storages, objects and view chains. Every tensor lives in a *storage* (its memory). A storage
 *    is made by an input or by an op that returns fresh memory (add, clone, cat, a tensor-index
 *    getitem, a reshape that copies...). The tensor that made it is the storage's *root*; for
 *    each storage we keep one functional value: the root's current contents (`x`, then `x_1`
 *    after a write, ...). Every name refers to an *object* (PyTorch's TensorImpl: `b =
 *    a.add_(1)` makes b another name of a's object). An object is a storage plus a *view chain*:
 *    the view ops that turn the root into this tensor, e.g. x[1:3][:, 0] is
 *    [slice(0, 1, 3, 1), select(1, 0)] on storage x. A view statement appends a step to its
 *    input's chain; subscripts are split into select/slice/unsqueeze steps as PyTorch's
 *    indexing does; steps that change nothing (a slice covering its dim, alias, detach) are left
 *    out; expand_as/view_as become expand/view with the shape they borrow. as_strided addresses
 *    the storage, not its input, so it replaces the chain by itself. An op that returns its
 *    argument itself (contiguous() of a contiguous tensor, flatten(d, d), aten::copy(a, b) when
 *    b needs no conversion) just gives the object one more name; a functional op whose result
 *    eager makes a view of an argument becomes an as_strided view of that storage. A factory
 *    without a tensor argument (torch.zeros, full, arange, eye) makes a storage like any other
 *    fresh result; `torch.empty(s).fill_(v)` is emitted as its table twin torch.full(s, float(v)),
 *    which makes the same float32 values without an in-place op.
 *
 * 2. Reading a value. A name's value is its chain replayed on the root's current contents.
 *    Values computed since the storage's last write are remembered per chain prefix (a memo), so
 *    a replay starts from the longest prefix already known and emits only the missing steps.
 *    Nothing is re-derived eagerly: a view is re-derived when it is next read, which is the same
 *    as re-deriving every live view after each write, minus the ones never read again. Replays
 *    use reshape where the source said view (strides do not matter once nothing is mutated).
 *
 * 3. Writing. An in-place op `t.op_(args)` becomes its functional twin from the op table
 *    (`u = op(t, args)`: add_ -> add, fill_ -> fill, copy_ -> copy, index_put_ -> index_put...;
 *    cast back with copy(t, u) when type promotion made u wider than t, since an in-place op
 *    keeps its target's dtype). Then u is written back into the root along t's chain, last step
 *    first: for a step `v = view(p, args)` the new parent is
 *      - scatter(p, u, args) for slice, narrow, select, diagonal (slice_scatter, ...);
 *      - the inverse view of u for reshapes, transposes, permutes, squeeze/unsqueeze and movedim
 *        (a run of reshape-like steps is undone by one reshape);
 *      - for chains with as_strided, unfold (no inverse in terms of its input) or an expand that
 *        repeats elements (a scatter into one copy would be undone by the others):
 *        as_strided_scatter of u on the storage itself, with the strides eager gives the
 *        written view, on the storage laid out in eager's memory order. A write into elements
 *        that repeat is only well defined when every copy gets the same value (fill_, zero_);
 *        then one copy is written.
 *    The parents p are read from the contents before the write. The result is the storage's new
 *    contents; the memo is reset to the values just computed along the chain (they are the new
 *    values of those views); every other view of the storage will be re-derived when read.
 *    Setitem is the same with a chain extended by the subscript: `x[i] = v` writes fill(t, v) or
 *    copy(t, v), `x[i] += v` writes add(t, v); with tensor indices it writes index_put(t,
 *    [tensors], v) (for `+=`: add(x[i], v) first, read through the whole subscript). out= forms
 *    write their twin's result (`add(a, b)`) into the out tensor.
 *    A foreach op (`torch._foreach_add_([p0, p1], [g0, g1])`) is its in-place twin (add_) on each
 *    element in turn, each written back along that element's own chain.
 *
 * 4. Shape-changing in-place ops (unsqueeze_, squeeze_, transpose_, t_) write no data: they
 *    append their view twin (unsqueeze, ...) to the object's chain, so every later use of any
 *    name of that object sees the new shape, and so does the caller when it is an input.
 *    resize_ has no view twin: inside its storage it makes the tensor the window of the new
 *    size's contiguous strides at the offset it had, an as_strided step to the layout eager
 *    gives it; one that grows the storage (new, uninitialized memory) is declined.
 *
 *    set_ (x.set_(y)) moves x's object: it takes y's storage and a copy of y's chain, so every name of
 *    x reads and writes y's storage from then on; views of x taken before stay where they were.
 *
 * 5. Views or copies. reshape, flatten and contiguous return a view exactly when eager does; ref
 *    asks eager: it dry-runs the program once (eager_run_traced) and, after each statement,
 *    reads eager's metadata (storage sharing, shapes, strides). The dry run also gives
 *    data-dependent shapes (boolean masks) and lets as_strided/unfold writes use eager's strides.
 *    A frontend without a dry run computes the same from shapes and strides.
 *
 * 6. Outputs. The program's outputs are read as in 2. Every input whose storage was written, or
 *    whose chain grew (unsqueeze_ on an input), is returned as an extra output: the caller's
 *    tensor cannot be mutated by a functional program, so its final value must be given back.
 *    Dead statements are dropped at the end.
 *
 * 7. Ops that address memory (as_strided_scatter clones its input and writes through strides)
 *    get their input laid out as eager's clone would be. PyTorch 2.x clones the input's whole
 *    storage instead (sizes, strides and storage offset kept) and reads the offset it is given
 *    against that storage: for an input that is not its whole storage densely at offset 0 (a view
 *    with an offset, an unfold, an input with a layout) ref writes the input's values into a flat
 *    tensor of the storage's size at eager's layout, scatters there and reads the input's window.
 *
 * 8. Inputs with layouts (issue 16: inputs that share memory, strided, offset or expanded
 *    inputs) become views of synthetic bases, as AOTAutograd does it: the functional program
 *    takes each storage as a flat input, starts with `b = root.as_strided(shape, strides,
 *    offset)` for every input with a layout, and ends by reading every such input back the same
 *    way from the storage's final contents. A write through one input is then a write into the
 *    storage, seen by every other input that views it; the storages' final contents are the
 *    bases' final states.
 *
 * 9. Int values (loop variables, `n = x.size(0)`, `x.numel()`, `x.dim()`) are the dry run's: every
 *    statement that uses one is translated with it replaced by its value (a loop is unrolled, a
 *    slice bound or view size becomes a literal), so the functional program is specialized to
 *    the input shapes, as a static-shape export is. Sizes depend only on shapes, and shapes on
 *    the inputs' shapes, except after a boolean-mask index (data-dependent: the program is then
 *    specialized to the data too, as for `if`, but without a guard).
 *
 * What ref declines (status unsupported, never a wrong answer): set_ of an input; an in-place change of shape or
 * strides (unsqueeze_, t_, as_strided_, ...) in a program whose inputs have layouts (the final
 * state of such an input is no longer a fixed window of its storage); an out= form that resizes its
 * output; a write other than fill_/zero_ into a view whose elements repeat (eager's result then
 * depends on which copy it writes last); strided writes into a storage whose root is not dense
 * or has an offset; any write into a storage whose root's elements share memory (2.x: a scatter
 * of an unfold).
 *
 * Two files: this one translates each statement (rf_stmt, a do_* per kind of op) and is the
 * converter; conv_ref_chain.c (its private header conv_ref_chain.h) holds the state and the
 * machinery the translation uses: the output program, storages, objects and view chains (1.),
 * reading (2.), the write-back (3.), the storage in memory order (7., 8.). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../eager.h"
#include "../emit.h"
#include "../ops/ops_views.h"
#include "conv.h"
#include "conv_ref_chain.h"
#include "ref.h"

/* ---------------------------------------------------------------- statements */

/* The subscript of a getitem/setitem on eager tensor self, as view steps appended to base. */
static int subscript_chain(rf *c, const af_tensor *self, const ir_arg *idx, af_tensor *const *values, rf_chain *ch,
                           int *tensors, int *ntensors, af_err *err) {
  int consumed[64] = {0}, rank, ncalls = 0, crank[RF_MAX_STEPS];
  int64_t shape[RF_RANK], cshape[RF_MAX_STEPS][RF_RANK];
  ops_call calls[RF_MAX_STEPS];
  if (idx->n > 64) return rf_decline(c, err, "%s", "subscript with more than 64 elements");
  for (int k = 0; k < idx->n; k++)
    if (idx->index[k].kind == IR_IDX_TENSOR) {
      const af_tensor *t = values[idx->index[k].value];
      consumed[k] = at_tensor_dtype(t) == AF_BOOL ? at_tensor_rank(t) : 1;
    }
  rf_shape_of(self, &rank, shape);
  if (rank > RF_RANK) return rf_decline(c, err, "%s", "tensor of too high a rank");
  if (ops_subscript_decompose(idx, consumed, rank, shape, calls, RF_MAX_STEPS, &ncalls, crank, cshape, tensors,
                              2 * RF_RANK, ntensors, err))
    return -1;
  af_dtype dt = (af_dtype)at_tensor_dtype(self);
  for (int k = 0; k < ncalls; k++) {
    rf_step st = {.call = calls[k], .vrank = crank[k], .pdtype = dt, .vdtype = dt};
    st.prank = k ? crank[k - 1] : rank;
    memcpy(st.pshape, k ? cshape[k - 1] : shape, sizeof(int64_t) * (size_t)st.prank);
    memcpy(st.vshape, cshape[k], sizeof(int64_t) * (size_t)st.vrank);
    if (ops_view_is_identity(st.call.op, st.call.args, st.prank, st.pshape, st.pdtype, st.vrank, st.vshape))
      ops_call_clear(&st.call);
    else
      rf_chain_push(ch, &st);
  }
  return 0;
}

/* A statement whose result is fresh memory: emitted as it is, on current values. A factory whose
 * statement fills what it makes (OPF_FILL: torch.empty(s).fill_(v)) becomes its twin, the one
 * functional op that makes the same values (torch.full(s, float(v)): float32 as empty's). */
/* A fresh result that PyTorch 2.x made as a clone of self's whole storage (the scatter ops and copy:
 * clone_preserve_strides keeps self's sizes, strides and offset in a copy of all of self's storage)
 * and that is no dense tensor at offset 0: as_strided on it reads the copy's other elements, so
 * storage s keeps its whole memory (flat): self's storage's memory with the result's elements
 * written over it at their layout. Where self's storage has no known memory (or another dtype), s
 * keeps none, and as_strided on it is declined as before. */
static void keeps_whole_storage(rf *c, int s, const ir_stmt *st, af_tensor *const *values) {
  if (st->nargs < 1 || st->args[0].kind != IR_ARG_VALUE || c->obj[st->args[0].value] < 0) return;
  const af_tensor *self = values[st->args[0].value], *res = values[st->out];
  int rank, identity, r2;
  int64_t perm[RF_RANK], a[RF_RANK], b[RF_RANK];
  if (at_tensor_rank(res) > RF_RANK || (rf_dense_order(res, &rank, perm, &identity) && at_tensor_storage_offset(res) == 0)) return;
  if (at_tensor_dtype(self) != at_tensor_dtype(res) || at_tensor_storage_numel(self) != at_tensor_storage_numel(res) ||
      at_tensor_storage_offset(self) != at_tensor_storage_offset(res) || at_tensor_shares_storage(self, res))
    return;
  rf_shape_of(self, &r2, a);
  rf_shape_of(res, &rank, b);
  if (r2 != rank || memcmp(a, b, sizeof(int64_t) * (size_t)rank)) return;
  at_tensor_strides(self, a);
  at_tensor_strides(res, b);
  if (memcmp(a, b, sizeof(int64_t) * (size_t)rank)) return;
  int so = c->objs[c->obj[st->args[0].value]].storage;
  const rf_storage *from = &c->sto[so];
  if (at_tensor_dtype(from->eager) != at_tensor_dtype(self)) return;
  if (from->flat < 0 && (!rf_dense_order(from->eager, &r2, perm, &identity) || at_tensor_storage_offset(from->eager) != 0)) return;
  af_err ignored;
  int mem = rf_storage_mem(c, so, &ignored);
  if (mem < 0) return;
  c->sto[s].flat = mem;
  c->sto[s].flat = rf_flat_with_root(c, s, "mem");
}

static int do_fresh(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  ir_arg q[OPS_MAX_ARGS];
  memset(q, 0, sizeof q);
  if (rf_subst_args(c, st->nargs, st->args, q, err)) {
    rf_args_free(st->nargs, q);
    return -1;
  }
  int op = st->op;
  if ((ops_get(op)->flags & OPF_FILL) && ops_twin(op) >= 0) {
    ir_arg *v = &q[st->nargs - 1];
    if (v->kind != IR_ARG_INT && v->kind != IR_ARG_FLOAT) {
      rf_args_free(st->nargs, q);
      return rf_decline(c, err, "%s with a value other than a number", ops_get(op)->name);
    }
    if (v->kind == IR_ARG_INT) *v = (ir_arg){.kind = IR_ARG_FLOAT, .f = (double)v->i, .value = -1};
    op = ops_twin(op);
  }
  int la = ops_layout_arg(st->op), v = -1;
  if (la >= 0 && rf_clones_whole_storage(values[st->args[la].value])) { /* 2.x: offset into a's storage */
    v = rf_as_strided_scatter_storage(c, q, values[st->args[la].value], c->p->names[st->out], st->out);
  } else if (la >= 0) { /* the op addresses memory: give it eager's layout, unless it is an untouched input */
    const rf_object *ob = &c->objs[c->obj[st->args[la].value]];
    const rf_storage *so = &c->sto[ob->storage];
    if (!(so->input >= 0 && !so->written && ob->chain.n == 0))
      q[la].value = rf_with_layout(c, q[la].value, values[st->args[la].value], rf_obj_hint(c, c->obj[st->args[la].value]));
  }
  if (v < 0) v = rf_emit(c, op, st->nargs, q, c->p->names[st->out], st->out);
  rf_args_free(st->nargs, q);
  int s = rf_new_storage(c, v, values[st->out], -1, err);
  if (s < 0) return -1;
  c->obj[st->out] = rf_new_object(c, s, NULL, st->out);
  keeps_whole_storage(c, s, st, values);
  return 0;
}

/* y = view(x, ...): y's chain is x's plus one step (or x's, for a step that changes nothing). */
static int do_view(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  int x = st->args[0].value, o = c->obj[x];
  rf_step step = {0};
  int sf = ops_view_shape_form(st->op);
  step.call.op = sf >= 0 ? sf : st->op;
  step.call.nargs = st->nargs;
  for (int a = 1; a < st->nargs; a++) {
    if (sf >= 0 && a == 1) {
      int r;
      int64_t sh[RF_RANK];
      rf_shape_of(values[st->args[1].value], &r, sh);
      step.call.args[1] = a_ints(r, sh);
    } else {
      ir_arg_copy(&step.call.args[a], &st->args[a]);
    }
  }
  rf_shape_of(values[x], &step.prank, step.pshape);
  rf_shape_of(values[st->out], &step.vrank, step.vshape);
  step.pdtype = (af_dtype)at_tensor_dtype(values[x]);
  step.vdtype = (af_dtype)at_tensor_dtype(values[st->out]);
  if (step.prank > RF_RANK || step.vrank > RF_RANK) {
    ops_call_clear(&step.call);
    return rf_decline(c, err, "%s", "view of too high a rank");
  }
  int no = rf_new_object(c, c->objs[o].storage, &c->objs[o].chain, st->out);
  c->obj[st->out] = no;
  if (ops_view_is_identity(step.call.op, step.call.args, step.prank, step.pshape, step.pdtype, step.vrank, step.vshape))
    ops_call_clear(&step.call);
  else
    rf_chain_push(&c->objs[no].chain, &step);
  return rf_obj_value(c, no, err) < 0 ? -1 : 0; /* define it where the source does */
}

static int do_getitem(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  int x = st->args[0].value, o = c->obj[x], tensors[2 * RF_RANK], ntensors = 0;
  rf_chain ch = {0};
  rf_chain_copy(&ch, &c->objs[o].chain);
  if (subscript_chain(c, values[x], &st->args[1], values, &ch, tensors, &ntensors, err)) {
    rf_chain_free(&ch);
    return -1;
  }
  if (ntensors) { /* tensor indices: a copy */
    rf_chain_free(&ch);
    return do_fresh(c, st, values, err);
  }
  int no = rf_new_object(c, c->objs[o].storage, NULL, st->out);
  c->objs[no].chain = ch;
  c->obj[st->out] = no;
  /* define it as the source does (x[...] on x's current value) and remember it as that view */
  ir_arg q[2];
  memset(q, 0, sizeof q);
  if (c->objs[no].chain.n == c->objs[o].chain.n) return rf_obj_value(c, no, err) < 0 ? -1 : 0;
  if (rf_subst_args(c, 2, st->args, q, err)) {
    rf_args_free(2, q);
    return -1;
  }
  int v = rf_emit(c, OPS_getitem, 2, q, c->p->names[st->out], st->out);
  rf_args_free(2, q);
  af_buf keys = {0};
  size_t *len = af_xcalloc((size_t)ch.n + 1, sizeof(size_t));
  rf_chain_keys(&c->objs[no].chain, c->objs[no].chain.n, &keys, len);
  rf_memo_put(&c->sto[c->objs[no].storage], keys.s, len[c->objs[no].chain.n], v);
  af_buf_free(&keys);
  free(len);
  return 0;
}

/* t.op_(args) for ops that change values */
static int do_inplace(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  int x = st->args[0].value, o = c->obj[x];
  int t = rf_obj_value(c, o, err);
  if (t < 0) return -1;
  const char *name = rf_chain_name(c, c->objs[o].storage, &c->objs[o].chain, c->objs[o].chain.n, rf_obj_hint(c, o));
  int u = rf_emit_twin(c, ops_twin(st->op), t, st->nargs, st->args, values[x], values, name, err);
  if (u < 0) return -1;
  if (rf_write_back(c, c->objs[o].storage, &c->objs[o].chain, u, ops_write_is_uniform(ops_twin(st->op)), rf_obj_hint(c, o), err))
    return -1;
  if (st->out >= 0) c->obj[st->out] = o;
  return 0;
}

/* torch._foreach_OP_(l, operands...): element k of l gets the in-place twin OP_ with element k of
 * each list operand (or the number), in list order as eager runs it, each one exactly as a single
 * in-place op on that element: its functional twin (add) on the element's current value, written
 * back along the element's own view chain into its storage. Elements that are views of one buffer
 * thus each reach the buffer, the later ones on top of the earlier writes. */
static int do_foreach(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  int twin = ops_twin(st->op);
  if (twin < 0 || ops_get(twin)->nargs != st->nargs || ops_twin(twin) < 0)
    return rf_decline(c, err, "%s: no in-place twin with its arguments in the op table", ops_get(st->op)->name);
  for (int k = 0; k < st->args[0].n; k++) {
    ir_arg args[OPS_MAX_ARGS];
    for (int a = 0; a < st->nargs; a++)
      args[a] = st->args[a].kind == IR_ARG_VALUES ? (ir_arg){.kind = IR_ARG_VALUE, .value = st->args[a].values[k]} : st->args[a];
    ir_stmt el = {.op = twin, .out = -1, .nargs = st->nargs, .args = args};
    if (do_inplace(c, &el, values, err)) {
      af_err_prefix(err, "element %d", k);
      return -1;
    }
  }
  return 0;
}

/* batch_norm / instance_norm in training mode, which also write arguments 3 and 4 (the running
 * statistics; ops.def's OPF_WRITES). The result is the op with None statistics (training mode
 * normalizes by the batch's own statistics, and None writes nothing). Each statistic's new value is
 * computed functionally, lerp(old, batch statistic, momentum) as aten updates it (momentum * batch
 * + (1 - momentum) * old), and written back along its view chain like an in-place op's result:
 *   mean: mean(x, [0, 2, ...]) for both ops (instance_norm's per-instance means, averaged over the
 *         batch, are those numbers: every instance has the same count);
 *   var:  batch_norm: var(x, [0, 2, ...], unbiased); instance_norm: the batch's mean of var(x, [2,
 *         ...], unbiased).
 * Both new values are computed before either is written back (they may be views of one buffer). */
static int do_running_stats(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  int x = st->args[0].value, r = at_tensor_rank(values[x]), instance = st->op == OPS_instance_norm, nall = 0, nsp = 0;
  if (r > RF_RANK) return rf_decline(c, err, "%s", "an input of too high a rank");
  int64_t all[RF_RANK], spatial[RF_RANK], zero = 0;
  for (int d = 0; d < r; d++) {
    if (d != 1) all[nall++] = d;
    if (d >= 2) spatial[nsp++] = d;
  }
  int xv = rf_fval(c, x, err), u[2] = {-1, -1};
  if (xv < 0) return -1;
  for (int k = 0; k < 2; k++) {
    const ir_arg *a = &st->args[3 + k];
    if (a->kind != IR_ARG_VALUE) continue;
    int old = rf_fval(c, a->value, err), stat;
    if (old < 0) return -1;
    ir_arg q[4] = {a_val(xv), k == 1 && instance ? a_ints(nsp, spatial) : a_ints(nall, all), a_bool(k == 1), a_bool(0)};
    if (k == 0) q[2] = a_bool(0); /* mean's keepdim */
    stat = rf_emit(c, k == 0 ? OPS_mean_dim : OPS_var_dim, k == 0 ? 3 : 4, q, k == 0 ? "mean" : "var", -1);
    ir_arg_free(&q[1]);
    if (k == 1 && instance) {
      ir_arg m[3] = {a_val(stat), a_ints(1, &zero), a_bool(0)};
      stat = rf_emit(c, OPS_mean_dim, 3, m, "var", -1);
      ir_arg_free(&m[1]);
    }
    ir_arg l[3] = {a_val(old), a_val(stat), st->args[6]};
    u[k] = rf_emit(c, OPS_lerp, 3, l, rf_obj_hint(c, c->obj[a->value]), -1);
  }
  for (int k = 0; k < 2; k++) {
    if (u[k] < 0) continue;
    int o = c->obj[st->args[3 + k].value];
    if (rf_write_back(c, c->objs[o].storage, &c->objs[o].chain, u[k], 0, rf_obj_hint(c, o), err)) return -1;
  }
  ir_arg args[OPS_MAX_ARGS];
  memcpy(args, st->args, sizeof(ir_arg) * (size_t)st->nargs);
  args[3] = args[4] = (ir_arg){.kind = IR_ARG_NONE, .value = -1};
  ir_stmt y = *st;
  y.args = args;
  return do_fresh(c, &y, values, err);
}

/* unsqueeze_, squeeze_, transpose_, t_: the object's chain grows by the view twin */
static int do_meta(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  int x = st->args[0].value, o = c->obj[x];
  rf_step step = {0};
  step.call.op = ops_twin(st->op);
  step.call.nargs = st->nargs;
  for (int a = 1; a < st->nargs; a++) ir_arg_copy(&step.call.args[a], &st->args[a]);
  rf_obj_shape(c, o, &step.prank, step.pshape);
  rf_shape_of(values[x], &step.vrank, step.vshape);
  step.pdtype = step.vdtype = (af_dtype)at_tensor_dtype(values[x]);
  if (step.call.op < 0 && step.vrank <= RF_RANK) {
    /* a shape change with no view twin (resize_ that stays inside its storage): the tensor
       becomes the window eager gives it, so the step is as_strided to eager's new layout (the
       new size's contiguous strides at the storage offset it had) */
    int64_t str[RF_RANK], extent = 1, off = at_tensor_storage_offset(values[x]);
    const af_tensor *root = c->sto[c->objs[o].storage].eager;
    at_tensor_strides(values[x], str);
    for (int d = 0; d < step.vrank; d++) extent = step.vshape[d] == 0 || extent == 0 ? 0 : extent + (step.vshape[d] - 1) * str[d];
    ops_call_clear(&step.call);
    size_t xs = af_dtype_size(step.vdtype), rs = af_dtype_size((af_dtype)at_tensor_dtype(root)); /* a dtype view: in bytes */
    if (extent && (size_t)(off + extent) * xs > (size_t)(at_tensor_storage_offset(root) + at_tensor_numel(root)) * rs)
      return rf_decline(c, err, "%s that grows its storage (eager gives it new memory)", ops_get(st->op)->name);
    step.call.op = OPS_as_strided;
    step.call.nargs = 4;
    step.call.args[1] = a_ints(step.vrank, step.vshape);
    step.call.args[2] = a_ints(step.vrank, str);
    step.call.args[3] = a_int(off);
  }
  if (step.call.op < 0 || ops_view_wb(step.call.op) == OPS_WB_NONE) {
    ops_call_clear(&step.call);
    return rf_decline(c, err, "%s: its twin is no view op", ops_get(st->op)->name);
  }
  if (step.vrank > RF_RANK) {
    ops_call_clear(&step.call);
    return rf_decline(c, err, "%s", "view of too high a rank");
  }
  if (ops_view_is_identity(step.call.op, step.call.args, step.prank, step.pshape, step.pdtype, step.vrank, step.vshape))
    ops_call_clear(&step.call);
  else
    rf_chain_push(&c->objs[o].chain, &step);
  if (st->out >= 0) c->obj[st->out] = o;
  return 0;
}

/* x.set_(y): x's object, and so every name of it (and every list holding it), takes y's storage and a
 * copy of y's chain: from here on it reads and writes y's storage as y.alias() would. Views of x taken
 * before are objects of their own and stay on the old storage. x.set_(x) changes nothing. An input's
 * object (objects 0..ninputs-1 are the inputs', made first) is declined: the caller's tensor would
 * end on another storage in another shape, which the final-state bookkeeping (6.) does not say. */
static int do_set(rf *c, const ir_stmt *st, af_err *err) {
  int o = c->obj[st->args[0].value], oy = c->obj[st->args[1].value];
  if (o < 0 || oy < 0) return rf_decline(c, err, "%s", "set_ of a value ref does not hold");
  if (o != oy) {
    if (o < c->p->ninputs) return rf_decline(c, err, "%s", "set_ of an input (its final state would be another storage)");
    rf_chain ch = {0};
    rf_chain_copy(&ch, &c->objs[oy].chain);
    rf_chain_free(&c->objs[o].chain);
    c->objs[o].chain = ch;
    c->objs[o].storage = c->objs[oy].storage;
  }
  if (st->out >= 0) c->obj[st->out] = o;
  return 0;
}

static int do_setitem(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  const ops_entry *oe = ops_get(st->op);
  int x = st->args[0].value, o = c->obj[x], s = c->objs[o].storage, tensors[2 * RF_RANK], ntensors = 0, rc = -1;
  const ir_arg *val = &st->args[2];
  const char *hint = "tmp"; /* x[i] is no value of its own */
  int aug = oe->twin[0] ? ops_twin(ops_find(oe->twin)) : -1; /* x[i] += v: add */
  af_tensor *like = NULL;
  rf_chain ch = {0};
  rf_chain_copy(&ch, &c->objs[o].chain);
  if (subscript_chain(c, values[x], &st->args[1], values, &ch, tensors, &ntensors, err)) goto out;
  const char *uname = rf_chain_name(c, s, &ch, ch.n, hint); /* x itself for x[...] = v */
  int t = rf_chain_value(c, s, &ch, ch.n, hint, -1, err), u;
  if (t < 0) goto out;
  if (!ntensors) {
    if (aug >= 0) { /* an eager tensor like the target, for the dtype check */
      int r;
      int64_t sh[RF_RANK];
      rf_obj_shape(c, o, &r, sh);
      if (ch.n) {
        r = ch.s[ch.n - 1].vrank;
        memcpy(sh, ch.s[ch.n - 1].vshape, sizeof(int64_t) * (size_t)r);
      }
      double *zeros = af_xcalloc((size_t)ir_numel(r, sh) + 1, sizeof(double));
      rc = at_tensor_new((af_dtype)at_tensor_dtype(values[x]), r, sh, zeros, &like, err);
      free(zeros);
      if (rc) goto out;
      ir_arg args[2] = {a_val(-1), *val};
      u = rf_emit_twin(c, aug, t, 2, args, like, values, uname, err);
    } else if (val->kind == IR_ARG_VALUE) {
      int v = rf_fval(c, val->value, err);
      if (v < 0) goto out;
      ir_arg a[2] = {a_val(t), a_val(v)};
      u = rf_emit(c, OPS_copy, 2, a, uname, -1);
    } else {
      ir_arg a[2] = {a_val(t), *val};
      u = rf_emit(c, OPS_fill, 2, a, uname, -1);
    }
  } else {
    int vt;
    if (aug >= 0) { /* tmp = x[idx]; tmp.op_(v); x[idx] = tmp */
      ir_arg q[2];
      memset(q, 0, sizeof q);
      if (rf_subst_args(c, 2, st->args, q, err)) {
        rf_args_free(2, q);
        goto out;
      }
      int g = rf_emit(c, OPS_getitem, 2, q, hint, -1);
      rf_args_free(2, q);
      double zero = 0;
      int64_t one = 1;
      rc = at_tensor_new((af_dtype)at_tensor_dtype(values[x]), 1, &one, &zero, &like, err);
      if (rc) goto out;
      ir_arg args[2] = {a_val(-1), *val};
      vt = rf_emit_twin(c, aug, g, 2, args, like, values, hint, err);
    } else if (val->kind == IR_ARG_VALUE) {
      vt = rf_fval(c, val->value, err);
    } else { /* PyTorch makes the number a 0-dim tensor of x's dtype */
      ir_arg a[3] = {a_val(t), a_ints(0, NULL), *val};
      vt = rf_emit(c, OPS_new_full, 3, a, hint, -1);
      ir_arg_free(&a[1]);
    }
    if (vt < 0) goto out;
    ir_arg list = {.kind = IR_ARG_VALUES, .n = ntensors, .value = -1};
    list.values = af_xcalloc((size_t)ntensors, sizeof(int));
    for (int d = 0; d < ntensors; d++) list.values[d] = tensors[d] < 0 ? -1 : rf_fval(c, tensors[d], err);
    ir_arg a[4] = {a_val(t), list, a_val(vt), a_bool(0)};
    u = rf_emit(c, OPS_index_put, 4, a, uname, -1);
    ir_arg_free(&list);
  }
  if (u < 0) goto out;
  rc = rf_write_back(c, s, &ch, u, !ntensors && aug < 0 && val->kind != IR_ARG_VALUE, hint, err);
out:
  at_tensor_free(like);
  rf_chain_free(&ch);
  return rc;
}

/* op(a, b, out=o) */
static int do_out(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  int x = st->args[0].value, o = c->obj[x], twin = ops_twin(st->op), r0, r1;
  int64_t s0[RF_RANK], s1[RF_RANK];
  rf_obj_shape(c, o, &r0, s0);
  rf_shape_of(values[x], &r1, s1);
  if (r0 != r1 || memcmp(s0, s1, sizeof(int64_t) * (size_t)r0) != 0)
    return rf_decline(c, err, "%s: the out= tensor was resized", ops_get(st->op)->name);
  if (twin < 0) return rf_decline(c, err, "%s: no functional twin", ops_get(st->op)->name);
  /* the twin's own arguments are the out= op's arguments after the out tensor */
  ir_arg q[OPS_MAX_ARGS];
  memset(q, 0, sizeof q);
  if (rf_subst_args(c, st->nargs - 1, st->args + 1, q, err)) {
    rf_args_free(st->nargs - 1, q);
    return -1;
  }
  const char *hint = rf_chain_name(c, c->objs[o].storage, &c->objs[o].chain, c->objs[o].chain.n, rf_obj_hint(c, o));
  int u = rf_emit(c, twin, st->nargs - 1, q, hint, -1);
  rf_args_free(st->nargs - 1, q);
  /* out= casts to the out tensor's dtype */
  int dt = at_tensor_dtype(values[x]), cast = 0;
  for (int a = 1; a < st->nargs; a++)
    if (st->args[a].kind == IR_ARG_VALUE && at_tensor_dtype(values[st->args[a].value]) != dt) cast = 1;
  if (cast) {
    int t = rf_obj_value(c, o, err);
    if (t < 0) return -1;
    ir_arg cp[2] = {a_val(t), a_val(u)};
    u = rf_emit(c, OPS_copy, 2, cp, hint, -1);
  }
  if (rf_write_back(c, c->objs[o].storage, &c->objs[o].chain, u, 0, hint, err)) return -1;
  if (st->out >= 0) c->obj[st->out] = o;
  return 0;
}

/* The p value among st's tensor arguments whose memory eager's result shares, or -1. */
static int aliased_arg(const ir_stmt *st, af_tensor *const *values) {
  const af_tensor *r = values[st->out];
  for (int a = 0; a < st->nargs; a++) {
    const ir_arg *x = &st->args[a];
    if (x->kind == IR_ARG_VALUE && at_tensor_shares_storage(r, values[x->value])) return x->value;
    if (x->kind == IR_ARG_VALUES)
      for (int k = 0; k < x->n; k++)
        if (x->values[k] >= 0 && at_tensor_shares_storage(r, values[x->values[k]])) return x->values[k];
  }
  return -1;
}

/* A functional op whose result eager makes a view of an argument (aten::copy returns a view of
 * src when no conversion is needed): the result is that argument's storage seen through
 * as_strided with eager's sizes, strides and offset. */
static int do_alias(rf *c, const ir_stmt *st, int arg, af_tensor *const *values, af_err *err) {
  const af_tensor *r = values[st->out];
  int s = c->objs[c->obj[arg]].storage;
  rf_step step = {0};
  int64_t sz[RF_RANK], sd[RF_RANK];
  rf_shape_of(r, &step.vrank, sz);
  if (step.vrank > RF_RANK) return rf_decline(c, err, "%s", "view of too high a rank");
  step.pdtype = step.vdtype = (af_dtype)at_tensor_dtype(r);
  at_tensor_strides(r, sd);
  memcpy(step.vshape, sz, sizeof(int64_t) * (size_t)step.vrank);
  step.call.op = OPS_as_strided;
  step.call.nargs = 4;
  step.call.args[1] = a_ints(step.vrank, sz);
  step.call.args[2] = a_ints(step.vrank, sd);
  step.call.args[3] = a_int(at_tensor_storage_offset(r));
  int no = rf_new_object(c, s, NULL, st->out);
  rf_chain_push(&c->objs[no].chain, &step);
  c->obj[st->out] = no;
  ir_arg q[OPS_MAX_ARGS]; /* defined as the source does; remembered as that view */
  memset(q, 0, sizeof q);
  if (rf_subst_args(c, st->nargs, st->args, q, err)) {
    rf_args_free(st->nargs, q);
    return -1;
  }
  int v = rf_emit(c, st->op, st->nargs, q, c->p->names[st->out], st->out);
  rf_args_free(st->nargs, q);
  af_buf key = {0};
  rf_step_key(&key, &c->objs[no].chain.s[0]);
  rf_memo_put(&c->sto[s], key.s, key.len, v);
  af_buf_free(&key);
  return 0;
}

/* The p value among st's tensor arguments that eager's result is (the same TensorImpl), or -1. */
static int same_arg(const ir_stmt *st, af_tensor *const *values) {
  for (int a = 0; a < st->nargs; a++)
    if (st->args[a].kind == IR_ARG_VALUE && at_tensor_same(values[st->out], values[st->args[a].value]))
      return st->args[a].value;
  return -1;
}

/* Lists hold objects (the tensors themselves): l[i] is another name of the element's object, so
 * a write through it is a write to the element; cat/stack of a list read the elements' current
 * values into a fresh storage. */
static int do_list(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  int l = st->args[0].value;
  if (st->op == OPS_list) {
    free(c->lst[st->out]);
    c->lst[st->out] = af_xcalloc((size_t)st->args[0].n + 1, sizeof(int));
    for (int k = 0; k < st->args[0].n; k++) c->lst[st->out][k] = c->obj[st->args[0].values[k]];
    c->nlst[st->out] = st->args[0].n;
    return 0;
  }
  if (st->op == OPS_list_append) {
    c->lst[l] = af_xrealloc(c->lst[l], sizeof(int) * (size_t)(c->nlst[l] + 1));
    c->lst[l][c->nlst[l]++] = c->obj[st->args[1].value];
    return 0;
  }
  if (st->op == OPS_list_get || st->op == OPS_list_set) {
    int64_t k = st->args[1].i < 0 ? st->args[1].i + c->nlst[l] : st->args[1].i;
    if (k < 0 || k >= c->nlst[l]) return af_fail(err, "list index out of range");
    if (st->op == OPS_list_get)
      c->obj[st->out] = c->lst[l][k];
    else
      c->lst[l][k] = c->obj[st->args[2].value];
    return 0;
  }
  /* cat_list, stack_list */
  ir_arg a[2] = {{.kind = IR_ARG_VALUES, .n = c->nlst[l], .values = af_xcalloc((size_t)c->nlst[l] + 1, sizeof(int))},
                 {.kind = IR_ARG_INT, .i = st->args[1].i, .value = -1}};
  for (int k = 0; k < c->nlst[l]; k++)
    if ((a[0].values[k] = rf_obj_value(c, c->lst[l][k], err)) < 0) {
      free(a[0].values);
      return -1;
    }
  int v = rf_emit(c, st->op == OPS_cat_list ? OPS_cat : OPS_stack, 2, a, c->p->names[st->out], st->out);
  free(a[0].values);
  int s = rf_new_storage(c, v, values[st->out], -1, err);
  if (s < 0) return -1;
  c->obj[st->out] = rf_new_object(c, s, NULL, st->out);
  return 0;
}

/* `if bool(cond):` in the dry run: ref follows the branch eager takes (loops are unrolled the
 * same way, one translation per iteration) and guards the decision in the output with
 * `assert bool(cond) == taken`, computed functionally, so the output can never be silently
 * wrong for inputs that would take the other branch. */
static int rf_guard(rf *c, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  int truth = eager_truth(values[st->args[0].value], err);
  if (truth < 0) return -1;
  int v = rf_fval(c, st->args[0].value, err);
  if (v < 0) return -1;
  ir_arg a[2] = {a_val(v), a_bool(truth)};
  ir_add_stmt(c->q, OPS_assert, -1, 2, a);
  return 0;
}

/* The eager hook: statement s (st: with loop variables replaced) has just run in the dry run;
 * translate it. */
static int rf_stmt(void *ctx, int s, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  rf *c = ctx;
  const ops_entry *oe = ops_get(st->op);
  int rc;
  /* x = f(x): st reads the old x as the shadow value p->nvalues (eager.h) */
  c->obj[c->p->nvalues] = st->out >= 0 ? c->obj[st->out] : -1;
  if (st->op == OPS_if || oe->kind == OPS_LIST) {
    rc = st->op == OPS_if ? rf_guard(c, st, values, err) : do_list(c, st, values, err);
    if (rc) af_err_prefix(err, "body[%d] (%s)", s, oe->name);
    return rc;
  }
  if (st->out >= 0 && !ops_mutates(st->op) && same_arg(st, values) >= 0) {
    /* the op returned its argument itself: one more name of the same object */
    c->obj[st->out] = c->obj[same_arg(st, values)];
    return 0;
  }
  switch (oe->kind) {
    case OPS_VIEW:
      if ((oe->flags & OPF_MAYBE_VIEW) && !at_tensor_shares_storage(values[st->out], values[st->args[0].value]))
        rc = do_fresh(c, st, values, err); /* reshape/flatten that copied */
      else
        rc = do_view(c, st, values, err);
      break;
    case OPS_FUNC:
      if ((oe->flags & OPF_MAYBE_VIEW) && at_tensor_shares_storage(values[st->out], values[st->args[0].value]))
        rc = do_view(c, st, values, err); /* contiguous that returned its input */
      else if (aliased_arg(st, values) >= 0)
        rc = do_alias(c, st, aliased_arg(st, values), values, err);
      else if (ops_writes(st->op))
        rc = do_running_stats(c, st, values, err);
      else
        rc = do_fresh(c, st, values, err);
      break;
    case OPS_GETITEM: rc = do_getitem(c, st, values, err); break;
    case OPS_INPLACE:
      rc = (oe->flags & OPF_REBIND) ? do_set(c, st, err)
           : (oe->flags & OPF_META) ? do_meta(c, st, values, err)
                                    : do_inplace(c, st, values, err);
      break;
    case OPS_SETITEM: rc = do_setitem(c, st, values, err); break;
    case OPS_OUT: rc = do_out(c, st, values, err); break;
    case OPS_FOREACH: rc = do_foreach(c, st, values, err); break;
    default: rc = rf_decline(c, err, "%s: an op kind ref does not know", oe->name); break;
  }
  if (rc) af_err_prefix(err, "body[%d] (%s)", s, oe->name);
  return rc;
}

/* Drops statements whose value nothing uses (the output program has no side effects). */
static void dead_code(ir_program *q) {
  char *live = af_xcalloc((size_t)q->nvalues + 1, 1);
  for (int o = 0; o < q->noutputs; o++) live[q->outputs[o]] = 1;
  char *keep = af_xcalloc((size_t)q->nstmts + 1, 1);
  for (int s = q->nstmts - 1; s >= 0; s--) {
    const ir_stmt *st = &q->stmts[s];
    if (st->op != OPS_assert && (st->out < 0 || !live[st->out])) continue; /* guards stay */
    keep[s] = 1;
    for (int a = 0; a < st->nargs; a++) {
      const ir_arg *x = &st->args[a];
      if (x->kind == IR_ARG_VALUE) live[x->value] = 1;
      if (x->kind == IR_ARG_VALUES)
        for (int k = 0; k < x->n; k++)
          if (x->values[k] >= 0) live[x->values[k]] = 1;
      if (x->kind == IR_ARG_INDEX)
        for (int k = 0; k < x->n; k++)
          if (x->index[k].kind == IR_IDX_TENSOR) live[x->index[k].value] = 1;
    }
  }
  int n = 0;
  for (int s = 0; s < q->nstmts; s++) {
    if (keep[s]) {
      q->stmts[n++] = q->stmts[s];
      continue;
    }
    for (int a = 0; a < q->stmts[s].nargs; a++) ir_arg_free(&q->stmts[s].args[a]);
    free(q->stmts[s].args);
  }
  q->nstmts = n;
  free(live);
  free(keep);
}

static void rf_free(rf *c) {
  for (int o = 0; o < c->nobjs; o++) rf_chain_free(&c->objs[o].chain);
  free(c->objs);
  for (int s = 0; s < c->nsto; s++) {
    rf_memo_reset(&c->sto[s]);
    free(c->sto[s].memo);
    at_tensor_free(c->sto[s].eager);
  }
  free(c->sto);
  free(c->obj);
  for (int v = 0; c->lst && v < c->p->nvalues; v++) free(c->lst[v]);
  free(c->lst);
  free(c->nlst);
  for (int k = 0; k < c->cap_hints; k++) free(c->hints[k].hint);
  free(c->hints);
  ir_program_free(c->q);
}

int ref_functionalize(const ir_program *p, ir_program **out, int *input_out, af_err *err) {
  rf c = {.p = p, .q = ir_program_new()};
  af_tensor **in = NULL;
  result dry;
  int rc = -1;
  *out = NULL;
  result_init(&dry);
  c.obj = af_xcalloc((size_t)p->nvalues + 1, sizeof(int));
  c.lst = af_xcalloc((size_t)p->nvalues + 1, sizeof(int *));
  c.nlst = af_xcalloc((size_t)p->nvalues + 1, sizeof(int));
  int *in_obj = af_xcalloc((size_t)p->ninputs + 1, sizeof(int)); /* an input's object, even once its name is rebound */
  for (int v = 0; v < p->nvalues; v++) c.obj[v] = -1;
  if (ir_has_layouts(p)) { /* inputs that share memory: see ref_synthetic_bases_of */
    af_fail(err, "inputs with layouts: ref functionalizes the program with synthetic bases instead");
    rc = 1;
    goto out;
  }
  if (inputs_new(p, &in, err)) goto out;
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *pi = &p->inputs[i];
    int v = ir_add_input(c.q, p->names[pi->value], pi->rank, pi->shape, pi->dtype);
    if (pi->ndata) {
      c.q->inputs[i].ndata = pi->ndata;
      c.q->inputs[i].data = memcpy(af_xmalloc(sizeof(double) * (size_t)pi->ndata), pi->data, sizeof(double) * (size_t)pi->ndata);
    }
    int s = rf_new_storage(&c, v, in[i], i, err);
    if (s < 0) goto out;
    c.obj[pi->value] = in_obj[i] = rf_new_object(&c, s, NULL, pi->value);
  }
  if (eager_run_traced(p, in, rf_stmt, &c, &dry, err)) {
    rc = c.declined ? 1 : -1;
    goto out;
  }
  if (dry.status != RESULT_OK) {
    af_fail(err, "eager rejected the program: %s", dry.message ? dry.message : "?");
    goto out;
  }
  /* outputs, then the final value of every input the program changed */
  int nout = p->noutputs;
  int *outs = af_xcalloc((size_t)(p->noutputs + p->ninputs) + 1, sizeof(int));
  for (int o = 0; o < p->noutputs; o++)
    if ((outs[o] = rf_fval(&c, p->outputs[o], err)) < 0) {
      free(outs);
      goto out;
    }
  for (int i = 0; i < p->ninputs; i++) {
    /* a module buffer ends as whatever self.NAME is bound to; an argument as its own tensor */
    int o = p->inputs[i].buffer ? c.obj[p->inputs[i].value] : in_obj[i];
    const rf_object *ob = &c.objs[o];
    input_out[i] = -1;
    if (o == in_obj[i] && !c.sto[ob->storage].written && ob->chain.n == 0) continue;
    if ((outs[nout] = rf_obj_value(&c, o, err)) < 0) {
      free(outs);
      goto out;
    }
    input_out[i] = nout++;
  }
  c.q->noutputs = nout;
  c.q->outputs = outs;
  dead_code(c.q);
  if (ir_validate(c.q, err)) {
    af_err_prefix(err, "ref built an invalid program");
    goto out;
  }
  /* meta: the source's, plus which outputs are final inputs */
  af_buf m = {0};
  size_t keep = p->meta ? strlen(p->meta) : 0;
  while (keep && p->meta[keep - 1] != '}') keep--;
  if (keep) {
    af_buf_printf(&m, "%.*s", (int)(keep - 1), p->meta);
    const char *inner = p->meta + 1;
    while (*inner == ' ') inner++;
    if (*inner != '}') af_buf_puts(&m, ", ");
  } else {
    af_buf_puts(&m, "{");
  }
  af_buf_puts(&m, "\"ref_final_inputs\": {");
  for (int i = 0, first = 1; i < p->ninputs; i++)
    if (input_out[i] >= 0) {
      af_buf_printf(&m, "%s\"%s\": %d", first ? "" : ", ", p->names[p->inputs[i].value], input_out[i]);
      first = 0;
    }
  af_buf_puts(&m, "}}");
  ir_set_meta(c.q, m.s);
  af_buf_free(&m);
  *out = c.q;
  c.q = NULL;
  rc = 0;
out:
  free(in_obj);
  result_clear(&dry);
  inputs_free(ir_ntensors(p), in);
  rf_free(&c);
  return rc;
}

/* ---------------------------------------------------------------- the converter */

typedef struct ref_state {
  ir_program *q;
  int *input_out; /* per input of the program ref functionalized (p, or sb below) */
  /* synthetic bases (8.), when p has layouts: sb is p with storages as inputs; take[k] is the
   * caller's tensor (index into the run's array) for sb's input k; fin[i] the output of q that
   * holds p's input i's final state (-1: input_out of sb's input); root[b] sb's input of base b */
  ir_program *sb;
  int *take, *fin, *root;
} ref_state;

static void rf_renumber(void *ctx, int *v) { *v = ((const int *)ctx)[*v]; }

/* p with every storage of a layout as a flat input and the inputs with layouts read from them:
 * sb's inputs are p's plain inputs, then one per base; a prelude binds each input with a layout
 * to root.as_strided(...), an epilogue reads each again for its final state (extra outputs after
 * p's). new, free with ir_program_free; NULL with err (declined) when ref cannot model it. */
static ir_program *ref_synthetic_bases(const ir_program *p, ref_state *s, af_err *err) {
  for (int k = 0; k < p->nstmts; k++)
    if (ops_get(p->stmts[k].op)->flags & OPF_META) {
      af_fail(err, "ref does not model %s in a program whose inputs have layouts (its input's final state would not be "
              "a fixed window of the storage)", ops_get(p->stmts[k].op)->name);
      return NULL;
    }
  ir_program *q = ir_program_new();
  int *map = af_xcalloc((size_t)p->nvalues + 1, sizeof(int));
  s->take = af_xcalloc((size_t)ir_ntensors(p) + 1, sizeof(int));
  s->fin = af_xcalloc((size_t)p->ninputs + 1, sizeof(int));
  s->root = af_xcalloc((size_t)p->nbases + 1, sizeof(int));
  char name[96];
  for (int i = 0; i < p->ninputs; i++) {
    s->fin[i] = -1;
    if (p->inputs[i].base) continue;
    const ir_input *in = &p->inputs[i];
    map[i] = ir_add_input(q, p->names[i], in->rank, in->shape, in->dtype);
    s->take[q->ninputs - 1] = i;
    /* explicit values: the default ones depend on the position, which moves here */
    int64_t n = ir_numel(in->rank, in->shape);
    ir_input *qi = &q->inputs[q->ninputs - 1];
    qi->buffer = in->buffer;
    qi->attr = in->attr;
    qi->ndata = n;
    qi->data = af_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t k = 0; k < n; k++) qi->data[k] = ir_input_value(in, i, k);
    if (!n) qi->ndata = 0;
  }
  for (int b = 0; b < p->nbases; b++) {
    const ir_base *B = &p->bases[b];
    for (int k = 0;; k++) {
      snprintf(name, sizeof name, k ? "%.60s_storage_%d" : "%.60s_storage", ir_base_name(p, b), k);
      if (ir_find_value(p, name) < 0 && ir_find_value(q, name) < 0) break;
    }
    s->root[b] = ir_add_input(q, name, 1, &B->numel, B->dtype);
    s->take[q->ninputs - 1] = p->ninputs + b;
    ir_input *r = &q->inputs[q->ninputs - 1];
    r->ndata = B->numel;
    r->data = af_xmalloc(sizeof(double) * (size_t)B->numel);
    for (int64_t k = 0; k < B->numel; k++) r->data[k] = ir_base_value(p, b, k);
  }
  for (int i = 0; i < p->ninputs; i++)
    if (p->inputs[i].base) map[i] = ir_add_value(q, p->names[i]);
  for (int v = p->ninputs; v < p->nvalues; v++) map[v] = ir_add_value(q, p->names[v]);
  for (int i = 0; i < p->ninputs; i++) { /* prelude */
    const ir_input *in = &p->inputs[i];
    if (!in->base) continue;
    ir_arg a[4] = {{.kind = IR_ARG_VALUE, .value = s->root[in->base - 1]},
                   {.kind = IR_ARG_INTS, .n = in->rank, .ints = (int64_t *)in->shape, .value = -1},
                   {.kind = IR_ARG_INTS, .n = in->rank, .ints = (int64_t *)in->strides, .value = -1},
                   {.kind = IR_ARG_INT, .i = in->offset, .value = -1}};
    ir_add_stmt(q, OPS_as_strided, map[i], 4, a);
  }
  for (int k = 0; k < p->nstmts; k++) { /* the body, renumbered */
    const ir_stmt *st = &p->stmts[k];
    ir_arg a[OPS_MAX_ARGS];
    for (int j = 0; j < st->nargs; j++) {
      ir_arg_copy(&a[j], &st->args[j]);
      ir_arg_visit(&a[j], rf_renumber, map); /* tensors, lists, subscripts, int values */
    }
    ir_add_stmt(q, st->op, st->out >= 0 ? map[st->out] : -1, st->nargs, a);
    for (int j = 0; j < st->nargs; j++) ir_arg_free(&a[j]);
  }
  q->outputs = af_xcalloc((size_t)(p->noutputs + p->ninputs) + 1, sizeof(int));
  for (int o = 0; o < p->noutputs; o++) q->outputs[q->noutputs++] = map[p->outputs[o]];
  for (int i = 0; i < p->ninputs; i++) { /* epilogue: each input with a layout, read again */
    const ir_input *in = &p->inputs[i];
    if (!in->base) continue;
    for (int k = 0;; k++) {
      snprintf(name, sizeof name, k ? "%.60s_final_%d" : "%.60s_final", p->names[i], k);
      if (ir_find_value(q, name) < 0) break;
    }
    int v = ir_add_value(q, name);
    ir_arg a[4] = {{.kind = IR_ARG_VALUE, .value = s->root[in->base - 1]},
                   {.kind = IR_ARG_INTS, .n = in->rank, .ints = (int64_t *)in->shape, .value = -1},
                   {.kind = IR_ARG_INTS, .n = in->rank, .ints = (int64_t *)in->strides, .value = -1},
                   {.kind = IR_ARG_INT, .i = in->offset, .value = -1}};
    ir_add_stmt(q, OPS_as_strided, v, 4, a);
    s->fin[i] = q->noutputs;
    q->outputs[q->noutputs++] = v;
  }
  if (p->meta) q->meta = af_xstrdup(p->meta);
  free(map);
  if (ir_validate(q, err)) {
    af_err_prefix(err, "ref's synthetic bases");
    ir_program_free(q);
    return NULL;
  }
  return q;
}

static int ref_available(const conv_converter *c, const char **why) {
  (void)c;
  *why = NULL;
  return 1;
}

static const char *ref_version(const conv_converter *c) {
  (void)c;
  return AF_VERSION;
}

static void ref_free(void *state) {
  ref_state *s = state;
  if (!s) return;
  ir_program_free(s->q);
  ir_program_free(s->sb);
  free(s->input_out);
  free(s->take);
  free(s->fin);
  free(s->root);
  free(s);
}

char *ref_source(const ir_program *q, const ir_program *p, const int *input_out) {
  af_buf b = {0};
  char *src = emit_torchscript(q, "program");
  af_buf_puts(&b, "# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)\n");
  af_buf_puts(&b, "# final inputs (input index: output index): {");
  for (int i = 0, first = 1; i < p->ninputs; i++)
    if (input_out[i] >= 0) {
      af_buf_printf(&b, "%s%d: %d", first ? "" : ", ", i, input_out[i]);
      first = 0;
    }
  af_buf_puts(&b, "}\n");
  af_buf_puts(&b, src);
  free(src);
  return af_buf_take(&b);
}

ir_program *ref_synthetic_bases_of(const ir_program *p, af_err *err) {
  ref_state s = {0};
  ir_program *q = ref_synthetic_bases(p, &s, err);
  free(s.take);
  free(s.fin);
  free(s.root);
  return q;
}

static result_status ref_convert(const conv_converter *cv, const ir_program *p, void **state, result *r) {
  (void)cv;
  af_err err;
  ref_state *s = af_xcalloc(1, sizeof *s);
  if (ir_has_layouts(p) && !(s->sb = ref_synthetic_bases(p, s, &err))) {
    result_set_message(r, err.msg);
    ref_free(s);
    return RESULT_UNSUPPORTED;
  }
  const ir_program *fp = s->sb ? s->sb : p;
  s->input_out = af_xcalloc((size_t)fp->ninputs + 1, sizeof(int));
  int rc = ref_functionalize(fp, &s->q, s->input_out, &err);
  if (rc) {
    result_set_message(r, err.msg);
    ref_free(s);
    return rc > 0 ? RESULT_UNSUPPORTED : RESULT_ERROR;
  }
  r->graph = ref_source(s->q, fp, s->input_out);
  r->residual = 0;
  for (int k = 0; k < s->q->nstmts; k++) r->residual += ops_stmt_written(&s->q->stmts[k], NULL, 0) > 0;
  *state = s;
  return RESULT_OK;
}

static result_status ref_run(const conv_converter *cv, void *state, const ir_program *p, af_tensor *const *inputs,
                             result *r) {
  (void)cv;
  ref_state *s = state;
  result fr;
  af_err err;
  result_init(&fr);
  af_tensor **arg = (af_tensor **)inputs;
  if (s->sb) { /* the storages for the synthetic bases, the plain inputs as they are */
    arg = af_xcalloc((size_t)s->sb->ninputs + 1, sizeof(af_tensor *));
    for (int k = 0; k < s->sb->ninputs; k++) arg[k] = inputs[s->take[k]];
  }
  int bad = eager_run_on(s->q, arg, &fr, &err) || fr.status != RESULT_OK;
  if (s->sb) free(arg);
  if (bad) {
    result_set_message(r, fr.message ? fr.message : err.msg);
    result_clear(&fr);
    return RESULT_ERROR;
  }
  r->noutputs = p->noutputs;
  r->outputs = af_xcalloc((size_t)p->noutputs + 1, sizeof(af_tensor *));
  for (int o = 0; o < p->noutputs; o++) r->outputs[o] = at_tensor_ref(fr.outputs[o]);
  r->ninputs = p->ninputs;
  r->inputs = af_xcalloc((size_t)p->ninputs + 1, sizeof(af_tensor *));
  if (!s->sb) {
    for (int i = 0; i < p->ninputs; i++)
      r->inputs[i] = at_tensor_ref(s->input_out[i] >= 0 ? fr.outputs[s->input_out[i]] : inputs[i]);
  } else {
    r->nbases = p->nbases;
    r->bases = af_xcalloc((size_t)p->nbases + 1, sizeof(af_tensor *));
    for (int k = 0; k < s->sb->ninputs; k++) { /* plain inputs and storages: given back, or unchanged */
      int t = s->take[k];
      af_tensor *fin = at_tensor_ref(s->input_out[k] >= 0 ? fr.outputs[s->input_out[k]] : inputs[t]);
      if (t < p->ninputs) r->inputs[t] = fin;
      else r->bases[t - p->ninputs] = fin;
    }
    for (int i = 0; i < p->ninputs; i++)
      if (s->fin[i] >= 0) r->inputs[i] = at_tensor_ref(fr.outputs[s->fin[i]]);
  }
  result_clear(&fr);
  return RESULT_OK;
}

const conv_converter conv_ref = {
    .name = "ref",
    .description = "aliasfuzz's reference functionalizer on the IR: view chains, functional twins plus scatters "
                   "back to the base, mutated inputs returned (must pass everything)",
    .available = ref_available,
    .version = ref_version,
    .convert = ref_convert,
    .run = ref_run,
    .free_state = ref_free,
    .repro_py =
        "def convert_and_run(src, converted, inputs):\n"
        "    # converted: ref's functional program; run it as Python, then hand back the final\n"
        "    # values of the inputs it returns as extra outputs\n"
        "    import ast\n"
        "    final = {}\n"
        "    for line in converted.splitlines():\n"
        "        if line.startswith('# final inputs'):\n"
        "            final = ast.literal_eval(line[line.index('{'):])\n"
        "    ns = {'torch': torch, 'Tensor': torch.Tensor, 'Tuple': Tuple, 'List': List, 'Optional': Optional}\n"
        "    # Python's torch.index_put rejects None in an index list; TorchScript's and torch.ops' accept it\n"
        "    exec(converted.replace('torch.index_put(', 'torch.ops.aten.index_put('), ns)\n"
        "    outs = as_list(ns['program'](*inputs))\n"
        "    n = len(outs) - len(final)\n"
        "    return outs[:n], [outs[final[i]] if i in final else t for i, t in enumerate(inputs)]\n",
};
