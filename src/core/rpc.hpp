// core/rpc.hpp: remote procedure calls: the function table (registered by the C++ API at static
// initialization), dispatch of the calls that arrive (queued by the transport's handler, run at
// this PE's next rpc_point), and the requests this PE awaits with their replies.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ushmem::core {

// The program's side of a function (include/ushmem/rpc.hpp makes one per function): decodes the
// argument bytes, calls the function and encodes its result into *reply (malloc'd; *reply_n
// bytes). Returns 0 (done), 1 (the function threw: *reply is the what() text) or 2 (malformed
// arguments: *reply says what). Never throws.
using rpc_trampoline = int (*)(const void *args, std::size_t n, void **reply, std::size_t *reply_n);

// Registers a function, at any time (the C++ API does it during static initialization, before
// main). `signature`: a hash of its parameter and result types, checked by the target against its
// own entry; `name` (kept) for messages; `key`: what the program holds to name it at run time (a
// function's address), or nullptr. Returns 0, or -1 when out of memory.
int rpc_register(rpc_trampoline fn, std::uint64_t signature, const char *name, const void *key);
// The function's id: its position in the table, which is sorted at shmem_init by (module, offset
// in the module) of the trampolines, so identical on every PE of the same binary whatever the
// order of static initialization. UINT32_MAX when not registered. `by_key`: look `fn` up as a key.
std::uint32_t rpc_id(const void *fn_or_key, bool by_key);

// init: the handlers and the runner (before the worker exists); finalize: calls still queued are
// refused, requests still awaited are forgotten.
void rpc_init();
void rpc_finalize();

// Sends a call of function `fn` with n bytes of arguments to `pe` (checked by the caller). Returns
// the request's id (0 for a call without reply, `want_reply` false).
std::uint64_t rpc_send(const char *routine, int pe, std::uint32_t fn, const void *args, std::size_t n,
                       bool want_reply);
// Progresses (an rpc_point: this PE's queued calls run) and tests the request: 1 when its reply
// arrived (the request is then forgotten; *reply is malloc'd, the caller frees it), else 0.
int rpc_test(std::uint64_t request, void **reply, std::size_t *n, int *status);
// The request's reply will not be awaited (an event destroyed first): dropped when it arrives.
void rpc_cancel(std::uint64_t request);
// Progresses as an rpc_point.
void rpc_progress();

} // namespace ushmem::core
