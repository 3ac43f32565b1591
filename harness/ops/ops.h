/* ops.h - read access to the op table (ops.def). */
#ifndef OPS_H
#define OPS_H

#include "../ir.h"

/* OPS_CTRL: control flow (if/else/end/for, assert), no tensor op; OPS_LIST: lists of tensors;
 * OPS_INT: the result is a Python int read from a tensor's metadata (`x.size(d)`, `x.numel()`),
 * an int value (ir.h) usable wherever an int literal is; OPS_FOREACH: `torch._foreach_add_([a, b],
 * ...)`, an in-place op on every tensor of its list argument 0 (element k with element k of each
 * list operand, or with the one number), returning nothing; its twin is the in-place op each
 * element gets (add_) */
typedef enum { OPS_VIEW, OPS_INPLACE, OPS_FUNC, OPS_OUT, OPS_SETITEM, OPS_GETITEM, OPS_CTRL, OPS_LIST, OPS_INT, OPS_FOREACH } ops_kind;

enum { OPF_META = 1, OPF_MAYBE_VIEW = 2, OPF_PICK = 4, OPF_CONTIG_OUT = 8, OPF_FILL = 16, OPF_TS_GAP = 32, OPF_OPT_IN = 64, OPF_STORAGE_BYTES = 128, OPF_CORE = 256, OPF_UNPACK = 512, OPF_NO_SUITE = 1024, OPF_REBIND = 2048 };

/* OPF_WRITES(mask): the arguments the op writes in place, bit k for argument k (batch_norm's
 * running statistics: OPF_WRITES(OPS_ARG(3) | OPS_ARG(4))). Without it an op writes what its kind
 * says (ops_writes). High bits of the flags, beside the OPF_ bits. */
#define OPS_ARG(k) (1u << (k))
#define OPF_WRITES_SHIFT 16
#define OPF_WRITES(mask) ((unsigned)(mask) << OPF_WRITES_SHIFT)

#define OPS_MAX_ARGS 9

typedef struct ops_entry {
  const char *name;
  ops_kind kind;
  unsigned flags;
  const char *schema;   /* as in ops.def */
  int nargs;            /* derived from schema */
  char argk[OPS_MAX_ARGS][3]; /* per-argument schema code, e.g. "T", "s?" */
  const char *aten, *overload, *overload_scalar;
  const char *spelling;
  const char *twin;
  const char *scatter;
  const char *family, *dtypes, *exact; /* as on its ops.def line */
  const char *shape_rule, *sample_rule, *wb_rule; /* rule names (harness/ops/ops_rules.def) */
  const char *form;     /* its row in its family's form table (binary.def), or "none" */
} ops_entry;

enum {
#define OP(name, ...) OPS_##name,
#include "ops.def"
#undef OP
  OPS_COUNT
};

/* The rule families of harness/ops/ops_rules.def. */
typedef enum { OPS_RULE_SHAPE, OPS_RULE_SAMPLE, OPS_RULE_WB, OPS_RULE_KIND_COUNT } ops_rule_kind;
int ops_rule_count(ops_rule_kind k);                  /* rules of that kind */
const char *ops_rule_name(ops_rule_kind k, int i);     /* borrowed; NULL when out of range */
int ops_rule_find(ops_rule_kind k, const char *name);  /* index, or -1 when no rule has that name */
/* The class of shape rule i (its SHAPE(name, class) line): "VIEW", "META", "WRITE", "FUNC", "NONE". */
const char *ops_rule_class(int i);

const ops_entry *ops_get(int op);          /* borrowed; NULL when out of range */
int ops_find(const char *name);            /* op id or -1 */
const char *ops_kind_name(ops_kind k);     /* "view", "inplace", ... */
/* Op id of the entry's twin (functional counterpart), or -1. */
int ops_twin(int op);
/* True when the op writes into its argument 0 (in-place, out=, setitem; foreach: into every tensor
 * of the list that is its argument 0). */
int ops_mutates(int op);
/* The arguments the op writes in place, bit k for argument k: its line's OPF_WRITES, else by its
 * kind (INPLACE, OUT, SETITEM, FOREACH: argument 0; others none). */
unsigned ops_writes(int op);
/* The tensor values statement st writes in place (every element of a written list argument; a
 * written argument that is None writes nothing), into out[0..max); returns how many there are
 * (more than max: the first max stored). */
int ops_stmt_written(const ir_stmt *st, int *out, int max);
/* Schema letter r: a reduction mode (scatter_reduce's reduce=), held in the IR as an int, written as
 * its name in program files and spellings. The name of mode k ("sum", "prod", "mean", "amax",
 * "amin"; borrowed), or NULL out of range; the mode of a name, or -1. */
const char *ops_reduce_name(int64_t k);
int ops_reduce_find(const char *name);

#endif
