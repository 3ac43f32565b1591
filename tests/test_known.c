/* test_known.c - known upstream bugs (fuzz/known.h, issue 26).
 *
 *   test_known           the loader refuses malformed cases; known_annotate marks the class that
 *                        fails like a known case and no other, judging each case once; a small campaign whose class fails the
 *                        same way as a known case says "known: <tracker>" in classes.json,
 *                        report.md and report.html, and a class of another bug does not
 *   test_known cases     every case of corpus/known-upstream/ gives, on every converter its
 *                        meta.known.expect names for this build's stack, the verdict it names
 *                        (a converter not available here is skipped and said so) */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../fuzz/campaign.h"
#include "../fuzz/classes.h"
#include "../fuzz/judge.h"
#include "../fuzz/known.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/ops/ops.h"
#include "../harness/torch/shim.h"
#include "tap.h"

static char *tmpdir(void) { return tap_tmpdir("af_known"); }

static void rmrf(const char *d) { tap_rmrf(d); }

static void write_file(const char *dir, const char *name, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static const char *corpus_dir(void) { return AF_SOURCE_DIR "/corpus/known-upstream"; }

/* ------------------------------------------------------------------ the loader */

#define PROGRAM_HEAD                                                                                                   \
  "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\"}],"   \
  " \"body\": [{\"op\": \"add_\", \"args\": [\"x\", 1]}], \"outputs\": [], \"meta\": "

TEST(loader_reads_the_corpus_and_refuses_malformed_cases) {
  known_corpus kc = {0};
  af_err err;
  CHECK(known_load(corpus_dir(), &kc, &err) == 0, "corpus/known-upstream loads: %s", err.msg);
  CHECK(kc.n >= 15, "at least 15 known cases (%d)", kc.n);
  for (int i = 0; i < kc.n; i++) {
    const known_case *k = &kc.cases[i];
    CHECK(strchr(k->tracker, '#') != NULL, "%s: tracker %s is owner/repo#number", k->id, k->tracker);
    int listed = 0;
    for (const cJSON *s = k->expect ? k->expect->child : NULL; s; s = s->next) listed += cJSON_GetArraySize(s);
    CHECK(listed > 0, "%s: expect names at least one converter on one stack", k->id);
  }
  known_corpus_clear(&kc);

  static const struct {
    const char *meta, *field;
  } bad[] = {
      {"{\"id\": \"k\"}", "meta.known"},
      {"{\"id\": \"k\", \"known\": {\"state\": \"open\", \"mechanism\": \"m\", \"expect\": {}}}", "meta.known.tracker"},
      {"{\"id\": \"k\", \"known\": {\"tracker\": \"a/b#1\", \"state\": \"open\", \"mechanism\": \"m\", \"expect\": []}}",
       "meta.known.expect"},
      {"{\"id\": \"k\", \"known\": {\"tracker\": \"a/b#1\", \"state\": \"open\", \"mechanism\": \"m\","
       " \"expect\": {\"torch-2.13\": {\"script\": \"broken\"}}}}",
       "meta.known.expect.torch-2.13.script"},
      {"{\"known\": {\"tracker\": \"a/b#1\", \"state\": \"open\", \"mechanism\": \"m\", \"expect\": {}}}", "meta.id"},
      {"{\"id\": \"k\", \"known\": {\"tracker\": \"a/b#1\", \"state\": \"open\", \"mechanism\": \"m\", \"expect\": {},"
       " \"covers\": \"write@in\"}}",
       "meta.known.covers"},
      {"{\"id\": \"k\", \"known\": {\"tracker\": \"a/b#1\", \"state\": \"open\", \"mechanism\": \"m\", \"expect\": {},"
       " \"covers\": [\"frobnicate@in\"]}}",
       "meta.known.covers[0]: token `frobnicate@in`"},
      /* a cover that does not hold the case's own add_@in */
      {"{\"id\": \"k\", \"known\": {\"tracker\": \"a/b#1\", \"state\": \"open\", \"mechanism\": \"m\", \"expect\": {},"
       " \"covers\": [\"unfold write@view-of-in\"]}}",
       "meta.known.covers: no pattern there covers"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *d = tmpdir();
    char text[1024];
    snprintf(text, sizeof text, PROGRAM_HEAD "%s}", bad[i].meta);
    write_file(d, "case.json", text);
    err.msg[0] = 0;
    int rc = known_load(d, &kc, &err);
    CHECK(rc == -1 && strstr(err.msg, bad[i].field) && strstr(err.msg, "case.json"),
          "a case with a bad %s is refused, naming the file and the field (%s)", bad[i].field, err.msg);
    known_corpus_clear(&kc);
    rmrf(d);
    free(d);
  }
}

/* ------------------------------------------------------------------ matching */

/* A class entry as classes.h makes them: its key, verdict and detail (what it gave). */
static cJSON *class_entry(const char *conv, oracle_verdict v, const char *detail, const char *pattern) {
  cJSON *c = cJSON_CreateObject();
  char *key = classes_key(conv, v, detail, pattern);
  cJSON_AddStringToObject(c, "id", key);
  cJSON_AddStringToObject(c, "converter", conv);
  cJSON_AddStringToObject(c, "key", key);
  cJSON_AddStringToObject(c, "verdict", oracle_verdict_name(v));
  cJSON_AddItemToObject(c, "verdicts", cJSON_CreateStringArray((const char *const[]){oracle_verdict_name(v)}, 1));
  cJSON_AddStringToObject(c, "detail", detail);
  cJSON_AddStringToObject(c, "known", "stale/mark#1"); /* a mark from before: redone */
  free(key);
  return c;
}

static const char *mark_of(const cJSON *idx, int i) {
  return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(idx, "classes"), i), "known"));
}

/* Classes as fuzz/classes.h makes them, matched against what the known cases give on script: the
 * classes of wrong values whose pattern contains pytorch/pytorch#68064's case's are marked, and a
 * class refused with pytorch/pytorch#47964's case's error whatever its pattern; no class of
 * another op, verdict group, kind of failure (an error where the case gives wrong values) or
 * converter; the judgements are cached in the campaign folder. */
TEST(known_annotate_marks_the_class_that_fails_like_a_known_case_and_no_other) {
  char *d = tmpdir();
  setenv("AF_KNOWN_DIR", corpus_dir(), 1);
  const conv_converter *script = conv_find("script");
  /* what script says on pytorch/pytorch#47964's case: a class of that error is known whatever its pattern */
  known_corpus kc = {0};
  judgement j47 = {0};
  af_err err;
  CHECK(known_load(corpus_dir(), &kc, &err) == 0, "the corpus loads (%s)", err.msg);
  for (int i = 0; i < kc.n; i++)
    if (!strcmp(kc.cases[i].tracker, "pytorch/pytorch#47964")) known_judge(script, kc.cases[i].p, 60, 0, &j47, &err);
  CHECK(j47.verdict == V_ERROR && j47.detail, "script refuses pytorch/pytorch#47964's case (%s)", oracle_verdict_name(j47.verdict));
  cJSON *idx = cJSON_CreateObject();
  cJSON *arr = cJSON_AddArrayToObject(idx, "classes");
  cJSON_AddItemToArray(arr, class_entry("script", V_VALUE_MISMATCH, "output 0: element 1 is 2, eager 3", "setitem_or@in"));
  cJSON_AddItemToArray(arr, class_entry("script", V_VALUE_MISMATCH, "", "slice setitem_or@in mul"));
  cJSON_AddItemToArray(arr, class_entry("script", V_VALUE_MISMATCH, "", "setitem_add@in"));
  cJSON_AddItemToArray(arr, class_entry("script", V_ERROR, "RuntimeError: expected a tensor of 3 dimensions", ""));
  cJSON_AddItemToArray(arr, class_entry("jit", V_VALUE_MISMATCH, "", "setitem_or@in"));
  /* an error downstream of the same write keys on the pattern too, but is not the dropped write */
  cJSON_AddItemToArray(arr, class_entry("script", V_ERROR, "RuntimeError: expected a tensor of 3 dimensions", "setitem_or@in"));
  cJSON_AddItemToArray(arr, class_entry("script", V_ERROR, j47.detail ? j47.detail : "", "view add_@view-of-in"));
  /* a class more general than the case (a family where the case names its op) is not the case's bug */
  cJSON_AddItemToArray(arr, class_entry("script", V_VALUE_MISMATCH, "", "write@in"));
  /* nor one that writes more than the case does */
  cJSON_AddItemToArray(arr, class_entry("script", V_VALUE_MISMATCH, "", "view setitem_or@in add_@view-of-in"));
  CHECK(known_annotate(idx, script, d, 60, &err) == 0, "known_annotate runs (%s)", err.msg);
  CHECK(!mark_of(idx, 7), "write@in is not pytorch/pytorch#68064's setitem_or@in (%s)", mark_of(idx, 7) ? mark_of(idx, 7) : "");
  CHECK(!mark_of(idx, 8), "a class with a write more than setitem_or@in is not pytorch/pytorch#68064 (%s)", mark_of(idx, 8) ? mark_of(idx, 8) : "");
  const char *m0 = mark_of(idx, 0), *m1 = mark_of(idx, 1);
  CHECK(m0 && !strcmp(m0, "pytorch/pytorch#68064"), "setitem_or@in (value-mismatch) is known: pytorch/pytorch#68064 (%s)",
        m0 ? m0 : "none");
  CHECK(m1 && !strcmp(m1, "pytorch/pytorch#68064"), "a class whose pattern contains the case's is known too (%s)", m1 ? m1 : "none");
  CHECK(!mark_of(idx, 2), "setitem_add@in (another op) is not known (%s)", mark_of(idx, 2) ? mark_of(idx, 2) : "");
  CHECK(!mark_of(idx, 3), "a converter-error keyed by its error (another verdict group) is not known (%s)", mark_of(idx, 3) ? mark_of(idx, 3) : "");
  CHECK(mark_of(idx, 4) && !strcmp(mark_of(idx, 4), "stale/mark#1"), "a class of another converter is left as it was");
  CHECK(!mark_of(idx, 5), "a converter-error class of setitem_or@in is not the dropped write's (%s)", mark_of(idx, 5) ? mark_of(idx, 5) : "");
  CHECK(mark_of(idx, 6) && !strcmp(mark_of(idx, 6), "pytorch/pytorch#47964"),
        "a class refused with the error of pytorch/pytorch#47964's case is known: pytorch/pytorch#47964 (%s)",
        mark_of(idx, 6) ? mark_of(idx, 6) : "none");
  cJSON *kj = NULL;
  {
    char path[1024];
    snprintf(path, sizeof path, "%s/known.json", d);
    char *text = codec_slurp(path, NULL, NULL);
    kj = text ? cJSON_Parse(text) : NULL;
    free(text);
    struct stat st1, st2;
    CHECK(stat(path, &st1) == 0 && cJSON_GetArraySize(cJSON_GetObjectItem(kj, "judgements")) == 2,
          "known.json keeps the 2 judgements of script's cases");
    sleep(1);
    CHECK(known_annotate(idx, script, d, 60, &err) == 0, "known_annotate runs again (%s)", err.msg);
    CHECK(stat(path, &st2) == 0 && st2.st_mtime == st1.st_mtime, "again, nothing is judged: known.json is not rewritten");
    m0 = mark_of(idx, 0);
    CHECK(m0 && !strcmp(m0, "pytorch/pytorch#68064"), "and the class is still known (%s)", m0 ? m0 : "none");
  }
  /* one failure outside a campaign (check's): the same rule through known_match_key */
  char *t = NULL;
  CHECK(known_match_key(script, V_VALUE_MISMATCH, "", "setitem_or@in", d, 60, &t, &err) == 0 && t && !strcmp(t, "pytorch/pytorch#68064"),
        "known_match_key: setitem_or@in on script is pytorch/pytorch#68064 (%s)", t ? t : "none");
  free(t);
  t = NULL;
  CHECK(known_match_key(script, V_VALUE_MISMATCH, "", "setitem_add@in", d, 60, &t, &err) == 0 && !t,
        "known_match_key: setitem_add@in is no known bug (%s)",
        t ? t : "none");
  free(t);
  cJSON_Delete(kj);
  cJSON_Delete(idx);
  judgement_clear(&j47);
  known_corpus_clear(&kc);
  unsetenv("AF_KNOWN_DIR");
  rmrf(d);
  free(d);
}

/* A report whose mechanism is a family's says so in meta.known.covers (pytorch/pytorch#198102: any
 * write through a gapped unfold; #197448: any write through expand): a class of another write
 * there, or widened to the family, is that report's bug; a class broader than the cover (a write
 * through any view), through another view, or with more writes is not. Judged on functionalize,
 * where both cases give wrong values. */
TEST(a_class_of_a_write_the_case_covers_is_known_and_one_broader_is_not) {
  char *d = tmpdir();
  setenv("AF_KNOWN_DIR", corpus_dir(), 1);
  const conv_converter *fz = conv_find("functionalize");
  CHECK(classes_pattern_covers("unfold write@view-of-in", "view unfold masked_fill_@view-of-in") &&
            !classes_pattern_covers("unfold add_@view-of-in", "unfold write@view-of-in") &&
            !classes_pattern_covers("unfold write@view-of-in", "unfold add_@view-of-in fill_@in"),
        "a family covers its ops, an op never a family, and the writes are as many");
  cJSON *idx = cJSON_CreateObject();
  cJSON *arr = cJSON_AddArrayToObject(idx, "classes");
  static const char *const pats[] = {"unfold write@view-of-in", "unfold masked_fill_@view-of-in", "expand_as mul_@view-of-in",
                                     "write@view-of-in", "diagonal write@view-of-in", "unfold add_@view-of-in fill_@view-of-in", NULL};
  for (int i = 0; pats[i]; i++) cJSON_AddItemToArray(arr, class_entry("functionalize", V_VALUE_MISMATCH, "", pats[i]));
  af_err err;
  CHECK(fz && known_annotate(idx, fz, d, 60, &err) == 0, "known_annotate runs on functionalize (%s)", fz ? err.msg : "no converter");
  static const char *const want[] = {"pytorch/pytorch#198102", "pytorch/pytorch#198102", "pytorch/pytorch#197448", NULL, NULL, NULL};
  for (int i = 0; pats[i]; i++) {
    const char *m = mark_of(idx, i);
    CHECK(want[i] ? m && !strcmp(m, want[i]) : !m, "%s: %s (want %s)", pats[i], m ? m : "not known", want[i] ? want[i] : "not known");
  }
  cJSON_Delete(idx);
  unsetenv("AF_KNOWN_DIR");
  rmrf(d);
  free(d);
}

/* One known bug is one class (known_fold): pytorch/pytorch#198102's case marks `unfold write@view-of-in`
 * and `unfold write@view` (two placements its covers name), and `unfold add_@view index_put_@in` (a
 * later write into the input that carried the zeros out) holds a cover with a write beside it: the
 * three are one class, the first marked, which lists the others under "absorbed"; a class of another
 * view, of another converter, or of another verdict group stays. Without the case's own class the
 * one with the extra write is neither marked nor folded (it may be another bug). */
TEST(the_classes_of_one_known_bug_fold_into_one) {
  char *d = tmpdir();
  setenv("AF_KNOWN_DIR", corpus_dir(), 1);
  const conv_converter *fz = conv_find("functionalize");
  CHECK(classes_pattern_covers_within("unfold write@view", "unfold add_@view index_put_@in") &&
            !classes_pattern_covers("unfold write@view", "unfold add_@view index_put_@in") &&
            !classes_pattern_covers_within("unfold write@view", "diagonal add_@view index_put_@in"),
        "a cover within a pattern with a write more");
  cJSON *idx = cJSON_CreateObject();
  cJSON *arr = cJSON_AddArrayToObject(idx, "classes");
  static const char *const pats[] = {"unfold write@view-of-in", "unfold add_@view index_put_@in", "diagonal write@view-of-in",
                                     "unfold write@view", NULL};
  for (int i = 0; pats[i]; i++) cJSON_AddItemToArray(arr, class_entry("functionalize", V_VALUE_MISMATCH, "", pats[i]));
  cJSON_AddItemToArray(arr, class_entry("jit", V_VALUE_MISMATCH, "", "unfold write@view"));
  cJSON_AddItemToArray(arr, class_entry("functionalize", V_TIMEOUT, "", "unfold write@view"));
  for (int i = 0; i < cJSON_GetArraySize(arr); i++) { /* what fold_into adds up */
    cJSON *c = cJSON_GetArrayItem(arr, i);
    cJSON_AddNumberToObject(c, "count", i + 1);
    cJSON_AddNumberToObject(c, "statements", 5 - i % 3);
    cJSON_AddItemToObject(c, "findings", cJSON_CreateStringArray((const char *const[]){pats[i % 4]}, 1));
  }
  af_err err;
  CHECK(fz && known_annotate(idx, fz, d, 60, &err) == 0, "known_annotate runs on functionalize (%s)", fz ? err.msg : "no converter");
  CHECK(mark_of(idx, 0) && mark_of(idx, 3) && !strcmp(mark_of(idx, 0), "pytorch/pytorch#198102") &&
            !strcmp(mark_of(idx, 3), "pytorch/pytorch#198102") && !mark_of(idx, 1),
        "both placements marked, the class with a write more not (%s, %s, %s)", mark_of(idx, 0) ? mark_of(idx, 0) : "-",
        mark_of(idx, 3) ? mark_of(idx, 3) : "-", mark_of(idx, 1) ? mark_of(idx, 1) : "-");
  CHECK(known_fold(idx, fz, &err) == 2, "two classes folded");
  CHECK(cJSON_GetArraySize(arr) == 4, "four classes left (%d)", cJSON_GetArraySize(arr));
  cJSON *one = cJSON_GetArrayItem(arr, 0);
  const char *k0 = cJSON_GetStringValue(cJSON_GetObjectItem(one, "key"));
  CHECK(k0 && strstr(k0, "|unfold write@view-of-in") && mark_of(idx, 0) && cJSON_GetArraySize(cJSON_GetObjectItem(one, "absorbed")) == 2 &&
            cJSON_GetNumberValue(cJSON_GetObjectItem(one, "count")) == 1 + 2 + 4 &&
            cJSON_GetArraySize(cJSON_GetObjectItem(one, "findings")) == 3,
        "the known class holds the other two (%s)", k0 ? k0 : "-");
  const char *k1 = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 1), "key"));
  CHECK(k1 && strstr(k1, "diagonal write@view-of-in"), "another view's class stays (%s)", k1 ? k1 : "-");
  cJSON_Delete(idx);
  /* the class with a write more, alone */
  idx = cJSON_CreateObject();
  arr = cJSON_AddArrayToObject(idx, "classes");
  cJSON_AddItemToArray(arr, class_entry("functionalize", V_VALUE_MISMATCH, "", "unfold add_@view index_put_@in"));
  cJSON_AddItemToArray(arr, class_entry("functionalize", V_VALUE_MISMATCH, "", "diagonal write@view-of-in"));
  CHECK(known_annotate(idx, fz, d, 60, &err) == 0 && known_fold(idx, fz, &err) == 0 && cJSON_GetArraySize(arr) == 2 && !mark_of(idx, 0),
        "alone, it is neither marked nor folded");
  cJSON_Delete(idx);
  unsetenv("AF_KNOWN_DIR");
  rmrf(d);
  free(d);
}

/* ------------------------------------------------------------------ every case, as its metadata says */

static void cases_reproduce(void) {
  known_corpus kc = {0};
  af_err err;
  if (known_load(corpus_dir(), &kc, &err)) {
    CHECK(0, "corpus/known-upstream loads: %s", err.msg);
    return;
  }
  int checked = 0;
  for (int i = 0; i < kc.n; i++) {
    const known_case *k = &kc.cases[i];
    const cJSON *mine = cJSON_GetObjectItem(k->expect, at_stack()), *e;
    cJSON_ArrayForEach(e, mine) {
      const conv_converter *c = conv_find(e->string);
      const char *why = NULL;
      CHECK(c != NULL, "%s: converter %s exists", k->id, e->string);
      if (!c) continue;
      if (!c->available(c, &why)) {
        printf("# skip %s on %s: not available here (%s)\n", k->id, c->name, why ? why : "?");
        continue;
      }
      judgement j = {0};
      if (known_judge(c, k->p, 300, 0, &j, &err)) {
        CHECK(0, "%s on %s: judged (%s)", k->id, c->name, err.msg);
        continue;
      }
      CHECK(!strcmp(oracle_verdict_name(j.verdict), e->valuestring), "%s (%s) on %s, %s: %s as its metadata says (got %s: %.300s)",
            k->id, k->tracker, c->name, at_stack(), e->valuestring, oracle_verdict_name(j.verdict), j.detail ? j.detail : "");
      judgement_clear(&j);
      checked++;
    }
  }
  printf("# %d (case, converter) pairs checked on %s\n", checked, at_stack());
  known_corpus_clear(&kc);
}

TEST(every_known_case_reproduces_as_its_metadata_says) { cases_reproduce(); }

/* ------------------------------------------------------------------ a campaign that meets one */

static cJSON *load_json_file(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *j = text ? cJSON_Parse(text) : NULL;
  free(text);
  return j;
}

/* TorchScript drops `x[i] |= v` (pytorch/pytorch#68064): a script campaign that draws setitem_or
 * often makes a class of it, which the known case of that report matches; the campaign's other
 * classes (other TorchScript gaps) are not marked. */
TEST(a_campaign_class_that_fails_like_a_known_case_says_known) {
  char *d = tmpdir();
  setenv("AF_KNOWN_DIR", corpus_dir(), 1);
  campaign_opts o = {0};
  o.converter = "script";
  o.seed = 1;
  o.iterations = 40;
  o.jobs = 1;
  o.out = d;
  o.reduce_share = 1;
  o.no_triggers = 1;
  gen_policy_default(&o.policy);
  o.policy.op_weight[OPS_setitem_or] = 40;
  o.policy_json = gen_policy_to_json(&o.policy);
  campaign_summary s;
  af_err err;
  int rc = campaign_run(&o, &s, &err);
  free(o.policy_json);
  CHECK(rc >= 0, "the campaign runs (%s)", rc < 0 ? err.msg : "");
  cJSON *idx = load_json_file(d, "classes.json"), *cls;
  int known = 0, others = 0;
  const char *known_id = NULL;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
    const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(cls, "known"));
    const char *pat = cJSON_GetStringValue(cJSON_GetObjectItem(cls, "pattern"));
    if (k && !strcmp(k, "pytorch/pytorch#68064")) {
      known++;
      known_id = cJSON_GetStringValue(cJSON_GetObjectItem(cls, "id"));
      CHECK(pat && strstr(pat, "setitem_or"), "the known class is setitem_or's (pattern %s)", pat ? pat : "?");
    } else {
      CHECK(!k, "a class of another bug (%s) is not marked known (%s)", pat ? pat : "?", k ? k : "");
      others += !k;
    }
  }
  CHECK(known >= 1, "a class says known: pytorch/pytorch#68064 (%d class(es), %d others)", known, others);
  cJSON *kj = load_json_file(d, "known.json");
  CHECK(kj && cJSON_GetObjectItem(kj, "judgements"), "the known cases' judgements are kept in known.json");
  char path[1024];
  snprintf(path, sizeof path, "%s/report.md", d);
  char *md = codec_slurp(path, NULL, NULL);
  CHECK(md && strstr(md, "known: pytorch/pytorch#68064"), "report.md says known: pytorch/pytorch#68064");
  if (md && known_id) {
    /* listed after the new ones: no unmarked class's section comes after a known one */
    const char *sections = strstr(md, "\n### "); /* past the classes table, whose rows say "(known: " too */
    const char *first_known = sections ? strstr(sections, "(known: ") : NULL;
    cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
      if (cJSON_GetObjectItem(cls, "known") || cJSON_IsTrue(cJSON_GetObjectItem(cls, "in_baseline"))) continue;
      char head[128];
      snprintf(head, sizeof head, "`%s`:", cJSON_GetStringValue(cJSON_GetObjectItem(cls, "id")));
      const char *at = strstr(md, head);
      CHECK(!at || !first_known || at < first_known, "new class %s is listed before the known ones", head);
    }
  }
  free(md);
  snprintf(path, sizeof path, "%s/report.html", d);
  char *html = codec_slurp(path, NULL, NULL);
  CHECK(html && strstr(html, "Known upstream") && strstr(html, "pytorch/pytorch#68064"),
        "report.html lists the class under Known upstream with its tracker id");
  free(html);
  cJSON_Delete(kj);
  cJSON_Delete(idx);
  unsetenv("AF_KNOWN_DIR");
  rmrf(d);
  free(d);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "cases")) {
    RUN(every_known_case_reproduces_as_its_metadata_says);
    return tap_done();
  }
  RUN(loader_reads_the_corpus_and_refuses_malformed_cases);
  RUN(known_annotate_marks_the_class_that_fails_like_a_known_case_and_no_other);
  RUN(a_class_of_a_write_the_case_covers_is_known_and_one_broader_is_not);
  RUN(the_classes_of_one_known_bug_fold_into_one);
  RUN(a_campaign_class_that_fails_like_a_known_case_says_known);
  return tap_done();
}
