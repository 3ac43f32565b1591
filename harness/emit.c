/* emit.c - TorchScript source from the IR. */
#include "emit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "ops/ops.h"

void emit_number(af_buf *b, const ir_arg *a) {
  if (a->kind == IR_ARG_INT) {
    af_buf_printf(b, "%lld", (long long)a->i);
  } else if (a->kind == IR_ARG_BOOL) {
    af_buf_puts(b, a->i ? "True" : "False");
  } else if (a->kind == IR_ARG_NONE) {
    af_buf_puts(b, "None");
  } else {
    size_t start = b->len;
    codec_put_float(b, a->f);
    if (!strpbrk(b->s + start, ".eEn")) af_buf_puts(b, ".0");
  }
}

/* A value's name in the source: a module buffer is an attribute, `self.NAME`. */
static void emit_name(af_buf *b, const ir_program *p, int v) {
  if (v < p->ninputs && p->inputs[v].buffer) af_buf_puts(b, "self.");
  af_buf_puts(b, p->names[v]);
}

static void emit_index(af_buf *b, const ir_program *p, const ir_arg *a) {
  if (a->n == 0) {
    af_buf_puts(b, "...");
    return;
  }
  for (int k = 0; k < a->n; k++) {
    const ir_index *x = &a->index[k];
    if (k) af_buf_puts(b, ", ");
    switch (x->kind) {
      case IR_IDX_INT: af_buf_printf(b, "%lld", (long long)x->i); break;
      case IR_IDX_NONE: af_buf_puts(b, "None"); break;
      case IR_IDX_ELLIPSIS: af_buf_puts(b, "..."); break;
      case IR_IDX_TENSOR: emit_name(b, p, x->value); break;
      case IR_IDX_SLICE:
        if (x->start_var > 0) emit_name(b, p, x->start_var - 1);
        else if (x->has_start) af_buf_printf(b, "%lld", (long long)x->start);
        af_buf_puts(b, ":");
        if (x->stop_var > 0) emit_name(b, p, x->stop_var - 1);
        else if (x->has_stop) af_buf_printf(b, "%lld", (long long)x->stop);
        if (x->step != 1) af_buf_printf(b, ":%lld", (long long)x->step);
        break;
    }
  }
}

static void emit_arg(af_buf *b, const ir_program *p, const ir_arg *a) {
  switch (a->kind) {
    case IR_ARG_VALUE: emit_name(b, p, a->value); break;
    case IR_ARG_INTS:
      af_buf_puts(b, "[");
      for (int k = 0; k < a->n; k++) {
        if (k) af_buf_puts(b, ", ");
        if (a->values && a->values[k] >= 0)
          emit_name(b, p, a->values[k]);
        else
          af_buf_printf(b, "%lld", (long long)a->ints[k]);
      }
      af_buf_puts(b, "]");
      break;
    case IR_ARG_VALUES:
      af_buf_puts(b, "[");
      for (int k = 0; k < a->n; k++) {
        if (k) af_buf_puts(b, ", ");
        if (a->values[k] < 0)
          af_buf_puts(b, "None");
        else
          emit_name(b, p, a->values[k]);
      }
      af_buf_puts(b, "]");
      break;
    case IR_ARG_INDEX: emit_index(b, p, a); break;
    case IR_ARG_DTYPE: af_buf_puts(b, af_dtype_torch((af_dtype)a->i)); break;
    default: emit_number(b, a); break;
  }
}

/* Whether statement s is a later member of a tuple unpacking (OPF_UNPACK): its name is spelled on
 * member 0's line, and it has no line of its own. */
static int unpack_later(const ir_program *p, int s) {
  const ir_stmt *st = &p->stmts[s];
  return (ops_get(st->op)->flags & OPF_UNPACK) && st->nargs > 1 && st->args[1].i > 0;
}

void emit_stmt(af_buf *b, const ir_program *p, int s) {
  const ir_stmt *st = &p->stmts[s];
  const ops_entry *oe = ops_get(st->op);
  if (unpack_later(p, s)) return;
  if (oe->flags & OPF_UNPACK) { /* `a, b = x.size()`: every member's name (`a, = ...` for one) */
    int64_t n = st->nargs > 2 ? st->args[2].i : 1;
    for (int64_t k = 0; k < n && s + k < p->nstmts; k++) {
      if (k) af_buf_puts(b, ", ");
      emit_name(b, p, p->stmts[s + k].out);
    }
    af_buf_puts(b, n == 1 ? ", = " : " = ");
  } else if (st->out >= 0 && oe->kind != OPS_CTRL) {
    emit_name(b, p, st->out);
    af_buf_puts(b, " = ");
  }
  for (const char *c = oe->spelling; *c; c++) {
    if (c[0] == '$' && c[1] == 'o') { /* the out name (a for loop's variable) */
      af_buf_puts(b, st->out >= 0 ? p->names[st->out] : "_");
      c += 1;
    } else if (c[0] == '$' && c[1] == ':' && c[2] >= '0' && c[2] <= '9') {
      const ir_arg *a = &st->args[c[2] - '0'];
      for (int64_t k = 0; a->kind == IR_ARG_INT && k < a->i; k++) af_buf_puts(b, ":, ");
      c += 2;
    } else if (c[0] == '$' && c[1] == 'f' && c[2] >= '0' && c[2] <= '9') { /* a float literal */
      const ir_arg *a = &st->args[c[2] - '0'];
      if (a->kind == IR_ARG_INT)
        af_buf_printf(b, "%lld.0", (long long)a->i);
      else
        emit_arg(b, p, a);
      c += 2;
    } else if (c[0] == '$' && c[1] >= '0' && c[1] <= '9') {
      const ir_arg *a = &st->args[c[1] - '0'];
      if (oe->argk[c[1] - '0'][0] == 'r' && ops_reduce_name(a->i)) /* a reduction mode: a string literal */
        af_buf_printf(b, "'%s'", ops_reduce_name(a->i));
      else
        emit_arg(b, p, a);
      c += 1;
    } else {
      char ch[2] = {*c, 0};
      af_buf_puts(b, ch);
    }
  }
}

char *emit_torchscript(const ir_program *p, const char *fn) {
  af_buf b = {0};
  /* with module state the program is the forward of an nn.Module and its buffers are attributes */
  int module = ir_nbuffers(p) > 0, first = !module;
  af_buf_printf(&b, "def %s(%s", module ? "forward" : fn, module ? "self" : "");
  for (int i = 0; i < p->ninputs; i++) {
    if (p->inputs[i].buffer) continue;
    af_buf_printf(&b, "%s%s: Tensor", first ? "" : ", ", p->names[p->inputs[i].value]);
    first = 0;
  }
  if (p->noutputs == 0) {
    af_buf_puts(&b, ") -> None:\n");
  } else if (p->noutputs == 1) {
    af_buf_puts(&b, ") -> Tensor:\n");
  } else {
    af_buf_puts(&b, ") -> Tuple[");
    for (int o = 0; o < p->noutputs; o++) af_buf_puts(&b, o ? ", Tensor" : "Tensor");
    af_buf_puts(&b, "]:\n");
  }
  int depth = 1, empty = 0; /* empty: the innermost block has no statement yet */
  for (int s = 0; s < p->nstmts; s++) {
    int op = p->stmts[s].op;
    if (op == OPS_else && s + 1 < p->nstmts && p->stmts[s + 1].op == OPS_end) continue; /* an empty else */
    if (unpack_later(p, s)) continue; /* spelled on its member 0's line */
    if (op == OPS_else || op == OPS_end) {
      if (empty) af_buf_printf(&b, "%*spass\n", 4 * depth, "");
      depth--;
      empty = 0;
      if (op == OPS_end) continue;
    }
    af_buf_printf(&b, "%*s", 4 * depth, "");
    emit_stmt(&b, p, s);
    af_buf_puts(&b, "\n");
    empty = ir_block_opener(op) || op == OPS_else;
    if (empty) depth++;
  }
  if (p->noutputs == 0) {
    af_buf_puts(&b, "    return None\n");
  } else {
    af_buf_puts(&b, "    return ");
    if (p->noutputs > 1) af_buf_puts(&b, "(");
    for (int o = 0; o < p->noutputs; o++) {
      if (o) af_buf_puts(&b, ", ");
      emit_name(&b, p, p->outputs[o]);
    }
    if (p->noutputs > 1) af_buf_puts(&b, ")");
    af_buf_puts(&b, "\n");
  }
  return af_buf_take(&b);
}
