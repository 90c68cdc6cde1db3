// The copy that writes a put's data into symmetric memory (direct stores, and the handlers of
// messages that carry puts): every destination byte is written exactly once up to 16 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ushmem::util {

// Up to 16 bytes (single elements: shmem_p, flags, small puts) the copy is inline, so a put makes
// no call (a call to memcpy for 8 bytes cost ~1.5 ns of an 11 ns put + quiet), and it writes each
// byte of the destination exactly once: one store for 1, 2, 4, 8 and 16-byte elements (waiters on
// them, wait_until, see the whole value at once), otherwise one store per set bit of n. glibc's
// memcpy of a run-time size, like the overlapping-halves copy used here before, stores a 4-byte
// value twice (first and last 4 bytes): with more PEs than CPUs the writer can be descheduled
// between the two stores, and a target that had seen the value and reset its flag found the old
// value written into it again a cycle later (Mellanox's verifier, issue #48 item 2). Larger:
// memcpy (a put of more than 16 bytes gives no order among its bytes to observe).
[[gnu::always_inline]] inline void copy_once(void *d, const void *s, std::size_t n) {
    auto *dc = static_cast<char *>(d);
    auto *sc = static_cast<const char *>(s);
    if (n == 8) {  // the commonest element first (longs, doubles, pointers): one test
        std::uint64_t a;
        std::memcpy(&a, sc, 8);
        std::memcpy(dc, &a, 8);
        return;
    }
    if (n > 16) [[unlikely]] {
        std::memcpy(d, s, n);
        return;
    }
    if (n == 16) {
        std::uint64_t a, b;
        std::memcpy(&a, sc, 8);
        std::memcpy(&b, sc + 8, 8);
        std::memcpy(dc, &a, 8);
        std::memcpy(dc + 8, &b, 8);
        return;
    }
    std::size_t i = 0;
    if (n & 8) {
        std::uint64_t a;
        std::memcpy(&a, sc, 8);
        std::memcpy(dc, &a, 8);
        i = 8;
    }
    if (n & 4) {
        std::uint32_t a;
        std::memcpy(&a, sc + i, 4);
        std::memcpy(dc + i, &a, 4);
        i += 4;
    }
    if (n & 2) {
        std::uint16_t a;
        std::memcpy(&a, sc + i, 2);
        std::memcpy(dc + i, &a, 2);
        i += 2;
    }
    if (n & 1) dc[i] = sc[i];
}

} // namespace ushmem::util
