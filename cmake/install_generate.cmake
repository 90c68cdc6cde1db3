# Install-time step (run from cmake_install.cmake; see cmake/install.cmake): writes the compiler
# wrappers ushmemcc / ushmemcxx and ushmem.pc for the prefix actually being installed to, which
# is CMAKE_INSTALL_PREFIX here (`cmake --install --prefix P` sets it), and installs them with
# file(INSTALL), which honours DESTDIR and records them in install_manifest.txt.
#
# Expects the variables of <build>/ushmem-install/install-vars.cmake.

function(_ushmem_sh_quote out value)
  string(REPLACE "'" "'\\''" value "${value}")
  set(${out} "'${value}'" PARENT_SCOPE)
endfunction()

set(_prefix "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "(.)/+$" "\\1" _prefix "${_prefix}")

# For each directory: an absolute path, and the form used inside the wrappers, where it follows
# ${prefix} (which USHMEM_PREFIX may override for a moved installation) when it is relative.
foreach(_kind BINDIR LIBDIR INCLUDEDIR SHMEM_INCLUDEDIR OSHDIR)
  set(_rel "${USHMEM_${_kind}}")
  if(IS_ABSOLUTE "${_rel}")
    set(_abs_${_kind} "${_rel}")
    _ushmem_sh_quote(_sh_${_kind} "${_rel}")
    set(_pc_${_kind} "${_rel}")
  else()
    set(_abs_${_kind} "${_prefix}/${_rel}")
    _ushmem_sh_quote(_q "${_rel}")
    set(_sh_${_kind} "\"\${prefix}\"/${_q}")
    set(_pc_${_kind} "\${prefix}/${_rel}")
  endif()
endforeach()

string(MD5 _stage_key "$ENV{DESTDIR}|${_prefix}")
set(_stage "${USHMEM_STAGE_DIR}/${_stage_key}")
file(MAKE_DIRECTORY "${_stage}")

# ---- ushmemcc / ushmemcxx -----------------------------------------------------------------
_ushmem_sh_quote(WRAPPER_PREFIX "${_prefix}")
set(WRAPPER_INCLUDEDIR "${_sh_INCLUDEDIR}")
set(WRAPPER_SHMEM_INCLUDEDIR "${_sh_SHMEM_INCLUDEDIR}")
set(WRAPPER_LIBDIR "${_sh_LIBDIR}")
set(WRAPPER_SYSTEM_INCLUDE_DIRS "")
foreach(_d IN LISTS USHMEM_SYSTEM_INCLUDE_DIRS)
  _ushmem_sh_quote(_q "${_d}")
  string(APPEND WRAPPER_SYSTEM_INCLUDE_DIRS " ${_q}")
endforeach()
set(WRAPPER_SYSTEM_LIB_DIRS "")
foreach(_d IN LISTS USHMEM_SYSTEM_LIB_DIRS)
  _ushmem_sh_quote(_q "${_d}")
  string(APPEND WRAPPER_SYSTEM_LIB_DIRS " ${_q}")
endforeach()
string(STRIP "${WRAPPER_SYSTEM_INCLUDE_DIRS}" WRAPPER_SYSTEM_INCLUDE_DIRS)
string(STRIP "${WRAPPER_SYSTEM_LIB_DIRS}" WRAPPER_SYSTEM_LIB_DIRS)
set(WRAPPER_VERSION "${USHMEM_VERSION}")

set(WRAPPER_NAME ushmemcc)
set(WRAPPER_LANG C)
set(WRAPPER_STD "")
set(WRAPPER_ENV USHMEMCC_CC)
_ushmem_sh_quote(WRAPPER_DEFAULT_COMPILER "${USHMEM_CC}")
set(WRAPPER_FALLBACK_COMPILER cc)
set(WRAPPER_MPI_COMPILE "${USHMEM_MPI_C_COMPILE}")
set(WRAPPER_MPI_LINK "${USHMEM_MPI_C_LINK}")
configure_file("${USHMEM_TEMPLATE_DIR}/ushmem-wrapper.in" "${_stage}/ushmemcc" @ONLY)

set(WRAPPER_NAME ushmemcxx)
set(WRAPPER_LANG C++)
# <ushmem/ushmem.hpp> needs C++20; g++ 12 defaults to gnu++17. A -std= of the user's wins.
# The GNU dialect, as g++'s own default: programs written for compilers and wrappers that pass no
# -std (OSHMEM's oshc++) may use GNU extensions, e.g. C99's creal from <complex.h> in C++, which
# g++ declares only in gnu++ modes (tests-sos's cxx_test_shmem_*_reduce did not compile with -std=c++20).
set(WRAPPER_STD "-std=gnu++20")
set(WRAPPER_ENV USHMEMCXX_CXX)
_ushmem_sh_quote(WRAPPER_DEFAULT_COMPILER "${USHMEM_CXX}")
set(WRAPPER_FALLBACK_COMPILER c++)
set(WRAPPER_MPI_COMPILE "${USHMEM_MPI_CXX_COMPILE}")
set(WRAPPER_MPI_LINK "${USHMEM_MPI_CXX_LINK}")
configure_file("${USHMEM_TEMPLATE_DIR}/ushmem-wrapper.in" "${_stage}/ushmemcxx" @ONLY)

file(INSTALL DESTINATION "${_abs_BINDIR}" TYPE PROGRAM
  FILES "${_stage}/ushmemcc" "${_stage}/ushmemcxx")

# ---- drop-in names: oshcc, oshc++, oshCC, oshcxx, oshrun (cmake/install.cmake says why apart) ----
_ushmem_sh_quote(OSH_PREFIX "${_prefix}")
set(OSH_VERSION "${USHMEM_VERSION}")
set(OSH_DIR_DOC "${_abs_OSHDIR}")
set(OSH_MPIEXEC "${USHMEM_MPIEXEC}")
set(_osh_files "")
foreach(_osh oshcc oshc++ oshCC oshcxx)
  set(OSH_NAME "${_osh}")
  if(_osh STREQUAL "oshcc")
    set(OSH_TARGET ushmemcc)
    set(OSH_LANG C)
    set(OSH_ENV USHMEMCC_CC)
  else()
    set(OSH_TARGET ushmemcxx)
    set(OSH_LANG C++)
    set(OSH_ENV USHMEMCXX_CXX)
  endif()
  _ushmem_sh_quote(_q "${OSH_TARGET}")
  set(OSH_EXEC "${_sh_BINDIR}/${_q}")   # "${prefix}"/'bin'/'ushmemcc', or an absolute path
  configure_file("${USHMEM_TEMPLATE_DIR}/osh-compiler.in" "${_stage}/${_osh}" @ONLY)
  list(APPEND _osh_files "${_stage}/${_osh}")
endforeach()
configure_file("${USHMEM_TEMPLATE_DIR}/oshrun.in" "${_stage}/oshrun" @ONLY)
list(APPEND _osh_files "${_stage}/oshrun")
file(INSTALL DESTINATION "${_abs_OSHDIR}" TYPE PROGRAM FILES ${_osh_files})

# ---- ushmem.pc ----------------------------------------------------------------------------
set(PC_PREFIX "${_prefix}")
set(PC_LIBDIR "${_pc_LIBDIR}")
set(PC_INCLUDEDIR "${_pc_INCLUDEDIR}")
set(PC_SHMEM_INCLUDEDIR "${_pc_SHMEM_INCLUDEDIR}")
set(PC_VERSION "${USHMEM_VERSION}")
set(PC_LIBS_PRIVATE "${USHMEM_PC_LIBS_PRIVATE}")
configure_file("${USHMEM_TEMPLATE_DIR}/ushmem.pc.in" "${_stage}/ushmem.pc" @ONLY)
file(INSTALL DESTINATION "${_abs_LIBDIR}/pkgconfig" TYPE FILE FILES "${_stage}/ushmem.pc")

# The staged copies are only a vehicle for file(INSTALL); do not let one pile up per prefix.
file(REMOVE_RECURSE "${_stage}")
