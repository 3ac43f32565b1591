"""bench/coverage/sitecustomize.py - measures a Python process with coverage.py when this folder
is on PYTHONPATH and COVERAGE_PROCESS_START names a coverage configuration
(bench/bench_coverage.sh). The tool starts its workers as `python -u worker_NAME.py`, with its own
environment, so measuring them needs no change to how they start. Without COVERAGE_PROCESS_START
it does nothing.

A worker is stopped by closing its input, and killed 300 ms later (harness/converters/
conv_worker.c, worker_stop): torch's own teardown takes seconds, so coverage.py's save at exit
would never run. The measurement is therefore saved while the process still reads its input:
when a request line is read and the last save is over SAVE_S seconds old, and at end of input
(a worker killed mid-run, by a timeout or its memory cap, loses at most SAVE_S seconds)."""
import os
import sys
import time

SAVE_S = 10.0

if os.environ.get("COVERAGE_PROCESS_START"):
    import coverage

    _cov = coverage.process_startup()

    class _SavingInput:
        """sys.stdin, saving the measurement as described above."""

        def __init__(self, stream):
            self._stream, self._saved = stream, time.monotonic()

        def _save(self, force):
            if _cov is not None and (force or time.monotonic() - self._saved > SAVE_S):
                _cov.save()
                self._saved = time.monotonic()

        def __iter__(self):
            return self

        def __next__(self):
            line = self._stream.readline()
            self._save(not line)
            if not line:
                raise StopIteration
            return line

        def readline(self, *a):
            line = self._stream.readline(*a)
            self._save(not line)
            return line

        def __getattr__(self, name):
            return getattr(self._stream, name)

    if _cov is not None and sys.stdin is not None:
        sys.stdin = _SavingInput(sys.stdin)
