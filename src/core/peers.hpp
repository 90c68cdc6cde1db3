// What ushmem keeps per peer: the symmetric segments, the route to each (peer, segment), and the
// main worker's per-PE table (peer_table), whose one instance is rt.peers (state.hpp). Types
// only: the lookups that read rt (locate, target, ...) are in core/route.hpp.
#pragma once

#include "core/node_table.hpp"
#include "transport/handles.hpp"
#include "transport/memory.hpp"
#include "util/lazy_array.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ushmem::core {

// Symmetric segments: the heap, and the program's global/static data. A grown heap's chunk k
// (USHMEM_HEAP_GROW, heap_growth below) is seg_id chunk_seg(k), odd and >= seg_count: a peer's
// fields are indexed by `s & 1` (per_seg), so a chunk's own peer entry (peer_table::chunks) keeps
// its route, direct pointer and rkey in the static slot and a copy of the peer's heap entry in the
// heap slot (where the wake word is read: wait.hpp). Offsets stay relative to the heap's base.
enum seg_id : std::uint16_t { seg_heap = 0, seg_static = 1, seg_count = 2 };
static_assert(seg_count == 2, "per_seg indexes by s & 1");
inline constexpr bool is_chunk(seg_id s) { return s >= seg_count; }
inline constexpr seg_id chunk_seg(std::size_t k) { return seg_id(seg_count + 1 + 2 * k); }
inline constexpr std::size_t chunk_index(seg_id s) { return (std::size_t(s) - seg_count - 1) >> 1; }
// The most chunks a heap may have (seg_id's range).
inline constexpr std::size_t max_heap_chunks = 32000;

// A peer's field per segment: [s] reads slot s & 1, so that a chunk's seg_id reaches the slot
// its chunk entry uses (the static one) without a branch.
template <class T> struct per_seg {
    T v[seg_count];
    T &operator[](std::size_t s) { return v[s & 1]; }
    const T &operator[](std::size_t s) const { return v[s & 1]; }
    T *begin() { return v; }
    T *end() { return v + seg_count; }
};

// How a (peer, segment) pair is reached. Decided on first use, then fixed.
enum class route : std::uint8_t { unresolved = 0, direct = 1, ucx = 2 };
static_assert(route::unresolved == route(0), "a peer entry's empty state is all-zero bytes (peer_table::entry)");

// Everything the data path needs about one peer, in one cache line. Its default state is all-zero
// bytes (no route, no endpoint, no key), which is what a lazily committed page holds
// (peer_table::entry; tests/test_lazy_array.cpp checks it).
struct alignas(64) peer {
    per_seg<route> how = {{route::unresolved, route::unresolved}};
    // Signals (the collectives', put_signal's) go as signal messages (transport::signal_nbx): the
    // peer's atomics are emulated, so a message its CPU handles anyway, without the atomic's reply.
    bool msg_signals = false;
    // Puts go as acknowledged messages (context::acked_msgs): signal messages are on and UCX
    // emulates the peer's RMA, so a message and UCX's own operations to it share one ordered lane
    // (a later get sees the put); not where signal messages are only forced on.
    bool msg_puts = false;
    bool wired = false;  // a context's own endpoint: its connection is complete (own_ucx_peer)
    // Written since init: the PE is in its table's `contacted` list (in the padding before
    // `direct`: the entry stays one cache line).
    bool listed = false;
    // A chunk entry's direct pointer is biased (minus the chunk's heap offset), so that
    // direct[s] + heap offset, rbase[s] + heap offset hold for chunks as for the heap.
    per_seg<char *> direct = {{nullptr, nullptr}};   // where the peer's segment is mapped here
    per_seg<std::uint64_t> rbase = {{0, 0}};          // the segment's address on the peer
    per_seg<transport::rkey_h> rkey = {{nullptr, nullptr}};
    transport::ep_h ep = nullptr;
};
static_assert(sizeof(peer) == 64, "one cache line per peer");

struct segment {
    std::uintptr_t base = 0;  // local address
    std::size_t size = 0;
    transport::memory mem;
    // At the same address on every PE (the heap at its fixed address); when not, a peer's address
    // is read from its init-table entry on first contact (core/route.hpp, segment_base).
    bool same_address = false;
    std::size_t page_size = 0;             // page size backing it here
};

// One growth of the heap: a UCX allocation inside the heap's reservation, at the same heap offset
// on every PE, with every PE's packed rkey for it.
struct heap_chunk {
    std::size_t off = 0, len = 0;  // from the heap's base; multiples of USHMEM_HEAP_CHUNK
    transport::memory mem;
    node_table rkeys;  // every PE's packed rkey (held once per node)
    std::size_t page_size = 0;  // page size backing it here
};

// The growable part of the heap (USHMEM_HEAP_GROW), after the initial heap (rt.seg[seg_heap],
// whose size stays the initial size, so that locate() finds it first as before). Written by
// map_heap (init) and grow_heap (a collective allocation, every PE alike; `mapped` last with a
// release store); read without a lock by locate() (acquire load of `mapped`) and by resolve().
// chunk_of and chunks are sized at init and never reallocated, so that readers on other threads
// may index them while a growth appends.
struct heap_growth {
    bool on = false;                 // growth possible (setting on, heap at a fixed address)
    std::uintptr_t reserved = 0;     // bytes reserved PROT_NONE from the heap's base (0: none)
    std::size_t start = 0;           // heap offset of the grown region (initial heap rounded up)
    std::size_t limit = 0;           // bytes the grown region may reach
    std::size_t mapped = 0;          // bytes of it mapped, from start, in chunks
    unsigned shift = 0;              // log2(USHMEM_HEAP_CHUNK)
    std::vector<std::uint16_t> chunk_of;  // per USHMEM_HEAP_CHUNK of the grown region: its chunk
    std::vector<heap_chunk> chunks;       // in order of growth (capacity reserved at init)
    std::uint64_t growths = 0, failures = 0;
    bool small_page_notice = false;  // the huge-page fallback was reported (one notice per job)
};

// The per-PE state of the main worker, one owner for it (rt.peers). Indexed by world PE number;
// sized npes by init, emptied by finalize. Contract per field: who writes, who reads, when.
// The per-PE arrays are lazy (util/lazy_array.hpp): init reserves them and writes nothing, a
// peer's page is committed when this PE first writes to its entry, so a PE pays for the peers it
// talks to, not for every PE of the job (issue #50). Nothing may loop over every entry: finalize
// visits `contacted`.
struct peer_table {
    // Routes, direct pointers, rkeys and endpoints. Reserved by init (every entry empty: zero
    // bytes), then written by resolve() (route.cpp, under its lock; each route published last with
    // a release store) and by connect (the endpoint, published with a release store for the
    // acknowledgement sender on the progress thread); read without a lock by the data path
    // (route_of's acquire load); torn down by finalize after its last barrier.
    util::lazy_array<peer> entry;
    // Per PE, its grown heap's chunk entries (heap_growth: one per chunk the reservation can hold),
    // allocated by resolve() on the first use of one of its chunks (a peer never reached there
    // costs nothing), published with a release store; freed by finalize with `entry`.
    util::lazy_array<peer *> chunks;
    // The PEs whose entry (or chunk entries) resolve() or connect wrote, each once (peer::listed),
    // in order of first contact; appended under resolve()'s lock; read by finalize, which tears
    // down those entries only.
    std::vector<int> contacted;
    // Acknowledged messages on the main worker (context::acked_msgs), per PE: sent, and
    // acknowledged (by the ack handler, in progress, adding each acknowledgement's number). One
    // endpoint per PE delivers them in order and the target counts only messages it has stored,
    // so the stored ones are the oldest: acks_done >= a count read after a message was sent means
    // that message is stored, whatever order the acknowledgements arrive in. Reserved by init
    // before any message can come (zero: none); acks_sent is added to by the sender (any thread
    // using a context on the main worker) before the message goes; acks_done by count_acks
    // (messages.cpp), on the thread that progresses the worker; read by quiet, pe_quiet, pe_test
    // and the in-flight bound.
    util::lazy_array<std::atomic<std::uint64_t>> acks_sent, acks_done;
    // Every PE's worker address and packed rkeys of the heap and the static data (one entry in
    // parts per PE: node_table.hpp, init_part), gathered by init once both segments exist, held
    // once per node, read with node_part by connect, a context's own worker and resolve; released
    // by finalize, after the segments.
    node_table init_table;

    peer &operator[](std::size_t pe) { return entry[pe]; }
    const peer &operator[](std::size_t pe) const { return entry[pe]; }
};

} // namespace ushmem::core
