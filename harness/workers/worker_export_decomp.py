#!/usr/bin/env python3
"""worker_export_decomp.py - aliasfuzz worker `export-decomp`: torch.export.export, then
ep.run_decompositions() (the functional core ATen opset), run through ep.module(). The same
worker as worker_export.py (see there) with --decompose. Speaks aliasfuzz-worker/1 (PROTOCOL.md)."""

import afworker  # run as a script: its folder is first on sys.path
import worker_export


class ExportDecompWorker(worker_export.ExportWorker):
    name = "export-decomp"
    decompose = True
    # run_decompositions() lowers to the core ATen inference IR (aten.copy and other ops without a
    # derivative: the backward through ep.module() fails "derivative for aten::copy is not
    # implemented" on 29 of the 69 tr-* cases): a backend's path, not a training one. Training
    # programs are judged in their inference form (docs/training.md)
    train = False


if __name__ == "__main__":
    afworker.main(ExportDecompWorker)
