// transport/endpoint.cpp: ucp_ep_create (and UCX's peer-failure callback), rkeys, closing.
#include "transport/endpoint.hpp"

#include "transport/internal.hpp"

namespace ushmem::transport {

namespace {
void on_ep_error(void *arg, ucp_ep_h, ucs_status_t status) {
    // Runs inside ucp_worker_progress on whichever thread drives the worker.
    if (peer_failure_handler h = detail::shared.peer_failure.load(std::memory_order_acquire))
        h(int(reinterpret_cast<std::intptr_t>(arg)), status);
}
} // namespace

void set_peer_failure_handler(peer_failure_handler handler) {
    detail::shared.peer_failure.store(handler, std::memory_order_release);
}

void mute_peer_failures() { detail::shared.peer_failure.store(nullptr, std::memory_order_release); }

ucp_ep_h connect(ucp_worker_h w, const std::uint8_t *worker_addr, int peer_id, bool detect_failure,
                 std::string &err) {
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = reinterpret_cast<const ucp_address_t *>(worker_addr);
    if (detect_failure && detail::shared.peer_failure.load(std::memory_order_relaxed)) {
        ep.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
        ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        ep.err_handler.cb = on_ep_error;
        ep.err_handler.arg = reinterpret_cast<void *>(std::intptr_t(peer_id));
    }
    ucp_ep_h h = nullptr;
    drive d(w);
    ucs_status_t st = ucp_ep_create(w, &ep, &h);
    if (st != UCS_OK) {
        err = std::string("ucp_ep_create: ") + ucs_status_string(st);
        return nullptr;
    }
    return h;
}

ucp_rkey_h unpack_rkey(ucp_ep_h ep, const std::uint8_t *packed, std::string &err) {
    ucp_rkey_h rkey = nullptr;
    // (rkeys belong to the context, but unpacking reads the endpoint's configuration)
    drive d(detail::shared.main_worker);
    ucs_status_t st = ucp_ep_rkey_unpack(ep, packed, &rkey);
    if (st != UCS_OK) {
        err = std::string("ucp_ep_rkey_unpack: ") + ucs_status_string(st);
        return nullptr;
    }
    return rkey;
}

void *rkey_ptr(ucp_rkey_h rkey, std::uint64_t remote_addr) {
    void *p = nullptr;
    return ucp_rkey_ptr(rkey, remote_addr, &p) == UCS_OK ? p : nullptr;
}

void destroy_rkey(ucp_rkey_h rkey) {
    drive d(detail::shared.main_worker);
    if (rkey) ucp_rkey_destroy(rkey);
}

void print_ep_info(ucp_ep_h ep, FILE *f) {
    drive d(detail::shared.main_worker);
    ucp_ep_print_info(ep, f);
}
void close_endpoints(std::vector<ucp_ep_h> &eps, ucp_worker_h w, long flush_grace_ns) {
    std::vector<void *> reqs;
    // First a flush of each, while every peer still progresses (finalize: before the barrier
    // after which workers go). It completes an endpoint's wireup too: an endpoint created late
    // (in the final barrier) may still await its peer's wireup reply, and the peer, once its
    // reply is queued, may go through that barrier and destroy its worker before the reply's
    // connection is made. UCX 1.13 then fails the connection, and purging the queued reply trips
    // an assertion that aborts the PE at exit (1 run in 68 of a two-host job that only calls
    // shmem_init and shmem_finalize). Errors (a peer already gone) are the force close's business.
    // The flushes wait at most `flush_grace_ns` in all: a peer that no longer answers (stopped,
    // hung) would otherwise hold the caller forever, and a flush has nothing of the caller's to
    // deliver (its quiet completed every operation). One still unfinished is released (UCP frees
    // it when the force close below purges it).
    for (ucp_ep_h ep : eps) {
        if (!ep) continue;
        ucp_request_param_t prm{};
        void *r = ep_flush_nbx(w, ep, &prm);
        if (UCS_PTR_IS_PTR(r)) reqs.push_back(r);
    }
    const long deadline = now_nanos() + flush_grace_ns;
    bool late = false;
    for (void *r : reqs) {
        if (!late) late = drive_request(r, w, deadline) == UCS_INPROGRESS;
        request_free(w, r);
    }
    reqs.clear();
    for (ucp_ep_h &ep : eps) {
        if (!ep) continue;
        ucp_request_param_t prm{};
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
        // Force mode: everything was flushed by the final quiet and the peers passed a barrier
        // after it, so no operation is in flight; force does not need the peer to answer, which
        // matters when the peer is already tearing down.
        void *r;
        {
            drive d(w);
            r = ucp_ep_close_nbx(ep, &prm);
        }
        if (UCS_PTR_IS_PTR(r)) reqs.push_back(r);
        ep = nullptr;
    }
    for (void *r : reqs) wait_and_free(r, w);
}

} // namespace ushmem::transport
