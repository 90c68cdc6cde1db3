// The UCX route of the atomics, and signals (put-with-signal, signal add/set/fetch); the messages
// that carry them where UCX emulates atomics are sent by messages.cpp and run by message_handlers.cpp.
//
// UCX 1.13.1 bug worked around here: a *fetching* AND/OR/XOR that UCX performs through its
// shared-memory or self atomics (uct_sm_ep_atomic64_fetch) returns the right old value but writes
// the old value back (XOR writes 0). Fetching AND/OR/XOR are therefore a compare-and-swap loop:
// read the word (fetching ADD of 0), CSWAP(old -> old OP v) until it succeeds, except where UCX
// emulates the atomic in software on the target's CPU (another PE whose RMA is emulated: tcp),
// which does it right (ucp's software atomics; mpi_tests/amo.c checks it over tcp and across
// two hosts) in one round trip, where the loop takes two. The non-fetching
// UCP_ATOMIC_OP_AND/OR/XOR (no reply buffer) take another path in UCX and are correct on this
// version over sysv, posix, self and tcp (mpi_tests/amo.c checks the new value in memory on every
// route); USHMEM_AMO_EMULATE_BITWISE_POST=1 at build time sends them through the loop as well.
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
#include "core/wait.hpp"
#include "core/wait_missing.hpp"
#include "transport/transport.hpp"
#include "util/put_pack.hpp"
#include "util/strided.hpp"

#include <cinttypes>
#include <cstdio>

#ifndef USHMEM_AMO_EMULATE_BITWISE_POST
#define USHMEM_AMO_EMULATE_BITWISE_POST 0
#endif

namespace ushmem::core {

[[noreturn]] void fail_misaligned(const char *routine, const char *what, const void *addr,
                                  std::size_t size, int pe) {
    fatal(routine,
          "%s %p (target PE %d) is not aligned to %zu bytes: atomic and signal operations need an "
          "object aligned to its size (address %% %zu = %zu); use a naturally aligned variable or "
          "array element",
          what, addr, pe, size, size, std::size_t(reinterpret_cast<std::uintptr_t>(addr) % size));
}

namespace {

// Reply buffer of the fetching UCX operations whose result nobody reads (SWAP has no
// non-fetching form: shmem_atomic_set and SHMEM_SIGNAL_SET use it). Several operations may be in
// flight into it at once; its contents are never read.
alignas(64) std::uint64_t g_discard[8];

[[noreturn]] void fail_amo(const char *routine, int pe, transport::status st) {
    fatal(routine, "atomic operation on PE %d failed: %s", pe, transport::status_string(st));
}

// Issues one UCX atomic. `reply`: reply buffer (fetching form) or nullptr. `async`: the request
// frees itself (completion is observed by quiet); otherwise the caller waits for it. `done`: an
// async fetching one's reply counter (context::reply_done), counted by its callback.
template <class U>
void *issue(const char *routine, transport::worker_h w, peer &p, int pe, seg_id s, std::size_t off, transport::atomic_op op,
            const U *operand, U *reply, bool async, std::atomic<std::uint64_t> *done = nullptr) {
    void *r = transport::atomic(w, p.ep, op, operand, sizeof(U), p.rbase[s] + off, p.rkey[s], reply, async, done);
    if (transport::is_error(r)) fail_amo(routine, pe, transport::error_of(r));
    return r;
}

// Waits for a fetching operation's reply. The target may have to run UCX progress for it (software
// emulation over tcp), and PEs often outnumber cores: spin briefly, then yield (wait_for), rather
// than spin on the worker like transport::wait_and_free.
void wait_reply(const char *routine, int pe, void *r, transport::worker_h w) {
    const bool own = w != transport::worker();  // a context's own worker: drive it too
    const transport::own_wait_scope sleeps_watch(w);
    wait_described(
        routine,
        [r, w, own] {
            if (own) transport::progress_worker(w);
            return transport::request_status(r) != transport::status_in_progress;
        },
        [pe](char *b, std::size_t n) {
            std::snprintf(b, n, "the reply of an atomic operation on PE %d", pe);
        },
        false, on_other_node(pe));
    transport::status st = transport::request_status(r);
    transport::request_free(w, r);
    if (st != transport::status_ok) fail_amo(routine, pe, st);
}

// Blocking fetching operation: returns the old value. For CSWAP `cmp` is the expected value and
// `v` the new one: UCX takes the compare value as the operand and the new value in the reply
// buffer, which the old value then replaces (ucp.h, "Atomic Operations Semantic").
template <class U>
U fetch_blocking(const char *routine, transport::worker_h w, peer &p, int pe, seg_id s, std::size_t off,
                 transport::atomic_op op, U v, U cmp) {
    U operand = v, reply = 0;
    if (op == transport::atomic_op::cswap) {
        operand = cmp;
        reply = v;
    }
    void *r = issue<U>(routine, w, p, pe, s, off, op, &operand, &reply, false);
    if (r != nullptr) wait_reply(routine, pe, r, w);
    return reply;
}

template <class U> U apply(amo op, U old, U v) {
    switch (op) {
    case amo::fetch_and:
    case amo::band: return old & v;
    case amo::fetch_or:
    case amo::bor: return old | v;
    default: return old ^ v;
    }
}

// Fetching AND/OR/XOR as a CSWAP loop (see the file comment). Returns the old value.
template <class U>
U bitwise_cas_loop(const char *routine, transport::worker_h w, peer &p, int pe, seg_id s, std::size_t off,
                   amo op, U v) {
    U old = fetch_blocking<U>(routine, w, p, pe, s, off, transport::atomic_op::add, U(0), U(0));
    for (;;) {
        U want = apply<U>(op, old, v);
        if (want == old) return old;  // nothing to change (e.g. OR with bits already set)
        U seen = fetch_blocking<U>(routine, w, p, pe, s, off, transport::atomic_op::cswap, want, old);
        if (seen == old) return old;
        old = seen;
    }
}

bool is_bitwise(amo op) {
    return op == amo::fetch_and || op == amo::fetch_or || op == amo::fetch_xor || op == amo::band ||
           op == amo::bor || op == amo::bxor;
}

// Whether UCX may perform a fetching AND/OR/XOR on `pe` itself (see the file comment): it
// emulates the atomic there in software, and the PE is not this one (self: the faulty path).
bool ucx_fetch_bitwise_ok(int pe) { return pe != rt.me && rma_emulated(pe); }

transport::atomic_op op_of(amo op) {
    switch (op) {
    case amo::set:
    case amo::swap: return transport::atomic_op::swap;
    case amo::cswap: return transport::atomic_op::cswap;
    case amo::band:
    case amo::fetch_and: return transport::atomic_op::band;
    case amo::bor:
    case amo::fetch_or: return transport::atomic_op::bor;
    case amo::bxor:
    case amo::fetch_xor: return transport::atomic_op::bxor;
    default: return transport::atomic_op::add;  // fetch (ADD 0), add, fetch_add
    }
}
} // namespace

// ---- atomics as messages ------------------------------------------------------------------------
// Where UCX emulates the peer's atomics (peer::msg_puts: its RMA is emulated, tcp), its CPU runs
// them from active messages anyway, so ushmem sends its own, which its handlers run with the same
// CPU atomics (so they stay atomic with UCX's and with same-node PEs' direct ones):
// - a non-fetching one is a record of the put pack's format (util/put_pack.hpp), acknowledged
//   like a put: add + quiet is a message and its acknowledgement, where UCX's atomic takes a
//   completion message from the target for every atomic and a flush (request and reply) at quiet;
//   it joins the context's open pack to that PE, if any, which then leaves with it: the atomic
//   is sent at once, like a blocking put, since programs count on it arriving without a quiet;
// - a blocking fetching one stays UCX's: one round trip already, which its emulation runs with the
//   same CPU atomics. (As ushmem's own request and reply, fetch-add, fetch and swap measured 2-5%
//   slower, and fetch-xor 12%: the reply's bookkeeping, a map entry and a malloc on each side.)
// - a non-blocking fetching one (fetch_add_nbi, compare_swap_nbi, ...) joins the context's get
//   batch to that PE (put_pack.cpp), as a small get_nbi does: its result is due at quiet, so a
//   stream of them costs one request and one reply instead of a round trip each (over tcp each
//   message is a system call on both sides). The target runs the records in order, with the same
//   CPU atomics. (fetch_kind_of, atomic.hpp: the record's kind.)
namespace {
util::put_pack::kind record_kind(amo op) {
    using util::put_pack::kind;
    switch (op) {
    case amo::set: return kind::set;
    case amo::band: return kind::band;
    case amo::bor: return kind::bor;
    case amo::bxor: return kind::bxor;
    default: return kind::add;
    }
}

template <class U>
void amo_message(const char *routine, context &c, peer &p, int pe, std::uint64_t raddr, amo op, U v, bool may_hold) {
    namespace pp = util::put_pack;
    if (c.pack_blocking && may_hold) {  // USHMEM_PUT_PACK_BLOCKING: it joins the pack as a put_nbi would
        pack_put(routine, c, pe, raddr, &v, sizeof(U), record_kind(op));
        return;
    }
    if (send_in_pack(routine, c, pe, raddr, &v, sizeof(U), record_kind(op))) return;
    constexpr std::size_t need = pp::record_bytes(sizeof(U));
    alignas(8) char rec[need];
    pp::append(rec, 0, raddr, &v, sizeof(U), record_kind(op));
    record_message(routine, c, p, pe, rec, need, "atomic operation");  // (after an open pack to that PE)
}

} // namespace

template <class U>
U amo_ucx_fetching(const char *routine, context &c, peer &shared, int pe, seg_id s, std::size_t off,
                   amo op, U v, U cmp) {
    peer &p = ucx_peer(routine, c, shared, pe, s);
    if (is_bitwise(op) && !ucx_fetch_bitwise_ok(pe))
        return bitwise_cas_loop<U>(routine, worker_of(c), p, pe, s, off, op, v);
    if (op == amo::fetch) v = 0;
    return fetch_blocking<U>(routine, worker_of(c), p, pe, s, off, op_of(op), v, cmp);
}

template <class U>
void amo_ucx_post(const char *routine, context &c, peer &shared, int pe, seg_id s, std::size_t off,
                  amo op, U v, bool signal) {
    if (c.acked_msgs && shared.msg_puts)
        return amo_message<U>(routine, c, shared, pe, shared.rbase[s] + off, op, v, !signal);
    peer &p = ucx_peer(routine, c, shared, pe, s);
    if (USHMEM_AMO_EMULATE_BITWISE_POST && is_bitwise(op)) {
        bitwise_cas_loop<U>(routine, worker_of(c), p, pe, s, off, op, v);
        return;
    }
    // SWAP needs a reply buffer even when nobody wants the old value.
    U *reply = op == amo::set ? reinterpret_cast<U *>(g_discard) : nullptr;
    void *r = issue<U>(routine, worker_of(c), p, pe, s, off, op_of(op), &v, reply, true);
    (void)r;  // NULL: done already; otherwise the callback frees it and quiet completes it
    c.note_pending(pe);
}

template <class U>
void amo_ucx_nbi(const char *routine, context &c, peer &shared, int pe, seg_id s, std::size_t off,
                 amo op, void *fetch, U v, U cmp) {
    if (c.pack_item && shared.msg_puts) {
        // Emulated, where puts are packed: into the context's get batch to that PE, one request
        // and one reply for the lot (see "atomics as messages" above).
        pack_fetch(routine, c, pe, shared.rbase[s] + off, fetch, sizeof(U), fetch_kind_of(op), v, cmp);
        return;
    }
    peer &p = ucx_peer(routine, c, shared, pe, s);
    if (is_bitwise(op) && !ucx_fetch_bitwise_ok(pe)) {
        // Emulated: blocking in effect, the result is in *fetch on return.
        U old = bitwise_cas_loop<U>(routine, worker_of(c), p, pe, s, off, op, v);
        std::memcpy(fetch, &old, sizeof old);
        return;
    }
    if (op == amo::fetch) v = 0;
    if (op == amo::cswap) {
        // CSWAP: the compare value is the operand, the new value goes in the reply buffer.
        std::memcpy(fetch, &v, sizeof v);
        v = cmp;
    }
    void *r = issue<U>(routine, worker_of(c), p, pe, s, off, op_of(op), &v, static_cast<U *>(fetch), true,
                       &c.reply_done(pe));
    c.note_pending(pe);
    count_reply(c, pe, r);
}

template std::uint32_t amo_ucx_fetching<std::uint32_t>(const char *, context &, peer &, int, seg_id,
                                                       std::size_t, amo, std::uint32_t, std::uint32_t);
template std::uint64_t amo_ucx_fetching<std::uint64_t>(const char *, context &, peer &, int, seg_id,
                                                       std::size_t, amo, std::uint64_t, std::uint64_t);
template void amo_ucx_post<std::uint32_t>(const char *, context &, peer &, int, seg_id, std::size_t,
                                          amo, std::uint32_t, bool);
template void amo_ucx_post<std::uint64_t>(const char *, context &, peer &, int, seg_id, std::size_t,
                                          amo, std::uint64_t, bool);
template void amo_ucx_nbi<std::uint32_t>(const char *, context &, peer &, int, seg_id, std::size_t,
                                         amo, void *, std::uint32_t, std::uint32_t);
template void amo_ucx_nbi<std::uint64_t>(const char *, context &, peer &, int, seg_id, std::size_t,
                                         amo, void *, std::uint64_t, std::uint64_t);

// ---- signals ----------------------------------------------------------------------------------

namespace {
// A signal's set or add as a signal message's operation.
transport::signal_op message_op(amo a) { return a == amo::set ? transport::signal_op::set : transport::signal_op::add; }

[[noreturn]] void fail_sig_op(const char *routine, int op) {
    fatal(routine, "sig_op %d is invalid; pass SHMEM_SIGNAL_SET (%d) or SHMEM_SIGNAL_ADD (%d)", op,
          int(sig_op::set), int(sig_op::add));
}
} // namespace

void put_signal(const char *routine, context &c, void *dest, const void *src, std::size_t n,
                std::uint64_t *sig_addr, std::uint64_t signal, int op, int pe, bool nbi) {
    if (USHMEM_UNLIKELY(op != int(sig_op::set) && op != int(sig_op::add))) fail_sig_op(routine, op);
    seg_id ds, ss;
    std::size_t doff, soff;
    locate_or_fail(routine, "destination", dest, n, pe, ds, doff);
    peer &p = amo_target(routine, "signal", sig_addr, sizeof(std::uint64_t), pe, ss, soff);
    if (USHMEM_UNLIKELY(n && ds == ss && soff + 8 > doff && doff + n > soff))
        fatal(routine, "the signal %p overlaps the destination [%p, %p); they must not overlap",
              static_cast<void *>(sig_addr), dest, static_cast<void *>(static_cast<char *>(dest) + n));
    const amo sop = op == int(sig_op::set) ? amo::set : amo::add;
    // The destination's entry: the signal's, unless one of them lies in a grown heap chunk, which
    // has its own (route.hpp, target). Addresses (rbase) are the same in both.
    peer &dp = n && ds != ss ? target(routine, pe, ds) : p;
    if (p.how[ss] == route::ucx && p.msg_signals &&
        (n <= signal_message_max || (c.acked_msgs && p.msg_puts && bulk_size(n))) && (!n || dp.how[ds] == route::ucx)) {
        // Where the peer's atomics are emulated: data and signal in one message (messages.hpp; a
        // bulk one from USHMEM_BULK_MIN on, whose signal is applied once its data is in), that of
        // the context's open pack to the PE if any (the signal's record last: applied after the
        // data and the packed puts, as a signal message after the pack would be).
        if (c.acked_msgs && p.msg_puts &&
            send_signal_in_pack(routine, c, pe, dp.rbase[ds] + doff, src, n, p.rbase[ss] + soff, signal,
                                record_kind(sop)))
            return;
        // (put_signal_nbi: its source is lent, as a put_nbi's: rma.cpp, put_ucx.)
        signal_message(routine, c, p, pe, dp.rbase[ds] + doff, src, n, p.rbase[ss] + soff, signal, message_op(sop), nbi);
        return;
    }
    bool data_ucx = false;
    if (n) {
        if (dp.how[ds] == route::direct) {
            std::memcpy(dp.direct[ds] + doff, src, n);
            c.note_direct();
        } else {
            put_ucx(routine, c, dp, pe, ds, doff, src, n, nbi);
            data_ucx = true;
        }
    }
    if (p.how[ss] == route::direct) {
        // Data through UCX, signal by a store: the data must have arrived first. Only a flush
        // tells that, so this combination (e.g. USHMEM_STATIC_DATA=0 with a static destination
        // and a heap signal) is blocking even in the nbi form.
        if (data_ucx) pe_quiet(routine, c, pe);
        else if (n) store_fence();
        auto *w = reinterpret_cast<std::uint64_t *>(p.direct[ss] + soff);
        if (sop == amo::set) {
            __atomic_store_n(w, signal, __ATOMIC_RELEASE);
            wake_after_store(p);
        } else {
            __atomic_fetch_add(w, signal, __ATOMIC_RELEASE);
            wake_after_rmw(p);
        }
        return;
    }
    // Signal through UCX: a fence orders it behind the put (same worker); direct data is in
    // place already, its stores fenced before the atomic leaves.
    if (data_ucx) transport::worker_fence(worker_of(c));
    else if (n) store_fence();
    amo_ucx_post<std::uint64_t>(routine, c, p, pe, ss, soff, sop, signal, true);
}

void signal_update(const char *routine, context &c, std::uint64_t *sig_addr, std::uint64_t signal,
                   sig_op op, int pe) {
    seg_id s;
    std::size_t off;
    peer &p = amo_target(routine, "signal", sig_addr, sizeof(std::uint64_t), pe, s, off);
    const amo a = op == sig_op::set ? amo::set : amo::add;
    if (p.how[s] == route::direct) {
        amo_direct<std::uint64_t>(a, reinterpret_cast<std::uint64_t *>(p.direct[s] + off), signal, 0);
        wake_after_rmw(p);  // (amo_direct is a full barrier)
        return;
    }
    if (p.msg_signals) {
        if (c.acked_msgs && p.msg_puts &&
            send_signal_in_pack(routine, c, pe, 0, nullptr, 0, p.rbase[s] + off, signal, record_kind(a)))
            return;
        signal_message(routine, c, p, pe, 0, nullptr, 0, p.rbase[s] + off, signal, message_op(a));
        return;
    }
    amo_ucx_post<std::uint64_t>(routine, c, p, pe, s, off, a, signal, true);
}


std::uint64_t signal_fetch(const char *routine, const std::uint64_t *sig_addr) {
    seg_id s;
    std::size_t off;
    locate_or_fail(routine, "signal", sig_addr, sizeof(std::uint64_t), rt.me, s, off);
    if (USHMEM_UNLIKELY(reinterpret_cast<std::uintptr_t>(sig_addr) & 7))
        fail_misaligned(routine, "signal", sig_addr, sizeof(std::uint64_t), rt.me);
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

} // namespace ushmem::core
