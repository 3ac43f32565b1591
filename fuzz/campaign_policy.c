/* campaign_policy.c - the converter-aware policy of a campaign (campaign_int.h; refusals.h): the
 * generator's policy of each program, as the campaign's policy with the chances of the constructs
 * the converter refuses by design down-weighted.
 *
 * Epochs. A refusal applies from an epoch: {"job": -1 (every job) or a job slot, "from": the first
 * iteration it applies to, "refusal": its name, "knob": the chance, "policy": the policy's fields
 * that differ from the defaults from then on}. A refusal declared certain applies to every job
 * from iteration 0; another one with a knob applies to a job slot from the iteration after its
 * job judged a program refused so (the job sends "G {epoch}" before that program's D line, and
 * goes on with the new policy). The parent records each epoch and keeps them in state.json
 * ("policy_epochs"), so that a job restarted after a crash, a resumed campaign and the parent's
 * regeneration of a lost program's iteration (campaign_pool.c) all give iteration i of job j
 * the program it ran: campaign_policy_at. Each program's meta records its own policy too (the
 * fields that differ from the defaults: `aliasfuzz gen --seed S` with it gives it back). The
 * epochs live in this process (a job is forked from the parent and starts with its copy). */
#include <stdlib.h>
#include <string.h>

#include "campaign_int.h"
#include "refusals.h"

static cJSON *epochs; /* the campaign's epochs, in the order they were recorded */

static const char *epoch_knob(const cJSON *e) { return cJSON_GetStringValue(cJSON_GetObjectItem(e, "knob")); }
static int epoch_job(const cJSON *e) { return (int)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "job")); }

/* The epoch of knob for job slot j (or for every job), or NULL. */
static const cJSON *find_epoch(int j, const char *knob) {
  const cJSON *e;
  cJSON_ArrayForEach(e, epochs) if ((epoch_job(e) == -1 || epoch_job(e) == j) && epoch_knob(e) && !strcmp(epoch_knob(e), knob)) return e;
  return NULL;
}

void campaign_policy_at(const campaign_opts *o, int j, int64_t it, gen_policy *out) {
  *out = o->policy;
  const char *done[32]; /* each knob once, at its first epoch */
  int nd = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, epochs) {
    const char *knob = epoch_knob(e);
    if (!knob || (epoch_job(e) != -1 && epoch_job(e) != j) || cJSON_GetNumberValue(cJSON_GetObjectItem(e, "from")) > (double)it) continue;
    int seen = 0;
    for (int k = 0; k < nd; k++) seen |= !strcmp(done[k], knob);
    if (seen || nd == 32) continue;
    done[nd++] = knob;
    (void)refusals_downweight(out, knob);
  }
}

/* Appends the epoch (j, from, r) with the policy job j has from then on. */
static cJSON *add_epoch(const campaign_opts *o, int j, int64_t from, const refusal *r) {
  if (!epochs) epochs = cJSON_CreateArray();
  cJSON *e = cJSON_CreateObject();
  cJSON_AddNumberToObject(e, "job", j);
  cJSON_AddNumberToObject(e, "from", (double)from);
  cJSON_AddStringToObject(e, "refusal", r->name);
  cJSON_AddStringToObject(e, "knob", r->knob);
  cJSON_AddItemToArray(epochs, e);
  gen_policy p;
  campaign_policy_at(o, j < 0 ? 0 : j, from, &p);
  char *diff = gen_policy_diff_json(&p);
  cJSON_AddItemToObject(e, "policy", cJSON_Parse(diff));
  free(diff);
  return e;
}

void campaign_policy_init(const campaign_opts *o, const conv_converter *c, const cJSON *loaded) {
  cJSON_Delete(epochs);
  epochs = loaded ? cJSON_Duplicate(loaded, 1) : cJSON_CreateArray();
  int n;
  const refusal *r = refusals_of(c, &n);
  for (int i = 0; i < n; i++)
    if (r[i].certain && r[i].knob && !find_epoch(-1, r[i].knob)) add_epoch(o, -1, 0, &r[i]);
}

int campaign_policy_learn(const campaign_opts *o, const conv_converter *c, int j, int64_t it, oracle_verdict v, const char *detail,
                          int fd) {
  if (!refusals_limit(c, v, detail)) return 0;
  /* a wrong result's refusal is in what the converter warned, not in the oracle's words (refusals.h) */
  const refusal *r = refusals_ran(v) ? refusals_warned(c, v, detail, NULL, NULL) : refusals_match(c, detail);
  if (!r || !r->knob || find_epoch(j, r->knob)) return 0;
  cJSON *e = add_epoch(o, j, it + 1, r);
  char *text = cJSON_PrintUnformatted(e);
  af_buf b = {0};
  af_buf_printf(&b, "G %s\n", text);
  campaign_wire_send(fd, b.s, b.len);
  af_buf_free(&b);
  cJSON_free(text);
  return 1;
}

void campaign_policy_record(const char *json) {
  cJSON *e = cJSON_Parse(json);
  if (!e) return;
  if (!epochs) epochs = cJSON_CreateArray();
  cJSON_AddItemToArray(epochs, e);
}

cJSON *campaign_policy_epochs(void) { return epochs ? cJSON_Duplicate(epochs, 1) : cJSON_CreateArray(); }

double campaign_job_allowance_rank(const campaign_opts *o, double t, double reduce_s, int rank) {
  if (rank <= 0 || o->reduce_share >= 1) return campaign_job_allowance(o, t, reduce_s);
  campaign_opts q = *o;
  q.reduce_share *= CAMPAIGN_SHARE_NOT_WRONG;
  return campaign_job_allowance(&q, t, reduce_s);
}

int campaign_exit_status(const campaign_summary *s, int with_baseline) {
  /* with a baseline only what it lacks fails the run: deferred programs the baseline fails the
   * same way are not new either */
  if (with_baseline) return s->new_classes || s->deferred_new ? 1 : s->harness ? 5 : 0;
  /* findings all in harness-artifact classes or the harness list (protocol errors, programs
   * aliasfuzz cannot hand over): no converter bug; what the converter refuses by design: its
   * limits, no bug either */
  int bugs = s->classes - s->artifact_classes - s->limit_classes;
  return bugs || s->deferred - s->deferred_limits > 0 || s->flaky ? 1 : s->harness || s->artifact_classes ? 5 : 0;
}
