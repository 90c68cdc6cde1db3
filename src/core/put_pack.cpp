// Put packs: a stream of small non-blocking puts to a PE whose RMA is emulated, in one message.
//
// Over tcp every message is a system call on the sender (and one on the target): 5-7 us on this
// class of machine, which bounded a put_nbi stream at 0.15 Mputs/s for ushmem, raw UCX, OSHMEM and
// MPI alike. A put_nbi needs only local completion on return (its delivery is the business of
// quiet), so its bytes are copied into the context's pack and leave with the others, as one
// acknowledged message (counted and completed like any other). Open MPI's osc/pt2pt packed small
// one-sided operations into fragments for the same reason.
//
// Ordering. The pack leaves before anything else of its context to its PE (settle_pack: every UCX
// operation, message, fence, quiet, pe_quiet and pe_test), so the puts keep their place among
// that context's operations to that PE; when its PE's pack is full, or its slot is taken for
// another PE (a context keeps packs to USHMEM_PUT_PACK_PES PEs at once: put_nbi's that alternate
// between PEs, a random-access pattern, are packed per PE; the slots are taken round robin); and
// when the thread that filled it waits or tests with its condition false (settle_thread_packs),
// so that a program that waits for an answer to puts it never completed (not valid OpenSHMEM,
// but it works everywhere else) still gets it. A thread that computes without calling the library
// would otherwise hold its pack until its next call: where a progress thread runs, that thread
// sends a pack that has been left alone for USHMEM_PUT_PACK_HOLD (send_held_packs), at its looks.
// Each pack is used by one of the program's threads: below SHMEM_THREAD_MULTIPLE the program
// calls the library from one thread at a time; at it, only private contexts pack. The progress
// thread's sends exclude the owner's use through context::pack_holder (pack_guard, put_pack.hpp).
//
// Blocking puts and non-fetching atomics join the packs too with USHMEM_PUT_PACK_BLOCKING (off by
// default): a stream of them then costs one message per pack, not one each, but a flag set by one
// is delivered only when its pack leaves (at the latest the hold after the program stops adding
// to it), where without packing it leaves at once.
//
// Get batches. A get_nbi over tcp is UCX's request and reply, a system call each side each way:
// a stream of small get_nbi's (random reads of a table, a graph's neighbours) ran at one get per
// 5-7 us, as puts did. Its completion is the business of quiet too, so small get_nbi's to a PE
// take a slot as puts do, holding the list of their sources; the slot leaves as one request
// (transport's gather request), which the target answers with one reply of their bytes, in order;
// the reply's handler copies them to their destinations and counts them done (reply_done), and
// a quiet waits for the batches sent to each PE with pend_gets. A slot holds puts or gets, never
// both: a get after puts to its PE sends the puts first, and a put after gets sends the gets, so
// that each reads or writes the target's memory where the program put it (the target runs
// messages of one endpoint in order). The batch leaves when a pack would: at a wait or test of its
// thread, at any other operation of the context to its PE, at fence, quiet, pe_quiet. Fetching
// non-blocking atomics join the batch too (pack_fetch): their result is due at quiet as well; the
// target applies each where its record stands and answers its old value in the reply.
#include "core/clock.hpp"
#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/lanes.hpp"
#include "core/log.hpp"
#include "core/message_send.hpp"
#include "core/peers.hpp"
#include "core/put_pack.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"
#include "transport/transport.hpp"
#include "util/put_pack.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ushmem::core {
namespace {
// The contexts with an open pack. Each pack is used by one thread at a time: every context below
// SHMEM_THREAD_MULTIPLE (the program's threads call the library one at a time), only private ones
// at it. The list itself is shared there: a lock, taken when a pack opens or leaves.
std::vector<context *> g_open;
std::mutex g_open_lock;

// The progress thread reads the list too (send_held_packs) where it may send packs. Decided at
// init (every context alike), read by that thread: atomic, as a context created later stores it
// again.
std::atomic<bool> g_thread_sends{false};

std::unique_lock<std::mutex> list_lock() {
    std::unique_lock<std::mutex> g(g_open_lock, std::defer_lock);
    if (rt.thread_level == thread_multiple || g_thread_sends.load(std::memory_order_relaxed)) g.lock();
    return g;
}

void list(context &c) {
    bool first;
    {
        const auto g = list_lock();
        first = g_open.empty();
        g_open.push_back(&c);
        detail::open_packs.store(unsigned(g_open.size()), std::memory_order_relaxed);
    }
    // A progress thread asleep on the worker's events (its PE was away) would not look at the
    // pack before the next message: it is woken to park instead, and looks within the hold.
    if (first && c.pack_shared) transport::rouse_server();
}

void unlist(context &c) {
    const auto g = list_lock();
    auto it = std::find(g_open.begin(), g_open.end(), &c);
    if (it != g_open.end()) {
        *it = g_open.back();
        g_open.pop_back();
    }
    detail::open_packs.store(unsigned(g_open.size()), std::memory_order_relaxed);
}

// Get batches whose replies are awaited, by cookie (without get_batch_bit). Registered when sent,
// removed by their reply, or by forget_get_batches (a context destroyed without its replies).
struct get_batch {
    const context *c;
    int pe;
    std::vector<context::get_dest> dests;
    std::atomic<std::uint64_t> *done;  // the context's reply_done(pe)
};
std::mutex g_batches_lock;
std::unordered_map<std::uint64_t, get_batch> g_batches;
std::uint64_t g_batches_next = 1;

} // namespace

void enable_packing(context &c) {
    g_send_packs_before_wait.store([](const char *routine) { settle_thread_packs(routine); },
                                   std::memory_order_relaxed);
    if (!c.acked_msgs || rt.cfg.put_pack == 0) return;
    if (rt.thread_level == thread_multiple && !c.private_ctx) return;  // threads may share it
    // At most signal_message_max: USHMEM_PUT_PACK's range (env_defs.h) ends at 64K.
    static_assert(signal_message_max == 64 * 1024, "USHMEM_PUT_PACK's range in env_defs.h");
    const std::size_t cap = rt.cfg.put_pack;
    if (cap < util::put_pack::record_bytes(8)) return;  // too small to hold one 8-byte put
    c.pack_cap = std::uint32_t(cap);
    c.pack_item = std::uint32_t(std::max<std::size_t>(cap / 8, 8));
    c.pack_slots = std::uint8_t(rt.cfg.put_pack_pes);  // 1 to 64 (env_defs.h, checked at load)
    c.packs.reset(new context::pack_slot[c.pack_slots]);  // buffers on first use
    // The progress thread drives the main worker only: a context's own worker is never its.
    const bool thread_sends = rt.progress_thread && rt.cfg.put_pack_hold > 0;
    g_thread_sends.store(thread_sends, std::memory_order_relaxed);
    c.pack_shared = thread_sends && !c.own_worker;
    c.pack_blocking = c.pack_shared && rt.cfg.put_pack_blocking;
}

void pack_guard::wait(context &c, unsigned long self) {
    // The progress thread is sending the packs: one message, microseconds. On a shared core it
    // may have been descheduled meanwhile: give it the core after a short spin.
    for (int i = 0;; ++i) {
        if (c.pack_holder.load(std::memory_order_relaxed) == 0 && try_take(c, self)) return;
        if (i < 200) __builtin_ia32_pause();
        else sched_yield();
    }
}

void retire_packs(context &c) {
    const pack_guard g(c);
}

void settle_pack_slow(const char *routine, context &c, int pe) {
    const pack_guard g(c);
    if (const int i = pack_slot_of(c, pe); i >= 0) send_pack(routine, c, unsigned(i));
}

namespace {
// One slot's pack has been issued: it stops counting (context::packs_open: only now, so that a
// thread that sees none open knows they are all in UCX).
void close_slot(context &c) {
    const std::uint8_t left = std::uint8_t(c.packs_open.load(std::memory_order_relaxed) - 1);
    c.packs_open.store(left, std::memory_order_release);
    if (left == 0) unlist(c);
}

void send_get_batch(const char *routine, context &c, unsigned i) {
    context::pack_slot &k = c.packs[i];
    const int pe = k.pe;
    const std::uint32_t n = k.len, bytes = k.reply_bytes;
    const std::uint32_t count = std::uint32_t(k.dests.size());
    std::uint64_t id;
    {
        std::lock_guard<std::mutex> g(g_batches_lock);
        id = g_batches_next++;
        g_batches.emplace(id, get_batch{&c, pe, std::vector<context::get_dest>(k.dests.begin(), k.dests.end()),
                                        &c.reply_done(pe)});
    }
    // Closed before it leaves, as a pack: what follows (message_ep) settles the PE's pack and
    // must find none. The list stays in the buffer (unused until the slot opens again) until the
    // request has copied it. Still counted open until issued (context::packs_open).
    k.pe = -1;
    k.len = 0;
    k.gets = false;
    k.reply_bytes = 0;
    k.dests.clear();
    peer &p = rt.peers[std::size_t(pe)];
    const transport::ep_h ep = message_ep(routine, c, p, pe);  // before worker_of: it may create the context's worker
    const transport::gather_header h{0, bytes, id | get_batch_bit, 0, count};
    if (const char *err = transport::gather_nbx(worker_of(c), ep, h, k.buf.get(), n))
        fatal(routine, "get_nbi's from PE %d failed: %s", pe, err);
    c.note_pending(pe, pend_gets);
    close_slot(c);
}
} // namespace

void send_pack(const char *routine, context &c, unsigned i) {
    const pack_guard g(c);
    context::pack_slot &k = c.packs[i];
    if (k.gets) return send_get_batch(routine, c, i);
    const int pe = k.pe;
    const std::uint32_t n = k.len;
    // Closed first (a slot free for the next pack to this PE). Sent through the one sender
    // (message_send.hpp) as the pack it is: no open pack to settle before it. The message holds a
    // copy of the pack (transport::signal_nbx): the buffer is free again on return.
    k.pe = -1;
    k.len = 0;
    send_message(routine, c, rt.peers[std::size_t(pe)], pe, {.data_addr = 0, .sig_addr = 0, .value = 0, .op = transport::signal_op::pack},
                 k.buf.get(), n, 0, "put");
    close_slot(c);
}

void send_packs(const char *routine, context &c) {
    const pack_guard g(c);
    for (unsigned i = 0; i < c.pack_slots && c.packs_open.load(std::memory_order_relaxed); ++i)
        if (c.packs[i].pe >= 0) send_pack(routine, c, i);
}

namespace {
// Opens a pack to `pe` in a free slot, or in the next victim's after sending it.
unsigned open_pack(const char *routine, context &c, int pe) {
    unsigned i = 0;
    if (c.packs_open < c.pack_slots) {
        while (c.packs[i].pe >= 0) ++i;
    } else {
        i = c.pack_victim;
        c.pack_victim = std::uint8_t((i + 1) % c.pack_slots);
        send_pack(routine, c, i);
    }
    context::pack_slot &k = c.packs[i];
    if (!k.buf) k.buf.reset(new char[c.pack_cap]);
    k.pe = pe;
    const std::uint8_t was = c.packs_open.load(std::memory_order_relaxed);
    c.packs_open.store(std::uint8_t(was + 1), std::memory_order_relaxed);
    if (was == 0) {
        c.pack_thread = static_cast<unsigned long>(pthread_self());
        list(c);
    }
    // Listed as pending: quiet's fast path then sees the pack, and quiet_slow sends it.
    c.note_pending(pe, pend_pack);
    return i;
}
} // namespace

namespace {
void note_added() {
    detail::pack_seq.store(detail::pack_seq.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// c's open pack of puts to `pe` when it has `need` bytes of room, or nullptr. (A get batch is sent
// before what would join it by that operation's own message.)
context::pack_slot *pack_with_room(context &c, int pe, std::size_t need) {
    if (!c.packs_open.load(std::memory_order_relaxed)) return nullptr;
    const int i = pack_slot_of(c, pe);
    if (i < 0 || c.packs[i].gets || c.packs[i].len + need > c.pack_cap) return nullptr;
    return &c.packs[i];
}

void append_record(context::pack_slot &slot, std::uint64_t raddr, const void *src, std::size_t n,
                   util::put_pack::kind k = util::put_pack::kind::put) {
    util::put_pack::append(slot.buf.get(), slot.len, raddr, src, n, k);
    slot.len += std::uint32_t(util::put_pack::record_bytes(n));
    note_added();
}
} // namespace

bool send_in_pack(const char *routine, context &c, int pe, std::uint64_t raddr, const void *src, std::size_t n,
                  util::put_pack::kind k) {
    if (USHMEM_LIKELY(c.packs_open.load(std::memory_order_acquire) == 0)) return false;
    const pack_guard g(c);
    context::pack_slot *slot = pack_with_room(c, pe, util::put_pack::record_bytes(n));
    if (!slot) return false;
    append_record(*slot, raddr, src, n, k);
    send_pack(routine, c, unsigned(slot - c.packs.get()));
    return true;
}

bool send_signal_in_pack(const char *routine, context &c, int pe, std::uint64_t data_raddr, const void *src,
                         std::size_t n, std::uint64_t sig_raddr, std::uint64_t value, util::put_pack::kind k) {
    namespace pp = util::put_pack;
    if (USHMEM_LIKELY(c.packs_open.load(std::memory_order_acquire) == 0)) return false;
    const pack_guard g(c);
    context::pack_slot *slot = pack_with_room(c, pe, (n ? pp::record_bytes(n) : 0) + pp::record_bytes(8));
    if (!slot) return false;
    if (n) append_record(*slot, data_raddr, src, n);
    append_record(*slot, sig_raddr, &value, 8, k);
    send_pack(routine, c, unsigned(slot - c.packs.get()));
    return true;
}

void pack_put(const char *routine, context &c, int pe, std::uint64_t raddr, const void *src, std::size_t n,
              util::put_pack::kind kind) {
    const pack_guard g(c);
    const std::size_t need = util::put_pack::record_bytes(n);
    const int found = pack_slot_of(c, pe);
    unsigned i;
    if (USHMEM_UNLIKELY(found < 0)) {
        i = open_pack(routine, c, pe);
    } else {
        i = unsigned(found);
        if (USHMEM_UNLIKELY(c.packs[i].gets || c.packs[i].len + need > c.pack_cap)) {
            send_pack(routine, c, i);
            i = open_pack(routine, c, pe);
        }
    }
    append_record(c.packs[i], raddr, src, n, kind);
    c.pack_last = std::uint8_t(i);
}

namespace {
// The slot of c's get batch to `pe` with room for a record of `need` bytes and n more bytes of
// reply, sending the PE's pack or batch first when it has none (opening one).
context::pack_slot &batch_with_room(const char *routine, context &c, int pe, std::size_t need, std::size_t n) {
    int found = pack_slot_of(c, pe);
    if (found >= 0) {
        const context::pack_slot &k = c.packs[found];
        // A reply of at most signal_message_max bytes: eager, as every message of ours.
        if (USHMEM_UNLIKELY(!k.gets || k.len + need > c.pack_cap || k.reply_bytes + n > signal_message_max)) {
            send_pack(routine, c, unsigned(found));
            found = -1;
        }
    }
    const unsigned i = found >= 0 ? unsigned(found) : open_pack(routine, c, pe);
    c.pack_last = std::uint8_t(i);
    context::pack_slot &k = c.packs[i];
    k.gets = true;
    return k;
}

void add_dest(context &c, context::pack_slot &k, int pe, std::size_t need, void *dst, std::size_t n) {
    k.len += std::uint32_t(need);
    k.reply_bytes += std::uint32_t(n);
    k.dests.push_back({dst, std::uint32_t(n)});
    note_added();
    // Issued now (the C++ API's per-PE reports count it outstanding); done when its reply is in.
    c.reply_issued(pe).fetch_add(1, std::memory_order_relaxed);
}
} // namespace

void pack_get(const char *routine, context &c, int pe, std::uint64_t raddr, void *dst, std::size_t n) {
    constexpr std::size_t need = util::put_pack::get_record_bytes;
    const pack_guard g(c);
    context::pack_slot &k = batch_with_room(routine, c, pe, need, n);
    util::put_pack::append_get(k.buf.get(), k.len, raddr, std::uint32_t(n));
    add_dest(c, k, pe, need, dst, n);
}

void pack_fetch(const char *routine, context &c, int pe, std::uint64_t raddr, void *dst, std::size_t n,
                util::put_pack::fetch_kind kind, std::uint64_t operand, std::uint64_t cmp) {
    constexpr std::size_t need = util::put_pack::fetch_record_bytes;
    const pack_guard g(c);
    context::pack_slot &k = batch_with_room(routine, c, pe, need, n);
    util::put_pack::append_fetch(k.buf.get(), k.len, raddr, std::uint32_t(n), kind, operand, cmp);
    add_dest(c, k, pe, need, dst, n);
}

void unpack_get_batch_reply(std::uint64_t cookie, const void *data, std::size_t n) {
    std::lock_guard<std::mutex> g(g_batches_lock);
    auto it = g_batches.find(cookie & ~get_batch_bit);
    if (it == g_batches.end()) return;  // forgotten: its context is gone
    const get_batch &b = it->second;
    std::size_t total = 0;
    for (const context::get_dest &d : b.dests) total += d.n;
    if (USHMEM_UNLIKELY(total != n)) {
        // From a peer of this job: a bug of ours. Nothing is written; the quiet waiting for it
        // ends with its timeout, naming the PE.
        std::fprintf(stderr, "ushmem: internal error: the reply to %zu get_nbi's from PE %d holds %zu bytes, not %zu\n",
                     b.dests.size(), b.pe, n, total);
        return;
    }
    const char *from = static_cast<const char *>(data);
    for (const context::get_dest &d : b.dests) {
        std::memcpy(d.dst, from, d.n);
        from += d.n;
    }
    b.done->fetch_add(b.dests.size(), std::memory_order_release);
    g_batches.erase(it);
}

void forget_get_batches(const context &c) {
    std::lock_guard<std::mutex> g(g_batches_lock);
    for (auto it = g_batches.begin(); it != g_batches.end();)
        it = it->second.c == &c ? g_batches.erase(it) : std::next(it);
}

namespace {
// One pass over the open packs (of thread `me` only, unless 0): each listed context's packs are
// sent. A pass, not a loop until the list is empty: a send may wait (a context's first connection
// to a PE), and a wait sends the thread's packs, which then finds the context of the pack being
// sent still listed (it leaves the list once its message is issued) and must not spin on it. No
// pack opens meanwhile (this thread is sending; another's are not its business), and no listed
// context goes away (only its owner, this thread, destroys it).
void send_listed(const char *routine, unsigned long me) {
    std::vector<context *> todo;
    {
        const auto g = list_lock();
        todo.reserve(g_open.size());
        for (context *c : g_open)
            if (!me || c->pack_thread == me) todo.push_back(c);
    }
    for (context *c : todo) send_packs(routine, *c);
}
} // namespace

void send_thread_packs(const char *routine) {
    // Below SHMEM_THREAD_MULTIPLE one thread at a time calls the library: every pack, whichever
    // thread opened it. At it only this thread's: another's private context is that thread's.
    if (rt.thread_level != thread_multiple) return send_all_packs(routine);
    send_listed(routine, static_cast<unsigned long>(pthread_self()));
}

void send_all_packs(const char *routine) {
    // Finalize (the program's other threads have stopped calling the library), or a wait below
    // SHMEM_THREAD_MULTIPLE.
    send_listed(routine, 0);
}

namespace {
// The progress thread's view of the packs (send_held_packs; only that thread uses these).
unsigned g_seen_seq = 0;
long g_still_since = 0;  // when it saw pack_seq at g_seen_seq first (0: not yet)
} // namespace

long send_held_packs(bool &sent) {
    sent = false;
    // seq_cst: after serve()'s announcement of its sleep (rouse_server's other half).
    if (!g_thread_sends.load(std::memory_order_relaxed) || detail::open_packs.load(std::memory_order_seq_cst) == 0) {
        g_still_since = 0;
        return 0;
    }
    const long hold = long(rt.cfg.put_pack_hold * 1e9);
    const unsigned seq = detail::pack_seq.load(std::memory_order_relaxed);
    const long now = now_nanos();
    if (seq != g_seen_seq || g_still_since == 0) {  // the program is adding to them: not now
        g_seen_seq = seq;
        g_still_since = now;
        return hold;
    }
    if (now - g_still_since < hold) return hold - (now - g_still_since);
    // Left alone for the hold: send every pack the thread may take. A context whose owner is
    // inside a pack routine right now is left to it (it is not left alone after all).
    const auto self = static_cast<unsigned long>(pthread_self());
    for (int tries = 0; tries < 64; ++tries) {
        context *c = nullptr;
        {
            std::lock_guard<std::mutex> g(g_open_lock);
            for (context *x : g_open) {
                if (x->pack_shared && x->packs_open.load(std::memory_order_relaxed) != 0 &&
                    pack_guard::try_take(*x, self)) {
                    c = x;
                    break;
                }
            }
        }
        if (!c) break;
        // Held: c stays alive until we let go (destroying it waits for that: retire_packs), and
        // is listed until its last pack is issued.
        detail::t_inflight_exempt = true;  // (lanes.hpp, inflight_over)
        send_packs("ushmem's progress thread (sending a held put pack)", *c);
        c->pack_holder.store(0, std::memory_order_release);
        sent = true;
    }
    g_seen_seq = detail::pack_seq.load(std::memory_order_relaxed);
    g_still_since = now_nanos();
    return detail::open_packs.load(std::memory_order_relaxed) ? hold : 0;
}

} // namespace ushmem::core
