#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script for aliasfuzz on the PyTorch 2.13 stack (issue 32).
#
# Builds, with the infrastructure's compiler and flags ($CC $CXX $CFLAGS $CXXFLAGS carry the
# sanitizer and the coverage instrumentation) and engine ($LIB_FUZZING_ENGINE):
#   fuzz_jit, fuzz_ref        in-process converters (LibTorch in the target's process);
#   fuzz_functorch            a worker converter (Python, harness/workers/) driven by the same
#                             target body: the Python converters' target ($AF_CFL_WORKERS names
#                             which workers get one; default functorch, the one that needs only
#                             torch and converts in milliseconds).
# Not built: fuzz_functionalize (on 2.13 LibTorch's functionalization segfaults in process within
# seconds, a known crash the conformance gate records; every run would stop on it) and fuzz_naive
# (wrong on purpose, an engine check, not a converter to fuzz).
#
# LibTorch comes from the pinned torch wheel (requirements.txt here) installed in a virtual
# environment: $AF_CFL_VENV, default /opt/aliasfuzz-venv (the Dockerfile makes it), linked as the
# tree's .venv so that CMake's AF_TORCH=venv takes it. A runner (base-runner) has neither that
# Python nor the source tree, and a project cannot choose its runner image, so everything a
# target needs at run time goes into $OUT/aliasfuzz-runtime/:
#   python/   the interpreter (a copy of the venv's base Python: binary, libpython, standard
#             library) with, in its site-packages, torch, numpy (the worker protocol's tensors)
#             and their dependencies only; python/bin/
#             python3 is a wrapper that points the loader at python/lib. The in-process targets
#             load LibTorch from its torch/lib too (RPATH $ORIGIN/...), so it is shipped once.
#   workers/  harness/workers/*.py;
#   lib/      other shared libraries the targets need that a runner lacks (libcjson when it is
#             a shared library).
# fuzz_target.c points AF_PYTHON and AF_WORKERS_DIR at the bundle when it finds it beside the
# executable. Each target gets its seed corpus (corpus/fuzz/), dictionary and options file.
#
# LibTorch is a prebuilt libstdc++ library: the C++ shim (harness/torch/) must use libstdc++ too,
# so -stdlib=libc++ is dropped from CXXFLAGS (that rules out MemorySanitizer builds).
# Run here without docker: tests/scripts/cfl_build_and_run.sh (docs/fuzz-engines.md).
here="$SRC/aliasfuzz"
cd "$here"
fail() { echo "build.sh: error: $*" >&2; exit 1; }

venv=${AF_CFL_VENV:-/opt/aliasfuzz-venv}
if [ ! -e .venv ]; then
  [ -x "$venv/bin/python" ] || fail "no torch virtual environment: $venv/bin/python does not exist (the Dockerfile makes it; set AF_CFL_VENV)"
  ln -s "$venv" .venv
fi
py="$here/.venv/bin/python"
want=$(sed -n 's/^torch==\([0-9.]*\).*/\1/p' .clusterfuzzlite/requirements.txt)
got=$(cd / && "$py" -c 'import torch; print(torch.__version__)') || fail "$py cannot import torch"
case "$got" in "$want" | "$want"+*) ;; *) fail "$py has torch $got, .clusterfuzzlite/requirements.txt pins $want" ;; esac

export CXXFLAGS="${CXXFLAGS//-stdlib=libc++/}"
workers=${AF_CFL_WORKERS:-functorch}
targets="jit ref $workers"
rt=aliasfuzz-runtime
pyver=$(cd / && "$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
site="$rt/python/lib/python$pyver/site-packages"

# CMAKE_BUILD_TYPE=None: the infrastructure's flags alone (no -DNDEBUG: asserts stay on)
build="$WORK/aliasfuzz-build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=None -DAF_TORCH=venv \
  -DAF_FUZZ=ON -DAF_FUZZ_SANITIZE=OFF -DAF_FUZZ_INSTRUMENT=OFF -DAF_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
  -DAF_FUZZ_WORKER_TARGETS="${workers// /;}" \
  -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_RPATH="\$ORIGIN/$rt/lib;\$ORIGIN/$site/torch/lib"
cmake --build "$build" -j"$(nproc)" --target $(for t in $targets; do echo "fuzz_${t//-/_}"; done)

rm -rf "${OUT:?}/$rt"
mkdir -p "$OUT/$rt/lib" "$OUT/$rt/workers" "$OUT/$site"

# The interpreter: the venv's base Python (binary, libpython, standard library less its tests,
# GUI and site-packages), then torch's and numpy's distributions from the venv (RECORD's top-level
# entries, without torch's C++ headers, test binaries and tools but torch_shm_manager).
read -r pyexe pylib stdlib venvsite < <(cd / && "$py" -c '
import os, sys, sysconfig
v = sysconfig.get_config_vars()
lib = os.path.join(v["LIBDIR"], v["INSTSONAME"]) if v.get("Py_ENABLE_SHARED") else "-"
print(os.path.realpath(sys.executable), lib, sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"])')
mkdir -p "$OUT/$rt/python/bin"
cp "$pyexe" "$OUT/$rt/python/bin/python$pyver"
[ "$pylib" = - ] || cp -L "$pylib" "$OUT/$rt/python/lib/"
tar -C "$stdlib" --exclude=./site-packages --exclude=./test --exclude=./idlelib --exclude=./tkinter \
  --exclude=./turtledemo --exclude=./ensurepip --exclude='__pycache__' -cf - . | tar -C "$OUT/$rt/python/lib/python$pyver" -xf -
cat >"$OUT/$rt/python/bin/python3" <<WRAP
#!/bin/sh
# aliasfuzz runtime bundle (.clusterfuzzlite/build.sh): the copied interpreter, its libpython beside it
here=\$(dirname "\$0")
LD_LIBRARY_PATH="\$here/../lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 exec "\$here/python$pyver" "\$@"
WRAP
chmod +x "$OUT/$rt/python/bin/python3"
(cd / && "$py" -c '
import importlib.metadata as md, re, sys
todo, seen, top = ["torch", "numpy"], set(), set()
while todo:
    d = md.distribution(todo.pop())
    name = d.metadata["Name"].lower()
    if name in seen: continue
    seen.add(name)
    for f in d.files or []:
        if not str(f).startswith(".."): top.add(f.parts[0])
    for r in d.requires or []:
        if "extra ==" not in r: todo.append(re.match(r"[A-Za-z0-9._-]+", r).group(0))
print("\n".join(sorted(top)))') >"$WORK/bundle-entries"
(cd "$venvsite" && tar --exclude=torch/include --exclude=torch/test --exclude=torch/bin -cf - $(cat "$WORK/bundle-entries")) |
  tar -C "$OUT/$site" -xf -
mkdir -p "$OUT/$site/torch/bin" # import torch wants its shared-memory manager
cp "$venvsite/torch/bin/torch_shm_manager" "$OUT/$site/torch/bin/"
cp harness/workers/*.py "$OUT/$rt/workers/"

# Every target and its files; the shared libraries a runner lacks (not glibc, libstdc++, libgcc)
for t in $targets; do
  name="fuzz_${t//-/_}"
  cp "$build/$name" "$OUT/"
  seeds=corpus/fuzz/$t
  [ -d "$seeds" ] || seeds=corpus/fuzz/external # the worker converters' seeds
  rm -f "$OUT/${name}_seed_corpus.zip"
  (cd "$seeds" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  cp fuzz/dict/aliasfuzz.dict "$OUT/$name.dict"
  # a worker target's first input starts its worker (Python, torch: the worker's hello allows 120 s)
  timeout=20
  case " $workers " in *" $t "*) timeout=180 ;; esac
  printf '[libfuzzer]\nmax_len = 512\ntimeout = %s\n' "$timeout" >"$OUT/$name.options"
  ldd "$OUT/$name" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | while read -r so; do
    case "$(basename "$so")" in
      libc.so* | libm.so* | libdl.so* | librt.so* | libpthread.so* | libutil.so* | ld-linux* | libstdc++.so* | libgcc_s.so*) ;;
      *) case "$so" in "$OUT"/*) ;; *) cp -L "$so" "$OUT/$rt/lib/" ;; esac ;;
    esac
  done
done
echo "build.sh: $(du -sh "$OUT" | cut -f1) in $OUT: $(cd "$OUT" && ls fuzz_* | grep -v '\.' | tr '\n' ' ')"
