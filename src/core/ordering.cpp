// fence / quiet / pe_quiet over the per-context completion state, and the per-PE completion
// routine that quiet_slow, pe_quiet and pe_test (timed.cpp) share (ordering.hpp, pe_owed).
//
// A UCX put's completion only means the source buffer is free; delivery at the target is
// known only after a flush of the endpoint. So quiet flushes exactly the endpoints of PEs that
// were sent something since the last quiet, and with nothing outstanding it is two loads.
#include "core/context.hpp"
#include "core/lanes.hpp"
#include "core/log.hpp"
#include "core/ordering.hpp"
#include "core/peers.hpp"
#include "core/put_pack.hpp"
#include "core/route.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"
#include "core/wait_missing.hpp"
#include "transport/transport.hpp"

#include <cstdint>
#include <vector>

namespace ushmem::core {
namespace {

[[noreturn]] void fail_flush(const char *routine, transport::status st) {
    fatal(routine, "completing outstanding operations failed: %s (a peer may have died)",
          transport::status_string(st));
}
} // namespace

namespace {
// A list that lives on the stack up to N entries (no allocation on a put + quiet), then moves to
// the heap, contiguous either way.
template <class T, std::size_t N = 32>
class short_list {
public:
    void push(const T &v) {
        if (n_ < N) {
            stack_[n_] = v;
        } else {
            if (n_ == N) heap_.assign(stack_, stack_ + N);
            heap_.push_back(v);
        }
        ++n_;
    }
    T *begin() { return n_ > N ? heap_.data() : stack_; }
    T *end() { return begin() + n_; }
    std::size_t size() const { return n_; }

private:
    T stack_[N];
    std::vector<T> heap_;
    std::size_t n_ = 0;
};

} // namespace

// ---- the per-PE completion (ordering.hpp): quiet_slow, pe_quiet and pe_test ---------------------

void count_owed(const context &c, pe_owed *o, std::size_t n) {
    bool answers = false;
    for (std::size_t i = 0; i < n && !answers; ++i) answers = (o[i].bits & (pend_acks | pend_gets)) != 0;
    if (!answers) return;
    // The counts read after the clearing stores of the bits (context::note_pending).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const std::atomic<std::uint64_t> *sent = acks_sent_of(c);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t pe = std::size_t(o[i].pe);
        if (o[i].bits & pend_acks) o[i].acks = sent[pe].load(std::memory_order_acquire);
        if (o[i].bits & pend_gets) o[i].gets = c.reply_issued(o[i].pe).load(std::memory_order_relaxed);
    }
}

bool owed_answered(const context &c, const pe_owed &o) {
    return (!(o.bits & pend_acks) || acks_answered(c, o.pe, o.acks)) &&
           (!(o.bits & pend_gets) || gets_answered(c, o.pe, o.gets));
}

namespace {
bool all_answered(const context &c, const pe_owed *o, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        if (!owed_answered(c, o[i])) return false;
    return true;
}
struct owed_wait {
    const context *c;
    const pe_owed *o;
    std::size_t n;
    const char *op;
};
// The timeout's text: the PEs whose acknowledgements or replies are missing.
void describe_owed(const void *arg, char *buf, std::size_t len) {
    const auto &w = *static_cast<const owed_wait *>(arg);
    missing_pes pes;
    for (std::size_t i = 0; i < w.n; ++i)
        if (!owed_answered(*w.c, w.o[i])) pes.add(w.o[i].pe);
    describe_no_answer(buf, len, w.op, pes);
}
// Waits for the acknowledgements and replies (after the flushes, which ran meanwhile: both are
// round trips). A context's own worker is driven here too, as await_requests does (wait_for drives
// the main one, where the acknowledgements arrive, or, ack_reply, on the context's worker).
void await_answers(const char *routine, context &c, const pe_owed *o, std::size_t n, const char *op) {
    if (all_answered(c, o, n)) return;
    bool remote = true;
    for (std::size_t i = 0; i < n && remote; ++i)
        if (o[i].bits & (pend_acks | pend_gets)) remote = on_other_node(o[i].pe);
    const owed_wait w{&c, o, n, op};
    const transport::worker_h own = c.own_worker ? worker_of(c) : nullptr;
    const transport::own_wait_scope sleeps_watch(own);
    wait_for(
        routine, op,
        [&c, o, n, own] {
            if (all_answered(c, o, n)) return true;
            if (own) transport::progress_worker(own);
            return all_answered(c, o, n);
        },
        false, remote, describe_owed, &w);
}
} // namespace

transport::status complete_owed(const char *routine, context &c, pe_owed *o, std::size_t n, std::size_t ep_max,
                                const char *op) {
    count_owed(c, o, n);
    transport::status st = transport::status_ok;
    const transport::worker_h w = worker_of(c);
    short_list<pending_request> reqs;
    auto add = [&](void *r, int pe) {
        if (r == nullptr) return;  // nothing was outstanding there
        if (transport::is_error(r)) {
            if (st == transport::status_ok) st = transport::error_of(r);
            return;
        }
        reqs.push({r, pe});
    };
    std::size_t flushes = 0;
    for (std::size_t i = 0; i < n; ++i) flushes += (o[i].bits & pend_flush) ? 1 : 0;
    if (flushes > ep_max) {
        add(transport::worker_flush(w), -1);
    } else if (flushes) {
        for (std::size_t i = 0; i < n; ++i)
            if (o[i].bits & pend_flush) add(transport::ep_flush(w, ep_of(c, o[i].pe)), o[i].pe);
    }
    if (reqs.size()) {
        const transport::status s2 = await_requests(routine, c, reqs.begin(), reqs.size(), op);
        if (st == transport::status_ok) st = s2;
    }
    await_answers(routine, c, o, n, op);
    return st;
}

void quiet_slow(const char *routine, context &c) {
    settle_packs(routine, c);  // (packing is off where other threads share the context)
    std::unique_lock<std::mutex> g(c.lock, std::defer_lock);
    if (c.thread_safe) g.lock();
    if (c.pending_list.empty()) return;  // another thread flushed them
    // Flags cleared before the flush and before the acknowledgement counts are read: see
    // context::note_pending (complete_owed's fence orders the clearing stores before the counts'
    // loads).
    short_list<pe_owed> owed;
    for (int pe : c.pending_list) {
        std::uint8_t &f = c.pending[std::size_t(pe)];
        std::uint8_t bits = __atomic_load_n(&f, __ATOMIC_RELAXED);
        __atomic_store_n(&f, std::uint8_t(0), __ATOMIC_RELAXED);
        // Listed with no bit: a quiet that ended by an exception (a C++ deadline) after clearing
        // it. Whatever it was, complete it now.
        if (!bits) bits = std::uint8_t(pend_flush | (c.acked_msgs ? pend_acks : 0) | (c.pack_item ? pend_gets : 0));
        owed.push({pe, bits, 0, 0});
    }
    transport::status st =
        complete_owed(routine, c, owed.begin(), owed.size(), std::size_t(rt.cfg.quiet_ep_max), "a quiet");
    c.pending_list.clear();
    c.pending_list_changed();
    if (st == transport::status_ok) st = transport::take_async_error();
    if (st != transport::status_ok) fail_flush(routine, st);
}

void pe_quiet(const char *routine, context &c, int pe) {
    if (c.direct_dirty.load(std::memory_order_relaxed)) direct_fence();
    settle_pack(routine, c, pe);
    if (!__atomic_load_n(&c.pending[std::size_t(pe)], __ATOMIC_RELAXED)) return;
    std::unique_lock<std::mutex> g(c.lock, std::defer_lock);
    if (c.thread_safe) g.lock();
    if (!c.pending[std::size_t(pe)]) return;  // another thread flushed it
    pe_owed o{pe, c.pending[std::size_t(pe)], 0, 0};
    __atomic_store_n(&c.pending[std::size_t(pe)], 0, __ATOMIC_RELAXED);  // before the flush and the count
    // Its endpoint's flush, never the worker's (SIZE_MAX).
    transport::status st = complete_owed(routine, c, &o, 1, SIZE_MAX, "a quiet of one PE");
    for (std::size_t i = 0; i < c.pending_list.size(); ++i)
        if (c.pending_list[i] == pe) {
            c.pending_list[i] = c.pending_list.back();
            c.pending_list.pop_back();
            c.pending_list_changed();
            break;
        }
    if (st == transport::status_ok) st = transport::take_async_error();
    if (st != transport::status_ok) fail_flush(routine, st);
}

void fence(const char *routine, context &c) {
    if (c.direct_dirty.load(std::memory_order_relaxed)) direct_fence();
    settle_packs(routine, c);
    if (!c.any_pending()) return;
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
                if (route_of(p, seg_id(s)) == route::unresolved) resolve(routine, pe, seg_id(s));
                if (p.how[s] == route::direct) {
                    if (g.owns_lock()) g.unlock();
                    quiet_slow(routine, c);
                    return;
                }
            }
        }
    }
    transport::worker_fence(worker_of(c));
}

} // namespace ushmem::core
