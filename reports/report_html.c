/* report_html.c - self-contained HTML pages: the conformance report (the pass rate per suite
 * family and converter as an SVG chart, the matrix view op x write op, one colored cell per
 * verdict per converter) and the campaign report (report.h: the bug classes first, charts as
 * inline SVG). No script, no stylesheet, image or font from anywhere else: everything is inline,
 * links point into the folder. The text both campaign reports say comes from report.c (Markdown
 * inline text, rendered here by md_html). */
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
      {"wrong-gradient", "#a40e26"}, {"autograd-rejects", "#953800"}, {"autograd-accepts", "#6639ba"},
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
    "th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
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
    ".charts{display:flex;flex-wrap:wrap;gap:8px 28px}figure{margin:0;max-width:520px}figcaption{font-weight:600;font-size:14px}\n"
    "table.classes td:nth-child(3){white-space:nowrap}\n"
    "svg .ax{font-size:11px;fill:#59636e}.g0{color:#cf222e;font-weight:bold}.g1{color:#59636e}.g2{color:#9a6700}.g3{color:#8c959f}\n"
    "section{border-top:1px solid #eaeef2;margin-top:14px}ul{margin:4px 0;padding-left:22px}li{margin:2px 0}\n"
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

/* ---- charts: inline SVG, drawn here ---- */

typedef struct chart {
  int W, H, L, R, T, B;
  double xmax, ymax;
} chart;

static double cx(const chart *c, double x) { return c->L + (c->W - c->L - c->R) * (c->xmax > 0 ? x / c->xmax : 0); }
static double cy(const chart *c, double y) { return c->T + (c->H - c->T - c->B) * (1 - (c->ymax > 0 ? y / c->ymax : 0)); }

/* An axis maximum at or above v whose quarters are round (1, 2, 3, 4, 5, 6 or 8 times a power of ten). */
static double nice_max(double v) {
  if (!(v > 0)) return 4;
  double q = v / 4, p = 1;
  while (p * 10 <= q) p *= 10;
  while (p > q) p /= 10;
  static const double steps[] = {1, 2, 3, 4, 5, 6, 8, 10};
  for (int i = 0; i < 8; i++)
    if (steps[i] * p >= q) return 4 * steps[i] * p;
  return 40 * p;
}

/* Opens an SVG line chart (frame, grid, axis labels) of xmax seconds by ymax units of ylabel. */
static void chart_open(af_buf *b, chart *c, double xmax, double ymax, const char *label, const char *ylabel) {
  *c = (chart){480, 220, 52, 14, 12, 34, xmax > 0 ? xmax : 1, nice_max(ymax)};
  af_buf_printf(b, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", c->W, c->H, c->W, c->H);
  esc(b, label);
  af_buf_printf(b, "\">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f6f8fa\" stroke=\"#d0d7de\"/>\n", c->L, c->T,
                c->W - c->L - c->R, c->H - c->T - c->B);
  for (int g = 0; g <= 4; g++) {
    double y = cy(c, c->ymax * g / 4.0), x = cx(c, c->xmax * g / 4.0), vy = c->ymax * g / 4.0;
    af_buf_printf(b, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d0d7de\"/><text x=\"%d\" y=\"%.1f\" class=\"ax\" "
                     "text-anchor=\"end\">%g</text>\n",
                  c->L, c->W - c->R, y, y, c->L - 5, y + 4, vy);
    af_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" class=\"ax\" text-anchor=\"middle\">%.0f s</text>\n", x, c->H - c->B + 15,
                  c->xmax * g / 4.0);
  }
  af_buf_printf(b, "<text x=\"%d\" y=\"%d\" class=\"ax\">", c->L + 6, c->T + 14);
  esc(b, ylabel);
  af_buf_puts(b, "</text>\n");
}

/* A polyline through n points; step: horizontal then vertical (a count that jumps). */
static void chart_line(af_buf *b, const chart *c, int n, const double *x, const double *y, const char *color, int step) {
  af_buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
  for (int i = 0; i < n; i++) {
    if (step && i) af_buf_printf(b, "%.1f,%.1f ", cx(c, x[i]), cy(c, y[i - 1]));
    af_buf_printf(b, "%.1f,%.1f ", cx(c, x[i]), cy(c, y[i]));
  }
  af_buf_puts(b, "\"/>\n");
}

/* A legend under a chart: a swatch and a label per series. */
static void legend_item(af_buf *b, const char *color, const char *label) {
  af_buf_printf(b, "<span class=\"sw\" style=\"background:%s\"></span>", color);
  esc(b, label);
  af_buf_puts(b, " ");
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
          if (*s_of(c, "detail")) { /* the message line, not TorchScript's traceback head */
            size_t n;
            const char *l = report_message_line(s_of(c, "detail"), &n);
            char d[200];
            snprintf(d, sizeof d, " - %.*s", (int)n, l);
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

static const char *const converter_colors[] = {"#0969da", "#e16f24", "#8250df", "#1a7f37", "#cf222e", "#bf8700", "#1b7c83", "#bf3989"};

/* Pass rate per suite family, per converter: horizontal bars, one group per family with cases. */
static void family_chart(af_buf *b, const cJSON *checks) {
  int nconv = cJSON_GetArraySize(checks), rows = 0, groups = 0;
  if (!nconv) return;
  const int W = 640, L = 130, R = 64, bar = 10, gap = 8;
  af_buf body = {0};
  int y = 4;
  for (int f = 0; report_families[f]; f++) {
    int any = 0, k = 0, y0 = y;
    const cJSON *doc;
    cJSON_ArrayForEach(doc, checks) {
      int total = 0, pass = 0;
      const cJSON *c;
      cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        if (strcmp(s_of(c, "family"), report_families[f])) continue;
        total++;
        pass += !strcmp(s_of(c, "verdict"), "pass");
      }
      const char *color = converter_colors[k++ % (int)(sizeof converter_colors / sizeof *converter_colors)];
      if (total) {
        double w = (W - L - R) * (double)pass / total;
        af_buf_printf(&body, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#eaeef2\"/><rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
                             "height=\"%d\" fill=\"%s\"><title>",
                      L, y, W - L - R, bar, L, y, w, bar, color);
        esc(&body, s_of(doc, "converter"));
        af_buf_printf(&body, ", %s: %d of %d pass</title></rect><text x=\"%.1f\" y=\"%d\" class=\"ax\">%.0f%%</text>\n", report_families[f],
                      pass, total, L + w + 4, y + bar - 1, 100.0 * pass / total);
        any = 1;
      }
      y += bar + 1;
      rows++;
    }
    if (!any) {
      y = y0;
      continue;
    }
    af_buf_printf(&body, "<text x=\"%d\" y=\"%d\" class=\"ax\" text-anchor=\"end\">%s</text>\n", L - 6, y0 + (y - y0) / 2 + 4,
                  report_families[f]);
    y += gap;
    groups++;
  }
  if (!groups) {
    af_buf_free(&body);
    return;
  }
  af_buf_printf(b, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"pass rate per suite family, "
                   "per converter\">\n",
                W, y, W, y);
  af_buf_puts(b, body.s);
  af_buf_puts(b, "</svg>\n<p class=\"sub\">");
  const cJSON *doc;
  int k = 0;
  cJSON_ArrayForEach(doc, checks) legend_item(b, converter_colors[k++ % (int)(sizeof converter_colors / sizeof *converter_colors)], s_of(doc, "converter"));
  af_buf_puts(b, "</p>\n");
  af_buf_free(&body);
  (void)rows;
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
  family_chart(&b, checks);
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

/* Markdown inline text (report.h: `code`, **bold**, [text](link), "\|") as HTML, escaped. */
static void md_html(af_buf *b, const char *s, size_t n) {
  const char *end = s + n;
  while (s < end) {
    const char *close;
    if (*s == '\\' && s + 1 < end && s[1] == '|') {
      af_buf_puts(b, "|");
      s += 2;
    } else if (*s == '`' && (close = memchr(s + 1, '`', (size_t)(end - s - 1)))) {
      af_buf_puts(b, "<code>");
      for (const char *p = s + 1; p < close; p++) {
        if (*p == '\\' && p + 1 < close && p[1] == '|') p++;
        char one[2] = {*p, 0};
        esc(b, one);
      }
      af_buf_puts(b, "</code>");
      s = close + 1;
    } else if (!strncmp(s, "**", 2) && end - s > 2 && (close = strstr(s + 2, "**")) && close < end) {
      af_buf_puts(b, "<strong>");
      md_html(b, s + 2, (size_t)(close - s - 2));
      af_buf_puts(b, "</strong>");
      s = close + 2;
    } else if (*s == '[' && (close = memchr(s, ']', (size_t)(end - s))) && close + 1 < end && close[1] == '(' &&
               memchr(close, ')', (size_t)(end - close))) {
      const char *href = close + 2, *href_end = memchr(close, ')', (size_t)(end - close));
      char *h = af_xcalloc((size_t)(href_end - href) + 1, 1);
      memcpy(h, href, (size_t)(href_end - href));
      af_buf_puts(b, "<a href=\"");
      esc(b, h);
      af_buf_puts(b, "\">");
      md_html(b, s + 1, (size_t)(close - s - 1));
      af_buf_puts(b, "</a>");
      free(h);
      s = href_end + 1;
    } else {
      char one[2] = {*s++, 0};
      esc(b, one);
    }
  }
}

/* "- x" lines (and "  - y" under one) of Markdown inline text as a nested list. */
static void md_list_html(af_buf *b, const char *text) {
  int depth = 0;
  af_buf_puts(b, "<ul>");
  for (const char *line = text; line && *line;) {
    const char *e = strchr(line, '\n');
    size_t n = e ? (size_t)(e - line) : strlen(line);
    int d = !strncmp(line, "  - ", 4) ? 1 : 0;
    const char *t = line + (d ? 4 : !strncmp(line, "- ", 2) ? 2 : 0);
    if (d > depth) af_buf_puts(b, "<ul>");
    else if (d < depth) af_buf_puts(b, "</li></ul></li>");
    else if (line != text) af_buf_puts(b, "</li>");
    depth = d;
    af_buf_puts(b, "<li>");
    md_html(b, t, n - (size_t)(t - line));
    line = e ? e + 1 : NULL;
  }
  af_buf_puts(b, depth ? "</li></ul></li></ul>\n" : "</li></ul>\n");
}

/* A table of the items of list (report.h's columns), rows linked to their class sections when
 * link; items of class group skip left out (REPORT_GROUPS: none). */
static void html_table(af_buf *b, const char *cls, const report_column *cols, const cJSON *list, int link, report_group skip) {
  af_buf_printf(b, "<table class=\"%s\">\n<tr>", cls);
  if (link) af_buf_puts(b, "<th>#</th><th>status</th>");
  for (int k = 0; cols[k].header; k++) {
    af_buf_puts(b, "<th>");
    esc(b, cols[k].header);
    af_buf_puts(b, "</th>");
  }
  af_buf_puts(b, "</tr>\n");
  int n = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, list) {
    if (skip != REPORT_GROUPS && report_class_group(c) == skip) continue;
    af_buf_puts(b, "<tr>");
    if (link) {
      static const char *const status[] = {"new", "known", "limit", "artifact"};
      af_buf_printf(b, "<td class=\"n\"><a href=\"#");
      esc(b, s_of(c, "id"));
      af_buf_printf(b, "\">%d</a></td><td class=\"g%d\">%s</td>", ++n, (int)report_class_group(c), status[report_class_group(c)]);
    }
    for (int k = 0; cols[k].header; k++) {
      af_buf cell = {0};
      cols[k].cell(&cell, c);
      af_buf_puts(b, cols[k].numeric ? "<td class=\"n\">" : "<td>");
      if (k == 0 && link) af_buf_printf(b, "<span class=\"sw\" style=\"background:%s\"></span>", verdict_color(s_of(c, "verdict")));
      md_html(b, cell.s ? cell.s : "", cell.len);
      af_buf_puts(b, "</td>");
      af_buf_free(&cell);
    }
    af_buf_puts(b, "</tr>\n");
  }
  af_buf_puts(b, "</table>\n");
}

/* A file of a finding folder in a <pre> (open) or folded under summary; nothing when missing. */
static int finding_file(af_buf *b, const char *dir, const char *id, const char *file, const char *summary) {
  char fp[4600];
  snprintf(fp, sizeof fp, "%s/findings/%s/%s", dir, id, file);
  char *src = codec_slurp(fp, NULL, NULL);
  if (!src) return 0;
  if (summary) af_buf_printf(b, "<details><summary>%s</summary>", summary);
  af_buf_puts(b, "<pre>");
  esc(b, src);
  af_buf_puts(b, summary ? "</pre></details>\n" : "</pre>\n");
  free(src);
  return 1;
}

/* The links to a finding folder's files and its repro command. */
static void finding_links(af_buf *b, const char *dir, const char *id) {
  static const char *const files[] = {"repro.py", "snippet.py", "repro.json", "README.md", "converted.txt", NULL};
  af_buf_puts(b, "<p class=\"sub\">");
  for (int k = 0; files[k]; k++) {
    char fp[4600];
    struct stat st;
    snprintf(fp, sizeof fp, "%s/findings/%s/%s", dir, id, files[k]);
    if (stat(fp, &st) != 0) continue;
    af_buf_puts(b, "<a href=\"findings/");
    esc(b, id);
    af_buf_printf(b, "/%s\">%s</a> ", files[k], files[k]);
  }
  af_buf_puts(b, "&middot; reproduce: <code>python3 findings/");
  esc(b, id);
  af_buf_puts(b, "/repro.py</code></p>\n");
}

static const cJSON *finding_by_id(const cJSON *findings, const char *id) {
  const cJSON *f;
  cJSON_ArrayForEach(f, findings) if (!strcmp(s_of(f, "signature"), id)) return f;
  return NULL;
}

/* One finding's row: id (linked to its README), verdict, count, statements, its message line. */
static void finding_row(af_buf *b, const cJSON *f, const char *id) {
  af_buf_puts(b, "<tr><td><a href=\"findings/");
  esc(b, id);
  af_buf_puts(b, "/README.md\">");
  esc(b, id);
  af_buf_puts(b, "</a></td>");
  if (!f) {
    af_buf_puts(b, "<td colspan=\"4\">(no finding.json)</td></tr>\n");
    return;
  }
  af_buf_printf(b, "<td><span class=\"sw\" style=\"background:%s\"></span>", verdict_color(s_of(f, "verdict")));
  esc(b, s_of(f, "verdict"));
  af_buf_printf(b, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td>", d_of(f, "count"), d_of(f, "statements"));
  size_t n;
  const char *l = report_message_line(s_of(f, "detail"), &n);
  char line[240];
  snprintf(line, sizeof line, "%.*s", (int)n, l);
  esc(b, line);
  af_buf_puts(b, "</td></tr>\n");
}

static const char findings_head[] = "<table>\n<tr><th>finding</th><th>verdict</th><th>count</th><th>statements</th><th>gave</th></tr>\n";

static void class_html(af_buf *b, const char *dir, const cJSON *findings, int n, const cJSON *c) {
  const char *id = s_of(c, "id"), *smallest = s_of(c, "smallest");
  af_buf title = {0};
  report_class_title(&title, c);
  af_buf_puts(b, "<section id=\"");
  esc(b, id);
  af_buf_printf(b, "\"><h3><span class=\"sw\" style=\"background:%s\"></span>%d. ", verdict_color(s_of(c, "verdict")), n);
  md_html(b, title.s, title.len);
  af_buf_free(&title);
  af_buf_puts(b, "</h3>\n<p class=\"sub\"><code>");
  esc(b, id);
  af_buf_printf(b, "</code>: %.0f program(s), %d finding(s), smallest %.0f statement(s)", d_of(c, "count"),
                cJSON_GetArraySize(cJSON_GetObjectItem(c, "findings")), d_of(c, "statements"));
  const cJSON *first = cJSON_GetObjectItem(c, "first");
  if (first) {
    af_buf_printf(b, ", first seen at iteration %.0f (program seed ", d_of(first, "iteration"));
    esc(b, s_of(first, "seed"));
    af_buf_puts(b, ")");
  }
  af_buf_puts(b, "</p>\n");
  if (*smallest) {
    finding_file(b, dir, smallest, "program.py", NULL);
    finding_file(b, dir, smallest, "snippet.py", REPORT_SNIPPET_SUMMARY);
  }
  af_buf facts = {0};
  report_class_facts(&facts, c);
  md_list_html(b, facts.s ? facts.s : "");
  af_buf_free(&facts);
  if (*smallest) finding_links(b, dir, smallest);
  af_buf_printf(b, "<details><summary>its %d finding(s)</summary>", cJSON_GetArraySize(cJSON_GetObjectItem(c, "findings")));
  af_buf_puts(b, findings_head);
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItem(c, "findings")) finding_row(b, finding_by_id(findings, f->valuestring), f->valuestring);
  af_buf_puts(b, "</table></details>\n</section>\n");
}

/* The seconds into the campaign at which iteration it ran: history's samples ([seconds,
 * programs, ...]) interpolated (iterations are numbered across jobs); else the campaign's
 * average rate. */
static double time_of_iteration(const cJSON *history, double it, double programs, double seconds) {
  double pt = 0, pn = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, history) {
    double t = cJSON_GetNumberValue(cJSON_GetArrayItem(s, 0)), n = cJSON_GetNumberValue(cJSON_GetArrayItem(s, 1));
    if (t != t || n != n) continue;
    if (n >= it + 1) return n > pn ? pt + (t - pt) * (it + 1 - pn) / (n - pn) : t;
    pt = t, pn = n;
  }
  if (pn > 0 && pt > 0) return pt; /* past the last sample */
  return programs > 0 ? seconds * (it + 1) / programs : 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Bug classes (artifacts left out) and findings over time, each counted from when its first
 * program ran. */
static void classes_chart(af_buf *b, const cJSON *rep, const cJSON *history, double tmax) {
  const cJSON *lists[2] = {cJSON_GetObjectItem(rep, "findings"), cJSON_GetObjectItem(rep, "classes")};
  static const char *const colors[2] = {"#8c959f", "#cf222e"}, *const names[2] = {"findings", "bug classes"};
  int n[2] = {0, 0};
  double *t[2], *y[2], ymax = 1;
  for (int k = 0; k < 2; k++) {
    int m = cJSON_GetArraySize(lists[k]);
    t[k] = af_xcalloc((size_t)m + 2, sizeof(double));
    y[k] = af_xcalloc((size_t)m + 2, sizeof(double));
    const cJSON *e;
    cJSON_ArrayForEach(e, lists[k]) {
      const cJSON *first = cJSON_GetObjectItem(e, "first");
      if (!first || (k == 1 && report_class_group(e) >= REPORT_LIMIT)) continue; /* bug classes: no limits, no artifacts */
      t[k][n[k]++ + 1] = time_of_iteration(history, d_of(first, "iteration"), d_of(rep, "programs"), tmax);
    }
    qsort(t[k] + 1, (size_t)n[k], sizeof(double), cmp_double);
    for (int i = 1; i <= n[k]; i++) y[k][i] = i;
    t[k][n[k] + 1] = tmax, y[k][n[k] + 1] = n[k];
    if (n[k] > ymax) ymax = n[k];
  }
  chart c;
  chart_open(b, &c, tmax, ymax, "bug classes and findings over the campaign", "count");
  for (int k = 0; k < 2; k++) chart_line(b, &c, n[k] + 2, t[k], y[k], colors[k], 1);
  af_buf_puts(b, "</svg>\n<p class=\"sub\">");
  for (int k = 1; k >= 0; k--) {
    char label[64];
    snprintf(label, sizeof label, "%s (%d)", names[k], n[k]);
    legend_item(b, colors[k], label);
    free(t[k]);
    free(y[k]);
  }
  af_buf_puts(b, "<br>counted from when each one's first program ran</p>\n");
}

/* Verdict counts over time, stacked: the third entry of history's samples ({verdict: programs}). */
static void verdicts_chart(af_buf *b, const cJSON *history, double tmax) {
  int n = 0;
  const cJSON *s;
  double ymax = 0;
  cJSON_ArrayForEach(s, history) {
    if (!cJSON_IsObject(cJSON_GetArrayItem(s, 2))) continue;
    n++;
    double tot = 0;
    for (const cJSON *e = cJSON_GetArrayItem(s, 2)->child; e; e = e->next) tot += cJSON_GetNumberValue(e);
    if (tot > ymax) ymax = tot;
  }
  if (!n) {
    af_buf_puts(b, "<p class=\"sub\">This campaign recorded no verdict counts over time (the third entry of state.json's "
                   "\"history\" samples, which campaigns made before issue 30 lack).</p>\n");
    return;
  }
  chart c;
  chart_open(b, &c, tmax, ymax, "verdict counts over the campaign, stacked", "programs");
  double *below = af_xcalloc((size_t)n + 1, sizeof(double)), *ts = af_xcalloc((size_t)n + 1, sizeof(double));
  int i = 0;
  cJSON_ArrayForEach(s, history) if (cJSON_IsObject(cJSON_GetArrayItem(s, 2))) ts[i++] = cJSON_GetNumberValue(cJSON_GetArrayItem(s, 0));
  int shown[V_COUNT] = {0};
  for (int v = V_COUNT - 1; v >= 0; v--) { /* pass on top */
    const char *name = oracle_verdict_name((oracle_verdict)v);
    double *top = af_xcalloc((size_t)n + 1, sizeof(double));
    int any = 0;
    i = 0;
    cJSON_ArrayForEach(s, history) {
      if (!cJSON_IsObject(cJSON_GetArrayItem(s, 2))) continue;
      double k = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(s, 2), name));
      if (k != k) k = 0;
      any |= k > 0;
      top[i] = below[i] + k;
      i++;
    }
    if (any) {
      shown[v] = 1;
      af_buf_printf(b, "<polygon fill=\"%s\" fill-opacity=\"%s\" points=\"%.1f,%.1f ", verdict_color(name), v == V_PASS ? "0.35" : "0.85",
                    cx(&c, 0), cy(&c, 0));
      for (i = 0; i < n; i++) af_buf_printf(b, "%.1f,%.1f ", cx(&c, ts[i]), cy(&c, top[i]));
      for (i = n - 1; i >= 0; i--) af_buf_printf(b, "%.1f,%.1f ", cx(&c, ts[i]), cy(&c, below[i]));
      af_buf_puts(b, "\"/>\n");
      memcpy(below, top, sizeof(double) * (size_t)n);
    }
    free(top);
  }
  af_buf_puts(b, "</svg>\n<p class=\"sub\">");
  for (int v = 0; v < V_COUNT; v++)
    if (shown[v]) legend_item(b, verdict_color(oracle_verdict_name((oracle_verdict)v)), oracle_verdict_name((oracle_verdict)v));
  af_buf_puts(b, "</p>\n");
  free(below);
  free(ts);
}

/* Programs per second between consecutive samples of history ([[seconds, programs, ...], ...]). */
static void rate_chart(af_buf *b, const cJSON *history, double tmax) {
  int n = cJSON_GetArraySize(history), k = 0;
  double *t = af_xcalloc((size_t)n + 1, sizeof(double)), *r = af_xcalloc((size_t)n + 1, sizeof(double));
  double pt = 0, pp = 0, rmax = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, history) {
    double ts = cJSON_GetNumberValue(cJSON_GetArrayItem(s, 0)), ps = cJSON_GetNumberValue(cJSON_GetArrayItem(s, 1));
    if (ts != ts || ps != ps || ts <= pt) continue;
    t[k] = ts;
    r[k] = ps > pp ? (ps - pp) / (ts - pt) : 0;
    if (r[k] > rmax) rmax = r[k];
    pt = ts, pp = ps, k++;
  }
  if (k == 1) { /* one sample: the average from the start */
    t[1] = t[0], r[1] = r[0], t[0] = 0, k = 2;
  }
  if (k < 1) af_buf_puts(b, "<p class=\"sub\">Not enough samples for a chart.</p>\n");
  else {
    chart c;
    chart_open(b, &c, tmax > t[k - 1] ? tmax : t[k - 1], rmax, "programs per second over the campaign", "programs/s");
    chart_line(b, &c, k, t, r, "#0969da", 0);
    af_buf_puts(b, "</svg>\n");
  }
  free(t);
  free(r);
}

static const char *const time_colors[REPORT_TIME_PARTS] = {"#0969da", "#8250df", "#e16f24", "#bf8700", "#cf222e", "#1b7c83", "#8c959f"};

/* Where the campaign's time went (report.h's report_time_split) as one stacked bar. */
static void time_chart(af_buf *b, const cJSON *rep) {
  double part[REPORT_TIME_PARTS], total = 0;
  report_time_split(rep, part);
  for (int k = 0; k < REPORT_TIME_PARTS; k++) total += part[k];
  if (!(total > 0)) {
    af_buf_puts(b, "<p class=\"sub\">No time recorded.</p>\n");
    return;
  }
  const int W = 480, L = 4, BW = W - 2 * L;
  af_buf_printf(b, "<svg width=\"%d\" height=\"40\" viewBox=\"0 0 %d 40\" role=\"img\" aria-label=\"where the campaign's time went\">\n", W, W);
  double x = L;
  for (int k = 0; k < REPORT_TIME_PARTS; k++) {
    if (part[k] < 0.05) continue;
    double w = BW * part[k] / total;
    af_buf_printf(b, "<rect x=\"%.1f\" y=\"6\" width=\"%.1f\" height=\"28\" fill=\"%s\"><title>", x, w, time_colors[k]);
    esc(b, report_time_part[k]);
    af_buf_printf(b, ": %.1f s</title></rect>\n", part[k]);
    x += w;
  }
  af_buf_puts(b, "</svg>\n<table class=\"split\">\n");
  for (int k = 0; k < REPORT_TIME_PARTS; k++) {
    if (part[k] < 0.05) continue;
    af_buf_printf(b, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>", time_colors[k]);
    esc(b, report_time_part[k]);
    af_buf_printf(b, "</td><td class=\"n\">%.1f s</td><td class=\"n\">%.0f%%</td></tr>\n", part[k], 100.0 * part[k] / total);
  }
  af_buf_puts(b, "</table>\n<p class=\"sub\">in job-seconds: the search's wall time times its jobs, then the steps after it</p>\n");
}

/* The campaign over time: classes and findings, verdicts, where the time went, programs per
 * second (from report.json's "history", else state.json's). */
static void campaign_charts(af_buf *b, const cJSON *rep, const cJSON *state) {
  const cJSON *hist = cJSON_GetObjectItem(rep, "history");
  if (!cJSON_IsArray(hist)) hist = cJSON_GetObjectItem(state, "history");
  double tmax = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, hist) if (cJSON_GetNumberValue(cJSON_GetArrayItem(s, 0)) > tmax) tmax = cJSON_GetNumberValue(cJSON_GetArrayItem(s, 0));
  if (!(tmax > 0)) tmax = d_of(rep, "seconds");
  af_buf_puts(b, "<h2>The campaign</h2>\n<div class=\"charts\">\n<figure><figcaption>Bug classes and findings</figcaption>\n");
  classes_chart(b, rep, hist, tmax);
  af_buf_puts(b, "</figure>\n<figure><figcaption>Verdicts</figcaption>\n");
  verdicts_chart(b, hist, tmax);
  af_buf_puts(b, "</figure>\n<figure><figcaption>Where the time went</figcaption>\n");
  time_chart(b, rep);
  af_buf_puts(b, "</figure>\n<figure><figcaption>Programs per second</figcaption>\n");
  if (cJSON_IsArray(hist)) rate_chart(b, hist, tmax);
  else
    af_buf_printf(b, "<p class=\"sub\">This campaign recorded no time series (no \"history\" in report.json or state.json); "
                      "its average was %.1f programs/s.</p>\n",
                  d_of(rep, "programs_per_second"));
  af_buf_puts(b, "</figure>\n</div>\n");
}

/* Each class, group by group (new, known, limits, artifacts), each group with its intro. */
static void campaign_classes(af_buf *b, const char *dir, const cJSON *classes, const cJSON *findings) {
  const cJSON *c;
  int n = 0;
  for (int g = 0; g < REPORT_GROUPS; g++) {
    if (!report_count_group(classes, (report_group)g)) continue;
    af_buf_puts(b, "<h2>");
    af_buf t = {0};
    report_group_intro(&t, classes, (report_group)g, 1);
    md_html(b, t.s, t.len);
    af_buf_free(&t);
    af_buf_puts(b, "</h2>\n<p class=\"sub\">");
    report_group_intro(&t, classes, (report_group)g, 0);
    md_html(b, t.s, t.len);
    af_buf_free(&t);
    af_buf_puts(b, "</p>\n");
    cJSON_ArrayForEach(c, classes) if (report_class_group(c) == (report_group)g) class_html(b, dir, findings, ++n, c);
  }
}

/* The failing programs in no class yet (the deferred queue), when there are some. */
static void campaign_deferred(af_buf *b, const cJSON *rep) {
  const cJSON *deferred = cJSON_GetObjectItem(rep, "deferred");
  if (deferred && deferred->child) {
    af_buf_puts(b, "<h2>Failing programs in no class yet</h2>\n<p class=\"sub\">Not minimized (the budget and its floor ran out); "
                    "<code>aliasfuzz reduce --deferred DIR</code> minimizes them into classes.</p>\n<table>\n<tr><th>quick key</th>"
                    "<th>programs</th><th>kept as</th></tr>\n");
    for (const cJSON *e = deferred->child; e; e = e->next) {
      af_buf_puts(b, "<tr><td><code>");
      esc(b, e->string);
      af_buf_printf(b, "</code></td><td class=\"n\">%.0f</td><td><a href=\"", d_of(e, "count"));
      esc(b, s_of(e, "file"));
      af_buf_puts(b, "\">");
      esc(b, s_of(e, "file"));
      af_buf_puts(b, "</a></td></tr>\n");
    }
    af_buf_puts(b, "</table>\n");
  }
}

/* Findings that no class, flaky or harness list holds (a campaign before classes): in full. */
static void campaign_loose_findings(af_buf *b, const char *dir, const cJSON *rep, const cJSON *classes,
                                    const cJSON *findings) {
  const cJSON *c, *f;
  int loose = 0;
  cJSON_ArrayForEach(f, findings) {
    const char *id = s_of(f, "signature");
    int held = 0;
    cJSON_ArrayForEach(c, classes) {
      const cJSON *m;
      cJSON_ArrayForEach(m, cJSON_GetObjectItem(c, "findings")) held |= cJSON_IsString(m) && !strcmp(m->valuestring, id);
    }
    for (int k = 0; k < 2; k++) cJSON_ArrayForEach(c, cJSON_GetObjectItem(rep, k ? "harness" : "flaky")) held |= !strcmp(s_of(c, "finding"), id);
    if (held) continue;
    if (!loose++) af_buf_puts(b, "<h2>Findings in no class</h2>\n");
    af_buf_puts(b, "<h3 id=\"f-");
    esc(b, id);
    af_buf_printf(b, "\"><span class=\"sw\" style=\"background:%s\"></span>", verdict_color(s_of(f, "verdict")));
    esc(b, id);
    af_buf_puts(b, "</h3>\n");
    af_buf facts = {0};
    report_finding_facts(&facts, f);
    md_list_html(b, facts.s ? facts.s : "");
    af_buf_free(&facts);
    /* the minimized program: repro.json as TorchScript, else program.py as it is */
    char fp[4600];
    snprintf(fp, sizeof fp, "%s/findings/%s/repro.json", dir, id);
    ir_program *p = NULL;
    af_err e2;
    if (codec_read_file(fp, &p, &e2) == 0) {
      char *src = emit_torchscript(p, "program");
      ir_program_free(p);
      af_buf_puts(b, "<pre>");
      esc(b, src);
      af_buf_puts(b, "</pre>\n");
      free(src);
    } else finding_file(b, dir, id, "program.py", NULL);
    finding_file(b, dir, id, "snippet.py", REPORT_SNIPPET_SUMMARY);
    finding_links(b, dir, id);
  }
}

int report_campaign_html(const char *dir, af_err *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/report.json", dir);
  cJSON *rep = load_json(path);
  if (!rep) return af_fail(err, "%s: missing or not JSON (a campaign writes it when it ends)", path);
  snprintf(path, sizeof path, "%s/state.json", dir);
  cJSON *state = load_json(path);
  /* the time split's figures that only state.json keeps (report_time_split) */
  static const char *const from_state[] = {"reduce_deferred_seconds", "generalize_seconds", "baseline_seconds", NULL};
  for (int k = 0; from_state[k]; k++)
    if (cJSON_IsNumber(cJSON_GetObjectItem(state, from_state[k])) && !cJSON_GetObjectItem(rep, from_state[k]))
      cJSON_AddNumberToObject(rep, from_state[k], d_of(state, from_state[k]));
  const cJSON *opts = cJSON_GetObjectItem(rep, "options"), *classes = cJSON_GetObjectItem(rep, "classes");
  const cJSON *findings = cJSON_GetObjectItem(rep, "findings"), *f;
  af_buf b = {0};
  char title[256];
  snprintf(title, sizeof title, "aliasfuzz campaign: %s", s_of(opts, "converter"));
  page_start(&b, title);
  af_buf_puts(&b, "<h1>");
  esc(&b, title);
  af_buf_puts(&b, "</h1>\n");
  af_buf head = {0};
  report_campaign_headline(&head, dir, rep);
  md_list_html(&b, head.s ? head.s : "");
  af_buf_free(&head);
  /* the classes first, in report.md's order (new, known, limits, artifacts) */
  int nart = report_count_group(classes, REPORT_ARTIFACT), nlim = report_count_group(classes, REPORT_LIMIT);
  af_buf_printf(&b, "<h2 id=\"classes\">Bug classes (%d)</h2>\n", cJSON_GetArraySize(classes) - nart - nlim);
  if (cJSON_GetArraySize(classes)) html_table(&b, "classes", report_class_columns, classes, 1, REPORT_GROUPS);
  else af_buf_puts(&b, "<p>No bug class.</p>\n");
  campaign_charts(&b, rep, state);
  campaign_classes(&b, dir, classes, findings);
  for (int k = 0; k < 2; k++) {
    const cJSON *list = cJSON_GetObjectItem(rep, k ? "harness" : "flaky");
    if (!cJSON_GetArraySize(list)) continue;
    af_buf_printf(&b, "<h2>%s (%d)</h2>\n<p class=\"sub\">%s</p>\n", k ? "Harness findings" : "Flaky findings", cJSON_GetArraySize(list),
                  k ? report_harness_intro : report_flaky_intro);
    html_table(&b, "apart", k ? report_harness_columns : report_flaky_columns, list, 0, REPORT_GROUPS);
  }
  campaign_deferred(&b, rep);
  campaign_loose_findings(&b, dir, rep, classes, findings);
  /* every finding, folded */
  af_buf_printf(&b, "<h2>Figures</h2>\n<details><summary>all %d finding(s)</summary>", cJSON_GetArraySize(findings));
  af_buf_puts(&b, findings_head);
  cJSON_ArrayForEach(f, findings) finding_row(&b, f, s_of(f, "signature"));
  af_buf_puts(&b, "</table></details>\n<table>\n");
  const cJSON *v = cJSON_GetObjectItem(rep, "verdicts");
  for (const cJSON *e = v ? v->child : NULL; e; e = e->next) {
    af_buf_printf(&b, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>", verdict_color(e->string));
    esc(&b, e->string);
    af_buf_printf(&b, "</td><td class=\"n\">%.0f</td></tr>\n", e->valuedouble);
  }
  af_buf_puts(&b, "</table>\n</body>\n</html>\n");
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

/* (here, not in report_check.c: the Markdown and check documents are report_check.c's, and this
 * file builds on it, never the other way round) */
int report_conformance_render(const char *dir, af_err *err) {
  char *md = report_conformance_markdown(dir, err);
  if (!md) return -1;
  char path[4096];
  snprintf(path, sizeof path, "%s/conformance.md", dir);
  int rc = codec_write_atomic(path, md, strlen(md), err);
  free(md);
  if (rc) return -1;
  cJSON *checks = report_load_checks(dir, err);
  if (!checks) return -1;
  rc = report_conformance_html(dir, checks, err);
  cJSON_Delete(checks);
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
