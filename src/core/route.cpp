// Resolving routes: how this PE reaches each (peer, segment), decided on first use; the peer's
// endpoint and what its lanes offer (emulated RMA, signals as messages).
#include "core/route.hpp"

#include "core/env.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"

#include <cstring>
#include <mutex>
#include <string>

namespace ushmem::core {

// Where UCX's lanes to `pe` are network ones anyway: a peer on another node, or a node without
// shared-memory RMA (UCX_TLS=tcp). On the node, asking for detection would trade sysv/posix for
// tcp; there a death is the launcher's to notice (its daemon sees the process exit at once).
bool detect_failure(int pe) {
    return rt.cfg.peer_failure && (rt.node_of[std::size_t(pe)] != rt.node_of[std::size_t(rt.me)] ||
                                   !transport::lanes().has_shared_memory_rma);
}


// Whether UCX's lanes to `pe` emulate RMA and atomics: no one-sided transport of the kind that
// reaches it (shared memory on the node, RDMA across nodes), so its CPU runs each from a message.
bool rma_emulated(int pe) {
    const transport::lanes_info &l = transport::lanes();
    const bool same_node = rt.node_of[std::size_t(pe)] == rt.node_of[std::size_t(rt.me)];
    return same_node ? !l.has_shared_memory_rma : !l.has_network_rdma;
}

namespace {
// Whether signals to `pe` go as signal messages (USHMEM_SIGNAL_MESSAGES): auto where its RMA is
// emulated, so that a message costs its CPU nothing an atomic would not.
bool signals_as_messages(int pe) {
    const std::string &m = rt.cfg.signal_messages;
    if (m == "on") return true;
    if (m == "off") return false;
    return rma_emulated(pe);
}

// Threads of a SHMEM_THREAD_MULTIPLE program (each driving its own context) may resolve the same
// peer at once, and the thread that progresses the worker may need the endpoint for an
// acknowledgement: one creates it, the others find it done.
std::mutex g_resolve_lock;

// Before the first write to `pe`'s entry (under g_resolve_lock): finalize tears down the listed
// entries only (peers.hpp, contacted), never every PE's.
void note_contact(peer &p, int pe) {
    if (p.listed) return;
    p.listed = true;
    rt.peers.contacted.push_back(pe);
}

// The peer's endpoint, created if it has none (under g_resolve_lock). Published last, for the
// acknowledgements' sender, which reads it without the lock.
void connect_peer(const char *routine, peer &p, int pe) {
    if (p.ep) return;
    note_contact(p, pe);
    std::string err;
    transport::ep_h ep = transport::connect(node_part(routine, init_table_what, rt.peers.init_table, pe, part_worker), pe,
                                     detect_failure(pe), err);
    if (!ep) fatal(routine, "cannot reach PE %d: %s", pe, err.c_str());
    p.msg_signals = signals_as_messages(pe);
    p.msg_puts = p.msg_signals && rt.cfg.acked_messages && rma_emulated(pe);
    __atomic_store_n(&p.ep, ep, __ATOMIC_RELEASE);
}

// Where this PE's acknowledgements to `pe` go (transport::set_ack_endpoint): its endpoint to that
// PE, created here when it never sent it anything. Runs on whichever thread progressed the worker.
} // namespace

transport::ep_h ack_endpoint(std::uint32_t pe) {
    peer &p = rt.peers[pe];
    if (transport::ep_h ep = __atomic_load_n(&p.ep, __ATOMIC_ACQUIRE)) return ep;
    std::lock_guard<std::mutex> guard(g_resolve_lock);
    connect_peer("ushmem (acknowledging a put)", p, int(pe));
    return p.ep;
}

namespace {
void resolve_locked(const char *routine, int pe, seg_id s);

// `pe`'s entry for grown-heap chunk `s` (under g_resolve_lock): its heap slot a copy of the
// peer's heap entry (resolved first: the wake word is read there), its static slot the chunk's
// route, rkey and (biased) direct pointer; the endpoint and message flags the peer's.
void resolve_chunk(const char *routine, int pe, seg_id s) {
    peer *t = rt.peers.chunks[std::size_t(pe)];
    if (!t) {
        note_contact(rt.peers[std::size_t(pe)], pe);  // (finalize frees t through the list)
        t = new peer[rt.grown.chunk_of.size()];
        __atomic_store_n(&rt.peers.chunks[std::size_t(pe)], t, __ATOMIC_RELEASE);
    }
    const std::size_t k = chunk_index(s);
    peer &q = t[k];
    if (__atomic_load_n(&q.how[s], __ATOMIC_ACQUIRE) != route::unresolved) return;
    peer &p = rt.peers[std::size_t(pe)];
    if (route_of(p, seg_heap) == route::unresolved) resolve_locked(routine, pe, seg_heap);
    const heap_chunk &c = rt.grown.chunks[k];
    q.how[seg_heap] = p.how[seg_heap];
    q.direct[seg_heap] = p.direct[seg_heap];
    q.rbase[seg_heap] = p.rbase[seg_heap];
    q.rbase[s] = segment_base(routine, seg_heap, pe);  // + a heap offset, as for the heap
    if (rt.cfg.direct && pe == rt.me) {
        q.direct[s] = reinterpret_cast<char *>(rt.seg[seg_heap].base);
        __atomic_store_n(&q.how[s], route::direct, __ATOMIC_RELEASE);
        return;
    }
    connect_peer(routine, p, pe);
    q.ep = p.ep;
    q.msg_signals = p.msg_signals;
    q.msg_puts = p.msg_puts;
    q.wired = p.wired;
    std::string err;
    q.rkey[s] = transport::unpack_rkey(p.ep, node_entry(routine, "heap chunk rkey", c.rkeys, pe), err);
    if (!q.rkey[s]) fatal(routine, "cannot use the memory key of PE %d's heap chunk %zu: %s", pe, k, err.c_str());
    // Direct where the peer's heap is: the chunks are UCX allocations as the heap is.
    if (p.how[seg_heap] == route::direct)
        if (void *ptr = transport::rkey_ptr(q.rkey[s], q.rbase[s] + c.off)) {
            q.direct[s] = static_cast<char *>(ptr) - c.off;  // biased: + a heap offset
            __atomic_store_n(&q.how[s], route::direct, __ATOMIC_RELEASE);
            return;
        }
    __atomic_store_n(&q.how[s], route::ucx, __ATOMIC_RELEASE);
}
} // namespace

peer &chunk_target(const char *routine, int pe, seg_id s) {
    const peer *t = __atomic_load_n(&rt.peers.chunks[std::size_t(pe)], __ATOMIC_ACQUIRE);
    if (!t || route_of(t[chunk_index(s)], s) == route::unresolved) resolve(routine, pe, s);
    return rt.peers.chunks[std::size_t(pe)][chunk_index(s)];
}

std::uint64_t segment_base(const char *routine, seg_id s, int pe) {
    const segment &sg = rt.seg[s & 1];
    if (sg.same_address || pe == rt.me) return sg.base;
    std::size_t len = 0;
    const std::uint8_t *p = node_part(routine, init_table_what, rt.peers.init_table, pe, part_bases, &len);
    std::uint64_t bases[seg_count];
    if (len != sizeof bases)
        fatal(routine, "PE %d's entry (worker address, memory keys) is malformed in this node's table: its "
                       "segment addresses take %zu bytes, not %zu; PE %d cannot be reached; ending the job",
              pe, len, sizeof bases, pe);
    std::memcpy(bases, p, sizeof bases);
    return bases[s & 1];
}

void resolve(const char *routine, int pe, seg_id s) {
    std::lock_guard<std::mutex> guard(g_resolve_lock);
    if (is_chunk(s)) return resolve_chunk(routine, pe, s);
    resolve_locked(routine, pe, s);
}

namespace {
void resolve_locked(const char *routine, int pe, seg_id s) {
    peer &p = rt.peers[std::size_t(pe)];

    if (__atomic_load_n(&p.how[s], __ATOMIC_ACQUIRE) != route::unresolved) return;
    segment &sg = rt.seg[s];
    if (!sg.mem.memh) fatal(routine, "the static data segment is not available on this PE");
    note_contact(p, pe);
    p.rbase[s] = segment_base(routine, s, pe);
    bool same_node = rt.node_of[std::size_t(pe)] == rt.node_of[std::size_t(rt.me)];
    if (rt.cfg.direct && pe == rt.me && sg.mem.allocated) {
        // Our own memory: its address is the direct pointer (rkey_ptr would map it twice).
        p.direct[s] = reinterpret_cast<char *>(sg.base);
        __atomic_store_n(&p.how[s], route::direct, __ATOMIC_RELEASE);
        return;
    }
    std::string err;
    connect_peer(routine, p, pe);
    if (!p.rkey[s]) {
        p.rkey[s] = transport::unpack_rkey(p.ep, node_part(routine, init_table_what, rt.peers.init_table, pe, s == seg_heap ? part_heap_rkey : part_static_rkey), err);
        if (!p.rkey[s]) fatal(routine, "cannot use the memory key of PE %d: %s", pe, err.c_str());
    }
    if (rt.cfg.direct && same_node && sg.mem.allocated) {
        if (void *ptr = transport::rkey_ptr(p.rkey[s], p.rbase[s])) {
            p.direct[s] = static_cast<char *>(ptr);
            __atomic_store_n(&p.how[s], route::direct, __ATOMIC_RELEASE);
            return;
        }
    }
    __atomic_store_n(&p.how[s], route::ucx, __ATOMIC_RELEASE);
}
} // namespace


} // namespace ushmem::core
