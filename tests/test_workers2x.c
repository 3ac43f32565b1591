/* test_workers2x.c - the PyTorch 2.x workers (issue 14) against the real converters: export,
 * export-decomp, aot_eager, inductor, onnx-dynamo, tvm-relax and openvino.
 *
 *   test_workers2x seeds NAME [STRIDE]  every STRIDE-th case of corpus/seed/ (default every one)
 *                                       through converter NAME: a verdict on each, and no harness
 *                                       error (a protocol error, a handler bug in the worker, an
 *                                       invalid program, a worker that is not available)
 *   test_workers2x buffers              a program whose only effect is an in-place write into a
 *                                       module buffer, through export, aot_eager and openvino:
 *                                       each passes, and the same answer with the buffer's final
 *                                       state put back to its initial value is judged
 *                                       input-mutation-lost (the verdict rests on the buffer) */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "../harness/converters/conv_worker.h"
#include "../harness/eager.h"
#include "../harness/torch/shim.h"
#include "../oracle/oracle.h"
#include "tap.h"

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The seed cases' file names, sorted; new array of new strings, *n entries. */
static char **seed_files(int *n) {
  char **names = NULL;
  *n = 0;
  DIR *d = opendir(AF_SOURCE_DIR "/corpus/seed");
  if (!d) return NULL;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json")) continue;
    names = realloc(names, sizeof *names * (size_t)(*n + 1));
    names[(*n)++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)*n, sizeof *names, by_name);
  return names;
}

static const char *conv_name;
static int stride = 1;

TEST(worker_gives_a_verdict_on_every_seed_case_without_a_harness_error) {
  const conv_converter *c = conv_find(conv_name);
  const char *why = NULL;
  if (!c || !c->available(c, &why)) {
    CHECK(0, "%s is available: %s", conv_name, why ? why : "not registered");
    return;
  }
  int n = 0, judged = 0, counts[V_COUNT + 1] = {0};
  char **files = seed_files(&n);
  CHECK(n > 100, "the seed corpus has its cases (%d)", n);
  char prefix[128];
  snprintf(prefix, sizeof prefix, "worker %s: ", conv_name);
  for (int i = 0; i < n; i += stride) {
    char path[2048];
    snprintf(path, sizeof path, "%s/corpus/seed/%s", AF_SOURCE_DIR, files[i]);
    ir_program *p = NULL;
    af_err err;
    if (codec_read_file(path, &p, &err)) {
      CHECK(0, "%s", err.msg);
      continue;
    }
    result eager, conv;
    result_init(&eager);
    result_init(&conv);
    oracle_verdict v = V_COUNT;
    char *detail = NULL;
    if (eager_run(p, &eager, &err) == 0 && conv_execute(c, p, &conv, &err) == 0)
      v = oracle_judge(p, &eager, &conv, NULL, &detail);
    const char *msg = conv.message ? conv.message : "";
    CHECK(v != V_COUNT && v != V_INVALID_PROGRAM, "%s: a verdict (%s; %s)", files[i],
          v == V_COUNT ? "none" : oracle_verdict_name(v), v == V_COUNT ? err.msg : msg);
    CHECK(!strstr(msg, "protocol error"), "%s: no protocol error: %s", files[i], msg);
    CHECK(strncmp(msg, prefix, strlen(prefix)) != 0, "%s: no exception in the worker's own code: %s", files[i], msg);
    CHECK(!strstr(msg, "is not available"), "%s: the worker stays available: %s", files[i], msg);
    counts[v]++;
    judged++;
    free(detail);
    result_clear(&eager);
    result_clear(&conv);
    ir_program_free(p);
  }
  printf("# %s on %d seed cases:", conv_name, judged);
  for (int v = 0; v < V_COUNT; v++)
    if (counts[v]) printf(" %s %d", oracle_verdict_name((oracle_verdict)v), counts[v]);
  printf("\n");
  CHECK(counts[V_PASS] > 0, "%s passes some seed cases", conv_name);
  for (int i = 0; i < n; i++) free(files[i]);
  free(files);
}

/* self.b.add_(3) then r = x * 2: the output does not read the buffer, so only the buffer's final
 * state can tell a converter that dropped the write from one that kept it. */
static const char *buffer_program =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": ["
    "{\"name\": \"b\", \"shape\": [2, 3], \"dtype\": \"float32\", \"buffer\": true},"
    "{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}],"
    "\"body\": [{\"out\": \"v\", \"op\": \"select\", \"args\": [\"b\", 0, 1]},"
    "{\"op\": \"add_\", \"args\": [\"v\", 3]},"
    "{\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", 2]}],"
    "\"outputs\": [\"r\"], \"meta\": {\"note\": \"self.b[1].add_(3); r = x * 2\"}}";

static void expect_buffer_judged(const char *name) {
  const conv_converter *c = conv_find(name);
  const char *why = NULL;
  if (!c || !c->available(c, &why)) {
    CHECK(0, "%s is available: %s", name, why ? why : "not registered");
    return;
  }
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(buffer_program, "buffer", &p, &err)) {
    CHECK(0, "%s", err.msg);
    return;
  }
  result eager, conv;
  result_init(&eager);
  result_init(&conv);
  if (eager_run(p, &eager, &err) || conv_execute(c, p, &conv, &err)) {
    CHECK(0, "%s: runs: %s", name, err.msg);
    goto out;
  }
  char *detail = NULL;
  oracle_verdict v = oracle_judge(p, &eager, &conv, NULL, &detail);
  CHECK(v == V_PASS, "%s: the buffer write passes: %s (%s)", name, oracle_verdict_name(v),
        conv.message ? conv.message : detail ? detail : "");
  free(detail);
  detail = NULL;
  CHECK(conv.ninputs == 2 && conv.inputs[0], "%s: reports the buffer's final state", name);
  if (conv.ninputs == 2 && conv.inputs[0]) {
    double vals[6];
    CHECK(at_tensor_values(conv.inputs[0], vals, &err) == 0 && vals[3] == ir_input_value(&p->inputs[0], 0, 3) + 3,
          "%s: the buffer's row 1 got + 3", name);
    /* the same answer with the buffer as it was before the call */
    af_tensor **fresh = NULL;
    if (inputs_new(p, &fresh, &err) == 0) {
      at_tensor_free(conv.inputs[0]);
      conv.inputs[0] = fresh[0];
      fresh[0] = NULL;
      v = oracle_judge(p, &eager, &conv, NULL, &detail);
      CHECK(v == V_INPUT_MUTATION_LOST, "%s: a buffer left as it was is input-mutation-lost, not %s (%s)", name,
            oracle_verdict_name(v), detail ? detail : "");
      free(detail);
      inputs_free(p->ninputs, fresh);
    }
  }
out:
  result_clear(&eager);
  result_clear(&conv);
  ir_program_free(p);
}

TEST(export_is_judged_on_a_module_buffer_written_in_place) { expect_buffer_judged("export"); }
TEST(aot_eager_is_judged_on_a_module_buffer_written_in_place) { expect_buffer_judged("aot_eager"); }
TEST(openvino_is_judged_on_a_module_buffer_written_in_place) { expect_buffer_judged("openvino"); }

int main(int argc, char **argv) {
  at_init();
  if (argc > 2 && strcmp(argv[1], "seeds") == 0) {
    conv_name = argv[2];
    if (argc > 3) stride = atoi(argv[3]) > 0 ? atoi(argv[3]) : 1;
    RUN(worker_gives_a_verdict_on_every_seed_case_without_a_harness_error);
    return tap_done();
  }
  if (argc > 1 && strcmp(argv[1], "buffers") == 0) {
    RUN(export_is_judged_on_a_module_buffer_written_in_place);
    RUN(aot_eager_is_judged_on_a_module_buffer_written_in_place);
    RUN(openvino_is_judged_on_a_module_buffer_written_in_place);
    return tap_done();
  }
  fprintf(stderr, "usage: test_workers2x seeds NAME [STRIDE] | buffers\n");
  return 2;
}
