// Atomic memory operations, generated from the AMO type tables in <ushmem/c/types.h>.
//
// Every AMO type is 4 or 8 bytes; its value travels to core as the integer bit pattern of that
// size (float and double included, for fetch/set/swap), and core picks the route.
#include "api/api.hpp"
#include "core/atomic.hpp"
#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"

#include <bit>
#include <type_traits>

using namespace ushmem;
using ushmem::api::rt;
using core::amo;

namespace {
template <class T> using bits_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
static_assert(sizeof(float) == 4 && sizeof(double) == 8 && sizeof(int) == 4 && sizeof(long) == 8);

template <class T> inline bits_t<T> bits(T v) { return std::bit_cast<bits_t<T>>(v); }

template <class T>
inline T fetching(const char *r, core::context &c, amo op, const T *dest, T v, T cmp, int pe) {
    core::check_running(r);
    pe = api::ctx_pe(r, c, pe); // team contexts take team-relative PEs
    core::stats::check_pe_and_count(r, pe, core::stats::k_amo_fetch, sizeof(T));
    return std::bit_cast<T>(core::amo_fetching<bits_t<T>>(r, c, op, dest, bits(v), bits(cmp), pe));
}

template <class T> inline void post(const char *r, core::context &c, amo op, T *dest, T v, int pe) {
    core::check_running(r);
    pe = api::ctx_pe(r, c, pe); // team contexts take team-relative PEs
    core::stats::check_pe_and_count(r, pe, core::stats::k_amo, sizeof(T));
    core::amo_post<bits_t<T>>(r, c, op, dest, bits(v), pe);
}

template <class T>
inline void nbi(const char *r, core::context &c, amo op, T *fetch, const T *dest, T v, T cmp, int pe) {
    core::check_running(r);
    pe = api::ctx_pe(r, c, pe); // team contexts take team-relative PEs
    core::stats::check_pe_and_count(r, pe, core::stats::k_amo_fetch, sizeof(T));
    if (USHMEM_UNLIKELY(fetch == nullptr))
        core::fatal(r, "fetch is a null pointer; pass the local address that receives the old value");
    core::amo_nbi<bits_t<T>>(r, c, op, fetch, dest, bits(v), bits(cmp), pe);
}
} // namespace

#define USHMEM_UNPAREN(...) __VA_ARGS__
// One routine on the default context and its shmem_ctx_ form: CALL sees `r` (the routine's name)
// and `c` (the context).
#define DEF2(RET, NAME, CNAME, PARAMS, CALL)                                         \
    USHMEM_DEF(RET, NAME, PARAMS) {                                                   \
        const char *r = #NAME;                                                        \
        core::context &c = rt.default_ctx;                                            \
        return CALL;                                                                  \
    }                                                                                 \
    USHMEM_DEF(RET, CNAME, (shmem_ctx_t ctx_, USHMEM_UNPAREN PARAMS)) {               \
        const char *r = #CNAME;                                                       \
        core::context &c = api::ctx_of(r, ctx_);                                      \
        return CALL;                                                                  \
    }
// A deprecated name: default context only.
#define DEF1(RET, NAME, PARAMS, CALL)      \
    USHMEM_DEF(RET, NAME, PARAMS) {        \
        const char *r = #NAME;             \
        core::context &c = rt.default_ctx; \
        return CALL;                       \
    }

// Extended AMO types: fetch, set, swap and the nbi fetch/swap.
#define DEF_AMO_EXT(T, N, _)                                                                       \
    DEF2(T, shmem_##N##_atomic_fetch, shmem_ctx_##N##_atomic_fetch, (const T *source, int pe),      \
         fetching<T>(r, c, amo::fetch, source, static_cast<T>(0), static_cast<T>(0), pe))                                      \
    DEF2(void, shmem_##N##_atomic_set, shmem_ctx_##N##_atomic_set, (T * dest, T value, int pe),     \
         post<T>(r, c, amo::set, dest, value, pe))                                                 \
    DEF2(T, shmem_##N##_atomic_swap, shmem_ctx_##N##_atomic_swap, (T * dest, T value, int pe),      \
         fetching<T>(r, c, amo::swap, dest, value, static_cast<T>(0), pe))                                       \
    DEF2(void, shmem_##N##_atomic_fetch_nbi, shmem_ctx_##N##_atomic_fetch_nbi,                      \
         (T * fetch, const T *source, int pe), nbi<T>(r, c, amo::fetch, fetch, source, static_cast<T>(0), static_cast<T>(0), pe)) \
    DEF2(void, shmem_##N##_atomic_swap_nbi, shmem_ctx_##N##_atomic_swap_nbi,                        \
         (T * fetch, T * dest, T value, int pe), nbi<T>(r, c, amo::swap, fetch, dest, value, static_cast<T>(0), pe))
USHMEM_AMO_EXT_TYPES(DEF_AMO_EXT, _)

// Standard AMO types: compare_swap, fetch_inc, inc, fetch_add, add and their nbi forms.
#define DEF_AMO_STD(T, N, _)                                                                       \
    DEF2(T, shmem_##N##_atomic_compare_swap, shmem_ctx_##N##_atomic_compare_swap,                   \
         (T * dest, T cond, T value, int pe), fetching<T>(r, c, amo::cswap, dest, value, cond, pe)) \
    DEF2(T, shmem_##N##_atomic_fetch_inc, shmem_ctx_##N##_atomic_fetch_inc, (T * dest, int pe),     \
         fetching<T>(r, c, amo::fetch_add, dest, static_cast<T>(1), static_cast<T>(0), pe))                                   \
    DEF2(void, shmem_##N##_atomic_inc, shmem_ctx_##N##_atomic_inc, (T * dest, int pe),              \
         post<T>(r, c, amo::add, dest, static_cast<T>(1), pe))                                                  \
    DEF2(T, shmem_##N##_atomic_fetch_add, shmem_ctx_##N##_atomic_fetch_add,                         \
         (T * dest, T value, int pe), fetching<T>(r, c, amo::fetch_add, dest, value, static_cast<T>(0), pe))     \
    DEF2(void, shmem_##N##_atomic_add, shmem_ctx_##N##_atomic_add, (T * dest, T value, int pe),     \
         post<T>(r, c, amo::add, dest, value, pe))                                                 \
    DEF2(void, shmem_##N##_atomic_compare_swap_nbi, shmem_ctx_##N##_atomic_compare_swap_nbi,        \
         (T * fetch, T * dest, T cond, T value, int pe),                                           \
         nbi<T>(r, c, amo::cswap, fetch, dest, value, cond, pe))                                   \
    DEF2(void, shmem_##N##_atomic_fetch_inc_nbi, shmem_ctx_##N##_atomic_fetch_inc_nbi,              \
         (T * fetch, T * dest, int pe), nbi<T>(r, c, amo::fetch_add, fetch, dest, static_cast<T>(1), static_cast<T>(0), pe))  \
    DEF2(void, shmem_##N##_atomic_fetch_add_nbi, shmem_ctx_##N##_atomic_fetch_add_nbi,              \
         (T * fetch, T * dest, T value, int pe),                                                   \
         nbi<T>(r, c, amo::fetch_add, fetch, dest, value, static_cast<T>(0), pe))
USHMEM_AMO_STD_TYPES(DEF_AMO_STD, _)

// Bitwise AMO types: and, or, xor, fetching, non-fetching and nbi.
#define DEF_AMO_BITWISE_OP(T, N, OP)                                                               \
    DEF2(T, shmem_##N##_atomic_fetch_##OP, shmem_ctx_##N##_atomic_fetch_##OP,                       \
         (T * dest, T value, int pe), fetching<T>(r, c, amo::fetch_##OP, dest, value, static_cast<T>(0), pe))    \
    DEF2(void, shmem_##N##_atomic_##OP, shmem_ctx_##N##_atomic_##OP, (T * dest, T value, int pe),   \
         post<T>(r, c, amo::b##OP, dest, value, pe))                                               \
    DEF2(void, shmem_##N##_atomic_fetch_##OP##_nbi, shmem_ctx_##N##_atomic_fetch_##OP##_nbi,        \
         (T * fetch, T * dest, T value, int pe),                                                   \
         nbi<T>(r, c, amo::fetch_##OP, fetch, dest, value, static_cast<T>(0), pe))
#define DEF_AMO_BITWISE(T, N, _) \
    DEF_AMO_BITWISE_OP(T, N, and) DEF_AMO_BITWISE_OP(T, N, or) DEF_AMO_BITWISE_OP(T, N, xor)
USHMEM_AMO_BITWISE_TYPES(DEF_AMO_BITWISE, _)

// Deprecated names (OpenSHMEM 1.4): shmem_TYPENAME_{fetch,set,swap} for float, double, int, long,
// long long; shmem_TYPENAME_{cswap,finc,inc,fadd,add} for int, long, long long.
#define DEF_AMO_DEPR_EXT(T, N, _)                                                                  \
    DEF1(T, shmem_##N##_fetch, (const T *source, int pe),                                         \
         fetching<T>(r, c, amo::fetch, source, static_cast<T>(0), static_cast<T>(0), pe))                                      \
    DEF1(void, shmem_##N##_set, (T * dest, T value, int pe), post<T>(r, c, amo::set, dest, value, pe)) \
    DEF1(T, shmem_##N##_swap, (T * dest, T value, int pe),                                        \
         fetching<T>(r, c, amo::swap, dest, value, static_cast<T>(0), pe))
USHMEM_AMO_DEPR_EXT_TYPES(DEF_AMO_DEPR_EXT, _)
#define DEF_AMO_DEPR_STD(T, N, _)                                                                  \
    DEF1(T, shmem_##N##_cswap, (T * dest, T cond, T value, int pe),                               \
         fetching<T>(r, c, amo::cswap, dest, value, cond, pe))                                     \
    DEF1(T, shmem_##N##_finc, (T * dest, int pe), fetching<T>(r, c, amo::fetch_add, dest, static_cast<T>(1), static_cast<T>(0), pe)) \
    DEF1(void, shmem_##N##_inc, (T * dest, int pe), post<T>(r, c, amo::add, dest, static_cast<T>(1), pe))       \
    DEF1(T, shmem_##N##_fadd, (T * dest, T value, int pe),                                        \
         fetching<T>(r, c, amo::fetch_add, dest, value, static_cast<T>(0), pe))                                  \
    DEF1(void, shmem_##N##_add, (T * dest, T value, int pe), post<T>(r, c, amo::add, dest, value, pe))
USHMEM_AMO_DEPR_STD_TYPES(DEF_AMO_DEPR_STD, _)
