#!/usr/bin/env bash
# Installs everything aliasfuzz needs on a fresh Debian 12 machine. Idempotent: packages
# already present are skipped by apt-get, npm packages already in node_modules are kept.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

pkgs=(build-essential cmake ccache pkg-config libtorch-dev python3-torch python3-onnx
      libcjson-dev clang-14 libclang-rt-14-dev afl++
      chromium)  # chromium: headless rendering of the HTML reports (docs/conformance.png)
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
stamp="$venv/.aliasfuzz-requirements"
if [ -f "$stamp" ] && cmp -s "$stamp" "$req" && "$venv/bin/python" -c 'import torch' 2>/dev/null; then
  echo "setup: .venv already has scripts/requirements.txt"
else
  echo "setup: installing scripts/requirements.txt into .venv (torch==$want_torch)"
  if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" 2> >(grep -v "is ignored: it is neither" >&2); then
    echo "setup: error: pip could not install scripts/requirements.txt into .venv (see above); the CPU wheel torch==$want_torch must be on the package index or this machine's disk" >&2
    exit 1
  fi
  cp "$req" "$stamp"
fi
got=$("$venv/bin/python" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo none)
case "$got" in
  "$want_torch"|"$want_torch+cpu") echo "setup: .venv has torch $got" ;;
  *) echo "setup: error: .venv has torch $got, expected $want_torch (CPU build); remove .venv and run setup again" >&2; exit 1 ;;
esac
echo "setup: done"
