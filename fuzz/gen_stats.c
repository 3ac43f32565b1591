/* gen_stats.c - running statistics (issue 29): batch_norm or instance_norm in training mode added to
 * a finished program, its running mean and variance module buffers as a model's BatchNorm keeps
 * them. See gen_stats.h.
 *
 * The pass runs on a finished program (gen.c), from a stream of its own, as gen_sizes.c does: a
 * program it leaves alone stays byte for byte what it was, so the default policy draws these ops
 * without moving any other program (at an op weight in the main draw, every functional draw after
 * the first shifts). The op's sampler (harness/ops/rules_norm.c) fills the arguments; this file
 * answers its operand requests with new inputs (the statistics: module buffers, or views of one). */
#include "gen_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "gen_model.h"
#include "gen_rng.h"

static int64_t pick(uint64_t *s, int64_t lo, int64_t hi) { return lo + (int64_t)(gen_rng_next(s) % (uint64_t)(hi - lo + 1)); }

#define ST_MAX_NEW 8 /* values the pass adds: weight, bias, two statistics, their buffers */

typedef struct st_cand {
  int pos, x; /* x read right before statement pos */
  int rank;
  int64_t shape[AF_MAX_RANK];
  af_dtype dtype;
} st_cand;

typedef struct st_ctx {
  ir_program *b; /* the copy being built: new inputs and view values are added to it */
  uint64_t rng;
  const double *decide;
  int buffers;   /* the statistics are module buffers (else plain inputs) */
  int select, slice; /* the policy draws these views: a statistic may be one of a larger buffer */
  int nx, nv;    /* name counters */
  int nnew, newv[ST_MAX_NEW];
  ops_meta newm[ST_MAX_NEW];
  /* view statements made for the statistics, inserted right before the call */
  int npre, pre_op[2], pre_out[2], pre_nargs[2];
  ir_arg pre_args[2][5];
  int last_row_buf, last_row_k; /* the previous statistic was row k of this [2, C] buffer (-1) */
  /* candidates */
  const char *top;
  st_cand *c;
  int nc, cap;
} st_ctx;

static int64_t cb_range(void *ctx, int64_t lo, int64_t hi) { return pick(&((st_ctx *)ctx)->rng, lo, hi); }
static int cb_decide(void *ctx, int point) {
  st_ctx *c = ctx;
  return gen_rng_unit(&c->rng) < c->decide[point];
}
static int cb_index_kind(void *ctx) { return (int)pick(&((st_ctx *)ctx)->rng, 0, OPS_IDX_KIND_COUNT - 1); }
static const ops_meta *cb_meta(void *ctx, int v) {
  st_ctx *c = ctx;
  for (int k = 0; k < c->nnew; k++)
    if (c->newv[k] == v) return &c->newm[k];
  return NULL;
}

static void note_new(st_ctx *c, int v, af_dtype dt, int rank, const int64_t *shape) {
  if (c->nnew >= ST_MAX_NEW) return;
  c->newv[c->nnew] = v;
  ops_meta_init(&c->newm[c->nnew++], dt, rank, shape);
}

static int new_input(st_ctx *c, int rank, const int64_t *shape, af_dtype dt, int buffer) {
  char name[32];
  int v = -1;
  while (v < 0 && c->nx < 10000) {
    snprintf(name, sizeof name, "x%d", c->nx++);
    if (ir_find_value(c->b, name) < 0) v = ir_add_input(c->b, name, rank, shape, dt);
  }
  if (v >= 0) c->b->inputs[c->b->ninputs - 1].buffer = buffer;
  return v;
}

/* view = op(base, ints...) of a new buffer, appended to the statements made before the call */
static int new_view(st_ctx *c, int op, int base, int nints, const int64_t *ints, af_dtype dt, int64_t len) {
  if (c->npre >= 2) return -1;
  char name[32];
  int v = -1;
  while (v < 0 && c->nv < 10000) {
    snprintf(name, sizeof name, "v%d", c->nv++);
    if (ir_find_value(c->b, name) < 0) v = ir_add_value(c->b, name);
  }
  if (v < 0) return -1;
  int k = c->npre++;
  c->pre_op[k] = op, c->pre_out[k] = v, c->pre_nargs[k] = nints + 1;
  c->pre_args[k][0] = (ir_arg){.kind = IR_ARG_VALUE, .value = base};
  for (int j = 0; j < nints; j++) c->pre_args[k][j + 1] = (ir_arg){.kind = IR_ARG_INT, .i = ints[j], .value = -1};
  note_new(c, v, dt, 1, &len);
  return v;
}

/* The sampler's operand requests: a running statistic (r->state) as a new module buffer, the row of
 * a new [2, C] buffer (the second statistic the other row where the sampler asks for one memory) or
 * every other element of a new [2C] buffer; anything else (weight, bias) a new plain input. */
static int cb_tensor(void *ctx, const ops_req *r) {
  st_ctx *c = ctx;
  if (r->kind != OPS_REQ_SHAPE || r->rank != 1 || c->nnew + 2 > ST_MAX_NEW) return -1;
  int64_t n = r->shape[0];
  if (!r->state || !c->buffers) {
    int v = new_input(c, 1, r->shape, r->dtype, r->state && c->buffers);
    if (v >= 0) note_new(c, v, r->dtype, 1, r->shape);
    return v;
  }
  if (r->near1 > 0 && c->last_row_buf >= 0) { /* the other row of the previous statistic's buffer */
    int64_t a[2] = {0, 1 - c->last_row_k};
    return new_view(c, OPS_select, c->last_row_buf, 2, a, r->dtype, n);
  }
  double u = gen_rng_unit(&c->rng);
  if (u < 0.5 || (u < 0.75 && !c->select) || (u >= 0.75 && !c->slice)) {
    int v = new_input(c, 1, r->shape, r->dtype, 1);
    if (v >= 0) note_new(c, v, r->dtype, 1, r->shape);
    return v;
  }
  if (u < 0.75) {
    int64_t big[2] = {2, n}, k = pick(&c->rng, 0, 1), a[2] = {0, k};
    int buf = new_input(c, 2, big, r->dtype, 1);
    if (buf < 0) return -1;
    c->last_row_buf = buf, c->last_row_k = (int)k;
    return new_view(c, OPS_select, buf, 2, a, r->dtype, n);
  }
  int64_t flat = 2 * n, k = pick(&c->rng, 0, 1), a[4] = {0, k, flat, 2};
  int buf = new_input(c, 1, &flat, r->dtype, 1);
  return buf < 0 ? -1 : new_view(c, OPS_slice, buf, 4, a, r->dtype, n);
}

/* a float tensor of rank >= 2 that eager has at this point: a candidate x */
static void offer(st_ctx *c, int pos, int x, const af_tensor *t) {
  if (!t || x < 0) return;
  int rank = at_tensor_rank(t), dt = at_tensor_dtype(t);
  if (rank < 2 || rank > AF_MAX_RANK || dt < 0 || dt >= AF_DTYPE_COUNT || !af_dtype_is_float((af_dtype)dt)) return;
  if (c->nc == c->cap) c->c = af_xrealloc(c->c, sizeof(st_cand) * (size_t)(c->cap = c->cap * 2 + 8));
  st_cand *k = &c->c[c->nc++];
  k->pos = pos, k->x = x, k->rank = rank, k->dtype = (af_dtype)dt;
  at_tensor_shape(t, k->shape);
}

/* after top-level statement s ran: the value it made or wrote, read before statement s + 1 */
static int st_hook(void *ctx, int s, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  st_ctx *c = ctx;
  (void)err;
  if (!c->top[s]) return 0;
  int v = st->out >= 0 ? st->out : ops_mutates(st->op) && st->nargs && st->args[0].kind == IR_ARG_VALUE ? st->args[0].value : -1;
  if (v >= 0) offer(c, s + 1, v, values[v]);
  return 0;
}

static int eager_ok(const ir_program *q) {
  af_err err;
  result r;
  result_init(&r);
  int ok = !eager_run(q, &r, &err) && r.status == RESULT_OK;
  result_clear(&r);
  return ok;
}

ir_program *gen_running_stats(const ir_program *p, uint64_t seed, const gen_policy *pol) {
  uint64_t rng = seed;
  if (pol->p_running_stats <= 0 || gen_rng_unit(&rng) >= pol->p_running_stats) return NULL; /* most programs: no dry run at all */
  int op = gen_rng_unit(&rng) < 2.0 / 3 ? OPS_batch_norm : OPS_instance_norm;
  st_ctx c = {.rng = rng, .decide = pol->decide, .last_row_buf = -1};
  c.select = pol->op_weight[OPS_select] > 0, c.slice = pol->op_weight[OPS_slice] > 0;
  c.buffers = gen_rng_unit(&c.rng) < 0.75;
  /* top-level statements (no block open): where the call may go */
  char *top = af_xcalloc((size_t)p->nstmts + 1, 1);
  for (int s = 0, depth = 0; s < p->nstmts; s++) {
    int o = p->stmts[s].op;
    if (o == OPS_end && depth > 0) depth--;
    top[s] = depth == 0 && !ir_block_opener(o) && o != OPS_end && o != OPS_else;
    if (ir_block_opener(o)) depth++;
  }
  c.top = top;
  af_tensor **in = NULL;
  af_err err;
  result r;
  result_init(&r);
  if (!inputs_new(p, &in, &err)) {
    for (int i = 0; i < p->ninputs; i++) offer(&c, 0, p->inputs[i].value, in[i]);
    eager_run_traced(p, in, st_hook, &c, &r, &err);
  }
  int ran = in && r.status == RESULT_OK;
  if (in) inputs_free(ir_ntensors(p), in);
  result_clear(&r);
  free(top);
  ir_program *q = NULL;
  c.b = ran ? ir_program_clone(p) : NULL;
  ir_arg args[OPS_MAX_ARGS];
  int n = -1, pos = p->nstmts, x = -1;
  /* an existing value nine times in ten where one fits the sampler (a few tries), else a new input */
  for (int tries = 0; c.b && c.nc && tries < 4 && n < 0 && gen_rng_unit(&c.rng) < 0.9; tries++) {
    const st_cand *k = &c.c[pick(&c.rng, 0, c.nc - 1)];
    ops_meta m;
    ops_meta_init(&m, k->dtype, k->rank, k->shape);
    ops_chooser ch = {.ctx = &c, .range = cb_range, .decide = cb_decide, .index_kind = cb_index_kind,
                      .tensor = cb_tensor, .meta = cb_meta, .max_numel = 256, .max_rank = AF_MAX_RANK};
    n = ops_shape_sample(op, k->x, &m, ir_numel(k->rank, k->shape), &ch, args);
    if (n < 0) {
      for (int a = 0; a < ops_get(op)->nargs; a++) ir_arg_free(&args[a]);
      /* operands it asked for stay unused inputs: start again from p */
      ir_program_free(c.b);
      c.b = ir_program_clone(p);
      c.nnew = c.npre = 0, c.last_row_buf = -1;
    } else {
      pos = k->pos, x = k->x;
    }
  }
  if (c.b && n < 0) { /* a new float64 input [N, C, L...] with more than one value per channel */
    int rank = 2 + (op == OPS_instance_norm) + (int)pick(&c.rng, 0, 1);
    int64_t shape[AF_MAX_RANK];
    for (int d = 0; d < rank; d++) shape[d] = pick(&c.rng, d == 1 ? 1 : 2, 3);
    x = new_input(&c, rank, shape, AF_FLOAT64, 0);
    ops_meta m;
    ops_meta_init(&m, AF_FLOAT64, rank, shape);
    ops_chooser ch = {.ctx = &c, .range = cb_range, .decide = cb_decide, .index_kind = cb_index_kind,
                      .tensor = cb_tensor, .meta = cb_meta, .max_numel = 256, .max_rank = AF_MAX_RANK};
    n = x >= 0 ? ops_shape_sample(op, x, &m, ir_numel(rank, shape), &ch, args) : -1;
    if (n < 0)
      for (int a = 0; a < ops_get(op)->nargs; a++) ir_arg_free(&args[a]);
    pos = p->nstmts;
  }
  /* a call whose statistics are None writes nothing: not what this pass is for */
  if (c.b && n >= 0 && args[3].kind == IR_ARG_VALUE && args[4].kind == IR_ARG_VALUE) {
    ir_program *b = c.b;
    char name[32];
    int out = -1;
    while (out < 0 && c.nv < 10000) {
      snprintf(name, sizeof name, "v%d", c.nv++);
      if (ir_find_value(b, name) < 0) out = ir_add_value(b, name);
    }
    /* the statements again, the views and the call before statement pos */
    int ns = b->nstmts;
    ir_stmt *old = b->stmts;
    b->stmts = NULL, b->nstmts = 0, b->cap_stmts = 0;
    for (int s = 0; s <= ns; s++) {
      if (s == pos) {
        for (int k = 0; k < c.npre; k++) ir_add_stmt(b, c.pre_op[k], c.pre_out[k], c.pre_nargs[k], c.pre_args[k]);
        ir_add_stmt(b, op, out, n, args);
      }
      if (s < ns) {
        ir_add_stmt(b, old[s].op, old[s].out, old[s].nargs, old[s].args);
        ir_stmt_clear(&old[s]);
      }
    }
    free(old);
    if (!b->loss && gen_rng_unit(&c.rng) < 0.5) { /* the result an output one time in two */
      b->outputs = af_xrealloc(b->outputs, sizeof(int) * (size_t)(b->noutputs + 1));
      b->outputs[b->noutputs++] = out;
    }
    /* inputs first again (the new ones were added after the values) */
    q = ir_subset(b, NULL, NULL, NULL);
    af_err verr;
    if (out < 0 || x < 0 || q->nstmts != b->nstmts || q->noutputs != b->noutputs || ir_validate(q, &verr) ||
        gen_model_refusals(q, -1, NULL) > gen_model_refusals(p, -1, NULL) || !eager_ok(q)) {
      ir_program_free(q);
      q = NULL;
    }
  }
  if (n >= 0)
    for (int a = 0; a < ops_get(op)->nargs; a++) ir_arg_free(&args[a]);
  if (c.b) ir_program_free(c.b);
  free(c.c);
  return q;
}
