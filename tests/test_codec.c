/* test_codec.c - the JSON codec: canonical round trip of every corpus file, strict rejection of
 * malformed programs with a message naming the problem. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "../harness/ops.h"
#include "tap.h"

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
  return tap_done();
}
