/* merge.c - `aliasfuzz merge` (merge.h): part records under OUT/parts/, and OUT's class index,
 * finding counts, state and report rebuilt from them. */
#include "merge.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../harness/codec.h"
#include "../oracle/oracle.h"
#include "../oracle/signature.h"
#include "../reports/report.h"
#include "campaign.h"
#include "classes.h"
#include "confirm.h"
#include "findings.h"
#include "refusals.h"

#define PART_FORMAT "aliasfuzz-merge-part/1"
#define MERGE_FORMAT "aliasfuzz-merge/1"
#define STATE_FORMAT "aliasfuzz-campaign-state/1"

/* The fields every part must share with OUT's, and what they mean in a refusal. */
static const char *const same_fields[] = {"converter", "converter_version", "stack", "aliasfuzz", NULL};
/* The state.json figures a part record keeps (summed into OUT's). */
static const char *const figure_names[] = {"seconds", "reduce_seconds", "finish_reduce_seconds", "finish_seconds", "finished",
                                           "annotate_seconds", "generalize_seconds", "baseline_seconds", "reduce_deferred_seconds",
                                           NULL};

static cJSON *load_json(const char *path, af_err *err) {
  char *text = codec_slurp(path, NULL, err);
  if (!text) return NULL;
  cJSON *j = cJSON_Parse(text);
  free(text);
  if (!j) af_fail(err, "%s: not JSON", path);
  return j;
}

static int save_json(const char *path, const cJSON *j, af_err *err) {
  char *text = cJSON_Print(j);
  int rc = codec_write_atomic(path, text, strlen(text), err);
  cJSON_free(text);
  return rc;
}

/* Writes j to path only when the file does not hold the same text already (idempotence: a merge
 * that changes nothing rewrites nothing). */
static int save_json_if_changed(const char *path, const cJSON *j, af_err *err) {
  char *text = cJSON_Print(j);
  char *old = codec_slurp(path, NULL, NULL);
  int rc = old && !strcmp(old, text) ? 0 : codec_write_atomic(path, text, strlen(text), err);
  free(old);
  cJSON_free(text);
  return rc;
}

static const char *str_of(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }
static double num_of(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItem(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}
static void add_to(cJSON *o, const char *k, double d) {
  cJSON *v = cJSON_GetObjectItem(o, k);
  if (cJSON_IsNumber(v)) cJSON_SetNumberValue(v, v->valuedouble + d);
  else cJSON_AddNumberToObject(o, k, d);
}
static int has_string(const cJSON *arr, const char *s) {
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) if (cJSON_IsString(e) && !strcmp(e->valuestring, s)) return 1;
  return 0;
}
/* Adds arr's strings that into lacks (into made when missing). */
static void union_strings(cJSON *obj, const char *name, const cJSON *arr) {
  cJSON *into = cJSON_GetObjectItem(obj, name);
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) {
    if (!cJSON_IsString(e)) continue;
    if (!into) into = cJSON_AddArrayToObject(obj, name);
    if (!has_string(into, e->valuestring)) cJSON_AddItemToArray(into, cJSON_CreateString(e->valuestring));
  }
}

/* Names of the entries of folder dir that pass keep (sorted), new array of new strings; *n. */
static char **list_dir(const char *dir, int (*keep)(const char *), int *n) {
  DIR *d = opendir(dir);
  char **names = NULL;
  *n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.' && keep(e->d_name)) {
      names = af_xrealloc(names, sizeof(char *) * (size_t)(*n + 1));
      names[(*n)++] = af_xstrdup(e->d_name);
    }
  if (d) closedir(d);
  for (int i = 1; i < *n; i++) /* insertion sort: a few hundred names */
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char *t = names[j];
      names[j] = names[j - 1];
      names[j - 1] = t;
    }
  return names;
}
static void free_names(char **names, int n) {
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}
static int any_name(const char *s) { return s[0] != 0 && !strstr(s, ".tmp."); }
static int json_name(const char *s) { return strstr(s, ".json") && !strstr(s, ".tmp."); }

/* Copies file src to dst (plain write: dst is in a staging folder or a name nothing reads yet). */
static int copy_file(const char *src, const char *dst, af_err *err) {
  size_t len = 0;
  char *data = codec_slurp(src, &len, err);
  if (!data) return -1;
  int rc = codec_write_atomic(dst, data, len, err);
  free(data);
  return rc;
}

/* ------------------------------------------------------------------ a part */

/* A part's identity (merge.h): "part-<16 hex digits>" of what it ran. */
static void part_id(const cJSON *opts, char id[64]) {
  af_buf b = {0};
  static const char *const keys[] = {"converter", "stack", "seed_text", "shard", "fail_on_residual", NULL};
  for (int i = 0; keys[i]; i++) {
    char *v = cJSON_GetObjectItem(opts, keys[i]) ? cJSON_PrintUnformatted(cJSON_GetObjectItem(opts, keys[i])) : NULL;
    af_buf_printf(&b, "%s=%s\n", keys[i], v ? v : "-");
    cJSON_free(v);
  }
  char *pol = cJSON_GetObjectItem(opts, "policy") ? cJSON_PrintUnformatted(cJSON_GetObjectItem(opts, "policy")) : NULL;
  af_buf_printf(&b, "policy=%s\n", pol ? pol : "-");
  cJSON_free(pol);
  snprintf(id, 64, "part-%016llx", (unsigned long long)sig_fnv1a(b.s, b.len, 0));
  af_buf_free(&b);
}

/* The part record of campaign folder dir (state st: its state.json), new; NULL with err. */
static cJSON *part_of_campaign(const char *dir, const cJSON *st, af_err *err) {
  const cJSON *opts = cJSON_GetObjectItem(st, "options");
  if (!cJSON_IsObject(opts) || !str_of(opts, "converter")) {
    af_fail(err, "%s/state.json: no options.converter (not a campaign's state)", dir);
    return NULL;
  }
  cJSON *idx = classes_index_load(dir, err);
  if (!idx) return NULL;
  cJSON *r = cJSON_CreateObject();
  char id[64];
  part_id(opts, id);
  cJSON_AddStringToObject(r, "format", PART_FORMAT);
  cJSON_AddStringToObject(r, "id", id);
  cJSON_AddStringToObject(r, "dir", dir);
  cJSON_AddItemToObject(r, "options", cJSON_Duplicate(opts, 1));
  cJSON *fig = cJSON_AddObjectToObject(r, "figures");
  double programs = 0;
  cJSON *verdicts = cJSON_CreateObject();
  const cJSON *j, *v;
  cJSON_ArrayForEach(j, cJSON_GetObjectItem(st, "jobs")) {
    programs += num_of(j, "programs");
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(j, "verdicts")) if (cJSON_IsNumber(v)) add_to(verdicts, v->string, v->valuedouble);
  }
  cJSON_AddNumberToObject(fig, "programs", programs);
  cJSON_AddItemToObject(fig, "verdicts", verdicts);
  cJSON_AddNumberToObject(fig, "jobs", cJSON_GetArraySize(cJSON_GetObjectItem(st, "jobs")));
  for (int k = 0; figure_names[k]; k++) cJSON_AddNumberToObject(fig, figure_names[k], num_of(st, figure_names[k]));
  cJSON_AddItemToObject(r, "classes", idx);
  cJSON *fs = cJSON_AddObjectToObject(r, "findings");
  char path[4096];
  snprintf(path, sizeof path, "%s/findings", dir);
  int n;
  char **names = list_dir(path, any_name, &n);
  for (int i = 0; i < n; i++) {
    char fp[4400];
    snprintf(fp, sizeof fp, "%s/findings/%s/finding.json", dir, names[i]);
    af_err e2;
    cJSON *f = access(fp, F_OK) == 0 ? load_json(fp, &e2) : NULL;
    if (!f) continue; /* not a finding folder */
    cJSON *x = cJSON_AddObjectToObject(fs, names[i]);
    cJSON_AddNumberToObject(x, "count", num_of(f, "count"));
    if (cJSON_GetObjectItem(f, "first")) cJSON_AddItemToObject(x, "first", cJSON_Duplicate(cJSON_GetObjectItem(f, "first"), 1));
    if (cJSON_GetObjectItem(f, "latest")) cJSON_AddItemToObject(x, "latest", cJSON_Duplicate(cJSON_GetObjectItem(f, "latest"), 1));
    cJSON_Delete(f);
  }
  free_names(names, n);
  return r;
}

/* The part records dir brings (new array): its own, or a merge's records. */
static cJSON *parts_of_folder(const char *dir, int *is_merge, af_err *err) {
  char path[4096];
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    af_fail(err, "%s: no such folder", dir);
    return NULL;
  }
  snprintf(path, sizeof path, "%s/state.json", dir);
  if (access(path, F_OK) != 0) {
    af_fail(err, "%s: not a campaign folder (no state.json)", dir);
    return NULL;
  }
  cJSON *st = load_json(path, err);
  if (!st) return NULL;
  cJSON *list = cJSON_CreateArray();
  *is_merge = cJSON_GetObjectItem(st, "merge") != NULL;
  if (!*is_merge) {
    cJSON *r = part_of_campaign(dir, st, err);
    if (r) cJSON_AddItemToArray(list, r);
    else cJSON_Delete(list), list = NULL;
  } else {
    snprintf(path, sizeof path, "%s/parts", dir);
    int n;
    char **names = list_dir(path, json_name, &n);
    for (int i = 0; i < n && list; i++) {
      char fp[4400];
      snprintf(fp, sizeof fp, "%s/parts/%s", dir, names[i]);
      cJSON *r = load_json(fp, err);
      if (!r || strcmp(str_of(r, "format") ? str_of(r, "format") : "", PART_FORMAT) != 0) {
        if (r) af_fail(err, "%s: not a part record (format %s)", fp, PART_FORMAT);
        cJSON_Delete(r);
        cJSON_Delete(list);
        list = NULL;
      } else cJSON_AddItemToArray(list, r);
    }
    free_names(names, n);
  }
  cJSON_Delete(st);
  return list;
}

/* Where OUT keeps a deferred program of part id (file: the part's "deferred/<name>"). */
static void deferred_name(const char *id, const char *file, char *out, size_t n) {
  const char *base = strrchr(file, '/');
  snprintf(out, n, "deferred/%s-%s", id, base ? base + 1 : file);
}

/* Where a finding folder's files come from, "merged_from" in its finding.json: the part, and
 * that part's first iteration, seed and shard of it. OUT keeps the folder of the earliest
 * occurrence (the order of merge.h's rebuild), as one campaign keeps its first. new. */
static cJSON *origin_of(const cJSON *r, const cJSON *f) {
  const cJSON *po = cJSON_GetObjectItem(r, "options");
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "part", str_of(r, "id"));
  cJSON_AddNumberToObject(o, "iteration", num_of(cJSON_GetObjectItem(f, "first"), "iteration"));
  cJSON_AddStringToObject(o, "seed", str_of(po, "seed_text") ? str_of(po, "seed_text") : "0");
  cJSON_AddNumberToObject(o, "shard", str_of(po, "shard") ? atoi(str_of(po, "shard")) : 0);
  return o;
}
/* < 0 when origin a comes before b. */
static int origin_cmp(const cJSON *a, const cJSON *b) {
  double ia = num_of(a, "iteration"), ib = num_of(b, "iteration");
  if (ia != ib) return ia < ib ? -1 : 1;
  unsigned long long sa = strtoull(str_of(a, "seed") ? str_of(a, "seed") : "0", NULL, 10);
  unsigned long long sb = strtoull(str_of(b, "seed") ? str_of(b, "seed") : "0", NULL, 10);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (num_of(a, "shard") != num_of(b, "shard")) return num_of(a, "shard") < num_of(b, "shard") ? -1 : 1;
  return strcmp(str_of(a, "part") ? str_of(a, "part") : "", str_of(b, "part") ? str_of(b, "part") : "");
}
static cJSON *origin_in(const char *folder) {
  char path[4096];
  snprintf(path, sizeof path, "%s/finding.json", folder);
  cJSON *f = load_json(path, NULL), *o = f ? cJSON_DetachItemFromObject(f, "merged_from") : NULL;
  cJSON_Delete(f);
  return o;
}
/* Removes a finding folder (flat: files only). */
static void remove_flat(const char *dir) {
  int n;
  char **names = list_dir(dir, any_name, &n);
  for (int i = 0; i < n; i++) {
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    unlink(p);
  }
  free_names(names, n);
  rmdir(dir);
}

/* Finding folder fid of part r (from folder src) into out: staged, its origin in its
 * finding.json, then renamed into place (over a later one's). */
static int copy_finding(const char *out, const char *src, const char *fid, cJSON *origin, af_err *err) {
  char dst[4096], tmp[4096], old[4096];
  snprintf(dst, sizeof dst, "%s/findings/%s", out, fid);
  snprintf(tmp, sizeof tmp, "%s/findings/.tmp-%s-%ld", out, fid, (long)getpid());
  snprintf(old, sizeof old, "%s/findings/.tmp-%sold-%ld", out, fid, (long)getpid());
  if (findings_mkdirs(tmp, err)) return -1;
  int n, rc = 0;
  char **names = list_dir(src, any_name, &n);
  for (int i = 0; i < n && !rc; i++) {
    char a[4400], b[4400];
    snprintf(a, sizeof a, "%s/%s", src, names[i]);
    snprintf(b, sizeof b, "%s/%s", tmp, names[i]);
    struct stat sb;
    if (stat(a, &sb) == 0 && S_ISREG(sb.st_mode)) rc = copy_file(a, b, err);
  }
  free_names(names, n);
  char fp[4400];
  snprintf(fp, sizeof fp, "%s/finding.json", tmp);
  cJSON *fj = rc ? NULL : load_json(fp, err);
  if (!fj) rc = -1;
  else {
    cJSON_DeleteItemFromObject(fj, "merged_from");
    cJSON_AddItemToObject(fj, "merged_from", cJSON_Duplicate(origin, 1));
    rc = save_json(fp, fj, err);
    cJSON_Delete(fj);
  }
  int had = access(dst, F_OK) == 0;
  if (!rc && had && rename(dst, old) != 0) rc = af_fail(err, "%s: rename failed: %s", dst, strerror(errno));
  if (!rc && rename(tmp, dst) != 0) rc = af_fail(err, "%s: rename failed: %s", dst, strerror(errno));
  if (!rc && had) remove_flat(old);
  if (rc) remove_flat(tmp);
  return rc;
}

/* Copies what part r (from folder dir; is_merge: dir is a merge) brings to out: finding folders
 * out lacks or has from a later occurrence, and deferred programs. */
static int copy_part_files(const char *out, const char *dir, int is_merge, const cJSON *r, af_err *err) {
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItem(r, "findings")) {
    char dst[4096], src[4096];
    snprintf(dst, sizeof dst, "%s/findings/%s", out, f->string);
    snprintf(src, sizeof src, "%s/findings/%s", dir, f->string);
    cJSON *mine = is_merge ? origin_in(src) : origin_of(r, f), *there = origin_in(dst);
    if (!mine) mine = origin_of(r, f);
    int rc = 0;
    if (access(dst, F_OK) != 0 || !there || origin_cmp(mine, there) < 0) rc = copy_finding(out, src, f->string, mine, err);
    cJSON_Delete(mine);
    cJSON_Delete(there);
    if (rc) return -1;
  }
  const cJSON *d;
  const char *id = str_of(r, "id");
  cJSON_ArrayForEach(d, cJSON_GetObjectItem(cJSON_GetObjectItem(r, "classes"), "deferred")) {
    const char *file = str_of(d, "file");
    if (!file) continue;
    char name[512], src[4096], dst[4096];
    deferred_name(id, file, name, sizeof name);
    snprintf(dst, sizeof dst, "%s/%s", out, name);
    if (access(dst, F_OK) == 0) continue;
    snprintf(src, sizeof src, "%s/%s", dir, is_merge ? name : file);
    if (access(src, F_OK) != 0) continue; /* a deferred entry without its program: counted, nothing to copy */
    snprintf(name, sizeof name, "%s/deferred", out);
    if (findings_mkdirs(name, err) || copy_file(src, dst, err)) return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ the rebuild */

typedef struct occ {
  int part;           /* index in the sorted parts */
  const char *fid;    /* finding id */
  const cJSON *rec;   /* the part's {"count", "first", "latest"} of it */
  double first_it;
} occ;

static int by_first(const void *a, const void *b) {
  const occ *x = a, *y = b;
  if (x->first_it != y->first_it) return x->first_it < y->first_it ? -1 : 1;
  if (x->part != y->part) return x->part - y->part;
  return strcmp(x->fid, y->fid);
}

static unsigned long long seed_of(const cJSON *r) {
  const char *s = str_of(cJSON_GetObjectItem(r, "options"), "seed_text");
  return s ? strtoull(s, NULL, 10) : 0;
}
static int shard_of(const cJSON *r) {
  const char *s = str_of(cJSON_GetObjectItem(r, "options"), "shard");
  return s ? atoi(s) : 0;
}
static int by_part(const void *a, const void *b) {
  const cJSON *x = *(cJSON *const *)a, *y = *(cJSON *const *)b;
  unsigned long long sx = seed_of(x), sy = seed_of(y);
  if (sx != sy) return sx < sy ? -1 : 1;
  if (shard_of(x) != shard_of(y)) return shard_of(x) - shard_of(y);
  return strcmp(str_of(x, "id"), str_of(y, "id"));
}

/* The entry of index idx (a class, or a flaky or harness finding) that holds finding fid. */
static cJSON *entry_of_finding(const cJSON *idx, const char *fid) {
  cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, "classes")) if (has_string(cJSON_GetObjectItem(c, "findings"), fid)) return c;
  for (int k = 0; k < 2; k++)
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(idx, k ? "harness" : "flaky")) {
      const char *f = str_of(c, "finding");
      if (f && !strcmp(f, fid)) return c;
    }
  return NULL;
}

/* An entry's findings: a class's "findings", a flaky or harness entry's "finding" (as a new array). */
static cJSON *findings_of(const cJSON *e) {
  const cJSON *fs = cJSON_GetObjectItem(e, "findings");
  if (fs) return cJSON_Duplicate(fs, 1);
  cJSON *a = cJSON_CreateArray();
  if (str_of(e, "finding")) cJSON_AddItemToArray(a, cJSON_CreateString(str_of(e, "finding")));
  return a;
}

typedef struct rebuild {
  const char *out;
  cJSON **parts;
  int nparts;
  occ *occs;
  int nocc;
  cJSON *fjs; /* {fid: OUT's finding.json} */
  cJSON *idx;
} rebuild;

static const cJSON *finding_json(rebuild *rb, const char *fid) {
  cJSON *f = cJSON_GetObjectItem(rb->fjs, fid);
  if (f) return f;
  char path[4096];
  af_err e;
  snprintf(path, sizeof path, "%s/findings/%s/finding.json", rb->out, fid);
  f = load_json(path, &e);
  if (!f) f = cJSON_CreateObject();
  cJSON_AddItemToObject(rb->fjs, fid, f);
  return f;
}

/* Adds occurrence o (the first of its finding in its part) to the index: classes_index_add with
 * what the finding's folder and the part's class of it say, then the part's other programs of it. */
static void add_occurrence(rebuild *rb, const occ *o) {
  const cJSON *fj = finding_json(rb, o->fid), *part = rb->parts[o->part];
  const cJSON *pe = entry_of_finding(cJSON_GetObjectItem(part, "classes"), o->fid);
  oracle_verdict v = V_ERROR;
  if (oracle_verdict_parse(str_of(fj, "verdict") ? str_of(fj, "verdict") : "", &v)) return; /* no finding folder: nothing to add */
  const cJSON *first = cJSON_GetObjectItem(o->rec, "first"), *gen = cJSON_GetObjectItem(fj, "generalization");
  char *table = gen ? cJSON_PrintUnformatted(gen) : NULL;
  const cJSON *qk = cJSON_GetArrayItem(cJSON_GetObjectItem(pe, "quick_keys"), 0);
  const char *seed = str_of(first, "seed");
  classes_member m = {str_of(fj, "converter"), v, str_of(fj, "detail"), str_of(fj, "pattern"), o->fid, (int)num_of(fj, "statements"),
                      table, (int)num_of(fj, "reruns"), (int)num_of(fj, "reproduced"), seed ? strtoull(seed, NULL, 10) : 0,
                      (int64_t)num_of(first, "iteration"),
                      /* a job of its own per part: the index counts each (job, iteration) once */
                      o->part * 1024 + (int)num_of(first, "job"), cJSON_GetStringValue(qk), str_of(pe, "graph_change")};
  int is_new;
  cJSON *c = classes_index_add(rb->idx, &m, &is_new);
  if (c && num_of(o->rec, "count") > 1) add_to(c, "count", num_of(o->rec, "count") - 1);
  cJSON_free(table);
}

/* A part's programs counted in an entry by quick key (not as a finding), its quick keys, and its
 * annotations where it gave the merged class its smallest program. */
static void add_part_entries(rebuild *rb, int p) {
  const cJSON *pidx = cJSON_GetObjectItem(rb->parts[p], "classes"), *pf = cJSON_GetObjectItem(rb->parts[p], "findings");
  static const char *const lists[] = {"classes", "flaky", "harness", NULL};
  for (int k = 0; lists[k]; k++) {
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(pidx, lists[k])) {
      cJSON *fs = findings_of(e);
      double in_findings = 0;
      const cJSON *f;
      cJSON *m = NULL;
      cJSON_ArrayForEach(f, fs) {
        in_findings += num_of(cJSON_GetObjectItem(pf, f->valuestring), "count");
        if (!m) m = entry_of_finding(rb->idx, f->valuestring);
      }
      cJSON_Delete(fs);
      if (!m) continue;
      double extra = num_of(e, "count") - in_findings;
      if (extra > 0) add_to(m, "count", extra);
      union_strings(m, "quick_keys", cJSON_GetObjectItem(e, "quick_keys"));
      const char *sm = str_of(e, "smallest"), *msm = str_of(m, "smallest");
      if (k == 0 && sm && msm && !strcmp(sm, msm) && num_of(e, "statements") < num_of(m, "statements")) {
        /* a later program of the same signature was smaller (the campaign keeps the least count) */
        cJSON_ReplaceItemInObject(m, "statements", cJSON_CreateNumber(num_of(e, "statements")));
        if (str_of(e, "detail")) cJSON_ReplaceItemInObject(m, "detail", cJSON_CreateString(str_of(e, "detail")));
      }
      if (k == 0 && sm && msm && !strcmp(sm, msm))
        for (const cJSON *x = e->child; x; x = x->next)
          if (strcmp(x->string, "counted_upto") && !cJSON_GetObjectItem(m, x->string))
            cJSON_AddItemToObject(m, x->string, cJSON_Duplicate(x, 1));
    }
  }
}

/* A part's class that its campaign keyed on what its annotation found after the search (annotate.c:
 * "needs float64", the twin-dtype rule; such a class lists the "patterns" it was seen as) keys the
 * merged class of its findings the same way: rebuilt from the findings, that class is keyed on
 * their pattern, and shards of one campaign would split the one float64 bug the campaign shows as
 * one class into a class per write pattern. */
static void apply_part_rekeys(rebuild *rb) {
  for (int p = 0; p < rb->nparts; p++) {
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(cJSON_GetObjectItem(rb->parts[p], "classes"), "classes")) {
      const char *k = str_of(e, "key"), *gs = k ? strchr(k, '|') : NULL, *bar = k ? strrchr(k, '|') : NULL;
      if (!cJSON_GetObjectItem(e, "patterns") || !gs || bar == gs) continue;
      char group[128];
      const char *mark = strstr(gs, " (in baseline)|");
      int glen = (int)((mark && mark < bar ? mark : bar) - (gs + 1));
      snprintf(group, sizeof group, "%.*s", glen, gs + 1);
      cJSON *fs = findings_of(e);
      const cJSON *f;
      cJSON_ArrayForEach(f, fs) {
        cJSON *m = entry_of_finding(rb->idx, f->valuestring); /* looked up again: a rekey may fold one */
        const char *mk = m ? str_of(m, "key") : NULL, *mbar = mk ? strrchr(mk, '|') : NULL;
        if (mbar && cJSON_GetObjectItem(m, "findings") && strcmp(mbar + 1, bar + 1) != 0) (void)classes_index_rekey(rb->idx, m, group, bar + 1);
      }
      cJSON_Delete(fs);
    }
  }
}

/* Deferred quick keys of all parts: summed, and counted into a class that has the key now. */
static void add_deferred(rebuild *rb) {
  cJSON *def = cJSON_GetObjectItem(rb->idx, "deferred");
  for (int p = 0; p < rb->nparts; p++) {
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItem(cJSON_GetObjectItem(rb->parts[p], "classes"), "deferred")) {
      cJSON *have = cJSON_GetObjectItemCaseSensitive(def, d->string);
      if (have) {
        add_to(have, "count", num_of(d, "count"));
        continue;
      }
      cJSON *x = cJSON_Duplicate(d, 1);
      if (str_of(d, "file")) {
        char name[512];
        deferred_name(str_of(rb->parts[p], "id"), str_of(d, "file"), name, sizeof name);
        cJSON_ReplaceItemInObject(x, "file", cJSON_CreateString(name));
      }
      cJSON_AddItemToObject(def, d->string, x);
    }
  }
  int n = 0;
  for (cJSON *d = def->child; d; d = d->next) n++;
  char **keys = af_xcalloc((size_t)n + 1, sizeof(char *));
  n = 0;
  for (cJSON *d = def->child; d; d = d->next) keys[n++] = af_xstrdup(d->string);
  for (int i = 0; i < n; i++) {
    int64_t cnt = (int64_t)num_of(cJSON_GetObjectItemCaseSensitive(def, keys[i]), "count");
    (void)classes_index_absorb(rb->idx, keys[i], cnt);
  }
  free_names(keys, n);
}

/* first: the earliest occurrence (of the sorted ones) of the entry's findings, as its part saw it. */
static void set_first(rebuild *rb, cJSON *e) {
  cJSON *fs = findings_of(e);
  const occ *best = NULL;
  for (int i = 0; i < rb->nocc && !best; i++)
    if (has_string(fs, rb->occs[i].fid)) best = &rb->occs[i];
  cJSON_Delete(fs);
  const cJSON *first = best ? cJSON_GetObjectItem(best->rec, "first") : NULL;
  if (first) cJSON_ReplaceItemInObject(e, "first", cJSON_Duplicate(first, 1));
  cJSON_DeleteItemFromObject(e, "counted_upto"); /* per job of one campaign: nothing to resume here */
}

/* OUT/findings/<id>/finding.json: counts summed over the parts, first and latest, its class. */
static int rewrite_findings(rebuild *rb, af_err *err) {
  for (cJSON *f = rb->fjs->child; f; f = f->next) {
    if (!cJSON_GetObjectItem(f, "count")) continue;
    cJSON *x = cJSON_Duplicate(f, 1), *parts = cJSON_CreateObject();
    double count = 0;
    const cJSON *first = NULL, *latest = NULL;
    double latest_it = -1;
    for (int i = 0; i < rb->nocc; i++) {
      const occ *o = &rb->occs[i];
      if (strcmp(o->fid, f->string)) continue;
      double n = num_of(o->rec, "count");
      count += n;
      cJSON_AddNumberToObject(parts, str_of(rb->parts[o->part], "id"), n);
      if (!first) first = cJSON_GetObjectItem(o->rec, "first");
      const cJSON *l = cJSON_GetObjectItem(o->rec, "latest");
      if (l && num_of(l, "iteration") >= latest_it) latest = l, latest_it = num_of(l, "iteration");
    }
    cJSON_ReplaceItemInObject(x, "count", cJSON_CreateNumber(count));
    if (first) cJSON_ReplaceItemInObject(x, "first", cJSON_Duplicate(first, 1));
    if (latest) cJSON_ReplaceItemInObject(x, "latest", cJSON_Duplicate(latest, 1));
    cJSON_DeleteItemFromObject(x, "counted_upto");
    cJSON_DeleteItemFromObject(x, "parts");
    cJSON_AddItemToObject(x, "parts", parts);
    const cJSON *c = entry_of_finding(rb->idx, f->string);
    if (c && str_of(c, "id")) cJSON_ReplaceItemInObject(x, "class", cJSON_CreateString(str_of(c, "id")));
    char path[4096];
    snprintf(path, sizeof path, "%s/findings/%s/finding.json", rb->out, f->string);
    int rc = save_json_if_changed(path, x, err);
    cJSON_Delete(x);
    if (rc) return -1;
  }
  return 0;
}

/* OUT's options: the first part's, as one job without seed, shard or length, with every part's
 * figures under "merged_parts". new. */
static cJSON *merged_options(rebuild *rb) {
  cJSON *o = cJSON_Duplicate(cJSON_GetObjectItem(rb->parts[0], "options"), 1);
  static const char *const drop[] = {"seed", "seed_text", "shard", "iterations", "time", "jobs", NULL};
  for (int k = 0; drop[k]; k++) cJSON_DeleteItemFromObject(o, drop[k]);
  cJSON_AddNumberToObject(o, "jobs", 1);
  cJSON *mp = cJSON_AddArrayToObject(o, "merged_parts");
  for (int p = 0; p < rb->nparts; p++) {
    const cJSON *r = rb->parts[p], *po = cJSON_GetObjectItem(r, "options"), *fig = cJSON_GetObjectItem(r, "figures");
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "dir", str_of(r, "dir") ? str_of(r, "dir") : "?");
    cJSON_AddStringToObject(x, "id", str_of(r, "id"));
    cJSON_AddStringToObject(x, "seed", str_of(po, "seed_text") ? str_of(po, "seed_text") : "?");
    if (str_of(po, "shard")) cJSON_AddStringToObject(x, "shard", str_of(po, "shard"));
    cJSON_AddStringToObject(x, "converter", str_of(po, "converter"));
    cJSON_AddNumberToObject(x, "jobs", num_of(fig, "jobs"));
    cJSON_AddNumberToObject(x, "programs", num_of(fig, "programs"));
    cJSON_AddNumberToObject(x, "seconds", num_of(fig, "seconds"));
    cJSON_AddItemToArray(mp, x);
  }
  return o;
}

/* state.json and the report from the parts' figures (merge.h: times in job-seconds). */
static int write_state_and_report(rebuild *rb, int64_t *programs, af_err *err) {
  cJSON *s = cJSON_CreateObject(), *verdicts = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "format", STATE_FORMAT);
  cJSON *opts = merged_options(rb);
  cJSON_AddItemToObject(s, "options", opts);
  double sum[16] = {0}, total = 0;
  for (int p = 0; p < rb->nparts; p++) {
    const cJSON *fig = cJSON_GetObjectItem(rb->parts[p], "figures"), *v;
    double jobs = num_of(fig, "jobs") >= 1 ? num_of(fig, "jobs") : 1;
    for (int k = 0; figure_names[k]; k++) sum[k] += num_of(fig, figure_names[k]);
    /* seconds as job-seconds: the search's wall time times the part's jobs, then what follows it */
    double after = num_of(fig, "finish_seconds") + num_of(fig, "annotate_seconds");
    sum[0] += (num_of(fig, "seconds") - after) * (jobs - 1);
    total += num_of(fig, "programs");
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(fig, "verdicts")) add_to(verdicts, v->string, v->valuedouble);
  }
  for (int k = 0; figure_names[k]; k++) cJSON_AddNumberToObject(s, figure_names[k], sum[k]);
  cJSON_AddArrayToObject(s, "history");
  cJSON_AddArrayToObject(s, "jobs");
  cJSON *m = cJSON_AddObjectToObject(s, "merge");
  cJSON_AddStringToObject(m, "format", MERGE_FORMAT);
  cJSON_AddNumberToObject(m, "programs", total);
  cJSON_AddItemToObject(m, "verdicts", verdicts);
  char path[4096];
  snprintf(path, sizeof path, "%s/state.json", rb->out);
  int rc = save_json_if_changed(path, s, err);
  int64_t v[V_COUNT] = {0};
  for (const cJSON *e = verdicts->child; e; e = e->next) {
    oracle_verdict q;
    if (oracle_verdict_parse(e->string, &q) == 0) v[q] = (int64_t)e->valuedouble;
  }
  char *oj = cJSON_PrintUnformatted(opts);
  report_campaign_figures fig = {(int64_t)total, sum[0], v, oj, sum[1]};
  fig.finish_reduce_seconds = sum[2];
  fig.finish_seconds = sum[3];
  fig.finished = (int)sum[4];
  fig.annotate_seconds = sum[5];
  if (!rc) rc = report_write_campaign(rb->out, &fig, err) || report_campaign_html(rb->out, err) ? -1 : 0;
  cJSON_free(oj);
  cJSON_Delete(s);
  *programs = (int64_t)total;
  return rc;
}

/* Rebuilds OUT's class index, finding counts, state and report from its part records. */
static int rebuild_out(const char *out, merge_summary *sum, af_err *err) {
  rebuild rb = {.out = out, .fjs = cJSON_CreateObject(), .idx = classes_index_new()};
  char path[4096];
  snprintf(path, sizeof path, "%s/parts", out);
  int n, rc = 0;
  char **names = list_dir(path, json_name, &n);
  rb.parts = af_xcalloc((size_t)n + 1, sizeof(cJSON *));
  for (int i = 0; i < n && !rc; i++) {
    char fp[4400];
    snprintf(fp, sizeof fp, "%s/parts/%s", out, names[i]);
    if (!(rb.parts[rb.nparts] = load_json(fp, err))) rc = -1;
    else rb.nparts++;
  }
  free_names(names, n);
  if (rc || !rb.nparts) {
    if (!rc) rc = af_fail(err, "%s: no part merged", out);
    goto out;
  }
  qsort(rb.parts, (size_t)rb.nparts, sizeof(cJSON *), by_part);
  for (int p = 0; p < rb.nparts; p++) {
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(rb.parts[p], "findings")) {
      rb.occs = af_xrealloc(rb.occs, sizeof(occ) * (size_t)(rb.nocc + 1));
      rb.occs[rb.nocc++] = (occ){p, f->string, f, num_of(cJSON_GetObjectItem(f, "first"), "iteration")};
    }
  }
  qsort(rb.occs, (size_t)rb.nocc, sizeof(occ), by_first);
  for (int i = 0; i < rb.nocc; i++) add_occurrence(&rb, &rb.occs[i]);
  for (int p = 0; p < rb.nparts; p++) add_part_entries(&rb, p);
  apply_part_rekeys(&rb);
  add_deferred(&rb);
  static const char *const lists[] = {"classes", "flaky", "harness", NULL};
  for (int k = 0; lists[k]; k++) {
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(rb.idx, lists[k])) set_first(&rb, e);
  }
  snprintf(path, sizeof path, "%s/classes.json", out);
  if ((rc = save_json_if_changed(path, rb.idx, err)) || (rc = rewrite_findings(&rb, err))) goto out;
  rc = write_state_and_report(&rb, &sum->programs, err);
  sum->parts = rb.nparts;
  sum->classes = classes_index_count(rb.idx);
  sum->artifact_classes = confirm_count(rb.idx, "artifact");
  const cJSON *cls;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(rb.idx, "classes")) sum->limit_classes += refusals_class_is_limit(cls);
  sum->flaky = classes_index_flaky_count(rb.idx);
  sum->harness = classes_index_harness_count(rb.idx);
  sum->deferred = classes_index_unclassified(rb.idx);
  for (const cJSON *f = rb.fjs->child; f; f = f->next) sum->findings += cJSON_GetObjectItem(f, "count") != NULL;
out:
  for (int p = 0; p < rb.nparts; p++) cJSON_Delete(rb.parts[p]);
  free(rb.parts);
  free(rb.occs);
  cJSON_Delete(rb.fjs);
  cJSON_Delete(rb.idx);
  return rc;
}

/* ------------------------------------------------------------------ merge_run */

/* Whether record r may join the parts whose reference record is ref (ref_dir: where it came
 * from): the same converter, converter version, stack and generator. */
static int check_same(const cJSON *r, const char *dir, const cJSON *ref, const char *ref_dir, af_err *err) {
  const cJSON *a = cJSON_GetObjectItem(r, "options"), *b = cJSON_GetObjectItem(ref, "options");
  for (int k = 0; same_fields[k]; k++) {
    const char *x = str_of(a, same_fields[k]), *y = str_of(b, same_fields[k]);
    if (strcmp(x ? x : "(none)", y ? y : "(none)") != 0)
      return af_fail(err, "%s: its campaign's %s is '%s', but %s has '%s': aliasfuzz merge combines campaigns of one converter, "
                          "converter version, stack and aliasfuzz (generator) version",
                     dir, same_fields[k] == same_fields[3] ? "aliasfuzz (generator) version" : same_fields[k], x ? x : "(none)",
                     ref_dir, y ? y : "(none)");
  }
  return 0;
}

/* Whether two part records are the same but for the folder they came from. */
static int same_record(const cJSON *a, const cJSON *b) {
  cJSON *x = cJSON_Duplicate(a, 1), *y = cJSON_Duplicate(b, 1);
  cJSON_DeleteItemFromObject(x, "dir");
  cJSON_DeleteItemFromObject(y, "dir");
  int same = cJSON_Compare(x, y, 1);
  cJSON_Delete(x);
  cJSON_Delete(y);
  return same;
}

typedef struct given {
  const char *dir;
  cJSON *records;
  int is_merge;
  af_dir_lock lock;
} given;

int merge_run(const char *out, char *const *dirs, int ndirs, merge_summary *s, af_err *err) {
  memset(s, 0, sizeof *s);
  char path[4096], real_out[PATH_MAX];
  if (findings_mkdirs(out, err)) return -1;
  snprintf(path, sizeof path, "%s/state.json", out);
  if (access(path, F_OK) == 0) {
    cJSON *st = load_json(path, err);
    int merge = st && cJSON_GetObjectItem(st, "merge");
    cJSON_Delete(st);
    if (!merge) return af_fail(err, "%s holds a campaign, not a merge: merge into a new folder (aliasfuzz merge NEW %s ...)", out, out);
  }
  if (!realpath(out, real_out)) return af_fail(err, "%s: %s", out, strerror(errno));
  af_dir_lock lk = {-1};
  char stale[256], what[600];
  snprintf(what, sizeof what, "merge %s", out);
  if (af_dir_lock_take(out, what, &lk, stale, err)) return -1;
  int removed = 0, rc = findings_clean_staging(out, &removed, err);
  given *g = af_xcalloc((size_t)ndirs, sizeof(given));
  /* the reference: OUT's first part, else the first DIR's */
  cJSON *have = NULL;
  const char *ref_dir = out;
  snprintf(path, sizeof path, "%s/parts", out);
  int nhave;
  char **names = list_dir(path, json_name, &nhave);
  if (nhave) {
    char fp[4400];
    snprintf(fp, sizeof fp, "%s/parts/%s", out, names[0]);
    have = load_json(fp, NULL);
  }
  free_names(names, nhave);
  /* everything read and checked before anything is written */
  for (int i = 0; i < ndirs && !rc; i++) {
    char real[PATH_MAX];
    g[i].dir = dirs[i];
    g[i].lock.fd = -1;
    if (realpath(dirs[i], real) && !strcmp(real, real_out)) {
      rc = af_fail(err, "%s: is OUT itself", dirs[i]);
      break;
    }
    char stale2[256];
    int lr = af_dir_lock_take(dirs[i], "merge (reading)", &g[i].lock, stale2, err);
    if (lr == AF_LOCK_HELD) { /* a campaign still writes it */
      af_err_prefix(err, "%s: a campaign runs there (merge it when it ends)", dirs[i]);
      rc = -1;
      break;
    }
    if (lr) g[i].lock.fd = -1; /* a folder we may not write (read-only copy): read it as it is */
    if (!(g[i].records = parts_of_folder(dirs[i], &g[i].is_merge, err))) {
      rc = -1;
      break;
    }
    cJSON *r;
    cJSON_ArrayForEach(r, g[i].records) {
      if (!have) {
        have = cJSON_Duplicate(r, 1);
        ref_dir = dirs[i];
      }
      if ((rc = check_same(r, dirs[i], have, ref_dir, err))) break;
    }
  }
  if (!rc) {
    snprintf(path, sizeof path, "%s/parts", out);
    rc = findings_mkdirs(path, err);
    snprintf(path, sizeof path, "%s/findings", out);
    if (!rc) rc = findings_mkdirs(path, err);
  }
  for (int i = 0; i < ndirs && !rc; i++) {
    cJSON *r;
    cJSON_ArrayForEach(r, g[i].records) {
      char fp[4400];
      snprintf(fp, sizeof fp, "%s/parts/%s.json", out, str_of(r, "id"));
      cJSON *old = access(fp, F_OK) == 0 ? load_json(fp, NULL) : NULL;
      if (old && same_record(old, r)) s->same++;
      else if ((rc = copy_part_files(out, g[i].dir, g[i].is_merge, r, err)) || (rc = save_json(fp, r, err))) break;
      else if (old) {
        s->updated++;
        fprintf(stderr, "aliasfuzz: %s replaces the part of the same converter, seed and shard merged from %s before\n", g[i].dir,
                str_of(old, "dir") ? str_of(old, "dir") : "?");
      } else s->added++;
      cJSON_Delete(old);
    }
  }
  if (!rc) rc = rebuild_out(out, s, err);
  for (int i = 0; i < ndirs; i++) {
    cJSON_Delete(g[i].records);
    af_dir_lock_release(&g[i].lock);
  }
  free(g);
  cJSON_Delete(have);
  af_dir_lock_release(&lk);
  return rc;
}
