/* test_float64.c - the dtype trigger (fuzz/float64.h): a class whose failure needs float64 keys on
 * the dtype, not on its write pattern.
 *
 *   retyped   every float64 tensor of a program made float32: inputs, module state, hidden bases,
 *             dtype arguments; the program itself unchanged
 *   planted   tests/workers/float64_planted.py loses every write into a float64 input and refuses
 *             a float64 output (IREE's demotion, iree-org/iree#24180, in miniature) and, with
 *             --zero-lost, drops every zero_ of any dtype: two float64 programs with different
 *             write patterns (`add_@in`, `view mul_@view-of-in`) and a write-free one refused
 *             (keyed on its error) are one class keyed "needs float64" with the trigger line, the
 *             zero_ program keeps its pattern; a known case of a float64 write on that converter
 *             marks the dtype class known and not the zero_ one */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../fuzz/annotate.h"
#include "../fuzz/classes.h"
#include "../fuzz/float64.h"
#include "../fuzz/judge.h"
#include "../fuzz/known.h"
#include "../harness/codec.h"
#include "../harness/converters/conv_worker.h"
#include "../harness/ops/ops.h"
#include "../harness/torch/shim.h"
#include "tap.h"

static ir_program *parse(const char *json) {
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(json, "test", &p, &err)) fprintf(stderr, "parse: %s\n", err.msg);
  return p;
}

TEST(retyped) {
  ir_program *p = parse("{\"format\": \"aliasfuzz-program/1\", \"inputs\": ["
                        "{\"name\": \"x\", \"shape\": [4], \"dtype\": \"float64\"},"
                        "{\"name\": \"y\", \"shape\": [2], \"dtype\": \"float32\"},"
                        "{\"name\": \"w\", \"shape\": [2], \"dtype\": \"float64\", \"buffer\": true}],"
                        "\"body\": [{\"out\": \"v\", \"op\": \"to\", \"args\": [\"y\", {\"dtype\": \"float64\"}]},"
                        "{\"op\": \"add_\", \"args\": [\"x\", 1]}], \"outputs\": [\"v\"]}");
  CHECK(p != NULL, "the program parses");
  if (!p) return;
  CHECK(f64_has(p, AF_FLOAT64) && f64_has(p, AF_FLOAT32) && !f64_has(p, AF_INT64), "float64 and float32 there, int64 not");
  ir_program *q = f64_retyped(p, AF_FLOAT64, AF_FLOAT32);
  CHECK(!f64_has(q, AF_FLOAT64), "no float64 left");
  CHECK(q->inputs[0].dtype == AF_FLOAT32 && q->inputs[2].dtype == AF_FLOAT32 && q->inputs[2].buffer, "the input and the module state");
  CHECK(q->stmts[0].args[1].kind == IR_ARG_DTYPE && q->stmts[0].args[1].i == AF_FLOAT32, "the dtype argument of to()");
  CHECK(p->inputs[0].dtype == AF_FLOAT64 && p->stmts[0].args[1].i == AF_FLOAT64, "p itself unchanged");
  ir_program_free(q);
  ir_program_free(p);
  /* a hidden base and the inputs that view it change together (a layout has its storage's dtype) */
  p = parse("{\"format\": \"aliasfuzz-program/1\", \"bases\": [{\"name\": \"buf\", \"size\": 6, \"dtype\": \"float64\"}],"
            "\"inputs\": [{\"name\": \"a\", \"shape\": [3], \"dtype\": \"float64\", \"view_of\": \"buf\", \"strides\": [1], \"offset\": 0},"
            "{\"name\": \"b\", \"shape\": [3], \"dtype\": \"float64\", \"view_of\": \"buf\", \"strides\": [1], \"offset\": 3}],"
            "\"body\": [{\"op\": \"mul_\", \"args\": [\"a\", 2]}], \"outputs\": [\"b\"]}");
  CHECK(p && p->nbases == 1, "a program with a hidden base parses");
  if (!p) return;
  q = f64_retyped(p, AF_FLOAT64, AF_FLOAT32);
  af_err err;
  CHECK(q->bases[0].dtype == AF_FLOAT32 && q->inputs[1].dtype == AF_FLOAT32, "the base and its views");
  CHECK(ir_validate(q, &err) == 0, "and it validates: %s", err.msg);
  ir_program_free(q);
  ir_program_free(p);
}



static const char *str_of(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }
static int eq(const char *a, const char *b) { return a && b && !strcmp(a, b); }

#define HEAD "{\"format\": \"aliasfuzz-program/1\", \"inputs\": ["
/* the float64 programs return a float32 tensor (a float64 output is the planted error) */
static const char *ADD = HEAD "{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float64\"},"
                              "{\"name\": \"y\", \"shape\": [3], \"dtype\": \"float32\"}],"
                              "\"body\": [{\"op\": \"add_\", \"args\": [\"x\", 1.5]},"
                              "{\"out\": \"w\", \"op\": \"add\", \"args\": [\"y\", 1]}], \"outputs\": [\"w\"]}";
static const char *VIEW_MUL = HEAD "{\"name\": \"x\", \"shape\": [2, 3], \"dtype\": \"float64\"},"
                                   "{\"name\": \"y\", \"shape\": [3], \"dtype\": \"float32\"}],"
                                   "\"body\": [{\"out\": \"v\", \"op\": \"view\", \"args\": [\"x\", [6]]},"
                                   "{\"op\": \"mul_\", \"args\": [\"v\", 2]},"
                                   "{\"out\": \"w\", \"op\": \"mul\", \"args\": [\"y\", 2]}], \"outputs\": [\"w\"]}";
static const char *ZERO = HEAD "{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float64\"},"
                               "{\"name\": \"y\", \"shape\": [3], \"dtype\": \"float32\"}],"
                               "\"body\": [{\"op\": \"zero_\", \"args\": [\"x\"]},"
                               "{\"out\": \"w\", \"op\": \"sub\", \"args\": [\"y\", 1]}], \"outputs\": [\"w\"]}";
/* no write: a float64 output the planted converter refuses (a converter error keyed on itself) */
static const char *ABS = HEAD "{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float64\"}],"
                              "\"body\": [{\"out\": \"v\", \"op\": \"abs\", \"args\": [\"x\"]}], \"outputs\": [\"v\"]}";

TEST(planted) {
  char *dir = tap_tmpdir("af_float64");
  CHECK(dir != NULL, "a folder");
  if (!dir) return;
  char conv[2048], kdir[4200];
  snprintf(conv, sizeof conv, "external:%s %s/tests/workers/float64_planted.py --zero-lost", at_stack_python(), AF_SOURCE_DIR);
  const conv_converter *c = conv_find(conv);
  const char *why = NULL;
  CHECK(c && c->available(c, &why), "the planted worker starts: %s", why ? why : "");
  if (!c) return;
  tap_write_finding(dir, "f-add", ADD);
  tap_write_finding(dir, "f-view-mul", VIEW_MUL);
  tap_write_finding(dir, "f-zero", ZERO);
  tap_write_finding(dir, "f-abs", ABS);
  /* the planted error's detail as the converter words it (the class keys on its error key) */
  ir_program *abs = parse(ABS);
  judgement j = {0};
  af_err err;
  CHECK(abs && known_judge(c, abs, 30, 0, &j, &err) == 0 && j.verdict == V_ERROR, "the float64 output is refused: %s",
        j.detail ? j.detail : err.msg);
  /* the classes a campaign would have made of them: three write patterns, none holding another */
  static const struct {
    const char *finding, *pattern;
    oracle_verdict v;
    int statements;
  } ms[] = {{"f-add", "add_@in", V_INPUT_MUTATION_LOST, 1},
            {"f-view-mul", "view mul_@view-of-in", V_INPUT_MUTATION_LOST, 3},
            {"f-zero", "zero_@in", V_INPUT_MUTATION_LOST, 1},
            {"f-abs", "abs", V_ERROR, 1}};
  cJSON *idx = classes_index_new();
  for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
    classes_member m = {.converter = c->name, .verdict = ms[k].v, .detail = ms[k].v == V_ERROR ? j.detail : "input x: element 0 is 1, eager 2",
                        .pattern = ms[k].pattern,
                        .finding = ms[k].finding, .statements = ms[k].statements, .reruns = 3, .reproduced = 3, .iteration = (int64_t)k};
    int is_new = 0;
    classes_index_add(idx, &m, &is_new);
    CHECK(is_new, "%s founds a class of its own", ms[k].pattern);
  }
  CHECK(classes_index_count(idx) == 4, "4 classes before");
  const cJSON *e0 = tap_class_with_finding(idx, "f-abs");
  CHECK(e0 && str_of(e0, "error_key"), "the refusal keys on its error");
  annotate_opts o = {.dir = dir, .c = c, .no_triggers = 1, .deadline_s = 30};
  annotate_float64(idx, &o);
  const cJSON *a = tap_class_with_finding(idx, "f-add"), *b = tap_class_with_finding(idx, "f-view-mul"), *z = tap_class_with_finding(idx, "f-zero"),
              *e = tap_class_with_finding(idx, "f-abs");
  CHECK(classes_index_count(idx) == 2, "2 classes after: the float64 writes and the float64 refusal are one (%d)", classes_index_count(idx));
  CHECK(a && a == b && a == e, "add_@in, view mul_@view-of-in and the refusal in one class");
  CHECK(a && !str_of(a, "error_key") && cJSON_GetArraySize(cJSON_GetObjectItem(a, "errors")) == 1, "the refusal's error listed under errors");
  const char *key = str_of(a, "key");
  CHECK(key && strstr(key, "|wrong-result|" F64_KEY), "keyed on the dtype: %s", key ? key : "(none)");
  CHECK(eq(str_of(a, "trigger"), F64_TRIGGER), "its trigger line: %s", str_of(a, "trigger") ? str_of(a, "trigger") : "(none)");
  CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(a, "patterns")) == 3, "the three patterns listed");
  CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(a, "absorbed")) == 2, "the other classes' ids under absorbed");
  const cJSON *row = cJSON_GetObjectItem(a, "float64");
  CHECK(cJSON_IsTrue(cJSON_GetObjectItem(row, "needs")) && eq(str_of(row, "as_float32"), "pass") &&
            eq(str_of(row, "float32_as_float64"), "same"),
        "the reruns recorded");
  CHECK(z && z != a && str_of(z, "key") && strstr(str_of(z, "key"), "|wrong-result|zero_@in"), "zero_ (any dtype) keeps its pattern: %s",
        z ? str_of(z, "key") : "(none)");
  CHECK(z && !str_of(z, "trigger") && eq(str_of(cJSON_GetObjectItem(z, "float64"), "as_float32"), "same"),
        "and fails with float64 made float32 too");

  /* a known case of a float64 write on this converter marks the dtype class, not the zero_ one */
  snprintf(kdir, sizeof kdir, "%s/known", dir);
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", kdir);
  CHECK(system(cmd) == 0, "%s", cmd);
  cJSON *expect = cJSON_CreateObject(), *st = cJSON_AddObjectToObject(expect, at_stack());
  cJSON_AddStringToObject(st, c->name, "input-mutation-lost");
  char *ex = cJSON_PrintUnformatted(expect);
  char path[4400];
  snprintf(path, sizeof path, "%s/t-1-float64-multiply.json", kdir);
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f,
            HEAD "{\"name\": \"y\", \"shape\": [2], \"dtype\": \"float64\"}, {\"name\": \"z\", \"shape\": [2], \"dtype\": \"float32\"}],"
                 "\"body\": [{\"op\": \"multiply_\", \"args\": [\"y\", \"y\"]}, {\"out\": \"w\", \"op\": \"neg\", \"args\": [\"z\"]}],"
                 "\"outputs\": [\"w\"], \"meta\": {\"id\": \"ku-t-1-float64-multiply\", \"known\": {\"tracker\": \"test/t#1\", "
                 "\"state\": \"open\", \"mechanism\": \"float64 writes lost\", \"expect\": %s}}}",
            ex);
    fclose(f);
  }
  free(ex);
  cJSON_Delete(expect);
  setenv("AF_KNOWN_DIR", kdir, 1);
  CHECK(known_annotate(idx, c, dir, 30, &err) == 0, "known_annotate: %s", err.msg);
  CHECK(eq(str_of(a, "known"), "test/t#1"), "the dtype class is known: %s",
        str_of(a, "known") ? str_of(a, "known") : "(not marked)");
  CHECK(z && !str_of(z, "known"), "the zero_ class is not");
  unsetenv("AF_KNOWN_DIR");
  cJSON_Delete(idx);
  judgement_clear(&j);
  ir_program_free(abs);
  conv_worker_shutdown_all();
  tap_rmrf(dir);
  free(dir);
}

int main(void) {
  RUN(retyped);
  RUN(planted);
  return tap_done();
}
