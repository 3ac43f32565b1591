/* crashsite.c - see crashsite.h */
#define _GNU_SOURCE
#include "crashsite.h"

#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/af.h"

static int crash_fd = -1;

static void on_fatal(int sig) {
  void *frames[48];
  int n = backtrace(frames, 48);
  for (int k = 0; k < n; k++) {
    if (write(crash_fd, "K ", 2) < 0) break;
    backtrace_symbols_fd(&frames[k], 1, crash_fd); /* writes the frame and a newline, no malloc */
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void crashsite_install(int fd) {
  static char altstack[1 << 16];
  crash_fd = fd;
  void *prime[2];
  backtrace(prime, 2); /* loads libgcc now: backtrace may allocate on its first call */
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) sigaction(sigs[k], &sa, NULL);
}

/* Whether a frame's object is aliasfuzz's own code or the C library's signal and abort
 * machinery: not where a converter crashed. */
static int skipped_object(const char *obj, size_t n) {
  static const char *const skip[] = {"aliasfuzz", "test_", "libc.so", "libc-", "libpthread", "linux-vdso", "ld-linux", "fuzz_", NULL};
  const char *base = obj;
  for (size_t k = 0; k < n; k++)
    if (obj[k] == '/') base = obj + k + 1;
  size_t bl = (size_t)(obj + n - base);
  for (int k = 0; skip[k]; k++)
    if (bl >= strlen(skip[k]) && !strncmp(base, skip[k], strlen(skip[k]))) return 1;
  return bl == 0;
}

/* One frame of a "K " line: its object's base name and its symbol (without the offset) or, with
 * none, the offset in its object. 0 when the frame is not one to name. */
typedef struct frame {
  char what[200];
  int symbol;  /* 1: named by its symbol */
  int own;     /* 1: in a converter's own code (the functionalization, the TorchScript passes) */
  int generic; /* 1: ATen's kernel machinery, which every kernel's crash passes through */
} frame;

static int parse_frame(const char *f, const char *end, frame *out) {
  static const char *const own[] = {"functionaliz", "Functionaliz", "Functional", "5torch3jit", NULL};
  static const char *const generic[] = {"TensorIterator", "function_ref", "2at6native", "3c10", "2at4impl", "2at6vec", NULL};
  memset(out, 0, sizeof *out);
  const char *open = memchr(f, '(', (size_t)(end - f));
  size_t objn = open ? (size_t)(open - f) : (size_t)(end - f);
  if (!open || skipped_object(f, objn)) return 0;
  const char *base = f;
  for (const char *c = f; c < f + objn; c++)
    if (*c == '/') base = c + 1;
  if (open[1] != '+' && open[1] != ')') {
    size_t n = strcspn(open + 1, "+)");
    snprintf(out->what, sizeof out->what, "%.*s", (int)(n < 160 ? n : 160), open + 1);
    out->symbol = 1;
    for (int k = 0; own[k]; k++) out->own |= strstr(out->what, own[k]) != NULL;
    for (int k = 0; generic[k]; k++) out->generic |= strstr(out->what, generic[k]) != NULL;
  } else {
    size_t n = strcspn(open + 1, ")");
    snprintf(out->what, sizeof out->what, "%.*s%.*s", (int)(f + objn - base), base, (int)(n < 40 ? n : 40), open + 1);
  }
  return 1;
}

/* Where a crash happened, as one key: the innermost frames in a converter's own code (at most
 * two); without any, the innermost named frames outside ATen's kernel machinery; without those,
 * the innermost frames as they are. A segfault inside a kernel's loop is keyed by what called the
 * kernel, not by which vectorized loop it was (the same bug crashed in add's loop and in mul's). */
char *crashsite_describe(int sig, const char *sent) {
  af_buf b = {0};
  af_buf_printf(&b, "converter process killed by signal %d (%s)", sig, strsignal(sig));
  frame fr[48];
  int n = 0;
  for (const char *line = sent; line && *line && n < 48; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (strncmp(line, "K ", 2) != 0) continue;
    const char *end = strchr(line, '\n');
    if (!end) end = line + strlen(line);
    if (parse_frame(line + 2, end, &fr[n])) n++;
  }
  int kept = 0;
  for (int pass = 0; pass < 3 && !kept; pass++)
    for (int k = 0; k < n && kept < 2; k++) {
      int take = pass == 0 ? fr[k].own : pass == 1 ? fr[k].symbol && !fr[k].generic : 1;
      if (!take) continue;
      af_buf_printf(&b, "%s%s", kept ? " < " : " in ", fr[k].what);
      kept++;
    }
  return af_buf_take(&b);
}
