/* ops_shape.c - shape, stride and validity rules of the op table (see ops_shape.h), as eager
 * PyTorch 1.13 on CPU computes them. Part 1: layouts. Part 2: the shape rules (shape_<name>, one
 * per rule family of harness/ops_rules.def). Part 3: the argument samplers (sample_<name>). Part 4:
 * the rules and samplers of the families added for issue 9. At the end: the per-op table built
 * from ops.def's columns, the dispatchers ops_shape_infer and ops_shape_sample (no per-op code:
 * each op's line names its rules), and the Markdown table of docs/ops.md. */
#include "ops_shape.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- layouts */

static void contig_strides(int rank, const int64_t *shape, int64_t *stride) {
  int64_t z = 1;
  for (int d = rank - 1; d >= 0; d--) {
    stride[d] = z;
    z *= shape[d] > 1 ? shape[d] : 1;
  }
}

void ops_meta_init(ops_meta *m, af_dtype dt, int rank, const int64_t *shape) {
  memset(m, 0, sizeof *m);
  m->rank = rank;
  for (int d = 0; d < rank; d++) m->shape[d] = shape[d];
  contig_strides(rank, shape, m->stride);
  m->dtype = dt;
  m->exact = m->nonoverlap = m->known = 1;
}

int64_t ops_meta_numel(const ops_meta *m) { return ir_numel(m->rank, m->shape); }

int ops_meta_is_contiguous(const ops_meta *m) {
  if (ops_meta_numel(m) == 0) return 1;
  int64_t z = 1;
  for (int d = m->rank - 1; d >= 0; d--) {
    if (m->shape[d] == 1) continue;
    if (m->stride[d] != z) return 0;
    z *= m->shape[d];
  }
  return 1;
}

int ops_meta_is_dense(const ops_meta *m) {
  if (m->rank == 1) return m->shape[0] < 2 || m->stride[0] == 1;
  int dims[AF_MAX_RANK], n = 0;
  for (int d = 0; d < m->rank; d++) {
    if (m->shape[d] == 0) return 1; /* as c10: a size-0 dim ends the check */
    if (m->shape[d] >= 2) dims[n++] = d;
  }
  for (int i = 1; i < n; i++) /* sort by stride */
    for (int j = i; j > 0 && m->stride[dims[j]] < m->stride[dims[j - 1]]; j--) {
      int t = dims[j];
      dims[j] = dims[j - 1];
      dims[j - 1] = t;
    }
  int64_t req = 1;
  for (int i = 0; i < n; i++) {
    if (m->stride[dims[i]] != req) return 0;
    req *= m->shape[dims[i]];
  }
  return 1;
}

static int is_cl(const ops_meta *m) { /* is_contiguous(memory_format=channels_last[_3d]) */
  static const int o4[] = {1, 3, 2, 0}, o5[] = {1, 4, 3, 2, 0};
  const int *o = m->rank == 4 ? o4 : m->rank == 5 ? o5 : NULL;
  if (!o) return 0;
  int64_t expected = 1;
  for (int k = 0; k < m->rank; k++) {
    int d = o[k];
    if (m->shape[d] != 1) {
      if (m->stride[d] != expected) return 0;
      expected *= m->shape[d];
    }
  }
  return 1;
}

static void cl_strides(ops_meta *m) {
  static const int o4[] = {1, 3, 2, 0}, o5[] = {1, 4, 3, 2, 0};
  const int *o = m->rank == 4 ? o4 : o5;
  int64_t s = 1;
  for (int k = 0; k < m->rank; k++) {
    m->stride[o[k]] = s;
    s *= m->shape[o[k]] > 1 ? m->shape[o[k]] : 1;
  }
}

int64_t ops_meta_extent(const ops_meta *m) {
  int64_t e = m->offset + 1;
  for (int d = 0; d < m->rank; d++) {
    if (m->shape[d] == 0) return 0;
    e += (m->shape[d] - 1) * m->stride[d];
  }
  return e;
}

int64_t ops_meta_offsets(const ops_meta *m, int64_t *out, int64_t max) {
  int64_t n = ops_meta_numel(m);
  if (!m->exact || n > max) return -1;
  int64_t idx[AF_MAX_RANK] = {0};
  for (int64_t k = 0; k < n; k++) {
    int64_t off = m->offset;
    for (int d = 0; d < m->rank; d++) off += idx[d] * m->stride[d];
    out[k] = off;
    for (int d = m->rank - 1; d >= 0; d--) {
      if (++idx[d] < m->shape[d]) break;
      idx[d] = 0;
    }
  }
  return n;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* exact overlap of an exact layout */
static int overlaps_exact(const ops_meta *m) {
  int dims[AF_MAX_RANK], n = 0;
  for (int d = 0; d < m->rank; d++) {
    if (m->shape[d] == 0) return 0;
    if (m->shape[d] > 1) {
      if (m->stride[d] == 0) return 1;
      dims[n++] = d;
    }
  }
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && m->stride[dims[j]] < m->stride[dims[j - 1]]; j--) {
      int t = dims[j];
      dims[j] = dims[j - 1];
      dims[j - 1] = t;
    }
  int64_t reach = 0; /* furthest offset reachable by the smaller dims */
  int ok = 1;
  for (int i = 0; i < n; i++) {
    if (m->stride[dims[i]] <= reach) ok = 0;
    reach += (m->shape[dims[i]] - 1) * m->stride[dims[i]];
  }
  if (ok) return 0;
  int64_t buf[4096];
  int64_t k = ops_meta_offsets(m, buf, 4096);
  if (k < 0) return 1; /* too large to tell: say it overlaps */
  qsort(buf, (size_t)k, sizeof buf[0], cmp_i64);
  for (int64_t i = 1; i < k; i++)
    if (buf[i] == buf[i - 1]) return 1;
  return 0;
}

int ops_meta_overlaps(const ops_meta *m) { return m->exact ? overlaps_exact(m) : !m->nonoverlap; }

static void finish_exact(ops_meta *m) {
  if (m->exact) m->nonoverlap = !overlaps_exact(m);
}

int ops_broadcast(int ra, const int64_t *a, int rb, const int64_t *b, int *rout, int64_t *out) {
  int r = ra > rb ? ra : rb;
  int64_t tmp[AF_MAX_RANK];
  for (int k = 0; k < r; k++) {
    int64_t x = k < ra ? a[ra - 1 - k] : 1, y = k < rb ? b[rb - 1 - k] : 1;
    if (x != y && x != 1 && y != 1) return -1;
    tmp[r - 1 - k] = x == 1 ? y : x;
  }
  *rout = r;
  memcpy(out, tmp, sizeof(int64_t) * (size_t)r);
  return 0;
}

int ops_broadcasts_to(int rf, const int64_t *from, int rt, const int64_t *to) {
  if (rf > rt) return 0;
  for (int k = 0; k < rf; k++) {
    int64_t x = from[rf - 1 - k], y = to[rt - 1 - k];
    if (x != y && x != 1) return 0;
  }
  return 1;
}

int ops_view_strides(const ops_meta *m, int rank, const int64_t *shape, int64_t *stride) {
  if (m->rank == 0) {
    for (int d = 0; d < rank; d++) stride[d] = 1;
    return 0;
  }
  int64_t numel = ops_meta_numel(m);
  if (numel == 0) {
    if (rank == m->rank && !memcmp(shape, m->shape, sizeof(int64_t) * (size_t)rank)) {
      memcpy(stride, m->stride, sizeof(int64_t) * (size_t)rank);
      return 0;
    }
    contig_strides(rank, shape, stride);
    return 0;
  }
  int view_d = rank - 1;
  int64_t chunk_base_stride = m->stride[m->rank - 1];
  int64_t tensor_numel = 1, view_numel = 1;
  for (int tensor_d = m->rank - 1; tensor_d >= 0; tensor_d--) {
    tensor_numel *= m->shape[tensor_d];
    if (tensor_d == 0 ||
        (m->shape[tensor_d - 1] != 1 && m->stride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        stride[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel) return -1;
      if (tensor_d > 0) {
        chunk_base_stride = m->stride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1 ? 0 : -1;
}

/* ---------------------------------------------------------------- dtypes */

/* Promotion as torch.promote_types over the modelled dtypes. Within a category (bool < integers <
 * floats) the wider type wins; uint8 with int8 gives int16 and float16 with bfloat16 gives float32
 * (eager's lattice); an integer with a float gives the float. int16 is not modelled: DT_UNMODELLED,
 * which no rule accepts (ops_result_type callers refuse it through dt_ok). */
#define DT_UNDEF ((af_dtype)-1)
#define DT_UNMODELLED AF_DTYPE_COUNT
static int is_float(af_dtype d) { return (int)d >= 0 && d < AF_DTYPE_COUNT && af_dtype_is_float(d); }
static int is_int(af_dtype d) { return (int)d >= 0 && d < AF_DTYPE_COUNT && af_dtype_is_int(d); }
static int dt_ok(af_dtype d) { return (int)d >= 0 && d < AF_DTYPE_COUNT; }
static int is_complex(af_dtype d) { return (int)d >= 0 && d < AF_DTYPE_COUNT && af_dtype_is_complex(d); }
static int dt_category(af_dtype d) { return d == AF_BOOL ? 0 : is_int(d) ? 1 : is_complex(d) ? 3 : 2; }
/* width rank inside a category: uint8 and int8 (and float16 and bfloat16) are incomparable */
static int dt_width(af_dtype d) {
  switch (d) {
    case AF_UINT8: case AF_INT8: case AF_FLOAT16: case AF_BFLOAT16: return 1;
    case AF_INT32: case AF_FLOAT32: case AF_COMPLEX64: return 2;
    case AF_INT64: case AF_FLOAT64: case AF_COMPLEX128: return 3;
    default: return 0;
  }
}

static af_dtype promote(af_dtype a, af_dtype b) {
  if ((int)a < 0) return b;
  if ((int)b < 0) return a;
  if (!dt_ok(a) || !dt_ok(b)) return DT_UNMODELLED;
  if (a == b) return a;
  int ca = dt_category(a), cb = dt_category(b);
  if ((ca == 3 || cb == 3) && (a == AF_FLOAT64 || b == AF_FLOAT64)) return AF_COMPLEX128; /* complex64 + float64 */
  if (ca != cb) return ca > cb ? a : b;
  int wa = dt_width(a), wb = dt_width(b);
  if (wa != wb) return wa > wb ? a : b;
  return ca == 2 ? AF_FLOAT32 : DT_UNMODELLED; /* float16 + bfloat16: float32; uint8 + int8: int16 */
}

/* ATen's combine_categories: a complex lower class (a 0-dim complex tensor beside float tensors) makes
 * the float result complex of the float's width (float16 and bfloat16: complex32, or an error,
 * not modelled) */
static af_dtype combine(af_dtype higher, af_dtype lower) {
  if ((int)higher >= 0 && is_complex(higher)) return higher;
  if ((int)lower >= 0 && is_complex(lower))
    return higher == AF_FLOAT32 ? AF_COMPLEX64 : higher == AF_FLOAT64 ? AF_COMPLEX128 : is_float(higher) ? DT_UNMODELLED : lower;
  if ((int)higher >= 0 && is_float(higher)) return higher;
  if (higher == AF_BOOL || ((int)lower >= 0 && is_float(lower))) return promote(higher, lower);
  if ((int)higher >= 0) return higher;
  return lower;
}

af_dtype ops_result_type(int n, const af_dtype *dt, const ops_opnd_kind *kind) {
  af_dtype dim = DT_UNDEF, zero = DT_UNDEF, wrapped = DT_UNDEF;
  for (int i = 0; i < n; i++) {
    if (kind[i] == OPS_OPND_TENSOR) dim = promote(dim, dt[i]);
    else if (kind[i] == OPS_OPND_ZERODIM) zero = promote(zero, dt[i]);
    else wrapped = promote(wrapped, is_float(dt[i]) ? AF_FLOAT32 : dt[i]);
  }
  return combine(dim, combine(zero, wrapped));
}

int ops_can_cast(af_dtype from, af_dtype to) {
  if (!dt_ok(from) || !dt_ok(to)) return 0;
  if (is_complex(from) && !is_complex(to)) return 0;
  if (is_float(from) && is_int(to)) return 0;
  if (from != AF_BOOL && to == AF_BOOL) return 0;
  return 1;
}

/* A number eager converts into a tensor of dtype dt with an overflow check (fill_, masked_fill_,
 * clamp bounds, full_like, setitem of a number...): int8 takes -128..127, uint8 -128..255 for
 * an int and no negative float (c10's checked_convert). The value of a 0-dim tensor (zerodim) is
 * data the rule does not see (a sum, a product may be large): into int32, int8, uint8 or float16
 * only one of the target's own dtype, bool, or (into int32 and float16) int8 and uint8. */
static int scalar_fits(af_dtype dt, const ir_arg *a, const ops_meta *zerodim, af_err *err) {
  if (zerodim) {
    af_dtype z = zerodim->dtype;
    if (is_complex(z) && !is_complex(dt))
      return af_fail(err, "value cannot be converted to type %s without overflow (a %s value into a real tensor)",
                     af_dtype_name(dt), af_dtype_name(z));
    int narrow = dt == AF_INT32 || dt == AF_INT8 || dt == AF_UINT8 || dt == AF_FLOAT16;
    int fits = z == dt || z == AF_BOOL || ((dt == AF_INT32 || dt == AF_FLOAT16) && (z == AF_INT8 || z == AF_UINT8));
    if (narrow && !fits)
      return af_fail(err, "a %s value converted into %s may overflow (value cannot be converted to type %s without overflow)",
                     af_dtype_name(z), af_dtype_name(dt), af_dtype_name(dt));
    return 0;
  }
  if (dt != AF_INT8 && dt != AF_UINT8) return 0;
  double x = a->kind == IR_ARG_FLOAT ? a->f : a->kind == IR_ARG_INT ? (double)a->i : 0;
  double hi = dt == AF_INT8 ? 127 : 255;
  if (x < -128 || x > hi || (dt == AF_UINT8 && a->kind == IR_ARG_FLOAT && x < 0))
    return af_fail(err, "value cannot be converted to type %s without overflow", af_dtype_name(dt));
  return 0;
}

/* ---------------------------------------------------------------- layouts of fresh results */

/* empty_like(memory_format=preserve) / clone(): the same strides when dense, else dense strides
 * in the input's stride order (infer_dense_strides). */
static void preserve_layout(const ops_meta *in, ops_meta *out) {
  *out = *in;
  out->offset = 0;
  out->known = in->known;
  if (!in->exact) {
    out->exact = 0;
    out->nonoverlap = 1;
    return;
  }
  out->nonoverlap = 1;
  if (ops_meta_is_dense(in)) return;
  int n = in->rank, perm[AF_MAX_RANK];
  for (int i = 0; i < n; i++) perm[i] = n - 1 - i;
  for (int i = 1; i < n; i++) {
    int dim1 = i;
    for (int j = 1; j <= i; j++) {
      int dim0 = i - j;
      int64_t s0 = in->stride[perm[dim0]], s1 = in->stride[perm[dim1]];
      int c = 0;
      if (s0 == 0 || s1 == 0) c = 0;
      else if (s0 < s1) c = -1;
      else if (s0 > s1) c = 1;
      else if (in->shape[perm[dim0]] > in->shape[perm[dim1]]) c = 1;
      if (c > 0) {
        int t = perm[dim0];
        perm[dim0] = perm[dim1];
        perm[dim1] = t;
        dim1 = dim0;
      } else if (c < 0) {
        break;
      }
    }
  }
  int64_t cur = 1;
  for (int i = 0; i < n; i++) {
    out->stride[perm[i]] = cur;
    if (in->shape[perm[i]] > 1) cur *= in->shape[perm[i]];
  }
}

static void fresh_contig(ops_meta *out, af_dtype dt, int rank, const int64_t *shape) { ops_meta_init(out, dt, rank, shape); }

/* A TensorIterator operand: a tensor layout or a Python number (a 0-dim operand). */
typedef struct ti_opnd {
  const ops_meta *m; /* NULL for a number */
  af_dtype dtype;
} ti_opnd;

/* Output layout of a TensorIterator op with no given output (TensorIteratorBase::build:
 * fast_set_up, else compute_strides + reorder_dimensions + allocate_or_resize_outputs).
 * common: the dtype inputs are converted to (promote_inputs_to_common_dtype). */
static void ti_layout(int n, const ti_opnd *in, af_dtype common, int rank, const int64_t *shape, af_dtype out_dt,
                      ops_meta *out) {
  ops_meta conv[4];
  const ops_meta *op[4];
  int exact = 1;
  for (int i = 0; i < n; i++) {
    op[i] = NULL;
    if (!in[i].m) continue;
    if (!in[i].m->exact) exact = 0;
    if ((int)common >= 0 && in[i].m->dtype != common) { /* .to(common): preserve format */
      preserve_layout(in[i].m, &conv[i]);
      conv[i].dtype = common;
      op[i] = &conv[i];
    } else {
      op[i] = in[i].m;
    }
  }
  fresh_contig(out, out_dt, rank, shape);
  if (!exact) {
    out->exact = 0;
    return;
  }
  /* fast setup */
  int same_shape = 1, has_scalars = 0, has_tensors = 0, first = 1;
  int r0 = 0;
  const int64_t *s0 = NULL;
  for (int i = 0; i < n; i++) {
    int r = op[i] ? op[i]->rank : 0;
    const int64_t *s = op[i] ? op[i]->shape : NULL;
    if (r == 0) has_scalars = 1;
    else has_tensors = 1;
    if (has_scalars && has_tensors) same_shape = 0;
    if (first) {
      r0 = r;
      s0 = s;
      first = 0;
    } else if (r != r0 || (r && memcmp(s, s0, sizeof(int64_t) * (size_t)r))) {
      same_shape = 0;
    }
  }
  if (same_shape) {
    int contig = 1, cl = 1, dense = 1;
    for (int i = 0; i < n; i++) {
      if (!op[i]) continue; /* a number is a 0-dim tensor: contiguous, dense, not CL */
      contig &= ops_meta_is_contiguous(op[i]);
      cl &= is_cl(op[i]);
      dense &= ops_meta_is_dense(op[i]);
    }
    for (int i = 0; i < n; i++)
      if (!op[i]) cl = 0;
    if (contig) return;
    if (cl) {
      cl_strides(out);
      return;
    }
    if (dense) {
      int last = -1, same = 1;
      for (int i = n - 1; i >= 0; i--) {
        if (!op[i]) continue;
        if (last < 0) last = i;
        else if (memcmp(op[i]->stride, op[last]->stride, sizeof(int64_t) * (size_t)rank)) same = 0;
      }
      if (same && last >= 0) {
        memcpy(out->stride, op[last]->stride, sizeof(int64_t) * (size_t)rank);
        return;
      }
    }
  }
  if (rank <= 1) return;
  /* byte strides of each operand, broadcast to shape */
  int64_t sb[4][AF_MAX_RANK];
  for (int i = 0; i < n; i++) {
    int r = op[i] ? op[i]->rank : 0, off = rank - r;
    for (int d = 0; d < rank; d++) sb[i][d] = 0;
    for (int d = 0; d < r; d++)
      sb[i][off + d] = (op[i]->shape[d] == 1 && shape[off + d] != 1) ? 0 : op[i]->stride[d] * (int64_t)af_dtype_size(op[i]->dtype);
  }
  int perm[AF_MAX_RANK];
  for (int i = 0; i < rank; i++) perm[i] = rank - 1 - i;
  for (int i = 1; i < rank; i++) {
    int dim1 = i;
    for (int dim0 = i - 1; dim0 >= 0; dim0--) {
      int a = perm[dim0], b = perm[dim1], c = 0;
      for (int k = 0; k < n && !c; k++) {
        int64_t x = sb[k][a], y = sb[k][b];
        if (x == 0 || y == 0) continue;
        if (x < y) c = -1;
        else if (x > y) c = 1;
        else if (shape[a] > shape[b]) c = 1;
      }
      if (c > 0) {
        int t = perm[dim0];
        perm[dim0] = perm[dim1];
        perm[dim1] = t;
        dim1 = dim0;
      } else if (c < 0) {
        break;
      }
    }
  }
  int inverted = 1;
  for (int j = 0; j < rank; j++)
    if (perm[j] != rank - j - 1) inverted = 0;
  if (inverted) return;
  int64_t next = 1;
  for (int j = 0; j < rank; j++) {
    out->stride[perm[j]] = next;
    next *= shape[perm[j]];
  }
}

/* ---------------------------------------------------------------- view layouts */

static int wrapd(int64_t d, int rank, int64_t *out, af_err *err) {
  int r = rank > 0 ? rank : 1;
  *out = 0;
  if (d < -r || d >= r) return af_fail(err, "dim %lld out of range for rank %d", (long long)d, rank);
  *out = d < 0 ? d + r : d;
  return 0;
}

static void drop_dim(ops_meta *m, int d) {
  for (int k = d; k < m->rank - 1; k++) {
    m->shape[k] = m->shape[k + 1];
    m->stride[k] = m->stride[k + 1];
  }
  m->rank--;
}

static void insert_dim(ops_meta *m, int d, int64_t size, int64_t stride) {
  for (int k = m->rank; k > d; k--) {
    m->shape[k] = m->shape[k - 1];
    m->stride[k] = m->stride[k - 1];
  }
  m->shape[d] = size;
  m->stride[d] = stride;
  m->rank++;
}

/* aten::slice with optional bounds */
static int v_slice(const ops_meta *in, int64_t dim, int has_start, int64_t start, int has_end, int64_t end, int64_t step,
                   ops_meta *out, af_err *err) {
  if (in->rank == 0) return af_fail(err, "slice() cannot be applied to a 0-dim tensor");
  if (wrapd(dim, in->rank, &dim, err)) return -1;
  if (step <= 0) return af_fail(err, "slice step must be positive");
  int64_t n = in->shape[dim];
  if (!has_start) start = 0;
  if (!has_end) end = INT64_MAX;
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  else if (start >= n) start = n;
  if (end < start) end = start;
  else if (end >= n) end = n;
  *out = *in;
  out->offset += start * in->stride[dim];
  out->shape[dim] = (end - start + step - 1) / step;
  out->stride[dim] *= step;
  return 0;
}

static int v_select(const ops_meta *in, int64_t dim, int64_t index, ops_meta *out, af_err *err) {
  if (in->rank == 0) return af_fail(err, "select() cannot be applied to a 0-dim tensor");
  if (wrapd(dim, in->rank, &dim, err)) return -1;
  int64_t n = in->shape[dim];
  if (index < -n || index >= n) return af_fail(err, "select(): index %lld out of range for size %lld", (long long)index, (long long)n);
  if (index < 0) index += n;
  *out = *in;
  out->offset += index * in->stride[dim];
  drop_dim(out, (int)dim);
  return 0;
}

static int v_unsqueeze(const ops_meta *in, int64_t dim, ops_meta *out, af_err *err) {
  if (dim < -(in->rank + 1) || dim > in->rank) return af_fail(err, "unsqueeze dim %lld out of range for rank %d", (long long)dim, in->rank);
  if (dim < 0) dim += in->rank + 1;
  *out = *in;
  int64_t st = dim >= in->rank ? 1 : in->shape[dim] * in->stride[dim];
  insert_dim(out, (int)dim, 1, st);
  return 0;
}

static int v_squeeze(const ops_meta *in, int64_t dim, ops_meta *out, af_err *err) {
  if (wrapd(dim, in->rank, &dim, err)) return -1;
  *out = *in;
  if (in->rank > 0 && in->shape[dim] == 1) drop_dim(out, (int)dim);
  return 0;
}

static int v_transpose(const ops_meta *in, int64_t d0, int64_t d1, ops_meta *out, af_err *err) {
  if (wrapd(d0, in->rank, &d0, err) || wrapd(d1, in->rank, &d1, err)) return -1;
  *out = *in;
  if (in->rank == 0 || d0 == d1) return 0;
  out->shape[d0] = in->shape[d1];
  out->shape[d1] = in->shape[d0];
  out->stride[d0] = in->stride[d1];
  out->stride[d1] = in->stride[d0];
  return 0;
}

static int v_t(const ops_meta *in, ops_meta *out, af_err *err) {
  if (in->rank > 2) return af_fail(err, "t() expects a tensor with <= 2 dimensions, but self is %dD", in->rank);
  return v_transpose(in, 0, in->rank == 2 ? 1 : 0, out, err);
}

static int v_permute(const ops_meta *in, int n, const int64_t *dims, ops_meta *out, af_err *err) {
  if (n != in->rank) return af_fail(err, "permute: %d dims given for rank %d", n, in->rank);
  int seen[AF_MAX_RANK] = {0};
  *out = *in;
  for (int k = 0; k < n; k++) {
    int64_t d;
    if (wrapd(dims[k], in->rank, &d, err)) return -1;
    if (seen[d]++) return af_fail(err, "permute: repeated dim %lld", (long long)dims[k]);
    out->shape[k] = in->shape[d];
    out->stride[k] = in->stride[d];
  }
  return 0;
}

static int v_movedim(const ops_meta *in, int64_t src, int64_t dst, ops_meta *out, af_err *err) {
  if (wrapd(src, in->rank, &src, err) || wrapd(dst, in->rank, &dst, err)) return -1;
  *out = *in;
  if (in->rank <= 1 || src == dst) return 0;
  int order[AF_MAX_RANK], n = 0;
  for (int d = 0; d < in->rank; d++)
    if (d != src) order[n++] = d;
  for (int k = n; k > dst; k--) order[k] = order[k - 1];
  order[dst] = (int)src;
  for (int k = 0; k < in->rank; k++) {
    out->shape[k] = in->shape[order[k]];
    out->stride[k] = in->stride[order[k]];
  }
  return 0;
}

/* infer_size: one -1 allowed; product must be numel */
static int infer_size(int n, const int64_t *sizes, int64_t numel, int64_t *out, af_err *err) {
  int neg = -1;
  int64_t prod = 1;
  for (int k = 0; k < n; k++) {
    if (sizes[k] == -1) {
      if (neg >= 0) return af_fail(err, "only one dimension can be inferred");
      neg = k;
    } else if (sizes[k] < 0) {
      return af_fail(err, "invalid shape dimension %lld", (long long)sizes[k]);
    } else {
      prod *= sizes[k];
    }
    out[k] = sizes[k];
  }
  if (neg >= 0) {
    if (prod == 0 || numel % prod) return af_fail(err, "shape is invalid for input of size %lld", (long long)numel);
    out[neg] = numel / prod;
  } else if (prod != numel) {
    return af_fail(err, "shape is invalid for input of size %lld", (long long)numel);
  }
  return 0;
}

/* view/reshape: 1 = view, 0 = reshape copied, -1 error (view impossible and !allow_copy) */
static int v_view(const ops_meta *in, int n, const int64_t *sizes, int allow_copy, ops_meta *out, af_err *err) {
  if (n > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", n, AF_MAX_RANK);
  int64_t shape[AF_MAX_RANK];
  if (infer_size(n, sizes, ops_meta_numel(in), shape, err)) return -1;
  if (!in->exact) {
    if (!allow_copy) return af_fail(err, "view of a tensor whose strides are not modelled (not decided)");
    return af_fail(err, "reshape of a tensor whose strides are not modelled (view or copy not decided)");
  }
  int64_t st[AF_MAX_RANK];
  if (ops_view_strides(in, n, shape, st) == 0) {
    *out = *in;
    out->rank = n;
    memcpy(out->shape, shape, sizeof(int64_t) * (size_t)n);
    memcpy(out->stride, st, sizeof(int64_t) * (size_t)n);
    return 1;
  }
  if (!allow_copy)
    return af_fail(err, "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces)");
  fresh_contig(out, in->dtype, n, shape);
  return 0;
}

static int v_expand(const ops_meta *in, int n, const int64_t *sizes, ops_meta *out, af_err *err) {
  if (n < in->rank) return af_fail(err, "expand: the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)", n, in->rank);
  if (n > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", n, AF_MAX_RANK);
  ops_meta o = *in;
  o.rank = n;
  int repeated = 0;
  for (int i = n - 1; i >= 0; i--) {
    int off = n - 1 - i, dim = in->rank - 1 - off;
    int64_t size = dim >= 0 ? in->shape[dim] : 1;
    int64_t stride = dim >= 0 ? in->stride[dim] : (in->rank == 0 ? 0 : (i + 1 < n ? o.shape[i + 1] * o.stride[i + 1] : 1));
    int64_t target = sizes[i];
    if (target == -1) {
      if (dim < 0) return af_fail(err, "expand: -1 not allowed in a leading, non-existing dimension %d", i);
      target = size;
    }
    if (target < 0) return af_fail(err, "expand: invalid size %lld", (long long)target);
    if (size != target) {
      if (size != 1) return af_fail(err, "expand: the expanded size (%lld) must match the existing size (%lld) at non-singleton dimension %d", (long long)target, (long long)size, i);
      size = target;
      stride = 0;
    }
    if (stride == 0 && size > 1) repeated = 1;
    o.shape[i] = size;
    o.stride[i] = stride;
  }
  *out = o;
  if (repeated) out->nonoverlap = 0;
  return 0;
}

static int v_diagonal(const ops_meta *in, int64_t offset, int64_t d1, int64_t d2, ops_meta *out, af_err *err) {
  if (wrapd(d1, in->rank, &d1, err) || wrapd(d2, in->rank, &d2, err)) return -1;
  if (in->rank < 2 || d1 == d2) return af_fail(err, "diagonal dimensions cannot be identical %lld, %lld", (long long)d1, (long long)d2);
  int64_t s1 = in->shape[d1], s2 = in->shape[d2], size;
  if (offset >= 0) size = s2 - offset < s1 ? s2 - offset : s1;
  else size = s1 + offset < s2 ? s1 + offset : s2;
  if (size < 0) size = 0;
  *out = *in;
  if (size > 0) out->offset += offset >= 0 ? offset * in->stride[d2] : -offset * in->stride[d1];
  int64_t st = in->stride[d1] + in->stride[d2];
  drop_dim(out, (int)(d1 > d2 ? d1 : d2));
  drop_dim(out, (int)(d1 > d2 ? d2 : d1));
  insert_dim(out, out->rank, size, st);
  return 0;
}

static int v_as_strided(const ops_meta *in, int64_t storage, const ir_arg *size, const ir_arg *stride, int64_t offset,
                        ops_meta *out, af_err *err) {
  if (size->n != stride->n) return af_fail(err, "as_strided: mismatch in length of strides and shape");
  if (size->n > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", size->n, AF_MAX_RANK);
  if (offset < 0) return af_fail(err, "as_strided: negative storage offset");
  memset(out, 0, sizeof *out);
  out->rank = size->n;
  out->dtype = in->dtype;
  out->offset = offset;
  out->exact = out->known = 1;
  for (int k = 0; k < size->n; k++) {
    if (size->ints[k] < 0) return af_fail(err, "as_strided: negative size");
    if (stride->ints[k] < 0) return af_fail(err, "as_strided: negative strides are not supported");
    out->shape[k] = size->ints[k];
    out->stride[k] = stride->ints[k];
  }
  int64_t ext = ops_meta_extent(out);
  if (ext > storage)
    return af_fail(err, "as_strided: setStorage: sizes, strides and offset reach element %lld of a storage of %lld", (long long)ext - 1, (long long)storage);
  finish_exact(out);
  return 0;
}

static int v_unfold(const ops_meta *in, int64_t dim, int64_t size, int64_t step, ops_meta *out, af_err *err) {
  if (wrapd(dim, in->rank, &dim, err)) return -1;
  int64_t max = in->rank == 0 ? 1 : in->shape[dim];
  if (size > max || size < 0) return af_fail(err, "unfold: maximum size for tensor at dimension %lld is %lld but size is %lld", (long long)dim, (long long)max, (long long)size);
  if (step <= 0) return af_fail(err, "unfold: step is %lld but must be > 0", (long long)step);
  *out = *in;
  if (in->rank == 0) {
    out->rank = 1;
    out->shape[0] = size;
    out->stride[0] = 1;
    return 0;
  }
  int64_t windows = (in->shape[dim] - size) / step + 1;
  out->shape[dim] = windows;
  out->stride[dim] = step * in->stride[dim];
  insert_dim(out, out->rank, size, in->stride[dim]);
  if (!in->exact && step < size && windows > 1) out->nonoverlap = 0;
  return 0;
}

/* ---------------------------------------------------------------- subscripts */

typedef struct sub_info {
  ops_meta view;                 /* after the basic indices */
  int nt;                        /* tensor index list length (0: basic only) */
  int tv[2 * AF_MAX_RANK];       /* value id per list entry, -1 = whole dim */
  ops_meta result;               /* the value of self[idx] */
  int has_mask, has_int;
  int bt_rank;                   /* broadcast shape of the int index tensors */
  int64_t bt[AF_MAX_RANK];
} sub_info;

#define META(v) (env->meta(env->ctx, (v)))

/* ---- the op table's rule families (harness/ops_rules.def), resolved per op at the end of this
 * file from ops.def's columns ---- */

/* dtype masks of self (ops.def's dtypes column). The classes with no_f16 / no_half leave out the
 * dtypes PyTorch 1.13's CPU kernels lack (no Half kernel for clamp, relu, exp, floor, cumsum, mm...;
 * no BFloat16 one for mish and prod either), so one class serves both stacks. */
enum {
  MF32 = 1 << AF_FLOAT32, MF64 = 1 << AF_FLOAT64, MI64 = 1 << AF_INT64, MB = 1 << AF_BOOL, MI32 = 1 << AF_INT32,
  MI8 = 1 << AF_INT8, MU8 = 1 << AF_UINT8, MF16 = 1 << AF_FLOAT16, MBF16 = 1 << AF_BFLOAT16,
  MC = (1 << AF_COMPLEX64) | (1 << AF_COMPLEX128),
  MF = MF32 | MF64 | MF16 | MBF16, MI = MI64 | MI32 | MI8 | MU8, MN = MF | MI, MALL = MN | MB
};
/* any: every dtype, complex included (views, metadata changes, fill/zero/copy, clone); num_c: the
 * numbers and complex (add, sub, mul, neg and their setitem forms); complex: complex only
 * (view_as_real). Every other class is real: a
 * complex value (torch.view_as_complex) gets only the ops whose line says so. */
enum {
  M_all = MALL, M_any = MALL | MC, M_num_c = MN | MC, M_complex = MC, M_num = MN, M_float = MF, M_f64 = MF64, M_int = MI, M_int_bool = MI | MB,
  M_num_no_f16 = MN & ~MF16, M_num_no_half = MN & ~(MF16 | MBF16), M_float_no_f16 = MF & ~MF16,
  M_float_no_half = MF32 | MF64
};
enum {
  FAM_other = OPS_FAM_OTHER, FAM_view = OPS_FAM_VIEW, FAM_multi_view = OPS_FAM_MULTI_VIEW, FAM_meta = OPS_FAM_META,
  FAM_fill = OPS_FAM_FILL, FAM_arith = OPS_FAM_ARITH, FAM_unary_float = OPS_FAM_UNARY_FLOAT,
  FAM_unary_num = OPS_FAM_UNARY_NUM, FAM_activation = OPS_FAM_ACTIVATION, FAM_compare = OPS_FAM_COMPARE,
  FAM_bitwise = OPS_FAM_BITWISE, FAM_ternary = OPS_FAM_TERNARY, FAM_matrix = OPS_FAM_MATRIX, FAM_index = OPS_FAM_INDEX,
  FAM_cumulative = OPS_FAM_CUMULATIVE, FAM_setitem = OPS_FAM_SETITEM, FAM_write_back = OPS_FAM_WRITE_BACK,
  FAM_control = OPS_FAM_CONTROL, FAM_list = OPS_FAM_LIST, FAM_size = OPS_FAM_SIZE, FAM_reduce = OPS_FAM_REDUCE, FAM_self_return = OPS_FAM_SELF_RETURN,
  FAM_factory = OPS_FAM_FACTORY, FAM_creation = OPS_FAM_CREATION, FAM_foreach = OPS_FAM_FOREACH
};
enum { EX_exact = OPS_EX_KEEP, EX_inexact = OPS_EX_INEXACT, EX_discont = OPS_EX_NEEDS };

/* shape rule classes (ops_rules.def) */
enum { RC_NONE, RC_VIEW, RC_META, RC_WRITE, RC_FUNC, RC_FOREACH };

typedef int (*shape_fn)(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err);
typedef int (*sample_fn)(int op, int p, const ops_meta *m, int64_t storage, const ops_chooser *ch, ir_arg *args);

typedef struct op_rules {
  shape_fn shape;
  sample_fn sample;
  unsigned short dt;                      /* dtype mask of self */
  unsigned char fam, ex, shape_class;     /* ops_family, OPS_EX_*, RC_* */
  signed char primary;                    /* ops_shape_primary */
} op_rules;

#define SHAPE(n, c) \
  static int shape_##n(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err); \
  enum { RC_of_##n = RC_##c };
#define SAMPLE(n, prim) \
  static int sample_##n(int op, int p, const ops_meta *m, int64_t storage, const ops_chooser *ch, ir_arg *args); \
  enum { PRIM_of_##n = prim };
#define WB(n, k, r)
#include "ops_rules.def"
#undef SHAPE
#undef SAMPLE
#undef WB

static int multi_view_range(int op, const ir_arg *a, const ops_meta *in, int64_t *dim, int64_t *start, int64_t *len, af_err *err);
static int self_dtype_ok(int op, const ops_meta *m, af_err *err);
static int dt_drawable(int op, const ops_meta *m);
static int dtype_mask(int op);
static int inplace_of(int op);
static int in_mask(int mask, af_dtype d) { return (int)d >= 0 && d < AF_DTYPE_COUNT && ((mask >> d) & 1); }

/* Bounds of an int index tensor's data against size n (skipped when the data is unknown). */
static int index_in_range(const ops_env *env, int v, int64_t n, af_err *err) {
  int64_t nd = 0;
  const double *d = env->data ? env->data(env->ctx, v, &nd) : NULL;
  if (!d) return 0;
  int64_t numel = ops_meta_numel(META(v));
  for (int64_t k = 0; k < numel; k++) {
    int64_t x = (int64_t)d[nd ? k % nd : 0];
    if (x < -n || x >= n) return af_fail(err, "index %lld is out of bounds for dimension with size %lld", (long long)x, (long long)n);
  }
  return 0;
}

static int infer_subscript(const ir_arg *idx, const ops_meta *self, const ops_env *env, sub_info *si, af_err *err) {
  memset(si, 0, sizeof *si);
  int specified = 0, ell = 0;
  for (int k = 0; k < idx->n; k++) {
    const ir_index *x = &idx->index[k];
    if (x->kind == IR_IDX_INT || x->kind == IR_IDX_SLICE) specified++;
    if (x->kind == IR_IDX_ELLIPSIS) ell++;
    if (x->kind == IR_IDX_TENSOR) {
      const ops_meta *t = META(x->value);
      specified += t->dtype == AF_BOOL ? t->rank : 1;
    }
  }
  if (ell > 1) return af_fail(err, "an index can only have a single ellipsis");
  if (ell == idx->n) return af_fail(err, "x[...] alone does not compile in TorchScript (and eager.c returns x itself, PyTorch an alias)");
  if (specified > self->rank) return af_fail(err, "too many indices for tensor of dimension %d", self->rank);
  ops_meta cur = *self;
  int64_t dim = 0;
  int ell_seen = 0;
  for (int i = 0; i < 2 * AF_MAX_RANK; i++) si->tv[i] = -1;
  for (int k = 0; k < idx->n; k++) {
    const ir_index *x = &idx->index[k];
    ops_meta nx;
    switch (x->kind) {
      case IR_IDX_INT:
        if (v_select(&cur, dim, x->i, &nx, err)) goto fail;
        cur = nx;
        break;
      case IR_IDX_SLICE:
        if (v_slice(&cur, dim, x->has_start, x->start, x->has_stop, x->stop, x->step, &nx, err)) goto fail;
        cur = nx;
        dim++;
        break;
      case IR_IDX_NONE:
        if (cur.rank >= AF_MAX_RANK) {
          af_fail(err, "rank above the limit %d", AF_MAX_RANK);
          goto fail;
        }
        if (v_unsqueeze(&cur, dim, &nx, err)) goto fail;
        cur = nx;
        dim++;
        break;
      case IR_IDX_ELLIPSIS:
        dim += self->rank - specified;
        ell_seen = 1;
        break;
      case IR_IDX_TENSOR: {
        const ops_meta *t = META(x->value);
        if (ell_seen) {
          af_fail(err, "TorchScript: Ellipses followed by tensor indexing is currently not supported");
          goto fail;
        }
        if (t->dtype != AF_BOOL && t->dtype != AF_INT64) {
          af_fail(err, "tensors used as indices must be long, int or bool tensors");
          goto fail;
        }
        if (t->rank == 0) {
          af_fail(err, "0-dim index tensors are not modelled (PyTorch turns them into select)");
          goto fail;
        }
        if (dim >= 2 * AF_MAX_RANK) {
          af_fail(err, "subscript too long");
          goto fail;
        }
        si->tv[dim] = x->value;
        if (dim + 1 > si->nt) si->nt = (int)dim + 1;
        dim++;
        break;
      }
    }
    continue;
  fail:
    af_err_prefix(err, "subscript element %d", k);
    return -1;
  }
  si->view = cur;
  if (!si->nt) {
    si->result = cur;
    return 0;
  }
  /* advanced part: aten::index / index_put_ on the view with the list expanded (a bool mask of
   * rank k stands for k index tensors) */
  int pos = 0, first = -1, last = -1, gap = 0, bt_rank = 0, mask_dims = 0;
  int64_t bt[AF_MAX_RANK] = {0};
  for (int e = 0; e < si->nt; e++) {
    int v = si->tv[e];
    if (v < 0) {
      pos++;
      continue;
    }
    const ops_meta *t = META(v);
    int span = t->dtype == AF_BOOL ? t->rank : 1;
    if (pos + span > cur.rank) return af_fail(err, "too many indices for tensor of dimension %d", cur.rank);
    if (first >= 0 && last + 1 != pos) gap = 1;
    if (first < 0) first = pos;
    last = pos + span - 1;
    if (t->dtype == AF_BOOL) {
      for (int d = 0; d < t->rank; d++)
        if (t->shape[d] != cur.shape[pos + d])
          return af_fail(err, "the shape of the mask at index %d does not match the shape of the indexed tensor", d);
      si->has_mask = 1;
      mask_dims = 1;
      int64_t one = 1;
      if (ops_broadcast(bt_rank, bt, 1, &one, &bt_rank, bt)) return af_fail(err, "shape mismatch: indexing tensors could not be broadcast together");
    } else {
      si->has_int = 1;
      if (index_in_range(env, v, cur.shape[pos], err)) return -1;
      if (ops_broadcast(bt_rank, bt, t->rank, t->shape, &bt_rank, bt))
        return af_fail(err, "shape mismatch: indexing tensors could not be broadcast together");
    }
    pos += span;
  }
  (void)mask_dims;
  si->bt_rank = bt_rank;
  memcpy(si->bt, bt, sizeof bt);
  ops_meta r;
  memset(&r, 0, sizeof r);
  r.dtype = cur.dtype;
  int nr = 0;
  int64_t shp[3 * AF_MAX_RANK];
  if (!gap) {
    for (int d = 0; d < first; d++) shp[nr++] = cur.shape[d];
    for (int d = 0; d < bt_rank; d++) shp[nr++] = bt[d];
    for (int d = last + 1; d < cur.rank; d++) shp[nr++] = cur.shape[d];
  } else {
    for (int d = 0; d < bt_rank; d++) shp[nr++] = bt[d];
    int p = 0;
    for (int e = 0; e < si->nt; e++) {
      int v = si->tv[e];
      if (v < 0) shp[nr++] = cur.shape[p++];
      else p += META(v)->dtype == AF_BOOL ? META(v)->rank : 1;
    }
    while (p < cur.rank) shp[nr++] = cur.shape[p++];
  }
  if (nr > AF_MAX_RANK) return af_fail(err, "rank above the limit %d", AF_MAX_RANK);
  fresh_contig(&r, cur.dtype, nr, shp);
  r.exact = 0; /* aten::index's output strides are not modelled */
  r.known = !si->has_mask;
  si->result = r;
  return 0;
}

/* Duplicate index tuples (int index tensors with known data), wrapped into [0, size). */
static int has_dup_tuples(const sub_info *si, const ops_env *env) {
  int64_t n = ir_numel(si->bt_rank, si->bt);
  if (n > 4096 || !env->data) return 1;
  int64_t *keys = af_xcalloc((size_t)n, sizeof(int64_t));
  int pos = 0;
  int64_t mult = 1;
  for (int e = 0; e < si->nt; e++) {
    int v = si->tv[e];
    if (v < 0) {
      pos++;
      continue;
    }
    const ops_meta *t = META(v);
    int64_t size = si->view.shape[pos], nd = 0;
    const double *d = env->data(env->ctx, v, &nd);
    if (!d) {
      free(keys);
      return 1;
    }
    for (int64_t k = 0; k < n; k++) { /* element of t broadcast to position k of bt */
      int64_t rem = k, src = 0, sm = 1;
      for (int q = si->bt_rank - 1; q >= 0; q--) {
        int64_t c = rem % si->bt[q];
        rem /= si->bt[q];
        int tq = q - (si->bt_rank - t->rank);
        if (tq >= 0) {
          if (t->shape[tq] != 1) src += c * sm;
          sm *= t->shape[tq];
        }
      }
      int64_t x = (int64_t)d[nd ? src % nd : 0];
      if (x < 0) x += size;
      keys[k] += x * mult;
    }
    mult *= size;
    pos++;
  }
  qsort(keys, (size_t)n, sizeof keys[0], cmp_i64);
  int dup = 0;
  for (int64_t k = 1; k < n; k++)
    if (keys[k] == keys[k - 1]) dup = 1;
  free(keys);
  return dup;
}

/* ---------------------------------------------------------------- validity */

/* The operand at argument k as a TensorIterator operand and type-promotion operand. */
static void opnd(const ir_stmt *st, int k, const ops_env *env, ti_opnd *t, af_dtype *dt, ops_opnd_kind *kind) {
  const ir_arg *a = &st->args[k];
  if (a->kind == IR_ARG_VALUE) {
    t->m = META(a->value);
    t->dtype = t->m->dtype;
    *kind = t->m->rank == 0 ? OPS_OPND_ZERODIM : OPS_OPND_TENSOR;
  } else {
    t->m = NULL;
    t->dtype = a->kind == IR_ARG_FLOAT ? AF_FLOAT64 : a->kind == IR_ARG_BOOL ? AF_BOOL : AF_INT64;
    *kind = OPS_OPND_NUMBER;
  }
  *dt = t->dtype;
}

/* Tells env that the refusal about to be made is one of undefinedness (ops_env.undefined). */
static void undefined(const ops_env *env, int why) {
  if (env->undefined) env->undefined(env->ctx, why);
}

static int writable(const ops_env *env, const ops_meta *m, af_err *err) {
  if (!m->known) return af_fail(err, "writes into a tensor whose shape is not known");
  if (ops_meta_overlaps(m)) {
    undefined(env, OPS_UNDEF_SELF_OVERLAP);
    return af_fail(err, "writes into a tensor whose elements overlap in memory (expanded or overlapping view)");
  }
  return 0;
}

/* Operand value v must not share memory with the written value w (same_ok: may be w itself). */
static int no_overlap(const ops_env *env, int w, int v, int same_ok, af_err *err) {
  if (!env->overlap) return 0;
  int lap = env->overlap(env->ctx, w, v);
  if (lap == OPS_LAP_NONE || (lap == OPS_LAP_SAME && same_ok)) return 0;
  undefined(env, OPS_UNDEF_OPERAND);
  return af_fail(err, "an operand shares memory with the written tensor");
}

/* argument a, a number or a 0-dim tensor that eager converts into a tensor of dtype dt with an
 * overflow check (scalar_fits) */
static int value_fits(const ops_env *env, af_dtype dt, const ir_arg *a, af_err *err) {
  if (a->kind == IR_ARG_VALUE) return META(a->value)->rank == 0 ? scalar_fits(dt, a, META(a->value), err) : 0;
  return scalar_fits(dt, a, NULL, err);
}

/* a promoted dtype the model has (uint8 with int8 gives int16, which it has not) */
static int common_ok(af_dtype c, af_err *err) {
  if (!dt_ok(c)) return af_fail(err, "operands promote to a dtype that is not modelled (uint8 with int8: int16)");
  return 0;
}

static int not_bool(const ops_meta *m, const char *what, af_err *err) {
  if (m->dtype == AF_BOOL) return af_fail(err, "%s is not modelled for bool tensors", what);
  return 0;
}

static int number_or_zerodim(const ir_arg *a, const ops_env *env, const char *what, af_err *err) {
  if (a->kind == IR_ARG_VALUE && META(a->value)->rank != 0)
    return af_fail(err, "%s only supports a 0-dimensional value tensor, but got tensor with %d dimension(s)", what, META(a->value)->rank);
  return 0;
}

static int shape_is(const ops_meta *m, int rank, const int64_t *shape) {
  return m->rank == rank && !memcmp(m->shape, shape, sizeof(int64_t) * (size_t)rank);
}

/* index_put_ / index_put shared checks on self with an index list (IR_ARG_VALUES) and values */
static int check_index_put(const ir_stmt *st, const ops_env *env, const ops_meta *self, af_err *err) {
  const ir_arg *ix = &st->args[1];
  const ops_meta *val = META(st->args[2].value);
  if (ix->n == 0) return af_fail(err, "index_put_: empty index list is not modelled");
  sub_info si;
  memset(&si, 0, sizeof si);
  si.view = *self;
  si.nt = ix->n;
  for (int e = 0; e < ix->n; e++) si.tv[e] = ix->values[e];
  /* reuse the subscript logic: build a fake subscript of tensor entries */
  ir_index items[2 * AF_MAX_RANK];
  ir_arg sub = {.kind = IR_ARG_INDEX, .n = ix->n, .index = items};
  if (ix->n > 2 * AF_MAX_RANK) return af_fail(err, "index list too long");
  for (int e = 0; e < ix->n; e++) items[e] = (ir_index){.kind = IR_IDX_TENSOR, .value = ix->values[e]};
  if (infer_subscript(&sub, self, env, &si, err)) return -1;
  if (val->dtype != self->dtype) return af_fail(err, "Index put requires the source and destination dtypes match");
  int64_t rs[AF_MAX_RANK];
  memcpy(rs, si.result.shape, sizeof rs);
  if (!ops_broadcasts_to(val->rank, val->shape, si.result.rank, rs))
    return af_fail(err, "shape mismatch: value tensor cannot be broadcast to indexing result");
  if (si.has_int && si.has_mask) return af_fail(err, "mixing bool and int index tensors is not modelled");
  int acc = st->args[3].i;
  if (!acc && si.has_int && ops_meta_numel(val) > 1 && has_dup_tuples(&si, env))
    return undefined(env, OPS_UNDEF_ORDER), af_fail(err, "index_put_ without accumulate on repeated indices: the result depends on write order");
  return 0;
}

static int check_index_add(const ir_stmt *st, const ops_env *env, const ops_meta *self, af_err *err) {
  int64_t dim;
  if (wrapd(st->args[1].i, self->rank, &dim, err)) return -1;
  const ops_meta *ix = META(st->args[2].value), *src = META(st->args[3].value);
  if (ix->rank > 1) return af_fail(err, "index_add_(): Index is supposed to be a vector");
  if (ix->dtype != AF_INT64) return af_fail(err, "index_add_(): Expected dtype int32/int64 for index");
  if (src->dtype != self->dtype) return af_fail(err, "index_add_(): self and source must have the same scalar type");
  if (self->rank == 0 || src->rank != self->rank) return af_fail(err, "index_add_(): source must have the rank of self (rank-0 not modelled)");
  int64_t n = ops_meta_numel(ix);
  for (int d = 0; d < self->rank; d++) {
    int64_t want = d == dim ? n : self->shape[d];
    if (src->shape[d] != want) return af_fail(err, "index_add_(): source has size %lld at dim %d, expected %lld", (long long)src->shape[d], d, (long long)want);
  }
  int64_t nd = 0;
  const double *data = env->data ? env->data(env->ctx, st->args[2].value, &nd) : NULL;
  for (int64_t k = 0; data && k < n; k++) {
    int64_t x = (int64_t)data[nd ? k % nd : 0];
    if (x < 0 || x >= self->shape[dim]) return af_fail(err, "index_add_(): index out of range in self");
  }
  return 0;
}

static int check_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, af_err *err) {
  int64_t dim;
  if (wrapd(st->args[1].i, self->rank, &dim, err)) return -1;
  const ops_meta *ix = META(st->args[2].value);
  if (ix->dtype != AF_INT64) return af_fail(err, "scatter(): Expected dtype int64 for index");
  if (self->rank == 0 || ix->rank != self->rank) return af_fail(err, "Index tensor must have the same number of dimensions as self tensor (rank 0 not modelled)");
  const ops_meta *src = st->args[3].kind == IR_ARG_VALUE ? META(st->args[3].value) : NULL;
  if (src && src->dtype != self->dtype) return af_fail(err, "scatter(): Expected self.dtype to be equal to src.dtype");
  if (!src && scalar_fits(self->dtype, &st->args[3], NULL, err)) return -1;
  if (src && src->rank != self->rank) return af_fail(err, "Index tensor must have the same number of dimensions as src tensor");
  for (int d = 0; d < self->rank; d++) {
    if (d != dim && ix->shape[d] > self->shape[d]) return af_fail(err, "Size does not match at dimension %d: index larger than self", d);
    if (src && ix->shape[d] > src->shape[d]) return af_fail(err, "Size does not match at dimension %d: index larger than src", d);
  }
  int64_t nd = 0;
  const double *data = env->data ? env->data(env->ctx, st->args[2].value, &nd) : NULL;
  if (!data) return src ? af_fail(err, "scatter_ with a src tensor and unknown index data: write order not decidable") : 0;
  int64_t n = ops_meta_numel(ix);
  for (int64_t k = 0; k < n; k++) {
    int64_t x = (int64_t)data[nd ? k % nd : 0];
    if (x < 0 || x >= self->shape[dim]) return af_fail(err, "scatter(): index %lld is out of bounds for dimension %lld with size %lld", (long long)x, (long long)dim, (long long)self->shape[dim]);
  }
  if (src) { /* distinct targets along dim for each line */
    int64_t idx[AF_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
      if (idx[dim] == 0) { /* check this line */
        int64_t base = 0, mul = 1, lstride = 1;
        for (int d = ix->rank - 1; d >= 0; d--) {
          if (d == dim) lstride = mul;
          base += idx[d] * mul;
          mul *= ix->shape[d];
        }
        for (int64_t a = 0; a < ix->shape[dim]; a++)
          for (int64_t b = a + 1; b < ix->shape[dim]; b++) {
            int64_t xa = (int64_t)data[nd ? (base + a * lstride) % nd : 0], xb = (int64_t)data[nd ? (base + b * lstride) % nd : 0];
            if (xa == xb) return undefined(env, OPS_UNDEF_ORDER), af_fail(err, "scatter_ with a src tensor and repeated indices along dim: the result depends on write order");
          }
      }
      for (int d = ix->rank - 1; d >= 0; d--) {
        if (++idx[d] < ix->shape[d]) break;
        idx[d] = 0;
      }
    }
  }
  return 0;
}

/* Spellings with $:N need argument N >= 0 (the emitter repeats ":, " N times). */
static int spelling_dims_ok(const ir_stmt *st, const ops_entry *e, af_err *err) {
  for (const char *c = e->spelling; (c = strstr(c, "$:")); c += 2) {
    int k = c[2] - '0';
    if (k >= 0 && k < st->nargs && st->args[k].kind == IR_ARG_INT && st->args[k].i < 0)
      return af_fail(err, "argument %d must be a non-negative dim (spelled as %s)", k, e->spelling);
  }
  return 0;
}

/* ---------------------------------------------------------------- ops_shape_infer */

int ops_shape_writes_data(int op) {
  const ops_entry *e = ops_get(op);
  if (!e) return 0;
  if (e->kind == OPS_OUT || e->kind == OPS_SETITEM || e->kind == OPS_FOREACH) return 1;
  return e->kind == OPS_INPLACE && !(e->flags & OPF_META);
}

/* result type of `self op other` for arithmetic; fails on bool operands (not modelled) */
static int arith_type(const ir_stmt *st, const ops_env *env, int a, int b, af_dtype *common, af_err *err) {
  ti_opnd t[2];
  af_dtype dt[2];
  ops_opnd_kind k[2];
  opnd(st, a, env, &t[0], &dt[0], &k[0]);
  opnd(st, b, env, &t[1], &dt[1], &k[1]);
  if (dt[0] == AF_BOOL || dt[1] == AF_BOOL) return af_fail(err, "arithmetic on bool is not modelled");
  *common = ops_result_type(2, dt, k);
  return common_ok(*common, err);
}

/* ---------------------------------------------------------------- shape rules: views
 * A VIEW rule fills e->out (and e->alias when the result is not a view) and returns 0, or 1 when
 * its result is a layout already finished (returned as it is), or -1 with err. */

static int shape_view_slice(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  return v_slice(in, a[1].i, 1, a[2].i, 1, a[3].i, a[4].i, &e->out, err);
}

static int shape_view_select(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return v_select(in, st->args[1].i, st->args[2].i, &e->out, err);
}

static int shape_view_narrow(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  if (in->rank == 0) return af_fail(err, "narrow() cannot be applied to a 0-dim tensor");
  int64_t dim, start = a[2].i, len = a[3].i;
  if (wrapd(a[1].i, in->rank, &dim, err)) return -1;
  int64_t n = in->shape[dim];
  if (start < -n || start > n) return af_fail(err, "narrow(): start %lld out of range", (long long)start);
  if (start < 0) start += n;
  if (len < 0 || start + len > n) return af_fail(err, "narrow(): start (%lld) + length (%lld) exceeds dimension size (%lld)", (long long)start, (long long)len, (long long)n);
  return v_slice(in, dim, 1, start, 1, start + len, 1, &e->out, err);
}

static int shape_view_view(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return v_view(in, st->args[1].n, st->args[1].ints, 0, &e->out, err) < 0 ? -1 : 0;
}

static int shape_view_view_as(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  const ops_meta *t = META(st->args[1].value);
  return v_view(in, t->rank, t->shape, 0, &e->out, err) < 0 ? -1 : 0;
}

/* a maybe-view that copied: a fresh result */
static void copied(ops_effect *e) {
  e->alias = OPS_ALIAS_FRESH;
  e->copied = 1;
  e->storage_numel = ops_meta_numel(&e->out);
}

static int shape_view_reshape(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  int r = v_view(in, st->args[1].n, st->args[1].ints, 1, &e->out, err);
  if (r < 0) return -1;
  if (r == 0) copied(e);
  return 0;
}

static int shape_view_flatten(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  int64_t s, t;
  if (wrapd(a[1].i, in->rank, &s, err) || wrapd(a[2].i, in->rank, &t, err)) return -1;
  if (s > t) return af_fail(err, "flatten() has invalid args: start_dim cannot come after end_dim");
  int64_t shape[AF_MAX_RANK];
  int n = 0;
  if (in->rank == 0) {
    shape[n++] = 1;
  } else {
    if (s == t) {
      e->out = *in;
      e->alias = OPS_ALIAS_SAME;
      return 1;
    }
    for (int d = 0; d < s; d++) shape[n++] = in->shape[d];
    int64_t p = 1;
    for (int64_t d = s; d <= t; d++) p *= in->shape[d];
    shape[n++] = p;
    for (int d = (int)t + 1; d < in->rank; d++) shape[n++] = in->shape[d];
  }
  int r = v_view(in, n, shape, 1, &e->out, err);
  if (r < 0) return -1;
  if (r == 0) copied(e);
  return 0;
}

static int shape_view_unflatten(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  ops_meta *o = &e->out;
  if (in->rank == 0) return af_fail(err, "unflatten() cannot be applied to a 0-dim tensor");
  int64_t dim;
  if (wrapd(a[1].i, in->rank, &dim, err)) return -1;
  if (a[2].n == 0) return af_fail(err, "unflatten: sizes must be non-empty");
  int64_t sz[AF_MAX_RANK];
  if (a[2].n > AF_MAX_RANK) return af_fail(err, "unflatten: too many sizes");
  if (infer_size(a[2].n, a[2].ints, in->shape[dim], sz, err)) {
    af_err_prefix(err, "unflatten: provided sizes don't multiply up to the size of dim %lld", (long long)dim);
    return -1;
  }
  int64_t shape[2 * AF_MAX_RANK];
  int n = 0;
  for (int d = 0; d < dim; d++) shape[n++] = in->shape[d];
  for (int k = 0; k < a[2].n; k++) shape[n++] = sz[k];
  for (int d = (int)dim + 1; d < in->rank; d++) shape[n++] = in->shape[d];
  if (n > AF_MAX_RANK) return af_fail(err, "rank above the limit %d", AF_MAX_RANK);
  if (!in->exact) { /* splitting one dim is always a view; strides not modelled */
    *o = *in;
    o->rank = n;
    memcpy(o->shape, shape, sizeof(int64_t) * (size_t)n);
    return 1;
  }
  return v_view(in, n, shape, 0, o, err) < 0 ? -1 : 0;
}

static int shape_view_squeeze(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return v_squeeze(in, st->args[1].i, &e->out, err);
}

static int shape_view_unsqueeze(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  if (in->rank >= AF_MAX_RANK) return af_fail(err, "rank above the limit %d", AF_MAX_RANK);
  return v_unsqueeze(in, st->args[1].i, &e->out, err);
}

/* transpose, swapaxes, swapdims */
static int shape_view_transpose(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return v_transpose(in, st->args[1].i, st->args[2].i, &e->out, err);
}

static int shape_view_t(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)st, (void)env;
  return v_t(in, &e->out, err);
}

static int shape_view_permute(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return v_permute(in, st->args[1].n, st->args[1].ints, &e->out, err);
}

static int shape_view_movedim(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return v_movedim(in, st->args[1].i, st->args[2].i, &e->out, err);
}

static int shape_view_expand(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  return v_expand(in, st->args[1].n, st->args[1].ints, &e->out, err);
}

static int shape_view_expand_as(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  const ops_meta *t = META(st->args[1].value);
  return v_expand(in, t->rank, t->shape, &e->out, err);
}

static int shape_view_diagonal(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  return v_diagonal(in, a[1].i, a[2].i, a[3].i, &e->out, err);
}

static int shape_view_as_strided(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  return v_as_strided(in, env->storage_numel ? env->storage_numel(env->ctx, a[0].value) : ops_meta_extent(in), &a[1], &a[2],
                      a[3].i, &e->out, err);
}

static int shape_view_unfold(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  if (in->rank >= AF_MAX_RANK) return af_fail(err, "rank above the limit %d", AF_MAX_RANK);
  return v_unfold(in, a[1].i, a[2].i, a[3].i, &e->out, err);
}

/* detach, alias: the same layout */
static int shape_view_alias(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  e->out = *in;
  return 0;
}

static int shape_view_getitem(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  sub_info si;
  if (infer_subscript(&st->args[1], in, env, &si, err)) return -1;
  e->out = si.result;
  if (si.nt) copied(e);
  return 0;
}

static int shape_view_unbind(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  int64_t dim, start, len;
  if (multi_view_range(st->op, st->args, in, &dim, &start, &len, err)) return -1;
  return v_select(in, dim, start, &e->out, err);
}

/* split_get, chunk_get */
static int shape_view_split(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)env;
  int64_t dim, start, len;
  if (multi_view_range(st->op, st->args, in, &dim, &start, &len, err)) return -1;
  return v_slice(in, dim, 1, start, 1, start + len, 1, &e->out, err);
}

/* ---------------------------------------------------------------- shape rules: in place, shape-changing
 * A META rule fills e->out with self's new layout. */

/* unsqueeze_, squeeze_, transpose_ (swapaxes_, swapdims_), t_: self's new layout is what the
 * view of the same name gives (the META class differs from the VIEW one in what the dispatcher
 * does with e->out, not in the layout) */
static int shape_meta_unsqueeze(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return shape_view_unsqueeze(st, env, self, e, err);
}

static int shape_meta_squeeze(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return shape_view_squeeze(st, env, self, e, err);
}

static int shape_meta_transpose(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return shape_view_transpose(st, env, self, e, err);
}

static int shape_meta_t(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return shape_view_t(st, env, self, e, err);
}

static int shape_meta_as_strided(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  int64_t storage = env->storage_numel ? env->storage_numel(env->ctx, a[0].value) : ops_meta_extent(self);
  if (v_as_strided(self, storage, &a[1], &a[2], a[3].i, &e->out, err)) return -1;
  return 0;
}

static int shape_meta_resize(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  ops_meta *o = &e->out;
  if (a[1].n > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", a[1].n, AF_MAX_RANK);
  for (int k = 0; k < a[1].n; k++)
    if (a[1].ints[k] < 0) return af_fail(err, "Trying to create tensor with negative dimension %lld", (long long)a[1].ints[k]);
  int64_t storage = env->storage_numel ? env->storage_numel(env->ctx, a[0].value) : ops_meta_extent(self);
  int64_t numel = ir_numel(a[1].n, a[1].ints);
  if (!self->exact) return af_fail(err, "resize_ of a tensor whose layout is not modelled");
  if (numel && self->offset + numel > storage)
    return af_fail(err, "resize_ that grows the storage (the new elements are uninitialized memory) is not generated");
  *o = *self;
  if (self->rank == a[1].n && !memcmp(self->shape, a[1].ints, sizeof(int64_t) * (size_t)a[1].n))
    return 0; /* the same sizes: ATen's resize_ returns self as it is, strides (a zero stride too) kept */
  o->rank = a[1].n;
  memcpy(o->shape, a[1].ints, sizeof(int64_t) * (size_t)a[1].n);
  contig_strides(o->rank, o->shape, o->stride);
  o->nonoverlap = 1;
  return 0;
}

/* ---------------------------------------------------------------- shape rules: data writes
 * A WRITE rule checks that eager accepts the write into self (argument 0, already known to be
 * writable unless the op is a setitem) and returns 0, or -1 with err. */

/* add_, sub_, mul_ (true_div 0) and div_ (1) */
static int arith_inplace(const ir_stmt *st, const ops_env *env, const ops_meta *self, int true_div, af_err *err) {
  const ir_arg *a = st->args;
  af_dtype common;
  if (arith_type(st, env, 0, 1, &common, err)) return -1;
  if (true_div && !is_float(common)) common = AF_FLOAT32;
  if (!ops_can_cast(common, self->dtype))
    return af_fail(err, "result type %s can't be cast to the desired output type %s", af_dtype_name(common), af_dtype_name(self->dtype));
  if (a[1].kind == IR_ARG_VALUE) {
    const ops_meta *o = META(a[1].value);
    if (!ops_broadcasts_to(o->rank, o->shape, self->rank, self->shape))
      return af_fail(err, "output with the shape of self doesn't match the broadcast shape");
    if (no_overlap(env, a[0].value, a[1].value, 1, err)) return -1;
  }
  return 0;
}

static int shape_write_arith(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return arith_inplace(st, env, self, 0, err);
}

static int shape_write_div(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return arith_inplace(st, env, self, 1, err);
}

/* neg_, abs_, relu_ */
static int shape_write_not_bool(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  return not_bool(self, ops_get(st->op)->name, err);
}

/* clamp/clip bounds: at least one, and no float bound for an integer self */
static int clamp_bounds_ok(const ir_arg *a, const ops_meta *self, af_err *err) {
  if (a[1].kind == IR_ARG_NONE && a[2].kind == IR_ARG_NONE) return af_fail(err, "torch.clamp: At least one of 'min' or 'max' must not be None");
  for (int k = 1; k <= 2; k++) {
    if (is_int(self->dtype) && a[k].kind == IR_ARG_FLOAT) return af_fail(err, "result type Float can't be cast to the desired output type long");
    if (scalar_fits(self->dtype, &a[k], NULL, err)) return -1;
  }
  return 0;
}

static int shape_write_clamp(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  if (not_bool(self, "clamp_", err)) return -1;
  return clamp_bounds_ok(st->args, self, err);
}

static int shape_write_fill(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)self, (void)e;
  const ir_arg *a = st->args;
  if (number_or_zerodim(&a[1], env, "fill_", err) || value_fits(env, self->dtype, &a[1], err)) return -1;
  if (a[1].kind == IR_ARG_VALUE && no_overlap(env, a[0].value, a[1].value, 0, err)) return -1;
  return 0;
}

/* zero_: any writable self */
static int shape_write_plain(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)self, (void)e, (void)err;
  return 0;
}

static int shape_write_copy(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  const ops_meta *src = META(a[1].value);
  if (!ops_broadcasts_to(src->rank, src->shape, self->rank, self->shape)) return af_fail(err, "copy_: src does not broadcast to self");
  return no_overlap(env, a[0].value, a[1].value, 1, err);
}

static int shape_write_masked_fill(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  const ops_meta *mask = META(a[1].value);
  if (mask->dtype != AF_BOOL) return af_fail(err, "masked_fill_ only supports boolean masks");
  if (!ops_broadcasts_to(mask->rank, mask->shape, self->rank, self->shape)) return af_fail(err, "masked_fill_: mask does not broadcast to self");
  if (number_or_zerodim(&a[2], env, "masked_fill_", err) || value_fits(env, self->dtype, &a[2], err)) return -1;
  if (no_overlap(env, w, a[1].value, 0, err)) return -1;
  if (a[2].kind == IR_ARG_VALUE && no_overlap(env, w, a[2].value, 0, err)) return -1;
  return 0;
}

static int shape_write_index_put(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (check_index_put(st, env, self, err)) return -1;
  for (int k = 0; k < a[1].n; k++)
    if (no_overlap(env, w, a[1].values[k], 0, err)) return -1;
  return no_overlap(env, w, a[2].value, 0, err);
}

static int shape_write_index_add(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (check_index_add(st, env, self, err)) return -1;
  if (no_overlap(env, w, a[2].value, 0, err)) return -1;
  return no_overlap(env, w, a[3].value, 0, err);
}

static int shape_write_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (check_scatter(st, env, self, err)) return -1;
  if (no_overlap(env, w, a[2].value, 0, err)) return -1;
  if (a[3].kind == IR_ARG_VALUE && no_overlap(env, w, a[3].value, 0, err)) return -1;
  return 0;
}

/* add_out, mul_out: torch.op(x, y, out=self) */
static int shape_out_binary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  const ops_meta *x = META(a[1].value), *y = META(a[2].value);
  if (x->dtype == AF_BOOL || y->dtype == AF_BOOL) return af_fail(err, "arithmetic on bool is not modelled");
  int r;
  int64_t shape[AF_MAX_RANK];
  if (ops_broadcast(x->rank, x->shape, y->rank, y->shape, &r, shape)) return af_fail(err, "operands do not broadcast");
  if (!shape_is(self, r, shape)) return af_fail(err, "out= tensor has another shape than the result (it would be resized)");
  af_dtype common;
  if (arith_type(st, env, 1, 2, &common, err)) return -1;
  if (!ops_can_cast(common, self->dtype))
    return af_fail(err, "result type %s can't be cast to the desired output type %s", af_dtype_name(common), af_dtype_name(self->dtype));
  if (no_overlap(env, w, a[1].value, 1, err) || no_overlap(env, w, a[2].value, 1, err)) return -1;
  return 0;
}

/* `self[idx] = v` (aug 0) and `self[idx] op= v` (aug 1) */
static int setitem_rule(const ir_stmt *st, const ops_env *env, const ops_meta *self, int aug, af_err *err) {
  const ir_arg *a = st->args;
  int w = a[0].value;
  sub_info si;
  if (infer_subscript(&a[1], self, env, &si, err)) return -1;
  if (writable(env, &si.view, err)) return -1;
  const ir_arg *v = &a[2];
  const ops_meta *vm = v->kind == IR_ARG_VALUE ? META(v->value) : NULL;
  if (vm) {
    if (no_overlap(env, w, v->value, 0, err)) return -1;
    int64_t rs[AF_MAX_RANK];
    memcpy(rs, si.result.shape, sizeof rs);
    if (!ops_broadcasts_to(vm->rank, vm->shape, si.result.rank, rs))
      return af_fail(err, "shape mismatch: value tensor of rank %d cannot be broadcast to the indexing result of rank %d", vm->rank, si.result.rank);
  }
  if (si.has_int && si.has_mask) return af_fail(err, "mixing bool and int index tensors is not modelled");
  if (!aug) {
    if (si.nt && vm && vm->dtype != self->dtype) return af_fail(err, "Index put requires the source and destination dtypes match");
    if (!vm && scalar_fits(self->dtype, v, NULL, err)) return -1;
  } else {
    af_dtype dt[2] = {self->dtype, vm ? vm->dtype : (v->kind == IR_ARG_FLOAT ? AF_FLOAT64 : v->kind == IR_ARG_BOOL ? AF_BOOL : AF_INT64)};
    ops_opnd_kind k[2] = {si.result.rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM,
                          vm ? (vm->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM) : OPS_OPND_NUMBER};
    if (dt[0] == AF_BOOL || dt[1] == AF_BOOL) return af_fail(err, "arithmetic on bool is not modelled");
    af_dtype common = ops_result_type(2, dt, k);
    if (common_ok(common, err)) return -1;
    if (!ops_can_cast(common, self->dtype))
      return af_fail(err, "result type %s can't be cast to the desired output type %s", af_dtype_name(common), af_dtype_name(self->dtype));
  }
  if (si.has_int && (vm ? ops_meta_numel(vm) > 1 : 0) && has_dup_tuples(&si, env))
    return undefined(env, OPS_UNDEF_ORDER), af_fail(err, "setitem with repeated indices and a non-uniform value: the result depends on write order");
  return 0;
}

static int shape_write_setitem(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return setitem_rule(st, env, self, 0, err);
}

static int shape_write_setitem_aug(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return setitem_rule(st, env, self, 1, err);
}

/* ---------------------------------------------------------------- shape rules: functional ops
 * A FUNC rule fills e->out with the fresh result's layout (or sets e->alias when the result is
 * an argument itself) and returns 0, or -1 with err. */

/* add, sub, mul; div (true_div); gt (to_bool) */
static int arith_func(const ir_stmt *st, const ops_env *env, const ops_meta *self, int true_div, int to_bool, ops_meta *o, af_err *err) {
  af_dtype common;
  if (arith_type(st, env, 0, 1, &common, err)) return -1;
  if (true_div && !is_float(common)) common = AF_FLOAT32;
  ti_opnd t[2];
  af_dtype dt;
  ops_opnd_kind k;
  opnd(st, 0, env, &t[0], &dt, &k);
  opnd(st, 1, env, &t[1], &dt, &k);
  int r = self->rank;
  int64_t shape[AF_MAX_RANK];
  memcpy(shape, self->shape, sizeof shape);
  if (t[1].m && ops_broadcast(self->rank, self->shape, t[1].m->rank, t[1].m->shape, &r, shape))
    return af_fail(err, "the shapes of the operands do not broadcast");
  ti_layout(2, t, common, r, shape, to_bool ? AF_BOOL : common, o);
  return 0;
}

static int shape_func_arith(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return arith_func(st, env, self, 0, 0, &e->out, err);
}

static int shape_func_div(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return arith_func(st, env, self, 1, 0, &e->out, err);
}

static int shape_func_gt(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return arith_func(st, env, self, 0, 1, &e->out, err);
}

/* neg, abs, relu: self's dtype, TensorIterator's layout */
static int shape_func_not_bool(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (not_bool(self, ops_get(st->op)->name, err)) return -1;
  ti_opnd t = {self, self->dtype};
  ti_layout(1, &t, self->dtype, self->rank, self->shape, self->dtype, &e->out);
  return 0;
}

static int shape_func_clamp(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  if (not_bool(self, ops_get(st->op)->name, err)) return -1;
  af_dtype dt = self->dtype;
  if (a[1].kind == IR_ARG_NONE && a[2].kind == IR_ARG_NONE) return af_fail(err, "torch.clamp: At least one of 'min' or 'max' must not be None");
  for (int k = 1; k <= 2; k++) {
    if (is_int(dt) && a[k].kind == IR_ARG_FLOAT) dt = AF_FLOAT32;
    if (scalar_fits(self->dtype, &a[k], NULL, err)) return -1;
  }
  ti_opnd t = {self, self->dtype};
  ti_layout(1, &t, dt, self->rank, self->shape, dt, &e->out);
  return 0;
}

static int shape_func_fill(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (number_or_zerodim(&st->args[1], env, "fill", err) || value_fits(env, self->dtype, &st->args[1], err)) return -1;
  preserve_layout(self, &e->out);
  return 0;
}

static int shape_func_zero(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  preserve_layout(self, &e->out);
  return 0;
}

static int shape_func_copy(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  /* 1.13: src.to(self) then expand_copy to self's shape; src.to(self) is src itself when the
   * dtype matches, and no copy follows when the shapes match: the result is src */
  ops_meta *o = &e->out;
  const ops_meta *src = META(st->args[1].value);
  if (!ops_broadcasts_to(src->rank, src->shape, self->rank, self->shape)) return af_fail(err, "copy: src does not broadcast to self");
  if (shape_is(src, self->rank, self->shape) && src->dtype == self->dtype)
    return af_fail(err, "copy(self, src) returns src itself when shapes and dtypes match, against its functional schema (executors differ)");
  ops_meta conv, ex;
  if (src->dtype != self->dtype) {
    preserve_layout(src, &conv);
    conv.dtype = self->dtype;
  } else {
    conv = *src;
  }
  if (shape_is(&conv, self->rank, self->shape)) {
    *o = conv;
    return 0;
  }
  if (v_expand(&conv, self->rank, self->shape, &ex, err)) return -1; /* expand_copy: expand + clone */
  preserve_layout(&ex, o);
  return 0;
}

static int shape_func_masked_fill(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  const ops_meta *mask = META(a[1].value);
  if (mask->dtype != AF_BOOL) return af_fail(err, "masked_fill only supports boolean masks");
  if (number_or_zerodim(&a[2], env, "masked_fill", err) || value_fits(env, self->dtype, &a[2], err)) return -1;
  int r;
  int64_t shape[AF_MAX_RANK];
  if (ops_broadcast(self->rank, self->shape, mask->rank, mask->shape, &r, shape)) return af_fail(err, "masked_fill: mask does not broadcast");
  fresh_contig(&e->out, self->dtype, r, shape);
  return 0;
}

static int shape_func_index_put(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (check_index_put(st, env, self, err)) return -1;
  preserve_layout(self, &e->out);
  return 0;
}

static int shape_func_index_add(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (check_index_add(st, env, self, err)) return -1;
  fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  return 0;
}

static int shape_func_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (check_scatter(st, env, self, err)) return -1;
  fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  return 0;
}

static int shape_func_sum(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  fresh_contig(&e->out, is_float(self->dtype) ? self->dtype : AF_INT64, 0, NULL);
  return 0;
}

static int shape_func_mean(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env;
  if (!is_float(self->dtype)) return af_fail(err, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype");
  fresh_contig(&e->out, self->dtype, 0, NULL);
  return 0;
}

static int shape_func_matmul(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  ops_meta *o = &e->out;
  const ops_meta *x = self, *y = META(st->args[1].value);
  if (x->dtype != y->dtype) return af_fail(err, "matmul: expected both operands to have the same dtype");
  if (x->dtype == AF_BOOL) return af_fail(err, "matmul is not modelled for bool");
  if (x->rank == 0 || y->rank == 0) return af_fail(err, "both arguments to matmul need to be at least 1D");
  int64_t kx = x->shape[x->rank - 1], ky = y->rank == 1 ? y->shape[0] : y->shape[y->rank - 2];
  if (kx != ky) return af_fail(err, "mat1 and mat2 shapes cannot be multiplied (inner sizes %lld and %lld)", (long long)kx, (long long)ky);
  int64_t shape[AF_MAX_RANK] = {0};
  int r = 0;
  if (x->rank == 1 && y->rank == 1) {
    r = 0;
  } else if (y->rank == 1) {
    r = x->rank - 1;
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)r);
  } else if (x->rank == 1) {
    r = y->rank - 1;
    for (int d = 0; d < y->rank - 2; d++) shape[d] = y->shape[d];
    shape[r - 1] = y->shape[y->rank - 1];
  } else {
    int br;
    int64_t bs[AF_MAX_RANK];
    if (ops_broadcast(x->rank - 2, x->shape, y->rank - 2, y->shape, &br, bs)) return af_fail(err, "matmul: batch dims do not broadcast");
    memcpy(shape, bs, sizeof(int64_t) * (size_t)br);
    shape[br] = x->shape[x->rank - 2];
    shape[br + 1] = y->shape[y->rank - 1];
    r = br + 2;
  }
  fresh_contig(o, x->dtype, r, shape);
  for (int d = 0; d < r; d++) /* matmul's composite (mm/bmm + views) leaves other strides on size-1 dims */
    if (shape[d] == 1) o->exact = 0;
  return 0;
}

/* cat (stack 0) and stack (1) of a tensor list */
static int cat_rule(const ir_stmt *st, const ops_env *env, int stack, ops_meta *o, af_err *err) {
  const ir_arg *a = st->args;
  const char *name = ops_get(st->op)->name;
  const ir_arg *l = &a[0];
  if (l->n == 0) return af_fail(err, "%s expects a non-empty TensorList", name);
  const ops_meta *f = META(l->values[0]);
  int64_t dim;
  if (wrapd(a[1].i, stack ? f->rank + 1 : f->rank, &dim, err)) return -1;
  if (!stack && f->rank == 0) return af_fail(err, "zero-dimensional tensor cannot be concatenated");
  af_dtype dt = f->dtype;
  int64_t total = 0;
  for (int k = 0; k < l->n; k++) {
    const ops_meta *m = META(l->values[k]);
    if (m->dtype != dt) return af_fail(err, "%s of mixed dtypes is not modelled", name);
    if (m->rank != f->rank) return af_fail(err, "%s: tensors must have the same number of dimensions", name);
    for (int d = 0; d < f->rank; d++)
      if ((stack || d != dim) && m->shape[d] != f->shape[d]) return af_fail(err, "%s: sizes of tensors must match except in dimension %lld", name, (long long)dim);
    if (!stack) total += m->shape[dim];
  }
  int64_t shape[AF_MAX_RANK];
  int r = f->rank;
  memcpy(shape, f->shape, sizeof(int64_t) * (size_t)r);
  if (!stack) {
    shape[dim] = total;
  } else {
    if (r >= AF_MAX_RANK) return af_fail(err, "rank above the limit %d", AF_MAX_RANK);
    for (int d = r; d > dim; d--) shape[d] = shape[d - 1];
    shape[dim] = l->n;
    r++;
  }
  fresh_contig(o, dt, r, shape);
  if (r >= 4) o->exact = 0; /* memory-format suggestion of rank-4/5 inputs not modelled */
  return 0;
}

static int shape_func_cat(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)self;
  return cat_rule(st, env, 0, &e->out, err);
}

static int shape_func_stack(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)self;
  return cat_rule(st, env, 1, &e->out, err);
}

static int shape_func_clone(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  preserve_layout(self, &e->out);
  return 0;
}

/* contiguous(): self itself when contiguous already, else a contiguous copy */
static int shape_func_contiguous(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env;
  if (!self->exact) return af_fail(err, "contiguous() of a tensor whose strides are not modelled (self or copy not decided)");
  if (ops_meta_is_contiguous(self)) {
    e->out = *self;
    e->alias = OPS_ALIAS_SAME;
    return 0;
  }
  fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  e->copied = 1;
  return 0;
}

static int shape_func_where(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  ops_meta *o = &e->out;
  const ops_meta *x = META(a[1].value), *y = META(a[2].value);
  if (self->dtype != AF_BOOL) return af_fail(err, "where expected condition to be a boolean tensor");
  int r;
  int64_t shape[AF_MAX_RANK];
  if (ops_broadcast(self->rank, self->shape, x->rank, x->shape, &r, shape) || ops_broadcast(r, shape, y->rank, y->shape, &r, shape))
    return af_fail(err, "where: the shapes of the operands do not broadcast");
  af_dtype dt[2] = {x->dtype, y->dtype};
  ops_opnd_kind k[2] = {x->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM, y->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM};
  af_dtype common = ops_result_type(2, dt, k);
  if (common_ok(common, err)) return -1;
  ti_opnd t[3] = {{self, AF_BOOL}, {x, x->dtype}, {y, y->dtype}};
  ti_layout(3, t, DT_UNDEF, r, shape, common, o); /* no conversion inside: operands of another dtype are converted before */
  if (x->dtype != y->dtype) o->exact = 0;
  return 0;
}

/* the write-back scatters: the slice of self they write must have src's shape */
enum { SC_SLICE, SC_SELECT, SC_DIAGONAL, SC_AS_STRIDED };

/* Elements as_strided_scatter's result may reach, for a self whose storage holds `storage`
 * elements (0: unknown): numel(self) (a dense clone: 1.13, or 2.x's for a zero stride), or 2.x's
 * copy of self's whole storage (clone_preserve_strides), which an overlapping self's numel may
 * exceed (as_strided_([2, 2, 3], [4, 1, 1]) of 10 elements). The smaller bound holds on both;
 * the rule and the sampler both take it. */
static int64_t scatter_room(const ops_meta *self, int64_t storage) {
  int64_t room = ops_meta_numel(self);
  return storage > 0 && storage < room ? storage : room;
}
static int scatter_rule(const ir_stmt *st, const ops_env *env, const ops_meta *self, int how, ops_meta *o, af_err *err) {
  const ir_arg *a = st->args;
  const ops_meta *src = META(a[1].value);
  ops_meta sl;
  ops_meta out0;
  preserve_layout(self, &out0);
  int rc;
  if (how == SC_SLICE) rc = v_slice(&out0, a[2].i, 1, a[3].i, 1, a[4].i, a[5].i, &sl, err);
  else if (how == SC_SELECT) rc = v_select(&out0, a[2].i, a[3].i, &sl, err);
  else if (how == SC_DIAGONAL) rc = v_diagonal(&out0, a[2].i, a[3].i, a[4].i, &sl, err);
  else {
    int64_t room = scatter_room(self, env->storage_numel ? env->storage_numel(env->ctx, a[0].value) : 0);
    rc = v_as_strided(&out0, room, &a[2], &a[3], a[4].i, &sl, err);
    if (!rc && ops_meta_overlaps(&sl)) rc = af_fail(err, "as_strided_scatter into overlapping memory");
  }
  if (rc) return -1;
  if (!shape_is(src, sl.rank, sl.shape)) return af_fail(err, "%s: expected src to have a size equal to the slice of self", ops_get(st->op)->name);
  *o = out0;
  /* PyTorch 2.x clones self keeping its sizes, strides and offset in a copy of its whole storage
     (clone_preserve_strides), falling back to a dense clone only for an overlap has_internal_overlap
     proves (a zero stride); other overlapping layouts (an unfold's, an as_strided's) stay: the
     result's elements may share memory, so nothing writes into it (1.13 clones densely) */
  if (ops_meta_overlaps(self)) o->exact = 0, o->nonoverlap = 0;
  return 0;
}

static int shape_func_slice_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return scatter_rule(st, env, self, SC_SLICE, &e->out, err);
}

static int shape_func_select_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return scatter_rule(st, env, self, SC_SELECT, &e->out, err);
}

static int shape_func_diagonal_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return scatter_rule(st, env, self, SC_DIAGONAL, &e->out, err);
}

static int shape_func_as_strided_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return scatter_rule(st, env, self, SC_AS_STRIDED, &e->out, err);
}

/* no rule: control flow and list statements (the generator's model handles them), ops the rules
 * do not reason about (new_full) */
static int shape_none(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)self, (void)e;
  return af_fail(err, "no shape rule for op %s", ops_get(st->op)->name);
}

/* ---------------------------------------------------------------- argument samplers */

const char *ops_decide_name(int d) {
  static const char *names[OPS_DECIDE_COUNT] = {"negative_dim", "slice_step", "open_bound", "negative_index",
                                                "trivial_expand", "overlap", "view_shape", "minus_one",
                                                "number", "dup_index", "accumulate", "index_2d", "edge", "float_literal"};
  return d >= 0 && d < OPS_DECIDE_COUNT ? names[d] : "?";
}

const char *ops_idx_kind_name(int k) {
  static const char *names[OPS_IDX_KIND_COUNT] = {"int", "slice", "none", "ellipsis", "tensor", "mask"};
  return k >= 0 && k < OPS_IDX_KIND_COUNT ? names[k] : "?";
}

int ops_req_accepts(const ops_req *r, const ops_meta *m) {
  if (!m->known) return 0;
  switch (r->dt_rule) {
    case OPS_DT_SAME:
      if (m->dtype != r->dtype) return 0;
      break;
    case OPS_DT_INTO:
      if (m->dtype == AF_BOOL || (!is_float(r->dtype) && is_float(m->dtype)) || !dt_ok(promote(r->dtype, m->dtype))) return 0;
      break;
    case OPS_DT_ANY:
      if (m->dtype == AF_BOOL) return 0;
      break;
    case OPS_DT_ALL: break;
    case OPS_DT_FLOAT:
      if (!is_float(m->dtype)) return 0;
      break;
  }
  switch (r->kind) {
    case OPS_REQ_SHAPE: return shape_is(m, r->rank, r->shape);
    case OPS_REQ_BROADCAST: return ops_broadcasts_to(m->rank, m->shape, r->rank, r->shape);
    case OPS_REQ_ZERODIM: return m->rank == 0;
    case OPS_REQ_EXPANDED: {
      if (m->rank < r->rank || ops_meta_numel(m) > r->numel_max) return 0;
      for (int k = 0; k < r->rank; k++) {
        int64_t x = r->shape[r->rank - 1 - k], y = m->shape[m->rank - 1 - k];
        if (x != y && x != 1) return 0;
      }
      return 1;
    }
    case OPS_REQ_VIEWABLE: {
      if (!r->ref || ops_meta_numel(m) != ops_meta_numel(r->ref)) return 0;
      int64_t st[AF_MAX_RANK];
      return ops_view_strides(r->ref, m->rank, m->shape, st) == 0;
    }
    case OPS_REQ_CAT:
      if (m->rank != r->rank) return 0;
      for (int d = 0; d < r->rank; d++)
        if (d != r->dim && m->shape[d] != r->shape[d]) return 0;
      return 1;
    case OPS_REQ_AT_LEAST:
      if (m->rank != r->rank) return 0;
      for (int d = 0; d < r->rank; d++)
        if (m->shape[d] < r->shape[d]) return 0;
      return 1;
    case OPS_REQ_INDEX: return 0;
    case OPS_REQ_MASK: return m->dtype == AF_BOOL && shape_is(m, r->rank, r->shape);
  }
  return 0;
}


#define R(lo, hi) ch->range(ch->ctx, (lo), (hi))
#define D(p) ch->decide(ch->ctx, (p))

static ir_arg a_int(int64_t i) { return (ir_arg){.kind = IR_ARG_INT, .i = i}; }
static ir_arg a_bool(int b) { return (ir_arg){.kind = IR_ARG_BOOL, .i = b}; }
static ir_arg a_none(void) { return (ir_arg){.kind = IR_ARG_NONE}; }
static ir_arg a_float(double f) { return (ir_arg){.kind = IR_ARG_FLOAT, .f = f}; }
static ir_arg a_value(int v) { return (ir_arg){.kind = IR_ARG_VALUE, .value = v}; }
static ir_arg a_ints(int n, const int64_t *x) {
  ir_arg a = {.kind = IR_ARG_INTS, .n = n};
  a.ints = af_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  memcpy(a.ints, x, sizeof(int64_t) * (size_t)n);
  return a;
}
static ir_arg a_values(int n, const int *v) {
  ir_arg a = {.kind = IR_ARG_VALUES, .n = n};
  a.values = af_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  memcpy(a.values, v, sizeof(int) * (size_t)n);
  return a;
}

/* a dim of a rank-r tensor, negative sometimes */
static int64_t pick_dim(const ops_chooser *ch, int rank, int neg_ok) {
  int r = rank > 0 ? rank : 1;
  int64_t d = R(0, r - 1);
  if (neg_ok && D(OPS_DECIDE_NEG_DIM)) d -= r;
  return d;
}

/* a number literal suited to a tensor of dtype dt */
static ir_arg number(const ops_chooser *ch, af_dtype dt) {
  if (is_float(dt) && D(OPS_DECIDE_FLOAT)) {
    static const double fl[] = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.0, 2.5, 3.0};
    return a_float(fl[R(0, 7)]);
  }
  return a_int(R(-3, 3));
}

/* an operand for add/sub/mul that changes every value (no + 0, no * 1): a write that changes
 * nothing hides a lost write from the oracle */
static ir_arg operand_number(const ops_chooser *ch, af_dtype dt, int op) {
  ir_arg a = number(ch, dt);
  double x = a.kind == IR_ARG_FLOAT ? a.f : (double)a.i;
  int mul = op == OPS_mul_ || op == OPS_mul || op == OPS_mul_out || op == OPS_setitem_mul;
  if ((mul && x == 1) || (!mul && x == 0)) a = a_int(mul ? -2 : 2);
  return a;
}

static ir_arg divisor(const ops_chooser *ch) {
  static const double dv[] = {2, 4, -2, 0.5, 0.25, -4};
  double x = dv[R(0, 5)];
  return x == (double)(int64_t)x && !D(OPS_DECIDE_FLOAT) ? a_int((int64_t)x) : a_float(x);
}

static int tensor(const ops_chooser *ch, const ops_req *r) { return ch->tensor(ch->ctx, r); }

static ops_req req(ops_req_kind kind, int rank, const int64_t *shape, af_dtype dt, ops_dt_rule rule, int avoid, int same_ok) {
  ops_req r;
  memset(&r, 0, sizeof r);
  r.kind = kind;
  r.rank = rank;
  if (rank) memcpy(r.shape, shape, sizeof(int64_t) * (size_t)rank);
  r.dtype = dt;
  r.dt_rule = rule;
  r.avoid = avoid;
  r.same_ok = same_ok;
  return r;
}

/* a shape that broadcasts to (rank, shape): drop some leading dims, set some dims to 1 */
static int broadcastable_shape(const ops_chooser *ch, int rank, const int64_t *shape, int64_t *out) {
  int drop = rank ? (int)R(0, rank) : 0;
  if (drop && R(0, 1)) drop = 0; /* full rank half the time */
  int n = rank - drop;
  for (int d = 0; d < n; d++) out[d] = R(0, 3) == 0 ? 1 : shape[drop + d];
  return n;
}

/* index data: n values in [0, size), distinct when distinct (n <= size), negative sometimes */
static void index_values(const ops_chooser *ch, int64_t *out, int64_t n, int64_t size, int distinct) {
  if (distinct && n <= size) {
    /* a partial shuffle of 0..size-1 (a dim may be larger than the policy's numel bound: the
       fuzz engines' bytes reach 332, past a fixed pool of 256) */
    int64_t small[256], *pool = size <= 256 ? small : af_xmalloc(sizeof(int64_t) * (size_t)size);
    for (int64_t k = 0; k < size; k++) pool[k] = k;
    for (int64_t k = 0; k < n; k++) {
      int64_t j = R(k, size - 1);
      int64_t t = pool[k];
      pool[k] = pool[j];
      pool[j] = t;
      out[k] = pool[k];
    }
    if (pool != small) free(pool);
  } else {
    for (int64_t k = 0; k < n; k++) out[k] = R(0, size - 1);
  }
  if (D(OPS_DECIDE_NEG_INDEX))
    for (int64_t k = 0; k < n; k++)
      if (R(0, 1)) out[k] -= size;
}

/* factors n into k >= 1 factors (random divisors) */
static int factor(const ops_chooser *ch, int64_t n, int k, int64_t *out) {
  int c = 0;
  for (int i = 0; i < k - 1; i++) {
    int64_t divs[64];
    int nd = 0;
    for (int64_t d = 1; d <= n && nd < 64; d++)
      if (n % d == 0) divs[nd++] = d;
    int64_t f = divs[R(0, nd - 1)];
    out[c++] = f;
    n /= f;
  }
  out[c++] = n;
  return c;
}

/* a shape for view/reshape of m: split its stride chunks (a view) when as_view, else any
 * factorization of numel (a view or a copy); sometimes one entry is -1 */
static int view_shape(const ops_chooser *ch, const ops_meta *m, int as_view, int64_t *out) {
  int64_t numel = ops_meta_numel(m);
  int n = 0;
  if (as_view && m->exact && numel > 1) {
    int64_t chunks[AF_MAX_RANK];
    int nc = 0;
    int64_t cnumel = 1, base = 0;
    int have = 0;
    for (int d = m->rank - 1; d >= 0; d--) {
      if (m->shape[d] == 1) continue;
      if (!have) {
        cnumel = m->shape[d];
        base = m->stride[d];
        have = 1;
      } else if (m->stride[d] == cnumel * base) {
        cnumel *= m->shape[d];
      } else {
        chunks[nc++] = cnumel;
        cnumel = m->shape[d];
        base = m->stride[d];
      }
    }
    if (have) chunks[nc++] = cnumel;
    for (int c = nc - 1; c >= 0; c--) {
      int room = ch->max_rank - n - c;
      int k = room >= 2 ? (int)R(1, 2) : 1;
      n += factor(ch, chunks[c], k, out + n);
    }
  } else {
    int k = (int)R(1, ch->max_rank < 3 ? ch->max_rank : 3);
    n = factor(ch, numel, k, out);
  }
  if (n < ch->max_rank && D(OPS_DECIDE_EDGE)) { /* a size-1 dim somewhere */
    int at = (int)R(0, n);
    for (int k = n; k > at; k--) out[k] = out[k - 1];
    out[at] = 1;
    n++;
  }
  if (n && D(OPS_DECIDE_MINUS_ONE)) {
    int at = (int)R(0, n - 1);
    if (out[at] > 0) out[at] = -1;
  }
  return n;
}

/* a target shape for expand(m): new leading dims, size-1 dims repeated unless trivial */
static int expand_shape(const ops_chooser *ch, const ops_meta *m, int trivial, int64_t *out) {
  int lead = m->rank < ch->max_rank ? (int)R(0, 1) : 0;
  int n = 0;
  for (int k = 0; k < lead; k++) out[n++] = trivial ? 1 : R(1, 3);
  for (int d = 0; d < m->rank; d++) out[n++] = (!trivial && m->shape[d] == 1 && R(0, 1)) ? R(2, 3) : m->shape[d];
  if (ir_numel(n, out) > ch->max_numel) { /* too big: do not repeat */
    for (int k = 0; k < lead; k++) out[k] = 1;
    for (int d = 0; d < m->rank; d++) out[lead + d] = m->shape[d];
  }
  return n;
}

/* A subscript for m (the IR_ARG_INDEX in *out); result shape of self[idx] in *res and whether it
 * uses tensor indices. basic: only int/slice/None/...; masks only when allow_mask (setitem);
 * distinct: int index tensors hold distinct tuples. */
static int subscript(const ops_chooser *ch, const ops_meta *m, int basic, int allow_mask, int distinct, ir_arg *out,
                     ops_meta *res, int *advanced) {
  int kinds[6], nk = 0, ell = 0, ntens = 0, mask_k = 0, specified = 0, nnone = 0;
  int want = (int)R(1, 3);
  for (int tries = 0; nk < want && tries < 12; tries++) {
    int k = ch->index_kind(ch->ctx);
    if (k < 0) break;
    int rem = m->rank - specified;
    if ((k == OPS_IDX_INT || k == OPS_IDX_SLICE || k == OPS_IDX_TENSOR || k == OPS_IDX_MASK) && rem < 1) continue;
    if (k == OPS_IDX_ELLIPSIS && ell) continue;
    if ((k == OPS_IDX_TENSOR || k == OPS_IDX_MASK) && (basic || ell)) continue; /* TorchScript: no tensor index after ... */
    if (k == OPS_IDX_TENSOR && (ntens >= 2 || mask_k)) continue;
    if (k == OPS_IDX_MASK && (!allow_mask || ntens)) continue;
    if (k == OPS_IDX_NONE && m->rank + nnone + 1 > ch->max_rank) continue;
    kinds[nk++] = k;
    if (k == OPS_IDX_ELLIPSIS) ell = 1;
    else if (k == OPS_IDX_NONE) nnone++;
    else if (k == OPS_IDX_TENSOR) ntens++, specified++;
    else if (k == OPS_IDX_MASK) {
      mask_k = rem >= 2 && R(0, 2) == 0 ? 2 : 1;
      specified += mask_k;
      break; /* a mask ends the subscript */
    } else {
      specified++;
    }
  }
  if (nk == 1 && kinds[0] == OPS_IDX_ELLIPSIS) nk = 0; /* x[...] alone: not in TorchScript */
  if (!nk) kinds[nk++] = m->rank ? OPS_IDX_SLICE : OPS_IDX_NONE, specified += m->rank ? 1 : 0;
  int skip = m->rank - specified;
  ir_arg a = {.kind = IR_ARG_INDEX, .n = nk};
  a.index = af_xcalloc((size_t)nk, sizeof(ir_index));
  int pos = 0;
  int64_t ilen = 0, ishape[2] = {0, 0};
  int irank = 0;
  for (int e = 0; e < nk; e++) {
    ir_index *x = &a.index[e];
    int64_t n = pos < m->rank ? m->shape[pos] : 1;
    switch (kinds[e]) {
      case OPS_IDX_INT:
        x->kind = IR_IDX_INT;
        x->i = R(0, n - 1);
        if (D(OPS_DECIDE_NEG_INDEX)) x->i -= n;
        pos++;
        break;
      case OPS_IDX_SLICE: {
        x->kind = IR_IDX_SLICE;
        x->step = D(OPS_DECIDE_STEP) ? R(2, 3) : 1;
        int64_t s = R(0, n - 1), t = R(s + 1, n);
        x->has_start = !(s == 0 && D(OPS_DECIDE_OPEN_BOUND));
        x->has_stop = !(t == n && D(OPS_DECIDE_OPEN_BOUND));
        x->start = s;
        x->stop = t;
        if (D(OPS_DECIDE_NEG_INDEX)) {
          x->start = s - n;
          if (t < n) x->stop = t - n;
        }
        if (x->has_stop && t == n && D(OPS_DECIDE_EDGE)) x->stop = n + R(1, 3); /* past the end: clamped */
        pos++;
        break;
      }
      case OPS_IDX_NONE: x->kind = IR_IDX_NONE; break;
      case OPS_IDX_ELLIPSIS:
        x->kind = IR_IDX_ELLIPSIS;
        pos += skip;
        break;
      case OPS_IDX_TENSOR: {
        x->kind = IR_IDX_TENSOR;
        if (!ilen) { /* all index tensors of one subscript share a shape */
          if (D(OPS_DECIDE_INDEX_2D) && n >= 2) {
            irank = 2;
            ishape[0] = R(1, 2);
            ishape[1] = R(1, n / ishape[0] < 3 ? n / ishape[0] : 3);
            if (ishape[1] < 1) ishape[1] = 1;
          } else {
            irank = 1;
            ishape[0] = R(1, n < 4 ? n : 4);
          }
          ilen = ishape[0] * (irank == 2 ? ishape[1] : 1);
        }
        int64_t data[64];
        int dis = distinct || !D(OPS_DECIDE_DUP_INDEX);
        if (ilen > n) dis = 0;
        index_values(ch, data, ilen, n, dis);
        if (!dis && distinct) { /* could not: fall back to a slice */
          x->kind = IR_IDX_SLICE;
          x->step = 1;
          x->has_start = x->has_stop = 0;
          pos++;
          break;
        }
        ops_req r = req(OPS_REQ_INDEX, irank, ishape, AF_INT64, OPS_DT_SAME, -1, 0);
        r.index_data = data;
        int v = tensor(ch, &r);
        if (v < 0) goto fail;
        x->value = v;
        pos++;
        break;
      }
      case OPS_IDX_MASK: {
        x->kind = IR_IDX_TENSOR;
        ops_req r = req(OPS_REQ_MASK, mask_k, m->shape + pos, AF_BOOL, OPS_DT_SAME, -1, 0);
        int v = tensor(ch, &r);
        if (v < 0) goto fail;
        x->value = v;
        pos += mask_k;
        break;
      }
    }
  }
  /* the result shape, by the same rules infer uses */
  ops_env env = {.ctx = ch->ctx, .meta = ch->meta};
  sub_info si;
  af_err err;
  if (infer_subscript(&a, m, &env, &si, &err)) goto fail;
  *res = si.result;
  *advanced = si.nt > 0;
  *out = a;
  return 0;
fail:
  ir_arg_free(&a);
  return -1;
}

/* the value of a setitem: a number, or a tensor broadcasting to res */
static int item_value(const ops_chooser *ch, const ops_meta *m, const ops_meta *res, int advanced, int aug, int primary,
                      ir_arg *out) {
  if (D(OPS_DECIDE_NUMBER)) {
    *out = number(ch, m->dtype);
    return 0;
  }
  int64_t shape[AF_MAX_RANK];
  int n = broadcastable_shape(ch, res->rank, res->shape, shape);
  ops_req r = req(OPS_REQ_BROADCAST, res->rank, res->shape, m->dtype, advanced && !aug ? OPS_DT_SAME : OPS_DT_INTO, primary, 0);
  (void)n;
  int v = tensor(ch, &r);
  if (v < 0) return -1;
  *out = a_value(v);
  return 0;
}


/* as_strided arguments within a storage of s elements; non-overlapping unless the overlap
 * decision says otherwise */
static void strided_args(const ops_chooser *ch, int64_t s, int64_t *size, int64_t *stride, int *k, int64_t *off) {
  int n = (int)R(1, 3);
  int perm[3] = {0, 1, 2};
  for (int i = n - 1; i > 0; i--) {
    int j = (int)R(0, i), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (int d = 0; d < n; d++) size[d] = R(1, 4);
  int64_t g = D(OPS_DECIDE_STEP) ? 2 : 1, cur = g;
  for (int i = n - 1; i >= 0; i--) {
    stride[perm[i]] = cur;
    cur *= size[perm[i]];
  }
  if (D(OPS_DECIDE_OVERLAP)) { /* two draws, in this order (an assignment's sides are unsequenced) */
    int64_t d = R(0, n - 1);
    stride[d] = R(0, 1);
  }
  for (;;) {
    ops_meta t;
    memset(&t, 0, sizeof t);
    t.rank = n;
    memcpy(t.shape, size, sizeof(int64_t) * (size_t)n);
    memcpy(t.stride, stride, sizeof(int64_t) * (size_t)n);
    if (ops_meta_extent(&t) <= s && ir_numel(n, size) <= ch->max_numel) break;
    int big = 0;
    for (int d = 1; d < n; d++)
      if (size[d] > size[big]) big = d;
    if (size[big] == 1) break;
    size[big]--;
  }
  ops_meta t;
  memset(&t, 0, sizeof t);
  t.rank = n;
  memcpy(t.shape, size, sizeof(int64_t) * (size_t)n);
  memcpy(t.stride, stride, sizeof(int64_t) * (size_t)n);
  int64_t ext = ops_meta_extent(&t);
  *off = ext <= s ? R(0, s - ext) : 0;
  *k = n;
}

/* an index tensor of exactly `shape` holding data */
static int index_tensor(const ops_chooser *ch, int rank, const int64_t *shape, const int64_t *data) {
  ops_req r = req(OPS_REQ_INDEX, rank, shape, AF_INT64, OPS_DT_SAME, -1, 0);
  r.index_data = data;
  return tensor(ch, &r);
}

static int mask_for(const ops_chooser *ch, const ops_meta *m) {
  int64_t shape[AF_MAX_RANK];
  int n = broadcastable_shape(ch, m->rank, m->shape, shape);
  ops_req r = req(OPS_REQ_MASK, n, shape, AF_BOOL, OPS_DT_SAME, -1, 0);
  return tensor(ch, &r);
}

/* index_put_ arguments into args[1..3] */
static int args_index_put(const ops_chooser *ch, int p, const ops_meta *m, ir_arg *args) {
  if (m->rank == 0 || m->dtype == AF_BOOL) return -1;
  int k = (int)R(1, m->rank < 2 ? m->rank : 2);
  int acc = D(OPS_DECIDE_ACCUMULATE);
  int64_t minn = m->shape[0];
  for (int d = 0; d < k; d++)
    if (m->shape[d] < minn) minn = m->shape[d];
  int64_t len = R(1, minn < 4 ? minn : 4);
  int dup = acc && D(OPS_DECIDE_DUP_INDEX);
  int vals[2];
  for (int d = 0; d < k; d++) {
    int64_t data[8];
    index_values(ch, data, len, m->shape[d], !dup);
    vals[d] = index_tensor(ch, 1, &len, data);
    if (vals[d] < 0) return -1;
  }
  int64_t rs[AF_MAX_RANK];
  int rn = 0;
  rs[rn++] = len;
  for (int d = k; d < m->rank; d++) rs[rn++] = m->shape[d];
  ops_req r = req(OPS_REQ_BROADCAST, rn, rs, m->dtype, OPS_DT_SAME, p, 0);
  int v = tensor(ch, &r);
  if (v < 0) return -1;
  args[1] = a_values(k, vals);
  args[2] = a_value(v);
  args[3] = a_bool(acc);
  return 0;
}

static int args_index_add(const ops_chooser *ch, int p, const ops_meta *m, ir_arg *args) {
  if (m->rank == 0 || m->dtype == AF_BOOL) return -1;
  int64_t dim = pick_dim(ch, m->rank, 1), d = dim < 0 ? dim + m->rank : dim;
  int64_t len = R(1, 4), data[4];
  for (int64_t k = 0; k < len; k++) data[k] = R(0, m->shape[d] - 1);
  int iv = index_tensor(ch, 1, &len, data);
  if (iv < 0) return -1;
  int64_t shape[AF_MAX_RANK];
  memcpy(shape, m->shape, sizeof(int64_t) * (size_t)m->rank);
  shape[d] = len;
  if (ir_numel(m->rank, shape) > ch->max_numel) return -1;
  ops_req r = req(OPS_REQ_SHAPE, m->rank, shape, m->dtype, OPS_DT_SAME, p, 0);
  int sv = tensor(ch, &r);
  if (sv < 0) return -1;
  args[1] = a_int(dim);
  args[2] = a_value(iv);
  args[3] = a_value(sv);
  return 0;
}

static int args_scatter(const ops_chooser *ch, int p, const ops_meta *m, ir_arg *args) {
  if (m->rank == 0 || m->dtype == AF_BOOL) return -1;
  int64_t dim = pick_dim(ch, m->rank, 1), d = dim < 0 ? dim + m->rank : dim;
  int64_t ishape[AF_MAX_RANK];
  for (int q = 0; q < m->rank; q++) ishape[q] = R(1, m->shape[q] < 3 ? m->shape[q] : 3);
  int64_t n = ir_numel(m->rank, ishape), data[256];
  if (n > 256) return -1; /* up to 3 per dim: only a value past the policy's numel bound gets here */
  int use_src = !D(OPS_DECIDE_NUMBER);
  /* lines along dim: distinct targets per line when writing a src tensor */
  int64_t inner = 1;
  for (int q = (int)d + 1; q < m->rank; q++) inner *= ishape[q];
  int64_t len = ishape[d], outer = n / (len * inner);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      int64_t line[8];
      index_values(ch, line, len, m->shape[d], use_src);
      for (int64_t k = 0; k < len; k++) {
        int64_t x = line[k];
        if (x < 0) x += m->shape[d]; /* scatter takes no negative indices */
        data[(o * len + k) * inner + i] = x;
      }
    }
  int iv = index_tensor(ch, m->rank, ishape, data);
  if (iv < 0) return -1;
  args[1] = a_int(dim);
  args[2] = a_value(iv);
  if (use_src) {
    ops_req r = req(OPS_REQ_AT_LEAST, m->rank, ishape, m->dtype, OPS_DT_SAME, p, 0);
    int sv = tensor(ch, &r);
    if (sv < 0) return -1;
    args[3] = a_value(sv);
  } else {
    args[3] = number(ch, m->dtype);
  }
  return 0;
}

static void clamp_args(const ops_chooser *ch, const ops_meta *m, ir_arg *lo, ir_arg *hi) {
  int mode = (int)R(0, 2);
  int64_t a = R(-3, 1), b = R(a, 3);
  *lo = mode == 1 ? a_none() : a_int(a);
  *hi = mode == 0 ? a_none() : a_int(b);
  if (is_float(m->dtype) && D(OPS_DECIDE_FLOAT)) {
    if (lo->kind == IR_ARG_INT) *lo = a_float((double)a - 0.5);
    if (hi->kind == IR_ARG_INT) *hi = a_float((double)b + 0.5);
  }
}

/* ---------------------------------------------------------------- foreach
 * torch._foreach_OP_(self, operands...): self is a list of tensors, each operand a list of as many
 * tensors or one number. Eager (the CPU's slow path, 1.13 and 2.13) runs the twin OP_ on each
 * element in turn, element k with element k of each list operand. The rule accepts what every
 * implementation agrees on: self's elements share no memory with each other, a list operand's
 * element j shares none with self's element k for j != k (so the order of the elements decides
 * nothing), operand element k has element k's shape, and each element with its operands passes
 * the twin's own rule (dtypes, casts, memory overlap). */

/* The twin statement of element k of foreach statement st: args (OPS_MAX_ARGS) borrow st's. */
static int foreach_element(const ir_stmt *st, int k, ir_stmt *el, ir_arg *args) {
  const ops_entry *oe = ops_get(st->op);
  int twin = ops_twin(st->op);
  if (twin < 0 || ops_get(twin)->nargs != oe->nargs) return -1;
  for (int a = 0; a < st->nargs; a++) {
    args[a] = st->args[a];
    if (st->args[a].kind == IR_ARG_VALUES) args[a] = (ir_arg){.kind = IR_ARG_VALUE, .value = st->args[a].values[k]};
  }
  *el = (ir_stmt){.op = twin, .out = -1, .nargs = st->nargs, .args = args};
  return 0;
}

static int shape_write_foreach(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)self;
  const ir_arg *a = st->args;
  const char *name = ops_get(st->op)->name;
  int n = a[0].n;
  if (a[0].kind != IR_ARG_VALUES || n < 1) return af_fail(err, "%s: Tensor list must have at least one tensor", name);
  for (int x = 1; x < st->nargs; x++) {
    if (a[x].kind != IR_ARG_VALUES) continue;
    if (a[x].n != n) return af_fail(err, "%s: Tensor lists must have the same number of tensors, got %d and %d", name, n, a[x].n);
    for (int k = 0; k < n; k++) {
      const ops_meta *s = META(a[0].values[k]), *o = META(a[x].values[k]);
      if (o->rank != s->rank || memcmp(o->shape, s->shape, sizeof(int64_t) * (size_t)s->rank))
        return af_fail(err, "%s: operand %d's element %d has another shape than self's (broadcasting is not modelled)", name, x, k);
    }
  }
  for (int k = 0; k < n; k++) {
    const ops_meta *m = META(a[0].values[k]);
    if (writable(env, m, err) || self_dtype_ok(st->op, m, err)) {
      af_err_prefix(err, "%s: element %d", name, k);
      return -1;
    }
    for (int j = 0; j < n && env->overlap; j++) {
      if (j > k && env->overlap(env->ctx, a[0].values[k], a[0].values[j]) != OPS_LAP_NONE)
        return undefined(env, OPS_UNDEF_ORDER), af_fail(err, "%s: elements %d and %d share memory (their result would depend on the order the elements are written in)", name, k, j);
      for (int x = 1; x < st->nargs && j != k; x++)
        if (a[x].kind == IR_ARG_VALUES && env->overlap(env->ctx, a[0].values[k], a[x].values[j]) != OPS_LAP_NONE)
          return undefined(env, OPS_UNDEF_OPERAND), af_fail(err, "%s: operand %d's element %d shares memory with self's element %d (the result would depend on the order)", name, x, j, k);
    }
    ir_stmt el;
    ir_arg args[OPS_MAX_ARGS];
    ops_effect te;
    if (foreach_element(st, k, &el, args)) return af_fail(err, "%s: its twin does not take its arguments", name);
    if (ops_shape_infer(&el, env, &te, err)) {
      af_err_prefix(err, "%s: element %d", name, k);
      return -1;
    }
  }
  e->writes = 1;
  return 0;
}

/* ---------------------------------------------------------------- samplers
 * A sampler fills args[1..] (args[0] is the primary value already, for primary 0) around value p
 * of layout m in a storage of `storage` elements, and returns the op's argument count, or -1 when
 * the op does not apply to this value or an operand could not be had (see ops_shape_sample). */

#define SAMPLER(name) static int sample_##name(int op, int p, const ops_meta *m, int64_t storage, const ops_chooser *ch, ir_arg *args)
#define SAMPLER_BEGIN                              \
  int r = m->rank, n = ops_get(op)->nargs;         \
  int64_t sh[2 * AF_MAX_RANK];                     \
  (void)r, (void)n, (void)sh, (void)p, (void)storage, (void)args, (void)ch

/* ---- views ---- */

SAMPLER(slice) {
  SAMPLER_BEGIN;
  if (!r) return -1;
  int64_t dim = R(0, r - 1), len = m->shape[dim], s = R(0, len - 1), t = R(s + 1, len);
  int64_t step = D(OPS_DECIDE_STEP) ? R(2, 3) : 1;
  if (D(OPS_DECIDE_NEG_INDEX)) {
    s -= len;
    if (t < len) t -= len;
  }
  if (t == len && D(OPS_DECIDE_EDGE)) t = len + R(1, 5);
  args[1] = a_int(dim), args[2] = a_int(s), args[3] = a_int(t), args[4] = a_int(step);
  return n;
}

SAMPLER(select) {
  SAMPLER_BEGIN;
  if (!r) return -1;
  int64_t dim = R(0, r - 1), len = m->shape[dim], i = R(0, len - 1);
  if (D(OPS_DECIDE_NEG_INDEX)) i -= len;
  args[1] = a_int(dim), args[2] = a_int(i);
  return n;
}

SAMPLER(narrow) {
  SAMPLER_BEGIN;
  if (!r) return -1;
  int64_t dim = pick_dim(ch, r, 1), len = m->shape[dim < 0 ? dim + r : dim], s = R(0, len - 1), l = R(1, len - s);
  if (D(OPS_DECIDE_NEG_INDEX)) s -= len;
  args[1] = a_int(dim), args[2] = a_int(s), args[3] = a_int(l);
  return n;
}

SAMPLER(view) {
  SAMPLER_BEGIN;
  if (!m->exact) return -1;
  int k = view_shape(ch, m, 1, sh);
  if (k > ch->max_rank) return -1;
  args[1] = a_ints(k, sh);
  return n;
}

SAMPLER(reshape) {
  SAMPLER_BEGIN;
  int k = view_shape(ch, m, D(OPS_DECIDE_VIEW_SHAPE), sh);
  if (k > ch->max_rank) return -1;
  args[1] = a_ints(k, sh);
  return n;
}

SAMPLER(flatten) {
  SAMPLER_BEGIN;
  int64_t s, t;
  if (r == 0) {
    s = R(-1, 0), t = s;
  } else {
    if (r >= 2 && !D(OPS_DECIDE_EDGE)) { /* start < end: a view or a copy */
      s = R(0, r - 2);
      t = R(s + 1, r - 1);
    } else { /* start == end returns self */
      s = R(0, r - 1);
      t = s;
    }
    if (D(OPS_DECIDE_NEG_DIM)) s -= r;
    if (D(OPS_DECIDE_NEG_DIM)) t -= r;
  }
  args[1] = a_int(s), args[2] = a_int(t);
  return n;
}

SAMPLER(unflatten) {
  SAMPLER_BEGIN;
  if (!r || r >= ch->max_rank) return -1;
  int64_t dim = pick_dim(ch, r, 1), len = m->shape[dim < 0 ? dim + r : dim];
  int k = factor(ch, len, 2, sh);
  if (D(OPS_DECIDE_MINUS_ONE)) sh[R(0, 1)] = -1;
  args[1] = a_int(dim), args[2] = a_ints(k, sh);
  return n;
}

/* squeeze(d), squeeze_(d): a size-1 dim most of the time */
SAMPLER(squeeze) {
  SAMPLER_BEGIN;
  int64_t dim = pick_dim(ch, r, 1);
  for (int d = 0; d < r; d++)
    if (m->shape[d] == 1 && R(0, 2)) dim = d;
  args[1] = a_int(dim);
  return n;
}

SAMPLER(unsqueeze) {
  SAMPLER_BEGIN;
  if (r >= ch->max_rank) return -1;
  int64_t dim = R(0, r);
  if (D(OPS_DECIDE_NEG_DIM)) dim -= r + 1;
  args[1] = a_int(dim);
  return n;
}

SAMPLER(transpose) {
  SAMPLER_BEGIN;
  int64_t d0 = pick_dim(ch, r, 1), d1 = pick_dim(ch, r, 1);
  if (r >= 2 && !D(OPS_DECIDE_EDGE)) {
    /* bounded: in byte mode, once the bytes run out pick_dim returns 0 forever (found by
     * fuzz_ref: a 13-byte input hung the generator) */
    for (int k = 0; k < 64 && (d0 < 0 ? d0 + r : d0) == (d1 < 0 ? d1 + r : d1); k++) d1 = pick_dim(ch, r, 1);
    if ((d0 < 0 ? d0 + r : d0) == (d1 < 0 ? d1 + r : d1)) d1 = ((d0 < 0 ? d0 + r : d0) + 1) % r;
  }
  args[1] = a_int(d0), args[2] = a_int(d1);
  return n;
}

SAMPLER(t) {
  SAMPLER_BEGIN;
  return r <= 2 ? n : -1;
}

SAMPLER(permute) {
  SAMPLER_BEGIN;
  for (int d = 0; d < r; d++) sh[d] = d;
  for (int d = r - 1; d > 0; d--) {
    int j = (int)R(0, d);
    int64_t t = sh[d];
    sh[d] = sh[j];
    sh[j] = t;
  }
  for (int d = 0; d < r; d++)
    if (D(OPS_DECIDE_NEG_DIM)) sh[d] -= r;
  args[1] = a_ints(r, sh);
  return n;
}

SAMPLER(movedim) {
  SAMPLER_BEGIN;
  args[1] = a_int(pick_dim(ch, r, 1)), args[2] = a_int(pick_dim(ch, r, 1));
  return n;
}

SAMPLER(expand) {
  SAMPLER_BEGIN;
  int k = expand_shape(ch, m, D(OPS_DECIDE_TRIVIAL_EXPAND), sh);
  if (D(OPS_DECIDE_MINUS_ONE))
    for (int d = k - r; d < k; d++)
      if (sh[d] == m->shape[d - (k - r)] && R(0, 1)) sh[d] = -1;
  args[1] = a_ints(k, sh);
  return n;
}

SAMPLER(expand_as) {
  SAMPLER_BEGIN;
  ops_req q;
  if (D(OPS_DECIDE_TRIVIAL_EXPAND)) {
    q = req(OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_ANY, -1, 0);
  } else {
    q = req(OPS_REQ_EXPANDED, r, m->shape, m->dtype, OPS_DT_ANY, -1, 0);
    q.rank2 = expand_shape(ch, m, 0, q.shape2);
    q.numel_max = ch->max_numel;
  }
  int v = tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(view_as) {
  SAMPLER_BEGIN;
  if (!m->exact) return -1;
  ops_req q = req(OPS_REQ_VIEWABLE, r, m->shape, m->dtype, OPS_DT_ANY, -1, 0);
  q.ref = m;
  q.rank2 = view_shape(ch, m, 1, q.shape2);
  { /* resolve a -1 */
    int64_t prod = 1;
    int neg = -1;
    for (int d = 0; d < q.rank2; d++) {
      if (q.shape2[d] < 0) neg = d;
      else prod *= q.shape2[d];
    }
    if (neg >= 0) q.shape2[neg] = ops_meta_numel(m) / prod;
  }
  if (q.rank2 > ch->max_rank) return -1;
  int v = tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(diagonal) {
  SAMPLER_BEGIN;
  if (r < 2) return -1;
  int64_t d1 = R(0, r - 1), d2 = R(0, r - 2);
  if (d2 >= d1) d2++;
  int64_t off = R(-(m->shape[d1] - 1), m->shape[d2] - 1);
  if (D(OPS_DECIDE_NEG_DIM)) d1 -= r;
  if (D(OPS_DECIDE_NEG_DIM)) d2 -= r;
  args[1] = a_int(off), args[2] = a_int(d1), args[3] = a_int(d2);
  return n;
}

/* as_strided, as_strided_ within the storage */
SAMPLER(as_strided) {
  SAMPLER_BEGIN;
  if (ops_get(op)->kind != OPS_VIEW && !dt_drawable(op, m)) return -1;
  int64_t size[3], stride[3], off;
  int k;
  strided_args(ch, storage, size, stride, &k, &off);
  args[1] = a_ints(k, size), args[2] = a_ints(k, stride), args[3] = a_int(off);
  return n;
}

SAMPLER(unfold) {
  SAMPLER_BEGIN;
  if (r >= ch->max_rank) return -1;
  int64_t dim = pick_dim(ch, r, 1), len = r ? m->shape[dim < 0 ? dim + r : dim] : 1;
  int64_t size = R(1, len), step = D(OPS_DECIDE_OVERLAP) ? R(1, size) : R(size, size + 1);
  if (ops_meta_numel(m) / (len ? len : 1) * ((len - size) / step + 1) * size > ch->max_numel) return -1;
  args[1] = a_int(dim), args[2] = a_int(size), args[3] = a_int(step);
  return n;
}

/* no argument besides self: detach, alias, zero_, clone, contiguous, sum */
SAMPLER(plain) {
  SAMPLER_BEGIN;
  return n;
}

SAMPLER(getitem) {
  SAMPLER_BEGIN;
  ops_meta res;
  int adv;
  if (subscript(ch, m, 0, 0, 0, &args[1], &res, &adv)) return -1;
  return n;
}

/* swapaxes, swapdims and their in-place forms */
SAMPLER(swap) {
  SAMPLER_BEGIN;
  if (ops_get(op)->kind != OPS_VIEW && !dt_drawable(op, m)) return -1;
  int64_t d0 = pick_dim(ch, r, 1), d1 = pick_dim(ch, r, 1);
  if (r >= 2 && !D(OPS_DECIDE_EDGE) && (d0 < 0 ? d0 + r : d0) == (d1 < 0 ? d1 + r : d1))
    d1 = ((d0 < 0 ? d0 + r : d0) + 1) % r;
  args[1] = a_int(d0), args[2] = a_int(d1);
  return n;
}

/* split/chunk/unbind element arguments */
SAMPLER(multi_view) {
  SAMPLER_BEGIN;
  if (m->rank == 0) return -1;
  int64_t dim = pick_dim(ch, m->rank, 1), len = m->shape[dim < 0 ? dim + m->rank : dim];
  if (len == 0) return -1;
  int64_t count, k;
  int unbind = ops_get(op)->nargs == 3; /* unbind(dim)[k]; split(size, dim)[k], chunk(chunks, dim)[k] */
  if (unbind) {
    count = len;
    args[1] = a_int(dim);
  } else if (op == OPS_split_get) {
    int64_t size = R(1, D(OPS_DECIDE_EDGE) ? len + 1 : len);
    count = (len + size - 1) / size;
    args[1] = a_int(size), args[2] = a_int(dim);
  } else {
    int64_t c = R(1, D(OPS_DECIDE_EDGE) ? len + 1 : len), size = (len + c - 1) / c;
    count = (len + size - 1) / size;
    args[1] = a_int(c), args[2] = a_int(dim);
  }
  k = R(0, count - 1);
  if (D(OPS_DECIDE_NEG_INDEX)) k -= count;
  args[unbind ? 2 : 3] = a_int(k);
  return n;
}

/* x.view(dtype): of a float32 or float64 tensor, a dtype the generator's rules model (float32,
 * float64, int64) other than x's own. Never bool (a bool's byte must be 0 or 1, and a write through
 * another dtype's view of a bool tensor would break that), and no int tensor read as floats: a
 * negative int is a NaN there, and which NaN's bits an op keeps differs between kernels (index_put_
 * with accumulate and its functional twin keep different ones), which the int base then shows. A
 * dtype the rule accepts for x's layout, within the numel limit (x's own dtype is left to
 * hand-written cases: whether eager then gives x itself or a new tensor depends on the dispatch
 * keys) */
static int dtype_view_layout(const ops_meta *in, af_dtype to, ops_meta *out, af_err *err);
SAMPLER(view_dtype) {
  SAMPLER_BEGIN;
  static const af_dtype dts[] = {AF_FLOAT32, AF_FLOAT64, AF_INT64};
  if (m->dtype != AF_FLOAT32 && m->dtype != AF_FLOAT64) return -1;
  int first = (int)R(0, 2);
  for (int k = 0; k < 3; k++) {
    af_dtype to = dts[(first + k) % 3];
    ops_meta out;
    af_err ignored;
    if (to == m->dtype || dtype_view_layout(m, to, &out, &ignored) || ops_meta_numel(&out) > ch->max_numel) continue;
    args[1] = (ir_arg){.kind = IR_ARG_DTYPE, .i = (int64_t)to};
    return n;
  }
  return -1;
}

/* torch.view_as_complex(x) of a float32 or float64 x whose layout the rule accepts (a last dim of 2
 * with stride 1, even strides and offset); torch.view_as_real(z) of any complex z */
static int complex_pairs_layout(const ops_meta *in, ops_meta *out, af_err *err);
SAMPLER(as_complex) {
  SAMPLER_BEGIN;
  ops_meta out;
  af_err ignored;
  if ((m->dtype != AF_FLOAT32 && m->dtype != AF_FLOAT64) || complex_pairs_layout(m, &out, &ignored)) return -1;
  return n;
}
SAMPLER(as_real) {
  SAMPLER_BEGIN;
  return af_dtype_is_complex(m->dtype) && r < AF_MAX_RANK && m->exact ? n : -1;
}

/* ---- shape-changing in place ---- */

SAMPLER(resize) { /* shrink within the storage: a prefix of the memory, contiguous */
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  int64_t room = storage - m->offset, numel = ops_meta_numel(m), cap = numel < room ? numel : room;
  if (cap < 1 || !m->exact) return -1;
  int64_t want = R(1, cap), s3[3];
  int k = factor(ch, want, (int)R(1, 3), s3);
  args[1] = a_ints(k, s3);
  return n;
}

/* ---- data writes and functional ops ---- */

/* add, sub, mul (in place and functional): a number that changes every value, or a tensor */
SAMPLER(arith) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  int inplace = ops_get(op)->kind == OPS_INPLACE;
  if (D(OPS_DECIDE_NUMBER)) {
    args[1] = operand_number(ch, m->dtype, op);
  } else {
    int64_t shape[AF_MAX_RANK];
    int k = broadcastable_shape(ch, r, m->shape, shape);
    (void)k;
    ops_req q = req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, inplace ? OPS_DT_INTO : OPS_DT_ANY, inplace ? p : -1, 1);
    int v = tensor(ch, &q);
    if (v < 0) return -1;
    args[1] = a_value(v);
  }
  return n;
}

SAMPLER(div) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL || (ops_get(op)->kind == OPS_INPLACE && !is_float(m->dtype))) return -1;
  args[1] = divisor(ch);
  return n;
}

SAMPLER(gt) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  args[1] = number(ch, m->dtype);
  return n;
}

/* neg, abs, relu */
SAMPLER(not_bool) {
  SAMPLER_BEGIN;
  return m->dtype == AF_BOOL ? -1 : n;
}

SAMPLER(clamp) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  clamp_args(ch, m, &args[1], &args[2]);
  return n;
}

SAMPLER(fill) {
  SAMPLER_BEGIN;
  if (D(OPS_DECIDE_NUMBER) || m->dtype == AF_BOOL) { /* TorchScript takes no bool for a Scalar: 0/1 */
    args[1] = m->dtype == AF_BOOL ? a_int(R(0, 1)) : number(ch, m->dtype);
    return n;
  }
  ops_req q = req(OPS_REQ_ZERODIM, 0, NULL, m->dtype, OPS_DT_INTO, ops_get(op)->kind == OPS_INPLACE ? p : -1, 0);
  int v = tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(copy) { /* a src of another shape or dtype (else aten::copy returns src itself) */
  SAMPLER_BEGIN;
  int64_t shape[AF_MAX_RANK];
  int k = broadcastable_shape(ch, r, m->shape, shape);
  int same = k == r && !memcmp(shape, m->shape, sizeof(int64_t) * (size_t)r);
  af_dtype dt = m->dtype;
  if (same || R(0, 1)) dt = m->dtype == AF_FLOAT32 ? (R(0, 1) ? AF_FLOAT64 : AF_INT64) : AF_FLOAT32;
  ops_req q = req(OPS_REQ_SHAPE, k, shape, dt, OPS_DT_SAME, -1, 0);
  int v = tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(copy_into) {
  SAMPLER_BEGIN;
  ops_req q = req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, OPS_DT_ANY, p, 1);
  int v = tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(masked_fill) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  int mv = mask_for(ch, m);
  if (mv < 0) return -1;
  args[1] = a_value(mv);
  if (D(OPS_DECIDE_NUMBER)) {
    args[2] = number(ch, m->dtype);
  } else {
    ops_req q = req(OPS_REQ_ZERODIM, 0, NULL, m->dtype, OPS_DT_INTO, ops_get(op)->kind == OPS_INPLACE ? p : -1, 0);
    int v = tensor(ch, &q);
    if (v < 0) return -1;
    args[2] = a_value(v);
  }
  return n;
}

SAMPLER(index_put) {
  SAMPLER_BEGIN;
  return args_index_put(ch, p, m, args) ? -1 : n;
}

SAMPLER(index_add) {
  SAMPLER_BEGIN;
  return args_index_add(ch, p, m, args) ? -1 : n;
}

SAMPLER(scatter) {
  SAMPLER_BEGIN;
  return args_scatter(ch, p, m, args) ? -1 : n;
}

/* setitem (aug 0) and its augmented forms (aug 1) */
static int setitem_args(int op, int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args, int aug) {
  if (m->dtype == AF_BOOL) return -1;
  ops_meta res;
  int adv;
  int number_value = D(OPS_DECIDE_NUMBER);
  if (subscript(ch, m, 0, 1, !number_value, &args[1], &res, &adv)) return -1;
  if (number_value) {
    args[2] = !aug ? number(ch, m->dtype) : operand_number(ch, m->dtype, op);
    return 0;
  }
  return item_value(ch, m, &res, adv, aug, p, &args[2]);
}

SAMPLER(setitem) {
  SAMPLER_BEGIN;
  return setitem_args(op, p, m, ch, args, 0) ? -1 : n;
}

SAMPLER(setitem_aug) {
  SAMPLER_BEGIN;
  return setitem_args(op, p, m, ch, args, 1) ? -1 : n;
}

/* add_out, mul_out, sub_out, div_out: two operands, one of self's shape and one broadcasting */
static int out_arith_args(int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args) {
  ops_req q = req(OPS_REQ_SHAPE, m->rank, m->shape, m->dtype, OPS_DT_INTO, p, 1);
  int x = tensor(ch, &q);
  if (x < 0) return -1;
  q.kind = OPS_REQ_BROADCAST;
  int y = tensor(ch, &q);
  if (y < 0) return -1;
  if (R(0, 1)) {
    int t = x;
    x = y;
    y = t;
  }
  args[1] = a_value(x), args[2] = a_value(y);
  return 0;
}

SAMPLER(out_binary) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  return out_arith_args(p, m, ch, args) ? -1 : n;
}

SAMPLER(mean) {
  SAMPLER_BEGIN;
  return is_float(m->dtype) ? n : -1;
}

SAMPLER(matmul) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL || r < 1 || r > 3) return -1;
  int64_t k = m->shape[r - 1], mm = R(1, 4);
  int kind = (int)R(0, 2), q = 0;
  if (kind == 0) sh[q++] = k;
  else if (kind == 1) sh[q++] = k, sh[q++] = mm;
  else sh[q++] = r == 3 ? (R(0, 1) ? m->shape[0] : 1) : R(1, 2), sh[q++] = k, sh[q++] = mm;
  if (ir_numel(q, sh) > ch->max_numel) return -1;
  ops_req rq = req(OPS_REQ_SHAPE, q, sh, m->dtype, OPS_DT_SAME, -1, 0);
  int v = tensor(ch, &rq);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

/* cat (stack 0) and stack (1): p is one element of the list */
static int cat_args(int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args, int stack) {
  int r = m->rank;
  if (!stack && r == 0) return -1;
  if (stack && r >= ch->max_rank) return -1;
  int cnt = (int)R(1, 2), vals[3], at = (int)R(0, cnt);
  int64_t dim = !stack ? pick_dim(ch, r, 1) : R(0, r);
  if (stack && D(OPS_DECIDE_NEG_DIM)) dim -= r + 1;
  int64_t total = ops_meta_numel(m);
  int c = 0;
  for (int k = 0; k <= cnt; k++) {
    if (k == at) {
      vals[c++] = p;
      continue;
    }
    ops_req q = req(!stack ? OPS_REQ_CAT : OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_SAME, -1, 0);
    q.dim = (int)(dim < 0 ? dim + r : dim);
    int v = tensor(ch, &q);
    if (v < 0) return -1;
    total += ch->meta ? ops_meta_numel(ch->meta(ch->ctx, v)) : 0;
    vals[c++] = v;
  }
  if (total > ch->max_numel) return -1;
  args[0] = a_values(c, vals);
  args[1] = a_int(dim);
  return 0;
}

SAMPLER(cat) {
  SAMPLER_BEGIN;
  return cat_args(p, m, ch, args, 0) ? -1 : n;
}

SAMPLER(stack) {
  SAMPLER_BEGIN;
  return cat_args(p, m, ch, args, 1) ? -1 : n;
}

SAMPLER(where) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  int mv = mask_for(ch, m);
  if (mv < 0) return -1;
  ops_req q = req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, OPS_DT_SAME, -1, 0);
  int y = tensor(ch, &q);
  if (y < 0) return -1;
  args[0] = a_value(mv), args[1] = a_value(p), args[2] = a_value(y);
  return n;
}

/* the write-back scatters: a src of the shape of the slice they write */
static int scatter_args(int how, const ops_meta *m, int64_t storage, const ops_chooser *ch, ir_arg *args, int n) {
  int r = m->rank;
  ops_meta base, sl;
  preserve_layout(m, &base);
  af_err err;
  int rc;
  if (how == SC_SLICE) {
    if (!r) return -1;
    int64_t dim = pick_dim(ch, r, 1), len = m->shape[dim < 0 ? dim + r : dim], s = R(0, len - 1), t = R(s + 1, len);
    int64_t step = D(OPS_DECIDE_STEP) ? R(2, 3) : 1;
    args[2] = a_int(dim), args[3] = a_int(s), args[4] = a_int(t), args[5] = a_int(step);
    rc = v_slice(&base, dim, 1, s, 1, t, step, &sl, &err);
  } else if (how == SC_SELECT) {
    if (!r) return -1;
    int64_t dim = pick_dim(ch, r, 1), len = m->shape[dim < 0 ? dim + r : dim], i = R(0, len - 1);
    args[2] = a_int(dim), args[3] = a_int(i);
    rc = v_select(&base, dim, i, &sl, &err);
  } else if (how == SC_DIAGONAL) {
    if (r < 2) return -1;
    int64_t d1 = R(0, r - 1), d2 = R(0, r - 2);
    if (d2 >= d1) d2++;
    int64_t off = R(-(m->shape[d1] - 1), m->shape[d2] - 1);
    args[2] = a_int(off), args[3] = a_int(d1), args[4] = a_int(d2);
    rc = v_diagonal(&base, off, d1, d2, &sl, &err);
  } else {
    int64_t size[3], stride[3], off;
    int k;
    int64_t room = scatter_room(m, storage);
    strided_args(ch, room, size, stride, &k, &off);
    for (int d = 0; d < k; d++)
      if (stride[d] == 0) stride[d] = 1; /* never overlapping here */
    args[2] = a_ints(k, size), args[3] = a_ints(k, stride), args[4] = a_int(off);
    rc = v_as_strided(&base, room, &args[2], &args[3], off, &sl, &err);
    if (!rc && ops_meta_overlaps(&sl)) rc = -1;
  }
  if (rc) goto fail_free;
  ops_req q = req(OPS_REQ_SHAPE, sl.rank, sl.shape, m->dtype, OPS_DT_SAME, -1, 0);
  int v = tensor(ch, &q);
  if (v < 0) goto fail_free;
  args[1] = a_value(v);
  return n;
fail_free:
  for (int k = 0; k < n; k++) ir_arg_free(&args[k]);
  return -1;
}

SAMPLER(slice_scatter) {
  SAMPLER_BEGIN;
  return scatter_args(SC_SLICE, m, storage, ch, args, n);
}

SAMPLER(select_scatter) {
  SAMPLER_BEGIN;
  return scatter_args(SC_SELECT, m, storage, ch, args, n);
}

SAMPLER(diagonal_scatter) {
  SAMPLER_BEGIN;
  return scatter_args(SC_DIAGONAL, m, storage, ch, args, n);
}

SAMPLER(as_strided_scatter) {
  SAMPLER_BEGIN;
  return scatter_args(SC_AS_STRIDED, m, storage, ch, args, n);
}

/* never drawn */
SAMPLER(none) {
  (void)op, (void)p, (void)m, (void)storage, (void)ch, (void)args;
  return -1;
}

/* ================================================================ more of the in-place surface
 * (issue 9): the shape/validity rules and the samplers of the families added for it. Every rule here was checked against eager PyTorch 1.13 on
 * CPU (float32, float64, int64, bool; tensor and number operands). */


static const char *const fam_names[OPS_FAM_COUNT][2] = {
    {"other", "other functional ops (cat, stack, clone, where, ...)"},
    {"view", "views and getitem"},
    {"multi_view", "one result of a multi-output view (split, chunk, unbind)"},
    {"meta", "shape-changing in place"},
    {"fill", "fill, zero, copy"},
    {"arith", "binary arithmetic"},
    {"unary_float", "pointwise unary with float results"},
    {"unary_num", "rounding, sign, abs, neg, clamp"},
    {"activation", "activations"},
    {"compare", "comparisons"},
    {"bitwise", "bitwise and logical"},
    {"ternary", "lerp, addcmul, addcdiv"},
    {"matrix", "matrix products"},
    {"index", "index, scatter, put, masked"},
    {"cumulative", "cumulative and triangular"},
    {"setitem", "Python setitem"},
    {"write_back", "write-back scatters (functionalizer output)"},
    {"control", "control flow (blocks of statements)"},
    {"list", "lists of tensors"},
    {"size", "sizes as values (int results: x.size(d), x.shape[d], x.numel(), x.dim())"},
    {"reduce", "reductions (over every dim, over given dims)"},
    {"self_return", "functional ops that can return their argument itself"},
    {"factory", "factories of another tensor's dtype"},
    {"creation", "tensor factories without a tensor argument"},
    {"foreach", "in place over a list of tensors (torch._foreach_*_)"},
};

/* Families whose ops compute new values (and so round them in float16/bfloat16, whose integers are
 * exact only up to 2048 and 256), as opposed to those that only move, select, compare or make values
 * (views, fill/copy, cat/stack/where, factories, comparisons and logical ops: 0 and 1). index and
 * cumulative count as computing (index_add_, scatter_add_, cumsum_), setitem too (its aug forms). */
static const unsigned char fam_computes[OPS_FAM_COUNT] = {
    [OPS_FAM_ARITH] = 1, [OPS_FAM_UNARY_FLOAT] = 1, [OPS_FAM_UNARY_NUM] = 1, [OPS_FAM_ACTIVATION] = 1,
    [OPS_FAM_TERNARY] = 1, [OPS_FAM_MATRIX] = 1, [OPS_FAM_INDEX] = 1, [OPS_FAM_CUMULATIVE] = 1,
    [OPS_FAM_SETITEM] = 1, [OPS_FAM_REDUCE] = 1,
};

const char *ops_family_name(int fam) { return fam >= 0 && fam < OPS_FAM_COUNT ? fam_names[fam][0] : "?"; }
const char *ops_family_title(int fam) { return fam >= 0 && fam < OPS_FAM_COUNT ? fam_names[fam][1] : "?"; }


/* How a binary op's result dtype follows from the promoted operand dtype. */
enum { P_SAME, P_BOOL, P_FLOAT, P_DOUBLE };

static int promo(int op) {
  switch (op) {
    case OPS_eq_: case OPS_ne_: case OPS_ge_: case OPS_gt_: case OPS_le_: case OPS_lt_: case OPS_greater_:
    case OPS_greater_equal_: case OPS_less_: case OPS_less_equal_: case OPS_not_equal_: case OPS_eq: case OPS_ne:
    case OPS_ge: case OPS_le: case OPS_lt: case OPS_gt: case OPS_logical_and_: case OPS_logical_or_:
    case OPS_logical_xor_: case OPS_logical_and: case OPS_logical_or: case OPS_logical_xor:
      return P_BOOL;
    case OPS_atan2_: case OPS_arctan2_: case OPS_hypot_: case OPS_copysign_: case OPS_xlogy_: case OPS_ldexp_:
    case OPS_nextafter_: case OPS_true_divide_: case OPS_divide_: case OPS_atan2: case OPS_hypot: case OPS_copysign:
    case OPS_xlogy: case OPS_ldexp: case OPS_nextafter:
      return P_FLOAT;
    case OPS_float_power_: case OPS_float_power: return P_DOUBLE;
    default: return P_SAME;
  }
}

/* Ops whose second operand must be a tensor (no Scalar overload). */
static int tensor_operand_only(int op) {
  switch (op) {
    case OPS_atan2_: case OPS_arctan2_: case OPS_hypot_: case OPS_heaviside_: case OPS_gcd_: case OPS_lcm_:
    case OPS_ldexp_: case OPS_nextafter_: case OPS_logical_and_: case OPS_logical_or_: case OPS_logical_xor_:
    case OPS_atan2: case OPS_hypot: case OPS_heaviside: case OPS_gcd: case OPS_lcm: case OPS_ldexp: case OPS_nextafter:
    case OPS_logical_and: case OPS_logical_or: case OPS_logical_xor:
      return 1;
    default: return 0;
  }
}

/* Result dtype of binary op `arg a op arg b`, with the checks eager's kernels make. *common: the
 * promoted operand dtype the kernel computes in. */
static int binary_dtype(int op, const ir_stmt *st, const ops_env *env, int a, int b, af_dtype *common, af_dtype *res,
                        af_err *err) {
  ti_opnd t[2];
  af_dtype dt[2];
  ops_opnd_kind k[2];
  opnd(st, a, env, &t[0], &dt[0], &k[0]);
  opnd(st, b, env, &t[1], &dt[1], &k[1]);
  af_dtype c = ops_result_type(2, dt, k);
  const char *name = ops_get(op)->name;
  int pr = promo(op), mask = dtype_mask(op);
  if (op == OPS_heaviside_ || op == OPS_heaviside || op == OPS_nextafter_ || op == OPS_nextafter) {
    if (dt[0] != dt[1]) return af_fail(err, "%s is not implemented for tensors with different dtypes", name);
  }
  switch (pr) {
    case P_BOOL: *res = AF_BOOL; break;
    case P_FLOAT:
      if (!is_float(c)) c = AF_FLOAT32;
      *res = c;
      break;
    case P_DOUBLE:
      c = AF_FLOAT64;
      *res = c;
      break;
    default: *res = c; break;
  }
  if (pr != P_BOOL && !in_mask(mask, c)) return af_fail(err, "\"%s\" not implemented for '%s'", name, af_dtype_name(c));
  if (pr == P_SAME && (op == OPS_sub_ || op == OPS_subtract_ || op == OPS_sub) && c == AF_BOOL)
    return af_fail(err, "Subtraction, the `-` operator, with two bool tensors is not supported");
  *common = c;
  return 0;
}

/* Data-dependent rules of binary ops with integer results: division by zero and negative powers
 * are errors in eager, so only numbers the rule can check are taken. */
static int binary_data_ok(int op, af_dtype common, const ir_arg *o, af_err *err) {
  int ip = inplace_of(op);
  double x = o->kind == IR_ARG_FLOAT ? o->f : (double)o->i;
  int num = o->kind != IR_ARG_VALUE;
  switch (ip) {
    case OPS_remainder_: case OPS_fmod_: case OPS_floor_divide_:
      if (is_int(common) && (!num || x == 0)) return af_fail(err, "%s on integers needs a non-zero number (a tensor may hold 0: ZeroDivisionError)", ops_get(op)->name);
      return 0;
    case OPS_pow_:
      if (is_int(common) && (!num || x < 0)) return af_fail(err, "pow on integers needs a number >= 0 (Integers to negative integer powers are not allowed)");
      return 0;
    case OPS_bitwise_left_shift_: case OPS_bitwise_right_shift_:
      if (!num || x < 0 || x > 8 * (double)af_dtype_size(common) - 2) /* 62 for int64, 6 for int8 (no shift past the width) */
        return af_fail(err, "%s takes a shift count 0..%d here (a tensor may hold negative counts)", ops_get(op)->name,
                       8 * (int)af_dtype_size(common) - 2);
      return 0;
    default: return 0;
  }
}

/* A tensor operand that must broadcast to self (in place) or with it (functional). */
static int operand_shape(const ops_env *env, const ops_meta *self, int v, int inplace, int *rank, int64_t *shape, af_err *err) {
  const ops_meta *o = META(v);
  if (inplace) {
    if (!ops_broadcasts_to(o->rank, o->shape, self->rank, self->shape))
      return af_fail(err, "output with shape of rank %d doesn't match the broadcast shape (operand of rank %d)", self->rank, o->rank);
    *rank = self->rank;
    memcpy(shape, self->shape, sizeof(int64_t) * (size_t)self->rank);
    return 0;
  }
  if (ops_broadcast(*rank, shape, o->rank, o->shape, rank, shape)) return af_fail(err, "the shapes of the operands do not broadcast");
  return 0;
}

/* ---- views ---- */

/* split/chunk/unbind element k: the dim, start and length it covers (a narrow). */
int ops_multi_view_range(int op, const ir_arg *args, int rank, const int64_t *shape, int64_t *dim, int64_t *start,
                         int64_t *len, af_err *err) {
  ops_meta m;
  if (rank > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", rank, AF_MAX_RANK);
  ops_meta_init(&m, AF_FLOAT32, rank, shape);
  return multi_view_range(op, args, &m, dim, start, len, err);
}

static int multi_view_range(int op, const ir_arg *a, const ops_meta *in, int64_t *dim, int64_t *start, int64_t *len, af_err *err) {
  if (in->rank == 0) return af_fail(err, "%s of a 0-dim tensor", ops_get(op)->name);
  int64_t n, size, count, k;
  if (wrapd(op == OPS_unbind_get ? a[1].i : a[2].i, in->rank, dim, err)) return -1;
  n = in->shape[*dim];
  if (op == OPS_unbind_get) {
    size = 1;
    count = n;
    k = a[2].i;
  } else if (op == OPS_split_get) {
    size = a[1].i;
    if (size <= 0) return af_fail(err, "split expects split_size be non-negative and not 0 here, but got %lld", (long long)size);
    count = n == 0 ? 1 : (n + size - 1) / size;
    k = a[3].i;
  } else {
    if (a[1].i <= 0) return af_fail(err, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)a[1].i);
    if (n == 0) return af_fail(err, "chunk of an empty dim is not modelled");
    size = (n + a[1].i - 1) / a[1].i;
    count = (n + size - 1) / size;
    k = a[3].i;
  }
  if (k < -count || k >= count) return af_fail(err, "IndexError: list index %lld out of range (%lld results)", (long long)k, (long long)count);
  if (k < 0) k += count;
  *start = k * size;
  *len = n - *start < size ? n - *start : size;
  return 0;
}

/* ---- data-writing rules shared by in-place and functional forms ---- */

static int check_matrix(int op, const ir_stmt *st, const ops_env *env, const ops_meta *self, int inplace, int *rank,
                        int64_t *shape, af_err *err) {
  const ir_arg *a = st->args;
  const ops_meta *x = META(a[1].value), *y = META(a[2].value);
  int ip = inplace_of(op);
  if (x->dtype != self->dtype || y->dtype != self->dtype) return af_fail(err, "%s: expected self and the matrices to have the same dtype", ops_get(op)->name);
  int rx = ip == OPS_baddbmm_ || ip == OPS_addbmm_ ? 3 : ip == OPS_addr_ ? 1 : 2;
  int ry = ip == OPS_baddbmm_ || ip == OPS_addbmm_ ? 3 : 1 + (ip == OPS_addmm_);
  if (ip == OPS_addr_) ry = 1;
  if (x->rank != rx || y->rank != ry) return af_fail(err, "%s: operands of rank %d and %d, expected %d and %d", ops_get(op)->name, x->rank, y->rank, rx, ry);
  switch (ip) {
    case OPS_addmm_:
      if (x->shape[1] != y->shape[0]) return af_fail(err, "mat1 and mat2 shapes cannot be multiplied");
      *rank = 2, shape[0] = x->shape[0], shape[1] = y->shape[1];
      break;
    case OPS_addmv_:
      if (x->shape[1] != y->shape[0]) return af_fail(err, "size mismatch in addmv");
      *rank = 1, shape[0] = x->shape[0];
      break;
    case OPS_addr_: *rank = 2, shape[0] = x->shape[0], shape[1] = y->shape[0]; break;
    case OPS_baddbmm_:
    case OPS_addbmm_:
      if (x->shape[0] != y->shape[0] || x->shape[2] != y->shape[1]) return af_fail(err, "batch1 and batch2 shapes cannot be multiplied");
      if (ip == OPS_baddbmm_) *rank = 3, shape[0] = x->shape[0], shape[1] = x->shape[1], shape[2] = y->shape[2];
      else *rank = 2, shape[0] = x->shape[1], shape[1] = y->shape[2];
      break;
    default: return af_fail(err, "no matrix rule");
  }
  if (inplace ? !shape_is(self, *rank, shape) : !ops_broadcasts_to(self->rank, self->shape, *rank, shape))
    return af_fail(err, "%s: self does not match the product's shape", ops_get(op)->name);
  for (int k = 3; k <= 4; k++)
    if (is_int(self->dtype) && a[k].kind == IR_ARG_FLOAT) return af_fail(err, "%s: float beta/alpha with integer tensors", ops_get(op)->name);
  return 0;
}

/* index data of value v (nonneg, in [lo, hi)); distinct: no repeats. Unknown data refuses. */
static int index_data_ok(const ops_env *env, int v, int64_t lo, int64_t hi, int distinct, int64_t wrap, const char *what, af_err *err) {
  const ops_meta *ix = META(v);
  if (ix->dtype != AF_INT64) return af_fail(err, "%s: expected an int64 index", what);
  int64_t nd = 0, n = ops_meta_numel(ix);
  const double *d = env->data ? env->data(env->ctx, v, &nd) : NULL;
  if (!d) return af_fail(err, "%s: index data unknown (range and repeats not decidable)", what);
  if (n > 4096) return af_fail(err, "%s: index too long", what);
  int64_t seen[4096];
  for (int64_t k = 0; k < n; k++) {
    int64_t x = (int64_t)d[nd ? k % nd : 0];
    if (x < lo || x >= hi) return af_fail(err, "%s: index %lld out of range", what, (long long)x);
    if (x < 0) x += wrap;
    seen[k] = x;
  }
  if (distinct) {
    qsort(seen, (size_t)n, sizeof seen[0], cmp_i64);
    for (int64_t k = 1; k < n; k++)
      if (seen[k] == seen[k - 1]) return undefined(env, OPS_UNDEF_ORDER), af_fail(err, "%s with repeated indices: the result depends on write order", what);
  }
  return 0;
}

static int check_index_more(int op, const ir_stmt *st, const ops_env *env, const ops_meta *self, af_err *err) {
  const ir_arg *a = st->args;
  int ip = inplace_of(op);
  const char *name = ops_get(op)->name;
  switch (ip) {
    case OPS_index_copy_:
    case OPS_index_fill_: {
      if (self->rank == 0) return af_fail(err, "%s of a 0-dim tensor is not modelled", name);
      int64_t dim;
      if (wrapd(a[1].i, self->rank, &dim, err)) return -1;
      const ops_meta *ix = META(a[2].value);
      if (ix->rank > 1) return af_fail(err, "%s(): Index is supposed to be a vector", name);
      if (index_data_ok(env, a[2].value, 0, self->shape[dim], ip == OPS_index_copy_, self->shape[dim], name, err)) return -1;
      if (ip == OPS_index_fill_) {
        if (number_or_zerodim(&a[3], env, name, err) || value_fits(env, self->dtype, &a[3], err)) return -1;
        if (is_int(self->dtype) && a[3].kind == IR_ARG_FLOAT) return af_fail(err, "index_fill_: a float value into an integer tensor is not generated");
        if (a[3].kind == IR_ARG_VALUE && !ops_can_cast(META(a[3].value)->dtype, self->dtype)) return af_fail(err, "index_fill_: value dtype");
        return 0;
      }
      const ops_meta *src = META(a[3].value);
      if (src->dtype != self->dtype) return af_fail(err, "index_copy_(): self and source expected to have the same dtype");
      if (src->rank != self->rank) return af_fail(err, "index_copy_(): source must have the rank of self");
      for (int d = 0; d < self->rank; d++)
        if (src->shape[d] != (d == dim ? ops_meta_numel(ix) : self->shape[d]))
          return af_fail(err, "index_copy_(): source has size %lld at dim %d", (long long)src->shape[d], d);
      return 0;
    }
    case OPS_masked_scatter_: {
      const ops_meta *mask = META(a[1].value), *src = META(a[2].value);
      if (op == OPS_masked_scatter_ && !(self->exact && ops_meta_is_contiguous(self)))
        return af_fail(err, "masked_scatter_ into a non-contiguous tensor: PyTorch 1.13 takes the source elements in memory order, not in self's order");
      if (mask->dtype != AF_BOOL) return af_fail(err, "masked_scatter_ only supports boolean masks");
      if (!ops_broadcasts_to(mask->rank, mask->shape, self->rank, self->shape)) return af_fail(err, "masked_scatter_: mask does not broadcast to self");
      if (src->dtype != self->dtype) return af_fail(err, "masked_scatter_: expected self and source to have same dtypes");
      if (ops_meta_numel(src) < ops_meta_numel(self)) return af_fail(err, "masked_scatter_: a source smaller than self (enough only for some masks) is not generated");
      return 0;
    }
    case OPS_scatter_add_: {
      int64_t dim;
      if (wrapd(a[1].i, self->rank, &dim, err)) return -1;
      const ops_meta *ix = META(a[2].value), *src = META(a[3].value);
      if (self->rank == 0 || ix->rank != self->rank || src->rank != self->rank) return af_fail(err, "Index tensor must have the same number of dimensions as self tensor");
      if (src->dtype != self->dtype) return af_fail(err, "scatter_add(): Expected self.dtype to be equal to src.dtype");
      for (int d = 0; d < self->rank; d++) {
        if (d != dim && ix->shape[d] > self->shape[d]) return af_fail(err, "Size does not match at dimension %d", d);
        if (ix->shape[d] > src->shape[d]) return af_fail(err, "Size does not match at dimension %d: index larger than src", d);
      }
      return index_data_ok(env, a[2].value, 0, self->shape[dim], 0, 0, name, err);
    }
    case OPS_put_: {
      const ops_meta *src = META(a[2].value);
      int64_t n = ops_meta_numel(self);
      if (n == 0) return af_fail(err, "put_ into an empty tensor");
      if (src->dtype != self->dtype) return af_fail(err, "put_: expected self and source to have the same dtype");
      if (ops_meta_numel(src) != ops_meta_numel(META(a[1].value))) return af_fail(err, "put_: Expected source and index to have the same number of elements");
      return index_data_ok(env, a[1].value, -n, n, !a[3].i, n, name, err);
    }
    default: return af_fail(err, "no index rule");
  }
}

/* ---- out= forms: the twin's own rule gives the result; out= must have its shape (no resize)
 * and take its dtype (strict: exactly its dtype; else castable into it) ---- */

static int out_rule(const ir_stmt *st, const ops_env *env, const ops_meta *self, int strict, int cat, af_err *err) {
  const ir_arg *a = st->args;
  int w = a[0].value;
  int twin = ops_twin(st->op);
  ir_stmt t = {.op = twin, .out = -1, .nargs = st->nargs - 1, .args = st->args + 1};
  ops_effect te;
  if (twin < 0 || ops_shape_infer(&t, env, &te, err)) return -1;
  if (!shape_is(self, te.out.rank, te.out.shape)) return af_fail(err, "out= tensor has another shape than the result (it would be resized)");
  if (cat) { /* PyTorch 1.13's cat writes nothing into an out= whose size-1 cat dim has another
                stride, and divides by zero for stride 0 */
    int64_t cs[AF_MAX_RANK];
    contig_strides(self->rank, self->shape, cs);
    if (!self->exact || memcmp(cs, self->stride, sizeof(int64_t) * (size_t)self->rank))
      return af_fail(err, "cat out= into a tensor without contiguous strides (size-1 dims included): PyTorch 1.13's cat kernel skips the write or divides by zero");
  }
  if (strict ? te.out.dtype != self->dtype : !ops_can_cast(te.out.dtype, self->dtype))
    return af_fail(err, "out= tensor of dtype %s for a result of dtype %s", af_dtype_name(self->dtype), af_dtype_name(te.out.dtype));
  for (int k = 1; k < st->nargs; k++) {
    if (a[k].kind == IR_ARG_VALUE && no_overlap(env, w, a[k].value, !strict, err)) return -1;
    if (a[k].kind == IR_ARG_VALUES)
      for (int j = 0; j < a[k].n; j++)
        if (no_overlap(env, w, a[k].values[j], 0, err)) return -1;
  }
  return 0;
}

/* sub_out, div_out: a result castable into out */
static int shape_out_twin_cast(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return out_rule(st, env, self, 0, 0, err);
}

/* unary, cumsum, mm: out= of the result's dtype */
static int shape_out_twin(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return out_rule(st, env, self, 1, 0, err);
}

static int shape_out_cat(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return out_rule(st, env, self, 1, 1, err);
}

/* ---- pointwise unary (in place: self's dtype must take the result) ---- */

/* number arguments of a unary op that eager converts into self's dtype (hardtanh's and
 * threshold's bounds) must fit it */
static int unary_numbers_fit(const ir_stmt *st, const ops_meta *self, af_err *err) {
  for (int k = 1; k < st->nargs; k++) {
    const ir_arg *a = &st->args[k];
    if (a->kind != IR_ARG_INT && a->kind != IR_ARG_FLOAT) continue;
    if (scalar_fits(self->dtype, a, NULL, err)) return -1;
    if (self->dtype == AF_UINT8 && (a->kind == IR_ARG_FLOAT ? a->f : (double)a->i) < 0) /* hardtanh's check, taken for all */
      return af_fail(err, "cannot do %s on an unsigned type with negative limits", ops_get(st->op)->name);
  }
  return 0;
}

static int shape_write_unary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  return self_dtype_ok(st->op, self, err) || unary_numbers_fit(st, self, err) ? -1 : 0;
}

static int celu_alpha_ok(const ir_arg *a, af_err *err) {
  if ((a[1].kind == IR_ARG_FLOAT ? a[1].f : (double)a[1].i) == 0) return af_fail(err, "ZeroDivisionError: celu alpha 0");
  return 0;
}

static int shape_write_celu(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  if (self_dtype_ok(st->op, self, err)) return -1;
  return celu_alpha_ok(st->args, err);
}

static int shape_write_clip(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  if (self_dtype_ok(st->op, self, err)) return -1;
  return clamp_bounds_ok(st->args, self, err);
}

/* a unary result of dtype dt: TensorIterator's layout (layout_like: empty_like(self) then the
 * out= kernel, as hardtanh, relu6, deg2rad, rad2deg and nan_to_num do) */
static int unary_func(const ir_stmt *st, const ops_meta *self, af_dtype dt, int layout_like, ops_meta *o, af_err *err) {
  if (self_dtype_ok(st->op, self, err) || unary_numbers_fit(st, self, err)) return -1;
  if (layout_like) {
    preserve_layout(self, o);
    return 0;
  }
  ti_opnd t = {self, self->dtype};
  ti_layout(1, &t, self->dtype, self->rank, self->shape, dt, o);
  return 0;
}

static int shape_func_unary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return unary_func(st, self, self->dtype, 0, &e->out, err);
}

static int shape_func_unary_preserve(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return unary_func(st, self, self->dtype, 1, &e->out, err);
}

static int shape_func_logical_not(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return unary_func(st, self, AF_BOOL, 0, &e->out, err);
}

static int shape_func_celu(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (self_dtype_ok(st->op, self, err)) return -1;
  if (celu_alpha_ok(st->args, err)) return -1;
  return unary_func(st, self, self->dtype, 0, &e->out, err);
}

/* ---- pointwise binary ---- */

static int shape_write_binary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int op = st->op, w = a[0].value;
  if (self_dtype_ok(op, self, err)) return -1;
  const ir_arg *o = &a[1];
  if (o->kind == IR_ARG_VALUE) {
    int r;
    int64_t sh[AF_MAX_RANK];
    if (operand_shape(env, self, o->value, 1, &r, sh, err)) return -1;
    if (no_overlap(env, w, o->value, 1, err)) return -1;
  } else if (tensor_operand_only(op)) {
    return af_fail(err, "%s takes a tensor operand", ops_get(op)->name);
  }
  af_dtype c, r;
  if (binary_dtype(op, st, env, 0, 1, &c, &r, err)) return -1;
  if (!ops_can_cast(r, self->dtype))
    return af_fail(err, "result type %s can't be cast to the desired output type %s", af_dtype_name(r), af_dtype_name(self->dtype));
  return binary_data_ok(op, c, o, err);
}

static int shape_func_binary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  int op = st->op;
  ops_meta *o = &e->out;
  if (self_dtype_ok(op, self, err)) return -1;
  const ir_arg *x = &a[1];
  int r = self->rank;
  int64_t shape[AF_MAX_RANK];
  memcpy(shape, self->shape, sizeof shape);
  if (x->kind == IR_ARG_VALUE) {
    if (operand_shape(env, self, x->value, 0, &r, shape, err)) return -1;
  } else if (tensor_operand_only(op)) {
    return af_fail(err, "%s takes a tensor operand", ops_get(op)->name);
  }
  af_dtype c, res;
  if (binary_dtype(op, st, env, 0, 1, &c, &res, err) || binary_data_ok(op, c, x, err)) return -1;
  ti_opnd t[2];
  af_dtype dt;
  ops_opnd_kind k;
  opnd(st, 0, env, &t[0], &dt, &k);
  opnd(st, 1, env, &t[1], &dt, &k);
  int ip = inplace_of(op);
  /* pow and clamp_min/max take a number as a kernel parameter (a unary iterator); the others
   * wrap it into a 0-dim operand */
  int unary = x->kind != IR_ARG_VALUE && (ip == OPS_pow_ || ip == OPS_clamp_min_ || ip == OPS_clamp_max_);
  ti_layout(unary ? 1 : 2, t, c, r, shape, res, o);
  if (x->kind == IR_ARG_VALUE && META(x->value)->dtype != self->dtype) o->exact = 0;
  if (promo(op) != P_BOOL && c != self->dtype) o->exact = 0;
  return 0;
}

/* ---- lerp, addcmul, addcdiv ---- */

static int shape_write_lerp(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (self_dtype_ok(st->op, self, err)) return -1;
  int r;
  int64_t sh[AF_MAX_RANK];
  const ops_meta *end = META(a[1].value);
  if (end->dtype != self->dtype) return af_fail(err, "lerp_: expected dtype %s for `end`", af_dtype_name(self->dtype));
  if (operand_shape(env, self, a[1].value, 1, &r, sh, err) || no_overlap(env, w, a[1].value, 1, err)) return -1;
  if (a[2].kind == IR_ARG_VALUE) {
    if (META(a[2].value)->dtype != self->dtype) return af_fail(err, "lerp_: expected dtype %s for `weight`", af_dtype_name(self->dtype));
    if (operand_shape(env, self, a[2].value, 1, &r, sh, err) || no_overlap(env, w, a[2].value, 1, err)) return -1;
  }
  return 0;
}

/* addcmul_ (div 0), addcdiv_ (div 1) */
static int addc_inplace(const ir_stmt *st, const ops_env *env, const ops_meta *self, int div, af_err *err) {
  const ir_arg *a = st->args;
  const ops_entry *oe = ops_get(st->op);
  int w = a[0].value;
  if (self_dtype_ok(st->op, self, err)) return -1;
  int r;
  int64_t sh[AF_MAX_RANK];
  for (int k = 1; k <= 2; k++)
    if (operand_shape(env, self, a[k].value, 1, &r, sh, err) || no_overlap(env, w, a[k].value, 1, err)) return -1;
  af_dtype dt[3] = {self->dtype, META(a[1].value)->dtype, META(a[2].value)->dtype};
  ops_opnd_kind kd[3] = {self->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM,
                         META(a[1].value)->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM,
                         META(a[2].value)->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM};
  if (dt[1] == AF_BOOL || dt[2] == AF_BOOL) return af_fail(err, "%s on bool is not modelled", oe->name);
  if (div && !is_float(dt[1]) && !is_float(dt[2])) return af_fail(err, "Integer division with addcdiv is no longer supported");
  af_dtype c = ops_result_type(3, dt, kd);
  if (common_ok(c, err)) return -1;
  if (c != self->dtype) /* its kernel does no casting: INTERNAL ASSERT needs_dynamic_casting */
    return af_fail(err, "%s_ with operands promoting to %s, not self's %s, is not modelled", oe->name, af_dtype_name(c), af_dtype_name(self->dtype));
  if (!is_float(c) && a[3].kind == IR_ARG_FLOAT) return af_fail(err, "%s: a float value with integer tensors", oe->name);
  return 0;
}

static int shape_write_addcmul(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return addc_inplace(st, env, self, 0, err);
}

static int shape_write_addcdiv(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return addc_inplace(st, env, self, 1, err);
}

/* lerp (how 0), addcmul (1), addcdiv (2) */
static int lerp_addc_func(const ir_stmt *st, const ops_env *env, const ops_meta *self, int how, ops_meta *o, af_err *err) {
  const ir_arg *a = st->args;
  const ops_entry *oe = ops_get(st->op);
  if (self_dtype_ok(st->op, self, err)) return -1;
  int r = self->rank, n = 1;
  int64_t shape[AF_MAX_RANK];
  memcpy(shape, self->shape, sizeof shape);
  ti_opnd t[3] = {{self, self->dtype}};
  af_dtype dt[3] = {self->dtype};
  ops_opnd_kind kd[3] = {self->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM};
  int mixed = 0;
  for (int k = 1; k <= 2; k++) {
    if (a[k].kind != IR_ARG_VALUE) continue;
    const ops_meta *m = META(a[k].value);
    if (operand_shape(env, self, a[k].value, 0, &r, shape, err)) return -1;
    if (m->dtype == AF_BOOL) return af_fail(err, "%s on bool is not modelled", oe->name);
    if (how == 0 && m->dtype != self->dtype) return af_fail(err, "lerp: expected the dtype of self for end and weight");
    if (m->dtype != self->dtype) mixed = 1;
    t[n] = (ti_opnd){m, m->dtype};
    dt[n] = m->dtype;
    kd[n] = m->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM;
    n++;
  }
  af_dtype c = ops_result_type(n, dt, kd);
  if (common_ok(c, err)) return -1;
  if (how == 2 && !is_float(dt[1]) && !is_float(dt[2])) return af_fail(err, "Integer division with addcdiv is no longer supported");
  if (how != 0 && !is_float(c) && a[3].kind == IR_ARG_FLOAT) return af_fail(err, "%s: a float value with integer tensors", oe->name);
  ti_layout(n, t, c, r, shape, c, o);
  if (mixed) o->exact = 0;
  return 0;
}

static int shape_func_lerp(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return lerp_addc_func(st, env, self, 0, &e->out, err);
}

static int shape_func_addcmul(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return lerp_addc_func(st, env, self, 1, &e->out, err);
}

static int shape_func_addcdiv(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return lerp_addc_func(st, env, self, 2, &e->out, err);
}

/* ---- matrix products ---- */

static int shape_write_matrix(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (self_dtype_ok(st->op, self, err)) return -1;
  int r;
  int64_t sh[AF_MAX_RANK];
  if (check_matrix(st->op, st, env, self, 1, &r, sh, err)) return -1;
  return no_overlap(env, w, a[1].value, 0, err) || no_overlap(env, w, a[2].value, 0, err) ? -1 : 0;
}

static int shape_func_matrix(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (self_dtype_ok(st->op, self, err)) return -1;
  int r;
  int64_t sh[AF_MAX_RANK];
  if (check_matrix(st->op, st, env, self, 0, &r, sh, err)) return -1;
  fresh_contig(&e->out, self->dtype, r, sh);
  e->out.exact = 0;
  return 0;
}

static int shape_func_mm(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  ops_meta *o = &e->out;
  const ops_meta *y = META(st->args[1].value);
  if (self->rank != 2 || y->rank != 2) return af_fail(err, "mm: expected 2-D tensors");
  if (self->dtype != y->dtype || self->dtype == AF_BOOL) return af_fail(err, "mm: expected the same non-bool dtype");
  if (self->shape[1] != y->shape[0]) return af_fail(err, "mat1 and mat2 shapes cannot be multiplied");
  int64_t sh[2] = {self->shape[0], y->shape[1]};
  fresh_contig(o, self->dtype, 2, sh);
  if (sh[0] == 1 || sh[1] == 1) o->exact = 0;
  return 0;
}

/* ---- index_copy, index_fill, masked_scatter, scatter_add, put ---- */

static int shape_write_index_more(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (self_dtype_ok(st->op, self, err)) return -1;
  if (check_index_more(st->op, st, env, self, err)) return -1;
  for (int k = 1; k < st->nargs; k++)
    if (a[k].kind == IR_ARG_VALUE && no_overlap(env, w, a[k].value, 0, err)) return -1;
  return 0;
}

static int shape_func_index_more(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  int op = st->op;
  if (self_dtype_ok(op, self, err)) return -1;
  if (check_index_more(op, st, env, self, err)) return -1;
  if (op == OPS_index_fill || op == OPS_put) preserve_layout(self, &e->out); /* clone(Preserve) + in place */
  else fresh_contig(&e->out, self->dtype, self->rank, self->shape); /* structured: a contiguous output */
  return 0;
}

static int shape_func_masked_scatter(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  if (self_dtype_ok(st->op, self, err)) return -1;
  const ops_meta *mask = META(a[1].value);
  int r;
  int64_t shape[AF_MAX_RANK];
  if (mask->dtype != AF_BOOL) return af_fail(err, "masked_scatter only supports boolean masks");
  if (ops_broadcast(self->rank, self->shape, mask->rank, mask->shape, &r, shape)) return af_fail(err, "masked_scatter: mask does not broadcast");
  const ops_meta *src = META(a[2].value);
  if (src->dtype != self->dtype) return af_fail(err, "masked_scatter: expected self and source to have same dtypes");
  if (ops_meta_numel(src) < ir_numel(r, shape)) return af_fail(err, "masked_scatter: a source smaller than the result is not generated");
  fresh_contig(&e->out, self->dtype, r, shape);
  return 0;
}

/* ---- cumulative and triangular ---- */

static int shape_write_cumulative(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  if (self_dtype_ok(st->op, self, err)) return -1;
  int64_t d;
  return wrapd(st->args[1].i, self->rank, &d, err);
}

static int shape_func_cumulative(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (self_dtype_ok(st->op, self, err)) return -1;
  int64_t d;
  if (wrapd(st->args[1].i, self->rank, &d, err)) return -1;
  fresh_contig(&e->out, is_int(self->dtype) ? AF_INT64 : self->dtype, self->rank, self->shape); /* integers: int64, as sum */
  return 0;
}

static int shape_write_triangular(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  if (self_dtype_ok(st->op, self, err)) return -1;
  if (self->rank < 2) return af_fail(err, "%s: input tensor must have at least 2 dimensions", ops_get(st->op)->name);
  return 0;
}

static int shape_func_triangular(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (self_dtype_ok(st->op, self, err)) return -1;
  if (self->rank < 2) return af_fail(err, "%s: input tensor must have at least 2 dimensions", ops_get(st->op)->name);
  fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  return 0;
}

static ir_arg pick_num(const ops_chooser *ch, const double *v, int n) {
  double x = v[R(0, n - 1)];
  return x == (double)(int64_t)x && !D(OPS_DECIDE_FLOAT) ? a_int((int64_t)x) : a_float(x);
}

static ir_arg pick_int(const ops_chooser *ch, const int64_t *v, int n) { return a_int(v[R(0, n - 1)]); }

/* the scalar operand of binary op ip (in-place form) for a self of dtype dt */
static ir_arg binary_number(const ops_chooser *ch, int ip, af_dtype dt) {
  int fl = is_float(dt);
  switch (ip) {
    case OPS_pow_: {
      static const double f[] = {2, 3, 0.5, -1, 2.0};
      static const int64_t i[] = {0, 2, 3};
      return fl ? pick_num(ch, f, 5) : pick_int(ch, i, 3);
    }
    case OPS_remainder_: case OPS_fmod_: case OPS_floor_divide_: {
      static const double f[] = {2, 3, -2, 1.5, 0.5, -3};
      static const int64_t i[] = {2, 3, -2, -3};
      return fl ? pick_num(ch, f, 6) : pick_int(ch, i, 4);
    }
    case OPS_copysign_: {
      static const double f[] = {-1, 1, -0.5, 2};
      return pick_num(ch, f, 4);
    }
    case OPS_xlogy_: {
      static const double f[] = {2, 3, 0.5};
      return pick_num(ch, f, 3);
    }
    case OPS_float_power_: {
      static const double f[] = {2, 0.5, -1, 3};
      return pick_num(ch, f, 4);
    }
    case OPS_true_divide_: case OPS_divide_: return divisor(ch);
    case OPS_multiply_: return operand_number(ch, dt, OPS_mul_);
    case OPS_subtract_: return operand_number(ch, dt, OPS_sub_);
    case OPS_bitwise_and_: case OPS_bitwise_or_: case OPS_bitwise_xor_: return a_int(R(-3, 7));
    case OPS_bitwise_left_shift_: case OPS_bitwise_right_shift_: return a_int(R(1, 3));
    default: return dt == AF_BOOL ? a_int(R(0, 1)) : number(ch, dt); /* comparisons, clamp_min_, clamp_max_ */
  }
}

/* which operand forms binary op ip takes for a self of dtype dt: 1 numbers, 2 tensors (of rule *rule) */
static int binary_forms(int ip, af_dtype dt, ops_dt_rule *rule) {
  *rule = OPS_DT_INTO;
  switch (ip) {
    case OPS_pow_: case OPS_remainder_: case OPS_fmod_: case OPS_floor_divide_: return is_float(dt) ? 3 : 1;
    case OPS_atan2_: case OPS_arctan2_: case OPS_hypot_: return 2;
    case OPS_copysign_: case OPS_xlogy_: case OPS_multiply_: case OPS_subtract_: case OPS_clamp_min_: case OPS_clamp_max_:
      return 3;
    case OPS_heaviside_: case OPS_nextafter_: *rule = OPS_DT_SAME; return 2;
    case OPS_gcd_: case OPS_lcm_: *rule = OPS_DT_SAME; return 2;
    case OPS_ldexp_: *rule = OPS_DT_SAME; return 2; /* an int64 exponent: exact */
    case OPS_float_power_: *rule = OPS_DT_ANY; return 3;
    case OPS_true_divide_: case OPS_divide_: return 1;
    case OPS_bitwise_and_: case OPS_bitwise_or_: case OPS_bitwise_xor_: *rule = OPS_DT_SAME; return dt == AF_BOOL ? 2 : 3;
    case OPS_bitwise_left_shift_: case OPS_bitwise_right_shift_: return 1;
    case OPS_logical_and_: case OPS_logical_or_: case OPS_logical_xor_: *rule = OPS_DT_ALL; return 2;
    default: *rule = OPS_DT_ALL; return 3; /* comparisons */
  }
}

static int args_binary(int op, int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args) {
  int ip = inplace_of(op), inplace = ops_get(op)->kind == OPS_INPLACE;
  ops_dt_rule rule;
  int forms = binary_forms(ip, m->dtype, &rule);
  if ((forms & 1) && (!(forms & 2) || D(OPS_DECIDE_NUMBER))) {
    if (m->dtype == AF_BOOL && promo(ip) != P_BOOL) return -1; /* a number would promote past bool */
    args[1] = binary_number(ch, ip, m->dtype);
    return 0;
  }
  af_dtype want = ip == OPS_ldexp_ ? AF_INT64 : m->dtype;
  ops_req q = req(OPS_REQ_BROADCAST, m->rank, m->shape, want, rule, inplace ? p : -1, 1);
  int v = tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return 0;
}


static int args_matrix(int op, int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args) {
  int ip = inplace_of(op), inplace = ops_get(op)->kind == OPS_INPLACE;
  if (m->dtype == AF_BOOL) return -1;
  int64_t k = R(1, 4), xs[3], ys[3];
  int rx, ry;
  switch (ip) {
    case OPS_addmm_:
      if (m->rank != 2) return -1;
      rx = ry = 2, xs[0] = m->shape[0], xs[1] = k, ys[0] = k, ys[1] = m->shape[1];
      break;
    case OPS_addmv_:
      if (m->rank != 1) return -1;
      rx = 2, ry = 1, xs[0] = m->shape[0], xs[1] = k, ys[0] = k;
      break;
    case OPS_addr_:
      if (m->rank != 2) return -1;
      rx = ry = 1, xs[0] = m->shape[0], ys[0] = m->shape[1];
      break;
    case OPS_baddbmm_:
      if (m->rank != 3) return -1;
      rx = ry = 3, xs[0] = ys[0] = m->shape[0], xs[1] = m->shape[1], xs[2] = ys[1] = k, ys[2] = m->shape[2];
      break;
    default: /* addbmm_ */
      if (m->rank != 2) return -1;
      rx = ry = 3, xs[0] = ys[0] = R(1, 3), xs[1] = m->shape[0], xs[2] = ys[1] = k, ys[2] = m->shape[1];
      break;
  }
  if (ir_numel(rx, xs) > ch->max_numel || ir_numel(ry, ys) > ch->max_numel) return -1;
  ops_req q = req(OPS_REQ_SHAPE, rx, xs, m->dtype, OPS_DT_SAME, inplace ? p : -1, 0);
  int x = tensor(ch, &q);
  if (x < 0) return -1;
  q = req(OPS_REQ_SHAPE, ry, ys, m->dtype, OPS_DT_SAME, inplace ? p : -1, 0);
  int y = tensor(ch, &q);
  if (y < 0) return -1;
  static const int64_t ba[] = {1, 2, -1};
  args[1] = a_value(x), args[2] = a_value(y), args[3] = pick_int(ch, ba, 3), args[4] = pick_int(ch, ba, 3);
  return 0;
}

static int args_index_more(int op, int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args) {
  int ip = inplace_of(op), inplace = ops_get(op)->kind == OPS_INPLACE;
  int avoid = inplace ? p : -1;
  if (m->rank == 0 || m->dtype == AF_BOOL) return -1;
  int r = m->rank;
  switch (ip) {
    case OPS_index_copy_:
    case OPS_index_fill_: {
      int64_t dim = pick_dim(ch, r, 1), d = dim < 0 ? dim + r : dim, size = m->shape[d];
      int64_t len = R(1, size < 4 ? size : 4), data[4];
      int distinct = ip == OPS_index_copy_ || !D(OPS_DECIDE_DUP_INDEX);
      for (int64_t k = 0; k < len; k++) data[k] = R(0, size - 1);
      if (distinct) {
        index_values(ch, data, len, size, 1);
        for (int64_t k = 0; k < len; k++)
          if (data[k] < 0) data[k] += size;
      }
      int iv = index_tensor(ch, 1, &len, data);
      if (iv < 0) return -1;
      args[1] = a_int(dim), args[2] = a_value(iv);
      if (ip == OPS_index_fill_) {
        if (D(OPS_DECIDE_NUMBER)) {
          args[3] = number(ch, m->dtype);
        } else {
          ops_req q = req(OPS_REQ_ZERODIM, 0, NULL, m->dtype, OPS_DT_INTO, avoid, 0);
          int v = tensor(ch, &q);
          if (v < 0) return -1;
          args[3] = a_value(v);
        }
        return 0;
      }
      int64_t shape[AF_MAX_RANK];
      memcpy(shape, m->shape, sizeof(int64_t) * (size_t)r);
      shape[d] = len;
      ops_req q = req(OPS_REQ_SHAPE, r, shape, m->dtype, OPS_DT_SAME, avoid, 0);
      int v = tensor(ch, &q);
      if (v < 0) return -1;
      args[3] = a_value(v);
      return 0;
    }
    case OPS_masked_scatter_: {
      int mv = mask_for(ch, m);
      if (mv < 0) return -1;
      ops_req q = req(OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_SAME, avoid, 0);
      int v = tensor(ch, &q);
      if (v < 0) return -1;
      args[1] = a_value(mv), args[2] = a_value(v);
      return 0;
    }
    case OPS_scatter_add_: {
      int64_t dim = pick_dim(ch, r, 1), d = dim < 0 ? dim + r : dim, ishape[AF_MAX_RANK], data[256];
      for (int q = 0; q < r; q++) ishape[q] = R(1, m->shape[q] < 3 ? m->shape[q] : 3);
      int64_t n = ir_numel(r, ishape);
      for (int64_t k = 0; k < n; k++) data[k] = R(0, m->shape[d] - 1);
      int iv = index_tensor(ch, r, ishape, data);
      if (iv < 0) return -1;
      ops_req q = req(OPS_REQ_AT_LEAST, r, ishape, m->dtype, OPS_DT_SAME, avoid, 0);
      int sv = tensor(ch, &q);
      if (sv < 0) return -1;
      args[1] = a_int(dim), args[2] = a_value(iv), args[3] = a_value(sv);
      return 0;
    }
    default: { /* put_ */
      int64_t numel = ops_meta_numel(m), len = R(1, numel < 4 ? numel : 4), data[4];
      int acc = D(OPS_DECIDE_ACCUMULATE);
      index_values(ch, data, len, numel, !(acc && D(OPS_DECIDE_DUP_INDEX)));
      int iv = index_tensor(ch, 1, &len, data);
      if (iv < 0) return -1;
      ops_req q = req(OPS_REQ_SHAPE, 1, &len, m->dtype, OPS_DT_SAME, avoid, 0);
      int sv = tensor(ch, &q);
      if (sv < 0) return -1;
      args[1] = a_value(iv), args[2] = a_value(sv), args[3] = a_bool(acc);
      return 0;
    }
  }
}

/* ---- samplers of the issue-9 families: each first checks self's dtype against the op's line ---- */

/* pointwise unary ops without scalar arguments */
SAMPLER(unary) {
  SAMPLER_BEGIN;
  return dt_drawable(op, m) ? n : -1;
}

/* celu, elu: alpha */
SAMPLER(unary_alpha) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  static const double f[] = {0.5, 1.0, 2.0};
  args[1] = a_float(f[R(0, 2)]);
  return n;
}

SAMPLER(leaky_relu) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  static const double f[] = {0.5, 0.25, 2.0, 0.01};
  args[1] = a_float(f[R(0, 3)]);
  return n;
}

SAMPLER(hardtanh) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  int64_t lo = R(-3, 0), hi = R(lo + 1, 3);
  args[1] = a_int(lo), args[2] = a_int(hi);
  if (is_float(m->dtype) && D(OPS_DECIDE_FLOAT)) args[1] = a_float((double)lo - 0.5);
  return n;
}

SAMPLER(threshold) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  args[1] = a_int(R(-2, 2)), args[2] = a_int(R(-5, 5));
  return n;
}

SAMPLER(nan_to_num) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  static const double f[] = {0.0, 1.0, -1.0, 2.5};
  for (int k = 1; k <= 3; k++) args[k] = R(0, 1) ? a_float(f[R(0, 3)]) : a_none();
  return n;
}

SAMPLER(clip) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  clamp_args(ch, m, &args[1], &args[2]);
  return n;
}

SAMPLER(binary) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  return args_binary(op, p, m, ch, args) ? -1 : n;
}

SAMPLER(lerp) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  int inplace = ops_get(op)->kind == OPS_INPLACE;
  ops_req q = req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, OPS_DT_SAME, inplace ? p : -1, 1);
  int e = tensor(ch, &q);
  if (e < 0) return -1;
  args[1] = a_value(e);
  if (D(OPS_DECIDE_NUMBER)) {
    static const double w[] = {0.5, 0.25, 0.75, 2.0};
    args[2] = a_float(w[R(0, 3)]);
  } else {
    int wv = tensor(ch, &q);
    if (wv < 0) return -1;
    args[2] = a_value(wv);
  }
  return n;
}

/* addcmul, addcdiv (in place and functional) */
SAMPLER(addc) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  int inplace = ops_get(op)->kind == OPS_INPLACE, div = op == OPS_addcdiv_ || op == OPS_addcdiv;
  ops_req q = req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, OPS_DT_INTO, inplace ? p : -1, 1);
  int x = tensor(ch, &q);
  if (x < 0) return -1;
  if (div) q.dt_rule = OPS_DT_SAME; /* a float divisor: addcdiv takes no integer division */
  int y = tensor(ch, &q);
  if (y < 0) return -1;
  static const double fv[] = {2, -1, 0.5, 3};
  args[1] = a_value(x), args[2] = a_value(y);
  args[3] = is_float(m->dtype) ? pick_num(ch, fv, 4) : a_int(R(0, 1) ? 2 : -1);
  return n;
}

SAMPLER(matrix) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  return args_matrix(op, p, m, ch, args) ? -1 : n;
}

SAMPLER(mm) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  if (r != 2 || m->dtype == AF_BOOL) return -1;
  int64_t ys[2] = {m->shape[1], R(1, 4)};
  ops_req q = req(OPS_REQ_SHAPE, 2, ys, m->dtype, OPS_DT_SAME, -1, 0);
  int y = tensor(ch, &q);
  if (y < 0) return -1;
  args[1] = a_value(y);
  return n;
}

SAMPLER(index_more) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  return args_index_more(op, p, m, ch, args) ? -1 : n;
}

SAMPLER(cumulative) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  if (r == 0) return -1;
  args[1] = a_int(pick_dim(ch, r, 1));
  return n;
}

SAMPLER(triangular) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  if (r < 2) return -1;
  args[1] = a_int(R(-2, 2));
  return n;
}

/* ---- out= forms (self is the out tensor) ---- */

/* sub_out, div_out */
SAMPLER(out_arith) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  if (op == OPS_div_out && !is_float(m->dtype)) return -1;
  return out_arith_args(p, m, ch, args) ? -1 : n;
}

/* neg_out, exp_out, clamp_out: an operand of self's shape and dtype */
SAMPLER(out_unary) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  if (op == OPS_exp_out && !is_float(m->dtype)) return -1;
  ops_req q = req(OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_SAME, p, 1);
  int x = tensor(ch, &q);
  if (x < 0) return -1;
  args[1] = a_value(x);
  if (n == 4) { /* clamp_out's bounds */
    ops_meta xm = *m;
    if (ch->meta) xm.dtype = ch->meta(ch->ctx, x)->dtype;
    clamp_args(ch, &xm, &args[2], &args[3]);
  }
  return n;
}

SAMPLER(out_cumsum) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  ops_req q = req(OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_SAME, p, 0);
  int x = tensor(ch, &q);
  if (x < 0) return -1;
  args[1] = a_value(x), args[2] = a_int(pick_dim(ch, r, 1));
  return n;
}

SAMPLER(out_mm) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  if (r != 2) return -1;
  int64_t k = R(1, 4), xs[2] = {m->shape[0], k}, ys[2] = {k, m->shape[1]};
  if (ir_numel(2, xs) > ch->max_numel || ir_numel(2, ys) > ch->max_numel) return -1;
  ops_req q = req(OPS_REQ_SHAPE, 2, xs, m->dtype, OPS_DT_SAME, p, 0);
  int x = tensor(ch, &q);
  if (x < 0) return -1;
  q = req(OPS_REQ_SHAPE, 2, ys, m->dtype, OPS_DT_SAME, p, 0);
  int y = tensor(ch, &q);
  if (y < 0) return -1;
  args[1] = a_value(x), args[2] = a_value(y);
  return n;
}

SAMPLER(out_cat) { /* the out tensor's dim split into one or two parts */
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  if (r == 0) return -1;
  int64_t dim = pick_dim(ch, r, 1), d = dim < 0 ? dim + r : dim, total = m->shape[d];
  int cnt = total >= 2 && R(0, 1) ? 2 : 1, vals[2];
  int64_t first = cnt == 2 ? R(1, total - 1) : total;
  for (int k = 0; k < cnt; k++) {
    int64_t shape[AF_MAX_RANK];
    memcpy(shape, m->shape, sizeof(int64_t) * (size_t)r);
    shape[d] = k == 0 ? first : total - first;
    ops_req q = req(OPS_REQ_SHAPE, r, shape, m->dtype, OPS_DT_SAME, p, 0);
    if ((vals[k] = tensor(ch, &q)) < 0) return -1;
  }
  args[1] = a_values(cnt, vals), args[2] = a_int(dim);
  return n;
}

/* ================================================================ issue 15: reductions over dims,
 * squeeze() without a dim, more augmented setitem forms, ops that return their argument itself,
 * factories of a tensor's dtype. Checked against eager PyTorch 1.13 and 2.13 on CPU. */

/* ---- squeeze() / squeeze_(): every size-1 dim dropped ---- */

static void squeeze_all(const ops_meta *in, ops_meta *o) {
  *o = *in;
  for (int d = in->rank - 1; d >= 0; d--)
    if (in->shape[d] == 1) drop_dim(o, d);
}

static int shape_view_squeeze_all(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  squeeze_all(in, &e->out);
  return 0;
}

static int shape_meta_squeeze_all(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)st, (void)env, (void)err;
  squeeze_all(self, &e->out);
  return 0;
}

/* x.view(dtype): the same bytes read as dtype `to` (ATen's view_dtype; 1.13 and 2.13 accept and
 * refuse alike). The same element size keeps the layout. Another size needs rank >= 1 and the last
 * dim's stride 1: a smaller element multiplies the last size, the offset and every other stride by
 * the ratio; a larger one divides them, each of them divisible by the ratio (the other strides even
 * where their dim has size 1 or 0). */
static int dtype_view_layout(const ops_meta *in, af_dtype to, ops_meta *out, af_err *err) {
  const char *a = af_dtype_name(in->dtype), *b = af_dtype_name(to);
  int64_t from = (int64_t)af_dtype_size(in->dtype), into = (int64_t)af_dtype_size(to);
  *out = *in;
  out->dtype = to;
  if (from == into) return 0;
  if (in->rank == 0) return af_fail(err, "self.dim() cannot be 0 to view %s as %s (different element sizes)", a, b);
  if (!in->exact) return af_fail(err, "view(%s) of a %s tensor whose strides are not modelled exactly", b, a);
  int last = in->rank - 1;
  if (in->stride[last] != 1)
    return af_fail(err, "self.stride(-1) must be 1 to view %s as %s (different element sizes), but got %lld", a, b,
                   (long long)in->stride[last]);
  if (from > into) {
    int64_t k = from / into;
    out->shape[last] *= k;
    out->offset *= k;
    for (int d = 0; d < last; d++) out->stride[d] *= k;
    return 0;
  }
  int64_t k = into / from;
  if (in->shape[last] % k)
    return af_fail(err, "self.size(-1) must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                   (long long)k, a, b, (long long)in->shape[last]);
  if (in->offset % k)
    return af_fail(err, "self.storage_offset() must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                   (long long)k, a, b, (long long)in->offset);
  for (int d = 0; d < last; d++)
    if (in->stride[d] % k)
      return af_fail(err, "self.stride(%d) must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                     d, (long long)k, a, b, (long long)in->stride[d]);
  out->shape[last] /= k;
  out->offset /= k;
  for (int d = 0; d < last; d++) out->stride[d] /= k;
  return 0;
}

static int shape_view_dtype(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  af_dtype to = (af_dtype)st->args[1].i;
  if (dtype_view_layout(in, to, &e->out, err)) return -1;
  /* a storage whose bytes are no whole number of the view's elements: eager views it, but ops that
     size their work by the storage (as_strided_scatter of the view) fail an internal assert */
  int64_t bytes = env->storage_numel ? env->storage_numel(env->ctx, st->args[0].value) * (int64_t)af_dtype_size(in->dtype) : 0;
  if (bytes % (int64_t)af_dtype_size(to))
    return af_fail(err, "view(%s) of a storage of %lld bytes is not generated (no whole number of elements: as_strided_scatter "
                   "of it fails 'nbytes %% dtype_size == 0')", af_dtype_name(to), (long long)bytes);
  return 0;
}

/* torch.view_as_complex(x): a float32 (float64) x read as complex64 (complex128) pairs along its last
 * dim, which must have size 2 and stride 1; the last dim goes and the other strides and the offset
 * halve, each of them even (ATen's view_as_complex, alike on 1.13 and 2.13: every other stride, of
 * size-1 dims too). float16 (complex32) is not modelled. torch.view_as_real(z): any complex z, its
 * numbers as a last dim of 2 with stride 1, the other strides and the offset doubled. */
static int complex_pairs_layout(const ops_meta *in, ops_meta *out, af_err *err) {
  if (in->dtype != AF_FLOAT32 && in->dtype != AF_FLOAT64)
    return af_fail(err, "view_as_complex is only supported for float and double tensors (float16's complex32 is not "
                   "modelled), but got a tensor of scalar type: %s", af_dtype_name(in->dtype));
  if (in->rank == 0) return af_fail(err, "view_as_complex: Input tensor must have one or more dimensions");
  if (!in->exact) return af_fail(err, "view_as_complex of a tensor whose strides are not modelled exactly");
  int last = in->rank - 1;
  if (in->shape[last] != 2) return af_fail(err, "Tensor must have a last dimension of size 2");
  if (in->stride[last] != 1) return af_fail(err, "Tensor must have a last dimension with stride 1");
  for (int d = 0; d < last; d++)
    if (in->stride[d] % 2) return af_fail(err, "Tensor must have a stride divisible by 2 for all but last dimension");
  if (in->offset % 2) return af_fail(err, "Tensor must have a storage_offset divisible by 2");
  *out = *in;
  out->dtype = in->dtype == AF_FLOAT32 ? AF_COMPLEX64 : AF_COMPLEX128;
  out->rank = last;
  out->offset /= 2;
  for (int d = 0; d < last; d++) out->stride[d] /= 2;
  return 0;
}

static int shape_view_as_complex(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  if (complex_pairs_layout(in, &e->out, err)) return -1;
  /* as for view(dtype): a storage of an odd number of floats holds no whole number of pairs, and
     ops that size their work by the storage fail on it */
  int64_t n = env->storage_numel ? env->storage_numel(env->ctx, st->args[0].value) : 0;
  if (n % 2)
    return af_fail(err, "view_as_complex of a storage of %lld %s elements is not generated (no whole number of pairs)",
                   (long long)n, af_dtype_name(in->dtype));
  return 0;
}

static int shape_view_as_real(const ir_stmt *st, const ops_env *env, const ops_meta *in, ops_effect *e, af_err *err) {
  (void)st, (void)env;
  if (!af_dtype_is_complex(in->dtype)) return af_fail(err, "view_as_real is only supported for complex tensors");
  if (in->rank >= AF_MAX_RANK) return af_fail(err, "view_as_real of a rank-%d tensor: more than %d dims", in->rank, AF_MAX_RANK);
  if (!in->exact) return af_fail(err, "view_as_real of a tensor whose strides are not modelled exactly");
  e->out = *in;
  e->out.dtype = in->dtype == AF_COMPLEX64 ? AF_FLOAT32 : AF_FLOAT64;
  for (int d = 0; d < in->rank; d++) e->out.stride[d] *= 2;
  e->out.shape[in->rank] = 2;
  e->out.stride[in->rank] = 1;
  e->out.rank = in->rank + 1;
  e->out.offset *= 2;
  return 0;
}

/* ---- reductions over dims (an int-list dim: sum, mean, amax, amin; one int dim: prod, any, all),
 * keepdim a bool. The result is a fresh contiguous tensor. ---- */

enum { RD_SUM, RD_MEAN, RD_SAME, RD_BOOL };

static int reduce_rule(const ir_stmt *st, const ops_meta *self, int how, ops_meta *o, af_err *err) {
  const ir_arg *a = st->args;
  const char *name = ops_get(st->op)->name;
  int r = self->rank;
  if (r == 0) return af_fail(err, "%s of a 0-dim tensor is not modelled", name);
  if (a[2].kind != IR_ARG_BOOL) return af_fail(err, "%s: keepdim must be a bool", name);
  int reduced[AF_MAX_RANK] = {0};
  int n = a[1].kind == IR_ARG_INTS ? a[1].n : 1;
  if (n == 0) return af_fail(err, "%s: an empty dim list (PyTorch reduces every dim) is not generated", name);
  for (int k = 0; k < n; k++) {
    int64_t d;
    if (wrapd(a[1].kind == IR_ARG_INTS ? a[1].ints[k] : a[1].i, r, &d, err)) return -1;
    if (reduced[d]) return af_fail(err, "dim %lld appears multiple times in the list of dims", (long long)d);
    reduced[d] = 1;
    if (how == RD_SAME && self->shape[d] == 0)
      return af_fail(err, "%s(): Expected reduction dim %lld to have non-zero size", name, (long long)d);
  }
  af_dtype dt = self->dtype;
  if (how == RD_MEAN && !is_float(dt))
    return af_fail(err, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype");
  if (how == RD_SUM && !is_float(dt)) dt = AF_INT64;
  if (how == RD_BOOL) dt = AF_BOOL;
  int64_t shape[AF_MAX_RANK];
  int nr = 0;
  for (int d = 0; d < r; d++) {
    if (!reduced[d]) shape[nr++] = self->shape[d];
    else if (a[2].i) shape[nr++] = 1;
  }
  fresh_contig(o, dt, nr, shape);
  return 0;
}

/* sum, prod: integer and bool tensors sum into int64 */
static int shape_func_reduce_sum(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return reduce_rule(st, self, RD_SUM, &e->out, err);
}

static int shape_func_reduce_mean(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return reduce_rule(st, self, RD_MEAN, &e->out, err);
}

/* amax, amin: self's dtype; a reduced dim must not be empty */
static int shape_func_reduce_minmax(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return reduce_rule(st, self, RD_SAME, &e->out, err);
}

/* any, all: bool results for every input dtype */
static int shape_func_reduce_bool(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  return reduce_rule(st, self, RD_BOOL, &e->out, err);
}

/* ---- x[idx] /= v (true division: a float target), x[idx] op= number for the pointwise binary
 * op the line names as its twin (%= is fmod_ in TorchScript, >>= bitwise_right_shift_) ---- */

static int shape_write_setitem_div(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  if (!is_float(self->dtype))
    return af_fail(err, "x[i] /= v into a %s tensor: the float quotient cannot be cast back", af_dtype_name(self->dtype));
  return setitem_rule(st, env, self, 1, err);
}

static int shape_write_setitem_binary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  const ops_entry *oe = ops_get(st->op);
  int twin = ops_find(oe->twin);
  if (twin < 0) return af_fail(err, "%s: its line names no in-place twin", oe->name);
  if (a[2].kind == IR_ARG_VALUE) return af_fail(err, "%s with a tensor value is not modelled (numbers only)", oe->name);
  if (self_dtype_ok(twin, self, err) || setitem_rule(st, env, self, 1, err)) return -1;
  ir_arg ta[2] = {a[0], a[2]};
  ir_stmt t = {.op = twin, .out = -1, .nargs = 2, .args = ta};
  af_dtype c, res;
  if (binary_dtype(twin, &t, env, 0, 1, &c, &res, err)) return -1;
  if (!ops_can_cast(res, self->dtype))
    return af_fail(err, "result type %s can't be cast to the desired output type %s", af_dtype_name(res), af_dtype_name(self->dtype));
  return binary_data_ok(twin, c, &a[2], err);
}

/* ---- functional ops that return their argument itself ---- */

/* dropout, feature_dropout, alpha_dropout with train=False: the input itself */
static int shape_func_dropout_eval(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  const char *name = ops_get(st->op)->name;
  if (a[2].kind != IR_ARG_BOOL || a[2].i) return af_fail(err, "%s with train=True draws random numbers: not generated", name);
  double p = a[1].kind == IR_ARG_FLOAT ? a[1].f : (double)a[1].i;
  if (a[1].kind == IR_ARG_NONE || p < 0 || p > 1) return af_fail(err, "dropout probability has to be between 0 and 1, but got %g", p);
  e->out = *self;
  e->alias = OPS_ALIAS_SAME;
  return 0;
}

/* self.type_as(other), self.to(dtype): self itself when the dtypes match, else a copy converted to
 * other's dtype or to dtype (memory format preserved) */
static int shape_func_type_as(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)err;
  const ir_arg *a = &st->args[1];
  af_dtype to = a->kind == IR_ARG_DTYPE ? (af_dtype)a->i : META(a->value)->dtype;
  if (to == self->dtype) {
    e->out = *self;
    e->alias = OPS_ALIAS_SAME;
    return 0;
  }
  preserve_layout(self, &e->out);
  e->out.dtype = to;
  return 0;
}

/* ---- factories of a tensor's dtype ---- */

/* zeros_like, ones_like, full_like: self's dtype and memory format */
static int shape_func_like(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  if (st->nargs > 1 && is_int(self->dtype) && a[1].kind == IR_ARG_FLOAT)
    return af_fail(err, "full_like of an int64 tensor with a float value is not generated (it truncates)");
  if (st->nargs > 1 && scalar_fits(self->dtype, &a[1], NULL, err)) return -1;
  preserve_layout(self, &e->out);
  return 0;
}

/* new_zeros, new_ones, new_full: self's dtype, the given sizes, contiguous */
static int shape_func_new(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *a = st->args;
  if (a[1].n > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", a[1].n, AF_MAX_RANK);
  for (int k = 0; k < a[1].n; k++)
    if (a[1].ints[k] < 0) return af_fail(err, "Trying to create tensor with negative dimension %lld", (long long)a[1].ints[k]);
  if (st->nargs > 2 && is_int(self->dtype) && a[2].kind == IR_ARG_FLOAT)
    return af_fail(err, "new_full of an int64 tensor with a float value is not generated (it truncates)");
  if (st->nargs > 2 && scalar_fits(self->dtype, &a[2], NULL, err)) return -1;
  fresh_contig(&e->out, self->dtype, a[1].n, a[1].ints);
  return 0;
}

/* ---- tensor factories without a tensor argument (family creation) ---- */

/* zeros, ones, full, empty(...).fill_ (an int list of sizes, and the value), arange(end),
 * arange(start, end) (1-D), eye(n), eye(n, m) (2-D): fresh contiguous memory of eager's dtype
 * without dtype=, float32 unless the values say int64 (full of an int, arange of ints; empty's
 * fill_ casts its value into float32). Which of the int forms an op is comes from its aten name. */
static int shape_func_creation(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)self;
  const ops_entry *oe = ops_get(st->op);
  const ir_arg *a = st->args;
  int64_t shape[AF_MAX_RANK];
  int rank;
  af_dtype dt = AF_FLOAT32;
  if (a[0].kind == IR_ARG_INTS) {
    if (a[0].n > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", a[0].n, AF_MAX_RANK);
    if (a[0].n == 0) /* TorchScript types a literal [] as List[Tensor] */
      return af_fail(err, "%s of an empty size list is not generated (TorchScript reads [] as a list of tensors)", oe->name);
    rank = a[0].n;
    for (int k = 0; k < rank; k++) {
      if (a[0].ints[k] < 0) return af_fail(err, "Trying to create tensor with negative dimension %lld", (long long)a[0].ints[k]);
      shape[k] = a[0].ints[k];
    }
    if (st->nargs > 1) {
      if (a[1].kind == IR_ARG_BOOL)
        return af_fail(err, "%s with a bool value is not generated (TorchScript rejects it on 1.13 and makes it an int on 2.x)",
                       oe->name);
      if (!(oe->flags & OPF_FILL) && a[1].kind != IR_ARG_FLOAT) dt = AF_INT64; /* torch.full([2], 1): int64 */
    }
  } else if (!strcmp(oe->aten, "aten::arange")) {
    int64_t start = st->nargs > 1 ? a[0].i : 0, end = a[st->nargs - 1].i;
    if (end < start) return af_fail(err, "upper bound and larger bound inconsistent with step sign");
    rank = 1, shape[0] = end - start, dt = AF_INT64;
  } else { /* eye */
    int64_t n = a[0].i, m = st->nargs > 1 ? a[1].i : n;
    if (n < 0 || m < 0) return af_fail(err, "%s must be greater or equal to 0, got %lld", n < 0 ? "n" : "m", (long long)(n < 0 ? n : m));
    rank = 2, shape[0] = n, shape[1] = m;
  }
  fresh_contig(&e->out, dt, rank, shape);
  return 0;
}

/* ---- samplers ---- */

/* one or two distinct dims (an int list), keepdim */
SAMPLER(reduce_dims) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m) || r == 0) return -1;
  int k = r >= 2 && R(0, 1) ? 2 : 1;
  int64_t d0 = R(0, r - 1), d1 = (d0 + R(1, r > 1 ? r - 1 : 1)) % r;
  int64_t dims[2] = {d0, d1};
  for (int j = 0; j < k; j++)
    if (D(OPS_DECIDE_NEG_DIM)) dims[j] -= r;
  args[1] = a_ints(k, dims);
  args[2] = a_bool((int)R(0, 1));
  return n;
}

/* one dim, keepdim */
SAMPLER(reduce_dim) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m) || r == 0) return -1;
  args[1] = a_int(pick_dim(ch, r, 1));
  args[2] = a_bool((int)R(0, 1));
  return n;
}

SAMPLER(setitem_div) {
  SAMPLER_BEGIN;
  if (!is_float(m->dtype)) return -1;
  ops_meta res;
  int adv;
  if (subscript(ch, m, 0, 1, 0, &args[1], &res, &adv)) return -1;
  args[2] = divisor(ch);
  return n;
}

SAMPLER(setitem_binary) {
  SAMPLER_BEGIN;
  int twin = ops_find(ops_get(op)->twin);
  if (twin < 0 || !dt_drawable(twin, m) || m->dtype == AF_BOOL) return -1;
  ops_meta res;
  int adv;
  if (subscript(ch, m, 0, 1, 0, &args[1], &res, &adv)) return -1;
  args[2] = binary_number(ch, twin, m->dtype);
  return n;
}

SAMPLER(dropout_eval) {
  SAMPLER_BEGIN;
  if (!dt_drawable(op, m)) return -1;
  static const double ps[] = {0.5, 0.25, 0.0, 1.0};
  args[1] = a_float(ps[R(0, 3)]);
  args[2] = a_bool(0);
  return n;
}

/* other: a tensor of self's dtype (type_as returns self) or, sometimes, of any dtype; to's dtype:
 * self's own (to returns self) or, as often, another of the four the rules model */
SAMPLER(type_as) {
  SAMPLER_BEGIN;
  if (ops_get(op)->argk[1][0] == 'd') {
    static const af_dtype dts[] = {AF_FLOAT32, AF_FLOAT64, AF_INT64, AF_BOOL};
    /* a tensor of an issue-15 dtype (drawn only when a policy weights them) converts to any of the
       nine; the original four keep their draws (the default programs stay the same) */
    int64_t to = m->dtype;
    if (!R(0, 1)) to = m->dtype > AF_BOOL ? R(0, AF_REAL_DTYPE_COUNT - 1) : (int64_t)dts[R(0, 3)];
    args[1] = (ir_arg){.kind = IR_ARG_DTYPE, .i = to};
    return n;
  }
  ops_req q = req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, D(OPS_DECIDE_EDGE) ? OPS_DT_ALL : OPS_DT_SAME, -1, 0);
  int v = tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return n;
}

SAMPLER(full_like) {
  SAMPLER_BEGIN;
  args[1] = m->dtype == AF_BOOL ? a_int(R(0, 1)) : number(ch, m->dtype);
  return n;
}

/* new_zeros/new_ones/new_full: self's shape or another small one (and new_full's value) */
SAMPLER(new_like) {
  SAMPLER_BEGIN;
  int k = r;
  int64_t s3[AF_MAX_RANK];
  memcpy(s3, m->shape, sizeof(int64_t) * (size_t)r);
  if (D(OPS_DECIDE_EDGE) || r == 0) {
    k = (int)R(1, 2);
    for (int d = 0; d < k; d++) s3[d] = R(1, 3);
  }
  args[1] = a_ints(k, s3);
  if (n > 2) args[2] = m->dtype == AF_BOOL ? a_int(R(0, 1)) : number(ch, m->dtype);
  return n;
}

/* the factories: sizes from the chosen value's shape (which the sizes pass may then read back as
 * x.size(d)) or, now and then, another small shape; full's and empty's value a number (an int makes
 * full int64) */
SAMPLER(creation) {
  SAMPLER_BEGIN;
  const ops_entry *e = ops_get(op);
  int k = r;
  int64_t s3[AF_MAX_RANK];
  memcpy(s3, m->shape, sizeof(int64_t) * (size_t)r);
  if (D(OPS_DECIDE_EDGE) || r == 0) {
    k = (int)R(1, 2);
    for (int d = 0; d < k; d++) s3[d] = R(1, 4);
  }
  if (e->argk[0][0] == 'I') {
    args[0] = a_ints(k, s3);
    if (n > 1) args[1] = number(ch, AF_FLOAT32);
    return n;
  }
  int64_t a0 = s3[R(0, k - 1)], a1 = s3[R(0, k - 1)];
  if (!strcmp(e->aten, "aten::arange") && n > 1) a1 = a0, a0 = R(-2, a1 - 1); /* arange(start, end): end a size */
  args[0] = a_int(a0);
  if (n > 1) args[1] = a_int(a1);
  return n;
}

/* foreach ops: a list of 2 or 3 tensors of p's rank and dtype that share no memory with each
 * other (other views of p's storage where one fits: views of one flat buffer, an optimizer's
 * params), then per list operand one tensor of each element's shape (for div_ of its float
 * dtype), or a number */
SAMPLER(foreach) {
  SAMPLER_BEGIN;
  const ops_entry *e = ops_get(op);
  int tw = ops_twin(op);
  if (!dt_drawable(op, m) || tw < 0 || m->dtype == AF_BOOL) return -1;
  int len = (int)R(2, 3), el[3] = {p, -1, -1};
  int64_t any[AF_MAX_RANK] = {0};
  for (int k = 1; k < len; k++) { /* any shape of p's rank (the same shape now and then), p's storage preferred */
    ops_req q = D(OPS_DECIDE_EDGE) ? req(OPS_REQ_SHAPE, r, m->shape, m->dtype, OPS_DT_SAME, el[k - 1], 0)
                                   : req(OPS_REQ_AT_LEAST, r, any, m->dtype, OPS_DT_SAME, el[k - 1], 0);
    q.near1 = p + 1;
    q.rank2 = r; /* made anew: p's shape */
    memcpy(q.shape2, m->shape, sizeof(int64_t) * (size_t)r);
    el[k] = tensor(ch, &q);
    if (el[k] < 0) return -1;
  }
  args[0] = a_values(len, el);
  for (int x = 1; x < n; x++) {
    if (e->argk[x][0] == 'L') {
      int ov[3];
      for (int k = 0; k < len; k++) {
        const ops_meta *mk = ch->meta(ch->ctx, el[k]);
        ops_req q = req(OPS_REQ_SHAPE, mk->rank, mk->shape, mk->dtype, tw == OPS_div_ ? OPS_DT_SAME : OPS_DT_INTO, el[k], 1);
        ov[k] = tensor(ch, &q);
        if (ov[k] < 0) return -1;
      }
      args[x] = a_values(len, ov);
    } else if (tw == OPS_div_) {
      args[x] = divisor(ch);
    } else if (tw == OPS_addcmul_) {
      static const double fv[] = {2, -1, 0.5, 3};
      args[x] = is_float(m->dtype) ? pick_num(ch, fv, 4) : a_int(R(0, 1) ? 2 : -1);
    } else {
      args[x] = operand_number(ch, m->dtype, tw);
    }
  }
  return n;
}

/* ================================================================ the op table's rules
 * Every op's line in ops.def names its family, dtypes, exactness, shape rule and sampler; this
 * table resolves them (a name without its rule is a compile error). */

#define OP(n, k, fl, sch, at, ov, ovs, sp, tw, sc, fam, dt, ex, shp, smp, wb) \
  [OPS_##n] = {shape_##shp, sample_##smp, M_##dt, FAM_##fam, EX_##ex, RC_of_##shp, PRIM_of_##smp},
static const op_rules rules[OPS_COUNT] = {
#include "ops.def"
};
#undef OP

static int dt_drawable(int op, const ops_meta *m) { return in_mask(rules[op].dt, m->dtype); }

static int dtype_mask(int op) { return rules[op].dt; }

static int self_dtype_ok(int op, const ops_meta *m, af_err *err) {
  if (!in_mask(rules[op].dt, m->dtype))
    return af_fail(err, "%s is not modelled for %s tensors (eager rejects it or its result type)", ops_get(op)->name,
                   af_dtype_name(m->dtype));
  return 0;
}

int ops_shape_family(int op) { return op >= 0 && op < OPS_COUNT ? rules[op].fam : OPS_FAM_OTHER; }

int ops_shape_exactness(int op) { return op >= 0 && op < OPS_COUNT ? rules[op].ex : OPS_EX_KEEP; }

int ops_shape_exactness_dt(int op, af_dtype dt) {
  int ex = ops_shape_exactness(op);
  if (ex == OPS_EX_KEEP && (dt == AF_FLOAT16 || dt == AF_BFLOAT16) && fam_computes[ops_shape_family(op)]) return OPS_EX_INEXACT;
  return ex;
}

int ops_shape_primary(int op) { return op >= 0 && op < OPS_COUNT ? rules[op].primary : 0; }

int ops_shape_can_sample(int op) { return op >= 0 && op < OPS_COUNT && rules[op].sample != sample_none; }

/* The first in-place op naming a functional op as its twin (itself for other ops): the binary
 * rules' per-op facts are keyed by the in-place form. */
static short canon[OPS_COUNT];
static int canon_done;

static void canon_init(void) {
  if (canon_done) return;
  for (int op = 0; op < OPS_COUNT; op++) canon[op] = (short)op;
  for (int op = OPS_COUNT - 1; op >= 0; op--) { /* the first in-place op naming a twin wins */
    int t = ops_twin(op);
    if (ops_get(op)->kind == OPS_INPLACE && t >= 0 && ops_get(t)->kind != OPS_INPLACE) canon[t] = (short)op;
  }
  canon_done = 1;
}

static int inplace_of(int op) {
  canon_init();
  return op >= 0 && op < OPS_COUNT ? canon[op] : op;
}

/* Complex values (view_as_complex) reach only the ops whose dtypes column names them (any, num_c,
 * complex), as self or as any other operand (gt_(x, z), cat([x, z]), if z.any() are refused: eager
 * has no complex kernel for most ops, and the rules of the real ones do not model complex
 * operands); never as an index. Which complex operands an op of those columns takes is its rule's
 * (add_ of a real self and a complex other is refused by its result type). */
static int complex_operands_ok(const ir_stmt *st, const ops_env *env, const op_rules *ru, af_err *err) {
  const char *name = ops_get(st->op)->name;
  for (int k = 0; k < st->nargs; k++) {
    const ir_arg *a = &st->args[k];
    int n = a->kind == IR_ARG_VALUE ? 1 : a->kind == IR_ARG_VALUES || a->kind == IR_ARG_INDEX ? a->n : 0;
    for (int j = 0; j < n; j++) {
      int v = a->kind == IR_ARG_VALUE ? a->value : a->kind == IR_ARG_VALUES ? a->values[j] : -1;
      if (a->kind == IR_ARG_INDEX) {
        if (a->index[j].kind != IR_IDX_TENSOR || a->index[j].value < 0 || !is_complex(META(a->index[j].value)->dtype)) continue;
        return af_fail(err, "%s: tensors used as indices must be long, int, byte or bool tensors (not %s)", name,
                       af_dtype_name(META(a->index[j].value)->dtype));
      }
      if (v >= 0 && is_complex(META(v)->dtype) && !(ru->dt & MC))
        return af_fail(err, "%s is not modelled for %s operands (its dtypes column has no complex dtype)", name,
                       af_dtype_name(META(v)->dtype));
    }
  }
  return 0;
}

int ops_shape_infer(const ir_stmt *st, const ops_env *env, ops_effect *e, af_err *err) {
  memset(e, 0, sizeof *e);
  const ops_entry *oe = ops_get(st->op);
  if (!oe) return af_fail(err, "unknown op id %d", st->op);
  if (st->nargs != oe->nargs) return af_fail(err, "%s takes %d arguments", oe->name, oe->nargs);
  if (spelling_dims_ok(st, oe, err)) return -1;
  const ir_arg *a = st->args;
  /* the shape of every tensor operand must be known */
  for (int k = 0; k < st->nargs; k++) {
    if (a[k].kind == IR_ARG_VALUE && !META(a[k].value)->known) return af_fail(err, "argument %d has a data-dependent shape (not modelled)", k);
    if (a[k].kind == IR_ARG_VALUES)
      for (int j = 0; j < a[k].n; j++)
        if (!META(a[k].values[j])->known) return af_fail(err, "argument %d has a data-dependent shape (not modelled)", k);
  }
  const ops_meta *self = a[0].kind == IR_ARG_VALUE ? META(a[0].value) : NULL;
  const op_rules *ru = &rules[st->op];
  /* the dtypes column for the dtypes of issue 15 (int32, int8, uint8, float16, bfloat16): what eager
   * accepts for self on both stacks (views and shape-changing ops take every dtype). The original
   * four are checked by each rule as they were (a functional op may take more than its column
   * says: exp of an int64 is a float32), so the programs made of them stay the same. */
  if (self && (ru->shape_class == RC_WRITE || ru->shape_class == RC_FUNC) && self->dtype > AF_BOOL && self_dtype_ok(st->op, self, err)) return -1;
  if (complex_operands_ok(st, env, ru, err)) return -1;

  switch (ru->shape_class) {
    case RC_VIEW: {
      e->alias = OPS_ALIAS_VIEW;
      int rc = ru->shape(st, env, self, e, err);
      if (rc < 0) return -1;
      if (rc == 0 && e->out.exact) finish_exact(&e->out);
      return 0;
    }
    case RC_META: {
      e->alias = OPS_ALIAS_SAME;
      e->out = *self;
      ops_effect me = *e;
      if (ru->shape(st, env, self, &me, err)) return -1;
      e->out = me.out;
      e->meta_change = 1;
      return 0;
    }
    case RC_WRITE:
      e->alias = OPS_ALIAS_SAME;
      e->out = *self;
      e->writes = 1;
      if (oe->kind != OPS_SETITEM && writable(env, self, err)) return -1;
      return ru->shape(st, env, self, e, err);
    case RC_FOREACH: /* writes every element of the list argument 0; defines nothing */
      e->alias = OPS_ALIAS_SAME;
      e->writes = 1;
      return ru->shape(st, env, self, e, err);
    case RC_FUNC:
      e->alias = OPS_ALIAS_FRESH;
      if (ru->shape(st, env, self, e, err)) return -1;
      if (e->alias == OPS_ALIAS_FRESH) e->storage_numel = ops_meta_numel(&e->out);
      return 0;
    default: return ru->shape(st, env, self, e, err);
  }
}

int ops_shape_sample(int op, int p, const ops_meta *m, int64_t storage, const ops_chooser *ch, ir_arg *args) {
  const ops_entry *oe = ops_get(op);
  if (!oe || !m->known) return -1;
  for (int k = 0; k < oe->nargs; k++) args[k] = a_none();
  if (rules[op].primary == 0) args[0] = a_value(p);
  return rules[op].sample(op, p, m, storage, ch, args);
}

/* ---- the coverage table (docs/ops.md) ---- */

void ops_shape_markdown(af_buf *b) {
  int n[OPS_FOREACH + 1] = {0};
  for (int op = 0; op < OPS_COUNT; op++) n[ops_get(op)->kind]++;
  af_buf_puts(b, "# The op table, by family\n\n"
                 "Generated by `aliasfuzz ops --markdown > docs/ops.md` from harness/ops.def (each op's family, dtypes\n"
                 "and exactness columns); do not edit by hand.\n\n");
  af_buf_printf(b,
                "%d ops: %d in-place, %d setitem, %d out= forms, %d functional, %d views (getitem included), %d control-flow "
                "and %d list statements, %d int values, %d foreach (in place over a list).\n",
                OPS_COUNT, n[OPS_INPLACE], n[OPS_SETITEM], n[OPS_OUT], n[OPS_FUNC], n[OPS_VIEW] + n[OPS_GETITEM], n[OPS_CTRL],
                n[OPS_LIST], n[OPS_INT], n[OPS_FOREACH]);
  af_buf_puts(b, "An in-place op is listed with its functional twin when the twin is not its own name without the\n"
                 "underscore (aliases such as `arcsin_` or `greater_` name the canonical op); each view op has its\n"
                 "write-back rule on its line (harness/ops_views.c). Dtypes: the dtypes of `self` the rules accept and the\n"
                 "generator draws. Exactness: `inexact` ops may differ in the last bits between executors (the oracle\n"
                 "compares with tolerance); `discontinuous` ops only ever read exact values in generated programs.\n\n");
  af_buf_puts(b, "| family | in-place (twin) | functional | out= | views; control-flow, list and int statements | dtypes | exactness |\n");
  af_buf_puts(b, "| --- | --- | --- | --- | --- | --- | --- |\n");
  static const char *exn[3] = {"exact", "inexact", "discontinuous"};
  static const char *dn[AF_DTYPE_COUNT] = {"f32", "f64", "i64", "bool", "i32", "i8", "u8", "f16", "bf16", "c64", "c128"};
  for (int f = 0; f < OPS_FAM_COUNT; f++) {
    af_buf row = {0};
    int count = 0, dt = 0, ex[3] = {0, 0, 0};
    for (int col = 0; col < 4; col++) {
      int first = 1;
      for (int op = 0; op < OPS_COUNT; op++) {
        const ops_entry *e = ops_get(op);
        int c = e->kind == OPS_INPLACE || e->kind == OPS_SETITEM || e->kind == OPS_FOREACH ? 0 : e->kind == OPS_FUNC ? 1 : e->kind == OPS_OUT ? 2 : 3;
        if (rules[op].fam != f || c != col) continue;
        af_buf_printf(&row, "%s`%s`", first ? " " : ", ", e->name);
        size_t tl = strlen(e->twin);
        int plain = tl + 1 == strlen(e->name) && !strncmp(e->twin, e->name, tl);
        if ((e->kind == OPS_INPLACE || e->kind == OPS_FOREACH) && e->twin[0] && !plain) af_buf_printf(&row, " (%s)", e->twin);
        first = 0;
        count++;
        dt |= rules[op].dt;
        ex[rules[op].ex]++;
      }
      af_buf_puts(&row, first ? " - |" : " |");
    }
    int firstd = 1;
    for (int d = 0; d < AF_DTYPE_COUNT; d++)
      if (in_mask(dt, (af_dtype)d)) af_buf_printf(&row, "%s%s", firstd ? " " : ", ", dn[d]), firstd = 0;
    af_buf_puts(&row, " |");
    int firste = 1;
    for (int k = 0; k < 3; k++)
      if (ex[k]) af_buf_printf(&row, "%s%s %d", firste ? " " : ", ", exn[k], ex[k]), firste = 0;
    af_buf_printf(b, "| %s (%d) |%s |\n", ops_family_title(f), count, row.s ? row.s : "");
    af_buf_free(&row);
  }
}
