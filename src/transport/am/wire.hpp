// transport/am/wire.hpp: the wire formats of ushmem's own active messages (signal, strided
// get request and reply, acknowledgement) and their ids. Both ends of a connection run the same
// build: these layouts are the protocol.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ushmem::transport {

// ---- signals as active messages ----------------------------------------------------------------
// Where a peer's RMA and atomics are emulated (UCX_TLS=tcp: the target's CPU executes them from
// active messages), a put followed by a remote add costs a fence and an atomic whose reply the
// target must send: three messages on the critical path where one suffices. A signal message
// carries the data and the signal together; the target's handler (installed by the core) stores
// the data and then updates the signal word, in that order. No reply: completion is the endpoint's
// flush, as for any put. `op`: what the handler does to the signal word.
constexpr unsigned signal_am_id = 17;
// pack: no signal; the data is a put pack (util/put_pack.hpp), many puts in one message.
enum class signal_op : std::uint8_t { add = 0, set = 1, pack = 2 };
struct signal_header {
    std::uint64_t data_addr = 0;  // target address of the data (ignored when there is none)
    std::uint64_t sig_addr = 0;   // target address of the 64-bit signal word; 0: no signal
    std::uint64_t value = 0;
    signal_op op = signal_op::add;
    // Acknowledgements carried along (signal_nbx): this many more of the messages that the
    // receiver sent from its main worker to PE `from` are stored there. Filled in by signal_nbx,
    // never by its caller.
    std::uint32_t acks : 24 = 0;
    // 0: the data is stored contiguously at data_addr. Otherwise it is elements of `elem` bytes,
    // stored dst_stride bytes apart from data_addr on: a strided put over an emulated transport
    // in one message, where puts would cost a message (and a system call each side) per element.
    std::uint32_t elem = 0;
    std::uint64_t dst_stride = 0;
    // Non-zero (ack_owed, ack_reply, ack_lazy): once the handler has run, the target acknowledges it to
    // PE `from` (ack_am_id). Waiting for the acknowledgements of the messages sent to a PE
    // completes them, in place of an endpoint flush, which over an emulated transport is a
    // request and a reply of its own (4 messages per put + quiet with UCX's puts, 2 this way).
    std::uint32_t ack = 0;
    std::uint32_t from = 0;  // the sender's PE (with ack or acks)
};
// 48 bytes: ushmem's messages up to small_message_max (am/internal.hpp) are sent whole, header included,
// and the tests' sizes around that limit (mpi_tests/signal.c) count on it.
static_assert(sizeof(signal_header) == 48, "signal_header is 48 bytes");

// ---- strided gets as active messages -------------------------------------------------------------
// Where a peer's RMA is emulated, a strided get (iget, ibget) costs a request and a reply message
// per element (64 longs over tcp: 0.4 ms). One request names the elements instead; the target's
// handler packs them into one reply, whose handler (on the initiator) unpacks them. Fire and
// forget on both sides: the initiator's core waits for its reply handler to have run.
constexpr unsigned gather_am_id = 18, gather_reply_am_id = 19;
// The same request and reply carry batches of small get_nbi's (elem 0): the request's data then
// lists them (the core's format) and src_stride states the reply's size.
struct gather_header {
    std::uint64_t src_addr;    // first element on the target
    std::uint64_t src_stride;  // bytes from one element to the next there (elem 0: the reply's bytes)
    std::uint64_t cookie;      // the initiator's, sent back with the reply
    std::uint32_t elem;        // bytes per element (0: a list in the request's data)
    std::uint32_t count;       // elements
};
// The reply's size in bytes.
inline std::size_t gather_reply_bytes(const gather_header &h) {
    return h.elem ? std::size_t(h.elem) * h.count : std::size_t(h.src_stride);
}
// Target side: checks the ranges and packs gather_reply_bytes(h) bytes into `out` (installed by
// the core). `data`, n: the request's data.

// ---- acknowledgements ------------------------------------------------------------------------
// signal_header::ack: the kind in its low 8 bits (am/acks.hpp says what each kind does); the
// acknowledgement's own message (ack_am_id) is three 32-bit words: from, how many, stream.
constexpr std::uint32_t ack_owed = 1, ack_reply = 2, ack_lazy = 3;
constexpr unsigned ack_am_id = 20;

// ---- remote procedure calls (am/rpc.hpp) -------------------------------------------------------
// A request names a function of the caller's table (core/rpc.hpp) and carries its argument bytes;
// the reply carries the result's bytes, or the text of what went wrong. Both are copied into one
// eager message each, like signal_nbx's: the receiver's handler copies them out and runs nothing
// (user code never runs inside UCX's callback).
constexpr unsigned rpc_am_id = 21, rpc_reply_am_id = 22;
struct rpc_header {
    std::uint64_t request;   // the caller's id for the reply; 0: fire and forget (no reply)
    std::uint64_t table;     // checksum of the caller's function table (the same binary: equal)
    std::uint32_t fn;        // the function's position in that table
    std::uint32_t fn_check;  // low 32 bits of the function's signature hash, checked at the target
    std::uint32_t from;      // the caller's PE
    std::uint32_t reserved;
};
static_assert(sizeof(rpc_header) == 32, "rpc_header is 32 bytes");
// rpc_reply_header::status (the C API's SHMEMX_RPC_* codes, include/shmemx.h).
enum : std::uint32_t { rpc_ok = 0, rpc_threw = 1, rpc_bad_args = 2, rpc_unknown_fn = 3, rpc_gone = 4 };
struct rpc_reply_header {
    std::uint64_t request;
    std::uint32_t status;
    std::uint32_t from;  // the PE that ran (or refused) it
};
static_assert(sizeof(rpc_reply_header) == 16, "rpc_reply_header is 16 bytes");

} // namespace ushmem::transport
