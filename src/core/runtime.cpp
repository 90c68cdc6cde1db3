// The lifecycle (runtime.hpp): init and finalize, which call down into every part of core (nothing
// calls up into this file), the world barrier's entry, the direct pointer, the progress thread's
// start and stop, and the exit and fork paths.
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"
#include "core/peer_words.hpp"
#include "core/wait_missing.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/env.hpp"
#include "core/fast_path.hpp"
#include "core/info.hpp"
#include "core/lanes.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "core/messages.hpp"
#include "core/ordering.hpp"
#include "core/peers.hpp"
#include "core/preflight.hpp"
#include "core/put_pack.hpp"
#include "core/route.hpp"
#include "core/rpc.hpp"
#include "core/heap_grow.hpp"
#include "core/segments.hpp"
#include "core/startup_vote.hpp"
#include "core/stats.hpp"
#include "core/team.hpp"
#include "core/timed.hpp"
#include "transport/transport.hpp"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <thread>

namespace ushmem::core {

namespace {
// Symmetric bytes the runtime keeps for itself (rt.runtime_words points at them): the heap check's
// words (heap_check_word), the wake area (wait_policy.hpp), the collective entry word (coll_entry_word),
// the finalize mark (the last 8). Words 0-127 are unused (a barrier that no longer exists had them;
// the others keep their places).
constexpr std::size_t runtime_area = 4096;
static_assert((heap_check_word + 4) * 8 <= wake_area_word * 8,
              "the heap check's words lie before the wake area");
static_assert(coll_entry_word >= wake_area_word + 8 && coll_entry_word * 8 < runtime_area - 8,
              "the collective entry word lies after the wake word's cache line, before the finalize mark");

// ---- progress thread -----------------------------------------------------------------------
// Only started when a selected transport emulates RMA in software (the target must run UCX
// progress for a put to land). It sleeps on the worker's wakeup fd between events
// (transport::serve), so a request that arrives while the PE computes is served within the OS's
// wakeup latency, and an idle job costs it no CPU.
std::thread g_progress;
std::atomic<bool> g_progress_stop{false};

void progress_loop(std::string cpus, long spin_ns, long handoff_ns) {
    bind_current_thread(cpus);
    pthread_setname_np(pthread_self(), "ushmem-progress");
    transport::serve(g_progress_stop, spin_ns, handoff_ns, wake_self, send_held_packs);
}

// This PE's own need of a progress thread; the start-up vote decides for all (core/startup_vote.hpp).
bool needs_progress_thread() {
    const std::string &mode = rt.cfg.progress_thread;
    if (mode == "on") return true;
    if (mode == "off" || rt.npes == 1) return false;
    bool local_peers = false, remote_peers = false;
    for (int pe = 0; pe < rt.npes; ++pe) {
        if (pe == rt.me) continue;
        (rt.node_of[std::size_t(pe)] == rt.node_of[std::size_t(rt.me)] ? local_peers : remote_peers) = true;
    }
    const transport::lanes_info &l = transport::lanes();
    bool need = (local_peers && !l.has_shared_memory_rma) || (remote_peers && !l.has_network_rdma);
    // Static data registered in place (not UCX-allocated) is reached through UCX's emulation on
    // every transport: the target must progress for a peer's access to it to complete.
    if (!rt.cfg.static_data) need = true;
    // Every PE must decide alike (the thread mode of the worker depends on it): the start-up vote.
    return need;
}

// UCX reports that the endpoint to `pe` failed (UCP_ERR_HANDLING_MODE_PEER): the peer died or its
// node went away. Every later operation to it would fail one by one, and a wait for it would never
// end; say who is gone and end the job, unless the launcher does first.
void on_peer_failure(int pe, transport::status status) {
    // One report per PE: the other endpoints of a dying job fail in the same instant.
    static std::atomic<bool> reported{false};
    if (reported.exchange(true))
        for (;;) pause();  // the first report ends the process
    // Not "it died": the same report reaches a PE that was stopped or descheduled while another PE
    // ended the job (a timeout, an error): then that PE's message says why, and this one must not
    // blame a PE that was alive.
    error("peer failure detection", "PE %d is unreachable (%s): it exited, was killed or its node "
          "went away, or the job is being ended by another PE (whose message says why); "
          "ending the job (USHMEM_PEER_FAILURE=0 disables this detection)", pe, transport::status_string(status));
    // The launcher has usually seen that death too (its daemon saw the process exit, or lost its
    // node's daemon) and is ending the job already; so has a PE whose own exit is what failed the
    // endpoint. An abort of our own in the middle of that teardown only races it (and Open MPI's
    // mpirun can crash on it, leaving its files behind): give the launcher a moment, listening
    // for its SIGTERM, and end the job ourselves only if it does not (the peer's node is
    // unreachable but its daemon alive, or the launcher does not watch for deaths).
    bootstrap::wait_for_launcher(2);
    std::fflush(stdout);
    bootstrap::abort_job(1);
}

// fork() after shmem_init: the child shares the parent's symmetric heap (and, when it was moved
// onto shared memory, the program's static data), UCX endpoints and MPI connections. None of that
// is the child's to finalize: its exit must leave them alone (docs: nothing of OpenSHMEM in a child).
bool g_forked_child = false;
void on_fork_child() {
    g_forked_child = true;
    // The progress thread does not exist in the child: forget it, or its destructor would end
    // the child with std::terminate at exit. (Reusing the storage ends the old object's lifetime.)
    new (&g_progress) std::thread();
}

// Set by an exit whose finalize could not park every waiting thread of the PE (stop_other_waiters:
// one blocked on what the exiting thread holds): such a thread may still be inside UCX or read the
// heap, so that finalize meets the other PEs and closes its endpoints, but leaves the worker, the
// UCX context and the segments to the process's end, which follows at once. Nothing stays behind:
// the segments are marked for removal when they are made (a killed PE leaves nothing either).
bool g_leave_to_exit = false;

// Registered with on_exit at the first shmem_init: returning from main or exit(status) without
// shmem_finalize ends up here.
void exit_handler(int status, void *) {
    if (g_forked_child) return;
    if (rt.state == lib_state::running) {
        if ((status & 0xff) != 0 && rt.npes > 1) {
            // A failing PE: its peers may wait for it in ways a finalize cannot meet (a flag it
            // will never set, a collective it will never join), and the collective finalize would
            // hang the whole job. End the job with the status instead; its segments are already
            // marked for removal, so ending the processes leaves nothing behind.
            std::fflush(stdout);
            std::fprintf(stderr, "ushmem: PE %d exited with status %d without shmem_finalize; ending the job\n",
                         rt.me, status);
            std::fflush(stderr);
            bootstrap::abort_job(status & 0xff);
        }
        // Status 0: finalize with the others, so that peers waiting in the final barrier are
        // released and nothing is left mapped.
        if (!stop_other_waiters()) {
            g_leave_to_exit = true;
            notice("exit (PE %d of %d): a thread of this PE still in a library wait after 10 s; the "
                   "worker and the segments are left to the process's end", rt.me, rt.npes);
        }
        rt.init_count = 1;
        finalize("exit (shmem_finalize was not called)");
    }
    bootstrap::leave();
}

void print_info() {
    if (rt.cfg.version) std::printf("ushmem 0.1.0 (OpenSHMEM 1.6)\n");
    if (!rt.cfg.info) return;
    std::printf("ushmem settings (SHMEM_INFO):\n");
    const settings in_effect = settings_in_effect();
    for (const env_var &v : env_table())
        std::printf("  %-24s = %-10s %s\n", v.name, setting_text(in_effect, v).c_str(), v.description);
    const segment &h = rt.seg[seg_heap];
    std::printf("  heap: %s at %#" PRIxPTR " on %s pages (%s address on every PE); %s\n",
                format_bytes(h.size).c_str(), h.base, format_bytes(h.page_size).c_str(),
                h.same_address ? "same" : "per-PE translated", heap_growth_text().c_str());
    const segment &s = rt.seg[seg_static];
    std::printf("  static data: %s at %#" PRIxPTR " (%s)\n", format_bytes(s.size).c_str(), s.base,
                s.mem.allocated ? "UCX shared memory" : "registered in place");
    std::printf("  UCX resources: %s\n", transport::lanes().resources.c_str());
    std::printf("  progress thread: %s\n", rt.progress_thread ? "running" : "not needed");
    const char *why_private = node_tables_private_reason();
    if (*why_private) std::printf("  init-time tables: private copies on every PE (%s)\n", why_private);
    else std::printf("  init-time tables: once per node in shared memory (%zu mapped by PE 0, %d PE%s on its node)\n",
                     node_tables_mapped(), rt.local_size, rt.local_size == 1 ? "" : "s");
    std::fflush(stdout);
}

// Collective: one reduction (two when some PE has small pages), after which every PE has ended
// its init up to this call (init's closing barrier).
void report_page_size() {
    // Say once, from PE 0, how many PEs did not get huge pages for their heap.
    const segment &h = rt.seg[seg_heap];
    // Two reductions, not a gather: nothing here grows with the job (issue #50).
    const std::uint64_t small = (h.page_size && h.page_size < (2u << 20)) ? h.page_size : 0;
    const std::uint64_t count = bootstrap::sum_u64(small ? 1 : 0);
    const std::uint64_t page = count ? bootstrap::max_u64(small) : 0;
    if (count && rt.me == 0 && rt.cfg.hugepage_notice)
        notice("symmetric heap on %s pages, not 2 MiB huge pages, on %" PRIu64 " of %d PEs; reserve "
               "huge pages (echo N > /proc/sys/vm/nr_hugepages, N = 2 MiB pages for all PEs' "
               "SHMEM_SYMMETRIC_SIZE plus 3 per PE), or USHMEM_HUGEPAGE_NOTICE=0 to silence",
               format_bytes(std::size_t(page)).c_str(), count, rt.npes);
}

} // namespace

void *direct_pointer(const void *addr, int pe) {
    seg_id s;
    std::size_t off;
    if (!locate(addr, 1, s, off)) return nullptr;
    if (pe == rt.me) return const_cast<void *>(addr);  // our own memory, whatever the route
    peer &p = target("shmem_ptr", pe, s);
    return p.how[s] == route::direct ? p.direct[s] + off : nullptr;
}

void barrier_all(const char *routine, bool with_quiet) {
    if (with_quiet) quiet(routine, rt.default_ctx);
    if (rt.npes == 1) return;
    // The world team's barrier (core/coll/sync.cpp). The world team exists from init's team_init
    // until finalize's last barrier, and nothing calls this outside that span.
    if (USHMEM_UNLIKELY(team_world.slot < 0)) fatal(routine, "internal error: a barrier before the world team exists");
    world_sync(routine);
}

int init(const char *routine, const void *comm, int requested) {
    if (rt.state == lib_state::running) {
        ++rt.init_count;
        return rt.thread_level;
    }
    bootstrap::job job;
    std::string err;
    if (!bootstrap::join(comm, job, err)) {
        std::fprintf(stderr, "ushmem: %s (PE ? of ?): %s\n", routine, err.c_str());
        std::exit(1);
    }
    rt.me = job.rank;
    rt.npes = job.size;
    rt.node_of = job.node_of;
    rt.local_rank = job.local_rank;
    rt.local_size = job.local_size;
    // The CPUs the node gives its PEs, not the machine's: simulated hosts sharing one machine, or
    // a batch allocation's cpuset, give fewer than hardware_concurrency() reports.
    rt.node_cpus = job.node_cpus > 0 ? job.node_cpus : int(std::thread::hardware_concurrency());
    if (!load_settings(rt.cfg, err)) fatal(routine, "%s", err.c_str());
    // (USHMEM_INFLIGHT_MSGS >= 0: checked at load, env_defs.h)
    rt.inflight_msgs = rt.cfg.inflight_msgs ? std::uint64_t(rt.cfg.inflight_msgs) : ~std::uint64_t(0);
    rt.inflight_bytes = rt.cfg.inflight_bytes && rt.cfg.inflight_bytes < std::size_t(INT64_MAX)
                            ? std::int64_t(rt.cfg.inflight_bytes)
                            : INT64_MAX;
    // The fast paths' gate (fast_path.hpp): statistics and SHMEM_DEBUG close it, and so may
    // wait_setup below (writers that wake).
    fast_path_start(rt.npes);
    if (rt.cfg.debug) fast_path_close(fast_path_closer::checked);
    stats::start(rt.npes, rt.cfg.stats);
    if (!transport::start_context(err)) fatal(routine, "cannot initialize UCX: %s", err.c_str());
    transport::set_peer_failure_handler(rt.cfg.peer_failure ? on_peer_failure : nullptr);
    // Before anything symmetric is created, in one reduction: the same layout settings everywhere,
    // a heap that fits, and the choices every PE must make alike (rt.agreed).
    const bool reserved = reserve_heap(routine);
    cast_startup_vote(routine, needs_progress_thread(), heap_wanted(), reserved);
    rt.progress_thread = rt.agreed.progress_thread;
    rt.thread_level = requested < 0 ? 0 : (requested > thread_multiple ? thread_multiple : requested);
    bool mt = rt.thread_level == thread_multiple;
    if (rt.progress_thread && !transport::share_main_worker(err))
        fatal(routine, "cannot start the progress thread: %s", err.c_str());
    transport::allow_lazy_acks(rt.progress_thread);  // (ack_lazy: who sends them when the PE computes)
    // Per-PE arrays reserved, nothing written (util/lazy_array.hpp: a peer costs memory once
    // this PE talks to it).
    rt.peers.acks_sent.reset(std::size_t(rt.npes));
    rt.peers.acks_done.reset(std::size_t(rt.npes));
    install_message_handlers();  // signals, acknowledgements, gathers (core/messages.hpp)
    rpc_init();  // remote procedure calls' handlers, before the worker (core/rpc.hpp)
    // Faults that ushmem's own tests inject, to check that the library notices them.
    if (rt.cfg.test_fault == "short_get_replies") transport::inject_short_batch_replies();
    else if (rt.cfg.test_fault == "lose_wakeups") inject_lost_wakeups();
    else if (rt.cfg.test_fault == "reject_bulk") transport::inject_rejected_bulk();
    else if (rt.cfg.test_fault == "refuse_growth" || rt.cfg.test_fault == "kill_in_growth") {}  // (core/heap_grow.cpp)
    else if (rt.cfg.test_fault == "bad_node_entry" || rt.cfg.test_fault == "refuse_node_table") {}  // (core/node_table.cpp)
    else if (rt.cfg.test_fault != "none")
        fatal(routine, "malformed value USHMEM_TEST_FAULT='%s': expected one of none, lose_wakeups, short_get_replies, reject_bulk, refuse_growth, kill_in_growth, bad_node_entry, refuse_node_table "
                       "(faults for ushmem's own tests)", rt.cfg.test_fault.c_str());
    if (!transport::create_worker(mt, err))
        fatal(routine, "cannot create the UCX worker: %s", err.c_str());
    if (mt) transport::set_served_hook(wake_self);

    map_heap(routine, rt.agreed.heap_wanted, rt.agreed.heap_reserved);
    map_static(routine);
    restrict_shm_permissions();  // UCX creates them 0660 (docs/security.md)
    {
        // One exchange for what a peer needs to reach this PE: its worker address, both
        // segments' packed rkeys and their addresses (node_table.hpp, init_part).
        const std::vector<std::uint8_t> addr = transport::worker_address();
        const std::vector<std::uint8_t> heap_rkey = transport::pack_rkey(rt.seg[seg_heap].mem);
        std::vector<std::uint8_t> static_rkey;
        if (rt.seg[seg_static].mem.memh) static_rkey = transport::pack_rkey(rt.seg[seg_static].mem);
        const std::uint64_t bases[seg_count] = {rt.seg[seg_heap].base, rt.seg[seg_static].base};
        const blob_part parts[init_parts] = {{addr.data(), addr.size()},
                                             {heap_rkey.data(), heap_rkey.size()},
                                             {static_rkey.data(), static_rkey.size()},
                                             {bases, sizeof bases}};
        gather_node_table(routine, init_table_what, parts, init_parts, rt.peers.init_table);
    }
    rt.peers.entry.reset(std::size_t(rt.npes));
    rt.peers.chunks.reset(std::size_t(rt.npes));
    rt.peers.contacted.clear();
    transport::set_ack_endpoint(ack_endpoint);
    rt.default_ctx.reset(rt.npes, mt);
    rt.default_ctx.acked_msgs = rt.cfg.acked_messages;
    enable_packing(rt.default_ctx);

    // The runtime's own symmetric area comes first, at the same offset on every PE.
    rt.heap.reset(rt.seg[seg_heap].size);
    std::size_t area = *rt.heap.allocate(runtime_area);
    rt.runtime_words = reinterpret_cast<std::uint64_t *>(rt.seg[seg_heap].base + area);
    std::memset(rt.runtime_words, 0, runtime_area);
    wait_setup(routine, area);
    // Bulk messages wait for the receiver's answer to their request to send before the data moves.
    // Where this node has more PEs than CPUs the receiver is often not running then, and a
    // collective's PEs waited for each other's answers in turn: 4 PEs on 2 cores over tcp, 1 MiB
    // alltoall 2.9 against 2.4-2.7 ms with the other paths (docs/architecture.md). Not there, then,
    // unless asked for; and never where UCX would not keep them in order.
    rt.bulk_min =
        !transport::bulk_ordered() || (g_wait.oversubscribed && !std::getenv("USHMEM_BULK_MIN")) ? 0 : rt.cfg.bulk_min;
    coll_init(routine);  // the collectives' settings and context (their team slots: team_init)
    team_init(routine);  // the team slots follow, at the same offset on every PE
    // The entry word (coll/frame.cpp) now names the last of team_init's own collectives, on
    // another team than the program's first: "none since shmem_init" instead, so that a PE late
    // in user code is not described as inside a collective of another team (issue #48).
    __atomic_store_n(rt.runtime_words + coll_entry_word, 0, __ATOMIC_RELEASE);
    heap_calls_start();

    rt.state = lib_state::running;
    rt.init_count = 1;
    if (rt.progress_thread) {
        std::string cpus = progress_thread_cpus(job.local_rank, job.node_used_cpus, job.node_any_unbound);
        progress_thread_binding = cpus;
        g_progress_stop = false;
        // The program's signals are not the progress thread's: a handler that calls exit() must
        // not run on it (it would finalize, and join, itself). It inherits this mask.
        sigset_t all, prev;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &prev);
        // After each event the thread polls for a while before it sleeps: the next request of a
        // communication loop usually follows within a round trip, and a sleep costs it a wake-up
        // and two context switches. With a core of its own 50 us; sharing the PE's core 30 us (the
        // PE's CPU it takes is bounded by that per burst of requests): 2 PEs over tcp, a computing
        // target's get 21.8 against 10.2 us (sleeping at once; idle target 9.5 us), put+quiet
        // 30.4 against 17.8 us.
        const long spin_ns = cpus.empty() ? 30000 : 50000;
        g_progress = std::thread(progress_loop, cpus, spin_ns, long(rt.cfg.progress_handoff * 1e9));
        pthread_sigmask(SIG_SETMASK, &prev, nullptr);
    }
    if (rt.me == 0) {
        print_info();
        for (const std::string &w : unknown_env_warnings(environ)) notice("%s", w.c_str());
    }
    static bool exit_registered = false;
    if (!exit_registered) {
        // on_exit rather than atexit: the handler needs the exit status (exit_handler).
        on_exit(exit_handler, nullptr);
        pthread_atfork(nullptr, nullptr, on_fork_child);
        exit_registered = true;
    }
    // Nobody signals a barrier counter before every PE has zeroed its own: the page-size report's
    // reduction is init's last collective, so it is that barrier too (each collective of init
    // costs O(log n) rounds: issue #50).
    report_page_size();
    return rt.thread_level;
}

namespace {
// The word of the runtime area where a PE records that it has reached finalize (the dissemination
// barrier's counters take 8 bytes per round from the start of the area).
std::uint64_t *finalize_mark() {
    return reinterpret_cast<std::uint64_t *>(reinterpret_cast<char *>(rt.runtime_words) + runtime_area - 8);
}

// The PEs whose mark is not set, as " 3 5 7" (the describer: wait_missing.hpp), for the messages
// of a finalize that waits. Direct peers are read in place; the others with a get, given a second
// to answer (a peer whose transport needs it to progress may not answer: it is then listed as
// "(no answer)").
std::string pes_not_in_finalize(const char *routine) {
    const int n = rt.npes;
    std::vector<int> pes;
    for (int pe = 0; pe < n; ++pe)
        if (pe != rt.me) pes.push_back(pe);
    std::vector<std::uint64_t> words;
    std::vector<bool> got;
    read_runtime_words(routine, runtime_area / 8 - 1, pes, 1.0, words, got);
    missing_pes list(32);  // the first 32 name the problem well enough
    for (std::size_t i = 0; i < pes.size(); ++i)
        if (!got[i] || !words[i]) list.add(pes[i], got[i] ? nullptr : "no answer");
    return list.text(" none (they are leaving the barrier)");
}

// The finalize barrier's timeout and notice (the wait loop's spec, below).
void describe_finalize(const void *arg, char *buf, std::size_t len) {
    const char *routine = static_cast<const char *>(arg);
    std::snprintf(buf, len,
                  "the other PEs to reach shmem_finalize; PEs not there:%s (every PE must call shmem_finalize, "
                  "or return from main, to end the job)",
                  pes_not_in_finalize(routine).c_str());
}
void notice_finalize(const void *arg, double waited) {
    const char *routine = static_cast<const char *>(arg);
    notice("%s (PE %d of %d): waited %.0f s in finalize for PEs that have not reached "
           "shmem_finalize:%s; still waiting (USHMEM_WAIT_TIMEOUT=s ends the job instead; "
           "USHMEM_FINALIZE_NOTICE=s sets this notice's delay)",
           routine, rt.me, rt.npes, waited, pes_not_in_finalize(routine).c_str());
}

// Every PE must be in finalize before any of them leaves its barrier. Waiting for that is the one
// wait a program cannot see the reason of (a PE that never calls shmem_finalize, or exited early
// while the others still wait for it): an MPI non-blocking barrier that, after
// USHMEM_FINALIZE_NOTICE seconds, names the PEs not there yet, and with USHMEM_WAIT_TIMEOUT ends
// the job naming them. The world barrier that follows then completes at once. The wait loop
// progresses UCX meanwhile (peers' operations to this PE must still complete); nothing ushmem
// can wake from ends an MPI request: wait_kind::polled.
void await_everyone_in_finalize(const char *routine) {
    if (rt.npes == 1 || !bootstrap::usable()) return;
    __atomic_store_n(finalize_mark(), 1, __ATOMIC_RELEASE);
    bootstrap::ibarrier_begin();
    if (bootstrap::ibarrier_test()) return;
    wait_spec s{routine, "the other PEs to reach shmem_finalize", describe_finalize, routine};
    s.kind = wait_kind::polled;
    s.parks_at_exit = false;  // (the exit's finalize runs it on the exiting thread)
    s.stats_time = false;
    s.notice_after = rt.cfg.finalize_notice;
    s.notice = notice_finalize;
    s.notice_arg = routine;
    wait_loop(s, [](void *) { return bootstrap::ibarrier_test(); }, nullptr);
}
} // namespace

void finalize(const char *routine) {
    if (rt.state != lib_state::running) return;  // idempotent
    if (--rt.init_count > 0) return;             // one finalize per init
    stats::report(rt.me, rt.npes);  // before the final barrier, whose waits are not the program's
    // Everyone's operations to us are complete once everyone passed this barrier; our barrier
    // signals themselves must be delivered before the endpoints go away.
    const std::vector<context *> owners = lanes_owners();
    send_all_packs(routine);  // those of contexts the program did not destroy, too
    for (context *c : owners) quiet(routine, *c);  // contexts the program did not destroy
    await_everyone_in_finalize(routine);
    barrier_all(routine, true);
    // From here peers close their endpoints to us, which UCX may report as failures.
    transport::mute_peer_failures();
    quiet(routine, rt.default_ctx);
    for (context *c : owners) release_lanes(*c);
    coll_finalize();
    team_finalize();
    if (g_progress.joinable()) {
        g_progress_stop = true;
        transport::stop_serving();
        g_progress.join();
    }
    rt.state = lib_state::finalized;
    rpc_finalize();  // calls still queued are dropped: every PE is past its last barrier
    transport::stop_acks();  // every PE passed its last quiet: none waits for one
    // The entries written since init (peers.hpp, contacted); the others are still zero pages.
    std::vector<transport::ep_h> eps;
    for (int pe : rt.peers.contacted) {
        peer *&t = rt.peers.chunks[std::size_t(pe)];  // grown heap chunks' entries (their endpoints are the peers')
        if (t)
            for (std::size_t k = 0; k < rt.grown.chunk_of.size(); ++k)
                for (auto &r : t[k].rkey) transport::destroy_rkey(r);
        delete[] t;
        t = nullptr;
    }
    rt.peers.chunks.release();
    for (int pe : rt.peers.contacted) {
        peer &p = rt.peers[std::size_t(pe)];
        for (auto &k : p.rkey) transport::destroy_rkey(k);
        if (p.ep) eps.push_back(p.ep);
    }
    transport::close_endpoints(eps);
    rt.peers.entry.release();
    rt.peers.contacted.clear();
    rt.peers.contacted.shrink_to_fit();
    // Peers may still hold our endpoints' wireup state; wait for everyone before the memory and
    // the worker go.
    if (bootstrap::usable())
        bootstrap::barrier_with_progress([](void *) { transport::progress(); }, nullptr);
    if (g_leave_to_exit) return;  // (exit_handler: a thread that did not park may still use them)
    unmap_static();
    unmap_heap();
    transport::stop_context();
    // After the worker: its progress (the barrier above) may still count acknowledgements.
    rt.peers.acks_done.release();
    rt.peers.acks_sent.release();
    rt.runtime_words = nullptr;
    rt.default_ctx.reset(0, false);
    rt.peers.init_table.release();  // after the segments whose keys it holds
}

} // namespace ushmem::core
