// The core half of ushmem's message protocol (defined in atomic.cpp, rma.cpp and put_pack.cpp; the
// transport half is transport/am/): signal messages (data and a signal in one), strided messages, the handlers the
// transport runs for what arrives (signals, acknowledgements), and the replies to gather and get
// batch requests.
#pragma once

#include "core/context.hpp"
#include "core/lanes.hpp"
#include "core/peers.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"

#include <cstddef>
#include <cstdint>

namespace ushmem::core {

// The endpoint a context's messages to `pe` go through: the main worker's (`p`, the shared peer),
// or the context's own worker's, so that they stay in order with its other operations there.
inline transport::ep_h message_ep(const char *routine, context &c, peer &p, int pe) {
    return USHMEM_LIKELY(!c.own_worker) ? p.ep : own_ucx_peer(routine, c, pe, seg_heap).ep;
}
// Runs a signal message that arrived (installed as the transport's handler).
void on_signal_message(const transport::signal_header &h, const void *data, std::size_t n);
void on_ack(std::uint32_t from, std::uint32_t n);  // n acknowledged messages (context::acked_msgs) are in
// One signal message to `pe` (through the context's endpoint: message_ep): the data (n bytes,
// may be 0) to the peer's address data_raddr, then `value` applied to its signal word sig_raddr.
// Returns at once (the message holds a copy); delivery is the business of quiet, as for a put.
// `lend`: the data stays as it is until the message's acknowledgement (a put_nbi's source, which
// the program may not change before its quiet): large data is then sent from there, not copied.
// From bulk_size(n) on it goes as a bulk message, which returns once the data has left (lent or not).
void signal_message(const char *routine, context &c, peer &p, int pe, std::uint64_t data_raddr, const void *data,
                    std::size_t n, std::uint64_t sig_raddr, std::uint64_t value, transport::signal_op op,
                    bool lend = false);
// The strided form: n / elem elements of `elem` bytes, src_stride apart in `data`, to data_raddr +
// i * dst_stride on the peer; sig_raddr 0: no signal.
void strided_message(const char *routine, context &c, peer &p, int pe, std::uint64_t data_raddr,
                     std::size_t dst_stride, const void *data, std::size_t src_stride, std::size_t elem,
                     std::size_t n, std::uint64_t sig_raddr, std::uint64_t value);
// `count` elements (elem <= signal_message_max) as strided messages of up to signal_message_max
// bytes each; sig_raddr (0: none) incremented by 1 with the last one, after the others.
void strided_messages(const char *routine, context &c, peer &p, int pe, std::uint64_t data_raddr,
                      std::size_t dst_stride, const char *data, std::size_t src_stride, std::size_t elem,
                      std::size_t count, std::uint64_t sig_raddr);
// Strided gets and get batches as messages (rma.cpp, installed as the transport's handlers): the
// target packs the elements or the gets a request names, the initiator unpacks the reply.
void pack_gather_reply(const transport::gather_header &h, const void *data, std::size_t n, void *out);
void on_gather_reply(std::uint64_t cookie, const void *data, std::size_t n);
// A get batch's reply (put_pack.cpp); cookies with get_batch_bit set are theirs.
constexpr std::uint64_t get_batch_bit = std::uint64_t(1) << 63;
void on_get_batch_reply(std::uint64_t cookie, const void *data, std::size_t n);
// Data up to this size travels in the signal message itself; larger goes as a put before it.
constexpr std::size_t signal_message_max = 64 * 1024;
// Whether n bytes to a PE reached by signal messages go as one bulk message (transport::bulk_nbx,
// from USHMEM_BULK_MIN; 0 at init where UCX would not keep them in order): signal_message then
// returns once they are out of the caller's buffer, and its acknowledgement or the receiver's signal
// comes once they are stored.
inline bool bulk_size(std::size_t n) { return rt.bulk_min && n >= rt.bulk_min; }
} // namespace ushmem::core
