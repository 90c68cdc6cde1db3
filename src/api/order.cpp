// Memory ordering routines and the world barriers.
#include "api/api.hpp"

using namespace ushmem;
using ushmem::api::rt;

USHMEM_DEF(void, shmem_fence, (void)) {
    core::check_running("shmem_fence");
    core::fence("shmem_fence", rt.default_ctx);
}

USHMEM_DEF(void, shmem_ctx_fence, (shmem_ctx_t ctx)) {
    core::check_running("shmem_ctx_fence");
    core::fence("shmem_ctx_fence", api::ctx_of("shmem_ctx_fence", ctx));
}

USHMEM_DEF(void, shmem_quiet, (void)) {
    core::check_running("shmem_quiet");
    core::quiet("shmem_quiet", rt.default_ctx);
}

USHMEM_DEF(void, shmem_ctx_quiet, (shmem_ctx_t ctx)) {
    core::check_running("shmem_ctx_quiet");
    core::quiet("shmem_ctx_quiet", api::ctx_of("shmem_ctx_quiet", ctx));
}

USHMEM_DEF(void, shmem_pe_quiet, (int pe)) {
    core::check_running("shmem_pe_quiet");
    core::check_pe("shmem_pe_quiet", pe);
    core::pe_quiet("shmem_pe_quiet", rt.default_ctx, pe);
}

USHMEM_DEF(void, shmem_ctx_pe_quiet, (shmem_ctx_t ctx, int pe)) {
    core::check_running("shmem_ctx_pe_quiet");
    core::check_pe("shmem_ctx_pe_quiet", pe);
    core::pe_quiet("shmem_ctx_pe_quiet", api::ctx_of("shmem_ctx_pe_quiet", ctx), pe);
}

USHMEM_DEF(void, shmem_barrier_all, (void)) {
    core::check_running("shmem_barrier_all");
    core::barrier_all("shmem_barrier_all", true);
}

USHMEM_DEF(void, shmem_sync_all, (void)) {
    core::check_running("shmem_sync_all");
    core::barrier_all("shmem_sync_all", false);
}
