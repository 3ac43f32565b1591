/* emit_repro.h - repro.py: a standalone Python reproducer that needs only PyTorch. It builds the
 * inputs with the documented formula, runs the program eagerly (the TorchScript source is valid
 * Python), converts and runs it the way the converter did (the converter's repro_py snippet),
 * prints both and exits 1 while they differ (or the converter raises), 0 when they agree. A
 * training program (issue 33) runs the weighted loss's backward after each run and compares every
 * .grad too; for a converter that does not train (conv_trains) repro.py is of its inference form,
 * as the judge gave it. */
#ifndef EMIT_REPRO_H
#define EMIT_REPRO_H

#include "ir.h"

typedef struct repro_info {
  const char *converter;         /* name */
  const char *converter_version;
  const char *verdict;           /* as found */
  const char *detail;            /* one line, may be NULL */
  const char *convert_py;        /* the converter's repro_py snippet, may be NULL */
  const char *converted;         /* the converter's graph text, may be NULL */
  const char *origin;            /* "seed 42 of campaign ..." free text, may be NULL */
} repro_info;

/* new, free with free() */
char *emit_repro_py(const ir_program *p, const repro_info *info);

#endif
