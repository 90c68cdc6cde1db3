// Remote procedure calls (shmemx_rpc_*, include/shmemx.h): validate, then the core (core/rpc.hpp).
#include "api/api.hpp"
#include "core/rpc.hpp"

#include <shmemx.h>

#include <cstdlib>

using namespace ushmem;

static_assert(SHMEMX_RPC_OK == transport::rpc_ok && SHMEMX_RPC_THREW == transport::rpc_threw &&
                  SHMEMX_RPC_BAD_ARGS == transport::rpc_bad_args &&
                  SHMEMX_RPC_UNKNOWN_FUNCTION == transport::rpc_unknown_fn &&
                  SHMEMX_RPC_TARGET_GONE == transport::rpc_gone,
              "the C API's status codes are the wire's");

// Registration needs no running library: it happens during static initialization.
USHMEM_DEF(int, shmemx_rpc_register,
           (shmemx_rpc_trampoline fn, uint64_t signature, const char *name, const void *key)) {
    if (!fn) return -1;
    return core::rpc_register(fn, signature, name, key);
}

USHMEM_DEF(uint32_t, shmemx_rpc_id, (shmemx_rpc_trampoline fn)) {
    return core::rpc_id(reinterpret_cast<const void *>(fn), false);
}

USHMEM_DEF(uint32_t, shmemx_rpc_find, (const void *key)) { return key ? core::rpc_id(key, true) : UINT32_MAX; }

USHMEM_DEF(void, shmemx_rpc_send, (int pe, uint32_t fn_id, const void *args, size_t n, uint64_t *request)) {
    const char *r = "shmemx_rpc_send";
    core::check_running(r);
    core::check_pe(r, pe);
    api::check_local(r, "args", args, n, pe);
    const std::uint64_t id = core::rpc_send(r, pe, fn_id, args, n, request != nullptr);
    if (request) *request = id;
}

USHMEM_DEF(int, shmemx_rpc_test, (uint64_t request, void **reply, size_t *n, int *status)) {
    core::check_running("shmemx_rpc_test");
    return core::rpc_test(request, reply, n, status);
}

USHMEM_DEF(void, shmemx_rpc_cancel, (uint64_t request)) {
    if (core::rt.state == core::lib_state::running) core::rpc_cancel(request);
}

USHMEM_DEF(void, shmemx_rpc_free, (void *reply)) { std::free(reply); }

USHMEM_DEF(void, shmemx_progress, (void)) {
    core::check_running("shmemx_progress");
    core::rpc_progress();
}
