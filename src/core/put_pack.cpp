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
// that context's operations to that PE; before a put_nbi to another PE (one pack at a time); and
// when the thread that filled it waits or tests with its condition false (settle_thread_packs),
// so that a program that waits for an answer to puts it never completed (not valid OpenSHMEM,
// but it works everywhere else) still gets it. A thread that computes without calling the library
// holds its pack until its next call, as UCX holds a message it could not send at once.
// Each pack is used by one thread: below SHMEM_THREAD_MULTIPLE the program calls the library from
// one thread at a time; at it, only private contexts pack.
#include "core/runtime.hpp"
#include "util/put_pack.hpp"

#include <pthread.h>

#include <algorithm>
#include <mutex>
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
}

void send_pack(const char *routine, context &c) {
    const int pe = c.pack_pe;
    const std::uint32_t n = c.pack_len;
    // Closed first: the message's own settle_pack then finds nothing to send.
    c.pack_pe = -1;
    c.pack_len = 0;
    unlist(c);
    signal_message(routine, c, rt.peers[std::size_t(pe)], pe, 0, c.pack.get(), n, 0, 0, transport::signal_op::pack);
}

void pack_put(const char *routine, context &c, int pe, std::uint64_t raddr, const void *src, std::size_t n) {
    const std::size_t need = util::put_pack::record_bytes(n);
    if (USHMEM_UNLIKELY(c.pack_pe != pe || c.pack_len + need > c.pack_cap)) {
        if (c.pack_pe >= 0) send_pack(routine, c);
        if (!c.pack) c.pack.reset(new char[c.pack_cap]);
        c.pack_pe = pe;
        c.pack_thread = static_cast<unsigned long>(pthread_self());
        list(c);
        // Listed as pending: quiet's fast path then sees the pack, and quiet_slow sends it.
        c.note_pending(pe, pend_pack);
    }
    util::put_pack::append(c.pack.get(), c.pack_len, raddr, src, n);
    c.pack_len += std::uint32_t(need);
}

void send_thread_packs(const char *routine) {
    // Only this thread's: another thread's context is that thread's to use.
    const auto me = static_cast<unsigned long>(pthread_self());
    while (context *c = first_of(me)) send_pack(routine, *c);
}

void send_all_packs(const char *routine) {
    // Finalize: the program's other threads have stopped calling the library.
    for (;;) {
        context *c;
        {
            const auto g = list_lock();
            if (g_open.empty()) return;
            c = g_open.back();
        }
        send_pack(routine, *c);
    }
}

} // namespace ushmem::core
