/* ushmem: OpenSHMEM 1.6 signaling operations: put-with-signal (typed, sized, mem; blocking and
 * nbi), signal add/set/fetch and signal_wait_until. Included by <shmem.h> after <ushmem/c/rma.h>,
 * whose C11 generic helpers it uses. The signal word is a symmetric uint64_t; sig_op is
 * SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD. */
#ifndef USHMEM_C_SIGNAL_H
#define USHMEM_C_SIGNAL_H

#include <stdint.h>
#include <ushmem/c/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define USHMEM_DECL_PUT_SIGNAL_TYPED(T, N, _)                                                      \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,      \
                                uint64_t signal, int sig_op, int pe);                             \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);     \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,  \
                                    uint64_t signal, int sig_op, int pe);                         \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
USHMEM_RMA_TYPES(USHMEM_DECL_PUT_SIGNAL_TYPED, _)
#undef USHMEM_DECL_PUT_SIGNAL_TYPED

#define USHMEM_DECL_PUT_SIGNAL_UNTYPED(SUFFIX)                                                      \
    void shmem_put##SUFFIX##_signal(void *dest, const void *source, size_t nelems,                 \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);      \
    void shmem_ctx_put##SUFFIX##_signal(shmem_ctx_t ctx, void *dest, const void *source,           \
                                        size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
                                        int sig_op, int pe);                                       \
    void shmem_put##SUFFIX##_signal_nbi(void *dest, const void *source, size_t nelems,             \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);  \
    void shmem_ctx_put##SUFFIX##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,       \
                                            size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                            int sig_op, int pe);
#define USHMEM_DECL_PUT_SIGNAL_SIZED(BITS, BYTES, _) USHMEM_DECL_PUT_SIGNAL_UNTYPED(BITS)
USHMEM_RMA_SIZES(USHMEM_DECL_PUT_SIGNAL_SIZED, _)
USHMEM_DECL_PUT_SIGNAL_UNTYPED(mem)
#undef USHMEM_DECL_PUT_SIGNAL_SIZED
#undef USHMEM_DECL_PUT_SIGNAL_UNTYPED

void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

#ifdef __cplusplus
} /* extern "C" */

#define USHMEM_CXX_PUT_SIGNAL(T, N, _)                                                             \
    inline void shmem_put_signal(T *d, const T *s, size_t n, uint64_t *sig, uint64_t signal,       \
                                 int op, int pe) {                                                 \
        shmem_##N##_put_signal(d, s, n, sig, signal, op, pe);                                      \
    }                                                                                              \
    inline void shmem_put_signal(shmem_ctx_t c, T *d, const T *s, size_t n, uint64_t *sig,         \
                                 uint64_t signal, int op, int pe) {                                \
        shmem_ctx_##N##_put_signal(c, d, s, n, sig, signal, op, pe);                               \
    }                                                                                              \
    inline void shmem_put_signal_nbi(T *d, const T *s, size_t n, uint64_t *sig, uint64_t signal,   \
                                     int op, int pe) {                                             \
        shmem_##N##_put_signal_nbi(d, s, n, sig, signal, op, pe);                                  \
    }                                                                                              \
    inline void shmem_put_signal_nbi(shmem_ctx_t c, T *d, const T *s, size_t n, uint64_t *sig,     \
                                     uint64_t signal, int op, int pe) {                            \
        shmem_ctx_##N##_put_signal_nbi(c, d, s, n, sig, signal, op, pe);                           \
    }
USHMEM_RMA_GENERIC_TYPES(USHMEM_CXX_PUT_SIGNAL, _)
#undef USHMEM_CXX_PUT_SIGNAL
inline void shmem_signal_add(shmem_ctx_t c, uint64_t *sig_addr, uint64_t signal, int pe) {
    shmem_ctx_signal_add(c, sig_addr, signal, pe);
}
inline void shmem_signal_set(shmem_ctx_t c, uint64_t *sig_addr, uint64_t signal, int pe) {
    shmem_ctx_signal_set(c, sig_addr, signal, pe);
}

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define shmem_put_signal(...) USHMEM_GENERIC(put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) USHMEM_GENERIC(put_signal_nbi, __VA_ARGS__)
/* shmem_signal_add/set(ctx, ...) is the C11 form of shmem_ctx_signal_add/set; without a context
 * the macro calls the function of the same name. */
#define shmem_signal_add(...)                                                                   \
    _Generic((USHMEM_GARG1(__VA_ARGS__, 0)), shmem_ctx_t: shmem_ctx_signal_add,                 \
             default: shmem_signal_add)(__VA_ARGS__)
#define shmem_signal_set(...)                                                                   \
    _Generic((USHMEM_GARG1(__VA_ARGS__, 0)), shmem_ctx_t: shmem_ctx_signal_set,                 \
             default: shmem_signal_set)(__VA_ARGS__)
#endif

#endif /* USHMEM_C_SIGNAL_H */
