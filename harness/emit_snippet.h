/* emit_snippet.h - snippet.py: the finding as an issue-ready Python snippet (issue 26). At most
 * 15 lines of plain Python with the converter's stock public API (torch.compile, torch.export,
 * torch.onnx.export + onnxruntime, torch.func.functionalize + make_fx, torch.jit.script,
 * openvino, TVM Relax): the program as a plain function `f` or an nn.Module `M` (its body is the
 * emitter's, emit.h), the inputs as literals (`args()`; inputs that view one storage as
 * `base.as_strided(...)` of it), eager's and the converter's values printed, compared with the
 * oracle's tolerance for the dtype (oracle/oracle.h), exit 1 while they differ or the conversion
 * raises, 0 once fixed. A crash or timeout finding runs the conversion in a child (the snippet
 * again) and exits 1 when the child dies or fails.
 *
 * What is compared: the program's outputs, then each input's state after the call (a converter
 * that writes back into its arguments: torch.compile, torch.export's module(), functionalize,
 * TorchScript; a module buffer as the module's attribute; a hidden base the caller owns), or,
 * for a converter whose model cannot write its arguments (ONNX, TVM, OpenVINO), the outputs
 * followed by each input's final state that the program returns as extra outputs, as the
 * workers convert it. How each converter is called lives in one table in emit_snippet.c.
 *
 * A training program (issue 33, docs/training.md) on a converter that trains (conv_trains): the
 * inputs that require grad are leaves (`.requires_grad_()`, parameters `torch.nn.Parameter`), and
 * after each side's call the weighted loss is backpropagated and every .grad compared too; on one
 * that does not, the snippet is of the program's inference form, as the judge gave it. */
#ifndef EMIT_SNIPPET_H
#define EMIT_SNIPPET_H

#include "ir.h"

#define EMIT_SNIPPET_MAX_LINES 15

/* 1 when converter (a name, conv.h) has a stock Python API for this stack (PyTorch major
 * version stack_major: 1 or 2) that a snippet calls; else 0 and *why (static) says why not. */
int emit_snippet_supported(const char *converter, int stack_major, const char **why);

/* snippet.py for program p found as verdict (oracle.h's name) on converter, for the stack of this
 * build (at_version()). new, free with free(); NULL with err when the converter has no stock API
 * (emit_snippet_supported) or p cannot be shown (module state on a converter that takes only a
 * function). */
char *emit_snippet_py(const ir_program *p, const char *converter, const char *verdict, af_err *err);
/* The same for a finding whose detail (may be NULL) says its calling order (judge.h: "order 1 of 2,
 * ..."): for a caching converter and a program with input layouts, the snippet makes that order's
 * calls (order 1: compiled on the laid-out inputs, one call; otherwise order 2: a call on separate
 * contiguous copies compiles, the call on the laid-out inputs reuses it), as repro.py checks. */
char *emit_snippet_py_order(const ir_program *p, const char *converter, const char *verdict, const char *detail,
                            af_err *err);

/* The method names (TorchScript's `x.NAME(...)`) that Python's torch.Tensor lacks, which a snippet
 * spells `torch.ops.aten.NAME(x, ...)`; NULL-terminated, borrowed. A test checks the list against
 * the op table and the stack's PyTorch. */
const char *const *emit_snippet_aten_only(void);
/* The imports of entry i of the stock-API table (what a snippet joins to its first line's
 * `import sys, torch`; "" for an entry without any), NULL past the last entry: a test checks
 * that snippets import nothing else. */
const char *emit_snippet_imports(int i);

#endif
