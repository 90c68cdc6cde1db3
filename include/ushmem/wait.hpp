// ushmem C++ API: point-to-point waits on several variables (shmem_wait_until_all/any/some and
// their _vector forms), with the bounded forms of wait_until.
#pragma once

#include <ushmem/compose.hpp>
#include <ushmem/team.hpp>

#include <optional>
#include <span>
#include <vector>

namespace ushmem {

// `ivars` is a span over a local symmetric array (e.g. symmetric<T>::local()) of a p2p_type<T>.
// `status` (optional, second argument): as many ints as ivars; a nonzero entry leaves that
// variable out. `value`: one value for all, or (the _vector forms of the C API) a span of one
// value per variable. A last wait_limit bounds the wait: it polls the matching shmem_test_*
// routine (which progresses the transport) until the deadline, then throws timeout_error naming
// this PE, the condition, and how many variables satisfied it.
//
//   wait_until_all: every included variable satisfies the condition.
//   wait_until_any: one does; returns its index (std::nullopt when status excludes them all).
//   wait_until_some: at least one does; returns the indices of all that do (empty when status
//   excludes them all).
namespace detail {
template <class T>
inline void check_wait_args(std::span<T> ivars, std::span<const int> status, std::size_t values, const char *what) {
    static_assert(p2p_type<T>, "ushmem: wait_until_all/any/some are not supported for this type (p2p_type<T>)");
    check_local_sym(ivars.data(), ivars.size_bytes(), what);
    if (!status.empty() && status.size() != ivars.size()) [[unlikely]]
        throw_invalid(what, "status has " + std::to_string(status.size()) + " entries for " +
                      std::to_string(ivars.size()) + " variables");
    if (values != std::size_t(-1) && values != ivars.size()) [[unlikely]]
        throw_invalid(what, std::to_string(values) + " values for " +
                      std::to_string(ivars.size()) + " variables");
}
// How many included variables satisfy the condition now (for the timeout message).
template <class T, class V>
inline std::size_t count_satisfied(std::span<T> ivars, std::span<const int> status, cmp c, V value_at) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < ivars.size(); ++i)
        if ((status.empty() || status[i] == 0) && shmem_test(&ivars[i], int(c), value_at(i))) ++k;
    return k;
}
template <class T, class V>
[[noreturn, gnu::noinline, gnu::cold]] inline void throw_wait_timeout(const char *what, std::span<T> ivars,
                                                                     std::span<const int> status, cmp c,
                                                                     const std::string &target, V value_at,
                                                                     std::chrono::nanoseconds elapsed) {
    std::size_t included = 0;
    for (std::size_t i = 0; i < ivars.size(); ++i) included += status.empty() || status[i] == 0;
    throw timeout_error(shmem_my_pe(), elapsed,
                        std::string("ushmem: ") + what + ": " + std::to_string(count_satisfied(ivars, status, c, value_at)) +
                            " of " + std::to_string(included) + " variables at " + hex(ivars.data()) + " are " +
                            cmp_text(c) + " " + target +
                            " at the deadline. Usually no PE has written the others yet, or their writers "
                            "have not completed the puts (no shmem_quiet/barrier yet, or the writing PE is "
                            "computing while the transport needs it to make progress)");
}
template <class T> inline const int *status_ptr(std::span<const int> s) { return s.empty() ? nullptr : s.data(); }
} // namespace detail

// ---- wait_until_all ----
template <class T>
inline void wait_until_all(std::span<T> ivars, std::span<const int> status, cmp c, std::type_identity_t<T> value,
                           wait_limit limit = {}) {
    detail::check_wait_args(ivars, status, std::size_t(-1), "wait_until_all");
    const int *st = detail::status_ptr<T>(status);
    if (!limit.bounded()) return shmem_wait_until_all(ivars.data(), ivars.size(), st, int(c), value);
    detail::poll_until(detail::clock::now(), limit.duration(),
                       [&] { return shmem_test_all(ivars.data(), ivars.size(), st, int(c), value) != 0; },
                       [&](std::chrono::nanoseconds el) {
                           if (shmem_test_all(ivars.data(), ivars.size(), st, int(c), value)) return;
                           detail::throw_wait_timeout("wait_until_all", ivars, status, c, std::to_string(+value),
                                                      [&](std::size_t) { return value; }, el);
                       });
}
template <class T>
inline void wait_until_all(std::span<T> ivars, cmp c, std::type_identity_t<T> value, wait_limit limit = {}) {
    wait_until_all(ivars, {}, c, value, limit);
}
template <class T>
inline void wait_until_all(std::span<T> ivars, std::span<const int> status, cmp c,
                           std::type_identity_t<std::span<const T>> values, wait_limit limit = {}) {
    detail::check_wait_args(ivars, status, values.size(), "wait_until_all (vector)");
    const int *st = detail::status_ptr<T>(status);
    if (!limit.bounded()) return shmem_wait_until_all_vector(ivars.data(), ivars.size(), st, int(c), values.data());
    detail::poll_until(
        detail::clock::now(), limit.duration(),
        [&] { return shmem_test_all_vector(ivars.data(), ivars.size(), st, int(c), values.data()) != 0; },
        [&](std::chrono::nanoseconds el) {
            if (shmem_test_all_vector(ivars.data(), ivars.size(), st, int(c), values.data())) return;
            detail::throw_wait_timeout("wait_until_all (vector)", ivars, status, c, "their values",
                                       [&](std::size_t i) { return values[i]; }, el);
        });
}
template <class T>
inline void wait_until_all(std::span<T> ivars, cmp c, std::type_identity_t<std::span<const T>> values,
                           wait_limit limit = {}) {
    wait_until_all(ivars, {}, c, values, limit);
}

// ---- wait_until_any ----
namespace detail {
inline std::optional<std::size_t> any_index(std::size_t i) {
    if (i == SIZE_MAX) return std::nullopt;
    return i;
}
} // namespace detail
template <class T>
inline std::optional<std::size_t> wait_until_any(std::span<T> ivars, std::span<const int> status, cmp c,
                                                 std::type_identity_t<T> value, wait_limit limit = {}) {
    detail::check_wait_args(ivars, status, std::size_t(-1), "wait_until_any");
    const int *st = detail::status_ptr<T>(status);
    if (!limit.bounded()) return detail::any_index(shmem_wait_until_any(ivars.data(), ivars.size(), st, int(c), value));
    const bool none = !status.empty() && std::all_of(status.begin(), status.end(), [](int s) { return s != 0; });
    if (none || ivars.empty()) return std::nullopt;
    std::size_t found = SIZE_MAX;
    detail::poll_until(detail::clock::now(), limit.duration(),
                       [&] { return (found = shmem_test_any(ivars.data(), ivars.size(), st, int(c), value)) != SIZE_MAX; },
                       [&](std::chrono::nanoseconds el) {
                           if ((found = shmem_test_any(ivars.data(), ivars.size(), st, int(c), value)) != SIZE_MAX) return;
                           detail::throw_wait_timeout("wait_until_any", ivars, status, c, std::to_string(+value),
                                                      [&](std::size_t) { return value; }, el);
                       });
    return found;
}
template <class T>
inline std::optional<std::size_t> wait_until_any(std::span<T> ivars, cmp c, std::type_identity_t<T> value,
                                                 wait_limit limit = {}) {
    return wait_until_any(ivars, {}, c, value, limit);
}
template <class T>
inline std::optional<std::size_t> wait_until_any(std::span<T> ivars, std::span<const int> status, cmp c,
                                                 std::type_identity_t<std::span<const T>> values, wait_limit limit = {}) {
    detail::check_wait_args(ivars, status, values.size(), "wait_until_any (vector)");
    const int *st = detail::status_ptr<T>(status);
    if (!limit.bounded())
        return detail::any_index(shmem_wait_until_any_vector(ivars.data(), ivars.size(), st, int(c), values.data()));
    const bool none = !status.empty() && std::all_of(status.begin(), status.end(), [](int s) { return s != 0; });
    if (none || ivars.empty()) return std::nullopt;
    std::size_t found = SIZE_MAX;
    auto test = [&] {
        return (found = shmem_test_any_vector(ivars.data(), ivars.size(), st, int(c), values.data())) != SIZE_MAX;
    };
    detail::poll_until(detail::clock::now(), limit.duration(), test, [&](std::chrono::nanoseconds el) {
        if (test()) return;
        detail::throw_wait_timeout("wait_until_any (vector)", ivars, status, c, "their values",
                                   [&](std::size_t i) { return values[i]; }, el);
    });
    return found;
}
template <class T>
inline std::optional<std::size_t> wait_until_any(std::span<T> ivars, cmp c,
                                                 std::type_identity_t<std::span<const T>> values, wait_limit limit = {}) {
    return wait_until_any(ivars, {}, c, values, limit);
}

// ---- wait_until_some ----
template <class T>
inline std::vector<std::size_t> wait_until_some(std::span<T> ivars, std::span<const int> status, cmp c,
                                                std::type_identity_t<T> value, wait_limit limit = {}) {
    detail::check_wait_args(ivars, status, std::size_t(-1), "wait_until_some");
    const int *st = detail::status_ptr<T>(status);
    std::vector<std::size_t> idx(ivars.size());
    std::size_t k = 0;
    if (!limit.bounded()) {
        k = shmem_wait_until_some(ivars.data(), ivars.size(), idx.data(), st, int(c), value);
    } else {
        const bool none = !status.empty() && std::all_of(status.begin(), status.end(), [](int s) { return s != 0; });
        if (!none && !ivars.empty()) {
            auto test = [&] { return (k = shmem_test_some(ivars.data(), ivars.size(), idx.data(), st, int(c), value)) != 0; };
            detail::poll_until(detail::clock::now(), limit.duration(), test, [&](std::chrono::nanoseconds el) {
                if (test()) return;
                detail::throw_wait_timeout("wait_until_some", ivars, status, c, std::to_string(+value),
                                           [&](std::size_t) { return value; }, el);
            });
        }
    }
    idx.resize(k);
    return idx;
}
template <class T>
inline std::vector<std::size_t> wait_until_some(std::span<T> ivars, cmp c, std::type_identity_t<T> value,
                                                wait_limit limit = {}) {
    return wait_until_some(ivars, {}, c, value, limit);
}
template <class T>
inline std::vector<std::size_t> wait_until_some(std::span<T> ivars, std::span<const int> status, cmp c,
                                                std::type_identity_t<std::span<const T>> values,
                                                wait_limit limit = {}) {
    detail::check_wait_args(ivars, status, values.size(), "wait_until_some (vector)");
    const int *st = detail::status_ptr<T>(status);
    std::vector<std::size_t> idx(ivars.size());
    std::size_t k = 0;
    if (!limit.bounded()) {
        k = shmem_wait_until_some_vector(ivars.data(), ivars.size(), idx.data(), st, int(c), values.data());
    } else {
        const bool none = !status.empty() && std::all_of(status.begin(), status.end(), [](int s) { return s != 0; });
        if (!none && !ivars.empty()) {
            auto test = [&] {
                return (k = shmem_test_some_vector(ivars.data(), ivars.size(), idx.data(), st, int(c), values.data())) != 0;
            };
            detail::poll_until(detail::clock::now(), limit.duration(), test, [&](std::chrono::nanoseconds el) {
                if (test()) return;
                detail::throw_wait_timeout("wait_until_some (vector)", ivars, status, c, "their values",
                                           [&](std::size_t i) { return values[i]; }, el);
            });
        }
    }
    idx.resize(k);
    return idx;
}
template <class T>
inline std::vector<std::size_t> wait_until_some(std::span<T> ivars, cmp c,
                                                std::type_identity_t<std::span<const T>> values,
                                                wait_limit limit = {}) {
    return wait_until_some(ivars, {}, c, values, limit);
}

// ---- Awaitable waits ------------------------------------------------------------------------
// wait_until_async(ivar, cmp, value) and signal_wait_until_async(sig, cmp, value) are completions
// (test(), wait(), wait(limit), then, when_all, co_await): test() is one shmem_test (which
// progresses the transport), so under ushmem::run the driver polls it with the other parked
// coroutines, which run meanwhile, instead of blocking in shmem_wait_until. (wait_until itself
// stays the blocking call it is in C; the awaitable form has the _async name, as put/put_async.)
// Copyable; the variable must outlive it.
template <class T> class [[nodiscard]] wait_event {
    static_assert(p2p_type<T>, "ushmem: wait_until is not supported for this type");

public:
    wait_event(T &ivar, cmp c, T value) noexcept : ivar_(&ivar), c_(c), v_(value) {}
    bool test() const {
        if (!done_) done_ = shmem_test(ivar_, int(c_), v_) != 0;
        return done_;
    }
    void wait() const {
        if (!done_) shmem_wait_until(ivar_, int(c_), v_);
        done_ = true;
    }
    // timeout_error naming this PE, the condition and the value last seen (as wait_until(..., d)).
    void wait(wait_limit limit, const char * = "wait_until") const {
        if (done_) return;
        ushmem::wait_until(*ivar_, c_, v_, limit);
        done_ = true;
    }
    template <class G> then_event<wait_event, std::decay_t<G>> then(G &&g) const {
        return {*this, std::forward<G>(g)};
    }

private:
    T *ivar_;
    cmp c_;
    T v_;
    mutable bool done_ = false;
};
template <class T> inline wait_event<T> wait_until_async(T &ivar, cmp c, std::type_identity_t<T> value) {
    return {ivar, c, value};
}
template <class T>
inline wait_event<T> wait_until_async(const symmetric<T> &s, std::size_t i, cmp c, std::type_identity_t<T> value) {
    if (i >= s.size()) [[unlikely]]
        detail::throw_invalid("wait_until_async", "index " + std::to_string(i) + " beyond size " + std::to_string(s.size()));
    return {s[i], c, value};
}

namespace detail {
inline bool holds(std::uint64_t seen, cmp c, std::uint64_t v) {
    switch (c) {
    case cmp::eq: return seen == v;
    case cmp::ne: return seen != v;
    case cmp::gt: return seen > v;
    case cmp::ge: return seen >= v;
    case cmp::lt: return seen < v;
    case cmp::le: return seen <= v;
    }
    return false;
}
} // namespace detail

// A signal wait (shmem_signal_wait_until) as a completion whose value is the signal that met the
// condition. test(): shmem_test on the signal (progress), then shmem_signal_fetch, checked again
// locally so that the value reported is one that satisfies the condition.
class [[nodiscard]] signal_event {
public:
    using value_type = std::uint64_t;
    signal_event(std::uint64_t &sig, cmp c, std::uint64_t value) noexcept : sig_(&sig), c_(c), v_(value) {}
    bool test() const {
        if (done_) return true;
        if (shmem_test(sig_, int(c_), v_) == 0) return false;
        seen_ = shmem_signal_fetch(sig_);
        return done_ = detail::holds(seen_, c_, v_);
    }
    void wait() const {
        if (!done_) seen_ = shmem_signal_wait_until(sig_, int(c_), v_);
        done_ = true;
    }
    void wait(wait_limit limit, const char * = "signal_wait_until") const {
        if (!limit.bounded()) return wait();
        detail::poll_until(detail::clock::now(), limit.duration(), [&] { return test(); },
                           [&](std::chrono::nanoseconds elapsed) {
                               if (test()) return;
                               throw timeout_error(shmem_my_pe(), elapsed,
                                                   "ushmem: signal_wait_until" +
                                                       detail::wait_until_failure<std::uint64_t>(*sig_, c_, v_).substr(18));
                           });
    }
    std::uint64_t get() const {
        wait();
        return seen_;
    }
    std::uint64_t get(wait_limit limit, const char *routine = "signal_wait_until") const {
        wait(limit, routine);
        return seen_;
    }
    // The signal's value that met the condition (once complete).
    const std::uint64_t &value() const { return seen_; }
    template <class G> then_event<signal_event, std::decay_t<G>> then(G &&g) const {
        return {*this, std::forward<G>(g)};
    }

private:
    std::uint64_t *sig_;
    cmp c_;
    std::uint64_t v_;
    mutable std::uint64_t seen_ = 0;
    mutable bool done_ = false;
};

// Blocking (shmem_signal_wait_until): returns the signal's value that met the condition. Bounded
// (a last wait_limit): polls, then timeout_error naming this PE, the condition and the value seen.
inline std::uint64_t signal_wait_until(std::uint64_t &sig, cmp c, std::uint64_t value) {
    return shmem_signal_wait_until(&sig, int(c), value);
}
inline std::uint64_t signal_wait_until(std::uint64_t &sig, cmp c, std::uint64_t value, wait_limit limit) {
    return signal_event(sig, c, value).get(limit);
}
inline signal_event signal_wait_until_async(std::uint64_t &sig, cmp c, std::uint64_t value) { return {sig, c, value}; }

} // namespace ushmem
