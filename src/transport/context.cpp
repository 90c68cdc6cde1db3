// transport/context.cpp: the UCX context: ucp_init with ushmem's configuration, the lanes it
// offers (inspect_lanes), and stop_context().
#include "transport/context.hpp"

#include "transport/am/internal.hpp"
#include "transport/shared_state.hpp"
#include "util/text.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace ushmem::transport {

namespace {
ucp_context_h g_context = nullptr;
bool g_bulk_ordered = false;  // bulk_ordered()
lanes_info g_lanes;

// UCX prints its resources to a FILE; read them back (util::parse_ucx_resources) to learn which
// transports can do RMA one-sidedly. Only sysv/posix (on the node) and RDMA transports (across
// nodes) can: with tcp alone UCX emulates RMA with active messages that the target must progress.
void inspect_lanes() {
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    ucp_context_print_info(g_context, f);
    fclose(f);
    util::ucx_resources r = util::parse_ucx_resources(std::string_view(buf, len));
    free(buf);
    g_lanes.has_shared_memory_rma = r.shared_memory_rma;
    g_lanes.has_network_rdma = r.network_rdma;
    g_lanes.resources = r.names;
}
} // namespace

bool start_context(std::string &err) {
    ucp_config_t *config = nullptr;
    ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
    if (st != UCS_OK) {
        err = std::string("ucp_config_read: ") + ucs_status_string(st);
        return false;
    }
    // A worker in MULTI thread mode (SHMEM_THREAD_MULTIPLE, or a progress thread) is guarded by a
    // spinlock by default. With more threads than cores (a progress thread per PE, PEs sharing
    // cores) a thread preempted while holding it makes the others spin for a whole time slice: a
    // barrier over UCX_TLS=tcp at 4 PEs on 2 cores took ~4 ms instead of ~0.15 ms. A mutex puts
    // them to sleep instead. (SINGLE workers take no lock; the user's UCX_USE_MT_MUTEX wins.)
    if (!std::getenv("UCX_USE_MT_MUTEX")) ucp_config_modify(config, "USE_MT_MUTEX", "y");
    // Over tcp, RMA is emulated with active messages that UCX copies through its own segments, and
    // each segment is a send and a receive: with the default 8 KiB, a 1 MiB put moved 1.2 GB/s on
    // loopback (raw UCX, this machine) and large collectives trailed Open MPI's tcp BTL 4-25x;
    // 256 KiB segments moved 4.8 GB/s (ucx_perftest ucp_put_bw; 8 B latency unchanged). The
    // buffers come from per-interface pools (8 segments per growth step), not per endpoint.
    // The user's UCX_TCP_TX_SEG_SIZE / UCX_TCP_RX_SEG_SIZE win.
    if (!std::getenv("UCX_TCP_TX_SEG_SIZE")) ucp_config_modify(config, "TX_SEG_SIZE", "256k");
    if (!std::getenv("UCX_TCP_RX_SEG_SIZE")) ucp_config_modify(config, "RX_SEG_SIZE", "256k");
    // What ucp_mem_map(ALLOCATE) may fall back to when System V refuses a segment (the heap, the
    // static data): UCX's default list goes on to its posix transport, which creates a file in
    // /dev/shm and writes the whole size into it, 64 KiB at a time, to test that it fits: minutes
    // for a large heap, all of it committed, and the file stays behind if the job is killed
    // meanwhile (and when /dev/shm is smaller, it is filled before the allocation fails). Without
    // it (and without md:*, which names posix too) UCX goes on to private huge pages, THP and
    // anonymous memory instead, which leave nothing behind. The user's UCX_ALLOC_PRIO wins.
    if (!std::getenv("UCX_ALLOC_PRIO")) ucp_config_modify(config, "ALLOC_PRIO", "md:sysv,huge,thp,mmap,heap");
    // Bulk messages (bulk_nbx) are ordered with what follows them only if their fragments share
    // the active-message lane: more eager rails (UCX_MAX_EAGER_RAILS, 1 by default in 1.13) would
    // spread them over other connections, so the core does not use them then.
    const char *rails = std::getenv("UCX_MAX_EAGER_RAILS");
    g_bulk_ordered = !rails || std::strcmp(rails, "1") == 0;
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    // WAKEUP: the progress thread sleeps on the worker's event fd (serve()).
    // AM: signal messages (signal_nbx), where RMA is emulated anyway.
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP | UCP_FEATURE_AM;
    // Contexts created by the program may give threads their own workers on this UCX context.
    params.mt_workers_shared = 1;
    st = ucp_init(&params, config, &g_context);
    ucp_config_release(config);
    if (st != UCS_OK) {
        err = std::string("ucp_init: ") + ucs_status_string(st);
        return false;
    }
    // Without it, small messages take UCX's short path (am/message.cpp): slower, still correct.
    am::create_bytes_datatype(g_context);
    inspect_lanes();
    return true;
}

void stop_context() {
    if (detail::shared.main_worker) ucp_worker_destroy(detail::shared.main_worker);
    detail::shared.main_worker = nullptr;
    detail::shared.main_efd.store(-2);
    detail::shared.main_shared = false;
    if (detail::shared.kick_fd >= 0) close(detail::shared.kick_fd);  // (the thread is joined)
    detail::shared.kick_fd = -1;
    detail::shared.main_multi = false;
    if (g_context) ucp_cleanup(g_context);
    g_context = nullptr;
    am::release_ack_state();  // (sized by set_ack_handler, before the worker)
    am::destroy_bytes_datatype();
    g_lanes = lanes_info{};
    detail::shared.async_error.store(UCS_OK);
}

ucp_context_h context() { return g_context; }
const lanes_info &lanes() { return g_lanes; }
bool bulk_ordered() { return g_bulk_ordered; }

} // namespace ushmem::transport
