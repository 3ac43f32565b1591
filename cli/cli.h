/* cli.h - helpers shared by the command implementations. */
#ifndef CLI_H
#define CLI_H
/* Prints "aliasfuzz: <fmt with arg>" and the usage text to stderr; returns 2. */
int cli_usage_error(const char *usage, const char *fmt, const char *arg);
/* A command's --help: usage on stdout, then the rows of cmd ("run", "fuzz", ...; "aliasfuzz" for
 * the tool itself) from the one exit-status table of cli_exit.c, with a pointer to
 * docs/exit-codes.md. */
void cli_help(const char *usage, const char *cmd);
/* The whole exit-status table as docs/exit-codes.md (`aliasfuzz help exit-codes`), on stdout. */
void cli_exit_markdown(void);
/* Commands (cli/cmd_*.c); each returns the process exit status. */
int cmd_fuzz(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_suite(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_snippet(int argc, char **argv);
#endif
