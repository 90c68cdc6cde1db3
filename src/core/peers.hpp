// What ushmem keeps per peer: the symmetric segments, the route to each (peer, segment), and the
// main worker's per-PE table (peer_table), whose one instance is rt.peers (state.hpp). Types
// only: the lookups that read rt (locate, target, ...) are in core/route.hpp.
#pragma once

#include "transport/handles.hpp"
#include "transport/memory.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ushmem::core {

// Symmetric segments: the heap, and the program's global/static data.
enum seg_id : std::uint8_t { seg_heap = 0, seg_static = 1, seg_count = 2 };

// How a (peer, segment) pair is reached. Decided on first use, then fixed.
enum class route : std::uint8_t { unresolved = 0, direct = 1, ucx = 2 };

// Everything the data path needs about one peer, in one cache line.
struct alignas(64) peer {
    route how[seg_count] = {route::unresolved, route::unresolved};
    // Signals (the collectives', put_signal's) go as signal messages (transport::signal_nbx): the
    // peer's atomics are emulated, so a message its CPU handles anyway, without the atomic's reply.
    bool msg_signals = false;
    // Puts go as acknowledged messages (context::acked_msgs): signal messages are on and UCX
    // emulates the peer's RMA, so a message and UCX's own operations to it share one ordered lane
    // (a later get sees the put); not where signal messages are only forced on.
    bool msg_puts = false;
    bool wired = false;  // a context's own endpoint: its connection is complete (own_ucx_peer)
    char *direct[seg_count] = {nullptr, nullptr};   // where the peer's segment is mapped here
    std::uint64_t rbase[seg_count] = {0, 0};        // the segment's address on the peer
    transport::rkey_h rkey[seg_count] = {nullptr, nullptr};
    transport::ep_h ep = nullptr;
};

struct segment {
    std::uintptr_t base = 0;  // local address
    std::size_t size = 0;
    transport::memory mem;
    std::vector<std::uint8_t> rkeys;       // every PE's packed rkey, concatenated
    std::vector<std::size_t> rkey_offsets;
    std::vector<std::uint64_t> bases;      // every PE's segment address
    bool same_address = false;             // bases are all equal
    std::size_t page_size = 0;             // page size backing it here
    std::uint64_t base_on(int pe) const { return same_address ? base : bases[std::size_t(pe)]; }
};

// The per-PE state of the main worker, one owner for it (rt.peers). Indexed by world PE number;
// sized npes by init, emptied by finalize. Contract per field: who writes, who reads, when.
struct peer_table {
    // Routes, direct pointers, rkeys and endpoints. Written by init (npes empty entries), then by
    // resolve() (route.cpp, under its lock; each route published last with a release store) and
    // by connect (the endpoint, published with a release store for the acknowledgement sender on
    // the progress thread); read without a lock by the data path (route_of's acquire load);
    // torn down by finalize after its last barrier.
    std::vector<peer> entry;
    // Acknowledged messages on the main worker (context::acked_msgs), per PE: sent, and
    // acknowledged (by the ack handler, in progress, adding each acknowledgement's number). One
    // endpoint per PE delivers them in order and the target counts only messages it has stored,
    // so the stored ones are the oldest: acks_done >= a count read after a message was sent means
    // that message is stored, whatever order the acknowledgements arrive in. Allocated by init
    // before any message can come; acks_sent is added to by the sender (any thread using a context
    // on the main worker) before the message goes; acks_done by count_acks (messages.cpp), on the
    // thread that progresses the worker; read by quiet, pe_quiet, pe_test and the in-flight bound.
    std::unique_ptr<std::atomic<std::uint64_t>[]> acks_sent, acks_done;
    // Every PE's worker address (allgathered by init, concatenated; worker_addr_offsets[pe] is
    // where PE pe's starts): read by connect and by a context's own worker when it connects;
    // cleared by finalize.
    std::vector<std::uint8_t> worker_addrs;
    std::vector<std::size_t> worker_addr_offsets;

    peer &operator[](std::size_t pe) { return entry[pe]; }
    const peer &operator[](std::size_t pe) const { return entry[pe]; }
};

} // namespace ushmem::core
