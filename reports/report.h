/* report.h - report writers. Campaign reports: DIR/report.json and DIR/report.md, with the
 * campaign's figures, its bug classes first (DIR/classes.json, fuzz/classes.h: the smallest
 * program inline, what it gave, the generalization table, reproducibility, count, first seen, the
 * findings inside) and then one row per finding (read back from DIR/findings/<id>/finding.json,
 * so a report can always be re-rendered from what the campaign wrote). */
#ifndef REPORT_H
#define REPORT_H

#include "../harness/af.h"

typedef struct report_campaign_figures {
  int64_t programs;
  double seconds;
  const int64_t *verdicts; /* V_COUNT entries (oracle.h) */
  const char *options_json;
  double reduce_seconds; /* spent minimizing and generalizing (all jobs), after the search too */
  double finish_reduce_seconds; /* of which after the search (the deferred programs) */
  double finish_seconds;   /* wall time after the search minimizing deferred programs (one at a time) */
  int finished;            /* deferred programs minimized after the search */
  double annotate_seconds; /* wall time rerunning classes on the baseline, switches, other stack */
} report_campaign_figures;

/* A rate for people: decimals under 10 per second ("0.47", "3.2"), none above ("31"). Borrowed
 * from buf. */
const char *report_rate(double per_s, char buf[32]);

int report_write_campaign(const char *dir, const report_campaign_figures *fig, af_err *err);

/* ---- what report.md (report.c) and report.html (report_html.c) both say, written once ----
 * Lines of Markdown inline text (`code`, **bold**, [text](link), "\|" for a '|'); report.md
 * writes them as they are, report.html renders them (report_html.c). */
struct cJSON;
/* The class groups, in the order both reports list them: new bugs (no baseline has them, no
 * public report), known ones (the baseline has them, or a case of corpus/known-upstream/, a kept
 * finding of docs/findings/ or a gap of corpus/known-gaps/ fails the same way), then
 * harness artifacts (not seen from the converter's public API, fuzz/confirm.h). The flaky and
 * harness findings of classes.json come after those, in no class. */
/* A class's group: a bug no baseline and no public report has, a known one, what the converter
 * refuses by design (its limits, fuzz/refusals.h: listed apart, not counted as bugs), a harness
 * artifact. */
typedef enum { REPORT_NEW, REPORT_KNOWN, REPORT_LIMIT, REPORT_ARTIFACT, REPORT_GROUPS } report_group;
report_group report_class_group(const struct cJSON *cls);
extern const char *const report_group_title[REPORT_GROUPS]; /* "New classes", ... */
/* The line of a converter's message that says what went wrong: the last "SomethingError: ..."
 * line (oracle/signature.h's sig_key_line); for TorchScript's "The following operation failed in
 * the TorchScript interpreter" head without one, the last line that is not its traceback. Borrowed
 * from msg; *len: the line's length. */
const char *report_message_line(const char *msg, size_t *len);
/* The campaign's headline, "- ...\n" lines (programs, rates, the time split, verdicts, classes,
 * baseline, flaky, harness, unclassified programs), from report.json's object r. */
void report_campaign_headline(af_buf *b, const char *dir, const struct cJSON *r);
/* What a known class (fuzz/known.h) is known as: "known: pytorch/pytorch#68064" (upstream),
 * "known: aliasfuzz finding docs/findings/NAME", "known gap bug-007"; nothing when not known. */
void report_known_label(af_buf *b, const struct cJSON *cls);
/* "input-mutation-lost `write@in` (seen as ...) (also in the baseline) (known: ...)" */
void report_class_title(af_buf *b, const struct cJSON *cls);
/* One class's facts, "- label: text\n" lines ("  - " under one): what it should give and what it
 * gave, other errors, reproducibility, user path, known upstream, trigger, other stack, baseline,
 * generalization. */
void report_class_facts(af_buf *b, const struct cJSON *cls);
/* A finding's (report.json's findings) "- should give", "- gave" and count lines. */
void report_finding_facts(af_buf *b, const struct cJSON *finding);
/* The columns of the classes table: header, and a writer of one class's cell. */
typedef struct report_column {
  const char *header;
  int numeric;
  void (*cell)(af_buf *b, const struct cJSON *cls);
} report_column;
extern const report_column report_class_columns[]; /* ends with a NULL header */
extern const report_column report_flaky_columns[], report_harness_columns[]; /* classes.json's "flaky", "harness" */
extern const char report_flaky_intro[], report_harness_intro[];
int report_count_group(const struct cJSON *classes, report_group g);
/* A group's heading (heading 1) or the paragraph under it (0); the artifacts' names the API. */
void report_group_intro(af_buf *b, const struct cJSON *classes, report_group g, int heading);
/* Where a campaign's time went, in job-seconds, from report.json's object r (its figures):
 * generating, judging and converting (the search's job time less what follows), judging failing
 * programs on a baseline converter, minimizing and generalizing during the search, minimizing
 * deferred programs after it, rerunning each class's program, later `reduce --deferred` runs. A
 * figure the campaign did not record is 0. Of r's figures, generalize_seconds, baseline_seconds
 * and reduce_deferred_seconds are state.json's (report.html copies them into r). */
enum {
  REPORT_T_CONVERTING, REPORT_T_BASELINE, REPORT_T_MINIMIZING, REPORT_T_GENERALIZING, REPORT_T_DEFERRED,
  REPORT_T_ANNOTATING, REPORT_T_REDUCE_DEFERRED, REPORT_TIME_PARTS
};
extern const char *const report_time_part[REPORT_TIME_PARTS];
void report_time_split(const struct cJSON *r, double out[REPORT_TIME_PARTS]);
/* The summary of a class's folded snippet.py in both reports. */
#define REPORT_SNIPPET_SUMMARY "snippet.py for an upstream report (stock API; exits 1 while the bug is there)"

/* dir/report.html from dir/report.json, dir/state.json and the finding folders: one
 * self-contained page (no script, nothing loaded from anywhere, readable without JavaScript) that
 * leads with the bug classes as report.md does (the classes table, then each class in the groups
 * above with its smallest program, folded snippet.py, what it should give and what it gave, the
 * facts, its findings folded below), then the flaky and harness findings and the programs in no
 * class. Its charts are inline SVG drawn here: bug classes and findings over time (from each
 * one's first iteration, placed in time by the "history" samples), verdict counts over time (the
 * samples' third entry, {verdict: programs}, state.json since issue 30), where the time went
 * (report_time_split) and programs per second. (report_html.c) */
int report_campaign_html(const char *dir, af_err *err);

/* Re-renders a report folder from its JSON: a conformance folder (check-*.json: conformance.md
 * and report.html, report_check.h) or a campaign folder (report.json: report.md and report.html),
 * holding the campaign folder's lock meanwhile. -1 with err when dir is neither, or when another
 * process holds its lock (AF_LOCK_HELD, err names it). (report_html.c) */
int report_render(const char *dir, af_err *err);

#endif
