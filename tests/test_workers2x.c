/* test_workers2x.c - the PyTorch 2.x workers (issue 14) against the real converters: export,
 * export-decomp, aot_eager, inductor, onnx-dynamo, tvm-relax and openvino.
 *
 *   test_workers2x buffers              a program whose only effect is an in-place write into a
 *                                       module buffer, through export, aot_eager and openvino:
 *                                       each passes, and the same answer with the buffer's final
 *                                       state put back to its initial value is judged
 *                                       input-mutation-lost (the verdict rests on the buffer)
 *   test_workers2x layouts              the input-layout seed cases (lay-*) through export and
 *                                       aot_eager give the in-process verdict (script's: pass;
 *                                       functorch does not: its functionalize takes aliased
 *                                       inputs as unrelated ones) with every storage's final state
 *                                       answered, and a hidden base put back to its initial
 *                                       value is input-mutation-lost (the verdict rests on it);
 *                                       aot_eager calls a layout program twice in one worker
 *                                       process, the second call judged on its own eager truth
 *                                       (torch 2.13.0 reuses the graph compiled for unaliased
 *                                       inputs on aliased ones: call 2 of lay-001 mismatches)
 *   test_workers2x attributes           module state in a plain tensor attribute (issue 29):
 *                                       export drops its rebind (the buffer form passes),
 *                                       export-decomp refuses its in-place write, and export,
 *                                       export-decomp, aot_eager, onnx-dynamo, tvm-relax and
 *                                       openvino each give a verdict on both
 *   test_workers2x variants             the aot_eager variants (issue 33): aot_eager-dynamic's graph
 *                                       has symbolic sizes, aot_eager-subclass runs on TwoTensor
 *                                       inputs; both pass what aot_eager passes (a buffer write, a
 *                                       training program), and a program TwoTensor itself does not
 *                                       carry is aot_eager-subclass's declared limit;
 *                                       aot_eager-debug runs with debug_assert on (read back) and
 *                                       passes both; aot_eager-autocast passes both under autocast,
 *                                       and a matmul autocast changes is its declared limit;
 *                                       aot_eager-unbacked keeps a mask write in one graph
 *                                       (aot_eager breaks there) and passes both;
 *                                       aot_eager says the grad mode a call leaves (a program's
 *                                       torch.set_grad_enabled) and serves the next in grad mode */
#include <stdlib.h>
#include <string.h>

#include "../fuzz/classes.h"
#include "../harness/codec.h"
#include "../harness/converters/conv_worker.h"
#include "../harness/eager.h"
#include "../harness/torch/shim.h"
#include "../fuzz/judge.h"
#include "../fuzz/refusals.h"
#include "../oracle/oracle.h"
#include "tap.h"

/* self.b.add_(3) then r = x * 2: the output does not read the buffer, so only the buffer's final
 * state can tell a converter that dropped the write from one that kept it. */
static const char *buffer_program =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": ["
    "{\"name\": \"b\", \"shape\": [2, 3], \"dtype\": \"float32\", \"buffer\": true},"
    "{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}],"
    "\"body\": [{\"out\": \"v\", \"op\": \"select\", \"args\": [\"b\", 0, 1]},"
    "{\"op\": \"add_\", \"args\": [\"v\", 3]},"
    "{\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", 2]}],"
    "\"outputs\": [\"r\"], \"meta\": {\"note\": \"self.b[1].add_(3); r = x * 2\"}}";

static void expect_buffer_judged(const char *name) {
  const conv_converter *c = conv_find(name);
  const char *why = NULL;
  if (!c || !c->available(c, &why)) {
    CHECK(0, "%s is available: %s", name, why ? why : "not registered");
    return;
  }
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(buffer_program, "buffer", &p, &err)) {
    CHECK(0, "%s", err.msg);
    return;
  }
  result eager, conv;
  result_init(&eager);
  result_init(&conv);
  if (eager_run(p, &eager, &err) || conv_execute(c, p, &conv, &err)) {
    CHECK(0, "%s: runs: %s", name, err.msg);
    goto out;
  }
  char *detail = NULL;
  oracle_verdict v = oracle_judge(p, &eager, &conv, NULL, &detail);
  CHECK(v == V_PASS, "%s: the buffer write passes: %s (%s)", name, oracle_verdict_name(v),
        conv.message ? conv.message : detail ? detail : "");
  free(detail);
  detail = NULL;
  CHECK(conv.ninputs == 2 && conv.inputs[0], "%s: reports the buffer's final state", name);
  if (conv.ninputs == 2 && conv.inputs[0]) {
    double vals[6];
    CHECK(at_tensor_values(conv.inputs[0], vals, &err) == 0 && vals[3] == ir_input_value(&p->inputs[0], 0, 3) + 3,
          "%s: the buffer's row 1 got + 3", name);
    /* the same answer with the buffer as it was before the call */
    af_tensor **fresh = NULL;
    if (inputs_new(p, &fresh, &err) == 0) {
      at_tensor_free(conv.inputs[0]);
      conv.inputs[0] = fresh[0];
      fresh[0] = NULL;
      v = oracle_judge(p, &eager, &conv, NULL, &detail);
      CHECK(v == V_INPUT_MUTATION_LOST, "%s: a buffer left as it was is input-mutation-lost, not %s (%s)", name,
            oracle_verdict_name(v), detail ? detail : "");
      free(detail);
      inputs_free(p->ninputs, fresh);
    }
  }
out:
  result_clear(&eager);
  result_clear(&conv);
  ir_program_free(p);
}

TEST(export_is_judged_on_a_module_buffer_written_in_place) { expect_buffer_judged("export"); }
TEST(aot_eager_is_judged_on_a_module_buffer_written_in_place) { expect_buffer_judged("aot_eager"); }
TEST(openvino_is_judged_on_a_module_buffer_written_in_place) { expect_buffer_judged("openvino"); }

/* ---- input layouts and calling again (issue 16) ---- */

static ir_program *seed(const char *file) {
  char path[1024];
  ir_program *p = NULL;
  af_err err;
  snprintf(path, sizeof path, "%s/corpus/seed/%s", AF_SOURCE_DIR, file);
  if (codec_read_file(path, &p, &err)) CHECK(0, "%s", err.msg);
  return p;
}

static const char *lay_cases[] = {
    "lay-001-input-and-its-slice-both-written.json", "lay-002-overlapping-windows-of-hidden-base.json",
    "lay-003-transposed-input-written-through.json", "lay-004-offset-input-returned-as-view.json",
    "lay-005-expanded-input-reads-a-write.json",     "lay-006-stepped-view-input-fill.json"};

/* Every lay-* case through worker `name` with one call (AF_SECOND_CALL=0): the same verdict as the
 * in-process `script` (pass), every storage's final state answered; on the hidden-base case
 * (lay-002) the same answer with that storage put back as it was is input-mutation-lost. */
static void expect_layouts_as_in_process(const char *name) {
  const conv_converter *c = conv_find(name), *script = conv_find("script");
  const char *why = NULL;
  if (!c || !c->available(c, &why)) {
    CHECK(0, "%s is available: %s", name, why ? why : "not registered");
    return;
  }
  setenv("AF_SECOND_CALL", "0", 1);
  for (size_t k = 0; k < sizeof lay_cases / sizeof *lay_cases; k++) {
    ir_program *p = seed(lay_cases[k]);
    if (!p) continue;
    af_err err;
    judgement in, w;
    CHECK(judge_inprocess(script, p, NULL, &in, &err) == 0 && judge_inprocess(c, p, NULL, &w, &err) == 0, "%s: judged: %s",
          lay_cases[k], err.msg);
    CHECK(w.verdict == in.verdict, "%s: %s gives %s as script in process does, not %s (%s)", lay_cases[k], name,
          oracle_verdict_name(in.verdict), oracle_verdict_name(w.verdict), w.detail ? w.detail : "");
    judgement_clear(&in);
    judgement_clear(&w);
    result eager, conv;
    result_init(&eager);
    result_init(&conv);
    if (eager_run(p, &eager, &err) == 0 && conv_execute(c, p, &conv, &err) == 0 && conv.status == RESULT_OK) {
      int all = conv.nbases == p->nbases;
      for (int b = 0; all && b < p->nbases; b++) all = conv.bases[b] != NULL;
      CHECK(all, "%s: %s answers every storage's final state (%d of %d)", lay_cases[k], name, conv.nbases, p->nbases);
      for (int b = 0; all && b < p->nbases; b++) {
        if (p->bases[b].owner >= 0) continue;
        af_tensor **fresh = NULL;
        char *detail = NULL;
        if (inputs_new(p, &fresh, &err)) continue;
        at_tensor_free(conv.bases[b]);
        conv.bases[b] = fresh[p->ninputs + b];
        fresh[p->ninputs + b] = NULL;
        oracle_verdict v = oracle_judge(p, &eager, &conv, NULL, &detail);
        CHECK(v == V_INPUT_MUTATION_LOST, "%s: hidden base %s left as it was is input-mutation-lost, not %s (%s)",
              lay_cases[k], p->bases[b].name, oracle_verdict_name(v), detail ? detail : "");
        free(detail);
        inputs_free(ir_ntensors(p), fresh);
      }
    }
    result_clear(&eager);
    result_clear(&conv);
    ir_program_free(p);
  }
  unsetenv("AF_SECOND_CALL");
}

TEST(export_builds_input_layouts_as_eager_does) { expect_layouts_as_in_process("export"); }
TEST(aot_eager_builds_input_layouts_as_eager_does) { expect_layouts_as_in_process("aot_eager"); }

/* Whether two results' outputs hold the same values. */
static int same_outputs(const result *a, const result *b) {
  if (a->noutputs != b->noutputs) return 0;
  for (int o = 0; o < a->noutputs; o++) {
    int64_t n = at_tensor_numel(a->outputs[o]);
    if (n != at_tensor_numel(b->outputs[o]) || n > 64) return 0;
    double x[64], y[64];
    af_err err;
    if (at_tensor_values(a->outputs[o], x, &err) || at_tensor_values(b->outputs[o], y, &err)) return 0;
    if (memcmp(x, y, sizeof(double) * (size_t)n)) return 0;
  }
  return 1;
}

/* lay-001 (b is a[1:3], both written): aot_eager caches, so the judge calls it twice in one
 * worker process: call 1 on unaliased copies (torch.compile compiles), call 2 on b aliasing a.
 * The two calls have different truths (with b aliasing a, a's write shows in b and b's in a). On
 * torch 2.13.0 the graph compiled for call 1 serves call 2 (no recompilation) and gives call 1's
 * kind of answer, so call 2 is a value-mismatch, and the verdict must say it is call 2's; the
 * same program compiled afresh for the aliased inputs (one call) passes. */
TEST(aot_eager_called_again_on_aliased_inputs_is_judged_on_the_second_call) {
  const conv_converter *c = conv_find("aot_eager");
  const char *why = NULL;
  if (!c || !c->available(c, &why)) {
    CHECK(0, "aot_eager is available: %s", why ? why : "not registered");
    return;
  }
  ir_program *p = seed(lay_cases[0]);
  af_err err;
  ir_program *plain = p ? judge_plain_copy(p, &err) : NULL;
  if (!plain) return;
  CHECK(judge_calls_again(c, p), "aot_eager's hello says it caches: a layout program is called twice");
  judgement j;
  CHECK(judge_inprocess(c, p, NULL, &j, &err) == 0, "judged: %s", err.msg);
  CHECK(j.verdict == V_VALUE_MISMATCH && j.ncalls == 3 && j.order == 2 && j.call == 2,
        "order 2's call 2 (the cached graph on aliased inputs) is the value-mismatch, order 1 (compiled on the aliased "
        "inputs) passed (%s, order %d call %d, %d calls): %s",
        oracle_verdict_name(j.verdict), j.order, j.call, j.ncalls, j.detail ? j.detail : "");
  CHECK(j.detail && strstr(j.detail, "call 2 of 2 (b = as_strided(a, [2, 5], [5, 1], 5); a and b share a storage; call 1, fresh contiguous inputs, passed)"),
        "the detail names call 2 and both calls' layouts: %s", j.detail ? j.detail : "(null)");
  /* aot_eager said the second call was served by the first call's graph: the shared-storage reuse
     rule, whose key and quick key hold no pattern (one class whatever the program writes) */
  char *key = classes_key("aot_eager", j.verdict, j.detail, "add_@in add_@view-of-in");
  char *qk = classes_quick_key(p, j.verdict, j.detail);
  CHECK(judge_reused_on_shared(j.detail) && key && strstr(key, "|" CLASSES_SHARED_REUSE_KEY) && strstr(qk, CLASSES_SHARED_REUSE_KEY),
        "the shared-storage reuse rule: key %s, quick key %s", key ? key : "", qk ? qk : "");
  free(key);
  free(qk);
  judgement_clear(&j);
  setenv("AF_SECOND_CALL", "0", 1);
  CHECK(judge_inprocess(c, p, NULL, &j, &err) == 0 && j.verdict == V_PASS && j.ncalls == 0,
        "compiled afresh for the aliased inputs (one call) it passes: %s", j.detail ? j.detail : "");
  judgement_clear(&j);
  unsetenv("AF_SECOND_CALL");
  /* the two calls by hand */
  result e1, e2, r1, r2;
  result_init(&e1);
  result_init(&e2);
  result_init(&r1);
  result_init(&r2);
  conv_worker *w = conv_worker_of(c);
  CHECK(eager_run(plain, &e1, &err) == 0 && eager_run(p, &e2, &err) == 0, "eager: %s", err.msg);
  CHECK(!same_outputs(&e1, &e2), "the two calls' truths differ (aliasing changes r)");
  CHECK(conv_execute(c, plain, &r1, &err) == 0 && r1.status == RESULT_OK, "call 1: %s", r1.message ? r1.message : "");
  int pid = conv_worker_pid(w);
  conv_worker_set_again(w, 1);
  CHECK(conv_execute(c, p, &r2, &err) == 0 && r2.status == RESULT_OK, "call 2: %s", r2.message ? r2.message : "");
  CHECK(conv_worker_pid(w) == pid, "one worker process for both calls");
  CHECK(r2.graph && strstr(r2.graph, "# warning: second call of the compiled program: served by the graph(s) compiled for "
                                     "the first call"),
        "the worker says call 2 reused call 1's graph: %.300s", r2.graph ? r2.graph : "(null)");
  CHECK(same_outputs(&e1, &r1), "call 1 matches its eager run");
  CHECK(!same_outputs(&e2, &r2), "call 2 does not match its own (aliased) eager run");
  result_clear(&e1);
  result_clear(&e2);
  result_clear(&r1);
  result_clear(&r2);
  ir_program_free(plain);
  ir_program_free(p);
}

/* lay-003 (a transposed input written through): both calling orders pass, order 2's call 2 with
 * other strides than its call 1. */
TEST(aot_eager_called_again_on_a_transposed_input_passes_both_calls) {
  const conv_converter *c = conv_find("aot_eager");
  ir_program *p = seed(lay_cases[2]);
  af_err err = {{0}};
  judgement j;
  if (!p || !c) return;
  int rc = judge_inprocess(c, p, NULL, &j, &err);
  CHECK(rc == 0 && j.verdict == V_PASS && j.ncalls == 3 && j.order == 2 && j.call == 2,
        "three calls (order 1, order 2's two), all pass (rc %d, %s, %d calls): %s", rc, oracle_verdict_name(j.verdict),
        j.ncalls, j.detail ? j.detail : err.msg);
  judgement_clear(&j);
  ir_program_free(p);
}

/* ---- module state in plain tensor attributes (issue 29) ---- */

/* self.t.add_(x) (ADD) or self.t = self.t + x, then y = self.t * 2; KIND "attribute" or "buffer" */
static ir_program *attr_program(const char *kind, int in_place) {
  char text[1024];
  snprintf(text, sizeof text,
           "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"t\", \"shape\": [3], \"dtype\": \"float32\", "
           "\"%s\": true}, {\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}], \"body\": [%s, {\"out\": \"y\", "
           "\"op\": \"mul\", \"args\": [\"t\", 2]}], \"outputs\": [\"y\"]}",
           kind, in_place ? "{\"op\": \"add_\", \"args\": [\"t\", \"x\"]}" : "{\"out\": \"t\", \"op\": \"add\", \"args\": [\"t\", \"x\"]}");
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(text, kind, &p, &err)) CHECK(0, "%s", err.msg);
  return p;
}

/* The verdict of converter name on the program; *msg (new, free()) the converter's message or the
 * oracle's detail. -1 when it could not run (a harness error, which no worker may give here). */
static int verdict_of(const char *name, const ir_program *p, char **msg) {
  const conv_converter *c = conv_find(name);
  const char *why = NULL;
  *msg = NULL;
  if (!c || !c->available(c, &why)) {
    CHECK(0, "%s is available: %s", name, why ? why : "not registered");
    return -1;
  }
  result eager, conv;
  af_err err;
  result_init(&eager);
  result_init(&conv);
  int v = -1;
  if (eager_run(p, &eager, &err) || conv_execute(c, p, &conv, &err)) {
    CHECK(0, "%s: runs: %s", name, err.msg);
  } else {
    char *detail = NULL;
    v = (int)oracle_judge(p, &eager, &conv, NULL, &detail);
    *msg = strdup(conv.message ? conv.message : detail ? detail : "");
    free(detail);
  }
  result_clear(&eager);
  result_clear(&conv);
  return v;
}

/* torch.export lifts a plain attribute as a constant: a rebind of it is dropped (the buffer form
 * passes), an in-place write refused by run_decompositions ("Constant t is mutated ... register it
 * as buffer"); every worker gives a verdict on both forms, never a harness error. */
TEST(export_sees_a_plain_attribute_as_a_constant_and_every_worker_gives_a_verdict) {
  ir_program *ra = attr_program("attribute", 0), *rb = attr_program("buffer", 0), *ia = attr_program("attribute", 1);
  if (!ra || !rb || !ia) goto out;
  char *msg = NULL;
  int v = verdict_of("export", rb, &msg);
  CHECK(v == V_PASS, "export: the buffer rebind passes: %s (%s)", v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
  free(msg);
  v = verdict_of("export", ra, &msg);
  CHECK(v == V_INPUT_MUTATION_LOST, "export: the attribute rebind is lost: %s (%s)", v >= 0 ? oracle_verdict_name(v) : "-",
        msg ? msg : "");
  free(msg);
  v = verdict_of("export-decomp", ia, &msg);
  CHECK(v == V_ERROR && msg && strstr(msg, "Constant t is mutated"), "export-decomp refuses the attribute write: %s (%s)",
        v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
  free(msg);
  static const char *const workers[] = {"export", "export-decomp", "aot_eager", "onnx-dynamo", "tvm-relax", "openvino"};
  for (size_t k = 0; k < sizeof workers / sizeof workers[0]; k++)
    for (int form = 0; form < 2; form++) {
      v = verdict_of(workers[k], form ? ia : ra, &msg);
      CHECK(v >= 0 && v != V_PROTOCOL && v != V_INVALID_PROGRAM && !(msg && strstr(msg, RESULT_HARNESS_LIMIT)), "%s on the attribute %s: %s (%s)", workers[k], form ? "write" : "rebind",
            v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
      printf("# %s, attribute %s: %s\n", workers[k], form ? "write" : "rebind", v >= 0 ? oracle_verdict_name(v) : "-");
      free(msg);
    }
out:
  ir_program_free(ra);
  ir_program_free(rb);
  ir_program_free(ia);
}

/* ---- the aot_eager variants (issue 33): dynamic=True, TwoTensor inputs ---- */

/* o = ones(3); o.mul_(x); r = o + 1: a plain intermediate written with an input. Eager on TwoTensor
 * inputs multiplies o by x.a and then by x.b (TwoTensor applies an op to each inner tensor, and o is
 * no TwoTensor): o holds x * x, not x. The subclass does not carry it; aot_eager passes it. */
static const char *mixed_program =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}],"
    "\"body\": [{\"out\": \"o\", \"op\": \"ones\", \"args\": [[3]]}, {\"op\": \"mul_\", \"args\": [\"o\", \"x\"]},"
    "{\"out\": \"r\", \"op\": \"add\", \"args\": [\"o\", 1]}], \"outputs\": [\"r\"]}";

/* a training program: y = x * x; y[0:2] += 1 (a view of an intermediate written); r = y * w, w a
 * parameter: the gradients flow through the write */
static const char *train_program =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"w\", \"shape\": [3], \"dtype\": \"float32\", "
    "\"param\": true}, {\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"requires_grad\": true}],"
    "\"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", \"x\"]},"
    "{\"out\": \"v\", \"op\": \"slice\", \"args\": [\"y\", 0, 0, 2, 1]}, {\"op\": \"add_\", \"args\": [\"v\", 1]},"
    "{\"out\": \"r\", \"op\": \"mul\", \"args\": [\"y\", \"w\"]}], \"outputs\": [\"r\"], \"train\": true, \"loss\": [2]}";

static ir_program *read_program(const char *text, const char *what) {
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(text, what, &p, &err)) CHECK(0, "%s: %s", what, err.msg);
  return p;
}

/* The hello of converter name says what (its versions hold the worker's settings) */
static void expect_hello_says(const char *name, const char *what) {
  const conv_converter *c = conv_find(name);
  const char *why = NULL;
  if (!c || !c->available(c, &why)) {
    CHECK(0, "%s is available: %s", name, why ? why : "not registered");
    return;
  }
  conv_worker *w = conv_worker_of(c);
  const char *v = w ? conv_worker_version(w) : "";
  CHECK(v && strstr(v, what), "%s's hello says %s: %s", name, what, v ? v : "(none)");
}

/* aot_eager-dynamic compiles with dynamic=True: its hello says so, the graph TorchDynamo hands the
 * backend was traced with symbolic sizes (its graph text says each input's sizes: x's is a symbol,
 * s<N>; aot_eager's graph text has no such line, and its sizes would be 3), and what passes on
 * aot_eager passes on it, inference and training. */
TEST(aot_eager_dynamic_compiles_with_symbolic_sizes_and_passes_what_aot_eager_passes) {
  expect_hello_says("aot_eager-dynamic", "dynamic=True");
  ir_program *b = read_program(buffer_program, "buffer"), *t = read_program(train_program, "train");
  if (!b || !t) goto out;
  const char *names[] = {"aot_eager", "aot_eager-dynamic"};
  for (int k = 0; k < 2; k++)
    for (int train = 0; train < 2; train++) {
      const conv_converter *c = conv_find(names[k]);
      const ir_program *p = train ? t : b;
      result eager, conv;
      af_err err;
      result_init(&eager);
      result_init(&conv);
      if (c && eager_run(p, &eager, &err) == 0 && conv_execute(c, p, &conv, &err) == 0) {
        char *detail = NULL;
        oracle_verdict v = oracle_judge(p, &eager, &conv, NULL, &detail);
        CHECK(v == V_PASS, "%s: the %s program passes: %s (%s)", names[k], train ? "training" : "buffer",
              oracle_verdict_name(v), conv.message ? conv.message : detail ? detail : "");
        free(detail);
        /* the buffer program's x (r = x * 2) is free to take any size; the training program's x meets
         * the parameter w (a module's parameters keep static sizes), so its size is specialized */
        int symbolic = conv.graph && strstr(conv.graph, " l_x_ [s") != NULL;
        if (!train)
          CHECK(symbolic == k, "%s: the backend's graph %s traced with a symbolic size of x: %.300s", names[k],
                k ? "was" : "was not", conv.graph ? conv.graph : "(none)");
      } else {
        CHECK(0, "%s runs the %s program", names[k], train ? "training" : "buffer");
      }
      result_clear(&eager);
      result_clear(&conv);
    }
out:
  ir_program_free(b);
  ir_program_free(t);
}

/* aot_eager-subclass calls the compiled program on TwoTensor inputs: its hello says so; what passes
 * on aot_eager passes on it, inference (a buffer written in place) and training (gradients compared);
 * a program the subclass itself does not carry in eager mode is its declared limit, never a
 * torch.compile finding: converter-unsupported, the REFUSES line's limit, where aot_eager passes. */
TEST(aot_eager_subclass_runs_on_two_tensor_inputs_and_a_subclass_failure_is_a_limit) {
  expect_hello_says("aot_eager-subclass", "TwoTensor");
  ir_program *b = read_program(buffer_program, "buffer"), *t = read_program(train_program, "train"),
             *m = read_program(mixed_program, "mixed");
  if (!b || !t || !m) goto out;
  char *msg = NULL;
  int v = verdict_of("aot_eager-subclass", b, &msg);
  CHECK(v == V_PASS, "aot_eager-subclass: the buffer program passes: %s (%s)", v >= 0 ? oracle_verdict_name(v) : "-",
        msg ? msg : "");
  free(msg);
  v = verdict_of("aot_eager-subclass", t, &msg);
  CHECK(v == V_PASS, "aot_eager-subclass: the training program passes (gradients compared): %s (%s)",
        v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
  free(msg);
  v = verdict_of("aot_eager", m, &msg);
  CHECK(v == V_PASS, "aot_eager: the plain intermediate written with an input passes: %s (%s)",
        v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
  free(msg);
  v = verdict_of("aot_eager-subclass", m, &msg);
  CHECK(v == V_UNSUPPORTED && msg && strstr(msg, "eager on TwoTensor inputs differs from eager on plain tensors"),
        "aot_eager-subclass: the subclass's own failure is converter-unsupported, said so: %s (%s)",
        v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
  const char *limit = v >= 0 ? refusals_limit(conv_find("aot_eager-subclass"), (oracle_verdict)v, msg ? msg : "") : NULL;
  CHECK(limit && strstr(limit, "TwoTensor subclass does not carry"), "it is the declared limit, not a bug: %s",
        limit ? limit : "(a bug)");
  free(msg);
out:
  ir_program_free(b);
  ir_program_free(t);
  ir_program_free(m);
}

/* aot_eager-debug compiles with AOTAutograd's consistency checks on: its hello says so (the value read
 * back from torch._functorch.config in the worker process, after it set it), and what passes on
 * aot_eager passes on it, inference (a buffer written in place) and training (gradients compared):
 * the checks stop no correct program. */
TEST(aot_eager_debug_runs_with_debug_assert_on_and_passes_what_aot_eager_passes) {
  expect_hello_says("aot_eager-debug", "debug_assert True");
  ir_program *b = read_program(buffer_program, "buffer"), *t = read_program(train_program, "train");
  if (!b || !t) goto out;
  for (int train = 0; train < 2; train++) {
    char *msg = NULL;
    int v = verdict_of("aot_eager-debug", train ? t : b, &msg);
    CHECK(v == V_PASS, "aot_eager-debug: the %s program passes: %s (%s)", train ? "training" : "buffer",
          v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
    free(msg);
  }
out:
  ir_program_free(b);
  ir_program_free(t);
}

/* a matmul, which autocast runs in bfloat16 on the CPU: r = x @ y (1.1 * 1.3 summed 8 times is not
 * bfloat16's 11.4375) */
static const char *matmul_program =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2, 8], \"dtype\": \"float32\"},"
    "{\"name\": \"y\", \"shape\": [8, 2], \"dtype\": \"float32\"}],"
    "\"body\": [{\"op\": \"fill_\", \"args\": [\"x\", 1.1]}, {\"op\": \"fill_\", \"args\": [\"y\", 1.3]},"
    "{\"out\": \"r\", \"op\": \"matmul\", \"args\": [\"x\", \"y\"]}], \"outputs\": [\"r\"]}";

/* a write through a boolean mask: m = x > 0; x[m] += 1; r = x * 2 (the indices are m.nonzero(), a size
 * no trace knows) */
static const char *mask_program =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}],"
    "\"body\": [{\"out\": \"m\", \"op\": \"gt\", \"args\": [\"x\", 0]},"
    "{\"op\": \"setitem_add\", \"args\": [\"x\", [\"m\"], 1]},"
    "{\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", 2]}], \"outputs\": [\"r\"]}";

/* aot_eager-unbacked compiles with TorchDynamo capturing data-dependent values and sizes: its hello says
 * both flags (read back in the worker process); the mask write passes on both, in one graph on the mode
 * (its graph text has no second graph) where aot_eager breaks the graph at it; and what passes on
 * aot_eager passes on it, inference and training. */
TEST(aot_eager_unbacked_keeps_a_mask_write_in_one_graph_and_passes_what_aot_eager_passes) {
  expect_hello_says("aot_eager-unbacked", "capture_scalar_outputs True, capture_dynamic_output_shape_ops True");
  ir_program *b = read_program(buffer_program, "buffer"), *t = read_program(train_program, "train"),
             *m = read_program(mask_program, "mask");
  if (!b || !t || !m) goto out;
  const char *names[] = {"aot_eager", "aot_eager-unbacked"};
  for (int k = 0; k < 2; k++) {
    const conv_converter *c = conv_find(names[k]);
    result eager, conv;
    af_err err;
    result_init(&eager);
    result_init(&conv);
    if (c && eager_run(m, &eager, &err) == 0 && conv_execute(c, m, &conv, &err) == 0) {
      char *detail = NULL;
      oracle_verdict v = oracle_judge(m, &eager, &conv, NULL, &detail);
      CHECK(v == V_PASS, "%s: the mask write passes: %s (%s)", names[k], oracle_verdict_name(v),
            conv.message ? conv.message : detail ? detail : "");
      free(detail);
      int graphs = conv.graph ? 1 + (strstr(conv.graph, "# graph 1") != NULL) : 0;
      CHECK(graphs == 2 - k, "%s: the mask write compiled into %d graph(s), expected %d: %.400s", names[k], graphs,
            2 - k, conv.graph ? conv.graph : "(none)");
    } else {
      CHECK(0, "%s runs the mask program", names[k]);
    }
    result_clear(&eager);
    result_clear(&conv);
  }
  for (int train = 0; train < 2; train++) {
    char *msg = NULL;
    int v = verdict_of("aot_eager-unbacked", train ? t : b, &msg);
    CHECK(v == V_PASS, "aot_eager-unbacked: the %s program passes: %s (%s)", train ? "training" : "buffer",
          v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
    free(msg);
  }
out:
  ir_program_free(b);
  ir_program_free(t);
  ir_program_free(m);
}

/* aot_eager-autocast calls the compiled program under torch.autocast("cpu", dtype=torch.bfloat16): its
 * hello says so; what passes on aot_eager passes on it, inference (a buffer written in place) and
 * training (gradients compared); a program whose eager results autocast changes (a matmul in
 * bfloat16) is its declared limit, converter-unsupported, never a torch.compile finding. */
TEST(aot_eager_autocast_calls_under_autocast_and_what_autocast_changes_is_a_limit) {
  expect_hello_says("aot_eager-autocast", "torch.autocast('cpu', dtype=torch.bfloat16)");
  ir_program *b = read_program(buffer_program, "buffer"), *t = read_program(train_program, "train"),
             *m = read_program(matmul_program, "matmul");
  if (!b || !t || !m) goto out;
  for (int train = 0; train < 2; train++) {
    char *msg = NULL;
    int v = verdict_of("aot_eager-autocast", train ? t : b, &msg);
    CHECK(v == V_PASS, "aot_eager-autocast: the %s program passes: %s (%s)", train ? "training" : "buffer",
          v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
    free(msg);
  }
  char *msg = NULL;
  int v = verdict_of("aot_eager", m, &msg);
  CHECK(v == V_PASS, "aot_eager: the matmul program passes: %s (%s)", v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
  free(msg);
  v = verdict_of("aot_eager-autocast", m, &msg);
  CHECK(v == V_UNSUPPORTED && msg && strstr(msg, "eager under autocast differs from eager without it"),
        "aot_eager-autocast: a program autocast changes is converter-unsupported, said so: %s (%s)",
        v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
  const char *limit = v >= 0 ? refusals_limit(conv_find("aot_eager-autocast"), (oracle_verdict)v, msg ? msg : "") : NULL;
  CHECK(limit && strstr(limit, "what autocast changes"), "it is the declared limit, not a bug: %s", limit ? limit : "(a bug)");
  free(msg);
out:
  ir_program_free(b);
  ir_program_free(t);
  ir_program_free(m);
}

/* y = x * w; torch.set_grad_enabled(False); z = y * 2; z.add_(1): the call leaves grad mode off */
static const char *grad_off_program =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"w\", \"shape\": [3], \"dtype\": \"float32\", "
    "\"param\": true}, {\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"requires_grad\": true}],"
    "\"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", \"w\"]}, {\"op\": \"set_grad_enabled\", \"args\": [false]},"
    "{\"out\": \"z\", \"op\": \"mul\", \"args\": [\"y\", 2]}, {\"op\": \"add_\", \"args\": [\"z\", 1]}],"
    "\"outputs\": [\"y\", \"z\"], \"train\": true, \"loss\": [2, 3]}";

/* A program's torch.set_grad_enabled(False) outlives the call (issue 33): aot_eager's worker says the
 * grad mode the compiled call left (off: AOTAutograd replays the change after its graph), the oracle
 * compares it with eager's and the program passes; the worker puts its own grad mode back, so the
 * next training program (gradients through the backward) passes too. */
TEST(aot_eager_reports_the_grad_mode_a_call_leaves_and_serves_the_next_program_in_grad_mode) {
  ir_program *g = read_program(grad_off_program, "grad_off"), *t = read_program(train_program, "train");
  const conv_converter *c = conv_find("aot_eager");
  if (!g || !t || !c) goto out;
  result eager, conv;
  af_err err;
  result_init(&eager);
  result_init(&conv);
  if (eager_run(g, &eager, &err) == 0 && conv_execute(c, g, &conv, &err) == 0) {
    char *detail = NULL;
    oracle_verdict v = oracle_judge(g, &eager, &conv, NULL, &detail);
    CHECK(v == V_PASS && eager.grad_after == 0 && conv.grad_after == 0, "aot_eager: %s (%s); grad mode after: eager %d, aot_eager %d",
          oracle_verdict_name(v), conv.message ? conv.message : detail ? detail : "", eager.grad_after, conv.grad_after);
    free(detail);
  } else {
    CHECK(0, "aot_eager runs the grad-off program: %s", err.msg);
  }
  result_clear(&eager);
  result_clear(&conv);
  char *msg = NULL;
  int v = verdict_of("aot_eager", t, &msg);
  CHECK(v == V_PASS, "aot_eager: the next training program passes: %s (%s)", v >= 0 ? oracle_verdict_name(v) : "-", msg ? msg : "");
  free(msg);
out:
  ir_program_free(g);
  ir_program_free(t);
}

int main(int argc, char **argv) {
  at_init();
  if (argc > 1 && strcmp(argv[1], "attributes") == 0) {
    RUN(export_sees_a_plain_attribute_as_a_constant_and_every_worker_gives_a_verdict);
    return tap_done();
  }
  if (argc > 1 && strcmp(argv[1], "buffers") == 0) {
    RUN(export_is_judged_on_a_module_buffer_written_in_place);
    RUN(aot_eager_is_judged_on_a_module_buffer_written_in_place);
    RUN(openvino_is_judged_on_a_module_buffer_written_in_place);
    return tap_done();
  }
  if (argc > 1 && strcmp(argv[1], "layouts") == 0) {
    RUN(export_builds_input_layouts_as_eager_does);
    RUN(aot_eager_builds_input_layouts_as_eager_does);
    RUN(aot_eager_called_again_on_aliased_inputs_is_judged_on_the_second_call);
    RUN(aot_eager_called_again_on_a_transposed_input_passes_both_calls);
    return tap_done();
  }
  if (argc > 1 && strcmp(argv[1], "variants") == 0) {
    RUN(aot_eager_dynamic_compiles_with_symbolic_sizes_and_passes_what_aot_eager_passes);
    RUN(aot_eager_subclass_runs_on_two_tensor_inputs_and_a_subclass_failure_is_a_limit);
    RUN(aot_eager_debug_runs_with_debug_assert_on_and_passes_what_aot_eager_passes);
    RUN(aot_eager_unbacked_keeps_a_mask_write_in_one_graph_and_passes_what_aot_eager_passes);
    RUN(aot_eager_autocast_calls_under_autocast_and_what_autocast_changes_is_a_limit);
    RUN(aot_eager_reports_the_grad_mode_a_call_leaves_and_serves_the_next_program_in_grad_mode);
    return tap_done();
  }
  fprintf(stderr, "usage: test_workers2x buffers | layouts | attributes | variants\n");
  return 2;
}
