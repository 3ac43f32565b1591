/* signature.c - see signature.h */
#include "signature.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/ops.h"

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
    if (ops_mutates(st->op) && st->args[0].kind == IR_ARG_VALUE && st->args[0].value < p->ninputs) af_buf_puts(&b, "@in");
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

char *sig_error_class(const char *msg) {
  af_buf b = {0};
  int quote = 0, n = 0;
  for (const char *c = sig_key_line(msg); *c && *c != '\n' && n < 160; c++, n++) {
    if (*c == '\'' || *c == '"') {
      if (!quote) af_buf_puts(&b, "'…'");
      quote = !quote;
    } else if (quote) {
      continue;
    } else if (*c == '[' || *c == '(') { /* sizes, strides, dims: their length varies too */
      char close = *c == '[' ? ']' : ')';
      const char *e = strchr(c, close);
      const char *nl = strchr(c, '\n');
      if (e && (!nl || e < nl) && e - c < 80) {
        af_buf_printf(&b, "%c…%c", *c, close);
        n += (int)(e - c);
        c = e;
      } else {
        af_buf_printf(&b, "%c", *c);
      }
    } else if (isdigit((unsigned char)*c)) {
      if (b.len == 0 || b.s[b.len - 1] != '#') af_buf_puts(&b, "#");
    } else {
      char ch[2] = {*c, 0};
      af_buf_puts(&b, ch);
    }
  }
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
