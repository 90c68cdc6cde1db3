// ushmem C++ API: dist_object<T>, one T per member of a team (UPC++'s dist_object): the local one
// by *obj / obj.local(), another member's by fetch(rank) (a non-blocking get: value_event<T>),
// get(rank), set(rank, v).
#pragma once

#include <ushmem/team.hpp>

#include <type_traits>
#include <utility>
#include <vector>

namespace ushmem {

// Storage: a symmetric<T> of one element, so construction and destruction are collective over
// every PE (the symmetric heap is the world's), as for dist_array: PEs outside the team (an
// invalid team from a split) take part and hold an unused T, but cannot address other members.
// Each PE constructs it with its own value; a barrier follows (symmetric<T>), so a fetch issued
// right after construction reads the value the owner gave. Ranks are the team's. Move-only.
template <class T> class dist_object {
    static_assert(std::is_trivially_copyable_v<T>,
                  "ushmem: dist_object<T> needs a trivially copyable T: its value lives in symmetric memory and "
                  "moves with put/get. Other types need the RPC layer (issue #52, item 8), which is not available "
                  "yet");

public:
    // Over the world team, or team `t`; `init` is this PE's value. Bounded as symmetric<T>.
    explicit dist_object(const T &init = T{}, wait_limit limit = {}) : dist_object(init, world(), limit) {}
    dist_object(const T &init, const team &t, wait_limit limit = {}) : data_(1, init, limit) {
        if (t.valid()) {
            rank_ = t.my_pe();
            const team w = world();
            for (int r = 0; r < t.n_pes(); ++r) pes_.push_back(*t.translate(r, w));
        }
    }

    // This PE's value.
    T &local() const noexcept { return data_[0]; }
    T &operator*() const noexcept { return data_[0]; }
    T *operator->() const noexcept { return data_.data(); }

    // Team rank `r`'s value, as a non-blocking get into the event's slot (get() / co_await /
    // when_all / then read it).
    value_event<T> fetch(int r, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) const {
        const sym_ptr<T> p = at(r, "dist_object::fetch");
        return value_event<T>(ctx, p.pe(), [&](T *slot) {
            if (ctx == SHMEM_CTX_DEFAULT) shmem_getmem_nbi(slot, p.address(), sizeof(T), p.pe());
            else shmem_ctx_getmem_nbi(ctx, slot, p.address(), sizeof(T), p.pe());
        });
    }
    // Blocking forms. set() returns once v is copied out (local completion, as put); set_async's
    // event completes it at the owner.
    T get(int r, wait_limit limit = {}) const { return fetch(r).get(limit, "dist_object::get"); }
    void set(int r, const T &v) const {
        const sym_ptr<T> p = at(r, "dist_object::set");
        shmem_putmem(p.address(), &v, sizeof(T), p.pe());
    }
    event set_async(int r, const T &v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) const {
        const sym_ptr<T> p = at(r, "dist_object::set_async");
        // (Blocking-local: the value is copied out before it returns, so v may go away.)
        if (ctx == SHMEM_CTX_DEFAULT) shmem_putmem(p.address(), &v, sizeof(T), p.pe());
        else shmem_ctx_putmem(ctx, p.address(), &v, sizeof(T), p.pe());
        return event(ctx, p.pe());
    }
    // Team rank r's object, for any RMA call or atomic (at(r) on an arithmetic T: fetch_add, ...).
    sym_ptr<T> at(int r) const { return at(r, "dist_object::at"); }

    int team_rank() const noexcept { return rank_; }               // -1 outside the team
    int team_size() const noexcept { return int(pes_.size()); }    // 0 outside the team
    // The symmetric storage (one T on every PE).
    const symmetric<T> &storage() const noexcept { return data_; }

private:
    sym_ptr<T> at(int r, const char *what) const {
        if (pes_.empty()) [[unlikely]]
            detail::throw_invalid(what, "this PE is not a member of the object's team; only members address it by rank");
        if (unsigned(r) >= pes_.size()) [[unlikely]]
            detail::throw_invalid(what, "rank " + std::to_string(r) + " is not a rank of the team (0 to " +
                                            std::to_string(pes_.size() - 1) + ")");
        return {detail::unchecked, data_.data(), pes_[std::size_t(r)]};
    }
    int rank_ = -1;
    std::vector<int> pes_;  // world PE of each team rank
    symmetric<T> data_;
};

} // namespace ushmem
