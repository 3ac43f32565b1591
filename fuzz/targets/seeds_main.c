/* seeds_main.c - `fuzz_seeds`: picks a seed corpus for a fuzz target out of a large pool of
 * inputs (an engine's corpus after a run), and measures a corpus's alias-pattern coverage.
 *
 *   fuzz_seeds --converter NAME [--max N] --out DIR POOL...
 *       keeps the inputs that pass on the converter (a seed that is already a finding stops an
 *       engine before it starts), then picks greedily the one that adds the most alias patterns
 *       not yet covered (gen_features; converted-graph node kinds break ties), up to N (default
 *       40), and copies them into DIR as seed-NNN-<fnv1a>.
 *   fuzz_seeds --converter NAME --random N [--seed S] [--max N] --out DIR
 *       the same, with a pool of N pseudo-random byte strings (16..256 bytes, xorshift from S):
 *       no engine needed. The committed seed corpora corpus/fuzz/<target>/ are made this way
 *       (fuzz/targets/make_seeds.sh); a byte string means another program when the generator's
 *       decisions change (new ops, new policy), so they are remade then.
 *   --isolate (with either) runs each input in a forked child, so an in-process converter that
 *       kills the process (a segfault inside LibTorch) makes that input a converter-crash
 *       finding instead of ending the run (make_seeds.sh uses it for the in-process targets)
 *   fuzz_seeds --converter NAME --count POOL...
 *       prints "inputs N passing P patterns K findings F" for the pool (patterns: distinct
 *       alias-pattern features over all inputs); with --list, also one line per finding:
 *       "FILE: aliasfuzz-finding: verdict=... signature=..."; with --classes, instead, one
 *       line per finding "FILE<TAB>VERDICT|CLASS", CLASS the detail's key line with numbers and
 *       quoted names blanked (signature.h's error class) for errors, "input" or "output" for
 *       mismatches: finding classes before minimization.
 * Exit: 0, or 2 on usage and input errors. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../harness/codec.h"
#include "../../oracle/signature.h"
#include "target.h"

typedef struct seed {
  char *path;
  uint8_t *data;
  size_t len;
  int pass;
  int nids;
  uint32_t *ids;
} seed;

/* A whole binary file; new, free with free(). NULL when unreadable. */
static uint8_t *slurp_bytes(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, got;
  uint8_t *d = af_xmalloc(cap);
  *len = 0;
  while ((got = fread(d + *len, 1, cap - *len, f)) > 0)
    if ((*len += got) == cap) d = af_xrealloc(d, cap *= 2);
  fclose(f);
  return d;
}

static void add_file(seed **v, int *n, int *cap, const char *path) {
  size_t len = 0;
  uint8_t *d = slurp_bytes(path, &len);
  if (!d) {
    fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(errno));
    return;
  }
  if (*n == *cap) *v = af_xrealloc(*v, sizeof **v * (size_t)(*cap = *cap ? 2 * *cap : 256));
  (*v)[(*n)++] = (seed){.path = af_xstrdup(path), .data = d, .len = len};
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_path(seed **v, int *n, int *cap, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(errno));
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    add_file(v, n, cap, path);
    return;
  }
  DIR *d = opendir(path);
  if (!d) return;
  char **names = NULL;
  size_t k = 0, kc = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    if (k == kc) names = af_xrealloc(names, sizeof *names * (kc = kc ? 2 * kc : 256));
    names[k++] = af_xstrdup(e->d_name);
  }
  closedir(d);
  qsort(names, k, sizeof *names, by_name);
  for (size_t i = 0; i < k; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", path, names[i]);
    if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) add_file(v, n, cap, p);
    free(names[i]);
  }
  free(names);
}


/* ft_target_run in a forked child that sends the outcome back through a pipe; a child that dies
 * gives a converter-crash finding naming the signal. */
static int put_all(int fd, const void *p, size_t n) {
  for (const char *c = p; n;) {
    ssize_t w = write(fd, c, n);
    if (w <= 0) return -1;
    c += w, n -= (size_t)w;
  }
  return 0;
}
static int get_all(int fd, void *p, size_t n) {
  for (char *c = p; n;) {
    ssize_t r = read(fd, c, n);
    if (r <= 0) return -1;
    c += r, n -= (size_t)r;
  }
  return 0;
}
static void put_str(int fd, const char *s) {
  uint32_t n = s ? (uint32_t)strlen(s) : 0xffffffffu;
  put_all(fd, &n, sizeof n);
  if (s) put_all(fd, s, n);
}
static char *get_str(int fd) {
  uint32_t n;
  if (get_all(fd, &n, sizeof n) || n == 0xffffffffu || n > (1u << 24)) return NULL;
  char *s = af_xmalloc((size_t)n + 1);
  if (get_all(fd, s, n)) {
    free(s);
    return NULL;
  }
  s[n] = 0;
  return s;
}
static int run_isolated(ft_target *t, const uint8_t *data, size_t len, ft_outcome *o, af_err *err) {
  int fds[2];
  fflush(stdout);
  fflush(stderr);
  if (pipe(fds)) return af_fail(err, "pipe: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return af_fail(err, "fork: %s", strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    ft_outcome c;
    af_err e;
    int rc = ft_target_run(t, data, len, &c, &e);
    put_all(fds[1], &rc, sizeof rc);
    if (rc) put_str(fds[1], e.msg);
    else {
      put_all(fds[1], &c, sizeof c); /* the plain fields; the two strings follow */
      put_str(fds[1], c.detail);
      put_str(fds[1], c.summary);
    }
    _exit(0);
  }
  close(fds[1]);
  int rc = -1, got = get_all(fds[0], &rc, sizeof rc) == 0;
  memset(o, 0, sizeof *o);
  if (got && rc) {
    char *m = get_str(fds[0]);
    af_fail(err, "%s", m ? m : "the child's error was lost");
    free(m);
  } else if (got) {
    got = get_all(fds[0], o, sizeof *o) == 0;
    o->detail = got ? get_str(fds[0]) : NULL;
    o->summary = got ? get_str(fds[0]) : NULL;
    if (!got) o->detail = o->summary = NULL;
  }
  close(fds[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (got) return rc ? -1 : 0;
  memset(o, 0, sizeof *o);
  o->verdict = V_CRASH;
  o->finding = 1;
  char msg[160];
  if (WIFSIGNALED(st)) snprintf(msg, sizeof msg, "converter process killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else snprintf(msg, sizeof msg, "converter process exited with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  o->detail = af_xstrdup(msg);
  o->summary = af_xstrdup(msg);
  return 0;
}

/* Appends nrandom random inputs (16..256 bytes each, from seed rseed) to the pool. */
static void add_random(seed **vp, int *np, int *capp, long nrandom, uint64_t rseed) {
  seed *v = *vp;
  int n = *np, cap = *capp;
  uint64_t x = rseed * 0x9e3779b97f4a7c15ull + 1;
  for (long r = 0; r < nrandom; r++) {
    if (n == cap) v = af_xrealloc(v, sizeof *v * (size_t)(cap = cap ? 2 * cap : 256));
    char name[64];
    snprintf(name, sizeof name, "random-%ld", r);
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    size_t len = 16 + (size_t)(x % 241);
    uint8_t *d = af_xmalloc(len);
    for (size_t k = 0; k < len; k++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      d[k] = (uint8_t)(x >> 24);
    }
    v[n++] = (seed){.path = af_xstrdup(name), .data = d, .len = len};
  }
  *vp = v, *np = n, *capp = cap;
}

/* Runs every input of the pool through the target (in a forked child with isolate), keeping
 * each one's verdict and feature ids; with list or classes prints each finding. Counts passing
 * inputs and findings, and marks the alias patterns (generator features) seen in covered. */
static void run_pool(ft_target *t, seed *v, int n, int isolate, int list, int classes, uint8_t *covered, long *passing,
                     long *findings, long *patterns) {
  af_err err;
  for (int i = 0; i < n; i++) {
    ft_outcome o;
    if ((isolate ? run_isolated(t, v[i].data, v[i].len, &o, &err) : ft_target_run(t, v[i].data, v[i].len, &o, &err))) {
      fprintf(stderr, "fuzz_seeds: %s: %s\n", v[i].path, err.msg);
      continue;
    }
    v[i].pass = o.verdict == V_PASS;
    *passing += v[i].pass;
    *findings += o.finding;
    if (list && o.finding) printf("%s: %s\n", v[i].path, o.summary);
    if (classes && o.finding) {
      /* errors by their message; mismatches by what differs (an output or an input's final
       * state), since their details carry values */
      int error_like = o.verdict == V_ERROR || o.verdict == V_CRASH || o.verdict == V_UNSUPPORTED ||
                       o.verdict == V_INVALID_PROGRAM || o.verdict == V_TIMEOUT;
      char *c = error_like ? sig_error_class(o.detail ? o.detail : "")
                           : af_xstrdup(o.detail && !strncmp(o.detail, "input", 5) ? "input" : "output");
      printf("%s\t%s|%s\n", v[i].path, oracle_verdict_name(o.verdict), c);
      free(c);
    }
    v[i].nids = o.nids;
    v[i].ids = af_xmalloc(sizeof(uint32_t) * (size_t)(o.nids + 1));
    memcpy(v[i].ids, o.ids, sizeof(uint32_t) * (size_t)o.nids);
    for (int k = 0; k < o.nids; k++)
      if (o.ids[k] < FT_GEN_SPACE && !covered[o.ids[k]]) covered[o.ids[k]] = 1, (*patterns)++;
    ft_outcome_clear(&o);
  }
}

/* Writes the corpus: greedily the passing input that adds the most features (an alias pattern
 * counts 1000, any other feature 1; shorter first on a tie), at most max, into out as
 * seed-NNN-<hash>. 0, or 2 on a write error. */
static int pick_seeds(seed *v, int n, int max, const char *out, long passing, uint8_t *covered) {
  int rc = 0;
  af_err err;
  memset(covered, 0, FT_SPACE);
  if (mkdir(out, 0777) && errno != EEXIST) {
    fprintf(stderr, "fuzz_seeds: %s: %s\n", out, strerror(errno));
    rc = 2;
  }
  int picked = 0;
  while (!rc && picked < max) {
    int best = -1;
    long best_score = 0;
    for (int i = 0; i < n; i++) {
      if (!v[i].pass) continue;
      long s = 0;
      for (int k = 0; k < v[i].nids; k++)
        if (!covered[v[i].ids[k]]) s += v[i].ids[k] < FT_GEN_SPACE ? 1000 : 1;
      if (s > best_score || (s == best_score && s > 0 && v[i].len < v[best].len)) best = i, best_score = s;
    }
    if (best < 0) break;
    for (int k = 0; k < v[best].nids; k++) covered[v[best].ids[k]] = 1;
    v[best].pass = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/seed-%03d-%016llx", out, picked,
             (unsigned long long)sig_fnv1a(v[best].data, v[best].len, 0));
    if (codec_write_atomic(path, (const char *)v[best].data, v[best].len, &err)) {
      fprintf(stderr, "fuzz_seeds: %s\n", err.msg);
      rc = 2;
    }
    picked++;
  }
  long pat = 0;
  for (uint32_t i = 0; i < FT_GEN_SPACE; i++) pat += covered[i];
  printf("picked %d of %d inputs (%ld passing): %ld alias patterns\n", picked, n, passing, pat);
  return rc;
}

int main(int argc, char **argv) {
  const char *conv = NULL, *out = NULL;
  int max = 40, count = 0, list = 0, classes = 0, isolate = 0;
  long nrandom = 0;
  uint64_t rseed = 1;
  seed *v = NULL;
  int n = 0, cap = 0;
  at_init();
  for (int i = 1; i < argc; i++) {
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--converter") && val)
      conv = argv[++i];
    else if (!strcmp(argv[i], "--out") && val)
      out = argv[++i];
    else if (!strcmp(argv[i], "--max") && val && atoi(val) > 0)
      max = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--random") && val && atol(val) > 0)
      nrandom = atol(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && val)
      rseed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--count"))
      count = 1;
    else if (!strcmp(argv[i], "--isolate"))
      isolate = 1;
    else if (!strcmp(argv[i], "--list"))
      count = list = 1;
    else if (!strcmp(argv[i], "--classes"))
      count = classes = 1;
    else if (argv[i][0] == '-') {
      fprintf(stderr,
              "usage: fuzz_seeds --converter NAME (--out DIR [--max N] | --count [--list | --classes]) [--random N "
              "[--seed S]] POOL...\n");
      return 2;
    } else
      add_path(&v, &n, &cap, argv[i]);
  }
  add_random(&v, &n, &cap, nrandom, rseed);
  if (!conv || (!out && !count)) {
    fprintf(stderr,
            "usage: fuzz_seeds --converter NAME (--out DIR [--max N] | --count [--list | --classes]) [--random N "
            "[--seed S]] [--isolate] POOL...\n");
    return 2;
  }
  setenv("AF_FUZZ_FEATURES", "1", 1);
  ft_target *t;
  af_err err;
  if (ft_target_new(conv, &t, &err)) {
    fprintf(stderr, "fuzz_seeds: %s\n", err.msg);
    return 2;
  }
  uint8_t *covered = af_xcalloc(FT_SPACE, 1);
  long passing = 0, findings = 0, patterns = 0;
  run_pool(t, v, n, isolate, list, classes, covered, &passing, &findings, &patterns);
  int rc = 0;
  if (count && !classes) {
    printf("inputs %d passing %ld patterns %ld findings %ld\n", n, passing, patterns, findings);
  } else if (!count) {
    rc = pick_seeds(v, n, max, out, passing, covered);
  }
  for (int i = 0; i < n; i++) {
    free(v[i].path);
    free(v[i].data);
    free(v[i].ids);
  }
  free(v);
  free(covered);
  ft_target_free(t);
  return rc;
}
