# The converters of issue 31 (ExecuTorch, IREE, torchax), 2.x stack only: their pre-merge gates, as
# the other 2.x converters' (tests/CMakeLists.txt), on one shard of the seed corpus against
# corpus/expectations/torch-2.13/NAME-seed.json. Their packages come from
# scripts/requirements-nodeps.txt (scripts/setup.sh, which CI runs); a gate whose package does not
# import is skipped (tests/scripts/gate_if_installed.sh, exit 77), not failed. Shard sizes by the
# cost per case measured under load (seed run, 2026-12-03): executorch 3-4 s, iree 2-3 s, torchax 1 s.
if(Torch_VERSION VERSION_GREATER_EQUAL 2)
  foreach(pair "executorch:executorch:3" "iree:iree.turbine:3" "torchax:torchax:1")
    string(REPLACE ":" ";" parts "${pair}")
    list(GET parts 0 conv)
    list(GET parts 1 module)
    list(GET parts 2 every)
    add_test(NAME conformance_gate_holds_for_${conv}_on_seed_shard_1_of_${every}
             COMMAND bash ${CMAKE_SOURCE_DIR}/tests/scripts/gate_if_installed.sh $<TARGET_FILE:aliasfuzz> ${AF_STACK_PYTHON}
                     ${module} ${conv} 1/${every} ${CMAKE_BINARY_DIR}/junit-${conv}-seed.xml
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(conformance_gate_holds_for_${conv}_on_seed_shard_1_of_${every} PROPERTIES
                         LABELS "workers;conformance;converters-next" TIMEOUT 1800 SKIP_RETURN_CODE 77)
  endforeach()
  # what ExecuTorch's portable runtime refuses by design (a strided input, a missing kernel: 0x14) is unsupported
  add_test(NAME executorch_runtime_refusals_are_unsupported
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/scripts/executorch_refusals.sh $<TARGET_FILE:aliasfuzz> ${AF_STACK_PYTHON}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(executorch_runtime_refusals_are_unsupported PROPERTIES
                       LABELS "workers;converters-next" TIMEOUT 300 SKIP_RETURN_CODE 77)
  # a program without outputs: forward's `return None` is no output (worker and repro.py)
  add_test(NAME executorch_program_without_outputs_keeps_its_input_states
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/scripts/executorch_no_outputs.sh $<TARGET_FILE:aliasfuzz> ${AF_STACK_PYTHON}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(executorch_program_without_outputs_keeps_its_input_states PROPERTIES
                       LABELS "workers;converters-next" TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
