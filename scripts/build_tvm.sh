#!/usr/bin/env bash
# Builds TVM v0.14.0 (the last release with Relay's PyTorch frontend) for the tvm worker from a TVM
# checkout you give it, the way ../shared/tvm/'s tarball was built: CPU only, LLVM 14, Release,
# targets tvm and tvm_runtime (about 50 minutes on 2 cores). The result goes to DEST (default: this
# checkout's .tvm/tvm-0.14.0/, where the tvm worker looks) as lib/libtvm.so, lib/libtvm_runtime.so
# and python/ (TVM's Python package, with its LICENSE and NOTICE).
#
# Usage: scripts/build_tvm.sh TVM_CHECKOUT [DEST]
#   git clone --branch v0.14.0 https://github.com/apache/tvm tvm-0.14 &&
#   git -C tvm-0.14 submodule update --init 3rdparty/dmlc-core 3rdparty/dlpack 3rdparty/rang &&
#   scripts/build_tvm.sh tvm-0.14
# Build needs (Debian 12): cmake ninja-build g++ llvm-14-dev (llvm-config-14) libzstd-dev zlib1g-dev.
# Run-time needs: see scripts/setup.sh's TVM section (libllvm14, python3-numpy, python3-scipy, ...).
# Elsewhere: AF_TVM_HOME=DEST points the worker and repro.py at a TVM in another folder.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=${1:?usage: scripts/build_tvm.sh TVM_CHECKOUT [DEST]}
dest=${2:-$here/.tvm/tvm-0.14.0}
src=$(cd "$src" && pwd)
jobs=${AF_TVM_JOBS:-$(nproc 2>/dev/null || echo 2)}

want_tag=7315c9d5b46408a047409f1e047cb6b7779c668e # v0.14.0
declare -A want_sub=([3rdparty/dmlc-core]=09511cf9 [3rdparty/dlpack]=e2bdd3be [3rdparty/rang]=cabe04d6)

[ -f "$src/CMakeLists.txt" ] && [ -d "$src/python/tvm" ] || { echo "build_tvm: $src is no TVM checkout" >&2; exit 2; }
if [ -d "$src/.git" ] || [ -f "$src/.git" ]; then
  got=$(git -C "$src" rev-parse HEAD)
  if [ "$got" != "$want_tag" ]; then
    echo "build_tvm: warning: $src is at $got, not v0.14.0 ($want_tag); Relay's PyTorch frontend is in 0.11-0.14" >&2
  fi
  for s in "${!want_sub[@]}"; do
    sub=$(git -C "$src/$s" rev-parse HEAD 2>/dev/null || echo none)
    case "$sub" in
      "${want_sub[$s]}"*) ;;
      none) echo "build_tvm: $s is missing: git -C $src submodule update --init $s" >&2; exit 2 ;;
      *) echo "build_tvm: warning: $s is at $sub, v0.14.0 pins ${want_sub[$s]}" >&2 ;;
    esac
  done
fi
for tool in cmake ninja g++ llvm-config-14; do
  command -v "$tool" >/dev/null || { echo "build_tvm: $tool not found (apt-get install cmake ninja-build g++ llvm-14-dev)" >&2; exit 2; }
done

build="$src/build-aliasfuzz"
mkdir -p "$build"
cp "$src/cmake/config.cmake" "$build/config.cmake"
cat >> "$build/config.cmake" <<'EOF'
# aliasfuzz (scripts/build_tvm.sh): CPU only, LLVM 14
set(USE_LLVM llvm-config-14)
set(USE_LIBBACKTRACE OFF)
set(USE_CUDA OFF)
set(USE_OPENCL OFF)
set(USE_VULKAN OFF)
set(USE_MICRO OFF)
set(USE_CUTLASS OFF)
set(USE_GTEST OFF)
set(USE_CCACHE OFF)
set(USE_RELAY_DEBUG OFF)
EOF
echo "build_tvm: building $src in $build with $jobs jobs"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target tvm tvm_runtime -j"$jobs"

rm -rf "$dest.tmp"
mkdir -p "$dest.tmp/lib"
cp "$build/libtvm.so" "$build/libtvm_runtime.so" "$dest.tmp/lib/"
cp -r "$src/python" "$dest.tmp/python"
find "$dest.tmp/python" -name __pycache__ -prune -exec rm -rf {} +
cp "$src/LICENSE" "$src/NOTICE" "$dest.tmp/" 2>/dev/null || true
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$dest.tmp" "$dest"
echo "build_tvm: TVM in $dest; check it with:"
echo "  AF_TVM_HOME=$dest ./build-113/aliasfuzz converters | grep tvm"
