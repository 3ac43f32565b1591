/* ir.h - the program IR: typed inputs, a list of statements, a list of outputs.
 *
 * Values are named; a name is defined by an input or a statement's "out" and its index in
 * program->names is its value id. A statement whose "out" names a value already in scope rebinds
 * the name (Python's `s = s + 1`; other names of the old tensor keep it); names defined inside a
 * block are visible to the end of that block. Loop variables (`for`) are int values. Inputs are values 0..ninputs-1. An in-place op does
 * not define a new value: the tensor its target names changes (shape included, for
 * `unsqueeze_`), exactly as in Python and TorchScript.
 *
 * The JSON form ("aliasfuzz-program/1") is read and written by codec.h. */
#ifndef IR_H
#define IR_H

#include "af.h"

typedef enum {
  IR_ARG_VALUE,  /* a tensor value: .value */
  IR_ARG_INT,    /* .i */
  IR_ARG_FLOAT,  /* .f */
  IR_ARG_BOOL,   /* .i (0/1) */
  IR_ARG_NONE,   /* Python None */
  IR_ARG_INTS,   /* int list: .n, .ints; with .values (n entries) element k is the int value
                    .values[k] when that is >= 0 (`x.view([n, 5])` with n = x.size(0)) */
  IR_ARG_VALUES, /* tensor list: .n, .values */
  IR_ARG_INDEX,  /* Python subscript: .n, .index */
  IR_ARG_DTYPE,  /* a dtype (`torch.int32`): .i is an af_dtype */
} ir_arg_kind;

typedef enum {
  IR_IDX_INT,      /* x[2]: .i */
  IR_IDX_SLICE,    /* x[a:b:c]: .has_start/.start, .has_stop/.stop, .step */
  IR_IDX_NONE,     /* x[None] */
  IR_IDX_ELLIPSIS, /* x[...] */
  IR_IDX_TENSOR,   /* x[idx] with an integer or boolean tensor: .value */
} ir_idx_kind;

typedef struct ir_index {
  ir_idx_kind kind;
  int64_t i;
  int has_start, has_stop;
  int64_t start, stop, step;
  int value;
  /* a slice bound given by an int value (`x[:n]`): its value id + 1, 0 for the literal above
   * (+1 so that a zero-initialized index has literal bounds) */
  int start_var, stop_var;
} ir_index;

typedef struct ir_arg {
  ir_arg_kind kind;
  int64_t i;
  double f;
  int value;
  int n;
  int64_t *ints;
  int *values;
  ir_index *index;
} ir_arg;

typedef struct ir_stmt {
  int op;   /* index into the op table (ops.h) */
  int out;  /* value id defined by this statement, or -1 */
  int nargs;
  ir_arg *args;
} ir_stmt;

typedef struct ir_input {
  int value; /* value id (== position) */
  int rank;
  int64_t shape[AF_MAX_RANK];
  af_dtype dtype;
  int64_t ndata; /* 0: values from ir_input_default_value(); else explicit data */
  double *data;
  /* Layout (issue 16). base 0: the input owns fresh contiguous memory of its shape. base b + 1:
   * the input is torch.as_strided(storage, shape, strides, offset) of p->bases[b]: strides and
   * offset in elements of that flat storage, as torch.as_strided takes them. Inputs with the same
   * base share memory (a write through one shows in the others); a stride of 0 expands. */
  int base;
  int64_t strides[AF_MAX_RANK];
  int64_t offset;
  int buffer; /* module state: the program is the forward of an nn.Module whose buffer this is
                 (`self.NAME`); its final state is the buffer's final binding (`self.w = self.w + 1`
                 rebinds the module's buffer, unlike a rebind of an argument) */
  /* Training (issue 33, docs/training.md): grad 1 when the input is a leaf that requires grad
   * (`"requires_grad": true`, or a parameter); param 1 when it is an nn.Parameter of the module
   * (`"param": true`: buffer is 1 too, it is module state `self.NAME`, and grad is 1). Only in a
   * program with train set. */
  int grad;
  int param;
  /* Module state that is a plain tensor attribute (issue 29): `self.NAME = tensor` in the module's
   * __init__, not register_buffer (`"attribute": true`: buffer is 1 too, and it is no param).
   * Eager and the oracle treat it as a buffer; converters do not (torch.export lifts it as a
   * constant, TorchScript keeps it as a plain attribute): docs/layout.md "Module state". */
  int attr;
} ir_input;

/* A storage that inputs view (issue 16): flat, contiguous, numel elements of dtype. Either a
 * hidden base the caller owns (owner -1: no program name refers to it; its final state is checked
 * after the run like an input's) or the memory of input `owner` (an input with a layout of its
 * own, or one that other inputs are declared views of). Values: element k is
 * ir_input_value(owner's input, owner, k) for an owned storage (the owner's "data" fills the
 * storage), else the base's own data or ir_input_default_value(ninputs + h, k) for the h-th
 * hidden base. */
typedef struct ir_base {
  char *name; /* the hidden base's name; for an owned storage the owner's name (borrowed copy) */
  int owner;
  int64_t numel;
  af_dtype dtype;
  int64_t ndata;
  double *data;
  /* Training (issue 33, docs/training.md): grad 1 when the hidden base is the caller's leaf that
   * requires grad (`"requires_grad": true`): the inputs then view `base.clone()` (non-leaf views,
   * written in place as autograd allows), and base.grad is part of the result. Hidden bases only,
   * only in a program with train set. */
  int grad;
} ir_base;

typedef struct ir_program {
  int ninputs;
  ir_input *inputs;
  int nbases;
  ir_base *bases;
  int nstmts;
  ir_stmt *stmts;
  int noutputs;
  int *outputs; /* value ids */
  int nvalues;
  char **names; /* value id -> name */
  char *meta;   /* the "meta" object as compact JSON text, or NULL */
  /* Training (issue 33): train 1 when the program is a training step: after the forward the
   * loss sum(loss[o] * outputs[o].sum()) over the floating-point outputs is backpropagated, and
   * the .grad of every input with grad is part of the result. loss: noutputs weights (NULL: all
   * 1; ir_loss_weight), fixed and recorded in the program. */
  int train;
  double *loss;
  /* entries allocated in inputs, stmts and names: ir_add_* grow them by doubling (a program is
     built a statement at a time, by the thousand per second); code that replaces one of these
     arrays sets its cap */
  int cap_inputs, cap_stmts, cap_values;
  /* name -> value id, open addressing (value id + 1, 0 empty; cap_hash a power of two), kept by
     ir_add_value and rebuilt by ir_find_value after ir_rename_value: a 10k-statement program
     names its values in constant time each. Code that writes names[v] itself calls
     ir_rename_value instead. */
  int *hash;
  int cap_hash, hash_stale;
} ir_program;

ir_program *ir_program_new(void); /* new, free with ir_program_free */
void ir_program_free(ir_program *p);
ir_program *ir_program_clone(const ir_program *p); /* new, free with ir_program_free */

/* Adds a value name; returns its id, or -1 if the name is taken or not an identifier. */
int ir_add_value(ir_program *p, const char *name);
int ir_find_value(const ir_program *p, const char *name); /* -1 if none; the lowest id when names repeat */
/* Gives value v the name (copied; not checked: a pass renaming every value passes through
 * repeated names). */
void ir_rename_value(ir_program *p, int v, const char *name);
/* FNV-1a of a name (the hash of the name index; for other tables of names). */
uint32_t ir_name_hash(const char *s);
/* True when name is a valid value name: an identifier that is no Python keyword or builtin the
 * emitters use. */
int ir_name_ok(const char *name);

/* Appends an input of the given shape; returns its value id or -1 (name taken). */
int ir_add_input(ir_program *p, const char *name, int rank, const int64_t *shape, af_dtype dt);
/* Appends a statement; args are copied deeply. Returns the statement index. */
int ir_add_stmt(ir_program *p, int op, int out, int nargs, const ir_arg *args);
void ir_arg_free(ir_arg *a);
void ir_arg_copy(ir_arg *dst, const ir_arg *src);
void ir_set_meta(ir_program *p, const char *json); /* copies */

int64_t ir_numel(int rank, const int64_t *shape);

/* ---- input layouts (issue 16) ---- */
/* Adds a base of numel elements; returns its index. name NULL or an identifier. owner as in
 * ir_base. The name is copied. */
int ir_add_base(ir_program *p, const char *name, int owner, int64_t numel, af_dtype dt);
/* Gives input i a layout into base b (-1: plain again; sets inputs[i].base to b + 1). strides:
 * rank entries. */
void ir_set_layout(ir_program *p, int i, int b, const int64_t *strides, int64_t offset);
/* Appends copies of p's bases to q (q's bases keep p's indices when q had none); input_map, when
 * not NULL, maps p's input positions to q's for owners (-1: the owner is gone, the base hidden). */
void ir_copy_bases(ir_program *q, const ir_program *p, const int *input_map);
/* Whether any input has a layout (p->nbases > 0 with a user). */
int ir_has_layouts(const ir_program *p);
/* A base's name: the hidden base's own, or its owner input's current name. Borrowed. */
const char *ir_base_name(const ir_program *p, int b);
/* Number of tensors a run takes: the inputs, then one per base (inputs_new, eager_run_on). */
int ir_ntensors(const ir_program *p);
/* Value of element k of base b's flat storage. */
double ir_base_value(const ir_program *p, int b, int64_t k);
/* Largest storage index a layout reaches plus one (0 for an empty shape). */
int64_t ir_layout_extent(int rank, const int64_t *shape, const int64_t *strides, int64_t offset);
/* Contiguous strides of a shape. */
void ir_contiguous_strides(int rank, const int64_t *shape, int64_t *strides);
/* Whether input i's memory is shared with another input, or it has strides/offset of its own. */
int ir_input_aliased(const ir_program *p, int i);
/* The layout part of ir_validate: every base has a size and a usable name (hidden ones), every
 * owner is an input whose layout is in its own storage, every layout has strides >= 0, offset >= 0
 * and stays inside its storage, has its storage's dtype; a module buffer, and an input whose
 * values come from its storage, have no "data" of their own. Messages name the input. */
int ir_validate_layouts(const ir_program *p, af_err *err);
/* Applies view op `op` (a name: slice, select, narrow, transpose, t, permute, unsqueeze, squeeze,
 * expand, diagonal, unfold, as_strided, view of a contiguous layout) with its int arguments to a
 * layout in place (rank, shape, strides, offset). -1 with err when the op is unknown or its
 * arguments do not fit, as PyTorch would reject them. args: IR_ARG_INT or IR_ARG_INTS, in the
 * op's own order without its tensor (slice: dim, start, end, step). */
int ir_layout_apply(const char *op, int nargs, const ir_arg *args, int *rank, int64_t *shape, int64_t *strides,
                    int64_t *offset, af_err *err);
/* Number of inputs that are module buffers (0: the program is a plain function). */
int ir_nbuffers(const ir_program *p);
/* Training (issue 33): output o's loss weight (1 when p->loss is NULL); the number of inputs
 * that require grad (0 unless p->train); p made an inference program in place (train, loss,
 * grad cleared, a parameter becomes a plain buffer, no_grad blocks unwrapped): what a converter
 * that cannot train is given instead (docs/training.md). */
double ir_loss_weight(const ir_program *p, int o);
int ir_ngrads(const ir_program *p);
void ir_untrain(ir_program *p);

/* The documented deterministic input value: element k (row-major) of input number i holds
 *   float/int: ((k * 7 + i * 3) % 11) - 5      (small integers: most arithmetic stays exact)
 *   uint8:     (k * 7 + i * 3) % 11            (the same without the shift: no negatives)
 *   bool:      (k + i) % 3 == 0
 * repro.py and the workers use the same formula. */
double ir_input_default_value(int input_index, int64_t k, af_dtype dt);
/* Value of element k of input i: explicit data when present, else the default above. */
double ir_input_value(const ir_input *in, int input_index, int64_t k);

/* A copy of p keeping only the statements with keep_stmt[s] != 0, the outputs with
 * keep_output[o] != 0 and the inputs with keep_input[i] != 0 (NULL keeps all of a kind), and
 * dropping, transitively, every statement and output that uses a value no longer defined.
 * Value names are kept. new, free with ir_program_free. */
ir_program *ir_subset(const ir_program *p, const char *keep_stmt, const char *keep_output, const char *keep_input);
/* A copy of p with statement s gone and its value an input instead, appended after p's inputs
 * under the value's name, with as's rank, shape, dtype and data (ndata 0: the default values;
 * else ir_numel values; layout and buffer fields are ignored). NULL when s is inside a block or
 * not the only statement binding its value, or binds an input. new, free with ir_program_free. */
ir_program *ir_value_as_input(const ir_program *p, int s, const ir_input *as);

/* ---- control flow: flat blocks `if` ... [`else` ...] `end`, `for` ... `end`, `no_grad` ... `end` (see ops.def) ---- */
#define IR_MAX_TRIPS 64 /* largest literal `for` trip count (an int value's is checked when it runs) */
/* Whether op opens a block closed by `end`: if, for, no_grad (`with torch.no_grad():`, issue 33;
 * unlike if/for it opens no scope). */
int ir_block_opener(int op);
/* Index of the `end` closing the block opened at statement s (if/for/no_grad). */
int ir_block_end(const ir_program *p, int s);
/* Index of the `else` of the `if` at s, or -1. */
int ir_block_else(const ir_program *p, int s);
/* Which value ids are int values: loop variables and the results of int ops (ops kind OPS_INT:
 * `x.size(d)`, `x.numel()`, ...). An int value can stand wherever an int literal can: an `i`
 * argument, an element of an int list, an int subscript, a slice bound, a `for` trip count.
 * new array of nvalues flags, free() it. */
char *ir_loop_vars(const ir_program *p);
/* Whether statement st reads an int value (isint as from ir_loop_vars) anywhere. */
int ir_stmt_reads_int(const ir_stmt *st, const char *isint);
/* Calls f(ctx, &id) for every value id argument a refers to (tensors, lists, tensor subscripts,
 * int values in int lists and slice bounds); f may change the id. Slice bound ids are passed as
 * plain value ids (not the +1 form). */
void ir_arg_visit(ir_arg *a, void (*f)(void *ctx, int *v), void *ctx);
/* The value of int op statement st (ops kind OPS_INT, its int arguments already resolved) on a
 * tensor of shape (rank, shape): `size`/`shape` the size of dim args[1] (negative counts from the
 * end), `numel` the element count, `dim` the rank. -1 with err (PyTorch's message) when the dim
 * is out of range or st is no int op. The op's aten name on its table line says which. */
int ir_int_op_value(const ir_stmt *st, int rank, const int64_t *shape, int64_t *out, af_err *err);
/* The trip count of the `for` at st: its literal or ints[value]. */
int64_t ir_for_trips(const ir_stmt *st, const int64_t *ints);
/* Which value ids are lists of tensors (made by `list`); the same kind of array. */
char *ir_list_values(const ir_program *p);
/* A copy of st with every int value (an int argument, an int subscript element, an int list
 * element, a slice bound, a trip count) replaced by its current value ints[var]; returns 1 when
 * something was replaced. Free with ir_stmt_clear. */
int ir_stmt_resolve(const ir_stmt *st, const char *isint, const int64_t *ints, ir_stmt *out);
void ir_stmt_clear(ir_stmt *st);

/* Checks structural invariants (ids in range, args match op schema, values defined before use).
 * Readers and generators call it; the message names the statement and argument. */
int ir_validate(const ir_program *p, af_err *err);

#endif
