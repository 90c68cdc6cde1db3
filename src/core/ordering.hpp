// Ordering and completion: fences (direct stores), quiet, per-PE quiet, fence (ordering.cpp).
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"

#include "transport/transport.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ushmem::core {

// Flushes the PEs with outstanding UCX operations (out of line: it talks to UCX).
void quiet_slow(const char *routine, context &c);

// Orders direct stores (which may be non-temporal in a large memcpy) before what follows.
// On x86-64 a locked no-op RMW is the full fence (cheaper than mfence, and it orders non-temporal
// stores too). GCC's seq_cst fence targets 0(%rsp): in a leaf like quiet that is the return
// address the `call` just pushed, and the `ret` that follows then waits for the locked operation
// (+8 ns per put+quiet here). Nor the slots just below it (Linux's smp_mb takes -4): a caller
// that pushed and popped a register there just before (shmem_putmem's fast path saves one since
// the heap can grow) leaves that store in flight, and the locked operation waits for it: 8 B
// putmem + quiet 8.6-9.8 ns at -4(%rsp) against 6.8 at -64 (2 PEs, direct path; long_p + quiet,
// which saves no register, 8.0 either way). 64 bytes down is below the pushes and calls of the
// entry points; the RMW keeps its value, so the red zone's contents are unaffected.
// TSan does not see inline asm: it keeps the standard fence.
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
inline void direct_fence() { asm volatile("lock orl $0, -64(%%rsp)" ::: "memory", "cc"); }
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
// only direct_fence, a full fence (a locked no-op: cheaper than mfence; Intel's manual orders
// non-temporal and string stores before it too), not store_fence: a quiet also orders the loads
// that follow it (a get after a put, a flag read after the quiet).
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

// ---- the per-PE completion: one routine for quiet_slow, pe_quiet (blocking) and pe_test (testing)
// What a PE owes a context's completion, as its pend_* bits say (context.hpp): a flush of its
// endpoint (pend_flush), the acknowledgements of the messages counted sent up to `acks`
// (pend_acks), the replies of the gets counted issued up to `gets` (pend_gets).
struct pe_owed {
    int pe;
    std::uint8_t bits;
    std::uint64_t acks, gets;
};
// Reads the counts owed, for the bits of each entry: after a full fence, so that they are read
// after the stores that cleared the bits (context::note_pending).
void count_owed(const context &c, pe_owed *o, std::size_t n);
// The test: whether the acknowledgements and replies counted have come (not the flush).
bool owed_answered(const context &c, const pe_owed &o);
// The blocking form: counts, flushes the endpoints of the entries with pend_flush (one worker
// flush above `ep_max` of them), awaits the requests and then the answers; `op` names the wait in
// the timeout's message. Returns the first transport error (status_ok if none).
transport::status complete_owed(const char *routine, context &c, pe_owed *o, std::size_t n, std::size_t ep_max,
                                const char *op);
void fence(const char *routine, context &c);
} // namespace ushmem::core
