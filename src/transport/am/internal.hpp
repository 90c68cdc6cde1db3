// transport/am/internal.hpp: what the message files (message, send, receive, acks, held) share
// with one another and with worker_setup.cpp and context.cpp; never seen by the core.
#pragma once

#include "transport/am/acks.hpp"
#include "transport/am/wire.hpp"
#include "util/lazy_array.hpp"

#include <ucp/api/ucp.h>

#include <atomic>
#include <cstdlib>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace ushmem::transport::am {

// ---- one message on the wire (message.cpp) ---------------------------------------------------
// ---- small messages as one contiguous send -------------------------------------------------
// UCX sends a contiguous active message that fits its "short" limit (with 256 KiB segments, every
// message up to 256 KiB) through uct_ep_am_short_iov, which over tcp is always a sendmsg() of 3 or
// 4 pieces: its header, ours, the data. One send() of a buffer costs the kernel less: loopback TCP
// ping-pong of 69-byte messages on the project's VM, 9.5-9.7 us per round trip with send(), 10.3-10.5
// with sendmsg() of 4 pieces. Through UCX's "bcopy" path a message is copied into the
// endpoint's segment and leaves in one send(), and that path is the one a generic datatype takes
// (never the short one, never zero-copy). So messages up to small_message_max bytes go with
// g_bytes_dt below; larger ones keep the short path's zero-copy sendmsg, which saves copying them
// (UCX's own am_short switches the same way at its UCX_TCP_SENDV_THRESH, 2 KiB). 2 PEs over tcp,
// an 8 B broadcast between barriers, 5 alternating runs: the root's call 5.80-6.01 us against
// 5.99-6.11, the barrier 8.54-8.79 against 8.66-9.02.
constexpr std::size_t small_message_max = 2048;
// Where a message's bytes are: at the end of its allocation (message_alloc), so that it lives
// until UCX has sent the message and called back (or returned at once).
struct packed_bytes {
    const char *p;
    std::size_t n;
};
inline std::size_t packed_offset(std::size_t bytes) {
    return (bytes + alignof(packed_bytes) - 1) / alignof(packed_bytes) * alignof(packed_bytes);
}
// The buffer of one of ushmem's own messages: `bytes` of header and data, then room for their
// packed_bytes. Freed with std::free.
inline void *message_alloc(std::size_t bytes) { return std::malloc(packed_offset(bytes) + sizeof(packed_bytes)); }
// The small messages' datatype (context.cpp creates it after ucp_init, destroys it at finalize).
void create_bytes_datatype(ucp_context_h context);
void destroy_bytes_datatype();
// Sends one of ushmem's own messages from `copy` (from message_alloc: a header of `hlen` bytes
// followed by n bytes of data), fire and forget: freed at once when UCX sent it inline or refused
// it, else by `sent`. Eager only: the handler must get the data in the message (a rendezvous would
// need a receive). Returns UCX's answer.
// `borrowed`: the n bytes are there instead, the caller's (large messages only: the short path's
// sendmsg reads them where they are); `copy` then holds the header alone.
// `owner`: the allocation that holds `copy` (freed instead of it, and given to `sent`), when the
// copy does not start it (signal_nbx: a held_tag first).
void *am_send_copy(ucp_ep_h ep, unsigned id, void *copy, std::size_t hlen, std::size_t n, std::uint32_t flags,
                   ucp_send_nbx_callback_t sent, const void *borrowed = nullptr, void *owner = nullptr);
// The send callback of replies and acknowledgements: frees the copy and the request; an error
// (the initiator is gone) is the initiator's business, not a failure of this PE's operations.
void reply_sent(void *request, ucs_status_t, void *copy);

// ---- the handler table (receive.cpp) ---------------------------------------------------------
// The handlers of ushmem's own messages, on every worker (create_worker, create_extra_worker).
// `ack_counts`: a context's own worker's counts, nullptr on the main worker.
ucs_status_t set_handlers(ucp_worker_h w, void *ack_counts);
// Remote procedure calls' handlers (rpc.cpp).
ucs_status_t rpc_request_received(void *, const void *header, size_t header_length, void *data, size_t length,
                                  const ucp_am_recv_param_t *param);
ucs_status_t rpc_reply_received(void *, const void *header, size_t header_length, void *data, size_t length,
                                const ucp_am_recv_param_t *param);

// ---- acknowledgements (acks.cpp) -------------------------------------------------------------
extern ack_receiver g_ack_receive;  // the core's (set_ack_handler)
extern std::uint32_t g_ack_me;      // this PE, which its acknowledgements carry
// A message that asked for an acknowledgement (signal_header::ack) ran: owed to its sender until
// the progress call returns (send_owed_acks), or (`lazy`) the next one does.
void owe_ack(std::uint32_t pe, std::uint32_t stream, bool lazy);
// A message of a context's own worker (ack_reply): acknowledged at once on UCX's reply endpoint.
void ack_now(const ucp_am_recv_param_t *param);
// n messages of `stream` from this PE to PE `from` are stored there (main worker's ack handler).
void stream_acked(std::uint32_t stream, std::uint32_t from, std::uint32_t n);
// The number of PEs whose acknowledgements are counted (set_ack_handler).
std::size_t ack_pes();
// A context's own worker's acknowledgement stream (create_extra_worker): 1 to 2^24 - 1, 0 when
// none is left; unregistered before the worker goes.
std::uint32_t register_ack_stream(std::atomic<std::uint64_t> *acks_done, ucp_worker_h w);
void unregister_ack_stream(std::uint32_t stream);
// What signal_nbx carries to PE `pe` (signal_header::acks): every acknowledgement owed to it on
// the main worker's stream, lazy or not, taken off the owed ones. 0 when none, or too many for
// the field (then they go as an acknowledgement of their own).
std::uint32_t take_acks_for(std::uint32_t pe);
// The acknowledgements owed to PE `to`, carried by a message to it (signal_header::acks, `from`).
inline void carry_acks(signal_header &h, std::uint32_t to) {
    if (const std::uint32_t acks = take_acks_for(to)) {  // one load when none are owed
        h.acks = acks & ((1u << 24) - 1);
        h.from = g_ack_me;
    }
}

// ---- the bytes held per target (held.cpp) -----------------------------------------------------
// The bytes of signal messages (signal_nbx) that this PE holds per target PE until UCX has sent
// them (held_bytes): a target that stops reading its socket (SIGSTOP, a debugger) leaves them all
// queued on its endpoint (UCX's pending requests hold the copies), and the core bounds them
// (USHMEM_INFLIGHT_BYTES). Counted before the send, so never below 0 (signed: a wrong count shows
// as such, not as 2^64). Acknowledgements and get requests are not counted (small, and bounded by
// what they answer). Written by signal_nbx and its send callback (send.cpp), on any thread.
// Declared hidden (as the build defines everything): signal_nbx then reads them as it did when
// they were its file's own, by one load relative to the code, not through an address loaded first.
// Lazy (util/lazy_array.hpp): a target's page of counts is committed by its first signal message.
[[gnu::visibility("hidden")]] extern util::lazy_array<std::atomic<std::int64_t>> g_held;
[[gnu::visibility("hidden")]] extern std::uint32_t g_held_n;  // the PEs counted (0 until sized)
// Sizes the per-PE held counts (set_ack_handler, at init; 0: releases them, release_ack_state).
void size_held(std::uint32_t npes);
// Releases the per-PE owed acknowledgements and held counts (stop_context, after the worker: no
// handler or send callback can run any more).
void release_ack_state();

} // namespace ushmem::transport::am
