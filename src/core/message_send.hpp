// The one sender of ushmem's messages (message_send.cpp): every message core sends to a PE (puts,
// signals, packs, atomics, strided puts) goes out through send_message, which counts it for its
// acknowledgement, keeps the bound on what is in flight to one PE, and picks eager or bulk.
// Its callers keep the order: messages.hpp's senders (and a put pack's own send, put_pack.cpp)
// send the context's open pack to that PE first. The transport half is transport/am/.
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/lanes.hpp"
#include "core/peers.hpp"
#include "core/state.hpp"
#include "transport/transport.hpp"

#include <cstddef>
#include <cstdint>

namespace ushmem::core {

// The endpoint a context's messages to `pe` go through: the main worker's (`p`, the shared peer),
// or the context's own worker's, so that they stay in order with its other operations there.
inline transport::ep_h message_ep(const char *routine, context &c, peer &p, int pe) {
    return USHMEM_LIKELY(!c.own_worker) ? p.ep : own_ucx_peer(routine, c, pe, seg_heap).ep;
}
// Data up to this size travels in the signal message itself; larger goes as a put before it.
constexpr std::size_t signal_message_max = 64 * 1024;
// Whether n bytes to a PE reached by signal messages go as one bulk message (transport::bulk_nbx,
// from USHMEM_BULK_MIN; 0 at init where UCX would not keep them in order): signal_message then
// returns once they are out of the caller's buffer, and its acknowledgement or the receiver's signal
// comes once they are stored.
inline bool bulk_size(std::size_t n) { return rt.bulk_min && n >= rt.bulk_min; }
// Sends one message to `pe` through c's endpoint to it (message_ep): header h (its `from` and
// `ack` are set here), n bytes of data (src_stride: h.elem-byte elements that far apart, 0:
// contiguous). Counted for its acknowledgement when c.acked_msgs (waiting first, if it would
// exceed the in-flight bound to `pe`). From bulk_size(n) on (not strided, not a pack) one bulk
// message, which returns once the data has left; otherwise eager (the message holds a copy, or
// with `lend` the data stays as it is until the acknowledgement). `what` names it in errors.
// The caller has sent c's open pack to `pe` (settle_pack), unless this message is that pack.
void send_message(const char *routine, context &c, peer &p, int pe, const transport::signal_header &h,
                  const void *data, std::size_t n, std::size_t src_stride, const char *what, bool lend = false);
} // namespace ushmem::core
