// shim_impl.hpp - what the C++ files behind shim.h share (shim.cpp, passes.cpp): the insides of
// the opaque handles and the AT_GUARD macro. C++ only; C code never sees this header.
#ifndef SHIM_IMPL_HPP
#define SHIM_IMPL_HPP

#include <torch/jit.h>
#include <torch/script.h>

#include <string>

#include "shim.h"

struct af_tensor {
  at::Tensor t;
};
struct at_script {
  std::shared_ptr<torch::jit::CompilationUnit> cu;
  torch::jit::Function *fn;
  // module state: fn is the forward of mod, whose buffers bufs[k] are the program's inputs pos[k]
  std::shared_ptr<torch::jit::Module> mod;
  std::vector<std::string> bufs;
  std::vector<int> pos;
};

// The call stack for s on the program's inputs (all of them, in order): a function takes them as
// they are; a module gets its buffers set to their inputs, and forward takes self and the rest.
static inline std::vector<c10::IValue> script_stack(at_script *s, const std::vector<at::Tensor> &in) {
  std::vector<c10::IValue> st;
  std::vector<char> is_buf(in.size(), 0);
  if (s->mod) {
    for (size_t k = 0; k < s->bufs.size(); k++) {
      s->mod->setattr(s->bufs[k], in.at((size_t)s->pos[k]));
      is_buf.at((size_t)s->pos[k]) = 1;
    }
    st.emplace_back(s->mod->_ivalue());
  }
  for (size_t i = 0; i < in.size(); i++)
    if (!is_buf[i]) st.emplace_back(in[i]);
  return st;
}

// The final value of each buffer after a run (what `self.NAME` is bound to), in buffer order.
static inline std::vector<at::Tensor> script_buffers(at_script *s) {
  std::vector<at::Tensor> out;
  if (s->mod)
    for (const auto &b : s->bufs) out.push_back(s->mod->attr(b).toTensor());
  return out;
}

// LibTorch messages can span many lines (TorchScript adds source context); keep them whole but
// bounded, since they end up in reports.
static inline std::string first_line(const std::string &s) { return s.size() > 900 ? s.substr(0, 900) + "..." : s; }

// Wraps an entry point's body: any C++ exception becomes -1 plus a message in err.
#define AT_GUARD(err, ...)                                                    \
  try {                                                                        \
    __VA_ARGS__                                                                \
  } catch (const c10::Error &e) {                                              \
    return af_fail(err, "%s", first_line(e.what_without_backtrace()).c_str()); \
  } catch (const std::exception &e) {                                          \
    return af_fail(err, "%s", first_line(e.what()).c_str());                   \
  } catch (...) {                                                              \
    return af_fail(err, "unknown C++ exception");                              \
  }

#endif
