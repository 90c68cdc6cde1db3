// RMA: contiguous puts and gets (the direct route inline, UCX's out of line: rma.cpp) and strided
// transfers.
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/route.hpp"
#include "core/wait.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ushmem::core {

void put_ucx(const char *routine, context &c, peer &p, int pe, seg_id s, std::size_t off,
             const void *src, std::size_t n, bool nbi);
void get_ucx(const char *routine, context &c, peer &p, int pe, seg_id s, std::size_t off,
             void *dst, std::size_t n, bool nbi);

// Copy for the direct route. Up to 16 bytes (single elements: shmem_p, flags, small puts) the copy
// is inline: two possibly overlapping loads and stores of the widest power of two that fits, so
// the put makes no call at all (a call to memcpy for 8 bytes costs its PLT jump and keeps the
// caller's registers saved on the stack: ~1.5 ns of a 11 ns put+quiet). An aligned 8-byte element
// is still written with one store, as the waiters on it (wait_until) expect. Larger: memcpy.
USHMEM_HOT void direct_copy(void *d, const void *s, std::size_t n) {
    auto *dc = static_cast<char *>(d);
    auto *sc = static_cast<const char *>(s);
    if (USHMEM_LIKELY(n <= 16)) {
        if (n >= 8) {
            std::uint64_t a, b;
            __builtin_memcpy(&a, sc, 8);
            __builtin_memcpy(&b, sc + n - 8, 8);
            __builtin_memcpy(dc, &a, 8);
            __builtin_memcpy(dc + n - 8, &b, 8);
        } else if (n >= 4) {
            std::uint32_t a, b;
            __builtin_memcpy(&a, sc, 4);
            __builtin_memcpy(&b, sc + n - 4, 4);
            __builtin_memcpy(dc, &a, 4);
            __builtin_memcpy(dc + n - 4, &b, 4);
        } else if (n >= 2) {
            std::uint16_t a, b;
            __builtin_memcpy(&a, sc, 2);
            __builtin_memcpy(&b, sc + n - 2, 2);
            __builtin_memcpy(dc, &a, 2);
            __builtin_memcpy(dc + n - 2, &b, 2);
        } else {
            *dc = *sc;  // n == 1 (n == 0 never reaches here)
        }
        return;
    }
    std::memcpy(d, s, n);
}

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
