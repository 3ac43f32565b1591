/* ops_kit.h - the rule kit: what the rule families of harness/ops/ share (internal to
 * harness/ops/; everything else reads ops.h and ops_shape.h). opk_ names the shared helpers. */
#ifndef OPS_KIT_H
#define OPS_KIT_H

#include "ops_shape.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- dtypes */

/* Promotion as torch.promote_types over the modelled dtypes. Within a category (bool < integers <
 * floats) the wider type wins; uint8 with int8 gives int16 and float16 with bfloat16 gives float32
 * (eager's lattice); an integer with a float gives the float. int16 is not modelled: DT_UNMODELLED,
 * which no rule accepts (ops_result_type callers refuse it through dt_ok). */
#define DT_UNDEF ((af_dtype)-1)

#define DT_UNMODELLED AF_DTYPE_COUNT

static inline int is_float(af_dtype d) { return (int)d >= 0 && d < AF_DTYPE_COUNT && af_dtype_is_float(d); }

static inline int is_int(af_dtype d) { return (int)d >= 0 && d < AF_DTYPE_COUNT && af_dtype_is_int(d); }

static inline int dt_ok(af_dtype d) { return (int)d >= 0 && d < AF_DTYPE_COUNT; }

static inline int is_complex(af_dtype d) { return (int)d >= 0 && d < AF_DTYPE_COUNT && af_dtype_is_complex(d); }

static inline int dt_category(af_dtype d) { return d == AF_BOOL ? 0 : is_int(d) ? 1 : is_complex(d) ? 3 : 2; }

/* A TensorIterator operand: a tensor layout or a Python number (a 0-dim operand). */
typedef struct ti_opnd {
  const ops_meta *m; /* NULL for a number */
  af_dtype dtype;
} ti_opnd;

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

/* ---- the op table's rule families (ops_rules.def), resolved per op in ops_shape.c from ops.def's
 * columns ---- */

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

/* ops.def's family column, by name (families.def) */
enum {
#define FAM(id, nm, ...) FAM_##nm = OPS_FAM_##id,
#include "families.def"
#undef FAM
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

/* The rule contracts (each rule is `shape_<name>` / `sample_<name>` in the family's file):
 * a VIEW rule fills e->out (and e->alias when the result is not a view) and returns 0, or 1 when
 * its result is a layout already finished (returned as it is), or -1 with err;
 * a META rule fills e->out with self's new layout;
 * a WRITE rule checks that eager accepts the write into self (argument 0, already known to be
 * writable unless the op is a setitem) and returns 0, or -1 with err;
 * a FUNC rule fills e->out with the fresh result's layout (or sets e->alias when the result is
 * an argument itself) and returns 0, or -1 with err. */
#define SHAPE(n, c) \
  int shape_##n(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err); \
  enum { RC_of_##n = RC_##c };

#define SAMPLE(n, prim) \
  int sample_##n(int op, int p, const ops_meta *m, int64_t storage, const ops_chooser *ch, ir_arg *args); \
  enum { PRIM_of_##n = prim };

#define WB(n, k, r)

#include "ops_rules.def"

#undef SHAPE

#undef SAMPLE

#undef WB

static inline int in_mask(int mask, af_dtype d) { return (int)d >= 0 && d < AF_DTYPE_COUNT && ((mask >> d) & 1); }

#define R(lo, hi) ch->range(ch->ctx, (lo), (hi))

#define D(p) ch->decide(ch->ctx, (p))

static inline ir_arg a_int(int64_t i) { return (ir_arg){.kind = IR_ARG_INT, .i = i}; }

static inline ir_arg a_bool(int b) { return (ir_arg){.kind = IR_ARG_BOOL, .i = b}; }

static inline ir_arg a_none(void) { return (ir_arg){.kind = IR_ARG_NONE}; }

static inline ir_arg a_float(double f) { return (ir_arg){.kind = IR_ARG_FLOAT, .f = f}; }

static inline ir_arg a_value(int v) { return (ir_arg){.kind = IR_ARG_VALUE, .value = v}; }

/* ---------------------------------------------------------------- samplers
 * A sampler fills args[1..] (args[0] is the primary value already, for primary 0) around value p
 * of layout m in a storage of `storage` elements, and returns the op's argument count, or -1 when
 * the op does not apply to this value or an operand could not be had (see ops_shape_sample). */

#define SAMPLER(name) int sample_##name(int op, int p, const ops_meta *m, int64_t storage, const ops_chooser *ch, ir_arg *args)

#define SAMPLER_BEGIN                              \
  int r = m->rank, n = ops_get(op)->nargs;         \
  int64_t sh[2 * AF_MAX_RANK];                     \
  (void)r, (void)n, (void)sh, (void)p, (void)storage, (void)args, (void)ch

/* ---- ops_layout.c ---- */
void opk_contig_strides(int rank, const int64_t *shape, int64_t *stride);
int opk_cmp_i64(const void *a, const void *b);
void opk_finish_exact(ops_meta *m);
af_dtype opk_promote(af_dtype a, af_dtype b);
int opk_scalar_fits(af_dtype dt, const ir_arg *a, const ops_meta *zerodim, af_err *err);
void opk_preserve_layout(const ops_meta *in, ops_meta *out);
void opk_fresh_contig(ops_meta *out, af_dtype dt, int rank, const int64_t *shape);
void opk_ti_layout(int n, const ti_opnd *in, af_dtype common, int rank, const int64_t *shape, af_dtype out_dt,
                      ops_meta *out);
int opk_wrapd(int64_t d, int rank, int64_t *out, af_err *err);
void opk_drop_dim(ops_meta *m, int d);
int opk_v_slice(const ops_meta *in, int64_t dim, int has_start, int64_t start, int has_end, int64_t end, int64_t step,
                   ops_meta *out, af_err *err);
int opk_v_select(const ops_meta *in, int64_t dim, int64_t index, ops_meta *out, af_err *err);
int opk_v_unsqueeze(const ops_meta *in, int64_t dim, ops_meta *out, af_err *err);
int opk_v_squeeze(const ops_meta *in, int64_t dim, ops_meta *out, af_err *err);
int opk_v_transpose(const ops_meta *in, int64_t d0, int64_t d1, ops_meta *out, af_err *err);
int opk_v_t(const ops_meta *in, ops_meta *out, af_err *err);
int opk_v_permute(const ops_meta *in, int n, const int64_t *dims, ops_meta *out, af_err *err);
int opk_v_movedim(const ops_meta *in, int64_t src, int64_t dst, ops_meta *out, af_err *err);
int opk_infer_size(int n, const int64_t *sizes, int64_t numel, int64_t *out, af_err *err);
int opk_v_view(const ops_meta *in, int n, const int64_t *sizes, int allow_copy, ops_meta *out, af_err *err);
int opk_v_expand(const ops_meta *in, int n, const int64_t *sizes, ops_meta *out, af_err *err);
int opk_v_diagonal(const ops_meta *in, int64_t offset, int64_t d1, int64_t d2, ops_meta *out, af_err *err);
int opk_v_as_strided(const ops_meta *in, int64_t storage, const ir_arg *size, const ir_arg *stride, int64_t offset,
                        ops_meta *out, af_err *err);
int opk_v_unfold(const ops_meta *in, int64_t dim, int64_t size, int64_t step, ops_meta *out, af_err *err);

/* ---- ops_subscript.c ---- */
int opk_infer_subscript(const ir_arg *idx, const ops_meta *self, const ops_env *env, sub_info *si, af_err *err);
int opk_has_dup_tuples(const sub_info *si, const ops_env *env);
int opk_subscript(const ops_chooser *ch, const ops_meta *m, int basic, int allow_mask, int distinct, ir_arg *out,
                     ops_meta *res, int *advanced);
int opk_item_value(const ops_chooser *ch, const ops_meta *m, const ops_meta *res, int advanced, int aug, int primary,
                      ir_arg *out);

/* ---- ops_check.c ---- */
void opk_opnd(const ir_stmt *st, int k, const ops_env *env, ti_opnd *t, af_dtype *dt, ops_opnd_kind *kind);
void opk_undefined(const ops_env *env, int why);
int opk_writable(const ops_env *env, const ops_meta *m, af_err *err);
int opk_no_overlap(const ops_env *env, int w, int v, int same_ok, af_err *err);
int opk_value_fits(const ops_env *env, af_dtype dt, const ir_arg *a, af_err *err);
int opk_common_ok(af_dtype c, af_err *err);
int opk_not_bool(const ops_meta *m, const char *what, af_err *err);
int opk_number_or_zerodim(const ir_arg *a, const ops_env *env, const char *what, af_err *err);
int opk_shape_is(const ops_meta *m, int rank, const int64_t *shape);
void opk_copied(ops_effect *e);
int opk_operand_shape(const ops_env *env, const ops_meta *self, int v, int inplace, int *rank, int64_t *shape, af_err *err);

/* ---- ops_sample.c ---- */
ir_arg opk_a_ints(int n, const int64_t *x);
ir_arg opk_a_values(int n, const int *v);
int64_t opk_pick_dim(const ops_chooser *ch, int rank, int neg_ok);
ir_arg opk_number(const ops_chooser *ch, af_dtype dt);
ir_arg opk_operand_number(const ops_chooser *ch, af_dtype dt, int op);
ir_arg opk_divisor(const ops_chooser *ch);
int opk_tensor(const ops_chooser *ch, const ops_req *r);
ops_req opk_req(ops_req_kind kind, int rank, const int64_t *shape, af_dtype dt, ops_dt_rule rule, int avoid, int same_ok);
int opk_broadcastable_shape(const ops_chooser *ch, int rank, const int64_t *shape, int64_t *out);
void opk_index_values(const ops_chooser *ch, int64_t *out, int64_t n, int64_t size, int distinct);
int opk_factor(const ops_chooser *ch, int64_t n, int k, int64_t *out);
int opk_view_shape(const ops_chooser *ch, const ops_meta *m, int as_view, int64_t *out);
int opk_expand_shape(const ops_chooser *ch, const ops_meta *m, int trivial, int64_t *out);
int opk_index_tensor(const ops_chooser *ch, int rank, const int64_t *shape, const int64_t *data);
int opk_mask_for(const ops_chooser *ch, const ops_meta *m);
ir_arg opk_pick_num(const ops_chooser *ch, const double *v, int n);
ir_arg opk_pick_int(const ops_chooser *ch, const int64_t *v, int n);

/* ---- rules_writes.c ---- */
void opk_clamp_args(const ops_chooser *ch, const ops_meta *m, ir_arg *lo, ir_arg *hi);

/* ---- rules_binary.c ---- */
int opk_arith_type(const ir_stmt *st, const ops_env *env, int a, int b, af_dtype *common, af_err *err);
int opk_binary_dtype(int op, const ir_stmt *st, const ops_env *env, int a, int b, af_dtype *common, af_dtype *res,
                        af_err *err);
int opk_binary_data_ok(int op, af_dtype common, const ir_arg *o, af_err *err);
ir_arg opk_binary_number(const ops_chooser *ch, int op, af_dtype dt);

/* ---- ops_shape.c ---- */
int opk_dt_drawable(int op, const ops_meta *m);
int opk_dtype_mask(int op);
int opk_self_dtype_ok(int op, const ops_meta *m, af_err *err);
int opk_inplace_of(int op);

#endif
