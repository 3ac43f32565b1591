/* annotate.c - see annotate.h */
#include "annotate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/codec.h"
#include "../harness/converters/conv_worker.h"
#include "../harness/torch/shim.h"
#include "../oracle/signature.h"
#include "classes.h"
#include "confirm.h"
#include "float64.h"
#include "refusals.h"
#include "judge.h"
#include "known.h"

/* ------------------------------------------------------------------ switches */

/* The switches of converters that have cheap ones: the SWITCH lines of the worker registry
 * (harness/converters/workers.def, which says what they mean). Inductor's reinplacing and fusion
 * and export's decompositions need more than a worker option; they are not there yet. */
static const struct {
  const char *converter, *variant, *what;
} switches[] = {
#define SWITCH(converter, variant, what) {converter, variant, what},
#include "../harness/converters/workers.def"
};

static void shell_quote(af_buf *b, const char *s) {
  af_buf_puts(b, "'");
  for (; *s; s++) {
    if (*s == '\'') af_buf_puts(b, "'\\''");
    else af_buf_printf(b, "%c", *s);
  }
  af_buf_puts(b, "'");
}

/* The converter name of a switch variant; new, or NULL when it needs a Python there is none of. */
static char *variant_name(const char *variant) {
  if (variant[0] != '@') return af_xstrdup(variant);
  const char *why = NULL, *py = conv_worker_python(&why);
  if (!py) return NULL;
  const char *sp = strchr(variant, ' ');
  af_buf b = {0}, script = {0};
  af_buf_printf(&script, "%s/worker_%.*s.py", conv_worker_dir(), (int)(sp ? sp - variant - 1 : (long)strlen(variant) - 1), variant + 1);
  af_buf_puts(&b, "external:");
  shell_quote(&b, py);
  af_buf_puts(&b, " ");
  shell_quote(&b, script.s);
  if (sp) af_buf_puts(&b, sp);
  af_buf_free(&script);
  return af_buf_take(&b);
}

int annotate_switches(const char *converter, int i, char **variant, const char **what) {
  int n = 0;
  for (size_t k = 0; k < sizeof switches / sizeof switches[0]; k++) {
    if (strcmp(switches[k].converter, converter) != 0) continue;
    if (n == i) {
      if (variant) *variant = variant_name(switches[k].variant);
      if (what) *what = switches[k].what;
    }
    n++;
  }
  return n;
}

/* ------------------------------------------------------------------ helpers */

static const char *str_of(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }

static int is_dir_with_classes(const char *path) {
  char f[4200];
  struct stat st;
  snprintf(f, sizeof f, "%s/classes.json", path);
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && access(f, R_OK) == 0;
}

/* The class's smallest program (its smallest finding's repro.json); new, NULL when missing. */
static ir_program *class_program(const char *dir, const cJSON *cls, char *path, size_t pathsz) {
  const char *smallest = str_of(cls, "smallest");
  if (!smallest) return NULL;
  snprintf(path, pathsz, "%s/findings/%s/repro.json", dir, smallest);
  ir_program *p = NULL;
  af_err err;
  if (codec_read_file(path, &p, &err)) return NULL;
  return p;
}

/* Whether verdict v with detail shows cls's bug (annotate.h). */
static int shows_class(const cJSON *cls, oracle_verdict v, const char *detail) {
  oracle_verdict cv;
  if (oracle_verdict_parse(str_of(cls, "verdict") ? str_of(cls, "verdict") : "", &cv)) return 0;
  const char *pattern = str_of(cls, "pattern"), *ek = str_of(cls, "error_key");
  if (ek) {
    if (v != cv) return 0;
    if (v == V_TIMEOUT || v == V_CRASH) return 1; /* the harness words these itself */
    char *k = sig_error_class(detail ? detail : "");
    int same = strcmp(k, ek) == 0;
    free(k);
    return same;
  }
  return strcmp(classes_verdict_group(v, pattern), classes_verdict_group(cv, pattern)) == 0;
}

/* The deadline of one rerun of a program in a child. */
static double rejudge_deadline(const annotate_opts *o) { return o->deadline_s > 0 ? 3 * o->deadline_s : 30; }

/* Judges p with c: worker converters in this process (the worker is the isolation, and one
 * worker serves every class), in-process ones in a forked child under a deadline (known.h). */
static int rejudge(const conv_converter *c, const ir_program *p, const annotate_opts *o, judgement *j, af_err *err) {
  return known_judge(c, p, rejudge_deadline(o), o->fail_on_residual, j, err);
}

/* One line of detail for a JSON field: at most 300 characters of its key line. */
static void add_detail(cJSON *o, const char *k, const char *detail) {
  char buf[304];
  snprintf(buf, sizeof buf, "%s", sig_key_line(detail ? detail : ""));
  cJSON_AddStringToObject(o, k, buf);
}

/* Whether cls carries an annotation obj_key whose field "smallest" is cls's smallest finding
 * and whose field what_key is what. */
static int annotated(const cJSON *cls, const char *obj_key, const char *what_key, const char *what) {
  const cJSON *a = cJSON_GetObjectItem(cls, obj_key);
  const char *s = str_of(a, "smallest"), *w = str_of(a, what_key), *m = str_of(cls, "smallest");
  return s && w && m && !strcmp(s, m) && !strcmp(w, what);
}

static void replace(cJSON *cls, const char *k, cJSON *v) {
  cJSON_DeleteItemFromObject(cls, k);
  cJSON_AddItemToObject(cls, k, v);
}

/* ------------------------------------------------------------------ baseline */

static void baseline_converter(cJSON *idx, const conv_converter *b, const annotate_opts *o) {
  cJSON *cls;
  int n = 0, also = 0;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
    if (annotated(cls, "baseline", "name", b->name)) {
      also += annotate_in_baseline(cls);
      n++;
      continue;
    }
    cJSON *members = cJSON_GetObjectItem(cls, "members_in_baseline");
    if (cJSON_IsBool(members)) { /* every member was judged on the baseline as it was found (classes.h) */
      cJSON *a = cJSON_CreateObject();
      cJSON_AddStringToObject(a, "name", b->name);
      cJSON_AddStringToObject(a, "how", "members");
      cJSON_AddStringToObject(a, "smallest", str_of(cls, "smallest") ? str_of(cls, "smallest") : "");
      replace(cls, "baseline", a);
      replace(cls, "in_baseline", cJSON_CreateBool(cJSON_IsTrue(members)));
      also += cJSON_IsTrue(members);
      n++;
      continue;
    }
    char path[4600];
    ir_program *p = class_program(o->dir, cls, path, sizeof path);
    judgement j = {0};
    af_err err;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "name", b->name);
    cJSON_AddStringToObject(a, "how", "converter");
    cJSON_AddStringToObject(a, "smallest", str_of(cls, "smallest") ? str_of(cls, "smallest") : "");
    int in = 0;
    if (!p) {
      add_detail(a, "detail", "the class's smallest program could not be read");
    } else if (rejudge(b, p, o, &j, &err)) {
      add_detail(a, "detail", err.msg);
    } else {
      in = shows_class(cls, j.verdict, j.detail);
      cJSON_AddStringToObject(a, "verdict", oracle_verdict_name(j.verdict));
      if (j.detail) add_detail(a, "detail", j.detail);
    }
    judgement_clear(&j);
    ir_program_free(p);
    replace(cls, "baseline", a);
    replace(cls, "in_baseline", cJSON_CreateBool(in));
    also += in;
    n++;
  }
  fprintf(stderr, "aliasfuzz: baseline %s: %d of %d class(es) also there\n", b->name, also, n);
}

static int baseline_campaign(cJSON *idx, const char *bdir, const annotate_opts *o, af_err *err) {
  (void)o;
  cJSON *bidx = classes_index_load(bdir, err);
  if (!bidx) return -1;
  cJSON *cls, *bc;
  int n = 0, also = 0;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
    const char *key = str_of(cls, "key"), *conv = str_of(cls, "converter");
    const char *matched = NULL;
    cJSON_ArrayForEach(bc, cJSON_GetObjectItem(bidx, "classes")) {
      const char *bkey = str_of(bc, "key"), *bconv = str_of(bc, "converter");
      if (key && conv && bkey && bconv && classes_keys_match(key, conv, bkey, bconv)) {
        matched = str_of(bc, "id");
        break;
      }
    }
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "name", bdir);
    cJSON_AddStringToObject(a, "how", "campaign");
    cJSON_AddStringToObject(a, "smallest", str_of(cls, "smallest") ? str_of(cls, "smallest") : "");
    if (matched) cJSON_AddStringToObject(a, "matched", matched);
    replace(cls, "baseline", a);
    replace(cls, "in_baseline", cJSON_CreateBool(matched != NULL));
    also += matched != NULL;
    n++;
  }
  cJSON_Delete(bidx);
  fprintf(stderr, "aliasfuzz: baseline %s: %d of %d class(es) also there\n", bdir, also, n);
  return 0;
}

int annotate_in_baseline(const cJSON *cls) { return cJSON_IsTrue(cJSON_GetObjectItem(cls, "in_baseline")); }

/* ------------------------------------------------------------------ the dtype trigger (float64.h) */

typedef struct f64_ctx {
  const annotate_opts *o;
  const cJSON *cls;
} f64_ctx;

/* A rerun of a variant of cls's program on the campaign's converter, as a classes_judge. */
static int f64_judge(const ir_program *q, void *ctx) {
  const f64_ctx *x = ctx;
  judgement j = {0};
  af_err err;
  if (rejudge(x->o->c, q, x->o, &j, &err)) return CLASSES_NOT_RUN;
  int r = j.verdict == V_INVALID_PROGRAM ? CLASSES_INVALID
          : j.verdict == V_PASS           ? CLASSES_PASS
          : shows_class(x->cls, j.verdict, j.detail) ? CLASSES_SAME
                                                     : CLASSES_OTHER;
  judgement_clear(&j);
  return r;
}

/* Whether cls may key on the dtype (float64.h): wrong values or a converter error, keyed on its
 * pattern or its error; not a regression's graph change, nor a limit its converter declares. */
static int keyable(const cJSON *cls, const conv_converter *c) {
  const char *vn = str_of(cls, "verdict");
  oracle_verdict v;
  if (str_of(cls, "graph_change") || str_of(cls, "warned") || str_of(cls, "limit") || !vn || oracle_verdict_parse(vn, &v) || !f64_keyable(v))
    return 0;
  return refusals_limit(c, v, str_of(cls, "detail")) == NULL;
}

/* Each class whose smallest program holds float64 is rerun with it made float32 (float64.h): the
 * trigger line of one that then passes, and a class of wrong values or converter errors whose
 * failure needs float64 keys on the dtype instead, folding with the converter's other such classes.
 * A class checked for its present smallest program is not checked again. */
void annotate_float64(cJSON *idx, const annotate_opts *o) {
  int checked = 0, keyed = 0;
  for (cJSON *cls = cJSON_GetObjectItem(idx, "classes")->child, *next; cls; cls = next) {
    next = cls->next;
    const char *conv = str_of(cls, "converter"), *k = str_of(cls, "key");
    const cJSON *done = cJSON_GetObjectItem(cls, "float64");
    if (!conv || !k || strcmp(conv, o->c->name) != 0 ||
        (annotated(cls, "float64", "smallest", str_of(cls, "smallest") ? str_of(cls, "smallest") : "") &&
         cJSON_GetNumberValue(cJSON_GetObjectItem(done, "rule")) == F64_RULE))
      continue;
    char path[4600];
    ir_program *p = class_program(o->dir, cls, path, sizeof path);
    if (!p || !f64_has(p, AF_FLOAT64)) {
      ir_program_free(p);
      continue;
    }
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "smallest", str_of(cls, "smallest"));
    cJSON_AddNumberToObject(row, "rule", F64_RULE);
    f64_ctx x = {o, cls};
    int passes32 = 0, needs = f64_needs(p, f64_judge, &x, row, &passes32);
    ir_program_free(p);
    checked++;
    if (needs >= 0) cJSON_AddBoolToObject(row, "needs", needs == 1);
    replace(cls, "float64", row);
    if (passes32) replace(cls, "trigger", cJSON_CreateString(F64_TRIGGER));
    const char *bar = strrchr(k, '|');
    if (needs == 1 && strcmp(bar + 1, F64_KEY) != 0 && keyable(cls, o->c)) {
      cJSON *mine = cJSON_Duplicate(row, 1);
      cJSON *into = classes_index_rekey(idx, cls, F64_GROUP, F64_KEY); /* cls may fold into another class (and be gone) */
      const char *s = str_of(into, "smallest");
      if (into != cls && s && !strcmp(s, str_of(mine, "smallest"))) { /* it took cls's program as its example */
        replace(into, "float64", mine);
        mine = NULL;
      }
      cJSON_Delete(mine);
      keyed++;
    }
  }
  if (checked) fprintf(stderr, "aliasfuzz: reran %d class(es) with float64 made float32: %d keyed on float64\n", checked, keyed);
}

/* ------------------------------------------------------------------ the twin-dtype rule (classes.h) */

/* Each class of wrong values whose detail says a dtype differs is checked against the twin-dtype
 * rule (classes_twin_dtype, no rerun: the op table says what the twin returns): an in-place op
 * converted as its functional twin keys on that, folding with the converter's other such classes
 * (whatever op, placement or verdict their patterns had). A class checked for its present smallest
 * program is not checked again. */
void annotate_twin_dtype(cJSON *idx, const annotate_opts *o) {
  int keyed = 0;
  for (cJSON *cls = cJSON_GetObjectItem(idx, "classes")->child, *next; cls; cls = next) {
    next = cls->next;
    const char *conv = str_of(cls, "converter"), *k = str_of(cls, "key"), *vn = str_of(cls, "verdict");
    const char *sm = str_of(cls, "smallest") ? str_of(cls, "smallest") : "";
    oracle_verdict v;
    if (!conv || !k || !vn || strcmp(conv, o->c->name) != 0 || oracle_verdict_parse(vn, &v) || v == V_ERROR ||
        !keyable(cls, o->c) || annotated(cls, "twin_dtype", "smallest", sm) || !strcmp(strrchr(k, '|') + 1, CLASSES_TWIN_DTYPE_KEY))
      continue;
    char path[4600];
    ir_program *p = class_program(o->dir, cls, path, sizeof path);
    af_buf why = {0};
    int r = p ? classes_twin_dtype(p, str_of(cls, "detail"), &why) : -1;
    ir_program_free(p);
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "smallest", sm);
    if (r >= 0) cJSON_AddBoolToObject(row, "twin", r == 1);
    if (why.s) cJSON_AddStringToObject(row, "statement", why.s);
    af_buf_free(&why);
    replace(cls, "twin_dtype", row);
    if (r == 1) {
      cJSON *mine = cJSON_Duplicate(row, 1);
      cJSON *into = classes_index_rekey(idx, cls, "wrong-result", CLASSES_TWIN_DTYPE_KEY); /* cls may fold (and be gone) */
      const char *s = str_of(into, "smallest");
      if (into != cls && s && !strcmp(s, str_of(mine, "smallest"))) {
        replace(into, "twin_dtype", mine);
        mine = NULL;
      }
      cJSON_Delete(mine);
      keyed++;
    }
  }
  if (keyed) fprintf(stderr, "aliasfuzz: %d class(es) keyed as an in-place op given its out-of-place twin's dtype\n", keyed);
}

/* ------------------------------------------------------------------ switches (triggers) */

static void triggers(cJSON *idx, const annotate_opts *o) {
  int nsw = annotate_switches(o->c->name, 0, NULL, NULL);
  if (!nsw) return;
  char **names = af_xcalloc((size_t)nsw, sizeof(char *));
  const char **whats = af_xcalloc((size_t)nsw, sizeof(char *));
  const conv_converter **convs = af_xcalloc((size_t)nsw, sizeof(conv_converter *));
  af_buf tried = {0};
  for (int i = 0; i < nsw; i++) {
    annotate_switches(o->c->name, i, &names[i], &whats[i]);
    const char *why = NULL;
    convs[i] = names[i] ? conv_find(names[i]) : NULL;
    if (convs[i] && !convs[i]->available(convs[i], &why)) convs[i] = NULL;
    af_buf_printf(&tried, "%s%s", i ? ", " : "", whats[i]);
  }
  cJSON *cls;
  int done = 0;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
    if (annotated(cls, "switches_of", "tried", tried.s)) continue;
    char path[4600];
    ir_program *p = class_program(o->dir, cls, path, sizeof path);
    if (!p) continue;
    cJSON *sw = cJSON_CreateArray();
    af_buf off = {0}, same = {0};
    for (int i = 0; i < nsw; i++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddStringToObject(e, "switch", whats[i]);
      cJSON_AddStringToObject(e, "converter", names[i] ? names[i] : "");
      judgement j = {0};
      af_err err;
      if (!convs[i]) {
        cJSON_AddStringToObject(e, "verdict", "unavailable");
      } else if (rejudge(convs[i], p, o, &j, &err)) {
        cJSON_AddStringToObject(e, "verdict", "not run");
        add_detail(e, "detail", err.msg);
      } else {
        int s = shows_class(cls, j.verdict, j.detail);
        cJSON_AddStringToObject(e, "verdict", oracle_verdict_name(j.verdict));
        cJSON_AddBoolToObject(e, "same", s);
        if (j.detail) add_detail(e, "detail", j.detail);
        if (j.verdict == V_PASS) af_buf_printf(&off, "%s%s", off.len ? "; " : "", whats[i]);
        else af_buf_printf(&same, "%s%s: %s", same.len ? "; " : "", whats[i], s ? "same bug" : oracle_verdict_name(j.verdict));
      }
      judgement_clear(&j);
      cJSON_AddItemToArray(sw, e);
    }
    af_buf line = {0};
    if (off.len) af_buf_printf(&line, "passes with %s%s%s", off.s, same.len ? "; still fails with " : "", same.len ? same.s : "");
    else if (same.len) af_buf_printf(&line, "no switch tried turns it off (%s)", same.s);
    else af_buf_puts(&line, "no switch could be tried (unavailable here)");
    replace(cls, "switches", sw);
    const char *f32 = str_of(cJSON_GetObjectItem(cls, "float64"), "as_float32");
    if (f32 && !strcmp(f32, "pass")) { /* the dtype trigger (float64.h) first */
      af_buf both = {0};
      af_buf_printf(&both, "%s; %s", F64_TRIGGER, line.s);
      af_buf_free(&line);
      line = both;
    }
    replace(cls, "trigger", cJSON_CreateString(line.s));
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "smallest", str_of(cls, "smallest"));
    cJSON_AddStringToObject(a, "tried", tried.s);
    replace(cls, "switches_of", a);
    af_buf_free(&line);
    af_buf_free(&off);
    af_buf_free(&same);
    ir_program_free(p);
    done++;
  }
  if (done) fprintf(stderr, "aliasfuzz: tried %d switch(es) of %s on %d class(es)\n", nsw, o->c->name, done);
  for (int i = 0; i < nsw; i++) free(names[i]);
  free(names);
  free(whats);
  free(convs);
  af_buf_free(&tried);
}

/* ------------------------------------------------------------------ the other stack */

/* Runs cmd (a shell command line); its stdout and stderr together (new) and exit status. */
static char *run_capture(const char *cmd, int *status) {
  FILE *f = popen(cmd, "r");
  af_buf b = {0};
  char chunk[4096];
  size_t n;
  while (f && (n = fread(chunk, 1, sizeof chunk - 1, f)) > 0) {
    chunk[n] = 0;
    af_buf_puts(&b, chunk);
  }
  int st = f ? pclose(f) : -1;
  *status = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (!b.s) af_buf_puts(&b, "");
  return af_buf_take(&b);
}

int annotate_binary_stack(const char *binary, char stack[32], af_err *err) {
  af_buf cmd = {0};
  shell_quote(&cmd, binary);
  af_buf_puts(&cmd, " --version 2>&1");
  int st;
  char *out = run_capture(cmd.s, &st);
  af_buf_free(&cmd);
  int maj, min, rc = 0;
  const char *s = strstr(out, "stack torch-"), *l = strstr(out, "LibTorch ");
  if (s && sscanf(s, "stack torch-%d.%d", &maj, &min) == 2) snprintf(stack, 32, "torch-%d.%d", maj, min);
  else if (l && sscanf(l, "LibTorch %d.%d", &maj, &min) == 2) snprintf(stack, 32, "torch-%d.%d", maj, min);
  else rc = af_fail(err, "%s --version says neither its stack nor its LibTorch (%.200s)", binary, out);
  free(out);
  return rc;
}

static int stack_order(const char *a, const char *b) {
  int a1 = 0, a2 = 0, b1 = 0, b2 = 0;
  sscanf(a, "torch-%d.%d", &a1, &a2);
  sscanf(b, "torch-%d.%d", &b1, &b2);
  return a1 != b1 ? a1 - b1 : a2 - b2;
}

/* `OTHER run FILE --converter NAME --json` for one class: the verdict line (cJSON, new) or NULL
 * with why (new) saying what happened instead. */
static cJSON *other_run(const char *bin, const char *file, const char *conv, double limit, char **why) {
  af_buf cmd = {0};
  af_buf_printf(&cmd, "timeout -k 5 %.0f ", limit);
  shell_quote(&cmd, bin);
  af_buf_puts(&cmd, " run ");
  shell_quote(&cmd, file);
  af_buf_puts(&cmd, " --converter ");
  shell_quote(&cmd, conv);
  af_buf_puts(&cmd, " --json 2>&1");
  int st;
  char *out = run_capture(cmd.s, &st);
  af_buf_free(&cmd);
  cJSON *res = NULL;
  const char *last = "";
  for (char *line = out, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl) *nl = 0;
    if (line[0] == '{' && !res) res = cJSON_Parse(line);
    if (*line) last = line;
    if (!nl) break;
  }
  if (!res && st > 128 && st <= 128 + 64 && st != 137) {
    /* the other build's run died (functionalize segfaults on boolean masks in 2.13): a crash there */
    char d[200];
    snprintf(d, sizeof d, "the other build's `run` was killed by signal %d (%s)", st - 128, strsignal(st - 128));
    res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "verdict", "converter-crash");
    cJSON_AddStringToObject(res, "detail", d);
  }
  if (!res || !str_of(res, "verdict")) {
    cJSON_Delete(res);
    res = NULL;
    af_buf b = {0};
    if (st == 124 || st == 137) af_buf_printf(&b, "no answer within %.0f s", limit);
    else af_buf_printf(&b, "exit status %d: %s", st, sig_key_line(last));
    *why = af_buf_take(&b);
  }
  free(out);
  return res;
}

static void other_stack(cJSON *idx, const annotate_opts *o) {
  char other[32];
  af_err err;
  const char *mine = at_stack();
  if (annotate_binary_stack(o->other_stack, other, &err)) {
    fprintf(stderr, "aliasfuzz: --other-stack: %s\n", err.msg);
    return;
  }
  int newer = stack_order(mine, other) > 0; /* this stack is the newer one */
  cJSON *cls;
  int n = 0, also = 0;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
    if (annotated(cls, "other_stack_result", "binary", o->other_stack)) continue;
    char path[4600];
    ir_program *p = class_program(o->dir, cls, path, sizeof path);
    if (!p) continue;
    ir_program_free(p);
    char *why = NULL;
    cJSON *r = other_run(o->other_stack, path, o->c->name, 3 * (o->deadline_s > 0 ? o->deadline_s : 10) + 60, &why);
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "stack", other);
    cJSON_AddStringToObject(a, "binary", o->other_stack);
    cJSON_AddStringToObject(a, "smallest", str_of(cls, "smallest"));
    af_buf line = {0};
    oracle_verdict v;
    if (!r || oracle_verdict_parse(str_of(r, "verdict"), &v)) {
      cJSON_AddStringToObject(a, "verdict", "not run");
      add_detail(a, "detail", why ? why : "no verdict");
      af_buf_printf(&line, "not checked on %s: %s", other, why ? why : "no verdict");
    } else {
      const char *detail = str_of(r, "detail");
      cJSON_AddStringToObject(a, "verdict", oracle_verdict_name(v));
      if (detail) add_detail(a, "detail", detail);
      if (shows_class(cls, v, detail)) {
        af_buf_printf(&line, "also fails on %s (%s)", other, oracle_verdict_name(v));
        also++;
      } else if (v == V_PASS && stack_order(mine, other) == 0) {
        af_buf_printf(&line, "passes on the other build (the same stack, %s)", other);
      } else if (v == V_PASS) {
        if (newer) af_buf_printf(&line, "new in %s: passes on %s", mine, other);
        else af_buf_printf(&line, "fixed in %s: passes there", other);
      } else if (v == V_INVALID_PROGRAM) {
        af_buf_printf(&line, "eager %s rejects the program: %s", other, sig_key_line(detail ? detail : ""));
      } else {
        af_buf_printf(&line, "fails otherwise on %s: %s ", other, oracle_verdict_name(v));
        char d[160];
        snprintf(d, sizeof d, "%s", sig_key_line(detail ? detail : ""));
        af_buf_printf(&line, "(%s)", d);
      }
    }
    replace(cls, "other_stack", cJSON_CreateString(line.s));
    replace(cls, "other_stack_result", a);
    af_buf_free(&line);
    cJSON_Delete(r);
    free(why);
    n++;
  }
  if (n) fprintf(stderr, "aliasfuzz: %d class(es) rerun on %s (%s): %d fail there too\n", n, other, o->other_stack, also);
}

/* ------------------------------------------------------------------ the whole */

int annotate_check(const annotate_opts *o, af_err *err) {
  if (o->baseline && !is_dir_with_classes(o->baseline)) {
    const conv_converter *b = conv_find(o->baseline);
    const char *why = NULL;
    if (!b) {
      struct stat st;
      if (stat(o->baseline, &st) == 0)
        return af_fail(err, "--baseline %s: a folder without classes.json (not a campaign folder)", o->baseline);
      return af_fail(err, "--baseline %s: neither a campaign folder nor a converter (see `aliasfuzz converters`)", o->baseline);
    }
    if (!b->available(b, &why)) return af_fail(err, "--baseline %s: not available here: %s", o->baseline, why ? why : "?");
  }
  if (o->other_stack && access(o->other_stack, X_OK) != 0)
    return af_fail(err, "--other-stack %s: not an executable file (the other build's aliasfuzz, e.g. build-113/aliasfuzz)",
                   o->other_stack);
  return 0;
}

int annotate_classes(cJSON *idx, const annotate_opts *o, af_err *err) {
  int rc = 0;
  if (!classes_index_count(idx)) return 0;
  /* first: a class keyed on float64 is what the baseline, the known cases and the rest then see */
  annotate_float64(idx, o);
  annotate_twin_dtype(idx, o);
  if (o->baseline) {
    if (is_dir_with_classes(o->baseline)) {
      rc = baseline_campaign(idx, o->baseline, o, err);
    } else {
      const conv_converter *b = conv_find(o->baseline);
      if (b) baseline_converter(idx, b, o);
      else rc = af_fail(err, "--baseline %s: neither a campaign folder nor a converter", o->baseline);
    }
  }
  /* classes already on a public tracker (known.h, issue 26) */
  af_err ek;
  if (known_annotate(idx, o->c, o->dir, rejudge_deadline(o), &ek)) fprintf(stderr, "aliasfuzz: %s\n", ek.msg);
  else if (known_fold(idx, o->c, &ek) < 0) fprintf(stderr, "aliasfuzz: %s\n", ek.msg); /* one known bug, one class */
  if (!o->no_triggers) triggers(idx, o);
  if (o->other_stack) other_stack(idx, o);
  /* each class on the user's path: its repro.py in a fresh process (confirm.h, issue 26) */
  af_err e2;
  if (confirm_classes(idx, o->dir, o->c, 0, &e2) && !rc) rc = af_fail(err, "%s", e2.msg);
  return rc;
}
