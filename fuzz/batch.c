/* batch.c - see batch.h */
#include "batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/ops/ops.h"

void batch_map_clear(batch_map *m) {
  if (!m) return;
  free(m->inputs);
  free(m->outputs);
  memset(m, 0, sizeof *m);
}

const char *batch_alone_reason(const ir_program *p) {
  if (ir_has_layouts(p) || p->nbases) return "input layouts";
  if (p->train) return "a training program";
  for (int s = 0; s < p->nstmts; s++)
    if (p->stmts[s].op == OPS_if) return "a data-dependent if";
  return NULL;
}

/* Value id remap of one sub-program while it is copied (ir_arg_visit's callback). */
static void remap_id(void *ctx, int *v) {
  const int *map = ctx;
  if (*v >= 0) *v = map[*v];
}

/* Adds sub-program j's value v to q under "bJ_NAME"; -1 with err when that is no usable name. */
static int add_renamed(ir_program *q, int j, const char *name, af_err *err) {
  char buf[512];
  snprintf(buf, sizeof buf, "b%d_%s", j, name);
  int v = ir_add_value(q, buf);
  if (v < 0) af_fail(err, "batch_combine: sub-program %d: value %s renamed %s is no usable name", j, name, buf);
  return v;
}

/* Appends sub-program j's input i to q: its shape, dtype and the values it has in its own
 * program (explicit: a default value depends on the input's position). */
static int add_input(ir_program *q, int j, const ir_program *p, int i, af_err *err) {
  const ir_input *in = &p->inputs[i];
  char buf[512];
  snprintf(buf, sizeof buf, "b%d_%s", j, p->names[in->value]);
  if (ir_add_input(q, buf, in->rank, in->shape, in->dtype) < 0)
    return af_fail(err, "batch_combine: sub-program %d: input %s renamed %s is no usable name", j, p->names[in->value], buf);
  ir_input *c = &q->inputs[q->ninputs - 1];
  c->buffer = in->buffer;
  c->attr = in->attr;
  int64_t n = ir_numel(in->rank, in->shape);
  c->ndata = n;
  c->data = af_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
  for (int64_t e = 0; e < n; e++) c->data[e] = ir_input_value(in, i, e);
  return 0;
}

int batch_combine(const ir_program *const *ps, int k, ir_program **out, batch_map *map, af_err *err) {
  *out = NULL;
  if (map) memset(map, 0, sizeof *map);
  if (k < 1 || k > BATCH_MAX) return af_fail(err, "batch_combine: %d programs (1 to %d)", k, BATCH_MAX);
  for (int j = 0; j < k; j++) {
    const char *why = batch_alone_reason(ps[j]);
    if (why) return af_fail(err, "batch_combine: sub-program %d has %s: it is judged alone", j, why);
  }
  ir_program *q = ir_program_new();
  int nin = 0, nout = 0;
  for (int j = 0; j < k; j++) {
    nin += ps[j]->ninputs;
    nout += ps[j]->noutputs;
  }
  batch_ref *rin = af_xcalloc((size_t)nin + 1, sizeof *rin), *rout = af_xcalloc((size_t)nout + 1, sizeof *rout);
  int **maps = af_xcalloc((size_t)k, sizeof *maps);
  int rc = 0;
  /* every input first (a program's inputs are its values 0..ninputs-1) */
  for (int j = 0; j < k && !rc; j++) {
    const ir_program *p = ps[j];
    maps[j] = af_xmalloc(sizeof(int) * (size_t)(p->nvalues + 1));
    for (int v = 0; v < p->nvalues; v++) maps[j][v] = -1;
    for (int i = 0; i < p->ninputs && !rc; i++) {
      rin[q->ninputs] = (batch_ref){j, i};
      if (!(rc = add_input(q, j, p, i, err))) maps[j][p->inputs[i].value] = q->ninputs - 1;
    }
  }
  /* then each body, its values renamed and renumbered */
  for (int j = 0; j < k && !rc; j++) {
    const ir_program *p = ps[j];
    for (int v = 0; v < p->nvalues && !rc; v++)
      if (maps[j][v] < 0 && (maps[j][v] = add_renamed(q, j, p->names[v], err)) < 0) rc = -1;
    for (int s = 0; s < p->nstmts && !rc; s++) {
      const ir_stmt *st = &p->stmts[s];
      int t = ir_add_stmt(q, st->op, st->out >= 0 ? maps[j][st->out] : -1, st->nargs, st->args);
      for (int a = 0; a < st->nargs; a++) ir_arg_visit(&q->stmts[t].args[a], remap_id, maps[j]);
    }
  }
  if (!rc) {
    q->outputs = af_xcalloc((size_t)nout + 1, sizeof(int));
    for (int j = 0; j < k; j++)
      for (int o = 0; o < ps[j]->noutputs; o++) {
        rout[q->noutputs] = (batch_ref){j, o};
        q->outputs[q->noutputs++] = maps[j][ps[j]->outputs[o]];
      }
    char meta[64];
    snprintf(meta, sizeof meta, "{\"batch\": %d}", k);
    ir_set_meta(q, meta);
    if ((rc = ir_validate(q, err))) af_err_prefix(err, "batch_combine: the combined program of %d", k);
  }
  for (int j = 0; j < k; j++) free(maps[j]);
  free(maps);
  if (rc || !map) {
    free(rin);
    free(rout);
  } else {
    *map = (batch_map){k, nin, nout, rin, rout};
  }
  if (rc) ir_program_free(q);
  else *out = q;
  return rc;
}

/* The group idx[0..n) of ps: judged whole unless known_fail (its sibling passed while their
 * parent failed: it holds the failure), split in halves on anything but pass. */
static void judge_group(const ir_program *const *ps, const int *idx, int n, int known_fail, batch_judge_fn judge, void *ctx,
                        judgement *out, batch_stats *st) {
  if (n == 1) {
    memset(&out[idx[0]], 0, sizeof out[idx[0]]);
    judge(ctx, ps[idx[0]], 1, idx[0], &out[idx[0]]);
    st->judged++;
    return;
  }
  if (!known_fail) {
    const ir_program *sub[BATCH_MAX];
    for (int i = 0; i < n; i++) sub[i] = ps[idx[i]];
    ir_program *q = NULL;
    af_err err;
    if (batch_combine(sub, n, &q, NULL, &err) == 0) {
      judgement j;
      memset(&j, 0, sizeof j);
      judge(ctx, q, n, -1, &j);
      st->judged++;
      st->combined++;
      int pass = j.verdict == V_PASS;
      judgement_clear(&j);
      ir_program_free(q);
      if (pass) {
        st->passed++;
        for (int i = 0; i < n; i++) {
          memset(&out[idx[i]], 0, sizeof out[idx[i]]);
          out[idx[i]].verdict = V_PASS;
        }
        return;
      }
    }
  }
  int h = n / 2;
  judge_group(ps, idx, h, 0, judge, ctx, out, st);
  /* the first half passes: the failure of the group is in the second (not judged whole again) */
  int first_passed = 1;
  for (int i = 0; i < h; i++) first_passed &= out[idx[i]].verdict == V_PASS;
  judge_group(ps, idx + h, n - h, first_passed, judge, ctx, out, st);
}

void batch_judge(const ir_program *const *ps, int k, batch_judge_fn judge, void *ctx, judgement *out, batch_stats *stats) {
  batch_stats st = {0};
  int idx[BATCH_MAX];
  if (k > BATCH_MAX) k = BATCH_MAX;
  for (int i = 0; i < k; i++) idx[i] = i;
  if (k > 0) judge_group(ps, idx, k, 0, judge, ctx, out, &st);
  if (stats) {
    stats->judged += st.judged;
    stats->combined += st.combined;
    stats->passed += st.passed;
  }
}
