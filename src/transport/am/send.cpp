// transport/am/send.cpp: sending ushmem's messages: signal messages (signal_nbx: contiguous,
// strided, put packs; the bytes they hold until sent), bulk messages (bulk_nbx), get requests
// (gather_nbx).
#include "transport/am/send.hpp"

#include "transport/am/internal.hpp"
#include "transport/worker.hpp"
#include "util/strided.hpp"

#include <cstdlib>
#include <cstring>

namespace ushmem::transport {

using namespace am;

namespace {
void signal_sent(void *request, ucs_status_t status, void *copy) {
    std::free(copy);
    nbi_completion(request, status, nullptr);
}

// Ahead of a counted signal message's header in its allocation: which held count (g_held,
// held.cpp) it is on, and how much.
struct alignas(16) held_tag {
    std::uint32_t pe;
    std::int64_t bytes;
};
void signal_sent_held(void *request, ucs_status_t status, void *owner) {
    const auto *t = static_cast<const held_tag *>(owner);
    g_held[t->pe].fetch_sub(t->bytes, std::memory_order_release);
    signal_sent(request, status, owner);
}

// Sends issued by the core: under the worker's lock, counted (issue_op).
const char *send_copy(ucp_worker_h w, ucp_ep_h ep, unsigned id, void *copy, std::size_t hlen, std::size_t n,
                      std::uint32_t flags, const void *borrowed = nullptr) {
    void *r = issue_op(w, [&] { return am_send_copy(ep, id, copy, hlen, n, flags, signal_sent, borrowed); });
    return UCS_PTR_IS_ERR(r) ? ucs_status_string(UCS_PTR_STATUS(r)) : nullptr;
}
} // namespace

const char *gather_nbx(ucp_worker_h w, ucp_ep_h ep, const gather_header &h, const void *data, std::size_t n) {
    auto *copy = static_cast<char *>(message_alloc(sizeof h + n));
    if (!copy) return "out of memory for a get request";
    std::memcpy(copy, &h, sizeof h);
    if (n) std::memcpy(copy + sizeof h, data, n);
    return send_copy(w, ep, gather_am_id, copy, sizeof h, n, UCP_AM_SEND_FLAG_REPLY);
}

const char *signal_nbx(ucp_worker_h w, ucp_ep_h ep, std::uint32_t to, const signal_header &hdr, const void *data,
                       std::size_t n, std::size_t src_stride, bool lend) {
    // Lent data (the caller keeps it until the message's acknowledgement): above the small
    // messages' limit UCX sends it from where it is, so it is not copied (2 PEs over tcp, 64
    // put_nbi's + quiet: 16 KiB 8.5-12.0 us per put against 9.8-13.9 copied; docs/architecture.md).
    const bool borrow = lend && !src_stride && n > small_message_max;
    // One allocation for both (glibc's per-thread cache: tens of nanoseconds against the
    // microseconds of a message).
    // The allocation starts with a held_tag (what its callback takes off the target's count).
    const std::size_t bytes = sizeof(held_tag) + sizeof hdr + (borrow ? 0 : n);
    auto *owner = static_cast<char *>(message_alloc(bytes));
    if (!owner) return "out of memory for a signal message";
    char *copy = owner + sizeof(held_tag);
    const bool counted = to < g_held_n;
    if (counted) {
        // Counted before it is sent: the callback, on any thread, takes it off.
        *reinterpret_cast<held_tag *>(owner) = held_tag{to, std::int64_t(bytes)};
        g_held[to].fetch_add(std::int64_t(bytes), std::memory_order_relaxed);
    }
    signal_header h = hdr;
    carry_acks(h, to);
    std::memcpy(copy, &h, sizeof h);
    if (src_stride && hdr.elem) {
        util::copy_strided(copy + sizeof hdr, hdr.elem, data, src_stride, hdr.elem, n / hdr.elem);
    } else if (n && !borrow) {
        std::memcpy(copy + sizeof hdr, data, n);
    }
    void *r = issue_op(w, [&] {
        return am_send_copy(ep, signal_am_id, copy, sizeof hdr, n, hdr.ack == ack_reply ? UCP_AM_SEND_FLAG_REPLY : 0,
                            counted ? signal_sent_held : signal_sent, borrow ? data : nullptr, owner);
    });
    // Sent at once or refused: am_send_copy freed it, and no callback comes.
    if (counted && (r == nullptr || UCS_PTR_IS_ERR(r))) g_held[to].fetch_sub(std::int64_t(bytes), std::memory_order_relaxed);
    return UCS_PTR_IS_ERR(r) ? ucs_status_string(UCS_PTR_STATUS(r)) : nullptr;
}

void *bulk_nbx(ucp_worker_h w, ucp_ep_h ep, std::uint32_t to, signal_header &h, const void *data, std::size_t n) {
    carry_acks(h, to);
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    prm.flags = UCP_AM_SEND_FLAG_RNDV;
    prm.memory_type = UCS_MEMORY_TYPE_HOST;
    // UCX 1.13 reads the header until the request completes (it has no UCP_AM_SEND_FLAG_COPY_HEADER).
    return issue_op(w, [&] { return ucp_am_send_nbx(ep, signal_am_id, &h, sizeof h, data, n, &prm); });
}

} // namespace ushmem::transport
