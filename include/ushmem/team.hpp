// ushmem C++ API: teams and typed collectives over spans.
#pragma once

#include <ushmem/rma.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>

namespace ushmem {

// The scratch of the value collectives (collectives.hpp: reduce_all, broadcast of one value),
// kept here because a team gives its slot back when it is destroyed. It is the program's static
// data, which OpenSHMEM makes symmetric (the same object on every PE), so no collective
// allocation is needed for it, and a team that is not the world can have one although
// shmem_malloc is collective over every PE. Slot 0 belongs to the world team and slot 1 to the
// shared team; another team's members agree on a slot free on all of them at its first value
// collective (collectives.hpp, detail::vc_claim), and every member frees its own when the team
// is destroyed. One slot per team, so that collectives on overlapping teams never write into one
// another's scratch (a member of team B may already write into a PE's buffers while that PE is
// still in a collective of team A).
namespace detail {
inline constexpr int vc_slots = 64;
inline constexpr std::size_t vc_bytes = 256;  // per direction: broadcasts larger than this go in pieces
struct alignas(64) vc_slot {
    unsigned char src[vc_bytes];
    unsigned char dst[vc_bytes];
};
inline vc_slot g_vc_area[vc_slots];
inline std::uint64_t g_vc_taken = 3;   // bit s: slot s held on this PE (set by the claiming leader)
inline std::int64_t g_vc_mailbox = 0;  // the slot a leader chose, put into every member
inline std::atomic<shmem_team_t> g_vc_owner[vc_slots];  // local: the team holding slot s here
inline std::mutex g_vc_mutex;                            // claims and releases on this PE
// The slot of team h on this PE, -1 before its first value collective. (No lock: owners change
// only in claims and releases, which the team's own collectives cannot overlap.)
inline int vc_find(shmem_team_t h) noexcept {
    if (h == SHMEM_TEAM_WORLD) [[likely]]
        return 0;
    if (h == SHMEM_TEAM_SHARED) return 1;
    if (h == SHMEM_TEAM_INVALID) return -1;  // (free slots' owner)
    for (int s = 2; s < vc_slots; ++s)
        if (g_vc_owner[s].load(std::memory_order_acquire) == h) return s;
    return -1;
}
// Gives team h's slot back on this PE (its destruction). Only this PE's bit: the other members
// free theirs when they destroy the team, and a new team takes a slot only where it is free on
// every member.
inline void vc_release(shmem_team_t h) noexcept {
    std::lock_guard<std::mutex> lock(g_vc_mutex);
    for (int s = 2; s < vc_slots; ++s)
        if (g_vc_owner[s].load(std::memory_order_relaxed) == h) {
            g_vc_owner[s].store(SHMEM_TEAM_INVALID, std::memory_order_release);
            (void)shmem_uint64_atomic_fetch_and(&g_vc_taken, ~(std::uint64_t(1) << s), shmem_my_pe());
        }
}
} // namespace detail

// A team handle. world() and shared() are predefined (not owned); split_strided returns an owned
// team, destroyed by its destructor; like symmetric<>, an owned team destroyed during exception
// unwinding is leaked with a warning rather than entering the collective. A team on which a
// bounded collective timed out on this PE is unusable (usable() false): every later collective or
// split on it throws error(errc::team_unusable), and its destructor leaks it (the slot stays
// taken: members may still send it signals of the abandoned collective).
class team {
public:
    team() = default;
    static team world() noexcept { return team(SHMEM_TEAM_WORLD, false); }
    static team shared() noexcept { return team(SHMEM_TEAM_SHARED, false); }
    team(const team &) = delete;
    team &operator=(const team &) = delete;
    team(team &&o) noexcept
        : h_(std::exchange(o.h_, SHMEM_TEAM_INVALID)), owned_(o.owned_), uncaught_(o.uncaught_) {}
    team &operator=(team &&o) noexcept {
        if (this != &o) {
            release();
            h_ = std::exchange(o.h_, SHMEM_TEAM_INVALID);
            owned_ = o.owned_;
            uncaught_ = o.uncaught_;
        }
        return *this;
    }
    ~team() { release(); }

    // False on PEs that are not members of a split's new team.
    bool valid() const noexcept { return h_ != SHMEM_TEAM_INVALID; }
    // False once a bounded collective on this team timed out on this PE.
    bool usable() const { return !detail::team_unusable(h_); }
    shmem_team_t handle() const noexcept { return h_; }
    // This PE's number in the team and the team's size; -1 on a PE that is not a member (an invalid
    // team, valid() false), as shmem_team_my_pe/shmem_team_n_pes return: the test for membership
    // that C programs use, and that code ported from them keeps. The collectives and splits, which
    // cannot do anything sensible there, throw invalid_argument naming the routine and the PE.
    int my_pe() const { return shmem_team_my_pe(h_); }
    int n_pes() const { return shmem_team_n_pes(h_); }
    // This team's PE `pe` in `other`'s numbering; std::nullopt when it is not a member of `other`
    // (or `pe` is not a PE of this team).
    std::optional<int> translate(int pe, const team &other) const {
        const int r = shmem_team_translate_pe(h_, pe, other.h_);
        if (r < 0) return std::nullopt;
        return r;
    }
    // Collective over this team. PEs outside the new team get an invalid team. Bounded (a last
    // wait_limit): a sync of this team under the limit first (every member must use the same
    // form), so the split starts only once every member has arrived; on timeout_error nothing is
    // created and this team is unusable.
    team split_strided(int start, int stride, int size, wait_limit limit = {}) const {
        before_split("team split_strided", limit);
        shmem_team_t t = SHMEM_TEAM_INVALID;
        if (shmem_team_split_strided(h_, start, stride, size, nullptr, 0, &t) != 0) {
            // The library's reason (every PE of this team keeps it): an invalid triplet, for which
            // every PE throws invalid_argument, or no free team slot (transport_error).
            const std::string what = "ushmem: team split_strided(" + std::to_string(start) + ", " +
                                     std::to_string(stride) + ", " + std::to_string(size) + ")" + detail::on_pe() + " failed: " +
                                     detail::last_error();
            const long long last = (long long)start + (long long)stride * (size - 1), n = n_pes();
            if (size <= 0 || start < 0 || start >= n || last < 0 || last >= n || (stride == 0 && size > 1))
                throw invalid_argument(what);
            throw transport_error(what);
        }
        return team(t, true);
    }
    // Collective over this team: split into a 2D grid of `xrange` columns. Every member gets an
    // x team (its row: the PEs with the same y) and a y team (its column). Bounded as split_strided.
    std::pair<team, team> split_2d(int xrange, wait_limit limit = {}) const {
        before_split("team split_2d", limit);
        shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
        if (shmem_team_split_2d(h_, xrange, nullptr, 0, &x, nullptr, 0, &y) != 0) {
            const std::string what =
                "ushmem: team split_2d(" + std::to_string(xrange) + ")" + detail::on_pe() + " failed: " +
                detail::last_error();
            if (xrange <= 0) throw invalid_argument(what);
            throw transport_error(what);
        }
        return {team(x, true), team(y, true)};
    }
    // shmem_team_sync. Bounded: timeout_error naming this PE; the team's collective state is then
    // undefined (see docs/cpp.md, "Timeouts").
    void sync(wait_limit limit = {}) const {
        detail::run_coll(h_, "team sync", limit, [h = h_] { return shmem_team_sync(h); });
    }

private:
    void before_split(const char *what, wait_limit limit) const {
        detail::check_member(h_, what);
        if (limit.bounded()) detail::arrive_all(h_, what, limit);
        else detail::check_usable(h_, what);
    }
    team(shmem_team_t h, bool owned) noexcept
        : h_(h), owned_(owned), uncaught_(std::uncaught_exceptions()) {}
    void release() noexcept {
        if (!owned_ || h_ == SHMEM_TEAM_INVALID) return;
        if (std::uncaught_exceptions() > uncaught_)
            std::fprintf(stderr, "ushmem: PE %d: team destroyed during exception unwinding; leaked "
                                 "instead of a collective shmem_team_destroy\n", shmem_my_pe());
        else if (detail::team_unusable(h_))
            std::fprintf(stderr, "ushmem: PE %d: team unusable after a timed-out collective; leaked "
                                 "instead of shmem_team_destroy (its slot may still receive the "
                                 "abandoned collective's signals)\n", shmem_my_pe());
        else {
            detail::vc_release(h_);  // (a leaked team keeps its value-collective slot too)
            shmem_team_destroy(h_);
        }
        h_ = SHMEM_TEAM_INVALID;
    }
    shmem_team_t h_ = SHMEM_TEAM_INVALID;
    bool owned_ = false;
    int uncaught_ = 0;
};

inline team world() noexcept { return team::world(); }

// A communication context (shmem_ctx_create, or shmem_team_create_ctx), destroyed by the
// destructor (shmem_ctx_destroy quiets it first; not collective). Converts to shmem_ctx_t, the
// last argument of every operation. Move-only.
class context {
public:
    explicit context(long options = 0) {
        if (shmem_ctx_create(options, &h_) != 0)
            throw transport_error("ushmem: shmem_ctx_create" + detail::on_pe() + " failed (out of contexts?)");
    }
    context(const team &t, long options) {
        detail::check_member(t.handle(), "context (of a team)");
        if (shmem_team_create_ctx(t.handle(), options, &h_) != 0)
            throw transport_error("ushmem: shmem_team_create_ctx" + detail::on_pe() + " failed (out of contexts?)");
    }
    context(const context &) = delete;
    context &operator=(const context &) = delete;
    context(context &&o) noexcept : h_(std::exchange(o.h_, SHMEM_CTX_INVALID)) {}
    context &operator=(context &&o) noexcept {
        if (this != &o) {
            if (h_ != SHMEM_CTX_INVALID) shmem_ctx_destroy(h_);
            h_ = std::exchange(o.h_, SHMEM_CTX_INVALID);
        }
        return *this;
    }
    ~context() {
        if (h_ != SHMEM_CTX_INVALID) shmem_ctx_destroy(h_);
    }
    shmem_ctx_t handle() const noexcept { return h_; }
    operator shmem_ctx_t() const noexcept { return h_; }

private:
    shmem_ctx_t h_ = SHMEM_CTX_INVALID;
};

namespace detail {
inline void check_local_sym(const void *p, std::size_t bytes, const char *what) {
    std::string why = why_invalid(p, bytes ? bytes : 1, 1, shmem_my_pe());
    if (!why.empty()) throw_invalid(what, why);
}
} // namespace detail

// Collectives. dest and source are symmetric arrays (spans over symmetric<T>::local()). Each
// takes a last, optional wait_limit: bounded, a collective still waiting for other members when it
// passes throws timeout_error naming this PE, and the team's collective state is then undefined.
template <class T>
inline void broadcast(const team &t, std::span<T> dest, std::type_identity_t<std::span<const T>> src, int root,
                      wait_limit limit = {}) {
    detail::check_member(t.handle(), "broadcast");  // (before n_pes(), -1 outside the team)
    detail::check_fits<T>(dest.size(), src.size(), "broadcast");
    detail::check_local_sym(dest.data(), dest.size_bytes(), "broadcast dest");
    detail::check_local_sym(src.data(), src.size_bytes(), "broadcast source");
    if (unsigned(root) >= unsigned(t.n_pes()))
        detail::throw_invalid("broadcast", "root " + std::to_string(root) + " is not a PE of the team (0 to " +
                              std::to_string(t.n_pes() - 1) + ")");
    detail::run_coll(t.handle(), "broadcast", limit, [&] {
        return shmem_broadcastmem(t.handle(), dest.data(), src.data(), src.size_bytes(), root);
    });
}
// dest receives n_pes() * src.size() elements, in team PE order.
template <class T>
inline void fcollect(const team &t, std::span<T> dest, std::type_identity_t<std::span<const T>> src,
                     wait_limit limit = {}) {
    detail::check_member(t.handle(), "fcollect");  // (before n_pes(), -1 outside the team)
    detail::check_fits<T>(dest.size(), src.size() * std::size_t(t.n_pes()), "fcollect");
    detail::check_local_sym(dest.data(), dest.size_bytes(), "fcollect dest");
    detail::check_local_sym(src.data(), src.size_bytes(), "fcollect source");
    detail::run_coll(t.handle(), "fcollect", limit, [&] {
        return shmem_fcollectmem(t.handle(), dest.data(), src.data(), src.size_bytes());
    });
}
// Variable sizes: each PE contributes src.size() elements (may differ between PEs); dest receives
// their concatenation in team PE order and must hold the total (not checkable locally: only its
// symmetry is).
template <class T>
inline void collect(const team &t, std::span<T> dest, std::type_identity_t<std::span<const T>> src,
                    wait_limit limit = {}) {
    detail::check_member(t.handle(), "collect");
    detail::check_local_sym(dest.data(), dest.size_bytes(), "collect dest");
    detail::check_local_sym(src.data(), src.size_bytes(), "collect source");
    detail::run_coll(t.handle(), "collect", limit, [&] {
        return shmem_collectmem(t.handle(), dest.data(), src.data(), src.size_bytes());
    });
}
// Each PE sends `per_pe` elements to every PE: src and dest hold n_pes() * per_pe elements.
template <class T>
inline void alltoall(const team &t, std::span<T> dest, std::type_identity_t<std::span<const T>> src,
                     std::size_t per_pe, wait_limit limit = {}) {
    detail::check_member(t.handle(), "alltoall");  // (before n_pes(), -1 outside the team)
    std::size_t total = per_pe * std::size_t(t.n_pes());
    detail::check_fits<T>(dest.size(), total, "alltoall dest");
    detail::check_fits<T>(src.size(), total, "alltoall source");
    detail::check_local_sym(dest.data(), dest.size_bytes(), "alltoall dest");
    detail::check_local_sym(src.data(), src.size_bytes(), "alltoall source");
    detail::run_coll(t.handle(), "alltoall", limit, [&] {
        return shmem_alltoallmem(t.handle(), dest.data(), src.data(), per_pe * sizeof(T));
    });
}
// Strided alltoall (shmem_alltoalls): `per_pe` elements to every PE; element j for PE k is read
// at src[(k * per_pe + j) * src_stride] and lands at dest[(me * per_pe + j) * dst_stride] there
// (strides in elements, >= 1). T from the standard RMA type table.
template <class T>
inline void alltoalls(const team &t, std::span<T> dest, std::ptrdiff_t dst_stride,
                      std::type_identity_t<std::span<const T>> src, std::ptrdiff_t src_stride,
                      std::size_t per_pe, wait_limit limit = {}) {
    detail::check_member(t.handle(), "alltoalls");  // (before n_pes(), -1 outside the team)
    const std::size_t total = per_pe * std::size_t(t.n_pes());
    detail::check_strided(dest.size(), dst_stride, total, "alltoalls dest");
    detail::check_strided(src.size(), src_stride, total, "alltoalls source");
    detail::check_local_sym(dest.data(), dest.size_bytes(), "alltoalls dest");
    detail::check_local_sym(src.data(), src.size_bytes(), "alltoalls source");
    detail::run_coll(t.handle(), "alltoalls", limit, [&] {
        return shmem_alltoalls(t.handle(), dest.data(), src.data(), dst_stride, src_stride, per_pe);
    });
}

enum class reduce_op { sum, prod, min, max, bit_and, bit_or, bit_xor };

namespace detail {
// The C reduction of operation Op on T (the routine chosen by overload on T), for n elements: the
// one mapping from reduce_op to the C API, shared by reduce<Op> and reduce_all (collectives.hpp).
// Instantiated only for an operation the tables give T (callers check first).
template <reduce_op Op, class T> inline int c_reduce(shmem_team_t h, T *d, const T *s, std::size_t n) {
    if constexpr (Op == reduce_op::sum) return shmem_sum_reduce(h, d, s, n);
    else if constexpr (Op == reduce_op::prod) return shmem_prod_reduce(h, d, s, n);
    else if constexpr (Op == reduce_op::min) return shmem_min_reduce(h, d, s, n);
    else if constexpr (Op == reduce_op::max) return shmem_max_reduce(h, d, s, n);
    else if constexpr (Op == reduce_op::bit_and) return shmem_and_reduce(h, d, s, n);
    else if constexpr (Op == reduce_op::bit_or) return shmem_or_reduce(h, d, s, n);
    else return shmem_xor_reduce(h, d, s, n);
}
} // namespace detail

// Element-wise reduction of src over the team into dest (both src.size() elements). The C
// routine is chosen by overload on T; an operation the tables do not give T fails to compile.
template <reduce_op Op, class T>
inline void reduce(const team &t, std::span<T> dest, std::type_identity_t<std::span<const T>> src,
                   wait_limit limit = {}) {
    constexpr bool bitwise_ok =
        (Op != reduce_op::bit_and && Op != reduce_op::bit_or && Op != reduce_op::bit_xor) || reduce_bitwise_type<T>;
    constexpr bool minmax_ok = (Op != reduce_op::min && Op != reduce_op::max) || reduce_minmax_type<T>;
    constexpr bool arith_ok = (Op != reduce_op::sum && Op != reduce_op::prod) || reduce_arith_type<T>;
    static_assert(bitwise_ok, "ushmem: reduce<bit_and/bit_or/bit_xor> needs an unsigned or fixed-width integer "
                              "element type (reduce_bitwise_type<T>; not float or double)");
    static_assert(minmax_ok, "ushmem: reduce<min/max> is not supported for this element type (reduce_minmax_type<T>)");
    static_assert(arith_ok, "ushmem: reduce<sum/prod> is not supported for this element type (reduce_arith_type<T>)");
    detail::check_member(t.handle(), "reduce");
    detail::check_fits<T>(dest.size(), src.size(), "reduce");
    detail::check_local_sym(dest.data(), dest.size_bytes(), "reduce dest");
    detail::check_local_sym(src.data(), src.size_bytes(), "reduce source");
    shmem_team_t h = t.handle();
    T *d = dest.data();
    const T *s = src.data();
    std::size_t n = src.size();
    detail::run_coll(h, "reduce", limit, [&] {
        if constexpr (!(bitwise_ok && minmax_ok && arith_ok)) return 0;  // (the static_assert's message only)
        else return detail::c_reduce<Op>(h, d, s, n);
    });
}

// Prefix sums over the team in PE order (shmem_sum_inscan / shmem_sum_exscan): element-wise,
// dest on PE r receives the sum of src over PEs 0..r (inclusive) or 0..r-1 (exclusive; zero on
// PE 0). T from the arithmetic reduction table.
template <bool Inclusive, class T>
inline void sum_scan(const team &t, std::span<T> dest, std::type_identity_t<std::span<const T>> src,
                     wait_limit limit) {
    static_assert(reduce_arith_type<T>, "ushmem: sum_inscan/sum_exscan is not supported for this element type (reduce_arith_type<T>)");
    const char *what = Inclusive ? "sum_inscan" : "sum_exscan";
    detail::check_member(t.handle(), what);
    detail::check_fits<T>(dest.size(), src.size(), what);
    detail::check_local_sym(dest.data(), dest.size_bytes(), what);
    detail::check_local_sym(src.data(), src.size_bytes(), what);
    detail::run_coll(t.handle(), what, limit, [&] {
        if constexpr (Inclusive) return shmem_sum_inscan(t.handle(), dest.data(), src.data(), src.size());
        else return shmem_sum_exscan(t.handle(), dest.data(), src.data(), src.size());
    });
}
template <class T>
inline void sum_inscan(const team &t, std::span<T> dest, std::type_identity_t<std::span<const T>> src,
                       wait_limit limit = {}) {
    sum_scan<true, T>(t, dest, src, limit);
}
template <class T>
inline void sum_exscan(const team &t, std::span<T> dest, std::type_identity_t<std::span<const T>> src,
                       wait_limit limit = {}) {
    sum_scan<false, T>(t, dest, src, limit);
}

// shmem_team_sync (arrival only: no quiet).
inline void barrier(const team &t, wait_limit limit = {}) { t.sync(limit); }

} // namespace ushmem
