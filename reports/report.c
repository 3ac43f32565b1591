/* report.c - see report.h */
#include "report.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/confirm.h"
#include "../fuzz/float64.h"
#include "../fuzz/known.h"
#include "../fuzz/refusals.h"
#include "../harness/codec.h"
#include "../oracle/oracle.h"
#include "../oracle/signature.h"

static int by_count(const void *a, const void *b) {
  const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
  double cx = cJSON_GetNumberValue(cJSON_GetObjectItem(x, "count")), cy = cJSON_GetNumberValue(cJSON_GetObjectItem(y, "count"));
  if (cx != cy) return cx < cy ? 1 : -1;
  return strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(x, "signature")), cJSON_GetStringValue(cJSON_GetObjectItem(y, "signature")));
}

/* Loads every finding.json under dir/findings into an array (sorted by count, then id). */
static cJSON *load_findings(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/findings", dir);
  cJSON *arr = cJSON_CreateArray();
  DIR *d = opendir(path);
  struct dirent *e;
  int n = 0;
  cJSON **items = NULL;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char f[4600];
    snprintf(f, sizeof f, "%s/%s/finding.json", path, e->d_name);
    char *text = codec_slurp(f, NULL, NULL);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!j || !cJSON_GetStringValue(cJSON_GetObjectItem(j, "signature"))) {
      cJSON_Delete(j);
      continue;
    }
    cJSON_DeleteItemFromObject(j, "options");
    cJSON_DeleteItemFromObject(j, "counted_upto");
    items = af_xrealloc(items, sizeof(cJSON *) * (size_t)(n + 1));
    items[n++] = j;
  }
  if (d) closedir(d);
  if (n) qsort(items, (size_t)n, sizeof(cJSON *), by_count);
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(arr, items[i]);
  free(items);
  return arr;
}

static void md_cell(af_buf *b, const char *s, size_t max) {
  size_t n = 0;
  for (; s && *s && *s != '\n' && n < max; s++, n++) {
    if (*s == '|') af_buf_puts(b, "\\|");
    else if (*s == '`') af_buf_puts(b, "'");
    else af_buf_printf(b, "%c", *s);
  }
  if (s && *s && *s != '\n') af_buf_puts(b, "…");
}

const char *report_rate(double r, char buf[32]) {
  snprintf(buf, 32, r < 1 ? "%.2f" : r < 10 ? "%.1f" : "%.0f", r);
  return buf;
}

/* DIR/classes.json's classes, new (an empty array when there is none), new ones (not in the
 * baseline) first, known upstream ones (fuzz/known.h) after those, then by count; harness
 * artifacts (fuzz/confirm.h) after all the others. */
static int by_class_order(const void *a, const void *b) {
  const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
  int ax = confirm_is_artifact(x), ay = confirm_is_artifact(y); /* harness artifacts last, apart */
  if (ax != ay) return ax - ay;
  int lx = refusals_class_is_limit(x), ly = refusals_class_is_limit(y); /* then what the converter refuses */
  if (lx != ly) return lx - ly;
  int bx = cJSON_IsTrue(cJSON_GetObjectItem(x, "in_baseline")), by = cJSON_IsTrue(cJSON_GetObjectItem(y, "in_baseline"));
  if (bx != by) return bx - by;
  int kx = known_is_known(x), ky = known_is_known(y); /* already on a public tracker: after the new ones */
  if (kx != ky) return kx - ky;
  double cx = cJSON_GetNumberValue(cJSON_GetObjectItem(x, "count")), cy = cJSON_GetNumberValue(cJSON_GetObjectItem(y, "count"));
  if (cx != cy) return cx < cy ? 1 : -1;
  return strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(x, "id")), cJSON_GetStringValue(cJSON_GetObjectItem(y, "id")));
}

static cJSON *load_classes(const char *dir, cJSON **deferred) {
  char path[4096];
  snprintf(path, sizeof path, "%s/classes.json", dir);
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *idx = text ? cJSON_Parse(text) : NULL;
  free(text);
  cJSON *arr = cJSON_CreateArray();
  *deferred = cJSON_CreateObject();
  cJSON *cls = idx ? cJSON_GetObjectItem(idx, "classes") : NULL;
  int n = cJSON_GetArraySize(cls);
  cJSON **items = af_xcalloc((size_t)n + 1, sizeof(cJSON *));
  for (int i = 0; i < n; i++) items[i] = cJSON_Duplicate(cJSON_GetArrayItem(cls, i), 1);
  if (n) qsort(items, (size_t)n, sizeof(cJSON *), by_class_order);
  for (int i = 0; i < n; i++) {
    cJSON_DeleteItemFromObject(items[i], "counted_upto");
    cJSON_AddItemToArray(arr, items[i]);
  }
  free(items);
  /* deferred programs whose quick key no class has */
  cJSON *d = idx ? cJSON_GetObjectItem(idx, "deferred") : NULL, *e;
  for (e = d ? d->child : NULL; e; e = e->next) {
    int classified = 0;
    cJSON *c;
    cJSON_ArrayForEach(c, arr) {
      cJSON *q;
      cJSON_ArrayForEach(q, cJSON_GetObjectItem(c, "quick_keys")) classified |= cJSON_IsString(q) && !strcmp(q->valuestring, e->string);
    }
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "flaky")) { /* its quick key had its representative */
      cJSON *q;
      cJSON_ArrayForEach(q, cJSON_GetObjectItem(c, "quick_keys")) classified |= cJSON_IsString(q) && !strcmp(q->valuestring, e->string);
    }
    if (!classified) cJSON_AddItemToObject(*deferred, e->string, cJSON_Duplicate(e, 1));
  }
  cJSON_Delete(idx);
  return arr;
}

/* DIR/classes.json's list `name` of findings in no class ("flaky", "harness": classes.h): new
 * array, empty when none. */
static cJSON *load_apart(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/classes.json", dir);
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *idx = text ? cJSON_Parse(text) : NULL;
  free(text);
  cJSON *fl = idx ? cJSON_DetachItemFromObject(idx, name) : NULL;
  cJSON_Delete(idx);
  return cJSON_IsArray(fl) ? fl : (cJSON_Delete(fl), cJSON_CreateArray());
}

/* "same: a, b; passes: c; other failure: d; eager rejects 3" for one generalization row. */
static void gen_row(af_buf *b, const cJSON *row) {
  static const char *const keys[] = {"same", "pass", "other"};
  static const char *const says[] = {"fails the same way", "passes", "fails otherwise"};
  int first = 1;
  for (int k = 0; k < 3; k++) {
    const cJSON *a = cJSON_GetObjectItem(row, keys[k]), *e;
    if (!cJSON_GetArraySize(a)) continue;
    af_buf_printf(b, "%s%s: ", first ? "" : "; ", says[k]);
    int n = 0;
    cJSON_ArrayForEach(e, a) {
      if (n < 12) af_buf_printf(b, "%s`%s`", n ? ", " : "", e->valuestring);
      n++;
    }
    if (n > 12) af_buf_printf(b, " and %d more", n - 12);
    first = 0;
  }
  double inv = cJSON_GetNumberValue(cJSON_GetObjectItem(row, "invalid"));
  double not_run = cJSON_GetNumberValue(cJSON_GetObjectItem(row, "not_run"));
  if (inv > 0) af_buf_printf(b, "%seager rejects %.0f", first ? "" : "; ", inv);
  if (not_run > 0) af_buf_printf(b, "%snot run (out of time) %.0f", first && !(inv > 0) ? "" : "; ", not_run);
  else if (first && !(inv > 0)) af_buf_puts(b, "no variant");
}

/* A gap's short name: "bug-007" of "bug-007-torchscript-setitem-mod-is-fmod". */
static int gap_short_len(const char *id) {
  const char *d = strchr(id, '-');
  d = d ? strchr(d + 1, '-') : NULL;
  return d ? (int)(d - id) : (int)strlen(id);
}

void report_known_label(af_buf *b, const cJSON *c) {
  const char *known = cJSON_GetStringValue(cJSON_GetObjectItem(c, "known"));
  const char *src = cJSON_GetStringValue(cJSON_GetObjectItem(c, "known_source"));
  const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(c, "known_case"));
  if (!known) return;
  if (src && !strcmp(src, "finding") && id) af_buf_printf(b, "known: aliasfuzz finding docs/findings/%s", id);
  else if (src && !strcmp(src, "known-gap") && id) af_buf_printf(b, "known gap %.*s", gap_short_len(id), id);
  else af_buf_printf(b, "known: %s", known);
}

report_group report_class_group(const cJSON *c) {
  if (confirm_is_artifact(c)) return REPORT_ARTIFACT;
  if (refusals_class_is_limit(c)) return REPORT_LIMIT;
  return cJSON_IsTrue(cJSON_GetObjectItem(c, "in_baseline")) || known_is_known(c) ? REPORT_KNOWN : REPORT_NEW;
}

const char *const report_group_title[REPORT_GROUPS] = {"New classes", "Known upstream, to aliasfuzz, or in the baseline", "What this converter refuses",
                                                       "Harness artifacts (not seen from the converter's public API)"};

/* Programs counted in the classes of group g. */
static double group_programs(const cJSON *classes, report_group g) {
  double n = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, classes) if (report_class_group(c) == g) n += cJSON_GetNumberValue(cJSON_GetObjectItem(c, "count"));
  return n;
}

const char *report_message_line(const char *msg, size_t *len) {
  static const char ts[] = "The following operation failed in the TorchScript interpreter";
  const char *l = sig_key_line(msg);
  if (!strncmp(l, ts, sizeof ts - 1)) {
    /* no "...Error: " line: the message is the last line that is not part of the traceback
     * ("Traceback of TorchScript", "File ...", the program's lines, "~~~~ <--- HERE") */
    const char *best = NULL, *next;
    for (const char *line = strchr(l, '\n'); line && *++line; line = next) {
      next = strchr(line, '\n');
      if (*line == ' ' || *line == '\t' || *line == '\n' || *line == '~' || !strncmp(line, "Traceback", 9) || !strncmp(line, "def ", 4))
        continue;
      best = line;
      if (!next) break;
    }
    if (best) l = best;
  }
  const char *e = strchr(l, '\n');
  *len = e ? (size_t)(e - l) : strlen(l);
  return l;
}

/* `s` as a Markdown code span (at most max characters of its first line; '|' escaped, '`' as '). */
static void md_code(af_buf *b, const char *s, size_t max) {
  af_buf_puts(b, "`");
  md_cell(b, s, max);
  af_buf_puts(b, "`");
}

/* msg's message line (report_message_line), at most max characters, as table cell text. */
static void md_message_cell(af_buf *b, const char *msg, size_t max) {
  size_t n;
  const char *l = report_message_line(msg, &n);
  char *t = af_xstrdup(l);
  t[n] = 0;
  md_cell(b, t, max);
  free(t);
}

/* msg's message line (report_message_line) as a code span of at most max characters. */
static void md_message(af_buf *b, const char *msg, size_t max) {
  size_t n;
  const char *l = report_message_line(msg, &n);
  md_code(b, l, n < max ? n : max);
  if (n > max) af_buf_puts(b, "…");
}

/* What a class keys on for a reader: its error key, the declared limit its converter warned of
 * (classes.h CLASSES_WARNED: the key's last part), its pattern, or for a class keyed on a mechanism
 * its write patterns share, that: float64 (float64.h) "needs float64", the twin-dtype rule
 * (classes.h) "in-place op given its out-of-place twin's dtype". Borrowed. */
static const char *class_keys_on(const cJSON *c) {
  const char *ek = cJSON_GetStringValue(cJSON_GetObjectItem(c, "error_key"));
  const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(c, "key")), *bar = k ? strrchr(k, '|') : NULL;
  if (ek) return ek;
  if (bar && cJSON_GetStringValue(cJSON_GetObjectItem(c, "warned"))) return bar + 1;
  if (bar && !strcmp(bar + 1, F64_KEY)) return F64_KEY;
  if (bar && !strcmp(bar + 1, CLASSES_TWIN_DTYPE_KEY)) return CLASSES_TWIN_DTYPE_KEY;
  return cJSON_GetStringValue(cJSON_GetObjectItem(c, "pattern"));
}

void report_class_title(af_buf *b, const cJSON *c) {
  af_buf_printf(b, "%s ", cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict")));
  md_code(b, class_keys_on(c), 300);
  const cJSON *vs = cJSON_GetObjectItem(c, "verdicts"), *v;
  if (cJSON_GetArraySize(vs) > 1) {
    af_buf_puts(b, " (seen as");
    cJSON_ArrayForEach(v, vs) af_buf_printf(b, " %s", v->valuestring);
    af_buf_puts(b, ")");
  }
  if (cJSON_IsTrue(cJSON_GetObjectItem(c, "in_baseline"))) af_buf_puts(b, " (also in the baseline)");
  if (known_is_known(c)) {
    af_buf_puts(b, " (");
    report_known_label(b, c);
    af_buf_puts(b, ")");
  }
}

/* "- should give: ...\n- gave: ...\n" from a class's (or finding's) verdict and detail, the
 * oracle's detail lines (oracle.c) taken apart: "<what>: element K is G, eager W", "<what>: shape
 * [..], eager [..]", "<what>: eager mutated it; the converter left it unchanged"; an error's
 * message line. */
static void should_gave(af_buf *b, const char *verdict, const char *detail) {
  oracle_verdict v = V_PASS;
  if (!verdict || oracle_verdict_parse(verdict, &v)) v = V_PASS;
  if (!detail) detail = "";
  const char *colon = strstr(detail, ": "), *eager = strstr(detail, ", eager "), *conv = strstr(detail, "; the converter ");
  int wrong = v == V_VALUE_MISMATCH || v == V_SHAPE_MISMATCH || v == V_DTYPE_MISMATCH || v == V_INPUT_MUTATION_LOST;
  if (wrong && colon && eager && !strchr(detail, '\n')) { /* "<what>: <kind> <got>, eager <want>" */
    const char *rest = colon + 2, *is = strstr(rest, " is ");
    const char *kind_end = is && is < eager ? is : strchr(rest, ' ');
    if (!kind_end || kind_end > eager) kind_end = rest;
    const char *got = kind_end == rest ? rest : kind_end + (kind_end == is ? 4 : 1);
    if (got > eager) got = eager;
    for (int k = 0; k < 2; k++) { /* "element 3 is `4`", "shape `[2, 3]`" */
      af_buf_printf(b, "- %s: `%.*s`: %.*s%s", k ? "gave" : "should give", (int)(colon - detail), detail, (int)(kind_end - rest), rest,
                    kind_end == is ? " is " : " ");
      if (k) af_buf_printf(b, "`%.*s`\n", (int)(eager - got), got);
      else af_buf_printf(b, "`%s` (as eager PyTorch gives)\n", eager + 8);
    }
  } else if (wrong && colon && conv) { /* "<what>: eager mutated it; the converter left it unchanged" */
    af_buf_printf(b, "- should give: `%.*s`: %.*s\n- gave: `%.*s`: %s\n", (int)(colon - detail), detail, (int)(conv - colon - 2),
                  colon + 2, (int)(colon - detail), detail, conv + 2);
  } else if (v == V_RESIDUAL_MUTATION) {
    af_buf_puts(b, "- should give: a graph without in-place ops\n- gave: ");
    md_code(b, detail, 200);
    af_buf_puts(b, "\n");
  } else if (v == V_ERROR || v == V_CRASH || v == V_TIMEOUT || v == V_UNSUPPORTED) {
    af_buf_puts(b, "- should give: what eager PyTorch gives (eager runs the program)\n- gave: ");
    md_message(b, detail, 400);
    af_buf_puts(b, "\n");
  } else {
    af_buf_puts(b, "- should give: what eager PyTorch gives\n- gave: ");
    md_message(b, detail, 300);
    af_buf_puts(b, "\n");
  }
}

void report_finding_facts(af_buf *b, const cJSON *f) {
  should_gave(b, cJSON_GetStringValue(cJSON_GetObjectItem(f, "verdict")), cJSON_GetStringValue(cJSON_GetObjectItem(f, "detail")));
  af_buf_printf(b, "- %.0f program(s), smallest %.0f statement(s)\n", cJSON_GetNumberValue(cJSON_GetObjectItem(f, "count")),
                cJSON_GetNumberValue(cJSON_GetObjectItem(f, "statements")));
}

void report_class_facts(af_buf *b, const cJSON *c) {
  const char *known = cJSON_GetStringValue(cJSON_GetObjectItem(c, "known"));
  should_gave(b, cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict")), cJSON_GetStringValue(cJSON_GetObjectItem(c, "detail")));
  const char *limit = cJSON_GetStringValue(cJSON_GetObjectItem(c, "limit"));
  if (limit) af_buf_printf(b, "- refused by design: %s (a limit of the converter, not a bug)\n", limit);
  const cJSON *errs = cJSON_GetObjectItem(c, "errors"), *e;
  if (cJSON_GetArraySize(errs) > 1) {
    af_buf_printf(b, "- surfaced as %d different errors:", cJSON_GetArraySize(errs));
    cJSON_ArrayForEach(e, errs) {
      af_buf_puts(b, " ");
      md_code(b, e->valuestring, 100);
      af_buf_puts(b, ";");
    }
    af_buf_puts(b, "\n");
  }
  double reruns = cJSON_GetNumberValue(cJSON_GetObjectItem(c, "reruns")), rep = cJSON_GetNumberValue(cJSON_GetObjectItem(c, "reproduced"));
  if (reruns > 0) af_buf_printf(b, "- reproduces: %.0f of %.0f reruns%s\n", rep, reruns, rep < reruns ? " (**flaky**)" : "");
  const char *user = cJSON_GetStringValue(cJSON_GetObjectItem(c, "user_path_line"));
  if (user) af_buf_printf(b, "- user path: %s\n", user);
  if (known) {
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItem(c, "known_url"));
    const char *state = cJSON_GetStringValue(cJSON_GetObjectItem(c, "known_state"));
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(c, "known_case"));
    const char *up = cJSON_GetStringValue(cJSON_GetObjectItem(c, "known_upstream"));
    if (known_is_upstream(c)) {
      af_buf_puts(b, "- known: ");
      if (url) af_buf_printf(b, "[%s](%s)", known, url);
      else af_buf_puts(b, known);
      af_buf_printf(b, " (%s; fails the same way as corpus/known-upstream's `%s`)\n", state ? state : "?", id ? id : "?");
    } else { /* ours (known.h): a kept finding or a documented gap, filed upstream or not */
      af_buf_puts(b, "- ");
      report_known_label(b, c);
      af_buf_printf(b, " (fails the same way as `%s%s`): known to aliasfuzz, ", known,
                    strstr(known, "docs/findings/") == known ? "/repro.json" : ".json");
      if (up) {
        af_buf_puts(b, "upstream: ");
        if (url) af_buf_printf(b, "[%s](%s)", up, url);
        else af_buf_puts(b, up);
        af_buf_printf(b, "%s%s%s\n", state ? " (" : "", state ? state : "", state ? ")" : "");
      } else {
        af_buf_puts(b, "**not filed upstream** (its metadata names no public report)\n");
      }
    }
  }
  const cJSON *ab = cJSON_GetObjectItem(c, "absorbed");
  const cJSON *pats = cJSON_GetObjectItem(c, "patterns");
  if (cJSON_GetArraySize(pats) > 1) { /* a class keyed on a mechanism (float64.h, the twin-dtype rule): its programs' write patterns */
    af_buf_puts(b, "- also seen as:");
    int k = 0;
    cJSON_ArrayForEach(e, pats) {
      af_buf_puts(b, k++ ? ", " : " ");
      md_code(b, e->valuestring, 100);
    }
    const char *twin = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "twin_dtype"), "statement"));
    if (twin)
      af_buf_printf(b, " (write patterns whose programs each get an in-place op's out-of-place dtype, as `%s`: one class)\n", twin);
    else
      af_buf_puts(b, " (write patterns whose programs all need float64: one class, keyed on the dtype)\n");
  }
  if (cJSON_GetArraySize(ab)) { /* classes folded into this one (classes.h): their findings' READMEs name those ids */
    af_buf_puts(b, "- also seen as:");
    cJSON_ArrayForEach(e, ab) af_buf_printf(b, " `%s`", e->valuestring);
    af_buf_puts(b, " (classes a later finding showed to be this bug)\n");
  }
  const char *gc = cJSON_GetStringValue(cJSON_GetObjectItem(c, "graph_change"));
  if (gc) /* a regression's key: what its graph changed against the baseline's (classes.h) */
    af_buf_printf(b, "- graph change: against the baseline, the converted graph of each program of this class differs in the "
                     "lines of `%s` (the finding folders' converted.txt and converted-baseline.txt)\n", gc);
  const char *trig = cJSON_GetStringValue(cJSON_GetObjectItem(c, "trigger"));
  if (trig) af_buf_printf(b, "- trigger: %s\n", trig);
  const char *other = cJSON_GetStringValue(cJSON_GetObjectItem(c, "other_stack"));
  if (other) af_buf_printf(b, "- other stack: %s\n", other);
  const cJSON *base = cJSON_GetObjectItem(c, "baseline");
  if (base) {
    const char *bv = cJSON_GetStringValue(cJSON_GetObjectItem(base, "verdict"));
    const char *bm = cJSON_GetStringValue(cJSON_GetObjectItem(base, "matched"));
    af_buf_printf(b, "- baseline `%s`: %s", cJSON_GetStringValue(cJSON_GetObjectItem(base, "name")),
                  cJSON_IsTrue(cJSON_GetObjectItem(c, "in_baseline")) ? "has it too" : "**does not have it**");
    if (bm) af_buf_printf(b, " (its class `%s`)", bm);
    else if (bv) af_buf_printf(b, " (the program gives %s there)", bv);
    af_buf_puts(b, "\n");
  }
  const cJSON *gen = cJSON_GetObjectItem(c, "generalization"), *row;
  if (cJSON_GetArraySize(gen)) {
    af_buf_puts(b, "- generalization (each statement's op replaced by the others of its family, the inputs' dtype by the others):\n");
    cJSON_ArrayForEach(row, gen) {
      const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(row, "op"));
      if (op)
        af_buf_printf(b, "  - statement %.0f `%s` (%s%s): ", cJSON_GetNumberValue(cJSON_GetObjectItem(row, "statement")), op,
                      cJSON_GetStringValue(cJSON_GetObjectItem(row, "family")),
                      cJSON_IsTrue(cJSON_GetObjectItem(row, "generalized")) ? ", generalized" : "");
      else if (cJSON_GetStringValue(cJSON_GetObjectItem(row, "dtype")))
        af_buf_printf(b, "  - dtype %s: ", cJSON_GetStringValue(cJSON_GetObjectItem(row, "dtype")));
      else continue; /* the without-writes row: in the class key already */
      gen_row(b, row);
      af_buf_puts(b, "\n");
    }
  }
}

static void col_verdict(af_buf *b, const cJSON *c) { af_buf_puts(b, cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"))); }
static void col_key(af_buf *b, const cJSON *c) {
  md_code(b, class_keys_on(c), 100);
  const char *gc = cJSON_GetStringValue(cJSON_GetObjectItem(c, "graph_change"));
  if (gc) { /* a regression's key: what its graph changed against the baseline's (classes.h) */
    af_buf_puts(b, " (graph change: ");
    md_cell(b, gc, 60);
    af_buf_puts(b, ")");
  }
  if (known_is_known(c)) {
    af_buf_puts(b, " (");
    report_known_label(b, c);
    af_buf_puts(b, ")");
  }
}
static void col_count(af_buf *b, const cJSON *c) { af_buf_printf(b, "%.0f", cJSON_GetNumberValue(cJSON_GetObjectItem(c, "count"))); }
static void col_findings(af_buf *b, const cJSON *c) { af_buf_printf(b, "%d", cJSON_GetArraySize(cJSON_GetObjectItem(c, "findings"))); }
static void col_statements(af_buf *b, const cJSON *c) {
  af_buf_printf(b, "%.0f", cJSON_GetNumberValue(cJSON_GetObjectItem(c, "statements")));
}
static void col_reproduces(af_buf *b, const cJSON *c) {
  double reruns = cJSON_GetNumberValue(cJSON_GetObjectItem(c, "reruns"));
  if (reruns > 0) af_buf_printf(b, "%.0f/%.0f", cJSON_GetNumberValue(cJSON_GetObjectItem(c, "reproduced")), reruns);
  else af_buf_puts(b, "-");
}
static void col_baseline(af_buf *b, const cJSON *c) {
  const cJSON *inb = cJSON_GetObjectItem(c, "in_baseline");
  af_buf_puts(b, !inb ? "-" : cJSON_IsTrue(inb) ? "also" : "**new**");
}
static void col_other(af_buf *b, const cJSON *c) {
  const char *os = cJSON_GetStringValue(cJSON_GetObjectItem(c, "other_stack"));
  md_cell(b, os ? os : "-", 48);
}

const report_column report_class_columns[] = {
    {"verdict", 0, col_verdict},       {"pattern or error", 0, col_key},     {"programs", 1, col_count},
    {"findings", 1, col_findings},     {"statements", 1, col_statements},    {"reproduces", 0, col_reproduces},
    {"baseline", 0, col_baseline},     {"other stack", 0, col_other},        {NULL, 0, NULL},
};

static void class_section(af_buf *b, const char *dir, int n, const cJSON *c) {
  const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(c, "id"));
  const char *smallest = cJSON_GetStringValue(cJSON_GetObjectItem(c, "smallest"));
  af_buf_printf(b, "### %d. ", n);
  report_class_title(b, c);
  af_buf_printf(b, "\n\n`%s`: %.0f program(s), %d finding(s), smallest %.0f statement(s)", id,
                cJSON_GetNumberValue(cJSON_GetObjectItem(c, "count")), cJSON_GetArraySize(cJSON_GetObjectItem(c, "findings")),
                cJSON_GetNumberValue(cJSON_GetObjectItem(c, "statements")));
  cJSON *first = cJSON_GetObjectItem(c, "first");
  if (first)
    af_buf_printf(b, ", first seen at iteration %.0f (program seed %s)", cJSON_GetNumberValue(cJSON_GetObjectItem(first, "iteration")),
                  cJSON_GetStringValue(cJSON_GetObjectItem(first, "seed")) ? cJSON_GetStringValue(cJSON_GetObjectItem(first, "seed")) : "?");
  af_buf_puts(b, ".\n\n");
  if (smallest) {
    char path[4600];
    snprintf(path, sizeof path, "%s/findings/%s/program.py", dir, smallest);
    char *src = codec_slurp(path, NULL, NULL);
    if (src) {
      af_buf_printf(b, "```python\n%s```\n\n", src);
      free(src);
    }
    /* the same as an issue-ready snippet of stock API (harness/emit_snippet.h), folded */
    snprintf(path, sizeof path, "%s/findings/%s/snippet.py", dir, smallest);
    if ((src = codec_slurp(path, NULL, NULL))) {
      af_buf_printf(b, "<details><summary>%s</summary>\n\n```python\n%s```\n\n</details>\n\n", REPORT_SNIPPET_SUMMARY, src);
      free(src);
    }
  }
  report_class_facts(b, c);
  af_buf_puts(b, "- findings:");
  const cJSON *f;
  int k = 0;
  cJSON_ArrayForEach(f, cJSON_GetObjectItem(c, "findings")) {
    if (k < 20) af_buf_printf(b, " [%s](findings/%s/README.md)", f->valuestring, f->valuestring);
    k++;
  }
  if (k > 20) af_buf_printf(b, " and %d more", k - 20);
  af_buf_puts(b, "\n\n");
}

static void col_finding(af_buf *b, const cJSON *f) { md_code(b, cJSON_GetStringValue(cJSON_GetObjectItem(f, "finding")), 80); }
static void col_reproduced(af_buf *b, const cJSON *f) {
  af_buf_printf(b, "%.0f of %.0f", cJSON_GetNumberValue(cJSON_GetObjectItem(f, "reproduced")),
                cJSON_GetNumberValue(cJSON_GetObjectItem(f, "reruns")));
}
static void col_flaky_key(af_buf *b, const cJSON *f) {
  const char *pat = cJSON_GetStringValue(cJSON_GetObjectItem(f, "pattern"));
  const char *ek = cJSON_GetStringValue(cJSON_GetObjectItem(f, "error_key"));
  md_code(b, ek && *ek ? ek : pat ? pat : "", 100);
}
static void col_error(af_buf *b, const cJSON *f) { md_code(b, cJSON_GetStringValue(cJSON_GetObjectItem(f, "error_key")), 140); }

const report_column report_flaky_columns[] = {
    {"finding", 0, col_finding},       {"verdict", 0, col_verdict},          {"reproduced", 0, col_reproduced},
    {"statements", 1, col_statements}, {"error or pattern", 0, col_flaky_key}, {NULL, 0, NULL},
};
const report_column report_harness_columns[] = {{"finding", 0, col_finding}, {"error", 0, col_error}, {NULL, 0, NULL}};

const char report_flaky_intro[] =
    "These failed once but not on every rerun of their minimized program (the converter's answer depends on something "
    "besides the program: timing, memory, an earlier program). They are in no class.";
const char report_harness_intro[] =
    "The worker broke the protocol (a wrong number of outputs, an answer that is not one), or aliasfuzz cannot hand the "
    "program to this converter (a worker whose hello lacks module_state or layouts, a resize of an input), or eager "
    "PyTorch rejected a program aliasfuzz made (invalid-program: a generator bug, or aliasfuzz's statement limit): "
    "aliasfuzz's or the worker's faults and limits, not bugs of the converter.";

int report_count_group(const cJSON *classes, report_group g) {
  int n = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, classes) n += report_class_group(c) == g;
  return n;
}

void report_group_intro(af_buf *b, const cJSON *classes, report_group g, int heading) {
  if (g == REPORT_LIMIT) {
    if (heading)
      af_buf_printf(b, "%s (%d class(es), %.0f program(s))", report_group_title[g], report_count_group(classes, g), group_programs(classes, g));
    else
      af_buf_puts(b, "Its limits, not its bugs: programs it declines (converter-unsupported) and refusals it documents "
                     "(harness/converters/workers.def REFUSES, or its worker's hello), each class's `limit` naming which. "
                     "Not counted in the bug classes nor in the exit status; the campaign's generator down-weights a refused "
                     "construct it can (state.json `policy_epochs`).");
    return;
  }
  if (g != REPORT_ARTIFACT) {
    af_buf_puts(b, heading ? report_group_title[g]
                           : g == REPORT_NEW ? "Bugs of the converter that no baseline has and no public report names."
                                             : "Bugs the baseline has too, or that a case of corpus/known-upstream/ (a public report), "
                                               "a finding kept in docs/findings/ or a gap of corpus/known-gaps/ (known to aliasfuzz, "
                                               "filed upstream only where it says so) shows.");
    return;
  }
  const char *api = NULL; /* every class of a campaign has its converter's API */
  const cJSON *c;
  cJSON_ArrayForEach(c, classes) if (confirm_is_artifact(c) && !api) api = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "user_path"), "api"));
  if (heading) af_buf_printf(b, "Not seen from %s: harness artifacts", api ? api : "the converter's API");
  else
    af_buf_puts(b, "These fail in aliasfuzz's process but not through the public API, run as a user would (each class's "
                   "repro.py in a fresh process exits 0): not bugs of the converter, not counted.");
}

/* A Markdown table of the items of list, one column per cols entry; numbered: a "#" column first;
 * items whose class group is skip are left out (REPORT_GROUPS: none). */
static void md_table(af_buf *b, const report_column *cols, const cJSON *list, int numbered, report_group skip) {
  af_buf_puts(b, numbered ? "| # " : "");
  for (int k = 0; cols[k].header; k++) af_buf_printf(b, "| %s ", cols[k].header);
  af_buf_puts(b, numbered ? "|\n|---:" : "|\n");
  for (int k = 0; cols[k].header; k++) af_buf_puts(b, cols[k].numeric ? "|---:" : "|---");
  af_buf_puts(b, "|\n");
  int n = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, list) {
    if (skip != REPORT_GROUPS && report_class_group(c) >= skip) continue;
    if (numbered) af_buf_printf(b, "| %d ", ++n);
    for (int k = 0; cols[k].header; k++) {
      af_buf_puts(b, "| ");
      cols[k].cell(b, c);
      af_buf_puts(b, " ");
    }
    af_buf_puts(b, "|\n");
  }
  af_buf_puts(b, "\n");
}

static double num_of(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItem(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

void report_time_split(const cJSON *r, double out[REPORT_TIME_PARTS]) {
  const cJSON *opts = cJSON_GetObjectItem(r, "options");
  double jobs = num_of(opts, "jobs");
  if (!(jobs >= 1)) jobs = 1;
  double search_s = num_of(r, "seconds") - num_of(r, "finish_seconds") - num_of(r, "annotate_seconds");
  double search_reduce = num_of(r, "reduce_seconds") - num_of(r, "finish_reduce_seconds");
  double gen = num_of(r, "generalize_seconds"); /* during the search (state.json) */
  double base = num_of(r, "baseline_seconds");
  out[REPORT_T_CONVERTING] = search_s * jobs - search_reduce - base;
  out[REPORT_T_BASELINE] = base;
  out[REPORT_T_MINIMIZING] = search_reduce - gen;
  out[REPORT_T_GENERALIZING] = gen;
  out[REPORT_T_DEFERRED] = num_of(r, "finish_seconds");
  out[REPORT_T_ANNOTATING] = num_of(r, "annotate_seconds");
  out[REPORT_T_REDUCE_DEFERRED] = num_of(r, "reduce_deferred_seconds");
  for (int k = 0; k < REPORT_TIME_PARTS; k++)
    if (!(out[k] > 0)) out[k] = 0;
}

const char *const report_time_part[REPORT_TIME_PARTS] = {
    "generating, judging and converting programs",
    "judging failing programs on the baseline",
    "minimizing during the search",
    "generalizing during the search",
    "minimizing deferred programs after the search",
    "rerunning each class's program (baseline, switches, other stack, user path)",
    "later runs of aliasfuzz reduce --deferred",
};

void report_campaign_headline(af_buf *b, const char *dir, const cJSON *r) {
  const cJSON *opts = cJSON_GetObjectItem(r, "options"), *classes = cJSON_GetObjectItem(r, "classes");
  const cJSON *deferred = cJSON_GetObjectItem(r, "deferred");
  const char *conv = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "converter"));
  const cJSON *parts = cJSON_GetObjectItem(opts, "merged_parts"), *pt; /* aliasfuzz merge (fuzz/merge.h) */
  const char *shard = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "shard"));
  if (opts && parts) {
    af_buf_printf(b, "- aliasfuzz %s, converter %s %s, merged from %d campaign folder(s) by `aliasfuzz merge` (figures summed over "
                     "them, times in job-seconds):\n",
                  cJSON_GetStringValue(cJSON_GetObjectItem(opts, "aliasfuzz")), conv,
                  cJSON_GetStringValue(cJSON_GetObjectItem(opts, "converter_version")), cJSON_GetArraySize(parts));
    cJSON_ArrayForEach(pt, parts) {
      const char *ps = cJSON_GetStringValue(cJSON_GetObjectItem(pt, "shard"));
      af_buf_printf(b, "  - `%s`: seed %s%s%s, %.0f job(s), %.0f programs in %.1f s\n", cJSON_GetStringValue(cJSON_GetObjectItem(pt, "dir")),
                    cJSON_GetStringValue(cJSON_GetObjectItem(pt, "seed")), ps ? ", shard " : "", ps ? ps : "", num_of(pt, "jobs"),
                    num_of(pt, "programs"), num_of(pt, "seconds"));
    }
  } else if (opts) {
    af_buf_printf(b, "- aliasfuzz %s, converter %s %s, seed %.0f, %.0f job(s)%s%s\n", cJSON_GetStringValue(cJSON_GetObjectItem(opts, "aliasfuzz")),
                  conv, cJSON_GetStringValue(cJSON_GetObjectItem(opts, "converter_version")), num_of(opts, "seed"), num_of(opts, "jobs"),
                  shard ? ", shard " : "", shard ? shard : "");
  }
  if (opts) {
    const char *torch = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "torch"));
    const char *stack = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "stack"));
    if (torch) af_buf_printf(b, "- PyTorch %s, stack %s\n", torch, stack ? stack : "?");
  }
  char rate[32];
  double programs = num_of(r, "programs"), seconds = num_of(r, "seconds");
  af_buf_printf(b, "- %.0f programs in %.1f s (%s programs/s)\n", programs, seconds, report_rate(seconds > 0 ? programs / seconds : 0.0, rate));
  double jobs = num_of(opts, "jobs");
  if (!(jobs >= 1)) jobs = 1;
  /* The search phase and the phase after it are told apart: --reduce-share caps the first (each
   * job's share of its own time); the second minimizes deferred programs one at a time while the
   * other jobs are done. */
  double finish_s = num_of(r, "finish_seconds"), annotate_s = num_of(r, "annotate_seconds");
  double search_s = seconds - finish_s - annotate_s;
  double search_reduce = num_of(r, "reduce_seconds") - num_of(r, "finish_reduce_seconds");
  double share = num_of(opts, "reduce_share");
  if (search_s > 0) {
    af_buf_printf(b, "- minimizing and generalizing during the search: %.1f s of %.1f job-seconds (%.0f%%", search_reduce, search_s * jobs,
                  100.0 * search_reduce / (search_s * jobs));
    if (share > 0 && share < 1) af_buf_printf(b, "; --reduce-share caps it at %.0f%% of each job's time", 100.0 * share);
    af_buf_puts(b, ")\n");
  }
  if (finish_s > 0) {
    af_buf_printf(b, "- after the search: %.1f s minimizing %.0f deferred program(s) whose quick key no class had (one at a time)\n",
                  finish_s, num_of(r, "finished"));
    double all = search_s * jobs + finish_s;
    if (all > 0)
      af_buf_printf(b, "- minimizing in all: %.1f s of %.1f job-seconds (%.0f%%: the search's %.1f job-seconds and the %.1f s after it)\n",
                    search_reduce + finish_s, all, 100.0 * (search_reduce + finish_s) / all, search_s * jobs, finish_s);
  }
  if (annotate_s > 0.05) af_buf_printf(b, "- rerunning each class's program (baseline, switches, other stack): %.1f s\n", annotate_s);
  af_buf_puts(b, "- verdicts:");
  const cJSON *e;
  for (e = cJSON_GetObjectItem(r, "verdicts") ? cJSON_GetObjectItem(r, "verdicts")->child : NULL; e; e = e->next)
    af_buf_printf(b, " %s %.0f;", e->string, e->valuedouble);
  int ndef = 0;
  for (e = deferred ? deferred->child : NULL; e; e = e->next) ndef += (int)num_of(e, "count");
  int nart = report_count_group(classes, REPORT_ARTIFACT), nlim = report_count_group(classes, REPORT_LIMIT);
  af_buf_printf(b, "\n- **%d bug class(es)** from %d distinct finding(s)\n", cJSON_GetArraySize(classes) - nart - nlim,
                cJSON_GetArraySize(cJSON_GetObjectItem(r, "findings")));
  if (nlim) {
    double np = group_programs(classes, REPORT_LIMIT), all = num_of(r, "programs");
    af_buf_printf(b, "- %d class(es) of what the converter refuses by design, %.0f program(s) (%.1f%% of the programs): its "
                     "limits, listed apart under \"What this converter refuses\", not counted as bugs\n",
                  nlim, np, all > 0 ? 100.0 * np / all : 0.0);
  }
  if (nart)
    af_buf_printf(b, "- %d class(es) not seen from the public API the converter stands for (its repro.py in a fresh "
                     "process): harness artifacts, listed apart at the end and not counted\n",
                  nart);
  const char *base = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "baseline"));
  if (base) {
    int nb = 0, nn = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, classes) {
      const cJSON *inb = cJSON_GetObjectItem(c, "in_baseline");
      nb += cJSON_IsTrue(inb);
      nn += cJSON_IsFalse(inb);
    }
    af_buf_printf(b, "- baseline `%s`: **%d new** class(es), %d also in the baseline (listed after the new ones)\n", base, nn, nb);
  }
  int nknown = 0, nours = 0, nunfiled = 0;
  const cJSON *kc;
  cJSON_ArrayForEach(kc, classes) {
    nknown += known_is_upstream(kc);
    nours += known_is_known(kc) && !known_is_upstream(kc);
    nunfiled += known_is_known(kc) && !known_is_upstream(kc) && !cJSON_GetObjectItem(kc, "known_upstream");
  }
  if (nknown)
    af_buf_printf(b, "- %d class(es) already known upstream (a case of corpus/known-upstream/ fails the same way; "
                     "listed after the new ones)\n",
                  nknown);
  if (nours)
    af_buf_printf(b, "- %d class(es) already known to aliasfuzz (a finding kept in docs/findings/ or a gap of corpus/known-gaps/ "
                     "fails the same way; listed after the new ones), %d of them not filed upstream\n",
                  nours, nunfiled);
  const char *other = cJSON_GetStringValue(cJSON_GetObjectItem(opts, "other_stack"));
  if (other) af_buf_printf(b, "- other stack: each class's program rerun with `%s run repro.json --converter %s --json`\n", other, conv);
  int nh = cJSON_GetArraySize(cJSON_GetObjectItem(r, "harness")), nf = cJSON_GetArraySize(cJSON_GetObjectItem(r, "flaky"));
  if (nh)
    af_buf_printf(b, "- %d harness finding(s): the worker broke the protocol, aliasfuzz cannot hand the program to "
                     "this converter, or eager rejected a program aliasfuzz made (not the converter's bugs; listed under "
                     "\"Harness findings\", not counted)\n",
                  nh);
  if (nf)
    af_buf_printf(b, "- %d flaky finding(s): did not reproduce on every rerun of their minimized program, so they found "
                     "no class (listed under \"Flaky findings\")\n",
                  nf);
  if (ndef)
    af_buf_printf(b, "- **%d failing program(s) under %d quick key(s) are in no class yet**: not minimized (the "
                     "minimization budget and its floor ran out; kept under %s/deferred/); `aliasfuzz reduce --deferred %s` "
                     "minimizes them into classes\n",
                  ndef, cJSON_GetArraySize(deferred), dir, dir);
}

int report_write_campaign(const char *dir, const report_campaign_figures *fig, af_err *err) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "format", "aliasfuzz-campaign-report/1");
  cJSON *opts = fig->options_json ? cJSON_Parse(fig->options_json) : NULL;
  if (opts) cJSON_AddItemToObject(r, "options", opts);
  cJSON_AddNumberToObject(r, "programs", (double)fig->programs);
  cJSON_AddNumberToObject(r, "seconds", fig->seconds);
  cJSON_AddNumberToObject(r, "programs_per_second", fig->seconds > 0 ? (double)fig->programs / fig->seconds : 0);
  cJSON *v = cJSON_AddObjectToObject(r, "verdicts");
  for (int q = 0; q < V_COUNT; q++)
    if (fig->verdicts[q]) cJSON_AddNumberToObject(v, oracle_verdict_name((oracle_verdict)q), (double)fig->verdicts[q]);
  cJSON_AddNumberToObject(r, "reduce_seconds", fig->reduce_seconds);
  cJSON_AddNumberToObject(r, "finish_reduce_seconds", fig->finish_reduce_seconds);
  cJSON_AddNumberToObject(r, "finish_seconds", fig->finish_seconds);
  cJSON_AddNumberToObject(r, "finished", fig->finished);
  cJSON_AddNumberToObject(r, "annotate_seconds", fig->annotate_seconds);
  cJSON *deferred = NULL, *classes = load_classes(dir, &deferred);
  cJSON_AddItemToObject(r, "classes", classes);
  cJSON *lim = cJSON_AddObjectToObject(r, "limits"); /* what the converter refuses by design: not bugs */
  cJSON_AddNumberToObject(lim, "classes", report_count_group(classes, REPORT_LIMIT));
  cJSON_AddNumberToObject(lim, "programs", group_programs(classes, REPORT_LIMIT));
  cJSON_AddItemToObject(r, "deferred", deferred);
  cJSON *findings = load_findings(dir);
  cJSON_AddItemToObject(r, "findings", findings);
  cJSON_AddItemToObject(r, "flaky", load_apart(dir, "flaky"));
  cJSON_AddItemToObject(r, "harness", load_apart(dir, "harness"));
  char *json = cJSON_Print(r);
  char path[4096];
  snprintf(path, sizeof path, "%s/report.json", dir);
  int rc = codec_write_atomic(path, json, strlen(json), err);
  cJSON_free(json);

  af_buf b = {0};
  const char *conv = opts ? cJSON_GetStringValue(cJSON_GetObjectItem(opts, "converter")) : "?";
  af_buf_printf(&b, "# aliasfuzz campaign: `%s`\n\n", conv ? conv : "?");
  report_campaign_headline(&b, dir, r);
  af_buf_puts(&b, "\n");
  if (cJSON_GetArraySize(classes)) {
    af_buf_puts(&b, "## Classes\n\n");
    md_table(&b, report_class_columns, classes, 1, REPORT_LIMIT);
    int n = 0;
    cJSON *c;
    cJSON_ArrayForEach(c, classes) if (report_class_group(c) < REPORT_LIMIT) class_section(&b, dir, ++n, c);
    for (report_group g = REPORT_LIMIT; g < REPORT_GROUPS; g++) { /* the groups listed apart, not bugs */
      if (!report_count_group(classes, g)) continue;
      af_buf_puts(&b, "## ");
      report_group_intro(&b, classes, g, 1);
      af_buf_puts(&b, "\n\n");
      report_group_intro(&b, classes, g, 0);
      af_buf_puts(&b, "\n\n");
      cJSON_ArrayForEach(c, classes) if (report_class_group(c) == g) class_section(&b, dir, ++n, c);
    }
  }
  for (int k = 0; k < 2; k++) {
    const cJSON *list = cJSON_GetObjectItem(r, k ? "harness" : "flaky");
    if (!cJSON_GetArraySize(list)) continue;
    af_buf_printf(&b, "## %s\n\n%s\n\n", k ? "Harness findings" : "Flaky findings", k ? report_harness_intro : report_flaky_intro);
    md_table(&b, k ? report_harness_columns : report_flaky_columns, list, 0, REPORT_GROUPS);
  }
  if (cJSON_GetArraySize(findings)) {
    af_buf_puts(&b, "## Findings\n\n");
    af_buf_puts(&b, "| finding | verdict | count | statements | first seed | detail |\n|---|---|---:|---:|---|---|\n");
    cJSON *f;
    cJSON_ArrayForEach(f, findings) {
      const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(f, "signature"));
      cJSON *first = cJSON_GetObjectItem(f, "first");
      af_buf_printf(&b, "| [%s](findings/%s/README.md) | %s | %.0f | %.0f | %s | ", id, id,
                    cJSON_GetStringValue(cJSON_GetObjectItem(f, "verdict")), cJSON_GetNumberValue(cJSON_GetObjectItem(f, "count")),
                    cJSON_GetNumberValue(cJSON_GetObjectItem(f, "statements")),
                    first && cJSON_GetStringValue(cJSON_GetObjectItem(first, "seed"))
                        ? cJSON_GetStringValue(cJSON_GetObjectItem(first, "seed"))
                        : "-");
      md_message_cell(&b, cJSON_GetStringValue(cJSON_GetObjectItem(f, "detail")), 120);
      af_buf_puts(&b, " |\n");
    }
  }
  snprintf(path, sizeof path, "%s/report.md", dir);
  if (!rc) rc = codec_write_atomic(path, b.s, b.len, err);
  af_buf_free(&b);
  cJSON_Delete(r);
  return rc;
}
