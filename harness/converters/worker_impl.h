/* worker_impl.h - what the files of the worker client share (private to harness/converters/):
 * the worker's state, and the functions one file of the client calls in another.
 *   conv_worker.c     process life: spawn, deadlines, memory cap, stderr drain, hello, one request
 *   worker_wire.c     the wire codec: the request line, the answer read into a result
 *   worker_crash.c    crash details (the Python frames of a faulthandler dump) and crash attribution
 *   worker_python.c   which Python runs the named workers
 *   conv_workers.c    the converter face (conv.h's vtable) over a worker, named and external
 *   worker_registry.c the named workers: workers.def, one line each
 * The public face is conv_worker.h. */
#ifndef WORKER_IMPL_H
#define WORKER_IMPL_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <sys/types.h>

#include "conv_worker.h"

#define WORKER_PROTOCOL "aliasfuzz-worker/1"
#define WORKER_MAX_LINE ((size_t)512 << 20) /* an answer line longer than this is garbage */
#define WORKER_ERR_TAIL 32768               /* bytes of the worker's stderr kept for messages (room for a
                                               faulthandler dump and its list of extension modules) */
#define WORKER_MAX_STRAY 64                 /* stray stdout lines skipped per answer before it is a protocol error */

/* A request this process answered, kept for crash attribution (conv_worker.h). */
typedef struct hist_entry {
  char *body;     /* the request object without its id (worker_request_body), new */
  ir_program *p;  /* a clone of its program, new */
  char *tag;      /* conv_worker_set_tag when it was sent, new or NULL */
  int again;      /* it was a second call of the request before it */
} hist_entry;

extern char **environ;

struct conv_worker {
  char *name;
  char **argv; /* NULL-terminated, owned */
  double timeout_s, hello_timeout_s;
  pid_t pid, owner; /* running process (0: none) and the process that started it */
  int in_fd, out_fd, err_fd;
  char *rbuf; /* stdout bytes not yet consumed */
  size_t rlen, rcap;
  char errtail[WORKER_ERR_TAIL];
  size_t errlen;
  int hello_state;    /* 0 not yet, 1 available, -1 unavailable (final) */
  int ever_available; /* it said hello once: later start failures are findings, not final */
  int hello_pending;  /* started; its hello not read yet */
  double started_at;
  char *why, *version;
  double next_id;
  int starts;
  int module_state; /* its hello says it converts programs with module buffers */
  int layouts;      /* its hello says it builds inputs with layouts (request "bases", issue 16) */
  int caches;       /* its hello says it keeps what it converted for a request with "again" */
  int train;        /* its hello says it runs training programs: backward, "grads" (issue 33) */
  char *refuses;    /* its hello's "refuses" (what it refuses by design, fuzz/refusals.h) as compact JSON, or NULL */
  int again;        /* the next request is a second call of the last program (conv_worker_set_again) */
  long rss_cap_mb;  /* resident memory of the worker's process tree that gets it killed (0: no cap) */
  long rss_seen_mb; /* what the tree used when it went over the cap */
  /* crash attribution: the requests the running process answered, oldest first (reset at each start) */
  hist_entry hist[CONV_WORKER_HISTORY];
  int nhist;
  char *tag;                /* labels the requests sent from now on (conv_worker_set_tag) */
  conv_worker_blame blame;  /* the last crash traced to an earlier program, until taken */
  int has_blame;
  /* stray stdout lines (not protocol): skipped, noted once on stderr */
  int strays;               /* in the current exchange */
  char stray_first[160];    /* the first of them, for messages */
  int stray_noted;
  pthread_mutex_t mu;
};


/* conv_worker.c */
double worker_now_s(void);
void worker_sleep_ms(int ms);
/* The seconds in environment variable var (a positive number), else dflt. */
double worker_env_seconds(const char *var, double dflt);
char *worker_err_summary(const conv_worker *w);
void worker_kill(conv_worker *w, int *status);
void worker_stop(conv_worker *w);
int worker_ensure_started(conv_worker *w, result *r, result_status *how);
result_status worker_send_request(conv_worker *w, const char *body, const ir_program *p, result *r, int *died);

/* worker_wire.c */
char *worker_versions_text(const cJSON *v);
char *worker_request_body(const ir_program *p, af_tensor *const *inputs, int again, af_err *err);
char *worker_request_line(const char *body, double id);
result_status worker_read_answer(conv_worker *w, const cJSON *a, double id, const ir_program *p, result *r,
                                 int *desync);

/* worker_crash.c */
void worker_put_crash_stderr(af_buf *m, conv_worker *w);
void worker_hist_clear(conv_worker *w);
void worker_hist_push(conv_worker *w, char *body, const ir_program *p, int again);
int worker_attribution_on(void);
result_status worker_attribute_crash(conv_worker *w, const char *body, const ir_program *p, int again, result *r);

/* worker_registry.c: the named worker behind c, or NULL */
const conv_worker_entry *worker_registry_find(const conv_converter *c);

/* conv_workers.c: the vtable of a worker converter */
int worker_conv_available(const conv_converter *c, const char **why);
const char *worker_conv_version(const conv_converter *c);
result_status worker_conv_convert(const conv_converter *c, const ir_program *p, void **state, result *r);
result_status worker_conv_run(const conv_converter *c, void *state, const ir_program *p, af_tensor *const *inputs,
                              result *r);
void worker_conv_free_state(void *state);

#endif
