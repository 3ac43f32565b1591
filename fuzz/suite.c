/* suite.c - see suite.h.
 *
 * What eager rejects (combinations the suite skips; eager is asked every time, these are the
 * reasons it gives on PyTorch 1.13):
 *   - a write (in-place op, setitem, out=) into a view whose elements overlap in memory:
 *     expand / expand_as of a size-1 dim ("unsupported operation: more than one element of the
 *     written-to tensor refers to a single memory location"). unfold with step < size overlaps
 *     too, but PyTorch cannot prove it (MemOverlap::TooHard) and lets the write happen: those
 *     cases stay in the suite.
 *   - view() of a tensor whose strides do not allow it (a view of a transposed or sliced tensor:
 *     "view size is not compatible with input tensor's size and stride").
 *   - out= into a tensor that would have to be resized while it is a view, and the other
 *     messages SKIPPED.md lists: nothing is skipped silently.
 * Combinations where no arguments fit (a write that needs rank >= 2 on a rank-1 view, select of a
 * size-1 dim) are listed in SKIPPED.md too, with the reason. */
#include "suite.h"
#include "judge.h"

#include <cjson/cJSON.h>

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/codec.h"
#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "../harness/ops/ops_shape.h"
#include "findings.h"

/* ---- a small program builder: inputs may be added after statements (they are ordered first
 * when the program is built) ---- */

#define B_MAXV 24
#define B_MAXS 12

typedef struct bval {
  char name[16];
  int is_input;
  int rank;
  int64_t shape[AF_MAX_RANK];
  af_dtype dt;
  int ndata;
  double data[64];
} bval;

typedef struct bstmt {
  int op;
  int out; /* bval index or -1 */
  int nargs;
  ir_arg args[OPS_MAX_ARGS]; /* IR_ARG_VALUE .value etc. are bval indices */
} bstmt;

typedef struct cb {
  bval v[B_MAXV];
  int nv;
  bstmt s[B_MAXS];
  int ns;
  int outs[4];
  int nouts;
} cb;

static void cb_clear(cb *b) {
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

static int cb_input(cb *b, const char *name, int rank, const int64_t *shape, af_dtype dt) {
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
static int cb_stmt(cb *b, const char *out, int op, int nargs, ir_arg *args) {
  bstmt *s = &b->s[b->ns++];
  s->op = op;
  s->out = out ? cb_value(b, out) : -1;
  s->nargs = nargs;
  memcpy(s->args, args, sizeof(ir_arg) * (size_t)nargs);
  return s->out;
}

static ir_arg A_V(int v) { return (ir_arg){.kind = IR_ARG_VALUE, .value = v}; }
static ir_arg A_I(int64_t i) { return (ir_arg){.kind = IR_ARG_INT, .i = i}; }
static ir_arg A_B(int i) { return (ir_arg){.kind = IR_ARG_BOOL, .i = i}; }
static ir_arg A_INTS(int n, const int64_t *x) {
  ir_arg a = {.kind = IR_ARG_INTS, .n = n};
  a.ints = af_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  memcpy(a.ints, x, sizeof(int64_t) * (size_t)n);
  return a;
}
static ir_arg A_VALUES(int n, const int *x) {
  ir_arg a = {.kind = IR_ARG_VALUES, .n = n};
  a.values = af_xmalloc(sizeof(int) * (size_t)n);
  memcpy(a.values, x, sizeof(int) * (size_t)n);
  return a;
}
static ir_arg A_INDEX(int n, const ir_index *x) {
  ir_arg a = {.kind = IR_ARG_INDEX, .n = n};
  a.index = af_xmalloc(sizeof(ir_index) * (size_t)n);
  memcpy(a.index, x, sizeof(ir_index) * (size_t)n);
  return a;
}

/* The program: inputs first (in the order they were added), then the statements. new. */
static ir_program *cb_build(const cb *b, int nouts, const int *outs) {
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
  return p;
}

/* Runs the program so far in eager with the given outputs. 0 and the eager result in r (clear
 * with result_clear), or -1 with eager's message in why. */
static int cb_eager(const cb *b, int nouts, const int *outs, result *r, af_err *why) {
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
static int cb_shape(const cb *b, int v, int *rank, int64_t *shape, af_err *why) {
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
static int cb_shares(const cb *b, int a, int c, af_err *why) {
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

static int same(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* Makes v = recipe(src) where src has the given shape and its storage storage_numel elements.
 * Returns the view's value, or -1 with why (no arguments fit). May add inputs. */
static int make_view(cb *b, const char *recipe, int src, int rank, const int64_t *s, int64_t storage_numel, const char *out,
                     af_err *why) {
  int op = recipe_op(recipe);
  ir_arg a[OPS_MAX_ARGS];
  int n = 1;
  a[0] = A_V(src);
  int64_t last = rank ? s[rank - 1] : 0, numel = ir_numel(rank, s);
  if (op < 0) return af_fail(why, "no op for recipe %s", recipe);
  if (same(recipe, "slice")) {
    if (rank < 1 || s[0] < 2) return af_fail(why, "slice: needs a dim 0 of size >= 2");
    a[n++] = A_I(0), a[n++] = A_I(1), a[n++] = A_I(s[0] < 3 ? s[0] : 3), a[n++] = A_I(1);
  } else if (same(recipe, "slice.step")) {
    if (rank < 1 || last < 2) return af_fail(why, "slice.step: needs a last dim of size >= 2");
    a[n++] = A_I(rank - 1), a[n++] = A_I(0), a[n++] = A_I(last), a[n++] = A_I(2);
  } else if (same(recipe, "select")) {
    if (rank < 1 || s[0] < 2) return af_fail(why, "select: needs a dim 0 of size >= 2");
    a[n++] = A_I(0), a[n++] = A_I(1);
  } else if (same(recipe, "narrow")) {
    if (rank < 1 || last < 3) return af_fail(why, "narrow: needs a last dim of size >= 3");
    a[n++] = A_I(rank - 1), a[n++] = A_I(1), a[n++] = A_I(last - 2);
  } else if (same(recipe, "view") || same(recipe, "reshape")) {
    int64_t shp[2];
    int k;
    if (rank >= 2) shp[0] = same(recipe, "view") ? numel : -1, k = 1;
    else if (rank == 1 && numel % 2 == 0 && numel >= 4) shp[0] = 2, shp[1] = same(recipe, "view") ? numel / 2 : -1, k = 2;
    else shp[0] = same(recipe, "view") ? numel : -1, k = 1;
    a[n++] = A_INTS(k, shp);
  } else if (same(recipe, "flatten")) {
    if (rank < 1) return af_fail(why, "flatten: needs rank >= 1");
    a[n++] = A_I(0), a[n++] = A_I(rank - 1);
  } else if (same(recipe, "unflatten")) {
    if (rank < 1 || last % 2 || last < 4) return af_fail(why, "unflatten: needs an even last dim >= 4");
    int64_t shp[2] = {2, last / 2};
    a[n++] = A_I(rank - 1), a[n++] = A_INTS(2, shp);
  } else if (same(recipe, "squeeze")) {
    if (rank < 1) return af_fail(why, "squeeze: needs rank >= 1");
    int d = 0;
    for (int k = rank - 1; k >= 0; k--)
      if (s[k] == 1) d = k;
    a[n++] = A_I(d);
  } else if (same(recipe, "unsqueeze")) {
    a[n++] = A_I(rank < 1 ? 0 : 1);
  } else if (same(recipe, "transpose") || same(recipe, "movedim") || same(recipe, "swapaxes") || same(recipe, "swapdims")) {
    if (rank < 2) return af_fail(why, "%s: needs rank >= 2", recipe);
    a[n++] = A_I(0), a[n++] = A_I(rank - 1);
  } else if (same(recipe, "t")) {
    if (rank != 2) return af_fail(why, "t: needs rank 2");
  } else if (same(recipe, "permute")) {
    if (rank < 2) return af_fail(why, "permute: needs rank >= 2");
    int64_t perm[AF_MAX_RANK];
    for (int k = 0; k < rank; k++) perm[k] = (k + rank - 1) % rank; /* last dim first */
    a[n++] = A_INTS(rank, perm);
  } else if (same(recipe, "expand") || same(recipe, "expand_as") || same(recipe, "expand.same")) {
    int64_t shp[AF_MAX_RANK];
    int k = 0, one = -1;
    for (int d = 0; d < rank; d++)
      if (s[d] == 1 && one < 0) one = d;
    if (same(recipe, "expand.same")) {
      for (int d = 0; d < rank; d++) shp[k++] = s[d];
    } else {
      if (one < 0 && rank >= AF_MAX_RANK) return af_fail(why, "expand: rank too high");
      if (one < 0) shp[k++] = 2;
      for (int d = 0; d < rank; d++) shp[k++] = d == one ? 3 : s[d];
    }
    if (same(recipe, "expand_as")) {
      a[n++] = A_V(cb_input(b, "e", k, shp, AF_FLOAT32));
    } else {
      a[n++] = A_INTS(k, shp);
    }
  } else if (same(recipe, "view_as")) {
    int64_t shp[2] = {numel, 0};
    int k = 1;
    if (rank == 1 && numel % 2 == 0 && numel >= 4) shp[0] = 2, shp[1] = numel / 2, k = 2;
    a[n++] = A_V(cb_input(b, "e", k, shp, AF_FLOAT32));
  } else if (same(recipe, "diagonal") || same(recipe, "diagonal.off")) {
    int off = same(recipe, "diagonal") ? 0 : 1;
    if (rank < 2 || s[1] <= off) return af_fail(why, "%s: needs rank >= 2 and dim 1 > %d", recipe, off);
    a[n++] = A_I(off), a[n++] = A_I(0), a[n++] = A_I(1);
  } else if (same(recipe, "as_strided")) {
    /* sizes [2, 2], strides [3, 1], storage offset 1: elements 1, 2, 4, 5 of the storage */
    if (storage_numel < 6) return af_fail(why, "as_strided: needs a storage of >= 6 elements");
    int64_t sz[2] = {2, 2}, st[2] = {3, 1};
    a[n++] = A_INTS(2, sz), a[n++] = A_INTS(2, st), a[n++] = A_I(1);
  } else if (same(recipe, "unfold") || same(recipe, "unfold.overlap")) {
    if (rank < 1 || last < 2) return af_fail(why, "%s: needs a last dim of size >= 2", recipe);
    a[n++] = A_I(rank - 1), a[n++] = A_I(2), a[n++] = A_I(same(recipe, "unfold") ? 2 : 1);
  } else if (same(recipe, "detach") || same(recipe, "alias") || same(recipe, "squeeze_all")) {
  } else if (same(recipe, "getitem")) {
    /* v[1:, None] */
    if (rank < 1 || s[0] < 2) return af_fail(why, "getitem: needs a dim 0 of size >= 2");
    ir_index ix[2] = {{.kind = IR_IDX_SLICE, .has_start = 1, .start = 1, .step = 1}, {.kind = IR_IDX_NONE}};
    a[n++] = A_INDEX(2, ix);
  } else if (same(recipe, "getitem.int")) {
    /* v[..., 1] */
    if (rank < 1 || last < 2) return af_fail(why, "getitem.int: needs a last dim of size >= 2");
    ir_index ix[2] = {{.kind = IR_IDX_ELLIPSIS}, {.kind = IR_IDX_INT, .i = 1}};
    a[n++] = A_INDEX(2, ix);
  } else if (same(recipe, "unbind_get")) {
    /* v.unbind(0)[1] */
    if (rank < 1 || s[0] < 2) return af_fail(why, "unbind_get: needs a dim 0 of size >= 2");
    a[n++] = A_I(0), a[n++] = A_I(1);
  } else if (same(recipe, "split_get")) {
    /* v.split(2, -1)[1]: elements 2 and 3 of the last dim */
    if (rank < 1 || last < 3) return af_fail(why, "split_get: needs a last dim of size >= 3");
    a[n++] = A_I(2), a[n++] = A_I(rank - 1), a[n++] = A_I(1);
  } else if (same(recipe, "chunk_get")) {
    /* v.chunk(2, 0)[1]: the second half of dim 0 */
    if (rank < 1 || s[0] < 2) return af_fail(why, "chunk_get: needs a dim 0 of size >= 2");
    a[n++] = A_I(2), a[n++] = A_I(0), a[n++] = A_I(1);
  } else if (same(recipe, "view_dtype")) {
    /* v.view(torch.int32): a float32 tensor's bits as int32 (the same element size: any layout
       views; writes compare exactly, so a lost write of one ulp shows) */
    a[n++] = (ir_arg){.kind = IR_ARG_DTYPE, .i = AF_INT32};
  } else if (same(recipe, "view_as_complex")) {
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
  } else if (same(recipe, "view_as_real")) {
    /* torch.view_as_real(z) of z = torch.view_as_complex(v.unflatten(-1, [last / 2, 2])) */
    af_err inner;
    int z = make_view(b, "view_as_complex", src, rank, s, storage_numel, "z", &inner);
    if (z < 0) return af_fail(why, "view_as_real: %s", inner.msg);
    a[0] = A_V(z);
  } else if (same(recipe, "contiguous")) {
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
static int make_write(cb *b, int op, int t, int rank, const int64_t *s, const ops_meta *m, int64_t storage_numel,
                      af_err *why) {
  const char *w = ops_get(op)->name;
  ir_arg a[OPS_MAX_ARGS];
  int n = 1;
  a[0] = A_V(t);
  int64_t last = rank ? s[rank - 1] : 0, s0 = rank ? s[0] : 0;
  int64_t rest[AF_MAX_RANK];
  for (int d = 1; d < rank; d++) rest[d] = s[d];
  if (same(w, "add_") || same(w, "copy_")) {
    a[n++] = A_V(operand(b, "u", rank, s));
  } else if (same(w, "sub_")) {
    /* broadcast from the last dim */
    a[n++] = A_V(operand(b, "u", rank ? 1 : 0, &last));
  } else if (same(w, "mul_")) {
    a[n++] = A_I(3);
  } else if (same(w, "div_")) {
    a[n++] = A_I(2);
  } else if (same(w, "neg_") || same(w, "abs_") || same(w, "relu_") || same(w, "zero_") || same(w, "t_")) {
    if (same(w, "t_") && rank > 2) return af_fail(why, "t_: needs rank <= 2");
  } else if (same(w, "clamp_")) {
    a[n++] = A_I(-2), a[n++] = A_I(3);
  } else if (same(w, "fill_")) {
    a[n++] = A_I(7);
  } else if (same(w, "masked_fill_")) {
    a[n++] = A_V(cb_input(b, "m", rank, s, AF_BOOL)), a[n++] = A_I(9);
  } else if (same(w, "index_put_") || same(w, "index_add_")) {
    if (rank < 1 || s0 < 2) return af_fail(why, "%s: needs a dim 0 of size >= 2", w);
    int idx = index_input(b, s0 - 1);
    rest[0] = 2;
    int src = operand(b, "u", rank, rest);
    if (same(w, "index_put_")) {
      a[n++] = A_VALUES(1, &idx), a[n++] = A_V(src), a[n++] = A_B(0);
    } else {
      a[n++] = A_I(0), a[n++] = A_V(idx), a[n++] = A_V(src);
    }
  } else if (same(w, "scatter_")) {
    if (rank < 1 || s0 < 2) return af_fail(why, "scatter_: needs a dim 0 of size >= 2");
    rest[0] = 1;
    int idx = cb_input(b, "idx", rank, rest, AF_INT64);
    double d[1] = {(double)(s0 - 1)};
    cb_data(b, idx, 1, d);
    a[n++] = A_I(0), a[n++] = A_V(idx), a[n++] = A_I(5);
  } else if (same(w, "unsqueeze_")) {
    a[n++] = A_I(0);
  } else if (same(w, "squeeze_")) {
    if (rank < 1) return af_fail(why, "squeeze_: needs rank >= 1");
    int d = 0;
    for (int k = rank - 1; k >= 0; k--)
      if (s[k] == 1) d = k;
    a[n++] = A_I(d);
  } else if (same(w, "transpose_")) {
    if (rank < 1) return af_fail(why, "transpose_: needs rank >= 1");
    a[n++] = A_I(0), a[n++] = A_I(rank - 1);
  } else if (same(w, "setitem")) {
    /* t[1] = 5 */
    if (rank < 1 || s0 < 2) return af_fail(why, "setitem: needs a dim 0 of size >= 2");
    ir_index ix[1] = {{.kind = IR_IDX_INT, .i = 1}};
    a[n++] = A_INDEX(1, ix), a[n++] = A_I(5);
  } else if (same(w, "setitem_add")) {
    /* t[..., 1:] += 1 */
    if (rank < 1 || last < 2) return af_fail(why, "setitem_add: needs a last dim of size >= 2");
    ir_index ix[2] = {{.kind = IR_IDX_ELLIPSIS}, {.kind = IR_IDX_SLICE, .has_start = 1, .start = 1, .step = 1}};
    a[n++] = A_INDEX(2, ix), a[n++] = A_I(1);
  } else if (same(w, "setitem_sub")) {
    /* t[m] -= 2 with a boolean mask */
    if (rank < 1) return af_fail(why, "setitem_sub: needs rank >= 1");
    ir_index ix[1] = {{.kind = IR_IDX_TENSOR, .value = cb_input(b, "m", rank, s, AF_BOOL)}};
    a[n++] = A_INDEX(1, ix), a[n++] = A_I(2);
  } else if (same(w, "setitem_mul")) {
    /* t[idx] *= 2 with an integer index tensor */
    if (rank < 1 || s0 < 2) return af_fail(why, "setitem_mul: needs a dim 0 of size >= 2");
    ir_index ix[1] = {{.kind = IR_IDX_TENSOR, .value = index_input(b, s0 - 1)}};
    a[n++] = A_INDEX(1, ix), a[n++] = A_I(2);
  } else if (same(w, "add_out") || same(w, "mul_out")) {
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

static int write_into(cb *b, int op, int t, af_err *why) {
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
  return make_write(b, op, t, rank, shape, &m, storage, why);
}

/* ---- the suite ---- */

typedef struct gen {
  suite *s;
  int views[OPS_COUNT], nviews;   /* primary recipes: one per view op of the table */
  int writes[OPS_COUNT], nwrites; /* write ops of the table */
  int cores[OPS_COUNT], ncores;   /* the core writes: those with a recipe in make_write */
  const char *recipes[2 * OPS_COUNT]; /* chain recipes, in the order of suite/1 (see recipe_order) */
  int nrecipes;
  int nrecipes1; /* of them, those of suite/1 (the suite1 views and the variants) */
  int metas[OPS_COUNT], nmetas;   /* OPF_META in-place ops */
  int changed_data;               /* cases given data their writes change (finish) */
  int maybes[OPS_COUNT], nmaybes; /* OPF_MAYBE_VIEW ops */
} gen;

static void json_str(af_buf *m, const char *s);

/* Appends case id (program p, taken) to the suite, with its meta: id, the family's fields (a JSON
 * fragment that starts with ", "), the note and the generator's version. */
static void add_case(gen *g, const char *id, const char *fields, const char *note, ir_program *p) {
  af_buf m = {0};
  af_buf_puts(&m, "{\"id\": ");
  json_str(&m, id);
  af_buf_puts(&m, fields);
  af_buf_puts(&m, ", \"note\": ");
  json_str(&m, note);
  af_buf_puts(&m, ", \"generator\": \"aliasfuzz " AF_VERSION " " SUITE_VERSION "\"}");
  ir_set_meta(p, m.s);
  af_buf_free(&m);
  suite *s = g->s;
  s->cases = af_xrealloc(s->cases, sizeof(suite_case) * (size_t)(s->ncases + 1));
  s->cases[s->ncases].id = af_xstrdup(id);
  s->cases[s->ncases].p = p;
  s->ncases++;
}

/* Variants used in chains besides the primary recipes. */
static const char *const variants[] = {"slice.step", "diagonal.off", "unfold.overlap", "expand.same", "getitem.int", NULL};

static void add_skip(gen *g, const char *id, const char *why) {
  suite *s = g->s;
  s->skips = af_xrealloc(s->skips, sizeof(suite_skip) * (size_t)(s->nskips + 1));
  s->skips[s->nskips].id = af_xstrdup(id);
  s->skips[s->nskips].why = af_xstrdup(why);
  s->nskips++;
}

static void json_str(af_buf *m, const char *s) {
  af_buf_puts(m, "\"");
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') af_buf_printf(m, "\\%c", *s);
    else af_buf_printf(m, "%c", *s);
  }
  af_buf_puts(m, "\"");
}

/* The case of b with every float input that has no data of its own given data its writes may
 * change: kind 0 the default values plus 0.3 (rounding ops change them), kind 1 the same with
 * +inf and -inf as the first elements of float32 inputs (nan_to_num_ changes them). NULL when no
 * input could get data or eager rejects the result. new. */
static ir_program *with_data_writes_change(const cb *b, int kind) {
  cb alt = *b; /* shares the statements' argument lists with b: built from, never cleared */
  int given = 0, k = 0;
  for (int i = 0; i < alt.nv; i++) {
    bval *v = &alt.v[i];
    if (!v->is_input) continue;
    int index = k++;
    int64_t n = ir_numel(v->rank, v->shape);
    /* infinities only in float32: a case file holds them as +-1e308 (JSON has no inf or NaN),
     * which float32 reads back as infinite and float64 does not */
    if (v->ndata || n > 64 || !(v->dt == AF_FLOAT32 || (v->dt == AF_FLOAT64 && kind == 0))) continue;
    for (int64_t e = 0; e < n; e++) v->data[e] = ir_input_default_value(index, e, v->dt) + 0.3;
    if (kind == 1) {
      static const double special[2] = {INFINITY, -INFINITY};
      for (int64_t e = 0; e < n && e < 2; e++) v->data[e] = special[e];
    }
    v->ndata = (int)n;
    given++;
  }
  if (!given) return NULL;
  ir_program *q = cb_build(&alt, alt.nouts, alt.outs);
  result r;
  af_err err;
  result_init(&r);
  int ok = eager_run(q, &r, &err) == 0 && r.status == RESULT_OK;
  result_clear(&r);
  if (!ok) {
    ir_program_free(q);
    return NULL;
  }
  return q;
}

/* Finishes a case: checks it in eager, records it (or its skip). meta_fields is the inside of
 * the meta object after "id" and before "generator" (starts with ", " when not empty). */
static void finish(gen *g, cb *b, const char *id, const char *meta_fields, const char *note) {
  af_err why;
  result r;
  if (cb_eager(b, b->nouts, b->outs, &r, &why)) {
    add_skip(g, id, why.msg);
    return;
  }
  int complex_out[4] = {0};
  for (int k = 0; k < b->nouts && k < 4; k++) complex_out[k] = af_dtype_is_complex((af_dtype)at_tensor_dtype(r.outputs[k]));
  result_clear(&r);
  for (int k = 0; k < b->nouts && k < 4; k++) /* a program returns real tensors: a complex view as its pairs */
    if (complex_out[k]) {
      ir_arg a[1] = {A_V(b->outs[k])};
      b->outs[k] = cb_stmt(b, "pairs", OPS_view_as_real, 1, a);
    }
  if (cb_eager(b, b->nouts, b->outs, &r, &why)) {
    add_skip(g, id, why.msg);
    return;
  }
  result_clear(&r);
  ir_program *p = cb_build(b, b->nouts, b->outs);
  const char *data_note = "";
  for (int kind = 0; kind < 2 && judge_writes_change_nothing(p); kind++) {
    ir_program *q = with_data_writes_change(b, kind);
    if (!q) break;
    ir_program_free(p);
    p = q;
    data_note = kind == 0 ? " Its float inputs hold fractional values: with the default small integers its writes change nothing."
                          : " Its float inputs hold fractional values and infinities: with the default small integers its writes change nothing.";
  }
  if (judge_writes_change_nothing(p)) {
    /* a write that changes nothing proves nothing: a converter that drops it passes */
    add_skip(g, id, "its writes change nothing eager can see (every value and shape stays as it was, with fractional and infinite data too), so a converter that drops them passes");
    g->s->nunchanged++;
    ir_program_free(p);
    return;
  }
  if (*data_note) g->changed_data++;
  char *full = af_xmalloc(strlen(note) + strlen(data_note) + 1);
  strcpy(full, note);
  strcat(full, data_note);
  add_case(g, id, meta_fields, full, p);
  free(full);
}

/* Default base shape for a recipe's first application: [4, 6], or one with a size-1 dim for the
 * ops that act on one. */
static int base_shape(const char *recipe, int64_t *shape) {
  if (same(recipe, "squeeze")) {
    shape[0] = 4, shape[1] = 1, shape[2] = 6;
    return 3;
  }
  if (same(recipe, "expand") || same(recipe, "expand_as")) {
    shape[0] = 4, shape[1] = 1;
    return 2;
  }
  shape[0] = 4, shape[1] = 6;
  return 2;
}

/* b = clone(x) (intermediate base) or x itself (input base). Returns the base. */
static int make_base_dt(cb *b, int rank, const int64_t *shape, int intermediate, af_dtype dt) {
  int x = cb_input(b, "x", rank, shape, dt);
  if (!intermediate) return x;
  ir_arg a[1] = {A_V(x)};
  return cb_stmt(b, "b", ops_find("clone"), 1, a);
}

static int make_base(cb *b, int rank, const int64_t *shape, int intermediate) {
  return make_base_dt(b, rank, shape, intermediate, AF_FLOAT32);
}

/* A chain of views from a fresh base: recipes[0..n-1]. On success *base and the last view. */
static int make_chain_dt(cb *b, const char *const *recipes, int n, int intermediate, af_dtype dt, int *base, int *last,
                         af_err *why) {
  int64_t shape[AF_MAX_RANK];
  int rank = base_shape(recipes[0], shape);
  int64_t storage = ir_numel(rank, shape);
  *base = make_base_dt(b, rank, shape, intermediate, dt);
  int cur = *base;
  static const char *const names[] = {"v", "w", "z"};
  for (int k = 0; k < n; k++) {
    if (k > 0 && cb_shape(b, cur, &rank, shape, why)) return -1;
    cur = make_view(b, recipes[k], cur, rank, shape, storage, names[k], why);
    if (cur < 0) return -1;
  }
  *last = cur;
  return 0;
}

static int make_chain(cb *b, const char *const *recipes, int n, int intermediate, int *base, int *last, af_err *why) {
  return make_chain_dt(b, recipes, n, intermediate, AF_FLOAT32, base, last, why);
}

/* The view ops of suite/1, the suite before the op table grew (issue 9). The chain family numbers
 * its cases in recipe order and rotates its writes by that number, so the recipes keep the order
 * they had: these views (in table order), then the variants, then every view added since (in table
 * order). Only ids depend on this list, no op fact does. */
static const char *const suite1_views[] = {"slice", "select", "narrow", "view", "reshape", "flatten", "unflatten", "squeeze",
                                           "unsqueeze", "transpose", "t", "permute", "movedim", "expand", "expand_as", "view_as",
                                           "diagonal", "as_strided", "unfold", "detach", "alias", "getitem", NULL};

static int in_suite1(const char *name) {
  for (int k = 0; suite1_views[k]; k++)
    if (same(suite1_views[k], name)) return 1;
  return 0;
}

static void recipe_order(gen *g) {
  g->nrecipes = 0;
  for (int vi = 0; vi < g->nviews; vi++)
    if (in_suite1(ops_get(g->views[vi])->name)) g->recipes[g->nrecipes++] = ops_get(g->views[vi])->name;
  for (int k = 0; variants[k]; k++) g->recipes[g->nrecipes++] = variants[k];
  g->nrecipes1 = g->nrecipes;
  for (int vi = 0; vi < g->nviews; vi++)
    if (!in_suite1(ops_get(g->views[vi])->name)) g->recipes[g->nrecipes++] = ops_get(g->views[vi])->name;
}

static const char *recipe_name(const gen *g, int k) { return g->recipes[k]; }

static int nrecipes(const gen *g) { return g->nrecipes; }

static void fam_matrix(gen *g) {
  static const char *const modes[] = {"through", "base", "input"};
  for (int vi = 0; vi < g->nviews; vi++)
    for (int wi = 0; wi < g->ncores; wi++)
      for (int m = 0; m < 3; m++) {
        const char *V = ops_get(g->views[vi])->name, *W = ops_get(g->cores[wi])->name;
        char id[128], fields[256], note[256];
        snprintf(id, sizeof id, "mx-%s-%s-%s", V, W, modes[m]);
        snprintf(fields, sizeof fields, ", \"family\": \"matrix-%s\", \"view\": \"%s\", \"write\": \"%s\"", modes[m], V, W);
        cb b = {0};
        af_err why;
        int base, v;
        const char *chain[1] = {V};
        if (make_chain(&b, chain, 1, m != 2, &base, &v, &why)) {
          add_skip(g, id, why.msg);
          cb_clear(&b);
          continue;
        }
        int target = m == 1 ? base : v;
        if (write_into(&b, g->cores[wi], target, &why)) {
          add_skip(g, id, why.msg);
          cb_clear(&b);
          continue;
        }
        b.outs[0] = base, b.outs[1] = v, b.nouts = 2;
        if (m == 0) snprintf(note, sizeof note, "b = x.clone(); v = %s(b); v.%s(...); return b, v: a write through a view", V, W);
        else if (m == 1)
          snprintf(note, sizeof note, "b = x.clone(); v = %s(b); b.%s(...); return b, v: a write into the base after the view was made", V, W);
        else snprintf(note, sizeof note, "v = %s(x); v.%s(...); return x, v: a write into an input through its view", V, W);
        finish(g, &b, id, fields, note);
        cb_clear(&b);
      }
}

/* Writes used by the families that rotate through them: every core write, in table order. */
static int rotate_write(const gen *g, int k) { return g->cores[k % g->ncores]; }

/* Tries the writes of the rotation from position k until one fits target; -1 when none does. */
static int write_rotating(gen *g, cb *b, int k, int target, af_err *why, int *wop) {
  result r0;
  if (cb_eager(b, 1, &target, &r0, why)) return -1;
  result_clear(&r0);
  af_err last = {"no write of the table fits"};
  for (int t = 0; t < g->ncores; t++) {
    int nv = b->nv, ns = b->ns;
    if (write_into(b, rotate_write(g, k + t), target, why) == 0) {
      /* keep it only when eager accepts the case so far */
      result r;
      af_err e2;
      if (cb_eager(b, 1, &target, &r, &e2) == 0) {
        result_clear(&r);
        *wop = rotate_write(g, k + t);
        return 0;
      }
      for (int a = 0; a < b->s[ns].nargs; a++) ir_arg_free(&b->s[ns].args[a]);
      last = e2;
    } else {
      last = *why;
    }
    b->nv = nv, b->ns = ns;
  }
  return af_fail(why, "no write of the table fits (the last one tried: %s)", last.msg);
}

/* The write ops without a recipe here (the table's other writes, arguments from its samplers):
 * instead of the full matrix (which would be ~13,000 cases), each through a few placements that
 * cover the three modes, on a float32 base, or int64 or bool where the op takes no float target
 * (bitwise, logical). Same ids and meta as the matrix (mx-V-W-M). */
static void fam_sampled(gen *g) {
  static const struct {
    const char *view;
    int mode; /* 0 through, 1 base, 2 input */
  } places[] = {{"slice", 0}, {"transpose", 2}, {"select", 0}, {"diagonal", 1}, {NULL, 0},
                /* tried only for an op that none of the above fits (baddbmm_ wants rank 3) */
                {"unsqueeze", 0}, {"alias", 1}, {NULL, 0}};
  static const char *const modes[] = {"through", "base", "input"};
  static const af_dtype dts[] = {AF_FLOAT32, AF_FLOAT64, AF_INT64, AF_BOOL};
  for (int wi = 0; wi < g->nwrites; wi++) {
    int wop = g->writes[wi], core = 0;
    for (int c = 0; c < g->ncores; c++) core |= g->cores[c] == wop;
    if (core) continue;
    int made = 0;
    for (int pl = 0; pl < (int)(sizeof places / sizeof places[0]); pl++) {
      if (!places[pl].view) {
        if (made) break;
        continue;
      }
      const char *V = places[pl].view, *W = ops_get(wop)->name;
      int m = places[pl].mode;
      char id[128], fields[256], note[256];
      snprintf(id, sizeof id, "mx-%s-%s-%s", V, W, modes[m]);
      snprintf(fields, sizeof fields, ", \"family\": \"matrix-%s\", \"view\": \"%s\", \"write\": \"%s\"", modes[m], V, W);
      af_err why = {"?"}, first = {""};
      int done = 0;
      for (int di = 0; di < 4 && !done; di++) {
        cb b = {0};
        int base, v;
        const char *chain[1] = {V};
        result r;
        b.outs[0] = -1;
        if (make_chain_dt(&b, chain, 1, m != 2, dts[di], &base, &v, &why) || write_into(&b, wop, m == 1 ? base : v, &why) ||
            (b.outs[0] = base, b.outs[1] = v, b.nouts = 2, cb_eager(&b, b.nouts, b.outs, &r, &why))) {
          /* the float32 reason is the one SKIPPED.md gives (the others only say the dtype does not fit either) */
          if (!first.msg[0]) first = why;
          cb_clear(&b);
          continue;
        }
        result_clear(&r);
        if (m == 0) snprintf(note, sizeof note, "b = x.clone(); v = %s(b); v.%s(...); return b, v: a write through a view", V, W);
        else if (m == 1)
          snprintf(note, sizeof note, "b = x.clone(); v = %s(b); b.%s(...); return b, v: a write into the base after the view was made", V, W);
        else snprintf(note, sizeof note, "v = %s(x); v.%s(...); return x, v: a write into an input through its view", V, W);
        int before = g->s->ncases;
        finish(g, &b, id, fields, note);
        made += g->s->ncases > before;
        cb_clear(&b);
        done = 1;
      }
      if (!done) add_skip(g, id, first.msg);
    }
  }
}

static void fam_inputbase(gen *g) {
  for (int vi = 0; vi < g->nviews; vi++) {
    const char *V = ops_get(g->views[vi])->name;
    cb b = {0};
    af_err why;
    int base, v, wop;
    const char *chain[1] = {V};
    char id[128], fields[256], note[256];
    if (make_chain(&b, chain, 1, 0, &base, &v, &why) || write_rotating(g, &b, vi * 5, base, &why, &wop)) {
      snprintf(id, sizeof id, "inb-%s", V);
      add_skip(g, id, why.msg);
      cb_clear(&b);
      continue;
    }
    const char *W = ops_get(wop)->name;
    snprintf(id, sizeof id, "inb-%s-%s", V, W);
    snprintf(fields, sizeof fields, ", \"family\": \"input-base\", \"view\": \"%s\", \"write\": \"%s\"", V, W);
    snprintf(note, sizeof note, "v = %s(x); x.%s(...); return x, v: an input written after a view of it was made", V, W);
    b.outs[0] = base, b.outs[1] = v, b.nouts = 2;
    finish(g, &b, id, fields, note);
    cb_clear(&b);
  }
}

static void fam_chains(gen *g) {
  /* depth 2: every recipe, then one of these */
  static const char *const second[] = {"slice", "select", "transpose", "view", "diagonal", "unsqueeze", "getitem", "as_strided", NULL};
  /* depth 3: every recipe, then one of these pairs */
  static const char *const third[][2] = {{"select", "unsqueeze"}, {"transpose", "slice.step"}, {"slice", "diagonal"}, {NULL, NULL}};
  int nr = nrecipes(g), nsecond = 0, nthird = 0;
  while (second[nsecond]) nsecond++;
  while (third[nthird][0]) nthird++;
  /* k numbers the cases as suite/1 did (its ch3 cases counted on from its ch2 cases); the recipes
   * added since number after them */
  for (int r = 0; r < nr; r++)
    for (int j = 0; second[j]; j++) {
      int k = r * nsecond + j;
      const char *chain[2] = {recipe_name(g, r), second[j]};
      int inter = k % 2 == 0;
      cb b = {0};
      af_err why;
      int base, v, wop;
      char id[160], fields[320], note[320];
      if (make_chain(&b, chain, 2, inter, &base, &v, &why) || write_rotating(g, &b, k * 3, v, &why, &wop)) {
        snprintf(id, sizeof id, "ch2-%s-%s-%s", chain[0], chain[1], inter ? "through" : "input");
        add_skip(g, id, why.msg);
        cb_clear(&b);
        continue;
      }
      const char *W = ops_get(wop)->name;
      snprintf(id, sizeof id, "ch2-%s-%s-%s-%s", chain[0], chain[1], W, inter ? "through" : "input");
      snprintf(fields, sizeof fields, ", \"family\": \"chain-2\", \"view\": \"%s\", \"views\": [\"%s\", \"%s\"], \"write\": \"%s\"",
               chain[0], chain[0], chain[1], W);
      snprintf(note, sizeof note, "v = %s(%s); w = %s(v); w.%s(...); return %s, w: a write through a view of a view", chain[0],
               inter ? "x.clone()" : "x", chain[1], W, inter ? "the base" : "x");
      b.outs[0] = base, b.outs[1] = v, b.nouts = 2;
      finish(g, &b, id, fields, note);
      cb_clear(&b);
    }
  for (int r = 0; r < nr; r++)
    for (int j = 0; third[j][0]; j++) {
      int k = g->nrecipes1 * nsecond + r * nthird + j;
      const char *chain[3] = {recipe_name(g, r), third[j][0], third[j][1]};
      int inter = k % 2 == 0;
      cb b = {0};
      af_err why;
      int base, v, wop;
      char id[200], fields[360], note[360];
      if (make_chain(&b, chain, 3, inter, &base, &v, &why) || write_rotating(g, &b, k * 3, v, &why, &wop)) {
        snprintf(id, sizeof id, "ch3-%s-%s-%s-%s", chain[0], chain[1], chain[2], inter ? "through" : "input");
        add_skip(g, id, why.msg);
        cb_clear(&b);
        continue;
      }
      const char *W = ops_get(wop)->name;
      snprintf(id, sizeof id, "ch3-%s-%s-%s-%s-%s", chain[0], chain[1], chain[2], W, inter ? "through" : "input");
      snprintf(fields, sizeof fields,
               ", \"family\": \"chain-3\", \"view\": \"%s\", \"views\": [\"%s\", \"%s\", \"%s\"], \"write\": \"%s\"", chain[0],
               chain[0], chain[1], chain[2], W);
      snprintf(note, sizeof note, "v = %s(%s); w = %s(v); z = %s(w); z.%s(...); return %s, z: a write through a chain of three views",
               chain[0], inter ? "x.clone()" : "x", chain[1], chain[2], W, inter ? "the base" : "x");
      b.outs[0] = base, b.outs[1] = v, b.nouts = 2;
      finish(g, &b, id, fields, note);
      cb_clear(&b);
    }
}

static void fam_siblings(gen *g) {
  static const char *const other[] = {"slice", "transpose", "diagonal", "select", NULL};
  int k = 0;
  for (int vi = 0; vi < g->nviews; vi++)
    for (int j = 0; other[j]; j++, k++) {
      const char *V = ops_get(g->views[vi])->name;
      cb b = {0};
      af_err why;
      int base, v, w, wop, rank;
      int64_t shape[AF_MAX_RANK];
      char id[160], fields[320], note[320];
      const char *chain[1] = {V};
      if (make_chain(&b, chain, 1, 1, &base, &v, &why) || cb_shape(&b, base, &rank, shape, &why) ||
          (w = make_view(&b, other[j], base, rank, shape, ir_numel(rank, shape), "w", &why)) < 0 ||
          write_rotating(g, &b, k * 7, v, &why, &wop)) {
        snprintf(id, sizeof id, "sib-%s-%s", V, other[j]);
        add_skip(g, id, why.msg);
        cb_clear(&b);
        continue;
      }
      const char *W = ops_get(wop)->name;
      snprintf(id, sizeof id, "sib-%s-%s-%s", V, other[j], W);
      snprintf(fields, sizeof fields, ", \"family\": \"siblings\", \"view\": \"%s\", \"views\": [\"%s\", \"%s\"], \"write\": \"%s\"", V,
               V, other[j], W);
      snprintf(note, sizeof note, "b = x.clone(); v = %s(b); w = %s(b); v.%s(...); return b, v, w: two live views of one base", V,
               other[j], W);
      b.outs[0] = base, b.outs[1] = v, b.outs[2] = w, b.nouts = 3;
      finish(g, &b, id, fields, note);
      cb_clear(&b);
    }
}

static void fam_meta(gen *g) {
  static const char *const places[] = {"input", "base", "view", "input-view", "base-then-view", NULL};
  for (int mi = 0; mi < g->nmetas; mi++)
    for (int pl = 0; places[pl]; pl++) {
      const char *M = ops_get(g->metas[mi])->name, *P = places[pl];
      cb b = {0};
      af_err why;
      int64_t shape[AF_MAX_RANK] = {4, 6};
      int rank = 2;
      char id[128], fields[256], note[320];
      snprintf(id, sizeof id, "meta-%s-%s", M, P);
      int inter = same(P, "base") || same(P, "view") || same(P, "base-then-view");
      int base = make_base(&b, rank, shape, inter), target = base;
      if (same(P, "view") || same(P, "input-view")) target = make_view(&b, "slice", base, rank, shape, 24, "v", &why);
      if (write_into(&b, g->metas[mi], target, &why) || cb_shape(&b, target, &rank, shape, &why)) {
        add_skip(g, id, why.msg);
        cb_clear(&b);
        continue;
      }
      if (same(P, "base-then-view")) {
        /* a view of the reshaped tensor, written through: the write lands where the new shape says */
        int s = make_view(&b, rank >= 1 && shape[rank - 1] >= 2 ? "getitem.int" : "alias", target, rank, shape, 24, "s", &why);
        ir_arg a[2] = {A_V(s), A_I(1)};
        cb_stmt(&b, NULL, ops_find("fill_"), 2, a);
        b.outs[0] = base, b.outs[1] = s, b.nouts = 2;
        snprintf(note, sizeof note, "b = x.clone(); b.%s(...); s = b[..., 1]; s.fill_(1); return b, s: views made after a shape change", M);
      } else {
        ir_arg a[2] = {A_V(target), A_I(2)};
        int r = cb_stmt(&b, "r", ops_find("mul"), 2, a);
        b.outs[0] = r, b.outs[1] = base, b.nouts = 2;
        snprintf(note, sizeof note, "%s.%s(...); r = %s * 2; return r, %s: later uses of the name see the new shape",
                 target == base ? (inter ? "b" : "x") : "v", M, target == base ? (inter ? "b" : "x") : "v", inter ? "b" : "x");
      }
      snprintf(fields, sizeof fields, ", \"family\": \"shape-changing\", \"write\": \"%s\", \"place\": \"%s\"", M, P);
      finish(g, &b, id, fields, note);
      cb_clear(&b);
    }
}

static void fam_maybe_view(gen *g) {
  /* sources: s = b (contiguous), b[1:3] (contiguous), b.t(), b[:, :-1] (neither) */
  static const char *const sources[] = {"whole", "rows", "t", "cols", NULL};
  static const char *const writes[] = {"fill_", "add_", "setitem", NULL};
  for (int ri = 0; ri < g->nmaybes; ri++)
    for (int si = 0; sources[si]; si++)
      for (int wi = 0; writes[wi]; wi++)
        for (int inter = 1; inter >= 0; inter--) {
          const char *R = ops_get(g->maybes[ri])->name, *S = sources[si], *Wn = writes[wi];
          int wop = ops_find(Wn);
          cb b = {0};
          af_err why;
          int64_t shape[AF_MAX_RANK] = {4, 6};
          int rank = 2;
          char id[128], fields[256], note[320];
          snprintf(id, sizeof id, "mv-%s-%s-%s-%s", R, S, Wn, inter ? "through" : "input");
          int base = make_base(&b, rank, shape, inter), src = base;
          if (same(S, "rows")) src = make_view(&b, "slice", base, rank, shape, 24, "s", &why);
          if (same(S, "t")) src = make_view(&b, "t", base, rank, shape, 24, "s", &why);
          if (same(S, "cols")) {
            ir_arg a[5] = {A_V(base), A_I(1), A_I(0), A_I(5), A_I(1)};
            src = cb_stmt(&b, "s", ops_find("slice"), 5, a);
          }
          int r = -1;
          if (wop < 0 || cb_shape(&b, src, &rank, shape, &why) ||
              (r = make_view(&b, R, src, rank, shape, 24, "r", &why)) < 0) {
            add_skip(g, id, why.msg);
            cb_clear(&b);
            continue;
          }
          int shares = cb_shares(&b, base, r, &why);
          if (shares < 0 || write_into(&b, wop, r, &why)) {
            add_skip(g, id, why.msg);
            cb_clear(&b);
            continue;
          }
          b.outs[0] = base, b.outs[1] = r, b.nouts = 2;
          snprintf(fields, sizeof fields, ", \"family\": \"maybe-view\", \"view\": \"%s\", \"write\": \"%s\", \"aliases\": %s", R, Wn,
                   shares ? "true" : "false");
          snprintf(note, sizeof note, "r = %s(%s); r.%s(...): here %s is a %s, so the write %s the base", R,
                   same(S, "whole") ? "b" : same(S, "rows") ? "b[1:3]" : same(S, "t") ? "b.t()" : "b[:, :-1]", Wn, R,
                   shares ? "view" : "copy", shares ? "reaches" : "does not reach");
          finish(g, &b, id, fields, note);
          cb_clear(&b);
        }
}

/* ---- aliased inputs (issue 16): inputs that share memory, strided, offset and expanded inputs.
 * Each layout is written with a few in-place ops; eager is asked as for every case. */

typedef struct alay {
  const char *name, *note;
  int hidden;         /* size of a hidden base "buf" (0: none) */
  int ninputs;        /* 1..3 inputs of float32 */
  const char *names[3];
  int rank[3];
  int64_t shape[3][2], strides[3][2], offset[3];
  int view_of[3];     /* -2: plain; -1: own storage (size storage[k]); 9: the hidden base; else an earlier input */
  int64_t storage[3];
  int first, second;  /* inputs written (second -1: one write) */
  int read;           /* the input read into the output y = read * 2 */
} alay;

static const alay alayouts[] = {
    {"base-and-slice", "b is a[1:3], passed as its own input; both are written", 0, 2, {"a", "b"}, {2, 2},
     {{4, 6}, {2, 6}}, {{6, 1}, {6, 1}}, {0, 6}, {-2, 0}, {0}, 0, 1, 0},
    {"slice-written-base-read", "b is a[1:3]; only b is written, a is read and returned", 0, 2, {"a", "b"}, {2, 2},
     {{4, 6}, {2, 6}}, {{6, 1}, {6, 1}}, {0, 6}, {-2, 0}, {0}, 1, -1, 0},
    {"overlapping-windows", "w1 and w2 are 3x4 windows of one buffer the caller owns, two rows apart (overlapping)", 24, 2,
     {"w1", "w2"}, {2, 2}, {{3, 4}, {3, 4}}, {{4, 1}, {4, 1}}, {0, 8}, {9, 9}, {0}, 0, 1, 1},
    {"disjoint-windows", "w1 and w2 are disjoint halves of one buffer the caller owns", 24, 2, {"w1", "w2"}, {2, 2},
     {{3, 4}, {3, 4}}, {{4, 1}, {4, 1}}, {0, 12}, {9, 9}, {0}, 0, -1, 1},
    {"transposed", "w is a transposed weight (strides [1, 6]) written through", 0, 1, {"w"}, {2}, {{6, 4}}, {{1, 6}}, {0},
     {-1}, {24}, 0, -1, 0},
    {"offset", "x starts 5 elements into a storage of 30", 0, 1, {"x"}, {2}, {{4, 5}}, {{5, 1}}, {5}, {-1}, {30}, 0, -1, 0},
    {"stepped-view", "b is a[:, ::2] (stride 2), passed as its own input; b is written, a read", 0, 2, {"a", "b"}, {2, 2},
     {{4, 6}, {4, 3}}, {{6, 1}, {6, 2}}, {0, 0}, {-2, 0}, {0}, 1, -1, 0},
    {"transposed-view", "b is a.t(), passed as its own input; b is written, a read", 0, 2, {"a", "b"}, {2, 2},
     {{4, 6}, {6, 4}}, {{6, 1}, {1, 6}}, {0, 0}, {-2, 0}, {0}, 1, -1, 0},
    {"expanded-read", "e is buf expanded to 4x6 (stride 0), row is buf itself: a write through row shows in every row of e", 6, 2,
     {"e", "row"}, {2, 1}, {{4, 6}, {6}}, {{0, 1}, {1}}, {0, 0}, {9, 9}, {0}, 1, -1, 0},
};

static const char *const alay_writes[] = {"add_", "mul_", "fill_", "zero_", "neg_", "abs_", "relu_", "clamp_", NULL};

static int alay_write(ir_program *p, int op, int v) {
  const ops_entry *e = ops_get(op);
  ir_arg a[3] = {{.kind = IR_ARG_VALUE, .value = v}, {.kind = IR_ARG_INT, .i = op == ops_find("mul_") ? -2 : 3, .value = -1},
                 {.kind = IR_ARG_INT, .i = 2, .value = -1}};
  if (op == ops_find("clamp_")) a[1].i = -1;
  return ir_add_stmt(p, op, -1, e->nargs, a);
}

static void fam_aliased(gen *g) {
  for (size_t li = 0; li < sizeof alayouts / sizeof alayouts[0]; li++)
    for (int wi = 0; alay_writes[wi]; wi++) {
      const alay *L = &alayouts[li];
      const char *W = alay_writes[wi];
      int wop = ops_find(W);
      char id[128], fields[256], note[384];
      snprintf(id, sizeof id, "ali-%s-%s", L->name, W);
      if (wop < 0) continue;
      ir_program *p = ir_program_new();
      int hb = L->hidden ? ir_add_base(p, "buf", -1, L->hidden, AF_FLOAT32) : -1;
      for (int k = 0; k < L->ninputs; k++) {
        ir_add_input(p, L->names[k], L->rank[k], L->shape[k], AF_FLOAT32);
        int vo = L->view_of[k];
        if (vo == -2) continue;
        int b = vo == 9 ? hb : vo == -1 ? ir_add_base(p, L->names[k], k, L->storage[k], AF_FLOAT32) : -1;
        if (vo >= 0 && vo != 9) { /* a view of an earlier input: that input's storage */
          if (!p->inputs[vo].base) {
            int64_t st[AF_MAX_RANK];
            ir_contiguous_strides(p->inputs[vo].rank, p->inputs[vo].shape, st);
            ir_set_layout(p, vo, ir_add_base(p, L->names[vo], vo, ir_numel(p->inputs[vo].rank, p->inputs[vo].shape), AF_FLOAT32), st, 0);
          }
          b = p->inputs[vo].base - 1;
        }
        ir_set_layout(p, k, b, L->strides[k], L->offset[k]);
      }
      alay_write(p, wop, L->first);
      if (L->second >= 0) alay_write(p, wop, L->second);
      int r = ir_add_value(p, "y");
      ir_arg a[2] = {{.kind = IR_ARG_VALUE, .value = L->read}, {.kind = IR_ARG_INT, .i = 2, .value = -1}};
      ir_add_stmt(p, ops_find("mul"), r, 2, a);
      p->noutputs = 2;
      p->outputs = af_xcalloc(2, sizeof(int));
      p->outputs[0] = r, p->outputs[1] = L->first;
      af_err why;
      result res;
      result_init(&res);
      if (ir_validate(p, &why) || eager_run(p, &res, &why) || res.status != RESULT_OK) {
        add_skip(g, id, res.message ? res.message : why.msg);
        result_clear(&res);
        ir_program_free(p);
        continue;
      }
      result_clear(&res);
      snprintf(fields, sizeof fields, ", \"family\": \"aliased-input\", \"layout\": \"%s\", \"write\": \"%s\"", L->name, W);
      snprintf(note, sizeof note, "%s; %s.%s(...)%s%s; return %s * 2, %s", L->note, L->names[L->first], W,
               L->second >= 0 ? ", then " : "", L->second >= 0 ? L->names[L->second] : "", L->names[L->read], L->names[L->first]);
      add_case(g, id, fields, note, p);
    }
}

/* The foreach ops (torch._foreach_add_([p0, p1], ...), issue 15): each op with its list in three
 * placements: two views of one flat input buffer (an optimizer's parameters: flat[0:4].view([2, 2])
 * and flat[4:10]), two views of a clone (a row and a strided block: the writes reach the clone,
 * which is returned), and an input with a view of another input. List operands are inputs of
 * each element's shape; the number is 2 (div_: halves stay exact). */
static void fam_foreach(gen *g) {
  static const char *const places[] = {"flat", "through", "mixed"};
  for (int op = 0; op < OPS_COUNT; op++) {
    const ops_entry *e = ops_get(op);
    if (e->kind != OPS_FOREACH) continue;
    for (int pl = 0; pl < 3; pl++) {
      cb b = {0};
      int el[2], base, outv;
      const char *what;
      if (pl == 0) {
        int64_t s10[1] = {10}, s22[2] = {2, 2};
        int x = cb_input(&b, "flat", 1, s10, AF_FLOAT32);
        ir_arg a0[5] = {A_V(x), A_I(0), A_I(0), A_I(4), A_I(1)};
        int h = cb_stmt(&b, "h0", OPS_slice, 5, a0);
        ir_arg a1[2] = {A_V(h), A_INTS(2, s22)};
        el[0] = cb_stmt(&b, "p0", OPS_view, 2, a1);
        ir_arg a2[5] = {A_V(x), A_I(0), A_I(4), A_I(10), A_I(1)};
        el[1] = cb_stmt(&b, "p1", OPS_slice, 5, a2);
        base = x, outv = el[0];
        what = "p0 = flat[0:4].view([2, 2]); p1 = flat[4:10]";
      } else if (pl == 1) {
        int64_t s34[2] = {3, 4};
        int x = cb_input(&b, "x", 2, s34, AF_FLOAT32);
        ir_arg c[1] = {A_V(x)};
        base = cb_stmt(&b, "b", OPS_clone, 1, c);
        ir_arg a0[3] = {A_V(base), A_I(0), A_I(0)};
        el[0] = cb_stmt(&b, "v0", OPS_select, 3, a0);
        ir_arg a1[5] = {A_V(base), A_I(0), A_I(1), A_I(3), A_I(1)};
        int r = cb_stmt(&b, "r", OPS_slice, 5, a1);
        ir_arg a2[5] = {A_V(r), A_I(1), A_I(0), A_I(4), A_I(2)};
        el[1] = cb_stmt(&b, "v1", OPS_slice, 5, a2);
        outv = el[1];
        what = "b = x.clone(); v0 = b[0]; v1 = b[1:3][:, 0:4:2]";
      } else {
        int64_t s34[2] = {3, 4}, s4[1] = {4};
        int x = cb_input(&b, "x", 2, s34, AF_FLOAT32);
        int y = cb_input(&b, "y", 1, s4, AF_FLOAT32);
        ir_arg a0[3] = {A_V(x), A_I(0), A_I(1)};
        el[0] = y;
        el[1] = cb_stmt(&b, "v", OPS_select, 3, a0);
        base = x, outv = y;
        what = "v = x[1]; the list is [y, v]";
      }
      ir_arg args[OPS_MAX_ARGS];
      args[0] = A_VALUES(2, el);
      for (int k = 1; k < e->nargs; k++) {
        if (e->argk[k][0] == 'L') {
          int ov[2];
          for (int j = 0; j < 2; j++) {
            int rank;
            int64_t shape[AF_MAX_RANK];
            af_err why;
            if (cb_shape(&b, el[j], &rank, shape, &why)) rank = 0;
            char name[8];
            snprintf(name, sizeof name, "g%d", (k - 1) * 2 + j);
            ov[j] = cb_input(&b, name, rank, shape, AF_FLOAT32);
          }
          args[k] = A_VALUES(2, ov);
        } else {
          args[k] = A_I(2);
        }
      }
      cb_stmt(&b, NULL, op, e->nargs, args);
      b.outs[0] = base, b.outs[1] = outv, b.nouts = 2;
      char id[128], fields[256], note[512];
      snprintf(id, sizeof id, "fe-%s-%s", e->name, places[pl]);
      snprintf(fields, sizeof fields, ", \"family\": \"foreach\", \"layout\": \"%s\", \"write\": \"%s\"", places[pl], e->name);
      snprintf(note, sizeof note, "%s; torch.%s(...) on the list writes each element in place, each element's write reaching its storage: %s",
               what, e->aten + 6, pl == 0 ? "the input flat, through both views" : pl == 1 ? "the clone b, returned" : "the inputs x and y");
      finish(g, &b, id, fields, note);
      cb_clear(&b);
    }
  }
}

int suite_generate(suite **out, af_err *err) {
  gen g = {af_xcalloc(1, sizeof(suite))};
  for (int op = 0; op < OPS_COUNT; op++) {
    const ops_entry *e = ops_get(op);
    if (e->kind == OPS_VIEW || e->kind == OPS_GETITEM) g.views[g.nviews++] = op;
    if (e->kind == OPS_INPLACE || e->kind == OPS_SETITEM || e->kind == OPS_OUT) g.writes[g.nwrites++] = op;
    if (e->kind == OPS_INPLACE && (e->flags & OPF_META)) g.metas[g.nmetas++] = op;
    if (e->flags & OPF_MAYBE_VIEW) g.maybes[g.nmaybes++] = op;
  }
  /* every view op of the table needs a recipe, every write op a recipe (a core write) or a
   * sampler of the table: try each on a plain [4, 6] tensor */
  for (int k = 0; k < g.nviews + g.nwrites; k++) {
    cb b = {0};
    int64_t shape[2] = {4, 6};
    int x = cb_input(&b, "x", 2, shape, AF_FLOAT32);
    af_err why;
    int w = k < g.nviews ? -1 : g.writes[k - g.nviews];
    int rc = w < 0 ? make_view(&b, ops_get(g.views[k])->name, x, 2, shape, 24, "v", &why)
                   : make_write(&b, w, x, 2, shape, NULL, 0, &why);
    cb_clear(&b);
    if (rc < 0 && strstr(why.msg, "no recipe") && (w < 0 || !ops_shape_can_sample(w))) {
      suite_free(g.s);
      return af_fail(err, "suite: %s (add one to fuzz/suite.c)", why.msg);
    }
    if (w >= 0 && !(rc < 0 && strstr(why.msg, "no recipe"))) g.cores[g.ncores++] = w;
  }
  recipe_order(&g);
  fam_matrix(&g);
  fam_sampled(&g);
  fam_inputbase(&g);
  fam_chains(&g);
  fam_siblings(&g);
  fam_meta(&g);
  fam_maybe_view(&g);
  fam_aliased(&g);
  fam_foreach(&g);
  g.s->ndata = g.changed_data;
  *out = g.s;
  return 0;
}

void suite_free(suite *s) {
  if (!s) return;
  for (int i = 0; i < s->ncases; i++) {
    free(s->cases[i].id);
    ir_program_free(s->cases[i].p);
  }
  for (int i = 0; i < s->nskips; i++) {
    free(s->skips[i].id);
    free(s->skips[i].why);
  }
  free(s->cases);
  free(s->skips);
  free(s);
}

char *suite_skipped_md(const suite *s) {
  af_buf b = {0};
  af_buf_printf(&b,
                "# Skipped combinations\n\n"
                "Generated by `aliasfuzz suite` (fuzz/suite.c, %s); do not edit. %d cases were generated; these %d\n"
                "combinations were not, because eager PyTorch rejects them (its message) or because no arguments\n"
                "of the suite's small shapes fit the op (the reason), or because their writes change nothing eager\n"
                "can see (%d of them: a write that changes nothing proves nothing, since a converter that drops it\n"
                "passes). %d of the cases hold fractional (or infinite) input data, because with the\n"
                "default small integers their writes change nothing (rounding ops, nan_to_num_).\n\n",
                SUITE_VERSION, s->ncases, s->nskips, s->nunchanged, s->ndata);
  for (int i = 0; i < s->nskips; i++) {
    af_buf_printf(&b, "- `%s`: ", s->skips[i].id);
    for (const char *c = s->skips[i].why; *c && *c != '\n'; c++) af_buf_printf(&b, "%c", *c);
    af_buf_puts(&b, "\n");
  }
  return af_buf_take(&b);
}

/* Whether the file at path was written by this generator (meta.generator mentions SUITE_VERSION's
 * family "suite/"). */
static int generated_file(const char *path) {
  char *t = codec_slurp(path, NULL, NULL);
  cJSON *j = t ? cJSON_Parse(t) : NULL;
  const char *g = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "meta"), "generator"));
  int yes = g && strncmp(g, "aliasfuzz ", 10) == 0 && strstr(g, " suite/") != NULL;
  cJSON_Delete(j);
  free(t);
  return yes;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int suite_write(const suite *s, const char *dir, int check_only, af_buf *diff, af_err *err) {
  int differs = 0;
  char path[4096];
  if (!check_only && findings_mkdirs(dir, err)) return -1;
  for (int i = 0; i < s->ncases; i++) {
    snprintf(path, sizeof path, "%s/%s.json", dir, s->cases[i].id);
    char *text = codec_write_string(s->cases[i].p);
    char *old = codec_slurp(path, NULL, NULL);
    if (!old || strcmp(old, text) != 0) {
      differs = 1;
      if (diff) af_buf_printf(diff, "%s: %s\n", path, old ? "differs from the generator's" : "missing");
      if (!check_only && codec_write_atomic(path, text, strlen(text), err)) {
        free(text);
        free(old);
        return -1;
      }
    }
    free(text);
    free(old);
  }
  /* generated files that are no longer generated */
  DIR *d = opendir(dir);
  struct dirent *e;
  char **ids = af_xcalloc((size_t)s->ncases + 1, sizeof(char *));
  for (int i = 0; i < s->ncases; i++) ids[i] = s->cases[i].id;
  qsort(ids, (size_t)s->ncases, sizeof(char *), cmp_str);
  while (d && (e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
    char id[512];
    snprintf(id, sizeof id, "%.*s", (int)(n - 5), e->d_name);
    char *key = id;
    if (bsearch(&key, ids, (size_t)s->ncases, sizeof(char *), cmp_str)) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (!generated_file(path)) continue;
    differs = 1;
    if (diff) af_buf_printf(diff, "%s: no longer generated\n", path);
    if (!check_only && unlink(path) != 0) {
      closedir(d);
      free(ids);
      return af_fail(err, "%s: %s", path, strerror(errno));
    }
  }
  if (d) closedir(d);
  free(ids);
  snprintf(path, sizeof path, "%s/SKIPPED.md", dir);
  char *md = suite_skipped_md(s), *old = codec_slurp(path, NULL, NULL);
  if (!old || strcmp(old, md) != 0) {
    differs = 1;
    if (diff) af_buf_printf(diff, "%s: %s\n", path, old ? "differs from the generator's" : "missing");
    if (!check_only && codec_write_atomic(path, md, strlen(md), err)) {
      free(md);
      free(old);
      return -1;
    }
  }
  free(md);
  free(old);
  return differs ? 1 : 0;
}
