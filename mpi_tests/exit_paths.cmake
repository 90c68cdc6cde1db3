# Exit paths, fork and heap fragmentation (issue #7; exit_paths.c, docs/user-guide.md "Exit paths
# and fork"). Included from mpi_tests/CMakeLists.txt. exit_paths.sh checks the status, a line of the
# output, that the job ended within its limit and that it left no shared memory behind.
ushmem_mpi_program(exit_paths)
set(_exit_paths_sh ${CMAKE_CURRENT_SOURCE_DIR}/exit_paths.sh)

# ushmem_exit_path_test(NAME ARGS... STATUS s WITHIN sec REGEX re [NOT re] [REPEAT k] [NP ..]
#                       [CONFIGS ..] [ENV ..])
function(ushmem_exit_path_test name)
  cmake_parse_arguments(X "" "STATUS;WITHIN;REGEX;NOT;REPEAT" "ARGS;NP;CONFIGS;ENV" ${ARGN})
  if(NOT X_NP)
    set(X_NP 2 4)
  endif()
  if(NOT X_CONFIGS)
    set(X_CONFIGS default)
  endif()
  if(NOT X_REPEAT)
    set(X_REPEAT 1)
  endif()
  set(_not "")
  if(X_NOT)
    set(_not --not ${X_NOT})
  endif()
  math(EXPR _timeout "(${X_WITHIN} + 5) * ${X_REPEAT} + 25")
  ushmem_mpi_test(${name} PROGRAM exit_paths ARGS ${X_ARGS} NP ${X_NP} CONFIGS ${X_CONFIGS}
                  ENV ${X_ENV} TIMEOUT ${_timeout} LABELS exit_paths
                  WRAPPER ${_exit_paths_sh} --status ${X_STATUS} --within ${X_WITHIN}
                          --repeat ${X_REPEAT} ${_not} ${X_REGEX} --)
endfunction()

# 1. exit(3) from a second thread or a signal handler while the main thread waits, the other PEs
#    waiting for something that never comes: one line, and the job ends with 3 (not a hang in an
#    implicit finalize).
foreach(via thread signal)
  ushmem_exit_path_test(exit_nonzero_${via} ARGS exit_wait ${via} 3 STATUS 3 WITHIN 30
    REGEX [=[^ushmem: PE [1-3] exited with status 3 without shmem_finalize; ending the job$]=])
endforeach()
# 2. exit(0) the same way while the others call shmem_finalize: the implicit finalize meets
#    theirs, the job ends with 0 (the wait on the stack parks; nothing reads the unmapped heap).
foreach(via thread signal)
  ushmem_exit_path_test(exit_zero_${via} ARGS exit_wait ${via} 0 STATUS 0 WITHIN 60
    CONFIGS default tcp REGEX [=[exit_paths: PE 0 finalized while PE [1-3] exited from inside a wait]=])
endforeach()
# 3. PEs that exit(0) without finalize while PE 0 is late: their implicit finalize names PE 0
#    after USHMEM_FINALIZE_NOTICE s and the job ends normally when PE 0 arrives; with
#    USHMEM_WAIT_TIMEOUT it ends the job (PE 0 would only arrive after 60 s).
ushmem_exit_path_test(exit_early_notice ARGS exit_early 4 STATUS 0 WITHIN 60
  ENV USHMEM_FINALIZE_NOTICE=1
  REGEX [=[ushmem: notice: exit \(shmem_finalize was not called\) \(PE [1-3] of [24]\): waited [0-9]+ s in finalize for PEs that have not reached shmem_finalize: 0; still waiting]=])
ushmem_exit_path_test(exit_early_timeout ARGS exit_early 60 STATUS nonzero WITHIN 40
  ENV USHMEM_WAIT_TIMEOUT=2
  REGEX [=[ushmem: exit \(shmem_finalize was not called\) \(PE [1-3] of [24]\): timed out after [0-9]+\.[0-9] s \(USHMEM_WAIT_TIMEOUT\) waiting for the other PEs to reach shmem_finalize; PEs not there: 0 ]=])
# 4. shmem_global_exit(5) on PE 0 while the others wait, sit in a team collective PE 0 never
#    joins, or loop on blocking gets from it.
foreach(kind wait bcast sync get)
  ushmem_exit_path_test(global_exit_${kind} ARGS global_exit ${kind} STATUS 5 WITHIN 30
    REGEX [=[exit_paths: PE 0 calling shmem_global_exit\(5\)]=])
endforeach()
# Every PE calls shmem_global_exit(5) in the same instant, 8 times over: each job ends with 5 and
# leaves nothing behind, and one PE of the node called MPI_Abort (Open MPI aggregates the others'
# "MPI_ABORT was invoked" into "N more processes have sent help message"). When every PE called
# it, Open MPI's mpirun crashed now and then (SIGSEGV relaying the messages), leaving its /dev/shm
# files behind (bootstrap::abort_job).
ushmem_exit_path_test(global_exit_all ARGS global_exit all STATUS 5 WITHIN 20 REPEAT 8 NP 2 4
  CONFIGS default tcp REGEX [=[exit_paths: every PE calling shmem_global_exit\(5\)]=]
  NOT [=[more process(es)? ha(s|ve) sent help message help-mpi-api.txt / mpi-abort]=])
# 5. fork after shmem_init: the child's exit() leaves the parent's library alone.
ushmem_exit_path_test(fork ARGS fork STATUS 0 WITHIN 60 CONFIGS default tcp
  REGEX [=[exit_paths: PE 0: child [0-9]+ exited 0 without touching the library; puts and barriers OK]=])
# 6. Fragmentation: NULL with a message naming the routine, the PE, the free bytes, the largest
#    free block, the fragmentation and the remedies; the heap works afterwards.
ushmem_exit_path_test(heap_fragment ARGS fragment NP 2 STATUS 0 WITHIN 60 ENV SHMEM_SYMMETRIC_SIZE=4M USHMEM_HEAP_GROW=0
  REGEX [=[ushmem: shmem_malloc \(PE [01] of 2\): cannot allocate 196608 bytes: [0-9]+ bytes free in the symmetric heap, largest free block [0-9]+ bytes \(the free space is fragmented.*raise SHMEM_SYMMETRIC_SIZE.* or free symmetric memory; returning NULL]=])
