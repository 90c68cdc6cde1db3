# ushmem installation rules: the shared library (with SONAME), the public headers, the compiler
# wrappers ushmemcc / ushmemcxx, the pkg-config file ushmem.pc and the CMake package
# (find_package(ushmem) -> ushmem::ushmem).
#
# Included once from the top-level CMakeLists.txt, right after add_subdirectory(src), so that the
# `ushmem` target exists. Nothing in src/ needs to know about installation, with one requirement:
# the target's public include directory must be
#   target_include_directories(ushmem PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
#                                            $<INSTALL_INTERFACE:include>)
# (checked below).
#
# Paths that depend on the install prefix (wrappers, ushmem.pc) are written at *install* time, not
# at configure time, so `cmake --install BUILD --prefix P` and DESTDIR both give correct files.
# The CMake package is relocatable by construction (install(EXPORT) computes _IMPORT_PREFIX).
include_guard(GLOBAL)

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(NOT TARGET ushmem)
  message(WARNING "cmake/install.cmake: there is no target `ushmem`; no install rules were made")
  return()
endif()

get_target_property(_ushmem_type ushmem TYPE)
if(NOT _ushmem_type STREQUAL "SHARED_LIBRARY")
  message(WARNING "cmake/install.cmake: `ushmem` is a ${_ushmem_type}, but the wrappers and ushmem.pc "
                  "assume a shared library that carries its own dependencies")
endif()

# ---------------------------------------------------------------------------------------------
# The library: version, SONAME, run path.
# ---------------------------------------------------------------------------------------------
# Unless src/ sets VERSION/SOVERSION itself: before 1.0 every minor release may change the ABI, so
# the SONAME carries major.minor (libushmem.so.0.1); from 1.0 on it carries the major only.
if(PROJECT_VERSION_MAJOR GREATER 0)
  set(_ushmem_default_soversion "${PROJECT_VERSION_MAJOR}")
else()
  set(_ushmem_default_soversion "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}")
endif()
get_target_property(_ushmem_version ushmem VERSION)
if(_ushmem_version STREQUAL "_ushmem_version-NOTFOUND")
  set_target_properties(ushmem PROPERTIES VERSION "${PROJECT_VERSION}")
endif()
get_target_property(_ushmem_soversion ushmem SOVERSION)
if(_ushmem_soversion STREQUAL "_ushmem_soversion-NOTFOUND")   # "0" is a valid SOVERSION
  set_target_properties(ushmem PROPERTIES SOVERSION "${_ushmem_default_soversion}")
endif()
# The installed library finds UCX, hwloc and MPI where it was linked against them when those are
# outside the linker's default directories (e.g. an MPI in /opt): CMake puts exactly the
# non-system link directories into the installed RUNPATH. On Debian with packaged deps this adds
# only Open MPI's private lib directory, whose libmpi is the same file as the system one.
# (The property starts OFF; a project-wide CMAKE_INSTALL_RPATH_USE_LINK_PATH is respected.)
get_target_property(_ushmem_rpath_link ushmem INSTALL_RPATH_USE_LINK_PATH)
if(NOT _ushmem_rpath_link AND NOT DEFINED CMAKE_INSTALL_RPATH_USE_LINK_PATH)
  set_target_properties(ushmem PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
endif()

# In-tree users can spell the target as outside users do.
if(NOT TARGET ushmem::ushmem)
  add_library(ushmem::ushmem ALIAS ushmem)
endif()

# ---------------------------------------------------------------------------------------------
# What the exported target drags along. For a shared library, PRIVATE dependencies
# (PkgConfig::UCX, PkgConfig::HWLOC, MPI::MPI_C) do not appear in the exported interface at all,
# so the package config needs no find_dependency() and consumers need neither UCX nor MPI
# development files. If src/ ever makes one of them PUBLIC (or builds `ushmem` static, which turns
# PRIVATE deps into $<LINK_ONLY:...>), the config file re-finds exactly those.
# ---------------------------------------------------------------------------------------------
get_target_property(_ushmem_iface_libs ushmem INTERFACE_LINK_LIBRARIES)
if(NOT _ushmem_iface_libs)
  set(_ushmem_iface_libs "")
endif()
set(USHMEM_CONFIG_FIND_DEPENDENCIES "")
set(_ushmem_extra_export_targets "")
set(_ushmem_need_pkgconfig FALSE)
foreach(_item IN LISTS _ushmem_iface_libs)
  string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" _item "${_item}")
  if(_item MATCHES "^MPI::MPI_(C|CXX)$")
    string(APPEND USHMEM_CONFIG_FIND_DEPENDENCIES
           "find_dependency(MPI COMPONENTS ${CMAKE_MATCH_1})\n")
  elseif(_item MATCHES "^PkgConfig::(.+)$")
    set(_prefix "${CMAKE_MATCH_1}")
    set(_module "${${_prefix}_MODULE_NAME}")
    if(NOT _module)
      string(TOLOWER "${_prefix}" _module)
    endif()
    set(_ushmem_need_pkgconfig TRUE)
    string(APPEND USHMEM_CONFIG_FIND_DEPENDENCIES
           "if(NOT TARGET PkgConfig::${_prefix})\n"
           "  pkg_check_modules(${_prefix} QUIET IMPORTED_TARGET ${_module})\n"
           "  if(NOT TARGET PkgConfig::${_prefix})\n"
           "    set(ushmem_FOUND FALSE)\n"
           "    set(ushmem_NOT_FOUND_MESSAGE \"ushmem needs the pkg-config module ${_module}\")\n"
           "    return()\n"
           "  endif()\n"
           "endif()\n")
  elseif(_item MATCHES "^Threads::Threads$")
    string(APPEND USHMEM_CONFIG_FIND_DEPENDENCIES "find_dependency(Threads)\n")
  elseif(TARGET "${_item}")
    get_target_property(_imported "${_item}" IMPORTED)
    get_target_property(_type "${_item}" TYPE)
    if(NOT _imported AND _type STREQUAL "INTERFACE_LIBRARY")
      # e.g. a header-only helper target of src/: export it alongside.
      list(APPEND _ushmem_extra_export_targets "${_item}")
    elseif(NOT _imported)
      message(WARNING "cmake/install.cmake: `ushmem` links ${_item} in its interface; "
                      "install(EXPORT) needs it exported too. Make the dependency PRIVATE.")
    else()
      message(WARNING "cmake/install.cmake: `ushmem` links the imported target ${_item} in its "
                      "interface; ushmemConfig.cmake does not know how to find it. "
                      "Make the dependency PRIVATE or teach cmake/install.cmake.")
    endif()
  endif()
endforeach()
if(_ushmem_need_pkgconfig)
  string(PREPEND USHMEM_CONFIG_FIND_DEPENDENCIES "find_dependency(PkgConfig)\n")
endif()
if(USHMEM_CONFIG_FIND_DEPENDENCIES STREQUAL "")
  set(USHMEM_CONFIG_FIND_DEPENDENCIES
      "# None: libushmem.so links UCX, hwloc and MPI privately; consumers need only the headers.\n")
endif()

# ---------------------------------------------------------------------------------------------
# Public include directory of the exported target.
# ---------------------------------------------------------------------------------------------
get_target_property(_ushmem_iface_incs ushmem INTERFACE_INCLUDE_DIRECTORIES)
if(NOT _ushmem_iface_incs)
  set(_ushmem_iface_incs "")
endif()
set(_ushmem_has_install_include FALSE)
set(_ushmem_bad_include "")
foreach(_item IN LISTS _ushmem_iface_incs)
  if(_item MATCHES "^\\$<BUILD_INTERFACE:")
    continue()
  elseif(_item MATCHES "^\\$<INSTALL_INTERFACE:")
    set(_ushmem_has_install_include TRUE)
  elseif(_item MATCHES "^(${PROJECT_SOURCE_DIR}|${PROJECT_BINARY_DIR})(/|$)")
    list(APPEND _ushmem_bad_include "${_item}")
  endif()
endforeach()
set(_ushmem_export_ok TRUE)
if(_ushmem_bad_include)
  # install(EXPORT) would stop the whole configure with "INTERFACE_INCLUDE_DIRECTORIES property
  # contains path ... which is prefixed in the source directory"; do not break the build for it.
  message(WARNING "cmake/install.cmake: `ushmem` has the build-tree include path(s) "
                  "${_ushmem_bad_include} in its interface; wrap them in $<BUILD_INTERFACE:...> "
                  "and add $<INSTALL_INTERFACE:include>. The CMake package is NOT installed.")
  set(_ushmem_export_ok FALSE)
endif()
set(_ushmem_includes_destination "")
if(NOT _ushmem_has_install_include)
  # Fallback so that ushmem::ushmem still carries <prefix>/include.
  set(_ushmem_includes_destination INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
endif()

# ---------------------------------------------------------------------------------------------
# Library and headers.
# ---------------------------------------------------------------------------------------------
if(_ushmem_export_ok)
  set(_ushmem_export EXPORT ushmemTargets)
else()
  set(_ushmem_export "")
endif()
install(TARGETS ushmem ${_ushmem_extra_export_targets} ${_ushmem_export}
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Runtime NAMELINK_COMPONENT Development
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Development
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT Runtime
  ${_ushmem_includes_destination})

# The public tree. The OpenSHMEM names every implementation installs (shmem.h, shmemx.h,
# pshmem.h) go to a directory of ushmem's own, <includedir>/ushmem/openshmem: in /usr/include they
# would collide with another OpenSHMEM's package (and a program would silently get whichever came
# first). ushmemcc/ushmemcxx, ushmem.pc and ushmem::ushmem add that directory, so programs keep
# writing #include <shmem.h>. ushmem's own headers (ushmem/c/*.h, ushmem/*.hpp, ushmem/shmem4py.h)
# keep their place under <includedir>/ushmem: the name is already ours, and #include
# <ushmem/ushmem.hpp> or -include ushmem/shmem4py.h work as before (with -I<includedir> for a
# prefix outside the compiler's default search path, which the same three add).
set(USHMEM_INSTALL_SHMEM_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/ushmem/openshmem" CACHE STRING
    "Where shmem.h, shmemx.h and pshmem.h are installed, relative to the prefix")
mark_as_advanced(USHMEM_INSTALL_SHMEM_INCLUDEDIR)
file(REAL_PATH "${PROJECT_SOURCE_DIR}/include" _ushmem_include_src)
file(GLOB _ushmem_top_headers "${_ushmem_include_src}/*.h")
install(FILES ${_ushmem_top_headers}
  DESTINATION "${USHMEM_INSTALL_SHMEM_INCLUDEDIR}"
  COMPONENT Development)
install(DIRECTORY "${_ushmem_include_src}/ushmem"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  COMPONENT Development
  PATTERN "CMakeLists.txt" EXCLUDE
  PATTERN "README.md" EXCLUDE
  PATTERN "*.in" EXCLUDE
  PATTERN ".*" EXCLUDE)
# ushmem::ushmem of an installation carries both directories (the first from src/).
target_include_directories(ushmem INTERFACE
  "$<INSTALL_INTERFACE:${USHMEM_INSTALL_SHMEM_INCLUDEDIR}>")

# Debian policy: every package has /usr/share/doc/<package>/copyright. Installed with every
# install (<prefix>/share/doc/ushmem/copyright), so that the package's contents are a plain install.
# The license text is the repository's LICENSE file; the sources hold none yet, and no license is
# invented here: the file then says so (the package test checks LICENSE's text when it exists).
set(_ushmem_copyright "${PROJECT_BINARY_DIR}/ushmem-install/copyright")
if(EXISTS "${PROJECT_SOURCE_DIR}/LICENSE")
  file(READ "${PROJECT_SOURCE_DIR}/LICENSE" _ushmem_license_text)
  string(PREPEND _ushmem_license_text "The license of ushmem, as its sources' LICENSE file states it:\n\n")
else()
  message(STATUS "ushmem: no LICENSE file in the sources; share/doc/ushmem/copyright says so")
  set(_ushmem_license_text
      "The ushmem sources carry no LICENSE file at this version, so no license is stated here.\n")
endif()
file(CONFIGURE OUTPUT "${_ushmem_copyright}" @ONLY CONTENT
"ushmem @PROJECT_VERSION@: OpenSHMEM 1.6 library over UCX, bootstrapped by MPI.
Made from the ushmem sources with CMake (cmake/install.cmake).

@_ushmem_license_text@")
install(FILES "${_ushmem_copyright}" DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT Runtime)

# ---------------------------------------------------------------------------------------------
# CMake package.
# ---------------------------------------------------------------------------------------------
set(USHMEM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/ushmem" CACHE STRING
    "Where ushmemConfig.cmake is installed, relative to the prefix")
mark_as_advanced(USHMEM_INSTALL_CMAKEDIR)
set(_ushmem_gen "${PROJECT_BINARY_DIR}/ushmem-install")

if(_ushmem_export_ok)
  install(EXPORT ushmemTargets
    NAMESPACE ushmem::
    DESTINATION "${USHMEM_INSTALL_CMAKEDIR}"
    COMPONENT Development)

  configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/ushmemConfig.cmake.in"
    "${_ushmem_gen}/ushmemConfig.cmake"
    INSTALL_DESTINATION "${USHMEM_INSTALL_CMAKEDIR}"
    PATH_VARS CMAKE_INSTALL_INCLUDEDIR USHMEM_INSTALL_SHMEM_INCLUDEDIR CMAKE_INSTALL_LIBDIR
              CMAKE_INSTALL_BINDIR)
  # Before 1.0 a minor release may break the API, so only the same major.minor matches.
  if(PROJECT_VERSION_MAJOR GREATER 0)
    set(_ushmem_compat SameMajorVersion)
  else()
    set(_ushmem_compat SameMinorVersion)
  endif()
  write_basic_package_version_file("${_ushmem_gen}/ushmemConfigVersion.cmake"
    VERSION "${PROJECT_VERSION}"
    COMPATIBILITY ${_ushmem_compat})
  install(FILES "${_ushmem_gen}/ushmemConfig.cmake" "${_ushmem_gen}/ushmemConfigVersion.cmake"
    DESTINATION "${USHMEM_INSTALL_CMAKEDIR}"
    COMPONENT Development)
endif()

# ---------------------------------------------------------------------------------------------
# Compiler wrappers and pkg-config file: flags gathered now, paths filled in at install time.
# ---------------------------------------------------------------------------------------------
# MPI flags for the wrappers are taken from FindMPI at configure time (FindMPI got them by
# interrogating mpicc --showme), i.e. from the very MPI libushmem.so was linked against, rather
# than by calling mpicc at every compile: that cannot pick up a different MPI (update-alternatives,
# another mpicc first in PATH) and works when no MPI wrapper is installed at run time.
function(_ushmem_shell_words out)
  # Quote each element of ARGN as one POSIX-shell word.
  set(words "")
  foreach(arg IN LISTS ARGN)
    if(arg STREQUAL "")
      continue()
    endif()
    string(REPLACE "'" "'\\''" arg "${arg}")
    string(APPEND words " '${arg}'")
  endforeach()
  string(STRIP "${words}" words)
  set(${out} "${words}" PARENT_SCOPE)
endfunction()

function(_ushmem_mpi_flags lang out_compile out_link)
  set(compile "")
  list(APPEND compile ${MPI_${lang}_COMPILE_OPTIONS})
  foreach(def IN LISTS MPI_${lang}_COMPILE_DEFINITIONS)
    list(APPEND compile "-D${def}")
  endforeach()
  foreach(dir IN LISTS MPI_${lang}_INCLUDE_DIRS)
    list(APPEND compile "-I${dir}")
  endforeach()
  set(link "")
  separate_arguments(link_flags UNIX_COMMAND "${MPI_${lang}_LINK_FLAGS}")
  list(APPEND link ${link_flags})
  set(rpath_dirs "")
  foreach(lib IN LISTS MPI_${lang}_LIBRARIES)
    list(APPEND link "${lib}")
    if(IS_ABSOLUTE "${lib}")
      get_filename_component(dir "${lib}" DIRECTORY)
      list(APPEND rpath_dirs "${dir}")
    endif()
  endforeach()
  # libmpi outside the loader's default directories (e.g. /opt/openmpi/lib) must be found at run
  # time by the program itself, which names it directly: give it a run path.
  list(REMOVE_DUPLICATES rpath_dirs)
  list(REMOVE_ITEM rpath_dirs ${CMAKE_${lang}_IMPLICIT_LINK_DIRECTORIES}
       /lib /usr/lib /lib64 /usr/lib64 /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu)
  foreach(dir IN LISTS rpath_dirs)
    string(FIND "${link}" "rpath,${dir}" found)   # MPI's own link flags may already have it
    if(found EQUAL -1)
      list(APPEND link "-Wl,-rpath,${dir}")
    endif()
  endforeach()
  _ushmem_shell_words(c ${compile})
  _ushmem_shell_words(l ${link})
  set(${out_compile} "${c}" PARENT_SCOPE)
  set(${out_link} "${l}" PARENT_SCOPE)
endfunction()

function(_ushmem_mpi_cxx_flags out_compile out_link)
  # A function scope, so that MPI_FOUND & co. of the top-level directory are left alone.
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    _ushmem_mpi_flags(CXX c l)
  else()
    # C++ program, MPI's C API: keep mpi.h from pulling in the C++ bindings it cannot link.
    _ushmem_mpi_flags(C c l)
    string(PREPEND c "'-DOMPI_SKIP_MPICXX=1' '-DMPICH_SKIP_MPICXX=1' ")
  endif()
  set(${out_compile} "${c}" PARENT_SCOPE)
  set(${out_link} "${l}" PARENT_SCOPE)
endfunction()

_ushmem_mpi_flags(C _ushmem_mpi_c_compile _ushmem_mpi_c_link)
_ushmem_mpi_cxx_flags(_ushmem_mpi_cxx_compile _ushmem_mpi_cxx_link)

# ushmem.pc: a program that links libushmem.so needs only -I and -lushmem, and the headers do not
# include <mpi.h>. UCX, hwloc and MPI are listed in Libs.private (used by `pkg-config --static`
# only) rather than Requires.private, because pkg-config resolves Requires.private even for a
# plain --cflags/--libs: that would make ucx.pc and an MPI .pc (whose name differs between MPIs)
# a requirement for every user, and put MPI's -I into their --cflags, for a library that does
# not need them.
set(_ushmem_pc_private "")
list(APPEND _ushmem_pc_private ${UCX_LDFLAGS} ${HWLOC_LDFLAGS})
separate_arguments(_ushmem_mpi_ldflags UNIX_COMMAND "${MPI_C_LINK_FLAGS}")
list(APPEND _ushmem_pc_private ${_ushmem_mpi_ldflags} ${MPI_C_LIBRARIES} -lstdc++ -lm -lpthread)
list(REMOVE_DUPLICATES _ushmem_pc_private)
list(JOIN _ushmem_pc_private " " _ushmem_pc_private)

if(CMAKE_C_COMPILER)
  set(_ushmem_cc "${CMAKE_C_COMPILER}")
else()
  set(_ushmem_cc cc)
endif()
if(CMAKE_CXX_COMPILER)
  set(_ushmem_cxx "${CMAKE_CXX_COMPILER}")
else()
  set(_ushmem_cxx c++)
endif()

# The drop-in names oshcc, oshc++, oshCC, oshcxx and oshrun live in a directory of their own, never
# in bin/: Open MPI installs the same names (its OSHMEM), and a ushmem package in /usr must
# neither replace nor shadow them. Users who want the names put this directory first on PATH.
set(USHMEM_INSTALL_OSHDIR "${CMAKE_INSTALL_LIBEXECDIR}/ushmem/osh" CACHE STRING
    "Where the drop-in tool names (oshcc, oshc++, oshCC, oshcxx, oshrun) are installed, relative to the prefix")
mark_as_advanced(USHMEM_INSTALL_OSHDIR)
if(MPIEXEC_EXECUTABLE)
  set(_ushmem_oshrun_mpiexec "${MPIEXEC_EXECUTABLE}")
else()
  set(_ushmem_oshrun_mpiexec mpirun)
endif()

set(_ushmem_system_include_dirs /usr/include)
set(_ushmem_system_lib_dirs /lib /usr/lib /lib64 /usr/lib64)
if(CMAKE_LIBRARY_ARCHITECTURE)
  list(APPEND _ushmem_system_include_dirs "/usr/include/${CMAKE_LIBRARY_ARCHITECTURE}")
  list(APPEND _ushmem_system_lib_dirs "/lib/${CMAKE_LIBRARY_ARCHITECTURE}"
       "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}")
endif()

# Everything the install-time step needs, frozen now.
file(CONFIGURE OUTPUT "${_ushmem_gen}/install-vars.cmake" @ONLY CONTENT [==[
set(USHMEM_VERSION [=[@PROJECT_VERSION@]=])
set(USHMEM_BINDIR [=[@CMAKE_INSTALL_BINDIR@]=])
set(USHMEM_OSHDIR [=[@USHMEM_INSTALL_OSHDIR@]=])
set(USHMEM_MPIEXEC [=[@_ushmem_oshrun_mpiexec@]=])
set(USHMEM_LIBDIR [=[@CMAKE_INSTALL_LIBDIR@]=])
set(USHMEM_INCLUDEDIR [=[@CMAKE_INSTALL_INCLUDEDIR@]=])
set(USHMEM_SHMEM_INCLUDEDIR [=[@USHMEM_INSTALL_SHMEM_INCLUDEDIR@]=])
# Directories the compiler and the loader search anyway: the wrappers add no -I, -L or run path
# to them (-I/usr/include breaks g++'s #include_next; a run path to /usr/lib is wrong).
set(USHMEM_SYSTEM_INCLUDE_DIRS [=[@_ushmem_system_include_dirs@]=])
set(USHMEM_SYSTEM_LIB_DIRS [=[@_ushmem_system_lib_dirs@]=])
set(USHMEM_TEMPLATE_DIR [=[@CMAKE_CURRENT_LIST_DIR@]=])
set(USHMEM_STAGE_DIR [=[@_ushmem_gen@/stage]=])
set(USHMEM_CC [=[@_ushmem_cc@]=])
set(USHMEM_CXX [=[@_ushmem_cxx@]=])
set(USHMEM_MPI_C_COMPILE [=[@_ushmem_mpi_c_compile@]=])
set(USHMEM_MPI_C_LINK [=[@_ushmem_mpi_c_link@]=])
set(USHMEM_MPI_CXX_COMPILE [=[@_ushmem_mpi_cxx_compile@]=])
set(USHMEM_MPI_CXX_LINK [=[@_ushmem_mpi_cxx_link@]=])
set(USHMEM_PC_LIBS_PRIVATE [=[@_ushmem_pc_private@]=])
]==])

# block(): keep the step's variables out of cmake_install.cmake, but let the files it installs
# reach install_manifest.txt.
install(CODE "block(SCOPE_FOR VARIABLES PROPAGATE CMAKE_INSTALL_MANIFEST_FILES)
  include([==[${_ushmem_gen}/install-vars.cmake]==])
  include([==[${CMAKE_CURRENT_LIST_DIR}/install_generate.cmake]==])
endblock()"
  COMPONENT Development)

# ---------------------------------------------------------------------------------------------
# Man pages of the tools (docs/man/*.1, hand-written roff; the version filled in here). The page
# of the drop-in names is ushmem-oshrun.1, not oshrun.1/oshcc.1: Open MPI installs those.
# ---------------------------------------------------------------------------------------------
file(GLOB _ushmem_man_pages "${PROJECT_SOURCE_DIR}/docs/man/*.1")
set(_ushmem_man_out "")
foreach(_page IN LISTS _ushmem_man_pages)
  get_filename_component(_name "${_page}" NAME)
  configure_file("${_page}" "${_ushmem_gen}/man/${_name}" @ONLY)
  list(APPEND _ushmem_man_out "${_ushmem_gen}/man/${_name}")
endforeach()
if(_ushmem_man_out)
  install(FILES ${_ushmem_man_out} DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT Runtime)
endif()

# ---------------------------------------------------------------------------------------------
# Install test (tests/install/run.sh as a ctest).
# ---------------------------------------------------------------------------------------------
if(BUILD_TESTING OR USHMEM_BUILD_TESTS)
  include("${CMAKE_CURRENT_LIST_DIR}/install_test.cmake")
endif()
