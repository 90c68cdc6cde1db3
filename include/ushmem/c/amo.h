/* ushmem: OpenSHMEM 1.6 atomic memory operations, declared from the AMO type tables, with the
 * C11 type-generic interface (or C++ overloads) and the deprecated OpenSHMEM 1.3 names.
 * Included by <shmem.h> after <ushmem/c/rma.h>, whose C11 generic helpers it uses. */
#ifndef USHMEM_C_AMO_H
#define USHMEM_C_AMO_H

#include <ushmem/c/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Extended AMO types: fetch, set, swap (+ nbi fetch and swap). */
#define USHMEM_DECL_AMO_EXT(T, N, _)                                                              \
    T shmem_##N##_atomic_fetch(const T *source, int pe);                                         \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                    \
    void shmem_##N##_atomic_set(T *dest, T value, int pe);                                       \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);                  \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                         \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                    \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                        \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe);   \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                        \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
USHMEM_AMO_EXT_TYPES(USHMEM_DECL_AMO_EXT, _)
#undef USHMEM_DECL_AMO_EXT

/* Standard AMO types: compare_swap, fetch_inc, inc, fetch_add, add (+ nbi fetching forms). */
#define USHMEM_DECL_AMO_STD(T, N, _)                                                              \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                         \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe);    \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                             \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                        \
    void shmem_##N##_atomic_inc(T *dest, int pe);                                                \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                           \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                    \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);               \
    void shmem_##N##_atomic_add(T *dest, T value, int pe);                                       \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);                  \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);        \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,     \
                                                 T value, int pe);                               \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                            \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);       \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);                   \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
USHMEM_AMO_STD_TYPES(USHMEM_DECL_AMO_STD, _)
#undef USHMEM_DECL_AMO_STD

/* Bitwise AMO types: and, or, xor (fetching, non-fetching, nbi fetching). */
#define USHMEM_DECL_AMO_BITWISE_OP(T, N, OP)                                                      \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                                   \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);              \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                                      \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);                 \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);                \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,    \
                                                 int pe);
#define USHMEM_DECL_AMO_BITWISE(T, N, _)                                                          \
    USHMEM_DECL_AMO_BITWISE_OP(T, N, and)                                                        \
    USHMEM_DECL_AMO_BITWISE_OP(T, N, or) USHMEM_DECL_AMO_BITWISE_OP(T, N, xor)
USHMEM_AMO_BITWISE_TYPES(USHMEM_DECL_AMO_BITWISE, _)
#undef USHMEM_DECL_AMO_BITWISE
#undef USHMEM_DECL_AMO_BITWISE_OP

/* Deprecated (OpenSHMEM 1.4) typed names. */
#define USHMEM_DECL_AMO_DEPR_EXT(T, N, _)               \
    T shmem_##N##_fetch(const T *source, int pe);      \
    void shmem_##N##_set(T *dest, T value, int pe);    \
    T shmem_##N##_swap(T *dest, T value, int pe);
USHMEM_AMO_DEPR_EXT_TYPES(USHMEM_DECL_AMO_DEPR_EXT, _)
#undef USHMEM_DECL_AMO_DEPR_EXT
#define USHMEM_DECL_AMO_DEPR_STD(T, N, _)                   \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe); \
    T shmem_##N##_finc(T *dest, int pe);                   \
    void shmem_##N##_inc(T *dest, int pe);                 \
    T shmem_##N##_fadd(T *dest, T value, int pe);          \
    void shmem_##N##_add(T *dest, T value, int pe);
USHMEM_AMO_DEPR_STD_TYPES(USHMEM_DECL_AMO_DEPR_STD, _)
#undef USHMEM_DECL_AMO_DEPR_STD

#ifdef __cplusplus
} /* extern "C" */

/* C++: overloads on the element type, as the C11 generic interface offers to C. */
#define USHMEM_CXX_AMO_EXT(T, N, _)                                                                 \
    inline T shmem_atomic_fetch(const T *s, int pe) { return shmem_##N##_atomic_fetch(s, pe); }     \
    inline T shmem_atomic_fetch(shmem_ctx_t c, const T *s, int pe) {                                \
        return shmem_ctx_##N##_atomic_fetch(c, s, pe);                                              \
    }                                                                                               \
    inline void shmem_atomic_set(T *d, T v, int pe) { shmem_##N##_atomic_set(d, v, pe); }           \
    inline void shmem_atomic_set(shmem_ctx_t c, T *d, T v, int pe) {                                \
        shmem_ctx_##N##_atomic_set(c, d, v, pe);                                                    \
    }                                                                                               \
    inline T shmem_atomic_swap(T *d, T v, int pe) { return shmem_##N##_atomic_swap(d, v, pe); }     \
    inline T shmem_atomic_swap(shmem_ctx_t c, T *d, T v, int pe) {                                  \
        return shmem_ctx_##N##_atomic_swap(c, d, v, pe);                                            \
    }                                                                                               \
    inline void shmem_atomic_fetch_nbi(T *f, const T *s, int pe) {                                  \
        shmem_##N##_atomic_fetch_nbi(f, s, pe);                                                     \
    }                                                                                               \
    inline void shmem_atomic_fetch_nbi(shmem_ctx_t c, T *f, const T *s, int pe) {                   \
        shmem_ctx_##N##_atomic_fetch_nbi(c, f, s, pe);                                              \
    }                                                                                               \
    inline void shmem_atomic_swap_nbi(T *f, T *d, T v, int pe) {                                    \
        shmem_##N##_atomic_swap_nbi(f, d, v, pe);                                                   \
    }                                                                                               \
    inline void shmem_atomic_swap_nbi(shmem_ctx_t c, T *f, T *d, T v, int pe) {                     \
        shmem_ctx_##N##_atomic_swap_nbi(c, f, d, v, pe);                                            \
    }
USHMEM_AMO_EXT_GENERIC_TYPES(USHMEM_CXX_AMO_EXT, _)
#undef USHMEM_CXX_AMO_EXT

#define USHMEM_CXX_AMO_STD(T, N, _)                                                                 \
    inline T shmem_atomic_compare_swap(T *d, T cond, T v, int pe) {                                 \
        return shmem_##N##_atomic_compare_swap(d, cond, v, pe);                                     \
    }                                                                                               \
    inline T shmem_atomic_compare_swap(shmem_ctx_t c, T *d, T cond, T v, int pe) {                  \
        return shmem_ctx_##N##_atomic_compare_swap(c, d, cond, v, pe);                              \
    }                                                                                               \
    inline T shmem_atomic_fetch_inc(T *d, int pe) { return shmem_##N##_atomic_fetch_inc(d, pe); }   \
    inline T shmem_atomic_fetch_inc(shmem_ctx_t c, T *d, int pe) {                                  \
        return shmem_ctx_##N##_atomic_fetch_inc(c, d, pe);                                          \
    }                                                                                               \
    inline void shmem_atomic_inc(T *d, int pe) { shmem_##N##_atomic_inc(d, pe); }                   \
    inline void shmem_atomic_inc(shmem_ctx_t c, T *d, int pe) { shmem_ctx_##N##_atomic_inc(c, d, pe); } \
    inline T shmem_atomic_fetch_add(T *d, T v, int pe) {                                            \
        return shmem_##N##_atomic_fetch_add(d, v, pe);                                              \
    }                                                                                               \
    inline T shmem_atomic_fetch_add(shmem_ctx_t c, T *d, T v, int pe) {                             \
        return shmem_ctx_##N##_atomic_fetch_add(c, d, v, pe);                                       \
    }                                                                                               \
    inline void shmem_atomic_add(T *d, T v, int pe) { shmem_##N##_atomic_add(d, v, pe); }           \
    inline void shmem_atomic_add(shmem_ctx_t c, T *d, T v, int pe) {                                \
        shmem_ctx_##N##_atomic_add(c, d, v, pe);                                                    \
    }                                                                                               \
    inline void shmem_atomic_compare_swap_nbi(T *f, T *d, T cond, T v, int pe) {                    \
        shmem_##N##_atomic_compare_swap_nbi(f, d, cond, v, pe);                                     \
    }                                                                                               \
    inline void shmem_atomic_compare_swap_nbi(shmem_ctx_t c, T *f, T *d, T cond, T v, int pe) {     \
        shmem_ctx_##N##_atomic_compare_swap_nbi(c, f, d, cond, v, pe);                              \
    }                                                                                               \
    inline void shmem_atomic_fetch_inc_nbi(T *f, T *d, int pe) {                                    \
        shmem_##N##_atomic_fetch_inc_nbi(f, d, pe);                                                 \
    }                                                                                               \
    inline void shmem_atomic_fetch_inc_nbi(shmem_ctx_t c, T *f, T *d, int pe) {                     \
        shmem_ctx_##N##_atomic_fetch_inc_nbi(c, f, d, pe);                                          \
    }                                                                                               \
    inline void shmem_atomic_fetch_add_nbi(T *f, T *d, T v, int pe) {                               \
        shmem_##N##_atomic_fetch_add_nbi(f, d, v, pe);                                              \
    }                                                                                               \
    inline void shmem_atomic_fetch_add_nbi(shmem_ctx_t c, T *f, T *d, T v, int pe) {                \
        shmem_ctx_##N##_atomic_fetch_add_nbi(c, f, d, v, pe);                                       \
    }
USHMEM_AMO_STD_GENERIC_TYPES(USHMEM_CXX_AMO_STD, _)
#undef USHMEM_CXX_AMO_STD

#define USHMEM_CXX_AMO_BITWISE_OP(T, N, OP)                                                         \
    inline T shmem_atomic_fetch_##OP(T *d, T v, int pe) {                                           \
        return shmem_##N##_atomic_fetch_##OP(d, v, pe);                                             \
    }                                                                                               \
    inline T shmem_atomic_fetch_##OP(shmem_ctx_t c, T *d, T v, int pe) {                            \
        return shmem_ctx_##N##_atomic_fetch_##OP(c, d, v, pe);                                      \
    }                                                                                               \
    inline void shmem_atomic_##OP(T *d, T v, int pe) { shmem_##N##_atomic_##OP(d, v, pe); }         \
    inline void shmem_atomic_##OP(shmem_ctx_t c, T *d, T v, int pe) {                               \
        shmem_ctx_##N##_atomic_##OP(c, d, v, pe);                                                   \
    }                                                                                               \
    inline void shmem_atomic_fetch_##OP##_nbi(T *f, T *d, T v, int pe) {                            \
        shmem_##N##_atomic_fetch_##OP##_nbi(f, d, v, pe);                                           \
    }                                                                                               \
    inline void shmem_atomic_fetch_##OP##_nbi(shmem_ctx_t c, T *f, T *d, T v, int pe) {             \
        shmem_ctx_##N##_atomic_fetch_##OP##_nbi(c, f, d, v, pe);                                    \
    }
#define USHMEM_CXX_AMO_BITWISE(T, N, _)                                                             \
    USHMEM_CXX_AMO_BITWISE_OP(T, N, and)                                                           \
    USHMEM_CXX_AMO_BITWISE_OP(T, N, or) USHMEM_CXX_AMO_BITWISE_OP(T, N, xor)
USHMEM_AMO_BITWISE_GENERIC_TYPES(USHMEM_CXX_AMO_BITWISE, _)
#undef USHMEM_CXX_AMO_BITWISE
#undef USHMEM_CXX_AMO_BITWISE_OP

/* Deprecated generic names. */
#define USHMEM_CXX_AMO_DEPR_EXT(T, N, _)                                               \
    inline T shmem_fetch(const T *s, int pe) { return shmem_##N##_fetch(s, pe); }      \
    inline void shmem_set(T *d, T v, int pe) { shmem_##N##_set(d, v, pe); }            \
    inline T shmem_swap(T *d, T v, int pe) { return shmem_##N##_swap(d, v, pe); }
USHMEM_AMO_DEPR_EXT_TYPES(USHMEM_CXX_AMO_DEPR_EXT, _)
#undef USHMEM_CXX_AMO_DEPR_EXT
#define USHMEM_CXX_AMO_DEPR_STD(T, N, _)                                                          \
    inline T shmem_cswap(T *d, T cond, T v, int pe) { return shmem_##N##_cswap(d, cond, v, pe); } \
    inline T shmem_finc(T *d, int pe) { return shmem_##N##_finc(d, pe); }                         \
    inline void shmem_inc(T *d, int pe) { shmem_##N##_inc(d, pe); }                              \
    inline T shmem_fadd(T *d, T v, int pe) { return shmem_##N##_fadd(d, v, pe); }                \
    inline void shmem_add(T *d, T v, int pe) { shmem_##N##_add(d, v, pe); }
USHMEM_AMO_DEPR_STD_TYPES(USHMEM_CXX_AMO_DEPR_STD, _)
#undef USHMEM_CXX_AMO_DEPR_STD

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* C11 generic selection over a type table: USHMEM_TGENERIC(TABLE, OP, FIRST, ...) calls
 * shmem_TYPENAME_OP or, when FIRST is a context, shmem_ctx_TYPENAME_OP, with the type read from
 * the first typed pointer argument. The _CONST form also accepts a pointer to const (fetch). */
#define USHMEM_TSEL(TABLE, ENTRY, OP, P) _Generic((P), TABLE(ENTRY, OP) default: ushmem_generic_unsupported)
#define USHMEM_TGENERIC(TABLE, OP, FIRST, ...)                                                     \
    _Generic((FIRST), shmem_ctx_t: USHMEM_TSEL(TABLE, USHMEM_GSEL_ENTRY_CTX, OP,                  \
                                               USHMEM_GARG1(__VA_ARGS__, 0)),                     \
             default: USHMEM_TSEL(TABLE, USHMEM_GSEL_ENTRY, OP, FIRST))(FIRST, __VA_ARGS__)
#define USHMEM_TGENERIC_CONST(TABLE, OP, FIRST, ...)                                               \
    _Generic((FIRST), shmem_ctx_t: USHMEM_TSEL(TABLE, USHMEM_GSEL_ENTRY_CTX_CONST, OP,            \
                                               USHMEM_GARG1(__VA_ARGS__, 0)),                     \
             default: USHMEM_TSEL(TABLE, USHMEM_GSEL_ENTRY_CONST, OP, FIRST))(FIRST, __VA_ARGS__)
/* No context form (deprecated names, point-to-point routines). */
#define USHMEM_TGENERIC_NOCTX(TABLE, ENTRY, OP, ...) \
    USHMEM_TSEL(TABLE, ENTRY, OP, USHMEM_GARG1(__VA_ARGS__, 0))(__VA_ARGS__)

#define shmem_atomic_fetch(...) USHMEM_TGENERIC_CONST(USHMEM_AMO_EXT_GENERIC_TYPES, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) USHMEM_TGENERIC(USHMEM_AMO_EXT_GENERIC_TYPES, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) USHMEM_TGENERIC(USHMEM_AMO_EXT_GENERIC_TYPES, atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) \
    USHMEM_TGENERIC(USHMEM_AMO_EXT_GENERIC_TYPES, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) \
    USHMEM_TGENERIC(USHMEM_AMO_EXT_GENERIC_TYPES, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) \
    USHMEM_TGENERIC(USHMEM_AMO_STD_GENERIC_TYPES, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) \
    USHMEM_TGENERIC(USHMEM_AMO_STD_GENERIC_TYPES, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) USHMEM_TGENERIC(USHMEM_AMO_STD_GENERIC_TYPES, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) \
    USHMEM_TGENERIC(USHMEM_AMO_STD_GENERIC_TYPES, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) USHMEM_TGENERIC(USHMEM_AMO_STD_GENERIC_TYPES, atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
    USHMEM_TGENERIC(USHMEM_AMO_STD_GENERIC_TYPES, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) \
    USHMEM_TGENERIC(USHMEM_AMO_STD_GENERIC_TYPES, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) \
    USHMEM_TGENERIC(USHMEM_AMO_STD_GENERIC_TYPES, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) \
    USHMEM_TGENERIC(USHMEM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) USHMEM_TGENERIC(USHMEM_AMO_BITWISE_GENERIC_TYPES, atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) \
    USHMEM_TGENERIC(USHMEM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) \
    USHMEM_TGENERIC(USHMEM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) USHMEM_TGENERIC(USHMEM_AMO_BITWISE_GENERIC_TYPES, atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) \
    USHMEM_TGENERIC(USHMEM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) \
    USHMEM_TGENERIC(USHMEM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) USHMEM_TGENERIC(USHMEM_AMO_BITWISE_GENERIC_TYPES, atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) \
    USHMEM_TGENERIC(USHMEM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_xor_nbi, __VA_ARGS__)

/* Deprecated generic names (no context form). */
#define shmem_fetch(...) \
    USHMEM_TGENERIC_NOCTX(USHMEM_AMO_DEPR_EXT_TYPES, USHMEM_GSEL_ENTRY_CONST, fetch, __VA_ARGS__)
#define shmem_set(...) USHMEM_TGENERIC_NOCTX(USHMEM_AMO_DEPR_EXT_TYPES, USHMEM_GSEL_ENTRY, set, __VA_ARGS__)
#define shmem_swap(...) USHMEM_TGENERIC_NOCTX(USHMEM_AMO_DEPR_EXT_TYPES, USHMEM_GSEL_ENTRY, swap, __VA_ARGS__)
#define shmem_cswap(...) \
    USHMEM_TGENERIC_NOCTX(USHMEM_AMO_DEPR_STD_TYPES, USHMEM_GSEL_ENTRY, cswap, __VA_ARGS__)
#define shmem_finc(...) USHMEM_TGENERIC_NOCTX(USHMEM_AMO_DEPR_STD_TYPES, USHMEM_GSEL_ENTRY, finc, __VA_ARGS__)
#define shmem_inc(...) USHMEM_TGENERIC_NOCTX(USHMEM_AMO_DEPR_STD_TYPES, USHMEM_GSEL_ENTRY, inc, __VA_ARGS__)
#define shmem_fadd(...) USHMEM_TGENERIC_NOCTX(USHMEM_AMO_DEPR_STD_TYPES, USHMEM_GSEL_ENTRY, fadd, __VA_ARGS__)
#define shmem_add(...) USHMEM_TGENERIC_NOCTX(USHMEM_AMO_DEPR_STD_TYPES, USHMEM_GSEL_ENTRY, add, __VA_ARGS__)
#endif

#endif /* USHMEM_C_AMO_H */
