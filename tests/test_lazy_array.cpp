// util::lazy_array (src/util/lazy_array.hpp): reserving costs nothing, a write commits one page,
// reads find zeros, release is idempotent; and the element types ushmem keeps in lazy arrays have
// all-zero bytes as their empty state, which is what an untouched page holds.
#include "util/lazy_array.hpp"

#include "core/context.hpp"
#include "core/peers.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

namespace util = ushmem::util;
namespace core = ushmem::core;

namespace {
const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));

// T{} as bytes is all zeros: an element never written (a zero page) reads as its empty state.
// (Types without padding, whose every byte T{} writes.)
template <class T> bool default_is_zero() {
    alignas(T) unsigned char buf[sizeof(T)];
    std::memset(buf, 0xa5, sizeof buf);
    T *t = new (buf) T{};
    bool zero = true;
    for (unsigned char c : buf) zero = zero && c == 0;
    t->~T();
    return zero;
}
} // namespace

TEST(LazyArray, ReserveCommitsNothing) {
    struct alignas(64) entry {
        char bytes[64];
    };
    util::lazy_array<entry> a;
    EXPECT_FALSE(a);
    EXPECT_TRUE(a.empty());
    EXPECT_EQ(a.committed_bytes(), 0u);
    a.reset(1 << 20);  // a million PEs' entries: 64 MiB reserved
    ASSERT_TRUE(a);
    EXPECT_EQ(a.size(), std::size_t(1) << 20);
    EXPECT_EQ(a.reserved_bytes(), std::size_t(64) << 20);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 64, 0u);  // a cache line per entry
    EXPECT_EQ(a.committed_bytes(), 0u);
}

TEST(LazyArray, WriteCommitsItsPage) {
    util::lazy_array<std::uint64_t> a;
    const std::size_t per_page = page / sizeof(std::uint64_t);
    a.reset(100 * per_page);
    a[5 * per_page + 3] = 42;
    EXPECT_EQ(a.committed_bytes(), page);
    a[5 * per_page + 7] = 43;  // the same page
    EXPECT_EQ(a.committed_bytes(), page);
    a[100 * per_page - 1] = 44;  // the last element
    EXPECT_EQ(a.committed_bytes(), 2 * page);
    EXPECT_EQ(a[5 * per_page + 3], 42u);
    EXPECT_EQ(a[100 * per_page - 1], 44u);
    // Untouched elements read as zero (the zero page: mincore may count it, so no count here).
    EXPECT_EQ(a[0], 0u);
    EXPECT_EQ(a[50 * per_page], 0u);
}

TEST(LazyArray, AtomicsInZeroPages) {
    util::lazy_array<std::atomic<std::uint64_t>> a;
    a.reset(1000);
    EXPECT_EQ(a[999].load(), 0u);
    EXPECT_EQ(a[999].fetch_add(5), 0u);
    EXPECT_EQ(a[999].load(), 5u);
    EXPECT_EQ(a[998].load(), 0u);
}

TEST(LazyArray, ReleaseIdempotentResetZeroes) {
    util::lazy_array<std::uint32_t> a;
    a.reset(10);
    a[3] = 7;
    a.release();
    EXPECT_FALSE(a);
    EXPECT_EQ(a.size(), 0u);
    a.release();  // twice: nothing
    a.reset(10);
    EXPECT_EQ(a[3], 0u);  // a fresh reservation: zero again
    a[3] = 7;
    a.reset(0);  // releases
    EXPECT_FALSE(a);
    EXPECT_EQ(a.reserved_bytes(), 0u);
}

TEST(LazyArray, MoveTransfersTheMapping) {
    util::lazy_array<std::uint32_t> a;
    a.reset(10);
    a[1] = 9;
    util::lazy_array<std::uint32_t> b(std::move(a));
    EXPECT_FALSE(a);
    ASSERT_TRUE(b);
    EXPECT_EQ(b[1], 9u);
    util::lazy_array<std::uint32_t> c;
    c.reset(5);
    c = std::move(b);  // c's own mapping released, b's taken
    EXPECT_FALSE(b);
    EXPECT_EQ(c.size(), 10u);
    EXPECT_EQ(c[1], 9u);
}

TEST(LazyArray, RefusedReservationThrows) {
    util::lazy_array<std::uint64_t> a;
    EXPECT_THROW(a.reset(SIZE_MAX / 2), std::bad_alloc);
    EXPECT_FALSE(a);
}

TEST(LazyArray, TotalsCoverLiveArrays) {
    const util::lazy_totals before = util::lazy_arrays_committed();
    {
        util::lazy_array<std::uint8_t> a, b;
        a.reset(3 * page);
        b.reset(page);
        a[2 * page] = 1;
        b[0] = 1;
        const util::lazy_totals t = util::lazy_arrays_committed();
        EXPECT_EQ(t.arrays, before.arrays + 2);
        EXPECT_EQ(t.reserved, before.reserved + 4 * page);
        EXPECT_EQ(t.committed, before.committed + 2 * page);
    }
    const util::lazy_totals after = util::lazy_arrays_committed();
    EXPECT_EQ(after.arrays, before.arrays);
    EXPECT_EQ(after.committed, before.committed);
}

// What ushmem keeps in lazy arrays reads as empty where never written.
TEST(LazyArray, ElementTypesAreEmptyAsZeros) {
    EXPECT_TRUE(default_is_zero<std::atomic<std::uint64_t>>());
    EXPECT_TRUE(default_is_zero<std::atomic<std::int64_t>>());
    EXPECT_TRUE(default_is_zero<std::atomic<int>>());
    EXPECT_TRUE(default_is_zero<core::peer *>());
    // A peer entry (it has padding): every field of a zero page's entry equals peer{}'s.
    util::lazy_array<core::peer> a;
    a.reset(1);
    const core::peer &z = a[0];
    const core::peer p{};
    for (int s = 0; s < core::seg_count; ++s) {
        EXPECT_EQ(z.how[s], p.how[s]);
        EXPECT_EQ(z.direct[s], p.direct[s]);
        EXPECT_EQ(z.rbase[s], p.rbase[s]);
        EXPECT_EQ(z.rkey[s], p.rkey[s]);
    }
    EXPECT_EQ(z.msg_signals, p.msg_signals);
    EXPECT_EQ(z.msg_puts, p.msg_puts);
    EXPECT_EQ(z.wired, p.wired);
    EXPECT_EQ(z.listed, p.listed);
    EXPECT_EQ(z.ep, p.ep);
    EXPECT_EQ(p.how[core::seg_heap], core::route::unresolved);
    // A context's pending bits: 0 is "nothing to complete".
    util::lazy_array<std::uint8_t> pending;
    pending.reset(1);
    EXPECT_EQ(pending[0] & (core::pend_flush | core::pend_acks | core::pend_pack | core::pend_gets), 0);
}
