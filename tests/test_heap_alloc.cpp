// The symmetric heap allocator: determinism, alignment, coalescing, exhaustion accounting.
#include "core/heap_alloc.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using ushmem::core::heap_allocator;

TEST(HeapAlloc, FirstFitAndAlignment) {
    heap_allocator h(1 << 20);
    auto a = h.allocate(10);
    ASSERT_TRUE(a);
    EXPECT_EQ(*a, 0u);
    auto b = h.allocate(100);
    ASSERT_TRUE(b);
    EXPECT_EQ(*b, 64u);  // 10 bytes rounded to the 64-byte default alignment
    auto c = h.allocate(1, 4096);
    ASSERT_TRUE(c);
    EXPECT_EQ(*c % 4096, 0u);
    EXPECT_EQ(h.live_blocks(), 3u);
}

TEST(HeapAlloc, RejectsBadAlignmentAndOversize) {
    heap_allocator h(1 << 20);
    EXPECT_FALSE(h.allocate(8, 3));
    EXPECT_FALSE(h.allocate((1 << 20) + 1));
    EXPECT_FALSE(h.allocate(SIZE_MAX));
    EXPECT_TRUE(h.allocate(1 << 20));
    EXPECT_EQ(h.free_bytes(), 0u);
    EXPECT_FALSE(h.allocate(1));
}

TEST(HeapAlloc, FreeCoalescesNeighbours) {
    heap_allocator h(64 * 10);
    std::vector<std::size_t> offs;
    for (int i = 0; i < 10; ++i) offs.push_back(*h.allocate(64));
    EXPECT_EQ(h.largest_free_block(), 0u);
    EXPECT_TRUE(h.release(offs[3]));
    EXPECT_TRUE(h.release(offs[5]));
    EXPECT_EQ(h.largest_free_block(), 64u);
    EXPECT_TRUE(h.release(offs[4]));  // joins 3 and 5
    EXPECT_EQ(h.largest_free_block(), 192u);
    EXPECT_FALSE(h.release(offs[4]));  // double free is reported
    EXPECT_FALSE(h.release(12345));
    EXPECT_EQ(*h.allocate(192), offs[3]);
}

TEST(HeapAlloc, ResizeInPlace) {
    heap_allocator h(64 * 8);
    auto a = *h.allocate(64);
    auto b = *h.allocate(64);
    EXPECT_FALSE(h.resize_in_place(a, 128));  // b is in the way
    EXPECT_TRUE(h.release(b));
    EXPECT_TRUE(h.resize_in_place(a, 256));
    EXPECT_EQ(h.block_size(a), 256u);
    EXPECT_TRUE(h.resize_in_place(a, 64));
    EXPECT_EQ(h.block_size(a), 64u);
    EXPECT_EQ(h.free_bytes(), 64u * 7);
}

TEST(HeapAlloc, DeterministicAcrossInstances) {
    // Two PEs making the same calls must get the same offsets: run one random sequence twice.
    auto run = [] {
        heap_allocator h(1 << 22);
        std::mt19937 rng(42);
        std::vector<std::size_t> live, trace;
        for (int i = 0; i < 5000; ++i) {
            if (!live.empty() && rng() % 3 == 0) {
                std::size_t k = rng() % live.size();
                h.release(live[k]);
                live.erase(live.begin() + long(k));
            } else if (auto o = h.allocate(1 + rng() % 5000, std::size_t(1) << (rng() % 13))) {
                live.push_back(*o);
                trace.push_back(*o);
            }
        }
        return trace;
    };
    EXPECT_EQ(run(), run());
}

TEST(HeapAlloc, AccountingNeverDrifts) {
    heap_allocator h(1 << 20);
    std::mt19937 rng(7);
    std::vector<std::pair<std::size_t, std::size_t>> live;
    for (int i = 0; i < 20000; ++i) {
        if (!live.empty() && rng() % 2) {
            std::size_t k = rng() % live.size();
            ASSERT_TRUE(h.release(live[k].first));
            live.erase(live.begin() + long(k));
        } else if (auto o = h.allocate(1 + rng() % 3000)) {
            // No overlap with any live block.
            std::size_t sz = h.block_size(*o);
            for (auto &[off, len] : live) ASSERT_TRUE(*o + sz <= off || off + len <= *o);
            live.emplace_back(*o, sz);
        }
        std::size_t used = 0;
        for (auto &[off, len] : live) used += len;
        ASSERT_EQ(h.free_bytes() + used, h.capacity());
    }
}
