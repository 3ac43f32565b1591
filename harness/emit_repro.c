/* emit_repro.c - see emit_repro.h */
#include "emit_repro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "converters/conv.h"
#include "converters/conv_worker.h"
#include "../oracle/oracle.h"
#include "emit.h"
#include "torch/shim.h"

/* A Python string literal (repr-style, double quotes). */
static void py_str(af_buf *b, const char *s) {
  af_buf_puts(b, "\"");
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\\' || c == '"') af_buf_printf(b, "\\%c", c);
    else if (c == '\n') af_buf_puts(b, "\\n");
    else if (c == '\t') af_buf_puts(b, "\\t");
    else if (c < 0x20) af_buf_printf(b, "\\x%02x", c);
    else af_buf_printf(b, "%c", c);
  }
  af_buf_puts(b, "\"");
}

#define INLINE_MARK "import *  # aliasfuzz: inline"

/* Appends the file name of the workers folder (conv_worker_dir) to b, each line `from MOD import
 * *  # aliasfuzz: inline` replaced by MOD.py put the same way (each module once: seen holds
 * "|MOD|" of those put): a converter's repro file and the modules the workers import too
 * (afconvert.py), so repro.py is one file. 0, or -1 with err naming the file. */
static int put_inlined(af_buf *b, const char *name, af_buf *seen, af_err *err) {
  af_buf path = {0};
  af_buf_printf(&path, "%s/%s", conv_worker_dir(), name);
  FILE *f = fopen(path.s, "r");
  if (!f) {
    af_fail(err, "cannot read %s (the converter's Python for repro.py; AF_WORKERS_DIR)", path.s);
    af_buf_free(&path);
    return -1;
  }
  af_buf_free(&path);
  char line[4096];
  int rc = 0;
  while (!rc && fgets(line, sizeof line, f)) {
    const char *mark = strstr(line, INLINE_MARK);
    size_t n = strcspn(line + 5, " ");
    if (strncmp(line, "from ", 5) != 0 || !mark || n == 0 || n > 200) {
      af_buf_puts(b, line);
      continue;
    }
    af_buf key = {0}, file = {0};
    af_buf_printf(&key, "|%.*s|", (int)n, line + 5);
    if (!seen->s || !strstr(seen->s, key.s)) {
      af_buf_puts(seen, key.s);
      af_buf_printf(&file, "%.*s.py", (int)n, line + 5);
      af_buf_printf(b, "# ---- %s (inlined) ----\n", file.s);
      rc = put_inlined(b, file.s, seen, err);
      af_buf_printf(b, "# ---- end of %s ----\n", file.s);
    }
    af_buf_free(&key);
    af_buf_free(&file);
  }
  fclose(f);
  return rc;
}

/* The converter's Python (conv.h repro_py): the text, or for "@FILE" that file of the workers
 * folder inlined (put_inlined, the modules in seen already put); when it cannot be read, a
 * convert_and_run that says so (repro.py then exits 3: it cannot run the converter here). */
static void put_convert_py(af_buf *b, const char *convert_py, af_buf *seen) {
  if (convert_py[0] != '@') {
    af_buf_puts(b, convert_py);
    return;
  }
  af_buf py = {0};
  af_err err;
  if (put_inlined(&py, convert_py + 1, seen, &err) == 0) {
    af_buf_puts(b, py.s ? py.s : "");
  } else {
    af_buf_puts(b, "def convert_and_run(src, converted, inputs):\n    raise ImportError(");
    py_str(b, err.msg);
    af_buf_puts(b, ")\n");
  }
  af_buf_free(&py);
}

/* The pip packages a repro.py of the named worker converter needs besides torch (workers.def), or "". */
static const char *converter_packages(const char *converter) {
  for (int i = 0; i < conv_worker_named_count(); i++)
    if (strcmp(conv_worker_named(i)->c->name, converter) == 0) return conv_worker_named(i)->packages;
  return "";
}

/* repro.py's header line with the pip commands that install packages (converter_packages): the names
 * after a "--no-deps" among them go in a second command with pip's --no-deps, after the first. */
static void put_install(af_buf *b, const char *packages) {
  const char *nd = strstr(packages, "--no-deps ");
  af_buf_puts(b, "# Needs besides torch: ");
  if (!nd || nd == packages) af_buf_printf(b, "pip install %s\n", packages);
  else af_buf_printf(b, "pip install %.*s && pip install %s\n", (int)(nd - packages - 1), packages, nd);
}

/* repro.py's globals that describe p's inputs and outputs, from the rows of INPUTS on: INPUTS
 * (name, shape, dtype, explicit data), LAYOUTS, BASES, BUFFERS, ATTRIBUTES, TRAIN, GRADS, BASE_GRADS, PARAMS, LOSS,
 * OUTPUT_NAMES. */
static void put_program_globals(af_buf *b, const ir_program *p) {
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    af_buf_puts(b, "    (");
    py_str(b, p->names[in->value]);
    af_buf_puts(b, ", [");
    for (int d = 0; d < in->rank; d++) af_buf_printf(b, "%s%lld", d ? ", " : "", (long long)in->shape[d]);
    af_buf_printf(b, "], %s, [", af_dtype_torch(in->dtype));
    for (int64_t k = 0; k < in->ndata; k++) {
      if (k) af_buf_puts(b, ", ");
      codec_put_float(b, in->data[k]);
    }
    af_buf_puts(b, "]),\n");
  }
  af_buf_puts(b, "]\nLAYOUTS = [");
  for (int i = 0; i < p->ninputs; i++) { /* issue 16: (base, strides, offset) or None */
    const ir_input *in = &p->inputs[i];
    if (!in->base) {
      af_buf_printf(b, "%sNone", i ? ", " : "");
      continue;
    }
    af_buf_printf(b, "%s(%d, [", i ? ", " : "", in->base - 1);
    for (int d = 0; d < in->rank; d++) af_buf_printf(b, "%s%lld", d ? ", " : "", (long long)in->strides[d]);
    af_buf_printf(b, "], %lld)", (long long)in->offset);
  }
  af_buf_puts(b, "]  # inputs that view a storage of BASES: (base, strides, offset)\nBASES = [");
  for (int k = 0; k < p->nbases; k++) {
    af_buf_printf(b, "%s(", k ? ", " : "");
    py_str(b, ir_base_name(p, k));
    af_buf_printf(b, ", %lld, %s, %d)", (long long)p->bases[k].numel, af_dtype_torch(p->bases[k].dtype), p->bases[k].owner);
  }
  af_buf_puts(b, "]  # (name, elements, dtype, owner input or -1 for a hidden base)\nBUFFERS = [");
  for (int i = 0, n = 0; i < p->ninputs; i++)
    if (p->inputs[i].buffer) af_buf_printf(b, "%s%d", n++ ? ", " : "", i);
  af_buf_puts(b, "]  # inputs that are module buffers (self.NAME): the program is an nn.Module's forward\nATTRIBUTES = [");
  for (int i = 0, n = 0; i < p->ninputs; i++) /* issue 29: plain tensor attributes, not registered buffers */
    if (p->inputs[i].attr) af_buf_printf(b, "%s%d", n++ ? ", " : "", i);
  af_buf_puts(b, "]  # module state (in BUFFERS) held in plain tensor attributes (self.NAME = t), not register_buffer");
  /* training (issue 33, docs/training.md): which inputs require grad, which are nn.Parameters
   * (module state too: in BUFFERS), the loss weights */
  af_buf_printf(b, "\nTRAIN = %s  # a training step: after the forward, LOSS's weighted loss backpropagated\nGRADS = [",
                p->train ? "True" : "False");
  for (int i = 0, n = 0; p->train && i < p->ninputs; i++)
    if (p->inputs[i].grad) af_buf_printf(b, "%s%d", n++ ? ", " : "", i);
  af_buf_puts(b, "]  # inputs that require grad (leaves): their .grad is compared\nBASE_GRADS = [");
  for (int k = 0, n = 0; p->train && k < p->nbases; k++)
    if (p->bases[k].grad) af_buf_printf(b, "%s%d", n++ ? ", " : "", k);
  af_buf_puts(b, "]  # hidden bases of BASES that require grad: the caller's leaf, the inputs view its clone\nPARAMS = [");
  for (int i = 0, n = 0; p->train && i < p->ninputs; i++)
    if (p->inputs[i].param) af_buf_printf(b, "%s%d", n++ ? ", " : "", i);
  af_buf_puts(b, "]  # inputs that are nn.Parameters of the module\nLOSS = [");
  for (int o = 0; p->train && o < p->noutputs; o++) {
    if (o) af_buf_puts(b, ", ");
    codec_put_float(b, ir_loss_weight(p, o));
  }
  af_buf_puts(b, "]  # loss = sum(LOSS[k] * outputs[k].sum()) over the floating-point outputs that require grad");
  /* autograd's own refusals (oracle.h oracle_autograd_refusal: the oracle's table), for the verdicts
   * autograd-rejects and autograd-accepts */
  af_buf_puts(b, "\nAUTOGRAD_REFUSALS = [");
  const char *rule, *text;
  for (int k = 0; p->train && (text = oracle_autograd_refusal_text(k, &rule)); k++) {
    af_buf_puts(b, k ? ", (" : "(");
    py_str(b, rule);
    af_buf_puts(b, ", ");
    py_str(b, text);
    af_buf_puts(b, ")");
  }
  af_buf_puts(b, "]  # (rule, text its error message holds): autograd's own refusals of a training program");
  af_buf_puts(b, "\nOUTPUT_NAMES = [");
  for (int o = 0; o < p->noutputs; o++) {
    if (o) af_buf_puts(b, ", ");
    py_str(b, p->names[p->outputs[o]]);
  }
  af_buf_puts(b, "]\n\n");
}

char *emit_repro_py(const ir_program *p, const repro_info *info) {
  ir_program *inference = NULL;
  if (p->train && !conv_trains(conv_find(info->converter))) { /* as the judge gave it (conv_trains) */
    p = inference = ir_program_clone(p);
    ir_untrain(inference);
  }
  af_buf b = {0};
  af_buf_puts(&b, "#!/usr/bin/env python3\n");
  af_buf_printf(&b, "# aliasfuzz %s reproducer. Converter: %s %s. Verdict when found: %s.\n", AF_VERSION,
                info->converter, info->converter_version ? info->converter_version : "", info->verdict);
  if (info->detail) {
    af_buf_puts(&b, "# Detail: ");
    for (const char *c = info->detail; *c && *c != '\n'; c++) af_buf_printf(&b, "%c", *c);
    af_buf_puts(&b, "\n");
  }
  if (info->origin) af_buf_printf(&b, "# Origin: %s\n", info->origin);
  if (inference)
    af_buf_puts(&b, "# A training program, in its inference form (no backward): this converter does not train, and\n"
                    "# aliasfuzz judged it on that form (docs/training.md)\n");
  /* the stack it was found on: repro.py refuses another torch (exit 3, not 1: 1 means "the bug
   * reproduces"), so a run on the wrong PyTorch never reads as fixed or as reproduced */
  char want[64];
  size_t wn = strspn(at_version(), "0123456789.");
  snprintf(want, sizeof want, "%.*s", (int)wn, at_version());
  int debian = strncmp(at_stack_origin(), "debian", 6) == 0;
  af_buf_printf(&b, "# Found on PyTorch %s (%s). Needs that PyTorch: ", at_version(), at_stack_origin());
  if (debian) af_buf_puts(&b, "Debian 12's python3-torch (apt-get install python3-torch), run with /usr/bin/python3\n");
  else af_buf_printf(&b, "pip install torch==%s (the CPU build)\n", want);
  const char *packages = converter_packages(info->converter);
  if (*packages) put_install(&b, packages);
  af_buf_puts(&b, "# Run: python3 repro.py   (exit 1 while the bug is present, 0 once fixed, 3 when this Python\n"
                  "# lacks what it needs: torch of that version or the converter's package; AF_REPRO_ANY_TORCH=1\n"
                  "# runs it on another torch anyway, to see whether a finding is fixed there)\n");
  af_buf_puts(&b, "import os\nimport sys\nfrom typing import List, Optional, Tuple\n\n");
  af_buf_printf(&b, "TORCH_NEEDED = \"%s\"\nENV_STATUS = 3\n", want);
  af_buf_puts(&b,
              "try:\n"
              "    import torch\n"
              "except ImportError as _e:\n"
              "    print('repro.py needs PyTorch %s, but %s cannot import torch (%s)' % (TORCH_NEEDED, sys.executable, _e))\n"
              "    sys.exit(ENV_STATUS)\n"
              "_have = torch.__version__.split('+')[0]\n"
              "if not _have.startswith(TORCH_NEEDED) and os.environ.get('AF_REPRO_ANY_TORCH') != '1':\n"
              "    print('repro.py needs PyTorch %s; %s has torch %s (set AF_REPRO_ANY_TORCH=1 to run it anyway)' %\n"
              "          (TORCH_NEEDED, sys.executable, torch.__version__))\n"
              "    sys.exit(ENV_STATUS)\n\n");
  char *src = emit_torchscript(p, "program");
  af_buf_puts(&b, "SRC = ");
  py_str(&b, src);
  af_buf_puts(&b, "\n\n# The same program, for reading:\n");
  for (char *line = strtok(src, "\n"); line; line = strtok(NULL, "\n")) af_buf_printf(&b, "#   %s\n", line);
  free(src);
  af_buf_puts(&b, "\nCONVERTED = ");
  py_str(&b, info->converted ? info->converted : "");
  af_buf_puts(&b, "\nCONVERTER = ");
  py_str(&b, info->converter);
  af_buf_puts(&b, "\nCONVERTER_VERSION = ");
  py_str(&b, info->converter_version ? info->converter_version : "");
  af_buf_puts(&b, "\nVERDICT = ");
  py_str(&b, info->verdict);
  af_buf_puts(&b, "\nPACKAGES = ");
  py_str(&b, packages);
  af_buf_puts(&b, "  # pip packages besides torch (harness/converters/workers.def)\nINPUTS = [\n");
  put_program_globals(&b, p);
  /* the Python that is not the program's: afconvert.py (aten_methods: TorchScript's Tensor methods
   * that Python lacks), the converter's code, repro_main.py; each module once (seen) */
  af_buf seen = {0}, py = {0};
  af_err err;
  af_buf_puts(&seen, "|afconvert|");
  af_buf_puts(&py, "# ---- afconvert.py (inlined) ----\n");
  int rc = put_inlined(&py, "afconvert.py", &seen, &err);
  if (!rc) {
    af_buf_puts(&py, "\n# TorchScript exposes every ATen op as a Tensor method; plain Python lacks some (alias, fill,\n"
                     "# zero, copy, gelu_, ...): the same ATen ops under the same names, so the text means the same.\n"
                     "aten_methods(SRC + CONVERTED)\n\n");
    if (info->convert_py) {
      af_buf_printf(&py, "# How %s converts and runs the program:\n", info->converter);
      put_convert_py(&py, info->convert_py, &seen);
    }
    rc = put_inlined(&py, "repro_main.py", &seen, &err);
  }
  if (rc) { /* (the workers folder unreadable: say so, exit 3, as for a missing package) */
    af_buf_puts(&b, "print('aliasfuzz could not write this reproducer: ' + ");
    py_str(&b, err.msg);
    af_buf_puts(&b, ")\nsys.exit(ENV_STATUS)\n");
  } else {
    af_buf_puts(&b, py.s);
  }
  af_buf_free(&seen);
  af_buf_free(&py);
  ir_program_free(inference);
  return af_buf_take(&b);
}
