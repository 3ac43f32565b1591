/* cmd_snippet.c - `aliasfuzz snippet`: snippet.py (harness/emit_snippet.h) of a finding folder,
 * or of a program file on a named converter. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/codec.h"
#include "../harness/emit_snippet.h"
#include "cli.h"

static const char usage[] =
    "usage: aliasfuzz snippet DIR [--stdout]\n"
    "       aliasfuzz snippet FILE --converter NAME [--verdict VERDICT]\n\n"
    "Writes DIR/snippet.py for a finding folder (its repro.json; converter and verdict from its\n"
    "finding.json, or from repro.py's header), or prints the snippet of a program file found as\n"
    "VERDICT (default value-mismatch) on converter NAME: at most 15 lines of Python with the\n"
    "converter's stock API that exit 1 while the bug is there. --stdout prints DIR's instead of\n"
    "writing it.\n";

/* The text after key up to one of stop, new (free with free()), or NULL when key is absent. */
static char *after(const char *text, const char *key, const char *stop) {
  const char *s = text ? strstr(text, key) : NULL;
  if (!s) return NULL;
  s += strlen(key);
  return strndup(s, strcspn(s, stop));
}

/* The finding's converter, verdict and detail (new; the detail NULL when unknown): finding.json's,
 * else repro.py's header lines. */
static int finding_of(const char *dir, char **converter, char **verdict, char **detail, af_err *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/finding.json", dir);
  af_err ignored;
  char *text = codec_slurp(path, NULL, &ignored);
  if (text) {
    cJSON *j = cJSON_Parse(text);
    cJSON *c = cJSON_GetObjectItem(j, "converter"), *v = cJSON_GetObjectItem(j, "verdict");
    cJSON *d = cJSON_GetObjectItem(j, "detail");
    if (cJSON_IsString(c) && cJSON_IsString(v)) {
      *converter = strdup(c->valuestring);
      *verdict = strdup(v->valuestring);
      if (cJSON_IsString(d)) *detail = strdup(d->valuestring);
    }
    cJSON_Delete(j);
    free(text);
    if (*converter) return 0;
    return af_fail(err, "%s: no \"converter\" and \"verdict\" strings", path);
  }
  snprintf(path, sizeof path, "%s/repro.py", dir);
  if (!(text = codec_slurp(path, NULL, err))) {
    af_err_prefix(err, "%s has neither finding.json nor repro.py", dir);
    return -1;
  }
  char *head = strndup(text, strcspn(text, "\n") + 1 + strcspn(text + strcspn(text, "\n") + 1, "\n"));
  *converter = after(head, "Converter: ", " .\n");
  *verdict = after(head, "Verdict when found: ", " .\n");
  *detail = after(text, "\n# Detail: ", "\n");
  free(head);
  free(text);
  if (*converter && *verdict) return 0;
  free(*converter);
  free(*verdict);
  free(*detail);
  *converter = *verdict = *detail = NULL;
  return af_fail(err, "%s: its second line names no 'Converter: NAME' and 'Verdict when found: VERDICT'", path);
}

int cmd_snippet(int argc, char **argv) {
  const char *target = NULL, *conv_opt = NULL, *verdict_opt = NULL;
  int to_stdout = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      cli_help(usage, "snippet");
      return 0;
    } else if (!strcmp(argv[i], "--converter") && i + 1 < argc) {
      conv_opt = argv[++i];
    } else if (!strcmp(argv[i], "--verdict") && i + 1 < argc) {
      verdict_opt = argv[++i];
    } else if (!strcmp(argv[i], "--stdout")) {
      to_stdout = 1;
    } else if (argv[i][0] == '-' || target) {
      return cli_usage_error(usage, "snippet: unexpected argument '%s'", argv[i]);
    } else {
      target = argv[i];
    }
  }
  if (!target) return cli_usage_error(usage, "snippet: no folder or file given%s", "");
  char path[4096];
  char *converter = conv_opt ? strdup(conv_opt) : NULL, *verdict = verdict_opt ? strdup(verdict_opt) : NULL;
  int dir = !conv_opt, rc = 2;
  ir_program *p = NULL;
  char *text = NULL;
  char *detail = NULL;
  af_err err;
  snprintf(path, sizeof path, dir ? "%s/repro.json" : "%s", target);
  if (dir && finding_of(target, &converter, &verdict, &detail, &err)) goto out_fail;
  if (!verdict) verdict = strdup("value-mismatch");
  if (codec_read_file(path, &p, &err)) goto out_fail;
  if (!(text = emit_snippet_py_order(p, converter, verdict, detail, &err))) goto out_fail;
  if (dir && !to_stdout) {
    snprintf(path, sizeof path, "%s/snippet.py", target);
    if (codec_write_atomic(path, text, strlen(text), &err)) goto out_fail;
    printf("%s\n", path);
  } else {
    fputs(text, stdout);
  }
  rc = 0;
  goto out_free;
out_fail:
  fprintf(stderr, "aliasfuzz: snippet: %s\n", err.msg);
out_free:
  free(text);
  ir_program_free(p);
  free(converter);
  free(verdict);
  free(detail);
  return rc;
}
