/* emit.h - emitters: a program as TorchScript source, using each op's spelling from the op
 * table; setitem statements use Python's subscript syntax, since converters see different graphs
 * for `x[0:2] = v` and `x.narrow(...).copy_(v)`. */
#ifndef EMIT_H
#define EMIT_H

#include "ir.h"

/* `def <fn>(x: Tensor, ...) -> Tensor | Tuple[Tensor, ...] | None:` and the body, indented by 4.
 * A program with module state (buffer inputs) becomes `def forward(self, <other inputs>)` with
 * its buffers spelled `self.NAME`: the method of an nn.Module that registers them (the shim's
 * at_script_compile_module, repro.py). new, free with free(). */
char *emit_torchscript(const ir_program *p, const char *fn);

/* One statement's Python text (no indentation, no newline), appended to b. The members of a
 * tuple unpacking (OPF_UNPACK, ops.def) are one line: member 0 spells it (`a, b = x.size()`), the
 * later members append nothing (emit_torchscript gives them no line). */
void emit_stmt(af_buf *b, const ir_program *p, int s);

/* A number as Python source: ints as ints, floats always with a '.' or exponent. */
void emit_number(af_buf *b, const ir_arg *a);

#endif
