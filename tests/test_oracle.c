/* test_oracle.c - verdicts from hand-built results. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "../harness/eager.h"
#include "../oracle/oracle.h"
#include "tap.h"

static ir_program *prog(void) {
  const char *t = "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}], "
                  "\"body\": [{\"out\": \"r\", \"op\": \"add\", \"args\": [\"x\", 1]}], \"outputs\": [\"r\"]}";
  ir_program *p;
  af_err err;
  codec_read_string(t, "t", &p, &err);
  return p;
}

static af_tensor *vec(af_dtype dt, int n, const double *v) {
  int64_t sh[1] = {n};
  af_tensor *t;
  af_err err;
  at_tensor_new(dt, 1, sh, v, &t, &err);
  return t;
}

/* default inputs of prog(): x = [-5, 2, -2] (see ir_input_default_value) */
static const double X0[3] = {-5, 2, -2};

static void fill(result *r, const double *out, int nout, const double *in, af_dtype dt) {
  result_init(r);
  r->status = RESULT_OK;
  r->noutputs = 1;
  r->outputs = calloc(1, sizeof(af_tensor *));
  r->outputs[0] = vec(dt, nout, out);
  r->ninputs = 1;
  r->inputs = calloc(1, sizeof(af_tensor *));
  r->inputs[0] = in ? vec(AF_FLOAT32, 3, in) : NULL;
}

static oracle_verdict judge(const double *eo, const double *ei, const double *co, int con, const double *ci, af_dtype cdt) {
  ir_program *p = prog();
  result e, c;
  fill(&e, eo, 3, ei, AF_FLOAT32);
  fill(&c, co, con, ci, cdt);
  char *d;
  oracle_verdict v = oracle_judge(p, &e, &c, NULL, &d);
  free(d);
  result_clear(&e);
  result_clear(&c);
  ir_program_free(p);
  return v;
}

TEST(equal_results_pass_and_small_float_differences_are_tolerated) {
  double o[3] = {1, 2, 3}, o2[3] = {1 + 1e-7, 2, 3 - 1e-6};
  CHECK(judge(o, X0, o, 3, X0, AF_FLOAT32) == V_PASS, "identical");
  CHECK(judge(o, X0, o2, 3, X0, AF_FLOAT32) == V_PASS, "within tolerance");
}

TEST(nan_equals_nan_but_not_a_number) {
  double a[3] = {NAN, 1, 2}, b[3] = {0, 1, 2};
  CHECK(judge(a, X0, a, 3, X0, AF_FLOAT32) == V_PASS, "NaN == NaN");
  CHECK(judge(a, X0, b, 3, X0, AF_FLOAT32) == V_VALUE_MISMATCH, "NaN != 0");
}

/* Which non-finite value IEEE arithmetic gives from an infinity or a NaN depends on the order of
 * operations (export-decomp's addcdiv_ then clamp_: eager inf, the converter NaN), so any two are
 * equal; a finite value against a non-finite one still differs. A value mismatch in a program whose
 * eager run made one names the statement. */
TEST(any_two_non_finite_values_are_equal_and_the_detail_names_where_eager_made_one) {
  double e[3] = {INFINITY, -INFINITY, NAN}, c[3] = {NAN, INFINITY, -INFINITY}, f[3] = {INFINITY, 0, NAN};
  CHECK(judge(e, X0, c, 3, X0, AF_FLOAT32) == V_PASS, "inf == NaN, -inf == inf, NaN == -inf");
  CHECK(judge(e, X0, f, 3, X0, AF_FLOAT32) == V_VALUE_MISMATCH, "-inf != 0");
  CHECK(judge(f, X0, e, 3, X0, AF_FLOAT32) == V_VALUE_MISMATCH, "0 != -inf");
  /* the detail names the first statement that made one: sqrt of x = [-5, 2, -2], not the add before */
  const char *t = "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": "
                  "\"float32\"}], \"body\": [{\"out\": \"a\", \"op\": \"add\", \"args\": [\"x\", 1]}, {\"out\": \"r\", \"op\": "
                  "\"sqrt\", \"args\": [\"x\"]}], \"outputs\": [\"r\", \"a\"]}";
  ir_program *q = NULL, *p = prog();
  af_err err;
  CHECK(codec_read_string(t, "t", &q, &err) == 0, "%s", err.msg);
  if (!q) return;
  CHECK(eager_nonfinite_at(q) == 1 && eager_nonfinite_at(p) == -1, "sqrt at %d, x + 1 at %d", eager_nonfinite_at(q),
        eager_nonfinite_at(p));
  result er, cr;
  result_init(&er);
  CHECK(eager_run(q, &er, &err) == 0 && er.status == RESULT_OK, "eager");
  fill(&cr, f, 3, X0, AF_FLOAT32); /* a converter's r: [inf, 0, NaN] for eager's [NaN, 1.41, NaN] */
  cr.noutputs = 2;
  cr.outputs = realloc(cr.outputs, 2 * sizeof(af_tensor *));
  cr.outputs[1] = at_tensor_ref(er.outputs[1]);
  char *d = NULL;
  CHECK(oracle_judge(q, &er, &cr, NULL, &d) == V_VALUE_MISMATCH && d && strstr(d, "element 1 is 0") &&
            strstr(d, "infinity or a NaN from body[1] (sqrt)"),
        "detail: %s", d ? d : "(none)");
  free(d);
  result_clear(&er);
  result_clear(&cr);
  ir_program_free(q);
  ir_program_free(p);
}

TEST(value_shape_and_dtype_differences_get_their_verdicts) {
  double o[3] = {1, 2, 3}, w[3] = {1, 2, 4};
  CHECK(judge(o, X0, w, 3, X0, AF_FLOAT32) == V_VALUE_MISMATCH, "value");
  CHECK(judge(o, X0, o, 2, X0, AF_FLOAT32) == V_SHAPE_MISMATCH, "shape");
  CHECK(judge(o, X0, o, 3, X0, AF_FLOAT64) == V_DTYPE_MISMATCH, "dtype");
}

/* int64 compares exactly even past 2^53, where two values can convert to one double: a float's
 * bits read through x.view(torch.int64), one more by a write through that view. */
TEST(int64_values_past_2_pow_53_that_differ_by_one_mismatch) {
  int64_t sh[1] = {2}, big[2] = {4607182418800017408LL, 7}, plus1[2] = {4607182418800017409LL, 7};
  af_tensor *a = NULL, *b = NULL;
  af_err err;
  CHECK(!at_tensor_from_bytes(AF_INT64, 1, sh, big, sizeof big, &a, &err) &&
            !at_tensor_from_bytes(AF_INT64, 1, sh, plus1, sizeof plus1, &b, &err),
        "%s", err.msg);
  CHECK((double)big[0] == (double)plus1[0], "the two convert to one double (the case this test is about)");
  result e, c;
  result_init(&e), result_init(&c);
  e.status = c.status = RESULT_OK;
  e.noutputs = c.noutputs = 1;
  e.outputs = calloc(1, sizeof(af_tensor *)), c.outputs = calloc(1, sizeof(af_tensor *));
  e.outputs[0] = a, c.outputs[0] = b;
  ir_program *p = prog();
  char *d = NULL;
  oracle_verdict v = oracle_judge(p, &e, &c, NULL, &d);
  CHECK(v == V_VALUE_MISMATCH, "%s: %s", oracle_verdict_name(v), d ? d : "");
  free(d);
  c.outputs[0] = at_tensor_ref(a);
  at_tensor_free(b);
  v = oracle_judge(p, &e, &c, NULL, &d);
  CHECK(v == V_PASS, "%s: %s", oracle_verdict_name(v), d ? d : "");
  free(d);
  result_clear(&e), result_clear(&c);
  ir_program_free(p);
}

TEST(input_mutation_lost_when_the_converter_leaves_a_mutated_input_unchanged) {
  double o[3] = {1, 2, 3}, mutated[3] = {0, 0, 0}, other[3] = {9, 9, 9};
  CHECK(judge(o, mutated, o, 3, X0, AF_FLOAT32) == V_INPUT_MUTATION_LOST, "left unchanged");
  CHECK(judge(o, mutated, o, 3, NULL, AF_FLOAT32) == V_INPUT_MUTATION_LOST, "cannot express (null)");
  CHECK(judge(o, mutated, o, 3, other, AF_FLOAT32) == V_VALUE_MISMATCH, "mutated differently");
  CHECK(judge(o, X0, o, 3, NULL, AF_FLOAT32) == V_PASS, "null is fine for an input eager did not mutate");
}

/* What a converter that ran said as it did (a worker's warnings: its result's message) ends a failing
 * verdict's detail after ORACLE_WARNED, where a declared limit may be matched (fuzz/refusals.h); a
 * pass has no detail, and a converter that failed has its error for detail. */
TEST(a_converters_warnings_end_a_wrong_results_detail) {
  double o[3] = {1, 2, 3}, mutated[3] = {0, 0, 0};
  ir_program *p = prog();
  result e, c;
  fill(&e, o, 3, mutated, AF_FLOAT32);
  fill(&c, o, 3, X0, AF_FLOAT32);
  result_set_message(&c, "The tensor attribute self.t was assigned during export.; another");
  char *d = NULL;
  oracle_verdict v = oracle_judge(p, &e, &c, NULL, &d);
  const char *w = oracle_detail_warnings(d);
  CHECK(v == V_INPUT_MUTATION_LOST && d && w && !strcmp(w, "The tensor attribute self.t was assigned during export.; another]"),
        "%s: %s", oracle_verdict_name(v), d ? d : "");
  CHECK(d && oracle_detail_len(d) == strlen("input x: eager mutated it; the converter left it unchanged"), "the oracle's part: %.*s",
        d ? (int)oracle_detail_len(d) : 0, d ? d : "");
  free(d);
  CHECK(oracle_judge(p, &e, &e, NULL, &d) == V_PASS && !d, "a pass: no detail");
  free(d);
  c.status = RESULT_ERROR;
  CHECK(oracle_judge(p, &e, &c, NULL, &d) == V_ERROR && d && !oracle_detail_warnings(d), "an error is its message alone: %s", d ? d : "");
  free(d);
  CHECK(!oracle_detail_warnings("output 0 (r): element 0 is 1, eager 2") && oracle_detail_len("abc") == 3 && oracle_detail_len(NULL) == 0,
        "no warnings");
  result_clear(&e);
  result_clear(&c);
  ir_program_free(p);
}

TEST(converter_statuses_map_to_verdicts_and_eager_failure_is_invalid_program) {
  ir_program *p = prog();
  result e, c;
  double o[3] = {1, 2, 3};
  fill(&e, o, 3, X0, AF_FLOAT32);
  result_init(&c);
  const struct {
    result_status s;
    oracle_verdict v;
  } m[] = {{RESULT_UNSUPPORTED, V_UNSUPPORTED}, {RESULT_ERROR, V_ERROR}, {RESULT_CRASH, V_CRASH}, {RESULT_TIMEOUT, V_TIMEOUT}};
  for (int i = 0; i < 4; i++) {
    c.status = m[i].s;
    char *d;
    CHECK(oracle_judge(p, &e, &c, NULL, &d) == m[i].v, "status %s", result_status_name(m[i].s));
    free(d);
  }
  e.status = RESULT_ERROR;
  char *d;
  CHECK(oracle_judge(p, &e, &c, NULL, &d) == V_INVALID_PROGRAM, "eager failed");
  free(d);
  result_clear(&e);
  result_clear(&c);
  ir_program_free(p);
}

TEST(verdict_names_round_trip) {
  for (int v = 0; v < V_COUNT; v++) {
    oracle_verdict back;
    CHECK(oracle_verdict_parse(oracle_verdict_name((oracle_verdict)v), &back) == 0 && back == (oracle_verdict)v, "%d", v);
  }
  oracle_verdict x;
  CHECK(oracle_verdict_parse("nope", &x) != 0, "unknown name accepted");
}

/* Issue 33: autograd accepting or refusing differently (oracle.h autograd-rejects, autograd-accepts).
 * Eager's real results (LibTorch's own refusal in the backward, and a run); the converter's result
 * as a worker answers it: an error message, or ok with gradients. */
static ir_program *train_prog(const char *body) {
  char t[1024];
  snprintf(t, sizeof t,
           "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", "
           "\"requires_grad\": true}], \"body\": [%s], \"outputs\": [\"z\"], \"train\": true}",
           body);
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(t, "t", &p, &err) == 0, "read: %s", err.msg);
  return p;
}

static oracle_verdict judged(const ir_program *p, const result *e, result_status s, const char *msg, int ngrads, char **d) {
  result c;
  result_init(&c);
  c.status = s;
  if (msg) result_set_message(&c, msg);
  c.ngrads = ngrads;
  oracle_verdict v = oracle_judge(p, e, &c, NULL, d);
  c.ngrads = 0;
  result_clear(&c);
  return v;
}

TEST(autograd_refusing_or_accepting_differently_has_its_own_verdicts_naming_the_rule) {
  ir_program *refused = train_prog("{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", 2]}, {\"out\": \"z\", \"op\": \"mul\", "
                                   "\"args\": [\"y\", \"y\"]}, {\"op\": \"add_\", \"args\": [\"y\", 1]}");
  ir_program *ran = train_prog("{\"out\": \"z\", \"op\": \"mul\", \"args\": [\"x\", \"x\"]}");
  if (!refused || !ran) return;
  result er, eo;
  result_init(&er);
  result_init(&eo);
  af_err err;
  CHECK(eager_run(refused, &er, &err) == 0 && er.status == RESULT_ERROR && eager_run(ran, &eo, &err) == 0 &&
            eo.status == RESULT_OK,
        "eager refuses the first, runs the second");
  CHECK(er.message && !strcmp(oracle_autograd_refusal(er.message) ? oracle_autograd_refusal(er.message) : "", "saved-modified"),
        "eager's refusal is saved-modified: %s", er.message ? er.message : "");
  CHECK(oracle_eager_autograd_refusal(refused, &er) && !oracle_eager_autograd_refusal(ran, &eo), "eager's refusal, by program");
  static const char *const other[] = {"RuntimeError: isDifferentiableType(grad.scalar_type()) INTERNAL ASSERT FAILED",
                                      "RuntimeError: derivative for aten::copy is not implemented", NULL};
  for (int k = 0; other[k]; k++) CHECK(!oracle_autograd_refusal(other[k]), "not autograd's refusal: %s", other[k]);
  CHECK(!strcmp(oracle_autograd_refusal("RuntimeError: a view of a leaf Variable that requires grad is being used in an "
                                        "in-place operation."),
                "leaf-write") &&
            !strcmp(oracle_autograd_refusal("Output 0 of Split is a view and its base or another view of its base has been "
                                            "modified inplace. This view is the output of a function that returns multiple "
                                            "views."),
                    "view-base-modified"),
        "the rule of each check's text (view-base-modified before multi-output-view-write)");
  const char *saved = "loss.backward(): RuntimeError: one of the variables needed for gradient computation has been modified "
                      "by an inplace operation: [torch.FloatTensor [3]]";
  char *d = NULL;
  oracle_verdict v = judged(refused, &er, RESULT_OK, NULL, 1, &d);
  CHECK(v == V_AUTOGRAD_ACCEPTS && d && !strncmp(d, "saved-modified: ", 16), "eager refuses, the converter ran: %s %s",
        oracle_verdict_name(v), d ? d : "");
  free(d);
  v = judged(refused, &er, RESULT_ERROR, saved, 0, &d);
  CHECK(v == V_PASS, "both refuse: %s", oracle_verdict_name(v));
  free(d);
  v = judged(refused, &er, RESULT_ERROR, "RuntimeError: something else", 0, &d);
  CHECK(v == V_INVALID_PROGRAM, "eager refuses, the converter fails otherwise: %s", oracle_verdict_name(v));
  free(d);
  v = judged(refused, &er, RESULT_OK, NULL, 0, &d);
  CHECK(v == V_INVALID_PROGRAM, "a converter result without gradients (never ran): %s", oracle_verdict_name(v));
  free(d);
  v = judged(ran, &eo, RESULT_ERROR, saved, 0, &d);
  CHECK(v == V_AUTOGRAD_REJECTS && d && !strncmp(d, "saved-modified: ", 16) && strstr(d, saved),
        "eager runs, the converter's autograd refuses: %s %s", oracle_verdict_name(v), d ? d : "");
  free(d);
  v = judged(ran, &eo, RESULT_ERROR, "RuntimeError: derivative for aten::copy is not implemented", 0, &d);
  CHECK(v == V_ERROR, "another backward error stays converter-error: %s", oracle_verdict_name(v));
  free(d);
  CHECK(oracle_verdict_is_bug(V_AUTOGRAD_REJECTS) && oracle_verdict_is_bug(V_AUTOGRAD_ACCEPTS), "both are bugs");
  result_clear(&er);
  result_clear(&eo);
  ir_program_free(refused);
  ir_program_free(ran);
}

int main(void) {
  at_init();
  RUN(equal_results_pass_and_small_float_differences_are_tolerated);
  RUN(nan_equals_nan_but_not_a_number);
  RUN(any_two_non_finite_values_are_equal_and_the_detail_names_where_eager_made_one);
  RUN(value_shape_and_dtype_differences_get_their_verdicts);
  RUN(int64_values_past_2_pow_53_that_differ_by_one_mismatch);
  RUN(input_mutation_lost_when_the_converter_leaves_a_mutated_input_unchanged);
  RUN(a_converters_warnings_end_a_wrong_results_detail);
  RUN(converter_statuses_map_to_verdicts_and_eager_failure_is_invalid_program);
  RUN(verdict_names_round_trip);
  RUN(autograd_refusing_or_accepting_differently_has_its_own_verdicts_naming_the_rule);
  return tap_done();
}
