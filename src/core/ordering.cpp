// fence / quiet / pe_quiet over the per-context completion state.
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

#include <sched.h>

#include <cstdio>
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

namespace {
// The acknowledgements awaited from a PE (context::acked_msgs): those of every message counted
// before the quiet cleared the PE's flag; or (`gets`) the replies to its get batches
// (put_pack.cpp), every get counted issued by then.
struct ack_wait {
    int pe;
    std::uint64_t until;
    bool gets;
};
bool answered(const context &c, const ack_wait &a) {
    return a.gets ? gets_answered(c, a.pe, a.until) : acks_answered(c, a.pe, a.until);
}
bool acks_in(const context &c, const ack_wait *a, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        if (!answered(c, a[i])) return false;
    return true;
}
struct ack_waits {
    const context *c;
    const ack_wait *a;
    std::size_t n;
    const char *op;
};
// As describe_requests: the PEs whose acknowledgements are missing.
void describe_acks(const void *arg, char *buf, std::size_t len) {
    const auto &w = *static_cast<const ack_waits *>(arg);
    missing_pes pes;
    for (std::size_t i = 0; i < w.n; ++i)
        if (!answered(*w.c, w.a[i])) pes.add(w.a[i].pe);
    describe_no_answer(buf, len, w.op, pes);
}
// Waits for the acknowledgements (after the flushes, which ran meanwhile: both are round trips).
// A context's own worker is driven here too, as await_requests does (wait_for drives the main
// one, where the acknowledgements arrive, or, ack_reply, on the context's worker).
void await_acks(const char *routine, context &c, const ack_wait *a, std::size_t n, const char *op) {
    if (n == 0 || acks_in(c, a, n)) return;
    bool remote = true;
    for (std::size_t i = 0; i < n && remote; ++i) remote = on_other_node(a[i].pe);
    const ack_waits w{&c, a, n, op};
    const transport::worker_h own = c.own_worker ? worker_of(c) : nullptr;
    const transport::own_wait_scope sleeps_watch(own);
    wait_for(
        routine, op,
        [&c, a, n, own] {
            // Acknowledgements come to the context's worker (ack_reply) or to the main one, which
            // wait_for drives.
            if (acks_in(c, a, n)) return true;
            if (own) transport::progress_worker(own);
            return acks_in(c, a, n);
        },
        false, remote, describe_acks, &w);
}
} // namespace

void quiet_slow(const char *routine, context &c) {
    settle_packs(routine, c);  // (packing is off where other threads share the context)
    std::unique_lock<std::mutex> g(c.lock, std::defer_lock);
    if (c.thread_safe) g.lock();
    if (c.pending_list.empty()) return;  // another thread flushed them
    transport::status st = transport::status_ok;
    const transport::worker_h w = worker_of(c);
    // Flags cleared before the flush and before the acknowledgement counts are read: see
    // context::note_pending (the fence orders the clearing stores before the counts' loads).
    short_list<int> flush_pes;
    short_list<ack_wait> acks;
    for (int pe : c.pending_list) {
        std::uint8_t &f = c.pending[std::size_t(pe)];
        std::uint8_t bits = __atomic_load_n(&f, __ATOMIC_RELAXED);
        __atomic_store_n(&f, std::uint8_t(0), __ATOMIC_RELAXED);
        // Listed with no bit: a quiet that ended by an exception (a C++ deadline) after clearing
        // it. Whatever it was, complete it now.
        if (!bits) bits = std::uint8_t(pend_flush | (c.acked_msgs ? pend_acks : 0) | (c.pack_item ? pend_gets : 0));
        if (bits & pend_flush) flush_pes.push(pe);
        if (bits & pend_acks) acks.push({pe, 0, false});
        if (bits & pend_gets) acks.push({pe, 0, true});
    }
    if (acks.size()) {
        std::atomic_thread_fence(std::memory_order_seq_cst);
        const std::atomic<std::uint64_t> *sent = acks_sent_of(c);
        for (ack_wait &a : acks)
            a.until = a.gets ? c.reply_issued(a.pe).load(std::memory_order_relaxed)
                             : sent[std::size_t(a.pe)].load(std::memory_order_acquire);
    }
    short_list<pending_request> reqs;
    auto add = [&](void *r, int pe) {
        if (r == nullptr) return;  // nothing was outstanding there
        if (transport::is_error(r)) {
            if (st == transport::status_ok) st = transport::error_of(r);
            return;
        }
        reqs.push({r, pe});
    };
    if (flush_pes.size() > std::size_t(rt.cfg.quiet_ep_max)) {
        add(transport::worker_flush(w), -1);
    } else {
        for (int pe : flush_pes) add(transport::ep_flush(w, ep_of(c, pe)), pe);
    }
    if (reqs.size()) {
        transport::status s2 = await_requests(routine, c, reqs.begin(), reqs.size(), "a quiet");
        if (st == transport::status_ok) st = s2;
    }
    await_acks(routine, c, acks.begin(), acks.size(), "a quiet");
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
    const transport::worker_h w = worker_of(c);
    const std::uint8_t bits = c.pending[std::size_t(pe)];
    __atomic_store_n(&c.pending[std::size_t(pe)], 0, __ATOMIC_RELAXED);  // before the flush and the count
    ack_wait acks[2];
    std::size_t n_acks = 0;
    if (bits & (pend_acks | pend_gets)) {  // the counts read after the clearing store (quiet_slow)
        std::atomic_thread_fence(std::memory_order_seq_cst);
        if (bits & pend_acks)
            acks[n_acks++] = {pe, acks_sent_of(c)[std::size_t(pe)].load(std::memory_order_acquire), false};
        if (bits & pend_gets) acks[n_acks++] = {pe, c.reply_issued(pe).load(std::memory_order_relaxed), true};
    }
    transport::status st = transport::status_ok;
    if (bits & pend_flush) {
        void *r = transport::ep_flush(w, ep_of(c, pe));
        if (transport::is_error(r)) st = transport::error_of(r);
        else if (r) st = await_request(routine, c, r, pe, "a quiet of one PE");
    }
    await_acks(routine, c, acks, n_acks, "a quiet of one PE");
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
