// The UCX side of RMA, and strided transfers.
#include "core/atomic.hpp"
#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/lanes.hpp"
#include "core/log.hpp"
#include "core/messages.hpp"
#include "core/ordering.hpp"
#include "core/peers.hpp"
#include "core/put_pack.hpp"
#include "core/rma.hpp"
#include "core/route.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"
#include "core/wait_missing.hpp"
#include "transport/transport.hpp"
#include "util/put_pack.hpp"
#include "util/strided.hpp"

#include <cinttypes>

namespace ushmem::core {
namespace {
[[noreturn]] void fail_op(const char *routine, const char *op, int pe, transport::status st) {
    fatal(routine, "%s to PE %d failed: %s", op, pe, transport::status_string(st));
}
} // namespace

void put_ucx(const char *routine, context &c, peer &shared, int pe, seg_id s, std::size_t off,
             const void *src, std::size_t n, bool nbi) {
    if (c.acked_msgs && shared.msg_puts && bulk_size(n)) {
        // Large: one bulk message (transport::bulk_nbx). Its fragments leave from the source and
        // its acknowledgement completes it, where UCX's emulated put copies on the sender and
        // its quiet's flush is a request and a reply of its own (docs/architecture.md).
        signal_message(routine, c, shared, pe, shared.rbase[s] + off, src, n, 0, 0, transport::signal_op::add);
        return;
    }
    if (c.acked_msgs && shared.msg_puts && n <= signal_message_max) {
        // Emulated RMA: a message the target acknowledges (context::acked_msgs), holding a copy
        // of the source (reusable on return, as for a blocking put; so for nbi too). A small
        // non-blocking one joins the context's pack instead (put_pack.cpp); a blocking one only
        // with USHMEM_PUT_PACK_BLOCKING, since a program may rely on it arriving without a quiet.
        if ((nbi || c.pack_blocking) && n <= c.pack_item) {
            pack_put(routine, c, pe, shared.rbase[s] + off, src, n);
            return;
        }
        // Sent at once: with the open pack to that PE as its last record, if it has room (one
        // message, not the pack's and this one's).
        if (send_in_pack(routine, c, pe, shared.rbase[s] + off, src, n, util::put_pack::kind::put)) return;
        // A put_nbi's source is the program's until its quiet, which waits for the acknowledgement:
        // lent to the message, not copied (2 PEs over tcp, 64 x 64 KiB put_nbi + quiet: see
        // docs/architecture.md). A blocking put's is copied: it returns before the message leaves.
        signal_message(routine, c, shared, pe, shared.rbase[s] + off, src, n, 0, 0, transport::signal_op::add, nbi);
        return;
    }
    peer &p = ucx_peer(routine, c, shared, pe, s);
    void *r = transport::issue_put(worker_of(c), p.ep, src, n, p.rbase[s] + off, p.rkey[s], nbi);
    c.note_pending(pe);
    if (USHMEM_LIKELY(r == nullptr)) return;
    if (transport::is_error(r)) fail_op(routine, "put", pe, transport::error_of(r));
    // Blocking put: return once the source may be reused (local completion). Delivery is the
    // business of quiet.
    if (!nbi) {
        transport::status st = await_request(routine, c, r, pe, "a blocking put (its source buffer)");
        if (st != transport::status_ok) fail_op(routine, "put", pe, st);
    }
}

void get_ucx(const char *routine, context &c, peer &shared, int pe, seg_id s, std::size_t off,
             void *dst, std::size_t n, bool nbi) {
    if (nbi && n <= c.pack_item && shared.msg_puts) {  // (n > 0: get() returns before)
        // Emulated RMA, where puts are packed: small get_nbi's to a PE go as one request and one
        // reply (put_pack.cpp), not a request and a reply each.
        pack_get(routine, c, pe, shared.rbase[s] + off, dst, n);
        return;
    }
    peer &p = ucx_peer(routine, c, shared, pe, s);
    // A get after a put to the same PE must see the put: order it behind earlier operations.
    // Messages (signal messages forced on over lanes with real RMA: peer::msg_puts) travel apart
    // from the get: completed first.
    if (const std::uint8_t bits = __atomic_load_n(&c.pending[std::size_t(pe)], __ATOMIC_RELAXED)) {
        if ((bits & pend_acks) && !shared.msg_puts) pe_quiet(routine, c, pe);
        else transport::worker_fence(worker_of(c));
    }
    void *r = transport::issue_get(worker_of(c), p.ep, dst, n, p.rbase[s] + off, p.rkey[s], nbi ? &c.reply_done(pe) : nullptr);
    if (nbi) {
        c.note_pending(pe);
        if (!transport::is_error(r)) count_reply(c, pe, r);
    }
    if (r == nullptr) return;
    if (transport::is_error(r)) fail_op(routine, "get", pe, transport::error_of(r));
    if (!nbi) {
        transport::status st = await_request(routine, c, r, pe, "a blocking get");
        if (st != transport::status_ok) fail_op(routine, "get", pe, st);
    }
}

namespace {
// Validate the whole strided footprint once, so that each block can go straight to the path.
// `s`, `off`: where it lies (when there is something to transfer).
void check_strided(const char *routine, const char *what, const void *base, std::ptrdiff_t stride,
                   std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe, seg_id &s, std::size_t &off) {
    if (stride < 1)
        fatal(routine, "%s stride %td is invalid; strides must be >= 1 (in elements)", what, stride);
    if (nblocks == 0 || bsize == 0) return;
    if (bsize > std::size_t(stride) && nblocks > 1)
        fatal(routine, "block size %zu exceeds the %s stride %td: blocks would overlap", bsize, what, stride);
    std::size_t span = ((nblocks - 1) * std::size_t(stride) + bsize) * elem;
    locate_or_fail(routine, what, base, span, pe, s, off);
}
} // namespace

void put_strided(const char *routine, context &c, void *dest, const void *src, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe) {
    seg_id ds = seg_heap;
    std::size_t doff = 0;
    check_strided(routine, "destination", dest, dst, bsize, nblocks, elem, pe, ds, doff);
    if (sst < 1) fatal(routine, "source stride %td is invalid; strides must be >= 1 (in elements)", sst);
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t bytes = bsize * elem;
    if (nblocks == 0 || bytes == 0) return;  // (check_strided located nothing)
    const std::size_t dstep = std::size_t(dst) * elem, sstep = std::size_t(sst) * elem;
    peer &p = target(routine, pe, ds);
    if (p.how[ds] == route::direct) {
        // Same node: one strided copy through the mapping (a put per block paid a lookup each:
        // 64 longs 0.5 us).
        c.note_direct();
        util::copy_strided(p.direct[ds] + doff, dstep, s, sstep, bytes, nblocks);
        wake_after_store(p);
        return;
    }
    if (nblocks > 1 && bytes <= signal_message_max / 2) {
        if (p.how[ds] == route::ucx && p.msg_signals) {
            // Where the peer's RMA is emulated (messages.hpp, signal messages): as many blocks per
            // message as fit, instead of a message per block. The message holds a copy: the
            // source may be reused on return, as for a blocking put.
            strided_messages(routine, c, p, pe, p.rbase[ds] + doff, dstep, s, sstep, bytes, nblocks, 0);
            return;
        }
    }
    // Blocking per block: the routine returns when the source may be reused.
    for (std::size_t i = 0; i < nblocks; ++i) put(routine, c, d + i * dstep, s + i * sstep, bytes, pe, false);
}


void get_strided(const char *routine, context &c, void *dest, const void *src, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe) {
    seg_id ss = seg_heap;
    std::size_t soff = 0;
    check_strided(routine, "source", src, sst, bsize, nblocks, elem, pe, ss, soff);
    if (dst < 1) fatal(routine, "destination stride %td is invalid; strides must be >= 1 (in elements)", dst);
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t bytes = bsize * elem;
    if (nblocks == 0 || bytes == 0) return;  // (check_strided located nothing)
    if (peer &p = target(routine, pe, ss); p.how[ss] == route::direct) {  // same node: as put_strided
        util::copy_strided(d, std::size_t(dst) * elem, p.direct[ss] + soff, std::size_t(sst) * elem, bytes, nblocks);
        return;
    }
    if (nblocks > 1 && bytes <= signal_message_max / 2 &&
        get_strided_messages(routine, c, d, ss, soff, std::size_t(dst) * elem, std::size_t(sst) * elem, bytes, nblocks,
                             pe))
        return;
    // Every block in flight at once, then one completion wait: a round trip per block costs
    // milliseconds on an emulated transport.
    for (std::size_t i = 0; i < nblocks; ++i)
        get(routine, c, d + i * std::size_t(dst) * elem, s + i * std::size_t(sst) * elem, bytes, pe, true);
    pe_quiet(routine, c, pe);
}

} // namespace ushmem::core
