/* ushmem: OpenSHMEM 1.6 remote memory access routines (put, get, p, g, iput, iget, ibput, ibget,
 * nbi forms), declared from the type tables. Included by <shmem.h>. */
#ifndef USHMEM_C_RMA_H
#define USHMEM_C_RMA_H

#include <ushmem/c/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Typed routines: shmem_TYPENAME_op and shmem_ctx_TYPENAME_op. */
#define USHMEM_DECL_RMA_TYPED(T, N, _)                                                           \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                      \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                  \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,      \
                                 int pe);                                                       \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                      \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                  \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,      \
                                 int pe);                                                       \
    void shmem_##N##_p(T *dest, T value, int pe);                                               \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                          \
    T shmem_##N##_g(const T *source, int pe);                                                   \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                              \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,               \
                          size_t nelems, int pe);                                               \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,         \
                              ptrdiff_t sst, size_t nelems, int pe);                            \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,               \
                          size_t nelems, int pe);                                               \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,         \
                              ptrdiff_t sst, size_t nelems, int pe);                            \
    void shmem_##N##_ibput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                           size_t bsize, size_t nblocks, int pe);                               \
    void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,        \
                               ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);            \
    void shmem_##N##_ibget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                           size_t bsize, size_t nblocks, int pe);                               \
    void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,        \
                               ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);
USHMEM_RMA_TYPES(USHMEM_DECL_RMA_TYPED, _)
#undef USHMEM_DECL_RMA_TYPED

/* Sized routines: shmem_putSIZE and friends, SIZE in bits. */
#define USHMEM_DECL_RMA_SIZED(BITS, BYTES, _)                                                     \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);                 \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,     \
                             int pe);                                                            \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);           \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,              \
                                   size_t nelems, int pe);                                       \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);                 \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,     \
                             int pe);                                                            \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);           \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,              \
                                   size_t nelems, int pe);                                       \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,          \
                          size_t nelems, int pe);                                                \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,    \
                              ptrdiff_t sst, size_t nelems, int pe);                             \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,          \
                          size_t nelems, int pe);                                                \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,    \
                              ptrdiff_t sst, size_t nelems, int pe);                             \
    void shmem_ibput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                           size_t bsize, size_t nblocks, int pe);                                \
    void shmem_ctx_ibput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,   \
                               ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);             \
    void shmem_ibget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                           size_t bsize, size_t nblocks, int pe);                                \
    void shmem_ctx_ibget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,   \
                               ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);
USHMEM_RMA_SIZES(USHMEM_DECL_RMA_SIZED, _)
#undef USHMEM_DECL_RMA_SIZED

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);

#ifdef __cplusplus
} /* extern "C" */

/* C++: overloads on the element type, as the C11 generic interface offers to C. */
#define USHMEM_CXX_RMA(T, N, _)                                                                   \
    inline void shmem_put(T *d, const T *s, size_t n, int pe) { shmem_##N##_put(d, s, n, pe); }   \
    inline void shmem_put(shmem_ctx_t c, T *d, const T *s, size_t n, int pe) {                    \
        shmem_ctx_##N##_put(c, d, s, n, pe);                                                      \
    }                                                                                             \
    inline void shmem_put_nbi(T *d, const T *s, size_t n, int pe) {                               \
        shmem_##N##_put_nbi(d, s, n, pe);                                                         \
    }                                                                                             \
    inline void shmem_put_nbi(shmem_ctx_t c, T *d, const T *s, size_t n, int pe) {                \
        shmem_ctx_##N##_put_nbi(c, d, s, n, pe);                                                  \
    }                                                                                             \
    inline void shmem_get(T *d, const T *s, size_t n, int pe) { shmem_##N##_get(d, s, n, pe); }   \
    inline void shmem_get(shmem_ctx_t c, T *d, const T *s, size_t n, int pe) {                    \
        shmem_ctx_##N##_get(c, d, s, n, pe);                                                      \
    }                                                                                             \
    inline void shmem_get_nbi(T *d, const T *s, size_t n, int pe) {                               \
        shmem_##N##_get_nbi(d, s, n, pe);                                                         \
    }                                                                                             \
    inline void shmem_get_nbi(shmem_ctx_t c, T *d, const T *s, size_t n, int pe) {                \
        shmem_ctx_##N##_get_nbi(c, d, s, n, pe);                                                  \
    }                                                                                             \
    inline void shmem_p(T *d, T v, int pe) { shmem_##N##_p(d, v, pe); }                          \
    inline void shmem_p(shmem_ctx_t c, T *d, T v, int pe) { shmem_ctx_##N##_p(c, d, v, pe); }     \
    inline T shmem_g(const T *s, int pe) { return shmem_##N##_g(s, pe); }                         \
    inline T shmem_g(shmem_ctx_t c, const T *s, int pe) { return shmem_ctx_##N##_g(c, s, pe); }   \
    inline void shmem_iput(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {    \
        shmem_##N##_iput(d, s, dst, sst, n, pe);                                                  \
    }                                                                                             \
    inline void shmem_iput(shmem_ctx_t c, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,         \
                           size_t n, int pe) {                                                    \
        shmem_ctx_##N##_iput(c, d, s, dst, sst, n, pe);                                           \
    }                                                                                             \
    inline void shmem_iget(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {    \
        shmem_##N##_iget(d, s, dst, sst, n, pe);                                                  \
    }                                                                                             \
    inline void shmem_iget(shmem_ctx_t c, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,         \
                           size_t n, int pe) {                                                    \
        shmem_ctx_##N##_iget(c, d, s, dst, sst, n, pe);                                           \
    }                                                                                             \
    inline void shmem_ibput(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb,  \
                            int pe) {                                                             \
        shmem_##N##_ibput(d, s, dst, sst, b, nb, pe);                                             \
    }                                                                                             \
    inline void shmem_ibput(shmem_ctx_t c, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,        \
                            size_t b, size_t nb, int pe) {                                        \
        shmem_ctx_##N##_ibput(c, d, s, dst, sst, b, nb, pe);                                      \
    }                                                                                             \
    inline void shmem_ibget(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb,  \
                            int pe) {                                                             \
        shmem_##N##_ibget(d, s, dst, sst, b, nb, pe);                                             \
    }                                                                                             \
    inline void shmem_ibget(shmem_ctx_t c, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,        \
                            size_t b, size_t nb, int pe) {                                        \
        shmem_ctx_##N##_ibget(c, d, s, dst, sst, b, nb, pe);                                      \
    }
USHMEM_RMA_GENERIC_TYPES(USHMEM_CXX_RMA, _)
#undef USHMEM_CXX_RMA

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* C11 generic selection. The first argument decides between the context form and the plain
 * form; the element type is read from the pointer argument, so no argument is dereferenced.
 * An unsupported type selects ushmem_generic_unsupported, a compile-time error. */
void ushmem_generic_unsupported(void *, ...)
    __attribute__((error("unsupported argument type for an OpenSHMEM generic routine")));
#define USHMEM_GSEL_ENTRY(T, N, OP) T *: shmem_##N##_##OP,
#define USHMEM_GSEL_ENTRY_CTX(T, N, OP) T *: shmem_ctx_##N##_##OP,
#define USHMEM_GSEL_ENTRY_CONST(T, N, OP) T *: shmem_##N##_##OP, const T *: shmem_##N##_##OP,
#define USHMEM_GSEL_ENTRY_CTX_CONST(T, N, OP) \
    T *: shmem_ctx_##N##_##OP, const T *: shmem_ctx_##N##_##OP,
#define USHMEM_GSEL(OP, P) \
    _Generic((P), USHMEM_RMA_GENERIC_TYPES(USHMEM_GSEL_ENTRY, OP) default: ushmem_generic_unsupported)
#define USHMEM_GSEL_CTX(OP, P)                                                 \
    _Generic((P), USHMEM_RMA_GENERIC_TYPES(USHMEM_GSEL_ENTRY_CTX, OP) default: \
             ushmem_generic_unsupported)
#define USHMEM_GSEL_CONST(OP, P)                                                 \
    _Generic((P), USHMEM_RMA_GENERIC_TYPES(USHMEM_GSEL_ENTRY_CONST, OP) default: \
             ushmem_generic_unsupported)
#define USHMEM_GSEL_CTX_CONST(OP, P)                                                 \
    _Generic((P), USHMEM_RMA_GENERIC_TYPES(USHMEM_GSEL_ENTRY_CTX_CONST, OP) default: \
             ushmem_generic_unsupported)
#define USHMEM_GARG1(A, ...) A
/* FIRST is either the context or the typed pointer; SECOND is the typed pointer of the ctx form. */
#define USHMEM_GENERIC(OP, FIRST, ...)                                                    \
    _Generic((FIRST), shmem_ctx_t: USHMEM_GSEL_CTX(OP, USHMEM_GARG1(__VA_ARGS__, 0)),     \
             default: USHMEM_GSEL(OP, FIRST))(FIRST, __VA_ARGS__)
#define USHMEM_GENERIC_CONST(OP, FIRST, ...)                                                \
    _Generic((FIRST), shmem_ctx_t: USHMEM_GSEL_CTX_CONST(OP, USHMEM_GARG1(__VA_ARGS__, 0)), \
             default: USHMEM_GSEL_CONST(OP, FIRST))(FIRST, __VA_ARGS__)
#define shmem_put(...) USHMEM_GENERIC(put, __VA_ARGS__)
#define shmem_put_nbi(...) USHMEM_GENERIC(put_nbi, __VA_ARGS__)
#define shmem_get(...) USHMEM_GENERIC(get, __VA_ARGS__)
#define shmem_get_nbi(...) USHMEM_GENERIC(get_nbi, __VA_ARGS__)
#define shmem_p(...) USHMEM_GENERIC(p, __VA_ARGS__)
#define shmem_g(...) USHMEM_GENERIC_CONST(g, __VA_ARGS__)
#define shmem_iput(...) USHMEM_GENERIC(iput, __VA_ARGS__)
#define shmem_iget(...) USHMEM_GENERIC(iget, __VA_ARGS__)
#define shmem_ibput(...) USHMEM_GENERIC(ibput, __VA_ARGS__)
#define shmem_ibget(...) USHMEM_GENERIC(ibget, __VA_ARGS__)
#endif

#endif /* USHMEM_C_RMA_H */
