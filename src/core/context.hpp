// A communication context: its completion state (what a quiet must do per PE), its own lanes (a
// worker and endpoints of its own, when it has them) and its put packs. Types only: the inline
// accessors that read rt are in core/lanes.hpp.
#pragma once

#include "core/compiler.hpp"
#include "core/peers.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace ushmem::core {

// A context's own UCX worker and endpoints. Contexts created with SHMEM_CTX_PRIVATE or
// SHMEM_CTX_SERIALIZED get one (USHMEM_CTX_WORKERS) on their first UCX operation: their operations
// then share no endpoint with another context, so their quiet flushes nothing but their own, and
// their owner thread takes no lock that other threads hold. The same-node direct path needs none.
// Its per-PE arrays are lazy (util/lazy_array.hpp), as rt.peers' are: a page is committed when
// the context first talks to one of its PEs.
struct context_lanes {
    transport::worker_h worker = nullptr;
    util::lazy_array<peer> peers;  // ep and rkeys on this worker; routes and direct pointers: rt.peers
    // Per PE, its grown heap's chunk entries on this worker (rkeys unpacked on this worker's
    // endpoint), allocated on first use of one (own_ucx_peer); used by the context's thread only.
    util::lazy_array<peer *> chunk_peers;
    // The PEs whose entry in `peers` (or chunk_peers) own_ucx_peer wrote, each once
    // (peer::listed): what release_lanes tears down.
    std::vector<int> contacted;
    // Acknowledged messages from this worker (context::acked_msgs), per PE, as rt.peers.acks_sent and
    // rt.peers.acks_done for the main worker: its own endpoint per PE delivers them in order, and their
    // acknowledgements, batched by the target, come to the main worker tagged with this stream
    // (transport::ack_owed).
    util::lazy_array<std::atomic<std::uint64_t>> acks_sent, acks_done;
    std::uint32_t ack_stream = 0;  // set by transport::create_extra_worker (0: acknowledged on reply endpoints)
};

// pending[pe] bits: what a quiet must do for that PE. pend_flush: flush its endpoint (UCX
// operations); pend_acks: wait for the acknowledgements of the messages sent to it (rt.peers.acks_*).
// pend_pack: an open put pack (put_pack.cpp), which a quiet sends first. pend_gets: batches of
// get_nbi's sent to it (put_pack.cpp) whose replies a quiet waits for (reply_issued/reply_done).
enum : std::uint8_t { pend_flush = 1, pend_acks = 2, pend_pack = 4, pend_gets = 8 };

// Per-context completion state: which PEs have UCX operations that a quiet must complete, and
// whether direct stores were made since the last quiet (a store fence then suffices).
// Its per-PE arrays (pending, replies) are lazy (util/lazy_array.hpp): reset reserves them, zero,
// and a page is committed when the context first writes to one of its PEs'.
struct context {
    util::lazy_array<std::uint8_t> pending;  // per PE: pend_* bits
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
    // rt.peers.acks_*, on a context's own worker in its lanes' (acks_sent_of).
    // Not the collectives' context: their messages are consumed by the receiver's wait, and an
    // acknowledgement each would be a send more per step on the target.
    bool acked_msgs = false;
    context_lanes *lanes = nullptr;
    // Gets and fetching atomics issued through UCX as non-blocking operations, per PE:
    // replies[2 * pe] counts those issued, replies[2 * pe + 1] those whose reply arrived (at issue
    // when UCX completed them inline, else in their callback). Unlike a put's, such a request's
    // completion is the operation's completion. Read by shmemx_ctx_pe_replies (the C++ API's
    // per-PE timeout reports); never reset, so readers take differences.
    util::lazy_array<std::atomic<std::uint64_t>> replies;
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

    // npes 0: releases the per-PE arrays (finalize, a destroyed context).
    void reset(int npes, bool mt) {
        pending.reset(std::size_t(npes));
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
        replies.reset(2 * std::size_t(npes));
    }
    std::atomic<std::uint64_t> &reply_issued(int pe) const { return replies[2 * std::size_t(pe)]; }
    std::atomic<std::uint64_t> &reply_done(int pe) const { return replies[2 * std::size_t(pe) + 1]; }
    // Relaxed atomic accesses to pending[] (plain loads and stores on x86-64): under
    // SHMEM_THREAD_MULTIPLE another thread's quiet clears the flags, under the lock, before it
    // flushes, so an operation whose flag was seen set is covered by that flush, and one that
    // sees it clear takes the lock and is listed again (found by the TSan stage).
    // pend_acks: the caller counted the message in rt.peers.acks_sent before sending it; a quiet clears
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
} // namespace ushmem::core
