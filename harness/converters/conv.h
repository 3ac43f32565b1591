/* conv.h - the converter interface. A converter turns a program into something it can run
 * (convert) and runs it on input tensors (run), reporting outputs and the final state of every
 * input. In-process converters live in this folder, one file each; external workers are reached
 * through the worker client. */
#ifndef CONV_H
#define CONV_H

#include "../result.h"

typedef struct conv_converter conv_converter;

struct conv_converter {
  const char *name;
  const char *description;
  int deliberately_wrong; /* a demo converter that is wrong on purpose (naive) */
  /* 1 when usable on this machine; otherwise 0 and why (borrowed or static). */
  int (*available)(const conv_converter *c, const char **why);
  /* Version of what the converter wraps (LibTorch, aliasfuzz, ...), borrowed. */
  const char *(*version)(const conv_converter *c);
  /* Converts p. On success *state is the converter's own (freed with free_state). Returns a
   * result_status: RESULT_OK, RESULT_UNSUPPORTED or RESULT_ERROR (message in r). The converted
   * graph text, when there is one, goes to r->graph. */
  result_status (*convert)(const conv_converter *c, const ir_program *p, void **state, result *r);
  /* Runs the converted program on inputs (borrowed; the converter may mutate them, as eager
   * does). Fills r->outputs and r->inputs (final states; NULL entries for inputs it cannot
   * express). Returns a result_status as convert does. inputs holds ir_ntensors(p) tensors: the
   * inputs laid out as declared, then the bases' storages they view (issue 16); a converter that
   * does not run on the caller's tensors fills r->bases itself (NULL entries: cannot express). */
  result_status (*run)(const conv_converter *c, void *state, const ir_program *p, af_tensor *const *inputs, result *r);
  void (*free_state)(void *state);
  /* Python for repro.py: defines `convert_and_run(src, converted, inputs)` that converts and runs
   * the program the way this converter does, with PyTorch alone. src is the program's TorchScript
   * source, converted the converter's graph text (result.graph), inputs a list of tensors it may
   * mutate. Returns (outputs, final_inputs): lists of tensors; a final input may be None when the
   * converter cannot express it. NULL: repro.py can only run eager. "@FILE": the file FILE of the
   * workers folder (conv_worker_dir(): the named workers' repro_*.py), inlined when a repro.py is
   * written (emit_repro.c), with the modules it names `from MOD import *  # aliasfuzz: inline`. */
  const char *repro_py;
};

/* Registry */
int conv_count(void);
const conv_converter *conv_get(int i);
const conv_converter *conv_find(const char *name); /* NULL when unknown */
/* Adds a converter (borrowed; must outlive its use) for this process and the children it forks.
 * -1 when the name is taken or the table is full. */
int conv_register(const conv_converter *c);

/* Converts and runs p with c on fresh inputs; everything ends up in r (status, message, graph,
 * outputs, final inputs). Returns 0 unless the inputs could not be built. */
int conv_execute(const conv_converter *c, const ir_program *p, result *r, af_err *err);

/* p's TorchScript compiled: a function, or with module state a module's forward (emit.h). */
int conv_compile(const ir_program *p, at_script **out, af_err *err);

/* Built-in converters */
extern const conv_converter conv_script;
extern const conv_converter conv_jit;                   /* conv_jit.c */
extern const conv_converter conv_functionalize;         /* conv_functionalize.c */
extern const conv_converter conv_functionalize_noviews; /* conv_functionalize.c */
extern const conv_converter conv_ref;                   /* conv_ref.c */
extern const conv_converter conv_naive;                 /* conv_naive.c */

#endif
