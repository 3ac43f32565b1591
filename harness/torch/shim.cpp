// shim.cpp - LibTorch behind shim.h. Every entry point's body sits in AT_GUARD, which turns any
// C++ exception into -1 plus a message: nothing is thrown across the C boundary.
#include "shim.h"

#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/sugared_value.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/jit.h>
#include <torch/script.h>
#include <torch/version.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "shim_impl.hpp" /* struct af_tensor, struct at_script, AT_GUARD (shared with passes.cpp) */

static const at::ScalarType kTypes[AF_DTYPE_COUNT] = {at::kFloat, at::kDouble, at::kLong, at::kBool,    at::kInt,
                                                      at::kChar,  at::kByte,   at::kHalf, at::kBFloat16,
                                                      at::kComplexFloat, at::kComplexDouble};

// LibTorch's warnings (deprecated out= resizing and the like) are about programs eager accepts;
// printed from every job they would drown the progress line. Set AF_TORCH_WARNINGS=1 to see them.
namespace {
// The handler's interface changed after 1.13 (one c10::Warning argument; the setter moved to
// c10::WarningUtils): one of the version differences kept inside harness/torch/.
struct QuietWarnings : c10::WarningHandler {
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning &) override {}
#else
  void process(const c10::SourceLocation &, const std::string &, const bool) override {}
#endif
};
void set_quiet(c10::WarningHandler *h) {
#if TORCH_VERSION_MAJOR >= 2
  c10::WarningUtils::set_warning_handler(h);
#else
  c10::Warning::set_warning_handler(h);
#endif
}
}  // namespace

extern "C" void at_init(void) {
  static std::once_flag once;
  std::call_once(once, [] {
    static QuietWarnings quiet;
    const char *w = std::getenv("AF_TORCH_WARNINGS");
    if (!w || std::strcmp(w, "1") != 0) set_quiet(&quiet);
    at::set_num_threads(1);
    try {
      at::set_num_interop_threads(1);
    } catch (...) {
    }
  });
}

extern "C" const char *at_version(void) { return TORCH_VERSION; }

#define AT_STR2(x) #x
#define AT_STR(x) AT_STR2(x)
extern "C" const char *at_stack(void) { return "torch-" AT_STR(TORCH_VERSION_MAJOR) "." AT_STR(TORCH_VERSION_MINOR); }
extern "C" const char *at_stack_origin(void) {
#ifdef AF_STACK_ORIGIN
  return AF_STACK_ORIGIN;
#else
  return "unknown";
#endif
}
extern "C" const char *at_stack_python(void) {
#ifdef AF_STACK_PYTHON
  return AF_STACK_PYTHON;
#else
  return "python3";
#endif
}

extern "C" int at_tensor_new(af_dtype dt, int rank, const int64_t *shape, const double *values, af_tensor **out, af_err *err) {
  *out = nullptr;
  AT_GUARD(err, {
    std::vector<int64_t> sz(shape, shape + rank);
    at::Tensor d = at::empty(sz, at::kDouble);
    int64_t n = d.numel();
    if (n) std::memcpy(d.data_ptr<double>(), values, sizeof(double) * (size_t)n);
    *out = new af_tensor{d.to(kTypes[dt])};
    return 0;
  })
}

extern "C" af_tensor *at_tensor_ref(const af_tensor *t) { return new af_tensor{t->t}; }
// at_graph_begin's scope: its depth and the grad_fn nodes of the tensors freed inside it, held
// until at_graph_end. grad_fn_unsafe reads a tensor's node as it is: grad_fn() would regenerate a
// view's after an in-place write, which changes what the rest of the run sees of it (is_leaf).
// A node handle is a std::shared_ptr in 1.13, a c10::intrusive_ptr in 2.x.
#if TORCH_VERSION_MAJOR >= 2
using NodeRef = c10::intrusive_ptr<torch::autograd::Node>;
static NodeRef node_ref(torch::autograd::Node *n) { return NodeRef::reclaim_copy(n); }
#else
using NodeRef = std::shared_ptr<torch::autograd::Node>;
static NodeRef node_ref(torch::autograd::Node *n) { return n->shared_from_this(); }
#endif
static thread_local int graph_depth = 0;
static thread_local std::vector<NodeRef> graph_noted;
extern "C" void at_tensor_free(af_tensor *t) {
  if (t && graph_depth > 0 && t->t.defined() && t->t.requires_grad())
    if (torch::autograd::Node *n = torch::autograd::impl::grad_fn_unsafe(t->t)) graph_noted.push_back(node_ref(n));
  delete t;
}
extern "C" void at_graph_begin(void) { graph_depth++; }
extern "C" void at_graph_end(void) {
  if (graph_depth == 0 || --graph_depth > 0) return;
  std::vector<NodeRef> todo;
  todo.swap(graph_noted);
  std::unordered_set<torch::autograd::Node *> seen;
  while (!todo.empty()) {
    NodeRef n = std::move(todo.back());
    todo.pop_back();
    if (!n || !seen.insert(n.get()).second) continue;
    for (const auto &e : n->next_edges())
      if (e.function) todo.push_back(e.function);
    n->release_variables();
  }
}
extern "C" int at_tensor_rank(const af_tensor *t) { return (int)t->t.dim(); }
extern "C" void at_tensor_shape(const af_tensor *t, int64_t *shape) {
  for (int64_t d = 0; d < t->t.dim(); d++) shape[d] = t->t.size(d);
}
extern "C" int64_t at_tensor_numel(const af_tensor *t) { return t->t.numel(); }
extern "C" int at_tensor_dtype(const af_tensor *t) {
  for (int i = 0; i < AF_DTYPE_COUNT; i++)
    if (t->t.scalar_type() == kTypes[i]) return i;
  return -1;
}
extern "C" int at_tensor_values(const af_tensor *t, double *out, af_err *err) {
  AT_GUARD(err, {
    if (t->t.is_complex()) /* would drop the imaginary parts: complex values never leave a program */
      return af_fail(err, "at_tensor_values: a %s tensor has no values as doubles (torch.view_as_real gives them)",
                     af_dtype_name((af_dtype)at_tensor_dtype(t)));
    at::Tensor d = t->t.to(at::kDouble).contiguous();
    if (d.numel()) std::memcpy(out, d.data_ptr<double>(), sizeof(double) * (size_t)d.numel());
    return 0;
  })
}
extern "C" int at_tensor_from_bytes(af_dtype dt, int rank, const int64_t *shape, const void *data, size_t nbytes,
                                    af_tensor **out, af_err *err) {
  *out = nullptr;
  AT_GUARD(err, {
    if ((int)dt < 0 || dt >= AF_DTYPE_COUNT) return af_fail(err, "at_tensor_from_bytes: unknown dtype %d", (int)dt);
    std::vector<int64_t> sz(shape, shape + rank);
    at::Tensor t = at::empty(sz, kTypes[dt]);
    size_t want = (size_t)t.numel() * t.element_size();
    if (want != nbytes)
      return af_fail(err, "at_tensor_from_bytes: %zu bytes for %lld %s elements (%zu expected)", nbytes,
                     (long long)t.numel(), af_dtype_name(dt), want);
    if (want) std::memcpy(t.data_ptr(), data, want);
    *out = new af_tensor{t};
    return 0;
  })
}

extern "C" int at_tensor_bytes(const af_tensor *t, void *out, size_t nbytes, af_err *err) {
  AT_GUARD(err, {
    if (at_tensor_dtype(t) < 0) return af_fail(err, "at_tensor_bytes: dtype %s is not modelled", c10::toString(t->t.scalar_type()));
    at::Tensor c = t->t.contiguous();
    size_t want = (size_t)c.numel() * c.element_size();
    if (want != nbytes) return af_fail(err, "at_tensor_bytes: buffer of %zu bytes for %zu bytes of data", nbytes, want);
    if (want) std::memcpy(out, c.data_ptr(), want);
    return 0;
  })
}

extern "C" int at_tensor_shares_storage(const af_tensor *a, const af_tensor *b) { return a->t.is_alias_of(b->t); }
extern "C" void at_tensor_strides(const af_tensor *t, int64_t *strides) {
  for (int64_t d = 0; d < t->t.dim(); d++) strides[d] = t->t.stride(d);
}
extern "C" int64_t at_tensor_storage_offset(const af_tensor *t) { return t->t.storage_offset(); }
extern "C" int64_t at_tensor_storage_numel(const af_tensor *t) {
  if (!t->t.has_storage() || t->t.element_size() == 0) return 0;
  return (int64_t)(t->t.storage().nbytes() / t->t.element_size());
}
extern "C" int at_tensor_same(const af_tensor *a, const af_tensor *b) { return a->t.is_same(b->t); }
extern "C" int at_tensor_nonfinite(const af_tensor *t) {
  if (!t->t.defined() || !(t->t.is_floating_point() || t->t.is_complex()) || t->t.numel() == 0) return 0;
  try {
    at::NoGradGuard ng;
    return at::isfinite(t->t).all().item<bool>() ? 0 : 1;
  } catch (const std::exception &) {
    return 0; /* a tensor isfinite cannot read has no values the oracle compares either */
  }
}

extern "C" int at_tensor_set_requires_grad(af_tensor *t, int on, af_err *err) {
  AT_GUARD(err, {
    t->t.requires_grad_(on != 0);
    return 0;
  })
}
extern "C" int at_tensor_requires_grad(const af_tensor *t) { return t->t.requires_grad(); }
extern "C" int at_tensor_is_leaf(const af_tensor *t) { return t->t.is_leaf(); }
extern "C" int at_tensor_grad_leaf_write(const af_tensor *t) {
  const at::Tensor &x = t->t;
  if (!x.requires_grad()) return 0;
  if (x.is_view()) { /* a view made under no_grad has no grad_fn: is_leaf() says true of it too */
    auto *vm = torch::autograd::impl::get_view_autograd_meta(x);
    if (vm && vm->has_bw_view() && vm->get_creation_meta() == torch::autograd::CreationMeta::NO_GRAD_MODE) return 2;
    return x.is_leaf() || (x._base().is_leaf() && x._base().requires_grad());
  }
  return x.is_leaf();
}
extern "C" af_tensor *at_tensor_grad(const af_tensor *t) {
  at::Tensor g = t->t.grad();
  return g.defined() ? new af_tensor{g} : nullptr;
}
extern "C" int at_backward(int n, af_tensor *const *outs, const double *weights, int *ran, af_err *err) {
  *ran = 0;
  AT_GUARD(err, {
    at::Tensor loss;
    for (int k = 0; k < n; k++) {
      const at::Tensor &o = outs[k]->t;
      if (!o.is_floating_point() || !o.requires_grad()) continue;
      at::Tensor term = o.sum() * weights[k];
      loss = loss.defined() ? loss + term : term;
    }
    if (!loss.defined()) return 0;
    loss.backward();
    *ran = 1;
    return 0;
  })
}
extern "C" int at_grad_enabled(void) { return c10::GradMode::is_enabled(); }
extern "C" int at_grad_mode(int on) {
  int was = c10::GradMode::is_enabled();
  c10::GradMode::set_enabled(on != 0);
  return was;
}

// Converts one C argument to the IValue the schema's type asks for.
static c10::IValue to_ivalue(const at_arg &a, const c10::TypePtr &type, const std::string &argname) {
  using K = c10::TypeKind;
  if (type->kind() == K::OptionalType) {
    if (a.kind == AT_ARG_NONE) return c10::IValue();
    return to_ivalue(a, type->castRaw<c10::OptionalType>()->getElementType(), argname);
  }
  auto bad = [&]() -> c10::IValue {
    throw std::runtime_error("argument '" + argname + "': got the wrong kind of value for type " + type->str());
  };
  switch (type->kind()) {
    case K::TensorType:
      if (a.kind != AT_ARG_TENSOR) return bad();
      return a.t->t;
    case K::IntType:
      // the schema's ScalarType arguments (to.dtype's dtype) have type int in the type system
      if (a.kind == AT_ARG_DTYPE && a.i >= 0 && a.i < AF_DTYPE_COUNT) return c10::IValue((int64_t)kTypes[a.i]);
      [[fallthrough]];
    case K::SymIntType:
      if (a.kind != AT_ARG_INT) return bad();
      return a.i;
    case K::FloatType:
      if (a.kind == AT_ARG_INT) return (double)a.i;
      if (a.kind != AT_ARG_FLOAT) return bad();
      return a.f;
    case K::BoolType:
      if (a.kind != AT_ARG_BOOL) return bad();
      return (bool)a.i;
    case K::StringType:
      if (a.kind != AT_ARG_STR || !a.s) return bad();
      return c10::IValue(std::string(a.s));
    case K::ScalarTypeType:
      if (a.kind != AT_ARG_DTYPE || a.i < 0 || a.i >= AF_DTYPE_COUNT) return bad();
      return c10::IValue((int64_t)kTypes[a.i]);
    case K::NumberType:
      if (a.kind == AT_ARG_INT) return a.i;
      if (a.kind == AT_ARG_FLOAT) return a.f;
      if (a.kind == AT_ARG_BOOL) return (bool)a.i;
      return bad();
    case K::ListType: {
      auto elem = type->castRaw<c10::ListType>()->getElementType();
      if (elem->kind() == K::IntType || elem->kind() == K::SymIntType) {
        if (a.kind != AT_ARG_INTS) return bad();
        return std::vector<int64_t>(a.ints, a.ints + a.n);
      }
      if (a.kind != AT_ARG_TENSORS) return bad();
      if (elem->kind() == K::TensorType) {
        c10::List<at::Tensor> l;
        for (int k = 0; k < a.n; k++) l.push_back(a.tensors[k]->t);
        return l;
      }
      if (elem->kind() == K::OptionalType) {
        c10::List<c10::optional<at::Tensor>> l;
        for (int k = 0; k < a.n; k++) l.push_back(a.tensors[k] ? c10::optional<at::Tensor>(a.tensors[k]->t) : c10::nullopt);
        return l;
      }
      return bad();
    }
    default:
      return bad();
  }
}

static int collect_results(std::vector<c10::IValue> &stack, int max_results, af_tensor **results, int *nresults) {
  int n = 0;
  for (auto &v : stack) {
    if (v.isTensor()) {
      if (n < max_results) results[n] = new af_tensor{v.toTensor()};
      n++;
    } else if (v.isTensorList()) {
      for (const at::Tensor &t : v.toTensorVector()) {
        if (n < max_results) results[n] = new af_tensor{t};
        n++;
      }
    } else if (v.isTuple()) {
      for (auto &e : v.toTupleRef().elements()) {
        if (!e.isTensor()) throw std::runtime_error("result tuple holds a " + e.tagKind() + ", not a tensor");
        if (n < max_results) results[n] = new af_tensor{e.toTensor()};
        n++;
      }
    } else if (!v.isNone()) {
      throw std::runtime_error("result is a " + v.tagKind() + ", not a tensor");
    }
  }
  if (n > max_results) {
    for (int k = 0; k < max_results; k++) delete results[k];
    throw std::runtime_error("op returned " + std::to_string(n) + " tensors, more than " + std::to_string(max_results));
  }
  *nresults = n;
  return 0;
}

extern "C" int at_call(const char *name, const char *overload, int nargs, const at_arg *args, const af_tensor *out,
                       int max_results, af_tensor **results, int *nresults, af_err *err) {
  *nresults = 0;
  AT_GUARD(err, {
    auto op = c10::Dispatcher::singleton().findSchema({name, overload ? overload : ""});
    if (!op) return af_fail(err, "no ATen op %s%s%s", name, overload && *overload ? "." : "", overload ? overload : "");
    const auto &schema = op->schema();
    std::vector<c10::IValue> stack;
    int next = 0;
    for (const auto &sa : schema.arguments()) {
      bool is_out = sa.alias_info() && sa.alias_info()->isWrite() && sa.kwarg_only();
      if (is_out) {
        if (!out) return af_fail(err, "%s.%s: needs an out= tensor", name, overload);
        stack.emplace_back(out->t);
      } else if (next < nargs) {
        stack.push_back(to_ivalue(args[next++], sa.type(), sa.name()));
      } else if (sa.default_value()) {
        stack.push_back(*sa.default_value());
      } else {
        return af_fail(err, "%s: missing argument '%s'", name, sa.name().c_str());
      }
    }
    if (next < nargs) return af_fail(err, "%s: %d arguments given, the schema takes %d", name, nargs, next);
    op->callBoxed(&stack);
    return collect_results(stack, max_results, results, nresults);
  })
}

// torch::jit::compile's resolver makes `torch` the aten builtins only, so a dtype argument
// (`x.to(torch.int32)`) is "builtin cannot be used as a value" there, where Python's TorchScript
// (and Python) take it. This resolver gives `torch.<dtype>` of the dtypes the IR models the int
// constant Python's TorchScript gives it, and leaves every other name as the native one does.
//
// It has no Python either, so `torch.nn.functional.relu(x, inplace=True)` (a Python function, which
// Python's TorchScript compiles and inlines: its body calls torch.relu_ when inplace is True) is
// "attribute lookup is not defined on builtin" there. `torch.nn.functional.NAME(args...,
// inplace=True)` resolves here to aten::NAME_ with the other arguments, the call Python's
// TorchScript leaves after inlining (the table's F_*_ ops, each with that aten op on its line);
// any other use of torch.nn is the error it was.
namespace {
struct FunctionalInplace : torch::jit::SugaredValue {
  explicit FunctionalInplace(std::string name) : name_(std::move(name)) {}
  std::string kind() const override { return "torch.nn.functional." + name_; }
  std::shared_ptr<torch::jit::SugaredValue> call(const torch::jit::SourceRange &loc, torch::jit::GraphFunction &m,
                                                 at::ArrayRef<torch::jit::NamedValue> args,
                                                 at::ArrayRef<torch::jit::NamedValue> kwargs, size_t n_binders) override {
    std::vector<torch::jit::NamedValue> rest;
    bool inplace = false;
    for (const auto &kw : kwargs) {
      if (kw.name() != "inplace") {
        rest.push_back(kw);
        continue;
      }
      auto iv = torch::jit::toIValue(kw.value(*m.graph()));
      inplace = iv && iv->isBool() && iv->toBool();
    }
    if (!inplace)
      throw torch::jit::ErrorReport(loc) << "aliasfuzz's C++ TorchScript resolver takes torch.nn.functional." << name_
                                         << " only with inplace=True";
    return std::make_shared<torch::jit::BuiltinFunction>(c10::Symbol::aten(name_ + "_"), c10::nullopt)
        ->call(loc, m, args, rest, n_binders);
  }
  std::string name_;
};
struct NnFunctional : torch::jit::SugaredValue {
  std::string kind() const override { return "torch.nn.functional"; }
  std::shared_ptr<torch::jit::SugaredValue> attr(const torch::jit::SourceRange &, torch::jit::GraphFunction &,
                                                 const std::string &field) override {
    return std::make_shared<FunctionalInplace>(field);
  }
};
struct Nn : torch::jit::SugaredValue {
  std::string kind() const override { return "torch.nn"; }
  std::shared_ptr<torch::jit::SugaredValue> attr(const torch::jit::SourceRange &loc, torch::jit::GraphFunction &m,
                                                 const std::string &field) override {
    if (field == "functional") return std::make_shared<NnFunctional>();
    return SugaredValue::attr(loc, m, field);
  }
};
struct TorchWithDtypes : torch::jit::BuiltinModule {
  TorchWithDtypes() : BuiltinModule("aten") {}
  std::shared_ptr<torch::jit::SugaredValue> attr(const torch::jit::SourceRange &loc, torch::jit::GraphFunction &m,
                                                 const std::string &field) override {
    for (int i = 0; i < AF_DTYPE_COUNT; i++)
      if (field == af_dtype_name((af_dtype)i))
        return std::make_shared<torch::jit::SimpleValue>(m.graph()->insertConstant((int64_t)kTypes[i], loc));
    if (field == "nn") return std::make_shared<Nn>();
    return BuiltinModule::attr(loc, m, field);
  }
};
struct DtypeResolver : torch::jit::NativeResolver {
  std::shared_ptr<torch::jit::SugaredValue> resolveValue(const std::string &name, torch::jit::GraphFunction &m,
                                                         const torch::jit::SourceRange &loc) override {
    if (name == "torch") return std::make_shared<TorchWithDtypes>();
    return NativeResolver::resolveValue(name, m, loc);
  }
};
} // namespace

extern "C" int at_script_compile(const char *source, const char *fn, at_script **out, af_err *err) {
  *out = nullptr;
  AT_GUARD(err, {
    auto cu = std::make_shared<torch::jit::CompilationUnit>();
    cu->define({}, source, std::make_shared<DtypeResolver>(), nullptr);
    auto *f = &cu->get_function(fn);
    *out = new at_script{cu, f};
    return 0;
  })
}

extern "C" int at_script_compile_module(const char *source, int nbuf, const char *const *names, const int *positions,
                                        const int *attrs, at_script **out, af_err *err) {
  *out = nullptr;
  AT_GUARD(err, {
    auto m = std::make_shared<torch::jit::Module>("aliasfuzz.Program");
    std::vector<std::string> bufs;
    std::vector<int> pos;
    for (int k = 0; k < nbuf; k++) {
      if (attrs && attrs[k]) // a plain tensor attribute (issue 29): `self.NAME = tensor`, no buffer
        m->register_attribute(names[k], c10::TensorType::get(), at::empty({0}), false, false);
      else
        m->register_buffer(names[k], at::empty({0})); // the type; run sets the tensor
      bufs.emplace_back(names[k]);
      pos.push_back(positions[k]);
    }
    m->define(source, std::make_shared<DtypeResolver>());
    auto *f = &m->get_method("forward").function();
    *out = new at_script{nullptr, f, m, bufs, pos};
    return 0;
  })
}

extern "C" int at_script_nbuffers(const at_script *s) { return (int)s->bufs.size(); }

extern "C" void at_script_free(at_script *s) { delete s; }

extern "C" int at_script_run(at_script *s, int ninputs, af_tensor *const *inputs, int max_out, af_tensor **outputs,
                             int *noutputs, af_err *err) {
  *noutputs = 0;
  AT_GUARD(err, {
    std::vector<at::Tensor> in;
    for (int i = 0; i < ninputs; i++) in.push_back(inputs[i]->t);
    std::vector<c10::IValue> stack = script_stack(s, in);
    s->fn->run(stack);
    for (auto &b : script_buffers(s)) stack.emplace_back(b); // module state: the buffers come last
    return collect_results(stack, max_out, outputs, noutputs);
  })
}

extern "C" char *at_script_graph(const at_script *s) {
  try {
    auto *gf = dynamic_cast<torch::jit::GraphFunction *>(s->fn);
    std::string g = gf ? gf->graph()->toString() : std::string("<no graph>");
    return strdup(g.c_str());
  } catch (...) {
    return strdup("<graph unavailable>");
  }
}
