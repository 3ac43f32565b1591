/* codec.c - strict JSON reader and canonical writer for programs. */
#include "codec.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops.h"

/* ------------------------------------------------------------------ reading */

static int is_int(const cJSON *j, int64_t *out) {
  if (!cJSON_IsNumber(j)) return 0;
  double d = j->valuedouble;
  if (!isfinite(d) || d != floor(d) || fabs(d) > 9007199254740992.0) return 0;
  *out = (int64_t)d;
  return 1;
}

static int check_keys(const cJSON *obj, const char *const *allowed, af_err *err) {
  for (const cJSON *c = obj->child; c; c = c->next) {
    int ok = 0;
    for (int i = 0; allowed[i]; i++)
      if (strcmp(c->string, allowed[i]) == 0) ok = 1;
    if (!ok) return af_fail(err, "unknown field \"%s\"", c->string);
  }
  return 0;
}

static int read_value_name(const ir_program *p, const cJSON *j, int *out, af_err *err) {
  if (!cJSON_IsString(j)) return af_fail(err, "expected a value name (string)");
  int v = ir_find_value(p, j->valuestring);
  if (v < 0) return af_fail(err, "undefined value \"%s\"", j->valuestring);
  *out = v;
  return 0;
}

static int read_number(const cJSON *j, ir_arg *a, af_err *err) {
  int64_t i;
  if (cJSON_IsBool(j)) {
    a->kind = IR_ARG_BOOL;
    a->i = cJSON_IsTrue(j);
  } else if (is_int(j, &i)) {
    a->kind = IR_ARG_INT;
    a->i = i;
  } else if (cJSON_IsNumber(j)) {
    a->kind = IR_ARG_FLOAT;
    a->f = j->valuedouble;
  } else if (cJSON_IsObject(j) && cJSON_GetArraySize(j) == 1 && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "float"))) {
    a->kind = IR_ARG_FLOAT;
    a->f = cJSON_GetObjectItemCaseSensitive(j, "float")->valuedouble;
  } else {
    return af_fail(err, "expected a number");
  }
  return 0;
}

static int read_slice_bound(const cJSON *j, int *has, int64_t *v) {
  if (cJSON_IsNull(j)) {
    *has = 0;
    return 0;
  }
  *has = 1;
  return is_int(j, v) ? 0 : -1;
}

static int read_index(const ir_program *p, const cJSON *j, ir_arg *a, af_err *err) {
  if (!cJSON_IsArray(j)) return af_fail(err, "expected a subscript list (array)");
  a->kind = IR_ARG_INDEX;
  a->n = cJSON_GetArraySize(j);
  a->index = af_xcalloc((size_t)a->n, sizeof(ir_index));
  int k = 0;
  for (const cJSON *e = j->child; e; e = e->next, k++) {
    ir_index *x = &a->index[k];
    int64_t i;
    if (is_int(e, &i)) {
      x->kind = IR_IDX_INT;
      x->i = i;
    } else if (cJSON_IsNull(e)) {
      x->kind = IR_IDX_NONE;
    } else if (cJSON_IsString(e) && strcmp(e->valuestring, "...") == 0) {
      x->kind = IR_IDX_ELLIPSIS;
    } else if (cJSON_IsString(e)) {
      x->kind = IR_IDX_TENSOR;
      if (read_value_name(p, e, &x->value, err)) goto bad;
    } else if (cJSON_IsObject(e)) {
      const cJSON *sl = cJSON_GetObjectItemCaseSensitive(e, "slice");
      if (!cJSON_IsArray(sl) || cJSON_GetArraySize(sl) != 3 || cJSON_GetArraySize(e) != 1) {
        af_fail(err, "expected {\"slice\": [start, stop, step]}");
        goto bad;
      }
      x->kind = IR_IDX_SLICE;
      if (read_slice_bound(cJSON_GetArrayItem(sl, 0), &x->has_start, &x->start) ||
          read_slice_bound(cJSON_GetArrayItem(sl, 1), &x->has_stop, &x->stop) || !is_int(cJSON_GetArrayItem(sl, 2), &x->step)) {
        af_fail(err, "slice bounds must be integers or null, the step an integer");
        goto bad;
      }
      if (x->step <= 0) {
        af_fail(err, "slice step must be positive, got %lld", (long long)x->step);
        goto bad;
      }
    } else {
      af_fail(err, "expected an int, {\"slice\": [...]}, null, \"...\" or a value name");
      goto bad;
    }
  }
  return 0;
bad:
  af_err_prefix(err, "[%d]", k);
  return -1;
}

static int read_arg(const ir_program *p, const char *code, const cJSON *j, ir_arg *a, af_err *err) {
  memset(a, 0, sizeof *a);
  a->value = -1;
  if (cJSON_IsNull(j) && code[1] == '?') {
    a->kind = IR_ARG_NONE;
    return 0;
  }
  switch (code[0]) {
    case 'T':
    case 'l':
      a->kind = IR_ARG_VALUE;
      return read_value_name(p, j, &a->value, err);
    case 'S':
      if (cJSON_IsString(j)) {
        a->kind = IR_ARG_VALUE;
        return read_value_name(p, j, &a->value, err);
      }
      if (read_number(j, a, err)) return af_fail(err, "expected a value name or a number");
      return 0;
    case 's':
      return read_number(j, a, err);
    case 'i':
      if (cJSON_IsString(j)) { /* a loop variable (ir_validate checks it is one) */
        a->kind = IR_ARG_VALUE;
        return read_value_name(p, j, &a->value, err);
      }
      a->kind = IR_ARG_INT;
      if (!is_int(j, &a->i)) return af_fail(err, code[1] == '?' ? "expected an integer or null" : "expected an integer");
      return 0;
    case 'b':
      a->kind = IR_ARG_BOOL;
      if (!cJSON_IsBool(j)) return af_fail(err, "expected true or false");
      a->i = cJSON_IsTrue(j);
      return 0;
    case 'I': {
      if (!cJSON_IsArray(j)) return af_fail(err, "expected a list of integers");
      a->kind = IR_ARG_INTS;
      a->n = cJSON_GetArraySize(j);
      a->ints = af_xcalloc((size_t)a->n, sizeof(int64_t));
      int k = 0;
      for (const cJSON *e = j->child; e; e = e->next, k++)
        if (!is_int(e, &a->ints[k])) return af_fail(err, "[%d]: expected an integer", k);
      return 0;
    }
    case 'L':
    case 'O': {
      if (!cJSON_IsArray(j)) return af_fail(err, "expected a list of value names");
      a->kind = IR_ARG_VALUES;
      a->n = cJSON_GetArraySize(j);
      a->values = af_xcalloc((size_t)a->n, sizeof(int));
      int k = 0;
      for (const cJSON *e = j->child; e; e = e->next, k++)
        if (code[0] == 'O' && cJSON_IsNull(e)) /* index lists: null is a whole dimension */
          a->values[k] = -1;
        else if (read_value_name(p, e, &a->values[k], err)) {
          af_err_prefix(err, "[%d]", k);
          return -1;
        }
      return 0;
    }
    case 'X':
      return read_index(p, j, a, err);
  }
  return af_fail(err, "op table has unknown schema code '%s'", code);
}

static int read_shape(const cJSON *j, ir_input *in, af_err *err) {
  if (!cJSON_IsArray(j)) return af_fail(err, "expected a list of dimension sizes");
  int n = cJSON_GetArraySize(j);
  if (n > AF_MAX_RANK) return af_fail(err, "rank %d is over the limit of %d", n, AF_MAX_RANK);
  in->rank = n;
  int k = 0;
  for (const cJSON *e = j->child; e; e = e->next, k++)
    if (!is_int(e, &in->shape[k]) || in->shape[k] < 0 || in->shape[k] > (1 << 20))
      return af_fail(err, "[%d]: expected a dimension size 0..%d", k, 1 << 20);
  if (ir_numel(in->rank, in->shape) > (1 << 22)) return af_fail(err, "more than %d elements", 1 << 22);
  return 0;
}

static int read_inputs(ir_program *p, const cJSON *j, af_err *err) {
  static const char *const keys[] = {"name", "shape", "dtype", "data", "buffer", NULL};
  if (!cJSON_IsArray(j)) return af_fail(err, "inputs: expected an array");
  int k = 0;
  for (const cJSON *e = j->child; e; e = e->next, k++) {
    if (!cJSON_IsObject(e)) return af_fail(err, "inputs[%d]: expected an object", k);
    if (check_keys(e, keys, err)) goto bad;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(e, "data");
    ir_input tmp = {0};
    if (!cJSON_IsString(name)) {
      af_fail(err, "name: expected a string");
      goto bad;
    }
    if (!ir_name_ok(name->valuestring)) {
      af_fail(err, "name: \"%s\" is not a usable identifier", name->valuestring);
      goto bad;
    }
    if (ir_find_value(p, name->valuestring) >= 0) {
      af_fail(err, "name: \"%s\" is defined twice", name->valuestring);
      goto bad;
    }
    if (read_shape(cJSON_GetObjectItemCaseSensitive(e, "shape"), &tmp, err)) {
      af_err_prefix(err, "shape");
      goto bad;
    }
    if (!cJSON_IsString(dtype) || af_dtype_parse(dtype->valuestring, &tmp.dtype)) {
      af_fail(err, "dtype: expected one of float32, float64, int64, bool");
      goto bad;
    }
    int v = ir_add_input(p, name->valuestring, tmp.rank, tmp.shape, tmp.dtype);
    ir_input *in = &p->inputs[v];
    const cJSON *buffer = cJSON_GetObjectItemCaseSensitive(e, "buffer");
    if (buffer && !cJSON_IsBool(buffer)) {
      af_fail(err, "buffer: expected true or false");
      goto bad;
    }
    in->buffer = buffer && cJSON_IsTrue(buffer);
    if (data) {
      if (!cJSON_IsArray(data) || cJSON_GetArraySize(data) == 0) {
        af_fail(err, "data: expected a non-empty array of numbers");
        goto bad;
      }
      in->ndata = cJSON_GetArraySize(data);
      in->data = af_xcalloc((size_t)in->ndata, sizeof(double));
      int d = 0;
      for (const cJSON *x = data->child; x; x = x->next, d++) {
        if (!cJSON_IsNumber(x) && !cJSON_IsBool(x)) {
          af_fail(err, "data[%d]: expected a number", d);
          goto bad;
        }
        in->data[d] = cJSON_IsBool(x) ? cJSON_IsTrue(x) : x->valuedouble;
      }
    }
  }
  return 0;
bad:
  af_err_prefix(err, "inputs[%d]", k);
  return -1;
}

static int read_block(ir_program *p, const cJSON *j, const char *where, af_err *err);

/* One statement; if/for read their nested blocks and end with an `end` marker. */
static int read_stmt(ir_program *p, const cJSON *e, af_err *err) {
  static const char *const keys[] = {"out", "op", "args", NULL};
  static const char *const if_keys[] = {"op", "args", "then", "else", NULL};
  static const char *const for_keys[] = {"out", "op", "args", "body", NULL};
  ir_arg args[OPS_MAX_ARGS];
  int nargs = 0;
  if (!cJSON_IsObject(e)) return af_fail(err, "expected an object");
  const cJSON *opj = cJSON_GetObjectItemCaseSensitive(e, "op");
  const cJSON *argsj = cJSON_GetObjectItemCaseSensitive(e, "args");
  const cJSON *outj = cJSON_GetObjectItemCaseSensitive(e, "out");
  if (!cJSON_IsString(opj)) return af_fail(err, "op: expected an op name (string)");
  int op = ops_find(opj->valuestring);
  if (op < 0 || op == OPS_else || op == OPS_end)
    return af_fail(err, "op: unknown op \"%s\" (see `aliasfuzz ops`; blocks nest: \"then\"/\"else\"/\"body\")", opj->valuestring);
  if (check_keys(e, op == OPS_if ? if_keys : op == OPS_for ? for_keys : keys, err)) return -1;
  const ops_entry *oe = ops_get(op);
  if (!cJSON_IsArray(argsj)) return af_fail(err, "args: expected an array");
  int n = cJSON_GetArraySize(argsj);
  if (n != oe->nargs) return af_fail(err, "args: %s takes %d arguments (%s), got %d", oe->name, oe->nargs, oe->schema, n);
  for (const cJSON *a = argsj->child; a; a = a->next, nargs++)
    if (read_arg(p, oe->argk[nargs], a, &args[nargs], err)) {
      nargs++;
      af_err_prefix(err, "args[%d] (%s)", nargs - 1, oe->name);
      goto bad;
    }
  int out = -1;
  if (outj) {
    if (!cJSON_IsString(outj)) {
      af_fail(err, "out: expected a value name (string)");
      goto bad;
    }
    if (!ir_name_ok(outj->valuestring)) {
      af_fail(err, "out: \"%s\" is not a usable identifier", outj->valuestring);
      goto bad;
    }
    out = ir_find_value(p, outj->valuestring); /* a name in use: a rebind (ir_validate checks scopes) */
    if (out < 0) out = ir_add_value(p, outj->valuestring);
  } else if (op == OPS_for) {
    af_fail(err, "out: a for loop needs its loop variable's name");
    goto bad;
  }
  ir_add_stmt(p, op, out, nargs, args);
  for (int a = 0; a < nargs; a++) ir_arg_free(&args[a]);
  if (op == OPS_if) {
    const cJSON *elsej = cJSON_GetObjectItemCaseSensitive(e, "else");
    if (read_block(p, cJSON_GetObjectItemCaseSensitive(e, "then"), "then", err)) return -1;
    if (elsej) {
      ir_add_stmt(p, OPS_else, -1, 0, NULL);
      if (read_block(p, elsej, "else", err)) return -1;
    }
    ir_add_stmt(p, OPS_end, -1, 0, NULL);
  } else if (op == OPS_for) {
    if (read_block(p, cJSON_GetObjectItemCaseSensitive(e, "body"), "body", err)) return -1;
    ir_add_stmt(p, OPS_end, -1, 0, NULL);
  }
  return 0;
bad:
  for (int a = 0; a < nargs; a++) ir_arg_free(&args[a]);
  return -1;
}

static int read_block(ir_program *p, const cJSON *j, const char *where, af_err *err) {
  if (!cJSON_IsArray(j)) return af_fail(err, "%s: expected an array of statements", where);
  int k = 0;
  for (const cJSON *e = j->child; e; e = e->next, k++)
    if (read_stmt(p, e, err)) {
      af_err_prefix(err, "%s[%d]", where, k);
      return -1;
    }
  return 0;
}

static int read_body(ir_program *p, const cJSON *j, af_err *err) { return read_block(p, j, "body", err); }

int codec_read_string(const char *text, const char *where, ir_program **out, af_err *err) {
  static const char *const keys[] = {"format", "inputs", "body", "outputs", "meta", NULL};
  *out = NULL;
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  ir_program *p = NULL;
  if (!root) {
    size_t off = end ? (size_t)(end - text) : 0;
    int line = 1, col = 1;
    for (size_t i = 0; i < off && text[i]; i++, col++)
      if (text[i] == '\n') line++, col = 0;
    af_fail(err, "%s: line %d, column %d: malformed JSON (%s)", where, line, col,
            off >= strlen(text) ? "truncated file" : "syntax error");
    return -1;
  }
  if (!cJSON_IsObject(root)) {
    af_fail(err, "%s: expected a JSON object at the top level", where);
    goto fail;
  }
  if (check_keys(root, keys, err)) {
    af_err_prefix(err, "%s", where);
    goto fail;
  }
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
  if (!cJSON_IsString(fmt)) {
    af_fail(err, "%s: format: missing; expected \"%s\"", where, CODEC_FORMAT);
    goto fail;
  }
  if (strcmp(fmt->valuestring, CODEC_FORMAT) != 0) {
    af_fail(err, "%s: format: unsupported version \"%s\"; expected \"%s\"", where, fmt->valuestring, CODEC_FORMAT);
    goto fail;
  }
  p = ir_program_new();
  if (read_inputs(p, cJSON_GetObjectItemCaseSensitive(root, "inputs"), err) ||
      read_body(p, cJSON_GetObjectItemCaseSensitive(root, "body"), err)) {
    af_err_prefix(err, "%s", where);
    goto fail;
  }
  const cJSON *outs = cJSON_GetObjectItemCaseSensitive(root, "outputs");
  if (!cJSON_IsArray(outs)) {
    af_fail(err, "%s: outputs: expected an array of value names", where);
    goto fail;
  }
  p->noutputs = cJSON_GetArraySize(outs);
  p->outputs = af_xcalloc((size_t)p->noutputs, sizeof(int));
  int k = 0;
  for (const cJSON *o = outs->child; o; o = o->next, k++)
    if (read_value_name(p, o, &p->outputs[k], err)) {
      af_err_prefix(err, "%s: outputs[%d]", where, k);
      goto fail;
    }
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "meta");
  if (meta) {
    if (!cJSON_IsObject(meta)) {
      af_fail(err, "%s: meta: expected an object", where);
      goto fail;
    }
    char *m = cJSON_PrintUnformatted(meta);
    ir_set_meta(p, m);
    cJSON_free(m);
  }
  if (ir_validate(p, err)) {
    af_err_prefix(err, "%s", where);
    goto fail;
  }
  cJSON_Delete(root);
  *out = p;
  return 0;
fail:
  cJSON_Delete(root);
  ir_program_free(p);
  return -1;
}

char *codec_slurp(const char *path, size_t *len, af_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    af_fail(err, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  af_buf b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk - 1, f)) > 0) {
    chunk[n] = 0;
    if (memchr(chunk, 0, n)) {
      fclose(f);
      af_buf_free(&b);
      af_fail(err, "%s: binary data (NUL byte) where JSON was expected", path);
      return NULL;
    }
    af_buf_puts(&b, chunk);
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    af_buf_free(&b);
    af_fail(err, "%s: read error", path);
    return NULL;
  }
  if (len) *len = b.len;
  return af_buf_take(&b);
}

int codec_read_file(const char *path, ir_program **out, af_err *err) {
  char *text = codec_slurp(path, NULL, err);
  if (!text) return -1;
  int rc = codec_read_string(text, path, out, err);
  free(text);
  return rc;
}

/* ------------------------------------------------------------------ writing */

void codec_put_float(af_buf *b, double f) {
  char tmp[64];
  if (!isfinite(f)) {
    /* JSON has no inf/nan: clamp to a large finite value (generators never produce these). */
    f = isnan(f) ? 0.0 : (f > 0 ? 1e308 : -1e308);
  }
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, f);
    if (strtod(tmp, NULL) == f) break;
  }
  af_buf_puts(b, tmp);
}

static void put_string(af_buf *b, const char *s) {
  cJSON *j = cJSON_CreateString(s);
  char *t = cJSON_PrintUnformatted(j);
  af_buf_puts(b, t);
  cJSON_free(t);
  cJSON_Delete(j);
}

static void put_arg(af_buf *b, const ir_program *p, const ir_arg *a) {
  switch (a->kind) {
    case IR_ARG_VALUE:
      put_string(b, p->names[a->value]);
      break;
    case IR_ARG_INT:
      af_buf_printf(b, "%lld", (long long)a->i);
      break;
    case IR_ARG_FLOAT:
      if (isfinite(a->f) && a->f == floor(a->f)) {
        af_buf_puts(b, "{\"float\": ");
        codec_put_float(b, a->f);
        af_buf_puts(b, "}");
      } else {
        codec_put_float(b, a->f);
      }
      break;
    case IR_ARG_BOOL:
      af_buf_puts(b, a->i ? "true" : "false");
      break;
    case IR_ARG_NONE:
      af_buf_puts(b, "null");
      break;
    case IR_ARG_INTS:
      af_buf_puts(b, "[");
      for (int k = 0; k < a->n; k++) af_buf_printf(b, "%s%lld", k ? ", " : "", (long long)a->ints[k]);
      af_buf_puts(b, "]");
      break;
    case IR_ARG_VALUES:
      af_buf_puts(b, "[");
      for (int k = 0; k < a->n; k++) {
        if (k) af_buf_puts(b, ", ");
        if (a->values[k] < 0)
          af_buf_puts(b, "null");
        else
          put_string(b, p->names[a->values[k]]);
      }
      af_buf_puts(b, "]");
      break;
    case IR_ARG_INDEX:
      af_buf_puts(b, "[");
      for (int k = 0; k < a->n; k++) {
        const ir_index *x = &a->index[k];
        if (k) af_buf_puts(b, ", ");
        switch (x->kind) {
          case IR_IDX_INT: af_buf_printf(b, "%lld", (long long)x->i); break;
          case IR_IDX_NONE: af_buf_puts(b, "null"); break;
          case IR_IDX_ELLIPSIS: af_buf_puts(b, "\"...\""); break;
          case IR_IDX_TENSOR: put_string(b, p->names[x->value]); break;
          case IR_IDX_SLICE:
            af_buf_puts(b, "{\"slice\": [");
            if (x->has_start) af_buf_printf(b, "%lld", (long long)x->start); else af_buf_puts(b, "null");
            af_buf_puts(b, ", ");
            if (x->has_stop) af_buf_printf(b, "%lld", (long long)x->stop); else af_buf_puts(b, "null");
            af_buf_printf(b, ", %lld]}", (long long)x->step);
            break;
        }
      }
      af_buf_puts(b, "]");
      break;
  }
}

/* Statements from *s to the end of the block (an else/end marker, consumed, or the program's
 * end), one per line at indent; if/for nest their blocks. */
static void write_block(af_buf *b, const ir_program *p, int *s, int indent) {
  int first = 1;
  while (*s < p->nstmts) {
    const ir_stmt *st = &p->stmts[*s];
    if (st->op == OPS_else || st->op == OPS_end) return;
    af_buf_printf(b, "%s\n%*s{", first ? "" : ",", indent, "");
    first = 0;
    if (st->out >= 0) {
      af_buf_puts(b, "\"out\": ");
      put_string(b, p->names[st->out]);
      af_buf_puts(b, ", ");
    }
    af_buf_printf(b, "\"op\": \"%s\", \"args\": [", ops_get(st->op)->name);
    for (int a = 0; a < st->nargs; a++) {
      if (a) af_buf_puts(b, ", ");
      put_arg(b, p, &st->args[a]);
    }
    af_buf_puts(b, "]");
    (*s)++;
    if (st->op == OPS_if || st->op == OPS_for) {
      af_buf_puts(b, st->op == OPS_if ? ", \"then\": [" : ", \"body\": [");
      size_t mark = b->len;
      write_block(b, p, s, indent + 2);
      af_buf_printf(b, b->len > mark ? "\n%*s]" : "]", indent, "");
      if (*s < p->nstmts && p->stmts[*s].op == OPS_else) {
        (*s)++;
        af_buf_puts(b, ", \"else\": [");
        mark = b->len;
        write_block(b, p, s, indent + 2);
        af_buf_printf(b, b->len > mark ? "\n%*s]" : "]", indent, "");
      }
      if (*s < p->nstmts) (*s)++; /* end */
    }
    af_buf_puts(b, "}");
  }
}

char *codec_write_string(const ir_program *p) {
  af_buf b = {0};
  af_buf_puts(&b, "{\n  \"format\": \"" CODEC_FORMAT "\",\n  \"inputs\": [");
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    af_buf_puts(&b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
    put_string(&b, p->names[in->value]);
    af_buf_puts(&b, ", \"shape\": [");
    for (int d = 0; d < in->rank; d++) af_buf_printf(&b, "%s%lld", d ? ", " : "", (long long)in->shape[d]);
    af_buf_printf(&b, "], \"dtype\": \"%s\"", af_dtype_name(in->dtype));
    if (in->buffer) af_buf_puts(&b, ", \"buffer\": true");
    if (in->ndata) {
      af_buf_puts(&b, ", \"data\": [");
      for (int64_t k = 0; k < in->ndata; k++) {
        if (k) af_buf_puts(&b, ", ");
        codec_put_float(&b, in->data[k]);
      }
      af_buf_puts(&b, "]");
    }
    af_buf_puts(&b, "}");
  }
  af_buf_puts(&b, p->ninputs ? "\n  ],\n  \"body\": [" : "],\n  \"body\": [");
  int s = 0;
  write_block(&b, p, &s, 4);
  af_buf_puts(&b, p->nstmts ? "\n  ],\n  \"outputs\": [" : "],\n  \"outputs\": [");
  for (int o = 0; o < p->noutputs; o++) {
    if (o) af_buf_puts(&b, ", ");
    put_string(&b, p->names[p->outputs[o]]);
  }
  af_buf_puts(&b, "]");
  if (p->meta) {
    /* meta may have been built by hand: print it compact so the file stays canonical */
    cJSON *m = cJSON_Parse(p->meta);
    char *t = m ? cJSON_PrintUnformatted(m) : NULL;
    af_buf_puts(&b, ",\n  \"meta\": ");
    af_buf_puts(&b, t ? t : "{}");
    cJSON_free(t);
    cJSON_Delete(m);
  }
  af_buf_puts(&b, "\n}\n");
  return af_buf_take(&b);
}

int codec_write_atomic(const char *path, const char *data, size_t len, af_err *err) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) return af_fail(err, "%s: cannot create: %s", tmp, strerror(errno));
  size_t w = fwrite(data, 1, len, f);
  int bad = (w != len) | (fflush(f) != 0);
  bad |= fsync(fileno(f)) != 0;
  bad |= fclose(f) != 0;
  if (bad) {
    int e = errno;
    unlink(tmp);
    return af_fail(err, "%s: write failed: %s", path, strerror(e));
  }
  if (rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return af_fail(err, "%s: rename failed: %s", path, strerror(e));
  }
  return 0;
}

int codec_write_file(const ir_program *p, const char *path, af_err *err) {
  char *s = codec_write_string(p);
  int rc = codec_write_atomic(path, s, strlen(s), err);
  free(s);
  return rc;
}
