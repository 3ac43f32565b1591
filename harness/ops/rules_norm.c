/* rules_norm.c - rule family: normalizations (norm in ops.def's family column): softmax and
 * log_softmax over one dim, layer_norm over the last dims; fresh contiguous tensors of self's
 * shape and dtype (eager makes each result contiguous, whatever self's strides). */
#include "ops_kit.h"

/* torch.softmax(x, d), torch.log_softmax(x, d): a float self (the dtypes column), d in range */
int shape_func_softmax(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  int64_t d;
  if (opk_wrapd(st->args[1].i, self->rank, &d, err)) return -1;
  opk_fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  return 0;
}

/* torch.layer_norm(x, normalized_shape): normalized_shape is x's last len(normalized_shape) sizes
 * (eager: "Given normalized_shape=[...], expected input with shape [*, ...]"), at least one of them */
int shape_func_layer_norm(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  (void)env;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  const ir_arg *ns = &st->args[1];
  if (ns->n < 1) return af_fail(err, "layer_norm: normalized_shape must have at least one size");
  if (ns->n > self->rank)
    return af_fail(err, "layer_norm: normalized_shape has %d sizes, the input only %d dims", ns->n, self->rank);
  for (int k = 0; k < ns->n; k++) {
    int64_t want = self->shape[self->rank - ns->n + k];
    if (ns->ints[k] != want)
      return af_fail(err, "layer_norm: normalized_shape[%d] is %lld, expected the input's size %lld there", k,
                     (long long)ns->ints[k], (long long)want);
  }
  opk_fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  return 0;
}

SAMPLER(softmax) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m) || r == 0) return -1;
  args[1] = a_int(opk_pick_dim(ch, r, 1));
  return n;
}

/* the last 1..min(rank, 3) sizes of self, none of them 0 (a normalization over no elements) */
SAMPLER(layer_norm) {
  SAMPLER_BEGIN;
  if (!opk_dt_drawable(op, m) || r == 0) return -1;
  int k = (int)R(1, r < 3 ? r : 3);
  for (int j = 0; j < k; j++) {
    sh[j] = m->shape[r - k + j];
    if (sh[j] == 0) return -1;
  }
  args[1] = opk_a_ints(k, sh);
  return n;
}
