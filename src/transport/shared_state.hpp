// transport/shared_state.hpp: the words that the PE's threads, the progress thread and UCX's
// callbacks (which run on whichever thread progresses a worker) share, in one struct with one
// instance, detail::shared. Each field says who writes it, who reads it, with which memory order,
// and why that order suffices. State guarded by a lock of its own is not here: the owed
// acknowledgements (am/acks.cpp, owed_acks::lock) and the acknowledgement streams (am/acks.cpp,
// g_streams_lock).
#pragma once

#include "transport/lock.hpp"

#include <ucp/api/ucp.h>

#include <atomic>
#include <cstdint>

namespace ushmem::transport {

// The endpoint to PE `pe` for its acknowledgements (am/acks.hpp: set_ack_endpoint).
using ack_endpoint = ucp_ep_h (*)(std::uint32_t pe);
// Runs from progress when UCX finds a peer gone (endpoint.hpp: set_peer_failure_handler).
using peer_failure_handler = void (*)(int peer_id, ucs_status_t status);

namespace detail {

// Where the progress thread is (thread_shared::serve_state): serving (progressing, or about to
// sleep), asleep in poll() on the worker's event fd, or woken from there by the PE (kicked).
enum : int { srv_serving = 0, srv_polling = 1, srv_kicked = 2 };

// A PE that issues operations on the shared main worker: counted, once on the way in and once on
// the way out (odd: inside a call, which over tcp sends a large put before it returns, for
// hundreds of microseconds), and asked by the progress thread to progress the worker itself
// (serve()). Its own cache line: the PE writes `n` on every operation and reads `asked`; the
// thread reads `n` and writes `asked` once per look.
struct alignas(64) issue_state {
    std::atomic<unsigned> n{0};
    std::atomic<bool> asked{false};
};

struct thread_shared {
    // ---- set while one thread runs (init, finalize), read by all afterwards ---------------------
    // Plain words: the progress thread is started after they are written and joined before they
    // are reset (thread creation and join order them); the PE's own threads are the program's,
    // which start calling the library after shmem_init returns.

    // The main worker. Written by create_worker() and stop_context(); read by every call into it.
    ucp_worker_h main_worker = nullptr;
    // A progress thread shares the main worker: every call into it takes main_lock (drive).
    // Written by share_main_worker() (init, before the thread starts) and stop_context().
    bool main_shared = false;
    // The progress thread's own wake-up from its sleep in poll() (serve()): an eventfd that
    // kick_server() and stop_serving() write and only the thread reads. Not ucp_worker_signal():
    // that writes the worker's internal eventfd, which every ucp_worker_arm() drains, and the PE
    // arms the same worker before its own sleeps (sleep.cpp, sleep_on_fd). A PE that kicked the
    // thread (progress_shared) and then slept in a wait drained the kick before the thread ran;
    // the kernel's poll() looked again, found nothing and slept on, with serve_state left at
    // srv_kicked, so every later kick (rouse_server's, for a pack opened next) did nothing: the
    // thread slept until a message or UCX's keepalive timer (20 s) came, and a pack held while
    // the PE computed waited that long (mpi.pack_hold_blocking under TSan, pack_hold.c's relay).
    // Written by share_main_worker() (init, before the thread starts) and stop_context() (after
    // it is joined).
    int kick_fd = -1;
    // Threads of the PE share the main worker (SHMEM_THREAD_MULTIPLE): one thread's progress may
    // serve what another sleeps for (signal_pollers). Written by create_worker() and stop_context().
    bool main_multi = false;
    // Acknowledgements may be held lazily (allow_lazy_acks, init): only where every PE has a
    // progress thread. Read by progress_answering on the PE's threads.
    bool lazy_acks = false;
    // Per PE: bytes of signal messages UCX has not sent yet (held_bytes). The pointer is written
    // by set_ack_handler() (init). The counts: signal_nbx adds before the send (relaxed: only the
    // sending thread's later subtraction must see it, and that is the same counter's modification
    // order); the send's callback, on whichever thread progresses, subtracts with release; the
    // core reads them with acquire (held_bytes) to bound what it queues.
    std::atomic<std::int64_t> *held = nullptr;
    // At SHMEM_THREAD_MULTIPLE, run after every progress call of a thread of the PE that served
    // events (signal_pollers_slow). Written by set_served_hook() at init.
    bool (*served_hook)() = nullptr;

    // ---- the main worker's lock ---------------------------------------------------------------
    // Taken around every call into the main worker when it is shared (drive, issue): by the PE's
    // threads and the progress thread. Acquire on lock, release on unlock (lock.hpp).
    worker_lock main_lock;

    // ---- the PE's issuing, seen by the progress thread (its own cache line) ---------------------
    // n: the PE's issue_op adds 1 on the way in and out (relaxed load + relaxed store: one thread
    // issues at a time under main_lock, and the thread only needs to see it move). asked: the
    // thread sets it (relaxed) when it finds the PE issuing; the PE reads it (relaxed) after each
    // operation and answers by progressing (answer_progress_ask). A stale value costs one look.
    issue_state pe_issue;

    // ---- acknowledgements --------------------------------------------------------------------
    // Some acknowledgements are owed (lazy ones included). Written under the owed list's lock
    // (owe_ack, send_owed_acks, take_acks_for) by whichever thread runs the handlers or sends;
    // read relaxed outside it by settle_acks and take_acks_for as a hint: a stale `true` costs a
    // look under the lock; a stale `false` is corrected by the progress call after the handler's,
    // on the thread that ran it (the same thread's store).
    std::atomic<bool> acks_owed{false};
    // Where acknowledgements go, and whether they are dropped. Written by the PE at init
    // (set_ack_handler, set_ack_endpoint: seq_cst stores) and finalize (stop_acks); read by
    // whichever thread sends them: the endpoint function with acquire (the core's endpoints
    // exist before it is published), the flags relaxed (a late drop only sends what a peer ignores).
    std::atomic<ack_endpoint> ack_endpoint_of{nullptr};
    std::atomic<bool> acks_stopped{false};

    // ---- completion errors and peer failures ----------------------------------------------------
    // First error of a fire-and-forget request: compare-exchanged from UCS_OK by completion
    // callbacks on whichever thread progresses; the PE reads it relaxed and takes it with an
    // exchange (take_async_error) after its flushes, whose completion ordered the callbacks.
    std::atomic<ucs_status_t> async_error{UCS_OK};
    // The core's peer-failure handler: stored with release by the PE (set, mute at finalize),
    // loaded with acquire by UCX's error callback on whichever thread progresses.
    std::atomic<peer_failure_handler> peer_failure{nullptr};

    // ---- the hand-off between the PE and the progress thread (serve()) --------------------------
    // The main worker's wakeup fd: -2 not fetched yet, -1 none. Fetched by the first of serve()
    // and sleep_for_events() that needs it (both store the same fd: release), read with acquire;
    // reset to -2 by create_worker() and stop_context().
    std::atomic<int> main_efd{-2};
    // The PE's progress calls on the shared main worker. progress_shared(): relaxed load + seq_cst
    // store (a lost increment does not matter, only that it moves; seq_cst so that its later look
    // at serve_state (kick_server) and the thread's store of srv_polling before its look at this
    // word cannot both miss: Dekker). pe_blocking(): seq_cst increment. Read by the thread,
    // relaxed while parked (a stale value costs one look), seq_cst before it sleeps in poll().
    std::atomic<int> pe_progress{0};
    // What serve()'s park sleeps on (a futex word): moved only to end the park early (the PE
    // blocks, the job stops). Not pe_progress itself: a PE that progresses in a loop moves that
    // word faster than the thread can sleep on it, and each park ended at once (thousands of
    // wake-ups a second on the PE's core). Incremented seq_cst then FUTEX_WAKE by the PE
    // (pe_blocking, stop_serving); loaded seq_cst by the thread before it looks at pe_blocked and
    // waits on it (either the flag is seen or the futex finds the word moved).
    std::atomic<int> park_word{0};
    // Where the progress thread is (srv_*). The thread stores srv_polling (seq_cst) before its last
    // look at pe_progress, then exchanges srv_serving back after poll(); the PE moves it from
    // srv_polling to srv_kicked with a seq_cst compare-exchange (kick_server, after a relaxed
    // look: one load when the thread is not asleep) and wakes it (kick_fd), so the thread parks.
    std::atomic<int> serve_state{srv_serving};
    // A PE blocks in a wait (pe_blocking: seq_cst store, before moving park_word); cleared by its
    // next progress call (progress_shared). The thread reads it (seq_cst while parking, relaxed
    // elsewhere) so that its hand-off park ends at once.
    std::atomic<bool> pe_blocked{false};
    // Threads of the PE that sleep on the worker's event fd themselves (sleep_for_events), or are
    // about to (pe_polling(): seq_cst increments before their last look at their condition): the
    // progress thread stays parked meanwhile, or both would be woken by every message. The thread
    // reads it after a seq_cst fence (or seq_cst) once it served events, and then signals the
    // sleepers (one of the two sees the other).
    std::atomic<int> pe_polling{0};
    // At SHMEM_THREAD_MULTIPLE several threads of the PE may sleep for events at once. They cannot
    // all sleep on the event fd: a wake-up there is re-checked when the sleeper runs, and by then
    // another thread's arm (which drains the fd's signal) or progress (which reads the sockets)
    // has often taken it back, so the sleep ran to its bound while its condition was already true
    // (4 PEs x 2 threads over tcp on 2 cores, collectives on two teams at once: hundreds of 100 ms
    // sleeps, 31 ms per collective). So one thread at a time watches the fd (fd_watched: exchanged
    // seq_cst by the PE's sleepers); the others sleep on a futex (event_seq) that every thread
    // which serves events while any sleeps moves and wakes (seq_cst increment, then FUTEX_WAKE
    // when seq_sleepers, seq_cst, is not 0), as does the watcher when it leaves (one of the
    // others then watches). All seq_cst: each pairs a store with a later load on the other side.
    std::atomic<int> fd_watched{0};
    std::atomic<std::uint32_t> event_seq{0};
    std::atomic<int> seq_sleepers{0};
    // Threads of the PE in the slow part of a library wait (pe_waiting: relaxed increments and
    // decrements, only when the main worker is shared). Read relaxed by the thread at each look:
    // a stale value costs one park period, never a lost message (the waiter progresses itself).
    std::atomic<int> pe_waiting{0};
};

// The one instance. Constant-initialized (no constructor runs: usable before main and from any
// thread).
constinit inline thread_shared shared;

} // namespace detail

} // namespace ushmem::transport
