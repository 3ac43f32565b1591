/* provider.c - see provider.h. */
#include "provider.h"

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next64(provider *p) {
  uint64_t *s = p->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

void provider_init_seed(provider *p, uint64_t seed) {
  p->bytes_mode = 0;
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) p->s[i] = splitmix64(&x);
  p->data = NULL;
  p->len = p->pos = 0;
  p->draws = 0;
}

void provider_init_bytes(provider *p, const uint8_t *data, size_t len) {
  p->bytes_mode = 1;
  p->data = data;
  p->len = data ? len : 0;
  p->pos = 0;
  p->draws = 0;
  for (int i = 0; i < 4; i++) p->s[i] = 0;
}

/* Reads up to nbytes bytes (big-endian) from the front; 0 past the end. */
static uint64_t take_bytes(provider *p, int nbytes) {
  uint64_t v = 0;
  for (int k = 0; k < nbytes && p->pos < p->len; k++) v = (v << 8) | p->data[p->pos++];
  return v;
}

int64_t provider_range(provider *p, int64_t lo, int64_t hi) {
  p->draws++;
  if (hi <= lo) return lo;
  uint64_t span = (uint64_t)hi - (uint64_t)lo; /* number of values - 1 */
  if (p->bytes_mode) {
    int nbytes = 0;
    for (uint64_t s = span; s; s >>= 8) nbytes++;
    uint64_t v = take_bytes(p, nbytes);
    if (span != UINT64_MAX) v %= span + 1;
    return (int64_t)((uint64_t)lo + v);
  }
  if (span == UINT64_MAX) return (int64_t)next64(p);
  /* Lemire's nearly divisionless bounded draw, with rejection: unbiased */
  uint64_t n = span + 1, x = next64(p);
  __uint128_t m = (__uint128_t)x * n;
  uint64_t l = (uint64_t)m;
  if (l < n) {
    uint64_t t = -n % n;
    while (l < t) {
      x = next64(p);
      m = (__uint128_t)x * n;
      l = (uint64_t)m;
    }
  }
  return (int64_t)((uint64_t)lo + (uint64_t)(m >> 64));
}

int provider_chance(provider *p, double prob) {
  if (prob <= 0) return 0;
  if (prob >= 1) return 1;
  p->draws++;
  if (p->bytes_mode) {
    if (p->pos >= p->len) return 0;
    return (double)p->data[p->pos++] < prob * 256.0;
  }
  return (double)(next64(p) >> 11) * 0x1.0p-53 < prob;
}

/* The point in [0, total) a weighted draw picks with (the draw counted), or -1 in byte mode once
   the bytes are used up: the draw then takes its first choice with weight. */
static double draw_point(provider *p, double total) {
  p->draws++;
  if (p->bytes_mode) {
    if (p->pos >= p->len) return -1;
    return (double)take_bytes(p, 2) / 65536.0 * total;
  }
  return (double)(next64(p) >> 11) * 0x1.0p-53 * total;
}

int provider_weighted(provider *p, const double *w, int n) {
  double total = 0;
  int last = -1;
  for (int i = 0; i < n; i++)
    if (w[i] > 0) {
      total += w[i];
      last = i;
    }
  if (last < 0) return -1;
  double r = draw_point(p, total);
  if (r < 0) { /* default: the first choice with weight */
    for (int i = 0; i < n; i++)
      if (w[i] > 0) return i;
  }
  for (int i = 0; i < n; i++) {
    if (w[i] <= 0) continue;
    if (r < w[i]) return i;
    r -= w[i];
  }
  return last;
}

int provider_weighted_cum(provider *p, const double *cum, int n) {
  double total = n > 0 ? cum[n - 1] : 0;
  if (!(total > 0)) return -1;
  double r = draw_point(p, total);
  if (r < 0) { /* default: the first choice with weight */
    for (int i = 0; i < n; i++)
      if (cum[i] > 0) return i;
  }
  /* the first index whose running sum passes r (it has weight: its sum grew) */
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (r < cum[mid]) hi = mid;
    else lo = mid + 1;
  }
  if (!(r < cum[lo])) /* rounding: the last index with weight, as provider_weighted */
    while (lo > 0 && cum[lo] == cum[lo - 1]) lo--;
  return lo;
}

size_t provider_remaining(const provider *p) { return p->bytes_mode ? p->len - p->pos : 0; }

uint64_t provider_fnv1a(const uint8_t *data, size_t len) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < len; i++) {
    h ^= data[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}
