/* ops.c - the op table built from ops.def, with the per-argument schema split once at startup. */
#include "ops.h"

#include <string.h>

#define OP(n, k, fl, sch, at, ov, ovs, sp, tw, sc, fam, dt, ex, shp, smp, wb, frm) \
  {.name = #n, .kind = OPS_##k, .flags = fl, .schema = sch, .aten = at, .overload = ov, \
   .overload_scalar = ovs, .spelling = sp, .twin = tw, .scatter = sc, .family = #fam, .dtypes = #dt, \
   .exact = #ex, .shape_rule = #shp, .sample_rule = #smp, .wb_rule = #wb, .form = #frm},
static ops_entry table[OPS_COUNT] = {
#include "ops.def"
};
#undef OP

#define SHAPE(n, c) #n,
#define SAMPLE(n, p)
#define WB(n, k, r)
static const char *const shape_names[] = {
#include "ops_rules.def"
};
#undef SHAPE
#define SHAPE(n, c) #c,
static const char *const shape_classes[] = {
#include "ops_rules.def"
};
#undef SHAPE
#undef SAMPLE
#define SHAPE(n, c)
#define SAMPLE(n, p) #n,
static const char *const sample_names[] = {
#include "ops_rules.def"
};
#undef SAMPLE
#undef WB
#define SAMPLE(n, p)
#define WB(n, k, r) #n,
static const char *const wb_names[] = {
#include "ops_rules.def"
};
#undef SHAPE
#undef SAMPLE
#undef WB

static const char *const *rule_names(ops_rule_kind k, int *n) {
  switch (k) {
    case OPS_RULE_SHAPE: *n = (int)(sizeof shape_names / sizeof shape_names[0]); return shape_names;
    case OPS_RULE_SAMPLE: *n = (int)(sizeof sample_names / sizeof sample_names[0]); return sample_names;
    case OPS_RULE_WB: *n = (int)(sizeof wb_names / sizeof wb_names[0]); return wb_names;
    default: *n = 0; return NULL;
  }
}

int ops_rule_count(ops_rule_kind k) {
  int n;
  rule_names(k, &n);
  return n;
}

const char *ops_rule_name(ops_rule_kind k, int i) {
  int n;
  const char *const *names = rule_names(k, &n);
  return i >= 0 && i < n ? names[i] : NULL;
}

int ops_rule_find(ops_rule_kind k, const char *name) {
  int n;
  const char *const *names = rule_names(k, &n);
  for (int i = 0; name && i < n; i++)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

const char *ops_rule_class(int i) {
  int n = (int)(sizeof shape_classes / sizeof shape_classes[0]);
  return i >= 0 && i < n ? shape_classes[i] : NULL;
}

static int split_done;
static void split_schemas(void);
__attribute__((constructor)) static void ops_init(void) { split_schemas(); }

static void split_schemas(void) {
  for (int op = 0; op < OPS_COUNT; op++) {
    ops_entry *e = &table[op];
    const char *s = e->schema;
    e->nargs = 0;
    while (*s) {
      while (*s == ' ') s++;
      if (!*s) break;
      int n = 0;
      while (s[n] && s[n] != ' ' && n < 2) n++;
      memcpy(e->argk[e->nargs], s, (size_t)n);
      e->argk[e->nargs][n] = 0;
      e->nargs++;
      s += n;
    }
  }
  split_done = 1;
}

const ops_entry *ops_get(int op) {
  if (!split_done) split_schemas();
  if (op < 0 || op >= OPS_COUNT) return NULL;
  return &table[op];
}

int ops_find(const char *name) {
  for (int op = 0; op < OPS_COUNT; op++)
    if (strcmp(table[op].name, name) == 0) return op;
  return -1;
}

const char *ops_kind_name(ops_kind k) {
  static const char *names[] = {"view", "inplace", "functional", "out", "setitem", "getitem", "control", "list", "int", "foreach"};
  return k <= OPS_FOREACH ? names[k] : "?";
}

int ops_twin(int op) {
  const ops_entry *e = ops_get(op);
  return e && e->twin[0] ? ops_find(e->twin) : -1;
}

static const char *const reduce_names[] = {"sum", "prod", "mean", "amax", "amin"};

const char *ops_reduce_name(int64_t k) {
  return k >= 0 && k < (int64_t)(sizeof reduce_names / sizeof reduce_names[0]) ? reduce_names[k] : NULL;
}

int ops_reduce_find(const char *name) {
  for (int k = 0; name && k < (int)(sizeof reduce_names / sizeof reduce_names[0]); k++)
    if (!strcmp(reduce_names[k], name)) return k;
  return -1;
}

int ops_mutates(int op) { return (int)(ops_writes(op) & 1u); }

unsigned ops_writes(int op) {
  const ops_entry *e = ops_get(op);
  if (!e) return 0;
  unsigned m = e->flags >> OPF_WRITES_SHIFT;
  if (m) return m;
  return e->kind == OPS_INPLACE || e->kind == OPS_OUT || e->kind == OPS_SETITEM || e->kind == OPS_FOREACH ? 1u : 0u;
}

int ops_stmt_written(const ir_stmt *st, int *out, int max) {
  unsigned m = ops_writes(st->op);
  int n = 0;
  for (int k = 0; k < st->nargs && m; k++, m >>= 1) {
    const ir_arg *a = &st->args[k];
    if (!(m & 1u)) continue;
    if (a->kind == IR_ARG_VALUE && a->value >= 0) {
      if (n < max) out[n] = a->value;
      n++;
    }
    for (int j = 0; a->kind == IR_ARG_VALUES && j < a->n; j++)
      if (a->values[j] >= 0) {
        if (n < max) out[n] = a->values[j];
        n++;
      }
  }
  return n;
}
