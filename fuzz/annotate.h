/* annotate.h - what a campaign learns about each bug class after the search (issue 17): whether
 * a baseline has it, which of the converter's switches turns it off, and how the other PyTorch
 * stack fares on it. Each answer comes from rerunning the class's smallest program (the
 * smallest finding's repro.json) and is written into the class's entry in DIR/classes.json:
 *
 *   "in_baseline": true|false, "baseline": {"name", "how": "members"|"converter"|"campaign", "verdict",
 *                  "detail" | "matched": class id in the baseline campaign}
 *   "float64": {"smallest", "rule", "as_float32", "float32_as_float64", "needs"} (float64.h: the
 *              class's program rerun with float64 made float32, and float32 made float64),
 *   "trigger": one line ("passes with reapply_views=False (functionalize-noviews)"; "passes with
 *              float64 made float32" first where that rerun passed),
 *   "switches": [{"switch", "converter", "verdict", "same"}]
 *   "other_stack": one line ("also fails on torch-1.13 (value-mismatch)", "new in torch-2.13:
 *                  passes on torch-1.13", "fixed in torch-2.13: fails on torch-1.13 ..."),
 *   "other_stack_result": {"stack", "binary", "verdict", "detail"}
 *
 * With a baseline converter, a campaign judges every failing program there as it finds it and
 * keeps known and new members in separate classes (classes.h, "members_in_baseline"): such a
 * class's in_baseline is what its members showed ("how": "members"), not a rerun of its smallest
 * program; classes without that mark (a crash the parent recorded) are rerun as below.
 * A class is "the same bug" on another converter or stack when that run's verdict is in the
 * class's verdict group (classes_verdict_group: value, shape and dtype mismatches are one) and,
 * for classes keyed by an error, its error key is the class's. Entries already annotated for the
 * same smallest finding and the same question are kept (a resumed campaign does not redo them).
 * Last, annotate_classes confirms each class on the user's path (confirm.h: "user_path"). */
#ifndef ANNOTATE_H
#define ANNOTATE_H

#include <cjson/cJSON.h>

#include "../harness/af.h"
#include "../harness/converters/conv.h"

typedef struct annotate_opts {
  const char *dir;                /* the campaign folder (its findings/ hold the programs) */
  const conv_converter *c;        /* the campaign's converter */
  const char *baseline;           /* NULL, a converter name or a campaign folder (with classes.json) */
  const char *other_stack;        /* NULL or the other build's aliasfuzz binary */
  int no_triggers;                /* 1: do not try the converter's switches */
  double deadline_s;              /* per rerun of a program (in-process converters run in a child) */
  int fail_on_residual;
} annotate_opts;

/* Checks o->baseline and o->other_stack before a campaign runs: the baseline must be a folder
 * with a classes.json or a converter available here; the other stack an executable file. -1 with
 * err otherwise. */
int annotate_check(const annotate_opts *o, af_err *err);

/* Annotates every class of idx (classes.h) as described above; progress lines on stderr. 0 on
 * success, -1 with err when the baseline folder cannot be read (classes are then left as they
 * are). */
int annotate_classes(cJSON *idx, const annotate_opts *o, af_err *err);

/* The dtype trigger (float64.h), the first step of annotate_classes: each class of o->c whose
 * smallest program holds float64 is rerun with it made float32 ("float64": what each rerun gave;
 * "trigger": "passes with float64 made float32" when it passed), and a class of wrong values or
 * converter errors whose failure needs float64 keys on the dtype, folding with the converter's
 * other such classes (classes_index_rekey). Progress on stderr. */
void annotate_float64(cJSON *idx, const annotate_opts *o);
/* The twin-dtype rule (classes.h classes_twin_dtype) on each class of o's converter with wrong
 * values whose detail says a dtype differs: one whose smallest program shows an in-place op given
 * its out-of-place twin's dtype keys on CLASSES_TWIN_DTYPE_KEY, folding with the converter's other
 * such classes (classes_index_rekey); "twin_dtype" records the check. No rerun. */
void annotate_twin_dtype(cJSON *idx, const annotate_opts *o);

/* Whether a class entry is marked as in the baseline. */
int annotate_in_baseline(const cJSON *cls);

/* The switches aliasfuzz knows for a converter, as "switch" lines, for --help and tests: the
 * number of them, and the i-th one's converter name (new) and description (borrowed) through
 * the out-parameters; 0 when it has none. */
int annotate_switches(const char *converter, int i, char **variant, const char **what);

/* The stack an aliasfuzz binary was built for, from its --version ("torch-1.13"); 0 on success. */
int annotate_binary_stack(const char *binary, char stack[32], af_err *err);

#endif
