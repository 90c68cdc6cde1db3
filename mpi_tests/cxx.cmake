# C++ API tests (<ushmem/ushmem.hpp>): C++ programs, registered like the C ones
# (mpi.cxx_<name>.<config>.np<N>, label "cpp" as well).
function(ushmem_cxx_program prog)
  add_executable(mpi_${prog} ${prog}.cpp)
  set_target_properties(mpi_${prog} PROPERTIES OUTPUT_NAME ${prog})
  target_include_directories(mpi_${prog} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(mpi_${prog} PRIVATE ushmem ${ARGN})
endfunction()

foreach(prog cxx_api cxx_unwind cxx_compose cxx_dist cxx_ops)
  ushmem_cxx_program(${prog})
  ushmem_mpi_test(${prog} LABELS cpp)
endforeach()

# Timeouts that fire and the same bounded calls succeeding (mpi_tests/cxx_timeout.cpp; the origin
# coordinates the computing PEs through MPI, so at least 2 PEs). An RMA wait times out only when
# the target's computing keeps the origin's operations from completing: with every RMA
# software-emulated (tcp) and no progress thread, so cxx_timeout_rma runs in that one
# configuration. Collectives time out anywhere: cxx_timeout_coll (two-PE teams), and one run per
# world-team call, since each leaves the world team unusable on the PE that timed out.
ushmem_cxx_program(cxx_timeout MPI::MPI_C)
ushmem_mpi_test(cxx_timeout_rma PROGRAM cxx_timeout ARGS rma NP 2 4 CONFIGS tcp
                ENV USHMEM_PROGRESS_THREAD=off LABELS cpp)
foreach(mode coll world_barrier world_alloc world_free)
  ushmem_mpi_test(cxx_timeout_${mode} PROGRAM cxx_timeout ARGS ${mode} NP 2 4 LABELS cpp)
endforeach()
