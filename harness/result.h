/* result.h - what one run of a program produced: by eager PyTorch or by a converter. */
#ifndef RESULT_H
#define RESULT_H

#include "ir.h"
#include "torch/shim.h"

typedef enum {
  RESULT_OK,          /* ran; outputs and inputs are filled */
  RESULT_UNSUPPORTED, /* the converter declined the program (message says why); a message that
                        starts with RESULT_HARNESS_LIMIT says aliasfuzz itself cannot hand the
                        program to this converter: not a converter's bug (classes.h "harness") */
  RESULT_ERROR,       /* conversion or run raised an error (message) */
  RESULT_CRASH,       /* the converter process died (external workers, isolated jobs) */
  RESULT_TIMEOUT,     /* the converter ran past its deadline */
  RESULT_PROTOCOL,    /* an external worker broke the aliasfuzz-worker protocol (its answer cannot be read): a
                         harness finding about the worker, not a converter result (conv_worker.h) */
} result_status;

typedef struct result {
  result_status status;
  char *message;   /* new or NULL */
  char *graph;     /* the converted graph as text, new or NULL */
  int residual;    /* in-place ops left in the converted graph; -1 when not measured */
  int noutputs;
  af_tensor **outputs;
  int ninputs;
  af_tensor **inputs; /* final state of each input; an entry is NULL when the converter cannot
                         express that input's final state */
  int nbases;
  af_tensor **bases; /* final state of each storage of the program's bases (ir.h), flat; NULL
                        entries as for inputs. conv_execute fills them from the caller's storages
                        when a converter leaves them unset (it ran on the caller's tensors) */
  /* training programs (issue 33): ngrads is ninputs when the run did the backward (0 otherwise);
   * grads[i] is input i's .grad after it, NULL where the input does not require grad or the
   * backward never reached it (the oracle reads NULL as zeros: docs/training.md) */
  int ngrads;
  af_tensor **grads;
  int grad_after;     /* training programs: grad mode after the call (torch.is_grad_enabled(): a
                         program's torch.set_grad_enabled outlives it), 1 or 0; -1 when not said */
  double converter_s; /* seconds the converter itself says it spent converting and running (a
                         worker's answer "timing"); -1 when it does not say */
} result;

void result_init(result *r);
void result_clear(result *r); /* frees everything inside; r can be reused after result_init */
void result_set_message(result *r, const char *msg);
const char *result_status_name(result_status s);

/* For converters that run on the caller's input tensors: r takes the n outputs (ownership moves
 * to r) and a new reference to each input as its final state. */
void result_take_outputs(result *r, int n, af_tensor **outs, int ninputs, af_tensor *const *inputs);
/* The same for a run of p's TorchScript (at_script_run): with module state the last outputs are
 * the buffers' final values, which become those inputs' final states. */
void result_take_program_outputs(result *r, int n, af_tensor **outs, const ir_program *p, af_tensor *const *inputs);

/* The program's inputs as fresh tensors (values from ir_input_value), laid out as declared: an
 * input with a layout is torch.as_strided of its storage, which is made first (values from
 * ir_base_value). The array holds ir_ntensors(p) tensors: the inputs, then each base's flat
 * storage. new array of new tensors, free with inputs_free(ir_ntensors(p), ...). */
int inputs_new(const ir_program *p, af_tensor ***out, af_err *err);
void inputs_free(int n, af_tensor **t);

#define RESULT_HARNESS_LIMIT "harness limit: "

#endif
