// The waiting policy and the wakers (wait_policy.hpp; docs/architecture.md, "Waiting").
#include "core/wait_policy.hpp"

#include "core/clock.hpp"
#include "core/compiler.hpp"
#include "core/env.hpp"
#include "core/fast_path.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"

#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>

namespace ushmem::core {

wait_config g_wait;
std::size_t g_wake_off = 0;
bool g_wake_direct = false;

namespace {
bool g_lose_wakeups = false;  // inject_lost_wakeups()
// Blocking is safe for waits on the library's own signals only when something wakes a sleeper for
// what arrives over UCX too: the progress thread (wake_self), or no UCX traffic to this PE at all.
bool g_network_waker = true;
// Everything this PE can wait for arrives as a UCX message (every lane is emulated over active
// messages, as with UCX_TLS=tcp): it sleeps on the worker's wakeup fd itself. With a
// progress thread that sleep would otherwise cost two wake-ups per message (the thread's, then
// the PE's): 4 PEs over tcp on 2 cores spent 180-240 us in a barrier that way.
bool g_events_only = false;
int g_local_pes = 1;

// Block mode on a node where nothing but this job's PEs wants to run (more PEs than CPUs, no other
// load): yielding hands the CPU to one of our own PEs, likely the one awaited, without the cost of
// two wake-ups (4 PEs over tcp on 2 cores: barrier 135-150 us blocking at once, 80-120 us
// yielding). Where other processes are runnable (a build beside the job) a yield gives them a whole
// time slice, so then block at once (not where the PE has peers on other nodes: there every wait
// yields for wait_config::remote_yield_ns first, whatever runs beside it). The count of runnable threads (/proc/loadavg) is read at most
// every 10 ms per PE (relaxed atomics: threads of a PE may wait at once; a stale answer is harmless).
bool node_runs_only_us() {
    static std::atomic<long> checked_ns{0};
    static std::atomic<bool> only_us{false};
    const long now = now_nanos();
    if (now - checked_ns.load(std::memory_order_relaxed) < 10000000L) return only_us.load(std::memory_order_relaxed);
    checked_ns.store(now, std::memory_order_relaxed);
    bool quiet = false;
    if (FILE *f = std::fopen("/proc/loadavg", "r")) {
        double a, b, c;
        int running = 0, total = 0;
        if (std::fscanf(f, "%lf %lf %lf %d/%d", &a, &b, &c, &running, &total) == 5)
            quiet = running <= g_local_pes + 1;  // + 1: a launcher daemon or a progress thread
        std::fclose(f);
    }
    only_us.store(quiet, std::memory_order_relaxed);
    return quiet;
}

wake_word *own_word() { return reinterpret_cast<wake_word *>(rt.seg[seg_heap].base + g_wake_off); }

// Shared (not _PRIVATE) futex operations: the word lives in the symmetric heap, a shared mapping
// that same-node peers reach through their own mapping of it.
long futex_wait(std::uint32_t *addr, std::uint32_t val, long ns) {
    struct timespec ts{ns / 1000000000L, ns % 1000000000L};
    return syscall(SYS_futex, addr, FUTEX_WAIT, val, &ts, nullptr, 0);
}
void futex_wake_all(std::uint32_t *addr) { syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0); }

void wake(wake_word *w) {
    if (USHMEM_UNLIKELY(g_lose_wakeups)) return;  // USHMEM_TEST_FAULT=lose_wakeups (tests only)
    __atomic_fetch_add(&w->seq, 1, __ATOMIC_SEQ_CST);
    futex_wake_all(&w->seq);
}

// The asynchronous signals (a fault stays deliverable): held while a wait is past its spin.
const sigset_t &async_signals() {
    static const sigset_t held = [] {
        sigset_t set;
        sigfillset(&set);
        for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS}) sigdelset(&set, sig);
        return set;
    }();
    return held;
}

bool parse_spin(const std::string &text, double &out) {
    std::string err;
    return parse_seconds(text, out, err);
}
} // namespace

void inject_lost_wakeups() { g_lose_wakeups = true; }

namespace {
// The wait mode the settings and this node's facts choose, and why.
wait_mode mode_here(const char *routine, const char *&reason) {
    const bool oversubscribed = rt.node_cpus > 0 && rt.local_size > rt.node_cpus;
    const std::string &pol = rt.cfg.wait_policy;
    if (pol == "auto") {
        reason = oversubscribed ? "more PEs on the node than CPUs" : "a CPU per PE";
        return oversubscribed ? wait_mode::block : wait_mode::spin;
    }
    if (pol == "spin") return reason = "USHMEM_WAIT_POLICY=spin", wait_mode::spin;
    if (pol == "block") return reason = "USHMEM_WAIT_POLICY=block", wait_mode::block;
    if (pol == "yield") return reason = "USHMEM_WAIT_POLICY=yield", wait_mode::yield;
    fatal(routine, "malformed value USHMEM_WAIT_POLICY='%s': expected one of auto, spin, block, yield", pol.c_str());
}
} // namespace

bool waits_block_here(const char *routine) {
    const char *reason = nullptr;
    return mode_here(routine, reason) == wait_mode::block;
}

void wait_setup(const char *routine, std::size_t runtime_area_offset) {
    g_wake_off = runtime_area_offset + wake_area_word * sizeof(std::uint64_t);
    g_wait.oversubscribed = rt.node_cpus > 0 && rt.local_size > rt.node_cpus;
    g_wait.mode = mode_here(routine, g_wait.reason);
    // The spin before blocking: long with a CPU per PE (a wait that ends within it keeps today's
    // speed; the partner of a barrier is usually microseconds away), none when the awaited PE may
    // need this very CPU: 4 PEs on 2 cores spent 15 us in a barrier spinning 5 us before each
    // yield, 6-7 us yielding at once (Open MPI's 4.1-4.5 us yields at once too).
    double spin = g_wait.mode == wait_mode::spin ? 0.002 : g_wait.mode == wait_mode::block ? 0.0 : 0.000002;
    if (rt.cfg.wait_spin != "auto" && !parse_spin(rt.cfg.wait_spin, spin))
        fatal(routine, "malformed value USHMEM_WAIT_SPIN='%s': expected 'auto' or seconds (e.g. 0.002, 5e-6)",
              rt.cfg.wait_spin.c_str());
    g_wait.spin_ns = long(spin * 1e9);
    // Writers of direct data must wake what any PE may block on: decided alike everywhere (the
    // start-up vote, core/startup_vote.hpp).
    g_wake_direct = rt.agreed.wake_direct;
    // The C API's inline put (api.hpp) copies without calling core: close the fast paths' gate
    // (fast_path.hpp) so that every call takes core's path, which wakes.
    if (g_wake_direct) fast_path_close(fast_path_closer::wakes);
    // UCX traffic: some peer is on another node, or the node's peers are not reached directly.
    // Only emulated lanes (active messages: UCX_TLS=tcp) make a message, hence an event, of every
    // put and atomic; one-sided ones (sysv/posix on the node, RDMA) land in memory silently.
    const transport::lanes_info &l = transport::lanes();
    bool ucx_traffic = !rt.cfg.direct || !l.has_shared_memory_rma;
    bool all_emulated = rt.npes > 1, remote_peers = false;
    for (int pe = 0; pe < rt.npes; ++pe) {
        const bool local = !on_other_node(pe);
        if (!local) remote_peers = true;
        if (pe != rt.me && (local ? l.has_shared_memory_rma : l.has_network_rdma)) all_emulated = false;
    }
    if (remote_peers) ucx_traffic = true;
    g_network_waker = rt.progress_thread || !ucx_traffic;
    // Polling while the network is busy (wait_config::remote_poll): with peers on other nodes, and
    // where every lane is emulated, since then every signal, even a same-node peer's, is a message
    // through the kernel's sockets that a sleeping PE pays two wake-ups for.
    g_wait.remote_poll = g_wait.mode == wait_mode::block && (remote_peers || all_emulated);
    g_wait.peers_elsewhere = remote_peers;
    g_wait.remote_yield_ns = long(rt.cfg.wait_remote_yield * 1e9);
    g_local_pes = rt.local_size;
    g_events_only = all_emulated;
    // (With peers on other nodes the worker's progress polls their sockets, an epoll_wait, even
    // where the wait is for a same-node peer's direct signal.)
    g_wait.no_spin = (all_emulated || remote_peers) && g_wait.spin_ns == 0;
}

std::string wait_describe() {
    char buf[288];
    const char *m = g_wait.mode == wait_mode::spin ? "spin" : g_wait.mode == wait_mode::block ? "block" : "yield";
    char remote[128] = "";
    if (g_wait.remote_poll && g_wait.peers_elsewhere && g_wait.remote_yield_ns)
        std::snprintf(remote, sizeof remote,
                      "; polling (yielding) %.0f us while network messages arrive and %.0f us before every sleep "
                      "(peers on other nodes)",
                      double(g_wait.remote_poll_ns) / 1e3, double(g_wait.remote_yield_ns) / 1e3);
    else if (g_wait.remote_poll)
        std::snprintf(remote, sizeof remote, "; polling (yielding) %.0f us while network messages arrive",
                      double(g_wait.remote_poll_ns) / 1e3);
    std::snprintf(buf, sizeof buf, "%s, blocking after %.0f us of spinning (%s)%s%s", m,
                  double(g_wait.spin_ns) / 1e3, g_wait.reason,
                  g_wait.mode == wait_mode::yield ? "" : "; sleepers woken by their signaller", remote);
    return buf;
}

void wake_peer_slow(const peer &p) {
    wake(reinterpret_cast<wake_word *>(p.direct[seg_heap] + g_wake_off));
}

void wake_peer_unmapped(const peer &p) {
    if (&p < rt.peers.entry.data() || &p >= rt.peers.entry.data() + rt.peers.entry.size()) return;  // not a world peer
    if (route_of(p, seg_heap) == route::unresolved) resolve("ushmem (waking a PE)", int(&p - rt.peers.entry.data()), seg_heap);
    if (p.direct[seg_heap] != nullptr) wake_peer(p);  // not direct (USHMEM_DIRECT=0): nothing sleeps on our stores
}

void wake_after_rmw_slow(const peer &p) { wake_peer(p); }

void wake_after_store_slow(const peer &p) {
    // The data must be visible before the sleepers word is read (store-load order): a sleeper
    // that counted itself after our load re-checks its condition and sees the data.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    wake_peer(p);
}

bool wake_self() {
    if (rt.seg[seg_heap].base == 0) return false;
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the completions just run before the load
    wake_word *w = own_word();
    if (__atomic_load_n(&w->sleepers, __ATOMIC_RELAXED) == 0) return false;
    wake(w);
    return true;
}

// The clock is first read after 256 polls (16 where the spin is short): most waits of a communication loop end before that,
// and a clock read (~20 ns) would be a visible part of a 0.3 us barrier. The time of those polls
// (a few microseconds) is not counted.
wait_state::wait_state(wait_kind k, unsigned progress_mask, bool awaited_ahead, bool remote)
    : start_ns_(0), kind_(k), mask_(progress_mask), awaited_ahead_(awaited_ahead), remote_(remote) {}

namespace {
// Whether the yield window of a PE with peers on other nodes (wait_config::remote_yield_ns) pays:
// the last wait that used it, or that slept at once, ended within the window's length (a
// collective loop with other nodes: every wait is an exchange's few network latencies). A wait
// that outlasted it (a bystander in a barrier while other PEs run a put loop) makes the next ones
// sleep at once, until one of them ends within that time again: yielding through whole waits
// took CPU from the PEs that worked on it (2 simulated hosts x 2 PEs, put + quiet 9.95 against
// 9.15 us with the window at every wait; 8.87 against 9.06 like this). Any thread of the PE may
// write it.
std::atomic<bool> g_remote_yield_pays{true};
} // namespace

wait_state::~wait_state() {
    release_signals();
    if (first_ns_ && g_wait.peers_elsewhere && g_wait.mode == wait_mode::block)
        g_remote_yield_pays.store(now_nanos() - first_ns_ < g_wait.remote_yield_ns, std::memory_order_relaxed);
}

// UCX forbids re-entering ucp_worker_progress (Debian's build asserts), which a signal handler
// calling exit() inside a progress call would do through the implicit finalize; with UCX_TLS=tcp
// most signals land there (the call is an epoll_wait). Past its spin a wait therefore progresses
// with the asynchronous signals held, and lets pending ones in between progress calls at least
// every 200 us, and before any sleep (or during it: sleep_for_events). Where every progress call
// is itself a system call (g_events_only: UCX_TLS=tcp) they are held across polls: two sigprocmask
// calls per poll cost 4 PEs over tcp on 2 cores a tenth of a barrier. Elsewhere around each
// progress call, before the yield: held across, the restore would be a system call on the path
// out of every wait (4 PEs on 2 cores, default transports: +4% per barrier and reduction).
unsigned wait_state::progress_held() {
    if (!g_events_only) {
        sigset_t prev;
        pthread_sigmask(SIG_BLOCK, &async_signals(), &prev);
        const unsigned n = transport::progress();
        pthread_sigmask(SIG_SETMASK, &prev, nullptr);
        return n;
    }
    hold_signals();
    return transport::progress();
}

void wait_state::hold_signals() {
    const long now = now_nanos();
    if (!held_) {
        pthread_sigmask(SIG_BLOCK, &async_signals(), &saved_);
        held_ = true;
        released_ns_ = now;
    } else if (now - released_ns_ > 200000) {
        pthread_sigmask(SIG_SETMASK, &saved_, nullptr);  // pending signals are delivered here
        pthread_sigmask(SIG_BLOCK, &async_signals(), nullptr);
        released_ns_ = now;
    }
}

void wait_state::release_signals() {
    if (marked_) {
        transport::pe_waiting(false);
        marked_ = false;
    }
    if (!held_) return;
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
    held_ = false;
}

double wait_state::waited_seconds() const {
    return first_ns_ ? double(now_nanos() - first_ns_) * 1e-9 : 0.0;
}

void wait_state::idle(bool (*cond)(void *), void *arg) {
    ++polls_;
    if (spinning_ && !wait_spins_first(awaited_ahead_)) {
        spinning_ = false;
        start_ns_ = now_nanos();
        if (!first_ns_) first_ns_ = start_ns_;
    }
    if (spinning_) {
        // No pause instruction: it delays seeing the signal by up to its latency (~40 ns here).
        // Traffic served restarts the spin: a target that keeps receiving (a stream of puts
        // into a PE that waits in a barrier) would otherwise sleep 2 ms into it and leave every
        // message to a progress thread woken through the kernel (~10 us each on a VM).
        // (Only with a CPU per PE: where PEs share CPUs the sender may need this one.)
        if ((polls_ & mask_) == mask_ && transport::progress() != 0 && g_wait.mode == wait_mode::spin) start_ns_ = 0;
        // The clock every 256 polls (a vDSO call, not free), every 16 where the spin is short.
        if ((polls_ & (g_wait.spin_ns >= 100000 ? 255u : 15u)) != 0) return;
        if (start_ns_ == 0) {
            start_ns_ = now_nanos();
            if (!first_ns_) first_ns_ = start_ns_;
            if (g_wait.spin_ns > 0) return;
        }
        if (now_nanos() - start_ns_ < g_wait.spin_ns) return;
        spinning_ = false;
    }
    // The slow part: yields and sleeps, with a progress call at every poll where this wait
    // progresses at every poll (every lane emulated, or a wait that asks for it). A PE runnable
    // behind other threads (more threads than CPUs) looks idle to the progress thread for a slice;
    // its takeover then serves nothing that this wait would not serve when it runs, and costs a
    // wake-up and the worker lock passed back and forth (transport/progress_thread.hpp, pe_waiting). Not where the wait
    // progresses only every few polls (waits on direct signals): there the thread serves the
    // network while the PE yields.
    if (!marked_ && (g_events_only || mask_ == 0)) {
        transport::pe_waiting(true);
        marked_ = true;
    }
    // Progress with signals held (a signal handler's exit must not re-enter UCX), then look again.
    // Where signals are not held across polls (not g_events_only), only as often as the wait asks
    // (`mask_`) until it sleeps: a wait on direct signals needs it rarely, and in the yield phase
    // each progress call added two sigprocmask calls to the yield (4 PEs on 2 cores, barrier 4.5-
    // 6.3 us, reduce 3.6-4.1; with the mask 3.5-3.9 and 2.9).
    const bool due = g_events_only || (polls_ & mask_) == mask_;
    const unsigned served = due ? progress_held() : 0;
    if (g_wait.mode == wait_mode::yield) {
        sched_yield();
        return;
    }
    if (g_wait.remote_poll) {
        // The network is busy (wait_config::remote_poll): poll, yielding, rather than sleep.
        const long now = now_nanos();
        if (served || (remote_ && poll_until_ == 0)) poll_until_ = now + g_wait.remote_poll_ns;
        if (now < poll_until_) {
            // A yield every 16 polls (each poll here is a progress call, a system call over tcp):
            // one per poll doubled the loop's system calls and delayed seeing the answer.
            if ((polls_ & 15) == 0) sched_yield();
            return;
        }
    }
    if (yield_until_ < 0) {
        const long window = g_wait.mode != wait_mode::block ? 0
                            : g_wait.peers_elsewhere && g_wait.remote_yield_ns &&
                                      g_remote_yield_pays.load(std::memory_order_relaxed)
                                  ? g_wait.remote_yield_ns
                            : node_runs_only_us()          ? 100000
                                                           : 0;
        yield_until_ = window ? now_nanos() + window : 0;
    }
    if (yield_until_ > 0 && now_nanos() < yield_until_) {
        sched_yield();
        return;
    }
    if (!due) progress_held();  // before a sleep, always: what it finds may be what we wait for
    if (cond && cond(arg)) return;  // (polled waits: the loop looks again after the sleep)
    // How long the sleep may last. Woken by every waker this wait has, the bound only serves the
    // timeout and exit checks of the caller; without one (user data a plain put writes, on a node
    // where puts do not wake), slices of a twentieth of the time already waited (20 us to 1 ms):
    // the wait's end is seen at most ~5% late.
    const bool woken = kind_ != wait_kind::polled &&
                       ((g_network_waker && (kind_ == wait_kind::signalled || g_wake_direct)) ||
                        ((g_events_only || transport::in_own_wait()) && kind_ == wait_kind::signalled));
    long ns = 100000000;
    if (!woken) ns = std::clamp((now_nanos() - first_ns_) / 20, 20000L, 1000000L);
    wake_word *w = own_word();
    const std::uint32_t seq = __atomic_load_n(&w->seq, __ATOMIC_ACQUIRE);
    __atomic_fetch_add(&w->sleepers, 1, __ATOMIC_SEQ_CST);  // a full barrier before cond's loads
    if (g_events_only) transport::pe_polling(true);  // before the last look: see transport/sleep.hpp
    else transport::pe_blocking();  // the progress thread serves the network while we sleep
    // Wakers that signal with a plain store (collectives' own counters) read `sleepers` without a
    // fence: their load may pass their store, and see 0 while the store is still in their store
    // buffer. Looking at the condition for a couple of microseconds after announcing ourselves
    // outlasts such a drain (hundreds of nanoseconds), so the signal is seen here instead.
    const long recheck_until = now_nanos() + 2000;
    bool met = cond && cond(arg);
    while (!met && cond && now_nanos() < recheck_until) met = cond(arg);
    // Where what we wait for arrives over the network (g_events_only), sleep on the worker's
    // wakeup fd: a message ends the sleep at once (a direct-path signaller's futex wake, where
    // there is one without a progress thread, is seen at the end of the slice).
    bool roused = false;  // by events or a waker, not by the bound or a signal
    const long slept_from = USHMEM_UNLIKELY(rt.cfg.debug) && woken ? now_nanos() : 0;
    if (!met) {
        // Signals may interrupt the sleep. Over events they are held since progress_held() above:
        // sleep_for_events lets them in during its ppoll only (it progresses UCX before). The
        // futex wait calls no UCX, and progress_held() held them only around its progress call.
        // A wait on a context's own worker (transport::own_wait_scope) is ended by its events: no
        // futex waker knows that worker, nor does the progress thread.
        if (g_events_only) roused = transport::sleep_for_events(ns, &saved_);
        else if (transport::in_own_wait()) roused = transport::sleep_for_own_events(ns, held_ ? &saved_ : nullptr);
        else roused = futex_wait(&w->seq, seq, ns) == 0 || errno == EAGAIN;  // EAGAIN: seq moved before
    }
    if (g_events_only) transport::pe_polling(false);
    __atomic_fetch_sub(&w->sleepers, 1, __ATOMIC_RELAXED);
    // Under SHMEM_DEBUG: a sleep that every waker should have ended ran to its bound although
    // what it waits for had come (a lost wake-up: the job goes on, slowly). Tests look for it.
    if (USHMEM_UNLIKELY(slept_from != 0) && !met && !roused && now_nanos() - slept_from >= ns && cond && cond(arg))
        notice("PE %d: missed wake-up: a wait slept to its %.0f ms bound although its condition was met "
               "(a library bug: please report it)", rt.me, double(ns) / 1e6);
    if (!roused) return;
    // Woken (by a message, or by the progress thread for messages it served), the condition maybe
    // still false: most likely the first message of a stream (a loop of requests to this PE while
    // it waits in a barrier), which this wait now serves itself for a while instead of costing
    // every message a wake-up. With a CPU per PE: the spin again (signals let in meanwhile, as in
    // any spin). Waits that had slept before a stream began paid a wake-up per message for the
    // rest of the wait: 2 PEs over tcp, an idle target's get 18.3 against 10.5 us, whichever
    // figure a run happened to settle on.
    if (g_wait.mode == wait_mode::spin) {
        release_signals();
        spinning_ = true;
        start_ns_ = 0;
    } else if (g_wait.remote_poll) {
        poll_until_ = now_nanos() + g_wait.remote_poll_ns;
    }
}

} // namespace ushmem::core
