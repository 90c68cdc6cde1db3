// transport/am/message.cpp: one of ushmem's messages on the wire: the small-message datatype (one
// send() instead of sendmsg()) and am_send_copy, which every message of ours goes through.
#include "transport/am/internal.hpp"

#include <cstdlib>
#include <cstring>
#include <algorithm>

namespace ushmem::transport::am {

namespace {
void *bytes_start_pack(void *, const void *buffer, size_t) { return const_cast<void *>(buffer); }
size_t bytes_packed_size(void *state) { return static_cast<packed_bytes *>(state)->n; }
size_t bytes_pack(void *state, size_t offset, void *dest, size_t max_length) {
    const auto &b = *static_cast<packed_bytes *>(state);
    const std::size_t k = std::min(max_length, b.n - offset);
    std::memcpy(dest, b.p + offset, k);
    return k;
}
void bytes_finish(void *) {}
// Never received into: ushmem's handlers read their messages from UCX's buffers.
void *bytes_start_unpack(void *, void *, size_t) { return nullptr; }
ucs_status_t bytes_unpack(void *, size_t, const void *, size_t) { return UCS_ERR_UNSUPPORTED; }
ucp_datatype_t g_bytes_dt = 0;  // created by start_context(), destroyed by stop_context()
} // namespace

void create_bytes_datatype(ucp_context_h) {
    static const ucp_generic_dt_ops_t bytes_ops = {bytes_start_pack, bytes_start_unpack, bytes_packed_size,
                                                   bytes_pack, bytes_unpack, bytes_finish};
    if (ucp_dt_create_generic(&bytes_ops, nullptr, &g_bytes_dt) != UCS_OK) g_bytes_dt = 0;
}

void destroy_bytes_datatype() {
    if (g_bytes_dt) ucp_dt_destroy(g_bytes_dt);
    g_bytes_dt = 0;
}

void *am_send_copy(ucp_ep_h ep, unsigned id, void *copy, std::size_t hlen, std::size_t n, std::uint32_t flags,
                   ucp_send_nbx_callback_t sent, const void *borrowed, void *owner) {
    if (!owner) owner = copy;
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    prm.flags = UCP_AM_SEND_FLAG_EAGER | flags;
    prm.cb.send = sent;
    prm.user_data = owner;
    const char *data = borrowed ? static_cast<const char *>(borrowed) : static_cast<char *>(copy) + hlen;
    void *r;
    if (!borrowed && hlen + n <= small_message_max && g_bytes_dt) {
        auto *b = reinterpret_cast<packed_bytes *>(static_cast<char *>(copy) + packed_offset(hlen + n));
        *b = packed_bytes{data, n};
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
        prm.datatype = g_bytes_dt;
        r = ucp_am_send_nbx(ep, id, copy, hlen, b, 1, &prm);
    } else {
        r = ucp_am_send_nbx(ep, id, copy, hlen, data, n, &prm);
    }
    if (r == nullptr || UCS_PTR_IS_ERR(r)) std::free(owner);
    return r;
}


// The reply's buffer (cookie and data) is ours until UCX has sent it; an error (the initiator is
// gone) is the initiator's business, not a failure of this PE's own operations.
void reply_sent(void *request, ucs_status_t, void *copy) {
    std::free(copy);
    ucp_request_free(request);
}

} // namespace ushmem::transport::am
