// alltoall and alltoalls (coll.hpp).
#include "core/coll/coll.hpp"

#include <vector>

namespace ushmem::core::coll {

namespace {
// More PEs than CPUs: every member's whole source to rank 0's gather region (row r at
// r * n * bytes), rank 0 returns to each member its column (2 (n - 1) messages instead of
// n (n - 1)).
void alltoall_central(frame &f, char *dest, const char *src, std::size_t bytes) {
    const std::size_t n = std::size_t(f.n), row = n * bytes;
    const char *buf = gather_to_root(f, src, row);
    if (!buf) return central_wait(f);
    std::vector<char> col(row);
    for (std::size_t j = 1; j < n; ++j) {
        for (std::size_t r = 0; r < n; ++r) std::memcpy(col.data() + r * bytes, buf + r * row + j * bytes, bytes);
        central_reply(f, int(j), dest, col.data(), row);  // a blocking put: col may be refilled
    }
    for (std::size_t r = 0; r < n; ++r) std::memcpy(dest + r * bytes, buf + r * row, bytes);
}
} // namespace

void alltoall_impl(frame &f, void *dest, const void *src, std::size_t bytes) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t me = std::size_t(f.me);
    if (f.n == 1 || bytes == 0) return copy_local(d + me * bytes, s + me * bytes, bytes);
    shape sh{family::alltoall, f, bytes};
    sh.central_ok = true;
    const plan p = select(sh);
    if (p == plan::alltoall_central) return alltoall_central(f, d, s, bytes);
    if (p == plan::alltoall_node) return alltoall_node(f, d, s, bytes);
    const bool flat = p == plan::alltoall_flat;
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
