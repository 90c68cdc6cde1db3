// Distributed locks: shmem_set_lock / shmem_test_lock / shmem_clear_lock as an MCS queue lock.
//
// The user's `long lock` (8 bytes, symmetric, zero on every PE before first use) holds the whole
// lock, so no other storage is needed and a PE may hold any number of locks at once:
//
//   word 0 (low address) of the copy on the lock's home PE:  tail = PE+1 of the last PE in the
//          queue, 0 when the lock is free. The home PE is derived from the lock's offset in its
//          segment, which is the same on every PE, so different locks spread over the PEs.
//   word 1 (high address) of the copy on every PE p:  p's queue node for this lock:
//          bit 31 = WAIT (p waits for the lock to be handed over), bits 0-30 = PE+1 of p's
//          successor (0 = none yet).
//
// set_lock:  node(me) = WAIT; prev = swap(tail@home, me+1); if prev != 0, add me+1 into
//            node(prev-1)'s successor field and wait (local acquire loads) until WAIT clears.
// clear_lock: quiet; if no successor yet, cswap(tail@home, me+1 -> 0) frees the lock; otherwise
//            (or if that fails because a successor is linking itself in) wait for the successor
//            field, then add 0x80000000 to node(successor): that clears its WAIT bit (bit 31 is
//            set, the carry leaves the word) without touching the successor field, which the
//            successor's own successor may be writing at the same moment.
// Waiters are served in the order of their swaps on the tail: first come, first served.
//
// Every update is an atomic of core's one mechanism (amo_fetching, 32-bit), fetching and therefore
// complete on return: a hand-over never waits for a quiet.
#include "core/atomic.hpp"
#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/log.hpp"
#include "core/ordering.hpp"
#include "core/peers.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"
#include "transport/transport.hpp"

#include <cstdio>

namespace ushmem::core {
namespace {

constexpr std::uint32_t wait_bit = 0x80000000u;
constexpr std::uint32_t next_mask = 0x7fffffffu;

struct lock_words {
    std::uint32_t *tail;  // valid on the home PE
    std::uint32_t *node;  // every PE's queue node
    int home;
};

lock_words locate_lock(const char *routine, long *lock) {
    check_running(routine);
    static_assert(sizeof(long) == 2 * sizeof(std::uint32_t));
    seg_id s;
    std::size_t off;
    locate_or_fail(routine, "lock", lock, sizeof(long), rt.me, s, off);
    if (USHMEM_UNLIKELY(reinterpret_cast<std::uintptr_t>(lock) & (sizeof(long) - 1)))
        fail_misaligned(routine, "lock", lock, sizeof(long), rt.me);
    if (USHMEM_UNLIKELY(unsigned(rt.npes) > next_mask))
        fatal(routine, "locks support at most %u PEs", next_mask);
    auto *w = reinterpret_cast<std::uint32_t *>(lock);
    return {w, w + 1, int((off / sizeof(long)) % std::size_t(rt.npes))};
}

inline std::uint32_t load_node(const std::uint32_t *node) {
    return __atomic_load_n(node, __ATOMIC_ACQUIRE);
}

// Prepares this PE's node before it enters the queue. Blocking, so that it is in place before
// the swap on the tail makes this PE visible to a successor.
void reset_node(const char *routine, const lock_words &l, std::uint32_t value) {
    amo_fetching<std::uint32_t>(routine, rt.default_ctx, amo::swap, l.node, value, 0, rt.me);
}
} // namespace

void set_lock(const char *routine, long *lock) {
    lock_words l = locate_lock(routine, lock);
    context &c = rt.default_ctx;
    const std::uint32_t self = std::uint32_t(rt.me) + 1;
    reset_node(routine, l, wait_bit);
    std::uint32_t prev = amo_fetching<std::uint32_t>(routine, c, amo::swap, l.tail, self, 0, l.home);
    if (prev == 0) return;  // the lock was free
    if (USHMEM_UNLIKELY(prev == self))
        fatal(routine, "lock %p is already held by this PE (OpenSHMEM locks are not reentrant)",
              static_cast<void *>(lock));
    amo_fetching<std::uint32_t>(routine, c, amo::fetch_add, l.node, self, 0, int(prev - 1));
    wake_pe(routine, int(prev - 1));  // it may sleep in clear_lock, waiting for this link
    wait_described(
        routine, [&] { return !(load_node(l.node) & wait_bit); },
        [&](char *b, std::size_t n) {
            std::snprintf(b, n, "%s(lock=%p): the hand-over of the lock by PE %u, which is ahead in "
                          "the queue", routine, static_cast<void *>(lock), prev - 1);
        },
        false);  // the hand-over's atomic wakes us (wake_pe below)
}

int test_lock(const char *routine, long *lock) {
    lock_words l = locate_lock(routine, lock);
    context &c = rt.default_ctx;
    const std::uint32_t self = std::uint32_t(rt.me) + 1;
    // Cheap look first: a held lock is reported without touching our node. A polling loop of
    // test_lock must let operations that need this PE's progress (emulated ones) land.
    if (amo_fetching<std::uint32_t>(routine, c, amo::fetch, l.tail, 0, 0, l.home) != 0) {
        transport::progress();
        return 1;
    }
    reset_node(routine, l, wait_bit);
    std::uint32_t prev = amo_fetching<std::uint32_t>(routine, c, amo::cswap, l.tail, self, 0, l.home);
    if (prev == 0) return 0;
    reset_node(routine, l, 0);  // not in the queue: nobody links to this node
    transport::progress();
    return 1;
}

void clear_lock(const char *routine, long *lock) {
    lock_words l = locate_lock(routine, lock);
    context &c = rt.default_ctx;
    const std::uint32_t self = std::uint32_t(rt.me) + 1;
    // The critical section's puts must be complete before anyone else enters it.
    quiet(routine, c);
    std::uint32_t next = load_node(l.node) & next_mask;
    if (next == 0) {
        std::uint32_t tail = amo_fetching<std::uint32_t>(routine, c, amo::cswap, l.tail, 0, self, l.home);
        if (tail == self) {
            reset_node(routine, l, 0);  // nobody links to us any more: leave the word as found
            return;
        }
        if (USHMEM_UNLIKELY(tail == 0))
            fatal(routine, "lock %p is not held (shmem_clear_lock without shmem_set_lock or a "
                           "successful shmem_test_lock)", static_cast<void *>(lock));
        // A successor swapped itself in and is about to link: wait for it.
        wait_described(
            routine, [&] { return (next = load_node(l.node) & next_mask) != 0; },
            [&](char *b, std::size_t n) {
                std::snprintf(b, n, "%s(lock=%p): the next PE in the queue to link itself",
                              routine, static_cast<void *>(lock));
            },
            false);  // the successor's link wakes us
    }
    // Hand over: clear the successor's WAIT bit.
    amo_fetching<std::uint32_t>(routine, c, amo::fetch_add, l.node, wait_bit, 0, int(next - 1));
    wake_pe(routine, int(next - 1));  // it sleeps in set_lock, maybe (core/wait_policy.hpp)
    reset_node(routine, l, 0);
}

} // namespace ushmem::core
