// ushmem C++ API: dist_array<T>, an array of n elements distributed over a team of P members in
// blocks of b elements dealt round-robin (block-cyclic): block j (global indices [j * b, (j + 1) *
// b)) lives on member j % P. By default b = ceil(n / P), one block per member (a block
// distribution: member r holds [r * b, min((r + 1) * b, n))); dist_array(n, block_cyclic{b})
// chooses b.
#pragma once

#include <ushmem/batch.hpp>
#include <ushmem/collectives.hpp>
#include <ushmem/team.hpp>

#include <type_traits>
#include <utility>
#include <vector>

namespace ushmem {

// The block size of a block-cyclic dist_array (elements per block, at least 1).
struct block_cyclic {
    std::size_t block;
};

// Construction and destruction are collective over every PE (the symmetric heap is the world's):
// PEs outside the team (an invalid team from a split) take part and hold no elements, and cannot
// address the array by global index. Elements are value-initialised. Move-only.
//
// Global access by index (get, put, fetch_add, at) goes to the owner's copy: a direct load/store
// on the same node, otherwise the transport. The bulk forms split a global range by owner and
// issue the pieces as one batch (one event).
template <class T> class dist_array {
    static_assert(std::is_trivially_copyable_v<T>, "symmetric data must be trivially copyable");

public:
    // Over the world team.
    explicit dist_array(std::size_t n, wait_limit limit = {}) : dist_array(n, world(), limit) {}
    // Over team `t`. Every PE calls it with the same n; PEs outside `t` pass the invalid team they
    // got from the split. Bounded as symmetric<T> (a world sync under the limit first).
    dist_array(std::size_t n, const team &t, wait_limit limit = {})
        : n_(n), block_(agree(t.valid() ? ceil_div(n, std::size_t(t.n_pes())) : 0, t, limit)), cap_(block_),
          data_(cap_ ? cap_ : 1, limit) {
        members(t);
    }
    // Block-cyclic over team `t` (default the world) in blocks of `bc.block` elements: every PE
    // passes the same n and block. Each member stores ceil(ceil(n / b) / P) blocks.
    dist_array(std::size_t n, block_cyclic bc, const team &t = world(), wait_limit limit = {})
        : n_(n), block_(check_block(bc.block)),
          cap_(agree(t.valid() ? ceil_div(ceil_div(n, block_), std::size_t(t.n_pes())) * block_ : 0, t, limit)),
          data_(cap_ ? cap_ : 1, limit) {
        members(t);
    }

    std::size_t size() const noexcept { return n_; }
    // Elements per block: per member for the default distribution (the last members may hold
    // fewer, or none), the given b for a block-cyclic one.
    std::size_t block() const noexcept { return block_; }
    // Whether some member holds more than one block (then local_range() has no meaning).
    bool cyclic() const noexcept { return block_ != 0 && ceil_div(n_, block_) > pes_.size(); }
    // Members of the team (0 on PEs outside it).
    int team_size() const noexcept { return int(pes_.size()); }
    // This PE's rank in the team, -1 outside it.
    int team_rank() const noexcept { return rank_; }

    // The team rank owning global index i, and its PE number (world) for the RMA calls.
    int owner(std::size_t i) const {
        check_index(i, "owner");
        return int((i / block_) % pes_.size());
    }
    int owner_pe(std::size_t i) const { return pes_[std::size_t(owner(i))]; }
    // The global indices this PE holds, [first, last), when it holds at most one block (not
    // cyclic()); a block-cyclic array with several blocks per member throws invalid_argument (use
    // for_each or global_index).
    std::pair<std::size_t, std::size_t> local_range() const {
        if (rank_ < 0) return {0, 0};
        if (cyclic()) [[unlikely]]
            detail::throw_invalid("dist_array::local_range", "the array is block-cyclic with several blocks per PE, so "
                                  "this PE's indices are not one range; use for_each(f(i, v)) or global_index(k)");
        const std::size_t first = std::min(n_, std::size_t(rank_) * block_);
        return {first, std::min(n_, first + block_)};
    }
    // How many elements this PE holds (0 outside the team).
    std::size_t local_size() const noexcept {
        if (rank_ < 0 || n_ == 0) return 0;
        const std::size_t blocks = ceil_div(n_, block_), P = pes_.size(), r = std::size_t(rank_);
        if (r >= blocks) return 0;
        const std::size_t mine = (blocks - 1 - r) / P + 1;  // blocks r, r + P, ... below `blocks`
        const bool has_last = (blocks - 1) % P == r;         // the last block may be short
        return mine * block_ - (has_last ? blocks * block_ - n_ : 0);
    }
    // The global index of this PE's k-th element (local order is global order).
    std::size_t global_index(std::size_t k) const noexcept {
        return ((k / block_) * pes_.size() + std::size_t(rank_)) * block_ + k % block_;
    }
    // This PE's elements (empty outside the team), in global index order.
    std::span<T> local_span() const noexcept { return {data_.data(), local_size()}; }
    // f(element) or f(global index, element) for each element of this PE, in index order.
    template <class F> void for_each(F &&f) const {
        T *d = data_.data();
        const std::size_t k_end = local_size();
        for (std::size_t k = 0; k < k_end; ++k) {
            if constexpr (std::is_invocable_v<F &, std::size_t, T &>) f(global_index(k), d[k]);
            else f(d[k]);
        }
    }

    // Global index i on its owner.
    sym_ptr<T> at(std::size_t i) const {
        check_index(i, "at");
        return {detail::unchecked, data_.data() + local_offset(i), pes_[(i / block_) % pes_.size()]};
    }
    T get(std::size_t i) const { return ushmem::get(at(i)); }
    void put(std::size_t i, value_of<T> v) const { ushmem::put(at(i), v); }
    T fetch_add(std::size_t i, value_of<T> v) const { return ushmem::fetch_add(at(i), v); }
    value_event<T> fetch_add_async(std::size_t i, value_of<T> v) const { return ushmem::fetch_add_async(at(i), v); }
    // Non-fetching atomics (shmem_atomic_inc / _add: no reply to wait for).
    void inc(std::size_t i) const { ushmem::inc(at(i)); }
    void add(std::size_t i, value_of<T> v) const { ushmem::add(at(i), v); }

    // Bulk: out.size() elements from global index `first` on, split by owner into one batch.
    // The async forms return its event (buffers valid until it completes).
    event get_async(std::size_t first, std::span<T> out) const {
        batch b;
        split(first, out.size(), "get", [&](int pe, std::size_t off, std::size_t k, std::size_t done) {
            b.get(pe, out.data() + done, data_.data() + off, k);
        });
        return b.submit();
    }
    event put_async(std::size_t first, std::span<const T> in) const {
        batch b;
        split(first, in.size(), "put", [&](int pe, std::size_t off, std::size_t k, std::size_t done) {
            b.put(pe, data_.data() + off, in.data() + done, k);
        });
        return b.submit();
    }
    void get(std::size_t first, std::span<T> out, wait_limit limit = {}) const {
        get_async(first, out).wait(limit, "dist_array::get");
    }
    void put(std::size_t first, std::span<const T> in, wait_limit limit = {}) const {
        put_async(first, in).wait(limit, "dist_array::put");
    }

    // The symmetric storage (block() elements on every PE; a whole number of blocks when cyclic).
    const symmetric<T> &storage() const noexcept { return data_; }

private:
    static std::size_t ceil_div(std::size_t a, std::size_t b) noexcept { return b ? (a + b - 1) / b : 0; }
    static std::size_t check_block(std::size_t b) {
        if (b == 0) detail::throw_invalid("dist_array", "block_cyclic{0}: a block holds at least one element");
        return b;
    }
    void members(const team &t) {
        if (t.valid()) {
            rank_ = t.my_pe();
            const team w = world();
            for (int r = 0; r < t.n_pes(); ++r) pes_.push_back(*t.translate(r, w));
        }
    }
    // `mine` as the members compute it. Non-members do not know P: over a team other than the
    // world, every PE agrees on the largest (a max reduction over the world).
    static std::size_t agree(std::size_t mine, const team &t, wait_limit limit) {
        if (t.handle() == SHMEM_TEAM_WORLD) return mine;
        return reduce_all(mine, reduce_op::max, world(), limit);  // (no allocation: collectives.hpp)
    }
    void check_index(std::size_t i, const char *what) const {
        if (i >= n_) [[unlikely]]
            detail::throw_invalid(std::string("dist_array::") + what, "index " + std::to_string(i) +
                                  " beyond size " + std::to_string(n_));
        if (pes_.empty()) [[unlikely]]
            detail::throw_invalid(std::string("dist_array::") + what, "this PE is not a member of the array's team; only members "
                                                                        "address it by index");
    }
    // Calls piece(pe, local offset, count, offset in the caller's buffer) per owner of
    // [first, first + count).
    template <class Piece> void split(std::size_t first, std::size_t count, const char *what, Piece piece) const {
        if (count == 0) return;
        if (first > n_ || count > n_ - first) [[unlikely]]
            detail::throw_invalid(std::string("dist_array::") + what, "range [" + std::to_string(first) + ", +" +
                                  std::to_string(count) + ") beyond size " + std::to_string(n_));
        check_index(first, what);
        for (std::size_t done = 0; done < count;) {
            const std::size_t i = first + done;
            const std::size_t k = std::min(count - done, block_ - i % block_);  // to the end of i's block
            piece(pes_[(i / block_) % pes_.size()], local_offset(i), k, done);
            done += k;
        }
    }
    // Where global index i sits in its owner's storage: its block's place among the owner's
    // blocks, then its place in the block.
    std::size_t local_offset(std::size_t i) const noexcept {
        return (i / block_ / pes_.size()) * block_ + i % block_;
    }

    std::size_t n_ = 0, block_ = 0, cap_ = 0;  // cap_: elements stored per PE
    int rank_ = -1;
    std::vector<int> pes_;  // world PE of each team rank
    symmetric<T> data_;
};

} // namespace ushmem
