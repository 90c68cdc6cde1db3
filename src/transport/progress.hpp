// transport/progress.hpp: progress calls on the main worker and contexts' own workers (the PE's
// side), and waking the PE's other threads after a progress call that served events.
#pragma once

#include "transport/am/acks.hpp"
#include "transport/am/rpc.hpp"
#include "transport/shared_state.hpp"
#include "transport/sleep.hpp"
#include "transport/worker.hpp"

#include <ucp/api/ucp.h>

namespace ushmem::transport {

// Progress and completion. The forms with a worker drive that worker (a context's own) and the
// main one.
unsigned progress_shared();  // the main worker, under its lock; counted (serve()); no settle_acks
// After a progress call that served events at SHMEM_THREAD_MULTIPLE: runs the served hook (the
// core's wake word), then rouse_event_sleepers(); events this thread just served may be what
// another thread of the PE waits for.
void signal_pollers_slow();
// Wakes the threads of the PE about to sleep or asleep for events (sleep_for_events), if any: the
// At SHMEM_THREAD_MULTIPLE, called after every progress call of a thread of the PE that served
// events: wakes the PE's threads asleep elsewhere than on the fd (the core's wake word).
void set_served_hook(bool (*hook)());
inline void signal_pollers(unsigned served) {
    if (__builtin_expect(detail::shared.main_multi, 0) && served) signal_pollers_slow();
}
// The main worker's progress, without sending what its handlers owe (progress() does).
inline unsigned progress_main() {
    if (__builtin_expect(detail::shared.main_shared, 0)) return progress_shared();
    const unsigned n = ucp_worker_progress(detail::shared.main_worker);
    signal_pollers(n);
    return n;
}
inline unsigned progress() {
    const unsigned n = progress_main();
    settle_acks();
    run_rpcs();  // (queued remote procedure calls, inside an rpc_point: am/rpc.hpp)
    return n;
}
// progress() for a wait on data that a peer's message may bring (wait_until, signal_wait_until):
// when `satisfied()` holds after the call, the acknowledgements that its messages owe are
// deferred (defer_owed_acks), and the result is true. The waiting PE is about to answer, usually
// to the PE whose message it awaited, and the answer carries them: a put + fence + flag put
// ping-pong over tcp otherwise sent an acknowledgement ahead of every answer.
template <class Cond> inline bool progress_answering(Cond satisfied) {
    if (!detail::shared.lazy_acks) {
        progress();
        return satisfied();
    }
    if (progress_main() && satisfied()) {
        if (detail::shared.acks_owed.load(std::memory_order_relaxed)) defer_owed_acks();
        return true;
    }
    settle_acks();
    return false;
}
unsigned progress_both(ucp_worker_h w);
inline unsigned progress_worker(ucp_worker_h w) {  // that worker alone
    unsigned n;
    {
        drive d(w);
        n = ucp_worker_progress(w);
    }
    settle_acks();
    return n;
}
// Wait for a request returned by a *_nbx call (not NULL, not an error), then free it. For the
// transport's own housekeeping (closing endpoints); the core's waits go through core::await_requests,
// which bounds them (USHMEM_WAIT_TIMEOUT) and says what they wait for.

} // namespace ushmem::transport
