/* refusals.h - what a converter refuses by design (issue 34): limits apart from bugs, and the
 * campaign's generator adapted to them.
 *
 * Declarations. Each converter declares what it refuses by design: a REFUSES line of
 * harness/converters/workers.def (named workers and in-process converters alike, by name), or its
 * hello's "refuses" (a worker run as external:COMMAND; harness/workers/PROTOCOL.md). A refusal has
 * a name (one line for the report), match (texts, '|'-separated, one of which a refused program's
 * detail holds), knob (the generator's chance that writes the construct, by its name in the policy
 * JSON's "chances", or NULL) and certain (every program with the construct is refused).
 *
 * Limits. A failing program is a limit of the converter, not a bug, when its verdict is
 * converter-unsupported (the converter declined it; aliasfuzz's own harness limits are harness
 * findings, classes.h) or its detail matches a declared refusal (a documented limit that surfaces
 * as an error: AOTAutograd's as_strided view-chain ban), or a wrong result the converter warned of
 * as it converted with a declared refusal's text (torch.export: "The tensor attribute self.t was
 * assigned during export. Such attributes must be registered as buffers": it drops the rebind). A campaign marks such a class "limit":
 * NAME in classes.json; the report lists it under "What this converter refuses", and it counts in
 * no bug figure and no exit status (with --baseline a new one still does: the change refuses a
 * program the baseline converted).
 *
 * Ranks. Minimizing what matters first: rank 0 for wrong values, wrong shapes or dtypes and lost
 * input mutations; 1 for errors, crashes and timeouts; 2 for limits. */
#ifndef REFUSALS_H
#define REFUSALS_H

#include "../harness/converters/conv.h"
#include "../oracle/oracle.h"
#include "gen.h"

typedef struct refusal {
  const char *name;
  const char *match; /* '|'-separated texts */
  const char *knob;  /* a chance of the policy JSON ("if"), or NULL */
  int certain;
} refusal;

/* The generator's chance knob is multiplied by this once its refusal applies: at the default `if`
 * chance 40% of programs have an if, so about 2% then. */
#define REFUSALS_FACTOR 0.05

/* The refusals converter c declares: its REFUSES lines, then its hello's when it said hello
 * already (a campaign asks after c->available; this starts no worker). Found once per process
 * and converter (a job forked from the campaign has the parent's): *n their number; borrowed. */
const refusal *refusals_of(const conv_converter *c, int *n);
/* The first of c's refusals whose match stands in text, or NULL. */
const refusal *refusals_match(const conv_converter *c, const char *text);
/* The limit a failing program with verdict v and detail is on c: the matching refusal's name,
 * "converter-unsupported" for any other converter-unsupported program that is no harness limit,
 * NULL for a bug. A verdict of a converter that ran (refusals_ran: a wrong value, shape, dtype,
 * final state or gradient) is a limit only when the converter itself warned of it: a refusal's
 * text in the warnings its detail ends with (oracle.h ORACLE_WARNED; refusals_warned), never in
 * the rest of the detail, which aliasfuzz wrote. Borrowed. */
const char *refusals_limit(const conv_converter *c, oracle_verdict v, const char *detail);
/* Whether verdict v comes from a converter that ran (status ok): its detail may end with the
 * converter's warnings. */
int refusals_ran(oracle_verdict v);
/* The refusal of c whose text stands in the warnings of detail (oracle_detail_warnings), for a
 * verdict of a converter that ran, or NULL; *hit (borrowed, in the refusal's match) and *len, when
 * not NULL: the text that matched. */
const refusal *refusals_warned(const conv_converter *c, oracle_verdict v, const char *detail, const char **hit, size_t *len);
/* Whether two judgements are the same limit on c, or both none (refusals_limit): a candidate of a
 * minimization or a generalization variant that the converter warned of where the program it came
 * from was not warned of (or the other way round) is another bug. */
int refusals_same_limit(const conv_converter *c, oracle_verdict a, const char *da, oracle_verdict b, const char *db);
/* 0 wrong result (value, shape, dtype, input mutation lost), 1 error, 2 limit (refusals_limit). */
int refusals_rank(const conv_converter *c, oracle_verdict v, const char *detail);
/* The same from a quick key ("verdict|..." , classes.h): its verdict name, and its text for the match. */
int refusals_rank_quick(const conv_converter *c, const char *quick);
/* p with chance knob multiplied by REFUSALS_FACTOR. 0, or -1 (no such chance: p unchanged). */
int refusals_downweight(gen_policy *p, const char *knob);

/* Marks each class of the class index idx (classes.h) that is a limit on c ("limit": name; a class
 * no longer one loses the mark). Returns the number of limit classes. */
struct cJSON;
int refusals_mark_classes(struct cJSON *idx, const conv_converter *c);
/* Whether a class entry of classes.json is a limit (its "limit" mark). */
int refusals_class_is_limit(const struct cJSON *cls);
/* Deferred quick keys of idx that no class holds and that are limits on c (refusals_rank_quick 2). */
int refusals_deferred_limits(const struct cJSON *idx, const conv_converter *c);

#endif
