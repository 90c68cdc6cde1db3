// transport/progress_thread.cpp: serve(), the progress thread's loop: parked while the PE
// drives the main worker, serving while it is away, asleep on the worker's event fd when idle.
#include "transport/progress_thread.hpp"

#include "transport/internal.hpp"
#include "transport/progress.hpp"
#include "transport/sleep.hpp"

#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace ushmem::transport {

void pe_blocking() {
    if (!detail::shared.main_shared) return;
    detail::shared.pe_blocked.store(true, std::memory_order_seq_cst);
    detail::shared.pe_progress.fetch_add(1, std::memory_order_seq_cst);
    detail::shared.park_word.fetch_add(1, std::memory_order_seq_cst);
    syscall(SYS_futex, reinterpret_cast<int *>(&detail::shared.park_word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

namespace {
// The kicks that ended serve()'s sleep (or came since): taken, so that the next sleep lasts.
void drain_kicks() {
    std::uint64_t n;
    while (read(detail::shared.kick_fd, &n, sizeof n) < 0 && errno == EINTR) {
    }
}
} // namespace

void serve(const std::atomic<bool> &stop, long spin_ns, long handoff_ns, bool (*on_events)(),
           long (*held_work)(bool &sent)) {
    const int efd = main_efd();
    long last_event = 0;
    rpc_mark_server_thread();
    while (!stop.load(std::memory_order_relaxed)) {
        // While the PE progresses the worker itself (it waits in the library), what arrives is
        // its to serve: stay parked until it has not progressed for a whole hand-off period.
        // Each look that finds it still progressing doubles the period (up to 32 x): every look
        // is a context switch on the PE's core, and at a fixed 100 us they cost a communication
        // loop over tcp up to 40% (put+quiet 24-33 us against 17.5 us for raw UCX). The price is
        // the first message to a PE that has just started computing: served within the current
        // period (at most 3.2 ms by default); later ones at once, the thread then serving.
        //
        // A PE that issues operations is busy in the library too, but it does not serve its peers
        // while it only issues (atomics on its own memory in a loop, say, or a stream of large
        // puts over tcp, which UCX sends inside ucp_put_nbx: milliseconds with no progress call).
        // Taking over then would take the worker lock in turn with the PE (1 MiB puts: 3.5-4.1
        // GB/s, against 4.6-5.1 without the thread). So the thread asks the PE to progress the
        // worker at its next operation (issue_op) and stays parked; if the PE neither progresses
        // nor issues by the next look, it is away and the thread serves.
        long park_ns = handoff_ns;
        long held_ns = 0;  // what held_work asked for at the last look (0: nothing held)
        unsigned issued_seen = detail::shared.pe_issue.n.load(std::memory_order_relaxed);
        for (int seen = detail::shared.pe_progress.load(std::memory_order_relaxed);;) {
            // The word first, then the flag: pe_blocking() sets them in the other order, so
            // either the flag is seen here or the futex call finds the word moved.
            const int word = detail::shared.park_word.load(std::memory_order_seq_cst);
            if (detail::shared.pe_blocked.load(std::memory_order_seq_cst) || stop.load(std::memory_order_relaxed)) break;
            const long nap = held_ns > 0 ? std::min(park_ns, held_ns) : park_ns;
            const struct timespec park{nap / 1000000000L, nap % 1000000000L};
            syscall(SYS_futex, reinterpret_cast<int *>(&detail::shared.park_word), FUTEX_WAIT_PRIVATE, word, &park, nullptr, 0);
            const int now = detail::shared.pe_progress.load(std::memory_order_relaxed);
            const unsigned issued = detail::shared.pe_issue.n.load(std::memory_order_relaxed);
            if (stop.load(std::memory_order_relaxed) || detail::shared.pe_blocked.load()) break;
            if (held_work) {
                // Without an ask pending: our own sends (issue_op) must not answer it for the PE.
                detail::shared.pe_issue.asked.store(false, std::memory_order_relaxed);
                bool sent = false;
                held_ns = held_work(sent);
                if (sent) {
                    // Our sends moved the PE's counts: judge the PE at the next look.
                    seen = detail::shared.pe_progress.load(std::memory_order_relaxed);
                    issued_seen = detail::shared.pe_issue.n.load(std::memory_order_relaxed);
                    continue;
                }
            }
            const bool issuing = issued != issued_seen || (issued & 1) != 0;
            if (now == seen && issuing) detail::shared.pe_issue.asked.store(true, std::memory_order_relaxed);
            if (now == seen && !issuing && !detail::shared.pe_polling.load(std::memory_order_relaxed) &&
                detail::shared.pe_waiting.load(std::memory_order_relaxed) == 0)
                break;
            seen = now;
            issued_seen = issued;
            park_ns = std::min(park_ns * 2, handoff_ns * 32);
        }
        detail::shared.pe_issue.asked.store(false, std::memory_order_relaxed);
        // The PE is away (computing): serve until nothing is left, then sleep on the event fd.
        const int pe_seen = detail::shared.pe_progress.load(std::memory_order_relaxed);
        while (!stop.load(std::memory_order_relaxed)) {
            unsigned n;
            {
                drive d(detail::shared.main_worker);
                n = ucp_worker_progress(detail::shared.main_worker);
            }
            settle_acks();
            run_rpcs();  // (only where the program allows it: SHMEM_THREAD_MULTIPLE, am/rpc.hpp)
            if (n) {
                const bool woke = on_events && on_events();
                // The PE drives the worker again (its quiet, its wait): leave it the worker, as
                // after a sleep. Looked at here too, not only once the worker is drained: a
                // stream of large puts keeps both sides busy, and the thread would take the lock
                // in turn with the PE's quiet to its end.
                if (detail::shared.pe_progress.load(std::memory_order_relaxed) != pe_seen && !detail::shared.pe_blocked.load(std::memory_order_relaxed) &&
                    !detail::shared.pe_polling.load(std::memory_order_relaxed))
                    break;
                // The PE may be asleep on the event fd, which our progress just drained: signal
                // it, and leave the fd to it (park), or our next arm would drain the signal.
                std::atomic_thread_fence(std::memory_order_seq_cst);
                if (detail::shared.pe_polling.load(std::memory_order_relaxed)) {
                    if (detail::shared.main_multi) rouse_event_sleepers();  // and the sequence's sleepers
                    else ucp_worker_signal(detail::shared.main_worker);
                    break;
                }
                // A PE woken here wants the CPU (on a shared core, ours): no poll after this event.
                last_event = spin_ns && !woke ? now_nanos() : 0;
                continue;
            }
            // Right after activity more usually follows (the next request of a loop, the reply to
            // a request just served): poll a little before a wakeup, while the PE computes. Not
            // while it waits in the library (blocked, or yielding: what we served may be what it
            // waits for, and on a shared core our poll would keep it from running: 2 hosts of 1
            // CPU and 2 PEs, barrier 100-135 us polling, 60-88 not, as before the poll), nor
            // after an event that woke a thread of the PE; when the PE is back driving the worker
            // itself, park, as after a sleep.
            if (spin_ns && last_event && now_nanos() - last_event < spin_ns &&
                !detail::shared.pe_blocked.load(std::memory_order_relaxed) && detail::shared.pe_waiting.load(std::memory_order_relaxed) == 0) {
                if (detail::shared.pe_progress.load(std::memory_order_relaxed) != pe_seen) break;
                for (int i = 0; i < 32; ++i) __builtin_ia32_pause();
                continue;
            }
            // The PE sleeps on the fd itself: arming here could drain a signal meant for it.
            if (detail::shared.pe_polling.load(std::memory_order_seq_cst)) break;
            ucs_status_t st;
            {
                drive d(detail::shared.main_worker);
                st = ucp_worker_arm(detail::shared.main_worker);
            }
            if (st == UCS_ERR_BUSY) continue;  // events arrived meanwhile: progress them first
            const int seen = detail::shared.pe_progress.load(std::memory_order_relaxed);
            if (st != UCS_OK || efd < 0) {
                sched_yield();  // no wakeup mechanism on some transport: poll, yielding the core
                if (detail::shared.pe_progress.load(std::memory_order_relaxed) != seen) break;
                continue;
            }
            // Announce the sleep, then look once more whether the PE started progressing in the
            // meantime (it reads the state after counting its progress call: one of us sees the
            // other), and at what it holds back (a pack opened after this look rouses us:
            // rouse_server). Held work bounds the sleep.
            detail::shared.serve_state.store(detail::srv_polling, std::memory_order_seq_cst);
            bool sent = false;
            const long held_ns = held_work ? held_work(sent) : 0;
            bool timed_out = false;
            if (!sent && detail::shared.pe_progress.load(std::memory_order_seq_cst) == seen && !stop.load(std::memory_order_relaxed)) {
                // The worker's fd for the network, our own for kicks (kick_server, stop_serving):
                // a kick must end this sleep even when the PE, in a wait, arms the worker (which
                // drains UCX's own signal) before we run (shared_state.hpp, kick_fd).
                struct pollfd pfd[2] = {{efd, POLLIN, 0}, {detail::shared.kick_fd, POLLIN, 0}};
                if (held_ns > 0) {
                    const struct timespec ts{held_ns / 1000000000L, held_ns % 1000000000L};
                    timed_out = ppoll(pfd, 2, &ts, nullptr) == 0;
                } else {
                    poll(pfd, 2, -1);
                }
                if (pfd[1].revents & POLLIN) drain_kicks();
            }
            const bool kicked = detail::shared.serve_state.exchange(detail::srv_serving) == detail::srv_kicked;
            // The PE is back: park (unless it is blocked: its pe_blocking() moved the count too).
            if ((kicked || detail::shared.pe_progress.load(std::memory_order_relaxed) != seen) && !detail::shared.pe_blocked.load()) break;
            if (spin_ns && !timed_out) last_event = now_nanos();
        }
    }
}

void pe_waiting(bool on) {
    if (detail::shared.main_shared) detail::shared.pe_waiting.fetch_add(on ? 1 : -1, std::memory_order_relaxed);
}

void stop_serving() {
    // Wakes the poll() of serve() (its own fd); the futex wakes its hand-off wait.
    wake_server();
    detail::shared.park_word.fetch_add(1, std::memory_order_seq_cst);
    syscall(SYS_futex, reinterpret_cast<int *>(&detail::shared.park_word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void rouse_server() {
    // After the caller's store of what it holds (Dekker's, against serve()'s announcement of its
    // sleep and its look at held_work after it).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    kick_server();
}

void answer_progress_ask() {
    detail::shared.pe_issue.asked.store(false, std::memory_order_relaxed);
    progress_shared();
    settle_acks();
}

} // namespace ushmem::transport
