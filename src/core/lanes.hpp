// The lanes a context's UCX operations take (the main worker's endpoints, or the context's own:
// lanes.cpp) and the per-PE counts of what is outstanding on them (acknowledged messages, gets,
// the in-flight bound).
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/peers.hpp"
#include "core/put_pack.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ushmem::core {


// The counts of a context's acknowledged messages: the main worker's, or its own worker's (which
// exists once it sent one).
inline std::atomic<std::uint64_t> *acks_sent_of(const context &c) {
    return USHMEM_LIKELY(!c.own_worker) ? rt.peers.acks_sent.data() : c.lanes->acks_sent.data();
}
inline std::atomic<std::uint64_t> *acks_done_of(const context &c) {
    return USHMEM_LIKELY(!c.own_worker) ? rt.peers.acks_done.data() : c.lanes->acks_done.data();
}
namespace detail {
// Set on the progress thread (put_pack.cpp, send_held_packs): it never waits for the bound.
inline thread_local bool t_inflight_exempt = false;
}
// Whether a message of n bytes to `pe` on `c` (acknowledged messages) would pass the bound on
// what is in flight to it: its unacknowledged messages (sent - done) and the bytes of messages
// this PE still holds for it (transport::held_bytes: a target that stops reading leaves them
// queued). A message is always let through when none is held (a bound below one message's size
// must not stop everything). One branch in the common case (| not ||: both are a load or two).
inline bool inflight_over(const context &c, int pe, std::size_t n) {
    const std::size_t i = std::size_t(pe);
    const std::int64_t held = transport::held_bytes(std::uint32_t(pe));
    return (acks_sent_of(c)[i].load(std::memory_order_relaxed) - acks_done_of(c)[i].load(std::memory_order_relaxed) >=
            rt.inflight_msgs) |
           (held > 0 && held + std::int64_t(n) > rt.inflight_bytes);
}
// Whether every acknowledged message of `c` to `pe` counted up to `until` (a read of
// acks_sent_of(c)) is in.
inline bool acks_answered(const context &c, int pe, std::uint64_t until) {
    return acks_done_of(c)[std::size_t(pe)].load(std::memory_order_acquire) >= until;
}
// Whether every get batched by `c` to `pe` up to `until` (a read of reply_issued) has its reply
// (put_pack.cpp, pend_gets).
inline bool gets_answered(const context &c, int pe, std::uint64_t until) {
    return c.reply_done(pe).load(std::memory_order_acquire) >= until;
}


// The peer entry whose endpoint and rkeys a UCX operation of `c` uses: the shared one, or the
// context's own (created on first use).
peer &own_ucx_peer(const char *routine, context &c, int pe, seg_id s);
USHMEM_HOT peer &ucx_peer(const char *routine, context &c, peer &p, int pe, seg_id s) {
    settle_pack(routine, c, pe);  // its packed puts go first
    if (USHMEM_LIKELY(!c.own_worker)) return p;
    return own_ucx_peer(routine, c, pe, s);
}
inline transport::worker_h worker_of(const context &c) { return c.lanes ? c.lanes->worker : transport::worker(); }
// The endpoint through which `c`'s UCX operations to `pe` went (what its quiet must flush).
inline transport::ep_h ep_of(const context &c, int pe) {
    return c.lanes ? c.lanes->peers[std::size_t(pe)].ep : rt.peers[std::size_t(pe)].ep;
}
// Closes a context's own endpoints and worker (after its final quiet).
void release_lanes(context &c);
// The contexts holding their own lanes now (finalize quiets those the program did not destroy).
std::vector<context *> lanes_owners();

// count_reply(c, pe, r) after issuing a counted non-blocking get or fetching atomic (its
// completion adds to the context's reply_done counter of its PE: transport::counted_completion):
// counts it issued, and done at once when UCX completed it inline (r == nullptr).
inline void count_reply(context &c, int pe, const void *r) {
    c.reply_issued(pe).fetch_add(1, std::memory_order_relaxed);
    if (r == nullptr) c.reply_done(pe).fetch_add(1, std::memory_order_release);
}
} // namespace ushmem::core
