// transport/internal.hpp: what the transport's own files share and the core never sees: the
// worker factory, the main worker's wakeup fd, the clock, request driving, the thread's own-wait
// worker, and the kick that sends a sleeping progress thread to park.
#pragma once

#include "transport/shared_state.hpp"
#include "util/clock.hpp"

#include <ucp/api/ucp.h>

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

namespace ushmem::transport {

// A worker on the UCX context (worker.cpp).
ucp_worker_h new_worker(ucs_thread_mode_t mode, std::string &err);
// The main worker's wakeup fd (-1: none), fetched once per worker for serve() and
// sleep_for_events() (sleep.cpp).
int main_efd();
using util::now_nanos;  // the library's one clock (util/clock.hpp)
// Drives `w` until `request` completes, or (deadline_ns > 0, CLOCK_MONOTONIC) until that time has
// passed; returns its status (UCS_INPROGRESS: given up), and leaves freeing it to the caller
// (worker.cpp).
ucs_status_t drive_request(void *request, ucp_worker_h w, long deadline_ns);
// The context's own worker that this thread waits on (own_wait_scope, sleep.cpp), or nullptr.
// Read by am/acks.cpp too (no signal to the worker this thread itself waits on), which sleep.cpp
// calls: defined here, inline, so that neither file calls the other for it.
inline thread_local ucp_worker_h t_own_wait = nullptr;

// Ends the progress thread's sleep in poll() (serve()): its own eventfd (shared_state.hpp,
// kick_fd: nobody else reads it, so the wake-up cannot be drained on its way). Inline: the PE's
// progress (progress.cpp) and the thread's own file both use it, and neither calls the other.
inline void wake_server() {
    const int fd = detail::shared.kick_fd;
    if (fd < 0) return;  // no progress thread
    const std::uint64_t one = 1;
    while (write(fd, &one, sizeof one) < 0 && errno == EINTR) {
    }
}
// The progress thread asleep in poll() on the worker's fd is woken to park (kicked). One load
// when it is not asleep there. (Inline: the PE's progress_shared() calls it on every progress.)
static inline void kick_server() {
    int polling = detail::srv_polling;
    if (__builtin_expect(detail::shared.serve_state.load(std::memory_order_relaxed) == detail::srv_polling, 0) &&
        detail::shared.serve_state.compare_exchange_strong(polling, detail::srv_kicked))
        wake_server();
}
// Set by a PE that blocks in a wait (pe_blocking), cleared by its next progress call: the

} // namespace ushmem::transport
