/* campaign_batch.c - `fuzz --batch K` (issue 32, fuzz/batch.h, docs/batching.md): a job judges
 * its next programs K at a time, combined into one program, where the converter's fixed cost per
 * conversion dominates.
 *
 * The job's loop stays as it is, one iteration at a time (B line, program, judgement, failing
 * program, D line): only the judgement comes from campaign_batch_judge. When iteration it's
 * program may be combined and no judgement of it is cached, the job generates the programs of its
 * next iterations (it + step, it + 2 step, ...: the same programs the loop makes there) until it holds K
 * combinable ones (looking at most 2K iterations ahead), judges them as a batch (batch_judge) and
 * caches the judgements of the later ones, each with its program's text: the loop takes a cached
 * judgement only for the very program it made (the policy may change between, issue 34). So
 * every finding is the judgement of its own program, made by the same loop as with --batch 1.
 *
 * The parent's per-program deadline is n times --deadline while the job judges n programs
 * combined ("N n LAST" lines, LAST the batch's last iteration; "N 0" when the batch is judged;
 * campaign_int.h). A job killed (deadline) or dead (a crash of the job's own process) inside a
 * batch is charged to no program: the parent starts the next job process at the same iteration
 * with every program up to LAST judged alone (campaign_batch_alone_before), so that the program
 * that hangs or crashes is charged by the per-program path, as with --batch 1, and not the
 * batch's first program. A combined request carries no iteration tag, so a worker crash traced
 * back to it is not charged to any program (conv_worker.h, crash attribution). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "../harness/converters/conv_worker.h"
#include "batch.h"
#include "campaign_int.h"

int campaign_batch_size(const campaign_opts *o, const conv_converter *c) {
  if (!conv_worker_of(c)) return 1; /* in process: nothing to save, and a crash takes the job */
  int k = o->batch > 0 ? o->batch : conv_worker_batch_default(c);
  if (k < 1) k = 1;
  return k > BATCH_MAX ? BATCH_MAX : k;
}

/* Iterations before this one are judged alone (campaign_pool.c, after a job died inside a batch). */
static int64_t alone_before;

void campaign_batch_alone_before(int64_t it) { alone_before = it; }

/* The judgements of later iterations this job judged in a batch (one job per process). */
typedef struct cached {
  int64_t it;
  char *text; /* its program's canonical JSON */
  judgement j;
} cached;
static cached cache[BATCH_MAX];
static int ncache;

static void cache_clear(void) {
  for (int i = 0; i < ncache; i++) {
    free(cache[i].text);
    judgement_clear(&cache[i].j);
  }
  ncache = 0;
}

typedef struct judge_ctx {
  const conv_converter *c;
  const oracle_opts *oo;
  int fd;
  const char *const *tags; /* each program's iteration tag ("it seed") */
  int64_t last;            /* the batch's last iteration */
} judge_ctx;

/* batch_judge's judge: the parent's deadline for n programs, the worker's tag (none for a
 * combined program), the judgement (a harness error is an invalid program, as in the job). */
static void judge_one(void *vctx, const ir_program *p, int n, int idx, judgement *out) {
  judge_ctx *x = vctx;
  char line[64];
  int len = snprintf(line, sizeof line, "N %d %lld\n", n, (long long)x->last);
  campaign_wire_send(x->fd, line, (size_t)len);
  conv_worker *w = conv_worker_of(x->c);
  if (w) conv_worker_set_tag(w, n == 1 ? x->tags[idx] : NULL);
  af_err err;
  if (judge_inprocess(x->c, p, x->oo, out, &err)) {
    out->verdict = V_INVALID_PROGRAM;
    out->detail = af_xstrdup(err.msg);
  }
}

int campaign_batch_judge(const campaign_opts *o, const conv_converter *c, const oracle_opts *oo, int64_t it, int64_t step,
                         const char *tag0, const ir_program *p, int fd, judgement *j, af_err *err) {
  int k = campaign_batch_size(o, c);
  memset(j, 0, sizeof *j);
  if (k <= 1 || batch_alone_reason(p) || it < alone_before) return judge_inprocess(c, p, oo, j, err);
  char *text = codec_write_string(p);
  for (int i = 0; i < ncache; i++)
    if (cache[i].it == it && !strcmp(cache[i].text, text)) {
      *j = cache[i].j;
      memset(&cache[i].j, 0, sizeof cache[i].j);
      free(text);
      return 0;
    }
  cache_clear();
  /* this program and the next combinable ones of this job */
  const ir_program *ps[BATCH_MAX];
  ir_program *own[BATCH_MAX];
  char *texts[BATCH_MAX], *tags[BATCH_MAX];
  int64_t its[BATCH_MAX];
  int n = 1;
  ps[0] = p;
  own[0] = NULL;
  texts[0] = text;
  its[0] = it;
  tags[0] = af_xstrdup(tag0 ? tag0 : "");
  for (int64_t q = it + step, looked = 0; n < k && looked < 2 * k && (o->iterations == 0 || q < o->iterations); q += step, looked++) {
    uint64_t seed = campaign_program_seed(o->seed, q);
    ir_program *r = NULL;
    af_err e2;
    if (judge_gen_program(&o->policy, seed, &r, &seed, NULL, &e2)) continue;
    if (batch_alone_reason(r)) {
      ir_program_free(r);
      continue;
    }
    campaign_job_stamp_meta(r, o, q, seed);
    char tag[64];
    snprintf(tag, sizeof tag, "%lld %llu", (long long)q, (unsigned long long)seed);
    ps[n] = own[n] = r;
    texts[n] = codec_write_string(r);
    tags[n] = af_xstrdup(tag);
    its[n++] = q;
  }
  judgement js[BATCH_MAX];
  judge_ctx x = {c, oo, fd, (const char *const *)tags, its[n - 1]};
  batch_judge(ps, n, judge_one, &x, js, NULL);
  campaign_wire_send(fd, "N 0 0\n", 6); /* the batch is judged: the per-program deadline again */
  if (conv_worker_of(c)) conv_worker_set_tag(conv_worker_of(c), tags[0]);
  *j = js[0];
  for (int i = 1; i < n; i++) {
    cache[ncache++] = (cached){its[i], texts[i], js[i]};
    ir_program_free(own[i]);
  }
  for (int i = 0; i < n; i++) free(tags[i]);
  free(texts[0]);
  (void)err;
  return 0;
}
