/* classes.c - see classes.h */
#include "classes.h"
#include "judge.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "../harness/result.h"
#include "../harness/torch/shim.h"
#include "../oracle/signature.h"
#include "gen_model.h"
#include "refusals.h"

const char *classes_family(int op) {
  const ops_entry *e = ops_get(op);
  if (!e) return NULL;
  switch (e->kind) {
    case OPS_VIEW:
    case OPS_GETITEM: return "view";
    case OPS_INPLACE: return (e->flags & OPF_META) ? "shape-write" : "write";
    case OPS_SETITEM: /* x[i] = v and torch.f(..., out=x) write x as much as x.f_() does */
    case OPS_OUT: return "write";
    case OPS_FUNC: return "op";
    case OPS_LIST: return "list";
    case OPS_CTRL:
    case OPS_INT: return NULL; /* control flow and int values (x.size(d)): no slot to vary */
    case OPS_FOREACH: return NULL; /* foreach ops take lists: none of the other families' slots fits */
  }
  return NULL;
}

int classes_by_error(oracle_verdict v) {
  return v == V_ERROR || v == V_UNSUPPORTED || v == V_CRASH || v == V_INVALID_PROGRAM || v == V_TIMEOUT || v == V_PROTOCOL;
}

/* The statement before s that last defined value v, or -1 (an input, or undefined). */
static int def_before(const ir_program *p, int s, int v) {
  for (int k = s - 1; k >= 0; k--)
    if (p->stmts[k].out == v) return k;
  return -1;
}

/* How each statement's result relates to its arguments, by the op table's rules replayed on the
 * alias model (gen_model.h): 1 + k when it is a new view of argument k's storage, -(1 + k) when it
 * is argument k itself (an in-place op's result, dropout in eval mode, contiguous() of a
 * contiguous tensor, type_as of its own dtype, copy_'s source), 0 when it is fresh (a reshape or a
 * getitem that copied). A statement the rules refuse keeps its kind's answer: a view or getitem
 * a view of argument 0, an in-place op argument 0 itself. So a write through `dropout(x, p,
 * False)` lands in x as eager's does, where the op's kind (a function) would call it fresh. new
 * array of p->nstmts. */
static int *alias_of(const ir_program *p) {
  int *al = af_xcalloc((size_t)p->nstmts + 1, sizeof *al);
  gen_model mo;
  gen_model_init(&mo, p);
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *st = &p->stmts[s];
    const ops_entry *e = ops_get(st->op);
    ops_effect ef;
    af_err err;
    if (ops_shape_infer(st, &mo.env, &ef, &err)) {
      gen_model_apply_unknown(&mo, s);
      al[s] = e->kind == OPS_VIEW || e->kind == OPS_GETITEM ? 1 : e->kind == OPS_INPLACE ? -1 : 0;
    } else {
      gen_model_apply(&mo, s, &ef);
      al[s] = ef.alias == OPS_ALIAS_VIEW ? 1 + ef.alias_arg : ef.alias == OPS_ALIAS_SAME ? -(1 + ef.alias_arg) : 0;
    }
    int k = al[s] > 0 ? al[s] - 1 : -al[s] - 1;
    if (al[s] && (k >= st->nargs || st->args[k].kind != IR_ARG_VALUE)) al[s] = 0;
  }
  gen_model_free(&mo);
  return al;
}

/* The value statement s's result aliases (alias_of), or -1; *view: whether as a new view. */
static int alias_arg_value(const ir_program *p, const int *al, int s, int *view) {
  if (!al[s]) return -1;
  *view = al[s] > 0;
  return p->stmts[s].args[(al[s] > 0 ? al[s] : -al[s]) - 1].value;
}

/* Whether statement s writes a tensor in place: an argument its op writes (ops_stmt_written: an
 * in-place op's, out='s and setitem's argument 0, every tensor of a foreach op's list, batch_norm's
 * running statistics, arguments 3 and 4; not one that is None). */
static int stmt_writes(const ir_stmt *st) {
  int w;
  return ops_stmt_written(st, &w, 0) > 0;
}

/* Where a write of statement s into value v lands ("@in", "@view-of-in", "@view" or "@tmp"),
 * walking back from v through what made it (al: alias_of); each statement passed on the way is
 * marked in core when core is given. */
static const char *walk_from(const ir_program *p, const int *al, int s, int v, char *core) {
  int k = s, through_view = 0;
  for (int hops = 0; hops < 64; hops++) {
    int d = def_before(p, k, v), view = 0;
    /* an input's name is the input until a statement rebinds it: after `x = x - 1`, x.add_(1)
     * writes that fresh tensor, not the input */
    if (d < 0 && v >= 0 && v < p->ninputs) return through_view ? "@view-of-in" : "@in";
    int next = d < 0 ? -1 : alias_arg_value(p, al, d, &view);
    if (next < 0) break;
    if (core) core[d] = 1;
    through_view |= view;
    v = next;
    k = d;
  }
  return through_view ? "@view" : "@tmp";
}

/* Where the write of statement s lands: the placement of the first argument it writes (walk_from;
 * every written argument's chain is marked in core), "" when it writes none. Not argument 0 alone:
 * batch_norm writes its running statistics, arguments 3 and 4 (ops.def OPF_WRITES). */
#define WALK_MAX_WRITTEN 16
static const char *walk_write(const ir_program *p, const int *al, int s, char *core) {
  int w[WALK_MAX_WRITTEN];
  int n = ops_stmt_written(&p->stmts[s], w, WALK_MAX_WRITTEN);
  const char *first = "";
  for (int i = 0; i < n && i < WALK_MAX_WRITTEN; i++) {
    const char *at = walk_from(p, al, s, w[i], core);
    if (!i) first = at;
  }
  return first;
}

/* Whether statement s rebinds module state (`self.w = f(...)`): a write into the module's buffer
 * as much as `self.w.add_(1)` is, though no op of it mutates anything. */
static int rebinds_state(const ir_program *p, int s) {
  int v = p->stmts[s].out;
  return v >= 0 && v < p->ninputs && p->inputs[v].buffer && !ops_mutates(p->stmts[s].op);
}

/* classes_core with p's alias_of al. */
static char *core_of(const ir_program *p, const int *al) {
  char *core = af_xcalloc((size_t)p->nstmts + 1, 1);
  int writes = 0;
  for (int s = 0; s < p->nstmts; s++) {
    if (rebinds_state(p, s) || stmt_writes(&p->stmts[s])) {
      writes++;
      core[s] = 1;
    }
    /* the views the written tensors were made through (and what returned its argument itself) */
    if (stmt_writes(&p->stmts[s])) walk_write(p, al, s, core);
  }
  if (!writes) memset(core, 1, (size_t)p->nstmts);
  return core;
}

char *classes_core(const ir_program *p) {
  int *al = alias_of(p);
  char *core = core_of(p, al);
  free(al);
  return core;
}

static void put_token(af_buf *b, const ir_program *p, const int *al, int s, const char *name) {
  if (b->len) af_buf_puts(b, " ");
  af_buf_puts(b, name);
  if (stmt_writes(&p->stmts[s])) af_buf_puts(b, walk_write(p, al, s, NULL));
  else if (rebinds_state(p, s)) af_buf_puts(b, "@state");
}

char *classes_plain_pattern(const ir_program *p) {
  af_buf b = {0};
  int *al = alias_of(p);
  char *core = core_of(p, al);
  for (int s = 0; s < p->nstmts; s++)
    if (core[s]) put_token(&b, p, al, s, ops_get(p->stmts[s].op)->name);
  free(core);
  free(al);
  if (!b.s) af_buf_puts(&b, "");
  return af_buf_take(&b);
}

/* A literal or value for argument kind code k of a variant whose original had none there; 0 when
 * there is no sensible one (the variant is skipped). */
static int synth_arg(const char *k, const ir_stmt *st, ir_arg *out) {
  memset(out, 0, sizeof *out);
  switch (k[0]) {
    case 'T':
      out->kind = IR_ARG_VALUE;
      out->value = st->args[0].value; /* x.copy_(x), x.add_(x): valid whenever x is */
      for (int a = 1; a < st->nargs; a++)
        if (st->args[a].kind == IR_ARG_VALUE) {
          out->value = st->args[a].value;
          break;
        }
      return 1;
    case 'S':
    case 's':
      if (k[1] == '?') {
        out->kind = IR_ARG_NONE;
        return 1;
      }
      out->kind = IR_ARG_INT;
      out->i = 2; /* no write's identity (add 0, mul 1, pow 1): the variant changes something */
      return 1;
    case 'i': out->kind = IR_ARG_INT; return 1;
    case 'b': out->kind = IR_ARG_BOOL; return 1;
    default: return 0;
  }
}

/* p with statement s running op q instead (arguments kept where the schemas agree, made up where
 * they do not); NULL when no argument list fits. new, free with ir_program_free. */
static ir_program *with_op(const ir_program *p, int s, int q) {
  const ops_entry *from = ops_get(p->stmts[s].op), *to = ops_get(q);
  const ir_stmt *st = &p->stmts[s];
  ir_arg args[OPS_MAX_ARGS];
  int n = 0, ok = to->nargs >= 1 && st->nargs >= 1;
  for (; ok && n < to->nargs; n++) {
    int literal = n < st->nargs && st->args[n].kind != IR_ARG_VALUE && (to->argk[n][0] == 'S' || to->argk[n][0] == 's');
    int loose = to->kind == OPS_INPLACE || to->kind == OPS_SETITEM || to->kind == OPS_OUT;
    if (n < st->nargs && n < from->nargs && strcmp(from->argk[n], to->argk[n]) == 0 && !(literal && loose))
      ir_arg_copy(&args[n], &st->args[n]);
    else if (n == 0) ok = 0;
    else ok = synth_arg(to->argk[n], st, &args[n]);
    if (!ok) break;
  }
  ir_program *c = NULL;
  if (ok) {
    c = ir_program_clone(p);
    ir_stmt_clear(&c->stmts[s]);
    c->stmts[s].op = q;
    c->stmts[s].out = st->out;
    c->stmts[s].nargs = n;
    c->stmts[s].args = af_xcalloc((size_t)n + 1, sizeof(ir_arg));
    for (int a = 0; a < n; a++) ir_arg_copy(&c->stmts[s].args[a], &args[a]);
  }
  for (int a = 0; a < n; a++) ir_arg_free(&args[a]);
  return c;
}

/* The layout eager gives the result of statement s the first time it runs. */
typedef struct layout_probe {
  int s, got, rank;
  int64_t size[AF_MAX_RANK], stride[AF_MAX_RANK], offset;
} layout_probe;

static int probe_hook(void *ctx, int s, const ir_stmt *st, af_tensor *const *values, af_err *err) {
  (void)err;
  layout_probe *x = ctx;
  if (s != x->s || x->got || st->out < 0 || !values[st->out]) return 0;
  const af_tensor *t = values[st->out];
  x->rank = at_tensor_rank(t);
  if (x->rank < 0 || x->rank > AF_MAX_RANK) return 0;
  at_tensor_shape(t, x->size);
  at_tensor_strides(t, x->stride);
  x->offset = at_tensor_storage_offset(t);
  x->got = 1;
  return 0;
}

/* p with view statement s made `as_strided` of the same tensor, with the sizes, strides and
 * storage offset eager gives the view: the same elements through another view op, which every
 * write after it fits (a view's variants of its own schema rarely fit the writes made for its
 * shape: `alias` of an unsqueeze has one dimension less). NULL when eager does not run p or s is
 * not a view of a tensor value. new. */
static ir_program *as_strided_twin(const ir_program *p, int s) {
  const ir_stmt *st = &p->stmts[s];
  const ops_entry *e = ops_get(st->op);
  if ((e->kind != OPS_VIEW && e->kind != OPS_GETITEM) || st->op == OPS_as_strided || st->nargs < 1 ||
      st->args[0].kind != IR_ARG_VALUE || st->out < 0)
    return NULL;
  layout_probe x = {.s = s};
  af_tensor **in = NULL;
  result res;
  result_init(&res);
  af_err err;
  int ran = inputs_new(p, &in, &err) == 0 && eager_run_traced(p, in, probe_hook, &x, &res, &err) == 0 && res.status == RESULT_OK;
  if (in) inputs_free(ir_ntensors(p), in);
  result_clear(&res);
  if (!ran || !x.got) return NULL;
  ir_program *c = ir_program_clone(p);
  ir_stmt *t = &c->stmts[s];
  ir_arg base;
  ir_arg_copy(&base, &st->args[0]);
  ir_stmt_clear(t);
  t->op = OPS_as_strided;
  t->out = st->out;
  t->nargs = 4;
  t->args = af_xcalloc(5, sizeof(ir_arg));
  t->args[0] = base;
  for (int k = 1; k <= 2; k++) {
    t->args[k].kind = IR_ARG_INTS;
    t->args[k].n = x.rank;
    t->args[k].ints = af_xcalloc((size_t)x.rank + 1, sizeof(int64_t));
    memcpy(t->args[k].ints, k == 1 ? x.size : x.stride, sizeof(int64_t) * (size_t)x.rank);
  }
  t->args[3].kind = IR_ARG_INT;
  t->args[3].i = x.offset;
  return c;
}

/* Candidate ops for statement s: same family; views, functional ops, out= and list ops also the
 * same schema (their arguments mean different things otherwise), writes any schema. At most
 * max, spread over the family, same-schema ones first. Returns how many. */
static int variants(const ir_program *p, int s, int *out, int max) {
  int op = p->stmts[s].op;
  const char *fam = classes_family(op);
  const ops_entry *e = ops_get(op);
  int loose = fam && (!strcmp(fam, "write") || !strcmp(fam, "shape-write"));
  int same[OPS_COUNT], other[OPS_COUNT], ns = 0, no = 0;
  for (int q = 0; q < OPS_COUNT && fam; q++) {
    if (q == op || !classes_family(q) || strcmp(classes_family(q), fam) != 0) continue;
    if (strcmp(ops_get(q)->schema, e->schema) == 0) same[ns++] = q;
    else if (loose) other[no++] = q;
  }
  /* a view whose schema no other view shares (as_strided, unfold, expand) would have no variant:
   * the identity view `alias` is one of every view's (it fits whatever the view's input fits),
   * so a bug that does not depend on which view it goes through shows it */
  int n = 0;
  if (fam && !strcmp(fam, "view") && op != OPS_alias && strcmp(e->schema, ops_get(OPS_alias)->schema) != 0 && max > 0)
    out[n++] = OPS_alias;
  int room = max - n;
  for (int k = 0; k < ns && k < room; k++) out[n++] = same[ns <= room ? k : k * ns / room];
  int left = max - n;
  for (int k = 0; k < no && left > 0 && k < left; k++) out[n++] = other[no <= left ? k : k * no / left];
  return n;
}

static cJSON *names_array(const int *ops, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int k = 0; k < n; k++) cJSON_AddItemToArray(a, cJSON_CreateString(ops_get(ops[k])->name));
  return a;
}

/* Judges variant c (NULL: none could be made; freed here): its outcome, CLASSES_INVALID when it
 * does not validate; *noop set when it passes only because its writes change nothing eager can
 * see. Counts the judge call in out->tests. */
static int judge_variant(ir_program *c, classes_judge judge, void *ctx, classes_gen *out, int *noop) {
  af_err err;
  int r = CLASSES_INVALID;
  if (c && ir_validate(c, &err) == 0) {
    out->tests++;
    r = judge(c, ctx);
  }
  *noop = r == CLASSES_PASS && judge_writes_change_nothing(c);
  ir_program_free(c);
  return r;
}

const char *classes_outcome_name(int r) {
  switch (r) {
    case CLASSES_PASS: return "pass";
    case CLASSES_SAME: return "same";
    case CLASSES_OTHER: return "other";
    case CLASSES_INVALID: return "invalid";
    default: return "not run";
  }
}

/* The generalization row of the inputs' dtype: every input of the program's first input's dtype
 * switched to each other dtype. */
static cJSON *dtype_row(const ir_program *p, classes_judge judge, void *ctx, classes_gen *out) {
  af_dtype d0 = p->inputs[0].dtype;
  cJSON *row = cJSON_CreateObject(), *same = cJSON_CreateArray(), *pass = cJSON_CreateArray(), *other = cJSON_CreateArray();
  int ninv = 0, nnoop = 0, nnot = 0;
  cJSON_AddStringToObject(row, "dtype", af_dtype_name(d0));
  for (int d = 0; d < AF_REAL_DTYPE_COUNT; d++) {
    if ((af_dtype)d == d0) continue;
    ir_program *c = ir_program_clone(p);
    for (int i = 0; i < c->ninputs; i++)
      if (c->inputs[i].dtype == d0) c->inputs[i].dtype = (af_dtype)d;
    int noop, r = judge_variant(c, judge, ctx, out, &noop);
    cJSON *arr = noop ? NULL : r == CLASSES_SAME ? same : r == CLASSES_PASS ? pass : r == CLASSES_OTHER ? other : NULL;
    if (arr) cJSON_AddItemToArray(arr, cJSON_CreateString(af_dtype_name((af_dtype)d)));
    else if (noop) nnoop++;
    else if (r == CLASSES_NOT_RUN) nnot++;
    else ninv++;
  }
  cJSON_AddItemToObject(row, "same", same);
  cJSON_AddItemToObject(row, "pass", pass);
  cJSON_AddItemToObject(row, "other", other);
  cJSON_AddNumberToObject(row, "invalid", ninv);
  if (nnoop) cJSON_AddNumberToObject(row, "unchanged", nnoop);
  if (nnot) cJSON_AddNumberToObject(row, "not_run", nnot);
  return row;
}

/* The generalization table as the compact JSON text out->table (new); frees table. */
static void take_table(classes_gen *out, cJSON *table) {
  char *t = cJSON_PrintUnformatted(table);
  out->table = af_xstrdup(t);
  cJSON_free(t);
  cJSON_Delete(table);
}

int classes_generalize(const ir_program *p, classes_judge judge, void *ctx, int max_tests, int reruns, classes_gen *out) {
  memset(out, 0, sizeof *out);
  if (max_tests <= 0) max_tests = 120;
  int nslots = 0;
  for (int s = 0; s < p->nstmts; s++) nslots += classes_family(p->stmts[s].op) != NULL;
  int per_slot = nslots ? (max_tests - 3 < 8 * nslots ? 8 : (max_tests - 3) / nslots) : 0;
  if (per_slot > 40) per_slot = 40;
  /* the reruns first, so that a judge out of time cuts variants, not them; a rerun the judge
   * could not run (CLASSES_INVALID: out of time) is not counted as one that did not reproduce */
  for (int k = 0; k < reruns; k++) {
    int r = judge(p, ctx);
    if (r == CLASSES_INVALID || r == CLASSES_NOT_RUN) continue;
    out->reruns++;
    out->reproduced += r == CLASSES_SAME;
  }
  cJSON *table = cJSON_CreateArray();
  /* A program that fails the same way with its writes made the identity does not fail because of
   * them (a data-dependent `if` the converter rejects, a wrong atan2): its class is its error, or
   * the ops it computes, never a write pattern that happens to surround it. */
  int writes = 0;
  ir_program *bare = judge_without_writes(p, &writes);
  af_err verr;
  if (writes > 0 && out->tests < max_tests && ir_validate(bare, &verr) == 0) {
    out->tests++;
    int r = judge(bare, ctx);
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "without_writes", classes_outcome_name(r)); /* a rerun out of time is "not run", not "invalid" */
    cJSON_AddItemToArray(table, row);
    if (r == CLASSES_SAME) {
      out->write_free = 1;
      out->pattern = classes_plain_pattern(bare);
      ir_program_free(bare);
      take_table(out, table);
      return 0;
    }
  }
  ir_program_free(bare);
  af_buf pat = {0};
  int *al = alias_of(p);
  char *core = core_of(p, al);
  for (int s = 0; s < p->nstmts; s++) {
    const char *fam = classes_family(p->stmts[s].op);
    const char *name = ops_get(p->stmts[s].op)->name;
    if (!fam) {
      if (core[s]) put_token(&pat, p, al, s, name);
      continue;
    }
    int cand[OPS_COUNT + 1], nc = 0;
    /* a view first as the same elements through as_strided (as_strided_twin), then the others */
    ir_program *twin = !strcmp(fam, "view") ? as_strided_twin(p, s) : NULL;
    if (twin) cand[nc++] = OPS_as_strided;
    nc += variants(p, s, cand + nc, per_slot - nc);
    int same[OPS_COUNT + 1], pass[OPS_COUNT + 1], other[OPS_COUNT + 1], ns = 0, np = 0, no = 0, ninv = 0, nnoop = 0, nnot = 0;
    for (int k = 0; k < nc && out->tests < max_tests; k++) {
      ir_program *c = k == 0 && twin ? twin : with_op(p, s, cand[k]);
      if (k == 0) twin = NULL;
      int noop, r = judge_variant(c, judge, ctx, out, &noop);
      if (r == CLASSES_SAME) same[ns++] = cand[k];
      else if (noop) nnoop++;
      else if (r == CLASSES_PASS) pass[np++] = cand[k];
      else if (r == CLASSES_OTHER) other[no++] = cand[k];
      else if (r == CLASSES_NOT_RUN) nnot++;
      else ninv++;
    }
    if (twin) ir_program_free(twin); /* not judged: out of tests */
    /* the family stands in when some of its members fail the same way and no more of them pass.
     * With no variant that shows the bug (none valid: unfold's arguments fit few other views)
     * there is no evidence that the bug is the family's: the op keeps its name, so that one
     * unfold bug is not merged with whatever other views' bugs generalize to "view" (a 1.13
     * functionalize campaign had one `view write@view-of-in` class of 39 findings, 11 of them
     * unfold writes with no valid variant, beside its own `unfold write@view-of-in` class) */
    int general = ns > 0 && ns >= np;
    if (core[s]) put_token(&pat, p, al, s, general ? fam : name);
    cJSON *row = cJSON_CreateObject();
    cJSON_AddNumberToObject(row, "statement", s);
    cJSON_AddStringToObject(row, "op", name);
    cJSON_AddStringToObject(row, "family", fam);
    cJSON_AddBoolToObject(row, "generalized", general);
    cJSON_AddItemToObject(row, "same", names_array(same, ns));
    cJSON_AddItemToObject(row, "pass", names_array(pass, np));
    cJSON_AddItemToObject(row, "other", names_array(other, no));
    cJSON_AddNumberToObject(row, "invalid", ninv);
    if (nnoop) cJSON_AddNumberToObject(row, "unchanged", nnoop); /* passing variants whose write changed nothing */
    if (nnot) cJSON_AddNumberToObject(row, "not_run", nnot);      /* out of time: no evidence either way */
    cJSON_AddItemToArray(table, row);
  }
  if (p->ninputs > 0) cJSON_AddItemToArray(table, dtype_row(p, judge, ctx, out));
  free(core);
  free(al);
  if (!pat.s) af_buf_puts(&pat, "");
  out->pattern = af_buf_take(&pat);
  take_table(out, table);
  return 0;
}

/* Whether v is one of the verdicts by which a mis-converted write shows (classes_verdict_group's
 * "wrong-result" without errors): which of them a variant gives depends on where the lost write
 * lands (an input: input-mutation-lost; an output: value-mismatch), not on the bug. */
static int wrong_result(oracle_verdict v) {
  return v == V_VALUE_MISMATCH || v == V_SHAPE_MISMATCH || v == V_DTYPE_MISMATCH || v == V_INPUT_MUTATION_LOST;
}

int classes_outcome(const judgement *j, oracle_verdict v, const char *detail) {
  return j->verdict == V_INVALID_PROGRAM                   ? CLASSES_INVALID
         : judge_same_bug(j, v, detail)                    ? CLASSES_SAME
         : wrong_result(j->verdict) && wrong_result(v)     ? CLASSES_SAME
         : j->verdict == V_PASS         ? CLASSES_PASS
                                        : CLASSES_OTHER;
}

void classes_gen_clear(classes_gen *g) {
  free(g->pattern);
  free(g->table);
  memset(g, 0, sizeof *g);
}

int classes_pattern_writes(const char *pattern) { return pattern && strchr(pattern, '@') != NULL; }

int classes_keyed_by_error(oracle_verdict v, const char *pattern) {
  return classes_by_error(v) && !(v == V_ERROR && classes_pattern_writes(pattern));
}

const char *classes_verdict_group(oracle_verdict v, const char *pattern) {
  if (wrong_result(v) || (v == V_ERROR && classes_pattern_writes(pattern)))
    return "wrong-result";
  return oracle_verdict_name(v);
}

char *classes_key(const char *converter, oracle_verdict v, const char *detail, const char *pattern) {
  af_buf b = {0};
  /* an error downstream of a write is that write's bug: it keys on the pattern like a mismatch */
  int by_error = classes_keyed_by_error(v, pattern);
  char *what = v == V_TIMEOUT                                 ? af_xstrdup("timeout")
               : by_error                                     ? sig_error_class(detail)
               : judge_reused_on_shared(detail)               ? af_xstrdup(CLASSES_SHARED_REUSE_KEY)
                                                              : af_xstrdup(pattern ? pattern : "");
  af_buf_printf(&b, "%s|%s|%s", converter, classes_verdict_group(v, pattern), what);
  free(what);
  return af_buf_take(&b);
}

/* The first "dtype G, eager W" of a wrong result's detail (oracle.c compare): 0 with both, else -1. */
static int detail_dtypes(const char *detail, af_dtype *got, af_dtype *want) {
  const char *d = detail ? strstr(detail, ": dtype ") : NULL;
  char g[32], w[32];
  if (!d || sscanf(d, ": dtype %31[a-z0-9], eager %31[a-z0-9]", g, w) != 2) return -1;
  return af_dtype_parse(g, got) || af_dtype_parse(w, want) ? -1 : 0;
}

int classes_twin_dtype(const ir_program *p, const char *detail, af_buf *why) {
  af_dtype got, want;
  if (detail_dtypes(detail, &got, &want) || got == want) return -1;
  gen_model mo;
  gen_model_init(&mo, p);
  int found = 0;
  for (int s = 0; s < p->nstmts; s++) {
    const ir_stmt *st = &p->stmts[s];
    const ops_entry *e = ops_get(st->op), *te = e && e->kind == OPS_INPLACE ? ops_get(ops_twin(st->op)) : NULL;
    ops_effect ef;
    af_err err;
    /* the twin takes the in-place op's arguments (its schema the same): judged on them as they are here */
    if (!found && te && !strcmp(te->schema, e->schema) && st->nargs > 0 && st->args[0].kind == IR_ARG_VALUE &&
        gen_model_meta(&mo, st->args[0].value) && gen_model_meta(&mo, st->args[0].value)->dtype == want) {
      ir_stmt tw = *st;
      tw.op = ops_twin(st->op);
      if (!ops_shape_infer(&tw, &mo.env, &ef, &err) && ef.out.dtype == got) {
        found = 1;
        if (why)
          af_buf_printf(why, "%s.%s(...) as %s: %s for %s", p->names[st->args[0].value], e->name, te->name,
                        af_dtype_name(got), af_dtype_name(want));
      }
    }
    if (e && e->kind == OPS_LIST ? gen_model_list(&mo, st, 1, &err) != 0 : ops_shape_infer(st, &mo.env, &ef, &err) != 0)
      gen_model_apply_unknown(&mo, s); /* (a list statement: torch.stack([x, x]) is a tensor of x's dtype) */
    else if (e && e->kind != OPS_LIST)
      gen_model_apply(&mo, s, &ef);
  }
  gen_model_free(&mo);
  return found;
}

/* What kind of value v of p is, for the quick key: "input" or the family of what made it last,
 * and whether a write targets it directly. */
static void value_kind(af_buf *b, const ir_program *p, int v) {
  if (v < 0) {
    af_buf_puts(b, "?");
    return;
  }
  int d = def_before(p, p->nstmts, v), written = 0;
  for (int s = 0; s < p->nstmts && !written; s++) {
    int w[WALK_MAX_WRITTEN], n = ops_stmt_written(&p->stmts[s], w, WALK_MAX_WRITTEN);
    for (int i = 0; i < n && i < WALK_MAX_WRITTEN; i++) written |= w[i] == v;
  }
  const char *fam = d >= 0 ? classes_family(p->stmts[d].op) : NULL;
  af_buf_printf(b, "%s%s", v < p->ninputs && d < 0 ? "input" : fam ? fam : "?", written ? "+written" : "");
}

char *classes_quick_key(const ir_program *p, oracle_verdict v, const char *detail) {
  af_buf b = {0};
  af_buf_printf(&b, "%s|", oracle_verdict_name(v));
  if (v == V_TIMEOUT) {
    af_buf_puts(&b, "timeout");
  } else if (!classes_by_error(v) && judge_reused_on_shared(detail)) {
    af_buf_puts(&b, CLASSES_SHARED_REUSE_KEY); /* its class's key, whatever the program writes */
  } else if (classes_by_error(v)) {
    char *k = sig_error_class(detail);
    af_buf_puts(&b, k);
    free(k);
  } else {
    /* without what the converter warned (oracle.h): a converter's chatter (graph breaks, recompiles)
     * would make a quick key per program; classes_quick_key_on adds a declared limit it warned of */
    char *d = af_xstrdup(detail ? detail : "");
    d[oracle_detail_len(d)] = 0;
    /* which thing differs (an output or an input) and what kind of value it is, then what was
     * wrong with it */
    int k = -1;
    char name[128] = "";
    if (p && sscanf(d, "output %d", &k) == 1 && k >= 0 && k < p->noutputs) {
      af_buf_puts(&b, "output:");
      value_kind(&b, p, p->outputs[k]);
    } else if (p && sscanf(d, "input %127[^:]", name) == 1) {
      af_buf_puts(&b, "input:");
      value_kind(&b, p, ir_find_value(p, name));
    } else {
      af_buf_puts(&b, "?");
    }
    const char *colon = strchr(d, ':');
    char *e = sig_error_class(colon ? colon + 1 : d);
    af_buf_printf(&b, ":%s", e);
    free(e);
    free(d);
    /* (the ops that write were part of the key for a while: one planted lost write then made 72
     * quick keys, one per write op, whose minimizations ran past the floor; a key with a class is
     * still minimized again while the budget has spare room, which finds a second bug behind it) */
  }
  return af_buf_take(&b);
}

char *classes_quick_key_on(const conv_converter *c, const ir_program *p, oracle_verdict v, const char *detail) {
  char *qk = classes_quick_key(p, v, detail);
  const char *hit;
  size_t len;
  if (!c || !refusals_warned(c, v, detail, &hit, &len)) return qk;
  af_buf b = {0};
  af_buf_printf(&b, "%s%s%.*s]", qk, ORACLE_WARNED, (int)len, hit); /* refusals_rank_quick reads it */
  free(qk);
  return af_buf_take(&b);
}

void classes_id(const char *key, char id[64]) {
  snprintf(id, 64, "class-%016llx", (unsigned long long)sig_fnv1a(key, strlen(key), 0));
}

/* ------------------------------------------------------------------ the class index */

#include "../harness/codec.h"
#include <unistd.h>

cJSON *classes_index_new(void) {
  cJSON *idx = cJSON_CreateObject();
  cJSON_AddStringToObject(idx, "format", "aliasfuzz-classes/1");
  cJSON_AddArrayToObject(idx, "classes");
  cJSON_AddObjectToObject(idx, "deferred");
  return idx;
}

cJSON *classes_index_load(const char *dir, af_err *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/classes.json", dir);
  if (access(path, F_OK) != 0) return classes_index_new();
  char *text = codec_slurp(path, NULL, err);
  if (!text) return NULL;
  cJSON *idx = cJSON_Parse(text);
  free(text);
  const char *fmt = idx ? cJSON_GetStringValue(cJSON_GetObjectItem(idx, "format")) : NULL;
  if (!fmt || strcmp(fmt, "aliasfuzz-classes/1") != 0 || !cJSON_IsArray(cJSON_GetObjectItem(idx, "classes"))) {
    cJSON_Delete(idx);
    af_fail(err, "%s: not a class index (expected format aliasfuzz-classes/1 with a classes array)", path);
    return NULL;
  }
  if (!cJSON_IsObject(cJSON_GetObjectItem(idx, "deferred"))) cJSON_AddObjectToObject(idx, "deferred");
  return idx;
}

int classes_index_save(const char *dir, const cJSON *idx, af_err *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/classes.json", dir);
  char *text = cJSON_Print(idx);
  int rc = codec_write_atomic(path, text, strlen(text), err);
  cJSON_free(text);
  return rc;
}

int classes_index_count(const cJSON *idx) { return cJSON_GetArraySize(cJSON_GetObjectItem(idx, "classes")); }

/* The class whose field ("id" or "key") is value, or NULL. */
static cJSON *class_where(const cJSON *idx, const char *field, const char *value) {
  cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) {
    const char *x = cJSON_GetStringValue(cJSON_GetObjectItem(c, field));
    if (x && !strcmp(x, value)) return c;
  }
  return NULL;
}

static int has_string(const cJSON *arr, const char *s) {
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) {
    if (cJSON_IsString(e) && !strcmp(e->valuestring, s)) return 1;
  }
  return 0;
}

/* Counts (job, iteration) once: 1 when counted now. */
static int count_once(cJSON *c, int job, int64_t it) {
  cJSON *cu = cJSON_GetObjectItem(c, "counted_upto");
  if (!cJSON_IsObject(cu)) cu = cJSON_AddObjectToObject(c, "counted_upto");
  char j[16];
  snprintf(j, sizeof j, "%d", job);
  cJSON *upto = cJSON_GetObjectItem(cu, j);
  if (it >= 0 && upto && upto->valuedouble >= (double)it) return 0;
  if (it >= 0) {
    if (upto) cJSON_SetNumberValue(upto, (double)it);
    else cJSON_AddNumberToObject(cu, j, (double)it);
  }
  cJSON *n = cJSON_GetObjectItem(c, "count");
  cJSON_SetNumberValue(n, n->valuedouble + 1);
  return 1;
}

static cJSON *occurrence(uint64_t seed, int64_t it, int job) {
  cJSON *o = cJSON_CreateObject();
  char s[32];
  snprintf(s, sizeof s, "%llu", (unsigned long long)seed);
  cJSON_AddStringToObject(o, "seed", s);
  cJSON_AddNumberToObject(o, "iteration", (double)it);
  cJSON_AddNumberToObject(o, "job", job);
  return o;
}

static void set_example(cJSON *c, const classes_member *m) {
  cJSON_DeleteItemFromObject(c, "smallest");
  cJSON_DeleteItemFromObject(c, "statements");
  cJSON_DeleteItemFromObject(c, "detail");
  cJSON_AddStringToObject(c, "smallest", m->finding);
  cJSON_AddNumberToObject(c, "statements", m->statements);
  cJSON_AddStringToObject(c, "detail", m->detail ? m->detail : "");
  if (m->pattern) {
    cJSON_DeleteItemFromObject(c, "pattern");
    cJSON_AddStringToObject(c, "pattern", m->pattern);
  }
  cJSON *t = m->table ? cJSON_Parse(m->table) : NULL;
  if (t) {
    cJSON_DeleteItemFromObject(c, "generalization");
    cJSON_AddItemToObject(c, "generalization", t);
  }
  if (m->reruns > 0) {
    cJSON_DeleteItemFromObject(c, "reruns");
    cJSON_DeleteItemFromObject(c, "reproduced");
    cJSON_AddNumberToObject(c, "reruns", m->reruns);
    cJSON_AddNumberToObject(c, "reproduced", m->reproduced);
  }
}

/* Whether two pattern tokens name the same thing: equal, or one is the family of the other's op
 * at the same placement ("shape-write@tmp" and "as_strided_@tmp"). */
static int token_match(const char *a, const char *b) {
  if (!strcmp(a, b)) return 1;
  const char *pa = strchr(a, '@'), *pb = strchr(b, '@');
  if (!pa || !pb || strcmp(pa, pb) != 0) return 0;
  char na[64], nb[64];
  snprintf(na, sizeof na, "%.*s", (int)(pa - a), a);
  snprintf(nb, sizeof nb, "%.*s", (int)(pb - b), b);
  int oa = ops_find(na), ob = ops_find(nb);
  if (oa < 0 && ob >= 0) return classes_family(ob) && !strcmp(classes_family(ob), na);
  if (ob < 0 && oa >= 0) return classes_family(oa) && !strcmp(classes_family(oa), nb);
  return 0;
}

int classes_pattern_within(const char *small, const char *big, int by_family) {
  char *a = af_xstrdup(small), *b = af_xstrdup(big), *sa = NULL, *sb = NULL;
  int ok = *small != 0;
  char *u = strtok_r(b, " ", &sb);
  for (char *t = strtok_r(a, " ", &sa); t && ok; t = strtok_r(NULL, " ", &sa)) {
    while (u && !(by_family ? token_match(t, u) : !strcmp(t, u))) u = strtok_r(NULL, " ", &sb);
    if (!u) ok = 0;
    else u = strtok_r(NULL, " ", &sb);
  }
  free(a);
  free(b);
  return ok;
}

/* Whether pattern g is pattern s with some of its op names replaced by their families, token for
 * token ("shape-write@in" of "unsqueeze_@in"; not "write@view-of-in" of "unfold write@view-of-in",
 * which drops a token), and not s itself. */
static int generalizes(const char *g, const char *s) {
  char *a = af_xstrdup(g), *b = af_xstrdup(s), *sa = NULL, *sb = NULL;
  int ok = strcmp(g, s) != 0;
  char *t = strtok_r(a, " ", &sa), *u = strtok_r(b, " ", &sb);
  for (; ok && t && u; t = strtok_r(NULL, " ", &sa), u = strtok_r(NULL, " ", &sb)) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(t, "@"), t);
    ok = !strcmp(t, u) || (ops_find(name) < 0 && token_match(t, u));
  }
  ok = ok && !t && !u;
  free(a);
  free(b);
  return ok;
}

/* Whether every token of small matches a token of big, in order (a family matches its ops). */
static int tokens_within(const char *small, const char *big) { return classes_pattern_within(small, big, 1); }

/* Whether name (a token without its placement) is a family name, not an op's. */
static int is_family(const char *name) {
  static const char *const families[] = {"view", "write", "shape-write", "setitem", "out=", "op", "list", NULL};
  for (int f = 0; families[f]; f++)
    if (!strcmp(name, families[f])) return 1;
  return 0;
}

void classes_specificity(const char *pattern, int *names, int *tokens) {
  *names = *tokens = 0;
  char *a = af_xstrdup(pattern ? pattern : ""), *sa = NULL;
  for (char *t = strtok_r(a, " ", &sa); t; t = strtok_r(NULL, " ", &sa)) {
    char *at = strchr(t, '@');
    if (at) *at = 0;
    *names += !is_family(t);
    ++*tokens;
  }
  free(a);
}

/* Whether token t of a cover stands for token u of a pattern: the same, or t a family at u's
 * placement and u an op of that family. Never the other way round: a cover that names an op
 * does not stand for a family. */
static int covers_token(const char *t, const char *u) {
  if (!strcmp(t, u)) return 1;
  const char *pt = strchr(t, '@'), *pu = strchr(u, '@');
  if ((pt == NULL) != (pu == NULL) || (pt && strcmp(pt, pu) != 0)) return 0;
  char nt[64], nu[64];
  snprintf(nt, sizeof nt, "%.*s", (int)(pt ? pt - t : (long)strlen(t)), t);
  snprintf(nu, sizeof nu, "%.*s", (int)(pu ? pu - u : (long)strlen(u)), u);
  int ou = ops_find(nu);
  return is_family(nt) && ou >= 0 && classes_family(ou) && !strcmp(classes_family(ou), nt);
}

static int count_writes(const char *pattern) {
  int n = 0;
  for (const char *t = pattern; *t; t += strcspn(t, " "), t += *t == ' ') n += memchr(t, '@', strcspn(t, " ")) != NULL;
  return n;
}

int classes_pattern_covers(const char *cover, const char *pattern) {
  return count_writes(cover ? cover : "") == count_writes(pattern ? pattern : "") && classes_pattern_covers_within(cover, pattern);
}

int classes_pattern_covers_within(const char *cover, const char *pattern) {
  if (!cover || !pattern || !*cover) return 0;
  char *a = af_xstrdup(cover), *b = af_xstrdup(pattern), *sa = NULL, *sb = NULL;
  int ok = 1;
  char *u = strtok_r(b, " ", &sb);
  for (char *t = strtok_r(a, " ", &sa); t && ok; t = strtok_r(NULL, " ", &sa)) {
    while (u && !covers_token(t, u)) u = strtok_r(NULL, " ", &sb);
    if (!u) ok = 0;
    else u = strtok_r(NULL, " ", &sb);
  }
  free(a);
  free(b);
  return ok;
}

const char *classes_cover_bad_token(const char *cover, char *tok, size_t n) {
  const char *t = cover;
  for (; *t; t += strcspn(t, " "), t += *t == ' ') {
    size_t l = strcspn(t, " "), ln = strcspn(t, " @");
    snprintf(tok, n, "%.*s", (int)ln, t);
    if (ln == 0 || (ops_find(tok) < 0 && !is_family(tok))) {
      snprintf(tok, n, "%.*s", (int)l, t);
      return tok;
    }
  }
  return NULL;
}

/* 1 when pattern a is more specific than pattern b (classes.h: more op names, then more tokens). */
static int more_specific(const char *a, const char *b) {
  int na, ta, nb, tb;
  classes_specificity(a, &na, &ta);
  classes_specificity(b, &nb, &tb);
  return na != nb ? na > nb : ta > tb;
}

/* Of the classes (same converter and verdict group) whose pattern contains key's pattern or is
 * contained in it, the most specific one (the earliest of equally specific ones); NULL when none:
 * findings whose patterns contain one another are one class. */
static cJSON *containing_class(const cJSON *idx, const char *key) {
  const char *bar = strrchr(key, '|');
  if (!bar || !classes_pattern_writes(bar + 1)) return NULL;
  size_t prefix = (size_t)(bar - key) + 1;
  cJSON *c, *best = NULL;
  const char *best_pat = NULL;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) {
    const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(c, "key"));
    const char *pat = k ? strrchr(k, '|') : NULL;
    if (!pat || (size_t)(pat - k) + 1 != prefix || strncmp(k, key, prefix) != 0 || !classes_pattern_writes(pat + 1)) continue;
    if ((tokens_within(pat + 1, bar + 1) || tokens_within(bar + 1, pat + 1)) && (!best || more_specific(pat + 1, best_pat))) {
      best = c;
      best_pat = pat + 1;
    }
  }
  return best;
}

/* The class whose findings list holds finding id f, or NULL. */
static cJSON *class_of_finding(const cJSON *idx, const char *f) {
  cJSON *c;
  if (!f) return NULL;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) {
    if (has_string(cJSON_GetObjectItem(c, "findings"), f)) return c;
  }
  return NULL;
}

int classes_keys_match(const char *a, const char *conv_a, const char *b, const char *conv_b) {
  size_t la = strlen(conv_a), lb = strlen(conv_b);
  if (strncmp(a, conv_a, la) != 0 || a[la] != '|' || strncmp(b, conv_b, lb) != 0 || b[lb] != '|') return 0;
  const char *ra = a + la + 1, *rb = b + lb + 1; /* "group|what" */
  const char *ba = strchr(ra, '|'), *bb = strchr(rb, '|');
  if (!ba || !bb || ba - ra != bb - rb || strncmp(ra, rb, (size_t)(ba - ra)) != 0) return 0;
  if (!strcmp(ba + 1, bb + 1)) return 1;
  return classes_pattern_writes(ba + 1) && classes_pattern_writes(bb + 1) &&
         (tokens_within(ba + 1, bb + 1) || tokens_within(bb + 1, ba + 1));
}

/* Whether member m shows class c's own bug, not only a pattern that contains c's: the class's
 * verdict, and for a converter error an error the class already had. A finding joins the most
 * specific class whose pattern contains its own whatever its verdict (a value-mismatch
 * `write@in` may join a converter-error `abs_@in` class); only one that shows the same bug may
 * widen the class to its family. */
static int shows_its_bug(const cJSON *c, const classes_member *m) {
  const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
  if (!v || strcmp(v, oracle_verdict_name(m->verdict)) != 0) return 0;
  if (m->verdict != V_ERROR) return 1;
  char *ek = sig_error_class(m->detail);
  int had = has_string(cJSON_GetObjectItem(c, "errors"), ek);
  free(ek);
  return had;
}

int classes_member_flaky(const classes_member *m) { return m->reruns > 0 && m->reproduced < m->reruns; }

/* Whether class c's generalization found op `other` failing the same way in place of its op
 * `mine` (a row with "op": mine whose "same" lists other). */
static int row_says_same(const cJSON *c, const char *mine, const char *other) {
  const cJSON *row;
  cJSON_ArrayForEach(row, cJSON_GetObjectItem(c, "generalization")) {
    const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(row, "op"));
    if (op && !strcmp(op, mine) && has_string(cJSON_GetObjectItem(row, "same"), other)) return 1;
  }
  return 0;
}

/* Whether pattern pm (a member's) is class c's pattern with some of its op names replaced by ops
 * that c's own generalization, or the member's (mine: {"generalization": rows} or NULL), saw fail
 * the same way at the same placement: `setitem@in` for a class `setitem_add@in` whose setitem_add
 * row lists setitem, or whose member's setitem row lists setitem_add. The two are one bug whose
 * family did not stand in (its other writes pass). */
static int same_by_variants(const cJSON *c, const char *pm, const cJSON *mine) {
  const char *pc = cJSON_GetStringValue(cJSON_GetObjectItem(c, "pattern"));
  if (!pc || !classes_pattern_writes(pm)) return 0;
  char *a = af_xstrdup(pm), *b = af_xstrdup(pc), *sa = NULL, *sb = NULL;
  int ok = 1, differ = 0;
  char *t = strtok_r(a, " ", &sa), *u = strtok_r(b, " ", &sb);
  for (; ok && t && u; t = strtok_r(NULL, " ", &sa), u = strtok_r(NULL, " ", &sb)) {
    if (!strcmp(t, u)) continue;
    char *at = strchr(t, '@'), *au = strchr(u, '@');
    if ((at == NULL) != (au == NULL) || (at && strcmp(at, au) != 0)) {
      ok = 0;
      break;
    }
    if (at) *at = 0;
    if (au) *au = 0;
    /* either side's generalization may have tried the other's op */
    ok = ops_find(t) >= 0 && ops_find(u) >= 0 && (row_says_same(c, u, t) || (mine && row_says_same(mine, t, u)));
    differ++;
  }
  ok = ok && !t && !u && differ > 0;
  free(a);
  free(b);
  return ok;
}

/* The class m joins (classes.h's membership rule), or NULL when it founds one; *key and id get its
 * own key (new) and that key's id. */
/* What the baseline said of m's program, from its quick key (campaign.c judges every failing
 * program on a baseline converter and says so there): 1 the baseline has the same bug, 0 it does
 * not, -1 not judged. */
int classes_quick_in_baseline(const char *qk) {
  const char *b = qk ? strstr(qk, CLASSES_BASELINE_MARK) : NULL;
  if (!b) return -1;
  return !strcmp(b + strlen(CLASSES_BASELINE_MARK), "known") ? 1 : 0;
}

/* m's class key: classes_key, and for a member the baseline also has, " (in baseline)" after
 * its verdict group, so that a class is wholly new or wholly known. */
/* Whether m's error is a limit its converter declares (refusals.h). Such an error keys on itself,
 * never on the write pattern it surfaced under: a limit is a class of its own and no bug's class
 * holds it (an export-decomp class `write@in` held torch.export's refusal of a plain attribute
 * written in place beside a real fake-tensor crash, and a class is marked a limit by its smallest
 * program's detail: the crash could have been listed as the limit). */
static int limit_error(const classes_member *m) {
  if (m->verdict != V_ERROR || !m->detail) return 0;
  const conv_converter *c = conv_find(m->converter);
  return c && refusals_limit(c, m->verdict, m->detail) != NULL;
}

/* The text of a declared limit that m's converter warned of on a wrong result (refusals.h
 * refusals_warned), new, or NULL. Such a member keys on it, as a limit's error keys on itself: a
 * rebind of a plain tensor attribute that torch.export drops, warning that such attributes must be
 * registered as buffers, is not the bug `op@state` of a buffer rebound after a view of it. */
static char *warned_limit(const classes_member *m) {
  const conv_converter *c = m->detail ? conv_find(m->converter) : NULL;
  const char *hit;
  size_t len;
  if (!c || !refusals_warned(c, m->verdict, m->detail, &hit, &len)) return NULL;
  af_buf b = {0};
  af_buf_printf(&b, "%.*s", (int)len, hit);
  return af_buf_take(&b);
}

static int is_warned_limit(const classes_member *m) {
  char *w = warned_limit(m);
  free(w);
  return w != NULL;
}

/* m's pattern as its key sees it: none for a declared limit's error or warning (it keys on that). */
static const char *key_pattern(const classes_member *m) { return limit_error(m) || is_warned_limit(m) ? NULL : m->pattern; }

/* Whether m keys on what it failed with (its error, or the limit its converter warned of), not on
 * a pattern: it joins no class by pattern. */
static int keyed_by_itself(const classes_member *m) {
  return classes_keyed_by_error(m->verdict, key_pattern(m)) || is_warned_limit(m);
}

static int keyed_by_locus(const classes_member *m) {
  return m->locus && *m->locus && classes_quick_in_baseline(m->quick) == 0 &&
         !strcmp(classes_verdict_group(m->verdict, key_pattern(m)), "wrong-result") && !is_warned_limit(m);
}

static char *member_key(const classes_member *m) {
  if (keyed_by_locus(m)) { /* a regression: what its graph changed against the baseline's */
    af_buf b = {0};
    af_buf_printf(&b, "%s|wrong-result|graph change: %s", m->converter, m->locus);
    return af_buf_take(&b);
  }
  char *warned = warned_limit(m), *key;
  if (warned) { /* "export|wrong-result|the converter warned: assigned during export. ..." */
    af_buf w = {0};
    af_buf_printf(&w, "%s|%s|%s%s", m->converter, classes_verdict_group(m->verdict, NULL), CLASSES_WARNED, warned);
    key = af_buf_take(&w);
    free(warned);
  } else {
    key = classes_key(m->converter, m->verdict, m->detail, key_pattern(m));
  }
  if (classes_quick_in_baseline(m->quick) != 1) return key;
  const char *bar = strchr(key + strlen(m->converter) + 1, '|');
  af_buf b = {0};
  af_buf_printf(&b, "%.*s (in baseline)%s", (int)(bar - key), key, bar);
  free(key);
  return af_buf_take(&b);
}

static cJSON *place(const cJSON *idx, const classes_member *m, char **key, char id[64]) {
  *key = member_key(m);
  classes_id(*key, id);
  /* one class per finding: a finding recorded again (the same signature, whose generalization
   * this time gave another pattern) stays in the class its folder names */
  cJSON *c = class_of_finding(idx, m->finding);
  if (!c) c = class_where(idx, "id", id);
  /* only a pattern joins by containment: an error-keyed finding is its error's class or a new one,
   * a graph change's its change's */
  int by_pattern = !keyed_by_itself(m) && !keyed_by_locus(m);
  if (!c && by_pattern) c = containing_class(idx, *key);
  if (!c && by_pattern) { /* or a class whose variants were its ops */
    const char *bar = strrchr(*key, '|');
    cJSON *mine = cJSON_CreateObject(), *rows = m->table ? cJSON_Parse(m->table) : NULL;
    if (rows) cJSON_AddItemToObject(mine, "generalization", rows);
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(idx, "classes")) {
      const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(e, "key"));
      const char *kb = k ? strrchr(k, '|') : NULL;
      if (kb && kb - k == bar - *key && !strncmp(k, *key, (size_t)(bar - *key)) && same_by_variants(e, bar + 1, mine)) {
        c = e;
        break;
      }
    }
    cJSON_Delete(mine);
  }
  return c;
}

int classes_member_harness(const classes_member *m) {
  return m->verdict == V_PROTOCOL || m->verdict == V_INVALID_PROGRAM || /* eager rejected what aliasfuzz made */
         (m->verdict == V_UNSUPPORTED && m->detail && strstr(m->detail, RESULT_HARNESS_LIMIT) == m->detail);
}

void classes_index_class_id(const cJSON *idx, const classes_member *m, char id[64]) {
  if (classes_member_flaky(m) || classes_member_harness(m)) {
    id[0] = 0;
    return;
  }
  char *key;
  cJSON *c = place(idx, m, &key, id);
  free(key);
  if (c) snprintf(id, 64, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(c, "id")));
}

/* A finding that is no class: one that did not reproduce on every rerun (list "flaky": its
 * pattern may be any program's that happened to fail once), or a worker protocol error (list
 * "harness": aliasfuzz's or the worker's fault, not the converter's). */
static cJSON *add_apart(cJSON *idx, const char *list, const classes_member *m) {
  cJSON *fl = cJSON_GetObjectItem(idx, list);
  if (!cJSON_IsArray(fl)) fl = cJSON_AddArrayToObject(idx, list);
  cJSON *e;
  cJSON_ArrayForEach(e, fl) {
    const char *f = cJSON_GetStringValue(cJSON_GetObjectItem(e, "finding"));
    if (f && m->finding && !strcmp(f, m->finding)) break;
  }
  if (!e) {
    e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "finding", m->finding ? m->finding : "");
    cJSON_AddStringToObject(e, "converter", m->converter);
    cJSON_AddStringToObject(e, "verdict", oracle_verdict_name(m->verdict));
    char *ek = sig_error_class(m->detail);
    cJSON_AddStringToObject(e, "error_key", ek);
    free(ek);
    cJSON_AddStringToObject(e, "pattern", m->pattern ? m->pattern : "");
    cJSON_AddNumberToObject(e, "statements", m->statements);
    cJSON_AddNumberToObject(e, "reruns", m->reruns);
    cJSON_AddNumberToObject(e, "reproduced", m->reproduced);
    cJSON_AddNumberToObject(e, "count", 0);
    cJSON_AddItemToObject(e, "first", occurrence(m->seed, m->iteration, m->job));
    cJSON_AddArrayToObject(e, "quick_keys");
    cJSON_AddItemToArray(fl, e);
  }
  cJSON *qs = cJSON_GetObjectItem(e, "quick_keys");
  if (m->quick && !has_string(qs, m->quick)) cJSON_AddItemToArray(qs, cJSON_CreateString(m->quick));
  count_once(e, m->job, m->iteration);
  return e;
}

/* Moves class e's members into class c and removes e from idx: findings, quick keys, verdicts,
 * errors and count; e's smallest program when it is smaller; e's id (and those e had taken) under
 * c's "absorbed", so a finding whose README names e's id finds its class. */
static void fold_into(cJSON *idx, cJSON *c, cJSON *e) {
  static const char *const lists[] = {"findings", "quick_keys", "verdicts", "errors", NULL};
  for (int l = 0; lists[l]; l++) {
    cJSON *to = cJSON_GetObjectItem(c, lists[l]), *x;
    if (!to) to = cJSON_AddArrayToObject(c, lists[l]);
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, lists[l])) {
      if (cJSON_IsString(x) && !has_string(to, x->valuestring) && (strcmp(lists[l], "errors") || cJSON_GetArraySize(to) < 50))
        cJSON_AddItemToArray(to, cJSON_CreateString(x->valuestring));
    }
  }
  cJSON *n = cJSON_GetObjectItem(c, "count");
  cJSON_SetNumberValue(n, n->valuedouble + cJSON_GetNumberValue(cJSON_GetObjectItem(e, "count")));
  cJSON *cu = cJSON_GetObjectItem(c, "counted_upto"), *j;
  if (!cJSON_IsObject(cu)) cu = cJSON_AddObjectToObject(c, "counted_upto");
  cJSON_ArrayForEach(j, cJSON_GetObjectItem(e, "counted_upto")) {
    cJSON *mine = cJSON_GetObjectItem(cu, j->string);
    if (!mine) cJSON_AddNumberToObject(cu, j->string, j->valuedouble);
    else if (j->valuedouble > mine->valuedouble) cJSON_SetNumberValue(mine, j->valuedouble);
  }
  const cJSON *fe = cJSON_GetObjectItem(e, "first"), *fc = cJSON_GetObjectItem(c, "first");
  if (fe && (!fc || cJSON_GetNumberValue(cJSON_GetObjectItem(fe, "iteration")) < cJSON_GetNumberValue(cJSON_GetObjectItem(fc, "iteration"))))
    cJSON_ReplaceItemInObject(c, "first", cJSON_Duplicate(fe, 1));
  if (cJSON_GetNumberValue(cJSON_GetObjectItem(e, "statements")) < cJSON_GetNumberValue(cJSON_GetObjectItem(c, "statements"))) {
    static const char *const example[] = {"smallest", "statements", "detail", "pattern", "generalization", "reruns", "reproduced", NULL};
    for (int f = 0; example[f]; f++) {
      cJSON_DeleteItemFromObject(c, example[f]);
      const cJSON *x = cJSON_GetObjectItem(e, example[f]);
      if (x) cJSON_AddItemToObject(c, example[f], cJSON_Duplicate(x, 1));
    }
  }
  cJSON *ab = cJSON_GetObjectItem(c, "absorbed"), *x;
  if (!ab) ab = cJSON_AddArrayToObject(c, "absorbed");
  cJSON_AddItemToArray(ab, cJSON_CreateString(cJSON_GetStringValue(cJSON_GetObjectItem(e, "id"))));
  cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "absorbed")) cJSON_AddItemToArray(ab, cJSON_Duplicate(x, 1));
  cJSON_Delete(cJSON_DetachItemViaPointer(cJSON_GetObjectItem(idx, "classes"), e));
}

void classes_index_fold(cJSON *idx, cJSON *into, cJSON *from) {
  if (into != from) fold_into(idx, into, from);
}

/* After member m (key `key`, pattern-keyed) joined class c whose pattern holds its own: every other class of the same
 * converter and verdict group whose key's pattern contains m's pattern (a family where it names
 * an op counts: m's "op@state" is in "sub@state") and that shows the same bug as m folds into c.
 * m is a minimized program failing with what both classes' programs hold: the two were one bug
 * whose programs did not contain one another (a "sub@state" class, and another whose member then
 * minimized to "op@state"), and would be one class had m come first. */
static void fold_contained(cJSON *idx, cJSON *c, const classes_member *m, const char *key) {
  const char *bar = strrchr(key, '|'), *ck = cJSON_GetStringValue(cJSON_GetObjectItem(c, "key")), *cbar = ck ? strrchr(ck, '|') : NULL;
  /* only a member c holds by its pattern: one recorded before stays in its class whatever its pattern */
  if (!bar || !cbar || !classes_pattern_writes(bar + 1) || !tokens_within(bar + 1, cbar + 1)) return;
  for (cJSON *e = cJSON_GetObjectItem(idx, "classes")->child, *next; e; e = next) {
    next = e->next;
    const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(e, "key")), *kb = k ? strrchr(k, '|') : NULL;
    if (e == c || !kb || kb - k != bar - key || strncmp(k, key, (size_t)(bar - key)) != 0 || cJSON_GetObjectItem(e, "graph_change") ||
        !classes_pattern_writes(kb + 1) || !tokens_within(bar + 1, kb + 1) || !shows_its_bug(e, m))
      continue;
    fold_into(idx, c, e);
  }
}

cJSON *classes_index_add(cJSON *idx, const classes_member *m, int *is_new) {
  *is_new = 0;
  if (classes_member_harness(m)) return add_apart(idx, "harness", m);
  if (classes_member_flaky(m)) return add_apart(idx, "flaky", m);
  char *key, id[64];
  cJSON *c = place(idx, m, &key, id);
  *is_new = c == NULL;
  if (!c) {
    c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "id", id);
    cJSON_AddStringToObject(c, "key", key);
    cJSON_AddStringToObject(c, "converter", m->converter);
    cJSON_AddStringToObject(c, "verdict", oracle_verdict_name(m->verdict));
    if (classes_keyed_by_error(m->verdict, key_pattern(m))) {
      char *ek = m->verdict == V_TIMEOUT ? af_xstrdup("timeout") : sig_error_class(m->detail);
      cJSON_AddStringToObject(c, "error_key", ek);
      free(ek);
    }
    char *warned = warned_limit(m);
    if (warned) cJSON_AddStringToObject(c, "warned", warned); /* what it keys on: the converter's own warning */
    free(warned);
    if (!strcmp(classes_verdict_group(m->verdict, key_pattern(m)), "wrong-result"))
      cJSON_AddArrayToObject(c, "errors"); /* the error keys this write's bug surfaced as, if any */
    cJSON_AddStringToObject(c, "pattern", m->pattern ? m->pattern : "");
    if (keyed_by_locus(m)) cJSON_AddStringToObject(c, "graph_change", m->locus);
    cJSON_AddNumberToObject(c, "count", 0);
    cJSON_AddArrayToObject(c, "findings");
    cJSON_AddItemToObject(c, "first", occurrence(m->seed, m->iteration, m->job));
    cJSON_AddArrayToObject(c, "quick_keys");
    int inb = classes_quick_in_baseline(m->quick);
    if (inb >= 0) cJSON_AddBoolToObject(c, "members_in_baseline", inb); /* each member judged on the baseline */
    set_example(c, m);
    cJSON_AddItemToArray(cJSON_GetObjectItem(idx, "classes"), c);
  } else {
    if (m->finding && m->statements < cJSON_GetNumberValue(cJSON_GetObjectItem(c, "statements"))) set_example(c, m);
    /* a member that shows the class's bug with a family where the class's pattern has one op of
     * it widens the class (its key; the id stays the one it was made with): an `unsqueeze_@in`
     * class whose next finding generalizes to `shape-write@in` takes an `as_strided_@in` one */
    cJSON *ck = cJSON_GetObjectItem(c, "key");
    const char *kb = cJSON_GetStringValue(ck), *kbar = kb ? strrchr(kb, '|') : NULL, *nbar = strrchr(key, '|');
    if (kbar && nbar && (size_t)(kbar - kb) == (size_t)(nbar - key) && !strncmp(kb, key, (size_t)(nbar - key)) &&
        classes_pattern_writes(nbar + 1) && generalizes(nbar + 1, kbar + 1) && shows_its_bug(c, m) && !class_where(idx, "key", key))
      cJSON_SetValuestring(ck, key);
  }
  if (!keyed_by_itself(m) && !keyed_by_locus(m)) fold_contained(idx, c, m, key);
  free(key);
  cJSON *fs = cJSON_GetObjectItem(c, "findings");
  if (m->finding && !has_string(fs, m->finding)) cJSON_AddItemToArray(fs, cJSON_CreateString(m->finding));
  cJSON *vs = cJSON_GetObjectItem(c, "verdicts");
  if (!vs) vs = cJSON_AddArrayToObject(c, "verdicts");
  if (!has_string(vs, oracle_verdict_name(m->verdict))) cJSON_AddItemToArray(vs, cJSON_CreateString(oracle_verdict_name(m->verdict)));
  cJSON *errs = cJSON_GetObjectItem(c, "errors");
  if (errs && m->verdict == V_ERROR) {
    char *ek = sig_error_class(m->detail);
    if (!has_string(errs, ek) && cJSON_GetArraySize(errs) < 50) cJSON_AddItemToArray(errs, cJSON_CreateString(ek));
    free(ek);
  }
  cJSON *qs = cJSON_GetObjectItem(c, "quick_keys");
  if (m->quick && !has_string(qs, m->quick)) cJSON_AddItemToArray(qs, cJSON_CreateString(m->quick));
  count_once(c, m->job, m->iteration);
  return c;
}

/* The entry that holds quick key qk: the latest class with it, else the latest flaky finding
 * with it (whose quick key has had its minimized representative), else NULL. */
static cJSON *holder_of_quick(const cJSON *idx, const char *qk) {
  cJSON *c, *found = NULL;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) {
    if (has_string(cJSON_GetObjectItem(c, "quick_keys"), qk)) found = c;
  }
  if (!found) cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "flaky")) {
      if (has_string(cJSON_GetObjectItem(c, "quick_keys"), qk)) found = c;
    }
  if (!found) cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "harness")) {
      if (has_string(cJSON_GetObjectItem(c, "quick_keys"), qk)) found = c;
    }
  /* a program deferred under qk whose graph change against the baseline a class keys on */
  const char *change = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(idx, "deferred"), qk), "change"));
  if (!found && change) found = class_where(idx, "graph_change", change);
  return found;
}

cJSON *classes_index_count_change(cJSON *idx, const char *change, int job, int64_t iteration) {
  cJSON *found = change && *change ? class_where(idx, "graph_change", change) : NULL;
  if (found) count_once(found, job, iteration);
  return found;
}

cJSON *classes_index_count_quick(cJSON *idx, const char *qk, int job, int64_t iteration) {
  cJSON *found = holder_of_quick(idx, qk);
  if (found) count_once(found, job, iteration);
  return found;
}

int classes_index_holds_quick(const cJSON *idx, const char *qk) { return holder_of_quick(idx, qk) != NULL; }

int classes_index_unclassified(const cJSON *idx) {
  int n = 0;
  const cJSON *e, *def = cJSON_GetObjectItem(idx, "deferred"); /* NULL idx or no "deferred": none */
  for (e = def ? def->child : NULL; e; e = e->next) n += !holder_of_quick(idx, e->string);
  return n;
}

int classes_index_unclassified_new(const cJSON *idx) {
  int n = 0;
  const cJSON *e, *def = cJSON_GetObjectItem(idx, "deferred");
  for (e = def ? def->child : NULL; e; e = e->next) n += !holder_of_quick(idx, e->string) && classes_quick_in_baseline(e->string) != 1;
  return n;
}

int64_t classes_index_unclassified_programs(const cJSON *idx) {
  int64_t n = 0;
  const cJSON *e, *def = cJSON_GetObjectItem(idx, "deferred");
  for (e = def ? def->child : NULL; e; e = e->next)
    if (!holder_of_quick(idx, e->string)) n += (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "count"));
  return n;
}

int classes_index_flaky_count(const cJSON *idx) { return cJSON_GetArraySize(cJSON_GetObjectItem(idx, "flaky")); }
int classes_index_harness_count(const cJSON *idx) { return cJSON_GetArraySize(cJSON_GetObjectItem(idx, "harness")); }

int64_t classes_index_total(const cJSON *idx) {
  int64_t n = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) n += (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(c, "count"));
  return n;
}

int classes_index_absorb(cJSON *idx, const char *qk, int64_t n) {
  cJSON *found = holder_of_quick(idx, qk);
  if (!found) return 0;
  cJSON *cnt = cJSON_GetObjectItem(found, "count");
  if (n > 0) cJSON_SetNumberValue(cnt, cnt->valuedouble + (double)n);
  cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItem(idx, "deferred"), qk);
  return 1;
}

/* The patterns class c was seen as (its "patterns", made from its pattern when it has none). */
static cJSON *patterns_of(cJSON *c) {
  cJSON *ps = cJSON_GetObjectItem(c, "patterns");
  if (ps) return ps;
  ps = cJSON_AddArrayToObject(c, "patterns");
  const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(c, "pattern"));
  if (p && *p) cJSON_AddItemToArray(ps, cJSON_CreateString(p));
  return ps;
}

cJSON *classes_index_rekey(cJSON *idx, cJSON *c, const char *group, const char *what) {
  const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(c, "key")), *bar = k ? strrchr(k, '|') : NULL;
  const char *gs = k ? strchr(k, '|') : NULL;
  if (!bar || !gs) return c;
  af_buf nk = {0};
  if (group) { /* "converter|group", with the baseline's mark the old group had */
    const char *mark = strstr(gs, " (in baseline)|");
    af_buf_printf(&nk, "%.*s|%s%s|%s", (int)(gs - k), k, group, mark && mark < bar ? " (in baseline)" : "", what);
  } else
    af_buf_printf(&nk, "%.*s|%s", (int)(bar - k), k, what);
  const char *ek = cJSON_GetStringValue(cJSON_GetObjectItem(c, "error_key"));
  if (ek) { /* an error-keyed class keys on `what` now: its error is one the class surfaced as */
    cJSON *errs = cJSON_GetObjectItem(c, "errors");
    if (!errs) errs = cJSON_AddArrayToObject(c, "errors");
    if (!has_string(errs, ek)) cJSON_AddItemToArray(errs, cJSON_CreateString(ek));
    cJSON_DeleteItemFromObjectCaseSensitive(c, "error_key");
  }
  cJSON *mine = patterns_of(c), *into = class_where(idx, "key", nk.s), *x;
  if (into && into != c) { /* one bug seen as several patterns: c folds into the class of that key */
    cJSON *ps = patterns_of(into);
    cJSON_ArrayForEach(x, mine) if (cJSON_IsString(x) && !has_string(ps, x->valuestring)) cJSON_AddItemToArray(ps, cJSON_CreateString(x->valuestring));
    /* the example's verdict with its detail: a class of converter errors that takes a smaller
     * wrong value reads "gave: input x5: element 0 is 128" under that verdict */
    int smaller = cJSON_GetNumberValue(cJSON_GetObjectItem(c, "statements")) < cJSON_GetNumberValue(cJSON_GetObjectItem(into, "statements"));
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
    if (smaller && v) cJSON_ReplaceItemInObject(into, "verdict", cJSON_CreateString(v));
    fold_into(idx, into, c);
    c = into;
  } else {
    cJSON_SetValuestring(cJSON_GetObjectItem(c, "key"), nk.s); /* the id stays the one it was made with */
  }
  af_buf_free(&nk);
  return c;
}
