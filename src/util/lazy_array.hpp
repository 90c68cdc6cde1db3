// lazy_array<T>: an array indexed by PE whose memory the kernel commits a page at a time, on the
// first write to that page (issue #50: what a PE keeps per peer must not cost every PE of the job
// memory for every other PE, when most pairs of PEs never talk).
//
// Contract:
//  - reset(n) reserves n elements with mmap(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE) (or
//    throws std::bad_alloc, as the vector it replaces would) and writes nothing: every element reads as all-zero bytes. So T's empty state must be all-zero
//    bytes (a route of 0 is route::unresolved, a null pointer, a count of 0); the users check
//    theirs (tests/test_lazy_array.cpp). No constructor or destructor of T ever runs: T is
//    trivially destructible, and an element is "constructed" by being zero.
//  - Reads of a page never written cost no memory (the kernel maps its shared zero page), so
//    code may test an untouched peer's fields. The first write to a page commits 4 KiB (the
//    mapping is marked MADV_NOHUGEPAGE: with transparent huge pages "always", a write could
//    otherwise commit 2 MiB).
//  - Indexing is base[i] through one pointer, the first member, exactly like a vector's data():
//    no extra load or branch on the data path.
//  - release() (and the destructor, and reset) unmaps; it is idempotent. reset and release are
//    not thread-safe: they run at init, finalize, or a context's or team's creation and
//    destruction, with no other thread indexing the array.
//  - committed_bytes() counts the mapping's resident pages (mincore): those written, and those
//    only read (the zero page, which mincore cannot tell apart), so an upper bound of what the
//    array costs. lazy_arrays_committed() sums it over every array alive in the process, for the
//    statistics and the measurement of what a PE costs per peer (bench/shmem_private.c).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ushmem::util {

namespace lazy_detail {
// The live arrays' mappings, for lazy_arrays_committed (a few per context and team: a vector
// under a lock; registration is never on a data path).
struct mapping {
    const void *base;
    std::size_t bytes;
};
inline std::mutex g_lock;
inline std::vector<mapping> g_maps;

inline std::size_t page_size() {
    static const std::size_t p = std::size_t(sysconf(_SC_PAGESIZE));
    return p;
}
inline std::size_t round_up(std::size_t bytes) {
    const std::size_t p = page_size();
    return (bytes + p - 1) / p * p;
}
// Resident pages of [base, base + bytes), page aligned, in bytes; a fixed buffer per call of
// mincore, so that counting allocates nothing.
inline std::size_t resident_bytes(const void *base, std::size_t bytes) {
    const std::size_t p = page_size();
    unsigned char vec[1024];
    std::size_t n = 0;
    const auto *a = static_cast<const char *>(base);
    for (std::size_t off = 0; off < bytes; off += sizeof vec * p) {
        const std::size_t len = bytes - off < sizeof vec * p ? bytes - off : sizeof vec * p;
        if (mincore(const_cast<char *>(a + off), len, vec) != 0) return 0;
        for (std::size_t i = 0; i < (len + p - 1) / p; ++i) n += vec[i] & 1;
    }
    return n * p;
}
inline void *map(std::size_t bytes) {
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    madvise(p, bytes, MADV_NOHUGEPAGE);  // advice only: a kernel without THP refuses it harmlessly
    std::lock_guard<std::mutex> g(g_lock);
    g_maps.push_back({p, bytes});
    return p;
}
inline void unmap(void *p, std::size_t bytes) {
    {
        std::lock_guard<std::mutex> g(g_lock);
        for (std::size_t i = 0; i < g_maps.size(); ++i)
            if (g_maps[i].base == p) {
                g_maps[i] = g_maps.back();
                g_maps.pop_back();
                break;
            }
    }
    munmap(p, bytes);
}
} // namespace lazy_detail

// What every live lazy_array has reserved and has committed (committed_bytes), in bytes.
struct lazy_totals {
    std::size_t arrays = 0, reserved = 0, committed = 0;
};
inline lazy_totals lazy_arrays_committed() {
    std::lock_guard<std::mutex> g(lazy_detail::g_lock);
    lazy_totals t;
    for (const lazy_detail::mapping &m : lazy_detail::g_maps) {
        ++t.arrays;
        t.reserved += m.bytes;
        t.committed += lazy_detail::resident_bytes(m.base, m.bytes);
    }
    return t;
}

template <class T> class lazy_array {
    static_assert(std::is_trivially_destructible_v<T>, "lazy_array never runs destructors: T must not need one");

public:
    lazy_array() = default;
    lazy_array(const lazy_array &) = delete;
    lazy_array &operator=(const lazy_array &) = delete;
    lazy_array(lazy_array &&o) noexcept : base_(std::exchange(o.base_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    lazy_array &operator=(lazy_array &&o) noexcept {
        if (this != &o) {
            release();
            base_ = std::exchange(o.base_, nullptr);
            n_ = std::exchange(o.n_, 0);
        }
        return *this;
    }
    ~lazy_array() { release(); }

    // n zero elements (the previous ones released). n == 0 only releases. Throws std::bad_alloc
    // when the reservation is refused (the array is then empty), as the vector it replaces did.
    void reset(std::size_t n) {
        release();
        if (n == 0) return;
        void *p = n > SIZE_MAX / sizeof(T) ? nullptr : lazy_detail::map(lazy_detail::round_up(n * sizeof(T)));
        if (!p) throw std::bad_alloc();
        base_ = static_cast<T *>(p);
        n_ = n;
    }
    void release() {
        if (!base_) return;
        lazy_detail::unmap(base_, lazy_detail::round_up(n_ * sizeof(T)));
        base_ = nullptr;
        n_ = 0;
    }

    T &operator[](std::size_t i) const { return base_[i]; }
    T *data() const { return base_; }
    std::size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    explicit operator bool() const { return base_ != nullptr; }
    // (No begin/end: a loop over every element reads every page; keep a list of those written.)

    std::size_t reserved_bytes() const { return base_ ? lazy_detail::round_up(n_ * sizeof(T)) : 0; }
    std::size_t committed_bytes() const { return base_ ? lazy_detail::resident_bytes(base_, reserved_bytes()) : 0; }

private:
    T *base_ = nullptr;  // first: indexing loads it as it would a vector's data()
    std::size_t n_ = 0;
};

} // namespace ushmem::util
