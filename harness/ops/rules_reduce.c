/* rules_reduce.c - rule families: reductions and matrix products (reduce, matrix in ops.def's family
 * column): sum/mean/amax/... over every dim or over given dims, mm, matmul, addmm_ and kin. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

int shape_func_sum(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  opk_fresh_contig(&e->out, is_float(self->dtype) ? self->dtype : AF_INT64, 0, NULL);
  return 0;
}

int shape_func_mean(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env;
  if (!is_float(self->dtype)) return af_fail(err, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype");
  opk_fresh_contig(&e->out, self->dtype, 0, NULL);
  return 0;
}

int shape_func_matmul(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  ops_meta *o = &e->out;
  const ops_meta *x = self, *y = META(st->args[1].value);
  if (x->dtype != y->dtype) return af_fail(err, "matmul: expected both operands to have the same dtype");
  if (x->dtype == AF_BOOL) return af_fail(err, "matmul is not modelled for bool");
  if (x->rank == 0 || y->rank == 0) return af_fail(err, "both arguments to matmul need to be at least 1D");
  int64_t kx = x->shape[x->rank - 1], ky = y->rank == 1 ? y->shape[0] : y->shape[y->rank - 2];
  if (kx != ky) return af_fail(err, "mat1 and mat2 shapes cannot be multiplied (inner sizes %lld and %lld)", (long long)kx, (long long)ky);
  int64_t shape[AF_MAX_RANK] = {0};
  int r = 0;
  if (x->rank == 1 && y->rank == 1) {
    r = 0;
  } else if (y->rank == 1) {
    r = x->rank - 1;
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)r);
  } else if (x->rank == 1) {
    r = y->rank - 1;
    for (int d = 0; d < y->rank - 2; d++) shape[d] = y->shape[d];
    shape[r - 1] = y->shape[y->rank - 1];
  } else {
    int br;
    int64_t bs[AF_MAX_RANK];
    if (ops_broadcast(x->rank - 2, x->shape, y->rank - 2, y->shape, &br, bs)) return af_fail(err, "matmul: batch dims do not broadcast");
    memcpy(shape, bs, sizeof(int64_t) * (size_t)br);
    shape[br] = x->shape[x->rank - 2];
    shape[br + 1] = y->shape[y->rank - 1];
    r = br + 2;
  }
  opk_fresh_contig(o, x->dtype, r, shape);
  for (int d = 0; d < r; d++) /* matmul's composite (mm/bmm + views) leaves other strides on size-1 dims */
    if (shape[d] == 1) o->exact = 0;
  return 0;
}

SAMPLER(mean) {
  SAMPLER_BEGIN;
  return is_float(m->dtype) ? n : -1;
}

SAMPLER(matmul) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL || r < 1 || r > 3) return -1;
  int64_t k = m->shape[r - 1], mm = R(1, 4);
  int kind = (int)R(0, 2), q = 0;
  if (kind == 0) sh[q++] = k;
  else if (kind == 1) sh[q++] = k, sh[q++] = mm;
  else sh[q++] = r == 3 ? (R(0, 1) ? m->shape[0] : 1) : R(1, 2), sh[q++] = k, sh[q++] = mm;
  if (ir_numel(q, sh) > ch->max_numel) return -1;
  ops_req rq = opk_req(OPS_REQ_SHAPE, q, sh, m->dtype, OPS_DT_SAME, -1, 0);
  int v = opk_tensor(ch, &rq);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

static int check_matrix(int op, const ir_stmt *st, const ops_env *env, const ops_meta *self, int inplace, int *rank,
                        int64_t *shape, af_err *err) {
  const ir_arg *a = st->args;
  const ops_meta *x = META(a[1].value), *y = META(a[2].value);
  int ip = opk_inplace_of(op);
  if (x->dtype != self->dtype || y->dtype != self->dtype) return af_fail(err, "%s: expected self and the matrices to have the same dtype", ops_get(op)->name);
  int rx = ip == OPS_baddbmm_ || ip == OPS_addbmm_ ? 3 : ip == OPS_addr_ ? 1 : 2;
  int ry = ip == OPS_baddbmm_ || ip == OPS_addbmm_ ? 3 : 1 + (ip == OPS_addmm_);
  if (ip == OPS_addr_) ry = 1;
  if (x->rank != rx || y->rank != ry) return af_fail(err, "%s: operands of rank %d and %d, expected %d and %d", ops_get(op)->name, x->rank, y->rank, rx, ry);
  switch (ip) {
    case OPS_addmm_:
      if (x->shape[1] != y->shape[0]) return af_fail(err, "mat1 and mat2 shapes cannot be multiplied");
      *rank = 2, shape[0] = x->shape[0], shape[1] = y->shape[1];
      break;
    case OPS_addmv_:
      if (x->shape[1] != y->shape[0]) return af_fail(err, "size mismatch in addmv");
      *rank = 1, shape[0] = x->shape[0];
      break;
    case OPS_addr_: *rank = 2, shape[0] = x->shape[0], shape[1] = y->shape[0]; break;
    case OPS_baddbmm_:
    case OPS_addbmm_:
      if (x->shape[0] != y->shape[0] || x->shape[2] != y->shape[1]) return af_fail(err, "batch1 and batch2 shapes cannot be multiplied");
      if (ip == OPS_baddbmm_) *rank = 3, shape[0] = x->shape[0], shape[1] = x->shape[1], shape[2] = y->shape[2];
      else *rank = 2, shape[0] = x->shape[1], shape[1] = y->shape[2];
      break;
    default: return af_fail(err, "no matrix rule");
  }
  if (inplace ? !opk_shape_is(self, *rank, shape) : !ops_broadcasts_to(self->rank, self->shape, *rank, shape))
    return af_fail(err, "%s: self does not match the product's shape", ops_get(op)->name);
  for (int k = 3; k <= 4; k++)
    if (is_int(self->dtype) && a[k].kind == IR_ARG_FLOAT) return af_fail(err, "%s: float beta/alpha with integer tensors", ops_get(op)->name);
  return 0;
}

/* ---- matrix products ---- */

int shape_write_matrix(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  int r;
  int64_t sh[AF_MAX_RANK];
  if (check_matrix(st->op, st, env, self, 1, &r, sh, err)) return -1;
  return opk_no_overlap(env, w, a[1].value, 0, err) || opk_no_overlap(env, w, a[2].value, 0, err) ? -1 : 0;
}

int shape_func_matrix(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  int r;
  int64_t sh[AF_MAX_RANK];
  if (check_matrix(st->op, st, env, self, 0, &r, sh, err)) return -1;
  opk_fresh_contig(&e->out, self->dtype, r, sh);
  e->out.exact = 0;
  return 0;
}

int shape_func_mm(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  ops_meta *o = &e->out;
  const ops_meta *y = META(st->args[1].value);
  if (self->rank != 2 || y->rank != 2) return af_fail(err, "mm: expected 2-D tensors");
  if (self->dtype != y->dtype || self->dtype == AF_BOOL) return af_fail(err, "mm: expected the same non-bool dtype");
  if (self->shape[1] != y->shape[0]) return af_fail(err, "mat1 and mat2 shapes cannot be multiplied");
  int64_t sh[2] = {self->shape[0], y->shape[1]};
  opk_fresh_contig(o, self->dtype, 2, sh);
  if (sh[0] == 1 || sh[1] == 1) o->exact = 0;
  return 0;
}

static int args_matrix(int op, int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args) {
  int ip = opk_inplace_of(op), inplace = ops_get(op)->kind == OPS_INPLACE;
  if (m->dtype == AF_BOOL) return -1;
  int64_t k = R(1, 4), xs[3], ys[3];
  int rx, ry;
  switch (ip) {
    case OPS_addmm_:
      if (m->rank != 2) return -1;
      rx = ry = 2, xs[0] = m->shape[0], xs[1] = k, ys[0] = k, ys[1] = m->shape[1];
      break;
    case OPS_addmv_:
      if (m->rank != 1) return -1;
      rx = 2, ry = 1, xs[0] = m->shape[0], xs[1] = k, ys[0] = k;
      break;
    case OPS_addr_:
      if (m->rank != 2) return -1;
      rx = ry = 1, xs[0] = m->shape[0], ys[0] = m->shape[1];
      break;
    case OPS_baddbmm_:
      if (m->rank != 3) return -1;
      rx = ry = 3, xs[0] = ys[0] = m->shape[0], xs[1] = m->shape[1], xs[2] = ys[1] = k, ys[2] = m->shape[2];
      break;
    default: /* addbmm_ */
      if (m->rank != 2) return -1;
      rx = ry = 3, xs[0] = ys[0] = R(1, 3), xs[1] = m->shape[0], xs[2] = ys[1] = k, ys[2] = m->shape[1];
      break;
  }
  if (ir_numel(rx, xs) > ch->max_numel || ir_numel(ry, ys) > ch->max_numel) return -1;
  ops_req q = opk_req(OPS_REQ_SHAPE, rx, xs, m->dtype, OPS_DT_SAME, inplace ? p : -1, 0);
  int x = opk_tensor(ch, &q);
  if (x < 0) return -1;
  q = opk_req(OPS_REQ_SHAPE, ry, ys, m->dtype, OPS_DT_SAME, inplace ? p : -1, 0);
  int y = opk_tensor(ch, &q);
  if (y < 0) return -1;
  static const int64_t ba[] = {1, 2, -1};
  args[1] = a_value(x), args[2] = a_value(y), args[3] = opk_pick_int(ch, ba, 3), args[4] = opk_pick_int(ch, ba, 3);
  return 0;
}

SAMPLER(matrix) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  return args_matrix(op, p, m, ch, args) ? -1 : n;
}

SAMPLER(mm) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  if (r != 2 || m->dtype == AF_BOOL) return -1;
  int64_t ys[2] = {m->shape[1], R(1, 4)};
  ops_req q = opk_req(OPS_REQ_SHAPE, 2, ys, m->dtype, OPS_DT_SAME, -1, 0);
  int y = opk_tensor(ch, &q);
  if (y < 0) return -1;
  args[1] = a_value(y);
  return n;
}

/* ---- reductions over dims (an int-list dim: sum, mean, amax, amin; one int dim: prod, any, all),
 * keepdim a bool. The result is a fresh contiguous tensor. ---- */

enum { RD_SUM, RD_MEAN, RD_SAME, RD_BOOL };

static int reduce_rule(const ir_stmt *st, const ops_meta *self, int how, ops_meta *o, af_err *err) {
  const ir_arg *a = st->args;
  const char *name = ops_get(st->op)->name;
  int r = self->rank;
  if (r == 0) return af_fail(err, "%s of a 0-dim tensor is not modelled", name);
  if (a[2].kind != IR_ARG_BOOL) return af_fail(err, "%s: keepdim must be a bool", name);
  int reduced[AF_MAX_RANK] = {0};
  int n = a[1].kind == IR_ARG_INTS ? a[1].n : 1;
  if (n == 0) return af_fail(err, "%s: an empty dim list (PyTorch reduces every dim) is not generated", name);
  for (int k = 0; k < n; k++) {
    int64_t d;
    if (opk_wrapd(a[1].kind == IR_ARG_INTS ? a[1].ints[k] : a[1].i, r, &d, err)) return -1;
    if (reduced[d]) return af_fail(err, "dim %lld appears multiple times in the list of dims", (long long)d);
    reduced[d] = 1;
    if (how == RD_SAME && self->shape[d] == 0)
      return af_fail(err, "%s(): Expected reduction dim %lld to have non-zero size", name, (long long)d);
  }
  af_dtype dt = self->dtype;
  if (how == RD_MEAN && !is_float(dt))
    return af_fail(err, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype");
  if (how == RD_SUM && !is_float(dt)) dt = AF_INT64;
  if (how == RD_BOOL) dt = AF_BOOL;
  int64_t shape[AF_MAX_RANK];
  int nr = 0;
  for (int d = 0; d < r; d++) {
    if (!reduced[d]) shape[nr++] = self->shape[d];
    else if (a[2].i) shape[nr++] = 1;
  }
  opk_fresh_contig(o, dt, nr, shape);
  return 0;
}

/* sum, prod: integer and bool tensors sum into int64 */
int shape_func_reduce_sum(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return reduce_rule(st, self, RD_SUM, &e->out, err);
}

int shape_func_reduce_mean(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return reduce_rule(st, self, RD_MEAN, &e->out, err);
}

/* torch.var(x, dims, unbiased, keepdim): mean's rule with keepdim as argument 3 */
int shape_func_var_dim(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (st->args[2].kind != IR_ARG_BOOL) return af_fail(err, "%s: unbiased must be a bool", ops_get(st->op)->name);
  ir_arg a[3] = {st->args[0], st->args[1], st->args[3]};
  ir_stmt s = *st;
  s.args = a;
  s.nargs = 3;
  return reduce_rule(&s, self, RD_MEAN, &e->out, err);
}

/* amax, amin: self's dtype; a reduced dim must not be empty */
int shape_func_reduce_minmax(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return reduce_rule(st, self, RD_SAME, &e->out, err);
}

/* any, all: bool results for every input dtype */
int shape_func_reduce_bool(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return reduce_rule(st, self, RD_BOOL, &e->out, err);
}

/* ---- samplers ---- */

/* one or two distinct dims (an int list), keepdim */
SAMPLER(reduce_dims) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m) || r == 0) return -1;
  int k = r >= 2 && R(0, 1) ? 2 : 1;
  int64_t d0 = R(0, r - 1), d1 = (d0 + R(1, r > 1 ? r - 1 : 1)) % r;
  int64_t dims[2] = {d0, d1};
  for (int j = 0; j < k; j++)
    if (D(OPS_DECIDE_NEG_DIM)) dims[j] -= r;
  args[1] = opk_a_ints(k, dims);
  args[2] = a_bool((int)R(0, 1));
  return n;
}

/* one dim, keepdim */
SAMPLER(reduce_dim) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m) || r == 0) return -1;
  args[1] = a_int(opk_pick_dim(ch, r, 1));
  args[2] = a_bool((int)R(0, 1));
  return n;
}
