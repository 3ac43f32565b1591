/* test_codec.c - the JSON codec: canonical round trip of every corpus file, strict rejection of
 * malformed programs with a message naming the problem. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "../harness/ops/ops.h"
#include "tap.h"

#define STR_(x) #x
#define AF_STR(x) STR_(x)

static int nfiles;

static void roundtrip_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (e->d_name[0] == '.') continue;
    if (e->d_type == DT_DIR) {
      roundtrip_dir(path);
      continue;
    }
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
    char *text = codec_slurp(path, NULL, NULL);
    /* a JSON file of another format (expectation files etc.) is skipped; an empty or
       format-less one is a broken corpus file, not something to skip */
    CHECK(text && strstr(text, "\"format\""), "%s: empty, unreadable or without a \"format\" field", path);
    if (!text || strstr(text, "\"aliasfuzz-program/1\"") == NULL) {
      free(text);
      continue;
    }
    ir_program *p = NULL;
    af_err err;
    int rc = codec_read_string(text, path, &p, &err);
    CHECK(rc == 0, "%s", err.msg);
    if (rc == 0) {
      char *out = codec_write_string(p);
      CHECK(strcmp(out, text) == 0, "%s is not byte-identical after read+write (run `aliasfuzz fmt`)", path);
      ir_program *q = ir_program_clone(p);
      char *out2 = codec_write_string(q);
      CHECK(strcmp(out, out2) == 0, "%s: clone writes differently", path);
      free(out2);
      ir_program_free(q);
      free(out);
      nfiles++;
    }
    ir_program_free(p);
    free(text);
  }
  closedir(d);
}

TEST(every_corpus_file_round_trips_byte_identically) {
  roundtrip_dir("corpus");
  CHECK(nfiles >= 20, "only %d corpus programs found", nfiles);
}

#define HEAD "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3, 4], \"dtype\": \"float32\"}], "

/* a [3, 4] float input a, then the second input; TAIL closes the program */
#define LAY "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"a\", \"shape\": [3, 4], \"dtype\": \"float32\"}, "
#define TAIL ", \"body\": [], \"outputs\": []}"

static const struct {
  const char *name, *text, *expect;
} bad[] = {
    {"empty file", "", "truncated"},
    {"truncated", HEAD "\"body\": [", "truncated"},
    {"syntax error", "{\"format\": aliasfuzz}", "syntax error"},
    {"not an object", "[1, 2]", "top level"},
    {"missing format", "{\"inputs\": [], \"body\": [], \"outputs\": []}", "format: missing"},
    {"unknown version", "{\"format\": \"aliasfuzz-program/9\", \"inputs\": [], \"body\": [], \"outputs\": []}", "unsupported version"},
    {"unknown top-level field", HEAD "\"body\": [], \"outputs\": [], \"extra\": 1}", "unknown field \"extra\""},
    {"inputs not an array", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": 3, \"body\": [], \"outputs\": []}", "inputs: expected an array"},
    {"bad dtype", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"int16\"}], \"body\": [], \"outputs\": []}", "inputs[0]: dtype"},
    {"negative dim", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [-3], \"dtype\": \"float32\"}], \"body\": [], \"outputs\": []}", "inputs[0]: shape: [0]"},
    {"bad input name", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"1x\", \"shape\": [3], \"dtype\": \"float32\"}], \"body\": [], \"outputs\": []}", "not a usable identifier"},
    {"keyword as name", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"return\", \"shape\": [3], \"dtype\": \"float32\"}], \"body\": [], \"outputs\": []}", "not a usable identifier"},
    {"duplicate input", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}, {\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}], \"body\": [], \"outputs\": []}", "inputs[1]: name: \"x\" is defined twice"},
    {"unknown op", HEAD "\"body\": [{\"out\": \"y\", \"op\": \"frobnicate_\", \"args\": [\"x\"]}], \"outputs\": []}", "body[0]: op: unknown op \"frobnicate_\""},
    {"wrong arity", HEAD "\"body\": [{\"out\": \"y\", \"op\": \"slice\", \"args\": [\"x\", 0, 1]}], \"outputs\": []}", "body[0]: args: slice takes 5 arguments"},
    {"undefined value", HEAD "\"body\": [{\"out\": \"y\", \"op\": \"add\", \"args\": [\"z\", 1]}], \"outputs\": []}", "body[0]: args[0] (add): undefined value \"z\""},
    {"loop variable redefined", HEAD "\"body\": [{\"out\": \"i\", \"op\": \"for\", \"args\": [2], \"body\": []}, {\"out\": \"i\", \"op\": \"add\", \"args\": [\"x\", 1]}], \"outputs\": []}", "\"i\" is a loop variable"},
    {"wrong arg type", HEAD "\"body\": [{\"out\": \"y\", \"op\": \"select\", \"args\": [\"x\", \"x\", 1]}], \"outputs\": []}", "body[0].args[1] (select): expected an integer"},
    {"loop variable outside its loop", HEAD "\"body\": [{\"out\": \"i\", \"op\": \"for\", \"args\": [2], \"body\": []}, {\"out\": \"y\", \"op\": \"select\", \"args\": [\"x\", 0, \"i\"]}], \"outputs\": []}", "outside its block"},
    {"branch value used after the if", HEAD "\"body\": [{\"op\": \"if\", \"args\": [\"x\"], \"then\": [{\"out\": \"y\", \"op\": \"add\", \"args\": [\"x\", 1]}]}], \"outputs\": [\"y\"]}", "outputs[0]: value is not defined"},
    {"else as an op", HEAD "\"body\": [{\"op\": \"else\", \"args\": []}], \"outputs\": []}", "body[0]: op: unknown op \"else\""},
    {"if without then", HEAD "\"body\": [{\"op\": \"if\", \"args\": [\"x\"]}], \"outputs\": []}", "body[0]: then: expected an array"},
    {"trip count too large", HEAD "\"body\": [{\"out\": \"i\", \"op\": \"for\", \"args\": [1000], \"body\": []}], \"outputs\": []}", "trip count must be an integer literal"},
    {"loop variable as a tensor", HEAD "\"body\": [{\"out\": \"i\", \"op\": \"for\", \"args\": [2], \"body\": [{\"op\": \"add_\", \"args\": [\"i\", 1]}]}], \"outputs\": []}", "\"i\" is a loop variable, not a tensor"},
    {"float where int", HEAD "\"body\": [{\"out\": \"y\", \"op\": \"select\", \"args\": [\"x\", 0.5, 1]}], \"outputs\": []}", "args[1] (select): expected an integer"},
    {"bad subscript element", HEAD "\"body\": [{\"op\": \"setitem\", \"args\": [\"x\", [{\"slise\": 1}], 0]}], \"outputs\": []}", "args[1] (setitem): [0]: expected {\"slice\""},
    {"zero slice step", HEAD "\"body\": [{\"op\": \"setitem\", \"args\": [\"x\", [{\"slice\": [0, 2, 0]}], 0]}], \"outputs\": []}", "slice step must be positive"},
    {"two ellipses", HEAD "\"body\": [{\"op\": \"setitem\", \"args\": [\"x\", [\"...\", \"...\"], 0]}], \"outputs\": []}", "more than one '...'"},
    {"view without out", HEAD "\"body\": [{\"op\": \"slice\", \"args\": [\"x\", 0, 0, 1, 1]}], \"outputs\": []}", "body[0].out: slice needs an \"out\" name"},
    /* int values (issue 15): only where an int literal can be, and only ints */
    {"slice bound names a tensor", HEAD "\"body\": [{\"out\": \"y\", \"op\": \"getitem\", \"args\": [\"x\", [{\"slice\": [null, \"x\", 1]}]]}], \"outputs\": []}", "body[0].args[1] (getitem): subscript element 0 (slice stop): \"x\" is a tensor, not an int value"},
    {"slice bound undefined", HEAD "\"body\": [{\"out\": \"y\", \"op\": \"getitem\", \"args\": [\"x\", [{\"slice\": [\"n\", null, 1]}]]}], \"outputs\": []}", "slice bounds must be integers, null or the names of int values"},
    {"int list element names a tensor", HEAD "\"body\": [{\"out\": \"y\", \"op\": \"view\", \"args\": [\"x\", [\"x\", 4]]}], \"outputs\": []}", "body[0].args[1] (view): list element 0: \"x\" is a tensor, not an int value"},
    {"trip count names a tensor", HEAD "\"body\": [{\"out\": \"i\", \"op\": \"for\", \"args\": [\"x\"], \"body\": []}], \"outputs\": []}", "body[0].args[0] (for): expected an integer or an int value, got \"x\""},
    {"loop variable as a dim count", HEAD "\"body\": [{\"out\": \"i\", \"op\": \"for\", \"args\": [2], \"body\": [{\"out\": \"y\", \"op\": \"slice\", \"args\": [\"x\", \"i\", 0, 1, 1]}]}], \"outputs\": []}", "body[1].args[1] (slice): must be an integer literal"},
    {"size as a tensor", HEAD "\"body\": [{\"out\": \"n\", \"op\": \"size\", \"args\": [\"x\", 0]}, {\"op\": \"add_\", \"args\": [\"n\", 1]}], \"outputs\": []}", "body[1].args[0] (add_): \"n\" is an int value, not a tensor"},
    {"size without out", HEAD "\"body\": [{\"op\": \"numel\", \"args\": [\"x\"]}], \"outputs\": []}", "body[0].out: numel needs an \"out\" name"},
    {"tensor rebound as an int", HEAD "\"body\": [{\"out\": \"y\", \"op\": \"add\", \"args\": [\"x\", 1]}, {\"out\": \"y\", \"op\": \"dim\", \"args\": [\"x\"]}], \"outputs\": []}", "body[0].out: \"y\" names both an int value and a tensor (add gives a tensor)"},
    {"size of an int", HEAD "\"body\": [{\"out\": \"n\", \"op\": \"dim\", \"args\": [\"x\"]}, {\"out\": \"m\", \"op\": \"size\", \"args\": [\"n\", 0]}], \"outputs\": []}", "body[1].args[0] (size): \"n\" is an int value, not a tensor"},
    {"loop variable as an output", HEAD "\"body\": [{\"out\": \"i\", \"op\": \"for\", \"args\": [2], \"body\": []}], \"outputs\": [\"i\"]}", "outputs[0]"},
    {"undefined output", HEAD "\"body\": [], \"outputs\": [\"nope\"]}", "outputs[0]: undefined value \"nope\""},
    {"statement not an object", HEAD "\"body\": [3], \"outputs\": []}", "body[0]: expected an object"},
    {"unknown statement field", HEAD "\"body\": [{\"op\": \"zero_\", \"args\": [\"x\"], \"comment\": 1}], \"outputs\": []}", "body[0]: unknown field \"comment\""},
    {"int list expected", HEAD "\"body\": [{\"out\": \"v\", \"op\": \"view\", \"args\": [\"x\", [2, \"a\"]]}], \"outputs\": []}", "args[1] (view): [1]: expected an integer"},
    {"meta not an object", HEAD "\"body\": [], \"outputs\": [], \"meta\": 3}", "meta: expected an object"},
    /* a reduction mode (schema letter r, issue 29): one of the five names, nothing else */
    {"unknown reduction mode", HEAD "\"body\": [{\"op\": \"scatter_reduce_\", \"args\": [\"x\", 0, \"x\", \"x\", \"median\", true]}], \"outputs\": []}", "args[4] (scatter_reduce_): expected a reduction mode: \"sum\", \"prod\", \"mean\", \"amax\" or \"amin\""},
    {"reduction mode as a number", HEAD "\"body\": [{\"op\": \"scatter_reduce_\", \"args\": [\"x\", 0, \"x\", \"x\", 2, true]}], \"outputs\": []}", "expected a reduction mode"},
    /* input layouts (issue 16): impossible layouts are rejected naming the input */
    {"view past its storage", LAY "{\"name\": \"b\", \"shape\": [3, 4], \"view_of\": \"a\", \"strides\": [4, 1], \"offset\": 1}]" TAIL, "input b: shape, strides and offset 1 reach element 12 of a storage of 12 elements"},
    {"negative stride", LAY "{\"name\": \"b\", \"shape\": [2], \"view_of\": \"a\", \"strides\": [-1], \"offset\": 5}]" TAIL, "input b: negative stride -1"},
    {"negative offset", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"offset\": -2}]" TAIL, "input x: negative storage offset -2"},
    {"view of a later input", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"b\", \"shape\": [2], \"dtype\": \"float32\", \"view_of\": \"a\", \"strides\": [1]}, {\"name\": \"a\", \"shape\": [3], \"dtype\": \"float32\"}]" TAIL, "inputs[0]: view_of: \"a\" names no earlier input and no base"},
    {"view of another dtype", LAY "{\"name\": \"b\", \"shape\": [2], \"dtype\": \"int64\", \"view_of\": \"a\", \"strides\": [1]}]" TAIL, "input b: dtype int64, but the storage it views (a) is float32"},
    {"strides of the wrong rank", LAY "{\"name\": \"b\", \"shape\": [2, 2], \"view_of\": \"a\", \"strides\": [1]}]" TAIL, "inputs[1]: strides: expected 2 ints"},
    {"view op out of range", LAY "{\"name\": \"b\", \"view_of\": \"a\", \"as\": [\"select\", 0, 3]}]" TAIL, "inputs[1]: as: select index 3 out of range for size 3"},
    {"view op shape disagrees", LAY "{\"name\": \"b\", \"shape\": [3], \"view_of\": \"a\", \"as\": [\"select\", 0, 1]}]" TAIL, "the view op gives another shape"},
    {"unknown view op in as", LAY "{\"name\": \"b\", \"view_of\": \"a\", \"as\": [\"frob\", 0]}]" TAIL, "\"frob\" is no view op"},
    {"as without view_of", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"as\": [\"t\"]}]" TAIL, "as: needs view_of"},
    {"data on a view", LAY "{\"name\": \"b\", \"shape\": [2], \"view_of\": \"a\", \"strides\": [1], \"data\": [1]}]" TAIL, "input b: a view of a takes its values from that storage"},
    {"base without a size", "{\"format\": \"aliasfuzz-program/1\", \"bases\": [{\"name\": \"buf\", \"dtype\": \"float32\"}], \"inputs\": []" TAIL, "bases[0]: size: expected the number of elements"},
    {"input named like a base", "{\"format\": \"aliasfuzz-program/1\", \"bases\": [{\"name\": \"buf\", \"size\": 4, \"dtype\": \"float32\"}], \"inputs\": [{\"name\": \"buf\", \"shape\": [3], \"dtype\": \"float32\"}]" TAIL, "inputs[0]: name: \"buf\" is defined twice"},
    {"buffer with a layout", LAY "{\"name\": \"b\", \"shape\": [2], \"view_of\": \"a\", \"strides\": [1], \"buffer\": true}]" TAIL, "input b: a module buffer cannot have a layout"},
    {"empty data", "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"data\": []}], \"body\": [], \"outputs\": []}", "data: expected a non-empty array"},
};

TEST(malformed_programs_are_rejected_with_a_message_naming_the_problem) {
  int n = (int)(sizeof bad / sizeof bad[0]);
  CHECK(n >= 15, "only %d malformed cases", n);
  for (int i = 0; i < n; i++) {
    ir_program *p = (ir_program *)1;
    af_err err = {{0}};
    int rc = codec_read_string(bad[i].text, "case.json", &p, &err);
    CHECK(rc != 0 && p == NULL, "%s: accepted", bad[i].name);
    CHECK(strncmp(err.msg, "case.json", 9) == 0, "%s: message does not name the file: %s", bad[i].name, err.msg);
    CHECK(strstr(err.msg, bad[i].expect) != NULL, "%s: message '%s' lacks '%s'", bad[i].name, err.msg, bad[i].expect);
  }
}

/* Issue 27: what the codec cannot represent exactly is refused, naming the file, the field and
 * the limit, instead of being read as something else (1e30 as INT64_MIN, 1e400 written back as
 * 1e+308, "x\u0000y" as "x", the second of two "name" fields ignored). */
#define IN_HEAD "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": "
#define IN_REST "}], \"body\": [], \"outputs\": [\"x\"]}"
static const struct {
  const char *name, *text, *expect;
} inexact[] = {
    {"int64 data 1e30", IN_HEAD "\"int64\", \"data\": [1, 1e30]" IN_REST, "inputs[0]: data[1]: 1e+30 is not a value of dtype int64"},
    {"int64 data 1.5", IN_HEAD "\"int64\", \"data\": [1.5]" IN_REST, "inputs[0]: data[0]: 1.5 is not a value of dtype int64"},
    {"int8 data 300", IN_HEAD "\"int8\", \"data\": [300]" IN_REST, "data[0]: 300 is not a value of dtype int8 (integers -128..127)"},
    {"bool data 2", IN_HEAD "\"bool\", \"data\": [2]" IN_REST, "data[0]: 2 is not a value of dtype bool"},
    {"float data 1e400", IN_HEAD "\"float32\", \"data\": [1e400]" IN_REST, "inputs[0].data[0]: a number beyond the range of a double"},
    {"float argument 1e400",
     "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}], "
     "\"body\": [{\"out\": \"y\", \"op\": \"add\", \"args\": [\"x\", -1e400]}], \"outputs\": [\"y\"]}",
     "body[0].args[1]: a number beyond the range of a double"},
    {"data longer than the tensor", IN_HEAD "\"float32\", \"data\": [1, 2, 3, 4]" IN_REST, "inputs[0]: data: 4 values for 3 elements"},
    {"base data longer than the base",
     "{\"format\": \"aliasfuzz-program/1\", \"bases\": [{\"name\": \"buf\", \"size\": 2, \"dtype\": \"float32\", \"data\": [1, 2, 3]}], "
     "\"inputs\": [], \"body\": [], \"outputs\": []}",
     "bases[0]: data: 3 values for 2 elements"},
    {"a field given twice", IN_HEAD "\"float32\", \"name\": \"z\"" IN_REST, "inputs[0]: \"name\": the field is given twice"},
    {"a top-level field given twice", IN_HEAD "\"float32\"}], \"body\": [], \"body\": [], \"outputs\": [\"x\"]}", "\"body\": the field is given twice"},
    {"NUL in a name",
     "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\\u0000y\", \"shape\": [3], \"dtype\": \"float32\"}], \"body\": [], "
     "\"outputs\": [\"x\"]}",
     "line 1, column 57: \\u0000 (NUL) in a string"},
    {"a control character in a name",
     "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\\u0001\", \"shape\": [3], \"dtype\": \"float32\"}], \"body\": [], "
     "\"outputs\": []}",
     "inputs[0]: name:"},
    {"an int value named like an input",
     "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"n\", \"shape\": [3], \"dtype\": \"float32\"}], "
     "\"body\": [{\"out\": \"n\", \"op\": \"size\", \"args\": [\"n\", 0]}], \"outputs\": []}",
     "\"n\" is an input (a tensor), and body[0] (size) makes it an int value"},
};

TEST(values_the_codec_cannot_represent_exactly_are_refused_naming_file_and_field) {
  for (size_t i = 0; i < sizeof inexact / sizeof inexact[0]; i++) {
    ir_program *p = NULL;
    af_err err = {{0}};
    int rc = codec_read_string(inexact[i].text, "case.json", &p, &err);
    CHECK(rc != 0 && p == NULL, "%s: accepted", inexact[i].name);
    CHECK(strncmp(err.msg, "case.json: ", 11) == 0 && strstr(err.msg, inexact[i].expect), "%s: message '%s' lacks '%s'",
          inexact[i].name, err.msg, inexact[i].expect);
    ir_program_free(p);
  }
  /* what stays accepted: the extremes each dtype holds, and a data list shorter than the tensor */
  const char *ok[] = {IN_HEAD "\"int64\", \"data\": [-9007199254740992, 9007199254740992]" IN_REST, IN_HEAD "\"uint8\", \"data\": [0, 255]" IN_REST,
                      IN_HEAD "\"bool\", \"data\": [true, 0]" IN_REST, IN_HEAD "\"float64\", \"data\": [1e308, -2.5]" IN_REST};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    ir_program *p = NULL;
    af_err err = {{0}};
    CHECK(codec_read_string(ok[i], "ok.json", &p, &err) == 0, "%s: %s", ok[i], err.msg);
    ir_program_free(p);
  }
}

/* A program of n statements `vK = x.add(1)` (if blocks: each one an `if` around the next). new. */
static char *program_text(int n, int blocks) {
  af_buf b = {0};
  af_buf_puts(&b, "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [1], \"dtype\": \"float32\"}], \"body\": [");
  for (int k = 0; k < n; k++)
    af_buf_printf(&b, blocks ? "%s{\"op\": \"if\", \"args\": [\"x\"], \"then\": [" : "%s{\"out\": \"v%d\", \"op\": \"add\", \"args\": [\"x\", 1]}",
                  k ? (blocks ? "" : ", ") : "", k);
  for (int k = 0; blocks && k < n; k++) af_buf_puts(&b, "]}");
  af_buf_puts(&b, "], \"outputs\": [\"x\"]}");
  return af_buf_take(&b);
}

/* Size limits are checked while reading, and a refusal names the limit it hit (cJSON's own nesting
 * limit used to come out as "syntax error"). */
TEST(size_limits_are_checked_at_parse_time_and_named) {
  struct {
    const char *name;
    char *text;
    const char *expect;
  } cases[] = {
      {"statements", program_text(CODEC_MAX_STMTS + 1, 0), "more than " AF_STR(CODEC_MAX_STMTS) " statements (the limit"},
      {"block nesting", program_text(CODEC_MAX_DEPTH + 1, 1), "blocks nested more than " AF_STR(CODEC_MAX_DEPTH) " deep (the limit"},
      {"JSON nesting", NULL, "nested more than " AF_STR(CODEC_MAX_NESTING) " deep (the limit"},
      {"list length", NULL, "a list of 65537 elements (the limit is 65536)"},
  };
  af_buf b = {0};
  af_buf_puts(&b, "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [], \"body\": [], \"outputs\": [], \"meta\": {\"deep\": ");
  for (int k = 0; k < 1200; k++) af_buf_puts(&b, "[");
  for (int k = 0; k < 1200; k++) af_buf_puts(&b, "]");
  af_buf_puts(&b, "}}");
  cases[2].text = af_buf_take(&b);
  af_buf_puts(&b, "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [1], \"dtype\": \"float32\"}], "
                  "\"body\": [{\"out\": \"y\", \"op\": \"cat\", \"args\": [[\"x\"");
  for (int k = 0; k < 65536; k++) af_buf_puts(&b, ", \"x\"");
  af_buf_puts(&b, "], 0]}], \"outputs\": [\"y\"]}");
  cases[3].text = af_buf_take(&b);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ir_program *p = NULL;
    af_err err = {{0}};
    int rc = codec_read_string(cases[i].text, "big.json", &p, &err);
    CHECK(rc != 0 && strncmp(err.msg, "big.json: ", 10) == 0 && strstr(err.msg, cases[i].expect), "%s: rc %d, '%s' lacks '%s'",
          cases[i].name, rc, err.msg, cases[i].expect);
    ir_program_free(p);
    free(cases[i].text);
  }
  /* at the limits they read */
  char *at[] = {program_text(CODEC_MAX_STMTS, 0), program_text(CODEC_MAX_DEPTH, 1)};
  for (int i = 0; i < 2; i++) {
    ir_program *p = NULL;
    af_err err = {{0}};
    CHECK(codec_read_string(at[i], "big.json", &p, &err) == 0, "at the %s limit: %s", i ? "nesting" : "statement", err.msg);
    ir_program_free(p);
    free(at[i]);
  }
}

TEST(missing_file_is_an_error_naming_the_path) {
  ir_program *p;
  af_err err;
  CHECK(codec_read_file("/nonexistent/x.json", &p, &err) != 0, "accepted");
  CHECK(strstr(err.msg, "/nonexistent/x.json") != NULL, "%s", err.msg);
}

TEST(floats_ints_and_forced_floats_keep_their_kind) {
  const char *t = HEAD "\"body\": [{\"out\": \"a\", \"op\": \"add\", \"args\": [\"x\", 2]}, {\"out\": \"b\", \"op\": \"add\", \"args\": [\"x\", {\"float\": 2}]}, "
                       "{\"out\": \"c\", \"op\": \"add\", \"args\": [\"x\", 0.25]}], \"outputs\": [\"a\", \"b\", \"c\"]}";
  ir_program *p;
  af_err err;
  CHECK(codec_read_string(t, "t", &p, &err) == 0, "%s", err.msg);
  CHECK(p->stmts[0].args[1].kind == IR_ARG_INT, "2 is an int");
  CHECK(p->stmts[1].args[1].kind == IR_ARG_FLOAT && p->stmts[1].args[1].f == 2.0, "{float: 2} is a float");
  CHECK(p->stmts[2].args[1].kind == IR_ARG_FLOAT && p->stmts[2].args[1].f == 0.25, "0.25 is a float");
  char *w = codec_write_string(p);
  CHECK(strstr(w, "{\"float\": 2}") && strstr(w, "0.25"), "%s", w);
  free(w);
  ir_program_free(p);
}

/* A view op chain in "as" reads as the strides and offset ATen gives it; the canonical form writes
 * strides and offset, and the input that others view stays a plain input. */
TEST(input_layouts_written_as_view_ops_read_as_their_strides_and_offset) {
  static const char *as_form =
      "{\"format\": \"aliasfuzz-program/1\", \"bases\": [{\"name\": \"buf\", \"size\": 12, \"dtype\": \"float32\"}], "
      "\"inputs\": [{\"name\": \"a\", \"shape\": [3, 6], \"dtype\": \"float32\"}, "
      "{\"name\": \"odd\", \"view_of\": \"a\", \"as\": [[\"slice\", 1, 1, 6, 2], [\"t\"]]}, "
      "{\"name\": \"d\", \"view_of\": \"odd\", \"as\": [\"diagonal\", 0, 0, 1]}, "
      "{\"name\": \"e\", \"view_of\": \"buf\", \"as\": [[\"narrow\", 0, 2, 4], [\"unsqueeze\", 0], [\"expand\", [3, 4]]]}, "
      "{\"name\": \"w\", \"shape\": [4, 3], \"dtype\": \"float32\", \"strides\": [1, 4], \"offset\": 2, \"storage\": 20}], "
      "\"body\": [], \"outputs\": []}";
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(as_form, "as.json", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  char *out = codec_write_string(p);
  CHECK(strstr(out, "{\"name\": \"a\", \"shape\": [3, 6], \"dtype\": \"float32\"}"), "a stays plain: %s", out);
  CHECK(strstr(out, "\"name\": \"odd\", \"shape\": [3, 3], \"dtype\": \"float32\", \"view_of\": \"a\", \"strides\": [2, 6], \"offset\": 1"), "odd: %s", out);
  CHECK(strstr(out, "\"name\": \"d\", \"shape\": [3], \"dtype\": \"float32\", \"view_of\": \"a\", \"strides\": [8], \"offset\": 1"), "d: %s", out);
  CHECK(strstr(out, "\"name\": \"e\", \"shape\": [3, 4], \"dtype\": \"float32\", \"view_of\": \"buf\", \"strides\": [0, 1], \"offset\": 2"), "e: %s", out);
  CHECK(strstr(out, "\"name\": \"w\", \"shape\": [4, 3], \"dtype\": \"float32\", \"strides\": [1, 4], \"offset\": 2, \"storage\": 20"), "w: %s", out);
  ir_program *q = NULL;
  CHECK(codec_read_string(out, "canonical.json", &q, &err) == 0, "%s", err.msg);
  char *again = q ? codec_write_string(q) : NULL;
  CHECK(again && strcmp(again, out) == 0, "the canonical form reads back to itself");
  free(again);
  ir_program_free(q);
  free(out);
  ir_program_free(p);
}

int main(void) {
  RUN(every_corpus_file_round_trips_byte_identically);
  RUN(malformed_programs_are_rejected_with_a_message_naming_the_problem);
  RUN(input_layouts_written_as_view_ops_read_as_their_strides_and_offset);
  RUN(missing_file_is_an_error_naming_the_path);
  RUN(floats_ints_and_forced_floats_keep_their_kind);
  RUN(values_the_codec_cannot_represent_exactly_are_refused_naming_file_and_field);
  RUN(size_limits_are_checked_at_parse_time_and_named);
  return tap_done();
}
