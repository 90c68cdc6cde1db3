// Collective entry points, generated from the type tables in <ushmem/c/types.h>: validate the
// arguments, then hand over to core/team.hpp, whose entry points are core/coll/entry.cpp (bytes,
// or elements with a combine function).
#include "api/api.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/runtime.hpp"

#include <type_traits>

using namespace ushmem;
using ushmem::api::rt;

namespace {

// ---- combine functions: acc[i] = acc[i] OP x[i] -------------------------------------------------
// Integer sums and products wrap (computed unsigned, at least as wide as unsigned int): signed
// overflow is the program's business, not undefined behaviour in the library.
template <class T> struct wide {
    using type = T;
};
template <class T>
    requires std::is_integral_v<T>
struct wide<T> {
    using U = std::make_unsigned_t<T>;
    using type = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
};

template <class T> void op_sum(void *a, const void *x, std::size_t n) {
    T *p = static_cast<T *>(a);
    const T *q = static_cast<const T *>(x);
    using W = typename wide<T>::type;
    for (std::size_t i = 0; i < n; ++i) p[i] = T(W(p[i]) + W(q[i]));
}
template <class T> void op_prod(void *a, const void *x, std::size_t n) {
    T *p = static_cast<T *>(a);
    const T *q = static_cast<const T *>(x);
    using W = typename wide<T>::type;
    for (std::size_t i = 0; i < n; ++i) p[i] = T(W(p[i]) * W(q[i]));
}
template <class T> void op_max(void *a, const void *x, std::size_t n) {
    T *p = static_cast<T *>(a);
    const T *q = static_cast<const T *>(x);
    for (std::size_t i = 0; i < n; ++i) p[i] = q[i] > p[i] ? q[i] : p[i];
}
template <class T> void op_min(void *a, const void *x, std::size_t n) {
    T *p = static_cast<T *>(a);
    const T *q = static_cast<const T *>(x);
    for (std::size_t i = 0; i < n; ++i) p[i] = q[i] < p[i] ? q[i] : p[i];
}
template <class T> void op_and(void *a, const void *x, std::size_t n) {
    T *p = static_cast<T *>(a);
    const T *q = static_cast<const T *>(x);
    for (std::size_t i = 0; i < n; ++i) p[i] = T(p[i] & q[i]);
}
template <class T> void op_or(void *a, const void *x, std::size_t n) {
    T *p = static_cast<T *>(a);
    const T *q = static_cast<const T *>(x);
    for (std::size_t i = 0; i < n; ++i) p[i] = T(p[i] | q[i]);
}
template <class T> void op_xor(void *a, const void *x, std::size_t n) {
    T *p = static_cast<T *>(a);
    const T *q = static_cast<const T *>(x);
    for (std::size_t i = 0; i < n; ++i) p[i] = T(p[i] ^ q[i]);
}

// ---- argument checks -----------------------------------------------------------------------------

void check_sym(const char *r, const char *what, const void *p, std::size_t bytes) {
    // A zero-length collective touches no memory: its buffers may be anything, NULL included
    // (public test suites pass NULL with nelems 0).
    if (bytes == 0) return;
    core::seg_id s;
    std::size_t off;
    core::locate_or_fail(r, what, p, bytes, rt.me, s, off);
}

// Reductions and scans: dest and source the same array, or disjoint.
void check_same_or_disjoint(const char *r, const void *dest, const void *src, std::size_t bytes) {
    auto d = reinterpret_cast<std::uintptr_t>(dest), s = reinterpret_cast<std::uintptr_t>(src);
    if (d != s && d < s + bytes && s < d + bytes)
        core::fatal(r, "dest %p and source %p overlap without being the same array (%zu bytes); they "
                       "must be the same symmetric address or not overlap at all",
                    dest, src, bytes);
}

std::size_t total(const char *r, std::size_t nelems, std::size_t elem, int n) {
    return api::bytes_of(r, api::bytes_of(r, nelems, elem), std::size_t(n));
}

// ---- team forms ----------------------------------------------------------------------------------

int broadcast(const char *r, shmem_team_t team, void *dest, const void *src, std::size_t nelems,
              std::size_t elem, int root) {
    core::stats::timed timing(core::stats::t_coll);
    core::team *t = api::team_of(r, team);
    if (!t) return -1;
    std::size_t bytes = api::bytes_of(r, nelems, elem);
    check_sym(r, "dest", dest, bytes);
    check_sym(r, "source", src, bytes);
    core::broadcast(r, *t, dest, src, bytes, root);
    return 0;
}

int fcollect(const char *r, shmem_team_t team, void *dest, const void *src, std::size_t nelems,
             std::size_t elem) {
    core::stats::timed timing(core::stats::t_coll);
    core::team *t = api::team_of(r, team);
    if (!t) return -1;
    std::size_t bytes = api::bytes_of(r, nelems, elem);
    check_sym(r, "dest", dest, total(r, nelems, elem, t->n));
    check_sym(r, "source", src, bytes);
    core::fcollect(r, *t, dest, src, bytes);
    return 0;
}

int collect(const char *r, shmem_team_t team, void *dest, const void *src, std::size_t nelems,
            std::size_t elem) {
    core::stats::timed timing(core::stats::t_coll);
    core::team *t = api::team_of(r, team);
    if (!t) return -1;
    std::size_t bytes = api::bytes_of(r, nelems, elem);
    check_sym(r, "dest", dest, bytes);
    check_sym(r, "source", src, bytes);
    core::collect(r, *t, dest, src, bytes);
    return 0;
}

int alltoall(const char *r, shmem_team_t team, void *dest, const void *src, std::size_t nelems,
             std::size_t elem) {
    core::stats::timed timing(core::stats::t_coll);
    core::team *t = api::team_of(r, team);
    if (!t) return -1;
    std::size_t all = total(r, nelems, elem, t->n);
    check_sym(r, "dest", dest, all);
    check_sym(r, "source", src, all);
    core::alltoall(r, *t, dest, src, nelems * elem);
    return 0;
}

int alltoalls(const char *r, shmem_team_t team, void *dest, const void *src, std::ptrdiff_t dst,
              std::ptrdiff_t sst, std::size_t nelems, std::size_t elem) {
    core::stats::timed timing(core::stats::t_coll);
    core::team *t = api::team_of(r, team);
    if (!t) return -1;
    if (dst < 1 || sst < 1) core::fatal(r, "strides dst %td and sst %td must be >= 1", dst, sst);
    std::size_t count = api::bytes_of(r, nelems, std::size_t(t->n));
    if (count) {
        check_sym(r, "dest", dest, total(r, (count - 1), std::size_t(dst), 1) * elem + elem);
        check_sym(r, "source", src, total(r, (count - 1), std::size_t(sst), 1) * elem + elem);
    }
    core::alltoalls(r, *t, dest, src, dst, sst, nelems, elem);
    return 0;
}

int reduce(const char *r, shmem_team_t team, void *dest, const void *src, std::size_t nelems,
           core::reduce_op op) {
    core::stats::timed timing(core::stats::t_coll);
    core::team *t = api::team_of(r, team);
    if (!t) return -1;
    std::size_t bytes = api::bytes_of(r, nelems, op.elem);
    check_sym(r, "dest", dest, bytes);
    check_sym(r, "source", src, bytes);
    check_same_or_disjoint(r, dest, src, bytes);
    core::reduce(r, *t, dest, src, nelems, op);
    return 0;
}

int scan(const char *r, shmem_team_t team, void *dest, const void *src, std::size_t nelems,
         core::reduce_op op, bool inclusive) {
    core::stats::timed timing(core::stats::t_coll);
    core::team *t = api::team_of(r, team);
    if (!t) return -1;
    std::size_t bytes = api::bytes_of(r, nelems, op.elem);
    check_sym(r, "dest", dest, bytes);
    check_sym(r, "source", src, bytes);
    check_same_or_disjoint(r, dest, src, bytes);
    core::scan(r, *t, dest, src, nelems, op, inclusive);
    return 0;
}

// ---- active-set forms ----------------------------------------------------------------------------

core::active_set as_of(int start, int log_stride, int size) { return {start, log_stride, size}; }

void as_reduce(const char *r, void *dest, const void *src, int nreduce, int start, int log_stride,
               int size, void *pwrk, long *psync, core::reduce_op op) {
    core::check_running(r);
    core::stats::timed timing(core::stats::t_coll);
    if (nreduce < 0) core::fatal(r, "nreduce %d is negative", nreduce);
    std::size_t n = std::size_t(nreduce), bytes = n * op.elem;
    check_sym(r, "dest", dest, bytes);
    check_sym(r, "source", src, bytes);
    check_same_or_disjoint(r, dest, src, bytes);
    std::size_t wbytes = std::max<std::size_t>(n / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) * op.elem;
    core::reduce_as(r, as_of(start, log_stride, size), dest, src, n, op, pwrk, wbytes, psync);
}

} // namespace

static_assert(SHMEM_SYNC_SIZE >= core::ctr::psync_words, "pSync arrays hold the collectives' counters");
static_assert(SHMEM_REDUCE_MIN_WRKDATA_SIZE >= 2 * (core::ctr::max_regions + 1),
              "pWrk holds a chunk per recursive-doubling region");

// ---- synchronisation ------------------------------------------------------------------------------

USHMEM_DEF(int, shmem_team_sync, (shmem_team_t team)) {
    core::team *t = api::team_of("shmem_team_sync", team);
    if (!t) return -1;
    core::stats::timed timing(core::stats::t_coll);
    const transport::rpc_point rpcs;
    core::team_sync("shmem_team_sync", *t);
    return 0;
}

USHMEM_DEF(void, shmem_sync, (int PE_start, int logPE_stride, int PE_size, long *pSync)) {
    core::check_running("shmem_sync");
    core::stats::timed timing(core::stats::t_coll);
    core::barrier_as("shmem_sync", as_of(PE_start, logPE_stride, PE_size), pSync, false);
}

USHMEM_DEF(void, shmem_barrier, (int PE_start, int logPE_stride, int PE_size, long *pSync)) {
    core::check_running("shmem_barrier");
    core::stats::timed timing(core::stats::t_coll);
    core::barrier_as("shmem_barrier", as_of(PE_start, logPE_stride, PE_size), pSync, true);
}

// ---- data movement ---------------------------------------------------------------------------------

#define DEF_COLL_TYPED(T, N, _)                                                                     \
    USHMEM_DEF(int, shmem_##N##_broadcast,                                                          \
               (shmem_team_t team, T * dest, const T *source, size_t nelems, int PE_root)) {        \
        return broadcast("shmem_" #N "_broadcast", team, dest, source, nelems, sizeof(T), PE_root); \
    }                                                                                               \
    USHMEM_DEF(int, shmem_##N##_collect, (shmem_team_t team, T * dest, const T *source, size_t nelems)) { \
        return collect("shmem_" #N "_collect", team, dest, source, nelems, sizeof(T));              \
    }                                                                                               \
    USHMEM_DEF(int, shmem_##N##_fcollect,                                                           \
               (shmem_team_t team, T * dest, const T *source, size_t nelems)) {                     \
        return fcollect("shmem_" #N "_fcollect", team, dest, source, nelems, sizeof(T));            \
    }                                                                                               \
    USHMEM_DEF(int, shmem_##N##_alltoall,                                                           \
               (shmem_team_t team, T * dest, const T *source, size_t nelems)) {                     \
        return alltoall("shmem_" #N "_alltoall", team, dest, source, nelems, sizeof(T));            \
    }                                                                                               \
    USHMEM_DEF(int, shmem_##N##_alltoalls,                                                          \
               (shmem_team_t team, T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,         \
                size_t nelems)) {                                                                   \
        return alltoalls("shmem_" #N "_alltoalls", team, dest, source, dst, sst, nelems, sizeof(T)); \
    }
USHMEM_RMA_TYPES(DEF_COLL_TYPED, _)

USHMEM_DEF(int, shmem_broadcastmem,
           (shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)) {
    return broadcast("shmem_broadcastmem", team, dest, source, nelems, 1, PE_root);
}
USHMEM_DEF(int, shmem_collectmem, (shmem_team_t team, void *dest, const void *source, size_t nelems)) {
    return collect("shmem_collectmem", team, dest, source, nelems, 1);
}
USHMEM_DEF(int, shmem_fcollectmem, (shmem_team_t team, void *dest, const void *source, size_t nelems)) {
    return fcollect("shmem_fcollectmem", team, dest, source, nelems, 1);
}
USHMEM_DEF(int, shmem_alltoallmem, (shmem_team_t team, void *dest, const void *source, size_t nelems)) {
    return alltoall("shmem_alltoallmem", team, dest, source, nelems, 1);
}
USHMEM_DEF(int, shmem_alltoallsmem,
           (shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)) {
    return alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
}

// Deprecated active-set forms, BITS-bit elements.
#define DEF_COLL_AS(BITS)                                                                            \
    USHMEM_DEF(void, shmem_broadcast##BITS,                                                          \
               (void *dest, const void *source, size_t nelems, int PE_root, int PE_start,            \
                int logPE_stride, int PE_size, long *pSync)) {                                       \
        const char *r = "shmem_broadcast" #BITS;                                                     \
        core::check_running(r);                                                                      \
        std::size_t bytes = api::bytes_of(r, nelems, BITS / 8);                                      \
        check_sym(r, "dest", dest, bytes);                                                           \
        check_sym(r, "source", source, bytes);                                                       \
        core::broadcast_as(r, as_of(PE_start, logPE_stride, PE_size), dest, source, bytes, PE_root,  \
                           pSync);                                                                   \
    }                                                                                                \
    USHMEM_DEF(void, shmem_collect##BITS,                                                            \
               (void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,       \
                int PE_size, long *pSync)) {                                                         \
        const char *r = "shmem_collect" #BITS;                                                       \
        core::check_running(r);                                                                      \
        std::size_t bytes = api::bytes_of(r, nelems, BITS / 8);                                      \
        check_sym(r, "dest", dest, bytes);                                                           \
        check_sym(r, "source", source, bytes);                                                       \
        core::collect_as(r, as_of(PE_start, logPE_stride, PE_size), dest, source, bytes, pSync);     \
    }                                                                                                \
    USHMEM_DEF(void, shmem_fcollect##BITS,                                                           \
               (void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,       \
                int PE_size, long *pSync)) {                                                         \
        const char *r = "shmem_fcollect" #BITS;                                                      \
        core::check_running(r);                                                                      \
        std::size_t bytes = api::bytes_of(r, nelems, BITS / 8);                                      \
        check_sym(r, "dest", dest, total(r, nelems, BITS / 8, PE_size > 0 ? PE_size : 1));           \
        check_sym(r, "source", source, bytes);                                                       \
        core::fcollect_as(r, as_of(PE_start, logPE_stride, PE_size), dest, source, bytes, pSync);    \
    }                                                                                                \
    USHMEM_DEF(void, shmem_alltoall##BITS,                                                           \
               (void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,       \
                int PE_size, long *pSync)) {                                                         \
        const char *r = "shmem_alltoall" #BITS;                                                      \
        core::check_running(r);                                                                      \
        std::size_t all = total(r, nelems, BITS / 8, PE_size > 0 ? PE_size : 1);                     \
        check_sym(r, "dest", dest, all);                                                             \
        check_sym(r, "source", source, all);                                                         \
        core::alltoall_as(r, as_of(PE_start, logPE_stride, PE_size), dest, source, nelems * (BITS / 8), \
                          pSync);                                                                    \
    }                                                                                                \
    USHMEM_DEF(void, shmem_alltoalls##BITS,                                                          \
               (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,         \
                int PE_start, int logPE_stride, int PE_size, long *pSync)) {                         \
        const char *r = "shmem_alltoalls" #BITS;                                                     \
        core::check_running(r);                                                                      \
        if (dst < 1 || sst < 1) core::fatal(r, "strides dst %td and sst %td must be >= 1", dst, sst); \
        std::size_t count = api::bytes_of(r, nelems, std::size_t(PE_size > 0 ? PE_size : 1));       \
        if (count) {                                                                                 \
            check_sym(r, "dest", dest, total(r, count - 1, std::size_t(dst), 1) * (BITS / 8) + BITS / 8); \
            check_sym(r, "source", source, total(r, count - 1, std::size_t(sst), 1) * (BITS / 8) + BITS / 8); \
        }                                                                                            \
        core::alltoalls_as(r, as_of(PE_start, logPE_stride, PE_size), dest, source, dst, sst, nelems, \
                           BITS / 8, pSync);                                                         \
    }
DEF_COLL_AS(32)
DEF_COLL_AS(64)

// ---- reductions and scans ---------------------------------------------------------------------------

// SUFFIX: the routine's name after TYPENAME; FN: the combine function template.
#define DEF_REDUCE(T, N, SUFFIX, FN)                                                                \
    USHMEM_DEF(int, shmem_##N##SUFFIX, (shmem_team_t team, T * dest, const T *source, size_t nreduce)) { \
        return reduce("shmem_" #N #SUFFIX, team, dest, source, nreduce,                             \
                      core::reduce_op{sizeof(T), FN<T>});                                           \
    }
#define DEF_TO_ALL(T, N, SUFFIX, FN)                                                                \
    USHMEM_DEF(void, shmem_##N##SUFFIX,                                                             \
               (T * dest, const T *source, int nreduce, int PE_start, int logPE_stride, int PE_size, \
                T *pWrk, long *pSync)) {                                                            \
        as_reduce("shmem_" #N #SUFFIX, dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, \
                  pSync, core::reduce_op{sizeof(T), FN<T>});                                        \
    }
#define DEF_SCAN(T, N, SUFFIX, INCL)                                                                \
    USHMEM_DEF(int, shmem_##N##SUFFIX, (shmem_team_t team, T * dest, const T *source, size_t nelems)) { \
        return scan("shmem_" #N #SUFFIX, team, dest, source, nelems,                                \
                    core::reduce_op{sizeof(T), op_sum<T>}, INCL);                                   \
    }

#define DEF_AND(T, N, _) DEF_REDUCE(T, N, _and_reduce, op_and)
#define DEF_OR(T, N, _) DEF_REDUCE(T, N, _or_reduce, op_or)
#define DEF_XOR(T, N, _) DEF_REDUCE(T, N, _xor_reduce, op_xor)
#define DEF_MAX(T, N, _) DEF_REDUCE(T, N, _max_reduce, op_max)
#define DEF_MIN(T, N, _) DEF_REDUCE(T, N, _min_reduce, op_min)
#define DEF_SUM(T, N, _) DEF_REDUCE(T, N, _sum_reduce, op_sum)
#define DEF_PROD(T, N, _) DEF_REDUCE(T, N, _prod_reduce, op_prod)
#define DEF_INSCAN(T, N, _) DEF_SCAN(T, N, _sum_inscan, true)
#define DEF_EXSCAN(T, N, _) DEF_SCAN(T, N, _sum_exscan, false)
USHMEM_REDUCE_BITWISE_TYPES(DEF_AND, _)
USHMEM_REDUCE_BITWISE_TYPES(DEF_OR, _)
USHMEM_REDUCE_BITWISE_TYPES(DEF_XOR, _)
USHMEM_REDUCE_MINMAX_TYPES(DEF_MAX, _)
USHMEM_REDUCE_MINMAX_TYPES(DEF_MIN, _)
USHMEM_REDUCE_ARITH_TYPES(DEF_SUM, _)
USHMEM_REDUCE_ARITH_TYPES(DEF_PROD, _)
USHMEM_REDUCE_ARITH_TYPES(DEF_INSCAN, _)
USHMEM_REDUCE_ARITH_TYPES(DEF_EXSCAN, _)

#define DEF_AND_TO_ALL(T, N, _) DEF_TO_ALL(T, N, _and_to_all, op_and)
#define DEF_OR_TO_ALL(T, N, _) DEF_TO_ALL(T, N, _or_to_all, op_or)
#define DEF_XOR_TO_ALL(T, N, _) DEF_TO_ALL(T, N, _xor_to_all, op_xor)
#define DEF_MAX_TO_ALL(T, N, _) DEF_TO_ALL(T, N, _max_to_all, op_max)
#define DEF_MIN_TO_ALL(T, N, _) DEF_TO_ALL(T, N, _min_to_all, op_min)
#define DEF_SUM_TO_ALL(T, N, _) DEF_TO_ALL(T, N, _sum_to_all, op_sum)
#define DEF_PROD_TO_ALL(T, N, _) DEF_TO_ALL(T, N, _prod_to_all, op_prod)
USHMEM_TO_ALL_BITWISE_TYPES(DEF_AND_TO_ALL, _)
USHMEM_TO_ALL_BITWISE_TYPES(DEF_OR_TO_ALL, _)
USHMEM_TO_ALL_BITWISE_TYPES(DEF_XOR_TO_ALL, _)
USHMEM_TO_ALL_MINMAX_TYPES(DEF_MAX_TO_ALL, _)
USHMEM_TO_ALL_MINMAX_TYPES(DEF_MIN_TO_ALL, _)
USHMEM_TO_ALL_ARITH_TYPES(DEF_SUM_TO_ALL, _)
USHMEM_TO_ALL_ARITH_TYPES(DEF_PROD_TO_ALL, _)
