/* conv.c - converter registry and the convert-then-run driver. */
#include "conv.h"

#include <stdlib.h>
#include <string.h>

#include "../emit.h"
#include "conv_worker.h"

static const conv_converter *const registry[] = {
    &conv_script,
    &conv_jit,       /* in process (issue 4) */
    &conv_functionalize,
    &conv_functionalize_noviews,
    &conv_ref,
    &conv_naive,
/* the named workers, in workers.def's order */
#define WORKER(var, name, script, repro, request_s, hello_s, packages, description) &var,
#include "workers.def"
};

#define NBUILTIN ((int)(sizeof registry / sizeof registry[0]))

/* Converters registered at run time (tests, embedders). */
static const conv_converter *extra[16];
static int nextra;

int conv_register(const conv_converter *c) {
  if (nextra >= (int)(sizeof extra / sizeof extra[0]) || conv_find(c->name)) return -1;
  extra[nextra++] = c;
  return 0;
}

int conv_count(void) { return NBUILTIN + nextra; }
const conv_converter *conv_get(int i) {
  if (i < 0 || i >= conv_count()) return NULL;
  return i < NBUILTIN ? registry[i] : extra[i - NBUILTIN];
}

const conv_converter *conv_find(const char *name) {
  if (strncmp(name, "external:", 9) == 0) return conv_worker_external(name + 9);
  for (int i = 0; i < conv_count(); i++)
    if (strcmp(conv_get(i)->name, name) == 0) return conv_get(i);
  return NULL;
}

int conv_compile(const ir_program *p, at_script **out, af_err *err) {
  char *src = emit_torchscript(p, "program");
  int nb = ir_nbuffers(p), rc;
  if (!nb) {
    rc = at_script_compile(src, "program", out, err);
  } else {
    const char **names = af_xcalloc((size_t)nb, sizeof(char *));
    int *pos = af_xcalloc((size_t)nb, sizeof(int)), *attrs = af_xcalloc((size_t)nb, sizeof(int));
    for (int i = 0, k = 0; i < p->ninputs; i++)
      if (p->inputs[i].buffer) names[k] = p->names[p->inputs[i].value], attrs[k] = p->inputs[i].attr, pos[k++] = i;
    rc = at_script_compile_module(src, nb, names, pos, attrs, out, err);
    free(names);
    free(pos);
    free(attrs);
  }
  free(src);
  return rc;
}

int conv_execute(const conv_converter *c, const ir_program *p, result *r, af_err *err) {
  void *state = NULL;
  result_init(r);
  if (p->train && !conv_worker_of(c)) { /* issue 33: no in-process converter trains (docs/training.md) */
    result_set_message(r, RESULT_HARNESS_LIMIT "this converter does not run training programs (backward, gradients)");
    r->status = RESULT_UNSUPPORTED;
    return 0;
  }
  r->status = c->convert(c, p, &state, r);
  if (r->status != RESULT_OK) {
    if (c->free_state) c->free_state(state);
    return 0;
  }
  af_tensor **in;
  if (inputs_new(p, &in, err)) {
    if (c->free_state) c->free_state(state);
    return -1;
  }
  r->status = c->run(c, state, p, in, r);
  if (r->status == RESULT_OK && !r->bases && p->nbases) { /* it ran on the caller's tensors */
    r->nbases = p->nbases;
    r->bases = af_xcalloc((size_t)p->nbases + 1, sizeof(af_tensor *));
    for (int b = 0; b < p->nbases; b++) r->bases[b] = at_tensor_ref(in[p->ninputs + b]);
  }
  inputs_free(ir_ntensors(p), in);
  if (c->free_state) c->free_state(state);
  return 0;
}
