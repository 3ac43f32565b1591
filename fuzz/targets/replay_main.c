/* replay_main.c - a plain main for the fuzz targets, built with any compiler and no engine:
 * replays each FILE (and every regular file of each DIR, in name order) through
 * LLVMFuzzerTestOneInput, the way `fuzz_naive FILE` does under libFuzzer. A finding aborts
 * with the target's one-line summary, as under an engine. ctest runs the seed corpus this way.
 * Exit status: 0 when every input ran, 2 on usage or read errors. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: %s: cannot open\n", path);
    return -1;
  }
  size_t len = 0, cap = 4096;
  uint8_t *data = malloc(cap);
  size_t got;
  while (data && (got = fread(data + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      uint8_t *d = realloc(data, cap *= 2);
      if (!d) free(data);
      data = d;
    }
  }
  fclose(f);
  if (!data) {
    fprintf(stderr, "replay: %s: out of memory\n", path);
    return -1;
  }
  /* A copy of exactly len bytes, so that AddressSanitizer sees reads past the end. */
  uint8_t *exact = malloc(len ? len : 1);
  memcpy(exact, data, len);
  free(data);
  int rc = LLVMFuzzerTestOneInput(exact, len);
  free(exact);
  return rc == 0 ? 0 : -1;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      if (replay_file(path))
        rc = -1;
      else
        (*count)++;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fprintf(stderr, "usage: %s FILE|DIR...\n\nReplays inputs through this fuzz target without a fuzz engine.\n",
            argv[0]);
    return argc < 2 ? 2 : 0;
  }
  LLVMFuzzerInitialize(&argc, &argv);
  int count = 0, rc = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
      rc = 2;
    } else if (S_ISDIR(st.st_mode)) {
      if (replay_dir(argv[i], &count)) rc = 2;
    } else if (replay_file(argv[i])) {
      rc = 2;
    } else {
      count++;
    }
  }
  printf("replayed %d input%s\n", count, count == 1 ? "" : "s");
  return rc;
}
