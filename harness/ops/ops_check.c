/* ops_check.c - the validity checks every rule family shares: operands, memory overlap of the
 * written tensor, numbers that must fit a dtype. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- validity */

/* The operand at argument k as a TensorIterator operand and type-promotion operand. */
void opk_opnd(const ir_stmt *st, int k, const ops_env *env, ti_opnd *t, af_dtype *dt, ops_opnd_kind *kind) {
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
void opk_undefined(const ops_env *env, int why) {
  if (env->undefined) env->undefined(env->ctx, why);
}

int opk_writable(const ops_env *env, const ops_meta *m, af_err *err) {
  if (!m->known) return af_fail(err, "writes into a tensor whose shape is not known");
  if (ops_meta_overlaps(m)) {
    opk_undefined(env, OPS_UNDEF_SELF_OVERLAP);
    return af_fail(err, "writes into a tensor whose elements overlap in memory (expanded or overlapping view)");
  }
  return 0;
}

/* Operand value v must not share memory with the written value w (same_ok: may be w itself). */
int opk_no_overlap(const ops_env *env, int w, int v, int same_ok, af_err *err) {
  if (!env->overlap) return 0;
  int lap = env->overlap(env->ctx, w, v);
  if (lap == OPS_LAP_NONE || (lap == OPS_LAP_SAME && same_ok)) return 0;
  opk_undefined(env, OPS_UNDEF_OPERAND);
  return af_fail(err, "an operand shares memory with the written tensor");
}

/* argument a, a number or a 0-dim tensor that eager converts into a tensor of dtype dt with an
 * overflow check (scalar_fits) */
int opk_value_fits(const ops_env *env, af_dtype dt, const ir_arg *a, af_err *err) {
  if (a->kind == IR_ARG_VALUE) return META(a->value)->rank == 0 ? opk_scalar_fits(dt, a, META(a->value), err) : 0;
  return opk_scalar_fits(dt, a, NULL, err);
}

/* a promoted dtype the model has (uint8 with int8 gives int16, which it has not) */
int opk_common_ok(af_dtype c, af_err *err) {
  if (!dt_ok(c)) return af_fail(err, "operands promote to a dtype that is not modelled (uint8 with int8: int16)");
  return 0;
}

int opk_not_bool(const ops_meta *m, const char *what, af_err *err) {
  if (m->dtype == AF_BOOL) return af_fail(err, "%s is not modelled for bool tensors", what);
  return 0;
}

int opk_number_or_zerodim(const ir_arg *a, const ops_env *env, const char *what, af_err *err) {
  if (a->kind == IR_ARG_VALUE && META(a->value)->rank != 0)
    return af_fail(err, "%s only supports a 0-dimensional value tensor, but got tensor with %d dimension(s)", what, META(a->value)->rank);
  return 0;
}

int opk_shape_is(const ops_meta *m, int rank, const int64_t *shape) {
  return m->rank == rank && !memcmp(m->shape, shape, sizeof(int64_t) * (size_t)rank);
}

/* a maybe-view that copied: a fresh result */
void opk_copied(ops_effect *e) {
  e->alias = OPS_ALIAS_FRESH;
  e->copied = 1;
  e->storage_numel = ops_meta_numel(&e->out);
}

/* A tensor operand that must broadcast to self (in place) or with it (functional). */
int opk_operand_shape(const ops_env *env, const ops_meta *self, int v, int inplace, int *rank, int64_t *shape, af_err *err) {
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
