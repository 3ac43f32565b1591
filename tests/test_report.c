/* test_report.c - what both campaign reports say of a class (reports/report.h), from verdicts
 * that real converters give on conformance cases: a converter error's message line rather than
 * TorchScript's traceback head, and what a class should give next to what it gave. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/judge.h"
#include "../harness/codec.h"
#include "../reports/report.h"
#include "tap.h"

/* The judgement of corpus/conformance/<name>.json through converter conv, in process. */
static int judge_case(const char *name, const char *conv, judgement *j) {
  char path[256];
  snprintf(path, sizeof path, "corpus/conformance/%s.json", name);
  ir_program *p = NULL;
  af_err err;
  memset(j, 0, sizeof *j);
  if (codec_read_file(path, &p, &err)) {
    CHECK(0, "%s: %s", path, err.msg);
    return -1;
  }
  oracle_opts oo = {0};
  int rc = judge_inprocess(conv_find(conv), p, &oo, j, &err);
  CHECK(rc == 0, "%s through %s: %s", name, conv, rc ? err.msg : "");
  ir_program_free(p);
  return rc;
}

/* The facts report.md and report.html show for a class of this verdict and detail. new. */
static char *facts_of(const judgement *j) {
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "verdict", oracle_verdict_name(j->verdict));
  cJSON_AddStringToObject(c, "detail", j->detail ? j->detail : "");
  af_buf b = {0};
  report_class_facts(&b, c);
  cJSON_Delete(c);
  return af_buf_take(&b);
}

/* functionalize-noviews runs the program as TorchScript: its error starts with the interpreter's
 * traceback ("The following operation failed in the TorchScript interpreter. Traceback of
 * TorchScript ...") and says what went wrong on its last line. */
TEST(a_torchscript_error_shows_its_message_line_not_the_traceback_head) {
  judgement j;
  if (judge_case("ali-base-and-slice-abs_", "functionalize-noviews", &j)) return;
  CHECK(j.verdict == V_ERROR && j.detail && strstr(j.detail, "The following operation failed in the TorchScript interpreter") == j.detail,
        "the converter's error starts with TorchScript's traceback head: %s", j.detail ? j.detail : "(none)");
  size_t n;
  const char *line = report_message_line(j.detail, &n);
  CHECK(!strncmp(line, "RuntimeError: ", 14) && !memchr(line, '\n', n) && n > 20, "the message line: '%.*s'", (int)n, line);
  char *facts = facts_of(&j);
  CHECK(strstr(facts, "- gave: `RuntimeError: ") && !strstr(facts, "The following operation failed"), "facts:\n%s", facts);
  CHECK(strstr(facts, "- should give: what eager PyTorch gives"), "facts:\n%s", facts);
  free(facts);
  /* the shim cuts a long message at 900 characters and "...": with its error line cut away, the
   * last line that is not the traceback (the program's lines, "~~~ <--- HERE") stands for it */
  char *cut = af_xstrdup(j.detail);
  char *err_line = strstr(cut, "\nRuntimeError: ");
  CHECK(err_line != NULL, "the message has its RuntimeError line");
  if (err_line) {
    strcpy(err_line + 1, "aten::abs.out: attempted to run this operator with Meta tensors...");
    line = report_message_line(cut, &n);
    CHECK(!strncmp(line, "aten::abs.out: attempted", 24), "without an Error line: '%.*s'", (int)n, line);
  }
  free(cut);
  judgement_clear(&j);
}

/* naive drops the write-back of an in-place op into a view: the oracle's detail
 * "<what>: element K is G, eager W" is taken apart into what eager gives and what was given. */
TEST(a_wrong_value_says_what_it_should_give_and_what_it_gave) {
  judgement j;
  if (judge_case("mx-slice-add_-through", "naive", &j)) return;
  CHECK(j.verdict == V_VALUE_MISMATCH && j.detail, "naive: %s %s", oracle_verdict_name(j.verdict), j.detail ? j.detail : "");
  const char *el = j.detail ? strstr(j.detail, ": element ") : NULL, *eager = j.detail ? strstr(j.detail, ", eager ") : NULL;
  CHECK(el && eager, "detail '%s'", j.detail ? j.detail : "");
  if (el && eager) {
    char *facts = facts_of(&j), want[256], gave[256];
    const char *is = strstr(el, " is ");
    snprintf(want, sizeof want, "- should give: `%.*s`: element %.*s is `%s` (as eager PyTorch gives)\n", (int)(el - j.detail), j.detail,
             (int)(is - el - 10), el + 10, eager + 8);
    snprintf(gave, sizeof gave, "- gave: `%.*s`: element %.*s is `%.*s`\n", (int)(el - j.detail), j.detail, (int)(is - el - 10), el + 10,
             (int)(eager - is - 4), is + 4);
    CHECK(strstr(facts, want) && strstr(facts, gave), "facts:\n%s\nwant:\n%s%s", facts, want, gave);
    free(facts);
  }
  judgement_clear(&j);
}

int main(void) {
  RUN(a_torchscript_error_shows_its_message_line_not_the_traceback_head);
  RUN(a_wrong_value_says_what_it_should_give_and_what_it_gave);
  return tap_done();
}
