/* report_junit.c - JUnit XML of a check document (see report_check.h). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "report_check.h"

/* XML text: escapes markup and drops the characters XML 1.0 does not allow (control
 * characters other than tab, newline and carriage return). */
static void xml_text(af_buf *b, const char *s) {
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '&') af_buf_puts(b, "&amp;");
    else if (c == '<') af_buf_puts(b, "&lt;");
    else if (c == '>') af_buf_puts(b, "&gt;");
    else if (c == '"') af_buf_puts(b, "&quot;");
    else if (c == '\'') af_buf_puts(b, "&apos;");
    else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') af_buf_puts(b, "?");
    else af_buf_printf(b, "%c", c);
  }
}

static const char *str(const cJSON *o, const char *k) {
  const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
  return v ? v : "";
}

static int num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItem(o, k);
  return cJSON_IsNumber(v) ? v->valueint : 0;
}

int report_junit_write(const char *path, const char *check_doc, af_err *err) {
  cJSON *doc = cJSON_Parse(check_doc);
  if (!doc) return af_fail(err, "junit: the check document is not JSON");
  cJSON *cases = cJSON_GetObjectItem(doc, "cases"), *sum = cJSON_GetObjectItem(doc, "summary");
  const char *conv = str(doc, "converter");
  int failures = 0, errors = 0, skipped = 0, tests = cJSON_GetArraySize(cases);
  cJSON *c;
  cJSON_ArrayForEach(c, cases) {
    const char *st = str(c, "status");
    if (!strcmp(st, "regression")) {
      if (!strcmp(str(c, "verdict"), "invalid-program")) errors++;
      else failures++;
    } else if (!strcmp(st, "known")) {
      skipped++;
    }
  }
  const cJSON *secs = cJSON_GetObjectItem(doc, "seconds");
  af_buf b = {0};
  af_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  af_buf_printf(&b, "<testsuites name=\"aliasfuzz conformance\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
                tests, failures, errors, skipped, cJSON_IsNumber(secs) ? secs->valuedouble : 0.0);
  af_buf_puts(&b, "  <testsuite name=\"conformance-");
  xml_text(&b, conv);
  af_buf_printf(&b, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n", tests, failures, errors,
                skipped, cJSON_IsNumber(secs) ? secs->valuedouble : 0.0);
  af_buf_puts(&b, "    <properties>\n");
  static const char *const props[] = {"converter", "converter_version", "aliasfuzz", "libtorch", "suite", "expect", "shard", NULL};
  for (int k = 0; props[k]; k++) {
    af_buf_printf(&b, "      <property name=\"%s\" value=\"", props[k]);
    xml_text(&b, str(doc, props[k]));
    af_buf_puts(&b, "\"/>\n");
  }
  af_buf_printf(&b, "      <property name=\"newly_passing\" value=\"%d\"/>\n", num(sum, "newly-passing"));
  af_buf_puts(&b, "    </properties>\n");
  cJSON_ArrayForEach(c, cases) {
    const char *st = str(c, "status"), *verdict = str(c, "verdict");
    const char *expected = cJSON_GetStringValue(cJSON_GetObjectItem(c, "expected"));
    const cJSON *t = cJSON_GetObjectItem(c, "seconds");
    af_buf_puts(&b, "    <testcase classname=\"conformance.");
    xml_text(&b, str(c, "family"));
    af_buf_puts(&b, "\" name=\"");
    xml_text(&b, str(c, "id"));
    af_buf_printf(&b, "\" file=\"");
    xml_text(&b, str(c, "file"));
    af_buf_printf(&b, "\" time=\"%.5f\"", cJSON_IsNumber(t) ? t->valuedouble : 0.0);
    if (!strcmp(st, "pass")) {
      af_buf_puts(&b, "/>\n");
      continue;
    }
    af_buf_puts(&b, ">\n");
    if (!strcmp(st, "regression")) {
      int invalid = !strcmp(verdict, "invalid-program");
      af_buf_printf(&b, "      <%s type=\"", invalid ? "error" : "failure");
      xml_text(&b, verdict);
      af_buf_puts(&b, "\" message=\"");
      af_buf_printf(&b, "expected %s, got %s", expected ? expected : "pass (no expectation)", verdict);
      af_buf_puts(&b, "\">");
      xml_text(&b, str(c, "detail"));
      if (cJSON_GetStringValue(cJSON_GetObjectItem(c, "source"))) {
        af_buf_puts(&b, "\n\n");
        xml_text(&b, str(c, "source"));
      }
      af_buf_printf(&b, "</%s>\n", invalid ? "error" : "failure");
    } else if (!strcmp(st, "known")) {
      af_buf_puts(&b, "      <skipped message=\"known ");
      xml_text(&b, verdict);
      if (*str(c, "reason")) {
        af_buf_puts(&b, ": ");
        xml_text(&b, str(c, "reason"));
      }
      af_buf_puts(&b, "\"/>\n");
    } else {
      af_buf_puts(&b, "      <system-out>newly passing: expected ");
      xml_text(&b, expected ? expected : "?");
      af_buf_puts(&b, "; tighten the expectation file with --update-expect</system-out>\n");
    }
    af_buf_puts(&b, "    </testcase>\n");
  }
  af_buf_puts(&b, "  </testsuite>\n</testsuites>\n");
  int rc = codec_write_atomic(path, b.s, b.len, err);
  af_buf_free(&b);
  cJSON_Delete(doc);
  return rc;
}
