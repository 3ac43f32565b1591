/* report.h - report writers. Campaign reports: DIR/report.json and DIR/report.md, with the
 * campaign's figures and one row per finding (read back from DIR/findings/<id>/finding.json, so
 * a report can always be re-rendered from what the campaign wrote). */
#ifndef REPORT_H
#define REPORT_H

#include "../harness/af.h"

typedef struct report_campaign_figures {
  int64_t programs;
  double seconds;
  const int64_t *verdicts; /* V_COUNT entries (oracle.h) */
  const char *options_json;
} report_campaign_figures;

int report_write_campaign(const char *dir, const report_campaign_figures *fig, af_err *err);

#endif
