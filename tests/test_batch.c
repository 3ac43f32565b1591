/* test_batch.c - batched conversion (fuzz/batch.h): k generated programs combined into one give,
 * in eager PyTorch, each program's own outputs and final input states; judged as a batch through a
 * real converter (naive, in process: wrong on shape-changing in-place ops), each program gets
 * exactly the judgement it gets alone. */
#include <stdlib.h>
#include <string.h>

#include "../fuzz/batch.h"
#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "tap.h"

#define NPROGS 40

/* Generated programs (default policy, seeds 1..) that batch_alone_reason lets combine. */
static int combinable(ir_program **ps, int want) {
  gen_policy pol;
  gen_policy_default(&pol);
  int n = 0;
  for (uint64_t seed = 1; seed < 400 && n < want; seed++) {
    ir_program *p = NULL;
    af_err err;
    if (judge_gen_program(&pol, seed, &p, NULL, NULL, &err)) break;
    if (!batch_alone_reason(p)) ps[n++] = p;
    else ir_program_free(p);
  }
  return n;
}

/* Whether two tensors hold the same shape, dtype and values (exactly: both are eager's). */
static int same_tensor(const af_tensor *a, const af_tensor *b) {
  if (!a || !b) return a == b;
  int r = at_tensor_rank(a);
  if (r != at_tensor_rank(b) || at_tensor_dtype(a) != at_tensor_dtype(b)) return 0;
  int64_t sa[AF_MAX_RANK], sb[AF_MAX_RANK];
  at_tensor_shape(a, sa);
  at_tensor_shape(b, sb);
  if (memcmp(sa, sb, sizeof(int64_t) * (size_t)r)) return 0;
  int64_t n = at_tensor_numel(a);
  double *va = malloc(sizeof(double) * (size_t)(n + 1)), *vb = malloc(sizeof(double) * (size_t)(n + 1));
  af_err err;
  int same = at_tensor_values(a, va, &err) == 0 && at_tensor_values(b, vb, &err) == 0;
  for (int64_t e = 0; same && e < n; e++) same = va[e] == vb[e] || (va[e] != va[e] && vb[e] != vb[e]);
  free(va);
  free(vb);
  return same;
}

TEST(combined_eager_run_gives_each_programs_own_outputs_and_final_inputs) {
  ir_program *ps[NPROGS];
  int n = combinable(ps, NPROGS);
  CHECK(n == NPROGS, "%d combinable generated programs of %d", n, NPROGS);
  int groups = 0, compared = 0;
  for (int g = 0; g + 4 <= n; g += 4, groups++) {
    ir_program *q = NULL;
    batch_map m;
    af_err err;
    int rc = batch_combine((const ir_program *const *)ps + g, 4, &q, &m, &err);
    CHECK(rc == 0, "combine programs %d..%d: %s", g, g + 3, rc ? err.msg : "");
    if (rc) continue;
    result e;
    result_init(&e);
    CHECK(eager_run(q, &e, &err) == 0 && e.status == RESULT_OK, "combined eager run of %d..%d: %s", g, g + 3,
          e.message ? e.message : "");
    CHECK(e.noutputs == m.noutputs && e.ninputs == m.ninputs, "one result per mapped output and input");
    for (int j = 0; j < 4 && e.status == RESULT_OK; j++) {
      result s;
      result_init(&s);
      CHECK(eager_run(ps[g + j], &s, &err) == 0 && s.status == RESULT_OK, "program %d alone", g + j);
      for (int o = 0; o < m.noutputs; o++)
        if (m.outputs[o].prog == j && s.status == RESULT_OK) {
          CHECK(same_tensor(e.outputs[o], s.outputs[m.outputs[o].index]), "program %d output %d: combined equals alone", g + j,
                m.outputs[o].index);
          compared++;
        }
      for (int i = 0; i < m.ninputs; i++)
        if (m.inputs[i].prog == j && s.status == RESULT_OK) {
          CHECK(same_tensor(e.inputs[i], s.inputs[m.inputs[i].index]), "program %d input %d's final state: combined equals alone",
                g + j, m.inputs[i].index);
          compared++;
        }
      result_clear(&s);
    }
    result_clear(&e);
    batch_map_clear(&m);
    ir_program_free(q);
  }
  CHECK(groups == NPROGS / 4 && compared > 4 * NPROGS, "%d groups, %d tensors compared", groups, compared);
  for (int i = 0; i < n; i++) ir_program_free(ps[i]);
}

TEST(programs_with_layouts_or_an_if_or_training_are_judged_alone) {
  gen_policy pol;
  gen_policy_default(&pol);
  pol.p_layout = 0.3;
  pol.p_train = 0.3;
  int seen[4] = {0, 0, 0, 0}; /* judged alone for layouts, for an if; combinable with buffers; alone for training */
  for (uint64_t seed = 1; seed < 600; seed++) {
    ir_program *p = NULL;
    af_err err;
    if (gen_program(&pol, seed, &p, &err)) break;
    const char *why = batch_alone_reason(p);
    int cond = 0;
    for (int s = 0; s < p->nstmts; s++) cond |= p->stmts[s].op == OPS_if;
    if (ir_has_layouts(p)) seen[0] += why != NULL;
    else if (cond) seen[1] += why != NULL;
    else if (p->train) seen[3] += why != NULL && strstr(why, "training");
    else {
      CHECK(why == NULL, "seed %llu: a program without layouts or if is combinable (%s)", (unsigned long long)seed, why);
      seen[2] += ir_nbuffers(p) > 0;
    }
    if (why) {
      ir_program *q = NULL;
      const ir_program *two[2] = {p, p};
      CHECK(batch_combine(two, 2, &q, NULL, &err) == -1 && strstr(err.msg, why), "seed %llu: combine refuses: %s",
            (unsigned long long)seed, err.msg);
      ir_program_free(q);
    }
    ir_program_free(p);
  }
  CHECK(seen[0] && seen[1] && seen[2] && seen[3], "layouts %d, if %d, training %d programs judged alone; %d with buffers combinable",
        seen[0], seen[1], seen[3], seen[2]);
}

/* The judge of the test: the real in-process converter, as the campaign judges (a harness error
 * is an invalid program). */
typedef struct judge_ctx {
  const conv_converter *c;
  int calls[BATCH_MAX + 1]; /* by the number of programs combined */
} judge_ctx;

static void judge_inproc(void *vctx, const ir_program *p, int n, int idx, judgement *out) {
  judge_ctx *x = vctx;
  oracle_opts oo = {0};
  af_err err;
  (void)idx;
  x->calls[n]++;
  if (judge_inprocess(x->c, p, &oo, out, &err)) {
    out->verdict = V_INVALID_PROGRAM;
    out->detail = af_xstrdup(err.msg);
  }
}

/* Every group of 4 of ps[0..n) batched through converter name: each program's batched judgement
 * equals its judgement alone; a group that passes is judged once. *failing, *passing_groups
 * counted. */
static void batch_equals_alone(const char *name, ir_program **ps, int n, int *failing, int *passing_groups) {
  const conv_converter *c = conv_find(name);
  CHECK(c != NULL, "the %s converter", name);
  if (!c) return;
  judge_ctx x = {c, {0}};
  for (int g = 0; g + 4 <= n; g += 4) {
    judgement js[4];
    batch_stats st = {0};
    batch_judge((const ir_program *const *)ps + g, 4, judge_inproc, &x, js, &st);
    int fails = 0;
    for (int j = 0; j < 4; j++) {
      judgement alone;
      judge_inproc(&x, ps[g + j], 1, g + j, &alone);
      CHECK(js[j].verdict == alone.verdict && !strcmp(js[j].detail ? js[j].detail : "", alone.detail ? alone.detail : ""),
            "%s, program %d: batched %s (%s), alone %s (%s)", name, g + j, oracle_verdict_name(js[j].verdict),
            js[j].detail ? js[j].detail : "", oracle_verdict_name(alone.verdict), alone.detail ? alone.detail : "");
      fails += alone.verdict != V_PASS;
      judgement_clear(&alone);
      judgement_clear(&js[j]);
    }
    *failing += fails;
    if (!fails) {
      ++*passing_groups;
      CHECK(st.judged == 1 && st.combined == 1, "%s: a group that passes is judged once, combined (%d judged)", name, st.judged);
    } else {
      CHECK(st.judged >= 1 + fails && st.judged <= 7, "%s: a group with %d failing programs: %d judgements", name, fails, st.judged);
    }
  }
}

TEST(a_batch_gives_each_program_the_judgement_it_gets_alone) {
  ir_program *ps[NPROGS];
  int n = combinable(ps, NPROGS);
  /* jit gets most programs right, naive most wrong: whole groups pass, and groups split */
  int failing[2] = {0, 0}, passing_groups[2] = {0, 0};
  batch_equals_alone("jit", ps, n, &failing[0], &passing_groups[0]);
  batch_equals_alone("naive", ps, n, &failing[1], &passing_groups[1]);
  CHECK(failing[0] > 0 && passing_groups[0] > 0 && failing[1] > n / 2, "jit fails %d of %d programs, %d groups pass whole; naive fails %d",
        failing[0], n, passing_groups[0], failing[1]);
  for (int i = 0; i < n; i++) ir_program_free(ps[i]);
}

int main(void) {
  RUN(combined_eager_run_gives_each_programs_own_outputs_and_final_inputs);
  RUN(programs_with_layouts_or_an_if_or_training_are_judged_alone);
  RUN(a_batch_gives_each_program_the_judgement_it_gets_alone);
  return tap_done();
}
