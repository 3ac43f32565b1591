/* gen_train.c - see gen_train.h */
#include "gen_train.h"

#include <stdlib.h>

#include "../harness/eager.h"

static uint64_t mix(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Whether eager runs q to the end, backward included, under autograd's rules; *reached: whether
 * the backward gave some input a .grad. */
static int eager_accepts(const ir_program *q, int *reached) {
  af_err err;
  result r;
  *reached = 0;
  if (ir_validate(q, &err)) return 0;
  result_init(&r);
  int ok = eager_run(q, &r, &err) == 0 && r.status == RESULT_OK;
  for (int i = 0; ok && i < r.ngrads; i++) *reached |= r.grads[i] != NULL;
  result_clear(&r);
  return ok;
}

static int is_candidate(const ir_input *in) {
  return (in->dtype == AF_FLOAT32 || in->dtype == AF_FLOAT64) && !in->base && !in->ndata;
}

int gen_train(ir_program *p, uint64_t seed, double p_share) {
  uint64_t s = seed;
  if (p_share <= 0 || p->train || (double)(mix(&s) >> 11) / 9007199254740992.0 >= p_share) return 0;
  int kept = 0, reached = 0;
  ir_program *q = ir_program_clone(p);
  q->train = 1;
  q->loss = af_xcalloc((size_t)q->noutputs + 1, sizeof(double));
  for (int o = 0; o < q->noutputs; o++) q->loss[o] = (double)(1 + mix(&s) % 3);
  for (int i = 0; i < q->ninputs; i++) {
    ir_input *in = &q->inputs[i];
    if (!is_candidate(in)) continue;
    in->grad = 1;
    in->param = in->buffer;
    int r;
    if (eager_accepts(q, &r)) {
      kept++;
      reached |= r;
    } else {
      in->grad = in->param = 0;
    }
  }
  if (kept && reached) {
    p->train = 1;
    p->loss = q->loss;
    q->loss = NULL;
    for (int i = 0; i < p->ninputs; i++) p->inputs[i].grad = q->inputs[i].grad, p->inputs[i].param = q->inputs[i].param;
  }
  ir_program_free(q);
  return kept && reached;
}
