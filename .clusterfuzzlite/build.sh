#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script: builds fuzz_jit, fuzz_functionalize, fuzz_ref and
# fuzz_naive with the infrastructure's compiler, flags ($CFLAGS/$CXXFLAGS carry the sanitizer and
# the coverage instrumentation) and engine ($LIB_FUZZING_ENGINE), and puts each target's seed
# corpus, dictionary and options file next to it in $OUT.
#
# LibTorch is a prebuilt libstdc++ library: the C++ shim (harness/torch/) must use libstdc++ too,
# so -stdlib=libc++ is dropped from CXXFLAGS (that rules out MemorySanitizer builds). LibTorch's
# shared libraries go to $OUT/lib and the targets find them through RPATH $ORIGIN/lib.
cd "$SRC/aliasfuzz"
export CXXFLAGS="${CXXFLAGS//-stdlib=libc++/}"
TORCH=/opt/libtorch
cmake -S . -B build-cfl -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$TORCH" -DTorch_DIR="$TORCH/share/cmake/Torch" \
  -DAF_FUZZ=ON -DAF_FUZZ_SANITIZE=OFF -DAF_FUZZ_INSTRUMENT=OFF -DAF_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
  -DCMAKE_BUILD_RPATH='$ORIGIN/lib' -DCMAKE_SKIP_INSTALL_RPATH=ON
cmake --build build-cfl -j"$(nproc)" --target fuzz_jit fuzz_functionalize fuzz_ref fuzz_naive

mkdir -p "$OUT/lib"
cp -P "$TORCH"/lib/*.so* "$OUT/lib/"
for t in jit functionalize ref naive; do
  cp "build-cfl/fuzz_$t" "$OUT/"
  patchelf --set-rpath '$ORIGIN/lib' "$OUT/fuzz_$t"
  (cd "corpus/fuzz/$t" && zip -q -r "$OUT/fuzz_${t}_seed_corpus.zip" .)
  cp fuzz/dict/aliasfuzz.dict "$OUT/fuzz_$t.dict"
  cat >"$OUT/fuzz_$t.options" <<OPTS
[libfuzzer]
max_len = 512
timeout = 20
OPTS
done
