/* codec.c - strict JSON reader and canonical writer for programs. */
#include "codec.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/ops.h"

#define STR_(x) #x
#define AF_STR(x) STR_(x)

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

/* A slice bound: null, an integer, or the name of an int value (*var: its id + 1). */
static int read_slice_bound(const ir_program *p, const cJSON *j, int *has, int64_t *v, int *var) {
  *var = 0;
  if (cJSON_IsNull(j)) {
    *has = 0;
    return 0;
  }
  *has = 1;
  if (cJSON_IsString(j)) {
    int id = ir_find_value(p, j->valuestring);
    if (id < 0) return -1;
    *var = id + 1;
    return 0;
  }
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
      if (read_slice_bound(p, cJSON_GetArrayItem(sl, 0), &x->has_start, &x->start, &x->start_var) ||
          read_slice_bound(p, cJSON_GetArrayItem(sl, 1), &x->has_stop, &x->stop, &x->stop_var) ||
          !is_int(cJSON_GetArrayItem(sl, 2), &x->step)) {
        af_fail(err, "slice bounds must be integers, null or the names of int values defined before, the step an integer");
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
  if (cJSON_IsArray(j) && cJSON_GetArraySize(j) > CODEC_MAX_LIST)
    return af_fail(err, "a list of %d elements (the limit is %d)", cJSON_GetArraySize(j), CODEC_MAX_LIST);
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
      if (cJSON_IsString(j)) { /* an int value (ir_validate checks it is one) */
        a->kind = IR_ARG_VALUE;
        return read_value_name(p, j, &a->value, err);
      }
      return read_number(j, a, err);
    case 'i':
      if (cJSON_IsString(j)) { /* a loop variable (ir_validate checks it is one) */
        a->kind = IR_ARG_VALUE;
        return read_value_name(p, j, &a->value, err);
      }
      a->kind = IR_ARG_INT;
      if (!is_int(j, &a->i)) return af_fail(err, code[1] == '?' ? "expected an integer or null" : "expected an integer");
      return 0;
    case 'd': {
      const cJSON *d = cJSON_IsObject(j) && cJSON_GetArraySize(j) == 1 ? cJSON_GetObjectItemCaseSensitive(j, "dtype") : NULL;
      af_dtype dt;
      if (!cJSON_IsString(d) || af_dtype_parse(d->valuestring, &dt))
        return af_fail(err, "expected {\"dtype\": NAME}, NAME one of %s, complex64, complex128", af_dtype_names());
      a->kind = IR_ARG_DTYPE;
      a->i = dt;
      return 0;
    }
    case 'r':
      a->kind = IR_ARG_INT;
      a->i = cJSON_IsString(j) ? ops_reduce_find(j->valuestring) : -1;
      if (a->i < 0) return af_fail(err, "expected a reduction mode: \"sum\", \"prod\", \"mean\", \"amax\" or \"amin\"");
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
      for (const cJSON *e = j->child; e; e = e->next, k++) {
        if (cJSON_IsString(e)) { /* an int value (ir_validate checks it is one) */
          if (!a->values) {
            a->values = af_xcalloc((size_t)a->n, sizeof(int));
            for (int q = 0; q < a->n; q++) a->values[q] = -1;
          }
          if (read_value_name(p, e, &a->values[k], err))
            return af_fail(err, "[%d]: expected an integer or the name of an int value; \"%s\" is not defined", k, e->valuestring);
          continue;
        }
        if (!is_int(e, &a->ints[k])) return af_fail(err, "[%d]: expected an integer or the name of an int value", k);
      }
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

/* ---- layouts (issue 16): hidden bases, and inputs that view a storage ---- */

/* Explicit values ("data") of a tensor of dtype dt with limit elements: numbers the dtype holds
 * exactly (an int dtype: integers in its range, int64 within +-2^53 where a double is exact, since
 * C's conversion of 1e30 or 1.5 to an integer is undefined; bool: 0, 1, true, false). A list
 * shorter than the tensor repeats; a longer one is refused. what names the limit ("the shape"). */
static int read_data(const cJSON *data, af_dtype dt, int64_t limit, const char *what, int64_t *n, double **out, af_err *err) {
  if (!cJSON_IsArray(data) || cJSON_GetArraySize(data) == 0) return af_fail(err, "data: expected a non-empty array of numbers");
  int64_t len = cJSON_GetArraySize(data);
  if (len > limit)
    return af_fail(err, "data: %lld values for %lld elements (%s); a list may be shorter (it repeats), not longer", (long long)len,
                   (long long)limit, what);
  double lo = 0, hi = 1; /* bool */
  if (dt == AF_UINT8) hi = 255;
  else if (dt == AF_INT8) lo = -128, hi = 127;
  else if (dt == AF_INT32) lo = -2147483648.0, hi = 2147483647.0;
  else if (dt == AF_INT64) lo = -9007199254740992.0, hi = 9007199254740992.0;
  int integral = dt == AF_BOOL || af_dtype_is_int(dt);
  double *v = af_xcalloc((size_t)len, sizeof(double));
  int d = 0;
  for (const cJSON *x = data->child; x; x = x->next, d++) {
    if (!cJSON_IsNumber(x) && !cJSON_IsBool(x)) {
      free(v);
      return af_fail(err, "data[%d]: expected a number", d);
    }
    v[d] = cJSON_IsBool(x) ? cJSON_IsTrue(x) : x->valuedouble;
    if (integral && (v[d] != floor(v[d]) || v[d] < lo || v[d] > hi)) {
      double bad = v[d];
      free(v);
      return af_fail(err, "data[%d]: %g is not a value of dtype %s (integers %.0f..%.0f%s)", d, bad, af_dtype_name(dt), lo, hi,
                     dt == AF_INT64 ? ", where a double is exact" : "");
    }
  }
  *n = len;
  *out = v;
  return 0;
}

static int read_bases(ir_program *p, const cJSON *j, af_err *err) {
  static const char *const keys[] = {"name", "size", "dtype", "data", "requires_grad", NULL};
  if (!j) return 0;
  if (!cJSON_IsArray(j)) return af_fail(err, "bases: expected an array");
  int k = 0;
  for (const cJSON *e = j->child; e; e = e->next, k++) {
    if (!cJSON_IsObject(e)) return af_fail(err, "bases[%d]: expected an object", k);
    if (check_keys(e, keys, err)) goto bad;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(e, "data");
    int64_t size = 0;
    af_dtype dt;
    if (!cJSON_IsString(name) || !ir_name_ok(name->valuestring)) {
      af_fail(err, "name: expected an identifier");
      goto bad;
    }
    for (int b = 0; b < p->nbases; b++)
      if (!strcmp(p->bases[b].name, name->valuestring)) {
        af_fail(err, "name: \"%s\" is defined twice", name->valuestring);
        goto bad;
      }
    if (!is_int(cJSON_GetObjectItemCaseSensitive(e, "size"), &size) || size < 1 || size > (1 << 22)) {
      af_fail(err, "size: expected the number of elements, 1..%d", 1 << 22);
      goto bad;
    }
    if (!cJSON_IsString(dtype) || af_dtype_parse_real(dtype->valuestring, &dt)) {
      af_fail(err, "dtype: expected one of %s (complex values come from torch.view_as_complex inside the program)", af_dtype_names());
      goto bad;
    }
    const cJSON *rg = cJSON_GetObjectItemCaseSensitive(e, "requires_grad");
    if (rg && !cJSON_IsBool(rg)) {
      af_fail(err, "requires_grad: expected true or false");
      goto bad;
    }
    int b = ir_add_base(p, name->valuestring, -1, size, dt);
    p->bases[b].grad = cJSON_IsTrue(rg);
    if (data && read_data(data, dt, size, "the size", &p->bases[b].ndata, &p->bases[b].data, err)) goto bad;
  }
  return 0;
bad:
  af_err_prefix(err, "bases[%d]", k);
  return -1;
}

/* The storage "view_of" names: a hidden base, or an earlier input (which then lies in a storage
 * of its own, if it did not already). */
static int layout_base(ir_program *p, const cJSON *v, int *base, af_err *err) {
  if (!cJSON_IsString(v)) return af_fail(err, "view_of: expected the name of an earlier input or of a base");
  for (int b = 0; b < p->nbases; b++)
    if (p->bases[b].owner < 0 && !strcmp(p->bases[b].name, v->valuestring)) return *base = b, 0;
  int j = ir_find_value(p, v->valuestring);
  if (j < 0 || j >= p->ninputs) return af_fail(err, "view_of: \"%s\" names no earlier input and no base", v->valuestring);
  ir_input *o = &p->inputs[j];
  if (o->buffer) return af_fail(err, "view_of: \"%s\" is a module buffer", v->valuestring);
  if (!o->base) {
    int64_t n = ir_numel(o->rank, o->shape), st[AF_MAX_RANK];
    if (n < 1) return af_fail(err, "view_of: \"%s\" has no elements", v->valuestring);
    ir_contiguous_strides(o->rank, o->shape, st);
    ir_set_layout(p, j, ir_add_base(p, p->names[j], j, n, o->dtype), st, 0);
  }
  *base = p->inputs[j].base - 1;
  return 0;
}

/* "as": one view op ["slice", 0, 1, 3, 1] or a chain [["t"], ["slice", 0, 1, 3, 1]], applied
 * to the layout of what view_of names (a base: its flat storage). */
static int read_as(const ir_program *p, const cJSON *as, int base, const cJSON *view_of, int *rank, int64_t *shape,
                   int64_t *strides, int64_t *offset, af_err *err) {
  int j = p->bases[base].owner < 0 ? -1 : ir_find_value(p, view_of->valuestring);
  const ir_input *o = j >= 0 && j < p->ninputs - 1 ? &p->inputs[j] : NULL;
  if (o) {
    *rank = o->rank;
    memcpy(shape, o->shape, sizeof(int64_t) * (size_t)o->rank);
    memcpy(strides, o->strides, sizeof(int64_t) * (size_t)o->rank);
    *offset = o->offset;
  } else {
    *rank = 1, shape[0] = p->bases[base].numel, strides[0] = 1, *offset = 0;
  }
  if (!cJSON_IsArray(as) || !as->child) return af_fail(err, "as: expected a view op and its arguments, [\"slice\", 0, 1, 3, 1]");
  int chain = cJSON_IsArray(as->child);
  int step = 0;
  for (const cJSON *op = chain ? as->child : as; op; op = chain ? op->next : NULL, step++) {
    ir_arg args[8];
    int n = 0, rc = 0;
    memset(args, 0, sizeof args);
    if (!cJSON_IsArray(op) || !cJSON_IsString(op->child)) {
      rc = af_fail(err, "expected [\"op\", args...]");
    } else {
      for (const cJSON *a = op->child->next; a && !rc; a = a->next, n++) {
        if (n >= 8) {
          rc = af_fail(err, "too many arguments");
        } else if (cJSON_IsArray(a)) {
          args[n].kind = IR_ARG_INTS;
          args[n].n = cJSON_GetArraySize(a);
          args[n].ints = af_xcalloc((size_t)args[n].n + 1, sizeof(int64_t));
          int k = 0;
          for (const cJSON *x = a->child; x && !rc; x = x->next, k++)
            if (!is_int(x, &args[n].ints[k])) rc = af_fail(err, "argument %d: expected ints", n);
        } else if (!is_int(a, &args[n].i)) {
          rc = af_fail(err, "argument %d: expected an int or a list of ints", n);
        } else {
          args[n].kind = IR_ARG_INT;
        }
      }
      if (!rc) rc = ir_layout_apply(op->child->valuestring, n, args, rank, shape, strides, offset, err);
    }
    for (int k = 0; k < 8; k++) ir_arg_free(&args[k]);
    if (rc) {
      if (chain) af_err_prefix(err, "[%d]", step);
      af_err_prefix(err, "as");
      return -1;
    }
  }
  return 0;
}

static int read_ints(const cJSON *j, int n, int64_t *out, const char *what, af_err *err) {
  if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) != n) return af_fail(err, "%s: expected %d ints (one per dimension)", what, n);
  int k = 0;
  for (const cJSON *x = j->child; x; x = x->next, k++)
    if (!is_int(x, &out[k])) return af_fail(err, "%s[%d]: expected an int", what, k);
  return 0;
}

/* Input v's layout from view_of/as/strides/offset/storage (shape and dtype are read). */
static int read_layout(ir_program *p, int v, const cJSON *e, int base, int has_shape, af_err *err) {
  const cJSON *as = cJSON_GetObjectItemCaseSensitive(e, "as");
  const cJSON *strides = cJSON_GetObjectItemCaseSensitive(e, "strides");
  const cJSON *offset = cJSON_GetObjectItemCaseSensitive(e, "offset");
  const cJSON *storage = cJSON_GetObjectItemCaseSensitive(e, "storage");
  ir_input *in = &p->inputs[v];
  int64_t st[AF_MAX_RANK], off = 0, size = 0;
  if (as && base < 0) return af_fail(err, "as: needs view_of (what the view op is applied to)");
  if (as && (strides || offset || storage)) return af_fail(err, "as: give either as or strides/offset, not both");
  if (base >= 0 && storage) return af_fail(err, "storage: a view's storage is the one view_of names");
  if (base < 0 && !strides && !offset && !storage) return 0; /* a plain input */
  if (as) {
    int rank;
    int64_t sh[AF_MAX_RANK];
    if (read_as(p, as, base, cJSON_GetObjectItemCaseSensitive(e, "view_of"), &rank, sh, st, &off, err)) return -1;
    if (has_shape && (rank != in->rank || memcmp(sh, in->shape, sizeof(int64_t) * (size_t)rank)))
      return af_fail(err, "shape: the view op gives another shape than \"shape\" says");
    in->rank = rank;
    memcpy(in->shape, sh, sizeof(int64_t) * (size_t)rank);
  } else {
    if (strides) {
      if (read_ints(strides, in->rank, st, "strides", err)) return -1;
    } else {
      ir_contiguous_strides(in->rank, in->shape, st);
    }
    if (offset && !is_int(offset, &off)) return af_fail(err, "offset: expected an int (elements into the storage)");
  }
  if (base < 0) { /* strided or offset inside a storage of its own */
    int64_t ext = ir_layout_extent(in->rank, in->shape, st, off);
    if (storage && (!is_int(storage, &size) || size < 1)) return af_fail(err, "storage: expected the storage's size in elements");
    if (!storage) size = ext > 0 ? ext : 1;
    base = ir_add_base(p, p->names[v], v, size, in->dtype);
  }
  ir_set_layout(p, v, base, st, off);
  return 0;
}

/* An input's "requires_grad" and "param" (issue 33): booleans; a param is module state that
 * requires grad, so it takes neither "buffer" nor "requires_grad" besides (ir_validate checks
 * the rest: a training program, a floating-point dtype, no layout). */
static int read_grad(ir_input *in, const cJSON *e, af_err *err) {
  const cJSON *rg = cJSON_GetObjectItemCaseSensitive(e, "requires_grad");
  const cJSON *pa = cJSON_GetObjectItemCaseSensitive(e, "param");
  if (rg && !cJSON_IsBool(rg)) return af_fail(err, "requires_grad: expected true or false");
  if (pa && !cJSON_IsBool(pa)) return af_fail(err, "param: expected true or false");
  if (pa && (in->buffer || rg)) return af_fail(err, "param: a parameter is module state that requires grad: give no \"buffer\" or \"requires_grad\" beside it");
  in->grad = rg && cJSON_IsTrue(rg);
  if (pa && cJSON_IsTrue(pa)) in->param = in->buffer = in->grad = 1;
  return 0;
}

/* An input's "attribute" (issue 29): a boolean; true makes it module state held in a plain tensor
 * attribute (`self.NAME = tensor`, not register_buffer), so it takes neither "buffer" nor "param"
 * beside it. */
static int read_attribute(ir_input *in, const cJSON *e, af_err *err) {
  const cJSON *at = cJSON_GetObjectItemCaseSensitive(e, "attribute");
  if (!at) return 0;
  if (!cJSON_IsBool(at)) return af_fail(err, "attribute: expected true or false");
  if (!cJSON_IsTrue(at)) return 0;
  if (in->buffer || cJSON_GetObjectItemCaseSensitive(e, "param"))
    return af_fail(err, "attribute: a plain tensor attribute is module state of its own kind: give no \"buffer\" or \"param\" beside it");
  in->attr = in->buffer = 1;
  return 0;
}

/* The program's "train" and "loss" (issue 33): train a boolean; loss (only with train: true) one
 * finite weight per output; without it every weight is 1. */
static int read_train(ir_program *p, const cJSON *root, af_err *err) {
  const cJSON *train = cJSON_GetObjectItemCaseSensitive(root, "train");
  const cJSON *loss = cJSON_GetObjectItemCaseSensitive(root, "loss");
  if (train && !cJSON_IsBool(train)) return af_fail(err, "train: expected true or false");
  p->train = train && cJSON_IsTrue(train);
  if (!loss) return 0;
  if (!p->train) return af_fail(err, "loss: loss weights need \"train\": true");
  if (!cJSON_IsArray(loss) || cJSON_GetArraySize(loss) != p->noutputs)
    return af_fail(err, "loss: expected one weight (a number) per output (%d)", p->noutputs);
  p->loss = af_xcalloc((size_t)p->noutputs + 1, sizeof(double));
  int k = 0;
  for (const cJSON *w = loss->child; w; w = w->next, k++) {
    if (!cJSON_IsNumber(w) || !isfinite(w->valuedouble)) return af_fail(err, "loss[%d]: expected a finite number", k);
    p->loss[k] = w->valuedouble;
  }
  return 0;
}

static int read_inputs(ir_program *p, const cJSON *j, af_err *err) {
  static const char *const keys[] = {"name",    "shape", "dtype",  "data",    "buffer",        "view_of", "as",
                                     "strides", "offset", "storage", "param", "requires_grad", "attribute", NULL};
  if (!cJSON_IsArray(j)) return af_fail(err, "inputs: expected an array");
  int k = 0;
  int64_t elements = 0;
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
    int clash = ir_find_value(p, name->valuestring) >= 0;
    for (int b = 0; b < p->nbases; b++) clash |= p->bases[b].owner < 0 && !strcmp(p->bases[b].name, name->valuestring);
    if (clash) {
      af_fail(err, "name: \"%s\" is defined twice", name->valuestring);
      goto bad;
    }
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *view_of = cJSON_GetObjectItemCaseSensitive(e, "view_of");
    int base = -1; /* the storage view_of names, when it does */
    if (view_of && layout_base(p, view_of, &base, err)) goto bad;
    if (base >= 0 && !dtype) tmp.dtype = p->bases[base].dtype;
    if ((shape || !cJSON_GetObjectItemCaseSensitive(e, "as")) && read_shape(shape, &tmp, err)) {
      af_err_prefix(err, "shape");
      goto bad;
    }
    if (base >= 0 && !dtype) {
    } else if (!cJSON_IsString(dtype) || af_dtype_parse_real(dtype->valuestring, &tmp.dtype)) {
      af_fail(err, "dtype: expected one of %s (complex values come from torch.view_as_complex inside the program)", af_dtype_names());
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
    if (read_attribute(in, e, err) || read_grad(in, e, err)) goto bad;
    if (read_layout(p, v, e, base, shape != NULL, err)) goto bad;
    if (data) { /* an input that owns a storage fills all of it */
      const ir_base *B = in->base ? &p->bases[in->base - 1] : NULL;
      int owns = B && B->owner == v;
      if (read_data(data, in->dtype, owns ? B->numel : ir_numel(in->rank, in->shape), owns ? "its storage" : "the shape", &in->ndata,
                    &in->data, err))
        goto bad;
    }
    if ((elements += ir_numel(in->rank, in->shape)) > CODEC_MAX_ELEMENTS) {
      af_fail(err, "shape: the inputs hold more than %d elements in all (the limit of a program)", CODEC_MAX_ELEMENTS);
      goto bad;
    }
  }
  return 0;
bad:
  af_err_prefix(err, "inputs[%d]", k);
  return -1;
}

static int read_block(ir_program *p, const cJSON *j, const char *where, int depth, af_err *err);

/* One statement; if/for read their nested blocks (depth: how many enclose this one) and end with
 * an `end` marker. */
static int read_stmt(ir_program *p, const cJSON *e, int depth, af_err *err) {
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
  static const char *const with_keys[] = {"op", "args", "body", NULL}; /* no_grad (issue 33) */
  if (check_keys(e, op == OPS_if ? if_keys : op == OPS_for ? for_keys : op == OPS_no_grad ? with_keys : keys, err)) return -1;
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
  int need = 1 + ir_block_opener(op) + (op == OPS_if && cJSON_GetObjectItemCaseSensitive(e, "else") != NULL);
  if (p->nstmts + need > CODEC_MAX_STMTS) { /* (a block's else and end markers count) */
    af_fail(err, "more than %d statements (the limit of a program, if/for/else/end counted)", CODEC_MAX_STMTS);
    goto bad;
  }
  if (ir_block_opener(op) && depth >= CODEC_MAX_DEPTH) {
    af_fail(err, "%s: blocks nested more than %d deep (the limit of a program)", oe->name, CODEC_MAX_DEPTH);
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
    if (read_block(p, cJSON_GetObjectItemCaseSensitive(e, "then"), "then", depth + 1, err)) return -1;
    if (elsej) {
      ir_add_stmt(p, OPS_else, -1, 0, NULL);
      if (read_block(p, elsej, "else", depth + 1, err)) return -1;
    }
    ir_add_stmt(p, OPS_end, -1, 0, NULL);
  } else if (op == OPS_for || op == OPS_no_grad) {
    if (read_block(p, cJSON_GetObjectItemCaseSensitive(e, "body"), "body", depth + 1, err)) return -1;
    ir_add_stmt(p, OPS_end, -1, 0, NULL);
  }
  return 0;
bad:
  for (int a = 0; a < nargs; a++) ir_arg_free(&args[a]);
  return -1;
}

static int read_block(ir_program *p, const cJSON *j, const char *where, int depth, af_err *err) {
  if (!cJSON_IsArray(j)) return af_fail(err, "%s: expected an array of statements", where);
  int k = 0;
  for (const cJSON *e = j->child; e; e = e->next, k++)
    if (read_stmt(p, e, depth, err)) {
      af_err_prefix(err, "%s[%d]", where, k);
      return -1;
    }
  return 0;
}

static int read_body(ir_program *p, const cJSON *j, af_err *err) { return read_block(p, j, "body", 0, err); }

/* Line and column (from 1) of offset off in text. */
static void text_pos(const char *text, size_t off, int *line, int *col) {
  *line = 1, *col = 1;
  for (size_t i = 0; i < off && text[i]; i++, (*col)++)
    if (text[i] == '\n') (*line)++, *col = 0;
}

/* What cJSON cannot be trusted with, before it reads text: arrays and objects nested more than
 * CODEC_MAX_NESTING deep (cJSON stops at 1000 and says no more than "syntax error") and \u0000 in
 * a string (cJSON ends the string there: "x\u0000y" would read as the name "x"). Returns the
 * offset of the first problem with *why set, or -1. */
static long prescan(const char *text, const char **why) {
  int depth = 0, in_str = 0;
  for (const char *c = text; *c; c++) {
    if (in_str) {
      if (*c == '\\' && c[1] == 'u' && strncmp(c + 2, "0000", 4) == 0) {
        *why = "\\u0000 (NUL) in a string: a name or text cannot hold it";
        return c - text;
      }
      if (*c == '\\' && c[1]) c++;
      else if (*c == '"') in_str = 0;
    } else if (*c == '"') {
      in_str = 1;
    } else if ((*c == '[' || *c == '{') && ++depth > CODEC_MAX_NESTING) {
      *why = "arrays and objects nested more than " AF_STR(CODEC_MAX_NESTING) " deep (the limit of a program file)";
      return c - text;
    } else if (*c == ']' || *c == '}') {
      depth--;
    }
  }
  return -1;
}

static int by_key(const void *a, const void *b) { return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string); }

/* Every object of the document names each field once (cJSON keeps both and reads the first), and
 * every number is finite (cJSON reads 1e400 as infinity, which no writer gives back: JSON has no
 * infinity). path: where j is ("inputs[0].data"), grown and restored here. */
static int check_tree(const cJSON *j, af_buf *path, af_err *err) {
  if (cJSON_IsNumber(j) && !isfinite(j->valuedouble))
    return af_fail(err, "%s: a number beyond the range of a double (it would read as infinity)", path->s ? path->s : "");
  if (cJSON_IsObject(j) && j->child && j->child->next) {
    int n = cJSON_GetArraySize(j), k = 0;
    const cJSON **keys = af_xcalloc((size_t)n, sizeof(cJSON *));
    for (const cJSON *c = j->child; c; c = c->next) keys[k++] = c;
    qsort(keys, (size_t)n, sizeof(cJSON *), by_key);
    for (k = 1; k < n && strcmp(keys[k - 1]->string, keys[k]->string) != 0; k++) {
    }
    const char *dup = k < n ? keys[k]->string : NULL;
    free(keys);
    if (dup) return af_fail(err, "%s%s\"%s\": the field is given twice", path->s ? path->s : "", path->len ? ": " : "", dup);
  }
  size_t mark = path->len;
  int k = 0;
  for (const cJSON *c = j->child; c; c = c->next, k++) {
    if (cJSON_IsObject(j)) af_buf_printf(path, "%s%s", mark ? "." : "", c->string);
    else af_buf_printf(path, "[%d]", k);
    int rc = check_tree(c, path, err);
    path->len = mark;
    path->s[mark] = 0;
    if (rc) return -1;
  }
  return 0;
}

int codec_read_string(const char *text, const char *where, ir_program **out, af_err *err) {
  static const char *const keys[] = {"format", "bases", "inputs", "body", "outputs", "train", "loss", "meta", NULL};
  *out = NULL;
  const char *end = NULL, *why = NULL;
  int line, col;
  long bad = prescan(text, &why);
  if (bad >= 0) {
    text_pos(text, (size_t)bad, &line, &col);
    return af_fail(err, "%s: line %d, column %d: %s", where, line, col, why);
  }
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  ir_program *p = NULL;
  if (!root) {
    size_t off = end ? (size_t)(end - text) : 0;
    text_pos(text, off, &line, &col);
    af_fail(err, "%s: line %d, column %d: malformed JSON (%s)", where, line, col,
            off >= strlen(text) ? "truncated file" : "syntax error");
    return -1;
  }
  af_buf path = {0};
  int tree = check_tree(root, &path, err);
  af_buf_free(&path);
  if (tree) {
    af_err_prefix(err, "%s", where);
    goto fail;
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
  if (read_bases(p, cJSON_GetObjectItemCaseSensitive(root, "bases"), err) ||
      read_inputs(p, cJSON_GetObjectItemCaseSensitive(root, "inputs"), err) ||
      read_body(p, cJSON_GetObjectItemCaseSensitive(root, "body"), err)) {
    af_err_prefix(err, "%s", where);
    goto fail;
  }
  if (p->nstmts > CODEC_MAX_STMTS) {
    af_fail(err, "%s: body: more than %d statements (the limit of a program, if/for/else/end counted)", where, CODEC_MAX_STMTS);
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
  if (read_train(p, root, err)) {
    af_err_prefix(err, "%s", where);
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

void codec_put_shell_word(af_buf *b, const char *s) {
  int plain = *s != 0;
  for (const char *c = s; *c; c++)
    plain &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("_-./:=@%+,", *c) != NULL;
  if (plain) {
    af_buf_puts(b, s);
    return;
  }
  af_buf_puts(b, "'");
  for (const char *c = s; *c; c++) af_buf_puts(b, *c == '\'' ? "'\\''" : (char[]){*c, 0});
  af_buf_puts(b, "'");
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
    case IR_ARG_DTYPE:
      af_buf_printf(b, "{\"dtype\": \"%s\"}", af_dtype_name((af_dtype)a->i));
      break;
    case IR_ARG_INTS:
      af_buf_puts(b, "[");
      for (int k = 0; k < a->n; k++) {
        if (k) af_buf_puts(b, ", ");
        if (a->values && a->values[k] >= 0)
          put_string(b, p->names[a->values[k]]);
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
            if (x->start_var > 0) put_string(b, p->names[x->start_var - 1]);
            else if (x->has_start) af_buf_printf(b, "%lld", (long long)x->start); else af_buf_puts(b, "null");
            af_buf_puts(b, ", ");
            if (x->stop_var > 0) put_string(b, p->names[x->stop_var - 1]);
            else if (x->has_stop) af_buf_printf(b, "%lld", (long long)x->stop); else af_buf_puts(b, "null");
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
      if (ops_get(st->op)->argk[a][0] == 'r' && ops_reduce_name(st->args[a].i)) /* a reduction mode: its name */
        put_string(b, ops_reduce_name(st->args[a].i));
      else
        put_arg(b, p, &st->args[a]);
    }
    af_buf_puts(b, "]");
    (*s)++;
    if (ir_block_opener(st->op)) {
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

/* An input's layout: nothing for an owner laid out as a plain tensor, else strides and offset (and
 * the storage's size, or what it views). */
static void put_layout(af_buf *b, const ir_program *p, int i) {
  const ir_input *in = &p->inputs[i];
  const ir_base *B = &p->bases[in->base - 1];
  int64_t c[AF_MAX_RANK];
  ir_contiguous_strides(in->rank, in->shape, c);
  int plain = in->offset == 0 && B->numel == ir_numel(in->rank, in->shape);
  for (int d = 0; d < in->rank; d++) plain &= in->strides[d] == c[d]; /* exact: LibTorch can tell size-1 strides apart */
  if (B->owner == i && plain) return;
  if (B->owner != i) {
    af_buf_puts(b, ", \"view_of\": ");
    put_string(b, B->owner >= 0 ? p->names[p->inputs[B->owner].value] : B->name);
  }
  af_buf_puts(b, ", \"strides\": [");
  for (int d = 0; d < in->rank; d++) af_buf_printf(b, "%s%lld", d ? ", " : "", (long long)in->strides[d]);
  af_buf_printf(b, "], \"offset\": %lld", (long long)in->offset);
  if (B->owner == i && B->numel != ir_layout_extent(in->rank, in->shape, in->strides, in->offset))
    af_buf_printf(b, ", \"storage\": %lld", (long long)B->numel);
}

char *codec_write_string(const ir_program *p) {
  af_buf b = {0};
  af_buf_puts(&b, "{\n  \"format\": \"" CODEC_FORMAT "\",\n");
  int nhidden = 0;
  for (int k = 0; k < p->nbases; k++) {
    const ir_base *B = &p->bases[k];
    if (B->owner >= 0) continue;
    af_buf_puts(&b, nhidden++ ? ",\n    {\"name\": " : "  \"bases\": [\n    {\"name\": ");
    put_string(&b, B->name);
    af_buf_printf(&b, ", \"size\": %lld, \"dtype\": \"%s\"", (long long)B->numel, af_dtype_name(B->dtype));
    if (B->ndata) {
      af_buf_puts(&b, ", \"data\": [");
      for (int64_t d = 0; d < B->ndata; d++) {
        if (d) af_buf_puts(&b, ", ");
        codec_put_float(&b, B->data[d]);
      }
      af_buf_puts(&b, "]");
    }
    if (B->grad) af_buf_puts(&b, ", \"requires_grad\": true");
    af_buf_puts(&b, "}");
  }
  if (nhidden) af_buf_puts(&b, "\n  ],\n");
  af_buf_puts(&b, "  \"inputs\": [");
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    af_buf_puts(&b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
    put_string(&b, p->names[in->value]);
    af_buf_puts(&b, ", \"shape\": [");
    for (int d = 0; d < in->rank; d++) af_buf_printf(&b, "%s%lld", d ? ", " : "", (long long)in->shape[d]);
    af_buf_printf(&b, "], \"dtype\": \"%s\"", af_dtype_name(in->dtype));
    if (in->param)
      af_buf_puts(&b, ", \"param\": true");
    else if (in->attr)
      af_buf_puts(&b, ", \"attribute\": true");
    else if (in->buffer)
      af_buf_puts(&b, ", \"buffer\": true");
    if (in->grad && !in->param) af_buf_puts(&b, ", \"requires_grad\": true");
    if (in->base) put_layout(&b, p, i);
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
  if (p->train) { /* issue 33: the weights always written, so that they are recorded */
    af_buf_puts(&b, ",\n  \"train\": true,\n  \"loss\": [");
    for (int o = 0; o < p->noutputs; o++) {
      if (o) af_buf_puts(&b, ", ");
      codec_put_float(&b, ir_loss_weight(p, o));
    }
    af_buf_puts(&b, "]");
  }
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
  return af_write_atomic(path, data, len, err); /* af.h: fsync, rename, fsync of the folder */
}

int codec_write_file(const ir_program *p, const char *path, af_err *err) {
  char *s = codec_write_string(p);
  int rc = codec_write_atomic(path, s, strlen(s), err);
  free(s);
  return rc;
}
