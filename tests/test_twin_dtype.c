/* test_twin_dtype.c - the twin-dtype rule (fuzz/classes.h classes_twin_dtype, annotate.h): an
 * in-place op converted as its out-of-place twin is one class, whatever its write pattern.
 *
 *   placement_after_a_rebind  a write after `x = x * 1` lands in that fresh tensor (`@tmp`), not
 *          in the input x named before (classes.c walk_from)
 *   rule   the rule on programs and details: `v.ge_(0)` of a float32 v with "dtype bool, eager
 *          float32" is it, and says which statement; `x.logical_and_(y)` of int64 with "dtype bool,
 *          eager int64" too; the same programs with another dtype in the detail, a program whose
 *          in-place ops keep their twin's dtype (add_), a detail of values and a twin that needs
 *          another dtype (bool for an int64 x where the detail says float32) are not
 *   jit    the real jit converter (TorchScript's RemoveTensorMutation rewrites an in-place
 *          comparison as its functional form, which returns bool): three programs whose write
 *          patterns neither hold one another (`greater_equal_@tmp`, `logical_and_@tmp`,
 *          `less_equal_@tmp`) fail on it with a dtype; as a campaign would class them they are
 *          three classes, after annotate_twin_dtype one, keyed on the rule, with the three patterns
 *          listed and the two others' ids under absorbed; a jit class of another bug (`%=` compiled
 *          to fmod, corpus/known-gaps bug-007: wrong values, no dtype) keeps its key */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../fuzz/annotate.h"
#include "../fuzz/classes.h"
#include "../fuzz/judge.h"
#include "../fuzz/known.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "tap.h"

static ir_program *parse(const char *json) {
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(json, "test", &p, &err)) fprintf(stderr, "parse: %s\n", err.msg);
  return p;
}

static const char *str_of(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }

#define HEAD "{\"format\": \"aliasfuzz-program/1\", \"inputs\": ["
/* v0 = torch.stack([x, x], 0); v0.greater_equal_(0); return v0 (x float32) */
static const char GE_TMP[] = HEAD "{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}],"
                                 "\"body\": [{\"out\": \"l\", \"op\": \"list\", \"args\": [[\"x\", \"x\"]]},"
                                 "{\"out\": \"v0\", \"op\": \"stack_list\", \"args\": [\"l\", 0]},"
                                 "{\"op\": \"greater_equal_\", \"args\": [\"v0\", 0]}], \"outputs\": [\"v0\"]}";
/* v = x.sub(1); v.logical_and_(y); return v (int64; RemoveTensorMutation rewrites writes into
 * tensors the function made, not into its inputs) */
static const char AND_TMP[] = HEAD "{\"name\": \"x\", \"shape\": [3], \"dtype\": \"int64\", \"data\": [0, 2, -1]},"
                                   "{\"name\": \"y\", \"shape\": [3], \"dtype\": \"int64\", \"data\": [1, 1, 0]}],"
                                   "\"body\": [{\"out\": \"v\", \"op\": \"sub\", \"args\": [\"x\", 1]},"
                                   "{\"op\": \"logical_and_\", \"args\": [\"v\", \"y\"]}], \"outputs\": [\"v\"]}";
/* x = x * 1; x.less_equal_(0.5); return x (float32): the name x rebound to a fresh tensor, so the
 * write lands there (`@tmp`), not in the input */
static const char LE_REBOUND[] = HEAD "{\"name\": \"x\", \"shape\": [2, 2], \"dtype\": \"float32\"}],"
                                      "\"body\": [{\"out\": \"x\", \"op\": \"mul\", \"args\": [\"x\", 1]},"
                                      "{\"op\": \"less_equal_\", \"args\": [\"x\", 0.5]}], \"outputs\": [\"x\"]}";
/* x.add_(1); return x: add's result keeps x's dtype */
static const char ADD_IN[] = HEAD "{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}],"
                                 "\"body\": [{\"op\": \"add_\", \"args\": [\"x\", 1]}], \"outputs\": [\"x\"]}";
/* x[0:2] %= 2.0 of float64 x: TorchScript compiles `%=` to fmod_ (corpus/known-gaps bug-007) */
static const char MOD_IN[] = HEAD "{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float64\", \"data\": [-3, 4, 5]}],"
                                 "\"body\": [{\"op\": \"setitem_mod\", \"args\": [\"x\", [{\"slice\": [0, 2, 1]}], 2.0]}], \"outputs\": []}";

TEST(placement_after_a_rebind) {
  /* the input's name rebound (`x = x * 1`) before the write: the write lands in a fresh tensor */
  ir_program *p = parse(LE_REBOUND), *q = parse(ADD_IN);
  char *pp = p ? classes_plain_pattern(p) : NULL, *pq = q ? classes_plain_pattern(q) : NULL;
  CHECK(pp && strstr(pp, "less_equal_@tmp") && !strstr(pp, "@in"), "x = x * 1; x.less_equal_(0.5): %s", pp ? pp : "(none)");
  CHECK(pq && strstr(pq, "add_@in"), "x.add_(1) of the input itself: %s", pq ? pq : "(none)");
  free(pp);
  free(pq);
  ir_program_free(p);
  ir_program_free(q);
}

TEST(rule) {
  static const struct {
    const char *prog, *detail;
    int want;
    const char *why;
  } cs[] = {
      {GE_TMP, "output 0 (v0): dtype bool, eager float32", 1, "v0.greater_equal_(...) as ge: bool for float32"},
      {AND_TMP, "output 0 (v): dtype bool, eager int64", 1, "v.logical_and_(...) as logical_and: bool for int64"},
      {LE_REBOUND, "output 0 (x): dtype bool, eager float32", 1, "x.less_equal_(...) as le: bool for float32"},
      {GE_TMP, "output 0 (v0): dtype float64, eager float32", 0, NULL}, /* not what ge returns */
      {AND_TMP, "output 0 (v): dtype bool, eager float32", 0, NULL},    /* v is int64, not float32 */
      {ADD_IN, "output 0 (x): dtype bool, eager float32", 0, NULL},     /* add keeps x's dtype */
      {ADD_IN, "output 0 (x): dtype float64, eager float32", 0, NULL},
      {GE_TMP, "output 0 (v0): element 1 is 0, eager 1", -1, NULL},    /* values: no dtype to explain */
      {GE_TMP, "", -1, NULL},
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    ir_program *p = parse(cs[i].prog);
    CHECK(p != NULL, "case %zu parses", i);
    if (!p) continue;
    af_buf why = {0};
    int r = classes_twin_dtype(p, cs[i].detail, &why);
    CHECK(r == cs[i].want, "case %zu (%s): %d, want %d", i, cs[i].detail, r, cs[i].want);
    if (cs[i].why) CHECK(why.s && !strcmp(why.s, cs[i].why), "case %zu says %s (%s)", i, cs[i].why, why.s ? why.s : "(nothing)");
    else CHECK(!why.s, "case %zu says nothing (%s)", i, why.s);
    af_buf_free(&why);
    ir_program_free(p);
  }
}



TEST(jit) {
  const conv_converter *c = conv_find("jit");
  const char *why = NULL;
  if (!c || !c->available(c, &why)) {
    printf("# SKIP jit is not available here: %s\n", why ? why : "not built");
    return;
  }
  char *dir = tap_tmpdir("af_twin_dtype");
  CHECK(dir != NULL, "a folder");
  if (!dir) return;
  static const struct {
    const char *id, *prog, *pattern;
    int statements;
  } ms[] = {{"f-ge", GE_TMP, "greater_equal_@tmp", 3},
            {"f-and", AND_TMP, "logical_and_@tmp", 2},
            {"f-le", LE_REBOUND, "less_equal_@tmp", 2},
            {"f-mod", MOD_IN, "setitem_mod@in", 1}};
  cJSON *idx = classes_index_new();
  for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
    ir_program *p = parse(ms[k].prog);
    judgement j = {0};
    af_err err;
    int ran = p && known_judge(c, p, 60, 0, &j, &err) == 0;
    CHECK(ran && j.verdict != V_PASS && j.verdict != V_INVALID_PROGRAM, "%s fails on jit: %s %s", ms[k].pattern,
          ran ? oracle_verdict_name(j.verdict) : "not judged", ran ? (j.detail ? j.detail : "") : err.msg);
    int dtype = ran && j.detail && strstr(j.detail, ": dtype bool, eager ");
    CHECK(k == 3 ? !dtype : dtype, "%s %s a dtype (%s)", ms[k].pattern, k == 3 ? "without" : "with", j.detail ? j.detail : "");
    if (ran && j.verdict != V_PASS) {
      tap_write_finding(dir, ms[k].id, ms[k].prog);
      classes_member m = {.converter = c->name, .verdict = j.verdict, .detail = j.detail, .pattern = ms[k].pattern,
                          .finding = ms[k].id, .statements = ms[k].statements, .reruns = 3, .reproduced = 3, .iteration = (int64_t)k};
      int is_new = 0;
      classes_index_add(idx, &m, &is_new);
      CHECK(is_new, "%s founds a class of its own", ms[k].pattern);
    }
    judgement_clear(&j);
    ir_program_free(p);
  }
  CHECK(classes_index_count(idx) == 4, "4 classes before (%d)", classes_index_count(idx));
  annotate_opts o = {.dir = dir, .c = c, .no_triggers = 1, .deadline_s = 60};
  annotate_twin_dtype(idx, &o);
  CHECK(classes_index_count(idx) == 2, "2 classes after: the three comparisons are one (%d)", classes_index_count(idx));
  const cJSON *ge = tap_class_with_finding(idx, "f-ge"), *an = tap_class_with_finding(idx, "f-and"), *le = tap_class_with_finding(idx, "f-le"),
              *mod = tap_class_with_finding(idx, "f-mod");
  CHECK(ge && ge == an && ge == le, "greater_equal_@tmp, logical_and_@tmp and less_equal_@tmp in one class");
  const char *key = str_of(ge, "key");
  CHECK(key && strstr(key, "jit|wrong-result|" CLASSES_TWIN_DTYPE_KEY), "keyed on the rule: %s", key ? key : "(none)");
  CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(ge, "patterns")) == 3, "the three patterns listed");
  CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(ge, "absorbed")) == 2, "the other two classes' ids under absorbed");
  const cJSON *row = cJSON_GetObjectItem(ge, "twin_dtype");
  CHECK(cJSON_IsTrue(cJSON_GetObjectItem(row, "twin")) && str_of(row, "statement"), "the check recorded: %s",
        str_of(row, "statement") ? str_of(row, "statement") : "(none)");
  CHECK(mod && mod != ge && str_of(mod, "key") && strstr(str_of(mod, "key"), "|wrong-result|setitem_mod@in"),
        "the fmod class keeps its pattern: %s", mod ? str_of(mod, "key") : "(none)");
  /* checked once per smallest program: a second pass changes nothing */
  annotate_twin_dtype(idx, &o);
  CHECK(classes_index_count(idx) == 2, "a second pass keeps 2 classes");
  cJSON_Delete(idx);
  tap_rmrf(dir);
  free(dir);
}

int main(void) {
  RUN(placement_after_a_rebind);
  RUN(rule);
  RUN(jit);
  return tap_done();
}
