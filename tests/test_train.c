/* test_train.c - training programs (issue 33, docs/training.md): the codec's new fields, eager's
 * gradients against values computed by hand, autograd's in-place rules as invalid-program, the
 * oracle's wrong-gradient, converters that cannot train declining, and the judge giving them the
 * program's inference form instead. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/converters/conv_worker.h"
#include "../fuzz/judge.h"
#include "../fuzz/gen.h"
#include "../harness/eager.h"
#include "../harness/emit.h"
#include "../harness/ops/ops.h"
#include "../oracle/oracle.h"
#include "tap.h"

/* x requires grad; y = x * x; y.add_(1) (a non-leaf written in place: allowed); r = y * 2 */
static const char *square =
    "{\"format\": \"aliasfuzz-program/1\",\n"
    " \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"requires_grad\": true}],\n"
    " \"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", \"x\"]}, {\"op\": \"add_\", \"args\": [\"y\", 1]},\n"
    "          {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"y\", 2]}],\n"
    " \"outputs\": [\"r\"], \"train\": true, \"loss\": [%s]}\n";

/* module state: self.w a parameter, x an input that requires grad; r = (x * x + 1) * self.w */
static const char *with_param =
    "{\"format\": \"aliasfuzz-program/1\",\n"
    " \"inputs\": [{\"name\": \"w\", \"shape\": [3], \"dtype\": \"float32\", \"param\": true},\n"
    "            {\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"requires_grad\": true}],\n"
    " \"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", \"x\"]}, {\"op\": \"add_\", \"args\": [\"y\", 1]},\n"
    "          {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"y\", \"w\"]}],\n"
    " \"outputs\": [\"r\"], \"train\": true, \"loss\": [3]}\n";

static ir_program *read_text(const char *fmt, const char *arg) {
  char text[2048];
  snprintf(text, sizeof text, fmt, arg);
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(text, "test", &p, &err)) CHECK(0, "read: %s", err.msg);
  return p;
}

/* input i's .grad from an eager run of p into g (n values); 0 when there is one */
static int eager_grad(const ir_program *p, int i, double *g, int n, char *why, size_t len) {
  result r;
  af_err err;
  result_init(&r);
  int rc = -1;
  if (eager_run(p, &r, &err) || r.status != RESULT_OK)
    snprintf(why, len, "eager: %s", r.message ? r.message : err.msg);
  else if (r.ngrads != p->ninputs || !r.grads[i] || at_tensor_numel(r.grads[i]) != n)
    snprintf(why, len, "no .grad of %d elements for input %d (ngrads %d)", n, i, r.ngrads);
  else
    rc = at_tensor_values(r.grads[i], g, &err);
  result_clear(&r);
  return rc;
}

TEST(codec_reads_and_writes_requires_grad_param_train_and_loss_canonically) {
  ir_program *p = read_text(with_param, "");
  if (!p) return;
  CHECK(p->train == 1 && p->loss && p->loss[0] == 3, "train and its loss weight read");
  CHECK(p->inputs[0].param && p->inputs[0].buffer && p->inputs[0].grad, "a param is module state that requires grad");
  CHECK(p->inputs[1].grad && !p->inputs[1].param && !p->inputs[1].buffer, "x requires grad");
  char *a = codec_write_string(p);
  CHECK(strstr(a, "\"param\": true") && strstr(a, "\"requires_grad\": true") && strstr(a, "\"train\": true") &&
            strstr(a, "\"loss\": [3]"),
        "written: %s", a);
  ir_program *q = NULL;
  af_err err;
  CHECK(codec_read_string(a, "again", &q, &err) == 0, "re-read: %s", err.msg);
  if (q) {
    char *b = codec_write_string(q);
    CHECK(strcmp(a, b) == 0, "read-then-write is byte-identical");
    free(b);
    ir_program *c = ir_program_clone(q);
    char *d = codec_write_string(c);
    CHECK(strcmp(a, d) == 0, "a clone keeps the training fields");
    free(d);
    ir_untrain(c);
    d = codec_write_string(c);
    CHECK(!strstr(d, "train") && !strstr(d, "requires_grad") && !strstr(d, "param") && strstr(d, "\"buffer\": true"),
          "ir_untrain: the inference form, the parameter a buffer: %s", d);
    free(d);
    ir_program_free(c);
    ir_program *s = ir_subset(q, NULL, NULL, NULL);
    CHECK(s && s->train && s->loss && s->loss[0] == 3 && s->inputs[0].param, "ir_subset keeps them");
    ir_program_free(s);
    ir_program_free(q);
  }
  free(a);
  ir_program_free(p);
}

TEST(codec_refuses_malformed_training_fields_naming_them) {
  static const struct {
    const char *text, *want;
  } bad[] = {
      {"{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\"}], \"body\": [], "
       "\"outputs\": [\"x\"], \"loss\": [1]}",
       "loss: loss weights need \"train\": true"},
      {"{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\"}], \"body\": [], "
       "\"outputs\": [\"x\"], \"train\": true, \"loss\": [1, 2]}",
       "loss: expected one weight (a number) per output (1)"},
      {"{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\"}], \"body\": [], "
       "\"outputs\": [\"x\"], \"train\": true, \"loss\": [\"a\"]}",
       "loss[0]: expected a finite number"},
      {"{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\"}], \"body\": [], "
       "\"outputs\": [\"x\"], \"train\": 1}",
       "train: expected true or false"},
      {"{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"int64\", \"requires_grad\": "
       "true}], \"body\": [], \"outputs\": [\"x\"], \"train\": true}",
       "only floating-point tensors can require grad"},
      {"{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\", \"requires_grad\": "
       "true}], \"body\": [], \"outputs\": [\"x\"]}",
       "requires_grad/param in a program without \"train\": true"},
      {"{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\", \"param\": true, "
       "\"buffer\": true}], \"body\": [], \"outputs\": [\"x\"], \"train\": true}",
       "param: a parameter is module state that requires grad"},
      {"{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"w\", \"shape\": [2], \"dtype\": \"float32\", \"param\": true}], "
       "\"body\": [{\"out\": \"w\", \"op\": \"mul\", \"args\": [\"w\", 2]}], \"outputs\": [\"w\"], \"train\": true}",
       "rebinds parameter self.w"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    ir_program *p = NULL;
    af_err err;
    int rc = codec_read_string(bad[k].text, "bad.json", &p, &err);
    CHECK(rc != 0 && strstr(err.msg, bad[k].want) && strncmp(err.msg, "bad.json", 8) == 0, "case %zu: want '%s', got '%s'", k,
          bad[k].want, rc ? err.msg : "accepted");
    ir_program_free(p);
  }
}

TEST(eager_gradient_equals_the_hand_computed_one) {
  /* loss = 2 * sum(2 * (x * x + 1)): d/dx = 8x, x = [-5, 2, -2] (ir.h's default values) */
  ir_program *p = read_text(square, "2");
  if (!p) return;
  double g[3], want[3] = {-40, 16, -16};
  char why[600] = "";
  if (!eager_grad(p, 0, g, 3, why, sizeof why))
    for (int k = 0; k < 3; k++) CHECK(g[k] == want[k], "x.grad[%d] is %g, by hand %g", k, g[k], want[k]);
  else
    CHECK(0, "%s", why);
  ir_program_free(p);
  /* loss = 3 * sum((x * x + 1) * w): d/dw = 3 (x * x + 1), d/dx = 6 x w; w = [-5, 2, -2], x = [-2, 5, 1] */
  p = read_text(with_param, "");
  if (!p) return;
  double gw[3], gx[3], ww[3] = {15, 78, 6}, wx[3] = {60, 60, -12};
  if (!eager_grad(p, 0, gw, 3, why, sizeof why) && !eager_grad(p, 1, gx, 3, why, sizeof why))
    for (int k = 0; k < 3; k++)
      CHECK(gw[k] == ww[k] && gx[k] == wx[k], "[%d]: w.grad %g (by hand %g), x.grad %g (by hand %g)", k, gw[k], ww[k], gx[k], wx[k]);
  else
    CHECK(0, "%s", why);
  ir_program_free(p);
}

/* eager's verdict on p: invalid-program with the reason, the reason holding want */
static void check_invalid(const char *text, const char *want) {
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(text, "t", &p, &err)) {
    CHECK(0, "read: %s", err.msg);
    return;
  }
  result e, c;
  result_init(&e);
  result_init(&c);
  CHECK(eager_run(p, &e, &err) == 0, "eager ran");
  char *detail = NULL;
  oracle_verdict v = oracle_judge(p, &e, &c, NULL, &detail);
  CHECK(v == V_INVALID_PROGRAM && detail && strstr(detail, "invalid training program") && strstr(detail, want), "verdict %s: %s",
        oracle_verdict_name(v), detail ? detail : "(none)");
  free(detail);
  result_clear(&e);
  result_clear(&c);
  ir_program_free(p);
}

TEST(a_leaf_that_requires_grad_written_in_place_is_invalid_program_with_the_reason) {
  check_invalid("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", "
                "\"requires_grad\": true}], \"body\": [{\"op\": \"add_\", \"args\": [\"x\", 1]}, {\"out\": \"r\", \"op\": \"mul\", "
                "\"args\": [\"x\", 2]}], \"outputs\": [\"r\"], \"train\": true}",
                "x is a leaf that requires grad, or a view of one, written in place outside torch.no_grad()");
  /* through a view of the leaf: the same rule */
  check_invalid("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", "
                "\"requires_grad\": true}], \"body\": [{\"out\": \"v\", \"op\": \"slice\", \"args\": [\"x\", 0, 0, 2, 1]}, "
                "{\"op\": \"mul_\", \"args\": [\"v\", 2]}, {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", 2]}], "
                "\"outputs\": [\"r\"], \"train\": true}",
                "v is a leaf that requires grad, or a view of one");
  /* the same program without train is a plain inference program eager runs */
  ir_program *p = NULL;
  af_err err;
  result e;
  result_init(&e);
  CHECK(codec_read_string("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": "
                          "\"float32\"}], \"body\": [{\"op\": \"add_\", \"args\": [\"x\", 1]}], \"outputs\": [\"x\"]}",
                          "t", &p, &err) == 0 &&
            eager_run(p, &e, &err) == 0 && e.status == RESULT_OK,
        "the inference form runs");
  result_clear(&e);
  ir_program_free(p);
}

TEST(a_tensor_saved_for_backward_then_modified_is_invalid_program_with_the_reason) {
  /* z = sin(y) saves y; y.add_(1) afterwards: autograd refuses the backward */
  check_invalid("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", "
                "\"requires_grad\": true}], \"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", 2]}, {\"out\": \"z\", "
                "\"op\": \"sin\", \"args\": [\"y\"]}, {\"op\": \"add_\", \"args\": [\"y\", 1]}], \"outputs\": [\"z\"], \"train\": true}",
                "loss.backward()");
}

TEST(the_oracle_says_wrong_gradient_when_only_a_gradient_differs) {
  ir_program *p = read_text(square, "2"), *q = read_text(square, "3"); /* same forward, other weight */
  if (!p || !q) {
    ir_program_free(p);
    ir_program_free(q);
    return;
  }
  result a, b;
  af_err err;
  result_init(&a);
  result_init(&b);
  CHECK(eager_run(p, &a, &err) == 0 && eager_run(q, &b, &err) == 0 && a.status == RESULT_OK && b.status == RESULT_OK, "ran");
  char *detail = NULL;
  oracle_verdict v = oracle_judge(p, &a, &a, NULL, &detail);
  CHECK(v == V_PASS, "eager against itself passes: %s", detail ? detail : "");
  free(detail);
  v = oracle_judge(p, &a, &b, NULL, &detail);
  CHECK(v == V_WRONG_GRADIENT && detail && strstr(detail, "x.grad: element 0 is -60, eager -40"), "verdict %s: %s",
        oracle_verdict_name(v), detail ? detail : "");
  free(detail);
  CHECK(oracle_verdict_parse("wrong-gradient", &v) == 0 && v == V_WRONG_GRADIENT && oracle_verdict_is_bug(v),
        "a stable verdict name, a bug");
  /* a converter that gives no gradients for a training program */
  inputs_free(b.ngrads, b.grads);
  b.grads = NULL;
  b.ngrads = 0;
  v = oracle_judge(p, &a, &b, NULL, &detail);
  CHECK(v == V_WRONG_GRADIENT && detail && strstr(detail, "no gradients"), "no gradients: %s", detail ? detail : "");
  free(detail);
  result_clear(&a);
  result_clear(&b);
  ir_program_free(p);
  ir_program_free(q);
}

TEST(in_process_converters_decline_training_programs_as_a_harness_limit) {
  ir_program *p = read_text(square, "1");
  if (!p) return;
  result r;
  af_err err;
  const char *names[] = {"ref", "script", "jit", "naive", "functionalize"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    const conv_converter *c = conv_find(names[k]);
    if (!c) continue;
    CHECK(conv_execute(c, p, &r, &err) == 0 && r.status == RESULT_UNSUPPORTED && r.message &&
              strncmp(r.message, RESULT_HARNESS_LIMIT, strlen(RESULT_HARNESS_LIMIT)) == 0,
          "%s: %s", names[k], r.message ? r.message : "no message");
    result_clear(&r);
  }
  ir_program_free(p);
}

/* The judge hands a converter that cannot train (conv_trains: ref, in process) the program's
 * inference form (ir_untrain): a verdict on what it can be asked (pass), not converter-unsupported;
 * eager ran that form too (no backward, no gradients). In process and in a forked child. */
TEST(the_judge_gives_a_converter_that_cannot_train_the_inference_form) {
  const char *texts[] = {NULL, with_param};
  for (int k = 0; k < 2; k++) {
    ir_program *p = k ? read_text(texts[k], "") : read_text(square, "1");
    const conv_converter *c = conv_find("ref");
    if (!p || !c) continue;
    CHECK(!conv_trains(c), "ref does not train");
    judgement j;
    result e, r;
    result_init(&e);
    result_init(&r);
    af_err err;
    CHECK(judge_inprocess_results(c, p, NULL, &j, &e, &r, &err) == 0, "judged: %s", err.msg);
    CHECK(j.verdict == V_PASS, "program %d: ref on the inference form passes: %s (%s)", k, oracle_verdict_name(j.verdict),
          j.detail ? j.detail : "");
    CHECK(e.status == RESULT_OK && e.ngrads == 0 && r.ngrads == 0, "program %d: eager ran the inference form: %d grads", k,
          e.ngrads);
    CHECK(p->train && ir_ngrads(p) > 0, "the caller's program stays a training program");
    judgement_clear(&j);
    result_clear(&e);
    result_clear(&r);
    CHECK(judge_isolated(c, p, NULL, 60, &j, &err) == 0 && j.verdict == V_PASS, "program %d: isolated: %s", k,
          oracle_verdict_name(j.verdict));
    judgement_clear(&j);
    ir_program_free(p);
  }
}

/* ---- no_grad blocks and .detach() writes (issue 33's second slice) ---- */

/* self.w a parameter, x a leaf that requires grad: under no_grad the parameter and the leaf are
 * written in place and a view v is made; v stays visible after the block (s = v.sum(), read
 * before x changes again: a view made under no_grad whose base is written in grad mode later is
 * an error to read); a write through x.detach(); r = x * self.w + s (the loss weight %s) */
static const char *with_no_grad =
    "{\"format\": \"aliasfuzz-program/1\",\n"
    " \"inputs\": [{\"name\": \"w\", \"shape\": [3], \"dtype\": \"float32\", \"param\": true},\n"
    "            {\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"requires_grad\": true}],\n"
    " \"body\": [{\"op\": \"no_grad\", \"args\": [], \"body\": [{\"op\": \"mul_\", \"args\": [\"w\", 2]},\n"
    "            {\"op\": \"add_\", \"args\": [\"x\", 1]}, {\"out\": \"v\", \"op\": \"slice\", \"args\": [\"x\", 0, 0, 2, 1]}]},\n"
    "          {\"out\": \"s\", \"op\": \"sum\", \"args\": [\"v\"]}, {\"out\": \"d\", \"op\": \"detach\", \"args\": [\"x\"]},\n"
    "          {\"op\": \"add_\", \"args\": [\"d\", 1]}, {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", \"w\"]},\n"
    "          {\"out\": \"r\", \"op\": \"add\", \"args\": [\"r\", \"s\"]}],\n"
    " \"outputs\": [\"r\"], \"train\": true, \"loss\": [%s]}\n";

TEST(a_no_grad_block_reads_writes_and_emits_as_a_with_block_whose_names_stay_visible) {
  ir_program *p = read_text(with_no_grad, "1");
  if (!p) return;
  char *text = codec_write_string(p), *src = emit_torchscript(p, "f");
  ir_program *q = NULL;
  af_err err;
  CHECK(text && strstr(text, "\"op\": \"no_grad\", \"args\": [], \"body\": [") && codec_read_string(text, "again", &q, &err) == 0,
        "written with its body and read back: %s", text ? text : "");
  char *again = q ? codec_write_string(q) : NULL;
  CHECK(again && strcmp(text, again) == 0, "canonical: the same text twice");
  CHECK(src && strstr(src, "    with torch.no_grad():\n        self.w.mul_(2)\n        x.add_(1)\n        v = x[0:2:1]\n    s = torch.sum(v)\n    d = x.detach()\n"),
        "emitted: %s", src ? src : "");
  free(text);
  free(again);
  free(src);
  ir_program_free(q);
  /* the inference form: the block's statements in the enclosing body, no no_grad left */
  ir_untrain(p);
  int left = 0;
  for (int s = 0; s < p->nstmts; s++) left += p->stmts[s].op == OPS_no_grad || p->stmts[s].op == OPS_end;
  CHECK(left == 0 && p->nstmts == 8 && ir_validate(p, &err) == 0, "untrained: %d block markers left, %d statements", left, p->nstmts);
  ir_program_free(p);
  /* no_grad needs a training program */
  q = NULL;
  CHECK(codec_read_string("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}], "
                          "\"body\": [{\"op\": \"no_grad\", \"args\": [], \"body\": [{\"op\": \"add_\", \"args\": [\"x\", 1]}]}], "
                          "\"outputs\": [\"x\"]}", "t", &q, &err) != 0 &&
            strstr(err.msg, "body[0] (no_grad): a torch.no_grad() block in a program without \"train\": true"),
        "refused: %s", err.msg);
  ir_program_free(q);
}

/* w = [-5, 2, -2] -> [-10, 4, -4] under no_grad; x = [-2, 5, 1] -> [-1, 6, 2] under no_grad, then
 * [0, 7, 3] through x.detach(); v = x[0:2] (made under no_grad: no gradient flows through it),
 * s = -1 + 6; loss = 2 * sum(x * w + s): x.grad = 2 w = [-20, 8, -8], w.grad = 2 x = [0, 14, 6];
 * r = [0 * -10 + 5, .., 3 * -4 + 5]. */
TEST(writes_under_no_grad_and_through_detach_change_values_but_not_gradients) {
  ir_program *p = read_text(with_no_grad, "2");
  if (!p) return;
  double gw[3], gx[3], ww[3] = {0, 14, 6}, wx[3] = {-20, 8, -8};
  char why[600] = "";
  if (!eager_grad(p, 0, gw, 3, why, sizeof why) && !eager_grad(p, 1, gx, 3, why, sizeof why))
    for (int k = 0; k < 3; k++)
      CHECK(gw[k] == ww[k] && gx[k] == wx[k], "[%d]: w.grad %g (by hand %g), x.grad %g (by hand %g)", k, gw[k], ww[k], gx[k], wx[k]);
  else
    CHECK(0, "%s", why);
  result r;
  af_err err;
  result_init(&r);
  double x[3], w[3], o[3];
  CHECK(eager_run(p, &r, &err) == 0 && r.status == RESULT_OK && !at_tensor_values(r.inputs[0], w, &err) &&
            !at_tensor_values(r.inputs[1], x, &err) && !at_tensor_values(r.outputs[0], o, &err) && w[0] == -10 && w[1] == 4 &&
            x[0] == 0 && x[1] == 7 && x[2] == 3 && o[0] == 5 && o[2] == -7,
        "final w [%g %g], x [%g %g %g], r [%g .. %g]", w[0], w[1], x[0], x[1], x[2], o[0], o[2]);
  CHECK(at_grad_enabled(), "grad mode is on again after the run");
  result_clear(&r);
  ir_program_free(p);
}

TEST(a_view_made_under_no_grad_and_written_in_grad_mode_is_invalid_program) {
  /* of a leaf */
  check_invalid("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", "
                "\"requires_grad\": true}], \"body\": [{\"op\": \"no_grad\", \"args\": [], \"body\": [{\"out\": \"v\", \"op\": \"slice\", "
                "\"args\": [\"x\", 0, 0, 2, 1]}]}, {\"op\": \"add_\", \"args\": [\"v\", 1]}, {\"out\": \"r\", \"op\": \"mul\", "
                "\"args\": [\"x\", 2]}], \"outputs\": [\"r\"], \"train\": true}",
                "v is a view made under torch.no_grad() of a tensor that requires grad, written in place outside torch.no_grad()");
  /* of a non-leaf that requires grad */
  check_invalid("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", "
                "\"requires_grad\": true}], \"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", 2]}, {\"op\": \"no_grad\", "
                "\"args\": [], \"body\": [{\"out\": \"v\", \"op\": \"slice\", \"args\": [\"y\", 0, 0, 2, 1]}]}, {\"op\": \"add_\", "
                "\"args\": [\"v\", 1]}], \"outputs\": [\"y\"], \"train\": true}",
                "v is a view made under torch.no_grad()");
  /* a write through .detach() passes, its base's values change */
  ir_program *p = NULL;
  af_err err;
  result e;
  result_init(&e);
  double x[3];
  CHECK(codec_read_string("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": "
                          "\"float32\", \"requires_grad\": true}], \"body\": [{\"out\": \"d\", \"op\": \"detach\", \"args\": [\"x\"]}, "
                          "{\"op\": \"mul_\", \"args\": [\"d\", 3]}, {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", 2]}], "
                          "\"outputs\": [\"r\"], \"train\": true}", "t", &p, &err) == 0 &&
            eager_run(p, &e, &err) == 0 && e.status == RESULT_OK && !at_tensor_values(e.inputs[0], x, &err) && x[0] == -15,
        "through detach(): x[0] %g, %s", x[0], e.message ? e.message : "");
  result_clear(&e);
  ir_program_free(p);
}

/* The training policy's programs use no_grad blocks, writes routed through .detach() and
 * parameter updates under no_grad, and eager accepts every training program it makes (backward
 * included). */
TEST(the_generator_makes_no_grad_detach_and_parameter_update_forms_eager_accepts) {
  gen_policy pol;
  af_err err;
  gen_policy_default(&pol);
  CHECK(gen_policy_from_json("{\"chances\": {\"train\": 1.0}}", &pol, &err) == 0, "%s", err.msg);
  int ntrain = 0, nograd = 0, data = 0, update = 0, bad = 0;
  for (uint64_t seed = 1; seed <= 120; seed++) {
    ir_program *p = NULL;
    if (gen_program(&pol, seed, &p, &err)) {
      CHECK(0, "seed %llu: %s", (unsigned long long)seed, err.msg);
      continue;
    }
    if (p->train) {
      ntrain++;
      int ng = 0, dt = 0;
      for (int s = 0; s < p->nstmts; s++) {
        ng |= p->stmts[s].op == OPS_no_grad;
        dt |= p->stmts[s].op == ops_find("detach") && p->stmts[s].out >= 0 && strstr(p->names[p->stmts[s].out], "_det");
      }
      nograd += ng;
      data += dt;
      update += p->nstmts > 2 && p->stmts[0].op == OPS_no_grad && p->stmts[1].args[0].kind == IR_ARG_VALUE &&
                p->stmts[1].args[0].value < p->ninputs && p->inputs[p->stmts[1].args[0].value].param;
      result r;
      result_init(&r);
      if (eager_run(p, &r, &err) || r.status != RESULT_OK) bad++, CHECK(0, "seed %llu: eager: %s", (unsigned long long)seed, r.message ? r.message : err.msg);
      result_clear(&r);
    }
    ir_program_free(p);
  }
  CHECK(ntrain >= 30 && nograd >= 5 && data >= 3 && update >= 1 && !bad,
        "%d training programs: %d with no_grad, %d with a write routed through .detach(), %d with a parameter update, %d eager refuses", ntrain, nograd, data,
        update, bad);
}

/* ---- .data and module state written then read (issue 33's third slice) ---- */

/* x a leaf that requires grad; y = x * x saves x; d = x.data; d.add_(1): a write autograd does not
 * see, with a version counter of its own (through x.detach() the backward refuses: x was saved and
 * modified); the backward then reads the saved x as written: x.grad = 2 * (x + 1) */
static const char *through_data =
    "{\"format\": \"aliasfuzz-program/1\",\n"
    " \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"requires_grad\": true, \"data\": [1, 2, 3]}],\n"
    " \"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", \"x\"]}, {\"out\": \"d\", \"op\": \"%s\", \"args\": [\"x\"]},\n"
    "          {\"op\": \"add_\", \"args\": [\"d\", 1]}],\n"
    " \"outputs\": [\"y\"], \"train\": true, \"loss\": [1]}\n";

static const char *through_data_detach(void) {
  static char text[1024];
  snprintf(text, sizeof text, through_data, "detach");
  return text;
}

TEST(a_write_through_data_hides_from_autograds_saved_tensor_check_unlike_detach) {
  ir_program *p = read_text(through_data, "data");
  if (!p) return;
  double g[3];
  char why[600] = "";
  if (!eager_grad(p, 0, g, 3, why, sizeof why))
    CHECK(g[0] == 4 && g[1] == 6 && g[2] == 8, "x.grad [%g %g %g], by hand [4 6 8]", g[0], g[1], g[2]);
  else
    CHECK(0, "through .data: %s", why);
  char *ts = emit_torchscript(p, "program");
  CHECK(ts && strstr(ts, "d = x.data\n"), "the spelling: %s", ts ? ts : "(none)");
  free(ts);
  /* the inference form through TorchScript (prim::data) and ref agrees with eager */
  const char *convs[] = {"ref", "script"};
  for (int k = 0; k < 2; k++) {
    const conv_converter *c = conv_find(convs[k]);
    judgement j;
    af_err err;
    CHECK(c && judge_isolated(c, p, NULL, 60, &j, &err) == 0 && j.verdict == V_PASS, "%s on .data: %s (%s)", convs[k],
          c ? oracle_verdict_name(j.verdict) : "no converter", c && j.detail ? j.detail : "");
    if (c) judgement_clear(&j);
  }
  ir_program_free(p);
  /* the same write through x.detach(): the backward refuses it (x saved, then modified) */
  ir_program *q = NULL;
  af_err err;
  result e;
  result_init(&e);
  CHECK(codec_read_string(through_data_detach(), "t", &q, &err) == 0 && eager_run(q, &e, &err) == 0 && e.status != RESULT_OK &&
            e.message && strstr(e.message, "modified by an inplace operation"),
        "through .detach(): eager %s", e.message ? e.message : "accepts it");
  result_clear(&e);
  ir_program_free(q);
}

/* The training policy draws module state written in place and then read with an input that
 * requires grad (docs/findings/aot_eager-buffer-mutated-then-read-doubles-input-grad), and .data
 * views, every program eager-valid. */
TEST(the_generator_writes_module_state_then_reads_it_with_a_grad_input_and_draws_data) {
  gen_policy pol;
  af_err err;
  gen_policy_default(&pol);
  CHECK(gen_policy_from_json("{\"chances\": {\"train\": 1.0}}", &pol, &err) == 0, "%s", err.msg);
  int ntrain = 0, state_read = 0, data = 0, data_param = 0, view_leaf = 0, bad = 0;
  for (uint64_t seed = 1; seed <= 120; seed++) {
    ir_program *p = NULL;
    if (gen_program(&pol, seed, &p, &err)) {
      CHECK(0, "seed %llu: %s", (unsigned long long)seed, err.msg);
      continue;
    }
    if (p->train) {
      ntrain++;
      for (int b = 0, got = 0; b < p->nbases && !got; b++)
        for (int i = 0; i < p->ninputs && !got; i++) view_leaf += got = p->bases[b].grad && p->inputs[i].base == b + 1;
      int written = -1; /* module state written in place at the top, then read with a grad input */
      for (int s = 0; s < p->nstmts; s++) {
        const ir_stmt *st = &p->stmts[s];
        if (st->op == OPS_data) {
          data++;
          data_param += st->args[0].value < p->ninputs && p->inputs[st->args[0].value].param;
        }
        if (ops_mutates(st->op) && st->args[0].kind == IR_ARG_VALUE) {
          int v = st->args[0].value;
          if (v >= p->ninputs && p->stmts[s - 1].op == OPS_data) v = p->stmts[s - 1].args[0].value;
          if (v < p->ninputs && p->inputs[v].buffer && written < 0) written = v;
        }
        if (st->op == OPS_mul && written >= 0 && st->out >= 0 && !strncmp(p->names[st->out], "st", 2)) {
          int a = st->args[0].value, b = st->args[1].value;
          int y = a == written || (a >= p->ninputs) ? b : a;
          state_read += y < p->ninputs && p->inputs[y].grad && y != written;
          break;
        }
      }
      result r;
      result_init(&r);
      if (eager_run(p, &r, &err) || r.status != RESULT_OK) bad++, CHECK(0, "seed %llu: eager: %s", (unsigned long long)seed, r.message ? r.message : err.msg);
      result_clear(&r);
    }
    ir_program_free(p);
  }
  CHECK(ntrain >= 30 && state_read >= 6 && data >= 5 && data_param >= 1 && view_leaf >= 5 && !bad,
        "%d training programs: %d write module state then read it with an input that requires grad, %d .data views (%d of a "
        "parameter), %d with an input that views a caller's leaf, %d eager refuses",
        ntrain, state_read, data, data_param, view_leaf, bad);
}

/* ---- outputs that alias one intermediate (issue 33's coverage, helper H33c) ---- */

/* Statement k of p when it makes value v at the top level, else -1. */
static int maker(const ir_program *p, int v) {
  for (int k = 0; k < p->nstmts; k++)
    if (p->stmts[k].out == v) return k;
  return -1;
}

/* With train_out_views 1 the training programs return two views of one intermediate that a
 * functional op made from a value that requires grad (`h.unsqueeze(0)`, `h.view_as(h)`,
 * `h.unsqueeze(-1)`) or h beside `h.detach()`, every one with a loss weight, every program
 * eager-valid (backward included) and passed by ref (the judge's inference form); with the chance
 * 0 no program has the form. */
TEST(the_generator_returns_views_of_one_intermediate_as_outputs_eager_accepts) {
  for (int on = 0; on < 2; on++) {
    gen_policy pol;
    af_err err;
    gen_policy_default(&pol);
    CHECK(gen_policy_from_json(on ? "{\"chances\": {\"train\": 1.0, \"train_out_views\": 1.0}}"
                                  : "{\"chances\": {\"train\": 1.0, \"train_out_views\": 0}}",
                               &pol, &err) == 0,
          "%s", err.msg);
    int ntrain = 0, views = 0, detached = 0, bad = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
      ir_program *p = NULL;
      if (gen_program(&pol, seed, &p, &err)) {
        CHECK(0, "seed %llu: %s", (unsigned long long)seed, err.msg);
        continue;
      }
      if (p->train) {
        ntrain++;
        int pair = 0, det = 0; /* two outputs made by views of one value h; h and h.detach() both outputs */
        for (int a = 0; a < p->noutputs; a++) {
          int ka = maker(p, p->outputs[a]);
          if (ka < 0 || p->stmts[ka].nargs < 1 || p->stmts[ka].args[0].kind != IR_ARG_VALUE) continue;
          int h = p->stmts[ka].args[0].value, kh = maker(p, h);
          if (kh < 0 || ops_get(p->stmts[kh].op)->kind != OPS_FUNC) continue;
          int op = p->stmts[ka].op;
          for (int b = a + 1; b < p->noutputs && (op == OPS_unsqueeze || op == OPS_view_as); b++) {
            int kb = maker(p, p->outputs[b]);
            pair |= kb >= 0 && (p->stmts[kb].op == OPS_unsqueeze || p->stmts[kb].op == OPS_view_as) &&
                    p->stmts[kb].args[0].kind == IR_ARG_VALUE && p->stmts[kb].args[0].value == h && ir_loss_weight(p, a) >= 1 &&
                    ir_loss_weight(p, b) >= 1;
          }
          for (int b = 0; b < p->noutputs && op == OPS_detach; b++) det |= p->outputs[b] == h;
        }
        views += pair;
        detached += det;
        if (pair || det) {
          result r;
          result_init(&r);
          if (eager_run(p, &r, &err) || r.status != RESULT_OK)
            bad++, CHECK(0, "seed %llu: eager: %s", (unsigned long long)seed, r.message ? r.message : err.msg);
          result_clear(&r);
          judgement j;
          if (judge_isolated(conv_find("ref"), p, NULL, 60, &j, &err) == 0) {
            CHECK(j.verdict == V_PASS, "seed %llu: ref: %s (%s)", (unsigned long long)seed, oracle_verdict_name(j.verdict),
                  j.detail ? j.detail : "");
            judgement_clear(&j);
          } else
            CHECK(0, "seed %llu: judged: %s", (unsigned long long)seed, err.msg);
        }
      }
      ir_program_free(p);
    }
    if (on)
      CHECK(ntrain >= 15 && views >= 5 && detached >= 2 && !bad,
            "%d training programs: %d return two views of one intermediate, %d an intermediate and its .detach(), %d eager refuses",
            ntrain, views, detached, bad);
    else
      CHECK(ntrain >= 15 && views == 0 && detached == 0, "chance 0: %d training programs, %d with the views, %d with .detach()", ntrain,
            views, detached);
  }
}

/* ---- inputs that view a leaf the caller owns (issue 33's third slice) ---- */

/* base [1, 2, 3, 4] the caller's leaf that requires grad; x = base.clone()[1:3] (as_strided), y a
 * leaf [5, 6]; x.mul_(2) (a non-leaf view: allowed); r = x * y: base.grad = [0, 2y, 0] = [0, 10,
 * 12, 0], y.grad = 2 * base[1:3] = [4, 6]; the storage the inputs viewed ends [1, 4, 6, 4] */
static const char *view_of_leaf =
    "{\"format\": \"aliasfuzz-program/1\",\n"
    " \"bases\": [{\"name\": \"base\", \"size\": 4, \"dtype\": \"float32\", \"data\": [1, 2, 3, 4]%s}],\n"
    " \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\", \"view_of\": \"base\", \"strides\": [1], \"offset\": 1},\n"
    "            {\"name\": \"y\", \"shape\": [2], \"dtype\": \"float32\", \"requires_grad\": true, \"data\": [5, 6]}],\n"
    " \"body\": [{\"op\": \"mul_\", \"args\": [\"x\", 2]}, {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", \"y\"]}],\n"
    " \"outputs\": [\"r\"], \"train\": true, \"loss\": [1]}\n";

TEST(an_input_that_views_a_callers_leaf_is_written_in_place_and_its_gradient_reaches_the_leaf) {
  ir_program *p = read_text(view_of_leaf, ", \"requires_grad\": true");
  if (!p) return;
  char *text = codec_write_string(p);
  CHECK(text && strstr(text, "\"data\": [1, 2, 3, 4], \"requires_grad\": true}"), "written: %s", text ? text : "(none)");
  free(text);
  result e;
  af_err err;
  result_init(&e);
  double bg[4], yg[2], st[4];
  CHECK(eager_run(p, &e, &err) == 0 && e.status == RESULT_OK && e.ngrads == 3 && e.grads[2] && e.grads[1] &&
            !at_tensor_values(e.grads[2], bg, &err) && !at_tensor_values(e.grads[1], yg, &err) &&
            !at_tensor_values(e.bases[0], st, &err) && bg[0] == 0 && bg[1] == 10 && bg[2] == 12 && bg[3] == 0 && yg[0] == 4 &&
            yg[1] == 6 && st[1] == 4 && st[2] == 6 && st[3] == 4,
        "eager: %s; base.grad [%g %g %g %g] (by hand [0 10 12 0]), y.grad [%g %g] ([4 6]), storage [.. %g %g %g]",
        e.message ? e.message : "ok", bg[0], bg[1], bg[2], bg[3], yg[0], yg[1], st[1], st[2], st[3]);
  /* a converter whose base.grad is zeros: wrong-gradient naming it */
  result c;
  result_init(&c);
  CHECK(eager_run(p, &c, &err) == 0 && c.status == RESULT_OK, "second run");
  if (c.ngrads == 3 && c.grads[2]) {
    at_tensor_free(c.grads[2]);
    c.grads[2] = NULL; /* unset: compared as zeros */
  }
  char *detail = NULL;
  oracle_verdict v = oracle_judge(p, &e, &c, NULL, &detail);
  CHECK(v == V_WRONG_GRADIENT && detail && strstr(detail, "base.grad"), "verdict %s: %s", oracle_verdict_name(v), detail ? detail : "");
  free(detail);
  result_clear(&c);
  result_clear(&e);
  /* the inference form drops it */
  ir_program *q = ir_program_clone(p);
  ir_untrain(q);
  CHECK(!q->bases[0].grad && ir_ngrads(q) == 0, "untrained: base grad %d", q->bases[0].grad);
  ir_program_free(q);
  ir_program_free(p);
  /* refused outside a training program, and on an integer base */
  const char *bad[][2] = {{"{\"format\": \"aliasfuzz-program/1\", \"bases\": [{\"name\": \"b\", \"size\": 2, \"dtype\": \"float32\", "
                           "\"requires_grad\": true}], \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\", \"view_of\": "
                           "\"b\"}], \"body\": [], \"outputs\": [\"x\"]}",
                           "requires_grad in a program without \"train\": true"},
                          {"{\"format\": \"aliasfuzz-program/1\", \"bases\": [{\"name\": \"b\", \"size\": 2, \"dtype\": \"int64\", "
                           "\"requires_grad\": true}], \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"int64\", \"view_of\": "
                           "\"b\"}], \"body\": [], \"outputs\": [\"x\"], \"train\": true}",
                           "only floating-point tensors can require grad"}};
  for (int k = 0; k < 2; k++) {
    ir_program *r = NULL;
    CHECK(codec_read_string(bad[k][0], "t", &r, &err) != 0 && strstr(err.msg, bad[k][1]) && strstr(err.msg, "bases[0] (b)"),
          "case %d: %s", k, r ? "accepted" : err.msg);
    ir_program_free(r);
  }
}

/* w a parameter, x requires grad: y = x * w; torch.set_grad_enabled(False) (%s); z = y * 2;
 * z.add_(1); outputs y, z with loss weights 2, 3 */
static const char *grad_off =
    "{\"format\": \"aliasfuzz-program/1\",\n"
    " \"inputs\": [{\"name\": \"w\", \"shape\": [3], \"dtype\": \"float32\", \"param\": true},\n"
    "            {\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"requires_grad\": true}],\n"
    " \"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", \"w\"]}, {\"op\": \"set_grad_enabled\", \"args\": [%s]},\n"
    "          {\"out\": \"z\", \"op\": \"mul\", \"args\": [\"y\", 2]}, {\"op\": \"add_\", \"args\": [\"z\", 1]}],\n"
    " \"outputs\": [\"y\", \"z\"], \"train\": true, \"loss\": [2, 3]}\n";

static ir_program *read_grad_off(const char *mode) {
  char text[2048];
  snprintf(text, sizeof text, grad_off, mode, mode);
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(text, "grad_off", &p, &err)) CHECK(0, "read: %s", err.msg);
  return p;
}

/* torch.set_grad_enabled(False) (issue 33): z is made without grad mode, so only y's term of the
 * loss reaches x (x.grad = 2 w; with True, 2 w + 3 * 2 w = 8 w), and the caller's grad mode after
 * the call is off: eager says so (grad_after 0) and
 * puts grad mode back on; the oracle compares the mode a converter leaves (value-mismatch naming
 * it), and not where a converter does not say (-1). Spelled as Python does; the inference form
 * drops it; a program without "train" may not hold it. */
TEST(a_set_grad_enabled_outlives_the_call_and_the_oracle_compares_the_mode_it_leaves) {
  ir_program *p = read_grad_off("false"), *on = read_grad_off("true");
  if (!p || !on) {
    ir_program_free(p);
    ir_program_free(on);
    return;
  }
  char *src = emit_torchscript(p, "f");
  CHECK(src && strstr(src, "    y = torch.mul(x, self.w)\n    torch.set_grad_enabled(False)\n    z = torch.mul(y, 2)\n"),
        "emitted: %s", src ? src : "");
  free(src);
  result a, b;
  af_err err;
  result_init(&a);
  result_init(&b);
  double w[3], gx[3], gx_on[3];
  int ran = eager_run(p, &a, &err) == 0 && a.status == RESULT_OK && eager_run(on, &b, &err) == 0 && b.status == RESULT_OK;
  CHECK(ran, "eager runs both: %s %s", a.message ? a.message : "", b.message ? b.message : "");
  if (ran && a.ngrads == 2 && b.ngrads == 2 && a.grads[1] && b.grads[1] && !at_tensor_values(a.inputs[0], w, &err) &&
      !at_tensor_values(a.grads[1], gx, &err) && !at_tensor_values(b.grads[1], gx_on, &err)) {
    for (int k = 0; k < 3; k++)
      CHECK(fabs(gx[k] - 2 * w[k]) < 1e-5 && fabs(gx_on[k] - 8 * w[k]) < 1e-5, "[%d]: x.grad %g (2 w = %g), with grad on %g (8 w = %g)",
            k, gx[k], 2 * w[k], gx_on[k], 8 * w[k]);
  } else {
    CHECK(0, "gradients of x from both runs");
  }
  CHECK(a.grad_after == 0 && b.grad_after == 1 && at_grad_enabled(), "grad mode after the call: %d, %d; on again after the runs: %d",
        a.grad_after, b.grad_after, at_grad_enabled());
  char *detail = NULL;
  result c;
  result_init(&c);
  CHECK(ran && eager_run(p, &c, &err) == 0, "eager again");
  oracle_verdict v = oracle_judge(p, &a, &c, NULL, &detail);
  CHECK(v == V_PASS, "the same mode passes: %s", detail ? detail : "");
  free(detail);
  c.grad_after = 1;
  v = oracle_judge(p, &a, &c, NULL, &detail);
  CHECK(v == V_VALUE_MISMATCH && detail && strstr(detail, "grad mode after the call: on, eager off"), "a converter that left it on: %s %s",
        oracle_verdict_name(v), detail ? detail : "");
  free(detail);
  c.grad_after = -1;
  v = oracle_judge(p, &a, &c, NULL, &detail);
  CHECK(v == V_PASS, "a converter that does not say is not judged on it: %s", detail ? detail : "");
  free(detail);
  result_clear(&a);
  result_clear(&b);
  result_clear(&c);
  ir_untrain(p);
  int left = 0;
  for (int s = 0; s < p->nstmts; s++) left += p->stmts[s].op == OPS_set_grad_enabled;
  CHECK(left == 0 && p->nstmts == 3 && ir_validate(p, &err) == 0, "untrained: %d left, %d statements", left, p->nstmts);
  ir_program *q = NULL;
  CHECK(codec_read_string("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}], "
                          "\"body\": [{\"op\": \"set_grad_enabled\", \"args\": [false]}], \"outputs\": [\"x\"]}", "t", &q, &err) != 0 &&
            strstr(err.msg, "body[0] (set_grad_enabled): torch.set_grad_enabled in a program without \"train\": true"),
        "refused: %s", err.msg);
  ir_program_free(q);
  ir_program_free(p);
  ir_program_free(on);
}

int main(void) {
  at_init();
  RUN(codec_reads_and_writes_requires_grad_param_train_and_loss_canonically);
  RUN(codec_refuses_malformed_training_fields_naming_them);
  RUN(eager_gradient_equals_the_hand_computed_one);
  RUN(a_leaf_that_requires_grad_written_in_place_is_invalid_program_with_the_reason);
  RUN(a_tensor_saved_for_backward_then_modified_is_invalid_program_with_the_reason);
  RUN(the_oracle_says_wrong_gradient_when_only_a_gradient_differs);
  RUN(in_process_converters_decline_training_programs_as_a_harness_limit);
  RUN(the_judge_gives_a_converter_that_cannot_train_the_inference_form);
  RUN(a_no_grad_block_reads_writes_and_emits_as_a_with_block_whose_names_stay_visible);
  RUN(writes_under_no_grad_and_through_detach_change_values_but_not_gradients);
  RUN(a_view_made_under_no_grad_and_written_in_grad_mode_is_invalid_program);
  RUN(the_generator_makes_no_grad_detach_and_parameter_update_forms_eager_accepts);
  RUN(a_write_through_data_hides_from_autograds_saved_tensor_check_unlike_detach);
  RUN(the_generator_writes_module_state_then_reads_it_with_a_grad_input_and_draws_data);
  RUN(an_input_that_views_a_callers_leaf_is_written_in_place_and_its_gradient_reaches_the_leaf);
  RUN(the_generator_returns_views_of_one_intermediate_as_outputs_eager_accepts);
  RUN(a_set_grad_enabled_outlives_the_call_and_the_oracle_compares_the_mode_it_leaves);
  return tap_done();
}
