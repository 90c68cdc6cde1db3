// util/strided and util/copy: every element size (the fixed-size copies and the general one), both strides,
// contiguous on both sides, and the bytes between elements left alone.
#include "util/strided.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using ushmem::util::copy_strided;

namespace {
// Copies `count` elements of `elem` bytes, source stride ss and dest stride ds (in elements), and
// checks every byte of the dest: element bytes from the source, the rest untouched (0xEE).
void check_copy(std::size_t elem, std::size_t ds, std::size_t ss, std::size_t count) {
    std::vector<unsigned char> src(count * ss * elem + elem), dst(count * ds * elem + elem, 0xEE);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
    copy_strided(dst.data(), ds * elem, src.data(), ss * elem, elem, count);
    for (std::size_t i = 0; i < dst.size(); ++i) {
        const std::size_t e = i / (ds * elem), b = i % (ds * elem);
        const bool in = e < count && b < elem;
        const unsigned char want = in ? src[e * ss * elem + b] : 0xEE;
        ASSERT_EQ(dst[i], want) << "elem " << elem << " ds " << ds << " ss " << ss << " byte " << i;
    }
}
} // namespace

TEST(CopyStrided, EveryElementSizeAndStride) {
    for (std::size_t elem : {1u, 2u, 3u, 4u, 8u, 12u, 16u, 32u})
        for (std::size_t ds : {1u, 2u, 5u})
            for (std::size_t ss : {1u, 3u})
                for (std::size_t count : {0u, 1u, 7u, 64u}) check_copy(elem, ds, ss, count);
}

TEST(CopyStrided, NothingToCopyTouchesNothing) {
    // Zero-length calls pass NULL (public test suites do): no copy of zero bytes from it either.
    copy_strided(nullptr, 8, nullptr, 8, 8, 0);
    copy_strided(nullptr, 16, nullptr, 8, 8, 0);
}

TEST(CopyStrided, UnalignedAddresses) {
    // The typed copies must not assume alignment (a byte buffer at an odd offset).
    std::vector<unsigned char> src(1 + 8 * 10), dst(1 + 16 * 10, 0);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i + 3);
    copy_strided(dst.data() + 1, 16, src.data() + 1, 8, 8, 10);
    for (std::size_t e = 0; e < 10; ++e)
        for (std::size_t b = 0; b < 8; ++b) ASSERT_EQ(dst[1 + e * 16 + b], src[1 + e * 8 + b]);
}

// util::copy_once: every size up to 40 bytes at every offset of a 16-byte line copies exactly the
// bytes asked for and touches none around them (the guard bytes keep their value).
TEST(CopyOnce, ExactBytesEverySizeAndOffset) {
    for (std::size_t n = 0; n <= 40; ++n)
        for (std::size_t at = 0; at < 16; ++at) {
            std::vector<unsigned char> src(64), dst(64, 0xEE);
            for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
            ushmem::util::copy_once(dst.data() + at, src.data() + 3, n);
            for (std::size_t i = 0; i < dst.size(); ++i) {
                const bool inside = i >= at && i < at + n;
                ASSERT_EQ(dst[i], inside ? src[3 + i - at] : 0xEE) << "n=" << n << " at=" << at << " byte " << i;
            }
        }
}
