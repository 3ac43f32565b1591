/* ops_sample.c - the sampler kit every family's samplers share: decision names, operand requests,
 * numbers, dims, index data, shapes a view or expand can take. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- argument samplers */

const char *ops_decide_name(int d) {
  static const char *names[OPS_DECIDE_COUNT] = {"negative_dim", "slice_step", "open_bound", "negative_index",
                                                "trivial_expand", "overlap", "view_shape", "minus_one",
                                                "number", "dup_index", "accumulate", "index_2d", "edge", "float_literal"};
  return d >= 0 && d < OPS_DECIDE_COUNT ? names[d] : "?";
}

const char *ops_idx_kind_name(int k) {
  static const char *names[OPS_IDX_KIND_COUNT] = {"int", "slice", "none", "ellipsis", "tensor", "mask"};
  return k >= 0 && k < OPS_IDX_KIND_COUNT ? names[k] : "?";
}

int ops_req_accepts(const ops_req *r, const ops_meta *m) {
  if (!m->known) return 0;
  switch (r->dt_rule) {
    case OPS_DT_SAME:
      if (m->dtype != r->dtype) return 0;
      break;
    case OPS_DT_INTO:
      if (m->dtype == AF_BOOL || (!is_float(r->dtype) && is_float(m->dtype)) || !dt_ok(opk_promote(r->dtype, m->dtype))) return 0;
      break;
    case OPS_DT_ANY:
      if (m->dtype == AF_BOOL) return 0;
      break;
    case OPS_DT_ALL: break;
    case OPS_DT_FLOAT:
      if (!is_float(m->dtype)) return 0;
      break;
  }
  switch (r->kind) {
    case OPS_REQ_SHAPE: return opk_shape_is(m, r->rank, r->shape);
    case OPS_REQ_BROADCAST: return ops_broadcasts_to(m->rank, m->shape, r->rank, r->shape);
    case OPS_REQ_ZERODIM: return m->rank == 0;
    case OPS_REQ_EXPANDED: {
      if (m->rank < r->rank || ops_meta_numel(m) > r->numel_max) return 0;
      for (int k = 0; k < r->rank; k++) {
        int64_t x = r->shape[r->rank - 1 - k], y = m->shape[m->rank - 1 - k];
        if (x != y && x != 1) return 0;
      }
      return 1;
    }
    case OPS_REQ_VIEWABLE: {
      if (!r->ref || ops_meta_numel(m) != ops_meta_numel(r->ref)) return 0;
      int64_t st[AF_MAX_RANK];
      return ops_view_strides(r->ref, m->rank, m->shape, st) == 0;
    }
    case OPS_REQ_CAT:
      if (m->rank != r->rank) return 0;
      for (int d = 0; d < r->rank; d++)
        if (d != r->dim && m->shape[d] != r->shape[d]) return 0;
      return 1;
    case OPS_REQ_AT_LEAST:
      if (m->rank != r->rank) return 0;
      for (int d = 0; d < r->rank; d++)
        if (m->shape[d] < r->shape[d]) return 0;
      return 1;
    case OPS_REQ_INDEX: return 0;
    case OPS_REQ_MASK: return m->dtype == AF_BOOL && opk_shape_is(m, r->rank, r->shape);
    case OPS_REQ_ANY: return 1;
  }
  return 0;
}

ir_arg opk_a_ints(int n, const int64_t *x) {
  ir_arg a = {.kind = IR_ARG_INTS, .n = n};
  a.ints = af_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  memcpy(a.ints, x, sizeof(int64_t) * (size_t)n);
  return a;
}

ir_arg opk_a_values(int n, const int *v) {
  ir_arg a = {.kind = IR_ARG_VALUES, .n = n};
  a.values = af_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  memcpy(a.values, v, sizeof(int) * (size_t)n);
  return a;
}

/* a dim of a rank-r tensor, negative sometimes */
int64_t opk_pick_dim(const ops_chooser *ch, int rank, int neg_ok) {
  int r = rank > 0 ? rank : 1;
  int64_t d = R(0, r - 1);
  if (neg_ok && D(OPS_DECIDE_NEG_DIM)) d -= r;
  return d;
}

/* a number literal suited to a tensor of dtype dt */
ir_arg opk_number(const ops_chooser *ch, af_dtype dt) {
  if (is_float(dt) && D(OPS_DECIDE_FLOAT)) {
    static const double fl[] = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.0, 2.5, 3.0};
    return a_float(fl[R(0, 7)]);
  }
  return a_int(R(-3, 3));
}

/* an operand for add/sub/mul that changes every value (no + 0, no * 1): a write that changes
 * nothing hides a lost write from the oracle */
ir_arg opk_operand_number(const ops_chooser *ch, af_dtype dt, int op) {
  ir_arg a = opk_number(ch, dt);
  double x = a.kind == IR_ARG_FLOAT ? a.f : (double)a.i;
  int mul = op == OPS_mul_ || op == OPS_mul || op == OPS_mul_out || op == OPS_setitem_mul;
  if ((mul && x == 1) || (!mul && x == 0)) a = a_int(mul ? -2 : 2);
  return a;
}

ir_arg opk_divisor(const ops_chooser *ch) {
  static const double dv[] = {2, 4, -2, 0.5, 0.25, -4};
  double x = dv[R(0, 5)];
  return x == (double)(int64_t)x && !D(OPS_DECIDE_FLOAT) ? a_int((int64_t)x) : a_float(x);
}

int opk_tensor(const ops_chooser *ch, const ops_req *r) { return ch->tensor(ch->ctx, r); }

ops_req opk_req(ops_req_kind kind, int rank, const int64_t *shape, af_dtype dt, ops_dt_rule rule, int avoid, int same_ok) {
  ops_req r;
  memset(&r, 0, sizeof r);
  r.kind = kind;
  r.rank = rank;
  if (rank) memcpy(r.shape, shape, sizeof(int64_t) * (size_t)rank);
  r.dtype = dt;
  r.dt_rule = rule;
  r.avoid = avoid;
  r.same_ok = same_ok;
  return r;
}

/* a shape that broadcasts to (rank, shape): drop some leading dims, set some dims to 1 */
int opk_broadcastable_shape(const ops_chooser *ch, int rank, const int64_t *shape, int64_t *out) {
  int drop = rank ? (int)R(0, rank) : 0;
  if (drop && R(0, 1)) drop = 0; /* full rank half the time */
  int n = rank - drop;
  for (int d = 0; d < n; d++) out[d] = R(0, 3) == 0 ? 1 : shape[drop + d];
  return n;
}

/* index data: n values in [0, size), distinct when distinct (n <= size), negative sometimes */
void opk_index_values(const ops_chooser *ch, int64_t *out, int64_t n, int64_t size, int distinct) {
  if (distinct && n <= size) {
    /* a partial shuffle of 0..size-1 (a dim may be larger than the policy's numel bound: the
       fuzz engines' bytes reach 332, past a fixed pool of 256) */
    int64_t small[256], *pool = size <= 256 ? small : af_xmalloc(sizeof(int64_t) * (size_t)size);
    for (int64_t k = 0; k < size; k++) pool[k] = k;
    for (int64_t k = 0; k < n; k++) {
      int64_t j = R(k, size - 1);
      int64_t t = pool[k];
      pool[k] = pool[j];
      pool[j] = t;
      out[k] = pool[k];
    }
    if (pool != small) free(pool);
  } else {
    for (int64_t k = 0; k < n; k++) out[k] = R(0, size - 1);
  }
  if (D(OPS_DECIDE_NEG_INDEX))
    for (int64_t k = 0; k < n; k++)
      if (R(0, 1)) out[k] -= size;
}

/* factors n into k >= 1 factors (random divisors) */
int opk_factor(const ops_chooser *ch, int64_t n, int k, int64_t *out) {
  int c = 0;
  for (int i = 0; i < k - 1; i++) {
    int64_t divs[64];
    int nd = 0;
    for (int64_t d = 1; d <= n && nd < 64; d++)
      if (n % d == 0) divs[nd++] = d;
    int64_t f = divs[R(0, nd - 1)];
    out[c++] = f;
    n /= f;
  }
  out[c++] = n;
  return c;
}

/* a shape for view/reshape of m: split its stride chunks (a view) when as_view, else any
 * factorization of numel (a view or a copy); sometimes one entry is -1 */
int opk_view_shape(const ops_chooser *ch, const ops_meta *m, int as_view, int64_t *out) {
  int64_t numel = ops_meta_numel(m);
  int n = 0;
  if (as_view && m->exact && numel > 1) {
    int64_t chunks[AF_MAX_RANK];
    int nc = 0;
    int64_t cnumel = 1, base = 0;
    int have = 0;
    for (int d = m->rank - 1; d >= 0; d--) {
      if (m->shape[d] == 1) continue;
      if (!have) {
        cnumel = m->shape[d];
        base = m->stride[d];
        have = 1;
      } else if (m->stride[d] == cnumel * base) {
        cnumel *= m->shape[d];
      } else {
        chunks[nc++] = cnumel;
        cnumel = m->shape[d];
        base = m->stride[d];
      }
    }
    if (have) chunks[nc++] = cnumel;
    for (int c = nc - 1; c >= 0; c--) {
      int room = ch->max_rank - n - c;
      int k = room >= 2 ? (int)R(1, 2) : 1;
      n += opk_factor(ch, chunks[c], k, out + n);
    }
  } else {
    int k = (int)R(1, ch->max_rank < 3 ? ch->max_rank : 3);
    n = opk_factor(ch, numel, k, out);
  }
  if (n < ch->max_rank && D(OPS_DECIDE_EDGE)) { /* a size-1 dim somewhere */
    int at = (int)R(0, n);
    for (int k = n; k > at; k--) out[k] = out[k - 1];
    out[at] = 1;
    n++;
  }
  if (n && D(OPS_DECIDE_MINUS_ONE)) {
    int at = (int)R(0, n - 1);
    if (out[at] > 0) out[at] = -1;
  }
  return n;
}

/* a target shape for expand(m): new leading dims, size-1 dims repeated unless trivial */
int opk_expand_shape(const ops_chooser *ch, const ops_meta *m, int trivial, int64_t *out) {
  int lead = m->rank < ch->max_rank ? (int)R(0, 1) : 0;
  int n = 0;
  for (int k = 0; k < lead; k++) out[n++] = trivial ? 1 : R(1, 3);
  for (int d = 0; d < m->rank; d++) out[n++] = (!trivial && m->shape[d] == 1 && R(0, 1)) ? R(2, 3) : m->shape[d];
  if (ir_numel(n, out) > ch->max_numel) { /* too big: do not repeat */
    for (int k = 0; k < lead; k++) out[k] = 1;
    for (int d = 0; d < m->rank; d++) out[lead + d] = m->shape[d];
  }
  return n;
}

/* an index tensor of exactly `shape` holding data */
int opk_index_tensor(const ops_chooser *ch, int rank, const int64_t *shape, const int64_t *data) {
  ops_req r = opk_req(OPS_REQ_INDEX, rank, shape, AF_INT64, OPS_DT_SAME, -1, 0);
  r.index_data = data;
  return opk_tensor(ch, &r);
}

int opk_mask_for(const ops_chooser *ch, const ops_meta *m) {
  int64_t shape[AF_MAX_RANK];
  int n = opk_broadcastable_shape(ch, m->rank, m->shape, shape);
  ops_req r = opk_req(OPS_REQ_MASK, n, shape, AF_BOOL, OPS_DT_SAME, -1, 0);
  return opk_tensor(ch, &r);
}

/* no argument besides self: detach, alias, zero_, clone, contiguous, sum */
SAMPLER(plain) {
  SAMPLER_BEGIN;
  return n;
}

ir_arg opk_pick_num(const ops_chooser *ch, const double *v, int n) {
  double x = v[R(0, n - 1)];
  return x == (double)(int64_t)x && !D(OPS_DECIDE_FLOAT) ? a_int((int64_t)x) : a_float(x);
}

ir_arg opk_pick_int(const ops_chooser *ch, const int64_t *v, int n) { return a_int(v[R(0, n - 1)]); }
