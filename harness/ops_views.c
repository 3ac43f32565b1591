/* ops_views.c - write-back rules of view ops and the decomposition of Python subscripts. */
#include "ops_views.h"

#include <stdlib.h>
#include <string.h>

#include "ops_shape.h"

void ops_call_clear(ops_call *c) {
  for (int a = 0; a < c->nargs; a++) ir_arg_free(&c->args[a]);
  memset(c, 0, sizeof *c);
}

void ops_call_copy(ops_call *dst, const ops_call *src) {
  memset(dst, 0, sizeof *dst);
  dst->op = src->op;
  dst->nargs = src->nargs;
  for (int a = 0; a < src->nargs; a++) ir_arg_copy(&dst->args[a], &src->args[a]);
}

static ir_arg int_arg(int64_t i) { return (ir_arg){.kind = IR_ARG_INT, .i = i, .value = -1}; }

static ir_arg ints_arg(int n, const int64_t *v) {
  ir_arg a = {.kind = IR_ARG_INTS, .n = n, .value = -1};
  a.ints = af_xcalloc((size_t)(n ? n : 1), sizeof(int64_t));
  if (n) memcpy(a.ints, v, sizeof(int64_t) * (size_t)n);
  return a;
}

/* d normalized against rank (Python's negative dims); -1 when out of range. */
static int64_t norm_dim(int64_t d, int rank) {
  int r = rank > 0 ? rank : 1;
  if (d < 0) d += r;
  return d >= 0 && d < r ? d : -1;
}

ops_wb_kind ops_view_wb(int op) {
  switch (op) {
    case OPS_slice:
    case OPS_narrow:
    case OPS_select:
    case OPS_diagonal:
    case OPS_unbind_get: /* x.unbind(d)[k]: select_scatter; split/chunk [k]: slice_scatter */
    case OPS_split_get:
    case OPS_chunk_get:
      return OPS_WB_SCATTER;
    case OPS_view:
    case OPS_reshape:
    case OPS_flatten:
    case OPS_unflatten:
    case OPS_squeeze:
    case OPS_unsqueeze:
    case OPS_transpose:
    case OPS_swapaxes:
    case OPS_swapdims:
    case OPS_t:
    case OPS_permute:
    case OPS_movedim:
    case OPS_expand:
    case OPS_expand_as:
    case OPS_view_as:
      return OPS_WB_INVERSE;
    case OPS_alias:
    case OPS_detach:
    case OPS_contiguous:
      return OPS_WB_IDENTITY;
    case OPS_as_strided:
      return OPS_WB_STORAGE;
    case OPS_unfold:
      return OPS_WB_STRIDED;
    default:
      return OPS_WB_NONE;
  }
}

int ops_write_is_uniform(int twin) { return twin == OPS_fill || twin == OPS_zero; }

int ops_layout_arg(int op) { return op == OPS_as_strided_scatter ? 0 : -1; }

int ops_view_is_reshape(int op) {
  switch (op) {
    case OPS_view:
    case OPS_view_as:
    case OPS_reshape:
    case OPS_flatten:
    case OPS_unflatten:
    case OPS_squeeze:
    case OPS_unsqueeze:
      return 1;
    default:
      return 0;
  }
}

int ops_view_shape_form(int op) {
  switch (op) {
    case OPS_expand_as: return OPS_expand;
    case OPS_view_as: return OPS_view;
    default: return -1;
  }
}

int ops_view_replay(int op) { return op == OPS_view ? OPS_reshape : op; }

int ops_view_scatter(int op, const ir_arg *vargs, int prank, const int64_t *pshape, ops_call *out, af_err *err) {
  const ops_entry *e = ops_get(op);
  int sop = e && e->scatter[0] ? ops_find(e->scatter) : -1;
  if (ops_view_wb(op) != OPS_WB_SCATTER || sop < 0)
    return af_fail(err, "%s: no scatter op writes it back", e ? e->name : "?");
  memset(out, 0, sizeof *out);
  out->op = sop;
  if (op == OPS_narrow) { /* narrow(d, start, length) -> slice_scatter(.., d, start, start + length, 1) */
    int64_t d = norm_dim(vargs[1].i, prank);
    if (d < 0) return af_fail(err, "narrow: dim %lld out of range", (long long)vargs[1].i);
    int64_t start = vargs[2].i < 0 ? vargs[2].i + pshape[d] : vargs[2].i;
    out->nargs = 6;
    out->args[2] = int_arg(d);
    out->args[3] = int_arg(start);
    out->args[4] = int_arg(start + vargs[3].i);
    out->args[5] = int_arg(1);
    return 0;
  }
  if (ops_get(op)->flags & OPF_PICK) { /* one element of split/chunk/unbind: a select or a slice */
    int64_t d, start, len;
    if (ops_multi_view_range(op, vargs, prank, pshape, &d, &start, &len, err)) return -1;
    out->nargs = op == OPS_unbind_get ? 4 : 6;
    out->args[2] = int_arg(d);
    out->args[3] = int_arg(start);
    if (op != OPS_unbind_get) {
      out->args[4] = int_arg(start + len);
      out->args[5] = int_arg(1);
    }
    return 0;
  }
  /* slice, select, diagonal: scatter(parent, u, <the view's own arguments>) */
  out->nargs = e->nargs + 1;
  for (int a = 1; a < e->nargs; a++) ir_arg_copy(&out->args[a + 1], &vargs[a]);
  return 0;
}

static void one_call(ops_call *c, int op) {
  memset(c, 0, sizeof *c);
  c->op = op;
  c->nargs = 1;
}

int ops_view_inverse(int op, const ir_arg *vargs, int prank, const int64_t *pshape, int vrank, const int64_t *vshape,
                     ops_call *calls, int max, int *n, af_err *err) {
  *n = 0;
  if (max < 1) return af_fail(err, "ops_view_inverse: no room");
  switch (op) {
    case OPS_transpose: /* its own inverse; swapaxes/swapdims are transposes */
    case OPS_swapaxes:
    case OPS_swapdims:
      one_call(&calls[0], OPS_transpose);
      calls[0].nargs = 3;
      calls[0].args[1] = int_arg(vargs[1].i);
      calls[0].args[2] = int_arg(vargs[2].i);
      *n = 1;
      return 0;
    case OPS_t:
      one_call(&calls[0], OPS_t);
      *n = 1;
      return 0;
    case OPS_permute: {
      int64_t inv[OPS_VIEW_MAX_RANK];
      if (vargs[1].n != vrank || vrank > OPS_VIEW_MAX_RANK) return af_fail(err, "permute: %d dims for rank %d", vargs[1].n, vrank);
      for (int k = 0; k < vrank; k++) {
        int64_t d = norm_dim(vargs[1].ints[k], vrank);
        if (d < 0) return af_fail(err, "permute: dim %lld out of range", (long long)vargs[1].ints[k]);
        inv[d] = k;
      }
      one_call(&calls[0], OPS_permute);
      calls[0].nargs = 2;
      calls[0].args[1] = ints_arg(vrank, inv);
      *n = 1;
      return 0;
    }
    case OPS_movedim: { /* movedim(src, dst) is undone by movedim(dst, src) */
      int64_t s = norm_dim(vargs[1].i, prank), d = norm_dim(vargs[2].i, prank);
      if (s < 0 || d < 0) return af_fail(err, "movedim: dim out of range");
      one_call(&calls[0], OPS_movedim);
      calls[0].nargs = 3;
      calls[0].args[1] = int_arg(d);
      calls[0].args[2] = int_arg(s);
      *n = 1;
      return 0;
    }
    case OPS_unsqueeze: {
      int64_t d = norm_dim(vargs[1].i, vrank);
      if (d < 0) return af_fail(err, "unsqueeze: dim out of range");
      one_call(&calls[0], OPS_squeeze);
      calls[0].nargs = 2;
      calls[0].args[1] = int_arg(d);
      *n = 1;
      return 0;
    }
    case OPS_squeeze: {
      int64_t d = norm_dim(vargs[1].i, prank);
      if (d < 0) return af_fail(err, "squeeze: dim out of range");
      if (prank == vrank) return 0; /* the dim was not 1: nothing was squeezed */
      one_call(&calls[0], OPS_unsqueeze);
      calls[0].nargs = 2;
      calls[0].args[1] = int_arg(d);
      *n = 1;
      return 0;
    }
    case OPS_expand:
    case OPS_expand_as: {
      /* A writable expand repeats no element: it only adds leading dims of size 1 or keeps
       * sizes. Undo it by taking index 0 of every added or broadcast dim; where eager accepts a
       * write into a broadcast dim at all (fill_, zero_), every copy holds the same value. */
      int added = vrank - prank;
      if (added < 0) return af_fail(err, "expand: view rank %d below input rank %d", vrank, prank);
      for (int k = 0; k < added; k++) {
        if (*n >= max) return af_fail(err, "expand: inverse needs more than %d steps", max);
        one_call(&calls[*n], OPS_select);
        calls[*n].nargs = 3;
        calls[*n].args[1] = int_arg(0);
        calls[*n].args[2] = int_arg(0);
        (*n)++;
      }
      for (int d = 0; d < prank; d++)
        if (pshape[d] != vshape[d + added]) {
          if (*n >= max) return af_fail(err, "expand: inverse needs more than %d steps", max);
          one_call(&calls[*n], OPS_slice);
          calls[*n].nargs = 5;
          calls[*n].args[1] = int_arg(d);
          calls[*n].args[2] = int_arg(0);
          calls[*n].args[3] = int_arg(pshape[d]);
          calls[*n].args[4] = int_arg(1);
          (*n)++;
        }
      return 0;
    }
    case OPS_view:
    case OPS_view_as:
    case OPS_reshape:
    case OPS_flatten:
    case OPS_unflatten: /* any reshape is undone by reshaping back */
      one_call(&calls[0], OPS_reshape);
      calls[0].nargs = 2;
      calls[0].args[1] = ints_arg(prank, pshape);
      *n = 1;
      return 0;
    default:
      return af_fail(err, "%s: no inverse view", ops_get(op) ? ops_get(op)->name : "?");
  }
}

static int same_shape(int ra, const int64_t *a, int rb, const int64_t *b) {
  return ra == rb && (ra == 0 || memcmp(a, b, sizeof(int64_t) * (size_t)ra) == 0);
}

int ops_view_is_identity(int op, const ir_arg *vargs, int prank, const int64_t *pshape, int vrank, const int64_t *vshape) {
  switch (op) {
    case OPS_alias:
    case OPS_detach:
    case OPS_contiguous:
      return 1;
    case OPS_slice: {
      int64_t d = norm_dim(vargs[1].i, prank);
      return d >= 0 && vargs[4].i == 1 && same_shape(prank, pshape, vrank, vshape);
    }
    case OPS_narrow:
    case OPS_view:
    case OPS_view_as:
    case OPS_reshape:
    case OPS_flatten:
    case OPS_unflatten:
    case OPS_squeeze:
    case OPS_expand:
    case OPS_expand_as:
      return same_shape(prank, pshape, vrank, vshape);
    case OPS_transpose:
    case OPS_swapaxes:
    case OPS_swapdims:
      return norm_dim(vargs[1].i, prank) == norm_dim(vargs[2].i, prank);
    case OPS_split_get:
    case OPS_chunk_get:
      return same_shape(prank, pshape, vrank, vshape);
    case OPS_movedim:
      return norm_dim(vargs[1].i, prank) == norm_dim(vargs[2].i, prank);
    case OPS_t:
      return prank < 2;
    case OPS_permute:
      for (int k = 0; k < vargs[1].n; k++)
        if (norm_dim(vargs[1].ints[k], prank) != k) return 0;
      return 1;
    default:
      return 0;
  }
}

int ops_subscript_decompose(const ir_arg *idx, const int *consumed, int rank, const int64_t *shape, ops_call *calls,
                            int max, int *ncalls, int *call_rank, int64_t (*call_shape)[OPS_VIEW_MAX_RANK],
                            int *tensors, int max_tensors, int *ntensors, af_err *err) {
  int64_t cur[OPS_VIEW_MAX_RANK];
  int r = rank, specified = 0;
  *ncalls = 0;
  *ntensors = 0;
  if (rank > OPS_VIEW_MAX_RANK) return af_fail(err, "subscript: rank %d over %d", rank, OPS_VIEW_MAX_RANK);
  memcpy(cur, shape, sizeof(int64_t) * (size_t)rank);
  for (int k = 0; k < idx->n; k++) {
    ir_idx_kind kind = idx->index[k].kind;
    if (kind == IR_IDX_INT || kind == IR_IDX_SLICE) specified++;
    if (kind == IR_IDX_TENSOR) specified += consumed ? consumed[k] : 1;
  }
  int64_t dim = 0;
  for (int k = 0; k < idx->n; k++) {
    const ir_index *x = &idx->index[k];
    ops_call c = {0};
    if (x->kind == IR_IDX_ELLIPSIS) {
      dim += rank - specified;
      continue;
    }
    if (x->kind == IR_IDX_TENSOR) {
      if (dim >= max_tensors) return af_fail(err, "subscript element %d: more than %d dims", k, max_tensors);
      for (int64_t d = *ntensors; d < dim; d++) tensors[d] = -1;
      tensors[dim] = x->value;
      if (dim + 1 > *ntensors) *ntensors = (int)dim + 1;
      dim++;
      continue;
    }
    if (*ncalls >= max) return af_fail(err, "subscript element %d: more than %d view steps", k, max);
    if (x->kind == IR_IDX_NONE) {
      if (r >= OPS_VIEW_MAX_RANK || dim > r) return af_fail(err, "subscript element %d: too many dims", k);
      one_call(&c, OPS_unsqueeze);
      c.nargs = 2;
      c.args[1] = int_arg(dim);
      memmove(cur + dim + 1, cur + dim, sizeof(int64_t) * (size_t)(r - dim));
      cur[dim] = 1;
      r++;
      dim++;
    } else {
      if (dim >= r) return af_fail(err, "subscript element %d: too many indices for a tensor of rank %d", k, rank);
      int64_t size = cur[dim];
      if (x->kind == IR_IDX_INT) {
        int64_t i = x->i < 0 ? x->i + size : x->i;
        if (i < 0 || i >= size)
          return af_fail(err, "subscript element %d: index %lld out of range for size %lld", k, (long long)x->i,
                         (long long)size);
        one_call(&c, OPS_select);
        c.nargs = 3;
        c.args[1] = int_arg(dim);
        c.args[2] = int_arg(i);
        memmove(cur + dim, cur + dim + 1, sizeof(int64_t) * (size_t)(r - dim - 1));
        r--;
      } else {
        /* ATen's slice: negative bounds count from the end, then both are clamped to the dim */
        int64_t start = x->has_start ? x->start : 0, stop = x->has_stop ? x->stop : size;
        if (start < 0) start += size;
        if (stop < 0) stop += size;
        if (start < 0) start = 0;
        if (start > size) start = size;
        if (stop < start) stop = start;
        if (stop > size) stop = size;
        one_call(&c, OPS_slice);
        c.nargs = 5;
        c.args[1] = int_arg(dim);
        c.args[2] = int_arg(start);
        c.args[3] = int_arg(stop);
        c.args[4] = int_arg(x->step);
        cur[dim] = (stop - start + x->step - 1) / x->step;
        dim++;
      }
    }
    calls[*ncalls] = c;
    if (call_rank) call_rank[*ncalls] = r;
    if (call_shape) memcpy(call_shape[*ncalls], cur, sizeof(int64_t) * (size_t)r);
    (*ncalls)++;
  }
  return 0;
}
