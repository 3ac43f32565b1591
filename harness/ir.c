/* ir.c - program IR construction, copying, validation and the default input values. */
#include "ir.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"

ir_program *ir_program_new(void) { return af_xcalloc(1, sizeof(ir_program)); }

void ir_arg_free(ir_arg *a) {
  free(a->ints);
  free(a->values);
  free(a->index);
  a->ints = NULL;
  a->values = NULL;
  a->index = NULL;
}

void ir_arg_copy(ir_arg *dst, const ir_arg *src) {
  *dst = *src;
  if (src->ints) dst->ints = memcpy(af_xmalloc(sizeof(int64_t) * (size_t)src->n), src->ints, sizeof(int64_t) * (size_t)src->n);
  if (src->values) dst->values = memcpy(af_xmalloc(sizeof(int) * (size_t)src->n), src->values, sizeof(int) * (size_t)src->n);
  if (src->index) dst->index = memcpy(af_xmalloc(sizeof(ir_index) * (size_t)src->n), src->index, sizeof(ir_index) * (size_t)src->n);
}

void ir_program_free(ir_program *p) {
  if (!p) return;
  for (int i = 0; i < p->ninputs; i++) free(p->inputs[i].data);
  free(p->inputs);
  for (int b = 0; b < p->nbases; b++) {
    free(p->bases[b].name);
    free(p->bases[b].data);
  }
  free(p->bases);
  for (int s = 0; s < p->nstmts; s++) {
    for (int a = 0; a < p->stmts[s].nargs; a++) ir_arg_free(&p->stmts[s].args[a]);
    free(p->stmts[s].args);
  }
  free(p->stmts);
  free(p->outputs);
  for (int v = 0; v < p->nvalues; v++) free(p->names[v]);
  free(p->names);
  free(p->hash);
  free(p->meta);
  free(p->loss);
  free(p);
}

void ir_copy_bases(ir_program *q, const ir_program *p, const int *input_map) {
  for (int b = 0; b < p->nbases; b++) {
    const ir_base *B = &p->bases[b];
    int owner = B->owner >= 0 && input_map ? input_map[B->owner] : B->owner;
    int k = ir_add_base(q, B->name, owner, B->numel, B->dtype);
    q->bases[k].grad = B->grad;
    if (B->ndata) {
      q->bases[k].ndata = B->ndata;
      q->bases[k].data = memcpy(af_xmalloc(sizeof(double) * (size_t)B->ndata), B->data, sizeof(double) * (size_t)B->ndata);
    }
  }
}

ir_program *ir_program_clone(const ir_program *p) {
  ir_program *q = ir_program_new();
  for (int v = 0; v < p->nvalues; v++) ir_add_value(q, p->names[v]);
  q->ninputs = p->ninputs;
  q->inputs = af_xcalloc((size_t)p->ninputs, sizeof(ir_input));
  q->cap_inputs = p->ninputs;
  for (int i = 0; i < p->ninputs; i++) {
    q->inputs[i] = p->inputs[i];
    if (p->inputs[i].data)
      q->inputs[i].data = memcpy(af_xmalloc(sizeof(double) * (size_t)p->inputs[i].ndata), p->inputs[i].data,
                                 sizeof(double) * (size_t)p->inputs[i].ndata);
  }
  ir_copy_bases(q, p, NULL);
  for (int s = 0; s < p->nstmts; s++) ir_add_stmt(q, p->stmts[s].op, p->stmts[s].out, p->stmts[s].nargs, p->stmts[s].args);
  q->noutputs = p->noutputs;
  q->outputs = af_xcalloc((size_t)p->noutputs, sizeof(int));
  memcpy(q->outputs, p->outputs, sizeof(int) * (size_t)p->noutputs);
  if (p->meta) q->meta = af_xstrdup(p->meta);
  q->train = p->train;
  if (p->loss) q->loss = memcpy(af_xcalloc((size_t)p->noutputs + 1, sizeof(double)), p->loss, sizeof(double) * (size_t)p->noutputs);
  return q;
}

uint32_t ir_name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* Slot of name in p->hash: its entry, or the empty slot where it goes. */
static int hash_slot(const ir_program *p, const char *name) {
  int mask = p->cap_hash - 1, k = (int)(ir_name_hash(name) & (uint32_t)mask);
  while (p->hash[k] && strcmp(p->names[p->hash[k] - 1], name) != 0) k = (k + 1) & mask;
  return k;
}

/* Indexes value v (kept out when an earlier value has its name); grows the table to twice the
 * values at least. */
static void hash_put(ir_program *p, int v) {
  if (2 * (p->nvalues + 1) > p->cap_hash) {
    int cap = p->cap_hash ? p->cap_hash : 32;
    while (2 * (p->nvalues + 1) > cap) cap *= 2;
    free(p->hash);
    p->hash = af_xcalloc((size_t)cap, sizeof(int));
    p->cap_hash = cap;
    for (int u = 0; u < v; u++) {
      int k = hash_slot(p, p->names[u]);
      if (!p->hash[k]) p->hash[k] = u + 1;
    }
  }
  int k = hash_slot(p, p->names[v]);
  if (!p->hash[k]) p->hash[k] = v + 1;
}

static void hash_rebuild(ir_program *p) {
  if (p->hash) memset(p->hash, 0, sizeof(int) * (size_t)p->cap_hash);
  p->hash_stale = 0;
  for (int v = 0; v < p->nvalues; v++) hash_put(p, v);
}

int ir_find_value(const ir_program *p, const char *name) {
  if (p->hash_stale) hash_rebuild((ir_program *)p); /* a cache: the names themselves do not change */
  if (!p->nvalues || !name) return -1;
  int k = hash_slot(p, name);
  return p->hash[k] ? p->hash[k] - 1 : -1;
}

void ir_rename_value(ir_program *p, int v, const char *name) {
  free(p->names[v]);
  p->names[v] = af_xstrdup(name);
  p->hash_stale = 1;
}

int ir_add_value(ir_program *p, const char *name) {
  if (!ir_name_ok(name) || ir_find_value(p, name) >= 0) return -1;
  if (p->nvalues >= p->cap_values) {
    p->cap_values = p->cap_values ? 2 * p->cap_values : 16;
    p->names = af_xrealloc(p->names, sizeof(char *) * (size_t)p->cap_values);
  }
  p->names[p->nvalues] = af_xstrdup(name);
  hash_put(p, p->nvalues);
  return p->nvalues++;
}

int ir_add_input(ir_program *p, const char *name, int rank, const int64_t *shape, af_dtype dt) {
  int v = ir_add_value(p, name);
  if (v < 0) return -1;
  if (p->ninputs >= p->cap_inputs) {
    p->cap_inputs = p->cap_inputs ? 2 * p->cap_inputs : 4;
    p->inputs = af_xrealloc(p->inputs, sizeof(ir_input) * (size_t)p->cap_inputs);
  }
  ir_input *in = &p->inputs[p->ninputs++];
  memset(in, 0, sizeof *in);
  in->value = v;
  in->rank = rank;
  for (int d = 0; d < rank; d++) in->shape[d] = shape[d];
  in->dtype = dt;
  return v;
}

int ir_add_stmt(ir_program *p, int op, int out, int nargs, const ir_arg *args) {
  if (p->nstmts >= p->cap_stmts) {
    p->cap_stmts = p->cap_stmts ? 2 * p->cap_stmts : 16;
    p->stmts = af_xrealloc(p->stmts, sizeof(ir_stmt) * (size_t)p->cap_stmts);
  }
  ir_stmt *s = &p->stmts[p->nstmts];
  s->op = op;
  s->out = out;
  s->nargs = nargs;
  s->args = af_xcalloc((size_t)nargs, sizeof(ir_arg));
  for (int a = 0; a < nargs; a++) ir_arg_copy(&s->args[a], &args[a]);
  return p->nstmts++;
}

void ir_set_meta(ir_program *p, const char *json) {
  free(p->meta);
  p->meta = json ? af_xstrdup(json) : NULL;
}

double ir_loss_weight(const ir_program *p, int o) { return p->loss && o >= 0 && o < p->noutputs ? p->loss[o] : 1.0; }

int ir_ngrads(const ir_program *p) {
  int n = 0;
  for (int i = 0; p->train && i < p->ninputs; i++) n += p->inputs[i].grad != 0;
  for (int b = 0; p->train && b < p->nbases; b++) n += p->bases[b].grad != 0;
  return n;
}

void ir_untrain(ir_program *p) {
  p->train = 0;
  free(p->loss);
  p->loss = NULL;
  for (int i = 0; i < p->ninputs; i++) p->inputs[i].grad = p->inputs[i].param = 0;
  for (int b = 0; b < p->nbases; b++) p->bases[b].grad = 0;
  /* no grad mode without training: a no_grad block's statements join the enclosing body, and a
     torch.set_grad_enabled goes */
  char *drop = af_xcalloc((size_t)p->nstmts + 1, 1);
  int n = 0;
  for (int s = 0; s < p->nstmts; s++)
    if (p->stmts[s].op == OPS_no_grad) drop[s] = 1, drop[ir_block_end(p, s)] = 1;
    else if (p->stmts[s].op == OPS_set_grad_enabled) drop[s] = 1;
  for (int s = 0; s < p->nstmts; s++)
    if (drop[s]) ir_stmt_clear(&p->stmts[s]);
    else p->stmts[n++] = p->stmts[s];
  p->nstmts = n;
  free(drop);
}

int ir_block_opener(int op) { return op == OPS_if || op == OPS_for || op == OPS_no_grad; }

int ir_nbuffers(const ir_program *p) {
  int n = 0;
  for (int i = 0; i < p->ninputs; i++) n += p->inputs[i].buffer != 0;
  return n;
}

double ir_input_value(const ir_input *in, int input_index, int64_t k) {
  if (in->ndata > 0) return in->data[k % in->ndata];
  return ir_input_default_value(input_index, k, in->dtype);
}

/* ---- blocks and scopes ----
 * A value is visible from its definition to the end of the body it was defined in (an input or a
 * top-level statement: to the end of the program). A statement whose "out" names a visible value
 * rebinds it (Python's `state = state + 1`): the name refers to the new tensor from then on,
 * while other names of the old tensor keep it. A loop variable is visible in its loop's body. */

char *ir_loop_vars(const ir_program *p) {
  char *isint = af_xcalloc((size_t)p->nvalues + 1, 1);
  for (int s = 0; s < p->nstmts; s++) {
    const ops_entry *e = ops_get(p->stmts[s].op);
    if ((p->stmts[s].op == OPS_for || (e && e->kind == OPS_INT)) && p->stmts[s].out >= 0 && p->stmts[s].out < p->nvalues)
      isint[p->stmts[s].out] = 1;
  }
  return isint;
}

void ir_arg_visit(ir_arg *a, void (*f)(void *ctx, int *v), void *ctx) {
  switch (a->kind) {
    case IR_ARG_VALUE: f(ctx, &a->value); break;
    case IR_ARG_VALUES:
      for (int k = 0; k < a->n; k++)
        if (a->values[k] >= 0) f(ctx, &a->values[k]); /* -1: None in an index list */
      break;
    case IR_ARG_INTS:
      for (int k = 0; a->values && k < a->n; k++)
        if (a->values[k] >= 0) f(ctx, &a->values[k]);
      break;
    case IR_ARG_INDEX:
      for (int k = 0; k < a->n; k++) {
        ir_index *x = &a->index[k];
        if (x->kind == IR_IDX_TENSOR) f(ctx, &x->value);
        if (x->kind != IR_IDX_SLICE) continue;
        for (int *bv = &x->start_var; bv <= &x->stop_var; bv++)
          if (*bv > 0) {
            int v = *bv - 1;
            f(ctx, &v);
            *bv = v + 1;
          }
      }
      break;
    default: break;
  }
}

typedef struct reads_ctx {
  const char *isint;
  int found;
} reads_ctx;

static void reads_int(void *ctx, int *v) {
  reads_ctx *r = ctx;
  if (*v >= 0 && r->isint[*v]) r->found = 1;
}

int ir_stmt_reads_int(const ir_stmt *st, const char *isint) {
  reads_ctx r = {isint, 0};
  for (int a = 0; a < st->nargs && !r.found; a++) ir_arg_visit(&st->args[a], reads_int, &r);
  return r.found;
}

int ir_int_op_value(const ir_stmt *st, int rank, const int64_t *shape, int64_t *out, af_err *err) {
  const ops_entry *oe = ops_get(st->op);
  if (!oe || oe->kind != OPS_INT) return af_fail(err, "not an int op");
  if ((oe->flags & OPF_UNPACK) && st->nargs > 2 && st->args[2].i != rank) /* `a, b = x.size()`: Python's ValueError */
    return af_fail(err, "%s values to unpack (expected %lld, got %d)", st->args[2].i < rank ? "too many" : "not enough",
                   (long long)st->args[2].i, rank);
  if (strcmp(oe->aten, "aten::size") == 0) {
    int64_t d = st->nargs > 1 && st->args[1].kind == IR_ARG_INT ? st->args[1].i : 0;
    if (rank == 0 || d < -rank || d >= rank)
      return af_fail(err, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", rank ? -rank : -1,
                     rank ? rank - 1 : 0, (long long)d);
    *out = shape[d < 0 ? d + rank : d];
  } else if (strcmp(oe->aten, "aten::numel") == 0) {
    *out = ir_numel(rank, shape);
  } else if (strcmp(oe->aten, "aten::dim") == 0) {
    *out = rank;
  } else {
    return af_fail(err, "int op %s: no rule for aten \"%s\"", oe->name, oe->aten);
  }
  return 0;
}

int64_t ir_for_trips(const ir_stmt *st, const int64_t *ints) {
  if (st->nargs < 1) return 0;
  return st->args[0].kind == IR_ARG_VALUE ? ints[st->args[0].value] : st->args[0].i;
}

char *ir_list_values(const ir_program *p) {
  char *islist = af_xcalloc((size_t)p->nvalues + 1, 1);
  for (int s = 0; s < p->nstmts; s++)
    if (p->stmts[s].op == OPS_list && p->stmts[s].out >= 0 && p->stmts[s].out < p->nvalues) islist[p->stmts[s].out] = 1;
  return islist;
}

int ir_block_end(const ir_program *p, int s) {
  int depth = 0;
  for (int k = s; k < p->nstmts; k++) {
    int op = p->stmts[k].op;
    if (ir_block_opener(op)) depth++;
    if (op == OPS_end && --depth == 0) return k;
  }
  return p->nstmts;
}

int ir_block_else(const ir_program *p, int s) {
  int depth = 0;
  for (int k = s; k < p->nstmts; k++) {
    int op = p->stmts[k].op;
    if (ir_block_opener(op)) depth++;
    if (op == OPS_else && depth == 1) return k;
    if (op == OPS_end && --depth == 0) return -1;
  }
  return -1;
}

typedef struct scope {
  char *vis;  /* value id -> visible now */
  int *defs;  /* values made visible, in order */
  int ndefs;
  int *mark;  /* ndefs when each open body began */
  int *open;  /* the statement that opened each body */
  int *has_else;
  int depth;
} scope;

static void scope_init(scope *sc, const ir_program *p) {
  size_t n = (size_t)p->nvalues + (size_t)p->nstmts + 1;
  sc->vis = af_xcalloc((size_t)p->nvalues + 1, 1);
  sc->defs = af_xcalloc(n, sizeof(int));
  sc->mark = af_xcalloc((size_t)p->nstmts + 1, sizeof(int));
  sc->open = af_xcalloc((size_t)p->nstmts + 1, sizeof(int));
  sc->has_else = af_xcalloc((size_t)p->nstmts + 1, sizeof(int));
  sc->ndefs = sc->depth = 0;
}

static void scope_free(scope *sc) {
  free(sc->vis);
  free(sc->defs);
  free(sc->mark);
  free(sc->open);
  free(sc->has_else);
}

static void scope_define(scope *sc, int v) {
  if (sc->vis[v]) return; /* a rebind: the binding's scope is the first definition's */
  sc->vis[v] = 1;
  sc->defs[sc->ndefs++] = v;
}

static void scope_open(scope *sc, int s) {
  sc->mark[sc->depth] = sc->ndefs;
  sc->open[sc->depth] = s;
  sc->has_else[sc->depth] = 0;
  sc->depth++;
}

/* Ends the innermost body; its definitions go out of sight. */
static void scope_close(scope *sc) {
  sc->depth--;
  while (sc->ndefs > sc->mark[sc->depth]) sc->vis[sc->defs[--sc->ndefs]] = 0;
}

/* `end`: a no_grad block's definitions stay in sight (Python's `with` opens no scope); an if's or
 * a for's go out of it. */
static void scope_end(const ir_program *p, scope *sc) {
  if (p->stmts[sc->open[sc->depth - 1]].op == OPS_no_grad) sc->depth--;
  else scope_close(sc);
}

/* `else`: the then-body's definitions go out of sight; the else-body starts. */
static void scope_else(scope *sc) {
  int s = sc->open[sc->depth - 1];
  scope_close(sc);
  scope_open(sc, s);
  sc->has_else[sc->depth - 1] = 1;
}

/* kinds[v]: 0 tensor, 1 int value (a loop variable, x.size(d), ...), 2 list; want: 0 a tensor,
 * 1 a tensor or an int (subscript elements, int arguments), 2 a list, 3 an int */
/* How messages call int value v: "a loop variable" or "an int value". */
static const char *int_word(const ir_program *p, int v) {
  for (int s = 0; s < p->nstmts; s++)
    if (p->stmts[s].op == OPS_for && p->stmts[s].out == v) return "a loop variable";
  return "an int value";
}

static int value_ok(const ir_program *p, int v, const scope *sc, const char *kinds, int want, af_err *err) {
  if (v < 0 || v >= p->nvalues || !sc->vis[v]) return af_fail(err, "value used before it is defined (or outside its block)");
  if (kinds[v] == 1 && want != 1 && want != 3)
    return af_fail(err, "\"%s\" is %s, not a %s", p->names[v], int_word(p, v), want == 2 ? "list" : "tensor");
  if (kinds[v] == 2 && want != 2) return af_fail(err, "\"%s\" is a list, not a %s", p->names[v], want == 3 ? "int" : "tensor");
  if (kinds[v] != 2 && want == 2) return af_fail(err, "\"%s\" is not a list", p->names[v]);
  if (kinds[v] != 1 && want == 3) return af_fail(err, "\"%s\" is a tensor, not an int value", p->names[v]);
  return 0;
}

static int arg_ok(const ir_program *p, const char *code, const ir_arg *a, const scope *sc, const char *isint, af_err *err) {
  char c = code[0];
  int optional = code[1] == '?';
  if (a->kind == IR_ARG_NONE && optional) return 0;
  switch (c) {
    case 'T':
      if (a->kind != IR_ARG_VALUE) return af_fail(err, "expected a tensor value name");
      break;
    case 'S':
      if (a->kind != IR_ARG_VALUE && a->kind != IR_ARG_INT && a->kind != IR_ARG_FLOAT && a->kind != IR_ARG_BOOL)
        return af_fail(err, "expected a tensor value name or a number");
      break;
    case 's':
      if (a->kind == IR_ARG_VALUE) return value_ok(p, a->value, sc, isint, 3, err); /* an int value */
      if (a->kind != IR_ARG_INT && a->kind != IR_ARG_FLOAT && a->kind != IR_ARG_BOOL)
        return af_fail(err, optional ? "expected a number or null" : "expected a number");
      break;
    case 'i':
      if (a->kind == IR_ARG_VALUE) { /* an int value */
        if (a->value >= 0 && a->value < p->nvalues && isint[a->value] != 1)
          return af_fail(err, "expected an integer or an int value, got \"%s\"", p->names[a->value]);
        return value_ok(p, a->value, sc, isint, 1, err);
      }
      if (a->kind != IR_ARG_INT) return af_fail(err, optional ? "expected an integer or null" : "expected an integer");
      break;
    case 'b':
      if (a->kind != IR_ARG_BOOL) return af_fail(err, "expected true or false");
      break;
    case 'r':
      if (a->kind != IR_ARG_INT || !ops_reduce_name(a->i)) return af_fail(err, "expected a reduction mode (sum, prod, mean, amax, amin)");
      break;
    case 'd':
      if (a->kind != IR_ARG_DTYPE || a->i < 0 || a->i >= AF_DTYPE_COUNT) return af_fail(err, "expected a dtype ({\"dtype\": \"int32\"})");
      break;
    case 'I':
      if (a->kind != IR_ARG_INTS) return af_fail(err, "expected a list of integers");
      for (int k = 0; a->values && k < a->n; k++)
        if (a->values[k] >= 0 && value_ok(p, a->values[k], sc, isint, 3, err)) {
          af_err_prefix(err, "list element %d", k);
          return -1;
        }
      break;
    case 'L':
    case 'O':
      if (a->kind != IR_ARG_VALUES) return af_fail(err, "expected a list of tensor value names");
      break;
    case 'X':
      if (a->kind != IR_ARG_INDEX) return af_fail(err, "expected a subscript list");
      break;
    case 'l':
      if (a->kind != IR_ARG_VALUE) return af_fail(err, "expected a list value name");
      return value_ok(p, a->value, sc, isint, 2, err);
    default:
      return af_fail(err, "op table has unknown schema code '%s'", code);
  }
  if (a->kind == IR_ARG_VALUE && value_ok(p, a->value, sc, isint, c == 'S' ? 1 : 0, err)) return -1; /* S: a number may be an int value */
  if (a->kind == IR_ARG_VALUES)
    for (int k = 0; k < a->n; k++)
      if (!(c == 'O' && a->values[k] == -1) && /* None in an index list */
          value_ok(p, a->values[k], sc, isint, 0, err)) {
        af_err_prefix(err, "list element %d", k);
        return -1;
      }
  if (a->kind == IR_ARG_INDEX) {
    int ell = 0;
    for (int k = 0; k < a->n; k++) {
      const ir_index *x = &a->index[k];
      if (x->kind == IR_IDX_ELLIPSIS && ell++) return af_fail(err, "subscript has more than one '...'");
      if (x->kind == IR_IDX_SLICE && x->step <= 0) return af_fail(err, "slice step must be positive");
      if (x->kind == IR_IDX_TENSOR && value_ok(p, x->value, sc, isint, 1, err)) { /* a tensor or a loop variable */
        af_err_prefix(err, "subscript element %d", k);
        return -1;
      }
      if (x->kind == IR_IDX_SLICE)
        for (int b = 0; b < 2; b++) {
          int bv = b ? x->stop_var : x->start_var;
          if (bv > 0 && (!(b ? x->has_stop : x->has_start) || value_ok(p, bv - 1, sc, isint, 3, err))) {
            if (!(b ? x->has_stop : x->has_start)) af_fail(err, "a slice bound's int value without its bound");
            af_err_prefix(err, "subscript element %d (slice %s)", k, b ? "stop" : "start");
            return -1;
          }
        }
    }
  }
  return 0;
}

/* ir_validate's inputs: the first values, ranks in range, no input name taken by an int. */
static int validate_inputs(const ir_program *p, const char *isint, scope *sc, af_err *err) {
  for (int i = 0; i < p->ninputs; i++) {
    if (p->inputs[i].value != i)
      return af_fail(err, "inputs[%d]: inputs must be the first values", i);
    if (p->inputs[i].rank < 0 || p->inputs[i].rank > AF_MAX_RANK)
      return af_fail(err, "inputs[%d].shape: rank must be 0..%d", i, AF_MAX_RANK);
    if (p->inputs[i].attr && (!p->inputs[i].buffer || p->inputs[i].param))
      return af_fail(err, "inputs[%d] (%s): a plain tensor attribute is module state (buffer set) and no parameter", i, p->names[i]);
    if (isint[i]) { /* a loop variable or an int op's result takes an input's name */
      int d = 0;
      while (d < p->nstmts && (p->stmts[d].out != i || (p->stmts[d].op != OPS_for && ops_get(p->stmts[d].op)->kind != OPS_INT))) d++;
      return af_fail(err, "inputs[%d]: \"%s\" is an input (a tensor), and body[%d] (%s) makes it %s; give the int its own name", i,
                     p->names[i], d, d < p->nstmts ? ops_get(p->stmts[d].op)->name : "?", int_word(p, i));
    }
    scope_define(sc, i);
  }
  return 0;
}

/* ir_validate's check of statement s's out name: defined where the op gives a value (a new name
 * for a list, an int name for an int op), absent where it gives none. */
static int validate_out(const ir_program *p, int s, const ops_entry *e, const char *isint, scope *sc, af_err *err) {
  const ir_stmt *st = &p->stmts[s];
  if (st->out >= 0) {
    if (st->out >= p->nvalues)
      return af_fail(err, "body[%d].out: no such value", s);
    if ((isint[st->out] == 1) != (e->kind == OPS_INT)) {
      if (isint[st->out] == 1 && strcmp(int_word(p, st->out), "a loop variable") == 0)
        return af_fail(err, "body[%d].out: \"%s\" is a loop variable (%s cannot rebind it)", s, p->names[st->out], e->name);
      if (isint[st->out] == 1)
        return af_fail(err, "body[%d].out: \"%s\" names both an int value and a tensor (%s gives a tensor)", s, p->names[st->out], e->name);
      return af_fail(err, "body[%d].out: \"%s\" names a %s, and %s gives an int", s, p->names[st->out], isint[st->out] == 2 ? "list" : "tensor", e->name);
    }
    if ((isint[st->out] == 2) != (st->op == OPS_list))
      return af_fail(err, "body[%d].out: \"%s\" names a list and a tensor", s, p->names[st->out]);
    if (st->op == OPS_list && sc->vis[st->out])
      return af_fail(err, "body[%d].out: the list \"%s\" is rebound (make a new list name)", s, p->names[st->out]);
    if (st->op == OPS_list && st->args[0].n < 1)
      return af_fail(err, "body[%d].args[0] (list): a list needs at least one tensor", s);
    if (e->kind == OPS_SETITEM || e->kind == OPS_FOREACH) { /* foreach ops return None */
      return af_fail(err, "body[%d].out: %s defines no value", s, e->name);
    }
    scope_define(sc, st->out);
  } else if (e->kind == OPS_VIEW || e->kind == OPS_FUNC || e->kind == OPS_GETITEM || e->kind == OPS_INT ||
             (e->kind == OPS_LIST && st->op != OPS_list_append && st->op != OPS_list_set)) {
    return af_fail(err, "body[%d].out: %s needs an \"out\" name", s, e->name);
  }
  return 0;
}

/* Whether statement t is member k of an unpacking of n ints of value x (OPF_UNPACK, ops.def). */
static int unpack_member(const ir_program *p, int t, int x, int64_t k, int64_t n) {
  if (t < 0 || t >= p->nstmts) return 0;
  const ir_stmt *u = &p->stmts[t];
  const ops_entry *e = ops_get(u->op);
  return e && (e->flags & OPF_UNPACK) && u->nargs == 3 && u->args[0].kind == IR_ARG_VALUE && u->args[0].value == x &&
         u->args[1].kind == IR_ARG_INT && u->args[1].i == k && u->args[2].kind == IR_ARG_INT && u->args[2].i == n;
}

/* ir_validate's check of an OPF_UNPACK statement s: literal member index k and count n, and the
 * members 0..n-1 in a row, each reading the same value (one Python statement `a, b = x.size()`). */
static int validate_unpack(const ir_program *p, int s, af_err *err) {
  const ir_stmt *st = &p->stmts[s];
  const char *name = ops_get(st->op)->name;
  if (st->args[1].kind != IR_ARG_INT || st->args[2].kind != IR_ARG_INT)
    return af_fail(err, "body[%d] (%s): the member index and the count must be integer literals", s, name);
  int64_t k = st->args[1].i, n = st->args[2].i;
  if (n < 1 || n > AF_MAX_RANK || k < 0 || k >= n)
    return af_fail(err, "body[%d] (%s): member %lld of an unpacking of %lld (the count must be 1..%d, the member 0..count-1)",
                   s, name, (long long)k, (long long)n, AF_MAX_RANK);
  int x = st->args[0].value, before = k == 0 || unpack_member(p, s - 1, x, k - 1, n);
  if (before && (k + 1 == n || unpack_member(p, s + 1, x, k + 1, n))) return 0;
  return af_fail(err, "body[%d] (%s): member %lld of an unpacking of %lld without member %lld right %s it (the members "
                 "0..%lld of one `a, b = x.size()` stand in a row, reading the same tensor)", s, name, (long long)k, (long long)n,
                 (long long)(before ? k + 1 : k - 1), before ? "after" : "before", (long long)(n - 1));
}

/* ir_validate's statement s: its op and arguments, block structure (for/if/else/end, with the
 * scope), then its out name (validate_out). */
static int validate_stmt(const ir_program *p, int s, const char *isint, scope *sc, af_err *err) {
  const ir_stmt *st = &p->stmts[s];
  const ops_entry *e = ops_get(st->op);
  if (!e)
    return af_fail(err, "body[%d].op: unknown op id %d", s, st->op);
  if (st->nargs != e->nargs)
    return af_fail(err, "body[%d] (%s): expected %d arguments (%s), got %d", s, e->name, e->nargs, e->schema, st->nargs);
  if (st->op == OPS_else || st->op == OPS_end) {
    if (sc->depth == 0 || (st->op == OPS_else && (p->stmts[sc->open[sc->depth - 1]].op != OPS_if || sc->has_else[sc->depth - 1])))
      return af_fail(err, "body[%d]: \"%s\" without its if/for", s, e->name);
    if (st->out >= 0)
      return af_fail(err, "body[%d].out: %s defines no value", s, e->name);
    if (st->op == OPS_else)
      scope_else(sc);
    else
      scope_end(p, sc);
    return 0;
  }
  for (int a = 0; a < st->nargs; a++)
    if (arg_ok(p, e->argk[a], &st->args[a], sc, isint, err)) {
      af_err_prefix(err, "body[%d].args[%d] (%s)", s, a, e->name);
      return -1;
    }
  for (const char *c = e->spelling; (c = strstr(c, "$:")) != NULL; c += 2) /* `x[:, :, a:b]`: a dim count */
    if (c[2] >= '0' && c[2] <= '9' && c[2] - '0' < st->nargs && st->args[c[2] - '0'].kind != IR_ARG_INT)
      return af_fail(err, "body[%d].args[%d] (%s): must be an integer literal (it is spelled as a count of \":, \")", s, c[2] - '0', e->name);
  if ((e->flags & OPF_UNPACK) && validate_unpack(p, s, err)) return -1;
  if (st->op == OPS_for) {
    if (st->args[0].kind != IR_ARG_VALUE && (st->args[0].kind != IR_ARG_INT || st->args[0].i < 0 || st->args[0].i > IR_MAX_TRIPS))
      return af_fail(err, "body[%d].args[0] (for): the trip count must be an integer literal 0..%d or an int value", s, IR_MAX_TRIPS);
    if (st->out < 0 || st->out >= p->nvalues || sc->vis[st->out])
      return af_fail(err, "body[%d].out (for): needs a new loop variable name", s);
    scope_open(sc, s);
    scope_define(sc, st->out);
    return 0;
  }
  if (st->op == OPS_if || st->op == OPS_no_grad) {
    if (st->out >= 0)
      return af_fail(err, "body[%d].out: %s defines no value", s, e->name);
    if (st->op == OPS_no_grad && !p->train)
      return af_fail(err, "body[%d] (no_grad): a torch.no_grad() block in a program without \"train\": true", s);
    scope_open(sc, s);
    return 0;
  }
  if (st->out >= 0 && e->kind == OPS_CTRL)
    return af_fail(err, "body[%d].out: %s defines no value", s, e->name);
  if (st->op == OPS_set_grad_enabled && !p->train)
    return af_fail(err, "body[%d] (set_grad_enabled): torch.set_grad_enabled in a program without \"train\": true", s);
  return validate_out(p, s, e, isint, sc, err);
}

/* ir_validate's training part (issue 33, docs/training.md): requires_grad and param only in a
 * training program, on floating-point inputs of their own memory (no layout); a parameter is
 * never rebound (`self.w = ...` of an nn.Parameter is a TypeError in Python); loss weights
 * finite. */
static int validate_train(const ir_program *p, af_err *err) {
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    const char *nm = p->names[in->value];
    if (!in->grad && !in->param) continue;
    if (!p->train) return af_fail(err, "inputs[%d] (%s): requires_grad/param in a program without \"train\": true", i, nm);
    if (in->param && (!in->buffer || !in->grad)) return af_fail(err, "inputs[%d] (%s): a param is module state that requires grad", i, nm);
    if (!af_dtype_is_float(in->dtype))
      return af_fail(err, "inputs[%d] (%s): only floating-point tensors can require grad (%s)", i, nm, af_dtype_name(in->dtype));
    if (in->base) return af_fail(err, "inputs[%d] (%s): an input with a layout cannot require grad (not done yet: docs/training.md)", i, nm);
    for (int s = 0; in->param && s < p->nstmts; s++)
      if (p->stmts[s].out == in->value)
        return af_fail(err, "body[%d] (%s): rebinds parameter self.%s (an nn.Parameter cannot be assigned a tensor)", s,
                       ops_get(p->stmts[s].op)->name, nm);
  }
  for (int b = 0; b < p->nbases; b++) {
    const ir_base *B = &p->bases[b];
    if (!B->grad) continue;
    if (!p->train) return af_fail(err, "bases[%d] (%s): requires_grad in a program without \"train\": true", b, B->name);
    if (B->owner >= 0) return af_fail(err, "bases[%d] (%s): only a hidden base can require grad", b, B->name);
    if (!af_dtype_is_float(B->dtype))
      return af_fail(err, "bases[%d] (%s): only floating-point tensors can require grad (%s)", b, B->name, af_dtype_name(B->dtype));
  }
  for (int o = 0; p->loss && o < p->noutputs; o++)
    if (!isfinite(p->loss[o])) return af_fail(err, "loss[%d]: a loss weight must be finite", o);
  return 0;
}

int ir_validate(const ir_program *p, af_err *err) {
  int rc = 0;
  scope sc;
  scope_init(&sc, p);
  char *isint = ir_loop_vars(p); /* value kinds: 1 loop variable, 2 list (see value_ok) */
  char *islist = ir_list_values(p);
  for (int v = 0; v < p->nvalues && !rc; v++) {
    if (islist[v] && isint[v]) rc = af_fail(err, "\"%s\" names a loop variable and a list", p->names[v]);
    if (islist[v]) isint[v] = 2;
  }
  free(islist);
  if (rc) goto out;
  if ((rc = validate_inputs(p, isint, &sc, err))) goto out;
  if ((rc = ir_validate_layouts(p, err))) goto out;
  if ((rc = validate_train(p, err))) goto out;
  for (int s = 0; s < p->nstmts && !rc; s++) rc = validate_stmt(p, s, isint, &sc, err);
  if (rc) goto out;
  if (sc.depth > 0) {
    rc = af_fail(err, "body[%d] (%s): block not closed", sc.open[sc.depth - 1], ops_get(p->stmts[sc.open[sc.depth - 1]].op)->name);
    goto out;
  }
  for (int o = 0; o < p->noutputs; o++)
    if (p->outputs[o] < 0 || p->outputs[o] >= p->nvalues || !sc.vis[p->outputs[o]] || isint[p->outputs[o]]) { /* tensors only */
      rc = af_fail(err, "outputs[%d]: value is not defined (or not a tensor)", o);
      goto out;
    }
out:
  scope_free(&sc);
  free(isint);
  return rc;
}

typedef struct hidden_ctx {
  const char *vis;
  int hidden;
} hidden_ctx;

static void hidden_ref(void *ctx, int *v) {
  hidden_ctx *h = ctx;
  if (!h->vis[*v]) h->hidden = 1;
}

static int arg_uses_hidden(const ir_arg *a, const char *vis) {
  hidden_ctx h = {vis, 0};
  ir_arg_visit((ir_arg *)a, hidden_ref, &h); /* hidden_ref changes nothing */
  return h.hidden;
}

static void remap_ref(void *ctx, int *v) { *v = ((const int *)ctx)[*v]; }

static void arg_remap(ir_arg *a, const int *map) { ir_arg_visit(a, remap_ref, (void *)map); }

/* Keeps statements with the scoping of ir_validate: a statement goes when asked to or when it
 * uses a value that is not bound any more; dropping if/for drops its whole block (else/end
 * follow their opener); dropping a rebind leaves the earlier binding in place. */
/* ir_subset's body; as (when not NULL) is a statement whose value becomes an input instead,
 * appended after p's inputs (ir_value_as_input). */
static ir_program *subset_impl(const ir_program *p, const char *keep_stmt, const char *keep_output, const char *keep_input,
                               const ir_input *as, int as_stmt) {
  int *map = af_xcalloc((size_t)p->nvalues + 1, sizeof(int));
  scope sc;
  scope_init(&sc, p);
  ir_program *q = ir_program_new();
  for (int v = 0; v < p->nvalues; v++) map[v] = -1;
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    if (keep_input && !keep_input[i]) continue;
    int v = ir_add_input(q, p->names[in->value], in->rank, in->shape, in->dtype);
    map[in->value] = v;
    q->inputs[q->ninputs - 1].buffer = in->buffer;
    q->inputs[q->ninputs - 1].grad = in->grad;
    q->inputs[q->ninputs - 1].param = in->param;
    q->inputs[q->ninputs - 1].attr = in->attr;
    scope_define(&sc, in->value);
    if (in->ndata) {
      q->inputs[q->ninputs - 1].ndata = in->ndata;
      q->inputs[q->ninputs - 1].data = memcpy(af_xmalloc(sizeof(double) * (size_t)in->ndata), in->data, sizeof(double) * (size_t)in->ndata);
    }
  }
  if (as) {
    int out = p->stmts[as_stmt].out;
    map[out] = ir_add_input(q, p->names[out], as->rank, as->shape, as->dtype);
    ir_input *in = &q->inputs[q->ninputs - 1];
    in->ndata = as->ndata;
    in->data = as->ndata ? memcpy(af_xmalloc(sizeof(double) * (size_t)as->ndata), as->data, sizeof(double) * (size_t)as->ndata) : NULL;
    scope_define(&sc, out);
  }
  /* layouts: the bases kept inputs use, in their order; a base whose owner went becomes hidden */
  int *bmap = af_xcalloc((size_t)p->nbases + 1, sizeof(int));
  for (int i = 0; i < p->ninputs; i++)
    if (p->inputs[i].base && map[i] >= 0) bmap[p->inputs[i].base - 1] = 1;
  for (int b = 0; b < p->nbases; b++) {
    if (!bmap[b]) continue;
    const ir_base *B = &p->bases[b];
    bmap[b] = ir_add_base(q, B->name, B->owner >= 0 ? map[B->owner] : -1, B->numel, B->dtype) + 1;
    q->bases[bmap[b] - 1].grad = B->grad; /* the caller's leaf */
    if (B->ndata) {
      q->bases[bmap[b] - 1].ndata = B->ndata;
      q->bases[bmap[b] - 1].data = memcpy(af_xmalloc(sizeof(double) * (size_t)B->ndata), B->data, sizeof(double) * (size_t)B->ndata);
    }
  }
  for (int i = 0; i < p->ninputs; i++)
    if (p->inputs[i].base && map[i] >= 0) ir_set_layout(q, map[i], bmap[p->inputs[i].base - 1] - 1, p->inputs[i].strides, p->inputs[i].offset);
  free(bmap);
  int skipping = 0; /* depth inside a dropped block */
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *st = &p->stmts[s];
    int opener = ir_block_opener(st->op);
    if (skipping) {
      if (opener) skipping++;
      if (st->op == OPS_end) skipping--;
      continue;
    }
    if (st->op == OPS_else || st->op == OPS_end) { /* their opener was kept */
      if (sc.depth == 0) continue; /* malformed input: dropped */
      if (st->op == OPS_else)
        scope_else(&sc);
      else
        scope_end(p, &sc);
      ir_add_stmt(q, st->op, -1, 0, NULL);
      continue;
    }
    if (as && s == as_stmt) continue; /* its value is the input now */
    int d = keep_stmt && !keep_stmt[s];
    for (int a = 0; !d && a < st->nargs; a++) d = arg_uses_hidden(&st->args[a], sc.vis);
    if (d) {
      if (opener) skipping = 1;
      continue;
    }
    int out = -1;
    if (st->out >= 0) {
      if (map[st->out] < 0) map[st->out] = ir_add_value(q, p->names[st->out]);
      out = map[st->out];
    }
    int k = ir_add_stmt(q, st->op, out, st->nargs, st->args);
    for (int a = 0; a < st->nargs; a++) arg_remap(&q->stmts[k].args[a], map);
    if (opener) scope_open(&sc, s);
    if (st->out >= 0) scope_define(&sc, st->out);
  }
  while (sc.depth > 0) { /* malformed input: close what is open */
    scope_close(&sc);
    ir_add_stmt(q, OPS_end, -1, 0, NULL);
  }
  q->outputs = af_xcalloc((size_t)p->noutputs + 1, sizeof(int));
  q->train = p->train;
  if (p->loss) q->loss = af_xcalloc((size_t)p->noutputs + 1, sizeof(double));
  for (int o = 0; o < p->noutputs; o++)
    if ((!keep_output || keep_output[o]) && sc.vis[p->outputs[o]] && map[p->outputs[o]] >= 0) {
      if (q->loss) q->loss[q->noutputs] = p->loss[o]; /* a kept output keeps its weight */
      q->outputs[q->noutputs++] = map[p->outputs[o]];
    }
  if (p->meta) q->meta = af_xstrdup(p->meta);
  scope_free(&sc);
  free(map);
  return q;
}

ir_program *ir_subset(const ir_program *p, const char *keep_stmt, const char *keep_output, const char *keep_input) {
  return subset_impl(p, keep_stmt, keep_output, keep_input, NULL, -1);
}

ir_program *ir_value_as_input(const ir_program *p, int s, const ir_input *as) {
  if (s < 0 || s >= p->nstmts) return NULL;
  int v = p->stmts[s].out, depth = 0;
  if (v < p->ninputs || as->rank < 0 || as->rank > AF_MAX_RANK || (as->ndata && as->ndata != ir_numel(as->rank, as->shape)))
    return NULL;
  for (int k = 0; k < p->nstmts; k++) {
    int op = p->stmts[k].op;
    if (k < s) depth += ir_block_opener(op) - (op == OPS_end);
    if (k != s && p->stmts[k].out == v) return NULL; /* bound elsewhere too */
  }
  if (depth != 0) return NULL; /* inside a block: it may run more than once, or not at all */
  return subset_impl(p, NULL, NULL, NULL, as, s);
}

int ir_stmt_resolve(const ir_stmt *st, const char *isint, const int64_t *ints, ir_stmt *out) {
  int changed = 0;
  *out = *st;
  out->args = af_xcalloc((size_t)st->nargs + 1, sizeof(ir_arg));
  for (int a = 0; a < st->nargs; a++) {
    ir_arg *x = &out->args[a];
    ir_arg_copy(x, &st->args[a]);
    if (x->kind == IR_ARG_VALUE && isint[x->value]) {
      *x = (ir_arg){.kind = IR_ARG_INT, .i = ints[x->value], .value = -1};
      changed = 1;
    }
    if (x->kind == IR_ARG_INTS && x->values) {
      for (int k = 0; k < x->n; k++)
        if (x->values[k] >= 0 && isint[x->values[k]]) {
          x->ints[k] = ints[x->values[k]];
          x->values[k] = -1;
          changed = 1;
        }
      int any = 0;
      for (int k = 0; k < x->n; k++) any |= x->values[k] >= 0;
      if (!any) { /* all literals now: the plain form */
        free(x->values);
        x->values = NULL;
      }
    }
    if (x->kind == IR_ARG_INDEX)
      for (int k = 0; k < x->n; k++) {
        ir_index *ix = &x->index[k];
        if (ix->kind == IR_IDX_TENSOR && isint[ix->value]) {
          int64_t i = ints[ix->value];
          *ix = (ir_index){.kind = IR_IDX_INT, .i = i, .value = -1};
          changed = 1;
        }
        if (ix->kind == IR_IDX_SLICE && ix->start_var > 0 && isint[ix->start_var - 1]) {
          ix->start = ints[ix->start_var - 1];
          ix->start_var = 0;
          changed = 1;
        }
        if (ix->kind == IR_IDX_SLICE && ix->stop_var > 0 && isint[ix->stop_var - 1]) {
          ix->stop = ints[ix->stop_var - 1];
          ix->stop_var = 0;
          changed = 1;
        }
      }
  }
  return changed;
}

void ir_stmt_clear(ir_stmt *st) {
  for (int a = 0; a < st->nargs; a++) ir_arg_free(&st->args[a]);
  free(st->args);
  st->args = NULL;
  st->nargs = 0;
}
