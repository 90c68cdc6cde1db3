// The wait loop, the waits built on it and the exit's parking of waiters (wait.hpp;
// docs/architecture.md, "Waiting").
#include "core/wait.hpp"

#include "core/clock.hpp"
#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/lanes.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "core/runtime.hpp"
#include "core/stats.hpp"
#include "core/wait_missing.hpp"
#include "transport/transport.hpp"

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>

namespace ushmem::core {

// ---- exits during a wait (wait.hpp; docs/user-guide.md, "Exit paths and fork") ----------------
// A thread may call exit() while another thread of the PE sits in a library wait, or a signal
// handler may call it on the waiting thread itself: the implicit finalize then runs while that wait
// is still on a stack. Waits elsewhere park for good once the exit has begun (the process is
// ending), so that the exit's finalize alone drives the worker and nothing reads the heap after it
// is unmapped. Every wait counts its thread from its first poll (waiter_scope: the first polls of
// wait_described, wait_for and await_requests, then wait_loop), so that the exit knows when all
// of them parked: a wait that the exit did not know of went on calling UCX in its first polls
// while the exit's finalize destroyed the worker (SIGSEGV in ucp_worker_progress: 4 PEs over tcp
// on 2 busy cores, the first polls' yields lasting longer than the exiting thread's grace).
[[noreturn]] void exit_watch::park() {
    parked.fetch_add(1);
    for (;;) pause();  // until exit_group ends the process; a signal handler returns here
}

// Called by the exiting thread before the implicit finalize: let every other waiting thread park.
// (Not through wait_loop: this may run in a signal handler's exit inside a progress call, and the
// loop progresses UCX. A yield among this PE's own threads.) A counted wait parks at its next poll
// (at most one progress call, a yield or a sleep of the policy away: 100 ms at most), however
// loaded the node: the bound only ends a wait for a thread that cannot get there (blocked on what
// the exiting thread holds, when a signal handler exits from inside a library call). Threads
// inside the library elsewhere than in a wait are not waited for (docs).
bool stop_other_waiters() {
    using namespace exit_watch;
    t_exiting = true;
    exiting.store(true);
    if (rt.seg[seg_heap].base) wake_self();  // sleeping waits see `exiting` now, not at their timeout
    const int self = t_waiting ? 1 : 0;  // a signal handler on a waiting thread: its wait is over
    const double give_up = now_seconds() + 10;
    while (parked.load() < waiters.load() - self) {
        if (now_seconds() > give_up) return false;
        sched_yield();
    }
    return true;
}

namespace {
// The one USHMEM_WAIT_TIMEOUT message.
[[noreturn]] void fail_timeout(const wait_spec &s, double waited) {
    // Large enough for a collective's list of members (16 named, each with why).
    char described[2048];
    const char *what = s.what;
    if (s.describe) {
        s.describe(s.describe_arg, described, sizeof described);
        what = described;
    }
    // The default context's list: the one a program's own puts go through (a quiet of another
    // context, e.g. the collectives', says what it waits for in `what`).
    missing_pes pending(32);
    for (int pe : rt.default_ctx.pending_list) pending.add(pe);
    fatal(s.routine, "timed out after %.1f s (USHMEM_WAIT_TIMEOUT) waiting for %s; PEs with outstanding "
                     "operations from this PE on the default context:%s",
          waited, what, pending.text(" none").c_str());
}
} // namespace

bool wait_loop(const wait_spec &s, bool (*cond)(void *), void *arg) {
    // What the PE does meanwhile (spin, block, yield) is the waiting policy's (wait_policy.hpp).
    // The callers' conditions are the library's own signals and completions, user data
    // (wait_until: woken by plain puts only where the policy made direct writers wake), or things
    // nothing signals (wait_kind::polled).
    const double timeout = s.bound > 0 ? 0 : rt.cfg.wait_timeout;
    // Whether the clock must be read between polls at all.
    const bool timed = timeout > 0 || s.deadline > 0 || s.bound > 0 || s.notice_after > 0;
    double notice_at = s.notice_after;
    const double stats_start = USHMEM_UNLIKELY(stats::enabled) && s.stats_time ? now_seconds() : 0;
    // For an exit() from another thread or a signal handler (its caller's first polls may have
    // opened one already: counted once).
    waiter_scope counted(s.parks_at_exit);
    wait_state w(s.kind, s.progress_mask, s.awaited_ahead, s.remote);
    for (unsigned long i = 0;; ++i) {
        if (USHMEM_UNLIKELY(exit_watch::exiting.load()) && s.parks_at_exit && !exit_watch::t_exiting) {
            w.release_signals();
            exit_watch::park();
        }
        if (cond(arg)) {
            if (USHMEM_UNLIKELY(stats_start != 0)) stats::add_time(stats::t_wait, now_seconds() - stats_start);
            return true;
        }
        w.idle(s.kind == wait_kind::polled ? nullptr : cond, arg);
        // Past the spin each idle() may sleep or yield: read the clock every time then, so that a
        // timeout fires on time; while spinning every 256 polls.
        if (!timed || !(w.slow() || (i & 255) == 0)) continue;
        const double waited = w.waited_seconds();
        if (timeout > 0 && waited > timeout) fail_timeout(s, waited);
        if (s.bound > 0 && waited > s.bound) return false;
        if (s.deadline > 0 && now_seconds() > s.deadline) throw wait_deadline_passed{};
        if (notice_at > 0 && waited > notice_at) {
            s.notice(s.notice_arg, waited);
            notice_at *= 2;
        }
    }
}

void wait_slow(const char *routine, const char *what, bool (*cond)(void *), void *arg, describe_fn describe,
               const void *describe_arg, bool user_data, bool remote) {
    // (Its callers, wait_for and wait_described, have sent this thread's put packs.)
    wait_spec s{routine, what, describe, describe_arg};
    s.kind = user_data ? wait_kind::data : wait_kind::signalled;
    s.remote = remote;
    wait_loop(s, cond, arg);
}

// ---- UCX requests -------------------------------------------------------------------------------
namespace {
struct request_wait {
    context *c;
    pending_request *reqs;
    std::size_t n;
    const char *op;
};

bool all_done(const request_wait &w) {
    for (std::size_t i = 0; i < w.n; ++i)
        if (transport::request_status(w.reqs[i].request) == transport::status_in_progress) return false;
    return true;
}

// The timeout message: which PEs have not answered. Over an emulated transport (UCX_TLS=tcp) a
// target answers only when it or its progress thread drives UCX, so a stopped or gone PE shows
// here by number.
void describe_requests(const void *arg, char *buf, std::size_t len) {
    const auto &w = *static_cast<const request_wait *>(arg);
    missing_pes pes;
    for (std::size_t i = 0; i < w.n; ++i)
        if (transport::request_status(w.reqs[i].request) == transport::status_in_progress)
            pes.add(w.reqs[i].pe, w.reqs[i].pe < 0 ? "all PEs of a worker flush" : nullptr);
    describe_no_answer(buf, len, w.op, pes);
}
} // namespace

std::atomic<send_packs_hook> g_send_packs_before_wait{nullptr};

transport::status await_requests(const char *routine, context &c, pending_request *reqs, std::size_t n,
                            const char *op) {
    const waiter_scope counted(true);  // for an exit() from another thread (wait.hpp), before any UCX call
    // A blocking get (or a flush) that completes within the spin below never reaches wait_slow: a
    // loop of them, polling for an answer to packed puts, must send them here.
    if (const send_packs_hook send = g_send_packs_before_wait.load(std::memory_order_relaxed))
        send(routine);
    request_wait w{&c, reqs, n, op};
    const transport::worker_h wk = worker_of(c);
    // First a short spin driving the worker (a flush over tcp takes tens of microseconds), then
    // the common wait: yielding, exit handling, USHMEM_WAIT_TIMEOUT. Where the wait policy does
    // not spin (g_wait.no_spin: the worker polls sockets, every lane emulated or peers on other
    // nodes, on a node with more PEs than CPUs) each poll yields too, as Open MPI's progress does
    // when oversubscribed (no_spin_yield_due): each progress call is a system call, and the PE that
    // must answer may need this CPU. 4 PEs on 2 cores over tcp, every PE's blocking gets from
    // every other in turn (SOS's spam all2all_get): 1550-2130 us a round of 3 gets without the
    // yields, 330-380 with them (OSHMEM 655-690); PE 0's get from PE 3 while the others wait in a
    // barrier level (37-45 against 34-79 us). A poll that completes the wait does not yield: that
    // cost a whole turn of the core (a get from a PE on the same core, 4 PEs on 2 cores: 35 us
    // with it, 25 without). Answers awaited from other nodes only (`remote`): fewer yields, and
    // the wait polls longer before it blocks (wait.hpp).
    bool remote = n > 0;
    for (std::size_t i = 0; i < n && remote; ++i) remote = on_other_node(reqs[i].pe);
    bool done = false;
    const bool yields = !wait_spins_first(false);
    for (unsigned i = 0; i < 256; ++i) {
        park_if_exiting();  // (before the requests' status: the exit's finalize frees them)
        if ((done = all_done(w))) break;
        transport::progress_both(wk);
        if (yields && no_spin_yield_due(i, remote) && !(done = all_done(w))) sched_yield();
    }
    if (!done) {
        const transport::own_wait_scope sleeps_watch(wk);
        wait_slow(
            routine, op,
            [](void *a) {
                auto &rw = *static_cast<request_wait *>(a);
                const transport::worker_h own = worker_of(*rw.c);
                if (own != transport::worker()) transport::progress_worker(own);  // wait_slow drives the main one
                return all_done(rw);
            },
            &w, describe_requests, &w, false, remote);
    }
    transport::status result = transport::status_ok;
    for (std::size_t i = 0; i < n; ++i) {
        transport::status st = transport::request_status(reqs[i].request);
        if (st != transport::status_ok && result == transport::status_ok) result = st;
        transport::request_free(wk, reqs[i].request);
    }
    return result;
}

} // namespace ushmem::core
