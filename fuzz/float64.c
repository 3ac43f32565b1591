/* float64.c - see float64.h */
#include "float64.h"


int f64_has(const ir_program *p, af_dtype d) {
  for (int i = 0; i < p->ninputs; i++)
    if (p->inputs[i].dtype == d) return 1;
  for (int b = 0; b < p->nbases; b++)
    if (p->bases[b].dtype == d) return 1;
  for (int s = 0; s < p->nstmts; s++)
    for (int a = 0; a < p->stmts[s].nargs; a++)
      if (p->stmts[s].args[a].kind == IR_ARG_DTYPE && p->stmts[s].args[a].i == (int64_t)d) return 1;
  return 0;
}

ir_program *f64_retyped(const ir_program *p, af_dtype from, af_dtype to) {
  ir_program *q = ir_program_clone(p);
  for (int i = 0; i < q->ninputs; i++)
    if (q->inputs[i].dtype == from) q->inputs[i].dtype = to;
  for (int b = 0; b < q->nbases; b++) /* a layout has its storage's dtype: both change */
    if (q->bases[b].dtype == from) q->bases[b].dtype = to;
  for (int s = 0; s < q->nstmts; s++)
    for (int a = 0; a < q->stmts[s].nargs; a++)
      if (q->stmts[s].args[a].kind == IR_ARG_DTYPE && q->stmts[s].args[a].i == (int64_t)from) q->stmts[s].args[a].i = (int64_t)to;
  return q;
}

/* Judges q (freed here): CLASSES_INVALID when it does not validate; records it in row under k. */
static int rerun(ir_program *q, classes_judge judge, void *ctx, cJSON *row, const char *k) {
  af_err err;
  int r = q && ir_validate(q, &err) == 0 ? judge(q, ctx) : CLASSES_INVALID;
  ir_program_free(q);
  if (row) cJSON_AddStringToObject(row, k, classes_outcome_name(r));
  return r;
}

/* 0 for an answer that says "not this rule" (the program passed or failed otherwise where the rule
 * wants the other), -1 for no answer (eager rejected the rerun, or it did not run). */
static int no(int r) { return r == CLASSES_PASS || r == CLASSES_SAME || r == CLASSES_OTHER ? 0 : -1; }

int f64_needs(const ir_program *p, classes_judge judge, void *ctx, cJSON *row, int *passes32) {
  if (passes32) *passes32 = 0;
  if (!f64_has(p, AF_FLOAT64)) return -1;
  int r = rerun(f64_retyped(p, AF_FLOAT64, AF_FLOAT32), judge, ctx, row, "as_float32");
  if (r != CLASSES_PASS) return no(r);
  if (passes32) *passes32 = 1;
  /* float64 itself, not two float widths meeting: with float32 made float64 it still fails */
  if (f64_has(p, AF_FLOAT32) && (r = rerun(f64_retyped(p, AF_FLOAT32, AF_FLOAT64), judge, ctx, row, "float32_as_float64")) != CLASSES_SAME)
    return no(r);
  return 1;
}

int f64_keyable(oracle_verdict v) {
  return v == V_ERROR || v == V_VALUE_MISMATCH || v == V_SHAPE_MISMATCH || v == V_DTYPE_MISMATCH || v == V_INPUT_MUTATION_LOST;
}
