/* conv_ref_chain.c - see conv_ref_chain.h: the reference functionalizer's output program,
 * storages and view chains, reading and writing back (the algorithm: conv_ref.c's header). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emit.h"
#include "conv_ref_chain.h"

/* ---------------------------------------------------------------- small helpers */

int rf_decline(rf *c, af_err *err, const char *fmt, const char *what) {
  c->declined = 1;
  return af_fail(err, fmt, what);
}

void rf_shape_of(const af_tensor *t, int *rank, int64_t *shape) {
  *rank = at_tensor_rank(t);
  if (*rank <= RF_RANK) at_tensor_shape(t, shape);
}

static void step_free(rf_step *s) { ops_call_clear(&s->call); }

void rf_chain_free(rf_chain *ch) {
  for (int k = 0; k < ch->n; k++) step_free(&ch->s[k]);
  free(ch->s);
  ch->s = NULL;
  ch->n = 0;
}

void rf_chain_copy(rf_chain *dst, const rf_chain *src) {
  dst->n = src->n;
  dst->s = af_xcalloc((size_t)(src->n ? src->n : 1), sizeof(rf_step));
  for (int k = 0; k < src->n; k++) {
    dst->s[k] = src->s[k];
    ops_call_copy(&dst->s[k].call, &src->s[k].call);
  }
}

/* Appends a step (taking ownership of its call); as_strided starts a chain of its own. */
void rf_chain_push(rf_chain *ch, rf_step *st) {
  if (ops_view_wb(st->call.op) == OPS_WB_STORAGE) {
    for (int k = 0; k < ch->n; k++) step_free(&ch->s[k]);
    ch->n = 0;
  }
  ch->s = af_xrealloc(ch->s, sizeof(rf_step) * (size_t)(ch->n + 1));
  ch->s[ch->n++] = *st;
  memset(&st->call, 0, sizeof st->call);
}

/* The key of one step: op name and its literal arguments (and, for as_strided, which addresses the
 * storage in its input's elements, that input's dtype). Equal keys, equal views. */
void rf_step_key(af_buf *b, const rf_step *st) {
  af_buf_printf(b, "%s(", ops_get(st->call.op)->name);
  if (ops_view_wb(st->call.op) == OPS_WB_STORAGE) af_buf_printf(b, "%s;", af_dtype_name(st->pdtype));
  for (int a = 1; a < st->call.nargs; a++) {
    const ir_arg *x = &st->call.args[a];
    if (x->kind == IR_ARG_INTS) {
      af_buf_puts(b, "[");
      for (int k = 0; k < x->n; k++) af_buf_printf(b, "%s%lld", k ? "," : "", (long long)x->ints[k]);
      af_buf_puts(b, "]");
    } else {
      af_buf_printf(b, "%lld", (long long)x->i);
    }
    af_buf_puts(b, a + 1 < st->call.nargs ? "," : "");
  }
  af_buf_puts(b, ");");
}

/* Keys of every prefix of ch: keys->s holds the whole chain's key; prefix j is its first len[j]
 * characters. */
void rf_chain_keys(const rf_chain *ch, int n, af_buf *keys, size_t *len) {
  af_buf_puts(keys, "");
  len[0] = 0;
  for (int j = 1; j <= n; j++) {
    rf_step_key(keys, &ch->s[j - 1]);
    len[j] = keys->len;
  }
}

static int memo_get(const rf_storage *st, const char *key, size_t len) {
  for (int m = 0; m < st->nmemo; m++)
    if (strlen(st->memo[m].key) == len && strncmp(st->memo[m].key, key, len) == 0) return st->memo[m].val;
  return -1;
}

void rf_memo_put(rf_storage *st, const char *key, size_t len, int val) {
  for (int m = 0; m < st->nmemo; m++)
    if (strlen(st->memo[m].key) == len && strncmp(st->memo[m].key, key, len) == 0) {
      st->memo[m].val = val;
      return;
    }
  st->memo = af_xrealloc(st->memo, sizeof(rf_memo) * (size_t)(st->nmemo + 1));
  char *k = af_xmalloc(len + 1);
  memcpy(k, key, len);
  k[len] = 0;
  st->memo[st->nmemo++] = (rf_memo){k, val};
}

void rf_memo_reset(rf_storage *st) {
  for (int m = 0; m < st->nmemo; m++) free(st->memo[m].key);
  st->nmemo = 0;
}

/* ---------------------------------------------------------------- building the output program */

/* Slot of hint in c->hints: its entry, or the empty slot where it goes. */
static int hint_slot(const rf *c, const char *hint) {
  int mask = c->cap_hints - 1, k = (int)(ir_name_hash(hint) & (uint32_t)mask);
  while (c->hints[k].hint && strcmp(c->hints[k].hint, hint) != 0) k = (k + 1) & mask;
  return k;
}

/* The next k new_value tries for hint (1 for a new hint). */
static int *hint_next(rf *c, const char *hint) {
  if (2 * (c->nhints + 1) > c->cap_hints) { /* grow: the entries move to their new slots */
    struct rf_hint *old = c->hints;
    int ocap = c->cap_hints;
    c->cap_hints = ocap ? 2 * ocap : 64;
    c->hints = af_xcalloc((size_t)c->cap_hints, sizeof *c->hints);
    for (int k = 0; k < ocap; k++)
      if (old[k].hint) c->hints[hint_slot(c, old[k].hint)] = old[k];
    free(old);
  }
  int k = hint_slot(c, hint);
  if (!c->hints[k].hint) {
    c->hints[k].hint = af_xstrdup(hint);
    c->hints[k].next = 1;
    c->nhints++;
  }
  return &c->hints[k].next;
}

/* A fresh value in q. own: the p value whose own name to use when still free (-1: none); other
 * names are hint_1, hint_2, ... skipping every name p or q uses. */
static int new_value(rf *c, const char *hint, int own) {
  if (own >= 0 && ir_find_value(c->q, c->p->names[own]) < 0) {
    int v = ir_add_value(c->q, c->p->names[own]);
    if (v >= 0) return v;
  }
  char base[48], name[64];
  snprintf(base, sizeof base, "%s", hint && *hint ? hint : "t");
  int *next = hint_next(c, base);
  for (;; (*next)++) {
    snprintf(name, sizeof name, "%s_%d", base, *next);
    if (ir_find_value(c->q, name) < 0 && ir_find_value(c->p, name) < 0) {
      int v = ir_add_value(c->q, name);
      if (v >= 0) {
        (*next)++;
        return v;
      }
    }
  }
}

/* Appends `out = op(args)` to q; returns out. args are copied. */
int rf_emit(rf *c, int op, int nargs, const ir_arg *args, const char *hint, int own) {
  int v = new_value(c, hint, own);
  ir_add_stmt(c->q, op, v, nargs, args);
  return v;
}

/* Emits call (a view or inverse step) on value in, with views replayed stride-free. */
static int emit_call(rf *c, const ops_call *call, int in, const char *hint, int own) {
  ir_arg args[OPS_MAX_ARGS];
  args[0] = a_val(in);
  for (int a = 1; a < call->nargs; a++) args[a] = call->args[a];
  return rf_emit(c, ops_view_replay(call->op), call->nargs, args, hint, own);
}

const char *rf_obj_hint(const rf *c, int o) { return c->p->names[c->objs[o].name]; }

/* What to call the value of the first j steps of ch on storage s: the name of the first object
 * that is exactly that view (x for the root, n for n = x.narrow(...)), else fallback. */
const char *rf_chain_name(const rf *c, int s, const rf_chain *ch, int j, const char *fallback) {
  af_buf want = {0};
  const char *name = fallback;
  af_buf_puts(&want, "");
  for (int k = 0; k < j; k++) rf_step_key(&want, &ch->s[k]);
  for (int o = 0; o < c->nobjs; o++) {
    if (c->objs[o].storage != s || c->objs[o].chain.n != j) continue;
    af_buf got = {0};
    af_buf_puts(&got, "");
    for (int k = 0; k < j; k++) rf_step_key(&got, &c->objs[o].chain.s[k]);
    int same = strcmp(want.s, got.s) == 0;
    af_buf_free(&got);
    if (same) {
      name = c->p->names[c->objs[o].name];
      break;
    }
  }
  af_buf_free(&want);
  return name;
}

int rf_new_storage(rf *c, int root, const af_tensor *eager, int input, af_err *err) {
  af_tensor *alias = NULL;
  at_arg a = {.kind = AT_ARG_TENSOR, .t = eager};
  int n = 0;
  if (at_call("aten::alias", "", 1, &a, NULL, 1, &alias, &n, err) || n != 1) return -1;
  c->sto = af_xrealloc(c->sto, sizeof(rf_storage) * (size_t)(c->nsto + 1));
  c->sto[c->nsto] = (rf_storage){.root = root, .eager = alias, .input = input, .flat = -1};
  return c->nsto++;
}

/* A new object on storage with a copy of chain (which may be another object's). */
int rf_new_object(rf *c, int storage, const rf_chain *chain, int name) {
  rf_chain copy = {0, NULL};
  if (chain) rf_chain_copy(&copy, chain); /* before the realloc: chain may point into c->objs */
  c->objs = af_xrealloc(c->objs, sizeof(rf_object) * (size_t)(c->nobjs + 1));
  c->objs[c->nobjs] = (rf_object){.storage = storage, .chain = copy, .name = name};
  return c->nobjs++;
}

/* Shape of an object now: its last step's view, or its storage's root. */
void rf_obj_shape(const rf *c, int o, int *rank, int64_t *shape) {
  const rf_chain *ch = &c->objs[o].chain;
  if (ch->n) {
    *rank = ch->s[ch->n - 1].vrank;
    memcpy(shape, ch->s[ch->n - 1].vshape, sizeof(int64_t) * (size_t)*rank);
  } else {
    rf_shape_of(c->sto[c->objs[o].storage].eager, rank, shape);
  }
}

/* ---------------------------------------------------------------- the storage in memory order */

/* Eager's memory order of t: perm orders its dims by decreasing stride, so that t.permute(perm)
 * is contiguous when t is dense. Returns whether t is dense (no gap, no repeat); *identity when
 * perm is the identity. */
int rf_dense_order(const af_tensor *t, int *rank, int64_t *perm, int *identity) {
  int64_t shape[RF_RANK], stride[RF_RANK];
  rf_shape_of(t, rank, shape);
  if (*rank > RF_RANK) return 0;
  at_tensor_strides(t, stride);
  for (int d = 0; d < *rank; d++) perm[d] = d;
  for (int i = 1; i < *rank; i++) /* stable insertion sort by decreasing stride */
    for (int j = i; j > 0 && stride[perm[j]] > stride[perm[j - 1]]; j--) {
      int64_t x = perm[j];
      perm[j] = perm[j - 1];
      perm[j - 1] = x;
    }
  int64_t expect = 1;
  int dense = 1;
  *identity = 1;
  for (int k = *rank - 1; k >= 0; k--) {
    if (perm[k] != k) *identity = 0;
    if (shape[perm[k]] != 1 && stride[perm[k]] != expect) dense = 0;
    expect *= shape[perm[k]];
  }
  return dense;
}

/* Eager's layout of a storage's root (see rf_dense_order). Declined when the root is not dense with
 * offset 0, which as_strided on it would need. */
static int storage_layout(rf *c, int s, int *rank, int64_t *perm, int *identity, af_err *err) {
  const af_tensor *t = c->sto[s].eager;
  if (!rf_dense_order(t, rank, perm, identity))
    return rf_decline(c, err, "%s", "as_strided or strided write into a storage whose root is not dense");
  if (at_tensor_storage_offset(t) != 0)
    return rf_decline(c, err, "%s", "as_strided or strided write into a storage whose root has an offset");
  return 0;
}

/* The dim order (outermost first) of eager's clone of t: clone keeps the strides of a dense
 * tensor and otherwise lays it out densely in the order of its strides (ATen's
 * infer_dense_strides, whose comparison is reproduced here: zero strides are ambiguous, equal
 * strides put the larger dim outside). */
static void clone_order(const af_tensor *t, int *rank, int64_t *perm, int *identity) {
  int64_t shape[RF_RANK], stride[RF_RANK], inner[RF_RANK]; /* inner: innermost first */
  rf_shape_of(t, rank, shape);
  at_tensor_strides(t, stride);
  int n = *rank;
  for (int i = 0; i < n; i++) inner[i] = n - 1 - i;
  for (int i = 1; i < n; i++) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; d0--) {
      int64_t s0 = stride[inner[d0]], s1 = stride[inner[d1]];
      int cmp = 0;
      if (s0 != 0 && s1 != 0) cmp = s0 < s1 ? -1 : s0 > s1 ? 1 : shape[inner[d0]] > shape[inner[d1]] ? 1 : 0;
      if (cmp > 0) {
        int64_t x = inner[d0];
        inner[d0] = inner[d1];
        inner[d1] = x;
        d1 = d0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  *identity = 1;
  for (int k = 0; k < n; k++) {
    perm[k] = inner[n - 1 - k];
    if (perm[k] != k) *identity = 0;
  }
}

/* Value v laid out in memory the way eager's clone of t is, for ops that address memory
 * (ops_layout_arg): permute to that order, make contiguous, permute back. */
int rf_with_layout(rf *c, int v, const af_tensor *t, const char *hint) {
  int rank, identity;
  int64_t perm[RF_RANK], inv[RF_RANK];
  if (at_tensor_rank(t) > RF_RANK) return v;
  clone_order(t, &rank, perm, &identity);
  if (!identity) {
    ir_arg pa[2] = {a_val(v), a_ints(rank, perm)};
    v = rf_emit(c, OPS_permute, 2, pa, hint, -1);
    ir_arg_free(&pa[1]);
  }
  ir_arg a1[1] = {a_val(v)};
  v = rf_emit(c, OPS_contiguous, 1, a1, hint, -1);
  if (!identity) {
    for (int d = 0; d < rank; d++) inv[perm[d]] = d;
    ir_arg pa[2] = {a_val(v), a_ints(rank, inv)};
    v = rf_emit(c, OPS_permute, 2, pa, hint, -1);
    ir_arg_free(&pa[1]);
  }
  return v;
}

/* Whether eager's as_strided_scatter(t, ...) reads its offset against a clone of t's whole
 * storage: PyTorch 2.x clones the storage (clone_preserve_strides: t's sizes, strides and storage
 * offset kept) unless t has internal overlap (a zero stride), then a plain clone(), as 1.13 always
 * does. Only a t that is not its whole storage, densely at offset 0, sees the difference. */
int rf_clones_whole_storage(const af_tensor *t) {
  int rank, identity;
  int64_t perm[RF_RANK], shape[RF_RANK], stride[RF_RANK];
  if (atoi(at_version()) < 2 || at_tensor_rank(t) > RF_RANK) return 0;
  rf_shape_of(t, &rank, shape);
  at_tensor_strides(t, stride);
  for (int d = 0; d < rank; d++)
    if (stride[d] == 0 && shape[d] > 1) return 0;
  return !rf_dense_order(t, &rank, perm, &identity) || at_tensor_storage_offset(t) != 0 ||
         at_tensor_storage_numel(t) != at_tensor_numel(t);
}

/* 2.x's as_strided_scatter(a, src, size, stride, offset) for an a that rf_clones_whole_storage (q:
 * the statement's args on current values, t: eager's a): a written into a flat tensor of its
 * storage's size at its eager sizes, strides and offset, src scattered at the absolute window,
 * a's window read back. The elements no view of a reaches are never read: zeros stand for them. */
int rf_as_strided_scatter_storage(rf *c, const ir_arg *q, const af_tensor *t, const char *hint, int own) {
  int rank;
  int64_t n = at_tensor_storage_numel(t), shape[RF_RANK], stride[RF_RANK];
  rf_shape_of(t, &rank, shape);
  at_tensor_strides(t, stride);
  ir_arg lay[3] = {a_ints(rank, shape), a_ints(rank, stride), a_int(at_tensor_storage_offset(t))};
  ir_arg za[2] = {q[0], a_ints(1, &n)};
  int m = rf_emit(c, OPS_new_zeros, 2, za, hint, -1);
  ir_arg_free(&za[1]);
  ir_arg sa[5] = {a_val(m), q[0], lay[0], lay[1], lay[2]};
  m = rf_emit(c, OPS_as_strided_scatter, 5, sa, hint, -1);
  ir_arg wa[5] = {a_val(m), q[1], q[2], q[3], q[4].kind == IR_ARG_NONE ? lay[2] : q[4]};
  m = rf_emit(c, OPS_as_strided_scatter, 5, wa, hint, -1);
  ir_arg va[4] = {a_val(m), lay[0], lay[1], lay[2]};
  int v = rf_emit(c, OPS_as_strided, 4, va, hint, own);
  ir_arg_free(&lay[0]);
  ir_arg_free(&lay[1]);
  return v;
}

/* eager's layout of t as three IR arguments (sizes, strides, offset); free the first two */
static void layout_args(const af_tensor *t, ir_arg *lay) {
  int rank;
  int64_t shape[RF_RANK], stride[RF_RANK];
  rf_shape_of(t, &rank, shape);
  at_tensor_strides(t, stride);
  lay[0] = a_ints(rank, shape);
  lay[1] = a_ints(rank, stride);
  lay[2] = a_int(at_tensor_storage_offset(t));
}

/* A storage with a flat memory: the memory with the root's current elements at eager's layout. */
int rf_flat_with_root(rf *c, int s, const char *hint) {
  ir_arg lay[3];
  layout_args(c->sto[s].eager, lay);
  ir_arg a[5] = {a_val(c->sto[s].flat), a_val(c->sto[s].root), lay[0], lay[1], lay[2]};
  int m = rf_emit(c, OPS_as_strided_scatter, 5, a, hint, -1);
  ir_arg_free(&lay[0]);
  ir_arg_free(&lay[1]);
  return m;
}

/* The storage's contents as eager lays them out: a fresh contiguous tensor, offset 0, whose
 * memory is eager's storage, so that as_strided and as_strided_scatter on it address the same
 * elements eager's do. An input nobody wrote is that already. */
int rf_storage_mem(rf *c, int s, af_err *err) {
  rf_storage *st = &c->sto[s];
  int m = memo_get(st, "#mem", 4);
  if (m >= 0) return m;
  if (st->flat >= 0) { /* the whole memory, the root's current elements written over it at eager's layout */
    m = st->written ? rf_flat_with_root(c, s, "mem") : st->flat;
    rf_memo_put(st, "#mem", 4, m);
    return m;
  }
  int rank, identity;
  int64_t perm[RF_RANK];
  if (storage_layout(c, s, &rank, perm, &identity, err)) return -1;
  const char *hint = st->input >= 0 ? c->p->names[c->p->inputs[st->input].value] : "mem";
  if (st->input >= 0 && !st->written && identity) {
    m = st->root;
  } else {
    int v = st->root;
    if (!identity) {
      ir_arg pa[2] = {a_val(v), a_ints(rank, perm)};
      v = rf_emit(c, OPS_permute, 2, pa, hint, -1);
      ir_arg_free(&pa[1]);
    }
    ir_arg a1[1] = {a_val(v)};
    v = rf_emit(c, OPS_contiguous, 1, a1, hint, -1);
    ir_arg a2[1] = {a_val(v)};
    m = rf_emit(c, OPS_clone, 1, a2, hint, -1);
  }
  rf_memo_put(st, "#mem", 4, m);
  return m;
}

static int standard_layout(rf *c, int v, int rank, const int64_t *shape, const char *hint);

/* The storage's memory (rf_storage_mem) read as dtype dt, for as_strided on a view of another dtype
 * (it addresses the storage in that dtype's elements): flattened, in the standard layout and viewed
 * as dt; the memory itself for the root's dtype. Declined when the storage's bytes are no whole
 * number of dt's elements. */
static int storage_mem_as(rf *c, int s, af_dtype dt, af_err *err) {
  rf_storage *st = &c->sto[s];
  af_dtype rd = (af_dtype)at_tensor_dtype(st->eager);
  int mem = rf_storage_mem(c, s, err);
  if (mem < 0 || dt == rd) return mem;
  char key[32];
  snprintf(key, sizeof key, "#mem:%s", af_dtype_name(dt));
  int m = memo_get(st, key, strlen(key));
  if (m >= 0) return m;
  int64_t n = st->flat >= 0 ? at_tensor_storage_numel(st->eager) : at_tensor_numel(st->eager);
  if (n * (int64_t)af_dtype_size(rd) % (int64_t)af_dtype_size(dt))
    return rf_decline(c, err, "%s", "as_strided of a dtype view of a storage that holds no whole number of its elements");
  const char *hint = st->input >= 0 ? c->p->names[c->p->inputs[st->input].value] : "mem";
  ir_arg a[2] = {a_val(mem), a_ints(1, &n)};
  int flat = rf_emit(c, OPS_reshape, 2, a, hint, -1);
  ir_arg_free(&a[1]);
  flat = standard_layout(c, flat, 1, &n, hint);
  ir_arg d[2] = {a_val(flat), {.kind = IR_ARG_DTYPE, .i = (int64_t)dt, .value = -1}};
  m = rf_emit(c, OPS_view_dtype, 2, d, hint, -1);
  rf_memo_put(st, key, strlen(key), m);
  return m;
}

/* Writes u (of dtype dt) into the storage through as_strided(size, stride, offset) of its memory
 * (read as dt: storage_mem_as); returns the new root contents. */
static int storage_scatter(rf *c, int s, int u, af_dtype dt, const ir_arg *size, const ir_arg *stride,
                           const ir_arg *offset, const char *hint, af_err *err) {
  int rank, identity;
  int64_t perm[RF_RANK], inv[RF_RANK];
  if (c->sto[s].flat >= 0) { /* the new whole memory, and the root read back from it */
    if (dt != (af_dtype)at_tensor_dtype(c->sto[s].eager))
      return rf_decline(c, err, "%s", "a strided write of another dtype into a storage kept as its whole memory");
    int mem = rf_storage_mem(c, s, err);
    if (mem < 0) return -1;
    ir_arg a[5] = {a_val(mem), a_val(u), *size, *stride, *offset};
    c->sto[s].flat = rf_emit(c, OPS_as_strided_scatter, 5, a, hint, -1);
    ir_arg lay[3];
    layout_args(c->sto[s].eager, lay);
    ir_arg r[4] = {a_val(c->sto[s].flat), lay[0], lay[1], lay[2]};
    int v = rf_emit(c, OPS_as_strided, 4, r, hint, -1);
    ir_arg_free(&lay[0]);
    ir_arg_free(&lay[1]);
    return v;
  }
  if (storage_layout(c, s, &rank, perm, &identity, err)) return -1;
  int mem = storage_mem_as(c, s, dt, err);
  if (mem < 0) return -1;
  ir_arg a[5] = {a_val(mem), a_val(u), *size, *stride, *offset};
  int v = rf_emit(c, OPS_as_strided_scatter, 5, a, hint, -1);
  af_dtype rd = (af_dtype)at_tensor_dtype(c->sto[s].eager);
  if (dt != rd) { /* back to the root's dtype, in memory order's shape */
    int64_t shape[RF_RANK], mshape[RF_RANK];
    rf_shape_of(c->sto[s].eager, &rank, shape);
    for (int d = 0; d < rank; d++) mshape[d] = shape[perm[d]];
    ir_arg d2[2] = {a_val(v), {.kind = IR_ARG_DTYPE, .i = (int64_t)rd, .value = -1}};
    v = rf_emit(c, OPS_view_dtype, 2, d2, hint, -1);
    ir_arg r2[2] = {a_val(v), a_ints(rank, mshape)};
    v = rf_emit(c, OPS_reshape, 2, r2, hint, -1);
    ir_arg_free(&r2[1]);
  }
  if (!identity) {
    for (int d = 0; d < rank; d++) inv[perm[d]] = d;
    ir_arg pa[2] = {a_val(v), a_ints(rank, inv)};
    v = rf_emit(c, OPS_permute, 2, pa, hint, -1);
    ir_arg_free(&pa[1]);
  }
  return v;
}

/* ---------------------------------------------------------------- reading */

/* A copy of value v (rank >= 1, of shape) in the standard layout (a fresh tensor's strides, offset 0),
 * for views that need it (ops_view_replay_standard: a dtype view that changes the element size):
 * slice_scatter of v over the whole of a new_zeros, which is laid out as a fresh tensor; clone and
 * contiguous() keep odd strides of size-1 dims, and contiguous() an offset. */
static int standard_layout(rf *c, int v, int rank, const int64_t *shape, const char *hint) {
  if (rank == 0) return v; /* no strides (view_as_real of a 0-dim complex value takes any offset) */
  ir_arg z[2] = {a_val(v), a_ints(rank, shape)};
  int zeros = rf_emit(c, OPS_new_zeros, 2, z, hint, -1);
  ir_arg_free(&z[1]);
  ir_arg a[6] = {a_val(zeros), a_val(v), a_int(0), a_int(0), a_int(rank ? shape[0] : 1), a_int(1)};
  return rf_emit(c, OPS_slice_scatter, 6, a, hint, -1);
}

/* The value of the first n steps of ch on storage s, emitting the steps the memo lacks. */
int rf_chain_value(rf *c, int s, const rf_chain *ch, int n, const char *hint, int own, af_err *err) {
  rf_storage *st = &c->sto[s];
  if (n == 0) return st->root;
  af_buf keys = {0};
  size_t *len = af_xcalloc((size_t)n + 1, sizeof(size_t));
  rf_chain_keys(ch, n, &keys, len);
  int best = 0, val = st->root;
  for (int j = n; j >= 1; j--) {
    int m = memo_get(st, keys.s, len[j]);
    if (m >= 0) {
      best = j;
      val = m;
      break;
    }
  }
  for (int j = best + 1; j <= n && val >= 0; j++) {
    const rf_step *step = &ch->s[j - 1];
    int in = val;
    if (ops_view_wb(step->call.op) == OPS_WB_STORAGE) in = storage_mem_as(c, s, step->pdtype, err); /* always step 1 */
    if (in < 0) {
      val = -1;
      break;
    }
    if (ops_view_replay_standard(step->call.op, step->call.args, step->pdtype, 0))
      in = standard_layout(c, in, step->prank, step->pshape, rf_chain_name(c, s, ch, j - 1, "tmp"));
    val = emit_call(c, &step->call, in, rf_chain_name(c, s, ch, j, j == n ? hint : "tmp"), j == n ? own : -1);
    rf_memo_put(st, keys.s, len[j], val);
  }
  af_buf_free(&keys);
  free(len);
  return val;
}

int rf_obj_value(rf *c, int o, af_err *err) {
  const rf_object *ob = &c->objs[o];
  return rf_chain_value(c, ob->storage, &ob->chain, ob->chain.n, rf_obj_hint(c, o), ob->name, err);
}

/* The current value of p's value v. */
int rf_fval(rf *c, int v, af_err *err) {
  if (v < 0 || v > c->p->nvalues || c->obj[v] < 0) return af_fail(err, "value %d has no object", v);
  return rf_obj_value(c, c->obj[v], err);
}

/* Copies p-level args with every value replaced by its current value in q. */
int rf_subst_args(rf *c, int nargs, const ir_arg *in, ir_arg *out, af_err *err) {
  int rc = 0;
  for (int a = 0; a < nargs; a++) {
    ir_arg_copy(&out[a], &in[a]);
    if (rc) continue;
    if (in[a].kind == IR_ARG_VALUE) {
      out[a].value = rf_fval(c, in[a].value, err);
      if (out[a].value < 0) rc = -1;
    } else if (in[a].kind == IR_ARG_VALUES) {
      for (int k = 0; k < in[a].n && !rc; k++)
        if (in[a].values[k] >= 0 && (out[a].values[k] = rf_fval(c, in[a].values[k], err)) < 0) rc = -1;
    } else if (in[a].kind == IR_ARG_INDEX) {
      for (int k = 0; k < in[a].n && !rc; k++)
        if (in[a].index[k].kind == IR_IDX_TENSOR && (out[a].index[k].value = rf_fval(c, in[a].index[k].value, err)) < 0)
          rc = -1;
    }
  }
  return rc;
}

void rf_args_free(int nargs, ir_arg *args) {
  for (int a = 0; a < nargs; a++) ir_arg_free(&args[a]);
}

/* ---------------------------------------------------------------- writing */

/* eager's view for ch on storage s: the chain replayed on eager's root (metadata only). new. */
/* cur as a flat tensor of dtype dt over as many bytes (metadata for as_strided on a dtype view,
 * which addresses the storage in dt's elements: only the sizes and the bounds matter). Replaces
 * *cur; 0, or -1 with err. */
static int eager_flat_as(af_tensor **cur, af_dtype dt, af_err *err) {
  int64_t all = -1;
  const char *ops[3][2] = {{"aten::contiguous", ""}, {"aten::reshape", ""}, {"aten::view", "dtype"}};
  for (int k = 0; k < 3; k++) {
    at_arg a[2] = {{.kind = AT_ARG_TENSOR, .t = *cur}, {.kind = AT_ARG_NONE}};
    if (k == 1) a[1] = (at_arg){.kind = AT_ARG_INTS, .n = 1, .ints = &all};
    if (k == 2) a[1] = (at_arg){.kind = AT_ARG_DTYPE, .i = (int64_t)dt};
    af_tensor *next = NULL;
    int n = 0;
    if (at_call(ops[k][0], ops[k][1], k ? 2 : 1, a, NULL, 1, &next, &n, err) || n != 1) return -1;
    at_tensor_free(*cur);
    *cur = next;
  }
  return 0;
}

/* cur with the strides of its size-1 dims made those of a fresh tensor (the inner dims' extent; 1
 * for the last), which addresses the same elements. A chain leaves out steps that change nothing
 * but such strides (view_as of the same shape), which eager's view(dtype) checks. Replaces *cur;
 * 0, or -1 with err. */
static int eager_size1_strides(af_tensor **cur, af_err *err) {
  int r = at_tensor_rank(*cur);
  int64_t sz[RF_RANK], sd[RF_RANK];
  if (r > RF_RANK) return 0;
  at_tensor_shape(*cur, sz);
  at_tensor_strides(*cur, sd);
  for (int d = r - 1; d >= 0; d--)
    if (sz[d] == 1) sd[d] = d + 1 < r ? sd[d + 1] * sz[d + 1] : 1;
  at_arg a[4] = {{.kind = AT_ARG_TENSOR, .t = *cur}, {.kind = AT_ARG_INTS, .n = r, .ints = sz},
                 {.kind = AT_ARG_INTS, .n = r, .ints = sd}, {.kind = AT_ARG_INT, .i = at_tensor_storage_offset(*cur)}};
  af_tensor *next = NULL;
  int n = 0;
  if (at_call("aten::as_strided", "", 4, a, NULL, 1, &next, &n, err) || n != 1) return -1;
  at_tensor_free(*cur);
  *cur = next;
  return 0;
}

static int eager_view(rf *c, int s, const rf_chain *ch, af_tensor **out, af_err *err) {
  af_tensor *cur = at_tensor_ref(c->sto[s].eager);
  for (int j = 0; j < ch->n; j++) {
    const ops_call *call = &ch->s[j].call;
    const ops_entry *e = ops_get(call->op);
    if (ops_view_replay_standard(call->op, call->args, ch->s[j].pdtype, 0) && eager_size1_strides(&cur, err)) {
      at_tensor_free(cur);
      return -1;
    }
    if (ops_view_wb(call->op) == OPS_WB_STORAGE && ch->s[j].pdtype != (af_dtype)at_tensor_dtype(cur)) {
      int rank, identity;
      int64_t perm[RF_RANK];
      if (storage_layout(c, s, &rank, perm, &identity, err) || eager_flat_as(&cur, ch->s[j].pdtype, err)) {
        at_tensor_free(cur);
        return -1;
      }
    }
    at_arg a[OPS_MAX_ARGS];
    memset(a, 0, sizeof a);
    a[0] = (at_arg){.kind = AT_ARG_TENSOR, .t = cur};
    for (int k = 1; k < call->nargs; k++) {
      const ir_arg *x = &call->args[k];
      if (x->kind == IR_ARG_INTS)
        a[k] = (at_arg){.kind = AT_ARG_INTS, .n = x->n, .ints = x->ints};
      else if (x->kind == IR_ARG_DTYPE)
        a[k] = (at_arg){.kind = AT_ARG_DTYPE, .i = x->i};
      else
        a[k] = (at_arg){.kind = AT_ARG_INT, .i = x->i};
    }
    af_tensor *next = NULL, *all[256];
    int n = 0;
    if (e->flags & OPF_PICK) { /* x.split(2, d)[k]: the aten op takes all but k */
      int64_t k = call->args[call->nargs - 1].i;
      if (at_call(e->aten, e->overload, call->nargs - 1, a, NULL, 256, all, &n, err)) {
        at_tensor_free(cur);
        return -1;
      }
      if (k < 0) k += n;
      for (int q = 0; q < n; q++)
        if (q != k) at_tensor_free(all[q]);
      next = k >= 0 && k < n ? all[k] : NULL;
      if (!next) af_fail(err, "%s: element %lld of %d", e->name, (long long)call->args[call->nargs - 1].i, n);
      n = next ? 1 : 0;
    } else if (at_call(e->aten, e->overload, call->nargs, a, NULL, 1, &next, &n, err)) {
      n = 0;
    }
    if (n != 1) {
      at_tensor_free(cur);
      return -1;
    }
    at_tensor_free(cur);
    cur = next;
  }
  *out = cur;
  return 0;
}

/* Whether two elements of t may share memory: a dim whose stride does not pass everything the
 * dims of smaller strides reach (some layouts that do not overlap are counted too). A root has
 * such a layout only on PyTorch 2.x, where *_scatter and copy keep their input's layout
 * (clone_preserve_strides): an as_strided_scatter of an unfold is as overlapping as the unfold. */
static int may_overlap(const af_tensor *t) {
  int rank, n = 0;
  int64_t shape[RF_RANK], stride[RF_RANK], st[RF_RANK], sz[RF_RANK], reach = 0;
  if (at_tensor_rank(t) > RF_RANK) return 1;
  rf_shape_of(t, &rank, shape);
  at_tensor_strides(t, stride);
  for (int d = 0; d < rank; d++) {
    if (shape[d] == 0) return 0;
    if (shape[d] == 1) continue;
    int k = n++; /* insertion by increasing stride */
    for (; k > 0 && st[k - 1] > stride[d]; k--) st[k] = st[k - 1], sz[k] = sz[k - 1];
    st[k] = stride[d];
    sz[k] = shape[d];
  }
  for (int k = 0; k < n; k++) {
    if (st[k] <= reach) return 1;
    reach += (sz[k] - 1) * st[k];
  }
  return 0;
}

/* What a write through ch needs: *strided when some step has no inverse step by step (a strided
 * or storage step, or a broadcasting expand: the steps after it see its repeated elements as
 * distinct), *safe when the memo may keep the written values, *retyped 1 when a step reads the
 * bytes as another dtype, 2 when bool bytes as another dtype or the reverse. */
static void write_back_plan(const rf_chain *ch, int *strided, int *safe, int *retyped) {
  int n = ch->n;
  *strided = 0, *safe = 1, *retyped = 0;
  for (int j = 0; j < n; j++) {
    ops_wb_kind wb = ops_view_wb(ch->s[j].call.op);
    int broadcast = ch->s[j].call.op == OPS_expand &&
                    !ops_view_is_identity(OPS_expand, ch->s[j].call.args, ch->s[j].prank, ch->s[j].pshape, ch->s[j].pdtype,
                                          ch->s[j].vrank, ch->s[j].vshape);
    if (ch->s[j].vdtype != ch->s[j].pdtype && *retyped < 2) /* 2: bool bytes read as another dtype, or the reverse */
      *retyped = 1 + (ch->s[j].vdtype == AF_BOOL || ch->s[j].pdtype == AF_BOOL);
    /* steps after a broadcasting expand see its repeated elements as distinct: a scatter into
     * one of them would be undone by the others, so such chains go through the storage */
    if (wb == OPS_WB_STRIDED || wb == OPS_WB_STORAGE || broadcast) *strided = 1;
    /* the memo may keep the written value only where each element of the view is its own
     * element of the storage */
    if (wb == OPS_WB_STORAGE || wb == OPS_WB_STRIDED || broadcast) *safe = 0;
  }
}

/* rf_write_back through a chain with no inverse step by step (a strided or storage step, or a
 * broadcasting expand): one strided scatter of u into the storage with eager's strides. The new
 * root, or -1 with err. */
static int write_back_strided(rf *c, int s, const rf_chain *ch, int u, int uniform, af_err *err) {
  af_tensor *ev = NULL;
  if (eager_view(c, s, ch, &ev, err)) return -1;
  int r = at_tensor_rank(ev);
  int64_t sz[RF_RANK], sd[RF_RANK];
  at_tensor_shape(ev, sz);
  at_tensor_strides(ev, sd);
  /* a broadcast dim (stride 0) holds one element many times: which copy eager writes last
   * decides, unless every copy gets the same value (fill, zero); then keep index 0 */
  for (int d = 0; d < r; d++)
    if (sd[d] == 0 && sz[d] > 1 && !uniform) {
      at_tensor_free(ev);
      return rf_decline(c, err, "%s",
                        "a write into a view whose elements repeat (an expanded view, or as_strided with a zero "
                        "stride): eager's result depends on which copy it writes last");
    }
  for (int d = 0; d < r; d++)
    if (sd[d] == 0 && sz[d] > 1) {
      ir_arg a[5] = {a_val(u), a_int(d), a_int(0), a_int(1), a_int(1)};
      u = rf_emit(c, OPS_slice, 5, a, "tmp", -1);
      sz[d] = 1;
    }
  ir_arg size = a_ints(r, sz), stride = a_ints(r, sd), off = a_int(at_tensor_storage_offset(ev));
  af_dtype evdt = (af_dtype)at_tensor_dtype(ev); /* strides and offset count its elements */
  at_tensor_free(ev);
  int cur = storage_scatter(c, s, u, evdt, &size, &stride, &off, rf_chain_name(c, s, ch, 0, "tmp"), err);
  ir_arg_free(&size);
  ir_arg_free(&stride);
  return cur < 0 ? -1 : cur;
}

/* rf_write_back step by step: u, the new value of the view of ch's n steps, is written into
 * each step's input from the last step to the first (a scatter, the inverse view ops, or a
 * storage scatter), newv[j] the new value of the first j steps (-1: not computed). 0, or -1 with
 * err. */
static int write_back_steps(rf *c, int s, const rf_chain *ch, int u, int *newv, af_err *err) {
  int n = ch->n, rc = 0, cur = u;
  for (int j = n; j >= 1 && !rc; j--) {
    const rf_step *step = &ch->s[j - 1];
    const char *name = rf_chain_name(c, s, ch, j - 1, "tmp");
    int first = j - 1; /* a run of two or more reshape-like steps is undone by one reshape */
    while (first > 0 && ops_view_is_reshape(ch->s[j - 1].call.op) && ops_view_is_reshape(ch->s[first - 1].call.op))
      first--;
    if (first < j - 1) {
      ir_arg a[2] = {a_val(cur), a_ints(ch->s[first].prank, ch->s[first].pshape)};
      name = rf_chain_name(c, s, ch, first, "tmp");
      cur = rf_emit(c, OPS_reshape, 2, a, name, -1);
      ir_arg_free(&a[1]);
      for (int m = first + 1; m < j; m++) newv[m] = -1; /* not computed */
      newv[first] = cur;
      j = first + 1;
      continue;
    }
    switch (ops_view_wb(step->call.op)) {
      case OPS_WB_SCATTER: {
        int parent = rf_chain_value(c, s, ch, j - 1, name, -1, err);
        ops_call sc = {0};
        if (parent < 0 || ops_view_scatter(step->call.op, step->call.args, step->prank, step->pshape, &sc, err)) {
          rc = -1;
          break;
        }
        sc.args[0] = a_val(parent);
        sc.args[1] = a_val(cur);
        cur = rf_emit(c, sc.op, sc.nargs, sc.args, name, -1);
        ops_call_clear(&sc);
        break;
      }
      case OPS_WB_INVERSE: {
        ops_call inv[RF_MAX_STEPS];
        int ninv = 0;
        if (ops_view_replay_standard(step->call.op, step->call.args, step->pdtype, 1))
          cur = standard_layout(c, cur, step->vrank, step->vshape, name);
        if (ops_view_inverse(step->call.op, step->call.args, step->prank, step->pshape, step->pdtype, step->vrank,
                             step->vshape, inv, RF_MAX_STEPS, &ninv, err)) {
          rc = -1;
          break;
        }
        for (int k = 0; k < ninv; k++) {
          cur = emit_call(c, &inv[k], cur, name, -1);
          ops_call_clear(&inv[k]);
        }
        break;
      }
      case OPS_WB_STORAGE:
        cur = storage_scatter(c, s, cur, step->vdtype, &step->call.args[1], &step->call.args[2], &step->call.args[3], name,
                              err);
        if (cur < 0) rc = -1;
        break;
      default:
        rc = af_fail(err, "%s: no way to write through it", ops_get(step->call.op)->name);
        break;
    }
    newv[j - 1] = cur;
  }
  return rc;
}

/* Writes u, the new value of chain ch's view, into storage s (see 3. in conv_ref.c's header). */
int rf_write_back(rf *c, int s, const rf_chain *ch, int u, int uniform, const char *hint, af_err *err) {
  int n = ch->n, rc = 0, safe, strided, retyped;
  if (may_overlap(c->sto[s].eager))
    return rf_decline(c, err, "%s",
                      "a write into a storage whose root's elements share memory (PyTorch 2.x's scatter of an "
                      "overlapping view keeps its layout)");
  int *newv = af_xcalloc((size_t)n + 1, sizeof(int));
  write_back_plan(ch, &strided, &safe, &retyped);
  newv[n] = u;
  if (retyped == 2) {
    rc = rf_decline(c, err, "%s",
                    "a write through a view that reads bool bytes as another dtype or other bytes as bool: bytes other "
                    "than 0 and 1 in a bool tensor make PyTorch's result undefined");
    goto out;
  }
  if (strided) {
    newv[0] = write_back_strided(c, s, ch, u, uniform, err);
    if (newv[0] < 0) rc = -1;
  } else {
    rc = write_back_steps(c, s, ch, u, newv, err);
  }
  if (rc) goto out;
  rf_storage *st = &c->sto[s];
  rf_memo_reset(st);
  st->root = newv[0];
  st->written = 1;
  if (safe && !strided) {
    af_buf keys = {0};
    size_t *len = af_xcalloc((size_t)n + 1, sizeof(size_t));
    rf_chain_keys(ch, n, &keys, len);
    for (int j = 1; j <= n; j++)
      if (newv[j] >= 0) rf_memo_put(st, keys.s, len[j], newv[j]);
    af_buf_free(&keys);
    free(len);
  }
out:
  free(newv);
  return rc;
}

/* Whether the functional twin's result (on the eager tensors given) has another dtype than the
 * in-place op's target keeps: type promotion of add/sub/mul/div with a wider tensor operand, and
 * comparisons and logical_*_ whose twins return bool whatever the operands (so the twin is always
 * evaluated, not only when an operand's dtype differs).
 * target is an eager tensor of the target's dtype and shape; args are p-level; values eager's. */
static int twin_widens(int twin, const af_tensor *target, int nargs, const ir_arg *args, af_tensor *const *values) {
  const ops_entry *e = ops_get(twin);
  int dt = at_tensor_dtype(target), scalar = 0;
  for (int a = 1; a < nargs; a++) {
    if (e->argk[a][0] == 'S' && args[a].kind != IR_ARG_VALUE) scalar = 1;
    if (args[a].kind == IR_ARG_VALUES || args[a].kind == IR_ARG_INDEX) return 0; /* index ops keep self's dtype */
  }
  at_arg a[OPS_MAX_ARGS];
  memset(a, 0, sizeof a);
  a[0] = (at_arg){.kind = AT_ARG_TENSOR, .t = target};
  for (int k = 1; k < nargs; k++) {
    const ir_arg *x = &args[k];
    switch (x->kind) {
      case IR_ARG_VALUE: a[k] = (at_arg){.kind = AT_ARG_TENSOR, .t = values[x->value]}; break;
      case IR_ARG_INT: a[k] = (at_arg){.kind = AT_ARG_INT, .i = x->i}; break;
      case IR_ARG_FLOAT: a[k] = (at_arg){.kind = AT_ARG_FLOAT, .f = x->f}; break;
      case IR_ARG_BOOL: a[k] = (at_arg){.kind = AT_ARG_BOOL, .i = x->i}; break;
      case IR_ARG_INTS: a[k] = (at_arg){.kind = AT_ARG_INTS, .n = x->n, .ints = x->ints}; break;
      case IR_ARG_DTYPE: a[k] = (at_arg){.kind = AT_ARG_DTYPE, .i = x->i}; break;
      default: a[k] = (at_arg){.kind = AT_ARG_NONE}; break;
    }
  }
  af_tensor *r = NULL;
  int n = 0;
  af_err ignored;
  if (at_call(e->aten, scalar ? e->overload_scalar : e->overload, nargs, a, NULL, 1, &r, &n, &ignored) || n != 1) return 0;
  int wider = at_tensor_dtype(r) != dt;
  at_tensor_free(r);
  return wider;
}

/* u = twin(t, args[1..]) for an in-place op with target value t (in q); cast back to t's dtype
 * when promotion widened it. eager_target: an eager tensor like the target. */
int rf_emit_twin(rf *c, int twin, int t, int nargs, const ir_arg *args, const af_tensor *eager_target,
                 af_tensor *const *values, const char *hint, af_err *err) {
  ir_arg q[OPS_MAX_ARGS];
  memset(q, 0, sizeof q);
  if (rf_subst_args(c, nargs - 1, args + 1, q + 1, err)) {
    rf_args_free(nargs, q);
    return -1;
  }
  q[0] = a_val(t);
  int u = rf_emit(c, twin, nargs, q, hint, -1);
  rf_args_free(nargs, q);
  if (twin_widens(twin, eager_target, nargs, args, values)) {
    ir_arg cp[2] = {a_val(t), a_val(u)};
    u = rf_emit(c, OPS_copy, 2, cp, hint, -1);
  }
  return u;
}
