/* emit_snippet.c - see emit_snippet.h */
#include "emit_snippet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "converters/conv.h"
#include "converters/conv_worker.h"
#include "../oracle/oracle.h"
#include "emit.h"
#include "ops/ops.h"
#include "torch/shim.h"

enum {
  SN_MODULE = 1,   /* takes an nn.Module (torch.export's family): the program is always M */
  SN_STATE = 2,    /* its model cannot write its arguments: forward returns the outputs, then each
                      input's final state (as the workers convert it: afworker returns_state) */
  SN_TWICE = 4,    /* a compiled callable: with input layouts, the finding's calling order (judge.h):
                      order 2, call 1 on separate contiguous copies compiles and call 2 on the
                      laid-out inputs reuses it; order 1, one call on the laid-out inputs (repro.py) */
  SN_FUNCTION = 8, /* takes a function only: a program with module state cannot be shown */
  SN_VJP = 16,     /* trains through torch.func.vjp (worker_functorch.py), not by backpropagating its
                      outputs as the snippet's G does: a training program's snippet is not written
                      (repro.py reproduces it) */
};

/* How each converter is called through its stock public API: the one place that says it. The
 * convert lines may use %P (the program: `f`, or `M(...)` built on the converter's arguments c),
 * %A (the arguments of the call, a slice of c), %F (a fresh set of them, for tracing), %N (the
 * program's parameter names, a Python list). They define cf, the converted callable, or with
 * SN_STATE got, the list of its values. */
typedef struct snippet_api {
  const char *converter;
  int stack; /* 0: both stacks; 1 or 2: that PyTorch major version only */
  unsigned flags;
  const char *imports; /* joined to the first line's `import sys, torch`, or NULL */
  const char *convert;
} snippet_api;

#define SN_FUNC_2X "from torch.func import functionalize; from torch.fx.experimental.proxy_tensor import make_fx"
#define SN_FUNC_1X "from functorch import functionalize, make_fx"
#define SN_ORT_GOT \
  "got = [torch.from_numpy(v) for v in s.run(None, {i.name: dict(zip(%N, %A))[i.name].numpy() for i in s.get_inputs()})]\n"

static const snippet_api apis[] = {
    {"script", 0, 0, NULL, "cf = torch.jit.script(%P)\n"},
    {"jit", 0, SN_FUNCTION, NULL,
     "g = torch.jit.script(%P).graph.copy(); torch._C._jit_pass_remove_mutation(g)  # RemoveTensorMutation\n"
     "cf = torch._C._create_function_from_graph(\"f\", g)\n"},
    {"functionalize", 2, SN_FUNCTION, SN_FUNC_2X, "cf = make_fx(functionalize(%P, remove=\"mutations\"))(*%F)\n"},
    {"functionalize", 1, SN_FUNCTION, SN_FUNC_1X, "cf = make_fx(functionalize(%P, remove=\"mutations\"))(*%F)\n"},
    {"functionalize-noviews", 2, SN_FUNCTION, SN_FUNC_2X,
     "cf = make_fx(functionalize(%P, remove=\"mutations_and_views\"))(*%F)\n"},
    {"functionalize-noviews", 1, SN_FUNCTION, SN_FUNC_1X,
     "cf = make_fx(functionalize(%P, remove=\"mutations_and_views\"))(*%F)\n"},
    /* the functorch worker traces the scripted function (its default --mode script) */
    {"functorch", 2, SN_FUNCTION | SN_VJP, SN_FUNC_2X, "cf = make_fx(functionalize(torch.jit.script(%P)))(*%F)\n"},
    {"functorch", 1, SN_FUNCTION, SN_FUNC_1X, "cf = make_fx(functionalize(torch.jit.script(%P)))(*%F)\n"},
    {"aot_eager", 2, SN_TWICE, NULL, "cf = torch.compile(%P, backend=\"aot_eager\")\n"},
    {"inductor", 2, SN_TWICE, NULL, "cf = torch.compile(%P, backend=\"inductor\")\n"},
    /* aot_eager's modes (docs/converters.md), each as its worker compiles and calls */
    {"aot_eager-dynamic", 2, SN_TWICE, NULL, "cf = torch.compile(%P, backend=\"aot_eager\", dynamic=True)\n"},
    {"aot_eager-debug", 2, SN_TWICE, "import torch._functorch.config",
     "torch._functorch.config.debug_assert = True\ncf = torch.compile(%P, backend=\"aot_eager\")\n"},
    {"aot_eager-autocast", 2, SN_TWICE, NULL,
     "c0 = torch.compile(%P, backend=\"aot_eager\")\n"
     "def cf(*a):\n    with torch.autocast(\"cpu\", dtype=torch.bfloat16):\n        return c0(*a)\n"},
    {"aot_eager-unbacked", 2, SN_TWICE, "import torch._dynamo.config",
     "torch._dynamo.config.capture_scalar_outputs = True\n"
     "torch._dynamo.config.capture_dynamic_output_shape_ops = True\ncf = torch.compile(%P, backend=\"aot_eager\")\n"},
    {"export", 2, SN_MODULE, NULL, "cf = torch.export.export(%P, tuple(%A)).module()\n"},
    {"export-decomp", 2, SN_MODULE, NULL, "cf = torch.export.export(%P, tuple(%A)).run_decompositions().module()\n"},
    {"onnx-dynamo", 2, SN_MODULE | SN_STATE, "import onnxruntime",
     "s = onnxruntime.InferenceSession(torch.onnx.export(%P, tuple(%A), dynamo=True).model_proto.SerializeToString())\n" SN_ORT_GOT},
    {"onnx", 2, SN_MODULE | SN_STATE, "import io, onnxruntime",
     "torch.onnx.export(torch.jit.script(%P), tuple(%A), b := io.BytesIO(), input_names=%N, opset_version=16, dynamo=False)\n"
     "s = onnxruntime.InferenceSession(b.getvalue())\n" SN_ORT_GOT},
    {"onnx", 1, SN_MODULE | SN_STATE, "import io, onnxruntime",
     "torch.onnx.export(torch.jit.script(%P), tuple(%A), b := io.BytesIO(), input_names=%N, opset_version=16)\n"
     "s = onnxruntime.InferenceSession(b.getvalue())\n" SN_ORT_GOT},
    {"tvm-relax", 2, SN_MODULE | SN_STATE, "import tvm; from tvm.relax.frontend.torch import from_exported_program",
     "vm = tvm.relax.VirtualMachine(tvm.compile(from_exported_program(torch.export.export(%P, tuple(%A))), target=\"llvm\"), tvm.cpu())\n"
     "r = vm[\"main\"](*[tvm.runtime.tensor(a.numpy()) for a in %A]); got = [torch.from_numpy(v.numpy()) for v in r]\n"},
    {"openvino", 2, SN_MODULE | SN_STATE, "import openvino as ov",
     "cm = ov.compile_model(ov.convert_model(torch.export.export(%P, tuple(%A))), \"CPU\", {\"INFERENCE_PRECISION_HINT\": \"f32\"})\n"
     "r = cm([a.numpy() for a in %A]); got = [torch.as_tensor(r[o]) for o in cm.outputs]\n"},
    /* issue 31: the portable runtime returns mutated inputs as extra outputs before the model's (s: their
     * names, by the graph signature); an argument's final state is that output where there is one, as
     * worker_executorch.py reads it, not the clone forward returns (computed before the write-back);
     * InitializedMutableBufferPass keeps a mutated buffer's initial value (its placeholders are b_NAME) */
    {"executorch", 2, SN_MODULE | SN_STATE,
     "from executorch.exir import to_edge, ExecutorchBackendConfig as C; from executorch.exir.passes.init_mutable_pass "
     "import InitializedMutableBufferPass as I; from executorch.runtime import Runtime",
     "p = to_edge(torch.export.export(%P, tuple(%A))).to_executorch(C(passes=[I([\"b_\"])])); s = [o.target for o in "
     "p.exported_program().graph_signature.output_specs if o.kind.name == \"USER_INPUT_MUTATION\"]\n"
     "r = list(Runtime.get().load_program(p.buffer).load_method(\"forward\").execute(list(%A))); got = r[len(s):]; "
     "o = len(got) - len(c); got[o:o + len(%N)] = [dict(zip(s, r)).get(n, v) for n, v in zip(%N, got[o:])]\n"},
    {"iree", 2, SN_MODULE | SN_STATE, "import iree.turbine.aot as aot, iree.runtime as rt",
     "cfg = rt.Config(\"local-sync\"); ctx = rt.SystemContext(config=cfg); vm = aot.export(%P, args=tuple(%A)).compile(save_to=None)\n"
     "ctx.add_vm_module(rt.VmModule.copy_buffer(cfg.vm_instance, vm.map_memory())); r = ctx.modules.module[\"main\"](*[a.numpy() for a in %A])\n"
     "got = [torch.from_numpy(v.to_host()) for v in (r if isinstance(r, (list, tuple)) else [r])]\n"},
    {"torchax", 2, SN_MODULE | SN_STATE, "import torchax, numpy as np",
     "torchax.enable_accuracy_mode()\nwith torchax.default_env(): r = %P.to(\"jax\")(*[a.to(\"jax\") for a in %A])\n"
     "got = [torch.from_numpy(np.asarray(v._elem)) for v in r]\n"},
};

/* Python's torch.Tensor lacks these methods that TorchScript has (they are ATen ops). */
static const char *const aten_only[] = {"alias",       "copy",         "elu",        "elu_",        "fill",
                                        "gelu",        "gelu_",        "hardsigmoid", "hardsigmoid_", "hardswish",
                                        "hardswish_",  "hardtanh",     "hardtanh_",   "leaky_relu",   "leaky_relu_",
                                        "mish",        "mish_",        "relu6",       "relu6_",       "silu",
                                        "silu_",       "zero",         NULL};

const char *const *emit_snippet_aten_only(void) { return aten_only; }

const char *emit_snippet_imports(int i) {
  if (i < 0 || i >= (int)(sizeof apis / sizeof *apis)) return NULL;
  return apis[i].imports ? apis[i].imports : "";
}

static int stack_major(void) { return atoi(at_version()) >= 2 ? 2 : 1; }

static const snippet_api *find_api(const char *converter, int major) {
  for (size_t k = 0; k < sizeof apis / sizeof apis[0]; k++)
    if (strcmp(apis[k].converter, converter) == 0 && (apis[k].stack == 0 || apis[k].stack == major)) return &apis[k];
  return NULL;
}

int emit_snippet_supported(const char *converter, int major, const char **why) {
  if (find_api(converter, major)) return 1;
  for (size_t k = 0; k < sizeof apis / sizeof apis[0]; k++)
    if (strcmp(apis[k].converter, converter) == 0) {
      *why = "no stock API of this converter on this PyTorch stack";
      return 0;
    }
  *why = !conv_find(converter) ? "no converter of that name (aliasfuzz converters lists them)"
         : "aliasfuzz's own converter, or one whose stock API takes more than a snippet (TVM Relay needs "
           "TVM 0.11-0.14 from AF_TVM_HOME and numpy aliases): repro.py reproduces it";
  return 0;
}

/* ---- input literals ---- */

static void put_value(af_buf *b, af_dtype dt, double v) {
  if (dt == AF_BOOL) {
    af_buf_puts(b, v != 0 ? "True" : "False");
  } else if (af_dtype_is_int(dt)) {
    af_buf_printf(b, "%lld", (long long)v);
  } else if (isnan(v)) {
    af_buf_puts(b, "float(\"nan\")");
  } else if (isinf(v)) {
    af_buf_puts(b, v > 0 ? "float(\"inf\")" : "-float(\"inf\")");
  } else {
    size_t start = b->len;
    codec_put_float(b, v);
    if (!strpbrk(b->s + start, ".eE")) af_buf_puts(b, ".0");
  }
}

/* Where a tensor's values come from: input `input` (or base `base` when input < 0). */
typedef struct source {
  const ir_program *p;
  int input, base;
} source;

static double source_value(const source *s, int64_t k) {
  if (s->input >= 0) return ir_input_value(&s->p->inputs[s->input], s->input, k);
  return ir_base_value(s->p, s->base, k);
}

/* The default formula's input index (ir_input_default_value), or -1 when the values are explicit. */
static int source_formula(const source *s) {
  const ir_program *p = s->p;
  if (s->input >= 0) return p->inputs[s->input].ndata > 0 ? -1 : s->input;
  const ir_base *B = &p->bases[s->base];
  if (B->owner >= 0 && B->owner < p->ninputs) return p->inputs[B->owner].ndata > 0 ? -1 : B->owner;
  if (B->ndata > 0) return -1;
  int h = 0;
  for (int j = 0; j < s->base; j++) h += p->bases[j].owner < 0;
  return p->ninputs + h;
}

static void put_nested(af_buf *b, const source *s, af_dtype dt, int rank, const int64_t *shape, int d, int64_t *k) {
  if (d == rank) {
    put_value(b, dt, source_value(s, (*k)++));
    return;
  }
  af_buf_puts(b, "[");
  for (int64_t j = 0; j < shape[d]; j++) {
    if (j) af_buf_puts(b, ", ");
    put_nested(b, s, dt, rank, shape, d + 1, k);
  }
  af_buf_puts(b, "]");
}

static void put_ints(af_buf *b, int n, const int64_t *v) {
  af_buf_puts(b, "[");
  for (int d = 0; d < n; d++) af_buf_printf(b, "%s%lld", d ? ", " : "", (long long)v[d]);
  af_buf_puts(b, "]");
}

#define SN_LITERAL_MAX 48 /* elements a literal spells; past that, the default formula as torch.arange */

/* A tensor of values s, dtype dt and shape (rank, shape): a literal, or for many default values
 * the formula of ir_input_default_value in torch ops. */
static void put_tensor(af_buf *b, const source *s, af_dtype dt, int rank, const int64_t *shape) {
  int64_t n = ir_numel(rank, shape), k = 0;
  int i = source_formula(s);
  if (n > SN_LITERAL_MAX && i >= 0) {
    if (dt == AF_BOOL) af_buf_printf(b, "((torch.arange(%lld) + %d) %% 3 == 0)", (long long)n, i);
    else af_buf_printf(b, "((torch.arange(%lld) * 7 + %d) %% 11%s)", (long long)n, 3 * i, dt == AF_UINT8 ? "" : " - 5");
    if (dt != AF_BOOL && dt != AF_INT64) af_buf_printf(b, ".to(%s)", af_dtype_torch(dt));
    if (rank != 1) {
      af_buf_puts(b, ".reshape(");
      put_ints(b, rank, shape);
      af_buf_puts(b, ")");
    }
    return;
  }
  af_buf_puts(b, "torch.tensor(");
  put_nested(b, s, dt, rank, shape, 0, &k);
  /* the default dtype of the literal's Python numbers needs no name */
  if (dt != AF_FLOAT32 && dt != AF_INT64 && dt != AF_BOOL) af_buf_printf(b, ", dtype=%s", af_dtype_torch(dt));
  af_buf_puts(b, ")");
}

static int contiguous_whole(const ir_program *p, const ir_input *in) {
  const ir_base *B = &p->bases[in->base - 1];
  if (in->offset != 0 || ir_numel(in->rank, in->shape) != B->numel || in->dtype != B->dtype) return 0;
  int64_t want = 1;
  for (int d = in->rank - 1; d >= 0; d--) {
    if (in->shape[d] != 1 && in->strides[d] != want) return 0;
    want *= in->shape[d];
  }
  return 1;
}

/* The input's tensor: a literal, its base's name, or an as_strided view of it; in a training
 * program a leaf that requires grad, or an nn.Parameter (such an input has no layout). */
static void put_input(af_buf *b, const ir_program *p, int i) {
  const ir_input *in = &p->inputs[i];
  if (!in->base) {
    source s = {p, i, -1};
    if (p->train && in->param) af_buf_puts(b, "torch.nn.Parameter(");
    put_tensor(b, &s, in->dtype, in->rank, in->shape);
    if (p->train && in->param) af_buf_puts(b, ")");
    else if (p->train && in->grad) af_buf_puts(b, ".requires_grad_()");
    return;
  }
  int k = in->base - 1;
  af_buf_puts(b, ir_base_name(p, k));
  if (p->bases[k].owner == i && contiguous_whole(p, in)) return; /* the storage is made in its shape */
  af_buf_puts(b, ".as_strided(");
  put_ints(b, in->rank, in->shape);
  af_buf_puts(b, ", ");
  put_ints(b, in->rank, in->strides);
  af_buf_printf(b, ", %lld)", (long long)in->offset);
}

/* `def args(): ...`: the buffers, then the parameters, then (hidden) the hidden bases. */
static void put_args(af_buf *b, const ir_program *p, int hidden) {
  af_buf_puts(b, "def args(): ");
  for (int k = 0; k < p->nbases; k++) {
    const ir_base *B = &p->bases[k];
    source s = {p, -1, k};
    af_buf_printf(b, "%s = ", ir_base_name(p, k));
    int own = B->owner >= 0 && B->owner < p->ninputs && p->inputs[B->owner].base == k + 1 &&
              contiguous_whole(p, &p->inputs[B->owner]);
    if (own) put_tensor(b, &s, B->dtype, p->inputs[B->owner].rank, p->inputs[B->owner].shape);
    else put_tensor(b, &s, B->dtype, 1, &B->numel);
    if (p->train && B->grad) /* the caller's leaf; the inputs view its clone, G reads the leaf's .grad */
      af_buf_printf(b, ".requires_grad_(); %s_leaf = %s; %s = %s_leaf.clone(); %s.leaf = %s_leaf", ir_base_name(p, k), ir_base_name(p, k),
                    ir_base_name(p, k), ir_base_name(p, k), ir_base_name(p, k), ir_base_name(p, k));
    af_buf_puts(b, "; ");
  }
  af_buf_puts(b, "return [");
  int n = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < p->ninputs; i++)
      if ((!p->inputs[i].buffer) == pass) {
        if (n++) af_buf_puts(b, ", ");
        put_input(b, p, i);
      }
  for (int k = 0; hidden && k < p->nbases; k++)
    if (p->bases[k].owner < 0) af_buf_printf(b, "%s%s", n++ ? ", " : "", ir_base_name(p, k));
  af_buf_puts(b, "]\n");
}

/* ---- the program ---- */

/* line with every `recv.NAME(` of an aten_only NAME spelled `torch.ops.aten.NAME(recv, `. */
static void put_python_line(af_buf *b, const char *line, size_t len) {
  size_t i = 0;
  while (i < len) {
    const char *name = NULL;
    if (line[i] == '.' && i > 0) {
      for (int k = 0; aten_only[k]; k++) {
        size_t n = strlen(aten_only[k]);
        if (i + 1 + n < len && strncmp(line + i + 1, aten_only[k], n) == 0 && line[i + 1 + n] == '(')
          name = aten_only[k];
      }
    }
    size_t r = i; /* the receiver: the name (or self.NAME) before the dot */
    while (name && r > 0 && (line[r - 1] == '_' || line[r - 1] == '.' || (line[r - 1] >= '0' && line[r - 1] <= '9') ||
                             (line[r - 1] >= 'a' && line[r - 1] <= 'z') || (line[r - 1] >= 'A' && line[r - 1] <= 'Z')))
      r--;
    if (!name || r == i || strncmp(line + r, "torch", 5) == 0) {
      char ch[2] = {line[i++], 0};
      af_buf_puts(b, ch);
      continue;
    }
    b->len -= i - r; /* take the receiver back out */
    b->s[b->len] = 0;
    size_t after = i + 1 + strlen(name) + 1; /* past the '(' */
    af_buf_printf(b, "torch.ops.aten.%s(%.*s%s", name, (int)(i - r), line + r, line[after] == ')' ? "" : ", ");
    i = after;
  }
}

/* The body lines of emit_torchscript's text (between the def line and the final return), each
 * indented by extra more, appended to b; *ret receives the final return's expression (new). */
static int put_body(af_buf *b, const char *src, int extra, char **ret) {
  const char *first = strchr(src, '\n');
  const char *last = strstr(src, "\n    return ");
  int lines = 0;
  for (const char *l = first + 1; l < last + 1; l = strchr(l, '\n') + 1) {
    const char *end = strchr(l, '\n');
    af_buf_printf(b, "%*s", extra, "");
    put_python_line(b, l, (size_t)(end - l));
    af_buf_puts(b, "\n");
    lines++;
  }
  const char *expr = last + strlen("\n    return ");
  *ret = strndup(expr, strcspn(expr, "\n"));
  return lines;
}

static const char *input_name(const ir_program *p, int i) { return p->names[p->inputs[i].value]; }

/* The program as `def f(...)` or `class M(torch.nn.Module)`; with state, forward returns the
 * outputs and then each input's final state (as afworker.program_module(returns_state=True)). */
static void put_program(af_buf *b, const ir_program *p, int module, int state) {
  char *src = emit_torchscript(p, "f"), *ret = NULL;
  int ind = module ? 8 : 4, nb = ir_nbuffers(p);
  af_buf params = {0};
  for (int i = 0; i < p->ninputs; i++)
    if (!p->inputs[i].buffer) af_buf_printf(&params, "%s%s", params.len || module ? ", " : "", input_name(p, i));
  if (module) {
    af_buf_puts(b, "class M(torch.nn.Module):\n");
    if (nb) {
      af_buf_puts(b, "    def __init__(self");
      for (int i = 0; i < p->ninputs; i++)
        if (p->inputs[i].buffer) af_buf_printf(b, ", %s", input_name(p, i));
      af_buf_puts(b, "): super().__init__()");
      for (int i = 0; i < p->ninputs; i++)
        if (p->inputs[i].attr) /* a plain tensor attribute (issue 29), not a registered buffer */
          af_buf_printf(b, "; self.%s = %s", input_name(p, i), input_name(p, i));
        else if (p->inputs[i].buffer)
          af_buf_printf(b, "; self.register_%s(\"%s\", %s)", p->train && p->inputs[i].param ? "parameter" : "buffer",
                        input_name(p, i), input_name(p, i));
      af_buf_puts(b, "\n");
    }
    af_buf_printf(b, "    def forward(self%s):\n", params.s ? params.s : "");
  } else {
    af_buf_printf(b, "def f(%s):\n", params.s ? params.s : "");
  }
  int lines = put_body(b, src, ind - 4, &ret);
  if (state) {
    af_buf printed = {0};
    if (p->noutputs > 1) af_buf_printf(&printed, "%.*s, ", (int)strlen(ret) - 2, ret + 1); /* "(a, b)" */
    else if (p->noutputs == 1) af_buf_printf(&printed, "%s, ", ret);
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < p->ninputs; i++)
        if ((!p->inputs[i].buffer) == pass)
          af_buf_printf(&printed, "%s%s.clone(), ", p->inputs[i].buffer ? "self." : "", input_name(p, i));
    if (printed.len >= 2 && p->noutputs + p->ninputs > 1) printed.s[printed.len -= 2] = 0; /* (a,) keeps its comma */
    af_buf_printf(b, "%*sreturn (%s)\n", ind, "", printed.s ? printed.s : "");
    af_buf_free(&printed);
  } else if (p->noutputs > 0) {
    af_buf_printf(b, "%*sreturn %s\n", ind, "", ret);
  } else if (lines == 0) {
    af_buf_printf(b, "%*spass\n", ind, "");
  }
  af_buf_free(&params);
  free(ret);
  free(src);
}

/* ---- the comparison ---- */

/* var[from:to] of a list of total elements, in its shortest spelling. */
static void put_slice(af_buf *b, const char *var, int from, int to, int total) {
  if (from == 0 && to == total) af_buf_puts(b, var);
  else if (from == 0) af_buf_printf(b, "%s[:%d]", var, to);
  else if (to == total) af_buf_printf(b, "%s[%d:]", var, from);
  else af_buf_printf(b, "%s[%d:%d]", var, from, to);
}

typedef struct shape_of_call {
  int nb, np, total; /* buffers, parameters, elements of args() */
  int module, state, nout;
  const ir_program *p;
} shape_of_call;

/* `[<outputs of callee(args)>, <final states>]` for a converter that writes back: its outputs,
 * the buffers as obj's attributes, the parameters and hidden bases as the list var holds them.
 * A program without outputs calls first: `CALL; <target> = [...]`. */
static void put_results(af_buf *b, const shape_of_call *k, const char *target, const char *callee, const char *obj,
                        const char *var) {
  af_buf call = {0};
  af_buf_printf(&call, "%s(*", callee);
  put_slice(&call, var, k->nb, k->nb + k->np, k->total);
  af_buf_puts(&call, ")");
  if (k->nout == 0) af_buf_printf(b, "%s; %s = [", call.s, target);
  else af_buf_printf(b, "%s = [%s%s", target, k->nout > 1 ? "*" : "", call.s);
  int n = k->nout > 0;
  for (int i = 0; i < k->p->ninputs; i++)
    if (k->p->inputs[i].buffer) af_buf_printf(b, "%s%s.%s", n++ ? ", " : "", obj, input_name(k->p, i));
  if (k->total > k->nb) {
    af_buf_printf(b, "%s*", n++ ? ", " : "");
    put_slice(b, var, k->nb, k->total, k->total);
  }
  af_buf_puts(b, "]");
  af_buf_free(&call);
}

/* The api's convert lines with %P, %A, %F and %N filled in. */
static void put_convert(af_buf *b, const snippet_api *api, const shape_of_call *k) {
  for (const char *c = api->convert; *c; c++) {
    if (c[0] != '%' || !c[1]) {
      af_buf_printf(b, "%c", *c);
      continue;
    }
    switch (*++c) {
      case 'P':
        if (!k->module) {
          af_buf_puts(b, "f");
        } else {
          af_buf_puts(b, "M(");
          if (k->nb) {
            af_buf_puts(b, "*");
            put_slice(b, "c", 0, k->nb, k->total);
          }
          af_buf_puts(b, ")");
        }
        break;
      case 'A': put_slice(b, "c", k->nb, k->nb + k->np, k->total); break;
      case 'F': put_slice(b, "args()", k->nb, k->nb + k->np, k->total); break;
      case 'N':
        af_buf_puts(b, "[");
        for (int i = 0, n = 0; i < k->p->ninputs; i++)
          if (!k->p->inputs[i].buffer) af_buf_printf(b, "%s\"%s\"", n++ ? ", " : "", input_name(k->p, i));
        af_buf_puts(b, "]");
        break;
      default: af_buf_printf(b, "%%%c", *c); break;
    }
  }
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* A training program's backward (issue 33, docs/training.md): G, the weighted loss of a call's
 * outputs (the loss weights W) backpropagated, giving the .grad of each leaf of its arguments (an
 * unset one as zeros); one line. */
static void put_backward(af_buf *b, const ir_program *p) {
  af_buf_puts(b, "def G(outs, a, W=[");
  for (int o = 0; o < p->noutputs; o++) {
    if (o) af_buf_puts(b, ", ");
    codec_put_float(b, ir_loss_weight(p, o));
  }
  af_buf_puts(b, "]): l = sum([w * o.sum() for w, o in zip(W, outs) if o.is_floating_point() and o.requires_grad], "
                 "torch.zeros(())); l.requires_grad and l.backward(); return [torch.zeros_like(t) if t.grad is None else "
                 "t.grad for t in [getattr(t, 'leaf', t) for t in a] if t.requires_grad and t.is_leaf]  # loss = sum(W[k] * "
                 "output k .sum()), backward: each leaf's .grad (a base's: the caller's leaf it was cloned from)\n");
}

/* The snippet; compact puts the call that reads the converter's values on the conversion's line. */
/* Whether the snippet judges a refusal by autograd (oracle.h autograd-accepts, autograd-rejects):
 * SN_AG_ACCEPTS, SN_AG_REJECTS or 0. */
enum { SN_AG_ACCEPTS = 1, SN_AG_REJECTS = 2 };
static int autograd_kind(const ir_program *p, const char *verdict) {
  if (!p->train) return 0;
  return !strcmp(verdict, "autograd-accepts") ? SN_AG_ACCEPTS : !strcmp(verdict, "autograd-rejects") ? SN_AG_REJECTS : 0;
}

/* The text of autograd's check (the oracle's table) that a finding's detail quotes, or NULL. */
static const char *autograd_text(const char *detail) {
  const char *t;
  for (int k = 0; detail && (t = oracle_autograd_refusal_text(k, NULL)); k++)
    if (strstr(detail, t)) return t;
  return NULL;
}

/* Python's test that exception x is that refusal (any exception without a text). */
static void put_refusal_test(af_buf *b, const char *text) {
  if (!text) {
    af_buf_puts(b, "True");
    return;
  }
  af_buf_puts(b, "\"");
  for (const char *c = text; *c; c++) af_buf_printf(b, "%s%c", *c == '"' || *c == '\\' ? "\\" : "", *c);
  af_buf_puts(b, "\" in str(x)");
}

static char *snippet(const ir_program *p, const snippet_api *api, const char *converter, const char *verdict,
                     shape_of_call k, int hidden, int layouts, int order1, int compact, const char *ag_text) {
  int crash = strcmp(verdict, "converter-crash") == 0 || strcmp(verdict, "converter-timeout") == 0;
  /* autograd-accepts / -rejects: G first; eager's refusal caught (R), the converter's too, each
     side's backward on its own line */
  int ag = autograd_kind(p, verdict);
  af_buf b = {0};
  af_buf_printf(&b, "import %ssys, torch%s%s  # %s vs eager, PyTorch %.*s (aliasfuzz: %s): "
                    "exits 1 while the bug is there\n",
                crash ? "subprocess, " : "", api->imports ? "; " : "", api->imports ? api->imports : "", converter,
                (int)strspn(at_version(), "0123456789."), at_version(), verdict);
  if (crash)
    af_buf_printf(&b, "if sys.argv[1:] != [\"child\"]: sys.exit(subprocess.run([sys.executable, __file__, \"child\"], "
                      "timeout=300).returncode != 0)  # found as %s: converting in a child\n", verdict);
  size_t before = b.len;
  put_program(&b, p, k.module, k.state);
  int program_lines = count_lines(b.s + before);
  put_args(&b, p, hidden);
  /* any two non-finite values equal, as in the oracle (oracle.h) */
  af_buf_puts(&b, "def same(a, b): return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(*[t.masked_fill("
                  "~(a.isfinite() | b.isfinite()), 0) for t in (a, b)], *TOL.get(a.dtype, (0, 0)))\n"
                  "TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (2e-3, 1e-5), "
                  "torch.bfloat16: (1.6e-2, 1e-5)}  # (rtol, atol) of aliasfuzz's oracle\n");
  if (ag) put_backward(&b, p);
  if (ag == SN_AG_ACCEPTS) af_buf_puts(&b, "try: R = None; ");  /* R: eager's autograd refusal (the finding: the converter runs it) */
  /* eager: the same callable on its own copy of the arguments */
  af_buf_puts(&b, "e = args(); ");
  if (k.module) {
    af_buf_puts(&b, "m = M(");
    if (k.nb) {
      af_buf_puts(&b, "*");
      put_slice(&b, "e", 0, k.nb, k.total);
    }
    af_buf_puts(&b, "); ");
  }
  if (k.state) {
    af_buf_puts(&b, "want = list(m(*");
    put_slice(&b, "e", k.nb, k.nb + k.np, k.total);
    af_buf_puts(&b, "))");
  } else {
    put_results(&b, &k, "want", k.module ? "m" : "f", "m", "e");
  }
  /* a training program with torch.set_grad_enabled: the grad mode each call left is compared too (1. or
     0. after the gradients), read right after the call and put back on for what follows */
  int mode = 0;
  for (int s = 0; p->train && !ag && s < p->nstmts; s++) mode |= p->stmts[s].op == OPS_set_grad_enabled;
  if (ag) af_buf_printf(&b, "; want += G(want[:%d], e)\n", p->noutputs);
  else if (mode) af_buf_puts(&b, "; ME = torch.is_grad_enabled(); torch.set_grad_enabled(True)  # outputs, each input after the call, the grad mode it left\n");
  else af_buf_puts(&b, "  # outputs, then each input after the call\n");
  if (ag == SN_AG_ACCEPTS) af_buf_puts(&b, "except RuntimeError as x: R = x; print(\"eager's autograd refuses it:\", x)\n");
  af_buf outer = b; /* autograd verdicts: the converter's lines are indented under try: */
  if (ag) b = (af_buf){0};
  af_buf_puts(&b, "c = args(); ");
  put_convert(&b, api, &k);
  if (!k.state) {
    if ((api->flags & SN_TWICE) && layouts && !k.nb && !order1) { /* order 2 (judge.h): compiled on separate inputs */
      af_buf_puts(&b, "cf(*[t.clone(memory_format=torch.contiguous_format) for t in ");
      put_slice(&b, "c", k.nb, k.nb + k.np, k.total);
      af_buf_puts(&b, "])  # call 1 (separate inputs) compiles; call 2 reuses it\n");
    }
    if (compact) {
      b.s[--b.len] = 0;
      af_buf_puts(&b, "; ");
    }
    put_results(&b, &k, "got", "cf", "cf", "c");
    af_buf_puts(&b, mode ? "; MC = torch.is_grad_enabled(); torch.set_grad_enabled(True)\n" : "\n");
  }
  if (p->train && !ag) { /* each side's gradients appended to what it compares */
    put_backward(&b, p);
    if (mode)
      af_buf_printf(&b, "want += G(want[:%d], e) + [torch.tensor(float(ME))]; got += G(got[:%d], c) + [torch.tensor(float(MC))]; ",
                    p->noutputs, p->noutputs);
    else
      af_buf_printf(&b, "want += G(want[:%d], e); got += G(got[:%d], c); ", p->noutputs, p->noutputs);
  }
  if (ag) { /* the converter's backward on its got line, the comparison after it, all under try: */
    b.s[--b.len] = 0;
    af_buf_printf(&b, "; got += G(got[:%d], c)\n", p->noutputs);
  }
  /* autograd-accepts: eager's refusal (R) with the converter's run is the bug */
  af_buf_printf(&b, "print(\"eager:\", %s, \"\\n%s:\", got); sys.exit(%s0 if len(want) == len(got) and all(map(same, want, got)) else 1)\n",
                ag == SN_AG_ACCEPTS ? "R or want" : "want", converter, ag == SN_AG_ACCEPTS ? "1 if R else " : "");
  if (ag) {
    af_buf conv = {0};
    size_t first = strcspn(b.s, "\n");
    if (count_lines(b.s) == 2) /* the conversion on one line: the comparison joins it */
      af_buf_printf(&conv, "%.*s; %s", (int)first, b.s, b.s + first + 1);
    else
      af_buf_puts(&conv, b.s);
    af_buf_free(&b);
    b = outer;
    if (count_lines(conv.s) == 1) {
      af_buf_printf(&b, "try: %s", conv.s);
    } else {
      af_buf_puts(&b, "try:\n");
      for (const char *line = conv.s; *line;) {
        size_t n = strcspn(line, "\n");
        af_buf_printf(&b, "    %.*s\n", (int)n, line);
        line += n + (line[n] == '\n');
      }
    }
    af_buf_free(&conv);
    if (ag == SN_AG_ACCEPTS) { /* the converter refusing too: eager and it agree */
      af_buf_printf(&b, "except Exception as x: sys.exit(print(\"%s raised:\", x))\n", converter);
    } else { /* its autograd refusing: the bug */
      af_buf_printf(&b, "except Exception as x: sys.exit(print(\"%s raised:\", x) or int(", converter);
      put_refusal_test(&b, ag_text);
      af_buf_puts(&b, "))  # autograd's refusal, where eager's accepts: the bug\n");
    }
  }
  int lines = count_lines(b.s);
  if (compact && lines > EMIT_SNIPPET_MAX_LINES) { /* say so on the first line, where a reader starts */
    af_buf out = {0};
    size_t first = strcspn(b.s, "\n");
    af_buf_printf(&out, "%.*s; %d lines, over %d: the program alone takes %d%s", (int)first, b.s, lines,
                  EMIT_SNIPPET_MAX_LINES, program_lines, b.s + first);
    af_buf_free(&b);
    return af_buf_take(&out);
  }
  return af_buf_take(&b);
}

char *emit_snippet_py(const ir_program *p, const char *converter, const char *verdict, af_err *err) {
  return emit_snippet_py_order(p, converter, verdict, NULL, err);
}

static char *order_snippet(const ir_program *p, const char *converter, const char *verdict, const char *detail,
                           af_err *err) {
  int order1 = detail && strncmp(detail, "order 1 of 2", 12) == 0;
  int major = stack_major();
  const snippet_api *api = find_api(converter, major);
  const char *why = NULL;
  if (!api) {
    emit_snippet_supported(converter, major, &why);
    af_fail(err, "snippet.py for converter %s (PyTorch %s): %s", converter, at_version(), why);
    return NULL;
  }
  if (p->train && (api->flags & SN_VJP)) {
    af_fail(err, "snippet.py for converter %s: a training program trains through torch.func.vjp(functionalize(program)), "
                 "more than a snippet's backward: repro.py reproduces it", converter);
    return NULL;
  }
  shape_of_call k = {.nb = ir_nbuffers(p), .p = p, .nout = p->noutputs};
  if (k.nb && (api->flags & SN_FUNCTION)) {
    int b = 0;
    while (!p->inputs[b].buffer) b++;
    af_fail(err, "snippet.py for converter %s: its stock API takes a function, and the program has module state "
                 "(self.%s): repro.py reproduces it", converter, input_name(p, b));
    return NULL;
  }
  k.np = p->ninputs - k.nb;
  k.module = (api->flags & SN_MODULE) || k.nb > 0;
  k.state = (api->flags & SN_STATE) != 0;
  int hidden = 0, layouts = 0;
  for (int j = 0; j < p->nbases; j++) hidden += p->bases[j].owner < 0;
  for (int i = 0; i < p->ninputs; i++) layouts |= p->inputs[i].base != 0;
  if (k.state) hidden = 0; /* its values are what the model returns */
  k.total = p->ninputs + hidden;
  const char *ag_text = autograd_text(detail);
  char *s = snippet(p, api, converter, verdict, k, hidden, layouts, order1, 0, ag_text);
  if (count_lines(s) <= EMIT_SNIPPET_MAX_LINES) return s;
  free(s);
  return snippet(p, api, converter, verdict, k, hidden, layouts, order1, 1, ag_text);
}

char *emit_snippet_py_order(const ir_program *p, const char *converter, const char *verdict, const char *detail,
                            af_err *err) {
  if (!p->train || conv_trains(conv_find(converter))) return order_snippet(p, converter, verdict, detail, err);
  ir_program *inference = ir_program_clone(p); /* as the judge gave it (conv_worker.h conv_trains) */
  ir_untrain(inference);
  char *s = order_snippet(inference, converter, verdict, detail, err);
  ir_program_free(inference);
  return s;
}
