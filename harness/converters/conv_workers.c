/* conv_workers.c - the converter face of the workers (conv.h's vtable): one slot per worker
 * converter, named (worker_registry.c) or external ("external:COMMAND"), its worker created on
 * first use with its own deadlines, and what is asked of a worker before a program is sent
 * (layouts, module state). */
#include "worker_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef AF_WORKERS_DIR
#define AF_WORKERS_DIR "harness/workers"
#endif

#include "../torch/shim.h"

/* ---- converters ---- */

typedef struct slot {
  const conv_converter *c;
  const char *script;  /* named: file in the workers folder */
  char *command;       /* external: shell command */
  conv_worker *w;      /* created on first use */
  double default_s, hello_s; /* a named worker's own deadlines (0: the client's defaults) */
  char *why;           /* why no worker could be created */
  double timeout_s;    /* 0: default */
} slot;

static pthread_mutex_t slots_mu = PTHREAD_MUTEX_INITIALIZER;
static slot **slots; /* each slot allocated once: pointers to it stay valid */
static int nslots;

static slot *slot_of(const conv_converter *c) {
  for (int i = 0; i < nslots; i++)
    if (slots[i]->c == c) return slots[i];
  return NULL;
}

static slot *add_slot(const conv_converter *c, const char *script, const char *command) {
  slots = af_xrealloc(slots, sizeof *slots * (size_t)(nslots + 1));
  slot *s = slots[nslots++] = af_xcalloc(1, sizeof *s);
  s->c = c;
  s->script = script;
  s->command = command ? af_xstrdup(command) : NULL;
  return s;
}

static int registered_atexit;

const char *conv_worker_dir(void) {
  const char *dir = getenv("AF_WORKERS_DIR");
  return dir && *dir ? dir : AF_WORKERS_DIR;
}

/* The worker of slot s, creating it on first use; NULL with s->why when it cannot be. */
static conv_worker *slot_worker(slot *s) {
  if (s->w || s->why) return s->w;
  if (!registered_atexit) {
    registered_atexit = 1;
    atexit(conv_worker_shutdown_all);
  }
  if (s->command) {
    s->w = conv_worker_new_shell(s->c->name, s->command);
  } else {
    const char *why;
    const char *py = conv_worker_python(&why);
    if (!py) {
      s->why = af_xstrdup(why);
      return NULL;
    }
    af_buf script = {0};
    af_buf_printf(&script, "%s/%s", conv_worker_dir(), s->script);
    if (access(script.s, R_OK) != 0) {
      af_buf b = {0};
      af_buf_printf(&b, "worker script %s not found (set AF_WORKERS_DIR)", script.s);
      s->why = af_buf_take(&b);
      af_buf_free(&script);
      return NULL;
    }
    const char *argv[] = {py, "-u", script.s, NULL};
    s->w = conv_worker_new(s->c->name, argv);
    af_buf_free(&script);
  }
  /* a named worker's own deadlines unless the environment sets them (AF_WORKER_TIMEOUT,
   * AF_WORKER_START_TIMEOUT); --timeout (s->timeout_s) wins over both */
  conv_worker_set_timeouts(s->w, getenv("AF_WORKER_TIMEOUT") ? 0 : s->default_s,
                           getenv("AF_WORKER_START_TIMEOUT") ? 0 : s->hello_s);
  if (s->timeout_s > 0) conv_worker_set_timeouts(s->w, s->timeout_s, 0);
  return s->w;
}

/* The slot of a worker converter: external ones are made with theirs, named ones get theirs on
 * first use (their script and deadlines from the registry). NULL for any other converter. */
static slot *find_slot(const conv_converter *c) {
  slot *s = slot_of(c);
  if (s) return s;
  const conv_worker_entry *e = worker_registry_find(c);
  if (!e) return NULL;
  s = add_slot(c, e->script, NULL);
  s->default_s = e->request_s;
  s->hello_s = e->hello_s;
  return s;
}

conv_worker *conv_worker_of(const conv_converter *c) {
  pthread_mutex_lock(&slots_mu);
  slot *s = find_slot(c);
  conv_worker *w = s ? slot_worker(s) : NULL;
  pthread_mutex_unlock(&slots_mu);
  return w;
}

int conv_worker_set_timeout(const conv_converter *c, double seconds) {
  pthread_mutex_lock(&slots_mu);
  slot *s = find_slot(c);
  if (s) {
    s->timeout_s = seconds;
    if (s->w) conv_worker_set_timeouts(s->w, seconds, 0);
  }
  pthread_mutex_unlock(&slots_mu);
  return s ? 0 : -1;
}

int worker_conv_available(const conv_converter *c, const char **why) {
  pthread_mutex_lock(&slots_mu);
  slot *s = find_slot(c);
  conv_worker *w = s ? slot_worker(s) : NULL;
  pthread_mutex_unlock(&slots_mu);
  if (!w) {
    *why = s && s->why ? s->why : "not a worker converter";
    return 0;
  }
  return conv_worker_available(w, why);
}

const char *worker_conv_version(const conv_converter *c) {
  conv_worker *w = conv_worker_of(c);
  return w ? conv_worker_version(w) : "unknown";
}

result_status worker_conv_convert(const conv_converter *c, const ir_program *p, void **state, result *r) {
  *state = NULL; /* a worker converts and runs in one request: see worker_conv_run */
  /* programs with layouts (issue 16) and with module state only to a worker whose hello says it
   * takes them ("layouts": true, "module_state": true) */
  conv_worker *w = ir_has_layouts(p) || ir_nbuffers(p) || p->train ? conv_worker_of(c) : NULL;
  const char *why;
  int up = w && conv_worker_available(w, &why);
  if (up && ir_has_layouts(p) && !w->layouts) {
    /* (the field unquoted: error classes normalize quoted text away) */
    result_set_message(r, RESULT_HARNESS_LIMIT "this worker does not build inputs with layouts (inputs that share memory, strides, "
                          "offsets): its hello does not say layouts: true");
    return RESULT_UNSUPPORTED;
  }
  if (up && p->train && !w->train) { /* issue 33: docs/training.md */
    result_set_message(r, RESULT_HARNESS_LIMIT "this worker does not run training programs (backward, gradients): its hello does not "
                          "say train: true");
    return RESULT_UNSUPPORTED;
  }
  if (up && ir_nbuffers(p) && !w->module_state) {
    result_set_message(r, RESULT_HARNESS_LIMIT "this worker does not convert programs with module state (buffers): its hello does not "
                          "say module_state: true");
    return RESULT_UNSUPPORTED;
  }
  return RESULT_OK;
}

result_status worker_conv_run(const conv_converter *c, void *state, const ir_program *p, af_tensor *const *inputs,
                            result *r) {
  (void)state;
  conv_worker *w = conv_worker_of(c);
  if (!w) {
    pthread_mutex_lock(&slots_mu);
    slot *s = find_slot(c);
    af_buf b = {0};
    af_buf_printf(&b, "converter %s is not available: %s", c->name, s && s->why ? s->why : "unknown reason");
    pthread_mutex_unlock(&slots_mu);
    free(r->message);
    r->message = af_buf_take(&b);
    return RESULT_ERROR;
  }
  return conv_worker_run(w, p, inputs, r);
}

void worker_conv_free_state(void *state) { (void)state; }

/* External converters: each one its own allocation, found again by command. */
typedef struct ext_converter {
  conv_converter c;
  char *name;
  char *description;
} ext_converter;

const conv_converter *conv_worker_external(const char *command) {
  if (!command || !*command) return NULL;
  pthread_mutex_lock(&slots_mu);
  const conv_converter *found = NULL;
  for (int i = 0; i < nslots && !found; i++)
    if (slots[i]->command && strcmp(slots[i]->command, command) == 0) found = slots[i]->c;
  if (!found) {
    ext_converter *e = af_xcalloc(1, sizeof *e);
    af_buf b = {0};
    af_buf_printf(&b, "external:%s", command);
    e->name = af_buf_take(&b);
    af_buf_printf(&b, "external worker: `%s` (aliasfuzz-worker/1)", command);
    e->description = af_buf_take(&b);
    e->c = (conv_converter){.name = e->name, .description = e->description, .available = worker_conv_available,
                            .version = worker_conv_version, .convert = worker_conv_convert, .run = worker_conv_run,
                            .free_state = worker_conv_free_state};
    add_slot(&e->c, NULL, command);
    found = &e->c;
  }
  pthread_mutex_unlock(&slots_mu);
  return found;
}

void conv_worker_start_all(void) {
  for (int i = 0; i < conv_worker_named_count(); i++) {
    conv_worker *w = conv_worker_of(conv_worker_named(i)->c);
    if (w) conv_worker_start(w);
  }
}

void conv_worker_shutdown_all(void) {
  pthread_mutex_lock(&slots_mu);
  for (int i = 0; i < nslots; i++)
    if (slots[i]->w) {
      pthread_mutex_lock(&slots[i]->w->mu);
      worker_stop(slots[i]->w);
      pthread_mutex_unlock(&slots[i]->w->mu);
    }
  pthread_mutex_unlock(&slots_mu);
}
