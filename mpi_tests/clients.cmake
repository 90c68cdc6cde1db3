# Real clients (issue #15): ushmem loaded with dlopen, by a C program and by Python's ctypes.
# Included from mpi_tests/CMakeLists.txt.

# An instrumented libushmem cannot be dlopen'ed by an uninstrumented program (the sanitizer runtime
# must come first): the dlopen tests belong to the plain build only.
if(USHMEM_SANITIZE STREQUAL "")

# dlopen.c is not linked against libushmem: it loads the library given as its argument. Built as
# a PIE and as a non-PIE program that takes free()'s address (the layout of Debian's python3,
# whose GOT lies in the static data that shmem_init moves; src/core/segments.cpp).
foreach(variant dlopen dlopen_nopie)
  add_executable(mpi_${variant} dlopen.c)
  set_target_properties(mpi_${variant} PROPERTIES OUTPUT_NAME ${variant} C_STANDARD 11)
  target_include_directories(mpi_${variant} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(mpi_${variant} PRIVATE ${CMAKE_DL_LIBS})
  add_dependencies(mpi_${variant} ushmem)
endforeach()
set_target_properties(mpi_dlopen_nopie PROPERTIES POSITION_INDEPENDENT_CODE OFF)
target_compile_definitions(mpi_dlopen_nopie PRIVATE DLOPEN_TAKE_FREE_ADDRESS=1)
target_compile_options(mpi_dlopen_nopie PRIVATE -fno-pie)
target_link_options(mpi_dlopen_nopie PRIVATE -no-pie)
ushmem_mpi_test(dlopen NP 2 4 CONFIGS default tcp ARGS $<TARGET_FILE:ushmem> LABELS clients)
ushmem_mpi_test(dlopen_nopie NP 2 4 CONFIGS default tcp ARGS $<TARGET_FILE:ushmem> LABELS clients)

# Python's ctypes, with Debian's /usr/bin/python3 (the interpreter that crashed) when present.
find_program(USHMEM_TEST_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT USHMEM_TEST_PYTHON3)
  find_program(USHMEM_TEST_PYTHON3 NAMES python3)
endif()
mark_as_advanced(USHMEM_TEST_PYTHON3)
if(USHMEM_TEST_PYTHON3)
  ushmem_mpi_test(dlopen_python EXE ${USHMEM_TEST_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/dlopen.py
                  NP 2 4 CONFIGS default tcp ARGS $<TARGET_FILE:ushmem> LABELS clients)
else()
  add_test(NAME mpi.dlopen_python.skipped
           COMMAND sh -c "echo 'SKIPPED: no python3 found at configure time'; exit 77")
  set_tests_properties(mpi.dlopen_python.skipped PROPERTIES SKIP_RETURN_CODE 77 LABELS "mpi;clients")
endif()

endif() # plain build

# Sandia OpenSHMEM's shmemx_ names and performance counters: counting exactly with statistics
# on, reading 0 with them off.
ushmem_mpi_program(sos_names)
ushmem_mpi_test(sos_names NP 1 2 4 CONFIGS default tcp LABELS clients)
ushmem_mpi_test(sos_names_pcntr PROGRAM sos_names ARGS pcntr NP 2 4 CONFIGS default tcp
                ENV USHMEM_STATS=1 LABELS clients)

# shmem4py's own test suite on ushmem (docs/python.md), when a local checkout is given: nothing is
# downloaded, so CI runs it only where someone provides the source.
set(USHMEM_SHMEM4PY_SOURCE "" CACHE PATH "A shmem4py source checkout: registers the ctest shmem4py")
if(USHMEM_SHMEM4PY_SOURCE AND USHMEM_SANITIZE STREQUAL "")
  add_test(NAME shmem4py
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/python/shmem4py.sh ${PROJECT_BINARY_DIR}
                   ${USHMEM_SHMEM4PY_SOURCE} 1 2 4)
  set_tests_properties(shmem4py PROPERTIES LABELS "clients;python" TIMEOUT 1200 SKIP_RETURN_CODE 77
    ENVIRONMENT "CMAKE_COMMAND=${CMAKE_COMMAND};USHMEM_MPIEXEC=${MPIEXEC_EXECUTABLE}")
endif()

# <ushmem/c/features.h> and <ushmem/shmem4py.h>: every family claimed is declared and linked.
ushmem_mpi_program(features)
ushmem_mpi_test(features NP 1 CONFIGS default LABELS clients)
