/* cmd_suite.c - `aliasfuzz suite`: (re)generates the conformance suite from the op table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/suite.h"
#include "cli.h"

static const char *usage_suite =
    "usage: aliasfuzz suite [--out DIR] [--check]\n"
    "\n"
    "Generates the conformance suite from the op table (fuzz/suite.c): every view op x every\n"
    "in-place op, setitem form and out= form, written through the view, into the base after the\n"
    "view was made, and into an input; view chains of depth 2 and 3; several live views of one\n"
    "base; shape-changing in-place ops followed by uses; reshape/flatten/contiguous as a view and as\n"
    "a copy. Each case is checked in eager PyTorch; combinations eager rejects are listed in\n"
    "DIR/SKIPPED.md. Writes DIR/<id>.json (default DIR: corpus/conformance) and removes generated\n"
    "files that are no longer generated; hand-written cases in subfolders are left alone.\n"
    "--check writes nothing and says whether DIR is what the generator produces.\n";

int cmd_suite(int argc, char **argv) {
  const char *dir = "corpus/conformance";
  int check = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      cli_help(usage_suite, "suite");
      return 0;
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      dir = argv[++i];
    } else if (!strcmp(argv[i], "--check")) {
      check = 1;
    } else {
      return cli_usage_error(usage_suite, "suite: unexpected argument %s", argv[i]);
    }
  }
  suite *s = NULL;
  af_err err;
  if (suite_generate(&s, &err)) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    return 2;
  }
  af_buf diff = {0};
  int rc = suite_write(s, dir, check, &diff, &err);
  if (rc < 0) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    rc = 2;
  } else if (check) {
    if (rc) fprintf(stderr, "%saliasfuzz: %s is not what `aliasfuzz suite --out %s` generates (see above)\n", diff.s, dir, dir);
    else printf("%s: %d cases, %d skipped combinations, as generated\n", dir, s->ncases, s->nskips);
  } else {
    printf("%s: %d cases (%d of them with fractional or infinite data their writes change), %d skipped combinations (%d whose writes change nothing; see %s/SKIPPED.md)\n",
           dir, s->ncases, s->ndata, s->nskips, s->nunchanged, dir);
    rc = 0;
  }
  af_buf_free(&diff);
  suite_free(s);
  return rc;
}
