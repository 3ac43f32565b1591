/* shim.h - the plain C face of LibTorch. The only C++ in aliasfuzz sits behind this header
 * (shim.cpp). Opaque handles, fixed-width integers and pointers only; no exception crosses it:
 * every function that can fail returns 0 on success or -1 with LibTorch's message in err. */
#ifndef SHIM_H
#define SHIM_H

#include "../af.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct af_tensor af_tensor; /* a reference to a LibTorch tensor (shares its storage) */
typedef struct at_script at_script; /* a compiled TorchScript function */

/* Pins LibTorch to one intra-op and one inter-op thread (deterministic; two jobs fit two cores).
 * Idempotent; call before any other shim function. */
void at_init(void);
const char *at_version(void); /* LibTorch version, borrowed */
/* The PyTorch stack of this build (issue 13: one PyTorch per build, see CMakeLists.txt). All
 * borrowed. at_stack: "torch-MAJOR.MINOR" (names the expectation folder, findings record it);
 * at_stack_origin: where LibTorch came from ("venv: torch wheel in .venv" or "debian:
 * libtorch-dev"); at_stack_python: the Python whose torch is this LibTorch (the workers' default). */
const char *at_stack(void);
const char *at_stack_origin(void);
const char *at_stack_python(void);

/* New tensor of shape/dtype with the given numel values (row-major, as doubles). new, free with
 * at_tensor_free. */
int at_tensor_new(af_dtype dt, int rank, const int64_t *shape, const double *values, af_tensor **out, af_err *err);
/* A second reference to the same tensor (same TensorImpl: sees in-place shape changes). */
af_tensor *at_tensor_ref(const af_tensor *t);
void at_tensor_free(af_tensor *t);
int at_tensor_rank(const af_tensor *t);
void at_tensor_shape(const af_tensor *t, int64_t *shape); /* rank entries */
int64_t at_tensor_numel(const af_tensor *t);
/* dtype, or -1 for a dtype aliasfuzz does not model */
int at_tensor_dtype(const af_tensor *t);
/* Copies the values (row-major, converted to double) into out[numel]. */
int at_tensor_values(const af_tensor *t, double *out, af_err *err);
/* New tensor of shape/dtype from raw bytes: numel elements of the dtype, row-major, in the
 * machine's byte order (little-endian on every supported host); bool as one byte 0/1. nbytes
 * must be numel * af_dtype_size(dt). new, free with at_tensor_free. */
int at_tensor_from_bytes(af_dtype dt, int rank, const int64_t *shape, const void *data, size_t nbytes, af_tensor **out,
                         af_err *err);
/* Copies the elements (row-major, in the tensor's own dtype, machine byte order) into
 * out[nbytes]; nbytes must be numel * element size. -1 for a dtype aliasfuzz does not model. */
int at_tensor_bytes(const af_tensor *t, void *out, size_t nbytes, af_err *err);
/* Whether two tensors share storage. */
int at_tensor_shares_storage(const af_tensor *a, const af_tensor *b);
/* Whether two references are the same tensor (one TensorImpl: an in-place change of shape made
 * through one is seen through the other). Ops can return their argument itself: contiguous() of a
 * contiguous tensor, flatten(d, d), aten::copy(a, b) when b needs no conversion. */
int at_tensor_same(const af_tensor *a, const af_tensor *b);
/* 1 when t is a float or complex tensor holding an infinity or a NaN, else 0 (integers, bools). */
int at_tensor_nonfinite(const af_tensor *t);
/* Strides (rank entries, in elements) and storage offset (in elements) of the tensor's view of its
 * storage, as eager PyTorch has them. */
void at_tensor_strides(const af_tensor *t, int64_t *strides);
int64_t at_tensor_storage_offset(const af_tensor *t);
/* Elements (of the tensor's dtype) in the tensor's storage, the parts no view reaches included. */
int64_t at_tensor_storage_numel(const af_tensor *t);

/* Arguments of a dispatcher call; converted to the op schema's types by position. */
/* AT_ARG_DTYPE: a ScalarType argument (`x.view(torch.int32)`), .i is an af_dtype */
/* AT_ARG_STR: a string argument (scatter_reduce's reduce=), .s */
typedef enum { AT_ARG_TENSOR, AT_ARG_INT, AT_ARG_FLOAT, AT_ARG_BOOL, AT_ARG_NONE, AT_ARG_INTS, AT_ARG_TENSORS, AT_ARG_DTYPE, AT_ARG_STR } at_arg_kind;
typedef struct at_arg {
  at_arg_kind kind;
  int64_t i;
  double f;
  const af_tensor *t;
  int n;
  const int64_t *ints;
  const af_tensor *const *tensors;
  const char *s;
} at_arg;

/* Calls the ATen op `name` (e.g. "aten::slice") with `overload` ("" for none) through the
 * dispatcher. args fill the schema's non-out arguments in order; the rest take their defaults.
 * out, when not NULL, is passed as the op's `out=` argument. Up to max_results returned tensors
 * go to results (each new, free with at_tensor_free); *nresults says how many. */
int at_call(const char *name, const char *overload, int nargs, const at_arg *args, const af_tensor *out, int max_results,
            af_tensor **results, int *nresults, af_err *err);

/* ---- autograd (issue 33, training programs; docs/training.md) ---- */
/* Makes t a leaf that requires grad (on 1) or not (0): t.requires_grad_(on). -1 when LibTorch
 * refuses (a non-leaf, an integer dtype). */
int at_tensor_set_requires_grad(af_tensor *t, int on, af_err *err);
int at_tensor_requires_grad(const af_tensor *t); /* t.requires_grad() */
int at_tensor_is_leaf(const af_tensor *t);       /* t.is_leaf() */
/* Whether an in-place write into t is one autograd refuses in grad mode: 1 when t requires grad
 * and is a leaf, or a view whose base is such a leaf; 2 when t is a view made in no_grad mode of
 * a tensor that requires grad (PyTorch: "A view was created in no_grad mode and is being modified
 * inplace with grad mode enabled"); else 0 (`.detach()` results and `.data` do not require grad:
 * writes through them pass). */
int at_tensor_grad_leaf_write(const af_tensor *t);
/* t.grad() as a new reference, or NULL when t has none (never reached by the backward). */
af_tensor *at_tensor_grad(const af_tensor *t);
/* The training step's backward: loss = sum over k of weights[k] * outs[k].sum(), taken over the
 * floating-point outputs that require grad (the others add nothing), then loss.backward(). When
 * none requires grad nothing runs (*ran 0; every .grad stays unset). -1 with LibTorch's message
 * when autograd refuses (a tensor saved for backward was modified in place since). */
int at_backward(int n, af_tensor *const *outs, const double *weights, int *ran, af_err *err);
/* Autograd's reference cycles (issue 33). An in-place op that saves one of its own operands for
 * backward (`v.lerp_(x, v)`: the weight is self) leaves v's TensorImpl -> its grad_fn -> a
 * SavedVariable -> the same TensorImpl; eager's backward refuses such a program ("modified by an
 * inplace operation") and nothing frees that graph, in LibTorch as in Python. Between
 * at_graph_begin and at_graph_end, at_tensor_free notes the grad_fn of each tensor it frees;
 * at_graph_end frees the saved variables of every noted node still alive and of the nodes behind
 * it, which breaks the cycles. Call at_graph_end only when no backward through them is left to
 * run. Scopes nest: the outermost at_graph_end releases. */
void at_graph_begin(void);
void at_graph_end(void);
/* Sets grad mode (torch.set_grad_enabled(on)); returns the previous mode. */
int at_grad_mode(int on);
int at_grad_enabled(void); /* torch.is_grad_enabled() */

/* Compiles TorchScript source and looks up function fn. new, free with at_script_free. */
int at_script_compile(const char *source, const char *fn, at_script **out, af_err *err);
/* Compiles source (`def forward(self, ...)`, see emit.h) as the forward method of a new module
 * with nbuf tensor buffers names[k]; buffer k is the program's input positions[k]. attrs (NULL:
 * none): attrs[k] != 0 makes entry k a plain tensor attribute instead of a registered buffer. */
int at_script_compile_module(const char *source, int nbuf, const char *const *names, const int *positions,
                             const int *attrs, at_script **out, af_err *err);
int at_script_nbuffers(const at_script *s); /* 0 for a function */
void at_script_free(at_script *s);
/* Runs the function on inputs (passed by reference: in-place ops change them). Outputs: a tuple
 * becomes its elements, a tensor one output, None zero. Each output new, free with at_tensor_free.
 * A module takes all the program's inputs too (its buffers are set to theirs) and its outputs are
 * followed by the final value of each buffer, in buffer order. */
int at_script_run(at_script *s, int ninputs, af_tensor *const *inputs, int max_out, af_tensor **outputs, int *noutputs, af_err *err);
/* The function's graph as text; new, free with free(). */
char *at_script_graph(const at_script *s);

#ifdef __cplusplus
}
#endif
#endif
