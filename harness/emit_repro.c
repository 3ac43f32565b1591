/* emit_repro.c - see emit_repro.h */
#include "emit_repro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "converters/conv_worker.h"
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
 * folder inlined (put_inlined); when it cannot be read, a convert_and_run that says so (repro.py
 * then exits 3: it cannot run the converter here). */
static void put_convert_py(af_buf *b, const char *convert_py) {
  if (convert_py[0] != '@') {
    af_buf_puts(b, convert_py);
    return;
  }
  af_buf seen = {0}, py = {0};
  af_err err;
  if (put_inlined(&py, convert_py + 1, &seen, &err) == 0) {
    af_buf_puts(b, py.s ? py.s : "");
  } else {
    af_buf_puts(b, "def convert_and_run(src, converted, inputs):\n    raise ImportError(");
    py_str(b, err.msg);
    af_buf_puts(b, ")\n");
  }
  af_buf_free(&seen);
  af_buf_free(&py);
}

/* The pip packages a repro.py of the named worker converter needs besides torch (workers.def), or "". */
static const char *converter_packages(const char *converter) {
  for (int i = 0; i < conv_worker_named_count(); i++)
    if (strcmp(conv_worker_named(i)->c->name, converter) == 0) return conv_worker_named(i)->packages;
  return "";
}

static const char *body =
    "\n"
    "def default_values(i, n, dtype, data):\n"
    "    \"\"\"Element k of input i is ((7k + 3i) % 11) - 5 (uint8: (7k + 3i) % 11; bool: (k + i) % 3 == 0)\n"
    "    unless data is given.\"\"\"\n"
    "    if data:\n"
    "        return [data[k % len(data)] for k in range(n)]\n"
    "    if dtype == torch.bool:\n"
    "        return [float((k + i) % 3 == 0) for k in range(n)]\n"
    "    if dtype == torch.uint8:\n"
    "        return [float((k * 7 + i * 3) % 11) for k in range(n)]\n"
    "    return [float(((k * 7 + i * 3) % 11) - 5) for k in range(n)]\n"
    "\n"
    "def make_inputs(with_bases=False):\n"
    "    \"\"\"The inputs; an input with a layout (LAYOUTS) is torch.as_strided of its storage (BASES: the\n"
    "    storage of the input `owner`, filled as that input would be, or a hidden base the caller\n"
    "    owns), so inputs that view one storage share it, as they did when the bug was found.\"\"\"\n"
    "    bases, hidden = [], 0\n"
    "    for name, n, dtype, owner in BASES:\n"
    "        if owner >= 0:\n"
    "            vals = default_values(owner, n, dtype, INPUTS[owner][3])\n"
    "        else:\n"
    "            vals, hidden = default_values(len(INPUTS) + hidden, n, dtype, []), hidden + 1\n"
    "        bases.append(torch.tensor(vals, dtype=torch.float64).to(dtype))\n"
    "    out = []\n"
    "    for i, (name, shape, dtype, data) in enumerate(INPUTS):\n"
    "        if LAYOUTS[i] is not None:\n"
    "            b, strides, offset = LAYOUTS[i]\n"
    "            out.append(bases[b].as_strided(shape, strides, offset))\n"
    "            continue\n"
    "        n = 1\n"
    "        for d in shape:\n"
    "            n *= d\n"
    "        out.append(torch.tensor(default_values(i, n, dtype, data), dtype=torch.float64).reshape(shape).to(dtype))\n"
    "    return (out, bases) if with_bases else out\n"
    "\n"
    "def as_list(r):\n"
    "    if r is None:\n"
    "        return []\n"
    "    if isinstance(r, (tuple, list)):\n"
    "        return list(r)\n"
    "    return [r]\n"
    "\n"
    "def module_class(src):\n"
    "    \"\"\"Module state: SRC is the forward of an nn.Module (its buffers are the inputs BUFFERS); the\n"
    "    class comes from a file so that torch.jit.script can read its source.\"\"\"\n"
    "    import importlib.util, os, tempfile\n"
    "    text = ('import torch\\nfrom torch import Tensor\\nfrom typing import List, Optional, Tuple\\n\\n'\n"
    "            'class Program(torch.nn.Module):\\n' + ''.join('    ' + l + '\\n' for l in src.splitlines()))\n"
    "    path = os.path.join(tempfile.mkdtemp(prefix='aliasfuzz-'), 'aliasfuzz_program.py')\n"
    "    with open(path, 'w') as f:\n"
    "        f.write(text)\n"
    "    spec = importlib.util.spec_from_file_location('aliasfuzz_program', path)\n"
    "    mod = importlib.util.module_from_spec(spec)\n"
    "    spec.loader.exec_module(mod)\n"
    "    return mod.Program\n"
    "\n"
    "def make_module(src, inputs, script):\n"
    "    m = module_class(src)()\n"
    "    for i in BUFFERS:\n"
    "        m.register_buffer(INPUTS[i][0], inputs[i])\n"
    "    return torch.jit.script(m) if script else m\n"
    "\n"
    "def module_call(m, inputs, forward=None):\n"
    "    \"\"\"forward (m's own by default) on the inputs that are no buffer (the buffers set first);\n"
    "    returns (outputs, final inputs): a buffer's final state is what the module's attribute is bound to.\"\"\"\n"
    "    for i in BUFFERS:\n"
    "        setattr(m, INPUTS[i][0], inputs[i])\n"
    "    outs = as_list((forward or m)(*[t for i, t in enumerate(inputs) if i not in BUFFERS]))\n"
    "    return outs, [getattr(m, INPUTS[i][0]) if i in BUFFERS else t for i, t in enumerate(inputs)]\n"
    "\n"
    "def run_script(src, inputs):\n"
    "    \"\"\"SRC scripted and run: a function, or a scripted module for module state.\"\"\"\n"
    "    if BUFFERS:\n"
    "        return module_call(make_module(src, inputs, True), inputs)\n"
    "    return as_list(torch.jit.CompilationUnit(src).program(*inputs)), inputs\n"
    "\n"
    "def python_function(src):\n"
    "    \"\"\"SRC as a plain Python function (the program a user writes).\"\"\"\n"
    "    ns = {'torch': torch, 'Tensor': torch.Tensor, 'Tuple': Tuple, 'List': List, 'Optional': Optional}\n"
    "    exec(src, ns)\n"
    "    return ns['program']\n"
    "\n"
    "def run_eager(inputs):\n"
    "    if BUFFERS:\n"
    "        return module_call(make_module(SRC, inputs, False), inputs)\n"
    "    return as_list(python_function(SRC)(*inputs)), inputs\n"
    "\n"
    "def describe(t):\n"
    "    if t is None:\n"
    "        return 'None (the converter cannot express it)'\n"
    "    return '%s %s\\n%s' % (list(t.shape), str(t.dtype).replace('torch.', ''), t)\n"
    "\n"
    "def differs(want, got):\n"
    "    if got is None:\n"
    "        return 'missing'\n"
    "    if list(want.shape) != list(got.shape):\n"
    "        return 'shape %s, eager %s' % (list(got.shape), list(want.shape))\n"
    "    if want.dtype != got.dtype:\n"
    "        return 'dtype %s, eager %s' % (got.dtype, want.dtype)\n"
    "    if want.dtype.is_floating_point:  # the oracle's tolerances (oracle/oracle.h)\n"
    "        rtol, atol = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10),\n"
    "                      torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}[want.dtype]\n"
    "        ok = torch.allclose(got.double(), want.double(), rtol=rtol, atol=atol, equal_nan=True)\n"
    "    else:\n"
    "        ok = torch.equal(got, want)\n"
    "    return None if ok else 'values differ'\n"
    "\n"
    "def main():\n"
    "    torch.set_num_threads(1)\n"
    "    print('aliasfuzz reproducer: converter %s (%s), found as %s' % (CONVERTER, CONVERTER_VERSION, VERDICT))\n"
    "    print('PyTorch', torch.__version__)\n"
    "    print('--- program (TorchScript) ---')\n"
    "    print(SRC)\n"
    "    initial, initial_bases = make_inputs(True)\n"
    "    e_args, e_bases = make_inputs(True)\n"
    "    try:\n"
    "        e_out, e_in = run_eager(e_args)\n"
    "    except Exception as exc:\n"
    "        print('RESULT: eager PyTorch itself rejects the program (invalid program): %s' % str(exc).splitlines()[0])\n"
    "        return 1\n"
    "    if 'convert_and_run' not in globals():\n"
    "        print('this converter has no Python reproduction; eager outputs:')\n"
    "        for k, t in enumerate(e_out):\n"
    "            print('output %d:' % k, describe(t))\n"
    "        return 2\n"
    "    try:\n"
    "        c_args, c_bases = make_inputs(True)\n"
    "        c_out, c_in = convert_and_run(SRC, CONVERTED, c_args)\n"
    "    except ImportError as exc:\n"
    "        print('RESULT: cannot run the converter here: %s' % exc)\n"
    "        return ENV_STATUS\n"
    "    except Exception as exc:\n"
    "        import traceback\n"
    "        traceback.print_exc()\n"
    "        print('RESULT: the converter raised %s: %s' % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ''))\n"
    "        if VERDICT in ('converter-error', 'converter-crash', 'converter-unsupported', 'converter-timeout'):\n"
    "            return 1\n"
    "        print('(found as %s: this is a different failure)' % VERDICT)\n"
    "        return 2\n"
    "    bad = []\n"
    "    if len(c_out) != len(e_out):\n"
    "        bad.append('converter returned %d outputs, eager %d' % (len(c_out), len(e_out)))\n"
    "    for k, want in enumerate(e_out):\n"
    "        got = c_out[k] if k < len(c_out) else None\n"
    "        d = differs(want, got)\n"
    "        print('output %d (%s): eager %s' % (k, OUTPUT_NAMES[k], describe(want)))\n"
    "        print('output %d (%s): converted %s' % (k, OUTPUT_NAMES[k], describe(got)))\n"
    "        if d:\n"
    "            bad.append('output %d (%s): %s' % (k, OUTPUT_NAMES[k], d))\n"
    "    for i, want in enumerate(e_in):\n"
    "        got = c_in[i] if i < len(c_in) else None\n"
    "        changed = differs(initial[i], want) is not None\n"
    "        if got is None and not changed:\n"
    "            continue\n"
    "        d = differs(want, got)\n"
    "        if d:\n"
    "            print('input %s after the run: eager %s' % (INPUTS[i][0], describe(want)))\n"
    "            print('input %s after the run: converted %s' % (INPUTS[i][0], describe(got)))\n"
    "            bad.append('input %s: %s' % (INPUTS[i][0], d))\n"
    "    for k, (name, n, dtype, owner) in enumerate(BASES):  # hidden bases: memory the caller owns\n"
    "        if owner < 0 and differs(e_bases[k], c_bases[k]):\n"
    "            print('base %s after the run: eager %s' % (name, describe(e_bases[k])))\n"
    "            print('base %s after the run: converted %s' % (name, describe(c_bases[k])))\n"
    "            bad.append('base %s: %s' % (name, differs(e_bases[k], c_bases[k])))\n"
    "    if bad:\n"
    "        print('RESULT: MISMATCH (the bug reproduces): ' + '; '.join(bad))\n"
    "        return 1\n"
    "    if VERDICT in ('converter-error', 'converter-crash', 'converter-unsupported', 'converter-timeout'):\n"
    "        print('RESULT: the converter no longer fails: converter and eager agree')\n"
    "        return 0\n"
    "    print('RESULT: converter and eager agree (the bug does not reproduce)')\n"
    "    return 0\n"
    "\n"
    "def guarded():\n"
    "    # converter-crash, converter-timeout: the conversion runs in a child (this file again), so a\n"
    "    # crash or a hang is seen, not suffered: the bug reproduces (exit 1) when the child dies by a\n"
    "    # signal or runs past AF_REPRO_DEADLINE seconds (default 300). A crash from corrupted memory\n"
    "    # need not come every time: a child that ends well is run again, AF_REPRO_TRIES times in all\n"
    "    # (default 3), before the bug reads as not reproduced\n"
    "    import subprocess\n"
    "    deadline = float(os.environ.get('AF_REPRO_DEADLINE', '300'))\n"
    "    tries = max(1, int(os.environ.get('AF_REPRO_TRIES', '3')))\n"
    "    cmd = [sys.executable] + (['-S'] if sys.flags.no_site else []) + sys.argv\n"
    "    for k in range(tries):\n"
    "        try:\n"
    "            r = subprocess.run(cmd, env=dict(os.environ, AF_REPRO_CHILD='1'), timeout=deadline)\n"
    "        except subprocess.TimeoutExpired:\n"
    "            print('RESULT: the conversion ran past %g s (AF_REPRO_DEADLINE): the bug reproduces' % deadline)\n"
    "            return 1\n"
    "        if r.returncode < 0:\n"
    "            print('RESULT: the converter crashed (signal %d): the bug reproduces' % -r.returncode)\n"
    "            return 1\n"
    "        if r.returncode != 0:\n"
    "            return r.returncode\n"
    "        if k + 1 < tries:\n"
    "            print('(the child ended well: run %d of %d, AF_REPRO_TRIES)' % (k + 2, tries))\n"
    "    return 0\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    if VERDICT in ('converter-crash', 'converter-timeout') and not os.environ.get('AF_REPRO_CHILD'):\n"
    "        sys.exit(guarded())\n"
    "    sys.exit(main())\n";

char *emit_repro_py(const ir_program *p, const repro_info *info) {
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
  if (*packages) af_buf_printf(&b, "# Needs besides torch: pip install %s\n", packages);
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
  for (int i = 0; i < p->ninputs; i++) {
    const ir_input *in = &p->inputs[i];
    af_buf_puts(&b, "    (");
    py_str(&b, p->names[in->value]);
    af_buf_puts(&b, ", [");
    for (int d = 0; d < in->rank; d++) af_buf_printf(&b, "%s%lld", d ? ", " : "", (long long)in->shape[d]);
    af_buf_printf(&b, "], %s, [", af_dtype_torch(in->dtype));
    for (int64_t k = 0; k < in->ndata; k++) {
      if (k) af_buf_puts(&b, ", ");
      codec_put_float(&b, in->data[k]);
    }
    af_buf_puts(&b, "]),\n");
  }
  af_buf_puts(&b, "]\nLAYOUTS = [");
  for (int i = 0; i < p->ninputs; i++) { /* issue 16: (base, strides, offset) or None */
    const ir_input *in = &p->inputs[i];
    if (!in->base) {
      af_buf_printf(&b, "%sNone", i ? ", " : "");
      continue;
    }
    af_buf_printf(&b, "%s(%d, [", i ? ", " : "", in->base - 1);
    for (int d = 0; d < in->rank; d++) af_buf_printf(&b, "%s%lld", d ? ", " : "", (long long)in->strides[d]);
    af_buf_printf(&b, "], %lld)", (long long)in->offset);
  }
  af_buf_puts(&b, "]  # inputs that view a storage of BASES: (base, strides, offset)\nBASES = [");
  for (int k = 0; k < p->nbases; k++) {
    af_buf_printf(&b, "%s(", k ? ", " : "");
    py_str(&b, ir_base_name(p, k));
    af_buf_printf(&b, ", %lld, %s, %d)", (long long)p->bases[k].numel, af_dtype_torch(p->bases[k].dtype), p->bases[k].owner);
  }
  af_buf_puts(&b, "]  # (name, elements, dtype, owner input or -1 for a hidden base)\nBUFFERS = [");
  for (int i = 0, n = 0; i < p->ninputs; i++)
    if (p->inputs[i].buffer) af_buf_printf(&b, "%s%d", n++ ? ", " : "", i);
  af_buf_puts(&b, "]  # inputs that are module buffers (self.NAME): the program is an nn.Module's forward");
  af_buf_puts(&b, "\nOUTPUT_NAMES = [");
  for (int o = 0; o < p->noutputs; o++) {
    if (o) af_buf_puts(&b, ", ");
    py_str(&b, p->names[p->outputs[o]]);
  }
  af_buf_puts(&b, "]\n\n");
  af_buf_puts(&b,
              "# TorchScript exposes every ATen op as a Tensor method; plain Python lacks some (alias, fill,\n"
              "# zero, copy, gelu_, ...). Give Python the same ATen ops under the same names, so the program\n"
              "# text means the same in both.\n"
              "def _aten_method(op):\n"
              "    return lambda self, *args: op(self, *args)\n"
              "import re as _re\n"
              "for _name in sorted(set(_re.findall(r'\\.([A-Za-z_][A-Za-z0-9_]*)\\(', SRC + CONVERTED))):\n"
              "    if not hasattr(torch.Tensor, _name) and hasattr(torch.ops.aten, _name):\n"
              "        setattr(torch.Tensor, _name, _aten_method(getattr(torch.ops.aten, _name)))\n\n");
  if (info->convert_py) {
    af_buf_printf(&b, "# How %s converts and runs the program:\n", info->converter);
    put_convert_py(&b, info->convert_py);
  }
  af_buf_puts(&b, body);
  return af_buf_take(&b);
}
