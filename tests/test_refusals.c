/* test_refusals.c - what converters refuse by design, and campaigns that spend their minutes on
 * bugs (fuzz/refusals.h, fuzz/campaign_policy.c; issue 34).
 *
 *   declared     the REFUSES lines of harness/converters/workers.def, as the real converters'
 *                refusals: torch.export's data-dependent branch (knob "if", certain) for the
 *                converters that start from torch.export, AOTAutograd's as_strided view chain (no
 *                knob) for those that run it
 *   limits       which failing programs are limits (converter-unsupported, a declared refusal)
 *                and which are bugs; a harness limit is neither; the class index marks them
 *   ranks        wrong values rank before errors, errors before limits, from a verdict and from a
 *                quick key; with the minimization budget half spent an error is deferred while a
 *                wrong value is still minimized
 *   policy       the epochs: a certain refusal down-weights the if from iteration 0 for every job,
 *                a learned one from its iteration for its job alone; loaded epochs give the same
 *                policy back (a resumed campaign, a restarted job)
 *   exit         `aliasfuzz fuzz`'s exit status: limits alone are 0, a limit beside a bug 1, with a
 *                baseline a new class (a limit too) 1 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../fuzz/campaign_int.h"
#include "../fuzz/classes.h"
#include "../fuzz/refusals.h"
#include "../harness/codec.h"
#include "../harness/result.h"
#include "tap.h"

static const char *DD = "torch.export.export + run_decompositions: GuardOnDataDependentSymNode: Could not guard on data-dependent "
                        "expression Eq(u0, 1) (unhinted: Eq(u0, 1)).";
static const char *CHAIN = "torch.compile(backend='aot_eager'): BackendCompilerFailed: backend='aot_eager' raised: | RuntimeError: "
                           "During torch.compile, encountered a mutation on a view chain of length 2, where view 1 was an as_strided() call.";

static const refusal *named(const char *conv, const char *knob) {
  int n;
  const refusal *r = refusals_of(conv_find(conv), &n);
  for (int i = 0; i < n; i++)
    if ((knob && r[i].knob && !strcmp(r[i].knob, knob)) || (!knob && !r[i].knob)) return &r[i];
  return NULL;
}

TEST(declared) {
  static const char *const export_based[] = {"export", "export-decomp", "tvm-relax", "onnx-dynamo", "openvino", "executorch", "iree"};
  for (size_t i = 0; i < sizeof export_based / sizeof export_based[0]; i++) {
    const refusal *r = named(export_based[i], "if");
    CHECK(r && r->certain && strstr(r->match, "GuardOnDataDependentSymNode"), "%s declares the data-dependent branch, certain",
          export_based[i]);
  }
  const refusal *chain = named("aot_eager", NULL);
  CHECK(chain && strstr(chain->match, "mutation on a view chain") && !chain->certain, "aot_eager: the view chain, no knob");
  CHECK(!named("aot_eager", "if") && !named("inductor", "if"), "torch.compile takes a data-dependent branch (a graph break)");
  int n = -1;
  (void)refusals_of(conv_find("functionalize"), &n);
  CHECK(n == 0, "functionalize declares nothing (%d)", n);
}

TEST(limits) {
  const conv_converter *ed = conv_find("export-decomp"), *ae = conv_find("aot_eager");
  const char *l = refusals_limit(ed, V_UNSUPPORTED, DD);
  CHECK(l && strstr(l, "data-dependent control flow"), "export-decomp's data-dependent branch: %s", l ? l : "(none)");
  l = refusals_limit(ae, V_ERROR, CHAIN);
  CHECK(l && strstr(l, "view chain"), "aot_eager's view chain, an error, is a limit: %s", l ? l : "(none)");
  l = refusals_limit(conv_find("inductor"), V_ERROR,
                     "torch.compile(backend='inductor'): BackendCompilerFailed: backend='inductor' raised: | AssertionError: "
                     "aot_autograd() does not yet handle non-differentiable view input mutations.");
  CHECK(l && strstr(l, "non-differentiable view"), "AOTAutograd's not-yet-handled input mutation is a limit: %s", l ? l : "(none)");
  l = refusals_limit(ae, V_ERROR,
                     "torch.compile(backend='aot_eager'): BackendCompilerFailed: backend='aot_eager' raised: | AssertionError: "
                     "aot_autograd() does not yet handle input mutations on views with different dtypes.");
  CHECK(l && strstr(l, "another dtype"), "AOTAutograd's not-yet-handled dtype-view input mutation is a limit: %s", l ? l : "(none)");
  l = ed ? refusals_limit(ed, V_ERROR,
                          "torch.export.export + run_decompositions: RuntimeError: Constant x2 is mutated in the forward method. "
                          "Pls register it as buffer (in torch/_export/utils.py:_override_graph_signature_for_temp_registered_constants)")
         : NULL;
  CHECK(l && strstr(l, "plain tensor attribute"), "export's refusal of a plain attribute written in place is a limit: %s", l ? l : "(none)");
  CHECK(!refusals_limit(ae, V_ERROR, "torch.compile(backend='aot_eager'): IndexError: Dimension out of range"), "another error is a bug");
  {
    /* a declared limit's error keys on itself, never on the write it surfaced under: a limit and a
       crash downstream of the same write pattern are two classes, and only the limit's is marked */
    af_err err;
    cJSON *x = classes_index_load("/nonexistent-af-dir", &err);
    int is_new;
    classes_member crash = {"export-decomp", V_ERROR, "RuntimeError: Expected !size_bytes_is_heap_allocated_ to be true, but got false.",
                            "write@in", "f-crash", 1, NULL, 0, 0, 1, 1, 0, NULL};
    classes_member lim = {"export-decomp", V_ERROR,
                          "RuntimeError: Constant x2 is mutated in the forward method. Pls register it as buffer", "write@in", "f-lim", 1,
                          NULL, 0, 0, 1, 2, 0, NULL};
    cJSON *cc = classes_index_add(x, &crash, &is_new), *cl = classes_index_add(x, &lim, &is_new);
    CHECK(is_new && cc != cl, "the limit founds a class of its own (%d classes)", classes_index_count(x));
    CHECK(ed && refusals_mark_classes(x, ed) == 1 && refusals_class_is_limit(cl) && !refusals_class_is_limit(cc),
          "only the limit's class is marked a limit");
    cJSON_Delete(x);
  }
  CHECK(!refusals_limit(ae, V_VALUE_MISMATCH, "output 0 (v1): element 0 is -5, eager 4"), "a wrong value is a bug");
  l = refusals_limit(ae, V_UNSUPPORTED, "torch.compile(backend='aot_eager'): Unsupported: some construct");
  CHECK(l && !strcmp(l, "converter-unsupported"), "any converter-unsupported program is a limit: %s", l ? l : "(none)");
  CHECK(!refusals_limit(ae, V_UNSUPPORTED, RESULT_HARNESS_LIMIT "this worker does not build inputs with layouts"),
        "a harness limit is a harness finding, not the converter's limit");
  /* the class index: marks, the mark dropped when no longer a limit, deferred limits */
  cJSON *idx = cJSON_Parse("{\"classes\": ["
                           "{\"id\": \"a\", \"verdict\": \"converter-error\", \"detail\": \"x\", \"quick_keys\": [\"converter-error|x\"]},"
                           "{\"id\": \"b\", \"verdict\": \"converter-unsupported\", \"detail\": \"y\", \"limit\": \"stale\"},"
                           "{\"id\": \"c\", \"verdict\": \"value-mismatch\", \"detail\": \"z\", \"limit\": \"stale\"}],"
                           "\"deferred\": {\"converter-error|x\": {\"count\": 2}, \"converter-unsupported|w\": {\"count\": 3},"
                           "\"value-mismatch|output:input:element # is #, eager #\": {\"count\": 1}}}");
  cJSON *cls = cJSON_GetObjectItem(idx, "classes");
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cls, 0), "detail", cJSON_CreateString(CHAIN));
  CHECK(refusals_mark_classes(idx, ae) == 2, "two limit classes");
  CHECK(refusals_class_is_limit(cJSON_GetArrayItem(cls, 0)) && refusals_class_is_limit(cJSON_GetArrayItem(cls, 1)) &&
            !refusals_class_is_limit(cJSON_GetArrayItem(cls, 2)),
        "the view chain and the unsupported class marked, the wrong value's stale mark dropped");
  CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(cls, 1), "limit")), "converter-unsupported"), "its name");
  CHECK(refusals_deferred_limits(idx, ae) == 1, "one deferred quick key no class holds is a limit (%d)", refusals_deferred_limits(idx, ae));
  cJSON_Delete(idx);
}

/* torch.export drops the rebind of a plain tensor attribute and warns that such attributes must be
 * registered as buffers: a wrong result (input-mutation-lost) whose converter warned so is that
 * declared limit, matched in the warnings its detail ends with (oracle.h ORACLE_WARNED) and nowhere
 * else; it ranks as a limit, has a quick key of its own, founds a class of its own beside a bug of
 * the same pattern `op@state` (a buffer rebound after a view of it), and only its class is marked. */
#define ATTR_LOST "input t: eager mutated it; the converter left it unchanged"
#define ATTR_WARNING                                                                                                  \
  "The tensor attribute self.t was assigned during export. Such attributes must be registered as buffers using the " \
  "`register_buffer` API (https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.register_buffer)."
TEST(warned) {
  static const char *const export_based[] = {"export", "export-decomp", "tvm-relax", "onnx-dynamo", "openvino", "executorch", "iree"};
  const char *warned = ATTR_LOST ORACLE_WARNED ATTR_WARNING "]";
  for (size_t i = 0; i < sizeof export_based / sizeof export_based[0]; i++) {
    const char *l = refusals_limit(conv_find(export_based[i]), V_INPUT_MUTATION_LOST, warned);
    CHECK(l && strstr(l, "plain tensor attribute"), "%s: a wrong result it warned of is the declared limit: %s", export_based[i],
          l ? l : "(none)");
  }
  const conv_converter *ex = conv_find("export"), *ae = conv_find("aot_eager");
  CHECK(!refusals_limit(ex, V_INPUT_MUTATION_LOST, ATTR_LOST), "not warned: a bug");
  CHECK(!refusals_limit(ex, V_VALUE_MISMATCH, ATTR_WARNING " " ATTR_LOST), "the text outside the converter's warnings: a bug");
  CHECK(!refusals_limit(ae, V_INPUT_MUTATION_LOST, warned), "aot_eager declares no such limit");
  CHECK(!refusals_limit(ex, V_INPUT_MUTATION_LOST, ATTR_LOST ORACLE_WARNED "something else]"), "another warning: a bug");
  CHECK(refusals_rank(ex, V_INPUT_MUTATION_LOST, warned) == 2 && refusals_rank(ex, V_INPUT_MUTATION_LOST, ATTR_LOST) == 0,
        "a warned limit ranks 2, the same verdict unwarned 0");
  CHECK(refusals_same_limit(ex, V_INPUT_MUTATION_LOST, warned, V_VALUE_MISMATCH, "output 0 (r): x" ORACLE_WARNED ATTR_WARNING "]") &&
            !refusals_same_limit(ex, V_INPUT_MUTATION_LOST, warned, V_INPUT_MUTATION_LOST, ATTR_LOST) &&
            refusals_same_limit(ex, V_INPUT_MUTATION_LOST, ATTR_LOST, V_VALUE_MISMATCH, "output 0 (r): y"),
        "the same limit, or none on both sides");
  /* quick keys: the warnings never split them, a declared limit it warned of does */
  af_err err;
  ir_program *p = NULL;
  CHECK(!codec_read_string("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"t\", \"shape\": [3], \"dtype\": "
                           "\"float32\", \"attribute\": true}], \"body\": [{\"op\": \"mul\", \"args\": [\"t\", 2], \"out\": \"t\"}], "
                           "\"outputs\": []}",
                           "attr", &p, &err),
        "the program reads: %s", err.msg);
  char *plain = classes_quick_key(p, V_INPUT_MUTATION_LOST, ATTR_LOST),
       *chatter = classes_quick_key_on(ae, p, V_INPUT_MUTATION_LOST, ATTR_LOST ORACLE_WARNED "graph break (1x): x]"),
       *lim = classes_quick_key_on(ex, p, V_INPUT_MUTATION_LOST, warned), *again = classes_quick_key(p, V_INPUT_MUTATION_LOST, warned);
  CHECK(!strcmp(plain, chatter) && !strcmp(plain, again), "warnings are in no quick key: %s | %s | %s", plain, chatter, again);
  CHECK(strcmp(plain, lim) && refusals_rank_quick(ex, lim) == 2 && refusals_rank_quick(ex, plain) == 0,
        "a warned limit's quick key is apart and ranks 2: %s", lim);
  free(plain), free(chatter), free(lim), free(again);
  ir_program_free(p);
  /* classes */
  cJSON *x = classes_index_new();
  int is_new;
  classes_member bug = {"export", V_VALUE_MISMATCH, "output 0 (v0): element 0 is 1, eager 2", "op@state", "f-bug", 3,
                        NULL, 0, 0, 1, 1, 0, NULL};
  classes_member attr = {"export", V_INPUT_MUTATION_LOST, warned, "op@state", "f-attr", 1, NULL, 0, 0, 1, 2, 0, NULL};
  cJSON *cb = classes_index_add(x, &bug, &is_new), *ca = classes_index_add(x, &attr, &is_new);
  const char *key = cJSON_GetStringValue(cJSON_GetObjectItem(ca, "key"));
  CHECK(is_new && cb != ca && key && strstr(key, CLASSES_WARNED "assigned during export"),
        "the warned limit founds a class of its own (%d classes, key %s)", classes_index_count(x), key ? key : "-");
  CHECK(refusals_mark_classes(x, ex) == 1 && refusals_class_is_limit(ca) && !refusals_class_is_limit(cb),
        "only the warned class is marked a limit");
  classes_member attr2 = {"export", V_VALUE_MISMATCH, "output 0 (r): element 0 is 1, eager 2" ORACLE_WARNED ATTR_WARNING "]",
                          "view op@state", "f-attr2", 2, NULL, 0, 0, 1, 3, 0, NULL};
  CHECK(classes_index_add(x, &attr2, &is_new) == ca && classes_index_count(x) == 2, "another warned program joins it, whatever its pattern");
  cJSON_Delete(x);
}

TEST(ranks) {
  const conv_converter *ed = conv_find("export-decomp");
  CHECK(refusals_rank(ed, V_VALUE_MISMATCH, "x") == 0 && refusals_rank(ed, V_SHAPE_MISMATCH, "x") == 0 &&
            refusals_rank(ed, V_DTYPE_MISMATCH, "x") == 0 && refusals_rank(ed, V_INPUT_MUTATION_LOST, "x") == 0,
        "wrong values, shapes, dtypes and lost mutations rank 0");
  CHECK(refusals_rank(ed, V_ERROR, "boom") == 1 && refusals_rank(ed, V_CRASH, "boom") == 1 && refusals_rank(ed, V_TIMEOUT, "") == 1,
        "errors, crashes and timeouts rank 1");
  CHECK(refusals_rank(ed, V_UNSUPPORTED, DD) == 2 && refusals_rank(ed, V_ERROR, DD) == 2, "refusals rank 2");
  CHECK(refusals_rank_quick(ed, "value-mismatch|output:input+written:element # is #, eager #") == 0, "a wrong value's quick key");
  CHECK(refusals_rank_quick(ed, "converter-error|torch.export.export + run_decompositions: RuntimeError: boom") == 1, "an error's");
  CHECK(refusals_rank_quick(ed, "converter-unsupported|torch.export.export + run_decompositions: GuardOnDataDependentSymNode: "
                                "Could not guard on data-dependent expression Eq(…) (…).|baseline:new") == 2,
        "a refusal's (with a baseline mark)");
  /* the budget: a 600-s campaign, share 0.25 (150 s), 80 s spent minimizing 100 s in: over the
   * half errors may take, under the whole wrong values may */
  campaign_opts o = {0};
  o.time_s = 600, o.reduce_share = 0.25, o.reduce_time_s = 30;
  double wrong = campaign_job_allowance_rank(&o, 100, 80, 0), error = campaign_job_allowance_rank(&o, 100, 80, 1),
         refused = campaign_job_allowance_rank(&o, 100, 80, 2);
  CHECK(wrong >= campaign_job_min_start(&o) && error < campaign_job_min_start(&o) && refused < campaign_job_min_start(&o),
        "budget short: a wrong value minimized (%.1f s), an error and a refusal deferred (%.1f s, %.1f s)", wrong, error, refused);
  CHECK(campaign_job_allowance_rank(&o, 100, 10, 1) >= campaign_job_min_start(&o), "budget fresh: an error is minimized too");
  o.reduce_share = 1;
  CHECK(campaign_job_allowance_rank(&o, 100, 500, 1) == campaign_job_allowance(&o, 100, 500), "no cap (--reduce-share 1): no cut");
}

TEST(policy) {
  campaign_opts o = {0};
  gen_policy_default(&o.policy);
  gen_policy p;
  /* certain: every job from iteration 0 */
  campaign_policy_init(&o, conv_find("export-decomp"), NULL);
  campaign_policy_at(&o, 0, 0, &p);
  CHECK(fabs(p.p_if - o.policy.p_if * REFUSALS_FACTOR) < 1e-12, "export-decomp: the if down-weighted from the start (%g)", p.p_if);
  campaign_policy_at(&o, 3, 1000, &p);
  CHECK(fabs(p.p_if - o.policy.p_if * REFUSALS_FACTOR) < 1e-12, "for every job, once (%g)", p.p_if);
  p.p_if = o.policy.p_if;
  CHECK(!memcmp(&p, &o.policy, sizeof p), "nothing else changes");
  cJSON *ep = campaign_policy_epochs();
  CHECK(cJSON_GetArraySize(ep) == 1 && cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(ep, 0), "job")) == -1,
        "one epoch, of every job");
  cJSON_Delete(ep);
  /* learned: the job's own, from the iteration after */
  campaign_policy_init(&o, conv_find("functionalize"), NULL);
  campaign_policy_at(&o, 0, 5, &p);
  CHECK(!memcmp(&p, &o.policy, sizeof p), "functionalize: the campaign's policy");
  campaign_policy_record("{\"job\": 1, \"from\": 10, \"refusal\": \"r\", \"knob\": \"if\", \"policy\": {}}");
  campaign_policy_at(&o, 1, 9, &p);
  CHECK(p.p_if == o.policy.p_if, "job 1 before its epoch");
  campaign_policy_at(&o, 1, 10, &p);
  CHECK(fabs(p.p_if - o.policy.p_if * REFUSALS_FACTOR) < 1e-12, "job 1 from its epoch");
  campaign_policy_at(&o, 0, 50, &p);
  CHECK(p.p_if == o.policy.p_if, "job 0 not");
  /* the record gives it back: a resumed campaign, a restarted job */
  ep = campaign_policy_epochs();
  campaign_policy_init(&o, conv_find("functionalize"), NULL);
  campaign_policy_at(&o, 1, 10, &p);
  CHECK(p.p_if == o.policy.p_if, "a fresh campaign has no epoch");
  campaign_policy_init(&o, conv_find("functionalize"), ep);
  campaign_policy_at(&o, 1, 10, &p);
  CHECK(fabs(p.p_if - o.policy.p_if * REFUSALS_FACTOR) < 1e-12, "loaded: job 1 from its epoch again");
  cJSON_Delete(ep);
  CHECK(refusals_downweight(&p, "no such chance") == -1, "an unknown knob is refused");
}

TEST(exit_status) {
  campaign_summary s = {0};
  CHECK(campaign_exit_status(&s, 0) == 0, "nothing found: 0");
  s.classes = 2, s.limit_classes = 2;
  CHECK(campaign_exit_status(&s, 0) == 0, "limits alone: 0");
  s.deferred = 1, s.deferred_limits = 1;
  CHECK(campaign_exit_status(&s, 0) == 0, "and a deferred refusal: 0");
  s.deferred = 2;
  CHECK(campaign_exit_status(&s, 0) == 1, "a deferred failing program that is no limit: 1");
  s.deferred = 1, s.classes = 3;
  CHECK(campaign_exit_status(&s, 0) == 1, "a bug class beside the limits: 1");
  s.classes = 2, s.harness = 1;
  CHECK(campaign_exit_status(&s, 0) == 5, "limits and a harness finding: 5");
  s.harness = 0, s.new_classes = 1;
  CHECK(campaign_exit_status(&s, 1) == 1, "with a baseline, a new class (a limit the baseline lacks): 1");
  s.new_classes = 0;
  CHECK(campaign_exit_status(&s, 1) == 0, "with a baseline, nothing new: 0");
}

int main(void) {
  RUN(declared);
  RUN(limits);
  RUN(warned);
  RUN(ranks);
  RUN(policy);
  RUN(exit_status);
  return tap_done();
}
