// transport/am/receive.cpp: the handler table of ushmem's messages and the handlers: signal
// messages (eager, and bulk ones landing in place), strided get requests and replies,
// acknowledgements.
#include "transport/am/receive.hpp"

#include "transport/am/internal.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace ushmem::transport {

using namespace am;

namespace {
signal_handler g_signal_handler = nullptr;
bulk_checker g_bulk_check = nullptr;
bool g_reject_bulk = false;  // inject_rejected_bulk()

// A bulk message's data is in (bulk_nbx): its signal and acknowledgement, as for an eager one. Runs
// inside the progress call that completed the receive, so what it owes leaves as a handler's does.
void bulk_landed(void *request, ucs_status_t status, size_t, void *user_data) {
    auto *h = static_cast<signal_header *>(user_data);
    if (status == UCS_OK) {
        g_signal_handler(*h, nullptr, 0);  // (no data: the signal alone; elem is 0, checked on arrival)
        const std::uint32_t kind = h->ack & 0xff;
        if (kind) owe_ack(h->from, h->ack >> 8, kind == ack_lazy);
    } else {
        // The sender is gone (its peer-failure handler ends the job) or the receive was cancelled at
        // finalize: the data is incomplete, so the signal is not given.
        std::fprintf(stderr, "ushmem: receiving a bulk message for [%#" PRIx64 ", ...) failed: %s\n", h->data_addr,
                     ucs_status_string(status));
    }
    std::free(h);
    ucp_request_free(request);
}

// `arg`: the worker it arrived on (bulk messages need it to receive their data).
ucs_status_t am_signal_received(void *arg, const void *header, size_t header_length, void *data, size_t length,
                               const ucp_am_recv_param_t *param) {
    // A malformed message is a bug of ours, not the program's: it is dropped loudly rather than
    // written anywhere.
    const bool rndv = param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV;
    if (header_length != sizeof(signal_header) || !g_signal_handler) {
        std::fprintf(stderr, "ushmem: internal error: malformed signal message (header %zu bytes, rndv %d)\n",
                     header_length, rndv ? 1 : 0);
        return UCS_OK;
    }
    signal_header h;
    std::memcpy(&h, header, sizeof h);
    if (h.acks && g_ack_receive) g_ack_receive(h.from, h.acks);  // (which checks `from`)
    const std::uint32_t kind = h.ack & 0xff;
    if (rndv) {  // bulk_nbx: the data is still at the sender; it lands in place, then bulk_landed
        // A bulk message this PE does not take is refused with a status, not only dropped: UCX
        // returns it to the sender in the rendezvous's answer (ATS), whose request then fails and
        // ends the job naming this PE, where an answer of UCS_OK would complete the sender's
        // transfer and leave its quiet waiting for an acknowledgement that never comes.
        if (h.elem || h.op == signal_op::pack || kind == ack_reply || !g_bulk_check || !arg ||
            __builtin_expect(g_reject_bulk, 0) || !g_bulk_check(h.data_addr, length)) {
            std::fprintf(stderr, "ushmem: internal error: a bulk message from PE %u for [%#" PRIx64 ", +%zu) is "
                                 "malformed or lies outside this PE's symmetric segments; refused\n",
                         h.from, h.data_addr, length);
            return UCS_ERR_INVALID_ADDR;  // (UCX releases the rendezvous's descriptor)
        }
        auto *keep = static_cast<signal_header *>(std::malloc(sizeof h));
        if (!keep) {
            std::fprintf(stderr, "ushmem: out of memory for a bulk message from PE %u; refused\n", h.from);
            return UCS_ERR_NO_MEMORY;
        }
        *keep = h;
        ucp_request_param_t prm;
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMORY_TYPE |
                           UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
        prm.cb.recv_am = bulk_landed;
        prm.user_data = keep;
        prm.memory_type = UCS_MEMORY_TYPE_HOST;
        // Inside the worker's progress (its lock, if shared, is held): UCX allows this here.
        void *r = ucp_am_recv_data_nbx(static_cast<ucp_worker_h>(arg), data, reinterpret_cast<void *>(h.data_addr),
                                       length, &prm);
        if (UCS_PTR_IS_ERR(r)) {
            std::fprintf(stderr, "ushmem: receiving a bulk message of %zu bytes from PE %u failed: %s\n", length,
                         h.from, ucs_status_string(UCS_PTR_STATUS(r)));
            std::free(keep);
            return UCS_PTR_STATUS(r);  // to the sender, as above
        }
        return UCS_INPROGRESS;  // the descriptor is UCX's again once the receive completes
    }
    g_signal_handler(h, data, length);
    if (kind == ack_reply) ack_now(param);
    else if (kind) owe_ack(h.from, h.ack >> 8, kind == ack_lazy);
    return UCS_OK;
}
gather_packer g_gather_pack = nullptr;
bool g_short_batch_replies = false;  // inject_short_batch_replies()
gather_receiver g_gather_receive = nullptr;

ucs_status_t am_gather_request_received(void *, const void *header, size_t header_length, void *data, size_t length,
                               const ucp_am_recv_param_t *param) {
    if (header_length != sizeof(gather_header) || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ||
        (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) || !g_gather_pack) {
        std::fprintf(stderr, "ushmem: internal error: malformed get request (header %zu bytes)\n", header_length);
        return UCS_OK;
    }
    gather_header h;
    std::memcpy(&h, header, sizeof h);
    const std::size_t n = gather_reply_bytes(h);
    auto *copy = static_cast<char *>(message_alloc(sizeof h.cookie + n));
    if (!copy) {
        std::fprintf(stderr, "ushmem: out of memory for the reply to a get request (%zu bytes)\n", n);
        return UCS_OK;
    }
    std::memcpy(copy, &h.cookie, sizeof h.cookie);
    g_gather_pack(h, data, length, copy + sizeof h.cookie);
    // Inside the worker's progress (its lock, if shared, is held): UCX allows sends here.
    const std::size_t sent = __builtin_expect(g_short_batch_replies, 0) && h.elem == 0 && n ? n - 1 : n;
    am_send_copy(param->reply_ep, gather_reply_am_id, copy, sizeof h.cookie, sent, 0, reply_sent);
    return UCS_OK;
}

// A message that asked for an acknowledgement (signal_header::ack) ran: owed to its sender until

// `arg`: a context's own worker's counts (create_extra_worker), nullptr on the main worker.
ucs_status_t am_ack_received(void *arg, const void *header, size_t header_length, void *, size_t length,
                    const ucp_am_recv_param_t *) {
    std::uint32_t a[3];  // from, how many, stream
    if (header_length != sizeof a || length != 0 || !g_ack_receive) {
        std::fprintf(stderr, "ushmem: internal error: malformed acknowledgement (header %zu bytes)\n", header_length);
        return UCS_OK;
    }
    std::memcpy(a, header, sizeof a);
    if (!arg && a[2] == 0) {
        g_ack_receive(a[0], a[1]);
    } else if (a[0] >= ack_pes()) {  // from a peer of this job: a bug of ours, dropped loudly
        std::fprintf(stderr, "ushmem: internal error: an acknowledgement from PE %u (%zu PEs)\n", a[0],
                     ack_pes());
    } else if (arg) {
        static_cast<std::atomic<std::uint64_t> *>(arg)[a[0]].fetch_add(a[1], std::memory_order_release);
    } else {
        stream_acked(a[2], a[0], a[1]);
    }
    return UCS_OK;
}

ucs_status_t am_gather_reply_received(void *, const void *header, size_t header_length, void *data, size_t length,
                             const ucp_am_recv_param_t *param) {
    if (header_length != sizeof(std::uint64_t) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ||
        !g_gather_receive) {
        std::fprintf(stderr, "ushmem: internal error: malformed get reply (header %zu bytes)\n", header_length);
        return UCS_OK;
    }
    std::uint64_t cookie;
    std::memcpy(&cookie, header, sizeof cookie);
    g_gather_receive(cookie, data, length);
    return UCS_OK;
}
} // namespace

void set_signal_handler(signal_handler h) { g_signal_handler = h; }

void set_gather_handlers(gather_packer pack, gather_receiver receive) {
    g_gather_pack = pack;
    g_gather_receive = receive;
}

void inject_short_batch_replies() { g_short_batch_replies = true; }
void inject_rejected_bulk() { g_reject_bulk = true; }
void set_bulk_checker(bulk_checker check) { g_bulk_check = check; }

// The handlers of ushmem's own messages, on every worker: signal and strided messages, strided
// get requests and remote procedure calls (requests and replies) arrive on the main one (peers
// connect to it), the replies to a strided get on the worker that asked (a context's own, too).
ucs_status_t am::set_handlers(ucp_worker_h w, void *ack_counts) {
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    const std::pair<unsigned, ucp_am_recv_callback_t> handlers[] = {
        {signal_am_id, am_signal_received}, {gather_am_id, am_gather_request_received}, {gather_reply_am_id, am_gather_reply_received},
        {ack_am_id, am_ack_received}, {rpc_am_id, rpc_request_received}, {rpc_reply_am_id, rpc_reply_received}};
    for (const auto &[id, cb] : handlers) {
        hp.id = id;
        hp.cb = cb;
        hp.arg = id == ack_am_id ? ack_counts : id == signal_am_id ? static_cast<void *>(w) : nullptr;
        if (ucs_status_t st = ucp_worker_set_am_recv_handler(w, &hp); st != UCS_OK) return st;
    }
    return UCS_OK;
}

} // namespace ushmem::transport
