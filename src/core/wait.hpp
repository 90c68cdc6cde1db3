// Every wait of the library, in one loop (docs/architecture.md, "Waiting"; wait.cpp): user waits
// (wait_until and its forms, signal waits, locks: wait_described), replies of blocking gets and
// atomics and the acknowledgements a quiet awaits (wait_for), UCX requests (await_requests), the
// collectives' counters and eager broadcasts' completion (coll/frame.cpp: cwait_slow,
// eager_wait_done), the finalize barrier (runtime.cpp) and the reads of peers' runtime words that
// describe a timeout (wait_missing.cpp). A caller states its condition and how to describe what
// is missing (wait_spec); the loop, the policy's spins and sleeps (wait_policy.hpp), the timeout
// and its USHMEM_WAIT_TIMEOUT message, deadlines and the parking of waiters at an exit exist here
// once. The hot waits keep their first polls inline (no call, no clock read) and enter the loop
// only when those fail.
//
// Not here, on purpose: transport::drive_request (transport/worker.cpp) drives one request with a
// grace period while endpoints close at finalize (below core, no policy, no timeout message);
// stop_other_waiters' bounded yield (it runs in an exit, maybe inside a progress call, and must not
// progress UCX); pack_guard::wait (put_pack.cpp: a thread's hand-over of the packs, microseconds);
// the team slots' back-off (team.cpp: a retry of a collective protocol, not a wait).
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/put_pack.hpp"
#include "core/wait_policy.hpp"
#include "transport/transport.hpp"

#include <sched.h>

#include <atomic>
#include <cstddef>

namespace ushmem::core {

// Writes what a wait is for into buf (at most len bytes), when its timeout fires: the PEs still
// missing (wait_missing.hpp), the value seen, ...
using describe_fn = void (*)(const void *arg, char *buf, std::size_t len);

// Thrown by a wait whose spec's deadline passed (timed collectives: coll/entry.cpp catches it).
struct wait_deadline_passed {};

// One wait: what it is for and how it may end other than by its condition.
struct wait_spec {
    const char *routine;
    const char *what;                 // for the USHMEM_WAIT_TIMEOUT message, unless `describe`
    describe_fn describe = nullptr;   // builds `what` only when the timeout fires
    const void *describe_arg = nullptr;
    wait_kind kind = wait_kind::signalled;  // which wakers it has (wait_policy.hpp)
    unsigned progress_mask = 0;       // wait_state: progress on polls where (count & mask) == mask
    bool awaited_ahead = false;       // wait_state: the awaited PE never waits for this one
    bool remote = false;              // the answer comes from another node (wait_config::remote_poll_ns)
    // Counted among the waits an exit parks (stop_other_waiters). The collectives' waits and the
    // finalize barrier's are not (the exit's own finalize runs them on the exiting thread).
    bool parks_at_exit = true;
    // Counted as wait time in USHMEM_STATS (stats::t_wait). Not the collectives' waits (their time
    // is the collective's, where one is timed), nor finalize's or a timeout message's.
    bool stats_time = true;
    double deadline = 0;              // now_seconds() past which it throws wait_deadline_passed (0: none)
    double bound = 0;                 // > 0: gives up after this many seconds (returns false), no timeout
    // A notice while it lasts (the finalize barrier): notice(notice_arg, waited) after
    // `notice_after` seconds, then after twice as long, and so on (0: none).
    double notice_after = 0;
    void (*notice)(const void *arg, double waited) = nullptr;
    const void *notice_arg = nullptr;
};

// The wait loop: until cond(arg) holds, idles as the policy says (wait_state), ends the job after
// USHMEM_WAIT_TIMEOUT seconds with the one timeout message ("timed out after X s
// (USHMEM_WAIT_TIMEOUT) waiting for WHAT; PEs with outstanding operations from this PE on the
// default context: ..."), throws at its deadline, parks at an exit. Returns false only when a
// `bound` ran out. The caller has made its first polls.
bool wait_loop(const wait_spec &s, bool (*cond)(void *), void *arg);

// The common case: the wait of wait_for, named by `what` or described by `describe`.
// `user_data`: the condition reads memory a plain put may write (wait_until), which wakes a
// blocked waiter only where the waiting policy made direct writers look for sleepers; the
// library's own signals and UCX completions always wake it (wait_policy.hpp).
// `remote`: what it waits for is an answer from a PE on another node (in block mode it polls for
// a while before it sleeps).
void wait_slow(const char *routine, const char *what, bool (*cond)(void *), void *arg,
               describe_fn describe = nullptr, const void *describe_arg = nullptr, bool user_data = false,
               bool remote = false);

// ---- exits during a wait (wait.cpp; docs/user-guide.md, "Exit paths and fork") --------------
// A thread may call exit() while another thread of the PE waits in the library: the exit's
// finalize must not progress, close or destroy the worker, nor unmap the heap, while that wait
// still calls UCX or reads the heap. A wait counts its thread (waiter_scope) from its first poll,
// not only from its slow part (wait_loop): the first polls call UCX too, and on a loaded node
// (more threads than CPUs, each poll a yield) they last for seconds. Each poll looks at `exiting`
// (one load) and parks for good once the exit has begun; the exit waits until every counted wait
// parked (stop_other_waiters).
namespace exit_watch {
inline std::atomic<bool> exiting{false};  // an exit's finalize has begun
inline std::atomic<int> waiters{0};       // threads inside a counted wait (its outermost scope)
inline std::atomic<int> parked{0};        // of those, parked for the exit
inline thread_local bool t_waiting = false;  // this thread is counted among `waiters`
inline thread_local bool t_exiting = false;  // this thread runs the exit's finalize: it never parks
[[noreturn]] void park();                    // counts the thread as parked and stays there (wait.cpp)
} // namespace exit_watch

// Counts the calling thread among the waits an exit parks, for its scope. Only the outermost scope
// of a thread counts (wait_described -> wait_for -> wait_slow -> wait_loop nest; a wait in a
// signal handler's exit from an interrupted wait is the exit's own: stop_other_waiters' `self`).
// (Its callers have made their first look at the condition inline: a wait satisfied at once
// never counts itself.)
class waiter_scope {
public:
    explicit waiter_scope(bool counted) : on_(counted && !exit_watch::t_waiting) {
        if (!on_) return;
        exit_watch::t_waiting = true;
        exit_watch::waiters.fetch_add(1);  // seq_cst, before the next look at `exiting` (Dekker's)
    }
    ~waiter_scope() {
        if (!on_) return;
        exit_watch::waiters.fetch_sub(1);
        exit_watch::t_waiting = false;
    }
    waiter_scope(const waiter_scope &) = delete;
    waiter_scope &operator=(const waiter_scope &) = delete;

private:
    bool on_;
};

// At each poll of a counted wait, before its condition and outside any UCX call: parks for good
// once an exit has begun on another thread. Until the exit has seen it parked, the exit's finalize
// leaves the worker and the heap alone. One relaxed load.
inline void park_if_exiting() {
    if (USHMEM_UNLIKELY(exit_watch::exiting.load(std::memory_order_relaxed)) && exit_watch::t_waiting &&
        !exit_watch::t_exiting)
        exit_watch::park();
}

// Called by the exiting thread before the implicit finalize (runtime.cpp, exit_handler): every
// other thread counted in a wait parks for good. Returns false when some did not park within
// 10 s (a thread blocked on something the exiting thread holds: an exit from a signal handler
// that interrupted a library call); the finalize then leaves the worker and the segments to the
// process's end (runtime.cpp), since such a thread may still be inside UCX.
bool stop_other_waiters();

// Wait until cond() holds: this thread's put packs sent, 64 inline polls progressing UCX, then
// the loop (wait_slow).
template <class Cond>
inline void wait_for(const char *routine, const char *what, Cond cond, bool user_data = false, bool remote = false,
                     describe_fn describe = nullptr, const void *describe_arg = nullptr) {
    const waiter_scope counted(true);  // for an exit() from another thread (above), before any UCX call
    settle_thread_packs(routine);
    for (int i = 0; i < 64; ++i) {
        park_if_exiting();
        if (cond()) return;
        transport::progress();
    }
    wait_slow(routine, what, [](void *a) { return (*static_cast<Cond *>(a))(); }, &cond, describe, describe_arg,
              user_data, remote);
}

// Waits until cond() holds, like wait_for, but polls first (progressing UCX every 8th poll: the
// condition is a load, an idle progress call costs tens of ns; at each poll, with yields, where
// the policy does not spin) and builds the description of the wait for the timeout message only
// then: a wait that is satisfied within a few microseconds (a ping-pong) never pays for the
// formatting. describe(buf, len) writes it. (wait_until and its forms, signal waits, locks, the
// replies of blocking atomics.)
// `user_data`, `remote`: see wait_slow.
template <class Cond, class Describe>
inline void wait_described(const char *routine, Cond cond, Describe describe, bool user_data, bool remote = false) {
    const waiter_scope counted(true);  // for an exit() from another thread (above), before any UCX call
    settle_thread_packs(routine);
    // Where the policy does not spin (g_wait.no_spin: the worker polls sockets, every lane
    // emulated or peers on other nodes, more PEs than CPUs) the data or the reply comes from a PE
    // that may need this very CPU, and each progress call is a system call: each poll yields
    // (no_spin_yield_due), as await_requests' do (and Open MPI's when oversubscribed). 4 PEs on 2
    // cores over tcp, partners on one core: a put-with-signal ping-pong took 60-77 us one way with
    // the spin, whatever the policy, and a fetch-add 80-83 us, against 10.8 and 25 yielding
    // (partners on different cores: 6.2 and 11.8-12.2 spinning, 11.4-12.0 and 12.4-12.6 yielding).
    if (USHMEM_UNLIKELY(!wait_spins_first(false))) {
        for (unsigned i = 0; i < 256; ++i) {
            park_if_exiting();
            if (cond()) return;
            if (user_data) {
                if (transport::progress_answering(cond)) return;
            } else {
                transport::progress();
                if (cond()) return;
            }
            if (no_spin_yield_due(i, remote)) sched_yield();
        }
    } else {
        for (int i = 0; i < 1024; ++i) {
            park_if_exiting();
            if (cond()) return;
            // The condition is cheap; progress is not. A message that satisfies a wait on user
            // data is acknowledged after this PE's answer (transport::progress_answering).
            if ((i & 7) == 7) {
                if (!user_data) transport::progress();
                else if (transport::progress_answering(cond)) return;
            }
        }
    }
    char what[256];
    describe(what, sizeof what);
    wait_for(routine, what, cond, user_data, remote);
}

// UCX requests a PE waits for (completion of blocking operations, flushes): `pe` is the PE whose
// answer the request needs (-1: several, e.g. a worker flush).
struct pending_request {
    void *request;
    int pe;
};
// What await_requests does first: send this thread's open put packs (a request may await an answer
// that a packed put or get must reach first). Installed by put packs (put_pack.cpp,
// enable_packing): the waits sit below put packs, which wait themselves, so they do not call up
// into them by name (tools/call_graph.py). Null until packing is on. Atomic: threads creating
// contexts concurrently (THREAD_MULTIPLE) all install it, while others wait (a relaxed load is
// a plain load on the wait path).
using send_packs_hook = void (*)(const char *routine);
extern std::atomic<send_packs_hook> g_send_packs_before_wait;
// Waits until UCX completes every request (of `c`'s worker), frees them, and returns the first
// error status (UCS_OK if none). `op` names the operation for the USHMEM_WAIT_TIMEOUT message,
// which lists the PEs whose requests are still incomplete: a target that is stopped, overloaded
// or gone is named instead of the wait hanging silently. (wait.cpp: first polls, then the loop.)
transport::status await_requests(const char *routine, context &c, pending_request *reqs, std::size_t n,
                                 const char *op);
inline transport::status await_request(const char *routine, context &c, void *request, int pe, const char *op) {
    pending_request r{request, pe};
    return await_requests(routine, c, &r, 1, op);
}

} // namespace ushmem::core
