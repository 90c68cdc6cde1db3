// ushmem util: the strided copy that every strided transfer reduces to (packing a strided source
// into a message, storing a message's elements a stride apart, a column into a strided dest).
// No dependency on the other layers.
#pragma once

#include "util/copy.hpp"

#include <cstddef>
#include <cstring>

namespace ushmem::util {

namespace detail {
template <std::size_t E>
inline void copy_strided_fixed(char *d, std::size_t dstride, const char *s, std::size_t sstride, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) std::memcpy(d + i * dstride, s + i * sstride, E);
}
} // namespace detail

// `count` elements of `elem` bytes: element i from src + i * sstride to dst + i * dstride.
// The element sizes of the typed routines get a copy of known size (a load and a store): a
// memcpy call per element of run-time size cost a 2-PE alltoalls of 128 longs on one node 1.2 us,
// against 0.2 for the contiguous alltoall. Contiguous on both sides: one copy.
inline void copy_strided(void *dst, std::size_t dstride, const void *src, std::size_t sstride, std::size_t elem,
                         std::size_t count) {
    auto *d = static_cast<char *>(dst);
    const auto *s = static_cast<const char *>(src);
    if (count == 0) return;  // no memory touched: any pointer, NULL included (zero-length calls)
    if (dstride == elem && sstride == elem) return copy_once(d, s, elem * count);  // (util/copy.hpp)
    switch (elem) {
    case 1: return detail::copy_strided_fixed<1>(d, dstride, s, sstride, count);
    case 2: return detail::copy_strided_fixed<2>(d, dstride, s, sstride, count);
    case 4: return detail::copy_strided_fixed<4>(d, dstride, s, sstride, count);
    case 8: return detail::copy_strided_fixed<8>(d, dstride, s, sstride, count);
    case 16: return detail::copy_strided_fixed<16>(d, dstride, s, sstride, count);
    default:
        for (std::size_t i = 0; i < count; ++i) std::memcpy(d + i * dstride, s + i * sstride, elem);
    }
}

} // namespace ushmem::util
