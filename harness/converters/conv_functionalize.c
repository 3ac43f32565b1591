/* conv_functionalize.c - `functionalize` and `functionalize-noviews`: ATen functionalization in
 * process, the mechanism behind functorch.functionalize, AOTAutograd and torch.export. The
 * emitted TorchScript is compiled and run by the TorchScript interpreter with every input wrapped
 * as a functional tensor and the Functionalize dispatch key included, so each op the interpreter
 * calls goes through ATen's functionalization kernels; outputs are synced and unwrapped, and input
 * mutations are copied back into the caller's tensors the way functorch does it
 * (passes_functionalize_run). `functionalize` reapplies views (functorch's default: views stay
 * views of the inner tensors); `functionalize-noviews` turns them into *_copy ops. A
 * shape-changing in-place op on an input reaches the caller through as_strided_, as in functorch;
 * a change of the number of elements would be converter-unsupported. There is no converted graph
 * to show: result.graph is the TorchScript graph that ran, with a header. */
#include <stdio.h>
#include <stdlib.h>

#include "../emit.h"
#include "../torch/passes.h"
#include "conv.h"

#define FN_MAX_OUT 64

static int fn_available(const conv_converter *c, const char **why) {
  (void)c;
  *why = NULL;
  return 1;
}

static const char *fn_version(const conv_converter *c) {
  (void)c;
  return at_version();
}

static int fn_reapply(const conv_converter *c) { return c == &conv_functionalize; }

static result_status fn_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  at_script *s = NULL;
  af_err err;
  int rc = conv_compile(p, &s, &err);
  if (rc) {
    result_set_message(r, err.msg);
    return RESULT_ERROR;
  }
  char *g = at_script_graph(s);
  af_buf b = {0};
  af_buf_printf(&b, "# run by the TorchScript interpreter under ATen functionalization (reapply_views=%s)\n%s",
                fn_reapply(c) ? "True" : "False", g);
  free(g);
  r->graph = af_buf_take(&b);
  *state = s;
  return RESULT_OK;
}

static result_status fn_run(const conv_converter *c, void *state, const ir_program *p, af_tensor *const *inputs,
                            result *r) {
  af_tensor *outs[FN_MAX_OUT];
  int n = 0;
  af_err err;
  int rc = passes_functionalize_run(state, fn_reapply(c), p->ninputs, inputs, FN_MAX_OUT, outs, &n, &err);
  if (rc) {
    for (int o = 0; o < n; o++) at_tensor_free(outs[o]);
    result_set_message(r, err.msg);
    return rc > 0 ? RESULT_UNSUPPORTED : RESULT_ERROR;
  }
  result_take_program_outputs(r, n, outs, p, inputs);
  return RESULT_OK;
}

static void fn_free(void *state) { at_script_free(state); }

/* repro.py: the public API this converter stands for, and what confirms its findings (fuzz/confirm.h):
 * torch.func.functionalize(f, remove=REMOVE) (functorch's on 1.13) called on the inputs, f the
 * program as plain Python, the function a user writes; functionalize hands input mutations back to
 * the inputs. That is the converter's own mechanism (functionalization of a running program, no
 * tracing), so make_fx's limits (data-dependent control flow) do not decide; its graph is printed
 * when make_fx can trace the program. For module state the buffers are the function's inputs and
 * their final states its last outputs. From Python torch's meta registrations are loaded (LibTorch
 * alone lacks them), so an op that fails in process for want of a Meta kernel passes here: such a
 * class is a harness artifact, not a bug. */
#define FN_REPRO_PY(REMOVE)                                                                    \
  "def convert_and_run(src, converted, inputs):\n"                                            \
  "    try:\n"                                                                                \
  "        from torch.func import functionalize\n"                                            \
  "    except ImportError:  # PyTorch 1.13\n"                                                 \
  "        from functorch import functionalize\n"                                             \
  "    from torch.fx.experimental.proxy_tensor import make_fx\n"                              \
  "    nb = len(BUFFERS)\n"                                                                   \
  "    if BUFFERS:\n"                                                                         \
  "        def f(*a):\n"                                                                      \
  "            outs, finals = module_call(make_module(src, list(a), False), list(a))\n"       \
  "            return tuple(outs) + tuple(finals[i] for i in BUFFERS)\n"                      \
  "    else:\n"                                                                               \
  "        f = python_function(src)\n"                                                        \
  "    print('--- make_fx(functionalize(program, remove=\\'" REMOVE "\\')) ---')\n"          \
  "    try:\n"                                                                                \
  "        print(make_fx(functionalize(f, remove='" REMOVE "'))(*make_inputs()).code.strip())\n" \
  "    except Exception as exc:  # data-dependent control flow: no graph, the run below decides\n" \
  "        print('(make_fx cannot trace it: %s)' % str(exc).splitlines()[0] if str(exc) else type(exc).__name__)\n" \
  "    r = as_list(functionalize(f, remove='" REMOVE "')(*inputs))\n"                         \
  "    finals = list(inputs)\n"                                                               \
  "    for k, i in enumerate(BUFFERS):\n"                                                     \
  "        finals[i] = r[len(r) - nb + k]\n"                                                  \
  "    return r[:len(r) - nb], finals\n"

const conv_converter conv_functionalize = {
    .name = "functionalize",
    .description = "ATen functionalization in process (functorch.functionalize's mechanism), reapplying views; "
                   "run by the TorchScript interpreter. Stands for torch.func.functionalize(remove='mutations') "
                   "from Python (repro.py): a class that does not fail there (an op LibTorch alone has no "
                   "Meta kernel for) is a harness artifact",
    .available = fn_available,
    .version = fn_version,
    .convert = fn_convert,
    .run = fn_run,
    .free_state = fn_free,
    .repro_py =
        FN_REPRO_PY("mutations"),
};

const conv_converter conv_functionalize_noviews = {
    .name = "functionalize-noviews",
    .description = "ATen functionalization in process with views replaced by *_copy ops (reapply_views=False). "
                   "Stands for torch.func.functionalize(remove='mutations_and_views') from Python (repro.py): "
                   "a class that does not fail there is a harness artifact",
    .available = fn_available,
    .version = fn_version,
    .convert = fn_convert,
    .run = fn_run,
    .free_state = fn_free,
    .repro_py =
        FN_REPRO_PY("mutations_and_views"),
};
