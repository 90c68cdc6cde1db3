// ushmem C++ API: error types. Every error is a ushmem::error (a std::system_error whose code is
// in ushmem::error_category()). Bad input is detected in the C++ layer and thrown at the call,
// before the C layer (which ends the job on bad input) is reached.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <system_error>

namespace ushmem {

enum class errc : int {
    bad_symmetric_alloc = 1,  // the symmetric heap cannot satisfy a request
    invalid_argument = 2,     // size, alignment, non-symmetric address, PE out of range
    timeout = 3,              // a blocking call's deadline passed
    transport = 4,            // the transport or a collective reported a failure
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
    error(errc e, const std::string &what) : std::system_error(make_error_code(e), what) {}
};

// shmem_malloc returned NULL. Raise the heap with SHMEM_SYMMETRIC_SIZE.
class bad_symmetric_alloc : public error {
public:
    explicit bad_symmetric_alloc(std::size_t requested)
        : error(errc::bad_symmetric_alloc,
                "ushmem: symmetric allocation of " + std::to_string(requested) +
                    " bytes failed; raise the heap with SHMEM_SYMMETRIC_SIZE (e.g. "
                    "SHMEM_SYMMETRIC_SIZE=1G)"),
          requested_(requested) {}
    std::size_t requested() const noexcept { return requested_; }

private:
    std::size_t requested_;
};

class invalid_argument : public error {
public:
    explicit invalid_argument(const std::string &what) : error(errc::invalid_argument, what) {}
};

class timeout_error : public error {
public:
    timeout_error(int pe, std::chrono::nanoseconds elapsed, const std::string &what)
        : error(errc::timeout,
                what + " (PE " + std::to_string(pe) + ", after " +
                    std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()) +
                    " ms)"),
          pe_(pe), elapsed_(elapsed) {}
    int pe() const noexcept { return pe_; }
    std::chrono::nanoseconds elapsed() const noexcept { return elapsed_; }

private:
    int pe_;
    std::chrono::nanoseconds elapsed_;
};

class transport_error : public error {
public:
    explicit transport_error(const std::string &what) : error(errc::transport, what) {}
};

} // namespace ushmem

template <> struct std::is_error_code_enum<ushmem::errc> : std::true_type {};
