/* check.c - the conformance runner; see check.h */
#include "check.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fnmatch.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../harness/codec.h"
#include "../harness/converters/conv_worker.h"
#include "../harness/emit.h"
#include "../harness/torch/shim.h"
#include "../oracle/signature.h"
#include "../reports/report.h"
#include "findings.h"
#include "judge.h"

#define EXPECT_FORMAT "aliasfuzz-expectations/1"

/* ---- cases ---- */

typedef struct ccase {
  char *id, *file;
} ccase;

static int cmp_case(const void *a, const void *b) { return strcmp(((const ccase *)a)->id, ((const ccase *)b)->id); }

static void collect(const char *dir, ccase **cs, int *n, int depth) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth < 4) collect(path, cs, n, depth + 1);
      continue;
    }
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    *cs = af_xrealloc(*cs, sizeof(ccase) * (size_t)(*n + 1));
    (*cs)[*n].id = af_xstrdup(e->d_name);
    (*cs)[*n].id[len - 5] = 0;
    (*cs)[*n].file = af_xstrdup(path);
    (*n)++;
  }
  if (d) closedir(d);
}

/* ---- expectations ---- */

typedef struct expect {
  cJSON *root;    /* the whole file, or a fresh one */
  cJSON *cases;   /* borrowed from root */
  cJSON *removed; /* ids this run dropped as stale (their entries are not merged back), or NULL */
} expect;

static int expect_load(const char *path, int may_be_missing, expect *x, af_err *err) {
  memset(x, 0, sizeof *x);
  FILE *f = fopen(path, "r");
  if (!f) {
    if (!may_be_missing) return af_fail(err, "%s: cannot read the expectation file (create it with --update-expect)", path);
    x->root = cJSON_CreateObject();
    cJSON_AddStringToObject(x->root, "format", EXPECT_FORMAT);
    x->cases = cJSON_AddObjectToObject(x->root, "cases");
    return 0;
  }
  fclose(f);
  char *text = codec_slurp(path, NULL, err);
  if (!text) return -1;
  x->root = cJSON_Parse(text);
  free(text);
  if (!x->root || !cJSON_IsObject(x->root)) return af_fail(err, "%s: not a JSON object", path);
  const char *fmt = cJSON_GetStringValue(cJSON_GetObjectItem(x->root, "format"));
  if (!fmt || strcmp(fmt, EXPECT_FORMAT) != 0) return af_fail(err, "%s: format: expected \"%s\"", path, EXPECT_FORMAT);
  x->cases = cJSON_GetObjectItem(x->root, "cases");
  if (!cJSON_IsObject(x->cases)) return af_fail(err, "%s: cases: expected an object (case id -> verdict)", path);
  for (cJSON *c = x->cases->child; c; c = c->next) {
    const char *v = cJSON_IsString(c) ? c->valuestring : cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
    oracle_verdict q;
    if (!v || oracle_verdict_parse(v, &q) != 0)
      return af_fail(err, "%s: cases.%s: expected a verdict name or {\"verdict\": NAME, \"reason\": TEXT}", path, c->string);
  }
  return 0;
}

/* Expected verdict of a case (NULL: none), and its reason / issue (borrowed or NULL). */
static const char *expect_get(const expect *x, const char *id, const char **reason, const char **issue) {
  cJSON *c = cJSON_GetObjectItem(x->cases, id);
  *reason = *issue = NULL;
  if (!c) return NULL;
  if (cJSON_IsString(c)) return c->valuestring;
  *reason = cJSON_GetStringValue(cJSON_GetObjectItem(c, "reason"));
  *issue = cJSON_GetStringValue(cJSON_GetObjectItem(c, "issue"));
  return cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
}

static void put_json_str(af_buf *b, const char *s) {
  cJSON *j = cJSON_CreateString(s ? s : "");
  char *t = cJSON_PrintUnformatted(j);
  af_buf_puts(b, t);
  cJSON_free(t);
  cJSON_Delete(j);
}

static int by_key(const void *a, const void *b) { return strcmp((*(cJSON *const *)a)->string, (*(cJSON *const *)b)->string); }

static const char *entry_verdict(const cJSON *c) {
  return cJSON_IsString(c) ? c->valuestring : cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
}

/* How a reason --update-expect took from a run's detail ends: it was not written by a person. */
#define RUN_REASON_MARK " (the run's detail, not read case by case)"
#define RUN_REASON_MAX 300

/* The one-line reason of a failure read from the run: the detail up to its first line (a worker
 * joins an error's lines with " | "; the oracle's detail is one line already), cut at
 * RUN_REASON_MAX characters, then where the error was raised (" (in pkg/file.py:fn < ...)", which
 * a worker's detail ends with) when the cut took it away, then RUN_REASON_MARK. NULL for an empty
 * detail. new, free with free(). */
static char *run_reason(const char *detail) {
  if (!detail || !*detail) return NULL;
  size_t len = strcspn(detail, "\n");
  const char *bar = strstr(detail, " | ");
  if (bar && (size_t)(bar - detail) < len) len = (size_t)(bar - detail);
  const char *site = strstr(detail, " (in ");
  for (const char *q = site; q; q = strstr(q + 1, " (in ")) site = q; /* the last one */
  size_t dlen = strlen(detail), kept = len > RUN_REASON_MAX ? RUN_REASON_MAX : len;
  while (kept < len && kept && ((unsigned char)detail[kept] & 0xC0) == 0x80) kept--; /* not inside a UTF-8 character */
  if (site && (detail[dlen - 1] != ')' || (size_t)(site - detail) < kept)) site = NULL;
  af_buf b = {0};
  af_buf_printf(&b, "%.*s%s", (int)kept, detail, kept < len ? "..." : "");
  while (b.len && b.s[b.len - 1] == ' ') b.s[--b.len] = 0;
  if (site) af_buf_puts(&b, site);
  af_buf_puts(&b, RUN_REASON_MARK);
  return af_buf_take(&b);
}

/* Whether an entry's reason was read from a run (run_reason), not written by a person. */
static int reason_is_from_run(const cJSON *entry) {
  const char *r = cJSON_GetStringValue(cJSON_GetObjectItem(entry, "reason"));
  size_t n = r ? strlen(r) : 0, m = strlen(RUN_REASON_MARK);
  return n >= m && !strcmp(r + n - m, RUN_REASON_MARK);
}

/* What the file on disk gained while this run went on (someone added a reason by hand, or
 * another run recorded other cases): an entry this run does not have comes back (unless this run
 * dropped it as stale), and an entry with the verdict this run has takes the disk's reason and
 * issue (a person's reason on disk replaces one this run read from its detail). This run's
 * verdicts win. A missing or unreadable file changes nothing. */
static void expect_merge_disk(expect *x, const char *path) {
  char *text = codec_slurp(path, NULL, NULL);
  cJSON *disk = text ? cJSON_Parse(text) : NULL;
  free(text);
  cJSON *dc = disk ? cJSON_GetObjectItem(disk, "cases") : NULL;
  for (cJSON *d = cJSON_IsObject(dc) ? dc->child : NULL; d; d = d->next) {
    const char *dv = entry_verdict(d);
    if (!dv || (x->removed && cJSON_GetObjectItem(x->removed, d->string))) continue;
    cJSON *mine = cJSON_GetObjectItem(x->cases, d->string);
    const char *mv = mine ? entry_verdict(mine) : NULL;
    int disk_reason_by_hand = cJSON_GetObjectItem(d, "reason") && !reason_is_from_run(d);
    if (mine && (!mv || strcmp(mv, dv) || !cJSON_IsObject(d) ||
                 (cJSON_GetArraySize(d) <= cJSON_GetArraySize(mine) && !(disk_reason_by_hand && reason_is_from_run(mine)))))
      continue;
    cJSON_DeleteItemFromObject(x->cases, d->string);
    cJSON_AddItemToObject(x->cases, d->string, cJSON_Duplicate(d, 1));
  }
  cJSON_Delete(disk);
}

/* Writes the expectation file: one line per case, sorted by id, after merging what the file on
 * disk gained since it was read (expect_merge_disk). */
static int expect_save(expect *x, const char *path, const conv_converter *conv, af_err *err) {
  expect_merge_disk(x, path);
  const char *converter = conv->name;
  int n = cJSON_GetArraySize(x->cases), k = 0;
  cJSON **items = af_xcalloc((size_t)n + 1, sizeof(cJSON *));
  for (cJSON *c = x->cases->child; c; c = c->next) items[k++] = c;
  qsort(items, (size_t)n, sizeof(cJSON *), by_key);
  af_buf b = {0};
  af_buf_puts(&b, "{\n  \"format\": \"" EXPECT_FORMAT "\",\n  \"converter\": ");
  put_json_str(&b, converter);
  const char *note = cJSON_GetStringValue(cJSON_GetObjectItem(x->root, "note"));
  af_buf_puts(&b, ",\n  \"note\": ");
  put_json_str(&b, note ? note
                        : "Expected verdict of every conformance case (aliasfuzz check). Written by --update-expect; "
                          "reasons and issues are kept while a verdict stays the same. A missing case is expected to pass.");
  af_buf_printf(&b, ",\n  \"stack\": \"%s\",\n  \"torch\": ", at_stack());
  af_buf b2 = {0};
  af_buf_printf(&b2, "%s (%s)", at_version(), at_stack_origin());
  put_json_str(&b, b2.s);
  af_buf_free(&b2);
  af_buf_puts(&b, ",\n  \"converter_version\": ");
  put_json_str(&b, conv->version(conv));
  const char *snote = cJSON_GetStringValue(cJSON_GetObjectItem(x->root, "stack_note"));
  if (snote) {
    af_buf_puts(&b, ",\n  \"stack_note\": ");
    put_json_str(&b, snote);
  }
  af_buf_puts(&b, ",\n  \"cases\": {");
  for (int i = 0; i < n; i++) {
    af_buf_puts(&b, i ? ",\n    " : "\n    ");
    put_json_str(&b, items[i]->string);
    af_buf_puts(&b, ": ");
    if (cJSON_IsString(items[i])) {
      put_json_str(&b, items[i]->valuestring);
    } else { /* {"verdict": V, "reason": R, ...} on one line */
      af_buf_puts(&b, "{");
      for (cJSON *f = items[i]->child; f; f = f->next) {
        put_json_str(&b, f->string);
        af_buf_puts(&b, ": ");
        char *t = cJSON_PrintUnformatted(f);
        af_buf_puts(&b, t);
        cJSON_free(t);
        if (f->next) af_buf_puts(&b, ", ");
      }
      af_buf_puts(&b, "}");
    }
  }
  af_buf_puts(&b, n ? "\n  }\n}\n" : "}\n}\n");
  free(items);
  char *folder = af_xstrdup(path);
  int rc = findings_mkdirs(dirname(folder), err);
  free(folder);
  if (!rc) rc = codec_write_atomic(path, b.s, b.len, err);
  af_buf_free(&b);
  return rc;
}

/* The expectation of one case after a run: keeps reason/issue when the verdict is unchanged; a
 * failure left without a reason gets the run's (run_reason of detail). */
static void expect_set(expect *x, const char *id, const char *verdict, const char *detail) {
  cJSON *old = cJSON_GetObjectItem(x->cases, id);
  const char *ov = old ? entry_verdict(old) : NULL;
  if (!ov || strcmp(ov, verdict)) {
    cJSON_DeleteItemFromObject(x->cases, id);
    old = cJSON_AddStringToObject(x->cases, id, verdict);
  }
  char *reason = strcmp(verdict, oracle_verdict_name(V_PASS)) && !cJSON_GetObjectItem(old, "reason") ? run_reason(detail) : NULL;
  if (!reason) return;
  if (cJSON_IsString(old)) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "verdict", verdict);
    cJSON_ReplaceItemInObject(x->cases, id, e);
    old = e;
  }
  cJSON_AddStringToObject(old, "reason", reason);
  free(reason);
}

/* ---- the run ---- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void add_str_or_null(cJSON *o, const char *k, const char *v) {
  if (v) cJSON_AddStringToObject(o, k, v);
  else cJSON_AddNullToObject(o, k);
}

/* family, view, write, note, issue from the case's meta */
static void meta_fields(const ir_program *p, cJSON *c) {
  cJSON *m = p->meta ? cJSON_Parse(p->meta) : NULL;
  static const char *const keys[] = {"family", "view", "write", "issue", NULL};
  for (int k = 0; keys[k]; k++) {
    const char *v = m ? cJSON_GetStringValue(cJSON_GetObjectItem(m, keys[k])) : NULL;
    if (v) cJSON_AddStringToObject(c, keys[k], v);
    else if (k == 0) cJSON_AddStringToObject(c, "family", "other");
  }
  cJSON_Delete(m);
}

/* A case's status: its verdict against its expectation exp (NULL: none). */
static report_case_status case_status(oracle_verdict v, const char *exp) {
  if (v == V_INVALID_PROGRAM) return RC_REGRESSION;
  if (exp && !strcmp(exp, oracle_verdict_name(v))) return v == V_PASS ? RC_PASS : RC_KNOWN;
  if (v == V_PASS) return exp ? RC_NEWLY_PASSING : RC_PASS;
  return RC_REGRESSION;
}

/* The line check prints for a case (nothing for a pass, nor for a known failure with quiet). */
static void print_case(report_case_status st, const char *id, const char *exp, oracle_verdict v, const char *detail,
                       const char *reason, int quiet) {
  char line[600];
  snprintf(line, sizeof line, "%s", detail ? detail : "");
  for (char *q = line; *q; q++)
    if (*q == '\n') *q = ' ';
  const char *got = oracle_verdict_name(v);
  if (st == RC_REGRESSION)
    printf("REGRESSION %s: expected %s, got %s%s%s\n", id, exp ? exp : "pass (no expectation)", got, detail ? ": " : "",
           line);
  else if (st == RC_NEWLY_PASSING)
    printf("NEWLY-PASSING %s: expected %s, now passes\n", id, exp);
  else if (!quiet && st == RC_KNOWN)
    printf("known %s: %s%s%s\n", id, got, reason ? " -- " : "", reason ? reason : "");
  fflush(stdout);
}

/* A worker crash traced to an earlier case (crash attribution, conv_worker.h; b->tag is its id):
 * that case's verdict becomes converter-crash with the blame's detail, in its JSON entry, the
 * counts and the expectations being recorded, and it is printed as any case with that verdict. */
static void charge_blame(const conv_worker_blame *b, cJSON *jcases, expect *x, int update, int quiet, int *counts,
                         int *verdicts) {
  cJSON *jc = NULL;
  for (cJSON *e = jcases->child; e && !jc; e = e->next) {
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(e, "id"));
    if (b->tag && id && !strcmp(id, b->tag)) jc = e;
  }
  if (!jc) return;
  oracle_verdict was;
  if (oracle_verdict_parse(cJSON_GetStringValue(cJSON_GetObjectItem(jc, "verdict")), &was) == 0) verdicts[was]--;
  const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(jc, "status"));
  for (int k = 0; k < RC_STATUS_COUNT; k++)
    if (status && !strcmp(status, report_case_status_name((report_case_status)k))) counts[k]--;
  const char *exp = cJSON_GetStringValue(cJSON_GetObjectItem(jc, "expected")), *reason;
  reason = cJSON_GetStringValue(cJSON_GetObjectItem(jc, "reason"));
  report_case_status st = case_status(V_CRASH, exp);
  counts[st]++;
  verdicts[V_CRASH]++;
  cJSON_ReplaceItemInObject(jc, "verdict", cJSON_CreateString(oracle_verdict_name(V_CRASH)));
  cJSON_ReplaceItemInObject(jc, "status", cJSON_CreateString(report_case_status_name(st)));
  cJSON_ReplaceItemInObject(jc, "detail", cJSON_CreateString(b->detail));
  if (!cJSON_GetObjectItem(jc, "source") && b->program) {
    char *src = emit_torchscript(b->program, "program");
    cJSON_AddStringToObject(jc, "source", src);
    free(src);
  }
  if (update) expect_set(x, b->tag, oracle_verdict_name(V_CRASH), b->detail);
  print_case(st, b->tag, exp, V_CRASH, b->detail, reason, quiet);
}

/* True when id matches one of the comma-separated shell patterns of globs. */
static int id_matches(const char *globs, const char *id) {
  for (const char *g = globs; *g;) {
    const char *end = strchr(g, ',');
    size_t len = end ? (size_t)(end - g) : strlen(g);
    char pat[512];
    if (len && len < sizeof pat) {
      memcpy(pat, g, len);
      pat[len] = 0;
      if (fnmatch(pat, id, 0) == 0) return 1;
    }
    if (!end) break;
    g = end + 1;
  }
  return 0;
}

/* Whether the case id is in a run's selection: its shard (K of N) and --only (NULL: all). */
static int in_selection(const char *id, int shard_k, int shard_n, const char *only) {
  if (shard_n > 1 && sig_fnv1a(id, strlen(id), 0) % (uint64_t)shard_n != (uint64_t)(shard_k - 1)) return 0;
  return !only || id_matches(only, id);
}

/* The command that records this run's verdicts in the file it checked: every option that selects
 * the file and the cases (and how they are judged), quoted for the shell. new, free with free(). */
static char *update_command(const char *dir, const char *conv, const char *expect_path, int shard_k, int shard_n, const char *only,
                            int isolate, double deadline) {
  af_buf b = {0};
  af_buf_puts(&b, "aliasfuzz check ");
  codec_put_shell_word(&b, dir);
  af_buf_puts(&b, " --converter ");
  codec_put_shell_word(&b, conv);
  af_buf_puts(&b, " --expect ");
  codec_put_shell_word(&b, expect_path);
  if (shard_n > 1) af_buf_printf(&b, " --shard %d/%d", shard_k, shard_n);
  if (only) {
    af_buf_puts(&b, " --only ");
    codec_put_shell_word(&b, only);
  }
  if (isolate) af_buf_printf(&b, " --isolate --deadline %g", deadline);
  af_buf_puts(&b, " --update-expect");
  return af_buf_take(&b);
}


/* One check run: what its parts share. */
typedef struct run {
  const check_opts *o;
  const conv_converter *c;
  const char *expect_path;
  expect x;
  ccase *cs;
  int ncs;
  cJSON *doc, *jcases; /* the check document and its cases (borrowed from doc) */
  check_summary *sum;
  conv_worker *worker; /* the worker shared by every case without --isolate, or NULL */
  oracle_opts oo;
} run;

/* The converter and the expectation file: refused when of another stack or converter
 * (--update-expect too: it would overwrite it). path_buf receives the default path. */
static int load_expectations(run *r, char *path_buf, size_t path_len, af_err *err) {
  const check_opts *o = r->o;
  r->c = conv_find(o->converter);
  if (!r->c) return af_fail(err, "unknown converter '%s' (see `aliasfuzz converters`)", o->converter);
  const conv_converter *c = r->c;
  const char *why = NULL;
  if (!c->available(c, &why)) return af_fail(err, "converter %s is not available here: %s", c->name, why ? why : "unknown reason");
  r->expect_path = o->expect;
  if (!r->expect_path) {
    char *tmp = af_xstrdup(o->dir);
    size_t l = strlen(tmp);
    while (l > 1 && tmp[l - 1] == '/') tmp[--l] = 0;
    snprintf(path_buf, path_len, "%s/expectations/%s/%s.json", dirname(tmp), at_stack(), c->name);
    free(tmp);
    r->expect_path = path_buf;
  }
  if (expect_load(r->expect_path, o->update, &r->x, err)) return -1;
  const char *xstack = cJSON_GetStringValue(cJSON_GetObjectItem(r->x.root, "stack"));
  const char *xconv = cJSON_GetStringValue(cJSON_GetObjectItem(r->x.root, "converter"));
  if (xstack && strcmp(xstack, at_stack()) != 0)
    return af_fail(err, "%s: written on the %s stack, but this build is %s (LibTorch %s, %s); use the %s file", r->expect_path, xstack,
                   at_stack(), at_version(), at_stack_origin(), at_stack());
  if (xconv && strcmp(xconv, c->name) != 0)
    return af_fail(err, "%s: recorded for converter %s, but this check runs %s; give --expect the file of %s", r->expect_path, xconv,
                   c->name, c->name);
  return 0;
}

/* The suite's cases, sorted by id; an empty suite or an id used twice is refused. */
static int load_cases(run *r, af_err *err) {
  collect(r->o->dir, &r->cs, &r->ncs, 0);
  if (!r->ncs) return af_fail(err, "%s: no case files (*.json)", r->o->dir);
  qsort(r->cs, (size_t)r->ncs, sizeof(ccase), cmp_case);
  for (int i = 1; i < r->ncs; i++)
    if (!strcmp(r->cs[i].id, r->cs[i - 1].id))
      return af_fail(err, "case id %s is used twice: %s and %s", r->cs[i].id, r->cs[i - 1].file, r->cs[i].file);
  return 0;
}

/* The check document's head (report_check.h); its cases follow as they are judged. */
static void doc_new(run *r) {
  const conv_converter *c = r->c;
  cJSON *doc = r->doc = cJSON_CreateObject();
  cJSON_AddStringToObject(doc, "format", REPORT_CHECK_FORMAT);
  cJSON_AddStringToObject(doc, "converter", c->name);
  cJSON_AddStringToObject(doc, "converter_version", c->version(c));
  cJSON_AddStringToObject(doc, "aliasfuzz", AF_VERSION);
  cJSON_AddStringToObject(doc, "libtorch", at_version());
  cJSON_AddStringToObject(doc, "stack", at_stack());
  cJSON_AddStringToObject(doc, "stack_origin", at_stack_origin());
  cJSON_AddStringToObject(doc, "suite", r->o->dir);
  cJSON_AddStringToObject(doc, "expect", r->expect_path);
  char shard[32];
  snprintf(shard, sizeof shard, "%d/%d", r->o->shard_k, r->o->shard_n);
  cJSON_AddStringToObject(doc, "shard", shard);
  if (r->o->only) cJSON_AddStringToObject(doc, "only", r->o->only);
  cJSON_AddObjectToObject(doc, "summary");
  r->jcases = cJSON_AddArrayToObject(doc, "cases");
}

/* Case i judged, printed, added to the document and (with update) to the expectations; a crash
 * the worker traces to an earlier case is charged to that one. */
static void judge_case(run *r, int i) {
  const check_opts *o = r->o;
  const ccase *cs = &r->cs[i];
  check_summary *sum = r->sum;
  af_err err;
  ir_program *p = NULL;
  if (codec_read_file(cs->file, &p, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    sum->input_errors++;
    return;
  }
  cJSON *m = p->meta ? cJSON_Parse(p->meta) : NULL;
  const char *mid = m ? cJSON_GetStringValue(cJSON_GetObjectItem(m, "id")) : NULL;
  if (mid && strcmp(mid, cs->id) != 0) {
    fprintf(stderr, "aliasfuzz: %s: meta.id is \"%s\" but a case's id is its file name (%s)\n", cs->file, mid, cs->id);
    sum->input_errors++;
  }
  cJSON_Delete(m);
  judgement j;
  double tc = now_s();
  if (r->worker) conv_worker_set_tag(r->worker, cs->id); /* a blame names the case (charge_blame) */
  int jr = o->isolate ? judge_isolated(r->c, p, &r->oo, o->deadline_s, &j, &err) : judge_inprocess(r->c, p, &r->oo, &j, &err);
  tc = now_s() - tc;
  if (jr) {
    /* the harness itself failed (inputs could not be built): report it as an error verdict */
    j.verdict = V_ERROR;
    j.detail = af_xstrdup(err.msg);
  }
  const char *got = oracle_verdict_name(j.verdict), *reason, *issue;
  const char *exp = expect_get(&r->x, cs->id, &reason, &issue);
  report_case_status st = case_status(j.verdict, exp);
  sum->counts[st]++;
  sum->verdicts[j.verdict]++;
  sum->cases++;
  print_case(st, cs->id, exp, j.verdict, j.detail, reason, o->quiet);

  cJSON *jc = cJSON_CreateObject();
  cJSON_AddStringToObject(jc, "id", cs->id);
  cJSON_AddStringToObject(jc, "file", cs->file);
  meta_fields(p, jc);
  cJSON_AddStringToObject(jc, "verdict", got);
  add_str_or_null(jc, "expected", exp);
  cJSON_AddStringToObject(jc, "status", report_case_status_name(st));
  add_str_or_null(jc, "detail", j.detail);
  add_str_or_null(jc, "reason", reason);
  if (issue) cJSON_AddStringToObject(jc, "expect_issue", issue);
  cJSON_AddNumberToObject(jc, "seconds", (double)(int64_t)(tc * 1e5) / 1e5);
  if (j.verdict != V_PASS) {
    char *src = emit_torchscript(p, "program");
    cJSON_AddStringToObject(jc, "source", src);
    free(src);
  }
  cJSON_AddItemToArray(r->jcases, jc);
  if (o->update) expect_set(&r->x, cs->id, got, j.detail);
  conv_worker_blame blame;
  if (r->worker && conv_worker_take_blame(r->worker, &blame)) { /* this case's crash, traced to an earlier one */
    charge_blame(&blame, r->jcases, &r->x, o->update, o->quiet, sum->counts, sum->verdicts);
    conv_worker_blame_clear(&blame);
  }
  judgement_clear(&j);
  ir_program_free(p);
}

/* The cases of todo judged in order, with a progress note every minute on long runs (and, with
 * update, the expectation file saved then: nothing is lost if the run is stopped). */
static void judge_cases(run *r, const char *todo, int ntodo) {
  double t0 = now_s(), last_note = t0;
  af_err err;
  for (int i = 0; i < r->ncs; i++) {
    if (!todo[i]) continue;
    double tnow = now_s();
    if (tnow - last_note >= 60 && r->sum->cases > 0) {
      last_note = tnow;
      double per = (tnow - t0) / r->sum->cases;
      fprintf(stderr, "check: %d of %d cases in %.0f s (%d regressions so far), about %.0f min left%s%s\n", r->sum->cases, ntodo,
              tnow - t0, r->sum->counts[RC_REGRESSION], per * (ntodo - r->sum->cases) / 60, r->o->update ? "; saved to " : "",
              r->o->update ? r->expect_path : "");
      if (r->o->update && expect_save(&r->x, r->expect_path, r->c, &err)) fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    }
    judge_case(r, i);
  }
}

/* Expectations of cases that are gone: the file's entries in this run's selection (its shard and
 * --only) that name no case of DIR: dropped with update, else listed (unless quiet). When they
 * outnumber the entries that do (counted before the run), the file is not DIR's (a whole-suite
 * file checked against a part of the suite): none is dropped or listed. 1 when some were dropped
 * or listed. */
static int stale_entries(run *r, int stale, int present) {
  const check_opts *o = r->o;
  if (stale > present) {
    printf("%d entries of %s name no case in %s (%d do): kept, as the file is not this suite's\n", stale, r->expect_path, o->dir,
           present);
    stale = 0;
  }
  for (cJSON *e = stale ? r->x.cases->child : NULL, *next; e; e = next) {
    next = e->next;
    ccase key = {.id = e->string};
    if (bsearch(&key, r->cs, (size_t)r->ncs, sizeof(ccase), cmp_case) || !in_selection(e->string, o->shard_k, o->shard_n, o->only))
      continue;
    if (o->update) {
      if (!r->x.removed) r->x.removed = cJSON_CreateObject();
      cJSON_AddTrueToObject(r->x.removed, e->string);
      cJSON_DeleteItemFromObject(r->x.cases, e->string);
    } else if (!o->quiet) {
      printf("stale expectation %s: no such case in %s\n", e->string, o->dir);
    }
  }
  return stale != 0;
}

/* The document's summary. */
static void doc_summary(run *r) {
  check_summary *sum = r->sum;
  cJSON_AddNumberToObject(r->doc, "seconds", (double)(int64_t)(sum->seconds * 1000) / 1000);
  cJSON *summary = cJSON_GetObjectItem(r->doc, "summary");
  cJSON_AddNumberToObject(summary, "cases", sum->cases);
  for (int s = 0; s < RC_STATUS_COUNT; s++)
    cJSON_AddNumberToObject(summary, report_case_status_name((report_case_status)s), sum->counts[s]);
  cJSON *jv = cJSON_AddObjectToObject(summary, "verdicts");
  for (int v = 0; v < V_COUNT; v++)
    if (sum->verdicts[v]) cJSON_AddNumberToObject(jv, oracle_verdict_name((oracle_verdict)v), sum->verdicts[v]);
}

/* The outputs: JUnit XML and the report folder. */
static void save_outputs(run *r) {
  const check_opts *o = r->o;
  af_err err;
  char *text = cJSON_Print(r->doc);
  if (o->junit && report_junit_write(o->junit, text, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    r->sum->input_errors++;
  }
  if (o->report_dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/check-%s.json", o->report_dir, r->c->name);
    struct stat st;
    if (stat(o->report_dir, &st) != 0 && mkdir(o->report_dir, 0777) != 0) {
      fprintf(stderr, "aliasfuzz: cannot create %s\n", o->report_dir);
      r->sum->input_errors++;
    } else if (codec_write_atomic(path, text, strlen(text), &err) || report_conformance_render(o->report_dir, &err)) {
      fprintf(stderr, "aliasfuzz: %s\n", err.msg);
      r->sum->input_errors++;
    }
  }
  cJSON_free(text);
}

/* The summary line, then the expectation file written (update) or the newly passing hint. */
static void print_summary(run *r, int stale_removed) {
  const check_opts *o = r->o;
  const check_summary *sum = r->sum;
  af_err err;
  char shard[32];
  snprintf(shard, sizeof shard, "%d/%d", o->shard_k, o->shard_n);
  printf("check %s (%s) on %s%s%s%s%s: %d cases in %.1f s: %d pass, %d known failures, %d newly passing, %d regressions\n",
         r->c->name, r->c->version(r->c), o->dir, o->shard_n > 1 ? " shard " : "", o->shard_n > 1 ? shard : "", o->only ? " only " : "",
         o->only ? o->only : "", sum->cases, sum->seconds, sum->counts[RC_PASS], sum->counts[RC_KNOWN], sum->counts[RC_NEWLY_PASSING],
         sum->counts[RC_REGRESSION]);
  if (o->update) {
    if (expect_save(&r->x, r->expect_path, r->c, &err)) {
      fprintf(stderr, "aliasfuzz: %s\n", err.msg);
      r->sum->input_errors++;
    } else {
      printf("wrote %s (%d cases%s)\n", r->expect_path, cJSON_GetArraySize(r->x.cases), stale_removed ? ", stale entries removed" : "");
    }
  } else if (sum->counts[RC_NEWLY_PASSING]) {
    char *cmd = update_command(o->dir, r->c->name, r->expect_path, o->shard_k, o->shard_n, o->only, o->isolate, o->deadline_s);
    printf("%d newly passing: tighten %s with `%s`\n", sum->counts[RC_NEWLY_PASSING], r->expect_path, cmd);
    free(cmd);
  }
}

/* Whether --resume skips a case of this entry (NULL: none): a pass, or a failure with its reason
 * (a failure without one is run again for the reason its detail gives, expect_set). */
static int recorded(const cJSON *entry) {
  const char *v = entry ? entry_verdict(entry) : NULL;
  return v && (!strcmp(v, oracle_verdict_name(V_PASS)) || cJSON_GetObjectItem(entry, "reason"));
}

int check_run(const check_opts *o, check_summary *sum, af_err *err) {
  memset(sum, 0, sizeof *sum);
  run r = {.o = o, .sum = sum};
  char default_expect[4096];
  char *todo = NULL; /* per case: this run judges it */
  int rc = load_expectations(&r, default_expect, sizeof default_expect, err);
  if (rc) goto out;
  printf("expectations: %s (stack %s: LibTorch %s, %s)\n", r.expect_path, at_stack(), at_version(), at_stack_origin());
  fflush(stdout);
  if ((rc = load_cases(&r, err))) goto out;
  doc_new(&r);
  /* the worker shared by every case without --isolate: it traces crashes to the case that left it broken */
  r.worker = o->isolate ? NULL : conv_worker_of(r.c);
  double t0 = now_s();
  /* the file's entries in this run's selection, of cases in DIR and of cases gone (stale_entries) */
  int stale = 0, present = 0;
  for (cJSON *e = r.x.cases->child; e; e = e->next) {
    ccase key = {.id = e->string};
    if (!in_selection(e->string, o->shard_k, o->shard_n, o->only)) continue;
    if (bsearch(&key, r.cs, (size_t)r.ncs, sizeof(ccase), cmp_case)) present++;
    else stale++;
  }
  /* the cases this run judges: its shard, --only, and with --resume none the file has already */
  todo = af_xcalloc((size_t)r.ncs + 1, 1);
  int ntodo = 0, skipped = 0;
  for (int i = 0; i < r.ncs; i++) {
    if (!in_selection(r.cs[i].id, o->shard_k, o->shard_n, o->only)) continue;
    if (o->resume && recorded(cJSON_GetObjectItem(r.x.cases, r.cs[i].id))) {
      skipped++;
      continue;
    }
    todo[i] = 1, ntodo++;
  }
  if (o->resume) fprintf(stderr, "check: --resume: %d cases already in %s, %d to run\n", skipped, r.expect_path, ntodo);
  judge_cases(&r, todo, ntodo);
  sum->seconds = now_s() - t0;
  doc_summary(&r);
  int removed = stale_entries(&r, stale, present);
  save_outputs(&r);
  print_summary(&r, removed);
out:
  for (int i = 0; i < r.ncs; i++) free(r.cs[i].id), free(r.cs[i].file);
  free(r.cs);
  free(todo);
  cJSON_Delete(r.doc);
  cJSON_Delete(r.x.root);
  cJSON_Delete(r.x.removed);
  return rc;
}
