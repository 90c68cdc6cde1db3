// ushmem C++ API: dist_array<T>, an array of n elements block-distributed over a team: member r
// of the team holds the global indices [r * block, min((r + 1) * block, n)), block = ceil(n / P).
#pragma once

#include <ushmem/batch.hpp>
#include <ushmem/team.hpp>

#include <type_traits>
#include <utility>
#include <vector>

namespace ushmem {

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
        : n_(n), block_(agree_block(n, t, limit)), data_(block_ ? block_ : 1, limit) {
        if (t.valid()) {
            rank_ = t.my_pe();
            const team w = world();
            for (int r = 0; r < t.n_pes(); ++r) pes_.push_back(*t.translate(r, w));
        }
    }

    std::size_t size() const noexcept { return n_; }
    // Elements per member (the last members may hold fewer, or none).
    std::size_t block() const noexcept { return block_; }
    // Members of the team (0 on PEs outside it).
    int team_size() const noexcept { return int(pes_.size()); }
    // This PE's rank in the team, -1 outside it.
    int team_rank() const noexcept { return rank_; }

    // The team rank owning global index i, and its PE number (world) for the RMA calls.
    int owner(std::size_t i) const {
        check_index(i, "owner");
        return int(i / block_);
    }
    int owner_pe(std::size_t i) const { return pes_[std::size_t(owner(i))]; }
    // The global indices this PE holds: [first, last).
    std::pair<std::size_t, std::size_t> local_range() const noexcept {
        if (rank_ < 0) return {0, 0};
        const std::size_t first = std::min(n_, std::size_t(rank_) * block_);
        return {first, std::min(n_, first + block_)};
    }
    // This PE's elements (empty outside the team).
    std::span<T> local_span() const noexcept {
        auto [first, last] = local_range();
        return {data_.data(), last - first};
    }
    // f(element) or f(global index, element) for each element of this PE, in index order.
    template <class F> void for_each(F &&f) const {
        const auto [first, last] = local_range();
        T *d = data_.data();
        for (std::size_t i = first; i < last; ++i) {
            if constexpr (std::is_invocable_v<F &, std::size_t, T &>) f(i, d[i - first]);
            else f(d[i - first]);
        }
    }

    // Global index i on its owner.
    sym_ptr<T> at(std::size_t i) const {
        check_index(i, "at");
        return {detail::unchecked, data_.data() + i % block_, pes_[i / block_]};
    }
    T get(std::size_t i) const { return ushmem::get(at(i)); }
    void put(std::size_t i, value_of<T> v) const { ushmem::put(at(i), v); }
    T fetch_add(std::size_t i, value_of<T> v) const { return ushmem::fetch_add(at(i), v); }
    value_event<T> fetch_add_async(std::size_t i, value_of<T> v) const { return ushmem::fetch_add_async(at(i), v); }

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

    // The symmetric storage (block() elements on every PE).
    const symmetric<T> &storage() const noexcept { return data_; }

private:
    // ceil(n / P) on the members. Non-members do not know P: over a team other than the world,
    // every PE agrees on the largest (a max reduction over the world).
    static std::size_t agree_block(std::size_t n, const team &t, wait_limit limit) {
        const std::size_t block = t.valid() ? (n + std::size_t(t.n_pes()) - 1) / std::size_t(t.n_pes()) : 0;
        if (t.handle() == SHMEM_TEAM_WORLD) return block;
        symmetric<std::size_t> agree(2, limit);
        agree[0] = block;
        reduce<reduce_op::max>(world(), agree.local().subspan(1, 1), std::span<const std::size_t>(agree.data(), 1),
                               limit);
        return agree[1];
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
            const std::size_t i = first + done, off = i % block_;
            const std::size_t k = std::min(count - done, block_ - off);
            piece(pes_[i / block_], off, k, done);
            done += k;
        }
    }

    std::size_t n_ = 0, block_ = 0;
    int rank_ = -1;
    std::vector<int> pes_;  // world PE of each team rank
    symmetric<T> data_;
};

} // namespace ushmem
