# fuzz/targets/targets.cmake - the fuzz targets (issue 6), included from the top CMakeLists.txt.
#
# Always built (any compiler): replay_<converter>, the target with a plain main that replays
# files (ctest runs each target's seed corpus with it).
#
# With -DAF_FUZZ=ON (set before this file is included, see the top CMakeLists.txt):
#   CC=clang-14 CXX=clang++-14      fuzz_<converter> are libFuzzer binaries; our code is built
#                                   with -fsanitize=fuzzer-no-link,address,undefined
#   CC=afl-clang-fast CXX=afl-clang-fast++
#                                   fuzz_<converter> are AFL++ binaries (libAFLDriver, persistent
#                                   mode); our code is AFL-instrumented, with ASan/UBSan
# AF_FUZZ_SANITIZE=OFF drops ASan/UBSan (faster, e.g. for a compile-only CI check);
# AF_FUZZ_INSTRUMENT=OFF and AF_FUZZ_ENGINE=$LIB_FUZZING_ENGINE let OSS-Fuzz / ClusterFuzzLite
# supply instrumentation and engine (.clusterfuzzlite/build.sh).
# AF_FUZZ_WORKER_TARGETS="functorch;export" adds fuzz_functorch, fuzz_export: fuzz_external with
# its worker converter fixed at build time (an OSS-Fuzz runner sets no AF_CONVERTER); '-' in a
# name becomes '_' in the target's (fuzz_export_decomp).

set(AF_FUZZ_CONVERTERS jit functionalize ref naive)

add_library(af_fuzztarget STATIC ${CMAKE_SOURCE_DIR}/fuzz/targets/target.c)
target_link_libraries(af_fuzztarget PUBLIC af_core)
target_compile_options(af_fuzztarget PRIVATE ${AF_WARN})

# af_fuzz_exe(NAME CONVERTER MAIN...) - the target for CONVERTER ("" = from AF_CONVERTER).
function(af_fuzz_exe name conv)
  add_executable(${name} ${CMAKE_SOURCE_DIR}/fuzz/targets/fuzz_target.c ${ARGN})
  target_link_libraries(${name} af_fuzztarget)
  target_compile_options(${name} PRIVATE ${AF_WARN})
  if(conv)
    target_compile_definitions(${name} PRIVATE AF_TARGET_CONVERTER="${conv}")
  endif()
endfunction()

foreach(conv ${AF_FUZZ_CONVERTERS})
  af_fuzz_exe(replay_${conv} ${conv} ${CMAKE_SOURCE_DIR}/fuzz/targets/replay_main.c)
endforeach()
af_fuzz_exe(replay_external "" ${CMAKE_SOURCE_DIR}/fuzz/targets/replay_main.c)

# Seed selection and corpus pattern coverage (fuzz/targets/seeds_main.c).
add_executable(fuzz_seeds ${CMAKE_SOURCE_DIR}/fuzz/targets/seeds_main.c)
target_link_libraries(fuzz_seeds af_fuzztarget)
target_compile_options(fuzz_seeds PRIVATE ${AF_WARN})

set(AF_FUZZ_WORKER_TARGETS "" CACHE STRING "With AF_FUZZ: worker converters that get a target of their own, fuzz_<name>")

if(AF_FUZZ)
  foreach(conv ${AF_FUZZ_CONVERTERS} external ${AF_FUZZ_WORKER_TARGETS})
    string(REPLACE "-" "_" tname "fuzz_${conv}")
    if(conv STREQUAL "external")
      af_fuzz_exe(${tname} "")
    else()
      af_fuzz_exe(${tname} ${conv})
    endif()
    if(NOT AF_FUZZ_AFL)
      target_compile_definitions(${tname} PRIVATE AF_LIBFUZZER=1)
    endif()
    separate_arguments(engine UNIX_COMMAND "${AF_FUZZ_ENGINE}")
    target_link_options(${tname} PRIVATE ${engine})
  endforeach()
  # aliasfuzz too: the fuzz-engine tests compare its generator with the default build's
  add_custom_target(fuzz_targets DEPENDS fuzz_jit fuzz_functionalize fuzz_ref fuzz_naive fuzz_external aliasfuzz)
endif()
