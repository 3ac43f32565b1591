/* ops_subscript.c - Python subscripts: what `x[idx]` selects (opk_infer_subscript, for getitem and
 * setitem) and the subscript sampler (opk_subscript). */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* Bounds of an int index tensor's data against size n (skipped when the data is unknown). */
static int index_in_range(const ops_env *env, int v, int64_t n, af_err *err) {
  int64_t nd = 0;
  const double *d = env->data ? env->data(env->ctx, v, &nd) : NULL;
  if (!d) return 0;
  int64_t numel = ops_meta_numel(META(v));
  for (int64_t k = 0; k < numel; k++) {
    int64_t x = (int64_t)d[nd ? k % nd : 0];
    if (x < -n || x >= n) return af_fail(err, "index %lld is out of bounds for dimension with size %lld", (long long)x, (long long)n);
  }
  return 0;
}

/* What self[idx] selects, as PyTorch's indexing does: the basic indices (int, slice, None, ...) as
 * views of self, then the tensor indices (int tensors broadcast together, masks) placed where
 * advanced indexing puts them. Longer than 120 lines: one walk over the subscript, each element
 * kind a case whose bookkeeping (the dim it consumes, where advanced dims go) the next reads. */
int opk_infer_subscript(const ir_arg *idx, const ops_meta *self, const ops_env *env, sub_info *si, af_err *err) {
  memset(si, 0, sizeof *si);
  int specified = 0, ell = 0;
  for (int k = 0; k < idx->n; k++) {
    const ir_index *x = &idx->index[k];
    if (x->kind == IR_IDX_INT || x->kind == IR_IDX_SLICE) specified++;
    if (x->kind == IR_IDX_ELLIPSIS) ell++;
    if (x->kind == IR_IDX_TENSOR) {
      const ops_meta *t = META(x->value);
      specified += t->dtype == AF_BOOL ? t->rank : 1;
    }
  }
  if (ell > 1) return af_fail(err, "an index can only have a single ellipsis");
  if (ell == idx->n) return af_fail(err, "x[...] alone does not compile in TorchScript (and eager.c returns x itself, PyTorch an alias)");
  if (specified > self->rank) return af_fail(err, "too many indices for tensor of dimension %d", self->rank);
  ops_meta cur = *self;
  int64_t dim = 0;
  int ell_seen = 0;
  for (int i = 0; i < 2 * AF_MAX_RANK; i++) si->tv[i] = -1;
  for (int k = 0; k < idx->n; k++) {
    const ir_index *x = &idx->index[k];
    ops_meta nx;
    switch (x->kind) {
      case IR_IDX_INT:
        if (opk_v_select(&cur, dim, x->i, &nx, err)) goto fail;
        cur = nx;
        break;
      case IR_IDX_SLICE:
        if (opk_v_slice(&cur, dim, x->has_start, x->start, x->has_stop, x->stop, x->step, &nx, err)) goto fail;
        cur = nx;
        dim++;
        break;
      case IR_IDX_NONE:
        if (cur.rank >= AF_MAX_RANK) {
          af_fail(err, "rank above the limit %d", AF_MAX_RANK);
          goto fail;
        }
        if (opk_v_unsqueeze(&cur, dim, &nx, err)) goto fail;
        cur = nx;
        dim++;
        break;
      case IR_IDX_ELLIPSIS:
        dim += self->rank - specified;
        ell_seen = 1;
        break;
      case IR_IDX_TENSOR: {
        const ops_meta *t = META(x->value);
        if (ell_seen) {
          af_fail(err, "TorchScript: Ellipses followed by tensor indexing is currently not supported");
          goto fail;
        }
        if (t->dtype != AF_BOOL && t->dtype != AF_INT64) {
          af_fail(err, "tensors used as indices must be long, int or bool tensors");
          goto fail;
        }
        if (t->rank == 0) {
          af_fail(err, "0-dim index tensors are not modelled (PyTorch turns them into select)");
          goto fail;
        }
        if (dim >= 2 * AF_MAX_RANK) {
          af_fail(err, "subscript too long");
          goto fail;
        }
        si->tv[dim] = x->value;
        if (dim + 1 > si->nt) si->nt = (int)dim + 1;
        dim++;
        break;
      }
    }
    continue;
  fail:
    af_err_prefix(err, "subscript element %d", k);
    return -1;
  }
  si->view = cur;
  if (!si->nt) {
    si->result = cur;
    return 0;
  }
  /* advanced part: aten::index / index_put_ on the view with the list expanded (a bool mask of
   * rank k stands for k index tensors) */
  int pos = 0, first = -1, last = -1, gap = 0, bt_rank = 0, mask_dims = 0;
  int64_t bt[AF_MAX_RANK] = {0};
  for (int e = 0; e < si->nt; e++) {
    int v = si->tv[e];
    if (v < 0) {
      pos++;
      continue;
    }
    const ops_meta *t = META(v);
    int span = t->dtype == AF_BOOL ? t->rank : 1;
    if (pos + span > cur.rank) return af_fail(err, "too many indices for tensor of dimension %d", cur.rank);
    if (first >= 0 && last + 1 != pos) gap = 1;
    if (first < 0) first = pos;
    last = pos + span - 1;
    if (t->dtype == AF_BOOL) {
      for (int d = 0; d < t->rank; d++)
        if (t->shape[d] != cur.shape[pos + d])
          return af_fail(err, "the shape of the mask at index %d does not match the shape of the indexed tensor", d);
      si->has_mask = 1;
      mask_dims = 1;
      int64_t one = 1;
      if (ops_broadcast(bt_rank, bt, 1, &one, &bt_rank, bt)) return af_fail(err, "shape mismatch: indexing tensors could not be broadcast together");
    } else {
      si->has_int = 1;
      if (index_in_range(env, v, cur.shape[pos], err)) return -1;
      if (ops_broadcast(bt_rank, bt, t->rank, t->shape, &bt_rank, bt))
        return af_fail(err, "shape mismatch: indexing tensors could not be broadcast together");
    }
    pos += span;
  }
  (void)mask_dims;
  si->bt_rank = bt_rank;
  memcpy(si->bt, bt, sizeof bt);
  ops_meta r;
  memset(&r, 0, sizeof r);
  r.dtype = cur.dtype;
  int nr = 0;
  int64_t shp[3 * AF_MAX_RANK];
  if (!gap) {
    for (int d = 0; d < first; d++) shp[nr++] = cur.shape[d];
    for (int d = 0; d < bt_rank; d++) shp[nr++] = bt[d];
    for (int d = last + 1; d < cur.rank; d++) shp[nr++] = cur.shape[d];
  } else {
    for (int d = 0; d < bt_rank; d++) shp[nr++] = bt[d];
    int p = 0;
    for (int e = 0; e < si->nt; e++) {
      int v = si->tv[e];
      if (v < 0) shp[nr++] = cur.shape[p++];
      else p += META(v)->dtype == AF_BOOL ? META(v)->rank : 1;
    }
    while (p < cur.rank) shp[nr++] = cur.shape[p++];
  }
  if (nr > AF_MAX_RANK) return af_fail(err, "rank above the limit %d", AF_MAX_RANK);
  opk_fresh_contig(&r, cur.dtype, nr, shp);
  r.exact = 0; /* aten::index's output strides are not modelled */
  r.known = !si->has_mask;
  si->result = r;
  return 0;
}

/* Duplicate index tuples (int index tensors with known data), wrapped into [0, size). */
int opk_has_dup_tuples(const sub_info *si, const ops_env *env) {
  int64_t n = ir_numel(si->bt_rank, si->bt);
  if (n > 4096 || !env->data) return 1;
  int64_t *keys = af_xcalloc((size_t)n, sizeof(int64_t));
  int pos = 0;
  int64_t mult = 1;
  for (int e = 0; e < si->nt; e++) {
    int v = si->tv[e];
    if (v < 0) {
      pos++;
      continue;
    }
    const ops_meta *t = META(v);
    int64_t size = si->view.shape[pos], nd = 0;
    const double *d = env->data(env->ctx, v, &nd);
    if (!d) {
      free(keys);
      return 1;
    }
    for (int64_t k = 0; k < n; k++) { /* element of t broadcast to position k of bt */
      int64_t rem = k, src = 0, sm = 1;
      for (int q = si->bt_rank - 1; q >= 0; q--) {
        int64_t c = rem % si->bt[q];
        rem /= si->bt[q];
        int tq = q - (si->bt_rank - t->rank);
        if (tq >= 0) {
          if (t->shape[tq] != 1) src += c * sm;
          sm *= t->shape[tq];
        }
      }
      int64_t x = (int64_t)d[nd ? src % nd : 0];
      if (x < 0) x += size;
      keys[k] += x * mult;
    }
    mult *= size;
    pos++;
  }
  qsort(keys, (size_t)n, sizeof keys[0], opk_cmp_i64);
  int dup = 0;
  for (int64_t k = 1; k < n; k++)
    if (keys[k] == keys[k - 1]) dup = 1;
  free(keys);
  return dup;
}

/* A subscript for m (the IR_ARG_INDEX in *out); result shape of self[idx] in *res and whether it
 * uses tensor indices. basic: only int/slice/None/...; masks only when allow_mask (setitem);
 * distinct: int index tensors hold distinct tuples. Longer than 120 lines: one draw per subscript
 * element, each kind a case, with the dims left to consume carried from one to the next (as in
 * opk_infer_subscript, which reads what this writes). */
int opk_subscript(const ops_chooser *ch, const ops_meta *m, int basic, int allow_mask, int distinct, ir_arg *out,
                     ops_meta *res, int *advanced) {
  int kinds[6], nk = 0, ell = 0, ntens = 0, mask_k = 0, specified = 0, nnone = 0;
  int want = (int)R(1, 3);
  for (int tries = 0; nk < want && tries < 12; tries++) {
    int k = ch->index_kind(ch->ctx);
    if (k < 0) break;
    int rem = m->rank - specified;
    if ((k == OPS_IDX_INT || k == OPS_IDX_SLICE || k == OPS_IDX_TENSOR || k == OPS_IDX_MASK) && rem < 1) continue;
    if (k == OPS_IDX_ELLIPSIS && ell) continue;
    if ((k == OPS_IDX_TENSOR || k == OPS_IDX_MASK) && (basic || ell)) continue; /* TorchScript: no tensor index after ... */
    if (k == OPS_IDX_TENSOR && (ntens >= 2 || mask_k)) continue;
    if (k == OPS_IDX_MASK && (!allow_mask || ntens)) continue;
    if (k == OPS_IDX_NONE && m->rank + nnone + 1 > ch->max_rank) continue;
    kinds[nk++] = k;
    if (k == OPS_IDX_ELLIPSIS) ell = 1;
    else if (k == OPS_IDX_NONE) nnone++;
    else if (k == OPS_IDX_TENSOR) ntens++, specified++;
    else if (k == OPS_IDX_MASK) {
      mask_k = rem >= 2 && R(0, 2) == 0 ? 2 : 1;
      specified += mask_k;
      break; /* a mask ends the subscript */
    } else {
      specified++;
    }
  }
  if (nk == 1 && kinds[0] == OPS_IDX_ELLIPSIS) nk = 0; /* x[...] alone: not in TorchScript */
  if (!nk) kinds[nk++] = m->rank ? OPS_IDX_SLICE : OPS_IDX_NONE, specified += m->rank ? 1 : 0;
  int skip = m->rank - specified;
  ir_arg a = {.kind = IR_ARG_INDEX, .n = nk};
  a.index = af_xcalloc((size_t)nk, sizeof(ir_index));
  int pos = 0;
  int64_t ilen = 0, ishape[2] = {0, 0};
  int irank = 0;
  for (int e = 0; e < nk; e++) {
    ir_index *x = &a.index[e];
    int64_t n = pos < m->rank ? m->shape[pos] : 1;
    switch (kinds[e]) {
      case OPS_IDX_INT:
        x->kind = IR_IDX_INT;
        x->i = R(0, n - 1);
        if (D(OPS_DECIDE_NEG_INDEX)) x->i -= n;
        pos++;
        break;
      case OPS_IDX_SLICE: {
        x->kind = IR_IDX_SLICE;
        x->step = D(OPS_DECIDE_STEP) ? R(2, 3) : 1;
        int64_t s = R(0, n - 1), t = R(s + 1, n);
        x->has_start = !(s == 0 && D(OPS_DECIDE_OPEN_BOUND));
        x->has_stop = !(t == n && D(OPS_DECIDE_OPEN_BOUND));
        x->start = s;
        x->stop = t;
        if (D(OPS_DECIDE_NEG_INDEX)) {
          x->start = s - n;
          if (t < n) x->stop = t - n;
        }
        if (x->has_stop && t == n && D(OPS_DECIDE_EDGE)) x->stop = n + R(1, 3); /* past the end: clamped */
        pos++;
        break;
      }
      case OPS_IDX_NONE: x->kind = IR_IDX_NONE; break;
      case OPS_IDX_ELLIPSIS:
        x->kind = IR_IDX_ELLIPSIS;
        pos += skip;
        break;
      case OPS_IDX_TENSOR: {
        x->kind = IR_IDX_TENSOR;
        if (!ilen) { /* all index tensors of one subscript share a shape */
          if (D(OPS_DECIDE_INDEX_2D) && n >= 2) {
            irank = 2;
            ishape[0] = R(1, 2);
            ishape[1] = R(1, n / ishape[0] < 3 ? n / ishape[0] : 3);
            if (ishape[1] < 1) ishape[1] = 1;
          } else {
            irank = 1;
            ishape[0] = R(1, n < 4 ? n : 4);
          }
          ilen = ishape[0] * (irank == 2 ? ishape[1] : 1);
        }
        int64_t data[64];
        int dis = distinct || !D(OPS_DECIDE_DUP_INDEX);
        if (ilen > n) dis = 0;
        opk_index_values(ch, data, ilen, n, dis);
        if (!dis && distinct) { /* could not: fall back to a slice */
          x->kind = IR_IDX_SLICE;
          x->step = 1;
          x->has_start = x->has_stop = 0;
          pos++;
          break;
        }
        ops_req r = opk_req(OPS_REQ_INDEX, irank, ishape, AF_INT64, OPS_DT_SAME, -1, 0);
        r.index_data = data;
        int v = opk_tensor(ch, &r);
        if (v < 0) goto fail;
        x->value = v;
        pos++;
        break;
      }
      case OPS_IDX_MASK: {
        x->kind = IR_IDX_TENSOR;
        ops_req r = opk_req(OPS_REQ_MASK, mask_k, m->shape + pos, AF_BOOL, OPS_DT_SAME, -1, 0);
        int v = opk_tensor(ch, &r);
        if (v < 0) goto fail;
        x->value = v;
        pos += mask_k;
        break;
      }
    }
  }
  /* the result shape, by the same rules infer uses */
  ops_env env = {.ctx = ch->ctx, .meta = ch->meta};
  sub_info si;
  af_err err;
  if (opk_infer_subscript(&a, m, &env, &si, &err)) goto fail;
  *res = si.result;
  *advanced = si.nt > 0;
  *out = a;
  return 0;
fail:
  ir_arg_free(&a);
  return -1;
}

/* the value of a setitem: a number, or a tensor broadcasting to res */
int opk_item_value(const ops_chooser *ch, const ops_meta *m, const ops_meta *res, int advanced, int aug, int primary,
                      ir_arg *out) {
  if (D(OPS_DECIDE_NUMBER)) {
    *out = opk_number(ch, m->dtype);
    return 0;
  }
  int64_t shape[AF_MAX_RANK];
  int n = opk_broadcastable_shape(ch, res->rank, res->shape, shape);
  ops_req r = opk_req(OPS_REQ_BROADCAST, res->rank, res->shape, m->dtype, advanced && !aug ? OPS_DT_SAME : OPS_DT_INTO, primary, 0);
  (void)n;
  int v = opk_tensor(ch, &r);
  if (v < 0) return -1;
  *out = a_value(v);
  return 0;
}
