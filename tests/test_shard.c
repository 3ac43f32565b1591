/* test_shard.c - `fuzz --shard K/N` (issue 32, fuzz/campaign.h): what K/N reads as, and that N
 * shards of J jobs each run every iteration of the space exactly once, as the job loop
 * (campaign_job.c) and the pool's restarts (campaign_pool.c) step through it. */
#include <stdlib.h>
#include <string.h>

#include "../fuzz/campaign.h"
#include "tap.h"

TEST(shard_parse_reads_k_of_n_and_refuses_what_is_not_one) {
  int k = 0, n = 0;
  af_err err;
  CHECK(campaign_parse_shard("2/4", &k, &n, &err) == 0 && k == 2 && n == 4, "2/4: %d/%d", k, n);
  CHECK(campaign_parse_shard("1/1", &k, &n, &err) == 0 && k == 1 && n == 1, "1/1");
  CHECK(campaign_parse_shard("4/4", &k, &n, &err) == 0 && k == 4 && n == 4, "4/4");
  static const struct {
    const char *s, *says;
  } bad[] = {{"0/4", "K must be 1 to N"}, {"5/4", "K must be 1 to N"}, {"1/0", "N must be 1"}, {"x", "expected K/N"},
             {"2/", "expected K/N"},      {"/2", "expected K/N"},      {"1/4x", "expected K/N"}, {" 1/4", "expected K/N"},
             {"-1/4", "expected K/N"},    {"1.5/4", "expected K/N"},   {"", "expected K/N"},     {"1/4/8", "expected K/N"},
             {"99999999999/4", "expected K/N"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int r = campaign_parse_shard(bad[i].s, &k, &n, &err);
    CHECK(r != 0 && strstr(err.msg, bad[i].says) && strstr(err.msg, "--shard"), "'%s' -> %d: %s", bad[i].s, r, r ? err.msg : "accepted");
  }
}

/* Marks the iterations below limit that job j of o runs, from its first and on by its step. */
static void mark(const campaign_opts *o, int j, int64_t limit, int *seen) {
  for (int64_t it = campaign_first_iteration(o, j); it < limit; it += campaign_iteration_step(o)) seen[it]++;
}

TEST(shards_of_any_job_count_run_every_iteration_exactly_once) {
  enum { LIMIT = 997 };
  static const int shard_counts[] = {1, 2, 3, 4, 7}, job_counts[] = {1, 2, 3, 5};
  for (size_t a = 0; a < sizeof shard_counts / sizeof shard_counts[0]; a++)
    for (size_t b = 0; b < sizeof job_counts / sizeof job_counts[0]; b++) {
      int n = shard_counts[a], jobs = job_counts[b], seen[LIMIT] = {0}, bad = 0;
      for (int k = 1; k <= n; k++) {
        campaign_opts o = {.jobs = jobs, .shard = k, .shards = n};
        int mine[LIMIT] = {0};
        for (int j = 0; j < jobs; j++) mark(&o, j, LIMIT, mine);
        for (int it = 0; it < LIMIT; it++) {
          bad += mine[it] && it % n != k - 1; /* shard K runs only i % N == K-1 */
          seen[it] += mine[it];
        }
      }
      for (int it = 0; it < LIMIT; it++) bad += seen[it] != 1;
      CHECK(!bad, "%d shard(s) of %d job(s): %d iteration(s) run other than once by their own shard", n, jobs, bad);
    }
  campaign_opts plain = {.jobs = 3}; /* not sharded: job j from j, every 3rd */
  CHECK(campaign_first_iteration(&plain, 2) == 2 && campaign_iteration_step(&plain) == 3, "unsharded jobs stepped otherwise");
}

int main(void) {
  RUN(shard_parse_reads_k_of_n_and_refuses_what_is_not_one);
  RUN(shards_of_any_job_count_run_every_iteration_exactly_once);
  return tap_done();
}
