// From a symmetric address and a PE to the peer entry that reaches it: which segment holds the
// address, the (peer, segment) route (resolved on first use: route.cpp), the direct pointer.
#pragma once

#include "core/compiler.hpp"
#include "core/peers.hpp"
#include "core/runtime.hpp"
#include "transport/handles.hpp"

#include <cstddef>
#include <cstdint>

namespace ushmem::core {

// A grown heap's chunk holding [heap offset d, d + len) (heap_growth): one shift and two indexes.
// False when d is not in a mapped chunk or the range runs past its chunk (chunks are separate
// UCX allocations: a transfer never spans two, and the allocator never hands out a block that
// does).
inline bool locate_grown(std::uintptr_t d, std::size_t len, seg_id &s) {
    const heap_growth &g = rt.grown;
    const std::uintptr_t r = d - g.start;  // wraps below the grown region
    if (r >= __atomic_load_n(&g.mapped, __ATOMIC_ACQUIRE)) return false;
    const std::size_t k = g.chunk_of[r >> g.shift];
    const heap_chunk &c = g.chunks[k];
    if (len > c.off + c.len - d) return false;
    s = chunk_seg(k);
    return true;
}

// Which segment holds [addr, addr+len), and at what offset. False when it is not symmetric.
// The initial heap and the static data first (the hot path, as with a fixed heap); a grown
// heap's chunks after them, at an offset from the heap's base too.
USHMEM_HOT bool locate(const void *addr, std::size_t len, seg_id &s, std::size_t &off) {
    std::uintptr_t a = reinterpret_cast<std::uintptr_t>(addr);
    for (int i = 0; i < seg_count; ++i) {
        std::uintptr_t d = a - rt.seg[i].base;  // wraps for addresses below base
        if (d < rt.seg[i].size && len <= rt.seg[i].size - d) {
            s = seg_id(i);
            off = d;
            return true;
        }
    }
    if (USHMEM_LIKELY(__atomic_load_n(&rt.grown.mapped, __ATOMIC_RELAXED) == 0)) return false;
    off = a - rt.seg[seg_heap].base;
    return locate_grown(off, len, s);
}

USHMEM_HOT void locate_or_fail(const char *routine, const char *what, const void *addr,
                           std::size_t len, int pe, seg_id &s, std::size_t &off) {
    if (USHMEM_UNLIKELY(!locate(addr, len ? len : 1, s, off)))
        fail_not_symmetric(routine, what, addr, len, pe);
}

// Decide how `pe`'s segment `s` is reached (direct or UCX); creates the endpoint and rkey on
// first use. Ends the job with a message if the peer cannot be reached.
void resolve(const char *routine, int pe, seg_id s);
// Where segment `s` (seg_heap or seg_static) is on `pe`: its own address when the segment is at
// the same address everywhere, else from `pe`'s init-table entry (ends the job, naming the PE,
// when that entry is malformed). At resolve time only, not on the data path.
std::uint64_t segment_base(const char *routine, seg_id s, int pe);

// A route as resolve() published it (its release store): an acquire load, so that what resolve()
// wrote before (the direct pointer, the rkey) is seen by a thread that did not take its lock. A
// plain load on x86; at SHMEM_THREAD_MULTIPLE TSan reported the fast path's read of `direct`
// racing with another thread's first resolution of that peer.
USHMEM_HOT route route_of(const peer &p, seg_id s) { return __atomic_load_n(&p.how[s], __ATOMIC_ACQUIRE); }

// The entry of `pe`'s grown-heap chunk `s` (is_chunk), resolved (route.cpp).
peer &chunk_target(const char *routine, int pe, seg_id s);

USHMEM_HOT peer &target(const char *routine, int pe, seg_id s) {
    if (USHMEM_UNLIKELY(is_chunk(s))) return chunk_target(routine, pe, s);
    // entry[] rather than the table's operator[]: that extra inline level changed the register
    // allocation of shmem_putmem.
    peer &p = rt.peers.entry[std::size_t(pe)];
    if (USHMEM_UNLIKELY(route_of(p, s) == route::unresolved)) resolve(routine, pe, s);
    return p;
}

// The fast path's test: `n` (> 0) bytes at symmetric `addr` on `pe` (already known to be in range),
// reached directly: the address to copy to or from, else nullptr (the caller then takes its full
// path, which validates, resolves and reports). It makes no call, so that a put or get that takes
// it needs no stack frame.
USHMEM_HOT char *direct_target(const void *addr, std::size_t n, int pe) {
    seg_id s;
    std::size_t off;
    if (USHMEM_UNLIKELY(!locate(addr, n, s, off))) return nullptr;
    const peer *p = &rt.peers.entry[std::size_t(pe)];
    if (USHMEM_UNLIKELY(is_chunk(s))) {  // a grown chunk: its entry, once resolved
        const peer *t = __atomic_load_n(&rt.peers.chunks[std::size_t(pe)], __ATOMIC_ACQUIRE);
        if (!t) return nullptr;
        p = &t[chunk_index(s)];
    }
    if (USHMEM_UNLIKELY(route_of(*p, s) != route::direct)) return nullptr;
    return p->direct[s] + off;
}
// Whether `pe` is on another node than this PE (false for -1: several PEs).
inline bool on_other_node(int pe) {
    return pe >= 0 && rt.node_of[std::size_t(pe)] != rt.node_of[std::size_t(rt.me)];
}
// Whether UCX's lanes to `pe` emulate RMA and atomics (runtime.cpp): its CPU runs each from a
// message.
bool rma_emulated(int pe);
// Whether the endpoint to `pe` asks UCX to detect its failure (USHMEM_PEER_FAILURE, network lanes).
bool detect_failure(int pe);
// Where this PE's acknowledgements to `pe` go (installed with transport::set_ack_endpoint).
transport::ep_h ack_endpoint(std::uint32_t pe);
} // namespace ushmem::core
