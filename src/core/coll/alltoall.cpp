// alltoall and alltoalls (coll.hpp).
#include "core/coll/coll.hpp"
#include "core/log.hpp"
#include "util/strided.hpp"

#include <vector>

namespace ushmem::core::coll {

void a2a_dest::unpack(const char *col) const { util::copy_strided(d, stride, col, elem, elem, count); }

void a2a_deliver(frame &f, int to, const a2a_dest &d, const char *col, char *region, int id) {
    put_signal(f, to, d.contiguous() ? d.d : region, col, d.count * d.elem, id);  // blocking: col may be refilled
}

void a2a_receive(frame &f, int from, const a2a_dest &d, const char *region) {
    wait_ctr(f, ctr::from(from), 1);
    if (!d.contiguous()) d.unpack(region);
}

namespace {
// More PEs than CPUs: every member's whole source (packed) to rank 0's gather region (row r at
// r * n * bytes), rank 0 returns to each member its column (2 (n - 1) messages instead of
// n (n - 1)).
void alltoall_central(frame &f, const a2a_dest &d, const char *src, std::size_t bytes) {
    const std::size_t n = std::size_t(f.n), row = n * bytes;
    char *buf = gather_to_root(f, src, row);
    if (!buf) return a2a_receive(f, 0, d, last_gather_region(f));
    std::vector<char> col(row);
    for (std::size_t k = 1; k <= n; ++k) {  // its own column last: the others can go on
        const std::size_t j = k % n;
        for (std::size_t r = 0; r < n; ++r) std::memcpy(col.data() + r * bytes, buf + r * row + j * bytes, bytes);
        if (j == 0) d.unpack(col.data());
        else a2a_deliver(f, int(j), d, col.data(), buf, ctr::from(0));
    }
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
    const a2a_dest ad{d, bytes, bytes, std::size_t(f.n)};
    if (p == plan::alltoall_central) return alltoall_central(f, ad, s, bytes);
    if (p == plan::alltoall_node) return alltoall_node(f, ad, s, bytes);
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
    auto own_block = [&] { util::copy_strided(d + me * nelems * ds, ds, s + me * nelems * ss, ss, elem, nelems); };
    if (f.n == 1 || nelems == 0) return own_block();
    shape sh{family::alltoall, f, nelems * elem};
    sh.central_ok = true;
    const plan p = select(sh);
    if (p == plan::alltoall_central || p == plan::alltoall_node) {
        // The source packed (it travels whole to one PE); the column comes back packed.
        const std::size_t count = std::size_t(f.n) * nelems;
        std::vector<char> packed(count * elem);
        util::copy_strided(packed.data(), elem, s, ss, elem, count);
        const a2a_dest ad{d, elem, ds, count};
        if (p == plan::alltoall_central) return alltoall_central(f, ad, packed.data(), nelems * elem);
        return alltoall_node(f, ad, packed.data(), nelems * elem);
    }
    own_block();
    const bool flat = p == plan::alltoall_flat;
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
