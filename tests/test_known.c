/* test_known.c - known upstream bugs (fuzz/known.h, issue 26).
 *
 *   test_known           the loader refuses malformed cases; known_annotate marks the class that
 *                        fails like a known case and no other, judging each case once; a small campaign whose class fails the
 *                        same way as a known case says "known: <tracker>" in classes.json,
 *                        report.md and report.html, and a class of another bug does not
 *                        ; aliasfuzz's own known bugs, a finding kept in docs/findings/ and a
 *                        gap of corpus/known-gaps/, mark a class that fails like them (with
 *                        their source: "known: aliasfuzz finding docs/findings/NAME", "known gap
 *                        bug-007") and no other, and their loader refuses malformed metadata
 *   test_known cases     every case of corpus/known-upstream/ gives, on every converter its
 *                        meta.known.expect names for this build's stack, the verdict it names
 *                        (a converter not available here is skipped and said so)
 *   test_known ours      the same for every finding of docs/findings/ with an expect.json and
 *                        every gap of corpus/known-gaps/ with a meta.known_gap */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
#include "../reports/report.h"
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

/* Only the upstream cases, for the tests written before ours were matched (known.h). */
static void upstream_only(void) {
  setenv("AF_KNOWN_FINDINGS_DIR", "none", 1);
  setenv("AF_KNOWN_GAPS_DIR", "none", 1);
}

static void known_env_clear(void) {
  unsetenv("AF_KNOWN_DIR");
  unsetenv("AF_KNOWN_FINDINGS_DIR");
  unsetenv("AF_KNOWN_GAPS_DIR");
}

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
static int eq_str(const char *a, const char *b) { return a && b && !strcmp(a, b); }

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
  upstream_only();
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
  /* the case's error without its write (`x.view(torch.bfloat16)` alone, keyed on its error, where
   * the case's key is its write pattern's): the same error is the same bug */
  cJSON_AddItemToArray(arr, class_entry("script", V_ERROR, j47.detail ? j47.detail : "", "view_dtype"));
  CHECK(known_annotate(idx, script, d, 60, &err) == 0, "known_annotate runs (%s)", err.msg);
  CHECK(mark_of(idx, 9) && !strcmp(mark_of(idx, 9), "pytorch/pytorch#47964"),
        "a class refused with pytorch/pytorch#47964's error and no write is known: pytorch/pytorch#47964 (%s)",
        mark_of(idx, 9) ? mark_of(idx, 9) : "none");
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
  known_env_clear();
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
  upstream_only();
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
  known_env_clear();
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
  upstream_only();
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
  known_env_clear();
  rmrf(d);
  free(d);
}

/* ------------------------------------------------------------------ aliasfuzz's own known bugs */

static const char *findings_dir(void) { return AF_SOURCE_DIR "/docs/findings"; }
static const char *gaps_dir(void) { return AF_SOURCE_DIR "/corpus/known-gaps"; }

static void mkdir_p(const char *d) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", d);
  if (system(cmd) != 0) CHECK(0, "%s", cmd);
}

/* The program of file path (a known gap) with its meta replaced by meta (taken; NULL: none), as text, new. */
static char *program_with_meta(const char *path, cJSON *meta) {
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *j = text ? cJSON_Parse(text) : NULL;
  free(text);
  if (!j) {
    cJSON_Delete(meta);
    return NULL;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(j, "meta");
  if (meta) cJSON_AddItemToObject(j, "meta", meta);
  char *out = cJSON_Print(j);
  cJSON_Delete(j);
  return out;
}

/* {at_stack(): {conv: verdict}} */
static cJSON *expect_here(const char *conv, const char *verdict) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(cJSON_AddObjectToObject(e, at_stack()), conv, verdict);
  return e;
}

TEST(loader_reads_our_findings_and_gaps_and_refuses_malformed_metadata) {
  known_corpus kc = {0};
  af_err err;
  CHECK(known_load_ours(findings_dir(), KNOWN_FINDING, &kc, &err) == 0, "docs/findings loads: %s", err.msg);
  int nf = kc.n;
  CHECK(nf >= 25, "at least 25 kept findings carry an expect.json (%d)", nf);
  CHECK(known_load_ours(gaps_dir(), KNOWN_GAP, &kc, &err) == 0, "corpus/known-gaps loads: %s", err.msg);
  CHECK(kc.n - nf >= 9, "at least 9 known gaps carry a meta.known_gap (%d)", kc.n - nf);
  for (int i = 0; i < kc.n; i++) {
    const known_case *k = &kc.cases[i];
    char want[600];
    snprintf(want, sizeof want, "%s/%s", i < nf ? "docs/findings" : "corpus/known-gaps", k->id);
    CHECK(k->source == (i < nf ? KNOWN_FINDING : KNOWN_GAP) && !strcmp(k->mark, want), "%s is marked as %s (%s)", k->id, want, k->mark);
    int listed = 0;
    for (const cJSON *st = k->expect ? k->expect->child : NULL; st; st = st->next) listed += cJSON_GetArraySize(st);
    CHECK(listed > 0, "%s: expect names at least one converter on one stack", k->id);
  }
  known_corpus_clear(&kc);

  static const struct {
    const char *expect, *field; /* expect.json's text (NULL: none, and no repro.json either), what the message names */
  } bad[] = {
      {"{\"expect\": {}}", "expect.json: format"},
      {"{\"format\": \"aliasfuzz-finding-expect/1\", \"expect\": []}", "expect.json: expect"},
      {"{\"format\": \"aliasfuzz-finding-expect/1\", \"expect\": {\"torch-2.13\": {\"iree\": \"broken\"}}}",
       "expect.json: expect.torch-2.13.iree"},
      {"{\"format\": \"aliasfuzz-finding-expect/1\", \"expect\": {}, \"upstream\": {\"url\": \"https://x\"}}",
       "expect.json: upstream.tracker"},
      {"{\"format\": \"aliasfuzz-finding-expect/1\", \"expect\": {}, \"upstream\": {\"tracker\": \"a/b#1\", \"state\": 3}}",
       "expect.json: upstream.state"},
      {"{\"format\": \"aliasfuzz-finding-expect/1\", \"expect\": {}, \"expected\": {}}", "expect.json: expected: not a field"},
      {"{\"format\": \"aliasfuzz-finding-expect/1\", \"expect\": {}, \"covers\": [\"frobnicate@in\"]}", "expect.json: covers[0]"},
      {NULL, "repro.json"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *d = tmpdir(), sub[1100];
    snprintf(sub, sizeof sub, "%s/a-finding", d);
    mkdir_p(sub);
    if (bad[i].expect) {
      write_file(sub, "repro.json", PROGRAM_HEAD "{}}");
      write_file(sub, "expect.json", bad[i].expect);
    } else {
      write_file(sub, "expect.json", "{\"format\": \"aliasfuzz-finding-expect/1\", \"expect\": {}}");
    }
    err.msg[0] = 0;
    int rc = known_load_ours(d, KNOWN_FINDING, &kc, &err);
    CHECK(rc == -1 && strstr(err.msg, bad[i].field) && strstr(err.msg, "a-finding/"),
          "a finding whose %s is bad is refused, naming the file and the field (%s)", bad[i].field, err.msg);
    known_corpus_clear(&kc);
    rmrf(d);
    free(d);
  }
  /* a folder without expect.json marks nothing; a gap without meta.known_gap neither; a gap's bad field is named */
  char *d = tmpdir(), sub[1100];
  snprintf(sub, sizeof sub, "%s/no-expect", d);
  mkdir_p(sub);
  write_file(sub, "repro.json", PROGRAM_HEAD "{}}");
  write_file(d, "gap-1.json", PROGRAM_HEAD "{\"id\": \"gap-1\"}}");
  CHECK(known_load_ours(d, KNOWN_FINDING, &kc, &err) == 0 && kc.n == 0, "a finding without expect.json is no case (%d)", kc.n);
  CHECK(known_load_ours(d, KNOWN_GAP, &kc, &err) == 0 && kc.n == 0, "a gap without meta.known_gap is no case (%d)", kc.n);
  write_file(d, "gap-2.json", PROGRAM_HEAD "{\"id\": \"gap-2\", \"known_gap\": {\"expect\": {\"torch-2.13\": {\"script\": \"nope\"}}}}}");
  err.msg[0] = 0;
  CHECK(known_load_ours(d, KNOWN_GAP, &kc, &err) == -1 && strstr(err.msg, "gap-2.json: meta.known_gap.expect.torch-2.13.script"),
        "a gap with a bad verdict is refused, naming the file and the field (%s)", err.msg);
  write_file(d, "gap-2.json", PROGRAM_HEAD "{\"known_gap\": {\"expect\": {}}}}");
  CHECK(known_load_ours(d, KNOWN_GAP, &kc, &err) == -1 && strstr(err.msg, "gap-2.json: meta.id"), "a gap without an id is refused (%s)",
        err.msg);
  known_corpus_clear(&kc);
  rmrf(d);
  free(d);
}

static const char *field_of(const cJSON *idx, int i, const char *f) {
  return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(idx, "classes"), i), f));
}

struct usable_run {
  known_corpus *kc;
  af_err *err;
  int rc;
};
static void load_usable(void *arg) {
  struct usable_run *u = arg;
  u->rc = known_load_usable(u->kc, u->err);
}
static int count_of(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

/* A finding kept in a findings folder (bug-005's program, TorchScript folding t(t(x)) across an
 * unsqueeze_: shape-mismatch) and a known gap (bug-007, `x[i] %= v` compiled to fmod: wrong
 * values), both with metadata for script on this stack, mark script's classes that fail like them,
 * with their source; a class of another op, of another verdict group, or of a converter their
 * metadata does not name is not marked. No upstream case takes part (AF_KNOWN_DIR is empty). */
TEST(a_finding_and_a_known_gap_mark_the_class_that_fails_like_them_and_no_other) {
  char *d = tmpdir(), fd[1100], gd[1100], kd[1100], sub[1200], cd[1100];
  snprintf(fd, sizeof fd, "%s/findings", d);
  snprintf(gd, sizeof gd, "%s/gaps", d);
  snprintf(kd, sizeof kd, "%s/upstream", d);
  snprintf(cd, sizeof cd, "%s/campaign", d);
  snprintf(sub, sizeof sub, "%s/script-t-of-t-across-unsqueeze", fd);
  mkdir_p(sub);
  mkdir_p(gd);
  mkdir_p(kd);
  mkdir_p(cd);
  char *t = program_with_meta(AF_SOURCE_DIR "/corpus/known-gaps/bug-005-torchscript-t-of-t-across-unsqueeze.json", NULL);
  write_file(sub, "repro.json", t ? t : "");
  free(t);
  cJSON *ex = cJSON_CreateObject();
  cJSON_AddStringToObject(ex, "format", "aliasfuzz-finding-expect/1");
  cJSON_AddItemToObject(ex, "expect", expect_here("script", "shape-mismatch"));
  t = cJSON_Print(ex);
  write_file(sub, "expect.json", t);
  free(t);
  cJSON_Delete(ex);
  cJSON *meta = cJSON_CreateObject(), *g;
  cJSON_AddStringToObject(meta, "id", "bug-007-torchscript-setitem-mod-is-fmod");
  g = cJSON_AddObjectToObject(meta, "known_gap");
  cJSON_AddItemToObject(g, "expect", expect_here("script", "value-mismatch"));
  t = program_with_meta(AF_SOURCE_DIR "/corpus/known-gaps/bug-007-torchscript-setitem-mod-is-fmod.json", meta);
  write_file(gd, "bug-007-torchscript-setitem-mod-is-fmod.json", t ? t : "");
  free(t);
  /* entries that mark nothing, as the real folders hold: READMEs, a finding without expect.json, a
     corpus program without meta.known_gap */
  write_file(fd, "README.md", "# kept findings\n");
  write_file(gd, "README.md", "# known gaps\n");
  snprintf(sub, sizeof sub, "%s/a-finding-without-expect", fd);
  mkdir_p(sub);
  t = program_with_meta(AF_SOURCE_DIR "/corpus/known-gaps/bug-005-torchscript-t-of-t-across-unsqueeze.json", NULL);
  write_file(sub, "repro.json", t ? t : "");
  free(t);
  t = program_with_meta(AF_SOURCE_DIR "/corpus/known-gaps/bug-005-torchscript-t-of-t-across-unsqueeze.json", NULL);
  write_file(gd, "a-program-without-known-gap.json", t ? t : "");
  free(t);
  setenv("AF_KNOWN_DIR", kd, 1);
  setenv("AF_KNOWN_FINDINGS_DIR", fd, 1);
  setenv("AF_KNOWN_GAPS_DIR", gd, 1);

  known_corpus kc = {0};
  af_err err;
  /* a gap this build cannot read (an op it does not know): the loader refuses it, the campaigns'
     loader leaves it out and keeps the others */
  write_file(gd, "bug-999-unreadable.json", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [], \"body\": "
                                            "[{\"op\": \"no_such_op\", \"args\": []}], \"outputs\": []}");
  CHECK(known_load_all(&kc, &err) != 0 && strstr(err.msg, "bug-999-unreadable.json"), "refused, named: %s", err.msg);
  known_corpus_clear(&kc);
  struct usable_run ur = {&kc, &err, -1};
  char *said = tap_capture_stderr(load_usable, &ur);
  CHECK(ur.rc == 0 && kc.n == 2, "the campaigns' loader leaves it out (%d: %s)", kc.n, err.msg);
  CHECK(count_of(said, "left out") == 1 && strstr(said, "bug-999-unreadable.json"), "and says so once, naming it: %s", said);
  free(said);
  known_corpus_clear(&kc);
  char bad[4200];
  snprintf(bad, sizeof bad, "%s/bug-999-unreadable.json", gd);
  unlink(bad);
  CHECK(known_load_all(&kc, &err) == 0 && kc.n == 2, "one finding and one gap load (%d: %s)", kc.n, err.msg);
  char *pf = kc.n == 2 ? classes_plain_pattern(kc.cases[0].p) : NULL, *pg = kc.n == 2 ? classes_plain_pattern(kc.cases[1].p) : NULL;
  known_corpus_clear(&kc);
  if (!pf || !pg) {
    free(pf);
    free(pg);
    known_env_clear();
    rmrf(d);
    free(d);
    return;
  }
  printf("# the finding's pattern `%s`, the gap's `%s`\n", pf, pg);
  /* the same class, one of another op: the gap's pattern with setitem_mod made setitem_add */
  char other[512];
  snprintf(other, sizeof other, "%s", pg);
  char *m = strstr(other, "setitem_mod");
  if (m) memcpy(m, "setitem_add", 11);
  const conv_converter *script = conv_find("script");
  cJSON *idx = cJSON_CreateObject();
  cJSON *arr = cJSON_AddArrayToObject(idx, "classes");
  cJSON_AddItemToArray(arr, class_entry("script", V_VALUE_MISMATCH, "output 0 (r): element 8 is -1, eager 0.5", pg));
  cJSON_AddItemToArray(arr, class_entry("script", V_SHAPE_MISMATCH, "output 0 (v): shape [3, 1], eager [1, 3]", pf));
  cJSON_AddItemToArray(arr, class_entry("script", V_VALUE_MISMATCH, "", other));
  cJSON_AddItemToArray(arr, class_entry("script", V_ERROR, "RuntimeError: expected a tensor of 3 dimensions", pg));
  cJSON_AddItemToArray(arr, class_entry("jit", V_VALUE_MISMATCH, "", pg));
  cJSON_AddItemToArray(arr, class_entry("script", V_VALUE_MISMATCH, "", "write@in"));
  CHECK(script && known_annotate(idx, script, cd, 60, &err) == 0, "known_annotate runs (%s)", err.msg);
  CHECK(eq_str(field_of(idx, 0, "known"), "corpus/known-gaps/bug-007-torchscript-setitem-mod-is-fmod") &&
            eq_str(field_of(idx, 0, "known_source"), "known-gap") && eq_str(field_of(idx, 0, "known_case"), "bug-007-torchscript-setitem-mod-is-fmod") &&
            !field_of(idx, 0, "known_upstream") && !field_of(idx, 0, "known_state"),
        "the class of bug-007's wrong values is the known gap (%s, %s)", field_of(idx, 0, "known") ? field_of(idx, 0, "known") : "not known",
        field_of(idx, 0, "known_source") ? field_of(idx, 0, "known_source") : "-");
  CHECK(eq_str(field_of(idx, 1, "known"), "docs/findings/script-t-of-t-across-unsqueeze") && eq_str(field_of(idx, 1, "known_source"), "finding"),
        "the class of the finding's shape-mismatch is the finding (%s)", field_of(idx, 1, "known") ? field_of(idx, 1, "known") : "not known");
  CHECK(!field_of(idx, 2, "known"), "%s (another op) is not known (%s)", other, field_of(idx, 2, "known") ? field_of(idx, 2, "known") : "");
  CHECK(!field_of(idx, 3, "known"), "a converter error of the gap's pattern is not the gap (%s)",
        field_of(idx, 3, "known") ? field_of(idx, 3, "known") : "");
  CHECK(eq_str(field_of(idx, 4, "known"), "stale/mark#1"), "a class of a converter the metadata does not name is left as it was");
  CHECK(!field_of(idx, 5, "known"), "write@in, more general than the gap, is not known (%s)", field_of(idx, 5, "known") ? field_of(idx, 5, "known") : "");
  /* each judged once, in the campaign folder's known.json, slots apart from the upstream cases' */
  cJSON *kj = tap_load_json(cd, "known.json");
  const cJSON *js = cJSON_GetObjectItem(kj, "judgements");
  CHECK(cJSON_GetArraySize(js) == 2 && cJSON_GetObjectItem(js, "known-gap:bug-007-torchscript-setitem-mod-is-fmod|script") &&
            cJSON_GetObjectItem(js, "finding:script-t-of-t-across-unsqueeze|script"),
        "known.json keeps one judgement of each, on script only (%d)", cJSON_GetArraySize(js));
  cJSON_Delete(kj);
  /* the reports say which source: ours, not filed upstream */
  af_buf b = {0};
  report_class_title(&b, cJSON_GetArrayItem(arr, 0));
  report_class_facts(&b, cJSON_GetArrayItem(arr, 0));
  report_class_title(&b, cJSON_GetArrayItem(arr, 1));
  report_class_facts(&b, cJSON_GetArrayItem(arr, 1));
  CHECK(b.s && strstr(b.s, "(known gap bug-007)") && strstr(b.s, "(known: aliasfuzz finding docs/findings/script-t-of-t-across-unsqueeze)") &&
            strstr(b.s, "not filed upstream") && !strstr(b.s, "corpus/known-upstream"),
        "report.md's title and facts say known gap / aliasfuzz finding, not filed upstream:\n%s", b.s ? b.s : "");
  af_buf_free(&b);
  CHECK(report_class_group(cJSON_GetArrayItem(arr, 0)) == REPORT_KNOWN && !known_is_upstream(cJSON_GetArrayItem(arr, 0)),
        "a class known to aliasfuzz is listed with the known ones, not as known upstream");
  cJSON_Delete(idx);

  /* a finding whose README names an upstream report says so */
  ex = cJSON_CreateObject();
  cJSON_AddStringToObject(ex, "format", "aliasfuzz-finding-expect/1");
  cJSON_AddItemToObject(ex, "expect", expect_here("script", "shape-mismatch"));
  cJSON *up = cJSON_AddObjectToObject(ex, "upstream");
  cJSON_AddStringToObject(up, "tracker", "test/t#5");
  cJSON_AddStringToObject(up, "url", "https://example.org/t/5");
  cJSON_AddStringToObject(up, "state", "open");
  t = cJSON_Print(ex);
  write_file(sub, "expect.json", t);
  free(t);
  cJSON_Delete(ex);
  idx = cJSON_CreateObject();
  arr = cJSON_AddArrayToObject(idx, "classes");
  cJSON_AddItemToArray(arr, class_entry("script", V_SHAPE_MISMATCH, "output 0 (v): shape [3, 1], eager [1, 3]", pf));
  CHECK(known_annotate(idx, script, cd, 60, &err) == 0 && eq_str(field_of(idx, 0, "known_source"), "finding") &&
            eq_str(field_of(idx, 0, "known_upstream"), "test/t#5") && eq_str(field_of(idx, 0, "known_state"), "open"),
        "a finding that names its upstream report: known_upstream test/t#5 (%s)",
        field_of(idx, 0, "known_upstream") ? field_of(idx, 0, "known_upstream") : "none");
  b = (af_buf){0};
  report_class_facts(&b, cJSON_GetArrayItem(arr, 0));
  CHECK(b.s && strstr(b.s, "upstream: [test/t#5](https://example.org/t/5) (open)") && !strstr(b.s, "not filed"),
        "and report.md says which: %s", b.s ? b.s : "");
  af_buf_free(&b);
  cJSON_Delete(idx);
  free(pf);
  free(pg);
  known_env_clear();
  rmrf(d);
  free(d);
}

/* ------------------------------------------------------------------ every case, as its metadata says */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every (case, converter) pair kc's metadata names for this build's stack judged as it says; a
 * converter not available here is skipped and said so. Each pair's seconds are printed (a slow
 * converter shows). */
static void corpus_reproduces(const known_corpus *kc) {
  af_err err;
  int checked = 0;
  for (int i = 0; i < kc->n; i++) {
    const known_case *k = &kc->cases[i];
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
      double t0 = now_s();
      if (known_judge(c, k->p, 300, 0, &j, &err)) {
        CHECK(0, "%s on %s: judged (%s)", k->id, c->name, err.msg);
        continue;
      }
      CHECK(!strcmp(oracle_verdict_name(j.verdict), e->valuestring), "%s (%s) on %s, %s: %s as its metadata says (got %s: %.300s)",
            k->id, k->mark, c->name, at_stack(), e->valuestring, oracle_verdict_name(j.verdict), j.detail ? j.detail : "");
      printf("# %s on %s: %s, %.1f s\n", k->id, c->name, oracle_verdict_name(j.verdict), now_s() - t0);
      judgement_clear(&j);
      checked++;
    }
  }
  printf("# %d (case, converter) pairs checked on %s\n", checked, at_stack());
}

static void cases_reproduce(void) {
  known_corpus kc = {0};
  af_err err;
  if (known_load(corpus_dir(), &kc, &err)) {
    CHECK(0, "corpus/known-upstream loads: %s", err.msg);
    return;
  }
  corpus_reproduces(&kc);
  known_corpus_clear(&kc);
}

/* docs/findings/ (expect.json) and corpus/known-gaps/ (meta.known_gap) */
static void ours_reproduce(void) {
  known_corpus kc = {0};
  af_err err;
  if (known_load_ours(findings_dir(), KNOWN_FINDING, &kc, &err) || known_load_ours(gaps_dir(), KNOWN_GAP, &kc, &err)) {
    CHECK(0, "docs/findings and corpus/known-gaps load: %s", err.msg);
    known_corpus_clear(&kc);
    return;
  }
  corpus_reproduces(&kc);
  known_corpus_clear(&kc);
}

TEST(every_known_case_reproduces_as_its_metadata_says) { cases_reproduce(); }

TEST(every_finding_and_gap_with_metadata_reproduces_as_it_says) { ours_reproduce(); }

/* ------------------------------------------------------------------ a campaign that meets one */

/* TorchScript drops `x[i] |= v` (pytorch/pytorch#68064): a script campaign that draws setitem_or
 * often makes a class of it, which the known case of that report matches; the campaign's other
 * classes (other TorchScript gaps) are not marked. */
TEST(a_campaign_class_that_fails_like_a_known_case_says_known) {
  char *d = tmpdir();
  setenv("AF_KNOWN_DIR", corpus_dir(), 1);
  upstream_only();
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
  cJSON *idx = tap_load_json(d, "classes.json"), *cls;
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
  cJSON *kj = tap_load_json(d, "known.json");
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
  known_env_clear();
  rmrf(d);
  free(d);
}

/* A mode of a converter (aot_eager-dynamic: named after aot_eager, with a switch back to it) takes
 * the cases of the converter it is a mode of, judged on the mode itself: pytorch/pytorch#185497's
 * case lists aot_eager only, and an aot_eager-dynamic class of its write is known; a class of
 * another write is not. The case is judged on aot_eager-dynamic (known.json holds that judgement). */
TEST(a_mode_takes_the_cases_of_the_converter_it_is_a_mode_of) {
  const conv_converter *c = conv_find("aot_eager-dynamic");
  const char *why = NULL;
  if (!c || !c->available(c, &why)) {
    printf("# SKIP aot_eager-dynamic is not available here: %s\n", why ? why : "not registered");
    return;
  }
  char *d = tmpdir(), *kd = tap_tmpdir("af_known_cases");
  char *text = codec_slurp(AF_SOURCE_DIR "/corpus/known-upstream/pytorch-185497-write-into-an-input-view-of-a-non-leaf.json", NULL, NULL);
  CHECK(text != NULL, "pytorch/pytorch#185497's case is there");
  if (text) write_file(kd, "pytorch-185497.json", text);
  free(text);
  setenv("AF_KNOWN_DIR", kd, 1);
  upstream_only();
  cJSON *idx = cJSON_CreateObject();
  cJSON *arr = cJSON_AddArrayToObject(idx, "classes");
  const char *saved = "saved-modified: the converter's autograd refuses the program, eager ran it and its backward";
  cJSON_AddItemToArray(arr, class_entry("aot_eager-dynamic", V_AUTOGRAD_REJECTS, saved, "arcsin_@in"));
  cJSON_AddItemToArray(arr, class_entry("aot_eager-dynamic", V_AUTOGRAD_REJECTS, saved, "setitem_add@tmp"));
  af_err err;
  CHECK(known_annotate(idx, c, d, 120, &err) == 0, "known_annotate runs on aot_eager-dynamic (%s)", err.msg);
  const char *m0 = mark_of(idx, 0), *m1 = mark_of(idx, 1);
  CHECK(m0 && !strcmp(m0, "pytorch/pytorch#185497"), "arcsin_@in on the mode is pytorch/pytorch#185497 (%s)", m0 ? m0 : "not known");
  CHECK(!m1, "setitem_add@tmp is not (%s)", m1 ? m1 : "");
  char path[1024];
  snprintf(path, sizeof path, "%s/known.json", d);
  char *kj = codec_slurp(path, NULL, NULL);
  CHECK(kj && strstr(kj, "aot_eager-dynamic"), "the case was judged on the mode itself: %.300s", kj ? kj : "(no known.json)");
  free(kj);
  cJSON_Delete(idx);
  known_env_clear();
  rmrf(d);
  rmrf(kd);
  free(d);
  free(kd);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "cases")) {
    RUN(every_known_case_reproduces_as_its_metadata_says);
    return tap_done();
  }
  if (argc > 1 && !strcmp(argv[1], "ours")) {
    RUN(every_finding_and_gap_with_metadata_reproduces_as_it_says);
    return tap_done();
  }
  if (argc > 1 && !strcmp(argv[1], "modes")) {
    RUN(a_mode_takes_the_cases_of_the_converter_it_is_a_mode_of);
    return tap_done();
  }
  RUN(loader_reads_the_corpus_and_refuses_malformed_cases);
  RUN(known_annotate_marks_the_class_that_fails_like_a_known_case_and_no_other);
  RUN(a_class_of_a_write_the_case_covers_is_known_and_one_broader_is_not);
  RUN(the_classes_of_one_known_bug_fold_into_one);
  RUN(loader_reads_our_findings_and_gaps_and_refuses_malformed_metadata);
  RUN(a_finding_and_a_known_gap_mark_the_class_that_fails_like_them_and_no_other);
  RUN(a_campaign_class_that_fails_like_a_known_case_says_known);
  return tap_done();
}
