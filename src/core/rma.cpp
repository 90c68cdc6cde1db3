// The UCX side of RMA, and strided transfers.
#include "core/runtime.hpp"

namespace ushmem::core {
namespace {
[[noreturn]] void fail_op(const char *routine, const char *op, int pe, ucs_status_t st) {
    fatal(routine, "%s to PE %d failed: %s", op, pe, ucs_status_string(st));
}
} // namespace

void put_ucx(const char *routine, context &c, peer &shared, int pe, seg_id s, std::size_t off,
             const void *src, std::size_t n, bool nbi) {
    peer &p = ucx_peer(routine, c, shared, pe, s);
    ucp_request_param_t prm;
    if (nbi) {
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
        prm.cb.send = transport::nbi_completion;
    } else {
        prm.op_attr_mask = 0;
    }
    void *r = transport::put_nbx(worker_of(c), p.ep, src, n, p.rbase[s] + off, p.rkey[s], &prm);
    c.note_pending(pe);
    if (USHMEM_LIKELY(r == nullptr)) return;
    if (UCS_PTR_IS_ERR(r)) fail_op(routine, "put", pe, UCS_PTR_STATUS(r));
    // Blocking put: return once the source may be reused (local completion). Delivery is the
    // business of quiet.
    if (!nbi) {
        ucs_status_t st = await_request(routine, c, r, pe, "a blocking put (its source buffer)");
        if (st != UCS_OK) fail_op(routine, "put", pe, st);
    }
}

void reply_completion(void *request, ucs_status_t status, void *done_counter) {
    static_cast<std::atomic<std::uint64_t> *>(done_counter)->fetch_add(1, std::memory_order_release);
    transport::nbi_completion(request, status, nullptr);
}

void get_ucx(const char *routine, context &c, peer &shared, int pe, seg_id s, std::size_t off,
             void *dst, std::size_t n, bool nbi) {
    peer &p = ucx_peer(routine, c, shared, pe, s);
    // A get after a put to the same PE must see the put: order it behind earlier operations.
    if (c.pending[std::size_t(pe)]) transport::fence(worker_of(c));
    ucp_request_param_t prm;
    if (nbi) {
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        prm.cb.send = reply_completion;
        prm.user_data = &c.reply_done(pe);
    } else {
        prm.op_attr_mask = 0;
    }
    void *r = transport::get_nbx(worker_of(c), p.ep, dst, n, p.rbase[s] + off, p.rkey[s], &prm);
    if (nbi) {
        c.note_pending(pe);
        if (!UCS_PTR_IS_ERR(r)) count_reply(c, pe, r);
    }
    if (r == nullptr) return;
    if (UCS_PTR_IS_ERR(r)) fail_op(routine, "get", pe, UCS_PTR_STATUS(r));
    if (!nbi) {
        ucs_status_t st = await_request(routine, c, r, pe, "a blocking get");
        if (st != UCS_OK) fail_op(routine, "get", pe, st);
    }
}

namespace {
// Validate the whole strided footprint once, so that each block can go straight to the path.
void check_strided(const char *routine, const char *what, const void *base, std::ptrdiff_t stride,
                   std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe) {
    if (stride < 1)
        fatal(routine, "%s stride %td is invalid; strides must be >= 1 (in elements)", what, stride);
    if (nblocks == 0 || bsize == 0) return;
    if (bsize > std::size_t(stride) && nblocks > 1)
        fatal(routine, "block size %zu exceeds the %s stride %td: blocks would overlap", bsize, what, stride);
    std::size_t span = ((nblocks - 1) * std::size_t(stride) + bsize) * elem;
    seg_id s;
    std::size_t off;
    locate_or_fail(routine, what, base, span, pe, s, off);
}
} // namespace

void put_strided(const char *routine, context &c, void *dest, const void *src, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe) {
    check_strided(routine, "destination", dest, dst, bsize, nblocks, elem, pe);
    if (sst < 1) fatal(routine, "source stride %td is invalid; strides must be >= 1 (in elements)", sst);
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t bytes = bsize * elem;
    if (nblocks > 1 && bytes <= signal_message_max / 2) {
        seg_id ds;
        std::size_t doff;
        locate_or_fail(routine, "destination", dest, bytes, pe, ds, doff);
        peer &p = target(routine, pe, ds);
        if (p.how[ds] == route::ucx && p.msg_signals && !c.own_worker) {
            // Where the peer's RMA is emulated (runtime.hpp, signal messages): as many blocks per
            // message as fit, instead of a message per block. The message holds a copy: the
            // source may be reused on return, as for a blocking put.
            const std::size_t per = signal_message_max / bytes, dstep = std::size_t(dst) * elem,
                              sstep = std::size_t(sst) * elem;
            for (std::size_t i = 0; i < nblocks; i += per) {
                const std::size_t k = std::min(per, nblocks - i);
                strided_message(routine, c, p, pe, p.rbase[ds] + doff + i * dstep, dstep, s + i * sstep, sstep, bytes,
                                k * bytes, 0, 0);
            }
            return;
        }
    }
    // Blocking per block: the routine returns when the source may be reused.
    for (std::size_t i = 0; i < nblocks; ++i)
        put(routine, c, d + i * std::size_t(dst) * elem, s + i * std::size_t(sst) * elem, bytes, pe, false);
}

void get_strided(const char *routine, context &c, void *dest, const void *src, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe) {
    check_strided(routine, "source", src, sst, bsize, nblocks, elem, pe);
    if (dst < 1) fatal(routine, "destination stride %td is invalid; strides must be >= 1 (in elements)", dst);
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t bytes = bsize * elem;
    // Every block in flight at once, then one completion wait: a round trip per block costs
    // milliseconds on an emulated transport.
    for (std::size_t i = 0; i < nblocks; ++i)
        get(routine, c, d + i * std::size_t(dst) * elem, s + i * std::size_t(sst) * elem, bytes, pe, true);
    pe_quiet(routine, c, pe);
}

} // namespace ushmem::core
