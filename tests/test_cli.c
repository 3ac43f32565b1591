/* test_cli.c - the aliasfuzz command: exit codes, output forms, help. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/af.h"
#include "../harness/codec.h"
#include "../harness/torch/shim.h"
#include "tap.h"

/* Runs aliasfuzz with args; captures stdout+stderr into *out (new). Returns the exit status. */
static int af(const char *args, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s/aliasfuzz %s 2>&1", AF_BINARY_DIR, args);
  FILE *f = popen(cmd, "r");
  af_buf b = {0};
  char line[4096];
  while (f && fgets(line, sizeof line, f)) af_buf_puts(&b, line);
  int st = f ? pclose(f) : -1;
  *out = af_buf_take(&b);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Every seed case passes script (`x[i] %= v`, which TorchScript compiles to fmod_ where eager runs
 * remainder_, is corpus/known-gaps/bug-007, not a seed; `&=`, `|=`, `^=`, `**=`, compiled to
 * nothing, are bug-008; x.view(torch.int32), compiled to x.view([3]), is bug-010), and run exits 1
 * for the known gaps, which ref passes. */
/* corpus/known-gaps/NAME.json: `run --converter script` exits 1 with "NAME.json script VERDICT..."
 * (and `also` in its output when not NULL); `run --converter ref` passes it. */
static void known_gap_fails_script_and_passes_ref(const char *name, const char *verdict, const char *also) {
  char cmd[512], want[512], *o = NULL;
  snprintf(cmd, sizeof cmd, "run corpus/known-gaps/%s.json --converter script", name);
  snprintf(want, sizeof want, "%s.json script %s", name, verdict);
  int rc = af(cmd, &o);
  CHECK(rc == 1 && strstr(o, want) && (!also || strstr(o, also)), "exit %d: %s", rc, o);
  free(o);
  snprintf(cmd, sizeof cmd, "run corpus/known-gaps/%s.json --converter ref", name);
  snprintf(want, sizeof want, "%s.json ref pass", name);
  rc = af(cmd, &o);
  CHECK(rc == 0 && strstr(o, want), "exit %d: %s", rc, o);
  free(o);
}

TEST(run_script_passes_every_seed_case_and_exits_1_for_the_torchscript_gaps) {
  char *o = NULL;
  int rc = af("run corpus/seed/*.json --converter script", &o);
  CHECK(rc == 0, "exit %d:\n%s", rc, o);
  CHECK(strstr(o, "design-003-unsqueeze-inplace.json script pass"), "%s", o);
  int fails = 0;
  for (const char *l = o; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    const char *eol = strchr(l, '\n');
    int n = eol ? (int)(eol - l) : (int)strlen(l);
    if (n == 0 || (strstr(l, " script pass") && strstr(l, " script pass") < l + n)) continue;
    fails++;
    CHECK(0, "script fails a seed case: %.*s", n, l);
  }
  CHECK(fails == 0, "%d seed cases fail script", fails);
  free(o);
  rc = af("run corpus/known-gaps/bug-007-torchscript-setitem-mod-is-fmod.json --converter script", &o);
  CHECK(rc == 1 && strstr(o, "bug-007-torchscript-setitem-mod-is-fmod.json script value-mismatch"), "exit %d: %s", rc, o);
  free(o);
  /* x[i] &= v, |=, ^=, **=: TorchScript compiles them to nothing (pytorch/pytorch#68064) */
  known_gap_fails_script_and_passes_ref("bug-008-torchscript-setitem-bitwise-and-pow-dropped", "input-mutation-lost  input x", NULL);
  /* x.view(torch.int32): TorchScript compiles it to x.view([3]) (pytorch/pytorch#47964) */
  known_gap_fails_script_and_passes_ref("bug-010-torchscript-view-dtype-is-a-view-of-sizes", "converter-error", "shape '[3]' is invalid");
}

TEST(json_output_reports_the_unsqueeze_shape_5_5_1) {
  char *o = NULL;
  int rc = af("run --json corpus/seed/design-003-unsqueeze-inplace.json --converter script", &o);
  CHECK(rc == 0, "exit %d", rc);
  CHECK(strstr(o, "\"verdict\": \"pass\""), "%s", o);
  CHECK(strstr(o, "\"eager_shapes\": [[5, 5, 1]]"), "%s", o);
  CHECK(strstr(o, "\"file\": \"corpus/seed/design-003-unsqueeze-inplace.json\""), "%s", o);
  free(o);
}

/* run --isolate: a converter that kills the process (functionalize segfaults inside LibTorch 2.13
 * on this boolean-mask setitem; 1.13 refuses it with an error) gives that file's verdict, as the
 * stack's expectation file records it, and the next file still runs. */
TEST(run_isolate_turns_a_crash_into_a_verdict_and_goes_on) {
  char *o = NULL;
  int rc = af("converters", &o);
  const char *st = o ? strstr(o, "stack torch-") : NULL;
  char stack[32] = "";
  if (st) sscanf(st + 6, "%31[^:]", stack);
  free(o);
  CHECK(stack[0], "no stack in `aliasfuzz converters`");
  /* the child dies by SIGSEGV; under ASan its handler reports it and exits with status 1 */
  const char *expect = !strcmp(stack, "torch-2.13") ? "converter-crash  converter process" : "converter-error";
  rc = af("run corpus/conformance/ch2-chunk_get-select-setitem_mul-input.json "
          "corpus/seed/design-003-unsqueeze-inplace.json --converter functionalize --isolate --deadline 60", &o);
  CHECK(rc == 1, "exit %d: %s", rc, o);
  char want[256];
  snprintf(want, sizeof want, "ch2-chunk_get-select-setitem_mul-input.json functionalize %s", expect);
  CHECK(o && strstr(o, want), "%s: %s", want, o ? o : "");
  CHECK(o && strstr(o, "design-003-unsqueeze-inplace.json functionalize pass"), "the next file ran: %s", o ? o : "");
  free(o);
  if (strcmp(stack, "torch-2.13")) return;
  /* a caching converter is called again on a program with input layouts, as check calls it:
   * aot_eager reuses the graph compiled for fresh inputs when the second call's inputs alias
   * (before, run called once and said pass where check says value-mismatch) */
  rc = af("run corpus/conformance/ali-base-and-slice-add_.json --converter aot_eager", &o);
  CHECK(rc == 1 && o && strstr(o, "ali-base-and-slice-add_.json aot_eager value-mismatch  order 2 of 2"), "exit %d: %s", rc,
        o ? o : "");
  free(o);
}

TEST(usage_errors_exit_2) {
  char *o = NULL;
  int rc;
  rc = af("run corpus/seed/design-001-slice-assign-input.json --converter nope", &o);
  CHECK(rc == 2, "unknown converter");
  CHECK(strstr(o, "unknown converter 'nope'"), "%s", o);
  free(o);
  rc = af("frobnicate", &o);
  CHECK(rc == 2, "unknown command");
  free(o);
  rc = af("run --bogus x.json", &o);
  CHECK(rc == 2, "unknown option");
  free(o);
  rc = af("run /nonexistent.json", &o);
  CHECK(rc == 2, "missing file");
  CHECK(strstr(o, "/nonexistent.json"), "%s", o);
  free(o);
}

TEST(an_invalid_program_exits_1_with_its_verdict) {
  char path[] = "/tmp/af_cli_XXXXXX";
  int fd = mkstemp(path);
  const char *t = "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}], "
                  "\"body\": [{\"out\": \"v\", \"op\": \"view\", \"args\": [\"x\", [7]]}], \"outputs\": [\"v\"]}";
  CHECK(write(fd, t, strlen(t)) == (ssize_t)strlen(t), "write");
  close(fd);
  char args[256], *o = NULL;
  int rc;
  snprintf(args, sizeof args, "run %s", path);
  rc = af(args, &o);
  CHECK(rc == 1, "%s", o);
  CHECK(strstr(o, "invalid-program"), "%s", o);
  free(o);
  unlink(path);
}

/* run judges through judge.c, as check and fuzz do: a program eager rejects is invalid-program
 * without a conversion (run converted it anyway before: converted_shapes [[4, 5]] from naive). */
TEST(run_judges_through_judge_c_and_does_not_convert_a_program_eager_rejects) {
  char *o = NULL;
  int rc = af("run corpus/undefined/undef-001-add-operand-partly-overlaps-target.json --converter naive --json", &o);
  CHECK(rc == 1, "exit %d: %s", rc, o);
  CHECK(strstr(o, "\"verdict\": \"invalid-program\"") && strstr(o, "\"eager_shapes\": [], \"converted_shapes\": [], "
                                                                  "\"residual_mutation\": -1"),
        "%s", o);
  free(o);
  rc = af("run corpus/seed/design-003-unsqueeze-inplace.json --converter naive --json", &o);
  CHECK(rc == 1 && strstr(o, "\"eager_shapes\": [[5, 5, 1]], \"converted_shapes\": [[5, 5]]"), "exit %d: %s", rc, o);
  free(o);
}

TEST(help_is_printed_for_the_tool_and_each_command) {
  char *o = NULL;
  int rc;
  rc = af("--help", &o);
  CHECK(rc == 0 && strstr(o, "commands:"), "%s", o);
  free(o);
  rc = af("run --help", &o);
  CHECK(rc == 0 && strstr(o, "usage: aliasfuzz run"), "%s", o);
  free(o);
  rc = af("converters", &o);
  CHECK(rc == 0 && strstr(o, "script"), "%s", o);
  free(o);
}

/* The commands `aliasfuzz --help` lists (its "commands:" section, a name at column 3), in order:
 * a new array of new strings, NULL-terminated. */
static char **listed_commands(void) {
  char *o = NULL;
  af("--help", &o);
  char **cmds = calloc(64, sizeof(char *));
  int n = 0;
  const char *l = o ? strstr(o, "\ncommands:\n") : NULL;
  for (l = l ? l + 11 : NULL; l && *l && *l != '\n' && n < 63; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    if (l[0] == ' ' && l[1] == ' ' && l[2] != ' ') cmds[n++] = strndup(l + 2, strcspn(l + 2, " \n"));
  free(o);
  return cmds;
}

/* 1 when help text h documents an option its usage lines (up to the first blank line) leave out:
 * a line of the rest that starts with --NAME (an option's entry, or a sentence about it) names it;
 * *opt gets it (new). `report --help` documented --table outside its usage line. */
static int undocumented_in_usage(const char *h, char **opt) {
  const char *end = strstr(h, "\n\n");
  if (!end) return 0;
  for (const char *l = end + 2; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    const char *t = l + strspn(l, " ");
    if (strncmp(t, "--", 2)) continue;
    size_t n = 2 + strspn(t + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
    int found = 0;
    for (const char *u = h; !found && (u = strstr(u, "--")) && u < end; u += 2)
      found = !strncmp(u, t, n) && !strchr("abcdefghijklmnopqrstuvwxyz0123456789-", u[n] ? u[n] : ' ');
    if (!found) {
      *opt = strndup(t, n);
      return 1;
    }
  }
  return 0;
}

/* Every command `aliasfuzz --help` lists answers --help with its usage and exit 0 (`ops --help`
 * exited 2; snippet was not checked), its usage lines list every option it documents, and it
 * prints its exit statuses from the one table (cli_exit.c) with a pointer to docs/exit-codes.md. */
TEST(every_command_help_exits_0_lists_its_options_in_its_usage_and_its_exit_codes) {
  char **cmds = listed_commands();
  int n = 0;
  for (int i = 0; cmds[i]; i++, n++) {
    char args[128], want[128], *o = NULL, *opt = NULL;
    snprintf(args, sizeof args, "%s --help", cmds[i]);
    int rc = af(args, &o);
    CHECK(rc == 0, "%s: exit %d: %.300s", args, rc, o);
    if (!strcmp(cmds[i], "version") || !strcmp(cmds[i], "help")) { /* (no options) */
      free(o);
      continue;
    }
    snprintf(want, sizeof want, "usage: aliasfuzz %s", cmds[i]);
    CHECK(strstr(o, want), "%s: no '%s': %.300s", args, want, o);
    CHECK(strstr(o, "Exit status (every command's: docs/exit-codes.md") && strstr(o, "\n  0  "), "%s: no exit statuses:\n%s", args, o);
    int undocumented = undocumented_in_usage(o, &opt);
    CHECK(!undocumented, "%s documents %s but its usage lines leave it out:\n%s", args, opt, o);
    free(opt);
    free(o);
  }
  CHECK(n >= 14, "aliasfuzz --help lists %d commands", n);
  for (int i = 0; cmds[i]; i++) free(cmds[i]);
  free(cmds);
}

/* docs/exit-codes.md is the exit-status table the commands' --help print from. */
TEST(docs_exit_codes_md_is_the_table_every_help_prints_from) {
  char *o = NULL, *doc = NULL;
  int rc = af("help exit-codes", &o);
  af_err err;
  doc = codec_slurp("docs/exit-codes.md", NULL, &err);
  CHECK(rc == 0 && doc && !strcmp(doc, o),
        "docs/exit-codes.md is stale: regenerate it with `aliasfuzz help exit-codes > docs/exit-codes.md` (exit %d)", rc);
  /* every command of `aliasfuzz --help` has rows */
  char **cmds = listed_commands();
  for (int i = 0; cmds[i]; i++) {
    char row[128];
    snprintf(row, sizeof row, "| `%s` | 0 |", strcmp(cmds[i], "version") && strcmp(cmds[i], "help") ? cmds[i] : "aliasfuzz");
    CHECK(o && strstr(o, row), "docs/exit-codes.md has no row %s", row);
    free(cmds[i]);
  }
  free(cmds);
  free(doc);
  free(o);
}

/* run reads and validates every program file before the converter starts (a worker takes
 * seconds to start): with only a broken file the worker, whose command leaves a mark, never runs;
 * with a good one it does (so the mark would show). */
TEST(run_reads_its_files_before_starting_a_worker_converter) {
  char dir[] = "/tmp/af_cli_XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  char empty[512], good[512], mark[512], args[2048], *o = NULL;
  snprintf(empty, sizeof empty, "%s/empty.json", dir);
  snprintf(good, sizeof good, "%s/good.json", dir);
  snprintf(mark, sizeof mark, "%s/started", dir);
  FILE *f = fopen(empty, "w");
  if (f) fclose(f);
  f = fopen(good, "w");
  if (f) {
    fputs("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}], \"body\": "
          "[{\"out\": \"r\", \"op\": \"alias\", \"args\": [\"x\"]}], \"outputs\": [\"r\"]}\n", f);
    fclose(f);
  }
  for (int k = 0; k < 2; k++) {
    snprintf(args, sizeof args, "run %s --converter 'external:touch %s; exec python3 %s/tests/workers/misbehave.py'", k ? good : empty, mark,
             AF_SOURCE_DIR);
    int rc = af(args, &o);
    if (!k) CHECK(rc == 2 && strstr(o, "empty.json: line 1, column 1: malformed JSON"), "exit %d: %s", rc, o);
    CHECK(k ? access(mark, F_OK) == 0 : access(mark, F_OK) != 0, "%s file: the worker %s: %s", k ? "a good" : "an empty",
          k ? "did not start" : "started", o);
    free(o);
  }
  snprintf(args, sizeof args, "rm -rf %s", dir);
  CHECK(system(args) == 0, "%s", args);
}

/* A policy weight 1e400 reads as infinity, which the policy cannot record (JSON null): refused
 * where the policy is read, naming the field. */
TEST(a_policy_weight_beyond_a_double_is_refused_naming_the_field) {
  char path[] = "/tmp/af_cli_XXXXXX.json", args[512], *o = NULL;
  int fd = mkstemps(path, 5);
  const char *t = "{\"actions\": {\"view\": 1e400}}";
  CHECK(write(fd, t, strlen(t)) == (ssize_t)strlen(t), "write");
  close(fd);
  snprintf(args, sizeof args, "gen --seed 1 --count 1 --policy %s", path);
  int rc = af(args, &o);
  CHECK(rc == 2 && strstr(o, "policy: actions.view: a number beyond the range of a double"), "exit %d: %s", rc, o);
  free(o);
  unlink(path);
}

/* reduce --deadline S holds each test of a worker converter to S seconds: a converter that answers
 * a wrong value after 3 s is minimized as a value-mismatch with --deadline 20 and, held to 1 s, as
 * a timeout (what a slow converter on a busy machine met with the old fixed deadline, which turned a
 * crash into a timeout reduced to nothing); an in-process converter has no worker deadline. */
TEST(reduce_deadline_holds_a_worker_converter_to_it) {
  char dir[] = "/tmp/af_cli_XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  char cmd[4096], prog[600];
  snprintf(prog, sizeof prog, "%s/p.json", dir);
  FILE *f = fopen(prog, "w");
  if (!f) return;
  fputs("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}], "
        "\"body\": [{\"out\": \"y\", \"op\": \"add\", \"args\": [\"x\", 1]}], \"outputs\": [\"y\"], \"meta\": {\"misbehave\": \"slow\"}}",
        f);
  fclose(f);
  const int secs[2] = {20, 1};
  const char *want[2] = {"value-mismatch on external:", "converter-timeout on external:"};
  for (int k = 0; k < 2; k++) {
    char *o = NULL;
    snprintf(cmd, sizeof cmd, "reduce %s --converter 'external:python3 %s/tests/workers/misbehave.py' --deadline %d --max-tests 3 --out %s/r%d", prog,
             AF_SOURCE_DIR, secs[k], dir, k);
    int rc = af(cmd, &o);
    CHECK(rc == 0 && o && strstr(o, want[k]), "--deadline %d: exit %d, wanted '%s': %s", secs[k], rc, want[k], o ? o : "");
    free(o);
  }
  char *o = NULL;
  snprintf(cmd, sizeof cmd, "reduce %s --converter ref --deadline 5", prog);
  int rc = af(cmd, &o);
  CHECK(rc == 2 && o && strstr(o, "--deadline applies to worker converters"), "ref: exit %d: %s", rc, o ? o : "");
  free(o);
  tap_rmrf(dir);
}

/* The README of a finding of an `external:` converter quotes the --converter value for the shell,
 * and says what its repro.py does: without the converter's Python it prints eager's outputs and
 * exits 2 (the README said 1). Both lines are run as printed. */
TEST(an_external_converter_finding_readme_gives_commands_that_run_as_printed) {
  char dir[] = "/tmp/af_cli_XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "printf '%%s' '{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3], \"dtype\": "
           "\"float32\"}], \"body\": [{\"out\": \"y\", \"op\": \"add\", \"args\": [\"x\", 1]}], \"outputs\": [\"y\"]}' > %s/p.json && "
           "%s/aliasfuzz reduce %s/p.json --converter 'external:python3 %s/tests/workers/misbehave.py' --out %s/f 2>&1",
           dir, AF_BINARY_DIR, dir, AF_SOURCE_DIR, dir);
  FILE *p = popen(cmd, "r");
  char line[4096];
  while (p && fgets(line, sizeof line, p)) {
  }
  CHECK(p && pclose(p) == 0, "reduce failed: %s", cmd);
  snprintf(cmd, sizeof cmd, "cat %s/f/findings/*/README.md", dir);
  af_buf b = {0};
  p = popen(cmd, "r");
  while (p && fgets(line, sizeof line, p)) af_buf_puts(&b, line);
  if (p) pclose(p);
  char want[1024];
  snprintf(want, sizeof want, "aliasfuzz run repro.json --converter 'external:python3 %s/tests/workers/misbehave.py'", AF_SOURCE_DIR);
  CHECK(b.s && strstr(b.s, want), "README lacks %s:\n%s", want, b.s ? b.s : "");
  CHECK(b.s && strstr(b.s, "python3 repro.py            # eager's outputs only, exit 2"), "README:\n%s", b.s ? b.s : "");
  af_buf_free(&b);
  /* as printed, from the finding folder: repro.json goes through the worker again (exit 1) */
  snprintf(cmd, sizeof cmd, "cd %s/f/findings/* && %s/aliasfuzz run repro.json --converter 'external:python3 %s/tests/workers/misbehave.py'", dir,
           AF_BINARY_DIR, AF_SOURCE_DIR);
  int rc = system(cmd);
  CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "the run line: status %d", rc);
  snprintf(cmd, sizeof cmd, "cd %s/f/findings/* && %s/.venv/bin/python3 repro.py >/dev/null 2>&1", dir, AF_SOURCE_DIR);
  rc = system(cmd);
  /* 2 as the README says; 3 where that Python lacks this stack's torch (the 1.13 stack) */
  CHECK(WIFEXITED(rc) && (WEXITSTATUS(rc) == 2 || (WEXITSTATUS(rc) == 3 && strcmp(at_stack(), "torch-2.13"))), "repro.py: status %d", rc);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0, "%s", cmd);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "inputs")) { /* issue 27's: a ctest entry of their own (cli_help_inputs_and_readmes) */
    RUN(every_command_help_exits_0_lists_its_options_in_its_usage_and_its_exit_codes);
    RUN(docs_exit_codes_md_is_the_table_every_help_prints_from);
    RUN(run_reads_its_files_before_starting_a_worker_converter);
    RUN(a_policy_weight_beyond_a_double_is_refused_naming_the_field);
    RUN(an_external_converter_finding_readme_gives_commands_that_run_as_printed);
  RUN(reduce_deadline_holds_a_worker_converter_to_it);
    return tap_done();
  }
  RUN(run_script_passes_every_seed_case_and_exits_1_for_the_torchscript_gaps);
  RUN(json_output_reports_the_unsqueeze_shape_5_5_1);
  RUN(run_isolate_turns_a_crash_into_a_verdict_and_goes_on);
  RUN(usage_errors_exit_2);
  RUN(an_invalid_program_exits_1_with_its_verdict);
  RUN(run_judges_through_judge_c_and_does_not_convert_a_program_eager_rejects);
  RUN(help_is_printed_for_the_tool_and_each_command);
  return tap_done();
}
