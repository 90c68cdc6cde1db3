// util/put_pack: the records of a put pack as the sender writes them and the target reads them
// back (core/put_pack.cpp; the handler in core/atomic.cpp), and the target's refusal of a
// malformed pack before it applies any record.
#include "util/put_pack.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace pp = ushmem::util::put_pack;

namespace {
struct seen {
    std::uint64_t addr;
    std::vector<unsigned char> bytes;
    pp::kind k;
};

std::vector<seen> read_back(const std::vector<char> &pack, std::size_t n, bool *ok) {
    std::vector<seen> out;
    *ok = pp::for_each(
        pack.data(), n, [](std::uint64_t, std::size_t) { return true; },
        [&](std::uint64_t a, const void *d, std::size_t len, pp::kind k) {
            const auto *b = static_cast<const unsigned char *>(d);
            out.push_back({a, std::vector<unsigned char>(b, b + len), k});
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
        want.push_back({addr, std::vector<unsigned char>(src, src + n), pp::kind::put});
        EXPECT_EQ(at % 8, 0u) << "records stay 8-byte aligned";
    }
    bool ok = false;
    const auto got = read_back(pack, at, &ok);
    ASSERT_TRUE(ok);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].addr, want[i].addr) << "record " << i;
        EXPECT_EQ(got[i].bytes, want[i].bytes) << "record " << i;
        EXPECT_EQ(got[i].k, pp::kind::put) << "record " << i;
    }
}

// Non-fetching atomics travel as records of their own kind, among the puts, in order.
TEST(PutPack, AtomicRecordsKeepTheirKindAndPlace) {
    std::vector<char> pack(256);
    std::size_t at = 0;
    const std::uint64_t v64 = 0x0123456789abcdefull;
    const std::uint32_t v32 = 0xdeadbeefu;
    const unsigned char bytes[3] = {9, 8, 7};
    pp::append(pack.data(), at, 0x1000, bytes, 3);
    at += pp::record_bytes(3);
    pp::append(pack.data(), at, 0x2008, &v64, 8, pp::kind::add);
    at += pp::record_bytes(8);
    pp::append(pack.data(), at, 0x3004, &v32, 4, pp::kind::bxor);
    at += pp::record_bytes(4);
    pp::append(pack.data(), at, 0x4000, &v64, 8, pp::kind::set);
    at += pp::record_bytes(8);
    bool ok = false;
    const auto got = read_back(pack, at, &ok);
    ASSERT_TRUE(ok);
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0].k, pp::kind::put);
    EXPECT_EQ(got[1].k, pp::kind::add);
    EXPECT_EQ(got[1].addr, 0x2008u);
    std::uint64_t r64 = 0;
    std::uint32_t r32 = 0;
    ASSERT_EQ(got[1].bytes.size(), 8u);
    std::memcpy(&r64, got[1].bytes.data(), 8);
    EXPECT_EQ(r64, v64);
    EXPECT_EQ(got[2].k, pp::kind::bxor);
    ASSERT_EQ(got[2].bytes.size(), 4u);
    std::memcpy(&r32, got[2].bytes.data(), 4);
    EXPECT_EQ(r32, v32);
    EXPECT_EQ(got[3].k, pp::kind::set);
}

// An atomic record that is not one aligned 4- or 8-byte word, or of an unknown kind, is refused
// with the whole pack.
TEST(PutPack, MalformedAtomicRecordAppliesNothing) {
    const std::uint64_t v = 1;
    struct bad {
        std::uint64_t addr;
        std::size_t len;
        std::uint32_t kind;
    };
    for (const bad b : {bad{0x2004, 8, 1}, bad{0x2002, 4, 2}, bad{0x2000, 2, 3}, bad{0x2000, 16, 1},
                        bad{0x2000, 8, pp::kind_max + 1}}) {
        std::vector<char> pack(64);
        const unsigned char src[8] = {1};
        pp::append(pack.data(), 0, 0x1000, src, 8);
        pp::append(pack.data(), 24, b.addr, &v, b.len <= 8 ? b.len : 8, pp::kind(b.kind));
        if (b.len > 8) {  // a 16-byte "atomic": its own length word
            const std::uint32_t len = std::uint32_t(b.len);
            std::memcpy(pack.data() + 24 + 8, &len, 4);
        }
        bool ok = true;
        EXPECT_TRUE(read_back(pack, 24 + pp::record_bytes(b.len), &ok).empty()) << "addr " << b.addr << " len " << b.len;
        EXPECT_FALSE(ok) << "addr " << b.addr << " len " << b.len << " kind " << b.kind;
    }
    // The same with a valid one: accepted.
    std::vector<char> pack(64);
    pp::append(pack.data(), 0, 0x2000, &v, 8, pp::kind::bor);
    bool ok = false;
    EXPECT_EQ(read_back(pack, pp::record_bytes(8), &ok).size(), 1u);
    EXPECT_TRUE(ok);
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
        [](std::uint64_t, const void *, std::size_t, pp::kind) { FAIL(); }));
}

TEST(PutPack, RecordRefusedByTheCheckAppliesNothing) {
    std::vector<char> pack(64);
    const unsigned char src[8] = {1};
    pp::append(pack.data(), 0, 0x1000, src, 8);
    pp::append(pack.data(), 24, 0x2000, src, 8);
    std::size_t applied = 0;
    EXPECT_FALSE(pp::for_each(
        pack.data(), 48, [](std::uint64_t a, std::size_t) { return a != 0x2000; },
        [&](std::uint64_t, const void *, std::size_t, pp::kind) { ++applied; }));
    EXPECT_EQ(applied, 0u) << "the first record must not be applied when the second is refused";
}
