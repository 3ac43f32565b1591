/* ops_shape.h - the op table's shape, stride and validity rules and its argument samplers. Part of
 * the op table module (harness/ops/: ops.def, ops_rules.def, families.def, binary.def, ops.c and
 * this): everything that depends on what
 * one op does to shapes, strides, dtypes and memory lives here, so generators, mutators,
 * minimizers and converters ask instead of re-deriving. Each op's ops.def line names its shape
 * rule and sampler (rule families of harness/ops/ops_rules.def) and its family, dtypes and
 * exactness; these functions dispatch through that table, with no per-op code.
 *
 * Layouts are modelled as eager PyTorch 1.13 (CPU) computes them: each view op's exact strides
 * and storage offset (including the strides of size-1 dims), reshape/flatten/contiguous as a view
 * or a copy by ATen's computeStride, TensorIterator's output strides for pointwise ops, and
 * clone's memory-format preservation. Where a layout is not modelled exactly the meta says so
 * (exact = 0) and the rules that need strides refuse to decide. */
#ifndef OPS_SHAPE_H
#define OPS_SHAPE_H

#include "ops.h"

/* A tensor as eager would hold it. */
typedef struct ops_meta {
  int rank;
  int64_t shape[AF_MAX_RANK];
  int64_t stride[AF_MAX_RANK];
  int64_t offset;       /* storage offset, in elements */
  af_dtype dtype;
  unsigned char exact;  /* stride[] and offset are eager's exactly (else only shape and dtype) */
  unsigned char nonoverlap; /* no two elements share memory (known even when !exact) */
  unsigned char known;  /* shape known (0: it depends on data, e.g. x[mask]) */
} ops_meta;

/* A fresh contiguous tensor. */
void ops_meta_init(ops_meta *m, af_dtype dt, int rank, const int64_t *shape);
int64_t ops_meta_numel(const ops_meta *m);
int ops_meta_is_contiguous(const ops_meta *m);  /* as Tensor.is_contiguous() (exact metas) */
int ops_meta_is_dense(const ops_meta *m);       /* as is_non_overlapping_and_dense() */
/* Storage elements this layout reaches: offset + sum((size-1)*stride) + 1 (0 when empty). */
int64_t ops_meta_extent(const ops_meta *m);
/* Fills out[0..numel) with the storage offset of every element (row-major order); -1 when
 * numel > max or the layout is not exact. */
int64_t ops_meta_offsets(const ops_meta *m, int64_t *out, int64_t max);
/* True when two elements share memory (exact: by enumeration up to 4096 elements; otherwise
 * from the nonoverlap flag). */
int ops_meta_overlaps(const ops_meta *m);

/* Broadcast of two shapes; -1 when they do not broadcast. */
int ops_broadcast(int ra, const int64_t *a, int rb, const int64_t *b, int *rout, int64_t *out);
/* True when shape `from` broadcasts to shape `to` without changing it. */
int ops_broadcasts_to(int rf, const int64_t *from, int rt, const int64_t *to);
/* ATen computeStride: strides of a view of m with the given shape, or -1 when no view exists
 * (reshape then copies, view fails). */
int ops_view_strides(const ops_meta *m, int rank, const int64_t *shape, int64_t *stride);

/* Type promotion (torch.result_type): operands are tensors of rank >= 1, 0-dim tensors, or
 * Python numbers (a number's dtype: AF_INT64 for ints, AF_FLOAT64 for floats, AF_BOOL). */
typedef enum { OPS_OPND_TENSOR, OPS_OPND_ZERODIM, OPS_OPND_NUMBER } ops_opnd_kind;
af_dtype ops_result_type(int n, const af_dtype *dt, const ops_opnd_kind *kind);
int ops_can_cast(af_dtype from, af_dtype to); /* torch.can_cast */

/* ---- validity and effect of one statement ---- */

/* How the memory of two values relates. */
enum { OPS_LAP_NONE, OPS_LAP_SAME, OPS_LAP_PARTIAL };

/* What the rules need to know about the values a statement uses; all callbacks take ctx. */
typedef struct ops_env {
  void *ctx;
  const ops_meta *(*meta)(void *ctx, int value);            /* never NULL for a defined value */
  int (*overlap)(void *ctx, int a, int b);                   /* OPS_LAP_*; a is the written value */
  int64_t (*storage_numel)(void *ctx, int value);            /* elements of the value's storage */
  /* explicit data of an input value (index tensors), or NULL when unknown */
  const double *(*data)(void *ctx, int value, int64_t *n);
  /* optional (NULL: not told): called just before a rule refuses a statement because its result
   * would depend on an order eager leaves unspecified (OPS_UNDEF_*), as opposed to a refusal
   * because eager rejects the statement or the model cannot decide. The eager runner uses it to
   * refuse undefined programs from any source (harness/eager.c, docs/undefined.md). */
  void (*undefined)(void *ctx, int why);
} ops_env;

/* Why a statement is undefined (ops_env.undefined). */
enum {
  OPS_UNDEF_NONE,
  OPS_UNDEF_SELF_OVERLAP, /* the written tensor's elements share memory (expanded, overlapping windows) */
  OPS_UNDEF_OPERAND,      /* an operand shares memory with the written tensor (partly, or where the op
                             reads it out of element order) */
  OPS_UNDEF_ORDER,        /* repeated indices, or foreach list elements that share memory: the order
                             of the writes decides */
};

typedef enum {
  OPS_ALIAS_FRESH, /* new storage */
  OPS_ALIAS_VIEW,  /* a new tensor sharing arg 0's storage */
  OPS_ALIAS_SAME,  /* arg 0 itself (in-place results, flatten(d, d), contiguous() of a contiguous tensor) */
} ops_alias;

typedef struct ops_effect {
  ops_meta out;    /* the result's layout; for mutating ops, arg 0's layout afterwards */
  ops_alias alias; /* how the result relates to argument alias_arg (0 for all but copy) */
  int alias_arg;   /* aten::copy(self, src) returns src itself when shape and dtype match */
  int writes;      /* writes into arg 0's memory */
  int meta_change; /* changes arg 0's shape/strides in place */
  int copied;      /* a maybe-view (reshape, flatten, contiguous, getitem) that copied */
  int64_t storage_numel; /* OPS_ALIAS_FRESH: elements of the new storage */
  int rebind;      /* k >= 1: arg 0 now shares argument k's storage with argument k's sizes, strides and offset
                      (Tensor.set_(source): out is argument k's layout); every name of arg 0's TensorImpl moves
                      with it, views of arg 0 taken before stay on the old storage. 0: no */
} ops_effect;

/* Checks that eager PyTorch accepts statement st and that its result does not depend on an
 * unspecified order (no writes into memory that overlaps itself or an operand, no duplicate
 * indices where the write order decides), and computes its effect. 0, or -1 with the reason
 * in err ("dim 3 out of range for rank 2"). Conservative: some statements eager accepts are
 * refused where the model cannot be sure (said in the message). */
int ops_shape_infer(const ir_stmt *st, const ops_env *env, ops_effect *eff, af_err *err);

/* ---- argument samplers ---- */

/* Decision points of the samplers; a generator answers each with its policy's probability. */
typedef enum {
  OPS_DECIDE_NEG_DIM,        /* spell a dim negatively (where the spelling allows) */
  OPS_DECIDE_STEP,           /* a slice step > 1 */
  OPS_DECIDE_OPEN_BOUND,     /* a subscript slice bound left out */
  OPS_DECIDE_NEG_INDEX,      /* a negative index / slice bound */
  OPS_DECIDE_TRIVIAL_EXPAND, /* expand without repeating (writable) */
  OPS_DECIDE_OVERLAP,        /* an overlapping view (unfold windows, as_strided, expand) */
  OPS_DECIDE_VIEW_SHAPE,     /* reshape/flatten to a shape the strides allow as a view */
  OPS_DECIDE_MINUS_ONE,      /* -1 in a shape list */
  OPS_DECIDE_NUMBER,         /* an operand that may be a number is a number */
  OPS_DECIDE_DUP_INDEX,      /* repeated index entries (only where harmless) */
  OPS_DECIDE_ACCUMULATE,     /* index_put_ with accumulate=True */
  OPS_DECIDE_INDEX_2D,       /* a 2-D index tensor */
  OPS_DECIDE_EDGE,           /* edge arguments: same dims, out-of-range slice ends, size-1 windows */
  OPS_DECIDE_FLOAT,          /* a float literal rather than an int one (float tensors) */
  OPS_DECIDE_COUNT
} ops_decide;
const char *ops_decide_name(int d); /* "negative_dim", ... */

/* Subscript element kinds. */
enum { OPS_IDX_INT, OPS_IDX_SLICE, OPS_IDX_NONE, OPS_IDX_ELLIPSIS, OPS_IDX_TENSOR, OPS_IDX_MASK, OPS_IDX_KIND_COUNT };
const char *ops_idx_kind_name(int k); /* "int", "slice", "none", "ellipsis", "tensor", "mask" */

/* A tensor operand a sampler needs; the generator finds a value or makes one. */
typedef enum {
  OPS_REQ_SHAPE,     /* exactly shape[] */
  OPS_REQ_BROADCAST, /* broadcasts to shape[] without changing it */
  OPS_REQ_ZERODIM,   /* rank 0 */
  OPS_REQ_EXPANDED,  /* a shape that shape[] expands to (numel <= numel_max); make: shape2[] */
  OPS_REQ_VIEWABLE,  /* same numel and a valid view shape of *ref; make: shape2[] */
  OPS_REQ_CAT,       /* shape[] except at dim */
  OPS_REQ_AT_LEAST,  /* same rank, every size >= shape[] */
  OPS_REQ_INDEX,     /* make an int64 input of shape[] holding index_data (never reused) */
  OPS_REQ_MASK,      /* a bool tensor of exactly shape[] (made as gt of a tensor) */
  OPS_REQ_ANY,       /* any known shape (make: shape[]) */
} ops_req_kind;

typedef enum {
  OPS_DT_SAME,  /* exactly dtype */
  OPS_DT_INTO,  /* numeric, and an op of dtype-tensor with it stays castable into dtype */
  OPS_DT_ANY,   /* any numeric dtype */
  OPS_DT_ALL,   /* any dtype, bool included */
  OPS_DT_FLOAT, /* float32 or float64 */
} ops_dt_rule;

typedef struct ops_req {
  ops_req_kind kind;
  int rank;
  int64_t shape[AF_MAX_RANK];
  int rank2;                  /* EXPANDED, VIEWABLE (and AT_LEAST with near1): the shape to make when no value fits */
  int64_t shape2[AF_MAX_RANK];
  int dim;                    /* CAT */
  int64_t numel_max;          /* EXPANDED */
  const ops_meta *ref;        /* VIEWABLE */
  af_dtype dtype;
  ops_dt_rule dt_rule;
  int avoid;                  /* a value the operand must not share memory with (-1: none) */
  int same_ok;                /* ... except being that very value */
  int near1;                  /* 1 + a value whose storage the operand should share where a value
                                 fits (0: no preference): a foreach op's list of views of one buffer */
  const int64_t *index_data;  /* INDEX: numel(shape) values */
  int state;                  /* a running statistic (batch_norm's running_mean): a generator with
                                 module state makes it a module buffer, now and then a view of a
                                 larger buffer, where it makes a new operand */
} ops_req;

/* True when a value with layout m satisfies r (shape and dtype; memory is the caller's part). */
int ops_req_accepts(const ops_req *r, const ops_meta *m);

typedef struct ops_chooser {
  void *ctx;
  int64_t (*range)(void *ctx, int64_t lo, int64_t hi); /* uniform in [lo, hi] */
  int (*decide)(void *ctx, int point);                 /* OPS_DECIDE_* */
  int (*index_kind)(void *ctx);                        /* OPS_IDX_*, by the caller's weights */
  int (*tensor)(void *ctx, const ops_req *r);          /* value id, or -1 */
  const ops_meta *(*meta)(void *ctx, int value);       /* layout of a value it returned */
  int64_t max_numel; /* of any result */
  int max_rank;      /* of any result */
} ops_chooser;

/* Which argument a generator's chosen value goes to: 0 for most ops, 1 for where (the
 * condition is made), -2 for cat/stack (an element of the tensor list), -1 for none (the
 * factories without a tensor argument: the value only lends its shape to their sizes). */
int ops_shape_primary(int op);
/* True when the op has a sampler. */
int ops_shape_can_sample(int op);
/* Fills args[0..nargs) for op around value `primary` (layout m, storage of storage_numel
 * elements). Tensor operands come from ch->tensor. Returns the number of arguments, or -1 when
 * the op does not apply to this value (e.g. t_ on rank 3) or an operand could not be had.
 * Either way the caller then frees args[0..the op's nargs) with ir_arg_free. For mutating ops the caller has checked
 * that the target may be written (ops_meta_overlaps) where the op writes data. */
int ops_shape_sample(int op, int primary, const ops_meta *m, int64_t storage_numel, const ops_chooser *ch, ir_arg *args);

/* True when the op writes data into arg 0 (in-place data ops, setitem, out=), as opposed to
 * shape-changing in-place ops, which only change metadata. */
int ops_shape_writes_data(int op);

/* For the OPF_PICK views (split_get, chunk_get, unbind_get) on a tensor of shape rank/shape:
 * the element they pick as a range of one dim (dim normalized, 0 <= start, len elements; for
 * unbind_get len is 1 and the dim is dropped). 0, or -1 with err (index out of range...). */
int ops_multi_view_range(int op, const ir_arg *args, int rank, const int64_t *shape, int64_t *dim, int64_t *start,
                         int64_t *len, af_err *err);

/* ---- families and exactness ---- */

/* The family of an op: ops.def's family column (docs/ops.md groups the table by it; the generator
 * balances its default weights by it). A functional op belongs to the family of the in-place op
 * whose twin it is, an out= form to its twin's family. */
typedef enum {
#define FAM(id, ...) OPS_FAM_##id,
#include "families.def"
#undef FAM
  OPS_FAM_COUNT
} ops_family;
int ops_shape_family(int op);
const char *ops_family_name(int fam);  /* "arith", ... borrowed */
const char *ops_family_title(int fam); /* "binary arithmetic", ... borrowed */
/* families.def's columns: whether its ops compute new values, whether its writes are pointwise,
 * the default weight budget of its non-core in-place (functional: functional) ops, and the weight
 * every op of it has by default (0: none). */
int ops_family_computes(int fam);
int ops_family_pointwise(int fam);
double ops_family_budget(int fam, int functional);
double ops_family_weight(int fam);

/* Whether an op's results are reproducible bit for bit between eager and another executor that
 * runs the same math in another way (a functional twin on a contiguous copy, another kernel
 * path): OPS_EX_KEEP when exact inputs (small integers, halves, quarters) give exact results,
 * OPS_EX_INEXACT when its float results can differ in the last bits (exp_, sigmoid_, mean,
 * addcdiv_, matrix products...; the oracle compares those with tolerance), OPS_EX_NEEDS when it
 * is discontinuous (floor_, sign_, comparisons, remainder_, ...): on inexact float operands a
 * last-bit difference becomes a different value, so a generator gives it exact operands only. */
enum { OPS_EX_KEEP, OPS_EX_INEXACT, OPS_EX_NEEDS };
int ops_shape_exactness(int op);
/* The exactness of op when its result (or the tensor it writes) has dtype dt: as ops_shape_exactness,
 * except that an op of a family that computes values (arith, unary, activation, ternary, matrix,
 * index, cumulative, setitem, reduce) is OPS_EX_INEXACT for float16 and bfloat16, whose integers
 * are exact only up to 2048 and 256: the generator then keeps discontinuous ops away from them. */
int ops_shape_exactness_dt(int op, af_dtype dt);

/* The op table by family as a Markdown document (docs/ops.md), appended to b. */
void ops_shape_markdown(af_buf *b);

#endif
