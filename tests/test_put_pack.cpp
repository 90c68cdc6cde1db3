// util/put_pack: the records of a put pack as the sender writes them and the target reads them
// back (core/put_pack.cpp; the handler in core/atomic.cpp), and the target's refusal of a
// malformed pack before it applies any record.
#include "util/put_pack.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace pp = ushmem::util::put_pack;

namespace {
struct seen {
    std::uint64_t addr;
    std::vector<unsigned char> bytes;
};

std::vector<seen> read_back(const std::vector<char> &pack, std::size_t n, bool *ok) {
    std::vector<seen> out;
    *ok = pp::for_each(
        pack.data(), n, [](std::uint64_t, std::size_t) { return true; },
        [&](std::uint64_t a, const void *d, std::size_t len) {
            const auto *b = static_cast<const unsigned char *>(d);
            out.push_back({a, std::vector<unsigned char>(b, b + len)});
        });
    return out;
}
} // namespace

TEST(PutPack, RecordsComeBackInOrder) {
    std::vector<char> pack(4096);
    std::size_t at = 0;
    std::vector<seen> want;
    unsigned char src[600];
    for (std::size_t i = 0; i < sizeof src; ++i) src[i] = static_cast<unsigned char>(i * 5 + 3);
    for (std::size_t n : {1u, 7u, 8u, 9u, 16u, 0u, 511u, 3u}) {
        const std::uint64_t addr = 0x7f0000001000ull + at * 3;
        ASSERT_LE(at + pp::record_bytes(n), pack.size());
        pp::append(pack.data(), at, addr, src, n);
        at += pp::record_bytes(n);
        want.push_back({addr, std::vector<unsigned char>(src, src + n)});
        EXPECT_EQ(at % 8, 0u) << "records stay 8-byte aligned";
    }
    bool ok = false;
    const auto got = read_back(pack, at, &ok);
    ASSERT_TRUE(ok);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].addr, want[i].addr) << "record " << i;
        EXPECT_EQ(got[i].bytes, want[i].bytes) << "record " << i;
    }
}

TEST(PutPack, RecordBytes) {
    EXPECT_EQ(pp::record_bytes(0), 16u);
    EXPECT_EQ(pp::record_bytes(1), 24u);
    EXPECT_EQ(pp::record_bytes(8), 24u);
    EXPECT_EQ(pp::record_bytes(9), 32u);
}

TEST(PutPack, MalformedPackAppliesNothing) {
    std::vector<char> pack(256);
    const unsigned char src[40] = {1, 2, 3};
    pp::append(pack.data(), 0, 0x1000, src, 8);
    pp::append(pack.data(), 24, 0x2000, src, 40);
    const std::size_t n = 24 + pp::record_bytes(40);
    bool ok = false;
    EXPECT_EQ(read_back(pack, n, &ok).size(), 2u);
    EXPECT_TRUE(ok);
    // Cut inside the second record's data, inside its head, and a non-zero pad word: refused
    // whole, with the first (valid) record not applied either.
    for (std::size_t cut : {n - 8, std::size_t(24 + 10), std::size_t(30)}) {
        EXPECT_TRUE(read_back(pack, cut, &ok).empty()) << "cut at " << cut;
        EXPECT_FALSE(ok) << "cut at " << cut;
    }
    pack[24 + 12] = 1;  // the second record's pad word
    EXPECT_TRUE(read_back(pack, n, &ok).empty());
    EXPECT_FALSE(ok);
    EXPECT_TRUE(pp::for_each(
        pack.data(), 0, [](std::uint64_t, std::size_t) { return true; },
        [](std::uint64_t, const void *, std::size_t) { FAIL(); }));
}

TEST(PutPack, RecordRefusedByTheCheckAppliesNothing) {
    std::vector<char> pack(64);
    const unsigned char src[8] = {1};
    pp::append(pack.data(), 0, 0x1000, src, 8);
    pp::append(pack.data(), 24, 0x2000, src, 8);
    std::size_t applied = 0;
    EXPECT_FALSE(pp::for_each(
        pack.data(), 48, [](std::uint64_t a, std::size_t) { return a != 0x2000; },
        [&](std::uint64_t, const void *, std::size_t) { ++applied; }));
    EXPECT_EQ(applied, 0u) << "the first record must not be applied when the second is refused";
}
