# Tooling (issue #8): the profiling interface, ushmem-info, USHMEM_STATS and generated files.
# Included from mpi_tests/CMakeLists.txt.

# pshmem_ names: a program's own shmem_putmem wrapper calling pshmem_putmem.
ushmem_mpi_program(profiling)
ushmem_mpi_test(profiling NP 1 2 CONFIGS default nodirect)

# A misspelt setting: the job runs, and PE 0 warns once with the closest known name.
ushmem_mpi_test(env_typo PROGRAM profiling NP 2 CONFIGS default ENV USHMEM_DIRCT=0 LABELS tools
                WRAPPER ${CMAKE_CURRENT_SOURCE_DIR}/expect_error.sh --status 0
                        "USHMEM_DIRCT is not a ushmem setting.*did you mean USHMEM_DIRECT[?]" --)

# Corner cases met building public OpenSHMEM test suites unchanged with ushmemcc.
ushmem_mpi_program(compat)
ushmem_mpi_test(compat NP 1 2 4 CONFIGS default tcp LABELS tools)

# include/pshmem.h is generated from the public headers (tools/gen_pshmem.py): the committed copy
# must match the headers.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  add_test(NAME pshmem_header_current
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/gen_pshmem.py
                   --cc ${CMAKE_C_COMPILER} --include ${PROJECT_SOURCE_DIR}/include
                   --check ${PROJECT_SOURCE_DIR}/include/pshmem.h)
  set_tests_properties(pshmem_header_current PROPERTIES LABELS "unit;tools")
endif()

# ushmem-info alone (MPI singleton) and under mpirun; --json must parse.
if(TARGET ushmem-info)
  foreach(np 1 2)
    math(EXPR last "${np} - 1")
    add_test(NAME tools.ushmem_info.np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${USHMEM_MPIEXEC_FLAGS}
                     $<TARGET_FILE:ushmem-info>)
    set_tests_properties(tools.ushmem_info.np${np} PROPERTIES
      ENVIRONMENT "SHMEM_SYMMETRIC_SIZE=64M" TIMEOUT ${USHMEM_MPI_TEST_TIMEOUT} PROCESSORS ${np}
      LABELS "mpi;tools"
      PASS_REGULAR_EXPRESSION "settings:.*USHMEM_STATS.*PE ${last} of ${np} .*peer +node +route")
    if(Python3_FOUND)
      add_test(NAME tools.ushmem_info_json.np${np}
               COMMAND bash -c "set -o pipefail; py=$1; shift; \"$@\" --json | \"$py\" -m json.tool"
                       bash ${Python3_EXECUTABLE} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np}
                       ${USHMEM_MPIEXEC_FLAGS} $<TARGET_FILE:ushmem-info>)
      set_tests_properties(tools.ushmem_info_json.np${np} PROPERTIES
        ENVIRONMENT "SHMEM_SYMMETRIC_SIZE=64M" TIMEOUT ${USHMEM_MPI_TEST_TIMEOUT} PROCESSORS ${np}
        LABELS "mpi;tools" PASS_REGULAR_EXPRESSION "\"npes\": ${np},")
    endif()
  endforeach()
  # The node's CPUs are those its PEs may use, not the machine's: 2 PEs confined to one CPU (the
  # first this test may use; mpirun must not bind them elsewhere) are oversubscribed.
  add_test(NAME tools.ushmem_info_one_cpu.np2
           COMMAND bash -c "cpu=$(awk '/^Cpus_allowed_list:/ {split($2, a, /[-,]/); print a[1]}' /proc/self/status); exec taskset -c \"$cpu\" \"$@\""
                   bash ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${USHMEM_MPIEXEC_FLAGS}
                   --bind-to none $<TARGET_FILE:ushmem-info>)
  set_tests_properties(tools.ushmem_info_one_cpu.np2 PROPERTIES
    ENVIRONMENT "SHMEM_SYMMETRIC_SIZE=64M" TIMEOUT ${USHMEM_MPI_TEST_TIMEOUT} PROCESSORS 2
    LABELS "mpi;tools"
    PASS_REGULAR_EXPRESSION "node: 2 PE\\(s\\) on 1 CPU\\(s\\) [^\n]*oversubscribed")
  # The same over UCX_TLS=tcp,self: every lane emulated over sockets, so a blocking wait polls
  # while messages arrive instead of sleeping between them (wait_config::remote_poll), which
  # ushmem-info reports. On one CPU: block mode whatever the machine's size.
  add_test(NAME tools.ushmem_info_tcp_waits.np2
           COMMAND bash -c "cpu=$(awk '/^Cpus_allowed_list:/ {split($2, a, /[-,]/); print a[1]}' /proc/self/status); exec taskset -c \"$cpu\" \"$@\""
                   bash ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${USHMEM_MPIEXEC_FLAGS}
                   --bind-to none -x UCX_TLS=tcp,self $<TARGET_FILE:ushmem-info>)
  set_tests_properties(tools.ushmem_info_tcp_waits.np2 PROPERTIES
    ENVIRONMENT "SHMEM_SYMMETRIC_SIZE=64M" TIMEOUT ${USHMEM_MPI_TEST_TIMEOUT} PROCESSORS 2
    LABELS "mpi;tools;tcp"
    PASS_REGULAR_EXPRESSION "waits: block, [^\n]*polling \\(yielding\\) 200 us while network messages arrive")
  # Alone, without mpirun (MPI singleton).
  add_test(NAME tools.ushmem_info.singleton COMMAND $<TARGET_FILE:ushmem-info>)
  set_tests_properties(tools.ushmem_info.singleton PROPERTIES
    ENVIRONMENT "SHMEM_SYMMETRIC_SIZE=64M" TIMEOUT ${USHMEM_MPI_TEST_TIMEOUT} LABELS "tools"
    PASS_REGULAR_EXPRESSION "PE 0 of 1")
endif()

# USHMEM_STATS=1: the printed table matches the operations made (stats_check.sh knows stats.c).
ushmem_mpi_program(stats)
foreach(np 1 2 4)
  ushmem_mpi_test(stats_np${np} PROGRAM stats NP ${np} CONFIGS default tcp
                  WRAPPER ${CMAKE_CURRENT_SOURCE_DIR}/stats_check.sh ${np} LABELS tools)
endforeach()

# docs/coverage.md is generated from the headers against the OpenSHMEM 1.6 checklist and the
# specification's sources (tools/gen_coverage.py); checked when both inputs are on this machine.
set(USHMEM_ROUTINES_FILE "${PROJECT_SOURCE_DIR}/../shared/openshmem-1.6-routines.txt" CACHE FILEPATH
    "OpenSHMEM 1.6 routine checklist (section|file|name) for docs/coverage.md")
set(USHMEM_SPEC_CONTENT "/tmp/spec/content" CACHE PATH
    "content/ directory of the OpenSHMEM specification sources, for docs/coverage.md")
if(Python3_FOUND AND EXISTS "${USHMEM_ROUTINES_FILE}" AND EXISTS "${USHMEM_SPEC_CONTENT}")
  add_test(NAME coverage_current
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/gen_coverage.py
                   --cc ${CMAKE_C_COMPILER} --include ${PROJECT_SOURCE_DIR}/include
                   --routines ${USHMEM_ROUTINES_FILE} --spec ${USHMEM_SPEC_CONTENT}
                   --check ${PROJECT_SOURCE_DIR}/docs/coverage.md)
  set_tests_properties(coverage_current PROPERTIES LABELS "unit;tools")
endif()
