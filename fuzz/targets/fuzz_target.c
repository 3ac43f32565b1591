/* fuzz_target.c - one LLVMFuzzerTestOneInput per converter: the converter is fixed at build time
 * (-DAF_TARGET_CONVERTER="naive" gives fuzz_naive) or, without that macro, read from the
 * environment variable AF_CONVERTER (fuzz_external: AF_CONVERTER=onnx, functorch,
 * external:COMMAND, or any converter name).
 *
 * The bytes drive the generator (target.h); a finding (mismatch, converter error, invalid
 * program) prints one line "aliasfuzz-finding: verdict=... converter=... signature=..." to
 * stderr and aborts, so the engine saves the input. A converter that crashes takes the process
 * down by itself, with the same effect. In record mode (AF_FUZZ_RECORD=DIR, target.h) findings
 * are written to DIR and fuzzing goes on. Every byte string gives a valid program, so nothing is
 * rejected: when the generator fails on an input, that is reported as verdict=generator-error
 * and aborts too.
 *
 * Engines see our own code's edges plus the semantic features of target.h:
 *   libFuzzer: an array in the __libfuzzer_extra_counters section;
 *   AFL++ (afl-clang-fast defines __AFL_COMPILER): AFL++'s driver does not read that section, so
 *   the same ids are guard slots of our own, registered with AFL++'s runtime through
 *   __sanitizer_cov_trace_pc_guard_init before the fork server starts, and hit with
 *   __sanitizer_cov_trace_pc_guard.
 * The same build runs without either engine through replay_main.c.
 *
 * A target that finds a runtime bundle beside its own executable (aliasfuzz-runtime/, made by
 * .clusterfuzzlite/build.sh: a Python with this build's torch, the worker scripts) uses it for
 * worker converters: AF_PYTHON and AF_WORKERS_DIR default to the bundle's, since OSS-Fuzz and
 * ClusterFuzzLite runners have neither the build's Python nor the source tree and set no
 * environment of ours. Variables set by the user still win. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/converters/conv_worker.h"
#include "target.h"

#ifdef AF_TARGET_CONVERTER
static const char *target_converter(void) {
  return AF_TARGET_CONVERTER;
}
#else
static const char *target_converter(void) {
  return getenv("AF_CONVERTER");
}
#endif

static ft_target *target;

#if defined(__AFL_COMPILER)
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);
static uint32_t guards[FT_SPACE];
/* Registered before main, hence before the driver starts the fork server and reports the map
 * size. */
__attribute__((constructor)) static void register_guards(void) {
  __sanitizer_cov_trace_pc_guard_init(guards, guards + FT_SPACE);
}
static void hit(uint32_t id) {
  if (guards[id]) __sanitizer_cov_trace_pc_guard(&guards[id]);
}
#elif defined(AF_LIBFUZZER)
__attribute__((section("__libfuzzer_extra_counters"), used)) static uint8_t extra_counters[FT_SPACE];
static void hit(uint32_t id) {
  if (extra_counters[id] < 255) extra_counters[id]++;
}
#else
static void hit(uint32_t id) {
  (void)id;
}
#endif

/* AF_PYTHON and AF_WORKERS_DIR from DIR/aliasfuzz-runtime/ (DIR: this executable's folder) when
 * they are unset and the bundle has them. */
static void use_runtime_bundle(void) {
  char dir[4096], path[4200];
  ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
  if (n <= 0) return;
  dir[n] = 0;
  char *slash = strrchr(dir, '/');
  if (!slash) return;
  *slash = 0;
  snprintf(path, sizeof path, "%s/aliasfuzz-runtime/python/bin/python3", dir);
  if (!getenv("AF_PYTHON") && access(path, X_OK) == 0) setenv("AF_PYTHON", path, 0);
  snprintf(path, sizeof path, "%s/aliasfuzz-runtime/workers/afworker.py", dir);
  if (!getenv("AF_WORKERS_DIR") && access(path, R_OK) == 0) {
    path[strlen(path) - strlen("/afworker.py")] = 0;
    setenv("AF_WORKERS_DIR", path, 0);
  }
}

static void setup(void) {
  if (target) return;
  use_runtime_bundle();
  at_init();
  af_err err;
  const char *name = target_converter();
  if (!name || !*name) {
    fprintf(stderr,
            "fuzz target: no converter: set AF_CONVERTER (a name from `aliasfuzz converters` or external:COMMAND)\n");
    abort();
  }
  if (ft_target_new(name, &target, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    abort();
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setup();
  /* Warm LibTorch up (dispatcher, TorchScript compiler, the converter's own caches) before an
   * AFL++ fork server forks: every child then starts warm. Not for worker converters: a worker
   * belongs to the process that started it, so each child starts its own on its first input. */
  ft_outcome o;
  af_err err;
  if (!conv_worker_of(ft_target_converter(target)) && ft_target_run(target, (const uint8_t *)"", 0, &o, &err) == 0)
    ft_outcome_clear(&o);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup();
  ft_outcome o;
  af_err err;
  if (ft_target_run(target, data, size, &o, &err)) {
    /* every byte string must give a valid program: this is a bug of ours, as loud as a crash */
    for (char *c = err.msg; *c; c++)
      if (*c == '\n') *c = ' ';
    fprintf(stderr, "aliasfuzz-finding: verdict=generator-error converter=%s detail=%s\n",
            ft_target_converter(target)->name, err.msg);
    fflush(stderr);
    abort();
  }
  for (int k = 0; k < o.nids; k++) hit(o.ids[k] % FT_SPACE);
  if (o.finding && !o.recorded) {
    fprintf(stderr, "%s\n", o.summary);
    fflush(stderr);
    abort();
  }
  ft_outcome_clear(&o);
  return 0;
}

