// transport/lock.cpp: the slow paths of the main worker's lock (a futex mutex after a short spin).
#include "transport/lock.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ushmem::transport {

namespace {
long futex(std::atomic<int> *addr, int op, int val) {
    return syscall(SYS_futex, reinterpret_cast<int *>(addr), op, val, nullptr, nullptr, 0);
}
} // namespace

void worker_lock::lock_slow() {
    // The holder is inside one UCX call: spin for about as long as such a call takes, then sleep
    // (the holder may be descheduled: more threads than cores is the common case here).
    for (int i = 0; i < 200; ++i) {
        __builtin_ia32_pause();
        if (word_.load(std::memory_order_relaxed) == 0 && try_lock()) return;
    }
    // Drepper's futex mutex: 2 marks that a sleeper may be waiting, so that unlock wakes one.
    while (word_.exchange(2, std::memory_order_acquire) != 0) futex(&word_, FUTEX_WAIT_PRIVATE, 2);
}

void worker_lock::wake() { futex(&word_, FUTEX_WAKE_PRIVATE, 1); }

} // namespace ushmem::transport
