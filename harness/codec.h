/* codec.h - the JSON form of a program ("aliasfuzz-program/1"), read strictly and written in one
 * canonical layout (so read-then-write of a canonical file is byte-identical).
 *
 * Format, by example:
 *   {
 *     "format": "aliasfuzz-program/1",
 *     "inputs": [
 *       {"name": "x", "shape": [5, 5], "dtype": "float32"},
 *       {"name": "idx", "shape": [2], "dtype": "int64", "data": [0, 3]}
 *     ],
 *     "body": [
 *       {"out": "y", "op": "slice", "args": ["x", 0, 0, 2, 1]},
 *       {"op": "setitem", "args": ["y", [{"slice": [null, 5, 1]}, "..."], 0]}
 *     ],
 *     "outputs": ["x"],
 *     "meta": {"seed": 1}
 *   }
 * Arguments: a string names a value; an integral number is an int, any other number a float;
 * {"float": 2} is the float 2.0; true/false are bools; null is None (also inside an index list,
 * schema O, where it stands for a whole dimension: index_put(x, [null, "idx"], v, false)). Subscript elements: an int,
 * {"slice": [start|null, stop|null, step]}, null (None), "..." (Ellipsis), or a value name (an
 * integer or boolean index tensor). {"dtype": "int32"} is a dtype argument (`torch.int32`). A
 * reduction mode (schema letter r: scatter_reduce's reduce=) is its name: "sum", "prod", "mean",
 * "amax" or "amin".
 * Input values default to ir_input_default_value(); "data" gives them explicitly (row-major,
 * repeated if shorter). Dtypes: float32, float64, int64, bool, int32, int8, uint8, float16,
 * bfloat16.
 *
 * Int values (issue 15): a loop variable, or the result of an int op ({"out": "n", "op": "size",
 * "args": ["x", 0]}: `n = x.size(0)`; likewise shape (`x.shape[d]`), numel and dim), stands
 * wherever an int literal can, named by its string: an int argument, a number argument, an
 * element of an int list (["n", -1]: `x.view([n, -1])`), an int subscript, a slice bound
 * ({"slice": [null, "n", 1]}: `x[:n]`) and a for loop's trip count ({"out": "j", "op": "for",
 * "args": ["n"], ...}). Not a dim spelled as a count of ":, " (the slice op's dim), not an
 * output.
 *
 * Control flow nests: {"op": "if", "args": ["c"], "then": [...], "else": [...]} ("else" optional;
 * c a one-element tensor, `if bool(c):`), {"out": "i", "op": "for", "args": [3], "body": [...]}
 * (`for i in range(3):`; i is an int: an int argument or an int subscript element inside the
 * body), {"op": "no_grad", "args": [], "body": [...]} (`with torch.no_grad():`, training programs
 * only; names defined inside stay visible after it). A statement whose "out" names a value in scope rebinds it (`s = torch.add(s, 1)`);
 * names defined in a block are visible to its end. Lists: {"out": "l", "op": "list", "args":
 * [["a", "b"]]} and list_append/list_get/list_set/cat_list/stack_list (`aliasfuzz ops`). An
 * input with "buffer": true is module state: the program is an nn.Module's forward, the input is
 * `self.NAME`, and a rebind of it rebinds the module's buffer (its final state); "attribute": true
 * instead makes it a plain tensor attribute of the module (`self.NAME = tensor` in __init__, not
 * register_buffer; issue 29): the same program in eager, another thing to a converter (torch.export
 * lifts it as a constant). Functional ops that also write arguments (ops.def's OPF_WRITES:
 * batch_norm/instance_norm in training mode write arguments 3 and 4, the running statistics, usually
 * such buffers or views of one) are spelled like any functional op: {"out": "y", "op": "batch_norm",
 * "args": ["x", null, null, "rm", "rv", true, 0.1, 0.5, false]}. In memory a block
 * is flat (if ... else ... end, for ... end; ir.h); error messages name statements by their flat
 * index.
 *
 * Input layouts (issue 16, ir.h): {"name": "b", "view_of": "a", "as": ["slice", 0, 1, 3, 1]} is
 * a view of input a (a chain: [["t"], ["slice", 0, 1, 3, 1]]; shape and dtype may be left out);
 * {"name": "b", "shape": [2, 5], "dtype": "float32", "view_of": "a", "strides": [5, 1], "offset":
 * 5} says the same in elements of a's storage (the canonical form). view_of may name a hidden
 * base instead, declared before the inputs: "bases": [{"name": "buf", "size": 12, "dtype":
 * "float32"}] (optional "data"). An input without view_of but with "strides"/"offset" (and
 * optionally "storage": its storage's size) is strided, offset or expanded in memory of its own.
 * Impossible layouts (outside the storage, negative strides or offset, another dtype, a view of a
 * later input, data on a view) are rejected with a message naming the input. *
 * Training programs (issue 33, docs/training.md): "train": true at the top level makes the program
 * a training step, "loss": [w, ...] one finite weight per output (optional; always written); an
 * input with "requires_grad": true is a leaf that requires grad, one with "param": true an
 * nn.Parameter of the module (module state that requires grad; neither "buffer" nor
 * "requires_grad" beside it). Both need "train": true, a floating-point dtype and no layout. */
#ifndef CODEC_H
#define CODEC_H

#include "ir.h"

#define CODEC_FORMAT "aliasfuzz-program/1"

/* What a program file may hold (issue 27); the reader refuses more, naming the limit. Numbers must
 * be what their field holds exactly: finite (1e400 reads as infinity), and an int dtype's data
 * integers in its range (int64 within +-2^53, where a double is exact); "data" is not longer than
 * the tensor (or the storage its input owns); a field is given once; no \u0000 in a string. */
#define CODEC_MAX_STMTS 20000     /* statements in the flat body, if/for/else/end counted */
#define CODEC_MAX_DEPTH 32        /* if/for blocks inside one another */
#define CODEC_MAX_NESTING 100     /* JSON arrays and objects inside one another */
#define CODEC_MAX_LIST 65536      /* elements of one list argument */
#define CODEC_MAX_ELEMENTS 16777216 /* tensor elements of all inputs together (2^24) */

/* Parses text; where names the source in messages ("corpus/a.json"). Returns 0 and a new program
 * (free with ir_program_free) in *out, or -1 with "where: field: what was expected" in err. */
int codec_read_string(const char *text, const char *where, ir_program **out, af_err *err);
int codec_read_file(const char *path, ir_program **out, af_err *err);

/* Canonical JSON text; new, free with free(). */
char *codec_write_string(const ir_program *p);
/* Writes atomically (temporary file + rename). */
int codec_write_file(const ir_program *p, const char *path, af_err *err);

/* Reads a whole file; new, free with free(). NULL with err set on failure. */
char *codec_slurp(const char *path, size_t *len, af_err *err);
/* Writes data to path all or nothing (af_write_atomic: path.tmp.PID, fsync, rename); 0 on success. */
int codec_write_atomic(const char *path, const char *data, size_t len, af_err *err);
/* Appends a number in the canonical way: integral values of int kind as integers, floats in the
 * shortest text that reads back to the same double. */
void codec_put_float(af_buf *b, double f);
/* Appends s as one word of a POSIX shell command line: as it is when it has only characters no
 * shell treats specially, else in single quotes (a ' inside as '\''). For the commands aliasfuzz
 * prints for a person to paste (`--converter 'external:python3 w.py'`). */
void codec_put_shell_word(af_buf *b, const char *s);

#endif
