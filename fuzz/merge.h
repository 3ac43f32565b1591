/* merge.h - `aliasfuzz merge OUT DIR...`: one campaign folder from several (the shards of one
 * campaign, `fuzz --shard K/N`; machines; days).
 *
 * A part is one campaign folder's work, identified by what it ran: its converter, stack, seed,
 * shard, policy and --fail-on-residual (two folders of one seed and shard ran the same
 * programs: the later merged replaces the earlier). Merging a part copies its finding folders
 * that OUT lacks and keeps a record of it, OUT/parts/<part id>.json (its options, figures, class
 * index and per-finding counts); everything else in OUT is rebuilt from those records, so a
 * merge is idempotent (the same folder again changes nothing), independent of the order in which
 * parts come, and resumable (a merge killed midway, run again, ends where it would have):
 *   - classes.json: every part's findings added, in order of their first iteration (of the part
 *     order for equal ones), to one class index through classes_index_add, the campaign's own
 *     membership rule (classes.h: by key, then by containment), so the shards of one campaign
 *     of one job give the classes that campaign gives; counts summed (a class's programs counted
 *     by quick key, not as findings, go to the merged class of its findings); first seen kept;
 *     a class's annotations (baseline, known upstream, user path, ...) from the part whose
 *     smallest program it keeps; flaky and harness findings by finding; deferred quick keys
 *     summed, and counted into a class another part has for them;
 *   - findings/<id>/finding.json: count summed over the parts, first and latest seen, "parts"
 *     (each part's count), "class" (its merged class);
 *   - state.json: the first part's options with jobs 1, without seed, shard, iterations and
 *     time, plus "merged_parts" (each part's folder, id, seed, shard, jobs, programs, seconds),
 *     and "merge" (format aliasfuzz-merge/1); figures summed, times in job-seconds (a part's
 *     search seconds times its jobs, plus its time after the search); no "history";
 *   - report.json, report.md, report.html as a campaign's (reports/report.h).
 * A DIR that is itself a merge brings its parts. Refused, before anything is written: a DIR
 * that is no campaign folder, OUT itself, a campaign folder as OUT, parts of another converter,
 * converter version, stack or aliasfuzz (generator) version than OUT's (the message names the
 * folder and the field), a DIR or OUT locked by a running campaign. OUT is locked meanwhile. */
#ifndef MERGE_H
#define MERGE_H

#include "../harness/af.h"

typedef struct merge_summary {
  int parts;                 /* parts OUT holds now */
  int added, updated, same;  /* of the parts given: new to OUT, replacing a record of the same
                                identity, identical to the record OUT has (nothing to do) */
  int64_t programs;          /* over all parts */
  int classes, findings, flaky, harness, deferred;
  int limit_classes, artifact_classes; /* of classes: what the converter refuses by design (refusals.h)
                                          and harness artifacts (confirm.h), not counted as bugs */
} merge_summary;

/* Merges the campaign folders dirs[0..ndirs-1] into out (made when missing). 0 on success; -1
 * with err on a refusal or a failed write (nothing of a refused merge is written). */
int merge_run(const char *out, char *const *dirs, int ndirs, merge_summary *s, af_err *err);

#endif
