# repro_export.py - how `export` and `export-decomp` convert, for their repro.py (inlined by
# aliasfuzz): torch.export.export of the program's module, run_decompositions() for export-decomp,
# run through ep.module() (which writes input mutations back into its arguments and buffer
# mutations into its buffers), as worker_export.py.
from repro_common import *  # aliasfuzz: inline


def convert_and_run(src, converted, inputs):
    m, args = repro_module(src, inputs)
    ep = torch.export.export(m, tuple(args))
    if CONVERTER == 'export-decomp':
        ep = ep.run_decompositions()
    print('--- exported program ---')
    print(ep)
    return module_call(ep.module(), inputs)
