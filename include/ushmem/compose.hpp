// ushmem C++ API: composing completions. when_all(...) joins events, value_events and the results
// of then(); then(f) runs f once its source completes. Everything here is polled by the thread
// that owns it: a continuation runs inside the test(), wait() or get() that first sees its source
// complete (or inside the co_await that does, see coro.hpp), never on another thread.
#pragma once

#include <ushmem/rma.hpp>

#include <algorithm>
#include <concepts>
#include <exception>
#include <optional>
#include <ranges>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ushmem {

// What can be composed: something that completes (event, value_event<T>, the result of then()
// and when_all()). A completion with a value also has value_type and value() (the value, once
// known complete, without waiting).
template <class C>
concept completion = requires(const C &c, wait_limit l) {
    { c.test() } -> std::convertible_to<bool>;
    c.wait();
    c.wait(l, "");
};

namespace detail {
template <class C> struct value_type_of { using type = void; };
template <class C>
    requires requires { typename C::value_type; }
struct value_type_of<C> { using type = typename C::value_type; };
template <class C> using value_t = typename value_type_of<std::remove_cvref_t<C>>::type;

// Merges the pending PEs of several timeouts: per PE, the operations issued and completed add up
// (not_counted stays not counted).
inline void merge_pending(std::vector<pe_progress> &into, std::span<const pe_progress> add) {
    for (const pe_progress &p : add) {
        auto it = std::find_if(into.begin(), into.end(), [&](const pe_progress &q) { return q.pe == p.pe; });
        if (it == into.end()) {
            into.push_back(p);
        } else if (it->issued == pe_progress::not_counted || p.issued == pe_progress::not_counted) {
            it->issued = pe_progress::not_counted;
            it->completed = 0;
        } else {
            it->issued += p.issued;
            it->completed += p.completed;
        }
    }
}

// Waits for every completion in `each` (called with a function taking one) under one deadline:
// each in turn gets what is left of it; once one times out, the others are tested once (a wait of
// zero), and one timeout_error lists every PE still incomplete among all of them.
template <class Each>
inline void wait_all(wait_limit limit, const char *routine, Each each) {
    if (!limit.bounded()) {
        each([](const auto &c) { c.wait(); });
        return;
    }
    const auto start = clock::now();
    const auto deadline = start + std::chrono::duration_cast<clock::duration>(limit.duration());
    std::vector<pe_progress> pending;
    bool late = false;  // the deadline has passed: the rest are only tested
    each([&](const auto &c) {
        const auto now = clock::now();
        const auto left = late || now >= deadline ? std::chrono::nanoseconds(0)
                                                  : std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now);
        try {
            c.wait(wait_limit(left), routine);
        } catch (const timeout_error &e) {
            late = true;
            merge_pending(pending, e.pending());
        }
    });
    if (!pending.empty())
        throw timeout_error(std::move(pending),
                            std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start),
                            std::string("ushmem: ") + routine + " on PE " + std::to_string(shmem_my_pe()) +
                                ": operations not complete before the deadline",
                            timeout_remedy());
}
} // namespace detail

// ---- then ----------------------------------------------------------------------------------

// The completion of `Src` followed by f: f(value) for a source with a value, f() otherwise. f runs
// once, in the first test(), wait() or get() that finds the source complete; its result (if any)
// is the value of this completion. When f returns a completion itself (an event, a value_event,
// a composed one: the next step of a chain of operations), the result is flattened: this
// completion then completes when that one does, and its value is that one's value (not an event
// of an event). An exception from f propagates from that call, and the completion stays failed:
// f is not run again, test() is true (it is complete), and every later wait(), get() or value()
// rethrows the same exception (kept as a std::exception_ptr, never moved out, so that a second
// get() cannot read a result that was never made). Move-only when Src or F is.
template <class Src, class F> class [[nodiscard]] then_event {
    static_assert(completion<Src>, "ushmem: then() needs an event, value_event or composed completion");
    using src_value = detail::value_t<Src>;
    static auto call(F &f, const Src &s) {
        if constexpr (std::is_void_v<src_value>) return f();
        else return f(s.value());
    }
    using result_type = decltype(call(std::declval<F &>(), std::declval<const Src &>()));
    // f returned a completion: wait for it too, and take its value.
    static constexpr bool flat = completion<result_type>;
    template <class R, bool Flat> struct value_of_result { using type = R; };
    template <class R> struct value_of_result<R, true> { using type = detail::value_t<R>; };

public:
    using value_type = typename value_of_result<result_type, flat>::type;

private:
    using stored = std::conditional_t<flat || std::is_void_v<result_type>, char, result_type>;

public:
    then_event(Src src, F f) : src_(std::move(src)), f_(std::move(f)) {}

    bool test() const {
        if (!ran_) {
            if (!src_.test()) return false;
            run();
        }
        if constexpr (flat) {
            if (error_) return true;
            return inner_->test();
        } else {
            return true;
        }
    }
    void wait() const {
        if (!ran_) {
            src_.wait();
            run();
        } else {
            rethrow_failure();
        }
        if constexpr (flat) inner_->wait();
    }
    // Bounded: the source and (flattened) f's completion share the limit.
    void wait(wait_limit limit, const char *routine = "then::wait") const {
        const auto start = detail::clock::now();
        if (!ran_) {
            src_.wait(limit, routine);
            run();
        } else {
            rethrow_failure();
        }
        if constexpr (flat) {
            if (!limit.bounded()) return inner_->wait();
            const auto used = detail::clock::now() - start;
            inner_->wait(wait_limit(std::chrono::duration_cast<std::chrono::nanoseconds>(
                             used >= limit.duration() ? std::chrono::nanoseconds(0) : limit.duration() - used)),
                         routine);
        }
    }
    // The continuation's result (waits first).
    value_type get() const
        requires(!std::is_void_v<value_type>)
    {
        wait();
        return value();
    }
    value_type get(wait_limit limit, const char *routine = "then::get") const
        requires(!std::is_void_v<value_type>)
    {
        wait(limit, routine);
        return value();
    }
    // The result once complete; rethrows f's exception when it failed (the composed completions and
    // co_await read it through here, so a failure reaches them too).
    decltype(auto) value() const
        requires(!std::is_void_v<value_type>)
    {
        rethrow_failure();
        if constexpr (flat) return inner_->value();
        else return static_cast<const stored &>(*result_);
    }
    // Chains: e.then(f).then(g).
    template <class G> then_event<then_event, std::decay_t<G>> then(G &&g) && {
        return {std::move(*this), std::forward<G>(g)};
    }

private:
    void run() const {
        ran_ = true;
        try {
            if constexpr (flat) inner_.emplace(call(f_, src_));
            else if constexpr (std::is_void_v<result_type>) call(f_, src_);
            else result_.emplace(call(f_, src_));
        } catch (...) {
            error_ = std::current_exception();
            throw;
        }
    }
    void rethrow_failure() const {
        if (error_) [[unlikely]]
            std::rethrow_exception(error_);
    }
    using inner_type = std::conditional_t<flat, result_type, char>;
    Src src_;
    mutable F f_;
    mutable bool ran_ = false;
    mutable std::optional<stored> result_;
    mutable std::optional<inner_type> inner_;  // f's completion, when flattened
    mutable std::exception_ptr error_;         // f's exception: the completion failed
};

template <completion Src, class F> inline auto then(Src &&src, F &&f) {
    return then_event<std::remove_cvref_t<Src>, std::decay_t<F>>(std::forward<Src>(src), std::forward<F>(f));
}

// ---- when_all ------------------------------------------------------------------------------

// The completion of every one of Cs (held by value: events are copied, value_events moved in).
// Its value is a std::tuple of the values of those that have one, in order (void when none has).
// A bounded wait shares one deadline among them and lists every incomplete PE of all of them.
template <completion... Cs> class [[nodiscard]] all_of {
    template <class C> static auto values_of(const C &c) {
        if constexpr (std::is_void_v<detail::value_t<C>>) return std::tuple<>();
        else return std::tuple<detail::value_t<C>>(c.value());
    }
    using tuple_type = decltype(std::tuple_cat(values_of(std::declval<const Cs &>())...));

public:
    using value_type = std::conditional_t<std::tuple_size_v<tuple_type> == 0, void, tuple_type>;
    explicit all_of(Cs... cs) : parts_(std::move(cs)...) {}

    bool test() const {
        if (done_) return true;
        bool all = true;
        std::apply([&](const auto &...c) { ((all = c.test() && all), ...); }, parts_);
        return done_ = all;
    }
    [[gnu::always_inline]] void wait() const {  // (inlined like event::wait: C++ ~ C, bench/cxx_overhead)
        if (done_) return;
        if constexpr ((std::is_same_v<Cs, event> && ...)) {
            // Plain events on one context, each to one PE: one per-PE quiet of their PEs (what a
            // C program would call), not one quiet per event.
            const shmem_ctx_t ctx = std::get<0>(parts_).context();
            int pes[sizeof...(Cs)];
            const bool simple = gather(pes, ctx, std::index_sequence_for<Cs...>());
            std::size_t n = 0;  // distinct PEs, in pes[0, n) (a plain loop: std::find cost 3 ns here)
            if (simple)
                for (std::size_t i = 0; i < sizeof...(Cs); ++i) {
                    std::size_t j = 0;
                    while (j < n && pes[j] != pes[i]) ++j;
                    if (j == n) pes[n++] = pes[i];
                }
            if (!simple) std::apply([](const auto &...c) { (c.wait(), ...); }, parts_);
            else if (ctx == SHMEM_CTX_DEFAULT) shmem_pe_quiet(pes, n);
            else shmem_ctx_pe_quiet(ctx, pes, n);
        } else {
            std::apply([](const auto &...c) { (c.wait(), ...); }, parts_);
        }
        done_ = true;
    }
    void wait(wait_limit limit, const char *routine = "when_all::wait") const {
        if (done_) return;
        detail::wait_all(limit, routine, [&](auto f) { std::apply([&](const auto &...c) { (f(c), ...); }, parts_); });
        done_ = true;
    }
    value_type value() const
        requires(!std::is_void_v<value_type>)
    {
        return std::apply([](const auto &...c) { return std::tuple_cat(values_of(c)...); }, parts_);
    }
    value_type get() const
        requires(!std::is_void_v<value_type>)
    {
        wait();
        return value();
    }
    value_type get(wait_limit limit, const char *routine = "when_all::get") const
        requires(!std::is_void_v<value_type>)
    {
        wait(limit, routine);
        return value();
    }
    template <class G> then_event<all_of, std::decay_t<G>> then(G &&g) && {
        return {std::move(*this), std::forward<G>(g)};
    }

private:
    // Each part's PE into pes[], when every part is an event to one PE on `ctx`.
    template <std::size_t... I>
    bool gather(int *pes, shmem_ctx_t ctx, std::index_sequence<I...>) const {
        return ((std::get<I>(parts_).context() == ctx && (pes[I] = std::get<I>(parts_).pe()) >= 0) && ...);
    }
    std::tuple<Cs...> parts_;
    mutable bool done_ = false;
};

// The completion of every element of a vector of completions (moved in). Its value is a
// std::vector of the elements' values (void when they have none).
template <completion C> class [[nodiscard]] all_of_vector {
    using elem_value = detail::value_t<C>;

public:
    using value_type = std::conditional_t<std::is_void_v<elem_value>, void, std::vector<elem_value>>;
    explicit all_of_vector(std::vector<C> v) : parts_(std::move(v)) {}

    std::size_t size() const noexcept { return parts_.size(); }
    // Tests the elements not yet known complete, in order.
    bool test() const {
        while (next_ < parts_.size() && parts_[next_].test()) ++next_;
        return next_ == parts_.size();
    }
    void wait() const {
        for (; next_ < parts_.size(); ++next_) parts_[next_].wait();
    }
    void wait(wait_limit limit, const char *routine = "when_all::wait") const {
        detail::wait_all(limit, routine, [&](auto f) {
            for (std::size_t i = next_; i < parts_.size(); ++i) f(parts_[i]);
        });
        next_ = parts_.size();
    }
    value_type value() const
        requires(!std::is_void_v<elem_value>)
    {
        value_type out;
        out.reserve(parts_.size());
        for (const C &c : parts_) out.push_back(c.value());
        return out;
    }
    value_type get() const
        requires(!std::is_void_v<elem_value>)
    {
        wait();
        return value();
    }
    value_type get(wait_limit limit, const char *routine = "when_all::get") const
        requires(!std::is_void_v<elem_value>)
    {
        wait(limit, routine);
        return value();
    }
    // The elements (e.g. to read one value_event once the whole is complete).
    const std::vector<C> &parts() const noexcept { return parts_; }
    template <class G> then_event<all_of_vector, std::decay_t<G>> then(G &&g) && {
        return {std::move(*this), std::forward<G>(g)};
    }

private:
    std::vector<C> parts_;
    mutable std::size_t next_ = 0;  // parts_[0, next_) known complete
};

template <completion... Cs> inline all_of<std::remove_cvref_t<Cs>...> when_all(Cs &&...cs) {
    return all_of<std::remove_cvref_t<Cs>...>(std::forward<Cs>(cs)...);
}
// Over a range of completions (a std::vector, std::array, std::span, ...): its elements are
// copied in (events), or moved in when the range is an rvalue (required for value_events: pass
// std::move(vector)); an rvalue std::vector is taken whole.
template <class R>
    requires(std::ranges::input_range<R> && completion<std::ranges::range_value_t<R>> &&
             !completion<std::remove_cvref_t<R>>)
inline auto when_all(R &&range) {
    using C = std::ranges::range_value_t<R>;
    if constexpr (std::is_same_v<std::remove_cvref_t<R>, std::vector<C>> && !std::is_lvalue_reference_v<R>) {
        return all_of_vector<C>(std::move(range));
    } else {
        std::vector<C> v;
        if constexpr (std::ranges::sized_range<R>) v.reserve(std::ranges::size(range));
        for (auto &&c : range) {
            if constexpr (std::is_lvalue_reference_v<R>) v.push_back(c);
            else v.push_back(std::move(c));
        }
        return all_of_vector<C>(std::move(v));
    }
}

// event::then and value_event::then (declared with the classes).
template <class F> inline then_event<event, std::decay_t<F>> event::then(F &&f) const {
    return {*this, std::forward<F>(f)};
}
template <class T>
template <class F>
inline then_event<value_event<T>, std::decay_t<F>> value_event<T>::then(F &&f) && {
    return {std::move(*this), std::forward<F>(f)};
}

} // namespace ushmem
