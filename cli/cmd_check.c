/* cmd_check.c - `aliasfuzz check`: a conformance suite against an expectation file (the
 * pre-merge gate), and `aliasfuzz report`: re-rendering a report folder.
 *
 * Expectation file (corpus/expectations/torch-<major.minor>/<converter>.json: one folder per
 * PyTorch stack, since a converter's verdicts differ between 1.13 and 2.x), one line per case,
 * sorted by id:
 *   {
 *     "format": "aliasfuzz-expectations/1",
 *     "converter": "jit",
 *     "stack": "torch-2.13", "torch": "2.13.0 (venv: ...)", "converter_version": "...",
 *     "stack_note": "how this stack's verdicts differ from the other's (kept by --update-expect)",
 *     "cases": {
 *       "mx-slice-add_-input": "pass",
 *       "mx-slice-add_-through": {"verdict": "input-mutation-lost", "reason": "why", "issue": "URL"}
 *     }
 *   }
 * A case missing from the file is expected to pass. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fnmatch.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../fuzz/findings.h"
#include "../fuzz/judge.h"
#include "../oracle/signature.h"
#include "../harness/codec.h"
#include "../harness/converters/conv_worker.h"
#include "../harness/emit.h"
#include "../reports/report.h"
#include "../reports/report_check.h"
#include "cli.h"

#define EXPECT_FORMAT "aliasfuzz-expectations/1"

static const char *usage_check =
    "usage: aliasfuzz check DIR --converter NAME [--expect FILE] [--junit FILE] [--report DIR]\n"
    "                       [--shard K/N] [--only GLOBS] [--update-expect [--resume]] [--isolate]\n"
    "                       [--deadline S] [--quiet]\n"
    "\n"
    "Runs every case of the conformance suite in DIR (*.json, subfolders included; a case's id is\n"
    "its file name) in eager PyTorch and through the converter, and compares each verdict with the\n"
    "expectation file of this build's PyTorch stack (default:\n"
    "DIR/../expectations/torch-MAJOR.MINOR/NAME.json, named on the first line of output): case id ->\n"
    "expected verdict, with an optional reason and issue. A case missing from the file is expected\n"
    "to pass. A file written on another stack or for another converter is refused.\n"
    "\n"
    "  --expect FILE     the expectation file\n"
    "  --junit FILE      JUnit XML: regressions fail, known failures are skipped\n"
    "  --report DIR      write DIR/check-NAME.json and re-render DIR/conformance.md and\n"
    "                    DIR/report.html (with the check files of other converters in DIR)\n"
    "  --shard K/N       run only the cases whose id hashes to K-1 mod N (FNV-1a of the id: a\n"
    "                    case stays in its shard when cases are added or removed)\n"
    "  --only GLOBS      run only the cases whose id matches one of the comma-separated shell\n"
    "                    patterns (`--only 'mx-*-setitem_and-*,ch2-*'`: the cases of a new op);\n"
    "                    like a shard, the other cases' expectations are kept as they are\n"
    "  --resume          with --update-expect: skip the cases the expectation file has an entry\n"
    "                    for (a whole-suite run of a slow converter, hours, goes on where a stopped\n"
    "                    one left off: the file is saved every minute while it runs)\n"
    "  --update-expect   rewrite the expectation file with this run's verdicts (reasons of\n"
    "                    unchanged verdicts are kept; what the file gained on disk while the\n"
    "                    run went on, a reason added by hand or other cases, is merged in;\n"
    "                    entries of cases no longer in DIR are dropped inside the run's shard\n"
    "                    and --only, unless they outnumber the file's cases in DIR); exit 0\n"
    "  --isolate         judge every case in a forked child (for in-process converters that may\n"
    "                    crash; a worker converter's crash is a verdict already, and the child\n"
    "                    starts the worker anew for every case: tvm-relax took 10 s a case so,\n"
    "                    1 s without)\n"
    "  --deadline S      per-case deadline with --isolate (default 30)\n"
    "  --quiet           print only regressions and the summary\n"
    "\n"
    "Prints REGRESSION and NEWLY-PASSING lines naming the cases, then a summary.\n";

static const char *usage_report =
    "usage: aliasfuzz report DIR [--table family|view|write]\n"
    "\n"
    "Re-renders a report folder from its JSON. A conformance folder (check-*.json, written by\n"
    "`aliasfuzz check --report DIR`) gets DIR/conformance.md and DIR/report.html; a campaign folder\n"
    "(report.json, written by `aliasfuzz fuzz`) gets DIR/report.md and DIR/report.html.\n"
    "--table BY prints the Markdown pass-rate table of a conformance folder instead, BY being\n"
    "family, view or write.\n";

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

/* What the file on disk gained while this run went on (someone added a reason by hand, or
 * another run recorded other cases): an entry this run does not have comes back (unless this run
 * dropped it as stale), and an entry with the verdict this run has takes the disk's reason and
 * issue. This run's verdicts win. A missing or unreadable file changes nothing. */
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
    if (mine && (!mv || strcmp(mv, dv) || !cJSON_IsObject(d) || cJSON_GetArraySize(d) <= cJSON_GetArraySize(mine))) continue;
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

/* The expectation of one case after a run: keeps reason/issue when the verdict is unchanged. */
static void expect_set(expect *x, const char *id, const char *verdict) {
  cJSON *old = cJSON_GetObjectItem(x->cases, id);
  const char *ov = !old ? NULL : cJSON_IsString(old) ? old->valuestring : cJSON_GetStringValue(cJSON_GetObjectItem(old, "verdict"));
  if (ov && !strcmp(ov, verdict)) return;
  cJSON_DeleteItemFromObject(x->cases, id);
  cJSON_AddStringToObject(x->cases, id, verdict);
}

/* ---- the command ---- */

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
  if (update) expect_set(x, b->tag, oracle_verdict_name(V_CRASH));
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

static int parse_shard(const char *s, int *k, int *n) {
  char extra;
  return sscanf(s, "%d/%d%c", k, n, &extra) == 2 && *n >= 1 && *k >= 1 && *k <= *n ? 0 : -1;
}

int cmd_check(int argc, char **argv) {
  const char *dir = NULL, *conv_name = NULL, *expect_path = NULL, *junit = NULL, *report_dir = NULL, *only = NULL;
  int shard_k = 1, shard_n = 1, update = 0, isolate = 0, quiet = 0, resume = 0;
  char *todo = NULL; /* per case: this run judges it */
  double deadline = 30;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cli_help(usage_check, "check");
      return 0;
    } else if (!strcmp(a, "--converter") && more) conv_name = argv[++i];
    else if (!strcmp(a, "--expect") && more) expect_path = argv[++i];
    else if (!strcmp(a, "--junit") && more) junit = argv[++i];
    else if (!strcmp(a, "--report") && more) report_dir = argv[++i];
    else if (!strcmp(a, "--shard") && more) {
      if (parse_shard(argv[++i], &shard_k, &shard_n))
        return cli_usage_error(usage_check, "check: --shard wants K/N with 1 <= K <= N, not %s", argv[i]);
    } else if (!strcmp(a, "--only") && more) {
      only = argv[++i];
      if (!*only) return cli_usage_error(usage_check, "check: --only wants comma-separated patterns%s", "");
    } else if (!strcmp(a, "--update-expect")) update = 1;
    else if (!strcmp(a, "--resume")) resume = 1;
    else if (!strcmp(a, "--isolate")) isolate = 1;
    else if (!strcmp(a, "--quiet")) quiet = 1;
    else if (!strcmp(a, "--deadline") && more) deadline = atof(argv[++i]);
    else if (a[0] == '-') return cli_usage_error(usage_check, "check: unknown option %s", a);
    else if (!dir) dir = a;
    else return cli_usage_error(usage_check, "check: more than one suite folder (%s)", a);
  }
  if (!dir) return cli_usage_error(usage_check, "check: no suite folder given%s", "");
  if (resume && !update) return cli_usage_error(usage_check, "check: --resume goes with --update-expect%s", "");
  if (!conv_name) return cli_usage_error(usage_check, "check: --converter is required%s", "");
  const conv_converter *c = conv_find(conv_name);
  if (!c) return cli_usage_error(usage_check, "check: unknown converter '%s' (see `aliasfuzz converters`)", conv_name);
  const char *why = NULL;
  if (!c->available(c, &why)) {
    fprintf(stderr, "aliasfuzz: converter %s is not available here: %s\n", c->name, why ? why : "unknown reason");
    return 2;
  }
  char default_expect[4096];
  if (!expect_path) {
    char *tmp = af_xstrdup(dir);
    size_t l = strlen(tmp);
    while (l > 1 && tmp[l - 1] == '/') tmp[--l] = 0;
    snprintf(default_expect, sizeof default_expect, "%s/expectations/%s/%s.json", dirname(tmp), at_stack(), c->name);
    free(tmp);
    expect_path = default_expect;
  }
  af_err err;
  expect x;
  if (expect_load(expect_path, update, &x, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    cJSON_Delete(x.root);
    return 2;
  }

  /* a file of another stack or converter is refused, --update-expect too: it would overwrite it */
  const char *xstack = cJSON_GetStringValue(cJSON_GetObjectItem(x.root, "stack"));
  const char *xconv = cJSON_GetStringValue(cJSON_GetObjectItem(x.root, "converter"));
  if (xstack && strcmp(xstack, at_stack()) != 0) {
    fprintf(stderr, "aliasfuzz: %s: written on the %s stack, but this build is %s (LibTorch %s, %s); use the %s file\n",
            expect_path, xstack, at_stack(), at_version(), at_stack_origin(), at_stack());
    cJSON_Delete(x.root);
    return 2;
  }
  if (xconv && strcmp(xconv, c->name) != 0) {
    fprintf(stderr, "aliasfuzz: %s: recorded for converter %s, but this check runs %s; give --expect the file of %s\n", expect_path,
            xconv, c->name, c->name);
    cJSON_Delete(x.root);
    return 2;
  }
  printf("expectations: %s (stack %s: LibTorch %s, %s)\n", expect_path, at_stack(), at_version(), at_stack_origin());
  fflush(stdout);

  ccase *cs = NULL;
  int ncs = 0;
  collect(dir, &cs, &ncs, 0);
  int rc = 0;
  if (!ncs) {
    fprintf(stderr, "aliasfuzz: %s: no case files (*.json)\n", dir);
    rc = 2;
    goto out;
  }
  qsort(cs, (size_t)ncs, sizeof(ccase), cmp_case);
  for (int i = 1; i < ncs; i++)
    if (!strcmp(cs[i].id, cs[i - 1].id)) {
      fprintf(stderr, "aliasfuzz: case id %s is used twice: %s and %s\n", cs[i].id, cs[i - 1].file, cs[i].file);
      rc = 2;
      goto out;
    }

  cJSON *doc = cJSON_CreateObject(), *jcases = NULL;
  cJSON_AddStringToObject(doc, "format", REPORT_CHECK_FORMAT);
  cJSON_AddStringToObject(doc, "converter", c->name);
  cJSON_AddStringToObject(doc, "converter_version", c->version(c));
  cJSON_AddStringToObject(doc, "aliasfuzz", AF_VERSION);
  cJSON_AddStringToObject(doc, "libtorch", at_version());
  cJSON_AddStringToObject(doc, "stack", at_stack());
  cJSON_AddStringToObject(doc, "stack_origin", at_stack_origin());
  cJSON_AddStringToObject(doc, "suite", dir);
  cJSON_AddStringToObject(doc, "expect", expect_path);
  char shard[32];
  snprintf(shard, sizeof shard, "%d/%d", shard_k, shard_n);
  cJSON_AddStringToObject(doc, "shard", shard);
  if (only) cJSON_AddStringToObject(doc, "only", only);
  cJSON *summary = cJSON_AddObjectToObject(doc, "summary");
  jcases = cJSON_AddArrayToObject(doc, "cases");
  int counts[RC_STATUS_COUNT] = {0}, verdicts[V_COUNT] = {0}, ncases = 0;
  oracle_opts oo = {0};
  /* the worker shared by every case without --isolate: it traces crashes to the case that left it broken */
  conv_worker *worker = isolate ? NULL : conv_worker_of(c);
  double t0 = now_s(), last_note = t0;
  /* expectations of cases that are gone: the file's entries in this run's selection (its shard and
   * --only) that name no case of DIR. When they outnumber the entries that do, the file is not
   * DIR's (a whole-suite file checked against a part of the suite): none is dropped or listed. */
  int stale = 0, present = 0;
  for (cJSON *e = x.cases->child; e; e = e->next) {
    ccase key = {.id = e->string};
    if (!in_selection(e->string, shard_k, shard_n, only)) continue;
    if (bsearch(&key, cs, (size_t)ncs, sizeof(ccase), cmp_case)) present++;
    else stale++;
  }
  /* the cases this run judges: its shard, --only, and with --resume none the file has already */
  todo = af_xcalloc((size_t)ncs + 1, 1);
  int ntodo = 0, skipped = 0;
  for (int i = 0; i < ncs; i++) {
    if (!in_selection(cs[i].id, shard_k, shard_n, only)) continue;
    if (resume && cJSON_GetObjectItem(x.cases, cs[i].id)) {
      skipped++;
      continue;
    }
    todo[i] = 1, ntodo++;
  }
  if (resume) fprintf(stderr, "check: --resume: %d cases already in %s, %d to run\n", skipped, expect_path, ntodo);
  for (int i = 0; i < ncs; i++) {
    if (!todo[i]) continue;
    double tnow = now_s();
    if (tnow - last_note >= 60 && ncases > 0) { /* progress on long runs, and nothing lost if stopped */
      last_note = tnow;
      double per = (tnow - t0) / ncases;
      fprintf(stderr, "check: %d of %d cases in %.0f s (%d regressions so far), about %.0f min left%s%s\n", ncases, ntodo,
              tnow - t0, counts[RC_REGRESSION], per * (ntodo - ncases) / 60, update ? "; saved to " : "", update ? expect_path : "");
      if (update && expect_save(&x, expect_path, c, &err)) fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    }
    ir_program *p = NULL;
    if (codec_read_file(cs[i].file, &p, &err)) {
      fprintf(stderr, "aliasfuzz: %s\n", err.msg);
      rc = 2;
      continue;
    }
    cJSON *m = p->meta ? cJSON_Parse(p->meta) : NULL;
    const char *mid = m ? cJSON_GetStringValue(cJSON_GetObjectItem(m, "id")) : NULL;
    if (mid && strcmp(mid, cs[i].id) != 0) {
      fprintf(stderr, "aliasfuzz: %s: meta.id is \"%s\" but a case's id is its file name (%s)\n", cs[i].file, mid, cs[i].id);
      rc = 2;
    }
    cJSON_Delete(m);
    judgement j;
    double tc = now_s();
    if (worker) conv_worker_set_tag(worker, cs[i].id); /* a blame names the case (charge_blame) */
    int jr = isolate ? judge_isolated(c, p, &oo, deadline, &j, &err) : judge_inprocess(c, p, &oo, &j, &err);
    tc = now_s() - tc;
    if (jr) {
      /* the harness itself failed (inputs could not be built): report it as an error verdict */
      j.verdict = V_ERROR;
      j.detail = af_xstrdup(err.msg);
    }
    const char *got = oracle_verdict_name(j.verdict), *reason, *issue;
    const char *exp = expect_get(&x, cs[i].id, &reason, &issue);
    report_case_status st = case_status(j.verdict, exp);
    counts[st]++;
    verdicts[j.verdict]++;
    ncases++;
    print_case(st, cs[i].id, exp, j.verdict, j.detail, reason, quiet);

    cJSON *jc = cJSON_CreateObject();
    cJSON_AddStringToObject(jc, "id", cs[i].id);
    cJSON_AddStringToObject(jc, "file", cs[i].file);
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
    cJSON_AddItemToArray(jcases, jc);
    if (update) expect_set(&x, cs[i].id, got);
    conv_worker_blame blame;
    if (worker && conv_worker_take_blame(worker, &blame)) { /* this case's crash, traced to an earlier one */
      charge_blame(&blame, jcases, &x, update, quiet, counts, verdicts);
      conv_worker_blame_clear(&blame);
    }
    judgement_clear(&j);
    ir_program_free(p);
  }
  double secs = now_s() - t0;
  cJSON_AddNumberToObject(doc, "seconds", (double)(int64_t)(secs * 1000) / 1000);
  cJSON_AddNumberToObject(summary, "cases", ncases);
  for (int s = 0; s < RC_STATUS_COUNT; s++) cJSON_AddNumberToObject(summary, report_case_status_name((report_case_status)s), counts[s]);
  cJSON *jv = cJSON_AddObjectToObject(summary, "verdicts");
  for (int v = 0; v < V_COUNT; v++)
    if (verdicts[v]) cJSON_AddNumberToObject(jv, oracle_verdict_name((oracle_verdict)v), verdicts[v]);

  /* expectations of cases that are gone (counted before the run): entries in this run's selection */
  if (stale > present) {
    printf("%d entries of %s name no case in %s (%d do): kept, as the file is not this suite's\n", stale, expect_path, dir, present);
    stale = 0;
  }
  for (cJSON *e = stale ? x.cases->child : NULL, *next; e; e = next) {
    next = e->next;
    ccase key = {.id = e->string};
    if (bsearch(&key, cs, (size_t)ncs, sizeof(ccase), cmp_case) || !in_selection(e->string, shard_k, shard_n, only)) continue;
    if (update) {
      if (!x.removed) x.removed = cJSON_CreateObject();
      cJSON_AddTrueToObject(x.removed, e->string);
      cJSON_DeleteItemFromObject(x.cases, e->string);
    } else if (!quiet) {
      printf("stale expectation %s: no such case in %s\n", e->string, dir);
    }
  }

  char *text = cJSON_Print(doc);
  if (junit && report_junit_write(junit, text, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    rc = 2;
  }
  if (report_dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/check-%s.json", report_dir, c->name);
    struct stat st;
    if (stat(report_dir, &st) != 0 && mkdir(report_dir, 0777) != 0) {
      fprintf(stderr, "aliasfuzz: cannot create %s\n", report_dir);
      rc = 2;
    } else if (codec_write_atomic(path, text, strlen(text), &err) || report_conformance_render(report_dir, &err)) {
      fprintf(stderr, "aliasfuzz: %s\n", err.msg);
      rc = 2;
    }
  }
  cJSON_free(text);
  cJSON_Delete(doc);

  printf("check %s (%s) on %s%s%s%s%s: %d cases in %.1f s: %d pass, %d known failures, %d newly passing, %d regressions\n",
         c->name, c->version(c), dir, shard_n > 1 ? " shard " : "", shard_n > 1 ? shard : "", only ? " only " : "", only ? only : "",
         ncases, secs, counts[RC_PASS],
         counts[RC_KNOWN], counts[RC_NEWLY_PASSING], counts[RC_REGRESSION]);
  if (update) {
    if (expect_save(&x, expect_path, c, &err)) {
      fprintf(stderr, "aliasfuzz: %s\n", err.msg);
      rc = 2;
    } else {
      printf("wrote %s (%d cases%s)\n", expect_path, cJSON_GetArraySize(x.cases), stale ? ", stale entries removed" : "");
    }
  } else {
    if (counts[RC_NEWLY_PASSING]) {
      char *cmd = update_command(dir, c->name, expect_path, shard_k, shard_n, only, isolate, deadline);
      printf("%d newly passing: tighten %s with `%s`\n", counts[RC_NEWLY_PASSING], expect_path, cmd);
      free(cmd);
    }
    if (counts[RC_REGRESSION] && !rc) rc = 1;
  }
out:
  for (int i = 0; i < ncs; i++) free(cs[i].id), free(cs[i].file);
  free(cs);
  free(todo);
  cJSON_Delete(x.root);
  cJSON_Delete(x.removed);
  return rc;
}

int cmd_report(int argc, char **argv) {
  const char *dir = NULL, *table = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      cli_help(usage_report, "report");
      return 0;
    } else if (!strcmp(argv[i], "--table") && i + 1 < argc) {
      table = argv[++i];
    } else if (argv[i][0] == '-') {
      return cli_usage_error(usage_report, "report: unknown option %s", argv[i]);
    } else if (!dir) {
      dir = argv[i];
    } else {
      return cli_usage_error(usage_report, "report: more than one folder (%s)", argv[i]);
    }
  }
  if (!dir) return cli_usage_error(usage_report, "report: no folder given%s", "");
  af_err err;
  if (table) {
    char *t = report_conformance_table(dir, table, &err);
    if (!t) {
      fprintf(stderr, "aliasfuzz: %s\n", err.msg);
      return 2;
    }
    fputs(t, stdout);
    free(t);
    return 0;
  }
  if (report_render(dir, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    return 2;
  }
  printf("rendered %s/report.html\n", dir);
  return 0;
}
