// RMA: contiguous puts and gets (the direct route inline, UCX's out of line: rma.cpp) and strided
// transfers.
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/route.hpp"
#include "core/wait.hpp"
#include "util/copy.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ushmem::core {

void put_ucx(const char *routine, context &c, peer &p, int pe, seg_id s, std::size_t off,
             const void *src, std::size_t n, bool nbi);
void get_ucx(const char *routine, context &c, peer &p, int pe, seg_id s, std::size_t off,
             void *dst, std::size_t n, bool nbi);

// Copy for the direct route: util::copy_once (each destination byte written exactly once up to 16
// bytes, inline; memcpy above).
USHMEM_HOT void direct_copy(void *d, const void *s, std::size_t n) { util::copy_once(d, s, n); }

// Contiguous put of n bytes. Validated by the caller (check_running, check_pe).
USHMEM_HOT void put(const char *routine, context &c, void *dest, const void *src, std::size_t n,
                int pe, bool nbi) {
    seg_id s;
    std::size_t off;
    // Zero bytes touch no memory: any address, NULL included, is accepted (as public OpenSHMEM
    // test suites expect).
    if (USHMEM_UNLIKELY(n == 0)) return;
    locate_or_fail(routine, "destination", dest, n, pe, s, off);
    peer &p = target(routine, pe, s);
    if (USHMEM_LIKELY(p.how[s] == route::direct)) {
        c.note_direct();
        direct_copy(p.direct[s] + off, src, n);
        wake_after_store(p);
        return;
    }
    put_ucx(routine, c, p, pe, s, off, src, n, nbi);
}

USHMEM_HOT void get(const char *routine, context &c, void *dest, const void *src, std::size_t n,
                int pe, bool nbi) {
    seg_id s;
    std::size_t off;
    if (USHMEM_UNLIKELY(n == 0)) return;  // as in put
    locate_or_fail(routine, "source", src, n, pe, s, off);
    peer &p = target(routine, pe, s);
    if (USHMEM_LIKELY(p.how[s] == route::direct)) {
        direct_copy(dest, p.direct[s] + off, n);
        return;
    }
    get_ucx(routine, c, p, pe, s, off, dest, n, nbi);
}

// Strided transfers: nblocks blocks of `bsize` elements of `elem` bytes; consecutive blocks are
// `dst`/`sst` elements apart. iput/iget are the case bsize == 1.
void put_strided(const char *routine, context &c, void *dest, const void *src, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe);
void get_strided(const char *routine, context &c, void *dest, const void *src, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe);
} // namespace ushmem::core
