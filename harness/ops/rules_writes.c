/* rules_writes.c - rule families: fill, copy and one-operand writes (fill, unary_float, unary_num,
 * activation, cumulative in ops.def's family column): fill_/zero_/copy_, clamp, the pointwise unary
 * ops and activations, cumsum/cumprod, tril/triu. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* clamp/clip bounds: at least one, and no float bound for an integer self */
static int clamp_bounds_ok(const ir_arg *a, const ops_meta *self, af_err *err) {
  if (a[1].kind == IR_ARG_NONE && a[2].kind == IR_ARG_NONE) return af_fail(err, "torch.clamp: At least one of 'min' or 'max' must not be None");
  for (int k = 1; k <= 2; k++) {
    if (is_int(self->dtype) && a[k].kind == IR_ARG_FLOAT) return af_fail(err, "result type Float can't be cast to the desired output type long");
    if (opk_scalar_fits(self->dtype, &a[k], NULL, err)) return -1;
  }
  return 0;
}

int shape_write_clamp(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  if (opk_not_bool(self, "clamp_", err)) return -1;
  return clamp_bounds_ok(st->args, self, err);
}

int shape_write_fill(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)self, (void)e;
  const ir_arg *a = st->args;
  if (opk_number_or_zerodim(&a[1], env, "fill_", err) || opk_value_fits(env, self->dtype, &a[1], err)) return -1;
  if (a[1].kind == IR_ARG_VALUE && opk_no_overlap(env, a[0].value, a[1].value, 0, err)) return -1;
  return 0;
}

/* zero_: any writable self */
int shape_write_plain(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)self, (void)e, (void)err;
  return 0;
}

int shape_write_copy(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  const ops_meta *src = META(a[1].value);
  if (!ops_broadcasts_to(src->rank, src->shape, self->rank, self->shape)) return af_fail(err, "copy_: src does not broadcast to self");
  return opk_no_overlap(env, a[0].value, a[1].value, 1, err);
}

int shape_func_clamp(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  if (opk_not_bool(self, ops_get(st->op)->name, err)) return -1;
  af_dtype dt = self->dtype;
  if (a[1].kind == IR_ARG_NONE && a[2].kind == IR_ARG_NONE) return af_fail(err, "torch.clamp: At least one of 'min' or 'max' must not be None");
  for (int k = 1; k <= 2; k++) {
    if (is_int(dt) && a[k].kind == IR_ARG_FLOAT) dt = AF_FLOAT32;
    if (opk_scalar_fits(self->dtype, &a[k], NULL, err)) return -1;
  }
  ti_opnd t = {self, self->dtype};
  opk_ti_layout(1, &t, dt, self->rank, self->shape, dt, &e->out);
  return 0;
}

int shape_func_fill(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (opk_number_or_zerodim(&st->args[1], env, "fill", err) || opk_value_fits(env, self->dtype, &st->args[1], err)) return -1;
  opk_preserve_layout(self, &e->out);
  return 0;
}

int shape_func_zero(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  opk_preserve_layout(self, &e->out);
  return 0;
}

int shape_func_copy(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  /* 1.13: src.to(self) then expand_copy to self's shape; src.to(self) is src itself when the
   * dtype matches, and no copy follows when the shapes match: the result is src */
  ops_meta *o = &e->out;
  const ops_meta *src = META(st->args[1].value);
  if (!ops_broadcasts_to(src->rank, src->shape, self->rank, self->shape)) return af_fail(err, "copy: src does not broadcast to self");
  if (opk_shape_is(src, self->rank, self->shape) && src->dtype == self->dtype)
    return af_fail(err, "copy(self, src) returns src itself when shapes and dtypes match, against its functional schema (executors differ)");
  ops_meta conv, ex;
  if (src->dtype != self->dtype) {
    opk_preserve_layout(src, &conv);
    conv.dtype = self->dtype;
  } else {
    conv = *src;
  }
  if (opk_shape_is(&conv, self->rank, self->shape)) {
    *o = conv;
    return 0;
  }
  if (opk_v_expand(&conv, self->rank, self->shape, &ex, err)) return -1; /* expand_copy: expand + clone */
  opk_preserve_layout(&ex, o);
  return 0;
}

void opk_clamp_args(const ops_chooser *ch, const ops_meta *m, ir_arg *lo, ir_arg *hi) {
  int mode = (int)R(0, 2);
  int64_t a = R(-3, 1), b = R(a, 3);
  *lo = mode == 1 ? a_none() : a_int(a);
  *hi = mode == 0 ? a_none() : a_int(b);
  if (is_float(m->dtype) && D(OPS_DECIDE_FLOAT)) {
    if (lo->kind == IR_ARG_INT) *lo = a_float((double)a - 0.5);
    if (hi->kind == IR_ARG_INT) *hi = a_float((double)b + 0.5);
  }
}

SAMPLER(clamp) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  opk_clamp_args(ch, m, &args[1], &args[2]);
  return n;
}

SAMPLER(fill) {
  SAMPLER_BEGIN;
  if (D(OPS_DECIDE_NUMBER) || m->dtype == AF_BOOL) { /* TorchScript takes no bool for a Scalar: 0/1 */
    args[1] = m->dtype == AF_BOOL ? a_int(R(0, 1)) : opk_number(ch, m->dtype);
    return n;
  }
  ops_req q = opk_req(OPS_REQ_ZERODIM, 0, NULL, m->dtype, OPS_DT_INTO, ops_get(op)->kind == OPS_INPLACE ? p : -1, 0);
  int v = opk_tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(copy) { /* a src of another shape or dtype (else aten::copy returns src itself) */
  SAMPLER_BEGIN;
  int64_t shape[AF_MAX_RANK];
  int k = opk_broadcastable_shape(ch, r, m->shape, shape);
  int same = k == r && !memcmp(shape, m->shape, sizeof(int64_t) * (size_t)r);
  af_dtype dt = m->dtype;
  if (same || R(0, 1)) dt = m->dtype == AF_FLOAT32 ? (R(0, 1) ? AF_FLOAT64 : AF_INT64) : AF_FLOAT32;
  ops_req q = opk_req(OPS_REQ_SHAPE, k, shape, dt, OPS_DT_SAME, -1, 0);
  int v = opk_tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(copy_into) {
  SAMPLER_BEGIN;
  ops_req q = opk_req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, OPS_DT_ANY, p, 1);
  int v = opk_tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

/* ---- pointwise unary (in place: self's dtype must take the result) ---- */

/* number arguments of a unary op that eager converts into self's dtype (hardtanh's and
 * threshold's bounds) must fit it */
static int unary_numbers_fit(const ir_stmt *st, const ops_meta *self, af_err *err) {
  for (int k = 1; k < st->nargs; k++) {
    const ir_arg *a = &st->args[k];
    if (a->kind != IR_ARG_INT && a->kind != IR_ARG_FLOAT) continue;
    if (opk_scalar_fits(self->dtype, a, NULL, err)) return -1;
    if (self->dtype == AF_UINT8 && (a->kind == IR_ARG_FLOAT ? a->f : (double)a->i) < 0) /* hardtanh's check, taken for all */
      return af_fail(err, "cannot do %s on an unsigned type with negative limits", ops_get(st->op)->name);
  }
  return 0;
}

int shape_write_unary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  return opk_self_dtype_ok(st->op, self, err) || unary_numbers_fit(st, self, err) ? -1 : 0;
}

static int celu_alpha_ok(const ir_arg *a, af_err *err) {
  if ((a[1].kind == IR_ARG_FLOAT ? a[1].f : (double)a[1].i) == 0) return af_fail(err, "ZeroDivisionError: celu alpha 0");
  return 0;
}

int shape_write_celu(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  return celu_alpha_ok(st->args, err);
}

int shape_write_clip(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  return clamp_bounds_ok(st->args, self, err);
}

/* a unary result of dtype dt: TensorIterator's layout (layout_like: empty_like(self) then the
 * out= kernel, as hardtanh, relu6, deg2rad, rad2deg and nan_to_num do) */
static int unary_func(const ir_stmt *st, const ops_meta *self, af_dtype dt, int layout_like, ops_meta *o, af_err *err) {
  if (opk_self_dtype_ok(st->op, self, err) || unary_numbers_fit(st, self, err)) return -1;
  if (layout_like) {
    opk_preserve_layout(self, o);
    return 0;
  }
  ti_opnd t = {self, self->dtype};
  opk_ti_layout(1, &t, self->dtype, self->rank, self->shape, dt, o);
  return 0;
}

int shape_func_unary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return unary_func(st, self, self->dtype, 0, &e->out, err);
}

int shape_func_unary_preserve(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return unary_func(st, self, self->dtype, 1, &e->out, err);
}

int shape_func_logical_not(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return unary_func(st, self, AF_BOOL, 0, &e->out, err);
}

int shape_func_celu(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  if (celu_alpha_ok(st->args, err)) return -1;
  return unary_func(st, self, self->dtype, 0, &e->out, err);
}

/* ---- cumulative and triangular ---- */

int shape_write_cumulative(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  int64_t d;
  return opk_wrapd(st->args[1].i, self->rank, &d, err);
}

int shape_func_cumulative(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  int64_t d;
  if (opk_wrapd(st->args[1].i, self->rank, &d, err)) return -1;
  opk_fresh_contig(&e->out, is_int(self->dtype) ? AF_INT64 : self->dtype, self->rank, self->shape); /* integers: int64, as sum */
  return 0;
}

int shape_write_triangular(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  if (self->rank < 2) return af_fail(err, "%s: input tensor must have at least 2 dimensions", ops_get(st->op)->name);
  return 0;
}

int shape_func_triangular(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  if (self->rank < 2) return af_fail(err, "%s: input tensor must have at least 2 dimensions", ops_get(st->op)->name);
  opk_fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  return 0;
}

/* ---- samplers of the unary families: each first checks self's dtype against the op's line ---- */

/* pointwise unary ops without scalar arguments */
SAMPLER(unary) {
  SAMPLER_BEGIN;
  return opk_dt_drawable(op, m) ? n : -1;
}

/* celu, elu: alpha */
SAMPLER(unary_alpha) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  static const double f[] = {0.5, 1.0, 2.0};
  args[1] = a_float(f[R(0, 2)]);
  return n;
}

SAMPLER(leaky_relu) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  static const double f[] = {0.5, 0.25, 2.0, 0.01};
  args[1] = a_float(f[R(0, 3)]);
  return n;
}

SAMPLER(hardtanh) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  int64_t lo = R(-3, 0), hi = R(lo + 1, 3);
  args[1] = a_int(lo), args[2] = a_int(hi);
  if (is_float(m->dtype) && D(OPS_DECIDE_FLOAT)) args[1] = a_float((double)lo - 0.5);
  return n;
}

SAMPLER(threshold) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  args[1] = a_int(R(-2, 2)), args[2] = a_int(R(-5, 5));
  return n;
}

SAMPLER(nan_to_num) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  static const double f[] = {0.0, 1.0, -1.0, 2.5};
  for (int k = 1; k <= 3; k++) args[k] = R(0, 1) ? a_float(f[R(0, 3)]) : a_none();
  return n;
}

SAMPLER(clip) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  opk_clamp_args(ch, m, &args[1], &args[2]);
  return n;
}

SAMPLER(cumulative) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  if (r == 0) return -1;
  args[1] = a_int(opk_pick_dim(ch, r, 1));
  return n;
}

SAMPLER(triangular) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  if (r < 2) return -1;
  args[1] = a_int(R(-2, 2));
  return n;
}
