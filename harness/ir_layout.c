/* ir_layout.c - input layouts (issue 16): bases, strides and offsets of inputs that share memory,
 * are non-contiguous, offset or expanded, and the stride algebra of the view ops a layout may be
 * written with ("as": ["slice", 0, 1, 3, 1]); with the element count of a shape and the default
 * value of an input's or a base's elements. ir.c builds on this file (clone, subset, validate),
 * never the other way round; the names both check are ir_names.c's. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

int64_t ir_numel(int rank, const int64_t *shape) {
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= shape[d];
  return n;
}

double ir_input_default_value(int input_index, int64_t k, af_dtype dt) {
  if (dt == AF_BOOL) return (k + input_index) % 3 == 0;
  if (dt == AF_UINT8) return (double)((k * 7 + input_index * 3) % 11); /* unsigned: 0..10 */
  return (double)(((k * 7 + input_index * 3) % 11) - 5);
}

int ir_add_base(ir_program *p, const char *name, int owner, int64_t numel, af_dtype dt) {
  p->bases = af_xrealloc(p->bases, sizeof(ir_base) * (size_t)(p->nbases + 1));
  ir_base *b = &p->bases[p->nbases];
  memset(b, 0, sizeof *b);
  b->name = af_xstrdup(name ? name : "");
  b->owner = owner;
  b->numel = numel;
  b->dtype = dt;
  return p->nbases++;
}

void ir_set_layout(ir_program *p, int i, int b, const int64_t *strides, int64_t offset) {
  ir_input *in = &p->inputs[i];
  in->base = b + 1;
  in->offset = b >= 0 ? offset : 0;
  for (int d = 0; d < in->rank; d++) in->strides[d] = b >= 0 ? strides[d] : 0;
}

int ir_has_layouts(const ir_program *p) {
  for (int i = 0; i < p->ninputs; i++)
    if (p->inputs[i].base) return 1;
  return 0;
}

int ir_ntensors(const ir_program *p) { return p->ninputs + p->nbases; }

const char *ir_base_name(const ir_program *p, int b) {
  const ir_base *B = &p->bases[b];
  return B->owner >= 0 && B->owner < p->ninputs ? p->names[p->inputs[B->owner].value] : B->name;
}

double ir_base_value(const ir_program *p, int b, int64_t k) {
  const ir_base *B = &p->bases[b];
  if (B->owner >= 0 && B->owner < p->ninputs) {
    const ir_input *o = &p->inputs[B->owner];
    if (o->ndata > 0) return o->data[k % o->ndata];
    return ir_input_default_value(B->owner, k, B->dtype);
  }
  if (B->ndata > 0) return B->data[k % B->ndata];
  int h = 0; /* hidden bases count among themselves: owned storages may come in any order */
  for (int j = 0; j < b; j++) h += p->bases[j].owner < 0;
  return ir_input_default_value(p->ninputs + h, k, B->dtype);
}

int64_t ir_layout_extent(int rank, const int64_t *shape, const int64_t *strides, int64_t offset) {
  int64_t e = offset;
  for (int d = 0; d < rank; d++) {
    if (shape[d] == 0) return 0;
    e += (shape[d] - 1) * strides[d];
  }
  return e + 1;
}

void ir_contiguous_strides(int rank, const int64_t *shape, int64_t *strides) {
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= shape[d] > 1 ? shape[d] : 1;
  }
}

int ir_input_aliased(const ir_program *p, int i) {
  const ir_input *in = &p->inputs[i];
  if (!in->base) return 0;
  for (int j = 0; j < p->ninputs; j++)
    if (j != i && p->inputs[j].base == in->base) return 1;
  const ir_base *B = &p->bases[in->base - 1];
  if (B->owner < 0) return 1;
  int64_t c[AF_MAX_RANK];
  ir_contiguous_strides(in->rank, in->shape, c);
  for (int d = 0; d < in->rank; d++)
    if (in->shape[d] > 1 && in->strides[d] != c[d]) return 1;
  return in->offset != 0 || B->numel != ir_numel(in->rank, in->shape);
}

/* ---- the stride algebra of view ops, as ATen computes it ---- */

static int wrap_dim(int64_t d, int rank, int *out, af_err *err) {
  int r = rank ? rank : 1;
  if (d < -r || d >= r) return af_fail(err, "dimension %lld out of range for rank %d", (long long)d, rank);
  *out = (int)(d < 0 ? d + r : d);
  return 0;
}

static int want(int nargs, const ir_arg *args, const char *kinds, const char *op, af_err *err) {
  int n = (int)strlen(kinds);
  if (nargs != n) return af_fail(err, "%s takes %d arguments here, got %d", op, n, nargs);
  for (int k = 0; k < n; k++)
    if ((kinds[k] == 'i') != (args[k].kind == IR_ARG_INT) || (kinds[k] == 'I' && args[k].kind != IR_ARG_INTS))
      return af_fail(err, "%s: argument %d must be %s", op, k, kinds[k] == 'i' ? "an int" : "a list of ints");
  return 0;
}

static void drop_dim(int *rank, int64_t *shape, int64_t *strides, int d) {
  for (int k = d; k + 1 < *rank; k++) shape[k] = shape[k + 1], strides[k] = strides[k + 1];
  (*rank)--;
}

/* (see ir_layout.h) Longer than 120 lines by shape: one branch per view op a layout can be
 * written with, each its arguments' checks and its effect on shape, strides and offset, read as a
 * table; splitting it would scatter that table. */
int ir_layout_apply(const char *op, int nargs, const ir_arg *args, int *rank, int64_t *shape, int64_t *strides,
                    int64_t *offset, af_err *err) {
  int d = 0, e = 0;
  if (!strcmp(op, "slice") || !strcmp(op, "narrow")) {
    int isnarrow = op[0] == 'n';
    if (want(nargs, args, isnarrow ? "iii" : "iiii", op, err) || wrap_dim(args[0].i, *rank, &d, err)) return -1;
    if (!*rank) return af_fail(err, "%s of a 0-dim tensor", op);
    int64_t n = shape[d], start = args[1].i, end = isnarrow ? args[1].i + args[2].i : args[2].i, step = isnarrow ? 1 : args[3].i;
    if (step <= 0) return af_fail(err, "slice step must be positive");
    if (isnarrow && (start < 0 || args[2].i < 0 || end > n)) return af_fail(err, "narrow out of range");
    if (start < 0) start += n;
    if (end < 0) end += n;
    start = start < 0 ? 0 : start > n ? n : start;
    end = end < start ? start : end > n ? n : end;
    *offset += start * strides[d];
    shape[d] = (end - start + step - 1) / step;
    strides[d] *= step;
    return 0;
  }
  if (!strcmp(op, "select")) {
    if (want(nargs, args, "ii", op, err) || wrap_dim(args[0].i, *rank, &d, err)) return -1;
    if (!*rank) return af_fail(err, "select of a 0-dim tensor");
    int64_t i = args[1].i < 0 ? args[1].i + shape[d] : args[1].i;
    if (i < 0 || i >= shape[d]) return af_fail(err, "select index %lld out of range for size %lld", (long long)args[1].i, (long long)shape[d]);
    *offset += i * strides[d];
    drop_dim(rank, shape, strides, d);
    return 0;
  }
  if (!strcmp(op, "transpose") || !strcmp(op, "t")) {
    if (op[0] == 't' && !op[1]) {
      if (want(nargs, args, "", op, err)) return -1;
      if (*rank > 2) return af_fail(err, "t() expects a tensor of at most 2 dimensions");
      if (*rank < 2) return 0;
      d = 0, e = 1;
    } else if (want(nargs, args, "ii", op, err) || wrap_dim(args[0].i, *rank, &d, err) || wrap_dim(args[1].i, *rank, &e, err)) {
      return -1;
    }
    if (!*rank) return 0;
    int64_t s = shape[d], t = strides[d];
    shape[d] = shape[e], strides[d] = strides[e];
    shape[e] = s, strides[e] = t;
    return 0;
  }
  if (!strcmp(op, "permute")) {
    if (want(nargs, args, "I", op, err)) return -1;
    if (args[0].n != *rank) return af_fail(err, "permute: %d dims for a tensor of rank %d", args[0].n, *rank);
    int64_t sh[AF_MAX_RANK], st[AF_MAX_RANK];
    int seen[AF_MAX_RANK] = {0};
    for (int k = 0; k < *rank; k++) {
      if (wrap_dim(args[0].ints[k], *rank, &d, err)) return -1;
      if (seen[d]++) return af_fail(err, "permute: dimension %d repeats", d);
      sh[k] = shape[d], st[k] = strides[d];
    }
    memcpy(shape, sh, sizeof(int64_t) * (size_t)*rank);
    memcpy(strides, st, sizeof(int64_t) * (size_t)*rank);
    return 0;
  }
  if (!strcmp(op, "unsqueeze")) {
    if (want(nargs, args, "i", op, err)) return -1;
    if (*rank >= AF_MAX_RANK) return af_fail(err, "unsqueeze past rank %d", AF_MAX_RANK);
    int64_t x = args[0].i;
    if (x < -(*rank + 1) || x > *rank) return af_fail(err, "unsqueeze: dimension %lld out of range", (long long)x);
    d = (int)(x < 0 ? x + *rank + 1 : x);
    for (int k = *rank; k > d; k--) shape[k] = shape[k - 1], strides[k] = strides[k - 1];
    shape[d] = 1;
    strides[d] = d < *rank ? shape[d + 1] * strides[d + 1] : 1;
    (*rank)++;
    return 0;
  }
  if (!strcmp(op, "squeeze")) {
    if (want(nargs, args, "i", op, err) || wrap_dim(args[0].i, *rank, &d, err)) return -1;
    if (*rank && shape[d] == 1) drop_dim(rank, shape, strides, d);
    return 0;
  }
  if (!strcmp(op, "expand")) {
    if (want(nargs, args, "I", op, err)) return -1;
    int n = args[0].n;
    if (n < *rank || n > AF_MAX_RANK) return af_fail(err, "expand: %d sizes for a tensor of rank %d", n, *rank);
    int64_t sh[AF_MAX_RANK], st[AF_MAX_RANK];
    for (int k = n - 1, j = *rank - 1; k >= 0; k--, j--) {
      int64_t want_n = args[0].ints[k];
      if (j < 0) {
        if (want_n < 0) return af_fail(err, "expand: -1 for a new dimension");
        sh[k] = want_n, st[k] = 0;
      } else if (want_n == -1 || want_n == shape[j]) {
        sh[k] = shape[j], st[k] = strides[j];
      } else if (shape[j] == 1 && want_n >= 0) {
        sh[k] = want_n, st[k] = 0;
      } else {
        return af_fail(err, "expand: size %lld of dimension %d cannot become %lld", (long long)shape[j], j, (long long)want_n);
      }
    }
    *rank = n;
    memcpy(shape, sh, sizeof(int64_t) * (size_t)n);
    memcpy(strides, st, sizeof(int64_t) * (size_t)n);
    return 0;
  }
  if (!strcmp(op, "diagonal")) {
    if (want(nargs, args, "iii", op, err) || wrap_dim(args[1].i, *rank, &d, err) || wrap_dim(args[2].i, *rank, &e, err))
      return -1;
    if (d == e) return af_fail(err, "diagonal: both dimensions are %d", d);
    int64_t o = args[0].i, n;
    if (o >= 0) n = shape[e] - o < shape[d] ? shape[e] - o : shape[d], *offset += n > 0 ? o * strides[e] : 0;
    else n = shape[d] + o < shape[e] ? shape[d] + o : shape[e], *offset -= n > 0 ? o * strides[d] : 0;
    if (n < 0) n = 0;
    int64_t st = strides[d] + strides[e];
    int hi = d > e ? d : e, lo = d < e ? d : e;
    drop_dim(rank, shape, strides, hi);
    drop_dim(rank, shape, strides, lo);
    shape[*rank] = n, strides[*rank] = st;
    (*rank)++;
    return 0;
  }
  if (!strcmp(op, "unfold")) {
    if (want(nargs, args, "iii", op, err) || wrap_dim(args[0].i, *rank, &d, err)) return -1;
    int64_t size = args[1].i, step = args[2].i;
    if (*rank >= AF_MAX_RANK || !*rank) return af_fail(err, "unfold: rank %d", *rank);
    if (size < 0 || size > shape[d] || step <= 0) return af_fail(err, "unfold: size %lld step %lld for a dimension of %lld", (long long)size, (long long)step, (long long)shape[d]);
    shape[*rank] = size, strides[*rank] = strides[d];
    shape[d] = (shape[d] - size) / step + 1;
    strides[d] *= step;
    (*rank)++;
    return 0;
  }
  if (!strcmp(op, "as_strided")) {
    if (want(nargs, args, "IIi", op, err)) return -1;
    if (args[0].n != args[1].n || args[0].n > AF_MAX_RANK) return af_fail(err, "as_strided: sizes and strides differ in length");
    *rank = args[0].n;
    for (int k = 0; k < *rank; k++) {
      if (args[0].ints[k] < 0 || args[1].ints[k] < 0) return af_fail(err, "as_strided: negative size or stride");
      shape[k] = args[0].ints[k], strides[k] = args[1].ints[k];
    }
    *offset = args[2].i;
    return 0;
  }
  if (!strcmp(op, "view")) {
    if (want(nargs, args, "I", op, err)) return -1;
    int64_t c[AF_MAX_RANK], n = ir_numel(*rank, shape), sh[AF_MAX_RANK], known = 1;
    int infer = -1, m = args[0].n;
    ir_contiguous_strides(*rank, shape, c);
    for (int k = 0; k < *rank; k++)
      if (shape[k] > 1 && strides[k] != c[k]) return af_fail(err, "view: only of a contiguous layout here (use as_strided)");
    if (m > AF_MAX_RANK) return af_fail(err, "view: rank %d", m);
    for (int k = 0; k < m; k++) {
      sh[k] = args[0].ints[k];
      if (sh[k] == -1 && infer < 0) infer = k;
      else if (sh[k] < 0) return af_fail(err, "view: size %lld", (long long)sh[k]);
      else known *= sh[k];
    }
    if (infer >= 0) sh[infer] = known ? n / known : 0, known *= sh[infer];
    if (known != n) return af_fail(err, "view: shape does not hold %lld elements", (long long)n);
    *rank = m;
    memcpy(shape, sh, sizeof(int64_t) * (size_t)m);
    ir_contiguous_strides(m, shape, strides);
    return 0;
  }
  return af_fail(err, "\"%s\" is no view op a layout can be written with (slice, select, narrow, transpose, t, permute, "
                 "unsqueeze, squeeze, expand, diagonal, unfold, as_strided, view)",
                 op);
}

int ir_validate_layouts(const ir_program *p, af_err *err) {
  for (int b = 0; b < p->nbases; b++) {
    const ir_base *B = &p->bases[b];
    if (B->numel < 1 || B->numel > (1 << 22)) return af_fail(err, "bases[%d] (%s): size must be 1..%d", b, B->name, 1 << 22);
    if (B->owner >= p->ninputs) return af_fail(err, "bases[%d] (%s): owner %d is no input", b, B->name, B->owner);
    if (B->owner < 0 && !ir_name_ok(B->name)) return af_fail(err, "bases[%d]: \"%s\" is not a usable name", b, B->name);
    if (B->owner >= 0 && p->inputs[B->owner].base != b + 1)
      return af_fail(err, "input %s: owns a storage it does not lie in", p->names[p->inputs[B->owner].value]);
  }
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    const char *nm = p->names[in->value];
    if (!in->base) continue;
    if (in->base < 0 || in->base > p->nbases) return af_fail(err, "input %s: no storage %d", nm, in->base - 1);
    const ir_base *B = &p->bases[in->base - 1];
    if (B->owner > i)
      return af_fail(err, "input %s: views the storage of %s, which comes later in the inputs", nm, p->names[p->inputs[B->owner].value]);
    if (in->buffer) return af_fail(err, "input %s: a module buffer cannot have a layout (strides, offset, view_of)", nm);
    if (B->dtype != in->dtype)
      return af_fail(err, "input %s: dtype %s, but the storage it views (%s) is %s", nm, af_dtype_name(in->dtype), ir_base_name(p, in->base - 1),
                     af_dtype_name(B->dtype));
    if (in->ndata && B->owner != i)
      return af_fail(err, "input %s: a view of %s takes its values from that storage, not from \"data\"", nm, ir_base_name(p, in->base - 1));
    if (in->offset < 0) return af_fail(err, "input %s: negative storage offset %lld", nm, (long long)in->offset);
    for (int d = 0; d < in->rank; d++)
      if (in->strides[d] < 0) return af_fail(err, "input %s: negative stride %lld in dimension %d", nm, (long long)in->strides[d], d);
    int64_t ext = ir_layout_extent(in->rank, in->shape, in->strides, in->offset);
    if (ext > B->numel)
      return af_fail(err, "input %s: shape, strides and offset %lld reach element %lld of a storage of %lld elements (%s)", nm,
                     (long long)in->offset, (long long)ext - 1, (long long)B->numel, ir_base_name(p, in->base - 1));
  }
  return 0;
}
