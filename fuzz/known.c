/* known.c - see known.h */
#include "known.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/codec.h"
#include "../harness/converters/conv_worker.h"
#include "../harness/torch/shim.h"
#include "../oracle/signature.h"
#include "annotate.h"
#include "classes.h"
#include "float64.h"
#include "judge.h"

#ifndef AF_KNOWN_DIR
#define AF_KNOWN_DIR "corpus/known-upstream"
#endif

#ifndef AF_KNOWN_FINDINGS_DIR
#define AF_KNOWN_FINDINGS_DIR "docs/findings"
#endif
#ifndef AF_KNOWN_GAPS_DIR
#define AF_KNOWN_GAPS_DIR "corpus/known-gaps"
#endif

#define KNOWN_CACHE_FORMAT "aliasfuzz-known/1"
#define FINDING_EXPECT_FORMAT "aliasfuzz-finding-expect/1"

static const char *dir_from_env(const char *var, const char *dflt) {
  const char *d = getenv(var);
  if (d && (!*d || !strcmp(d, "none"))) return NULL;
  return d ? d : dflt;
}

const char *known_dir(void) { return dir_from_env("AF_KNOWN_DIR", AF_KNOWN_DIR); }

/* AF_KNOWN_DIR=none turns the whole matching off, ours too */
static int matching_off(void) {
  const char *d = getenv("AF_KNOWN_DIR");
  return d && (!*d || !strcmp(d, "none"));
}

const char *known_findings_dir(void) { return matching_off() ? NULL : dir_from_env("AF_KNOWN_FINDINGS_DIR", AF_KNOWN_FINDINGS_DIR); }

const char *known_gaps_dir(void) { return matching_off() ? NULL : dir_from_env("AF_KNOWN_GAPS_DIR", AF_KNOWN_GAPS_DIR); }

const char *known_source_name(known_source s) {
  return s == KNOWN_FINDING ? "finding" : s == KNOWN_GAP ? "known-gap" : "upstream";
}

static const char *str_of(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }

/* FNV-1a over s. */
static uint64_t digest_of(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void case_clear(known_case *k) {
  free(k->id);
  free(k->mark);
  free(k->path);
  free(k->tracker);
  free(k->state);
  free(k->mechanism);
  free(k->url);
  ir_program_free(k->p);
  cJSON_Delete(k->expect);
  cJSON_Delete(k->covers);
  memset(k, 0, sizeof *k);
}

void known_corpus_clear(known_corpus *kc) {
  for (int i = 0; i < kc->n; i++) case_clear(&kc->cases[i]);
  free(kc->cases);
  kc->cases = NULL;
  kc->n = 0;
}

/* expect (the field `at`: "meta.known.expect", ...) must be {stack: {converter: verdict name}}. */
static int check_expect(const cJSON *expect, const char *path, const char *at, af_err *err) {
  const cJSON *stack, *conv;
  if (!cJSON_IsObject(expect)) return af_fail(err, "%s: %s: expected an object {stack: {converter: verdict}}", path, at);
  cJSON_ArrayForEach(stack, expect) {
    if (!cJSON_IsObject(stack)) return af_fail(err, "%s: %s.%s: expected an object {converter: verdict}", path, at, stack->string);
    cJSON_ArrayForEach(conv, stack) {
      oracle_verdict v;
      if (!cJSON_IsString(conv) || oracle_verdict_parse(conv->valuestring, &v))
        return af_fail(err, "%s: %s.%s.%s: expected a verdict name (pass, value-mismatch, ...)", path, at, stack->string, conv->string);
    }
  }
  return 0;
}

/* covers, when given, must be a non-empty list of patterns whose tokens name ops or families, one
 * of which at least has the case's own pattern as an instance (else it is not this case's bug). */
static int check_covers(const cJSON *covers, const ir_program *p, const char *path, const char *at, af_err *err) {
  if (!covers) return 0;
  if (!cJSON_IsArray(covers) || !cJSON_GetArraySize(covers))
    return af_fail(err, "%s: %s: expected a non-empty list of class patterns (\"unfold write@view-of-in\")", path, at);
  char *own = classes_plain_pattern(p), tok[128];
  int i = 0, rc = 0, holds = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, covers) {
    const char *bad = cJSON_IsString(c) && *c->valuestring ? classes_cover_bad_token(c->valuestring, tok, sizeof tok) : "";
    if (bad) {
      rc = af_fail(err, "%s: %s[%d]: %s%s%s", path, at, i, *bad ? "token `" : "expected a non-empty pattern string", bad,
                   *bad ? "` names neither an op nor a family (view, write, shape-write, op, list)" : "");
      break;
    }
    holds |= classes_pattern_covers(c->valuestring, own);
    i++;
  }
  if (!rc && !holds) rc = af_fail(err, "%s: %s: no pattern there covers the case's own pattern `%s`", path, at, own);
  free(own);
  return rc;
}

/* Fills k from the file at path; -1 with err. */
static int case_read(const char *path, known_case *k, af_err *err) {
  int rc = -1;
  cJSON *meta = NULL;
  char *text = codec_slurp(path, NULL, err);
  if (!text) return -1;
  k->path = af_xstrdup(path);
  k->digest = digest_of(text);
  if (codec_read_string(text, path, &k->p, err)) goto out;
  meta = k->p->meta ? cJSON_Parse(k->p->meta) : NULL;
  const cJSON *known = cJSON_GetObjectItem(meta, "known");
  const char *id = str_of(meta, "id");
  if (!id) {
    af_fail(err, "%s: meta.id: expected a string (the case's stable id)", path);
    goto out;
  }
  if (!cJSON_IsObject(known)) {
    af_fail(err, "%s: meta.known: expected an object (tracker, state, mechanism, expect)", path);
    goto out;
  }
  static const char *const fields[] = {"tracker", "state", "mechanism", NULL};
  for (int f = 0; fields[f]; f++)
    if (!str_of(known, fields[f]) || !*str_of(known, fields[f])) {
      af_fail(err, "%s: meta.known.%s: expected a non-empty string", path, fields[f]);
      goto out;
    }
  if (check_expect(cJSON_GetObjectItem(known, "expect"), path, "meta.known.expect", err)) goto out;
  if (check_covers(cJSON_GetObjectItem(known, "covers"), k->p, path, "meta.known.covers", err)) goto out;
  k->source = KNOWN_UPSTREAM;
  k->id = af_xstrdup(id);
  k->mark = af_xstrdup(str_of(known, "tracker"));
  k->tracker = af_xstrdup(str_of(known, "tracker"));
  k->state = af_xstrdup(str_of(known, "state"));
  k->mechanism = af_xstrdup(str_of(known, "mechanism"));
  if (str_of(known, "url")) k->url = af_xstrdup(str_of(known, "url"));
  k->expect = cJSON_Duplicate(cJSON_GetObjectItem(known, "expect"), 1);
  if (cJSON_GetObjectItem(known, "covers")) k->covers = cJSON_Duplicate(cJSON_GetObjectItem(known, "covers"), 1);
  rc = 0;
out:
  cJSON_Delete(meta);
  free(text);
  return rc;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A case read failed (err says why): 1 when it is skipped (lenient: known_load_usable, which warns
 * on stderr naming it and why), else 0 (the loaders refuse it). */
static int skipped(int lenient, const char *path, const af_err *err) {
  if (!lenient) return 0;
  fprintf(stderr, "aliasfuzz: known bugs: %s left out, it cannot be read: %s\n", path, err->msg);
  return 1;
}

static int load_upstream(const char *dir, known_corpus *kc, int lenient, af_err *err) {
  known_corpus_clear(kc);
  DIR *d = opendir(dir);
  if (!d) return af_fail(err, "%s: cannot read the known-bugs folder", dir);
  char **names = NULL;
  int n = 0, rc = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
    names = af_xrealloc(names, (size_t)(n + 1) * sizeof *names);
    names[n++] = af_xstrdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(names, (size_t)n, sizeof *names, by_name); /* names is NULL in an empty folder */
  kc->cases = af_xcalloc((size_t)n + 1, sizeof *kc->cases);
  for (int i = 0; i < n && !rc; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (case_read(path, &kc->cases[kc->n], err)) {
      case_clear(&kc->cases[kc->n]);
      rc = skipped(lenient, path, err) ? 0 : -1;
    } else {
      kc->n++;
    }
  }
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  if (rc) known_corpus_clear(kc);
  return rc;
}

/* ------------------------------------------------------------------ aliasfuzz's own known bugs */

/* The sorted names of dir's entries not starting with '.' (n of them), new; NULL when dir cannot be read. */
static char **names_in(const char *dir, int *n) {
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **names = af_xcalloc(1, sizeof *names);
  *n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    names = af_xrealloc(names, (size_t)(*n + 2) * sizeof *names);
    names[(*n)++] = af_xstrdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)*n, sizeof *names, by_name);
  return names;
}

/* The small form a finding's expect.json or a gap's meta.known_gap holds (known.h): expect,
 * upstream and covers, read from o into k; at names o in messages ("" or "meta.known_gap."). */
static int ours_read(const cJSON *o, const char *path, const char *at, known_case *k, af_err *err) {
  char f[128];
  const cJSON *e;
  cJSON_ArrayForEach(e, o) { /* a misspelt field would be silently ignored: refuse it */
    static const char *const fields[] = {"format", "expect", "upstream", "covers", NULL};
    int ok = 0;
    for (int i = 0; fields[i] && !ok; i++) ok = !strcmp(e->string, fields[i]) && (i || !*at);
    if (!ok)
      return af_fail(err, "%s: %s%s: not a field of this form (expect, upstream, covers%s)", path, at, e->string, *at ? "" : ", format");
  }
  snprintf(f, sizeof f, "%sexpect", at);
  if (check_expect(cJSON_GetObjectItem(o, "expect"), path, f, err)) return -1;
  snprintf(f, sizeof f, "%scovers", at);
  if (check_covers(cJSON_GetObjectItem(o, "covers"), k->p, path, f, err)) return -1;
  const cJSON *up = cJSON_GetObjectItem(o, "upstream");
  if (up) {
    if (!cJSON_IsObject(up) || !str_of(up, "tracker") || !*str_of(up, "tracker"))
      return af_fail(err, "%s: %supstream.tracker: expected a non-empty string (owner/repo#number), the report this bug is", path, at);
    static const char *const opt[] = {"url", "state", NULL};
    for (int i = 0; opt[i]; i++)
      if (cJSON_GetObjectItem(up, opt[i]) && (!str_of(up, opt[i]) || !*str_of(up, opt[i])))
        return af_fail(err, "%s: %supstream.%s: expected a non-empty string", path, at, opt[i]);
    k->tracker = af_xstrdup(str_of(up, "tracker"));
    if (str_of(up, "url")) k->url = af_xstrdup(str_of(up, "url"));
    if (str_of(up, "state")) k->state = af_xstrdup(str_of(up, "state"));
  }
  k->expect = cJSON_Duplicate(cJSON_GetObjectItem(o, "expect"), 1);
  if (cJSON_GetObjectItem(o, "covers")) k->covers = cJSON_Duplicate(cJSON_GetObjectItem(o, "covers"), 1);
  return 0;
}

/* docs/findings/NAME: its repro.json judged as expect.json says. 1 when the folder has no
 * expect.json (it marks nothing), 0 with k filled, -1 with err. */
static int finding_read(const char *dir, const char *name, known_case *k, af_err *err) {
  char path[4200], prog[4200];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s/expect.json", dir, name);
  if (stat(path, &st) != 0) return 1;
  snprintf(prog, sizeof prog, "%s/%s/repro.json", dir, name);
  int rc = -1;
  cJSON *o = NULL;
  char *ptext = NULL, *text = codec_slurp(path, NULL, err);
  if (!text) return -1;
  o = cJSON_Parse(text);
  const char *fmt = str_of(o, "format");
  if (!cJSON_IsObject(o)) {
    af_fail(err, "%s: not a JSON object", path);
    goto out;
  }
  if (!fmt || strcmp(fmt, FINDING_EXPECT_FORMAT) != 0) {
    af_fail(err, "%s: format: expected \"%s\"", path, FINDING_EXPECT_FORMAT);
    goto out;
  }
  if (!(ptext = codec_slurp(prog, NULL, err))) goto out;
  if (codec_read_string(ptext, prog, &k->p, err)) goto out;
  k->source = KNOWN_FINDING;
  k->path = af_xstrdup(prog);
  k->digest = digest_of(ptext) ^ (digest_of(text) * 31); /* an edit of either is judged again */
  if (ours_read(o, path, "", k, err)) goto out;
  k->id = af_xstrdup(name);
  af_buf m = {0};
  af_buf_printf(&m, "docs/findings/%s", name);
  k->mark = af_buf_take(&m);
  rc = 0;
out:
  cJSON_Delete(o);
  free(text);
  free(ptext);
  return rc;
}

/* corpus/known-gaps/NAME.json: 1 when its meta has no known_gap (it marks nothing), 0 with k
 * filled, -1 with err. */
static int gap_read(const char *path, known_case *k, af_err *err) {
  int rc = -1;
  cJSON *meta = NULL;
  char *text = codec_slurp(path, NULL, err);
  if (!text) return -1;
  if (codec_read_string(text, path, &k->p, err)) goto out;
  meta = k->p->meta ? cJSON_Parse(k->p->meta) : NULL;
  const cJSON *g = cJSON_GetObjectItem(meta, "known_gap");
  if (!g) {
    rc = 1;
    goto out;
  }
  if (!str_of(meta, "id") || !*str_of(meta, "id")) {
    af_fail(err, "%s: meta.id: expected a string (the gap's stable id)", path);
    goto out;
  }
  if (!cJSON_IsObject(g)) {
    af_fail(err, "%s: meta.known_gap: expected an object (expect, upstream, covers)", path);
    goto out;
  }
  k->source = KNOWN_GAP;
  k->path = af_xstrdup(path);
  k->digest = digest_of(text);
  if (ours_read(g, path, "meta.known_gap.", k, err)) goto out;
  k->id = af_xstrdup(str_of(meta, "id"));
  af_buf m = {0};
  af_buf_printf(&m, "corpus/known-gaps/%s", k->id);
  k->mark = af_buf_take(&m);
  rc = 0;
out:
  cJSON_Delete(meta);
  free(text);
  return rc;
}

static int load_ours(const char *dir, known_source source, known_corpus *kc, int lenient, af_err *err) {
  int n = 0, rc = 0;
  char **names = names_in(dir, &n);
  if (!names) return af_fail(err, "%s: cannot read the folder of %s", dir, source == KNOWN_GAP ? "known gaps" : "kept findings");
  for (int i = 0; i < n && rc >= 0; i++) {
    size_t l = strlen(names[i]);
    if (source == KNOWN_GAP && (l < 6 || strcmp(names[i] + l - 5, ".json") != 0)) continue;
    kc->cases = af_xrealloc(kc->cases, (size_t)(kc->n + 2) * sizeof *kc->cases);
    known_case *k = &kc->cases[kc->n];
    memset(k, 0, sizeof *k);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    rc = source == KNOWN_GAP ? gap_read(path, k, err) : finding_read(dir, names[i], k, err);
    if (rc) { /* 1: the entry marks nothing (a README, a finding without expect.json): err unset */
      case_clear(k);
      if (rc > 0 || skipped(lenient, path, err)) rc = 0;
    } else {
      kc->n++;
    }
  }
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  return rc < 0 ? -1 : 0;
}

int known_load(const char *dir, known_corpus *kc, af_err *err) { return load_upstream(dir, kc, 0, err); }
int known_load_ours(const char *dir, known_source source, known_corpus *kc, af_err *err) {
  return load_ours(dir, source, kc, 0, err);
}

static int load_all(known_corpus *kc, int lenient, af_err *err) {
  known_corpus_clear(kc);
  struct stat st;
  const char *kd = known_dir(), *fd = known_findings_dir(), *gd = known_gaps_dir();
  if (kd && stat(kd, &st) == 0 && load_upstream(kd, kc, lenient, err)) return -1;
  if (fd && stat(fd, &st) == 0 && load_ours(fd, KNOWN_FINDING, kc, lenient, err)) goto fail;
  if (gd && stat(gd, &st) == 0 && load_ours(gd, KNOWN_GAP, kc, lenient, err)) goto fail;
  return 0;
fail:
  known_corpus_clear(kc);
  return -1;
}

int known_load_all(known_corpus *kc, af_err *err) { return load_all(kc, 0, err); }
int known_load_usable(known_corpus *kc, af_err *err) { return load_all(kc, 1, err); }

const char *known_expected(const known_case *k, const char *stack, const char *conv) {
  return str_of(cJSON_GetObjectItem(k->expect, stack), conv);
}

/* The converter conv is a mode of (aot_eager-dynamic, -subclass, -debug, -autocast, -unbacked of aot_eager): the plain
 * converter of a SWITCH line of conv (workers.def) whose name conv is, followed by "-"; new, or NULL. */
static char *mode_of(const char *conv) {
  int n = annotate_switches(conv, 0, NULL, NULL);
  for (int i = 0; i < n; i++) {
    char *v = NULL;
    annotate_switches(conv, i, &v, NULL);
    size_t l = v ? strlen(v) : 0;
    if (v && l && strncmp(conv, v, l) == 0 && conv[l] == '-') return v;
    free(v);
  }
  return NULL;
}

int known_judge(const conv_converter *c, const ir_program *p, double deadline_s, int fail_on_residual, judgement *j,
                af_err *err) {
  oracle_opts oo = {fail_on_residual};
  if (conv_worker_of(c)) return judge_inprocess(c, p, &oo, j, err);
  return judge_isolated(c, p, &oo, deadline_s > 0 ? deadline_s : 30, j, err);
}

int known_is_known(const cJSON *cls) { return str_of(cls, "known") != NULL; }

int known_is_upstream(const cJSON *cls) {
  const char *src = str_of(cls, "known_source");
  return known_is_known(cls) && (!src || !strcmp(src, "upstream"));
}

/* The cache slot of case k on converter conv (suffix "" or "|float64"): an upstream case's id as
 * before ours were matched, ours prefixed by their source (a finding's folder may share a name). */
static void slot_of(const known_case *k, const char *conv, const char *suffix, char *slot, size_t n) {
  if (k->source == KNOWN_UPSTREAM) snprintf(slot, n, "%s|%s%s", k->id, conv, suffix);
  else snprintf(slot, n, "%s:%s|%s%s", known_source_name(k->source), k->id, conv, suffix);
}

/* ------------------------------------------------------------------ DIR/known.json */

static cJSON *cache_load(const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/known.json", dir);
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *c = text ? cJSON_Parse(text) : NULL;
  free(text);
  const char *fmt = str_of(c, "format");
  if (!fmt || strcmp(fmt, KNOWN_CACHE_FORMAT) != 0 || !cJSON_IsObject(cJSON_GetObjectItem(c, "judgements"))) {
    cJSON_Delete(c); /* none, or another format: judge again */
    c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "format", KNOWN_CACHE_FORMAT);
    cJSON_AddObjectToObject(c, "judgements");
  }
  return c;
}

static int cache_save(const char *dir, const cJSON *c, af_err *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/known.json", dir);
  char *text = cJSON_Print(c);
  int rc = af_write_atomic(path, text, strlen(text), err);
  cJSON_free(text);
  return rc;
}

/* The cached judgement of k on converter conv on this stack, borrowed; NULL when there is none
 * of k's present text. */
static const cJSON *cache_get(const cJSON *c, const known_case *k, const char *conv, const char *slot) {
  const cJSON *e = cJSON_GetObjectItem(cJSON_GetObjectItem(c, "judgements"), slot);
  char dg[32];
  snprintf(dg, sizeof dg, "%016llx", (unsigned long long)k->digest);
  const char *d = str_of(e, "digest"), *cv = str_of(e, "converter"), *st = str_of(e, "stack");
  if (!d || !cv || !st || strcmp(d, dg) || strcmp(cv, conv) || strcmp(st, at_stack()) || !str_of(e, "verdict")) return NULL;
  return e;
}

static void cache_put(cJSON *c, const known_case *k, const char *conv, const char *slot, const judgement *j) {
  cJSON *js = cJSON_GetObjectItem(c, "judgements");
  cJSON *e = cJSON_CreateObject();
  char dg[32];
  snprintf(dg, sizeof dg, "%016llx", (unsigned long long)k->digest);
  cJSON_AddStringToObject(e, "case", k->id);
  cJSON_AddStringToObject(e, "digest", dg);
  cJSON_AddStringToObject(e, "converter", conv);
  cJSON_AddStringToObject(e, "stack", at_stack());
  cJSON_AddStringToObject(e, "verdict", oracle_verdict_name(j->verdict));
  cJSON_AddStringToObject(e, "detail", j->detail ? j->detail : "");
  cJSON_DeleteItemFromObjectCaseSensitive(js, slot);
  cJSON_AddItemToObject(js, slot, e);
}

/* ------------------------------------------------------------------ matching */

static void unmark(cJSON *cls) {
  cJSON_DeleteItemFromObjectCaseSensitive(cls, "known");
  cJSON_DeleteItemFromObjectCaseSensitive(cls, "known_case");
  cJSON_DeleteItemFromObjectCaseSensitive(cls, "known_state");
  cJSON_DeleteItemFromObjectCaseSensitive(cls, "known_url");
  cJSON_DeleteItemFromObjectCaseSensitive(cls, "known_source");
  cJSON_DeleteItemFromObjectCaseSensitive(cls, "known_upstream");
}

static int has_class_of(const cJSON *idx, const char *conv) {
  const cJSON *cls;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
    const char *cv = str_of(cls, "converter");
    if (cv && !strcmp(cv, conv)) return 1;
  }
  return 0;
}

/* The verdict group of a class key ("converter|group|what"): whether two keys have the same. */
static int same_group(const char *ka, const char *kb) {
  const char *a = ka ? strchr(ka, '|') : NULL, *b = kb ? strchr(kb, '|') : NULL;
  if (!a || !b) return 0;
  const char *ea = strchr(a + 1, '|'), *eb = strchr(b + 1, '|');
  return ea && eb && ea - a == eb - b && !strncmp(a, b, (size_t)(ea - a));
}

/* Whether class cls fails the way a known case does (known.h). case_key: the case's class key;
 * case_ek: its error key when it fails with an error, crash, refusal or timeout, else NULL. A
 * converter error downstream of a write keys on the pattern like wrong values do (classes.h), so
 * the key alone would take a class of wrong values for a case that is refused, and the other way
 * round: an erroring case needs a class of its verdict group that shows its error key (whatever
 * the pattern), a case of wrong values a class with the same key that was seen giving wrong
 * values. A class given with a key only (no verdicts) is taken at its key. */
/* Whether patterns a and b hold the same writes (tokens with a placement), in the same order. */
static int same_writes(const char *a, const char *b) {
  for (;;) {
    while (*a && !memchr(a, '@', strcspn(a, " "))) a += strcspn(a, " "), a += *a == ' ';
    while (*b && !memchr(b, '@', strcspn(b, " "))) b += strcspn(b, " "), b += *b == ' ';
    size_t la = strcspn(a, " "), lb = strcspn(b, " ");
    if (!*a || !*b) return !*a && !*b;
    if (la != lb || strncmp(a, b, la)) return 0;
    a += la + (a[la] == ' ');
    b += lb + (b[lb] == ' ');
  }
}

/* Whether the pattern of class key `key` is an instance of one of covers' patterns. */
static int covered(const cJSON *covers, const char *key) {
  const char *kb = strrchr(key, '|');
  const cJSON *c;
  cJSON_ArrayForEach(c, covers) if (kb && cJSON_IsString(c) && classes_pattern_covers(c->valuestring, kb + 1)) return 1;
  return 0;
}

/* Whether class cls was seen giving verdict v (its verdict or one of its verdicts). */
static int seen_as(const cJSON *cls, oracle_verdict v) {
  const char *name = oracle_verdict_name(v), *one = str_of(cls, "verdict");
  const cJSON *e;
  if (one && !strcmp(one, name)) return 1;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(cls, "verdicts")) if (cJSON_IsString(e) && !strcmp(e->valuestring, name)) return 1;
  return 0;
}

static int class_fails_like(const cJSON *cls, const char *case_key, oracle_verdict case_v, const char *case_ek, const cJSON *covers) {
  const char *key = str_of(cls, "key"), *conv = str_of(cls, "converter");
  if (!key || !conv) return 0;
  if (case_ek) {
    /* the case's verdict group is its error verdict, whatever either program writes: a class
     * seen giving that verdict, or one of the case's key group. The key group alone depends on
     * the patterns (an error downstream of a write keys like wrong values, classes.h), so a jit
     * class of `x.view(torch.bfloat16)` alone, refused with pytorch#47964's own error, missed
     * the case, whose program writes through the view */
    if (!seen_as(cls, case_v) && !same_group(key, case_key)) return 0;
    const char *ek = str_of(cls, "error_key"), *detail = str_of(cls, "detail");
    /* the class's own error: its key, or its smallest program's; not any error one of its members
     * once gave on the way (a functionalize as_strided_@in class was marked pytorch#47964 because a
     * member had once failed with the generic "shape '…' is invalid for input of size #") */
    if (ek && !strcmp(ek, case_ek)) return 1;
    char *dk = detail ? sig_error_class(detail) : NULL;
    int same = dk && !strcmp(dk, case_ek);
    free(dk);
    return same;
  }
  /* the case's pattern in the class's, op for op, with the same writes: a class `write@in` (any
   * write into an input is lost) is not the known TorchScript gap `setitem_and@in` (`x[i] &= v`
   * compiles to nothing), which family matching would take it for (a 1.13 onnx campaign marked
   * three such classes with one tracker id); nor is a class `view add_@in add_@view-of-in` the
   * case `add_@in` of a mutated input's strides (pytorch#133512): its second write is more than
   * the case shows (an aot_eager campaign's second-call class was so marked). Views around the
   * same writes are the same bug. A class marked known is read as that upstream bug, so it must
   * be the case's bug */
  const char *kb = strrchr(key, '|'), *cb = strrchr(case_key, '|');
  int op_for_op = kb && cb && classes_pattern_within(cb + 1, kb + 1, 0) && same_writes(cb + 1, kb + 1);
  /* or a report whose mechanism is a family's, as its case says (known.h) */
  if (!kb || !cb) return 0;
  /* a key that is a rule's, not a pattern (classes.h CLASSES_SHARED_REUSE_KEY), matches itself alone */
  int rule = !strcmp(kb + 1, CLASSES_SHARED_REUSE_KEY) || !strcmp(cb + 1, CLASSES_SHARED_REUSE_KEY);
  if (rule ? strcmp(key, case_key) != 0
           : op_for_op ? !classes_keys_match(key, conv, case_key, conv)
                       : !(covered(covers, key) && kb - key == cb - case_key && !strncmp(key, case_key, (size_t)(kb - key))))
    return 0;
  const cJSON *vs = cJSON_GetObjectItem(cls, "verdicts"), *e;
  const char *one = str_of(cls, "verdict");
  if (!cJSON_GetArraySize(vs) && !one) return 1;
  oracle_verdict v;
  cJSON_ArrayForEach(e, vs) if (cJSON_IsString(e) && !oracle_verdict_parse(e->valuestring, &v) && !classes_by_error(v)) return 1;
  return one && !oracle_verdict_parse(one, &v) && !classes_by_error(v);
}

/* The pattern of a pattern-keyed class (its key's last part when it holds a write), else NULL. */
static const char *class_pattern(const cJSON *cls) {
  const char *key = str_of(cls, "key"), *kb = key ? strrchr(key, '|') : NULL;
  return kb && !cJSON_GetObjectItem(cls, "graph_change") && classes_pattern_writes(kb + 1) ? kb + 1 : NULL;
}

/* One known bug is one class (docs/classes.md "Known bugs are one class"): of converter conv's
 * classes, the first one case k marks takes in the others of its verdict group that k marks (its
 * covers name two placements: `unfold write@view-of-in` and `unfold write@view`), and those whose
 * pattern holds one of k's covers with more writes beside it (`unfold write@view index_put_@in`:
 * a later write that carried the zeros to what the program returns), as classes whose patterns
 * hold one another are one class within a placement. A class whose pattern holds more writes
 * than a cover is not marked on its own (it may be another bug: test_known); beside the case's
 * own class it is that class. Returns how many classes were folded. */
/* Whether class cls is marked by case k (its id and source). */
static int marked_by(const cJSON *cls, const known_case *k) {
  const char *kc = str_of(cls, "known_case"), *src = str_of(cls, "known_source");
  return kc && !strcmp(kc, k->id) && !strcmp(src ? src : "upstream", known_source_name(k->source));
}

static int fold_known(cJSON *idx, const char *conv, const known_case *k) {
  cJSON *cls, *into = NULL;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
    const char *cv = str_of(cls, "converter");
    if (cv && !strcmp(cv, conv) && marked_by(cls, k)) {
      into = cls;
      break;
    }
  }
  if (!into) return 0;
  int n = 0;
  for (cJSON *e = cJSON_GetObjectItem(idx, "classes")->child, *next; e; e = next) {
    next = e->next;
    const char *cv = str_of(e, "converter"), *kc = str_of(e, "known_case"), *pat = class_pattern(e);
    if (e == into || !cv || strcmp(cv, conv) != 0 || !same_group(str_of(e, "key"), str_of(into, "key"))) continue;
    int holds = 0;
    const cJSON *c;
    if (!kc && pat && class_pattern(into))
      cJSON_ArrayForEach(c, k->covers) holds |= cJSON_IsString(c) && classes_pattern_covers_within(c->valuestring, pat);
    if (marked_by(e, k) || holds) {
      classes_index_fold(idx, into, e);
      n++;
    }
  }
  return n;
}

/* ------------------------------------------------------------------ cases that need float64 (float64.h) */

typedef struct case_ctx {
  const conv_converter *c;
  double deadline_s;
  oracle_verdict v;    /* what the case gives as it is */
  const char *detail;
  const char *pattern; /* its plain pattern */
} case_ctx;

/* A rerun of a variant of a case's program, as a classes_judge: the same bug when it is in the
 * case's verdict group and, for a case keyed by its error, gives its error key. */
static int case_judge(const ir_program *q, void *ctx) {
  const case_ctx *x = ctx;
  judgement j = {0};
  af_err e;
  if (known_judge(x->c, q, x->deadline_s, 0, &j, &e)) return CLASSES_NOT_RUN;
  int r = j.verdict == V_INVALID_PROGRAM ? CLASSES_INVALID : j.verdict == V_PASS ? CLASSES_PASS : CLASSES_OTHER;
  if (r == CLASSES_OTHER && !strcmp(classes_verdict_group(j.verdict, x->pattern), classes_verdict_group(x->v, x->pattern))) {
    r = CLASSES_SAME;
    if (classes_keyed_by_error(x->v, x->pattern)) {
      char *a = sig_error_class(j.detail ? j.detail : ""), *b = sig_error_class(x->detail ? x->detail : "");
      if (strcmp(a, b) != 0) r = CLASSES_OTHER;
      free(a);
      free(b);
    }
  }
  judgement_clear(&j);
  return r;
}

/* f64_needs of case k failing on c with verdict v and detail (its plain pattern `pattern`), cached
 * in the campaign folder's known.json beside its judgement (slot "ID|CONVERTER|float64"). */
static int case_needs_float64(cJSON *cache, const known_case *k, const conv_converter *c, oracle_verdict v, const char *detail,
                              const char *pattern, double deadline_s, int *judged) {
  if (!f64_has(k->p, AF_FLOAT64)) return -1;
  char slot[512], dg[32];
  slot_of(k, c->name, "|float64", slot, sizeof slot);
  snprintf(dg, sizeof dg, "%016llx", (unsigned long long)k->digest);
  cJSON *js = cJSON_GetObjectItem(cache, "judgements");
  const cJSON *e = cJSON_GetObjectItem(js, slot);
  const char *d = str_of(e, "digest"), *cv = str_of(e, "converter"), *st = str_of(e, "stack");
  if (d && cv && st && !strcmp(d, dg) && !strcmp(cv, c->name) && !strcmp(st, at_stack()) && cJSON_IsNumber(cJSON_GetObjectItem(e, "needs")))
    return (int)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "needs"));
  case_ctx x = {c, deadline_s, v, detail, pattern};
  cJSON *row = cJSON_CreateObject();
  int needs = f64_needs(k->p, case_judge, &x, row, NULL);
  cJSON_AddStringToObject(row, "case", k->id);
  cJSON_AddStringToObject(row, "digest", dg);
  cJSON_AddStringToObject(row, "converter", c->name);
  cJSON_AddStringToObject(row, "stack", at_stack());
  cJSON_AddNumberToObject(row, "needs", needs);
  cJSON_DeleteItemFromObjectCaseSensitive(js, slot);
  cJSON_AddItemToObject(js, slot, row);
  ++*judged;
  return needs;
}

int known_annotate(cJSON *idx, const conv_converter *c, const char *campaign_dir, double deadline_s, af_err *err) {
  if (!has_class_of(idx, c->name)) return 0;
  known_corpus kc = {0};
  if (known_load_usable(&kc, err)) return -1;
  cJSON *cache = cache_load(campaign_dir);
  char **keys = af_xcalloc((size_t)kc.n + 1, sizeof *keys), **eks = af_xcalloc((size_t)kc.n + 1, sizeof *eks);
  char **f64keys = af_xcalloc((size_t)kc.n + 1, sizeof *f64keys); /* the dtype key of a case that needs float64 */
  oracle_verdict *vs = af_xcalloc((size_t)kc.n + 1, sizeof *vs);     /* what each case gives */
  int applicable[3] = {0}, judged = 0, marked[3] = {0};
  /* a mode of a converter takes the cases of the converter it is a mode of, judged on the mode
   * itself: a case that passes on it matches nothing (an aot_eager-dynamic campaign listed
   * pytorch#185497's class as new, which its switch back to aot_eager said was the same bug) */
  char *base = mode_of(c->name);
  for (int i = 0; i < kc.n; i++) {
    const known_case *k = &kc.cases[i];
    const char *want = known_expected(k, at_stack(), c->name);
    if (!want && base) want = known_expected(k, at_stack(), base);
    if (!want || !strcmp(want, "pass")) continue;
    applicable[k->source]++;
    char slot[512];
    slot_of(k, c->name, "", slot, sizeof slot);
    const cJSON *e = cache_get(cache, k, c->name, slot);
    if (!e) {
      judgement j = {0};
      af_err e2;
      if (known_judge(c, k->p, deadline_s, 0, &j, &e2)) {
        fprintf(stderr, "aliasfuzz: known case %s not judged on %s: %s\n", k->id, c->name, e2.msg);
        continue;
      }
      cache_put(cache, k, c->name, slot, &j);
      judgement_clear(&j);
      judged++;
      e = cache_get(cache, k, c->name, slot);
    }
    oracle_verdict v;
    if (oracle_verdict_parse(str_of(e, "verdict"), &v) || v == V_PASS) continue; /* not there on this build */
    char *pattern = classes_plain_pattern(k->p);
    vs[i] = v;
    keys[i] = classes_key(c->name, v, str_of(e, "detail"), pattern);
    if (classes_by_error(v)) eks[i] = v == V_TIMEOUT ? af_xstrdup("timeout") : sig_error_class(str_of(e, "detail"));
    /* a case whose failure needs float64 (float64.h) is the converter's class keyed on float64 */
    if (f64_keyable(v) && case_needs_float64(cache, k, c, v, str_of(e, "detail"), pattern, deadline_s, &judged) == 1) {
      af_buf fk = {0};
      af_buf_printf(&fk, "%s|%s|%s", c->name, F64_GROUP, F64_KEY);
      f64keys[i] = af_buf_take(&fk);
    }
    free(pattern);
  }
  cJSON *cls;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
    const char *cv = str_of(cls, "converter"), *key = str_of(cls, "key");
    if (!cv || strcmp(cv, c->name) != 0) continue;
    unmark(cls);
    for (int i = 0; i < kc.n && key; i++) {
      if (!keys[i] || !(class_fails_like(cls, keys[i], vs[i], eks[i], kc.cases[i].covers) || (f64keys[i] && !strcmp(key, f64keys[i]))))
        continue;
      const known_case *k = &kc.cases[i];
      cJSON_AddStringToObject(cls, "known", k->mark);
      cJSON_AddStringToObject(cls, "known_source", known_source_name(k->source));
      cJSON_AddStringToObject(cls, "known_case", k->id);
      if (k->source != KNOWN_UPSTREAM && k->tracker) cJSON_AddStringToObject(cls, "known_upstream", k->tracker);
      if (k->state) cJSON_AddStringToObject(cls, "known_state", k->state);
      if (k->url) cJSON_AddStringToObject(cls, "known_url", k->url);
      marked[k->source]++;
      break;
    }
  }
  af_err e2;
  if (judged && cache_save(campaign_dir, cache, &e2)) fprintf(stderr, "aliasfuzz: %s\n", e2.msg);
  if (applicable[KNOWN_UPSTREAM] + applicable[KNOWN_FINDING] + applicable[KNOWN_GAP])
    fprintf(stderr,
            "aliasfuzz: known bugs: %d upstream case(s), %d kept finding(s), %d known gap(s) for %s (%d judged now); "
            "%d class(es) known upstream, %d known to aliasfuzz (docs/findings, corpus/known-gaps)\n",
            applicable[KNOWN_UPSTREAM], applicable[KNOWN_FINDING], applicable[KNOWN_GAP], c->name, judged, marked[KNOWN_UPSTREAM],
            marked[KNOWN_FINDING] + marked[KNOWN_GAP]);
  for (int i = 0; i < kc.n; i++) {
    free(keys[i]);
    free(eks[i]);
    free(f64keys[i]);
  }
  free(keys);
  free(eks);
  free(f64keys);
  free(vs);
  free(base);
  cJSON_Delete(cache);
  known_corpus_clear(&kc);
  return 0;
}

int known_fold(cJSON *idx, const conv_converter *c, af_err *err) {
  if (!has_class_of(idx, c->name)) return 0;
  known_corpus kc = {0};
  if (known_load_usable(&kc, err)) return -1;
  int folded = 0;
  for (int i = 0; i < kc.n; i++) folded += fold_known(idx, c->name, &kc.cases[i]);
  if (folded) fprintf(stderr, "aliasfuzz: known bugs: %d class(es) folded into the class of the known bug they show\n", folded);
  known_corpus_clear(&kc);
  return folded;
}

int known_match_key(const conv_converter *c, oracle_verdict v, const char *detail, const char *pattern, const char *cache_dir,
                    double deadline_s, char **tracker, af_err *err) {
  /* a one-class index through known_annotate: the same judging, cache and rule */
  cJSON *idx = cJSON_CreateObject(), *cls = cJSON_CreateObject();
  char *key = classes_key(c->name, v, detail ? detail : "", pattern ? pattern : "");
  cJSON_AddStringToObject(cls, "converter", c->name);
  cJSON_AddStringToObject(cls, "key", key);
  cJSON_AddStringToObject(cls, "verdict", oracle_verdict_name(v));
  cJSON_AddStringToObject(cls, "detail", detail ? detail : "");
  cJSON_AddItemToArray(cJSON_AddArrayToObject(idx, "classes"), cls);
  int rc = known_annotate(idx, c, cache_dir, deadline_s, err);
  const char *k = str_of(cls, "known");
  *tracker = !rc && k ? af_xstrdup(k) : NULL;
  free(key);
  cJSON_Delete(idx);
  return rc;
}
