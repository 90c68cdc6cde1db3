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
// holds its pack until its next call, as UCX holds a message it could not send at once.
// Each pack is used by one thread: below SHMEM_THREAD_MULTIPLE the program calls the library from
// one thread at a time; at it, only private contexts pack.
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
#include "core/runtime.hpp"
#include "util/put_pack.hpp"

#include <pthread.h>

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

std::unique_lock<std::mutex> list_lock() {
    std::unique_lock<std::mutex> g(g_open_lock, std::defer_lock);
    if (rt.thread_level == thread_multiple) g.lock();
    return g;
}

void list(context &c) {
    const auto g = list_lock();
    g_open.push_back(&c);
    detail::open_packs.store(unsigned(g_open.size()), std::memory_order_relaxed);
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

// The first open pack of thread `me`, or nullptr.
context *first_of(unsigned long me) {
    const auto g = list_lock();
    for (context *c : g_open)
        if (c->pack_thread == me) return c;
    return nullptr;
}
} // namespace

void enable_packing(context &c) {
    if (!c.acked_msgs || rt.cfg.put_pack == 0) return;
    if (rt.thread_level == thread_multiple && !c.private_ctx) return;  // threads may share it
    const std::size_t cap = std::min(rt.cfg.put_pack, signal_message_max);
    if (cap < util::put_pack::record_bytes(8)) return;  // too small to hold one 8-byte put
    c.pack_cap = std::uint32_t(cap);
    c.pack_item = std::uint32_t(std::max<std::size_t>(cap / 8, 8));
    c.pack_slots = std::uint8_t(std::clamp<long>(rt.cfg.put_pack_pes, 1, 64));
    c.packs.reset(new context::pack_slot[c.pack_slots]);  // buffers on first use
}

namespace {
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
    // request has copied it.
    k.pe = -1;
    k.len = 0;
    k.gets = false;
    k.reply_bytes = 0;
    k.dests.clear();
    if (--c.packs_open == 0) unlist(c);
    peer &p = rt.peers[std::size_t(pe)];
    const ucp_ep_h ep = message_ep(routine, c, p, pe);  // before worker_of: it may create the context's worker
    const transport::gather_header h{0, bytes, id | get_batch_bit, 0, count};
    if (const char *err = transport::gather_nbx(worker_of(c), ep, h, k.buf.get(), n))
        fatal(routine, "get_nbi's from PE %d failed: %s", pe, err);
    c.note_pending(pe, pend_gets);
}
} // namespace

void send_pack(const char *routine, context &c, unsigned i) {
    context::pack_slot &k = c.packs[i];
    if (k.gets) return send_get_batch(routine, c, i);
    const int pe = k.pe;
    const std::uint32_t n = k.len;
    // Closed first: the message's own settle_pack then finds nothing to send. The message holds
    // a copy of the pack (transport::signal_nbx): the buffer is free again on return.
    k.pe = -1;
    k.len = 0;
    if (--c.packs_open == 0) unlist(c);
    signal_message(routine, c, rt.peers[std::size_t(pe)], pe, 0, k.buf.get(), n, 0, 0, transport::signal_op::pack);
}

void send_packs(const char *routine, context &c) {
    for (unsigned i = 0; i < c.pack_slots && c.packs_open; ++i)
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
    if (c.packs_open++ == 0) {
        c.pack_thread = static_cast<unsigned long>(pthread_self());
        list(c);
    }
    // Listed as pending: quiet's fast path then sees the pack, and quiet_slow sends it.
    c.note_pending(pe, pend_pack);
    return i;
}
} // namespace

namespace {
// c's open pack of puts to `pe` when it has `need` bytes of room, or nullptr. (A get batch is sent
// before what would join it by that operation's own message.)
context::pack_slot *pack_with_room(context &c, int pe, std::size_t need) {
    if (!c.packs_open) return nullptr;
    const int i = pack_slot_of(c, pe);
    if (i < 0 || c.packs[i].gets || c.packs[i].len + need > c.pack_cap) return nullptr;
    return &c.packs[i];
}

void append_record(context::pack_slot &slot, std::uint64_t raddr, const void *src, std::size_t n,
                   util::put_pack::kind k = util::put_pack::kind::put) {
    util::put_pack::append(slot.buf.get(), slot.len, raddr, src, n, k);
    slot.len += std::uint32_t(util::put_pack::record_bytes(n));
}
} // namespace

bool send_in_pack(const char *routine, context &c, int pe, std::uint64_t raddr, const void *src, std::size_t n,
                  util::put_pack::kind k) {
    context::pack_slot *slot = pack_with_room(c, pe, util::put_pack::record_bytes(n));
    if (!slot) return false;
    append_record(*slot, raddr, src, n, k);
    send_pack(routine, c, unsigned(slot - c.packs.get()));
    return true;
}

bool send_signal_in_pack(const char *routine, context &c, int pe, std::uint64_t data_raddr, const void *src,
                         std::size_t n, std::uint64_t sig_raddr, std::uint64_t value, util::put_pack::kind k) {
    namespace pp = util::put_pack;
    context::pack_slot *slot = pack_with_room(c, pe, (n ? pp::record_bytes(n) : 0) + pp::record_bytes(8));
    if (!slot) return false;
    if (n) append_record(*slot, data_raddr, src, n);
    append_record(*slot, sig_raddr, &value, 8, k);
    send_pack(routine, c, unsigned(slot - c.packs.get()));
    return true;
}

void pack_put(const char *routine, context &c, int pe, std::uint64_t raddr, const void *src, std::size_t n) {
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
    append_record(c.packs[i], raddr, src, n);
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
    // Issued now (the C++ API's per-PE reports count it outstanding); done when its reply is in.
    c.reply_issued(pe).fetch_add(1, std::memory_order_relaxed);
}
} // namespace

void pack_get(const char *routine, context &c, int pe, std::uint64_t raddr, void *dst, std::size_t n) {
    constexpr std::size_t need = util::put_pack::get_record_bytes;
    context::pack_slot &k = batch_with_room(routine, c, pe, need, n);
    util::put_pack::append_get(k.buf.get(), k.len, raddr, std::uint32_t(n));
    add_dest(c, k, pe, need, dst, n);
}

void pack_fetch(const char *routine, context &c, int pe, std::uint64_t raddr, void *dst, std::size_t n,
                util::put_pack::fetch_kind kind, std::uint64_t operand, std::uint64_t cmp) {
    constexpr std::size_t need = util::put_pack::fetch_record_bytes;
    context::pack_slot &k = batch_with_room(routine, c, pe, need, n);
    util::put_pack::append_fetch(k.buf.get(), k.len, raddr, std::uint32_t(n), kind, operand, cmp);
    add_dest(c, k, pe, need, dst, n);
}

void on_get_batch_reply(std::uint64_t cookie, const void *data, std::size_t n) {
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

void send_thread_packs(const char *routine) {
    // Below SHMEM_THREAD_MULTIPLE one thread at a time calls the library: every pack, whichever
    // thread opened it. At it only this thread's: another's private context is that thread's.
    if (rt.thread_level != thread_multiple) return send_all_packs(routine);
    const auto me = static_cast<unsigned long>(pthread_self());
    while (context *c = first_of(me)) send_packs(routine, *c);
}

void send_all_packs(const char *routine) {
    // Finalize (the program's other threads have stopped calling the library), or a wait below
    // SHMEM_THREAD_MULTIPLE.
    for (;;) {
        context *c;
        {
            const auto g = list_lock();
            if (g_open.empty()) return;
            c = g_open.back();
        }
        send_packs(routine, *c);
    }
}

} // namespace ushmem::core
