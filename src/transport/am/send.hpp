// transport/am/send.hpp: sending ushmem's messages: signal messages (contiguous, strided, put
// packs), bulk messages (rendezvous), strided get requests; the bytes they hold until sent.
#pragma once

#include "transport/am/wire.hpp"
#include "transport/shared_state.hpp"

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>

namespace ushmem::transport {

// Sends one signal message, fire and forget: header and data are copied first (data the caller
// lends excepted, below), so the caller never waits for the message to leave (a peer that is
// stopped, or that has not yet accepted the connection, would otherwise block the sender).
// Completion through flush, or through the acknowledgement (hdr.ack); errors through
// take_async_error. nullptr, or UCX's description of why it could not be issued.
// src_stride (strided messages, hdr.elem != 0): the n bytes are n / hdr.elem elements, src_stride
// bytes apart in `data`, packed into the message; 0: contiguous.
// `w`: the worker of `ep` (the main one, or a context's own). `to`: the PE `ep` leads to; the
// acknowledgements owed to it go along (signal_header::acks).
// `lend`: the caller keeps `data` as it is until the message is acknowledged (a put_nbi's source,
// which the program may not change before its quiet): large contiguous data is then sent from
// there, not copied.
const char *signal_nbx(ucp_worker_h w, ucp_ep_h ep, std::uint32_t to, const signal_header &hdr, const void *data,
                       std::size_t n, std::size_t src_stride = 0, bool lend = false);
// Bytes of signal messages to PE `pe` (header, data and this PE's bookkeeping) that UCX has not
// sent yet, whose copies this PE holds: the memory a target that stops reading costs its senders.
inline std::int64_t held_bytes(std::uint32_t pe) {
    return detail::shared.held ? detail::shared.held[pe].load(std::memory_order_acquire) : 0;
}
// Large data in one signal message, by UCX's rendezvous (the core uses it from USHMEM_BULK_MIN).
// Over tcp an eager message of more than UCX's fragment (64 KiB) is reassembled on the receiver
// and then copied into place: two copies of every byte there on top of the kernel's, and one on
// the sender into the message. In a rendezvous the receiver names the destination first
// (ucp_am_recv_data_nbx): over tcp UCX 1.13 then sends the data as fragments of up to 64 KiB
// from where it is (no copy on the sender), which the receiver copies into place as each arrives
// (one copy). The handshake (request to send, ready to receive) costs a round trip, so it pays
// only on large transfers. The header, the signal and the acknowledgement are those of
// signal_nbx: the handler stores nothing until every byte is in, then updates the signal word
// and owes the acknowledgement (never ack_reply: UCX's reply endpoint exists only inside the
// handler, which runs when the request to send arrives). Returns the request, which the caller
// waits for (core::await_request, which frees it): the data is then out of `data` and handed to
// the transport ahead of anything the caller sends to that PE afterwards, over one lane (one eager
// rail: bulk_ordered()), so the receiver stores it first. Until then the caller keeps `data`
// unchanged and `hdr` alive (UCX reads it until completion; this fills in its `acks`). nullptr
// when it completed at once; an error pointer when it could not be issued.
void *bulk_nbx(ucp_worker_h w, ucp_ep_h ep, std::uint32_t to, signal_header &hdr, const void *data, std::size_t n);
// Sends a request with n bytes of data (the reply comes to this worker's handler). nullptr, or why
// it could not be sent.
const char *gather_nbx(ucp_worker_h w, ucp_ep_h ep, const gather_header &h, const void *data = nullptr,
                       std::size_t n = 0);

} // namespace ushmem::transport
