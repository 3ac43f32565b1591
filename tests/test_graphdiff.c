/* test_graphdiff.c - the locus of a regression: the ops a converter's graph changed against its
 * baseline's (fuzz/graphdiff.h), on graph texts as the converters print them. */
#include <stdlib.h>
#include <string.h>

#include "../fuzz/classes.h"
#include "../fuzz/graphdiff.h"
#include "tap.h"

/* functorch's graph of `x[2:4:3, 2:3, ...] = 1.0` (FX code, as worker_functorch answers it) */
static const char *FX_BASE =
    "def forward(self, arg0_1):\n"
    "    slice_1 = torch.ops.aten.slice.Tensor(arg0_1, 0, 2, 4, 3)\n"
    "    slice_2 = torch.ops.aten.slice.Tensor(slice_1, 1, 2, 3);  slice_1 = None\n"
    "    _tensor_constant0 = self._tensor_constant0\n"
    "    copy = torch.ops.aten.copy.default(slice_2, _tensor_constant0);  slice_2 = _tensor_constant0 = None\n"
    "    slice_3 = torch.ops.aten.slice.Tensor(arg0_1, 0, 2, 4, 3)\n"
    "    slice_scatter = torch.ops.aten.slice_scatter.default(slice_3, copy, 1, 2, 3);  slice_3 = copy = None\n"
    "    slice_scatter_1 = torch.ops.aten.slice_scatter.default(arg0_1, slice_scatter, 0, 2, 4, 3);  slice_scatter = None\n"
    "    slice_4 = torch.ops.aten.slice.Tensor(slice_scatter_1, 0, 2, 4, 3)\n"
    "    copy_ = torch.ops.aten.copy_.default(arg0_1, slice_scatter_1);  arg0_1 = slice_scatter_1 = copy_ = None\n"
    "    return None\n";

static char *edit(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  if (!at) return NULL;
  size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
  char *r = malloc(n);
  snprintf(r, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  return r;
}

TEST(same_graph_has_no_locus) {
  CHECK(graphdiff_locus(FX_BASE, FX_BASE) == NULL, "identical graphs differ nowhere");
  CHECK(graphdiff_locus(NULL, FX_BASE) == NULL && graphdiff_locus(FX_BASE, "") == NULL, "a missing graph has no locus");
  /* names, numbering and liveness notes are not part of a line */
  char *renamed = edit(FX_BASE, "slice_4 = torch.ops.aten.slice.Tensor(slice_scatter_1, 0, 2, 4, 3)",
                       "slice_7 = torch.ops.aten.slice.Tensor(slice_scatter_1, 0, 2, 4, 3);  slice_7 = None");
  CHECK(renamed && graphdiff_locus(FX_BASE, renamed) == NULL, "a renamed value with a liveness note is the same graph");
  free(renamed);
}

TEST(a_changed_offset_is_its_op_folded) {
  /* the scatter at start+1 (a wrong offset): one line changed, the view inverses fold into one */
  char *cand = edit(FX_BASE, "slice_scatter.default(arg0_1, slice_scatter, 0, 2, 4, 3)", "slice_scatter.default(arg0_1, slice_scatter, 0, 3, 5, 3)");
  char *l = graphdiff_locus(FX_BASE, cand);
  CHECK(l && !strcmp(l, "view_scatter"), "locus %s", l ? l : "(none)");
  free(l), free(cand);
}

TEST(a_removed_node_is_that_node_not_its_users) {
  /* the scatter replaced by its base: its users now read the base, but the locus is the scatter */
  char *c1 = edit(FX_BASE, "    slice_scatter_1 = torch.ops.aten.slice_scatter.default(arg0_1, slice_scatter, 0, 2, 4, 3);  slice_scatter = None\n", "");
  char *c2 = c1 ? edit(c1, "slice.Tensor(slice_scatter_1, 0, 2, 4, 3)", "slice.Tensor(arg0_1, 0, 2, 4, 3)") : NULL;
  char *c3 = c2 ? edit(c2, "copy_.default(arg0_1, slice_scatter_1)", "copy_.default(arg0_1, arg0_1)") : NULL;
  char *l = c3 ? graphdiff_locus(FX_BASE, c3) : NULL;
  CHECK(l && !strcmp(l, "view_scatter"), "locus %s", l ? l : "(none)");
  free(l);
  /* the copy_ back into the input dropped */
  char *c4 = edit(FX_BASE, "    copy_ = torch.ops.aten.copy_.default(arg0_1, slice_scatter_1);  arg0_1 = slice_scatter_1 = copy_ = None\n", "");
  l = c4 ? graphdiff_locus(FX_BASE, c4) : NULL;
  CHECK(l && !strcmp(l, "copy_"), "locus %s", l ? l : "(none)");
  free(l), free(c1), free(c2), free(c3), free(c4);
}

TEST(a_node_fed_another_value_shows_at_the_second_level) {
  /* the copy_ into the input takes the value before the scatter (same constants, another source) */
  char *cand = edit(FX_BASE, "copy_.default(arg0_1, slice_scatter_1)", "copy_.default(arg0_1, slice_scatter)");
  char *l = graphdiff_locus(FX_BASE, cand);
  CHECK(l && !strcmp(l, "copy_"), "locus %s", l ? l : "(none)");
  free(l), free(cand);
}

TEST(another_converters_lowering_has_no_locus) {
  /* naive (the program as written) against ref (its own functional program): two lowerings */
  const char *naive = "def program(x: Tensor) -> Tensor:\n    x_1 = x[None]\n    x_2 = torch.div(x_1, 0.0)\n    return x\n";
  const char *ref = "def program(x: Tensor) -> Tuple[Tensor, Tensor]:\n    tmp_1 = x.unsqueeze(0)\n    tmp_2 = torch.div(tmp_1, 0.0)\n"
                    "    x_1 = tmp_2.squeeze(0)\n    return (x_1, x_1)\n";
  char *l = graphdiff_locus(ref, naive);
  CHECK(l == NULL, "two converters' graphs localize nothing: %s", l ? l : "(none)");
  free(l);
}

TEST(torchscript_and_onnx_text) {
  const char *ts =
      "graph(%x.1 : Tensor):\n"
      "  %2 : int = prim::Constant[value=1]()\n"
      "  %3 : int = prim::Constant[value=0]()\n"
      "  %5 : Tensor = aten::slice(%x.1, %3, %3, %2, %2)\n"
      "  %6 : Tensor = aten::add_(%5, %2, %2)\n"
      "  return (%x.1)\n";
  char *ts2 = edit(ts, "%6 : Tensor = aten::add_(%5, %2, %2)\n", "");
  char *l = graphdiff_locus(ts, ts2);
  CHECK(l && !strcmp(l, "add_"), "TorchScript IR locus %s", l ? l : "(none)");
  free(l), free(ts2);
  char *ts3 = edit(ts, "prim::Constant[value=0]", "prim::Constant[value=2]");
  l = graphdiff_locus(ts, ts3);
  CHECK(l && !strcmp(l, "Constant"), "a changed constant: locus %s", l ? l : "(none)");
  free(l), free(ts3);
  char op[128];
  graphdiff_line_op("%5 : Float(2, 3, strides=[3, 1]) = onnx::ScatterND(%x, %idx, %upd)", op, sizeof op);
  CHECK(!strcmp(op, "ScatterND"), "ONNX line op %s", op);
  graphdiff_line_op("copy_ = torch.ops.aten.copy_.default(arg0_1, x)", op, sizeof op);
  CHECK(!strcmp(op, "copy_"), "FX line op %s", op);
  graphdiff_line_op("return None", op, sizeof op);
  CHECK(!strcmp(op, ""), "a line without a call has no op: %s", op);
}

/* Two new members of different patterns (a setitem on the input, a write through narrow) whose
 * graphs differ from the baseline's in the same op are one class; without a graph change (no
 * baseline graph) they are two. A known member never joins a graph-change class. */
TEST(new_members_with_one_graph_change_are_one_class) {
  for (int with_change = 0; with_change < 2; with_change++) {
    cJSON *idx = classes_index_load("/nonexistent-aliasfuzz-dir", NULL);
    CHECK(idx != NULL, "an empty index");
    if (!idx) return;
    const char *change = with_change ? "view_scatter" : NULL;
    classes_member a = {"planted", V_VALUE_MISMATCH, "element 1 is 2, eager 3", "setitem@in", "f1", 1, NULL, 3, 3, 1, 1, 0,
                        "value-mismatch|input|baseline:new", change};
    classes_member b = {"planted", V_INPUT_MUTATION_LOST, "input x differs", "narrow write@view-of-in", "f2", 2, NULL, 3, 3, 2, 2, 0,
                        "input-mutation-lost|input|baseline:new", change};
    classes_member k = {"planted", V_VALUE_MISMATCH, "element 1 is 2, eager 3", "setitem@in", "f3", 1, NULL, 3, 3, 3, 3, 0,
                        "value-mismatch|input|baseline:known", change};
    int na = 0, nb = 0, nk = 0;
    cJSON *ca = classes_index_add(idx, &a, &na), *cb = classes_index_add(idx, &b, &nb), *ck = classes_index_add(idx, &k, &nk);
    CHECK(na && nk, "the first member and the known one found classes");
    if (with_change) {
      CHECK(ca == cb && !nb, "one graph change, one class (%d classes)", classes_index_count(idx));
      CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(ca, "graph_change")), "view_scatter"), "the class says its change");
      CHECK(classes_index_count_change(idx, "view_scatter", 0, 9) == ca, "a program of that change is counted there");
      CHECK(classes_index_count_change(idx, "copy_", 0, 10) == NULL, "another change has no class");
    } else {
      CHECK(ca != cb && nb, "without a graph change the two patterns are two classes");
    }
    CHECK(ck != ca && ck != cb, "a member the baseline also has never joins a new class");
    cJSON_Delete(idx);
  }
}

int main(void) {
  RUN(new_members_with_one_graph_change_are_one_class);
  RUN(same_graph_has_no_locus);
  RUN(a_changed_offset_is_its_op_folded);
  RUN(a_removed_node_is_that_node_not_its_users);
  RUN(a_node_fed_another_value_shows_at_the_second_level);
  RUN(another_converters_lowering_has_no_locus);
  RUN(torchscript_and_onnx_text);
  return tap_done();
}
