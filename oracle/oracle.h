/* oracle.h - compares a converter's result with eager PyTorch's and names a verdict.
 *
 * Verdicts (stable names; reports, expectation files and signatures use them):
 *   pass                   every output and every input's final state equal eager's
 *   value-mismatch         same shapes and dtypes, different values (outside tolerance)
 *   shape-mismatch         an output or final input state has another shape than eager's
 *   dtype-mismatch         ... another dtype
 *   input-mutation-lost    eager mutated an input; the converter left it as it was, or cannot
 *                          express its final state (null), while its outputs are right
 *   residual-mutation      values right, but the converted graph still mutates (informational
 *                          unless the caller asks to fail on it)
 *   converter-unsupported  the converter declined the program
 *   converter-error        conversion or run raised an error
 *   converter-crash        the converter's process died
 *   converter-timeout      the converter ran past its deadline
 *   invalid-program        eager PyTorch itself rejected the program: a generator or corpus bug
 *   wrong-gradient         a training program (docs/training.md): outputs and final states right,
 *                          but the .grad of an input or parameter that requires grad differs from
 *                          eager's (an unset .grad reads as zeros), or the converter gave none
 *   autograd-rejects       a training program (docs/training.md) eager's autograd accepts (forward and
 *                          backward run) while the converter raises one of autograd's own refusals
 *                          (oracle_autograd_refusal: a tensor saved for backward modified in place, a
 *                          leaf that requires grad written in place, the view + in-place rules);
 *                          the detail starts with the rule's name
 *   autograd-accepts       the reverse: eager's autograd refuses the training program (one of those
 *                          rules), the converter runs it, backward included, and gives gradients
 *                          (a converter that never ran, a result without gradients, leaves eager's
 *                          invalid-program)
 *                          (both refusing by autograd's rules is a pass: the converter tells the user
 *                          what eager tells them)
 *   worker-protocol-error  an external worker broke the aliasfuzz-worker protocol (harness/workers/
 *                          PROTOCOL.md): an answer that is not JSON, for another id, with the wrong
 *                          number of outputs or inputs, malformed tensors, a proper hello missing
 *                          after a restart, stray stdout lines past the bound. A finding about the
 *                          worker (or harness), never a converter bug: reports give it its own section
 *
 * Comparison: integers (uint8, int8, int32, int64) and bools exactly; floats with
 * |a - b| <= atol + rtol * |b| (float32: rtol 1e-5, atol 1e-5; float64: 1e-10, 1e-10; float16:
 * 2e-3, 1e-5; bfloat16: 1.6e-2, 1e-5: about two units in the last place of each), any two
 * non-finite values are equal (NaN, +inf, -inf: which one IEEE arithmetic gives from an infinity
 * or a NaN depends on the order of operations, which a converter may change), a finite value
 * never equals a non-finite one.
 * Benign causes ruled out before reporting: differences within that tolerance (summation order). */
#ifndef ORACLE_H
#define ORACLE_H

#include "../harness/result.h"

typedef enum {
  V_PASS,
  V_VALUE_MISMATCH,
  V_SHAPE_MISMATCH,
  V_DTYPE_MISMATCH,
  V_INPUT_MUTATION_LOST,
  V_RESIDUAL_MUTATION,
  V_UNSUPPORTED,
  V_ERROR,
  V_CRASH,
  V_TIMEOUT,
  V_INVALID_PROGRAM,
  V_PROTOCOL, /* appended: verdict numbers stay stable across jobs and saved states */
  V_WRONG_GRADIENT, /* appended (issue 33) */
  V_AUTOGRAD_REJECTS, /* appended (issue 33) */
  V_AUTOGRAD_ACCEPTS, /* appended (issue 33) */
  V_COUNT
} oracle_verdict;

typedef struct oracle_opts {
  int fail_on_residual; /* report residual-mutation when the converted graph still mutates */
} oracle_opts;

const char *oracle_verdict_name(oracle_verdict v);
int oracle_verdict_parse(const char *s, oracle_verdict *out); /* 0 on success */
/* True for verdicts that mean "the converter got it wrong" (everything but pass, unsupported,
 * residual-mutation when informational, invalid-program and worker-protocol-error). */
int oracle_verdict_is_bug(oracle_verdict v);

/* Judges conv against eager for program p. *detail (new, free with free()) says where and how
 * they differ in one line ("output 0 (r): shape [5, 5] vs eager [5, 5, 1]"), or NULL on pass. A
 * converter that ran (status ok) and said something while it did (its message: a worker's answer
 * warnings, PROTOCOL.md) has it at the end of a failing verdict's detail, after ORACLE_WARNED and
 * up to a closing "]" (at most ORACLE_WARNED_MAX characters of it): "input t: eager mutated it; the
 * converter left it unchanged [the converter warned: The tensor attribute self.t was assigned
 * during export. ...]". A converter's own words on a wrong result: a limit it declares may be one
 * (fuzz/refusals.h). */
oracle_verdict oracle_judge(const ir_program *p, const result *eager, const result *conv, const oracle_opts *o,
                            char **detail);
#define ORACLE_WARNED " [the converter warned: "
#define ORACLE_WARNED_MAX 1500
/* The converter's warnings in a detail (the text after ORACLE_WARNED, its closing "]" included),
 * or NULL when it has none. Borrowed: a pointer into detail. */
const char *oracle_detail_warnings(const char *detail);
/* The length of detail without its warnings (strlen when it has none). */
size_t oracle_detail_len(const char *detail);

/* Autograd's own refusals of a training program (issue 33, docs/training.md): the name of the rule
 * whose error message holds (saved-modified, leaf-write, no-grad-view-write, view-base-modified,
 * multi-output-view-write, custom-function-view-write, resize-requires-grad), or NULL for any other
 * error. Autograd raises no exception type of its own (every check is a RuntimeError from
 * TORCH_CHECK in torch/csrc/autograd/), so a rule is known by its check's fixed text, quoted from
 * PyTorch's sources (and eager.c's own pre-check, eager.h EAGER_GRAD_*), in one table. */
const char *oracle_autograd_refusal(const char *message);
/* The table: text k of it (the substring a message holds) and its rule, for k = 0.. until NULL
 * (emit_repro.c writes it into repro.py). */
const char *oracle_autograd_refusal_text(int k, const char **rule);
/* The rule of eager's refusal of training program p (result e), or NULL (e ran, or failed otherwise):
 * where the judge runs the converter although eager failed, to judge autograd-accepts. */
const char *oracle_eager_autograd_refusal(const ir_program *p, const result *e);

/* "[5, 5, 1]" for a tensor, appended to b. */
void oracle_put_shape(af_buf *b, const af_tensor *t);

#endif
