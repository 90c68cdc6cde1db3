// The waiting policy: what a PE does while a wait's condition is false (docs/architecture.md,
// "Waiting"), and the wakers that end its sleeps. Every wait of the library reaches it through the
// one wait loop (core/wait.hpp, wait_slow), whose every idle poll is wait_state::idle(): barriers
// and collectives, wait_until/test loops, signals, locks, quiet, replies of gets and atomics, UCX
// requests, finalize.
//
// Three situations, three behaviours after a first spin:
//   spin   a core per PE: keep polling (no sched_yield: a yielding PE on a core shared with a
//          compiler hands it its whole time slice, and sees its signal that much later), then,
//          after USHMEM_WAIT_SPIN seconds of waiting, block.
//   block  more PEs than cores (or USHMEM_WAIT_POLICY=block): spin a few microseconds, then sleep
//          on a futex word in the PE's own runtime area; the PE that completes the wait (its
//          signal, its store) wakes it, and the progress thread wakes it for what arrives over the
//          network. The core goes to the PE being waited for, not to whoever is runnable.
//   yield  the old behaviour (spin briefly, then sched_yield every poll), on request only.
// "Block" needs a waker on every path that can satisfy the wait: the library's own signals
// (barriers, collectives, signal ops) always wake; plain direct puts and AMOs wake only when some
// PE of the node may block on user data (wake_direct: decided alike on every PE at init), so that
// a put on a dedicated node pays nothing for it. A wait on user data with no waker sleeps in
// bounded slices instead (wait_kind::data).
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "transport/transport.hpp"

#include <cstddef>
#include <string>

#include <cstdint>
#include <signal.h>

namespace ushmem::core {

enum class wait_mode : int { spin, block, yield };

struct wait_config {
    wait_mode mode = wait_mode::spin;
    long spin_ns = 2000000;      // spinning before `mode` applies
    bool oversubscribed = false; // more PEs on the node than CPUs
    // No spin at all: every poll of this PE's progress is a system call (its worker polls
    // sockets: all its lanes are emulated over them, or it has peers on other nodes) and the
    // awaited PE may need this very CPU (spin_ns == 0). A spin of ~20 progress calls per wait cost
    // 4 PEs over tcp on 2 cores a third of their CPU time. Two simulated hosts of 1 CPU and 2 PEs
    // each: a ping-pong between the PEs of one host (direct) took 71 us one way spinning, 2.2 not;
    // across the hosts 20.7-22.5 against 15.9, a barrier 73-75 against 60-63 us.
    bool no_spin = false;
    // Block mode on a PE with peers on other nodes, or whose every lane is emulated over sockets
    // (UCX_TLS=tcp): while the network is busy (this wait awaits an answer from another node, or a
    // progress call found messages, or the progress thread woke it), the wait polls with a yield
    // for this long before it sleeps again. What it awaits or serves does not need this CPU (the
    // yield hands it to a local PE that does), and each sleep costs a message two wake-ups from an
    // idle CPU (the progress thread's, then the PE's): 2 simulated hosts of 1 CPU and 2 PEs each,
    // over tcp, put+quiet 35 against 25 us (Open MPI's OSHMEM, whose waits poll: 25 us). Several
    // round trips of a slow network. On one node over tcp (4 PEs, 2 cores) a collective's
    // signals come as a burst of messages, each of which found its PE asleep: barrier 86-130 ->
    // 58-85 us, 8 B reduce 85-88 -> 59-78 us (Open MPI's 76-90 and 78-85).
    long remote_poll_ns = 200000;
    bool remote_poll = false;  // block mode, and a PE on another node or every lane emulated (wait_setup)
    // Block mode on a PE with peers on other nodes: every wait polls, yielding at each poll, for
    // this long before its first sleep, whatever else runs on the node. A wait there is usually
    // part of an exchange with other nodes whose answer takes several network latencies on CPUs
    // the PEs share; sleeping costs each answer two wake-ups (the progress thread's, then the
    // PE's) and let the progress threads take a quarter of the CPUs. 4 simulated hosts x 8 PEs,
    // 2 CPUs: barrier 653 -> 235 us, 8 B broadcast 493 -> 97, 8 B reduce 660 -> 242, 8 B fcollect
    // 844 -> 320 (MPI with yield_when_idle: 514, 269, 551, 538); at 100 us 513, 467, 486, 728.
    // Beside two busy loops, within 10% of blocking at once. A PE idle in a long wait still
    // sleeps after this window. (One node keeps the 100 us window of node_runs_only_us.)
    // USHMEM_WAIT_REMOTE_YIELD (0: the one-node rule applies).
    long remote_yield_ns = 1000000;
    bool peers_elsewhere = false;  // some PE on another node (wait_setup)
    const char *reason = "";     // why this mode (ushmem-info)
};
extern wait_config g_wait;

// Whether a wait spins before the policy's slow part: always, except where g_wait.no_spin, and
// there still when the awaited PE is known to be ahead (it never waits for this one).
inline bool wait_spins_first(bool awaited_ahead) { return !g_wait.no_spin || awaited_ahead; }

// Where a wait does not spin first, its first polls (wait_described, await_requests) each make a
// progress call and then yield when this says so, so that a PE this one awaits gets the CPU it may
// share: after each poll, or after every 16th when every awaited PE is on another node (`remote`:
// those need no CPU here, and a yield, a system call, only delayed seeing their answer: two
// simulated hosts of 1 CPU and 2 PEs each, a fetch-add across them 16.75 us yielding at each
// poll, 16.16 every 16th).
inline bool no_spin_yield_due(unsigned poll, bool remote) { return !remote || (poll & 15) == 15; }

// The futex word and sleeper count of a PE, in its runtime area (own cache line: the signallers
// read `sleepers` after every signal, and it must stay in their caches while nobody sleeps).
struct wake_word {
    std::uint32_t seq;
    std::uint32_t sleepers;
};
constexpr std::size_t wake_area_word = 192;  // word index in the runtime area (bytes 1536..1599)

// This PE's vote (core/startup_vote.hpp): whether the settings and its node's facts make its waits
// block. Ends the job on a malformed USHMEM_WAIT_POLICY.
bool waits_block_here(const char *routine);
// At init, once settings, node facts, the start-up vote (rt.agreed.wake_direct: a writer must
// wake whatever any reader may block on) and the runtime area are known. Local.
void wait_setup(const char *routine, std::size_t runtime_area_offset);
// USHMEM_TEST_FAULT=lose_wakeups (tests only): this PE wakes no sleeper (wake() returns at once).
void inject_lost_wakeups();
std::string wait_describe();  // "block after 5 us (4 PEs on 2 CPUs)" for ushmem-info

// Which wakers a wait can count on.
enum class wait_kind : int {
    signalled,  // the library's own signals, UCX completions: block without a bound
    data,       // user data a plain put may write: blocks only when wake_direct, else sleeps in slices
    polled,     // nothing signals a change (an MPI request, words read by gets): sleeps in slices,
                // and idle() does not look at the condition (its caller's poll may be costly)
};

// Byte offset of the wake word in the heap (the same on every PE: the runtime area is allocated
// first, deterministically).
extern std::size_t g_wake_off;

// Wakes `p` if one of its threads sleeps in a wait: after a direct store or atomic that may satisfy
// it. After an atomic RMW (a full barrier on x86) the sleepers word can be read at once; after
// plain stores the store must be made visible first (wake_after_store fences).
// Routes are resolved per segment on first use, so a PE whose first contact with a same-node peer
// is in static data (an active-set barrier's pSync, a flag in .bss) has not mapped that peer's
// heap, where the wake word is: wake_peer_unmapped maps it, then wakes. (Returning instead lost
// the wake-up: OSU's barrier test at 4 PEs on 2 cores slept 100 ms per barrier for its first
// calls.)
void wake_peer_slow(const peer &p);
void wake_peer_unmapped(const peer &p);
inline void wake_peer(const peer &p) {
    const char *h = p.direct[seg_heap];
    if (USHMEM_UNLIKELY(h == nullptr)) return wake_peer_unmapped(p);
    const auto *w = reinterpret_cast<const wake_word *>(h + g_wake_off);
    if (USHMEM_UNLIKELY(__atomic_load_n(&w->sleepers, __ATOMIC_RELAXED) != 0)) wake_peer_slow(p);
}
// After the library's own signal to `pe` by a route of any kind (a lock hand-over): wakes it when
// it is reached directly (over UCX its progress thread sees the message and wakes it).
inline void wake_pe(const char *routine, int pe) {
    peer &p = target(routine, pe, seg_heap);
    if (p.how[seg_heap] == route::direct) wake_peer(p);
}
// The progress thread's hook (transport::serve's on_events): wake this PE's sleepers; returns
// whether there were any.
bool wake_self();

// One wait's state, driven by the wait loop (core/wait.cpp, wait_slow): `wait_state w(kind); while
// (!cond()) w.idle(cond_fn, arg);`. idle() progresses UCX, then spins, yields or blocks as the
// policy says (re-checking cond before sleeping, unless wait_kind::polled: cond_fn may then be
// nullptr); the loop checks its timeout with waited_seconds().
class wait_state {
public:
    // `progress_mask`: while spinning, UCX is progressed on polls where (count & mask) == mask
    // (0: every poll; waits on direct signals need it rarely).
    // `awaited_ahead`: see wait_spins_first.
    // `remote`: the wait is for an answer from another node (wait_config::remote_poll_ns).
    explicit wait_state(wait_kind k, unsigned progress_mask = 0, bool awaited_ahead = false, bool remote = false);
    ~wait_state();  // gives back the signals it held
    wait_state(const wait_state &) = delete;
    wait_state &operator=(const wait_state &) = delete;
    void idle(bool (*cond)(void *), void *arg);
    double waited_seconds() const;
    // Past the spin: each idle() may take long (a sleep, a yield), so read the clock every time.
    bool slow() const { return !spinning_; }
    void release_signals();  // and the pe_waiting mark: before the thread leaves the wait for good (parking for an exit)
private:
    unsigned progress_held();
    void hold_signals();
    sigset_t saved_;
    long released_ns_ = 0;
    bool held_ = false;
    bool marked_ = false;  // transport::pe_waiting(true) said (the slow part began)
    long start_ns_;        // start of the current spin (traffic restarts it)
    long first_ns_ = 0;    // when the wait was first timed: its age for timeouts and sleep slices
    long poll_until_ = 0;  // block mode, network busy: poll with a yield until then (remote_poll_ns)
    unsigned long polls_ = 0;
    bool spinning_ = true;
    long yield_until_ = -1;  // block mode: end of the yield phase (0: none), -1: not decided yet
    wait_kind kind_;
    unsigned mask_;
    bool awaited_ahead_;
    bool remote_;
};

// A PE may sleep in a wait on user data (core/wait.hpp). Where the waiting policy lets some PE of
// the node block (more PEs than CPUs, or USHMEM_WAIT_POLICY=block), every direct write looks for
// a sleeper on its target afterwards; elsewhere this is one load of a flag and a branch.
extern bool g_wake_direct;
void wake_after_store_slow(const peer &p);
void wake_after_rmw_slow(const peer &p);
USHMEM_HOT void wake_after_store(const peer &p) {
    if (USHMEM_UNLIKELY(g_wake_direct)) wake_after_store_slow(p);
}
USHMEM_HOT void wake_after_rmw(const peer &p) {
    if (USHMEM_UNLIKELY(g_wake_direct)) wake_after_rmw_slow(p);
}

} // namespace ushmem::core
