// transport/sleep.cpp: sleep_for_events and its helpers (fd watcher, sequence futex, own-worker
// waits), pe_polling, rouse_event_sleepers.
#include "transport/sleep.hpp"

#include "transport/am/acks.hpp"
#include "transport/internal.hpp"
#include "transport/worker.hpp"

#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>

namespace ushmem::transport {

namespace {
thread_local std::uint32_t t_seen_seq = 0;

void wake_seq_sleepers() {
    detail::shared.event_seq.fetch_add(1, std::memory_order_seq_cst);
    if (detail::shared.seq_sleepers.load(std::memory_order_seq_cst) > 0)
        syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&detail::shared.event_seq), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}
// Threads of the PE in the slow part of a library wait (pe_waiting).
} // namespace

// The main worker's wakeup fd (-1: none), fetched once per worker for serve() and
// sleep_for_events() (two threads fetching at once store the same fd).
int main_efd() {
    int efd = detail::shared.main_efd.load(std::memory_order_acquire);
    if (efd != -2) return efd;
    {
        drive d(detail::shared.main_worker);
        if (ucp_worker_get_efd(detail::shared.main_worker, &efd) != UCS_OK) efd = -1;
    }
    detail::shared.main_efd.store(efd, std::memory_order_release);
    return efd;
}

namespace {

// The scope's worker, drained then armed (UCX's rule), ready for poll(): its fd, -1 when it has
// events pending (the caller progresses them), -2 when it has no fd (no wakeup support).
int arm_own_wait() {
    ucp_worker_h w = t_own_wait;
    if (ucp_worker_progress(w) != 0) return -1;  // a context's own worker: never shared
    int efd = -1;
    if (ucp_worker_get_efd(w, &efd) != UCS_OK) return -2;
    const ucs_status_t st = ucp_worker_arm(w);
    return st == UCS_ERR_BUSY ? -1 : st == UCS_OK ? efd : -2;
}
} // namespace

own_wait_scope::own_wait_scope(ucp_worker_h w) : prev_(t_own_wait), set_(w && w != detail::shared.main_worker) {
    if (set_) t_own_wait = w;
}
own_wait_scope::~own_wait_scope() {
    if (set_) t_own_wait = prev_;
}
bool in_own_wait() { return t_own_wait != nullptr; }

bool sleep_for_own_events(long ns, const sigset_t *during) {
    const struct timespec ts{ns / 1000000000L, ns % 1000000000L};
    const int efd = arm_own_wait();
    if (efd == -1) return true;
    if (efd < 0) {
        nanosleep(&ts, nullptr);
        return false;
    }
    struct pollfd pfd{efd, POLLIN, 0};
    return ppoll(&pfd, 1, &ts, during) > 0;
}

namespace {
// A thread of a multi-threaded PE while another watches the event fd: sleeps on the sequence.
bool sleep_for_seq(long ns, const sigset_t *during) {
    detail::shared.seq_sleepers.fetch_add(1, std::memory_order_seq_cst);
    bool roused = true;
    // The watcher may have left before we counted ourselves (it wakes only counted sleepers).
    if (detail::shared.fd_watched.load(std::memory_order_seq_cst) != 0) {
        const struct timespec ts{ns / 1000000000L, ns % 1000000000L};
        sigset_t held;
        if (during) pthread_sigmask(SIG_SETMASK, during, &held);  // signals in while asleep, as ppoll's
        const long r = syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&detail::shared.event_seq), FUTEX_WAIT_PRIVATE,
                               t_seen_seq, &ts, nullptr, 0);
        roused = r == 0 || errno == EAGAIN;  // EAGAIN: the sequence moved since our last look
        if (during) pthread_sigmask(SIG_SETMASK, &held, nullptr);
    }
    detail::shared.seq_sleepers.fetch_sub(1, std::memory_order_seq_cst);
    return roused;
}

bool sleep_on_fd(long ns, const sigset_t *during);
} // namespace

bool sleep_for_events(long ns, const sigset_t *during) {
    if (!detail::shared.main_multi) return sleep_on_fd(ns, during);
    if (detail::shared.fd_watched.exchange(1, std::memory_order_seq_cst) != 0) return sleep_for_seq(ns, during);
    // Events served by another thread since our last look: it may be what we wait for.
    bool roused = detail::shared.event_seq.load(std::memory_order_seq_cst) != t_seen_seq || sleep_on_fd(ns, during);
    detail::shared.fd_watched.store(0, std::memory_order_seq_cst);
    // Whoever sleeps on the sequence looks again, and one of them watches the fd if still needed.
    if (detail::shared.seq_sleepers.load(std::memory_order_seq_cst) > 0) wake_seq_sleepers();
    return roused;
}

namespace {
bool sleep_on_fd(long ns, const sigset_t *during) {
    const int efd = main_efd();
    ucs_status_t st = UCS_OK;
    unsigned n;
    {
        drive d(detail::shared.main_worker);
        // Arm only a drained worker (UCX's rule): work found here may be what the caller waits for.
        n = ucp_worker_progress(detail::shared.main_worker);
        if (n == 0) st = efd >= 0 ? ucp_worker_arm(detail::shared.main_worker) : UCS_ERR_UNSUPPORTED;
    }
    // Other threads of the PE may sleep on the sequence: what we served may be theirs.
    if (detail::shared.main_multi && n != 0 && detail::shared.pe_polling.load(std::memory_order_seq_cst) > 1) wake_seq_sleepers();
    settle_acks();
    if (n != 0 || st == UCS_ERR_BUSY) return true;  // events pending: the caller progresses them
    struct pollfd pfd[2] = {{efd, POLLIN, 0}, {-1, POLLIN, 0}};
    nfds_t nfds = 1;
    if (t_own_wait) {  // what the wait is for arrives on that worker
        const int own = arm_own_wait();
        if (own == -1) return true;
        if (own >= 0) pfd[nfds++].fd = own;
    }
    const struct timespec ts{ns / 1000000000L, ns % 1000000000L};
    if (st != UCS_OK) {
        nanosleep(&ts, nullptr);
        return false;
    }
    return ppoll(pfd, nfds, &ts, during) > 0;
}
} // namespace

void pe_polling(bool on) {
    if (on && detail::shared.main_multi) t_seen_seq = detail::shared.event_seq.load(std::memory_order_seq_cst);
    detail::shared.pe_polling.fetch_add(on ? 1 : -1, std::memory_order_seq_cst);
}

void rouse_event_sleepers() {
    // The events just served are in memory before the count is read; a sleeper counted itself
    // before its last look (one of us sees the other). This thread's own count is 0 here: it
    // progresses outside its sleep.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (detail::shared.pe_polling.load(std::memory_order_relaxed) == 0) return;
    wake_seq_sleepers();
    if (detail::shared.fd_watched.load(std::memory_order_seq_cst) != 0) ucp_worker_signal(detail::shared.main_worker);
}

} // namespace ushmem::transport
