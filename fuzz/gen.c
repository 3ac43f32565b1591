/* gen.c - the program generator (see gen.h). One generation step picks an action (view, mutate,
 * read), a value to act on (steered towards the alias patterns of gen.h) and an op by the
 * policy's weights; the op table's sampler fills the arguments, asking this file for tensor
 * operands (gen_tensor: an existing value that fits, or a new input, mask or 0-dim sum); the op
 * table's rules check the statement against the alias model before it is kept. */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/eager.h"
#include "gen_model.h"
#include "gen_sizes.h"
#include "gen_dtview.h"
#include "gen_stats.h"
#include "gen_train.h"
#include "provider.h"

typedef struct gen {
  const gen_policy *pol;
  unsigned epoch; /* policy_epoch(pol): the op lists' cached weights are for this policy */
  provider pv;
  ir_program *p;
  gen_model mo;
  ops_chooser ch;
  int nx, ni, nm, nv; /* name counters: data inputs, index inputs, masks, values */
  int focus;          /* value the next step should use (after a shape-changing in-place op), -1 */
  int need_exact;     /* the op being sampled is discontinuous: its operands must be exact */
  int read_storage;   /* storage written through a view: the next step should read it, -1 */
  int read_writer;    /* the impl that wrote */
  int *written;       /* values written through (views), for outputs */
  int nwritten;
  int *fresh;         /* values made by reads, for outputs */
  int nfresh;
  /* control flow */
  int depth;          /* blocks open now */
  int loops;          /* of which for loops */
  int ifs;            /* of which if branches */
  int loop_var, trips; /* the innermost loop's variable and trip count; -1 */
  int outer_nv;       /* values below this id were defined outside the innermost block */
  int nk;             /* loop variable names */
  int nl;             /* list names */
  int module;         /* the program has module state: data inputs may be buffers */
  int *rebound;       /* names rebound inside a branch: forced outputs */
  int nrebound;
  provider pv_set;    /* the draws of x.set_(y) (gen_set), a stream of their own */
} gen;

/* ---------------------------------------------------------------- helpers */

static int64_t R(gen *g, int64_t lo, int64_t hi) { return provider_range(&g->pv, lo, hi); }
static int chance(gen *g, double p) { return provider_chance(&g->pv, p); }

static int special(gen *g, int v) { return g->mo.flags[v] != 0; }
static const ops_meta *M(gen *g, int v) { return gen_model_meta(&g->mo, v); }
static const gen_impl *IMPL(gen *g, int v) { return gen_model_impl(&g->mo, v); }
static int is_input(gen *g, int v) { return IMPL(g, v)->depth == 0 && gen_model_storage(&g->mo, v)->input >= 0; }

/* a dtype by the policy's weights; bool only when allow_bool (data inputs, any-dtype operands),
 * integer dtypes only when allow_int */
static af_dtype pick_dtype(gen *g, int allow_int, int allow_bool) {
  double w[AF_DTYPE_COUNT];
  memcpy(w, g->pol->dtype_weight, sizeof w);
  if (!allow_bool) w[AF_BOOL] = 0;
  for (int d = 0; d < AF_REAL_DTYPE_COUNT && !allow_int; d++)
    if (af_dtype_is_int((af_dtype)d)) w[d] = 0;
  int d = provider_weighted(&g->pv, w, AF_REAL_DTYPE_COUNT); /* inputs and operands: real dtypes */
  return d < 0 ? AF_FLOAT32 : (af_dtype)d;
}

/* the values of v may differ in the last bits between executors (see gen_storage.inexact) */
static int inexact(gen *g, int v) { return gen_model_storage(&g->mo, v)->inexact && af_dtype_is_float(M(g, v)->dtype); }

/* Exactness of statement (op, args): -1 when a discontinuous op would read inexact floats, else
 * whether its float result or the values it writes are inexact. */
static int stmt_inexact(gen *g, int op, int nargs, const ir_arg *args) {
  int in = 0;
  for (int k = 0; k < nargs; k++) {
    const ir_arg *a = &args[k];
    if (a->kind == IR_ARG_VALUE) in |= inexact(g, a->value);
    if (a->kind == IR_ARG_VALUES)
      for (int j = 0; j < a->n; j++)
        if (a->values[j] >= 0) in |= inexact(g, a->values[j]);
  }
  int ex = ops_shape_exactness(op);
  if (ex == OPS_EX_NEEDS && in) return -1;
  return in || ex == OPS_EX_INEXACT;
}

/* name = prefix followed by n in decimal (n >= 0): what snprintf("%s%d") writes, without its
   cost (names are made by the thousand: snprintf was 7% of generation's instructions) */
static void make_name(char *name, size_t size, const char *prefix, int n) {
  char digits[12];
  int nd = 0;
  do digits[nd++] = (char)('0' + n % 10), n /= 10; while (n > 0 && nd < 11);
  size_t k = 0;
  while (*prefix && k + 1 < size) name[k++] = *prefix++;
  while (nd > 0 && k + 1 < size) name[k++] = digits[--nd];
  name[k] = 0;
}

static int add_input(gen *g, const char *prefix, int *counter, int rank, const int64_t *shape, af_dtype dt) {
  char name[32];
  make_name(name, sizeof name, prefix, (*counter)++);
  int v = ir_add_input(g->p, name, rank, shape, dt);
  gen_model_add_input(&g->mo, g->p->ninputs - 1);
  return v;
}

/* a random input shape within the policy */
static int input_shape(gen *g, int64_t *shape) {
  int r = (int)R(g, 0, g->pol->max_rank);
  if (r == 0 && R(g, 0, 2)) r = 1; /* rank 0 only now and then */
  int64_t numel = 1;
  for (int d = 0; d < r; d++) {
    int64_t hi = g->pol->max_dim;
    while (hi > 1 && numel * hi > g->pol->max_numel) hi--;
    shape[d] = R(g, 1, hi);
    numel *= shape[d];
  }
  return r;
}

static int emit(gen *g, int op, int nargs, ir_arg *args, int bind);

/* A new input of dtype dt; a complex operand (inputs are real) as torch.view_as_complex of a new
 * float input with a last dim of 2. */
static int new_data_input(gen *g, int rank, const int64_t *shape, af_dtype dt) {
  int cx = af_dtype_is_complex(dt) && rank < AF_MAX_RANK;
  int64_t sh[AF_MAX_RANK];
  if (cx) {
    memcpy(sh, shape, sizeof(int64_t) * (size_t)rank);
    sh[rank] = 2;
  }
  int v = add_input(g, "x", &g->nx, rank + cx, cx ? sh : shape, cx ? (dt == AF_COMPLEX64 ? AF_FLOAT32 : AF_FLOAT64) : dt);
  if (g->module && chance(g, g->pol->p_buffer)) g->p->inputs[g->p->ninputs - 1].buffer = 1;
  if (cx) {
    ir_arg a = {.kind = IR_ARG_VALUE, .value = v};
    int c = emit(g, OPS_view_as_complex, 1, &a, 0);
    if (c >= 0) return c;
  }
  return v;
}

/* v is a view whose place in its storage moves with the loop variable: its layout is no longer
 * exact, so overlap checks with other views of the storage are conservative. */
static void moving_view(gen *g, int v) {
  if (v >= 0 && g->mo.impl_of[v] >= 0) g->mo.impls[g->mo.impl_of[v]].m.exact = 0;
}

/* Inside a loop: makes an int index of statement s the loop variable (x[i], x[:, i], x.select(d,
 * i)) when the indexed dim has a size of at least the trip count; the shape rules ran with the
 * literal, and the result's shape does not depend on which element is picked. */
static void loop_index(gen *g, int s) {
  ir_stmt *st = &g->p->stmts[s];
  const ops_entry *oe = ops_get(st->op);
  if (st->nargs < 2 || st->args[0].kind != IR_ARG_VALUE) return;
  const ops_meta *m = M(g, st->args[0].value);
  if (st->op == OPS_select && st->args[1].kind == IR_ARG_INT && st->args[2].kind == IR_ARG_INT) {
    int64_t d = st->args[1].i < 0 ? st->args[1].i + m->rank : st->args[1].i;
    if (d >= 0 && d < m->rank && m->shape[d] >= g->trips) {
      st->args[2] = (ir_arg){.kind = IR_ARG_VALUE, .value = g->loop_var};
      moving_view(g, st->out);
    }
    return;
  }
  if ((st->op != OPS_getitem && oe->kind != OPS_SETITEM) || st->args[1].kind != IR_ARG_INDEX) return;
  if (oe->kind == OPS_SETITEM && st->args[2].kind == IR_ARG_VALUE &&
      IMPL(g, st->args[2].value)->storage == IMPL(g, st->args[0].value)->storage)
    return; /* which elements the write and the value share would change with the index */
  ir_arg *x = &st->args[1];
  for (int k = 0; k < x->n; k++) {
    if (x->index[k].kind == IR_IDX_INT) {
      if (k < m->rank && m->shape[k] >= g->trips) {
        x->index[k] = (ir_index){.kind = IR_IDX_TENSOR, .value = g->loop_var};
        if (st->out >= 0) moving_view(g, st->out);
      }
      return;
    }
    if (x->index[k].kind != IR_IDX_SLICE) return; /* None, ..., tensors: the dim is not k */
  }
}

/* What a dtype's bits are, for reinterpretations (dtype views): 0 bool, 1 integer, 2 float or complex. */
static int bits_kind(af_dtype d) { return d == AF_BOOL ? 0 : af_dtype_is_int(d) ? 1 : 2; }

/* The kind of bits v's storage holds: its base's dtype's (a dtype view reinterprets them). */
static int storage_kind(gen *g, int v) {
  int b = gen_model_storage(&g->mo, v)->base;
  return b >= 0 ? bits_kind(g->mo.impls[b].m.dtype) : bits_kind(M(g, v)->dtype);
}

/* Whether target t of a write keeps its storage's bits what eager defines: a bool or integer
 * storage is written only through views of its own kind, every view between t and the base
 * included (a byte but 0 or 1 in a bool is undefined, and ref declines a write through a chain that
 * crosses bool; a float computed into an integer storage brings NaN bits, which kernels keep
 * differently, and subnormals, which some flush). A float storage keeps the integer writes it
 * always had. */
static int write_kind_ok(gen *g, int t) {
  int sk = storage_kind(g, t);
  if (sk == 2) return 1;
  for (int i = g->mo.impl_of[t]; i >= 0; i = g->mo.impls[i].parent)
    if (bits_kind(g->mo.impls[i].m.dtype) != sk) return 0;
  return 1;
}

/* The values statement (op, args) writes into (ops_stmt_written, up to 64), less argument 0 where the
 * rules say its change is no data write (a shape-changing in-place op: e->writes 0). */
static int stmt_writes(int op, int nargs, const ir_arg *args, const ops_effect *e, int *w) {
  ir_stmt st = {.op = op, .out = -1, .nargs = nargs, .args = (ir_arg *)args};
  int n = ops_stmt_written(&st, w, 64), skip = 0;
  if (n > 64) n = 64;
  if (!e->writes && (ops_writes(op) & 1u) && nargs)
    skip = args[0].kind == IR_ARG_VALUE ? 1 : args[0].kind == IR_ARG_VALUES ? args[0].n : 0;
  if (skip > n) skip = n;
  memmove(w, w + skip, sizeof(int) * (size_t)(n - skip));
  return n - skip;
}

/* Whether statement (op, args) with effect e keeps every reinterpreted storage defined
 * (rules_views.c's view_dtype sampler says which dtype views it draws): a bool view only of a
 * storage whose base is bool, and each write as write_kind_ok says. */
static int reinterpret_ok(gen *g, int op, int nargs, const ir_arg *args, const ops_effect *e) {
  if (!nargs) return 1;
  if (args[0].kind == IR_ARG_VALUE && e->alias == OPS_ALIAS_VIEW && e->out.dtype == AF_BOOL &&
      M(g, args[0].value)->dtype != AF_BOOL && storage_kind(g, args[0].value) != 0)
    return 0;
  int w[64], n = stmt_writes(op, nargs, args, e, w);
  for (int k = 0; k < n; k++)
    if (!write_kind_ok(g, w[k])) return 0;
  return 1;
}

/* Checks statement (op, args) against the rules, appends it and applies it to the model.
 * Returns the statement's result value (or its target for mutations), -1 when refused. */
static int emit(gen *g, int op, int nargs, ir_arg *args, int bind) {
  ir_stmt st = {.op = op, .out = -1, .nargs = nargs, .args = args};
  ops_effect e;
  af_err err;
  if (ops_shape_infer(&st, &g->mo.env, &e, &err) || !reinterpret_ok(g, op, nargs, args, &e)) return -1;
  int inx = stmt_inexact(g, op, nargs, args);
  if (inx < 0) return -1;
  if (ops_shape_exactness_dt(op, e.out.dtype) == OPS_EX_INEXACT) inx = 1; /* float16/bfloat16 results round */
  /* a discontinuous view (an int view of float bits) reads its storage again at every later use:
     it views exact storages only, and they stay exact */
  const gen_storage *s0 = nargs && args[0].kind == IR_ARG_VALUE ? gen_model_storage(&g->mo, args[0].value) : NULL;
  int discont_view = ops_get(op)->kind == OPS_VIEW && ops_shape_exactness(op) == OPS_EX_NEEDS;
  int w[64], nw = stmt_writes(op, nargs, args, &e, w);
  if (s0 && discont_view && s0->inexact) return -1;
  for (int k = 0; k < nw && inx; k++)
    if (gen_model_storage(&g->mo, w[k])->keep_exact) return -1;
  if (g->loops && ops_shape_exactness(op) == OPS_EX_NEEDS) /* a later iteration may make a float operand inexact */
    for (int k = 0; k < nargs; k++)
      if (args[k].kind == IR_ARG_VALUE && af_dtype_is_float(M(g, args[k].value)->dtype))
        return -1;
  const ops_entry *oe = ops_get(op);
  int out = -1;
  if (oe->kind == OPS_VIEW || oe->kind == OPS_FUNC || oe->kind == OPS_GETITEM || bind) {
    char name[32];
    make_name(name, sizeof name, op == OPS_gt && bind == 2 ? "m" : "v", op == OPS_gt && bind == 2 ? g->nm++ : g->nv++);
    out = ir_add_value(g->p, name);
  }
  int s = ir_add_stmt(g->p, op, out, nargs, args);
  gen_model_apply(&g->mo, s, &e);
  if (discont_view) g->mo.stor[IMPL(g, args[0].value)->storage].keep_exact = 1;
  /* floats read from integer or bool bits: NaNs whose bits kernels keep differently, subnormals some
     executors flush; the storage's float views count as inexact (no discontinuous op reads them,
     no later dtype view re-reads the storage), its integer names stay exact */
  if (discont_view && af_dtype_is_float(e.out.dtype) && storage_kind(g, args[0].value) != 2)
    g->mo.stor[IMPL(g, args[0].value)->storage].inexact = 1;
  for (int k = 0; k < nw && inx; k++) g->mo.stor[IMPL(g, w[k])->storage].inexact = 1; /* foreach: every element */
  if (inx && out >= 0 && e.alias == OPS_ALIAS_FRESH) g->mo.stor[IMPL(g, out)->storage].inexact = 1;
  if (g->loop_var >= 0 && chance(g, g->pol->p_loop_index)) loop_index(g, s);
  if (out >= 0) return out;
  if (oe->kind == OPS_FOREACH) return args[0].values[0]; /* the chosen value: the sampler puts it first */
  return args[0].kind == IR_ARG_VALUE ? args[0].value : -1;
}

/* ---------------------------------------------------------------- operands */

static int pick_from(gen *g, const int *c, int n) { return n ? c[R(g, 0, n - 1)] : -1; }

static int mem_ok(gen *g, const ops_req *r, int v) {
  if (r->avoid < 0) return 1;
  int lap = gen_model_overlap(&g->mo, r->avoid, v);
  return lap == OPS_LAP_NONE || (lap == OPS_LAP_SAME && r->same_ok);
}

static af_dtype make_dtype(gen *g, const ops_req *r) {
  switch (r->dt_rule) {
    case OPS_DT_SAME: return r->dtype;
    case OPS_DT_INTO: /* an integer target takes integers (int64, or its own dtype: uint8 with int8 is int16) */
      if (r->dtype == AF_INT64) return AF_INT64;
      if (af_dtype_is_int(r->dtype)) return chance(g, 0.5) ? r->dtype : AF_INT64;
      return pick_dtype(g, 1, 0);
    case OPS_DT_ANY: return pick_dtype(g, 1, 0);
    case OPS_DT_ALL: return pick_dtype(g, 1, 1);
    case OPS_DT_FLOAT: return pick_dtype(g, 0, 0);
  }
  return AF_FLOAT32;
}

static int make_mask(gen *g, int rank, const int64_t *shape) {
  int cand[256], n = 0;
  for (int v = 0; v < g->p->nvalues && n < 256; v++) {
    if (special(g, v)) continue;
    const ops_meta *m = M(g, v);
    if (m->known && m->dtype != AF_BOOL && !inexact(g, v) && m->rank == rank && !memcmp(m->shape, shape, sizeof(int64_t) * (size_t)rank))
      cand[n++] = v;
  }
  if (g->loops) /* in a loop body a float source may turn inexact in a later iteration: integers only */
    for (int k = 0; k < n; k++)
      if (M(g, cand[k])->dtype != AF_INT64) cand[k--] = cand[--n];
  int src = n && !chance(g, g->pol->p_new_operand) ? pick_from(g, cand, n)
                                                   : new_data_input(g, rank, shape, g->loops ? AF_INT64 : pick_dtype(g, 1, 0));
  ir_arg args[2] = {{.kind = IR_ARG_VALUE, .value = src}, {.kind = IR_ARG_INT, .i = R(g, -2, 2)}};
  int v = emit(g, OPS_gt, 2, args, 2);
  if (v >= 0) g->mo.flags[v] |= GEN_VF_MASK;
  return v;
}

/* For an operand that should share near's storage (r->near1: a foreach op's list of views of one
 * flat buffer): a window of that storage shaped r->shape2 that shares no memory with near or
 * r->avoid, made as near.as_strided(shape2, contiguous strides, offset); -1 when none fits. */
static int sibling_window(gen *g, const ops_req *r) {
  int near = r->near1 - 1, st = IMPL(g, near)->storage;
  int64_t numel = g->mo.stor[st].numel, len = ir_numel(r->rank2, r->shape2);
  if (len < 1 || numel > 4096 || len > numel) return -1;
  static _Thread_local unsigned char used[4096];
  static _Thread_local int64_t off[4096], starts[4096];
  memset(used, 0, (size_t)numel);
  int taken[2] = {near, r->avoid};
  for (int k = 0; k < 2; k++) {
    int v = taken[k];
    if (v < 0 || g->mo.impl_of[v] < 0 || IMPL(g, v)->storage != st) continue;
    int64_t n = ops_meta_offsets(M(g, v), off, 4096);
    if (n < 0) return -1; /* a layout the model does not know exactly */
    for (int64_t j = 0; j < n; j++)
      if (off[j] >= 0 && off[j] < numel) used[off[j]] = 1;
  }
  int64_t ns = 0;
  for (int64_t lo = 0; lo + len <= numel; lo++) {
    int64_t j = 0;
    while (j < len && !used[lo + j]) j++;
    if (j == len) starts[ns++] = lo;
  }
  if (!ns) return -1;
  int64_t strides[AF_MAX_RANK];
  ir_contiguous_strides(r->rank2, r->shape2, strides);
  ir_arg a[4] = {{.kind = IR_ARG_VALUE, .value = near},
                 {.kind = IR_ARG_INTS, .n = r->rank2, .ints = (int64_t *)r->shape2, .value = -1},
                 {.kind = IR_ARG_INTS, .n = r->rank2, .ints = strides, .value = -1},
                 {.kind = IR_ARG_INT, .i = starts[R(g, 0, ns - 1)], .value = -1}};
  return emit(g, OPS_as_strided, 4, a, 0);
}

/* A running statistic (r->state: batch_norm's running_mean) in a program with module state: three
 * times in four a new module buffer, as a model's BatchNorm keeps it, of which one in three a view
 * of a larger buffer (a row of a [2, C] buffer, or every other element of a [2C] one: the aliasing
 * converters get wrong); -1 otherwise (the caller's usual choice). */
static int state_operand(gen *g, const ops_req *r) {
  if (!r->state || !g->module || r->rank != 1 || r->dt_rule != OPS_DT_SAME || !chance(g, 0.75)) return -1;
  int64_t c = r->shape[0], big[2] = {2, c}, flat = 2 * c;
  int view = chance(g, 1.0 / 3) && 2 * c <= g->pol->max_numel, rows = view && chance(g, 0.5);
  int v = add_input(g, "x", &g->nx, view ? (rows ? 2 : 1) : 1, view ? (rows ? big : &flat) : r->shape, r->dtype);
  g->p->inputs[g->p->ninputs - 1].buffer = 1;
  if (!view) return v;
  int64_t k = R(g, 0, 1);
  ir_arg sel[3] = {{.kind = IR_ARG_VALUE, .value = v}, {.kind = IR_ARG_INT, .i = 0, .value = -1}, {.kind = IR_ARG_INT, .i = k, .value = -1}};
  ir_arg sl[5] = {{.kind = IR_ARG_VALUE, .value = v}, {.kind = IR_ARG_INT, .i = 0, .value = -1}, {.kind = IR_ARG_INT, .i = k, .value = -1},
                  {.kind = IR_ARG_INT, .i = flat, .value = -1}, {.kind = IR_ARG_INT, .i = 2, .value = -1}};
  int w = rows ? emit(g, OPS_select, 3, sel, 0) : emit(g, OPS_slice, 5, sl, 0);
  return w >= 0 && ops_req_accepts(r, M(g, w)) && mem_ok(g, r, w) ? w : -1;
}

static int cb_tensor(void *ctx, const ops_req *r) {
  gen *g = ctx;
  if (r->kind == OPS_REQ_INDEX) {
    int v = add_input(g, "i", &g->ni, r->rank, r->shape, AF_INT64);
    ir_input *in = &g->p->inputs[g->p->ninputs - 1];
    in->ndata = ir_numel(r->rank, r->shape);
    in->data = af_xmalloc(sizeof(double) * (size_t)in->ndata);
    for (int64_t k = 0; k < in->ndata; k++) in->data[k] = (double)r->index_data[k];
    g->mo.flags[v] |= GEN_VF_INDEX;
    return v;
  }
  int cand[256], n = 0;
  for (int v = 0; v < g->p->nvalues && n < 256; v++) {
    if (r->kind == OPS_REQ_MASK ? g->mo.flags[v] != GEN_VF_MASK : special(g, v)) continue; /* in scope */
    if (g->need_exact && inexact(g, v)) continue;
    if (ops_req_accepts(r, M(g, v)) && mem_ok(g, r, v)) cand[n++] = v;
  }
  /* the values in near's storage, mostly; with no value fitting at all, a window of that storage
     before a new input (the optimizer's case: a foreach list of views of one flat buffer) */
  if (r->near1 > 0 && g->mo.impl_of[r->near1 - 1] >= 0) {
    int same[256], ns = 0, st = IMPL(g, r->near1 - 1)->storage;
    for (int k = 0; k < n; k++)
      if (IMPL(g, cand[k])->storage == st) same[ns++] = cand[k];
    if (ns && chance(g, 0.8)) return pick_from(g, same, ns);
    if (g->pol->op_weight[OPS_as_strided] > 0 && chance(g, 0.7)) { /* make one: a window of that storage */
      int w = sibling_window(g, r);
      if (w >= 0 && ops_req_accepts(r, M(g, w)) && mem_ok(g, r, w)) return w;
    }
  }
  if (r->state) {
    int v = state_operand(g, r);
    if (v >= 0) return v;
  }
  if (n && !chance(g, g->pol->p_new_operand)) return pick_from(g, cand, n);
  switch (r->kind) {
    case OPS_REQ_MASK: return make_mask(g, r->rank, r->shape);
    case OPS_REQ_ZERODIM: {
      if (chance(g, 0.5)) { /* the sum of some value: a 0-dim tensor that depends on data */
        int src[256], k = 0;
        for (int v = 0; v < g->p->nvalues && k < 256; v++)
          if (!special(g, v) && M(g, v)->known && M(g, v)->dtype != AF_BOOL && !(g->need_exact && inexact(g, v)) &&
              (r->dt_rule != OPS_DT_SAME || M(g, v)->dtype == r->dtype) && (r->dtype != AF_INT64 || M(g, v)->dtype == AF_INT64))
            src[k++] = v;
        if (k) {
          ir_arg a = {.kind = IR_ARG_VALUE, .value = pick_from(g, src, k)};
          int v = emit(g, OPS_sum, 1, &a, 0);
          if (v >= 0 && ops_req_accepts(r, M(g, v)) && mem_ok(g, r, v)) return v;
        }
      }
      return new_data_input(g, 0, NULL, make_dtype(g, r));
    }
    case OPS_REQ_EXPANDED:
    case OPS_REQ_VIEWABLE: return new_data_input(g, r->rank2, r->shape2, make_dtype(g, r));
    case OPS_REQ_AT_LEAST:
      if (r->near1 > 0) return new_data_input(g, r->rank2, r->shape2, make_dtype(g, r));
      return new_data_input(g, r->rank, r->shape, make_dtype(g, r));
    case OPS_REQ_BROADCAST: {
      int64_t shape[AF_MAX_RANK];
      int k = r->rank;
      memcpy(shape, r->shape, sizeof shape);
      if (chance(g, 0.3) && k) { /* a smaller shape that broadcasts */
        int drop = (int)R(g, 0, k);
        memmove(shape, shape + drop, sizeof(int64_t) * (size_t)(k - drop));
        k -= drop;
        for (int d = 0; d < k; d++)
          if (chance(g, 0.3)) shape[d] = 1;
      }
      return new_data_input(g, k, shape, make_dtype(g, r));
    }
    default: return new_data_input(g, r->rank, r->shape, make_dtype(g, r));
  }
}

static int64_t cb_range(void *ctx, int64_t lo, int64_t hi) { return R(ctx, lo, hi); }
static int cb_decide(void *ctx, int point) {
  gen *g = ctx;
  return chance(g, g->pol->decide[point]);
}
static int cb_index_kind(void *ctx) {
  gen *g = ctx;
  return provider_weighted(&g->pv, g->pol->index_weight, OPS_IDX_KIND_COUNT);
}
static const ops_meta *cb_meta(void *ctx, int v) { return M(ctx, v); }

/* ---------------------------------------------------------------- steps */

/* Tries op on value v; returns the result value, or -1. */
static int try_op(gen *g, int op, int v) {
  const ops_entry *oe = ops_get(op);
  ir_arg args[OPS_MAX_ARGS];
  g->need_exact = ops_shape_exactness(op) == OPS_EX_NEEDS;
  const ops_meta mv = *M(g, v); /* a copy: operands the sampler asks for may add inputs, which moves the model's arrays */
  int n = ops_shape_sample(op, v, &mv, gen_model_storage_numel(&g->mo, v), &g->ch, args);
  g->need_exact = 0;
  int res = -1;
  if (n >= 0) res = emit(g, op, n, args, (oe->kind == OPS_INPLACE || oe->kind == OPS_OUT) && chance(g, g->pol->p_bind_result));
  for (int k = 0; k < oe->nargs; k++) ir_arg_free(&args[k]);
  return res;
}

/* Picks an op among those of the given kinds by weight and applies it to v; a few tries. */
/* Per-op facts apply_some_op reads for every op on every call, computed once. */
typedef struct op_static {
  unsigned char can_sample, mutates, writes_data, exactness, kind, flags;
  signed char primary; /* ops_shape_primary: -1 for the factories without a tensor argument */
} op_static;

static const op_static *op_statics(void) {
  static op_static t[OPS_COUNT];
  static int done;
  if (!done) {
    for (int op = 0; op < OPS_COUNT; op++)
      t[op] = (op_static){(unsigned char)ops_shape_can_sample(op), (unsigned char)ops_mutates(op),
                          (unsigned char)ops_shape_writes_data(op), (unsigned char)ops_shape_exactness(op),
                          (unsigned char)ops_get(op)->kind, (unsigned char)ops_get(op)->flags,
                          (signed char)ops_shape_primary(op)};
    done = 1;
  }
  return t;
}

/* The ops apply_some_op draws from in one context: what is wanted (0 a view, 1 a mutation, 2 a
   function), whether the value may be written, whether it is inexact, whether the statement is in a
   block and in a loop. Which ops qualify depends on op facts alone, so each of the 48 lists is made
   once per thread; ops keep table order, so a draw over a list's weights picks the op a draw over
   the whole table (zeros elsewhere) would: the same seed gives the same program. */
typedef struct {
  int made, n;
  short op[OPS_COUNT];
  unsigned char maybe_view[OPS_COUNT]; /* reshape/flatten/contiguous: favoured on strided values */
  /* the weights under the policy of epoch[s] and their running sums (s = 1: on a strided value),
     made when a program of another policy first draws from the list (2n doubles each) */
  unsigned epoch[2];
  double *w[2], *cum[2];
} op_list;

/* A number (> 0) for the policy of this thread's programs that changes when the policy does: the op
   lists keep their weights for it, and a policy seen last time is not checked again. 0 when
   gen_policy_check refuses pol (err says why). */
static unsigned policy_epoch(const gen_policy *pol, af_err *err) {
  static _Thread_local gen_policy last;
  static _Thread_local unsigned epoch;
  if (epoch && !memcmp(&last, pol, sizeof last)) return epoch;
  if (gen_policy_check(pol, err)) return 0;
  memcpy(&last, pol, sizeof last);
  if (!++epoch) epoch = 1;
  return epoch;
}

static op_list *op_candidates(int want, int can_write, int inx, int in_block, int in_loop) {
  static _Thread_local op_list lists[3][2][2][2][2];
  op_list *L = &lists[want][can_write][inx][in_block][in_loop];
  if (L->made) return L;
  const op_static *fs = op_statics();
  for (int op = 0; op < OPS_COUNT; op++) {
    const op_static *f = &fs[op];
    if (!f->can_sample || f->primary == -1) continue; /* factories: gen_factory */
    if (ops_get(op)->flags & OPF_REBIND) continue;     /* set_: gen_set */
    int mut = f->mutates;
    if (want == 1 && !mut) continue;
    if (want == 0 && (f->kind != OPS_VIEW && f->kind != OPS_GETITEM)) continue;
    if (want == 2 && f->kind != OPS_FUNC) continue;
    if (mut && f->writes_data && !can_write) continue;
    if (f->exactness == OPS_EX_NEEDS && inx) continue;
    const ops_entry *oe = ops_get(op);
    /* inside blocks: no metadata change, resizing out= or storage addressing (a value must look the
       same whatever branch ran and in every iteration); in loops no discontinuous op (a value an
       iteration makes inexact would reach it in the next) */
    if (in_block && ((oe->flags & OPF_META) || oe->kind == OPS_OUT || op == OPS_as_strided)) continue;
    /* nor foreach ops (the loop's exactness pass follows tensor arguments, not list elements) */
    if (in_block && oe->kind == OPS_FOREACH) continue;
    if (in_loop && f->exactness == OPS_EX_NEEDS) continue;
    L->maybe_view[L->n] = (oe->flags & OPF_MAYBE_VIEW) != 0;
    L->op[L->n++] = (short)op;
  }
  L->made = 1;
  return L;
}

static int apply_some_op(gen *g, int v, int want_mutation, int *used_op) {
  double w[OPS_COUNT];
  const ops_meta *m = M(g, v);
  int can_write = !ops_meta_overlaps(m) && m->known, inx = inexact(g, v);
  op_list *L = op_candidates(want_mutation, can_write, inx != 0, g->depth != 0, g->loops != 0);
  int strided = m->exact && !ops_meta_is_contiguous(m);
  if (L->epoch[strided] != g->epoch) {
    if (!L->w[strided]) {
      L->w[strided] = af_xmalloc(sizeof(double) * (size_t)(L->n ? L->n : 1));
      L->cum[strided] = af_xmalloc(sizeof(double) * (size_t)(L->n ? L->n : 1));
    }
    double sum = 0;
    for (int i = 0; i < L->n; i++) {
      double wi = g->pol->op_weight[L->op[i]];
      if (strided && L->maybe_view[i]) wi *= 4;
      L->w[strided][i] = wi;
      if (wi > 0) sum += wi;
      L->cum[strided][i] = sum;
    }
    L->epoch[strided] = g->epoch;
  }
  const double *cum = L->cum[strided];
  double mcum[OPS_COUNT];
  for (int tries = 0; tries < 4; tries++) {
    int i = provider_weighted_cum(&g->pv, cum, L->n);
    if (i < 0) return -1;
    int op = L->op[i], prim = ops_shape_primary(op);
    int r = -1;
    if (prim == 0 || prim == -2 || prim == 1) r = try_op(g, op, v);
    if (r >= 0) {
      *used_op = op;
      return r;
    }
    /* op i refused v: the next try draws as if its weight were 0 */
    if (cum != mcum) memcpy(w, L->w[strided], sizeof(double) * (size_t)L->n);
    w[i] = 0;
    double sum = 0;
    for (int k = 0; k < L->n; k++) {
      if (w[k] > 0) sum += w[k];
      mcum[k] = sum;
    }
    cum = mcum;
  }
  return -1;
}

static int usable(gen *g, int v) {
  return v >= 0 && v < g->mo.nvals && g->mo.impl_of[v] >= 0 && !special(g, v) && M(g, v)->known;
}

static int pick_view_source(gen *g) {
  int all[512], views[512], sib[512], strided[512], na = 0, nv = 0, ns = 0, nst = 0;
  for (int v = 0; v < g->p->nvalues && na < 512; v++) {
    if (!usable(g, v)) continue;
    const gen_impl *im = IMPL(g, v);
    if (im->depth >= g->pol->max_view_depth) continue;
    all[na++] = v;
    if (im->depth > 0) views[nv++] = v;
    if (g->mo.stor[im->storage].nviews > 0) sib[ns++] = v;
    if (im->m.exact && !ops_meta_is_contiguous(&im->m)) strided[nst++] = v;
  }
  if (nst && chance(g, g->pol->p_strided_source)) return pick_from(g, strided, nst);
  if (nv && chance(g, g->pol->p_view_of_view)) return pick_from(g, views, nv);
  if (ns && chance(g, g->pol->p_sibling)) return pick_from(g, sib, ns);
  return pick_from(g, all, na);
}

static int pick_target(gen *g) {
  int views[512], inputs[512], inter[512], nv = 0, ni = 0, nn = 0;
  for (int v = 0; v < g->p->nvalues && nv < 512 && ni < 512 && nn < 512; v++) {
    if (!usable(g, v)) continue;
    const gen_impl *im = IMPL(g, v);
    if (im->depth > 0) views[nv++] = v;
    else if (g->mo.stor[im->storage].input >= 0) inputs[ni++] = v;
    else inter[nn++] = v;
  }
  if (nv && chance(g, g->pol->p_target_view)) return pick_from(g, views, nv);
  if (ni && (chance(g, g->pol->p_target_input) || !nn)) return pick_from(g, inputs, ni);
  if (nn) return pick_from(g, inter, nn);
  return pick_from(g, views, nv);
}

static int pick_any(gen *g) {
  int all[512], n = 0;
  for (int v = 0; v < g->p->nvalues && n < 512; v++)
    if (usable(g, v)) all[n++] = v;
  return pick_from(g, all, n);
}

/* a value of the storage that was written through a view, other than the writer */
static int pick_reader(gen *g) {
  int c[512], n = 0;
  for (int v = 0; v < g->p->nvalues && n < 512; v++) {
    if (!usable(g, v)) continue;
    int im = g->mo.impl_of[v];
    if (g->mo.impls[im].storage == g->read_storage && im != g->read_writer) c[n++] = v;
  }
  return pick_from(g, c, n);
}

static void note(int **list, int *n, int v) {
  for (int k = 0; k < *n; k++)
    if ((*list)[k] == v) return;
  *list = af_xrealloc(*list, sizeof(int) * (size_t)(*n + 1));
  (*list)[(*n)++] = v;
}

static int gen_for(gen *g);
static int gen_if(gen *g);
static int gen_rebind(gen *g);
static int gen_loop_write(gen *g);
static int gen_list(gen *g);

/* A tensor made by a factory that takes no tensor (chances.factory: torch.zeros([...]), ones, full,
 * torch.arange(n), torch.eye(n), torch.empty([...]).fill_(v); ops of sampler primary -1, by their
 * weights): fresh storage that the next step views or writes (the focus), the pattern of a
 * factory's fresh memory mutated in place. Its sizes come from a value's shape, so the sizes pass
 * (gen_sizes.c) may read them back as x.size(d). Valid by construction: the op table's rule checks
 * it as any statement, and torch.empty exists only filled (OPF_FILL). */
static int gen_factory(gen *g) {
  double w[OPS_COUNT];
  const op_static *fs = op_statics();
  for (int op = 0; op < OPS_COUNT; op++) w[op] = fs[op].can_sample && fs[op].primary == -1 ? g->pol->op_weight[op] : 0;
  int op = provider_weighted(&g->pv, w, OPS_COUNT);
  if (op < 0) return -1;
  int v = pick_any(g);
  ops_meta m;
  if (v >= 0) m = *M(g, v);
  else ops_meta_init(&m, AF_FLOAT32, 0, NULL);
  ir_arg args[OPS_MAX_ARGS];
  int n = ops_shape_sample(op, -1, &m, 0, &g->ch, args), r = n >= 0 ? emit(g, op, n, args, 0) : -1;
  for (int k = 0; k < ops_get(op)->nargs; k++) ir_arg_free(&args[k]);
  if (r < 0) return -1;
  g->focus = r;
  note(&g->fresh, &g->nfresh, r);
  return 0;
}

/* x.set_(y) (issue 29) in its narrow form: x a local base whose storage no view, no input and no
 * other tensor shares (x may have several names: `b = x.add_(1)`, a list member; they move with it),
 * y a value of x's dtype its sampler picks (an input, a view, a local); the next step then uses x,
 * whose writes land in y's storage. Every draw comes from a stream of its own (g->pv_set, chances.set
 * per step), so a program that draws none is the one the generator made before set_ existed. -1 when
 * no value qualifies or the rules refuse the statement. */
static int set_target_ok(gen *g, int v) {
  const gen_impl *im = IMPL(g, v);
  const gen_storage *s = &g->mo.stor[im->storage];
  return im->depth == 0 && s->input < 0 && s->nviews == 0 && s->base == g->mo.impl_of[v];
}

static int gen_set(gen *g) {
  if (g->depth || g->pol->op_weight[OPS_set_] <= 0 || !provider_chance(&g->pv_set, g->pol->p_set)) return -1;
  provider main = g->pv;
  g->pv = g->pv_set;
  int cand[512], n = 0, r = -1;
  for (int v = 0; v < g->p->nvalues && n < 512; v++)
    if (usable(g, v) && set_target_ok(g, v)) cand[n++] = v;
  int x = pick_from(g, cand, n);
  if (x >= 0) r = try_op(g, OPS_set_, x);
  g->pv_set = g->pv;
  g->pv = main;
  if (r < 0) return -1;
  g->focus = x;
  return 0;
}

static int step(gen *g) {
  int act, v = -1, op = -1;
  if (gen_set(g) == 0) return 0;
  if (g->depth < g->pol->max_block_depth) {
    if (chance(g, g->pol->p_for)) return gen_for(g);
    if (chance(g, g->pol->p_if)) return gen_if(g);
  }
  if ((g->depth || g->module) && chance(g, g->pol->p_rebind) && gen_rebind(g) == 0) return 0;
  if (chance(g, g->pol->p_list) && gen_list(g) == 0) return 0;
  if (chance(g, g->pol->p_factory) && gen_factory(g) == 0) return 0;
  if (g->loop_var >= 0 && chance(g, g->pol->p_loop_index / 2) && gen_loop_write(g) == 0) return 0;
  if (g->read_storage >= 0 && chance(g, g->pol->p_read_after_write)) {
    v = pick_reader(g);
    act = GEN_ACT_READ;
    if (v >= 0 && chance(g, 0.3)) act = GEN_ACT_VIEW; /* or view the base / sibling again */
  } else if (g->focus >= 0 && chance(g, g->pol->p_use_after_meta)) {
    v = g->focus;
    act = provider_weighted(&g->pv, g->pol->action_weight, GEN_ACT_COUNT);
  } else {
    act = provider_weighted(&g->pv, g->pol->action_weight, GEN_ACT_COUNT);
  }
  g->read_storage = -1;
  g->focus = -1;
  if (act < 0) act = GEN_ACT_READ;
  if (v < 0 || !usable(g, v)) v = act == GEN_ACT_VIEW ? pick_view_source(g) : act == GEN_ACT_MUTATE ? pick_target(g) : pick_any(g);
  if (v < 0) return -1;
  if (act == GEN_ACT_VIEW && IMPL(g, v)->depth >= g->pol->max_view_depth) act = GEN_ACT_READ;
  int r = apply_some_op(g, v, act == GEN_ACT_MUTATE ? 1 : act == GEN_ACT_VIEW ? 0 : 2, &op);
  if (r < 0) return -1;
  if (act == GEN_ACT_MUTATE) {
    const ops_entry *oe = ops_get(op);
    const gen_impl *im = IMPL(g, v);
    if (oe->flags & OPF_META) {
      g->focus = v;
    } else if (im->depth > 0) {
      g->read_storage = im->storage;
      g->read_writer = g->mo.impl_of[v];
      note(&g->written, &g->nwritten, v);
    } else if (g->mo.stor[im->storage].nviews > 0) {
      g->read_storage = im->storage; /* written the base: read a view */
      g->read_writer = g->mo.impl_of[v];
    }
  } else if (act == GEN_ACT_READ) {
    note(&g->fresh, &g->nfresh, r);
  }
  return 0;
}


/* ---------------------------------------------------------------- control flow */

static void body(gen *g) {
  int n = (int)R(g, 1, g->pol->max_block_stmts);
  for (int s = 0; s < n; s++)
    for (int tries = 0; tries < 4; tries++)
      if (step(g) == 0) break;
}

/* Values first defined since id nv0 (other than inputs, which are global) go out of scope. */
static void end_scope(gen *g, gen_model *mo, int nv0) {
  for (int v = nv0; v < g->p->nvalues; v++) {
    int input = 0;
    for (int i = 0; i < g->p->ninputs; i++) input |= g->p->inputs[i].value == v;
    if (!input) gen_model_set_flag(mo, v, GEN_VF_DEAD);
  }
}

/* A loop body runs again on what it wrote: exactness spreads through it until nothing changes
 * (a float value an iteration makes inexact reaches what the next iteration reads from it). */
static void loop_exactness(gen *g, int from, int to) {
  for (int changed = 1, rounds = 0; changed && rounds < 16; rounds++) {
    changed = 0;
    for (int s = from; s < to; s++) {
      const ir_stmt *st = &g->p->stmts[s];
      if (ops_get(st->op)->kind == OPS_CTRL || st->nargs == 0) continue;
      int in = ops_shape_exactness(st->op) == OPS_EX_INEXACT;
      int tv = st->out >= 0 ? st->out : ops_mutates(st->op) && st->args[0].kind == IR_ARG_VALUE ? st->args[0].value : -1;
      if (tv >= 0 && g->mo.impl_of[tv] >= 0 && ops_shape_exactness_dt(st->op, M(g, tv)->dtype) == OPS_EX_INEXACT) in = 1;
      for (int k = 0; k < st->nargs; k++) {
        const ir_arg *a = &st->args[k];
        if (a->kind == IR_ARG_VALUE && g->mo.impl_of[a->value] >= 0 && !(g->mo.flags[a->value] & GEN_VF_INT)) in |= inexact(g, a->value);
      }
      if (!in) continue;
      int targets[65], nt = ops_stmt_written(st, targets, 64);
      if (nt > 64) nt = 64;
      targets[nt++] = st->out;
      for (int k = 0; k < nt; k++) {
        int v = targets[k];
        if (v < 0 || g->mo.impl_of[v] < 0) continue;
        gen_storage *sg = &g->mo.stor[IMPL(g, v)->storage];
        if (!sg->inexact) sg->inexact = changed = 1;
      }
    }
  }
}

/* for kN in range(trips): a body that may write into tensors from outside the loop, index them
 * with the loop variable and read what earlier iterations wrote. */
static int gen_for(gen *g) {
  char name[16];
  make_name(name, sizeof name, "k", g->nk++);
  int var = ir_add_value(g->p, name);
  if (var < 0) return -1;
  gen_model_set_flag(&g->mo, var, GEN_VF_INT);
  int trips = (int)R(g, 2, g->pol->max_trips);
  ir_arg a = {.kind = IR_ARG_INT, .i = trips, .value = -1};
  int s0 = ir_add_stmt(g->p, OPS_for, var, 1, &a);
  int save_var = g->loop_var, save_trips = g->trips, save_nv = g->outer_nv;
  g->loop_var = var;
  g->trips = trips;
  g->outer_nv = g->p->nvalues;
  g->depth++, g->loops++;
  body(g);
  g->depth--, g->loops--;
  ir_add_stmt(g->p, OPS_end, -1, 0, NULL);
  loop_exactness(g, s0 + 1, g->p->nstmts - 1);
  end_scope(g, &g->mo, var);
  g->loop_var = save_var, g->trips = save_trips, g->outer_nv = save_nv;
  return 0;
}

/* if bool(torch.gt(torch.sum(t), k)): ... [else: ...]. Both branches start from the same model;
 * the program goes on with the else branch's (the then branch changed data only: its
 * inexactness is merged in); names rebound in a branch are left out of further steps and made
 * outputs. */
static int gen_if(gen *g) {
  int t = pick_any(g);
  if (g->loops && (t < 0 || M(g, t)->dtype != AF_INT64)) { /* exact in every iteration */
    int64_t shape[AF_MAX_RANK];
    int r = input_shape(g, shape);
    t = new_data_input(g, r, shape, AF_INT64);
  }
  if (t < 0 || M(g, t)->dtype == AF_BOOL) return -1;
  ir_arg a[2] = {{.kind = IR_ARG_VALUE, .value = t}};
  int sum = emit(g, OPS_sum, 1, a, 0);
  if (sum < 0) return -1;
  a[0] = (ir_arg){.kind = IR_ARG_VALUE, .value = sum};
  a[1] = (ir_arg){.kind = IR_ARG_INT, .i = R(g, -2, 2), .value = -1};
  int c = emit(g, OPS_gt, 2, a, 0);
  if (c < 0) return -1;
  a[0] = (ir_arg){.kind = IR_ARG_VALUE, .value = c};
  ir_add_stmt(g->p, OPS_if, -1, 1, a);
  gen_model before;
  gen_model_copy(&before, &g->mo);
  int ninputs = g->p->ninputs, save_nv = g->outer_nv, save_var = g->loop_var, nreb0 = g->nrebound;
  g->outer_nv = g->p->nvalues;
  g->depth++, g->ifs++;
  body(g);
  gen_model then = g->mo;
  int nstor0 = before.nstor, nin_then = g->p->ninputs;
  g->mo = before; /* the else branch starts where the then branch did */
  g->mo.env.ctx = &g->mo;
  for (int i = ninputs; i < g->p->ninputs; i++) { /* inputs are global; index inputs stay read-only */
    gen_model_add_input(&g->mo, i);
    int v = g->p->inputs[i].value;
    gen_model_set_flag(&g->mo, v, then.flags[v] & GEN_VF_INDEX);
  }
  end_scope(g, &g->mo, g->outer_nv);
  if (chance(g, g->pol->p_else)) {
    ir_add_stmt(g->p, OPS_else, -1, 0, NULL);
    g->outer_nv = g->p->nvalues;
    body(g);
    end_scope(g, &g->mo, g->outer_nv);
  }
  g->depth--, g->ifs--;
  ir_add_stmt(g->p, OPS_end, -1, 0, NULL);
  /* what the then branch made inexact: storages from before the if by index, inputs it made by value */
  for (int k = 0; k < nstor0; k++) {
    g->mo.stor[k].inexact |= then.stor[k].inexact;
    g->mo.stor[k].keep_exact |= then.stor[k].keep_exact;
  }
  for (int i = ninputs; i < nin_then; i++) {
    int v = g->p->inputs[i].value;
    g->mo.stor[IMPL(g, v)->storage].inexact |= then.stor[then.impls[then.impl_of[v]].storage].inexact;
  }
  gen_model_free(&then);
  for (int k = nreb0; k < g->nrebound; k++) gen_model_set_flag(&g->mo, g->rebound[k], GEN_VF_REBOUND);
  g->outer_nv = save_nv, g->loop_var = save_var;
  return 0;
}

/* A write indexed by the loop variable into a tensor from outside the loop: x[i] op= n,
 * x[:, i] = n (a KV-cache update), or r = x.select(d, i) followed by an in-place op on r. */
static int gen_loop_write(gen *g) {
  int c[512], n = 0;
  for (int v = 0; v < g->outer_nv && v < g->p->nvalues && n < 512; v++) {
    if (!usable(g, v) || M(g, v)->dtype == AF_BOOL || ops_meta_overlaps(M(g, v))) continue;
    for (int d = 0; d < M(g, v)->rank; d++)
      if (M(g, v)->shape[d] >= g->trips) {
        c[n++] = v;
        break;
      }
  }
  int v = pick_from(g, c, n);
  if (v < 0) return -1;
  const ops_meta *m = M(g, v);
  int dims[AF_MAX_RANK * 2], nd = 0;
  for (int d = 0; d < m->rank; d++)
    if (m->shape[d] >= g->trips) dims[nd++] = d;
  int d = dims[R(g, 0, nd - 1)];
  if (g->pol->op_weight[OPS_select] > 0 && chance(g, 0.5)) { /* r = x.select(d, i); r.op_(...) */
    ir_arg a[3] = {{.kind = IR_ARG_VALUE, .value = v}, {.kind = IR_ARG_INT, .i = d, .value = -1}, {.kind = IR_ARG_INT, .i = 0, .value = -1}};
    int r = emit(g, OPS_select, 3, a, 0);
    if (r < 0) return -1;
    ir_stmt *st = &g->p->stmts[g->p->nstmts - 1];
    st->args[2] = (ir_arg){.kind = IR_ARG_VALUE, .value = g->loop_var};
    moving_view(g, r);
    int op;
    return apply_some_op(g, r, 1, &op) < 0 ? -1 : 0;
  }
  static const int ops[] = {OPS_setitem, OPS_setitem_add, OPS_setitem_mul, OPS_setitem_sub};
  int op = ops[R(g, 0, 3)];
  if (!(g->pol->op_weight[op] > 0)) return -1;
  ir_index idx[AF_MAX_RANK];
  for (int k = 0; k < d; k++) idx[k] = (ir_index){.kind = IR_IDX_SLICE, .step = 1, .value = -1};
  idx[d] = (ir_index){.kind = IR_IDX_INT, .i = 0, .value = -1};
  ir_arg a[3] = {{.kind = IR_ARG_VALUE, .value = v}, {.kind = IR_ARG_INDEX, .n = d + 1, .index = idx, .value = -1},
                 {.kind = IR_ARG_INT, .i = R(g, 1, 3), .value = -1}};
  if (emit(g, op, 3, a, 0) < 0) return -1;
  ir_stmt *st = &g->p->stmts[g->p->nstmts - 1];
  st->args[1].index[d] = (ir_index){.kind = IR_IDX_TENSOR, .value = g->loop_var};
  return 0;
}

/* Appends list statement (op, args) if the model accepts it; its result value (or 0), -1 when
 * refused. A new list is named lN. */
static int emit_list(gen *g, int op, int nargs, ir_arg *args) {
  ir_stmt st = {.op = op, .out = -1, .nargs = nargs, .args = args};
  af_err err;
  int defines = op != OPS_list_append && op != OPS_list_set;
  if (g->loop_var >= 0) { /* the model checks the first iteration's index */
    ir_arg copy[OPS_MAX_ARGS];
    for (int k = 0; k < nargs; k++) {
      copy[k] = args[k];
      if (args[k].kind == IR_ARG_VALUE && args[k].value == g->loop_var) copy[k] = (ir_arg){.kind = IR_ARG_INT, .i = g->trips - 1, .value = -1};
    }
    ir_stmt last = {.op = op, .out = -1, .nargs = nargs, .args = copy};
    if (gen_model_list(&g->mo, &last, 0, &err)) return -1;
  }
  if (gen_model_list(&g->mo, &st, 0, &err)) return -1;
  char name[32];
  if (defines) make_name(name, sizeof name, op == OPS_list ? "l" : "v", op == OPS_list ? g->nl++ : g->nv++);
  st.out = defines ? ir_add_value(g->p, name) : -1;
  int s = ir_add_stmt(g->p, op, st.out, nargs, args);
  ir_stmt real = g->p->stmts[s];
  ir_arg copy[OPS_MAX_ARGS];
  for (int k = 0; k < nargs; k++) { /* apply with the index the first iteration uses */
    copy[k] = real.args[k];
    if (copy[k].kind == IR_ARG_VALUE && copy[k].value == g->loop_var && g->loop_var >= 0) copy[k] = (ir_arg){.kind = IR_ARG_INT, .i = 0, .value = -1};
  }
  real.args = copy;
  gen_model_list(&g->mo, &real, 1, &err);
  if (st.out >= 0 && op != OPS_list && op != OPS_list_get) { /* cat/stack: fresh, inexact when an element is */
    for (int k = 0; k < g->mo.nlst[args[0].value]; k++)
      if (g->mo.stor[g->mo.impls[g->mo.lst[args[0].value][k]].storage].inexact) g->mo.stor[IMPL(g, st.out)->storage].inexact = 1;
  }
  return st.out >= 0 ? st.out : 0;
}

/* l = [a, b, ...] of tensors of one shape and dtype; maybe l.append(t) or l[k] = t; writes
 * through l[k] and into the elements themselves; then torch.cat(l, d) or torch.stack(l, d).
 * Inside a block only lists made in that block grow (a list's length must not depend on the
 * branch taken or the iteration). */
static int gen_list(gen *g) {
  int a = pick_any(g);
  if (a < 0 || M(g, a)->rank < 1) return -1;
  const ops_meta ma = *M(g, a), *m = &ma; /* a copy: new inputs grow (move) the model's arrays */
  int same[512], n = 0;
  for (int v = 0; v < g->p->nvalues && n < 512; v++)
    if (v != a && usable(g, v) && M(g, v)->dtype == m->dtype && M(g, v)->rank == m->rank &&
        !memcmp(M(g, v)->shape, m->shape, sizeof(int64_t) * (size_t)m->rank))
      same[n++] = v;
  int elems[4] = {a}, ne = 1, want = (int)R(g, 1, 3);
  for (int k = 0; k < want; k++)
    elems[ne++] = n && !chance(g, g->pol->p_new_operand) ? pick_from(g, same, n) : new_data_input(g, m->rank, m->shape, m->dtype);
  ir_arg la = {.kind = IR_ARG_VALUES, .n = ne, .values = elems, .value = -1};
  int l = emit_list(g, OPS_list, 1, &la);
  if (l < 0) return -1;
  int len = ne;
  if (chance(g, 0.5)) { /* append another tensor of the shape, or replace an element */
    int t = n && !chance(g, g->pol->p_new_operand) ? pick_from(g, same, n) : new_data_input(g, m->rank, m->shape, m->dtype);
    int set = chance(g, 0.3);
    ir_arg aa[3] = {{.kind = IR_ARG_VALUE, .value = l}, {.kind = IR_ARG_VALUE, .value = t}};
    if (set) {
      aa[1] = (ir_arg){.kind = IR_ARG_INT, .i = R(g, -len, len - 1), .value = -1};
      aa[2] = (ir_arg){.kind = IR_ARG_VALUE, .value = t};
    }
    if (emit_list(g, set ? OPS_list_set : OPS_list_append, set ? 3 : 2, aa) >= 0 && !set) len++;
  }
  for (int w = (int)R(g, 0, 2); w > 0; w--) { /* a write through an element, or into an element directly */
    int t;
    if (chance(g, 0.6)) {
      ir_arg ga[2] = {{.kind = IR_ARG_VALUE, .value = l}, {.kind = IR_ARG_INT, .i = R(g, -len, len - 1), .value = -1}};
      /* (not l[i] with the loop variable: which tensor it names, and so what it aliases, would
         change between iterations) */
      t = emit_list(g, OPS_list_get, 2, ga);
    } else {
      t = elems[R(g, 0, ne - 1)];
    }
    int op;
    if (t >= 0 && usable(g, t)) apply_some_op(g, t, 1, &op);
  }
  int stack = chance(g, 0.4), rank = M(g, a)->rank + stack;
  if (stack && rank > g->pol->max_view_rank) stack = 0, rank--;
  ir_arg ca[2] = {{.kind = IR_ARG_VALUE, .value = l}, {.kind = IR_ARG_INT, .i = R(g, -rank, rank - 1), .value = -1}};
  int r = emit_list(g, stack ? OPS_stack_list : OPS_cat_list, 2, ca);
  if (r > 0) note(&g->fresh, &g->nfresh, r);
  return 0;
}

/* name = op(name, n) for a name from outside the block, keeping its shape and dtype: the name
 * now refers to a new tensor while the old one's other names keep it. */
static int gen_rebind(gen *g) {
  int c[512], n = 0, aliased[512], na = 0;
  for (int v = 0; v < g->p->nvalues && n < 512; v++) {
    if (!usable(g, v) || M(g, v)->dtype == AF_BOOL) continue;
    int buffer = 0; /* a module buffer (self.w = self.w + 1 rebinds the module's state) */
    for (int i = 0; i < g->p->ninputs; i++) buffer |= g->p->inputs[i].value == v && g->p->inputs[i].buffer;
    if (!(g->depth ? v < g->outer_nv : buffer)) continue; /* in a block: names from outside it */
    c[n++] = v;
    const gen_impl *im = IMPL(g, v);
    if (im->depth > 0 || g->mo.stor[im->storage].nviews > 0) aliased[na++] = v;
  }
  int v = na && chance(g, 0.7) ? pick_from(g, aliased, na) : pick_from(g, c, n);
  if (v < 0) return -1;
  static const int ops[] = {OPS_add, OPS_mul, OPS_sub};
  int op = ops[R(g, 0, 2)];
  ir_arg a[2] = {{.kind = IR_ARG_VALUE, .value = v}, {.kind = IR_ARG_INT, .i = R(g, 1, 2), .value = -1}};
  ir_stmt st = {.op = op, .out = -1, .nargs = 2, .args = a};
  ops_effect e;
  af_err err;
  const ops_meta *m = M(g, v);
  if (ops_shape_infer(&st, &g->mo.env, &e, &err) || e.out.dtype != m->dtype || e.out.rank != m->rank) return -1;
  for (int d = 0; d < m->rank; d++)
    if (e.out.shape[d] != m->shape[d]) return -1;
  int inx = inexact(g, v) || ops_shape_exactness_dt(op, m->dtype) == OPS_EX_INEXACT;
  int s = ir_add_stmt(g->p, op, v, 2, a);
  gen_model_apply(&g->mo, s, &e);
  if (inx) g->mo.stor[IMPL(g, v)->storage].inexact = 1;
  if (g->ifs) note(&g->rebound, &g->nrebound, v);
  return 0;
}

static void choose_outputs(gen *g) {
  int want = (int)R(g, 1, g->pol->max_outputs);
  int *outs = af_xcalloc((size_t)want + 1, sizeof(int));
  int n = 0;
  for (int tries = 0; n < want && tries < 4 * want + 4; tries++) {
    int v = -1;
    if (g->nwritten && chance(g, g->pol->p_output_base)) {
      /* the base of a storage written through a view (an output depending on a write through
         a value it never mentions) */
      int w = g->written[R(g, 0, g->nwritten - 1)];
      if (!usable(g, w)) continue; /* out of scope, or written in a then branch only */
      int base = g->mo.stor[IMPL(g, w)->storage].base;
      for (int u = 0; u < g->p->nvalues; u++)
        if (g->mo.impl_of[u] == base && usable(g, u)) {
          v = u;
          break;
        }
      if (v >= 0 && is_input(g, v) && g->nfresh && chance(g, 0.5)) v = g->fresh[R(g, 0, g->nfresh - 1)];
    } else if (g->nwritten && chance(g, g->pol->p_output_view)) {
      v = g->written[R(g, 0, g->nwritten - 1)];
    } else if (g->nfresh && chance(g, 0.7)) {
      v = g->fresh[R(g, 0, g->nfresh - 1)];
    } else {
      v = pick_any(g);
    }
    if (v < 0 || !usable(g, v)) continue;
    int dup = 0;
    for (int k = 0; k < n; k++)
      if (outs[k] == v) dup = 1;
    if (!dup) outs[n++] = v;
  }
  for (int k = 0; k < g->nwritten; k++) { /* views written in another dtype than their storage's base
                                             (an int view of float bits): a lost write of a few ulps
                                             would hide under the float tolerance; their own values
                                             compare exactly */
    int w = g->written[k], dup = 0;
    if (!usable(g, w) || M(g, w)->dtype == g->mo.impls[g->mo.stor[IMPL(g, w)->storage].base].m.dtype) continue;
    for (int j = 0; j < n; j++) dup |= outs[j] == w;
    if (!dup) {
      outs = af_xrealloc(outs, sizeof(int) * (size_t)(n + 2));
      outs[n++] = w;
    }
  }
  for (int k = 0; k < g->nrebound; k++) { /* names rebound in a branch: what the caller sees */
    int dup = 0;
    for (int j = 0; j < n; j++) dup |= outs[j] == g->rebound[k];
    if (!dup && !(g->mo.flags[g->rebound[k]] & GEN_VF_DEAD)) {
      outs = af_xrealloc(outs, sizeof(int) * (size_t)(n + 2));
      outs[n++] = g->rebound[k];
    }
  }
  if (!n) { /* the last tensor value in scope (inputs always are) */
    int v = g->p->nvalues - 1;
    while (v > 0 && (g->mo.flags[v] & (GEN_VF_DEAD | GEN_VF_INT))) v--;
    outs[n++] = v;
  }
  for (int k = 0; k < n; k++) /* a complex value goes out as its (real, imaginary) pairs */
    if (af_dtype_is_complex(M(g, outs[k])->dtype)) {
      ir_arg a = {.kind = IR_ARG_VALUE, .value = outs[k]};
      int r = emit(g, OPS_view_as_real, 1, &a, 0);
      if (r >= 0) outs[k] = r;
      else outs[k--] = outs[--n]; /* strides the model lost: not returned */
    }
  if (!n) outs[n++] = 0; /* the first input */
  g->p->noutputs = n;
  g->p->outputs = outs;
}

/* ---------------------------------------------------------------- programs */

static void remap_arg(ir_arg *a, const int *map) {
  if (a->kind == IR_ARG_VALUE) a->value = map[a->value];
  if (a->kind == IR_ARG_VALUES)
    for (int k = 0; k < a->n; k++) a->values[k] = map[a->values[k]];
  if (a->kind == IR_ARG_INDEX)
    for (int k = 0; k < a->n; k++)
      if (a->index[k].kind == IR_IDX_TENSOR) a->index[k].value = map[a->index[k].value];
}

/* An eager hook for programs with layouts: a write into a tensor whose elements repeat (a zero
 * stride over more than one element, as an expanded input has) is refused even where eager lets
 * it happen (index_put_, out=): its result depends on which copy eager writes last; so is a
 * foreach list whose elements share memory (inputs laid out in one base). */
static int no_repeated_write(void *ctx, int s, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  (void)ctx;
  int w[64], n = ops_stmt_written(st, w, 64); /* foreach: every element; batch_norm: its statistics */
  for (int k = 0; k < n && k < 64; k++) {
    const af_tensor *t = values[w[k]];
    if (!t) continue;
    int64_t sh[AF_MAX_RANK * 2], str[AF_MAX_RANK * 2];
    int r = at_tensor_rank(t);
    if (r > AF_MAX_RANK * 2) continue;
    at_tensor_shape(t, sh);
    at_tensor_strides(t, str);
    for (int d = 0; d < r; d++)
      if (sh[d] > 1 && str[d] == 0) return af_fail(err, "body[%d]: a write into repeated elements", s);
    for (int j = 0; j < k; j++) /* written tensors that share memory (the order would decide) */
      if (values[w[j]] && eager_lap(values[w[j]], t) != OPS_LAP_NONE)
        return af_fail(err, "body[%d]: written tensors %d and %d (a foreach list's elements) share memory", s, j, k);
  }
  return 0;
}

/* The program with the inputs renumbered first (inputs are added while generating, so their
 * value ids interleave with statement results). new, free with ir_program_free. */
static ir_program *finalize(const ir_program *p) {
  ir_program *q = ir_program_new();
  int *map = af_xcalloc((size_t)p->nvalues + 1, sizeof(int));
  for (int v = 0; v < p->nvalues; v++) map[v] = -1;
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    int v = ir_add_input(q, p->names[in->value], in->rank, in->shape, in->dtype);
    map[in->value] = v;
    q->inputs[i].buffer = in->buffer;
    q->inputs[i].attr = in->attr;
    if (in->ndata) {
      q->inputs[i].ndata = in->ndata;
      q->inputs[i].data = af_xmalloc(sizeof(double) * (size_t)in->ndata);
      memcpy(q->inputs[i].data, in->data, sizeof(double) * (size_t)in->ndata);
    }
    if (in->base) ir_set_layout(q, i, in->base - 1, in->strides, in->offset); /* positions stay */
  }
  ir_copy_bases(q, p, NULL);
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *st = &p->stmts[s];
    int out = -1;
    if (st->out >= 0) { /* a rebind keeps its value id */
      if (map[st->out] < 0) map[st->out] = ir_add_value(q, p->names[st->out]);
      out = map[st->out];
    }
    int k = ir_add_stmt(q, st->op, out, st->nargs, st->args);
    for (int a = 0; a < st->nargs; a++) remap_arg(&q->stmts[k].args[a], map);
  }
  q->noutputs = p->noutputs;
  q->outputs = af_xcalloc((size_t)p->noutputs + 1, sizeof(int));
  for (int o = 0; o < p->noutputs; o++) q->outputs[o] = map[p->outputs[o]];
  free(map);
  return q;
}

/* Module state as plain tensor attributes (issue 29), from a stream of its own (seed): each buffer
 * that is no parameter becomes one with chance prob. Eager runs the program the same either way,
 * so every program stays valid; converters see another module (torch.export lifts a plain
 * attribute as a constant). */
static void plain_attributes(ir_program *q, uint64_t seed, double prob) {
  provider pv;
  provider_init_seed(&pv, seed);
  for (int i = 0; i < q->ninputs; i++)
    if (q->inputs[i].buffer && !q->inputs[i].param && provider_chance(&pv, prob)) q->inputs[i].attr = 1;
}

static int generate(const gen_policy *pol, provider *pv, const char *meta_head, ir_program **out, af_err *err) {
  *out = NULL;
  unsigned epoch = policy_epoch(pol, err);
  if (!epoch) return -1;
  gen g;
  memset(&g, 0, sizeof g);
  g.pol = pol;
  g.epoch = epoch;
  g.pv = *pv;
  uint64_t hs = 0xcbf29ce484222325ULL; /* set_'s stream: the meta head's FNV-1a, as the layouts' below */
  for (const char *c = meta_head; *c; c++) hs = (hs ^ (unsigned char)*c) * 0x100000001b3ULL;
  provider_init_seed(&g.pv_set, hs ^ 0x5e75e7a1ULL);
  g.p = ir_program_new();
  gen_model_init(&g.mo, g.p);
  g.focus = g.read_storage = g.read_writer = -1;
  g.loop_var = -1;
  g.module = chance(&g, pol->p_module);
  g.ch = (ops_chooser){.ctx = &g, .range = cb_range, .decide = cb_decide, .index_kind = cb_index_kind,
                       .tensor = cb_tensor, .meta = cb_meta, .max_numel = pol->max_numel, .max_rank = pol->max_view_rank};
  int nin = (int)R(&g, pol->min_inputs, pol->max_inputs);
  for (int i = 0; i < nin; i++) {
    int64_t shape[AF_MAX_RANK];
    int r = input_shape(&g, shape);
    new_data_input(&g, r, shape, pick_dtype(&g, 1, 1));
  }
  int steps = (int)R(&g, pol->min_stmts, pol->max_stmts);
  for (int s = 0; s < steps; s++)
    for (int tries = 0; tries < 4; tries++)
      if (step(&g) == 0) break;
  choose_outputs(&g);
  /* meta: {"seed":S or "bytes"/"fnv1a", "generator":..., "policy": diff} */
  char *pdiff = gen_policy_diff_json(pol);
  af_buf b = {0};
  af_buf_printf(&b, "{%s,\"generator\":\"%s\",\"policy\":%s}", meta_head, GEN_VERSION, pdiff);
  free(pdiff);
  free(g.written);
  free(g.fresh);
  free(g.rebound);
  gen_model_free(&g.mo);
  ir_program *q = finalize(g.p);
  /* input layouts from a stream of their own (programs without them stay as they were); eager
     decides whether one is kept (gen_layout.c) */
  uint64_t ls = 0xcbf29ce484222325ULL;
  for (const char *c = meta_head; *c; c++) ls = (ls ^ (unsigned char)*c) * 0x100000001b3ULL;
  if ((double)(ls >> 11) / 9007199254740992.0 < pol->p_layout && gen_layouts(g.p, ls)) {
    ir_program *l = finalize(g.p);
    result r;
    af_err le;
    result_init(&r);
    af_tensor **in = NULL;
    /* input layouts come after the rules ran: a layout the rules would refuse where the plain program
       passed them (masked_scatter_ into a non-contiguous input, which PyTorch 1.13 fills in memory
       order: corpus/known-gaps/bug-002) is not kept, even where eager accepts it */
    int ok = !ir_validate(l, &le) && gen_model_refusals(l, -1, NULL) <= gen_model_refusals(q, -1, NULL) && !inputs_new(l, &in, &le) &&
             !eager_run_traced(l, in, no_repeated_write, NULL, &r, &le) && r.status == RESULT_OK;
    inputs_free(in ? ir_ntensors(l) : 0, in);
    if (ok) {
      ir_program_free(q);
      q = l;
    } else {
      ir_program_free(l);
    }
    result_clear(&r);
  }
  ir_program_free(g.p);
  /* sizes as values (issue 15) from a stream of their own too: int literals read from the inputs'
     shapes where eager says they match (gen_sizes.c) */
  if (pol->p_size_value > 0) {
    ir_program *z = gen_sizes(q, ls ^ 0x5157a1e5ULL, pol->p_size_value);
    if (z) {
      ir_program_free(q);
      q = z;
    }
  }
  /* dtype views read back in another width (issue 29), from a stream of its own too (gen_dtview.c) */
  if (pol->p_dtype_view_back > 0 && pol->op_weight[OPS_view_dtype] > 0) {
    ir_program *z = gen_dtype_view_back(q, ls ^ 0xd7e5b1c3ULL, pol->p_dtype_view_back);
    if (z) {
      ir_program_free(q);
      q = z;
    }
  }
  /* running statistics (issue 29) from a stream of its own too: a batch_norm or instance_norm whose
     statistics are new buffers, added where nothing else reads what it makes (gen_stats.c) */
  if (pol->p_running_stats > 0) {
    ir_program *z = gen_running_stats(q, ls ^ 0xb47c4e0aULL, pol);
    if (z) {
      ir_program_free(q);
      q = z;
    }
  }
  /* training (issue 33) from a stream of its own: the body stays, eager decides which inputs may
     require grad (gen_train.c) */
  if (pol->p_train > 0) gen_train(q, ls ^ 0x7a41e533ULL, pol);
  if (pol->p_attribute > 0) plain_attributes(q, ls ^ 0xa771b07eULL, pol->p_attribute);
  q->meta = af_buf_take(&b);
  if (ir_validate(q, err)) {
    af_err_prefix(err, "generator bug: invalid program");
    ir_program_free(q);
    return -1;
  }
  *out = q;
  return 0;
}

int gen_program(const gen_policy *pol, uint64_t seed, ir_program **out, af_err *err) {
  provider pv;
  provider_init_seed(&pv, seed);
  char head[64];
  /* JSON numbers are doubles: seeds from 2^53 on are written as strings to stay exact */
  snprintf(head, sizeof head, seed < (1ULL << 53) ? "\"seed\":%llu" : "\"seed\":\"%llu\"", (unsigned long long)seed);
  return generate(pol, &pv, head, out, err);
}

int gen_program_from_bytes(const gen_policy *pol, const uint8_t *data, size_t len, ir_program **out, af_err *err) {
  provider pv;
  provider_init_bytes(&pv, data, len);
  char head[96];
  snprintf(head, sizeof head, "\"bytes\":%zu,\"fnv1a\":\"%016llx\"", len, (unsigned long long)provider_fnv1a(data, len));
  return generate(pol, &pv, head, out, err);
}
