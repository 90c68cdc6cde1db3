// ushmem C++ API: typed put/get, events, atomics, ordering and point-to-point waits.
#pragma once

#include <ushmem/memory.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace ushmem {

template <class Src, class F> class then_event;  // compose.hpp

namespace detail {
// The operations an event issued, per target PE, for events to several PEs (batches): all of
// them, and the gets and fetching atomics among them, whose completion the transport reports one
// by one (shmemx_ctx_pe_replies). Shared, immutable: copies of the event and repeated submits of
// an unchanged batch share one.
struct pe_counts {
    std::vector<int> pes;
    std::vector<std::size_t> issued, fetches;
};
// The advice of a timed-out wait for operations: they stay in flight; and, when no progress thread
// runs, that over an emulated transport the target must progress.
inline std::string timeout_remedy() {
    return shmemx_progress_thread_running()
               ? "They stay in flight: keep their buffers valid until a later wait or quiet completes "
                 "them. The progress thread runs: the target PE may be stopped, or its transport "
                 "overloaded"
               : "They stay in flight: keep their buffers valid until a later wait or quiet completes "
                 "them. Over an emulated transport (UCX_TLS=tcp) the target PE must progress: enable "
                 "USHMEM_PROGRESS_THREAD";
}
// The number of PEs in `ctx`'s team (its PE numbering).
inline int ctx_npes(shmem_ctx_t ctx) {
    shmem_team_t t = SHMEM_TEAM_WORLD;
    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_get_team(ctx, &t);
    return t == SHMEM_TEAM_WORLD ? npes() : shmem_team_n_pes(t);
}
} // namespace detail

// Completion of asynchronous operations: to one PE (pe() >= 0), to several PEs (a batch), or of
// everything outstanding on a context (counted() false: quiet(limit)). It records how many
// operations it issued to each PE, for timeout_error::pending(): one PE inline (an event to one
// PE is a context, a PE and two counts: no allocation), several in a shared detail::pe_counts.
//
// wait() is shmem_pe_quiet (shmem_ctx_pe_quiet) of that one PE: it also completes other operations
// to the same PE issued on the context, never waits for those to other PEs; to several PEs, a
// quiet of the context. test() and wait(timeout) poll shmemx_ctx_pe_test, a non-blocking per-PE
// quiet (a flush of that PE's endpoint, started once and then tested): test() returns at once;
// wait(timeout) tests each PE until all are complete or throws timeout_error listing those still
// incomplete. The operations stay in flight after a timeout: a later wait()/test()/quiet()
// completes them (their buffers must stay valid until then).
class [[nodiscard]] event {
public:
    event() = default;
    // `issued` operations to `pe` (numbered in ctx's team), `fetches` of them gets or fetching
    // atomics; pe < 0: the whole context, uncounted.
    event(shmem_ctx_t ctx, int pe, std::uint32_t issued = 1, std::uint32_t fetches = 0) noexcept
        : ctx_(ctx), n_(pe >= 0 ? 1 : 0), pe_(pe), issued_(issued), fetches_(fetches) {}
    // Several PEs (counts->pes not empty, distinct).
    event(shmem_ctx_t ctx, std::shared_ptr<const detail::pe_counts> counts) noexcept
        : ctx_(ctx), n_(int(counts->pes.size())), spill_(std::move(counts)) {}
    // Moving copies: an event is a small value (a shared pointer's copy cannot throw), and a
    // moved-from event is then the same event, still valid to wait or test. (A defaulted move left
    // an event to several PEs with its count of PEs but no list of them.)
    event(const event &) = default;
    event &operator=(const event &) = default;
    event(event &&o) noexcept : event(static_cast<const event &>(o)) {}
    event &operator=(event &&o) noexcept { return *this = static_cast<const event &>(o); }
    int pe() const noexcept { return n_ == 1 ? pes()[0] : -1; }
    shmem_ctx_t context() const noexcept { return ctx_; }
    // False for an event covering the whole context (operations not counted).
    bool counted() const noexcept { return n_ > 0; }
    // The PEs it waits for; the operations it issued to the i-th, and the gets and fetching
    // atomics among them.
    std::span<const int> pes() const noexcept {
        return spill_ ? std::span<const int>(spill_->pes) : std::span<const int>(&pe_, std::size_t(n_));
    }
    std::size_t issued(std::size_t i) const noexcept { return spill_ ? spill_->issued[i] : issued_; }
    std::size_t fetches(std::size_t i) const noexcept { return spill_ ? spill_->fetches[i] : fetches_; }

    void wait() const {
        // The PE is copied out: the C routine gets the address of a local, so the event does not
        // escape and, inlined, costs nothing beyond that store (its other fields are dead).
        if (n_ == 1) {
            int pe = pes()[0];
            if (ctx_ == SHMEM_CTX_DEFAULT) shmem_pe_quiet(&pe, 1);
            else shmem_ctx_pe_quiet(ctx_, &pe, 1);
        } else {
            if (ctx_ == SHMEM_CTX_DEFAULT) shmem_quiet();
            else shmem_ctx_quiet(ctx_);
        }
    }
    bool test() const {
        const std::span<const int> p = pes();
        return shmemx_ctx_pe_test(ctx_, n_ ? p.data() : nullptr, p.size(), nullptr) != 0;
    }
    // A completion that runs f() once this one is complete (compose.hpp).
    template <class F> then_event<event, std::decay_t<F>> then(F &&f) const;
    void wait(wait_limit limit) const { wait(limit, "event::wait"); }
    // The same, naming `routine` in the timeout message (the bounded calls built on events).
    void wait(wait_limit limit, const char *routine) const {
        if (!limit.bounded()) return wait();
        const auto start = detail::clock::now();
        if (n_ == 0)
            return detail::poll_until(start, limit.duration(), [&] { return test(); },
                                      [&](std::chrono::nanoseconds elapsed) { context_timeout(elapsed, routine); });
        // Each PE is tested on its own until complete, so that a timeout can list the others.
        const std::span<const int> p = pes();
        bool one_done = false;
        std::unique_ptr<bool[]> many_done;
        bool *done = n_ == 1 ? &one_done : (many_done = std::make_unique<bool[]>(p.size())).get();
        std::size_t left = p.size();
        detail::poll_until(
            start, limit.duration(),
            [&] {
                for (std::size_t i = 0; i < p.size(); ++i)
                    if (!done[i] && shmemx_ctx_pe_test(ctx_, &p[i], 1, nullptr)) {
                        done[i] = true;
                        --left;
                    }
                return left == 0;
            },
            [&](std::chrono::nanoseconds elapsed) {
                std::vector<pe_progress> pending;
                for (std::size_t i = 0; i < p.size(); ++i)
                    if (!done[i]) pending.push_back({p[i], issued(i), completed_fetches(p[i], fetches(i))});
                throw_timeout(std::move(pending), elapsed, routine);
            });
    }

private:
    // Of `k` gets and fetching atomics issued to `pe`, how many are known complete: all but those
    // still outstanding to that PE on the context (every reply not yet arrived, whoever issued
    // it), a lower bound that is exact when nothing else is in flight there. Puts are known
    // complete only once the PE's flush is, and the PE is then not pending (see docs/cpp.md).
    std::size_t completed_fetches(int pe, std::size_t k) const {
        if (k == 0) return 0;
        std::uint64_t issued = 0, done = 0;
        shmemx_ctx_pe_replies(ctx_, pe, &issued, &done);
        const std::uint64_t outstanding = issued > done ? issued - done : 0;
        return outstanding >= k ? 0 : std::size_t(k - outstanding);
    }
    // Lists every PE of the context still incomplete; returns (the wait succeeds) when none is.
    void context_timeout(std::chrono::nanoseconds elapsed, const char *routine) const {
        std::vector<pe_progress> pending;
        const int n = detail::ctx_npes(ctx_);
        for (int pe = 0; pe < n; ++pe)
            if (!shmemx_ctx_pe_test(ctx_, &pe, 1, nullptr))
                pending.push_back({pe, pe_progress::not_counted, 0});
        if (!pending.empty()) throw_timeout(std::move(pending), elapsed, routine);
    }
    [[noreturn, gnu::noinline, gnu::cold]] static void throw_timeout(std::vector<pe_progress> pending,
                                                                     std::chrono::nanoseconds elapsed,
                                                                     const char *routine) {
        throw timeout_error(std::move(pending), elapsed,
                            std::string("ushmem: ") + routine + " on PE " + std::to_string(shmem_my_pe()) +
                                ": operations not complete before the deadline",
                            detail::timeout_remedy());
    }
    shmem_ctx_t ctx_ = SHMEM_CTX_DEFAULT;
    int n_ = 0;  // PEs counted (0: the whole context)
    int pe_ = -1;  // one PE: inline
    std::uint32_t issued_ = 0, fetches_ = 0;
    std::shared_ptr<const detail::pe_counts> spill_;  // several PEs
};

namespace detail {
// The heap slots of value_events: freed slots are kept per thread (up to 64 per type) and reused,
// so that an asynchronous fetch costs no malloc/free in a loop. A slot freed on another thread
// joins that thread's cache; the cache is freed when its thread ends.
template <class T> class slot_cache {
public:
    static T *take() {
        auto &c = cache();
        if (c.n == 0) return new T{};
        T *p = c.slots[--c.n];
        *p = T{};
        return p;
    }
    static void give(T *p) noexcept {
        auto &c = cache();
        if (c.n < max) c.slots[c.n++] = p;
        else delete p;
    }

private:
    static constexpr int max = 64;
    struct store {
        T *slots[max];
        int n = 0;
        ~store() {
            while (n > 0) delete slots[--n];
        }
    };
    static store &cache() noexcept {
        thread_local store c;
        return c;
    }
};
} // namespace detail

// The result of an asynchronous fetching atomic. The value lands in a slot on the heap that the
// event owns, so the event is movable (a std::vector<value_event<T>> of pending fetches works) and
// the slot stays put while the reply is in flight. get() waits and returns the value; value()
// returns it without waiting, once the event is known complete (test() true, or after a wait).
// Destroyed before it was known complete (a timed-out get, an event never waited), the event
// tests its operation once: complete, the slot is freed; still in flight, the slot is leaked, so
// that the late reply writes into nothing live. A moved-from event owns no operation and no slot:
// wait(), test(), get() and value() on it throw invalid_argument ("moved-from event") rather than
// report a completion it does not have (its pe() and completion() still describe the operation).
template <class T> class [[nodiscard]] value_event {
public:
    using value_type = T;
    template <class Issue>
    value_event(shmem_ctx_t ctx, int pe, Issue &&issue) : ev_(ctx, pe, 1, 1), slot_(detail::slot_cache<T>::take()) {
        try {
            issue(slot_);
        } catch (...) {
            detail::slot_cache<T>::give(slot_);
            throw;
        }
    }
    value_event(const value_event &) = delete;
    value_event &operator=(const value_event &) = delete;
    value_event(value_event &&o) noexcept
        : ev_(std::move(o.ev_)), slot_(std::exchange(o.slot_, nullptr)), done_(o.done_) {}
    value_event &operator=(value_event &&o) noexcept {
        if (this != &o) {
            release();
            ev_ = std::move(o.ev_);
            slot_ = std::exchange(o.slot_, nullptr);
            done_ = o.done_;
        }
        return *this;
    }
    ~value_event() { release(); }

    int pe() const noexcept { return ev_.pe(); }
    // The completion it waits on (a per-PE quiet of the target).
    const event &completion() const noexcept { return ev_; }
    void wait() const {
        check_owned("value_event::wait");
        ev_.wait();
        done_ = true;
    }
    bool test() const {
        check_owned("value_event::test");
        if (!done_ && ev_.test()) done_ = true;
        return done_;
    }
    T get() const {
        check_owned("value_event::get");
        ev_.wait();
        done_ = true;
        return *slot_;
    }
    // A completion that runs f(value) once this one is complete (compose.hpp); moves the event.
    template <class F> then_event<value_event, std::decay_t<F>> then(F &&f) &&;
    // On an lvalue: then() takes the event over, which must be said with std::move (a copy of the
    // slot the reply lands in cannot be made). Without this overload the compiler reports only
    // that the && overload "discards qualifiers".
    template <class F> then_event<value_event, std::decay_t<F>> then(F &&) const & {
        static_assert(sizeof(F) == 0, "ushmem: value_event::then moves the event (its value slot is not "
                                      "copyable): write std::move(e).then(f)");
        std::terminate();
    }
    // The fetched value; the event must be complete (test() returned true, or a wait returned).
    const T &value() const {
        check_owned("value_event::value");
        return *slot_;
    }
    // timeout_error (naming the PE) when not complete within `limit`. The operation then stays
    // in flight; the event may be waited again, or dropped (see above).
    void wait(wait_limit limit, const char *routine = "value_event::wait") const {
        check_owned(routine);
        ev_.wait(limit, routine);
        done_ = true;
    }
    T get(wait_limit limit, const char *routine = "value_event::get") const {
        wait(limit, routine);
        return *slot_;
    }

private:
    // A moved-from event has no slot: reading it would dereference null, and its event (a copy of
    // the moved one's) would report the operation complete although this object no longer owns it.
    void check_owned(const char *routine) const {
        if (slot_ == nullptr) [[unlikely]]
            detail::throw_invalid(routine, "moved-from event (it owns no operation; use the value_event it was "
                                           "moved into)");
    }
    void release() noexcept {
        if (slot_ == nullptr) return;
        if (done_ || (running() && ev_.test())) detail::slot_cache<T>::give(slot_);
        slot_ = nullptr;
    }
    // (No test once the library has ended: the C layer would end the job.)
    static bool running() noexcept {
        int on = 0;
        shmem_query_initialized(&on);
        return on != 0;
    }
    event ev_;
    T *slot_ = nullptr;
    mutable bool done_ = false;
};

// The default context calls the plain C routine (one argument and one handle check fewer); with
// the default argument the choice is made at compile time.
#define USHMEM_CXX_CALL(fn, ...) (ctx == SHMEM_CTX_DEFAULT ? fn(__VA_ARGS__) : fn(ctx, __VA_ARGS__))
#define USHMEM_CXX_CALL2(fn, ctxfn, ...) \
    (ctx == SHMEM_CTX_DEFAULT ? fn(__VA_ARGS__) : ctxfn(ctx, __VA_ARGS__))

namespace detail {
template <class T> inline void check_fits(std::size_t have, std::size_t need, const char *what) {
    if (need > have) [[unlikely]]
        throw_invalid(what, std::to_string(need) + " elements into " +
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
inline void put(sym_ptr<T> dst, value_of<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_CALL2(shmem_putmem, shmem_ctx_putmem, dst.address(), &v.v, sizeof(T), dst.pe());
}
template <class T>
inline void get(std::type_identity_t<std::span<T>> dst, sym_span<T> src, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
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
// One element from a value: a put that returns once its source is reusable (the value is copied
// at once), then an event for its completion at the target (a per-PE quiet).
template <class T>
inline event put_async(sym_ptr<T> dst, value_of<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_CALL2(shmem_putmem, shmem_ctx_putmem, dst.address(), &v.v, sizeof(T), dst.pe());
    return {ctx, dst.pe()};
}
template <class T>
inline event get_async(std::type_identity_t<std::span<T>> dst, sym_span<T> src, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_fits<T>(dst.size(), src.size(), "get_async");
    USHMEM_CXX_CALL2(shmem_getmem_nbi, shmem_ctx_getmem_nbi, dst.data(), src.data(), src.size_bytes(), src.pe());
    return {ctx, src.pe(), 1, 1};
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
        throw_invalid(what, "stride " + std::to_string(stride) + " must be >= 1");
    if (n != 0 && (n - 1) * std::size_t(stride) + 1 > have) [[unlikely]]
        throw_invalid(what, std::to_string(n) + " elements at stride " +
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
inline void iget(std::type_identity_t<std::span<T>> dst, std::ptrdiff_t dst_stride, sym_span<T> src, std::ptrdiff_t src_stride,
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
        detail::throw_invalid("put_signal_async", "signal on PE " + std::to_string(sig.pe()) +
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
        detail::throw_invalid("put_signal", "signal on PE " + std::to_string(sig.pe()) +
                              ", data to PE " + std::to_string(dst.pe()));
    USHMEM_CXX_CALL2(shmem_putmem_signal, shmem_ctx_putmem_signal, dst.data(), src.data(), src.size_bytes(), sig.address(), value,
                            int(op), dst.pe());
}

// ---- Atomics ------------------------------------------------------------------------------
// T must be in the specification's AMO tables (static_assert otherwise); the C routine is chosen
// by overload on T (the C++ overloads of <shmem.h>, generated from the same tables).

// The body follows the macro as the `else` of an `if constexpr`: for a type the table refuses,
// the static_assert is the one diagnostic; the C call is discarded rather than tried against every
// overload of <shmem.h> (which printed some 450 lines of candidates after the message), and
// std::terminate (noreturn, never reached: the build has failed) keeps -Wreturn-type quiet.
#define USHMEM_CXX_REQUIRE(PRED, WHAT)                                                              \
    static_assert(PRED<T>, "ushmem: " WHAT " is not supported for this type (see the AMO type tables)"); \
    if constexpr (!PRED<T>) std::terminate();                                                       \
    else

template <class T> inline T load(sym_ptr<T> p, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_ext_type, "atomic load (fetch)")
    return USHMEM_CXX_CALL(shmem_atomic_fetch, static_cast<const T *>(p.address()), p.pe());
}
template <class T>
inline void store(sym_ptr<T> p, value_of<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_ext_type, "atomic store (set)")
    USHMEM_CXX_CALL(shmem_atomic_set, p.address(), v, p.pe());
}
template <class T>
inline T swap(sym_ptr<T> p, value_of<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_ext_type, "atomic swap")
    return USHMEM_CXX_CALL(shmem_atomic_swap, p.address(), v, p.pe());
}
template <class T>
inline T compare_swap(sym_ptr<T> p, value_of<T> cond, value_of<T> v,
                      shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic compare_swap")
    return USHMEM_CXX_CALL(shmem_atomic_compare_swap, p.address(), cond, v, p.pe());
}
template <class T>
inline T fetch_add(sym_ptr<T> p, value_of<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic fetch_add")
    return USHMEM_CXX_CALL(shmem_atomic_fetch_add, p.address(), v, p.pe());
}
template <class T>
inline void add(sym_ptr<T> p, value_of<T> v, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic add")
    USHMEM_CXX_CALL(shmem_atomic_add, p.address(), v, p.pe());
}
template <class T> inline T fetch_inc(sym_ptr<T> p, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic fetch_inc")
    return USHMEM_CXX_CALL(shmem_atomic_fetch_inc, p.address(), p.pe());
}
template <class T> inline void inc(sym_ptr<T> p, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic inc")
    USHMEM_CXX_CALL(shmem_atomic_inc, p.address(), p.pe());
}

#define USHMEM_CXX_BITWISE(OP)                                                                  \
    template <class T>                                                                          \
    inline T fetch_##OP(sym_ptr<T> p, value_of<T> v,                                \
                        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {                                  \
        USHMEM_CXX_REQUIRE(amo_bitwise_type, "atomic fetch_" #OP)                              \
        return USHMEM_CXX_CALL(shmem_atomic_fetch_##OP, p.address(), v, p.pe());                            \
    }                                                                                           \
    template <class T>                                                                          \
    inline void atomic_##OP(sym_ptr<T> p, value_of<T> v,                            \
                            shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {                              \
        USHMEM_CXX_REQUIRE(amo_bitwise_type, "atomic " #OP)                                    \
        USHMEM_CXX_CALL(shmem_atomic_##OP, p.address(), v, p.pe());                                         \
    }                                                                                           \
    template <class T>                                                                          \
    inline value_event<T> fetch_##OP##_async(sym_ptr<T> p, value_of<T> v,           \
                                             shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {             \
        USHMEM_CXX_REQUIRE(amo_bitwise_type, "atomic fetch_" #OP)                              \
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
    USHMEM_CXX_REQUIRE(amo_ext_type, "atomic load (fetch)")
    return value_event<T>(ctx, p.pe(), [&](T *f) {
        USHMEM_CXX_CALL(shmem_atomic_fetch_nbi, f, static_cast<const T *>(p.address()), p.pe());
    });
}
template <class T>
inline value_event<T> swap_async(sym_ptr<T> p, value_of<T> v,
                                 shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_ext_type, "atomic swap")
    return value_event<T>(ctx, p.pe(),
                          [&](T *f) { USHMEM_CXX_CALL(shmem_atomic_swap_nbi, f, p.address(), v, p.pe()); });
}
template <class T>
inline value_event<T> compare_swap_async(sym_ptr<T> p, value_of<T> cond,
                                         value_of<T> v,
                                         shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic compare_swap")
    return value_event<T>(ctx, p.pe(), [&](T *f) {
        USHMEM_CXX_CALL(shmem_atomic_compare_swap_nbi, f, p.address(), cond, v, p.pe());
    });
}
template <class T>
inline value_event<T> fetch_add_async(sym_ptr<T> p, value_of<T> v,
                                      shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic fetch_add")
    return value_event<T>(ctx, p.pe(),
                          [&](T *f) { USHMEM_CXX_CALL(shmem_atomic_fetch_add_nbi, f, p.address(), v, p.pe()); });
}
template <class T> inline value_event<T> fetch_inc_async(sym_ptr<T> p, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    USHMEM_CXX_REQUIRE(amo_std_type, "atomic fetch_inc")
    return value_event<T>(ctx, p.pe(),
                          [&](T *f) { USHMEM_CXX_CALL(shmem_atomic_fetch_inc_nbi, f, p.address(), p.pe()); });
}
#undef USHMEM_CXX_REQUIRE

// ---- Bounded blocking forms ----------------------------------------------------------------
// The blocking RMA and atomics with a wait_limit before the context: the asynchronous form plus
// event::wait(limit) (value_event::get(limit)), so they return once the operation is complete at
// the target (stronger than the plain put's local completion), or throw timeout_error with the
// PE in pending(). The unbounded overloads are untouched (no cost on their path); wait_limit{}
// calls them. After a timeout the operation is still in flight: for the forms that take a
// caller's buffer (spans) it must stay valid until a later wait or quiet; the value forms keep
// theirs on the heap and leak it on timeout, so a late completion writes into nothing live.
// Exception: the library performs fetching AND/OR/XOR through UCX as a compare-and-swap loop (see
// docs/atomics.md), which waits for each reply inside the C call: to a PE reached through UCX,
// fetch_and/or/xor are bounded by USHMEM_WAIT_TIMEOUT only.
namespace detail {
// (A timed-out value_event leaks its slot when destroyed, so the late reply lands in nothing live.)
template <class T, class Make> inline T bounded_fetch(const char *routine, wait_limit limit, Make make) {
    return make().get(limit, routine);
}
} // namespace detail

template <class T>
inline void put(sym_span<T> dst, std::type_identity_t<std::span<const T>> src, wait_limit limit,
                shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    if (!limit.bounded()) return put(dst, src, ctx);
    put_async(dst, src, ctx).wait(limit, "put");
}
template <class T>
inline void get(std::type_identity_t<std::span<T>> dst, sym_span<T> src, wait_limit limit, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    if (!limit.bounded()) return get(dst, src, ctx);
    get_async(dst, src, ctx).wait(limit, "get");
}
template <class T>
inline void put(sym_ptr<T> dst, value_of<T> v, wait_limit limit,
                shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    if (!limit.bounded()) return put(dst, v, ctx);
    auto box = std::make_unique<T>(v);  // the source, read until the put completes
    try {
        put_async(sym_span<T>(detail::unchecked, dst.address(), 1, dst.pe()), std::span<const T>(box.get(), 1), ctx)
            .wait(limit, "put");
    } catch (const timeout_error &) {
        (void)box.release();
        throw;
    }
}
template <class T> inline T get(sym_ptr<T> src, wait_limit limit, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    if (!limit.bounded()) return get(src, ctx);
    auto box = std::make_unique<T>();  // the landing slot
    try {
        get_async(std::span<T>(box.get(), 1), sym_span<T>(detail::unchecked, src.address(), 1, src.pe()), ctx)
            .wait(limit, "get");
    } catch (const timeout_error &) {
        (void)box.release();
        throw;
    }
    return *box;
}
template <class T>
inline void put_signal(sym_span<T> dst, std::type_identity_t<std::span<const T>> src,
                       sym_ptr<std::uint64_t> sig, std::uint64_t value, signal_op op, wait_limit limit,
                       shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    if (!limit.bounded()) return put_signal(dst, src, sig, value, op, ctx);
    put_signal_async(dst, src, sig, value, op, ctx).wait(limit, "put_signal");
}

// Atomics, generated: NAME(p, args..., limit, ctx). PARAMS and ARGS are parenthesised lists that
// start with a comma (empty for none).
#define USHMEM_CXX_UNPAREN(...) __VA_ARGS__
#define USHMEM_CXX_BOUNDED_FETCH(NAME, PARAMS, ARGS)                                             \
    template <class T>                                                                           \
    inline T NAME(sym_ptr<T> p USHMEM_CXX_UNPAREN PARAMS, wait_limit limit,                      \
                  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {                                         \
        if (!limit.bounded()) return NAME(p USHMEM_CXX_UNPAREN ARGS, ctx);                       \
        return detail::bounded_fetch<T>(#NAME, limit,                                            \
                                        [&] { return NAME##_async(p USHMEM_CXX_UNPAREN ARGS, ctx); }); \
    }
#define USHMEM_CXX_BOUNDED_POST(NAME, PARAMS, ARGS)                                              \
    template <class T>                                                                           \
    inline void NAME(sym_ptr<T> p USHMEM_CXX_UNPAREN PARAMS, wait_limit limit,                   \
                     shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {                                      \
        NAME(p USHMEM_CXX_UNPAREN ARGS, ctx);                                                    \
        if (limit.bounded()) event(ctx, p.pe()).wait(limit, #NAME);                              \
    }
#define USHMEM_CXX_V (, value_of<T> v), (, v)
#define USHMEM_CXX_EXPAND(M, ...) M(__VA_ARGS__)
USHMEM_CXX_BOUNDED_FETCH(load, (), ())
USHMEM_CXX_BOUNDED_FETCH(fetch_inc, (), ())
USHMEM_CXX_EXPAND(USHMEM_CXX_BOUNDED_FETCH, swap, USHMEM_CXX_V)
USHMEM_CXX_EXPAND(USHMEM_CXX_BOUNDED_FETCH, fetch_add, USHMEM_CXX_V)
USHMEM_CXX_EXPAND(USHMEM_CXX_BOUNDED_FETCH, fetch_and, USHMEM_CXX_V)
USHMEM_CXX_EXPAND(USHMEM_CXX_BOUNDED_FETCH, fetch_or, USHMEM_CXX_V)
USHMEM_CXX_EXPAND(USHMEM_CXX_BOUNDED_FETCH, fetch_xor, USHMEM_CXX_V)
USHMEM_CXX_BOUNDED_FETCH(compare_swap, (, value_of<T> cond, value_of<T> v), (, cond, v))
USHMEM_CXX_BOUNDED_POST(inc, (), ())
USHMEM_CXX_EXPAND(USHMEM_CXX_BOUNDED_POST, store, USHMEM_CXX_V)
USHMEM_CXX_EXPAND(USHMEM_CXX_BOUNDED_POST, add, USHMEM_CXX_V)
USHMEM_CXX_EXPAND(USHMEM_CXX_BOUNDED_POST, atomic_and, USHMEM_CXX_V)
USHMEM_CXX_EXPAND(USHMEM_CXX_BOUNDED_POST, atomic_or, USHMEM_CXX_V)
USHMEM_CXX_EXPAND(USHMEM_CXX_BOUNDED_POST, atomic_xor, USHMEM_CXX_V)
#undef USHMEM_CXX_EXPAND
#undef USHMEM_CXX_V
#undef USHMEM_CXX_BOUNDED_POST
#undef USHMEM_CXX_BOUNDED_FETCH
#undef USHMEM_CXX_UNPAREN

// ---- Ordering and synchronisation ----------------------------------------------------------

inline void quiet(shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) { shmem_ctx_quiet(ctx); }
inline void quiet(int pe, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_pe(pe, "quiet");
    if (ctx == SHMEM_CTX_DEFAULT) shmem_pe_quiet(&pe, 1);
    else shmem_ctx_pe_quiet(ctx, &pe, 1);
}
// Bounded: timeout_error naming a PE whose operations are still incomplete.
inline void quiet(wait_limit limit, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) { event(ctx, -1).wait(limit, "quiet"); }
inline void quiet(int pe, wait_limit limit, shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) {
    detail::check_pe(pe, "quiet");
    event(ctx, pe).wait(limit, "quiet(pe)");
}
inline void fence(shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) { shmem_ctx_fence(ctx); }

// shmem_barrier_all (quiet, then every PE arrives) and shmem_sync_all (arrival only). Bounded,
// the quiet and the arrival share the limit: timeout_error names the incomplete PE (quiet) or
// this PE (arrival); after an arrival timeout the world team is unusable (error(team_unusable)
// from every later collective on it).
inline void barrier(wait_limit limit = {}) {
    if (!limit.bounded()) [[likely]] {
        detail::check_usable(SHMEM_TEAM_WORLD, "barrier");
        return shmem_barrier_all();
    }
    const auto start = detail::clock::now();
    event(SHMEM_CTX_DEFAULT, -1).wait(limit, "barrier (its quiet)");
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
namespace detail {
inline const char *cmp_text(cmp c) {
    switch (c) {
    case cmp::eq: return "==";
    case cmp::ne: return "!=";
    case cmp::gt: return ">";
    case cmp::ge: return ">=";
    case cmp::lt: return "<";
    case cmp::le: return "<=";
    }
    return "?";
}
// What a bounded wait_until waited for, what it saw, and what usually keeps it waiting.
template <class T> std::string wait_until_failure(const T &ivar, cmp c, T value) {
    const T seen = __atomic_load_n(&ivar, __ATOMIC_ACQUIRE);
    return "ushmem: wait_until: the variable at " + hex(&ivar) + " still holds " + std::to_string(+seen) +
           ", not yet " + cmp_text(c) + " " + std::to_string(+value) +
           ", at the deadline. Usually no PE has written it (a put or atomic to another address or "
           "PE, or one not made yet), or its writer has not completed the put (the writing PE has "
           "not called shmem_quiet/barrier, or is still computing while the transport needs it to "
           "make progress)";
}
} // namespace detail

// Bounded: polls shmem_test (which progresses the transport); throws timeout_error naming this
// PE, the time waited, the condition, the value last seen and the usual causes.
template <class T> inline void wait_until(T &ivar, cmp c, std::type_identity_t<T> value, wait_limit limit) {
    static_assert(p2p_type<T>, "ushmem: wait_until is not supported for this type");
    if (!limit.bounded()) return wait_until(ivar, c, value);
    detail::poll_until(detail::clock::now(), limit.duration(),
                       [&] { return shmem_test(&ivar, int(c), value) != 0; },
                       [&](std::chrono::nanoseconds elapsed) {
                           // (A last look: the condition may have come true meanwhile.)
                           if (shmem_test(&ivar, int(c), value) != 0) return;
                           throw timeout_error(shmem_my_pe(), elapsed, detail::wait_until_failure<T>(ivar, c, value));
                       });
}
// The same on element i of a symmetric array.
template <class T, class... A>
inline void wait_until(const symmetric<T> &s, std::size_t i, cmp c, std::type_identity_t<T> value,
                       A... timeout) {
    if (i >= s.size()) [[unlikely]]
        detail::throw_invalid("wait_until", "index " + std::to_string(i) + " beyond size " +
                              std::to_string(s.size()));
    wait_until(s[i], c, value, timeout...);
}

#undef USHMEM_CXX_CALL
#undef USHMEM_CXX_CALL2

} // namespace ushmem
