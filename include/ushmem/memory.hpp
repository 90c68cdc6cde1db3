// ushmem C++ API: the runtime, symmetric objects and remote views.
#pragma once

#include <ushmem/error.hpp>
#include <ushmem/traits.hpp>

#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace ushmem {

namespace detail {
// The number of PEs, cached on first use (runtime's constructor and destructor refresh it), so
// that the PE check of every operation is one compare.
inline int g_npes = 0;
inline int npes() {
    int n = g_npes;
    if (n <= 0) [[unlikely]]
        n = g_npes = shmem_n_pes();
    return n;
}

// " on PE <n>", the calling PE for a message; empty before shmem_init and after shmem_finalize,
// when the C layer has no PE to give (and ends the job if asked).
inline std::string on_pe() {
    int on = 0;
    shmem_query_initialized(&on);
    return on ? " on PE " + std::to_string(shmem_my_pe()) : std::string();
}
// invalid_argument "ushmem: <routine> on PE <me>: <detail>": with several PEs failing the same
// call, each message says which PE it comes from.
[[noreturn, gnu::noinline, gnu::cold]] inline void throw_invalid(std::string_view routine, const std::string &detail) {
    throw invalid_argument("ushmem: " + std::string(routine) + on_pe() + ": " + detail);
}
[[noreturn, gnu::noinline, gnu::cold]] inline void throw_bad_pe(int pe, const char *what) {
    throw_invalid(what, "PE " + std::to_string(pe) + " is out of range [0, " + std::to_string(npes()) + ")");
}
[[gnu::always_inline]] inline void check_pe(int pe, const char *what) {
    if (unsigned(pe) >= unsigned(npes())) [[unlikely]]
        throw_bad_pe(pe, what);
}
// The library's message for the last failure it reported on this thread (shmemx_last_error),
// without the routine and PE it starts with ("shmem_malloc (PE 0 of 2): ").
inline std::string last_error() {
    char buf[1024];
    const std::size_t n = shmemx_last_error(buf, sizeof buf);
    std::string s(buf, n < sizeof buf ? n : sizeof buf - 1);
    const std::size_t colon = s.find("): ");
    if (colon != std::string::npos) s.erase(0, colon + 3);
    // What the C routine returns is the exception's business.
    const std::size_t ret = s.rfind("; returning ");
    if (ret != std::string::npos) s.erase(ret);
    return s;
}
inline std::string hex(const void *p) {
    char buf[2 + 2 * sizeof(void *) + 1];
    std::snprintf(buf, sizeof buf, "%#zx", std::size_t(reinterpret_cast<std::uintptr_t>(p)));
    return buf;
}
// [p, p+bytes) is symmetric and reachable on `pe`; p aligned for an element of `align` bytes.
// Returns an empty string when valid, else the reason.
inline std::string why_invalid(const void *p, std::size_t bytes, std::size_t align, int pe) {
    if (unsigned(pe) >= unsigned(npes()))
        return "PE " + std::to_string(pe) + " is out of range [0, " + std::to_string(npes()) + ")";
    if (p == nullptr) return "null address";
    if (align > 1 && reinterpret_cast<std::uintptr_t>(p) % align != 0)
        return "address " + hex(p) + " is not aligned to " + std::to_string(align) + " bytes";
    if (!shmem_addr_accessible(p, pe) ||
        (bytes > 1 && !shmem_addr_accessible(static_cast<const char *>(p) + bytes - 1, pe)))
        return "address range of " + std::to_string(bytes) +
               " bytes is not symmetric (not from shmem_malloc or global/static data)";
    return {};
}
struct unchecked_t {};
inline constexpr unchecked_t unchecked{};
} // namespace detail

// How long a blocking call may wait: any std::chrono::duration converts to it; the default,
// wait_limit{}, is unbounded (the plain C routine, at no extra cost).
class wait_limit {
public:
    constexpr wait_limit() = default;
    template <class Rep, class Period>
    constexpr wait_limit(std::chrono::duration<Rep, Period> d)  // NOLINT: implicit by design
        : ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(d)) {
        if (ns_.count() < 0) ns_ = std::chrono::nanoseconds(0);
    }
    constexpr bool bounded() const noexcept { return ns_.count() >= 0; }
    constexpr std::chrono::nanoseconds duration() const noexcept { return ns_; }

private:
    std::chrono::nanoseconds ns_{-1};
};

namespace detail {
using clock = std::chrono::steady_clock;

// Polls done() until it holds or `limit` has passed since `start`; then calls fail(elapsed),
// which throws, or returns to end the wait (it found the work done after all). Yields now and
// then: the PE that must act may share this core.
template <class Done, class Fail>
inline void poll_until(clock::time_point start, std::chrono::nanoseconds limit, Done done, Fail fail) {
    const auto deadline = start + std::chrono::duration_cast<clock::duration>(limit);
    for (unsigned i = 0;; ++i) {
        if (done()) return;
        const auto now = clock::now();
        if (now >= deadline) {
            fail(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start));
            return;
        }
        if ((i & 15) == 15) std::this_thread::yield();
    }
}

inline void check_coll(int rc, const char *what) {
    if (rc != 0) [[unlikely]]
        throw transport_error(std::string("ushmem: ") + what + on_pe() + " failed (the C routine returned " +
                              std::to_string(rc) + ")");
}
// A PE outside a team holds SHMEM_TEAM_INVALID for it (what a split gives the PEs outside the new
// team, and a default-constructed team): the C collectives would only return nonzero, so the
// C++ layer says what is wrong, as a usage error, before reaching them.
[[noreturn, gnu::noinline, gnu::cold]] inline void throw_not_member(const char *what) {
    throw_invalid(what, "this PE is not a member of this team (a split gives the PEs outside the new "
                        "team an invalid team: test team::valid() before using it)");
}
[[gnu::always_inline]] inline void check_member(shmem_team_t h, const char *what) {
    if (h == SHMEM_TEAM_INVALID) [[unlikely]]
        throw_not_member(what);
}

// Teams on which a bounded collective gave up on this PE: their collective state is undefined (other
// members may have counted some of its signals, or wait for signals it never sent), so any
// further collective on them would hang or pass early and corrupt data. Kept by handle rather than
// in the team object, because every ushmem::world() is a new object naming the same team. Only
// this PE knows: the others learn nothing. `any` keeps the check of every collective to one load
// while no team is marked; the runtime's destructor clears the list.
struct unusable_teams {
    std::atomic<bool> any{false};
    std::mutex lock;
    std::vector<shmem_team_t> teams;
};
inline unusable_teams g_unusable;

[[gnu::noinline]] inline bool team_listed_unusable(shmem_team_t h) {
    std::lock_guard<std::mutex> g(g_unusable.lock);
    return std::find(g_unusable.teams.begin(), g_unusable.teams.end(), h) != g_unusable.teams.end();
}
[[gnu::always_inline]] inline bool team_unusable(shmem_team_t h) {
    if (!g_unusable.any.load(std::memory_order_acquire)) [[likely]]
        return false;
    return team_listed_unusable(h);
}
inline void mark_unusable(shmem_team_t h) {
    std::lock_guard<std::mutex> g(g_unusable.lock);
    if (std::find(g_unusable.teams.begin(), g_unusable.teams.end(), h) == g_unusable.teams.end())
        g_unusable.teams.push_back(h);
    g_unusable.any.store(true, std::memory_order_release);
}
inline void forget_unusable() {
    std::lock_guard<std::mutex> g(g_unusable.lock);
    g_unusable.teams.clear();
    g_unusable.any.store(false, std::memory_order_release);
}
[[noreturn, gnu::noinline, gnu::cold]] inline void throw_unusable(shmem_team_t h, const char *what) {
    throw error(errc::team_unusable,
                std::string("ushmem: ") + what + " on PE " + std::to_string(shmem_my_pe()) + ": " +
                    (h == SHMEM_TEAM_WORLD ? "the world team" : "this team") +
                    " had a bounded collective time out on this PE, which left its collective state "
                    "undefined; it can take no further collective (nor symmetric allocation, for the "
                    "world team). End the job (shmem_global_exit) or go on with other teams");
}
[[gnu::always_inline]] inline void check_usable(shmem_team_t h, const char *what) {
    if (team_unusable(h)) [[unlikely]]
        throw_unusable(h, what);
}

// Runs the team collective call() (returning the C routine's int) under `limit`: unbounded, the C
// routine alone; bounded, with a deadline for its waits (shmemx_coll_timeout_begin), and
// timeout_error when it gave up, after which the team is unusable (team_unusable). The time
// already used since `start` (default: now) counts. A team already unusable throws
// error(team_unusable). (The clock is read on the bounded path only: a default argument of
// clock::now() cost every unbounded collective ~20 ns, 5% of a one-long reduction on a node.)
template <class Call>
inline void run_coll(shmem_team_t team, const char *what, wait_limit limit, Call call,
                     clock::time_point start = {}) {
    check_member(team, what);
    check_usable(team, what);
    if (!limit.bounded()) [[likely]]
        return check_coll(call(), what);
    if (start == clock::time_point{}) start = clock::now();
    const auto left = limit.duration() - (clock::now() - start);
    shmemx_coll_timeout_begin(std::chrono::duration<double>(left).count());
    const int rc = call();
    if (shmemx_coll_timeout_end() != 0) {
        mark_unusable(team);
        throw timeout_error(shmem_my_pe(), std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start),
                            std::string("ushmem: ") + what + " on a team of " +
                                std::to_string(shmem_team_n_pes(team)) +
                                " PEs: not every member arrived before the deadline. The team is now "
                                "unusable for collectives on this PE (its collective state is "
                                "undefined; see docs/cpp.md, \"Timeouts\")");
    }
    check_coll(rc, what);
}

// Bounded collective creation or destruction (symmetric allocation and free, team splits): first
// a sync of `team` under `limit`, so that the operation itself, which cannot give up half way
// without leaving the heap or the team pool inconsistent between PEs, starts only once every
// member has arrived. Costs one sync, in the bounded form only; every PE must use the same form.
inline void arrive_all(shmem_team_t team, const char *what, wait_limit limit) {
    run_coll(team, what, limit, [team] { return shmem_team_sync(team); });
}
} // namespace detail

// Library lifetime: shmem_init (or shmem_init_thread) in the constructor, shmem_finalize in the
// destructor. One per program (OpenSHMEM allows re-initialising after finalize).
class runtime {
public:
    runtime() {
        shmem_init();
        detail::g_npes = shmem_n_pes();
        shmem_query_thread(&provided_);
    }
    explicit runtime(int thread_level) {
        if (shmem_init_thread(thread_level, &provided_) != 0)
            throw transport_error("ushmem: shmem_init_thread failed");
        detail::g_npes = shmem_n_pes();
    }
    runtime(const runtime &) = delete;
    runtime &operator=(const runtime &) = delete;
    // shmem_finalize: not bounded (see docs/cpp.md, "Timeouts").
    ~runtime() {
        shmem_finalize();
        detail::g_npes = 0;
        detail::forget_unusable();
    }
    int thread_level() const noexcept { return provided_; }
    static int my_pe() noexcept { return shmem_my_pe(); }
    static int n_pes() noexcept { return detail::npes(); }

private:
    int provided_ = SHMEM_THREAD_SINGLE;
};

inline int my_pe() noexcept { return shmem_my_pe(); }
inline int n_pes() noexcept { return detail::npes(); }

// A symmetric address on one PE. Arithmetic moves within the symmetric object; the remote
// element is read and written with get()/put() (or ushmem::get/put and the atomics).
template <class T> class sym_ptr {
    static_assert(std::is_trivially_copyable_v<T>, "symmetric data must be trivially copyable");

public:
    sym_ptr() = default;
    // Validates: `p` symmetric, aligned for T, pe in range. Throws invalid_argument.
    sym_ptr(T *p, int pe) : p_(p), pe_(pe) {
        auto why = detail::why_invalid(p, sizeof(T), alignof(T), pe);
        if (!why.empty()) detail::throw_invalid("sym_ptr", why);
    }
    sym_ptr(detail::unchecked_t, T *p, int pe) noexcept : p_(p), pe_(pe) {}

    T *address() const noexcept { return p_; }  // the symmetric (local) address
    int pe() const noexcept { return pe_; }
    sym_ptr operator+(std::ptrdiff_t d) const noexcept { return {detail::unchecked, p_ + d, pe_}; }
    sym_ptr operator-(std::ptrdiff_t d) const noexcept { return {detail::unchecked, p_ - d, pe_}; }
    std::ptrdiff_t operator-(const sym_ptr &o) const noexcept { return p_ - o.p_; }
    sym_ptr &operator+=(std::ptrdiff_t d) noexcept { p_ += d; return *this; }
    sym_ptr &operator++() noexcept { ++p_; return *this; }
    bool operator==(const sym_ptr &) const = default;

    // Blocking element access.
    T get(shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) const {
        T v;
        if (ctx == SHMEM_CTX_DEFAULT) shmem_getmem(&v, p_, sizeof(T), pe_);
        else shmem_ctx_getmem(ctx, &v, p_, sizeof(T), pe_);
        return v;
    }
    void put(detail::value_arg<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) const {
        if (ctx == SHMEM_CTX_DEFAULT) shmem_putmem(p_, &v.v, sizeof(T), pe_);
        else shmem_ctx_putmem(ctx, p_, &v.v, sizeof(T), pe_);
    }

private:
    T *p_ = nullptr;
    int pe_ = -1;
};

// A remote view: `size()` elements of a symmetric array on PE pe().
template <class T> class sym_span {
public:
    sym_span() = default;
    // Validates the whole range; throws invalid_argument.
    sym_span(T *p, std::size_t n, int pe) : p_(p), n_(n), pe_(pe) {
        auto why = detail::why_invalid(p, n * sizeof(T), alignof(T), pe);
        if (!why.empty()) detail::throw_invalid("sym_span", why);
    }
    sym_span(detail::unchecked_t, T *p, std::size_t n, int pe) noexcept : p_(p), n_(n), pe_(pe) {}

    T *data() const noexcept { return p_; }
    std::size_t size() const noexcept { return n_; }
    std::size_t size_bytes() const noexcept { return n_ * sizeof(T); }
    int pe() const noexcept { return pe_; }
    bool empty() const noexcept { return n_ == 0; }

    sym_span subspan(std::size_t offset, std::size_t count = std::size_t(-1)) const {
        if (offset > n_) [[unlikely]]
            detail::throw_invalid("sym_span::subspan", "offset " + std::to_string(offset) +
                                  " beyond size " + std::to_string(n_));
        if (count == std::size_t(-1)) count = n_ - offset;
        if (count > n_ - offset) [[unlikely]] {
            // Appended, not "[" + std::string: GCC 12 at -O3 warns falsely (-Wrestrict) about
            // inserting a short literal before a temporary, and -Werror makes it an error.
            std::string m("[");
            m.append(std::to_string(offset)).append(", +").append(std::to_string(count));
            m.append(") beyond size ").append(std::to_string(n_));
            detail::throw_invalid("sym_span::subspan", m);
        }
        return {detail::unchecked, p_ + offset, count, pe_};
    }
    sym_ptr<T> operator[](std::size_t i) const {
        if (i >= n_) [[unlikely]]
            detail::throw_invalid("sym_span", "index " + std::to_string(i) + " beyond size " +
                                  std::to_string(n_));
        return {detail::unchecked, p_ + i, pe_};
    }
    sym_ptr<T> begin_ptr() const noexcept { return {detail::unchecked, p_, pe_}; }
    T get(std::size_t i, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) const { return (*this)[i].get(ctx); }
    void put(std::size_t i, detail::value_arg<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) const {
        (*this)[i].put(v, ctx);
    }

private:
    T *p_ = nullptr;
    std::size_t n_ = 0;
    int pe_ = -1;
};

struct uninitialized_t {};
inline constexpr uninitialized_t uninitialized{};

// A symmetric array of n T: allocated collectively on every PE (shmem_malloc), freed collectively
// (shmem_free) by the destructor. Move-only. Elements are value-initialised (zero for scalars).
//
// Destroyed during stack unwinding (an exception in flight that was not at construction), the
// object does not enter the collective free, which would hang the PEs that did not throw: it
// leaks its block and prints one line on stderr.
template <class T> class symmetric {
    static_assert(std::is_trivially_copyable_v<T>, "symmetric data must be trivially copyable");

public:
    // Every PE's elements are initialised before the constructor returns on any PE (a barrier
    // follows the fill, so a remote put issued right after construction cannot be overwritten).
    //
    // Bounded (a last wait_limit): the allocation waits at most `limit` for the other PEs. It first
    // syncs the world team under the limit (detail::arrive_all), so every PE must pass a limit (of
    // any value) or none. timeout_error: nothing was allocated, and the world team is unusable.
    explicit symmetric(std::size_t n) : symmetric(n, T{}) {}
    symmetric(std::size_t n, wait_limit limit) : symmetric(n, T{}, limit) {}
    symmetric(std::size_t n, const T &init, wait_limit limit = {}) : symmetric(n, uninitialized, limit) {
        std::uninitialized_fill_n(p_, n_, init);
        shmem_barrier_all();
    }
    // Contents left as shmem_malloc returns them; one collective (the allocation) only.
    symmetric(std::size_t n, uninitialized_t, wait_limit limit = {})
        : n_(n), uncaught_(std::uncaught_exceptions()) {
        if (n > SIZE_MAX / sizeof(T))
            detail::throw_invalid("symmetric", std::to_string(n) + " elements overflow size_t");
        if (limit.bounded()) detail::arrive_all(SHMEM_TEAM_WORLD, "symmetric allocation", limit);
        else detail::check_usable(SHMEM_TEAM_WORLD, "symmetric allocation");
        std::size_t bytes = n * sizeof(T);
        void *p = alignof(T) > 16 ? shmem_align(alignof(T), bytes ? bytes : 1)
                                  : shmem_malloc(bytes ? bytes : 1);
        if (p == nullptr) throw bad_symmetric_alloc(bytes, shmem_my_pe(), detail::last_error());
        p_ = static_cast<T *>(p);
    }
    symmetric(const symmetric &) = delete;
    symmetric &operator=(const symmetric &) = delete;
    symmetric(symmetric &&o) noexcept
        : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), uncaught_(o.uncaught_) {}
    symmetric &operator=(symmetric &&o) noexcept {
        if (this != &o) {
            release();
            p_ = std::exchange(o.p_, nullptr);
            n_ = std::exchange(o.n_, 0);
            uncaught_ = o.uncaught_;
        }
        return *this;
    }
    ~symmetric() { release(); }

    std::span<T> local() const noexcept { return {p_, n_}; }
    T *data() const noexcept { return p_; }
    std::size_t size() const noexcept { return n_; }
    // Unchecked, as std::vector's: i must be below size() (at(i) checks).
    T &operator[](std::size_t i) const noexcept { return p_[i]; }
    // This PE's element i, bounds-checked: invalid_argument beyond size().
    T &at(std::size_t i) const {
        if (i >= n_) [[unlikely]]
            detail::throw_invalid("symmetric::at", "index " + std::to_string(i) + " beyond size " +
                                  std::to_string(n_));
        return p_[i];
    }
    T *begin() const noexcept { return p_; }
    T *end() const noexcept { return p_ + n_; }

    // The same array on PE pe. Throws invalid_argument when pe is out of range.
    sym_span<T> on(int pe) const {
        detail::check_pe(pe, "symmetric::on");
        return {detail::unchecked, p_, n_, pe};
    }
    sym_ptr<T> at(std::size_t i, int pe) const {
        detail::check_pe(pe, "symmetric::at");
        if (i >= n_) [[unlikely]]
            detail::throw_invalid("symmetric::at", "index " + std::to_string(i) + " beyond size " +
                                  std::to_string(n_));
        return {detail::unchecked, p_ + i, pe};
    }

    // Frees the array now, collectively (shmem_free; the destructor then does nothing). Bounded, a
    // world sync under `limit` comes first (as for the allocation; every PE must use the same form):
    // on timeout_error the block is leaked, since its collective free can no longer complete, and
    // the world team is unusable. After the world team became unusable, error(team_unusable).
    void free(wait_limit limit = {}) {
        if (p_ == nullptr) return;
        try {
            if (limit.bounded()) detail::arrive_all(SHMEM_TEAM_WORLD, "symmetric free", limit);
            else detail::check_usable(SHMEM_TEAM_WORLD, "symmetric free");
        } catch (const timeout_error &) {
            p_ = nullptr;  // leaked, without the destructor's warning: the exception says it
            n_ = 0;
            throw;
        }
        shmem_free(p_);
        p_ = nullptr;
        n_ = 0;
    }

private:
    void release() noexcept {
        if (p_ == nullptr) return;
        const char *why = std::uncaught_exceptions() > uncaught_ ? "during exception unwinding"
                          : detail::team_unusable(SHMEM_TEAM_WORLD)
                              ? "after a timed-out collective made the world team unusable"
                              : nullptr;
        if (why) {
            std::fprintf(stderr,
                         "ushmem: PE %d: symmetric<> of %zu bytes destroyed %s; leaked instead of "
                         "a collective shmem_free\n",
                         shmem_my_pe(), n_ * sizeof(T), why);
        } else {
            shmem_free(p_);
        }
        p_ = nullptr;
        n_ = 0;
    }

    T *p_ = nullptr;
    std::size_t n_ = 0;
    int uncaught_ = 0;
};

} // namespace ushmem
