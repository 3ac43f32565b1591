/* rules_views.c - rule family: views (view, multi_view, meta, write_back in ops.def's family column):
 * the view rules and samplers, the shape-changing in-place ops (unsqueeze_, transpose_, as_strided_,
 * resize_), dtype and complex views, and the write-back scatters (slice_scatter, ...). Their
 * write-back rules are in ops_views.c. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

static int multi_view_range(int op, const ir_arg *a, const ops_meta *in, int64_t *dim, int64_t *start, int64_t *len, af_err *err);
static int dtype_view_layout(const ops_meta *in, af_dtype to, ops_meta *out, af_err *err);
static int complex_pairs_layout(const ops_meta *in, ops_meta *out, af_err *err);

/* ---- view rules ---- */

int shape_view_slice(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  return opk_v_slice(in, a[1].i, 1, a[2].i, 1, a[3].i, a[4].i, &e->out, err);
}

int shape_view_select(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return opk_v_select(in, st->args[1].i, st->args[2].i, &e->out, err);
}

int shape_view_narrow(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  if (in->rank == 0) return af_fail(err, "narrow() cannot be applied to a 0-dim tensor");
  int64_t dim, start = a[2].i, len = a[3].i;
  if (opk_wrapd(a[1].i, in->rank, &dim, err)) return -1;
  int64_t n = in->shape[dim];
  if (start < -n || start > n) return af_fail(err, "narrow(): start %lld out of range", (long long)start);
  if (start < 0) start += n;
  if (len < 0 || start + len > n) return af_fail(err, "narrow(): start (%lld) + length (%lld) exceeds dimension size (%lld)", (long long)start, (long long)len, (long long)n);
  return opk_v_slice(in, dim, 1, start, 1, start + len, 1, &e->out, err);
}

int shape_view_view(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return opk_v_view(in, st->args[1].n, st->args[1].ints, 0, &e->out, err) < 0 ? -1 : 0;
}

int shape_view_view_as(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  const ops_meta *t = META(st->args[1].value);
  return opk_v_view(in, t->rank, t->shape, 0, &e->out, err) < 0 ? -1 : 0;
}

int shape_view_reshape(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  int r = opk_v_view(in, st->args[1].n, st->args[1].ints, 1, &e->out, err);
  if (r < 0) return -1;
  if (r == 0) opk_copied(e);
  return 0;
}

int shape_view_flatten(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  int64_t s, t;
  if (opk_wrapd(a[1].i, in->rank, &s, err) || opk_wrapd(a[2].i, in->rank, &t, err)) return -1;
  if (s > t) return af_fail(err, "flatten() has invalid args: start_dim cannot come after end_dim");
  int64_t shape[AF_MAX_RANK];
  int n = 0;
  if (in->rank == 0) {
    shape[n++] = 1;
  } else {
    if (s == t) {
      e->out = *in;
      e->alias = OPS_ALIAS_SAME;
      return 1;
    }
    for (int d = 0; d < s; d++) shape[n++] = in->shape[d];
    int64_t p = 1;
    for (int64_t d = s; d <= t; d++) p *= in->shape[d];
    shape[n++] = p;
    for (int d = (int)t + 1; d < in->rank; d++) shape[n++] = in->shape[d];
  }
  int r = opk_v_view(in, n, shape, 1, &e->out, err);
  if (r < 0) return -1;
  if (r == 0) opk_copied(e);
  return 0;
}

int shape_view_unflatten(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  ops_meta *o = &e->out;
  if (in->rank == 0) return af_fail(err, "unflatten() cannot be applied to a 0-dim tensor");
  int64_t dim;
  if (opk_wrapd(a[1].i, in->rank, &dim, err)) return -1;
  if (a[2].n == 0) return af_fail(err, "unflatten: sizes must be non-empty");
  int64_t sz[AF_MAX_RANK];
  if (a[2].n > AF_MAX_RANK) return af_fail(err, "unflatten: too many sizes");
  if (opk_infer_size(a[2].n, a[2].ints, in->shape[dim], sz, err)) {
    af_err_prefix(err, "unflatten: provided sizes don't multiply up to the size of dim %lld", (long long)dim);
    return -1;
  }
  int64_t shape[2 * AF_MAX_RANK];
  int n = 0;
  for (int d = 0; d < dim; d++) shape[n++] = in->shape[d];
  for (int k = 0; k < a[2].n; k++) shape[n++] = sz[k];
  for (int d = (int)dim + 1; d < in->rank; d++) shape[n++] = in->shape[d];
  if (n > AF_MAX_RANK) return af_fail(err, "rank above the limit %d", AF_MAX_RANK);
  if (!in->exact) { /* splitting one dim is always a view; strides not modelled */
    *o = *in;
    o->rank = n;
    memcpy(o->shape, shape, sizeof(int64_t) * (size_t)n);
    return 1;
  }
  return opk_v_view(in, n, shape, 0, o, err) < 0 ? -1 : 0;
}

int shape_view_squeeze(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return opk_v_squeeze(in, st->args[1].i, &e->out, err);
}

int shape_view_unsqueeze(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  if (in->rank >= AF_MAX_RANK) return af_fail(err, "rank above the limit %d", AF_MAX_RANK);
  return opk_v_unsqueeze(in, st->args[1].i, &e->out, err);
}

/* transpose, swapaxes, swapdims */
int shape_view_transpose(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return opk_v_transpose(in, st->args[1].i, st->args[2].i, &e->out, err);
}

int shape_view_t(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)st, (void)env;
  return opk_v_t(in, &e->out, err);
}

int shape_view_permute(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return opk_v_permute(in, st->args[1].n, st->args[1].ints, &e->out, err);
}

int shape_view_movedim(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return opk_v_movedim(in, st->args[1].i, st->args[2].i, &e->out, err);
}

int shape_view_expand(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return opk_v_expand(in, st->args[1].n, st->args[1].ints, &e->out, err);
}

int shape_view_expand_as(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  const ops_meta *t = META(st->args[1].value);
  return opk_v_expand(in, t->rank, t->shape, &e->out, err);
}

int shape_view_diagonal(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  return opk_v_diagonal(in, a[1].i, a[2].i, a[3].i, &e->out, err);
}

int shape_view_as_strided(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  return opk_v_as_strided(in, env->storage_numel ? env->storage_numel(env->ctx, a[0].value) : ops_meta_extent(in), &a[1], &a[2],
                      a[3].i, &e->out, err);
}

int shape_view_unfold(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  if (in->rank >= AF_MAX_RANK) return af_fail(err, "rank above the limit %d", AF_MAX_RANK);
  return opk_v_unfold(in, a[1].i, a[2].i, a[3].i, &e->out, err);
}

/* detach, alias: the same layout */
int shape_view_alias(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  e->out = *in;
  return 0;
}

int shape_view_getitem(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  sub_info si;
  if (opk_infer_subscript(&st->args[1], in, env, &si, err)) return -1;
  e->out = si.result;
  if (si.nt) opk_copied(e);
  return 0;
}

int shape_view_unbind(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  int64_t dim, start, len;
  if (multi_view_range(st->op, st->args, in, &dim, &start, &len, err)) return -1;
  return opk_v_select(in, dim, start, &e->out, err);
}

/* split_get, chunk_get */
int shape_view_split(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  int64_t dim, start, len;
  if (multi_view_range(st->op, st->args, in, &dim, &start, &len, err)) return -1;
  return opk_v_slice(in, dim, 1, start, 1, start + len, 1, &e->out, err);
}

/* ---- shape-changing in place ---- */

/* unsqueeze_, squeeze_, transpose_ (swapaxes_, swapdims_), t_: self's new layout is what the
 * view of the same name gives (the META class differs from the VIEW one in what the dispatcher
 * does with e->out, not in the layout) */
int shape_meta_unsqueeze(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return shape_view_unsqueeze(st, env, self, e, err);
}

int shape_meta_squeeze(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return shape_view_squeeze(st, env, self, e, err);
}

int shape_meta_transpose(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return shape_view_transpose(st, env, self, e, err);
}

int shape_meta_t(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return shape_view_t(st, env, self, e, err);
}

int shape_meta_as_strided(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  int64_t storage = env->storage_numel ? env->storage_numel(env->ctx, a[0].value) : ops_meta_extent(self);
  if (opk_v_as_strided(self, storage, &a[1], &a[2], a[3].i, &e->out, err)) return -1;
  return 0;
}

int shape_meta_resize(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  ops_meta *o = &e->out;
  if (a[1].n > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", a[1].n, AF_MAX_RANK);
  for (int k = 0; k < a[1].n; k++)
    if (a[1].ints[k] < 0) return af_fail(err, "Trying to create tensor with negative dimension %lld", (long long)a[1].ints[k]);
  int64_t storage = env->storage_numel ? env->storage_numel(env->ctx, a[0].value) : ops_meta_extent(self);
  int64_t numel = ir_numel(a[1].n, a[1].ints);
  if (!self->exact) return af_fail(err, "resize_ of a tensor whose layout is not modelled");
  if (numel && self->offset + numel > storage)
    return af_fail(err, "resize_ that grows the storage (the new elements are uninitialized memory) is not generated");
  *o = *self;
  if (self->rank == a[1].n && !memcmp(self->shape, a[1].ints, sizeof(int64_t) * (size_t)a[1].n))
    return 0; /* the same sizes: ATen's resize_ returns self as it is, strides (a zero stride too) kept */
  o->rank = a[1].n;
  memcpy(o->shape, a[1].ints, sizeof(int64_t) * (size_t)a[1].n);
  opk_contig_strides(o->rank, o->shape, o->stride);
  o->nonoverlap = 1;
  return 0;
}

/* set_(source): self takes source's storage with source's sizes, strides and offset (ATen's set_tensor_:
 * self.set_(source.storage(), source.storage_offset(), source.sizes(), source.strides())). Eager refuses
 * another dtype ("Could not set tensor of type double to a tensor of type float": the storage keeps
 * self's dtype). x.set_(x) changes nothing. */
int shape_meta_set(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  if (a[1].kind != IR_ARG_VALUE) return af_fail(err, "%s", "set_ takes a tensor source");
  const ops_meta *src = META(a[1].value);
  if (src->dtype != self->dtype)
    return af_fail(err, "Could not set tensor of type %s to a tensor of type %s", af_dtype_name(src->dtype), af_dtype_name(self->dtype));
  e->out = *src;
  e->rebind = 1;
  return 0;
}

/* the write-back scatters: the slice of self they write must have src's shape */
enum { SC_SLICE, SC_SELECT, SC_DIAGONAL, SC_AS_STRIDED };

/* Elements as_strided_scatter's result may reach, for a self whose storage holds `storage`
 * elements (0: unknown): numel(self) (a dense clone: 1.13, or 2.x's for a zero stride), or 2.x's
 * copy of self's whole storage (clone_preserve_strides), which an overlapping self's numel may
 * exceed (as_strided_([2, 2, 3], [4, 1, 1]) of 10 elements). The smaller bound holds on both;
 * the rule and the sampler both take it. */
static int64_t scatter_room(const ops_meta *self, int64_t storage) {
  int64_t room = ops_meta_numel(self);
  return storage > 0 && storage < room ? storage : room;
}

static int scatter_rule(const ir_stmt *st, const ops_env *env, const ops_meta *self, int how, ops_meta *o, af_err *err) {
  const ir_arg *a = st->args;
  const ops_meta *src = META(a[1].value);
  ops_meta sl;
  ops_meta out0;
  opk_preserve_layout(self, &out0);
  int rc;
  if (how == SC_SLICE) rc = opk_v_slice(&out0, a[2].i, 1, a[3].i, 1, a[4].i, a[5].i, &sl, err);
  else if (how == SC_SELECT) rc = opk_v_select(&out0, a[2].i, a[3].i, &sl, err);
  else if (how == SC_DIAGONAL) rc = opk_v_diagonal(&out0, a[2].i, a[3].i, a[4].i, &sl, err);
  else {
    int64_t room = scatter_room(self, env->storage_numel ? env->storage_numel(env->ctx, a[0].value) : 0);
    rc = opk_v_as_strided(&out0, room, &a[2], &a[3], a[4].i, &sl, err);
    if (!rc && ops_meta_overlaps(&sl)) rc = af_fail(err, "as_strided_scatter into overlapping memory");
  }
  if (rc) return -1;
  if (!opk_shape_is(src, sl.rank, sl.shape)) return af_fail(err, "%s: expected src to have a size equal to the slice of self", ops_get(st->op)->name);
  *o = out0;
  /* PyTorch 2.x clones self keeping its sizes, strides and offset in a copy of its whole storage
     (clone_preserve_strides), falling back to a dense clone only for an overlap has_internal_overlap
     proves (a zero stride); other overlapping layouts (an unfold's, an as_strided's) stay: the
     result's elements may share memory, so nothing writes into it (1.13 clones densely) */
  if (ops_meta_overlaps(self)) o->exact = 0, o->nonoverlap = 0;
  return 0;
}

int shape_func_slice_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return scatter_rule(st, env, self, SC_SLICE, &e->out, err);
}

int shape_func_select_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return scatter_rule(st, env, self, SC_SELECT, &e->out, err);
}

int shape_func_diagonal_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return scatter_rule(st, env, self, SC_DIAGONAL, &e->out, err);
}

int shape_func_as_strided_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return scatter_rule(st, env, self, SC_AS_STRIDED, &e->out, err);
}

/* as_strided arguments within a storage of s elements; non-overlapping unless the overlap
 * decision says otherwise */
static void strided_args(const ops_chooser *ch, int64_t s, int64_t *size, int64_t *stride, int *k, int64_t *off) {
  int n = (int)R(1, 3);
  int perm[3] = {0, 1, 2};
  for (int i = n - 1; i > 0; i--) {
    int j = (int)R(0, i), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (int d = 0; d < n; d++) size[d] = R(1, 4);
  int64_t g = D(OPS_DECIDE_STEP) ? 2 : 1, cur = g;
  for (int i = n - 1; i >= 0; i--) {
    stride[perm[i]] = cur;
    cur *= size[perm[i]];
  }
  if (D(OPS_DECIDE_OVERLAP)) { /* two draws, in this order (an assignment's sides are unsequenced) */
    int64_t d = R(0, n - 1);
    stride[d] = R(0, 1);
  }
  for (;;) {
    ops_meta t;
    memset(&t, 0, sizeof t);
    t.rank = n;
    memcpy(t.shape, size, sizeof(int64_t) * (size_t)n);
    memcpy(t.stride, stride, sizeof(int64_t) * (size_t)n);
    if (ops_meta_extent(&t) <= s && ir_numel(n, size) <= ch->max_numel) break;
    int big = 0;
    for (int d = 1; d < n; d++)
      if (size[d] > size[big]) big = d;
    if (size[big] == 1) break;
    size[big]--;
  }
  ops_meta t;
  memset(&t, 0, sizeof t);
  t.rank = n;
  memcpy(t.shape, size, sizeof(int64_t) * (size_t)n);
  memcpy(t.stride, stride, sizeof(int64_t) * (size_t)n);
  int64_t ext = ops_meta_extent(&t);
  *off = ext <= s ? R(0, s - ext) : 0;
  *k = n;
}

/* ---- samplers ---- */

SAMPLER(slice) {
  SAMPLER_BEGIN;
  if (!r) return -1;
  int64_t dim = R(0, r - 1), len = m->shape[dim], s = R(0, len - 1), t = R(s + 1, len);
  int64_t step = D(OPS_DECIDE_STEP) ? R(2, 3) : 1;
  if (D(OPS_DECIDE_NEG_INDEX)) {
    s -= len;
    if (t < len) t -= len;
  }
  if (t == len && D(OPS_DECIDE_EDGE)) t = len + R(1, 5);
  args[1] = a_int(dim), args[2] = a_int(s), args[3] = a_int(t), args[4] = a_int(step);
  return n;
}

SAMPLER(select) {
  SAMPLER_BEGIN;
  if (!r) return -1;
  int64_t dim = R(0, r - 1), len = m->shape[dim], i = R(0, len - 1);
  if (D(OPS_DECIDE_NEG_INDEX)) i -= len;
  args[1] = a_int(dim), args[2] = a_int(i);
  return n;
}

SAMPLER(narrow) {
  SAMPLER_BEGIN;
  if (!r) return -1;
  int64_t dim = opk_pick_dim(ch, r, 1), len = m->shape[dim < 0 ? dim + r : dim], s = R(0, len - 1), l = R(1, len - s);
  if (D(OPS_DECIDE_NEG_INDEX)) s -= len;
  args[1] = a_int(dim), args[2] = a_int(s), args[3] = a_int(l);
  return n;
}

SAMPLER(view) {
  SAMPLER_BEGIN;
  if (!m->exact) return -1;
  int k = opk_view_shape(ch, m, 1, sh);
  if (k > ch->max_rank) return -1;
  args[1] = opk_a_ints(k, sh);
  return n;
}

SAMPLER(reshape) {
  SAMPLER_BEGIN;
  int k = opk_view_shape(ch, m, D(OPS_DECIDE_VIEW_SHAPE), sh);
  if (k > ch->max_rank) return -1;
  args[1] = opk_a_ints(k, sh);
  return n;
}

SAMPLER(flatten) {
  SAMPLER_BEGIN;
  int64_t s, t;
  if (r == 0) {
    s = R(-1, 0), t = s;
  } else {
    if (r >= 2 && !D(OPS_DECIDE_EDGE)) { /* start < end: a view or a copy */
      s = R(0, r - 2);
      t = R(s + 1, r - 1);
    } else { /* start == end returns self */
      s = R(0, r - 1);
      t = s;
    }
    if (D(OPS_DECIDE_NEG_DIM)) s -= r;
    if (D(OPS_DECIDE_NEG_DIM)) t -= r;
  }
  args[1] = a_int(s), args[2] = a_int(t);
  return n;
}

SAMPLER(unflatten) {
  SAMPLER_BEGIN;
  if (!r || r >= ch->max_rank) return -1;
  int64_t dim = opk_pick_dim(ch, r, 1), len = m->shape[dim < 0 ? dim + r : dim];
  int k = opk_factor(ch, len, 2, sh);
  if (D(OPS_DECIDE_MINUS_ONE)) sh[R(0, 1)] = -1;
  args[1] = a_int(dim), args[2] = opk_a_ints(k, sh);
  return n;
}

/* squeeze(d), squeeze_(d): a size-1 dim most of the time */
SAMPLER(squeeze) {
  SAMPLER_BEGIN;
  int64_t dim = opk_pick_dim(ch, r, 1);
  for (int d = 0; d < r; d++)
    if (m->shape[d] == 1 && R(0, 2)) dim = d;
  args[1] = a_int(dim);
  return n;
}

SAMPLER(unsqueeze) {
  SAMPLER_BEGIN;
  if (r >= ch->max_rank) return -1;
  int64_t dim = R(0, r);
  if (D(OPS_DECIDE_NEG_DIM)) dim -= r + 1;
  args[1] = a_int(dim);
  return n;
}

SAMPLER(transpose) {
  SAMPLER_BEGIN;
  int64_t d0 = opk_pick_dim(ch, r, 1), d1 = opk_pick_dim(ch, r, 1);
  if (r >= 2 && !D(OPS_DECIDE_EDGE)) {
    /* bounded: in byte mode, once the bytes run out pick_dim returns 0 forever (found by
     * fuzz_ref: a 13-byte input hung the generator) */
    for (int k = 0; k < 64 && (d0 < 0 ? d0 + r : d0) == (d1 < 0 ? d1 + r : d1); k++) d1 = opk_pick_dim(ch, r, 1);
    if ((d0 < 0 ? d0 + r : d0) == (d1 < 0 ? d1 + r : d1)) d1 = ((d0 < 0 ? d0 + r : d0) + 1) % r;
  }
  args[1] = a_int(d0), args[2] = a_int(d1);
  return n;
}

SAMPLER(t) {
  SAMPLER_BEGIN;
  return r <= 2 ? n : -1;
}

SAMPLER(permute) {
  SAMPLER_BEGIN;
  for (int d = 0; d < r; d++) sh[d] = d;
  for (int d = r - 1; d > 0; d--) {
    int j = (int)R(0, d);
    int64_t t = sh[d];
    sh[d] = sh[j];
    sh[j] = t;
  }
  for (int d = 0; d < r; d++)
    if (D(OPS_DECIDE_NEG_DIM)) sh[d] -= r;
  args[1] = opk_a_ints(r, sh);
  return n;
}

SAMPLER(movedim) {
  SAMPLER_BEGIN;
  args[1] = a_int(opk_pick_dim(ch, r, 1)), args[2] = a_int(opk_pick_dim(ch, r, 1));
  return n;
}

SAMPLER(expand) {
  SAMPLER_BEGIN;
  int k = opk_expand_shape(ch, m, D(OPS_DECIDE_TRIVIAL_EXPAND), sh);
  if (D(OPS_DECIDE_MINUS_ONE))
    for (int d = k - r; d < k; d++)
      if (sh[d] == m->shape[d - (k - r)] && R(0, 1)) sh[d] = -1;
  args[1] = opk_a_ints(k, sh);
  return n;
}

SAMPLER(expand_as) {
  SAMPLER_BEGIN;
  ops_req q;
  if (D(OPS_DECIDE_TRIVIAL_EXPAND)) {
    q = opk_req(OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_ANY, -1, 0);
  } else {
    q = opk_req(OPS_REQ_EXPANDED, r, m->shape, m->dtype, OPS_DT_ANY, -1, 0);
    q.rank2 = opk_expand_shape(ch, m, 0, q.shape2);
    q.numel_max = ch->max_numel;
  }
  int v = opk_tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(view_as) {
  SAMPLER_BEGIN;
  if (!m->exact) return -1;
  ops_req q = opk_req(OPS_REQ_VIEWABLE, r, m->shape, m->dtype, OPS_DT_ANY, -1, 0);
  q.ref = m;
  q.rank2 = opk_view_shape(ch, m, 1, q.shape2);
  { /* resolve a -1 */
    int64_t prod = 1;
    int neg = -1;
    for (int d = 0; d < q.rank2; d++) {
      if (q.shape2[d] < 0) neg = d;
      else prod *= q.shape2[d];
    }
    if (neg >= 0) q.shape2[neg] = ops_meta_numel(m) / prod;
  }
  if (q.rank2 > ch->max_rank) return -1;
  int v = opk_tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(diagonal) {
  SAMPLER_BEGIN;
  if (r < 2) return -1;
  int64_t d1 = R(0, r - 1), d2 = R(0, r - 2);
  if (d2 >= d1) d2++;
  int64_t off = R(-(m->shape[d1] - 1), m->shape[d2] - 1);
  if (D(OPS_DECIDE_NEG_DIM)) d1 -= r;
  if (D(OPS_DECIDE_NEG_DIM)) d2 -= r;
  args[1] = a_int(off), args[2] = a_int(d1), args[3] = a_int(d2);
  return n;
}

/* as_strided, as_strided_ within the storage */
SAMPLER(as_strided) {
  SAMPLER_BEGIN;
  if (ops_get(op)->kind != OPS_VIEW && !opk_dt_drawable(op, m)) return -1;
  int64_t size[3], stride[3], off;
  int k;
  strided_args(ch, storage, size, stride, &k, &off);
  args[1] = opk_a_ints(k, size), args[2] = opk_a_ints(k, stride), args[3] = a_int(off);
  return n;
}

SAMPLER(unfold) {
  SAMPLER_BEGIN;
  if (r >= ch->max_rank) return -1;
  int64_t dim = opk_pick_dim(ch, r, 1), len = r ? m->shape[dim < 0 ? dim + r : dim] : 1;
  int64_t size = R(1, len), step = D(OPS_DECIDE_OVERLAP) ? R(1, size) : R(size, size + 1);
  if (ops_meta_numel(m) / (len ? len : 1) * ((len - size) / step + 1) * size > ch->max_numel) return -1;
  args[1] = a_int(dim), args[2] = a_int(size), args[3] = a_int(step);
  return n;
}

SAMPLER(getitem) {
  SAMPLER_BEGIN;
  ops_meta res;
  int adv;
  if (opk_subscript(ch, m, 0, 0, 0, &args[1], &res, &adv)) return -1;
  return n;
}

/* swapaxes, swapdims and their in-place forms */
SAMPLER(swap) {
  SAMPLER_BEGIN;
  if (ops_get(op)->kind != OPS_VIEW && !opk_dt_drawable(op, m)) return -1;
  int64_t d0 = opk_pick_dim(ch, r, 1), d1 = opk_pick_dim(ch, r, 1);
  if (r >= 2 && !D(OPS_DECIDE_EDGE) && (d0 < 0 ? d0 + r : d0) == (d1 < 0 ? d1 + r : d1))
    d1 = ((d0 < 0 ? d0 + r : d0) + 1) % r;
  args[1] = a_int(d0), args[2] = a_int(d1);
  return n;
}

/* split/chunk/unbind element arguments */
SAMPLER(multi_view) {
  SAMPLER_BEGIN;
  if (m->rank == 0) return -1;
  int64_t dim = opk_pick_dim(ch, m->rank, 1), len = m->shape[dim < 0 ? dim + m->rank : dim];
  if (len == 0) return -1;
  int64_t count, k;
  int unbind = ops_get(op)->nargs == 3; /* unbind(dim)[k]; split(size, dim)[k], chunk(chunks, dim)[k] */
  if (unbind) {
    count = len;
    args[1] = a_int(dim);
  } else if (op == OPS_split_get) {
    int64_t size = R(1, D(OPS_DECIDE_EDGE) ? len + 1 : len);
    count = (len + size - 1) / size;
    args[1] = a_int(size), args[2] = a_int(dim);
  } else {
    int64_t c = R(1, D(OPS_DECIDE_EDGE) ? len + 1 : len), size = (len + c - 1) / c;
    count = (len + size - 1) / size;
    args[1] = a_int(c), args[2] = a_int(dim);
  }
  k = R(0, count - 1);
  if (D(OPS_DECIDE_NEG_INDEX)) k -= count;
  args[unbind ? 2 : 3] = a_int(k);
  return n;
}

/* x.view(dtype): of a float or integer tensor (float32, float64, float16, bfloat16, int64, int32, int8,
 * uint8), any other of those dtypes of any width the rule accepts for x's layout, within the numel
 * limit; of a bool tensor, uint8 or int8; of a uint8 or int8 tensor, bool too. What the bits then
 * mean is the generator's to keep defined (fuzz/gen.c reinterpret_ok): a bool view only of a
 * storage whose base is bool (its bytes are 0 or 1), and no write through a view of another kind
 * than its storage's base (no float computed into an integer storage, no byte but 0 or 1 into a
 * bool one). An integer read as floats may be a NaN or an infinity (a negative int) or a subnormal
 * (a small positive one): the generator counts such a float view inexact (no discontinuous op and
 * no later dtype view reads it), and the oracle takes any two non-finite values as equal
 * (oracle.h), so a NaN's bits, which kernels keep differently, never make a finding. x's own dtype is left to hand-written cases (whether eager then gives x itself or a new
 * tensor depends on the dispatch keys) */
SAMPLER(view_dtype) {
  SAMPLER_BEGIN;
  static const af_dtype nums[] = {AF_FLOAT32, AF_FLOAT64, AF_FLOAT16, AF_BFLOAT16, AF_INT64, AF_INT32, AF_INT8, AF_UINT8, AF_BOOL};
  static const af_dtype bytes[] = {AF_UINT8, AF_INT8};
  int from_bool = m->dtype == AF_BOOL, byte = m->dtype == AF_UINT8 || m->dtype == AF_INT8;
  if (!from_bool && !is_float(m->dtype) && !is_int(m->dtype)) return -1;
  const af_dtype *dts = from_bool ? bytes : nums;
  int nd = from_bool ? 2 : byte ? 9 : 8, first = (int)R(0, nd - 1);
  for (int k = 0; k < nd; k++) {
    af_dtype to = dts[(first + k) % nd];
    ops_meta out;
    af_err ignored;
    if (to == m->dtype || dtype_view_layout(m, to, &out, &ignored) || ops_meta_numel(&out) > ch->max_numel) continue;
    args[1] = (ir_arg){.kind = IR_ARG_DTYPE, .i = (int64_t)to};
    return n;
  }
  return -1;
}

/* torch.view_as_complex(x) of a float32 or float64 x whose layout the rule accepts (a last dim of 2
 * with stride 1, even strides and offset); torch.view_as_real(z) of any complex z */
SAMPLER(as_complex) {
  SAMPLER_BEGIN;
  ops_meta out;
  af_err ignored;
  if ((m->dtype != AF_FLOAT32 && m->dtype != AF_FLOAT64) || complex_pairs_layout(m, &out, &ignored)) return -1;
  return n;
}

SAMPLER(as_real) {
  SAMPLER_BEGIN;
  return af_dtype_is_complex(m->dtype) && r < AF_MAX_RANK && m->exact ? n : -1;
}

SAMPLER(resize) { /* shrink within the storage: a prefix of the memory, contiguous */
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  int64_t room = storage - m->offset, numel = ops_meta_numel(m), cap = numel < room ? numel : room;
  if (cap < 1 || !m->exact) return -1;
  int64_t want = R(1, cap), s3[3];
  int k = opk_factor(ch, want, (int)R(1, 3), s3);
  args[1] = opk_a_ints(k, s3);
  return n;
}

SAMPLER(set) { /* a source of self's dtype: half the time of self's shape, else of any small shape */
  SAMPLER_BEGIN;
  int k = r;
  memcpy(sh, m->shape, sizeof(int64_t) * (size_t)r);
  if (R(0, 1)) {
    k = (int)R(0, ch->max_rank < 3 ? ch->max_rank : 3);
    int64_t numel = 1;
    for (int d = 0; d < k; d++) {
      sh[d] = R(1, 4);
      if (numel * sh[d] > ch->max_numel) sh[d] = 1;
      numel *= sh[d];
    }
  }
  ops_req q = opk_req(OPS_REQ_ANY, k, sh, m->dtype, OPS_DT_SAME, p, 0);
  int v = opk_tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

/* the write-back scatters: a src of the shape of the slice they write */
static int scatter_args(int how, const ops_meta *m, int64_t storage, const ops_chooser *ch, ir_arg *args, int n) {
  int r = m->rank;
  ops_meta base, sl;
  opk_preserve_layout(m, &base);
  af_err err;
  int rc;
  if (how == SC_SLICE) {
    if (!r) return -1;
    int64_t dim = opk_pick_dim(ch, r, 1), len = m->shape[dim < 0 ? dim + r : dim], s = R(0, len - 1), t = R(s + 1, len);
    int64_t step = D(OPS_DECIDE_STEP) ? R(2, 3) : 1;
    args[2] = a_int(dim), args[3] = a_int(s), args[4] = a_int(t), args[5] = a_int(step);
    rc = opk_v_slice(&base, dim, 1, s, 1, t, step, &sl, &err);
  } else if (how == SC_SELECT) {
    if (!r) return -1;
    int64_t dim = opk_pick_dim(ch, r, 1), len = m->shape[dim < 0 ? dim + r : dim], i = R(0, len - 1);
    args[2] = a_int(dim), args[3] = a_int(i);
    rc = opk_v_select(&base, dim, i, &sl, &err);
  } else if (how == SC_DIAGONAL) {
    if (r < 2) return -1;
    int64_t d1 = R(0, r - 1), d2 = R(0, r - 2);
    if (d2 >= d1) d2++;
    int64_t off = R(-(m->shape[d1] - 1), m->shape[d2] - 1);
    args[2] = a_int(off), args[3] = a_int(d1), args[4] = a_int(d2);
    rc = opk_v_diagonal(&base, off, d1, d2, &sl, &err);
  } else {
    int64_t size[3], stride[3], off;
    int k;
    int64_t room = scatter_room(m, storage);
    strided_args(ch, room, size, stride, &k, &off);
    for (int d = 0; d < k; d++)
      if (stride[d] == 0) stride[d] = 1; /* never overlapping here */
    args[2] = opk_a_ints(k, size), args[3] = opk_a_ints(k, stride), args[4] = a_int(off);
    rc = opk_v_as_strided(&base, room, &args[2], &args[3], off, &sl, &err);
    if (!rc && ops_meta_overlaps(&sl)) rc = -1;
  }
  if (rc) goto fail_free;
  ops_req q = opk_req(OPS_REQ_SHAPE, sl.rank, sl.shape, m->dtype, OPS_DT_SAME, -1, 0);
  int v = opk_tensor(ch, &q);
  if (v < 0) goto fail_free;
  args[1] = a_value(v);
  return n;
fail_free:
  for (int k = 0; k < n; k++) ir_arg_free(&args[k]);
  return -1;
}

SAMPLER(slice_scatter) {
  SAMPLER_BEGIN;
  return scatter_args(SC_SLICE, m, storage, ch, args, n);
}

SAMPLER(select_scatter) {
  SAMPLER_BEGIN;
  return scatter_args(SC_SELECT, m, storage, ch, args, n);
}

SAMPLER(diagonal_scatter) {
  SAMPLER_BEGIN;
  return scatter_args(SC_DIAGONAL, m, storage, ch, args, n);
}

SAMPLER(as_strided_scatter) {
  SAMPLER_BEGIN;
  return scatter_args(SC_AS_STRIDED, m, storage, ch, args, n);
}

/* split/chunk/unbind element k: the dim, start and length it covers (a narrow). */
int ops_multi_view_range(int op, const ir_arg *args, int rank, const int64_t *shape, int64_t *dim, int64_t *start,
                         int64_t *len, af_err *err) {
  ops_meta m;
  if (rank > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", rank, AF_MAX_RANK);
  ops_meta_init(&m, AF_FLOAT32, rank, shape);
  return multi_view_range(op, args, &m, dim, start, len, err);
}

static int multi_view_range(int op, const ir_arg *a, const ops_meta *in, int64_t *dim, int64_t *start, int64_t *len, af_err *err) {
  if (in->rank == 0) return af_fail(err, "%s of a 0-dim tensor", ops_get(op)->name);
  int64_t n, size, count, k;
  if (opk_wrapd(op == OPS_unbind_get ? a[1].i : a[2].i, in->rank, dim, err)) return -1;
  n = in->shape[*dim];
  if (op == OPS_unbind_get) {
    size = 1;
    count = n;
    k = a[2].i;
  } else if (op == OPS_split_get) {
    size = a[1].i;
    if (size <= 0) return af_fail(err, "split expects split_size be non-negative and not 0 here, but got %lld", (long long)size);
    count = n == 0 ? 1 : (n + size - 1) / size;
    k = a[3].i;
  } else {
    if (a[1].i <= 0) return af_fail(err, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)a[1].i);
    if (n == 0) return af_fail(err, "chunk of an empty dim is not modelled");
    size = (n + a[1].i - 1) / a[1].i;
    count = (n + size - 1) / size;
    k = a[3].i;
  }
  if (k < -count || k >= count) return af_fail(err, "IndexError: list index %lld out of range (%lld results)", (long long)k, (long long)count);
  if (k < 0) k += count;
  *start = k * size;
  *len = n - *start < size ? n - *start : size;
  return 0;
}

/* ---- squeeze() / squeeze_(): every size-1 dim dropped ---- */

static void squeeze_all(const ops_meta *in, ops_meta *o) {
  *o = *in;
  for (int d = in->rank - 1; d >= 0; d--)
    if (in->shape[d] == 1) opk_drop_dim(o, d);
}

int shape_view_squeeze_all(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  squeeze_all(in, &e->out);
  return 0;
}

int shape_meta_squeeze_all(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  squeeze_all(self, &e->out);
  return 0;
}

/* x.view(dtype): the same bytes read as dtype `to` (ATen's view_dtype; 1.13 and 2.13 accept and
 * refuse alike). The same element size keeps the layout. Another size needs rank >= 1 and the last
 * dim's stride 1: a smaller element multiplies the last size, the offset and every other stride by
 * the ratio; a larger one divides them, each of them divisible by the ratio (the other strides even
 * where their dim has size 1 or 0). */
static int dtype_view_layout(const ops_meta *in, af_dtype to, ops_meta *out, af_err *err) {
  const char *a = af_dtype_name(in->dtype), *b = af_dtype_name(to);
  int64_t from = (int64_t)af_dtype_size(in->dtype), into = (int64_t)af_dtype_size(to);
  *out = *in;
  out->dtype = to;
  if (from == into) return 0;
  if (in->rank == 0) return af_fail(err, "self.dim() cannot be 0 to view %s as %s (different element sizes)", a, b);
  if (!in->exact) return af_fail(err, "view(%s) of a %s tensor whose strides are not modelled exactly", b, a);
  int last = in->rank - 1;
  if (in->stride[last] != 1)
    return af_fail(err, "self.stride(-1) must be 1 to view %s as %s (different element sizes), but got %lld", a, b,
                   (long long)in->stride[last]);
  if (from > into) {
    int64_t k = from / into;
    out->shape[last] *= k;
    out->offset *= k;
    for (int d = 0; d < last; d++) out->stride[d] *= k;
    return 0;
  }
  int64_t k = into / from;
  if (in->shape[last] % k)
    return af_fail(err, "self.size(-1) must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                   (long long)k, a, b, (long long)in->shape[last]);
  if (in->offset % k)
    return af_fail(err, "self.storage_offset() must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                   (long long)k, a, b, (long long)in->offset);
  for (int d = 0; d < last; d++)
    if (in->stride[d] % k)
      return af_fail(err, "self.stride(%d) must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                     d, (long long)k, a, b, (long long)in->stride[d]);
  out->shape[last] /= k;
  out->offset /= k;
  for (int d = 0; d < last; d++) out->stride[d] /= k;
  return 0;
}

int shape_view_dtype(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  af_dtype to = (af_dtype)st->args[1].i;
  if (dtype_view_layout(in, to, &e->out, err)) return -1;
  /* a storage whose bytes are no whole number of the view's elements: eager views it, but ops that
     size their work by the storage (as_strided_scatter of the view) fail an internal assert */
  int64_t bytes = env->storage_numel ? env->storage_numel(env->ctx, st->args[0].value) * (int64_t)af_dtype_size(in->dtype) : 0;
  if (bytes % (int64_t)af_dtype_size(to))
    return af_fail(err, "view(%s) of a storage of %lld bytes is not generated (no whole number of elements: as_strided_scatter "
                   "of it fails 'nbytes %% dtype_size == 0')", af_dtype_name(to), (long long)bytes);
  return 0;
}

/* torch.view_as_complex(x): a float32 (float64) x read as complex64 (complex128) pairs along its last
 * dim, which must have size 2 and stride 1; the last dim goes and the other strides and the offset
 * halve, each of them even (ATen's view_as_complex, alike on 1.13 and 2.13: every other stride, of
 * size-1 dims too). float16 (complex32) is not modelled. torch.view_as_real(z): any complex z, its
 * numbers as a last dim of 2 with stride 1, the other strides and the offset doubled. */
static int complex_pairs_layout(const ops_meta *in, ops_meta *out, af_err *err) {
  if (in->dtype != AF_FLOAT32 && in->dtype != AF_FLOAT64)
    return af_fail(err, "view_as_complex is only supported for float and double tensors (float16's complex32 is not "
                   "modelled), but got a tensor of scalar type: %s", af_dtype_name(in->dtype));
  if (in->rank == 0) return af_fail(err, "view_as_complex: Input tensor must have one or more dimensions");
  if (!in->exact) return af_fail(err, "view_as_complex of a tensor whose strides are not modelled exactly");
  int last = in->rank - 1;
  if (in->shape[last] != 2) return af_fail(err, "Tensor must have a last dimension of size 2");
  if (in->stride[last] != 1) return af_fail(err, "Tensor must have a last dimension with stride 1");
  for (int d = 0; d < last; d++)
    if (in->stride[d] % 2) return af_fail(err, "Tensor must have a stride divisible by 2 for all but last dimension");
  if (in->offset % 2) return af_fail(err, "Tensor must have a storage_offset divisible by 2");
  *out = *in;
  out->dtype = in->dtype == AF_FLOAT32 ? AF_COMPLEX64 : AF_COMPLEX128;
  out->rank = last;
  out->offset /= 2;
  for (int d = 0; d < last; d++) out->stride[d] /= 2;
  return 0;
}

int shape_view_as_complex(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  if (complex_pairs_layout(in, &e->out, err)) return -1;
  /* as for view(dtype): a storage of an odd number of floats holds no whole number of pairs, and
     ops that size their work by the storage fail on it */
  int64_t n = env->storage_numel ? env->storage_numel(env->ctx, st->args[0].value) : 0;
  if (n % 2)
    return af_fail(err, "view_as_complex of a storage of %lld %s elements is not generated (no whole number of pairs)",
                   (long long)n, af_dtype_name(in->dtype));
  return 0;
}

int shape_view_as_real(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)st, (void)env;
  if (!af_dtype_is_complex(in->dtype)) return af_fail(err, "view_as_real is only supported for complex tensors");
  if (in->rank >= AF_MAX_RANK) return af_fail(err, "view_as_real of a rank-%d tensor: more than %d dims", in->rank, AF_MAX_RANK);
  if (!in->exact) return af_fail(err, "view_as_real of a tensor whose strides are not modelled exactly");
  e->out = *in;
  e->out.dtype = in->dtype == AF_COMPLEX64 ? AF_FLOAT32 : AF_FLOAT64;
  for (int d = 0; d < in->rank; d++) e->out.stride[d] *= 2;
  e->out.shape[in->rank] = 2;
  e->out.stride[in->rank] = 1;
  e->out.rank = in->rank + 1;
  e->out.offset *= 2;
  return 0;
}
