# The MPI tests (issue 24; included by multigpu/CMakeLists.txt when MPI is found). Each runs under
# mpiexec as root on a 2-core machine (--allow-run-as-root --oversubscribe) with a ctest TIMEOUT.
# One mpiexec per rank count: starting 8 ranks costs ~0.6 s, so the property runs its cases inside
# one job. ASan build: the tests run there too with leak detection off (OpenMPI's own allocations
# at MPI_Init/Finalize are reported as leaks; spec/MULTIGPU.md "Tests").
add_executable(mpi_reshard_tests ${CMAKE_CURRENT_SOURCE_DIR}/tests/mpi/mpi_reshard_test.cpp ${CMAKE_CURRENT_SOURCE_DIR}/tests/mpi/mpi_cases.cpp)
target_link_libraries(mpi_reshard_tests PRIVATE tfspec_multigpu_mpi GTest::gtest)
if(TFSPEC_SANITIZE)  # the instrumented reference is several times slower: a quarter of the cases
  target_compile_definitions(mpi_reshard_tests PRIVATE TFSPEC_MPI_PROPERTY_DIVISOR=4)
endif()
set(TFSPEC_MPIEXEC ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe --bind-to none)
set(TFSPEC_MPI_ENV "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1")

function(tfspec_mpi_test name ranks timeout)
  add_test(NAME ${name} COMMAND ${TFSPEC_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} ENVIRONMENT "${TFSPEC_MPI_ENV}" PROCESSORS 2)
endfunction()

tfspec_mpi_test(mpi_reshard_hand 4 60 $<TARGET_FILE:mpi_reshard_tests> --gtest_filter=MpiHand.*:MpiMutant.*)
tfspec_mpi_test(mpi_reshard_props_2 2 90 $<TARGET_FILE:mpi_reshard_tests> --gtest_filter=MpiProps.*)
tfspec_mpi_test(mpi_reshard_props_4 4 90 $<TARGET_FILE:mpi_reshard_tests> --gtest_filter=MpiProps.*)
tfspec_mpi_test(mpi_reshard_props_8 8 120 $<TARGET_FILE:mpi_reshard_tests> --gtest_filter=MpiProps.*)

# The command itself under mpiexec: cli/CMakeLists.txt (mpi_reshard_run.*).

# The executor variants of issue 47 (spec/MULTIGPU.md "Executor variants"): every case on each
# variant, the first checked against the reference's reshard and the plan's bytes, the others
# against the first (mpi_reshard_test.cpp, execute()).
set(TFSPEC_MPI_VARIANTS --executor=base,one-round+shm,one-round-always+shm,default+arrival,default+nodes-of-1,default+nodes-of-2,default+nodes-of-3,one-round-always+shm+nodes-of-2,one-round-always+shm+alltoallw+nodes-of-3,recv-first,reduce-arrival,datatypes,stagger,all,one-round,one-round-always,datatypes+one-round,one-round-always+alltoallw,one-round-always+pack,datatypes+one-round+pack,one-round-always+persistent,datatypes+one-round+pack+persistent,one-round-always+arrival,one-round-always+pack+arrival,datatypes+one-round+persistent+arrival,datatypes+one-round+pack+persistent+arrival)
tfspec_mpi_test(mpi_reshard_variants_hand 4 90 $<TARGET_FILE:mpi_reshard_tests> --gtest_filter=MpiHand.*:MpiMutant.* ${TFSPEC_MPI_VARIANTS})
tfspec_mpi_test(mpi_reshard_variants_2 2 120 $<TARGET_FILE:mpi_reshard_tests> --gtest_filter=MpiProps.* ${TFSPEC_MPI_VARIANTS})
tfspec_mpi_test(mpi_reshard_variants_4 4 120 $<TARGET_FILE:mpi_reshard_tests> --gtest_filter=MpiProps.* ${TFSPEC_MPI_VARIANTS})
tfspec_mpi_test(mpi_reshard_variants_8 8 180 $<TARGET_FILE:mpi_reshard_tests> --gtest_filter=MpiProps.* ${TFSPEC_MPI_VARIANTS})
