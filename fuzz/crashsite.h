/* crashsite.h - where an in-process converter crashed, so that two crashes are two classes.
 *
 * A converter that kills its process (a segfault in LibTorch's functionalization, an abort in a
 * TorchScript pass) used to give one error key, "converter process killed by signal N", for every
 * crash of a campaign. The forked child that judges a program installs crashsite_install(fd):
 * on a fatal signal it writes its native backtrace to fd, one "K <frame>" line per frame (the
 * frame as backtrace_symbols_fd prints it), then dies by the same signal. The parent hands what it
 * read to crashsite_describe(), which keeps the innermost frames outside aliasfuzz itself and the
 * C library, by symbol (mangled names, offsets dropped) or, without a symbol, by object and
 * offset: "killed by signal 11 (Segmentation fault) in <f1> < <f2> < <f3>". The error key
 * (signature.h) keeps the frames, so each crash state is its own class. */
#ifndef CRASHSITE_H
#define CRASHSITE_H

/* Installs the fatal-signal handlers of a forked child that reports to fd. */
void crashsite_install(int fd);

/* The crash detail for a child that died by signal sig, from the text it sent (may be NULL; the
 * "K " lines in it are used): new string. */
char *crashsite_describe(int sig, const char *sent);

#endif
