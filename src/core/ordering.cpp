// fence / quiet / pe_quiet over the per-context completion state.
//
// A UCX put's completion only means the source buffer is free; delivery at the target is
// known only after a flush of the endpoint. So quiet flushes exactly the endpoints of PEs that
// were sent something since the last quiet, and with nothing outstanding it is two loads.
#include "core/runtime.hpp"

namespace ushmem::core {
namespace {

[[noreturn]] void fail_flush(const char *routine, ucs_status_t st) {
    fatal(routine, "completing outstanding operations failed: %s (a peer may have died)",
          ucs_status_string(st));
}
} // namespace

void quiet_slow(const char *routine, context &c) {
    std::unique_lock<std::mutex> g(c.lock, std::defer_lock);
    if (c.thread_safe) g.lock();
    if (c.pending_list.empty()) return;  // another thread flushed them
    ucs_status_t st;
    const ucp_worker_h w = worker_of(c);
    // Flags cleared before the flush: see context::note_pending.
    for (int pe : c.pending_list) __atomic_store_n(&c.pending[std::size_t(pe)], 0, __ATOMIC_RELAXED);
    if (c.pending_list.size() > std::size_t(rt.cfg.quiet_ep_max)) {
        st = transport::flush_worker(w);
    } else {
        ucp_ep_h eps[64];
        std::size_t n = 0;
        st = UCS_OK;
        for (int pe : c.pending_list) {
            eps[n++] = ep_of(c, pe);
            if (n == 64) {
                ucs_status_t s2 = transport::flush_eps(eps, n, w);
                if (s2 != UCS_OK) st = s2;
                n = 0;
            }
        }
        if (n) {
            ucs_status_t s2 = transport::flush_eps(eps, n, w);
            if (s2 != UCS_OK) st = s2;
        }
    }
    c.pending_list.clear();
    if (st == UCS_OK) st = transport::take_async_error();
    if (st != UCS_OK) fail_flush(routine, st);
}

void pe_quiet(const char *routine, context &c, int pe) {
    if (c.direct_dirty.load(std::memory_order_relaxed)) direct_fence();
    if (!__atomic_load_n(&c.pending[std::size_t(pe)], __ATOMIC_RELAXED)) return;
    std::unique_lock<std::mutex> g(c.lock, std::defer_lock);
    if (c.thread_safe) g.lock();
    if (!c.pending[std::size_t(pe)]) return;  // another thread flushed it
    ucp_ep_h ep = ep_of(c, pe);
    __atomic_store_n(&c.pending[std::size_t(pe)], 0, __ATOMIC_RELAXED);  // before the flush
    ucs_status_t st = transport::flush_eps(&ep, 1, worker_of(c));
    for (std::size_t i = 0; i < c.pending_list.size(); ++i)
        if (c.pending_list[i] == pe) {
            c.pending_list[i] = c.pending_list.back();
            c.pending_list.pop_back();
            break;
        }
    if (st == UCS_OK) st = transport::take_async_error();
    if (st != UCS_OK) fail_flush(routine, st);
}

void fence(const char *routine, context &c) {
    if (c.direct_dirty.load(std::memory_order_relaxed)) direct_fence();
    if (c.pending_list.empty()) return;
    // UCX orders operations issued after a worker fence behind those issued before it, but a
    // later direct store or CPU atomic bypasses UCX: when a PE with UCX operations outstanding
    // may also be reached directly (its heap mapped here while its static data goes through
    // UCX, USHMEM_STATIC_DATA=0), only completing them orders what follows. Found by
    // mpi_tests/stress.c (put to static data, fence, atomic set of a heap flag).
    if (rt.cfg.direct) {
        std::unique_lock<std::mutex> g(c.lock, std::defer_lock);
        if (c.thread_safe) g.lock();  // other threads may append to the list
        for (int pe : c.pending_list) {
            const peer &p = rt.peers[std::size_t(pe)];
            for (int s = 0; s < seg_count; ++s) {
                if (!rt.seg[s].mem.memh) continue;
                // Decide an unused segment's route now (once per peer) rather than guess.
                if (p.how[s] == route::unresolved) resolve(routine, pe, seg_id(s));
                if (p.how[s] == route::direct) {
                    if (g.owns_lock()) g.unlock();
                    quiet_slow(routine, c);
                    return;
                }
            }
        }
    }
    transport::fence(worker_of(c));
}

} // namespace ushmem::core
