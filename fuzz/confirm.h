/* confirm.h - is a bug class a real bug on the path users run (issue 26)? Each class's smallest
 * program is rerun in a fresh process through the public Python API its converter stands for:
 * the finding folder's repro.py, run with the build's stack Python, IS that path (an in-process
 * converter's repro.py converts through the public API: `functionalize` through
 * torch.func.functionalize, `jit` through the TorchScript passes from Python, `script`
 * through torch.jit; a worker's repro.py is its own Python path). repro.py's exit status is the
 * answer: 1 the bug reproduces there (confirmed), 0 it does not (a harness artifact: not seen from
 * that API), anything else (2: it fails otherwise there, 3: this Python lacks what it needs, a
 * signal, past the time limit) could not check (unconfirmed, with why). `ref` and `naive` are
 * aliasfuzz's own (no public API): their classes stay unconfirmed with that reason.
 *
 * Each class's entry in DIR/classes.json gets
 *   "user_path": {"status": "confirmed"|"artifact"|"unconfirmed", "api": "<the API>" (absent
 *                 without one), "smallest": the finding it ran, "exit": repro.py's exit status
 *                 (absent when it did not run), "result": repro.py's RESULT line, "why": one line},
 *   "user_path_line": one line for reports ("confirmed through torch.func.functionalize ...",
 *                 "not seen from torch.func.functionalize ...: harness artifact", "unconfirmed: ...").
 * An entry already made for the same smallest finding is kept (a resumed campaign does not redo it). */
#ifndef CONFIRM_H
#define CONFIRM_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "../harness/af.h"
#include "../harness/converters/conv.h"

/* The public API converter c stands for, written into buf (bufsz bytes) and returned:
 * "torch.func.functionalize(remove='mutations')", ..., or for a worker converter
 * "<name>'s Python API in a fresh process (its repro.py)". NULL when it has none (ref, naive; an
 * external worker, whose repro.py runs eager only),
 * with *why (static) saying so. */
const char *confirm_api(const conv_converter *c, char *buf, size_t bufsz, const char **why);

/* One run of a finding folder's repro.py in a fresh process. */
typedef struct confirm_run {
  int exit;     /* repro.py's exit status; -1 when it did not end by itself (signal, time limit, no start) */
  char *result; /* its last "RESULT: ..." line without the prefix, new (NULL when it printed none) */
  char *why;    /* when exit is -1 or the Python is missing: one line, new (NULL otherwise) */
  char *output; /* stdout and stderr together (the last 64 KiB), new */
} confirm_run;

/* Runs DIR/repro.py (finding folder dir) with the build's stack Python (AF_PYTHON, or the
 * workers' interpreter: conv_worker_python) in a fresh process, stdout and stderr captured, killed
 * with its process group after limit_s seconds. 0 with *r filled (free with confirm_run_clear);
 * -1 with err when there is no repro.py or no Python (r->why then says the same). */
int confirm_repro_py(const char *dir, double limit_s, confirm_run *r, af_err *err);
void confirm_run_clear(confirm_run *r);

/* "confirmed", "artifact" or "unconfirmed" for repro.py's exit status (1, 0, other). */
const char *confirm_status_of_exit(int exit_status);

/* Confirms every class of idx (classes.h) of campaign folder dir, found with converter c, as
 * described above, one repro.py per core at once (at most 8); limit_s bounds each (0: 600 s).
 * Progress lines on stderr. 0 on success; -1 with err when idx has no classes array. */
int confirm_classes(cJSON *idx, const char *dir, const conv_converter *c, double limit_s, af_err *err);

/* Whether a class entry is marked as a harness artifact (not seen from its converter's API). */
int confirm_is_artifact(const cJSON *cls);

/* How many classes of idx have user_path.status == status. */
int confirm_count(const cJSON *idx, const char *status);

#endif
