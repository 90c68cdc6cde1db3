// ushmem C++ API: remote procedure calls. rpc(pe, f, args...) runs f(args...) on PE `pe` and
// returns an rpc_event<R> for its result (R: f's return type); rpc_ff(pe, f, args...) runs it with
// no reply. f is a lambda without captures, ushmem::rpc_fn<&function>, or the address of a
// function named once as rpc_fn<&function> anywhere in the program. The target runs it at its next
// progress point (docs/cpp.md, "Remote procedure calls"), built on shmemx_rpc_* (include/shmemx.h).
#pragma once

#include <ushmem/compose.hpp>

#include <shmemx.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace ushmem {

// A call failed on its target: the function threw (remote_what() is its what()), its arguments
// did not decode, the target has no such function (another binary), or the target finalized.
// pe(): the target. code() is errc::remote_call.
class rpc_error : public error {
public:
    enum class reason { threw, bad_arguments, unknown_function, target_gone };
    rpc_error(int pe, reason r, const std::string &remote_what)
        : error(errc::remote_call, "ushmem: rpc to PE " + std::to_string(pe) + " (from PE " +
                                       std::to_string(shmem_my_pe()) + "): " + text(r) + remote_what),
          pe_(pe), reason_(r), remote_(remote_what) {}
    int pe() const noexcept { return pe_; }
    reason why() const noexcept { return reason_; }
    // The target's own words: the callee's what(), or why it refused the call.
    const char *remote_what() const noexcept { return remote_.what(); }

private:
    static const char *text(reason r) {
        switch (r) {
        case reason::threw: return "the function threw: ";
        case reason::bad_arguments: return "its arguments did not decode there: ";
        case reason::unknown_function: return "";
        case reason::target_gone: return "";
        }
        return "";
    }
    int pe_;
    reason reason_;
    std::runtime_error remote_;  // (reference-counted: nothrow copy)
};

// Names a function for rpc: ushmem::rpc_fn<&f>. Using it anywhere also lets rpc take &f itself.
template <auto F> struct rpc_function {};
template <auto F> inline constexpr rpc_function<F> rpc_fn{};

namespace detail::rpc {

// ---- the bytes of arguments and results -----------------------------------------------------
// Little more than memcpy: every PE runs the same binary, so a trivially copyable type has the
// same layout at both ends. Sizes travel as 64-bit counts; the reader checks every length against
// what is left, so that malformed bytes are an error reply, never a read past the message.
struct writer {
    std::vector<char> &buf;
    void put(const void *p, std::size_t n) {
        if (n) buf.insert(buf.end(), static_cast<const char *>(p), static_cast<const char *>(p) + n);
    }
};
struct reader {
    const char *p;
    std::size_t n;
    bool get(void *out, std::size_t k) {
        if (k > n) return false;
        if (k) std::memcpy(out, p, k);
        p += k;
        n -= k;
        return true;
    }
    bool count(std::size_t elem, std::size_t &k) {
        std::uint64_t c;
        if (!get(&c, sizeof c) || (elem && c > n / elem)) return false;
        k = std::size_t(c);
        return true;
    }
};

template <class T> struct span_of : std::false_type {};
template <class T> struct span_of<std::span<const T>> : std::true_type { using elem = T; };
template <class T> struct vector_of : std::false_type {};
template <class T> struct vector_of<std::vector<T>> : std::true_type { using elem = T; };
template <class T> inline constexpr bool is_text = std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>;
// Plain data: copied as bytes. Not pointers (an address means nothing on another PE), not views
// (span and string_view are trivially copyable, but what they view is the point).
template <class T>
inline constexpr bool plain = std::is_trivially_copyable_v<T> && !std::is_pointer_v<T> &&
                              !std::is_member_pointer_v<T> && !span_of<T>::value && !is_text<T> &&
                              !std::is_same_v<T, std::nullptr_t>;
template <class T> constexpr bool elem_ok() {
    if constexpr (span_of<T>::value) return plain<std::remove_cv_t<typename span_of<T>::elem>>;
    else if constexpr (vector_of<T>::value) return plain<typename vector_of<T>::elem>;
    else return false;
}
template <class T> inline constexpr bool arg_ok = plain<T> || is_text<T> || elem_ok<T>();
// A result is sent back by value: no views (they would view the callee's memory).
template <class T>
inline constexpr bool result_ok = std::is_void_v<T> || plain<T> || std::is_same_v<T, std::string> ||
                                  (vector_of<T>::value && elem_ok<T>());

template <class D, class A> void encode(writer &w, const A &a) {
    if constexpr (is_text<D>) {
        const std::string_view s(a);
        const std::uint64_t k = s.size();
        w.put(&k, sizeof k);
        w.put(s.data(), s.size());
    } else if constexpr (span_of<D>::value || vector_of<D>::value) {
        using E = std::remove_cv_t<typename std::conditional_t<span_of<D>::value, span_of<D>, vector_of<D>>::elem>;
        const std::span<const E> s(a);
        const std::uint64_t k = s.size();
        w.put(&k, sizeof k);
        w.put(s.data(), s.size_bytes());
    } else {
        const D v(a);  // (the parameter's type: an int argument for a double parameter converts here)
        w.put(&v, sizeof v);
    }
}

// What a decoded argument lives in during the call, and what is passed to the function.
template <class D> struct holder {
    alignas(D) unsigned char raw[sizeof(D)];
    bool decode(reader &r) { return r.get(raw, sizeof raw); }
    D &&pass() { return std::move(*std::launder(reinterpret_cast<D *>(raw))); }  // (implicit lifetime)
};
template <class D>
    requires(is_text<D>)
struct holder<D> {
    std::string s;
    bool decode(reader &r) {
        std::size_t k;
        if (!r.count(1, k)) return false;
        s.resize(k);
        return r.get(s.data(), k);
    }
    auto pass() {
        if constexpr (std::is_same_v<D, std::string>) return std::move(s);
        else return std::string_view(s);
    }
};
// A span argument is received into a vector of this call (the message's bytes are not aligned for T).
template <class D>
    requires(span_of<D>::value || vector_of<D>::value)
struct holder<D> {
    using E = std::remove_cv_t<typename std::conditional_t<span_of<D>::value, span_of<D>, vector_of<D>>::elem>;
    std::vector<E> v;
    bool decode(reader &r) {
        std::size_t k;
        if (!r.count(sizeof(E), k)) return false;
        v.resize(k);
        return r.get(v.data(), k * sizeof(E));
    }
    auto pass() {
        if constexpr (span_of<D>::value) return std::span<const E>(v);
        else return std::move(v);
    }
};

// ---- what a function looks like --------------------------------------------------------------
template <class Fn> struct fn_traits;
template <class R, class... P> struct fn_traits<R (*)(P...)> {
    using result = R;
    using params = std::tuple<P...>;
};
template <class R, class... P> struct fn_traits<R (*)(P...) noexcept> : fn_traits<R (*)(P...)> {};
template <class P>
inline constexpr bool param_ok = !(std::is_lvalue_reference_v<P> && !std::is_const_v<std::remove_reference_t<P>>) &&
                                 arg_ok<std::remove_cvref_t<P>>;

template <class Fn> consteval std::uint64_t signature_of() {
    // The types as the compiler spells them: equal on every PE of one build.
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const char *c = __PRETTY_FUNCTION__; *c; ++c) h = (h ^ std::uint64_t(static_cast<unsigned char>(*c))) * 0x100000001b3ull;
    return h;
}

// A key names one function at compile time: `fn` calls it, `key()` is what names it at run time.
template <class L> struct lambda_key {
    static constexpr auto fn = +L{};
    static const void *key() noexcept { return nullptr; }
};
template <auto F> struct fn_key {
    static constexpr auto fn = F;
    static const void *key() noexcept { return reinterpret_cast<const void *>(F); }
};

template <class Key> struct entry {
    using fn_t = std::remove_const_t<decltype(Key::fn)>;
    using traits = fn_traits<fn_t>;
    using R = std::remove_cvref_t<typename traits::result>;

    template <std::size_t... I> static int call(reader &r, std::vector<char> &out, std::index_sequence<I...>) {
        std::tuple<holder<std::remove_cvref_t<std::tuple_element_t<I, typename traits::params>>>...> hs;
        if (!(std::get<I>(hs).decode(r) && ...) || r.n != 0) return SHMEMX_RPC_BAD_ARGS;
        writer w{out};
        if constexpr (std::is_void_v<R>) Key::fn(std::get<I>(hs).pass()...);
        else encode<R>(w, Key::fn(std::get<I>(hs).pass()...));
        return SHMEMX_RPC_OK;
    }
    // The target's side (shmemx_rpc_trampoline): never throws; a failure is the reply's text.
    static int trampoline(const void *args, std::size_t n, void **reply, std::size_t *reply_n) noexcept {
        std::vector<char> out;
        int rc;
        try {
            reader r{static_cast<const char *>(args), n};
            rc = call(r, out, std::make_index_sequence<std::tuple_size_v<typename traits::params>>{});
            if (rc != SHMEMX_RPC_OK) {
                static constexpr char bad[] = "the argument bytes do not match the function's parameters";
                out.assign(bad, bad + sizeof bad - 1);
            }
        } catch (const std::exception &e) {
            rc = SHMEMX_RPC_THREW;
            const std::string_view s(e.what());
            out.assign(s.begin(), s.end());
        } catch (...) {
            rc = SHMEMX_RPC_THREW;
            static constexpr char other[] = "an exception not derived from std::exception";
            out.assign(other, other + sizeof other - 1);
        }
        *reply = std::malloc(out.size() ? out.size() : 1);
        if (!*reply) return SHMEMX_RPC_BAD_ARGS;
        if (!out.empty()) std::memcpy(*reply, out.data(), out.size());
        *reply_n = out.size();
        return rc;
    }
    static const char *name() noexcept { return __PRETTY_FUNCTION__; }
    // Registered during static initialization, on every PE alike (the same binary).
    static inline const bool registered =
        shmemx_rpc_register(&trampoline, signature_of<fn_t>(), name(), Key::key()) == 0;
    static std::uint32_t id() {
        (void)registered;
        static const std::uint32_t i = shmemx_rpc_id(&trampoline);  // (the table is sorted at init)
        return i;
    }
};

template <class F> struct key_of;  // lambdas and rpc_fn (below); function pointers: by lookup
template <auto F> struct key_of<rpc_function<F>> {
    using type = fn_key<F>;
};
template <class L>
    requires(std::is_class_v<L>)
struct key_of<L> {
    static_assert(std::is_empty_v<L>, "ushmem::rpc: the function must not capture anything (its captures are "
                                      "this PE's state, which the target does not have): pass what it needs as "
                                      "arguments");
    static_assert(requires { +L{}; }, "ushmem::rpc: pass a non-generic lambda without captures (explicit parameter "
                                      "types), ushmem::rpc_fn<&function>, or a function registered with rpc_fn");
    using type = lambda_key<L>;
};

template <class Fn, class... A> void check_call() {
    using traits = fn_traits<Fn>;
    using P = typename traits::params;
    static_assert(std::tuple_size_v<P> == sizeof...(A), "ushmem::rpc: the number of arguments differs from the "
                                                       "function's parameters");
    static_assert([]<std::size_t... I>(std::index_sequence<I...>) {
        return (param_ok<std::tuple_element_t<I, P>> && ...);
    }(std::make_index_sequence<std::tuple_size_v<P>>{}),
                  "ushmem::rpc: a parameter type cannot travel: use trivially copyable types (no pointers), "
                  "std::span<const T> or std::vector<T> of those, std::string or std::string_view (by value or "
                  "const reference)");
    static_assert(result_ok<std::remove_cvref_t<typename traits::result>>,
                  "ushmem::rpc: the result type cannot travel back: return void, a trivially copyable type, "
                  "std::string or std::vector<T> (not a view of the callee's memory)");
}

// The argument bytes, in a per-thread buffer reused from call to call.
template <class Fn, class... A> std::vector<char> &pack(A &&...a) {
    thread_local std::vector<char> buf;
    buf.clear();
    writer w{buf};
    using P = typename fn_traits<Fn>::params;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (encode<std::remove_cvref_t<std::tuple_element_t<I, P>>>(w, a), ...);
    }(std::index_sequence_for<A...>{});
    return buf;
}

// The id to send and the function's type, for each way of naming a function.
template <class F> struct resolved {
    using key = typename key_of<std::remove_cvref_t<F>>::type;
    using fn_t = typename entry<key>::fn_t;
    static std::uint32_t id(const F &) { return entry<key>::id(); }
};
template <class R, class... P> struct resolved<R (*)(P...)> {
    using fn_t = R (*)(P...);
    static std::uint32_t id(fn_t f) {
        // Registered under its address by an rpc_fn<&f> somewhere in the program (the types
        // are checked at the target against that entry's).
        const std::uint32_t i = shmemx_rpc_find(reinterpret_cast<const void *>(f));
        if (i == UINT32_MAX) [[unlikely]]
            throw_invalid("rpc", "this function is not registered: name it ushmem::rpc_fn<&function> (in "
                                 "this call or anywhere in the program), or pass a lambda");
        return i;
    }
};
template <class R, class... P> struct resolved<R (*)(P...) noexcept> : resolved<R (*)(P...)> {
    using fn_t = R (*)(P...) noexcept;
};

template <class R> struct value_type_base { using value_type = R; };
template <> struct value_type_base<void> {};

} // namespace detail::rpc

// The reply to rpc(): test(), wait(), get() as value_event's (get() returns f's result; for void,
// rpc_event<void> has no value). A failure at the target is rethrown by wait() and get() as an
// rpc_error. Move-only; destroyed before its reply arrived, the reply is dropped when it comes.
// Composes with then() and when_all() (compose.hpp).
template <class R> class [[nodiscard]] rpc_event : public detail::rpc::value_type_base<R> {
    using stored = std::conditional_t<std::is_void_v<R>, char, R>;

public:
    rpc_event(int pe, std::uint64_t request) noexcept : pe_(pe), request_(request) {}
    rpc_event(rpc_event &&o) noexcept
        : pe_(o.pe_), request_(std::exchange(o.request_, 0)), done_(o.done_), value_(std::move(o.value_)),
          error_(std::move(o.error_)) {}
    rpc_event &operator=(rpc_event &&o) noexcept {
        if (this != &o) {
            release();
            pe_ = o.pe_;
            request_ = std::exchange(o.request_, 0);
            done_ = o.done_;
            value_ = std::move(o.value_);
            error_ = std::move(o.error_);
        }
        return *this;
    }
    ~rpc_event() { release(); }

    int pe() const noexcept { return pe_; }
    // Progresses (this PE's own queued calls run) and tells whether the reply is in.
    bool test() const {
        if (done_) return true;
        if (request_ == 0) [[unlikely]]
            detail::throw_invalid("rpc_event::test", "moved-from event (it owns no call)");
        void *reply = nullptr;
        std::size_t n = 0;
        int status = 0;
        if (!shmemx_rpc_test(request_, &reply, &n, &status)) return false;
        done_ = true;
        request_ = 0;
        try {
            settle(static_cast<const char *>(reply), n, status);
        } catch (...) {
            error_ = std::current_exception();
        }
        shmemx_rpc_free(reply);
        return true;
    }
    void wait() const {
        for (unsigned i = 0; !test(); ++i)
            if ((i & 15) == 15) std::this_thread::yield();
        rethrow();
    }
    // timeout_error naming the target when the reply is not in within `limit`; the call stays
    // outstanding (wait again, or drop the event).
    void wait(wait_limit limit, const char *routine = "rpc_event::wait") const {
        detail::poll_until(detail::clock::now(), limit.duration(), [&] { return test(); },
                           [&](std::chrono::nanoseconds elapsed) {
                               throw timeout_error({{pe_, 1, 0}}, elapsed,
                                                   std::string("ushmem: ") + routine + " on PE " +
                                                       std::to_string(shmem_my_pe()) + ": no reply from the call",
                                                   "the target runs calls at its waits, barriers and "
                                                   "ushmem::progress() (docs/cpp.md, \"Remote procedure calls\")");
                           });
        rethrow();
    }
    R get() const {
        wait();
        if constexpr (!std::is_void_v<R>) return *value_;
    }
    R get(wait_limit limit, const char *routine = "rpc_event::get") const {
        wait(limit, routine);
        if constexpr (!std::is_void_v<R>) return *value_;
    }
    // The result, once known complete (test() true, or after a wait); rethrows a failure.
    const stored &value() const
        requires(!std::is_void_v<R>)
    {
        rethrow();
        return *value_;
    }
    template <class F> then_event<rpc_event, std::decay_t<F>> then(F &&f) && {
        return {std::move(*this), std::forward<F>(f)};
    }

private:
    void settle(const char *p, std::size_t n, int status) const {
        using reason = rpc_error::reason;
        if (status != SHMEMX_RPC_OK) {
            const reason r = status == SHMEMX_RPC_THREW          ? reason::threw
                             : status == SHMEMX_RPC_BAD_ARGS     ? reason::bad_arguments
                             : status == SHMEMX_RPC_TARGET_GONE ? reason::target_gone
                                                                 : reason::unknown_function;
            throw rpc_error(pe_, r, std::string(p ? p : "", n));
        }
        if constexpr (!std::is_void_v<R>) {
            detail::rpc::reader rd{p, n};
            detail::rpc::holder<R> h;
            if (!h.decode(rd) || rd.n != 0)
                throw rpc_error(pe_, reason::bad_arguments, "the result's bytes do not decode");
            value_.emplace(h.pass());
        }
    }
    void rethrow() const {
        if (error_) [[unlikely]]
            std::rethrow_exception(error_);
    }
    void release() noexcept {
        if (request_ == 0 || done_) return;
        int on = 0;
        shmem_query_initialized(&on);
        if (on) shmemx_rpc_cancel(request_);
        request_ = 0;
    }
    int pe_;
    mutable std::uint64_t request_;  // 0: moved from, or its reply is in
    mutable bool done_ = false;
    mutable std::optional<stored> value_;
    mutable std::exception_ptr error_;
};

// Runs f(args...) on PE `pe` (world numbering); the event's get() returns f's result there, or
// rethrows its failure as rpc_error. A PE out of range throws invalid_argument at once.
template <class F, class... A> auto rpc(int pe, F &&f, A &&...args) {
    using res = detail::rpc::resolved<std::remove_cvref_t<F>>;
    using fn_t = typename res::fn_t;
    detail::rpc::check_call<fn_t, A...>();
    using R = std::remove_cvref_t<typename detail::rpc::fn_traits<fn_t>::result>;
    detail::check_pe(pe, "rpc");
    const std::uint32_t id = res::id(f);
    const std::vector<char> &b = detail::rpc::pack<fn_t>(std::forward<A>(args)...);
    std::uint64_t request = 0;
    shmemx_rpc_send(pe, id, b.data(), b.size(), &request);
    return rpc_event<R>(pe, request);
}

// The same with no reply: nothing tells the caller that it ran, and a failure is printed on the
// target (there is no one else to tell).
template <class F, class... A> void rpc_ff(int pe, F &&f, A &&...args) {
    using res = detail::rpc::resolved<std::remove_cvref_t<F>>;
    using fn_t = typename res::fn_t;
    detail::rpc::check_call<fn_t, A...>();
    detail::check_pe(pe, "rpc_ff");
    const std::uint32_t id = res::id(f);
    const std::vector<char> &b = detail::rpc::pack<fn_t>(std::forward<A>(args)...);
    shmemx_rpc_send(pe, id, b.data(), b.size(), nullptr);
}

// Progresses the transport and runs the calls queued for this PE (a loop that computes calls it
// now and then to serve its peers' calls without a progress thread at SHMEM_THREAD_MULTIPLE).
inline void progress() { shmemx_progress(); }

} // namespace ushmem
