// ushmem C++ API: typed put/get, events, atomics, ordering and point-to-point waits.
#pragma once

#include <ushmem/memory.hpp>

#include <chrono>
#include <thread>

namespace ushmem {

// Completion of asynchronous operations to one PE (pe() >= 0) or of everything outstanding on a
// context (pe() < 0, as a batch to several PEs returns). Two words, no allocation.
//
// wait() is shmem_pe_quiet (shmem_ctx_pe_quiet) of that one PE: it also completes other operations
// to the same PE issued on the context, never waits for those to other PEs. test() and
// wait(timeout) poll shmemx_ctx_pe_test, a non-blocking per-PE quiet (a flush of that PE's
// endpoint, started once and then tested): test() returns at once; wait(timeout) polls until
// complete or throws timeout_error naming the PE still incomplete. The operations stay in flight
// after a timeout: a later wait()/test()/quiet() completes them.
class [[nodiscard]] event {
public:
    event() = default;
    event(shmem_ctx_t ctx, int pe) noexcept : ctx_(ctx), pe_(pe) {}
    int pe() const noexcept { return pe_; }
    shmem_ctx_t context() const noexcept { return ctx_; }
    void wait() const {
        if (ctx_ == SHMEM_CTX_DEFAULT) {
            if (pe_ >= 0) shmem_pe_quiet(&pe_, 1);
            else shmem_quiet();
        } else {
            if (pe_ >= 0) shmem_ctx_pe_quiet(ctx_, &pe_, 1);
            else shmem_ctx_quiet(ctx_);
        }
    }
    bool test() const {
        int incomplete = pe_;
        return test(incomplete);
    }
    void wait(wait_limit limit) const {
        if (!limit.bounded()) return wait();
        int incomplete = pe_;
        detail::poll_until(detail::clock::now(), limit.duration(), [&] { return test(incomplete); },
                           [&](std::chrono::nanoseconds elapsed) { throw_timeout(incomplete, elapsed); });
    }

private:
    bool test(int &incomplete) const {
        return shmemx_ctx_pe_test(ctx_, pe_ >= 0 ? &pe_ : nullptr, pe_ >= 0 ? 1 : 0, &incomplete) != 0;
    }
    [[noreturn, gnu::noinline, gnu::cold]] static void throw_timeout(int pe, std::chrono::nanoseconds elapsed) {
        throw timeout_error(pe, elapsed,
                            "ushmem: event::wait: operations issued to PE " + std::to_string(pe) +
                                " are not complete before the deadline (issued: every operation "
                                "to that PE on this context since its last quiet; completed: not "
                                "yet acknowledged by the transport). They stay in flight; over an "
                                "emulated transport (UCX_TLS=tcp) the target must progress "
                                "(USHMEM_PROGRESS_THREAD)");
    }
    shmem_ctx_t ctx_ = SHMEM_CTX_DEFAULT;
    int pe_ = -1;
};

// The result of an asynchronous fetching atomic: the value lands in the event itself, so the
// event is neither copyable nor movable (bind it with `auto e = fetch_add_async(...)`, which
// constructs it in place). get() waits and returns the value.
template <class T> class [[nodiscard]] value_event {
public:
    template <class Issue> value_event(shmem_ctx_t ctx, int pe, Issue &&issue) : ev_(ctx, pe) {
        issue(&value_);
    }
    value_event(const value_event &) = delete;
    value_event &operator=(const value_event &) = delete;
    int pe() const noexcept { return ev_.pe(); }
    void wait() const { ev_.wait(); }
    bool test() const { return ev_.test(); }
    T get() const {
        ev_.wait();
        return value_;
    }
    // timeout_error (naming the PE) when not complete within `limit`.
    void wait(wait_limit limit) const { ev_.wait(limit); }
    T get(wait_limit limit) const {
        ev_.wait(limit);
        return value_;
    }

private:
    event ev_;
    T value_{};
};

// The default context calls the plain C routine (one argument and one handle check fewer); with
// the default argument the choice is made at compile time.
#define USHMEM_CXX_CALL(fn, ...) (ctx == SHMEM_CTX_DEFAULT ? fn(__VA_ARGS__) : fn(ctx, __VA_ARGS__))
#define USHMEM_CXX_CALL2(fn, ctxfn, ...) \
    (ctx == SHMEM_CTX_DEFAULT ? fn(__VA_ARGS__) : ctxfn(ctx, __VA_ARGS__))

namespace detail {
template <class T> inline void check_fits(std::size_t have, std::size_t need, const char *what) {
    if (need > have) [[unlikely]]
        throw_invalid(std::string(what) + ": " + std::to_string(need) + " elements into " +
                      std::to_string(have));
}
} // namespace detail

// ---- RMA ----------------------------------------------------------------------------------
// dst.size() must be at least src.size(); src.size() elements move.

template <class T>
inline void put(sym_span<T> dst, std::type_identity_t<std::span<const T>> src,
                shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_fits<T>(dst.size(), src.size(), "put");
    USHMEM_CXX_CALL2(shmem_putmem, shmem_ctx_putmem, dst.data(), src.data(), src.size_bytes(), dst.pe());
}
template <class T>
inline void put(sym_ptr<T> dst, const std::type_identity_t<T> &v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_CALL2(shmem_putmem, shmem_ctx_putmem, dst.address(), &v, sizeof(T), dst.pe());
}
template <class T>
inline void get(std::span<T> dst, sym_span<T> src, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_fits<T>(dst.size(), src.size(), "get");
    USHMEM_CXX_CALL2(shmem_getmem, shmem_ctx_getmem, dst.data(), src.data(), src.size_bytes(), src.pe());
}
template <class T> inline T get(sym_ptr<T> src, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    T v;
    USHMEM_CXX_CALL2(shmem_getmem, shmem_ctx_getmem, &v, src.address(), sizeof(T), src.pe());
    return v;
}

// Asynchronous: `src` (put) must stay unchanged, and `dst` (get) is not valid, until the event
// completes.
template <class T>
inline event put_async(sym_span<T> dst, std::type_identity_t<std::span<const T>> src,
                       shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_fits<T>(dst.size(), src.size(), "put_async");
    USHMEM_CXX_CALL2(shmem_putmem_nbi, shmem_ctx_putmem_nbi, dst.data(), src.data(), src.size_bytes(), dst.pe());
    return {ctx, dst.pe()};
}
template <class T>
inline event get_async(std::span<T> dst, sym_span<T> src, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_fits<T>(dst.size(), src.size(), "get_async");
    USHMEM_CXX_CALL2(shmem_getmem_nbi, shmem_ctx_getmem_nbi, dst.data(), src.data(), src.size_bytes(), src.pe());
    return {ctx, src.pe()};
}

// Strided (shmem_iput / shmem_iget): n elements, element i of the source at index i * stride of
// the source, to index i * stride of the destination (strides in elements, >= 1). Blocking like
// put/get. The C routine is the sized one (shmem_ctx_iputBITS), so any 1, 2, 4, 8 or 16-byte T works.
namespace detail {
template <std::size_t Bytes> struct sized_rma {
    static_assert(Bytes == 0, "ushmem: iput/iget need an element of 1, 2, 4, 8 or 16 bytes");
};
#define USHMEM_CXX_SIZED(BITS, BYTES, _)                                                           \
    template <> struct sized_rma<BYTES> {                                                          \
        static void iput(shmem_ctx_t c, void *d, const void *s, std::ptrdiff_t ds,                 \
                         std::ptrdiff_t ss, std::size_t n, int pe) {                               \
            shmem_ctx_iput##BITS(c, d, s, ds, ss, n, pe);                                          \
        }                                                                                          \
        static void iget(shmem_ctx_t c, void *d, const void *s, std::ptrdiff_t ds,                 \
                         std::ptrdiff_t ss, std::size_t n, int pe) {                               \
            shmem_ctx_iget##BITS(c, d, s, ds, ss, n, pe);                                          \
        }                                                                                          \
    };
USHMEM_RMA_SIZES(USHMEM_CXX_SIZED, _)
#undef USHMEM_CXX_SIZED

// n elements at `stride` must fit in `have`.
inline void check_strided(std::size_t have, std::ptrdiff_t stride, std::size_t n, const char *what) {
    if (stride < 1) [[unlikely]]
        throw_invalid(std::string(what) + ": stride " + std::to_string(stride) + " must be >= 1");
    if (n != 0 && (n - 1) * std::size_t(stride) + 1 > have) [[unlikely]]
        throw_invalid(std::string(what) + ": " + std::to_string(n) + " elements at stride " +
                      std::to_string(stride) + " need " +
                      std::to_string((n - 1) * std::size_t(stride) + 1) + " elements, the span has " +
                      std::to_string(have));
}
} // namespace detail

template <class T>
inline void iput(sym_span<T> dst, std::ptrdiff_t dst_stride, std::type_identity_t<std::span<const T>> src,
                 std::ptrdiff_t src_stride, std::size_t n, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_strided(dst.size(), dst_stride, n, "iput destination");
    detail::check_strided(src.size(), src_stride, n, "iput source");
    detail::sized_rma<sizeof(T)>::iput(ctx, dst.data(), src.data(), dst_stride, src_stride, n, dst.pe());
}
template <class T>
inline void iget(std::span<T> dst, std::ptrdiff_t dst_stride, sym_span<T> src, std::ptrdiff_t src_stride,
                 std::size_t n, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_strided(dst.size(), dst_stride, n, "iget destination");
    detail::check_strided(src.size(), src_stride, n, "iget source");
    detail::sized_rma<sizeof(T)>::iget(ctx, dst.data(), src.data(), dst_stride, src_stride, n, src.pe());
}

enum class signal_op : int { set = SHMEM_SIGNAL_SET, add = SHMEM_SIGNAL_ADD };

// Put, then update the signal word `sig` on the same PE once the data has arrived.
template <class T>
inline event put_signal_async(sym_span<T> dst, std::type_identity_t<std::span<const T>> src,
                              sym_ptr<std::uint64_t> sig, std::uint64_t value,
                              signal_op op = signal_op::set, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_fits<T>(dst.size(), src.size(), "put_signal_async");
    if (sig.pe() != dst.pe()) [[unlikely]]
        detail::throw_invalid("put_signal_async: signal on PE " + std::to_string(sig.pe()) +
                              ", data to PE " + std::to_string(dst.pe()));
    USHMEM_CXX_CALL2(shmem_putmem_signal_nbi, shmem_ctx_putmem_signal_nbi, dst.data(), src.data(), src.size_bytes(), sig.address(),
                                value, int(op), dst.pe());
    return {ctx, dst.pe()};
}
template <class T>
inline void put_signal(sym_span<T> dst, std::type_identity_t<std::span<const T>> src,
                       sym_ptr<std::uint64_t> sig, std::uint64_t value,
                       signal_op op = signal_op::set, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_fits<T>(dst.size(), src.size(), "put_signal");
    if (sig.pe() != dst.pe()) [[unlikely]]
        detail::throw_invalid("put_signal: signal on PE " + std::to_string(sig.pe()) +
                              ", data to PE " + std::to_string(dst.pe()));
    USHMEM_CXX_CALL2(shmem_putmem_signal, shmem_ctx_putmem_signal, dst.data(), src.data(), src.size_bytes(), sig.address(), value,
                            int(op), dst.pe());
}

// ---- Atomics ------------------------------------------------------------------------------
// T must be in the specification's AMO tables (static_assert otherwise); the C routine is chosen
// by overload on T (the C++ overloads of <shmem.h>, generated from the same tables).

#define USHMEM_CXX_REQUIRE(PRED, WHAT) \
    static_assert(PRED<T>, "ushmem: " WHAT " is not supported for this type (see the AMO type tables)")

template <class T> inline T load(sym_ptr<T> p, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_ext_type, "atomic load (fetch)");
    return USHMEM_CXX_CALL(shmem_atomic_fetch, static_cast<const T *>(p.address()), p.pe());
}
template <class T>
inline void store(sym_ptr<T> p, std::type_identity_t<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_ext_type, "atomic store (set)");
    USHMEM_CXX_CALL(shmem_atomic_set, p.address(), v, p.pe());
}
template <class T>
inline T swap(sym_ptr<T> p, std::type_identity_t<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_ext_type, "atomic swap");
    return USHMEM_CXX_CALL(shmem_atomic_swap, p.address(), v, p.pe());
}
template <class T>
inline T compare_swap(sym_ptr<T> p, std::type_identity_t<T> cond, std::type_identity_t<T> v,
                      shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic compare_swap");
    return USHMEM_CXX_CALL(shmem_atomic_compare_swap, p.address(), cond, v, p.pe());
}
template <class T>
inline T fetch_add(sym_ptr<T> p, std::type_identity_t<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic fetch_add");
    return USHMEM_CXX_CALL(shmem_atomic_fetch_add, p.address(), v, p.pe());
}
template <class T>
inline void add(sym_ptr<T> p, std::type_identity_t<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic add");
    USHMEM_CXX_CALL(shmem_atomic_add, p.address(), v, p.pe());
}
template <class T> inline T fetch_inc(sym_ptr<T> p, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic fetch_inc");
    return USHMEM_CXX_CALL(shmem_atomic_fetch_inc, p.address(), p.pe());
}
template <class T> inline void inc(sym_ptr<T> p, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic inc");
    USHMEM_CXX_CALL(shmem_atomic_inc, p.address(), p.pe());
}

#define USHMEM_CXX_BITWISE(OP)                                                                  \
    template <class T>                                                                          \
    inline T fetch_##OP(sym_ptr<T> p, std::type_identity_t<T> v,                                \
                        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {                                  \
        USHMEM_CXX_REQUIRE(amo_bitwise_type, "atomic fetch_" #OP);                              \
        return USHMEM_CXX_CALL(shmem_atomic_fetch_##OP, p.address(), v, p.pe());                            \
    }                                                                                           \
    template <class T>                                                                          \
    inline void atomic_##OP(sym_ptr<T> p, std::type_identity_t<T> v,                            \
                            shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {                              \
        USHMEM_CXX_REQUIRE(amo_bitwise_type, "atomic " #OP);                                    \
        USHMEM_CXX_CALL(shmem_atomic_##OP, p.address(), v, p.pe());                                         \
    }                                                                                           \
    template <class T>                                                                          \
    inline value_event<T> fetch_##OP##_async(sym_ptr<T> p, std::type_identity_t<T> v,           \
                                             shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {             \
        USHMEM_CXX_REQUIRE(amo_bitwise_type, "atomic fetch_" #OP);                              \
        return value_event<T>(ctx, p.pe(), [&](T *f) {                                          \
            USHMEM_CXX_CALL(shmem_atomic_fetch_##OP##_nbi, f, p.address(), v, p.pe());                      \
        });                                                                                     \
    }
USHMEM_CXX_BITWISE(and)
USHMEM_CXX_BITWISE(or)
USHMEM_CXX_BITWISE(xor)
#undef USHMEM_CXX_BITWISE

// Asynchronous fetching atomics: the fetched value is read with value_event::get().
template <class T> inline value_event<T> load_async(sym_ptr<T> p, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_ext_type, "atomic load (fetch)");
    return value_event<T>(ctx, p.pe(), [&](T *f) {
        USHMEM_CXX_CALL(shmem_atomic_fetch_nbi, f, static_cast<const T *>(p.address()), p.pe());
    });
}
template <class T>
inline value_event<T> swap_async(sym_ptr<T> p, std::type_identity_t<T> v,
                                 shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_ext_type, "atomic swap");
    return value_event<T>(ctx, p.pe(),
                          [&](T *f) { USHMEM_CXX_CALL(shmem_atomic_swap_nbi, f, p.address(), v, p.pe()); });
}
template <class T>
inline value_event<T> compare_swap_async(sym_ptr<T> p, std::type_identity_t<T> cond,
                                         std::type_identity_t<T> v,
                                         shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic compare_swap");
    return value_event<T>(ctx, p.pe(), [&](T *f) {
        USHMEM_CXX_CALL(shmem_atomic_compare_swap_nbi, f, p.address(), cond, v, p.pe());
    });
}
template <class T>
inline value_event<T> fetch_add_async(sym_ptr<T> p, std::type_identity_t<T> v,
                                      shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic fetch_add");
    return value_event<T>(ctx, p.pe(),
                          [&](T *f) { USHMEM_CXX_CALL(shmem_atomic_fetch_add_nbi, f, p.address(), v, p.pe()); });
}
#undef USHMEM_CXX_REQUIRE

// ---- Ordering and synchronisation ----------------------------------------------------------

inline void quiet(shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) { shmem_ctx_quiet(ctx); }
inline void quiet(int pe, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_pe(pe, "quiet");
    if (ctx == SHMEM_CTX_DEFAULT) shmem_pe_quiet(&pe, 1);
    else shmem_ctx_pe_quiet(ctx, &pe, 1);
}
// Bounded: timeout_error naming a PE whose operations are still incomplete.
inline void quiet(wait_limit limit, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) { event(ctx, -1).wait(limit); }
inline void quiet(int pe, wait_limit limit, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_pe(pe, "quiet");
    event(ctx, pe).wait(limit);
}
inline void fence(shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) { shmem_ctx_fence(ctx); }

// shmem_barrier_all (quiet, then every PE arrives) and shmem_sync_all (arrival only). Bounded,
// the quiet and the arrival share the limit: timeout_error names the incomplete PE (quiet) or
// this PE (arrival), and after an arrival timeout the world team's collective state is undefined.
inline void barrier(wait_limit limit = {}) {
    if (!limit.bounded()) [[likely]]
        return shmem_barrier_all();
    const auto start = detail::clock::now();
    event(SHMEM_CTX_DEFAULT, -1).wait(limit);
    detail::run_coll(SHMEM_TEAM_WORLD, "barrier", limit, [] { shmem_sync_all(); return 0; }, start);
}
inline void sync_all(wait_limit limit = {}) {
    detail::run_coll(SHMEM_TEAM_WORLD, "sync_all", limit, [] { shmem_sync_all(); return 0; });
}

enum class cmp : int {
    eq = SHMEM_CMP_EQ,
    ne = SHMEM_CMP_NE,
    gt = SHMEM_CMP_GT,
    ge = SHMEM_CMP_GE,
    lt = SHMEM_CMP_LT,
    le = SHMEM_CMP_LE,
};

// Waits until the local symmetric variable `ivar` compares `c` to `value` (updated by other PEs).
template <class T> inline void wait_until(T &ivar, cmp c, std::type_identity_t<T> value) {
    static_assert(p2p_type<T>, "ushmem: wait_until is not supported for this type");
    shmem_wait_until(&ivar, int(c), value);
}
template <class T> inline bool test(T &ivar, cmp c, std::type_identity_t<T> value) {
    static_assert(p2p_type<T>, "ushmem: test is not supported for this type");
    return shmem_test(&ivar, int(c), value) != 0;
}
// Bounded: polls shmem_test (which progresses the transport); throws timeout_error naming this
// PE and the time waited.
template <class T> inline void wait_until(T &ivar, cmp c, std::type_identity_t<T> value, wait_limit limit) {
    static_assert(p2p_type<T>, "ushmem: wait_until is not supported for this type");
    if (!limit.bounded()) return wait_until(ivar, c, value);
    detail::poll_until(detail::clock::now(), limit.duration(),
                       [&] { return shmem_test(&ivar, int(c), value) != 0; },
                       [](std::chrono::nanoseconds elapsed) {
                           throw timeout_error(shmem_my_pe(), elapsed,
                                               "ushmem: wait_until: condition not met before the deadline");
                       });
}
// The same on element i of a symmetric array.
template <class T, class... A>
inline void wait_until(const symmetric<T> &s, std::size_t i, cmp c, std::type_identity_t<T> value,
                       A... timeout) {
    if (i >= s.size()) [[unlikely]]
        detail::throw_invalid("wait_until: index " + std::to_string(i) + " beyond size " +
                              std::to_string(s.size()));
    wait_until(s[i], c, value, timeout...);
}

#undef USHMEM_CXX_CALL
#undef USHMEM_CXX_CALL2

} // namespace ushmem
