/* cli_exit.c - the exit status of every command, in one table (see cli.h). Each command's --help
 * prints its own rows from it (cli_help), and `aliasfuzz help exit-codes` prints the whole table as
 * docs/exit-codes.md, which test_cli compares with the committed file. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct cli_exit_row {
  const char *command; /* as typed after `aliasfuzz` (a word, or "reduce --deferred"); a script's file name */
  int code;
  const char *meaning;
} cli_exit_row;

/* One line per (command, status), commands in the order of `aliasfuzz --help`. */
static const cli_exit_row cli_exits[] = {
    {"aliasfuzz", 0, "`--help`, `help`, `version`"},
    {"aliasfuzz", 2, "no command, or an unknown one"},
    {"run", 0, "every file passes"},
    {"run", 1, "a file does not pass (its line names the verdict)"},
    {"run", 2, "usage or input error (a file unreadable or not a valid program, an unknown converter), or the converter "
               "is not available here"},
    {"converters", 0, "always (an unavailable converter is a line saying why)"},
    {"ops", 0, "the table was printed"},
    {"ops", 2, "an unknown option"},
    {"emit", 0, "the program was printed"},
    {"emit", 2, "no file, or the file is not a valid program"},
    {"fmt", 0, "every file is canonical (rewritten where it was not)"},
    {"fmt", 1, "with `--check`: a file is not canonical"},
    {"fmt", 2, "no file, a file that is not a valid program, or a write error"},
    {"fuzz", 0, "no finding, or only what the converter refuses by design (its limits: converter-unsupported programs, "
                "documented refusals; the report's \"What this converter refuses\")"},
    {"fuzz", 1, "a bug class, a flaky finding or a failing program not yet in a class (limits apart); with `--baseline`: "
                "a class or deferred program the baseline does not fail the same way (a limit too: the change refuses "
                "what the baseline took)"},
    {"fuzz", 2, "usage or setup error: an unknown converter, a bad policy, the folder locked by another campaign (its "
                "pid is named)"},
    {"fuzz", 4, "a write error (disk full, ...) stopped the campaign: the last line names what was not written; the same "
                "command resumes"},
    {"fuzz", 5, "only harness findings: protocol errors, programs aliasfuzz cannot hand to the converter, classes not "
                "seen from the converter's public API (no converter bug)"},
    {"merge", 0, "the folders were merged into OUT (or were merged already), its report written"},
    {"merge", 2, "usage error; a DIR that is not a campaign folder or where a campaign runs; folders of another "
                "converter, converter version, stack or aliasfuzz version than OUT's (named); a write error"},
    {"reduce", 0, "the program was minimized into a finding folder"},
    {"reduce", 1, "the program passes: nothing to reduce"},
    {"reduce", 2, "usage or input error"},
    {"reduce --deferred", 0, "nothing is left deferred"},
    {"reduce --deferred", 1, "some programs stay deferred (their minimization failed: classes.json \"failed\")"},
    {"reduce --deferred", 2, "usage error, or DIR is not a campaign folder of this build's stack"},
    {"repro", 0, "the bug does not reproduce (or only in process: a harness artifact)"},
    {"repro", 1, "the bug reproduces"},
    {"repro", 2, "repro.py fails in another way; or usage or input error"},
    {"repro", 3, "repro.py cannot run the converter here (this Python lacks torch of the finding's stack or the "
                 "converter's package)"},
    {"snippet", 0, "snippet.py was written (or printed)"},
    {"snippet", 2, "usage or input error: no repro.json or converter in the folder, a converter without a stock API"},
    {"suite", 0, "the suite was written; with `--check`: it is what the generator makes"},
    {"suite", 1, "with `--check`: the folder differs from what the generator makes"},
    {"suite", 2, "a write or generator error"},
    {"check", 0, "nothing regressed (newly passing cases are listed); `--update-expect`: the file was written"},
    {"check", 1, "a regression: a case that passed fails, or a case's verdict changed"},
    {"check", 2, "usage or input error: a converter not available here, an expectation file of another stack or "
                 "converter, an unwritable --junit or --report"},
    {"report", 0, "the report (or `--table`) was written"},
    {"report", 2, "usage error, or the folder holds no report.json or check-*.json"},
    {"gen", 0, "the programs were written; with `--check`: every one is eager-valid"},
    {"gen", 1, "with `--check`: a program eager rejects"},
    {"gen", 2, "usage error, a bad policy or bytes file, a write error"},
    {"repro.py", 0, "the converter and eager agree (fixed, or never on the user's path)"},
    {"repro.py", 1, "the bug reproduces (or eager itself rejects the program)"},
    {"repro.py", 2, "another failure than the one found, or a converter with no Python reproduction (eager's outputs "
                    "only)"},
    {"repro.py", 3, "this Python lacks torch of the finding's version or the converter's package (`AF_REPRO_ANY_TORCH=1` "
                    "runs it on another torch)"},
    {"snippet.py", 0, "the converter and eager agree"},
    {"snippet.py", 1, "the values differ or the conversion raises (a missing package too: Python's status for an "
                      "uncaught ImportError)"},
};

#define CLI_EXIT_ROWS (sizeof cli_exits / sizeof cli_exits[0])

/* The rows of cmd: its own, and for "reduce" those of "reduce --deferred" too. */
static int cli_exit_of(const cli_exit_row *r, const char *cmd) {
  size_t n = strlen(cmd);
  return !strncmp(r->command, cmd, n) && (r->command[n] == 0 || r->command[n] == ' ');
}

/* A row's meaning as help text: backquotes dropped, wrapped at 100 columns under its first word. */
static void cli_exit_wrapped(const char *s) {
  int col = 5;
  while (*s) {
    size_t w = strcspn(s, " ");
    int len = 0;
    for (size_t k = 0; k < w; k++) len += s[k] != '`';
    if (col > 5 && col + 1 + len > 100) printf("\n     "), col = 5;
    if (col > 5) putchar(' '), col++;
    for (size_t k = 0; k < w; k++)
      if (s[k] != '`') putchar(s[k]);
    col += len;
    s += w;
    s += strspn(s, " ");
  }
  putchar('\n');
}

void cli_help(const char *usage, const char *cmd) {
  fputs(usage, stdout);
  printf("\nExit status (every command's: docs/exit-codes.md, `aliasfuzz help exit-codes`):\n");
  int groups = 0; /* more than one: each under its own heading ("reduce", "reduce --deferred") */
  const char *last = NULL;
  for (size_t i = 0; i < CLI_EXIT_ROWS; i++)
    if (cli_exit_of(&cli_exits[i], cmd) && (!last || strcmp(last, cli_exits[i].command))) groups++, last = cli_exits[i].command;
  last = NULL;
  for (size_t i = 0; i < CLI_EXIT_ROWS; i++) {
    const cli_exit_row *r = &cli_exits[i];
    if (!cli_exit_of(r, cmd)) continue;
    if (groups > 1 && (!last || strcmp(last, r->command))) printf(" %s:\n", r->command);
    last = r->command;
    printf("  %d  ", r->code);
    cli_exit_wrapped(r->meaning);
  }
}

void cli_exit_markdown(void) {
  printf("# Exit codes\n"
         "\n"
         "<!-- generated by `aliasfuzz help exit-codes > docs/exit-codes.md` from cli/cli_exit.c, the table\n"
         "     every command's --help prints its rows from; test_cli checks that this file is what it prints -->\n"
         "\n"
         "Every `aliasfuzz` command, and the two scripts a finding folder holds, in one table. Across\n"
         "commands: 0 is success (nothing found, nothing regressed), 1 is \"something failed: look\" (a\n"
         "finding, a regression, a program that does not pass), 2 is a usage, input or setup error\n"
         "(the message on stderr names what and where). `fuzz` alone has 4 (a write error; the same\n"
         "command resumes) and 5 (harness findings only); `repro` and repro.py have 3 (this machine\n"
         "cannot run the converter, which says nothing about the bug). `aliasfuzz COMMAND --help` prints\n"
         "its command's rows.\n"
         "\n"
         "| command | exit | when |\n"
         "|---|---:|---|\n");
  for (size_t i = 0; i < CLI_EXIT_ROWS; i++)
    printf("| `%s` | %d | %s |\n", cli_exits[i].command, cli_exits[i].code, cli_exits[i].meaning);
  printf("\n"
         "A CI job reads them so: `check` and `fuzz --baseline` fail the job with 1 (a regression, a new\n"
         "class); 2 is a broken job (fix the command or the machine); `fuzz`'s 5 is worth a look at the\n"
         "report's harness section but is no converter bug (docs/ci.md).\n");
}
