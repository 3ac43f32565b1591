/* gen_layout.c - the generator's input layouts (issue 16): a policy share of programs whose
 * inputs are offset, transposed, stepped or expanded in memory of their own, or share memory
 * (a second input that views another, two overlapping windows of a hidden base) with a write
 * through the new input at a top-level point of the body.
 *
 * The pass runs on a generated program before its inputs are renumbered (gen.c), from a stream
 * of its own (so the programs without layouts stay byte for byte what they were). The generator's
 * model does not know the layouts, so whether eager accepts the result is asked of eager itself:
 * gen.c keeps the program without layouts when eager rejects it (an in-place write into an
 * expanded input, view() of a transposed one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/ops/ops.h"
#include "gen.h"
#include "gen_rng.h"

static int64_t range(uint64_t *s, int64_t lo, int64_t hi) { return hi <= lo ? lo : lo + (int64_t)(gen_rng_next(s) % (uint64_t)(hi - lo + 1)); }

/* A free name "base_N". */
static void fresh_name(const ir_program *p, const char *base, char *out, size_t n) {
  for (int k = 0;; k++) {
    snprintf(out, n, k ? "%s_%d" : "%s", base, k);
    int taken = ir_find_value(p, out) >= 0;
    for (int b = 0; b < p->nbases; b++) taken |= !strcmp(p->bases[b].name, out);
    if (!taken) return;
  }
}

/* Inserts st (args copied) before statement `at`, a top-level point. */
static void insert_stmt(ir_program *p, int at, int op, int out, int nargs, const ir_arg *args) {
  ir_add_stmt(p, op, out, nargs, args);
  ir_stmt st = p->stmts[p->nstmts - 1];
  memmove(&p->stmts[at + 1], &p->stmts[at], sizeof(ir_stmt) * (size_t)(p->nstmts - 1 - at));
  p->stmts[at] = st;
}

/* A top-level point of the body (block depth 0), chosen at random. */
static int top_point(const ir_program *p, uint64_t *s) {
  int n = 0, depth = 0, *pts = af_xcalloc((size_t)p->nstmts + 2, sizeof(int));
  for (int k = 0; k <= p->nstmts; k++) {
    if (depth == 0) pts[n++] = k;
    if (k == p->nstmts) break;
    int op = p->stmts[k].op;
    if (op == OPS_if || op == OPS_for) depth++;
    if (op == OPS_end) depth--;
  }
  int at = pts[range(s, 0, n - 1)];
  free(pts);
  return at;
}

/* A write through value v that eager accepts for every dtype: add_(3) / fill_(1) for bool. */
static void write_through(ir_program *p, int v, af_dtype dt, int at) {
  ir_arg a[2] = {{.kind = IR_ARG_VALUE, .value = v}, {.kind = IR_ARG_INT, .i = dt == AF_BOOL ? 1 : 3, .value = -1}};
  insert_stmt(p, at, ops_find(dt == AF_BOOL ? "fill_" : "add_"), -1, 2, a);
}

int gen_layouts_allowed(const ir_program *p) {
  for (int k = 0; k < p->nstmts; k++)
    if (ops_get(p->stmts[k].op)->flags & (OPF_META | OPF_CONTIG_OUT | OPF_STORAGE_BYTES))
      return 0; /* ref would decline, or an out= kernel needs contiguous strides the layout may break, or a dtype view
                   needs a storage of whole elements the base's size may break: keep such programs plain */
  return 1;
}

int gen_layouts(ir_program *p, uint64_t seed) {
  uint64_t s = seed;
  int cand[64], nc = 0;
  if (!gen_layouts_allowed(p)) return 0;
  for (int i = 0; i < p->ninputs && nc < 64; i++)
    if (!p->inputs[i].buffer && !p->inputs[i].base && ir_numel(p->inputs[i].rank, p->inputs[i].shape) > 0) cand[nc++] = i;
  if (!nc) return 0;
  int i = cand[range(&s, 0, nc - 1)], kind = (int)range(&s, 0, 5);
  ir_input *in = &p->inputs[i];
  int rank = in->rank;
  int64_t shape[AF_MAX_RANK], st[AF_MAX_RANK], n = ir_numel(rank, in->shape);
  af_dtype dt = in->dtype;
  memcpy(shape, in->shape, sizeof shape);
  ir_contiguous_strides(rank, shape, st);
  char name[96];
  if (in->ndata) return 0; /* explicit values (index tensors): keep them as they are */
  int64_t c[AF_MAX_RANK];
  ir_contiguous_strides(rank, shape, c);
  switch (kind) {
    case 0: { /* offset into a larger storage */
      int64_t off = range(&s, 1, 5);
      ir_set_layout(p, i, ir_add_base(p, p->names[in->value], i, n + off + range(&s, 0, 3), dt), st, off);
      return 1;
    }
    case 1: /* transposed: the dims laid out in reverse order */
    case 2: { /* stepped: every other element of the last dim */
      if (rank < (kind == 1 ? 2 : 1)) return 0;
      if (kind == 1) {
        int64_t k = 1;
        for (int d = 0; d < rank; d++) st[d] = k, k *= shape[d] > 1 ? shape[d] : 1;
      } else {
        int64_t wide[AF_MAX_RANK];
        memcpy(wide, shape, sizeof wide);
        wide[rank - 1] *= 2;
        ir_contiguous_strides(rank, wide, st);
        st[rank - 1] = 2;
      }
      for (int d = 0; d < rank; d++)
        if (shape[d] == 1) st[d] = c[d]; /* odd strides on size-1 dims: not what this kind is for */
      if (!memcmp(st, c, sizeof(int64_t) * (size_t)rank)) return 0; /* the same layout as a plain input */
      ir_set_layout(p, i, ir_add_base(p, p->names[in->value], i, ir_layout_extent(rank, shape, st, 0), dt), st, 0);
      return 1;
    }
    case 3: { /* expanded along one dim (stride 0): eager rejects a write into it, gen.c checks */
      int ds[AF_MAX_RANK], nd = 0;
      for (int d = 0; d < rank; d++)
        if (shape[d] > 1) ds[nd++] = d;
      if (!nd) return 0;
      int d = ds[range(&s, 0, nd - 1)];
      int64_t one[AF_MAX_RANK];
      memcpy(one, shape, sizeof one);
      one[d] = 1;
      ir_contiguous_strides(rank, one, st);
      st[d] = 0;
      ir_set_layout(p, i, ir_add_base(p, p->names[in->value], i, ir_layout_extent(rank, shape, st, 0), dt), st, 0);
      return 1;
    }
    case 4: { /* a second input that views this one (rows from r0, or the transpose), written through */
      int64_t vs[AF_MAX_RANK], vst[AF_MAX_RANK], off = 0;
      memcpy(vs, shape, sizeof vs);
      memcpy(vst, st, sizeof vst);
      if (rank >= 2 && range(&s, 0, 1)) {
        int64_t t = vs[0];
        vs[0] = vs[1], vs[1] = t, t = vst[0], vst[0] = vst[1], vst[1] = t;
      } else if (rank >= 1) {
        int64_t r0 = range(&s, 0, shape[0] - 1);
        off = r0 * st[0], vs[0] = range(&s, 1, shape[0] - r0);
      }
      ir_set_layout(p, i, ir_add_base(p, p->names[in->value], i, n, dt), st, 0);
      fresh_name(p, "alias", name, sizeof name);
      int b = ir_add_input(p, name, rank, vs, dt);
      ir_set_layout(p, p->ninputs - 1, p->inputs[i].base - 1, vst, off);
      write_through(p, b, dt, top_point(p, &s));
      return 1;
    }
    default: { /* two windows of a hidden base: this input and a new one `shift` elements later */
      int64_t shift = range(&s, 1, n);
      fresh_name(p, "buf", name, sizeof name);
      int hb = ir_add_base(p, name, -1, n + shift, dt);
      ir_set_layout(p, i, hb, st, 0);
      fresh_name(p, "window", name, sizeof name);
      int w = ir_add_input(p, name, rank, shape, dt);
      ir_set_layout(p, p->ninputs - 1, hb, st, shift);
      write_through(p, w, dt, top_point(p, &s));
      return 1;
    }
  }
}
