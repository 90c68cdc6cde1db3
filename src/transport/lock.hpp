// transport/lock.hpp: the main worker's lock (worker_lock), taken around every call into the
// main worker when a progress thread shares it (worker.hpp: drive, issue).
#pragma once

#include <atomic>

namespace ushmem::transport {

// The main worker is created SINGLE (one thread only) unless a progress thread shares it; then it
// is SERIALIZED (MULTI under SHMEM_THREAD_MULTIPLE) and every call into it, from the PE's threads
// and from the progress thread, holds `main_lock`. Our own lock rather than UCX's MULTI mode: it
// spins before it sleeps (the holder's critical section is one UCX call, a microsecond over tcp),
// where UCX's mutex puts a contender to sleep at once, and the progress thread can try it without
// blocking. Everything that calls into a worker goes through this header, so nothing can forget
// the lock; SINGLE workers (no progress thread) pay one predictable branch.
class worker_lock {
public:
    void lock() {
        int free = 0;
        if (__builtin_expect(!word_.compare_exchange_strong(free, 1, std::memory_order_acquire,
                                                            std::memory_order_relaxed), 0))
            lock_slow();
    }
    bool try_lock() {
        int free = 0;
        return word_.compare_exchange_strong(free, 1, std::memory_order_acquire, std::memory_order_relaxed);
    }
    void unlock() {
        if (__builtin_expect(word_.exchange(0, std::memory_order_release) == 2, 0)) wake();
    }

private:
    void lock_slow();
    void wake();
    std::atomic<int> word_{0};  // 0 free, 1 held, 2 held and someone may sleep on it (futex)
};

} // namespace ushmem::transport
