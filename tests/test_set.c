/* test_set.c - Tensor.set_(source) (issue 29): x.set_(y) makes x's TensorImpl share y's storage with
 * y's sizes, strides and offset. Checked by hand-computed values in eager, through ref (which
 * re-roots x's object: every name of x and every list holding it moves, views of x taken before
 * stay on the old storage), against the rules (another dtype is refused, as eager refuses it),
 * ref declining an input's set_, and the generator: its narrow form drawn valid with ref agreeing,
 * from a stream of its own (a program that draws no set_ is the one chances.set 0 makes). */
#include <stdlib.h>
#include <string.h>

#include "../fuzz/gen.h"
#include "../fuzz/judge.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/eager.h"
#include "../harness/emit.h"
#include "../harness/ops/ops.h"
#include "../harness/ops/ops_shape.h"
#include "tap.h"

/* y [2, 3] = 0..5. x = zeros(3); b = x.add_(1) (b: another name of x); v = x[0:2] (a view of x
 * before the set_); l = [x]; s = y[:, 1:]; x.set_(s); b.mul_(10) (lands in y); v.add_(5) (stays on
 * x's old storage); w = l[0] (the list holds x itself). */
static const char *MOVES =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"y\", \"shape\": [2, 3], \"dtype\": \"float32\","
    " \"data\": [0, 1, 2, 3, 4, 5]}],"
    " \"body\": [{\"out\": \"x\", \"op\": \"zeros\", \"args\": [[3]]},"
    " {\"out\": \"b\", \"op\": \"add_\", \"args\": [\"x\", 1]},"
    " {\"out\": \"v\", \"op\": \"slice\", \"args\": [\"x\", 0, 0, 2, 1]},"
    " {\"out\": \"l\", \"op\": \"list\", \"args\": [[\"x\"]]},"
    " {\"out\": \"s\", \"op\": \"getitem\", \"args\": [\"y\", [{\"slice\": [null, null, 1]}, {\"slice\": [1, null, 1]}]]},"
    " {\"op\": \"set_\", \"args\": [\"x\", \"s\"]},"
    " {\"op\": \"mul_\", \"args\": [\"b\", 10]},"
    " {\"op\": \"add_\", \"args\": [\"v\", 5]},"
    " {\"out\": \"w\", \"op\": \"list_get\", \"args\": [\"l\", 0]}],"
    " \"outputs\": [\"s\", \"w\", \"v\"]}";

/* set_ of an input: x takes y's storage; ref declines it */
static const char *OF_INPUT =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"},"
    " {\"name\": \"y\", \"shape\": [2], \"dtype\": \"float32\"}],"
    " \"body\": [{\"op\": \"set_\", \"args\": [\"x\", \"y\"]}, {\"op\": \"add_\", \"args\": [\"x\", 1]}],"
    " \"outputs\": [\"y\"]}";

static ir_program *program(const char *text) {
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(text, "t", &p, &err) == 0, "%s", err.msg);
  return p;
}

static oracle_verdict verdict(const conv_converter *c, const ir_program *p, char **detail) {
  judgement j;
  af_err err;
  memset(&j, 0, sizeof j);
  int rc = judge_inprocess(c, p, NULL, &j, &err);
  CHECK(rc == 0, "%s: %s", c->name, err.msg);
  oracle_verdict v = rc ? V_ERROR : j.verdict;
  if (detail) *detail = j.detail ? af_xstrdup(j.detail) : NULL;
  judgement_clear(&j);
  return v;
}

static void check_values(const af_tensor *t, int n, const double *want, const char *what) {
  double got[8] = {0};
  af_err err;
  CHECK(t && at_tensor_numel(t) == n && n <= 8, "%s: %d elements", what, t ? (int)at_tensor_numel(t) : -1);
  if (!t || at_tensor_numel(t) != n || n > 8) return;
  CHECK(at_tensor_values(t, got, &err) == 0, "%s: %s", what, err.msg);
  for (int k = 0; k < n; k++) CHECK(got[k] == want[k], "%s[%d] is %g, want %g", what, k, got[k], want[k]);
}

TEST(set_moves_every_name_of_a_local_into_the_source_and_leaves_its_old_views_behind) {
  ir_program *p = program(MOVES);
  if (!p) return;
  result r;
  af_err err;
  result_init(&r);
  CHECK(eager_run(p, &r, &err) == 0 && r.status == RESULT_OK, "eager: %s", r.message ? r.message : err.msg);
  if (r.status == RESULT_OK && r.noutputs == 3 && r.ninputs == 1) {
    static const double s[4] = {10, 20, 40, 50}, v[2] = {6, 6}, y[6] = {0, 10, 20, 3, 40, 50};
    check_values(r.outputs[0], 4, s, "s (b.mul_(10) landed in y through x's new storage)");
    check_values(r.outputs[1], 4, s, "w = l[0] (the list holds x, which moved)");
    check_values(r.outputs[2], 2, v, "v (x's view from before stays on the old storage)");
    check_values(r.inputs[0], 6, y, "y's final state");
    int64_t sh[2] = {0};
    at_tensor_shape(r.outputs[1], sh);
    CHECK(at_tensor_rank(r.outputs[1]) == 2 && sh[0] == 2 && sh[1] == 2, "w has s's shape [2, 2]");
  }
  result_clear(&r);
  char *d = NULL;
  oracle_verdict vd = verdict(&conv_ref, p, &d);
  CHECK(vd == V_PASS, "ref: %s (%s)", oracle_verdict_name(vd), d ? d : "");
  free(d);
  vd = verdict(&conv_naive, p, &d);
  CHECK(vd == V_UNSUPPORTED && d && strstr(d, "set_"), "naive declines it: %s (%s)", oracle_verdict_name(vd), d ? d : "");
  free(d);
  ir_program_free(p);
}

static const ops_meta *meta_of(void *ctx, int v) { return &((const ops_meta *)ctx)[v]; }

TEST(set_to_another_dtype_is_refused_by_the_rule_as_by_eager) {
  ir_program *p = program(OF_INPUT);
  if (!p) return;
  p->inputs[1].dtype = AF_FLOAT64;
  result r;
  af_err err;
  result_init(&r);
  CHECK(eager_run(p, &r, &err) == 0 && r.status == RESULT_ERROR, "eager refuses set_ of a float32 to a float64 tensor");
  CHECK(r.message && strstr(r.message, "Could not set tensor"), "eager: %s", r.message ? r.message : "(ran)");
  result_clear(&r);
  ops_meta m[2];
  int64_t three = 3, two[2] = {2, 1};
  ops_meta_init(&m[0], AF_FLOAT32, 1, &three);
  ops_meta_init(&m[1], AF_FLOAT64, 2, two);
  ops_env env = {.ctx = m, .meta = meta_of};
  ops_effect e;
  CHECK(ops_shape_infer(&p->stmts[0], &env, &e, &err) == -1 && strstr(err.msg, "Could not set tensor"), "the rule refuses it");
  m[1].dtype = AF_FLOAT32;
  m[1].offset = 1;
  CHECK(ops_shape_infer(&p->stmts[0], &env, &e, &err) == 0, "%s", err.msg);
  CHECK(e.rebind == 1 && e.meta_change && e.alias == OPS_ALIAS_SAME && e.out.rank == 2 && e.out.shape[0] == 2 && e.out.offset == 1,
        "the effect: x takes argument 1's storage and layout (rebind %d, rank %d, offset %lld)", e.rebind, e.out.rank,
        (long long)e.out.offset);
  ir_program_free(p);
}

TEST(ref_declines_set_of_an_input) {
  ir_program *p = program(OF_INPUT);
  if (!p) return;
  result r;
  af_err err;
  result_init(&r);
  CHECK(eager_run(p, &r, &err) == 0 && r.status == RESULT_OK, "eager runs it: %s", r.message ? r.message : err.msg);
  if (r.status == RESULT_OK) {
    double want[2];
    for (int k = 0; k < 2; k++) want[k] = ir_input_default_value(1, k, AF_FLOAT32) + 1;
    check_values(r.outputs[0], 2, want, "y (x.add_(1) after x.set_(y))");
  }
  result_clear(&r);
  char *d = NULL;
  oracle_verdict v = verdict(&conv_ref, p, &d);
  CHECK(v == V_UNSUPPORTED && d && strstr(d, "set_ of an input"), "ref: %s (%s)", oracle_verdict_name(v), d ? d : "");
  free(d);
  ir_program_free(p);
}

/* Whether p holds a set_ statement (blocks included: the body is flat in the IR). */
static int has_set(const ir_program *p) {
  for (int s = 0; s < p->nstmts; s++)
    if (p->stmts[s].op == OPS_set_) return 1;
  return 0;
}

TEST(the_generator_draws_the_narrow_form_valid_and_ref_agrees) {
  gen_policy pol;
  af_err err;
  CHECK(!gen_policy_from_json("{\"chances\": {\"set\": 0.5}}", &pol, &err), "%s", err.msg);
  int stmts = 0, programs = 0, bad = 0, invalid = 0, of_view = 0;
  for (uint64_t seed = 1; seed <= 150; seed++) {
    ir_program *p;
    if (gen_program(&pol, seed, &p, &err)) {
      CHECK(0, "seed %llu: %s", (unsigned long long)seed, err.msg);
      continue;
    }
    if (!has_set(p)) {
      ir_program_free(p);
      continue;
    }
    programs++;
    for (int s = 0; s < p->nstmts; s++) {
      const ir_stmt *st = &p->stmts[s];
      if (st->op != OPS_set_) continue;
      stmts++;
      of_view += st->args[1].value >= p->ninputs; /* (an input's name rebound to a local counts too) */
    }
    result r;
    result_init(&r);
    if (eager_run(p, &r, &err) || r.status != RESULT_OK) invalid++;
    result_clear(&r);
    char *d = NULL; /* a pass also says the target was no input (ref declines that) */
    if (verdict(&conv_ref, p, &d) != V_PASS) {
      bad++;
      CHECK(0, "seed %llu: ref: %s", (unsigned long long)seed, d ? d : "");
    }
    free(d);
    ir_program_free(p);
  }
  CHECK(programs >= 20 && stmts >= programs, "the policy draws it: %d statements in %d of 150 programs", stmts, programs);
  CHECK(of_view >= 3, "sources made by the body (views, locals) too, not only inputs: %d", of_view);
  CHECK(invalid == 0 && bad == 0, "every program eager-valid (%d were not) and ref agrees (%d did not)", invalid, bad);
}

/* set_ draws from a stream of its own: a default program without one is the program chances.set 0
 * makes (their meta differ by the policy, so compare the TorchScript). */
TEST(a_program_that_draws_no_set_is_the_one_made_without_set) {
  gen_policy def, off;
  af_err err;
  gen_policy_default(&def);
  CHECK(!gen_policy_from_json("{\"chances\": {\"set\": 0}}", &off, &err), "%s", err.msg);
  int same = 0, with = 0, differ = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    ir_program *a = NULL, *b = NULL;
    if (gen_program(&def, seed, &a, &err) || gen_program(&off, seed, &b, &err)) {
      CHECK(0, "seed %llu: %s", (unsigned long long)seed, err.msg);
      ir_program_free(a);
      continue;
    }
    CHECK(!has_set(b), "seed %llu: chances.set 0 draws none", (unsigned long long)seed);
    if (has_set(a)) {
      with++;
    } else {
      char *ta = emit_torchscript(a, "program"), *tb = emit_torchscript(b, "program");
      if (!strcmp(ta, tb)) same++;
      else differ++;
      free(ta);
      free(tb);
    }
    ir_program_free(a);
    ir_program_free(b);
  }
  CHECK(differ == 0, "%d programs without set_ differ from chances.set 0's (%d the same)", differ, same);
  CHECK(with >= 2 && with <= 40, "the default draws it now and then: %d of 400 programs", with);
}

int main(void) {
  at_init();
  RUN(set_moves_every_name_of_a_local_into_the_source_and_leaves_its_old_views_behind);
  RUN(set_to_another_dtype_is_refused_by_the_rule_as_by_eager);
  RUN(ref_declines_set_of_an_input);
  RUN(the_generator_draws_the_narrow_form_valid_and_ref_agrees);
  RUN(a_program_that_draws_no_set_is_the_one_made_without_set);
  return tap_done();
}
