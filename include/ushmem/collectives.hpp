// ushmem C++ API: collectives on plain values. reduce_all(v, op[, team]) and broadcast(v, root[,
// team]) return the result as a value, without the caller allocating symmetric buffers: the
// value goes through a small per-team scratch slot in the program's static data (symmetric by
// definition; see team.hpp, detail::g_vc_area), into the team-based C collectives
// (shmem_TYPE_OP_reduce, shmem_broadcastmem). Their _async forms return a collective_event,
// a completion that runs the collective when it is first waited, tested or co_awaited.
#pragma once

#include <ushmem/compose.hpp>
#include <ushmem/team.hpp>

#include <cstring>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace ushmem {

namespace detail {
// The first value collective of team h on this PE: its members agree on a slot free on all of
// them. Collective over the team (every member's first value collective on it is the same call,
// since each member's record of the team starts empty and ends with the team). Two syncs of the
// team frame the choice: between them every member is inside this call, so no other team's
// claim can run on any of them (a PE is in one call at a time), and the leader (team rank 0)
// reads each member's taken-mask, picks the lowest slot free on all, takes it on each with a
// fetch-or (a bit found already set, which only concurrent claims from other threads could do, is
// given back and the next slot tried), and puts the choice into every member's mailbox.
inline int vc_claim(shmem_team_t h, const char *what, wait_limit limit) {
    check_member(h, what);
    std::lock_guard<std::mutex> lock(g_vc_mutex);
    if (int s = vc_find(h); s >= 0) return s;
    const int n = shmem_team_n_pes(h), me = shmem_team_my_pe(h);
    const int next = shmem_team_translate_pe(h, (me + 1) % n, SHMEM_TEAM_WORLD);
    if (!shmem_addr_accessible(&g_vc_area[0], next))  // (the same on every member: one setting)
        throw invalid_argument(
                    std::string("ushmem: ") + what + on_pe() +
                        ": the program's static data is not symmetric (USHMEM_STATIC_DATA=0?); the value "
                        "collectives keep their scratch there. Use the span collectives (reduce<op>, "
                        "broadcast(team, dest, src, root)) over symmetric<T> buffers instead");
    run_coll(h, what, limit, [h] { return shmem_team_sync(h); });
    if (me == 0) {
        std::int64_t chosen = -1;
        std::uint64_t used = 0;
        for (int r = 0; r < n; ++r)
            used |= shmem_uint64_atomic_fetch(&g_vc_taken, shmem_team_translate_pe(h, r, SHMEM_TEAM_WORLD));
        for (int s = 2; s < vc_slots && chosen < 0; ++s) {
            const std::uint64_t bit = std::uint64_t(1) << s;
            if (used & bit) continue;
            int r = 0;
            for (; r < n; ++r)
                if (shmem_uint64_atomic_fetch_or(&g_vc_taken, bit, shmem_team_translate_pe(h, r, SHMEM_TEAM_WORLD)) & bit)
                    break;
            if (r == n) {
                chosen = s;
            } else {
                for (int q = 0; q < r; ++q)
                    shmem_uint64_atomic_and(&g_vc_taken, ~bit, shmem_team_translate_pe(h, q, SHMEM_TEAM_WORLD));
                used |= bit;
            }
        }
        for (int r = 0; r < n; ++r)
            shmem_int64_atomic_set(&g_vc_mailbox, chosen, shmem_team_translate_pe(h, r, SHMEM_TEAM_WORLD));
        shmem_quiet();  // (shmem_team_sync does not complete them)
    }
    run_coll(h, what, limit, [h] { return shmem_team_sync(h); });
    const std::int64_t s = shmem_int64_atomic_fetch(&g_vc_mailbox, shmem_my_pe());
    if (s < 0)
        throw transport_error(std::string("ushmem: ") + what + on_pe() + ": no value-collective slot free on every " +
                              "member of this team (" + std::to_string(vc_slots - 2) +
                              " teams may use value collectives at once); destroy teams no longer used");
    g_vc_owner[s].store(h, std::memory_order_release);
    return int(s);
}
[[gnu::always_inline]] inline vc_slot &vc_slot_of(shmem_team_t h, const char *what, wait_limit limit) {
    int s = vc_find(h);
    if (s < 0) [[unlikely]]
        s = vc_claim(h, what, limit);
    return g_vc_area[s];
}

template <class T> constexpr bool reducible(reduce_op op) {
    switch (op) {
    case reduce_op::sum:
    case reduce_op::prod: return reduce_arith_type<T>;
    case reduce_op::min:
    case reduce_op::max: return reduce_minmax_type<T>;
    default: return reduce_bitwise_type<T>;
    }
}
[[noreturn, gnu::noinline, gnu::cold]] inline void throw_bad_op(const char *what, reduce_op op) {
    static const char *const names[] = {"sum", "prod", "min", "max", "bit_and", "bit_or", "bit_xor"};
    throw_invalid(what, std::string("the reduction ") + names[int(op)] +
                            " is not defined for this element type (sum/prod: reduce_arith_type<T>, "
                            "min/max: reduce_minmax_type<T>, bit_*: reduce_bitwise_type<T>)");
}

template <class T> inline T reduce_value(shmem_team_t h, T v, reduce_op op, wait_limit limit, const char *what) {
    check_member(h, what);
    if (!reducible<T>(op)) [[unlikely]]
        throw_bad_op(what, op);
    vc_slot &s = vc_slot_of(h, what, limit);
    T *d = reinterpret_cast<T *>(s.dst);
    T *src = reinterpret_cast<T *>(s.src);
    std::memcpy(src, &v, sizeof(T));
    run_coll(h, what, limit, [&] {
        switch (op) {
        case reduce_op::sum:
            if constexpr (reduce_arith_type<T>) return c_reduce<reduce_op::sum>(h, d, src, 1);
            break;
        case reduce_op::prod:
            if constexpr (reduce_arith_type<T>) return c_reduce<reduce_op::prod>(h, d, src, 1);
            break;
        case reduce_op::min:
            if constexpr (reduce_minmax_type<T>) return c_reduce<reduce_op::min>(h, d, src, 1);
            break;
        case reduce_op::max:
            if constexpr (reduce_minmax_type<T>) return c_reduce<reduce_op::max>(h, d, src, 1);
            break;
        case reduce_op::bit_and:
            if constexpr (reduce_bitwise_type<T>) return c_reduce<reduce_op::bit_and>(h, d, src, 1);
            break;
        case reduce_op::bit_or:
            if constexpr (reduce_bitwise_type<T>) return c_reduce<reduce_op::bit_or>(h, d, src, 1);
            break;
        case reduce_op::bit_xor:
            if constexpr (reduce_bitwise_type<T>) return c_reduce<reduce_op::bit_xor>(h, d, src, 1);
            break;
        }
        return -1;  // (unreachable: reducible() checked)
    });
    T out;
    std::memcpy(&out, d, sizeof(T));  // before this PE's next collective on h can overwrite it
    return out;
}

// In pieces of the slot's size (one piece for values up to vc_bytes). The root keeps its own value.
template <class T> inline T broadcast_value(shmem_team_t h, const T &v, int root, wait_limit limit, const char *what) {
    check_member(h, what);
    const int n = shmem_team_n_pes(h);
    if (unsigned(root) >= unsigned(n))
        throw_invalid(what, "root " + std::to_string(root) + " is not a PE of the team (0 to " + std::to_string(n - 1) + ")");
    vc_slot &s = vc_slot_of(h, what, limit);
    const bool am_root = shmem_team_my_pe(h) == root;
    const auto start = limit.bounded() ? clock::now() : clock::time_point{};  // (pieces share one deadline)
    alignas(T) unsigned char out[sizeof(T)];
    const auto *in = reinterpret_cast<const unsigned char *>(&v);
    for (std::size_t off = 0; off < sizeof(T); off += vc_bytes) {
        const std::size_t k = std::min(vc_bytes, sizeof(T) - off);
        if (am_root) std::memcpy(s.src, in + off, k);
        const auto piece = [&] { return shmem_broadcastmem(h, s.dst, s.src, k, root); };
        run_coll(h, what, limit, piece, start);
        if (!am_root) std::memcpy(out + off, s.dst, k);
    }
    if (am_root) return v;
    T r;
    std::memcpy(&r, out, sizeof(T));
    return r;
}
} // namespace detail

// The reduction `op` of one value from every member of `t` (default: the world team), returned on
// every member. Collective over the team, like reduce<op>: every member calls it, in the same
// order as the team's other collectives. T arithmetic; an op that the team reduction tables do not
// give T (bit_and on a double) throws invalid_argument. A last wait_limit bounds it as the span
// collectives (timeout_error; the team is then unusable). The team's first value collective also
// agrees on its scratch slot (two syncs of the team, once per team).
template <class T>
    requires std::is_arithmetic_v<T>
inline T reduce_all(T v, reduce_op op, const team &t = world(), wait_limit limit = {}) {
    static_assert(reduce_arith_type<T> || reduce_minmax_type<T> || reduce_bitwise_type<T>,
                  "ushmem: reduce_all needs an element type of the team reduction tables (not bool)");
    return detail::reduce_value<T>(t.handle(), v, op, limit, "reduce_all");
}
template <class T>
    requires std::is_arithmetic_v<T>
inline T reduce_all(T v, reduce_op op, wait_limit limit) {
    return reduce_all(v, op, world(), limit);
}

// Root `root`'s (a rank of `t`) value of v, returned on every member (the root gets its own).
// Collective over the team. T trivially copyable, of any size (larger than 256 bytes it goes in
// several broadcasts). invalid_argument when root is not a rank of the team.
template <class T>
    requires(std::is_trivially_copyable_v<T> && !std::is_same_v<T, team>)
inline T broadcast(const T &v, int root, const team &t = world(), wait_limit limit = {}) {
    return detail::broadcast_value<T>(t.handle(), v, root, limit, "broadcast");
}
template <class T>
    requires(std::is_trivially_copyable_v<T> && !std::is_same_v<T, team>)
inline T broadcast(const T &v, int root, wait_limit limit) {
    return broadcast(v, root, world(), limit);
}

// A collective on a value, as a completion (reduce_all_async, broadcast_async). OpenSHMEM has no
// non-blocking collectives, so it is deferred: nothing is issued when it is made; the collective
// runs, blocking, in the first wait(), get(), test() or co_await (test() therefore blocks until
// every member has joined, and then returns true). Each member must complete its collective_events
// of a team in the same order, and in that order relative to the team's other collectives, as for
// the blocking forms. The team must outlive it. A collective that threw (a timeout, a bad root or
// op) leaves the event complete and failed: every later wait/get/value rethrows that exception.
// Move-only (a copy could run the collective twice); a moved-from one throws invalid_argument.
template <class T> class [[nodiscard]] collective_event {
public:
    using value_type = T;
    // (Made by reduce_all_async and broadcast_async.)
    collective_event(shmem_team_t h, T v, bool reduce, reduce_op op, int root) noexcept
        : h_(h), in_(v), reduce_(reduce), op_(op), root_(root), live_(true) {}
    collective_event(collective_event &&o) noexcept
        : h_(o.h_), in_(o.in_), reduce_(o.reduce_), op_(o.op_), root_(o.root_), live_(std::exchange(o.live_, false)),
          out_(std::move(o.out_)), error_(std::move(o.error_)) {}
    collective_event &operator=(collective_event &&o) noexcept {
        h_ = o.h_, in_ = o.in_, reduce_ = o.reduce_, op_ = o.op_, root_ = o.root_;
        live_ = std::exchange(o.live_, false);
        out_ = std::move(o.out_);
        error_ = std::move(o.error_);
        return *this;
    }
    collective_event(const collective_event &) = delete;
    collective_event &operator=(const collective_event &) = delete;

    // Runs the collective (blocking) unless it has run; true once it has, failed or not (a failure
    // propagates from the call that ran it, and from every later wait, get and value).
    bool test() const {
        check_live("collective_event::test");
        if (!out_ && !error_) run(wait_limit{}, "collective_event::test");
        return true;
    }
    void wait() const { run(wait_limit{}, "collective_event::wait"); }
    void wait(wait_limit limit, const char *routine = "collective_event::wait") const { run(limit, routine); }
    T get() const {
        wait();
        return *out_;
    }
    T get(wait_limit limit, const char *routine = "collective_event::get") const {
        wait(limit, routine);
        return *out_;
    }
    // The result once complete (after a wait or test); rethrows the collective's failure.
    const T &value() const {
        check_live("collective_event::value");
        if (error_) std::rethrow_exception(error_);
        if (!out_) detail::throw_invalid("collective_event::value", "the collective has not run yet (wait, get or "
                                                                    "test it first: it runs there)");
        return *out_;
    }
    template <class G> then_event<collective_event, std::decay_t<G>> then(G &&g) && {
        return {std::move(*this), std::forward<G>(g)};
    }

private:
    void check_live(const char *routine) const {
        if (!live_) [[unlikely]]
            detail::throw_invalid(routine, "moved-from event (it owns no collective; use the event it was moved into)");
    }
    void run(wait_limit limit, const char *routine) const {
        check_live(routine);
        if (error_) std::rethrow_exception(error_);
        if (out_) return;
        try {
            out_.emplace(reduce_ ? detail::reduce_value<T>(h_, in_, op_, limit, "reduce_all_async")
                                 : detail::broadcast_value<T>(h_, in_, root_, limit, "broadcast_async"));
        } catch (...) {
            error_ = std::current_exception();
            throw;
        }
    }
    shmem_team_t h_;
    T in_;
    bool reduce_;
    reduce_op op_;
    int root_;
    bool live_ = false;
    mutable std::optional<T> out_;
    mutable std::exception_ptr error_;
};

template <class T>
    requires std::is_arithmetic_v<T>
inline collective_event<T> reduce_all_async(T v, reduce_op op, const team &t = world()) {
    static_assert(reduce_arith_type<T> || reduce_minmax_type<T> || reduce_bitwise_type<T>,
                  "ushmem: reduce_all needs an element type of the team reduction tables (not bool)");
    return {t.handle(), v, true, op, 0};
}
template <class T>
    requires(std::is_trivially_copyable_v<T> && !std::is_same_v<T, team>)
inline collective_event<T> broadcast_async(const T &v, int root, const team &t = world()) {
    return {t.handle(), v, false, reduce_op::sum, root};
}

} // namespace ushmem
