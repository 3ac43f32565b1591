/* test_targets.c - the fuzz targets' shared body (fuzz/targets/target.h): seeds, verdicts that
 * replay through the JSON form, determinism, extra-coverage ids, the environment switches.
 * The engines themselves are exercised by the ctest entries of label fuzz-engine. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fuzz/judge.h"
#include "../fuzz/targets/target.h"
#include "../harness/codec.h"
#include "tap.h"

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  uint8_t *d = malloc(1 << 16);
  *len = fread(d, 1, 1 << 16, f);
  fclose(f);
  return d;
}

static ft_target *make(const char *conv) {
  ft_target *t = NULL;
  af_err err;
  if (ft_target_new(conv, &t, &err)) CHECK(0, "%s", err.msg);
  return t;
}

static int run(ft_target *t, const char *path, ft_outcome *o) {
  size_t len = 0;
  uint8_t *d = slurp(path, &len);
  if (!d) {
    CHECK(0, "%s: cannot read", path);
    memset(o, 0, sizeof *o);
    return -1;
  }
  af_err err;
  int rc = ft_target_run(t, d, len, o, &err);
  if (rc) CHECK(0, "%s: %s", path, err.msg);
  free(d);
  return rc;
}

/* A byte string is a program only for one version of the generator's decisions, so the tests
 * do not keep finding inputs as files: they look for one among deterministic pseudo-random byte
 * strings. Fills buf (256 bytes), returns its length, 0 when none of tries strings has the
 * verdict on the converter. */
static size_t find_input(const char *conv, oracle_verdict want, uint8_t *buf, int tries) {
  ft_target *t = NULL;
  af_err err;
  if (ft_target_new(conv, &t, &err)) return 0;
  uint64_t x = 88172645463325252ull;
  size_t found = 0;
  for (int k = 0; k < tries && !found; k++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    size_t len = 24 + (size_t)(x % 100);
    for (size_t i = 0; i < len; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      buf[i] = (uint8_t)(x >> 32);
    }
    ft_outcome o;
    if (ft_target_run(t, buf, len, &o, &err) == 0) {
      if (o.verdict == want) found = len;
      ft_outcome_clear(&o);
    }
  }
  ft_target_free(t);
  return found;
}

static uint8_t shape_bug[256];
static size_t shape_bug_len;

TEST(a_shape_mismatch_on_naive_is_found_among_random_inputs) {
  shape_bug_len = find_input("naive", V_SHAPE_MISMATCH, shape_bug, 20000);
  CHECK(shape_bug_len > 0, "no shape-mismatch on naive in 20000 random inputs");
}

static int run_shape_bug(ft_target *t, ft_outcome *o) {
  af_err err;
  memset(o, 0, sizeof *o);
  if (!shape_bug_len) return -1;
  int rc = ft_target_run(t, shape_bug, shape_bug_len, o, &err);
  if (rc) CHECK(0, "%s", err.msg);
  return rc;
}

TEST(every_seed_input_replays_without_a_harness_error) {
  /* Seeds are remade when the generator changes (fuzz/targets/make_seeds.sh); whether they
   * still pass is the converters' business (engines are given only passing ones by
   * fuzz/campaign.sh): here the generator must make a program of each and the judge must run. */
  static const char *convs[] = {"jit", "functionalize", "ref", "naive"};
  for (int c = 0; c < 4; c++) {
    ft_target *t = make(convs[c]);
    if (!t) continue;
    char dir[256];
    snprintf(dir, sizeof dir, "corpus/fuzz/%s", convs[c]);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "%s: no seed folder", dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char path[512];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      ft_outcome o;
      if (run(t, path, &o)) continue;
      CHECK(o.verdict != V_INVALID_PROGRAM, "%s: %s %s", path, oracle_verdict_name(o.verdict),
            o.detail ? o.detail : "");
      ft_outcome_clear(&o);
      n++;
    }
    if (d) closedir(d);
    CHECK(n >= 5, "%s: only %d seeds", dir, n);
    ft_target_free(t);
  }
}

TEST(the_naive_shape_bug_input_is_a_finding_with_a_one_line_summary) {
  ft_target *t = make("naive");
  if (!t) return;
  ft_outcome o;
  if (run_shape_bug(t, &o) == 0) {
    CHECK(o.finding && o.verdict == V_SHAPE_MISMATCH, "verdict %s", oracle_verdict_name(o.verdict));
    CHECK(o.summary && strstr(o.summary, "verdict=shape-mismatch converter=naive signature=naive|shape-mismatch|"),
          "summary: %s", o.summary ? o.summary : "(none)");
    CHECK(o.summary && !strchr(o.summary, '\n'), "summary has a newline");
    ft_outcome_clear(&o);
  }
  ft_target_free(t);
}

TEST(the_decoded_program_gives_the_same_verdict_as_the_target) {
  /* what `aliasfuzz gen --bytes F > p.json; aliasfuzz run p.json --converter naive` does */
  size_t len = shape_bug_len;
  const uint8_t *d = shape_bug;
  ir_program *p = NULL, *q = NULL;
  af_err err;
  if (!len) return;
  if (ft_program(d, len, &p, &err)) {
    CHECK(0, "decode: %s", err.msg);
    return;
  }
  char *json = codec_write_string(p);
  CHECK(codec_read_string(json, "decoded", &q, &err) == 0, "%s", err.msg);
  for (int c = 0; q && c < 2; c++) {
    const char *name = c ? "ref" : "naive";
    ft_target *t = make(name);
    ft_outcome o;
    judgement j;
    if (t && ft_target_run(t, d, len, &o, &err) == 0) {
      CHECK(judge_inprocess(conv_find(name), q, NULL, &j, &err) == 0, "%s", err.msg);
      CHECK(j.verdict == o.verdict, "%s: target %s, JSON %s", name, oracle_verdict_name(o.verdict),
            oracle_verdict_name(j.verdict));
      judgement_clear(&j);
      ft_outcome_clear(&o);
    }
    ft_target_free(t);
  }
  free(json);
  ir_program_free(p);
  ir_program_free(q);
}

TEST(the_same_input_gives_the_same_outcome_after_other_inputs) {
  ft_target *t = make("jit");
  if (!t) return;
  const uint8_t a[] = "\x12\x34\x56\x78\x9a\xbc\xde\xf0\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc";
  ft_outcome first, o;
  af_err err;
  CHECK(ft_target_run(t, a, sizeof a - 1, &first, &err) == 0, "%s", err.msg);
  for (int k = 0; k < 20; k++) {
    uint8_t other[32];
    for (int i = 0; i < 32; i++) other[i] = (uint8_t)(k * 37 + i * 11);
    if (ft_target_run(t, other, sizeof other, &o, &err) == 0) ft_outcome_clear(&o);
  }
  CHECK(ft_target_run(t, a, sizeof a - 1, &o, &err) == 0, "%s", err.msg);
  CHECK(o.verdict == first.verdict && o.nids == first.nids && o.nstmts == first.nstmts &&
            !memcmp(o.ids, first.ids, sizeof(uint32_t) * (size_t)o.nids),
        "second run differs: %s/%d ids vs %s/%d ids", oracle_verdict_name(o.verdict), o.nids,
        oracle_verdict_name(first.verdict), first.nids);
  ft_outcome_clear(&o);
  ft_outcome_clear(&first);
  ft_target_free(t);
}

TEST(features_are_in_range_and_absent_when_disabled) {
  ft_target *t = make("jit");
  ft_outcome o;
  if (t && run_shape_bug(t, &o) == 0) {
    int pattern = 0, kind = 0;
    for (int k = 0; k < o.nids; k++) {
      CHECK(o.ids[k] < FT_SPACE, "id %u out of range", o.ids[k]);
      pattern += o.ids[k] < FT_GEN_SPACE;
      kind += o.ids[k] >= FT_KIND_BASE && o.ids[k] < FT_SIZE_BASE;
    }
    CHECK(pattern > 0 && pattern == o.npatterns, "%d pattern ids, %d patterns", pattern, o.npatterns);
    CHECK(kind > 0, "no node kinds of the jit graph");
    ft_outcome_clear(&o);
  }
  ft_target_free(t);
  setenv("AF_FUZZ_FEATURES", "0", 1);
  t = make("jit");
  if (t && run_shape_bug(t, &o) == 0) {
    CHECK(!ft_target_features_on(t) && o.nids == 0 && o.npatterns > 0, "features off: %d ids, %d patterns", o.nids,
          o.npatterns);
    ft_outcome_clear(&o);
  }
  ft_target_free(t);
  unsetenv("AF_FUZZ_FEATURES");
}

TEST(the_verdict_filter_limits_findings_and_rejects_unknown_names) {
  setenv("AF_FUZZ_VERDICTS", "value-mismatch,converter-error", 1);
  ft_target *t = make("naive");
  ft_outcome o;
  if (t && run_shape_bug(t, &o) == 0) {
    CHECK(o.verdict == V_SHAPE_MISMATCH && !o.finding && !o.summary, "shape-mismatch counted as a finding");
    ft_outcome_clear(&o);
  }
  ft_target_free(t);
  setenv("AF_FUZZ_VERDICTS", "shape-mismatch,bogus", 1);
  af_err err;
  t = NULL;
  CHECK(ft_target_new("naive", &t, &err) != 0 && strstr(err.msg, "'bogus'"), "accepted a bogus verdict");
  ft_target_free(t);
  unsetenv("AF_FUZZ_VERDICTS");
}

TEST(the_pattern_map_collects_patterns_across_targets) {
  char path[] = "/tmp/af-test-patterns-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "mkstemp");
  if (fd < 0) return;
  close(fd);
  setenv("AF_FUZZ_PATTERNS", path, 1);
  ft_target *a = make("ref"), *b = make("naive");
  ft_outcome o;
  int total = 0;
  if (a && b) {
    const uint8_t x[] = "\x40\x80\xc0\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b";
    af_err err;
    if (ft_target_run(a, x, sizeof x - 1, &o, &err) == 0) total += o.npatterns, ft_outcome_clear(&o);
    if (run_shape_bug(b, &o) == 0) total += o.npatterns, ft_outcome_clear(&o);
    long n = ft_patterns_count(path, &err);
    CHECK(n > 0 && n <= total, "%ld patterns marked, %d seen", n, total);
  }
  ft_target_free(a);
  ft_target_free(b);
  unsetenv("AF_FUZZ_PATTERNS");
  unlink(path);
}

TEST(record_mode_keeps_one_input_per_finding_class_and_goes_on) {
  char dir[] = "/tmp/af-test-record-XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  setenv("AF_FUZZ_RECORD", dir, 1);
  ft_target *t = make("naive");
  for (int k = 0; t && k < 2; k++) {
    ft_outcome o;
    if (run_shape_bug(t, &o) == 0) {
      CHECK(o.finding && o.recorded, "finding %d recorded %d", o.finding, o.recorded);
      ft_outcome_clear(&o);
    }
  }
  ft_target_free(t);
  unsetenv("AF_FUZZ_RECORD");
  DIR *d = opendir(dir);
  int n = 0, named = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    n++;
    named += strncmp(e->d_name, "shape-mismatch-", 15) == 0;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len = 0;
    uint8_t *a = slurp(path, &len);
    CHECK(a && len == shape_bug_len && !memcmp(a, shape_bug, len), "%s is not the input", path);
    free(a);
    unlink(path);
  }
  if (d) closedir(d);
  char seen[512];
  snprintf(seen, sizeof seen, "%s/.seen", dir);
  CHECK(unlink(seen) == 0, "no %s", seen);
  rmdir(dir);
  CHECK(n == 1 && named == 1, "%d files, %d named shape-mismatch-*", n, named);
}

TEST(the_transpose_hang_input_finishes) {
  ft_target *t = make("ref");
  ft_outcome o;
  if (t && run(t, "corpus/fuzz/regressions/generator-hang-transpose", &o) == 0) {
    CHECK(o.verdict == V_PASS, "%s", oracle_verdict_name(o.verdict));
    ft_outcome_clear(&o);
  }
  ft_target_free(t);
}

TEST(an_unknown_converter_is_refused_by_name) {
  ft_target *t = NULL;
  af_err err;
  CHECK(ft_target_new("no-such-converter", &t, &err) != 0 && strstr(err.msg, "no-such-converter"), "accepted");
  CHECK(ft_target_new(NULL, &t, &err) != 0 && t == NULL, "accepted no converter");
}

int main(void) {
  at_init();
  RUN(a_shape_mismatch_on_naive_is_found_among_random_inputs);
  RUN(every_seed_input_replays_without_a_harness_error);
  RUN(the_naive_shape_bug_input_is_a_finding_with_a_one_line_summary);
  RUN(the_decoded_program_gives_the_same_verdict_as_the_target);
  RUN(the_same_input_gives_the_same_outcome_after_other_inputs);
  RUN(features_are_in_range_and_absent_when_disabled);
  RUN(the_verdict_filter_limits_findings_and_rejects_unknown_names);
  RUN(the_pattern_map_collects_patterns_across_targets);
  RUN(record_mode_keeps_one_input_per_finding_class_and_goes_on);
  RUN(the_transpose_hang_input_finishes);
  RUN(an_unknown_converter_is_refused_by_name);
  return tap_done();
}
