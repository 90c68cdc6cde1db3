// Put packs (put_pack.cpp, USHMEM_PUT_PACK): small non-blocking puts to a PE reached by
// acknowledged messages, packed one message for many; get batches alike.
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "util/put_pack.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <pthread.h>

namespace ushmem::core {

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
// A get batch's reply (messages.cpp, unpack_gather_reply, hands it here): its bytes to the
// batch's destinations, counted done. Cookies with get_batch_bit set are get batches'; the others
// strided gets' (messages.cpp).
constexpr std::uint64_t get_batch_bit = std::uint64_t(1) << 63;
void unpack_get_batch_reply(std::uint64_t cookie, const void *data, std::size_t n);
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
} // namespace ushmem::core
