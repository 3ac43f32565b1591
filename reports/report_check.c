/* report_check.c - conformance reports: loading check documents, Markdown, pass-rate tables
 * (see report_check.h). */
#include "report_check.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "report.h"

const char *report_case_status_name(report_case_status s) {
  static const char *const names[] = {"pass", "known", "newly-passing", "regression"};
  return s < RC_STATUS_COUNT ? names[s] : "?";
}

const char *const report_families[] = {"matrix-through", "matrix-base", "matrix-input", "input-base", "chain-2", "chain-3",
                                       "siblings", "shape-changing", "maybe-view", "design", "real-model", "aliased-input", "other", NULL};

void report_html_escape(af_buf *b, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
      case '&': af_buf_puts(b, "&amp;"); break;
      case '<': af_buf_puts(b, "&lt;"); break;
      case '>': af_buf_puts(b, "&gt;"); break;
      case '"': af_buf_puts(b, "&quot;"); break;
      case '\'': af_buf_puts(b, "&#39;"); break;
      default: af_buf_printf(b, "%c", *s);
    }
  }
}

static int by_converter(const void *a, const void *b) {
  const char *x = cJSON_GetStringValue(cJSON_GetObjectItem(*(cJSON *const *)a, "converter"));
  const char *y = cJSON_GetStringValue(cJSON_GetObjectItem(*(cJSON *const *)b, "converter"));
  return strcmp(x ? x : "", y ? y : "");
}

cJSON *report_load_checks(const char *dir, af_err *err) {
  DIR *d = opendir(dir);
  if (!d) {
    af_fail(err, "%s: cannot open the folder", dir);
    return NULL;
  }
  struct dirent *e;
  cJSON **items = NULL;
  int n = 0, bad = 0;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, "check-", 6) != 0 || len < 12 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *text = codec_slurp(path, NULL, err);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    const char *fmt = j ? cJSON_GetStringValue(cJSON_GetObjectItem(j, "format")) : NULL;
    if (!fmt || strcmp(fmt, REPORT_CHECK_FORMAT) != 0 || !cJSON_IsArray(cJSON_GetObjectItem(j, "cases"))) {
      af_fail(err, "%s: not a check document (format \"%s\" with cases)", path, REPORT_CHECK_FORMAT);
      cJSON_Delete(j);
      bad = 1;
      break;
    }
    items = af_xrealloc(items, sizeof(cJSON *) * (size_t)(n + 1));
    items[n++] = j;
  }
  closedir(d);
  if (!bad && !n) af_fail(err, "%s: no check-*.json (write them with `aliasfuzz check ... --report %s`)", dir, dir);
  if (bad || !n) {
    for (int i = 0; i < n; i++) cJSON_Delete(items[i]);
    free(items);
    return NULL;
  }
  qsort(items, (size_t)n, sizeof(cJSON *), by_converter);
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(arr, items[i]);
  free(items);
  return arr;
}

static const char *s_of(const cJSON *o, const char *k) {
  const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
  return v ? v : "";
}

static int n_of(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItem(o, k);
  return cJSON_IsNumber(v) ? v->valueint : 0;
}

/* Markdown table cell text: no pipes, no newlines, at most max characters. */
static void md_cell(af_buf *b, const char *s, size_t max) {
  size_t n = 0;
  for (; s && *s && n < max; s++, n++) {
    if (*s == '|') af_buf_puts(b, "\\|");
    else if (*s == '\n') af_buf_puts(b, " ");
    else if (*s == '`') af_buf_puts(b, "'");
    else af_buf_printf(b, "%c", *s);
  }
  if (s && *s) af_buf_puts(b, "…");
}

static int cmp_key(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Keys of one kind ("family", "view", "write") in report order: families in their fixed order,
 * ops in alphabetical order. new array of borrowed strings, NULL-terminated. */
static const char **keys_of(const cJSON *checks, const char *by) {
  int n = 0, cap = 16;
  const char **keys = af_xcalloc((size_t)cap, sizeof(char *));
  if (!strcmp(by, "family")) {
    for (int f = 0; report_families[f]; f++) {
      int used = 0;
      const cJSON *doc, *c;
      cJSON_ArrayForEach(doc, checks) cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) used |= !strcmp(s_of(c, "family"), report_families[f]);
      if (used) keys[n++] = report_families[f];
    }
    keys[n] = NULL;
    return keys;
  }
  const cJSON *doc, *c;
  cJSON_ArrayForEach(doc, checks) cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
    const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(c, by));
    if (!k) continue;
    int seen = 0;
    for (int i = 0; i < n && !seen; i++) seen = !strcmp(keys[i], k);
    if (seen) continue;
    if (n + 2 > cap) keys = af_xrealloc(keys, sizeof(char *) * (size_t)(cap *= 2));
    keys[n++] = k;
  }
  keys[n] = NULL;
  qsort(keys, (size_t)n, sizeof(char *), cmp_key);
  return keys;
}

static void rate_table(af_buf *b, const cJSON *checks, const char *by) {
  const char **keys = keys_of(checks, by);
  const cJSON *doc;
  af_buf_printf(b, "| %s |", !strcmp(by, "family") ? "suite family" : !strcmp(by, "view") ? "view op" : "write op");
  cJSON_ArrayForEach(doc, checks) af_buf_printf(b, " %s |", s_of(doc, "converter"));
  af_buf_puts(b, "\n|---|");
  cJSON_ArrayForEach(doc, checks) af_buf_puts(b, "---:|");
  af_buf_puts(b, "\n");
  for (int k = 0; keys[k]; k++) {
    af_buf_printf(b, "| %s |", keys[k]);
    cJSON_ArrayForEach(doc, checks) {
      int total = 0, pass = 0;
      const cJSON *c;
      cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(c, by));
        if (!v || strcmp(v, keys[k]) != 0) continue;
        total++;
        pass += !strcmp(s_of(c, "verdict"), "pass");
      }
      if (total) af_buf_printf(b, " %.0f%% (%d/%d) |", 100.0 * pass / total, pass, total);
      else af_buf_puts(b, " - |");
    }
    af_buf_puts(b, "\n");
  }
  /* the total */
  af_buf_puts(b, "| **all** |");
  cJSON_ArrayForEach(doc, checks) {
    int total = 0, pass = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
      if (!cJSON_GetStringValue(cJSON_GetObjectItem(c, by))) continue;
      total++;
      pass += !strcmp(s_of(c, "verdict"), "pass");
    }
    if (total) af_buf_printf(b, " **%.0f%%** (%d/%d) |", 100.0 * pass / total, pass, total);
    else af_buf_puts(b, " - |");
  }
  af_buf_puts(b, "\n");
  free(keys);
}

char *report_conformance_table(const char *dir, const char *by, af_err *err) {
  if (strcmp(by, "family") && strcmp(by, "view") && strcmp(by, "write")) {
    af_fail(err, "table: by must be family, view or write, not %s", by);
    return NULL;
  }
  cJSON *checks = report_load_checks(dir, err);
  if (!checks) return NULL;
  af_buf b = {0};
  rate_table(&b, checks, by);
  cJSON_Delete(checks);
  return af_buf_take(&b);
}

/* Up to max cases of one status, over every converter, as a list. */
static void case_list(af_buf *b, const cJSON *checks, const char *status, int max) {
  const cJSON *doc, *c;
  int n = 0, total = 0;
  cJSON_ArrayForEach(doc, checks) cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
    if (strcmp(s_of(c, "status"), status) != 0) continue;
    total++;
    if (n >= max) continue;
    n++;
    const char *exp = cJSON_GetStringValue(cJSON_GetObjectItem(c, "expected"));
    af_buf_printf(b, "- `%s` (%s): expected %s, got **%s**", s_of(c, "id"), s_of(doc, "converter"), exp ? exp : "pass (no expectation)",
                  s_of(c, "verdict"));
    if (*s_of(c, "detail")) {
      af_buf_puts(b, ": ");
      md_cell(b, s_of(c, "detail"), 160);
    }
    af_buf_puts(b, "\n");
  }
  if (total > n) af_buf_printf(b, "- ... and %d more (see the check-*.json files)\n", total - n);
}

char *report_conformance_markdown(const char *dir, af_err *err) {
  cJSON *checks = report_load_checks(dir, err);
  if (!checks) return NULL;
  af_buf b = {0};
  const cJSON *doc;
  int regressions = 0, newly = 0;
  cJSON_ArrayForEach(doc, checks) {
    regressions += n_of(cJSON_GetObjectItem(doc, "summary"), "regression");
    newly += n_of(cJSON_GetObjectItem(doc, "summary"), "newly-passing");
  }
  af_buf_printf(&b, "## aliasfuzz conformance: %s\n\n",
                regressions ? "regressions" : newly ? "no regressions, some cases newly pass" : "no regressions");
  af_buf_puts(&b, "| converter | version | suite | cases | pass | known failures | newly passing | regressions | time |\n"
                  "|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  cJSON_ArrayForEach(doc, checks) {
    const cJSON *s = cJSON_GetObjectItem(doc, "summary");
    const cJSON *secs = cJSON_GetObjectItem(doc, "seconds");
    af_buf_printf(&b, "| %s | ", s_of(doc, "converter"));
    md_cell(&b, s_of(doc, "converter_version"), 60);
    af_buf_printf(&b, " | `%s`%s%s | %d | %d | %d | %d | %s%d%s | %.1f s |\n", s_of(doc, "suite"),
                  strcmp(s_of(doc, "shard"), "1/1") ? " shard " : "", strcmp(s_of(doc, "shard"), "1/1") ? s_of(doc, "shard") : "",
                  n_of(s, "cases"), n_of(s, "pass"), n_of(s, "known"), n_of(s, "newly-passing"), n_of(s, "regression") ? "**" : "",
                  n_of(s, "regression"), n_of(s, "regression") ? "**" : "", cJSON_IsNumber(secs) ? secs->valuedouble : 0.0);
  }
  if (regressions) {
    af_buf_printf(&b, "\n### Regressions (%d)\n\n", regressions);
    case_list(&b, checks, "regression", 60);
  }
  if (newly) {
    af_buf_printf(&b, "\n### Newly passing (%d): tighten the expectation files with `--update-expect`\n\n", newly);
    case_list(&b, checks, "newly-passing", 60);
  }
  af_buf_puts(&b, "\n### Pass rate per suite family\n\n");
  rate_table(&b, checks, "family");
  af_buf_puts(&b, "\n<details><summary>Pass rate per view op and per write op</summary>\n\n");
  rate_table(&b, checks, "view");
  af_buf_puts(&b, "\n");
  rate_table(&b, checks, "write");
  af_buf_puts(&b, "\n</details>\n");
  cJSON_Delete(checks);
  return af_buf_take(&b);
}
