# Unity (jumbo) compilation for CI's two builds and `pip install .` (TFSPEC_UNITY=ON; plain
# developer builds leave it OFF, so an edit recompiles one file). Each target's sources are
# compiled in chunks of TFSPEC_UNITY_BATCH files, one translation unit a chunk: the heavy headers
# every file includes (CLI11, nlohmann/json, pybind11, GoogleTest, RapidCheck) are parsed and
# their inline functions generated once a chunk instead of once a file. Measured here
# (spec/DESIGN.md "Build time"): the CLI's 16 files take 20.5 s of CPU as one chunk against
# about 120 s one by one.
#
# A file whose file-local helpers share a name and signature with another file's of the same
# target cannot join a chunk; it is compiled alone (tfspec_unity_alone below). A new collision
# shows as a "redefinition" error in CI's build, never as a silent change: the whole suite runs
# on these builds.

# tfspec_unity_alone(TARGET file...): the files (relative to the target's source directory) are
# compiled on their own, outside the target's chunks.
function(tfspec_unity_alone target)
  if(NOT TARGET ${target})
    return()
  endif()
  get_target_property(dir ${target} SOURCE_DIR)
  foreach(f ${ARGN})
    set_source_files_properties(${dir}/${f} TARGET_DIRECTORY ${target}
      PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endforeach()
endfunction()

function(tfspec_unity_finish)
  if(NOT TFSPEC_UNITY)
    return()
  endif()
  # solver_tests, cute_dsl_tests, conformance_tests: their files each define their own brute-force or fixture helpers.
  foreach(t solver_tests cute_dsl_tests conformance_tests)
    if(TARGET ${t})
      set_target_properties(${t} PROPERTIES UNITY_BUILD OFF)
    endif()
  endforeach()
  tfspec_unity_alone(tfspec_reference src/symbolic/symbolic_compose.cpp src/symbolic/symbolic_index.cpp
    src/symbolic/symbolic_product.cpp)
  tfspec_unity_alone(reference_tests tests/symbolic_ops_test.cpp)
  tfspec_unity_alone(tfspec_solver src/engine.cpp)
  tfspec_unity_alone(tfspec_gpu src/plan_shard.cpp)
  tfspec_unity_alone(propagation_tests tests/resolution_test.cpp)
  tfspec_unity_alone(tfspec_kernel src/layout_smem.cpp src/pipeline.cpp src/s2r.cpp src/layout_ldmatrix.cpp)
  tfspec_unity_alone(kernel_tests tests/kernel_cases_test.cpp tests/kernel_tma_test.cpp)
  tfspec_unity_alone(triton_tests tests/triton_kernel_check_test.cpp)
  tfspec_unity_alone(tfspec_protocol src/ops_shard_imports.cpp)
  tfspec_unity_alone(protocol_tests tests/structure_test.cpp tests/rule_cases_test.cpp
    tests/kernel_op_test.cpp tests/symbolic_soundness_test.cpp tests/reshard_plan_op_test.cpp
    tests/serve_loop_test.cpp)
  tfspec_unity_alone(tfspec_conformance src/html_report.cpp)
  tfspec_unity_alone(cli_tests tests/shard_cli_test.cpp tests/pictures_cli_test.cpp)
endfunction()
