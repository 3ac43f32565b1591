/* signature.c - see signature.h */
#include "signature.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/ops/ops.h"

uint64_t sig_fnv1a(const void *data, size_t n, uint64_t h) {
  const unsigned char *p = data;
  if (!h) h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

char *sig_pattern(const ir_program *p) {
  af_buf b = {0};
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *st = &p->stmts[s];
    if (s) af_buf_puts(&b, " ");
    af_buf_puts(&b, ops_get(st->op)->name);
    /* a write into an input: any argument the op writes (batch_norm's running statistics too) */
    int w[16], n = ops_stmt_written(st, w, 16), in = 0;
    for (int k = 0; k < n && k < 16; k++) in |= w[k] >= 0 && w[k] < p->ninputs;
    if (in) af_buf_puts(&b, "@in");
  }
  return af_buf_take(&b);
}

const char *sig_key_line(const char *msg) {
  if (!msg) return "";
  const char *best = msg;
  for (const char *line = msg; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    const char *c = line;
    while ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || *c == '.' || *c == '_') c++;
    if (c > line + 5 && strncmp(c - 5, "Error: ", 7) == 0) best = line; /* "RuntimeError: ..." */
  }
  return best;
}

static void sig_putc(af_buf *b, char c) {
  char s[2] = {c, 0};
  af_buf_puts(b, s);
}

/* Whether c starts a number: 12, -3, 1.5e-3, 0x7f (a '-' only when no word precedes it). */
static int sig_number_at(const char *line, const char *c) {
  if (isdigit((unsigned char)*c)) return 1;
  if ((*c == '-' || *c == '.') && isdigit((unsigned char)c[1]))
    return c == line || !(isalnum((unsigned char)c[-1]) || c[-1] == '_');
  return 0;
}

static const char *const sig_trailers[] = {" [Caused by ", "[Caused by ", " (node defined in ", "(node defined in ", NULL};

static const char *af_memmem(const char *h, size_t n, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; k <= n && i <= n - k; i++)
    if (!memcmp(h + i, needle, k)) return h + i;
  return NULL;
}

static int sig_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Length of an operator's name at c ("aten::abs.out", "prims::copy_to", "aten.abs.default",
 * "torch.ops.aten.add_.Tensor"), 0 when none starts there: a namespace of the known operator
 * libraries followed by "::" or ".", then the name and its overload. */
static size_t sig_op_name_at(const char *line, const char *c, const char *end) {
  static const char *const ns[] = {"torch.ops.aten.", "torch.ops.prims.", "aten::", "prims::", "aten.", "prims.",
                                   "quantized::", NULL};
  if (c > line && (sig_ident(c[-1]) || c[-1] == '.' || c[-1] == ':')) return 0;
  for (int k = 0; ns[k]; k++) {
    size_t n = strlen(ns[k]);
    if ((size_t)(end - c) <= n || strncmp(c, ns[k], n) != 0 || !sig_ident(c[n])) continue;
    const char *e = c + n;
    while (e < end && (sig_ident(*e) || (*e == '.' && e + 1 < end && sig_ident(e[1])))) e++;
    return (size_t)(e - c);
  }
  return 0;
}

char *sig_error_class(const char *msg) {
  af_buf b = {0};
  const char *line = sig_key_line(msg);
  const char *end = strchr(line, '\n');
  if (!end) end = line + strlen(line);
  /* A message the shim cut (900 characters and "...", harness/torch/shim_impl.hpp) ends at a point
   * that depends on how long the TorchScript traceback before its key line was: the same error
   * gave one key per traceback length. When the key line runs into the cut, only its first
   * sentence is kept, marked with " …". */
  int cut = 0;
  if (end - line >= 3 && !strncmp(end - 3, "...", 3) && !end[0]) {
    const char *type = strstr(line, "Error: ");
    const char *from = type && type < end ? type + 7 : line;
    for (const char *c = from; c + 1 < end; c++)
      if (*c == '.' && (c[1] == ' ' || c[1] == '\n')) {
        end = c + 1;
        cut = 1;
        break;
      }
    if (!cut) end -= 3; /* no sentence end: what comes before the marker */
    cut = 1;
  }
  /* trailers that name where the exporter saw the value, not what went wrong: the same error gave
   * one key per graph node ("[Caused by the value '…' (type 'Tensor') in the TorchScript graph.
   * The containing node has kind …]", "(node defined in File …)") */
  for (int t = 0; sig_trailers[t]; t++) {
    const char *tr = af_memmem(line, (size_t)(end - line), sig_trailers[t]);
    if (tr) end = tr;
  }
  /* a crash's site (fuzz/crashsite.h: "killed by signal 11 (…) in f1 < f2") is kept as it is:
   * its frames' names and offsets are what tells one crash from another */
  const char *site = NULL, *site_end = end;
  if (!strncmp(line, "converter process killed by signal", 34)) {
    site = af_memmem(line, (size_t)(end - line), ") in ");
    if (site) {
      site += 1;
      end = site;
    }
  }
  for (const char *c = line; c < end; c++) /* c moves past what a branch consumed */ {
    size_t opn = sig_op_name_at(line, c, end);
    if (opn) { /* an operator's name: the same error names whichever op the program ran into */
      const char *dots = c;
      while (dots < c + opn && *dots != ':' && *dots != '.') dots++;
      af_buf_printf(&b, "%.*s%s…", (int)(dots - c), c, *dots == ':' ? "::" : ".");
      c += opn - 1;
      continue;
    }
    if (*c == '\'' || *c == '"' || *c == '`') { /* quoted text: names, types, source snippets */
      const char *q = memchr(c + 1, *c, (size_t)(end - c - 1));
      if (q) {
        af_buf_puts(&b, "'…'");
        c = q;
        continue;
      }
      sig_putc(&b, *c);
    } else if (*c == '[' || *c == '(' || *c == '{') { /* sizes, strides, dims, tuples: any length */
      char close = *c == '[' ? ']' : *c == '(' ? ')' : '}';
      int depth = 0;
      const char *e = c, *w = c + 1;
      for (; e < end; e++) {
        if (*e == *c) depth++;
        else if (*e == close && --depth == 0) break;
      }
      while (w < e && isalpha((unsigned char)*w)) w++;
      /* words in parentheses are what went wrong, not a size or a tuple: "(PyTorch gave no
       * message)", "(at `if bool(v5):`)" (collapsed, a message-less error took every other
       * one's key): read on, normalized as the rest */
      if (e < end && *c == '(' && w > c + 1 && *w == ' ') {
        sig_putc(&b, *c);
        continue;
      }
      if (e < end) {
        af_buf_printf(&b, "%c…%c", *c, close);
        c = e;
      } else {
        sig_putc(&b, *c);
      }
    } else if (*c == '%' && (isalnum((unsigned char)c[1]) || c[1] == '_')) { /* TorchScript value names */
      while (c + 1 < end && (isalnum((unsigned char)c[1]) || c[1] == '_' || c[1] == '.')) c++;
      af_buf_puts(&b, "%…");
    } else if (*c == '/' && (c == line || isspace((unsigned char)c[-1])) && c + 1 < end && c[1] != ' ') { /* a path */
      while (c + 1 < end && !isspace((unsigned char)c[1]) && c[1] != ':' && c[1] != ',' && c[1] != ')') c++;
      af_buf_puts(&b, "<path>");
    } else if (sig_number_at(line, c)) { /* numbers of any length, signed, fractional, hex */
      if (*c == '-' || *c == '.') c++;
      int hex = c[0] == '0' && (c[1] == 'x' || c[1] == 'X');
      if (hex) c += 2;
      for (;;) {
        const char *n = c + 1;
        if (n >= end) break;
        if (isdigit((unsigned char)*n) || *n == '.' || (hex && isxdigit((unsigned char)*n))) c = n;
        else if (!hex && (*n == 'e' || *n == 'E') && (isdigit((unsigned char)n[1]) || ((n[1] == '-' || n[1] == '+') && isdigit((unsigned char)n[2]))))
          c = n + 1;
        else break;
      }
      if (b.len == 0 || b.s[b.len - 1] != '#') af_buf_puts(&b, "#");
    } else if (isspace((unsigned char)*c)) { /* runs of blanks are one */
      if (b.len && b.s[b.len - 1] != ' ') sig_putc(&b, ' ');
    } else {
      sig_putc(&b, *c);
    }
  }
  while (b.len && b.s[b.len - 1] == ' ') b.s[--b.len] = 0;
  if (site) af_buf_printf(&b, "%.*s", (int)(site_end - site < 400 ? site_end - site : 400), site);
  if (cut) af_buf_puts(&b, " …");
  if (!b.s) af_buf_puts(&b, "");
  return af_buf_take(&b);
}

void sig_make(const char *converter, oracle_verdict v, const ir_program *minimized, const char *detail, char **text,
              char id[64]) {
  char *cls;
  switch (v) {
    case V_ERROR:
    case V_CRASH:
    case V_UNSUPPORTED:
    case V_INVALID_PROGRAM:
      cls = sig_error_class(detail);
      break;
    case V_TIMEOUT:
      cls = af_xstrdup("timeout");
      break;
    default:
      cls = sig_pattern(minimized);
  }
  af_buf b = {0};
  af_buf_printf(&b, "%s|%s|%s", converter, oracle_verdict_name(v), cls);
  free(cls);
  uint64_t h = sig_fnv1a(b.s, b.len, 0);
  snprintf(id, 64, "%s-%016llx", oracle_verdict_name(v), (unsigned long long)h);
  *text = af_buf_take(&b);
}
