// Memory ordering routines and the world barriers.
#include "api/api.hpp"
#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/log.hpp"
#include "core/ordering.hpp"
#include "core/runtime.hpp"

using namespace ushmem;
using ushmem::api::rt;

USHMEM_DEF(void, shmem_fence, (void)) {
    core::check_running("shmem_fence");
    core::fence("shmem_fence", rt.default_ctx);
}

USHMEM_DEF(void, shmem_ctx_fence, (shmem_ctx_t ctx)) {
    core::check_running("shmem_ctx_fence");
    if (ctx == SHMEM_CTX_INVALID) return;  // specified as no operation
    core::fence("shmem_ctx_fence", api::ctx_of("shmem_ctx_fence", ctx));
}

namespace {
// Quiet with statistics on, timed. Out of line, so that shmem_quiet keeps no stack frame when
// statistics are off: the cost is then one predictable branch.
[[gnu::noinline, gnu::cold]] void quiet_timed(const char *r, core::context &c) {
    core::stats::timed t(core::stats::t_quiet);
    const std::uint64_t issued = core::stats::writes_issued();  // shmemx_pcntr_get_completed_write
    core::quiet(r, c);
    core::stats::writes_completed_upto(issued);
}
} // namespace

USHMEM_DEF(void, shmem_quiet, (void)) {
    core::check_running("shmem_quiet");
    if (USHMEM_UNLIKELY(core::stats::enabled)) return quiet_timed("shmem_quiet", rt.default_ctx);
    core::quiet("shmem_quiet", rt.default_ctx);
}

USHMEM_DEF(void, shmem_ctx_quiet, (shmem_ctx_t ctx)) {
    core::check_running("shmem_ctx_quiet");
    if (ctx == SHMEM_CTX_INVALID) return;  // specified as no operation
    core::context &c = api::ctx_of("shmem_ctx_quiet", ctx);
    if (USHMEM_UNLIKELY(core::stats::enabled)) return quiet_timed("shmem_ctx_quiet", c);
    core::quiet("shmem_ctx_quiet", c);
}

namespace {
// OpenSHMEM 1.6 pe_quiet: completion for a set of PEs only (numbered in the context's team).
void pe_quiet_set(const char *r, core::context &c, const int *pes, size_t n) {
    core::check_running(r);
    if (n && !pes) core::fatal(r, "target_pes is NULL but npes is %zu", n);
    for (size_t i = 0; i < n; ++i) {
        int pe = api::ctx_pe(r, c, pes[i]);
        core::check_pe(r, pe);
        core::pe_quiet(r, c, pe);
    }
}
} // namespace

USHMEM_DEF(void, shmem_pe_quiet, (const int *target_pes, size_t npes)) {
    pe_quiet_set("shmem_pe_quiet", rt.default_ctx, target_pes, npes);
}

USHMEM_DEF(void, shmem_ctx_pe_quiet, (shmem_ctx_t ctx, const int *target_pes, size_t npes)) {
    pe_quiet_set("shmem_ctx_pe_quiet", api::ctx_of("shmem_ctx_pe_quiet", ctx), target_pes, npes);
}

USHMEM_DEF(void, shmem_barrier_all, (void)) {
    core::check_running("shmem_barrier_all");
    core::stats::timed t(core::stats::t_coll);
    // Only with statistics on (shmemx_pcntr_get_completed_write): the barrier quiets first.
    const std::uint64_t issued = USHMEM_UNLIKELY(core::stats::enabled) ? core::stats::writes_issued() : 0;
    // The quiet first, outside the rpc_point: remote procedure calls run in the barrier's wait, not
    // inside the quiet (transport/am/rpc.hpp).
    core::quiet("shmem_barrier_all", rt.default_ctx);
    const transport::rpc_point rpcs;
    core::barrier_all("shmem_barrier_all", false);
    if (issued) core::stats::writes_completed_upto(issued);
}

USHMEM_DEF(void, shmem_sync_all, (void)) {
    core::check_running("shmem_sync_all");
    core::stats::timed t(core::stats::t_coll);
    const transport::rpc_point rpcs;
    core::barrier_all("shmem_sync_all", false);
}
