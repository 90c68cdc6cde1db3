// ushmem transport: everything that calls UCX. The core drives it through these functions and
// the few inline data-path calls below; it never includes <ucp/api/ucp.h> itself for anything
// but the handle types.
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ushmem::transport {

struct memory {
    ucp_mem_h memh = nullptr;
    void *address = nullptr;
    std::size_t length = 0;
    bool allocated = false;  // UCX allocated it (true one-sided access on the node)
};

struct lanes_info {
    bool has_shared_memory_rma = false;  // sysv/posix: one-sided on the node
    bool has_network_rdma = false;       // rc/dc/...: one-sided across nodes
    std::string resources;               // transport names, for SHMEM_INFO
};

// The UCX context; lanes() is known after it.
bool init(std::string &err);
// The worker. `multi_thread`: thread mode MULTI (SHMEM_THREAD_MULTIPLE, or a progress thread
// sharing the worker); otherwise SINGLE, which costs the same as SERIALIZED.
bool create_worker(bool multi_thread, std::string &err);
void finalize();  // worker and context; everything else must already be released
// A further worker on the same UCX context, for a communication context that needs its own
// completion (core::context_lanes). Not driven by the progress thread.
ucp_worker_h create_extra_worker(bool multi_thread, std::string &err);
void destroy_extra_worker(ucp_worker_h w);
ucp_context_h context();
ucp_worker_h worker();
const lanes_info &lanes();

std::vector<std::uint8_t> worker_address();

// UCX-allocated memory at `addr` (exactly there if `fixed`). Contents are not preserved.
bool map_allocate(void *addr, std::size_t len, bool fixed, memory &m, std::string &err);
// Like map_allocate, but UCX's own error messages are suppressed while it runs. Used for the
// static data, where UCX first tries huge pages at an address that cannot take them and logs
// an error before falling back to small pages (the fallback is the expected outcome), and where
// nothing may print while the program's data is being moved.
bool map_allocate_quiet(void *addr, std::size_t len, bool fixed, memory &m, std::string &err);
// Register memory the program already owns (reachable through UCX, emulated on the node).
bool map_register(void *addr, std::size_t len, memory &m, std::string &err);
void unmap(memory &m);
std::vector<std::uint8_t> pack_rkey(const memory &m);

// Endpoints and remote keys, created on first use by the core. With `detect_failure` (and a
// handler set) the endpoint asks UCX for peer-failure detection, UCP_ERR_HANDLING_MODE_PEER, and
// `handler(peer_id, status)` runs from progress when UCX finds the peer gone (keepalive,
// connection reset). UCX 1.13's shared-memory transports (sysv, posix, cma) cannot detect a dead
// peer, so such an endpoint gives them up for tcp: the core asks for it only where the lanes are
// network ones anyway.
ucp_ep_h connect(ucp_worker_h w, const std::uint8_t *worker_addr, int peer_id, bool detect_failure,
                 std::string &err);
inline ucp_ep_h connect(const std::uint8_t *worker_addr, int peer_id, bool detect_failure, std::string &err) {
    return connect(worker(), worker_addr, peer_id, detect_failure, err);
}
using peer_failure_handler = void (*)(int peer_id, ucs_status_t status);
void set_peer_failure_handler(peer_failure_handler handler);
// Stop reporting peer failures (finalize: peers closing their endpoints are not failures).
void mute_peer_failures();
ucp_rkey_h unpack_rkey(ucp_ep_h ep, const std::uint8_t *packed, std::string &err);
void *rkey_ptr(ucp_rkey_h rkey, std::uint64_t remote_addr);  // nullptr when not mappable
void destroy_rkey(ucp_rkey_h rkey);
// Close endpoints in flush mode, driving progress until all are closed.
void close_endpoints(std::vector<ucp_ep_h> &eps, ucp_worker_h w);
inline void close_endpoints(std::vector<ucp_ep_h> &eps) { close_endpoints(eps, worker()); }

// Progress and completion. The forms with a worker drive that worker (a context's own) and the
// main one.
// Heartbeat of the PE's own progress calls (a plain relaxed counter: lost increments do not
// matter): the progress thread stays out of the worker while the PE drives it itself, since two
// threads on one MULTI worker mostly wait for each other's lock.
extern std::atomic<unsigned> progress_heartbeat;
inline unsigned progress() {
    progress_heartbeat.store(progress_heartbeat.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return ucp_worker_progress(worker());
}
// For the progress thread: no heartbeat.
inline unsigned progress_background() { return ucp_worker_progress(worker()); }
unsigned progress_both(ucp_worker_h w);
// Wait for a request returned by a *_nbx call (not NULL, not an error), then free it.
ucs_status_t wait(void *request, ucp_worker_h w);
inline ucs_status_t wait(void *request) { return wait(request, worker()); }
// Flush the endpoints given (ucp_ep_flush_nbx on each, then wait for all).
ucs_status_t flush_eps(const ucp_ep_h *eps, std::size_t n, ucp_worker_h w);
inline ucs_status_t flush_eps(const ucp_ep_h *eps, std::size_t n) { return flush_eps(eps, n, worker()); }
ucs_status_t flush_worker(ucp_worker_h w);
inline ucs_status_t flush_worker() { return flush_worker(worker()); }
inline void fence(ucp_worker_h w) { ucp_worker_fence(w); }
inline void fence() { fence(worker()); }

// The callback for fire-and-forget requests (nbi operations): completion is observed through
// endpoint or worker flush, so the callback only records an error and frees the request.
void nbi_completion(void *request, ucs_status_t status, void *user_data);
// First error reported by a fire-and-forget request, UCS_OK if none.
ucs_status_t take_async_error();

} // namespace ushmem::transport
