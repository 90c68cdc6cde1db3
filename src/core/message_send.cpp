// The one sender of ushmem's messages (message_send.hpp): acknowledgement counting, the in-flight
// bound and its wait, eager or bulk.
#include "core/message_send.hpp"

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/lanes.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "core/state.hpp"
#include "core/wait.hpp"
#include "core/wait_missing.hpp"
#include "transport/transport.hpp"

#include <cinttypes>
#include <cstdio>

namespace ushmem::core {

namespace {
[[noreturn]] void bulk_failed(const char *routine, const char *what, std::size_t n, int pe, transport::status st) {
    fatal(routine, "%s of %zu bytes to PE %d failed: %s (a bulk transfer; USHMEM_BULK_MIN=0 sends none)", what, n, pe,
          transport::status_string(st));
}

// The in-flight bound's wait (inflight_over): what the USHMEM_WAIT_TIMEOUT message says.
struct inflight_state {
    context *c;
    int pe;
    std::size_t n;
    transport::worker_h own;
};
void describe_inflight(const void *arg, char *buf, std::size_t len) {
    const auto &w = *static_cast<const inflight_state *>(arg);
    const std::size_t i = std::size_t(w.pe);
    char what[256];
    std::snprintf(what, sizeof what,
                  "room to send to PE %d under the bound on what is in flight to one PE (%" PRIu64
                  " messages unacknowledged, USHMEM_INFLIGHT_MSGS=%ld; %" PRId64
                  " bytes of messages not yet sent, USHMEM_INFLIGHT_BYTES=%zu)",
                  w.pe, acks_sent_of(*w.c)[i].load() - acks_done_of(*w.c)[i].load(), rt.cfg.inflight_msgs,
                  transport::held_bytes(std::uint32_t(w.pe)), rt.cfg.inflight_bytes);
    describe_no_answer_from(buf, len, what, w.pe);
}
bool inflight_room(void *arg) {
    const auto &w = *static_cast<const inflight_state *>(arg);
    if (!inflight_over(*w.c, w.pe, w.n)) return true;
    // Acknowledgements come to the main worker, which wait_slow drives, or (ack_reply) to the
    // context's own, driven here as complete_owed's wait does (ordering.cpp).
    if (w.own) transport::progress_worker(w.own);
    return !inflight_over(*w.c, w.pe, w.n);
}
// A message to `pe` that would exceed the bound: progress until it fits, as a quiet waits for its
// acknowledgements (USHMEM_WAIT_TIMEOUT applies, naming the PE). Without it a stream of puts to
// a stopped PE grew its sender without end (issue #48, item 4: 3.3 GiB in 10 s). Not
// settle_thread_packs, as wait_for would: that sends messages, which would come back here. The
// progress thread never waits here (t_inflight_exempt): it sends held packs, and a thread that
// serves every peer must not stop for one.
[[gnu::noinline, gnu::cold]] void inflight_wait(const char *routine, context &c, int pe, std::size_t n) {
    if (detail::t_inflight_exempt) return;
    inflight_state w{&c, pe, n, c.own_worker ? worker_of(c) : nullptr};
    const transport::own_wait_scope sleeps_watch(w.own);
    for (int i = 0; i < 64; ++i) {
        if (inflight_room(&w)) return;
        transport::progress();
    }
    wait_slow(routine, "room under the in-flight bound", inflight_room, &w, describe_inflight, &w, false,
              on_other_node(pe));
}

} // namespace

void send_message(const char *routine, context &c, peer &p, int pe, const transport::signal_header &h,
                  const void *data, std::size_t n, std::size_t src_stride, const char *what, bool lend) {
    const transport::ep_h ep = message_ep(routine, c, p, pe);  // first: it may create the context's worker
    // The bound on what is in flight to `pe` (lanes.hpp, inflight_over). The collectives'
    // context sends unacknowledged messages, not counted: their protocols bound them (each waits
    // for its partners' signals, a broadcast's ring for its slots).
    if (c.acked_msgs && USHMEM_UNLIKELY(inflight_over(c, pe, n))) inflight_wait(routine, c, pe, n);
    transport::signal_header hs = h;
    // Large: one bulk message (transport::bulk_nbx), whose acknowledgement cannot be ack_reply (a
    // context's own worker without a stream of its own sends it eagerly instead, the slow way).
    const bool bulk = bulk_size(n) && !src_stride && h.op != transport::signal_op::pack &&
                      !(c.acked_msgs && c.own_worker && c.lanes->ack_stream == 0);
    if (c.acked_msgs) {
        // Counted before it leaves: its acknowledgement cannot come before the count. A context's
        // own worker is not the one the target knows. Its first message to a PE since that PE's
        // last completion is answered at once, on UCX's reply endpoint: the answer shares the
        // message's connection (over tcp one acknowledgement alone on another connection added
        // 3-4 us to a put + quiet). The ones that follow, a stream, are owed and batched to the
        // main worker, tagged with the context's stream (both add to the same counts). The
        // context has one thread at a time: its pending bits are its own.
        // A signal's (put_signal, signal_add/set) is lazy (transport::ack_lazy): its receiver
        // usually waits for it and answers at once, and the answer carries the acknowledgement.
        // Only with progress threads (every PE has one, or none): a receiver that leaves its wait
        // and stays away from the library (computing, or blocked in MPI) then still sends it, at
        // its thread's next look (the hand-off period). Without them a sender's quiet would wait
        // for the receiver's next call, which may wait for the sender.
        const std::uint32_t stream = c.own_worker ? c.lanes->ack_stream : 0;
        hs.ack = !c.own_worker ? (h.sig_addr && rt.progress_thread ? transport::ack_lazy : transport::ack_owed)
                 : stream != 0 && (bulk || (__atomic_load_n(&c.pending[std::size_t(pe)], __ATOMIC_RELAXED) & pend_acks))
                     ? transport::ack_owed | stream << 8
                     : transport::ack_reply;
        acks_sent_of(c)[std::size_t(pe)].fetch_add(1, std::memory_order_seq_cst);
    }
    hs.from = std::uint32_t(rt.me);  // (also without an acknowledgement: a refusal names the sender)
    if (bulk) {
        void *r = transport::bulk_nbx(worker_of(c), ep, std::uint32_t(pe), hs, data, n);
        if (transport::is_error(r)) bulk_failed(routine, what, n, pe, transport::error_of(r));
        c.note_pending(pe, c.acked_msgs ? pend_acks : pend_flush);
        // Waited for here, whatever the call (a put_nbi's too): until the data has left, a message
        // sent after it could reach the target first (the data moves only once the target has
        // answered the request to send). Over tcp that is the transfer itself, hundreds of
        // microseconds at this size, against the handshake's round trip.
        if (r) {
            const transport::status st = await_request(routine, c, r, pe, "a bulk transfer");
            if (st != transport::status_ok) bulk_failed(routine, what, n, pe, st);  // (a refusal by the target too)
        }
        return;
    }
    if (const char *err = transport::signal_nbx(worker_of(c), ep, std::uint32_t(pe), hs, data, n, src_stride,
                                                lend && c.acked_msgs))
        fatal(routine, "%s to PE %d failed: %s", what, pe, err);
    c.note_pending(pe, c.acked_msgs ? pend_acks : pend_flush);
}

} // namespace ushmem::core
