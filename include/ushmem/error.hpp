// ushmem C++ API: error types. Every error is a ushmem::error (a std::system_error whose code is
// in ushmem::error_category()); what() is exactly the message (routine, PE, reason), without the
// ": <category message>" suffix std::system_error appends. Bad input is detected in the C++
// layer and thrown at the call, before the C layer (which ends the job on bad input) is reached.
#pragma once

#include <chrono>
#include <cstddef>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace ushmem {

enum class errc : int {
    bad_symmetric_alloc = 1,  // the symmetric heap cannot satisfy a request
    invalid_argument = 2,     // size, alignment, non-symmetric address, PE out of range
    timeout = 3,              // a blocking call's deadline passed
    transport = 4,            // the transport or a collective reported a failure
    team_unusable = 5,        // a collective on this team timed out earlier (see team::usable)
    remote_call = 6,          // a remote procedure call failed on its target (rpc_error, rpc.hpp)
};

namespace detail {
class error_category_impl final : public std::error_category {
public:
    const char *name() const noexcept override { return "ushmem"; }
    std::string message(int c) const override {
        switch (errc(c)) {
        case errc::bad_symmetric_alloc: return "symmetric heap exhausted";
        case errc::invalid_argument: return "invalid argument";
        case errc::timeout: return "timed out";
        case errc::transport: return "transport or collective failure";
        case errc::team_unusable: return "team unusable after a timed-out collective";
        case errc::remote_call: return "remote procedure call failed on its target";
        }
        return "unknown ushmem error";
    }
};
} // namespace detail

inline const std::error_category &error_category() noexcept {
    static const detail::error_category_impl cat;
    return cat;
}
inline std::error_code make_error_code(errc e) noexcept { return {int(e), error_category()}; }

class error : public std::system_error {
public:
    error(errc e, const std::string &what) : std::system_error(make_error_code(e), what), msg_(what) {}
    // The message alone: std::system_error's what() would end in ": invalid argument" (the
    // category's text), which repeats what the message says; code() still carries the errc.
    const char *what() const noexcept override { return msg_.what(); }

private:
    // (A std::runtime_error holds its text in a reference-counted string: copying the exception,
    // which a throw may do, cannot throw.)
    std::runtime_error msg_;
};

namespace detail {
// A SHMEM_SYMMETRIC_SIZE value that holds `bytes` more: the next power of two above it, at least
// 1M, with the largest suffix that divides it ("2T" for a 1 TiB request).
inline std::string heap_size_for(std::size_t bytes) {
    std::size_t v = std::size_t(1) << 20;
    while (v <= bytes && v < (std::size_t(1) << 62)) v <<= 1;
    if (v >= (std::size_t(1) << 40)) return std::to_string(v >> 40) + "T";
    if (v >= (std::size_t(1) << 30)) return std::to_string(v >> 30) + "G";
    return std::to_string(v >> 20) + "M";
}
} // namespace detail

// shmem_malloc returned NULL. Raise the heap with SHMEM_SYMMETRIC_SIZE.
class bad_symmetric_alloc : public error {
public:
    // The size asked for, and a SHMEM_SYMMETRIC_SIZE derived from it.
    explicit bad_symmetric_alloc(std::size_t requested)
        : error(errc::bad_symmetric_alloc,
                "ushmem: symmetric allocation of " + std::to_string(requested) +
                    " bytes failed; raise the heap with SHMEM_SYMMETRIC_SIZE (e.g. "
                    "SHMEM_SYMMETRIC_SIZE=" + detail::heap_size_for(requested) + " or more)"),
          requested_(requested) {}
    // The same on PE `pe`, with the library's own account of the failure (shmemx_last_error: the
    // free and largest blocks, or the alignment, and a size derived from the heap and the request).
    bad_symmetric_alloc(std::size_t requested, int pe, const std::string &reason)
        : error(errc::bad_symmetric_alloc,
                "ushmem: symmetric allocation of " + std::to_string(requested) + " bytes failed on PE " +
                    std::to_string(pe) +
                    (reason.empty() ? "; raise the heap with SHMEM_SYMMETRIC_SIZE (e.g. SHMEM_SYMMETRIC_SIZE=" +
                                          detail::heap_size_for(requested) + " or more)"
                                    : ": " + reason)),
          requested_(requested) {}
    std::size_t requested() const noexcept { return requested_; }

private:
    std::size_t requested_;
};

class invalid_argument : public error {
public:
    explicit invalid_argument(const std::string &what) : error(errc::invalid_argument, what) {}
};

// What a timed wait knew, per PE still incomplete when its deadline passed. `issued`: operations
// the waited-on event (or batch) issued to that PE; `completed`: those of them whose completion was
// observed (see docs/cpp.md, "What completed means"). A bounded quiet covers every operation on
// the context, which ushmem does not count: `issued` is then `not_counted`.
struct pe_progress {
    static constexpr std::size_t not_counted = std::numeric_limits<std::size_t>::max();
    int pe;
    std::size_t issued, completed;
};

// A bounded call passed its deadline. pending() lists the PEs whose operations were incomplete
// (waits on events, batches and quiet); it is empty when the call waited for other PEs to arrive
// (collectives, wait_until), and pe() is then this PE. Otherwise pe() is the first pending PE.
class timeout_error : public error {
public:
    timeout_error(int pe, std::chrono::nanoseconds elapsed, const std::string &what)
        : error(errc::timeout, what + " (PE " + std::to_string(pe) + ", after " + ms(elapsed) + ")"),
          pe_(pe), elapsed_(elapsed), description_(what) {}
    // what() is `what`, the time and the PE list, then `remedy`. (An empty `pending` leaves the list
    // out rather than printing "; )".)
    timeout_error(std::vector<pe_progress> pending, std::chrono::nanoseconds elapsed, const std::string &what,
                  const std::string &remedy = {})
        : error(errc::timeout, what + " (after " + ms(elapsed) + (pending.empty() ? "" : "; " + list(pending)) + ")" +
                                   (remedy.empty() ? "" : ". " + remedy)),
          pe_(pending.empty() ? -1 : pending.front().pe), elapsed_(elapsed), pending_(std::move(pending)),
          description_(what) {}
    int pe() const noexcept { return pe_; }
    // What the call waited for, as given to the constructor: what() without the time, the PE list
    // and the advice (co_await within rewraps a completion's timeout with it).
    const char *description() const noexcept { return description_.what(); }
    std::chrono::nanoseconds elapsed() const noexcept { return elapsed_; }
    std::span<const pe_progress> pending() const noexcept { return pending_; }

private:
    static std::string ms(std::chrono::nanoseconds d) {
        return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
    }
    // "PE 3: 2 of 5 operations complete, PE 4: ..."
    static std::string list(const std::vector<pe_progress> &v) {
        std::string s;
        for (const pe_progress &p : v) {
            if (!s.empty()) s += ", ";
            s += "PE " + std::to_string(p.pe) + ": ";
            if (p.issued == pe_progress::not_counted)
                s += "operations incomplete (not counted)";
            else
                s += std::to_string(p.completed) + " of " + std::to_string(p.issued) + " operation" +
                     (p.issued == 1 ? "" : "s") + " complete";
        }
        return s;
    }
    int pe_;
    std::chrono::nanoseconds elapsed_;
    std::vector<pe_progress> pending_;
    std::runtime_error description_;  // (reference-counted: nothrow copy, as msg_)
};

class transport_error : public error {
public:
    explicit transport_error(const std::string &what) : error(errc::transport, what) {}
};

} // namespace ushmem

template <> struct std::is_error_code_enum<ushmem::errc> : std::true_type {};
