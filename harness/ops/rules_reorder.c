/* rules_reorder.c - rule family: element reorderings (reorder in ops.def's family column): flip and
 * roll, fresh tensors of self's shape and dtype holding self's elements in another order. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* The dims of list argument dims, each in range for rank and none twice. */
static int distinct_dims(const char *name, const ir_arg *dims, int rank, af_err *err) {
  int seen[AF_MAX_RANK] = {0};
  for (int k = 0; k < dims->n; k++) {
    int64_t d;
    if (opk_wrapd(dims->ints[k], rank, &d, err)) return -1;
    if (seen[d]++) return af_fail(err, "%s: dim %lld appears multiple times in the list of dims", name, (long long)dims->ints[k]);
  }
  return 0;
}

/* torch.flip(x, dims): clone's layout (eager makes it empty_like the input, memory format kept) */
int shape_func_flip(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (self->rank == 0) return af_fail(err, "flip of a 0-dim tensor is not modelled");
  if (distinct_dims("flip", &st->args[1], self->rank, err)) return -1;
  opk_preserve_layout(self, &e->out);
  return 0;
}

/* torch.roll(x, shifts, dims): a contiguous result; one shift per dim, or without dims one shift of
 * the flattened tensor. A dim named twice (which eager rolls twice) is refused. */
int shape_func_roll(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  const ir_arg *shifts = &st->args[1], *dims = &st->args[2];
  if (self->rank == 0) return af_fail(err, "roll of a 0-dim tensor is not modelled");
  if (dims->n == 0 ? shifts->n != 1 : shifts->n != dims->n)
    return af_fail(err, "roll: shifts and dimensions must align (%d shifts, %d dims)", shifts->n, dims->n);
  if (distinct_dims("roll", dims, self->rank, err)) return -1;
  opk_fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  return 0;
}

/* k distinct dims of a rank-r tensor (1 <= k <= r) into out, some spelled negatively; returns k */
static int some_dims(const ops_chooser *ch, int r, int64_t *out) {
  int64_t all[AF_MAX_RANK];
  for (int d = 0; d < r; d++) all[d] = d;
  for (int d = r - 1; d > 0; d--) {
    int j = (int)R(0, d);
    int64_t t = all[d];
    all[d] = all[j];
    all[j] = t;
  }
  int k = (int)R(1, r);
  for (int i = 0; i < k; i++) out[i] = D(OPS_DECIDE_NEG_DIM) ? all[i] - r : all[i];
  return k;
}

SAMPLER(flip) {
  SAMPLER_BEGIN;
  if (!r) return -1;
  int k = some_dims(ch, r, sh);
  args[1] = opk_a_ints(k, sh);
  return n;
}

/* shifts of 1..3 either way (a shift past the size wraps, as eager's does); never an empty dims
 * list, which TorchScript would type as a list of tensors */
SAMPLER(roll) {
  SAMPLER_BEGIN;
  if (!r) return -1;
  int k = some_dims(ch, r, sh);
  int64_t shifts[AF_MAX_RANK];
  for (int i = 0; i < k; i++) shifts[i] = R(0, 1) ? R(1, 3) : -R(1, 3);
  args[1] = opk_a_ints(k, shifts);
  args[2] = opk_a_ints(k, sh);
  return n;
}
