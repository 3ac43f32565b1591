/* gen.h - the program generator: random programs with aliasing views and in-place ops that
 * eager PyTorch accepts by construction.
 *
 * While it generates, the generator keeps an alias model of every value (gen_model.h): its
 * storage, the chain of views that leads to it, its exact shape, strides and storage offset as
 * eager PyTorch will have them, whether its elements overlap (expanded views), and its dtype.
 * Every statement is drawn from the op table's argument samplers (harness/ops_shape.h) and
 * checked against the op table's validity rules before it is kept, so the program never asks
 * eager for what it rejects (writes into overlapping memory, casts an in-place op cannot do,
 * dims or indices out of range, shapes that do not broadcast).
 *
 * The generator steers towards the patterns converters get wrong: views of views, several live
 * views of one base, writes through a view followed by reads of the base and of siblings,
 * in-place ops on inputs and on views of inputs, shape-changing in-place ops followed by uses of
 * the same name, reshape/flatten that are views in some cases and copies in others, setitem with
 * every index kind, outputs that depend on writes through values they never mention, out= forms.
 *
 * Every probability and limit lives in gen_policy, printable and loadable as JSON. Every program
 * records in its meta: {"seed": S, "generator": "aliasfuzz 0.1.0", "policy": {...}}, where
 * "policy" holds the fields that differ from this version's defaults ({} for the defaults), so
 * `aliasfuzz gen --seed S` with that policy gives the program back, byte for byte. */
#ifndef GEN_H
#define GEN_H

#include "../harness/ops/ops.h"
#include "../harness/ops/ops_shape.h"

#define GEN_VERSION "aliasfuzz " AF_VERSION

/* What one generation step does; each has a weight in the policy. */
typedef enum {
  GEN_ACT_VIEW,   /* make a view (or a maybe-view: reshape, flatten, getitem) of a value */
  GEN_ACT_MUTATE, /* an in-place op, setitem or out= op on a value */
  GEN_ACT_READ,   /* a functional op that reads values into a fresh one */
  GEN_ACT_COUNT
} gen_action;

/* Subscript element kinds for getitem/setitem (see ops_shape.h's OPS_IDX_*). */
#define GEN_IDX_KINDS OPS_IDX_KIND_COUNT

typedef struct gen_policy {
  /* limits */
  int min_stmts, max_stmts;      /* generation steps per program (auxiliary statements such as
                                    masks come on top) */
  int min_inputs, max_inputs;    /* data inputs (index tensors come on top) */
  int max_rank;                  /* of inputs */
  int max_view_rank;             /* of any value */
  int max_dim;                   /* largest size of one dim of an input */
  int max_numel;                 /* elements of any value (<= 256) */
  int max_view_depth;            /* views of views of ... */
  int max_outputs;
  int max_block_depth;           /* if/for nested in if/for ... (0: straight-line programs) */
  int max_block_stmts;           /* generation steps in one block body */
  int max_trips;                 /* for loops run 2..max_trips times */
  int noop_redraws;              /* a program whose writes change nothing eager can see is
                                    passed over for another, at most this many times
                                    (judge_gen_program: campaigns and `aliasfuzz gen`; a write
                                    that changes nothing proves nothing; 0 keeps every program) */
  /* weights */
  double dtype_weight[AF_DTYPE_COUNT]; /* of data inputs and of operands any dtype fits (masks
                                          come from gt whatever the bool weight) */
  double action_weight[GEN_ACT_COUNT];
  double op_weight[OPS_COUNT];         /* 0 disables an op; ops the generator cannot draw are ignored */
  double index_weight[GEN_IDX_KINDS];  /* subscript element kinds */
  double decide[OPS_DECIDE_COUNT];     /* probabilities of the op table samplers' decision points */
  /* chances (0..1) */
  double p_view_of_view;      /* a new view's source is itself a view */
  double p_sibling;           /* a new view's source is a value that already has live views */
  double p_strided_source;    /* a new view's source is non-contiguous (reshape/flatten copy) */
  double p_target_view;       /* a mutation's target is a view (else a base) */
  double p_target_input;      /* a base target is an input (else an intermediate) */
  double p_read_after_write;  /* after a write through a view, read its base or a sibling next */
  double p_use_after_meta;    /* after a shape-changing in-place op, use the same name next */
  double p_bind_result;       /* an in-place op also binds its result to a new name */
  double p_new_operand;       /* an operand tensor is a new input even when a value fits */
  double p_output_base;       /* an output is the base of a written view (else any value) */
  double p_output_view;       /* an extra output is a view that was written through */
  double p_for;               /* a step opens a for loop (while blocks may nest deeper) */
  double p_if;                /* a step opens an if on a data-dependent condition */
  double p_else;              /* an if has an else */
  double p_loop_index;        /* inside a loop, an int index (select, subscript) is the loop variable */
  double p_rebind;            /* inside a block, a step rebinds a name from outside (s = s + 1) */
  double p_list;              /* a step builds a list of tensors, writes through it and cats/stacks it */
  double p_module;            /* the program is an nn.Module's forward with module state */
  double p_buffer;            /* in such a program, a new data input is a buffer (self.NAME) */
  double p_layout;            /* the program's inputs get layouts (issue 16, gen_layout.c): an offset,
                                 transposed, stepped or expanded input, an input that views another,
                                 two windows of a hidden base; kept only when eager accepts it */
  double p_size_value;        /* the program's int literals outside loops are read from the inputs'
                                 sizes where they match, half of them (issue 15, gen_sizes.c:
                                 x[:n], view([n, -1]), range(n) with n = v.size(d), v.shape[d],
                                 v.numel(), v.dim()); 0 keeps every program as it was */
  double p_factory;           /* a step makes a tensor with a factory that takes no tensor (issue 15:
                                 torch.zeros/ones/full([...]), torch.arange(n), torch.eye(n),
                                 torch.empty([...]).fill_(v), sizes from a value's shape), which the
                                 next step then views or writes; 0 keeps every program as it was */
  double p_set;               /* a step makes x.set_(y) (issue 29: x a local no view or input shares
                                 takes y's storage, sizes, strides and offset; gen.c gen_set), drawn
                                 from a stream of its own: 0 keeps every program as it was */
  double p_train;             /* the program is a training program (issue 33, gen_train.c: inputs and
                                 buffers that require grad where autograd allows, loss weights,
                                 backward); 0.2 by default (docs/training.md) */
  double p_train_state_read;  /* in a training program: module state written, then read with an input
                                 that requires grad (gen_train.h; default GEN_TRAIN_P_STATE_READ) */
  double p_train_view_input;  /* ... a data input made a view of a caller's leaf (GEN_TRAIN_P_VIEW_INPUT) */
  double p_train_data;        /* ... a .detach() made .data (GEN_TRAIN_P_DATA) */
  double p_train_out_views;   /* ... two views of one intermediate, or it and its .detach(), returned as
                                 new outputs (GEN_TRAIN_P_OUT_VIEWS) */
  double p_train_grad_mode;   /* ... a torch.set_grad_enabled(False) the call leaves behind, or one
                                 undone later (GEN_TRAIN_P_GRAD_MODE) */
  double p_attribute;         /* a module buffer that is no parameter is a plain tensor attribute
                                 instead (issue 29: `self.NAME = tensor`, not register_buffer),
                                 drawn after the program is made, from a stream of its own: the
                                 program is otherwise the same; 0 keeps every program as it was */
  double p_dtype_view_back;   /* a top-level dtype view `v = x.view(d)` is viewed again right after it
                                 in another dtype (x's own first: int32 -> int64, float16 -> float32,
                                 uint8 -> bool), drawn after the program is made from a stream of its
                                 own (issue 29, gen_dtview.c); 0 keeps every program as it was */
  double p_running_stats;     /* batch_norm or instance_norm in training mode whose running
                                 statistics are new module buffers, added to the finished program
                                 from a stream of its own (issue 29, gen_stats.c); 0 keeps every
                                 program as it was */
} gen_policy;

/* The defaults of this generator version. */
void gen_policy_default(gen_policy *p);
/* p = the defaults, overridden by the fields present in text (a JSON object in the form that
 * gen_policy_to_json writes; any subset of its fields). 0, or -1 with "policy: field: what was
 * expected" in err for malformed JSON, unknown fields, wrong types or values out of range. */
int gen_policy_from_json(const char *text, gen_policy *p, af_err *err);
/* The whole policy as JSON (multi-line, stable field order). new, free with free(). */
char *gen_policy_to_json(const gen_policy *p);
/* Only the fields that differ from the defaults, compact ("{}" for the defaults): what
 * program meta records. new, free with free(). */
char *gen_policy_diff_json(const gen_policy *p);
/* Checks ranges (limits positive and ordered, probabilities in 0..1, some weight > 0). */
int gen_policy_check(const gen_policy *p, af_err *err);

/* PRNG-driven: the same (policy, seed) gives the same program, byte for byte.
 * *out new, free with ir_program_free. -1 with err only for a bad policy. */
int gen_program(const gen_policy *pol, uint64_t seed, ir_program **out, af_err *err);

/* The layout pass (gen_layout.c) on a program whose inputs are not yet renumbered: gives one
 * input a layout (and may add an input that shares its memory, with a write through it), drawn
 * from seed alone. 1 when it changed p; 0 when p keeps plain inputs (it has an in-place change of
 * shape, or no input fits). */
int gen_layouts(ir_program *p, uint64_t seed);
/* Whether p's statements allow input layouts at all (no shape write, no out= kernel that needs
 * contiguous strides, no dtype view that needs whole elements of its storage). */
int gen_layouts_allowed(const ir_program *p);

/* Byte-driven: the generator's decisions read from data (libFuzzer/AFL++ bytes) through the
 * provider's decoder; running out of bytes takes each decision's default, so every byte string,
 * the empty one included, gives a valid program. meta records {"bytes": LEN, "fnv1a": "HEX"}
 * instead of a seed. *out new, free with ir_program_free. */
int gen_program_from_bytes(const gen_policy *pol, const uint8_t *data, size_t len, ir_program **out, af_err *err);

/* ---- pattern coverage (gen_cov.c) ----
 * Replays a program through the alias model and counts the patterns it contains: each mutation
 * (in-place op, setitem, out=) whose target is a view made by view op V counts the pair
 * (V, mutating op) at its view depth (1, or 2 and more) on an input or an intermediate base;
 * plus setitem index kinds, reshape/flatten as view vs copy, shape-changing in-place ops
 * followed by a use, reads of a base or sibling after a write through a view. Works on any
 * valid program, generated or not. */
typedef struct gen_cov gen_cov;

gen_cov *gen_cov_new(void); /* new, free with gen_cov_free */
void gen_cov_free(gen_cov *c);
void gen_cov_add(gen_cov *c, const ir_program *p);
/* True when the op table allows mutating op m through view op v (both op ids). */
int gen_cov_pair_allowed(int v, int m);
/* Statements of op (both op ids) in the programs added so far. */
long gen_cov_op_count(const gen_cov *c, int op);
/* Count of pair (v, m) at depth class d (0: depth 1, 1: depth >= 2) on root r (0: input,
 * 1: intermediate; -1: both). */
long gen_cov_pair_count(const gen_cov *c, int v, int m, int d, int r);
/* Human-readable report (covered pairs per depth, roots, never-seen allowed pairs, other
 * pattern counters), appended to b. */
void gen_cov_report(const gen_cov *c, af_buf *b);
/* The coverage table: statements by op family x where their first tensor argument lives (input,
 * view of an input, intermediate, view of one, buffer; factories: none) x its dtype class
 * (float32/64, float16/bf16, int, bool, complex), control-flow and list statements left out; as a
 * Markdown table when markdown, else aligned by two spaces. */
void gen_cov_table(const gen_cov *c, int markdown, af_buf *b);

/* Pattern features of one program as small integer ids (view op x mutating op x depth class x
 * root, plus the other counters' events), for fuzz engines that take extra coverage. Writes at
 * most max ids into ids (each < gen_feature_space()) and returns how many there were. */
int gen_features(const ir_program *p, uint32_t *ids, int max);
uint32_t gen_feature_space(void);

#endif
