// Sandia OpenSHMEM's shmemx_ names (include/shmemx.h): programs written for SOS call routines that
// OpenSHMEM 1.5/1.6 standardised by their extension names. Each forwards to the 1.6 routine under
// its public name (so that a profiling tool's shmem_X wrapper sees the call as well), generated
// from the same type tables. Plus SOS's shmemx_wtime and its performance counters, read from the
// statistics of core/stats.
#include <shmemx.h>

#include "api/api.hpp"
#include "core/clock.hpp"
#include "core/context.hpp"
#include "core/runtime.hpp"
#include "core/stats.hpp"

#include <algorithm>

using namespace ushmem;
using ushmem::api::rt;

#define DEF_SOS_IB(T, N, _)                                                                         \
    USHMEM_DEF(void, shmemx_##N##_ibput,                                                            \
               (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)) {   \
        shmem_##N##_ibput(d, s, dst, sst, b, nb, pe);                                               \
    }                                                                                               \
    USHMEM_DEF(void, shmemx_ctx_##N##_ibput,                                                        \
               (shmem_ctx_t c, T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,          \
                size_t nb, int pe)) {                                                               \
        shmem_ctx_##N##_ibput(c, d, s, dst, sst, b, nb, pe);                                        \
    }                                                                                               \
    USHMEM_DEF(void, shmemx_##N##_ibget,                                                            \
               (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)) {   \
        shmem_##N##_ibget(d, s, dst, sst, b, nb, pe);                                               \
    }                                                                                               \
    USHMEM_DEF(void, shmemx_ctx_##N##_ibget,                                                        \
               (shmem_ctx_t c, T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,          \
                size_t nb, int pe)) {                                                               \
        shmem_ctx_##N##_ibget(c, d, s, dst, sst, b, nb, pe);                                        \
    }
USHMEM_RMA_TYPES(DEF_SOS_IB, _)

#define DEF_SOS_IB_SIZED(BITS, BYTES, _)                                                            \
    USHMEM_DEF(void, shmemx_ibput##BITS,                                                            \
               (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)) { \
        shmem_ibput##BITS(d, s, dst, sst, b, nb, pe);                                               \
    }                                                                                               \
    USHMEM_DEF(void, shmemx_ctx_ibput##BITS,                                                        \
               (shmem_ctx_t c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,     \
                size_t nb, int pe)) {                                                               \
        shmem_ctx_ibput##BITS(c, d, s, dst, sst, b, nb, pe);                                        \
    }                                                                                               \
    USHMEM_DEF(void, shmemx_ibget##BITS,                                                            \
               (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)) { \
        shmem_ibget##BITS(d, s, dst, sst, b, nb, pe);                                               \
    }                                                                                               \
    USHMEM_DEF(void, shmemx_ctx_ibget##BITS,                                                        \
               (shmem_ctx_t c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,     \
                size_t nb, int pe)) {                                                               \
        shmem_ctx_ibget##BITS(c, d, s, dst, sst, b, nb, pe);                                        \
    }
USHMEM_RMA_SIZES(DEF_SOS_IB_SIZED, _)

#define DEF_SOS_SCAN(T, N, SUFFIX)                                                                  \
    USHMEM_DEF(int, shmemx_##N##SUFFIX, (shmem_team_t t, T * d, const T *s, size_t n)) {           \
        return shmem_##N##SUFFIX(t, d, s, n);                                                       \
    }
USHMEM_REDUCE_ARITH_TYPES(DEF_SOS_SCAN, _sum_inscan)
USHMEM_REDUCE_ARITH_TYPES(DEF_SOS_SCAN, _sum_exscan)

USHMEM_DEF(void, shmemx_signal_add, (uint64_t * sig_addr, uint64_t signal, int pe)) {
    shmem_signal_add(sig_addr, signal, pe);
}
USHMEM_DEF(void, shmemx_ctx_signal_add, (shmem_ctx_t c, uint64_t *sig_addr, uint64_t signal, int pe)) {
    shmem_ctx_signal_add(c, sig_addr, signal, pe);
}
USHMEM_DEF(void, shmemx_signal_set, (uint64_t * sig_addr, uint64_t signal, int pe)) {
    shmem_signal_set(sig_addr, signal, pe);
}
USHMEM_DEF(void, shmemx_ctx_signal_set, (shmem_ctx_t c, uint64_t *sig_addr, uint64_t signal, int pe)) {
    shmem_ctx_signal_set(c, sig_addr, signal, pe);
}
USHMEM_DEF(void, shmemx_query_initialized, (int *initialized)) { shmem_query_initialized(initialized); }

USHMEM_DEF(double, shmemx_wtime, (void)) { return core::now_seconds(); }

// ---- Performance counters ----
namespace {
// Gets and fetching atomics on `c` whose reply has not arrived (counted with or without
// statistics; see core::context::replies).
std::uint64_t reads_in_flight(core::context &c) {
    std::uint64_t n = 0;
    for (int pe = 0; pe < rt.npes; ++pe) {
        const std::uint64_t done = c.reply_done(pe).load(std::memory_order_acquire);
        const std::uint64_t issued = c.reply_issued(pe).load(std::memory_order_relaxed);
        n += issued > done ? issued - done : 0;
    }
    return n;
}

void counters(const char *r, shmem_ctx_t ctx, shmemx_pcntr_t &p) {
    core::check_running(r);
    core::context &c = api::ctx_of(r, ctx);
    p = shmemx_pcntr_t{};
    if (!core::stats::enabled) return;  // documented: every counter reads 0
    const std::uint64_t writes = core::stats::writes_issued(), reads = core::stats::reads_issued();
    const std::uint64_t wdone = std::min(core::stats::writes_completed(), writes);
    const std::uint64_t inflight = std::min(reads_in_flight(c), reads);
    p.completed_put = wdone;
    p.pending_put = writes - wdone;
    p.completed_get = reads - inflight;
    p.pending_get = inflight;
    p.target = 0;
}
} // namespace

USHMEM_DEF(void, shmemx_pcntr_get_issued_write, (shmem_ctx_t ctx, uint64_t *v)) {
    shmemx_pcntr_t p;
    counters("shmemx_pcntr_get_issued_write", ctx, p);
    if (v) *v = p.completed_put + p.pending_put;
}
USHMEM_DEF(void, shmemx_pcntr_get_issued_read, (shmem_ctx_t ctx, uint64_t *v)) {
    shmemx_pcntr_t p;
    counters("shmemx_pcntr_get_issued_read", ctx, p);
    if (v) *v = p.completed_get + p.pending_get;
}
USHMEM_DEF(void, shmemx_pcntr_get_completed_write, (shmem_ctx_t ctx, uint64_t *v)) {
    shmemx_pcntr_t p;
    counters("shmemx_pcntr_get_completed_write", ctx, p);
    if (v) *v = p.completed_put;
}
USHMEM_DEF(void, shmemx_pcntr_get_completed_read, (shmem_ctx_t ctx, uint64_t *v)) {
    shmemx_pcntr_t p;
    counters("shmemx_pcntr_get_completed_read", ctx, p);
    if (v) *v = p.completed_get;
}
USHMEM_DEF(void, shmemx_pcntr_get_completed_target, (uint64_t * v)) {
    core::check_running("shmemx_pcntr_get_completed_target");
    if (v) *v = 0;  // one-sided transfers are not seen by their target (include/shmemx.h)
}
USHMEM_DEF(void, shmemx_pcntr_get_all, (shmem_ctx_t ctx, shmemx_pcntr_t *pcntr)) {
    shmemx_pcntr_t p;
    counters("shmemx_pcntr_get_all", ctx, p);
    if (pcntr) *pcntr = p;
}
