/* test_default_reach.c - what issue 29 asks the default policy to make (docs/coverage.md has the
 * families): dtype views across every width in both directions (int64 <-> int32, float32 -> int32,
 * float16 and bfloat16 both ways, bool <-> uint8), the in-place functional activations
 * (F.relu(x, inplace=True) and kin), and batch_norm / instance_norm writing running statistics
 * (fuzz/gen_stats.c), each drawn in default programs, valid, with ref agreeing with eager. */
#include <stdlib.h>
#include <string.h>

#include "../fuzz/gen.h"
#include "../fuzz/judge.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "tap.h"

typedef struct reach {
  int pairs[AF_DTYPE_COUNT][AF_DTYPE_COUNT]; /* view_dtype from -> to, as eager ran them */
} reach;

static int pair_hook(void *ctx, int s, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  reach *c = ctx;
  (void)s, (void)err;
  if (st->op == OPS_view_dtype && st->args[0].kind == IR_ARG_VALUE && values[st->args[0].value]) {
    int from = at_tensor_dtype(values[st->args[0].value]), to = (int)st->args[1].i;
    if (from >= 0 && from < AF_DTYPE_COUNT && to >= 0 && to < AF_DTYPE_COUNT) c->pairs[from][to]++;
  }
  return 0;
}

static oracle_verdict verdict(const ir_program *p) {
  judgement j;
  af_err err;
  memset(&j, 0, sizeof j);
  int rc = judge_inprocess(&conv_ref, p, NULL, &j, &err);
  CHECK(rc == 0, "ref: %s", err.msg);
  oracle_verdict v = rc ? V_ERROR : j.verdict;
  judgement_clear(&j);
  return v;
}

/* the F.*(x, inplace=True) forms: in-place activations spelled as torch.nn.functional calls */
static int functional_inplace(int op) {
  const ops_entry *e = ops_get(op);
  return e->kind == OPS_INPLACE && !strncmp(e->name, "F_", 2);
}

TEST(the_default_policy_draws_every_dtype_view_width_inplace_activations_and_running_statistics) {
  gen_policy pol;
  gen_policy_default(&pol);
  reach c;
  memset(&c, 0, sizeof c);
  int act_ops = 0, act_weighted = 0, act_drawn[OPS_COUNT] = {0}, norms = 0, judged = 0, invalid = 0, mism = 0;
  for (int op = 0; op < OPS_COUNT; op++)
    if (functional_inplace(op)) act_ops++, act_weighted += pol.op_weight[op] > 0;
  const uint64_t n = 8000;
  for (uint64_t s = 1; s <= n; s++) {
    ir_program *p = NULL;
    af_err err;
    CHECK(!gen_program(&pol, s, &p, &err), "seed %llu: %s", (unsigned long long)s, err.msg);
    if (!p) return;
    int has = 0;
    for (int i = 0; i < p->nstmts; i++) {
      int op = p->stmts[i].op;
      if (functional_inplace(op)) act_drawn[op]++, has = 1;
      if (op == OPS_batch_norm || op == OPS_instance_norm) norms++, has = 1;
      has |= op == OPS_view_dtype;
    }
    if (has) {
      af_tensor **in = NULL;
      result r;
      result_init(&r);
      if (!inputs_new(p, &in, &err) && !eager_run_traced(p, in, pair_hook, &c, &r, &err) && r.status != RESULT_OK && invalid++ < 3)
        CHECK(0, "seed %llu is invalid: %s", (unsigned long long)s, r.message);
      if (in) inputs_free(ir_ntensors(p), in);
      if (r.status == RESULT_OK) {
        judged++;
        if (verdict(p) != V_PASS && mism++ < 3) CHECK(0, "seed %llu: ref disagrees with eager", (unsigned long long)s);
      }
      result_clear(&r);
    }
    ir_program_free(p);
  }
  int kinds = 0;
  for (int op = 0; op < OPS_COUNT; op++) kinds += act_drawn[op] > 0;
  printf("# %llu default programs: F.*(inplace=True) %d of %d kinds drawn; %d batch_norm/instance_norm; dtype views "
         "int64->int32 %d, int32->int64 %d, float32->int32 %d, int32->float32 %d, float32->float16 %d, float16->float32 %d, "
         "float32->bfloat16 %d, bfloat16->float32 %d, float64->int64 %d, int64->float64 %d, bool->uint8 %d, uint8->bool %d; "
         "%d judged\n",
         (unsigned long long)n, kinds, act_ops, norms, c.pairs[AF_INT64][AF_INT32], c.pairs[AF_INT32][AF_INT64],
         c.pairs[AF_FLOAT32][AF_INT32], c.pairs[AF_INT32][AF_FLOAT32], c.pairs[AF_FLOAT32][AF_FLOAT16],
         c.pairs[AF_FLOAT16][AF_FLOAT32], c.pairs[AF_FLOAT32][AF_BFLOAT16], c.pairs[AF_BFLOAT16][AF_FLOAT32],
         c.pairs[AF_FLOAT64][AF_INT64], c.pairs[AF_INT64][AF_FLOAT64], c.pairs[AF_BOOL][AF_UINT8], c.pairs[AF_UINT8][AF_BOOL], judged);
  CHECK(act_ops >= 12 && act_weighted == act_ops && kinds == act_ops, "F.*(inplace=True): %d ops, %d weighted, %d drawn", act_ops,
        act_weighted, kinds);
  CHECK(pol.op_weight[OPS_view_dtype] > 0, "view_dtype weight %g", pol.op_weight[OPS_view_dtype]);
  static const int want[][2] = {{AF_INT64, AF_INT32},     {AF_INT32, AF_INT64},    {AF_FLOAT32, AF_INT32},
                                {AF_INT32, AF_FLOAT32},   {AF_FLOAT32, AF_FLOAT16}, {AF_FLOAT16, AF_FLOAT32},
                                {AF_FLOAT32, AF_BFLOAT16}, {AF_BFLOAT16, AF_FLOAT32}, {AF_BOOL, AF_UINT8},
                                {AF_UINT8, AF_BOOL}};
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
    CHECK(c.pairs[want[k][0]][want[k][1]] > 0, "no %s -> %s dtype view in %llu default programs", af_dtype_name(want[k][0]),
          af_dtype_name(want[k][1]), (unsigned long long)n);
  CHECK(norms >= 40, "batch_norm/instance_norm with running statistics: %d in %llu default programs", norms, (unsigned long long)n);
  CHECK(invalid == 0 && mism == 0, "%d invalid programs, %d ref disagreements in %d judged", invalid, mism, judged);
}

/* The read-back views come after the program is made (fuzz/gen_dtview.c, chances.dtype_view_back):
 * each program is the one the generator makes with the chance at 0, or that program with a
 * `w = v.view(d2)` right after a top-level dtype view v and w an output; dropping those gives the
 * program back. A program whose writes changed nothing eager could see is redrawn (noop_redraws),
 * and a read-back view can make such a write visible, so that draw is kept where the chance at 0
 * drew again: a few in a thousand (1 of the first 5000 default programs; bench/RESULTS.md, H29b). */
TEST(the_read_back_views_are_added_to_a_finished_program_and_change_nothing_else) {
  gen_policy def, off;
  gen_policy_default(&def);
  off = def;
  off.p_dtype_view_back = 0;
  int added = 0, same = 0, other = 0, bad = 0;
  const uint64_t n = 2000;
  for (uint64_t seed = 1; seed <= n; seed++) {
    ir_program *p = NULL, *q = NULL;
    af_err err;
    if (gen_program(&def, seed, &p, &err) || gen_program(&off, seed, &q, &err)) {
      CHECK(0, "seed %llu: %s", (unsigned long long)seed, err.msg);
      ir_program_free(p);
      continue;
    }
    char *a = codec_write_string(p), *b = codec_write_string(q);
    static const char off_meta[] = "\"policy\":{\"chances\":{\"dtype_view_back\":0}}";
    char *m = strstr(b, off_meta);
    if (m) memmove(m + 10, m + sizeof off_meta - 2, strlen(m + sizeof off_meta - 2) + 1); /* "policy":{} */
    if (!strcmp(a, b)) {
      same++;
    } else {
      /* the added statements: a dtype view of the statement right before it, which is one too,
         whose value is an output and no statement of the other program defines */
      char *ks = calloc((size_t)p->nstmts + 1, 1), *ko = calloc((size_t)p->noutputs + 1, 1);
      int nadd = 0;
      for (int s = 0; s < p->nstmts; s++) {
        const ir_stmt *st = &p->stmts[s];
        int back = s > 0 && st->op == OPS_view_dtype && p->stmts[s - 1].op == OPS_view_dtype && st->args[0].kind == IR_ARG_VALUE &&
                   st->args[0].value == p->stmts[s - 1].out && ir_find_value(q, p->names[st->out]) < 0;
        ks[s] = !back;
        nadd += back;
        for (int o = 0; o < p->noutputs; o++)
          if (back && p->outputs[o] == st->out) ko[o] = 1;
      }
      for (int o = 0; o < p->noutputs; o++) ko[o] = !ko[o];
      ir_program *r = nadd ? ir_subset(p, ks, ko, NULL) : NULL;
      char *c = r ? codec_write_string(r) : NULL;
      if (c && !strcmp(c, b)) {
        added++;
        if (verdict(p) != V_PASS) bad++;
      } else {
        other++;
      }
      free(c);
      ir_program_free(r);
      free(ks), free(ko);
    }
    free(a), free(b);
    ir_program_free(p), ir_program_free(q);
  }
  printf("# %llu default programs: %d the same, %d with a dtype view read back, %d other (kept instead of redrawn)\n",
         (unsigned long long)n, same, added, other);
  CHECK(added >= 15 && other <= 4, "%d programs with a view read back, %d changed otherwise", added, other);
  CHECK(bad == 0, "ref agrees with eager on every program with a view read back (%d did not)", bad);
}

int main(void) {
  at_init();
  RUN(the_default_policy_draws_every_dtype_view_width_inplace_activations_and_running_statistics);
  RUN(the_read_back_views_are_added_to_a_finished_program_and_change_nothing_else);
  return tap_done();
}
