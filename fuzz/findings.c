/* findings.c - see findings.h */
#define _GNU_SOURCE /* nftw */
#include "findings.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness/codec.h"
#include "../harness/torch/shim.h"
#include "../harness/emit.h"
#include "../harness/emit_repro.h"
#include "../harness/emit_snippet.h"
#include "../oracle/signature.h"

int findings_mkdirs(const char *path, af_err *err) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *c = tmp + 1; *c; c++)
    if (*c == '/') {
      *c = 0;
      if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return af_fail(err, "%s: cannot create: %s", tmp, strerror(errno));
      *c = '/';
    }
  if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return af_fail(err, "%s: cannot create: %s", tmp, strerror(errno));
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

/* rm -rf path; 0 when nothing is left. */
static int remove_tree(const char *path) { return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT ? -1 : 0; }

/* pid of a staging name ".tmp-<signature>-<pid>" or "<file>.tmp.<pid>", or 0 when name is neither. */
static long staging_pid(const char *name) {
  const char *tail = strncmp(name, ".tmp-", 5) == 0 ? strrchr(name, '-') : strstr(name, ".tmp.") ? strrchr(name, '.') : NULL;
  if (!tail || !tail[1]) return 0;
  char *end;
  long pid = strtol(tail + 1, &end, 10);
  return *end || pid <= 0 ? 0 : pid;
}

/* Removes the staging entries (names staging_pid() reads) directly in folder dir; counts them in *n. */
static int clean_folder(const char *dir, int *n, af_err *err) {
  DIR *d = opendir(dir);
  if (!d) return errno == ENOENT ? 0 : af_fail(err, "%s: cannot list: %s", dir, strerror(errno));
  struct dirent *e;
  int rc = 0;
  while (!rc && (e = readdir(d))) {
    if (!staging_pid(e->d_name)) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (remove_tree(path)) rc = af_fail(err, "%s: cannot remove this stale staging entry: %s", path, strerror(errno));
    else (*n)++;
  }
  closedir(d);
  return rc;
}

int findings_clean_staging(const char *root, int *removed, af_err *err) {
  static const char *const sub[] = {"", "/findings", "/deferred", "/pending", NULL};
  char dir[4096];
  *removed = 0;
  for (int i = 0; sub[i]; i++) {
    snprintf(dir, sizeof dir, "%s%s", root, sub[i]);
    if (clean_folder(dir, removed, err)) return -1;
  }
  /* inside each finding folder: a finding.json update cut short leaves finding.json.tmp.<pid> */
  snprintf(dir, sizeof dir, "%s/findings", root);
  DIR *d = opendir(dir);
  struct dirent *e;
  int rc = 0;
  while (!rc && d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char sub_dir[4600];
    snprintf(sub_dir, sizeof sub_dir, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(sub_dir, &st) == 0 && S_ISDIR(st.st_mode)) rc = clean_folder(sub_dir, removed, err);
  }
  if (d) closedir(d);
  return rc;
}

static int put_file(const char *dir, const char *name, const char *text, af_err *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return codec_write_atomic(path, text, strlen(text), err);
}

static cJSON *occurrence(const finding *f) {
  cJSON *o = cJSON_CreateObject();
  char seed[32]; /* a string: JSON numbers are doubles and would round a 64-bit seed */
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)f->seed);
  cJSON_AddStringToObject(o, "seed", seed);
  cJSON_AddNumberToObject(o, "iteration", (double)f->iteration);
  cJSON_AddNumberToObject(o, "job", f->job);
  return o;
}

static char *readme(const finding *f, const char *id, const char *sigtext) {
  af_buf b = {0};
  af_buf_printf(&b, "# %s: %s on `%s`\n\n", id, oracle_verdict_name(f->verdict), f->converter);
  af_buf_printf(&b, "- converter: `%s` %s\n- verdict: `%s`\n- signature: `%s`\n", f->converter,
                f->converter_version ? f->converter_version : "", oracle_verdict_name(f->verdict), sigtext);
  af_buf_printf(&b, "- detail: %s\n", f->detail ? f->detail : "-");
  af_buf_printf(&b, "- PyTorch: %s (stack %s, %s)\n", at_version(), at_stack(), at_stack_origin());
  if (f->unseeded) af_buf_printf(&b, "- found by: aliasfuzz %s, a program without a seed (not generated)", AF_VERSION);
  else af_buf_printf(&b, "- found by: aliasfuzz %s, program seed %llu", AF_VERSION, (unsigned long long)f->seed);
  if (f->iteration >= 0) af_buf_printf(&b, " (campaign iteration %lld, job %d)", (long long)f->iteration, f->job);
  af_buf_puts(&b, "\n");
  if (f->reduction)
    af_buf_printf(&b, "- minimized: %d statements -> %d (%d tests, %.2f s)\n", f->reduction->stmts_before,
                  f->reduction->stmts_after, f->reduction->tests, f->reduction->seconds);
  if (f->class_id) af_buf_printf(&b, "- class: `%s`, pattern `%s` (see the campaign's report.md)\n", f->class_id, f->pattern ? f->pattern : "");
  if (f->reruns > 0)
    af_buf_printf(&b, "- reproduces: %d of %d reruns%s\n", f->reproduced, f->reruns, f->reproduced < f->reruns ? " (flaky)" : "");
  af_buf_puts(&b, "\n## Program\n\n```python\n");
  char *src = emit_torchscript(f->minimized, "program");
  af_buf_puts(&b, src);
  free(src);
  af_buf_puts(&b, "```\n\n## Reproduce\n\n```sh\n"); /* repro.py without the converter's Python: eager only, exit 2 */
  af_buf_puts(&b, f->convert_py ? "python3 repro.py            # exits 1 while the bug is present\n"
                                : "python3 repro.py            # eager's outputs only, exit 2: no Python reproduction of this converter\n");
  af_buf_puts(&b, "aliasfuzz run repro.json --converter ");
  codec_put_shell_word(&b, f->converter);
  af_buf_puts(&b, "   # exits 1 while the bug is present\n");
  if (f->rerun) af_buf_printf(&b, "%s\n", f->rerun);
  af_buf_puts(&b, "```\n");
  if (f->graph && *f->graph) {
    af_buf_puts(&b, "\n## Converted graph\n\n```\n");
    af_buf_puts(&b, f->graph);
    af_buf_puts(&b, "\n```\n");
  }
  if (f->base_graph && *f->base_graph) {
    af_buf_puts(&b, "\n## The baseline's graph (it gets this program right)\n\n");
    if (f->graph_change) af_buf_printf(&b, "Lines that differ, by op: %s.\n\n", f->graph_change);
    af_buf_printf(&b, "```\n%s\n```\n", f->base_graph);
  }
  return af_buf_take(&b);
}

static int write_new(const char *root, const char *final_dir, const finding *f, const char *id, const char *sigtext,
                     af_err *err) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s/findings/.tmp-%s-%ld", root, id, (long)getpid());
  if (findings_mkdirs(tmp, err)) return -1;
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "format", "aliasfuzz-finding/1");
  cJSON_AddStringToObject(j, "signature", id);
  cJSON_AddStringToObject(j, "signature_text", sigtext);
  cJSON_AddStringToObject(j, "converter", f->converter);
  cJSON_AddStringToObject(j, "converter_version", f->converter_version ? f->converter_version : "");
  cJSON_AddStringToObject(j, "aliasfuzz", AF_VERSION);
  cJSON_AddStringToObject(j, "stack", at_stack());
  cJSON_AddStringToObject(j, "torch", at_version());
  cJSON_AddStringToObject(j, "torch_origin", at_stack_origin());
  cJSON_AddStringToObject(j, "verdict", oracle_verdict_name(f->verdict));
  cJSON_AddStringToObject(j, "detail", f->detail ? f->detail : "");
  cJSON_AddNumberToObject(j, "count", 1);
  cJSON_AddItemToObject(j, "first", occurrence(f));
  cJSON_AddItemToObject(j, "latest", occurrence(f));
  cJSON *counted = cJSON_AddObjectToObject(j, "counted_upto");
  char job[16];
  snprintf(job, sizeof job, "%d", f->job);
  cJSON_AddNumberToObject(counted, job, (double)f->iteration);
  cJSON_AddNumberToObject(j, "statements", f->minimized->nstmts);
  if (f->class_id) cJSON_AddStringToObject(j, "class", f->class_id);
  if (f->pattern) cJSON_AddStringToObject(j, "pattern", f->pattern);
  cJSON *gen = f->generalization ? cJSON_Parse(f->generalization) : NULL;
  if (gen) cJSON_AddItemToObject(j, "generalization", gen);
  if (f->reruns > 0) {
    cJSON_AddNumberToObject(j, "reruns", f->reruns);
    cJSON_AddNumberToObject(j, "reproduced", f->reproduced);
  }
  if (f->reduction) {
    cJSON *r = cJSON_AddObjectToObject(j, "reduction");
    cJSON_AddNumberToObject(r, "statements_before", f->reduction->stmts_before);
    cJSON_AddNumberToObject(r, "statements_after", f->reduction->stmts_after);
    cJSON_AddNumberToObject(r, "tests", f->reduction->tests);
    cJSON_AddNumberToObject(r, "seconds", f->reduction->seconds);
  }
  if (f->options_json) {
    cJSON *o = cJSON_Parse(f->options_json);
    if (o) cJSON_AddItemToObject(j, "options", o);
  }
  char *text = cJSON_Print(j);
  cJSON_Delete(j);
  char *min = codec_write_string(f->minimized), *orig = codec_write_string(f->original);
  char *src = emit_torchscript(f->minimized, "program");
  repro_info ri = {f->converter, f->converter_version, oracle_verdict_name(f->verdict), f->detail, f->convert_py, f->graph,
                   NULL};
  char origin[256];
  snprintf(origin, sizeof origin, "aliasfuzz %s, program seed %llu", AF_VERSION, (unsigned long long)f->seed);
  ri.origin = origin;
  char *repro = emit_repro_py(f->minimized, &ri);
  af_err no_snippet; /* NULL: the converter has no stock API a snippet calls (emit_snippet.h) */
  char *snippet = emit_snippet_py_order(f->minimized, f->converter, oracle_verdict_name(f->verdict), f->detail,
                                        &no_snippet);
  char *rd = readme(f, id, sigtext);
  int rc = put_file(tmp, "repro.json", min, err) || put_file(tmp, "original.json", orig, err) ||
           put_file(tmp, "program.py", src, err) || put_file(tmp, "repro.py", repro, err) ||
           (snippet && put_file(tmp, "snippet.py", snippet, err)) ||
           put_file(tmp, "converted.txt", f->graph ? f->graph : "", err) ||
           (f->base_graph && put_file(tmp, "converted-baseline.txt", f->base_graph, err)) || put_file(tmp, "README.md", rd, err) ||
           put_file(tmp, "finding.json", text, err);
  free(text);
  free(min);
  free(orig);
  free(src);
  free(repro);
  free(snippet);
  free(rd);
  int e = rc ? 0 : af_write_fault();
  if (!rc && (e || rename(tmp, final_dir) != 0)) rc = af_fail(err, "%s: rename failed: %s", final_dir, strerror(e ? e : errno));
  if (!rc) {
    char findings[4096];
    snprintf(findings, sizeof findings, "%s/findings", root);
    rc = af_sync_dir(findings, err); /* the rename itself on disk */
  }
  if (rc) remove_tree(tmp);
  return rc ? -1 : 0;
}

static int update(const char *dir, const finding *f, int *counted, af_err *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/finding.json", dir);
  char *text = codec_slurp(path, NULL, err);
  if (!text) return -1;
  cJSON *j = cJSON_Parse(text);
  free(text);
  if (!j || !cJSON_IsNumber(cJSON_GetObjectItem(j, "count"))) {
    cJSON_Delete(j);
    return af_fail(err, "%s: not a finding file (malformed JSON or no count)", path);
  }
  cJSON *cu = cJSON_GetObjectItem(j, "counted_upto");
  if (!cJSON_IsObject(cu)) cu = cJSON_AddObjectToObject(j, "counted_upto");
  char job[16];
  snprintf(job, sizeof job, "%d", f->job);
  cJSON *upto = cJSON_GetObjectItem(cu, job);
  *counted = 0;
  if (f->iteration < 0 || !upto || upto->valuedouble < (double)f->iteration) {
    *counted = 1;
    cJSON *c = cJSON_GetObjectItem(j, "count");
    cJSON_SetNumberValue(c, c->valuedouble + 1);
    cJSON_ReplaceItemInObject(j, "latest", occurrence(f));
    if (upto) cJSON_SetNumberValue(upto, (double)f->iteration);
    else cJSON_AddNumberToObject(cu, job, (double)f->iteration);
  }
  char *out = cJSON_Print(j);
  cJSON_Delete(j);
  int rc = *counted ? codec_write_atomic(path, out, strlen(out), err) : 0;
  free(out);
  return rc;
}

int findings_record(const char *root, const finding *f, int *is_new, int *counted, char id[64], af_err *err) {
  char *sigtext;
  sig_make(f->converter, f->verdict, f->minimized, f->detail, &sigtext, id);
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/findings/%s", root, id);
  int rc;
  struct stat st;
  if (stat(dir, &st) == 0) {
    *is_new = 0;
    rc = update(dir, f, counted, err);
  } else {
    *is_new = 1;
    *counted = 1;
    rc = write_new(root, dir, f, id, sigtext, err);
  }
  free(sigtext);
  return rc;
}
