// Node-aware collectives for teams that span nodes (coll.hpp; issue #12): the members of a node
// meet through the direct path, one leader per node talks over the network. Each is a sync at
// the same time (every member returns once every member has entered: docs/collectives.md,
// "Back-to-back calls"):
//   1. every member signals its node's leader (its contribution, for a reduction, with it);
//   2. the leaders exchange one signal each, all to all (the broadcast's data, a reduction's node
//      partial with it): one network step on the critical path, L (L - 1) messages for L nodes;
//   3. each leader releases its node's members (the data or the result with the signal).
// Counters: per-sender from(s) throughout (a member's signal to its leader, a leader's to the
// other leaders and to its members), so any pattern may follow any other.
#include "core/coll/coll.hpp"
#include "core/rma.hpp"
#include "core/route.hpp"

#include <algorithm>
#include <vector>

namespace ushmem::core::coll {

namespace {

void learn_nodes(team &t) {
    std::vector<int> node_ids;  // rt.node_of value of node k
    t.node_index.assign(std::size_t(t.n), 0);
    for (int r = 0; r < t.n; ++r) {
        const int id = rt.node_of[std::size_t(t.world_pe(r))];
        std::size_t k = 0;
        while (k < node_ids.size() && node_ids[k] != id) ++k;
        if (k == node_ids.size()) node_ids.push_back(id);
        t.node_index[std::size_t(r)] = int(k);
    }
    const std::size_t nodes = node_ids.size();
    t.node_first.assign(nodes + 1, 0);
    for (int r = 0; r < t.n; ++r) ++t.node_first[std::size_t(t.node_index[std::size_t(r)]) + 1];
    for (std::size_t k = 0; k < nodes; ++k) t.node_first[k + 1] += t.node_first[k];
    t.node_ranks.assign(std::size_t(t.n), 0);
    std::vector<int> fill(t.node_first.begin(), t.node_first.end() - 1);
    for (int r = 0; r < t.n; ++r) t.node_ranks[std::size_t(fill[std::size_t(t.node_index[std::size_t(r)])]++)] = r;
    t.nodes = int(nodes);
    // Only the node-aware collectives read the grouping (node_aware): a team within one node, or
    // with one member per node, never uses them, and keeps no 8 bytes per member (issue #50).
    if (nodes <= 1 || nodes >= std::size_t(t.n)) {
        std::vector<int>().swap(t.node_index);
        std::vector<int>().swap(t.node_first);
        std::vector<int>().swap(t.node_ranks);
    }
}

} // namespace

bool node_aware(frame &f) {
    team *t = f.t;
    if (!t || !f.has_from()) return false;
    if (t->nodes < 0) learn_nodes(*t);
    // Worth it when some node holds two members or more; the leaders' all-to-all is flat.
    return t->nodes > 1 && t->nodes < t->n && t->nodes <= coll_flat_max();
}

void sync_node(frame &f) {
    const nodes_view v = view(f);
    const int leader = leader_of(v, v.mine, -1);
    if (f.me != leader) {
        signal(f, leader, ctr::from(f.me));
        wait_ctr(f, ctr::from(leader), 1);
        return;
    }
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) wait_ctr(f, ctr::from(*r), 1);
    for (int k = 0; k < v.count(); ++k)
        if (k != v.mine) signal(f, leader_of(v, k, -1), ctr::from(f.me));
    for (int k = 0; k < v.count(); ++k)
        if (k != v.mine) wait_ctr(f, ctr::from(leader_of(v, k, -1)), 1);
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) signal(f, *r, ctr::from(f.me));
}

void bcast_node(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool team_sem) {
    const nodes_view v = view(f);
    const int leader = leader_of(v, v.mine, root);
    if (f.me != leader) {
        signal(f, leader, ctr::from(f.me));
        wait_ctr(f, ctr::from(leader), 1);  // the data came with it
        return;
    }
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) wait_ctr(f, ctr::from(*r), 1);
    const char *from = f.me == root ? src : dest;
    for (int k = 0; k < v.count(); ++k) {
        if (k == v.mine) continue;
        const int l = leader_of(v, k, root);
        if (f.me == root) put_signal(f, l, dest, src, bytes, ctr::from(f.me));
        else signal(f, l, ctr::from(f.me));
    }
    for (int k = 0; k < v.count(); ++k)
        if (k != v.mine) wait_ctr(f, ctr::from(leader_of(v, k, root)), 1);  // the root's: with the data
    if (f.me == root && team_sem) copy_local(dest, src, bytes);
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) put_signal(f, *r, dest, from, bytes, ctr::from(f.me));
}

void reduce_node(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op) {
    const std::size_t bytes = nelems * op.elem;
    const nodes_view v = view(f);
    const int leader = leader_of(v, v.mine, -1);
    // The gather region of this call's parity: slot r holds rank r's contribution on its node's
    // leader, and leader l's node partial on the other leaders.
    char *buf = gather_region(f);
    if (f.me != leader) {
        put_signal(f, leader, buf + std::size_t(f.me) * bytes, src, bytes, ctr::from(f.me));
        wait_ctr(f, ctr::from(leader), 1);  // the result came with it
        return;
    }
    // The node's partial in rank order (the leader is its node's lowest rank: its own first); node
    // order across the leaders: the same on every leader, so every member gets bit-identical results.
    std::vector<char> partial(src, src + bytes);
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) {
            wait_ctr(f, ctr::from(*r), 1);
            op.combine(partial.data(), buf + std::size_t(*r) * bytes, nelems);
        }
    for (int k = 0; k < v.count(); ++k)
        if (k != v.mine) put_signal(f, leader_of(v, k, -1), buf + std::size_t(f.me) * bytes, partial.data(), bytes, ctr::from(f.me));
    std::vector<char> result(bytes);
    bool have = false;
    for (int k = 0; k < v.count(); ++k) {
        const int l = leader_of(v, k, -1);
        const char *p = partial.data();
        if (k != v.mine) {
            wait_ctr(f, ctr::from(l), 1);
            p = buf + std::size_t(l) * bytes;
        }
        if (!have) std::memcpy(result.data(), p, bytes);
        else op.combine(result.data(), p, nelems);
        have = true;
    }
    std::memcpy(dest, result.data(), bytes);
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) put_signal(f, *r, dest, result.data(), bytes, ctr::from(f.me));
}

// Elements per chunk of reduce_node_read: the two halves of the gather region each hold one
// chunk from every node (0: not even one element fits).
std::size_t node_read_chunk(const frame &f, std::size_t elem) {
    const std::size_t nodes = std::size_t(f.t->nodes);
    return nodes ? f.gbytes / 2 / nodes / elem : 0;
}

// Reductions too large for the leaders' gather of every member's contribution (reduce_node):
// the leader reads its node's members' sources where they are (direct; a get where the node's
// peers are not reached by load/store), so only node partials take room, L of them per chunk
// (L nodes). Chunks alternate between the two halves of the gather region: a leader sends chunk
// c + 1 only after every other leader's chunk c arrived, which each sent after it had combined
// chunk c - 1 from the same half. One network exchange per chunk, each block crossing once per
// other node: 4 simulated hosts x 8 PEs, 64 KiB 1.08 ms, against 4.8 by reduce-scatter +
// allgather over all 32 PEs (MPI 2.8).
// Combined in the order reduce_node uses (a node's members in rank order, the nodes in node
// order): bit-identical on every member. A member's source is read until its release, so dest
// may be src.
void reduce_node_read(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op) {
    const std::size_t E = op.elem, bytes = nelems * E;
    const nodes_view v = view(f);
    const int leader = leader_of(v, v.mine, -1);
    char *region = gather_region(f);  // by every member: the halves alternate alike
    if (f.me != leader) {
        signal(f, leader, ctr::from(f.me));  // our source is ready
        wait_ctr(f, ctr::from(leader), 1);   // the result came with it
        return;
    }
    const std::size_t L = std::size_t(v.count()), ce = node_read_chunk(f, E), cbytes = ce * E;
    struct member {
        int pe;
        const char *at;  // its source, or nullptr: read with gets
    };
    std::vector<member> mem;
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r) {
        if (*r == f.me) continue;
        wait_ctr(f, ctr::from(*r), 1);
        const int pe = f.pe(*r);
        seg_id s;
        std::size_t off;
        locate_or_fail(f.routine, "source", src, bytes, pe, s, off);
        const peer &p = target(f.routine, pe, s);
        mem.push_back({pe, p.how[s] == route::direct ? p.direct[s] + off : nullptr});
    }
    std::vector<char> part(cbytes), got;
    for (std::size_t b = 0, c = 0; b < nelems; b += ce, ++c) {
        const std::size_t len = std::min(ce, nelems - b), off = b * E, nb = len * E;
        char *half = region + (c & 1) * L * cbytes;
        std::memcpy(part.data(), src + off, nb);
        for (const member &m : mem) {
            const char *from = m.at ? m.at + off : nullptr;
            if (!from) {
                got.resize(cbytes);
                get(f.routine, g_cctx, got.data(), src + off, nb, m.pe, false);
                from = got.data();
            }
            op.combine(part.data(), from, len);
        }
        for (int k = 0; k < v.count(); ++k)
            if (k != v.mine) put_signal(f, leader_of(v, k, -1), half + std::size_t(v.mine) * cbytes, part.data(), nb, ctr::from(f.me));
        for (int k = 0; k < v.count(); ++k) {
            const char *p = part.data();
            if (k != v.mine) {
                wait_ctr(f, ctr::from(leader_of(v, k, -1)), 1);
                p = half + std::size_t(k) * cbytes;
            }
            if (k == 0) std::memmove(dest + off, p, nb);
            else op.combine(dest + off, p, len);
        }
    }
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) put_signal(f, *r, dest, dest, bytes, ctr::from(f.me));
}

// fcollect and collect: every member's block into its leader's dest (a store on the node), the
// node's blocks to every other leader (one put for the usual block placement of ranks on nodes),
// then the whole dest to every member of the node. Each block crosses the network once per other
// node; between two hosts of two PEs, 2 network messages where the central exchange sends 4 and
// the flat one 8. Rank r's block is at off[r] and len[r] bytes long (collect), or, without
// offsets (fcollect), at r * bytes and `bytes` long.
void collect_node(frame &f, char *dest, const char *src, std::size_t bytes, const std::size_t *off,
                  const std::size_t *len) {
    auto at = [&](int r) { return off ? off[r] : std::size_t(r) * bytes; };
    auto size = [&](int r) { return off ? len[r] : bytes; };
    const nodes_view v = view(f);
    const int leader = leader_of(v, v.mine, -1);
    if (f.me != leader) {
        put_signal(f, leader, dest + at(f.me), src, size(f.me), ctr::from(f.me));
        wait_ctr(f, ctr::from(leader), 1);  // the whole result came with it
        return;
    }
    copy_local(dest + at(f.me), src, size(f.me));
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) wait_ctr(f, ctr::from(*r), 1);
    // The node's ranks, ascending: consecutive (the usual block placement) when the last is as
    // far from the first as their count says, and then so are their blocks: one put with its
    // signal. Evenly spaced (ranks dealt round-robin over the nodes, --map-by node) and fcollect:
    // one strided put with its signal (over emulated RMA one message, where a put per rank
    // needed a fence before the signal, a round trip over tcp: 4 simulated hosts x 8 PEs,
    // 8 B: 160 us against 536). Else a put per rank.
    const int *first = v.begin(v.mine), *end = v.end(v.mine);
    const bool consecutive = *(end - 1) - *first == end - first - 1;
    const int gap = end - first > 1 ? first[1] - first[0] : 1;
    bool spaced = !off && end - first > 1;
    for (const int *r = first + 1; spaced && r != end; ++r) spaced = *r - *(r - 1) == gap;
    for (int k = 0; k < v.count(); ++k) {
        if (k == v.mine) continue;
        const int l = leader_of(v, k, -1);
        if (consecutive) {
            char *from = dest + at(*first);
            put_signal(f, l, from, from, at(*(end - 1)) + size(*(end - 1)) - at(*first), ctr::from(f.me));
            continue;
        }
        if (spaced) {
            char *from = dest + at(*first);
            const std::size_t step = std::size_t(gap) * bytes;
            put_strided_signal(f, l, from, step, from, step, bytes, std::size_t(end - first), ctr::from(f.me));
            continue;
        }
        bool ucx = false, direct = false;
        for (const int *r = first; r != end; ++r) {
            char *from = dest + at(*r);
            if (size(*r)) (put_to(f, l, from, from, size(*r)) ? ucx : direct) = true;
        }
        signal_after(f, l, ctr::from(f.me), ucx, direct);
    }
    for (int k = 0; k < v.count(); ++k)
        if (k != v.mine) wait_ctr(f, ctr::from(leader_of(v, k, -1)), 1);
    const std::size_t all = at(f.n - 1) + size(f.n - 1);
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) put_signal(f, *r, dest, dest, all, ctr::from(f.me));
}

} // namespace ushmem::core::coll
