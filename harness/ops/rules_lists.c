/* rules_lists.c - rule families: lists and control (list, foreach, control, and cat/stack/where in
 * other): cat/stack, where, the foreach ops, and the empty rule and sampler of control-flow statements. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* cat (stack 0) and stack (1) of a tensor list */
static int cat_rule(const ir_stmt *st, const ops_env *env, int stack, ops_meta *o, af_err *err) {
  const ir_arg *a = st->args;
  const char *name = ops_get(st->op)->name;
  const ir_arg *l = &a[0];
  if (l->n == 0) return af_fail(err, "%s expects a non-empty TensorList", name);
  const ops_meta *f = META(l->values[0]);
  int64_t dim;
  if (opk_wrapd(a[1].i, stack ? f->rank + 1 : f->rank, &dim, err)) return -1;
  if (!stack && f->rank == 0) return af_fail(err, "zero-dimensional tensor cannot be concatenated");
  af_dtype dt = f->dtype;
  int64_t total = 0;
  for (int k = 0; k < l->n; k++) {
    const ops_meta *m = META(l->values[k]);
    if (m->dtype != dt) return af_fail(err, "%s of mixed dtypes is not modelled", name);
    if (m->rank != f->rank) return af_fail(err, "%s: tensors must have the same number of dimensions", name);
    for (int d = 0; d < f->rank; d++)
      if ((stack || d != dim) && m->shape[d] != f->shape[d]) return af_fail(err, "%s: sizes of tensors must match except in dimension %lld", name, (long long)dim);
    if (!stack) total += m->shape[dim];
  }
  int64_t shape[AF_MAX_RANK];
  int r = f->rank;
  memcpy(shape, f->shape, sizeof(int64_t) * (size_t)r);
  if (!stack) {
    shape[dim] = total;
  } else {
    if (r >= AF_MAX_RANK) return af_fail(err, "rank above the limit %d", AF_MAX_RANK);
    for (int d = r; d > dim; d--) shape[d] = shape[d - 1];
    shape[dim] = l->n;
    r++;
  }
  opk_fresh_contig(o, dt, r, shape);
  if (r >= 4) o->exact = 0; /* memory-format suggestion of rank-4/5 inputs not modelled */
  return 0;
}

int shape_func_cat(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)self;
  return cat_rule(st, env, 0, &e->out, err);
}

int shape_func_stack(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)self;
  return cat_rule(st, env, 1, &e->out, err);
}

int shape_func_where(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  ops_meta *o = &e->out;
  const ops_meta *x = META(a[1].value), *y = META(a[2].value);
  if (self->dtype != AF_BOOL) return af_fail(err, "where expected condition to be a boolean tensor");
  int r;
  int64_t shape[AF_MAX_RANK];
  if (ops_broadcast(self->rank, self->shape, x->rank, x->shape, &r, shape) || ops_broadcast(r, shape, y->rank, y->shape, &r, shape))
    return af_fail(err, "where: the shapes of the operands do not broadcast");
  af_dtype dt[2] = {x->dtype, y->dtype};
  ops_opnd_kind k[2] = {x->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM, y->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM};
  af_dtype common = ops_result_type(2, dt, k);
  if (opk_common_ok(common, err)) return -1;
  ti_opnd t[3] = {{self, AF_BOOL}, {x, x->dtype}, {y, y->dtype}};
  opk_ti_layout(3, t, DT_UNDEF, r, shape, common, o); /* no conversion inside: operands of another dtype are converted before */
  if (x->dtype != y->dtype) o->exact = 0;
  return 0;
}

/* no rule: control flow and list statements (the generator's model handles them), ops the rules
 * do not reason about (new_full) */
int shape_none(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)self, (void)e;
  return af_fail(err, "no shape rule for op %s", ops_get(st->op)->name);
}

/* ---------------------------------------------------------------- foreach
 * torch._foreach_OP_(self, operands...): self is a list of tensors, each operand a list of as many
 * tensors or one number. Eager (the CPU's slow path, 1.13 and 2.13) runs the twin OP_ on each
 * element in turn, element k with element k of each list operand. The rule accepts what every
 * implementation agrees on: self's elements share no memory with each other, a list operand's
 * element j shares none with self's element k for j != k (so the order of the elements decides
 * nothing), operand element k has element k's shape, and each element with its operands passes
 * the twin's own rule (dtypes, casts, memory overlap). */

/* The twin statement of element k of foreach statement st: args (OPS_MAX_ARGS) borrow st's. */
static int foreach_element(const ir_stmt *st, int k, ir_stmt *el, ir_arg *args) {
  const ops_entry *oe = ops_get(st->op);
  int twin = ops_twin(st->op);
  if (twin < 0 || ops_get(twin)->nargs != oe->nargs) return -1;
  for (int a = 0; a < st->nargs; a++) {
    args[a] = st->args[a];
    if (st->args[a].kind == IR_ARG_VALUES) args[a] = (ir_arg){.kind = IR_ARG_VALUE, .value = st->args[a].values[k]};
  }
  *el = (ir_stmt){.op = twin, .out = -1, .nargs = st->nargs, .args = args};
  return 0;
}

int shape_write_foreach(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)self;
  const ir_arg *a = st->args;
  const char *name = ops_get(st->op)->name;
  int n = a[0].n;
  if (a[0].kind != IR_ARG_VALUES || n < 1) return af_fail(err, "%s: Tensor list must have at least one tensor", name);
  for (int x = 1; x < st->nargs; x++) {
    if (a[x].kind != IR_ARG_VALUES) continue;
    if (a[x].n != n) return af_fail(err, "%s: Tensor lists must have the same number of tensors, got %d and %d", name, n, a[x].n);
    for (int k = 0; k < n; k++) {
      const ops_meta *s = META(a[0].values[k]), *o = META(a[x].values[k]);
      if (o->rank != s->rank || memcmp(o->shape, s->shape, sizeof(int64_t) * (size_t)s->rank))
        return af_fail(err, "%s: operand %d's element %d has another shape than self's (broadcasting is not modelled)", name, x, k);
    }
  }
  for (int k = 0; k < n; k++) {
    const ops_meta *m = META(a[0].values[k]);
    if (opk_writable(env, m, err) || opk_self_dtype_ok(st->op, m, err)) {
      af_err_prefix(err, "%s: element %d", name, k);
      return -1;
    }
    for (int j = 0; j < n && env->overlap; j++) {
      if (j > k && env->overlap(env->ctx, a[0].values[k], a[0].values[j]) != OPS_LAP_NONE)
        return opk_undefined(env, OPS_UNDEF_ORDER), af_fail(err, "%s: elements %d and %d share memory (their result would depend on the order the elements are written in)", name, k, j);
      for (int x = 1; x < st->nargs && j != k; x++)
        if (a[x].kind == IR_ARG_VALUES && env->overlap(env->ctx, a[0].values[k], a[x].values[j]) != OPS_LAP_NONE)
          return opk_undefined(env, OPS_UNDEF_OPERAND), af_fail(err, "%s: operand %d's element %d shares memory with self's element %d (the result would depend on the order)", name, x, j, k);
    }
    ir_stmt el;
    ir_arg args[OPS_MAX_ARGS];
    ops_effect te;
    if (foreach_element(st, k, &el, args)) return af_fail(err, "%s: its twin does not take its arguments", name);
    if (ops_shape_infer(&el, env, &te, err)) {
      af_err_prefix(err, "%s: element %d", name, k);
      return -1;
    }
  }
  e->writes = 1;
  return 0;
}

/* cat (stack 0) and stack (1): p is one element of the list */
static int cat_args(int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args, int stack) {
  int r = m->rank;
  if (!stack && r == 0) return -1;
  if (stack && r >= ch->max_rank) return -1;
  int cnt = (int)R(1, 2), vals[3], at = (int)R(0, cnt);
  int64_t dim = !stack ? opk_pick_dim(ch, r, 1) : R(0, r);
  if (stack && D(OPS_DECIDE_NEG_DIM)) dim -= r + 1;
  int64_t total = ops_meta_numel(m);
  int c = 0;
  for (int k = 0; k <= cnt; k++) {
    if (k == at) {
      vals[c++] = p;
      continue;
    }
    ops_req q = opk_req(!stack ? OPS_REQ_CAT : OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_SAME, -1, 0);
    q.dim = (int)(dim < 0 ? dim + r : dim);
    int v = opk_tensor(ch, &q);
    if (v < 0) return -1;
    total += ch->meta ? ops_meta_numel(ch->meta(ch->ctx, v)) : 0;
    vals[c++] = v;
  }
  if (total > ch->max_numel) return -1;
  args[0] = opk_a_values(c, vals);
  args[1] = a_int(dim);
  return 0;
}

SAMPLER(cat) {
  SAMPLER_BEGIN;
  return cat_args(p, m, ch, args, 0) ? -1 : n;
}

SAMPLER(stack) {
  SAMPLER_BEGIN;
  return cat_args(p, m, ch, args, 1) ? -1 : n;
}

SAMPLER(where) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  int mv = opk_mask_for(ch, m);
  if (mv < 0) return -1;
  ops_req q = opk_req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, OPS_DT_SAME, -1, 0);
  int y = opk_tensor(ch, &q);
  if (y < 0) return -1;
  args[0] = a_value(mv), args[1] = a_value(p), args[2] = a_value(y);
  return n;
}

/* never drawn */
SAMPLER(none) {
  (void)op, (void)p, (void)m, (void)storage, (void)ch, (void)args;
  return -1;
}

/* foreach ops: a list of 2 or 3 tensors of p's rank and dtype that share no memory with each
 * other (other views of p's storage where one fits: views of one flat buffer, an optimizer's
 * params), then per list operand one tensor of each element's shape (for div_ of its float
 * dtype), or a number */
SAMPLER(foreach) {
  SAMPLER_BEGIN;
  const ops_entry *e = ops_get(op);
  int tw = ops_twin(op);
  if (!opk_dt_drawable(op, m) || tw < 0 || m->dtype == AF_BOOL) return -1;
  int len = (int)R(2, 3), el[3] = {p, -1, -1};
  int64_t any[AF_MAX_RANK] = {0};
  for (int k = 1; k < len; k++) { /* any shape of p's rank (the same shape now and then), p's storage preferred */
    ops_req q = D(OPS_DECIDE_EDGE) ? opk_req(OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_SAME, el[k - 1], 0)
                                   : opk_req(OPS_REQ_AT_LEAST, r, any, m->dtype, OPS_DT_SAME, el[k - 1], 0);
    q.near1 = p + 1;
    q.rank2 = r; /* made anew: p's shape */
    memcpy(q.shape2, m->shape, sizeof(int64_t) * (size_t)r);
    el[k] = opk_tensor(ch, &q);
    if (el[k] < 0) return -1;
  }
  args[0] = opk_a_values(len, el);
  for (int x = 1; x < n; x++) {
    if (e->argk[x][0] == 'L') {
      int ov[3];
      for (int k = 0; k < len; k++) {
        const ops_meta *mk = ch->meta(ch->ctx, el[k]);
        ops_req q = opk_req(OPS_REQ_SHAPE, mk->rank, mk->shape, mk->dtype, tw == OPS_div_ ? OPS_DT_SAME : OPS_DT_INTO, el[k], 1);
        ov[k] = opk_tensor(ch, &q);
        if (ov[k] < 0) return -1;
      }
      args[x] = opk_a_values(len, ov);
    } else if (tw == OPS_div_) {
      args[x] = opk_divisor(ch);
    } else if (tw == OPS_addcmul_) {
      static const double fv[] = {2, -1, 0.5, 3};
      args[x] = is_float(m->dtype) ? opk_pick_num(ch, fv, 4) : a_int(R(0, 1) ? 2 : -1);
    } else {
      args[x] = opk_operand_number(ch, m->dtype, tw);
    }
  }
  return n;
}
