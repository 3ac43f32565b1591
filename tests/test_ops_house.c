/* test_ops_house.c - the op table's house rules (harness/ops/): no per-op `case OPS_<name>:` list
 * outside harness/ops/ (an op's facts live on its ops.def line or in its family's table, never in
 * a switch elsewhere), no C file in harness/ops/ over 1200 lines, and every binary-rule op names a
 * row of binary.def, its in-place and functional forms the same row. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/af.h"
#include "../harness/ops/ops.h"
#include "tap.h"

/* The source folders scanned (relative to the source root); harness/ops/ is the one place allowed. */
static const char *const roots[] = {"harness", "fuzz", "cli", "oracle", "reports", "tests", "bench"};

static int is_source(const char *name) {
  const char *dot = strrchr(name, '.');
  return dot && (!strcmp(dot, ".c") || !strcmp(dot, ".h") || !strcmp(dot, ".cpp") || !strcmp(dot, ".hpp"));
}

/* Appends "path:line: case OPS_name" to out for every `case OPS_<op name>` in the file (an op id,
 * not an ops_kind such as OPS_VIEW or a family OPS_FAM_*); returns how many. */
static int scan_file(const char *path, af_buf *out) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[4096];
  int n = 0, lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    for (const char *s = strstr(line, "case"); s; s = strstr(s + 4, "case")) {
      if (s > line && (isalnum((unsigned char)s[-1]) || s[-1] == '_')) continue;
      const char *p = s + 4;
      while (*p == ' ' || *p == '\t') p++;
      if (strncmp(p, "OPS_", 4)) continue;
      p += 4;
      char name[128];
      size_t k = 0;
      while ((isalnum((unsigned char)p[k]) || p[k] == '_') && k + 1 < sizeof name) name[k] = p[k], k++;
      name[k] = 0;
      if (ops_find(name) < 0) continue;
      af_buf_printf(out, "  %s:%d: case OPS_%s\n", path, lineno, name);
      n++;
    }
  }
  fclose(f);
  return n;
}

/* Scans folder dir recursively, skipping harness/ops, hidden folders and node_modules. */
static int scan_dir(const char *dir, af_buf *out) {
  if (!strcmp(dir, "harness/ops")) return 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.' || !strcmp(de->d_name, "node_modules")) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    struct stat st;
    if (stat(path, &st)) continue;
    if (S_ISDIR(st.st_mode)) n += scan_dir(path, out);
    else if (S_ISREG(st.st_mode) && is_source(de->d_name)) n += scan_file(path, out);
  }
  closedir(d);
  return n;
}

TEST(the_scanner_finds_a_planted_case_and_passes_over_kinds_and_families) {
  char *dir = tap_tmpdir("af_house");
  CHECK(dir, "a temporary folder");
  if (!dir) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/planted.c", dir);
  FILE *f = fopen(path, "w");
  CHECK(f, "writes %s", path);
  if (f) {
    /* the op's name split off, so that this file does not match itself */
    fputs("switch (k) { case OPS_VIEW: case OPS_FAM_ARITH: break; }\nswitch (op) {\n  case OPS_" "add_: return 1;\n}\n", f);
    fclose(f);
  }
  af_buf out = {0};
  int n = scan_file(path, &out);
  CHECK(n == 1 && out.s && strstr(out.s, "planted.c:3: case OPS_" "add_"), "one hit, at line 3 (got %d: %s)", n,
        out.s ? out.s : "");
  af_buf_free(&out);
  tap_rmrf(dir);
  free(dir);
}

TEST(no_case_on_an_op_id_outside_harness_ops) {
  af_buf out = {0};
  int n = 0;
  for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) n += scan_dir(roots[i], &out);
  CHECK(n == 0,
        "%d `case OPS_<op>` outside harness/ops/ (put the fact on the op's ops.def line or in its family's "
        "table, and ask ops.h / ops_shape.h):\n%s",
        n, out.s ? out.s : "");
  af_buf_free(&out);
}

TEST(no_c_file_in_harness_ops_is_over_1200_lines) {
  DIR *d = opendir("harness/ops");
  CHECK(d, "harness/ops/ is there (the test runs in the source root)");
  if (!d) return;
  struct dirent *de;
  int files = 0;
  while ((de = readdir(d))) {
    const char *dot = strrchr(de->d_name, '.');
    if (!dot || strcmp(dot, ".c")) continue;
    char path[4096];
    snprintf(path, sizeof path, "harness/ops/%s", de->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    int lines = 0, c;
    while ((c = fgetc(f)) != EOF) lines += c == '\n';
    fclose(f);
    files++;
    CHECK(lines <= 1200, "%s has %d lines (split it by rule family)", path, lines);
  }
  closedir(d);
  CHECK(files >= 10, "harness/ops/ holds its rule families (%d C files)", files);
}

static int binary_rule(const ops_entry *e) {
  return !strcmp(e->shape_rule, "write_binary") || !strcmp(e->shape_rule, "func_binary");
}

TEST(every_binary_rule_op_names_a_binary_form_and_shares_it_with_its_twin) {
  for (int op = 0; op < OPS_COUNT; op++) {
    const ops_entry *e = ops_get(op);
    if (binary_rule(e)) CHECK(strcmp(e->form, "none"), "%s has binary rules but no binary.def form", e->name);
    int t = ops_twin(op);
    if (t >= 0 && binary_rule(e) && binary_rule(ops_get(t)))
      CHECK(!strcmp(e->form, ops_get(t)->form), "%s's form %s differs from its twin %s's %s", e->name, e->form,
            ops_get(t)->name, ops_get(t)->form);
    if (e->kind == OPS_SETITEM && t >= 0 && binary_rule(ops_get(t)))
      CHECK(strcmp(ops_get(t)->form, "none"), "%s's twin %s has no binary form", e->name, ops_get(t)->name);
  }
}

int main(void) {
  RUN(the_scanner_finds_a_planted_case_and_passes_over_kinds_and_families);
  RUN(no_case_on_an_op_id_outside_harness_ops);
  RUN(no_c_file_in_harness_ops_is_over_1200_lines);
  RUN(every_binary_rule_op_names_a_binary_form_and_shares_it_with_its_twin);
  return tap_done();
}
