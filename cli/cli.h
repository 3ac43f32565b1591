/* cli.h - helpers shared by the command implementations. */
#ifndef CLI_H
#define CLI_H
/* Prints "aliasfuzz: <fmt with arg>" and the usage text to stderr; returns 2. */
int cli_usage_error(const char *usage, const char *fmt, const char *arg);
/* Commands (cli/cmd_*.c); each returns the process exit status. */
int cmd_fuzz(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_suite(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_snippet(int argc, char **argv);
#endif
