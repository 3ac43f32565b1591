/* conv_naive.c - `naive`: the half-way conversion frontends start from, wrong on purpose. Every
 * in-place op becomes its functional twin (add_ -> add, unsqueeze_ -> unsqueeze, x[i] = v ->
 * fill/copy/index_put of x[i]; batch_norm's running statistics None) and only the statement's own
 * result name is rebound to the twin's value: the target's name keeps its old value, views and bases are never updated, inputs are
 * never given back. It exists to show what the oracle catches (tests assert its verdicts on the
 * seed patterns) and as a check on the fuzzer itself: a campaign against naive that finds
 * nothing is a broken campaign. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../eager.h"
#include "../emit.h"
#include "../ops/ops.h"
#include "conv.h"

/* A fresh name in q: base itself when free, else base_1, base_2, ... not used by p or q. */
static int naive_value(const ir_program *p, ir_program *q, const char *base) {
  char name[80];
  if (ir_find_value(q, base) < 0 && ir_add_value(q, base) >= 0) return q->nvalues - 1;
  for (int k = 1;; k++) {
    snprintf(name, sizeof name, "%.60s_%d", base, k);
    if (ir_find_value(p, name) < 0 && ir_find_value(q, name) < 0) {
      int v = ir_add_value(q, name);
      if (v >= 0) return v;
    }
  }
}

static void naive_ref(void *ctx, int *v) { *v = ((const int *)ctx)[*v]; }

/* Copies args, replacing each value by map[value]. */
static void naive_args(const int *map, int nargs, const ir_arg *in, ir_arg *out) {
  for (int a = 0; a < nargs; a++) {
    ir_arg_copy(&out[a], &in[a]);
    ir_arg_visit(&out[a], naive_ref, (void *)map);
  }
}

static int naive_emit(const ir_program *p, ir_program *q, int op, int nargs, ir_arg *args, const char *base) {
  int v = naive_value(p, q, base);
  ir_add_stmt(q, op, v, nargs, args);
  for (int a = 0; a < nargs; a++) ir_arg_free(&args[a]);
  return v;
}

/* The naive program for p. new, free with ir_program_free; NULL with err when an op has no twin. */
static ir_program *naive_build(const ir_program *p, af_err *err) {
  ir_program *q = ir_program_new();
  int *map = af_xcalloc((size_t)p->nvalues + 1, sizeof(int));
  for (int v = 0; v < p->nvalues; v++) map[v] = -1;
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    map[in->value] = ir_add_input(q, p->names[in->value], in->rank, in->shape, in->dtype);
    if (in->ndata) {
      q->inputs[i].ndata = in->ndata;
      q->inputs[i].data = memcpy(af_xmalloc(sizeof(double) * (size_t)in->ndata), in->data, sizeof(double) * (size_t)in->ndata);
    }
  }
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *st = &p->stmts[s];
    const ops_entry *oe = ops_get(st->op);
    const char *base = st->out >= 0                                       ? p->names[st->out]
                       : st->nargs && st->args[0].kind == IR_ARG_VALUE     ? p->names[st->args[0].value]
                       : st->nargs && st->args[0].kind == IR_ARG_VALUES && st->args[0].n ? p->names[st->args[0].values[0]]
                                                                           : "t";
    ir_arg a[OPS_MAX_ARGS];
    memset(a, 0, sizeof a);
    int v;
    switch (oe->kind) {
      case OPS_VIEW:
      case OPS_FUNC:
      case OPS_GETITEM: /* as they are; an argument a functional op writes (batch_norm's running
                           statistics, ops_writes) becomes None: its write is lost */
        naive_args(map, st->nargs, st->args, a);
        for (int k = 0; k < st->nargs; k++)
          if (ops_writes(st->op) & OPS_ARG(k)) ir_arg_free(&a[k]), a[k] = (ir_arg){.kind = IR_ARG_NONE, .value = -1};
        if (map[st->out] >= 0) { /* a rebind (s = s + 1) rebinds the same name */
          ir_add_stmt(q, st->op, map[st->out], st->nargs, a);
          for (int k = 0; k < st->nargs; k++) ir_arg_free(&a[k]);
        } else {
          map[st->out] = naive_emit(p, q, st->op, st->nargs, a, base);
        }
        break;
      case OPS_CTRL: /* blocks, lists and int values as they are */
      case OPS_LIST:
      case OPS_INT:
        naive_args(map, st->nargs, st->args, a);
        if (st->out >= 0 && map[st->out] < 0) map[st->out] = naive_value(p, q, base);
        ir_add_stmt(q, st->op, st->out >= 0 ? map[st->out] : -1, st->nargs, a);
        for (int k = 0; k < st->nargs; k++) ir_arg_free(&a[k]);
        break;
      case OPS_INPLACE: /* the twin; only the statement's own result name sees it */
        if (ops_twin(st->op) < 0) {
          af_fail(err, "body[%d] (%s): no functional twin in the op table", s, oe->name);
          goto fail;
        }
        naive_args(map, st->nargs, st->args, a);
        v = naive_emit(p, q, ops_twin(st->op), st->nargs, a, base);
        if (st->out >= 0) map[st->out] = v;
        break;
      case OPS_FOREACH: { /* each element's functional twin (add_ -> add), whose result nothing reads */
        int fn = ops_twin(ops_twin(st->op));
        if (fn < 0 || ops_get(fn)->nargs != st->nargs) {
          af_fail(err, "body[%d] (%s): no functional twin of its elements' op in the op table", s, oe->name);
          goto fail;
        }
        for (int k = 0; k < st->args[0].n; k++) {
          ir_arg el[OPS_MAX_ARGS];
          for (int x = 0; x < st->nargs; x++)
            el[x] = st->args[x].kind == IR_ARG_VALUES ? (ir_arg){.kind = IR_ARG_VALUE, .value = st->args[x].values[k]} : st->args[x];
          naive_args(map, st->nargs, el, a);
          naive_emit(p, q, fn, st->nargs, a, p->names[st->args[0].values[k]]);
        }
        break;
      }
      case OPS_OUT: /* the twin of op(a, b, out=o); o keeps its value */
        if (ops_twin(st->op) < 0) {
          af_fail(err, "body[%d] (%s): no functional twin in the op table", s, oe->name);
          goto fail;
        }
        naive_args(map, st->nargs - 1, st->args + 1, a);
        v = naive_emit(p, q, ops_twin(st->op), st->nargs - 1, a, base);
        if (st->out >= 0) map[st->out] = v;
        break;
      case OPS_SETITEM: { /* x[i] = v: a functional update of x[i] that nothing reads */
        naive_args(map, 2, st->args, a);
        int t = naive_emit(p, q, OPS_getitem, 2, a, base);
        const ir_arg *val = &st->args[2];
        int op = oe->twin[0] ? ops_twin(ops_find(oe->twin)) : val->kind == IR_ARG_VALUE ? OPS_copy : OPS_fill;
        a[0] = (ir_arg){.kind = IR_ARG_VALUE, .value = t};
        naive_args(map, 1, val, &a[1]);
        naive_emit(p, q, op, 2, a, base);
        break;
      }
    }
  }
  q->noutputs = p->noutputs;
  q->outputs = af_xcalloc((size_t)p->noutputs + 1, sizeof(int));
  for (int o = 0; o < p->noutputs; o++) q->outputs[o] = map[p->outputs[o]];
  free(map);
  if (p->meta) ir_set_meta(q, p->meta);
  return q;
fail:
  free(map);
  ir_program_free(q);
  return NULL;
}

static int naive_available(const conv_converter *c, const char **why) {
  (void)c;
  *why = NULL;
  return 1;
}

static const char *naive_version(const conv_converter *c) {
  (void)c;
  return AF_VERSION;
}

static result_status naive_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  (void)c;
  af_err err;
  ir_program *q = naive_build(p, &err);
  if (!q) {
    result_set_message(r, err.msg);
    return RESULT_UNSUPPORTED;
  }
  r->graph = emit_torchscript(q, "program");
  r->residual = 0;
  *state = q;
  return RESULT_OK;
}

static result_status naive_run(const conv_converter *c, void *state, const ir_program *p, af_tensor *const *inputs,
                               result *r) {
  (void)c;
  result fr;
  af_err err;
  result_init(&fr);
  if (eager_run_on(state, inputs, &fr, &err) || fr.status != RESULT_OK) {
    result_set_message(r, fr.message ? fr.message : err.msg);
    result_clear(&fr);
    return RESULT_ERROR;
  }
  r->noutputs = fr.noutputs;
  r->outputs = fr.outputs;
  fr.outputs = NULL;
  fr.noutputs = 0;
  r->ninputs = p->ninputs; /* never given back: the caller's tensors stay as they were */
  r->inputs = af_xcalloc((size_t)p->ninputs + 1, sizeof(af_tensor *));
  for (int i = 0; i < p->ninputs; i++) r->inputs[i] = at_tensor_ref(inputs[i]);
  result_clear(&fr);
  return RESULT_OK;
}

static void naive_free(void *state) { ir_program_free(state); }

const conv_converter conv_naive = {
    .name = "naive",
    .description = "each in-place op becomes its functional twin, rebinding only its own result; views, bases "
                   "and inputs are never updated (a demo and the fuzzer's self-check)",
    .deliberately_wrong = 1,
    .available = naive_available,
    .version = naive_version,
    .convert = naive_convert,
    .run = naive_run,
    .free_state = naive_free,
    .repro_py =
        "def convert_and_run(src, converted, inputs):\n"
        "    # converted: naive's program; the caller's tensors are never updated\n"
        "    ns = {'torch': torch, 'Tensor': torch.Tensor, 'Tuple': Tuple, 'List': List, 'Optional': Optional}\n"
        "    exec(converted, ns)\n"
        "    return as_list(ns['program'](*inputs)), inputs\n",
};
