/* result.c - result lifetime and input construction. */
#include "result.h"

#include <stdlib.h>
#include <string.h>

void result_init(result *r) {
  memset(r, 0, sizeof *r);
  r->residual = -1;
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
  result_init(r);
}

void result_set_message(result *r, const char *msg) {
  free(r->message);
  r->message = msg ? af_xstrdup(msg) : NULL;
}

const char *result_status_name(result_status s) {
  static const char *n[] = {"ok", "unsupported", "error", "crash", "timeout"};
  return s <= RESULT_TIMEOUT ? n[s] : "?";
}

int inputs_new(const ir_program *p, af_tensor ***out, af_err *err) {
  af_tensor **t = af_xcalloc((size_t)p->ninputs, sizeof *t);
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    int64_t n = ir_numel(in->rank, in->shape);
    double *v = af_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t k = 0; k < n; k++) v[k] = ir_input_value(in, i, k);
    int rc = at_tensor_new(in->dtype, in->rank, in->shape, v, &t[i], err);
    free(v);
    if (rc) {
      af_err_prefix(err, "input %s", p->names[in->value]);
      inputs_free(i, t);
      *out = NULL;
      return -1;
    }
  }
  *out = t;
  return 0;
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
