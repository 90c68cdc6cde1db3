// transport/progress.cpp: the PE's progress of the shared main worker (progress_shared), of a
// context's own worker with the main one (progress_both), and the served hook.
#include "transport/progress.hpp"

#include "transport/internal.hpp"
#include "transport/sleep.hpp"

namespace ushmem::transport {

unsigned progress_shared() {
    detail::shared.pe_progress.store(detail::shared.pe_progress.load(std::memory_order_relaxed) + 1, std::memory_order_seq_cst);
    if (__builtin_expect(detail::shared.pe_blocked.load(std::memory_order_relaxed), 0)) detail::shared.pe_blocked.store(false);
    // The progress thread sleeps in poll() on the worker's fd: every message that arrives now would
    // wake it (inside the kernel, only to find the PE has read it already), taking the PE's core
    // for a context switch each time. One signal now sends it to park instead, for as long as the
    // PE keeps progressing (serve()).
    kick_server();
    unsigned n;
    {
        drive d(detail::shared.main_worker);
        n = ucp_worker_progress(detail::shared.main_worker);
    }
    signal_pollers(n);
    return n;
}

unsigned progress_both(ucp_worker_h w) {
    if (w == detail::shared.main_worker) return progress();
    unsigned n = ucp_worker_progress(w);  // a context's own worker: never shared
    // Waiting on a context's own worker, keep answering the peers that target the main one:
    // over an emulated transport two PEs that each wait on their own worker would otherwise wait
    // for each other forever.
    return n + progress();
}

void set_served_hook(bool (*hook)()) { detail::shared.served_hook = hook; }

void signal_pollers_slow() {
    // Threads asleep on the core's wake word (waits where not every lane is emulated: some peers
    // direct, as on two hosts): the progress thread wakes them after what it serves, but while a
    // thread of the PE progresses the worker the thread stays parked (4 PEs on two hosts, 4
    // threads each: such sleeps ran to their 100 ms bound).
    if (detail::shared.served_hook) detail::shared.served_hook();
    rouse_event_sleepers();
}

} // namespace ushmem::transport
