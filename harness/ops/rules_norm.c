/* rules_norm.c - rule family: normalizations (norm in ops.def's family column): softmax and
 * log_softmax over one dim, layer_norm over the last dims; fresh contiguous tensors of self's
 * shape and dtype (eager makes each result contiguous, whatever self's strides). batch_norm and
 * instance_norm in training mode besides: a fresh result, and running statistics (arguments 3 and
 * 4, ops.def's OPF_WRITES) written in place. */
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

/* torch.batch_norm / torch.instance_norm(x, weight, bias, running_mean, running_var, training,
 * momentum, eps, cudnn_enabled): a float x of rank >= 2 (instance_norm: >= 3), C = x.size(1);
 * weight, bias and the statistics None or tensors of shape [C] and x's dtype; training=True (eval
 * mode is not modelled); more than one value per channel (batch_norm: N * spatial, instance_norm:
 * spatial), or the unbiased running variance divides by zero. A statistic is written: its elements
 * must not share memory with each other (opk_writable) nor with any other argument (the kernel reads
 * x, weight and bias around its writes, and two statistics in one memory leave the order to decide). */
int shape_func_batch_norm(const ir_stmt *st, const ops_env *env, const ops_meta *self, ops_effect *e, af_err *err) {
  const char *name = ops_get(st->op)->name;
  const ir_arg *a = st->args;
  int instance = st->op == OPS_instance_norm;
  if (opk_self_dtype_ok(st->op, self, err)) return -1;
  if (self->rank < 2 + instance)
    return af_fail(err, "%s: the input has %d dims, expected at least %d", name, self->rank, 2 + instance);
  int64_t c = self->shape[1], per = 1;
  for (int d = instance ? 2 : 0; d < self->rank; d++) per *= d == 1 ? 1 : self->shape[d];
  if (c < 1 || per < 2)
    return af_fail(err, "%s: expected more than 1 value per channel when training (got %lld)", name, (long long)per);
  if (a[5].kind != IR_ARG_BOOL || !a[5].i) return af_fail(err, "%s: only training=True is modelled (eval mode only reads)", name);
  for (int k = 6; k <= 7; k++)
    if (a[k].kind != IR_ARG_FLOAT && a[k].kind != IR_ARG_INT) return af_fail(err, "%s: argument %d must be a number", name, k);
  if (a[6].kind == IR_ARG_FLOAT ? a[6].f < 0 || a[6].f > 1 : a[6].i < 0 || a[6].i > 1)
    return af_fail(err, "%s: momentum outside [0, 1] is not modelled", name);
  if ((a[7].kind == IR_ARG_FLOAT ? a[7].f : (double)a[7].i) <= 0) return af_fail(err, "%s: eps must be positive", name);
  for (int k = 1; k <= 4; k++) {
    if (a[k].kind == IR_ARG_NONE) continue;
    const ops_meta *m = META(a[k].value);
    if (m->rank != 1 || m->shape[0] != c || m->dtype != self->dtype)
      return af_fail(err, "%s: argument %d must have shape [%lld] and the input's dtype %s", name, k, (long long)c,
                     af_dtype_name(self->dtype));
    if (!(ops_writes(st->op) & OPS_ARG(k))) continue;
    if (opk_writable(env, m, err)) return -1;
    for (int j = 0; j <= 4; j++)
      if (j != k && a[j].kind == IR_ARG_VALUE && opk_no_overlap(env, a[k].value, a[j].value, 0, err)) {
        af_err_prefix(err, "%s: running statistic %d and argument %d", name, k, j);
        return -1;
      }
  }
  opk_fresh_contig(&e->out, self->dtype, self->rank, self->shape);
  if (!instance && self->rank >= 4 && !ops_meta_is_contiguous(self)) e->out.exact = 0; /* channels-last kept */
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

/* x of rank >= 2 (instance_norm >= 3) with more than one value per channel; weight and bias a
 * tensor of size C three times in four, else None; the running statistics tensors of size C that
 * share no memory with x or each other (a generator makes them module buffers: ops_req.state), now
 * and then None (track_running_stats=False: nothing written); momentum from the values models use,
 * eps 0.1 to 1: a model's 1e-5 makes (x - mean) / sqrt(var + eps) of a constant channel (var 0)
 * 316 times a last-bit difference of the mean, which kernels sum in different orders (a ref
 * campaign of 20000 programs: two value-mismatch findings of 3e-5, each on a constant channel). */
SAMPLER(batch_norm) {
  SAMPLER_BEGIN;
  int instance = op == OPS_instance_norm;
  if (!opk_dt_drawable(op, m) || r < 2 + instance || m->shape[1] < 1) return -1;
  int64_t per = 1;
  for (int d = instance ? 2 : 0; d < r; d++) per *= d == 1 ? 1 : m->shape[d];
  if (per < 2) return -1;
  int64_t c = m->shape[1];
  for (int k = 1; k <= 2; k++) {
    if (!R(0, 3)) continue; /* None */
    ops_req q = opk_req(OPS_REQ_SHAPE, 1, &c, m->dtype, OPS_DT_SAME, p, 0);
    int v = opk_tensor(ch, &q);
    if (v < 0) return -1;
    args[k] = a_value(v);
  }
  int stats = R(0, 7) != 0, prev = -1;
  for (int k = 3; k <= 4 && stats; k++) {
    ops_req q = opk_req(OPS_REQ_SHAPE, 1, &c, m->dtype, OPS_DT_SAME, prev >= 0 ? prev : p, 0);
    q.state = 1;
    if (prev >= 0 && R(0, 1)) q.near1 = prev + 1; /* both statistics in one buffer */
    int v = opk_tensor(ch, &q);
    if (v < 0) return -1;
    args[k] = a_value(v);
    prev = v;
  }
  static const double momenta[] = {0.1, 0.25, 0.5, 1.0}, eps[] = {0.1, 0.5, 1.0};
  args[5] = a_bool(1);
  args[6] = a_float(momenta[R(0, 3)]);
  args[7] = a_float(eps[R(0, 2)]);
  args[8] = a_bool(0);
  return n;
}
