# Registers tests/install/run.sh as the ctest `install` (label `install`): it installs this build
# tree into a temporary prefix and builds and runs small programs against the installation with
# ushmemcc, pkg-config, find_package(ushmem) and ushmemcxx. Included from cmake/install.cmake.
include_guard(GLOBAL)

if(NOT USHMEM_SANITIZE STREQUAL "")
  # The example programs are not instrumented; an instrumented libushmem.so would need the
  # sanitizer runtime preloaded. Installing a sanitizer build is not a shipping configuration.
  message(STATUS "ushmem: install test not registered (USHMEM_SANITIZE=${USHMEM_SANITIZE})")
  return()
endif()

find_program(USHMEM_BASH bash)
mark_as_advanced(USHMEM_BASH)
if(NOT USHMEM_BASH)
  message(STATUS "ushmem: install test not registered (no bash)")
  return()
endif()

if(MPIEXEC_EXECUTABLE)
  set(_ushmem_mpiexec "${MPIEXEC_EXECUTABLE}")
else()
  set(_ushmem_mpiexec mpirun)
endif()

add_test(NAME install
  COMMAND "${USHMEM_BASH}" "${PROJECT_SOURCE_DIR}/tests/install/run.sh" "${PROJECT_BINARY_DIR}"
          "$<CONFIG>")
set_tests_properties(install PROPERTIES
  LABELS install
  TIMEOUT 900
  ENVIRONMENT "CMAKE_COMMAND=${CMAKE_COMMAND};USHMEM_MPIEXEC=${_ushmem_mpiexec}")
