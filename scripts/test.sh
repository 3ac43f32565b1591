#!/usr/bin/env bash
# Builds aliasfuzz and runs the whole test suite: the normal build, then the quick tests again
# under AddressSanitizer + UndefinedBehaviorSanitizer. Usage: scripts/test.sh [ctest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure "$@")
if [ "${AF_SKIP_SANITIZE:-0}" != 1 ]; then
  cmake -S . -B build-asan -DAF_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
  cmake --build build-asan -j"$jobs"
  (cd build-asan && ctest --output-on-failure -L quick)
fi
