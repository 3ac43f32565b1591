/* rules_out.c - rule family: out= forms (their twin's family in ops.def): the twin's own rule gives the
 * result, and out= must have its shape. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* add_out, mul_out: torch.op(x, y, out=self) */
int shape_out_binary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  const ops_meta *x = META(a[1].value), *y = META(a[2].value);
  if (x->dtype == AF_BOOL || y->dtype == AF_BOOL) return af_fail(err, "arithmetic on bool is not modelled");
  int r;
  int64_t shape[AF_MAX_RANK];
  if (ops_broadcast(x->rank, x->shape, y->rank, y->shape, &r, shape)) return af_fail(err, "operands do not broadcast");
  if (!opk_shape_is(self, r, shape)) return af_fail(err, "out= tensor has another shape than the result (it would be resized)");
  af_dtype common;
  if (opk_arith_type(st, env, 1, 2, &common, err)) return -1;
  if (!ops_can_cast(common, self->dtype))
    return af_fail(err, "result type %s can't be cast to the desired output type %s", af_dtype_name(common), af_dtype_name(self->dtype));
  if (opk_no_overlap(env, w, a[1].value, 1, err) || opk_no_overlap(env, w, a[2].value, 1, err)) return -1;
  return 0;
}

/* add_out, mul_out, sub_out, div_out: two operands, one of self's shape and one broadcasting */
static int out_arith_args(int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args) {
  ops_req q = opk_req(OPS_REQ_SHAPE, m->rank, m->shape, m->dtype, OPS_DT_INTO, p, 1);
  int x = opk_tensor(ch, &q);
  if (x < 0) return -1;
  q.kind = OPS_REQ_BROADCAST;
  int y = opk_tensor(ch, &q);
  if (y < 0) return -1;
  if (R(0, 1)) {
    int t = x;
    x = y;
    y = t;
  }
  args[1] = a_value(x), args[2] = a_value(y);
  return 0;
}

SAMPLER(out_binary) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  return out_arith_args(p, m, ch, args) ? -1 : n;
}

/* ---- out= forms: the twin's own rule gives the result; out= must have its shape (no resize)
 * and take its dtype (strict: exactly its dtype; else castable into it) ---- */

static int out_rule(const ir_stmt *st, const ops_env *env, const ops_meta *self, int strict, int cat, af_err *err) {
  const ir_arg *a = st->args;
  int w = a[0].value;
  int twin = ops_twin(st->op);
  ir_stmt t = {.op = twin, .out = -1, .nargs = st->nargs - 1, .args = st->args + 1};
  ops_effect te;
  if (twin < 0 || ops_shape_infer(&t, env, &te, err)) return -1;
  if (!opk_shape_is(self, te.out.rank, te.out.shape)) return af_fail(err, "out= tensor has another shape than the result (it would be resized)");
  if (cat) { /* PyTorch 1.13's cat writes nothing into an out= whose size-1 cat dim has another
                stride, and divides by zero for stride 0 */
    int64_t cs[AF_MAX_RANK];
    opk_contig_strides(self->rank, self->shape, cs);
    if (!self->exact || memcmp(cs, self->stride, sizeof(int64_t) * (size_t)self->rank))
      return af_fail(err, "cat out= into a tensor without contiguous strides (size-1 dims included): PyTorch 1.13's cat kernel skips the write or divides by zero");
  }
  if (strict ? te.out.dtype != self->dtype : !ops_can_cast(te.out.dtype, self->dtype))
    return af_fail(err, "out= tensor of dtype %s for a result of dtype %s", af_dtype_name(self->dtype), af_dtype_name(te.out.dtype));
  for (int k = 1; k < st->nargs; k++) {
    if (a[k].kind == IR_ARG_VALUE && opk_no_overlap(env, w, a[k].value, !strict, err)) return -1;
    if (a[k].kind == IR_ARG_VALUES)
      for (int j = 0; j < a[k].n; j++)
        if (opk_no_overlap(env, w, a[k].values[j], 0, err)) return -1;
  }
  return 0;
}

/* sub_out, div_out: a result castable into out */
int shape_out_twin_cast(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return out_rule(st, env, self, 0, 0, err);
}

/* unary, cumsum, mm: out= of the result's dtype */
int shape_out_twin(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return out_rule(st, env, self, 1, 0, err);
}

int shape_out_cat(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return out_rule(st, env, self, 1, 1, err);
}

/* ---- out= forms (self is the out tensor) ---- */

/* sub_out, div_out */
SAMPLER(out_arith) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  if (op == OPS_div_out && !is_float(m->dtype)) return -1;
  return out_arith_args(p, m, ch, args) ? -1 : n;
}

/* neg_out, exp_out, clamp_out: an operand of self's shape and dtype */
SAMPLER(out_unary) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  if (op == OPS_exp_out && !is_float(m->dtype)) return -1;
  ops_req q = opk_req(OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_SAME, p, 1);
  int x = opk_tensor(ch, &q);
  if (x < 0) return -1;
  args[1] = a_value(x);
  if (n == 4) { /* clamp_out's bounds */
    ops_meta xm = *m;
    if (ch->meta) xm.dtype = ch->meta(ch->ctx, x)->dtype;
    opk_clamp_args(ch, &xm, &args[2], &args[3]);
  }
  return n;
}

SAMPLER(out_cumsum) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  ops_req q = opk_req(OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_SAME, p, 0);
  int x = opk_tensor(ch, &q);
  if (x < 0) return -1;
  args[1] = a_value(x), args[2] = a_int(opk_pick_dim(ch, r, 1));
  return n;
}

SAMPLER(out_mm) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  if (r != 2) return -1;
  int64_t k = R(1, 4), xs[2] = {m->shape[0], k}, ys[2] = {k, m->shape[1]};
  if (ir_numel(2, xs) > ch->max_numel || ir_numel(2, ys) > ch->max_numel) return -1;
  ops_req q = opk_req(OPS_REQ_SHAPE, 2, xs, m->dtype, OPS_DT_SAME, p, 0);
  int x = opk_tensor(ch, &q);
  if (x < 0) return -1;
  q = opk_req(OPS_REQ_SHAPE, 2, ys, m->dtype, OPS_DT_SAME, p, 0);
  int y = opk_tensor(ch, &q);
  if (y < 0) return -1;
  args[1] = a_value(x), args[2] = a_value(y);
  return n;
}

SAMPLER(out_cat) { /* the out tensor's dim split into one or two parts */
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  if (r == 0) return -1;
  int64_t dim = opk_pick_dim(ch, r, 1), d = dim < 0 ? dim + r : dim, total = m->shape[d];
  int cnt = total >= 2 && R(0, 1) ? 2 : 1, vals[2];
  int64_t first = cnt == 2 ? R(1, total - 1) : total;
  for (int k = 0; k < cnt; k++) {
    int64_t shape[AF_MAX_RANK];
    memcpy(shape, m->shape, sizeof(int64_t) * (size_t)r);
    shape[d] = k == 0 ? first : total - first;
    ops_req q = opk_req(OPS_REQ_SHAPE, r, shape, m->dtype, OPS_DT_SAME, p, 0);
    if ((vals[k] = opk_tensor(ch, &q)) < 0) return -1;
  }
  args[1] = opk_a_values(cnt, vals), args[2] = a_int(dim);
  return n;
}
