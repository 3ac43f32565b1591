// passes.cpp - the TorchScript remove-mutation passes and ATen functionalization behind passes.h.
// Every entry point's body sits in AT_GUARD (shim_impl.hpp): no exception crosses into C.
#include "passes.h"

#include <ATen/FunctionalTensorWrapper.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/passes/remove_mutation.h>

#include <cstring>

#include "shim_impl.hpp"

struct passes_jit {
  std::unique_ptr<at_script> s; // the compiled program (and its module, for module state)
  std::shared_ptr<torch::jit::Graph> graph;
  std::unique_ptr<torch::jit::GraphFunction> fn;
};

// The function's results as tensors: a tuple becomes its elements, None none.
static void take_outputs(std::vector<c10::IValue> &stack, int max_out, af_tensor **outputs, int *noutputs,
                         const std::function<at::Tensor(const at::Tensor &)> &unwrap) {
  std::vector<at::Tensor> ts;
  for (auto &v : stack) {
    if (v.isTensor()) {
      ts.push_back(v.toTensor());
    } else if (v.isTuple()) {
      for (auto &e : v.toTupleRef().elements()) {
        if (!e.isTensor()) throw std::runtime_error("result tuple holds a " + e.tagKind() + ", not a tensor");
        ts.push_back(e.toTensor());
      }
    } else if (!v.isNone()) {
      throw std::runtime_error("result is a " + v.tagKind() + ", not a tensor");
    }
  }
  if ((int)ts.size() > max_out) throw std::runtime_error("more than " + std::to_string(max_out) + " outputs");
  std::vector<at::Tensor> out;
  for (auto &t : ts) out.push_back(unwrap(t)); // may throw: nothing handed out yet
  for (size_t k = 0; k < out.size(); k++) outputs[k] = new af_tensor{out[k]};
  *noutputs = (int)out.size();
}

extern "C" int passes_jit_new(at_script *s, passes_jit **out, af_err *err) {
  *out = nullptr;
  auto j = std::make_unique<passes_jit>();
  j->s.reset(s);
  AT_GUARD(err, {
    j->graph = torch::jit::toGraphFunction(*s->fn).graph()->copy();
    torch::jit::RemoveListMutation(j->graph);
    torch::jit::RemoveTensorMutation(j->graph);
    j->fn = std::make_unique<torch::jit::GraphFunction>(s->fn->name() + "_nomutation", j->graph, nullptr);
    *out = j.release();
    return 0;
  })
}

extern "C" void passes_jit_free(passes_jit *j) { delete j; }

extern "C" char *passes_jit_graph(const passes_jit *j) {
  try {
    return strdup(j->graph->toString().c_str());
  } catch (...) {
    return strdup("<graph unavailable>");
  }
}

// Whether node n writes into one of its tensor arguments (its schema says so).
static bool writes_tensor(const torch::jit::Node *n) {
  const c10::FunctionSchema *schema = n->maybeSchema();
  if (!schema) return false;
  for (const auto &a : schema->arguments()) {
    if (!a.alias_info() || !a.alias_info()->isWrite()) continue;
    auto t = a.type();
    if (t->kind() == c10::TypeKind::OptionalType) t = t->castRaw<c10::OptionalType>()->getElementType();
    if (t->kind() == c10::TypeKind::TensorType) return true;
  }
  return false;
}

static int count_writes(const torch::jit::Block *b) {
  int n = 0;
  for (const torch::jit::Node *node : b->nodes()) {
    n += writes_tensor(node);
    for (const torch::jit::Block *sub : node->blocks()) n += count_writes(sub);
  }
  return n;
}

extern "C" int passes_jit_residual(const passes_jit *j) {
  try {
    return count_writes(j->graph->block());
  } catch (...) {
    return -1;
  }
}

extern "C" int passes_jit_run(passes_jit *j, int ninputs, af_tensor *const *inputs, int max_out, af_tensor **outputs,
                              int *noutputs, af_err *err) {
  *noutputs = 0;
  AT_GUARD(err, {
    std::vector<at::Tensor> in;
    for (int i = 0; i < ninputs; i++) in.push_back(inputs[i]->t);
    std::vector<c10::IValue> stack = script_stack(j->s.get(), in);
    j->fn->run(stack);
    for (auto &b : script_buffers(j->s.get())) stack.emplace_back(b); // module state: buffers last
    take_outputs(stack, max_out, outputs, noutputs, [](const at::Tensor &t) { return t; });
    return 0;
  })
}

static std::string shape_str(at::IntArrayRef s) {
  std::string r = "[";
  for (size_t k = 0; k < s.size(); k++) r += (k ? ", " : "") + std::to_string(s[k]);
  return r + "]";
}

extern "C" int passes_functionalize_run(at_script *s, int reapply_views, int ninputs, af_tensor *const *inputs,
                                        int max_out, af_tensor **outputs, int *noutputs, af_err *err) {
  namespace fimpl = at::functionalization::impl;
  *noutputs = 0;
  AT_GUARD(err, {
    std::vector<at::Tensor> wrapped;
    for (int i = 0; i < ninputs; i++) wrapped.push_back(fimpl::to_functional_tensor(inputs[i]->t));
    std::vector<c10::IValue> stack = script_stack(s, wrapped); // buffers: wrapped too
    {
      c10::impl::IncludeDispatchKeyGuard functionalize(c10::DispatchKey::Functionalize);
      fimpl::FunctionalizationReapplyViewsGuard views(reapply_views != 0);
      s->fn->run(stack);
    }
    for (auto &b : script_buffers(s)) stack.emplace_back(b); // module state: the buffers come last
    // Input mutations first (functorch syncs every input, then propagates), then outputs.
    std::vector<at::Tensor> updates(ninputs);
    for (int i = 0; i < ninputs; i++) {
      fimpl::sync(wrapped[i]);
      at::Tensor now = fimpl::from_functional_tensor(wrapped[i]);
      const at::Tensor &was = inputs[i]->t;
      if (now.unsafeGetTensorImpl() == was.unsafeGetTensorImpl()) continue;
      if (now.numel() != was.numel()) {
        af_fail(err,
                "harness limit: input %d changed its number of elements (shape %s to %s): aliasfuzz does not hand a resize back "
                "to the caller",
                i, shape_str(was.sizes()).c_str(), shape_str(now.sizes()).c_str());
        return 1;
      }
      updates[i] = now;
    }
    take_outputs(stack, max_out, outputs, noutputs, [](const at::Tensor &t) {
      if (!fimpl::isFunctionalTensor(t)) return t;
      fimpl::sync(t);
      return fimpl::from_functional_tensor(t);
    });
    // functorch's _propagate_functional_input_mutation: a metadata change (unsqueeze_,
    // transpose_ on an input) reaches the caller through as_strided_, the values through copy_
    for (int i = 0; i < ninputs; i++)
      if (updates[i].defined()) {
        at::Tensor &in = inputs[i]->t;
        if (in.sizes() != updates[i].sizes()) in.as_strided_(updates[i].sizes(), updates[i].strides());
        in.copy_(updates[i]);
      }
    return 0;
  })
}
