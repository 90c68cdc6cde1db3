# Collectives called with arguments that differ between the PEs (issue #7): diagnosed under
# SHMEM_DEBUG=1 (coll_mismatch.c lists the modes). Included from mpi_tests/CMakeLists.txt.
ushmem_mpi_program(coll_mismatch)

# ushmem_coll_mismatch_test(MODE REGEX [NP n...]): `coll_mismatch MODE` must abort with a line
# matching REGEX (default configuration, SHMEM_DEBUG=1, 2 PEs unless told otherwise).
function(ushmem_coll_mismatch_test mode regex)
  cmake_parse_arguments(M "" "" "NP" ${ARGN})
  if(NOT M_NP)
    set(M_NP 2)
  endif()
  ushmem_mpi_test(coll_mismatch_${mode} PROGRAM coll_mismatch ARGS ${mode} NP ${M_NP} CONFIGS default
                  ENV SHMEM_DEBUG=1 LABELS "errors;coll_mismatch"
                  WRAPPER ${CMAKE_CURRENT_SOURCE_DIR}/expect_error.sh --status nonzero ${regex} --)
endfunction()

set(_team [=[collective arguments differ between the PEs of the team]=])
set(_as [=[collective arguments differ between the PEs of the active set]=])
set(_tail [=[.*checked because SHMEM_DEBUG is set]=])
ushmem_coll_mismatch_test(bcast_nelems
  "ushmem: shmem_broadcastmem \\(PE [0-9] of [0-9]\\): ${_team} .*nelems \\* element size \\(bytes\\) 8\\.\\.16.*same nelems and PE_root${_tail}"
  NP 2 4)
ushmem_coll_mismatch_test(bcast_root
  "ushmem: shmem_long_broadcast \\(PE [0-9] of 2\\): ${_team} .*: PE_root 0\\.\\.1 ${_tail}")
ushmem_coll_mismatch_test(reduce_nreduce
  "ushmem: shmem_int_sum_reduce \\(PE [0-9] of 2\\): ${_team} .*: nreduce 4\\.\\.8 ${_tail}")
ushmem_coll_mismatch_test(reduce_op
  "ushmem: shmem_int_(sum|max)_reduce \\(PE [0-9] of 2\\): ${_team} .*different reduction routines, another element type or operation${_tail}")
ushmem_coll_mismatch_test(fcollect_nelems
  "ushmem: shmem_long_fcollect \\(PE [0-9] of 2\\): ${_team} .*: nelems \\* element size \\(bytes\\) 8\\.\\.16 ${_tail}")
ushmem_coll_mismatch_test(alltoall_nelems
  "ushmem: shmem_int_alltoall \\(PE [0-9] of 2\\): ${_team} .*: nelems \\* element size \\(bytes\\) 4\\.\\.8 ${_tail}")
ushmem_coll_mismatch_test(alltoalls_dst
  "ushmem: shmem_int_alltoalls \\(PE [0-9] of 2\\): ${_team} .*: dst 1\\.\\.2 ${_tail}")
ushmem_coll_mismatch_test(kinds
  "ushmem: shmem_(broadcastmem|int_sum_reduce) \\(PE [0-9] of [0-9]\\): ${_team} .*different collectives at the same point, broadcast and reduction${_tail}"
  NP 2 4)
ushmem_coll_mismatch_test(as_nelems
  "ushmem: shmem_broadcast64 \\(PE [0-9] of 2\\): ${_as} .*nelems \\* element size \\(bytes\\) \\(this PE (8|16), mean over the set 12\\)${_tail}")
ushmem_coll_mismatch_test(as_size
  "ushmem: shmem_broadcast64 \\(PE 0 of 4\\): ${_as} .*PE_start, logPE_stride or PE_size \\(this PE passed 0, 0, 2\\)${_tail}"
  NP 4)
# The same calls with matching arguments: no false positive (and the results are right).
ushmem_mpi_test(coll_mismatch_match PROGRAM coll_mismatch ARGS match NP 2 3 4 CONFIGS default tcp
                ENV SHMEM_DEBUG=1 LABELS coll_mismatch)
