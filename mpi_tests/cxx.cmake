# C++ API tests (<ushmem/ushmem.hpp>): C++ programs, registered like the C ones
# (mpi.cxx_<name>.<config>.np<N>, label "cpp" as well).
function(ushmem_cxx_program prog)
  add_executable(mpi_${prog} ${prog}.cpp)
  set_target_properties(mpi_${prog} PROPERTIES OUTPUT_NAME ${prog})
  target_include_directories(mpi_${prog} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(mpi_${prog} PRIVATE ushmem ${ARGN})
endfunction()

foreach(prog cxx_api cxx_unwind cxx_compose cxx_dist cxx_ops)
  ushmem_cxx_program(${prog})
  ushmem_mpi_test(${prog} LABELS cpp)
endforeach()

# Timeouts that fire and the same bounded calls succeeding (mpi_tests/cxx_timeout.cpp; the origin
# coordinates the computing PEs through MPI, so at least 2 PEs). An RMA wait times out only when
# the target's computing keeps the origin's operations from completing: with every RMA
# software-emulated (tcp) and no progress thread, so cxx_timeout_rma runs in that one
# configuration. Collectives time out anywhere: cxx_timeout_coll (two-PE teams), and one run per
# world-team call, since each leaves the world team unusable on the PE that timed out.
ushmem_cxx_program(cxx_timeout MPI::MPI_C)
ushmem_mpi_test(cxx_timeout_rma PROGRAM cxx_timeout ARGS rma NP 2 4 CONFIGS tcp
                ENV USHMEM_PROGRESS_THREAD=off LABELS cpp)
foreach(mode coll world_barrier world_alloc world_free)
  ushmem_mpi_test(cxx_timeout_${mode} PROGRAM cxx_timeout ARGS ${mode} NP 2 4 LABELS cpp)
endforeach()

# Misuse that must not compile (mpi_tests/cxx_misuse.cpp): each case is compiled on its own
# (-fsyntax-only) and passes when the compiler's output carries the API's message and is short
# (at most USHMEM_CXX_MISUSE_MAX_LINES lines: the message must not drown in overload candidates, as
# fetch_add on a double did in some 450 lines, issue #52); the control (no case) must compile, so
# that a case fails for its misuse, not for a broken include path.
set(USHMEM_CXX_MISUSE_MAX_LINES 40)
set(USHMEM_CXX_MISUSE_CASES
  "put_double_into_int|the value's type would be converted with loss to the element type"
  "put_long_into_int|the value's type would be converted with loss to the element type"
  "fetch_add_double_into_long|the value's type would be converted with loss to the element type"
  "sym_ptr_put_double|the value's type would be converted with loss to the element type"
  "batch_add_double|the value's type would be converted with loss to the element type"
  "reduce_bit_and_double|reduce<bit_and/bit_or/bit_xor> needs an unsigned or fixed-width integer"
  "fetch_add_double_type|atomic fetch_add is not supported for this type"
  "translate_as_int|std::optional<int>"
  "value_event_then_lvalue|value_event::then moves the event (its value slot is not copyable): write std::move(e).then(f)"
  "dist_object_string|dist_object<T> needs a trivially copyable T"
  "rpc_capture|the function must not capture anything"
  "rpc_pointer_argument|a parameter type cannot travel")
set(misuse_cmd ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only -I${PROJECT_SOURCE_DIR}/include)
add_test(NAME cxx_misuse.control COMMAND ${misuse_cmd} ${CMAKE_CURRENT_SOURCE_DIR}/cxx_misuse.cpp)
set_tests_properties(cxx_misuse.control PROPERTIES LABELS "unit;cpp" TIMEOUT 120)
foreach(entry IN LISTS USHMEM_CXX_MISUSE_CASES)
  string(FIND "${entry}" "|" bar)
  string(SUBSTRING "${entry}" 0 ${bar} case)
  math(EXPR from "${bar} + 1")
  string(SUBSTRING "${entry}" ${from} -1 message)
  add_test(NAME cxx_misuse.${case}
           COMMAND ${CMAKE_COMMAND} "-DCOMPILE=${misuse_cmd};-DMISUSE_${case};${CMAKE_CURRENT_SOURCE_DIR}/cxx_misuse.cpp"
                   "-DMESSAGE=${message}" -DMAX_LINES=${USHMEM_CXX_MISUSE_MAX_LINES}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cxx_misuse_check.cmake)
  set_tests_properties(cxx_misuse.${case} PROPERTIES LABELS "unit;cpp" TIMEOUT 120)
endforeach()

# The complete examples of docs/cpp.md for the second step of the API (examples/cpp/: coroutines,
# composition, dist_array with batches, multi-flag waits) at every PE count and configuration:
# each checks its own results (exit status).
foreach(ex coro_overlap compose_fetches dist_histogram wait_flags values)
  add_executable(mpi_cxx_example_${ex} ${PROJECT_SOURCE_DIR}/examples/cpp/${ex}.cpp)
  set_target_properties(mpi_cxx_example_${ex} PROPERTIES OUTPUT_NAME cxx_example_${ex})
  target_include_directories(mpi_cxx_example_${ex} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(mpi_cxx_example_${ex} PRIVATE ushmem)
  ushmem_mpi_test(cxx_example_${ex} LABELS cpp)
endforeach()

# The states a new user reaches (issue #52; mpi_tests/cxx_states.cpp): a failed then(), a
# moved-from value_event, a polling loop of co_await yield_now() (timed: 1000 rounds of a token
# ring under 3 s), co_await within on a completion of the program's own, collectives on a team
# this PE is not in (needs 2 PEs to have one; at 1 PE the mode says so and passes), and the text
# of size and index errors. Every mode at 1, 2 and 4 PEs, default and tcp.
ushmem_cxx_program(cxx_states)
foreach(mode failed_then moved_from yield within nonmember messages)
  ushmem_mpi_test(cxx_states_${mode} PROGRAM cxx_states ARGS ${mode} NP 1 2 4 CONFIGS default tcp LABELS cpp)
endforeach()

# Issue #52, items 9 to 12 (mpi_tests/cxx_values.cpp): value collectives (reduce_all, broadcast and
# their deferred _async forms, on the world, shared and split teams), dist_object, awaitable waits
# (wait_until_async, signal_wait_until_async under the coroutine driver), then() flattening an
# event-returning continuation, block-cyclic dist_array with inc/add. Each at 1, 2 and 4 PEs,
# default and tcp, checking values.
ushmem_cxx_program(cxx_values)
foreach(mode reduce broadcast async dist_object wait then_flat cyclic)
  ushmem_mpi_test(cxx_values_${mode} PROGRAM cxx_values ARGS ${mode} NP 1 2 4 CONFIGS default tcp LABELS cpp)
endforeach()

# Remote procedure calls (mpi_tests/cxx_rpc.cpp): values, spans, strings, void functions,
# fire-and-forget counting, a callee's exception, a bad PE, unknown and malformed calls, a
# distributed hash table, every PE calling every PE at once. "mt": SHMEM_THREAD_MULTIPLE with a
# progress thread, whose PE 1 computes while PE 0 calls it (its progress thread runs the function).
ushmem_cxx_program(cxx_rpc)
ushmem_mpi_test(cxx_rpc NP 1 2 4 CONFIGS default tcp LABELS cpp)
ushmem_mpi_test(cxx_rpc_mt PROGRAM cxx_rpc ARGS mt NP 2 4 CONFIGS default tcp ENV USHMEM_PROGRESS_THREAD=on LABELS cpp)
