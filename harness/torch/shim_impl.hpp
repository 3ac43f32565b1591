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
};

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
