// RMA entry points, generated from the type tables in <ushmem/c/types.h>.
#include "api/api.hpp"
#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"

using namespace ushmem;
using ushmem::api::rt;

namespace ushmem::api {
void fail_null_local(const char *r, const char *what, std::size_t n, int pe) {
    core::fatal(r, "the local %s buffer is NULL with %zu bytes to transfer (target PE %d); pass a "
                   "buffer of at least that many bytes (NULL is allowed only with a count of 0)",
                what, n, pe);
}

namespace {

// SHMEM_DEBUG: a put or get between two overlapping ranges of this PE's own memory (to or from
// itself), whose copy has no defined result. `remote` is the symmetric address (here, local too).
void check_self_overlap(const char *r, const void *remote, const void *local, std::size_t n, bool put) {
    const auto a = reinterpret_cast<std::uintptr_t>(remote), b = reinterpret_cast<std::uintptr_t>(local);
    if (a < b + n && b < a + n)
        core::fatal(r, "%s [%p, %p) and %s [%p, %p) overlap (a %s to this PE itself, %zu bytes): "
                       "an overlapping copy has no defined result; use separate buffers (or memmove "
                       "for a local copy) (checked because SHMEM_DEBUG is set)",
                    put ? "the source" : "the destination", local, static_cast<const char *>(local) + n,
                    put ? "the destination" : "the source", remote, static_cast<const char *>(remote) + n,
                    put ? "put" : "get", n);
}
} // namespace

void put_full(const char *r, core::context &c, void *d, const void *s, std::size_t nelems,
              std::size_t elem, int pe, bool nbi) {
    core::check_running(r);
    core::stats::check_pe_and_count(r, pe, nbi ? core::stats::k_put_nbi : core::stats::k_put, nelems * elem);
    const std::size_t n = bytes_of(r, nelems, elem);
    check_local(r, "source", s, n, pe);
    // (SHMEM_DEBUG sends every call here: core/fast_path.hpp.)
    if (USHMEM_UNLIKELY(rt.cfg.debug) && pe == rt.me && n) check_self_overlap(r, d, s, n, true);
    core::put(r, c, d, s, n, pe, nbi);
}

void get_full(const char *r, core::context &c, void *d, const void *s, std::size_t nelems,
              std::size_t elem, int pe, bool nbi) {
    core::check_running(r);
    core::stats::check_pe_and_count(r, pe, nbi ? core::stats::k_get_nbi : core::stats::k_get, nelems * elem);
    const std::size_t n = bytes_of(r, nelems, elem);
    check_local(r, "destination", d, n, pe);
    if (USHMEM_UNLIKELY(rt.cfg.debug) && pe == rt.me && n) check_self_overlap(r, s, d, n, false);
    core::get(r, c, d, s, n, pe, nbi);
}
} // namespace ushmem::api

#define DEF_RMA_TYPED(T, N, _)                                                                    \
    USHMEM_DEF(void, shmem_##N##_put, (T * d, const T *s, size_t n, int pe)) {                    \
        api::fast_put("shmem_" #N "_put", rt.default_ctx, d, s, n, sizeof(T), pe, false);              \
    }                                                                                             \
    USHMEM_DEF(void, shmem_ctx_##N##_put, (shmem_ctx_t c, T * d, const T *s, size_t n, int pe)) { \
        const char *r = "shmem_ctx_" #N "_put";                                                   \
        core::context &cc = api::ctx_of(r, c);                                                    \
        api::fast_put(r, cc, d, s, n, sizeof(T), api::ctx_pe(r, cc, pe), false);                       \
    }                                                                                             \
    USHMEM_DEF(void, shmem_##N##_put_nbi, (T * d, const T *s, size_t n, int pe)) {                \
        api::fast_put("shmem_" #N "_put_nbi", rt.default_ctx, d, s, n, sizeof(T), pe, true);           \
    }                                                                                             \
    USHMEM_DEF(void, shmem_ctx_##N##_put_nbi,                                                     \
               (shmem_ctx_t c, T * d, const T *s, size_t n, int pe)) {                            \
        const char *r = "shmem_ctx_" #N "_put_nbi";                                               \
        core::context &cc = api::ctx_of(r, c);                                                    \
        api::fast_put(r, cc, d, s, n, sizeof(T), api::ctx_pe(r, cc, pe), true);                        \
    }                                                                                             \
    USHMEM_DEF(void, shmem_##N##_get, (T * d, const T *s, size_t n, int pe)) {                    \
        api::fast_get("shmem_" #N "_get", rt.default_ctx, d, s, n, sizeof(T), pe, false);              \
    }                                                                                             \
    USHMEM_DEF(void, shmem_ctx_##N##_get, (shmem_ctx_t c, T * d, const T *s, size_t n, int pe)) { \
        const char *r = "shmem_ctx_" #N "_get";                                                   \
        core::context &cc = api::ctx_of(r, c);                                                    \
        api::fast_get(r, cc, d, s, n, sizeof(T), api::ctx_pe(r, cc, pe), false);                       \
    }                                                                                             \
    USHMEM_DEF(void, shmem_##N##_get_nbi, (T * d, const T *s, size_t n, int pe)) {                \
        api::fast_get("shmem_" #N "_get_nbi", rt.default_ctx, d, s, n, sizeof(T), pe, true);           \
    }                                                                                             \
    USHMEM_DEF(void, shmem_ctx_##N##_get_nbi,                                                     \
               (shmem_ctx_t c, T * d, const T *s, size_t n, int pe)) {                            \
        const char *r = "shmem_ctx_" #N "_get_nbi";                                               \
        core::context &cc = api::ctx_of(r, c);                                                    \
        api::fast_get(r, cc, d, s, n, sizeof(T), api::ctx_pe(r, cc, pe), true);                        \
    }                                                                                             \
    USHMEM_DEF(void, shmem_##N##_p, (T * d, T v, int pe)) {                                       \
        api::p("shmem_" #N "_p", rt.default_ctx, d, v, pe);                                       \
    }                                                                                             \
    USHMEM_DEF(void, shmem_ctx_##N##_p, (shmem_ctx_t c, T * d, T v, int pe)) {                    \
        const char *r = "shmem_ctx_" #N "_p";                                                     \
        core::context &cc = api::ctx_of(r, c);                                                    \
        api::p(r, cc, d, v, api::ctx_pe(r, cc, pe));                                              \
    }                                                                                             \
    USHMEM_DEF(T, shmem_##N##_g, (const T *s, int pe)) {                                          \
        return api::g("shmem_" #N "_g", rt.default_ctx, s, pe);                                   \
    }                                                                                             \
    USHMEM_DEF(T, shmem_ctx_##N##_g, (shmem_ctx_t c, const T *s, int pe)) {                       \
        const char *r = "shmem_ctx_" #N "_g";                                                     \
        core::context &cc = api::ctx_of(r, c);                                                    \
        return api::g(r, cc, s, api::ctx_pe(r, cc, pe));                                          \
    }                                                                                             \
    USHMEM_DEF(void, shmem_##N##_iput,                                                            \
               (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)) {             \
        api::iput("shmem_" #N "_iput", rt.default_ctx, d, s, dst, sst, 1, n, sizeof(T), pe);      \
    }                                                                                             \
    USHMEM_DEF(void, shmem_ctx_##N##_iput,                                                        \
               (shmem_ctx_t c, T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n,         \
                int pe)) {                                                                        \
        const char *r = "shmem_ctx_" #N "_iput";                                                  \
        core::context &cc = api::ctx_of(r, c);                                                    \
        api::iput(r, cc, d, s, dst, sst, 1, n, sizeof(T), api::ctx_pe(r, cc, pe));                \
    }                                                                                             \
    USHMEM_DEF(void, shmem_##N##_iget,                                                            \
               (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)) {             \
        api::iget("shmem_" #N "_iget", rt.default_ctx, d, s, dst, sst, 1, n, sizeof(T), pe);      \
    }                                                                                             \
    USHMEM_DEF(void, shmem_ctx_##N##_iget,                                                        \
               (shmem_ctx_t c, T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n,         \
                int pe)) {                                                                        \
        const char *r = "shmem_ctx_" #N "_iget";                                                  \
        core::context &cc = api::ctx_of(r, c);                                                    \
        api::iget(r, cc, d, s, dst, sst, 1, n, sizeof(T), api::ctx_pe(r, cc, pe));                \
    }                                                                                             \
    USHMEM_DEF(void, shmem_##N##_ibput,                                                           \
               (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)) {  \
        api::iput("shmem_" #N "_ibput", rt.default_ctx, d, s, dst, sst, b, nb, sizeof(T), pe);    \
    }                                                                                             \
    USHMEM_DEF(void, shmem_ctx_##N##_ibput,                                                       \
               (shmem_ctx_t c, T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,         \
                size_t nb, int pe)) {                                                             \
        const char *r = "shmem_ctx_" #N "_ibput";                                                 \
        core::context &cc = api::ctx_of(r, c);                                                    \
        api::iput(r, cc, d, s, dst, sst, b, nb, sizeof(T), api::ctx_pe(r, cc, pe));               \
    }                                                                                             \
    USHMEM_DEF(void, shmem_##N##_ibget,                                                           \
               (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)) {  \
        api::iget("shmem_" #N "_ibget", rt.default_ctx, d, s, dst, sst, b, nb, sizeof(T), pe);    \
    }                                                                                             \
    USHMEM_DEF(void, shmem_ctx_##N##_ibget,                                                       \
               (shmem_ctx_t c, T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,         \
                size_t nb, int pe)) {                                                             \
        const char *r = "shmem_ctx_" #N "_ibget";                                                 \
        core::context &cc = api::ctx_of(r, c);                                                    \
        api::iget(r, cc, d, s, dst, sst, b, nb, sizeof(T), api::ctx_pe(r, cc, pe));               \
    }
USHMEM_RMA_TYPES(DEF_RMA_TYPED, _)

// Sized (BITS) and mem (8-bit) variants share one body: ELEM is the element size in bytes.
#define DEF_RMA_UNTYPED(SUFFIX, ELEM)                                                               \
    USHMEM_DEF(void, shmem_put##SUFFIX, (void *d, const void *s, size_t n, int pe)) {               \
        api::fast_put("shmem_put" #SUFFIX, rt.default_ctx, d, s, n, ELEM, pe, false);                    \
    }                                                                                               \
    USHMEM_DEF(void, shmem_ctx_put##SUFFIX, (shmem_ctx_t c, void *d, const void *s, size_t n,       \
                                             int pe)) {                                             \
        const char *r = "shmem_ctx_put" #SUFFIX;                                                    \
        core::context &cc = api::ctx_of(r, c);                                                      \
        api::fast_put(r, cc, d, s, n, ELEM, api::ctx_pe(r, cc, pe), false);                              \
    }                                                                                               \
    USHMEM_DEF(void, shmem_put##SUFFIX##_nbi, (void *d, const void *s, size_t n, int pe)) {         \
        api::fast_put("shmem_put" #SUFFIX "_nbi", rt.default_ctx, d, s, n, ELEM, pe, true);              \
    }                                                                                               \
    USHMEM_DEF(void, shmem_ctx_put##SUFFIX##_nbi, (shmem_ctx_t c, void *d, const void *s,           \
                                                   size_t n, int pe)) {                             \
        const char *r = "shmem_ctx_put" #SUFFIX "_nbi";                                             \
        core::context &cc = api::ctx_of(r, c);                                                      \
        api::fast_put(r, cc, d, s, n, ELEM, api::ctx_pe(r, cc, pe), true);                               \
    }                                                                                               \
    USHMEM_DEF(void, shmem_get##SUFFIX, (void *d, const void *s, size_t n, int pe)) {               \
        api::fast_get("shmem_get" #SUFFIX, rt.default_ctx, d, s, n, ELEM, pe, false);                    \
    }                                                                                               \
    USHMEM_DEF(void, shmem_ctx_get##SUFFIX, (shmem_ctx_t c, void *d, const void *s, size_t n,       \
                                             int pe)) {                                             \
        const char *r = "shmem_ctx_get" #SUFFIX;                                                    \
        core::context &cc = api::ctx_of(r, c);                                                      \
        api::fast_get(r, cc, d, s, n, ELEM, api::ctx_pe(r, cc, pe), false);                              \
    }                                                                                               \
    USHMEM_DEF(void, shmem_get##SUFFIX##_nbi, (void *d, const void *s, size_t n, int pe)) {         \
        api::fast_get("shmem_get" #SUFFIX "_nbi", rt.default_ctx, d, s, n, ELEM, pe, true);              \
    }                                                                                               \
    USHMEM_DEF(void, shmem_ctx_get##SUFFIX##_nbi, (shmem_ctx_t c, void *d, const void *s,           \
                                                   size_t n, int pe)) {                             \
        const char *r = "shmem_ctx_get" #SUFFIX "_nbi";                                             \
        core::context &cc = api::ctx_of(r, c);                                                      \
        api::fast_get(r, cc, d, s, n, ELEM, api::ctx_pe(r, cc, pe), true);                               \
    }
#define DEF_RMA_SIZED(BITS, BYTES, _)                                                               \
    DEF_RMA_UNTYPED(BITS, BYTES)                                                                    \
    USHMEM_DEF(void, shmem_iput##BITS, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,       \
                                        size_t n, int pe)) {                                        \
        api::iput("shmem_iput" #BITS, rt.default_ctx, d, s, dst, sst, 1, n, BYTES, pe);             \
    }                                                                                               \
    USHMEM_DEF(void, shmem_ctx_iput##BITS, (shmem_ctx_t c, void *d, const void *s, ptrdiff_t dst,   \
                                            ptrdiff_t sst, size_t n, int pe)) {                     \
        const char *r = "shmem_ctx_iput" #BITS;                                                     \
        core::context &cc = api::ctx_of(r, c);                                                      \
        api::iput(r, cc, d, s, dst, sst, 1, n, BYTES, api::ctx_pe(r, cc, pe));                      \
    }                                                                                               \
    USHMEM_DEF(void, shmem_iget##BITS, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,       \
                                        size_t n, int pe)) {                                        \
        api::iget("shmem_iget" #BITS, rt.default_ctx, d, s, dst, sst, 1, n, BYTES, pe);             \
    }                                                                                               \
    USHMEM_DEF(void, shmem_ctx_iget##BITS, (shmem_ctx_t c, void *d, const void *s, ptrdiff_t dst,   \
                                            ptrdiff_t sst, size_t n, int pe)) {                     \
        const char *r = "shmem_ctx_iget" #BITS;                                                     \
        core::context &cc = api::ctx_of(r, c);                                                      \
        api::iget(r, cc, d, s, dst, sst, 1, n, BYTES, api::ctx_pe(r, cc, pe));                      \
    }                                                                                               \
    USHMEM_DEF(void, shmem_ibput##BITS, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,      \
                                         size_t b, size_t nb, int pe)) {                            \
        api::iput("shmem_ibput" #BITS, rt.default_ctx, d, s, dst, sst, b, nb, BYTES, pe);           \
    }                                                                                               \
    USHMEM_DEF(void, shmem_ctx_ibput##BITS, (shmem_ctx_t c, void *d, const void *s, ptrdiff_t dst,  \
                                             ptrdiff_t sst, size_t b, size_t nb, int pe)) {         \
        const char *r = "shmem_ctx_ibput" #BITS;                                                    \
        core::context &cc = api::ctx_of(r, c);                                                      \
        api::iput(r, cc, d, s, dst, sst, b, nb, BYTES, api::ctx_pe(r, cc, pe));                     \
    }                                                                                               \
    USHMEM_DEF(void, shmem_ibget##BITS, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,      \
                                         size_t b, size_t nb, int pe)) {                            \
        api::iget("shmem_ibget" #BITS, rt.default_ctx, d, s, dst, sst, b, nb, BYTES, pe);           \
    }                                                                                               \
    USHMEM_DEF(void, shmem_ctx_ibget##BITS, (shmem_ctx_t c, void *d, const void *s, ptrdiff_t dst,  \
                                             ptrdiff_t sst, size_t b, size_t nb, int pe)) {         \
        const char *r = "shmem_ctx_ibget" #BITS;                                                    \
        core::context &cc = api::ctx_of(r, c);                                                      \
        api::iget(r, cc, d, s, dst, sst, b, nb, BYTES, api::ctx_pe(r, cc, pe));                     \
    }
USHMEM_RMA_SIZES(DEF_RMA_SIZED, _)
DEF_RMA_UNTYPED(mem, 1)
