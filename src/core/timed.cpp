// Non-blocking per-PE completion test (see timed.hpp), the testing form of the per-PE completion
// routine (ordering.hpp: count_owed, owed_answered; pe_quiet completes).
//
// A quiet cannot be interrupted once ucp_ep_flush_nbx's request is waited for, so the test posts
// the flush with a callback and only polls: the callback records the outcome in a probe slot
// (one per context and PE) and frees the request, so an abandoned test (a timed wait that threw)
// leaves nothing for UCX to complain about at finalize. Completion of the flush covers every
// operation issued before it; the slot is then consumed and pe_quiet (which finds nothing left
// to flush unless more was issued meanwhile) clears the PE's pending state.
#include "core/timed.hpp"
#include "core/context.hpp"
#include "core/lanes.hpp"
#include "core/ordering.hpp"
#include "transport/transport.hpp"
#include "util/lazy_array.hpp"

#include <memory>
#include <unordered_map>

namespace ushmem::core {
namespace {

enum : int { probe_idle = 0, probe_in_flight = 1, probe_done = 2 };

static_assert(probe_idle == 0, "a lazily committed slot reads as idle");
struct probes {
    util::lazy_array<std::atomic<int>> slot;  // per PE (zero: probe_idle)
};

// Keyed by context address. A context destroyed while its flush is in flight leaves a slot that
// a later context at the same address may find "done": it then runs a (blocking) pe_quiet, which
// is always correct. Entries are never removed: one per context ever tested, npes ints each.
std::mutex g_probe_lock;
std::unordered_map<const context *, probes> g_probes;

std::atomic<int> &slot_of(const context &c, int pe) {
    std::lock_guard<std::mutex> g(g_probe_lock);
    probes &p = g_probes[&c];
    if (!p.slot) p.slot.reset(std::size_t(rt.npes));
    return p.slot[std::size_t(pe)];
}

} // namespace

bool pe_test(const char *routine, context &c, int pe) {
    if (c.direct_dirty.load(std::memory_order_relaxed)) direct_fence();
    settle_pack(routine, c, pe);
    const std::uint8_t bits = __atomic_load_n(&c.pending[std::size_t(pe)], __ATOMIC_RELAXED);
    if (!bits) return true;
    if (bits & (pend_acks | pend_gets)) {
        // Acknowledged messages (context::acked_msgs): done once every one counted so far is in;
        // get batches (put_pack.cpp): once every get counted issued so far has its reply. The
        // per-PE completion's test (ordering.hpp); the bits stay set until pe_quiet below.
        pe_owed o{pe, bits, 0, 0};
        count_owed(c, &o, 1);
        if (!owed_answered(c, o)) {
            transport::progress_both(worker_of(c));
            if (!owed_answered(c, o)) return false;
        }
        if (!(bits & pend_flush)) {
            pe_quiet(routine, c, pe);  // clears the flag; its wait finds the acknowledgements in
            return true;
        }
    }
    std::atomic<int> &s = slot_of(c, pe);
    const transport::worker_h w = worker_of(c);
    int st = s.load(std::memory_order_acquire);
    if (st == probe_idle) {
        transport::ep_h ep;
        {
            std::unique_lock<std::mutex> g(c.lock, std::defer_lock);
            if (c.thread_safe) g.lock();
            ep = ep_of(c, pe);
        }
        s.store(probe_in_flight, std::memory_order_relaxed);
        // Its completion stores probe_done (an error status too: the pe_quiet that follows
        // reports the transport's error with its own message).
        void *r = transport::ep_flush_then_store<probe_done>(w, ep, &s);
        if (r == nullptr || transport::is_error(r)) {
            // Complete at once (or failed: pe_quiet reports it).
            s.store(probe_idle, std::memory_order_relaxed);
            pe_quiet(routine, c, pe);
            return true;
        }
        st = probe_in_flight;
    }
    if (st == probe_in_flight) {
        transport::progress_both(w);
        st = s.load(std::memory_order_acquire);
        if (st == probe_in_flight) return false;
    }
    s.store(probe_idle, std::memory_order_relaxed);
    pe_quiet(routine, c, pe);
    return true;
}

} // namespace ushmem::core
