# Packaging (CPack): `cpack -G DEB` in the build directory makes ushmem_<version>_<arch>.deb with
# the library, headers, compiler wrappers, drop-in names, ushmem-info, pkg-config and CMake files
# and man pages, installed under /usr; `cpack --config CPackSourceConfig.cmake` (or `make
# package_source`) makes the source tarball ushmem-<version>-Source.tar.gz. Included once from the
# top-level CMakeLists.txt, after every install() rule. Test: tests/package/run.sh (ctest
# `package`).
include_guard(GLOBAL)

set(CPACK_PACKAGE_NAME ushmem)
set(CPACK_PACKAGE_VENDOR "ushmem")
set(CPACK_PACKAGE_CONTACT "ushmem maintainers <ushmem@localhost>")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "OpenSHMEM 1.6 library over UCX, bootstrapped by MPI")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "ushmem implements OpenSHMEM 1.6 (C API, plus a C++20 API): PEs are the ranks of an MPI job, "
    "data moves by direct load/store between PEs of a node and through UCX otherwise, with the "
    "symmetric heap on huge pages. Includes the compiler wrappers ushmemcc/ushmemcxx, the drop-in "
    "names oshcc/oshc++/oshrun in /usr/libexec/ushmem/osh (put first on PATH to use them), "
    "ushmem-info, pkg-config and CMake package files.")
set(CPACK_RESOURCE_FILE_README "${PROJECT_SOURCE_DIR}/README.md")
set(CPACK_PACKAGE_CHECKSUM SHA256)

# The files' paths are the final ones (/usr/...) at install time, with the staging directory as
# DESTDIR: the wrappers, ushmem.pc and oshrun are written at install time with the prefix they are
# installed to (cmake/install_generate.cmake), so they must see /usr, not the staging path.
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)   # the prefix CPack installs to when CPACK_SET_DESTDIR is on
set(CPACK_SET_DESTDIR ON)
# A package carries no debug information (a RelWithDebInfo build is 35 MB with it, 4 without).
set(CPACK_STRIP_FILES ON)

# ---- .deb ----
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The shared libraries libushmem.so and ushmem-info need (UCX, hwloc, Open MPI, libstdc++), as
# dpkg-shlibdeps finds them; the wrappers need a compiler and MPI's headers, jobs need mpirun.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gcc | c-compiler")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin, libopenmpi-dev, g++")
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)

# ---- source tarball ----
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_PACKAGE_FILE_NAME "ushmem-${PROJECT_VERSION}")
# Build trees, VCS data and editor files stay out; everything else is the source.
set(CPACK_SOURCE_IGNORE_FILES
    "/\\\\.git/" "/\\\\.git$" "/\\\\.gitignore$" "/build[^/]*/" "/_CPack_Packages/" "~$"
    "\\\\.swp$" "/__pycache__/")

include(CPack)

# ---- the package test (tests/package/run.sh) ----
if((BUILD_TESTING OR USHMEM_BUILD_TESTS) AND USHMEM_SANITIZE STREQUAL "")
  find_program(USHMEM_BASH bash)
  if(USHMEM_BASH)
    if(MPIEXEC_EXECUTABLE)
      set(_ushmem_pkg_mpiexec "${MPIEXEC_EXECUTABLE}")
    else()
      set(_ushmem_pkg_mpiexec mpirun)
    endif()
    # Label `package`: run by ci/test.sh's main stage (every label but serial and twohost).
    add_test(NAME package
             COMMAND "${USHMEM_BASH}" "${PROJECT_SOURCE_DIR}/tests/package/run.sh" "${PROJECT_BINARY_DIR}")
    set_tests_properties(package PROPERTIES
      LABELS package TIMEOUT 900 SKIP_RETURN_CODE 77
      ENVIRONMENT "CMAKE_COMMAND=${CMAKE_COMMAND};CPACK_COMMAND=${CMAKE_CPACK_COMMAND};USHMEM_MPIEXEC=${_ushmem_pkg_mpiexec}")
  endif()
endif()
