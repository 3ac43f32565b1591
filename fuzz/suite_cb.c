/* suite_cb.c - see suite_cb.h: the conformance suite's case builder and each op's arguments. */
#include "suite_cb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cb_clear(cb *b) {
  for (int s = 0; s < b->ns; s++)
    for (int a = 0; a < b->s[s].nargs; a++) ir_arg_free(&b->s[s].args[a]);
  memset(b, 0, sizeof *b);
}

static int cb_find(const cb *b, const char *name) {
  for (int i = 0; i < b->nv; i++)
    if (!strcmp(b->v[i].name, name)) return i;
  return -1;
}

/* A fresh name: base, base2, base3, ... */
static int cb_value(cb *b, const char *base) {
  char name[16];
  snprintf(name, sizeof name, "%s", base);
  for (int k = 2; cb_find(b, name) >= 0; k++) snprintf(name, sizeof name, "%s%d", base, k);
  bval *v = &b->v[b->nv];
  memset(v, 0, sizeof *v);
  snprintf(v->name, sizeof v->name, "%s", name);
  return b->nv++;
}

int cb_input(cb *b, const char *name, int rank, const int64_t *shape, af_dtype dt) {
  int i = cb_value(b, name);
  b->v[i].is_input = 1;
  b->v[i].rank = rank;
  memcpy(b->v[i].shape, shape, sizeof(int64_t) * (size_t)rank);
  b->v[i].dt = dt;
  return i;
}

static void cb_data(cb *b, int v, int n, const double *data) {
  b->v[v].ndata = n;
  memcpy(b->v[v].data, data, sizeof(double) * (size_t)n);
}

/* Appends a statement; takes ownership of the args' lists. Returns the out value or -1. */
int cb_stmt(cb *b, const char *out, int op, int nargs, ir_arg *args) {
  bstmt *s = &b->s[b->ns++];
  s->op = op;
  s->out = out ? cb_value(b, out) : -1;
  s->nargs = nargs;
  memcpy(s->args, args, sizeof(ir_arg) * (size_t)nargs);
  return s->out;
}

/* The program: inputs first (in the order they were added), then the statements. new. */
ir_program *cb_build(const cb *b, int nouts, const int *outs) {
  ir_program *p = ir_program_new();
  int map[B_MAXV];
  for (int i = 0; i < b->nv; i++) map[i] = -1;
  for (int i = 0; i < b->nv; i++)
    if (b->v[i].is_input) {
      map[i] = ir_add_input(p, b->v[i].name, b->v[i].rank, b->v[i].shape, b->v[i].dt);
      if (b->v[i].ndata) {
        ir_input *in = &p->inputs[p->ninputs - 1];
        in->ndata = b->v[i].ndata;
        in->data = af_xmalloc(sizeof(double) * (size_t)in->ndata);
        memcpy(in->data, b->v[i].data, sizeof(double) * (size_t)in->ndata);
      }
      if (b->train) {
        ir_input *in = &p->inputs[p->ninputs - 1];
        in->grad = b->v[i].grad || b->v[i].param;
        in->param = in->buffer = b->v[i].param;
      }
    }
  for (int s = 0; s < b->ns; s++) {
    const bstmt *st = &b->s[s];
    ir_arg args[OPS_MAX_ARGS];
    for (int a = 0; a < st->nargs; a++) {
      ir_arg_copy(&args[a], &st->args[a]);
      if (args[a].kind == IR_ARG_VALUE) args[a].value = map[args[a].value];
      if (args[a].kind == IR_ARG_VALUES)
        for (int k = 0; k < args[a].n; k++) args[a].values[k] = args[a].values[k] < 0 ? -1 : map[args[a].values[k]];
      if (args[a].kind == IR_ARG_INDEX)
        for (int k = 0; k < args[a].n; k++)
          if (args[a].index[k].kind == IR_IDX_TENSOR) args[a].index[k].value = map[args[a].index[k].value];
    }
    if (st->out >= 0) map[st->out] = ir_add_value(p, b->v[st->out].name);
    ir_add_stmt(p, st->op, st->out >= 0 ? map[st->out] : -1, st->nargs, args);
    for (int a = 0; a < st->nargs; a++) ir_arg_free(&args[a]);
  }
  p->noutputs = nouts;
  p->outputs = af_xcalloc((size_t)(nouts ? nouts : 1), sizeof(int));
  for (int o = 0; o < nouts; o++) p->outputs[o] = map[outs[o]];
  if (b->train) {
    p->train = 1;
    p->loss = af_xcalloc((size_t)nouts + 1, sizeof(double));
    for (int o = 0; o < nouts; o++) p->loss[o] = o < 4 && b->loss[o] ? b->loss[o] : 1;
  }
  return p;
}

/* Runs the program so far in eager with the given outputs. 0 and the eager result in r (clear
 * with result_clear), or -1 with eager's message in why. */
int cb_eager(const cb *b, int nouts, const int *outs, result *r, af_err *why) {
  ir_program *p = cb_build(b, nouts, outs);
  result_init(r);
  int rc = 0;
  if (ir_validate(p, why)) {
    rc = -1;
  } else if (eager_run_any_dtype(p, r, why)) { /* shapes and layouts of complex values too; finish() returns real ones */
    rc = -1;
  } else if (r->status != RESULT_OK) {
    snprintf(why->msg, sizeof why->msg, "eager rejects it: %s", r->message ? r->message : "?");
    rc = -1;
  }
  ir_program_free(p);
  if (rc) result_clear(r);
  return rc;
}

/* Shape of value v as eager has it after the statements so far. */
int cb_shape(const cb *b, int v, int *rank, int64_t *shape, af_err *why) {
  result r;
  if (cb_eager(b, 1, &v, &r, why)) return -1;
  *rank = at_tensor_rank(r.outputs[0]);
  at_tensor_shape(r.outputs[0], shape);
  result_clear(&r);
  return 0;
}

/* Shape and strides of value v as eager has them after the statements so far. */
static int cb_layout(const cb *b, int v, int *rank, int64_t *shape, int64_t *strides, af_err *why) {
  result r;
  if (cb_eager(b, 1, &v, &r, why)) return -1;
  *rank = at_tensor_rank(r.outputs[0]);
  at_tensor_shape(r.outputs[0], shape);
  at_tensor_strides(r.outputs[0], strides);
  result_clear(&r);
  return 0;
}

/* Whether eager's a and c share storage after the statements so far (-1: eager failed). */
int cb_shares(const cb *b, int a, int c, af_err *why) {
  result r;
  int outs[2] = {a, c};
  if (cb_eager(b, 2, outs, &r, why)) return -1;
  int s = at_tensor_shares_storage(r.outputs[0], r.outputs[1]);
  result_clear(&r);
  return s;
}

/* ---- recipes: the arguments each op gets in the suite ---- */

/* A recipe is an op name, optionally with a variant after a dot ("slice.step"). */
static int recipe_op(const char *recipe) {
  char name[32];
  snprintf(name, sizeof name, "%s", recipe);
  char *dot = strchr(name, '.');
  if (dot) *dot = 0;
  return ops_find(name);
}

/* Makes v = recipe(src) where src has the given shape and its storage storage_numel elements.
 * Returns the view's value, or -1 with why (no arguments fit). May add inputs.
 * Long by shape: one branch per view recipe of the suite (each op's arguments for the small
 * shapes, a line or two each), read as a table; splitting it would scatter that table. */
int cb_view(cb *b, const char *recipe, int src, int rank, const int64_t *s, int64_t storage_numel, const char *out,
            af_err *why) {
  int op = recipe_op(recipe);
  ir_arg a[OPS_MAX_ARGS];
  int n = 1;
  a[0] = A_V(src);
  int64_t last = rank ? s[rank - 1] : 0, numel = ir_numel(rank, s);
  if (op < 0) return af_fail(why, "no op for recipe %s", recipe);
  if (cb_same(recipe, "slice")) {
    if (rank < 1 || s[0] < 2) return af_fail(why, "slice: needs a dim 0 of size >= 2");
    a[n++] = A_I(0), a[n++] = A_I(1), a[n++] = A_I(s[0] < 3 ? s[0] : 3), a[n++] = A_I(1);
  } else if (cb_same(recipe, "slice.step")) {
    if (rank < 1 || last < 2) return af_fail(why, "slice.step: needs a last dim of size >= 2");
    a[n++] = A_I(rank - 1), a[n++] = A_I(0), a[n++] = A_I(last), a[n++] = A_I(2);
  } else if (cb_same(recipe, "select")) {
    if (rank < 1 || s[0] < 2) return af_fail(why, "select: needs a dim 0 of size >= 2");
    a[n++] = A_I(0), a[n++] = A_I(1);
  } else if (cb_same(recipe, "narrow")) {
    if (rank < 1 || last < 3) return af_fail(why, "narrow: needs a last dim of size >= 3");
    a[n++] = A_I(rank - 1), a[n++] = A_I(1), a[n++] = A_I(last - 2);
  } else if (cb_same(recipe, "view") || cb_same(recipe, "reshape")) {
    int64_t shp[2];
    int k;
    if (rank >= 2) shp[0] = cb_same(recipe, "view") ? numel : -1, k = 1;
    else if (rank == 1 && numel % 2 == 0 && numel >= 4) shp[0] = 2, shp[1] = cb_same(recipe, "view") ? numel / 2 : -1, k = 2;
    else shp[0] = cb_same(recipe, "view") ? numel : -1, k = 1;
    a[n++] = A_INTS(k, shp);
  } else if (cb_same(recipe, "flatten")) {
    if (rank < 1) return af_fail(why, "flatten: needs rank >= 1");
    a[n++] = A_I(0), a[n++] = A_I(rank - 1);
  } else if (cb_same(recipe, "unflatten")) {
    if (rank < 1 || last % 2 || last < 4) return af_fail(why, "unflatten: needs an even last dim >= 4");
    int64_t shp[2] = {2, last / 2};
    a[n++] = A_I(rank - 1), a[n++] = A_INTS(2, shp);
  } else if (cb_same(recipe, "squeeze")) {
    if (rank < 1) return af_fail(why, "squeeze: needs rank >= 1");
    int d = 0;
    for (int k = rank - 1; k >= 0; k--)
      if (s[k] == 1) d = k;
    a[n++] = A_I(d);
  } else if (cb_same(recipe, "unsqueeze")) {
    a[n++] = A_I(rank < 1 ? 0 : 1);
  } else if (cb_same(recipe, "transpose") || cb_same(recipe, "movedim") || cb_same(recipe, "swapaxes") || cb_same(recipe, "swapdims")) {
    if (rank < 2) return af_fail(why, "%s: needs rank >= 2", recipe);
    a[n++] = A_I(0), a[n++] = A_I(rank - 1);
  } else if (cb_same(recipe, "t")) {
    if (rank != 2) return af_fail(why, "t: needs rank 2");
  } else if (cb_same(recipe, "permute")) {
    if (rank < 2) return af_fail(why, "permute: needs rank >= 2");
    int64_t perm[AF_MAX_RANK];
    for (int k = 0; k < rank; k++) perm[k] = (k + rank - 1) % rank; /* last dim first */
    a[n++] = A_INTS(rank, perm);
  } else if (cb_same(recipe, "expand") || cb_same(recipe, "expand_as") || cb_same(recipe, "expand.same")) {
    int64_t shp[AF_MAX_RANK];
    int k = 0, one = -1;
    for (int d = 0; d < rank; d++)
      if (s[d] == 1 && one < 0) one = d;
    if (cb_same(recipe, "expand.same")) {
      for (int d = 0; d < rank; d++) shp[k++] = s[d];
    } else {
      if (one < 0 && rank >= AF_MAX_RANK) return af_fail(why, "expand: rank too high");
      if (one < 0) shp[k++] = 2;
      for (int d = 0; d < rank; d++) shp[k++] = d == one ? 3 : s[d];
    }
    if (cb_same(recipe, "expand_as")) {
      a[n++] = A_V(cb_input(b, "e", k, shp, AF_FLOAT32));
    } else {
      a[n++] = A_INTS(k, shp);
    }
  } else if (cb_same(recipe, "view_as")) {
    int64_t shp[2] = {numel, 0};
    int k = 1;
    if (rank == 1 && numel % 2 == 0 && numel >= 4) shp[0] = 2, shp[1] = numel / 2, k = 2;
    a[n++] = A_V(cb_input(b, "e", k, shp, AF_FLOAT32));
  } else if (cb_same(recipe, "diagonal") || cb_same(recipe, "diagonal.off")) {
    int off = cb_same(recipe, "diagonal") ? 0 : 1;
    if (rank < 2 || s[1] <= off) return af_fail(why, "%s: needs rank >= 2 and dim 1 > %d", recipe, off);
    a[n++] = A_I(off), a[n++] = A_I(0), a[n++] = A_I(1);
  } else if (cb_same(recipe, "as_strided")) {
    /* sizes [2, 2], strides [3, 1], storage offset 1: elements 1, 2, 4, 5 of the storage */
    if (storage_numel < 6) return af_fail(why, "as_strided: needs a storage of >= 6 elements");
    int64_t sz[2] = {2, 2}, st[2] = {3, 1};
    a[n++] = A_INTS(2, sz), a[n++] = A_INTS(2, st), a[n++] = A_I(1);
  } else if (cb_same(recipe, "unfold") || cb_same(recipe, "unfold.overlap")) {
    if (rank < 1 || last < 2) return af_fail(why, "%s: needs a last dim of size >= 2", recipe);
    a[n++] = A_I(rank - 1), a[n++] = A_I(2), a[n++] = A_I(cb_same(recipe, "unfold") ? 2 : 1);
  } else if (cb_same(recipe, "detach") || cb_same(recipe, "data") || cb_same(recipe, "alias") || cb_same(recipe, "squeeze_all")) {
  } else if (cb_same(recipe, "getitem")) {
    /* v[1:, None] */
    if (rank < 1 || s[0] < 2) return af_fail(why, "getitem: needs a dim 0 of size >= 2");
    ir_index ix[2] = {{.kind = IR_IDX_SLICE, .has_start = 1, .start = 1, .step = 1}, {.kind = IR_IDX_NONE}};
    a[n++] = A_INDEX(2, ix);
  } else if (cb_same(recipe, "getitem.int")) {
    /* v[..., 1] */
    if (rank < 1 || last < 2) return af_fail(why, "getitem.int: needs a last dim of size >= 2");
    ir_index ix[2] = {{.kind = IR_IDX_ELLIPSIS}, {.kind = IR_IDX_INT, .i = 1}};
    a[n++] = A_INDEX(2, ix);
  } else if (cb_same(recipe, "unbind_get")) {
    /* v.unbind(0)[1] */
    if (rank < 1 || s[0] < 2) return af_fail(why, "unbind_get: needs a dim 0 of size >= 2");
    a[n++] = A_I(0), a[n++] = A_I(1);
  } else if (cb_same(recipe, "split_get")) {
    /* v.split(2, -1)[1]: elements 2 and 3 of the last dim */
    if (rank < 1 || last < 3) return af_fail(why, "split_get: needs a last dim of size >= 3");
    a[n++] = A_I(2), a[n++] = A_I(rank - 1), a[n++] = A_I(1);
  } else if (cb_same(recipe, "chunk_get")) {
    /* v.chunk(2, 0)[1]: the second half of dim 0 */
    if (rank < 1 || s[0] < 2) return af_fail(why, "chunk_get: needs a dim 0 of size >= 2");
    a[n++] = A_I(2), a[n++] = A_I(0), a[n++] = A_I(1);
  } else if (cb_same(recipe, "view_dtype")) {
    /* v.view(torch.int32): a float32 tensor's bits as int32 (the same element size: any layout
       views; writes compare exactly, so a lost write of one ulp shows) */
    a[n++] = (ir_arg){.kind = IR_ARG_DTYPE, .i = AF_INT32};
  } else if (cb_same(recipe, "view_as_complex")) {
    /* torch.view_as_complex(v.unflatten(-1, [last / 2, 2])): neighbouring pairs of the last dim as
       complex numbers (v's last dim even with stride 1, its other strides and offset even) */
    int64_t st[AF_MAX_RANK], sh[AF_MAX_RANK];
    int r2;
    if (rank < 1 || last % 2 || cb_layout(b, src, &r2, sh, st, why)) return af_fail(why, "view_as_complex: needs an even last dim");
    for (int d = 0; d < rank; d++)
      if (st[d] % 2 && !(d == rank - 1 && st[d] == 1)) return af_fail(why, "view_as_complex: needs even strides but the last");
    if (st[rank - 1] != 1) return af_fail(why, "view_as_complex: needs a last stride of 1");
    if (last > 2) {
      int64_t pair[2] = {last / 2, 2};
      ir_arg u[3] = {A_V(src), A_I(rank - 1), A_INTS(2, pair)};
      a[0] = A_V(cb_stmt(b, "pairs", OPS_unflatten, 3, u));
    } else if (last != 2) {
      return af_fail(why, "view_as_complex: needs an even last dim");
    }
  } else if (cb_same(recipe, "view_as_real")) {
    /* torch.view_as_real(z) of z = torch.view_as_complex(v.unflatten(-1, [last / 2, 2])) */
    af_err inner;
    int z = cb_view(b, "view_as_complex", src, rank, s, storage_numel, "z", &inner);
    if (z < 0) return af_fail(why, "view_as_real: %s", inner.msg);
    a[0] = A_V(z);
  } else if (cb_same(recipe, "contiguous")) {
  } else {
    return af_fail(why, "no recipe for view op '%s'", recipe);
  }
  if (n != ops_get(op)->nargs) {
    for (int k = 0; k < n; k++) ir_arg_free(&a[k]);
    return af_fail(why, "recipe %s gives %d arguments, the op table says %d (%s)", recipe, n, ops_get(op)->nargs,
                   ops_get(op)->schema);
  }
  return cb_stmt(b, out, op, n, a);
}

/* A new float32 input shaped like t's shape (or the given shape). */
static int operand(cb *b, const char *name, int rank, const int64_t *s) { return cb_input(b, name, rank, s, AF_FLOAT32); }

/* An int64 index input [2] with the data {first, 0}. */
static int index_input(cb *b, int64_t first) {
  int64_t two = 2;
  int v = cb_input(b, "idx", 1, &two, AF_INT64);
  double d[2] = {(double)first, 0};
  cb_data(b, v, 2, d);
  return v;
}

/* ---- the op table's samplers, made deterministic, for the write ops without a recipe here ----
 * The samplers (ops_shape_sample) know which arguments each op of the table takes; the suite
 * answers their decisions with "no" (the plain arguments), their ranges from a small generator
 * seeded by the op's name and the target's shape (so a case's content is stable), and their
 * tensor operands with fresh inputs of the asked shape and dtype. */

typedef struct sctx {
  cb *b;
  uint64_t rng;
  ops_meta metas[B_MAXV];
} sctx;

static uint64_t sctx_next(sctx *c) {
  c->rng ^= c->rng << 13, c->rng ^= c->rng >> 7, c->rng ^= c->rng << 17;
  return c->rng;
}

static int64_t sc_range(void *ctx, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + (int64_t)(sctx_next(ctx) % (uint64_t)(hi - lo + 1));
}

static int sc_decide(void *ctx, int point) {
  (void)ctx, (void)point;
  return 0;
}

static int sc_index_kind(void *ctx) { return sctx_next(ctx) % 2 ? OPS_IDX_INT : OPS_IDX_SLICE; }

static int sc_tensor(void *ctx, const ops_req *r) {
  sctx *c = ctx;
  if (c->b->nv >= B_MAXV - 1) return -1;
  int rank = r->rank;
  const int64_t *shape = r->shape;
  if (r->kind == OPS_REQ_ZERODIM) rank = 0;
  if (r->kind == OPS_REQ_EXPANDED || r->kind == OPS_REQ_VIEWABLE) rank = r->rank2, shape = r->shape2;
  af_dtype dt = r->dtype;
  if (r->kind == OPS_REQ_MASK) dt = AF_BOOL;
  else if (r->kind == OPS_REQ_INDEX) dt = AF_INT64;
  else if (r->dt_rule == OPS_DT_FLOAT && dt != AF_FLOAT32 && dt != AF_FLOAT64) dt = AF_FLOAT32;
  else if ((r->dt_rule == OPS_DT_INTO || r->dt_rule == OPS_DT_ANY) && dt == AF_BOOL) dt = AF_INT64;
  int v;
  if (r->kind == OPS_REQ_INDEX) {
    int64_t n = ir_numel(rank, shape);
    if (n > 64) return -1;
    v = cb_input(c->b, "idx", rank, shape, AF_INT64);
    double d[64];
    for (int64_t k = 0; k < n; k++) d[k] = (double)r->index_data[k];
    cb_data(c->b, v, (int)n, d);
  } else {
    v = cb_input(c->b, r->kind == OPS_REQ_MASK ? "m" : "u", rank, shape, dt);
  }
  ops_meta_init(&c->metas[v], dt, rank, shape);
  if (r->kind != OPS_REQ_INDEX && !ops_req_accepts(r, &c->metas[v])) return -1; /* (an index is never "accepted": never reused) */
  return v;
}

static const ops_meta *sc_meta(void *ctx, int v) { return &((sctx *)ctx)->metas[v]; }

/* Write op `op` into target t (layout m, storage of storage_numel elements) with the arguments
 * the op table's sampler picks. 0, or -1 with why. */
static int sample_write(cb *b, int op, int t, const ops_meta *m, int64_t storage_numel, af_err *why) {
  const ops_entry *e = ops_get(op);
  sctx c;
  memset(&c, 0, sizeof c);
  c.b = b;
  c.rng = 1469598103934665603ull;
  for (const char *p = e->name; *p; p++) c.rng = (c.rng ^ (unsigned char)*p) * 1099511628211ull;
  for (int d = 0; d < m->rank; d++) c.rng = (c.rng ^ (uint64_t)m->shape[d]) * 1099511628211ull;
  c.rng = (c.rng ^ (uint64_t)m->dtype) * 1099511628211ull;
  if (!c.rng) c.rng = 1;
  c.metas[t] = *m;
  ops_chooser ch = {.ctx = &c, .range = sc_range, .decide = sc_decide, .index_kind = sc_index_kind, .tensor = sc_tensor,
                    .meta = sc_meta, .max_numel = 64, .max_rank = AF_MAX_RANK};
  ir_arg a[OPS_MAX_ARGS];
  int nv = b->nv;
  int n = ops_shape_sample(op, t, m, storage_numel, &ch, a);
  if (n < 0 || n != e->nargs) {
    for (int k = 0; k < e->nargs; k++) ir_arg_free(&a[k]);
    b->nv = nv;
    return af_fail(why, "%s: the op table's sampler finds no arguments for a %s target of rank %d", e->name,
                   af_dtype_name(m->dtype), m->rank);
  }
  cb_stmt(b, NULL, op, n, a);
  return 0;
}

/* Applies write op (a table op of kind INPLACE, SETITEM or OUT) to target t of the given shape:
 * with the suite's recipe for it when it has one (the core writes), else (m not NULL) with the
 * op table's sampler. 0, or -1 with why (no arguments fit). */
int cb_write(cb *b, int op, int t, int rank, const int64_t *s, const ops_meta *m, int64_t storage_numel,
             af_err *why) {
  const char *w = ops_get(op)->name;
  ir_arg a[OPS_MAX_ARGS];
  int n = 1;
  a[0] = A_V(t);
  int64_t last = rank ? s[rank - 1] : 0, s0 = rank ? s[0] : 0;
  int64_t rest[AF_MAX_RANK];
  for (int d = 1; d < rank; d++) rest[d] = s[d];
  if (cb_same(w, "add_") || cb_same(w, "copy_")) {
    a[n++] = A_V(operand(b, "u", rank, s));
  } else if (cb_same(w, "sub_")) {
    /* broadcast from the last dim */
    a[n++] = A_V(operand(b, "u", rank ? 1 : 0, &last));
  } else if (cb_same(w, "mul_")) {
    a[n++] = A_I(3);
  } else if (cb_same(w, "div_")) {
    a[n++] = A_I(2);
  } else if (cb_same(w, "neg_") || cb_same(w, "abs_") || cb_same(w, "relu_") || cb_same(w, "zero_") || cb_same(w, "t_")) {
    if (cb_same(w, "t_") && rank > 2) return af_fail(why, "t_: needs rank <= 2");
  } else if (cb_same(w, "clamp_")) {
    a[n++] = A_I(-2), a[n++] = A_I(3);
  } else if (cb_same(w, "fill_")) {
    a[n++] = A_I(7);
  } else if (cb_same(w, "masked_fill_")) {
    a[n++] = A_V(cb_input(b, "m", rank, s, AF_BOOL)), a[n++] = A_I(9);
  } else if (cb_same(w, "index_put_") || cb_same(w, "index_add_")) {
    if (rank < 1 || s0 < 2) return af_fail(why, "%s: needs a dim 0 of size >= 2", w);
    int idx = index_input(b, s0 - 1);
    rest[0] = 2;
    int src = operand(b, "u", rank, rest);
    if (cb_same(w, "index_put_")) {
      a[n++] = A_VALUES(1, &idx), a[n++] = A_V(src), a[n++] = A_B(0);
    } else {
      a[n++] = A_I(0), a[n++] = A_V(idx), a[n++] = A_V(src);
    }
  } else if (cb_same(w, "scatter_")) {
    if (rank < 1 || s0 < 2) return af_fail(why, "scatter_: needs a dim 0 of size >= 2");
    rest[0] = 1;
    int idx = cb_input(b, "idx", rank, rest, AF_INT64);
    double d[1] = {(double)(s0 - 1)};
    cb_data(b, idx, 1, d);
    a[n++] = A_I(0), a[n++] = A_V(idx), a[n++] = A_I(5);
  } else if (cb_same(w, "unsqueeze_")) {
    a[n++] = A_I(0);
  } else if (cb_same(w, "squeeze_")) {
    if (rank < 1) return af_fail(why, "squeeze_: needs rank >= 1");
    int d = 0;
    for (int k = rank - 1; k >= 0; k--)
      if (s[k] == 1) d = k;
    a[n++] = A_I(d);
  } else if (cb_same(w, "transpose_")) {
    if (rank < 1) return af_fail(why, "transpose_: needs rank >= 1");
    a[n++] = A_I(0), a[n++] = A_I(rank - 1);
  } else if (cb_same(w, "setitem")) {
    /* t[1] = 5 */
    if (rank < 1 || s0 < 2) return af_fail(why, "setitem: needs a dim 0 of size >= 2");
    ir_index ix[1] = {{.kind = IR_IDX_INT, .i = 1}};
    a[n++] = A_INDEX(1, ix), a[n++] = A_I(5);
  } else if (cb_same(w, "setitem_add")) {
    /* t[..., 1:] += 1 */
    if (rank < 1 || last < 2) return af_fail(why, "setitem_add: needs a last dim of size >= 2");
    ir_index ix[2] = {{.kind = IR_IDX_ELLIPSIS}, {.kind = IR_IDX_SLICE, .has_start = 1, .start = 1, .step = 1}};
    a[n++] = A_INDEX(2, ix), a[n++] = A_I(1);
  } else if (cb_same(w, "setitem_sub")) {
    /* t[m] -= 2 with a boolean mask */
    if (rank < 1) return af_fail(why, "setitem_sub: needs rank >= 1");
    ir_index ix[1] = {{.kind = IR_IDX_TENSOR, .value = cb_input(b, "m", rank, s, AF_BOOL)}};
    a[n++] = A_INDEX(1, ix), a[n++] = A_I(2);
  } else if (cb_same(w, "setitem_mul")) {
    /* t[idx] *= 2 with an integer index tensor */
    if (rank < 1 || s0 < 2) return af_fail(why, "setitem_mul: needs a dim 0 of size >= 2");
    ir_index ix[1] = {{.kind = IR_IDX_TENSOR, .value = index_input(b, s0 - 1)}};
    a[n++] = A_INDEX(1, ix), a[n++] = A_I(2);
  } else if (cb_same(w, "add_out") || cb_same(w, "mul_out")) {
    a[n++] = A_V(operand(b, "u", rank, s)), a[n++] = A_V(operand(b, "u", rank, s));
  } else if (m && ops_shape_can_sample(op)) {
    return sample_write(b, op, t, m, storage_numel, why);
  } else {
    return af_fail(why, "no recipe for write op '%s'", w);
  }
  if (n != ops_get(op)->nargs) {
    for (int k = 0; k < n; k++) ir_arg_free(&a[k]);
    return af_fail(why, "write recipe %s gives %d arguments, the op table says %d (%s)", w, n, ops_get(op)->nargs,
                   ops_get(op)->schema);
  }
  cb_stmt(b, NULL, op, n, a);
  return 0;
}

/* make_write on target t after checking that t's elements do not overlap: a dim of size > 1 with
 * stride 0 (an expanded view). Eager rejects most writes into such a view and only warns ("Use
 * of masked_fill_ on expanded tensors is deprecated") for the others; which element wins is
 * then up to the kernel, so the suite writes into expanded views never. */
static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

int cb_write_into(cb *b, int op, int t, af_err *why) {
  int rank;
  int64_t shape[AF_MAX_RANK], strides[AF_MAX_RANK];
  if (cb_layout(b, t, &rank, shape, strides, why)) return -1;
  for (int d = 0; d < rank; d++)
    if (shape[d] > 1 && strides[d] == 0)
      return af_fail(why, "write into an expanded view (dim %d has stride 0): eager rejects it or warns that it is deprecated", d);
  /* other overlaps (unfold with step < size): eager cannot prove them and lets the write happen,
   * element by element, so an element that appears twice is written twice (neg_ twice is no
   * neg_). Implementation-defined: the suite leaves them to hand-written cases with idempotent
   * writes (corpus/conformance/hand/). */
  int64_t n = ir_numel(rank, shape);
  if (n > 1 && n <= 4096) {
    int64_t *off = af_xcalloc((size_t)n, sizeof(int64_t));
    for (int64_t k = 0; k < n; k++) {
      int64_t rem = k, o = 0;
      for (int d = rank - 1; d >= 0; d--) {
        o += (rem % shape[d]) * strides[d];
        rem /= shape[d];
      }
      off[k] = o;
    }
    qsort(off, (size_t)n, sizeof(int64_t), cmp_i64);
    int dup = 0;
    for (int64_t k = 1; k < n && !dup; k++) dup = off[k] == off[k - 1];
    free(off);
    if (dup) return af_fail(why, "write into a view whose elements overlap (an element appears twice): eager writes it twice");
  }
  result r;
  if (cb_eager(b, 1, &t, &r, why)) return -1;
  ops_meta m;
  ops_meta_init(&m, (af_dtype)at_tensor_dtype(r.outputs[0]), rank, shape);
  memcpy(m.stride, strides, sizeof(int64_t) * (size_t)rank);
  m.offset = at_tensor_storage_offset(r.outputs[0]);
  result_clear(&r);
  m.exact = 1, m.nonoverlap = 1;
  int64_t storage = ops_meta_extent(&m);
  return cb_write(b, op, t, rank, shape, &m, storage, why);
}
