// Scans (coll.hpp).
#include "core/coll/coll.hpp"
#include "core/ordering.hpp"

#include <vector>

namespace ushmem::core::coll {
namespace {

// Scans. `acc` holds the running inclusive partial; exclusive scans also sum what they receive.
void scan_hs(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op, bool incl) {
    const std::size_t E = op.elem;
    const int rounds = log2_of(f.n);
    regions R(f, true, rounds, 0);
    const std::size_t ce = chunk_elems(f, true, std::max(rounds, 1), E);
    R.chunk_bytes = ce * E;
    std::vector<char> tmp;
    char *accbase = dest;
    if (!incl) {
        tmp.assign(src, src + nelems * E);
        accbase = tmp.data();
        std::memset(dest, 0, nelems * E);
    } else {
        copy_local(dest, src, nelems * E);
    }
    std::size_t idx = 0;
    for (std::size_t c0 = 0; c0 < nelems; c0 += ce, ++idx) {
        const std::size_t len = std::min(ce, nelems - c0), bytes = len * E;
        const int par = int(idx & 1);
        char *acc = accbase + c0 * E;
        for (int r = 0; r < rounds; ++r) {
            const int d = 1 << r;
            if (f.me + d < f.n) R.send(r, f.me + d, acc, bytes, par);
            if (f.me - d >= 0) {
                const char *b = R.recv(r, par);
                if (!incl) op.combine(dest + c0 * E, b, len);
                op.combine(acc, b, len);
                R.release(r, f.me - d);
            }
        }
    }
    R.drain();
    // Rank r heard from the ranks below it only: end once every member has entered (bcast_impl).
    group_sync(f);
}

void scan_read(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op, bool incl) {
    const std::size_t E = op.elem, bytes = nelems * E;
    entry_sync(f);
    const bool inplace = dest == src;
    std::vector<char> tmp;
    char *out = dest;
    if (inplace) {
        tmp.resize(bytes);
        out = tmp.data();
    }
    const int last = incl ? f.me : f.me - 1;  // ranks 0..last contribute
    if (last < 0) {
        std::memset(out, 0, bytes);
    } else {
        std::vector<const char *> srcs(std::size_t(last + 1));
        for (int r = 0; r <= last; ++r) srcs[std::size_t(r)] = r == f.me ? src : dptr(f, r, src);
        const std::size_t B = std::max<std::size_t>(1, 16384 / E);
        for (std::size_t b = 0; b < nelems; b += B) {
            const std::size_t len = std::min(B, nelems - b), off = b * E;
            std::memcpy(out + off, srcs[0] + off, len * E);
            for (int r = 1; r <= last; ++r) op.combine(out + off, srcs[std::size_t(r)] + off, len);
        }
    }
    store_fence();
    for (int r = 0; r < f.me; ++r) signal(f, r, ctr::done);  // done reading rank r's source
    wait_ctr(f, ctr::done, std::uint64_t(f.n - 1 - f.me));      // the ranks above read ours
    if (inplace) std::memcpy(dest, out, bytes);
}

void scan_gather(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op, bool incl) {
    const std::size_t bytes = nelems * op.elem;
    const char *buf = gather(f, src, bytes, true);
    const int last = incl ? f.me : f.me - 1;
    if (last < 0) return (void)std::memset(dest, 0, bytes);
    std::memcpy(dest, buf, bytes);
    for (int r = 1; r <= last; ++r) op.combine(dest, buf + std::size_t(r) * bytes, nelems);
}

} // namespace

void scan_impl(frame &f, void *dest, const void *src, std::size_t nelems, reduce_op op, bool inclusive) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t bytes = nelems * op.elem;
    if (nelems == 0) return;
    if (f.n == 1) {
        if (inclusive) copy_local(d, s, bytes);
        else std::memset(d, 0, bytes);
        return;
    }
    shape sh{family::scan, f, bytes, dest, src};
    switch (select(sh)) {
    case plan::scan_gather: return scan_gather(f, d, s, nelems, op, inclusive);
    case plan::scan_read: return scan_read(f, d, s, nelems, op, inclusive);
    default: return scan_hs(f, d, s, nelems, op, inclusive);
    }
}

} // namespace ushmem::core::coll
