/* test_eager.c - the eager runner against values computed by hand for the seed patterns. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "../harness/eager.h"
#include "tap.h"

/* default input value of element k of input 0 (see ir.h), and of input i */
static double x0(int64_t k) { return (double)(((k * 7) % 11) - 5); }
static double xi(int i, int64_t k) { return (double)(((k * 7 + i * 3) % 11) - 5); }

typedef struct run {
  ir_program *p;
  result r;
  double *out[4], *in[4];
  int64_t out_shape[4][8];
  int out_rank[4];
} run;

static int load(run *u, const char *file) {
  af_err err;
  memset(u, 0, sizeof *u);
  char path[512];
  snprintf(path, sizeof path, "corpus/seed/%s.json", file);
  if (codec_read_file(path, &u->p, &err)) {
    CHECK(0, "%s", err.msg);
    return -1;
  }
  result_init(&u->r);
  if (eager_run(u->p, &u->r, &err) || u->r.status != RESULT_OK) {
    CHECK(0, "%s: eager failed: %s", file, u->r.message ? u->r.message : err.msg);
    return -1;
  }
  for (int o = 0; o < u->r.noutputs && o < 4; o++) {
    u->out[o] = malloc(sizeof(double) * (size_t)at_tensor_numel(u->r.outputs[o]) + 8);
    at_tensor_values(u->r.outputs[o], u->out[o], &err);
    u->out_rank[o] = at_tensor_rank(u->r.outputs[o]);
    at_tensor_shape(u->r.outputs[o], u->out_shape[o]);
  }
  for (int i = 0; i < u->r.ninputs && i < 4; i++) {
    u->in[i] = malloc(sizeof(double) * (size_t)at_tensor_numel(u->r.inputs[i]) + 8);
    at_tensor_values(u->r.inputs[i], u->in[i], &err);
  }
  return 0;
}

static void unload(run *u) {
  for (int k = 0; k < 4; k++) {
    free(u->out[k]);
    free(u->in[k]);
  }
  result_clear(&u->r);
  ir_program_free(u->p);
}

TEST(slice_assignment_into_an_input_zeroes_the_first_five_and_doubles) {
  run u;
  if (load(&u, "design-001-slice-assign-input")) return;
  for (int k = 0; k < 10; k++) {
    double want = k < 5 ? 0 : 2 * x0(k);
    CHECK(u.out[0][k] == want, "r[%d] = %g, want %g", k, u.out[0][k], want);
    CHECK(u.in[0][k] == want / 2, "x[%d] = %g, want %g", k, u.in[0][k], want / 2);
  }
  unload(&u);
}

TEST(write_through_a_view_of_a_view_reaches_the_base) {
  run u;
  if (load(&u, "design-002-view-of-view-write")) return;
  for (int k = 0; k < 25; k++) {
    double want = k < 10 ? 0 : 2 * x0(k);
    CHECK(u.out[0][k] == want, "r[%d] = %g, want %g", k, u.out[0][k], want);
  }
  unload(&u);
}

TEST(unsqueeze_inplace_gives_shape_5_5_1) {
  run u;
  if (load(&u, "design-003-unsqueeze-inplace")) return;
  CHECK(u.out_rank[0] == 3 && u.out_shape[0][0] == 5 && u.out_shape[0][1] == 5 && u.out_shape[0][2] == 1,
        "rank %d", u.out_rank[0]);
  int64_t sh[8];
  CHECK(at_tensor_rank(u.r.inputs[0]) == 3, "the caller's input is [5, 5, 1] too");
  at_tensor_shape(u.r.inputs[0], sh);
  CHECK(sh[2] == 1, "input dim 2 = %lld", (long long)sh[2]);
  for (int k = 0; k < 25; k++) CHECK(u.out[0][k] == 2 * x0(k), "r[%d]", k);
  unload(&u);
}

TEST(reshape_of_a_noncontiguous_slice_is_a_copy) {
  run u;
  if (load(&u, "design-004a-reshape-is-copy")) return;
  for (int k = 0; k < 25; k++) CHECK(u.out[0][k] == x0(k) + 1, "r[%d] = %g: the write must not reach x", k, u.out[0][k]);
  CHECK(u.out_rank[1] == 1 && u.out_shape[1][0] == 20, "f has 20 elements");
  for (int k = 0; k < 20; k++) CHECK(u.out[1][k] == 7, "f[%d] = %g", k, u.out[1][k]);
  unload(&u);
}

TEST(reshape_of_contiguous_rows_is_a_view) {
  run u;
  if (load(&u, "design-004b-reshape-is-view")) return;
  for (int k = 0; k < 25; k++) {
    double want = (k >= 5 && k < 15) ? 8 : x0(k) + 1;
    CHECK(u.out[0][k] == want, "r[%d] = %g, want %g", k, u.out[0][k], want);
  }
  unload(&u);
}

TEST(inplace_add_on_an_input_is_seen_by_the_sum_and_the_caller) {
  run u;
  if (load(&u, "design-005-inplace-on-input")) return;
  double s = 0;
  for (int k = 0; k < 25; k++) {
    s += x0(k) + 3;
    CHECK(u.in[0][k] == x0(k) + 3, "x[%d]", k);
  }
  CHECK(u.out[0][0] == s, "sum %g, want %g", u.out[0][0], s);
  unload(&u);
}

/* The message eager rejects program text t with (a new string; NULL when eager accepts it). */
static char *eager_rejection(const char *t) {
  ir_program *p;
  af_err err;
  CHECK(codec_read_string(t, "t", &p, &err) == 0, "%s", err.msg);
  result r;
  result_init(&r);
  CHECK(eager_run(p, &r, &err) == 0, "inputs");
  char *msg = r.status == RESULT_ERROR && r.message ? af_xstrdup(r.message) : NULL;
  result_clear(&r);
  ir_program_free(p);
  return msg;
}

TEST(eager_rejection_names_the_statement) {
  char *m = eager_rejection("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3, 4], \"dtype\": \"float32\"}], "
                            "\"body\": [{\"out\": \"e\", \"op\": \"expand\", \"args\": [\"x\", [2, 3, 4]]}, {\"op\": \"add_\", \"args\": [\"e\", 1]}], \"outputs\": []}");
  CHECK(m && strstr(m, "body[1] (add_)"), "writing into an expanded view must fail in eager, naming the statement: %s", m ? m : "(accepted)");
  free(m);
}

/* ---- control flow, rebinding, lists, module state (issue 9) ---- */

TEST(a_loop_adds_v_to_every_row_through_the_loop_variable) {
  run u; /* for i in range(4): x[i] += v; r = 2 * x */
  if (load(&u, "i9-cf-001-loop-slice-add-input")) return;
  for (int k = 0; k < 12; k++) {
    double want = xi(0, k) + xi(1, k % 3);
    CHECK(u.in[0][k] == want, "x[%d] = %g, want %g", k, u.in[0][k], want);
    CHECK(u.out[0][k] == 2 * want, "r[%d] = %g, want %g", k, u.out[0][k], 2 * want);
  }
  unload(&u);
}

TEST(a_rebind_cuts_the_alias_the_first_write_stays_in_the_caller) {
  run u; /* y = x[0:2]; y.add_(1); x = x + 1; x.mul_(2); return y, x */
  if (load(&u, "i9-cf-006-rebind-cuts-alias")) return;
  for (int k = 0; k < 12; k++) {
    double first = x0(k) + (k < 6); /* the caller's x sees only y.add_ */
    CHECK(u.in[0][k] == first, "caller x[%d] = %g, want %g", k, u.in[0][k], first);
    CHECK(u.out[1][k] == (first + 1) * 2, "rebound x[%d] = %g, want %g", k, u.out[1][k], (first + 1) * 2);
    if (k < 6) CHECK(u.out[0][k] == first, "y[%d] = %g, want %g", k, u.out[0][k], first);
  }
  unload(&u);
}

TEST(a_false_condition_runs_the_else_branch_and_the_alias_sees_it) {
  run u; /* a = s[0]; if sum(t) > 0 (t = [-1, -2]: no): s = s + 1 else: s[:] = v; a.mul_(2) */
  if (load(&u, "i9-cf-009-branch-rebind-while-aliased-not-taken")) return;
  for (int k = 0; k < 12; k++) {
    double want = xi(1, k % 4) * (k < 4 ? 2 : 1); /* every row is v; row 0 doubled through a */
    CHECK(u.out[0][k] == want && u.in[0][k] == want, "s[%d] = %g (caller %g), want %g", k, u.out[0][k], u.in[0][k], want);
  }
  for (int k = 0; k < 4; k++) CHECK(u.out[1][k] == 2 * xi(1, k), "a[%d] = %g", k, u.out[1][k]);
  unload(&u);
}

TEST(a_list_holds_tensors_and_list_set_replaces_one) {
  run u; /* l = [a, b]; l[1] = u; b.add_(10); r = 2 * l[1]; s = stack(l) */
  if (load(&u, "i9-cf-045-list-set-then-write-old-element")) return;
  for (int k = 0; k < 6; k++) {
    CHECK(u.out[0][k] == 2 * xi(2, k), "r[%d] = %g: l[1] must be u", k, u.out[0][k]);
    CHECK(u.out[1][k] == xi(0, k) && u.out[1][6 + k] == xi(2, k), "stack[.., %d] = %g, %g", k, u.out[1][k], u.out[1][6 + k]);
    CHECK(u.in[1][k] == xi(1, k) + 10, "caller b[%d] = %g", k, u.in[1][k]);
  }
  unload(&u);
}

TEST(a_rebound_buffer_ends_as_its_new_binding) {
  run u; /* module: old = self.w[0]; self.w = self.w + 1; old.mul_(2); r = 3 * self.w */
  if (load(&u, "i9-cf-051-buffer-rebind-old-row-written")) return;
  CHECK(u.p->inputs[0].buffer, "w is a buffer");
  for (int k = 0; k < 12; k++) {
    CHECK(u.in[0][k] == x0(k) + 1, "final self.w[%d] = %g, want %g (the new tensor, not the one old wrote)", k, u.in[0][k], x0(k) + 1);
    CHECK(u.out[0][k] == 3 * (x0(k) + 1), "r[%d] = %g", k, u.out[0][k]);
    if (k < 4) CHECK(u.out[1][k] == 2 * x0(k), "old[%d] = %g", k, u.out[1][k]);
  }
  unload(&u);
}

/* ---- int values and the new dtypes (issue 15) ---- */

TEST(an_inner_trip_count_and_a_slice_bound_read_the_outer_loop_variable) {
  run u; /* for i in range(3): (for j in range(i): x[j] += 1); x[:i] *= 2 */
  if (load(&u, "i15-sz-006-trip-count-and-slice-bound-are-loop-variables")) return;
  double x[6];
  for (int k = 0; k < 6; k++) x[k] = x0(k);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < i; j++) x[2 * j] += 1, x[2 * j + 1] += 1;
    for (int k = 0; k < 2 * i; k++) x[k] *= 2;
  }
  for (int k = 0; k < 6; k++) {
    CHECK(u.in[0][k] == x[k], "x[%d] = %g, want %g", k, u.in[0][k], x[k]);
    CHECK(u.out[0][k] == x[k], "r[%d] = %g, want %g", k, u.out[0][k], x[k]);
  }
  unload(&u);
}

TEST(uint8_wraps_and_int8_keeps_its_dtype_through_views) {
  run u; /* u[::2] += 250 (uint8 wraps), s.view(3, 2)[:, 0] -= 100; r = u + 1, q = -s */
  if (load(&u, "i15-dt-002-uint8-wraps-int8-through-view")) return;
  CHECK(at_tensor_dtype(u.r.outputs[0]) == AF_UINT8 && at_tensor_dtype(u.r.outputs[1]) == AF_INT8, "dtypes %d %d",
        at_tensor_dtype(u.r.outputs[0]), at_tensor_dtype(u.r.outputs[1]));
  for (int k = 0; k < 6; k++) {
    int v = (k * 7) % 11; /* uint8's default: no shift (ir.h) */
    if (k % 2 == 0) v = (v + 250) % 256;
    CHECK(u.in[0][k] == v, "u[%d] = %g, want %d", k, u.in[0][k], v);
    CHECK(u.out[0][k] == (v + 1) % 256, "r[%d] = %g, want %d", k, u.out[0][k], (v + 1) % 256);
    double sv = xi(1, k) - (k % 2 == 0 ? 100 : 0);
    CHECK(u.in[1][k] == sv, "s[%d] = %g, want %g", k, u.in[1][k], sv);
    CHECK(u.out[1][k] == -sv, "q[%d] = %g, want %g", k, u.out[1][k], -sv);
  }
  unload(&u);
}

TEST(a_loop_over_x_size_0_writes_every_row_and_a_size_after_unsqueeze_sees_the_new_shape) {
  run u; /* n = x.size(0); for i in range(n): x[i] += v; x[i:, 0] *= 2 */
  if (load(&u, "i15-sz-004-loop-over-size")) return;
  double x[12];
  for (int k = 0; k < 12; k++) x[k] = xi(0, k);
  for (int i = 0; i < 4; i++) {
    for (int c = 0; c < 3; c++) x[i * 3 + c] += xi(1, c);
    for (int r = i; r < 4; r++) x[r * 3] *= 2;
  }
  for (int k = 0; k < 12; k++) CHECK(u.in[0][k] == x[k] && u.out[0][k] == x[k], "x[%d] = %g, r %g, want %g", k, u.in[0][k], u.out[0][k], x[k]);
  unload(&u);
  /* x.unsqueeze_(0); n = x.size(0) (1); m = x.dim() (3); x.view([m, -1]) += 1; x[:n, 1] *= 2; r = x + n */
  if (load(&u, "i15-sz-005-size-after-unsqueeze-inplace")) return;
  CHECK(u.out_rank[0] == 3 && u.out_shape[0][0] == 1 && u.out_shape[0][1] == 3 && u.out_shape[0][2] == 4, "r has rank %d", u.out_rank[0]);
  for (int k = 0; k < 12; k++) {
    double want = (xi(0, k) + 1) * (k / 4 == 1 ? 2 : 1);
    CHECK(u.in[0][k] == want && u.out[0][k] == want + 1, "x[%d] = %g, r %g, want %g", k, u.in[0][k], u.out[0][k], want);
  }
  unload(&u);
}

TEST(an_empty_tensor_is_filled_at_once_and_to_of_the_same_dtype_is_its_input) {
  run u; /* w = torch.empty([2, x.shape[1]]).fill_(0.5); w[:, 0] += x[:, 2]; r = w * 2 */
  if (load(&u, "i15-fac-006-empty-filled-then-written-through-view")) return;
  for (int k = 0; k < 6; k++) {
    double want = 2 * (0.5 + (k % 3 == 0 ? x0(k + 2) : 0));
    CHECK(u.out[0][k] == want, "r[%d] = %g, want %g", k, u.out[0][k], want);
  }
  unload(&u);
  /* y = x.to(float32) is x: y += 1; x[1].to(float32).fill_(3); z = x.to(int64) * 2 (a copy); r = x * 2 */
  if (load(&u, "i15-fac-007-to-same-dtype-is-an-alias-written-through")) return;
  CHECK(at_tensor_dtype(u.r.outputs[1]) == AF_INT64, "z has dtype %d", at_tensor_dtype(u.r.outputs[1]));
  for (int k = 0; k < 6; k++) {
    double want = k < 3 ? x0(k) + 1 : 3;
    CHECK(u.in[0][k] == want, "x[%d] = %g, want %g", k, u.in[0][k], want);
    CHECK(u.out[0][k] == 2 * want && u.out[1][k] == 2 * want, "r[%d] = %g, z %g, want %g", k, u.out[0][k], u.out[1][k], 2 * want);
  }
  unload(&u);
}

/* c = torch.view_as_complex(x.unflatten(1, [2, 2])); c[:, 1] *= 2; c[2].neg_(); return x + 1,
 * torch.view_as_real(c): the pairs of x's rows are c's numbers, so the writes reach x */
TEST(complex_views_write_the_pairs_of_their_float_input) {
  run u;
  if (load(&u, "i15-cx-001-complex-view-written-through-select")) return;
  CHECK(u.out_rank[1] == 3 && u.out_shape[1][2] == 2, "view_as_real(c) has rank %d", u.out_rank[1]);
  for (int k = 0; k < 12; k++) {
    double want = x0(k) * (k % 4 >= 2 ? 2 : 1) * (k / 4 == 2 ? -1 : 1);
    CHECK(u.in[0][k] == want && u.out[0][k] == want + 1 && u.out[1][k] == want, "x[%d] = %g, x + 1 %g, pairs %g, want %g", k,
          u.in[0][k], u.out[0][k], u.out[1][k], want);
  }
  unload(&u);
}

/* A complex value never crosses the program's border: eager refuses one as an output (naming
 * torch.view_as_real), the codec a complex input */
TEST(a_complex_output_or_input_is_refused_with_view_as_real_named) {
  char *m = eager_rejection("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"x\", \"shape\": [3, 2], \"dtype\": \"float32\"}], "
                            "\"body\": [{\"out\": \"c\", \"op\": \"view_as_complex\", \"args\": [\"x\"]}, {\"op\": \"mul_\", \"args\": [\"c\", 2]}], "
                            "\"outputs\": [\"c\"]}");
  CHECK(m && strstr(m, "complex64") && strstr(m, "torch.view_as_real(c)"), "message: %s", m ? m : "(accepted)");
  free(m);
  ir_program *p;
  af_err err;
  const char *in = "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"z\", \"shape\": [3], \"dtype\": \"complex64\"}], "
                   "\"body\": [], \"outputs\": [\"z\"]}";
  CHECK(codec_read_string(in, "in", &p, &err) != 0 && strstr(err.msg, "view_as_complex"), "a complex input: %s", err.msg);
}

int main(void) {
  at_init();
  RUN(slice_assignment_into_an_input_zeroes_the_first_five_and_doubles);
  RUN(write_through_a_view_of_a_view_reaches_the_base);
  RUN(unsqueeze_inplace_gives_shape_5_5_1);
  RUN(reshape_of_a_noncontiguous_slice_is_a_copy);
  RUN(reshape_of_contiguous_rows_is_a_view);
  RUN(inplace_add_on_an_input_is_seen_by_the_sum_and_the_caller);
  RUN(eager_rejection_names_the_statement);
  RUN(a_loop_adds_v_to_every_row_through_the_loop_variable);
  RUN(a_rebind_cuts_the_alias_the_first_write_stays_in_the_caller);
  RUN(a_false_condition_runs_the_else_branch_and_the_alias_sees_it);
  RUN(a_list_holds_tensors_and_list_set_replaces_one);
  RUN(a_rebound_buffer_ends_as_its_new_binding);
  RUN(an_inner_trip_count_and_a_slice_bound_read_the_outer_loop_variable);
  RUN(uint8_wraps_and_int8_keeps_its_dtype_through_views);
  RUN(complex_views_write_the_pairs_of_their_float_input);
  RUN(a_complex_output_or_input_is_refused_with_view_as_real_named);
  RUN(a_loop_over_x_size_0_writes_every_row_and_a_size_after_unsqueeze_sees_the_new_shape);
  RUN(an_empty_tensor_is_filled_at_once_and_to_of_the_same_dtype_is_its_input);
  return tap_done();
}
