/* cmd_gen.c - `aliasfuzz gen`: generate programs, print or write them, or check them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../fuzz/gen.h"
#include "../fuzz/judge.h"
#include "../harness/codec.h"
#include "../harness/eager.h"
#include "../harness/emit.h"
#include "cli.h"

static const char *usage_gen =
    "usage: aliasfuzz gen [--seed S] [--count N] [--out DIR | -] [--emit json|torchscript]\n"
    "                     [--policy FILE] [--print-policy] [--check] [--bytes FILE]\n"
    "                     [--coverage [--markdown]]\n"
    "\n"
    "Generates random programs with aliasing views and in-place ops that eager PyTorch accepts by\n"
    "construction. Program i of a run uses seed S+i (default S = 1, N = 1) and records it in its\n"
    "meta, so `gen --seed S+i` gives that program alone; the same seed, policy and version give\n"
    "byte-identical output. A write that changes nothing proves nothing: a program whose writes\n"
    "change nothing eager can see (floor_ of integers, transpose_(0, 0), a write nothing reads)\n"
    "is passed over for another draw, at most limits.noop_redraws times (default 4), and its meta\n"
    "then names the seed drawn. Campaigns (`aliasfuzz fuzz`) draw their programs the same way\n"
    "under the same policy; a policy with limits.noop_redraws 0 keeps every program, in both.\n"
    "\n"
    "  --out DIR       write gen-SEED.json (or gen-SEED.py) files into DIR; '-' (the default)\n"
    "                  prints to stdout\n"
    "  --emit KIND     json (the default) or torchscript\n"
    "  --policy FILE   the generator policy (JSON; any subset of --print-policy's fields)\n"
    "  --print-policy  print the effective policy and exit\n"
    "  --check         run every program in eager PyTorch and print the eager-valid rate, the\n"
    "                  first invalid programs, how many programs' writes change nothing eager\n"
    "                  can see and how many were passed over for that, and the pattern\n"
    "                  coverage (programs are printed only when --out is given)\n"
    "  --bytes FILE    generate one program from the bytes of FILE (the fuzz engines' mode)\n"
    "  --coverage      print the coverage table: statements by op family x where their first\n"
    "                  tensor argument lives (input, view of an input, intermediate, view of\n"
    "                  one, buffer) x its dtype class, over the programs (no eager run; programs\n"
    "                  are printed only when --out is given); docs/coverage.md is\n"
    "                  `gen --coverage --count 20000 --markdown`\n"
    "  --markdown      with --coverage: the table in Markdown\n";

static const char *policy_name = "the default"; /* for the coverage table's heading */

static int write_program(const ir_program *p, const char *dir, const char *stem, int ts, af_err *err) {
  char *text;
  if (ts) {
    char *src = emit_torchscript(p, "program");
    af_buf b = {0};
    af_buf_printf(&b, "# aliasfuzz gen: %s\n%s", p->meta ? p->meta : "{}", src);
    free(src);
    text = af_buf_take(&b);
  } else {
    text = codec_write_string(p);
  }
  int rc = 0;
  if (!dir) {
    fputs(text, stdout);
    if (ts) fputs("\n", stdout);
  } else {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", dir, stem, ts ? "py" : "json");
    rc = codec_write_atomic(path, text, strlen(text), err);
  }
  free(text);
  return rc;
}

/* Reads the policy file into pol (over the default). 0, or 2 with the error printed. */
static int load_policy(const char *policy_file, gen_policy *pol) {
  af_err err;
  char *text = codec_slurp(policy_file, NULL, &err);
  if (!text) {
    fprintf(stderr, "aliasfuzz: %s\n", err.msg);
    return 2;
  }
  int rc = gen_policy_from_json(text, pol, &err);
  free(text);
  if (rc) {
    fprintf(stderr, "aliasfuzz: %s: %s\n", policy_file, err.msg);
    return 2;
  }
  return 0;
}

/* `gen --bytes FILE`: the program the generator makes from FILE's bytes (as a fuzz target
 * reads its input), written like a seed's. The exit status. */
static int gen_from_bytes(const gen_policy *pol, const char *bytes_file, const char *dir, int ts) {
  af_err err;
  FILE *f = fopen(bytes_file, "rb");
  if (!f) {
    fprintf(stderr, "aliasfuzz: gen: %s: cannot open: %s\n", bytes_file, strerror(errno));
    return 2;
  }
  size_t len = 0, cap = 4096;
  char *data = af_xmalloc(cap);
  size_t got;
  while ((got = fread(data + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) data = af_xrealloc(data, cap *= 2);
  }
  fclose(f);
  ir_program *p;
  int rc = gen_program_from_bytes(pol, (const uint8_t *)data, len, &p, &err);
  free(data);
  if (rc) {
    fprintf(stderr, "aliasfuzz: gen: %s\n", err.msg);
    return 2;
  }
  rc = write_program(p, dir, "gen-bytes", ts, &err);
  ir_program_free(p);
  if (rc) fprintf(stderr, "aliasfuzz: %s\n", err.msg);
  return rc ? 2 : 0;
}

/* `gen` over seeds seed..seed+count-1: each program printed (print) or written into dir; with
 * check, each run in eager and the coverage report printed. The exit status. */
static int gen_seeds(const gen_policy *pol, unsigned long long seed, unsigned long long count, const char *dir, int print,
                     int ts, int check, int coverage, int markdown) {
  af_err err;
  gen_cov *cov = check || coverage ? gen_cov_new() : NULL;
  unsigned long long valid = 0, shown = 0, unchanged = 0, redrawn = 0, nonfinite = 0;
  int status = 0;
  for (unsigned long long k = 0; k < count; k++) {
    uint64_t s = seed + k;
    ir_program *p;
    int nredraws = 0;
    if (judge_gen_program(pol, s, &p, NULL, &nredraws, &err)) {
      fprintf(stderr, "aliasfuzz: gen: seed %llu: %s\n", (unsigned long long)s, err.msg);
      status = 2;
      break;
    }
    if (print) {
      char stem[64];
      snprintf(stem, sizeof stem, "gen-%llu", (unsigned long long)s);
      if (write_program(p, dir, stem, ts, &err)) {
        fprintf(stderr, "aliasfuzz: %s\n", err.msg);
        ir_program_free(p);
        status = 2;
        break;
      }
    }
    if (check) {
      result r;
      result_init(&r);
      if (eager_run(p, &r, &err)) {
        fprintf(stderr, "aliasfuzz: gen: seed %llu: %s\n", (unsigned long long)s, err.msg);
      } else if (r.status == RESULT_OK) {
        valid++;
        nonfinite += eager_nonfinite_at(p) >= 0;
        unchanged += judge_writes_change_nothing(p);
      } else if (shown++ < 5) {
        fprintf(stdout, "invalid: seed %llu: %s\n", (unsigned long long)s, r.message ? r.message : "?");
      }
      result_clear(&r);
    }
    if (cov) gen_cov_add(cov, p);
    redrawn += (unsigned long long)nredraws;
    ir_program_free(p);
  }
  if (check) {
    af_buf b = {0};
    unsigned long long n = status ? 0 : count;
    af_buf_printf(&b, "programs: %llu (seeds %llu..%llu)\n", n, seed, seed + count - 1);
    af_buf_printf(&b, "eager-valid: %llu/%llu (%.3f%%)\n", valid, n, n ? 100.0 * (double)valid / (double)n : 0.0);
    /* a write that changes nothing proves nothing: such programs test only the ops around it */
    af_buf_printf(&b, "writes change nothing: %llu/%llu valid programs (%.2f%%: they have writes, and eager's result is the same without them)\n",
                  unchanged, valid, valid ? 100.0 * (double)unchanged / (double)valid : 0.0);
    af_buf_printf(&b, "non-finite: %llu/%llu valid programs (%.2f%%: eager made an infinity or a NaN, which the oracle takes as equal to any other)\n",
                  nonfinite, valid, valid ? 100.0 * (double)nonfinite / (double)valid : 0.0);
    af_buf_printf(&b, "passed over: %llu programs whose writes changed nothing, each redrawn (limits.noop_redraws %d)\n", redrawn,
                  pol->noop_redraws);
    gen_cov_report(cov, &b);
    fputs(b.s, stdout);
    af_buf_free(&b);
    gen_cov_free(cov);
    if (!status && valid < n) status = 1;
  } else if (coverage && !status) {
    af_buf b = {0};
    af_buf_printf(&b, "%sstatements of %llu programs (seeds %llu..%llu, policy: %s)%s\n\n", markdown ? "" : "# ", count, seed,
                  seed + count - 1, policy_name, markdown ? ", by op family, where the statement's first tensor argument lives and its dtype class:" : "");
    gen_cov_table(cov, markdown, &b);
    fputs(b.s, stdout);
    af_buf_free(&b);
    gen_cov_free(cov);
  }
  return status;
}

int cmd_gen(int argc, char **argv) {
  unsigned long long seed = 1, count = 1;
  const char *out = NULL, *policy_file = NULL, *bytes_file = NULL;
  int ts = 0, print_policy = 0, check = 0, coverage = 0, markdown = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cli_help(usage_gen, "gen");
      return 0;
    } else if (!strcmp(a, "--seed") && v) {
      char *end;
      errno = 0;
      seed = strtoull(v, &end, 0);
      if (*end || errno || v[0] == '-') return cli_usage_error(usage_gen, "gen: --seed: expected a non-negative integer, got '%s'", v);
      i++;
    } else if (!strcmp(a, "--count") && v) {
      char *end;
      count = strtoull(v, &end, 0);
      if (*end || !count || v[0] == '-') return cli_usage_error(usage_gen, "gen: --count: expected a positive integer, got '%s'", v);
      i++;
    } else if (!strcmp(a, "--out") && v) {
      out = v;
      i++;
    } else if (!strcmp(a, "--emit") && v) {
      if (!strcmp(v, "torchscript")) ts = 1;
      else if (strcmp(v, "json")) return cli_usage_error(usage_gen, "gen: --emit: expected json or torchscript, got '%s'", v);
      i++;
    } else if (!strcmp(a, "--policy") && v) {
      policy_file = v;
      i++;
    } else if (!strcmp(a, "--bytes") && v) {
      bytes_file = v;
      i++;
    } else if (!strcmp(a, "--print-policy")) {
      print_policy = 1;
    } else if (!strcmp(a, "--check")) {
      check = 1;
    } else if (!strcmp(a, "--coverage")) {
      coverage = 1;
    } else if (!strcmp(a, "--markdown")) {
      markdown = 1;
    } else {
      return cli_usage_error(usage_gen, "gen: unknown option or missing value: %s", a);
    }
  }
  gen_policy pol;
  gen_policy_default(&pol);
  if (policy_file && load_policy(policy_file, &pol)) return 2;
  if (print_policy) {
    char *s = gen_policy_to_json(&pol);
    fputs(s, stdout);
    free(s);
    return 0;
  }
  const char *dir = out && strcmp(out, "-") ? out : NULL;
  if (markdown && !coverage) return cli_usage_error(usage_gen, "gen: %s goes with --coverage", "--markdown");
  int print = (!check && !coverage) || out;
  if (dir && mkdir(dir, 0777) && errno != EEXIST) {
    fprintf(stderr, "aliasfuzz: gen: cannot create %s: %s\n", dir, strerror(errno));
    return 2;
  }
  if (bytes_file) return gen_from_bytes(&pol, bytes_file, dir, ts);
  policy_name = policy_file ? policy_file : "the default";
  return gen_seeds(&pol, seed, count, dir, print, ts, check, coverage && !check, markdown);
}
