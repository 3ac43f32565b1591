/* ref.h - the reference functionalizer as a library call; the `ref` converter (conv_ref.c, where
 * the algorithm is explained) wraps it. */
#ifndef REF_H
#define REF_H

#include "../ir.h"

/* Functionalizes p. On success *out (new, free with ir_program_free) is a functional program: no
 * in-place op, no out= form, no setitem, nothing that relies on two values sharing memory. Its
 * inputs are p's; its outputs are p's outputs followed by the final values of the inputs p
 * changes (contents or shape), in input order; input_out[i] (p->ninputs entries) is the index
 * among *out's outputs of input i's final value, or -1 when p leaves input i alone.
 *
 * ref dry-runs p once in eager PyTorch to learn what eager knows at each statement: shapes
 * (including data-dependent ones), strides, and whether a reshape/flatten/contiguous returned a
 * view or a copy. Returns 0; 1 when ref declines the program (err says why: a construct it does
 * not model); -1 on error, with err (including "eager rejected the program: ..."). */
int ref_functionalize(const ir_program *p, ir_program **out, int *input_out, af_err *err);

/* For a program whose inputs have layouts (ir.h, issue 16), what ref functionalizes instead:
 * p with each storage as a flat input (the plain inputs first, then one per base), a prelude that
 * binds every input with a layout to `root.as_strided(shape, strides, offset)`, and an epilogue
 * that reads each such input again from its storage as an extra output after p's outputs. new,
 * free with ir_program_free; NULL with err when ref declines (an in-place change of shape or
 * strides: the input's final state would not be a fixed window of its storage). ref_functionalize
 * itself declines a program with layouts. */
ir_program *ref_synthetic_bases_of(const ir_program *p, af_err *err);

/* q (from ref_functionalize on p) as TorchScript source, after two comment lines; the second
 * reads "# final inputs (input index: output index): {0: 1}" (a Python dict literal). new, free
 * with free(). The converter's result.graph. */
char *ref_source(const ir_program *q, const ir_program *p, const int *input_out);

#endif
