/* gen_rng.h - the splitmix64 stream the generator's passes draw from (gen_layout.c, gen_sizes.c,
 * gen_stats.c, gen_dtview.c, gen_train.c): each pass seeds its own state, so a program a pass leaves
 * alone is byte for byte what it was. */
#ifndef GEN_RNG_H
#define GEN_RNG_H
#include <stdint.h>

/* The next 64 bits of stream s (splitmix64). */
static inline uint64_t gen_rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
/* A double in [0, 1) from the next 53 bits. */
static inline double gen_rng_unit(uint64_t *s) { return (double)(gen_rng_next(s) >> 11) / 9007199254740992.0; }
#endif
