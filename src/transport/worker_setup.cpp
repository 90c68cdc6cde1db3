// transport/worker_setup.cpp: the workers the core creates (the main one, contexts' own) with
// ushmem's message handlers on them and, on a context's own, its acknowledgement stream. Above
// both worker.cpp (new_worker) and am/ (set_handlers, the streams), which never call up here.
#include "transport/worker.hpp"

#include "transport/am/internal.hpp"
#include "transport/internal.hpp"

namespace ushmem::transport {

bool create_worker(bool thread_multiple, std::string &err) {
    detail::shared.main_efd.store(-2);
    detail::shared.main_multi = thread_multiple;
    detail::shared.main_worker = new_worker(thread_multiple      ? UCS_THREAD_MODE_MULTI
                          : detail::shared.main_shared ? UCS_THREAD_MODE_SERIALIZED
                                                : UCS_THREAD_MODE_SINGLE,
                          err);
    if (!detail::shared.main_worker) return false;
    ucs_status_t st = am::set_handlers(detail::shared.main_worker, nullptr);
    if (st != UCS_OK) {
        err = std::string("ucp_worker_set_am_recv_handler: ") + ucs_status_string(st);
        ucp_worker_destroy(detail::shared.main_worker);
        detail::shared.main_worker = nullptr;
        return false;
    }
    return true;
}

ucp_worker_h create_extra_worker(bool multi_thread, std::atomic<std::uint64_t> *acks_done, std::uint32_t &stream,
                                 std::string &err) {
    // SERIALIZED, not SINGLE: a context's owner may be one thread at a time, not always the same.
    ucp_worker_h w = new_worker(multi_thread ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SERIALIZED, err);
    if (!w) return nullptr;
    if (ucs_status_t st = am::set_handlers(w, acks_done); st != UCS_OK) {
        err = std::string("ucp_worker_set_am_recv_handler: ") + ucs_status_string(st);
        ucp_worker_destroy(w);
        return nullptr;
    }
    stream = am::register_ack_stream(acks_done, w);
    return w;
}

void destroy_extra_worker(ucp_worker_h w, std::uint32_t stream) {
    am::unregister_ack_stream(stream);  // first: the main worker's handler may signal `w` until then
    if (w) ucp_worker_destroy(w);
}

} // namespace ushmem::transport
