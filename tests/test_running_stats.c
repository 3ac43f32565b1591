/* test_running_stats.c - functional ops that also write arguments in place (issue 29): the op
 * table's written-arguments fact (ops.def OPF_WRITES, ops_writes, ops_stmt_written) and batch_norm
 * / instance_norm in training mode, whose running statistics (arguments 3 and 4) are module
 * buffers: eager updates them, ref gives the updated state back through a view, a converter that
 * drops the update (naive) is caught as a lost input mutation, statistics that share memory are
 * undefined, and the generator draws them as buffers, valid, with ref agreeing. */
#include <stdlib.h>
#include <string.h>

#include "../fuzz/gen.h"
#include "../fuzz/judge.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "tap.h"

/* x [2, 3, 4]; buf [2, 3] a buffer whose row 1 is the running mean; rv [3] a buffer */
static const char *BN_VIEW =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2, 3, 4], \"dtype\": \"float64\"},"
    " {\"name\": \"buf\", \"shape\": [2, 3], \"dtype\": \"float64\", \"buffer\": true, \"data\": [0, 0, 0, 0, 0, 0]},"
    " {\"name\": \"rv\", \"shape\": [3], \"dtype\": \"float64\", \"buffer\": true}],"
    " \"body\": [{\"op\": \"select\", \"out\": \"rm\", \"args\": [\"buf\", 0, 1]},"
    " {\"op\": \"OP\", \"out\": \"y\", \"args\": [\"x\", null, null, \"rm\", \"rv\", true, 0.25, 1e-05, false]}],"
    " \"outputs\": [\"y\"]}";

/* both statistics every other element of one flat buffer [6] (no shared element), x rank 4 */
static const char *BN_PACKED =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2, 3, 2, 2], \"dtype\": \"float64\"},"
    " {\"name\": \"w\", \"shape\": [3], \"dtype\": \"float64\"},"
    " {\"name\": \"st\", \"shape\": [6], \"dtype\": \"float64\", \"buffer\": true}],"
    " \"body\": [{\"op\": \"slice\", \"out\": \"rm\", \"args\": [\"st\", 0, 0, 6, 2]},"
    " {\"op\": \"slice\", \"out\": \"rv\", \"args\": [\"st\", 0, 1, 6, 2]},"
    " {\"op\": \"OP\", \"out\": \"y\", \"args\": [\"x\", \"w\", \"w\", \"rm\", \"rv\", true, 0.5, 0.001, false]},"
    " {\"op\": \"mul_\", \"args\": [\"rm\", 2]}],"
    " \"outputs\": [\"y\", \"rv\"]}";

/* the statistics partly overlap: st[0:3] and st[1:4] */
static const char *BN_OVERLAP =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [4, 3], \"dtype\": \"float64\"},"
    " {\"name\": \"st\", \"shape\": [4], \"dtype\": \"float64\", \"buffer\": true}],"
    " \"body\": [{\"op\": \"slice\", \"out\": \"rm\", \"args\": [\"st\", 0, 0, 3, 1]},"
    " {\"op\": \"slice\", \"out\": \"rv\", \"args\": [\"st\", 0, 1, 4, 1]},"
    " {\"op\": \"OP\", \"out\": \"y\", \"args\": [\"x\", null, null, \"rm\", \"rv\", true, 0.1, 1e-05, false]}],"
    " \"outputs\": [\"y\"]}";

/* text with its op "OP" replaced by op, read (new) */
static ir_program *program(const char *text, const char *op) {
  char buf[2048], *at;
  snprintf(buf, sizeof buf, "%s", text);
  at = strstr(buf, "\"OP\"");
  if (at) {
    char rest[2048];
    snprintf(rest, sizeof rest, "%s", at + 4);
    snprintf(at, sizeof buf - (size_t)(at - buf), "\"%s\"%s", op, rest);
  }
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(buf, "t", &p, &err) == 0, "%s: %s", op, err.msg);
  return p;
}

static oracle_verdict verdict(const conv_converter *c, const ir_program *p, char **detail, int *residual) {
  judgement j;
  af_err err;
  memset(&j, 0, sizeof j);
  int rc = judge_inprocess(c, p, NULL, &j, &err);
  CHECK(rc == 0, "%s: %s", c->name, err.msg);
  oracle_verdict v = rc ? V_ERROR : j.verdict;
  if (detail) *detail = j.detail ? af_xstrdup(j.detail) : NULL;
  if (residual) *residual = j.residual;
  judgement_clear(&j);
  return v;
}

TEST(the_op_table_names_the_arguments_an_op_writes) {
  CHECK(ops_writes(OPS_batch_norm) == (OPS_ARG(3) | OPS_ARG(4)), "batch_norm writes arguments 3 and 4: %#x", ops_writes(OPS_batch_norm));
  CHECK(ops_writes(OPS_instance_norm) == (OPS_ARG(3) | OPS_ARG(4)), "instance_norm: %#x", ops_writes(OPS_instance_norm));
  CHECK(ops_writes(OPS_add_) == 1 && ops_writes(OPS_add) == 0 && ops_writes(OPS_foreach_add_) == 1 && ops_writes(OPS_slice) == 0,
        "by kind: add_ %#x, add %#x, foreach %#x, slice %#x", ops_writes(OPS_add_), ops_writes(OPS_add), ops_writes(OPS_foreach_add_),
        ops_writes(OPS_slice));
  CHECK(!ops_mutates(OPS_batch_norm) && ops_mutates(OPS_add_), "ops_mutates is argument 0's write");
  ir_program *p = program(BN_VIEW, "batch_norm");
  if (!p) return;
  int w[4], n = ops_stmt_written(&p->stmts[1], w, 4);
  CHECK(n == 2 && w[0] == ir_find_value(p, "rm") && w[1] == ir_find_value(p, "rv"), "batch_norm writes rm and rv: %d values", n);
  p->stmts[1].args[4] = (ir_arg){.kind = IR_ARG_NONE, .value = -1}; /* None writes nothing */
  n = ops_stmt_written(&p->stmts[1], w, 4);
  CHECK(n == 1 && w[0] == ir_find_value(p, "rm"), "with running_var None only rm: %d values", n);
  ir_program_free(p);
}

TEST(a_running_mean_written_through_a_view_of_a_buffer_comes_back_from_ref) {
  const char *ops[] = {"batch_norm", "instance_norm"};
  for (int k = 0; k < 2; k++) {
    ir_program *p = program(BN_VIEW, ops[k]);
    if (!p) continue;
    result r;
    af_err err;
    result_init(&r);
    CHECK(eager_run(p, &r, &err) == 0 && r.status == RESULT_OK, "%s: eager: %s", ops[k], r.message ? r.message : err.msg);
    double row[6] = {0};
    if (r.status == RESULT_OK && r.ninputs == 3) CHECK(at_tensor_values(r.inputs[1], row, &err) == 0, "%s", err.msg);
    CHECK(row[0] == 0 && row[1] == 0 && row[2] == 0, "%s: row 0 of buf stays as it was", ops[k]);
    CHECK(row[3] != 0 || row[4] != 0 || row[5] != 0, "%s: eager updates row 1 of buf (the running mean)", ops[k]);
    result_clear(&r);
    int residual = -1;
    char *d = NULL;
    oracle_verdict v = verdict(&conv_ref, p, &d, &residual);
    CHECK(v == V_PASS && residual == 0, "%s: ref passes with a functional graph: %s (%s), residual %d", ops[k], oracle_verdict_name(v),
          d ? d : "", residual);
    free(d);
    ir_program_free(p);
    p = program(BN_PACKED, ops[k]);
    if (!p) continue;
    v = verdict(&conv_ref, p, &d, NULL);
    CHECK(v == V_PASS, "%s: ref passes both statistics in one buffer, then a write through one: %s (%s)", ops[k],
          oracle_verdict_name(v), d ? d : "");
    free(d);
    ir_program_free(p);
  }
}

TEST(a_converter_that_drops_the_running_statistics_is_caught) {
  ir_program *p = program(BN_VIEW, "batch_norm");
  if (!p) return;
  char *d = NULL;
  oracle_verdict v = verdict(&conv_naive, p, &d, NULL);
  CHECK(v == V_INPUT_MUTATION_LOST && d && strstr(d, "buf"), "naive (batch_norm without its statistics): %s (%s)",
        oracle_verdict_name(v), d ? d : "");
  free(d);
  ir_program_free(p);
}

TEST(running_statistics_that_share_memory_are_an_undefined_program) {
  const char *ops[] = {"batch_norm"};
  for (int k = 0; k < 1; k++) {
    ir_program *p = program(BN_OVERLAP, ops[k]);
    if (!p) continue;
    result r;
    af_err err;
    result_init(&r);
    CHECK(eager_run(p, &r, &err) == 0, "%s: %s", ops[k], err.msg);
    CHECK(r.status == RESULT_ERROR && r.message && (strstr(r.message, "share") || strstr(r.message, "undefined")),
          "%s: eager refuses it: %s", ops[k], r.message ? r.message : "(ran)");
    result_clear(&r);
    ir_program_free(p);
  }
}

TEST(the_generator_draws_them_as_module_buffers_valid_and_ref_agrees) {
  gen_policy pol;
  af_err err;
  CHECK(!gen_policy_from_json("{\"ops\": {\"batch_norm\": 100, \"instance_norm\": 100}, \"dtypes\": {\"float64\": 12}, \"chances\": {\"module\": 0.6}}", &pol, &err), "%s",
        err.msg);
  int stmts = 0, buffers = 0, views = 0, bad = 0;
  for (uint64_t seed = 1; seed <= 150; seed++) {
    ir_program *p;
    if (gen_program(&pol, seed, &p, &err)) {
      CHECK(0, "seed %llu: %s", (unsigned long long)seed, err.msg);
      continue;
    }
    int has = 0;
    for (int s = 0; s < p->nstmts; s++) {
      const ir_stmt *st = &p->stmts[s];
      if (st->op != OPS_batch_norm && st->op != OPS_instance_norm) continue;
      stmts++, has = 1;
      int w[2], n = ops_stmt_written(st, w, 2);
      for (int k = 0; k < n && k < 2; k++) {
        for (int i = 0; i < p->ninputs; i++) buffers += p->inputs[i].value == w[k] && p->inputs[i].buffer;
        views += w[k] >= p->ninputs; /* a value made by the body: a view of a larger buffer */
      }
    }
    if (has && verdict(&conv_ref, p, NULL, NULL) != V_PASS) bad++;
    ir_program_free(p);
  }
  CHECK(stmts >= 20, "the policy draws them: %d statements in 150 programs", stmts);
  CHECK(buffers >= stmts / 2 && views >= 2, "running statistics as module buffers (%d) and views of one (%d) in %d statements", buffers,
        views, stmts);
  CHECK(bad == 0, "ref agrees with eager on every program that holds one (%d did not)", bad);
}

/* The default policy draws them after the program is made (fuzz/gen_stats.c, chances.running_stats):
 * each program is the one the generator makes with the chance at 0, or that program with one
 * batch_norm or instance_norm added (and its new inputs, the views of a statistic's buffer, and its
 * result as an output): dropping those gives the program back byte for byte. The statistics are
 * module buffers or views of one in most, eager runs every program, and ref agrees with eager. */
TEST(the_default_policy_adds_them_to_a_finished_program_and_changes_nothing_else) {
  gen_policy def, off;
  gen_policy_default(&def);
  /* training (issue 33) is the pass after this one: it would make a training program of either
     program, each by what eager accepts of its own body, so both are compared without it */
  def.p_train = 0;
  off = def;
  off.p_running_stats = 0;
  CHECK(def.p_running_stats > 0 && def.op_weight[OPS_batch_norm] == 0 && def.op_weight[OPS_instance_norm] == 0,
        "default: chance %g, op weights %g and %g (the main draw never makes them)", def.p_running_stats,
        def.op_weight[OPS_batch_norm], def.op_weight[OPS_instance_norm]);
  int added = 0, same = 0, other = 0, buffers = 0, views = 0, bad = 0, bn = 0, in = 0;
  for (uint64_t seed = 1; seed <= 1200; seed++) {
    ir_program *p = NULL, *q = NULL;
    af_err err;
    if (gen_program(&def, seed, &p, &err) || gen_program(&off, seed, &q, &err)) {
      CHECK(0, "seed %llu: %s", (unsigned long long)seed, err.msg);
      ir_program_free(p);
      continue;
    }
    /* meta records the seed and the policy's difference from the defaults: the same program otherwise */
    free(p->meta), free(q->meta);
    p->meta = q->meta = NULL;
    char *a = codec_write_string(p), *b = codec_write_string(q);
    if (!strcmp(a, b)) {
      same++;
    } else {
      int norm = -1, nnorm = 0;
      for (int s = 0; s < p->nstmts; s++)
        if (p->stmts[s].op == OPS_batch_norm || p->stmts[s].op == OPS_instance_norm) norm = s, nnorm++;
      char *ks = calloc((size_t)p->nstmts + 1, 1), *ko = calloc((size_t)p->noutputs + 1, 1), *ki = calloc((size_t)p->ninputs + 1, 1);
      for (int s = 0; s < p->nstmts; s++) ks[s] = s != norm;
      for (int o = 0; o < p->noutputs; o++) ko[o] = norm < 0 || p->outputs[o] != p->stmts[norm].out;
      for (int i = 0; i < p->ninputs; i++) ki[i] = i < q->ninputs;
      ir_program *r = nnorm == 1 ? ir_subset(p, ks, ko, ki) : NULL;
      char *c = r ? codec_write_string(r) : NULL;
      if (c && !strcmp(c, b)) {
        added++;
        const ir_stmt *st = &p->stmts[norm];
        bn += st->op == OPS_batch_norm, in += st->op == OPS_instance_norm;
        for (int k = 3; k <= 4; k++) {
          int v = st->args[k].kind == IR_ARG_VALUE ? st->args[k].value : -1;
          buffers += v >= 0 && v < p->ninputs && p->inputs[v].buffer;
          views += v >= p->ninputs;
        }
        if (verdict(&conv_ref, p, NULL, NULL) != V_PASS) bad++;
      } else if (other++ < 3) {
        CHECK(0, "seed %llu: the program differs by more than one added normalization:\n%s\n--- with the chance at 0:\n%s",
              (unsigned long long)seed, a, b);
      }
      free(c);
      ir_program_free(r);
      free(ks), free(ko), free(ki);
    }
    free(a), free(b);
    ir_program_free(p), ir_program_free(q);
  }
  printf("# 1200 default programs: %d the same, %d with one added (batch_norm %d, instance_norm %d; statistics: %d buffers, %d "
         "views), %d other\n", same, added, bn, in, buffers, views, other);
  CHECK(other == 0 && added >= 15 && added <= 120, "%d programs with one added, %d changed otherwise", added, other);
  CHECK(bn > 0 && in > 0 && buffers >= added / 2 && views > 0, "batch_norm %d, instance_norm %d, statistics as buffers %d, views %d",
        bn, in, buffers, views);
  CHECK(bad == 0, "ref agrees with eager on every program with one added (%d did not)", bad);
}

int main(void) {
  at_init();
  RUN(the_op_table_names_the_arguments_an_op_writes);
  RUN(a_running_mean_written_through_a_view_of_a_buffer_comes_back_from_ref);
  RUN(a_converter_that_drops_the_running_statistics_is_caught);
  RUN(running_statistics_that_share_memory_are_an_undefined_program);
  RUN(the_generator_draws_them_as_module_buffers_valid_and_ref_agrees);
  RUN(the_default_policy_adds_them_to_a_finished_program_and_changes_nothing_else);
  return tap_done();
}
