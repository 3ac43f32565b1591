/* ops_shape.c - the dispatchers beside the table: each op's rules resolved from its ops.def line at
 * compile time (a rule name without its rule is a compile error), ops_shape_infer and
 * ops_shape_sample (no per-op code), and the family names. */
#include "ops_kit.h"

#include <stdlib.h>
#include <string.h>

/* Spellings with $:N need argument N >= 0 (the emitter repeats ":, " N times). */
static int spelling_dims_ok(const ir_stmt *st, const ops_entry *e, af_err *err) {
  for (const char *c = e->spelling; (c = strstr(c, "$:")); c += 2) {
    int k = c[2] - '0';
    if (k >= 0 && k < st->nargs && st->args[k].kind == IR_ARG_INT && st->args[k].i < 0)
      return af_fail(err, "argument %d must be a non-negative dim (spelled as %s)", k, e->spelling);
  }
  return 0;
}

/* ---------------------------------------------------------------- ops_shape_infer */

int ops_shape_writes_data(int op) {
  const ops_entry *e = ops_get(op);
  if (!e) return 0;
  if (e->kind == OPS_OUT || e->kind == OPS_SETITEM || e->kind == OPS_FOREACH) return 1;
  return e->kind == OPS_INPLACE && !(e->flags & OPF_META);
}


/* families.def, one row per family */
static const struct fam_row {
  const char *name, *title;
  unsigned char computes, pointwise;
  double budget, budget_functional, weight;
} fams[OPS_FAM_COUNT] = {
#define FAM(id, nm, ti, comp, pw, bud, budf, w) [OPS_FAM_##id] = {#nm, ti, comp, pw, bud, budf, w},
#include "families.def"
#undef FAM
};

static int fam_ok(int fam) { return fam >= 0 && fam < OPS_FAM_COUNT; }

const char *ops_family_name(int fam) { return fam_ok(fam) ? fams[fam].name : "?"; }

const char *ops_family_title(int fam) { return fam_ok(fam) ? fams[fam].title : "?"; }

int ops_family_computes(int fam) { return fam_ok(fam) && fams[fam].computes; }

int ops_family_pointwise(int fam) { return fam_ok(fam) && fams[fam].pointwise; }

double ops_family_budget(int fam, int functional) {
  return !fam_ok(fam) ? 1 : functional ? fams[fam].budget_functional : fams[fam].budget;
}

double ops_family_weight(int fam) { return fam_ok(fam) ? fams[fam].weight : 0; }

/* ================================================================ the op table's rules
 * Every op's line in ops.def names its family, dtypes, exactness, shape rule and sampler; this
 * table resolves them (a name without its rule is a compile error). */

#define OP(n, k, fl, sch, at, ov, ovs, sp, tw, sc, fam, dt, ex, shp, smp, wb, form) \
  [OPS_##n] = {shape_##shp, sample_##smp, M_##dt, FAM_##fam, EX_##ex, RC_of_##shp, PRIM_of_##smp},

static const op_rules rules[OPS_COUNT] = {
#include "ops.def"
};

#undef OP

int opk_dt_drawable(int op, const ops_meta *m) { return in_mask(rules[op].dt, m->dtype); }

int opk_dtype_mask(int op) { return rules[op].dt; }

int opk_self_dtype_ok(int op, const ops_meta *m, af_err *err) {
  if (!in_mask(rules[op].dt, m->dtype))
    return af_fail(err, "%s is not modelled for %s tensors (eager rejects it or its result type)", ops_get(op)->name,
                   af_dtype_name(m->dtype));
  return 0;
}

int ops_shape_family(int op) { return op >= 0 && op < OPS_COUNT ? rules[op].fam : OPS_FAM_OTHER; }

int ops_shape_exactness(int op) { return op >= 0 && op < OPS_COUNT ? rules[op].ex : OPS_EX_KEEP; }

int ops_shape_exactness_dt(int op, af_dtype dt) {
  int ex = ops_shape_exactness(op);
  if (ex == OPS_EX_KEEP && (dt == AF_FLOAT16 || dt == AF_BFLOAT16) && ops_family_computes(ops_shape_family(op))) return OPS_EX_INEXACT;
  return ex;
}

int ops_shape_primary(int op) { return op >= 0 && op < OPS_COUNT ? rules[op].primary : 0; }

int ops_shape_can_sample(int op) { return op >= 0 && op < OPS_COUNT && rules[op].sample != sample_none; }

/* The first in-place op naming a functional op as its twin (itself for other ops): the binary
 * rules' per-op facts are keyed by the in-place form. */
static short canon[OPS_COUNT];

static int canon_done;

static void canon_init(void) {
  if (canon_done) return;
  for (int op = 0; op < OPS_COUNT; op++) canon[op] = (short)op;
  for (int op = OPS_COUNT - 1; op >= 0; op--) { /* the first in-place op naming a twin wins */
    int t = ops_twin(op);
    if (ops_get(op)->kind == OPS_INPLACE && t >= 0 && ops_get(t)->kind != OPS_INPLACE) canon[t] = (short)op;
  }
  canon_done = 1;
}

int opk_inplace_of(int op) {
  canon_init();
  return op >= 0 && op < OPS_COUNT ? canon[op] : op;
}

/* Complex values (view_as_complex) reach only the ops whose dtypes column names them (any, num_c,
 * complex), as self or as any other operand (gt_(x, z), cat([x, z]), if z.any() are refused: eager
 * has no complex kernel for most ops, and the rules of the real ones do not model complex
 * operands); never as an index. Which complex operands an op of those columns takes is its rule's
 * (add_ of a real self and a complex other is refused by its result type). */
static int complex_operands_ok(const ir_stmt *st, const ops_env *env, const op_rules *ru, af_err *err) {
  const char *name = ops_get(st->op)->name;
  for (int k = 0; k < st->nargs; k++) {
    const ir_arg *a = &st->args[k];
    int n = a->kind == IR_ARG_VALUE ? 1 : a->kind == IR_ARG_VALUES || a->kind == IR_ARG_INDEX ? a->n : 0;
    for (int j = 0; j < n; j++) {
      int v = a->kind == IR_ARG_VALUE ? a->value : a->kind == IR_ARG_VALUES ? a->values[j] : -1;
      if (a->kind == IR_ARG_INDEX) {
        if (a->index[j].kind != IR_IDX_TENSOR || a->index[j].value < 0 || !is_complex(META(a->index[j].value)->dtype)) continue;
        return af_fail(err, "%s: tensors used as indices must be long, int, byte or bool tensors (not %s)", name,
                       af_dtype_name(META(a->index[j].value)->dtype));
      }
      if (v >= 0 && is_complex(META(v)->dtype) && !(ru->dt & MC))
        return af_fail(err, "%s is not modelled for %s operands (its dtypes column has no complex dtype)", name,
                       af_dtype_name(META(v)->dtype));
    }
  }
  return 0;
}

int ops_shape_infer(const ir_stmt *st, const ops_env *env, ops_effect *e, af_err *err) {
  memset(e, 0, sizeof *e);
  const ops_entry *oe = ops_get(st->op);
  if (!oe) return af_fail(err, "unknown op id %d", st->op);
  if (st->nargs != oe->nargs) return af_fail(err, "%s takes %d arguments", oe->name, oe->nargs);
  if (spelling_dims_ok(st, oe, err)) return -1;
  const ir_arg *a = st->args;
  /* the shape of every tensor operand must be known */
  for (int k = 0; k < st->nargs; k++) {
    if (a[k].kind == IR_ARG_VALUE && !META(a[k].value)->known) return af_fail(err, "argument %d has a data-dependent shape (not modelled)", k);
    if (a[k].kind == IR_ARG_VALUES)
      for (int j = 0; j < a[k].n; j++)
        if (!META(a[k].values[j])->known) return af_fail(err, "argument %d has a data-dependent shape (not modelled)", k);
  }
  const ops_meta *self = a[0].kind == IR_ARG_VALUE ? META(a[0].value) : NULL;
  const op_rules *ru = &rules[st->op];
  /* the dtypes column for the dtypes of issue 15 (int32, int8, uint8, float16, bfloat16): what eager
   * accepts for self on both stacks (views and shape-changing ops take every dtype). The original
   * four are checked by each rule as they were (a functional op may take more than its column
   * says: exp of an int64 is a float32), so the programs made of them stay the same. */
  if (self && (ru->shape_class == RC_WRITE || ru->shape_class == RC_FUNC) && self->dtype > AF_BOOL && opk_self_dtype_ok(st->op, self, err)) return -1;
  if (complex_operands_ok(st, env, ru, err)) return -1;

  switch (ru->shape_class) {
    case RC_VIEW: {
      e->alias = OPS_ALIAS_VIEW;
      int rc = ru->shape(st, env, self, e, err);
      if (rc < 0) return -1;
      if (rc == 0 && e->out.exact) opk_finish_exact(&e->out);
      return 0;
    }
    case RC_META: {
      e->alias = OPS_ALIAS_SAME;
      e->out = *self;
      ops_effect me = *e;
      if (ru->shape(st, env, self, &me, err)) return -1;
      e->out = me.out;
      e->rebind = me.rebind;
      e->meta_change = 1;
      return 0;
    }
    case RC_WRITE:
      e->alias = OPS_ALIAS_SAME;
      e->out = *self;
      e->writes = 1;
      if (oe->kind != OPS_SETITEM && opk_writable(env, self, err)) return -1;
      return ru->shape(st, env, self, e, err);
    case RC_FOREACH: /* writes every element of the list argument 0; defines nothing */
      e->alias = OPS_ALIAS_SAME;
      e->writes = 1;
      return ru->shape(st, env, self, e, err);
    case RC_FUNC:
      e->alias = OPS_ALIAS_FRESH;
      if (ru->shape(st, env, self, e, err)) return -1;
      if (e->alias == OPS_ALIAS_FRESH) e->storage_numel = ops_meta_numel(&e->out);
      return 0;
    default: return ru->shape(st, env, self, e, err);
  }
}

int ops_shape_sample(int op, int p, const ops_meta *m, int64_t storage, const ops_chooser *ch, ir_arg *args) {
  const ops_entry *oe = ops_get(op);
  if (!oe || !m->known) return -1;
  for (int k = 0; k < oe->nargs; k++) args[k] = a_none();
  if (rules[op].primary == 0) args[0] = a_value(p);
  return rules[op].sample(op, p, m, storage, ch, args);
}
