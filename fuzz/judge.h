/* judge.h - one program, one converter, one verdict: in process, or isolated in a forked child
 * with a deadline so that a converter that crashes, aborts or hangs becomes a verdict instead of
 * taking the caller down. */
#ifndef JUDGE_H
#define JUDGE_H

#include "../harness/converters/conv.h"
#include "../oracle/oracle.h"
#include "gen.h"

typedef struct judgement {
  oracle_verdict verdict;
  char *detail; /* new or NULL */
  char *graph;  /* converted graph text, new or NULL */
  int residual;
  /* Calling orders (PROTOCOL.md "Calling again"): ncalls 0 when the program is called once; else
   * the calls made in all (1 to 3: the calls stop at the first that does not pass), order the
   * calling order the verdict is from (1: compiled on the declared layout; 2: compiled on fresh
   * contiguous inputs, then called again on the declared layout) and call the call within it (1,
   * or 2 for order 2's second call). A verdict other than pass then has a detail starting "order K
   * of 2, ..." that names the layout (and for order 2 "call K of 2 (...)"). */
  int ncalls, order, call;
} judgement;

void judgement_clear(judgement *j);

/* Eager + converter + oracle in this process.
 *
 * A converter that caches (a worker whose hello says "caches": true: torch.compile's aot_eager
 * and inductor) is called in both calling orders on a program with input layouts
 * (judge_calls_again), in the same worker process: order 1 converts on the declared layout (the
 * inputs alias at compile time: AOTAutograd's synthetic-base path); order 2 converts on fresh
 * contiguous inputs holding the same values (judge_plain_copy, call 1), then calls what it
 * compiled on the declared layout with "again" (call 2: its guards decide whether to recompile).
 * Each call is judged against its own eager run; the verdict is the first call's that did not
 * pass, else pass.
 *
 * A training program (issue 33) on a converter that does not train (conv_trains: an in-process
 * converter, a worker whose hello lacks "train": true) is judged in its inference form
 * (ir_untrain: no backward, no gradients, parameters plain buffers), eager included: what such a
 * converter can be asked, never a converter-unsupported. */
int judge_inprocess(const conv_converter *c, const ir_program *p, const oracle_opts *o, judgement *out, af_err *err);

/* judge_inprocess keeping what eager and the converter gave when the program is called once
 * (`aliasfuzz run --json` prints their shapes and the converter's own seconds): *eager and *conv,
 * result_init'ed and later result_clear'ed by the caller, hold the two results (*conv stays empty
 * when eager fails: the program is invalid). When judge_calls_again, both stay empty and
 * out->ncalls says how many calls were made. */
int judge_inprocess_results(const conv_converter *c, const ir_program *p, const oracle_opts *o, judgement *out, result *eager,
                            result *conv, af_err *err);

/* The same in a forked child, killed after deadline_s seconds: a child that dies gives
 * converter-crash ("killed by signal N" / "exited with status N"), one that outlives the deadline
 * converter-timeout. */
int judge_isolated(const conv_converter *c, const ir_program *p, const oracle_opts *o, double deadline_s, judgement *out,
                   af_err *err);

/* Whether judge_inprocess calls c in both orders on p: c caches, p has input layouts, and
 * AF_SECOND_CALL is not "0" (with it, one call on the declared layout: order 1 alone). */
int judge_calls_again(const conv_converter *c, const ir_program *p);

/* p with every input's layout dropped: each input fresh and contiguous, holding the values it has
 * under p's layout (explicit data), and no bases. new, free with ir_program_free; NULL when the
 * inputs cannot be built (err says why). */
ir_program *judge_plain_copy(const ir_program *p, af_err *err);

/* One line naming p's input layouts: "b = as_strided(a, [2, 5], [5, 1], 5)" for each input with
 * one ("; "-separated; an input that is its whole storage, contiguous, is left out: it is the
 * base the others view), or "fresh contiguous inputs"; then, for each storage two or more inputs
 * view, "; a and b share a storage". new, free with free(). */
#define JUDGE_SHARE_A_STORAGE " share a storage"

/* The shared-storage reuse rule. A caching converter is called twice on a program whose inputs
 * have a layout: order 2 compiles on fresh, separate inputs and calls what it compiled on the
 * declared layout. When order 1 (compiled on the declared layout) passed, order 2's first call
 * passed, and its second call went wrong while served by the graph compiled for the first (the
 * converter said so: no recompilation) on inputs that share a storage, the bug is that the
 * compiled program was reused on aliased inputs it was not compiled for: TorchDynamo does not
 * guard on input aliasing (pytorch/pytorch#139789), whatever the program writes. Keyed by pattern,
 * one campaign listed that as a class per write pattern, and a 2-statement one joined a first-call
 * class whose pattern held its writes (a write through dropout's identity) by containment: it
 * keys on CLASSES_SHARED_REUSE_KEY (classes.h), and a candidate shows the same bug as such a
 * failure only when it fails so too (judge_same_bug). 1 when detail (take_call's order and layout
 * text, the worker's warning) says so, else 0. */
int judge_reused_on_shared(const char *detail);
char *judge_layouts_text(const ir_program *p);

/* Whether a candidate shows the same bug: same verdict (a value-mismatch of an input's final state and
 * an input-mutation-lost are one: a lost write shows as either, by what else writes that input), for
 * error-like verdicts the same normalized message (signature.h), and a failure of the shared-storage
 * reuse rule only as one. */
int judge_same_bug(const judgement *a, oracle_verdict v, const char *detail);

/* 1 when the writes of p change nothing eager can see (a write that changes nothing proves
 * nothing): p with every write made the identity (its result `alias` of its target, or the
 * statement gone when it binds nothing) gives eager's own outputs and final input states.
 * `t_()` of a [1, 1] tensor, `squeeze_()` of one with no size-1 dimension, `floor_()` of
 * integral values, a setitem whose slice is empty: a converter that drops such a write passes,
 * which says nothing about it. 0 when p has no write or either program does not run. */
int judge_writes_change_nothing(const ir_program *p);
/* p with every write made the identity (its result `alias` of its target, or the statement gone
 * when it binds nothing; a written argument other than the first, batch_norm's running statistics,
 * made None, which its schema takes): what judge_writes_change_nothing compares with, and what classes.h
 * judges to tell an error that needs the writes from one that does not. *writes: how many there
 * were. new (ir_program_free); may not validate. */
ir_program *judge_without_writes(const ir_program *p, int *writes);

/* The seed of redraw k (1, 2, ...) of seed: a splitmix64 step away from it. */
uint64_t judge_redraw_seed(uint64_t seed, int k);

/* The program of seed as campaigns and `aliasfuzz gen` use it: gen_program(pol, seed), passed over
 * for gen_program(pol, judge_redraw_seed(seed, k)), k = 1, 2, ..., while its writes change nothing
 * eager can see (judge_writes_change_nothing), at most pol->noop_redraws times (the last draw is
 * kept whatever it is). A program without writes is kept: it tests views and functional ops.
 * *used (may be NULL): the seed of the program returned, which its meta records (gen_program(pol,
 * *used) makes it alone); *redraws (may be NULL): how many programs were passed over. Costs two
 * eager runs per program with writes. *out new, free with ir_program_free; -1 with err only for
 * a bad policy. */
int judge_gen_program(const gen_policy *pol, uint64_t seed, ir_program **out, uint64_t *used, int *redraws, af_err *err);

#endif
