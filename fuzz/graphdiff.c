/* graphdiff.c - the ops a converter's graph changed against its baseline's (graphdiff.h). */
#include "graphdiff.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/af.h"

/* Ops that spell one mechanism in several ways, and the one name they fold into. */
static const struct {
  const char *op, *as;
} GRAPHDIFF_FOLDS[] = {
    {"slice_scatter", "view_scatter"},
    {"select_scatter", "view_scatter"},
    {"diagonal_scatter", "view_scatter"},
    {"as_strided_scatter", "view_scatter"},
};

/* Lines aligned at most; a longer graph is compared as a multiset of lines (no alignment). The
 * parent runs this for every failing program the baseline gets right, so the table (4 bytes per
 * pair of lines) stays under 1.5 MB: a generated program's graph has tens of lines, a minimized
 * one a few. */
enum { ALIGN_MAX = 600 };

typedef struct {
  char *lhs;  /* the value names it defines, comma-separated as written (NULL: none) */
  char *rhs;  /* what it computes, liveness notes cut off */
  char op[128];
} gline;

typedef struct {
  gline *l;
  int n;
  char **names; /* the names of the graph's values (inputs and every LHS) */
  char **defref; /* each one's place: "#K" made by line K, "inJ" input J */
  int nnames;
} graph;

static int ident_start(int c) { return isalpha(c) || c == '_' || c == '%'; }
static int ident_char(int c) { return isalnum(c) || c == '_' || c == '.' || c == '%'; }

static void add_name(graph *g, const char *s, size_t len, const char *ref) {
  while (len && isspace((unsigned char)*s)) s++, len--;
  while (len && isspace((unsigned char)s[len - 1])) len--;
  if (!len) return;
  g->names = af_xrealloc(g->names, (size_t)(g->nnames + 1) * sizeof *g->names);
  g->defref = af_xrealloc(g->defref, (size_t)(g->nnames + 1) * sizeof *g->defref);
  char *n = af_xmalloc(len + 1);
  memcpy(n, s, len);
  n[len] = 0;
  g->names[g->nnames] = n;
  g->defref[g->nnames++] = af_xstrdup(ref);
}

static const char *defref_of(const graph *g, const char *tok, size_t len) {
  for (int i = g->nnames - 1; i >= 0; i--)
    if (strlen(g->names[i]) == len && !memcmp(g->names[i], tok, len)) return g->defref[i];
  return NULL;
}

/* The end of the line's statement: the first ';' outside brackets and quotes. */
static size_t statement_len(const char *s) {
  int depth = 0;
  char quote = 0;
  size_t i = 0;
  for (; s[i]; i++) {
    char c = s[i];
    if (quote) {
      if (c == '\\' && s[i + 1]) i++;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') quote = c;
    else if (c == '(' || c == '[' || c == '{') depth++;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
    else if (c == ';' && depth == 0) break;
  }
  return i;
}

/* Offset of the top-level " = " that ends the LHS, or -1 (a call statement, or "==" only). */
static long assign_at(const char *s, size_t len) {
  int depth = 0;
  for (size_t i = 0; i + 1 < len; i++) {
    char c = s[i];
    if (c == '(' || c == '[') depth++;
    else if ((c == ')' || c == ']') && depth > 0) depth--;
    else if (c == '=' && depth == 0 && s[i + 1] != '=' && (i == 0 || (s[i - 1] != '=' && s[i - 1] != '!' && s[i - 1] != '<' && s[i - 1] != '>')))
      return (long)i;
  }
  return -1;
}

void graphdiff_line_op(const char *line, char *out, size_t n) {
  out[0] = 0;
  if (n < 2) return;
  long eq = assign_at(line, strlen(line));
  if (eq >= 0) line += eq + 1;
  const char *p = strchr(line, '(');
  if (!p) return;
  const char *e = p;
  /* a callee may carry attributes before its arguments: prim::Constant[value=1]() */
  const char *br = memchr(line, '[', (size_t)(p - line));
  if (br) e = br;
  const char *b = e;
  while (b > line && (ident_char((unsigned char)b[-1]) || b[-1] == ':')) b--;
  if (b == e) return;
  char callee[256];
  size_t len = (size_t)(e - b) < sizeof callee - 1 ? (size_t)(e - b) : sizeof callee - 1;
  memcpy(callee, b, len);
  callee[len] = 0;
  const char *name = callee;
  if (!strncmp(callee, "torch.ops.", 10)) { /* torch.ops.NS.NAME.OVERLOAD */
    const char *ns_end = strchr(callee + 10, '.');
    name = ns_end ? ns_end + 1 : callee + 10;
    char *ov = strchr((char *)name, '.');
    if (ov) *ov = 0;
  } else {
    const char *c2 = strstr(callee, "::");
    if (c2) {
      const char *last;
      while ((last = strstr(c2 + 2, "::"))) c2 = last;
      name = c2 + 2;
      char *ov = strchr((char *)name, '.');
      if (ov) *ov = 0;
    } else {
      const char *dot = strrchr(callee, '.');
      if (dot) name = dot + 1;
    }
  }
  for (size_t i = 0; i < sizeof GRAPHDIFF_FOLDS / sizeof *GRAPHDIFF_FOLDS; i++)
    if (!strcmp(name, GRAPHDIFF_FOLDS[i].op)) name = GRAPHDIFF_FOLDS[i].as;
  snprintf(out, n, "%s", name);
}

/* The names a header line gives its inputs: "def forward(self, arg0_1, arg1_1):" (each parameter
 * but self, before its annotation or default), "graph(%x : Float(...), %y : ...):" (the %names). */
static void header_names(graph *g, const char *s) {
  const char *p = strchr(s, '(');
  if (!p) return;
  int depth = 0;
  const char *st = p + 1;
  for (const char *q = p + 1; *q; q++) {
    if (*q == '(' || *q == '[') depth++;
    else if ((*q == ')' || *q == ']') && depth > 0) depth--;
    else if (depth == 0 && (*q == ',' || *q == ')')) {
      const char *e = st;
      while (e < q && *e != ':' && *e != '=') e++;
      while (st < e && isspace((unsigned char)*st)) st++;
      size_t len = (size_t)(e - st);
      while (len && isspace((unsigned char)st[len - 1])) len--;
      if (len && ident_start((unsigned char)*st) && !(len == 4 && !memcmp(st, "self", 4))) {
        char ref[32];
        snprintf(ref, sizeof ref, "in%d", g->nnames);
        add_name(g, st, len, ref);
      }
      st = q + 1;
      if (*q == ')') break;
    }
  }
}

static void graph_parse(graph *g, const char *text) {
  memset(g, 0, sizeof *g);
  int header_seen = 0;
  const char *s = text;
  while (*s) {
    const char *nl = strchr(s, '\n');
    size_t full = nl ? (size_t)(nl - s) : strlen(s);
    char *line = af_xmalloc(full + 1);
    memcpy(line, s, full);
    line[full] = 0;
    s += full + (nl ? 1 : 0);
    char *t = line;
    while (isspace((unsigned char)*t)) t++;
    size_t len = statement_len(t);
    while (len && isspace((unsigned char)t[len - 1])) len--;
    t[len] = 0;
    if (!len || *t == '#') {
      free(line);
      continue;
    }
    if (!header_seen && (!strncmp(t, "def ", 4) || !strncmp(t, "graph(", 6))) {
      header_names(g, t);
      header_seen = 1;
      free(line);
      continue;
    }
    g->l = af_xrealloc(g->l, (size_t)(g->n + 1) * sizeof *g->l);
    gline *gl = &g->l[g->n++];
    long eq = assign_at(t, len);
    const char *rhs = eq >= 0 ? t + eq + 1 : t;
    while (isspace((unsigned char)*rhs)) rhs++;
    gl->rhs = af_xstrdup(rhs);
    gl->lhs = NULL;
    graphdiff_line_op(gl->rhs, gl->op, sizeof gl->op);
    if (eq >= 0) {
      t[eq] = 0;
      gl->lhs = af_xstrdup(t);
      /* each defined name: before its type annotation, comma-separated */
      for (char *part = gl->lhs; part && *part;) {
        char *comma = strchr(part, ',');
        size_t plen = comma ? (size_t)(comma - part) : strlen(part);
        char *colon = memchr(part, ':', plen);
        if (colon && colon[1] != ':') plen = (size_t)(colon - part);
        char ref[32];
        snprintf(ref, sizeof ref, "#%d", g->n - 1);
        add_name(g, part, plen, ref);
        part = comma ? comma + 1 : NULL;
      }
    }
    free(line);
  }
}

static void graph_free(graph *g) {
  for (int i = 0; i < g->n; i++) free(g->l[i].lhs), free(g->l[i].rhs);
  for (int i = 0; i < g->nnames; i++) free(g->names[i]), free(g->defref[i]);
  free(g->l);
  free(g->names);
  free(g->defref);
}

/* A line's text at a level: 1 references blanked, 2 references spelled as their place (the
 * line that made the value, or the input; level 2 runs only where level 1 matched every line, so
 * the places of the two graphs correspond). */
static char *canon(const graph *g, const gline *gl, int level) {
  af_buf b = {0};
  const char *s = gl->rhs;
  while (*s) {
    if (ident_start((unsigned char)*s) && (s == gl->rhs || !ident_char((unsigned char)s[-1]))) {
      const char *e = s + 1;
      while (ident_char((unsigned char)*e)) e++;
      const char *ref = defref_of(g, s, (size_t)(e - s));
      if (ref) af_buf_puts(&b, level == 1 ? "_" : ref);
      else af_buf_printf(&b, "%.*s", (int)(e - s), s);
      s = e;
    } else {
      af_buf_printf(&b, "%c", *s);
      s++;
    }
  }
  return af_buf_take(&b);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Marks in ua/ub (1 = unmatched) the lines of a and b outside a longest common subsequence. */
static void align(char **a, int na, char **b, int nb, char *ua, char *ub) {
  memset(ua, 1, (size_t)na);
  memset(ub, 1, (size_t)nb);
  if (na > ALIGN_MAX || nb > ALIGN_MAX) { /* too long to align: a multiset of lines */
    char **sb = af_xmalloc((size_t)(nb ? nb : 1) * sizeof *sb);
    for (int j = 0; j < nb; j++) sb[j] = b[j];
    for (int i = 0; i < na; i++)
      for (int j = 0; j < nb; j++)
        if (sb[j] && !strcmp(a[i], sb[j])) {
          ua[i] = 0, ub[j] = 0, sb[j] = NULL;
          break;
        }
    free(sb);
    return;
  }
  int *dp = af_xcalloc((size_t)(na + 1) * (size_t)(nb + 1), sizeof *dp);
#define DP(i, j) dp[(size_t)(i) * (size_t)(nb + 1) + (size_t)(j)]
  for (int i = na - 1; i >= 0; i--)
    for (int j = nb - 1; j >= 0; j--)
      DP(i, j) = !strcmp(a[i], b[j]) ? DP(i + 1, j + 1) + 1 : (DP(i + 1, j) > DP(i, j + 1) ? DP(i + 1, j) : DP(i, j + 1));
  for (int i = 0, j = 0; i < na && j < nb;) {
    if (!strcmp(a[i], b[j])) ua[i++] = 0, ub[j++] = 0;
    else if (DP(i + 1, j) >= DP(i, j + 1)) i++;
    else j++;
  }
#undef DP
  free(dp);
}

/* The locus at one level: the sorted distinct ops of the unmatched lines, or NULL; *far set when
 * fewer than half of the lines match (then NULL). */
static char *locus_at(const graph *ga, const graph *gb, int level, int *far) {
  char **a = af_xmalloc((size_t)(ga->n ? ga->n : 1) * sizeof *a), **b = af_xmalloc((size_t)(gb->n ? gb->n : 1) * sizeof *b);
  for (int i = 0; i < ga->n; i++) a[i] = canon(ga, &ga->l[i], level);
  for (int j = 0; j < gb->n; j++) b[j] = canon(gb, &gb->l[j], level);
  char *ua = af_xmalloc((size_t)ga->n + 1), *ub = af_xmalloc((size_t)gb->n + 1);
  align(a, ga->n, b, gb->n, ua, ub);
  const char **ops = af_xmalloc((size_t)(ga->n + gb->n + 1) * sizeof *ops);
  int nops = 0, unmatched = 0;
  for (int i = 0; i < ga->n; i++) unmatched += ua[i];
  for (int j = 0; j < gb->n; j++) unmatched += ub[j];
  /* two lowerings of one program, not one lowering edited: no locus (graphdiff.h) */
  *far = 2 * unmatched > ga->n + gb->n;
  for (int i = 0; !*far && i < ga->n; i++)
    if (ua[i] && ga->l[i].op[0]) ops[nops++] = ga->l[i].op;
  for (int j = 0; !*far && j < gb->n; j++)
    if (ub[j] && gb->l[j].op[0]) ops[nops++] = gb->l[j].op;
  qsort(ops, (size_t)nops, sizeof *ops, cmp_str);
  af_buf out = {0};
  for (int i = 0; i < nops; i++)
    if (i == 0 || strcmp(ops[i], ops[i - 1])) af_buf_printf(&out, "%s%s", out.len ? " " : "", ops[i]);
  for (int i = 0; i < ga->n; i++) free(a[i]);
  for (int j = 0; j < gb->n; j++) free(b[j]);
  free(a), free(b), free(ua), free(ub), free(ops);
  return out.len ? af_buf_take(&out) : (af_buf_free(&out), NULL);
}

char *graphdiff_locus(const char *base_graph, const char *graph_text) {
  if (!base_graph || !graph_text || !*base_graph || !*graph_text) return NULL;
  graph ga, gb;
  graph_parse(&ga, base_graph);
  graph_parse(&gb, graph_text);
  int far = 0;
  char *r = locus_at(&ga, &gb, 1, &far);
  if (!r && !far) r = locus_at(&ga, &gb, 2, &far);
  graph_free(&ga);
  graph_free(&gb);
  return r;
}
