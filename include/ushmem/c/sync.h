/* ushmem: OpenSHMEM 1.6 point-to-point synchronization (wait_until, test and their set and vector
 * forms) and distributed locks, with the C11 type-generic interface (or C++ overloads) and the
 * deprecated shmem_wait, shmem_TYPENAME_wait and shmem_wait_until(long *). Included by <shmem.h>
 * after <ushmem/c/amo.h>, whose C11 generic helpers it uses. */
#ifndef USHMEM_C_SYNC_H
#define USHMEM_C_SYNC_H

#include <stddef.h>
#include <ushmem/c/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every point-to-point type, including the deprecated short and unsigned short (for which the
 * set and vector forms are provided as well). */
#define USHMEM_DECL_P2P(T, N, _)                                                                   \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                   \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                          \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,          \
                                    T cmp_value);                                                 \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,        \
                                      T cmp_value);                                               \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                  \
                                       const int *status, int cmp, T cmp_value);                  \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                           const T *cmp_values);                                  \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                             const T *cmp_values);                                \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,           \
                                              const int *status, int cmp, const T *cmp_values);   \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);   \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,              \
                                T cmp_value);                                                     \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,     \
                                 int cmp, T cmp_value);                                           \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,          \
                                    const T *cmp_values);                                         \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,       \
                                       const T *cmp_values);                                      \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                 \
                                        const int *status, int cmp, const T *cmp_values);
USHMEM_P2P_TYPES(USHMEM_DECL_P2P, _)
#undef USHMEM_DECL_P2P

/* Deprecated: wait while *ivar == cmp_value. */
#define USHMEM_DECL_P2P_DEPR_WAIT(T, N, _) void shmem_##N##_wait(T *ivar, T cmp_value);
USHMEM_P2P_DEPR_WAIT_TYPES(USHMEM_DECL_P2P_DEPR_WAIT, _)
#undef USHMEM_DECL_P2P_DEPR_WAIT
void shmem_wait(long *ivar, long cmp_value);
/* Deprecated non-generic form on long; in C11 and C++ the generic shmem_wait_until covers it. */
void shmem_wait_until(long *ivar, int cmp, long cmp_value);

/* Distributed locks. `lock` is a symmetric long, zero on every PE before its first use. */
void shmem_set_lock(long *lock);
int shmem_test_lock(long *lock);
void shmem_clear_lock(long *lock);

#ifdef __cplusplus
} /* extern "C" */

/* The long overload of shmem_wait_until is the extern "C" function above. */
#define USHMEM_CXX_WAIT_UNTIL(T, N, _)                                                             \
    inline void shmem_wait_until(T *ivar, int cmp, T v) { shmem_##N##_wait_until(ivar, cmp, v); }
USHMEM_CXX_WAIT_UNTIL(short, short, _)
USHMEM_CXX_WAIT_UNTIL(unsigned short, ushort, _)
USHMEM_CXX_WAIT_UNTIL(int, int, _)
USHMEM_CXX_WAIT_UNTIL(long long, longlong, _)
USHMEM_CXX_WAIT_UNTIL(unsigned int, uint, _)
USHMEM_CXX_WAIT_UNTIL(unsigned long, ulong, _)
USHMEM_CXX_WAIT_UNTIL(unsigned long long, ulonglong, _)
#undef USHMEM_CXX_WAIT_UNTIL

#define USHMEM_CXX_P2P(T, N, _)                                                                    \
    inline int shmem_test(T *ivar, int cmp, T v) { return shmem_##N##_test(ivar, cmp, v); }        \
    inline void shmem_wait_until_all(T *ivars, size_t n, const int *st, int cmp, T v) {            \
        shmem_##N##_wait_until_all(ivars, n, st, cmp, v);                                          \
    }                                                                                              \
    inline size_t shmem_wait_until_any(T *ivars, size_t n, const int *st, int cmp, T v) {          \
        return shmem_##N##_wait_until_any(ivars, n, st, cmp, v);                                   \
    }                                                                                              \
    inline size_t shmem_wait_until_some(T *ivars, size_t n, size_t *idx, const int *st, int cmp,   \
                                        T v) {                                                     \
        return shmem_##N##_wait_until_some(ivars, n, idx, st, cmp, v);                             \
    }                                                                                              \
    inline void shmem_wait_until_all_vector(T *ivars, size_t n, const int *st, int cmp,            \
                                            const T *vs) {                                         \
        shmem_##N##_wait_until_all_vector(ivars, n, st, cmp, vs);                                  \
    }                                                                                              \
    inline size_t shmem_wait_until_any_vector(T *ivars, size_t n, const int *st, int cmp,          \
                                              const T *vs) {                                       \
        return shmem_##N##_wait_until_any_vector(ivars, n, st, cmp, vs);                           \
    }                                                                                              \
    inline size_t shmem_wait_until_some_vector(T *ivars, size_t n, size_t *idx, const int *st,     \
                                               int cmp, const T *vs) {                             \
        return shmem_##N##_wait_until_some_vector(ivars, n, idx, st, cmp, vs);                     \
    }                                                                                              \
    inline int shmem_test_all(T *ivars, size_t n, const int *st, int cmp, T v) {                   \
        return shmem_##N##_test_all(ivars, n, st, cmp, v);                                         \
    }                                                                                              \
    inline size_t shmem_test_any(T *ivars, size_t n, const int *st, int cmp, T v) {                \
        return shmem_##N##_test_any(ivars, n, st, cmp, v);                                         \
    }                                                                                              \
    inline size_t shmem_test_some(T *ivars, size_t n, size_t *idx, const int *st, int cmp, T v) {  \
        return shmem_##N##_test_some(ivars, n, idx, st, cmp, v);                                   \
    }                                                                                              \
    inline int shmem_test_all_vector(T *ivars, size_t n, const int *st, int cmp, const T *vs) {    \
        return shmem_##N##_test_all_vector(ivars, n, st, cmp, vs);                                 \
    }                                                                                              \
    inline size_t shmem_test_any_vector(T *ivars, size_t n, const int *st, int cmp, const T *vs) { \
        return shmem_##N##_test_any_vector(ivars, n, st, cmp, vs);                                 \
    }                                                                                              \
    inline size_t shmem_test_some_vector(T *ivars, size_t n, size_t *idx, const int *st, int cmp,  \
                                         const T *vs) {                                            \
        return shmem_##N##_test_some_vector(ivars, n, idx, st, cmp, vs);                           \
    }
USHMEM_P2P_GENERIC_TYPES(USHMEM_CXX_P2P, _)
#undef USHMEM_CXX_P2P

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* Selection on the first argument (ivar or ivars); no context forms. */
#define USHMEM_P2P_GENERIC(OP, ...) \
    USHMEM_TGENERIC_NOCTX(USHMEM_P2P_GENERIC_TYPES, USHMEM_GSEL_ENTRY, OP, __VA_ARGS__)
#define shmem_wait_until(...) USHMEM_P2P_GENERIC(wait_until, __VA_ARGS__)
#define shmem_test(...) USHMEM_P2P_GENERIC(test, __VA_ARGS__)
#define shmem_wait_until_all(...) USHMEM_P2P_GENERIC(wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) USHMEM_P2P_GENERIC(wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) USHMEM_P2P_GENERIC(wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) USHMEM_P2P_GENERIC(wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) USHMEM_P2P_GENERIC(wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) USHMEM_P2P_GENERIC(wait_until_some_vector, __VA_ARGS__)
#define shmem_test_all(...) USHMEM_P2P_GENERIC(test_all, __VA_ARGS__)
#define shmem_test_any(...) USHMEM_P2P_GENERIC(test_any, __VA_ARGS__)
#define shmem_test_some(...) USHMEM_P2P_GENERIC(test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) USHMEM_P2P_GENERIC(test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) USHMEM_P2P_GENERIC(test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) USHMEM_P2P_GENERIC(test_some_vector, __VA_ARGS__)
#endif

#endif /* USHMEM_C_SYNC_H */
