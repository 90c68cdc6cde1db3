// ushmem C++ API: C++20 coroutines. `co_await e` on an event, value_event, then() or when_all()
// completion; `co_await ushmem::within(e, limit)` for a bounded wait (timeout_error from the
// co_await, as from wait(limit)); ushmem::task<T>, a lazy coroutine, driven by ushmem::run(tasks...)
// or ushmem::sync_wait(task) on the calling thread.
//
// The driver keeps the coroutines suspended on a completion and polls each (its test(), which
// progresses the transport) round-robin, resuming those that completed; a coroutine that computes
// between its co_awaits overlaps its own communication with that work, and several tasks run
// together overlap each other's. co_await ushmem::yield_now() lets the others run. Outside a
// driver (a coroutine type of the program's own), co_await on a completion that is not complete
// waits for it in place (blocking), so it is still correct.
#pragma once

#include <ushmem/compose.hpp>

#include <sched.h>

#include <coroutine>
#include <exception>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace ushmem {

namespace detail {
// Coroutine frames of ushmem::task, kept per thread once freed (up to 32 per size class of 64
// bytes, frames up to 2 KiB) and reused: a task per operation in a loop costs no malloc/free.
class frame_cache {
public:
    static void *take(std::size_t bytes) {
        const std::size_t k = (bytes + 63) / 64;
        auto &c = cache();
        if (k < classes && c.n[k] > 0) return c.frames[k][--c.n[k]];
        return ::operator new(k < classes ? k * 64 : bytes);
    }
    static void give(void *p, std::size_t bytes) noexcept {
        const std::size_t k = (bytes + 63) / 64;
        auto &c = cache();
        if (k < classes && c.n[k] < per_class) c.frames[k][c.n[k]++] = p;
        else ::operator delete(p);
    }

private:
    static constexpr std::size_t classes = 33, per_class = 32;
    struct store {
        void *frames[classes][per_class];
        std::size_t n[classes] = {};
        ~store() {
            for (std::size_t k = 0; k < classes; ++k)
                while (n[k] > 0) ::operator delete(frames[k][--n[k]]);
        }
    };
    static store &cache() noexcept {
        thread_local store c;
        return c;
    }
};

// Whether this node runs more PEs than this PE may use CPUs (its affinity mask): a PE that spins
// there keeps the one it waits for off a core for a whole time slice (milliseconds), so a polling
// yield_now gives the CPU away every time. Decided once the library runs (SHMEM_TEAM_SHARED).
inline int g_oversubscribed = -1;  // unknown
inline bool oversubscribed() {
    if (g_oversubscribed >= 0) [[likely]]
        return g_oversubscribed != 0;
    int on = 0;
    shmem_query_initialized(&on);
    if (!on) return false;
    cpu_set_t set;
    const int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                                 : int(std::thread::hardware_concurrency());
    g_oversubscribed = shmem_team_n_pes(SHMEM_TEAM_SHARED) > (cpus > 0 ? cpus : 1) ? 1 : 0;
    return g_oversubscribed != 0;
}
// One idle turn of a polling loop (the `spins`-th in a row): progresses this PE's outstanding
// operations on the default context (shmemx_ctx_pe_test: a non-blocking per-PE quiet, which
// progresses the transport), then yields the CPU when the node is oversubscribed, else every 16th
// turn. Without it, co_await yield_now() in a loop spun a full time slice per round while the PE
// it waited for sat off the core (issue #52: 1000 rounds at 4 PEs on 2 cores took 5 to 16 s).
inline void idle_turn(unsigned spins) {
    int on = 0;
    shmem_query_initialized(&on);
    if (on) (void)shmemx_ctx_pe_test(SHMEM_CTX_DEFAULT, nullptr, 0, nullptr);
    if (oversubscribed() || (spins & 15) == 0) std::this_thread::yield();  // (sched_yield on Linux)
}

// The driver of ushmem::run: coroutines parked on a completion (polled), and those ready to resume.
class scheduler {
public:
    struct parked {
        std::coroutine_handle<> h;
        void *awaiter;
        bool (*poll)(void *);  // true: resume h (complete, or its deadline passed)
    };
    void park(std::coroutine_handle<> h, void *aw, bool (*poll)(void *)) { parked_.push_back({h, aw, poll}); }
    void ready(std::coroutine_handle<> h) { ready_.push_back(h); }
    // A coroutine that only lets the others run (yield_now): ready again, but a round in which
    // nothing else is ready is an idle turn of a polling loop (idle_turn).
    void yielded(std::coroutine_handle<> h) {
        ready_.push_back(h);
        ++yielders_;
    }
    // One round: polls every parked coroutine, then resumes those ready. False when nothing was
    // parked or ready (a task waits on something the driver does not know).
    bool step() {
        if (parked_.empty() && ready_.empty()) return false;
        bool woke = false;  // a parked completion came
        for (std::size_t i = 0; i < parked_.size();) {
            if (parked_[i].poll(parked_[i].awaiter)) {
                woke = true;
                ready_.push_back(parked_[i].h);
                parked_[i] = parked_.back();
                parked_.pop_back();
            } else {
                ++i;
            }
        }
        if (ready_.empty()) {
            if ((++idle_ & 15) == 0) std::this_thread::yield();  // the PE to wait for may share this core
            return true;
        }
        if (!woke && yielders_ == ready_.size()) idle_turn(++spins_);
        else spins_ = 0;
        yielders_ = 0;
        std::vector<std::coroutine_handle<>> now;
        now.swap(ready_);
        for (auto h : now) h.resume();
        return true;
    }
    static scheduler *&current() noexcept {
        thread_local scheduler *s = nullptr;
        return s;
    }

private:
    std::vector<parked> parked_;
    std::vector<std::coroutine_handle<>> ready_;
    unsigned idle_ = 0;
    std::size_t yielders_ = 0;  // of ready_, those that came from yield_now
    unsigned spins_ = 0;        // idle turns in a row
};

// Awaits completion C (a reference, or a value for a temporary), optionally under a deadline.
template <class CRef> class completion_awaiter {
    using C = std::remove_reference_t<CRef>;

public:
    completion_awaiter(CRef c, wait_limit limit, const char *routine)
        : c_(std::forward<CRef>(c)), limit_(limit), routine_(routine) {}
    bool await_ready() {
        if (limit_.bounded()) start_ = clock::now();  // (only a deadline needs the clock: ~20 ns)
        return c_.test();
    }
    bool await_suspend(std::coroutine_handle<> h) {
        scheduler *s = scheduler::current();
        if (s == nullptr) {  // no driver: wait here
            try {
                c_.wait(limit_, routine_);
            } catch (...) {
                error_ = std::current_exception();
            }
            return false;
        }
        s->park(h, this, &poll);
        return true;
    }
    value_t<C> await_resume() {
        if (error_) std::rethrow_exception(error_);
        if constexpr (!std::is_void_v<value_t<C>>) return c_.value();
    }

private:
    static bool poll(void *p) {
        auto *self = static_cast<completion_awaiter *>(p);
        if (self->c_.test()) return true;
        if (!self->limit_.bounded()) return false;
        const auto elapsed = clock::now() - self->start_;
        if (elapsed < self->limit_.duration()) return false;
        // The deadline passed: the completion's own zero wait names the PEs still incomplete.
        try {
            self->c_.wait(wait_limit(std::chrono::nanoseconds(0)), self->routine_);
        } catch (const timeout_error &e) {
            self->error_ = rewrap(e, std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed), self->routine_);
        } catch (...) {
            self->error_ = std::current_exception();
        }
        return true;
    }
    // The deadline's timeout_error from the completion's zero wait, with the time of the whole
    // co_await. Built on events, it lists the incomplete PEs, and the advice about operations in
    // flight applies; a completion of the program's own (pending() empty) gets neither an empty
    // list nor that advice, but keeps the description its own wait gave.
    static std::exception_ptr rewrap(const timeout_error &e, std::chrono::nanoseconds elapsed, const char *routine) {
        if (!e.pending().empty())
            return std::make_exception_ptr(
                timeout_error(std::vector<pe_progress>(e.pending().begin(), e.pending().end()), elapsed,
                              std::string("ushmem: ") + routine + " on PE " + std::to_string(shmem_my_pe()) +
                                  ": operations not complete before the deadline",
                              timeout_remedy()));
        std::string said = e.description();
        if (said.rfind("ushmem: ", 0) == 0) said.erase(0, 8);
        return std::make_exception_ptr(
            timeout_error(shmem_my_pe(), elapsed,
                          std::string("ushmem: ") + routine + ": the awaited completion was not complete before the deadline" +
                              (said.empty() ? std::string() : "; its wait reported: " + said)));
    }
    CRef c_;
    wait_limit limit_;
    const char *routine_;
    clock::time_point start_{};
    std::exception_ptr error_;
};
} // namespace detail

// co_await on any completion (an lvalue is awaited in place; a temporary is kept in the awaiter).
template <completion C> inline auto operator co_await(C &c) {
    return detail::completion_awaiter<C &>(c, wait_limit{}, "co_await");
}
template <completion C>
    requires(!std::is_reference_v<C>)
inline auto operator co_await(C &&c) {
    return detail::completion_awaiter<C>(std::move(c), wait_limit{}, "co_await");
}
// co_await within(e, limit): the bounded form; timeout_error from the co_await when `limit`
// passes first (the operations stay in flight, as after wait(limit)).
template <completion C> inline auto within(C &c, wait_limit limit) {
    return detail::completion_awaiter<C &>(c, limit, "co_await within");
}
template <completion C>
    requires(!std::is_reference_v<C>)
inline auto within(C &&c, wait_limit limit) {
    return detail::completion_awaiter<C>(std::move(c), limit, "co_await within");
}

// co_await yield_now(): lets the driver poll and resume the other tasks, then goes on (outside a
// driver: goes on at once). A round in which nothing else was ready is an idle turn of a polling
// loop: it progresses the library and gives the CPU away (every time on a node with more PEs
// than CPUs, else every 16th turn; see detail::idle_turn), outside a driver too.
struct yield_now {
    bool await_ready() const {
        if (detail::scheduler::current() != nullptr) return false;
        thread_local unsigned spins = 0;
        detail::idle_turn(++spins);
        return true;
    }
    void await_suspend(std::coroutine_handle<> h) const { detail::scheduler::current()->yielded(h); }
    void await_resume() const noexcept {}
};

// A lazy coroutine returning T: it starts when awaited (co_await t, from another task) or run
// (ushmem::run / sync_wait). An exception escaping it is rethrown by get() and by co_await.
// Move-only; destroying an unfinished task destroys its frame (its pending operations stay in
// flight).
template <class T = void> class [[nodiscard]] task {
public:
    struct promise_type;
    using handle = std::coroutine_handle<promise_type>;

    struct promise_base {
        static void *operator new(std::size_t bytes) { return detail::frame_cache::take(bytes); }
        static void operator delete(void *p, std::size_t bytes) noexcept { detail::frame_cache::give(p, bytes); }
        std::coroutine_handle<> continuation;
        std::exception_ptr error;
        std::suspend_always initial_suspend() noexcept { return {}; }
        struct final_awaiter {
            bool await_ready() noexcept { return false; }
            template <class P> std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
                auto c = h.promise().continuation;
                return c ? c : std::noop_coroutine();
            }
            void await_resume() noexcept {}
        };
        final_awaiter final_suspend() noexcept { return {}; }
        void unhandled_exception() noexcept { error = std::current_exception(); }
    };
    struct promise_value : promise_base {
        std::optional<T> value;
        template <class U> void return_value(U &&v) { value.emplace(std::forward<U>(v)); }
    };
    struct promise_void : promise_base {
        void return_void() noexcept {}
    };
    struct promise_type : std::conditional_t<std::is_void_v<T>, promise_void, promise_value> {
        task get_return_object() { return task(handle::from_promise(*this)); }
    };

    task(task &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    task &operator=(task &&o) noexcept {
        if (this != &o) {
            if (h_) h_.destroy();
            h_ = std::exchange(o.h_, nullptr);
        }
        return *this;
    }
    ~task() {
        if (h_) h_.destroy();
    }
    bool done() const noexcept { return !h_ || h_.done(); }
    // The result of a finished task (rethrows its exception).
    T get() {
        if (!h_ || !h_.done()) detail::throw_invalid("task::get", "the task has not finished");
        if (h_.promise().error) std::rethrow_exception(h_.promise().error);
        if constexpr (!std::is_void_v<T>) return std::move(*h_.promise().value);
    }

    // co_await t: runs t to its end, then resumes the awaiting coroutine with its result.
    auto operator co_await() && noexcept {
        struct awaiter {
            handle h;
            bool await_ready() noexcept { return !h || h.done(); }
            std::coroutine_handle<> await_suspend(std::coroutine_handle<> c) noexcept {
                h.promise().continuation = c;
                return h;
            }
            T await_resume() {
                if (h.promise().error) std::rethrow_exception(h.promise().error);
                if constexpr (!std::is_void_v<T>) return std::move(*h.promise().value);
            }
        };
        return awaiter{h_};
    }
    // (run(): start on the driver.)
    void start() {
        if (h_ && !h_.done()) h_.resume();
    }

private:
    explicit task(handle h) noexcept : h_(h) {}
    handle h_;
};

// Runs the tasks on this thread until all have finished (their exceptions stay in them: get()).
// Polls the completions they wait on round-robin: one task's communication overlaps another's
// computation. Nestable: a run inside a task drives only its own tasks.
template <class... Ts> inline void run(task<Ts> &...ts) {
    detail::scheduler s;
    detail::scheduler *outer = std::exchange(detail::scheduler::current(), &s);
    struct restore {
        detail::scheduler *o;
        ~restore() { detail::scheduler::current() = o; }
    } r{outer};
    (ts.start(), ...);
    while (!(ts.done() && ...))
        if (!s.step())
            detail::throw_invalid("run", "a task is suspended on something other than a ushmem completion, "
                                  "yield_now() or another task");
}
// Runs one task to its end and returns its result (rethrows its exception).
template <class T> inline T sync_wait(task<T> t) {
    run(t);
    return t.get();
}

} // namespace ushmem
