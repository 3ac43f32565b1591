/* ops_layout.c - layouts and dtypes: the ops_meta helpers, broadcasting, ATen's computeStride, type
 * promotion (torch.result_type), the layouts TensorIterator gives fresh results, and the view layouts
 * every view rule builds on (opk_v_*). */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- layouts */

void opk_contig_strides(int rank, const int64_t *shape, int64_t *stride) {
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
  opk_contig_strides(rank, shape, m->stride);
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

int opk_cmp_i64(const void *a, const void *b) {
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
  qsort(buf, (size_t)k, sizeof buf[0], opk_cmp_i64);
  for (int64_t i = 1; i < k; i++)
    if (buf[i] == buf[i - 1]) return 1;
  return 0;
}

int ops_meta_overlaps(const ops_meta *m) { return m->exact ? overlaps_exact(m) : !m->nonoverlap; }

void opk_finish_exact(ops_meta *m) {
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
    opk_contig_strides(rank, shape, stride);
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

/* width rank inside a category: uint8 and int8 (and float16 and bfloat16) are incomparable */
static int dt_width(af_dtype d) {
  switch (d) {
    case AF_UINT8: case AF_INT8: case AF_FLOAT16: case AF_BFLOAT16: return 1;
    case AF_INT32: case AF_FLOAT32: case AF_COMPLEX64: return 2;
    case AF_INT64: case AF_FLOAT64: case AF_COMPLEX128: return 3;
    default: return 0;
  }
}

af_dtype opk_promote(af_dtype a, af_dtype b) {
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
  if (higher == AF_BOOL || ((int)lower >= 0 && is_float(lower))) return opk_promote(higher, lower);
  if ((int)higher >= 0) return higher;
  return lower;
}

af_dtype ops_result_type(int n, const af_dtype *dt, const ops_opnd_kind *kind) {
  af_dtype dim = DT_UNDEF, zero = DT_UNDEF, wrapped = DT_UNDEF;
  for (int i = 0; i < n; i++) {
    if (kind[i] == OPS_OPND_TENSOR) dim = opk_promote(dim, dt[i]);
    else if (kind[i] == OPS_OPND_ZERODIM) zero = opk_promote(zero, dt[i]);
    else wrapped = opk_promote(wrapped, is_float(dt[i]) ? AF_FLOAT32 : dt[i]);
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
int opk_scalar_fits(af_dtype dt, const ir_arg *a, const ops_meta *zerodim, af_err *err) {
  if (zerodim) {
    af_dtype z = zerodim->dtype;
    if (is_complex(z) && !is_complex(dt))
      return af_fail(err, "value cannot be converted to type %s without overflow (a %s value into a real tensor)",
                     af_dtype_name(dt), af_dtype_name(z));
    /* a float64 value may be past float32's range (bfloat16's is the same): values read through a
     * dtype view written byte by byte, or grown by arithmetic, reach it (a fuzz-engine run:
     * index_fill_ of a float32 tensor with the float64 sum of such a view) */
    int past_float32 = z == AF_FLOAT64 && (dt == AF_FLOAT32 || dt == AF_BFLOAT16);
    int narrow = dt == AF_INT32 || dt == AF_INT8 || dt == AF_UINT8 || dt == AF_FLOAT16 || past_float32;
    int fits = !past_float32 && (z == dt || z == AF_BOOL || ((dt == AF_INT32 || dt == AF_FLOAT16) && (z == AF_INT8 || z == AF_UINT8)));
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
void opk_preserve_layout(const ops_meta *in, ops_meta *out) {
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

void opk_fresh_contig(ops_meta *out, af_dtype dt, int rank, const int64_t *shape) { ops_meta_init(out, dt, rank, shape); }

/* Output layout of a TensorIterator op with no given output (TensorIteratorBase::build:
 * fast_set_up, else compute_strides + reorder_dimensions + allocate_or_resize_outputs).
 * common: the dtype inputs are converted to (promote_inputs_to_common_dtype). */
void opk_ti_layout(int n, const ti_opnd *in, af_dtype common, int rank, const int64_t *shape, af_dtype out_dt,
                      ops_meta *out) {
  ops_meta conv[4];
  const ops_meta *op[4];
  int exact = 1;
  for (int i = 0; i < n; i++) {
    op[i] = NULL;
    if (!in[i].m) continue;
    if (!in[i].m->exact) exact = 0;
    if ((int)common >= 0 && in[i].m->dtype != common) { /* .to(common): preserve format */
      opk_preserve_layout(in[i].m, &conv[i]);
      conv[i].dtype = common;
      op[i] = &conv[i];
    } else {
      op[i] = in[i].m;
    }
  }
  opk_fresh_contig(out, out_dt, rank, shape);
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

int opk_wrapd(int64_t d, int rank, int64_t *out, af_err *err) {
  int r = rank > 0 ? rank : 1;
  *out = 0;
  if (d < -r || d >= r) return af_fail(err, "dim %lld out of range for rank %d", (long long)d, rank);
  *out = d < 0 ? d + r : d;
  return 0;
}

void opk_drop_dim(ops_meta *m, int d) {
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
int opk_v_slice(const ops_meta *in, int64_t dim, int has_start, int64_t start, int has_end, int64_t end, int64_t step,
                   ops_meta *out, af_err *err) {
  if (in->rank == 0) return af_fail(err, "slice() cannot be applied to a 0-dim tensor");
  if (opk_wrapd(dim, in->rank, &dim, err)) return -1;
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

int opk_v_select(const ops_meta *in, int64_t dim, int64_t index, ops_meta *out, af_err *err) {
  if (in->rank == 0) return af_fail(err, "select() cannot be applied to a 0-dim tensor");
  if (opk_wrapd(dim, in->rank, &dim, err)) return -1;
  int64_t n = in->shape[dim];
  if (index < -n || index >= n) return af_fail(err, "select(): index %lld out of range for size %lld", (long long)index, (long long)n);
  if (index < 0) index += n;
  *out = *in;
  out->offset += index * in->stride[dim];
  opk_drop_dim(out, (int)dim);
  return 0;
}

int opk_v_unsqueeze(const ops_meta *in, int64_t dim, ops_meta *out, af_err *err) {
  if (dim < -(in->rank + 1) || dim > in->rank) return af_fail(err, "unsqueeze dim %lld out of range for rank %d", (long long)dim, in->rank);
  if (dim < 0) dim += in->rank + 1;
  *out = *in;
  int64_t st = dim >= in->rank ? 1 : in->shape[dim] * in->stride[dim];
  insert_dim(out, (int)dim, 1, st);
  return 0;
}

int opk_v_squeeze(const ops_meta *in, int64_t dim, ops_meta *out, af_err *err) {
  if (opk_wrapd(dim, in->rank, &dim, err)) return -1;
  *out = *in;
  if (in->rank > 0 && in->shape[dim] == 1) opk_drop_dim(out, (int)dim);
  return 0;
}

int opk_v_transpose(const ops_meta *in, int64_t d0, int64_t d1, ops_meta *out, af_err *err) {
  if (opk_wrapd(d0, in->rank, &d0, err) || opk_wrapd(d1, in->rank, &d1, err)) return -1;
  *out = *in;
  if (in->rank == 0 || d0 == d1) return 0;
  out->shape[d0] = in->shape[d1];
  out->shape[d1] = in->shape[d0];
  out->stride[d0] = in->stride[d1];
  out->stride[d1] = in->stride[d0];
  return 0;
}

int opk_v_t(const ops_meta *in, ops_meta *out, af_err *err) {
  if (in->rank > 2) return af_fail(err, "t() expects a tensor with <= 2 dimensions, but self is %dD", in->rank);
  return opk_v_transpose(in, 0, in->rank == 2 ? 1 : 0, out, err);
}

int opk_v_permute(const ops_meta *in, int n, const int64_t *dims, ops_meta *out, af_err *err) {
  if (n != in->rank) return af_fail(err, "permute: %d dims given for rank %d", n, in->rank);
  int seen[AF_MAX_RANK] = {0};
  *out = *in;
  for (int k = 0; k < n; k++) {
    int64_t d;
    if (opk_wrapd(dims[k], in->rank, &d, err)) return -1;
    if (seen[d]++) return af_fail(err, "permute: repeated dim %lld", (long long)dims[k]);
    out->shape[k] = in->shape[d];
    out->stride[k] = in->stride[d];
  }
  return 0;
}

int opk_v_movedim(const ops_meta *in, int64_t src, int64_t dst, ops_meta *out, af_err *err) {
  if (opk_wrapd(src, in->rank, &src, err) || opk_wrapd(dst, in->rank, &dst, err)) return -1;
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
int opk_infer_size(int n, const int64_t *sizes, int64_t numel, int64_t *out, af_err *err) {
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
int opk_v_view(const ops_meta *in, int n, const int64_t *sizes, int allow_copy, ops_meta *out, af_err *err) {
  if (n > AF_MAX_RANK) return af_fail(err, "rank %d above the limit %d", n, AF_MAX_RANK);
  int64_t shape[AF_MAX_RANK];
  if (opk_infer_size(n, sizes, ops_meta_numel(in), shape, err)) return -1;
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
  opk_fresh_contig(out, in->dtype, n, shape);
  return 0;
}

int opk_v_expand(const ops_meta *in, int n, const int64_t *sizes, ops_meta *out, af_err *err) {
  if (n < in->rank) return af_fail(err, "expand: the number of sizes provided (%d) must be greater or equal to the number of dimensions in the opk_tensor (%d)", n, in->rank);
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

int opk_v_diagonal(const ops_meta *in, int64_t offset, int64_t d1, int64_t d2, ops_meta *out, af_err *err) {
  if (opk_wrapd(d1, in->rank, &d1, err) || opk_wrapd(d2, in->rank, &d2, err)) return -1;
  if (in->rank < 2 || d1 == d2) return af_fail(err, "diagonal dimensions cannot be identical %lld, %lld", (long long)d1, (long long)d2);
  int64_t s1 = in->shape[d1], s2 = in->shape[d2], size;
  if (offset >= 0) size = s2 - offset < s1 ? s2 - offset : s1;
  else size = s1 + offset < s2 ? s1 + offset : s2;
  if (size < 0) size = 0;
  *out = *in;
  if (size > 0) out->offset += offset >= 0 ? offset * in->stride[d2] : -offset * in->stride[d1];
  int64_t st = in->stride[d1] + in->stride[d2];
  opk_drop_dim(out, (int)(d1 > d2 ? d1 : d2));
  opk_drop_dim(out, (int)(d1 > d2 ? d2 : d1));
  insert_dim(out, out->rank, size, st);
  return 0;
}

int opk_v_as_strided(const ops_meta *in, int64_t storage, const ir_arg *size, const ir_arg *stride, int64_t offset,
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
  opk_finish_exact(out);
  return 0;
}

int opk_v_unfold(const ops_meta *in, int64_t dim, int64_t size, int64_t step, ops_meta *out, af_err *err) {
  if (opk_wrapd(dim, in->rank, &dim, err)) return -1;
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
