// Point-to-point synchronization, generated from USHMEM_P2P_TYPES (the standard AMO types plus the
// deprecated short and unsigned short; the set and vector forms are provided for those two as
// well), and the deprecated shmem_wait / shmem_TYPENAME_wait / shmem_wait_until(long *).
#include "api/api.hpp"
#include "core/atomic.hpp"
#include "core/compiler.hpp"
#include "core/log.hpp"

using namespace ushmem;

// Every wait and test on memory is an rpc_point: remote procedure calls queued for this PE run in
// its progress (transport/am/rpc.hpp).

namespace {
inline void need_values(const char *r, const void *values, std::size_t n) {
    if (USHMEM_UNLIKELY(n && values == nullptr))
        core::fatal(r, "cmp_values is a null pointer (nelems %zu); the vector forms compare each "
                       "ivar with its own value", n);
}
} // namespace

#define DEF_P2P(T, N, _)                                                                            \
    USHMEM_DEF(void, shmem_##N##_wait_until, (T * ivar, int cmp, T cmp_value)) {                    \
        const transport::rpc_point rpcs;                                                            \
        core::wait_until<T>("shmem_" #N "_wait_until", ivar, cmp, cmp_value);                       \
    }                                                                                               \
    USHMEM_DEF(int, shmem_##N##_test, (T * ivar, int cmp, T cmp_value)) {                           \
        const transport::rpc_point rpcs;                                                            \
        return core::test<T>("shmem_" #N "_test", ivar, cmp, cmp_value);                            \
    }                                                                                               \
    USHMEM_DEF(void, shmem_##N##_wait_until_all,                                                    \
               (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value)) {               \
        const transport::rpc_point rpcs;                                                            \
        core::wait_until_all<T>("shmem_" #N "_wait_until_all", ivars, nelems, status, cmp,          \
                                cmp_value, nullptr);                                                \
    }                                                                                               \
    USHMEM_DEF(size_t, shmem_##N##_wait_until_any,                                                  \
               (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value)) {               \
        const transport::rpc_point rpcs;                                                            \
        return core::wait_until_any<T>("shmem_" #N "_wait_until_any", ivars, nelems, status, cmp,   \
                                       cmp_value, nullptr);                                         \
    }                                                                                               \
    USHMEM_DEF(size_t, shmem_##N##_wait_until_some,                                                 \
               (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp,              \
                T cmp_value)) {                                                                     \
        const transport::rpc_point rpcs;                                                            \
        return core::wait_until_some<T>("shmem_" #N "_wait_until_some", ivars, nelems, indices,     \
                                        status, cmp, cmp_value, nullptr);                           \
    }                                                                                               \
    USHMEM_DEF(void, shmem_##N##_wait_until_all_vector,                                             \
               (T * ivars, size_t nelems, const int *status, int cmp, const T *cmp_values)) {       \
        const transport::rpc_point rpcs;                                                            \
        const char *r = "shmem_" #N "_wait_until_all_vector";                                       \
        need_values(r, cmp_values, nelems);                                                         \
        core::wait_until_all<T>(r, ivars, nelems, status, cmp, static_cast<T>(0), cmp_values);                    \
    }                                                                                               \
    USHMEM_DEF(size_t, shmem_##N##_wait_until_any_vector,                                           \
               (T * ivars, size_t nelems, const int *status, int cmp, const T *cmp_values)) {       \
        const transport::rpc_point rpcs;                                                            \
        const char *r = "shmem_" #N "_wait_until_any_vector";                                       \
        need_values(r, cmp_values, nelems);                                                         \
        return core::wait_until_any<T>(r, ivars, nelems, status, cmp, static_cast<T>(0), cmp_values);             \
    }                                                                                               \
    USHMEM_DEF(size_t, shmem_##N##_wait_until_some_vector,                                          \
               (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp,              \
                const T *cmp_values)) {                                                             \
        const transport::rpc_point rpcs;                                                            \
        const char *r = "shmem_" #N "_wait_until_some_vector";                                      \
        need_values(r, cmp_values, nelems);                                                         \
        return core::wait_until_some<T>(r, ivars, nelems, indices, status, cmp, static_cast<T>(0), cmp_values);   \
    }                                                                                               \
    USHMEM_DEF(int, shmem_##N##_test_all,                                                           \
               (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value)) {               \
        const transport::rpc_point rpcs;                                                            \
        return core::test_all<T>("shmem_" #N "_test_all", ivars, nelems, status, cmp, cmp_value,    \
                                 nullptr);                                                          \
    }                                                                                               \
    USHMEM_DEF(size_t, shmem_##N##_test_any,                                                        \
               (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value)) {               \
        const transport::rpc_point rpcs;                                                            \
        return core::test_any<T>("shmem_" #N "_test_any", ivars, nelems, status, cmp, cmp_value,    \
                                 nullptr);                                                          \
    }                                                                                               \
    USHMEM_DEF(size_t, shmem_##N##_test_some,                                                       \
               (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp,              \
                T cmp_value)) {                                                                     \
        const transport::rpc_point rpcs;                                                            \
        return core::test_some<T>("shmem_" #N "_test_some", ivars, nelems, indices, status, cmp,    \
                                  cmp_value, nullptr);                                              \
    }                                                                                               \
    USHMEM_DEF(int, shmem_##N##_test_all_vector,                                                    \
               (T * ivars, size_t nelems, const int *status, int cmp, const T *cmp_values)) {       \
        const transport::rpc_point rpcs;                                                            \
        const char *r = "shmem_" #N "_test_all_vector";                                             \
        need_values(r, cmp_values, nelems);                                                         \
        return core::test_all<T>(r, ivars, nelems, status, cmp, static_cast<T>(0), cmp_values);                  \
    }                                                                                               \
    USHMEM_DEF(size_t, shmem_##N##_test_any_vector,                                                 \
               (T * ivars, size_t nelems, const int *status, int cmp, const T *cmp_values)) {       \
        const transport::rpc_point rpcs;                                                            \
        const char *r = "shmem_" #N "_test_any_vector";                                             \
        need_values(r, cmp_values, nelems);                                                         \
        return core::test_any<T>(r, ivars, nelems, status, cmp, static_cast<T>(0), cmp_values);                  \
    }                                                                                               \
    USHMEM_DEF(size_t, shmem_##N##_test_some_vector,                                                \
               (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp,              \
                const T *cmp_values)) {                                                             \
        const transport::rpc_point rpcs;                                                            \
        const char *r = "shmem_" #N "_test_some_vector";                                            \
        need_values(r, cmp_values, nelems);                                                         \
        return core::test_some<T>(r, ivars, nelems, indices, status, cmp, static_cast<T>(0), cmp_values);         \
    }
USHMEM_P2P_TYPES(DEF_P2P, _)

// Deprecated: shmem_TYPENAME_wait (wait while equal) for short, int, long, long long; shmem_wait
// and the non-generic shmem_wait_until, both on long.
#define DEF_P2P_DEPR_WAIT(T, N, _)                                                    \
    USHMEM_DEF(void, shmem_##N##_wait, (T * ivar, T cmp_value)) {                                   \
        const transport::rpc_point rpcs;                                                            \
        core::wait_until<T>("shmem_" #N "_wait", ivar, SHMEM_CMP_NE, cmp_value);      \
    }
USHMEM_P2P_DEPR_WAIT_TYPES(DEF_P2P_DEPR_WAIT, _)

USHMEM_DEF(void, shmem_wait, (long *ivar, long cmp_value)) {
    const transport::rpc_point rpcs;
    core::wait_until<long>("shmem_wait", ivar, SHMEM_CMP_NE, cmp_value);
}
USHMEM_DEF(void, shmem_wait_until, (long *ivar, int cmp, long cmp_value)) {
    const transport::rpc_point rpcs;
    core::wait_until<long>("shmem_wait_until", ivar, cmp, cmp_value);
}
