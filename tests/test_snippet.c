/* test_snippet.c - snippet.py (harness/emit_snippet.h).
 *   test_snippet                  what the snippets say (no Python): quick
 *   test_snippet python PYTHON    the snippets run in PYTHON (the stack's, with the converters'
 *                                 packages): docs/findings' exit 1; on seed cases that fail on a
 *                                 converter (corpus/expectations), snippet.py exits as repro.py;
 *                                 the ATen-only method list agrees with PyTorch. Every script runs
 *                                 in one Python process (runpy), so PyTorch starts once.
 *   test_snippet train PYTHON     a training program's repro.py and snippet.py on real aot_eager
 *                                 run the backward: 0 as they are, 1 with a planted gradient
 *                                 mistake (issue 33). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../fuzz/findings.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/emit_repro.h"
#include "../harness/emit_snippet.h"
#include "../harness/ops/ops.h"
#include "../harness/torch/shim.h"
#include "../reports/report.h"
#include "tap.h"

static ir_program *parse(const char *json) {
  ir_program *p = NULL;
  af_err err;
  if (codec_read_string(json, "inline", &p, &err)) CHECK(0, "%s", err.msg);
  return p;
}

static char *snippet_of(const char *json, const char *converter, const char *verdict) {
  ir_program *p = parse(json);
  if (!p) return NULL;
  af_err err;
  char *s = emit_snippet_py(p, converter, verdict, &err);
  CHECK(s != NULL, "%s", err.msg);
  ir_program_free(p);
  return s;
}

static int lines(const char *s) {
  int n = 0;
  for (; s && *s; s++) n += *s == '\n';
  return n;
}

static char *run_capture(const char *cmd) {
  FILE *f = popen(cmd, "r");
  if (!f) return NULL;
  af_buf b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk - 1, f)) > 0) {
    chunk[n] = 0;
    af_buf_puts(&b, chunk);
  }
  int st = pclose(f);
  if (st != 0) CHECK(0, "%s: exit status %d", cmd, st);
  return b.s ? af_buf_take(&b) : strdup("");
}

static int write_text(const char *path, const char *text) {
  af_err err;
  if (codec_write_atomic(path, text, strlen(text), &err)) {
    CHECK(0, "%s", err.msg);
    return -1;
  }
  return 0;
}

/* The finding folders kept in docs/findings/ (NULL-terminated, new). */
static char **docs_findings(void) {
  DIR *d = opendir("docs/findings");
  char **out = calloc(64, sizeof *out);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) && n < 63) {
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "docs/findings/%s/repro.json", e->d_name);
    if (e->d_name[0] != '.' && stat(path, &st) == 0) {
      snprintf(path, sizeof path, "docs/findings/%s", e->d_name);
      out[n++] = strdup(path);
    }
  }
  if (d) closedir(d);
  return out;
}

static void free_list(char **l) {
  for (int i = 0; l && l[i]; i++) free(l[i]);
  free(l);
}

TEST(docs_findings_snippets_are_what_aliasfuzz_snippet_writes_and_fit_in_15_lines) {
  char **dirs = docs_findings();
  int n = 0;
  for (int i = 0; dirs[i]; i++, n++) {
    char cmd[1024], path[600];
    snprintf(cmd, sizeof cmd, "%s/aliasfuzz snippet %s --stdout", AF_BINARY_DIR, dirs[i]);
    char *want = run_capture(cmd);
    snprintf(path, sizeof path, "%s/snippet.py", dirs[i]);
    af_err err;
    char *have = codec_slurp(path, NULL, &err);
    CHECK(have && want && strcmp(have, want) == 0,
          "%s differs from `aliasfuzz snippet %s --stdout` (regenerate it: aliasfuzz snippet %s)", path, dirs[i], dirs[i]);
    CHECK(want && lines(want) <= EMIT_SNIPPET_MAX_LINES, "%s: %d lines", dirs[i], lines(want));
    free(want);
    free(have);
  }
  CHECK(n >= 8, "%d finding folders in docs/findings", n);
  free_list(dirs);
}

TEST(a_method_python_lacks_is_spelled_through_torch_ops_aten) {
  char *s = snippet_of("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x1\", \"shape\": [3], \"dtype\": "
                       "\"float32\"}, {\"name\": \"x2\", \"shape\": [3], \"dtype\": \"float64\"}], \"body\": [{\"out\": "
                       "\"v1\", \"op\": \"copy\", \"args\": [\"x1\", \"x2\"]}, {\"op\": \"zero_\", \"args\": [\"x2\"]}], "
                       "\"outputs\": [\"v1\"]}",
                       "script", "value-mismatch");
  CHECK(s && strstr(s, "v1 = torch.ops.aten.copy(x1, x2)\n"), "%s", s ? s : "(none)");
  CHECK(s && !strstr(s, "x1.copy("), "%s", s ? s : "(none)");
  CHECK(s && strstr(s, "x2.zero_()"), "a method Python has stays a method: %s", s ? s : "(none)");
  free(s);
}

static const char *hidden_base_program =
    "{\"format\": \"aliasfuzz-program/1\", \"bases\": [{\"name\": \"buf\", \"size\": 4, \"dtype\": \"float32\"}], "
    "\"inputs\": [{\"name\": \"x\", \"shape\": [2], \"dtype\": \"float32\", \"view_of\": \"buf\", \"strides\": [1], "
    "\"offset\": 0}, {\"name\": \"y\", \"shape\": [1], \"dtype\": \"float32\", \"view_of\": \"buf\", \"strides\": [1], "
    "\"offset\": 1}], \"body\": [{\"op\": \"add_\", \"args\": [\"y\", 1]}], \"outputs\": []}";

TEST(inputs_that_view_a_hidden_base_are_as_strided_views_and_the_base_is_compared) {
  char *s = snippet_of(hidden_base_program, "script", "value-mismatch");
  CHECK(s && strstr(s, "def args(): buf = torch.tensor([1.0, -3.0, 4.0, 0.0]); return [buf.as_strided([2], [1], 0), "
                       "buf.as_strided([1], [1], 1), buf]\n"),
        "%s", s ? s : "(none)");
  CHECK(s && strstr(s, "f(*e[:2]); want = [*e]") && strstr(s, "cf(*c[:2]); got = [*c]"), "%s", s ? s : "(none)");
  free(s);
  /* a model that returns the final states: forward returns them, no base among its arguments */
  s = snippet_of(hidden_base_program, "onnx", "value-mismatch");
  CHECK(s && strstr(s, "        return (x.clone(), y.clone())\n") && strstr(s, "return [buf.as_strided([2], [1], 0), "
                                                                              "buf.as_strided([1], [1], 1)]\n"),
        "%s", s ? s : "(none)");
  CHECK(s && strstr(s, "import sys, torch; import io, onnxruntime  #"), "%s", s ? s : "(none)");
  free(s);
}

TEST(an_input_viewed_by_another_is_its_storage_and_compile_calls_twice) {
  char *s = snippet_of("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": "
                       "\"float64\"}, {\"name\": \"y\", \"shape\": [2], \"dtype\": \"float64\", \"view_of\": \"x\", "
                       "\"strides\": [1], \"offset\": 1}], \"body\": [{\"op\": \"add_\", \"args\": [\"y\", 1]}], "
                       "\"outputs\": [\"x\"]}",
                       "aot_eager", "value-mismatch");
  CHECK(s && strstr(s, "def args(): x = torch.tensor([-5.0, 2.0, -2.0], dtype=torch.float64); return [x, "
                       "x.as_strided([2], [1], 1)]\n"),
        "%s", s ? s : "(none)");
  CHECK(s && strstr(s, "cf(*[t.clone(memory_format=torch.contiguous_format) for t in c])"), "%s", s ? s : "(none)");
  CHECK(s && strstr(s, "got = [cf(*c), *c]"), "%s", s ? s : "(none)");
  free(s);
}

/* The calling orders (judge.h): a finding whose detail says order 1 (compiled on the laid-out
 * inputs) gets one compiled call on them, as repro.py's order 1; any other gets order 2's two
 * calls (separate copies compile, the laid-out inputs reuse). */
static const char order_program[] =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [2, 1], \"dtype\": \"float32\", "
    "\"strides\": [6, 1], \"offset\": 0, \"storage\": 24}, {\"name\": \"y\", \"shape\": [1, 1], \"dtype\": "
    "\"float32\", \"view_of\": \"x\", \"strides\": [6, 1], \"offset\": 6}], \"body\": [{\"op\": \"add_\", \"args\": "
    "[\"x\", 1]}, {\"op\": \"add_\", \"args\": [\"y\", 1]}], \"outputs\": []}";

TEST(an_order_1_finding_makes_one_compiled_call_on_the_laid_out_inputs) {
  ir_program *p = parse(order_program);
  af_err err;
  char *one = p ? emit_snippet_py_order(p, "aot_eager", "value-mismatch", "order 1 of 2, compiled on the declared "
                                        "layout (y = as_strided(x, [1, 1], [6, 1], 6)): input x: ...", &err) : NULL;
  char *two = p ? emit_snippet_py_order(p, "aot_eager", "value-mismatch", "order 2 of 2, compiled on fresh inputs and "
                                        "called again (...): call 2 of 2 (...): input x: ...", &err) : NULL;
  CHECK(one && !strstr(one, "contiguous_format") && strstr(one, "cf = torch.compile(f, backend=\"aot_eager\")\ncf(*c)"),
        "order 1: one call on the laid-out inputs: %s", one ? one : "(none)");
  CHECK(two && strstr(two, "cf(*[t.clone(memory_format=torch.contiguous_format) for t in c])"),
        "order 2: call 1 on separate copies: %s", two ? two : "(none)");
  free(one);
  free(two);
  ir_program_free(p);
}

TEST(functionalize_imports_what_this_stack_has) {
  char *s = snippet_of(hidden_base_program, "functionalize", "value-mismatch");
  const char *want = atoi(at_version()) >= 2 ? "; from torch.func import functionalize; from torch.fx.experimental.proxy_tensor "
                                               "import make_fx  #"
                                             : "; from functorch import functionalize, make_fx  #";
  CHECK(s && strstr(s, want) && strstr(s, "cf = make_fx(functionalize(f, remove=\"mutations\"))(*args()[:2])\n"), "%s",
        s ? s : "(none)");
  free(s);
}

TEST(a_crash_finding_converts_in_a_child_and_exits_1_when_it_dies) {
  char *s = snippet_of("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [], \"dtype\": "
                       "\"float64\"}], \"body\": [{\"op\": \"log1p_\", \"args\": [\"x\"]}], \"outputs\": [\"x\"]}",
                       "onnx", "converter-crash");
  CHECK(s && strstr(s, "if sys.argv[1:] != [\"child\"]: sys.exit(subprocess.run([sys.executable, __file__, \"child\"]"),
        "%s", s ? s : "(none)");
  CHECK(s && strstr(s, "import subprocess, sys, torch; import io, onnxruntime"), "%s", s ? s : "(none)");
  free(s);
}

TEST(many_default_values_are_the_formula_few_are_literals) {
  char *s = snippet_of("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"a\", \"shape\": [7, 8], \"dtype\": "
                       "\"int32\"}, {\"name\": \"b\", \"shape\": [3], \"dtype\": \"bool\"}], \"body\": [{\"op\": \"neg_\", "
                       "\"args\": [\"a\"]}], \"outputs\": [\"b\"]}",
                       "script", "value-mismatch");
  CHECK(s && strstr(s, "((torch.arange(56) * 7 + 0) % 11 - 5).to(torch.int32).reshape([7, 8])"), "%s", s ? s : "(none)");
  CHECK(s && strstr(s, "torch.tensor([False, False, True])"), "element k of input 1: (k + 1) %% 3 == 0: %s", s ? s : "(none)");
  free(s);
}

TEST(a_converter_without_a_stock_api_gets_no_snippet_and_says_why) {
  ir_program *p = parse(hidden_base_program);
  af_err err;
  for (const char *const *c = (const char *const[]){"ref", "naive", NULL}; *c; c++) {
    char *s = emit_snippet_py(p, *c, "value-mismatch", &err);
    CHECK(!s && strstr(err.msg, *c), "%s: %s", *c, s ? s : err.msg);
    free(s);
  }
  char *s = emit_snippet_py(p, "exprot", "value-mismatch", &err);
  CHECK(!s && strstr(err.msg, "no converter of that name"), "a misspelt name: %s", s ? s : err.msg);
  free(s);
  ir_program_free(p);
}

/* repro.py's header says the install that keeps torch: a package whose metadata pulls another torch
 * (executorch: workers.def's "--no-deps") in a second pip command with --no-deps, after its
 * run-time dependencies; a converter without one in a single command. */
TEST(repro_py_header_installs_no_deps_packages_with_no_deps) {
  ir_program *p = parse(hidden_base_program);
  static const char *const cases[][2] = {
      {"executorch", "pip install ruamel.yaml==0.19.1 PyYAML==6.0.4 tabulate==0.10.0 flatbuffers==25.12.19 numpy==2.4.6 "
                     "&& pip install --no-deps executorch==1.5.1\n"},
      {"onnx-dynamo", "pip install onnx==1.23.2 onnxscript==0.7.2 onnxruntime==1.32.0\n"}};
  for (int k = 0; k < 2; k++) {
    repro_info ri = {cases[k][0], "", "value-mismatch", NULL, NULL, NULL, "test_snippet"};
    char *repro = emit_repro_py(p, &ri), *line = repro ? strstr(repro, "# Needs besides torch: ") : NULL;
    CHECK(line && !strncmp(line + 23, cases[k][1], strlen(cases[k][1])), "%s: %.200s", cases[k][0], line ? line : "(no line)");
    free(repro);
  }
  ir_program_free(p);
}

TEST(every_converter_with_a_snippet_is_a_registered_converter) {
  /* the table names converters; a renamed converter would silently lose its snippets */
  static const char *const expected[] = {"script", "jit", "functionalize", "functionalize-noviews", "functorch",
                                         "aot_eager", "inductor", "export", "export-decomp", "onnx-dynamo",
                                         "onnx", "tvm-relax", "openvino", "executorch", "iree", "torchax", NULL};
  int major = atoi(at_version()) >= 2 ? 2 : 1;
  for (int i = 0; expected[i]; i++) {
    const char *why = NULL;
    CHECK(conv_find(expected[i]) != NULL, "%s is no registered converter", expected[i]);
    int two_only = i >= 5 && strcmp(expected[i], "onnx") != 0;
    if (major == 2 || !two_only) CHECK(emit_snippet_supported(expected[i], major, &why), "%s: %s", expected[i], why);
  }
}

TEST(a_finding_folder_gets_snippet_py_and_the_reports_show_it_for_its_class) {
  char dir[] = "/tmp/af-test-snippet-report-XXXXXX";
  if (!mkdtemp(dir)) return;
  ir_program *p = parse(hidden_base_program);
  finding f = {.converter = "script", .verdict = V_VALUE_MISMATCH, .detail = "input y: values differ",
               .original = p, .minimized = p, .seed = 1, .iteration = 0};
  int is_new = 0, counted = 0;
  char id[64], path[4200];
  af_err err;
  CHECK(p && findings_record(dir, &f, &is_new, &counted, id, &err) == 0, "%s", err.msg);
  snprintf(path, sizeof path, "%s/findings/%s/snippet.py", dir, id);
  char *snip = codec_slurp(path, NULL, &err);
  CHECK(snip && strstr(snip, "cf = torch.jit.script(f)"), "%s: %s", path, snip ? snip : err.msg);
  /* the class whose smallest program it is: report.md and report.html show the snippet */
  char classes[512];
  snprintf(classes, sizeof classes, "{\"classes\": [{\"id\": \"c1\", \"verdict\": \"value-mismatch\", \"smallest\": "
           "\"%s\", \"findings\": [\"%s\"], \"count\": 1, \"statements\": 1, \"detail\": \"input y: values differ\"}]}",
           id, id);
  snprintf(path, sizeof path, "%s/classes.json", dir);
  write_text(path, classes);
  int64_t verdicts[V_COUNT] = {[V_VALUE_MISMATCH] = 1};
  report_campaign_figures fig = {.programs = 1, .seconds = 1, .verdicts = verdicts};
  CHECK(report_write_campaign(dir, &fig, &err) == 0 && report_campaign_html(dir, &err) == 0, "%s", err.msg);
  static const char *const pages[] = {"report.md", "report.html"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, pages[k]);
    char *text = codec_slurp(path, NULL, &err);
    CHECK(text && strstr(text, "<details><summary>snippet.py for an upstream report") &&
              strstr(text, "cf = torch.jit.script(f)"),
          "%s shows the class's snippet.py", path);
    free(text);
  }
  free(snip);
  ir_program_free(p);
  char rm[200];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  if (system(rm)) CHECK(0, "%s", rm);
}

/* ---- python mode ---- */

/* Runs every script of paths in one PYTHON process (runpy, sys.argv = [script]); status[i] is
 * its exit status (an uncaught exception: 1, as Python's), or -1 when the process died while it
 * ran (the scripts after it run in a new process). Output goes to log. */
static void run_batch(const char *python, char **paths, int n, int *status, const char *log) {
  static const char runner[] =
      "import runpy, sys, traceback\n"
      "for path in sys.argv[1:]:\n"
      "    print('=== ' + path, flush=True)\n"
      "    sys.argv, code = [path], 0\n"
      "    try:\n"
      "        runpy.run_path(path, run_name='__main__')\n"
      "    except SystemExit as e:\n"
      "        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)\n"
      "    except BaseException:\n"
      "        traceback.print_exc()\n"
      "        code = 1\n"
      "    sys.stdout.flush(); sys.stderr.flush()\n"
      "    print('STATUS %d %s' % (code, path), flush=True)\n";
  for (int i = 0; i < n; i++) status[i] = -2;
  for (int from = 0; from < n;) {
    af_buf cmd = {0};
    af_buf_printf(&cmd, "cd %s && %s -c \"$AF_SNIPPET_RUNNER\"", AF_SOURCE_DIR, python);
    for (int i = from; i < n; i++) af_buf_printf(&cmd, " '%s'", paths[i]);
    af_buf_printf(&cmd, " >>%s 2>&1", log);
    setenv("AF_SNIPPET_RUNNER", runner, 1);
    int rc = system(cmd.s);
    af_buf_free(&cmd);
    char *text = codec_slurp(log, NULL, &(af_err){0});
    for (const char *l = text ? strstr(text, "STATUS ") : NULL; l; l = strstr(l + 1, "\nSTATUS ")) {
      const char *s = l[0] == '\n' ? l + 1 : l;
      int code;
      char path[1024];
      if (sscanf(s, "STATUS %d %1023s", &code, path) == 2)
        for (int i = from; i < n; i++)
          if (strcmp(paths[i], path) == 0) status[i] = code;
    }
    free(text);
    int next = from;
    while (next < n && status[next] != -2) next++;
    if (next < n) status[next] = -1; /* the process died in it (rc says how) */
    if (next < n) fprintf(stderr, "# %s ended the batch process (status %d)\n", paths[next], rc);
    from = next + 1;
  }
}

static const char *python_bin;
static char tmpdir[] = "/tmp/af-test-snippet-XXXXXX";

TEST(the_aten_only_list_is_what_pytorch_lacks_among_the_op_tables_methods) {
  af_buf cmd = {0};
  af_buf_printf(&cmd, "%s -c \"import sys, torch; print(' '.join(sorted(set(n for n in sys.argv[1:] if not "
                      "hasattr(torch.Tensor, n)))))\"", python_bin);
  for (int op = 0; op < OPS_COUNT; op++) {
    const char *sp = ops_get(op)->spelling;
    for (const char *m = strstr(sp, "$0."); m; m = strstr(m + 1, "$0.")) {
      size_t n = strspn(m + 3, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
      if (m[3 + n] == '(' && strncmp(m + 3, "append", n) != 0) af_buf_printf(&cmd, " %.*s", (int)n, m + 3);
    }
  }
  char *have = run_capture(cmd.s);
  af_buf want = {0};
  for (const char *const *n = emit_snippet_aten_only(); *n; n++) af_buf_printf(&want, "%s%s", want.len ? " " : "", *n);
  if (have) have[strcspn(have, "\n")] = 0;
  CHECK(have && want.s && strcmp(have, want.s) == 0, "PyTorch lacks: %s; emit_snippet.c lists: %s", have, want.s);
  free(have);
  af_buf_free(&want);
  af_buf_free(&cmd);
}

/* Whether import statement stmt (trimmed) is one of the `;`-separated statements of line. */
static int import_in(const char *stmt, const char *line) {
  size_t n = strlen(stmt);
  for (const char *p = line; *p;) {
    while (*p == ' ') p++;
    size_t len = strcspn(p, ";");
    size_t t = len;
    while (t && p[t - 1] == ' ') t--;
    if (t == n && !strncmp(p, stmt, n)) return 1;
    p += len + (p[len] == ';');
  }
  return 0;
}

/* Whether a snippet's first line imports only torch (and sys, subprocess) and what some
 * converter's stock API needs (emit_snippet_imports: the table snippets are written from). */
static int imports_only_stock(const char *text) {
  char *first = strndup(text, strcspn(text, "\n#"));
  int good = 1;
  for (char *part = strtok(first, ";"); part; part = strtok(NULL, ";")) {
    while (*part == ' ') part++;
    size_t len = strlen(part);
    while (len && part[len - 1] == ' ') part[--len] = 0;
    int known = !strcmp(part, "import sys, torch") || !strcmp(part, "import subprocess, sys, torch");
    for (int i = 0; !known && emit_snippet_imports(i); i++) known = import_in(part, emit_snippet_imports(i));
    if (!known) good = 0;
  }
  free(first);
  for (const char *l = strchr(text, '\n'); l; l = strchr(l + 1, '\n'))
    if (strncmp(l + 1, "import ", 7) == 0 || strncmp(l + 1, "from ", 5) == 0) good = 0; /* imports on line 1 only */
  return good;
}

TEST(docs_findings_snippets_exit_1_with_stock_imports) {
  char **dirs = docs_findings();
  char *paths[64];
  int n = 0, status[64];
  for (int i = 0; dirs[i]; i++) {
    char path[600];
    snprintf(path, sizeof path, "%s/snippet.py", dirs[i]);
    char *text = codec_slurp(path, NULL, &(af_err){0});
    CHECK(text && imports_only_stock(text), "%s imports more than torch and its converter's package", path);
    free(text);
    paths[n++] = strdup(path);
  }
  char log[256];
  snprintf(log, sizeof log, "%s/docs.log", tmpdir);
  run_batch(python_bin, paths, n, status, log);
  for (int i = 0; i < n; i++) {
    CHECK(status[i] == 1, "%s exited %d, 1 expected (the bug is there); log: %s", paths[i], status[i], log);
    free(paths[i]);
  }
  free_list(dirs);
}

/* Seed cases that fail on each converter (its seed expectations), per converter the first few in
 * order of their ids, and the first that passes (written as if it had failed with a value
 * mismatch): snippet.py exits as repro.py does, 1 on the failures and 0 on the pass. */
TEST(snippet_exits_as_repro_py_on_seed_cases_that_fail_and_one_that_passes) {
  /* converter, its expectation file, the corpus that file judges: the seed corpus for the workers,
   * the conformance suite for the in-process converters, whose failures here are value mismatches
   * only (an in-process error may be a harness artifact, docs/user-path.md: repro.py exits 0) */
  static const char *const convs[][3] = {
      {"aot_eager", "aot_eager-seed", "corpus/seed"},       {"export", "export-seed", "corpus/seed"},
      {"export-decomp", "export-decomp-seed", "corpus/seed"}, {"onnx-dynamo", "onnx-dynamo-seed", "corpus/seed"},
      {"tvm-relax", "tvm-relax-seed", "corpus/seed"},       {"openvino", "openvino-seed", "corpus/seed"},
      {"functionalize", "functionalize", "corpus/conformance"}, {"jit", "jit", "corpus/conformance"}, {NULL, NULL, NULL}};
  enum { PER_CONVERTER = 2, MAX = 32 };
  char *paths[2 * MAX], *names[MAX];
  int n = 0, status[2 * MAX], fails[MAX];
  for (int c = 0; convs[c][0]; c++) {
    char path[512];
    snprintf(path, sizeof path, "corpus/expectations/%s/%s.json", at_stack(), convs[c][1]);
    char *text = codec_slurp(path, NULL, &(af_err){0});
    cJSON *j = cJSON_Parse(text ? text : ""), *cases = cJSON_GetObjectItem(j, "cases"), *e;
    free(text);
    CHECK(cJSON_IsObject(cases), "%s: no cases", path);
    /* cJSON keeps the file's order: ids sorted, as --update-expect writes them */
    int taken = 0, passing = 0;
    cJSON_ArrayForEach(e, cases) {
      cJSON *v = cJSON_IsString(e) ? e : cJSON_GetObjectItem(e, "verdict");
      const char *verdict = cJSON_IsString(v) ? v->valuestring : "pass";
      int in_process = !strcmp(convs[c][2], "corpus/conformance");
      int fail = !strcmp(verdict, "value-mismatch") ||
                 (!in_process && (!strcmp(verdict, "converter-error") || !strcmp(verdict, "converter-crash")));
      if ((taken == PER_CONVERTER && passing) || n == MAX) break;
      if (fail ? taken == PER_CONVERTER : passing || strcmp(verdict, "pass")) continue; /* (also other failures) */
      if (!fail) verdict = "value-mismatch";
      char file[600], dir[800];
      snprintf(file, sizeof file, "%s/%s.json", convs[c][2], e->string);
      ir_program *p = NULL;
      af_err err;
      if (codec_read_file(file, &p, &err)) {
        CHECK(0, "%s", err.msg);
        continue;
      }
      snprintf(dir, sizeof dir, "%s/%s-%s", tmpdir, convs[c][0], e->string);
      mkdir(dir, 0755);
      const conv_converter *cv = conv_find(convs[c][0]);
      repro_info ri = {convs[c][0], "", verdict, NULL, cv ? cv->repro_py : NULL, NULL, "test_snippet"};
      char *repro = emit_repro_py(p, &ri), *snip = emit_snippet_py(p, convs[c][0], verdict, &err);
      CHECK(snip != NULL, "%s on %s: %s", e->string, convs[c][0], err.msg);
      char rp[900], sp[900];
      snprintf(rp, sizeof rp, "%s/repro.py", dir);
      snprintf(sp, sizeof sp, "%s/snippet.py", dir);
      if (snip && !write_text(rp, repro) && !write_text(sp, snip)) {
        names[n] = strdup(dir);
        paths[2 * n] = strdup(rp);
        paths[2 * n + 1] = strdup(sp);
        fails[n++] = fail;
        taken += fail, passing += !fail;
      }
      free(repro);
      free(snip);
      ir_program_free(p);
    }
    cJSON_Delete(j);
    CHECK(taken == PER_CONVERTER && passing, "%s: %d failing cases (%d expected), %d passing", convs[c][0], taken,
          PER_CONVERTER, passing);
  }
  char log[256];
  snprintf(log, sizeof log, "%s/seeds.log", tmpdir);
  setenv("AF_REPRO_DEADLINE", "300", 1);
  run_batch(python_bin, paths, 2 * n, status, log);
  for (int i = 0; i < n; i++) {
    /* repro.py of a crash exits 1 through its child, as the snippet does */
    CHECK(status[2 * i] == fails[i], "%s/repro.py exited %d, %d expected (the expectation's verdict); log: %s", names[i],
          status[2 * i], fails[i], log);
    CHECK(status[2 * i + 1] == status[2 * i], "%s: snippet.py exited %d, repro.py %d; log: %s", names[i],
          status[2 * i + 1], status[2 * i], log);
    printf("# %s: repro.py %d, snippet.py %d\n", names[i], status[2 * i], status[2 * i + 1]);
    free(names[i]);
    free(paths[2 * i]);
    free(paths[2 * i + 1]);
  }
}

/* The same finding, run (real aot_eager, torch 2.13.0): aot_eager compiled on inputs that alias at
 * compile time (y is x[1] in one strided storage) loses one of the two writes to x[1]; compiled on
 * fresh inputs it would not be asked. repro.py (both orders) stops at order 1 and says so, and the
 * order-1 snippet exits 1 too. */
TEST(an_order_1_finding_of_aot_eager_exits_1_in_repro_py_and_snippet_py) {
  ir_program *p = parse(order_program);
  const conv_converter *c = conv_find("aot_eager");
  if (!p || !c) {
    CHECK(0, "program and aot_eager");
    return;
  }
  af_err err;
  const char *detail = "order 1 of 2, compiled on the declared layout (y = as_strided(x, [1, 1], [6, 1], 6)): input x";
  repro_info ri = {"aot_eager", "", "value-mismatch", detail, c->repro_py, NULL, "test_snippet"};
  char *repro = emit_repro_py(p, &ri), *snip = emit_snippet_py_order(p, "aot_eager", "value-mismatch", detail, &err);
  char rp[600], sp[600], log[600];
  snprintf(rp, sizeof rp, "%s/order1-repro.py", tmpdir);
  snprintf(sp, sizeof sp, "%s/order1-snippet.py", tmpdir);
  snprintf(log, sizeof log, "%s/order1.log", tmpdir);
  CHECK(repro && snip && !write_text(rp, repro) && !write_text(sp, snip), "written");
  char *paths[2] = {rp, sp};
  int status[2] = {-1, -1};
  run_batch(python_bin, paths, 2, status, log);
  char *out = codec_slurp(log, NULL, &err);
  CHECK(status[0] == 1 && out && strstr(out, "RESULT: MISMATCH (the bug reproduces) in order 1 of 2"),
        "repro.py exits 1 in order 1: %d; log: %s", status[0], log);
  CHECK(status[1] == 1, "snippet.py exits 1: %d; log: %s", status[1], log);
  free(out);
  free(repro);
  free(snip);
  ir_program_free(p);
}

/* text with its first `from` replaced by `to` (new), or NULL when text has none. */
static char *replaced(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  if (!at) return NULL;
  af_buf b = {0};
  af_buf_printf(&b, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  return af_buf_take(&b);
}
/* The text between "=== path" and "STATUS" of run_batch's log (new), or NULL. */
static char *segment(const char *log, const char *path) {
  char head[700];
  snprintf(head, sizeof head, "=== %s\n", path);
  const char *at = log ? strstr(log, head) : NULL, *end = at ? strstr(at, "\nSTATUS ") : NULL;
  if (!at || !end) return NULL;
  af_buf b = {0};
  af_buf_printf(&b, "%.*s", (int)(end - at), at);
  return af_buf_take(&b);
}

/* The runtime workers whose model returns every input's final state instead of writing it into the
 * caller's tensors (onnx, onnx-dynamo, tvm-relax, openvino, executorch, iree, torchax): repro.py
 * writes the returned states back into the caller's tensors as the worker does
 * (afconvert.write_states), so the storage an input views holds what the caller has. x is buf[1:5]
 * of a hidden buffer, x.add_(1): each converter returns x's state right and the worker passes;
 * repro.py used to compare buf untouched with eager's and exit 1. And for each, repro.py of an
 * input-mutation finding exits 1 because the input differs: the real one of onnx (it drops the
 * write through x.unfold(...).abs_()), and for every runtime the same program converted without its
 * write (planted in repro.py: `r = torch.mul(x + 1, 2)`, the same output), so only x's state tells. */
/* Issue 29: module state in a plain tensor attribute (`self.t = t`, not register_buffer). torch.export
 * drops a rebind of it (the export worker's input-mutation-lost): repro.py and snippet.py build the
 * module as the worker does and exit 1; the same program with a registered buffer exits 0 in both. */
TEST(an_attribute_rebind_lost_by_export_exits_1_in_repro_py_and_snippet_py_and_0_as_a_buffer) {
  static const char *const kinds[] = {"attribute", "buffer"};
  char path[4][600], *paths[4], log[600];
  int status[4];
  const conv_converter *c = conv_find("export");
  for (int k = 0; k < 2; k++) {
    char text[700];
    snprintf(text, sizeof text,
             "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"t\", \"shape\": [3], \"dtype\": \"float32\", "
             "\"%s\": true}, {\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}], \"body\": [{\"out\": \"t\", "
             "\"op\": \"add\", \"args\": [\"t\", \"x\"]}, {\"out\": \"y\", \"op\": \"mul\", \"args\": [\"t\", 2]}], "
             "\"outputs\": [\"y\"]}",
             kinds[k]);
    ir_program *p = parse(text);
    if (!p) return;
    af_err err;
    repro_info ri = {"export", "", "input-mutation-lost", NULL, c ? c->repro_py : NULL, NULL, "test_snippet"};
    char *repro = emit_repro_py(p, &ri), *snip = emit_snippet_py(p, "export", "input-mutation-lost", &err);
    snprintf(path[2 * k], sizeof path[0], "%s/%s-repro.py", tmpdir, kinds[k]);
    snprintf(path[2 * k + 1], sizeof path[0], "%s/%s-snippet.py", tmpdir, kinds[k]);
    paths[2 * k] = path[2 * k], paths[2 * k + 1] = path[2 * k + 1];
    CHECK(repro && snip && !write_text(path[2 * k], repro) && !write_text(path[2 * k + 1], snip), "%s: written (%s)", kinds[k],
          snip ? "" : err.msg);
    free(repro);
    free(snip);
    ir_program_free(p);
  }
  snprintf(log, sizeof log, "%s/attributes.log", tmpdir);
  run_batch(python_bin, paths, 4, status, log);
  CHECK(status[0] == 1 && status[1] == 1, "attribute: repro.py exits %d, snippet.py %d (1 wanted); log: %s", status[0], status[1], log);
  CHECK(status[2] == 0 && status[3] == 0, "buffer: repro.py exits %d, snippet.py %d (0 wanted); log: %s", status[2], status[3], log);
}

TEST(runtime_repro_py_writes_the_returned_states_back_and_judges_an_input_mutation) {
  static const char *const runtimes[] = {"onnx", "onnx-dynamo", "tvm-relax", "openvino", "executorch", "iree", "torchax"};
  enum { N = sizeof runtimes / sizeof runtimes[0] };
  ir_program *p = parse("{\"format\": \"aliasfuzz-program/1\", \"bases\": [{\"name\": \"buf\", \"size\": 6, "
                        "\"dtype\": \"float32\"}], \"inputs\": [{\"name\": \"x\", \"shape\": [4], \"dtype\": "
                        "\"float32\", \"view_of\": \"buf\", \"strides\": [1], \"offset\": 1}], \"body\": [{\"op\": "
                        "\"add_\", \"args\": [\"x\", 1]}, {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"x\", 2]}], "
                        "\"outputs\": [\"r\"]}");
  ir_program *q = NULL;
  af_err err;
  CHECK(codec_read_file("corpus/conformance/hand/hand-011-unfold-abs-input.json", &q, &err) == 0, "%s", err.msg);
  if (!p || !q) return;
  /* per runtime: the program it passes, then the same converted without its write; then onnx's real finding */
  char path[2 * N + 1][600], *paths[2 * N + 1], log[600];
  int status[2 * N + 1];
  for (int i = 0; i <= 2 * N; i++) {
    const char *name = i < 2 * N ? runtimes[i / 2] : "onnx";
    const conv_converter *c = conv_find(name);
    repro_info ri = {name, "", i < 2 * N ? "value-mismatch" : "input-mutation-lost", NULL, c ? c->repro_py : NULL, NULL,
                     "test_snippet"};
    char *repro = emit_repro_py(i < 2 * N ? p : q, &ri), *text = repro;
    if (i < 2 * N && i % 2 && repro) /* planted: the converter gets the program without the write */
      text = replaced(repro, "convert_and_run(SRC, ",
                      "convert_and_run(SRC.replace('    x.add_(1)\\n    r = torch.mul(x, 2)', '    r = torch.mul(x + 1, 2)'), ");
    snprintf(path[i], sizeof path[i], "%s/%s-%s.py", tmpdir, i == 2 * N ? "input-mutation" : i % 2 ? "planted" : "writeback", name);
    paths[i] = path[i];
    CHECK(text && !write_text(path[i], text), "%s written (planted: %d)", path[i], i % 2);
    if (text != repro) free(text);
    free(repro);
  }
  snprintf(log, sizeof log, "%s/writeback.log", tmpdir);
  run_batch(python_bin, paths, 2 * N + 1, status, log);
  char *out = codec_slurp(log, NULL, &err);
  for (int i = 0; i < 2 * N; i += 2) {
    CHECK(status[i] == 0, "%s: repro.py of a program the worker passes exits %d (0 wanted); log: %s", runtimes[i / 2], status[i],
          log);
    char *seg = segment(out, path[i + 1]), *res = seg ? strstr(seg, "RESULT: ") : NULL;
    CHECK(status[i + 1] == 1 && res && !strncmp(res, "RESULT: MISMATCH (the bug reproduces): input x: values differ", 61) &&
              !strstr(res, "output"),
          "%s: repro.py of the program converted without its write exits %d (1 wanted, on the input alone): %.300s; log: %s",
          runtimes[i / 2], status[i + 1], res ? res : "(no RESULT line)", log);
    free(seg);
  }
  CHECK(status[2 * N] == 1 && out && strstr(out, "RESULT: MISMATCH (the bug reproduces): input x: values differ"),
        "onnx: repro.py of an input-mutation finding exits 1 on the input (%d); log: %s", status[2 * N], log);
  free(out);
  ir_program_free(p);
  ir_program_free(q);
}

/* A training program (docs/training.md): w an nn.Parameter (module state), x a leaf that requires
 * grad, y = x * x written in place (a non-leaf: autograd allows it), r = y * w, loss 3 * r.sum(). */
static const char train_program[] =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"w\", \"shape\": [3], \"dtype\": \"float32\", "
    "\"param\": true}, {\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", \"requires_grad\": true}], "
    "\"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", \"x\"]}, {\"op\": \"add_\", \"args\": "
    "[\"y\", 1]}, {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"y\", \"w\"]}], \"outputs\": [\"r\"], "
    "\"train\": true, \"loss\": [3]}";

/* A torch.compile backend with one gradient mistake (the test's, not a converter's): the graph
 * runs eagerly and each output that requires grad is returned as o + (o - o.detach()): the same
 * values, twice the gradient. */
static const char planted_backend[] =
    "def planted_backend(gm, example_inputs):  # test_snippet: the same values, each output's gradient doubled\n"
    "    return lambda *a: tuple(o + (o - o.detach()) if isinstance(o, torch.Tensor) and o.requires_grad else o "
    "for o in gm(*a))\n";

/* Issue 33: repro.py and snippet.py of a wrong-gradient finding on aot_eager (real, torch 2.13)
 * build the leaves and parameters, backpropagate the weighted loss and compare every .grad: on
 * aot_eager as it is both exit 0; with planted_backend in place of aot_eager (values right, every
 * gradient doubled) both exit 1 and repro.py names the .grad that differs. And for a converter
 * that does not train (onnx-dynamo), both are of the inference form: no backward. */
TEST(a_training_findings_repro_py_and_snippet_py_run_the_backward_and_exit_1_on_a_wrong_gradient) {
  ir_program *p = parse(train_program);
  const conv_converter *c = conv_find("aot_eager");
  if (!p || !c) {
    CHECK(0, "program and aot_eager");
    return;
  }
  af_err err;
  repro_info ri = {"aot_eager", "", "wrong-gradient", NULL, c->repro_py, NULL, "test_snippet"};
  char *repro = emit_repro_py(p, &ri), *snip = emit_snippet_py(p, "aot_eager", "wrong-gradient", &err);
  CHECK(repro && snip, "written: %s", snip ? "" : err.msg);
  if (!repro || !snip) return;
  CHECK(strstr(snip, "torch.nn.Parameter(") && strstr(snip, ".requires_grad_()") && strstr(snip, "G(want[:1], e)"),
        "snippet.py builds the leaves and runs the backward:\n%s", snip);
  CHECK(lines(snip) <= EMIT_SNIPPET_MAX_LINES, "snippet.py: %d lines", lines(snip));
  af_buf def = {0}, backend = {0};
  af_buf_printf(&def, "%sCONVERTER = planted_backend\n", planted_backend);
  char *planted_repro = replaced(repro, "CONVERTER = \"aot_eager\"\n", def.s);
  af_buf_printf(&backend, "\n%s", planted_backend);
  char *snip2 = replaced(snip, "\n", backend.s); /* the def after the imports (line 1) */
  char *planted_snip = snip2 ? replaced(snip2, "backend=\"aot_eager\"", "backend=planted_backend") : NULL;
  CHECK(planted_repro && planted_snip, "the planted backend goes in");
  char path[4][600], *paths[4], log[600];
  const char *names[4] = {"train-repro.py", "train-snippet.py", "train-planted-repro.py", "train-planted-snippet.py"};
  const char *texts[4] = {repro, snip, planted_repro, planted_snip};
  for (int i = 0; i < 4; i++) {
    snprintf(path[i], sizeof path[i], "%s/%s", tmpdir, names[i]);
    paths[i] = path[i];
    CHECK(texts[i] && !write_text(path[i], texts[i]), "%s written", path[i]);
  }
  snprintf(log, sizeof log, "%s/train.log", tmpdir);
  int status[4] = {-1, -1, -1, -1};
  run_batch(python_bin, paths, 4, status, log);
  char *out = codec_slurp(log, NULL, &err);
  CHECK(status[0] == 0 && out && strstr(out, "x.grad: converted") && strstr(out, "w.grad: converted"),
        "repro.py on aot_eager compares the gradients and exits 0: %d; log: %s", status[0], log);
  CHECK(status[1] == 0, "snippet.py on aot_eager exits 0: %d; log: %s", status[1], log);
  CHECK(status[2] == 1 && out && strstr(out, "RESULT: MISMATCH (the bug reproduces): w.grad: values differ; x.grad: values differ"),
        "repro.py with the planted gradient mistake exits 1 naming w.grad and x.grad: %d; log: %s", status[2], log);
  CHECK(status[3] == 1, "snippet.py with the planted gradient mistake exits 1: %d; log: %s", status[3], log);
  /* a converter that does not train gets the inference form (the judge's, conv_trains) */
  const conv_converter *x = conv_find("onnx-dynamo");
  repro_info rx = {"onnx-dynamo", "", "value-mismatch", NULL, x ? x->repro_py : NULL, NULL, "test_snippet"};
  char *xr = emit_repro_py(p, &rx), *xs = emit_snippet_py(p, "onnx-dynamo", "value-mismatch", &err);
  CHECK(xr && strstr(xr, "TRAIN = False") && strstr(xr, "in its inference form"), "onnx-dynamo's repro.py: inference form");
  CHECK(xs && !strstr(xs, "requires_grad_") && !strstr(xs, "G(want") && !strstr(xs, "Parameter"),
        "onnx-dynamo's snippet.py: inference form:\n%s", xs ? xs : err.msg);
  free(xr);
  free(xs);
  free(out);
  free(repro);
  free(snip);
  free(snip2);
  free(planted_repro);
  free(planted_snip);
  af_buf_free(&def);
  af_buf_free(&backend);
  ir_program_free(p);
}

/* Issue 33, autograd verdicts (oracle.h): a program eager's autograd refuses (y saved by y * y, then
 * y.add_(1): "modified by an inplace operation" in the backward). */
static const char refused_program[] =
    "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\", "
    "\"requires_grad\": true}], \"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", 2]}, {\"out\": \"z\", "
    "\"op\": \"mul\", \"args\": [\"y\", \"y\"]}, {\"op\": \"add_\", \"args\": [\"y\", 1]}], \"outputs\": [\"z\"], "
    "\"train\": true, \"loss\": [1]}";

/* torch.compile backends with an autograd mistake (the test's): the backward refuses (each output
 * that requires grad also flows, with zero weight, through s * s, s a copy written in place after the
 * product saved it), or accepts (the graph functionalized: the write into a saved tensor is a new
 * tensor autograd never sees modified). */
static const char refusing_backend[] =
    "def planted_backend(gm, example_inputs):  # test_snippet: the backward refuses (a saved tensor modified)\n"
    "    def refuse(o):\n"
    "        s = o.clone(); t = s * s; s.add_(0)\n"
    "        return torch.where(torch.zeros_like(o, dtype=torch.bool), t, o)\n"
    "    return lambda *a: tuple(refuse(o) if isinstance(o, torch.Tensor) and o.requires_grad else o for o in gm(*a))\n";
static const char accepting_backend[] =
    "def planted_backend(gm, example_inputs):  # test_snippet: functionalized, the saved tensor's write unseen\n"
    "    return torch.func.functionalize(gm)\n";

/* repro.py and snippet.py of program text found as verdict (detail) on aot_eager, as they are and with
 * backend in place of aot_eager: as they are both exit 0 (aot_eager's autograd agrees with eager's);
 * planted both exit 1, repro.py saying `said`. */
static void autograd_case(const char *text, const char *verdict, const char *detail, const char *backend,
                          const char *said) {
  ir_program *p = parse(text);
  const conv_converter *c = conv_find("aot_eager");
  if (!p || !c) {
    CHECK(0, "program and aot_eager");
    return;
  }
  af_err err;
  repro_info ri = {"aot_eager", "", verdict, NULL, c->repro_py, NULL, "test_snippet"};
  char *repro = emit_repro_py(p, &ri), *snip = emit_snippet_py_order(p, "aot_eager", verdict, detail, &err);
  CHECK(repro && snip && lines(snip) <= EMIT_SNIPPET_MAX_LINES, "%s: written, %d lines: %s", verdict, snip ? lines(snip) : 0,
        snip ? snip : err.msg);
  af_buf def = {0}, after = {0};
  af_buf_printf(&def, "%sCONVERTER = planted_backend\n", backend);
  af_buf_printf(&after, "\n%s", backend);
  char *prepro = repro ? replaced(repro, "CONVERTER = \"aot_eager\"\n", def.s) : NULL;
  char *snip2 = snip ? replaced(snip, "\n", after.s) : NULL;
  char *psnip = snip2 ? replaced(snip2, "backend=\"aot_eager\"", "backend=planted_backend") : NULL;
  char path[4][600], *paths[4], log[600];
  const char *names[4] = {"repro.py", "snippet.py", "planted-repro.py", "planted-snippet.py"};
  const char *texts[4] = {repro, snip, prepro, psnip};
  for (int i = 0; i < 4; i++) {
    snprintf(path[i], sizeof path[i], "%s/%s-%s", tmpdir, verdict, names[i]);
    paths[i] = path[i];
    CHECK(texts[i] && !write_text(path[i], texts[i]), "%s written", path[i]);
  }
  snprintf(log, sizeof log, "%s/%s.log", tmpdir, verdict);
  int status[4] = {-1, -1, -1, -1};
  run_batch(python_bin, paths, 4, status, log);
  char *out = codec_slurp(log, NULL, &err);
  char *seg = out ? segment(out, path[2]) : NULL;
  CHECK(status[0] == 0 && status[1] == 0, "%s: repro.py and snippet.py on aot_eager exit 0: %d %d; log: %s", verdict,
        status[0], status[1], log);
  CHECK(status[2] == 1 && seg && strstr(seg, said), "%s: repro.py with the planted backend exits 1 saying %s: %d; log: %s",
        verdict, said, status[2], log);
  CHECK(status[3] == 1, "%s: snippet.py with the planted backend exits 1: %d; log: %s", verdict, status[3], log);
  free(seg);
  free(out);
  free(repro);
  free(snip);
  free(snip2);
  free(prepro);
  free(psnip);
  af_buf_free(&def);
  af_buf_free(&after);
  ir_program_free(p);
}

TEST(autograd_rejects_and_accepts_findings_repro_py_and_snippet_py_exit_1_while_one_side_refuses) {
  autograd_case(train_program, "autograd-rejects",
                "saved-modified: the converter's autograd refuses the program, eager ran it and its backward (converter: "
                "loss.backward(): RuntimeError: one of the variables needed for gradient computation has been modified by "
                "an inplace operation: [torch.FloatTensor [3]])",
                refusing_backend, "RESULT: AUTOGRAD REJECTS (the bug reproduces)");
  autograd_case(refused_program, "autograd-accepts",
                "saved-modified: eager's autograd refuses the program, the converter ran it and its backward (eager: "
                "loss.backward(): one of the variables needed for gradient computation has been modified by an inplace "
                "operation)",
                accepting_backend, "RESULT: AUTOGRAD ACCEPTS (the bug reproduces)");
}

/* Issue 33: export (ep.module() backpropagated) and functorch (torch.func.vjp over functionalize) train:
 * the repro.py of a training program on each is of the training form (TRAIN = True), compares every
 * .grad and exits 0 (both agree with eager on it); export's snippet.py runs the backward and exits 0;
 * functorch's is not written (its training path is torch.func.vjp, not a backward of the outputs). */
TEST(export_and_functorch_train_their_repro_py_compares_every_grad) {
  ir_program *p = parse("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": "
                        "\"float32\", \"requires_grad\": true}, {\"name\": \"o\", \"shape\": [3], \"dtype\": \"float32\", "
                        "\"requires_grad\": true}], \"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"x\", \"x\"]}, "
                        "{\"op\": \"add_\", \"args\": [\"y\", \"o\"]}, {\"out\": \"r\", \"op\": \"mul\", \"args\": [\"y\", 3]}], "
                        "\"outputs\": [\"r\"], \"train\": true, \"loss\": [2]}");
  if (!p) return;
  static const char *const convs[] = {"export", "functorch"};
  char path[3][600], *paths[3], log[600];
  af_err err;
  char *texts[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 2; i++) {
    const conv_converter *c = conv_find(convs[i]);
    repro_info ri = {convs[i], "", "wrong-gradient", NULL, c ? c->repro_py : NULL, NULL, "test_snippet"};
    texts[i] = c ? emit_repro_py(p, &ri) : NULL;
    CHECK(texts[i] && strstr(texts[i], "TRAIN = True"), "%s: repro.py of the training form", convs[i]);
  }
  texts[2] = emit_snippet_py(p, "export", "wrong-gradient", &err);
  CHECK(texts[2] && strstr(texts[2], "G(want[:1], e)") && strstr(texts[2], ".requires_grad_()"), "export's snippet.py trains: %s",
        texts[2] ? texts[2] : err.msg);
  char *fs = emit_snippet_py(p, "functorch", "wrong-gradient", &err);
  CHECK(!fs && strstr(err.msg, "torch.func.vjp"), "functorch's snippet.py of a training program: refused, saying why: %s",
        fs ? fs : err.msg);
  free(fs);
  for (int i = 0; i < 3; i++) {
    snprintf(path[i], sizeof path[i], "%s/trains-%d.py", tmpdir, i);
    paths[i] = path[i];
    CHECK(texts[i] && !write_text(path[i], texts[i]), "%s written", path[i]);
  }
  snprintf(log, sizeof log, "%s/trains.log", tmpdir);
  int status[3] = {-1, -1, -1};
  run_batch(python_bin, paths, 3, status, log);
  char *out = codec_slurp(log, NULL, &err);
  for (int i = 0; i < 2; i++) {
    char *seg = out ? segment(out, path[i]) : NULL;
    CHECK(status[i] == 0 && seg && strstr(seg, "x.grad: converted") && strstr(seg, "o.grad: converted"),
          "%s: repro.py compares x.grad and o.grad and exits 0: %d; log: %s", convs[i], status[i], log);
    free(seg);
  }
  CHECK(status[2] == 0, "export's snippet.py exits 0: %d; log: %s", status[2], log);
  for (int i = 0; i < 3; i++) free(texts[i]);
  free(out);
  ir_program_free(p);
}

int main(int argc, char **argv) {
  at_init();
  if (argc == 3 && strcmp(argv[1], "train") == 0) {
    python_bin = argv[2];
    if (!mkdtemp(tmpdir)) {
      perror(tmpdir);
      return 1;
    }
    printf("# scripts and logs in %s\n", tmpdir);
    RUN(a_training_findings_repro_py_and_snippet_py_run_the_backward_and_exit_1_on_a_wrong_gradient);
    RUN(autograd_rejects_and_accepts_findings_repro_py_and_snippet_py_exit_1_while_one_side_refuses);
    RUN(export_and_functorch_train_their_repro_py_compares_every_grad);
    return tap_done();
  }
  if (argc == 3 && strcmp(argv[1], "attributes") == 0) { /* issue 29 */
    python_bin = argv[2];
    if (!mkdtemp(tmpdir)) {
      perror(tmpdir);
      return 1;
    }
    printf("# scripts and logs in %s\n", tmpdir);
    RUN(an_attribute_rebind_lost_by_export_exits_1_in_repro_py_and_snippet_py_and_0_as_a_buffer);
    return tap_done();
  }
  if (argc == 3 && strcmp(argv[1], "python") == 0) {
    python_bin = argv[2];
    if (!mkdtemp(tmpdir)) {
      perror(tmpdir);
      return 1;
    }
    printf("# scripts and logs in %s\n", tmpdir);
    RUN(the_aten_only_list_is_what_pytorch_lacks_among_the_op_tables_methods);
    RUN(docs_findings_snippets_exit_1_with_stock_imports);
    RUN(snippet_exits_as_repro_py_on_seed_cases_that_fail_and_one_that_passes);
    RUN(an_order_1_finding_of_aot_eager_exits_1_in_repro_py_and_snippet_py);
    RUN(runtime_repro_py_writes_the_returned_states_back_and_judges_an_input_mutation);
    return tap_done();
  }
  if (atoi(at_version()) >= 2) { /* the 2.x converters, and docs/findings' (found on 2.13) */
    RUN(docs_findings_snippets_are_what_aliasfuzz_snippet_writes_and_fit_in_15_lines);
    RUN(an_input_viewed_by_another_is_its_storage_and_compile_calls_twice);
    RUN(an_order_1_finding_makes_one_compiled_call_on_the_laid_out_inputs);
  }
  RUN(functionalize_imports_what_this_stack_has);
  RUN(a_method_python_lacks_is_spelled_through_torch_ops_aten);
  RUN(inputs_that_view_a_hidden_base_are_as_strided_views_and_the_base_is_compared);
  RUN(a_crash_finding_converts_in_a_child_and_exits_1_when_it_dies);
  RUN(many_default_values_are_the_formula_few_are_literals);
  RUN(a_converter_without_a_stock_api_gets_no_snippet_and_says_why);
  RUN(every_converter_with_a_snippet_is_a_registered_converter);
  RUN(repro_py_header_installs_no_deps_packages_with_no_deps);
  RUN(a_finding_folder_gets_snippet_py_and_the_reports_show_it_for_its_class);
  return tap_done();
}
