// alltoall and alltoalls (coll.hpp): flat, central and node-aware (the node view: coll.hpp).
#include "core/coll/coll.hpp"
#include "core/log.hpp"
#include "core/rma.hpp"
#include "util/strided.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace ushmem::core::coll {

void a2a_dest::unpack(const char *col) const { util::copy_strided(d, stride, col, elem, elem, count); }

void a2a_deliver(frame &f, int to, const a2a_dest &d, const char *col, char *region, int id) {
    put_signal(f, to, d.contiguous() ? d.d : region, col, d.count * d.elem, id);  // blocking: col may be refilled
}

void a2a_receive(frame &f, int from, const a2a_dest &d, const char *region) {
    wait_ctr(f, ctr::from(from), 1);
    if (!d.contiguous()) d.unpack(region);
}

namespace {
// More PEs than CPUs: every member's whole source (packed) to rank 0's gather region (row r at
// r * n * bytes), rank 0 returns to each member its column (2 (n - 1) messages instead of
// n (n - 1)).
void alltoall_central(frame &f, const a2a_dest &d, const char *src, std::size_t bytes) {
    const std::size_t n = std::size_t(f.n), row = n * bytes;
    char *buf = gather_to_root(f, src, row);
    if (!buf) return a2a_receive(f, 0, d, last_gather_region(f));
    std::vector<char> col(row);
    for (std::size_t k = 1; k <= n; ++k) {  // its own column last: the others can go on
        const std::size_t j = k % n;
        for (std::size_t r = 0; r < n; ++r) std::memcpy(col.data() + r * bytes, buf + r * row + j * bytes, bytes);
        if (j == 0) d.unpack(col.data());
        else a2a_deliver(f, int(j), d, col.data(), buf, ctr::from(0));
    }
}
} // namespace

void alltoall_impl(frame &f, void *dest, const void *src, std::size_t bytes) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t me = std::size_t(f.me);
    if (f.n == 1 || bytes == 0) return copy_local(d + me * bytes, s + me * bytes, bytes);
    shape sh{family::alltoall, f, bytes};
    sh.central_ok = true;
    sh.reads_ok = true;
    const plan p = select(sh);
    const a2a_dest ad{d, bytes, bytes, std::size_t(f.n)};
    if (p == plan::alltoall_central) return alltoall_central(f, ad, s, bytes);
    if (p == plan::alltoall_node) return alltoall_node(f, ad, s, bytes);
    if (p == plan::alltoall_node_read) return alltoall_node_read(f, d, s, bytes);
    const bool flat = p == plan::alltoall_flat;
    for (int k = 1; k < f.n; ++k) {
        int j = (f.me + k) % f.n;
        if (flat) put_signal(f, j, d + me * bytes, s + std::size_t(j) * bytes, bytes, ctr::from(f.me));
        else put_to(f, j, d + me * bytes, s + std::size_t(j) * bytes, bytes);
    }
    copy_local(d + me * bytes, s + me * bytes, bytes);  // after the others': they can go on
    if (flat) return flat_exchange_wait(f);
    complete_puts(f);
    group_sync(f);
}

void alltoalls_impl(frame &f, void *dest, const void *src, std::ptrdiff_t dst, std::ptrdiff_t sst,
                    std::size_t nelems, std::size_t elem) {
    if (dst < 1 || sst < 1)
        fatal(f.routine, "strides dst %td and sst %td must be >= 1", dst, sst);
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t me = std::size_t(f.me), ds = std::size_t(dst) * elem, ss = std::size_t(sst) * elem;
    auto own_block = [&] { util::copy_strided(d + me * nelems * ds, ds, s + me * nelems * ss, ss, elem, nelems); };
    if (f.n == 1 || nelems == 0) return own_block();
    shape sh{family::alltoall, f, nelems * elem};
    sh.central_ok = true;
    const plan p = select(sh);
    if (p == plan::alltoall_central || p == plan::alltoall_node) {
        // The source packed (it travels whole to one PE); the column comes back packed.
        const std::size_t count = std::size_t(f.n) * nelems;
        std::vector<char> packed(count * elem);
        util::copy_strided(packed.data(), elem, s, ss, elem, count);
        const a2a_dest ad{d, elem, ds, count};
        if (p == plan::alltoall_central) return alltoall_central(f, ad, packed.data(), nelems * elem);
        return alltoall_node(f, ad, packed.data(), nelems * elem);
    }
    own_block();
    const bool flat = p == plan::alltoall_flat;
    for (int k = 1; k < f.n; ++k) {
        std::size_t j = std::size_t((f.me + k) % f.n);
        put_strided_signal(f, int(j), d + me * nelems * ds, ds, s + j * nelems * ss, ss, elem, nelems,
                           flat ? ctr::from(f.me) : -1);
    }
    if (flat) return flat_exchange_wait(f);
    complete_puts(f);
    group_sync(f);
}

// alltoall: every member's whole source (its row of n blocks) to its node's leader; each leader
// sends every other leader, in one message, the blocks its node's members address to that
// leader's node; each leader then hands each of its members that member's column. Each block
// crosses the network once; between two hosts of two PEs, 2 network messages where the flat
// exchange sends 8 and the central one 4 (6 of them to or from rank 0).
// The leader's gather region of this call's parity, indexed by node position (the order of
// node_ranks, in which a node's members are consecutive whatever their ranks): the row of the
// member at position p at p * row; node k's region (its members' positions) on another node K's
// leader holds, instead, node k's blocks for K: i-th member of k to j-th member of K at
// (i * |K| + j) * bytes (|K| blocks per member of k: they fit in its row).
// A strided dest (alltoalls): the columns go packed, through each member's own region (a2a_dest).
void alltoall_node(frame &f, const a2a_dest &d, const char *src, std::size_t bytes) {
    const nodes_view v = view(f);
    const team &t = *f.t;
    const std::size_t n = std::size_t(f.n), row = n * bytes;
    const int leader = leader_of(v, v.mine, -1);
    char *buf = gather_region(f);
    auto first_pos = [&](int k) { return std::size_t(t.node_first[std::size_t(k)]); };
    auto members = [&](int k) { return std::size_t(v.end(k) - v.begin(k)); };
    const std::size_t mine_first = first_pos(v.mine), mine_n = members(v.mine);
    if (f.me != leader) {
        const std::size_t p = mine_first + std::size_t(std::find(v.begin(v.mine), v.end(v.mine), f.me) - v.begin(v.mine));
        put_signal(f, leader, buf + p * row, src, row, ctr::from(f.me));
        return a2a_receive(f, leader, d, buf);  // the column came with the signal
    }
    // The leader is its node's lowest rank, hence its first position.
    std::memcpy(buf + mine_first * row, src, row);
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) wait_ctr(f, ctr::from(*r), 1);
    std::vector<char> tmp(mine_n * row);  // a node's packed blocks for another (mine_n x |k| blocks), then a column
    for (int k = 0; k < v.count(); ++k) {
        if (k == v.mine) continue;
        const std::size_t kn = members(k);
        char *at = tmp.data();
        for (std::size_t i = 0; i < mine_n; ++i)
            for (const int *r = v.begin(k); r != v.end(k); ++r, at += bytes)
                std::memcpy(at, buf + (mine_first + i) * row + std::size_t(*r) * bytes, bytes);
        // Into the same region of the other leader's buffer as ours: positions of this node.
        put_signal(f, leader_of(v, k, -1), buf + mine_first * row, tmp.data(), mine_n * kn * bytes, ctr::from(f.me));
    }
    for (int k = 0; k < v.count(); ++k)
        if (k != v.mine) wait_ctr(f, ctr::from(leader_of(v, k, -1)), 1);
    // Each member's column: from this node's rows, and from every other node's packed blocks.
    char *col = tmp.data();
    for (std::size_t j = 0; j < mine_n; ++j) {
        const int to = v.begin(v.mine)[j];
        for (int k = 0; k < v.count(); ++k) {
            const std::size_t kn = members(k);
            for (std::size_t i = 0; i < kn; ++i) {
                const std::size_t from = std::size_t(v.begin(k)[i]);
                const char *blk = k == v.mine ? buf + (mine_first + i) * row + std::size_t(to) * bytes
                                              : buf + first_pos(k) * row + (i * mine_n + j) * bytes;
                std::memcpy(col + from * bytes, blk, bytes);
            }
        }
        if (to == f.me) d.unpack(col);
        else a2a_deliver(f, to, d, col, buf, ctr::from(f.me));
    }
}

// alltoall above what alltoall_node's gather holds: the leader reads its members' rows in place
// (get: a copy where they are direct) and writes into their dests, so the gather region only
// carries the leaders' exchange. Between nodes k and K the blocks of k's members for K's members
// form one stream (i-th member of k to j-th of K at (i |K| + j) bytes), the same length both ways;
// every leader sends every other the next chunk of its stream (node_read_chunk bytes; a bare
// signal once its stream is done) in rounds, as many as the longest stream needs, which every
// leader computes alike from the node sizes. Chunks alternate between the halves of the region:
// a leader sends round c + 1 only after every other leader's round c arrived, sent after that
// leader had unpacked round c - 1 from the same half. Each block crosses the network once; 4
// simulated hosts x 8 PEs: 4 KiB blocks 2.27 ms, 64 KiB 20.3, against 10.3 and 21.8 for the flat
// exchange (MPI 3.13 and 29.0).
void alltoall_node_read(frame &f, char *dest, const char *src, std::size_t bytes) {
    const nodes_view v = view(f);
    const int leader = leader_of(v, v.mine, -1);
    char *region = gather_region(f);  // by every member: the halves alternate alike
    if (f.me != leader) {
        signal(f, leader, ctr::from(f.me));  // our row is ready, our dest free
        wait_ctr(f, ctr::from(leader), 1);   // our column is in place
        return;
    }
    auto size = [&](int k) { return std::size_t(v.end(k) - v.begin(k)); };
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) wait_ctr(f, ctr::from(*r), 1);
    const std::size_t L = std::size_t(v.count()), cb = node_read_chunk(f, 1), mine_n = size(v.mine);
    bool ucx = false;
    // Block `q` of the stream from node `from` to node `to`: row of from's member q / |to|, column
    // of to's member q % |to|.
    auto walk = [&](int from, int to, std::size_t a, std::size_t b, auto &&fn) {
        const std::size_t cols = size(to);
        for (std::size_t q = a / bytes; q * bytes < b; ++q) {
            const std::size_t lo = std::max(a, q * bytes) - q * bytes, hi = std::min(b, (q + 1) * bytes) - q * bytes;
            fn(v.begin(from)[q / cols], v.begin(to)[q % cols], lo, hi - lo);
        }
    };
    std::vector<char> tmp(std::max(cb, std::min<std::size_t>(bytes, std::size_t(64) << 10)));
    // This node's own blocks, through tmp in pieces.
    for (const int *i = v.begin(v.mine); i != v.end(v.mine); ++i)
        for (const int *j = v.begin(v.mine); j != v.end(v.mine); ++j)
            for (std::size_t at = 0; at < bytes; at += tmp.size()) {
                const std::size_t len = std::min(tmp.size(), bytes - at);
                get(f.routine, g_cctx, tmp.data(), src + std::size_t(*j) * bytes + at, len, f.pe(*i), false);
                ucx |= put_to(f, *j, dest + std::size_t(*i) * bytes + at, tmp.data(), len);
            }
    std::size_t longest = 0;
    for (int k = 0; k < v.count(); ++k)
        for (int K = k + 1; K < v.count(); ++K) longest = std::max(longest, size(k) * size(K) * bytes);
    const std::size_t rounds = (longest + cb - 1) / cb;
    for (std::size_t c = 0; c < rounds; ++c) {
        char *half = region + (c & 1) * L * cb;
        const std::size_t a = c * cb;
        for (int k = 0; k < v.count(); ++k) {
            if (k == v.mine) continue;
            const std::size_t b = std::min(a + cb, mine_n * size(k) * bytes);
            char *at = tmp.data();
            if (a < b)
                walk(v.mine, k, a, b, [&](int row, int col, std::size_t off, std::size_t len) {
                    get(f.routine, g_cctx, at, src + std::size_t(col) * bytes + off, len, f.pe(row), false);
                    at += len;
                });
            put_signal(f, leader_of(v, k, -1), half + std::size_t(v.mine) * cb, tmp.data(), std::size_t(at - tmp.data()),
                       ctr::from(f.me));
        }
        for (int k = 0; k < v.count(); ++k) {
            if (k == v.mine) continue;
            wait_ctr(f, ctr::from(leader_of(v, k, -1)), 1);
            const std::size_t b = std::min(a + cb, size(k) * mine_n * bytes);
            const char *at = half + std::size_t(k) * cb;
            if (a < b)
                walk(k, v.mine, a, b, [&](int row, int col, std::size_t off, std::size_t len) {
                    ucx |= put_to(f, col, dest + std::size_t(row) * bytes + off, at, len);
                    at += len;
                });
        }
    }
    for (const int *r = v.begin(v.mine); r != v.end(v.mine); ++r)
        if (*r != f.me) signal_after(f, *r, ctr::from(f.me), ucx, true);
}

} // namespace ushmem::core::coll
