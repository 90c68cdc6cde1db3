// transport/progress_thread.hpp: the progress thread's loop (serve) and the PE's signals to it:
// blocking, waiting, issuing, what it holds back.
#pragma once

#include <atomic>

namespace ushmem::transport {

// Serves the main worker until `stop` is set and stop_serving() is called: progresses while there
// is work (polling `spin_ns` more after the last event: 50 us with a core of its own, 30 us on the
// PE's), then arms the worker's wakeup fd and sleeps in poll() until UCX has something for it: a
// message that arrives while the PE computes wakes it at once. While the PE drives the worker
// itself (it waits in the library: its progress() calls are counted), the thread stays out of its
// way, parked, and takes over once the PE has not progressed for `handoff_ns`: otherwise every
// message of a communication loop would wake a thread that has nothing to do but preempt the PE
// (the PE's core is usually the only one it can run on). Requires share_main_worker().
// `on_events` (may be null) runs after every progress call that found work: the core wakes a PE
// blocked in a wait there (core/wait_policy.cpp), since it is the thread that sees the network's messages.
// It returns whether it woke a thread of the PE (which then wants the CPU: no poll after it).
// `held_work` (may be null) runs at every look of the thread, parked or about to sleep: the core
// sends what its PE holds back while it computes (put packs), and returns within how many ns it
// wants the next look (0: nothing held), which then bounds the park and the sleep; `sent` tells
// that it issued operations itself (they moved the PE's issue count).
void serve(const std::atomic<bool> &stop, long spin_ns, long handoff_ns, bool (*on_events)(),
           long (*held_work)(bool &sent));
void stop_serving();  // wakes serve() (its own eventfd, and its park's futex) so that it sees `stop`
// Something held back for the progress thread to send was added while the thread may be asleep
// on the worker's events (waiting for the next message): it is woken to park instead, and so
// looks at it (held_work). A full fence and one load when the thread is not asleep there; called
// when the first pack opens, not per put.
void rouse_server();
// The PE is about to block in a wait (not progressing): the progress thread must not stay parked
// for its hand-off period, or the messages the PE waits for would sit unread until it ends.
// Cleared by the PE's next progress call.
void pe_blocking();
// Between pe_waiting(true) and pe_waiting(false) a thread of the PE is in the slow part of a
// library wait (past its spin: yielding or sleeping), which progresses the main worker whenever it
// runs: the progress thread stays parked even when the PE's progress count stands still. With more
// threads than CPUs the PE is often runnable but not running for a slice; taking over then (the
// thread's wake-up, the PE's kick that sends it back, the worker lock passed between them) serves
// nothing the PE would not serve when it next runs (docs/architecture.md has the figures).
// Counted: several threads of the PE may wait at once.
void pe_waiting(bool on);
// The progress thread found the PE issuing and asked it to progress the worker itself, so that it
// goes on serving its peers while it streams operations and the thread can stay parked (serve()).
void answer_progress_ask();

} // namespace ushmem::transport
