/* judge.h - one program, one converter, one verdict: in process, or isolated in a forked child
 * with a deadline so that a converter that crashes, aborts or hangs becomes a verdict instead of
 * taking the caller down. */
#ifndef JUDGE_H
#define JUDGE_H

#include "../harness/converters/conv.h"
#include "../oracle/oracle.h"

typedef struct judgement {
  oracle_verdict verdict;
  char *detail; /* new or NULL */
  char *graph;  /* converted graph text, new or NULL */
  int residual;
} judgement;

void judgement_clear(judgement *j);

/* Eager + converter + oracle in this process. */
int judge_inprocess(const conv_converter *c, const ir_program *p, const oracle_opts *o, judgement *out, af_err *err);

/* The same in a forked child, killed after deadline_s seconds: a child that dies gives
 * converter-crash ("killed by signal N" / "exited with status N"), one that outlives the deadline
 * converter-timeout. */
int judge_isolated(const conv_converter *c, const ir_program *p, const oracle_opts *o, double deadline_s, judgement *out,
                   af_err *err);

/* Whether a candidate shows the same bug: same verdict, and for error-like verdicts the same
 * normalized message (signature.h). */
int judge_same_bug(const judgement *a, oracle_verdict v, const char *detail);

#endif
