/* rules_index.c - rule families: index writes and Python setitem (index, setitem in ops.def's family
 * column): masked_fill, index_put, index_add, scatter, index_copy/index_fill/masked_scatter/put, and
 * `x[idx] = v` / `x[idx] op= v`. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* index_put_ / index_put shared checks on self with an index list (IR_ARG_VALUES) and values */
static int check_index_put(const ir_stmt *st, const ops_env *env, const ops_meta *self, af_err *err) {
  const ir_arg *ix = &st->args[1];
  const ops_meta *val = META(st->args[2].value);
  if (ix->n == 0) return af_fail(err, "index_put_: empty index list is not modelled");
  sub_info si;
  memset(&si, 0, sizeof si);
  si.view = *self;
  si.nt = ix->n;
  for (int e = 0; e < ix->n; e++) si.tv[e] = ix->values[e];
  /* reuse the subscript logic: build a fake subscript of tensor entries */
  ir_index items[2 * AF_MAX_RANK];
  ir_arg sub = {.kind = IR_ARG_INDEX, .n = ix->n, .index = items};
  if (ix->n > 2 * AF_MAX_RANK) return af_fail(err, "index list too long");
  for (int e = 0; e < ix->n; e++) items[e] = (ir_index){.kind = IR_IDX_TENSOR, .value = ix->values[e]};
  if (opk_infer_subscript(&sub, self, env, &si, err)) return -1;
  if (val->dtype != self->dtype) return af_fail(err, "Index put requires the source and destination dtypes match");
  int64_t rs[AF_MAX_RANK];
  memcpy(rs, si.result.shape, sizeof rs);
  if (!ops_broadcasts_to(val->rank, val->shape, si.result.rank, rs))
    return af_fail(err, "shape mismatch: value tensor cannot be broadcast to indexing result");
  if (si.has_int && si.has_mask) return af_fail(err, "mixing bool and int index tensors is not modelled");
  int acc = st->args[3].i;
  if (!acc && si.has_int && ops_meta_numel(val) > 1 && opk_has_dup_tuples(&si, env))
    return opk_undefined(env, OPS_UNDEF_ORDER), af_fail(err, "index_put_ without accumulate on repeated indices: the result depends on write order");
  return 0;
}

static int check_index_add(const ir_stmt *st, const ops_env *env, const ops_meta *self, af_err *err) {
  int64_t dim;
  if (opk_wrapd(st->args[1].i, self->rank, &dim, err)) return -1;
  const ops_meta *ix = META(st->args[2].value), *src = META(st->args[3].value);
  if (ix->rank > 1) return af_fail(err, "index_add_(): Index is supposed to be a vector");
  if (ix->dtype != AF_INT64) return af_fail(err, "index_add_(): Expected dtype int32/int64 for index");
  if (src->dtype != self->dtype) return af_fail(err, "index_add_(): self and source must have the same scalar type");
  if (self->rank == 0 || src->rank != self->rank) return af_fail(err, "index_add_(): source must have the rank of self (rank-0 not modelled)");
  int64_t n = ops_meta_numel(ix);
  for (int d = 0; d < self->rank; d++) {
    int64_t want = d == dim ? n : self->shape[d];
    if (src->shape[d] != want) return af_fail(err, "index_add_(): source has size %lld at dim %d, expected %lld", (long long)src->shape[d], d, (long long)want);
  }
  int64_t nd = 0;
  const double *data = env->data ? env->data(env->ctx, st->args[2].value, &nd) : NULL;
  for (int64_t k = 0; data && k < n; k++) {
    int64_t x = (int64_t)data[nd ? k % nd : 0];
    if (x < 0 || x >= self->shape[dim]) return af_fail(err, "index_add_(): index out of range in self");
  }
  return 0;
}

static int check_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, af_err *err) {
  int64_t dim;
  if (opk_wrapd(st->args[1].i, self->rank, &dim, err)) return -1;
  const ops_meta *ix = META(st->args[2].value);
  if (ix->dtype != AF_INT64) return af_fail(err, "scatter(): Expected dtype int64 for index");
  if (self->rank == 0 || ix->rank != self->rank) return af_fail(err, "Index tensor must have the same number of dimensions as self opk_tensor (rank 0 not modelled)");
  const ops_meta *src = st->args[3].kind == IR_ARG_VALUE ? META(st->args[3].value) : NULL;
  if (src && src->dtype != self->dtype) return af_fail(err, "scatter(): Expected self.dtype to be equal to src.dtype");
  if (!src && opk_scalar_fits(self->dtype, &st->args[3], NULL, err)) return -1;
  if (src && src->rank != self->rank) return af_fail(err, "Index tensor must have the same number of dimensions as src tensor");
  for (int d = 0; d < self->rank; d++) {
    if (d != dim && ix->shape[d] > self->shape[d]) return af_fail(err, "Size does not match at dimension %d: index larger than self", d);
    if (src && ix->shape[d] > src->shape[d]) return af_fail(err, "Size does not match at dimension %d: index larger than src", d);
  }
  int64_t nd = 0;
  const double *data = env->data ? env->data(env->ctx, st->args[2].value, &nd) : NULL;
  if (!data) return src ? af_fail(err, "scatter_ with a src tensor and unknown index data: write order not decidable") : 0;
  int64_t n = ops_meta_numel(ix);
  for (int64_t k = 0; k < n; k++) {
    int64_t x = (int64_t)data[nd ? k % nd : 0];
    if (x < 0 || x >= self->shape[dim]) return af_fail(err, "scatter(): index %lld is out of bounds for dimension %lld with size %lld", (long long)x, (long long)dim, (long long)self->shape[dim]);
  }
  if (src) { /* distinct targets along dim for each line */
    int64_t idx[AF_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
      if (idx[dim] == 0) { /* check this line */
        int64_t base = 0, mul = 1, lstride = 1;
        for (int d = ix->rank - 1; d >= 0; d--) {
          if (d == dim) lstride = mul;
          base += idx[d] * mul;
          mul *= ix->shape[d];
        }
        for (int64_t a = 0; a < ix->shape[dim]; a++)
          for (int64_t b = a + 1; b < ix->shape[dim]; b++) {
            int64_t xa = (int64_t)data[nd ? (base + a * lstride) % nd : 0], xb = (int64_t)data[nd ? (base + b * lstride) % nd : 0];
            if (xa == xb) return opk_undefined(env, OPS_UNDEF_ORDER), af_fail(err, "scatter_ with a src tensor and repeated indices along dim: the result depends on write order");
          }
      }
      for (int d = ix->rank - 1; d >= 0; d--) {
        if (++idx[d] < ix->shape[d]) break;
        idx[d] = 0;
      }
    }
  }
  return 0;
}

int shape_write_masked_fill(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  const ops_meta *mask = META(a[1].value);
  if (mask->dtype != AF_BOOL) return af_fail(err, "masked_fill_ only supports boolean masks");
  if (!ops_broadcasts_to(mask->rank, mask->shape, self->rank, self->shape)) return af_fail(err, "masked_fill_: mask does not broadcast to self");
  if (opk_number_or_zerodim(&a[2], env, "masked_fill_", err) || opk_value_fits(env, self->dtype, &a[2], err)) return -1;
  if (opk_no_overlap(env, w, a[1].value, 0, err)) return -1;
  if (a[2].kind == IR_ARG_VALUE && opk_no_overlap(env, w, a[2].value, 0, err)) return -1;
  return 0;
}

int shape_write_index_put(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (check_index_put(st, env, self, err)) return -1;
  for (int k = 0; k < a[1].n; k++)
    if (opk_no_overlap(env, w, a[1].values[k], 0, err)) return -1;
  return opk_no_overlap(env, w, a[2].value, 0, err);
}

int shape_write_index_add(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (check_index_add(st, env, self, err)) return -1;
  if (opk_no_overlap(env, w, a[2].value, 0, err)) return -1;
  return opk_no_overlap(env, w, a[3].value, 0, err);
}

int shape_write_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (check_scatter(st, env, self, err)) return -1;
  if (opk_no_overlap(env, w, a[2].value, 0, err)) return -1;
  if (a[3].kind == IR_ARG_VALUE && opk_no_overlap(env, w, a[3].value, 0, err)) return -1;
  return 0;
}

/* `self[idx] = v` (aug 0) and `self[idx] op= v` (aug 1) */
static int setitem_rule(const ir_stmt *st, const ops_env *env, const ops_meta *self, int aug, af_err *err) {
  const ir_arg *a = st->args;
  int w = a[0].value;
  sub_info si;
  if (opk_infer_subscript(&a[1], self, env, &si, err)) return -1;
  if (opk_writable(env, &si.view, err)) return -1;
  const ir_arg *v = &a[2];
  const ops_meta *vm = v->kind == IR_ARG_VALUE ? META(v->value) : NULL;
  if (vm) {
    if (opk_no_overlap(env, w, v->value, 0, err)) return -1;
    int64_t rs[AF_MAX_RANK];
    memcpy(rs, si.result.shape, sizeof rs);
    if (!ops_broadcasts_to(vm->rank, vm->shape, si.result.rank, rs))
      return af_fail(err, "shape mismatch: value tensor of rank %d cannot be broadcast to the indexing result of rank %d", vm->rank, si.result.rank);
  }
  if (si.has_int && si.has_mask) return af_fail(err, "mixing bool and int index tensors is not modelled");
  if (!aug) {
    if (si.nt && vm && vm->dtype != self->dtype) return af_fail(err, "Index put requires the source and destination dtypes match");
    if (!vm && opk_scalar_fits(self->dtype, v, NULL, err)) return -1;
  } else {
    af_dtype dt[2] = {self->dtype, vm ? vm->dtype : (v->kind == IR_ARG_FLOAT ? AF_FLOAT64 : v->kind == IR_ARG_BOOL ? AF_BOOL : AF_INT64)};
    ops_opnd_kind k[2] = {si.result.rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM,
                          vm ? (vm->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM) : OPS_OPND_NUMBER};
    if (dt[0] == AF_BOOL || dt[1] == AF_BOOL) return af_fail(err, "arithmetic on bool is not modelled");
    af_dtype common = ops_result_type(2, dt, k);
    if (opk_common_ok(common, err)) return -1;
    if (!ops_can_cast(common, self->dtype))
      return af_fail(err, "result type %s can't be cast to the desired output type %s", af_dtype_name(common), af_dtype_name(self->dtype));
  }
  if (si.has_int && (vm ? ops_meta_numel(vm) > 1 : 0) && opk_has_dup_tuples(&si, env))
    return opk_undefined(env, OPS_UNDEF_ORDER), af_fail(err, "setitem with repeated indices and a non-uniform value: the result depends on write order");
  return 0;
}

int shape_write_setitem(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return setitem_rule(st, env, self, 0, err);
}

int shape_write_setitem_aug(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return setitem_rule(st, env, self, 1, err);
}

int shape_func_masked_fill(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  const ops_meta *mask = META(a[1].value);
  if (mask->dtype != AF_BOOL) return af_fail(err, "masked_fill only supports boolean masks");
  if (opk_number_or_zerodim(&a[2], env, "masked_fill", err) || opk_value_fits(env, self->dtype, &a[2], err)) return -1;
  int r;
  int64_t shape[AF_MAX_RANK];
  if (ops_broadcast(self->rank, self->shape, mask->rank, mask->shape, &r, shape)) return af_fail(err, "masked_fill: mask does not broadcast");
  opk_fresh_contig(&e->out, self->dtype, r, shape);
  return 0;
}

int shape_func_index_put(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (check_index_put(st, env, self, err)) return -1;
  opk_preserve_layout(self, &e->out);
  return 0;
}

int shape_func_index_add(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (check_index_add(st, env, self, err)) return -1;
  opk_fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  return 0;
}

int shape_func_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (check_scatter(st, env, self, err)) return -1;
  opk_fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  return 0;
}

/* index_put_ arguments into args[1..3] */
static int args_index_put(const ops_chooser *ch, int p, const ops_meta *m, ir_arg *args) {
  if (m->rank == 0 || m->dtype == AF_BOOL) return -1;
  int k = (int)R(1, m->rank < 2 ? m->rank : 2);
  int acc = D(OPS_DECIDE_ACCUMULATE);
  int64_t minn = m->shape[0];
  for (int d = 0; d < k; d++)
    if (m->shape[d] < minn) minn = m->shape[d];
  int64_t len = R(1, minn < 4 ? minn : 4);
  int dup = acc && D(OPS_DECIDE_DUP_INDEX);
  int vals[2];
  for (int d = 0; d < k; d++) {
    int64_t data[8];
    opk_index_values(ch, data, len, m->shape[d], !dup);
    vals[d] = opk_index_tensor(ch, 1, &len, data);
    if (vals[d] < 0) return -1;
  }
  int64_t rs[AF_MAX_RANK];
  int rn = 0;
  rs[rn++] = len;
  for (int d = k; d < m->rank; d++) rs[rn++] = m->shape[d];
  ops_req r = opk_req(OPS_REQ_BROADCAST, rn, rs, m->dtype, OPS_DT_SAME, p, 0);
  int v = opk_tensor(ch, &r);
  if (v < 0) return -1;
  args[1] = opk_a_values(k, vals);
  args[2] = a_value(v);
  args[3] = a_bool(acc);
  return 0;
}

static int args_index_add(const ops_chooser *ch, int p, const ops_meta *m, ir_arg *args) {
  if (m->rank == 0 || m->dtype == AF_BOOL) return -1;
  int64_t dim = opk_pick_dim(ch, m->rank, 1), d = dim < 0 ? dim + m->rank : dim;
  int64_t len = R(1, 4), data[4];
  for (int64_t k = 0; k < len; k++) data[k] = R(0, m->shape[d] - 1);
  int iv = opk_index_tensor(ch, 1, &len, data);
  if (iv < 0) return -1;
  int64_t shape[AF_MAX_RANK];
  memcpy(shape, m->shape, sizeof(int64_t) * (size_t)m->rank);
  shape[d] = len;
  if (ir_numel(m->rank, shape) > ch->max_numel) return -1;
  ops_req r = opk_req(OPS_REQ_SHAPE, m->rank, shape, m->dtype, OPS_DT_SAME, p, 0);
  int sv = opk_tensor(ch, &r);
  if (sv < 0) return -1;
  args[1] = a_int(dim);
  args[2] = a_value(iv);
  args[3] = a_value(sv);
  return 0;
}

static int args_scatter(const ops_chooser *ch, int p, const ops_meta *m, ir_arg *args) {
  if (m->rank == 0 || m->dtype == AF_BOOL) return -1;
  int64_t dim = opk_pick_dim(ch, m->rank, 1), d = dim < 0 ? dim + m->rank : dim;
  int64_t ishape[AF_MAX_RANK];
  for (int q = 0; q < m->rank; q++) ishape[q] = R(1, m->shape[q] < 3 ? m->shape[q] : 3);
  int64_t n = ir_numel(m->rank, ishape), data[256];
  if (n > 256) return -1; /* up to 3 per dim: only a value past the policy's numel bound gets here */
  int use_src = !D(OPS_DECIDE_NUMBER);
  /* lines along dim: distinct targets per line when writing a src tensor */
  int64_t inner = 1;
  for (int q = (int)d + 1; q < m->rank; q++) inner *= ishape[q];
  int64_t len = ishape[d], outer = n / (len * inner);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      int64_t line[8];
      opk_index_values(ch, line, len, m->shape[d], use_src);
      for (int64_t k = 0; k < len; k++) {
        int64_t x = line[k];
        if (x < 0) x += m->shape[d]; /* scatter takes no negative indices */
        data[(o * len + k) * inner + i] = x;
      }
    }
  int iv = opk_index_tensor(ch, m->rank, ishape, data);
  if (iv < 0) return -1;
  args[1] = a_int(dim);
  args[2] = a_value(iv);
  if (use_src) {
    ops_req r = opk_req(OPS_REQ_AT_LEAST, m->rank, ishape, m->dtype, OPS_DT_SAME, p, 0);
    int sv = opk_tensor(ch, &r);
    if (sv < 0) return -1;
    args[3] = a_value(sv);
  } else {
    args[3] = opk_number(ch, m->dtype);
  }
  return 0;
}

SAMPLER(masked_fill) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  int mv = opk_mask_for(ch, m);
  if (mv < 0) return -1;
  args[1] = a_value(mv);
  if (D(OPS_DECIDE_NUMBER)) {
    args[2] = opk_number(ch, m->dtype);
  } else {
    ops_req q = opk_req(OPS_REQ_ZERODIM, 0, NULL, m->dtype, OPS_DT_INTO, ops_get(op)->kind == OPS_INPLACE ? p : -1, 0);
    int v = opk_tensor(ch, &q);
    if (v < 0) return -1;
    args[2] = a_value(v);
  }
  return n;
}

SAMPLER(index_put) {
  SAMPLER_BEGIN;
  return args_index_put(ch, p, m, args) ? -1 : n;
}

SAMPLER(index_add) {
  SAMPLER_BEGIN;
  return args_index_add(ch, p, m, args) ? -1 : n;
}

SAMPLER(scatter) {
  SAMPLER_BEGIN;
  return args_scatter(ch, p, m, args) ? -1 : n;
}

/* setitem (aug 0) and its augmented forms (aug 1) */
static int setitem_args(int op, int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args, int aug) {
  if (m->dtype == AF_BOOL) return -1;
  ops_meta res;
  int adv;
  int number_value = D(OPS_DECIDE_NUMBER);
  if (opk_subscript(ch, m, 0, 1, !number_value, &args[1], &res, &adv)) return -1;
  if (number_value) {
    args[2] = !aug ? opk_number(ch, m->dtype) : opk_operand_number(ch, m->dtype, op);
    return 0;
  }
  return opk_item_value(ch, m, &res, adv, aug, p, &args[2]);
}

SAMPLER(setitem) {
  SAMPLER_BEGIN;
  return setitem_args(op, p, m, ch, args, 0) ? -1 : n;
}

SAMPLER(setitem_aug) {
  SAMPLER_BEGIN;
  return setitem_args(op, p, m, ch, args, 1) ? -1 : n;
}

/* index data of value v (nonneg, in [lo, hi)); distinct: no repeats. Unknown data refuses. */
static int index_data_ok(const ops_env *env, int v, int64_t lo, int64_t hi, int distinct, int64_t wrap, const char *what, af_err *err) {
  const ops_meta *ix = META(v);
  if (ix->dtype != AF_INT64) return af_fail(err, "%s: expected an int64 index", what);
  int64_t nd = 0, n = ops_meta_numel(ix);
  const double *d = env->data ? env->data(env->ctx, v, &nd) : NULL;
  if (!d) return af_fail(err, "%s: index data unknown (range and repeats not decidable)", what);
  if (n > 4096) return af_fail(err, "%s: index too long", what);
  int64_t seen[4096];
  for (int64_t k = 0; k < n; k++) {
    int64_t x = (int64_t)d[nd ? k % nd : 0];
    if (x < lo || x >= hi) return af_fail(err, "%s: index %lld out of range", what, (long long)x);
    if (x < 0) x += wrap;
    seen[k] = x;
  }
  if (distinct) {
    qsort(seen, (size_t)n, sizeof seen[0], opk_cmp_i64);
    for (int64_t k = 1; k < n; k++)
      if (seen[k] == seen[k - 1]) return opk_undefined(env, OPS_UNDEF_ORDER), af_fail(err, "%s with repeated indices: the result depends on write order", what);
  }
  return 0;
}

static int check_index_more(int op, const ir_stmt *st, const ops_env *env, const ops_meta *self, af_err *err) {
  const ir_arg *a = st->args;
  int ip = opk_inplace_of(op);
  const char *name = ops_get(op)->name;
  switch (ip) {
    case OPS_index_copy_:
    case OPS_index_fill_: {
      if (self->rank == 0) return af_fail(err, "%s of a 0-dim tensor is not modelled", name);
      int64_t dim;
      if (opk_wrapd(a[1].i, self->rank, &dim, err)) return -1;
      const ops_meta *ix = META(a[2].value);
      if (ix->rank > 1) return af_fail(err, "%s(): Index is supposed to be a vector", name);
      if (index_data_ok(env, a[2].value, 0, self->shape[dim], ip == OPS_index_copy_, self->shape[dim], name, err)) return -1;
      if (ip == OPS_index_fill_) {
        if (opk_number_or_zerodim(&a[3], env, name, err) || opk_value_fits(env, self->dtype, &a[3], err)) return -1;
        if (is_int(self->dtype) && a[3].kind == IR_ARG_FLOAT) return af_fail(err, "index_fill_: a float value into an integer tensor is not generated");
        if (a[3].kind == IR_ARG_VALUE && !ops_can_cast(META(a[3].value)->dtype, self->dtype)) return af_fail(err, "index_fill_: value dtype");
        return 0;
      }
      const ops_meta *src = META(a[3].value);
      if (src->dtype != self->dtype) return af_fail(err, "index_copy_(): self and source expected to have the same dtype");
      if (src->rank != self->rank) return af_fail(err, "index_copy_(): source must have the rank of self");
      for (int d = 0; d < self->rank; d++)
        if (src->shape[d] != (d == dim ? ops_meta_numel(ix) : self->shape[d]))
          return af_fail(err, "index_copy_(): source has size %lld at dim %d", (long long)src->shape[d], d);
      return 0;
    }
    case OPS_masked_scatter_: {
      const ops_meta *mask = META(a[1].value), *src = META(a[2].value);
      if (op == OPS_masked_scatter_ && !(self->exact && ops_meta_is_contiguous(self)))
        return af_fail(err, "masked_scatter_ into a non-contiguous tensor: PyTorch 1.13 takes the source elements in memory order, not in self's order");
      if (mask->dtype != AF_BOOL) return af_fail(err, "masked_scatter_ only supports boolean masks");
      if (!ops_broadcasts_to(mask->rank, mask->shape, self->rank, self->shape)) return af_fail(err, "masked_scatter_: mask does not broadcast to self");
      if (src->dtype != self->dtype) return af_fail(err, "masked_scatter_: expected self and source to have same dtypes");
      if (ops_meta_numel(src) < ops_meta_numel(self)) return af_fail(err, "masked_scatter_: a source smaller than self (enough only for some masks) is not generated");
      return 0;
    }
    case OPS_scatter_add_:
    case OPS_scatter_reduce_: {
      int64_t dim;
      if (ip == OPS_scatter_reduce_ && !ops_reduce_name(a[4].i))
        return af_fail(err, "reduce argument must be either sum, prod, mean, amax or amin, got %lld", (long long)a[4].i);
      if (opk_wrapd(a[1].i, self->rank, &dim, err)) return -1;
      const ops_meta *ix = META(a[2].value), *src = META(a[3].value);
      if (self->rank == 0 || ix->rank != self->rank || src->rank != self->rank) return af_fail(err, "Index tensor must have the same number of dimensions as self tensor");
      if (src->dtype != self->dtype) return af_fail(err, "scatter_add(): Expected self.dtype to be equal to src.dtype");
      for (int d = 0; d < self->rank; d++) {
        if (d != dim && ix->shape[d] > self->shape[d]) return af_fail(err, "Size does not match at dimension %d", d);
        if (ix->shape[d] > src->shape[d]) return af_fail(err, "Size does not match at dimension %d: index larger than src", d);
      }
      return index_data_ok(env, a[2].value, 0, self->shape[dim], 0, 0, name, err);
    }
    case OPS_put_: {
      const ops_meta *src = META(a[2].value);
      int64_t n = ops_meta_numel(self);
      if (n == 0) return af_fail(err, "put_ into an empty tensor");
      if (src->dtype != self->dtype) return af_fail(err, "put_: expected self and source to have the same dtype");
      if (ops_meta_numel(src) != ops_meta_numel(META(a[1].value))) return af_fail(err, "put_: Expected source and index to have the same number of elements");
      return index_data_ok(env, a[1].value, -n, n, !a[3].i, n, name, err);
    }
    default: return af_fail(err, "no index rule");
  }
}

/* ---- index_copy, index_fill, masked_scatter, scatter_add, put ---- */

int shape_write_index_more(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  if (check_index_more(st->op, st, env, self, err)) return -1;
  for (int k = 1; k < st->nargs; k++)
    if (a[k].kind == IR_ARG_VALUE && opk_no_overlap(env, w, a[k].value, 0, err)) return -1;
  return 0;
}

int shape_func_index_more(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  int op = st->op;
  if (opk_self_dtype_ok(op, self, err)) return -1;
  if (check_index_more(op, st, env, self, err)) return -1;
  if (op == OPS_index_fill || op == OPS_put) opk_preserve_layout(self, &e->out); /* clone(Preserve) + in place */
  else opk_fresh_contig(&e->out, self->dtype, self->rank, self->shape); /* structured: a contiguous output */
  return 0;
}

int shape_func_masked_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  const ops_meta *mask = META(a[1].value);
  int r;
  int64_t shape[AF_MAX_RANK];
  if (mask->dtype != AF_BOOL) return af_fail(err, "masked_scatter only supports boolean masks");
  if (ops_broadcast(self->rank, self->shape, mask->rank, mask->shape, &r, shape)) return af_fail(err, "masked_scatter: mask does not broadcast");
  const ops_meta *src = META(a[2].value);
  if (src->dtype != self->dtype) return af_fail(err, "masked_scatter: expected self and source to have same dtypes");
  if (ops_meta_numel(src) < ir_numel(r, shape)) return af_fail(err, "masked_scatter: a source smaller than the result is not generated");
  opk_fresh_contig(&e->out, self->dtype, r, shape);
  return 0;
}

static int args_index_more(int op, int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args) {
  int ip = opk_inplace_of(op), inplace = ops_get(op)->kind == OPS_INPLACE;
  int avoid = inplace ? p : -1;
  if (m->rank == 0 || m->dtype == AF_BOOL) return -1;
  int r = m->rank;
  switch (ip) {
    case OPS_index_copy_:
    case OPS_index_fill_: {
      int64_t dim = opk_pick_dim(ch, r, 1), d = dim < 0 ? dim + r : dim, size = m->shape[d];
      int64_t len = R(1, size < 4 ? size : 4), data[4];
      int distinct = ip == OPS_index_copy_ || !D(OPS_DECIDE_DUP_INDEX);
      for (int64_t k = 0; k < len; k++) data[k] = R(0, size - 1);
      if (distinct) {
        opk_index_values(ch, data, len, size, 1);
        for (int64_t k = 0; k < len; k++)
          if (data[k] < 0) data[k] += size;
      }
      int iv = opk_index_tensor(ch, 1, &len, data);
      if (iv < 0) return -1;
      args[1] = a_int(dim), args[2] = a_value(iv);
      if (ip == OPS_index_fill_) {
        if (D(OPS_DECIDE_NUMBER)) {
          args[3] = opk_number(ch, m->dtype);
        } else {
          ops_req q = opk_req(OPS_REQ_ZERODIM, 0, NULL, m->dtype, OPS_DT_INTO, avoid, 0);
          int v = opk_tensor(ch, &q);
          if (v < 0) return -1;
          args[3] = a_value(v);
        }
        return 0;
      }
      int64_t shape[AF_MAX_RANK];
      memcpy(shape, m->shape, sizeof(int64_t) * (size_t)r);
      shape[d] = len;
      ops_req q = opk_req(OPS_REQ_SHAPE, r, shape, m->dtype, OPS_DT_SAME, avoid, 0);
      int v = opk_tensor(ch, &q);
      if (v < 0) return -1;
      args[3] = a_value(v);
      return 0;
    }
    case OPS_masked_scatter_: {
      int mv = opk_mask_for(ch, m);
      if (mv < 0) return -1;
      ops_req q = opk_req(OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_SAME, avoid, 0);
      int v = opk_tensor(ch, &q);
      if (v < 0) return -1;
      args[1] = a_value(mv), args[2] = a_value(v);
      return 0;
    }
    case OPS_scatter_add_:
    case OPS_scatter_reduce_: {
      int64_t dim = opk_pick_dim(ch, r, 1), d = dim < 0 ? dim + r : dim, ishape[AF_MAX_RANK], data[256];
      for (int q = 0; q < r; q++) ishape[q] = R(1, m->shape[q] < 3 ? m->shape[q] : 3);
      int64_t n = ir_numel(r, ishape);
      for (int64_t k = 0; k < n; k++) data[k] = R(0, m->shape[d] - 1);
      int iv = opk_index_tensor(ch, r, ishape, data);
      if (iv < 0) return -1;
      ops_req q = opk_req(OPS_REQ_AT_LEAST, r, ishape, m->dtype, OPS_DT_SAME, avoid, 0);
      int sv = opk_tensor(ch, &q);
      if (sv < 0) return -1;
      args[1] = a_int(dim), args[2] = a_value(iv), args[3] = a_value(sv);
      if (ip == OPS_scatter_reduce_) args[4] = a_int(R(0, 4)), args[5] = a_bool(R(0, 1)); /* reduce=, include_self */
      return 0;
    }
    default: { /* put_ */
      int64_t numel = ops_meta_numel(m), len = R(1, numel < 4 ? numel : 4), data[4];
      int acc = D(OPS_DECIDE_ACCUMULATE);
      opk_index_values(ch, data, len, numel, !(acc && D(OPS_DECIDE_DUP_INDEX)));
      int iv = opk_index_tensor(ch, 1, &len, data);
      if (iv < 0) return -1;
      ops_req q = opk_req(OPS_REQ_SHAPE, 1, &len, m->dtype, OPS_DT_SAME, avoid, 0);
      int sv = opk_tensor(ch, &q);
      if (sv < 0) return -1;
      args[1] = a_value(iv), args[2] = a_value(sv), args[3] = a_bool(acc);
      return 0;
    }
  }
}

SAMPLER(index_more) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  return args_index_more(op, p, m, ch, args) ? -1 : n;
}

/* ---- x[idx] /= v (true division: a float target), x[idx] op= number for the pointwise binary
 * op the line names as its twin (%= is fmod_ in TorchScript, >>= bitwise_right_shift_) ---- */

int shape_write_setitem_div(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  if (!is_float(self->dtype))
    return af_fail(err, "x[i] /= v into a %s tensor: the float quotient cannot be cast back", af_dtype_name(self->dtype));
  return setitem_rule(st, env, self, 1, err);
}

int shape_write_setitem_binary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  const ops_entry *oe = ops_get(st->op);
  int twin = ops_find(oe->twin);
  if (twin < 0) return af_fail(err, "%s: its line names no in-place twin", oe->name);
  if (a[2].kind == IR_ARG_VALUE) return af_fail(err, "%s with a tensor value is not modelled (numbers only)", oe->name);
  if (opk_self_dtype_ok(twin, self, err) || setitem_rule(st, env, self, 1, err)) return -1;
  ir_arg ta[2] = {a[0], a[2]};
  ir_stmt t = {.op = twin, .out = -1, .nargs = 2, .args = ta};
  af_dtype c, res;
  if (opk_binary_dtype(twin, &t, env, 0, 1, &c, &res, err)) return -1;
  if (!ops_can_cast(res, self->dtype))
    return af_fail(err, "result type %s can't be cast to the desired output type %s", af_dtype_name(res), af_dtype_name(self->dtype));
  return opk_binary_data_ok(twin, c, &a[2], err);
}

SAMPLER(setitem_div) {
  SAMPLER_BEGIN;
  if (!is_float(m->dtype)) return -1;
  ops_meta res;
  int adv;
  if (opk_subscript(ch, m, 0, 1, 0, &args[1], &res, &adv)) return -1;
  args[2] = opk_divisor(ch);
  return n;
}

SAMPLER(setitem_binary) {
  SAMPLER_BEGIN;
  int twin = ops_find(ops_get(op)->twin);
  if (twin < 0 || !opk_dt_drawable(twin, m) || m->dtype == AF_BOOL) return -1;
  ops_meta res;
  int adv;
  if (opk_subscript(ch, m, 0, 1, 0, &args[1], &res, &adv)) return -1;
  args[2] = opk_binary_number(ch, twin, m->dtype);
  return n;
}
