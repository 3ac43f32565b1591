/* result.c - result lifetime and input construction. */
#include "result.h"

#include <stdlib.h>
#include <string.h>

void result_init(result *r) {
  memset(r, 0, sizeof *r);
  r->residual = -1;
  r->converter_s = -1;
  r->grad_after = -1;
}

void inputs_free(int n, af_tensor **t) {
  if (!t) return;
  for (int i = 0; i < n; i++) at_tensor_free(t[i]);
  free(t);
}

void result_clear(result *r) {
  free(r->message);
  free(r->graph);
  inputs_free(r->noutputs, r->outputs);
  inputs_free(r->ninputs, r->inputs);
  inputs_free(r->nbases, r->bases);
  inputs_free(r->ngrads, r->grads);
  result_init(r);
}

void result_set_message(result *r, const char *msg) {
  free(r->message);
  r->message = msg ? af_xstrdup(msg) : NULL;
}

const char *result_status_name(result_status s) {
  static const char *n[] = {"ok", "unsupported", "error", "crash", "timeout", "protocol-error"};
  return s <= RESULT_PROTOCOL ? n[s] : "?";
}

int inputs_new(const ir_program *p, af_tensor ***out, af_err *err) {
  int nt = ir_ntensors(p);
  af_tensor **t = af_xcalloc((size_t)nt + 1, sizeof *t);
  for (int b = 0; b < p->nbases; b++) {
    const ir_base *B = &p->bases[b];
    double *v = af_xmalloc(sizeof(double) * (size_t)(B->numel ? B->numel : 1));
    for (int64_t k = 0; k < B->numel; k++) v[k] = ir_base_value(p, b, k);
    int rc = at_tensor_new(B->dtype, 1, &B->numel, v, &t[p->ninputs + b], err);
    free(v);
    if (rc) {
      af_err_prefix(err, "base %s", B->name);
      goto fail;
    }
  }
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    int rc;
    if (in->base) {
      af_tensor *r[1] = {NULL};
      int n = 0;
      at_arg a[4] = {{.kind = AT_ARG_TENSOR, .t = t[p->ninputs + in->base - 1]},
                     {.kind = AT_ARG_INTS, .n = in->rank, .ints = in->shape},
                     {.kind = AT_ARG_INTS, .n = in->rank, .ints = in->strides},
                     {.kind = AT_ARG_INT, .i = in->offset}};
      rc = at_call("aten::as_strided", "", 4, a, NULL, 1, r, &n, err);
      if (!rc && n != 1) rc = af_fail(err, "as_strided returned %d tensors", n);
      t[i] = r[0];
    } else {
      int64_t n = ir_numel(in->rank, in->shape);
      double *v = af_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
      for (int64_t k = 0; k < n; k++) v[k] = ir_input_value(in, i, k);
      rc = at_tensor_new(in->dtype, in->rank, in->shape, v, &t[i], err);
      free(v);
    }
    if (rc) {
      af_err_prefix(err, "input %s", p->names[in->value]);
      goto fail;
    }
  }
  *out = t;
  return 0;
fail:
  inputs_free(nt, t);
  *out = NULL;
  return -1;
}

void result_take_program_outputs(result *r, int n, af_tensor **outs, const ir_program *p, af_tensor *const *inputs) {
  int nb = ir_nbuffers(p), first = n - nb;
  if (first < 0) first = 0;
  result_take_outputs(r, first, outs, p->ninputs, inputs);
  for (int i = 0, k = first; i < p->ninputs && k < n; i++)
    if (p->inputs[i].buffer) { /* the buffer's final binding replaces the input tensor */
      at_tensor_free(r->inputs[i]);
      r->inputs[i] = outs[k++];
    }
}

void result_take_outputs(result *r, int n, af_tensor **outs, int ninputs, af_tensor *const *inputs) {
  r->noutputs = n;
  r->outputs = af_xcalloc((size_t)n + 1, sizeof(af_tensor *));
  for (int o = 0; o < n; o++) r->outputs[o] = outs[o];
  r->ninputs = ninputs;
  r->inputs = af_xcalloc((size_t)ninputs + 1, sizeof(af_tensor *));
  for (int i = 0; i < ninputs; i++) r->inputs[i] = at_tensor_ref(inputs[i]);
}
