/* provider.h - the generator's choice source: every decision the generator makes is one call
 * here, answered either by a seeded PRNG or by a byte string (libFuzzer/AFL++ input), in the
 * style of libFuzzer's FuzzedDataProvider.
 *
 * Byte mode reads the bytes front to back, one small group per decision (a range of at most
 * 256 values takes one byte, up to 65536 two, and so on; a chance takes one byte), so changing
 * one byte changes one decision and, through it, only what depends on it. When the bytes run
 * out, every decision takes its default: the low end of a range, "no" for a chance. An empty
 * string is therefore a valid input and gives the smallest program the policy allows. */
#ifndef PROVIDER_H
#define PROVIDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct provider {
  int bytes_mode;
  uint64_t s[4];       /* xoshiro256** state (PRNG mode) */
  const uint8_t *data; /* borrowed (byte mode) */
  size_t len, pos;
  uint64_t draws;      /* number of decisions taken */
} provider;

/* PRNG mode; the state is splitmix64-expanded from seed, so neighbouring seeds are unrelated. */
void provider_init_seed(provider *p, uint64_t seed);
/* Byte mode over data[0..len) (borrowed: must outlive the provider's use). */
void provider_init_bytes(provider *p, const uint8_t *data, size_t len);

/* Uniform integer in [lo, hi] (lo when hi <= lo). */
int64_t provider_range(provider *p, int64_t lo, int64_t hi);
/* True with probability prob (0..1). */
int provider_chance(provider *p, double prob);
/* Index in [0, n) drawn with the given non-negative weights; -1 when every weight is 0. */
int provider_weighted(provider *p, const double *w, int n);
/* The same draw as provider_weighted(p, w, n) from the running sums of those weights, summed in
 * index order (cum[i] = w[0] + ... + w[i]; an index whose sum does not grow has weight 0): a
 * binary search instead of two passes, for long weight lists drawn from again and again (the
 * generator's op lists). */
int provider_weighted_cum(provider *p, const double *cum, int n);
/* Bytes still unread (byte mode); 0 in PRNG mode. */
size_t provider_remaining(const provider *p);

/* 64-bit FNV-1a of data (used to name byte-driven programs). */
uint64_t provider_fnv1a(const uint8_t *data, size_t len);

#endif
