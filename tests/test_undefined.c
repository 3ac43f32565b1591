/* test_undefined.c - programs eager leaves undefined (issue 29, docs/undefined.md): the eager
 * runner refuses them wherever they come from (a file, the reducer), with the reason, and still
 * runs their defined neighbours; eager_lap tells memory overlap byte by byte. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/judge.h"
#include "../fuzz/reduce.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "../harness/ops/ops_shape.h"
#include "tap.h"

/* eager's message for program p (new), or NULL when eager runs it. */
static char *refusal(const ir_program *p) {
  result r;
  af_err err;
  result_init(&r);
  CHECK(eager_run(p, &r, &err) == 0, "inputs: %s", err.msg);
  char *msg = r.status == RESULT_ERROR ? af_xstrdup(r.message ? r.message : "(no message)") : NULL;
  result_clear(&r);
  return msg;
}

static char *refusal_of_text(const char *t) {
  ir_program *p;
  af_err err;
  if (codec_read_string(t, "t", &p, &err)) {
    CHECK(0, "%s", err.msg);
    return af_xstrdup("(unreadable)");
  }
  char *m = refusal(p);
  ir_program_free(p);
  return m;
}

TEST(every_program_of_corpus_undefined_is_refused_naming_its_statement) {
  DIR *d = opendir("corpus/undefined");
  CHECK(d != NULL, "corpus/undefined is missing");
  if (!d) return;
  int n = 0, ours = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len < 5 || strcmp(de->d_name + len - 5, ".json")) continue;
    char path[600];
    snprintf(path, sizeof path, "corpus/undefined/%s", de->d_name);
    ir_program *p;
    af_err err;
    if (codec_read_file(path, &p, &err)) {
      CHECK(0, "%s", err.msg);
      continue;
    }
    char *m = refusal(p);
    CHECK(m && strstr(m, "body[") && (strstr(m, "undefined program") || strstr(m, "unsupported operation")),
          "%s: eager must refuse it as undefined (or reject it itself), naming the statement: %s", path, m ? m : "(ran)");
    if (m && strstr(m, "undefined program")) ours++;
    free(m);
    ir_program_free(p);
    n++;
  }
  closedir(d);
  CHECK(n >= 7, "%d programs in corpus/undefined", n);
  CHECK(ours >= 3, "%d of them refused by the rules where eager runs them (001, 005, 006 at least)", ours);
}

#define PROG(inputs, body, outputs) \
  "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [" inputs "], \"body\": [" body "], \"outputs\": [" outputs "]}"
#define X45 "{\"name\": \"x\", \"shape\": [4, 5], \"dtype\": \"float32\"}"

TEST(a_partial_overlap_eager_runs_is_refused_with_the_rules_reason) {
  char *m = refusal_of_text(PROG(X45,
                                 "{\"out\": \"a\", \"op\": \"slice\", \"args\": [\"x\", 1, 1, 5, 1]},"
                                 "{\"out\": \"b\", \"op\": \"slice\", \"args\": [\"x\", 1, 0, 4, 1]},"
                                 "{\"op\": \"mul_\", \"args\": [\"a\", \"b\"]}",
                                 "\"x\""));
  CHECK(m && strstr(m, "body[2] (mul_): undefined program") && strstr(m, "shares memory"), "%s", m ? m : "(ran)");
  free(m);
}

/* Defined programs next to the undefined ones: the rules alone (whole-self setitem, idempotent
 * writes into overlapping windows) would refuse some of them; the real tensors say they are fine. */
TEST(defined_neighbours_of_undefined_programs_still_run) {
  static const char *const ok[] = {
    /* the operand cloned first */
    PROG(X45, "{\"out\": \"b\", \"op\": \"slice\", \"args\": [\"x\", 1, 0, 4, 1]}, {\"out\": \"c\", \"op\": \"clone\", \"args\": [\"b\"]},"
              "{\"out\": \"a\", \"op\": \"slice\", \"args\": [\"x\", 1, 1, 5, 1]}, {\"op\": \"add_\", \"args\": [\"a\", \"c\"]}", "\"x\""),
    /* the operand is the target itself */
    PROG(X45, "{\"op\": \"add_\", \"args\": [\"x\", \"x\"]}", "\"x\""),
    /* an operand with the target's very layout (another tensor, the same elements) */
    PROG(X45, "{\"out\": \"y\", \"op\": \"alias\", \"args\": [\"x\"]}, {\"op\": \"mul_\", \"args\": [\"x\", \"y\"]}", "\"x\""),
    /* x[0] = x[1]: the value shares x's storage, not the row written */
    PROG(X45, "{\"out\": \"r\", \"op\": \"getitem\", \"args\": [\"x\", [1]]}, {\"op\": \"setitem\", \"args\": [\"x\", [0], \"r\"]}", "\"x\""),
    /* overlapping windows written with a number or an idempotent op (hand-010) */
    PROG("{\"name\": \"x\", \"shape\": [7], \"dtype\": \"float32\"}",
         "{\"out\": \"c\", \"op\": \"clone\", \"args\": [\"x\"]}, {\"out\": \"w\", \"op\": \"unfold\", \"args\": [\"c\", 0, 3, 2]},"
         "{\"op\": \"abs_\", \"args\": [\"w\"]}, {\"op\": \"fill_\", \"args\": [\"w\", 2]}, {\"op\": \"clamp_\", \"args\": [\"w\", 0, 1]}", "\"c\""),
    /* repeated indices that accumulate */
    PROG("{\"name\": \"x\", \"shape\": [4], \"dtype\": \"float32\"}, {\"name\": \"i\", \"shape\": [2], \"dtype\": \"int64\", \"data\": [1, 1]},"
         "{\"name\": \"v\", \"shape\": [2], \"dtype\": \"float32\", \"data\": [5, 7]}",
         "{\"op\": \"index_put_\", \"args\": [\"x\", [\"i\"], \"v\", true]}", "\"x\""),
  };
  for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
    char *m = refusal_of_text(ok[k]);
    CHECK(!m, "defined program %zu refused: %s", k, m);
    free(m);
  }
}

static af_tensor *slice(const af_tensor *t, int64_t dim, int64_t start, int64_t end) {
  at_arg a[5] = {{.kind = AT_ARG_TENSOR, .t = t}, {.kind = AT_ARG_INT, .i = dim}, {.kind = AT_ARG_INT, .i = start},
                 {.kind = AT_ARG_INT, .i = end}, {.kind = AT_ARG_INT, .i = 1}};
  af_tensor *r[1] = {NULL};
  int n = 0;
  af_err err;
  CHECK(at_call("aten::slice", "Tensor", 5, a, NULL, 1, r, &n, &err) == 0 && n == 1, "slice: %s", err.msg);
  return r[0];
}

TEST(eager_lap_tells_none_same_and_partial_byte_by_byte) {
  double v[20] = {0};
  int64_t sh[2] = {4, 5};
  af_tensor *x, *d;
  af_err err;
  CHECK(at_tensor_new(AF_FLOAT32, 2, sh, v, &x, &err) == 0, "%s", err.msg);
  af_tensor *a = slice(x, 1, 1, 5), *b = slice(x, 1, 0, 4), *r0 = slice(x, 0, 0, 1), *r1 = slice(x, 0, 1, 2),
            *all = slice(x, 0, 0, 4);
  CHECK(eager_lap(a, b) == OPS_LAP_PARTIAL, "x[:, 1:] and x[:, :-1] share columns 1..3");
  CHECK(eager_lap(r0, r1) == OPS_LAP_NONE, "rows 0 and 1 share nothing");
  CHECK(eager_lap(x, all) == OPS_LAP_SAME && eager_lap(x, x) == OPS_LAP_SAME, "x[0:4] is x's elements");
  CHECK(eager_lap(x, NULL) == OPS_LAP_NONE, "NULL shares nothing");
  /* a dtype view: int32 halves of float64 elements */
  int64_t n2[1] = {2};
  CHECK(at_tensor_new(AF_FLOAT64, 1, n2, v, &d, &err) == 0, "%s", err.msg);
  at_arg va[2] = {{.kind = AT_ARG_TENSOR, .t = d}, {.kind = AT_ARG_DTYPE, .i = AF_INT32}};
  af_tensor *iv[1] = {NULL};
  int n = 0;
  CHECK(at_call("aten::view", "dtype", 2, va, NULL, 1, iv, &n, &err) == 0 && n == 1, "view(int32): %s", err.msg);
  if (iv[0]) {
    af_tensor *hi = slice(iv[0], 0, 1, 2), *second = slice(iv[0], 0, 2, 4), *d0 = slice(d, 0, 0, 1);
    CHECK(eager_lap(hi, d0) == OPS_LAP_PARTIAL, "the high half of element 0 is inside float64 element 0");
    CHECK(eager_lap(second, d0) == OPS_LAP_NONE, "the int32 pair of element 1 is outside element 0");
    at_tensor_free(hi);
    at_tensor_free(second);
    at_tensor_free(d0);
    at_tensor_free(iv[0]);
  }
  at_tensor_free(d);
  at_tensor_free(a);
  at_tensor_free(b);
  at_tensor_free(r0);
  at_tensor_free(r1);
  at_tensor_free(all);
  at_tensor_free(x);
}

/* Writes in p whose target and a tensor operand are inputs that partly overlap (as inputs_new
 * lays them out): undefined, told without the eager runner's check. */
static int partly_overlapping_writes(const ir_program *p) {
  af_tensor **in = NULL;
  af_err err;
  if (inputs_new(p, &in, &err)) return 0;
  int n = 0;
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *w = &p->stmts[s];
    if (!ops_shape_writes_data(w->op) || w->args[0].kind != IR_ARG_VALUE || w->args[0].value >= p->ninputs) continue;
    for (int a = 1; a < w->nargs; a++)
      if (w->args[a].kind == IR_ARG_VALUE && w->args[a].value < p->ninputs)
        n += eager_lap(in[w->args[0].value], in[w->args[a].value]) == OPS_LAP_PARTIAL;
  }
  inputs_free(ir_ntensors(p), in);
  return n;
}

/* The campaign's predicate at its coarsest (same converter, same verdict), counting the
 * candidates it keeps that are undefined. */
typedef struct {
  oracle_verdict v;
  int kept, kept_undefined;
} rctx;

static int same_verdict(const ir_program *cand, void *vc) {
  rctx *x = vc;
  judgement j;
  af_err err;
  if (judge_inprocess(&conv_naive, cand, NULL, &j, &err)) return 0;
  int r = j.verdict == x->v;
  judgement_clear(&j);
  if (r) x->kept++, x->kept_undefined += partly_overlapping_writes(cand) > 0;
  return r;
}

/* The reducer judges candidates through eager, so it keeps no undefined one: w1 and w2 are
 * buf[:, 1:] and buf[:, :-1] of a 4x5 buffer (a partial overlap eager cannot prove, so it runs
 * it) and naive loses the write into them; replacing the clone t by the input w2 (pass use_input
 * tries w2 first) would lose it too, but makes w1.add_(w2) undefined. */
TEST(the_reducer_never_turns_a_defined_program_into_an_undefined_one) {
  static const char *text =
      "{\"format\": \"aliasfuzz-program/1\", \"bases\": [{\"name\": \"buf\", \"size\": 20, \"dtype\": \"float32\"}],"
      " \"inputs\": [{\"name\": \"w2\", \"shape\": [4, 4], \"dtype\": \"float32\", \"view_of\": \"buf\", \"strides\": [5, 1], \"offset\": 0},"
      "              {\"name\": \"w1\", \"shape\": [4, 4], \"dtype\": \"float32\", \"view_of\": \"buf\", \"strides\": [5, 1], \"offset\": 1}],"
      " \"body\": [{\"out\": \"t\", \"op\": \"clone\", \"args\": [\"w2\"]}, {\"op\": \"add_\", \"args\": [\"w1\", \"t\"]}],"
      " \"outputs\": []}";
  ir_program *p;
  af_err err;
  if (codec_read_string(text, "text", &p, &err)) {
    CHECK(0, "%s", err.msg);
    return;
  }
  judgement j;
  CHECK(judge_inprocess(&conv_naive, p, NULL, &j, &err) == 0 && j.verdict == V_INPUT_MUTATION_LOST,
        "naive must lose the defined program's write: verdict %s", oracle_verdict_name(j.verdict));
  CHECK(partly_overlapping_writes(p) == 0, "the program is defined");
  rctx x = {j.verdict, 0, 0};
  judgement_clear(&j);
  ir_program *min;
  reduce_stats st;
  reduce_program(p, same_verdict, &x, 200, &min, &st);
  CHECK(x.kept > 0, "the reducer kept no candidate");
  CHECK(x.kept_undefined == 0, "%d of the %d candidates the reducer kept write through a partly overlapping operand", x.kept_undefined,
        x.kept);
  char *m = refusal(min);
  CHECK(!m, "the reduced program is refused: %s", m);
  free(m);
  ir_program_free(min);
  ir_program_free(p);
}

int main(void) {
  at_init();
  RUN(every_program_of_corpus_undefined_is_refused_naming_its_statement);
  RUN(a_partial_overlap_eager_runs_is_refused_with_the_rules_reason);
  RUN(defined_neighbours_of_undefined_programs_still_run);
  RUN(eager_lap_tells_none_same_and_partial_byte_by_byte);
  RUN(the_reducer_never_turns_a_defined_program_into_an_undefined_one);
  return tap_done();
}
