// The core half of ushmem's message protocol (messages.cpp; the transport half is transport/am/).
// The senders: signal messages (data and a signal in one), strided messages, a non-fetching
// atomic's record, and strided gets as requests and replies; each first sends the context's open
// pack to that PE (the puts packed before it go first), then goes out through the one sender
// (message_send.hpp, which a put pack's own send uses too). The handlers the transport runs for
// what arrives (signals, acknowledgements, gather requests and replies), and their installation.
#pragma once

#include "core/context.hpp"
#include "core/message_send.hpp"
#include "core/peers.hpp"
#include "transport/transport.hpp"

#include <cstddef>
#include <cstdint>

namespace ushmem::core {

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
// n bytes of put-pack records (util/put_pack.hpp; a non-fetching atomic's, atomic.cpp) as one
// message of their own; `what` names it in errors.
void record_message(const char *routine, context &c, peer &p, int pe, const void *records, std::size_t n,
                    const char *what);
// A strided get as messages where the peer's RMA is emulated: `nblocks` blocks of `bytes`, sstep
// apart from offset soff of segment ss on `pe`, to d, dstep apart; as few requests as their
// replies allow (signal_message_max each), then a wait for every reply. False, doing nothing,
// where the peer is not reached by messages.
bool get_strided_messages(const char *routine, context &c, char *d, seg_id ss, std::size_t soff, std::size_t dstep,
                          std::size_t sstep, std::size_t bytes, std::size_t nblocks, int pe);

// ---- what arrives (the transport runs these; install_message_handlers installs them) ----------
// Runs a signal message: stores its data (contiguous, strided, or a put pack's records, atomics
// among them, in order), then applies its signal. Addresses outside this PE's segments: fatal.
void store_signal_message(const transport::signal_header &h, const void *data, std::size_t n);
// n acknowledged messages (context::acked_msgs) from PE `from` are in: rt.peers.acks_done.
void count_acks(std::uint32_t from, std::uint32_t n);
// The target's side of a gather request: packs into `out` the strided elements it names, or a get
// batch's gets and fetching atomics in order (h.elem 0, put_pack.cpp).
void pack_gather_reply(const transport::gather_header &h, const void *data, std::size_t n, void *out);
// The initiator's side: a reply's bytes to the strided get or the get batch (get_batch_bit) they answer.
void unpack_gather_reply(std::uint64_t cookie, const void *data, std::size_t n);
// Installs the handlers above with the transport (init, before the worker exists; rt.peers's
// acknowledgement counters allocated).
void install_message_handlers();
} // namespace ushmem::core
