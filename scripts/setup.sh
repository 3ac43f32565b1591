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
echo "setup: done"
