// Point-to-point synchronization: wait_until / test and their set and vector forms.
//
// Every load of an ivar is an atomic load with acquire semantics, so that data written before the
// update that satisfies the condition (e.g. the payload of a put-with-signal) is visible after
// the routine returns. Waiting goes through wait_for: it progresses UCX (software-emulated AMOs
// land only when the target progresses), spins briefly, then yields the core, and ends the job
// after USHMEM_WAIT_TIMEOUT seconds with a message naming the call.
#include "core/atomic.hpp"
#include "core/compiler.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"

#include <cinttypes>
#include <cstdio>
#include <string>
#include <type_traits>

namespace ushmem::core {
namespace {

// Same values as SHMEM_CMP_*; core keeps its own names.
enum cmp_op : int { cmp_eq = 0, cmp_ne, cmp_gt, cmp_ge, cmp_lt, cmp_le };

const char *cmp_name(int cmp) {
    static const char *const names[] = {"SHMEM_CMP_EQ", "SHMEM_CMP_NE", "SHMEM_CMP_GT",
                                        "SHMEM_CMP_GE", "SHMEM_CMP_LT", "SHMEM_CMP_LE"};
    return unsigned(cmp) < 6 ? names[cmp] : "?";
}

void check_cmp(const char *routine, int cmp) {
    if (USHMEM_UNLIKELY(unsigned(cmp) > unsigned(cmp_le)))
        fatal(routine, "comparison operator %d is invalid; pass one of SHMEM_CMP_EQ, _NE, _GT, _GE, "
                       "_LT or _LE (0 to 5)", cmp);
}

template <class T> inline bool compare(T a, int cmp, T b) {
    switch (cmp) {
    case cmp_eq: return a == b;
    case cmp_ne: return a != b;
    case cmp_gt: return a > b;
    case cmp_ge: return a >= b;
    case cmp_lt: return a < b;
    default: return a <= b;
    }
}

template <class T> inline T load(const T *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

template <class T> std::string text(T v) {
    char b[32];
    if constexpr (std::is_signed_v<T>) std::snprintf(b, sizeof b, "%lld", static_cast<long long>(v));
    else std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(v));
    return b;
}

// ivars must be symmetric (the specification requires it: remote PEs update them) and aligned.
template <class T> void check_ivars(const char *routine, const char *what, const T *p, std::size_t n) {
    check_running(routine);
    if (n == 0) return;
    if (USHMEM_UNLIKELY(n > SIZE_MAX / sizeof(T)))
        fatal(routine, "nelems %zu is too large (a negative count passed as size_t?)", n);
    seg_id s;
    std::size_t off;
    locate_or_fail(routine, what, p, n * sizeof(T), rt.me, s, off);
    if (USHMEM_UNLIKELY(reinterpret_cast<std::uintptr_t>(p) & (sizeof(T) - 1)))
        fail_misaligned(routine, what, p, sizeof(T), rt.me);
}

void check_array(const char *routine, const char *what, const void *p, std::size_t n) {
    if (USHMEM_UNLIKELY(n && p == nullptr)) fatal(routine, "%s is a null pointer (nelems %zu)", what, n);
}

// Included in the wait/test set?
inline bool in_set(const int *status, std::size_t i) { return status == nullptr || status[i] == 0; }

template <class T> inline T comparand(T value, const T *values, std::size_t i) {
    return values ? values[i] : value;
}

template <class T>
void describe_set(char *b, std::size_t len, const char *routine, const T *ivars, std::size_t n,
                  int cmp, T value, const T *values) {
    if (values)
        std::snprintf(b, len, "%s(ivars=%p, nelems=%zu, %s, cmp_values=%p)", routine,
                      static_cast<const void *>(ivars), n, cmp_name(cmp), static_cast<const void *>(values));
    else
        std::snprintf(b, len, "%s(ivars=%p, nelems=%zu, %s, %s)", routine,
                      static_cast<const void *>(ivars), n, cmp_name(cmp), text(value).c_str());
}

// Rotating start of the any-scans, so that repeated calls eventually return every index that
// satisfies the condition (the specification's fairness requirement).
thread_local std::size_t g_any_start = 0;

template <class T>
std::size_t scan_any(const T *ivars, std::size_t n, const int *status, int cmp, T value,
                     const T *values) {
    std::size_t start = g_any_start % n;
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t i = start + k < n ? start + k : start + k - n;
        if (in_set(status, i) && compare(load(ivars + i), cmp, comparand(value, values, i))) {
            g_any_start = i + 1;
            return i;
        }
    }
    return SIZE_MAX;
}

template <class T>
std::size_t scan_some(const T *ivars, std::size_t n, std::size_t *indices, const int *status,
                      int cmp, T value, const T *values) {
    std::size_t found = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (in_set(status, i) && compare(load(ivars + i), cmp, comparand(value, values, i)))
            indices[found++] = i;
    return found;
}

// First index at or after `from` that is in the set and does not satisfy the condition, or n.
template <class T>
std::size_t first_unsatisfied(const T *ivars, std::size_t from, std::size_t n, const int *status,
                              int cmp, T value, const T *values) {
    for (std::size_t i = from; i < n; ++i)
        if (in_set(status, i) && !compare(load(ivars + i), cmp, comparand(value, values, i))) return i;
    return n;
}

bool set_empty(const int *status, std::size_t n) {
    if (n == 0) return true;
    if (status == nullptr) return false;
    for (std::size_t i = 0; i < n; ++i)
        if (status[i] == 0) return false;
    return true;
}
} // namespace

template <class T> T wait_until_value(const char *routine, T *ivar, int cmp, T value) {
    check_ivars(routine, "ivar", ivar, 1);
    check_cmp(routine, cmp);
    T seen = load(ivar);
    if (compare(seen, cmp, value)) return seen;
    wait_described(
        routine,
        [&] {
            seen = load(ivar);
            return compare(seen, cmp, value);
        },
        [&](char *b, std::size_t n) {
            std::snprintf(b, n, "%s(ivar=%p, %s, %s)", routine, static_cast<void *>(ivar),
                          cmp_name(cmp), text(value).c_str());
        },
        true);
    return seen;
}

template <class T> void wait_until(const char *routine, T *ivar, int cmp, T value) {
    wait_until_value(routine, ivar, cmp, value);
}

template <class T> int test(const char *routine, T *ivar, int cmp, T value) {
    check_ivars(routine, "ivar", ivar, 1);
    check_cmp(routine, cmp);
    if (compare(load(ivar), cmp, value)) return 1;
    settle_thread_packs(routine);
    transport::progress();  // a polling loop of tests must let emulated updates land
    return 0;
}

template <class T>
void wait_until_all(const char *routine, T *ivars, std::size_t n, const int *status, int cmp,
                    T value, const T *values) {
    check_ivars(routine, "ivars", ivars, n);
    check_cmp(routine, cmp);
    // Elements once satisfied are not re-read: each waits in turn (the ivars are expected to
    // stay satisfied, as for the specification's barrier example).
    std::size_t i = first_unsatisfied(ivars, 0, n, status, cmp, value, values);
    if (i == n) return;
    wait_described(
        routine,
        [&] {
            i = first_unsatisfied(ivars, i, n, status, cmp, value, values);
            return i == n;
        },
        [&](char *b, std::size_t len) { describe_set(b, len, routine, ivars, n, cmp, value, values); }, true);
}

template <class T>
std::size_t wait_until_any(const char *routine, T *ivars, std::size_t n, const int *status, int cmp,
                           T value, const T *values) {
    check_ivars(routine, "ivars", ivars, n);
    check_cmp(routine, cmp);
    if (set_empty(status, n)) return SIZE_MAX;
    std::size_t r = scan_any(ivars, n, status, cmp, value, values);
    if (r != SIZE_MAX) return r;
    wait_described(
        routine,
        [&] {
            r = scan_any(ivars, n, status, cmp, value, values);
            return r != SIZE_MAX;
        },
        [&](char *b, std::size_t len) { describe_set(b, len, routine, ivars, n, cmp, value, values); }, true);
    return r;
}

template <class T>
std::size_t wait_until_some(const char *routine, T *ivars, std::size_t n, std::size_t *indices,
                            const int *status, int cmp, T value, const T *values) {
    check_ivars(routine, "ivars", ivars, n);
    check_cmp(routine, cmp);
    if (set_empty(status, n)) return 0;
    check_array(routine, "indices", indices, n);
    std::size_t r = scan_some(ivars, n, indices, status, cmp, value, values);
    if (r) return r;
    wait_described(
        routine,
        [&] {
            r = scan_some(ivars, n, indices, status, cmp, value, values);
            return r != 0;
        },
        [&](char *b, std::size_t len) { describe_set(b, len, routine, ivars, n, cmp, value, values); }, true);
    return r;
}

template <class T>
int test_all(const char *routine, T *ivars, std::size_t n, const int *status, int cmp, T value,
             const T *values) {
    check_ivars(routine, "ivars", ivars, n);
    check_cmp(routine, cmp);
    if (first_unsatisfied(ivars, 0, n, status, cmp, value, values) == n) return 1;
    settle_thread_packs(routine);
    transport::progress();
    return 0;
}

template <class T>
std::size_t test_any(const char *routine, T *ivars, std::size_t n, const int *status, int cmp,
                     T value, const T *values) {
    check_ivars(routine, "ivars", ivars, n);
    check_cmp(routine, cmp);
    if (set_empty(status, n)) return SIZE_MAX;
    std::size_t r = scan_any(ivars, n, status, cmp, value, values);
    if (r == SIZE_MAX) {
        settle_thread_packs(routine);
        transport::progress();
    }
    return r;
}

template <class T>
std::size_t test_some(const char *routine, T *ivars, std::size_t n, std::size_t *indices,
                      const int *status, int cmp, T value, const T *values) {
    check_ivars(routine, "ivars", ivars, n);
    check_cmp(routine, cmp);
    if (set_empty(status, n)) return 0;
    check_array(routine, "indices", indices, n);
    std::size_t r = scan_some(ivars, n, indices, status, cmp, value, values);
    if (r == 0) {
        settle_thread_packs(routine);
        transport::progress();
    }
    return r;
}

#define USHMEM_P2P_INSTANTIATE(T)                                                                  \
    template void wait_until<T>(const char *, T *, int, T);                                        \
    template T wait_until_value<T>(const char *, T *, int, T);                                     \
    template int test<T>(const char *, T *, int, T);                                               \
    template void wait_until_all<T>(const char *, T *, std::size_t, const int *, int, T, const T *); \
    template std::size_t wait_until_any<T>(const char *, T *, std::size_t, const int *, int, T,    \
                                           const T *);                                            \
    template std::size_t wait_until_some<T>(const char *, T *, std::size_t, std::size_t *,         \
                                            const int *, int, T, const T *);                      \
    template int test_all<T>(const char *, T *, std::size_t, const int *, int, T, const T *);      \
    template std::size_t test_any<T>(const char *, T *, std::size_t, const int *, int, T, const T *); \
    template std::size_t test_some<T>(const char *, T *, std::size_t, std::size_t *, const int *, \
                                      int, T, const T *);
USHMEM_P2P_INSTANTIATE(short)
USHMEM_P2P_INSTANTIATE(unsigned short)
USHMEM_P2P_INSTANTIATE(int)
USHMEM_P2P_INSTANTIATE(unsigned int)
USHMEM_P2P_INSTANTIATE(long)
USHMEM_P2P_INSTANTIATE(unsigned long)
USHMEM_P2P_INSTANTIATE(long long)
USHMEM_P2P_INSTANTIATE(unsigned long long)
#undef USHMEM_P2P_INSTANTIATE

} // namespace ushmem::core
