/* conv_ref_chain.h - the reference functionalizer's state and machinery (conv_ref_chain.c),
 * private to conv_ref*.c: the functional program being built, storages and the view chains of
 * their objects, a storage in memory order, reading a chain and writing back through it (the
 * algorithm: conv_ref.c's header). conv_ref.c translates each statement with it. */
#ifndef CONV_REF_CHAIN_H
#define CONV_REF_CHAIN_H

#include <string.h>

#include "../eager.h"
#include "../ops/ops_views.h"

#define RF_RANK OPS_VIEW_MAX_RANK
#define RF_MAX_STEPS 64 /* inverse and subscript steps of one statement */

typedef struct rf_step {
  ops_call call; /* the view op and its arguments; args[0] is unused */
  int prank, vrank;
  int64_t pshape[RF_RANK], vshape[RF_RANK]; /* shapes of its input and of the view, as eager has them */
  af_dtype pdtype, vdtype;                  /* dtypes of its input and of the view (view(dtype) changes it) */
} rf_step;

typedef struct rf_chain {
  int n;
  rf_step *s;
} rf_chain;

typedef struct rf_memo {
  char *key; /* chain prefix key (see step_key), or "#mem" for the storage in memory order */
  int val;   /* value id in the functional program */
} rf_memo;

typedef struct rf_storage {
  int root;         /* functional value: the root's current contents */
  af_tensor *eager; /* eager's root as it was made (an alias: later metadata changes do not reach it) */
  int input;        /* input index, or -1 */
  int written;      /* contents changed since it was made */
  int flat;         /* -1, or the storage's whole memory (a flat functional value) for a root that is no
                       dense tensor at offset 0 whose other elements eager keeps: PyTorch 2.x's scatter
                       ops and copy clone self's whole storage (clone_preserve_strides). Current with
                       root overlaid at eager's layout (storage_mem) */
  int nmemo;
  rf_memo *memo;
} rf_storage;

typedef struct rf_object {
  int storage;
  rf_chain chain;
  int name; /* the value id (in p) that first named it: names its values in the output */
} rf_object;

typedef struct rf {
  const ir_program *p;
  ir_program *q; /* the functional program being built */
  int *obj;      /* p value id -> object, -1 until defined */
  rf_object *objs;
  int nobjs;
  rf_storage *sto;
  int nsto;
  int declined; /* the error in flight is "ref does not model this" */
  int **lst;    /* p value id of a list -> the objects it holds */
  int *nlst;
  /* new_value's names hint_1, hint_2, ...: per hint the next k to try (the ones below are taken
     for good: names only come), open addressing by ir_name_hash */
  struct rf_hint {
    char *hint;
    int next;
  } *hints;
  int cap_hints, nhints;
} rf;

static inline ir_arg a_val(int v) { return (ir_arg){.kind = IR_ARG_VALUE, .value = v}; }
static inline ir_arg a_int(int64_t i) { return (ir_arg){.kind = IR_ARG_INT, .i = i, .value = -1}; }
static inline ir_arg a_bool(int b) { return (ir_arg){.kind = IR_ARG_BOOL, .i = b, .value = -1}; }
static inline ir_arg a_ints(int n, const int64_t *v) {
  ir_arg a = {.kind = IR_ARG_INTS, .n = n, .value = -1};
  a.ints = af_xcalloc((size_t)(n ? n : 1), sizeof(int64_t));
  if (n) memcpy(a.ints, v, sizeof(int64_t) * (size_t)n);
  return a;
}

int rf_decline(rf *c, af_err *err, const char *fmt, const char *what);

void rf_shape_of(const af_tensor *t, int *rank, int64_t *shape);

void rf_chain_free(rf_chain *ch);

void rf_chain_copy(rf_chain *dst, const rf_chain *src);

/* Appends a step (taking ownership of its call); as_strided starts a chain of its own. */
void rf_chain_push(rf_chain *ch, rf_step *st);

/* The key of one step: op name and its literal arguments (and, for as_strided, which addresses the
 * storage in its input's elements, that input's dtype). Equal keys, equal views. */
void rf_step_key(af_buf *b, const rf_step *st);

/* Keys of every prefix of ch: keys->s holds the whole chain's key; prefix j is its first len[j]
 * characters. */
void rf_chain_keys(const rf_chain *ch, int n, af_buf *keys, size_t *len);

void rf_memo_put(rf_storage *st, const char *key, size_t len, int val);

void rf_memo_reset(rf_storage *st);

/* Appends `out = op(args)` to q; returns out. args are copied. */
int rf_emit(rf *c, int op, int nargs, const ir_arg *args, const char *hint, int own);

const char *rf_obj_hint(const rf *c, int o);

/* What to call the value of the first j steps of ch on storage s: the name of the first object
 * that is exactly that view (x for the root, n for n = x.narrow(...)), else fallback. */
const char *rf_chain_name(const rf *c, int s, const rf_chain *ch, int j, const char *fallback);

int rf_new_storage(rf *c, int root, const af_tensor *eager, int input, af_err *err);

/* A new object on storage with a copy of chain (which may be another object's). */
int rf_new_object(rf *c, int storage, const rf_chain *chain, int name);

/* Shape of an object now: its last step's view, or its storage's root. */
void rf_obj_shape(const rf *c, int o, int *rank, int64_t *shape);

/* Eager's memory order of t: perm orders its dims by decreasing stride, so that t.permute(perm)
 * is contiguous when t is dense. Returns whether t is dense (no gap, no repeat); *identity when
 * perm is the identity. */
int rf_dense_order(const af_tensor *t, int *rank, int64_t *perm, int *identity);

/* Value v laid out in memory the way eager's clone of t is, for ops that address memory
 * (ops_layout_arg): permute to that order, make contiguous, permute back. */
int rf_with_layout(rf *c, int v, const af_tensor *t, const char *hint);

/* Whether eager's as_strided_scatter(t, ...) reads its offset against a clone of t's whole
 * storage: PyTorch 2.x clones the storage (clone_preserve_strides: t's sizes, strides and storage
 * offset kept) unless t has internal overlap (a zero stride), then a plain clone(), as 1.13 always
 * does. Only a t that is not its whole storage, densely at offset 0, sees the difference. */
int rf_clones_whole_storage(const af_tensor *t);

/* 2.x's as_strided_scatter(a, src, size, stride, offset) for an a that rf_clones_whole_storage (q:
 * the statement's args on current values, t: eager's a): a written into a flat tensor of its
 * storage's size at its eager sizes, strides and offset, src scattered at the absolute window,
 * a's window read back. The elements no view of a reaches are never read: zeros stand for them. */
int rf_as_strided_scatter_storage(rf *c, const ir_arg *q, const af_tensor *t, const char *hint, int own);

/* A storage with a flat memory: the memory with the root's current elements at eager's layout. */
int rf_flat_with_root(rf *c, int s, const char *hint);

/* The storage's contents as eager lays them out: a fresh contiguous tensor, offset 0, whose
 * memory is eager's storage, so that as_strided and as_strided_scatter on it address the same
 * elements eager's do. An input nobody wrote is that already. */
int rf_storage_mem(rf *c, int s, af_err *err);

/* The value of the first n steps of ch on storage s, emitting the steps the memo lacks. */
int rf_chain_value(rf *c, int s, const rf_chain *ch, int n, const char *hint, int own, af_err *err);

int rf_obj_value(rf *c, int o, af_err *err);

/* The current value of p's value v. */
int rf_fval(rf *c, int v, af_err *err);

/* Copies p-level args with every value replaced by its current value in q. */
int rf_subst_args(rf *c, int nargs, const ir_arg *in, ir_arg *out, af_err *err);

void rf_args_free(int nargs, ir_arg *args);

/* Writes u, the new value of chain ch's view, into storage s (see 3. in conv_ref.c's header). */
int rf_write_back(rf *c, int s, const rf_chain *ch, int u, int uniform, const char *hint, af_err *err);

/* u = twin(t, args[1..]) for an in-place op with target value t (in q); cast back to t's dtype
 * when promotion widened it. eager_target: an eager tensor like the target. */
int rf_emit_twin(rf *c, int twin, int t, int nargs, const ir_arg *args, const af_tensor *eager_target,
                 af_tensor *const *values, const char *hint, af_err *err);

#endif
