// transport/am/rpc.cpp: remote procedure calls on the wire (requests, replies, their handlers).
// The gate in front of the core's queued calls (run_rpcs_slow) is rpc_gate.cpp's.
#include "transport/am/rpc.hpp"

#include "transport/am/internal.hpp"
#include "transport/worker.hpp"

#include <cstdio>
#include <cstring>

namespace ushmem::transport {

using namespace am;

namespace {
rpc_request_handler g_request = nullptr;
rpc_reply_handler g_reply = nullptr;

const char *send(std::uint32_t to, unsigned id, const void *hdr, std::size_t hlen, const void *data, std::size_t n) {
    const ack_endpoint endpoint_of = detail::shared.ack_endpoint_of.load(std::memory_order_acquire);
    if (!endpoint_of || detail::shared.acks_stopped.load(std::memory_order_relaxed))
        return "the library is finalizing (no endpoints)";
    ucp_ep_h ep = endpoint_of(to);
    if (!ep) return "no endpoint to that PE";
    auto *copy = static_cast<char *>(message_alloc(hlen + n));
    if (!copy) return "out of memory for a remote procedure call's message";
    std::memcpy(copy, hdr, hlen);
    if (n) std::memcpy(copy + hlen, data, n);
    // Not counted in held_bytes: a call's reply (or the program's own waits) bounds them. An error
    // on the way (the target gone) is the peer-failure handler's to report.
    void *r = issue_op(detail::shared.main_worker,
                       [&] { return am_send_copy(ep, id, copy, hlen, n, 0, reply_sent); });
    return UCS_PTR_IS_ERR(r) ? ucs_status_string(UCS_PTR_STATUS(r)) : nullptr;
}
} // namespace

void set_rpc_handlers(rpc_request_handler request, rpc_reply_handler reply) {
    g_request = request;
    g_reply = reply;
}

const char *rpc_request_nbx(std::uint32_t to, const rpc_header &h, const void *data, std::size_t n) {
    return send(to, rpc_am_id, &h, sizeof h, data, n);
}
const char *rpc_reply_nbx(std::uint32_t to, const rpc_reply_header &h, const void *data, std::size_t n) {
    return send(to, rpc_reply_am_id, &h, sizeof h, data, n);
}

// A malformed message is dropped loudly: it is a bug of ours or a foreign sender, and the target
// must not crash on it (the core checks what the header names).
namespace am {
ucs_status_t rpc_request_received(void *, const void *header, size_t header_length, void *data, size_t length,
                                  const ucp_am_recv_param_t *param) {
    if (header_length != sizeof(rpc_header) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) || !g_request) {
        std::fprintf(stderr, "ushmem: internal error: malformed remote procedure call (header %zu bytes)\n",
                     header_length);
        return UCS_OK;
    }
    rpc_header h;
    std::memcpy(&h, header, sizeof h);
    g_request(h, data, length);
    return UCS_OK;
}

ucs_status_t rpc_reply_received(void *, const void *header, size_t header_length, void *data, size_t length,
                                const ucp_am_recv_param_t *param) {
    if (header_length != sizeof(rpc_reply_header) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) || !g_reply) {
        std::fprintf(stderr, "ushmem: internal error: malformed reply to a remote procedure call (header %zu "
                             "bytes)\n", header_length);
        return UCS_OK;
    }
    rpc_reply_header h;
    std::memcpy(&h, header, sizeof h);
    g_reply(h, data, length);
    return UCS_OK;
}
} // namespace am

} // namespace ushmem::transport
