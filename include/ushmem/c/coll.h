/* ushmem: OpenSHMEM 1.6 collectives: team-based (sync, broadcast, collect, fcollect, alltoall,
 * alltoalls, reductions, scans) and the deprecated active-set forms, declared from the type
 * tables, with the C11 type-generic interface (or C++ overloads). Included by <shmem.h> after
 * <ushmem/c/rma.h>, whose C11 generic helpers it uses. */
#ifndef USHMEM_C_COLL_H
#define USHMEM_C_COLL_H

#include <stddef.h>
#include <ushmem/c/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Synchronisation ---- */
int shmem_team_sync(shmem_team_t team);
/* Deprecated active-set forms. (In C11 and C++, shmem_sync(team) is the team form, see below.) */
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);

/* ---- Data movement: standard RMA types, and the mem (byte) forms ---- */
#define USHMEM_DECL_COLL_TYPED(T, N, _)                                                            \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,         \
                              int PE_root);                                                       \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);          \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);         \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);         \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,         \
                              ptrdiff_t sst, size_t nelems);
USHMEM_RMA_TYPES(USHMEM_DECL_COLL_TYPED, _)
#undef USHMEM_DECL_COLL_TYPED
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

/* Deprecated active-set forms: BITS = 32 or 64 bit elements. */
#define USHMEM_DECL_COLL_AS(BITS)                                                                   \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,         \
                               int PE_start, int logPE_stride, int PE_size, long *pSync);          \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,          \
                             int logPE_stride, int PE_size, long *pSync);                          \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,         \
                              int logPE_stride, int PE_size, long *pSync);                         \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,         \
                              int logPE_stride, int PE_size, long *pSync);                         \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,         \
                               long *pSync);
USHMEM_DECL_COLL_AS(32)
USHMEM_DECL_COLL_AS(64)
#undef USHMEM_DECL_COLL_AS

/* ---- Reductions and scans. SUFFIX is the routine's name after the TYPENAME. ---- */
#define USHMEM_DECL_REDUCE(T, N, SUFFIX) \
    int shmem_##N##SUFFIX(shmem_team_t team, T *dest, const T *source, size_t nreduce);
USHMEM_REDUCE_BITWISE_TYPES(USHMEM_DECL_REDUCE, _and_reduce)
USHMEM_REDUCE_BITWISE_TYPES(USHMEM_DECL_REDUCE, _or_reduce)
USHMEM_REDUCE_BITWISE_TYPES(USHMEM_DECL_REDUCE, _xor_reduce)
USHMEM_REDUCE_MINMAX_TYPES(USHMEM_DECL_REDUCE, _max_reduce)
USHMEM_REDUCE_MINMAX_TYPES(USHMEM_DECL_REDUCE, _min_reduce)
USHMEM_REDUCE_ARITH_TYPES(USHMEM_DECL_REDUCE, _sum_reduce)
USHMEM_REDUCE_ARITH_TYPES(USHMEM_DECL_REDUCE, _prod_reduce)
USHMEM_REDUCE_ARITH_TYPES(USHMEM_DECL_REDUCE, _sum_inscan)
USHMEM_REDUCE_ARITH_TYPES(USHMEM_DECL_REDUCE, _sum_exscan)
#undef USHMEM_DECL_REDUCE

/* Deprecated active-set reductions. */
#define USHMEM_DECL_TO_ALL(T, N, SUFFIX)                                                             \
    void shmem_##N##SUFFIX(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride,   \
                           int PE_size, T *pWrk, long *pSync);
USHMEM_TO_ALL_BITWISE_TYPES(USHMEM_DECL_TO_ALL, _and_to_all)
USHMEM_TO_ALL_BITWISE_TYPES(USHMEM_DECL_TO_ALL, _or_to_all)
USHMEM_TO_ALL_BITWISE_TYPES(USHMEM_DECL_TO_ALL, _xor_to_all)
USHMEM_TO_ALL_MINMAX_TYPES(USHMEM_DECL_TO_ALL, _max_to_all)
USHMEM_TO_ALL_MINMAX_TYPES(USHMEM_DECL_TO_ALL, _min_to_all)
USHMEM_TO_ALL_ARITH_TYPES(USHMEM_DECL_TO_ALL, _sum_to_all)
USHMEM_TO_ALL_ARITH_TYPES(USHMEM_DECL_TO_ALL, _prod_to_all)
#undef USHMEM_DECL_TO_ALL

#ifdef __cplusplus
} /* extern "C" */

/* C++: overloads on the element type, as the C11 generic interface offers to C. */
inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }
#define USHMEM_CXX_COLL(T, N, _)                                                                     \
    inline int shmem_broadcast(shmem_team_t t, T *d, const T *s, size_t n, int root) {              \
        return shmem_##N##_broadcast(t, d, s, n, root);                                             \
    }                                                                                               \
    inline int shmem_collect(shmem_team_t t, T *d, const T *s, size_t n) {                          \
        return shmem_##N##_collect(t, d, s, n);                                                     \
    }                                                                                               \
    inline int shmem_fcollect(shmem_team_t t, T *d, const T *s, size_t n) {                         \
        return shmem_##N##_fcollect(t, d, s, n);                                                    \
    }                                                                                               \
    inline int shmem_alltoall(shmem_team_t t, T *d, const T *s, size_t n) {                         \
        return shmem_##N##_alltoall(t, d, s, n);                                                    \
    }                                                                                               \
    inline int shmem_alltoalls(shmem_team_t t, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,      \
                               size_t n) {                                                          \
        return shmem_##N##_alltoalls(t, d, s, dst, sst, n);                                         \
    }
USHMEM_RMA_GENERIC_TYPES(USHMEM_CXX_COLL, _)
#undef USHMEM_CXX_COLL
#define USHMEM_CXX_REDUCE(T, N, SUFFIX)                                    \
    inline int shmem##SUFFIX(shmem_team_t t, T *d, const T *s, size_t n) { \
        return shmem_##N##SUFFIX(t, d, s, n);                              \
    }
USHMEM_REDUCE_BITWISE_GENERIC_TYPES(USHMEM_CXX_REDUCE, _and_reduce)
USHMEM_REDUCE_BITWISE_GENERIC_TYPES(USHMEM_CXX_REDUCE, _or_reduce)
USHMEM_REDUCE_BITWISE_GENERIC_TYPES(USHMEM_CXX_REDUCE, _xor_reduce)
USHMEM_REDUCE_MINMAX_GENERIC_TYPES(USHMEM_CXX_REDUCE, _max_reduce)
USHMEM_REDUCE_MINMAX_GENERIC_TYPES(USHMEM_CXX_REDUCE, _min_reduce)
USHMEM_REDUCE_ARITH_GENERIC_TYPES(USHMEM_CXX_REDUCE, _sum_reduce)
USHMEM_REDUCE_ARITH_GENERIC_TYPES(USHMEM_CXX_REDUCE, _prod_reduce)
USHMEM_REDUCE_ARITH_GENERIC_TYPES(USHMEM_CXX_REDUCE, _sum_inscan)
USHMEM_REDUCE_ARITH_GENERIC_TYPES(USHMEM_CXX_REDUCE, _sum_exscan)
#undef USHMEM_CXX_REDUCE

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* C11 generic selection on the type of dest (the second argument). */
#define USHMEM_CGSEL_ENTRY(T, N, SUFFIX) T *: shmem_##N##SUFFIX,
#define USHMEM_COLL_GENERIC(TABLE, SUFFIX, TEAM, DEST, ...)                                      \
    _Generic((DEST), TABLE(USHMEM_CGSEL_ENTRY, SUFFIX) default: ushmem_generic_unsupported)(TEAM, \
                                                                                     DEST,        \
                                                                                     __VA_ARGS__)
#define shmem_broadcast(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_RMA_GENERIC_TYPES, _broadcast, T, D, __VA_ARGS__)
#define shmem_collect(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_RMA_GENERIC_TYPES, _collect, T, D, __VA_ARGS__)
#define shmem_fcollect(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_RMA_GENERIC_TYPES, _fcollect, T, D, __VA_ARGS__)
#define shmem_alltoall(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_RMA_GENERIC_TYPES, _alltoall, T, D, __VA_ARGS__)
#define shmem_alltoalls(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_RMA_GENERIC_TYPES, _alltoalls, T, D, __VA_ARGS__)
#define shmem_and_reduce(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_REDUCE_BITWISE_GENERIC_TYPES, _and_reduce, T, D, __VA_ARGS__)
#define shmem_or_reduce(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_REDUCE_BITWISE_GENERIC_TYPES, _or_reduce, T, D, __VA_ARGS__)
#define shmem_xor_reduce(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_REDUCE_BITWISE_GENERIC_TYPES, _xor_reduce, T, D, __VA_ARGS__)
#define shmem_max_reduce(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_REDUCE_MINMAX_GENERIC_TYPES, _max_reduce, T, D, __VA_ARGS__)
#define shmem_min_reduce(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_REDUCE_MINMAX_GENERIC_TYPES, _min_reduce, T, D, __VA_ARGS__)
#define shmem_sum_reduce(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_REDUCE_ARITH_GENERIC_TYPES, _sum_reduce, T, D, __VA_ARGS__)
#define shmem_prod_reduce(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_REDUCE_ARITH_GENERIC_TYPES, _prod_reduce, T, D, __VA_ARGS__)
#define shmem_sum_inscan(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_REDUCE_ARITH_GENERIC_TYPES, _sum_inscan, T, D, __VA_ARGS__)
#define shmem_sum_exscan(T, D, ...) USHMEM_COLL_GENERIC(USHMEM_REDUCE_ARITH_GENERIC_TYPES, _sum_exscan, T, D, __VA_ARGS__)
/* shmem_sync(team) is the team form, shmem_sync(PE_start, logPE_stride, PE_size, pSync) the
 * deprecated active-set one: chosen by the number of arguments. */
#define USHMEM_SYNC_PICK(_1, _2, _3, _4, NAME, ...) NAME
#define shmem_sync(...) \
    USHMEM_SYNC_PICK(__VA_ARGS__, shmem_sync, ushmem_sync_bad_args, ushmem_sync_bad_args, shmem_team_sync, 0)(__VA_ARGS__)
#endif

#endif /* USHMEM_C_COLL_H */
