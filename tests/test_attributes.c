/* test_attributes.c - module state held in plain tensor attributes (issue 29): `self.t =
 * torch.zeros(3)` in __init__, not register_buffer. The codec's "attribute" field, the emitters
 * (TorchScript module, snippet.py, repro.py), eager and the in-process TorchScript converter (a
 * plain attribute holds its tensor as a buffer does), the generator's draw (from a stream of its
 * own: the program is otherwise the same) and the reducer's attribute-as-buffer pass. The
 * converters that see the difference (torch.export) are in test_workers2x `attributes`. */
#include <stdlib.h>
#include <string.h>

#include "../fuzz/gen.h"
#include "../fuzz/reduce.h"
#include "../harness/codec.h"
#include "../harness/converters/conv.h"
#include "../harness/eager.h"
#include "../harness/emit.h"
#include "../harness/emit_repro.h"
#include "../harness/emit_snippet.h"
#include "../harness/ops/ops.h"
#include "../harness/torch/shim.h"
#include "../oracle/oracle.h"
#include "tap.h"

/* self.t = self.t + x (a rebind of the attribute) after self.t[0].add_(1) (a write through a
 * view): both kinds of state change. KIND is "attribute" or "buffer". */
#define ATTR_PROGRAM(KIND)                                                                                  \
  "{\"format\": \"aliasfuzz-program/1\", \"inputs\": ["                                                     \
  "{\"name\": \"t\", \"shape\": [2, 3], \"dtype\": \"float32\", \"" KIND "\": true},"                       \
  "{\"name\": \"x\", \"shape\": [3], \"dtype\": \"float32\"}],"                                             \
  "\"body\": [{\"out\": \"v\", \"op\": \"select\", \"args\": [\"t\", 0, 0]}, {\"op\": \"add_\", \"args\": [\"v\", 1]}," \
  "{\"out\": \"t\", \"op\": \"add\", \"args\": [\"t\", \"x\"]}, {\"out\": \"y\", \"op\": \"mul\", \"args\": [\"t\", 2]}]," \
  "\"outputs\": [\"y\"]}"

static ir_program *read_text(const char *text) {
  ir_program *p = NULL;
  af_err err;
  CHECK(codec_read_string(text, "attr", &p, &err) == 0, "reads: %s", err.msg);
  return p;
}

TEST(codec_reads_an_attribute_as_module_state_of_its_own_kind_and_writes_it_back) {
  ir_program *p = read_text(ATTR_PROGRAM("attribute"));
  if (!p) return;
  CHECK(p->inputs[0].attr && p->inputs[0].buffer && !p->inputs[0].param && ir_nbuffers(p) == 1,
        "an attribute is module state (buffer set), attr 1");
  char *a = codec_write_string(p);
  CHECK(strstr(a, "\"attribute\": true") && !strstr(a, "\"buffer\""), "written as an attribute: %s", a);
  ir_program *q = read_text(a), *c = ir_program_clone(p), *s = ir_subset(p, NULL, NULL, NULL);
  if (q) {
    char *b = codec_write_string(q);
    CHECK(strcmp(a, b) == 0, "read-then-write is byte-identical");
    free(b);
  }
  CHECK(c->inputs[0].attr && s && s->inputs[0].attr, "a clone and ir_subset keep the kind");
  ir_program_free(q);
  ir_program_free(c);
  ir_program_free(s);
  free(a);
  ir_program_free(p);
}

TEST(codec_refuses_a_malformed_attribute_naming_the_field) {
  static const char *const bad[][2] = {
      {"\"attribute\": 1", "attribute: expected true or false"},
      {"\"attribute\": true, \"buffer\": true", "give no \"buffer\" or \"param\" beside it"},
      {"\"buffer\": true, \"attribute\": true", "give no \"buffer\" or \"param\" beside it"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char text[512];
    snprintf(text, sizeof text,
             "{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"t\", \"shape\": [3], \"dtype\": \"float32\", %s}], "
             "\"body\": [{\"out\": \"y\", \"op\": \"mul\", \"args\": [\"t\", 2]}], \"outputs\": [\"y\"]}",
             bad[k][0]);
    ir_program *p = NULL;
    af_err err;
    int rc = codec_read_string(text, "bad", &p, &err);
    CHECK(rc != 0 && strstr(err.msg, bad[k][1]) && strstr(err.msg, "inputs[0]"), "%s: refused naming it: %s", bad[k][0],
          rc ? err.msg : "accepted");
    ir_program_free(p);
  }
  /* "attribute": false is a plain input; the IR refuses an attribute that is no module state */
  ir_program *p = read_text("{\"format\": \"aliasfuzz-program/1\", \"inputs\": [{\"name\": \"t\", \"shape\": [3], \"dtype\": "
                            "\"float32\", \"attribute\": false}], \"body\": [], \"outputs\": [\"t\"]}");
  if (!p) return;
  CHECK(!p->inputs[0].attr && !p->inputs[0].buffer, "attribute false: a plain input");
  p->inputs[0].attr = 1;
  af_err err;
  CHECK(ir_validate(p, &err) != 0 && strstr(err.msg, "plain tensor attribute"), "ir_validate: %s", err.msg);
  ir_program_free(p);
}

TEST(emitters_spell_an_attribute_as_self_name_set_in_init_not_a_registered_buffer) {
  ir_program *p = read_text(ATTR_PROGRAM("attribute"));
  if (!p) return;
  char *ts = emit_torchscript(p, "program");
  CHECK(strstr(ts, "def forward(self, x: Tensor)") && strstr(ts, "self.t = torch.add(self.t, x)"), "module source: %s", ts);
  af_err err;
  /* snippet.py: the converters whose stock API takes a module are 2.x ones (test_snippet attributes runs it) */
  char *snip = atoi(at_version()) >= 2 ? emit_snippet_py(p, "export", "input-mutation-lost", &err) : NULL;
  if (atoi(at_version()) >= 2)
    CHECK(snip && strstr(snip, "self.t = t") && !strstr(snip, "register_buffer"), "snippet.py: %s", snip ? snip : err.msg);
  repro_info ri = {"jit", "", "input-mutation-lost", NULL, conv_find("jit") ? conv_find("jit")->repro_py : NULL, NULL,
                   "test_attributes"};
  char *repro = emit_repro_py(p, &ri);
  CHECK(strstr(repro, "\nBUFFERS = [0]") && strstr(repro, "\nATTRIBUTES = [0]") && strstr(repro, "elif i in ATTRIBUTES"),
        "repro.py lists the attribute and builds it with setattr");
  free(ts);
  free(snip);
  free(repro);
  ir_program_free(p);
}

/* Eager and the in-process TorchScript module (the shim registers a plain attribute) give what
 * they give for the buffer form, and ref/jit pass: the kind matters only to converters that
 * treat module state by its registration. */
TEST(eager_and_torchscript_hold_an_attribute_as_they_hold_a_buffer) {
  ir_program *pa = read_text(ATTR_PROGRAM("attribute")), *pb = read_text(ATTR_PROGRAM("buffer"));
  if (!pa || !pb) goto out;
  result ea, eb;
  result_init(&ea);
  result_init(&eb);
  af_err err;
  CHECK(eager_run(pa, &ea, &err) == 0 && eager_run(pb, &eb, &err) == 0, "eager runs both: %s", err.msg);
  char *detail = NULL;
  CHECK(ea.status == RESULT_OK && oracle_judge(pb, &eb, &ea, NULL, &detail) == V_PASS, "eager: the same outputs and final state (%s)",
        detail ? detail : "");
  free(detail);
  double v[6];
  CHECK(ea.ninputs == 2 && at_tensor_values(ea.inputs[0], v, &err) == 0 && v[0] == ir_input_value(&pa->inputs[0], 0, 0) + 1 +
                                                                                        ir_input_value(&pa->inputs[1], 1, 0),
        "the attribute's final binding: t[0, 0] + 1 + x[0]");
  static const char *const convs[] = {"ref", "jit", "script", "functionalize"};
  for (size_t k = 0; k < sizeof convs / sizeof convs[0]; k++) {
    result r;
    const conv_converter *c = conv_find(convs[k]);
    if (!c) continue;
    CHECK(conv_execute(c, pa, &r, &err) == 0, "%s runs: %s", convs[k], err.msg);
    detail = NULL;
    oracle_verdict vd = oracle_judge(pa, &ea, &r, NULL, &detail);
    CHECK(vd == V_PASS, "%s passes on the attribute: %s (%s)", convs[k], oracle_verdict_name(vd),
          r.message ? r.message : detail ? detail : "");
    free(detail);
    result_clear(&r);
  }
  result_clear(&ea);
  result_clear(&eb);
out:
  ir_program_free(pa);
  ir_program_free(pb);
}

TEST(generator_draws_attributes_from_a_stream_of_their_own_and_changes_nothing_else) {
  gen_policy on, off;
  gen_policy_default(&on);
  off = on;
  off.p_attribute = 0;
  CHECK(on.p_attribute > 0 && on.p_attribute < 1, "the default policy weighs attributes modestly (%g)", on.p_attribute);
  int attrs = 0, buffers = 0, same = 1;
  for (uint64_t seed = 1; seed <= 600; seed++) {
    ir_program *a = NULL, *b = NULL;
    af_err err;
    if (gen_program(&on, seed, &a, &err) || gen_program(&off, seed, &b, &err)) {
      CHECK(0, "seed %llu: %s", (unsigned long long)seed, err.msg);
      ir_program_free(a);
      break;
    }
    for (int i = 0; i < a->ninputs; i++) {
      attrs += a->inputs[i].attr;
      buffers += a->inputs[i].buffer;
      a->inputs[i].attr = 0; /* the only difference */
    }
    free(a->meta), free(b->meta); /* (the policy diff names p_attribute) */
    a->meta = b->meta = NULL;
    char *ta = codec_write_string(a), *tb = codec_write_string(b);
    same &= strcmp(ta, tb) == 0;
    free(ta);
    free(tb);
    ir_program_free(a);
    ir_program_free(b);
  }
  CHECK(attrs > 0 && attrs < buffers, "600 default programs: %d of %d module state entries are attributes", attrs, buffers);
  CHECK(same, "with the attributes made buffers again, every program is the one p_attribute 0 makes");
}

/* The reducer's attribute-as-buffer pass: a finding that needs the attribute keeps it; one that
 * does not ends with a registered buffer. */
static int has_add_(const ir_program *cand, void *need_attr) {
  int add = 0, attr = 0;
  for (int s = 0; s < cand->nstmts; s++) add |= cand->stmts[s].op == ops_find("add_");
  for (int i = 0; i < cand->ninputs; i++) attr |= cand->inputs[i].attr;
  return add && (!*(int *)need_attr || attr);
}

TEST(reducer_turns_an_attribute_into_a_buffer_unless_the_finding_needs_it) {
  ir_program *p = read_text(ATTR_PROGRAM("attribute"));
  if (!p) return;
  for (int need = 0; need < 2; need++) {
    ir_program *min = NULL;
    reduce_stats st;
    reduce_program(p, has_add_, &need, 500, &min, &st);
    int attr = 0;
    for (int i = 0; min && i < min->ninputs; i++) attr |= min->inputs[i].attr;
    CHECK(min && attr == need, "needs the attribute %d: the minimized program has one %d", need, attr);
    if (min != p) ir_program_free(min);
  }
  ir_program_free(p);
}

int main(void) {
  RUN(codec_reads_an_attribute_as_module_state_of_its_own_kind_and_writes_it_back);
  RUN(codec_refuses_a_malformed_attribute_naming_the_field);
  RUN(emitters_spell_an_attribute_as_self_name_set_in_init_not_a_registered_buffer);
  RUN(eager_and_torchscript_hold_an_attribute_as_they_hold_a_buffer);
  RUN(generator_draws_attributes_from_a_stream_of_their_own_and_changes_nothing_else);
  RUN(reducer_turns_an_attribute_into_a_buffer_unless_the_finding_needs_it);
  return tap_done();
}
