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

/* ---- write-back rules (harness/ops/ops_rules.def's WB lines; ops.def's wb column names one per view
 * op). A rule answers three questions about its views: the scatter that writes an updated view
 * into its parent (SCATTER rules), the view calls that turn the updated view back into the
 * parent's shape (INVERSE rules), and whether the view is its parent unchanged for given shapes. */

enum { WB_SCATTER, WB_INVERSE, WB_IDENTITY, WB_STANDARD, WB_STANDARD_INV };

typedef struct wb_ctx {
  int op;
  const ir_arg *vargs;
  int prank, vrank;
  const int64_t *pshape, *vshape;
  af_dtype pdtype; /* the parent's dtype (a dtype view's inverse views u as it) */
  ops_call *calls; /* WB_SCATTER: the one call, op and nargs set; WB_INVERSE: room for max */
  int max, *n;
  af_err *err;
} wb_ctx;

/* Each rule returns, for WB_SCATTER and WB_INVERSE, 0 or -1 with err (NO_RULE when it has no
 * answer of that kind); for WB_IDENTITY, whether the view is its input; for WB_STANDARD (only
 * vargs and pdtype set), whether a replay or its inverse needs its input in the standard layout
 * (NO_RULE: no); WB_STANDARD_INV, for a rule whose inverse differs, whether the inverse does
 * (NO_RULE: WB_STANDARD's answer). */
#define NO_RULE (-2)
#define SHAPE(n, c)
#define SAMPLE(n, p)
#define WB(n, k, r) static int wb_##n(int what, const wb_ctx *c);
#include "ops_rules.def"
#undef WB

typedef struct wb_entry {
  int (*fn)(int what, const wb_ctx *c);
  ops_wb_kind kind;
  int regroup;
} wb_entry;

#define WB(n, k, r) enum { WBK_of_##n = OPS_WB_##k, WBR_of_##n = r };
#include "ops_rules.def"
#undef WB
#undef SHAPE
#undef SAMPLE

#define OP(n, k, fl, sch, at, ov, ovs, sp, tw, sc, fam, dt, ex, shp, smp, wb, form) [OPS_##n] = {wb_##wb, (ops_wb_kind)WBK_of_##wb, WBR_of_##wb},
static const wb_entry wb_table[OPS_COUNT] = {
#include "ops.def"
};
#undef OP

static const wb_entry *wb_of(int op) { return op >= 0 && op < OPS_COUNT ? &wb_table[op] : NULL; }

ops_wb_kind ops_view_wb(int op) {
  const wb_entry *w = wb_of(op);
  return w ? w->kind : OPS_WB_NONE;
}

int ops_write_is_uniform(int twin) { return twin == OPS_fill || twin == OPS_zero; }

int ops_layout_arg(int op) { return op == OPS_as_strided_scatter ? 0 : -1; }

int ops_view_is_reshape(int op) {
  const wb_entry *w = wb_of(op);
  return w && w->regroup;
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
  wb_ctx c = {.op = op, .vargs = vargs, .prank = prank, .pshape = pshape, .calls = out, .err = err};
  int rc = wb_table[op].fn(WB_SCATTER, &c);
  return rc == NO_RULE ? af_fail(err, "%s: no scatter op writes it back", e->name) : rc;
}

static void one_call(ops_call *c, int op) {
  memset(c, 0, sizeof *c);
  c->op = op;
  c->nargs = 1;
}

int ops_view_inverse(int op, const ir_arg *vargs, int prank, const int64_t *pshape, af_dtype pdtype, int vrank,
                     const int64_t *vshape, ops_call *calls, int max, int *n, af_err *err) {
  *n = 0;
  if (max < 1) return af_fail(err, "ops_view_inverse: no room");
  const wb_entry *w = wb_of(op);
  wb_ctx c = {.op = op, .vargs = vargs, .prank = prank, .pshape = pshape, .pdtype = pdtype, .vrank = vrank,
              .vshape = vshape, .calls = calls, .max = max, .n = n, .err = err};
  int rc = w ? w->fn(WB_INVERSE, &c) : NO_RULE;
  return rc == NO_RULE ? af_fail(err, "%s: no inverse view", ops_get(op) ? ops_get(op)->name : "?") : rc;
}

static int same_shape(int ra, const int64_t *a, int rb, const int64_t *b) {
  return ra == rb && (ra == 0 || memcmp(a, b, sizeof(int64_t) * (size_t)ra) == 0);
}

int ops_view_is_identity(int op, const ir_arg *vargs, int prank, const int64_t *pshape, af_dtype pdtype, int vrank,
                         const int64_t *vshape) {
  const wb_entry *w = wb_of(op);
  wb_ctx c = {.op = op, .vargs = vargs, .prank = prank, .pshape = pshape, .pdtype = pdtype, .vrank = vrank, .vshape = vshape};
  return w && w->fn(WB_IDENTITY, &c) == 1;
}

int ops_view_replay_standard(int op, const ir_arg *vargs, af_dtype pdtype, int inverse) {
  const wb_entry *w = wb_of(op);
  wb_ctx c = {.op = op, .vargs = vargs, .pdtype = pdtype};
  if (!w) return 0;
  int r = w->fn(inverse ? WB_STANDARD_INV : WB_STANDARD, &c);
  if (r == NO_RULE && inverse) r = w->fn(WB_STANDARD, &c); /* the same answer both ways unless the rule says */
  return r == 1;
}

/* ---- the rules ---- */

/* slice: slice_scatter(parent, u, <the slice's own arguments>); the identity when it covers its
 * dim with step 1 */
static int wb_scatter_slice(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) {
    int64_t d = norm_dim(c->vargs[1].i, c->prank);
    return d >= 0 && c->vargs[4].i == 1 && same_shape(c->prank, c->pshape, c->vrank, c->vshape);
  }
  if (what != WB_SCATTER) return NO_RULE;
  return wb_scatter_args(what, c);
}

/* select, diagonal: scatter(parent, u, <the view's own arguments>) */
static int wb_scatter_args(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) return 0;
  if (what != WB_SCATTER) return NO_RULE;
  const ops_entry *e = ops_get(c->op);
  ops_call *out = c->calls;
  out->nargs = e->nargs + 1;
  for (int a = 1; a < e->nargs; a++) ir_arg_copy(&out->args[a + 1], &c->vargs[a]);
  return 0;
}

/* narrow(d, start, length) -> slice_scatter(.., d, start, start + length, 1) */
static int wb_scatter_narrow(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) return same_shape(c->prank, c->pshape, c->vrank, c->vshape);
  if (what != WB_SCATTER) return NO_RULE;
  const ir_arg *vargs = c->vargs;
  ops_call *out = c->calls;
  int64_t d = norm_dim(vargs[1].i, c->prank);
  if (d < 0) return af_fail(c->err, "narrow: dim %lld out of range", (long long)vargs[1].i);
  int64_t start = vargs[2].i < 0 ? vargs[2].i + c->pshape[d] : vargs[2].i;
  out->nargs = 6;
  out->args[2] = int_arg(d);
  out->args[3] = int_arg(start);
  out->args[4] = int_arg(start + vargs[3].i);
  out->args[5] = int_arg(1);
  return 0;
}

/* one element of split/chunk/unbind (OPF_PICK): a select (unbind) or a slice of the parent */
static int wb_scatter_pick(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) return same_shape(c->prank, c->pshape, c->vrank, c->vshape);
  if (what != WB_SCATTER) return NO_RULE;
  ops_call *out = c->calls;
  int64_t d, start, len;
  if (ops_multi_view_range(c->op, c->vargs, c->prank, c->pshape, &d, &start, &len, c->err)) return -1;
  int select = ops_get(out->op)->nargs == 4; /* select_scatter(self, src, dim, index) */
  out->nargs = select ? 4 : 6;
  out->args[2] = int_arg(d);
  out->args[3] = int_arg(start);
  if (!select) {
    out->args[4] = int_arg(start + len);
    out->args[5] = int_arg(1);
  }
  return 0;
}

/* view, view_as, reshape, flatten, unflatten: any reshape is undone by reshaping back */
static int wb_inv_reshape(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) return same_shape(c->prank, c->pshape, c->vrank, c->vshape);
  if (what != WB_INVERSE) return NO_RULE;
  one_call(&c->calls[0], OPS_reshape);
  c->calls[0].nargs = 2;
  c->calls[0].args[1] = ints_arg(c->prank, c->pshape);
  *c->n = 1;
  return 0;
}

/* squeeze(d) is undone by unsqueeze(d), when the dim was 1 */
static int wb_inv_squeeze(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) return same_shape(c->prank, c->pshape, c->vrank, c->vshape);
  if (what != WB_INVERSE) return NO_RULE;
  int64_t d = norm_dim(c->vargs[1].i, c->prank);
  if (d < 0) return af_fail(c->err, "squeeze: dim out of range");
  if (c->prank == c->vrank) return 0; /* the dim was not 1: nothing was squeezed */
  one_call(&c->calls[0], OPS_unsqueeze);
  c->calls[0].nargs = 2;
  c->calls[0].args[1] = int_arg(d);
  *c->n = 1;
  return 0;
}

static int wb_inv_unsqueeze(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) return 0;
  if (what != WB_INVERSE) return NO_RULE;
  int64_t d = norm_dim(c->vargs[1].i, c->vrank);
  if (d < 0) return af_fail(c->err, "unsqueeze: dim out of range");
  one_call(&c->calls[0], OPS_squeeze);
  c->calls[0].nargs = 2;
  c->calls[0].args[1] = int_arg(d);
  *c->n = 1;
  return 0;
}

/* transpose, swapaxes, swapdims: a transpose is its own inverse */
static int wb_inv_transpose(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) return norm_dim(c->vargs[1].i, c->prank) == norm_dim(c->vargs[2].i, c->prank);
  if (what != WB_INVERSE) return NO_RULE;
  one_call(&c->calls[0], OPS_transpose);
  c->calls[0].nargs = 3;
  c->calls[0].args[1] = int_arg(c->vargs[1].i);
  c->calls[0].args[2] = int_arg(c->vargs[2].i);
  *c->n = 1;
  return 0;
}

static int wb_inv_t(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) return c->prank < 2;
  if (what != WB_INVERSE) return NO_RULE;
  one_call(&c->calls[0], OPS_t);
  *c->n = 1;
  return 0;
}

static int wb_inv_permute(int what, const wb_ctx *c) {
  const ir_arg *vargs = c->vargs;
  if (what == WB_IDENTITY) {
    for (int k = 0; k < vargs[1].n; k++)
      if (norm_dim(vargs[1].ints[k], c->prank) != k) return 0;
    return 1;
  }
  if (what != WB_INVERSE) return NO_RULE;
  int vrank = c->vrank;
  int64_t inv[OPS_VIEW_MAX_RANK];
  if (vargs[1].n != vrank || vrank > OPS_VIEW_MAX_RANK) return af_fail(c->err, "permute: %d dims for rank %d", vargs[1].n, vrank);
  for (int k = 0; k < vrank; k++) {
    int64_t d = norm_dim(vargs[1].ints[k], vrank);
    if (d < 0) return af_fail(c->err, "permute: dim %lld out of range", (long long)vargs[1].ints[k]);
    inv[d] = k;
  }
  one_call(&c->calls[0], OPS_permute);
  c->calls[0].nargs = 2;
  c->calls[0].args[1] = ints_arg(vrank, inv);
  *c->n = 1;
  return 0;
}

/* movedim(src, dst) is undone by movedim(dst, src) */
static int wb_inv_movedim(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) return norm_dim(c->vargs[1].i, c->prank) == norm_dim(c->vargs[2].i, c->prank);
  if (what != WB_INVERSE) return NO_RULE;
  int64_t s = norm_dim(c->vargs[1].i, c->prank), d = norm_dim(c->vargs[2].i, c->prank);
  if (s < 0 || d < 0) return af_fail(c->err, "movedim: dim out of range");
  one_call(&c->calls[0], OPS_movedim);
  c->calls[0].nargs = 3;
  c->calls[0].args[1] = int_arg(d);
  c->calls[0].args[2] = int_arg(s);
  *c->n = 1;
  return 0;
}

/* expand, expand_as. A writable expand repeats no element: it only adds leading dims of size 1
 * or keeps sizes. Undo it by taking index 0 of every added or broadcast dim; where eager accepts
 * a write into a broadcast dim at all (fill_, zero_), every copy holds the same value. */
static int wb_inv_expand(int what, const wb_ctx *c) {
  if (what == WB_IDENTITY) return same_shape(c->prank, c->pshape, c->vrank, c->vshape);
  if (what != WB_INVERSE) return NO_RULE;
  int prank = c->prank, vrank = c->vrank, max = c->max, *n = c->n;
  ops_call *calls = c->calls;
  int added = vrank - prank;
  if (added < 0) return af_fail(c->err, "expand: view rank %d below input rank %d", vrank, prank);
  for (int k = 0; k < added; k++) {
    if (*n >= max) return af_fail(c->err, "expand: inverse needs more than %d steps", max);
    one_call(&calls[*n], OPS_select);
    calls[*n].nargs = 3;
    calls[*n].args[1] = int_arg(0);
    calls[*n].args[2] = int_arg(0);
    (*n)++;
  }
  for (int d = 0; d < prank; d++)
    if (c->pshape[d] != c->vshape[d + added]) {
      if (*n >= max) return af_fail(c->err, "expand: inverse needs more than %d steps", max);
      one_call(&calls[*n], OPS_slice);
      calls[*n].nargs = 5;
      calls[*n].args[1] = int_arg(d);
      calls[*n].args[2] = int_arg(0);
      calls[*n].args[3] = int_arg(c->pshape[d]);
      calls[*n].args[4] = int_arg(1);
      (*n)++;
    }
  return 0;
}

/* view(dtype): u viewed as the parent's dtype (in the standard layout first when the element size
 * changes: ops_view_replay_standard, the caller's part); the identity when the dtype is the
 * parent's. The view covers every byte of its parent, so the inverse view is the whole new parent. */
static int wb_inv_dtype(int what, const wb_ctx *c) {
  af_dtype to = (af_dtype)c->vargs[1].i;
  if (what == WB_IDENTITY) return to == c->pdtype;
  if (what == WB_STANDARD) return af_dtype_size(to) != af_dtype_size(c->pdtype);
  if (what != WB_INVERSE) return NO_RULE;
  one_call(&c->calls[*c->n], OPS_view_dtype);
  c->calls[*c->n].nargs = 2;
  c->calls[*c->n].args[1] = (ir_arg){.kind = IR_ARG_DTYPE, .i = (int64_t)c->pdtype, .value = -1};
  (*c->n)++;
  return 0;
}

/* view_as_complex and view_as_real: the same bytes as complex numbers or as (real, imaginary) pairs
 * along a last dim of 2, each the other's inverse. Both are replayed from the standard layout:
 * view_as_complex needs a last stride of 1, even strides and an even offset, which a functional
 * value need not have. */
static int complex_pair_inverse(int what, const wb_ctx *c, int inverse) {
  if (what == WB_IDENTITY) return 0;
  /* view_as_complex needs the standard layout: as a replay (view_as_complex itself) and as the inverse
     of view_as_real; view_as_real takes any layout */
  if (what == WB_STANDARD) return inverse == OPS_view_as_real;
  if (what == WB_STANDARD_INV) return inverse == OPS_view_as_complex;
  if (what != WB_INVERSE) return NO_RULE;
  one_call(&c->calls[*c->n], inverse);
  (*c->n)++;
  return 0;
}
static int wb_inv_as_real(int what, const wb_ctx *c) { return complex_pair_inverse(what, c, OPS_view_as_real); }
static int wb_inv_as_complex(int what, const wb_ctx *c) { return complex_pair_inverse(what, c, OPS_view_as_complex); }

/* alias, detach, contiguous (when it returns its input): the view is its input */
static int wb_identity(int what, const wb_ctx *c) {
  (void)c;
  return what == WB_IDENTITY ? 1 : NO_RULE;
}

/* as_strided: relative to the storage (as_strided_scatter on the storage; conv_ref does it) */
static int wb_storage(int what, const wb_ctx *c) {
  (void)c;
  return what == WB_IDENTITY ? 0 : NO_RULE;
}

/* unfold: no inverse in terms of its input; a writer scatters into the storage with the view's
 * strides */
static int wb_strided(int what, const wb_ctx *c) {
  (void)c;
  return what == WB_IDENTITY ? 0 : NO_RULE;
}

/* not a view */
static int wb_none(int what, const wb_ctx *c) {
  (void)c;
  return what == WB_IDENTITY ? 0 : NO_RULE;
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
