/* conv_script.c - `script`: the emitted TorchScript compiled by LibTorch and run by the
 * TorchScript interpreter with no pass at all. The sanity baseline: a scripted program must mean
 * what the IR means, so this converter must pass everything. */
#include <stdlib.h>

#include "../emit.h"
#include "conv.h"

static int script_available(const conv_converter *c, const char **why) {
  (void)c;
  *why = NULL;
  return 1;
}

static const char *script_version(const conv_converter *c) {
  (void)c;
  return at_version();
}

static result_status script_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  (void)c;
  at_script *s = NULL;
  af_err err;
  int rc = conv_compile(p, &s, &err);
  if (rc) {
    result_set_message(r, err.msg);
    return RESULT_ERROR;
  }
  r->graph = at_script_graph(s);
  *state = s;
  return RESULT_OK;
}

static result_status script_run(const conv_converter *c, void *state, const ir_program *p, af_tensor *const *inputs,
                                result *r) {
  (void)c;
  af_err err;
  af_tensor *outs[64];
  int n = 0;
  if (at_script_run(state, p->ninputs, inputs, 64, outs, &n, &err)) {
    result_set_message(r, err.msg);
    return RESULT_ERROR;
  }
  result_take_program_outputs(r, n, outs, p, inputs);
  return RESULT_OK;
}

static void script_free(void *state) { at_script_free(state); }

const conv_converter conv_script = {
    .name = "script",
    .description = "TorchScript as is, no pass: the sanity baseline (must always pass)",
    .available = script_available,
    .version = script_version,
    .convert = script_convert,
    .run = script_run,
    .free_state = script_free,
    .repro_py =
        "def convert_and_run(src, converted, inputs):\n"
        "    return run_script(src, inputs)  # torch.jit.CompilationUnit(src).program, or a scripted module\n",
};
