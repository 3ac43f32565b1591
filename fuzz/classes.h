/* classes.h - bug classes: one bug, one entry.
 *
 * What a class is. A finding is one failing program, minimized; a class is one bug of one
 * converter: the mechanism by which it goes wrong, with the smallest program that shows it. The
 * report's first promise (how many distinct bugs, which are new, the smallest program for each)
 * rests on these rules:
 *
 * Who founds a class. Only a minimized finding that reproduces on every rerun of its program
 * (classes_generalize reruns it 3 times). One that does not is flaky: listed under "flaky" with
 * its rate (classes_member_flaky), in no class, and never the founder of a pattern other findings
 * could join.
 *
 * What keys it. Converter errors, crashes, unsupported programs and timeouts key on where and how
 * they fail: the error key (signature.h: the key line with names, numbers, shapes, tuples and
 * operator names blanked, where-trailers dropped; a crash's native frames, crashsite.h, or a
 * worker's Python frames, as they stand in its message). A converter error downstream of a write
 * keys on the write pattern (the error surfaces a mis-converted write), unless the program fails
 * the same way with its writes made the identity (judge_without_writes): then the writes are not
 * the bug and the class keys on the error; nor when the error is a limit its converter declares
 * (refusals.h, workers.def REFUSES): a limit is a class of its own, never beside a bug of the same
 * pattern. Wrong values (value, shape and dtype mismatches and
 * input-mutation-lost: which of them a lost write gives depends only on where it lands) key on
 * the generalized write pattern: after a finding is minimized, classes_generalize reruns it with
 * each statement's op replaced by the other ops of its family in the op table (a view first by
 * `as_strided` of the same tensor with eager's own sizes, strides and offset, which every later
 * write fits; then views of the same schema and the identity view `alias`; writes by the other
 * writes, setitems by setitems, ...) and its inputs' dtype by the other dtypes. A statement whose
 * variants fail the same way at least as often as they pass stands for its whole family
 * ("write@in"); one whose variants pass keeps its own op name ("unfold write@view-of-in": a write
 * through unfold, any write). A passing variant whose write changes nothing eager can see (`t_()`
 * of a [1, 1] tensor) counts as "unchanged", not as a pass. Writes carry where they land: @in (an
 * input), @view-of-in (a view of an input), @view (a view of an intermediate), @tmp (an
 * intermediate), followed through what the op table's alias rules say returns a view of its
 * argument or the argument itself (a write through `dropout(x, p, False)` lands in x; one through
 * a getitem that copied does not); a statement that rebinds module state (`self.w = f(self.w)`)
 * is a write @state.
 * The pattern keeps the writes and the views their targets were made through (classes_core).
 * The class key is (converter, verdict group, pattern or error key); with a baseline converter
 * the group of a member the baseline also has is marked " (in baseline)", so a class is wholly new
 * or wholly known (the campaign judges every failing program on the baseline, and minimization and
 * generalization keep what the baseline said).
 *
 * A regression keys on what changed. With a baseline converter, a wrong-result member the
 * baseline does not have, whose converted graph differs from the baseline's graph of the same
 * minimized program, keys on that difference instead of its pattern: "graph change: OPS", the ops
 * whose lines differ (graphdiff.h). A maintainer's regression is one edit in one lowering, and
 * the programs that reach it differ in the user-level op that brought them there (a setitem, a
 * narrow, a slice method all lower to one slice_scatter): keyed on their patterns they would be
 * one class per op. Such members join by that key alone (no containment, no variant join).
 *
 * Membership is one class per finding, by this rule: a finding already in a class (its signature
 * recorded before, whose generalization gave another pattern this time) stays there; otherwise
 * the class of its own key; otherwise, for a pattern-keyed finding only, of the classes of the
 * same converter and verdict group whose pattern contains its pattern or is contained in it, the
 * most specific one (classes_specificity: more op names, then more tokens; of equals, the
 * earliest class); otherwise a new class. An error-keyed finding never joins by pattern.
 * Classes fold: when a pattern-keyed finding joins a class, every other class of the same
 * converter and verdict group whose pattern contains the finding's (by family) and that has its
 * verdict moves into that class (its findings, count and, when smaller, its example), and its id
 * is listed under the class's "absorbed": the minimized program fails with what both classes'
 * programs hold, so they were one bug whose first programs did not contain one another (a
 * "sub@state" class and a class whose later member minimized to "op@state").
 *
 * Before minimizing. The quick key (verdict, error key, which output differs and what kind of
 * value it is; with a baseline, whether the baseline fails the same way) is known as soon as a
 * program fails: a program whose quick key already maps
 * to a class (or a flaky finding) is counted there, not minimized; one over the minimization
 * budget is deferred (one program kept per quick key). At the end of a campaign every deferred
 * quick key that no class holds gets its program minimized, under a floor that the share
 * (--reduce-share) does not cap; what even the floor leaves is said in the last line and the
 * report as failing programs in no class. */
#ifndef CLASSES_H
#define CLASSES_H

#include "../harness/ir.h"
#include "../oracle/oracle.h"

/* Outcome of one variant, from the caller's judge. */
enum { CLASSES_NOT_RUN = -2, CLASSES_INVALID = -1, CLASSES_PASS = 0, CLASSES_SAME = 1, CLASSES_OTHER = 2 };
/* A judged variant's outcome as the classes' tables write it: "pass", "same", "other", "invalid",
 * "not run". */
const char *classes_outcome_name(int r);

/* Judges a variant: CLASSES_SAME (the same bug), CLASSES_PASS, CLASSES_OTHER (another failure) or
 * CLASSES_INVALID (eager rejects it or it does not validate), or CLASSES_NOT_RUN (the judge could not
 * run it: out of time, or the converter could not be asked). A generalization row counts variants
 * not run apart from those eager rejects ("not_run"): under load, time runs out before variants do. */
typedef int (*classes_judge)(const ir_program *cand, void *ctx);

typedef struct classes_gen {
  char *pattern;   /* generalized pattern, new */
  char *table;     /* the generalization rows as a compact JSON array, new */
  int tests;       /* judge calls spent */
  int reruns;      /* reruns of the program itself (flakiness) */
  int reproduced;  /* how many of them showed the same bug */
  int write_free;  /* 1: p fails the same way with its writes made the identity
                      (judge_without_writes): pattern is that program's plain pattern, without
                      writes, so the class keys on the error (or on the ops) */
} classes_gen;

/* What a variant's judgement says against the finding's bug (verdict v, detail): the outcome a
 * classes_judge returns. */
struct judgement;
int classes_outcome(const struct judgement *j, oracle_verdict v, const char *detail);

/* Generalizes the minimized program p (which the caller saw fail): first `reruns` reruns of p
 * itself (a rerun the judge answers CLASSES_INVALID or CLASSES_NOT_RUN, e.g. out of time, is not counted), then at
 * most max_tests variant judgements (0: 120). 0 on success; out is filled either way (clear with
 * classes_gen_clear). */
int classes_generalize(const ir_program *p, classes_judge judge, void *ctx, int max_tests, int reruns, classes_gen *out);
void classes_gen_clear(classes_gen *g);

/* Family of an op ("view", "write", "shape-write", "setitem", "out=", "op", "list"); NULL for
 * control flow. Borrowed. */
const char *classes_family(int op);

/* The pattern of p without generalization: every op by name, writes with their placement
 * ("slice fill_@view-of-in mul"). new, free with free(). */
char *classes_plain_pattern(const ir_program *p);

/* The statements a class pattern keeps (new array of nstmts flags, free it): the writes and the
 * views their targets were made through. What produced an intermediate and what reads the
 * result only surface the bug. A program without writes keeps everything. */
char *classes_core(const ir_program *p);
/* How specific a class pattern is: *names counts its tokens that name an op rather than a family
 * ("unfold", "fill_@in" but not "view", "write@in"), *tokens all its tokens. Of two patterns the
 * one with more names is the more specific, with as many the one with more tokens. */
void classes_specificity(const char *pattern, int *names, int *tokens);
/* Whether every token of pattern small stands, in order, in pattern big: spelled the same, or
 * with by_family also a family token matching an op of it at the same placement. */
int classes_pattern_within(const char *small, const char *big, int by_family);
/* Whether pattern is an instance of cover (a known case's meta.known.covers, known.h): every token
 * of cover stands, in order, for a token of pattern (the same token, or a family at the same
 * placement standing for an op of it: "unfold write@view-of-in" covers "unfold masked_fill_@view-of-in"
 * and "view unfold add_@view-of-in", not "write@view-of-in"), and both hold as many writes. */
int classes_pattern_covers(const char *cover, const char *pattern);
/* The same where pattern may hold more tokens, writes included: cover's tokens stand, in order,
 * for some of pattern's ("unfold write@view" within "unfold add_@view index_put_@in"). */
int classes_pattern_covers_within(const char *cover, const char *pattern);
/* The first token of cover (copied into tok, n bytes) whose name is neither an op nor a family,
 * or NULL when every token is one. */
const char *classes_cover_bad_token(const char *cover, char *tok, size_t n);
/* Whether a pattern holds a write (a token with a placement). */
int classes_pattern_writes(const char *pattern);

/* Whether a verdict's class is its error key (errors, crashes, unsupported, timeouts); a
 * converter-error whose pattern holds a write keys on the pattern instead (the error surfaces a
 * mis-converted write). */
int classes_by_error(oracle_verdict v);
/* Whether the class of a finding with this verdict and pattern keys on its error key. */
int classes_keyed_by_error(oracle_verdict v, const char *pattern);

/* The verdict part of a class key: "wrong-result" for value, shape and dtype mismatches and for
 * errors downstream of a write (one mis-converted write shows as any of them), else the verdict's
 * name. Borrowed. */
const char *classes_verdict_group(oracle_verdict v, const char *pattern);
/* "converter|verdict group|pattern-or-error-key"; new. A failure of a reused graph on inputs that
 * share a storage (judge.h judge_reused_on_shared) keys on CLASSES_SHARED_REUSE_KEY instead of its
 * pattern. */
char *classes_key(const char *converter, oracle_verdict v, const char *detail, const char *pattern);

/* The key of a failure of the shared-storage reuse rule (judge.h judge_reused_on_shared): one class
 * per converter and verdict group, whatever the program writes. */
#define CLASSES_SHARED_REUSE_KEY "a graph compiled for separate inputs reused on inputs that share a storage"
/* Quick key, known before minimizing: "verdict|error key", or for mismatches "verdict|output:KIND:
 * normalized detail" where KIND says what the differing value is (an input, a view, an op's
 * result; "+written" when a write targets it). p: the program as found. new. */
char *classes_quick_key(const ir_program *p, oracle_verdict v, const char *detail);
struct conv_converter;
/* The same for a program judged on converter c (NULL: classes_quick_key): a wrong result of which
 * c warned with a limit it declares (refusals.h refusals_warned) keeps the warned text, after
 * ORACLE_WARNED, so that such programs and a bug's are apart and refusals_rank_quick ranks them as
 * limits. The other warnings are not in any quick key. new. */
char *classes_quick_key_on(const struct conv_converter *c, const ir_program *p, oracle_verdict v, const char *detail);
/* Whether two class keys, of converters conv_a and conv_b, name the same bug whatever the
 * converter: the same verdict group and either the same error key or patterns of which one
 * contains the other (the rule that merges findings into a class). */
int classes_keys_match(const char *key_a, const char *conv_a, const char *key_b, const char *conv_b);
/* Folder-safe id of a key: "class-<16 hex digits>". */
void classes_id(const char *key, char id[64]);

/* ---- the class index: DIR/classes.json ----
 * {"format": "aliasfuzz-classes/1",
 *  "classes": [{"id", "key", "converter", "verdict", "pattern", "detail", "count", "findings": [ids],
 *               "smallest": finding id, "statements", "first": {"seed", "iteration", "job"},
 *               "generalization": [rows], "reruns", "reproduced", "quick_keys": [...],
 *               "counted_upto": {job: iteration}, "absorbed": [ids of classes folded in]}, ...],
 *  "deferred": {"<quick key>": {"count": n, "file": "deferred/<iteration>.json"}}}
 * One process writes it (the campaign parent); it is rewritten atomically. */
#include <cjson/cJSON.h>

typedef struct classes_member {
  const char *converter;
  oracle_verdict verdict;
  const char *detail;
  const char *pattern;      /* generalized pattern; NULL for error-keyed verdicts */
  const char *finding;      /* finding id (signature) */
  int statements;
  const char *table;        /* generalization JSON, may be NULL */
  int reruns, reproduced;
  uint64_t seed;
  int64_t iteration;
  int job;
  const char *quick;        /* quick key, may be NULL */
  const char *locus;        /* with a baseline converter, for a member the baseline does not have:
                               what its converted graph changed against the baseline's
                               (graphdiff_locus), may be NULL */
} classes_member;

/* The twin-dtype rule: an in-place op converted as its functional twin. An in-place op keeps its
 * tensor's dtype (`x.ge_(1)` of a float32 x stays float32, holding 0 and 1); its twin (ops.def) may
 * return another (`torch.ge(x, 1)` is bool). A converter that rewrites the one into the other
 * without casting back gives the twin's dtype, and keyed by write pattern that one bug was three
 * classes of one jit campaign (RemoveTensorMutation: `greater_equal_@tmp`, `logical_and_@in`,
 * `less_equal_@in`, split by placement, verdict and op). Whether a wrong result is that: its detail
 * says a tensor came back with dtype G where eager's has W (oracle.c "dtype G, eager W"), and p has
 * an in-place statement whose written tensor has dtype W (the op table's rules replayed on the alias
 * model) and whose twin, given the same arguments, returns G != W. 1 so (why, when given, gets
 * "v0.greater_equal_(...) as ge: bool for float32"), 0 not, -1 no answer (no dtype in the detail).
 * Such a class keys on CLASSES_TWIN_DTYPE_KEY (annotate.c), one class per converter. */
#define CLASSES_TWIN_DTYPE_KEY "in-place op given its out-of-place twin's dtype"
int classes_twin_dtype(const ir_program *p, const char *detail, af_buf *why);

/* The index of dir (new; an empty one when dir has none); NULL with err on a malformed file. */
cJSON *classes_index_load(const char *dir, af_err *err);
/* An empty index (new). */
cJSON *classes_index_new(void);
int classes_index_save(const char *dir, const cJSON *idx, af_err *err);
/* Adds m to its class (made when new: *is_new = 1), or a flaky m to the "flaky" list (*is_new =
 * 0). Counts it unless (job, iteration) was counted already (a resumed campaign replaying
 * iterations). Returns the class (or flaky) entry, borrowed. */
cJSON *classes_index_add(cJSON *idx, const classes_member *m, int *is_new);
/* Moves class from's members (findings, quick keys, verdicts, errors, count, its example when
 * smaller) into class into and removes from from idx; from's id is listed under into's "absorbed"
 * (the fold of classes above; known.c folds the classes of one known bug). */
void classes_index_fold(cJSON *idx, cJSON *into, cJSON *from);
/* Counts one more program of quick key qk in the class it maps to; NULL (nothing counted) when
 * no class has that quick key yet. */
cJSON *classes_index_count_quick(cJSON *idx, const char *qk, int job, int64_t iteration);
/* Whether m did not reproduce on every rerun (reruns > 0, reproduced < reruns): such a finding is
 * flaky: it founds and joins no class, and is listed under "flaky" with its rate. */
int classes_member_flaky(const classes_member *m);
/* The id of the class m would be added to by classes_index_add (its own key's id when it founds
 * one); "" for a flaky member. id: 64 bytes. */
void classes_index_class_id(const cJSON *idx, const classes_member *m, char id[64]);
/* Campaigns with a baseline converter end each failing program's quick key with this mark and
 * "known" (the baseline shows the same bug) or "new". */
#define CLASSES_BASELINE_MARK "|baseline:"
/* What a class key of a wrong result its converter warned of with a declared limit holds before the
 * warned text (refusals.h): "export|wrong-result|the converter warned: assigned during export. ...";
 * such a class has "warned": the text, and is marked a limit. */
#define CLASSES_WARNED "the converter warned: "
/* 1 known, 0 new, -1 no mark (classes.c). */
int classes_quick_in_baseline(const char *qk);
/* Whether m is a harness finding: a worker protocol error (V_PROTOCOL), or a program aliasfuzz
 * itself cannot hand to this converter (converter-unsupported whose message starts with
 * RESULT_HARNESS_LIMIT: a worker whose hello lacks module_state or layouts, a resize of an input
 * the in-process functionalization cannot give back), or a program eager rejected (invalid-program:
 * aliasfuzz made it, a generator bug or its statement limit). Such findings are listed under "harness",
 * in no class: they say nothing of the converter. */
int classes_member_harness(const classes_member *m);
/* Number of harness findings (classes_member_harness). */
int classes_index_harness_count(const cJSON *idx);
/* Number of flaky findings. */
int classes_index_flaky_count(const cJSON *idx);
/* Deferred quick keys that no class holds and that the baseline was not found to fail the same
 * way (all of them without a baseline): what a pre-merge gate must not pass over. */
int classes_index_unclassified_new(const cJSON *idx);
/* Failing programs kept under deferred quick keys that no class (nor flaky finding) holds. */
int64_t classes_index_unclassified_programs(const cJSON *idx);
/* Number of classes. */
int classes_index_count(const cJSON *idx);
/* Programs counted in all classes. */
int64_t classes_index_total(const cJSON *idx);
/* Counts one more program in the class that keys on graph change `change` (a program the
 * baseline converter gets right, classes_member.locus); NULL (nothing counted) when there is none.
 * A deferred entry that says its program's "change" is held by that class as by its quick key. */
cJSON *classes_index_count_change(cJSON *idx, const char *change, int job, int64_t iteration);
/* Moves the deferred entry of quick key qk into the class that has qk now, adding n programs to
 * its count; 0 (nothing done) when no class has qk. */
int classes_index_absorb(cJSON *idx, const char *qk, int64_t n);
/* Whether a class (or a flaky or harness finding) holds quick key qk. */
int classes_index_holds_quick(const cJSON *idx, const char *qk);
/* Number of deferred quick keys that no class has. */
int classes_index_unclassified(const cJSON *idx);
/* Keys class c of idx on `what` instead of its pattern or error (float64.h: F64_KEY for a class
 * whose failure needs float64): its key becomes "converter|group|what" (group NULL: its own; else
 * group, with the baseline's mark its own had), its id stays, and an error key it had is listed
 * under its "errors" instead; when another class has that key already, c folds into it (its
 * findings, count, quick keys, errors, smaller example; its id under "absorbed"). The patterns
 * each class was seen as are listed under its "patterns". Returns the class c is in now, borrowed. */
cJSON *classes_index_rekey(cJSON *idx, cJSON *c, const char *group, const char *what);

#endif
