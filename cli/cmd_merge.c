/* cmd_merge.c - `aliasfuzz merge OUT DIR...`: one campaign folder from several (fuzz/merge.h). */
#include <stdio.h>
#include <string.h>

#include "../fuzz/merge.h"
#include "cli.h"

static const char *usage_merge =
    "usage: aliasfuzz merge OUT DIR...\n"
    "\n"
    "Combines campaign folders (the shards of one campaign, `fuzz --shard K/N`; other machines;\n"
    "other days) into the campaign folder OUT, made when missing: findings deduplicated by\n"
    "signature with their counts summed and first and latest seen kept; classes merged by key\n"
    "under the campaign's own rule (docs/classes.md), so the shards of one campaign give the classes\n"
    "that campaign gives; per-part figures (folder, seed, shard, jobs, programs, seconds) in\n"
    "state.json and the report; OUT/report.md and report.html read like a campaign's, times in\n"
    "job-seconds summed over the parts. A part is identified by what it ran (converter, stack,\n"
    "seed, shard, policy): merging the same folder again changes nothing, a folder of the same\n"
    "seed and shard that ran further replaces its earlier record, and a merge that was killed\n"
    "finishes when run again. More folders can be merged into OUT later; a DIR that is itself a\n"
    "merge brings its parts. OUT is locked meanwhile. Refused, before anything is written: a DIR\n"
    "that is not a campaign folder, a campaign still running in a DIR, and folders of another\n"
    "converter, converter version, PyTorch stack or aliasfuzz (generator) version than OUT's (the\n"
    "message names the folder and the field). docs/distributed.md: running shards on Dask.\n";

int cmd_merge(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      cli_help(usage_merge, "merge");
      return 0;
    }
    if (argv[i][0] == '-') return cli_usage_error(usage_merge, "merge: unknown option %s", argv[i]);
  }
  if (argc < 2) return cli_usage_error(usage_merge, "merge: %s", argc ? "no campaign folder to merge" : "OUT and at least one DIR are required");
  merge_summary s;
  af_err err;
  if (merge_run(argv[0], argv + 1, argc - 1, &s, &err)) {
    fprintf(stderr, "aliasfuzz: merge: %s\n", err.msg);
    return 2;
  }
  printf("%s: %d part(s) (%d new, %d updated, %d already merged), %lld programs, %d bug class(es) from %d distinct finding(s)",
         argv[0], s.parts, s.added, s.updated, s.same, (long long)s.programs, s.classes - s.artifact_classes - s.limit_classes,
         s.findings);
  /* as fuzz says it (cmd_fuzz.c) and the report counts them: limits and artifacts are not bugs */
  if (s.artifact_classes) printf(" (+%d harness artifact class(es): not seen from the converter's public API)", s.artifact_classes);
  if (s.limit_classes) printf(" (+%d class(es) the converter refuses by design: its limits, not bugs)", s.limit_classes);
  if (s.flaky) printf(", %d flaky finding(s)", s.flaky);
  if (s.harness) printf(", %d harness finding(s)", s.harness);
  if (s.deferred) printf(", %d quick key(s) of failing programs in no class yet", s.deferred);
  printf("; report: %s/report.md (and report.html)\n", argv[0]);
  return 0;
}
