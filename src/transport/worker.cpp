// transport/worker.cpp: creating a worker on the context, the main worker's address, sharing it
// with a progress thread, waiting for requests, and the fire-and-forget completion that records
// errors. (The workers with ushmem's message handlers on them: worker_setup.cpp.)
#include "transport/worker.hpp"

#include "transport/context.hpp"
#include "transport/internal.hpp"
#include "transport/progress.hpp"

#include <sched.h>
#include <sys/eventfd.h>
#include <time.h>

#include <cerrno>
#include <cstring>

namespace ushmem::transport {

ucp_worker_h new_worker(ucs_thread_mode_t mode, std::string &err) {
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = mode;
    ucp_worker_h w = nullptr;
    ucs_status_t st = ucp_worker_create(context(), &wp, &w);
    if (st != UCS_OK) {
        err = std::string("ucp_worker_create: ") + ucs_status_string(st) +
              " (if UCX_SYSV_HUGETLB_MODE=y is set, the huge page pool may be empty)";
        return nullptr;
    }
    return w;
}

bool share_main_worker(std::string &err) {
    // The progress thread's own wake-up (shared_state.hpp, kick_fd).
    detail::shared.kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (detail::shared.kick_fd < 0) {
        err = std::string("eventfd for the progress thread: ") + std::strerror(errno);
        return false;
    }
    detail::shared.main_shared = true;
    return true;
}

std::vector<std::uint8_t> worker_address() {
    ucp_address_t *addr = nullptr;
    size_t len = 0;
    std::vector<std::uint8_t> out;
    if (ucp_worker_get_address(detail::shared.main_worker, &addr, &len) == UCS_OK) {
        out.assign(reinterpret_cast<std::uint8_t *>(addr), reinterpret_cast<std::uint8_t *>(addr) + len);
        ucp_worker_release_address(detail::shared.main_worker, addr);
    }
    return out;
}

// Drives `w` until `request` completes, or (deadline_ns > 0, CLOCK_MONOTONIC) until that time has
// passed; returns its status (UCS_INPROGRESS: given up), and leaves freeing it to the caller.
// Spins briefly, then yields: the peer that must answer may share our core (more PEs than cores),
// and a tight loop would keep it from running.
ucs_status_t drive_request(void *request, ucp_worker_h w, long deadline_ns) {
    ucs_status_t st;
    for (unsigned i = 0; (st = ucp_request_check_status(request)) == UCS_INPROGRESS; ++i) {
        if (progress_both(w) != 0 || i <= 256) continue;
        if (deadline_ns > 0 && now_nanos() > deadline_ns) break;
        sched_yield();
    }
    return st;
}

ucs_status_t wait_and_free(void *request, ucp_worker_h w) {
    const ucs_status_t st = drive_request(request, w, 0);
    request_free(w, request);
    return st;
}

void nbi_completion(void *request, ucs_status_t status, void *) {
    ucs_status_t none = UCS_OK;
    if (status != UCS_OK) detail::shared.async_error.compare_exchange_strong(none, status);
    ucp_request_free(request);
}

ucs_status_t take_async_error() {
    if (detail::shared.async_error.load(std::memory_order_relaxed) == UCS_OK) return UCS_OK;
    return detail::shared.async_error.exchange(UCS_OK);
}

void counted_completion(void *request, ucs_status_t status, void *done_counter) {
    static_cast<std::atomic<std::uint64_t> *>(done_counter)->fetch_add(1, std::memory_order_release);
    nbi_completion(request, status, nullptr);
}


} // namespace ushmem::transport
