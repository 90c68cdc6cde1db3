// alltoall and alltoalls (coll.hpp).
#include "core/coll/coll.hpp"

namespace ushmem::core::coll {

void alltoall_impl(frame &f, void *dest, const void *src, std::size_t bytes) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t me = std::size_t(f.me);
    if (f.n == 1 || bytes == 0) return copy_local(d + me * bytes, s + me * bytes, bytes);
    shape sh{family::alltoall, f, bytes};
    const bool flat = select(sh) == plan::alltoall_flat;
    for (int k = 1; k < f.n; ++k) {
        int j = (f.me + k) % f.n;
        if (flat) put_signal(f, j, d + me * bytes, s + std::size_t(j) * bytes, bytes, ctr::from(f.me));
        else put_to(f, j, d + me * bytes, s + std::size_t(j) * bytes, bytes);
    }
    copy_local(d + me * bytes, s + me * bytes, bytes);  // after the others': they can go on
    if (flat) return flat_exchange_wait(f);
    complete_puts(f);
    group_sync(f);
}

void alltoalls_impl(frame &f, void *dest, const void *src, std::ptrdiff_t dst, std::ptrdiff_t sst,
                    std::size_t nelems, std::size_t elem) {
    if (dst < 1 || sst < 1)
        fatal(f.routine, "strides dst %td and sst %td must be >= 1", dst, sst);
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t me = std::size_t(f.me), ds = std::size_t(dst) * elem, ss = std::size_t(sst) * elem;
    // Own block: local strided copy.
    for (std::size_t i = 0; i < nelems; ++i)
        std::memmove(d + (me * nelems + i) * ds, s + (me * nelems + i) * ss, elem);
    if (f.n == 1 || nelems == 0) return;
    shape sh{family::alltoall, f, nelems * elem};
    const bool flat = select(sh) == plan::alltoall_flat;
    for (int k = 1; k < f.n; ++k) {
        std::size_t j = std::size_t((f.me + k) % f.n);
        put_strided_signal(f, int(j), d + me * nelems * ds, ds, s + j * nelems * ss, ss, elem, nelems,
                           flat ? ctr::from(f.me) : -1);
    }
    if (flat) return flat_exchange_wait(f);
    complete_puts(f);
    group_sync(f);
}

} // namespace ushmem::core::coll
