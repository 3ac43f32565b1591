/* refusals.c - what a converter refuses by design (refusals.h). */
#include "refusals.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../harness/converters/conv_worker.h"
#include "../harness/result.h"
#include "classes.h"

typedef struct declared {
  const char *converter;
  refusal r;
} declared;

static const declared table[] = {
#define REFUSES(conv, name, match, knob, certain) {conv, {name, match, knob, certain}},
#include "../harness/converters/workers.def"
};
#define NTABLE (int)(sizeof table / sizeof table[0])

/* One converter's refusals, found once per process. */
typedef struct known_set {
  const conv_converter *c;
  refusal *r;
  int n;
} known_set;
static known_set *sets;
static int nsets;

static char *dup_or_null(const cJSON *s) { return cJSON_IsString(s) && *s->valuestring ? strdup(s->valuestring) : NULL; }

const refusal *refusals_of(const conv_converter *c, int *n) {
  *n = 0;
  if (!c) return NULL;
  for (int i = 0; i < nsets; i++)
    if (sets[i].c == c) {
      *n = sets[i].n;
      return sets[i].r;
    }
  known_set s = {c, NULL, 0};
  for (int i = 0; i < NTABLE; i++)
    if (!strcmp(table[i].converter, c->name)) {
      s.r = realloc(s.r, sizeof(refusal) * (size_t)(s.n + 1));
      s.r[s.n++] = table[i].r;
    }
  conv_worker *w = conv_worker_of(c);
  const char *hello = w ? conv_worker_refuses(w) : NULL;
  cJSON *a = hello ? cJSON_Parse(hello) : NULL, *e;
  cJSON_ArrayForEach(e, a) {
    refusal r = {dup_or_null(cJSON_GetObjectItem(e, "name")), dup_or_null(cJSON_GetObjectItem(e, "match")),
                 dup_or_null(cJSON_GetObjectItem(e, "knob")), cJSON_IsTrue(cJSON_GetObjectItem(e, "certain"))};
    if (!r.name || !r.match) { /* a declaration without both says nothing a program can be matched to */
      free((char *)r.name);
      free((char *)r.match);
      free((char *)r.knob);
      continue;
    }
    s.r = realloc(s.r, sizeof(refusal) * (size_t)(s.n + 1));
    s.r[s.n++] = r;
  }
  cJSON_Delete(a);
  sets = realloc(sets, sizeof(known_set) * (size_t)(nsets + 1));
  sets[nsets++] = s;
  *n = s.n;
  return s.r;
}

/* The length of the first of match's '|'-separated texts that stands in text (*at: where it
 * starts in match), 0 when none does. */
static size_t matches(const char *match, const char *text, const char **at) {
  for (const char *m = match; *m;) {
    const char *bar = strchr(m, '|');
    size_t len = bar ? (size_t)(bar - m) : strlen(m);
    if (len) {
      char *t = strndup(m, len);
      int hit = strstr(text, t) != NULL;
      free(t);
      if (hit) {
        if (at) *at = m;
        return len;
      }
    }
    if (!bar) break;
    m = bar + 1;
  }
  return 0;
}

const refusal *refusals_match(const conv_converter *c, const char *text) {
  int n;
  const refusal *r = refusals_of(c, &n);
  for (int i = 0; text && i < n; i++)
    if (matches(r[i].match, text, NULL)) return &r[i];
  return NULL;
}

int refusals_ran(oracle_verdict v) {
  return v == V_VALUE_MISMATCH || v == V_SHAPE_MISMATCH || v == V_DTYPE_MISMATCH || v == V_INPUT_MUTATION_LOST ||
         v == V_WRONG_GRADIENT || v == V_RESIDUAL_MUTATION;
}

const refusal *refusals_warned(const conv_converter *c, oracle_verdict v, const char *detail, const char **hit, size_t *len) {
  const char *w = refusals_ran(v) ? oracle_detail_warnings(detail) : NULL;
  int n;
  const refusal *r = w ? refusals_of(c, &n) : NULL;
  for (int i = 0; r && i < n; i++) {
    const char *at;
    size_t l = matches(r[i].match, w, &at);
    if (!l) continue;
    if (hit) *hit = at;
    if (len) *len = l;
    return &r[i];
  }
  return NULL;
}

const char *refusals_limit(const conv_converter *c, oracle_verdict v, const char *detail) {
  if (v == V_PASS || v == V_PROTOCOL || v == V_INVALID_PROGRAM) return NULL;
  if (refusals_ran(v)) { /* a wrong result: a limit only where the converter warned of it (refusals.h) */
    const refusal *w = refusals_warned(c, v, detail, NULL, NULL);
    return w ? w->name : NULL;
  }
  if (detail && v == V_UNSUPPORTED && strstr(detail, RESULT_HARNESS_LIMIT) == detail) return NULL; /* harness finding */
  const refusal *r = refusals_match(c, detail);
  if (r) return r->name;
  return v == V_UNSUPPORTED ? "converter-unsupported" : NULL;
}

int refusals_same_limit(const conv_converter *c, oracle_verdict a, const char *da, oracle_verdict b, const char *db) {
  const char *x = refusals_limit(c, a, da), *y = refusals_limit(c, b, db);
  return x == y || (x && y && !strcmp(x, y));
}

int refusals_rank(const conv_converter *c, oracle_verdict v, const char *detail) {
  int limit = refusals_limit(c, v, detail) != NULL;
  if (v == V_VALUE_MISMATCH || v == V_SHAPE_MISMATCH || v == V_DTYPE_MISMATCH || v == V_INPUT_MUTATION_LOST) return limit ? 2 : 0;
  return limit ? 2 : 1;
}

int refusals_rank_quick(const conv_converter *c, const char *quick) {
  const char *bar = quick ? strchr(quick, '|') : NULL;
  if (!bar) return 1;
  char *name = strndup(quick, (size_t)(bar - quick));
  oracle_verdict v;
  int bad = oracle_verdict_parse(name, &v);
  free(name);
  return bad ? 1 : refusals_rank(c, v, bar + 1);
}

int refusals_downweight(gen_policy *p, const char *knob) {
  char *text = gen_policy_to_json(p);
  cJSON *j = cJSON_Parse(text);
  free(text);
  cJSON *ch = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "chances"), knob);
  int rc = -1;
  if (cJSON_IsNumber(ch)) {
    cJSON_SetNumberValue(ch, ch->valuedouble * REFUSALS_FACTOR);
    char *t = cJSON_PrintUnformatted(j);
    af_err err;
    gen_policy q;
    if (!gen_policy_from_json(t, &q, &err)) {
      *p = q;
      rc = 0;
    }
    cJSON_free(t);
  }
  cJSON_Delete(j);
  return rc;
}

int refusals_class_is_limit(const cJSON *cls) { return cJSON_IsString(cJSON_GetObjectItem(cls, "limit")); }

int refusals_mark_classes(cJSON *idx, const conv_converter *c) {
  int n = 0;
  cJSON *cls;
  cJSON_ArrayForEach(cls, cJSON_GetObjectItem(idx, "classes")) {
    oracle_verdict v;
    const char *vn = cJSON_GetStringValue(cJSON_GetObjectItem(cls, "verdict"));
    const char *limit = vn && !oracle_verdict_parse(vn, &v) ? refusals_limit(c, v, cJSON_GetStringValue(cJSON_GetObjectItem(cls, "detail"))) : NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(cls, "limit");
    if (limit) {
      cJSON_AddStringToObject(cls, "limit", limit);
      n++;
    }
  }
  return n;
}

int refusals_deferred_limits(const cJSON *idx, const conv_converter *c) {
  int n = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(idx, "deferred")) {
    if (!classes_index_holds_quick(idx, e->string) && refusals_rank_quick(c, e->string) == 2) n++;
  }
  return n;
}
