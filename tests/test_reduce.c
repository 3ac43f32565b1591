/* test_reduce.c - the minimizer, subsets of programs, signatures and the findings store. */
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fuzz/classes.h"
#include "../fuzz/crashsite.h"
#include "../fuzz/findings.h"
#include "../fuzz/judge.h"
#include "../fuzz/reduce.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "../harness/result.h"
#include "../oracle/signature.h"
#include "../reports/report.h"
#include "tap.h"

static ir_program *load(const char *path) {
  ir_program *p = NULL;
  af_err err;
  if (codec_read_file(path, &p, &err)) CHECK(0, "%s", err.msg);
  return p;
}

TEST(subset_drops_dependents_of_a_removed_statement) {
  ir_program *p = load("corpus/seed/design-002-view-of-view-write.json");
  if (!p) return;
  char keep[3] = {0, 1, 1}; /* drop y = x[:2]: the setitem on y goes too, r = 2 * x stays */
  ir_program *q = ir_subset(p, keep, NULL, NULL);
  af_err err;
  CHECK(ir_validate(q, &err) == 0, "%s", err.msg);
  CHECK(q->nstmts == 1 && q->noutputs == 1, "%d statements, %d outputs", q->nstmts, q->noutputs);
  ir_program_free(q);
  ir_program_free(p);
}

typedef struct {
  const conv_converter *c;
  oracle_verdict v;
  const char *detail;
} ctx;

static int same(const ir_program *cand, void *vc) {
  ctx *x = vc;
  judgement j;
  af_err err;
  if (judge_inprocess(x->c, cand, NULL, &j, &err)) return 0;
  int r = judge_same_bug(&j, x->v, x->detail);
  judgement_clear(&j);
  return r;
}

/* A 12-statement program whose last statement is a view eager rejects. */
static ir_program *invalid_program(void) {
  ir_program *p = load("corpus/seed/op-functional-mix.json");
  if (!p) return NULL;
  int c = ir_find_value(p, "c");
  int64_t sh[1] = {7};
  ir_arg a[2] = {{.kind = IR_ARG_VALUE, .value = c}, {.kind = IR_ARG_INTS, .n = 1, .ints = sh}};
  int out = ir_add_value(p, "bad");
  ir_add_stmt(p, ops_find("view"), out, 2, a);
  return p;
}

TEST(an_invalid_program_reduces_to_the_statement_that_fails_and_what_it_needs) {
  ir_program *p = invalid_program();
  if (!p) return;
  judgement j;
  af_err err;
  CHECK(judge_inprocess(&conv_script, p, NULL, &j, &err) == 0 && j.verdict == V_INVALID_PROGRAM, "verdict %d", j.verdict);
  ctx x = {&conv_script, j.verdict, j.detail};
  ir_program *min;
  reduce_stats st;
  reduce_program(p, same, &x, 500, &min, &st);
  CHECK(min->nstmts <= 2, "%d statements left", min->nstmts);
  CHECK(st.stmts_before == 12 && st.stmts_after == min->nstmts && st.tests > 0, "stats %d %d %d", st.stmts_before,
        st.stmts_after, st.tests);
  CHECK(same(min, &x), "the reduced program still fails the same way");
  CHECK(strcmp(min->names[0], "x") == 0, "canonical names: %s", min->names[0]);
  judgement_clear(&j);
  ir_program_free(min);
  ir_program_free(p);
}

/* Reduces the program of JSON text t against naive's verdict on it, which must be want: the
 * minimized program (new), or NULL after a failed check. */
static ir_program *reduce_through_naive(const char *t, oracle_verdict want) {
  ir_program *p = NULL, *min = NULL;
  af_err err;
  CHECK(codec_read_string(t, "t", &p, &err) == 0, "%s", err.msg);
  if (!p) return NULL;
  ctx x = {conv_find("naive"), V_PASS, NULL};
  judgement j;
  int ok = judge_inprocess(x.c, p, NULL, &j, &err) == 0;
  CHECK(ok && j.verdict == want, "verdict %d, expected %d", ok ? (int)j.verdict : -1, (int)want);
  if (ok && j.verdict == want) {
    x.v = j.verdict;
    x.detail = j.detail;
    reduce_stats st;
    reduce_program(p, same, &x, 500, &min, &st);
    CHECK(same(min, &x), "the reduced program still fails the same way");
  }
  if (ok) judgement_clear(&j);
  ir_program_free(p);
  return min;
}

/* A bug inside a branch and a loop: the reducer replaces the blocks by their bodies (unwrap-block),
 * since a shape bug of naive on unsqueeze_ needs neither the if nor the loop. */
TEST(a_bug_inside_blocks_reduces_to_straight_line) {
  const char *t =
      "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}, "
      "{\"name\": \"y\", \"shape\": [3], \"dtype\": \"float32\"}], \"body\": ["
      "{\"out\": \"s\", \"op\": \"sum\", \"args\": [\"y\"]}, {\"out\": \"c\", \"op\": \"gt\", \"args\": [\"s\", -100]},"
      "{\"op\": \"if\", \"args\": [\"c\"], \"then\": [{\"out\": \"i\", \"op\": \"for\", \"args\": [2], \"body\": ["
      "{\"op\": \"setitem_add\", \"args\": [\"y\", [\"i\"], 1]}]}, {\"op\": \"unsqueeze_\", \"args\": [\"x\", 0]}],"
      " \"else\": [{\"op\": \"zero_\", \"args\": [\"y\"]}]}, {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", 2]}],"
      " \"outputs\": [\"r\", \"y\"]}";
  ir_program *min = reduce_through_naive(t, V_SHAPE_MISMATCH);
  if (!min) return;
  int blocks = 0;
  for (int s = 0; s < min->nstmts; s++) blocks += ops_get(min->stmts[s].op)->kind == OPS_CTRL;
  CHECK(blocks == 0 && min->nstmts <= 2, "%d statements, %d of them block markers", min->nstmts, blocks);
  ir_program_free(min);
}

TEST(error_classes_ignore_numbers_and_quoted_names) {
  char *a = sig_error_class("shape '[7]' is invalid for input of size 12");
  char *b = sig_error_class("shape '[9, 2]' is invalid for input of size 4\nmore");
  CHECK(strcmp(a, b) == 0, "'%s' vs '%s'", a, b);
  free(a);
  free(b);
}

TEST(error_keys_normalize_names_numbers_and_shapes_and_are_never_cut_by_length) {
  /* node names of different lengths, past the 160th character: one key (a length cut made two) */
  char *a = sig_error_class("RuntimeError: The following operation failed in the TorchScript interpreter at a point well past the first one "
                            "hundred and sixty characters of the message: %v12.3 = aten::add(%x, %input_name_long.1) "
                            "size mismatch [5, 5] vs [5, 1] at dim -1 (got 2.5e-3)");
  char *b = sig_error_class("RuntimeError: The following operation failed in the TorchScript interpreter at a point well past the first one "
                            "hundred and sixty characters of the message: %v1 = aten::add(%y, %z) "
                            "size mismatch [7] vs [1, 1, 1] at dim 0 (got 7)");
  CHECK(strcmp(a, b) == 0, "'%s' vs '%s'", a, b);
  CHECK(strstr(a, "RuntimeError: ") == a, "the key keeps the error's type: '%s'", a);
  /* but a different cause past the cut is another key */
  char *c = sig_error_class("RuntimeError: The following operation failed in the TorchScript interpreter at a point well past the first one "
                            "hundred and sixty characters of the message: %v1 = aten::mul(%y, %z) "
                            "dtype mismatch [7] vs [1, 1, 1] at dim 0 (got 7)");
  CHECK(strcmp(a, c) != 0, "different messages after 160 characters give different keys: '%s'", c);
  free(a);
  free(b);
  free(c);
}

/* The shim cuts a message at 900 characters plus "..."; a longer traceback before the key line
 * moves the cut, as in a 1.13 functionalize campaign where one abs_ error had 60 quick keys. */
TEST(error_keys_of_one_message_cut_at_different_points_are_one_key) {
  const char *full = "RuntimeError: Could not run 'aten::abs.out' with arguments from the 'Meta' backend. This could be because the "
                     "operator doesn't exist for this backend. 'aten::abs.out' is only available for these backends: [CPU, SparseCPU, "
                     "SparseCsrCPU, BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Named, Conjugate].";
  char m1[1200], m2[1200];
  snprintf(m1, sizeof m1, "Traceback of TorchScript:\n  v0.abs_()\n%.*s...", 230, full);
  snprintf(m2, sizeof m2, "Traceback of TorchScript:\n  v1 = x2[1:2:3]\n  v0.abs_()\n%.*s...", 270, full);
  char *a = sig_error_class(m1), *b = sig_error_class(m2), *c = sig_error_class(full);
  CHECK(strcmp(a, b) == 0, "'%s' vs '%s'", a, b);
  CHECK(strstr(a, "RuntimeError: Could not run") == a && strstr(a, "backend. …"), "the first sentence, marked as cut: '%s'", a);
  CHECK(strcmp(a, c) != 0 && strstr(c, "only available"), "an uncut message keeps all of it: '%s'", c);
  free(a);
  free(b);
  free(c);
}

/* Every variant of the view is "invalid" (as unfold's arguments fit few other views), every
 * variant of the write fails the same way: the write stands for its family, the view keeps its
 * name. */
static int only_unfold_is_valid(const ir_program *cand, void *unused) {
  (void)unused;
  int writes = 0;
  for (int s = 0; s < cand->nstmts; s++) writes += ops_mutates(cand->stmts[s].op);
  if (!writes) return CLASSES_PASS; /* the bug is the write's: without it the program passes */
  return cand->stmts[0].op == ops_find("unfold") ? CLASSES_SAME : CLASSES_INVALID;
}

TEST(a_view_with_no_valid_variant_keeps_its_name_in_the_class_pattern) {
  const char *t = "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [5, 5], \"dtype\": \"float32\"}],"
                  " \"body\": [{\"out\": \"v\", \"op\": \"unfold\", \"args\": [\"x\", 1, 1, 2]},"
                  " {\"op\": \"fill_\", \"args\": [\"v\", 1]}, {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", 2]}],"
                  " \"outputs\": [\"r\"]}";
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(t, "t", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  classes_gen g;
  classes_generalize(p, only_unfold_is_valid, NULL, 120, 0, &g);
  CHECK(g.pattern && !strcmp(g.pattern, "unfold write@view-of-in"), "pattern '%s'", g.pattern ? g.pattern : "(none)");
  classes_gen_clear(&g);
  ir_program_free(p);
}

/* Interesting while the program still writes into an input with add_ (what the unused inputs are
 * does not matter to it); counts the tests. */
static int still_adds_into_an_input(const ir_program *cand, void *count) {
  (*(int *)count)++;
  for (int s = 0; s < cand->nstmts; s++)
    if (cand->stmts[s].op == ops_find("add_") && cand->stmts[s].args[0].value < cand->ninputs) return 1;
  return 0;
}

TEST(unused_inputs_go_in_one_test) {
  const char *t = "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"a\", \"shape\": [2], \"dtype\": \"float32\"},"
                  " {\"name\": \"b\", \"shape\": [2], \"dtype\": \"float32\"}, {\"name\": \"c\", \"shape\": [2], \"dtype\": \"float32\"},"
                  " {\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}, {\"name\": \"d\", \"shape\": [2], \"dtype\": \"float32\"},"
                  " {\"name\": \"e\", \"shape\": [2], \"dtype\": \"float32\"}, {\"name\": \"f\", \"shape\": [2], \"dtype\": \"float32\"}],"
                  " \"body\": [{\"op\": \"add_\", \"args\": [\"x\", 1]}], \"outputs\": []}";
  ir_program *p = NULL, *min = NULL;
  af_err err;
  CHECK(codec_read_string(t, "t", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  int tests = 0;
  reduce_stats st;
  reduce_program(p, still_adds_into_an_input, &tests, 500, &min, &st);
  CHECK(min && min->ninputs == 1, "the six unused inputs went (%d inputs left)", min ? min->ninputs : -1);
  /* one test drops all six (7 tests in all, with the other passes' tries); one input at a time
     took 20 */
  CHECK(tests <= 10, "%d tests", tests);
  if (min != p) ir_program_free(min);
  ir_program_free(p);
}

/* Issue 33: a finding that the inference form shows too loses its training; a gradient finding
 * keeps it, with only the inputs that need requires_grad. */
static int adds_in_place(const ir_program *cand, void *train) {
  int adds = 0;
  for (int s = 0; s < cand->nstmts; s++) adds |= cand->stmts[s].op == ops_find("add_");
  return adds && (!*(int *)train || (cand->train && ir_ngrads(cand) >= 1));
}

TEST(a_training_program_reduces_untrained_unless_the_bug_needs_gradients) {
  const char *t = "{\"format\": \"aliasfuzz-program/1\", \"train\": true, \"inputs\": [{\"name\": \"a\", \"shape\": [2], "
                  "\"dtype\": \"float32\", \"requires_grad\": true}, {\"name\": \"b\", \"shape\": [2], \"dtype\": \"float32\", "
                  "\"requires_grad\": true}], \"body\": [{\"out\": \"t\", \"op\": \"mul\", \"args\": [\"a\", 2]}, "
                  "{\"op\": \"add_\", \"args\": [\"t\", \"b\"]}], \"outputs\": [\"t\"]}";
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(t, "t", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  for (int train = 0; train < 2; train++) {
    ir_program *min = NULL;
    reduce_stats st;
    reduce_program(p, adds_in_place, &train, 500, &min, &st);
    if (!train)
      CHECK(min && !min->train && ir_ngrads(min) == 0, "an inference bug: untrained (train %d)", min ? min->train : -1);
    else
      CHECK(min && min->train && ir_ngrads(min) == 1, "a gradient bug: train %d, %d inputs with grad", min ? min->train : -1,
            min ? ir_ngrads(min) : -1);
    if (min != p) ir_program_free(min);
  }
  ir_program_free(p);
}

/* Adds a value-mismatch member of finding f with pattern pat (job 0, iteration it) to idx; the
 * class it went to, borrowed. */
static cJSON *add_member(cJSON *idx, const char *f, const char *pat, int64_t it, int *is_new) {
  classes_member m = {"naive", V_VALUE_MISMATCH, "output 0: element 0 is 1, eager 2", pat, f, 2, NULL, 0, 0, 1, it, 0, NULL};
  return classes_index_add(idx, &m, is_new);
}

static int findings_in(const cJSON *c) { return cJSON_GetArraySize(cJSON_GetObjectItem(c, "findings")); }

TEST(a_finding_that_matches_several_classes_joins_the_most_specific_one) {
  af_err err;
  cJSON *idx = classes_index_load("/nonexistent-af-dir", &err);
  int is_new;
  /* two classes that "narrow t fill_@view-of-in" matches: the longer pattern names one op, the
   * shorter two (the rule before took the longest) */
  cJSON *generic = add_member(idx, "f-generic", "expand write@view-of-in", 1, &is_new);
  CHECK(is_new, "the first class is new");
  cJSON *specific = add_member(idx, "f-specific", "t fill_@view-of-in", 2, &is_new);
  CHECK(is_new && specific != generic, "patterns that do not contain one another are two classes");
  cJSON *c = add_member(idx, "f-both", "expand t fill_@view-of-in", 3, &is_new);
  CHECK(!is_new, "a finding both classes' patterns are contained in makes no class of its own");
  CHECK(c == specific, "it joins the most specific class (t fill_@view-of-in), not %s",
        cJSON_GetStringValue(cJSON_GetObjectItem(c, "pattern")));
  CHECK(findings_in(generic) == 1 && findings_in(specific) == 2, "memberships %d + %d", findings_in(generic), findings_in(specific));
  int names, tokens;
  classes_specificity("view write@view-of-in", &names, &tokens);
  CHECK(names == 0 && tokens == 2, "families are not names (%d names, %d tokens)", names, tokens);
  classes_specificity("unfold fill_@view-of-in", &names, &tokens);
  CHECK(names == 2 && tokens == 2, "ops are names (%d names, %d tokens)", names, tokens);
  cJSON_Delete(idx);
}

/* The shared-storage reuse rule (judge.h): failures of a graph compiled for separate inputs and
 * reused on inputs that share a storage are one class whatever they write, and no such failure joins
 * a first call's class whose pattern holds its writes (an aot_eager-unbacked campaign put
 * `x.index_copy_(...); alias.add_(3)` into the class of a write through dropout's identity); a
 * second call recompiled for the aliased inputs, or on inputs that share nothing, is keyed as usual. */
TEST(failures_of_a_graph_reused_on_inputs_sharing_a_storage_are_one_class_apart_from_first_calls) {
  af_err err;
  cJSON *idx = classes_index_load("/nonexistent-af-dir", &err);
  int is_new;
#define ORDER2 "order 2 of 2, compiled on fresh inputs and called again (order 1, compiled on the declared layout, passed): call 2 of 2 ("
  const char *reused = ORDER2 "alias = as_strided(x2, [1], [1], 1); x2 and alias share a storage; call 1, fresh contiguous inputs, "
                              "passed): input x2: element 1 is 5, eager 0 [the converter warned: second call of the compiled program: "
                              "served by the graph(s) compiled for the first call]";
  const char *recompiled = ORDER2 "alias = as_strided(x2, [1], [1], 1); x2 and alias share a storage; call 1, fresh contiguous inputs, "
                                  "passed): input x2: element 1 is 5, eager 0 [the converter warned: second call of the compiled "
                                  "program: TorchDynamo compiled 1 new graph(s) for these inputs]";
  const char *apart = ORDER2 "x = as_strided(x_leaf, [2], [2], 0); call 1, fresh contiguous inputs, passed): input x: element 1 is 5, "
                             "eager 0 [the converter warned: second call of the compiled program: served by the graph(s) compiled "
                             "for the first call]";
  CHECK(judge_reused_on_shared(reused) && !judge_reused_on_shared(recompiled) && !judge_reused_on_shared(apart) &&
            !judge_reused_on_shared("input x: element 0 is -5, eager 1"),
        "the rule reads the order, the shared storage and the converter's own word on the reuse");
  classes_member first = {"aot_eager", V_VALUE_MISMATCH, "input x: element 0 is -5, eager 1", "write@in dropout write@in",
                          "f-dropout", 3, NULL, 0, 0, 1, 1, 0, NULL};
  cJSON *c1 = classes_index_add(idx, &first, &is_new);
  classes_member r1 = {"aot_eager", V_VALUE_MISMATCH, reused, "write@in write@in", "f-reused-1", 2, NULL, 0, 0, 1, 2, 0, NULL};
  cJSON *c2 = classes_index_add(idx, &r1, &is_new);
  CHECK(is_new && c2 != c1, "a reuse failure whose writes the first call's class holds founds its own class");
  const char *k2 = cJSON_GetStringValue(cJSON_GetObjectItem(c2, "key"));
  CHECK(k2 && !strcmp(k2, "aot_eager|wrong-result|" CLASSES_SHARED_REUSE_KEY), "keyed on the rule: %s", k2 ? k2 : "");
  classes_member r2 = {"aot_eager", V_INPUT_MUTATION_LOST, reused, "view setitem_mul@view-of-in", "f-reused-2", 2, NULL, 0, 0, 1, 3, 0, NULL};
  CHECK(classes_index_add(idx, &r2, &is_new) == c2 && !is_new, "another write's reuse failure joins it");
  classes_member r3 = {"aot_eager", V_VALUE_MISMATCH, recompiled, "write@in write@in", "f-recompiled", 2, NULL, 0, 0, 1, 4, 0, NULL};
  cJSON *c3 = classes_index_add(idx, &r3, &is_new);
  CHECK(c3 != c2, "a recompiled second call is keyed by its pattern");
  CHECK(classes_index_count(idx) == 2 && c3 == c1, "and joins the first call's class by its writes as before (%d classes)",
        classes_index_count(idx));
#undef ORDER2
  cJSON_Delete(idx);
}

/* Two classes whose first programs did not contain one another, then a finding that minimized to
 * what both hold ("op@state" is in "sub@state" and in "t_@in masked_fill_@in mul@state"): one bug,
 * so one class (an export-decomp campaign listed a buffer rebound after a view as two). A class
 * of another verdict, or whose pattern does not hold the finding's, stays apart. */
TEST(a_finding_that_both_classes_hold_folds_them_into_one) {
  af_err err;
  cJSON *idx = classes_index_load("/nonexistent-af-dir", &err);
  int is_new;
  cJSON *sub = add_member(idx, "f-sub", "sub@state", 1, &is_new);
  char sub_id[64];
  snprintf(sub_id, sizeof sub_id, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(sub, "id")));
  cJSON *mul = add_member(idx, "f-mul", "t_@in masked_fill_@in mul@state", 2, &is_new);
  CHECK(is_new && mul != sub, "sub@state and t_@in masked_fill_@in mul@state are two classes at first");
  add_member(idx, "f-add", "add_@in", 3, &is_new);
  classes_member other = {"naive", V_SHAPE_MISMATCH, "output 0: shape [2], eager [3]", "add@state", "f-shape", 2, NULL, 0, 0, 1, 4, 0, NULL};
  classes_index_add(idx, &other, &is_new);
  CHECK(classes_index_count(idx) == 4, "4 classes before the fold (%d)", classes_index_count(idx));
  cJSON *c = add_member(idx, "f-op", "op@state", 5, &is_new);
  CHECK(!is_new && classes_index_count(idx) == 3, "op@state founds no class and folds two into one: %d classes", classes_index_count(idx));
  CHECK(findings_in(c) == 3 && cJSON_GetNumberValue(cJSON_GetObjectItem(c, "count")) == 3, "the class holds the 3 findings (%d) and counts 3",
        findings_in(c));
  const cJSON *ab = cJSON_GetObjectItem(c, "absorbed");
  CHECK(cJSON_GetArraySize(ab) == 1 && !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(ab, 0)), sub_id),
        "it lists the folded class's id under absorbed");
  CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "first"), "iteration")) == 1,
        "its first occurrence is the folded class's (iteration 1)");
  af_buf b = {0};
  report_class_facts(&b, c);
  CHECK(b.s && strstr(b.s, sub_id), "the report's class facts name the folded id: %s", b.s ? b.s : "");
  free(b.s);
  cJSON_Delete(idx);
}

TEST(a_finding_recorded_again_with_another_pattern_stays_in_its_class) {
  af_err err;
  cJSON *idx = classes_index_load("/nonexistent-af-dir", &err);
  int is_new;
  cJSON *a = add_member(idx, "f-1", "unfold write@view-of-in", 1, &is_new);
  add_member(idx, "f-2", "diagonal write@view-of-in", 2, &is_new);
  CHECK(classes_index_count(idx) == 2, "two classes (%d)", classes_index_count(idx));
  /* the same finding again, generalized otherwise this time (a generalization cut by its time) */
  cJSON *c = add_member(idx, "f-1", "diagonal fill_@view-of-in", 3, &is_new);
  CHECK(!is_new && c == a, "f-1 is counted in its first class, not in %s", cJSON_GetStringValue(cJSON_GetObjectItem(c, "pattern")));
  int memberships = 0;
  cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItem(idx, "classes")) memberships += findings_in(k);
  CHECK(memberships == 2, "one membership per finding (%d for 2 findings)", memberships);
  CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(a, "count")) == 2, "its class counts both programs");
  cJSON_Delete(idx);
}

/* Judges the program itself out of time (as a campaign's judge does past its deadline) and every
 * variant as the same bug. */
static int reruns_out_of_time(const ir_program *cand, void *vp) {
  return cand == (const ir_program *)vp ? CLASSES_NOT_RUN : CLASSES_SAME;
}

/* The program fails, every variant is out of time (a loaded machine past --reduce-time). */
static int variants_out_of_time(const ir_program *cand, void *vp) {
  return cand == (const ir_program *)vp ? CLASSES_SAME : CLASSES_NOT_RUN;
}

TEST(variants_not_run_are_counted_apart_from_those_eager_rejects) {
  ir_program *p = load("corpus/seed/design-002-view-of-view-write.json");
  if (!p) return;
  classes_gen g;
  classes_generalize(p, variants_out_of_time, p, 40, 1, &g);
  cJSON *rows = g.table ? cJSON_Parse(g.table) : NULL, *row;
  int not_run = 0, invalid = 0;
  cJSON_ArrayForEach(row, rows) {
    double n = cJSON_GetNumberValue(cJSON_GetObjectItem(row, "not_run")), v = cJSON_GetNumberValue(cJSON_GetObjectItem(row, "invalid"));
    not_run += n > 0 ? (int)n : 0;
    invalid += v > 0 ? (int)v : 0;
  }
  CHECK(not_run > 0 && invalid == 0, "variants out of time: %d not run, %d counted as eager rejecting them", not_run, invalid);
  CHECK(g.reruns == 1 && g.reproduced == 1, "the program's own rerun counts (%d of %d)", g.reproduced, g.reruns);
  cJSON_Delete(rows);
  classes_gen_clear(&g);
  ir_program_free(p);
}

TEST(reruns_the_judge_could_not_run_do_not_count_as_not_reproducing) {
  ir_program *p = load("corpus/seed/design-002-view-of-view-write.json");
  if (!p) return;
  classes_gen g;
  classes_generalize(p, reruns_out_of_time, p, 40, 3, &g);
  CHECK(g.reruns == 0 && g.reproduced == 0, "%d of %d reruns (none was run)", g.reproduced, g.reruns);
  classes_gen_clear(&g);
  ir_program_free(p);
}

TEST(findings_are_deduplicated_and_a_replayed_iteration_is_not_counted_twice) {
  char dir[] = "/tmp/af_findings_XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  ir_program *p = invalid_program();
  if (!p) return;
  finding f = {.converter = "script", .converter_version = "1", .verdict = V_INVALID_PROGRAM, .detail = "boom 1",
               .original = p, .minimized = p, .seed = 18446744073709551557ULL, .iteration = 4, .job = 0};
  int is_new, counted;
  char id1[64], id2[64], id3[64];
  af_err err;
  CHECK(findings_record(dir, &f, &is_new, &counted, id1, &err) == 0 && is_new && counted, "%s", err.msg);
  f.iteration = 6;
  f.detail = "boom 2"; /* same class */
  CHECK(findings_record(dir, &f, &is_new, &counted, id2, &err) == 0 && !is_new && counted, "second hit");
  CHECK(strcmp(id1, id2) == 0, "same signature");
  f.iteration = 6; /* a resumed campaign replays iteration 6 */
  CHECK(findings_record(dir, &f, &is_new, &counted, id3, &err) == 0 && !is_new && !counted, "replay counted");
  char path[512];
  snprintf(path, sizeof path, "%s/findings/%s/finding.json", dir, id1);
  char *text = codec_slurp(path, NULL, &err);
  CHECK(text && strstr(text, "\"count\":\t2"), "%s", text ? text : "(unreadable)");
  CHECK(text && strstr(text, "18446744073709551557"), "64-bit seed kept exactly");
  free(text);
  const char *files[] = {"repro.json", "original.json", "program.py", "repro.py", "README.md", "converted.txt"};
  for (int i = 0; i < 6; i++) {
    snprintf(path, sizeof path, "%s/findings/%s/%s", dir, id1, files[i]);
    CHECK(access(path, R_OK) == 0, "%s missing", files[i]);
  }
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0, "cleanup");
  ir_program_free(p);
}

/* A tensor an op makes (`v1 = gt(sum(x), 1)`: a bool 0-d one) becomes an input holding eager's
 * value of it (value-as-input), so that the statements that made it go: the 5-statement program a
 * naive campaign left (no input has that shape and dtype, so use-input could not help) ends at 2. */
TEST(a_value_made_inside_the_program_becomes_an_input_of_its_eager_value) {
  const char *t =
      "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [1, 1], \"dtype\": \"float32\"},"
      " {\"name\": \"y\", \"shape\": [1, 1], \"dtype\": \"float32\"}], \"body\": ["
      "{\"out\": \"v0\", \"op\": \"sum\", \"args\": [\"x\"]}, {\"out\": \"v1\", \"op\": \"gt\", \"args\": [\"v0\", 1]},"
      "{\"out\": \"v2\", \"op\": \"expand\", \"args\": [\"v1\", []]}, {\"op\": \"as_strided_\", \"args\": [\"v2\", [1, 1], [6, 2], 0]},"
      "{\"op\": \"copy_\", \"args\": [\"v2\", \"y\"]}], \"outputs\": []}";
  ir_program *min = reduce_through_naive(t, V_ERROR);
  if (!min) return;
  CHECK(min->nstmts <= 2, "%d statements left", min->nstmts);
  int made = 0;
  for (int i = 0; i < min->ninputs; i++) made |= min->inputs[i].dtype == AF_BOOL && min->inputs[i].rank == 0 && min->inputs[i].ndata == 1;
  CHECK(made, "one input is the bool 0-d tensor gt made, with its value");
  ir_program_free(min);
}

/* Judges a variant through naive, as a campaign's judge does (classes_judge). */
static int naive_variant(const ir_program *cand, void *vc) {
  ctx *x = vc;
  judgement j;
  af_err err;
  if (judge_inprocess(x->c, cand, NULL, &j, &err)) return CLASSES_INVALID;
  int r = classes_outcome(&j, x->v, x->detail);
  judgement_clear(&j);
  return r;
}

/* naive loses every shape-changing write into an input. On a [1, 1] x, transpose_, t_,
 * swapaxes_ and swapdims_ change nothing, so naive "passes" them: they are counted as unchanged,
 * not as passes, and unsqueeze_ stands for its family (before, 4 passes beat squeeze_'s and
 * squeeze_all_'s 2 failures and the class was `unsqueeze_@in`). */
TEST(a_variant_whose_write_changes_nothing_is_not_a_pass) {
  const char *t = "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [1, 1], \"dtype\": \"float32\"}],"
                  " \"body\": [{\"op\": \"unsqueeze_\", \"args\": [\"x\", 1]}], \"outputs\": [\"x\"]}";
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(t, "t", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  const conv_converter *naive = conv_find("naive");
  judgement j;
  CHECK(judge_inprocess(naive, p, NULL, &j, &err) == 0 && j.verdict == V_SHAPE_MISMATCH, "verdict %d", j.verdict);
  ctx x = {naive, j.verdict, j.detail};
  classes_gen g;
  classes_generalize(p, naive_variant, &x, 120, 0, &g);
  CHECK(g.pattern && !strcmp(g.pattern, "shape-write@in"), "pattern '%s'", g.pattern ? g.pattern : "(none)");
  CHECK(g.table && strstr(g.table, "\"unchanged\":4"), "4 variants unchanged: %s", g.table ? g.table : "(none)");
  classes_gen_clear(&g);
  judgement_clear(&j);
  ir_program_free(p);
}

TEST(a_class_widens_when_a_finding_shows_its_bug_for_the_whole_family) {
  af_err err;
  cJSON *idx = classes_index_load("/nonexistent-af-dir", &err);
  int is_new;
  cJSON *a = add_member(idx, "f-1", "unsqueeze_@in", 1, &is_new);
  CHECK(add_member(idx, "f-2", "shape-write@in", 2, &is_new) == a && !is_new, "shape-write@in joins unsqueeze_@in");
  CHECK(add_member(idx, "f-3", "as_strided_@in", 3, &is_new) == a && !is_new,
        "as_strided_@in joins the widened class (key %s)", cJSON_GetStringValue(cJSON_GetObjectItem(a, "key")));
  /* a pattern that drops a token does not widen: write@view-of-in joins unfold's class, but the
   * class stays unfold's, and a diagonal write makes its own */
  cJSON *u = add_member(idx, "f-4", "unfold write@view-of-in", 4, &is_new);
  CHECK(add_member(idx, "f-5", "write@view-of-in", 5, &is_new) == u, "write@view-of-in joins unfold's class");
  CHECK(add_member(idx, "f-6", "diagonal write@view-of-in", 6, &is_new) != u && is_new, "diagonal is a class of its own");
  CHECK(classes_index_count(idx) == 3, "3 classes (%d)", classes_index_count(idx));
  cJSON_Delete(idx);
  /* only a member that shows the class's own bug widens it: a value-mismatch write@in that joins
   * a converter-error abs_@in class (its pattern contains the class's) leaves it abs_@in */
  idx = classes_index_load("/nonexistent-af-dir", &err);
  classes_member e = {"functionalize", V_ERROR, "body[0] (abs_): Could not run 'aten::abs.out' with arguments from the 'Meta' backend",
                      "abs_@in", "f-e", 1, NULL, 0, 0, 1, 1, 0, NULL};
  cJSON *ce = classes_index_add(idx, &e, &is_new);
  classes_member w = {"functionalize", V_VALUE_MISMATCH, "output 0: element 0 is 1, eager 2", "write@in", "f-w", 1, NULL, 0, 0, 1, 2, 0, NULL};
  CHECK(classes_index_add(idx, &w, &is_new) == ce, "the value-mismatch joins the abs_@in class");
  CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(ce, "key")), "functionalize|wrong-result|abs_@in"), "and does not widen it: %s",
        cJSON_GetStringValue(cJSON_GetObjectItem(ce, "key")));
  cJSON_Delete(idx);
}

TEST(a_rebind_of_module_state_is_a_write_into_it) {
  const char *t = "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\","
                  " \"buffer\": true}], \"body\": [{\"out\": \"x\", \"op\": \"sub\", \"args\": [\"x\", 1]}], \"outputs\": []}";
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(t, "t", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  char *pat = classes_plain_pattern(p);
  CHECK(!strcmp(pat, "sub@state"), "pattern '%s'", pat);
  free(pat);
  ir_program_free(p);
}

/* A write lands where eager's does by the op table's rules, not by the op's kind: through the
 * result of dropout in eval mode (the argument itself: pytorch/pytorch#195422's bug, which an
 * export-decomp campaign listed as `mul_@tmp`, with the dropout left out) into the argument; through a
 * getitem with a tensor index (a copy) into a fresh tensor. */
TEST(a_write_through_what_returns_its_argument_lands_in_the_argument) {
  static const struct {
    const char *body, *want;
  } cases[] = {
      {"{\"out\": \"v\", \"op\": \"dropout\", \"args\": [\"x\", 0.25, false]}, {\"op\": \"mul_\", \"args\": [\"v\", 3]}",
       "dropout mul_@in"},
      {"{\"out\": \"a\", \"op\": \"arange\", \"args\": [4]}, {\"out\": \"v\", \"op\": \"dropout\", \"args\": [\"a\", 0.25, false]},"
       " {\"op\": \"mul_\", \"args\": [\"v\", 3]}",
       "dropout mul_@tmp"},
      {"{\"out\": \"v\", \"op\": \"slice\", \"args\": [\"x\", 0, 1, 3, 1]}, {\"out\": \"w\", \"op\": \"dropout\", \"args\": [\"v\", 0.5, false]},"
       " {\"op\": \"add_\", \"args\": [\"w\", 1]}",
       "slice dropout add_@view-of-in"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char t[1024];
    snprintf(t, sizeof t,
             "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [4], \"dtype\": \"float32\"}],"
             " \"body\": [%s], \"outputs\": [\"x\"]}",
             cases[i].body);
    ir_program *p = NULL;
    af_err err;
    CHECK(codec_read_string(t, "t", &p, &err) == 0, "%s", err.msg);
    if (!p) continue;
    char *pat = classes_plain_pattern(p);
    CHECK(!strcmp(pat, cases[i].want), "pattern '%s', want '%s'", pat, cases[i].want);
    free(pat);
    ir_program_free(p);
  }
}

/* What an op writes is the op table's fact (ops.def OPF_WRITES), not argument 0: batch_norm in
 * training mode writes its running statistics, arguments 3 and 4. A batch_norm whose running mean
 * is a row of a buffer writes that buffer through a view (`select batch_norm@view-of-in`), one
 * whose statistics are fresh tensors writes temporaries; its quick key says the buffer is written;
 * judge_without_writes makes its statistics None (the same output, nothing written), so a failure
 * that needs the update is not taken for one that needs no write; a foreach op writes every tensor
 * of its list. Before, the pattern was `batch_norm` (no write: the whole program its core) and
 * the writes stayed. */
TEST(an_op_that_writes_another_argument_is_a_write_where_that_argument_lands) {
  static const char *const bn =
      "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2, 3, 4], \"dtype\": \"float64\"},"
      " {\"name\": \"buf\", \"shape\": [2, 3], \"dtype\": \"float64\", \"buffer\": true},"
      " {\"name\": \"rv\", \"shape\": [3], \"dtype\": \"float64\", \"buffer\": true}],"
      " \"body\": [{\"op\": \"select\", \"out\": \"rm\", \"args\": [\"buf\", 0, 1]}, {\"op\": \"mul\", \"out\": \"m\", \"args\": [\"x\", 2]},"
      " {\"op\": \"batch_norm\", \"out\": \"y\", \"args\": [\"m\", null, null, \"rm\", \"rv\", true, 0.25, 1e-05, false]}],"
      " \"outputs\": [\"y\"]}";
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(bn, "bn", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  char *pat = classes_plain_pattern(p);
  CHECK(!strcmp(pat, "select batch_norm@view-of-in"), "pattern '%s' (the mul is not in its core)", pat);
  free(pat);
  char *qk = classes_quick_key(p, V_VALUE_MISMATCH, "input rv: element 0 is 0, eager 1");
  CHECK(strstr(qk, "input:input+written:") != NULL, "the quick key: the running variance is written (%s)", qk);
  free(qk);
  int writes = 0;
  ir_program *bare = judge_without_writes(p, &writes);
  const ir_stmt *st = bare ? &bare->stmts[bare->nstmts - 1] : NULL;
  CHECK(writes == 1 && st && st->op == OPS_batch_norm && st->nargs > 4 && st->args[3].kind == IR_ARG_NONE &&
            st->args[4].kind == IR_ARG_NONE && ir_validate(bare, &err) == 0,
        "without writes: batch_norm with no running statistics (%d writes)", writes);
  result a, b;
  result_init(&a), result_init(&b);
  char *d = NULL;
  oracle_verdict v = V_PASS;
  if (bare && eager_run(p, &a, &err) == 0 && a.status == RESULT_OK && eager_run(bare, &b, &err) == 0 && b.status == RESULT_OK)
    v = oracle_judge(p, &a, &b, NULL, &d);
  CHECK(v == V_INPUT_MUTATION_LOST && d && !strncmp(d, "input ", 6), "the same output, only the update gone: %s %s",
        oracle_verdict_name(v), d ? d : "");
  free(d);
  result_clear(&a), result_clear(&b);
  CHECK(!judge_writes_change_nothing(p), "the update changes the buffers: a write that changes something");
  ir_program_free(bare);
  ir_program_free(p);
  /* fresh statistics: temporaries */
  static const char *const fresh =
      "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2, 3], \"dtype\": \"float64\"}],"
      " \"body\": [{\"op\": \"zeros\", \"out\": \"rm\", \"args\": [[3]]}, {\"op\": \"ones\", \"out\": \"rv\", \"args\": [[3]]},"
      " {\"op\": \"batch_norm\", \"out\": \"y\", \"args\": [\"x\", null, null, \"rm\", \"rv\", true, 0.5, 1e-05, false]}],"
      " \"outputs\": [\"y\", \"rm\"]}";
  CHECK(codec_read_string(fresh, "fresh", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  pat = classes_plain_pattern(p);
  CHECK(!strcmp(pat, "batch_norm@tmp"), "pattern '%s'", pat);
  free(pat);
  ir_program_free(p);
}

/* Issue 25: one error, one key, whatever op it names; trailers that say where are dropped. */
TEST(error_keys_name_no_operator_and_drop_where_trailers) {
  char *a = sig_error_class("RuntimeError: aten::abs.out: attempted to run this operator with Meta tensors, but there was no fake impl or Meta kernel registered");
  char *b = sig_error_class("RuntimeError: aten::logical_not.out: attempted to run this operator with Meta tensors, but there was no fake impl or Meta kernel registered");
  CHECK(!strcmp(a, b) && strstr(a, "aten::…"), "'%s' vs '%s'", a, b);
  char *c = sig_error_class("RuntimeError: Unsupported: ONNX export of index_put [Caused by the value '5 defined in (%5 : Tensor = onnx::Gather(%x, %4))' (type 'Tensor') in the TorchScript graph.]");
  char *d = sig_error_class("RuntimeError: Unsupported: ONNX export of index_put [Caused by the value '9 defined in (%9 : Tensor = onnx::Slice(%y))' (type 'Tensor') in the TorchScript graph.]");
  CHECK(!strcmp(c, d) && !strstr(c, "Caused"), "'%s' vs '%s'", c, d);
  char *e = sig_error_class("TypeError: torch.ops.aten.add_.Tensor got an unexpected keyword (node defined in File \"x.py\", line 3)");
  char *f = sig_error_class("TypeError: torch.ops.aten.mul_.Tensor got an unexpected keyword (node defined in File \"y.py\", line 9)");
  CHECK(!strcmp(e, f) && !strstr(e, "node defined"), "'%s' vs '%s'", e, f);
  free(a), free(b), free(c), free(d), free(e), free(f);
  /* words in parentheses are kept: a message-less error is not every other one's key */
  char *g = sig_error_class("RuntimeError: (PyTorch gave no message) (at `if bool(v5):`)");
  char *h = sig_error_class("RuntimeError: (2, 3) (4, 5)");
  CHECK(strcmp(g, h) != 0 && strstr(g, "PyTorch gave no message"), "'%s' vs '%s'", g, h);
  free(g), free(h);
}

/* A program that fails the same way with its writes gone is keyed by its error, not by a write
 * pattern (a data-dependent `if` error surrounded by a write). */
static int fails_whatever_it_writes(const ir_program *cand, void *unused) {
  (void)cand, (void)unused;
  return CLASSES_SAME;
}

TEST(an_error_that_needs_no_write_is_keyed_by_the_error) {
  const char *t = "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [5], \"dtype\": \"float32\"}],"
                  " \"body\": [{\"op\": \"fill_\", \"args\": [\"x\", 1]}, {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", 2]}],"
                  " \"outputs\": [\"r\"]}";
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(t, "t", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  classes_gen g;
  classes_generalize(p, fails_whatever_it_writes, NULL, 120, 0, &g);
  CHECK(g.write_free && g.pattern && !classes_pattern_writes(g.pattern), "pattern '%s' without writes", g.pattern ? g.pattern : "");
  CHECK(classes_keyed_by_error(V_ERROR, g.pattern), "so a converter error of it keys on its error");
  classes_gen_clear(&g);
  classes_generalize(p, only_unfold_is_valid, NULL, 120, 0, &g); /* passes without the write */
  CHECK(!g.write_free && g.pattern && classes_pattern_writes(g.pattern), "a write's bug keeps its write: '%s'", g.pattern ? g.pattern : "");
  classes_gen_clear(&g);
  ir_program_free(p);
}

/* Issue 25: a finding that did not reproduce on every rerun founds and joins no class; an
 * error-keyed finding never joins a pattern class by containment; value-mismatch and
 * input-mutation-lost are one verdict group; the class id a finding's README names is the class
 * it joins; with a baseline converter known and new members are apart. */
TEST(class_membership_rules_of_issue_25) {
  af_err err;
  cJSON *idx = classes_index_load("/nonexistent-af-dir", &err);
  int is_new;
  classes_member big = {"naive", V_VALUE_MISMATCH, "output 0: element 0 is 1, eager 2", "t view fill_@in mul", "f-flaky", 26, NULL,
                        3, 0, 1, 1, 0, "q1"};
  cJSON *c = classes_index_add(idx, &big, &is_new);
  CHECK(!is_new && classes_index_count(idx) == 0 && classes_index_flaky_count(idx) == 1, "reproduced 0 of 3: flaky, no class");
  char id[64];
  classes_index_class_id(idx, &big, id);
  CHECK(id[0] == 0, "a flaky finding names no class");
  CHECK(classes_index_count_quick(idx, "q1", 0, 5) == c, "its quick key is held (counted there, not deferred)");
  classes_member w = {"naive", V_VALUE_MISMATCH, "output 0: element 0 is 1, eager 2", "write@in", "f-w", 1, NULL, 3, 3, 1, 2, 0, "q2"};
  cJSON *cw = classes_index_add(idx, &w, &is_new);
  CHECK(is_new, "a reproduced finding founds its class");
  classes_member l = {"naive", V_INPUT_MUTATION_LOST, "input x: eager mutated it", "write@in", "f-l", 1, NULL, 3, 3, 1, 3, 0, "q3"};
  classes_index_class_id(idx, &l, id);
  CHECK(!strcmp(id, cJSON_GetStringValue(cJSON_GetObjectItem(cw, "id"))), "the id a joining finding names is its class's (%s)", id);
  CHECK(classes_index_add(idx, &l, &is_new) == cw && !is_new, "input-mutation-lost of the same write joins the value-mismatch class");
  classes_member e = {"naive", V_ERROR, "RuntimeError: bool value of Tensor with more than one value is ambiguous", "gt", "f-e", 2, NULL,
                      3, 3, 1, 4, 0, "q4"};
  CHECK(classes_index_add(idx, &e, &is_new) != cw && is_new, "an error keyed by its error is its own class");
  classes_member known = {"naive", V_VALUE_MISMATCH, "output 0: element 0 is 1, eager 2", "write@in", "f-k", 1, NULL, 3, 3, 1, 5, 0,
                          "q5" CLASSES_BASELINE_MARK "known"};
  cJSON *ck = classes_index_add(idx, &known, &is_new);
  CHECK(ck != cw && is_new && cJSON_IsTrue(cJSON_GetObjectItem(ck, "members_in_baseline")),
        "a member the baseline also has is apart from the new one of the same pattern");
  classes_member nw = {"naive", V_VALUE_MISMATCH, "output 0: element 0 is 1, eager 2", "write@in", "f-n", 1, NULL, 3, 3, 1, 6, 0,
                       "q6" CLASSES_BASELINE_MARK "new"};
  cJSON *cn = classes_index_add(idx, &nw, &is_new);
  CHECK(cn == cw, "a new member joins the class of the same key");
  /* a class whose generalization saw setitem fail as setitem_add does takes a setitem finding
   * (in an index of its own: write@in above contains them all) */
  cJSON *all = idx;
  idx = classes_index_load("/nonexistent-af-dir", &err);
  classes_member sa = {"naive", V_VALUE_MISMATCH, "output 0: element 0 is 1, eager 2", "setitem_add@in", "f-sa", 1,
                       "[{\"statement\": 0, \"op\": \"setitem_add\", \"family\": \"write\", \"generalized\": false,"
                       " \"same\": [\"setitem\"], \"pass\": [\"add_\", \"fill_\"], \"other\": [], \"invalid\": 0}]",
                       3, 3, 1, 9, 0, "q9"};
  cJSON *csa = classes_index_add(idx, &sa, &is_new);
  classes_member si = {"naive", V_VALUE_MISMATCH, "output 0: element 0 is 1, eager 2", "setitem@in", "f-si", 1, NULL, 3, 3, 1, 10, 0, "q10"};
  CHECK(classes_index_add(idx, &si, &is_new) == csa && !is_new, "setitem@in joins setitem_add@in, whose variants showed it");
  classes_member sm = {"naive", V_VALUE_MISMATCH, "output 0: element 0 is 1, eager 2", "setitem_mul@in", "f-sm", 1, NULL, 3, 3, 1, 11, 0, "q11"};
  CHECK(classes_index_add(idx, &sm, &is_new) != csa && is_new, "setitem_mul@in, which they did not show, does not");
  /* the other way round: the member's own row lists the class's op */
  classes_member sd = {"naive", V_VALUE_MISMATCH, "output 0: element 0 is 1, eager 2", "setitem_div@in", "f-sd", 1,
                       "[{\"statement\": 0, \"op\": \"setitem_div\", \"family\": \"write\", \"generalized\": false,"
                       " \"same\": [\"setitem_add\"], \"pass\": [\"add_\"], \"other\": [], \"invalid\": 0}]",
                       3, 3, 1, 12, 0, "q12"};
  CHECK(classes_index_add(idx, &sd, &is_new) == csa && !is_new, "setitem_div@in, whose own variants showed setitem_add, joins it");
  cJSON_Delete(idx);
  idx = all;
  int before = classes_index_count(idx);
  classes_member pe = {"naive", V_PROTOCOL, "worker x: protocol error: 2 outputs for 1", NULL, "f-p", 1, NULL, 0, 0, 1, 7, 0, "q7"};
  classes_index_add(idx, &pe, &is_new);
  CHECK(!is_new && classes_index_count(idx) == before && classes_index_harness_count(idx) == 1,
        "a worker protocol error is a harness finding, in no class");
  classes_member hl = {"naive", V_UNSUPPORTED, RESULT_HARNESS_LIMIT "this worker does not convert programs with module state", NULL,
                       "f-h", 1, NULL, 0, 0, 1, 8, 0, "q8"};
  classes_index_add(idx, &hl, &is_new);
  CHECK(!is_new && classes_index_count(idx) == before && classes_index_harness_count(idx) == 2,
        "a program aliasfuzz cannot hand to the converter is a harness finding too");
  classes_member ip = {"naive", V_INVALID_PROGRAM, "body[3] (atanh_): eager rejected it", NULL, "f-i", 1, NULL, 0, 0, 1, 9, 0, "q9"};
  classes_index_add(idx, &ip, &is_new);
  CHECK(!is_new && classes_index_count(idx) == before && classes_index_harness_count(idx) == 3,
        "a program eager rejects (aliasfuzz made it) is a harness finding, not a class of the converter's");
  cJSON_Delete(idx);
}

/* Issue 25: each crash state its own class: the frames a crashing child sends name where. */
TEST(crash_details_name_where_the_crash_happened) {
  const char *sent = "K /usr/lib/libc.so.6(+0x3c050) [0x7f00]\n"
                     "K /x/libtorch_cpu.so(+0x724e0f4) [0x7f01]\n"
                     "K /x/libtorch_cpu.so(_ZNK2at18TensorIteratorBase15serial_for_eachEv+0x1a) [0x7f02]\n"
                     "K /x/libtorch_cpu.so(_ZN2at19functionalization8mutate_Ev+0x99) [0x7f03]\n"
                     "K /x/build/aliasfuzz(job_main+0x10) [0x5500]\n";
  char *d = crashsite_describe(SIGSEGV, sent);
  CHECK(strstr(d, "killed by signal 11") && strstr(d, " in _ZN2at19functionalization8mutate_Ev") && !strstr(d, "TensorIterator"),
        "the converter's own frame: '%s'", d);
  char *k = sig_error_class(d);
  CHECK(strstr(k, "_ZN2at19functionalization8mutate_Ev"), "and the error key keeps it: '%s'", k);
  free(d), free(k);
  /* a real crash in a forked child: the K lines reach the parent */
  int fd[2];
  CHECK(pipe(fd) == 0, "pipe");
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    crashsite_install(fd[1]);
    raise(SIGSEGV);
    _exit(0);
  }
  close(fd[1]);
  char buf[16384];
  size_t n = 0;
  ssize_t got;
  while (n < sizeof buf - 1 && (got = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0) n += (size_t)got;
  buf[n] = 0;
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "the child died by the signal it got");
  CHECK(!strncmp(buf, "K ", 2), "and sent its frames first: '%.80s'", buf);
}

int main(void) {
  at_init();
  RUN(error_keys_name_no_operator_and_drop_where_trailers);
  RUN(an_error_that_needs_no_write_is_keyed_by_the_error);
  RUN(class_membership_rules_of_issue_25);
  RUN(crash_details_name_where_the_crash_happened);
  RUN(subset_drops_dependents_of_a_removed_statement);
  RUN(an_invalid_program_reduces_to_the_statement_that_fails_and_what_it_needs);
  RUN(a_bug_inside_blocks_reduces_to_straight_line);
  RUN(error_classes_ignore_numbers_and_quoted_names);
  RUN(error_keys_normalize_names_numbers_and_shapes_and_are_never_cut_by_length);
  RUN(error_keys_of_one_message_cut_at_different_points_are_one_key);
  RUN(a_view_with_no_valid_variant_keeps_its_name_in_the_class_pattern);
  RUN(unused_inputs_go_in_one_test);
  RUN(a_training_program_reduces_untrained_unless_the_bug_needs_gradients);
  RUN(findings_are_deduplicated_and_a_replayed_iteration_is_not_counted_twice);
  RUN(a_finding_that_matches_several_classes_joins_the_most_specific_one);
  RUN(a_finding_that_both_classes_hold_folds_them_into_one);
  RUN(failures_of_a_graph_reused_on_inputs_sharing_a_storage_are_one_class_apart_from_first_calls);
  RUN(a_write_through_what_returns_its_argument_lands_in_the_argument);
  RUN(an_op_that_writes_another_argument_is_a_write_where_that_argument_lands);
  RUN(a_finding_recorded_again_with_another_pattern_stays_in_its_class);
  RUN(reruns_the_judge_could_not_run_do_not_count_as_not_reproducing);
  RUN(variants_not_run_are_counted_apart_from_those_eager_rejects);
  RUN(a_value_made_inside_the_program_becomes_an_input_of_its_eager_value);
  RUN(a_variant_whose_write_changes_nothing_is_not_a_pass);
  RUN(a_class_widens_when_a_finding_shows_its_bug_for_the_whole_family);
  RUN(a_rebind_of_module_state_is_a_write_into_it);
  return tap_done();
}
