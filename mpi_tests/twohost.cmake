# Two simulated hosts (issue #12, item 4): one job across two hosts on this machine, 2 PEs per
# host, so that every job mixes the same-node direct route with UCX tcp between hosts.
# Included from mpi_tests/CMakeLists.txt. ci/cluster.sh (configuration "twohost", see there)
# brings a cluster up around each test and takes it down after, also on failure or timeout; it
# needs root (ci/test.sh runs as root): otherwise every test here is skipped with the reason. When
# root cannot make the namespaces, the tests fail. docs/testing.md explains what this proves.
#   ctest --test-dir BUILD -L twohost
option(USHMEM_TWOHOST_TESTS "Register the tests across two simulated hosts (label twohost)" ON)
if(NOT USHMEM_TWOHOST_TESTS)
  return()
endif()

# RMA, ordering, atomics, signals, point-to-point synchronization, locks, contexts, teams,
# collectives, symmetric allocation, exit with and without finalize, the C++ API (with its remote
# procedure calls), MPI
# interoperability, and the randomized model-checked stress. Timeouts: 3-35 s each on a loaded
# 2-core machine (2 PEs share each host's CPU), wide for the load of CI.
ushmem_mpi_test(setup PROGRAM setup ARGS --config=@CONFIG@ NP 4 CONFIGS twohost LABELS twohost)
foreach(prog rma_typed rma_sized rma_strided rma_nbi order barrier amo signal p2p lock ctx team
             coll_data coll_reduce coll_sync coll_backtoback cxx_api cxx_rpc)
  ushmem_mpi_test(${prog} NP 4 CONFIGS twohost TIMEOUT 300 LABELS twohost)
endforeach()
# Bulk messages between the hosts (each simulated host has more PEs than CPUs, where the default
# leaves them off): forced from 4 KiB on.
foreach(prog coll_data order signal)
  ushmem_mpi_test(${prog}_bulk PROGRAM ${prog} NP 4 CONFIGS twohost ENV USHMEM_BULK_MIN=4K TIMEOUT 300 LABELS twohost)
endforeach()
# Threads of a PE waiting at once where some peers are direct and some over the network (sleeps on
# the core's wake word, woken by whichever thread serves the network): no "missed wake-up" under
# SHMEM_DEBUG (mpi_tests/CMakeLists.txt, ctx_wakeups). Before the fix about one run in three had one.
ushmem_mpi_test(ctx_wakeups PROGRAM ctx NP 4 CONFIGS twohost ENV SHMEM_DEBUG=1 TIMEOUT 300 LABELS twohost)
set_tests_properties(mpi.ctx_wakeups.twohost.np4 PROPERTIES FAIL_REGULAR_EXPRESSION "missed wake-up")
# The collects and alltoalls through the node leaders, which the automatic choice leaves to the
# central exchange here (every simulated host has more PEs than CPUs).
ushmem_mpi_test(coll_data_node PROGRAM coll_data NP 4 CONFIGS twohost ENV USHMEM_COLLECT_ALGO=node TIMEOUT 300
                LABELS twohost)
ushmem_mpi_test(coll_backtoback_node PROGRAM coll_backtoback NP 4 CONFIGS twohost ENV USHMEM_COLLECT_ALGO=node
                TIMEOUT 300 LABELS twohost)
# Reductions through the leaders reading their members' sources in place (USHMEM_REDUCE_ALGO=node),
# which the automatic choice takes only above what the leaders' gather region holds: forced at
# every size, across hosts and back to back.
ushmem_mpi_test(coll_reduce_node PROGRAM coll_reduce ARGS quick NP 4 CONFIGS twohost ENV USHMEM_REDUCE_ALGO=node
                TIMEOUT 300 LABELS twohost)
ushmem_mpi_test(coll_backtoback_reduce_node PROGRAM coll_backtoback ARGS 300 NP 4 CONFIGS twohost
                ENV USHMEM_REDUCE_ALGO=node TIMEOUT 300 LABELS twohost)
# The same where a host's PEs do not reach each other by load/store: the leader gets its members'
# sources (back to back, not the whole coll_reduce: each blocking get there waits for a member that
# sleeps, and its thousands of small reductions took 2.6 minutes).
ushmem_mpi_test(coll_backtoback_reduce_node_nodirect PROGRAM coll_backtoback ARGS 100 NP 4 CONFIGS twohost
                ENV USHMEM_REDUCE_ALGO=node USHMEM_DIRECT=0 TIMEOUT 300 LABELS twohost)
# Those reductions and the alltoalls through the leaders that read their members' rows in place
# (auto above what the leaders' gather holds) with a 4 KiB scratch: chunks of 256 bytes, many
# rounds, blocks split across chunks; and the alltoalls with gets where a host's PEs are not
# direct.
ushmem_mpi_test(coll_reduce_node_small PROGRAM coll_reduce ARGS quick NP 4 CONFIGS twohost
                ENV USHMEM_REDUCE_ALGO=node USHMEM_TEAM_SCRATCH=4K USHMEM_WORLD_SCRATCH=0 TIMEOUT 300 LABELS twohost)
ushmem_mpi_test(coll_data_node_small PROGRAM coll_data ARGS quick NP 4 CONFIGS twohost
                ENV USHMEM_COLLECT_ALGO=node USHMEM_TEAM_SCRATCH=4K USHMEM_WORLD_SCRATCH=0 TIMEOUT 300 LABELS twohost)
ushmem_mpi_test(coll_data_node_nodirect PROGRAM coll_data ARGS quick NP 4 CONFIGS twohost
                ENV USHMEM_COLLECT_ALGO=node USHMEM_DIRECT=0 TIMEOUT 300 LABELS twohost)
# Broadcasts forced eager (USHMEM_BCAST_ALGO=eager) across hosts, where the automatic choice keeps
# the node leaders: the mailbox slots up to 128 B and the scratch halves above, a same-host member
# written directly and the other host's through UCX in one call, and back to back.
ushmem_mpi_test(coll_data_bcast_eager PROGRAM coll_data ARGS quick NP 4 CONFIGS twohost ENV USHMEM_BCAST_ALGO=eager
                TIMEOUT 300 LABELS twohost)
ushmem_mpi_test(coll_backtoback_bcast_eager PROGRAM coll_backtoback ARGS 300 NP 4 CONFIGS twohost
                ENV USHMEM_BCAST_ALGO=eager TIMEOUT 300 LABELS twohost)
ushmem_mpi_test(mem ARGS basic calloc align realloc hints random NP 4 CONFIGS twohost
                TIMEOUT 300 LABELS twohost)
ushmem_mpi_test(mem_exhaustion PROGRAM mem ARGS exhaustion NP 4 CONFIGS twohost ENV USHMEM_HEAP_GROW=0
                TIMEOUT 300 LABELS twohost)
ushmem_mpi_test(exit_basic NP 4 CONFIGS twohost LABELS twohost)
# 50 series of shmem_init and shmem_finalize with nothing between: each series' endpoints are first
# used by finalize's barrier. Before finalize flushed every endpoint, UCX aborted a PE at the end
# of some series (a peer gone before an endpoint's wireup reply could be sent): in 3 of 6 runs of
# 40 series and 3 of 4 of 150 (none of 9 since); each series takes about 0.3 s here.
ushmem_mpi_test(setup_cycles PROGRAM setup_nested ARGS cycles 50 NP 4 CONFIGS twohost TIMEOUT 180 LABELS twohost)
ushmem_mpi_test(exit_nofinalize PROGRAM exit_basic ARGS --no-finalize NP 4 CONFIGS twohost LABELS twohost)
ushmem_mpi_test(mpi_interop ARGS world NP 4 CONFIGS twohost LABELS twohost)
# A stopped target on the other host: every wait of the tcp stopped_peer tests (quiet, pe_quiet
# after a packed put_nbi, blocking get, fetching atomic, fence, strided get and put, a private
# context's worker and acknowledgements) times out naming it, as over tcp on one node
# (mpi_tests/CMakeLists.txt, stopped_peer).
foreach(mode ${STOPPED_PEER_MODES})
  stopped_peer_expect(${mode} _expect)
  ushmem_mpi_test(stopped_peer_${mode} PROGRAM stopped_peer ARGS ${mode} NP 2 CONFIGS twohost
                  ENV USHMEM_WAIT_TIMEOUT=2 LABELS "twohost;errors" TIMEOUT 90
                  WRAPPER ${CMAKE_CURRENT_SOURCE_DIR}/expect_error.sh "${_expect}" --)
endforeach()
ushmem_mpi_test(stopped_peer_ctx_destroy PROGRAM stopped_peer ARGS ctx_destroy NP 2 CONFIGS twohost
                ENV USHMEM_WAIT_TIMEOUT=2 LABELS "twohost;errors" TIMEOUT 90
                WRAPPER ${CMAKE_CURRENT_SOURCE_DIR}/expect_error.sh "${STOPPED_PEER_DESTROY_EXPECT}" --)
# Waits on a private context's worker sleep and end with its events (PE 0 computes without a
# progress thread), across hosts: 2 PEs, one per host (at 4, a same-host waiter is answered directly).
ushmem_mpi_test(wait_policy_ctx PROGRAM wait_policy ARGS ctx NP 2 CONFIGS twohost
                ENV USHMEM_PROGRESS_THREAD=off TIMEOUT 120 LABELS "twohost;serial")
ushmem_mpi_test(put_pack_held PROGRAM put_pack ARGS held NP 4 CONFIGS twohost ENV USHMEM_PUT_PACK_HOLD=0 USHMEM_WAIT_TIMEOUT=20 TIMEOUT 300
                LABELS twohost)
ushmem_mpi_test(get_pack_held PROGRAM get_pack ARGS held NP 4 CONFIGS twohost ENV USHMEM_PUT_PACK_HOLD=0 USHMEM_WAIT_TIMEOUT=20 TIMEOUT 300
                LABELS twohost)
# A pack held while its PE computes, sent by the progress thread, across hosts (2 PEs: one per host).
ushmem_mpi_test(pack_hold_blocking PROGRAM pack_hold ARGS blocking 0.2 NP 2 CONFIGS twohost
                ENV USHMEM_PUT_PACK_HOLD=0.2 USHMEM_PUT_PACK_BLOCKING=1 USHMEM_WAIT_TIMEOUT=25 TIMEOUT 300 LABELS twohost)
# Static data registered in place (reached through UCX emulation even on the host) beside a direct
# heap and the other host's tcp: three routes in one job.
foreach(prog amo signal)
  ushmem_mpi_test(${prog}_static_ucx PROGRAM ${prog} NP 4 CONFIGS twohost ENV USHMEM_STATIC_DATA=0
                  TIMEOUT 300 LABELS "twohost;atomics")
endforeach()
ushmem_stress_test(stress twohost 4 50000 twohost)

# ushmem-info shows both kinds of routes (twohost_info.py checks every PE's rows against the
# hosts the PEs run on), in text and in JSON.
if(TARGET ushmem-info AND Python3_FOUND)
  foreach(fmt text json)
    set(_args "")
    if(fmt STREQUAL "json")
      set(_args --json)
    endif()
    math(EXPR _inner "${USHMEM_MPI_TEST_TIMEOUT} - 5")
    add_test(NAME tools.ushmem_info_${fmt}.twohost.np4
             COMMAND ${PROJECT_SOURCE_DIR}/ci/cluster.sh run --timeout ${_inner} --
                     ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/twohost_info.py --
                     ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 ${USHMEM_MPIEXEC_FLAGS}
                     $<TARGET_FILE:ushmem-info> ${_args})
    set_tests_properties(tools.ushmem_info_${fmt}.twohost.np4 PROPERTIES
      ENVIRONMENT "SHMEM_SYMMETRIC_SIZE=64M" TIMEOUT ${USHMEM_MPI_TEST_TIMEOUT} PROCESSORS 4
      SKIP_RETURN_CODE 77 LABELS "mpi;tools;twohost")
  endforeach()
endif()

# A whole host killed (fault_host.sh: every process of its namespaces, SIGKILL) in the middle of
# RMA, atomics, a wait for a flag and collectives: the surviving PEs end the job within seconds
# with ushmem's peer-failure message naming a dead PE (also while they only wait: UCX sees the
# connections to the dead host close while the progress thread polls), and nothing is left.
set(USHMEM_FAULT_HOST_LOOPS 3 CACHE STRING "Runs per phase of the mpi.fault_host_* tests (FAULT_LOOPS overrides)")
foreach(phase rma atomics wait collective)
  ushmem_mpi_test(fault_host_${phase} PROGRAM fault ARGS ${phase} none NP 4 CONFIGS twohost
                  TIMEOUT 600 LABELS "fault;twohost"
                  WRAPPER ${CMAKE_CURRENT_SOURCE_DIR}/fault_host.sh ${USHMEM_FAULT_HOST_LOOPS} 1 --)
endforeach()

# Three simulated hosts, 5 PEs (2, 2 and 1 per host; each host its share of the CPUs): teams whose
# nodes hold unequal numbers of members, a single-member node, and nodes of which some have more
# PEs than CPUs and some not (the sync pattern must still be the same on every member). The
# node-aware collectives (src/core/coll/node.cpp) and every other algorithm the teams there select.
set(USHMEM_MPI_CONFIG_ENV_threehost "")
set(USHMEM_MPI_CONFIG_WRAPPER_threehost ${PROJECT_SOURCE_DIR}/ci/cluster.sh run --hosts 3 --timeout @TIMEOUT@ --)
ushmem_mpi_test(coll_sync NP 5 CONFIGS threehost TIMEOUT 300 LABELS twohost)
# 300 rounds of each back-to-back phase, not 1000: 5 PEs on 2 CPUs across three hosts take ~4 ms
# a collective (61 s for 1000 rounds); the two-host and single-node runs keep the 1000.
ushmem_mpi_test(coll_backtoback PROGRAM coll_backtoback ARGS 300 NP 5 CONFIGS threehost TIMEOUT 300 LABELS twohost)
foreach(prog coll_data coll_reduce)
  ushmem_mpi_test(${prog}_quick PROGRAM ${prog} ARGS quick NP 5 CONFIGS threehost TIMEOUT 300 LABELS twohost)
endforeach()
ushmem_mpi_test(coll_data_node_quick PROGRAM coll_data ARGS quick NP 5 CONFIGS threehost ENV USHMEM_COLLECT_ALGO=node
                TIMEOUT 300 LABELS twohost)
ushmem_mpi_test(coll_reduce_node_quick PROGRAM coll_reduce ARGS quick NP 5 CONFIGS threehost ENV USHMEM_REDUCE_ALGO=node
                TIMEOUT 300 LABELS twohost)

# Every collective back to back with alternating sizes, every algorithm forced by column (see
# mpi_tests/CMakeLists.txt, coll_matrix), and the fence/quiet ordering test, across two hosts.
foreach(_col IN LISTS USHMEM_COLL_MATRIX_COLUMNS)
  string(REPLACE "|" ";" _env "${_col}")
  string(REGEX MATCH "BCAST_ALGO=([a-z]+)" _m "${_env}")
  ushmem_mpi_test(coll_matrix_${CMAKE_MATCH_1} PROGRAM coll_matrix ARGS 20 NP 4 CONFIGS twohost TIMEOUT 300
                  ENV ${_env} LABELS twohost collmatrix)
endforeach()
ushmem_mpi_test(order_flag ARGS 100 NP 4 CONFIGS twohost TIMEOUT 300 LABELS twohost)
# The automatic column beside a busy loop per CPU (the hosts' PEs then outnumber their free CPUs
# further, and their waits' yield windows compete with the loops).
list(GET USHMEM_COLL_MATRIX_COLUMNS 0 _col0)
string(REPLACE "|" ";" _env0 "${_col0}")
ushmem_mpi_test(coll_matrix_load PROGRAM coll_matrix ARGS 20 NP 4 CONFIGS twohost TIMEOUT 300 ENV ${_env0}
                WRAPPER ${CMAKE_CURRENT_SOURCE_DIR}/cpu_load.sh LABELS twohost collmatrix)

# The C++ API's value collectives, dist_object, awaitable waits, then() flattening and
# block-cyclic dist_array (mpi_tests/cxx_values.cpp, issue #52) across two hosts.
if(TARGET mpi_cxx_values)
  foreach(mode reduce broadcast async dist_object wait then_flat cyclic)
    ushmem_mpi_test(cxx_values_${mode} PROGRAM cxx_values ARGS ${mode} NP 4 CONFIGS twohost TIMEOUT 300
                    LABELS twohost cpp)
  endforeach()
endif()
# A heap that grows (issue #51): chunks reached directly on the host and by their rkeys across.
ushmem_mpi_test(heap_grow PROGRAM heap_grow ARGS grow NP 4 CONFIGS twohost
                ENV SHMEM_SYMMETRIC_SIZE=4M USHMEM_HEAP_CHUNK=2M TIMEOUT 300 LABELS "twohost;heap")
ushmem_mpi_test(heap_grow_fail PROGRAM heap_grow ARGS fail NP 4 CONFIGS twohost
                ENV SHMEM_SYMMETRIC_SIZE=4M USHMEM_HEAP_CHUNK=2M USHMEM_HEAP_MAX=16M TIMEOUT 300 LABELS "twohost;heap")
