/* batch.h - batched conversion (issue 32): k generated programs judged as one program, for
 * converters whose fixed cost per conversion dominates (docs/batching.md has the measurements).
 *
 * batch_combine makes one program of k: their inputs side by side (sub-program 0's first), their
 * bodies one after the other, their outputs side by side, every value of sub-program j renamed
 * "bJ_NAME" (disjoint: the part after "bJ_" never starts with a digit). Each input keeps the
 * values it has in its own program as explicit data (the default values depend on an input's
 * position). The sub-programs share nothing, so the combined program's eager run gives each
 * sub-program's outputs and final input states (tests/test_batch.c checks it).
 *
 * batch_judge judges a group through the caller's judge function: the combined program first;
 * when it passes, every sub-program passes; otherwise the group is split in halves, and each half
 * judged the same way, down to single programs, which are judged alone, so that a finding is
 * exactly the judgement of its own program (the same verdict and detail, the same iteration and
 * seed, minimized as today). A half whose sibling passed while their group failed is split without
 * being judged whole. Assumed: a converter that gets the combined program right gets each part
 * right (parts share no value; a bug that shows only alone would be missed), and a bug that shows
 * only in the combined program is dropped (no single program shows it).
 *
 * Judged alone, never combined (batch_alone_reason says which):
 *   - input layouts (inputs that alias a storage or have strides of their own): a caching
 *     converter is called twice on them, in two calling orders (judge.h), each order a
 *     compilation of its own, and a finding says which call failed; a combined program would
 *     mix their calls with the other parts';
 *   - a data-dependent `if`: export-based converters (export-decomp, onnx-dynamo, openvino,
 *     tvm-relax) reject it, so a part that holds one fails every batch it is in and costs its
 *     split (about k more conversions); Dynamo breaks the graph there. `for` loops are combined
 *     (their trip counts are known: tracing unrolls them).
 *   - a training program (issue 33): the combined program would be an inference program (its
 *     parts' requires_grad, parameters and loss weights are not carried), so its gradients would
 *     never be compared.
 * Module state is combined: the combined program is one nn.Module's forward whose buffers are
 * every part's (renamed, so disjoint); a converter that refuses module state refuses the whole
 * batch, which then splits (batching is on by default only for converters that take it).
 * What the caller does not batch at all: in-process converters (no fixed cost to save, and a
 * crash there kills the job that judges the batch). */
#ifndef BATCH_H
#define BATCH_H

#include "judge.h"

#define BATCH_MAX 64 /* largest k */

/* Where a combined input or output comes from: sub-program prog, its input or output index. */
typedef struct batch_ref {
  int prog, index;
} batch_ref;

typedef struct batch_map {
  int k;
  int ninputs, noutputs;
  batch_ref *inputs;  /* ninputs entries, new */
  batch_ref *outputs; /* noutputs entries, new */
} batch_map;

void batch_map_clear(batch_map *m); /* frees inside; zeroes */

/* NULL when p may be combined with others; else why it is judged alone (a static string). */
const char *batch_alone_reason(const ir_program *p);

/* One program of ps[0..k) (1 <= k <= BATCH_MAX), each one that batch_alone_reason passes.
 * *out new, free with ir_program_free; map (may be NULL) filled, free with batch_map_clear.
 * -1 with err (naming the sub-program) when a part is not combinable or a renamed name is no
 * usable identifier. */
int batch_combine(const ir_program *const *ps, int k, ir_program **out, batch_map *map, af_err *err);

/* The caller's judge: program p (n sub-programs combined; 1: one of the caller's own programs,
 * which is ps[idx] of batch_judge) into *out (memset 0 first). It never fails: a harness error is
 * the caller's verdict to give (the campaign's invalid-program with the message). */
typedef void (*batch_judge_fn)(void *ctx, const ir_program *p, int n, int idx, judgement *out);

typedef struct batch_stats {
  int judged;   /* calls of the judge function */
  int combined; /* of which on combined programs */
  int passed;   /* combined programs that passed */
} batch_stats;

/* Judges ps[0..k) as described above: out[i] is ps[i]'s judgement (V_PASS with nothing else when
 * a group holding it passed; its own judgement alone otherwise). stats may be NULL (else added
 * to). Every ps[i] must be combinable (batch_alone_reason NULL); k of 1 judges it alone. */
void batch_judge(const ir_program *const *ps, int k, batch_judge_fn judge, void *ctx, judgement *out, batch_stats *stats);

#endif
