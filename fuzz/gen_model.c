/* gen_model.c - see gen_model.h. */
#include "gen_model.h"

#include <stdlib.h>
#include <string.h>

static const ops_meta *cb_meta(void *ctx, int v) { return gen_model_meta(ctx, v); }
static int cb_overlap(void *ctx, int a, int b) { return gen_model_overlap(ctx, a, b); }
static int64_t cb_storage(void *ctx, int v) { return gen_model_storage_numel(ctx, v); }
static const double *cb_data(void *ctx, int v, int64_t *n) {
  const gen_model *mo = ctx;
  int in = mo->impls[mo->impl_of[v]].depth == 0 ? mo->stor[mo->impls[mo->impl_of[v]].storage].input : -1;
  if (in < 0 || mo->p->inputs[in].value != v || !mo->p->inputs[in].ndata) return NULL;
  *n = mo->p->inputs[in].ndata;
  return mo->p->inputs[in].data;
}

/* Makes room for values 0..v (impl_of and flags), without counting them as the model's. */
static void reserve_vals(gen_model *mo, int v) {
  if (v < mo->capv) return;
  int cap = mo->capv ? mo->capv : 32;
  while (cap <= v) cap *= 2;
  mo->impl_of = af_xrealloc(mo->impl_of, sizeof(int) * (size_t)cap);
  mo->flags = af_xrealloc(mo->flags, (size_t)cap);
  for (int k = mo->capv; k < cap; k++) {
    mo->impl_of[k] = -1;
    mo->flags[k] = 0;
  }
  mo->capv = cap;
}

static void grow_vals(gen_model *mo, int v) {
  reserve_vals(mo, v);
  if (v >= mo->nvals) mo->nvals = v + 1;
}

void gen_model_init(gen_model *mo, const ir_program *p) {
  memset(mo, 0, sizeof *mo);
  mo->p = p;
  mo->env = (ops_env){.ctx = mo, .meta = cb_meta, .overlap = cb_overlap, .storage_numel = cb_storage, .data = cb_data};
  /* a replay of a whole program (gen_cov.c, ref's checks) reads impl_of of any value, int values
     (sizes, loop variables) included, which no statement of the model ever adds */
  if (p->nvalues > 0) reserve_vals(mo, p->nvalues - 1);
  for (int i = 0; i < p->ninputs; i++) gen_model_add_input(mo, i);
}

void gen_model_free(gen_model *mo) {
  for (int v = 0; v < mo->caplst; v++) free(mo->lst[v]);
  free(mo->lst);
  free(mo->nlst);
  free(mo->impl_of);
  free(mo->flags);
  free(mo->impls);
  free(mo->stor);
  memset(mo, 0, sizeof *mo);
}

static int new_storage(gen_model *mo, int64_t numel, af_dtype dt, int input) {
  if (mo->nstor == mo->caps) {
    mo->caps = mo->caps ? mo->caps * 2 : 16;
    mo->stor = af_xrealloc(mo->stor, sizeof(gen_storage) * (size_t)mo->caps);
  }
  gen_storage *s = &mo->stor[mo->nstor];
  memset(s, 0, sizeof *s);
  s->numel = numel;
  s->esize = (int)af_dtype_size(dt);
  s->input = input;
  s->base = -1;
  s->written_via_view = -1;
  s->writer = -1;
  return mo->nstor++;
}

static int new_impl(gen_model *mo, const ops_meta *m, int storage, int view_op, int parent) {
  if (mo->nimpl == mo->capi) {
    mo->capi = mo->capi ? mo->capi * 2 : 32;
    mo->impls = af_xrealloc(mo->impls, sizeof(gen_impl) * (size_t)mo->capi);
  }
  gen_impl *im = &mo->impls[mo->nimpl];
  im->m = *m;
  im->storage = storage;
  im->view_op = view_op;
  im->parent = parent;
  im->depth = parent >= 0 ? mo->impls[parent].depth + 1 : 0;
  if (parent < 0) mo->stor[storage].base = mo->nimpl;
  else mo->stor[storage].nviews++;
  return mo->nimpl++;
}

void gen_model_add_input(gen_model *mo, int i) {
  const ir_input *in = &mo->p->inputs[i];
  int value = in->value;
  ops_meta m;
  ops_meta_init(&m, in->dtype, in->rank, in->shape);
  grow_vals(mo, value);
  if (in->base > 0) { /* a view of a base (an input layout): its strides and offset in the base's storage, which
                         inputs of the same base share */
    for (int d = 0; d < m.rank; d++) m.stride[d] = in->strides[d];
    m.offset = in->offset;
    m.nonoverlap = !ops_meta_overlaps(&m);
    for (int j = 0; j < i; j++)
      if (mo->p->inputs[j].base == in->base && mo->impl_of[mo->p->inputs[j].value] >= 0) {
        int first = mo->impl_of[mo->p->inputs[j].value];
        mo->impl_of[value] = new_impl(mo, &m, mo->impls[first].storage, -1, first);
        return;
      }
    int s = new_storage(mo, mo->p->bases[in->base - 1].numel, in->dtype, i);
    mo->impl_of[value] = new_impl(mo, &m, s, -1, -1);
    return;
  }
  int s = new_storage(mo, ir_numel(in->rank, in->shape), in->dtype, i);
  mo->impl_of[value] = new_impl(mo, &m, s, -1, -1);
}

/* set_: impl x (every name of it, list members too) now views y's storage with y's layout (already
 * in x's m), as y.alias() would: parent y, one deeper. Views of x taken before keep their storage
 * (their parent is still x; the old storage keeps x as its base, whose dtype set_ keeps). x.set_(y)
 * for a y on x's own storage (x itself, a view of x) moves nothing: x keeps its place in the chain. */
static void rebind(gen_model *mo, int x, const ir_arg *src) {
  int y = src->kind == IR_ARG_VALUE ? mo->impl_of[src->value] : -1;
  if (y < 0 || mo->impls[y].storage == mo->impls[x].storage) return;
  int parent = y;
  for (int i = y; i >= 0; i = mo->impls[i].parent) /* no cycle: a view of x made before moved with x before */
    if (i == x) parent = -1;
  gen_impl *im = &mo->impls[x];
  im->storage = mo->impls[y].storage;
  im->parent = parent;
  im->depth = mo->impls[y].depth + 1;
  im->view_op = -1; /* no view op made it */
  mo->stor[im->storage].nviews++;
}

void gen_model_apply(gen_model *mo, int s, const ops_effect *e) {
  const ir_stmt *st = &mo->p->stmts[s];
  const ir_arg *a0 = &st->args[e->alias_arg];
  /* the aliased argument may be an int value (arange(n)): no impl (its slot is there: gen_model_init
     reserves every value of a whole program, gen_model_set_flag an int value the generator adds) */
  int src = a0->kind == IR_ARG_VALUE ? mo->impl_of[a0->value] : -1;
  if (src >= 0 && e->meta_change) mo->impls[src].m = e->out;
  if (src >= 0 && e->rebind > 0 && e->rebind < st->nargs) rebind(mo, src, &st->args[e->rebind]);
  if (st->out < 0) return;
  grow_vals(mo, st->out);
  switch (e->alias) {
    case OPS_ALIAS_SAME:
      mo->impl_of[st->out] = src;
      break;
    case OPS_ALIAS_VIEW:
      mo->impl_of[st->out] = new_impl(mo, &e->out, mo->impls[src].storage, st->op, src);
      break;
    case OPS_ALIAS_FRESH: {
      int64_t n = e->storage_numel > 0 ? e->storage_numel : ops_meta_numel(&e->out);
      mo->impl_of[st->out] = new_impl(mo, &e->out, new_storage(mo, n, e->out.dtype, -1), -1, -1);
      break;
    }
  }
}

void gen_model_apply_unknown(gen_model *mo, int s) {
  const ir_stmt *st = &mo->p->stmts[s];
  if (st->out < 0) return;
  grow_vals(mo, st->out);
  ops_meta m;
  ops_meta_init(&m, AF_FLOAT32, 0, NULL);
  m.known = 0;
  m.exact = 0;
  m.nonoverlap = 0;
  mo->impl_of[st->out] = new_impl(mo, &m, new_storage(mo, 1, m.dtype, -1), -1, -1);
}

void gen_model_set_flag(gen_model *mo, int v, unsigned char f) {
  grow_vals(mo, v);
  mo->flags[v] |= f;
}

void gen_model_copy(gen_model *dst, const gen_model *src) {
  *dst = *src;
  dst->env.ctx = dst;
  dst->impl_of = src->capv ? memcpy(af_xmalloc(sizeof(int) * (size_t)src->capv), src->impl_of, sizeof(int) * (size_t)src->capv) : NULL;
  dst->flags = src->capv ? memcpy(af_xmalloc((size_t)src->capv), src->flags, (size_t)src->capv) : NULL;
  dst->impls = src->capi ? memcpy(af_xmalloc(sizeof(gen_impl) * (size_t)src->capi), src->impls, sizeof(gen_impl) * (size_t)src->capi) : NULL;
  dst->stor = src->caps ? memcpy(af_xmalloc(sizeof(gen_storage) * (size_t)src->caps), src->stor, sizeof(gen_storage) * (size_t)src->caps) : NULL;
  dst->lst = src->caplst ? af_xcalloc((size_t)src->caplst, sizeof(int *)) : NULL;
  dst->nlst = src->caplst ? memcpy(af_xmalloc(sizeof(int) * (size_t)src->caplst), src->nlst, sizeof(int) * (size_t)src->caplst) : NULL;
  for (int v = 0; v < src->caplst; v++)
    if (src->lst[v]) dst->lst[v] = memcpy(af_xmalloc(sizeof(int) * (size_t)src->nlst[v] + 1), src->lst[v], sizeof(int) * (size_t)src->nlst[v]);
}

static void grow_lists(gen_model *mo, int v) {
  if (v < mo->caplst) return;
  int cap = mo->caplst ? mo->caplst : 16;
  while (cap <= v) cap *= 2;
  mo->lst = af_xrealloc(mo->lst, sizeof(int *) * (size_t)cap);
  mo->nlst = af_xrealloc(mo->nlst, sizeof(int) * (size_t)cap);
  for (int k = mo->caplst; k < cap; k++) mo->lst[k] = NULL, mo->nlst[k] = 0;
  mo->caplst = cap;
}

int gen_model_list(gen_model *mo, const ir_stmt *st, int apply, af_err *err) {
  int l = st->args[0].value;
  if (st->op == OPS_list) {
    for (int k = 0; k < st->args[0].n; k++)
      if (mo->impl_of[st->args[0].values[k]] < 0) return af_fail(err, "list element %d is not a tensor", k);
    if (!apply) return 0;
    grow_lists(mo, st->out);
    grow_vals(mo, st->out);
    free(mo->lst[st->out]);
    mo->lst[st->out] = af_xcalloc((size_t)st->args[0].n + 1, sizeof(int));
    for (int k = 0; k < st->args[0].n; k++) mo->lst[st->out][k] = mo->impl_of[st->args[0].values[k]];
    mo->nlst[st->out] = st->args[0].n;
    mo->flags[st->out] |= GEN_VF_LIST;
    return 0;
  }
  if (l < 0 || l >= mo->caplst || !mo->lst[l]) return af_fail(err, "not a list");
  int n = mo->nlst[l];
  if (st->op == OPS_list_append) {
    if (!apply) return 0;
    mo->lst[l] = af_xrealloc(mo->lst[l], sizeof(int) * (size_t)(n + 2));
    mo->lst[l][mo->nlst[l]++] = mo->impl_of[st->args[1].value];
    return 0;
  }
  if (st->op == OPS_list_get || st->op == OPS_list_set) {
    int64_t k = st->args[1].i < 0 ? st->args[1].i + n : st->args[1].i;
    if (k < 0 || k >= n) return af_fail(err, "list index %lld out of range", (long long)st->args[1].i);
    if (!apply) return 0;
    if (st->op == OPS_list_set) {
      mo->lst[l][k] = mo->impl_of[st->args[2].value];
    } else {
      grow_vals(mo, st->out);
      mo->impl_of[st->out] = mo->lst[l][k];
    }
    return 0;
  }
  /* cat_list, stack_list: equal shapes, one dtype (the generator asks no more of eager) */
  const ops_meta *m0 = &mo->impls[mo->lst[l][0]].m;
  for (int k = 1; k < n; k++) {
    const ops_meta *m = &mo->impls[mo->lst[l][k]].m;
    if (m->dtype != m0->dtype || m->rank != m0->rank || memcmp(m->shape, m0->shape, sizeof(int64_t) * (size_t)m->rank))
      return af_fail(err, "list elements differ in shape or dtype");
    if (!m->known) return af_fail(err, "list element of unknown shape");
  }
  int rank = m0->rank + (st->op == OPS_stack_list);
  int64_t d = st->args[1].i < 0 ? st->args[1].i + rank : st->args[1].i;
  if (d < 0 || d >= rank || (st->op == OPS_cat_list && m0->rank == 0) || rank > AF_MAX_RANK) return af_fail(err, "dim out of range");
  if (!apply) return 0;
  int64_t shape[AF_MAX_RANK + 1];
  for (int k = 0, j = 0; k < rank; k++) shape[k] = st->op == OPS_stack_list && k == d ? n : m0->shape[j++];
  if (st->op == OPS_cat_list) shape[d] = m0->shape[d] * n;
  ops_meta m;
  ops_meta_init(&m, m0->dtype, rank, shape);
  grow_vals(mo, st->out);
  mo->impl_of[st->out] = new_impl(mo, &m, new_storage(mo, ops_meta_numel(&m), m.dtype, -1), -1, -1);
  return 0;
}

const gen_impl *gen_model_impl(const gen_model *mo, int value) { return &mo->impls[mo->impl_of[value]]; }
const ops_meta *gen_model_meta(const gen_model *mo, int value) { return &mo->impls[mo->impl_of[value]].m; }
const gen_storage *gen_model_storage(const gen_model *mo, int value) { return &mo->stor[mo->impls[mo->impl_of[value]].storage]; }

int64_t gen_model_storage_numel(const gen_model *mo, int value) {
  const gen_storage *s = gen_model_storage(mo, value);
  int64_t es = (int64_t)af_dtype_size(gen_model_meta(mo, value)->dtype);
  return es == s->esize || es <= 0 ? s->numel : s->numel * s->esize / es;
}

int gen_model_overlap(const gen_model *mo, int a, int b) {
  int ia = mo->impl_of[a], ib = mo->impl_of[b];
  if (ia == ib) return OPS_LAP_SAME;
  const gen_impl *x = &mo->impls[ia], *y = &mo->impls[ib];
  if (x->storage != y->storage) return OPS_LAP_NONE;
  if (!x->m.exact || !y->m.exact) return OPS_LAP_PARTIAL;
  const gen_storage *st = &mo->stor[x->storage];
  /* memory in units of the smallest element size of the two and the storage (sizes are powers of
     2); one unit per element when all three agree (no dtype view) */
  int64_t sx = (int64_t)af_dtype_size(x->m.dtype), sy = (int64_t)af_dtype_size(y->m.dtype), unit = st->esize;
  if (sx < unit) unit = sx;
  if (sy < unit) unit = sy;
  if (unit <= 0) return OPS_LAP_PARTIAL;
  int64_t numel = st->numel * (st->esize / unit), wx = sx / unit, wy = sy / unit;
  if (numel > 65536) return OPS_LAP_PARTIAL;
  static _Thread_local int64_t bx[4096], by[4096];
  int64_t nx = ops_meta_offsets(&x->m, bx, 4096), ny = ops_meta_offsets(&y->m, by, 4096);
  if (nx < 0 || ny < 0) return OPS_LAP_PARTIAL;
  unsigned char small[512], *mark = numel <= (int64_t)sizeof small ? small : af_xcalloc((size_t)numel, 1);
  if (mark == small) memset(small, 0, (size_t)numel);
  int lap = OPS_LAP_NONE;
  for (int64_t k = 0; k < nx; k++)
    for (int64_t u = bx[k] * wx; u < (bx[k] + 1) * wx; u++)
      if (u >= 0 && u < numel) mark[u] = 1;
  for (int64_t k = 0; k < ny && lap == OPS_LAP_NONE; k++)
    for (int64_t u = by[k] * wy; u < (by[k] + 1) * wy && lap == OPS_LAP_NONE; u++)
      if (u < 0 || u >= numel || mark[u]) lap = OPS_LAP_PARTIAL;
  if (mark != small) free(mark);
  return lap;
}

int gen_model_refusals(const ir_program *p, int upto, gen_model *mo) {
  gen_model m;
  gen_model_init(&m, p);
  int n = 0;
  for (int i = 0; i < p->nstmts && (upto < 0 || i <= upto); i++) {
    ops_effect e;
    af_err err;
    if (ops_shape_infer(&p->stmts[i], &m.env, &e, &err)) {
      n++;
      gen_model_apply_unknown(&m, i);
    } else {
      gen_model_apply(&m, i, &e);
    }
  }
  if (mo) *mo = m, mo->env.ctx = mo; /* env's context is the model itself */
  else gen_model_free(&m);
  return n;
}
