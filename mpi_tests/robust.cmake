# What a hostile but realistic user does (issue #13): robust.c (C), cxx_robust.cpp (C++),
# robust_heap.sh (start-up with a heap the machine cannot give). Included from CMakeLists.txt.
# Label "robust" on all of them, "errors" on those that provoke a diagnosis.
ushmem_mpi_program(robust)
set(_ex ${CMAKE_CURRENT_SOURCE_DIR}/expect_error.sh)
set(_heap_sh ${CMAKE_CURRENT_SOURCE_DIR}/robust_heap.sh)

# ---- 1. A heap the machine cannot hold: shmem_init ends the job before UCX allocates anything
# (no "UCX  ERROR" line: UCX never tried), with one message that names the variable, the size and
# what the machine has, and nothing is left in /dev/shm or System V. The sizes exceed any machine
# (and the 64 TiB of address space allowed with vm.overcommit_memory=1); the team case is 1M slots
# of 100 MiB scratch.
set(_sz "[0-9.]+ (bytes|[KMGTPE]iB)")
set(_heap_have "This PE's machine has ${_sz} in free huge pages \\([0-9]+ of 2\\.0 MiB\\), MemAvailable ${_sz}, /dev/shm ${_sz} free")
function(ushmem_heap_unfit_test name msg)
  set(_also "")
  if(NOT name STREQUAL "overflow")
    set(_also --also "${_heap_have}")
  endif()
  ushmem_mpi_test(heap_unfit_${name} PROGRAM robust ARGS init_only NP 1 2 CONFIGS default tcp
                  ENV ${ARGN} LABELS "errors;robust"
                  WRAPPER ${_heap_sh} "ushmem: shmem_init \\(PE 0 of [12]\\): ${msg}" ${_also}
                          --forbid "UCX  ERROR" --forbid "shmem_init returned"
                          --forbid "ushmem: shmem_init \\(PE 1 " --)
endfunction()
ushmem_heap_unfit_test(size
  [=[cannot have a symmetric heap of 100\.0 TiB \(SHMEM_SYMMETRIC_SIZE=100T \(100\.0 TiB\), plus [0-9.]+ MiB for the team slots: USHMEM_MAX_TEAMS=64 slots, USHMEM_TEAM_SCRATCH=32K of scratch each, USHMEM_WORLD_SCRATCH=1M for SHMEM_TEAM_WORLD\): it is more than .*lower SHMEM_SYMMETRIC_SIZE$]=]
  SHMEM_SYMMETRIC_SIZE=100T)
ushmem_heap_unfit_test(huge
  [=[cannot have a symmetric heap of 97\.7 PiB \(SHMEM_SYMMETRIC_SIZE=99999T .*lower SHMEM_SYMMETRIC_SIZE$]=]
  SHMEM_SYMMETRIC_SIZE=99999T)
ushmem_heap_unfit_test(teams
  [=[cannot have a symmetric heap of 10[0-9]\.[0-9] TiB \(SHMEM_SYMMETRIC_SIZE=64M \(64\.0 MiB\), plus 10[0-9]\.[0-9] TiB for the team slots: USHMEM_MAX_TEAMS=1048576 slots, USHMEM_TEAM_SCRATCH=100M of scratch each, USHMEM_WORLD_SCRATCH=1M for SHMEM_TEAM_WORLD\).*lower USHMEM_MAX_TEAMS .* or USHMEM_TEAM_SCRATCH$]=]
  USHMEM_MAX_TEAMS=1048576 USHMEM_TEAM_SCRATCH=100M)
ushmem_heap_unfit_test(overflow
  [=[the symmetric heap asked for is too large: SHMEM_SYMMETRIC_SIZE=16000000T plus USHMEM_MAX_TEAMS=1048576 team slots of USHMEM_TEAM_SCRATCH=1T scratch each and USHMEM_WORLD_SCRATCH=1M add up to more than 16 EiB \(2\^64 bytes\)]=]
  SHMEM_SYMMETRIC_SIZE=16000000T USHMEM_MAX_TEAMS=1048576 USHMEM_TEAM_SCRATCH=1T)
# SHMEM_TEAM_WORLD's own scratch is what makes the request large: the remedy names it.
ushmem_heap_unfit_test(world
  [=[cannot have a symmetric heap of 100\.0 TiB \(SHMEM_SYMMETRIC_SIZE=64M \(64\.0 MiB\), plus 100\.0 TiB for the team slots: USHMEM_MAX_TEAMS=64 slots, USHMEM_TEAM_SCRATCH=32K of scratch each, USHMEM_WORLD_SCRATCH=100T for SHMEM_TEAM_WORLD\): it is more than .*lower USHMEM_WORLD_SCRATCH$]=]
  USHMEM_WORLD_SCRATCH=100T)
# System V refuses the heap for a reason no start-up check foresees (here: kernel.shmmni, the number
# of segments, leaves room for UCX's worker segments only, in an IPC namespace of the test's own).
# UCX then takes its fallbacks, which must not be its posix transport (a /dev/shm file filled 64 KiB
# at a time, left behind when the job is killed meanwhile): the heap is private memory, the job
# works (through UCX emulation on the node) and leaves nothing.
ushmem_mpi_test(heap_fallback PROGRAM robust ARGS heap_map NP 1 2 CONFIGS default
                ENV USHMEM_HUGEPAGE_NOTICE=0 LABELS robust
                WRAPPER ${_heap_sh} --status 0 --shmmni-per-pe 2 "robust: PE 0 heap_map: OK"
                        --also "robust: PE 0 heap mapping: [0-9a-f]+-[0-9a-f]+ rw-p 00000000 00:00 0"
                        --forbid "heap mapping: .*(/dev/shm|ucx_shm_posix|SYSV)" --)

# ---- 2. Settings that must be alike, set differently per PE (an MPMD launch): shmem_init ends
# the job naming each variable, its values and the PEs that have them. APPS: "np|VAR=v,VAR=v".
function(ushmem_mpmd_test name)
  cmake_parse_arguments(M "" "REGEX;STATUS" "APPS" ${ARGN})
  if("${M_STATUS}" STREQUAL "")
    set(M_STATUS nonzero)
  endif()
  foreach(cfg default tcp)
    set(cmd ${MPIEXEC_EXECUTABLE} ${USHMEM_MPIEXEC_FLAGS})
    set(total 0)
    set(sep "")
    foreach(app IN LISTS M_APPS)
      string(REPLACE "|" ";" _p "${app}")
      list(GET _p 0 _np)
      list(GET _p 1 _vars)
      string(REPLACE "," ";" _vars "${_vars}")
      list(APPEND cmd ${sep} -np ${_np})
      foreach(v IN LISTS _vars)
        list(APPEND cmd -x ${v})
      endforeach()
      list(APPEND cmd $<TARGET_FILE:mpi_robust> init_only)
      set(sep ":")
      math(EXPR total "${total} + ${_np}")
    endforeach()
    set(test mpi.${name}.${cfg}.np${total})
    add_test(NAME ${test} COMMAND ${_ex} --status ${M_STATUS} ${M_REGEX} -- ${cmd})
    set(mods "")
    foreach(var IN LISTS USHMEM_MPI_CONFIG_VARS)
      if(NOT "${USHMEM_MPI_CONFIG_ENV_${cfg}}" MATCHES "(^|;)${var}=")
        list(APPEND mods "${var}=unset:")
      endif()
    endforeach()
    set_tests_properties(${test} PROPERTIES
      ENVIRONMENT "SHMEM_SYMMETRIC_SIZE=64M;${USHMEM_MPI_CONFIG_ENV_${cfg}}"
      TIMEOUT ${USHMEM_MPI_TEST_TIMEOUT} PROCESSORS ${total}
      LABELS "mpi;${cfg};${name};errors;robust")
    if(mods)
      set_tests_properties(${test} PROPERTIES ENVIRONMENT_MODIFICATION "${mods}")
    endif()
  endforeach()
endfunction()
ushmem_mpmd_test(settings_heap_size
  APPS "1|SHMEM_SYMMETRIC_SIZE=4M" "1|SHMEM_SYMMETRIC_SIZE=8M"
  REGEX [=[ushmem: shmem_init \(PE 0 of 2\): settings that must be the same on every PE differ between PEs: SHMEM_SYMMETRIC_SIZE is '4M' on PE 0, '8M' on PE 1\. They size the symmetric heap]=])
ushmem_mpmd_test(settings_several
  APPS "2|SHMEM_DEBUG=1,USHMEM_MAX_TEAMS=8" "1|SHMEM_DEBUG=0,USHMEM_MAX_TEAMS=8"
       "1|SHMEM_DEBUG=1,USHMEM_MAX_TEAMS=9,USHMEM_BCAST_ALGO=flat"
  REGEX [=[ushmem: shmem_init \(PE 0 of 4\): settings that must be the same on every PE differ between PEs: SHMEM_DEBUG is '1' on PEs 0-1,3, '0' on PE 2. USHMEM_MAX_TEAMS is '8' on PEs 0-2, '9' on PE 3. USHMEM_BCAST_ALGO is 'auto' on PEs 0-2, 'flat' on PE 3\.]=])
# The same value written differently is the same value.
ushmem_mpmd_test(settings_alike_ok STATUS 0
  APPS "1|SHMEM_SYMMETRIC_SIZE=4M,SHMEM_DEBUG=yes" "1|SHMEM_SYMMETRIC_SIZE=4096K,SHMEM_DEBUG=1"
  REGEX [=[robust: PE 1: shmem_init returned]=])

# ---- 3. A NULL local buffer with a nonzero count: the routine, the buffer and the count.
set(_null_cases
  "null_put|shmem_putmem|source|8"
  "null_get|shmem_getmem|destination|8"
  "null_long_put_nbi|shmem_long_put_nbi|source|64"
  "null_ctx_getmem_nbi|shmem_ctx_getmem_nbi|destination|8"
  "null_long_iput|shmem_long_iput|source|8"
  "null_put_signal|shmem_putmem_signal|source|8")
foreach(row IN LISTS _null_cases)
  string(REPLACE "|" ";" _f "${row}")
  list(GET _f 0 _mode)
  list(GET _f 1 _routine)
  list(GET _f 2 _what)
  list(GET _f 3 _bytes)
  ushmem_mpi_test(robust_${_mode} PROGRAM robust ARGS ${_mode} NP 1 2 CONFIGS default tcp LABELS "errors;robust"
                  WRAPPER ${_ex} --status nonzero
                          "ushmem: ${_routine} \\(PE 0 of [12]\\): the local ${_what} buffer is NULL with ${_bytes} bytes to transfer \\(target PE [01]\\). pass a buffer of at least that many bytes \\(NULL is allowed only with a count of 0\\)" --)
endforeach()
ushmem_mpi_test(robust_null_zero_ok PROGRAM robust ARGS null_zero_ok NP 1 2 CONFIGS default tcp LABELS robust)

# (The regular expressions below avoid a literal \[: an unbalanced bracket keeps CMake from splitting
# the list that carries them, and the wrapper's "--" would join them.)
# ---- 5. SHMEM_DEBUG: overlapping ranges in a put or get to the PE itself; team split arguments
# that differ between the PEs of the parent team.
foreach(dir put get)
  if(dir STREQUAL "put")
    set(_order "the source .0x[0-9a-f]+, 0x[0-9a-f]+\\) and the destination")
  else()
    set(_order "the destination .0x[0-9a-f]+, 0x[0-9a-f]+\\) and the source")
  endif()
  ushmem_mpi_test(robust_overlap_${dir} PROGRAM robust ARGS overlap_${dir} NP 1 2 CONFIGS default tcp
                  ENV SHMEM_DEBUG=1 LABELS "errors;robust"
                  WRAPPER ${_ex} --status nonzero
                          "ushmem: shmem_${dir}mem \\(PE 0 of [12]\\): ${_order} .0x[0-9a-f]+, 0x[0-9a-f]+\\) overlap \\(a ${dir} to this PE itself, 64 bytes\\): an overlapping copy has no defined result.*\\(checked because SHMEM_DEBUG is set\\)" --)
endforeach()
ushmem_mpi_test(robust_overlap_ok PROGRAM robust ARGS overlap_ok NP 1 2 CONFIGS default tcp ENV SHMEM_DEBUG=1
                LABELS robust)
ushmem_mpi_test(robust_split_mismatch PROGRAM robust ARGS split_mismatch NP 2 4 CONFIGS default tcp
                ENV SHMEM_DEBUG=1 LABELS "errors;robust"
                WRAPPER ${_ex} --status nonzero
                        [=[ushmem: shmem_team_split_strided \(PE 1 of ([24])\): team split arguments differ between the PEs of the parent team: this PE \(PE 1 of the parent team\) called shmem_team_split_strided with start 0, stride 1, size [13], PE 0 of the parent team \(world PE 0\) called shmem_team_split_strided with start 0, stride 1, size [24] \(checked because SHMEM_DEBUG is set\)]=] --)
ushmem_mpi_test(robust_split_2d_mismatch PROGRAM robust ARGS split_2d_mismatch NP 2 4 CONFIGS default tcp
                ENV SHMEM_DEBUG=1 LABELS "errors;robust"
                WRAPPER ${_ex} --status nonzero
                        [=[ushmem: shmem_team_split_2d \(PE 1 of [24]\): team split arguments differ between the PEs of the parent team: this PE \(PE 1 of the parent team\) called shmem_team_split_2d with xrange 2, PE 0 of the parent team \(world PE 0\) called shmem_team_split_2d with xrange 1]=] --)
ushmem_mpi_test(robust_split_debug_ok PROGRAM robust ARGS split_debug_ok NP 1 2 3 4 CONFIGS default tcp
                ENV SHMEM_DEBUG=1 LABELS robust)

# ---- 6. A heap that no longer matches between PEs, found at the next collective memory call
# (always: no SHMEM_DEBUG), naming what each PE did; and the same calls alike on every PE pass.
ushmem_mpi_test(robust_heap_leak PROGRAM robust ARGS heap_leak NP 2 4 CONFIGS default tcp LABELS "errors;robust"
                WRAPPER ${_ex} --status nonzero
                        [=[ushmem: shmem_malloc \(PE 0 of [24]\): the symmetric heap is no longer the same on every PE: the PEs' collective memory calls do not match \(PE 0: collective memory call 4: an allocation of 4096 bytes \(alignment 64\), with 4 blocks \(41024 bytes\) allocated by the program. PEs? 1(-3)?: collective memory call 4: a free of the 4096-byte block at heap offset 0x[0-9a-f]+, with 3 blocks \(36928 bytes\) allocated by the program\)\. Every PE must make the same]=] --)
ushmem_mpi_test(robust_heap_sizes PROGRAM robust ARGS heap_sizes NP 2 4 CONFIGS default tcp LABELS "errors;robust"
                WRAPPER ${_ex} --status nonzero
                        [=[ushmem: shmem_malloc \(PE 0 of [24]\): the symmetric heap is no longer the same on every PE: the PEs' collective memory calls do not match \(PE 0: collective memory call 3: an allocation of 100000 bytes \(alignment 64\), with 3 blocks \(132864 bytes\) allocated by the program. PE 1: collective memory call 3: an allocation of 200000 bytes \(alignment 64\), with 3 blocks \(232832 bytes\)]=] --)
# A block freed on PE 0 only, then an allocation everywhere: ends at once, with SHMEM_DEBUG=1 too
# (issue #48, item 3: its argument check was an MPI exchange that PE 0, in the free's heap check,
# never joined, so the job hung until killed). Within 20 s: the PEs wait for no timeout here.
foreach(debug 0 1)
  ushmem_mpi_test(robust_heap_free_one_debug${debug} PROGRAM robust ARGS heap_free_one NP 2 4 CONFIGS default tcp
                  ENV SHMEM_DEBUG=${debug} ENV_UNSET USHMEM_WAIT_TIMEOUT LABELS "errors;robust"
                  WRAPPER ${_ex} --status nonzero --within 20
                          [=[ushmem: shmem_free \(PE 0 of [24]\): the symmetric heap is no longer the same on every PE: the PEs' collective memory calls do not match \(PE 0: collective memory call 4: a free of the 4096-byte block at heap offset 0x[0-9a-f]+, with 3 blocks \(36928 bytes\) allocated by the program. PEs? 1(-3)?: collective memory call 4: an allocation of 4096 bytes \(alignment 64\), with 4 blocks \(41024 bytes\) allocated by the program\)\. Every PE must make the same]=] --)
endforeach()
ushmem_mpi_test(robust_heap_ok PROGRAM robust ARGS heap_ok NP 1 2 4 CONFIGS default tcp LABELS robust)

# ---- 7. shmem_align with an alignment no block can meet blames the alignment.
ushmem_mpi_test(robust_align_huge PROGRAM robust ARGS align_huge NP 1 2 CONFIGS default LABELS "errors;robust"
                WRAPPER ${_ex} --status 0
                        [=[ushmem: shmem_align \(PE 0 of [12]\): cannot allocate 64 bytes aligned to 1099511627776 bytes \(1\.0 TiB\): no free block of the symmetric heap \(SHMEM_SYMMETRIC_SIZE=67108864, largest free block [0-9]+ bytes\) contains an address with that alignment followed by 64 bytes. ask for a smaller alignment]=] --)

# ---- C++ (cxx_robust.cpp): the messages of item 7, and a symmetric<> unwound on one PE only (6).
ushmem_cxx_program(cxx_robust)
ushmem_mpi_test(cxx_robust_messages PROGRAM cxx_robust ARGS messages NP 1 2 CONFIGS default tcp
                ENV USHMEM_HEAP_GROW=0 LABELS "cpp;robust")  # (the fixed heap's messages)
ushmem_mpi_test(cxx_robust_unwind PROGRAM cxx_robust ARGS unwind NP 2 4 CONFIGS default tcp
                LABELS "cpp;errors;robust"
                WRAPPER ${_ex} --status nonzero
                        [=[ushmem: shmem_malloc \(PE 0 of [24]\): the symmetric heap is no longer the same on every PE: the PEs' collective memory calls do not match \(PE 0: collective memory call 2: an allocation of 80 bytes \(alignment 64\), with 2 blocks \(256 bytes\) allocated by the program. PEs? 1(-3)?: collective memory call 2: a free of the 128-byte block at heap offset 0x[0-9a-f]+, with 1 block \(128 bytes\) allocated by the program\)]=] --)

# ---- 8. A barrier timeout names why a member is missing truthfully (issue #48, item 5): the last
# PE sleeps in user code right after shmem_init, which ended on another team's collective; it was
# described as "in a collective of another team or active set".
ushmem_mpi_test(robust_late_after_init PROGRAM robust ARGS late_after_init NP 2 4 CONFIGS default tcp
                ENV USHMEM_WAIT_TIMEOUT=2 LABELS "errors;robust" TIMEOUT 60
                WRAPPER ${_ex} --status nonzero --within 30 --not [=[another team or active set]=]
                        [=[shmem_barrier_all \(PE [0-2] of ([24])\): timed out after [0-9.]+ s \(USHMEM_WAIT_TIMEOUT\) waiting for a signal from another PE of the team \([24] PEs\). the members keeping it waiting: PE ([13]) \((has entered no collective since shmem_init|no answer: stopped, hung, dead or unreachable)\)\. ]=] --)
