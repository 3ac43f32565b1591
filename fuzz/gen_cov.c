/* gen_cov.c - pattern coverage: replays programs through the alias model and counts the alias
 * patterns they contain (see gen.h). */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gen_model.h"

enum {
  C_RESHAPE_VIEW, C_RESHAPE_COPY, C_FLATTEN_VIEW, C_FLATTEN_COPY, C_FLATTEN_SAME, C_CONTIG_SAME, C_CONTIG_COPY,
  C_GETITEM_VIEW, C_GETITEM_COPY, C_META_INPUT, C_META_VIEW, C_META_INTER, C_META_THEN_USE, C_WRITE_VIA_VIEW,
  C_READ_BASE_AFTER, C_READ_SIBLING_AFTER, C_HIDDEN_DEP, C_INPLACE_INPUT, C_INPLACE_INPUT_VIEW, C_INPLACE_INTER,
  C_OUT_INPUT, C_OUT_VIEW, C_OUT_INTER, C_MULTI_VIEW, C_BIND_RESULT, C_WRITE_COPY_RESULT, C_REPLAY_FAILED,
  C_IF, C_IF_ELSE, C_FOR, C_NESTED, C_LOOP_INDEX, C_LOOP_WRITE_OUTER, C_BRANCH_WRITE_OUTER, C_REBIND, C_REBIND_ALIASED,
  C_LIST, C_LIST_GROW, C_LIST_WRITE, C_LIST_CAT, C_LIST_CAT_AFTER_WRITE, C_MODULE, C_BUFFER_WRITE, C_BUFFER_REBIND,
  C_ATTR_MODULE, C_ATTR_WRITE, C_ATTR_REBIND,
  C_SIZE_VALUE, C_SIZE_USE, C_FACTORY_WRITE, C_TO_SAME, C_COUNT
};
static const char *counter_names[C_COUNT] = {
    "reshape as a view", "reshape as a copy", "flatten as a view", "flatten as a copy", "flatten returning self",
    "contiguous returning self", "contiguous copying", "getitem as a view", "getitem copying (tensor index)",
    "shape-changing in-place on an input", "shape-changing in-place on a view", "shape-changing in-place on an intermediate",
    "shape-changing in-place followed by a use of the same name", "writes through a view",
    "reads of the base after a write through a view", "reads of a sibling view after a write through a view",
    "programs with an output that depends on a write through a value it does not mention",
    "in-place writes into an input", "in-place writes into a view of an input", "in-place writes into an intermediate",
    "out= into an input", "out= into a view", "out= into an intermediate",
    "storages with two or more views", "in-place results bound to a new name", "writes into a copy made by a maybe-view op",
    "statements the model could not replay",
    "if blocks", "if blocks with an else", "for loops", "blocks nested in blocks", "uses of a loop variable as an index",
    "writes in a loop body into a tensor from outside the loop", "writes in a branch into a tensor from outside the branch",
    "rebinds of a name (s = f(s))", "rebinds of a name another name still aliases",
    "lists of tensors", "list appends and element replacements", "writes into a tensor a list holds",
    "cat/stack of a list", "cat/stack of a list after a write into one of its tensors",
    "programs with module state (an nn.Module's forward with buffers)", "in-place writes into a buffer or a view of one",
    "rebinds of a buffer (self.w = f(self.w))",
    "programs with a plain tensor attribute (self.t = tensor in __init__, not register_buffer)",
    "in-place writes into a plain tensor attribute or a view of one", "rebinds of a plain tensor attribute",
    "int values read from sizes (x.size(d), x.shape[d], x.numel(), x.dim())",
    "statements using such an int value (slice bound, view size, index, trip count, ...)",
    "in-place writes into a factory's fresh storage (torch.zeros, full, arange, eye, empty().fill_, ...), direct or through a view",
    "x.to(dtype) returning x itself (its dtype already)"};

#define NIDX OPS_IDX_KIND_COUNT

/* The coverage table (gen_cov_table): where a statement's first tensor argument lives (the target
 * of a write, the source of a view or a functional op) and its dtype class. */
enum { PL_INPUT, PL_INPUT_VIEW, PL_INTER, PL_INTER_VIEW, PL_BUFFER, PL_NONE, NPLACE };
static const char *place_names[NPLACE] = {"input", "view of an input", "intermediate", "view of an intermediate",
                                          "buffer or a view of one", "no tensor argument (factories)"};
enum { DTC_FLOAT, DTC_HALF, DTC_INT, DTC_BOOL, DTC_COMPLEX, NDTC };
static const char *dtc_names[NDTC] = {"float32/64", "float16/bf16", "int", "bool", "complex"};

struct gen_cov {
  long programs, stmts;
  long *op_stmts;                 /* [op]: statements of each op */
  long target_dtype[AF_DTYPE_COUNT]; /* mutation targets (data writes) by dtype */
  long promoted;                  /* in-place data writes with a tensor operand of another dtype */
  long *pair; /* [v][m][depth class][root] */
  long idx_set[NIDX], idx_get[NIDX];
  long c[C_COUNT];
  long *tab; /* [family][placement][dtype class]: statements (gen_cov_table) */
};

#define PAIR(c, v, m, d, r) (c)->pair[(((size_t)(v) * OPS_COUNT + (size_t)(m)) * 2 + (size_t)(d)) * 2 + (size_t)(r)]

gen_cov *gen_cov_new(void) {
  gen_cov *c = af_xcalloc(1, sizeof *c);
  c->pair = af_xcalloc((size_t)OPS_COUNT * OPS_COUNT * 4, sizeof(long));
  c->op_stmts = af_xcalloc((size_t)OPS_COUNT, sizeof(long));
  c->tab = af_xcalloc((size_t)OPS_FAM_COUNT * NPLACE * NDTC, sizeof(long));
  return c;
}

void gen_cov_free(gen_cov *c) {
  if (!c) return;
  free(c->pair);
  free(c->op_stmts);
  free(c->tab);
  free(c);
}

static int is_view_op(int op) {
  const ops_entry *e = ops_get(op);
  return e && (e->kind == OPS_VIEW || e->kind == OPS_GETITEM);
}

int gen_cov_pair_allowed(int v, int m) {
  /* Every view op can yield a tensor some mutating op may write: expand and expand_as when they
   * do not repeat (same sizes, new leading 1s), unfold and as_strided when they do not overlap. */
  return is_view_op(v) && ops_shape_can_sample(v) && ops_mutates(m) && ops_shape_can_sample(m);
}

long gen_cov_op_count(const gen_cov *c, int op) { return op >= 0 && op < OPS_COUNT ? c->op_stmts[op] : 0; }

long gen_cov_pair_count(const gen_cov *c, int v, int m, int d, int r) {
  if (r < 0) return PAIR(c, v, m, d, 0) + PAIR(c, v, m, d, 1);
  return PAIR(c, v, m, d, r);
}

/* One replay; calls ev(ctx, id) for every feature event (pair events and counters). */
typedef void (*event_fn)(void *ctx, uint32_t id);
#define NPAIR_IDS ((uint32_t)OPS_COUNT * OPS_COUNT * 4)

/* The state of one replay (replay below): the model, the counters' and events' sinks, and what
 * the counters need to remember between statements. */
typedef struct replay_st {
  const ir_program *p;
  gen_cov *cov; /* counters, or NULL */
  event_fn ev;  /* feature events, or NULL */
  void *ctx;
  gen_model mo;
  int *meta_pending; /* value had a shape-changing in-place op */
  int nstor_cap;
  char *tainted;      /* per storage: written through a view */
  int *read_pending;  /* per storage: impl that wrote through a view, +1 */
  int *copy_storage;  /* per storage: 1 made by a maybe-view that copied, 2 by a factory without a tensor argument */
  char *isint;        /* every int value; issize: those an int op made; isloop: loop variables */
  char *issize, *isloop;
  int64_t *zeros;
  int *opener, depth; /* the open blocks' statements */
  int *born;          /* block depth a value was first defined at, +1 */
  char *list_written; /* per impl (mod 4096): written while a list held it */
} replay_st;

static void rp_count(replay_st *r, int k) {
  if (r->cov) r->cov->c[k]++;
  if (r->ev) r->ev(r->ctx, NPAIR_IDS + (uint32_t)(k));
}

/* A control statement: blocks are replayed once, straight through (both branches; loop variables
 * read 0, the first iteration). */
static void rp_ctrl(replay_st *r, const ir_stmt *st0) {
  int s = (int)(st0 - r->p->stmts);
  if (st0->op == OPS_if || st0->op == OPS_for) {
    rp_count(r, st0->op == OPS_if ? (ir_block_else(r->p, s) >= 0 ? C_IF_ELSE : C_IF) : C_FOR);
    if (r->depth) rp_count(r, C_NESTED);
    r->opener[r->depth++] = s;
    if (st0->op == OPS_for && st0->out >= 0) r->born[st0->out] = r->depth + 1;
  }
  if (st0->op == OPS_no_grad) r->opener[r->depth++] = s; /* a block, not counted as control flow */
  if (st0->op == OPS_end && r->depth) r->depth--;
  if (r->cov) r->cov->op_stmts[st0->op]++;
}

/* n = x.size(d): its value from the model's shape, for the statements that use n. */
static void rp_int(replay_st *r, const ir_stmt *st) {
  af_err ierr;
  int v = st->args[0].kind == IR_ARG_VALUE ? st->args[0].value : -1;
  if (v < 0 || r->mo.impl_of[v] < 0 || !gen_model_meta(&r->mo, v)->known ||
      ir_int_op_value(st, gen_model_meta(&r->mo, v)->rank, gen_model_meta(&r->mo, v)->shape, &r->zeros[st->out], &ierr))
    rp_count(r, C_REPLAY_FAILED);
  else
    rp_count(r, C_SIZE_VALUE);
  if (r->cov) r->cov->op_stmts[st->op]++;
}

/* A list statement (list, append, set, cat/stack of a list). */
static void rp_list(replay_st *r, int s, const ir_stmt *st) {
  af_err lerr;
  if (r->cov) r->cov->op_stmts[st->op]++;
  if (gen_model_list(&r->mo, st, 1, &lerr)) {
    rp_count(r, C_REPLAY_FAILED);
    if (st->out >= 0) gen_model_apply_unknown(&r->mo, s);
  } else {
    if (st->op == OPS_list) rp_count(r, C_LIST);
    if (st->op == OPS_list_append || st->op == OPS_list_set) rp_count(r, C_LIST_GROW);
    if (st->op == OPS_cat_list || st->op == OPS_stack_list) {
      rp_count(r, C_LIST_CAT);
      int l = st->args[0].value, after = 0;
      for (int k = 0; l < r->mo.caplst && k < r->mo.nlst[l]; k++) after |= r->list_written[r->mo.lst[l][k] % 4096];
      if (after) rp_count(r, C_LIST_CAT_AFTER_WRITE);
    }
  }
  if (st->out >= 0 && !r->born[st->out]) r->born[st->out] = r->depth + 1;
}

/* A name bound again (rebind counters), where it was born, a write in a block to a value from
 * outside it. */
static void rp_rebind(replay_st *r, const ir_stmt *st) {
  if (st->out >= 0 && r->born[st->out] && r->born[st->out] <= r->depth + 1 && !ops_mutates(st->op)) {
    rp_count(r, C_REBIND);
    if (st->out < r->p->ninputs && r->p->inputs[st->out].buffer) rp_count(r, C_BUFFER_REBIND);
    if (st->out < r->p->ninputs && r->p->inputs[st->out].attr) rp_count(r, C_ATTR_REBIND);
    int im = r->mo.impl_of[st->out];
    for (int u = 0; im >= 0 && u < r->mo.nvals; u++)
      if (u != st->out && r->mo.impl_of[u] >= 0 && r->mo.impls[r->mo.impl_of[u]].storage == r->mo.impls[im].storage) {
        rp_count(r, C_REBIND_ALIASED);
        break;
      }
  }
  if (st->out >= 0 && !r->born[st->out]) r->born[st->out] = r->depth + 1;
  if (r->depth && ops_mutates(st->op) && st->args[0].kind == IR_ARG_VALUE && r->born[st->args[0].value] &&
      r->born[st->args[0].value] <= r->depth) {
    int inner_for = 0;
    for (int k = 0; k < r->depth; k++) inner_for |= r->p->stmts[r->opener[k]].op == OPS_for && r->born[st->args[0].value] <= k + 1;
    rp_count(r, inner_for ? C_LOOP_WRITE_OUTER : C_BRANCH_WRITE_OUTER);
  }
}

/* The per-storage arrays grown to the model's storages (and a margin). */
static void rp_grow(replay_st *r) {
  if (r->mo.nstor + 8 > r->nstor_cap) {
    int cap = (r->mo.nstor + 8) * 2;
    r->tainted = af_xrealloc(r->tainted, (size_t)cap);
    r->read_pending = af_xrealloc(r->read_pending, sizeof(int) * (size_t)cap);
    r->copy_storage = af_xrealloc(r->copy_storage, sizeof(int) * (size_t)cap);
    for (int k = r->nstor_cap; k < cap; k++) r->tainted[k] = 0, r->read_pending[k] = 0, r->copy_storage[k] = 0;
    r->nstor_cap = cap;
  }
}

/* Uses of values: after a shape-changing in-place op, after a write through a view. */
static void rp_uses(replay_st *r, const ir_stmt *st) {
  for (int a = 0; a < st->nargs; a++) {
    const ir_arg *x = &st->args[a];
    int vals[64], nv = 0;
    if (x->kind == IR_ARG_VALUE) vals[nv++] = x->value;
    if (x->kind == IR_ARG_VALUES)
      for (int k = 0; k < x->n && nv < 64; k++) vals[nv++] = x->values[k];
    if (x->kind == IR_ARG_INDEX)
      for (int k = 0; k < x->n && nv < 64; k++)
        if (x->index[k].kind == IR_IDX_TENSOR) vals[nv++] = x->index[k].value;
    for (int k = 0; k < nv; k++) {
      int v = vals[k];
      if (r->meta_pending[v]) {
        rp_count(r, C_META_THEN_USE);
        r->meta_pending[v] = 0;
      }
      if (r->mo.impl_of[v] < 0) continue;
      const gen_impl *im = gen_model_impl(&r->mo, v);
      int w = r->read_pending[im->storage] - 1;
      if (w >= 0 && w != r->mo.impl_of[v] && !(a == 0 && ops_mutates(st->op))) {
        rp_count(r, im->depth == 0 ? C_READ_BASE_AFTER : C_READ_SIBLING_AFTER);
        r->read_pending[im->storage] = 0;
      }
    }
  }
}

/* The per-op counters, the written dtypes and the subscripts' index kinds (cov only). */
static void rp_cov_stmt(replay_st *r, const ir_stmt *st, const ops_entry *oe) {
  r->cov->op_stmts[st->op]++;
  if (ops_mutates(st->op) && !(oe->flags & OPF_META)) {
    /* a foreach op's target: its list's first element (the elements share one dtype) */
    int tv0 = st->args[0].kind == IR_ARG_VALUE ? st->args[0].value : st->args[0].values[0];
    af_dtype tdt = gen_model_meta(&r->mo, tv0)->dtype;
    r->cov->target_dtype[tdt]++;
    int f = ops_shape_family(st->op);
    int pointwise = ops_family_pointwise(f);
    for (int a = 1; a < st->nargs && oe->kind == OPS_INPLACE && pointwise; a++)
      if (st->args[a].kind == IR_ARG_VALUE && gen_model_meta(&r->mo, st->args[a].value)->dtype != tdt) {
        r->cov->promoted++;
        break;
      }
  }
  if (st->op == OPS_getitem || oe->kind == OPS_SETITEM)
    for (int k = 0; k < st->args[1].n; k++) {
      const ir_index *x = &st->args[1].index[k];
      int kind = x->kind == IR_IDX_INT ? OPS_IDX_INT : x->kind == IR_IDX_SLICE ? OPS_IDX_SLICE : x->kind == IR_IDX_NONE ? OPS_IDX_NONE
                 : x->kind == IR_IDX_ELLIPSIS ? OPS_IDX_ELLIPSIS
                 : gen_model_meta(&r->mo, x->value)->dtype == AF_BOOL ? OPS_IDX_MASK : OPS_IDX_TENSOR;
      if (st->op == OPS_getitem) r->cov->idx_get[kind]++;
      else r->cov->idx_set[kind]++;
    }
}

/* Each tensor the statement writes: argument 0, or every element of a foreach op's list. */
static void rp_writes(replay_st *r, const ir_stmt *st, const ops_entry *oe) {
  int tv[64], nt = 0;
  if (st->args[0].kind == IR_ARG_VALUE) tv[nt++] = st->args[0].value;
  if (oe->kind == OPS_FOREACH)
    for (int k = 0; k < st->args[0].n && nt < 64; k++) tv[nt++] = st->args[0].values[k];
  for (int ti = 0; ti < nt; ti++) {
    int t = tv[ti];
    const gen_impl *im = gen_model_impl(&r->mo, t);
    for (int l = 0; l < r->mo.caplst; l++) /* a tensor some list holds */
      for (int k = 0; k < r->mo.nlst[l]; k++)
        if (r->mo.lst[l][k] == r->mo.impl_of[t] && !r->list_written[r->mo.impl_of[t] % 4096]) {
          r->list_written[r->mo.impl_of[t] % 4096] = 1;
          rp_count(r, C_LIST_WRITE);
        }
    const gen_storage *sg = &r->mo.stor[im->storage];
    int root = sg->input >= 0 ? 0 : 1;
    if (st->out >= 0) rp_count(r, C_BIND_RESULT);
    if (sg->input >= 0 && r->p->inputs[sg->input].buffer && !(oe->flags & OPF_META)) rp_count(r, C_BUFFER_WRITE);
    if (sg->input >= 0 && r->p->inputs[sg->input].attr && !(oe->flags & OPF_META)) rp_count(r, C_ATTR_WRITE);
    if (oe->flags & OPF_META) {
      rp_count(r, im->depth > 0 ? C_META_VIEW : root == 0 ? C_META_INPUT : C_META_INTER);
      r->meta_pending[t] = 1;
    } else {
      if (oe->kind == OPS_OUT) rp_count(r, im->depth > 0 ? C_OUT_VIEW : root == 0 ? C_OUT_INPUT : C_OUT_INTER);
      if (im->depth > 0) {
        rp_count(r, C_WRITE_VIA_VIEW);
        r->tainted[im->storage] = 1;
        r->read_pending[im->storage] = r->mo.impl_of[t] + 1;
        if (root == 0) rp_count(r, C_INPLACE_INPUT_VIEW);
      } else {
        rp_count(r, root == 0 ? C_INPLACE_INPUT : C_INPLACE_INTER);
        if (sg->nviews) r->read_pending[im->storage] = r->mo.impl_of[t] + 1;
      }
      if (r->copy_storage[im->storage] & 1) rp_count(r, C_WRITE_COPY_RESULT);
      if (r->copy_storage[im->storage] & 2) rp_count(r, C_FACTORY_WRITE);
    }
    if (im->depth > 0 && is_view_op(im->view_op)) {
      int d = im->depth >= 2 ? 1 : 0;
      if (r->cov) PAIR(r->cov, im->view_op, st->op, d, root)++;
      if (r->ev) r->ev(r->ctx, (((uint32_t)im->view_op * OPS_COUNT + (uint32_t)st->op) * 2 + (uint32_t)d) * 2 + (uint32_t)root);
    }
  }
}

/* Applies the statement to the model; views and copies it made, taint of fresh results. */
static void rp_apply(replay_st *r, int s, const ir_stmt *st, const ops_entry *oe, const ops_effect *ep) {
  int before = r->mo.nstor;
  gen_model_apply(&r->mo, s, ep);
  if (ep->alias == OPS_ALIAS_VIEW && r->mo.stor[gen_model_impl(&r->mo, st->out)->storage].nviews == 2) rp_count(r, C_MULTI_VIEW);
  if (ep->copied && r->mo.nstor > before && r->mo.nstor <= r->nstor_cap) r->copy_storage[r->mo.nstor - 1] |= 1;
  if (ops_shape_family(st->op) == OPS_FAM_CREATION && r->mo.nstor > before && r->mo.nstor <= r->nstor_cap) r->copy_storage[r->mo.nstor - 1] |= 2;
  if (r->mo.nstor > before && st->out >= 0 && oe->kind == OPS_FUNC && r->mo.nstor - 1 < r->nstor_cap) {
    /* a fresh result computed from a tainted storage is tainted too */
    for (int a = 0; a < st->nargs; a++) {
      const ir_arg *x = &st->args[a];
      if (x->kind == IR_ARG_VALUE && r->mo.impl_of[x->value] >= 0 && r->tainted[gen_model_impl(&r->mo, x->value)->storage]) r->tainted[r->mo.nstor - 1] = 1;
      if (x->kind == IR_ARG_VALUES)
        for (int k = 0; k < x->n; k++)
          if (r->mo.impl_of[x->values[k]] >= 0 && r->tainted[gen_model_impl(&r->mo, x->values[k])->storage]) r->tainted[r->mo.nstor - 1] = 1;
    }
  }
}

/* Whether an output depends on a write through a value it does not mention. */
static int rp_hidden(replay_st *r) {
  /* an output depending on a write through a value it does not mention */
  int hidden = 0;
  for (int o = 0; o < r->p->noutputs && !hidden; o++) {
    int v = r->p->outputs[o];
    if (v < 0 || v >= r->mo.nvals || r->mo.impl_of[v] < 0) continue;
    const gen_impl *im = gen_model_impl(&r->mo, v);
    if (im->storage < r->nstor_cap && r->tainted[im->storage]) {
      int mentioned = 0;
      for (int q = 0; q < r->p->noutputs; q++) /* the writer among the outputs? then not hidden */
        if (r->p->outputs[q] != v && r->mo.impl_of[r->p->outputs[q]] >= 0 && gen_model_impl(&r->mo, r->p->outputs[q])->storage == im->storage &&
            gen_model_impl(&r->mo, r->p->outputs[q])->depth > 0)
          mentioned = 1;
      if (!mentioned) hidden = 1;
    }
  }
  return hidden;
}

/* One statement of the replay. */
static int dtype_class(af_dtype d) {
  if (d == AF_FLOAT16 || d == AF_BFLOAT16) return DTC_HALF;
  if (af_dtype_is_float(d)) return DTC_FLOAT;
  if (af_dtype_is_int(d)) return DTC_INT;
  return d == AF_BOOL ? DTC_BOOL : DTC_COMPLEX;
}

/* One statement into the coverage table, before it is applied: its family, where its first tensor
 * argument lives and that argument's dtype class (a factory's: its result's). */
static void rp_table(replay_st *r, const ir_stmt *st, const ops_effect *e) {
  const ir_arg *a0 = st->nargs ? &st->args[0] : NULL;
  int v = !a0 ? -1 : a0->kind == IR_ARG_VALUE ? a0->value : a0->kind == IR_ARG_VALUES && a0->n ? a0->values[0] : -1;
  int pl = PL_NONE;
  af_dtype dt = e->out.dtype;
  if (v >= 0 && r->mo.impl_of[v] >= 0) {
    const gen_impl *im = gen_model_impl(&r->mo, v);
    const gen_storage *sg = &r->mo.stor[im->storage];
    dt = im->m.dtype;
    if (sg->input >= 0 && r->p->inputs[sg->input].buffer) pl = PL_BUFFER;
    else if (sg->input >= 0) pl = im->depth > 0 ? PL_INPUT_VIEW : PL_INPUT;
    else pl = im->depth > 0 ? PL_INTER_VIEW : PL_INTER;
  }
  r->cov->tab[((size_t)ops_shape_family(st->op) * NPLACE + (size_t)pl) * NDTC + (size_t)dtype_class(dt)]++;
}

static void rp_stmt(replay_st *r, int s) {
  const ir_stmt *st0 = &r->p->stmts[s];
  const ops_entry *oe = ops_get(st0->op);
  if (oe->kind == OPS_CTRL) {
    rp_ctrl(r, st0);
    return;
  }
  ir_stmt rst;
  ir_stmt_resolve(st0, r->isint, r->zeros, &rst);
  const ir_stmt *st = &rst;
  if (ir_stmt_reads_int(st0, r->isloop)) rp_count(r, C_LOOP_INDEX);
  if (ir_stmt_reads_int(st0, r->issize)) rp_count(r, C_SIZE_USE);
  if (oe->kind == OPS_INT) rp_int(r, st);
  else if (oe->kind == OPS_LIST) rp_list(r, s, st);
  else {
    rp_rebind(r, st);
    rp_grow(r);
    rp_uses(r, st);
    ops_effect e;
    af_err err;
    if (ops_shape_infer(st, &r->mo.env, &e, &err)) {
      rp_count(r, C_REPLAY_FAILED);
      gen_model_apply_unknown(&r->mo, s);
    } else {
      if (r->cov) rp_cov_stmt(r, st, oe), rp_table(r, st, &e);
      if (st->op == OPS_reshape) rp_count(r, e.copied ? C_RESHAPE_COPY : C_RESHAPE_VIEW);
      if (st->op == OPS_flatten) rp_count(r, e.copied ? C_FLATTEN_COPY : e.alias == OPS_ALIAS_SAME ? C_FLATTEN_SAME : C_FLATTEN_VIEW);
      if (st->op == OPS_contiguous) rp_count(r, e.alias == OPS_ALIAS_SAME ? C_CONTIG_SAME : C_CONTIG_COPY);
      if (st->op == OPS_to && e.alias == OPS_ALIAS_SAME) rp_count(r, C_TO_SAME);
      if (st->op == OPS_getitem) rp_count(r, e.copied ? C_GETITEM_COPY : C_GETITEM_VIEW);
      if (ops_mutates(st->op)) rp_writes(r, st, oe);
      rp_apply(r, s, st, oe, &e);
    }
  }
  ir_stmt_clear(&rst);
}

/* One replay; counts into cov and calls ev(ctx, id) for every feature event (pair events and
 * counters). */
static void replay(const ir_program *p, gen_cov *cov, event_fn ev, void *ctx) {
  replay_st rs = {.p = p, .cov = cov, .ev = ev, .ctx = ctx}, *r = &rs;
  gen_model_init(&r->mo, p);
  r->meta_pending = af_xcalloc((size_t)p->nvalues + 1, sizeof(int));
  r->isint = ir_loop_vars(p);
  r->issize = af_xcalloc((size_t)p->nvalues + 1, 1), r->isloop = af_xcalloc((size_t)p->nvalues + 1, 1);
  for (int s = 0; s < p->nstmts; s++) {
    int o = p->stmts[s].out;
    if (o < 0) continue;
    if (ops_get(p->stmts[s].op)->kind == OPS_INT) r->issize[o] = 1;
    if (p->stmts[s].op == OPS_for) r->isloop[o] = 1;
  }
  r->zeros = af_xcalloc((size_t)p->nvalues + 1, sizeof(int64_t));
  r->opener = af_xcalloc((size_t)p->nstmts + 1, sizeof(int));
  r->born = af_xcalloc((size_t)p->nvalues + 1, sizeof(int));
  r->list_written = af_xcalloc(4096, 1);
  for (int i = 0; i < p->ninputs; i++) r->born[p->inputs[i].value] = 1;
  if (ir_nbuffers(p)) rp_count(r, C_MODULE);
  for (int i = 0; i < p->ninputs; i++)
    if (p->inputs[i].attr) {
      rp_count(r, C_ATTR_MODULE);
      break;
    }
  for (int s = 0; s < p->nstmts; s++) rp_stmt(r, s);
  free(r->isint);
  free(r->issize);
  free(r->isloop);
  free(r->zeros);
  free(r->opener);
  free(r->born);
  free(r->list_written);
  if (rp_hidden(r)) rp_count(r, C_HIDDEN_DEP);
  if (cov) {
    cov->programs++;
    cov->stmts += p->nstmts;
  }
  free(r->meta_pending);
  free(r->tainted);
  free(r->read_pending);
  free(r->copy_storage);
  gen_model_free(&r->mo);
}

void gen_cov_add(gen_cov *c, const ir_program *p) { replay(p, c, NULL, NULL); }

typedef struct {
  uint32_t *ids;
  int max, n;
} feat_ctx;

static void feat_ev(void *ctx, uint32_t id) {
  feat_ctx *f = ctx;
  for (int k = 0; k < f->n && k < f->max; k++)
    if (f->ids[k] == id) return;
  if (f->n < f->max) f->ids[f->n] = id;
  f->n++;
}

int gen_features(const ir_program *p, uint32_t *ids, int max) {
  feat_ctx f = {ids, max, 0};
  replay(p, NULL, feat_ev, &f);
  return f.n;
}

uint32_t gen_feature_space(void) { return NPAIR_IDS + C_COUNT; }

void gen_cov_report(const gen_cov *c, af_buf *b) {
  int nv = 0, nm = 0;
  for (int op = 0; op < OPS_COUNT; op++) {
    if (is_view_op(op) && ops_shape_can_sample(op)) nv++;
    if (ops_mutates(op) && ops_shape_can_sample(op)) nm++;
  }
  long allowed = 0, covered[2] = {0, 0}, covered_root[2][2] = {{0, 0}, {0, 0}};
  for (int v = 0; v < OPS_COUNT; v++)
    for (int m = 0; m < OPS_COUNT; m++) {
      if (!gen_cov_pair_allowed(v, m)) continue;
      allowed++;
      for (int d = 0; d < 2; d++) {
        if (gen_cov_pair_count(c, v, m, d, -1)) covered[d]++;
        for (int r = 0; r < 2; r++)
          if (gen_cov_pair_count(c, v, m, d, r)) covered_root[d][r]++;
      }
    }
  af_buf_printf(b, "pattern coverage over %ld programs (%ld statements):\n", c->programs, c->stmts);
  af_buf_printf(b, "  (view op x mutating op) pairs the op table allows: %d view ops x %d mutating ops = %ld\n", nv, nm, allowed);
  static const char *dn[2] = {"depth 1 ", "depth 2+"};
  for (int d = 0; d < 2; d++) {
    af_buf_printf(b, "  %s: %ld/%ld covered (%.1f%%); on views of inputs %ld, of intermediates %ld\n", dn[d], covered[d], allowed,
                  allowed ? 100.0 * (double)covered[d] / (double)allowed : 0.0, covered_root[d][0], covered_root[d][1]);
    int shown = 0;
    for (int v = 0; v < OPS_COUNT; v++)
      for (int m = 0; m < OPS_COUNT; m++)
        if (gen_cov_pair_allowed(v, m) && !gen_cov_pair_count(c, v, m, d, -1)) {
          if (shown < 40) af_buf_printf(b, "%s%s x %s", shown ? ", " : "    never: ", ops_get(v)->name, ops_get(m)->name);
          shown++;
        }
    if (shown > 40) af_buf_printf(b, ", ... (%d in all)", shown);
    if (shown) af_buf_puts(b, "\n");
  }
  af_buf_puts(b, "  writes per view op (depth 1 / depth 2+):\n   ");
  int col = 0;
  for (int v = 0; v < OPS_COUNT; v++) {
    if (!is_view_op(v) || !ops_shape_can_sample(v)) continue;
    long t[2] = {0, 0};
    for (int m = 0; m < OPS_COUNT; m++)
      for (int d = 0; d < 2; d++) t[d] += gen_cov_pair_count(c, v, m, d, -1);
    af_buf_printf(b, " %s %ld/%ld", ops_get(v)->name, t[0], t[1]);
    if (++col % 6 == 0) af_buf_puts(b, "\n   ");
  }
  af_buf_puts(b, "\n  writes per mutating op (depth 1 / depth 2+):\n   ");
  col = 0;
  for (int m = 0; m < OPS_COUNT; m++) {
    if (!ops_mutates(m) || !ops_shape_can_sample(m)) continue;
    long t[2] = {0, 0};
    for (int v = 0; v < OPS_COUNT; v++)
      for (int d = 0; d < 2; d++) t[d] += gen_cov_pair_count(c, v, m, d, -1);
    af_buf_printf(b, " %s %ld/%ld", ops_get(m)->name, t[0], t[1]);
    if (++col % 6 == 0) af_buf_puts(b, "\n   ");
  }
  af_buf_puts(b, "\n  setitem index kinds:");
  for (int k = 0; k < NIDX; k++) af_buf_printf(b, " %s %ld", ops_idx_kind_name(k), c->idx_set[k]);
  af_buf_puts(b, "\n  getitem index kinds:");
  for (int k = 0; k < NIDX; k++) af_buf_printf(b, " %s %ld", ops_idx_kind_name(k), c->idx_get[k]);
  af_buf_puts(b, "\n");
  for (int k = 0; k < C_COUNT; k++) af_buf_printf(b, "  %s: %ld\n", counter_names[k], c->c[k]);
  /* op families (ops_shape_family): statements per kind, and the table's ops never drawn */
  af_buf_puts(b, "  statements per op family (in-place / functional / out= / view), drawn ops of the family:\n");
  for (int f = 0; f < OPS_FAM_COUNT; f++) {
    long k[4] = {0, 0, 0, 0};
    int ops = 0, drawn = 0;
    for (int op = 0; op < OPS_COUNT; op++) {
      if (ops_shape_family(op) != f) continue;
      const ops_entry *e = ops_get(op);
      int kc = e->kind == OPS_INPLACE || e->kind == OPS_SETITEM || e->kind == OPS_FOREACH ? 0 : e->kind == OPS_FUNC ? 1 : e->kind == OPS_OUT ? 2 : 3;
      k[kc] += c->op_stmts[op];
      ops++;
      drawn += c->op_stmts[op] > 0;
    }
    af_buf_printf(b, "    %-11s %ld / %ld / %ld / %ld, %d of %d ops\n", ops_family_name(f), k[0], k[1], k[2], k[3], drawn, ops);
  }
  int shown = 0;
  for (int op = 0; op < OPS_COUNT; op++)
    if (!c->op_stmts[op]) af_buf_printf(b, "%s%s", shown++ ? ", " : "  ops never drawn: ", ops_get(op)->name);
  if (shown) af_buf_puts(b, "\n");
  af_buf_puts(b, "  data writes by target dtype:");
  for (int d = 0; d < AF_DTYPE_COUNT; d++) af_buf_printf(b, " %s %ld", af_dtype_name((af_dtype)d), c->target_dtype[d]);
  af_buf_printf(b, "\n  pointwise in-place writes with a tensor operand of another dtype (promoted, cast into the target): %ld\n",
                c->promoted);
}

void gen_cov_table(const gen_cov *c, int markdown, af_buf *b) {
  const char *sep = markdown ? " | " : "  ";
  af_buf_printf(b, "%s%s%s", markdown ? "| " : "", "family", sep);
  af_buf_printf(b, "where its first tensor argument lives");
  for (int d = 0; d < NDTC; d++) af_buf_printf(b, "%s%s", sep, dtc_names[d]);
  af_buf_printf(b, "%s\n", markdown ? " |" : "");
  if (markdown) {
    af_buf_printf(b, "| --- | ---");
    for (int d = 0; d < NDTC; d++) af_buf_printf(b, " | ---:");
    af_buf_printf(b, " |\n");
  }
  for (int f = 0; f < OPS_FAM_COUNT; f++) {
    if (f == OPS_FAM_CONTROL || f == OPS_FAM_LIST) continue; /* statements without a tensor op */
    for (int pl = 0; pl < NPLACE; pl++) {
      const long *row = &c->tab[((size_t)f * NPLACE + (size_t)pl) * NDTC];
      if (pl == PL_NONE && f != OPS_FAM_CREATION) continue; /* only the factories have no tensor argument */
      if (pl != PL_NONE && f == OPS_FAM_CREATION) continue;
      af_buf_printf(b, "%s%s%s%s", markdown ? "| " : "", ops_family_name(f), sep, place_names[pl]);
      for (int d = 0; d < NDTC; d++) af_buf_printf(b, "%s%ld", sep, row[d]);
      af_buf_printf(b, "%s\n", markdown ? " |" : "");
    }
  }
}
