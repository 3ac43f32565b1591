/* known.h - known upstream bugs (issue 26): which bug classes are already on a public tracker.
 *
 * corpus/known-upstream/ holds one program per public report (aliasfuzz-program/1, written afresh
 * from the report), whose meta carries what is known about it:
 *
 *   "meta": {"id": "ku-pytorch-165409-unfold-overlap-abs",
 *            "known": {"tracker": "pytorch/pytorch#165409", "url": "https://...",
 *                      "state": "open" | "fixed in 2.13" | ...,
 *                      "mechanism": one line,
 *                      "expect": {"torch-2.13": {"aot_eager": "converter-error", "inductor": ...},
 *                                 "torch-1.13": {...}},
 *                      "report": optional line on the report itself (closed unfixed, ...)}}
 *
 * "expect" says, per stack, the verdict `aliasfuzz run FILE --converter NAME` gives on each
 * converter the report is about: the converters it affects are those with another verdict than
 * pass, the stacks it reproduces on those where one does; a converter listed as "pass" is one the
 * report's bug is fixed in (or never reached). tests/test_known.c checks every entry.
 *
 * Matching (known_annotate): a class of a campaign on converter C is "known: <tracker>" when a
 * case whose expect for this stack names C fails on C the same way as the class's program: the
 * same verdict group, and for a case that fails with an error or crash the same error key
 * (sig_error_class; the class's error_key or its smallest program's detail, not an error a member once gave), for one that
 * gives wrong values the same class key under fuzz/classes.h (classes_keys_match on the case's
 * key, made by classes_key from its verdict, detail and plain pattern, the case's pattern standing
 * op for op in the class's: a class `write@in` matches every in-place case on an input by family
 * but is not each of those bugs) in a
 * class seen giving wrong values. A converter error downstream of a write
 * keys on its pattern (classes.h), so without the last two conditions a refused case would mark
 * a class of wrong values and the other way round.
 * A report whose mechanism holds for a whole family of ops says so in "covers": ["unfold
 * write@view-of-in"] (patterns of fuzz/classes.h, a family standing for any of its ops; the
 * case's own pattern an instance of one at least): a class of wrong values whose key's pattern is
 * an instance of one of them (classes_pattern_covers: "unfold masked_fill_@view-of-in", or the
 * class widened to "unfold write@view-of-in") fails like the case. Without it a class more general
 * than the case is not the case's bug (`write@in` is not the TorchScript gap `setitem_or@in`), so
 * covers is for reports whose mechanism is the family's (a write through a gapped unfold, any
 * write), written by the person who reads the report, never derived from one campaign's classes.
 * Each applicable case is judged once per campaign folder; the judgements are kept in
 * DIR/known.json (a case edited since is judged again).
 *
 * Bugs aliasfuzz itself already knows (not necessarily on any tracker) are matched by the same
 * rules: the findings kept in docs/findings/NAME/ (the program is NAME/repro.json, what it gives
 * is NAME/expect.json) and the documented gaps of corpus/known-gaps/ (the program's own
 * meta.known_gap). Both carry the same small form:
 *
 *   {"format": "aliasfuzz-finding-expect/1",        (expect.json only)
 *    "expect": {"torch-2.13": {"iree": "value-mismatch"}},   as above, required
 *    "upstream": {"tracker": "pytorch/pytorch#68064", "url": "https://...", "state": "open"},
 *                optional: the public report that is this bug, where its README names one
 *    "covers": [...]}                                 optional, as above
 *
 * A folder without expect.json and a gap without meta.known_gap mark nothing. A class they mark
 * says "known_source": "finding" ("known": "docs/findings/NAME") or "known-gap" ("known":
 * "corpus/known-gaps/ID"), so that a report tells ours-but-unfiled from filed upstream; the
 * upstream cases are matched first. */
#ifndef KNOWN_H
#define KNOWN_H

#include <cjson/cJSON.h>

#include "../harness/af.h"
#include "../harness/converters/conv.h"
#include "../harness/ir.h"
#include "../oracle/oracle.h"

/* Where a known case comes from. */
typedef enum known_source {
  KNOWN_UPSTREAM, /* corpus/known-upstream/: a public report */
  KNOWN_FINDING,  /* docs/findings/NAME/: a finding aliasfuzz kept */
  KNOWN_GAP       /* corpus/known-gaps/: a documented gap */
} known_source;

/* "upstream", "finding", "known-gap": classes.json's known_source. */
const char *known_source_name(known_source s);

typedef struct known_case {
  known_source source;
  char *id;        /* meta.id (a finding: its folder's name), new */
  char *mark;      /* what a class it marks says as "known": the tracker, "docs/findings/NAME" or "corpus/known-gaps/ID", new */
  char *path;      /* the file, new */
  char *tracker;   /* "pytorch/pytorch#165409", new; of ours, the upstream report it names, else NULL */
  char *state;     /* "open", "fixed in 2.13", ..., new; of ours, the upstream report's, else NULL */
  char *mechanism; /* one line, new; NULL for ours (their README says it) */
  char *url;       /* the report's address, new; NULL when the case gives none */
  uint64_t digest; /* of the file's text: a cached judgement of another text is stale */
  ir_program *p;   /* new */
  cJSON *expect;   /* meta.known.expect, new: {stack: {converter: verdict name}} */
  cJSON *covers;   /* meta.known.covers, new: [patterns], or NULL (the case's own pattern, op for op) */
} known_case;

typedef struct known_corpus {
  int n;
  known_case *cases;
} known_corpus;

/* The folder of known cases: $AF_KNOWN_DIR when set ("" or "none": no known cases, NULL), else
 * the source tree's corpus/known-upstream. Borrowed. */
const char *known_dir(void);

/* Reads every *.json of dir, in name order, into kc (cleared first). -1 with err naming the file
 * and field when one is malformed: not a program, or meta.known without a string tracker, state
 * and mechanism, or an expect that is not {stack: {converter: verdict name}}. */
int known_load(const char *dir, known_corpus *kc, af_err *err);
void known_corpus_clear(known_corpus *kc);

/* The folders of aliasfuzz's own known bugs: $AF_KNOWN_FINDINGS_DIR / $AF_KNOWN_GAPS_DIR when set
 * ("" or "none": none, NULL), else the source tree's docs/findings and corpus/known-gaps. NULL
 * too when AF_KNOWN_DIR is "none" (no matching at all). Borrowed. */
const char *known_findings_dir(void);
const char *known_gaps_dir(void);

/* Appends to kc the findings of dir (source KNOWN_FINDING: every NAME/ holding expect.json, in
 * name order) or the gaps of dir (KNOWN_GAP: every *.json whose meta has known_gap). -1 with err
 * naming the file and field when one is malformed (kc keeps what was read before). */
int known_load_ours(const char *dir, known_source source, known_corpus *kc, af_err *err);

/* kc (cleared first) = the upstream cases, then the findings, then the gaps, each folder when set
 * and present. -1 with err when one cannot be read. */
int known_load_all(known_corpus *kc, af_err *err);
/* known_load_all for marking a campaign's classes (known_annotate, known_fold): a case that cannot
 * be read (malformed, or an op this build does not know) is left out with a warning on stderr
 * naming it, and the others still mark; -1 only when a folder cannot be read. */
int known_load_usable(known_corpus *kc, af_err *err);

/* The verdict name case k expects on converter conv on stack (at_stack() form), borrowed; NULL
 * when k says nothing about that converter there. */
const char *known_expected(const known_case *k, const char *stack, const char *conv);

/* Judges p on c as aliasfuzz judges a class's program again: a worker converter in this process
 * (the worker is the isolation, and one worker serves every program), an in-process one in a
 * forked child killed after deadline_s (<= 0: 30 s). 0 with *j filled (clear it with
 * judgement_clear); -1 with err when p could not be judged. */
struct judgement;
int known_judge(const conv_converter *c, const ir_program *p, double deadline_s, int fail_on_residual, struct judgement *j,
                af_err *err);

/* Marks the classes of idx (classes.h) of converter c that match a known case (above):
 * "known": the case's mark (the tracker of an upstream case), "known_source": known_source_name,
 * "known_case": the case's id, "known_state": the upstream report's state, "known_url": its
 * address, "known_upstream": the tracker a finding or gap names (the last three when there is
 * one); a class that matches none loses them. Judges each case whose expect names c on this stack with another verdict than
 * pass, at most once per campaign_dir (DIR/known.json keeps the judgements); progress on stderr.
 * Nothing to do without classes or without a known folder (known_dir() NULL or missing). 0 on
 * success, -1 with err when the known folder cannot be read (classes are left as they are). */
int known_annotate(cJSON *idx, const conv_converter *c, const char *campaign_dir, double deadline_s, af_err *err);

/* One known bug is one class: after known_annotate, converter c's classes of one verdict group that
 * one case marks, and the unmarked ones whose key's pattern holds one of its covers with more
 * tokens beside it (classes_pattern_covers_within: `unfold write@view index_put_@in`, a later write
 * that carried the zeros of pytorch#198102 to what the program returns), fold into the first class
 * the case marks (classes_index_fold: its id listed under "absorbed"). Two classes marked with one
 * case were two placements its covers name (`unfold write@view-of-in`, `unfold write@view`), which
 * the campaign's containment (within one placement) could not join. A class with more writes than
 * a cover is not marked on its own: only beside the case's own class is it that class. Returns the
 * classes folded, or -1 with err when the known folder cannot be read. */
int known_fold(cJSON *idx, const conv_converter *c, af_err *err);

/* For one failure outside a campaign (a `check` case): what a class would be marked "known" with
 * (the tracker of an upstream case, "docs/findings/NAME" or "corpus/known-gaps/ID" of ours) for
 * the known case that fails the same way as program p failing on converter c with verdict v and detail (pattern:
 * classes_plain_pattern(p)), new (free it); NULL when none matches or there are no known cases.
 * Judgements are cached in cache_dir/known.json as for known_annotate. -1 with err only when the
 * known folder cannot be read (*tracker NULL). */
int known_match_key(const conv_converter *c, oracle_verdict v, const char *detail, const char *pattern, const char *cache_dir,
                    double deadline_s, char **tracker, af_err *err);

/* Whether a class entry is marked known. */
int known_is_known(const cJSON *cls);

/* Whether a class entry is marked known by an upstream case (a class marked before
 * known_source existed is), not by one of aliasfuzz's own findings or gaps. */
int known_is_upstream(const cJSON *cls);

#endif
