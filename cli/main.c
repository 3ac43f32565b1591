/* main.c - the `aliasfuzz` command. Only this file decides to exit. Exit codes: 0 success (every
 * program passed), 1 a finding (some program did not pass), 2 usage or input error; every
 * command's are in cli_exit.c's table (docs/exit-codes.md). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../fuzz/judge.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/converters/conv_worker.h"
#include "../harness/emit.h"
#include "../harness/ops/ops.h"
#include "../harness/ops/ops_shape.h"
#include "../oracle/oracle.h"
#include "cli.h"

static const char *usage_main =
    "usage: aliasfuzz <command> [options]\n"
    "\n"
    "Fuzzing and conformance testing for converters of PyTorch programs with aliasing views and\n"
    "in-place ops. Every program runs in eager PyTorch (the truth) and through a converter; every\n"
    "output and every mutated input is compared.\n"
    "\n"
    "commands:\n"
    "  run FILE... --converter NAME [--json] [--fail-on-residual]\n"
    "                      run program files through a converter, one verdict per file\n"
    "  converters          list converters and whether they are available here\n"
    "  ops [--markdown]    list the op table (--markdown: by family, docs/ops.md)\n"
    "  emit FILE           print a program as TorchScript\n"
    "  fmt FILE...         rewrite program files in canonical form (--check: only report)\n"
    "  fuzz --converter NAME [--time S | --iterations N] [--jobs J] [--out DIR]\n"
    "                      a campaign: generate, judge, minimize and store findings, report\n"
    "  merge OUT DIR...    one campaign folder and report from several (shards, machines, days)\n"
    "  reduce FILE --converter NAME [--out DIR]\n"
    "                      minimize a failing program into a finding folder with repro.py\n"
    "  repro DIR           rerun a finding folder: does the bug still reproduce?\n"
    "  snippet DIR         write DIR/snippet.py: the finding in at most 15 lines of stock API\n"
    "  suite [--out DIR]   (re)generate the conformance suite from the op table\n"
    "  check DIR --converter NAME [--expect FILE] [--junit FILE] [--report DIR] [--shard K/N]\n"
    "                      run a conformance suite against an expectation file (pre-merge gate)\n"
    "  report DIR          re-render a conformance or campaign folder as JSON, Markdown and HTML\n"
    "  gen [--seed S] [--count N] [--out DIR] [--emit json|torchscript] [--check]\n"
    "                      generate random programs with aliasing views and in-place ops\n"
    "  version             print versions\n"
    "  help exit-codes     every command's exit status (docs/exit-codes.md)\n"
    "\n"
    "Run `aliasfuzz COMMAND --help` for a command's options.\n";

static const char *usage_run =
    "usage: aliasfuzz run FILE... --converter NAME [--json] [--fail-on-residual] [--isolate]\n"
    "                    [--deadline S]\n"
    "\n"
    "Runs each program file in eager PyTorch and through the converter and prints one line per\n"
    "file: FILE CONVERTER VERDICT [detail]. --json prints one JSON object per file instead, with\n"
    "file, converter, verdict, detail and the shapes of every eager and converted output.\n"
    "A converter that caches what it compiled (aot_eager, inductor) is called twice on a program\n"
    "with input layouts, as check and fuzz call it (the verdict is the first call's that fails).\n"
    "A worker converter serves every file in one process: when it dies after earlier files, the\n"
    "file is rerun in a fresh worker and the crash is charged to the file that left the worker\n"
    "broken (converter-crash, \"the worker was left broken by this program\"), so a file's line\n"
    "comes once the next files can no longer change it (harness/workers/PROTOCOL.md).\n"
    "\n"
    "  --isolate       judge each file in a forked child, so that a converter that crashes the\n"
    "                  process (an in-process one segfaulting inside LibTorch) or hangs gives a\n"
    "                  converter-crash or converter-timeout line and the other files still run\n"
    "  --deadline S    per-file deadline with --isolate (default 30)\n"
    "\n"
    "With --isolate or a second call, --json has no shapes (eager_shapes and converted_shapes\n"
    "are null) but says how many calls were made.\n";

int cli_usage_error(const char *usage, const char *fmt, const char *arg) {
  fprintf(stderr, "aliasfuzz: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n\n%s", usage);
  return 2;
}

static void json_shapes(af_buf *b, const result *r) {
  af_buf_puts(b, "[");
  for (int o = 0; r->status == RESULT_OK && o < r->noutputs; o++) {
    if (o) af_buf_puts(b, ", ");
    oracle_put_shape(b, r->outputs[o]);
  }
  af_buf_puts(b, "]");
}

static void json_str(af_buf *b, const char *s) {
  af_buf_puts(b, "\"");
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\') af_buf_printf(b, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) af_buf_printf(b, "\\u%04x", *s);
    else af_buf_printf(b, "%c", *s);
  }
  af_buf_puts(b, "\"");
}

static double cli_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The start of run's JSON object for one file (up to and including the detail), and its text line. */
static void run_json_head(af_buf *b, const char *file, const conv_converter *c, oracle_verdict v, const char *detail) {
  af_buf_puts(b, "{\"file\": ");
  json_str(b, file);
  af_buf_puts(b, ", \"converter\": ");
  json_str(b, c->name);
  af_buf_puts(b, ", \"converter_version\": ");
  json_str(b, c->version(c));
  af_buf_printf(b, ", \"verdict\": \"%s\", \"detail\": ", oracle_verdict_name(v));
  if (detail) json_str(b, detail);
  else af_buf_puts(b, "null");
}

static char *run_text_line(const char *file, const conv_converter *c, oracle_verdict v, const char *detail) {
  af_buf b = {0};
  af_buf_printf(&b, "%s %s %s%s%s\n", file, c->name, oracle_verdict_name(v), detail ? "  " : "", detail ? detail : "");
  return af_buf_take(&b);
}

/* run's line for a judged file (new): text, or JSON with eager's and the converter's shapes when
 * the program was called once in process (eager, conv), else with the calls made. */
static char *run_line(const char *file, const conv_converter *c, const judgement *j, const result *eager, const result *conv, int json,
                      int isolate, double secs) {
  if (!json) return run_text_line(file, c, j->verdict, j->detail);
  af_buf b = {0};
  run_json_head(&b, file, c, j->verdict, j->detail);
  if (isolate || j->ncalls) {
    af_buf_printf(&b, ", \"eager_shapes\": null, \"converted_shapes\": null, \"residual_mutation\": %d, \"calls\": %d, "
                  "\"isolated\": %s, \"seconds\": %.6f}\n", j->residual, j->ncalls ? j->ncalls : 1, isolate ? "true" : "false", secs);
    return af_buf_take(&b);
  }
  af_buf_puts(&b, ", \"eager_shapes\": ");
  json_shapes(&b, eager);
  af_buf_puts(&b, ", \"converted_shapes\": ");
  json_shapes(&b, conv);
  af_buf_printf(&b, ", \"residual_mutation\": %d, \"seconds\": %.6f", conv->residual, secs);
  if (conv->converter_s >= 0) af_buf_printf(&b, ", \"converter_seconds\": %.6f", conv->converter_s);
  af_buf_puts(&b, "}\n");
  return af_buf_take(&b);
}

/* run's lines (one per file) are held back while a worker crash may still be charged to their
 * file (crash attribution, conv_worker.h: the worker shares its process across files without
 * --isolate, and traces a crash to one of the CONV_WORKER_HISTORY requests before it). Printed in
 * file order as later files are judged; nothing is held for an in-process converter. */
#define RUN_HOLD (CONV_WORKER_HISTORY + 1)
typedef struct run_hold {
  conv_worker *w; /* NULL: nothing held */
  int n, file[RUN_HOLD + 1];
  char *line[RUN_HOLD + 1];
} run_hold;

static void run_hold_flush(run_hold *h, int keep) {
  while (h->n > keep) {
    fputs(h->line[0], stdout);
    free(h->line[0]);
    h->n--;
    memmove(h->file, h->file + 1, sizeof h->file[0] * (size_t)h->n);
    memmove(h->line, h->line + 1, sizeof h->line[0] * (size_t)h->n);
  }
  fflush(stdout);
}

/* File f's line (new, takes it). */
static void run_hold_put(run_hold *h, int f, char *line) {
  h->file[h->n] = f;
  h->line[h->n++] = line;
  run_hold_flush(h, h->w ? RUN_HOLD : 0);
}

/* A crash the worker traced to an earlier file (its tag is the file's index) replaces that file's
 * line with converter-crash and the blame's detail. 1 when it did. */
static int run_hold_blame(run_hold *h, const char *const *files, const conv_converter *c, int json) {
  conv_worker_blame b;
  if (!h->w || !conv_worker_take_blame(h->w, &b)) return 0;
  int f = b.tag ? atoi(b.tag) : -1, k = 0;
  while (k < h->n && h->file[k] != f) k++;
  char *line;
  if (json) {
    af_buf j = {0};
    run_json_head(&j, f >= 0 ? files[f] : "?", c, V_CRASH, b.detail);
    af_buf_puts(&j, ", \"eager_shapes\": null, \"converted_shapes\": null, \"residual_mutation\": -1, \"worker_left_broken\": true}\n");
    line = af_buf_take(&j);
  } else {
    line = run_text_line(f >= 0 ? files[f] : "?", c, V_CRASH, b.detail);
  }
  if (k < h->n) {
    free(h->line[k]);
    h->line[k] = line;
  } else { /* (not held any more: printed as a line of its own) */
    fputs(line, stdout);
    free(line);
  }
  conv_worker_blame_clear(&b);
  return 1;
}

/* Tags the requests of file f, so that a blame names it. */
static void run_hold_tag(run_hold *h, int f) {
  char tag[32];
  snprintf(tag, sizeof tag, "%d", f);
  if (h->w) conv_worker_set_tag(h->w, tag);
}

/* run without --isolate: a converter that kills the process (an in-process one segfaulting
 * inside LibTorch) gets a line naming the file and the way out before the process dies */
static const char *volatile run_file, *volatile run_conv;
static void run_crash(int sig) {
  static const char a[] = "aliasfuzz: running ", b[] = " (converter ", c[] = ") killed the process with a signal; "
                          "`aliasfuzz run --isolate` judges each file in a child and reports converter-crash\n";
  ssize_t w = write(2, a, sizeof a - 1);
  w = write(2, (const char *)run_file, strlen((const char *)run_file));
  w = write(2, b, sizeof b - 1);
  w = write(2, (const char *)run_conv, strlen((const char *)run_conv));
  w = write(2, c, sizeof c - 1);
  (void)w;
  signal(sig, SIG_DFL);
  raise(sig);
}

static int cmd_run(int argc, char **argv) {
  const char *conv_name = NULL;
  int json = 0, nfiles = 0, isolate = 0;
  double deadline = 30;
  oracle_opts oo = {0};
  const char **files = af_xcalloc((size_t)argc, sizeof(char *));
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      cli_help(usage_run, "run");
      free(files);
      return 0;
    } else if (!strcmp(argv[i], "--converter") && i + 1 < argc) {
      conv_name = argv[++i];
    } else if (!strncmp(argv[i], "--converter=", 12)) {
      conv_name = argv[i] + 12;
    } else if (!strcmp(argv[i], "--json")) {
      json = 1;
    } else if (!strcmp(argv[i], "--fail-on-residual")) {
      oo.fail_on_residual = 1;
    } else if (!strcmp(argv[i], "--isolate")) {
      isolate = 1;
    } else if (!strcmp(argv[i], "--deadline") && i + 1 < argc) {
      deadline = atof(argv[++i]);
      if (!(deadline > 0)) {
        free(files);
        return cli_usage_error(usage_run, "run: --deadline wants seconds > 0, not %s", argv[i]);
      }
    } else if (argv[i][0] == '-') {
      free(files);
      return cli_usage_error(usage_run, "run: unknown option %s", argv[i]);
    } else {
      files[nfiles++] = argv[i];
    }
  }
  if (!conv_name) conv_name = "script";
  if (!nfiles) {
    free(files);
    return cli_usage_error(usage_run, "run: no program file given%s", "");
  }
  const conv_converter *c = conv_find(conv_name);
  if (!c) {
    free(files);
    return cli_usage_error(usage_run, "run: unknown converter '%s' (see `aliasfuzz converters`)", conv_name);
  }
  /* every file is read and validated before the converter starts (a worker takes seconds) */
  int any_fail = 0, any_input_error = 0, nread = 0;
  ir_program **progs = af_xcalloc((size_t)nfiles, sizeof(ir_program *));
  for (int f = 0; f < nfiles; f++) {
    af_err err;
    if (codec_read_file(files[f], &progs[f], &err)) {
      fprintf(stderr, "aliasfuzz: %s\n", err.msg);
      any_input_error = 1;
    } else {
      nread++;
    }
  }
  const char *why = NULL;
  if (nread && !c->available(c, &why)) {
    fprintf(stderr, "aliasfuzz: converter %s is not available here: %s\n", c->name, why ? why : "unknown reason");
    for (int f = 0; f < nfiles; f++) ir_program_free(progs[f]);
    free(progs);
    free(files);
    return 2;
  }
  run_file = "", run_conv = c->name;
  if (!isolate) /* (a forked child would print it too) */
    signal(SIGSEGV, run_crash), signal(SIGBUS, run_crash), signal(SIGFPE, run_crash), signal(SIGILL, run_crash);
  run_hold hold = {isolate ? NULL : conv_worker_of(c), 0, {0}, {0}};
  for (int f = 0; f < nfiles; f++) {
    ir_program *p = progs[f];
    af_err err;
    run_file = files[f];
    if (run_hold_blame(&hold, files, c, json)) any_fail = 1; /* (the file before's crash, traced) */
    if (!p) continue;
    progs[f] = NULL; /* freed below, as each file is done */
    run_hold_tag(&hold, f);
    /* through judge.c, as check and fuzz judge; called once in process, eager's and the
     * converter's results stay for --json's shapes */
    judgement j;
    result eager, conv;
    result_init(&eager);
    result_init(&conv);
    double t0 = cli_now_s();
    int jr = isolate ? judge_isolated(c, p, &oo, deadline, &j, &err) : judge_inprocess_results(c, p, &oo, &j, &eager, &conv, &err);
    double secs = cli_now_s() - t0; /* eager, conversion (the worker's share in converter_s), judging */
    if (jr) {
      fprintf(stderr, "aliasfuzz: %s: %s\n", files[f], err.msg);
      any_input_error = 1;
    } else {
      if (j.verdict != V_PASS) any_fail = 1;
      run_hold_put(&hold, f, run_line(files[f], c, &j, &eager, &conv, json, isolate, secs));
      fflush(stdout);
      judgement_clear(&j);
    }
    result_clear(&eager);
    result_clear(&conv);
    ir_program_free(p);
  }
  if (run_hold_blame(&hold, files, c, json)) any_fail = 1;
  run_hold_flush(&hold, 0);
  free(progs);
  free(files);
  return any_input_error ? 2 : any_fail ? 1 : 0;
}

static int cmd_converters(int argc, char **argv) {
  if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
    cli_help("usage: aliasfuzz converters\n\nLists every converter: name, availability, version, description, after\n"
             "the build's PyTorch stack (every converter of a build runs on that one PyTorch).\n",
             "converters");
    return 0;
  }
  const char *pywhy = NULL, *py = conv_worker_python(&pywhy);
  printf("stack %s: LibTorch %s (%s); workers' Python: %s\n\n", at_stack(), at_version(), at_stack_origin(),
         py ? py : pywhy);
  conv_worker_start_all(); /* the external workers say hello in parallel */
  for (int i = 0; i < conv_count(); i++) {
    const conv_converter *c = conv_get(i);
    const char *why = NULL;
    int ok = c->available(c, &why);
    printf("%-14s %-12s %-10s %s%s\n", c->name, ok ? "available" : "unavailable", ok ? c->version(c) : "-",
           c->deliberately_wrong ? "[DELIBERATELY WRONG] " : "", c->description);
    if (!ok && why) printf("%-14s   why: %s\n", "", why);
  }
  return 0;
}

static int cmd_ops(int argc, char **argv) {
  static const char *usage_ops = "usage: aliasfuzz ops [--markdown]\n\nLists the op table: name, kind, argument schema, aten op and "
                                 "TorchScript spelling;\n--markdown prints it by family (docs/ops.md).\n";
  if (argc == 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
    cli_help(usage_ops, "ops");
    return 0;
  }
  if (argc == 1 && !strcmp(argv[0], "--markdown")) { /* docs/ops.md: the table by family */
    af_buf b = {0};
    ops_shape_markdown(&b);
    fputs(b.s, stdout);
    af_buf_free(&b);
    return 0;
  }
  if (argc) return cli_usage_error(usage_ops, "ops: unknown option '%s'", argv[0]);
  printf("%-20s %-10s %-12s %-22s %s\n", "op", "kind", "args", "aten", "torchscript");
  for (int op = 0; op < OPS_COUNT; op++) {
    const ops_entry *e = ops_get(op);
    printf("%-20s %-10s %-12s %-22s %s\n", e->name, ops_kind_name(e->kind), e->schema, e->aten[0] ? e->aten : "-",
           e->spelling);
  }
  return 0;
}

static int cmd_emit(int argc, char **argv) {
  static const char *usage_emit = "usage: aliasfuzz emit FILE\n\nPrints the program as the TorchScript function converters receive.\n";
  if (argc == 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
    cli_help(usage_emit, "emit");
    return 0;
  }
  if (argc != 1 || argv[0][0] == '-') return cli_usage_error(usage_emit, "emit: one program FILE%s", "");
  ir_program *p;
  af_err err;
  if (codec_read_file(argv[0], &p, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    return 2;
  }
  char *s = emit_torchscript(p, "program");
  fputs(s, stdout);
  free(s);
  ir_program_free(p);
  return 0;
}

static int cmd_fmt(int argc, char **argv) {
  int check = 0, rc = 0, n = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      cli_help("usage: aliasfuzz fmt [--check] FILE...\n\nRewrites program files in the canonical layout; --check "
               "only lists files that are not canonical.\n",
               "fmt");
      return 0;
    }
    if (!strcmp(argv[i], "--check")) {
      check = 1;
      continue;
    }
    n++;
    ir_program *p;
    af_err err;
    size_t len;
    char *text = codec_slurp(argv[i], &len, &err);
    if (!text || codec_read_string(text, argv[i], &p, &err)) {
      fprintf(stderr, "aliasfuzz: %s\n", err.msg);
      free(text);
      rc = 2;
      continue;
    }
    char *canon = codec_write_string(p);
    if (strcmp(canon, text) != 0) {
      if (check) {
        printf("%s: not canonical\n", argv[i]);
        if (!rc) rc = 1;
      } else if (codec_write_atomic(argv[i], canon, strlen(canon), &err)) {
        fprintf(stderr, "aliasfuzz: %s\n", err.msg);
        rc = 2;
      }
    }
    free(canon);
    free(text);
    ir_program_free(p);
  }
  if (!n) return cli_usage_error("usage: aliasfuzz fmt [--check] FILE...\n", "fmt: no file given%s", "");
  return rc;
}

/* The command table: one line per command; each lives in cli/cmd_*.c or in this file. */
static const struct {
  const char *name;
  int (*fn)(int argc, char **argv);
} commands[] = {
    {"run", cmd_run},
    {"converters", cmd_converters},
    {"ops", cmd_ops},
    {"emit", cmd_emit},
    {"fmt", cmd_fmt},
    {"reduce", cmd_reduce},
    {"repro", cmd_repro},
    {"suite", cmd_suite},
    {"check", cmd_check},
    {"report", cmd_report},
    {"gen", cmd_gen},
    {"snippet", cmd_snippet},
    {"fuzz", cmd_fuzz},
    {"merge", cmd_merge},
};

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "exit-codes")) {
    cli_exit_markdown();
    return 0;
  }
  if (argc < 2) {
    fputs(usage_main, stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    cli_help(usage_main, "aliasfuzz");
    return 0;
  }
  at_init();
  const char *cmd = argv[1];
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(cmd, commands[i].name)) return commands[i].fn(argc - 2, argv + 2);
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    printf("aliasfuzz %s (LibTorch %s, stack %s: %s)\n", AF_VERSION, at_version(), at_stack(), at_stack_origin());
    return 0;
  }
  return cli_usage_error(usage_main, "unknown command '%s'", cmd);
}
