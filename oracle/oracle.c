/* oracle.c - verdicts from two results. */
#include "oracle.h"
#include "../harness/eager.h"
#include "../harness/ops/ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *names[V_COUNT] = {
    "pass",           "value-mismatch",        "shape-mismatch",  "dtype-mismatch",
    "input-mutation-lost", "residual-mutation", "converter-unsupported", "converter-error",
    "converter-crash", "converter-timeout",    "invalid-program", "worker-protocol-error",
    "wrong-gradient", "autograd-rejects", "autograd-accepts",
};

const char *oracle_verdict_name(oracle_verdict v) { return v < V_COUNT ? names[v] : "?"; }

int oracle_verdict_parse(const char *s, oracle_verdict *out) {
  for (int i = 0; i < V_COUNT; i++)
    if (strcmp(s, names[i]) == 0) {
      *out = (oracle_verdict)i;
      return 0;
    }
  return -1;
}

int oracle_verdict_is_bug(oracle_verdict v) {
  return v != V_PASS && v != V_UNSUPPORTED && v != V_INVALID_PROGRAM && v != V_RESIDUAL_MUTATION && v != V_PROTOCOL;
}

void oracle_put_shape(af_buf *b, const af_tensor *t) {
  int64_t sh[AF_MAX_RANK * 4];
  int r = at_tensor_rank(t);
  if (r > (int)(sizeof sh / sizeof sh[0])) r = (int)(sizeof sh / sizeof sh[0]);
  at_tensor_shape(t, sh);
  af_buf_puts(b, "[");
  for (int d = 0; d < r; d++) af_buf_printf(b, "%s%lld", d ? ", " : "", (long long)sh[d]);
  af_buf_puts(b, "]");
}

static int same_shape(const af_tensor *a, const af_tensor *b) {
  int64_t sa[64], sb[64];
  int r = at_tensor_rank(a);
  if (r != at_tensor_rank(b) || r > 64) return 0;
  at_tensor_shape(a, sa);
  at_tensor_shape(b, sb);
  return memcmp(sa, sb, sizeof(int64_t) * (size_t)r) == 0;
}

static int close_enough(double a, double b, int dt) {
  /* two non-finite values are equal whatever they are: which of NaN, +inf and -inf IEEE arithmetic
     gives from an infinity or a NaN depends on the order of operations ((a*b)/c or a*(b/c), the
     sign of a zero, inf - inf), which equivalent formulas and a converter's decompositions change */
  if (!isfinite(a) || !isfinite(b)) return !isfinite(a) && !isfinite(b);
  if (dt == AF_FLOAT32) return fabs(a - b) <= 1e-5 + 1e-5 * fabs(b);
  if (dt == AF_FLOAT64) return fabs(a - b) <= 1e-10 + 1e-10 * fabs(b);
  /* half precision: about two units in the last place (float16 has 11 significant bits,
   * bfloat16 8), so a converter that computes in float32 and rounds once still passes */
  if (dt == AF_FLOAT16) return fabs(a - b) <= 1e-5 + 2e-3 * fabs(b);
  if (dt == AF_BFLOAT16) return fabs(a - b) <= 1e-5 + 1.6e-2 * fabs(b);
  return a == b; /* integers and bool: exact */
}

/* Compares values of two tensors of the same shape and dtype; -1 when equal, else the first
 * differing flat index (and the two values). */
static int64_t first_diff(const af_tensor *want, const af_tensor *got, double *wv, double *gv) {
  int64_t n = at_tensor_numel(want);
  double *a = af_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
  double *b = af_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
  af_err err;
  int64_t at = -1;
  int dt = at_tensor_dtype(want);
  size_t es = af_dtype_size((af_dtype)dt);
  if (at_tensor_values(want, a, &err) || at_tensor_values(got, b, &err)) {
    at = 0;
    *wv = *gv = NAN;
  } else if (af_dtype_is_int((af_dtype)dt) && es > 4) {
    /* int64 exactly, by its bytes: a double holds 53 bits, so values past 2^53 (float bits read
       as int64 through x.view(torch.int64), products that wrapped) that differ in their last bits
       convert to one double */
    unsigned char *ba = af_xmalloc(es * (size_t)(n ? n : 1)), *bb = af_xmalloc(es * (size_t)(n ? n : 1));
    if (at_tensor_bytes(want, ba, es * (size_t)n, &err) || at_tensor_bytes(got, bb, es * (size_t)n, &err)) {
      at = 0;
      *wv = *gv = NAN;
    } else {
      for (int64_t k = 0; k < n; k++)
        if (memcmp(ba + es * (size_t)k, bb + es * (size_t)k, es) != 0) {
          at = k;
          *wv = a[k];
          *gv = b[k];
          break;
        }
    }
    free(ba);
    free(bb);
  } else {
    for (int64_t k = 0; k < n; k++)
      if (!close_enough(b[k], a[k], dt)) {
        at = k;
        *wv = a[k];
        *gv = b[k];
        break;
      }
  }
  free(a);
  free(b);
  return at;
}

/* Verdict for one tensor pair; writes a detail line on mismatch. */
static oracle_verdict compare(const af_tensor *want, const af_tensor *got, const char *what, af_buf *d) {
  if (!same_shape(want, got)) {
    af_buf_printf(d, "%s: shape ", what);
    oracle_put_shape(d, got);
    af_buf_puts(d, ", eager ");
    oracle_put_shape(d, want);
    return V_SHAPE_MISMATCH;
  }
  if (at_tensor_dtype(want) != at_tensor_dtype(got)) {
    af_buf_printf(d, "%s: dtype %s, eager %s", what, af_dtype_name((af_dtype)at_tensor_dtype(got)),
                  af_dtype_name((af_dtype)at_tensor_dtype(want)));
    return V_DTYPE_MISMATCH;
  }
  double wv, gv;
  int64_t k = first_diff(want, got, &wv, &gv);
  if (k >= 0) {
    af_buf_printf(d, "%s: element %lld is %g, eager %g", what, (long long)k, gv, wv);
    return V_VALUE_MISMATCH;
  }
  return V_PASS;
}

static int rank_of(oracle_verdict v) {
  switch (v) {
    case V_SHAPE_MISMATCH: return 4;
    case V_DTYPE_MISMATCH: return 3;
    case V_VALUE_MISMATCH: return 2;
    case V_INPUT_MUTATION_LOST: return 1;
    default: return 0;
  }
}

/* A .grad that is unset (NULL) compares as zeros of its input's shape and dtype: eager and a
 * compiled backward may differ in leaving it unset or zero, which no user can tell apart in a sum. */
static af_tensor *grad_or_zeros(const ir_program *p, int i, const af_tensor *g) {
  if (g) return at_tensor_ref(g);
  const ir_input *in = i < p->ninputs ? &p->inputs[i] : NULL; /* else hidden base i - ninputs: flat */
  const ir_base *B = in ? NULL : &p->bases[i - p->ninputs];
  int64_t n = in ? ir_numel(in->rank, in->shape) : B->numel;
  double *z = af_xcalloc((size_t)(n ? n : 1), sizeof(double));
  af_tensor *t = NULL;
  af_err err;
  if (at_tensor_new(in ? in->dtype : B->dtype, in ? in->rank : 1, in ? in->shape : &B->numel, z, &t, &err)) t = NULL;
  free(z);
  return t;
}

/* Autograd's refusals (oracle.h): the fixed text of each check, as PyTorch 1.13 and 2.x word it
 * (torch/csrc/autograd/saved_variable.cpp, VariableTypeUtils.h check_inplace, variable.cpp
 * handle_view_on_rebase, ...), and eager.c's own pre-check (eager.h). The first text a message
 * holds names the rule: view-base-modified before multi-output-view-write, whose sentence its
 * message repeats. */
static const struct {
  const char *rule, *text;
} refusals[] = {
    {"saved-modified", "one of the variables needed for gradient computation has been modified by an inplace operation"},
    {"leaf-write", "a leaf Variable that requires grad is being used in an in-place operation"},
    {"leaf-write", "a view of a leaf Variable that requires grad is being used in an in-place operation"},
    {"leaf-write", EAGER_GRAD_LEAF EAGER_GRAD_WRITE_REFUSED},
    {"no-grad-view-write", "A view was created in no_grad mode and is being modified inplace"},
    {"no-grad-view-write", EAGER_GRAD_NOGRAD_VIEW EAGER_GRAD_WRITE_REFUSED},
    {"view-base-modified", "is a view and its base or another view of its base has been modified inplace"},
    {"multi-output-view-write", "This view is the output of a function that returns multiple views"},
    {"custom-function-view-write", "This view was created inside a custom Function"},
    {"resize-requires-grad", "cannot resize variables that require grad"},
};

const char *oracle_autograd_refusal_text(int k, const char **rule) {
  if (k < 0 || k >= (int)(sizeof refusals / sizeof refusals[0])) return NULL;
  if (rule) *rule = refusals[k].rule;
  return refusals[k].text;
}

const char *oracle_autograd_refusal(const char *message) {
  for (size_t k = 0; message && k < sizeof refusals / sizeof refusals[0]; k++)
    if (strstr(message, refusals[k].text)) return refusals[k].rule;
  return NULL;
}

const char *oracle_eager_autograd_refusal(const ir_program *p, const result *e) {
  return p->train && e->status == RESULT_ERROR ? oracle_autograd_refusal(e->message) : NULL;
}

/* A training program where one side's autograd refuses it by its own rules and the other runs it
 * (oracle.h autograd-rejects, autograd-accepts): the verdict and its detail, "RULE: ..."; V_PASS
 * when both refuse so; V_COUNT when neither does (judged as any program). */
static oracle_verdict autograd_verdict(const ir_program *p, const result *eager, const result *conv, char **detail) {
  const char *er = oracle_eager_autograd_refusal(p, eager);
  const char *cr = p->train && conv->status == RESULT_ERROR ? oracle_autograd_refusal(conv->message) : NULL;
  af_buf d = {0};
  oracle_verdict v = V_COUNT;
  if (er && cr) {
    v = V_PASS;
  } else if (er && conv->status == RESULT_OK && conv->ngrads > 0) { /* it ran, backward included (a run gives grads) */
    af_buf_printf(&d, "%s: eager's autograd refuses the program, the converter ran it and its backward (eager: %s)", er,
                  eager->message);
    v = V_AUTOGRAD_ACCEPTS;
  } else if (cr && eager->status == RESULT_OK) {
    af_buf_printf(&d, "%s: the converter's autograd refuses the program, eager ran it and its backward (converter: %s)",
                  cr, conv->message);
    v = V_AUTOGRAD_REJECTS;
  }
  *detail = d.s ? af_buf_take(&d) : NULL;
  return v;
}

/* Training programs (issue 33): every input's .grad against eager's; V_PASS or V_WRONG_GRADIENT
 * with the first difference in d. */
static oracle_verdict compare_grads(const ir_program *p, const result *eager, const result *conv, af_buf *d) {
  if (!p->train || eager->ngrads != ir_ntensors(p)) return V_PASS;
  if (conv->ngrads != ir_ntensors(p)) {
    af_buf_puts(d, "the converter gave no gradients for a training program");
    return V_WRONG_GRADIENT;
  }
  for (int i = 0; i < ir_ntensors(p); i++) { /* the inputs, then the hidden bases (a caller's leaf) */
    if (i < p->ninputs ? !p->inputs[i].grad : !p->bases[i - p->ninputs].grad) continue;
    char what[300];
    snprintf(what, sizeof what, "%s.grad", i < p->ninputs ? p->names[p->inputs[i].value] : p->bases[i - p->ninputs].name);
    af_tensor *w = grad_or_zeros(p, i, eager->grads[i]), *g = grad_or_zeros(p, i, conv->grads[i]);
    oracle_verdict v = w && g ? compare(w, g, what, d) : V_PASS;
    at_tensor_free(w);
    at_tensor_free(g);
    if (v != V_PASS) return V_WRONG_GRADIENT;
  }
  return V_PASS;
}

/* What a converter that ran said as it did (its message: a worker's warnings), after ORACLE_WARNED
 * at the end of a failing verdict's detail (oracle.h). */
static void put_warnings(af_buf *d, const result *conv) {
  if (conv->status != RESULT_OK || !conv->message || !*conv->message) return;
  size_t n = strlen(conv->message);
  int cut = n > ORACLE_WARNED_MAX;
  if (cut) n = ORACLE_WARNED_MAX;
  while (cut && n && ((unsigned char)conv->message[n] & 0xC0) == 0x80) n--; /* not inside a UTF-8 character */
  af_buf_printf(d, "%s%.*s%s]", ORACLE_WARNED, (int)n, conv->message, cut ? "..." : "");
}

oracle_verdict oracle_judge(const ir_program *p, const result *eager, const result *conv, const oracle_opts *o,
                            char **detail) {
  af_buf d = {0};
  oracle_verdict v = V_PASS;
  *detail = NULL;
  v = autograd_verdict(p, eager, conv, detail);
  if (v != V_COUNT) return v;
  v = V_PASS;
  if (eager->status != RESULT_OK) {
    *detail = af_xstrdup(eager->message ? eager->message : "eager failed");
    return V_INVALID_PROGRAM;
  }
  switch (conv->status) {
    case RESULT_OK: break;
    case RESULT_UNSUPPORTED: v = V_UNSUPPORTED; break;
    case RESULT_ERROR: v = V_ERROR; break;
    case RESULT_CRASH: v = V_CRASH; break;
    case RESULT_TIMEOUT: v = V_TIMEOUT; break;
    case RESULT_PROTOCOL: v = V_PROTOCOL; break;
  }
  if (v != V_PASS) {
    *detail = af_xstrdup(conv->message ? conv->message : result_status_name(conv->status));
    return v;
  }
  if (conv->noutputs != eager->noutputs) {
    af_buf_printf(&d, "converter returned %d outputs, eager %d", conv->noutputs, eager->noutputs);
    put_warnings(&d, conv);
    *detail = af_buf_take(&d);
    return V_SHAPE_MISMATCH;
  }
  /* Report the most severe difference; the first one found at that severity. */
  af_buf cur = {0};
  char what[256];
  for (int k = 0; k < eager->noutputs; k++) {
    snprintf(what, sizeof what, "output %d (%s)", k, p->names[p->outputs[k]]);
    af_buf_free(&cur);
    oracle_verdict w = compare(eager->outputs[k], conv->outputs[k], what, &cur);
    if (rank_of(w) > rank_of(v)) {
      v = w;
      af_buf_free(&d);
      d = cur;
      cur = (af_buf){0};
    }
  }
  af_tensor **initial = NULL;
  af_err err;
  if (inputs_new(p, &initial, &err) == 0) {
    for (int i = 0; i < eager->ninputs && i < conv->ninputs; i++) {
      snprintf(what, sizeof what, "input %s", p->names[p->inputs[i].value]);
      af_buf_free(&cur);
      af_buf scratch = {0};
      int eager_changed = compare(initial[i], eager->inputs[i], what, &scratch) != V_PASS;
      af_buf_free(&scratch);
      oracle_verdict w;
      if (!conv->inputs[i]) {
        w = eager_changed ? V_INPUT_MUTATION_LOST : V_PASS;
        if (w) af_buf_printf(&cur, "%s: eager mutated it; the converter cannot express its final state", what);
      } else {
        w = compare(eager->inputs[i], conv->inputs[i], what, &cur);
        if (w != V_PASS && eager_changed && compare(initial[i], conv->inputs[i], what, &scratch) == V_PASS) {
          af_buf_free(&cur);
          af_buf_printf(&cur, "%s: eager mutated it; the converter left it unchanged", what);
          w = V_INPUT_MUTATION_LOST;
        }
        af_buf_free(&scratch);
      }
      if (rank_of(w) > rank_of(v)) {
        v = w;
        af_buf_free(&d);
        d = cur;
        cur = (af_buf){0};
      }
    }
    /* the hidden bases: storage the caller owns that no program name refers to */
    for (int b = 0; b < p->nbases && b < eager->nbases; b++) {
      if (p->bases[b].owner >= 0) continue;
      snprintf(what, sizeof what, "base %s", p->bases[b].name);
      af_buf_free(&cur);
      af_buf scratch = {0};
      const af_tensor *init = initial[p->ninputs + b];
      int eager_changed = compare(init, eager->bases[b], what, &scratch) != V_PASS;
      af_buf_free(&scratch);
      const af_tensor *got = b < conv->nbases ? conv->bases[b] : NULL;
      oracle_verdict w;
      if (!got) {
        w = eager_changed ? V_INPUT_MUTATION_LOST : V_PASS;
        if (w) af_buf_printf(&cur, "%s: eager wrote it through an input; the converter cannot express its final state", what);
      } else {
        w = compare(eager->bases[b], got, what, &cur);
        if (w != V_PASS && eager_changed && compare(init, got, what, &scratch) == V_PASS) {
          af_buf_free(&cur);
          af_buf_printf(&cur, "%s: eager wrote it through an input; the converter left it unchanged", what);
          w = V_INPUT_MUTATION_LOST;
        }
        af_buf_free(&scratch);
      }
      if (rank_of(w) > rank_of(v)) {
        v = w;
        af_buf_free(&d);
        d = cur;
        cur = (af_buf){0};
      }
    }
    inputs_free(ir_ntensors(p), initial);
  }
  af_buf_free(&cur);
  if (v == V_PASS) v = compare_grads(p, eager, conv, &d); /* the forward first: a wrong value makes wrong gradients */
  if (v == V_PASS && eager->grad_after >= 0 && conv->grad_after >= 0 && eager->grad_after != conv->grad_after) {
    /* a torch.set_grad_enabled of the program outlives the call: the caller's grad mode is its result too */
    af_buf_printf(&d, "grad mode after the call: %s, eager %s (torch.is_grad_enabled())", conv->grad_after ? "on" : "off",
                  eager->grad_after ? "on" : "off");
    v = V_VALUE_MISMATCH;
  }
  int s = v == V_VALUE_MISMATCH || v == V_WRONG_GRADIENT ? eager_nonfinite_at(p) : -1;
  if (s >= 0) {
    /* a maintainer reading "is nan, eager 38" wants to know where the NaN came from (eager.h) */
    if (s < p->nstmts)
      af_buf_printf(&d, " (eager's values hold an infinity or a NaN from body[%d] (%s) on)", s, ops_get(p->stmts[s].op)->name);
    else
      af_buf_puts(&d, " (eager's gradients hold an infinity or a NaN)");
  }
  if (v == V_PASS && o && o->fail_on_residual && conv->residual > 0) {
    af_buf_printf(&d, "converted graph still holds %d in-place op(s)", conv->residual);
    v = V_RESIDUAL_MUTATION;
  }
  if (v != V_PASS) put_warnings(&d, conv);
  *detail = v == V_PASS ? (af_buf_free(&d), NULL) : af_buf_take(&d);
  return v;
}

const char *oracle_detail_warnings(const char *detail) {
  const char *w = detail ? strstr(detail, ORACLE_WARNED) : NULL;
  return w ? w + strlen(ORACLE_WARNED) : NULL;
}

size_t oracle_detail_len(const char *detail) {
  const char *w = detail ? strstr(detail, ORACLE_WARNED) : NULL;
  return w ? (size_t)(w - detail) : detail ? strlen(detail) : 0;
}
