/* suite_cb.h - the conformance suite's case builder (suite_cb.c), private to fuzz/suite*.c: a
 * small program builder (cb: inputs may be added after statements; they are ordered first when
 * the program is built), eager's answers about the program so far, and the arguments each op of
 * the table gets in the suite (its recipe, or the op table's sampler made deterministic). */
#ifndef SUITE_CB_H
#define SUITE_CB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/eager.h"
#include "../harness/ir.h"
#include "../harness/ops/ops.h"
#include "../harness/ops/ops_shape.h"


#define B_MAXV 24
#define B_MAXS 12

typedef struct bval {
  char name[16];
  int is_input;
  int rank;
  int64_t shape[AF_MAX_RANK];
  af_dtype dt;
  int ndata;
  double data[64];
  int grad;  /* training (cb.train): an input that is a leaf requiring grad */
  int param; /* training: an input that is an nn.Parameter of the module (requires grad) */
} bval;

typedef struct bstmt {
  int op;
  int out; /* bval index or -1 */
  int nargs;
  ir_arg args[OPS_MAX_ARGS]; /* IR_ARG_VALUE .value etc. are bval indices */
} bstmt;

typedef struct cb {
  bval v[B_MAXV];
  int nv;
  bstmt s[B_MAXS];
  int ns;
  int outs[4];
  int nouts;
  int train;      /* a training program (docs/training.md): cb_build sets train, grads and loss */
  double loss[4]; /* training: output k's loss weight (0: 1) */
} cb;


static inline ir_arg A_V(int v) { return (ir_arg){.kind = IR_ARG_VALUE, .value = v}; }
static inline ir_arg A_I(int64_t i) { return (ir_arg){.kind = IR_ARG_INT, .i = i}; }
static inline ir_arg A_B(int i) { return (ir_arg){.kind = IR_ARG_BOOL, .i = i}; }
static inline ir_arg A_INTS(int n, const int64_t *x) {
  ir_arg a = {.kind = IR_ARG_INTS, .n = n};
  a.ints = af_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  memcpy(a.ints, x, sizeof(int64_t) * (size_t)n);
  return a;
}
static inline ir_arg A_VALUES(int n, const int *x) {
  ir_arg a = {.kind = IR_ARG_VALUES, .n = n};
  a.values = af_xmalloc(sizeof(int) * (size_t)n);
  memcpy(a.values, x, sizeof(int) * (size_t)n);
  return a;
}
static inline ir_arg A_INDEX(int n, const ir_index *x) {
  ir_arg a = {.kind = IR_ARG_INDEX, .n = n};
  a.index = af_xmalloc(sizeof(ir_index) * (size_t)n);
  memcpy(a.index, x, sizeof(ir_index) * (size_t)n);
  return a;
}

/* Empties b, freeing its statements' argument lists. */
void cb_clear(cb *b);
/* A new input value (shape, dtype) named name (made unique). Returns its value. */
int cb_input(cb *b, const char *name, int rank, const int64_t *shape, af_dtype dt);
/* Appends a statement; takes ownership of the args' lists. Returns the out value or -1. */
int cb_stmt(cb *b, const char *out, int op, int nargs, ir_arg *args);
/* The program: inputs first (in the order they were added), then the statements. new. */
ir_program *cb_build(const cb *b, int nouts, const int *outs);
/* Runs the program so far in eager with the given outputs. 0 and the eager result in r (clear
 * with result_clear), or -1 with why. */
int cb_eager(const cb *b, int nouts, const int *outs, result *r, af_err *why);
/* Shape of value v as eager has it after the statements so far. */
int cb_shape(const cb *b, int v, int *rank, int64_t *shape, af_err *why);
/* Whether eager's a and c share storage after the statements so far (-1: eager failed). */
int cb_shares(const cb *b, int a, int c, af_err *why);

static inline int cb_same(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* Makes v = recipe(src) where src has the given shape and its storage storage_numel elements.
 * Returns the view's value, or -1 with why (no arguments fit). May add inputs. */
int cb_view(cb *b, const char *recipe, int src, int rank, const int64_t *s, int64_t storage_numel, const char *out,
            af_err *why);
/* Applies write op (a table op of kind INPLACE, SETITEM or OUT) to target t of the given shape:
 * with the suite's recipe for it when it has one (the core writes), else (m not NULL) with the
 * op table's sampler. 0, or -1 with why (no arguments fit). */
int cb_write(cb *b, int op, int t, int rank, const int64_t *s, const ops_meta *m, int64_t storage_numel, af_err *why);
/* cb_write on target t after checking that t's elements do not overlap (see suite_cb.c). */
int cb_write_into(cb *b, int op, int t, af_err *why);

#endif
