/* reduce.c - see reduce.h. Each pass is small and independent: it proposes candidates, keeps the
 * first interesting one and says whether it changed the program. The driver runs the passes in
 * priority order and starts over from the first after any change, until a full round changes
 * nothing or the test budget is spent. */
#include "reduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../harness/ops.h"

typedef struct rstate {
  ir_program *cur;
  reduce_pred pred;
  void *ctx;
  int tests, max_tests;
} rstate;

/* Tries cand (takes ownership): keeps it when interesting. Returns 1 when kept. */
static int try_cand(rstate *r, ir_program *cand) {
  af_err err;
  if (r->tests >= r->max_tests || ir_validate(cand, &err) != 0) {
    ir_program_free(cand);
    return 0;
  }
  r->tests++;
  if (r->pred(cand, r->ctx)) {
    ir_program_free(r->cur);
    r->cur = cand;
    return 1;
  }
  ir_program_free(cand);
  return 0;
}

/* ---- passes ---- */

static int pass_drop_outputs(rstate *r) {
  for (int o = 0; o < r->cur->noutputs && r->cur->noutputs > 1; o++) {
    char *keep = af_xcalloc((size_t)r->cur->noutputs, 1);
    memset(keep, 1, (size_t)r->cur->noutputs);
    keep[o] = 0;
    ir_program *c = ir_subset(r->cur, NULL, keep, NULL);
    free(keep);
    if (try_cand(r, c)) return 1;
  }
  return 0;
}

/* ddmin over statements: remove chunks (and their dependents), halving the chunk size. */
static int pass_ddmin(rstate *r) {
  int changed = 0;
  int n = r->cur->nstmts;
  for (int chunk = n / 2; chunk >= 1 && r->tests < r->max_tests; chunk /= 2) {
    for (int start = 0; start < r->cur->nstmts;) {
      int m = r->cur->nstmts;
      char *keep = af_xcalloc((size_t)m + 1, 1);
      memset(keep, 1, (size_t)m);
      for (int s = start; s < start + chunk && s < m; s++) keep[s] = 0;
      ir_program *c = ir_subset(r->cur, keep, NULL, NULL);
      free(keep);
      if (c->nstmts >= m) {
        ir_program_free(c);
        start += chunk;
      } else if (try_cand(r, c)) {
        changed = 1; /* same start: the next chunk slid into place */
      } else {
        start += chunk;
      }
    }
  }
  return changed;
}

/* The value a view statement was made from, or -1. */
static int view_base(const ir_program *p, int v) {
  for (int s = 0; s < p->nstmts; s++)
    if (p->stmts[s].out == v) {
      ops_kind k = ops_get(p->stmts[s].op)->kind;
      if ((k == OPS_VIEW || k == OPS_GETITEM || (k == OPS_INPLACE)) && p->stmts[s].args[0].kind == IR_ARG_VALUE)
        return p->stmts[s].args[0].value;
      return -1;
    }
  return -1;
}

static int pass_use_base(rstate *r) {
  for (int s = 0; s < r->cur->nstmts; s++)
    for (int a = 0; a < r->cur->stmts[s].nargs; a++) {
      const ir_arg *arg = &r->cur->stmts[s].args[a];
      if (arg->kind != IR_ARG_VALUE) continue;
      int b = view_base(r->cur, arg->value);
      if (b < 0) continue;
      ir_program *c = ir_program_clone(r->cur);
      c->stmts[s].args[a].value = b;
      if (try_cand(r, c)) return 1;
    }
  for (int o = 0; o < r->cur->noutputs; o++) {
    int b = view_base(r->cur, r->cur->outputs[o]);
    if (b < 0) continue;
    ir_program *c = ir_program_clone(r->cur);
    c->outputs[o] = b;
    if (try_cand(r, c)) return 1;
  }
  return 0;
}

static int pass_drop_statement(rstate *r) {
  for (int s = r->cur->nstmts - 1; s >= 0; s--) {
    char *keep = af_xcalloc((size_t)r->cur->nstmts, 1);
    memset(keep, 1, (size_t)r->cur->nstmts);
    keep[s] = 0;
    ir_program *c = ir_subset(r->cur, keep, NULL, NULL);
    free(keep);
    if (try_cand(r, c)) return 1;
  }
  return 0;
}

static int pass_shrink_shapes(rstate *r) {
  for (int i = 0; i < r->cur->ninputs; i++)
    for (int d = 0; d < r->cur->inputs[i].rank; d++) {
      int64_t n = r->cur->inputs[i].shape[d];
      int64_t tries[3] = {1, n / 2, n - 1};
      for (int t = 0; t < 3; t++) {
        if (tries[t] < 1 || tries[t] >= n || (t > 0 && tries[t] == tries[t - 1])) continue;
        ir_program *c = ir_program_clone(r->cur);
        c->inputs[i].shape[d] = tries[t];
        if (try_cand(r, c)) return 1;
      }
    }
  return 0;
}

static int pass_simplify_literals(rstate *r) {
  for (int s = 0; s < r->cur->nstmts; s++)
    for (int a = 0; a < r->cur->stmts[s].nargs; a++) {
      const ir_arg *arg = &r->cur->stmts[s].args[a];
      if (arg->kind == IR_ARG_INT && arg->i != 0 && arg->i != 1) {
        int64_t cands[2] = {arg->i > 0 ? 1 : 0, arg->i > 0 ? arg->i - 1 : arg->i + 1};
        for (int t = 0; t < 2; t++) {
          ir_program *c = ir_program_clone(r->cur);
          c->stmts[s].args[a].i = cands[t];
          if (try_cand(r, c)) return 1;
        }
      } else if (arg->kind == IR_ARG_FLOAT && arg->f != floor(arg->f)) {
        ir_program *c = ir_program_clone(r->cur);
        c->stmts[s].args[a].f = floor(arg->f);
        if (try_cand(r, c)) return 1;
      }
    }
  return 0;
}

static int pass_drop_inputs(rstate *r) {
  for (int i = r->cur->ninputs - 1; i >= 0; i--) {
    char *keep = af_xcalloc((size_t)r->cur->ninputs, 1);
    memset(keep, 1, (size_t)r->cur->ninputs);
    keep[i] = 0;
    ir_program *c = ir_subset(r->cur, NULL, NULL, keep);
    free(keep);
    if (try_cand(r, c)) return 1;
  }
  return 0;
}

/* Canonical names: inputs x, y, z, w, x4...; other values v0, v1, ... in order of definition. */
static int pass_rename(rstate *r) {
  static const char *in_names[] = {"x", "y", "z", "w"};
  ir_program *c = ir_program_clone(r->cur);
  int changed = 0, next = 0;
  char name[32];
  for (int v = 0; v < c->nvalues; v++) {
    if (v < c->ninputs) {
      if (v < 4) snprintf(name, sizeof name, "%s", in_names[v]);
      else snprintf(name, sizeof name, "x%d", v);
    } else {
      snprintf(name, sizeof name, "v%d", next++);
    }
    if (strcmp(c->names[v], name) != 0) changed = 1;
    free(c->names[v]);
    c->names[v] = af_xstrdup(name);
  }
  if (!changed) {
    ir_program_free(c);
    return 0;
  }
  return try_cand(r, c);
}

/* p with the block opened at statement s replaced by one of its bodies (which: 0 the then body or
 * a loop's body run once with the loop variable 0, 1 the else body). new, free with
 * ir_program_free. */
static ir_program *unwrap(const ir_program *p, int s, int which) {
  int end = ir_block_end(p, s), el = p->stmts[s].op == OPS_if ? ir_block_else(p, s) : -1;
  char *isint = ir_loop_vars(p);
  int64_t *zeros = af_xcalloc((size_t)p->nvalues + 1, sizeof(int64_t));
  ir_program *c = ir_program_clone(p);
  for (int k = 0; k < c->nstmts; k++) ir_stmt_clear(&c->stmts[k]);
  c->nstmts = 0;
  for (int k = 0; k < p->nstmts; k++) {
    int in_block = k >= s && k <= end;
    if (in_block && (k == s || k == end || k == el)) continue;
    if (in_block && el >= 0 && (which == 0 ? k > el : k < el)) continue;
    ir_stmt st;
    ir_stmt_resolve(&p->stmts[k], isint, zeros, &st); /* the loop variable reads 0 (only this loop's is gone) */
    if (!(in_block && p->stmts[s].op == OPS_for)) {
      ir_stmt_clear(&st);
      st = p->stmts[k];
    }
    ir_add_stmt(c, st.op, st.out, st.nargs, st.args);
    if (st.args != p->stmts[k].args) ir_stmt_clear(&st);
  }
  free(isint);
  free(zeros);
  return c;
}

/* Replaces a block by one of its bodies: a finding inside an if rarely needs the if. */
static int pass_unwrap_block(rstate *r) {
  for (int s = 0; s < r->cur->nstmts; s++) {
    int op = r->cur->stmts[s].op;
    if (op != OPS_if && op != OPS_for) continue;
    for (int which = 0; which < (op == OPS_if && ir_block_else(r->cur, s) >= 0 ? 2 : 1); which++)
      if (try_cand(r, unwrap(r->cur, s, which))) return 1;
  }
  return 0;
}

static const struct {
  const char *name;
  int (*run)(rstate *r);
} passes[] = {
    {"drop-outputs", pass_drop_outputs},
    {"ddmin-statements", pass_ddmin},
    {"unwrap-block", pass_unwrap_block},
    {"drop-statement", pass_drop_statement},
    {"use-base", pass_use_base},
    {"drop-inputs", pass_drop_inputs},
    {"shrink-shapes", pass_shrink_shapes},
    {"simplify-literals", pass_simplify_literals},
    {"rename", pass_rename},
};
#define NPASSES ((int)(sizeof passes / sizeof passes[0]))

const char *const reduce_pass_names[] = {"drop-outputs", "ddmin-statements", "unwrap-block", "drop-statement", "use-base",
                                         "drop-inputs", "shrink-shapes", "simplify-literals", "rename", NULL};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int reduce_program(const ir_program *p, reduce_pred pred, void *ctx, int max_tests, ir_program **out, reduce_stats *st) {
  double t0 = now_s();
  rstate r = {ir_program_clone(p), pred, ctx, 0, max_tests > 0 ? max_tests : 5000};
  for (int round = 0; round < 1000; round++) {
    int changed = 0;
    for (int k = 0; k < NPASSES && !changed; k++) changed = passes[k].run(&r);
    if (!changed || r.tests >= r.max_tests) break;
  }
  if (st) {
    st->stmts_before = p->nstmts;
    st->stmts_after = r.cur->nstmts;
    st->tests = r.tests;
    st->seconds = now_s() - t0;
    st->budget_hit = r.tests >= r.max_tests;
  }
  *out = r.cur;
  return 0;
}
