/* report_html.c - self-contained HTML pages: the conformance report (matrix view op x write op,
 * one colored cell per verdict per converter) and the campaign report (figures, programs/s as
 * inline SVG, findings with their minimized program and repro.py). No script, no stylesheet,
 * image or font from anywhere else: everything is inline, links point into the folder. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../fuzz/known.h"
#include "../harness/codec.h"
#include "../harness/emit.h"
#include "../oracle/oracle.h"
#include "report.h"
#include "report_check.h"

#define esc report_html_escape

static const char *s_of(const cJSON *o, const char *k) {
  const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
  return v ? v : "";
}

static double d_of(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItem(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* One color per verdict (and one for "no case": a combination eager rejects). */
static const char *verdict_color(const char *v) {
  static const struct {
    const char *v, *c;
  } colors[] = {
      {"pass", "#2da44e"},           {"value-mismatch", "#cf222e"},        {"shape-mismatch", "#e16f24"},
      {"dtype-mismatch", "#bf8700"}, {"input-mutation-lost", "#8250df"},   {"residual-mutation", "#1b7c83"},
      {"converter-unsupported", "#8c959f"}, {"converter-error", "#82071e"}, {"converter-crash", "#000000"},
      {"converter-timeout", "#7d4e00"}, {"invalid-program", "#bf3989"},
  };
  for (size_t i = 0; i < sizeof colors / sizeof colors[0]; i++)
    if (!strcmp(v, colors[i].v)) return colors[i].c;
  return "#eaeef2";
}

static const char *style =
    "<style>\n"
    "body{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:24px;color:#1f2328;max-width:1500px}\n"
    "h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}\n"
    "h3{font-size:16px;margin:18px 0 6px}.sub{color:#59636e;font-size:13px}\n"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #d0d7de;padding:3px 7px;text-align:left}\n"
    "th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "table.mx td,table.mx th{padding:0;border:1px solid #eaeef2}table.mx th.w{height:92px;vertical-align:bottom;padding:2px 0}\n"
    "table.mx th.w div{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;font-size:12px;margin:0 auto}\n"
    "table.mx th.v{font-weight:normal;padding:0 6px;text-align:right;white-space:nowrap;font-size:12px}\n"
    ".cell{display:flex;gap:1px;padding:2px}.sq{width:7px;height:16px;display:inline-block}\n"
    ".sw{display:inline-block;width:12px;height:12px;vertical-align:middle;margin:0 4px 0 10px;border:1px solid #d0d7de}\n"
    ".bar{display:block;height:10px;background:#2da44e}\n"
    ".barbg{display:inline-block;width:120px;height:10px;background:#eaeef2;vertical-align:middle;margin-right:6px;text-align:left}\n"
    "pre{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;font-size:12px;overflow-x:auto;margin:4px 0 12px}\n"
    "details{margin:6px 0}summary{cursor:pointer}.reg{color:#cf222e;font-weight:bold}.ok{color:#1a7f37;font-weight:bold}\n"
    "code{font-size:12px;background:#f6f8fa;padding:1px 4px;border-radius:4px}\n"
    "</style>\n";

static void page_start(af_buf *b, const char *title) {
  af_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
  esc(b, title);
  af_buf_puts(b, "</title>\n");
  af_buf_puts(b, style);
  af_buf_puts(b, "</head>\n<body>\n");
}

/* A path to `to` relative to the folder `from` (both as given, resolved with realpath when
 * they exist). new, free with free(). */
static char *rel_path(const char *from, const char *to) {
  char a[PATH_MAX], t[PATH_MAX];
  if (!realpath(from, a) || !realpath(to, t)) return af_xstrdup(to);
  size_t i = 0, common = 0;
  while (a[i] && t[i] && a[i] == t[i]) {
    i++;
    if (a[i - 1] == '/') common = i;
  }
  if (!a[i] && t[i] == '/') common = i + 1; /* from is a folder above to */
  af_buf b = {0};
  if (a[common]) {
    af_buf_puts(&b, "../");
    for (const char *p = a + common; *p; p++)
      if (*p == '/') af_buf_puts(&b, "../");
  }
  af_buf_puts(&b, t + common);
  return af_buf_take(&b);
}

static void legend(af_buf *b) {
  af_buf_puts(b, "<p class=\"sub\">");
  for (int v = 0; v < V_COUNT; v++) {
    const char *n = oracle_verdict_name((oracle_verdict)v);
    af_buf_printf(b, "<span class=\"sw\" style=\"background:%s\"></span>%s ", verdict_color(n), n);
  }
  af_buf_printf(b, "<span class=\"sw\" style=\"background:%s\"></span>no case (eager rejects it, see SKIPPED.md)</p>\n",
                verdict_color(""));
}

/* ---- conformance ---- */

static const char *const modes[] = {"matrix-through", "matrix-base", "matrix-input"};

static const cJSON *find_case(const cJSON *doc, const char *family, const char *view, const char *write) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
    if (!strcmp(s_of(c, "family"), family) && !strcmp(s_of(c, "view"), view) && !strcmp(s_of(c, "write"), write)) return c;
  }
  return NULL;
}

/* Distinct values of key k over the matrix cases of every document, in order of first appearance. */
static int matrix_keys(const cJSON *checks, const char *k, const char **out, int max) {
  int n = 0;
  const cJSON *doc, *c;
  cJSON_ArrayForEach(doc, checks) cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
    if (strncmp(s_of(c, "family"), "matrix-", 7) != 0) continue;
    const char *v = s_of(c, k);
    int seen = 0;
    for (int i = 0; i < n && !seen; i++) seen = !strcmp(out[i], v);
    if (!seen && n < max) out[n++] = v;
  }
  return n;
}

static void matrix(af_buf *b, const cJSON *checks, const cJSON *doc) {
  const char *views[128], *writes[128];
  int nv = matrix_keys(checks, "view", views, 128), nw = matrix_keys(checks, "write", writes, 128);
  if (!nv || !nw) {
    af_buf_puts(b, "<p class=\"sub\">No matrix cases in this run.</p>\n");
    return;
  }
  af_buf_puts(b, "<table class=\"mx\">\n<tr><th class=\"v\">view op \\ write</th>");
  for (int w = 0; w < nw; w++) {
    af_buf_puts(b, "<th class=\"w\"><div>");
    esc(b, writes[w]);
    af_buf_puts(b, "</div></th>");
  }
  af_buf_puts(b, "</tr>\n");
  for (int v = 0; v < nv; v++) {
    af_buf_puts(b, "<tr><th class=\"v\">");
    esc(b, views[v]);
    af_buf_puts(b, "</th>");
    for (int w = 0; w < nw; w++) {
      af_buf_puts(b, "<td><div class=\"cell\">");
      for (int m = 0; m < 3; m++) {
        const cJSON *c = find_case(doc, modes[m], views[v], writes[w]);
        const char *verdict = c ? s_of(c, "verdict") : "";
        af_buf_printf(b, "<span class=\"sq\" style=\"background:%s\" title=\"", verdict_color(verdict));
        if (c) {
          esc(b, s_of(c, "id"));
          af_buf_puts(b, ": ");
          esc(b, verdict);
          if (*s_of(c, "detail")) {
            af_buf_puts(b, " - ");
            char d[200];
            snprintf(d, sizeof d, "%s", s_of(c, "detail"));
            esc(b, d);
          }
        } else {
          af_buf_printf(b, "%s x %s (%s): no case", views[v], writes[w], modes[m] + 7);
        }
        af_buf_puts(b, "\"></span>");
      }
      af_buf_puts(b, "</div></td>");
    }
    af_buf_puts(b, "</tr>\n");
  }
  af_buf_puts(b, "</table>\n<p class=\"sub\">Each cell: three squares, the write applied through the view, into the base after "
                 "the view was made, and into an input through its view. Hover a square for the case id and the verdict.</p>\n");
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void rate_html(af_buf *b, const cJSON *checks, const char *key) {
  af_buf_printf(b, "<table>\n<tr><th>%s</th>", !strcmp(key, "family") ? "suite family" : key);
  const cJSON *doc;
  cJSON_ArrayForEach(doc, checks) {
    af_buf_puts(b, "<th>");
    esc(b, s_of(doc, "converter"));
    af_buf_puts(b, "</th>");
  }
  af_buf_puts(b, "</tr>\n");
  const char *keys[256];
  int nk = 0;
  if (!strcmp(key, "family")) {
    for (int f = 0; report_families[f] && nk < 256; f++) keys[nk++] = report_families[f];
  } else {
    const cJSON *c;
    cJSON_ArrayForEach(doc, checks) cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
      const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(c, key));
      int seen = !v;
      for (int i = 0; i < nk && !seen; i++) seen = !strcmp(keys[i], v);
      if (!seen && nk < 256) keys[nk++] = v;
    }
    qsort(keys, (size_t)nk, sizeof(char *), cmp_str);
  }
  for (int k = 0; k < nk; k++) {
    af_buf tr = {0};
    int any = 0;
    af_buf_puts(&tr, "<tr><td>");
    esc(&tr, keys[k]);
    af_buf_puts(&tr, "</td>");
    cJSON_ArrayForEach(doc, checks) {
      int total = 0, pass = 0;
      const cJSON *c;
      cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(c, key));
        if (!v || strcmp(v, keys[k])) continue;
        total++;
        pass += !strcmp(s_of(c, "verdict"), "pass");
      }
      any |= total > 0;
      if (total)
        af_buf_printf(&tr, "<td><span class=\"barbg\"><span class=\"bar\" style=\"width:%dpx\"></span></span>%.0f%% (%d/%d)</td>",
                      120 * pass / total, 100.0 * pass / total, pass, total);
      else af_buf_puts(&tr, "<td class=\"n\">-</td>");
    }
    af_buf_puts(&tr, "</tr>\n");
    if (any) af_buf_puts(b, tr.s);
    af_buf_free(&tr);
  }
  af_buf_puts(b, "</table>\n");
}

static void case_details(af_buf *b, const char *dir, const cJSON *doc, const char *status, const char *title, int open, int max) {
  int n = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) n += !strcmp(s_of(c, "status"), status);
  if (!n) return;
  af_buf_printf(b, "<details%s><summary>%s: %d</summary>\n", open ? " open" : "", title, n);
  int k = 0;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
    if (strcmp(s_of(c, "status"), status) != 0) continue;
    if (k++ >= max) {
      af_buf_printf(b, "<p class=\"sub\">... and %d more: see check-%s.json.</p>\n", n - max, s_of(doc, "converter"));
      break;
    }
    char *href = rel_path(dir, s_of(c, "file"));
    const char *exp = cJSON_GetStringValue(cJSON_GetObjectItem(c, "expected"));
    af_buf_printf(b, "<h3 id=\"%s-", s_of(doc, "converter"));
    esc(b, s_of(c, "id"));
    af_buf_puts(b, "\"><span class=\"sw\" style=\"background:");
    af_buf_puts(b, verdict_color(s_of(c, "verdict")));
    af_buf_puts(b, "\"></span><a href=\"");
    esc(b, href);
    af_buf_puts(b, "\">");
    esc(b, s_of(c, "id"));
    af_buf_puts(b, "</a> ");
    esc(b, s_of(c, "verdict"));
    af_buf_printf(b, " <span class=\"sub\">(expected %s)</span></h3>\n", exp ? exp : "pass");
    if (*s_of(c, "detail")) {
      af_buf_puts(b, "<pre>");
      esc(b, s_of(c, "detail"));
      af_buf_puts(b, "</pre>\n");
    }
    if (*s_of(c, "reason")) {
      af_buf_puts(b, "<p class=\"sub\">reason: ");
      esc(b, s_of(c, "reason"));
      af_buf_puts(b, "</p>\n");
    }
    if (*s_of(c, "source")) {
      af_buf_puts(b, "<pre>");
      esc(b, s_of(c, "source"));
      af_buf_puts(b, "</pre>\n");
    }
    af_buf_puts(b, "<p class=\"sub\">rerun: <code>aliasfuzz run ");
    esc(b, s_of(c, "file"));
    af_buf_printf(b, " --converter %s</code></p>\n", s_of(doc, "converter"));
    free(href);
  }
  af_buf_puts(b, "</details>\n");
}

int report_conformance_html(const char *dir, const cJSON *checks, af_err *err) {
  af_buf b = {0};
  page_start(&b, "aliasfuzz conformance");
  const cJSON *doc, *first = cJSON_GetArrayItem(checks, 0);
  int regressions = 0;
  cJSON_ArrayForEach(doc, checks) regressions += (int)d_of(cJSON_GetObjectItem(doc, "summary"), "regression");
  af_buf_puts(&b, "<h1>aliasfuzz conformance</h1>\n<p class=\"sub\">suite <code>");
  esc(&b, s_of(first, "suite"));
  af_buf_printf(&b, "</code>, aliasfuzz %s, LibTorch %s. ", s_of(first, "aliasfuzz"), s_of(first, "libtorch"));
  if (regressions) af_buf_printf(&b, "<span class=\"reg\">%d regressions</span>", regressions);
  else af_buf_puts(&b, "<span class=\"ok\">no regressions</span>");
  af_buf_puts(&b, "</p>\n<h2>Converters</h2>\n<table>\n<tr><th>converter</th><th>version</th><th>cases</th><th>verdicts</th>"
                  "<th>pass</th><th>known failures</th><th>newly passing</th><th>regressions</th><th>time</th></tr>\n");
  cJSON_ArrayForEach(doc, checks) {
    const cJSON *s = cJSON_GetObjectItem(doc, "summary"), *v = cJSON_GetObjectItem(s, "verdicts");
    af_buf_puts(&b, "<tr><td><a href=\"#mx-");
    esc(&b, s_of(doc, "converter"));
    af_buf_puts(&b, "\">");
    esc(&b, s_of(doc, "converter"));
    af_buf_puts(&b, "</a></td><td>");
    esc(&b, s_of(doc, "converter_version"));
    af_buf_printf(&b, "</td><td class=\"n\">%.0f</td><td>", d_of(s, "cases"));
    /* the verdict mix as one stacked bar */
    double total = d_of(s, "cases");
    af_buf_puts(&b, "<span style=\"display:inline-flex;width:200px;height:12px;background:#eaeef2\">");
    for (const cJSON *e = v ? v->child : NULL; e && total > 0; e = e->next)
      af_buf_printf(&b, "<span title=\"%s: %.0f\" style=\"width:%.1fpx;background:%s\"></span>", e->string, e->valuedouble,
                    200.0 * e->valuedouble / total, verdict_color(e->string));
    af_buf_printf(&b, "</span></td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n%s\">%.0f</td>"
                      "<td class=\"n\">%.1f s</td></tr>\n",
                  d_of(s, "pass"), d_of(s, "known"), d_of(s, "newly-passing"), d_of(s, "regression") ? " reg" : "",
                  d_of(s, "regression"), d_of(doc, "seconds"));
  }
  af_buf_puts(&b, "</table>\n<h2>Pass rate per suite family</h2>\n");
  rate_html(&b, checks, "family");
  af_buf_puts(&b, "<h2>Conformance matrix: view op &times; write op</h2>\n");
  legend(&b);
  cJSON_ArrayForEach(doc, checks) {
    af_buf_puts(&b, "<h3 id=\"mx-");
    esc(&b, s_of(doc, "converter"));
    af_buf_puts(&b, "\">");
    esc(&b, s_of(doc, "converter"));
    af_buf_puts(&b, "</h3>\n");
    matrix(&b, checks, doc);
  }
  af_buf_puts(&b, "<h2>Cases that did not pass</h2>\n");
  cJSON_ArrayForEach(doc, checks) {
    af_buf_puts(&b, "<h3>");
    esc(&b, s_of(doc, "converter"));
    af_buf_puts(&b, "</h3>\n");
    case_details(&b, dir, doc, "regression", "Regressions", 1, 200);
    case_details(&b, dir, doc, "newly-passing", "Newly passing (tighten the expectation file)", 0, 200);
    case_details(&b, dir, doc, "known", "Known failures (as expected)", 0, 150);
  }
  af_buf_puts(&b, "<h2>Pass rate per view op and per write op</h2>\n");
  rate_html(&b, checks, "view");
  af_buf_puts(&b, "<p></p>\n");
  rate_html(&b, checks, "write");
  af_buf_puts(&b, "</body>\n</html>\n");
  char path[4096];
  snprintf(path, sizeof path, "%s/report.html", dir);
  int rc = codec_write_atomic(path, b.s, b.len, err);
  af_buf_free(&b);
  return rc;
}

/* ---- campaign ---- */

static cJSON *load_json(const char *path) {
  char *t = codec_slurp(path, NULL, NULL);
  cJSON *j = t ? cJSON_Parse(t) : NULL;
  free(t);
  return j;
}

/* programs/s between consecutive samples of history ([[seconds, programs], ...]) as an SVG line
 * chart. */
static void rate_chart(af_buf *b, const cJSON *history) {
  int n = cJSON_GetArraySize(history);
  double *t = af_xcalloc((size_t)n + 1, sizeof(double)), *r = af_xcalloc((size_t)n + 1, sizeof(double));
  int k = 0;
  double pt = 0, pp = 0, tmax = 0, rmax = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, history) {
    double ts = cJSON_GetNumberValue(cJSON_GetArrayItem(s, 0)), ps = cJSON_GetNumberValue(cJSON_GetArrayItem(s, 1));
    if (ts != ts || ps != ps || ts <= pt) continue;
    t[k] = ts;
    r[k] = (ps - pp) / (ts - pt);
    if (r[k] < 0) r[k] = 0;
    if (t[k] > tmax) tmax = t[k];
    if (r[k] > rmax) rmax = r[k];
    pt = ts, pp = ps, k++;
  }
  const int W = 640, H = 220, L = 56, R = 16, T = 12, B = 36;
  if (k < 1 || tmax <= 0) {
    af_buf_puts(b, "<p class=\"sub\">Not enough samples for a chart.</p>\n");
    free(t);
    free(r);
    return;
  }
  rmax = rmax > 0 ? rmax * 1.1 : 1;
  af_buf_printf(b, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
                   "aria-label=\"programs per second over the campaign\">\n",
                W, H, W, H);
  af_buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f6f8fa\" stroke=\"#d0d7de\"/>\n", L, T, W - L - R, H - T - B);
  for (int g = 0; g <= 4; g++) {
    double y = T + (H - T - B) * (1 - g / 4.0);
    af_buf_printf(b, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d0d7de\"/>"
                     "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#59636e\">%.0f</text>\n",
                  L, W - R, y, y, L - 6, y + 4, rmax * g / 4.0);
    double x = L + (W - L - R) * g / 4.0;
    af_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\" fill=\"#59636e\">%.0f s</text>\n", x, H - B + 16,
                  tmax * g / 4.0);
  }
  af_buf_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#59636e\">programs/s</text>\n", L + 6, T + 14);
  af_buf_puts(b, "<polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\" points=\"");
  for (int i = 0; i < k; i++)
    af_buf_printf(b, "%.1f,%.1f ", L + (W - L - R) * t[i] / tmax, T + (H - T - B) * (1 - r[i] / rmax));
  af_buf_puts(b, "\"/>\n</svg>\n");
  free(t);
  free(r);
}

/* The classes already known upstream (fuzz/known.h), each with its report; nothing when none. */
static void known_section(af_buf *b, const cJSON *classes) {
  const cJSON *c;
  int n = 0;
  cJSON_ArrayForEach(c, classes) n += known_is_known(c);
  if (!n) return;
  af_buf_printf(b, "<h2>Known upstream (%d class(es))</h2>\n<p class=\"sub\">A case of corpus/known-upstream/ fails the "
                   "same way on the same converter.</p>\n<table>\n<tr><th>class</th><th>verdict</th><th>pattern or error</th>"
                   "<th>known</th><th>state</th></tr>\n",
                n);
  cJSON_ArrayForEach(c, classes) {
    if (!known_is_known(c)) continue;
    const char *ek = s_of(c, "error_key"), *url = s_of(c, "known_url");
    af_buf_puts(b, "<tr><td>");
    esc(b, s_of(c, "id"));
    af_buf_printf(b, "</td><td><span class=\"sw\" style=\"background:%s\"></span>", verdict_color(s_of(c, "verdict")));
    esc(b, s_of(c, "verdict"));
    af_buf_puts(b, "</td><td><code>");
    esc(b, ek && *ek ? ek : s_of(c, "pattern"));
    af_buf_puts(b, "</code></td><td>known: ");
    if (*url) {
      af_buf_puts(b, "<a href=\"");
      esc(b, url);
      af_buf_puts(b, "\">");
    }
    esc(b, s_of(c, "known"));
    af_buf_puts(b, *url ? "</a></td><td>" : "</td><td>");
    esc(b, s_of(c, "known_state"));
    af_buf_puts(b, "</td></tr>\n");
  }
  af_buf_puts(b, "</table>\n");
}

int report_campaign_html(const char *dir, af_err *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/report.json", dir);
  cJSON *rep = load_json(path);
  if (!rep) return af_fail(err, "%s: missing or not JSON (a campaign writes it when it ends)", path);
  snprintf(path, sizeof path, "%s/state.json", dir);
  cJSON *state = load_json(path);
  const cJSON *opts = cJSON_GetObjectItem(rep, "options");
  af_buf b = {0};
  char title[256];
  snprintf(title, sizeof title, "aliasfuzz campaign: %s", s_of(opts, "converter"));
  page_start(&b, title);
  af_buf_puts(&b, "<h1>");
  esc(&b, title);
  af_buf_puts(&b, "</h1>\n<p class=\"sub\">");
  af_buf_printf(&b, "aliasfuzz %s, converter ", s_of(opts, "aliasfuzz"));
  esc(&b, s_of(opts, "converter"));
  af_buf_puts(&b, " ");
  esc(&b, s_of(opts, "converter_version"));
  af_buf_printf(&b, ", seed %.0f, %.0f job(s)</p>\n", d_of(opts, "seed"), d_of(opts, "jobs"));
  af_buf_printf(&b, "<h2>Figures</h2>\n<table><tr><th>programs</th><td class=\"n\">%.0f</td></tr><tr><th>seconds</th><td class=\"n\">%.1f</td></tr>"
                    "<tr><th>programs/s</th><td class=\"n\">%.1f</td></tr><tr><th>distinct findings</th><td class=\"n\">%d</td></tr></table>\n",
                d_of(rep, "programs"), d_of(rep, "seconds"), d_of(rep, "programs_per_second"),
                cJSON_GetArraySize(cJSON_GetObjectItem(rep, "findings")));
  af_buf_puts(&b, "<h2>Verdicts</h2>\n<table>\n");
  const cJSON *v = cJSON_GetObjectItem(rep, "verdicts");
  for (const cJSON *e = v ? v->child : NULL; e; e = e->next)
    af_buf_printf(&b, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>%s</td><td class=\"n\">%.0f</td></tr>\n",
                  verdict_color(e->string), e->string, e->valuedouble);
  af_buf_puts(&b, "</table>\n<h2>Programs per second</h2>\n");
  const cJSON *hist = cJSON_GetObjectItem(rep, "history");
  if (!cJSON_IsArray(hist)) hist = cJSON_GetObjectItem(state, "history");
  if (cJSON_IsArray(hist)) rate_chart(&b, hist);
  else
    af_buf_printf(&b, "<p class=\"sub\">This campaign recorded no time series (no \"history\" in report.json or state.json); "
                      "its average was %.1f programs/s.</p>\n",
                  d_of(rep, "programs_per_second"));
  known_section(&b, cJSON_GetObjectItem(rep, "classes"));
  const cJSON *findings = cJSON_GetObjectItem(rep, "findings"), *f;
  af_buf_printf(&b, "<h2>Findings (%d)</h2>\n", cJSON_GetArraySize(findings));
  if (cJSON_GetArraySize(findings)) {
    af_buf_puts(&b, "<table>\n<tr><th>finding</th><th>verdict</th><th>count</th><th>statements</th><th>detail</th></tr>\n");
    cJSON_ArrayForEach(f, findings) {
      const char *id = s_of(f, "signature");
      af_buf_puts(&b, "<tr><td><a href=\"#f-");
      esc(&b, id);
      af_buf_puts(&b, "\">");
      esc(&b, id);
      af_buf_printf(&b, "</a></td><td><span class=\"sw\" style=\"background:%s\"></span>", verdict_color(s_of(f, "verdict")));
      esc(&b, s_of(f, "verdict"));
      af_buf_printf(&b, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td>", d_of(f, "count"), d_of(f, "statements"));
      char d[160];
      snprintf(d, sizeof d, "%s", s_of(f, "detail"));
      esc(&b, d);
      af_buf_puts(&b, "</td></tr>\n");
    }
    af_buf_puts(&b, "</table>\n");
  }
  cJSON_ArrayForEach(f, findings) {
    const char *id = s_of(f, "signature");
    af_buf_puts(&b, "<h3 id=\"f-");
    esc(&b, id);
    af_buf_printf(&b, "\"><span class=\"sw\" style=\"background:%s\"></span>", verdict_color(s_of(f, "verdict")));
    esc(&b, id);
    af_buf_puts(&b, "</h3>\n<p>");
    esc(&b, s_of(f, "verdict"));
    af_buf_puts(&b, ": ");
    esc(&b, s_of(f, "detail"));
    af_buf_puts(&b, "</p>\n");
    /* the minimized program: repro.json as TorchScript, else program.py as it is */
    char fp[4600];
    snprintf(fp, sizeof fp, "%s/findings/%s/repro.json", dir, id);
    ir_program *p = NULL;
    af_err e2;
    char *src = NULL;
    if (codec_read_file(fp, &p, &e2) == 0) {
      src = emit_torchscript(p, "program");
      ir_program_free(p);
    } else {
      snprintf(fp, sizeof fp, "%s/findings/%s/program.py", dir, id);
      src = codec_slurp(fp, NULL, NULL);
    }
    if (src) {
      af_buf_puts(&b, "<pre>");
      esc(&b, src);
      af_buf_puts(&b, "</pre>\n");
      free(src);
    }
    /* the same as an issue-ready snippet of stock API (harness/emit_snippet.h), folded */
    snprintf(fp, sizeof fp, "%s/findings/%s/snippet.py", dir, id);
    if ((src = codec_slurp(fp, NULL, NULL))) {
      af_buf_puts(&b, "<details><summary>snippet.py for an upstream report (stock API; exits 1 while the bug is there)"
                      "</summary><pre>");
      esc(&b, src);
      af_buf_puts(&b, "</pre></details>\n");
      free(src);
    }
    af_buf_puts(&b, "<p class=\"sub\">");
    static const char *const files[] = {"repro.py", "snippet.py", "repro.json", "README.md", "converted.txt", NULL};
    for (int k = 0; files[k]; k++) {
      snprintf(fp, sizeof fp, "%s/findings/%s/%s", dir, id, files[k]);
      struct stat st;
      if (stat(fp, &st) != 0) continue;
      af_buf_puts(&b, "<a href=\"findings/");
      esc(&b, id);
      af_buf_printf(&b, "/%s\">%s</a> ", files[k], files[k]);
    }
    af_buf_puts(&b, "&middot; reproduce: <code>python3 findings/");
    esc(&b, id);
    af_buf_puts(&b, "/repro.py</code></p>\n");
  }
  af_buf_puts(&b, "</body>\n</html>\n");
  snprintf(path, sizeof path, "%s/report.html", dir);
  int rc = codec_write_atomic(path, b.s, b.len, err);
  af_buf_free(&b);
  cJSON_Delete(rep);
  cJSON_Delete(state);
  return rc;
}

/* report.md from report.json, through the campaign writer itself (report.c). */
static int campaign_markdown(const char *dir, af_err *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/report.json", dir);
  cJSON *rep = load_json(path);
  if (!rep) return af_fail(err, "%s: missing or not JSON", path);
  int64_t verdicts[V_COUNT] = {0};
  const cJSON *v = cJSON_GetObjectItem(rep, "verdicts");
  for (const cJSON *e = v ? v->child : NULL; e; e = e->next) {
    oracle_verdict q;
    if (oracle_verdict_parse(e->string, &q) == 0) verdicts[q] = (int64_t)e->valuedouble;
  }
  char *opts = cJSON_GetObjectItem(rep, "options") ? cJSON_PrintUnformatted(cJSON_GetObjectItem(rep, "options")) : NULL;
  report_campaign_figures fig = {(int64_t)d_of(rep, "programs"), d_of(rep, "seconds"), verdicts, opts};
  /* the minimization figures too (a re-rendered report said 0 s before) */
  fig.reduce_seconds = d_of(rep, "reduce_seconds");
  fig.finish_reduce_seconds = d_of(rep, "finish_reduce_seconds");
  fig.finish_seconds = d_of(rep, "finish_seconds");
  fig.finished = (int)d_of(rep, "finished");
  fig.annotate_seconds = d_of(rep, "annotate_seconds");
  int rc = report_write_campaign(dir, &fig, err);
  if (opts) cJSON_free(opts);
  cJSON_Delete(rep);
  return rc;
}

int report_render(const char *dir, af_err *err) {
  char path[4096];
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return af_fail(err, "%s: no such folder", dir);
  DIR *d = opendir(dir);
  struct dirent *e;
  int checks = 0;
  while (d && (e = readdir(d))) checks += strncmp(e->d_name, "check-", 6) == 0 && strstr(e->d_name, ".json") != NULL;
  if (d) closedir(d);
  if (checks) return report_conformance_render(dir, err);
  snprintf(path, sizeof path, "%s/report.json", dir);
  if (stat(path, &st) == 0) {
    /* a campaign folder: not while a campaign (or reduce --deferred) writes it */
    af_dir_lock lk;
    char stale[256];
    if (af_dir_lock_take(dir, "report", &lk, stale, err)) return -1;
    if (stale[0]) fprintf(stderr, "aliasfuzz: %s\n", stale);
    int rc = campaign_markdown(dir, err) || report_campaign_html(dir, err) ? -1 : 0;
    af_dir_lock_release(&lk);
    return rc;
  }
  return af_fail(err, "%s: neither a conformance folder (check-*.json) nor a campaign folder (report.json)", dir);
}
