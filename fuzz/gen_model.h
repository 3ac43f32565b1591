/* gen_model.h - the alias model: what the generator (and the pattern counter) knows about every
 * value of a program while it is being built or replayed. Each value names a tensor (several
 * names can name one tensor: `y = x.add_(1)`, `x.flatten(1, 1)`); each tensor has a layout
 * (harness/ops_shape.h), a storage, and, for views, the view op that made it and its depth (the
 * number of views between it and its storage's base). Statements are applied with the effect
 * ops_shape_infer computed for them. Internal to fuzz/gen*.c. */
#ifndef GEN_MODEL_H
#define GEN_MODEL_H

#include "../harness/ops/ops_shape.h"

/* value flags: index tensors and masks are never written; loop variables are ints; values
 * defined in a block that has ended are out of scope; a name rebound in one branch of an if
 * names different tensors afterwards depending on the branch taken (usable only as an output) */
enum { GEN_VF_INDEX = 1, GEN_VF_MASK = 2, GEN_VF_INT = 4, GEN_VF_DEAD = 8, GEN_VF_REBOUND = 16, GEN_VF_LIST = 32 };

typedef struct gen_impl {
  ops_meta m;
  int storage;
  int view_op; /* op that made this view; -1 for a base */
  int depth;   /* 0 for a base */
  int parent;  /* impl this is a view of; -1 */
} gen_impl;

typedef struct gen_storage {
  int64_t numel; /* in elements of the base's dtype */
  int esize;     /* bytes of one such element (a dtype view counts the storage in its own) */
  int input;  /* input index, or -1 */
  int base;   /* impl of the base */
  int nviews; /* views made of it so far */
  int written_via_view; /* last statement that wrote through a view of it, -1 */
  int writer; /* impl that did that write */
  int inexact; /* holds float values an executor may compute in other last bits (see
                  ops_shape_exactness): discontinuous ops never read it */
  int keep_exact; /* a discontinuous view reads it (an int view of float bits): it re-reads the
                     storage at every later use, so no inexact value may be written into it */
} gen_storage;

typedef struct gen_model {
  const ir_program *p; /* borrowed */
  int nvals, capv;
  int *impl_of;
  unsigned char *flags;
  int nimpl, capi;
  gen_impl *impls;
  int nstor, caps;
  gen_storage *stor;
  ops_env env;
  int **lst; /* value id of a list -> the impls it holds (the tensors, not the names) */
  int *nlst;
  int caplst;
} gen_model;

/* Starts a model of p with p's inputs (later inputs: gen_model_add_input). */
void gen_model_init(gen_model *mo, const ir_program *p);
void gen_model_free(gen_model *mo); /* frees the arrays, not mo */
void gen_model_add_input(gen_model *mo, int input_index);
/* Applies statement s of p (already appended) with its inferred effect. */
void gen_model_apply(gen_model *mo, int s, const ops_effect *e);
/* Marks statement s's result as unknown (its infer failed while replaying). */
void gen_model_apply_unknown(gen_model *mo, int s);
/* How many statements of p the op table's rules refuse, replayed on a new model of p (blocks
 * flat; a refused statement's result is unknown); with upto >= 0 only statements 0..upto, and with
 * mo the model is left there for the caller (gen_model_free), else freed. */
int gen_model_refusals(const ir_program *p, int upto, gen_model *mo);
const ops_meta *gen_model_meta(const gen_model *mo, int value);
const gen_impl *gen_model_impl(const gen_model *mo, int value);
const gen_storage *gen_model_storage(const gen_model *mo, int value);
/* Elements of the value's storage counted in the value's own dtype (a dtype view of another
 * element size counts the same bytes in its elements). */
int64_t gen_model_storage_numel(const gen_model *mo, int value);
/* A list statement (list, list_append, list_get, list_set, cat_list, stack_list; st with its
 * loop variables resolved) against the model: 0 when eager accepts it (indices in range, cat and
 * stack of equal shapes and one dtype); with apply, the model then has its effect (a list value
 * gets GEN_VF_LIST). -1 with err otherwise. */
int gen_model_list(gen_model *mo, const ir_stmt *st, int apply, af_err *err);
/* Sets flag f on value v (which may be new to the model). */
void gen_model_set_flag(gen_model *mo, int v, unsigned char f);
/* dst = a deep copy of src (dst uninitialized; free with gen_model_free). */
void gen_model_copy(gen_model *dst, const gen_model *src);
/* OPS_LAP_* between the memory of values a and b (by bytes where their dtypes' sizes differ). */
int gen_model_overlap(const gen_model *mo, int a, int b);

#endif
