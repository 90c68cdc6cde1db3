// Signaling operations: put-with-signal (typed, sized, mem; blocking and nbi), signal add/set/fetch.
#include "api/api.hpp"
#include "core/atomic.hpp"
#include "core/context.hpp"
#include "core/runtime.hpp"

using namespace ushmem;
using ushmem::api::rt;

namespace {
inline void do_put_signal(const char *r, core::context &c, void *d, const void *s, std::size_t nelems,
                       std::size_t elem, std::uint64_t *sig, std::uint64_t signal, int op, int pe,
                       bool nbi) {
    core::check_running(r);
    pe = api::ctx_pe(r, c, pe); // team contexts take team-relative PEs
    core::stats::check_pe_and_count(r, pe, core::stats::k_put_signal, nelems * elem);
    const std::size_t n = api::bytes_of(r, nelems, elem);
    api::check_local(r, "source", s, n, pe);
    core::put_signal(r, c, d, s, n, sig, signal, op, pe, nbi);
}
} // namespace

#define DEF_PUT_SIGNAL(NAME, CNAME, T, ELEM, NBI)                                                  \
    USHMEM_DEF(void, NAME, (T * d, const T *s, size_t n, uint64_t *sig, uint64_t signal, int op,  \
                            int pe)) {                                                             \
        do_put_signal(#NAME, rt.default_ctx, d, s, n, ELEM, sig, signal, op, pe, NBI);                \
    }                                                                                              \
    USHMEM_DEF(void, CNAME, (shmem_ctx_t c, T * d, const T *s, size_t n, uint64_t *sig,            \
                             uint64_t signal, int op, int pe)) {                                   \
        do_put_signal(#CNAME, api::ctx_of(#CNAME, c), d, s, n, ELEM, sig, signal, op, pe, NBI);       \
    }

#define DEF_PUT_SIGNAL_TYPED(T, N, _)                                                               \
    DEF_PUT_SIGNAL(shmem_##N##_put_signal, shmem_ctx_##N##_put_signal, T, sizeof(T), false)         \
    DEF_PUT_SIGNAL(shmem_##N##_put_signal_nbi, shmem_ctx_##N##_put_signal_nbi, T, sizeof(T), true)
USHMEM_RMA_TYPES(DEF_PUT_SIGNAL_TYPED, _)

#define DEF_PUT_SIGNAL_SIZED(BITS, BYTES, _)                                                         \
    DEF_PUT_SIGNAL(shmem_put##BITS##_signal, shmem_ctx_put##BITS##_signal, void, BYTES, false)      \
    DEF_PUT_SIGNAL(shmem_put##BITS##_signal_nbi, shmem_ctx_put##BITS##_signal_nbi, void, BYTES, true)
USHMEM_RMA_SIZES(DEF_PUT_SIGNAL_SIZED, _)
DEF_PUT_SIGNAL(shmem_putmem_signal, shmem_ctx_putmem_signal, void, 1, false)
DEF_PUT_SIGNAL(shmem_putmem_signal_nbi, shmem_ctx_putmem_signal_nbi, void, 1, true)

namespace {
inline void update_signal(const char *r, core::context &c, uint64_t *sig, uint64_t signal,
                          core::sig_op op, int pe) {
    core::check_running(r);
    pe = api::ctx_pe(r, c, pe); // team contexts take team-relative PEs
    core::stats::check_pe_and_count(r, pe, core::stats::k_signal, sizeof(uint64_t));
    core::signal_update(r, c, sig, signal, op, pe);
}
} // namespace

USHMEM_DEF(void, shmem_signal_add, (uint64_t * sig_addr, uint64_t signal, int pe)) {
    update_signal("shmem_signal_add", rt.default_ctx, sig_addr, signal, core::sig_op::add, pe);
}
USHMEM_DEF(void, shmem_ctx_signal_add, (shmem_ctx_t c, uint64_t *sig_addr, uint64_t signal, int pe)) {
    const char *r = "shmem_ctx_signal_add";
    update_signal(r, api::ctx_of(r, c), sig_addr, signal, core::sig_op::add, pe);
}
USHMEM_DEF(void, shmem_signal_set, (uint64_t * sig_addr, uint64_t signal, int pe)) {
    update_signal("shmem_signal_set", rt.default_ctx, sig_addr, signal, core::sig_op::set, pe);
}
USHMEM_DEF(void, shmem_ctx_signal_set, (shmem_ctx_t c, uint64_t *sig_addr, uint64_t signal, int pe)) {
    const char *r = "shmem_ctx_signal_set";
    update_signal(r, api::ctx_of(r, c), sig_addr, signal, core::sig_op::set, pe);
}
USHMEM_DEF(uint64_t, shmem_signal_fetch, (const uint64_t *sig_addr)) {
    const char *r = "shmem_signal_fetch";
    core::check_running(r);
    return core::signal_fetch(r, sig_addr);
}
USHMEM_DEF(uint64_t, shmem_signal_wait_until, (uint64_t * sig_addr, int cmp, uint64_t cmp_value)) {
    const transport::rpc_point rpcs;
    return core::wait_until_value<unsigned long>("shmem_signal_wait_until", sig_addr, cmp, cmp_value);
}
