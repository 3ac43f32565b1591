/* judge.c - see judge.h */
#include "judge.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../harness/converters/conv_worker.h"
#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "../oracle/signature.h"
#include "crashsite.h"

void judgement_clear(judgement *j) {
  free(j->detail);
  free(j->graph);
  memset(j, 0, sizeof *j);
}

/* One call: eager into *e, the converter into *r (when eager ran, or its autograd refused a training
 * program: the converter may run what eager refuses, oracle.h autograd-accepts), the oracle's verdict. */
static int judge_once_into(const conv_converter *c, const ir_program *p, const oracle_opts *o, judgement *out, result *e, result *r,
                           af_err *err) {
  int rc = eager_run(p, e, err);
  if (!rc && (e->status == RESULT_OK || oracle_eager_autograd_refusal(p, e))) rc = conv_execute(c, p, r, err);
  if (!rc) {
    out->verdict = oracle_judge(p, e, r, o, &out->detail);
    out->residual = r->residual;
    if (r->graph) out->graph = af_xstrdup(r->graph);
  }
  return rc;
}

static int judge_once(const conv_converter *c, const ir_program *p, const oracle_opts *o, judgement *out, af_err *err) {
  result e, r;
  result_init(&e);
  result_init(&r);
  int rc = judge_once_into(c, p, o, out, &e, &r, err);
  result_clear(&e);
  result_clear(&r);
  return rc;
}

int judge_calls_again(const conv_converter *c, const ir_program *p) {
  const char *env = getenv("AF_SECOND_CALL");
  if ((env && strcmp(env, "0") == 0) || !ir_has_layouts(p)) return 0;
  conv_worker *w = conv_worker_of(c);
  return w && conv_worker_caches(w);
}

ir_program *judge_plain_copy(const ir_program *p, af_err *err) {
  af_tensor **t = NULL;
  if (inputs_new(p, &t, err)) return NULL;
  ir_program *q = ir_program_clone(p);
  for (int i = 0; i < q->ninputs; i++) {
    ir_input *in = &q->inputs[i];
    if (!in->base) continue;
    int64_t n = ir_numel(in->rank, in->shape);
    double *v = af_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
    if (n && at_tensor_values(t[i], v, err)) {
      free(v);
      af_err_prefix(err, "input %s", q->names[in->value]);
      ir_program_free(q);
      inputs_free(ir_ntensors(p), t);
      return NULL;
    }
    free(in->data);
    in->data = v;
    in->ndata = n;
    ir_set_layout(q, i, -1, NULL, 0);
  }
  for (int b = 0; b < q->nbases; b++) {
    free(q->bases[b].name);
    free(q->bases[b].data);
  }
  free(q->bases);
  q->bases = NULL;
  q->nbases = 0;
  inputs_free(ir_ntensors(p), t);
  return q;
}

static void ints_text(af_buf *b, int n, const int64_t *v) {
  af_buf_puts(b, "[");
  for (int d = 0; d < n; d++) af_buf_printf(b, "%s%lld", d ? ", " : "", (long long)v[d]);
  af_buf_puts(b, "]");
}

char *judge_layouts_text(const ir_program *p) {
  af_buf b = {0};
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    if (!in->base) continue;
    const ir_base *B = &p->bases[in->base - 1];
    int64_t cs[AF_MAX_RANK];
    ir_contiguous_strides(in->rank, in->shape, cs);
    if (B->owner == i && in->offset == 0 && ir_numel(in->rank, in->shape) == B->numel &&
        !memcmp(cs, in->strides, sizeof(int64_t) * (size_t)in->rank))
      continue; /* the input is its whole storage, contiguous: the others are views of it */
    af_buf_printf(&b, "%s%s = as_strided(%s, ", b.len ? "; " : "", p->names[in->value], ir_base_name(p, in->base - 1));
    ints_text(&b, in->rank, in->shape);
    af_buf_puts(&b, ", ");
    ints_text(&b, in->rank, in->strides);
    af_buf_printf(&b, ", %lld)", (long long)in->offset);
  }
  if (!b.len) af_buf_puts(&b, "fresh contiguous inputs");
  /* the inputs that share a storage, each such storage's (classes.h CLASSES_SHARED_REUSE_KEY reads it) */
  for (int k = 0; k < p->nbases; k++) {
    int n = 0;
    for (int i = 0; i < p->ninputs; i++) n += p->inputs[i].base == k + 1;
    if (n < 2) continue;
    af_buf_puts(&b, "; ");
    for (int i = 0, m = 0; i < p->ninputs; i++) {
      if (p->inputs[i].base != k + 1) continue;
      if (m++) af_buf_puts(&b, m == n ? " and " : ", ");
      af_buf_puts(&b, p->names[p->inputs[i].value]);
    }
    af_buf_puts(&b, JUDGE_SHARE_A_STORAGE);
  }
  return af_buf_take(&b);
}

/* The texts of order 2's detail that judge_reused_on_shared reads back */
#define ORDER2 "order 2 of 2, compiled on fresh inputs and called again (order 1, compiled on the declared layout, passed): "
#define CALL2 "call 2 of 2 ("
#define CALL2_END "; call 1, fresh contiguous inputs, passed): "
/* the worker's word that the second call ran no new graph (worker_aot_eager.py run()) */
#define SERVED_BY_FIRST "served by the graph(s) compiled for the first call"

/* Moves j into out as the verdict of call `call` of order `order` (ncalls: the calls made in all),
 * its detail prefixed with what says which order and call it is (judge.h). */
static void take_call(judgement *out, judgement *j, int order, int call, int ncalls, const char *declared) {
  *out = *j;
  memset(j, 0, sizeof *j);
  out->order = order;
  out->call = call;
  out->ncalls = ncalls;
  if (out->verdict == V_PASS) return;
  af_buf d = {0};
  if (order == 1)
    af_buf_printf(&d, "order 1 of 2, compiled on the declared layout (%s): ", declared);
  else
    af_buf_puts(&d, ORDER2);
  if (order == 2 && call == 1)
    af_buf_printf(&d, "call 1 of 2 (fresh contiguous inputs; call 2 would have had %s): ", declared);
  else if (order == 2)
    af_buf_printf(&d, CALL2 "%s" CALL2_END, declared);
  af_buf_puts(&d, out->detail ? out->detail : "");
  free(out->detail);
  out->detail = af_buf_take(&d);
}

/* The two calling orders of a caching converter on p (judge.h), in one worker process: order 1
 * compiles on p's own layout (a request without "again": the worker converts afresh); order 2
 * compiles on p's plain copy (call 1) and calls what it compiled on p's layout (call 2, "again"). */
static int judge_orders(const conv_converter *c, const ir_program *p, const oracle_opts *o, judgement *out, af_err *err) {
  ir_program *plain = judge_plain_copy(p, err);
  if (!plain) return -1;
  char *declared = judge_layouts_text(p);
  judgement j;
  memset(&j, 0, sizeof j);
  int rc = judge_once(c, p, o, &j, err); /* order 1 */
  if (!rc && j.verdict != V_PASS) {
    take_call(out, &j, 1, 1, 1, declared);
  } else if (!rc) {
    judgement_clear(&j);
    rc = judge_once(c, plain, o, &j, err); /* order 2, call 1 */
    if (!rc && j.verdict != V_PASS) {
      take_call(out, &j, 2, 1, 2, declared);
    } else if (!rc) {
      judgement_clear(&j);
      conv_worker *w = conv_worker_of(c);
      if (w) conv_worker_set_again(w, 1);
      rc = judge_once(c, p, o, &j, err); /* order 2, call 2 */
      if (w) conv_worker_set_again(w, 0); /* in case the request was never sent */
      if (!rc) take_call(out, &j, 2, 2, 3, declared);
    }
  }
  judgement_clear(&j);
  free(declared);
  ir_program_free(plain);
  return rc;
}

int judge_inprocess_results(const conv_converter *c, const ir_program *p, const oracle_opts *o, judgement *out, result *eager,
                            result *conv, af_err *err) {
  memset(out, 0, sizeof *out);
  if (p->train && !conv_trains(c)) { /* issue 33: a converter that cannot train gets the inference form */
    ir_program *q = ir_program_clone(p);
    ir_untrain(q);
    int rc = judge_inprocess_results(c, q, o, out, eager, conv, err);
    ir_program_free(q);
    return rc;
  }
  if (judge_calls_again(c, p)) return judge_orders(c, p, o, out, err);
  return judge_once_into(c, p, o, out, eager, conv, err);
}

int judge_inprocess(const conv_converter *c, const ir_program *p, const oracle_opts *o, judgement *out, af_err *err) {
  result e, r;
  result_init(&e);
  result_init(&r);
  int rc = judge_inprocess_results(c, p, o, out, &e, &r, err);
  result_clear(&e);
  result_clear(&r);
  return rc;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int judge_isolated(const conv_converter *c, const ir_program *p, const oracle_opts *o, double deadline_s, judgement *out,
                   af_err *err) {
  memset(out, 0, sizeof *out);
  int fd[2];
  if (pipe(fd) != 0) return af_fail(err, "pipe: %s", strerror(errno));
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return af_fail(err, "fork: %s", strerror(errno));
  }
  if (pid == 0) {
    close(fd[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* it dies with the job or campaign that waits for it */
    if (getppid() != parent) _exit(0); /* which died before the line above */
    crashsite_install(fd[1]); /* a crash sends its native frames (crashsite.h) */
    judgement j;
    af_err e2;
    int rc = judge_inprocess(c, p, o, &j, &e2);
    af_buf b = {0};
    if (rc) af_buf_printf(&b, "E %s", e2.msg);
    else
      af_buf_printf(&b, "V %d %d %d %d %d %s", (int)j.verdict, j.residual, j.ncalls, j.order, j.call,
                    j.detail ? j.detail : "");
    ssize_t w = write(fd[1], b.s, b.len);
    (void)w;
    _exit(0);
  }
  close(fd[1]);
  af_buf b = {0};
  double t0 = now_s();
  int timed_out = 0;
  for (;;) {
    double left = deadline_s - (now_s() - t0);
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    struct pollfd pf = {fd[0], POLLIN, 0};
    int n = poll(&pf, 1, (int)(left * 1000) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) continue;
    char chunk[4096];
    ssize_t got = read(fd[0], chunk, sizeof chunk - 1);
    if (got <= 0) break;
    chunk[got] = 0;
    af_buf_puts(&b, chunk);
  }
  close(fd[0]);
  int status = 0;
  if (timed_out) kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int rc = 0;
  if (timed_out) {
    out->verdict = V_TIMEOUT;
    char msg[128];
    snprintf(msg, sizeof msg, "no answer within %.1f s", deadline_s);
    out->detail = af_xstrdup(msg);
  } else if (b.s && b.s[0] == 'V') {
    int v = 0, res = -1, ncalls = 0, order = 0, call = 0, off = 0;
    sscanf(b.s, "V %d %d %d %d %d %n", &v, &res, &ncalls, &order, &call, &off);
    out->verdict = (oracle_verdict)v;
    out->residual = res;
    out->ncalls = ncalls;
    out->order = order;
    out->call = call;
    out->detail = b.s[off] ? af_xstrdup(b.s + off) : NULL;
  } else if (b.s && b.s[0] == 'E') {
    rc = af_fail(err, "%s", b.s + 2);
  } else {
    out->verdict = V_CRASH;
    char msg[128];
    if (WIFSIGNALED(status)) {
      out->detail = crashsite_describe(WTERMSIG(status), b.s);
    } else {
      snprintf(msg, sizeof msg, "converter process exited with status %d before answering", WEXITSTATUS(status));
      out->detail = af_xstrdup(msg);
    }
  }
  af_buf_free(&b);
  return rc;
}

int judge_reused_on_shared(const char *detail) {
  static const char prefix[] = ORDER2 CALL2;
  if (!detail || strncmp(detail, prefix, sizeof prefix - 1) != 0) return 0;
  const char *decl = detail + sizeof prefix - 1, *end = strstr(decl, CALL2_END);
  const char *share = strstr(decl, JUDGE_SHARE_A_STORAGE CALL2_END);
  return end && share == end - (sizeof JUDGE_SHARE_A_STORAGE - 1) && strstr(end, SERVED_BY_FIRST) != NULL;
}

/* An input's final state wrong: a value-mismatch whose detail names an input (after take_call's order
 * and call prefix, if any: "...): input x: ..."), or an input-mutation-lost (the converter left it as it was where eager
 * wrote it). One lost write into an input shows as either, by what else the program writes into that
 * input: a minimized finding that had to keep an unrelated write to stay a value-mismatch held more than
 * its bug, and more than the known case of it (an aot_eager-unbacked class `write@in dropout setitem@in`
 * beside pytorch#195422's `dropout write@in`). A wrong output is not that: a planted wrong `mean`
 * minimized into naive's own lost write when it was allowed to. */
static int input_state_wrong(oracle_verdict v, const char *detail) {
  if (v == V_INPUT_MUTATION_LOST) return 1;
  return v == V_VALUE_MISMATCH && detail && (!strncmp(detail, "input ", 6) || strstr(detail, "): input "));
}

int judge_same_bug(const judgement *a, oracle_verdict v, const char *detail) {
  if (a->verdict != v && !(input_state_wrong(a->verdict, a->detail) && input_state_wrong(v, detail))) return 0;
  /* a reused graph's failure on aliased inputs is not a first call's (nor the reverse) */
  if (judge_reused_on_shared(a->detail) != judge_reused_on_shared(detail)) return 0;
  if (v == V_AUTOGRAD_REJECTS || v == V_AUTOGRAD_ACCEPTS) { /* the same rule of autograd's (its message is in both details) */
    const char *x = oracle_autograd_refusal(a->detail), *y = oracle_autograd_refusal(detail);
    return x && y && strcmp(x, y) == 0;
  }
  if (v == V_ERROR || v == V_UNSUPPORTED || v == V_INVALID_PROGRAM) {
    char *x = sig_error_class(a->detail), *y = sig_error_class(detail);
    int same = strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
  }
  return 1;
}

/* see judge.h */
ir_program *judge_without_writes(const ir_program *c, int *writes_out) {
  ir_program *id = ir_program_clone(c);
  char *keep = af_xcalloc((size_t)c->nstmts + 1, 1);
  int writes = 0;
  for (int s = 0; s < c->nstmts; s++) {
    const ir_stmt *st = &c->stmts[s];
    keep[s] = 1;
    /* an argument other than the first that the op writes (batch_norm's running statistics: ops.def
     * OPF_WRITES) is made None where the schema takes None (the op then writes nothing there and
     * computes its result as before: batch statistics in training mode); one that takes no None
     * stays (no op has one) */
    const ops_entry *e = ops_get(st->op);
    unsigned more = ops_writes(st->op) & ~1u;
    int cleared = 0;
    for (int k = 1; k < st->nargs && k < e->nargs && k < 32; k++)
      if ((more >> k & 1u) && st->args[k].kind == IR_ARG_VALUE && strchr(e->argk[k], '?')) {
        ir_arg_free(&id->stmts[s].args[k]);
        memset(&id->stmts[s].args[k], 0, sizeof(ir_arg));
        id->stmts[s].args[k].kind = IR_ARG_NONE;
        cleared = 1;
      }
    writes += cleared;
    if (!ops_mutates(st->op) || st->nargs < 1 || (st->args[0].kind != IR_ARG_VALUE && ops_get(st->op)->kind != OPS_FOREACH))
      continue;
    writes -= cleared; /* one statement, one write */
    writes++;
    if (st->out < 0) {
      keep[s] = 0;
      continue;
    }
    ir_stmt_clear(&id->stmts[s]);
    id->stmts[s].op = OPS_alias;
    id->stmts[s].out = st->out;
    id->stmts[s].nargs = 1;
    id->stmts[s].args = af_xcalloc(2, sizeof(ir_arg));
    ir_arg_copy(&id->stmts[s].args[0], &st->args[0]);
  }
  ir_program *q = ir_subset(id, keep, NULL, NULL);
  ir_program_free(id);
  free(keep);
  if (writes_out) *writes_out = writes;
  return q;
}

/* see judge.h */
int judge_writes_change_nothing(const ir_program *c) {
  int writes = 0;
  ir_program *q = judge_without_writes(c, &writes);
  af_err err;
  int noop = 0;
  if (writes && ir_validate(q, &err) == 0) {
    result a, b;
    result_init(&a);
    result_init(&b);
    if (eager_run(c, &a, &err) == 0 && a.status == RESULT_OK && eager_run(q, &b, &err) == 0 && b.status == RESULT_OK) {
      oracle_opts oo = {0};
      char *detail = NULL;
      noop = oracle_judge(c, &a, &b, &oo, &detail) == V_PASS;
      free(detail);
    }
    result_clear(&a);
    result_clear(&b);
  }
  ir_program_free(q);
  return noop;
}

/* see judge.h */
uint64_t judge_redraw_seed(uint64_t seed, int k) {
  uint64_t z = seed + (uint64_t)k * 0x9E3779B97F4A7C15ULL; /* splitmix64 */
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* see judge.h */
int judge_gen_program(const gen_policy *pol, uint64_t seed, ir_program **out, uint64_t *used, int *redraws, af_err *err) {
  *out = NULL;
  uint64_t s = seed;
  int k = 0;
  for (;;) {
    ir_program *p;
    if (gen_program(pol, s, &p, err)) return -1;
    if (k >= pol->noop_redraws || !judge_writes_change_nothing(p)) {
      *out = p;
      break;
    }
    ir_program_free(p);
    s = judge_redraw_seed(seed, ++k);
  }
  if (used) *used = s;
  if (redraws) *redraws = k;
  return 0;
}
