# repro_common.py - what the repro.py of the worker converters share: aliasfuzz
# inlines it (and afconvert.py) into repro.py when it writes one (harness/emit_repro.c). It uses
# repro.py's globals (INPUTS, BUFFERS, ATTRIBUTES, OUTPUT_NAMES, PACKAGES, make_inputs, module_call).
from afconvert import *  # aliasfuzz: inline


def written_back(inputs, final):
    """final, after writing each state into its input where the input views a storage (LAYOUTS),
    as the worker does (afconvert.write_states): the storages then hold what a caller who applies
    the returned states has, and repro.py compares hidden ones with eager's."""
    write_states([t if LAYOUTS[i] is not None else None for i, t in enumerate(inputs)], final)
    return final


def repro_module(src, inputs, returns_state=False):
    """(nn.Module of SRC run as Python, its forward's arguments laid out as the inputs are), built
    as the worker builds it (afconvert.program_module)."""
    names = [i[0] for i in INPUTS]
    # (a training program's parameters are nn.Parameters, as the worker registers them; the values
    # are copied, so the leaves the caller passes stay the caller's)
    m = program_module(python_namespace(src), 'forward' if BUFFERS else 'program', names, BUFFERS,
                       len(OUTPUT_NAMES), [t.detach() for t in inputs], returns_state, parameters=PARAMS,
                       attributes=ATTRIBUTES)
    fresh = make_inputs()  # another set laid out as the inputs are (LAYOUTS), as the worker's req.fresh()
    return m, [t for i, t in enumerate(fresh) if i not in BUFFERS]


def need(package, dist=None):
    """Imports package, or exits 3 (ENVIRONMENT) naming what to install: the pin of its pip
    distribution dist (default: the package's own name, or apache-NAME) in PACKAGES."""
    import importlib
    dists = (dist,) if dist else (package, 'apache-' + package)
    words = PACKAGES.split()  # (the names after a '--no-deps' install with pip's --no-deps)
    pip = next(('--no-deps ' * ('--no-deps' in words[:k]) + p for k, p in enumerate(words)
                if re.split('[=<>]', p)[0] in dists), dist or package)
    try:
        return importlib.import_module(package)
    except ImportError as e:
        print('ENVIRONMENT: this reproducer needs %s (pip install %s): %s' % (package, pip, e))
        sys.exit(3)


def forward_params():
    """The positions of the inputs that are forward's arguments (not buffers)."""
    return [i for i in range(len(INPUTS)) if i not in BUFFERS]


def split_state(vals, inputs):
    """The values of a returns_state model: (outputs, final input states), the states written back
    into inputs (the caller's tensors) where they view a storage (written_back)."""
    n = len(OUTPUT_NAMES)
    return vals[:n], written_back(inputs, vals[n:])
