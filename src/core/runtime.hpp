// ushmem core: runtime state and the inline data path.
//
// Layering: api (C entry points) -> core (this) -> transport (UCX) / bootstrap (MPI). Core knows
// nothing of the C API's names: every entry point passes its own name down for messages.
#pragma once

#include "core/env.hpp"
#include "core/heap_alloc.hpp"
#include "core/log.hpp"
#include "transport/transport.hpp"
#include "util/put_pack.hpp"
#include "util/strided.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <pthread.h>

#define USHMEM_LIKELY(x) __builtin_expect(!!(x), 1)
#define USHMEM_UNLIKELY(x) __builtin_expect(!!(x), 0)
// The data path is a handful of instructions per call: keep it in the C entry point, whatever
// the compiler's size heuristics say.
#define USHMEM_HOT inline __attribute__((always_inline))

namespace ushmem::core {

// Symmetric segments: the heap, and the program's global/static data.
enum seg_id : std::uint8_t { seg_heap = 0, seg_static = 1, seg_count = 2 };

// How a (peer, segment) pair is reached. Decided on first use, then fixed.
enum class route : std::uint8_t { unresolved = 0, direct = 1, ucx = 2 };

// Everything the data path needs about one peer, in one cache line.
struct alignas(64) peer {
    route how[seg_count] = {route::unresolved, route::unresolved};
    // Signals (the collectives', put_signal's) go as signal messages (transport::signal_nbx): the
    // peer's atomics are emulated, so a message its CPU handles anyway, without the atomic's reply.
    bool msg_signals = false;
    // Puts go as acknowledged messages (context::acked_msgs): signal messages are on and UCX
    // emulates the peer's RMA, so a message and UCX's own operations to it share one ordered lane
    // (a later get sees the put); not where signal messages are only forced on.
    bool msg_puts = false;
    bool wired = false;  // a context's own endpoint: its connection is complete (own_ucx_peer)
    char *direct[seg_count] = {nullptr, nullptr};   // where the peer's segment is mapped here
    std::uint64_t rbase[seg_count] = {0, 0};        // the segment's address on the peer
    transport::rkey_h rkey[seg_count] = {nullptr, nullptr};
    transport::ep_h ep = nullptr;
};

struct segment {
    std::uintptr_t base = 0;  // local address
    std::size_t size = 0;
    transport::memory mem;
    std::vector<std::uint8_t> rkeys;       // every PE's packed rkey, concatenated
    std::vector<std::size_t> rkey_offsets;
    std::vector<std::uint64_t> bases;      // every PE's segment address
    bool same_address = false;             // bases are all equal
    std::size_t page_size = 0;             // page size backing it here
    std::uint64_t base_on(int pe) const { return same_address ? base : bases[std::size_t(pe)]; }
};

// A context's own UCX worker and endpoints. Contexts created with SHMEM_CTX_PRIVATE or
// SHMEM_CTX_SERIALIZED get one (USHMEM_CTX_WORKERS) on their first UCX operation: their operations
// then share no endpoint with another context, so their quiet flushes nothing but their own, and
// their owner thread takes no lock that other threads hold. The same-node direct path needs none.
struct context_lanes {
    transport::worker_h worker = nullptr;
    std::vector<peer> peers;  // ep and rkeys on this worker; routes and direct pointers: rt.peers
    // Acknowledged messages from this worker (context::acked_msgs), per PE, as rt.acks_sent and
    // rt.acks_done for the main worker: its own endpoint per PE delivers them in order, and their
    // acknowledgements, batched by the target, come to the main worker tagged with this stream
    // (transport::ack_owed).
    std::unique_ptr<std::atomic<std::uint64_t>[]> acks_sent, acks_done;
    std::uint32_t ack_stream = 0;  // set by transport::create_extra_worker (0: acknowledged on reply endpoints)
};

// pending[pe] bits: what a quiet must do for that PE. pend_flush: flush its endpoint (UCX
// operations); pend_acks: wait for the acknowledgements of the messages sent to it (rt.acks_*).
// pend_pack: an open put pack (put_pack.cpp), which a quiet sends first. pend_gets: batches of
// get_nbi's sent to it (put_pack.cpp) whose replies a quiet waits for (reply_issued/reply_done).
enum : std::uint8_t { pend_flush = 1, pend_acks = 2, pend_pack = 4, pend_gets = 8 };

// Per-context completion state: which PEs have UCX operations that a quiet must complete, and
// whether direct stores were made since the last quiet (a store fence then suffices).
struct context {
    std::vector<std::uint8_t> pending;  // per PE: pend_* bits
    std::vector<int> pending_list;      // the PEs with pending[pe] != 0
    // pending_list's size, for the checks made without the lock (quiet's and fence's fast path):
    // under SHMEM_THREAD_MULTIPLE another thread may be appending to the vector meanwhile, and
    // reading its pointers then is a data race (found by the TSan stage). Written with the list.
    std::atomic<std::uint32_t> pending_n{0};
    void pending_list_changed() { pending_n.store(std::uint32_t(pending_list.size()), std::memory_order_relaxed); }
    bool any_pending() const { return pending_n.load(std::memory_order_relaxed) != 0; }
    std::atomic<bool> direct_dirty{false};
    bool thread_safe = false;           // SHMEM_THREAD_MULTIPLE: guard the list
    std::mutex lock;
    // Contexts created from a team (shmem_team_create_ctx) number PEs within the team: the api
    // translates with team_pes[pe] (team_n entries). nullptr: world numbering.
    const int *team_pes = nullptr;
    int team_n = 0;
    bool own_worker = false;          // UCX operations go through `lanes` (created on first use)
    bool private_ctx = false;         // SHMEM_CTX_PRIVATE: only the thread that created it uses it
    // The program's contexts: puts and signals to a PE whose RMA is emulated go as messages that
    // the target acknowledges (completion by counting, not by a flush): on the main worker in
    // rt.acks_*, on a context's own worker in its lanes' (acks_sent_of).
    // Not the collectives' context: their messages are consumed by the receiver's wait, and an
    // acknowledgement each would be a send more per step on the target.
    bool acked_msgs = false;
    context_lanes *lanes = nullptr;
    // Gets and fetching atomics issued through UCX as non-blocking operations, per PE:
    // replies[2 * pe] counts those issued, replies[2 * pe + 1] those whose reply arrived (at issue
    // when UCX completed them inline, else in their callback). Unlike a put's, such a request's
    // completion is the operation's completion. Read by shmemx_ctx_pe_replies (the C++ API's
    // per-PE timeout reports); never reset, so readers take differences.
    std::unique_ptr<std::atomic<std::uint64_t>[]> replies;
    // The put packs (put_pack.cpp, USHMEM_PUT_PACK): non-blocking puts of up to pack_item bytes
    // to a PE reached by acknowledged messages are packed, one message for many, one pack per PE,
    // for up to pack_slots PEs at a time (USHMEM_PUT_PACK_PES). Used by one thread at a time.
    // pack_item 0: no packing (at SHMEM_THREAD_MULTIPLE, contexts other than private ones; the
    // collectives' context).
    // A slot holds puts (and atomics), or get_nbi's (`gets`: a get batch, put_pack.cpp): its
    // buffer then holds the request's list, and `dests` where each get's bytes go.
    struct get_dest {
        void *dst;
        std::uint32_t n;
    };
    struct pack_slot {
        int pe = -1;                   // -1: free
        std::uint32_t len = 0;
        bool gets = false;
        std::uint32_t reply_bytes = 0;  // gets: the bytes the reply will carry
        std::unique_ptr<char[]> buf;   // pack_cap bytes, allocated on first use
        std::vector<get_dest> dests;
    };
    std::uint32_t pack_item = 0;
    std::uint32_t pack_cap = 0;
    std::uint8_t pack_slots = 0;        // entries of packs
    // Slots holding a pack, counting one being sent until its message is issued: a thread that
    // finds 0 knows that nothing of the packs is still on its way into UCX (pack_guard).
    std::atomic<std::uint8_t> packs_open{0};
    std::uint8_t pack_last = 0;         // the slot the last put went to (checked first)
    std::uint8_t pack_victim = 0;       // the slot sent next when all are taken (round robin)
    unsigned long pack_thread = 0;      // pthread_self() of the thread that opened them
    std::unique_ptr<pack_slot[]> packs;
    // The progress thread may send this context's packs once they have been left alone for
    // USHMEM_PUT_PACK_HOLD (put_pack.cpp, send_held_packs): the packs are then used under
    // pack_holder (pack_guard). Only contexts on the main worker, which the thread drives.
    bool pack_shared = false;
    bool pack_blocking = false;         // blocking puts and non-fetching atomics join the packs too
    std::atomic<unsigned long> pack_holder{0};  // pthread_self() of the thread using the packs, or 0

    void reset(int npes, bool mt) {
        pending.assign(std::size_t(npes), 0);
        pending_list.clear();
        pending_list.reserve(16);
        pending_list_changed();
        direct_dirty.store(false, std::memory_order_relaxed);
        thread_safe = mt;
        acked_msgs = false;
        private_ctx = false;
        pack_item = pack_cap = 0;
        pack_slots = pack_last = pack_victim = 0;
        packs_open.store(0, std::memory_order_relaxed);
        pack_shared = pack_blocking = false;
        packs.reset();
        replies.reset(npes > 0 ? new std::atomic<std::uint64_t>[2 * std::size_t(npes)]() : nullptr);
    }
    std::atomic<std::uint64_t> &reply_issued(int pe) const { return replies[2 * std::size_t(pe)]; }
    std::atomic<std::uint64_t> &reply_done(int pe) const { return replies[2 * std::size_t(pe) + 1]; }
    // Relaxed atomic accesses to pending[] (plain loads and stores on x86-64): under
    // SHMEM_THREAD_MULTIPLE another thread's quiet clears the flags, under the lock, before it
    // flushes, so an operation whose flag was seen set is covered by that flush, and one that
    // sees it clear takes the lock and is listed again (found by the TSan stage).
    // pend_acks: the caller counted the message in rt.acks_sent before sending it; a quiet clears
    // the bits, then (after a full fence) reads the counts, so a message whose bit was seen set is
    // covered by that quiet's count.
    void note_pending(int pe, std::uint8_t bits = pend_flush) {
        std::uint8_t &w = pending[std::size_t(pe)];
        if (USHMEM_LIKELY((__atomic_load_n(&w, __ATOMIC_RELAXED) & bits) == bits)) return;
        std::unique_lock<std::mutex> g(lock, std::defer_lock);
        if (thread_safe) g.lock();
        const std::uint8_t old = w;
        if ((old & bits) == bits) return;
        __atomic_store_n(&w, std::uint8_t(old | bits), __ATOMIC_RELAXED);
        if (old) return;
        pending_list.push_back(pe);
        pending_list_changed();  // under the lock: it reads the list
    }
    void note_direct() {
        if (!direct_dirty.load(std::memory_order_relaxed)) direct_dirty.store(true, std::memory_order_relaxed);
    }
};

constexpr int thread_multiple = 3;  // same value as SHMEM_THREAD_MULTIPLE; core keeps its own name

enum class lib_state : int { uninitialized = 0, running = 1, finalized = 2 };

struct runtime {
    lib_state state = lib_state::uninitialized;
    int me = -1;
    int npes = 0;
    int init_count = 0;
    int thread_level = 0;
    segment seg[seg_count];
    std::vector<peer> peers;
    std::vector<int> node_of;
    int node_cpus = 0;  // CPUs this node's PEs may run on (bootstrap::job::node_cpus; 0: unknown)
    std::vector<std::uint8_t> worker_addrs;
    std::vector<std::size_t> worker_addr_offsets;
    context default_ctx;
    // Acknowledged messages on the main worker (context::acked_msgs), per PE: sent, and
    // acknowledged (by the ack handler, in progress, adding each acknowledgement's number). One
    // endpoint per PE delivers them in order and the target counts only messages it has stored,
    // so the stored ones are the oldest: acks_done >= a count read after a message was sent means
    // that message is stored, whatever order the acknowledgements arrive in.
    std::unique_ptr<std::atomic<std::uint64_t>[]> acks_sent, acks_done;
    settings cfg;  // as the user set them (load_settings); never changed after
    // Derived at init from cfg where this machine or UCX allows less (settings_in_effect shows them):
    std::size_t bulk_min = 0;  // USHMEM_BULK_MIN, or 0 where bulk messages cannot keep their order
    heap_allocator heap;
    std::size_t user_heap_offset = 0;  // the runtime's own symmetric area precedes user blocks
    std::uint64_t *runtime_words = nullptr;  // the runtime's own symmetric area (runtime.cpp, runtime_area)
    bool progress_thread = false;
    std::string resolve_error;
    // The bound on what is in flight to one PE (USHMEM_INFLIGHT_MSGS, USHMEM_INFLIGHT_BYTES; "no
    // bound" as the largest value), checked before each acknowledged message (atomic.cpp).
    std::uint64_t inflight_msgs = ~std::uint64_t(0);
    std::int64_t inflight_bytes = INT64_MAX;
};

extern runtime rt;

// The counts of a context's acknowledged messages: the main worker's, or its own worker's (which
// exists once it sent one).
inline std::atomic<std::uint64_t> *acks_sent_of(const context &c) {
    return USHMEM_LIKELY(!c.own_worker) ? rt.acks_sent.get() : c.lanes->acks_sent.get();
}
inline std::atomic<std::uint64_t> *acks_done_of(const context &c) {
    return USHMEM_LIKELY(!c.own_worker) ? rt.acks_done.get() : c.lanes->acks_done.get();
}
namespace detail {
// Set on the progress thread (put_pack.cpp, send_held_packs): it never waits for the bound.
inline thread_local bool t_inflight_exempt = false;
}
// Whether a message of n bytes to `pe` on `c` (acknowledged messages) would pass the bound on
// what is in flight to it: its unacknowledged messages (sent - done) and the bytes of messages
// this PE still holds for it (transport::held_bytes: a target that stops reading leaves them
// queued). A message is always let through when none is held (a bound below one message's size
// must not stop everything). One branch in the common case (| not ||: both are a load or two).
inline bool inflight_over(const context &c, int pe, std::size_t n) {
    const std::size_t i = std::size_t(pe);
    const std::int64_t held = transport::held_bytes(std::uint32_t(pe));
    return (acks_sent_of(c)[i].load(std::memory_order_relaxed) - acks_done_of(c)[i].load(std::memory_order_relaxed) >=
            rt.inflight_msgs) |
           (held > 0 && held + std::int64_t(n) > rt.inflight_bytes);
}
// Whether every acknowledged message of `c` to `pe` counted up to `until` (a read of
// acks_sent_of(c)) is in.
inline bool acks_answered(const context &c, int pe, std::uint64_t until) {
    return acks_done_of(c)[std::size_t(pe)].load(std::memory_order_acquire) >= until;
}
// Whether every get batched by `c` to `pe` up to `until` (a read of reply_issued) has its reply
// (put_pack.cpp, pend_gets).
inline bool gets_answered(const context &c, int pe, std::uint64_t until) {
    return c.reply_done(pe).load(std::memory_order_acquire) >= until;
}

// ---- validation, shared by every entry point ------------------------------------------------

[[noreturn]] void fail_not_running(const char *routine);
[[noreturn]] void fail_bad_pe(const char *routine, int pe);
[[noreturn]] void fail_not_symmetric(const char *routine, const char *what, const void *addr,
                                     std::size_t len, int pe);

USHMEM_HOT void check_running(const char *routine) {
    if (USHMEM_UNLIKELY(rt.state != lib_state::running)) fail_not_running(routine);
}

USHMEM_HOT void check_pe(const char *routine, int pe) {
    if (USHMEM_UNLIKELY(unsigned(pe) >= unsigned(rt.npes))) fail_bad_pe(routine, pe);
}

// Which segment holds [addr, addr+len), and at what offset. False when it is not symmetric.
USHMEM_HOT bool locate(const void *addr, std::size_t len, seg_id &s, std::size_t &off) {
    std::uintptr_t a = reinterpret_cast<std::uintptr_t>(addr);
    for (int i = 0; i < seg_count; ++i) {
        std::uintptr_t d = a - rt.seg[i].base;  // wraps for addresses below base
        if (d < rt.seg[i].size && len <= rt.seg[i].size - d) {
            s = seg_id(i);
            off = d;
            return true;
        }
    }
    return false;
}

USHMEM_HOT void locate_or_fail(const char *routine, const char *what, const void *addr,
                           std::size_t len, int pe, seg_id &s, std::size_t &off) {
    if (USHMEM_UNLIKELY(!locate(addr, len ? len : 1, s, off)))
        fail_not_symmetric(routine, what, addr, len, pe);
}

// Decide how `pe`'s segment `s` is reached (direct or UCX); creates the endpoint and rkey on
// first use. Ends the job with a message if the peer cannot be reached.
void resolve(const char *routine, int pe, seg_id s);

// A route as resolve() published it (its release store): an acquire load, so that what resolve()
// wrote before (the direct pointer, the rkey) is seen by a thread that did not take its lock. A
// plain load on x86; at SHMEM_THREAD_MULTIPLE TSan reported the fast path's read of `direct`
// racing with another thread's first resolution of that peer.
USHMEM_HOT route route_of(const peer &p, seg_id s) { return __atomic_load_n(&p.how[s], __ATOMIC_ACQUIRE); }

USHMEM_HOT peer &target(const char *routine, int pe, seg_id s) {
    peer &p = rt.peers[std::size_t(pe)];
    if (USHMEM_UNLIKELY(route_of(p, s) == route::unresolved)) resolve(routine, pe, s);
    return p;
}

// The fast path's test: `n` (> 0) bytes at symmetric `addr` on `pe` (already known to be in range),
// reached directly: the address to copy to or from, else nullptr (the caller then takes its full
// path, which validates, resolves and reports). It makes no call, so that a put or get that takes
// it needs no stack frame.
USHMEM_HOT char *direct_target(const void *addr, std::size_t n, int pe) {
    seg_id s;
    std::size_t off;
    if (USHMEM_UNLIKELY(!locate(addr, n, s, off))) return nullptr;
    const peer &p = rt.peers[std::size_t(pe)];
    if (USHMEM_UNLIKELY(route_of(p, s) != route::direct)) return nullptr;
    return p.direct[s] + off;
}

// ---- put packs (put_pack.cpp) ------------------------------------------------------------------
// Turns packing on for `c` (its acknowledged messages and the thread level allow it):
// USHMEM_PUT_PACK bytes of pack, puts of up to an eighth of that packed.
void enable_packing(context &c);
// Adds an n-byte put to raddr on `pe` (n <= c.pack_item) to c's pack for that PE, sending it
// first when it has no room left, and opening one (sending another PE's when all slots are taken)
// when there is none. `kind`: a put, or (context::pack_blocking) a non-fetching atomic on the
// n-byte word, the operand at src.
void pack_put(const char *routine, context &c, int pe, std::uint64_t raddr, const void *src, std::size_t n,
              util::put_pack::kind kind = util::put_pack::kind::put);
// Adds an n-byte get_nbi from raddr on `pe` into dst (n <= c.pack_item) to c's get batch for that
// PE, as pack_put does: one request for many, one reply (pend_gets).
void pack_get(const char *routine, context &c, int pe, std::uint64_t raddr, void *dst, std::size_t n);
// The same for a fetching non-blocking atomic on the n-byte word (4 or 8) at raddr on `pe`: its
// record joins the batch, and the reply's old value goes to dst (atomic.cpp, amo_ucx_nbi).
void pack_fetch(const char *routine, context &c, int pe, std::uint64_t raddr, void *dst, std::size_t n,
                util::put_pack::fetch_kind kind, std::uint64_t operand, std::uint64_t cmp);
// After c's last quiet, before it goes: waits until the progress thread has let go of c (it may
// still be returning from sending c's last pack, which that quiet found issued).
void retire_packs(context &c);
// The batches of `c` whose replies are awaited are forgotten: a reply that comes later writes
// nothing (the context is being destroyed).
void forget_get_batches(const context &c);
// Sends c's open pack in slot i; every open pack.
void send_pack(const char *routine, context &c, unsigned i);
void send_packs(const char *routine, context &c);
// Where c has an open pack to `pe` with room for it: adds the record of kind k (an n-byte put,
// or an atomic with its operand) and sends the pack at once. False, doing nothing, otherwise.
bool send_in_pack(const char *routine, context &c, int pe, std::uint64_t raddr, const void *src, std::size_t n,
                  util::put_pack::kind k);
// The same for a put-with-signal (n bytes of data, may be 0, then the signal's add or set): the
// open pack's puts and this one in one message, not the pack and a signal message after it.
bool send_signal_in_pack(const char *routine, context &c, int pe, std::uint64_t data_raddr, const void *src,
                         std::size_t n, std::uint64_t sig_raddr, std::uint64_t value, util::put_pack::kind k);
// The slot of c's open pack to `pe`, or -1.
USHMEM_HOT int pack_slot_of(const context &c, int pe) {
    if (USHMEM_LIKELY(c.packs[c.pack_last].pe == pe)) return c.pack_last;
    for (unsigned i = 0; i < c.pack_slots; ++i)
        if (c.packs[i].pe == pe) return int(i);
    return -1;
}
// The packs of a context the progress thread may send (context::pack_shared) are used by one
// thread at a time: the owner's calls that touch them, and the thread's send, hold pack_holder
// for their scope. Taken again by its holder it is not taken twice (sending a pack settles its
// PE's pack, which is the one being sent). The owner's is an uncontended exchange, on the network
// path only (where every message costs microseconds); the thread only tries it.
class pack_guard {
public:
    explicit pack_guard(context &c) {
        if (USHMEM_LIKELY(!c.pack_shared)) return;
        const auto self = static_cast<unsigned long>(pthread_self());
        if (c.pack_holder.load(std::memory_order_relaxed) == self) return;
        if (USHMEM_UNLIKELY(!try_take(c, self))) wait(c, self);
        c_ = &c;
    }
    // Takes c's packs for `self` if nobody holds them (the progress thread's only way in).
    static bool try_take(context &c, unsigned long self) {
        unsigned long none = 0;
        return c.pack_holder.compare_exchange_strong(none, self, std::memory_order_acquire, std::memory_order_relaxed);
    }
    ~pack_guard() {
        if (c_) c_->pack_holder.store(0, std::memory_order_release);
    }
    pack_guard(const pack_guard &) = delete;
    pack_guard &operator=(const pack_guard &) = delete;

private:
    static void wait(context &c, unsigned long self);  // the progress thread is sending them
    context *c_ = nullptr;
};
void settle_pack_slow(const char *routine, context &c, int pe);
// Before any other operation of `c` to `pe` (they stay in order behind the packed puts).
USHMEM_HOT void settle_pack(const char *routine, context &c, int pe) {
    if (USHMEM_LIKELY(c.packs_open.load(std::memory_order_acquire) == 0)) return;
    settle_pack_slow(routine, c, pe);
}
// Before a fence or a quiet of `c`.
USHMEM_HOT void settle_packs(const char *routine, context &c) {
    if (USHMEM_UNLIKELY(c.packs_open.load(std::memory_order_acquire) != 0)) send_packs(routine, c);
}
// Before a wait or a test that finds its condition false: the open packs leave (at
// SHMEM_THREAD_MULTIPLE, where only private contexts pack, those this thread opened), on every
// context, so that a program that waits for the answer to puts it never completed still gets it,
// as without packing. (The list of open packs takes a lock at SHMEM_THREAD_MULTIPLE.)
namespace detail {
inline std::atomic<unsigned> open_packs{0};
// Moved by every record added to a pack (relaxed: only that it moves matters): the progress
// thread sends packs only once it has stopped moving for USHMEM_PUT_PACK_HOLD.
alignas(64) inline std::atomic<unsigned> pack_seq{0};
}
void send_thread_packs(const char *routine);
void send_all_packs(const char *routine);  // finalize: whichever thread filled them
// The progress thread's look at the packs (transport::serve's held_work): sends every pack that
// has been left alone for USHMEM_PUT_PACK_HOLD (`sent` set then), and returns how long the thread
// may wait before its next look (ns), or 0 when no pack is open.
long send_held_packs(bool &sent);
USHMEM_HOT void settle_thread_packs(const char *routine) {
    if (USHMEM_UNLIKELY(detail::open_packs.load(std::memory_order_relaxed) != 0)) send_thread_packs(routine);
}

// ---- data path ------------------------------------------------------------------------------

// The peer entry whose endpoint and rkeys a UCX operation of `c` uses: the shared one, or the
// context's own (created on first use).
peer &own_ucx_peer(const char *routine, context &c, int pe, seg_id s);
USHMEM_HOT peer &ucx_peer(const char *routine, context &c, peer &p, int pe, seg_id s) {
    settle_pack(routine, c, pe);  // its packed puts go first
    if (USHMEM_LIKELY(!c.own_worker)) return p;
    return own_ucx_peer(routine, c, pe, s);
}
inline transport::worker_h worker_of(const context &c) { return c.lanes ? c.lanes->worker : transport::worker(); }
// The endpoint through which `c`'s UCX operations to `pe` went (what its quiet must flush).
inline transport::ep_h ep_of(const context &c, int pe) {
    return (c.lanes ? c.lanes->peers : rt.peers)[std::size_t(pe)].ep;
}
// Closes a context's own endpoints and worker (after its final quiet).
void release_lanes(context &c);

// UCX slow paths (rma.cpp).
// count_reply(c, pe, r) after issuing a counted non-blocking get or fetching atomic (its
// completion adds to the context's reply_done counter of its PE: transport::counted_completion):
// counts it issued, and done at once when UCX completed it inline (r == nullptr).
inline void count_reply(context &c, int pe, const void *r) {
    c.reply_issued(pe).fetch_add(1, std::memory_order_relaxed);
    if (r == nullptr) c.reply_done(pe).fetch_add(1, std::memory_order_release);
}

void put_ucx(const char *routine, context &c, peer &p, int pe, seg_id s, std::size_t off,
             const void *src, std::size_t n, bool nbi);
void get_ucx(const char *routine, context &c, peer &p, int pe, seg_id s, std::size_t off,
             void *dst, std::size_t n, bool nbi);

// Copy for the direct route. Up to 16 bytes (single elements: shmem_p, flags, small puts) the copy
// is inline: two possibly overlapping loads and stores of the widest power of two that fits, so
// the put makes no call at all (a call to memcpy for 8 bytes costs its PLT jump and keeps the
// caller's registers saved on the stack: ~1.5 ns of a 11 ns put+quiet). An aligned 8-byte element
// is still written with one store, as the waiters on it (wait_until) expect. Larger: memcpy.
USHMEM_HOT void direct_copy(void *d, const void *s, std::size_t n) {
    auto *dc = static_cast<char *>(d);
    auto *sc = static_cast<const char *>(s);
    if (USHMEM_LIKELY(n <= 16)) {
        if (n >= 8) {
            std::uint64_t a, b;
            __builtin_memcpy(&a, sc, 8);
            __builtin_memcpy(&b, sc + n - 8, 8);
            __builtin_memcpy(dc, &a, 8);
            __builtin_memcpy(dc + n - 8, &b, 8);
        } else if (n >= 4) {
            std::uint32_t a, b;
            __builtin_memcpy(&a, sc, 4);
            __builtin_memcpy(&b, sc + n - 4, 4);
            __builtin_memcpy(dc, &a, 4);
            __builtin_memcpy(dc + n - 4, &b, 4);
        } else if (n >= 2) {
            std::uint16_t a, b;
            __builtin_memcpy(&a, sc, 2);
            __builtin_memcpy(&b, sc + n - 2, 2);
            __builtin_memcpy(dc, &a, 2);
            __builtin_memcpy(dc + n - 2, &b, 2);
        } else {
            *dc = *sc;  // n == 1 (n == 0 never reaches here)
        }
        return;
    }
    std::memcpy(d, s, n);
}

// A PE may sleep in a wait on user data (core/wait.hpp). Where the waiting policy lets some PE of
// the node block (more PEs than CPUs, or USHMEM_WAIT_POLICY=block), every direct write looks for
// a sleeper on its target afterwards; elsewhere this is one load of a flag and a branch.
extern bool g_wake_direct;
void wake_after_store_slow(const peer &p);
void wake_after_rmw_slow(const peer &p);
USHMEM_HOT void wake_after_store(const peer &p) {
    if (USHMEM_UNLIKELY(g_wake_direct)) wake_after_store_slow(p);
}
USHMEM_HOT void wake_after_rmw(const peer &p) {
    if (USHMEM_UNLIKELY(g_wake_direct)) wake_after_rmw_slow(p);
}

// Contiguous put of n bytes. Validated by the caller (check_running, check_pe).
USHMEM_HOT void put(const char *routine, context &c, void *dest, const void *src, std::size_t n,
                int pe, bool nbi) {
    seg_id s;
    std::size_t off;
    // Zero bytes touch no memory: any address, NULL included, is accepted (as public OpenSHMEM
    // test suites expect).
    if (USHMEM_UNLIKELY(n == 0)) return;
    locate_or_fail(routine, "destination", dest, n, pe, s, off);
    peer &p = target(routine, pe, s);
    if (USHMEM_LIKELY(p.how[s] == route::direct)) {
        c.note_direct();
        direct_copy(p.direct[s] + off, src, n);
        wake_after_store(p);
        return;
    }
    put_ucx(routine, c, p, pe, s, off, src, n, nbi);
}

USHMEM_HOT void get(const char *routine, context &c, void *dest, const void *src, std::size_t n,
                int pe, bool nbi) {
    seg_id s;
    std::size_t off;
    if (USHMEM_UNLIKELY(n == 0)) return;  // as in put
    locate_or_fail(routine, "source", src, n, pe, s, off);
    peer &p = target(routine, pe, s);
    if (USHMEM_LIKELY(p.how[s] == route::direct)) {
        direct_copy(dest, p.direct[s] + off, n);
        return;
    }
    get_ucx(routine, c, p, pe, s, off, dest, n, nbi);
}

// Strided transfers: nblocks blocks of `bsize` elements of `elem` bytes; consecutive blocks are
// `dst`/`sst` elements apart. iput/iget are the case bsize == 1.
void put_strided(const char *routine, context &c, void *dest, const void *src, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe);
void get_strided(const char *routine, context &c, void *dest, const void *src, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe);

// ---- ordering (ordering.cpp) ----------------------------------------------------------------
// Flushes the PEs with outstanding UCX operations (out of line: it talks to UCX).
void quiet_slow(const char *routine, context &c);

// Orders direct stores (which may be non-temporal in a large memcpy) before what follows.
// On x86-64 a locked no-op RMW is the full fence (cheaper than mfence, and it orders non-temporal
// stores too). GCC's seq_cst fence targets 0(%rsp): in a leaf like quiet that is the return
// address the `call` just pushed, and the `ret` that follows then waits for the locked operation
// (+8 ns per put+quiet here). A slot below the stack pointer is never read soon after; the RMW
// keeps its value, so the red zone's contents are unaffected (Linux's smp_mb does the same).
// TSan does not see inline asm: it keeps the standard fence.
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
inline void direct_fence() { asm volatile("lock orl $0, -4(%%rsp)" ::: "memory", "cc"); }
#else
inline void direct_fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
#endif
// Store-store order only (data before the signal that announces it): x86 keeps ordinary stores
// in order, and sfence also orders the non-temporal stores a large memcpy may use.
inline void store_fence() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// quiet: inline, because with nothing outstanding it is two loads, and after direct stores
// only a store fence (a locked instruction: cheaper than mfence, and it also orders the
// non-temporal stores a large memcpy may use).
inline void quiet(const char *routine, context &c) {
    // (An open pack lists its PE as pending: quiet_slow sends it.)
    if (c.direct_dirty.load(std::memory_order_relaxed)) {
        c.direct_dirty.store(false, std::memory_order_relaxed);
        direct_fence();
    }
    if (USHMEM_LIKELY(!c.any_pending())) return;
    quiet_slow(routine, c);
}
void pe_quiet(const char *routine, context &c, int pe);
void fence(const char *routine, context &c);

// ---- lifecycle and services (runtime.cpp) ---------------------------------------------------
// `comm`: MPI communicator pointer or nullptr. `requested` thread level; returns provided.
int init(const char *routine, const void *comm, int requested);
void finalize(const char *routine);
void barrier_all(const char *routine, bool with_quiet);
// The settings as they act: rt.cfg with what init derived (rt.bulk_min), for SHMEM_INFO.
settings settings_in_effect();
// Local address through which `addr` on `pe` can be loaded/stored, or nullptr.
void *direct_pointer(const void *addr, int pe);
// Wait until cond() holds, progressing UCX, spinning briefly then yielding; ends the job after
// USHMEM_WAIT_TIMEOUT seconds with a message naming `what`, or, when `describe` is given, what it
// writes into the buffer (built only then: the PEs still outstanding, the value seen, ...).
// `user_data`: the condition reads memory a plain put may write (wait_until), which wakes a
// blocked waiter only where the waiting policy made direct writers look for sleepers; the
// library's own signals and UCX completions always wake it (core/wait.hpp).
using describe_fn = void (*)(const void *arg, char *buf, std::size_t len);
// `remote`: what it waits for is an answer from a PE on another node (core/wait.hpp: in block
// mode it polls for a while before it sleeps).
void wait_slow(const char *routine, const char *what, bool (*cond)(void *), void *arg,
               describe_fn describe = nullptr, const void *describe_arg = nullptr, bool user_data = false,
               bool remote = false);
// What a timeout adds after "no answer yet from PE n": why a PE may not answer, and, without a
// progress thread, the setting that makes one answer for a PE that computes (ordering.cpp).
const char *no_answer_hint();
// Whether `pe` is on another node than this PE (false for -1: several PEs).
inline bool on_other_node(int pe) {
    return pe >= 0 && rt.node_of[std::size_t(pe)] != rt.node_of[std::size_t(rt.me)];
}

// The endpoint a context's messages to `pe` go through: the main worker's (`p`, the shared peer),
// or the context's own worker's, so that they stay in order with its other operations there.
inline transport::ep_h message_ep(const char *routine, context &c, peer &p, int pe) {
    return USHMEM_LIKELY(!c.own_worker) ? p.ep : own_ucx_peer(routine, c, pe, seg_heap).ep;
}
// Runs a signal message that arrived (installed as the transport's handler).
void on_signal_message(const transport::signal_header &h, const void *data, std::size_t n);
void on_ack(std::uint32_t from, std::uint32_t n);  // n acknowledged messages (context::acked_msgs) are in
// One signal message to `pe` (through the context's endpoint: message_ep): the data (n bytes,
// may be 0) to the peer's address data_raddr, then `value` applied to its signal word sig_raddr.
// Returns at once (the message holds a copy); delivery is the business of quiet, as for a put.
// `lend`: the data stays as it is until the message's acknowledgement (a put_nbi's source, which
// the program may not change before its quiet): large data is then sent from there, not copied.
// From bulk_size(n) on it goes as a bulk message, which returns once the data has left (lent or not).
void signal_message(const char *routine, context &c, peer &p, int pe, std::uint64_t data_raddr, const void *data,
                    std::size_t n, std::uint64_t sig_raddr, std::uint64_t value, transport::signal_op op,
                    bool lend = false);
// The strided form: n / elem elements of `elem` bytes, src_stride apart in `data`, to data_raddr +
// i * dst_stride on the peer; sig_raddr 0: no signal.
void strided_message(const char *routine, context &c, peer &p, int pe, std::uint64_t data_raddr,
                     std::size_t dst_stride, const void *data, std::size_t src_stride, std::size_t elem,
                     std::size_t n, std::uint64_t sig_raddr, std::uint64_t value);
// `count` elements (elem <= signal_message_max) as strided messages of up to signal_message_max
// bytes each; sig_raddr (0: none) incremented by 1 with the last one, after the others.
void strided_messages(const char *routine, context &c, peer &p, int pe, std::uint64_t data_raddr,
                      std::size_t dst_stride, const char *data, std::size_t src_stride, std::size_t elem,
                      std::size_t count, std::uint64_t sig_raddr);
// Strided gets and get batches as messages (rma.cpp, installed as the transport's handlers): the
// target packs the elements or the gets a request names, the initiator unpacks the reply.
void pack_gather_reply(const transport::gather_header &h, const void *data, std::size_t n, void *out);
void on_gather_reply(std::uint64_t cookie, const void *data, std::size_t n);
// A get batch's reply (put_pack.cpp); cookies with get_batch_bit set are theirs.
constexpr std::uint64_t get_batch_bit = std::uint64_t(1) << 63;
void on_get_batch_reply(std::uint64_t cookie, const void *data, std::size_t n);
// Whether UCX's lanes to `pe` emulate RMA and atomics (runtime.cpp): its CPU runs each from a
// message.
bool rma_emulated(int pe);
// Data up to this size travels in the signal message itself; larger goes as a put before it.
constexpr std::size_t signal_message_max = 64 * 1024;
// Whether n bytes to a PE reached by signal messages go as one bulk message (transport::bulk_nbx,
// from USHMEM_BULK_MIN; 0 at init where UCX would not keep them in order): signal_message then
// returns once they are out of the caller's buffer, and its acknowledgement or the receiver's signal
// comes once they are stored.
inline bool bulk_size(std::size_t n) { return rt.bulk_min && n >= rt.bulk_min; }

// UCX requests a PE waits for (completion of blocking operations, flushes): `pe` is the PE whose
// answer the request needs (-1: several, e.g. a worker flush).
struct pending_request {
    void *request;
    int pe;
};
// Waits until UCX completes every request (of `c`'s worker), frees them, and returns the first
// error status (UCS_OK if none). `op` names the operation for the USHMEM_WAIT_TIMEOUT message,
// which lists the PEs whose requests are still incomplete: a target that is stopped, overloaded
// or gone is named instead of the wait hanging silently.
transport::status await_requests(const char *routine, context &c, pending_request *reqs, std::size_t n,
                            const char *op);
inline transport::status await_request(const char *routine, context &c, void *request, int pe, const char *op) {
    pending_request r{request, pe};
    return await_requests(routine, c, &r, 1, op);
}

template <class Cond>
inline void wait_for(const char *routine, const char *what, Cond cond, bool user_data = false, bool remote = false,
                     describe_fn describe = nullptr, const void *describe_arg = nullptr) {
    settle_thread_packs(routine);
    for (int i = 0; i < 64; ++i) {
        if (cond()) return;
        transport::progress();
    }
    wait_slow(routine, what, [](void *a) { return (*static_cast<Cond *>(a))(); }, &cond, describe, describe_arg,
              user_data, remote);
}

// Symmetric memory management (memory.cpp). Collective.
// Words [heap_check_word, +4) of the runtime area (rt.runtime_words points at its start): the
// reduction by which every collective memory call checks that the PEs' heaps still match.
constexpr std::size_t heap_check_word = 128;
// Word coll_entry_word of the runtime area: the collective this PE entered last, as
// coll_entry(group, calls): a timed-out collective reads the members' words to name those that
// never reached it (coll/frame.cpp).
constexpr std::size_t coll_entry_word = 256;
// Reads word `word` of the runtime area of each PE in `pes`: direct peers in place, the others
// with a get given `answer_s` seconds to answer (over an emulated transport a stopped or dead peer
// never answers). out[i]: the value, answered[i]: whether it came.
void read_runtime_words(const char *routine, std::size_t word, const std::vector<int> &pes, double answer_s,
                        std::vector<std::uint64_t> &out, std::vector<bool> &answered);
// At init, once the runtime's own blocks are allocated: the program's calls are counted from here.
void heap_calls_start();
void *sym_alloc(const char *routine, std::size_t size, std::size_t alignment);
// An allocation refused before the heap (bad alignment, overflowing count): the call's barrier,
// counted and compared like an allocation that returned NULL. Returns nullptr.
void *sym_alloc_refused(const char *routine, std::size_t size, std::size_t alignment);
void sym_free(const char *routine, void *ptr);
void *sym_realloc(const char *routine, void *ptr, std::size_t size);

} // namespace ushmem::core
