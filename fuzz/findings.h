/* findings.h - the findings store: DIR/findings/<signature id>/ per distinct bug, written
 * atomically (files through temporary names and rename(); a new folder is assembled under
 * DIR/findings/.tmp-* and renamed into place), deduplicated by signature, with a count and the
 * first and latest occurrence. One process writes a store at a time (the campaign parent, which
 * holds the campaign folder's lock).
 *
 * A finding folder holds: finding.json (signature, verdict, detail, count, first/latest,
 * versions, options, reduction), repro.json (the minimized program), original.json (as found),
 * program.py (TorchScript source), repro.py (standalone reproducer), snippet.py (the same in at
 * most 15 lines of the converter's stock API, for a bug report; absent for a converter without
 * one: emit_snippet.h), converted.txt (the converter's graph), converted-baseline.txt (with a
 * baseline converter that gets the program right: the baseline's graph of it), README.md. */
#ifndef FINDINGS_H
#define FINDINGS_H

#include "../harness/ir.h"
#include "../oracle/oracle.h"
#include "reduce.h"

typedef struct finding {
  const char *converter, *converter_version;
  const char *convert_py;    /* the converter's repro_py snippet, may be NULL */
  oracle_verdict verdict;
  const char *detail;        /* one line */
  const char *graph;         /* converted graph text of the minimized program, may be NULL */
  const ir_program *original, *minimized;
  const reduce_stats *reduction; /* may be NULL */
  uint64_t seed;             /* program seed */
  int unseeded;              /* the program has no seed (written by hand): seed means nothing */
  int64_t iteration;         /* campaign iteration, -1 outside campaigns */
  int job;                   /* campaign job that found it */
  const char *options_json;  /* campaign options (compact JSON object), may be NULL */
  const char *rerun;         /* the command that reruns it, may be NULL */
  const char *class_id;      /* the bug class it belongs to (classes.h), may be NULL */
  const char *pattern;       /* its generalized pattern, may be NULL */
  const char *generalization;/* the generalization rows (JSON array text), may be NULL */
  int reruns, reproduced;    /* flakiness: reruns of the minimized program, how many failed the same way */
  const char *base_graph;    /* with a baseline converter that gets the minimized program right:
                                its graph of it (converted-baseline.txt), may be NULL */
  const char *graph_change;  /* the ops whose lines differ between the two (graphdiff.h), may be NULL */
} finding;

/* Records f under dir/findings/. *is_new says whether the signature was new; *counted whether
 * the count went up (0 when this (job, iteration) was already counted: a resumed campaign
 * replaying iterations). id receives the signature id. */
int findings_record(const char *dir, const finding *f, int *is_new, int *counted, char id[64], af_err *err);

/* Removes what writers cut short left in campaign folder root: staging folders
 * findings/.tmp-<signature>-<pid>/ and temporary files <name>.tmp.<pid> (in root, findings/,
 * findings/<id>/, deferred/ and pending/). Only for a caller that holds root's lock
 * (af_dir_lock_take): then no other process writes there, and every such entry is of a process
 * that died or was stopped mid-write. *removed: how many entries went. 0 on success. */
int findings_clean_staging(const char *root, int *removed, af_err *err);

/* mkdir -p; 0 on success */
int findings_mkdirs(const char *path, af_err *err);

#endif
