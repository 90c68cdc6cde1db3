// Library setup, exit and query routines; the predefined handles.
#include "api/api.hpp"
#include "core/info.hpp"

#include <shmemx.h>

#include "bootstrap/bootstrap.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "core/runtime.hpp"
#include "util/lazy_array.hpp"

#include <cstdio>
#include <cstring>
#include <string_view>

using namespace ushmem;
using ushmem::api::rt;

// The default context is the runtime's own completion state; constant-initialised, so it is
// valid before any constructor runs.
USHMEM_EXPORT ushmem_ctx ushmem_ctx_default_ = {&ushmem::core::rt.default_ctx};

// The predefined team handles are in api/team.cpp.

USHMEM_DEF(void, shmem_init, (void)) { core::init("shmem_init", nullptr, SHMEM_THREAD_SINGLE); }

USHMEM_DEF(int, shmem_init_thread, (int requested, int *provided)) {
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        std::fprintf(stderr, "ushmem: shmem_init_thread (PE ? of ?): requested thread level %d is "
                             "invalid; use SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE\n",
                     requested);
        return -1;
    }
    int got = core::init("shmem_init_thread", nullptr, requested);
    if (provided) *provided = got;
    return 0;
}

USHMEM_DEF(void, shmemx_init_comm, (const void *mpi_comm)) {
    core::init("shmemx_init_comm", mpi_comm, SHMEM_THREAD_SINGLE);
}

USHMEM_DEF(void, shmem_query_thread, (int *provided)) {
    core::check_running("shmem_query_thread");
    if (provided) *provided = rt.thread_level;
}

USHMEM_DEF(void, shmem_finalize, (void)) { core::finalize("shmem_finalize"); }

USHMEM_DEF(void, shmem_query_initialized, (int *initialized)) {
    if (initialized) *initialized = rt.state == core::lib_state::running ? 1 : 0;
}

USHMEM_DEF(int, shmem_my_pe, (void)) {
    core::check_running("shmem_my_pe");
    return rt.me;
}

USHMEM_DEF(int, shmem_n_pes, (void)) {
    core::check_running("shmem_n_pes");
    return rt.npes;
}

USHMEM_DEF(void, shmem_global_exit, (int status)) {
    std::fflush(stdout);
    std::fflush(stderr);
    bootstrap::abort_job(status);
}

USHMEM_DEF(int, shmem_pe_accessible, (int pe)) {
    core::check_running("shmem_pe_accessible");
    return pe >= 0 && pe < rt.npes;
}

USHMEM_DEF(int, shmem_addr_accessible, (const void *addr, int pe)) {
    core::check_running("shmem_addr_accessible");
    core::seg_id s;
    std::size_t off;
    return pe >= 0 && pe < rt.npes && core::locate(addr, 1, s, off);
}

USHMEM_DEF(void *, shmem_ptr, (const void *dest, int pe)) {
    core::check_running("shmem_ptr");
    core::check_pe("shmem_ptr", pe);
    return core::direct_pointer(dest, pe);
}

USHMEM_DEF(void, shmem_info_get_version, (int *major, int *minor)) {
    if (major) *major = SHMEM_MAJOR_VERSION;
    if (minor) *minor = SHMEM_MINOR_VERSION;
}

USHMEM_DEF(void, shmem_info_get_name, (char *name)) {
    if (!name) return;
    std::strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}

// Profiling control: accepted and ignored until statistics exist (tooling issue).
USHMEM_DEF(void, shmem_pcontrol, (int level, ...)) { (void)level; }

USHMEM_DEF(void, start_pes, (int npes)) {
    (void)npes;  // the job size is mpirun's; the argument is ignored as the specification allows
    core::init("start_pes", nullptr, SHMEM_THREAD_SINGLE);
}

USHMEM_DEF(int, _my_pe, (void)) {
    core::check_running("_my_pe");
    return rt.me;
}

USHMEM_DEF(int, _num_pes, (void)) {
    core::check_running("_num_pes");
    return rt.npes;
}

USHMEM_DEF(int, shmemx_pe_is_direct, (int pe)) {
    core::check_running("shmemx_pe_is_direct");
    core::check_pe("shmemx_pe_is_direct", pe);
    return core::direct_pointer(reinterpret_cast<void *>(rt.seg[core::seg_heap].base), pe) != nullptr;
}

USHMEM_DEF(int, shmemx_progress_thread_running, (void)) {
    core::check_running("shmemx_progress_thread_running");
    return rt.progress_thread ? 1 : 0;
}

USHMEM_DEF(size_t, shmemx_heap_page_size, (void)) {
    core::check_running("shmemx_heap_page_size");
    return rt.seg[core::seg_heap].page_size;
}

USHMEM_DEF(void, shmemx_peer_tables, (size_t *committed, size_t *reserved)) {
    // Every lazy array alive (util/lazy_array.hpp): the core's and the transport's per-PE tables.
    const util::lazy_totals t = util::lazy_arrays_committed();
    if (committed) *committed = t.committed;
    if (reserved) *reserved = t.reserved;
}

namespace {
// Copies `text` into buf (at most len bytes with the NUL) and returns its whole length.
std::size_t copy_out(const std::string_view text, char *buf, std::size_t len) {
    if (buf && len) {
        std::size_t n = text.size() < len ? text.size() : len - 1;
        std::memcpy(buf, text.data(), n);
        buf[n] = '\0';
    }
    return text.size();
}
} // namespace

USHMEM_DEF(size_t, shmemx_info, (int json, int header, char *buf, size_t len)) {
    core::check_running("shmemx_info");
    return copy_out(core::info_report("shmemx_info", json != 0, header != 0), buf, len);
}

// Not checked for a running library: the last error may be one of shmem_init's or a routine's
// called after shmem_finalize.
USHMEM_DEF(size_t, shmemx_last_error, (char *buf, size_t len)) { return copy_out(core::last_error(), buf, len); }
