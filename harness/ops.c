/* ops.c - the op table built from ops.def, with the per-argument schema split once at startup. */
#include "ops.h"

#include <string.h>

#define OP(n, k, fl, sch, at, ov, ovs, sp, tw, sc) \
  {.name = #n, .kind = OPS_##k, .flags = fl, .schema = sch, .aten = at, .overload = ov, \
   .overload_scalar = ovs, .spelling = sp, .twin = tw, .scatter = sc},
static ops_entry table[OPS_COUNT] = {
#include "ops.def"
};
#undef OP

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
  static const char *names[] = {"view", "inplace", "functional", "out", "setitem", "getitem", "control", "list", "int"};
  return k <= OPS_INT ? names[k] : "?";
}

int ops_twin(int op) {
  const ops_entry *e = ops_get(op);
  return e && e->twin[0] ? ops_find(e->twin) : -1;
}

int ops_mutates(int op) {
  const ops_entry *e = ops_get(op);
  return e && (e->kind == OPS_INPLACE || e->kind == OPS_OUT || e->kind == OPS_SETITEM);
}
