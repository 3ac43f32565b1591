/* test_layouts.c - input layouts (issue 16): inputs that share memory, strided, offset and
 * expanded inputs, built by the C eager runner and, through the worker protocol, by a Python
 * worker (tests/workers/layout_eager.py, afworker's Request.fresh); both must agree byte for
 * byte on every output, every input's final state and every storage's final state. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/converters/conv_worker.h"
#include "../harness/eager.h"
#include "../fuzz/judge.h"
#include "tap.h"

/* Whether two tensors have the same shape, dtype and bytes. */
static int same_bytes(const af_tensor *a, const af_tensor *b, char *why, size_t n) {
  if (!a || !b) return snprintf(why, n, "missing tensor"), 0;
  int ra = at_tensor_rank(a), rb = at_tensor_rank(b), da = at_tensor_dtype(a), db = at_tensor_dtype(b);
  int64_t sa[AF_MAX_RANK], sb[AF_MAX_RANK];
  if (ra != rb || da != db || ra > AF_MAX_RANK || da < 0) return snprintf(why, n, "rank or dtype differs"), 0;
  at_tensor_shape(a, sa);
  at_tensor_shape(b, sb);
  if (memcmp(sa, sb, sizeof(int64_t) * (size_t)ra)) return snprintf(why, n, "shape differs"), 0;
  size_t bytes = (size_t)at_tensor_numel(a) * af_dtype_size((af_dtype)da);
  unsigned char *x = malloc(bytes + 1), *y = malloc(bytes + 1);
  af_err err;
  int ok = !at_tensor_bytes(a, x, bytes, &err) && !at_tensor_bytes(b, y, bytes, &err) && !memcmp(x, y, bytes);
  if (!ok) snprintf(why, n, "bytes differ");
  free(x);
  free(y);
  return ok;
}

/* Programs with layouts: the seed cases (lay-*) and the conformance family (ali-*). */
static int load_dir(const char *dir, const char *prefix, ir_program **ps, char **ids, int max) {
  int n = 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d)) && n < max;) {
    size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, prefix, strlen(prefix)) || len < 6 || strcmp(e->d_name + len - 5, ".json")) continue;
    char path[1024];
    af_err err;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (codec_read_file(path, &ps[n], &err)) {
      CHECK(0, "%s", err.msg);
      continue;
    }
    ids[n++] = strdup(e->d_name);
  }
  closedir(d);
  return n;
}

TEST(inputs_that_view_one_storage_share_it_in_eager) {
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_file("corpus/seed/lay-002-overlapping-windows-of-hidden-base.json", &p, &err) == 0, "%s", err.msg);
  if (!p) return;
  af_tensor **in = NULL;
  CHECK(inputs_new(p, &in, &err) == 0 && ir_ntensors(p) == 3, "two windows and buf: %s", err.msg);
  if (in) {
    CHECK(at_tensor_shares_storage(in[0], in[1]) && at_tensor_shares_storage(in[0], in[2]), "w1, w2 and buf share memory");
    CHECK(at_tensor_storage_offset(in[1]) == 2, "w2 starts at element 2, not %lld", (long long)at_tensor_storage_offset(in[1]));
    double v[8];
    CHECK(at_tensor_values(in[1], v, &err) == 0 && v[0] == ir_base_value(p, 0, 2), "w2[0][0] is buf[2]");
  }
  inputs_free(ir_ntensors(p), in);
  ir_program_free(p);
}

TEST(a_python_worker_builds_the_same_layouts_and_gets_the_same_eager_results_byte_for_byte) {
  ir_program *ps[128];
  char *ids[128];
  int n = load_dir("corpus/seed", "lay-", ps, ids, 128);
  n += load_dir("corpus/conformance", "ali-", ps + n, ids + n, 128 - n);
  CHECK(n >= 40, "found %d programs with layouts", n);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "external:%s %s/tests/workers/layout_eager.py", at_stack_python(), AF_SOURCE_DIR);
  const conv_converter *c = conv_find(cmd);
  const char *why = NULL;
  CHECK(c && c->available(c, &why), "the layout worker starts: %s", why ? why : "");
  for (int k = 0; c && k < n; k++) {
    result e, r;
    af_err err;
    char what[128];
    result_init(&e);
    result_init(&r);
    CHECK(eager_run(ps[k], &e, &err) == 0 && e.status == RESULT_OK, "%s: eager: %s", ids[k], e.message ? e.message : err.msg);
    CHECK(conv_execute(c, ps[k], &r, &err) == 0 && r.status == RESULT_OK, "%s: worker: %s", ids[k], r.message ? r.message : err.msg);
    if (e.status == RESULT_OK && r.status == RESULT_OK) {
      CHECK(r.noutputs == e.noutputs && r.ninputs == e.ninputs && r.nbases == e.nbases, "%s: counts", ids[k]);
      for (int o = 0; o < e.noutputs && o < r.noutputs; o++)
        CHECK(same_bytes(e.outputs[o], r.outputs[o], what, sizeof what), "%s: output %d: %s", ids[k], o, what);
      for (int i = 0; i < e.ninputs && i < r.ninputs; i++)
        CHECK(same_bytes(e.inputs[i], r.inputs[i], what, sizeof what), "%s: input %d: %s", ids[k], i, what);
      for (int b = 0; b < e.nbases && b < r.nbases; b++)
        CHECK(same_bytes(e.bases[b], r.bases[b], what, sizeof what), "%s: base %d: %s", ids[k], b, what);
    }
    result_clear(&e);
    result_clear(&r);
    ir_program_free(ps[k]);
    free(ids[k]);
  }
  conv_worker_shutdown_all();
}

/* A worker whose hello does not say "layouts": true never gets such a program: it would build
 * unaliased inputs and answer for another program. */
TEST(a_worker_without_layouts_in_its_hello_declines_programs_with_layouts) {
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_file("corpus/seed/lay-001-input-and-its-slice-both-written.json", &p, &err) == 0, "%s", err.msg);
  const conv_converter *c = conv_find("external:python3 " AF_SOURCE_DIR "/tests/workers/misbehave.py");
  result r;
  result_init(&r);
  CHECK(p && c && conv_execute(c, p, &r, &err) == 0, "runs");
  CHECK(r.status == RESULT_UNSUPPORTED && r.message && strstr(r.message, "layouts: true"), "unsupported: %s",
        r.message ? r.message : "");
  result_clear(&r);
  ir_program_free(p);
  conv_worker_shutdown_all();
}

/* Calling orders (PROTOCOL.md "Calling again"): a worker whose hello says "caches" gets a layout
 * program in both orders: order 1 on the declared layout, order 2 call 1 on fresh contiguous
 * inputs, then call 2 on the declared layout with "again". The test worker here is right in order
 * 1 and on call 1 and, deliberately, loses the aliasing on call 2: the verdict must come from
 * order 2's call 2 and say so, with both calls' layouts. */
TEST(a_second_call_that_loses_the_aliasing_is_judged_and_named_as_call_2) {
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_file("corpus/seed/lay-001-input-and-its-slice-both-written.json", &p, &err) == 0, "%s", err.msg);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "external:%s %s/tests/workers/layout_eager.py --forgets-aliasing-when-called-again",
           at_stack_python(), AF_SOURCE_DIR);
  const conv_converter *c = conv_find(cmd);
  const char *why = NULL;
  CHECK(c && c->available(c, &why), "the worker starts: %s", why ? why : "");
  if (!p || !c || !c->available(c, &why)) goto out;
  CHECK(judge_calls_again(c, p), "a caching worker calls a layout program again");
  judgement j;
  CHECK(judge_inprocess(c, p, NULL, &j, &err) == 0, "judged: %s", err.msg);
  CHECK(j.ncalls == 3 && j.order == 2 && j.call == 2, "three calls, the verdict from order 2's call 2 (%d, %d, %d)",
        j.ncalls, j.order, j.call);
  CHECK(j.verdict == V_VALUE_MISMATCH || j.verdict == V_INPUT_MUTATION_LOST, "call 2 fails: %s",
        oracle_verdict_name(j.verdict));
  CHECK(j.detail && strstr(j.detail, "call 2 of 2 (b = as_strided(a, [2, 5], [5, 1], 5); a and b share a storage; call 1, fresh contiguous inputs, passed)"),
        "the detail names call 2 and both layouts: %s", j.detail ? j.detail : "(null)");
  CHECK(j.detail && !strncmp(j.detail, "order 2 of 2, compiled on fresh inputs and called again (order 1, compiled on "
                                       "the declared layout, passed): ", 108),
        "the detail names order 2: %s", j.detail ? j.detail : "(null)");
  judgement_clear(&j);
  /* the same worker without the second call: the declared layout, once, is right */
  setenv("AF_SECOND_CALL", "0", 1);
  CHECK(!judge_calls_again(c, p), "AF_SECOND_CALL=0: one call");
  CHECK(judge_inprocess(c, p, NULL, &j, &err) == 0 && j.verdict == V_PASS && j.ncalls == 0, "one call passes: %s",
        j.detail ? j.detail : "");
  judgement_clear(&j);
  unsetenv("AF_SECOND_CALL");
  /* a program without layouts is called once */
  ir_program *q = judge_plain_copy(p, &err);
  CHECK(q && !ir_has_layouts(q) && q->nbases == 0 && !judge_calls_again(c, q), "the plain copy has no layouts");
  if (q) { /* holding the values the layout gave: b is a[1:3] */
    af_tensor **t = NULL;
    double v[20];
    CHECK(inputs_new(q, &t, &err) == 0 && at_tensor_values(t[1], v, &err) == 0 && v[0] == ir_base_value(p, 0, 5),
          "plain b[0][0] is a[1][0]");
    inputs_free(ir_ntensors(q), t);
  }
  ir_program_free(q);
out:
  ir_program_free(p);
  conv_worker_shutdown_all();
}

/* The other calling order: a caching worker that is wrong when it converts on inputs that alias
 * (order 1, as AOTAutograd's synthetic-base path would be) and right when it converts on fresh
 * inputs and is called again on the aliased ones (order 2): the verdict comes from order 1 and
 * says so. Before both orders were judged, only order 2 was called and this read as pass. */
TEST(a_caching_worker_wrong_when_compiled_on_aliased_inputs_is_judged_and_named_as_order_1) {
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_file("corpus/seed/lay-001-input-and-its-slice-both-written.json", &p, &err) == 0, "%s", err.msg);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "external:%s %s/tests/workers/layout_eager.py --wrong-when-compiled-on-aliased-inputs",
           at_stack_python(), AF_SOURCE_DIR);
  const conv_converter *c = conv_find(cmd);
  const char *why = NULL;
  CHECK(c && c->available(c, &why), "the worker starts: %s", why ? why : "");
  if (!p || !c || !c->available(c, &why)) goto out;
  judgement j;
  CHECK(judge_inprocess(c, p, NULL, &j, &err) == 0, "judged: %s", err.msg);
  CHECK(j.verdict == V_VALUE_MISMATCH || j.verdict == V_INPUT_MUTATION_LOST, "order 1 fails: %s",
        oracle_verdict_name(j.verdict));
  CHECK(j.ncalls == 1 && j.order == 1 && j.call == 1, "one call, the verdict from order 1 (%d, %d, %d)", j.ncalls,
        j.order, j.call);
  CHECK(j.detail && !strncmp(j.detail, "order 1 of 2, compiled on the declared layout (b = as_strided(a, [2, 5], [5, 1], 5); a and b share a storage): ",
                             86),
        "the detail names order 1 and the layout: %s", j.detail ? j.detail : "(null)");
  judgement_clear(&j);
  /* order 2 alone (call 1 on fresh inputs, call 2 on the declared layout) is right: by hand */
  ir_program *q = judge_plain_copy(p, &err);
  conv_worker *w = conv_worker_of(c);
  CHECK(q && w && judge_inprocess(c, q, NULL, &j, &err) == 0 && j.verdict == V_PASS, "call 1 on fresh inputs passes");
  judgement_clear(&j);
  if (w) conv_worker_set_again(w, 1);
  setenv("AF_SECOND_CALL", "0", 1); /* one call: the program with "again" */
  CHECK(judge_inprocess(c, p, NULL, &j, &err) == 0 && j.verdict == V_PASS, "call 2 again on the aliased inputs passes: %s",
        j.detail ? j.detail : "");
  unsetenv("AF_SECOND_CALL");
  judgement_clear(&j);
  ir_program_free(q);
out:
  ir_program_free(p);
  conv_worker_shutdown_all();
}

int main(void) {
  at_init();
  RUN(inputs_that_view_one_storage_share_it_in_eager);
  RUN(a_python_worker_builds_the_same_layouts_and_gets_the_same_eager_results_byte_for_byte);
  RUN(a_worker_without_layouts_in_its_hello_declines_programs_with_layouts);
  RUN(a_second_call_that_loses_the_aliasing_is_judged_and_named_as_call_2);
  RUN(a_caching_worker_wrong_when_compiled_on_aliased_inputs_is_judged_and_named_as_order_1);
  return tap_done();
}
