// A context's own lanes (USHMEM_CTX_WORKERS): its worker and endpoints, created on its first UCX
// operation, closed when it is destroyed or at finalize.
#include "core/lanes.hpp"

#include "core/context.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"
#include "transport/transport.hpp"

#include <mutex>
#include <string>
#include <vector>

namespace ushmem::core {

namespace {
// Contexts holding their own lanes, released at finalize if the program did not destroy them.
std::mutex g_lanes_lock;
std::vector<context *> g_lanes_owners;
} // namespace

std::vector<context *> lanes_owners() {
    std::lock_guard<std::mutex> g(g_lanes_lock);
    return g_lanes_owners;
}

peer &own_ucx_peer(const char *routine, context &c, int pe, seg_id s) {
    std::string err;
    if (!c.lanes) {
        auto *l = new context_lanes;
        l->acks_sent.reset(std::size_t(rt.npes));
        l->acks_done.reset(std::size_t(rt.npes));
        l->worker = transport::create_extra_worker(false, l->acks_done.data(), l->ack_stream, err);
        if (!l->worker) {
            delete l;
            fatal(routine, "cannot create the context's UCX worker: %s (set USHMEM_CTX_WORKERS=0 to "
                           "share the main worker)", err.c_str());
        }
        l->peers.reset(std::size_t(rt.npes));
        l->chunk_peers.reset(std::size_t(rt.npes));
        c.lanes = l;
        std::lock_guard<std::mutex> g(g_lanes_lock);
        g_lanes_owners.push_back(&c);
    }
    if (USHMEM_UNLIKELY(is_chunk(s))) {
        // A grown heap chunk: its rkey on this worker's endpoint to the PE (route.hpp, chunk
        // entries), at the heap's address on the PE (+ a heap offset, as for the heap).
        const peer &main = own_ucx_peer(routine, c, pe, seg_heap);  // (lists the PE)
        peer *&mine = c.lanes->chunk_peers[std::size_t(pe)];
        if (!mine) mine = new peer[rt.grown.chunk_of.size()];
        peer &q = mine[chunk_index(s)];
        if (USHMEM_LIKELY(q.rkey[s] != nullptr)) return q;
        const heap_chunk &ch = rt.grown.chunks[chunk_index(s)];
        q.ep = main.ep;
        q.wired = true;
        q.rkey[s] = transport::unpack_rkey(q.ep, node_entry(routine, "heap chunk rkey", ch.rkeys, pe), err);
        if (!q.rkey[s]) fatal(routine, "cannot use the memory key of PE %d's heap chunk: %s", pe, err.c_str());
        q.rbase[s] = segment_base(routine, seg_heap, pe);
        q.how[s] = route::ucx;
        return q;
    }
    peer &q = c.lanes->peers[std::size_t(pe)];
    if (USHMEM_LIKELY(q.rkey[s] != nullptr)) return q;
    if (!q.listed) {  // its first write: release_lanes tears down the listed entries only
        q.listed = true;
        c.lanes->contacted.push_back(pe);
    }
    if (!q.ep) {
        q.ep = transport::connect(c.lanes->worker, node_part(routine, init_table_what, rt.peers.init_table, pe, part_worker), pe,
                                  detect_failure(pe), err);
        if (!q.ep) fatal(routine, "cannot reach PE %d from the context's worker: %s", pe, err.c_str());
    }
    q.rkey[s] = transport::unpack_rkey(q.ep, node_part(routine, init_table_what, rt.peers.init_table, pe, s == seg_heap ? part_heap_rkey : part_static_rkey), err);
    if (!q.rkey[s]) fatal(routine, "cannot use the memory key of PE %d: %s", pe, err.c_str());
    // From the segment table: the shared peer's rbase of a segment it has not used yet is still 0
    // (message_ep asks for the heap's entry whatever segment a message goes to).
    q.rbase[s] = segment_base(routine, s, pe);
    if (!q.wired) {
        // Wired up now, while this call drives the worker: one 8-byte get, whose reply needs the
        // connection both ways. Left to the messages that follow, a fresh endpoint held them
        // queued for good when two went in a row (the first asking for UCX's reply endpoint, on
        // UCX 1.13 over tcp) and the PE then waited on the default context, which does not drive
        // this worker: a put on a new private context followed by a wait for the target's answer
        // hung (mpi_tests/put_pack.c order, private context). One round trip per context and PE.
        std::uint64_t scratch = 0;
        void *r = transport::issue_get(c.lanes->worker, q.ep, &scratch, sizeof scratch, q.rbase[s], q.rkey[s], nullptr);
        if (transport::is_error(r)) fatal(routine, "cannot reach PE %d from the context's worker: %s", pe,
                                     transport::status_string(transport::error_of(r)));
        if (r) {
            char what[80];
            std::snprintf(what, sizeof what, "the connection of a context's worker to PE %d", pe);
            const transport::status st = await_request(routine, c, r, pe, what);
            if (st != transport::status_ok) fatal(routine, "cannot reach PE %d from the context's worker: %s", pe, transport::status_string(st));
        }
        q.wired = true;
    }
    q.how[s] = route::ucx;
    return q;
}

void release_lanes(context &c) {
    if (!c.lanes) return;
    {
        std::lock_guard<std::mutex> g(g_lanes_lock);
        for (std::size_t i = 0; i < g_lanes_owners.size(); ++i)
            if (g_lanes_owners[i] == &c) {
                g_lanes_owners[i] = g_lanes_owners.back();
                g_lanes_owners.pop_back();
                break;
            }
    }
    std::vector<transport::ep_h> eps;
    for (int pe : c.lanes->contacted) {
        peer *&tab = c.lanes->chunk_peers[std::size_t(pe)];
        if (tab)
            for (std::size_t k = 0; k < rt.grown.chunk_of.size(); ++k)
                for (auto &r : tab[k].rkey) transport::destroy_rkey(r);  // (their endpoints are the peers')
        delete[] tab;
        tab = nullptr;
        peer &q = c.lanes->peers[std::size_t(pe)];
        for (auto &k : q.rkey) transport::destroy_rkey(k);
        if (q.ep) eps.push_back(q.ep);
    }
    transport::close_endpoints(eps, c.lanes->worker);
    transport::destroy_extra_worker(c.lanes->worker, c.lanes->ack_stream);
    delete c.lanes;
    c.lanes = nullptr;
}


} // namespace ushmem::core
