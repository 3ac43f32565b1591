/* passes.h - LibTorch's own functionalizers behind a plain C face: the TorchScript remove-mutation
 * passes (the `jit` converter) and ATen functionalization (the `functionalize` converter). Same
 * rules as shim.h: opaque handles, no exception crosses, 0 or -1 with LibTorch's message. */
#ifndef PASSES_H
#define PASSES_H

#include "shim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- TorchScript: RemoveListMutation + RemoveTensorMutation ---- */

typedef struct passes_jit passes_jit;

/* Copies the graph of s's function (a module's forward for module state) and runs
 * torch::jit::RemoveListMutation and RemoveTensorMutation on the copy (what
 * torch._C._jit_pass_remove_mutation does). Takes s, also on failure. new, free with
 * passes_jit_free. Runs as at_script_run does (module state: buffers after the outputs). */
int passes_jit_new(at_script *s, passes_jit **out, af_err *err);
void passes_jit_free(passes_jit *j);
/* The converted graph as text. new, free with free(). */
char *passes_jit_graph(const passes_jit *j);
/* Nodes of the converted graph (sub-blocks included) that still write into a tensor argument:
 * in-place ops (aten::add_, aten::copy_, aten::index_put_, ...) and out= forms. */
int passes_jit_residual(const passes_jit *j);
/* Runs the converted graph with the TorchScript interpreter (a GraphFunction over it). inputs are
 * passed by reference: in-place ops left in the graph change them. Outputs as at_script_run. */
int passes_jit_run(passes_jit *j, int ninputs, af_tensor *const *inputs, int max_out, af_tensor **outputs,
                   int *noutputs, af_err *err);

/* ---- ATen functionalization ---- */

/* Runs s with the TorchScript interpreter under ATen functionalization, as functorch's
 * functionalize() does: each input is wrapped (at::functionalization::impl::to_functional_tensor),
 * the function runs with the Functionalize dispatch key included (reapply_views: views stay views
 * on the inner tensors; 0: they become *_copy ops), outputs are synced and unwrapped, and an input
 * whose wrapper ended up holding another tensor is updated the way functorch's
 * _propagate_functional_input_mutation does it: a changed shape through as_strided_ (unsqueeze_,
 * transpose_ on an input), the values through copy_ (which can fail where the new value overlaps
 * the caller's memory: that is functorch's behaviour too). Returns 0; -1 with err on an error raised
 * while converting, running or propagating; 1 with err when an input's number of elements changed
 * (a resize), which this does not hand back. */
int passes_functionalize_run(at_script *s, int reapply_views, int ninputs, af_tensor *const *inputs, int max_out,
                             af_tensor **outputs, int *noutputs, af_err *err);

#ifdef __cplusplus
}
#endif
#endif
