/* conv_worker.h - the client side of the external worker protocol ("aliasfuzz-worker/1",
 * harness/workers/PROTOCOL.md), and the converters built on it: `onnx`, `functorch`, `tvm`
 * (Python workers in harness/workers/) and `external:COMMAND` (any program speaking the protocol).
 *
 * A worker is a persistent child process: it says hello once, then answers one JSON request
 * line with one JSON answer line, program after program. The client
 *   - starts it lazily (first availability check or first program) in its own process group,
 *     with close-on-exec pipes for stdin, stdout and stderr;
 *   - enforces a deadline on every request (poll on the pipes; the worker's stderr is drained
 *     all along and its tail kept for messages);
 *   - maps what goes wrong to a result status: the worker exits or dies (stdout closes) ->
 *     RESULT_CRASH; no answer by the deadline -> RESULT_TIMEOUT (the process group is killed);
 *     an answer that is not JSON, has the wrong id, or breaks the protocol (bad base64, wrong
 *     tensor sizes, unknown dtype, wrong number of outputs or inputs), no proper hello from a
 *     restarted worker -> RESULT_PROTOCOL (verdict worker-protocol-error, not a converter bug),
 *     message starting "worker NAME: protocol error:". A worker that crashed, timed out or
 *     desynchronized the stream is killed and reaped; the next request starts a fresh one.
 *   - skips stray stdout lines (lines that do not start with "{": a native library's chatter),
 *     up to 64 per answer, noting the first once on stderr; a worker that writes only such
 *     lines and no answer by the deadline is a protocol error;
 *   - traces crashes to the program that caused them ("Crash attribution" below);
 *   - names, in a crash's message, the innermost Python frames of a faulthandler dump the worker
 *     left on its stderr (conv_worker_crash_site).
 *   - never takes the calling process down: SIGPIPE is ignored (when it was at its default),
 *     writes are non-blocking, every child is reaped.
 * A worker started by one process is not used by a forked child: the child starts its own.
 *
 * Environment: AF_PYTHON (interpreter for the named workers; otherwise the first of python3,
 * /usr/bin/python3, /usr/local/bin/python3, python that has a torch package), AF_WORKERS_DIR (where the worker
 * scripts live; default: the source tree's harness/workers), AF_WORKER_TIMEOUT (seconds per
 * request, default 30), AF_WORKER_START_TIMEOUT (seconds until the hello, default 120),
 * AF_WORKER_STDERR=1 (copy the workers' stderr to ours), AF_CRASH_ATTRIBUTION=0 (no crash
 * attribution, below). */
#ifndef CONV_WORKER_H
#define CONV_WORKER_H

#include "conv.h"

typedef struct conv_worker conv_worker;

/* A worker that runs argv (argv[0] is searched in PATH; copied). name is used in messages. Does
 * not start it. new, free with conv_worker_free. */
conv_worker *conv_worker_new(const char *name, const char *const *argv);
/* A worker that runs `/bin/sh -c command` (`exec command` for a simple command). new, free with
 * conv_worker_free. */
conv_worker *conv_worker_new_shell(const char *name, const char *command);
/* Stops the worker (closes its stdin, then kills its process group if it lingers), reaps it
 * and frees w. NULL is a no-op. */
void conv_worker_free(conv_worker *w);

/* Deadlines in seconds: per request, and from start to hello. <= 0 keeps the current value. */
void conv_worker_set_timeouts(conv_worker *w, double request_s, double hello_s);
/* Caps the resident memory of the worker's process tree at mb MiB (0: no cap); over it, the
 * worker is killed and the program's result is a crash naming the cap. Default: AF_WORKER_RSS_MB,
 * else a quarter of the machine's memory. */
void conv_worker_set_rss_cap(conv_worker *w, long mb);

/* Starts the worker process if it is not running and has not been judged unavailable, without
 * waiting for its hello (conv_worker_available and conv_worker_run read it). Lets several workers
 * import their libraries in parallel. */
void conv_worker_start(conv_worker *w);
/* conv_worker_start for every named worker (onnx, functorch, tvm): before listing them all. */
void conv_worker_start_all(void);

/* Starts the worker if it is not running and reads its hello (once: the answer is cached).
 * Returns 1 when the worker says it is available; otherwise 0 and *why (borrowed, valid until
 * conv_worker_free) says why: the worker's own reason, or why it did not say hello. */
int conv_worker_available(conv_worker *w, const char **why);
/* "torch 1.13.0, onnx 1.12.0, ..." from the hello's versions, or "unknown"; borrowed. */
const char *conv_worker_version(conv_worker *w);
/* How many times the process was started (restarts included); for tests and statistics. */
int conv_worker_starts(const conv_worker *w);
/* pid of the running process, or 0. */
int conv_worker_pid(const conv_worker *w);

/* Sends p (its JSON form and TorchScript source) and the input tensors (borrowed, not changed),
 * waits for the answer and fills r: status, message, graph (the worker's warnings first, as
 * "# warning: " lines), outputs, final input states (NULL entries where the worker answered
 * null), residual. Returns r->status. Starts or restarts the worker as needed. */
result_status conv_worker_run(conv_worker *w, const ir_program *p, af_tensor *const *inputs, result *r);

/* ---- Crash attribution ----
 * A worker keeps its process across programs, so a program can leave the process broken and the
 * next one, whatever it is, crashes it. When a worker dies on a request and its process had
 * answered requests before (the last CONV_WORKER_HISTORY are kept, with their programs and tags),
 * conv_worker_run reruns the request in a fresh worker (after the request it calls again, for a
 * second call):
 *   - it crashes again: the crash is the program's own (its message says it crashed again);
 *   - it answers: that answer is the program's result (its own verdict), and each earlier request
 *     is replayed in a fresh worker followed by it (most recent first, then all together) to find
 *     the one after which it crashes; that one is the blame (conv_worker_take_blame): a
 *     converter-crash finding "the worker was left broken by this program: ..." for the caller
 *     to charge to it. When none reproduces, the crash is charged to nobody (noted on stderr).
 * Costs one fresh worker for the rerun and one per replay (at most CONV_WORKER_HISTORY + 1),
 * only when a worker dies. The worker is stopped afterwards: the next program starts a fresh one.
 * AF_CRASH_ATTRIBUTION=0 turns it off (every crash is charged to the program it happened on). */
#define CONV_WORKER_HISTORY 4

typedef struct conv_worker_blame {
  char *tag;           /* the culprit request's tag (conv_worker_set_tag when it was sent), new or NULL */
  ir_program *program; /* the culprit program (a clone of the one sent), new */
  char *detail;        /* "the worker was left broken by this program: ...", new */
} conv_worker_blame;

/* Labels the requests sent from now on (copied; NULL: none), so that a blame names its program in
 * the caller's terms (a file, a case id, an iteration). */
void conv_worker_set_tag(conv_worker *w, const char *tag);
/* 1 and *out (free with conv_worker_blame_clear) when the last crash was traced to an earlier
 * request; the blame is handed out once. 0 (and *out zeroed) when there is none. */
int conv_worker_take_blame(conv_worker *w, conv_worker_blame *out);
/* Frees what b holds; NULL is a no-op. */
void conv_worker_blame_clear(conv_worker_blame *b);
/* hook(arg, 1) when an attribution starts (it takes up to CONV_WORKER_HISTORY + 2 worker starts,
 * tens of seconds for a PyTorch 2.x worker), hook(arg, 0) when it ends: for a caller with a
 * per-program deadline (a campaign's job) to suspend it meanwhile. Process-wide; NULL: none. */
void conv_worker_set_attribution_hook(void (*hook)(void *arg, int starting), void *arg);
/* The Python frames in a crash message, "FILE:FUNCTION <- FILE:FUNCTION <- ..." (innermost first, at
 * most 3, each file's base name, no line numbers or addresses: stable across builds), from a
 * faulthandler dump the worker left; new, free with free(); NULL when the message has none. */
char *conv_worker_crash_site(const char *detail);

/* The worker's hello's "refuses" (what it refuses by design: [{"name", "match", "knob", "certain"}],
 * PROTOCOL.md; fuzz/refusals.h) as compact JSON, or NULL when it says none or has not said hello
 * yet (this does not start it). Borrowed. */
const char *conv_worker_refuses(conv_worker *w);
/* Whether the worker's hello says "caches": true (it keeps what it converted for the last request
 * and reuses it for a request with "again"; PROTOCOL.md "Calling again"). Reads the hello. */
int conv_worker_caches(conv_worker *w);
/* Whether converter c runs training programs (issue 33, docs/training.md): a worker whose hello says
 * "train": true (reads the hello: starts the worker); 0 for an in-process converter and for a
 * worker that is unavailable. A converter that does not is judged on a training program's
 * inference form (ir_untrain; fuzz/judge.h), and its repro.py and snippet.py show that form. */
int conv_trains(const conv_converter *c);
/* again 1: the next request to w says "again" (a second call of the program of the request
 * before it, on its own inputs); the flag is cleared when that request is sent. 0 clears it. */
void conv_worker_set_again(conv_worker *w, int again);

/* Interpreter for the Python workers: AF_PYTHON, or the first candidate that has a torch package
 * (checked once per process, without importing torch). NULL when none has, with *why (static)
 * naming what was tried. */
const char *conv_worker_python(const char **why);

/* The converter for "external:COMMAND" (command run with /bin/sh -c). The same command gives
 * the same converter; it lives until the process ends. NULL for an empty command. */
const conv_converter *conv_worker_external(const char *command);

/* For converters backed by a worker (the named ones and external ones): sets the per-request
 * deadline in seconds. Returns 0, or -1 when c is not a worker converter. */
int conv_worker_set_timeout(const conv_converter *c, double seconds);
/* The worker behind a worker converter (created on first use; borrowed), or NULL when c is not
 * a worker converter or its worker cannot be set up (no Python). */
conv_worker *conv_worker_of(const conv_converter *c);

/* Stops every worker the converters started (registered with atexit on first start). */
void conv_worker_shutdown_all(void);

/* The named workers (harness/converters/workers.def, one line each): the converter, its script in
 * the workers folder, its own deadlines (0: the client's defaults) and the pip packages a repro.py
 * of it needs besides torch. */
typedef struct conv_worker_entry {
  const conv_converter *c;
  const char *script;
  double request_s, hello_s;
  const char *packages;
} conv_worker_entry;
int conv_worker_named_count(void);
const conv_worker_entry *conv_worker_named(int i); /* NULL out of range */
/* `fuzz --batch`'s default for converter c: its BATCH line in workers.def, else 1 (issue 32). */
int conv_worker_batch_default(const conv_converter *c);
/* The workers folder: AF_WORKERS_DIR, else the source tree's harness/workers (borrowed). */
const char *conv_worker_dir(void);

/* The named worker converters: one per WORKER line of workers.def (conv_onnx, conv_export, ...). */
#define WORKER(var, name, script, repro, request_s, hello_s, packages, description) extern const conv_converter var;
#include "workers.def"

#endif
