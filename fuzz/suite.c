/* suite.c - see suite.h: the families of cases and suite_generate. The case builder and each
 * op's arguments (recipes) are in suite_cb.c, the files written in suite_write.c.
 *
 * What eager rejects (combinations the suite skips; eager is asked every time, these are the
 * reasons it gives on PyTorch 1.13):
 *   - a write (in-place op, setitem, out=) into a view whose elements overlap in memory:
 *     expand / expand_as of a size-1 dim ("unsupported operation: more than one element of the
 *     written-to tensor refers to a single memory location"). unfold with step < size overlaps
 *     too, but PyTorch cannot prove it (MemOverlap::TooHard) and lets the write happen: those
 *     cases stay in the suite.
 *   - view() of a tensor whose strides do not allow it (a view of a transposed or sliced tensor:
 *     "view size is not compatible with input tensor's size and stride").
 *   - out= into a tensor that would have to be resized while it is a view, and the other
 *     messages SKIPPED.md lists: nothing is skipped silently.
 * Combinations where no arguments fit (a write that needs rank >= 2 on a rank-1 view, select of a
 * size-1 dim) are listed in SKIPPED.md too, with the reason. */
#include "suite.h"
#include "judge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/eager.h"
#include "../harness/ops/ops.h"
#include "../harness/ops/ops_shape.h"
#include "suite_cb.h"

/* ---- the suite ---- */

typedef struct gen {
  suite *s;
  int views[OPS_COUNT], nviews;   /* primary recipes: one per view op of the table */
  int writes[OPS_COUNT], nwrites; /* write ops of the table */
  int cores[OPS_COUNT], ncores;   /* the core writes: those with a recipe in make_write */
  const char *recipes[2 * OPS_COUNT]; /* chain recipes, in the order of suite/1 (see recipe_order) */
  int nrecipes;
  int nrecipes1; /* of them, those of suite/1 (the suite1 views and the variants) */
  int metas[OPS_COUNT], nmetas;   /* OPF_META in-place ops */
  int changed_data;               /* cases given data their writes change (finish) */
  int maybes[OPS_COUNT], nmaybes; /* OPF_MAYBE_VIEW ops */
} gen;

static void json_str(af_buf *m, const char *s);

/* Appends case id (program p, taken) to the suite, with its meta: id, the family's fields (a JSON
 * fragment that starts with ", "), the note and the generator's version. */
static void add_case(gen *g, const char *id, const char *fields, const char *note, ir_program *p) {
  af_buf m = {0};
  af_buf_puts(&m, "{\"id\": ");
  json_str(&m, id);
  af_buf_puts(&m, fields);
  af_buf_puts(&m, ", \"note\": ");
  json_str(&m, note);
  af_buf_puts(&m, ", \"generator\": \"aliasfuzz " AF_VERSION " " SUITE_VERSION "\"}");
  ir_set_meta(p, m.s);
  af_buf_free(&m);
  suite *s = g->s;
  s->cases = af_xrealloc(s->cases, sizeof(suite_case) * (size_t)(s->ncases + 1));
  s->cases[s->ncases].id = af_xstrdup(id);
  s->cases[s->ncases].p = p;
  s->ncases++;
}

/* Variants used in chains besides the primary recipes. */
static const char *const variants[] = {"slice.step", "diagonal.off", "unfold.overlap", "expand.same", "getitem.int", NULL};

static void add_skip(gen *g, const char *id, const char *why) {
  suite *s = g->s;
  s->skips = af_xrealloc(s->skips, sizeof(suite_skip) * (size_t)(s->nskips + 1));
  s->skips[s->nskips].id = af_xstrdup(id);
  s->skips[s->nskips].why = af_xstrdup(why);
  s->nskips++;
}

static void json_str(af_buf *m, const char *s) {
  af_buf_puts(m, "\"");
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') af_buf_printf(m, "\\%c", *s);
    else af_buf_printf(m, "%c", *s);
  }
  af_buf_puts(m, "\"");
}

/* The case of b with every float input that has no data of its own given data its writes may
 * change: kind 0 the default values plus 0.3 (rounding ops change them), kind 1 the same with
 * +inf and -inf as the first elements of float32 inputs (nan_to_num_ changes them). NULL when no
 * input could get data or eager rejects the result. new. */
static ir_program *with_data_writes_change(const cb *b, int kind) {
  cb alt = *b; /* shares the statements' argument lists with b: built from, never cleared */
  int given = 0, k = 0;
  for (int i = 0; i < alt.nv; i++) {
    bval *v = &alt.v[i];
    if (!v->is_input) continue;
    int index = k++;
    int64_t n = ir_numel(v->rank, v->shape);
    /* infinities only in float32: a case file holds them as +-1e308 (JSON has no inf or NaN),
     * which float32 reads back as infinite and float64 does not */
    if (v->ndata || n > 64 || !(v->dt == AF_FLOAT32 || (v->dt == AF_FLOAT64 && kind == 0))) continue;
    for (int64_t e = 0; e < n; e++) v->data[e] = ir_input_default_value(index, e, v->dt) + 0.3;
    if (kind == 1) {
      static const double special[2] = {INFINITY, -INFINITY};
      for (int64_t e = 0; e < n && e < 2; e++) v->data[e] = special[e];
    }
    v->ndata = (int)n;
    given++;
  }
  if (!given) return NULL;
  ir_program *q = cb_build(&alt, alt.nouts, alt.outs);
  result r;
  af_err err;
  result_init(&r);
  int ok = eager_run(q, &r, &err) == 0 && r.status == RESULT_OK;
  result_clear(&r);
  if (!ok) {
    ir_program_free(q);
    return NULL;
  }
  return q;
}

/* Finishes a case: checks it in eager, records it (or its skip). meta_fields is the inside of
 * the meta object after "id" and before "generator" (starts with ", " when not empty). */
static void finish(gen *g, cb *b, const char *id, const char *meta_fields, const char *note) {
  af_err why;
  result r;
  if (cb_eager(b, b->nouts, b->outs, &r, &why)) {
    add_skip(g, id, why.msg);
    return;
  }
  int complex_out[4] = {0};
  for (int k = 0; k < b->nouts && k < 4; k++) complex_out[k] = af_dtype_is_complex((af_dtype)at_tensor_dtype(r.outputs[k]));
  result_clear(&r);
  for (int k = 0; k < b->nouts && k < 4; k++) /* a program returns real tensors: a complex view as its pairs */
    if (complex_out[k]) {
      ir_arg a[1] = {A_V(b->outs[k])};
      b->outs[k] = cb_stmt(b, "pairs", OPS_view_as_real, 1, a);
    }
  if (cb_eager(b, b->nouts, b->outs, &r, &why)) {
    add_skip(g, id, why.msg);
    return;
  }
  result_clear(&r);
  ir_program *p = cb_build(b, b->nouts, b->outs);
  const char *data_note = "";
  for (int kind = 0; kind < 2 && judge_writes_change_nothing(p); kind++) {
    ir_program *q = with_data_writes_change(b, kind);
    if (!q) break;
    ir_program_free(p);
    p = q;
    data_note = kind == 0 ? " Its float inputs hold fractional values: with the default small integers its writes change nothing."
                          : " Its float inputs hold fractional values and infinities: with the default small integers its writes change nothing.";
  }
  if (judge_writes_change_nothing(p)) {
    /* a write that changes nothing proves nothing: a converter that drops it passes */
    add_skip(g, id, "its writes change nothing eager can see (every value and shape stays as it was, with fractional and infinite data too), so a converter that drops them passes");
    g->s->nunchanged++;
    ir_program_free(p);
    return;
  }
  if (*data_note) g->changed_data++;
  char *full = af_xmalloc(strlen(note) + strlen(data_note) + 1);
  strcpy(full, note);
  strcat(full, data_note);
  add_case(g, id, meta_fields, full, p);
  free(full);
}

/* Default base shape for a recipe's first application: [4, 6], or one with a size-1 dim for the
 * ops that act on one. */
static int base_shape(const char *recipe, int64_t *shape) {
  if (cb_same(recipe, "squeeze")) {
    shape[0] = 4, shape[1] = 1, shape[2] = 6;
    return 3;
  }
  if (cb_same(recipe, "expand") || cb_same(recipe, "expand_as")) {
    shape[0] = 4, shape[1] = 1;
    return 2;
  }
  shape[0] = 4, shape[1] = 6;
  return 2;
}

/* b = clone(x) (intermediate base) or x itself (input base). Returns the base. */
static int make_base_dt(cb *b, int rank, const int64_t *shape, int intermediate, af_dtype dt) {
  int x = cb_input(b, "x", rank, shape, dt);
  if (!intermediate) return x;
  ir_arg a[1] = {A_V(x)};
  return cb_stmt(b, "b", ops_find("clone"), 1, a);
}

static int make_base(cb *b, int rank, const int64_t *shape, int intermediate) {
  return make_base_dt(b, rank, shape, intermediate, AF_FLOAT32);
}

/* A chain of views from a fresh base: recipes[0..n-1]. On success *base and the last view. */
static int make_chain_dt(cb *b, const char *const *recipes, int n, int intermediate, af_dtype dt, int *base, int *last,
                         af_err *why) {
  int64_t shape[AF_MAX_RANK];
  int rank = base_shape(recipes[0], shape);
  int64_t storage = ir_numel(rank, shape);
  *base = make_base_dt(b, rank, shape, intermediate, dt);
  int cur = *base;
  static const char *const names[] = {"v", "w", "z"};
  for (int k = 0; k < n; k++) {
    if (k > 0 && cb_shape(b, cur, &rank, shape, why)) return -1;
    cur = cb_view(b, recipes[k], cur, rank, shape, storage, names[k], why);
    if (cur < 0) return -1;
  }
  *last = cur;
  return 0;
}

static int make_chain(cb *b, const char *const *recipes, int n, int intermediate, int *base, int *last, af_err *why) {
  return make_chain_dt(b, recipes, n, intermediate, AF_FLOAT32, base, last, why);
}

/* The view ops of suite/1, the suite before the op table grew (issue 9). The chain family numbers
 * its cases in recipe order and rotates its writes by that number, so the recipes keep the order
 * they had: these views (in table order), then the variants, then every view added since (in table
 * order). Only ids depend on this list, no op fact does. */
static const char *const suite1_views[] = {"slice", "select", "narrow", "view", "reshape", "flatten", "unflatten", "squeeze",
                                           "unsqueeze", "transpose", "t", "permute", "movedim", "expand", "expand_as", "view_as",
                                           "diagonal", "as_strided", "unfold", "detach", "alias", "getitem", NULL};

static int in_suite1(const char *name) {
  for (int k = 0; suite1_views[k]; k++)
    if (cb_same(suite1_views[k], name)) return 1;
  return 0;
}

static void recipe_order(gen *g) {
  g->nrecipes = 0;
  for (int vi = 0; vi < g->nviews; vi++)
    if (in_suite1(ops_get(g->views[vi])->name)) g->recipes[g->nrecipes++] = ops_get(g->views[vi])->name;
  for (int k = 0; variants[k]; k++) g->recipes[g->nrecipes++] = variants[k];
  g->nrecipes1 = g->nrecipes;
  for (int vi = 0; vi < g->nviews; vi++)
    if (!in_suite1(ops_get(g->views[vi])->name)) g->recipes[g->nrecipes++] = ops_get(g->views[vi])->name;
}

static const char *recipe_name(const gen *g, int k) { return g->recipes[k]; }

static int nrecipes(const gen *g) { return g->nrecipes; }

static void fam_matrix(gen *g) {
  static const char *const modes[] = {"through", "base", "input"};
  for (int vi = 0; vi < g->nviews; vi++)
    for (int wi = 0; wi < g->ncores; wi++)
      for (int m = 0; m < 3; m++) {
        const char *V = ops_get(g->views[vi])->name, *W = ops_get(g->cores[wi])->name;
        char id[128], fields[256], note[256];
        snprintf(id, sizeof id, "mx-%s-%s-%s", V, W, modes[m]);
        snprintf(fields, sizeof fields, ", \"family\": \"matrix-%s\", \"view\": \"%s\", \"write\": \"%s\"", modes[m], V, W);
        cb b = {0};
        af_err why;
        int base, v;
        const char *chain[1] = {V};
        if (make_chain(&b, chain, 1, m != 2, &base, &v, &why)) {
          add_skip(g, id, why.msg);
          cb_clear(&b);
          continue;
        }
        int target = m == 1 ? base : v;
        if (cb_write_into(&b, g->cores[wi], target, &why)) {
          add_skip(g, id, why.msg);
          cb_clear(&b);
          continue;
        }
        b.outs[0] = base, b.outs[1] = v, b.nouts = 2;
        if (m == 0) snprintf(note, sizeof note, "b = x.clone(); v = %s(b); v.%s(...); return b, v: a write through a view", V, W);
        else if (m == 1)
          snprintf(note, sizeof note, "b = x.clone(); v = %s(b); b.%s(...); return b, v: a write into the base after the view was made", V, W);
        else snprintf(note, sizeof note, "v = %s(x); v.%s(...); return x, v: a write into an input through its view", V, W);
        finish(g, &b, id, fields, note);
        cb_clear(&b);
      }
}

/* Writes used by the families that rotate through them: every core write, in table order. */
static int rotate_write(const gen *g, int k) { return g->cores[k % g->ncores]; }

/* Tries the writes of the rotation from position k until one fits target; -1 when none does. */
static int write_rotating(gen *g, cb *b, int k, int target, af_err *why, int *wop) {
  result r0;
  if (cb_eager(b, 1, &target, &r0, why)) return -1;
  result_clear(&r0);
  af_err last = {"no write of the table fits"};
  for (int t = 0; t < g->ncores; t++) {
    int nv = b->nv, ns = b->ns;
    if (cb_write_into(b, rotate_write(g, k + t), target, why) == 0) {
      /* keep it only when eager accepts the case so far */
      result r;
      af_err e2;
      if (cb_eager(b, 1, &target, &r, &e2) == 0) {
        result_clear(&r);
        *wop = rotate_write(g, k + t);
        return 0;
      }
      for (int a = 0; a < b->s[ns].nargs; a++) ir_arg_free(&b->s[ns].args[a]);
      last = e2;
    } else {
      last = *why;
    }
    b->nv = nv, b->ns = ns;
  }
  return af_fail(why, "no write of the table fits (the last one tried: %s)", last.msg);
}

/* The write ops without a recipe here (the table's other writes, arguments from its samplers):
 * instead of the full matrix (which would be ~13,000 cases), each through a few placements that
 * cover the three modes, on a float32 base, or int64 or bool where the op takes no float target
 * (bitwise, logical). Same ids and meta as the matrix (mx-V-W-M). */
static void fam_sampled(gen *g) {
  static const struct {
    const char *view;
    int mode; /* 0 through, 1 base, 2 input */
  } places[] = {{"slice", 0}, {"transpose", 2}, {"select", 0}, {"diagonal", 1}, {NULL, 0},
                /* tried only for an op that none of the above fits (baddbmm_ wants rank 3) */
                {"unsqueeze", 0}, {"alias", 1}, {NULL, 0}};
  static const char *const modes[] = {"through", "base", "input"};
  static const af_dtype dts[] = {AF_FLOAT32, AF_FLOAT64, AF_INT64, AF_BOOL};
  for (int wi = 0; wi < g->nwrites; wi++) {
    int wop = g->writes[wi], core = 0;
    for (int c = 0; c < g->ncores; c++) core |= g->cores[c] == wop;
    if (core) continue;
    int made = 0;
    for (int pl = 0; pl < (int)(sizeof places / sizeof places[0]); pl++) {
      if (!places[pl].view) {
        if (made) break;
        continue;
      }
      const char *V = places[pl].view, *W = ops_get(wop)->name;
      int m = places[pl].mode;
      char id[128], fields[256], note[256];
      snprintf(id, sizeof id, "mx-%s-%s-%s", V, W, modes[m]);
      snprintf(fields, sizeof fields, ", \"family\": \"matrix-%s\", \"view\": \"%s\", \"write\": \"%s\"", modes[m], V, W);
      af_err why = {"?"}, first = {""};
      int done = 0;
      for (int di = 0; di < 4 && !done; di++) {
        cb b = {0};
        int base, v;
        const char *chain[1] = {V};
        result r;
        b.outs[0] = -1;
        if (make_chain_dt(&b, chain, 1, m != 2, dts[di], &base, &v, &why) || cb_write_into(&b, wop, m == 1 ? base : v, &why) ||
            (b.outs[0] = base, b.outs[1] = v, b.nouts = 2, cb_eager(&b, b.nouts, b.outs, &r, &why))) {
          /* the float32 reason is the one SKIPPED.md gives (the others only say the dtype does not fit either) */
          if (!first.msg[0]) first = why;
          cb_clear(&b);
          continue;
        }
        result_clear(&r);
        if (m == 0) snprintf(note, sizeof note, "b = x.clone(); v = %s(b); v.%s(...); return b, v: a write through a view", V, W);
        else if (m == 1)
          snprintf(note, sizeof note, "b = x.clone(); v = %s(b); b.%s(...); return b, v: a write into the base after the view was made", V, W);
        else snprintf(note, sizeof note, "v = %s(x); v.%s(...); return x, v: a write into an input through its view", V, W);
        int before = g->s->ncases;
        finish(g, &b, id, fields, note);
        made += g->s->ncases > before;
        cb_clear(&b);
        done = 1;
      }
      if (!done) add_skip(g, id, first.msg);
    }
  }
}

static void fam_inputbase(gen *g) {
  for (int vi = 0; vi < g->nviews; vi++) {
    const char *V = ops_get(g->views[vi])->name;
    cb b = {0};
    af_err why;
    int base, v, wop;
    const char *chain[1] = {V};
    char id[128], fields[256], note[256];
    if (make_chain(&b, chain, 1, 0, &base, &v, &why) || write_rotating(g, &b, vi * 5, base, &why, &wop)) {
      snprintf(id, sizeof id, "inb-%s", V);
      add_skip(g, id, why.msg);
      cb_clear(&b);
      continue;
    }
    const char *W = ops_get(wop)->name;
    snprintf(id, sizeof id, "inb-%s-%s", V, W);
    snprintf(fields, sizeof fields, ", \"family\": \"input-base\", \"view\": \"%s\", \"write\": \"%s\"", V, W);
    snprintf(note, sizeof note, "v = %s(x); x.%s(...); return x, v: an input written after a view of it was made", V, W);
    b.outs[0] = base, b.outs[1] = v, b.nouts = 2;
    finish(g, &b, id, fields, note);
    cb_clear(&b);
  }
}

static void fam_chains(gen *g) {
  /* depth 2: every recipe, then one of these */
  static const char *const second[] = {"slice", "select", "transpose", "view", "diagonal", "unsqueeze", "getitem", "as_strided", NULL};
  /* depth 3: every recipe, then one of these pairs */
  static const char *const third[][2] = {{"select", "unsqueeze"}, {"transpose", "slice.step"}, {"slice", "diagonal"}, {NULL, NULL}};
  int nr = nrecipes(g), nsecond = 0, nthird = 0;
  while (second[nsecond]) nsecond++;
  while (third[nthird][0]) nthird++;
  /* k numbers the cases as suite/1 did (its ch3 cases counted on from its ch2 cases); the recipes
   * added since number after them */
  for (int r = 0; r < nr; r++)
    for (int j = 0; second[j]; j++) {
      int k = r * nsecond + j;
      const char *chain[2] = {recipe_name(g, r), second[j]};
      int inter = k % 2 == 0;
      cb b = {0};
      af_err why;
      int base, v, wop;
      char id[160], fields[320], note[320];
      if (make_chain(&b, chain, 2, inter, &base, &v, &why) || write_rotating(g, &b, k * 3, v, &why, &wop)) {
        snprintf(id, sizeof id, "ch2-%s-%s-%s", chain[0], chain[1], inter ? "through" : "input");
        add_skip(g, id, why.msg);
        cb_clear(&b);
        continue;
      }
      const char *W = ops_get(wop)->name;
      snprintf(id, sizeof id, "ch2-%s-%s-%s-%s", chain[0], chain[1], W, inter ? "through" : "input");
      snprintf(fields, sizeof fields, ", \"family\": \"chain-2\", \"view\": \"%s\", \"views\": [\"%s\", \"%s\"], \"write\": \"%s\"",
               chain[0], chain[0], chain[1], W);
      snprintf(note, sizeof note, "v = %s(%s); w = %s(v); w.%s(...); return %s, w: a write through a view of a view", chain[0],
               inter ? "x.clone()" : "x", chain[1], W, inter ? "the base" : "x");
      b.outs[0] = base, b.outs[1] = v, b.nouts = 2;
      finish(g, &b, id, fields, note);
      cb_clear(&b);
    }
  for (int r = 0; r < nr; r++)
    for (int j = 0; third[j][0]; j++) {
      int k = g->nrecipes1 * nsecond + r * nthird + j;
      const char *chain[3] = {recipe_name(g, r), third[j][0], third[j][1]};
      int inter = k % 2 == 0;
      cb b = {0};
      af_err why;
      int base, v, wop;
      char id[200], fields[360], note[360];
      if (make_chain(&b, chain, 3, inter, &base, &v, &why) || write_rotating(g, &b, k * 3, v, &why, &wop)) {
        snprintf(id, sizeof id, "ch3-%s-%s-%s-%s", chain[0], chain[1], chain[2], inter ? "through" : "input");
        add_skip(g, id, why.msg);
        cb_clear(&b);
        continue;
      }
      const char *W = ops_get(wop)->name;
      snprintf(id, sizeof id, "ch3-%s-%s-%s-%s-%s", chain[0], chain[1], chain[2], W, inter ? "through" : "input");
      snprintf(fields, sizeof fields,
               ", \"family\": \"chain-3\", \"view\": \"%s\", \"views\": [\"%s\", \"%s\", \"%s\"], \"write\": \"%s\"", chain[0],
               chain[0], chain[1], chain[2], W);
      snprintf(note, sizeof note, "v = %s(%s); w = %s(v); z = %s(w); z.%s(...); return %s, z: a write through a chain of three views",
               chain[0], inter ? "x.clone()" : "x", chain[1], chain[2], W, inter ? "the base" : "x");
      b.outs[0] = base, b.outs[1] = v, b.nouts = 2;
      finish(g, &b, id, fields, note);
      cb_clear(&b);
    }
}

static void fam_siblings(gen *g) {
  static const char *const other[] = {"slice", "transpose", "diagonal", "select", NULL};
  int k = 0;
  for (int vi = 0; vi < g->nviews; vi++)
    for (int j = 0; other[j]; j++, k++) {
      const char *V = ops_get(g->views[vi])->name;
      cb b = {0};
      af_err why;
      int base, v, w, wop, rank;
      int64_t shape[AF_MAX_RANK];
      char id[160], fields[320], note[320];
      const char *chain[1] = {V};
      if (make_chain(&b, chain, 1, 1, &base, &v, &why) || cb_shape(&b, base, &rank, shape, &why) ||
          (w = cb_view(&b, other[j], base, rank, shape, ir_numel(rank, shape), "w", &why)) < 0 ||
          write_rotating(g, &b, k * 7, v, &why, &wop)) {
        snprintf(id, sizeof id, "sib-%s-%s", V, other[j]);
        add_skip(g, id, why.msg);
        cb_clear(&b);
        continue;
      }
      const char *W = ops_get(wop)->name;
      snprintf(id, sizeof id, "sib-%s-%s-%s", V, other[j], W);
      snprintf(fields, sizeof fields, ", \"family\": \"siblings\", \"view\": \"%s\", \"views\": [\"%s\", \"%s\"], \"write\": \"%s\"", V,
               V, other[j], W);
      snprintf(note, sizeof note, "b = x.clone(); v = %s(b); w = %s(b); v.%s(...); return b, v, w: two live views of one base", V,
               other[j], W);
      b.outs[0] = base, b.outs[1] = v, b.outs[2] = w, b.nouts = 3;
      finish(g, &b, id, fields, note);
      cb_clear(&b);
    }
}

static void fam_meta(gen *g) {
  static const char *const places[] = {"input", "base", "view", "input-view", "base-then-view", NULL};
  for (int mi = 0; mi < g->nmetas; mi++)
    for (int pl = 0; places[pl]; pl++) {
      const char *M = ops_get(g->metas[mi])->name, *P = places[pl];
      cb b = {0};
      af_err why;
      int64_t shape[AF_MAX_RANK] = {4, 6};
      int rank = 2;
      char id[128], fields[256], note[320];
      snprintf(id, sizeof id, "meta-%s-%s", M, P);
      int inter = cb_same(P, "base") || cb_same(P, "view") || cb_same(P, "base-then-view");
      int base = make_base(&b, rank, shape, inter), target = base;
      if (cb_same(P, "view") || cb_same(P, "input-view")) target = cb_view(&b, "slice", base, rank, shape, 24, "v", &why);
      if (cb_write_into(&b, g->metas[mi], target, &why) || cb_shape(&b, target, &rank, shape, &why)) {
        add_skip(g, id, why.msg);
        cb_clear(&b);
        continue;
      }
      if (cb_same(P, "base-then-view")) {
        /* a view of the reshaped tensor, written through: the write lands where the new shape says */
        int s = cb_view(&b, rank >= 1 && shape[rank - 1] >= 2 ? "getitem.int" : "alias", target, rank, shape, 24, "s", &why);
        ir_arg a[2] = {A_V(s), A_I(1)};
        cb_stmt(&b, NULL, ops_find("fill_"), 2, a);
        b.outs[0] = base, b.outs[1] = s, b.nouts = 2;
        snprintf(note, sizeof note, "b = x.clone(); b.%s(...); s = b[..., 1]; s.fill_(1); return b, s: views made after a shape change", M);
      } else {
        ir_arg a[2] = {A_V(target), A_I(2)};
        int r = cb_stmt(&b, "r", ops_find("mul"), 2, a);
        b.outs[0] = r, b.outs[1] = base, b.nouts = 2;
        snprintf(note, sizeof note, "%s.%s(...); r = %s * 2; return r, %s: later uses of the name see the new shape",
                 target == base ? (inter ? "b" : "x") : "v", M, target == base ? (inter ? "b" : "x") : "v", inter ? "b" : "x");
      }
      snprintf(fields, sizeof fields, ", \"family\": \"shape-changing\", \"write\": \"%s\", \"place\": \"%s\"", M, P);
      finish(g, &b, id, fields, note);
      cb_clear(&b);
    }
}

static void fam_maybe_view(gen *g) {
  /* sources: s = b (contiguous), b[1:3] (contiguous), b.t(), b[:, :-1] (neither) */
  static const char *const sources[] = {"whole", "rows", "t", "cols", NULL};
  static const char *const writes[] = {"fill_", "add_", "setitem", NULL};
  for (int ri = 0; ri < g->nmaybes; ri++)
    for (int si = 0; sources[si]; si++)
      for (int wi = 0; writes[wi]; wi++)
        for (int inter = 1; inter >= 0; inter--) {
          const char *R = ops_get(g->maybes[ri])->name, *S = sources[si], *Wn = writes[wi];
          int wop = ops_find(Wn);
          cb b = {0};
          af_err why;
          int64_t shape[AF_MAX_RANK] = {4, 6};
          int rank = 2;
          char id[128], fields[256], note[320];
          snprintf(id, sizeof id, "mv-%s-%s-%s-%s", R, S, Wn, inter ? "through" : "input");
          int base = make_base(&b, rank, shape, inter), src = base;
          if (cb_same(S, "rows")) src = cb_view(&b, "slice", base, rank, shape, 24, "s", &why);
          if (cb_same(S, "t")) src = cb_view(&b, "t", base, rank, shape, 24, "s", &why);
          if (cb_same(S, "cols")) {
            ir_arg a[5] = {A_V(base), A_I(1), A_I(0), A_I(5), A_I(1)};
            src = cb_stmt(&b, "s", ops_find("slice"), 5, a);
          }
          int r = -1;
          if (wop < 0 || cb_shape(&b, src, &rank, shape, &why) ||
              (r = cb_view(&b, R, src, rank, shape, 24, "r", &why)) < 0) {
            add_skip(g, id, why.msg);
            cb_clear(&b);
            continue;
          }
          int shares = cb_shares(&b, base, r, &why);
          if (shares < 0 || cb_write_into(&b, wop, r, &why)) {
            add_skip(g, id, why.msg);
            cb_clear(&b);
            continue;
          }
          b.outs[0] = base, b.outs[1] = r, b.nouts = 2;
          snprintf(fields, sizeof fields, ", \"family\": \"maybe-view\", \"view\": \"%s\", \"write\": \"%s\", \"aliases\": %s", R, Wn,
                   shares ? "true" : "false");
          snprintf(note, sizeof note, "r = %s(%s); r.%s(...): here %s is a %s, so the write %s the base", R,
                   cb_same(S, "whole") ? "b" : cb_same(S, "rows") ? "b[1:3]" : cb_same(S, "t") ? "b.t()" : "b[:, :-1]", Wn, R,
                   shares ? "view" : "copy", shares ? "reaches" : "does not reach");
          finish(g, &b, id, fields, note);
          cb_clear(&b);
        }
}

/* ---- aliased inputs (issue 16): inputs that share memory, strided, offset and expanded inputs.
 * Each layout is written with a few in-place ops; eager is asked as for every case. */

typedef struct alay {
  const char *name, *note;
  int hidden;         /* size of a hidden base "buf" (0: none) */
  int ninputs;        /* 1..3 inputs of float32 */
  const char *names[3];
  int rank[3];
  int64_t shape[3][2], strides[3][2], offset[3];
  int view_of[3];     /* -2: plain; -1: own storage (size storage[k]); 9: the hidden base; else an earlier input */
  int64_t storage[3];
  int first, second;  /* inputs written (second -1: one write) */
  int read;           /* the input read into the output y = read * 2 */
} alay;

static const alay alayouts[] = {
    {"base-and-slice", "b is a[1:3], passed as its own input; both are written", 0, 2, {"a", "b"}, {2, 2},
     {{4, 6}, {2, 6}}, {{6, 1}, {6, 1}}, {0, 6}, {-2, 0}, {0}, 0, 1, 0},
    {"slice-written-base-read", "b is a[1:3]; only b is written, a is read and returned", 0, 2, {"a", "b"}, {2, 2},
     {{4, 6}, {2, 6}}, {{6, 1}, {6, 1}}, {0, 6}, {-2, 0}, {0}, 1, -1, 0},
    {"overlapping-windows", "w1 and w2 are 3x4 windows of one buffer the caller owns, two rows apart (overlapping)", 24, 2,
     {"w1", "w2"}, {2, 2}, {{3, 4}, {3, 4}}, {{4, 1}, {4, 1}}, {0, 8}, {9, 9}, {0}, 0, 1, 1},
    {"disjoint-windows", "w1 and w2 are disjoint halves of one buffer the caller owns", 24, 2, {"w1", "w2"}, {2, 2},
     {{3, 4}, {3, 4}}, {{4, 1}, {4, 1}}, {0, 12}, {9, 9}, {0}, 0, -1, 1},
    {"transposed", "w is a transposed weight (strides [1, 6]) written through", 0, 1, {"w"}, {2}, {{6, 4}}, {{1, 6}}, {0},
     {-1}, {24}, 0, -1, 0},
    {"offset", "x starts 5 elements into a storage of 30", 0, 1, {"x"}, {2}, {{4, 5}}, {{5, 1}}, {5}, {-1}, {30}, 0, -1, 0},
    {"stepped-view", "b is a[:, ::2] (stride 2), passed as its own input; b is written, a read", 0, 2, {"a", "b"}, {2, 2},
     {{4, 6}, {4, 3}}, {{6, 1}, {6, 2}}, {0, 0}, {-2, 0}, {0}, 1, -1, 0},
    {"transposed-view", "b is a.t(), passed as its own input; b is written, a read", 0, 2, {"a", "b"}, {2, 2},
     {{4, 6}, {6, 4}}, {{6, 1}, {1, 6}}, {0, 0}, {-2, 0}, {0}, 1, -1, 0},
    {"expanded-read", "e is buf expanded to 4x6 (stride 0), row is buf itself: a write through row shows in every row of e", 6, 2,
     {"e", "row"}, {2, 1}, {{4, 6}, {6}}, {{0, 1}, {1}}, {0, 0}, {9, 9}, {0}, 1, -1, 0},
};

static const char *const alay_writes[] = {"add_", "mul_", "fill_", "zero_", "neg_", "abs_", "relu_", "clamp_", NULL};

static int alay_write(ir_program *p, int op, int v) {
  const ops_entry *e = ops_get(op);
  ir_arg a[3] = {{.kind = IR_ARG_VALUE, .value = v}, {.kind = IR_ARG_INT, .i = op == ops_find("mul_") ? -2 : 3, .value = -1},
                 {.kind = IR_ARG_INT, .i = 2, .value = -1}};
  if (op == ops_find("clamp_")) a[1].i = -1;
  return ir_add_stmt(p, op, -1, e->nargs, a);
}

static void fam_aliased(gen *g) {
  for (size_t li = 0; li < sizeof alayouts / sizeof alayouts[0]; li++)
    for (int wi = 0; alay_writes[wi]; wi++) {
      const alay *L = &alayouts[li];
      const char *W = alay_writes[wi];
      int wop = ops_find(W);
      char id[128], fields[256], note[384];
      snprintf(id, sizeof id, "ali-%s-%s", L->name, W);
      if (wop < 0) continue;
      ir_program *p = ir_program_new();
      int hb = L->hidden ? ir_add_base(p, "buf", -1, L->hidden, AF_FLOAT32) : -1;
      for (int k = 0; k < L->ninputs; k++) {
        ir_add_input(p, L->names[k], L->rank[k], L->shape[k], AF_FLOAT32);
        int vo = L->view_of[k];
        if (vo == -2) continue;
        int b = vo == 9 ? hb : vo == -1 ? ir_add_base(p, L->names[k], k, L->storage[k], AF_FLOAT32) : -1;
        if (vo >= 0 && vo != 9) { /* a view of an earlier input: that input's storage */
          if (!p->inputs[vo].base) {
            int64_t st[AF_MAX_RANK];
            ir_contiguous_strides(p->inputs[vo].rank, p->inputs[vo].shape, st);
            ir_set_layout(p, vo, ir_add_base(p, L->names[vo], vo, ir_numel(p->inputs[vo].rank, p->inputs[vo].shape), AF_FLOAT32), st, 0);
          }
          b = p->inputs[vo].base - 1;
        }
        ir_set_layout(p, k, b, L->strides[k], L->offset[k]);
      }
      alay_write(p, wop, L->first);
      if (L->second >= 0) alay_write(p, wop, L->second);
      int r = ir_add_value(p, "y");
      ir_arg a[2] = {{.kind = IR_ARG_VALUE, .value = L->read}, {.kind = IR_ARG_INT, .i = 2, .value = -1}};
      ir_add_stmt(p, ops_find("mul"), r, 2, a);
      p->noutputs = 2;
      p->outputs = af_xcalloc(2, sizeof(int));
      p->outputs[0] = r, p->outputs[1] = L->first;
      af_err why;
      result res;
      result_init(&res);
      if (ir_validate(p, &why) || eager_run(p, &res, &why) || res.status != RESULT_OK) {
        add_skip(g, id, res.message ? res.message : why.msg);
        result_clear(&res);
        ir_program_free(p);
        continue;
      }
      result_clear(&res);
      snprintf(fields, sizeof fields, ", \"family\": \"aliased-input\", \"layout\": \"%s\", \"write\": \"%s\"", L->name, W);
      snprintf(note, sizeof note, "%s; %s.%s(...)%s%s; return %s * 2, %s", L->note, L->names[L->first], W,
               L->second >= 0 ? ", then " : "", L->second >= 0 ? L->names[L->second] : "", L->names[L->read], L->names[L->first]);
      add_case(g, id, fields, note, p);
    }
}

/* The foreach ops (torch._foreach_add_([p0, p1], ...), issue 15): each op with its list in three
 * placements: two views of one flat input buffer (an optimizer's parameters: flat[0:4].view([2, 2])
 * and flat[4:10]), two views of a clone (a row and a strided block: the writes reach the clone,
 * which is returned), and an input with a view of another input. List operands are inputs of
 * each element's shape; the number is 2 (div_: halves stay exact). */
static void fam_foreach(gen *g) {
  static const char *const places[] = {"flat", "through", "mixed"};
  for (int op = 0; op < OPS_COUNT; op++) {
    const ops_entry *e = ops_get(op);
    if (e->kind != OPS_FOREACH) continue;
    for (int pl = 0; pl < 3; pl++) {
      cb b = {0};
      int el[2], base, outv;
      const char *what;
      if (pl == 0) {
        int64_t s10[1] = {10}, s22[2] = {2, 2};
        int x = cb_input(&b, "flat", 1, s10, AF_FLOAT32);
        ir_arg a0[5] = {A_V(x), A_I(0), A_I(0), A_I(4), A_I(1)};
        int h = cb_stmt(&b, "h0", OPS_slice, 5, a0);
        ir_arg a1[2] = {A_V(h), A_INTS(2, s22)};
        el[0] = cb_stmt(&b, "p0", OPS_view, 2, a1);
        ir_arg a2[5] = {A_V(x), A_I(0), A_I(4), A_I(10), A_I(1)};
        el[1] = cb_stmt(&b, "p1", OPS_slice, 5, a2);
        base = x, outv = el[0];
        what = "p0 = flat[0:4].view([2, 2]); p1 = flat[4:10]";
      } else if (pl == 1) {
        int64_t s34[2] = {3, 4};
        int x = cb_input(&b, "x", 2, s34, AF_FLOAT32);
        ir_arg c[1] = {A_V(x)};
        base = cb_stmt(&b, "b", OPS_clone, 1, c);
        ir_arg a0[3] = {A_V(base), A_I(0), A_I(0)};
        el[0] = cb_stmt(&b, "v0", OPS_select, 3, a0);
        ir_arg a1[5] = {A_V(base), A_I(0), A_I(1), A_I(3), A_I(1)};
        int r = cb_stmt(&b, "r", OPS_slice, 5, a1);
        ir_arg a2[5] = {A_V(r), A_I(1), A_I(0), A_I(4), A_I(2)};
        el[1] = cb_stmt(&b, "v1", OPS_slice, 5, a2);
        outv = el[1];
        what = "b = x.clone(); v0 = b[0]; v1 = b[1:3][:, 0:4:2]";
      } else {
        int64_t s34[2] = {3, 4}, s4[1] = {4};
        int x = cb_input(&b, "x", 2, s34, AF_FLOAT32);
        int y = cb_input(&b, "y", 1, s4, AF_FLOAT32);
        ir_arg a0[3] = {A_V(x), A_I(0), A_I(1)};
        el[0] = y;
        el[1] = cb_stmt(&b, "v", OPS_select, 3, a0);
        base = x, outv = y;
        what = "v = x[1]; the list is [y, v]";
      }
      ir_arg args[OPS_MAX_ARGS];
      args[0] = A_VALUES(2, el);
      for (int k = 1; k < e->nargs; k++) {
        if (e->argk[k][0] == 'L') {
          int ov[2];
          for (int j = 0; j < 2; j++) {
            int rank;
            int64_t shape[AF_MAX_RANK];
            af_err why;
            if (cb_shape(&b, el[j], &rank, shape, &why)) rank = 0;
            char name[8];
            snprintf(name, sizeof name, "g%d", (k - 1) * 2 + j);
            ov[j] = cb_input(&b, name, rank, shape, AF_FLOAT32);
          }
          args[k] = A_VALUES(2, ov);
        } else {
          args[k] = A_I(2);
        }
      }
      cb_stmt(&b, NULL, op, e->nargs, args);
      b.outs[0] = base, b.outs[1] = outv, b.nouts = 2;
      char id[128], fields[256], note[512];
      snprintf(id, sizeof id, "fe-%s-%s", e->name, places[pl]);
      snprintf(fields, sizeof fields, ", \"family\": \"foreach\", \"layout\": \"%s\", \"write\": \"%s\"", places[pl], e->name);
      snprintf(note, sizeof note, "%s; torch.%s(...) on the list writes each element in place, each element's write reaching its storage: %s",
               what, e->aten + 6, pl == 0 ? "the input flat, through both views" : pl == 1 ? "the clone b, returned" : "the inputs x and y");
      finish(g, &b, id, fields, note);
      cb_clear(&b);
    }
  }
}

/* Training patterns (issue 33, docs/training.md): programs whose inputs require grad, valid by
 * autograd's rules, with fixed loss weights, so a converter that trains is judged on every
 * gradient too (one that cannot is judged on the inference form). Family "training", a "mode":
 *   tr-V-W-through  x requires grad; b = x * 2; v = V(b); W(v); return b, v    (a view of a
 *                   differentiable op's result written: the write's gradient reaches x through b)
 *   tr-V-W-base     the same with W(b): the view v sees the write of its base
 *   tr-V-W-input    x does not require grad; v = V(x); W(v) with a value o that does; return x, v
 *                   (an input mutated through a view with data that requires grad: x is no longer
 *                   a leaf's plain value after the call, and o's gradient comes through x and v)
 *   tr-V-out        x requires grad; b = x * 2; v = V(b); return v, b   (an output aliasing an
 *                   intermediate that requires grad, returned beside its base)
 *   tr-V-param      w is an nn.Parameter; v = V(w); return v * v   (a parameter read through a view)
 * W: add_ and copy_ of an input o that requires grad (o's shape is the target's), mul_ by 3. The
 * loss weights differ per output (2 and 3), so a gradient routed to the wrong output shows. */
static const char *const tr_views[] = {"slice", "select", "transpose", "diagonal", "unfold", "as_strided", "detach", NULL};
static const char *const tr_writes[] = {"add_", "mul_", "copy_", NULL};

/* W(t) as above. 0, or -1 with why. */
static int tr_write(cb *b, const char *W, int t, af_err *why) {
  int rank;
  int64_t shape[AF_MAX_RANK];
  if (cb_shape(b, t, &rank, shape, why)) return -1;
  ir_arg a[2] = {A_V(t), A_I(3)};
  if (strcmp(W, "mul_")) {
    int o = cb_input(b, "o", rank, shape, AF_FLOAT32);
    b->v[o].grad = 1;
    a[1] = A_V(o);
  }
  cb_stmt(b, NULL, ops_find(W), 2, a);
  return 0;
}

static void fam_train(gen *g) {
  static const char *const modes[] = {"through", "base", "input", "out", "param"};
  int64_t shape[2] = {4, 6};
  for (int vi = 0; tr_views[vi]; vi++)
    for (int m = 0; m < 5; m++)
      for (int wi = 0; m < 3 ? tr_writes[wi] != NULL : wi < 1; wi++) {
        const char *V = tr_views[vi], *W = m < 3 ? tr_writes[wi] : NULL, *mode = modes[m];
        char id[128], fields[256], note[512];
        if (W) snprintf(id, sizeof id, "tr-%s-%s-%s", V, W, mode);
        else snprintf(id, sizeof id, "tr-%s-%s", V, mode);
        if ((m == 2 && !strcmp(W, "mul_")) || (m == 4 && !strcmp(V, "detach")))
          continue; /* no gradient reaches an input: nothing to train */
        cb b = {.train = 1, .loss = {2, 3}};
        af_err why;
        int x = cb_input(&b, m == 4 ? "w" : "x", 2, shape, AF_FLOAT32);
        b.v[x].grad = m != 2 && m != 4;
        b.v[x].param = m == 4;
        int base = x;
        if (m != 2 && m != 4) {
          ir_arg a[2] = {A_V(x), A_I(2)};
          base = cb_stmt(&b, "b", OPS_mul, 2, a);
        }
        int v = cb_view(&b, V, base, 2, shape, 24, "v", &why);
        if (v < 0 || (W && tr_write(&b, W, m == 1 ? base : v, &why))) {
          add_skip(g, id, why.msg);
          cb_clear(&b);
          continue;
        }
        if (m == 4) {
          ir_arg a[2] = {A_V(v), A_V(v)};
          b.outs[0] = cb_stmt(&b, "r", OPS_mul, 2, a), b.nouts = 1, b.loss[0] = 3;
        } else if (m == 3) {
          b.outs[0] = v, b.outs[1] = base, b.nouts = 2, b.loss[0] = 3, b.loss[1] = 2;
        } else {
          b.outs[0] = base, b.outs[1] = v, b.nouts = 2;
        }
        const char *wv = m == 1 ? "b" : "v";
        char wtext[64] = "";
        if (W) snprintf(wtext, sizeof wtext, " %s.%s(%s);", wv, W, strcmp(W, "mul_") ? "o" : "3");
        static const char *const what[] = {
            "a view of a differentiable op's result written: the write's gradient reaches x through b",
            "the view sees its base's write; both outputs' gradients reach x",
            "an input that does not require grad mutated through a view with data that does: o's gradient comes through x and v",
            "an output aliasing an intermediate that requires grad, returned beside its base",
            "a parameter read through a view"};
        if (m == 4)
          snprintf(note, sizeof note, "training: w is an nn.Parameter; v = %s(w); return v * v; loss = 3 * (v * v).sum() (%s)", V, what[m]);
        else
          snprintf(note, sizeof note, "training: x %s%s; %sv = %s(%s);%s return %s; loss = %s (%s)",
                   m == 2 ? "does not require grad" : "requires grad", W && strcmp(W, "mul_") ? ", o requires grad" : "",
                   m == 2 ? "" : "b = x * 2; ", V, m == 2 ? "x" : "b", wtext, m == 3 ? "v, b" : m == 2 ? "x, v" : "b, v",
                   m == 3 ? "3 * v.sum() + 2 * b.sum()" : m == 2 ? "2 * x.sum() + 3 * v.sum()" : "2 * b.sum() + 3 * v.sum()",
                   what[m]);
        if (!strcmp(V, "detach") && m != 3)
          snprintf(note + strlen(note), sizeof note - strlen(note), "; v is a detach(): autograd does not see it");
        snprintf(fields, sizeof fields, ", \"family\": \"training\", \"mode\": \"%s\", \"view\": \"%s\"%s%s%s", mode, V,
                 W ? ", \"write\": \"" : "", W ? W : "", W ? "\"" : "");
        finish(g, &b, id, fields, note);
        cb_clear(&b);
      }
}

int suite_generate(suite **out, af_err *err) {
  gen g = {af_xcalloc(1, sizeof(suite))};
  for (int op = 0; op < OPS_COUNT; op++) {
    const ops_entry *e = ops_get(op);
    if ((e->kind == OPS_VIEW || e->kind == OPS_GETITEM) && !(e->flags & OPF_NO_SUITE)) g.views[g.nviews++] = op; /* ops.def says why */
    if (e->flags & OPF_NO_SUITE) continue; /* ops.def says why (.data, set_) */
    if (e->kind == OPS_INPLACE || e->kind == OPS_SETITEM || e->kind == OPS_OUT) g.writes[g.nwrites++] = op;
    if (e->kind == OPS_INPLACE && (e->flags & OPF_META)) g.metas[g.nmetas++] = op;
    if (e->flags & OPF_MAYBE_VIEW) g.maybes[g.nmaybes++] = op;
  }
  /* every view op of the table needs a recipe, every write op a recipe (a core write) or a
   * sampler of the table: try each on a plain [4, 6] tensor */
  for (int k = 0; k < g.nviews + g.nwrites; k++) {
    cb b = {0};
    int64_t shape[2] = {4, 6};
    int x = cb_input(&b, "x", 2, shape, AF_FLOAT32);
    af_err why;
    int w = k < g.nviews ? -1 : g.writes[k - g.nviews];
    int rc = w < 0 ? cb_view(&b, ops_get(g.views[k])->name, x, 2, shape, 24, "v", &why)
                   : cb_write(&b, w, x, 2, shape, NULL, 0, &why);
    cb_clear(&b);
    if (rc < 0 && strstr(why.msg, "no recipe") && (w < 0 || !ops_shape_can_sample(w))) {
      suite_free(g.s);
      return af_fail(err, "suite: %s (add one to fuzz/suite_cb.c)", why.msg);
    }
    if (w >= 0 && !(rc < 0 && strstr(why.msg, "no recipe"))) g.cores[g.ncores++] = w;
  }
  recipe_order(&g);
  fam_matrix(&g);
  fam_sampled(&g);
  fam_inputbase(&g);
  fam_chains(&g);
  fam_siblings(&g);
  fam_meta(&g);
  fam_maybe_view(&g);
  fam_aliased(&g);
  fam_foreach(&g);
  fam_train(&g);
  g.s->ndata = g.changed_data;
  *out = g.s;
  return 0;
}
