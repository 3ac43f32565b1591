/* gen_train.c - see gen_train.h */
#include "gen_train.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "../harness/ops/ops_shape.h"
#include "gen.h"
#include "gen_model.h"
#include "gen_rng.h"



/* What eager says about q, backward included, under autograd's rules: 1 it runs (*reached:
 * whether the backward gave some input a .grad), 0 it refuses; *leaf_at: the body index of the
 * statement refused as a write in grad mode into a leaf that requires grad, a view of one, or a
 * view made under no_grad (eager.c train_refuses), else -1. 0 too, before eager, when the op
 * table's rules refuse more statements of q than `base` (the program before training): a write
 * routed through `t_det` moves what aliases its result (`v = torch.add(.., out=t_det)` is t_det,
 * which a later `t.unsqueeze_(1)` no longer reshapes), and eager accepting a form the rules
 * refuse (that v as a later out= of another shape: resized) makes what the generator never makes,
 * which ref declines as its limit. */
/* The statements of p the op table's rules refuse (gen_model_refusals), a `with torch.no_grad():`
 * block's opener and end and a torch.set_grad_enabled left out: the rules have no line for them,
 * the block's body's statements count. */
static int model_refusals(const ir_program *p) {
  int n = gen_model_refusals(p, -1, NULL);
  for (int k = 0; k < p->nstmts; k++) n -= p->stmts[k].op == OPS_no_grad ? 2 : p->stmts[k].op == OPS_set_grad_enabled;
  return n;
}

static int eager_accepts(const ir_program *q, int base, int *reached, int *leaf_at) {
  af_err err;
  result r;
  *reached = 0;
  *leaf_at = -1;
  if (ir_validate(q, &err) || model_refusals(q) > base) return 0;
  result_init(&r);
  int ok = eager_run(q, &r, &err) == 0 && r.status == RESULT_OK;
  for (int i = 0; ok && i < r.ngrads; i++) *reached |= r.grads[i] != NULL;
  int s;
  if (!ok && r.message && strstr(r.message, EAGER_GRAD_WRITE_REFUSED) && sscanf(r.message, "body[%d]", &s) == 1 && s >= 0 &&
      s < q->nstmts)
    *leaf_at = s;
  result_clear(&r);
  return ok;
}

static int is_candidate(const ir_input *in) {
  return (in->dtype == AF_FLOAT32 || in->dtype == AF_FLOAT64) && !in->base && !in->ndata;
}

/* Inserts statement (op, out, args) at body index at (the later ones move down one). */
static void insert_stmt(ir_program *p, int at, int op, int out, int nargs, const ir_arg *args) {
  ir_add_stmt(p, op, out, nargs, args);
  ir_stmt st = p->stmts[p->nstmts - 1];
  memmove(&p->stmts[at + 1], &p->stmts[at], sizeof(ir_stmt) * (size_t)(p->nstmts - 1 - at));
  p->stmts[at] = st;
}

/* Statements from..to (a whole block when one opens it) inside `with torch.no_grad():`. */
static void wrap_no_grad(ir_program *p, int from, int to) {
  if (ir_block_opener(p->stmts[to].op)) to = ir_block_end(p, to);
  insert_stmt(p, to + 1, OPS_end, -1, 0, NULL);
  insert_stmt(p, from, OPS_no_grad, -1, 0, NULL);
}

/* A new value name `stem`, `stem1`, ... not yet in p; its id. */
static int fresh_value(ir_program *p, const char *stem) {
  char nm[64];
  for (int k = 0;; k++) {
    snprintf(nm, sizeof nm, k ? "%s%d" : "%s", stem, k);
    if (ir_find_value(p, nm) < 0) return ir_add_value(p, nm);
  }
}

/* Whether the policy draws views: `.detach()` and `.data` are views, so a policy that weights
 * detach 0 gets no_grad blocks instead. */
static int views_drawn(const gen_policy *pol) { return pol->op_weight[OPS_detach] > 0; }

/* Routes statement s's write through `t_det = t.detach()` made right before it (a write autograd
 * does not see; the values change all the same), t read as an operand of it too. 0 when s writes
 * a list, or writes another argument than its first (batch_norm's running statistics: detaching its
 * input would not route them). */
static int route_write(ir_program *p, int s) {
  if (p->stmts[s].nargs < 1 || p->stmts[s].args[0].kind != IR_ARG_VALUE || ops_writes(p->stmts[s].op) != 1u) return 0;
  int t = p->stmts[s].args[0].value;
  char stem[64];
  snprintf(stem, sizeof stem, "%s_det", p->names[t]);
  int v = fresh_value(p, stem);
  ir_arg a = {.kind = IR_ARG_VALUE, .value = t};
  insert_stmt(p, s, ops_find("detach"), v, 1, &a);
  /* `t.mul_(t)` becomes `t_det.mul_(t_det)`: t beside t_det would be one memory through two tensors,
     which eager accepts (the same geometry) and the generator's layout model calls an overlap */
  for (int k = 0; k < p->stmts[s + 1].nargs; k++)
    if (p->stmts[s + 1].args[k].kind == IR_ARG_VALUE && p->stmts[s + 1].args[k].value == t) p->stmts[s + 1].args[k].value = v;
  return 1;
}

/* Module state w written in place at body index 0 (`self.w.mul_(c)`, `self.w.add_(c)`, c drawn
 * from s); a parameter under `with torch.no_grad():` or through `w_data = self.w.data` (drawn: the
 * optimizer's two idioms), a buffer as it is. Returns the statements inserted. */
static int write_state(ir_program *p, int w, uint64_t *s, const gen_policy *pol) {
  static const double by[] = {0.5, 2, -1};
  int mul = gen_rng_next(s) & 1;
  ir_arg a[2] = {{.kind = IR_ARG_VALUE, .value = w}, {.kind = IR_ARG_FLOAT, .f = mul ? by[gen_rng_next(s) % 3] : (double)(gen_rng_next(s) % 2 ? 1 : -1)}};
  insert_stmt(p, 0, mul ? OPS_mul_ : OPS_add_, -1, 2, a);
  if (!p->inputs[w].param) return 1;
  if (gen_rng_next(s) & 1 || !views_drawn(pol)) {
    wrap_no_grad(p, 0, 0);
    return 3;
  }
  char stem[64];
  snprintf(stem, sizeof stem, "%s_data", p->names[w]);
  int d = fresh_value(p, stem);
  ir_arg b = {.kind = IR_ARG_VALUE, .value = w};
  insert_stmt(p, 0, OPS_data, d, 1, &b);
  p->stmts[1].args[0].value = d;
  return 2;
}

/* A top-level statement drawn from s, or -1 (none). */
static int top_level_stmt(const ir_program *p, uint64_t *s) {
  int n = 0, pick = -1;
  for (int k = 0; k < p->nstmts; k = ir_block_opener(p->stmts[k].op) ? ir_block_end(p, k) + 1 : k + 1)
    if (gen_rng_next(s) % (uint64_t)++n == 0) pick = k; /* reservoir: uniform over the top-level statements */
  return pick;
}

/* Input i made to require grad in q: when eager refuses a write into it (or a view of it), the
 * write is put under no_grad or routed through .detach() (a fix drawn from s) and eager
 * asked again, up to GEN_TRAIN_FIXES times. 1 when eager accepts q in the end (q changed), else 0
 * (q as it was). */
#define GEN_TRAIN_FIXES 3
static int make_leaf(ir_program **qp, int i, uint64_t *s, int *reached, const gen_policy *pol, int base) {
  ir_program *q = ir_program_clone(*qp);
  q->inputs[i].grad = 1;
  q->inputs[i].param = q->inputs[i].buffer;
  for (int tries = 0;; tries++) {
    int leaf_at, r;
    if (eager_accepts(q, base, &r, &leaf_at)) {
      *reached |= r;
      ir_program_free(*qp);
      *qp = q;
      return 1;
    }
    if (leaf_at < 0 || tries == GEN_TRAIN_FIXES) break;
    if (gen_rng_next(s) % 2 || !views_drawn(pol) || !route_write(q, leaf_at)) wrap_no_grad(q, leaf_at, leaf_at);
  }
  ir_program_free(q);
  return 0;
}

/* Hidden base b made the caller's leaf that requires grad (the inputs that view it then view its
 * clone: non-leaf views autograd lets the program write). 1 when eager accepts q so (q changed),
 * else 0. */
static int make_base_leaf(ir_program **qp, int b, int *reached, int base) {
  ir_program *q = ir_program_clone(*qp);
  q->bases[b].grad = 1;
  int leaf_at, r;
  if (!eager_accepts(q, base, &r, &leaf_at)) {
    ir_program_free(q);
    return 0;
  }
  *reached |= r;
  ir_program_free(*qp);
  *qp = q;
  return 1;
}

/* With chance p (drawn from s; nothing drawn when p is 0), `edit` applied to a copy of *qp, kept when
 * eager accepts it and some input gets a gradient: 1 when kept. */
static int maybe(ir_program **qp, double p, uint64_t *s, const gen_policy *pol, int base,
                 int (*edit)(ir_program *q, uint64_t *s, const gen_policy *pol)) {
  if (p <= 0 || gen_rng_unit(s) >= p) return 0; /* a chance of 0 draws nothing: the stream stays as without the edit */
  ir_program *q = ir_program_clone(*qp);
  int r, leaf_at;
  if (edit(q, s, pol) && eager_accepts(q, base, &r, &leaf_at) && r) {
    ir_program_free(*qp);
    *qp = q;
    return 1;
  }
  ir_program_free(q);
  return 0;
}

static int edit_update_param(ir_program *q, uint64_t *s, const gen_policy *pol) {
  int n = 0, w = -1;
  for (int i = 0; i < q->ninputs; i++)
    if (q->inputs[i].param && gen_rng_next(s) % (uint64_t)++n == 0) w = i;
  if (w >= 0) write_state(q, w, s, pol);
  return w >= 0;
}

static int edit_wrap_run(ir_program *q, uint64_t *s, const gen_policy *pol) {
  (void)pol;
  int from = top_level_stmt(q, s);
  if (from < 0) return 0;
  int to = ir_block_opener(q->stmts[from].op) ? ir_block_end(q, from) : from;
  if (gen_rng_next(s) % 2 && to + 1 < q->nstmts) to++; /* two statements (the second may open a block) */
  wrap_no_grad(q, from, to);
  return 1;
}

/* A module's state written in place at the top of the forward, then read with an input that
 * requires grad (the shape of docs/findings/aot_eager-buffer-mutated-then-read-doubles-input-grad):
 * `self.b.mul_(2)` (a parameter: under no_grad), then `st = torch.mul(y, self.b)` (or of
 * `self.b.sum()` where the shapes do not broadcast), st a new output. b is drawn from the
 * module's float state; where there is none, from the other inputs that require grad, made a
 * plain buffer or kept a parameter (drawn). */
static int edit_state_read(ir_program *q, uint64_t *s, const gen_policy *pol) {
  int ny = 0, y = -1;
  for (int i = 0; i < q->ninputs; i++)
    if (q->inputs[i].grad && gen_rng_next(s) % (uint64_t)++ny == 0) y = i;
  if (y < 0) return 0;
  int nb = 0, b = -1;
  for (int i = 0; i < q->ninputs; i++)
    if (i != y && q->inputs[i].buffer && is_candidate(&q->inputs[i]) && gen_rng_next(s) % (uint64_t)++nb == 0) b = i;
  if (b < 0) { /* no module state: another input that requires grad becomes it */
    for (int i = 0; i < q->ninputs; i++)
      if (i != y && q->inputs[i].grad && is_candidate(&q->inputs[i]) && gen_rng_next(s) % (uint64_t)++nb == 0) b = i;
    if (b < 0) return 0;
    q->inputs[b].buffer = 1;
    q->inputs[b].param = q->inputs[b].grad = (int)(gen_rng_next(s) & 1);
  }
  int at = write_state(q, b, s, pol);
  const ir_input *Y = &q->inputs[y], *B = &q->inputs[b];
  int r;
  int64_t sh[AF_MAX_RANK];
  ir_arg m[2] = {{.kind = IR_ARG_VALUE, .value = y}, {.kind = IR_ARG_VALUE, .value = b}};
  if (ops_broadcast(Y->rank, Y->shape, B->rank, B->shape, &r, sh) < 0) {
    int t = fresh_value(q, "st_sum");
    insert_stmt(q, at++, OPS_sum, t, 1, &m[1]);
    m[1].value = t;
  }
  if (gen_rng_next(s) & 1) m[0].value = m[1].value, m[1].value = y; /* torch.mul(self.b, y) */
  int out = fresh_value(q, "st");
  insert_stmt(q, at, OPS_mul, out, 2, m);
  q->outputs = af_xrealloc(q->outputs, sizeof(int) * (size_t)(q->noutputs + 1));
  q->loss = af_xrealloc(q->loss, sizeof(double) * (size_t)(q->noutputs + 1));
  q->outputs[q->noutputs] = out;
  q->loss[q->noutputs++] = (double)(1 + gen_rng_next(s) % 3);
  return 1;
}

/* One `v = t.detach()` (drawn) made `v = t.data`: the same view, autograd blind to it the same way,
 * but with a version counter of its own, so a write through it would hide even from autograd's
 * saved-tensor check. The program was accepted with `.detach()`, whose writes that check sees: no
 * write through the `.data` changes a tensor the backward saved, and the gradients stay defined
 * (PyTorch documents them as wrong after such a write). */
static int edit_data(ir_program *q, uint64_t *s, const gen_policy *pol) {
  (void)pol; /* it turns a .detach() into .data: none where the policy draws no views */
  int n = 0, d = -1;
  for (int k = 0; k < q->nstmts; k++)
    if (q->stmts[k].op == OPS_detach && gen_rng_next(s) % (uint64_t)++n == 0) d = k;
  if (d >= 0) q->stmts[d].op = OPS_data;
  return d >= 0;
}

/* 1 when value v's name belongs to no other value of p (a rebound name would make a later use
 * of v read the rebinding). */
static int name_unique(const ir_program *p, int v) {
  for (int k = 0; k < p->nvalues; k++)
    if (k != v && !strcmp(p->names[k], p->names[v])) return 0;
  return 1;
}

/* New output o of q with a loss weight 1..3 drawn from s. */
static void add_output(ir_program *q, int o, uint64_t *s) {
  q->outputs = af_xrealloc(q->outputs, sizeof(int) * (size_t)(q->noutputs + 1));
  q->loss = af_xrealloc(q->loss, sizeof(double) * (size_t)(q->noutputs + 1));
  q->outputs[q->noutputs] = o;
  q->loss[q->noutputs++] = (double)(1 + gen_rng_next(s) % 3);
}

/* `out = op(h)` (unsqueeze: one int argument k) appended to q's body; the new value's id. */
static int append_view(ir_program *q, int op, int h, int k) {
  char stem[64];
  snprintf(stem, sizeof stem, "%s_v", q->names[h]);
  int out = fresh_value(q, stem);
  ir_arg a[2] = {{.kind = IR_ARG_VALUE, .value = h}, {.kind = IR_ARG_INT, .i = k}};
  if (op == OPS_view_as) a[1] = (ir_arg){.kind = IR_ARG_VALUE, .value = h};
  ir_add_stmt(q, op, out, op == OPS_detach ? 1 : 2, a);
  return out;
}

/* Outputs that alias one intermediate (issue 33's coverage): of a value h a top-level functional
 * statement made from a value that requires grad, two views returned as new outputs at the end of
 * the forward (`h.unsqueeze(0)` and `h.view_as(h)` or `h.unsqueeze(-1)`: views of a hidden state
 * returned side by side), or h and `h.detach()` (`return y, y.detach()`, the form of
 * pytorch/pytorch#100348). AOTAutograd then returns h itself from the compiled graph and
 * regenerates the views from it after the call (collect_metadata_analysis:
 * alias_of_intermediate_save_as_output, alias_of_intermediate,
 * alias_of_intermediate_base_is_user_output), which no output of a generated program did. h: a
 * value no name rebinds and no output is, made by a functional op that returns a new tensor
 * (neither self_return nor OPF_MAYBE_VIEW) from a value that requires grad by the program's text
 * (an input that does, or a value such a top-level statement made; an op may still give a result
 * autograd does not track, a comparison's: then the outputs are plain, and valid all the same). */
static int edit_out_views(ir_program *q, uint64_t *s, const gen_policy *pol) {
  if (!views_drawn(pol)) return 0;
  int n = 0, h = -1;
  char *grad = af_xcalloc((size_t)q->nvalues + 1, 1);
  for (int i = 0; i < q->ninputs; i++)
    if (q->inputs[i].value >= 0 && q->inputs[i].value < q->nvalues) grad[q->inputs[i].value] = (char)q->inputs[i].grad;
  for (int k = 0; k < q->nstmts; k = ir_block_opener(q->stmts[k].op) ? ir_block_end(q, k) + 1 : k + 1) {
    const ir_stmt *st = &q->stmts[k];
    const ops_entry *e = ops_get(st->op);
    int v = st->out, from_grad = 0;
    for (int a = 0; a < st->nargs; a++) {
      const ir_arg *x = &st->args[a];
      if (x->kind == IR_ARG_VALUE && x->value >= 0 && x->value < q->nvalues) from_grad |= grad[x->value];
      for (int j = 0; x->kind == IR_ARG_VALUES && j < x->n; j++)
        if (x->values[j] >= 0 && x->values[j] < q->nvalues) from_grad |= grad[x->values[j]];
    }
    if (v < 0 || v >= q->nvalues || !e) continue;
    grad[v] = (char)((e->kind == OPS_FUNC || e->kind == OPS_VIEW || e->kind == OPS_GETITEM || e->kind == OPS_LIST) && from_grad);
    int out = 0;
    for (int o = 0; o < q->noutputs; o++) out |= q->outputs[o] == v;
    if (e->kind == OPS_FUNC && grad[v] && !out && strcmp(e->family, "self_return") && !(e->flags & OPF_MAYBE_VIEW) &&
        name_unique(q, v) && gen_rng_next(s) % (uint64_t)++n == 0)
      h = v;
  }
  free(grad);
  if (h < 0) return 0;
  switch (gen_rng_next(s) % 3) {
  case 0:
    add_output(q, append_view(q, OPS_unsqueeze, h, 0), s);
    add_output(q, append_view(q, OPS_view_as, h, 0), s);
    break;
  case 1:
    add_output(q, append_view(q, OPS_unsqueeze, h, 0), s);
    add_output(q, append_view(q, OPS_unsqueeze, h, -1), s);
    break;
  default: {
    int seen = 0;
    for (int o = 0; o < q->noutputs; o++) seen |= q->outputs[o] == h;
    if (!seen) add_output(q, h, s);
    add_output(q, append_view(q, OPS_detach, h, 0), s);
  }
  }
  return 1;
}

static int base_named(const ir_program *p, const char *name) {
  for (int b = 0; b < p->nbases; b++)
    if (!strcmp(p->bases[b].name, name)) return 1;
  return 0;
}

/* A data input made a view of a leaf the caller owns (issue 33): `x` becomes
 * `x_leaf.clone().as_strided(x.shape, contiguous, off)` of a new hidden base `x_leaf` of
 * off + numel + tail elements that requires grad (off, tail 0..2, drawn): a non-leaf input the
 * program may write in place, whose gradients flow to the caller's leaf. */
static int edit_view_input(ir_program *q, uint64_t *s, const gen_policy *pol) {
  (void)pol;
  int n = 0, i = -1;
  if (!gen_layouts_allowed(q)) return 0;
  for (int k = 0; k < q->ninputs; k++)
    if (is_candidate(&q->inputs[k]) && !q->inputs[k].buffer && !q->inputs[k].grad && ir_numel(q->inputs[k].rank, q->inputs[k].shape) > 0 &&
        gen_rng_next(s) % (uint64_t)++n == 0)
      i = k;
  if (i < 0) return 0;
  ir_input *in = &q->inputs[i];
  char nm[80];
  snprintf(nm, sizeof nm, "%s_leaf", q->names[in->value]);
  for (int k = 0; ir_find_value(q, nm) >= 0 || base_named(q, nm); k++) snprintf(nm, sizeof nm, "%s_leaf%d", q->names[in->value], k);
  int64_t off = (int64_t)(gen_rng_next(s) % 3), tail = (int64_t)(gen_rng_next(s) % 3), st[AF_MAX_RANK];
  int b = ir_add_base(q, nm, -1, off + ir_numel(in->rank, in->shape) + tail, in->dtype);
  q->bases[b].grad = 1;
  ir_contiguous_strides(in->rank, in->shape, st);
  ir_set_layout(q, i, b, st, off);
  free(in->data);
  in->data = NULL, in->ndata = 0;
  return 1;
}

/* `torch.set_grad_enabled(False)` before a top-level statement (issue 33): the rest of the forward
 * runs without grad mode (writes into leaves pass, results require no grad), and the call leaves
 * grad mode off for its caller (AOTAutograd replays that after its graph, collect_metadata_analysis's
 * grad_enabled_mutation); or, drawn, a `torch.set_grad_enabled(True)` after a later top-level
 * statement puts it back. */
static int edit_grad_mode(ir_program *q, uint64_t *s, const gen_policy *pol) {
  (void)pol;
  int from = top_level_stmt(q, s);
  if (from < 0) return 0;
  int to = ir_block_opener(q->stmts[from].op) ? ir_block_end(q, from) : from;
  ir_arg off = {.kind = IR_ARG_BOOL, .i = 0}, on = {.kind = IR_ARG_BOOL, .i = 1};
  if (gen_rng_next(s) & 1) {
    int next = to + 1 < q->nstmts && ir_block_opener(q->stmts[to + 1].op) ? ir_block_end(q, to + 1) : to + 1;
    insert_stmt(q, next < q->nstmts ? next + 1 : q->nstmts, OPS_set_grad_enabled, -1, 1, &on);
  }
  insert_stmt(q, from, OPS_set_grad_enabled, -1, 1, &off);
  return 1;
}

int gen_train(ir_program *p, uint64_t seed, const gen_policy *pol) {
  uint64_t s = seed;
  double p_share = pol->p_train;
  if (p_share <= 0 || p->train || gen_rng_unit(&s) >= p_share) return 0;
  int kept = 0, reached = 0, base = model_refusals(p);
  ir_program *q = ir_program_clone(p);
  q->train = 1;
  q->loss = af_xcalloc((size_t)q->noutputs + 1, sizeof(double));
  for (int o = 0; o < q->noutputs; o++) q->loss[o] = (double)(1 + gen_rng_next(&s) % 3);
  int viewed = maybe(&q, pol->p_train_view_input, &s, pol, base, edit_view_input);
  kept += viewed, reached |= viewed;
  for (int i = 0; i < q->ninputs; i++)
    if (is_candidate(&q->inputs[i])) kept += make_leaf(&q, i, &s, &reached, pol, base);
  for (int b = 0; b < q->nbases; b++) /* a hidden base: a leaf the caller owns, its views the inputs */
    if (q->bases[b].owner < 0 && (q->bases[b].dtype == AF_FLOAT32 || q->bases[b].dtype == AF_FLOAT64))
      kept += make_base_leaf(&q, b, &reached, base);
  if (kept && reached) {
    maybe(&q, GEN_TRAIN_P_UPDATE, &s, pol, base, edit_update_param);
    maybe(&q, GEN_TRAIN_P_WRAP, &s, pol, base, edit_wrap_run);
    maybe(&q, pol->p_train_state_read, &s, pol, base, edit_state_read);
    maybe(&q, pol->p_train_data, &s, pol, base, edit_data);
    maybe(&q, pol->p_train_out_views, &s, pol, base, edit_out_views);
    maybe(&q, pol->p_train_grad_mode, &s, pol, base, edit_grad_mode);
    ir_program tmp = *p; /* p takes q's contents, q p's old ones (freed with q) */
    *p = *q;
    *q = tmp;
  }
  ir_program_free(q);
  return kept && reached;
}
