/* test_shim.c - the LibTorch shim: errors become a status and a message, never an exception. */
#include <string.h>

#include "../harness/torch/shim.h"
#include "tap.h"

TEST(unknown_op_is_an_error_not_a_crash) {
  af_tensor *r[2];
  int n = 5;
  af_err err;
  CHECK(at_call("aten::no_such_op", "", 0, NULL, NULL, 2, r, &n, &err) == -1, "accepted");
  CHECK(strstr(err.msg, "aten::no_such_op") != NULL, "%s", err.msg);
  CHECK(n == 0, "no results");
}

TEST(libtorch_error_becomes_status_and_message) {
  double v[6] = {1, 2, 3, 4, 5, 6};
  int64_t sh[2] = {2, 3};
  af_tensor *x, *r[2];
  af_err err;
  CHECK(at_tensor_new(AF_FLOAT32, 2, sh, v, &x, &err) == 0, "%s", err.msg);
  at_arg a[3] = {{.kind = AT_ARG_TENSOR, .t = x}, {.kind = AT_ARG_INT, .i = 5}, {.kind = AT_ARG_INT, .i = 0}};
  int n;
  CHECK(at_call("aten::select", "int", 3, a, NULL, 2, r, &n, &err) == -1, "select(dim=5) of a 2-d tensor accepted");
  CHECK(strstr(err.msg, "range") != NULL || strstr(err.msg, "dim") != NULL, "message: %s", err.msg);
  /* wrong argument kind for the schema */
  at_arg b[2] = {{.kind = AT_ARG_TENSOR, .t = x}, {.kind = AT_ARG_TENSOR, .t = x}};
  CHECK(at_call("aten::unsqueeze", "", 2, b, NULL, 2, r, &n, &err) == -1, "tensor for an int accepted");
  CHECK(strstr(err.msg, "dim") != NULL, "message names the argument: %s", err.msg);
  at_tensor_free(x);
}

TEST(views_share_storage_and_inplace_ops_reach_the_base) {
  double v[4] = {1, 2, 3, 4};
  int64_t sh[1] = {4};
  af_tensor *x, *r[2], *res[2];
  af_err err;
  int n;
  at_tensor_new(AF_FLOAT32, 1, sh, v, &x, &err);
  at_arg a[5] = {{.kind = AT_ARG_TENSOR, .t = x}, {.kind = AT_ARG_INT, .i = 0}, {.kind = AT_ARG_INT, .i = 1},
                 {.kind = AT_ARG_NONE}, {.kind = AT_ARG_INT, .i = 2}};
  CHECK(at_call("aten::slice", "Tensor", 5, a, NULL, 2, r, &n, &err) == 0 && n == 1, "%s", err.msg);
  CHECK(at_tensor_shares_storage(x, r[0]), "slice is a view");
  at_arg b[2] = {{.kind = AT_ARG_TENSOR, .t = r[0]}, {.kind = AT_ARG_INT, .i = 10}};
  CHECK(at_call("aten::add_", "Scalar", 2, b, NULL, 2, res, &n, &err) == 0, "%s", err.msg);
  double out[4];
  at_tensor_values(x, out, &err);
  CHECK(out[0] == 1 && out[1] == 12 && out[2] == 3 && out[3] == 14, "x = %g %g %g %g", out[0], out[1], out[2], out[3]);
  at_tensor_free(res[0]);
  at_tensor_free(r[0]);
  at_tensor_free(x);
}

TEST(torchscript_syntax_error_is_reported) {
  at_script *s = (at_script *)1;
  af_err err;
  CHECK(at_script_compile("def program(x: Tensor) -> Tensor:\n    return x +\n", "program", &s, &err) == -1, "accepted");
  CHECK(s == NULL, "no handle on failure");
  CHECK(strlen(err.msg) > 0, "empty message");
  CHECK(at_script_compile("def other(x: Tensor) -> Tensor:\n    return x\n", "program", &s, &err) == -1,
        "missing function accepted");
}

TEST(torchscript_runtime_error_is_reported) {
  at_script *s;
  af_err err;
  CHECK(at_script_compile("def program(x: Tensor) -> Tensor:\n    return x.view([7])\n", "program", &s, &err) == 0, "%s",
        err.msg);
  double v[4] = {0};
  int64_t sh[1] = {4};
  af_tensor *x, *o[2];
  int n;
  at_tensor_new(AF_FLOAT32, 1, sh, v, &x, &err);
  CHECK(at_script_run(s, 1, &x, 2, o, &n, &err) == -1, "view of 4 elements as 7 accepted");
  CHECK(strstr(err.msg, "shape") != NULL || strstr(err.msg, "invalid") != NULL, "%s", err.msg);
  at_tensor_free(x);
  at_script_free(s);
}

int main(void) {
  at_init();
  RUN(unknown_op_is_an_error_not_a_crash);
  RUN(libtorch_error_becomes_status_and_message);
  RUN(views_share_storage_and_inplace_ops_reach_the_base);
  RUN(torchscript_syntax_error_is_reported);
  RUN(torchscript_runtime_error_is_reported);
  return tap_done();
}
