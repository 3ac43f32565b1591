/* gen_sizes.c - sizes as values (issue 15): int literals of a generated program replaced by
 * x.size(d), x.shape[d], x.size()[d], a name of `a, b = x.size()`, x.numel() or x.dim() of an input that gives exactly that value where the
 * statement runs. See gen_sizes.h.
 *
 * The pass runs on a finished program (gen.c), from a stream of its own, so with the policy's
 * p_size_value at 0 every program stays byte for byte what it was. The shapes come from a dry run
 * in eager (a hook after each statement keeps every input name's current shape), so shape-changing
 * in-place ops, rebinds and data-dependent shapes are eager's own; the result is run in eager
 * again before it replaces the program. */
#include "gen_sizes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "gen_rng.h"


#define GEN_SIZES_EACH 0.5 /* in a program the pass runs on: each literal a size gives, replaced */

/* where the literal sits */
enum { SZ_ARG, SZ_LIST_ELEM, SZ_INDEX_INT, SZ_SLICE_START, SZ_SLICE_STOP, SZ_TRIPS };

typedef struct sz_pick {
  int stmt, arg, elem, where;
  int op, input;  /* the int op (size, shape, numel, dim) and the input it reads */
  int64_t dim;    /* size/shape: the dim */
  int unpack;     /* size_unpack: the input's rank (one name per dim, the dim's one used) */
} sz_pick;

typedef struct sz_ctx {
  const ir_program *p;
  char *inloop;    /* per statement: inside a for body */
  int done;        /* statements up to here were looked at */
  int *rank;       /* per input: rank now (-1: unknown) */
  int64_t *shape;  /* per input: AF_MAX_RANK entries */
  sz_pick *picks;
  int npicks, cap;
  uint64_t rng;
  double pe;
  int ops[6]; /* size, shape, numel, dim, size_get, size_unpack; -1 when the table lacks one */
} sz_ctx;

/* Picks a source for literal lit from the inputs' current shapes, or returns 0. */
static int source(sz_ctx *c, int64_t lit, sz_pick *k) {
  if (lit < 0) return 0;
  int n = 0;
  for (int i = 0; i < c->p->ninputs; i++) { /* count the matches, then take the chosen one */
    if (c->rank[i] < 0) continue;
    for (int d = 0; d < c->rank[i]; d++) n += c->shape[i * AF_MAX_RANK + d] == lit;
    n += ir_numel(c->rank[i], &c->shape[i * AF_MAX_RANK]) == lit;
    n += c->rank[i] == lit;
  }
  if (!n) return 0;
  int at = (int)(gen_rng_next(&c->rng) % (uint64_t)n);
  for (int i = 0; i < c->p->ninputs; i++) {
    if (c->rank[i] < 0) continue;
    for (int d = 0; d < c->rank[i]; d++)
      if (c->shape[i * AF_MAX_RANK + d] == lit && at-- == 0) {
        /* x.size(d), x.shape[d], x.size()[d] or `a, b = x.size()` (rank >= 2), counting the dim
           from the end now and then (not in an unpacking, whose names are in dim order) */
        int how = (int)(gen_rng_next(&c->rng) % 3);
        k->op = c->ops[how == 2 ? 4 : how];
        k->dim = gen_rng_next(&c->rng) % 4 == 0 ? d - c->rank[i] : d;
        if (how == 2 && c->rank[i] >= 2 && c->ops[5] >= 0 && gen_rng_next(&c->rng) % 2 == 0)
          k->op = c->ops[5], k->dim = d, k->unpack = c->rank[i];
        k->input = i;
        return k->op >= 0;
      }
    if (ir_numel(c->rank[i], &c->shape[i * AF_MAX_RANK]) == lit && at-- == 0) {
      k->op = c->ops[2], k->input = i;
      return k->op >= 0;
    }
    if (c->rank[i] == lit && at-- == 0) {
      k->op = c->ops[3], k->input = i;
      return k->op >= 0;
    }
  }
  return 0;
}

static void offer(sz_ctx *c, int stmt, int arg, int elem, int where, int64_t lit) {
  if (gen_rng_unit(&c->rng) >= c->pe) return;
  sz_pick k = {.stmt = stmt, .arg = arg, .elem = elem, .where = where};
  if (!source(c, lit, &k)) return;
  if (c->npicks == c->cap) c->picks = af_xrealloc(c->picks, sizeof(sz_pick) * (size_t)(c->cap = c->cap * 2 + 8));
  c->picks[c->npicks++] = k;
}

/* Whether argument a of op e is spelled as a count of ":, " ($:N): a literal only. */
static int counted(const ops_entry *e, int a) {
  for (const char *s = e->spelling; (s = strstr(s, "$:")) != NULL; s += 2)
    if (s[2] - '0' == a) return 1;
  return 0;
}

/* The literals of statement s that a size could give, with the shapes before s. */
static void look_at(sz_ctx *c, int s) {
  const ir_stmt *st = &c->p->stmts[s];
  const ops_entry *e = ops_get(st->op);
  if (c->inloop[s]) return;
  if (st->op == OPS_for) {
    if (st->args[0].kind == IR_ARG_INT) offer(c, s, 0, 0, SZ_TRIPS, st->args[0].i);
    return;
  }
  if (e->kind == OPS_CTRL || e->kind == OPS_LIST || e->kind == OPS_INT) return;
  for (int a = 0; a < st->nargs; a++) {
    const ir_arg *x = &st->args[a];
    char code = e->argk[a][0];
    if (code == 'i' && x->kind == IR_ARG_INT && !counted(e, a)) offer(c, s, a, 0, SZ_ARG, x->i);
    if (code == 'I' && x->kind == IR_ARG_INTS)
      for (int k = 0; k < x->n; k++)
        if (!x->values || x->values[k] < 0) offer(c, s, a, k, SZ_LIST_ELEM, x->ints[k]);
    if (code == 'X' && x->kind == IR_ARG_INDEX)
      for (int k = 0; k < x->n; k++) {
        const ir_index *ix = &x->index[k];
        if (ix->kind == IR_IDX_INT) offer(c, s, a, k, SZ_INDEX_INT, ix->i);
        if (ix->kind == IR_IDX_SLICE && ix->has_start && !ix->start_var) offer(c, s, a, k, SZ_SLICE_START, ix->start);
        if (ix->kind == IR_IDX_SLICE && ix->has_stop && !ix->stop_var) offer(c, s, a, k, SZ_SLICE_STOP, ix->stop);
      }
  }
}

static void snapshot(sz_ctx *c, af_tensor *const *values) {
  for (int i = 0; i < c->p->ninputs; i++) {
    c->rank[i] = -1;
    if (!values[i] || at_tensor_rank(values[i]) > AF_MAX_RANK) continue;
    c->rank[i] = at_tensor_rank(values[i]);
    at_tensor_shape(values[i], &c->shape[i * AF_MAX_RANK]);
  }
}

/* After statement s ran: look at it (and at the for loops opened since the last statement that
 * ran) with the shapes from before it, then keep the shapes after it. */
static int sz_hook(void *ctx, int s, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  sz_ctx *c = ctx;
  (void)st, (void)err;
  if (s > c->done) {
    for (int k = c->done + 1; k < s; k++)
      if (c->p->stmts[k].op == OPS_for) look_at(c, k);
    look_at(c, s);
    c->done = s;
  }
  snapshot(c, values);
  return 0;
}

/* The names of the new int values: n0, n1, ... not in use. */
static int new_int_name(ir_program *q, int *counter) {
  char name[32];
  for (;;) {
    snprintf(name, sizeof name, "n%d", (*counter)++);
    if (ir_find_value(q, name) < 0) return ir_add_value(q, name);
  }
}

static void apply(ir_arg *args, const sz_pick *k, int v) {
  ir_arg *x = &args[k->arg];
  switch (k->where) {
    case SZ_ARG:
    case SZ_TRIPS: *x = (ir_arg){.kind = IR_ARG_VALUE, .value = v}; break;
    case SZ_LIST_ELEM:
      if (!x->values) {
        x->values = af_xcalloc((size_t)x->n, sizeof(int));
        for (int j = 0; j < x->n; j++) x->values[j] = -1;
      }
      x->values[k->elem] = v;
      break;
    case SZ_INDEX_INT: x->index[k->elem] = (ir_index){.kind = IR_IDX_TENSOR, .value = v}; break;
    case SZ_SLICE_START: x->index[k->elem].start_var = v + 1; break;
    case SZ_SLICE_STOP: x->index[k->elem].stop_var = v + 1; break;
  }
}

/* p with the picks applied: each pick's int op statement right before its statement. */
static ir_program *rebuild(const ir_program *p, const sz_pick *picks, int npicks) {
  ir_program *q = ir_program_clone(p);
  for (int s = 0; s < q->nstmts; s++) ir_stmt_clear(&q->stmts[s]);
  q->nstmts = 0;
  int counter = 0, k = 0;
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *st = &p->stmts[s];
    ir_arg args[OPS_MAX_ARGS];
    for (int a = 0; a < st->nargs; a++) ir_arg_copy(&args[a], &st->args[a]);
    for (; k < npicks && picks[k].stmt == s; k++) {
      const sz_pick *pk = &picks[k];
      int v = -1;
      for (int m = 0; m < (pk->unpack ? pk->unpack : 1); m++) { /* an unpacking: one statement per name */
        int u = new_int_name(q, &counter);
        ir_arg ia[3] = {{.kind = IR_ARG_VALUE, .value = pk->input},
                        {.kind = IR_ARG_INT, .i = pk->unpack ? m : pk->dim, .value = -1},
                        {.kind = IR_ARG_INT, .i = pk->unpack, .value = -1}};
        ir_add_stmt(q, pk->op, u, ops_get(pk->op)->nargs, ia);
        if (!pk->unpack || m == pk->dim) v = u;
      }
      ir_arg old = args[pk->arg];
      apply(args, pk, v);
      if (pk->where == SZ_ARG || pk->where == SZ_TRIPS) ir_arg_free(&old);
    }
    ir_add_stmt(q, st->op, st->out, st->nargs, args);
    for (int a = 0; a < st->nargs; a++) ir_arg_free(&args[a]);
  }
  return q;
}

ir_program *gen_sizes(const ir_program *p, uint64_t seed, double p_share) {
  static int ops[6] = {-2};
  if (ops[0] == -2) {
    ops[0] = ops_find("size"), ops[1] = ops_find("shape"), ops[2] = ops_find("numel"), ops[3] = ops_find("dim");
    ops[4] = ops_find("size_get"), ops[5] = ops_find("size_unpack");
    if (ops[1] < 0) ops[1] = ops[0];
    if (ops[4] < 0) ops[4] = ops[0];
  }
  uint64_t rng = seed;
  if (p_share <= 0 || ops[0] < 0 || gen_rng_unit(&rng) >= p_share) return NULL; /* most programs: no dry run at all */
  sz_ctx c = {.p = p, .done = -1, .rng = rng, .pe = GEN_SIZES_EACH};
  memcpy(c.ops, ops, sizeof ops);
  c.inloop = af_xcalloc((size_t)p->nstmts + 1, 1);
  c.rank = af_xcalloc((size_t)p->ninputs + 1, sizeof(int));
  c.shape = af_xcalloc((size_t)(p->ninputs + 1) * AF_MAX_RANK, sizeof(int64_t));
  for (int s = 0, loops = 0, depth = 0, *stack = af_xcalloc((size_t)p->nstmts + 1, sizeof(int)); s <= p->nstmts; s++) {
    if (s == p->nstmts) {
      free(stack);
      break;
    }
    int op = p->stmts[s].op;
    if (op == OPS_end && depth > 0) loops -= stack[--depth];
    c.inloop[s] = loops > 0 && op != OPS_end;
    if (op == OPS_if || op == OPS_for) stack[depth++] = op == OPS_for, loops += op == OPS_for;
  }
  for (int i = 0; i < p->ninputs; i++) { /* the shapes before the first statement */
    c.rank[i] = p->inputs[i].rank;
    memcpy(&c.shape[i * AF_MAX_RANK], p->inputs[i].shape, sizeof(int64_t) * (size_t)p->inputs[i].rank);
  }
  ir_program *q = NULL;
  af_tensor **in = NULL;
  af_err err;
  result r;
  result_init(&r);
  if (inputs_new(p, &in, &err) == 0 && eager_run_traced(p, in, sz_hook, &c, &r, &err) == 0 && r.status == RESULT_OK) {
    for (int k = c.done + 1; k < p->nstmts; k++) /* loops after the last statement that ran */
      if (p->stmts[k].op == OPS_for) look_at(&c, k);
    if (c.npicks) q = rebuild(p, c.picks, c.npicks);
  }
  if (in) inputs_free(ir_ntensors(p), in);
  result_clear(&r);
  if (q) { /* the same computation by construction (each int value is the literal it replaces,
              read where the literal was); the structure is checked, eager need not run again */
    af_err verr;
    if (ir_validate(q, &verr)) {
      ir_program_free(q);
      q = NULL;
    }
  }
  free(c.inloop);
  free(c.rank);
  free(c.shape);
  free(c.picks);
  return q;
}
