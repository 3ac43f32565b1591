/* rules_factories.c - rule families: fresh tensors (self_return, factory, creation, and clone in other):
 * clone, contiguous, dropout in eval mode, type_as/to, to_dense, *_like, new_*, and the factories without a
 * tensor argument. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

int shape_func_clone(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  opk_preserve_layout(self, &e->out);
  return 0;
}

/* contiguous(): self itself when contiguous already, else a contiguous copy */
int shape_func_contiguous(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env;
  if (!self->exact) return af_fail(err, "contiguous() of a tensor whose strides are not modelled (self or copy not decided)");
  if (ops_meta_is_contiguous(self)) {
    e->out = *self;
    e->alias = OPS_ALIAS_SAME;
    return 0;
  }
  opk_fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  e->copied = 1;
  return 0;
}

/* ---- functional ops that return their argument itself ---- */

/* dropout, feature_dropout, alpha_dropout with train=False: the input itself */
int shape_func_dropout_eval(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  const char *name = ops_get(st->op)->name;
  if (a[2].kind != IR_ARG_BOOL || a[2].i) return af_fail(err, "%s with train=True draws random numbers: not generated", name);
  double p = a[1].kind == IR_ARG_FLOAT ? a[1].f : (double)a[1].i;
  if (a[1].kind == IR_ARG_NONE || p < 0 || p > 1) return af_fail(err, "dropout probability has to be between 0 and 1, but got %g", p);
  e->out = *self;
  e->alias = OPS_ALIAS_SAME;
  return 0;
}

/* to_dense() of a strided tensor (every tensor a program has): the tensor itself */
int shape_func_to_dense(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  e->out = *self;
  e->alias = OPS_ALIAS_SAME;
  return 0;
}

/* self.type_as(other), self.to(dtype), self.to_dense(dtype): self itself when the dtypes match, else a
 * copy converted to other's dtype or to dtype (memory format preserved) */
int shape_func_type_as(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)err;
  const ir_arg *a = &st->args[1];
  af_dtype to = a->kind == IR_ARG_DTYPE ? (af_dtype)a->i : META(a->value)->dtype;
  if (to == self->dtype) {
    e->out = *self;
    e->alias = OPS_ALIAS_SAME;
    return 0;
  }
  opk_preserve_layout(self, &e->out);
  e->out.dtype = to;
  return 0;
}

/* ---- factories of a tensor's dtype ---- */

/* zeros_like, ones_like, full_like: self's dtype and memory format */
int shape_func_like(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  if (st->nargs > 1 && is_int(self->dtype) && a[1].kind == IR_ARG_FLOAT)
    return af_fail(err, "full_like of an int64 tensor with a float value is not generated (it truncates)");
  if (st->nargs > 1 && opk_scalar_fits(self->dtype, &a[1], NULL, err)) return -1;
  opk_preserve_layout(self, &e->out);
  return 0;
}

/* new_zeros, new_ones, new_full: self's dtype, the given sizes, contiguous */
int shape_func_new(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  if (a[1].n > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", a[1].n, AF_MAX_RANK);
  for (int k = 0; k < a[1].n; k++)
    if (a[1].ints[k] < 0) return af_fail(err, "Trying to create tensor with negative dimension %lld", (long long)a[1].ints[k]);
  if (st->nargs > 2 && is_int(self->dtype) && a[2].kind == IR_ARG_FLOAT)
    return af_fail(err, "new_full of an int64 tensor with a float value is not generated (it truncates)");
  if (st->nargs > 2 && opk_scalar_fits(self->dtype, &a[2], NULL, err)) return -1;
  opk_fresh_contig(&e->out, self->dtype, a[1].n, a[1].ints);
  return 0;
}

/* ---- tensor factories without a tensor argument (family creation) ---- */

/* zeros, ones, full, empty(...).fill_ (an int list of sizes, and the value), arange(end),
 * arange(start, end) (1-D), eye(n), eye(n, m) (2-D): fresh contiguous memory of eager's dtype
 * without dtype=, float32 unless the values say int64 (full of an int, arange of ints; empty's
 * fill_ casts its value into float32). Which of the int forms an op is comes from its aten name. */
int shape_func_creation(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)self;
  const ops_entry *oe = ops_get(st->op);
  const ir_arg *a = st->args;
  int64_t shape[AF_MAX_RANK];
  int rank;
  af_dtype dt = AF_FLOAT32;
  if (a[0].kind == IR_ARG_INTS) {
    if (a[0].n > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", a[0].n, AF_MAX_RANK);
    if (a[0].n == 0) /* TorchScript types a literal [] as List[Tensor] */
      return af_fail(err, "%s of an empty size list is not generated (TorchScript reads [] as a list of tensors)", oe->name);
    rank = a[0].n;
    for (int k = 0; k < rank; k++) {
      if (a[0].ints[k] < 0) return af_fail(err, "Trying to create tensor with negative dimension %lld", (long long)a[0].ints[k]);
      shape[k] = a[0].ints[k];
    }
    if (st->nargs > 1) {
      if (a[1].kind == IR_ARG_BOOL)
        return af_fail(err, "%s with a bool value is not generated (TorchScript rejects it on 1.13 and makes it an int on 2.x)",
                       oe->name);
      if (!(oe->flags & OPF_FILL) && a[1].kind != IR_ARG_FLOAT) dt = AF_INT64; /* torch.full([2], 1): int64 */
    }
  } else if (!strcmp(oe->aten, "aten::arange")) {
    /* arange(end), arange(start, end) of ints: int64; arange(end) of a float: float32 */
    const ir_arg *last = &a[st->nargs - 1];
    if (last->kind == IR_ARG_FLOAT && (st->nargs > 1 || last->f != (double)(int64_t)last->f))
      return af_fail(err, "%s of a float is modelled only as arange(end) of a whole number", oe->name);
    int64_t start = st->nargs > 1 ? a[0].i : 0, end = last->kind == IR_ARG_FLOAT ? (int64_t)last->f : last->i;
    if (end < start) return af_fail(err, "upper bound and larger bound inconsistent with step sign");
    rank = 1, shape[0] = end - start, dt = last->kind == IR_ARG_FLOAT ? AF_FLOAT32 : AF_INT64;
  } else { /* eye */
    int64_t n = a[0].i, m = st->nargs > 1 ? a[1].i : n;
    if (n < 0 || m < 0) return af_fail(err, "%s must be greater or equal to 0, got %lld", n < 0 ? "n" : "m", (long long)(n < 0 ? n : m));
    rank = 2, shape[0] = n, shape[1] = m;
  }
  opk_fresh_contig(&e->out, dt, rank, shape);
  return 0;
}

SAMPLER(dropout_eval) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  static const double ps[] = {0.5, 0.25, 0.0, 1.0};
  args[1] = a_float(ps[R(0, 3)]);
  args[2] = a_bool(0);
  return n;
}

/* other: a tensor of self's dtype (type_as returns self) or, sometimes, of any dtype; to's dtype:
 * self's own (to returns self) or, as often, another of the four the rules model */
SAMPLER(type_as) {
  SAMPLER_BEGIN;
  if (ops_get(op)->argk[1][0] == 'd') {
    static const af_dtype dts[] = {AF_FLOAT32, AF_FLOAT64, AF_INT64, AF_BOOL};
    /* a tensor of an issue-15 dtype (drawn only when a policy weights them) converts to any of the
       nine; the original four keep their draws (the default programs stay the same) */
    int64_t to = m->dtype;
    if (!R(0, 1)) to = m->dtype > AF_BOOL ? R(0, AF_REAL_DTYPE_COUNT - 1) : (int64_t)dts[R(0, 3)];
    args[1] = (ir_arg){.kind = IR_ARG_DTYPE, .i = to};
    return n;
  }
  ops_req q = opk_req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, D(OPS_DECIDE_EDGE) ? OPS_DT_ALL : OPS_DT_SAME, -1, 0);
  int v = opk_tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(full_like) {
  SAMPLER_BEGIN;
  args[1] = m->dtype == AF_BOOL ? a_int(R(0, 1)) : opk_number(ch, m->dtype);
  return n;
}

/* new_zeros/new_ones/new_full: self's shape or another small one (and new_full's value) */
SAMPLER(new_like) {
  SAMPLER_BEGIN;
  int k = r;
  int64_t s3[AF_MAX_RANK];
  memcpy(s3, m->shape, sizeof(int64_t) * (size_t)r);
  if (D(OPS_DECIDE_EDGE) || r == 0) {
    k = (int)R(1, 2);
    for (int d = 0; d < k; d++) s3[d] = R(1, 3);
  }
  args[1] = opk_a_ints(k, s3);
  if (n > 2) args[2] = m->dtype == AF_BOOL ? a_int(R(0, 1)) : opk_number(ch, m->dtype);
  return n;
}

/* the factories: sizes from the chosen value's shape (which the sizes pass may then read back as
 * x.size(d)) or, now and then, another small shape; full's and empty's value a number (an int makes
 * full int64) */
SAMPLER(creation) {
  SAMPLER_BEGIN;
  const ops_entry *e = ops_get(op);
  int k = r;
  int64_t s3[AF_MAX_RANK];
  memcpy(s3, m->shape, sizeof(int64_t) * (size_t)r);
  if (D(OPS_DECIDE_EDGE) || r == 0) {
    k = (int)R(1, 2);
    for (int d = 0; d < k; d++) s3[d] = R(1, 4);
  }
  if (e->argk[0][0] == 'I') {
    args[0] = opk_a_ints(k, s3);
    if (n > 1) args[1] = opk_number(ch, AF_FLOAT32);
    return n;
  }
  int64_t a0 = s3[R(0, k - 1)], a1 = s3[R(0, k - 1)];
  if (!strcmp(e->aten, "aten::arange") && n > 1) a1 = a0, a0 = R(-2, a1 - 1); /* arange(start, end): end a size */
  args[0] = e->argk[0][0] == 's' ? a_float((double)a0) : a_int(a0); /* arange_float: a whole float */
  if (n > 1) args[1] = a_int(a1);
  return n;
}
