// transport/sleep.hpp: the PE's sleeps for events: on the main worker's wakeup fd (one watcher
// at a time), on the event sequence's futex (the other threads), on a context's own worker.
#pragma once

#include <ucp/api/ucp.h>

#include <signal.h>

namespace ushmem::transport {

// For a PE that drives the main worker itself (no progress thread): sleep up to `ns` until UCX has
// something for the worker (its wakeup fd), so a message from the network ends the sleep at once
// instead of at the end of a slice. Returns at once when events are already pending.
// Between pe_polling(true) and pe_polling(false) the PE is about to sleep or sleeps there: the
// progress thread stays parked, and if it serves a message meanwhile it signals the worker
// (ucp_worker_signal), so that the PE's sleep ends: a condition that the thread's progress made
// true after the PE last looked would otherwise go unseen until the sleep's bound. Set it before
// the last look at the condition (both sides fence: one of them sees the other).
// `during`: the signal mask while asleep (the caller's own, when it holds signals around its
// UCX calls), or null for the current one.
// Returns whether it ended for events (or found them pending), false when the bound passed or a
// signal interrupted it.
bool sleep_for_events(long ns, const sigset_t *during);
// A wait of the calling thread on a context's own worker (its completions, replies and
// acknowledgements arrive there, and no progress thread watches it): while one is in scope, the
// waits' sleeps also end for that worker's events (sleep_for_events, sleep_for_own_events),
// instead of at their bound. No-op for the main worker.
class own_wait_scope {
public:
    explicit own_wait_scope(ucp_worker_h w);
    ~own_wait_scope();
    own_wait_scope(const own_wait_scope &) = delete;
    own_wait_scope &operator=(const own_wait_scope &) = delete;

private:
    ucp_worker_h prev_;
    bool set_;
};
bool in_own_wait();  // an own_wait_scope of this thread is open
// Sleeps until the scope's worker has events, `ns` passed or a signal came (as sleep_for_events,
// where the main worker's events are not this sleep's business: the progress thread serves them).
bool sleep_for_own_events(long ns, const sigset_t *during);
void pe_polling(bool on);
// Wakes the threads of the PE about to sleep or asleep for events (sleep_for_events), if any: the
// sequence's sleepers, and the fd's watcher through ucp_worker_signal.
void rouse_event_sleepers();

} // namespace ushmem::transport
