/* gen_policy.c - the generator's policy: defaults, JSON in and out, range checks. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gen_train.h"

static const char *action_names[GEN_ACT_COUNT] = {"view", "mutate", "read"};

typedef struct {
  const char *name;
  size_t off;
} field;

#define LIMIT(n) {#n, offsetof(gen_policy, n)}
static const field limits[] = {LIMIT(min_stmts),   LIMIT(max_stmts),     LIMIT(min_inputs), LIMIT(max_inputs),
                               LIMIT(max_rank),    LIMIT(max_view_rank), LIMIT(max_dim),    LIMIT(max_numel),
                               LIMIT(max_view_depth), LIMIT(max_outputs),
                               LIMIT(max_block_depth), LIMIT(max_block_stmts), LIMIT(max_trips),
                               LIMIT(noop_redraws)};
#define CHANCE(n) {#n + 2, offsetof(gen_policy, n)}
static const field chances[] = {CHANCE(p_view_of_view),     CHANCE(p_sibling),       CHANCE(p_strided_source),       CHANCE(p_target_view),
                                CHANCE(p_target_input),     CHANCE(p_read_after_write), CHANCE(p_use_after_meta),
                                CHANCE(p_bind_result),      CHANCE(p_new_operand),   CHANCE(p_output_base),
                                CHANCE(p_output_view),      CHANCE(p_for),           CHANCE(p_if),
                                CHANCE(p_else),             CHANCE(p_loop_index),    CHANCE(p_rebind),
                                CHANCE(p_list),             CHANCE(p_module),        CHANCE(p_buffer),
                                CHANCE(p_set),
                                CHANCE(p_layout),           CHANCE(p_size_value),    CHANCE(p_factory),
                                CHANCE(p_train),            CHANCE(p_attribute),     CHANCE(p_train_state_read),
                                CHANCE(p_train_view_input), CHANCE(p_train_data),       CHANCE(p_train_out_views),       CHANCE(p_train_grad_mode),
                                CHANCE(p_running_stats),
                                CHANCE(p_dtype_view_back)};
#define NLIMITS (int)(sizeof limits / sizeof limits[0])
#define NCHANCES (int)(sizeof chances / sizeof chances[0])

static int *lim(gen_policy *p, int k) { return (int *)((char *)p + limits[k].off); }
static const int *limc(const gen_policy *p, int k) { return (const int *)((const char *)p + limits[k].off); }
static double *chn(gen_policy *p, int k) { return (double *)((char *)p + chances[k].off); }
static const double *chnc(const gen_policy *p, int k) { return (const double *)((const char *)p + chances[k].off); }

/* ops the generator can draw (the op table's samplers), in table order */
static int drawable(int op) { return ops_shape_can_sample(op); }

/* The core ops (OPF_CORE on their ops.def line) keep weight 1: they carry the core alias patterns.
 * The other ops of a family share its budget per kind (families.def), so that 40 unary float ops
 * weigh as much together as a few core ops. */
static int core_op(int op) { return (ops_get(op)->flags & OPF_CORE) != 0; }

static void policy_defaults(gen_policy *p);

void gen_policy_default(gen_policy *p) { /* computed once: every program's meta diffs against it */
  static gen_policy d;
  static int done;
  if (!done) {
    policy_defaults(&d);
    done = 1;
  }
  *p = d;
}

static void policy_defaults(gen_policy *p) {
  memset(p, 0, sizeof *p);
  p->min_stmts = 4;
  p->max_stmts = 14;
  p->min_inputs = 1;
  p->max_inputs = 3;
  p->max_rank = 3;
  p->max_view_rank = 4;
  p->max_dim = 5;
  p->max_numel = 64;
  p->max_view_depth = 4;
  p->max_outputs = 3;
  p->dtype_weight[AF_FLOAT32] = 6;
  p->dtype_weight[AF_FLOAT64] = 2;
  p->dtype_weight[AF_INT64] = 2;
  p->dtype_weight[AF_BOOL] = 1;
  p->action_weight[GEN_ACT_VIEW] = 4;
  p->action_weight[GEN_ACT_MUTATE] = 4;
  p->action_weight[GEN_ACT_READ] = 2;
  int count[OPS_FAM_COUNT][2] = {{0}};
  for (int op = 0; op < OPS_COUNT; op++)
    if (drawable(op) && !core_op(op) && !(ops_get(op)->flags & OPF_OPT_IN)) count[ops_shape_family(op)][ops_get(op)->kind == OPS_FUNC]++;
  for (int op = 0; op < OPS_COUNT; op++) {
    const ops_entry *e = ops_get(op);
    if (!drawable(op)) continue;
    p->op_weight[op] = 1;
    if (!core_op(op)) {
      int f = ops_shape_family(op), fn = e->kind == OPS_FUNC;
      p->op_weight[op] = ops_family_budget(f, fn) / count[f][fn];
      if (e->kind == OPS_OUT) p->op_weight[op] = 0.5;
    }
    if (e->kind == OPS_SETITEM || e->kind == OPS_GETITEM) p->op_weight[op] = 2;
    if (e->flags & OPF_OPT_IN) p->op_weight[op] = 0; /* ops.def says why, op by op */
    if (ops_family_weight(ops_shape_family(op))) p->op_weight[op] = ops_family_weight(ops_shape_family(op));
  }
  static const double idx[OPS_IDX_KIND_COUNT] = {2, 3, 1, 1, 1.5, 1};
  memcpy(p->index_weight, idx, sizeof idx);
  static const double dec[OPS_DECIDE_COUNT] = {
      [OPS_DECIDE_NEG_DIM] = 0.2,     [OPS_DECIDE_STEP] = 0.25,     [OPS_DECIDE_OPEN_BOUND] = 0.4,
      [OPS_DECIDE_NEG_INDEX] = 0.15,  [OPS_DECIDE_TRIVIAL_EXPAND] = 0.4, [OPS_DECIDE_OVERLAP] = 0.2,
      [OPS_DECIDE_VIEW_SHAPE] = 0.4,  [OPS_DECIDE_MINUS_ONE] = 0.2, [OPS_DECIDE_NUMBER] = 0.5,
      [OPS_DECIDE_DUP_INDEX] = 0.3,   [OPS_DECIDE_ACCUMULATE] = 0.3, [OPS_DECIDE_INDEX_2D] = 0.15,
      [OPS_DECIDE_EDGE] = 0.1,        [OPS_DECIDE_FLOAT] = 0.4};
  memcpy(p->decide, dec, sizeof dec);
  p->p_view_of_view = 0.5;
  p->p_sibling = 0.4;
  p->p_strided_source = 0.25;
  p->p_target_view = 0.7;
  p->p_target_input = 0.5;
  p->p_read_after_write = 0.6;
  p->p_use_after_meta = 0.7;
  p->p_bind_result = 0.05;
  p->p_new_operand = 0.2;
  p->p_output_base = 0.6;
  p->p_output_view = 0.2;
  p->max_block_depth = 2;
  p->max_block_stmts = 4;
  p->max_trips = 4;
  p->noop_redraws = 4; /* about 5% of programs change nothing; 0.05^5 of them still do */
  p->p_for = 0.06;
  p->p_if = 0.06;
  p->p_else = 0.6;
  p->p_loop_index = 0.6;
  p->p_rebind = 0.2;
  p->p_list = 0.04;
  p->p_set = 0.005; /* issue 29: set_ in about 1 program in 30 (where a step finds a local no view shares) */
  p->p_module = 0.15;
  p->p_buffer = 0.5;
  p->p_layout = 0.15;
  p->p_size_value = 0.03; /* a dry run in eager for each program it runs on: bench_gen stays over 20000/s */
  p->p_factory = 0.02; /* about one program in four makes one */
  p->p_train = 0.2; /* issue 33: about 1 program in 9 becomes a training program (docs/training.md) */
  p->p_train_state_read = GEN_TRAIN_P_STATE_READ; /* issue 33's training forms (gen_train.h) */
  p->p_train_view_input = GEN_TRAIN_P_VIEW_INPUT;
  p->p_train_data = GEN_TRAIN_P_DATA;
  p->p_train_out_views = GEN_TRAIN_P_OUT_VIEWS;
  p->p_train_grad_mode = GEN_TRAIN_P_GRAD_MODE;
  p->p_attribute = 0.15; /* issue 29: about 1 program in 30 holds one (a module buffer in 4 of them) */
  p->p_dtype_view_back = 0.75; /* issue 29: per top-level dtype view; about 1 program in 70 has one */
  p->p_running_stats = 0.04; /* issue 29: a dry run in eager for each program it runs on; about 1 in 30 gets one */
}

int gen_policy_check(const gen_policy *p, af_err *err) {
  for (int k = 0; k < NLIMITS; k++)
    if (*limc(p, k) < 0) return af_fail(err, "policy: limits.%s: expected a non-negative integer", limits[k].name);
  if (p->max_stmts < p->min_stmts || p->max_stmts > 1000) return af_fail(err, "policy: limits: need min_stmts <= max_stmts <= 1000");
  if (p->min_inputs < 1 || p->max_inputs < p->min_inputs || p->max_inputs > 16) return af_fail(err, "policy: limits: need 1 <= min_inputs <= max_inputs <= 16");
  if (p->max_rank > 4 || p->max_view_rank < p->max_rank || p->max_view_rank > 6) return af_fail(err, "policy: limits: need max_rank <= 4 and max_rank <= max_view_rank <= 6");
  if (p->max_dim < 1 || p->max_dim > 16) return af_fail(err, "policy: limits.max_dim: expected 1..16");
  if (p->max_numel < 1 || p->max_numel > 256) return af_fail(err, "policy: limits.max_numel: expected 1..256");
  if (p->max_outputs < 1) return af_fail(err, "policy: limits.max_outputs: expected at least 1");
  if (p->max_block_depth > 4) return af_fail(err, "policy: limits.max_block_depth: expected 0..4");
  if (p->max_block_stmts < 1 || p->max_block_stmts > 32) return af_fail(err, "policy: limits.max_block_stmts: expected 1..32");
  if (p->max_trips < 2 || p->max_trips > 8) return af_fail(err, "policy: limits.max_trips: expected 2..8");
  if (p->noop_redraws > 64) return af_fail(err, "policy: limits.noop_redraws: expected 0..64");
  double s = 0;
  for (int d = 0; d < AF_REAL_DTYPE_COUNT; d++) { /* inputs: complex values come from view_as_complex */
    if (!(p->dtype_weight[d] >= 0)) return af_fail(err, "policy: dtypes.%s: expected a weight >= 0", af_dtype_name(d));
    if (d != AF_BOOL) s += p->dtype_weight[d];
  }
  if (s <= 0) return af_fail(err, "policy: dtypes: some dtype other than bool needs a weight > 0");
  s = 0;
  for (int a = 0; a < GEN_ACT_COUNT; a++) {
    if (!(p->action_weight[a] >= 0)) return af_fail(err, "policy: actions.%s: expected a weight >= 0", action_names[a]);
    s += p->action_weight[a];
  }
  if (s <= 0) return af_fail(err, "policy: actions: some action needs a weight > 0");
  for (int op = 0; op < OPS_COUNT; op++)
    if (!(p->op_weight[op] >= 0)) return af_fail(err, "policy: ops.%s: expected a weight >= 0", ops_get(op)->name);
  for (int k = 0; k < OPS_IDX_KIND_COUNT; k++)
    if (!(p->index_weight[k] >= 0)) return af_fail(err, "policy: index_kinds.%s: expected a weight >= 0", ops_idx_kind_name(k));
  for (int d = 0; d < OPS_DECIDE_COUNT; d++)
    if (!(p->decide[d] >= 0 && p->decide[d] <= 1)) return af_fail(err, "policy: decisions.%s: expected a probability 0..1", ops_decide_name(d));
  for (int k = 0; k < NCHANCES; k++)
    if (!(*chnc(p, k) >= 0 && *chnc(p, k) <= 1)) return af_fail(err, "policy: chances.%s: expected a probability 0..1", chances[k].name);
  return 0;
}

/* Builds the JSON object; with base != NULL only the fields that differ from base. */
static cJSON *to_cjson(const gen_policy *p, const gen_policy *base) {
  cJSON *root = cJSON_CreateObject();
#define SECTION(name, body)                                   \
  do {                                                        \
    cJSON *sec = cJSON_CreateObject();                        \
    body;                                                     \
    if (!base || sec->child) cJSON_AddItemToObject(root, name, sec); \
    else cJSON_Delete(sec);                                   \
  } while (0)
  SECTION("limits", for (int k = 0; k < NLIMITS; k++) if (!base || *limc(p, k) != *limc(base, k))
                        cJSON_AddNumberToObject(sec, limits[k].name, *limc(p, k)));
  SECTION("dtypes", for (int d = 0; d < AF_REAL_DTYPE_COUNT; d++) if (!base || p->dtype_weight[d] != base->dtype_weight[d])
                        cJSON_AddNumberToObject(sec, af_dtype_name(d), p->dtype_weight[d]));
  SECTION("actions", for (int a = 0; a < GEN_ACT_COUNT; a++) if (!base || p->action_weight[a] != base->action_weight[a])
                         cJSON_AddNumberToObject(sec, action_names[a], p->action_weight[a]));
  SECTION("ops", for (int op = 0; op < OPS_COUNT; op++) if (drawable(op) && (!base || p->op_weight[op] != base->op_weight[op]))
                     cJSON_AddNumberToObject(sec, ops_get(op)->name, p->op_weight[op]));
  SECTION("index_kinds", for (int k = 0; k < OPS_IDX_KIND_COUNT; k++) if (!base || p->index_weight[k] != base->index_weight[k])
                             cJSON_AddNumberToObject(sec, ops_idx_kind_name(k), p->index_weight[k]));
  SECTION("decisions", for (int d = 0; d < OPS_DECIDE_COUNT; d++) if (!base || p->decide[d] != base->decide[d])
                           cJSON_AddNumberToObject(sec, ops_decide_name(d), p->decide[d]));
  SECTION("chances", for (int k = 0; k < NCHANCES; k++) if (!base || *chnc(p, k) != *chnc(base, k))
                         cJSON_AddNumberToObject(sec, chances[k].name, *chnc(p, k)));
#undef SECTION
  return root;
}

char *gen_policy_to_json(const gen_policy *p) {
  cJSON *j = to_cjson(p, NULL);
  char *s = cJSON_Print(j);
  cJSON_Delete(j);
  char *r = af_xmalloc(strlen(s) + 2);
  strcpy(r, s);
  strcat(r, "\n");
  cJSON_free(s);
  return r;
}

char *gen_policy_diff_json(const gen_policy *p) {
  /* every program records it: the last policy's answer is kept (a different policy, or the same
     one with other padding bytes, only makes it again) */
  static _Thread_local gen_policy last;
  static _Thread_local char *last_json;
  if (last_json && !memcmp(&last, p, sizeof last)) return af_xstrdup(last_json);
  gen_policy d;
  gen_policy_default(&d);
  cJSON *j = to_cjson(p, &d);
  char *s = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  char *r = af_xstrdup(s);
  cJSON_free(s);
  free(last_json);
  memcpy(&last, p, sizeof last);
  last_json = af_xstrdup(r);
  return r;
}

static int num(const cJSON *x, const char *sec, const char *key, double *out, af_err *err) {
  if (!cJSON_IsNumber(x)) return af_fail(err, "policy: %s.%s: expected a number", sec, key);
  if (!isfinite(x->valuedouble)) /* 1e400 reads as infinity, which JSON cannot record (it would be null) */
    return af_fail(err, "policy: %s.%s: a number beyond the range of a double", sec, key);
  *out = x->valuedouble;
  return 0;
}

int gen_policy_from_json(const char *text, gen_policy *p, af_err *err) {
  gen_policy_default(p);
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  if (!root) return af_fail(err, "policy: malformed JSON near byte %ld", end ? (long)(end - text) : 0L);
  int rc = -1;
  if (!cJSON_IsObject(root)) {
    af_fail(err, "policy: expected a JSON object");
    goto out;
  }
  for (const cJSON *sec = root->child; sec; sec = sec->next) {
    const char *sn = sec->string;
    static const char *const sections[] = {"limits", "dtypes", "actions", "ops", "index_kinds", "decisions", "chances", NULL};
    int known = 0;
    for (int i = 0; sections[i]; i++) known |= !strcmp(sn, sections[i]);
    if (!known) {
      af_fail(err, "policy: unknown section '%s' (expected limits, dtypes, actions, ops, index_kinds, decisions, chances)", sn);
      goto out;
    }
    if (!cJSON_IsObject(sec)) {
      af_fail(err, "policy: %s: expected an object", sn);
      goto out;
    }
    for (const cJSON *x = sec->child; x; x = x->next) {
      const char *k = x->string;
      double v = 0;
      int found = 0;
      if (num(x, sn, k, &v, err)) goto out;
      if (!strcmp(sn, "limits")) {
        for (int i = 0; i < NLIMITS; i++)
          if (!strcmp(k, limits[i].name)) {
            if (v != floor(v) || v < 0 || v > 1e6) {
              af_fail(err, "policy: limits.%s: expected a non-negative integer", k);
              goto out;
            }
            *lim(p, i) = (int)v;
            found = 1;
          }
      } else if (!strcmp(sn, "dtypes")) {
        af_dtype d;
        if (!af_dtype_parse_real(k, &d)) p->dtype_weight[d] = v, found = 1;
      } else if (!strcmp(sn, "actions")) {
        for (int a = 0; a < GEN_ACT_COUNT; a++)
          if (!strcmp(k, action_names[a])) p->action_weight[a] = v, found = 1;
      } else if (!strcmp(sn, "ops")) {
        int op = ops_find(k);
        if (op >= 0 && drawable(op)) p->op_weight[op] = v, found = 1;
      } else if (!strcmp(sn, "index_kinds")) {
        for (int i = 0; i < OPS_IDX_KIND_COUNT; i++)
          if (!strcmp(k, ops_idx_kind_name(i))) p->index_weight[i] = v, found = 1;
      } else if (!strcmp(sn, "decisions")) {
        for (int i = 0; i < OPS_DECIDE_COUNT; i++)
          if (!strcmp(k, ops_decide_name(i))) p->decide[i] = v, found = 1;
      } else if (!strcmp(sn, "chances")) {
        for (int i = 0; i < NCHANCES; i++)
          if (!strcmp(k, chances[i].name)) *chn(p, i) = v, found = 1;
      } else {
        af_fail(err, "policy: unknown section '%s' (expected limits, dtypes, actions, ops, index_kinds, decisions, chances)", sn);
        goto out;
      }
      if (!found) {
        af_fail(err, "policy: %s.%s: unknown field%s", sn, k, !strcmp(sn, "ops") ? " (not an op the generator can draw)" : "");
        goto out;
      }
    }
  }
  rc = gen_policy_check(p, err);
out:
  cJSON_Delete(root);
  return rc;
}
