/* target.c - see target.h */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../fuzz/judge.h"
#include "../../oracle/signature.h"

struct ft_target {
  const conv_converter *conv;
  gen_policy pol;
  oracle_opts oo;
  int features;
  unsigned verdicts; /* bit per oracle_verdict */
  uint8_t *patterns; /* shared map (AF_FUZZ_PATTERNS) or NULL */
  size_t npatterns_map;
  char *record_dir; /* AF_FUZZ_RECORD or NULL */
  long record_left;
  uint64_t *record_seen; /* (finding class, pattern) pairs recorded, REC_BITS bits shared by the
                            campaign's processes (DIR/.seen) */
};

#define REC_BITS (1u << 20)

static unsigned default_verdicts(void) {
  unsigned m = 0;
  for (int v = 0; v < V_COUNT; v++)
    if (oracle_verdict_is_bug((oracle_verdict)v) || v == V_INVALID_PROGRAM) m |= 1u << v;
  return m;
}

static int parse_verdicts(const char *s, unsigned *mask, af_err *err) {
  *mask = 0;
  char *copy = af_xstrdup(s), *save = NULL;
  int rc = 0;
  for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    oracle_verdict v;
    if (oracle_verdict_parse(tok, &v)) {
      rc = af_fail(err, "AF_FUZZ_VERDICTS: '%s' is no verdict name (see oracle.h)", tok);
      break;
    }
    *mask |= 1u << v;
  }
  free(copy);
  if (!rc && !*mask) rc = af_fail(err, "AF_FUZZ_VERDICTS: expected a comma-separated list of verdicts, got '%s'", s);
  return rc;
}

/* Maps path (created, grown to n bytes when shorter) shared between processes: every fuzzing
 * process of a campaign (libFuzzer -fork jobs, AFL++ children and instances) sees the same bytes.
 * what names the variable in messages. */
static int map_shared(const char *path, size_t n, void **out, const char *what, af_err *err) {
  int fd = open(path, O_RDWR | O_CREAT, 0644);
  if (fd < 0) return af_fail(err, "%s: %s: %s", what, path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) || ((size_t)st.st_size < n && ftruncate(fd, (off_t)n))) {
    close(fd);
    return af_fail(err, "%s: %s: cannot size it: %s", what, path, strerror(errno));
  }
  void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return af_fail(err, "%s: %s: mmap: %s", what, path, strerror(errno));
  *out = m;
  return 0;
}

int ft_target_new(const char *converter, ft_target **out, af_err *err) {
  *out = NULL;
  const conv_converter *c = converter && *converter ? conv_find(converter) : NULL;
  if (!c)
    return af_fail(err, "fuzz target: unknown converter '%s' (see `aliasfuzz converters`)", converter ? converter : "");
  const char *why = NULL;
  if (!c->available(c, &why))
    return af_fail(err, "fuzz target: converter %s is not available here: %s", c->name, why ? why : "unknown reason");
  ft_target *t = af_xcalloc(1, sizeof *t);
  t->conv = c;
  gen_policy_default(&t->pol);
  const char *f = getenv("AF_FUZZ_FEATURES");
  t->features = !(f && (!strcmp(f, "0") || !strcmp(f, "off") || !strcmp(f, "no")));
  const char *vs = getenv("AF_FUZZ_VERDICTS");
  t->verdicts = default_verdicts();
  if (vs && *vs && parse_verdicts(vs, &t->verdicts, err)) goto out_free_target;
  const char *pp = getenv("AF_FUZZ_PATTERNS");
  if (pp && *pp) {
    void *m;
    if (map_shared(pp, FT_GEN_SPACE, &m, "AF_FUZZ_PATTERNS", err)) goto out_free_target;
    t->patterns = m;
    t->npatterns_map = FT_GEN_SPACE;
  }
  const char *rd = getenv("AF_FUZZ_RECORD");
  if (rd && *rd) {
    if (mkdir(rd, 0777) && errno != EEXIST) {
      af_fail(err, "AF_FUZZ_RECORD: %s: %s", rd, strerror(errno));
      goto out_free_target;
    }
    t->record_dir = af_xstrdup(rd);
    const char *mx = getenv("AF_FUZZ_RECORD_MAX");
    t->record_left = mx && atol(mx) > 0 ? atol(mx) : 20000;
    char path[4096];
    snprintf(path, sizeof path, "%s/.seen", rd);
    void *m;
    if (map_shared(path, REC_BITS / 8, &m, "AF_FUZZ_RECORD", err)) goto out_free_target;
    t->record_seen = m;
  }
  *out = t;
  return 0;
out_free_target:
  ft_target_free(t);
  return -1;
}

void ft_target_free(ft_target *t) {
  if (!t) return;
  if (t->patterns) munmap(t->patterns, t->npatterns_map);
  free(t->record_dir);
  if (t->record_seen) munmap(t->record_seen, REC_BITS / 8);
  free(t);
}

const conv_converter *ft_target_converter(const ft_target *t) {
  return t->conv;
}
int ft_target_features_on(const ft_target *t) {
  return t->features;
}

int ft_program(const uint8_t *data, size_t len, ir_program **out, af_err *err) {
  gen_policy pol;
  gen_policy_default(&pol);
  return gen_program_from_bytes(&pol, data, len, out, err);
}

/* Node kinds ("ns::name") of a graph's text, hashed into the kind region. */
static void add_kinds(ft_outcome *o, const char *g) {
  const int max = (int)(sizeof o->ids / sizeof o->ids[0]);
  for (const char *s = g; (s = strstr(s, "::")) != NULL;) {
    const char *a = s, *b = s + 2;
    while (a > g && (a[-1] == '_' || (a[-1] >= 'a' && a[-1] <= 'z'))) a--;
    while (*b == '_' || (*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') || (*b >= '0' && *b <= '9')) b++;
    int empty = a == s || b == s + 2;
    s = b;
    if (empty) continue;
    uint32_t id = FT_KIND_BASE + (uint32_t)(sig_fnv1a(a, (size_t)(b - a), 0) % FT_KIND_SPACE);
    int dup = 0;
    for (int k = 0; k < o->nids && !dup; k++) dup = o->ids[k] == id;
    if (!dup && o->nids < max) o->ids[o->nids++] = id;
  }
}

/* Record mode: writes data as DIR/<verdict>-<hash of the bytes> when the program brings a
 * (finding class, alias pattern) pair no process of the campaign has recorded yet; the class is
 * the verdict and the detail's key line with numbers and names blanked. */
static void record(ft_target *t, oracle_verdict v, const char *detail, const uint32_t *ids, int n, const uint8_t *data,
                   size_t len) {
  char *cls = sig_error_class(detail ? detail : "");
  uint64_t c = sig_fnv1a(oracle_verdict_name(v), strlen(oracle_verdict_name(v)), 0);
  c = sig_fnv1a(cls, strlen(cls), c);
  free(cls);
  int fresh = 0;
  for (int k = 0; k <= n; k++) { /* k == n: the class alone */
    uint32_t id = k < n ? ids[k] + 1 : 0;
    uint64_t h = sig_fnv1a(&id, sizeof id, c) % REC_BITS;
    uint64_t bit = 1ull << (h % 64);
    if (!(__atomic_fetch_or(&t->record_seen[h / 64], bit, __ATOMIC_RELAXED) & bit)) fresh = 1;
  }
  if (!fresh) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s-%016llx", t->record_dir, oracle_verdict_name(v),
           (unsigned long long)sig_fnv1a(data, len, 0));
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return; /* recorded already (by another process), or the folder is gone */
  ssize_t w = write(fd, data, len);
  (void)w;
  close(fd);
  t->record_left--;
}

int ft_target_run(ft_target *t, const uint8_t *data, size_t len, ft_outcome *o, af_err *err) {
  memset(o, 0, sizeof *o);
  ir_program *p = NULL;
  if (gen_program_from_bytes(&t->pol, data, len, &p, err)) return -1;
  o->nstmts = p->nstmts;
  const int max = (int)(sizeof o->ids / sizeof o->ids[0]) - 64;
  uint32_t ids[sizeof o->ids / sizeof o->ids[0]];
  int n = gen_features(p, ids, max);
  if (n > max) n = max;
  o->npatterns = n;
  for (int k = 0; k < n; k++) {
    uint32_t id = ids[k] < FT_GEN_SPACE ? ids[k] : FT_GEN_SPACE - 1 - ids[k] % 1024u;
    if (t->patterns && id < t->npatterns_map) t->patterns[id] = 1;
    if (t->features) o->ids[o->nids++] = id;
  }
  if (t->features) o->ids[o->nids++] = FT_SIZE_BASE + (uint32_t)(n < 63 ? n : 63);
  judgement j;
  int rc = judge_inprocess(t->conv, p, &t->oo, &j, err);
  if (rc) goto out_free_program;
  o->verdict = j.verdict;
  o->detail = j.detail;
  j.detail = NULL;
  if (t->features && j.graph) add_kinds(o, j.graph);
  o->finding = (t->verdicts >> j.verdict) & 1u;
  if (o->finding) {
    char *sig, id[64];
    sig_make(t->conv->name, j.verdict, p, o->detail, &sig, id);
    af_buf b = {0};
    af_buf_printf(&b, "aliasfuzz-finding: verdict=%s converter=%s signature=%s id=%s detail=%s",
                  oracle_verdict_name(j.verdict), t->conv->name, sig, id, o->detail ? o->detail : "-");
    for (char *c = b.s; *c; c++)
      if (*c == '\n') *c = ' ';
    o->summary = af_buf_take(&b);
    free(sig);
    if (t->record_dir) {
      if (t->record_left > 0) record(t, j.verdict, o->detail, ids, n, data, len);
      o->recorded = 1;
    }
  }
  judgement_clear(&j);
out_free_program:
  ir_program_free(p);
  return rc;
}

void ft_outcome_clear(ft_outcome *o) {
  free(o->detail);
  free(o->summary);
  memset(o, 0, sizeof *o);
}

long ft_patterns_count(const char *path, af_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return af_fail(err, "%s: %s", path, strerror(errno));
  long n = 0;
  int c;
  while ((c = getc(f)) != EOF) n += c != 0;
  fclose(f);
  return n;
}
