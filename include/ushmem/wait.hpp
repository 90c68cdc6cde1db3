// ushmem C++ API: point-to-point waits on several variables (shmem_wait_until_all/any/some and
// their _vector forms), with the bounded forms of wait_until.
#pragma once

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

} // namespace ushmem
