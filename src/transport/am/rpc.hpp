// transport/am/rpc.hpp: remote procedure calls on the wire: sending requests and replies, the
// handlers that hand them to the core, and where the core's queued calls may run (rpc_point).
#pragma once

#include "transport/am/wire.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ushmem::transport {

// Run in the progress of the main worker (the PE's or the progress thread's), inside UCX's
// callback: they copy what they need and return. The core installs them before create_worker().
using rpc_request_handler = void (*)(const rpc_header &h, const void *data, std::size_t n);
using rpc_reply_handler = void (*)(const rpc_reply_header &h, const void *data, std::size_t n);
void set_rpc_handlers(rpc_request_handler request, rpc_reply_handler reply);

// Sends a request (or a reply) to PE `to` on the main worker, fire and forget: header and data are
// copied first (the caller never waits for the message to leave), through this PE's own endpoint
// to `to` (the acknowledgements' endpoint, created when there is none): a reply is sent after the
// handler returned, when UCX's reply endpoint is no longer valid. nullptr, or why it could not be
// issued. Called outside the worker's lock, never from inside a handler.
const char *rpc_request_nbx(std::uint32_t to, const rpc_header &h, const void *data, std::size_t n);
const char *rpc_reply_nbx(std::uint32_t to, const rpc_reply_header &h, const void *data, std::size_t n);

// ---- where queued calls run ------------------------------------------------------------------
// The functions of remote procedure calls are the program's code, which may call the library. They
// never run inside UCX's callbacks (UCX forbids re-entering the worker), nor inside a library
// operation whose state they could change (a quiet that clears its list of PEs after its wait
// would forget the puts a function issued meanwhile): only on a thread inside an rpc_point (a wait
// on memory, a barrier, a test of an RPC, shmemx_progress), where the library holds nothing, or on
// the progress thread when the program allows it (set_rpc_runner's on_server: SHMEM_THREAD_MULTIPLE).
// `run` is the core's: it runs the queued calls.
void set_rpc_runner(void (*run)(), bool on_server);
namespace detail {
// Set by the core when it queues a call (one relaxed load on every progress() when none is).
inline std::atomic<bool> rpc_queued{false};
// This thread is inside an rpc_point (nesting counted). The default TLS model, not initial-exec:
// an initial-exec variable puts the library's whole TLS block (4 KiB, log.cpp's last message) in
// the static TLS surplus, which a library loaded by dlopen (Python, ctypes) does not get ('cannot
// allocate memory in static TLS block': mpi.dlopen*). Entry and exit of a wait or a barrier can
// pay the TLS lookup.
inline thread_local int rpc_points = 0;
} // namespace detail
void run_rpcs_slow();
// After a progress call: runs the queued calls if this thread may (see above).
inline void run_rpcs() {
    if (__builtin_expect(detail::rpc_queued.load(std::memory_order_relaxed), 0)) run_rpcs_slow();
}
// The entry points that are safe places for the program's functions (api/: waits on memory,
// barrier_all and sync_all after their quiet, team_sync, the RPC calls) hold one while they run.
struct rpc_point {
    rpc_point() noexcept { ++detail::rpc_points; }
    ~rpc_point() { --detail::rpc_points; }
    rpc_point(const rpc_point &) = delete;
    rpc_point &operator=(const rpc_point &) = delete;
};
// serve() (progress_thread.cpp): the progress thread is no rpc_point; marks it so.
void rpc_mark_server_thread();

} // namespace ushmem::transport
