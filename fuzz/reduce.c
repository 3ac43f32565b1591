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

#include "../harness/codec.h"
#include "../harness/eager.h"
#include "../harness/ops/ops.h"

typedef struct rstate {
  ir_program *cur;
  char *cur_text; /* cur serialized: a candidate equal to it is no progress */
  reduce_pred pred;
  void *ctx;
  int tests, max_tests;
  double until; /* monotonic deadline, 0: none */
  int out_of_time;
} rstate;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Whether the budget (tests or time) is spent. */
static int spent(rstate *r) {
  if (r->tests >= r->max_tests) return 1;
  if (r->until > 0 && now_s() >= r->until) r->out_of_time = 1;
  return r->out_of_time;
}

/* Tries cand (takes ownership): keeps it when interesting. Returns 1 when kept. A candidate that
 * is the current program again (a rebind of its own argument has itself as its base; a block
 * whose markers were all that changed) is no progress and costs no test. */
static int try_cand(rstate *r, ir_program *cand) {
  af_err err;
  if (spent(r) || ir_validate(cand, &err) != 0) {
    ir_program_free(cand);
    return 0;
  }
  char *text = codec_write_string(cand);
  if (r->cur_text && strcmp(text, r->cur_text) == 0) {
    free(text);
    ir_program_free(cand);
    return 0;
  }
  r->tests++;
  if (r->pred(cand, r->ctx)) {
    ir_program_free(r->cur);
    r->cur = cand;
    free(r->cur_text);
    r->cur_text = text;
    return 1;
  }
  free(text);
  ir_program_free(cand);
  return 0;
}

/* ---- passes ---- */

/* Outputs go one by one, the last one too when what is left still shows the bug (a lost write to
 * an input needs no output). */
static int pass_drop_outputs(rstate *r) {
  for (int o = 0; o < r->cur->noutputs; o++) {
    char *keep = af_xcalloc((size_t)r->cur->noutputs, 1);
    memset(keep, 1, (size_t)r->cur->noutputs);
    keep[o] = 0;
    ir_program *c = ir_subset(r->cur, NULL, keep, NULL);
    free(keep);
    if (try_cand(r, c)) return 1;
  }
  return 0;
}

/* Training (issue 33): a finding that a training program's inference form (ir_untrain: no
 * requires_grad, no backward, no_grad blocks unwrapped) shows too is no training bug, and goes
 * untrained; else each input's requires_grad goes alone (a gradient bug needs only the inputs its
 * gradient flows to). */
static int pass_untrain(rstate *r) {
  if (!r->cur->train) return 0;
  ir_program *c = ir_program_clone(r->cur);
  ir_untrain(c);
  if (try_cand(r, c)) return 1;
  for (int i = 0; i < r->cur->ninputs; i++) {
    if (!r->cur->inputs[i].grad) continue;
    c = ir_program_clone(r->cur);
    c->inputs[i].grad = c->inputs[i].param = 0;
    if (try_cand(r, c)) return 1;
  }
  return 0;
}

/* Module state (issue 29): a plain tensor attribute becomes a registered buffer, one at a time,
 * where the finding stays (a bug that needs the attribute form keeps it: torch.export lifts a
 * plain attribute as a constant, a buffer as state). */
static int pass_attribute_as_buffer(rstate *r) {
  for (int i = 0; i < r->cur->ninputs; i++) {
    if (!r->cur->inputs[i].attr) continue;
    ir_program *c = ir_program_clone(r->cur);
    c->inputs[i].attr = 0;
    if (try_cand(r, c)) return 1;
  }
  return 0;
}

/* ddmin over statements: remove chunks (and their dependents), halving the chunk size. */
static int pass_ddmin(rstate *r) {
  int changed = 0;
  int n = r->cur->nstmts;
  for (int chunk = n / 2; chunk >= 1 && !spent(r); chunk /= 2) {
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

/* Replaces value `from` by `to` in every argument and output from statement s on. */
static void replace_uses(ir_program *c, int s, int from, int to) {
  for (int k = s; k < c->nstmts; k++)
    for (int a = 0; a < c->stmts[k].nargs; a++) {
      ir_arg *arg = &c->stmts[k].args[a];
      if (arg->kind == IR_ARG_VALUE && arg->value == from) arg->value = to;
      if (arg->kind == IR_ARG_VALUES)
        for (int q = 0; q < arg->n; q++)
          if (arg->values[q] == from) arg->values[q] = to;
      if (arg->kind == IR_ARG_INDEX)
        for (int q = 0; q < arg->n; q++)
          if (arg->index[q].kind == IR_IDX_TENSOR && arg->index[q].value == from) arg->index[q].value = to;
    }
  for (int o = 0; o < c->noutputs; o++)
    if (c->outputs[o] == from) c->outputs[o] = to;
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
  /* every use of a view at once (`v = y.expand([]); v.as_strided_(...); v.copy_(x)` -> `y....`):
   * one use at a time mixes the view and its base, which eager may reject (the base's shape
   * changed under the view) */
  for (int s = 0; s < r->cur->nstmts; s++) {
    int v = r->cur->stmts[s].out, b = v >= 0 ? view_base(r->cur, v) : -1;
    if (b < 0 || b == v || ops_mutates(r->cur->stmts[s].op)) continue;
    ir_program *c = ir_program_clone(r->cur);
    replace_uses(c, s + 1, v, b);
    if (try_cand(r, c)) return 1;
  }
  return 0;
}

/* An output made by an op is replaced by one of the op's operands (`v = clone(w); return v` ->
 * `return w`): what reads the result often only surfaces the bug. */
static int pass_operand_as_output(rstate *r) {
  for (int o = 0; o < r->cur->noutputs; o++) {
    int v = r->cur->outputs[o], d = -1;
    for (int s = r->cur->nstmts - 1; s >= 0 && d < 0; s--)
      if (r->cur->stmts[s].out == v) d = s;
    if (d < 0) continue;
    for (int a = 0; a < r->cur->stmts[d].nargs; a++) {
      const ir_arg *arg = &r->cur->stmts[d].args[a];
      if (arg->kind != IR_ARG_VALUE || arg->value == v) continue;
      ir_program *c = ir_program_clone(r->cur);
      c->outputs[o] = arg->value;
      if (try_cand(r, c)) return 1;
    }
  }
  return 0;
}

/* A tensor argument made inside the program is replaced by an input (`v1 = gt(sum(x), 0);
 * v1.unsqueeze_(1)` -> `y.unsqueeze_(1)`), an element of a tensor list too (`v0 = mul(x, x);
 * l = [v0, x]` -> `l = [x, x]`): the statements that made it then go as unused. */
static int pass_use_input(rstate *r) {
  for (int s = 0; s < r->cur->nstmts; s++)
    for (int a = 0; a < r->cur->stmts[s].nargs; a++) {
      const ir_arg *arg = &r->cur->stmts[s].args[a];
      int n = arg->kind == IR_ARG_VALUE ? 1 : arg->kind == IR_ARG_VALUES ? arg->n : 0;
      for (int q = 0; q < n; q++) {
        int v = arg->kind == IR_ARG_VALUE ? arg->value : arg->values[q];
        if (v < r->cur->ninputs) continue; /* an input already, or None in an index list */
        for (int i = 0; i < r->cur->ninputs; i++) {
          ir_program *c = ir_program_clone(r->cur);
          if (arg->kind == IR_ARG_VALUE) c->stmts[s].args[a].value = r->cur->inputs[i].value;
          else c->stmts[s].args[a].values[q] = r->cur->inputs[i].value;
          if (try_cand(r, c)) return 1;
        }
      }
    }
  return 0;
}

/* The values statements make with storage of their own, as eager made them (value_as_input). */
#define VAI_MAX_NUMEL 256
typedef struct vai_ctx {
  const ir_program *p;
  ir_input *made; /* per statement: rank -1 when not a candidate */
} vai_ctx;

static int vai_hook(void *vctx, int s, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  (void)err;
  vai_ctx *x = vctx;
  const ir_program *p = x->p;
  int v = st->out;
  if (s < 0 || s >= p->nstmts || x->made[s].rank >= 0 || v < p->ninputs || v >= p->nvalues || !values[v]) return 0;
  /* views, writes, list items: what they alias is the point; cat and stack of a list make fresh
   * tensors as functional ops do */
  if (ops_get(st->op)->kind != OPS_FUNC && st->op != OPS_cat_list && st->op != OPS_stack_list) return 0;
  const af_tensor *t = values[v];
  int dt = at_tensor_dtype(t), rank = at_tensor_rank(t);
  int64_t n = at_tensor_numel(t);
  if (dt < 0 || rank > AF_MAX_RANK || n > VAI_MAX_NUMEL) return 0;
  for (int w = 0; w <= p->nvalues; w++) /* the shadow slot too */
    if (w != v && values[w] && at_tensor_shares_storage(t, values[w])) return 0; /* `contiguous()` of a contiguous x is x */
  ir_input *in = &x->made[s];
  in->rank = rank;
  at_tensor_shape(t, in->shape);
  in->dtype = (af_dtype)dt;
  in->ndata = n;
  in->data = af_xcalloc((size_t)n + 1, sizeof(double));
  af_err e;
  if (n > 0 && at_tensor_values(t, in->data, &e) != 0) {
    free(in->data);
    in->data = NULL;
    in->rank = -1;
  }
  return 0;
}

/* A tensor an op makes inside the program (`v1 = gt(sum(x), 1)`) becomes an input holding eager's
 * value of it (`v1: bool[] = [True]`) and the op goes: what made a tensor of that shape, dtype and
 * contents is rarely the bug, and the statements that fed it then go as unused (the reducer could
 * otherwise only try the inputs the program has, of other shapes and dtypes). Only values with
 * storage of their own (not an alias of another value), of statements outside blocks. The latest
 * first: it frees the most statements. */
static int pass_value_as_input(rstate *r) {
  const ir_program *p = r->cur;
  if (p->ninputs >= 8) return 0;
  vai_ctx x = {p, af_xcalloc((size_t)p->nstmts + 1, sizeof(ir_input))};
  for (int s = 0; s < p->nstmts; s++) x.made[s].rank = -1;
  af_tensor **in = NULL;
  result res;
  result_init(&res);
  af_err err;
  int ran = inputs_new(p, &in, &err) == 0 && eager_run_traced(p, in, vai_hook, &x, &res, &err) == 0 && res.status == RESULT_OK;
  if (in) inputs_free(ir_ntensors(p), in);
  result_clear(&res);
  int kept = 0, n = p->nstmts; /* a kept candidate frees p (r->cur) */
  for (int s = n - 1; ran && s >= 0 && !kept; s--)
    if (x.made[s].rank >= 0) {
      ir_program *c = ir_value_as_input(p, s, &x.made[s]);
      if (c) kept = try_cand(r, c);
    }
  for (int s = 0; s < n; s++) free(x.made[s].data);
  free(x.made);
  return kept;
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
        /* explicit data longer than the smaller tensor: its first values (a file with more
         * values than elements is refused by the codec) */
        int64_t numel = 1;
        for (int e = 0; e < c->inputs[i].rank; e++) numel *= c->inputs[i].shape[e];
        if (c->inputs[i].ndata > numel) c->inputs[i].ndata = numel;
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

/* Every input no statement or output uses, at once: one test where the loop below spends one or two
 * per input (a worker converter takes seconds a test, and the budget ran out before the loop got
 * through eight unused inputs). An input is unused when the subset without it keeps every
 * statement and output. */
static int drop_unused_inputs(rstate *r) {
  int n = r->cur->ninputs, unused = 0;
  char *keep = af_xcalloc((size_t)n + 1, 1);
  memset(keep, 1, (size_t)n);
  for (int i = 0; i < n; i++) {
    keep[i] = 0;
    ir_program *c = ir_subset(r->cur, NULL, NULL, keep);
    keep[i] = 1;
    if (c && c->nstmts == r->cur->nstmts && c->noutputs == r->cur->noutputs) keep[i] = 0, unused++;
    ir_program_free(c);
  }
  int done = 0;
  if (unused >= 2) done = try_cand(r, ir_subset(r->cur, NULL, NULL, keep));
  free(keep);
  return done;
}

/* An unused input goes. The default values of an input are a function of its position
 * (ir_input_default_value), so when the inputs after it, moved up one place, no longer show the
 * bug (an index tensor's values, a value a comparison needs), it goes with their values kept as
 * explicit data instead. */
static int pass_drop_inputs(rstate *r) {
  if (drop_unused_inputs(r)) return 1;
  for (int i = r->cur->ninputs - 1; i >= 0; i--) {
    char *keep = af_xcalloc((size_t)r->cur->ninputs, 1);
    memset(keep, 1, (size_t)r->cur->ninputs);
    keep[i] = 0;
    ir_program *c = ir_subset(r->cur, NULL, NULL, keep);
    if (try_cand(r, c)) {
      free(keep);
      return 1;
    }
    int moved = 0;
    ir_program *pinned = ir_program_clone(r->cur);
    for (int j = i + 1; j < pinned->ninputs; j++) {
      ir_input *in = &pinned->inputs[j];
      int64_t n = ir_numel(in->rank, in->shape);
      if (in->ndata || in->base || n > 4096) continue; /* explicit already, or a layout's storage */
      in->data = af_xcalloc((size_t)n + 1, sizeof(double));
      for (int64_t k = 0; k < n; k++) in->data[k] = ir_input_default_value(j, k, in->dtype);
      in->ndata = n;
      moved++;
    }
    c = moved ? ir_subset(pinned, NULL, NULL, keep) : NULL;
    ir_program_free(pinned);
    free(keep);
    if (c && try_cand(r, c)) return 1;
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
    ir_rename_value(c, v, name);
  }
  if (!changed) {
    ir_program_free(c);
    return 0;
  }
  return try_cand(r, c);
}

/* p with the block opened at statement s replaced by one of its bodies (which: 0 the then body or
 * a loop's body run once with the loop variable `iter`, as literal indices; 1 the else body). new,
 * free with ir_program_free. */
static ir_program *unwrap(const ir_program *p, int s, int which, int64_t iter) {
  int end = ir_block_end(p, s), el = p->stmts[s].op == OPS_if ? ir_block_else(p, s) : -1;
  char *isint = af_xcalloc((size_t)p->nvalues + 1, 1); /* this loop's variable only (other int values stay) */
  int64_t *zeros = af_xcalloc((size_t)p->nvalues + 1, sizeof(int64_t));
  if (p->stmts[s].op == OPS_for && p->stmts[s].out >= 0) zeros[p->stmts[s].out] = iter, isint[p->stmts[s].out] = 1;
  ir_program *c = ir_program_clone(p);
  for (int k = 0; k < c->nstmts; k++) ir_stmt_clear(&c->stmts[k]);
  c->nstmts = 0;
  for (int k = 0; k < p->nstmts; k++) {
    int in_block = k >= s && k <= end;
    if (in_block && (k == s || k == end || k == el)) continue;
    if (in_block && el >= 0 && (which == 0 ? k > el : k < el)) continue;
    ir_stmt st;
    ir_stmt_resolve(&p->stmts[k], isint, zeros, &st); /* this loop's variable reads iter (only this loop's is gone) */
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

/* Replaces a block by one of its bodies: a finding inside an if rarely needs the if, one inside a
 * loop often needs one iteration only (the first, the last or the second, as straight-line code). */
static int pass_unwrap_block(rstate *r) {
  for (int s = 0; s < r->cur->nstmts; s++) {
    int op = r->cur->stmts[s].op;
    if (op == OPS_no_grad) { /* its statements in grad mode (issue 33) */
      if (try_cand(r, unwrap(r->cur, s, 0, 0))) return 1;
    } else if (op == OPS_if) {
      for (int which = 0; which < (ir_block_else(r->cur, s) >= 0 ? 2 : 1); which++)
        if (try_cand(r, unwrap(r->cur, s, which, 0))) return 1;
    } else if (op == OPS_for) {
      int64_t trips = r->cur->stmts[s].nargs > 0 && r->cur->stmts[s].args[0].kind == IR_ARG_INT ? r->cur->stmts[s].args[0].i : 1;
      int64_t iters[3] = {0, trips - 1, 1};
      for (int k = 0; k < 3; k++) {
        if (iters[k] < 0 || iters[k] >= trips || (k > 0 && (iters[k] == iters[0] || iters[k] == iters[k - 1]))) continue;
        if (try_cand(r, unwrap(r->cur, s, 0, iters[k]))) return 1;
      }
    }
  }
  return 0;
}

/* List scaffolding: `l = [a, b]; v = l[0]` reads `a` itself, so uses of v become uses of a and
 * the list_get goes (the list then goes with the other unused statements). Only for a list that
 * nothing appends to or sets in between. */
static int pass_resolve_lists(rstate *r) {
  const ir_program *p = r->cur;
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *st = &p->stmts[s];
    if (st->op != OPS_list_get || st->out < 0 || st->nargs < 2 || st->args[0].kind != IR_ARG_VALUE || st->args[1].kind != IR_ARG_INT)
      continue;
    int l = st->args[0].value, d = -1;
    for (int k = s - 1; k >= 0 && d < 0; k--) {
      if (p->stmts[k].out == l) d = k;
      else if ((p->stmts[k].op == OPS_list_append || p->stmts[k].op == OPS_list_set) && p->stmts[k].args[0].kind == IR_ARG_VALUE &&
               p->stmts[k].args[0].value == l)
        break;
    }
    if (d < 0 || p->stmts[d].op != OPS_list || p->stmts[d].args[0].kind != IR_ARG_VALUES) continue;
    int n = p->stmts[d].args[0].n;
    int64_t i = st->args[1].i < 0 ? st->args[1].i + n : st->args[1].i;
    if (i < 0 || i >= n) continue;
    int elem = p->stmts[d].args[0].values[i];
    if (elem < 0 || elem == st->out) continue;
    ir_program *c = ir_program_clone(p);
    replace_uses(c, s + 1, st->out, elem);
    char *keep = af_xcalloc((size_t)c->nstmts, 1);
    memset(keep, 1, (size_t)c->nstmts);
    keep[s] = 0;
    ir_program *q = ir_subset(c, keep, NULL, NULL);
    free(keep);
    ir_program_free(c);
    if (try_cand(r, q)) return 1;
  }
  return 0;
}

static const struct {
  const char *name;
  int (*run)(rstate *r);
} passes[] = {
    {"drop-outputs", pass_drop_outputs},
    {"untrain", pass_untrain},
    {"attribute-as-buffer", pass_attribute_as_buffer},
    {"ddmin-statements", pass_ddmin},
    {"unwrap-block", pass_unwrap_block},
    {"resolve-lists", pass_resolve_lists},
    {"drop-statement", pass_drop_statement},
    {"use-base", pass_use_base},
    {"operand-as-output", pass_operand_as_output},
    {"use-input", pass_use_input},
    {"value-as-input", pass_value_as_input},
    {"drop-inputs", pass_drop_inputs},
    {"shrink-shapes", pass_shrink_shapes},
    {"simplify-literals", pass_simplify_literals},
    {"rename", pass_rename},
};
#define NPASSES ((int)(sizeof passes / sizeof passes[0]))

const char *const reduce_pass_names[] = {"drop-outputs", "untrain", "attribute-as-buffer", "ddmin-statements", "unwrap-block", "resolve-lists", "drop-statement", "use-base", "operand-as-output", "use-input",
                                         "value-as-input", "drop-inputs", "shrink-shapes", "simplify-literals", "rename", NULL};

int reduce_program(const ir_program *p, reduce_pred pred, void *ctx, int max_tests, ir_program **out, reduce_stats *st) {
  return reduce_program_within(p, pred, ctx, max_tests, 0, out, st);
}

int reduce_program_within(const ir_program *p, reduce_pred pred, void *ctx, int max_tests, double max_seconds, ir_program **out,
                          reduce_stats *st) {
  double t0 = now_s();
  rstate r = {ir_program_clone(p), NULL, pred, ctx, 0, max_tests > 0 ? max_tests : 5000, max_seconds > 0 ? t0 + max_seconds : 0, 0};
  r.cur_text = codec_write_string(r.cur);
  for (int round = 0; round < 1000; round++) {
    int changed = 0;
    for (int k = 0; k < NPASSES && !changed; k++) changed = passes[k].run(&r);
    if (!changed || spent(&r)) break;
  }
  free(r.cur_text);
  if (st) {
    st->stmts_before = p->nstmts;
    st->stmts_after = r.cur->nstmts;
    st->tests = r.tests;
    st->seconds = now_s() - t0;
    st->budget_hit = r.tests >= r.max_tests || r.out_of_time;
  }
  *out = r.cur;
  return 0;
}
