// ushmem util: the strided copy that every strided transfer reduces to (packing a strided source
// into a message, storing a message's elements a stride apart, a column into a strided dest).
// No dependency on the other layers.
#pragma once

#include <cstddef>
#include <cstring>

namespace ushmem::util {

// `count` elements of `elem` bytes: element i from src + i * sstride to dst + i * dstride.
inline void copy_strided(void *dst, std::size_t dstride, const void *src, std::size_t sstride, std::size_t elem,
                         std::size_t count) {
    auto *d = static_cast<char *>(dst);
    const auto *s = static_cast<const char *>(src);
    for (std::size_t i = 0; i < count; ++i) std::memcpy(d + i * dstride, s + i * sstride, elem);
}

} // namespace ushmem::util
