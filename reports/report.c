/* report.c - see report.h */
#include "report.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  cJSON *findings = load_findings(dir);
  cJSON_AddItemToObject(r, "findings", findings);
  char *json = cJSON_Print(r);
  char path[4096];
  snprintf(path, sizeof path, "%s/report.json", dir);
  int rc = codec_write_atomic(path, json, strlen(json), err);
  cJSON_free(json);

  af_buf b = {0};
  const char *conv = opts ? cJSON_GetStringValue(cJSON_GetObjectItem(opts, "converter")) : "?";
  af_buf_printf(&b, "# aliasfuzz campaign: `%s`\n\n", conv ? conv : "?");
  if (opts) {
    af_buf_printf(&b, "- aliasfuzz %s, converter %s %s, seed %.0f, %.0f job(s)\n",
                  cJSON_GetStringValue(cJSON_GetObjectItem(opts, "aliasfuzz")), conv,
                  cJSON_GetStringValue(cJSON_GetObjectItem(opts, "converter_version")),
                  cJSON_GetNumberValue(cJSON_GetObjectItem(opts, "seed")), cJSON_GetNumberValue(cJSON_GetObjectItem(opts, "jobs")));
  }
  af_buf_printf(&b, "- %lld programs in %.1f s (%.0f programs/s)\n", (long long)fig->programs, fig->seconds,
                fig->seconds > 0 ? (double)fig->programs / fig->seconds : 0.0);
  af_buf_puts(&b, "- verdicts:");
  for (int q = 0; q < V_COUNT; q++)
    if (fig->verdicts[q]) af_buf_printf(&b, " %s %lld;", oracle_verdict_name((oracle_verdict)q), (long long)fig->verdicts[q]);
  af_buf_printf(&b, "\n- distinct findings: %d\n\n", cJSON_GetArraySize(findings));
  if (cJSON_GetArraySize(findings)) {
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
      md_cell(&b, sig_key_line(cJSON_GetStringValue(cJSON_GetObjectItem(f, "detail"))), 120);
      af_buf_puts(&b, " |\n");
    }
  }
  snprintf(path, sizeof path, "%s/report.md", dir);
  if (!rc) rc = codec_write_atomic(path, b.s, b.len, err);
  af_buf_free(&b);
  cJSON_Delete(r);
  return rc;
}
