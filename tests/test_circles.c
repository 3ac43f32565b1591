/* test_circles.c - no two-file circle among the C files of harness/ (its top level), oracle/ and
 * reports/: when file A uses a function or global defined in file B, B uses none of A's (one of
 * the two builds on the other, or a third file holds what both need). ir.c builds on ir_layout.c
 * and both on ir_names.c; report_html.c builds on report_check.c. The campaign's files (fuzz/) and
 * the converters' registry (harness/converters/) are not covered here. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/af.h"
#include "../harness/codec.h"
#include "tap.h"

static const char *const folders[] = {"harness", "oracle", "reports", NULL};

#define MAX_FILES 64
#define MAX_DEFS 4096

typedef struct src {
  char path[512];
  char *text; /* comments, strings and character literals blanked out */
} src;

static src files[MAX_FILES];
static int nfiles;
static char *def_name[MAX_DEFS];
static int def_file[MAX_DEFS], ndefs;

/* t with comments, string and character literals replaced by spaces (newlines kept). */
static void blank(char *t) {
  for (char *p = t; *p; p++) {
    if (p[0] == '/' && p[1] == '*') {
      char *e = strstr(p + 2, "*/");
      char *end = e ? e + 2 : p + strlen(p);
      for (; p < end; p++)
        if (*p != '\n') *p = ' ';
      p--;
    } else if (p[0] == '/' && p[1] == '/') {
      for (; *p && *p != '\n'; p++) *p = ' ';
      p--;
    } else if (*p == '"' || *p == '\'') {
      char q = *p;
      for (p++; *p && *p != q; p++) {
        if (*p == '\\' && p[1]) *p++ = ' ';
        if (*p != '\n') *p = ' ';
      }
      if (!*p) return;
    }
  }
}

static int starts(const char *s, const char *w) { return !strncmp(s, w, strlen(w)); }

/* The names defined at file scope, not static: functions (a line at column 0 with a '(' whose
 * body follows) and variables with an initializer. */
static void collect_defs(int f) {
  for (char *line = files[f].text; line && *line;) {
    char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if ((isalpha((unsigned char)line[0]) || line[0] == '_') && !starts(line, "static") && !starts(line, "typedef") &&
        !starts(line, "extern") && !starts(line, "struct") && !starts(line, "enum") && !starts(line, "union")) {
      const char *paren = memchr(line, '(', len), *eq = memchr(line, '=', len), *semi = memchr(line, ';', len);
      const char *end = paren && (!eq || paren < eq) ? paren : eq;
      if (end && !(paren && end == paren && semi && !strchr(paren, '{'))) {
        int is_fn = end == paren;
        if (is_fn) { /* a definition: its '{' comes before any ';' */
          const char *b = strchr(paren, '{'), *s = strchr(paren, ';');
          if (!b || (s && s < b)) is_fn = -1;
        }
        const char *e = end;
        while (e > line && (e[-1] == ' ' || e[-1] == '[' || e[-1] == ']')) e--;
        const char *s = e;
        while (s > line && (isalnum((unsigned char)s[-1]) || s[-1] == '_')) s--;
        if (is_fn >= 0 && e > s && ndefs < MAX_DEFS) {
          def_name[ndefs] = memcpy(af_xcalloc((size_t)(e - s) + 1, 1), s, (size_t)(e - s));
          def_file[ndefs++] = f;
        }
      }
    }
    line = nl ? nl + 1 : NULL;
  }
}

/* Whether the file's text uses name as a whole identifier. */
static int uses(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
    int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after = isalnum((unsigned char)p[n]) || p[n] == '_';
    if (!before && !after) return 1;
  }
  return 0;
}

static void load(void) {
  for (int k = 0; folders[k]; k++) {
    DIR *d = opendir(folders[k]);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      size_t len = strlen(e->d_name);
      if (len < 3 || strcmp(e->d_name + len - 2, ".c") || nfiles >= MAX_FILES) continue;
      snprintf(files[nfiles].path, sizeof files[nfiles].path, "%s/%s", folders[k], e->d_name);
      files[nfiles].text = codec_slurp(files[nfiles].path, NULL, NULL);
      if (!files[nfiles].text) continue;
      blank(files[nfiles].text);
      collect_defs(nfiles);
      nfiles++;
    }
    if (d) closedir(d);
  }
}

/* The first name file a uses of file b's, or NULL. */
static const char *first_use(int a, int b) {
  for (int i = 0; i < ndefs; i++)
    if (def_file[i] == b && uses(files[a].text, def_name[i])) return def_name[i];
  return NULL;
}

TEST(the_definitions_are_found) {
  int found = 0;
  for (int i = 0; i < ndefs; i++)
    found += !strcmp(def_name[i], "ir_validate_layouts") || !strcmp(def_name[i], "report_families") || !strcmp(def_name[i], "ir_name_ok");
  CHECK(nfiles > 10 && found == 3, "%d files, %d of ir_validate_layouts, report_families, ir_name_ok found", nfiles, found);
}

TEST(no_two_files_use_each_other) {
  af_buf b = {0};
  for (int x = 0; x < nfiles; x++)
    for (int y = x + 1; y < nfiles; y++) {
      const char *u = first_use(x, y), *v = first_use(y, x);
      if (u && v) af_buf_printf(&b, "  %s uses %s of %s, which uses %s of it\n", files[x].path, u, files[y].path, v);
    }
  CHECK(!b.len, "two-file circles:\n%s", b.s);
  af_buf_free(&b);
}

int main(void) {
  load();
  RUN(the_definitions_are_found);
  RUN(no_two_files_use_each_other);
  for (int i = 0; i < ndefs; i++) free(def_name[i]);
  for (int f = 0; f < nfiles; f++) free(files[f].text);
  return tap_done();
}
