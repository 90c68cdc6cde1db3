// The core half of ushmem's message protocol (messages.hpp), facing transport/am/: the senders
// that keep the order of a context's operations (each sends the context's open pack to its PE
// first, then goes through send_message, message_send.cpp); strided gets as requests and replies
// (the registry of gets awaiting their replies); the handlers of what arrives, and their
// installation with the transport.
#include "core/messages.hpp"

#include "core/atomic.hpp"
#include "core/context.hpp"
#include "core/lanes.hpp"
#include "core/log.hpp"
#include "core/message_send.hpp"
#include "core/ordering.hpp"
#include "core/peers.hpp"
#include "core/put_pack.hpp"
#include "core/route.hpp"
#include "core/wait.hpp"
#include "core/wait_missing.hpp"
#include "transport/transport.hpp"
#include "util/copy.hpp"
#include "util/put_pack.hpp"
#include "util/strided.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace ushmem::core {

void signal_message(const char *routine, context &c, peer &p, int pe, std::uint64_t data_raddr, const void *data,
                    std::size_t n, std::uint64_t sig_raddr, std::uint64_t value, transport::signal_op op, bool lend) {
    settle_pack(routine, c, pe);  // the puts packed before it go first
    send_message(routine, c, p, pe, {.data_addr = data_raddr, .sig_addr = sig_raddr, .value = value, .op = op}, data, n, 0,
                 sig_raddr ? "signal" : "put", lend);
}

void strided_message(const char *routine, context &c, peer &p, int pe, std::uint64_t data_raddr,
                     std::size_t dst_stride, const void *data, std::size_t src_stride, std::size_t elem,
                     std::size_t n, std::uint64_t sig_raddr, std::uint64_t value) {
    settle_pack(routine, c, pe);  // the puts packed before it go first
    send_message(routine, c, p, pe,
                 {.data_addr = data_raddr,
                  .sig_addr = sig_raddr,
                  .value = value,
                  .op = transport::signal_op::add,
                  .elem = std::uint32_t(elem),
                  .dst_stride = dst_stride}, data, n,
                 src_stride, "strided put");
}

void strided_messages(const char *routine, context &c, peer &p, int pe, std::uint64_t data_raddr,
                      std::size_t dst_stride, const char *data, std::size_t src_stride, std::size_t elem,
                      std::size_t count, std::uint64_t sig_raddr) {
    const std::size_t per = signal_message_max / elem;
    for (std::size_t i = 0; i < count; i += per) {
        const std::size_t k = std::min(per, count - i);
        const bool last = i + k == count;
        // The signal must not overtake the elements of the messages before it.
        if (last && i > 0 && sig_raddr) transport::worker_fence(worker_of(c));
        strided_message(routine, c, p, pe, data_raddr + i * dst_stride, dst_stride, data + i * src_stride, src_stride,
                        elem, k * elem, last ? sig_raddr : 0, last ? 1 : 0);
    }
}

void record_message(const char *routine, context &c, peer &p, int pe, const void *records, std::size_t n,
                    const char *what) {
    settle_pack(routine, c, pe);  // the puts packed before it go first
    send_message(routine, c, p, pe, {.data_addr = 0, .sig_addr = 0, .value = 0, .op = transport::signal_op::pack}, records,
                 n, 0, what);
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

namespace {
// A strided get's reply: its elements go where the get asked; a get abandoned meanwhile (its wait
// timed out) takes nothing.
void unpack_strided_get_reply(std::uint64_t cookie, const void *data, std::size_t n) {
    std::lock_guard<std::mutex> g(g_gets_lock);
    auto it = g_gets.find(cookie >> gets_chunk_bits);
    if (it == g_gets.end()) return;  // abandoned
    strided_get &r = *it->second;
    char *d = r.dest + std::size_t(cookie & ((1u << gets_chunk_bits) - 1)) * r.per * r.dstep;
    util::copy_strided(d, r.dstep, data, r.bytes, r.bytes, n / r.bytes);
    r.left.fetch_sub(1, std::memory_order_release);
}
} // namespace

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
            char what[160];
            std::snprintf(what, sizeof what, "the reply to %s", x->what);
            describe_no_answer_from(buf, len, what, x->pe);
        },
        &a);
}
} // namespace

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


// ---- what arrives (installed as the transport's handlers) -------------------------------------


namespace {
// A packed atomic's operation (for_each has checked the kind).
amo packed_amo(util::put_pack::kind k) {
    using util::put_pack::kind;
    switch (k) {
    case kind::set: return amo::set;
    case kind::band: return amo::band;
    case kind::bor: return amo::bor;
    case kind::bxor: return amo::bxor;
    default: return amo::add;
    }
}
} // namespace

void store_signal_message(const transport::signal_header &h, const void *data, std::size_t n) {
    // The addresses come from a peer of this job, computed from our own segment bases: one that
    // falls outside them is a bug of ours, and nothing is written.
    seg_id s;
    std::size_t off;
    if (h.op == transport::signal_op::pack) {
        // Many puts (put_pack.cpp), and non-fetching atomics, applied in order: a later one to
        // the same bytes wins.
        const bool stored = !h.sig_addr && util::put_pack::for_each(
            data, n,
            [&s, &off](std::uint64_t a, std::size_t len) {
                if (locate(reinterpret_cast<void *>(a), len ? len : 1, s, off)) return true;
                fatal("put pack", "internal error: a packed put to [%#" PRIx64 ", +%zu) lies outside this PE's "
                                  "symmetric segments", a, len);
            },
            [](std::uint64_t a, const void *d, std::size_t len, util::put_pack::kind k) {
                if (k == util::put_pack::kind::put) {
                    util::copy_once(reinterpret_cast<void *>(a), d, len);
                    return;
                }
                // An atomic record (for_each checked its size: 4 or 8 bytes, aligned).
                const amo op = packed_amo(k);
                if (len == 8) {
                    std::uint64_t v;
                    std::memcpy(&v, d, 8);
                    amo_direct<std::uint64_t>(op, reinterpret_cast<std::uint64_t *>(a), v, 0);
                } else {
                    std::uint32_t v;
                    std::memcpy(&v, d, 4);
                    amo_direct<std::uint32_t>(op, reinterpret_cast<std::uint32_t *>(a), v, 0);
                }
            });
        if (USHMEM_UNLIKELY(!stored)) fatal("put pack", "internal error: a malformed put pack of %zu bytes", n);
        return;
    }
    auto *sig = reinterpret_cast<std::uint64_t *>(h.sig_addr);
    const std::size_t count = h.elem ? n / h.elem : 0;
    const std::size_t span = h.elem && count ? (count - 1) * h.dst_stride + h.elem : n;
    if (USHMEM_UNLIKELY((h.sig_addr && (!locate(sig, 8, s, off) || (h.sig_addr & 7))) ||
                        (h.elem && n % h.elem) ||
                        (span && !locate(reinterpret_cast<void *>(h.data_addr), span, s, off))))
        fatal("signal message", "internal error: a signal message for [%#" PRIx64 ", +%zu) and signal %#" PRIx64
                                " lies outside this PE's symmetric segments",
              h.data_addr, span, h.sig_addr);
    if (h.elem) {
        util::copy_strided(reinterpret_cast<void *>(h.data_addr), h.dst_stride, data, h.elem, h.elem, count);
    } else if (n) {
        util::copy_once(reinterpret_cast<void *>(h.data_addr), data, n);
    }
    if (!h.sig_addr) return;
    if (h.op == transport::signal_op::set) __atomic_store_n(sig, h.value, __ATOMIC_RELEASE);
    else __atomic_fetch_add(sig, h.value, __ATOMIC_RELEASE);
}

void count_acks(std::uint32_t from, std::uint32_t n) {
    // From a peer of this job: a rank out of range is a bug of ours, dropped loudly.
    if (USHMEM_UNLIKELY(from >= std::uint32_t(rt.npes) || !rt.peers.acks_done)) {
        std::fprintf(stderr, "ushmem: internal error: an acknowledgement from PE %u (%d PEs)\n", from, rt.npes);
        return;
    }
    rt.peers.acks_done[from].fetch_add(n, std::memory_order_release);
}

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

void unpack_gather_reply(std::uint64_t cookie, const void *data, std::size_t n) {
    if (cookie & get_batch_bit) return unpack_get_batch_reply(cookie, data, n);
    unpack_strided_get_reply(cookie, data, n);
}

void install_message_handlers() {
    transport::set_signal_handler(store_signal_message);
    transport::set_bulk_checker([](std::uint64_t addr, std::size_t n) {
        seg_id s;
        std::size_t off;
        return locate(reinterpret_cast<void *>(addr), n ? n : 1, s, off);
    });
    transport::set_ack_handler(count_acks, std::uint32_t(rt.me), std::uint32_t(rt.npes));
    transport::set_gather_handlers(pack_gather_reply, unpack_gather_reply);
}

} // namespace ushmem::core
