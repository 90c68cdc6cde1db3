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
#include "transport/transport.hpp"
#include "util/put_pack.hpp"
#include "util/strided.hpp"

#include <cinttypes>
#include <mutex>
#include <unordered_map>

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
    void *r = transport::put(worker_of(c), p.ep, src, n, p.rbase[s] + off, p.rkey[s], nbi);
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
    void *r = transport::get(worker_of(c), p.ep, dst, n, p.rbase[s] + off, p.rkey[s], nbi ? &c.reply_done(pe) : nullptr);
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
            // Where the peer's RMA is emulated (runtime.hpp, signal messages): as many blocks per
            // message as fit, instead of a message per block. The message holds a copy: the
            // source may be reused on return, as for a blocking put.
            strided_messages(routine, c, p, pe, p.rbase[ds] + doff, dstep, s, sstep, bytes, nblocks, 0);
            return;
        }
    }
    // Blocking per block: the routine returns when the source may be reused.
    for (std::size_t i = 0; i < nblocks; ++i) put(routine, c, d + i * dstep, s + i * sstep, bytes, pe, false);
}

// ---- strided gets as messages -------------------------------------------------------------------
// A get in flight: where its replies go. Registered under an id until the get ends (done or
// abandoned: a timeout that throws), so a reply that comes later finds nothing and writes nothing.
namespace {
struct strided_get {
    char *dest;
    std::size_t dstep, bytes, per;  // blocks per request: request i's at dest + i * per * dstep
    std::atomic<std::size_t> left;  // requests not yet answered
};
std::mutex g_gets_lock;
std::unordered_map<std::uint64_t, strided_get *> g_gets;
std::uint64_t g_gets_next = 1;
constexpr unsigned gets_chunk_bits = 24;  // cookie: id << 24 | request index
} // namespace

void pack_gather_reply(const transport::gather_header &h, const void *data, std::size_t n, void *out) {
    // Addresses computed by a peer of this job from our own bases: one outside them is our bug.
    seg_id s;
    std::size_t off;
    if (h.elem == 0) {  // a get batch (put_pack.cpp): the gets listed in the request, in order
        char *o = static_cast<char *>(out);
        const bool ok = util::put_pack::for_each_get(
            data, n, std::size_t(h.src_stride),
            [&s, &off](std::uint64_t a, std::size_t len) {
                if (locate(reinterpret_cast<const void *>(a), len, s, off)) return true;
                fatal("get batch", "internal error: a batched get of [%#" PRIx64 ", +%zu) lies outside this PE's "
                                   "symmetric segments", a, len);
            },
            [&o](std::uint64_t a, std::size_t len, util::put_pack::fetch_kind k, std::uint64_t v, std::uint64_t cmp) {
                if (k == util::put_pack::fetch_kind::get) {
                    std::memcpy(o, reinterpret_cast<const void *>(a), len);
                } else if (len == 8) {  // (for_each_get checked the word: 4 or 8 bytes, aligned)
                    const std::uint64_t old = amo_direct<std::uint64_t>(amo_of(k), reinterpret_cast<std::uint64_t *>(a), v, cmp);
                    std::memcpy(o, &old, 8);
                } else {
                    const std::uint32_t old = amo_direct<std::uint32_t>(amo_of(k), reinterpret_cast<std::uint32_t *>(a),
                                                                         std::uint32_t(v), std::uint32_t(cmp));
                    std::memcpy(o, &old, 4);
                }
                o += len;
            });
        if (USHMEM_UNLIKELY(!ok))
            fatal("get batch", "internal error: a malformed get batch request (%zu bytes, reply of %" PRIu64 ")", n,
                  h.src_stride);
        return;
    }
    const std::size_t span = h.count ? (std::size_t(h.count) - 1) * h.src_stride + h.elem : 0;
    if (USHMEM_UNLIKELY(span && !locate(reinterpret_cast<const void *>(h.src_addr), span, s, off)))
        fatal("strided get", "internal error: a strided get of [%#" PRIx64 ", +%zu) lies outside this PE's symmetric "
                             "segments", h.src_addr, span);
    util::copy_strided(out, h.elem, reinterpret_cast<const void *>(h.src_addr), h.src_stride, h.elem, h.count);
}

void on_gather_reply(std::uint64_t cookie, const void *data, std::size_t n) {
    if (cookie & get_batch_bit) return on_get_batch_reply(cookie, data, n);
    std::lock_guard<std::mutex> g(g_gets_lock);
    auto it = g_gets.find(cookie >> gets_chunk_bits);
    if (it == g_gets.end()) return;  // abandoned
    strided_get &r = *it->second;
    char *d = r.dest + std::size_t(cookie & ((1u << gets_chunk_bits) - 1)) * r.per * r.dstep;
    util::copy_strided(d, r.dstep, data, r.bytes, r.bytes, n / r.bytes);
    r.left.fetch_sub(1, std::memory_order_release);
}

namespace {
// Sends `requests` gather requests to `pe` (header(i); the cookies are set here) and returns once
// every reply is in `rec`. `what` names the operation in messages.
template <class Header>
void gather_wait(const char *routine, context &c, peer &p, int pe, strided_get &rec, std::size_t requests,
                 Header header, const char *what) {
    settle_pack(routine, c, pe);  // the puts packed before it go first
    const transport::ep_h ep = message_ep(routine, c, p, pe);  // before worker_of: it may create the context's worker
    rec.left.store(requests, std::memory_order_relaxed);
    std::uint64_t id;
    {
        std::lock_guard<std::mutex> g(g_gets_lock);
        id = g_gets_next++;
        g_gets.emplace(id, &rec);
    }
    struct unregister {
        std::uint64_t id;
        ~unregister() {
            std::lock_guard<std::mutex> g(g_gets_lock);
            g_gets.erase(id);
        }
    } guard{id};
    for (std::size_t i = 0; i < requests; ++i) {
        transport::gather_header h = header(i);
        h.cookie = id << gets_chunk_bits | i;
        if (const char *err = transport::gather_nbx(worker_of(c), ep, h))
            fatal(routine, "%s from PE %d failed: %s", what, pe, err);
    }
    // The reply comes to the worker that asked: a context's own worker is driven here (wait_for
    // drives the main one). The timeout's text is built only if it fires.
    const transport::worker_h own = c.own_worker ? worker_of(c) : nullptr;
    const transport::own_wait_scope sleeps_watch(own);
    struct about {
        int pe;
        const char *what;
    } const a{pe, what};
    wait_for(
        routine, what,
        [&rec, own] {
            if (own) transport::progress_worker(own);
            return rec.left.load(std::memory_order_acquire) == 0;
        },
        false, on_other_node(pe),
        [](const void *arg, char *buf, std::size_t len) {
            const auto *x = static_cast<const about *>(arg);
            std::snprintf(buf, len, "the reply to %s; no answer yet from PE %d%s", x->what, x->pe, no_answer_hint());
        },
        &a);
}

// The blocks through messages where the peer's RMA is emulated (runtime.hpp); false: not there.
bool get_strided_messages(const char *routine, context &c, char *d, seg_id ss, std::size_t soff, std::size_t dstep,
                          std::size_t sstep, std::size_t bytes, std::size_t nblocks, int pe) {
    peer &p = target(routine, pe, ss);
    if (p.how[ss] != route::ucx || !p.msg_signals) return false;
    // Behind this context's earlier puts to that PE (a get sees them): completed first.
    if (__atomic_load_n(&c.pending[std::size_t(pe)], __ATOMIC_RELAXED)) pe_quiet(routine, c, pe);
    strided_get rec{d, dstep, bytes, signal_message_max / bytes, {0}};
    const std::size_t requests = (nblocks + rec.per - 1) / rec.per;
    const std::uint64_t from = p.rbase[ss] + soff;
    gather_wait(
        routine, c, p, pe, rec, requests,
        [&](std::size_t i) {
            const std::size_t k = std::min(rec.per, nblocks - i * rec.per);
            return transport::gather_header{from + i * rec.per * sstep, sstep, 0, std::uint32_t(bytes), std::uint32_t(k)};
        },
        "a strided get");
    return true;
}
} // namespace

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
