/* worker_registry.c - the named workers: one line each in workers.def. */
#include "worker_impl.h"

#include <stddef.h>
#include <string.h>

/* Each WORKER line of workers.def: its converter, whose repro_py is "@" and its repro file
 * (conv.h: read when a repro.py is written), then the table. */
#define WORKER(var, cname, script, repro, request_s, hello_s, packages, desc)                                  \
  const conv_converter var = {.name = cname, .description = desc, .available = worker_conv_available,          \
                              .version = worker_conv_version, .convert = worker_conv_convert,                   \
                              .run = worker_conv_run, .free_state = worker_conv_free_state, .repro_py = "@" repro};
#include "workers.def"

static const conv_worker_entry entries[] = {
#define WORKER(var, cname, script, repro, request_s, hello_s, packages, desc) {&var, script, request_s, hello_s, packages},
#include "workers.def"
};

int conv_worker_named_count(void) { return (int)(sizeof entries / sizeof entries[0]); }

const conv_worker_entry *conv_worker_named(int i) {
  return i >= 0 && i < conv_worker_named_count() ? &entries[i] : NULL;
}

/* The BATCH lines of workers.def. */
static const struct {
  const char *name;
  int k;
} batch_defaults[] = {
#define WORKER(var, cname, script, repro, request_s, hello_s, packages, desc)
#define BATCH(converter, k) {converter, k},
#include "workers.def"
};

int conv_worker_batch_default(const conv_converter *c) {
  for (size_t i = 0; c && i < sizeof batch_defaults / sizeof batch_defaults[0]; i++)
    if (!strcmp(batch_defaults[i].name, c->name)) return batch_defaults[i].k;
  return 1;
}

const conv_worker_entry *worker_registry_find(const conv_converter *c) {
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
    if (entries[i].c == c) return &entries[i];
  return NULL;
}
