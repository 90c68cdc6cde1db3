// collect and fcollect (coll.hpp).
#include "core/coll/coll.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "core/wait.hpp"

#include <vector>

namespace ushmem::core::coll {
namespace {

// offsets[r]: where rank r's block starts; sizes[r]: its length. Data of every rank goes straight
// to its final place in every member's dest.
// The other PEs' copies first: they can go on while we copy our own block.
void collect_flat(frame &f, char *dest, const char *src, std::size_t bytes, std::size_t my_off) {
    for (int k = 1; k < f.n; ++k) put_signal(f, (f.me + k) % f.n, dest + my_off, src, bytes, ctr::from(f.me));
    copy_local(dest + my_off, src, bytes);
    flat_exchange_wait(f);
}

void collect_barrier(frame &f, char *dest, const char *src, std::size_t bytes, std::size_t my_off) {
    for (int k = 1; k < f.n; ++k) put_to(f, (f.me + k) % f.n, dest + my_off, src, bytes);
    copy_local(dest + my_off, src, bytes);
    complete_puts(f);
    group_sync(f);
}

void collect_ring(frame &f, char *dest, const char *src, const std::vector<std::size_t> &off,
                  const std::vector<std::size_t> &len) {
    const int n = f.n, next = (f.me + 1) % n;
    copy_local(dest + off[std::size_t(f.me)], src, len[std::size_t(f.me)]);
    for (int s = 0; s < n - 1; ++s) {
        std::size_t b = std::size_t((f.me - s + n) % n);
        put_signal(f, next, dest + off[b], dest + off[b], len[b], ctr::ring);
        wait_ctr(f, ctr::ring, 1);
    }
}

// More PEs than CPUs: the blocks to rank 0's gather region, the whole result back from it
// (2 (n - 1) messages instead of n (n - 1)). The region, not rank 0's dest: rank 0 may not have
// entered the call yet.
void collect_central(frame &f, char *dest, const char *src, std::size_t bytes) {
    const char *buf = gather_to_root(f, src, bytes);
    if (!buf) return central_wait(f);
    const std::size_t all = bytes * std::size_t(f.n);
    std::memcpy(dest, buf, all);
    for (int r = 1; r < f.n; ++r) central_reply(f, r, dest, dest, all);
}

} // namespace

void fcollect_impl(frame &f, void *dest, const void *src, std::size_t bytes) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t my_off = std::size_t(f.me) * bytes;
    if (f.n == 1) return copy_local(d, s, bytes);
    if (bytes == 0) return;
    shape sh{family::collect, f, bytes};
    sh.central_ok = true;
    const plan p = select(sh);
    if (p == plan::collect_ring) {
        std::vector<std::size_t> off(std::size_t(f.n)), len(std::size_t(f.n), bytes);
        for (int r = 0; r < f.n; ++r) off[std::size_t(r)] = std::size_t(r) * bytes;
        return collect_ring(f, d, s, off, len);
    }
    if (p == plan::collect_flat) return collect_flat(f, d, s, bytes, my_off);
    if (p == plan::collect_central) return collect_central(f, d, s, bytes);
    if (p == plan::collect_node) return collect_node(f, d, s, bytes);
    collect_barrier(f, d, s, bytes, my_off);
}

void collect_impl(frame &f, void *dest, const void *src, std::size_t bytes) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    if (f.n == 1) return copy_local(d, s, bytes);
    if (gather_fits(f, 8)) {
        // Every PE learns every size: offsets for all, so any data algorithm works.
        std::uint64_t mine = bytes;
        const auto *sz = reinterpret_cast<const std::uint64_t *>(gather(f, &mine, 8));
        std::vector<std::size_t> off(std::size_t(f.n)), len(std::size_t(f.n));
        std::size_t acc = 0;
        for (int r = 0; r < f.n; ++r) {
            off[std::size_t(r)] = acc;
            len[std::size_t(r)] = sz[r];
            acc += sz[r];
        }
        shape sh{family::collect, f, bytes};
        const plan p = select(sh);
        if (p == plan::collect_ring) return collect_ring(f, d, s, off, len);
        if (p == plan::collect_node) return collect_node(f, d, s, bytes, off.data(), len.data());
        return collect_flat(f, d, s, bytes, off[std::size_t(f.me)]);
    }
    // Offsets by a chain: rank r learns the total of ranks below it from rank r - 1.
    std::size_t my_off = 0;
    if (f.me > 0) my_off = std::size_t(take_value(f, ctr::value) - 1);
    if (f.me < f.n - 1) {
        const int pe = f.pe(f.me + 1);
        peer &p = target(f.routine, pe, f.cseg);
        const std::size_t off = f.coff + f.cofs(ctr::value);
        const std::uint64_t v = my_off + bytes + 1;
        if (p.how[f.cseg] == route::direct) {
            __atomic_fetch_add(reinterpret_cast<std::uint64_t *>(p.direct[f.cseg] + off), v, __ATOMIC_RELEASE);
            wake_peer(p);
        } else
            ucx_add(f.routine, p, pe, f.cseg, off, v);
    }
    shape sh{family::collect, f, bytes};
    sh.offsets_known = false;
    if (select(sh) == plan::collect_flat) return collect_flat(f, d, s, bytes, my_off);
    collect_barrier(f, d, s, bytes, my_off);
}


} // namespace ushmem::core::coll
