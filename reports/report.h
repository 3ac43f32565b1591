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

/* dir/report.html from dir/report.json (figures, findings), dir/state.json and each finding's
 * folder: one self-contained page (no network resources) with the figures, the verdicts, a
 * programs/s chart as inline SVG (from the "history" samples of state.json or report.json,
 * [[seconds, programs], ...], when the campaign recorded them) and every finding with its
 * minimized program and a link to its repro.py. (report_html.c) */
int report_campaign_html(const char *dir, af_err *err);

/* Re-renders a report folder from its JSON: a conformance folder (check-*.json: conformance.md
 * and report.html, report_check.h) or a campaign folder (report.json: report.md and report.html),
 * holding the campaign folder's lock meanwhile. -1 with err when dir is neither, or when another
 * process holds its lock (AF_LOCK_HELD, err names it). (report_html.c) */
int report_render(const char *dir, af_err *err);

#endif
