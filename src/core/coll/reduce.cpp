// Reductions (coll.hpp).
#include "core/coll/coll.hpp"
#include "core/log.hpp"
#include "core/ordering.hpp"
#include "core/peers.hpp"

#include <vector>

namespace ushmem::core::coll {

std::size_t chunk_elems(frame &f, bool hs, int nreg, std::size_t elem) {
    const std::size_t need = 2 * std::size_t(nreg) * elem;  // one chunk of one element per buffer
    std::size_t ce = chunk_area(f, hs) / need;
    // A team's chunk scratch is split in halves of whole lines (chunk_split): it needs twice that.
    if (ce == 0)
        fatal(f.routine, "the work array is too small for %d PEs (%zu bytes; need at least %zu)%s", f.n,
              f.cbytes, f.legacy() ? need : 2 * ((need + 63) / 64 * 64),
              f.legacy() ? "" : "; raise USHMEM_TEAM_SCRATCH");
    return ce;
}

namespace {

// The pairing that recursive doubling and reduce-scatter + allgather share: the largest power of
// two p2 <= n, the rem = n - p2 ranks above it folded in first, log2(p2) rounds, and a chunk
// region per partner distance (from region `first`) plus region 0 for the fold when there is one,
// of ce elements per chunk. Without a fold its region would take a share of the scratch for
// nothing: 2 PEs, 1 MiB over tcp, 128 KiB chunks instead of 256 KiB.
// A region's buffers, data counter and credits assume one sender: the sender's drain at the end
// of a call is what tells it that the receiver is done with them. So a region is tied to the
// partner, not to the round: region_of(m) takes the chunks from rank me ^ m in both algorithms,
// whose rounds meet the partners in opposite orders (recursive doubling me ^ 1 first,
// reduce-scatter me ^ p2/2 first). Numbered by round, a member that had finished one algorithm
// sent the next call's chunks into a region where a slower member still awaited the last call's
// from another partner: that member combined them as its own (issue #48: 4 PEs over tcp, sums of
// 4096 and 8192 longs alternating, a quarter of every element wrong).
struct butterfly {
    int p2, rem, rounds, first;
    regions R;
    std::size_t ce;
    butterfly(frame &f, std::size_t E)
        : p2(pow2_floor(f.n)), rem(f.n - p2), rounds(log2_of(p2)), first(rem ? 1 : 0),
          R(f, false, rounds + first, 0), ce(chunk_elems(f, false, rounds + first, E)) {
        R.chunk_bytes = ce * E;
    }
    // The region of the chunks exchanged with rank me ^ m (m a power of two below p2).
    int region_of(int m) const { return first + __builtin_ctz(unsigned(m)); }
};

// Chunked recursive doubling (any route). Non-powers of two: the PEs above the largest power of
// two fold their data into a partner first and get the result back at the end.
void reduce_rd(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op) {
    const std::size_t E = op.elem;
    butterfly b(f, E);
    auto &[p2, rem, rounds, first, R, ce] = b;
    copy_local(dest, src, nelems * E);
    std::size_t idx = 0;
    for (std::size_t c0 = 0; c0 < nelems; c0 += ce, ++idx) {
        const std::size_t len = std::min(ce, nelems - c0), bytes = len * E;
        const int par = int(idx & 1);
        char *acc = dest + c0 * E;
        if (f.me >= p2) {
            R.send(0, f.me - p2, acc, bytes, par);
            wait_ctr(f, ctr::result, 1);
            continue;
        }
        if (f.me < rem) {
            op.combine(acc, R.recv(0, par), len);
            R.release(0, f.me + p2);
        }
        for (int r = 0; r < rounds; ++r) {
            const int m = 1 << r, partner = f.me ^ m, k = b.region_of(m);
            R.send(k, partner, acc, bytes, par);
            op.combine(acc, R.recv(k, par), len);
            R.release(k, partner);
        }
        if (f.me < rem) put_signal(f, f.me + p2, acc, acc, bytes, ctr::result);
    }
    R.drain();
}

// Reduce-scatter by recursive halving, then allgather by recursive doubling (Rabenseifner), for
// large reductions off the direct path: each PE sends about 2 x the message instead of log2(n) x
// (recursive doubling), and combines half of it. Round i of the reduce-scatter (mask p2 >> (i+1))
// halves the region the pair shares; each member keeps one half and sends its partial of the
// other through the partner's chunk region of that mask (butterfly::region_of) (two chunks in flight, as in
// recursive doubling), combining the partner's chunks into its dest. The allgather then puts each
// member's finished part straight into the partner's dest, over the half the partner gave away:
// the partner is done with it, since every chunk it sent from there has arrived here. Ranks above
// the largest power of two fold into a partner first through region 0 and get the result put
// back. Every block is combined by one PE, in the same order for every block: bit-identical
// results everywhere. Every member hears, through the butterfly, from every other one before it
// returns: the call ends only once every member has entered it.
void reduce_rsag(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op) {
    const std::size_t E = op.elem;
    butterfly b(f, E);
    auto &[p2, rem, rounds, first, R, ce] = b;
    // Elements between this member and rank `to` through region k: send ours of [slo, shi),
    // receive theirs of [rlo, rhi) and combine them into dest. `fresh`: this member has combined
    // nothing into dest yet, so it sends from src, and its own part of each received chunk is
    // copied from src just before it is combined, instead of the whole message up front: one pass
    // over the kept half, while the chunk is in cache, and none over the half sent away (1 MiB,
    // 2 PEs: 512 KiB copied instead of 1 MiB).
    auto exchange = [&](int k, int to, std::size_t slo, std::size_t shi, std::size_t rlo, std::size_t rhi,
                        bool fresh) {
        const char *from = fresh ? src : dest;
        const std::size_t ns = (shi - slo + ce - 1) / ce, nr = (rhi - rlo + ce - 1) / ce;
        for (std::size_t j = 0; j < std::max(ns, nr); ++j) {
            const int par = int(j & 1);
            if (j < ns) {
                const std::size_t at = slo + j * ce;
                R.send(k, to, from + at * E, std::min(ce, shi - at) * E, par);
            }
            if (j < nr) {
                const std::size_t at = rlo + j * ce, len = std::min(ce, rhi - at);
                const char *in = R.recv(k, par);
                if (fresh) copy_local(dest + at * E, src + at * E, len * E);
                op.combine(dest + at * E, in, len);
                R.release(k, to);
            }
        }
    };
    if (f.me >= p2) {
        exchange(0, f.me - p2, 0, nelems, 0, 0, true);
        wait_ctr(f, ctr::result, 1);
        return R.drain();
    }
    // A member that takes a fold has all of its dest combined before the butterfly starts.
    const bool folded = f.me < rem;
    if (folded) exchange(0, f.me + p2, 0, 0, 0, nelems, true);
    std::size_t los[32], his[32];
    std::size_t lo = 0, hi = nelems;
    for (int i = 0; i < rounds; ++i) {
        const int m = p2 >> (i + 1), partner = f.me ^ m;
        const std::size_t mid = lo + (hi - lo) / 2;
        los[i] = lo;
        his[i] = hi;
        // Round 0 of an unfolded member starts from src; every later round from the partials in dest.
        const bool fresh = i == 0 && !folded;
        if (f.me & m) {
            exchange(b.region_of(m), partner, lo, mid, mid, hi, fresh);
            lo = mid;
        } else {
            exchange(b.region_of(m), partner, mid, hi, lo, mid, fresh);
            hi = mid;
        }
    }
    for (int i = rounds - 1; i >= 0; --i) {
        const int m = p2 >> (i + 1), partner = f.me ^ m;
        // Ours is [lo, hi): the half of round i's region we kept; theirs, the other half.
        put_signal(f, partner, dest + lo * E, dest + lo * E, (hi - lo) * E, ctr::from(f.me));
        wait_ctr(f, ctr::from(partner), 1);
        lo = los[i];
        hi = his[i];
    }
    if (f.me < rem) put_signal(f, f.me + p2, dest, dest, nelems * E, ctr::result);
    R.drain();
}

// Same node: every PE reduces its slice of the elements by reading every member's source, then
// writes the result slice into every member's dest. Needs no scratch; every slice is computed by
// one PE, so every PE gets bit-identical results.
void reduce_scatter_direct(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op) {
    const std::size_t E = op.elem;
    entry_sync(f);
    std::vector<const char *> srcs(std::size_t(f.n));
    std::vector<char *> dsts(std::size_t(f.n));
    for (int r = 0; r < f.n; ++r) {
        srcs[std::size_t(r)] = dptr(f, r, src);
        dsts[std::size_t(r)] = dptr(f, r, dest);
    }
    const std::size_t lo = nelems * std::size_t(f.me) / std::size_t(f.n);
    const std::size_t hi = nelems * std::size_t(f.me + 1) / std::size_t(f.n);
    const std::size_t B = std::max<std::size_t>(1, 16384 / E);
    for (std::size_t b = lo; b < hi; b += B) {
        const std::size_t len = std::min(B, hi - b), off = b * E, bytes = len * E;
        char *acc = dest + off;
        copy_local(acc, src + off, bytes);
        for (int r = 0; r < f.n; ++r)
            if (r != f.me) op.combine(acc, srcs[std::size_t(r)] + off, len);
        for (int k = 1; k < f.n; ++k) std::memcpy(dsts[std::size_t((f.me + k) % f.n)] + off, acc, bytes);
    }
    store_fence();
    for (int k = 1; k < f.n; ++k) signal(f, (f.me + k) % f.n, ctr::done);
    wait_ctr(f, ctr::done, std::uint64_t(f.n - 1));
}

void reduce_gather(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op) {
    const std::size_t bytes = nelems * op.elem;
    const char *buf = gather(f, src, bytes);
    std::memcpy(dest, buf, bytes);
    for (int r = 1; r < f.n; ++r) op.combine(dest, buf + std::size_t(r) * bytes, nelems);
}

// More PEs than CPUs: the contributions to rank 0, which combines them (in rank order, as the
// gather does) and sends the result back: 2 (n - 1) messages instead of n (n - 1), and one wait
// for most members. dest may be src: rank 0 reads its own from the gather region.
void reduce_central(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op) {
    const std::size_t bytes = nelems * op.elem;
    const char *buf = gather_to_root(f, src, bytes);
    if (!buf) return central_wait(f);
    std::memcpy(dest, buf, bytes);
    for (int r = 1; r < f.n; ++r) op.combine(dest, buf + std::size_t(r) * bytes, nelems);
    for (int r = 1; r < f.n; ++r) central_reply(f, r, dest, dest, bytes);
}

} // namespace

void reduce_impl(frame &f, void *dest, const void *src, std::size_t nelems, reduce_op op, void *pwrk,
                 std::size_t pwrk_bytes) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t bytes = nelems * op.elem;
    if (f.n == 1 || nelems == 0) return copy_local(d, s, bytes);
    shape sh{family::reduce, f, bytes, dest, src};
    sh.elem = op.elem;
    switch (select(sh)) {
    case plan::reduce_gather: return reduce_gather(f, d, s, nelems, op);
    case plan::reduce_central: return reduce_central(f, d, s, nelems, op);
    case plan::reduce_scatter: return reduce_scatter_direct(f, d, s, nelems, op);
    case plan::reduce_node: return reduce_node(f, d, s, nelems, op);
    case plan::reduce_node_read: return reduce_node_read(f, d, s, nelems, op);
    case plan::reduce_rsag: return reduce_rsag(f, d, s, nelems, op);
    default: break;
    }
    if (f.legacy()) {
        // Active sets: the user's pWrk is the chunk scratch.
        if (!pwrk) fatal(f.routine, "pWrk is a null pointer; pass a symmetric work array");
        seg_id ws;
        std::size_t wo;
        locate_or_fail(f.routine, "pWrk", pwrk, pwrk_bytes, rt.me, ws, wo);
        f.cbuf = static_cast<char *>(pwrk);
        f.cbytes = pwrk_bytes;
    }
    reduce_rd(f, d, s, nelems, op);
}

} // namespace ushmem::core::coll
