/* gen_dtview.c - dtype views read back in another width (issue 29): after the program is made,
 * from a stream of its own, a top-level `v = x.view(d)` gets `w = v.view(d2)` right after it, w an
 * output. See gen_dtview.h.
 *
 * The main draw's sources are the default input dtypes, so without this pass int32 -> int64,
 * float16/bfloat16 -> float32 or uint8 -> bool never occur by default; weighting the narrow dtypes
 * as inputs instead would move every program of the default stream. */
#include "gen_dtview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "gen_model.h"
#include "gen_rng.h"


#define DTV_MAX 2 /* dtype views read back in one program */

/* The dtype w = v.view(d2) reads v's bytes as, for the view at statement s (-1: none the rule
   accepts): x's own dtype one time in two, else the first of the others from a random start that
   the rule accepts for v's layout; bool only where v's storage's base is bool (its bytes are 0 or
   1), and no view of a view the model does not know. */
static int pick_dtype(const ir_program *p, int s, uint64_t *rng) {
  static const af_dtype nums[] = {AF_FLOAT32, AF_FLOAT64, AF_FLOAT16, AF_BFLOAT16, AF_INT64, AF_INT32, AF_INT8, AF_UINT8, AF_BOOL};
  enum { NN = sizeof nums / sizeof nums[0] };
  const ir_stmt *st = &p->stmts[s];
  gen_model mo;
  gen_model_refusals(p, s, &mo);
  int v = st->out, x = st->args[0].value, got = -1;
  if (mo.impl_of[v] < 0 || !gen_model_meta(&mo, v)->known) {
    gen_model_free(&mo);
    return -1;
  }
  af_dtype from = gen_model_meta(&mo, x)->dtype, now = gen_model_meta(&mo, v)->dtype;
  int bool_base = mo.impls[gen_model_storage(&mo, v)->base].m.dtype == AF_BOOL;
  int first = (int)(gen_rng_next(rng) % NN), back = gen_rng_unit(rng) < 0.5;
  for (int k = -1; k < NN && got < 0; k++) {
    af_dtype to = k < 0 ? from : nums[(first + k) % NN];
    if (k < 0 && !back) continue;
    if (to == now || (to == AF_BOOL && !bool_base) || af_dtype_is_complex(to)) continue;
    ir_arg a[2] = {{.kind = IR_ARG_VALUE, .value = v}, {.kind = IR_ARG_DTYPE, .i = (int64_t)to, .value = -1}};
    ir_stmt w = {.op = OPS_view_dtype, .out = -1, .nargs = 2, .args = a};
    ops_effect e;
    af_err err;
    if (!ops_shape_infer(&w, &mo.env, &e, &err) && ops_meta_numel(&e.out) <= 256) got = (int)to;
  }
  gen_model_free(&mo);
  return got;
}

ir_program *gen_dtype_view_back(const ir_program *p, uint64_t seed, double p_back) {
  if (p_back <= 0) return NULL;
  uint64_t rng = seed;
  int at[DTV_MAX], dt[DTV_MAX], n = 0;
  for (int s = 0, depth = 0; s < p->nstmts && n < DTV_MAX; s++) {
    const ir_stmt *st = &p->stmts[s];
    if (st->op == OPS_end && depth > 0) depth--;
    if (ir_block_opener(st->op)) depth++;
    if (depth || st->op != OPS_view_dtype || st->out < 0 || st->args[0].kind != IR_ARG_VALUE || gen_rng_unit(&rng) >= p_back) continue;
    int d = pick_dtype(p, s, &rng);
    if (d >= 0) at[n] = s, dt[n++] = d;
  }
  if (!n) return NULL; /* most programs: no dtype view at the top level, no model replay, no eager run */
  ir_program *q = ir_program_clone(p);
  int ns = q->nstmts, k = 0, nv = 0, outs[DTV_MAX];
  ir_stmt *old = q->stmts;
  q->stmts = NULL, q->nstmts = 0, q->cap_stmts = 0;
  for (int s = 0; s < ns; s++) {
    ir_add_stmt(q, old[s].op, old[s].out, old[s].nargs, old[s].args);
    if (k < n && at[k] == s) {
      char name[32];
      int w = -1;
      while (w < 0 && nv < 10000) {
        snprintf(name, sizeof name, "v%d", nv++);
        if (ir_find_value(q, name) < 0) w = ir_add_value(q, name);
      }
      ir_arg a[2] = {{.kind = IR_ARG_VALUE, .value = old[s].out}, {.kind = IR_ARG_DTYPE, .i = dt[k], .value = -1}};
      if (w >= 0) ir_add_stmt(q, OPS_view_dtype, w, 2, a);
      outs[k++] = w;
    }
  }
  for (int s = 0; s < ns; s++) ir_stmt_clear(&old[s]);
  free(old);
  int ok = !q->loss;
  for (int j = 0; j < n && ok; j++) {
    ok = outs[j] >= 0;
    q->outputs = af_xrealloc(q->outputs, sizeof(int) * (size_t)(q->noutputs + 1));
    if (ok) q->outputs[q->noutputs++] = outs[j];
  }
  af_err err;
  result r;
  result_init(&r);
  ok = ok && !ir_validate(q, &err) && gen_model_refusals(q, -1, NULL) <= gen_model_refusals(p, -1, NULL) && !eager_run(q, &r, &err) && r.status == RESULT_OK;
  result_clear(&r);
  if (!ok) {
    ir_program_free(q);
    q = NULL;
  }
  return q;
}
