/* conv_jit.c - `jit`: the emitted TorchScript, compiled by LibTorch; a copy of its graph goes
 * through torch::jit::RemoveListMutation and RemoveTensorMutation (what
 * torch._C._jit_pass_remove_mutation runs) and is run by the TorchScript interpreter. The pass
 * only rewrites an in-place op whose target is a fresh value nothing else aliases, so mutation
 * can remain: result.residual counts the ops that still write into a tensor (the
 * residual-mutation verdict, informational unless asked for), and the graph keeps the inputs'
 * mutations, so the caller's tensors change as in eager. */
#include <stdlib.h>

#include "../emit.h"
#include "../torch/passes.h"
#include "conv.h"

#define JIT_MAX_OUT 64

static int jit_available(const conv_converter *c, const char **why) {
  (void)c;
  *why = NULL;
  return 1;
}

static const char *jit_version(const conv_converter *c) {
  (void)c;
  return at_version();
}

static result_status jit_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  (void)c;
  passes_jit *j = NULL;
  at_script *s = NULL;
  af_err err;
  int rc = conv_compile(p, &s, &err);
  if (!rc) rc = passes_jit_new(s, &j, &err);
  if (rc) {
    result_set_message(r, err.msg);
    return RESULT_ERROR;
  }
  r->graph = passes_jit_graph(j);
  r->residual = passes_jit_residual(j);
  *state = j;
  return RESULT_OK;
}

static result_status jit_run(const conv_converter *c, void *state, const ir_program *p, af_tensor *const *inputs,
                             result *r) {
  (void)c;
  af_tensor *outs[JIT_MAX_OUT];
  int n = 0;
  af_err err;
  if (passes_jit_run(state, p->ninputs, inputs, JIT_MAX_OUT, outs, &n, &err)) {
    result_set_message(r, err.msg);
    return RESULT_ERROR;
  }
  result_take_program_outputs(r, n, outs, p, inputs);
  return RESULT_OK;
}

static void jit_free(void *state) { passes_jit_free(state); }

const conv_converter conv_jit = {
    .name = "jit",
    .description = "TorchScript RemoveListMutation + RemoveTensorMutation, run by the TorchScript interpreter; "
                   "counts the in-place ops left (residual mutation). Stands for the same passes from Python "
                   "(torch.jit.CompilationUnit, torch._C._jit_pass_remove_mutation; repro.py): a class that does "
                   "not fail there is a harness artifact",
    .available = jit_available,
    .version = jit_version,
    .convert = jit_convert,
    .run = jit_run,
    .free_state = jit_free,
    .repro_py =
        "def convert_and_run(src, converted, inputs):\n"
        "    if BUFFERS:  # module state: the pass on the forward method's graph, self first\n"
        "        m = make_module(src, inputs, True)\n"
        "        g = m.forward.graph.copy()\n"
        "        torch._C._jit_pass_remove_mutation(g)\n"
        "        fn = torch._C._create_function_from_graph('forward_nomutation', g)\n"
        "        return module_call(m, inputs, lambda *a: fn(m._c, *a))\n"
        "    g = torch.jit.CompilationUnit(src).program.graph.copy()\n"
        "    torch._C._jit_pass_remove_mutation(g)  # RemoveListMutation + RemoveTensorMutation\n"
        "    fn = torch._C._create_function_from_graph('program_nomutation', g)\n"
        "    return as_list(fn(*inputs)), inputs\n",
};
