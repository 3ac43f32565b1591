/* report_check.h - conformance reports: the check document, Markdown (fit for a PR comment),
 * one self-contained HTML page, JUnit XML.
 *
 * A run of `aliasfuzz check` is one JSON document, "aliasfuzz-check/1", written as
 * REPORTDIR/check-<converter>.json:
 *   {"format": "aliasfuzz-check/1", "converter": "jit", "converter_version": "...",
 *    "aliasfuzz": "0.1.0", "libtorch": "1.13.0", "suite": "corpus/conformance",
 *    "expect": "corpus/expectations/jit.json", "shard": "1/1", "seconds": 2.1,
 *    "summary": {"cases": 1973, "pass": 1900, "known": 70, "regression": 0, "newly-passing": 3,
 *                "verdicts": {"pass": 1903, "value-mismatch": 70}},
 *    "cases": [{"id": "mx-slice-add_-through", "file": "corpus/conformance/....json",
 *               "family": "matrix-through", "view": "slice", "write": "add_",
 *               "verdict": "pass", "expected": "pass", "status": "pass",
 *               "detail": null, "reason": null, "seconds": 0.001,
 *               "source": "def program(...)" (TorchScript; for cases that did not pass)}]}
 * status of a case:
 *   pass           expected pass, got pass
 *   known          expected a failure and got the same verdict (a known bug)
 *   newly-passing  expected a failure, got pass: the expectation file can be tightened
 *   regression     expected pass and got something else, or another failure verdict than the
 *                  expected one, or no expectation and no pass, or invalid-program (eager
 *                  rejected the case: a suite bug)
 * A report folder may hold check files of several converters; the Markdown and HTML reports
 * show them side by side. */
#ifndef REPORT_CHECK_H
#define REPORT_CHECK_H

#include "../harness/af.h"

#define REPORT_CHECK_FORMAT "aliasfuzz-check/1"

/* Case statuses, in the order reports list them. */
typedef enum { RC_PASS, RC_KNOWN, RC_NEWLY_PASSING, RC_REGRESSION, RC_STATUS_COUNT } report_case_status;
const char *report_case_status_name(report_case_status s);

/* JUnit XML of one check document (its text) at path (atomic). Testsuite "conformance-<conv>",
 * one testcase per case (classname "conformance.<family>"): regressions are failures (errors for
 * invalid-program), known failures are skipped with their verdict and reason, newly passing
 * cases pass with a note in system-out. */
int report_junit_write(const char *path, const char *check_doc, af_err *err);

/* Markdown of every check-*.json in dir: per converter the counts, regressions and newly passing
 * cases; then pass rates per suite family and per view op, one column per converter. new, free
 * with free(); NULL with err when dir holds no check file. */
char *report_conformance_markdown(const char *dir, af_err *err);

/* The pass-rate table (per family) alone, for the README. new, free with free(). */
char *report_conformance_table(const char *dir, const char *by, af_err *err);

/* Writes dir/conformance.md and dir/report.html from dir/check-*.json. */
int report_conformance_render(const char *dir, af_err *err); /* (report_html.c) */

/* ---- shared by the writers (report_check.c, report_html.c) ---- */
struct cJSON;
/* Every check-*.json in dir, parsed, sorted by converter name: a cJSON array (new, free with
 * cJSON_Delete), NULL with err when there is none or one is malformed. */
struct cJSON *report_load_checks(const char *dir, af_err *err);
/* The suite families in report order, NULL-terminated. */
extern const char *const report_families[];
/* Writes dir/report.html for the loaded check documents. (report_html.c) */
int report_conformance_html(const char *dir, const struct cJSON *checks, af_err *err);
/* Appends s to b with &<>"' escaped. */
void report_html_escape(af_buf *b, const char *s);

#endif
