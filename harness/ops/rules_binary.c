/* rules_binary.c - rule families: pointwise binary ops (arith, compare, bitwise, ternary in ops.def's
 * family column): promotion, operand forms and number pools, in place and functional; lerp,
 * addcmul, addcdiv. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* result type of `self op other` for arithmetic; fails on bool operands (not modelled) */
int opk_arith_type(const ir_stmt *st, const ops_env *env, int a, int b, af_dtype *common, af_err *err) {
  ti_opnd t[2];
  af_dtype dt[2];
  ops_opnd_kind k[2];
  opk_opnd(st, a, env, &t[0], &dt[0], &k[0]);
  opk_opnd(st, b, env, &t[1], &dt[1], &k[1]);
  if (dt[0] == AF_BOOL || dt[1] == AF_BOOL) return af_fail(err, "arithmetic on bool is not modelled");
  *common = ops_result_type(2, dt, k);
  return opk_common_ok(*common, err);
}


/* add_, sub_, mul_ (true_div 0) and div_ (1) */
static int arith_inplace(const ir_stmt *st, const ops_env *env, const ops_meta *self, int true_div, af_err *err) {
  const ir_arg *a = st->args;
  af_dtype common;
  if (opk_arith_type(st, env, 0, 1, &common, err)) return -1;
  if (true_div && !is_float(common)) common = AF_FLOAT32;
  if (!ops_can_cast(common, self->dtype))
    return af_fail(err, "result type %s can't be cast to the desired output type %s", af_dtype_name(common), af_dtype_name(self->dtype));
  if (a[1].kind == IR_ARG_VALUE) {
    const ops_meta *o = META(a[1].value);
    if (!ops_broadcasts_to(o->rank, o->shape, self->rank, self->shape))
      return af_fail(err, "output with the shape of self doesn't match the broadcast shape");
    if (opk_no_overlap(env, a[0].value, a[1].value, 1, err)) return -1;
  }
  return 0;
}

int shape_write_arith(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return arith_inplace(st, env, self, 0, err);
}

int shape_write_div(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return arith_inplace(st, env, self, 1, err);
}

/* neg_, abs_, relu_ */
int shape_write_not_bool(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env, (void)e;
  return opk_not_bool(self, ops_get(st->op)->name, err);
}


/* add, sub, mul; div (true_div); gt (to_bool) */
static int arith_func(const ir_stmt *st, const ops_env *env, const ops_meta *self, int true_div, int to_bool, ops_meta *o, af_err *err) {
  af_dtype common;
  if (opk_arith_type(st, env, 0, 1, &common, err)) return -1;
  if (true_div && !is_float(common)) common = AF_FLOAT32;
  ti_opnd t[2];
  af_dtype dt;
  ops_opnd_kind k;
  opk_opnd(st, 0, env, &t[0], &dt, &k);
  opk_opnd(st, 1, env, &t[1], &dt, &k);
  int r = self->rank;
  int64_t shape[AF_MAX_RANK];
  memcpy(shape, self->shape, sizeof shape);
  if (t[1].m && ops_broadcast(self->rank, self->shape, t[1].m->rank, t[1].m->shape, &r, shape))
    return af_fail(err, "the shapes of the operands do not broadcast");
  opk_ti_layout(2, t, common, r, shape, to_bool ? AF_BOOL : common, o);
  return 0;
}

int shape_func_arith(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return arith_func(st, env, self, 0, 0, &e->out, err);
}

int shape_func_div(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return arith_func(st, env, self, 1, 0, &e->out, err);
}

int shape_func_gt(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return arith_func(st, env, self, 0, 1, &e->out, err);
}

/* add_/sub_/add/sub with alpha= (argument 2): eager refuses a float alpha for an integer result and
 * takes only a bool alpha for a bool result (not modelled: the samplers never make a bool add) */
static int alpha_ok(const ir_arg *alpha, af_dtype result, af_err *err) {
  if (alpha->kind != IR_ARG_INT && alpha->kind != IR_ARG_FLOAT) return af_fail(err, "alpha must be a number");
  if (result == AF_BOOL) return af_fail(err, "alpha= with a bool result is not modelled (eager takes only a bool alpha there)");
  if (alpha->kind == IR_ARG_FLOAT && !is_float(result) && !is_complex(result))
    return af_fail(err, "For integral input tensors, argument alpha must not be a floating point number.");
  return 0;
}

int shape_write_arith_alpha(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  if (alpha_ok(&st->args[2], self->dtype, err)) return -1;
  return arith_inplace(st, env, self, 0, err);
}

int shape_func_arith_alpha(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  if (arith_func(st, env, self, 0, 0, &e->out, err)) return -1;
  return alpha_ok(&st->args[2], e->out.dtype, err);
}

/* neg, abs, relu: self's dtype, TensorIterator's layout */
int shape_func_not_bool(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (opk_not_bool(self, ops_get(st->op)->name, err)) return -1;
  ti_opnd t = {self, self->dtype};
  opk_ti_layout(1, &t, self->dtype, self->rank, self->shape, self->dtype, &e->out);
  return 0;
}

/* ---- samplers ---- */

/* add, sub, mul (in place and functional): a number that changes every value, or a tensor */
SAMPLER(arith) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  int inplace = ops_get(op)->kind == OPS_INPLACE;
  if (D(OPS_DECIDE_NUMBER)) {
    args[1] = opk_operand_number(ch, m->dtype, op);
  } else {
    int64_t shape[AF_MAX_RANK];
    int k = opk_broadcastable_shape(ch, r, m->shape, shape);
    (void)k;
    ops_req q = opk_req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, inplace ? OPS_DT_INTO : OPS_DT_ANY, inplace ? p : -1, 1);
    int v = opk_tensor(ch, &q);
    if (v < 0) return -1;
    args[1] = a_value(v);
  }
  return n;
}

/* add_/sub_/add/sub with alpha=: add's operands, and an int alpha that keeps exact values exact */
SAMPLER(arith_alpha) {
  int k = sample_arith(op, p, m, storage, ch, args);
  if (k < 0) return -1;
  static const int64_t alphas[] = {-2, -1, 2, 3};
  args[2] = a_int(alphas[R(0, 3)]);
  return k;
}

SAMPLER(div) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL || (ops_get(op)->kind == OPS_INPLACE && !is_float(m->dtype))) return -1;
  args[1] = opk_divisor(ch);
  return n;
}

SAMPLER(gt) {
  SAMPLER_BEGIN;
  if (m->dtype == AF_BOOL) return -1;
  args[1] = opk_number(ch, m->dtype);
  return n;
}

/* neg, abs, relu */
SAMPLER(not_bool) {
  SAMPLER_BEGIN;
  return m->dtype == AF_BOOL ? -1 : n;
}

/* ---- the binary forms (binary.def), resolved per op from ops.def's form column ---- */

enum { P_SAME, P_BOOL, P_FLOAT, P_DOUBLE };                   /* promo */
enum { F_NT, F_N, F_T, F_N_TF, F_T_NB };                       /* forms */
enum { N_plain, N_pow, N_mod, N_copysign, N_xlogy, N_float_power, N_divisor, N_mul, N_sub, N_bits, N_shift }; /* numbers */
enum { DATA_none, DATA_nonzero, DATA_nonneg, DATA_shift };     /* data */
enum { BINF_SAME_DTYPE = 1, BINF_NO_BOOL = 2, BINF_SCALAR_PARAM = 4, BINF_INT64_OPERAND = 8 };

typedef struct bin_form {
  unsigned char promo, scalar, forms, numbers, data, flags;
  ops_dt_rule operand;
} bin_form;

enum {
#define BIN(name, ...) BIN_##name,
#include "binary.def"
#undef BIN
  BIN_COUNT
};

static const bin_form bin_forms[BIN_COUNT] = {
#define BIN(name, pr, sc, fo, opd, nums, dat, fl) \
  [BIN_##name] = {P_##pr, sc, F_##fo, N_##nums, DATA_##dat, fl, OPS_DT_##opd},
#include "binary.def"
#undef BIN
};

static const unsigned char form_of[OPS_COUNT] = {
#define OP(n, k, fl, sch, at, ov, ovs, sp, tw, sc, fam, dt, ex, shp, smp, wb, form) [OPS_##n] = BIN_##form,
#include "ops.def"
#undef OP
};

/* The binary form of op (BIN_none's row for an op without one). */
static const bin_form *bin_of(int op) { return &bin_forms[op >= 0 && op < OPS_COUNT ? form_of[op] : BIN_none]; }

/* Result dtype of binary op `arg a op arg b`, with the checks eager's kernels make. *common: the
 * promoted operand dtype the kernel computes in. */
int opk_binary_dtype(int op, const ir_stmt *st, const ops_env *env, int a, int b, af_dtype *common, af_dtype *res,
                        af_err *err) {
  ti_opnd t[2];
  af_dtype dt[2];
  ops_opnd_kind k[2];
  opk_opnd(st, a, env, &t[0], &dt[0], &k[0]);
  opk_opnd(st, b, env, &t[1], &dt[1], &k[1]);
  af_dtype c = ops_result_type(2, dt, k);
  const char *name = ops_get(op)->name;
  const bin_form *f = bin_of(op);
  int pr = f->promo, mask = opk_dtype_mask(op);
  if ((f->flags & BINF_SAME_DTYPE) && dt[0] != dt[1])
    return af_fail(err, "%s is not implemented for tensors with different dtypes", name);
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
  if ((f->flags & BINF_NO_BOOL) && c == AF_BOOL)
    return af_fail(err, "Subtraction, the `-` operator, with two bool tensors is not supported");
  *common = c;
  return 0;
}

/* Data-dependent rules of binary ops with integer results: division by zero and negative powers
 * are errors in eager, so only numbers the rule can check are taken. */
int opk_binary_data_ok(int op, af_dtype common, const ir_arg *o, af_err *err) {
  double x = o->kind == IR_ARG_FLOAT ? o->f : (double)o->i;
  int num = o->kind != IR_ARG_VALUE;
  switch (bin_of(op)->data) {
    case DATA_nonzero:
      if (is_int(common) && (!num || x == 0)) return af_fail(err, "%s on integers needs a non-zero number (a tensor may hold 0: ZeroDivisionError)", ops_get(op)->name);
      return 0;
    case DATA_nonneg:
      if (is_int(common) && (!num || x < 0)) return af_fail(err, "pow on integers needs a number >= 0 (Integers to negative integer powers are not allowed)");
      return 0;
    case DATA_shift:
      if (!num || x < 0 || x > 8 * (double)af_dtype_size(common) - 2) /* 62 for int64, 6 for int8 (no shift past the width) */
        return af_fail(err, "%s takes a shift count 0..%d here (a tensor may hold negative counts)", ops_get(op)->name,
                       8 * (int)af_dtype_size(common) - 2);
      return 0;
    default: return 0;
  }
}

/* ---- pointwise binary ---- */

int shape_write_binary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int op = st->op, w = a[0].value;
  if (opk_self_dtype_ok(op, self, err)) return -1;
  const ir_arg *o = &a[1];
  if (o->kind == IR_ARG_VALUE) {
    int r;
    int64_t sh[AF_MAX_RANK];
    if (opk_operand_shape(env, self, o->value, 1, &r, sh, err)) return -1;
    if (opk_no_overlap(env, w, o->value, 1, err)) return -1;
  } else if (!bin_of(op)->scalar) {
    return af_fail(err, "%s takes a tensor operand", ops_get(op)->name);
  }
  af_dtype c, r;
  if (opk_binary_dtype(op, st, env, 0, 1, &c, &r, err)) return -1;
  if (!ops_can_cast(r, self->dtype))
    return af_fail(err, "result type %s can't be cast to the desired output type %s", af_dtype_name(r), af_dtype_name(self->dtype));
  return opk_binary_data_ok(op, c, o, err);
}

int shape_func_binary(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const ir_arg *a = st->args;
  int op = st->op;
  ops_meta *o = &e->out;
  if (opk_self_dtype_ok(op, self, err)) return -1;
  const ir_arg *x = &a[1];
  int r = self->rank;
  int64_t shape[AF_MAX_RANK];
  memcpy(shape, self->shape, sizeof shape);
  if (x->kind == IR_ARG_VALUE) {
    if (opk_operand_shape(env, self, x->value, 0, &r, shape, err)) return -1;
  } else if (!bin_of(op)->scalar) {
    return af_fail(err, "%s takes a tensor operand", ops_get(op)->name);
  }
  af_dtype c, res;
  if (opk_binary_dtype(op, st, env, 0, 1, &c, &res, err) || opk_binary_data_ok(op, c, x, err)) return -1;
  ti_opnd t[2];
  af_dtype dt;
  ops_opnd_kind k;
  opk_opnd(st, 0, env, &t[0], &dt, &k);
  opk_opnd(st, 1, env, &t[1], &dt, &k);
  /* pow and clamp_min/max take a number as a kernel parameter (a unary iterator); the others
   * wrap it into a 0-dim operand */
  int unary = x->kind != IR_ARG_VALUE && (bin_of(op)->flags & BINF_SCALAR_PARAM);
  opk_ti_layout(unary ? 1 : 2, t, c, r, shape, res, o);
  if (x->kind == IR_ARG_VALUE && META(x->value)->dtype != self->dtype) o->exact = 0;
  if (bin_of(op)->promo != P_BOOL && c != self->dtype) o->exact = 0;
  return 0;
}

/* ---- lerp, addcmul, addcdiv ---- */

int shape_write_lerp(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  const ir_arg *a = st->args;
  int w = a[0].value;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  int r;
  int64_t sh[AF_MAX_RANK];
  const ops_meta *end = META(a[1].value);
  if (end->dtype != self->dtype) return af_fail(err, "lerp_: expected dtype %s for `end`", af_dtype_name(self->dtype));
  if (opk_operand_shape(env, self, a[1].value, 1, &r, sh, err) || opk_no_overlap(env, w, a[1].value, 1, err)) return -1;
  if (a[2].kind == IR_ARG_VALUE) {
    if (META(a[2].value)->dtype != self->dtype) return af_fail(err, "lerp_: expected dtype %s for `weight`", af_dtype_name(self->dtype));
    if (opk_operand_shape(env, self, a[2].value, 1, &r, sh, err) || opk_no_overlap(env, w, a[2].value, 1, err)) return -1;
  }
  return 0;
}

/* addcmul_ (div 0), addcdiv_ (div 1) */
static int addc_inplace(const ir_stmt *st, const ops_env *env, const ops_meta *self, int div, af_err *err) {
  const ir_arg *a = st->args;
  const ops_entry *oe = ops_get(st->op);
  int w = a[0].value;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  int r;
  int64_t sh[AF_MAX_RANK];
  for (int k = 1; k <= 2; k++)
    if (opk_operand_shape(env, self, a[k].value, 1, &r, sh, err) || opk_no_overlap(env, w, a[k].value, 1, err)) return -1;
  af_dtype dt[3] = {self->dtype, META(a[1].value)->dtype, META(a[2].value)->dtype};
  ops_opnd_kind kd[3] = {self->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM,
                         META(a[1].value)->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM,
                         META(a[2].value)->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM};
  if (dt[1] == AF_BOOL || dt[2] == AF_BOOL) return af_fail(err, "%s on bool is not modelled", oe->name);
  if (div && !is_float(dt[1]) && !is_float(dt[2])) return af_fail(err, "Integer division with addcdiv is no longer supported");
  af_dtype c = ops_result_type(3, dt, kd);
  if (opk_common_ok(c, err)) return -1;
  if (c != self->dtype) /* its kernel does no casting: INTERNAL ASSERT needs_dynamic_casting */
    return af_fail(err, "%s_ with operands promoting to %s, not self's %s, is not modelled", oe->name, af_dtype_name(c), af_dtype_name(self->dtype));
  if (!is_float(c) && a[3].kind == IR_ARG_FLOAT) return af_fail(err, "%s: a float value with integer tensors", oe->name);
  return 0;
}

int shape_write_addcmul(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return addc_inplace(st, env, self, 0, err);
}

int shape_write_addcdiv(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)e;
  return addc_inplace(st, env, self, 1, err);
}

/* lerp (how 0), addcmul (1), addcdiv (2) */
static int lerp_addc_func(const ir_stmt *st, const ops_env *env, const ops_meta *self, int how, ops_meta *o, af_err *err) {
  const ir_arg *a = st->args;
  const ops_entry *oe = ops_get(st->op);
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
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
    if (opk_operand_shape(env, self, a[k].value, 0, &r, shape, err)) return -1;
    if (m->dtype == AF_BOOL) return af_fail(err, "%s on bool is not modelled", oe->name);
    if (how == 0 && m->dtype != self->dtype) return af_fail(err, "lerp: expected the dtype of self for end and weight");
    if (m->dtype != self->dtype) mixed = 1;
    t[n] = (ti_opnd){m, m->dtype};
    dt[n] = m->dtype;
    kd[n] = m->rank ? OPS_OPND_TENSOR : OPS_OPND_ZERODIM;
    n++;
  }
  af_dtype c = ops_result_type(n, dt, kd);
  if (opk_common_ok(c, err)) return -1;
  if (how == 2 && !is_float(dt[1]) && !is_float(dt[2])) return af_fail(err, "Integer division with addcdiv is no longer supported");
  if (how != 0 && !is_float(c) && a[3].kind == IR_ARG_FLOAT) return af_fail(err, "%s: a float value with integer tensors", oe->name);
  opk_ti_layout(n, t, c, r, shape, c, o);
  if (mixed) o->exact = 0;
  return 0;
}

int shape_func_lerp(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return lerp_addc_func(st, env, self, 0, &e->out, err);
}

int shape_func_addcmul(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return lerp_addc_func(st, env, self, 1, &e->out, err);
}

int shape_func_addcdiv(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  return lerp_addc_func(st, env, self, 2, &e->out, err);
}

/* the number operand of binary op op (its form's pool) for a self of dtype dt */
ir_arg opk_binary_number(const ops_chooser *ch, int op, af_dtype dt) {
  int fl = is_float(dt);
  switch (bin_of(op)->numbers) {
    case N_pow: {
      static const double f[] = {2, 3, 0.5, -1, 2.0};
      static const int64_t i[] = {0, 2, 3};
      return fl ? opk_pick_num(ch, f, 5) : opk_pick_int(ch, i, 3);
    }
    case N_mod: {
      static const double f[] = {2, 3, -2, 1.5, 0.5, -3};
      static const int64_t i[] = {2, 3, -2, -3};
      return fl ? opk_pick_num(ch, f, 6) : opk_pick_int(ch, i, 4);
    }
    case N_copysign: {
      static const double f[] = {-1, 1, -0.5, 2};
      return opk_pick_num(ch, f, 4);
    }
    case N_xlogy: {
      static const double f[] = {2, 3, 0.5};
      return opk_pick_num(ch, f, 3);
    }
    case N_float_power: {
      static const double f[] = {2, 0.5, -1, 3};
      return opk_pick_num(ch, f, 4);
    }
    case N_divisor: return opk_divisor(ch);
    case N_mul: return opk_operand_number(ch, dt, OPS_mul_);
    case N_sub: return opk_operand_number(ch, dt, OPS_sub_);
    case N_bits: return a_int(R(-3, 7));
    case N_shift: return a_int(R(1, 3));
    default: return dt == AF_BOOL ? a_int(R(0, 1)) : opk_number(ch, dt); /* comparisons, clamp_min_, clamp_max_ */
  }
}

/* which operand forms binary op op takes for a self of dtype dt: 1 numbers, 2 tensors */
static int binary_forms(const bin_form *f, af_dtype dt) {
  switch (f->forms) {
    case F_N: return 1;
    case F_T: return 2;
    case F_N_TF: return is_float(dt) ? 3 : 1;
    case F_T_NB: return dt == AF_BOOL ? 2 : 3;
    default: return 3;
  }
}

static int args_binary(int op, int p, const ops_meta *m, const ops_chooser *ch, ir_arg *args) {
  int inplace = ops_get(op)->kind == OPS_INPLACE;
  const bin_form *f = bin_of(op);
  int forms = binary_forms(f, m->dtype);
  if ((forms & 1) && (!(forms & 2) || D(OPS_DECIDE_NUMBER))) {
    if (m->dtype == AF_BOOL && f->promo != P_BOOL) return -1; /* a number would promote past bool */
    args[1] = opk_binary_number(ch, op, m->dtype);
    return 0;
  }
  af_dtype want = (f->flags & BINF_INT64_OPERAND) ? AF_INT64 : m->dtype;
  ops_req q = opk_req(OPS_REQ_BROADCAST, m->rank, m->shape, want, f->operand, inplace ? p : -1, 1);
  int v = opk_tensor(ch, &q);
  if (v < 0) return -1;
  args[1] = a_value(v);
  return 0;
}

SAMPLER(binary) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  return args_binary(op, p, m, ch, args) ? -1 : n;
}

SAMPLER(lerp) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  int inplace = ops_get(op)->kind == OPS_INPLACE;
  ops_req q = opk_req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, OPS_DT_SAME, inplace ? p : -1, 1);
  int e = opk_tensor(ch, &q);
  if (e < 0) return -1;
  args[1] = a_value(e);
  if (D(OPS_DECIDE_NUMBER)) {
    static const double w[] = {0.5, 0.25, 0.75, 2.0};
    args[2] = a_float(w[R(0, 3)]);
  } else {
    int wv = opk_tensor(ch, &q);
    if (wv < 0) return -1;
    args[2] = a_value(wv);
  }
  return n;
}

/* addcmul, addcdiv (in place and functional) */
SAMPLER(addc) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m)) return -1;
  int inplace = ops_get(op)->kind == OPS_INPLACE, div = op == OPS_addcdiv_ || op == OPS_addcdiv;
  ops_req q = opk_req(OPS_REQ_BROADCAST, r, m->shape, m->dtype, OPS_DT_INTO, inplace ? p : -1, 1);
  int x = opk_tensor(ch, &q);
  if (x < 0) return -1;
  if (div) q.dt_rule = OPS_DT_SAME; /* a float divisor: addcdiv takes no integer division */
  int y = opk_tensor(ch, &q);
  if (y < 0) return -1;
  static const double fv[] = {2, -1, 0.5, 3};
  args[1] = a_value(x), args[2] = a_value(y);
  args[3] = is_float(m->dtype) ? opk_pick_num(ch, fv, 4) : a_int(R(0, 1) ? 2 : -1);
  return n;
}
