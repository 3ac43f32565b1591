/* ir.c - program IR construction, copying, validation and the default input values. */
#include "ir.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

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
  for (int s = 0; s < p->nstmts; s++) {
    for (int a = 0; a < p->stmts[s].nargs; a++) ir_arg_free(&p->stmts[s].args[a]);
    free(p->stmts[s].args);
  }
  free(p->stmts);
  free(p->outputs);
  for (int v = 0; v < p->nvalues; v++) free(p->names[v]);
  free(p->names);
  free(p->meta);
  free(p);
}

ir_program *ir_program_clone(const ir_program *p) {
  ir_program *q = ir_program_new();
  for (int v = 0; v < p->nvalues; v++) ir_add_value(q, p->names[v]);
  q->ninputs = p->ninputs;
  q->inputs = af_xcalloc((size_t)p->ninputs, sizeof(ir_input));
  for (int i = 0; i < p->ninputs; i++) {
    q->inputs[i] = p->inputs[i];
    if (p->inputs[i].data)
      q->inputs[i].data = memcpy(af_xmalloc(sizeof(double) * (size_t)p->inputs[i].ndata), p->inputs[i].data,
                                 sizeof(double) * (size_t)p->inputs[i].ndata);
  }
  for (int s = 0; s < p->nstmts; s++) ir_add_stmt(q, p->stmts[s].op, p->stmts[s].out, p->stmts[s].nargs, p->stmts[s].args);
  q->noutputs = p->noutputs;
  q->outputs = af_xcalloc((size_t)p->noutputs, sizeof(int));
  memcpy(q->outputs, p->outputs, sizeof(int) * (size_t)p->noutputs);
  if (p->meta) q->meta = af_xstrdup(p->meta);
  return q;
}

static const char *reserved[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
    "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
    "yield", "torch", "program", "Tensor", "Tuple", "List", "Optional", "int", "float", "bool",
    "range", "len", "print", "self", "_", NULL};

int ir_name_ok(const char *name) {
  if (!name || !(isalpha((unsigned char)name[0]) || name[0] == '_')) return 0;
  for (const char *c = name; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_') return 0;
  if (strlen(name) > 64) return 0;
  for (int i = 0; reserved[i]; i++)
    if (strcmp(name, reserved[i]) == 0) return 0;
  return 1;
}

int ir_find_value(const ir_program *p, const char *name) {
  for (int v = 0; v < p->nvalues; v++)
    if (strcmp(p->names[v], name) == 0) return v;
  return -1;
}

int ir_add_value(ir_program *p, const char *name) {
  if (!ir_name_ok(name) || ir_find_value(p, name) >= 0) return -1;
  p->names = af_xrealloc(p->names, sizeof(char *) * (size_t)(p->nvalues + 1));
  p->names[p->nvalues] = af_xstrdup(name);
  return p->nvalues++;
}

int ir_add_input(ir_program *p, const char *name, int rank, const int64_t *shape, af_dtype dt) {
  int v = ir_add_value(p, name);
  if (v < 0) return -1;
  p->inputs = af_xrealloc(p->inputs, sizeof(ir_input) * (size_t)(p->ninputs + 1));
  ir_input *in = &p->inputs[p->ninputs++];
  memset(in, 0, sizeof *in);
  in->value = v;
  in->rank = rank;
  for (int d = 0; d < rank; d++) in->shape[d] = shape[d];
  in->dtype = dt;
  return v;
}

int ir_add_stmt(ir_program *p, int op, int out, int nargs, const ir_arg *args) {
  p->stmts = af_xrealloc(p->stmts, sizeof(ir_stmt) * (size_t)(p->nstmts + 1));
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

int64_t ir_numel(int rank, const int64_t *shape) {
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= shape[d];
  return n;
}

double ir_input_default_value(int input_index, int64_t k, af_dtype dt) {
  if (dt == AF_BOOL) return (k + input_index) % 3 == 0;
  return (double)(((k * 7 + input_index * 3) % 11) - 5);
}

double ir_input_value(const ir_input *in, int input_index, int64_t k) {
  if (in->ndata > 0) return in->data[k % in->ndata];
  return ir_input_default_value(input_index, k, in->dtype);
}

/* Which value ids are defined before statement s: inputs, then statement outs in order. */
static int arg_ok(const ir_program *p, const char *code, const ir_arg *a, const char *defined, af_err *err) {
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
      if (a->kind != IR_ARG_INT && a->kind != IR_ARG_FLOAT && a->kind != IR_ARG_BOOL)
        return af_fail(err, optional ? "expected a number or null" : "expected a number");
      break;
    case 'i':
      if (a->kind != IR_ARG_INT) return af_fail(err, optional ? "expected an integer or null" : "expected an integer");
      break;
    case 'b':
      if (a->kind != IR_ARG_BOOL) return af_fail(err, "expected true or false");
      break;
    case 'I':
      if (a->kind != IR_ARG_INTS) return af_fail(err, "expected a list of integers");
      break;
    case 'L':
    case 'O':
      if (a->kind != IR_ARG_VALUES) return af_fail(err, "expected a list of tensor value names");
      break;
    case 'X':
      if (a->kind != IR_ARG_INDEX) return af_fail(err, "expected a subscript list");
      break;
    default:
      return af_fail(err, "op table has unknown schema code '%s'", code);
  }
  if (a->kind == IR_ARG_VALUE && (a->value < 0 || a->value >= p->nvalues || !defined[a->value]))
    return af_fail(err, "value used before it is defined");
  if (a->kind == IR_ARG_VALUES)
    for (int k = 0; k < a->n; k++)
      if (!(c == 'O' && a->values[k] == -1) && /* None in an index list */
          (a->values[k] < 0 || a->values[k] >= p->nvalues || !defined[a->values[k]]))
        return af_fail(err, "list element %d used before it is defined", k);
  if (a->kind == IR_ARG_INDEX) {
    int ell = 0;
    for (int k = 0; k < a->n; k++) {
      const ir_index *x = &a->index[k];
      if (x->kind == IR_IDX_ELLIPSIS && ell++) return af_fail(err, "subscript has more than one '...'");
      if (x->kind == IR_IDX_SLICE && x->step <= 0) return af_fail(err, "slice step must be positive");
      if (x->kind == IR_IDX_TENSOR && (x->value < 0 || x->value >= p->nvalues || !defined[x->value]))
        return af_fail(err, "subscript element %d used before it is defined", k);
    }
  }
  return 0;
}

int ir_validate(const ir_program *p, af_err *err) {
  int rc = 0;
  char *defined = af_xcalloc((size_t)p->nvalues + 1, 1);
  for (int i = 0; i < p->ninputs; i++) {
    if (p->inputs[i].value != i) {
      rc = af_fail(err, "inputs[%d]: inputs must be the first values", i);
      goto out;
    }
    if (p->inputs[i].rank < 0 || p->inputs[i].rank > AF_MAX_RANK) {
      rc = af_fail(err, "inputs[%d].shape: rank must be 0..%d", i, AF_MAX_RANK);
      goto out;
    }
    defined[i] = 1;
  }
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *st = &p->stmts[s];
    const ops_entry *e = ops_get(st->op);
    if (!e) {
      rc = af_fail(err, "body[%d].op: unknown op id %d", s, st->op);
      goto out;
    }
    if (st->nargs != e->nargs) {
      rc = af_fail(err, "body[%d] (%s): expected %d arguments (%s), got %d", s, e->name, e->nargs, e->schema, st->nargs);
      goto out;
    }
    for (int a = 0; a < st->nargs; a++)
      if (arg_ok(p, e->argk[a], &st->args[a], defined, err)) {
        af_err_prefix(err, "body[%d].args[%d] (%s)", s, a, e->name);
        rc = -1;
        goto out;
      }
    if (st->out >= 0) {
      if (st->out >= p->nvalues || defined[st->out]) {
        rc = af_fail(err, "body[%d].out: value redefined", s);
        goto out;
      }
      if (e->kind == OPS_SETITEM) {
        rc = af_fail(err, "body[%d].out: %s defines no value", s, e->name);
        goto out;
      }
      defined[st->out] = 1;
    } else if (e->kind == OPS_VIEW || e->kind == OPS_FUNC || e->kind == OPS_GETITEM) {
      rc = af_fail(err, "body[%d].out: %s needs an \"out\" name", s, e->name);
      goto out;
    }
  }
  for (int o = 0; o < p->noutputs; o++)
    if (p->outputs[o] < 0 || p->outputs[o] >= p->nvalues || !defined[p->outputs[o]]) {
      rc = af_fail(err, "outputs[%d]: value is not defined", o);
      goto out;
    }
out:
  free(defined);
  return rc;
}

static int arg_uses_dropped(const ir_arg *a, const char *gone) {
  if (a->kind == IR_ARG_VALUE) return gone[a->value];
  if (a->kind == IR_ARG_VALUES)
    for (int k = 0; k < a->n; k++)
      if (a->values[k] >= 0 && gone[a->values[k]]) return 1;
  if (a->kind == IR_ARG_INDEX)
    for (int k = 0; k < a->n; k++)
      if (a->index[k].kind == IR_IDX_TENSOR && gone[a->index[k].value]) return 1;
  return 0;
}

static void arg_remap(ir_arg *a, const int *map) {
  if (a->kind == IR_ARG_VALUE) a->value = map[a->value];
  if (a->kind == IR_ARG_VALUES)
    for (int k = 0; k < a->n; k++)
      if (a->values[k] >= 0) a->values[k] = map[a->values[k]];
  if (a->kind == IR_ARG_INDEX)
    for (int k = 0; k < a->n; k++)
      if (a->index[k].kind == IR_IDX_TENSOR) a->index[k].value = map[a->index[k].value];
}

ir_program *ir_subset(const ir_program *p, const char *keep_stmt, const char *keep_output, const char *keep_input) {
  char *gone = af_xcalloc((size_t)p->nvalues + 1, 1);
  char *drop = af_xcalloc((size_t)p->nstmts + 1, 1);
  int *map = af_xcalloc((size_t)p->nvalues + 1, sizeof(int));
  for (int i = 0; i < p->ninputs; i++)
    if (keep_input && !keep_input[i]) gone[p->inputs[i].value] = 1;
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *st = &p->stmts[s];
    int d = keep_stmt && !keep_stmt[s];
    for (int a = 0; !d && a < st->nargs; a++) d = arg_uses_dropped(&st->args[a], gone);
    drop[s] = (char)d;
    if (d && st->out >= 0) gone[st->out] = 1;
  }
  ir_program *q = ir_program_new();
  for (int v = 0; v < p->nvalues; v++) map[v] = -1;
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    if (gone[in->value]) continue;
    int v = ir_add_input(q, p->names[in->value], in->rank, in->shape, in->dtype);
    map[in->value] = v;
    if (in->ndata) {
      q->inputs[q->ninputs - 1].ndata = in->ndata;
      q->inputs[q->ninputs - 1].data = memcpy(af_xmalloc(sizeof(double) * (size_t)in->ndata), in->data, sizeof(double) * (size_t)in->ndata);
    }
  }
  for (int s = 0; s < p->nstmts; s++) {
    if (drop[s]) continue;
    const ir_stmt *st = &p->stmts[s];
    int out = st->out >= 0 ? (map[st->out] = ir_add_value(q, p->names[st->out])) : -1;
    int k = ir_add_stmt(q, st->op, out, st->nargs, st->args);
    for (int a = 0; a < st->nargs; a++) arg_remap(&q->stmts[k].args[a], map);
  }
  q->outputs = af_xcalloc((size_t)p->noutputs + 1, sizeof(int));
  for (int o = 0; o < p->noutputs; o++)
    if ((!keep_output || keep_output[o]) && !gone[p->outputs[o]]) q->outputs[q->noutputs++] = map[p->outputs[o]];
  if (p->meta) q->meta = af_xstrdup(p->meta);
  free(gone);
  free(drop);
  free(map);
  return q;
}
