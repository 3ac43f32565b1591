#!/usr/bin/env bash
# fuzz/targets/make_seeds.sh [BUILD] - remakes the seed corpora corpus/fuzz/<target>/ from 1500
# pseudo-random byte strings (fuzz_seeds --random): per target, up to 100 inputs that pass on its
# converter, picked greedily for alias-pattern coverage (external: 12 that pass on functorch).
# Run it when the generator's decisions change (new ops, new policy defaults): a byte string
# then means another program, and a seed may have become a finding, which stops an engine.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
for t in jit functionalize ref naive; do
  rm -rf "corpus/fuzz/$t"
  # --isolate: an input on which an in-process converter kills the process (a segfault inside
  # LibTorch's functionalization) is a finding, not the end of the run
  "$build/fuzz_seeds" --converter "$t" --random 1500 --seed 1 --max 100 --isolate --out "corpus/fuzz/$t"
done
rm -rf corpus/fuzz/external
"$build/fuzz_seeds" --converter functorch --max 12 --out corpus/fuzz/external corpus/fuzz/ref
