// Runtime lifecycle: init, finalize, peer resolution, barrier and waiting.
#include "core/runtime.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/info.hpp"
#include "core/segments.hpp"
#include "core/stats.hpp"
#include "core/team.hpp"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace ushmem::core {

runtime rt;

namespace {
constexpr int thread_multiple = 3;  // same value as SHMEM_THREAD_MULTIPLE; core keeps its own name
constexpr std::size_t runtime_area = 4096;  // symmetric bytes the runtime keeps for itself

// ---- progress thread -----------------------------------------------------------------------
// Only started when a selected transport emulates RMA in software (the target must run UCX
// progress for a put to land). It backs off while idle so that it leaves the core to the PEs.
std::thread g_progress;
std::atomic<bool> g_progress_stop{false};

void progress_loop(std::string cpus) {
    bind_current_thread(cpus);
    unsigned idle = 0;
    unsigned seen = transport::progress_heartbeat.load(std::memory_order_relaxed);
    while (!g_progress_stop.load(std::memory_order_relaxed)) {
        const unsigned beat = transport::progress_heartbeat.load(std::memory_order_relaxed);
        if (beat != seen) {
            // The PE is progressing the worker itself (it waits for something): let it, rather
            // than contend for the worker's lock; look again shortly.
            seen = beat;
            idle = 0;
            struct timespec ts{0, 200 * 1000};
            nanosleep(&ts, nullptr);
            continue;
        }
        if (transport::progress_background()) {
            idle = 0;
            continue;
        }
        if (++idle < 64) continue;
        // 5 us, doubling to 200 us: a remote put waits at most that long for a busy target.
        unsigned us = idle < 128 ? 5u : (idle < 256 ? 50u : 200u);
        struct timespec ts{0, long(us) * 1000};
        nanosleep(&ts, nullptr);
    }
}

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
    // Every PE must decide alike: the thread mode of the worker depends on it.
    return bootstrap::max_u64(need ? 1 : 0) != 0;
}

// UCX reports that the endpoint to `pe` failed (UCP_ERR_HANDLING_MODE_PEER): the peer died or its
// node went away. Every later operation to it would fail one by one, and a wait for it would never
// end; say who is gone and end the job now (the launcher may take longer to notice, or never, if
// the peer's node is down).
void on_peer_failure(int pe, ucs_status_t status) {
    fatal("peer failure detection", "PE %d is unreachable (%s): it has probably died; ending the job "
          "(USHMEM_PEER_FAILURE=0 disables this detection)", pe, ucs_status_string(status));
}

// Where UCX's lanes to `pe` are network ones anyway: a peer on another node, or a node without
// shared-memory RMA (UCX_TLS=tcp). On the node, asking for detection would trade sysv/posix for
// tcp; there a death is the launcher's to notice (its daemon sees the process exit at once).
bool detect_failure(int pe) {
    return rt.cfg.peer_failure && (rt.node_of[std::size_t(pe)] != rt.node_of[std::size_t(rt.me)] ||
                                   !transport::lanes().has_shared_memory_rma);
}

void atexit_handler() {
    // A program that returns from main without shmem_finalize is finalized here, so that peers
    // waiting in our final barrier are released and nothing is left mapped.
    if (rt.state == lib_state::running) {
        rt.init_count = 1;
        finalize("exit (shmem_finalize was not called)");
    }
    bootstrap::finalize();
}

void print_info() {
    if (rt.cfg.version) std::printf("ushmem 0.1.0 (OpenSHMEM 1.6)\n");
    if (!rt.cfg.info) return;
    std::printf("ushmem settings (SHMEM_INFO):\n");
    for (const env_var &v : env_table())
        std::printf("  %-24s = %-10s %s\n", v.name, env_value_text(v).c_str(), v.description);
    const segment &h = rt.seg[seg_heap];
    std::printf("  heap: %s at %#" PRIxPTR " on %s pages (%s address on every PE)\n",
                format_bytes(h.size).c_str(), h.base, format_bytes(h.page_size).c_str(),
                h.same_address ? "same" : "per-PE translated");
    const segment &s = rt.seg[seg_static];
    std::printf("  static data: %s at %#" PRIxPTR " (%s)\n", format_bytes(s.size).c_str(), s.base,
                s.mem.allocated ? "UCX shared memory" : "registered in place");
    std::printf("  UCX resources: %s\n", transport::lanes().resources.c_str());
    std::printf("  progress thread: %s\n", rt.progress_thread ? "running" : "not needed");
    std::fflush(stdout);
}

void report_page_size() {
    // Say once, from PE 0, how many PEs did not get huge pages for their heap.
    const segment &h = rt.seg[seg_heap];
    std::uint64_t small = (h.page_size && h.page_size < (2u << 20)) ? h.page_size : 0;
    std::vector<std::uint64_t> all(std::size_t(rt.npes));
    bootstrap::allgather(&small, sizeof small, all.data());
    std::uint64_t count = 0, page = 0;
    for (auto v : all)
        if (v) ++count, page = v;
    if (count && rt.me == 0 && rt.cfg.hugepage_notice)
        notice("symmetric heap on %s pages, not 2 MiB huge pages, on %" PRIu64 " of %d PEs; reserve "
               "huge pages (echo N > /proc/sys/vm/nr_hugepages, N = 2 MiB pages for all PEs' "
               "SHMEM_SYMMETRIC_SIZE plus 3 per PE), or USHMEM_HUGEPAGE_NOTICE=0 to silence",
               format_bytes(std::size_t(page)).c_str(), count, rt.npes);
}

double now_seconds() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
} // namespace

[[noreturn]] void fail_not_running(const char *routine) {
    if (rt.state == lib_state::finalized)
        fatal(routine, "called after shmem_finalize; the library is finalized (call shmem_init "
                       "again to re-initialize it)");
    fatal(routine, "called before shmem_init; initialize the library first with shmem_init or "
                   "shmem_init_thread");
}

[[noreturn]] void fail_bad_pe(const char *routine, int pe) {
    fatal(routine, "PE %d is out of range; valid PEs are 0 to %d (shmem_n_pes() - 1)", pe, rt.npes - 1);
}

[[noreturn]] void fail_not_symmetric(const char *routine, const char *what, const void *addr,
                                     std::size_t len, int pe) {
    const segment &h = rt.seg[seg_heap], &s = rt.seg[seg_static];
    fatal(routine,
          "%s %p (%zu bytes, target PE %d) is not symmetric: it is outside the symmetric heap "
          "[%#" PRIxPTR ", %#" PRIxPTR ") and the static data [%#" PRIxPTR ", %#" PRIxPTR "); pass "
          "memory from shmem_malloc or a global/static variable%s",
          what, addr, len, pe, h.base, h.base + h.size, s.base, s.base + s.size,
          (h.base && reinterpret_cast<std::uintptr_t>(addr) >= h.base &&
           reinterpret_cast<std::uintptr_t>(addr) < h.base + h.size)
              ? " (the range runs past the end of the heap)"
              : "");
}

void resolve(const char *routine, int pe, seg_id s) {
    // Threads of a SHMEM_THREAD_MULTIPLE program (each driving its own context) may resolve the same
    // peer at once: one does it, the others find it done. The route is published last.
    static std::mutex resolve_lock;
    std::lock_guard<std::mutex> guard(resolve_lock);
    peer &p = rt.peers[std::size_t(pe)];
    if (__atomic_load_n(&p.how[s], __ATOMIC_ACQUIRE) != route::unresolved) return;
    segment &sg = rt.seg[s];
    if (!sg.mem.memh) fatal(routine, "the static data segment is not available on this PE");
    p.rbase[s] = sg.same_address ? sg.base : sg.bases[std::size_t(pe)];
    bool same_node = rt.node_of[std::size_t(pe)] == rt.node_of[std::size_t(rt.me)];
    if (rt.cfg.direct && pe == rt.me && sg.mem.allocated) {
        // Our own memory: its address is the direct pointer (rkey_ptr would map it twice).
        p.direct[s] = reinterpret_cast<char *>(sg.base);
        __atomic_store_n(&p.how[s], route::direct, __ATOMIC_RELEASE);
        return;
    }
    std::string err;
    if (!p.ep) {
        p.ep = transport::connect(rt.worker_addrs.data() + rt.worker_addr_offsets[std::size_t(pe)], pe, detect_failure(pe), err);
        if (!p.ep) fatal(routine, "cannot reach PE %d: %s", pe, err.c_str());
    }
    if (!p.rkey[s]) {
        p.rkey[s] = transport::unpack_rkey(p.ep, sg.rkeys.data() + sg.rkey_offsets[std::size_t(pe)], err);
        if (!p.rkey[s]) fatal(routine, "cannot use the memory key of PE %d: %s", pe, err.c_str());
    }
    if (rt.cfg.direct && same_node && sg.mem.allocated) {
        if (void *ptr = transport::rkey_ptr(p.rkey[s], p.rbase[s])) {
            p.direct[s] = static_cast<char *>(ptr);
            __atomic_store_n(&p.how[s], route::direct, __ATOMIC_RELEASE);
            return;
        }
    }
    __atomic_store_n(&p.how[s], route::ucx, __ATOMIC_RELEASE);
}

namespace {
// Contexts holding their own lanes, released at finalize if the program did not destroy them.
std::mutex g_lanes_lock;
std::vector<context *> g_lanes_owners;
} // namespace

peer &own_ucx_peer(const char *routine, context &c, int pe, seg_id s) {
    std::string err;
    if (!c.lanes) {
        auto *l = new context_lanes;
        l->worker = transport::create_extra_worker(false, err);
        if (!l->worker) {
            delete l;
            fatal(routine, "cannot create the context's UCX worker: %s (set USHMEM_CTX_WORKERS=0 to "
                           "share the main worker)", err.c_str());
        }
        l->peers.resize(std::size_t(rt.npes));
        c.lanes = l;
        std::lock_guard<std::mutex> g(g_lanes_lock);
        g_lanes_owners.push_back(&c);
    }
    peer &q = c.lanes->peers[std::size_t(pe)];
    if (USHMEM_LIKELY(q.rkey[s] != nullptr)) return q;
    if (!q.ep) {
        q.ep = transport::connect(c.lanes->worker, rt.worker_addrs.data() + rt.worker_addr_offsets[std::size_t(pe)], pe,
                                  detect_failure(pe), err);
        if (!q.ep) fatal(routine, "cannot reach PE %d from the context's worker: %s", pe, err.c_str());
    }
    segment &sg = rt.seg[s];
    q.rkey[s] = transport::unpack_rkey(q.ep, sg.rkeys.data() + sg.rkey_offsets[std::size_t(pe)], err);
    if (!q.rkey[s]) fatal(routine, "cannot use the memory key of PE %d: %s", pe, err.c_str());
    q.rbase[s] = rt.peers[std::size_t(pe)].rbase[s];
    q.how[s] = route::ucx;
    return q;
}

void release_lanes(context &c) {
    if (!c.lanes) return;
    {
        std::lock_guard<std::mutex> g(g_lanes_lock);
        for (std::size_t i = 0; i < g_lanes_owners.size(); ++i)
            if (g_lanes_owners[i] == &c) {
                g_lanes_owners[i] = g_lanes_owners.back();
                g_lanes_owners.pop_back();
                break;
            }
    }
    std::vector<ucp_ep_h> eps;
    for (peer &q : c.lanes->peers) {
        for (auto &k : q.rkey) transport::destroy_rkey(k);
        if (q.ep) eps.push_back(q.ep);
    }
    transport::close_endpoints(eps, c.lanes->worker);
    transport::destroy_extra_worker(c.lanes->worker);
    delete c.lanes;
    c.lanes = nullptr;
}

void *direct_pointer(const void *addr, int pe) {
    seg_id s;
    std::size_t off;
    if (!locate(addr, 1, s, off)) return nullptr;
    if (pe == rt.me) return const_cast<void *>(addr);  // our own memory, whatever the route
    peer &p = target("shmem_ptr", pe, s);
    return p.how[s] == route::direct ? p.direct[s] + off : nullptr;
}

namespace {
// Polls of a blocked wait before it starts yielding the core: none when the node has more PEs
// than hardware threads (the PE we wait for may need this very core), else a short spin.
unsigned long g_spin_before_yield = 256;
} // namespace

void wait_slow(const char *routine, const char *what, bool (*cond)(void *), void *arg) {
    // Oversubscribed nodes (more PEs than cores) are the norm in tests: after a short spin give
    // the core away, or the PE we wait for may not run at all.
    const double timeout = rt.cfg.wait_timeout;
    const double start = timeout > 0 ? now_seconds() : 0;
    const double stats_start = USHMEM_UNLIKELY(stats::enabled) ? stats::now() : 0;
    for (unsigned long i = 0;; ++i) {
        if (cond(arg)) {
            if (USHMEM_UNLIKELY(stats_start != 0)) stats::add_time(stats::t_wait, stats::now() - stats_start);
            return;
        }
        transport::progress();
        if (i > g_spin_before_yield) sched_yield();
        if (timeout > 0 && (i & 1023) == 0 && now_seconds() - start > timeout) {
            // (append, not "lit" + string: GCC 12 at -O3 warns falsely about restrict there)
            std::string pending;
            for (int pe : rt.default_ctx.pending_list) pending.append(" ").append(std::to_string(pe));
            fatal(routine, "timed out after %.1f s (USHMEM_WAIT_TIMEOUT) waiting for %s; PEs with "
                           "outstanding operations from this PE:%s",
                  now_seconds() - start, what, pending.empty() ? " none" : pending.c_str());
        }
    }
}

// Atomic add of 1 to a 64-bit counter in the runtime area of `pe`: the barrier's signal.
static void signal_add(const char *routine, int pe, std::uint64_t *local_counter) {
    std::size_t off = reinterpret_cast<std::uintptr_t>(local_counter) - rt.seg[seg_heap].base;
    peer &p = target(routine, pe, seg_heap);
    if (p.how[seg_heap] == route::direct) {
        __atomic_fetch_add(reinterpret_cast<std::uint64_t *>(p.direct[seg_heap] + off), 1, __ATOMIC_RELEASE);
        return;
    }
    ucp_request_param_t prm{};
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_CALLBACK;
    prm.datatype = ucp_dt_make_contig(8);
    prm.cb.send = transport::nbi_completion;
    std::uint64_t one = 1;
    void *r = ucp_atomic_op_nbx(p.ep, UCP_ATOMIC_OP_ADD, &one, 1, p.rbase[seg_heap] + off, p.rkey[seg_heap], &prm);
    if (UCS_PTR_IS_ERR(r)) fatal(routine, "atomic add to PE %d failed: %s", pe, ucs_status_string(UCS_PTR_STATUS(r)));
    rt.default_ctx.note_pending(pe);
}

void barrier_all(const char *routine, bool with_quiet) {
    if (with_quiet) quiet(routine, rt.default_ctx);
    if (rt.npes == 1) return;
    if (team_world.slot >= 0) return world_sync(routine);  // the world team's barrier (core/coll.cpp)
    // Dissemination barrier over one-sided atomic adds: in round r, signal PE me+2^r and wait
    // for the signal of PE me-2^r. Counters only grow, so nothing is reset between barriers.
    const std::uint64_t epoch = ++rt.barrier_epoch;
    int round = 0;
    for (int dist = 1; dist < rt.npes; dist <<= 1, ++round) {
        int to = (rt.me + dist) % rt.npes;
        std::uint64_t *mine = rt.barrier_flags + round;
        signal_add(routine, to, mine);
        wait_for(routine, "the barrier (a PE has not reached it)", [mine, epoch] {
            return __atomic_load_n(mine, __ATOMIC_ACQUIRE) >= epoch;
        });
    }
}

int init(const char *routine, const void *comm, int requested) {
    if (rt.state == lib_state::running) {
        ++rt.init_count;
        return rt.thread_level;
    }
    bootstrap::job job;
    std::string err;
    if (!bootstrap::init(comm, job, err)) {
        std::fprintf(stderr, "ushmem: %s (PE ? of ?): %s\n", routine, err.c_str());
        std::exit(1);
    }
    rt.me = job.rank;
    rt.npes = job.size;
    rt.node_of = job.node_of;
    {
        const unsigned hw = std::thread::hardware_concurrency();
        g_spin_before_yield = (hw && unsigned(job.local_size) > hw) ? 0 : 256;
    }
    if (!load_settings(rt.cfg, err)) fatal(routine, "%s", err.c_str());
    if (rt.cfg.quiet_ep_max < 1) rt.cfg.quiet_ep_max = 1;
    stats::start(rt.npes, rt.cfg.stats);
    if (!transport::init(err)) fatal(routine, "cannot initialize UCX: %s", err.c_str());
    transport::set_peer_failure_handler(rt.cfg.peer_failure ? on_peer_failure : nullptr);
    rt.progress_thread = needs_progress_thread();
    rt.thread_level = requested < 0 ? 0 : (requested > thread_multiple ? thread_multiple : requested);
    bool mt = rt.thread_level == thread_multiple;
    if (!transport::create_worker(mt || rt.progress_thread, err))
        fatal(routine, "cannot create the UCX worker: %s", err.c_str());

    std::vector<std::uint8_t> addr = transport::worker_address();
    bootstrap::allgatherv(addr.data(), addr.size(), rt.worker_addrs, rt.worker_addr_offsets);
    map_heap(routine);
    map_static(routine);
    restrict_shm_permissions();  // UCX creates them 0660 (docs/security.md)
    rt.peers.assign(std::size_t(rt.npes), peer{});
    rt.default_ctx.reset(rt.npes, mt);

    // The runtime's own symmetric area comes first, at the same offset on every PE.
    rt.heap.reset(rt.seg[seg_heap].size);
    std::size_t area = *rt.heap.allocate(runtime_area);
    rt.barrier_flags = reinterpret_cast<std::uint64_t *>(rt.seg[seg_heap].base + area);
    std::memset(rt.barrier_flags, 0, runtime_area);
    rt.barrier_epoch = 0;
    team_init(routine);  // the team slots follow, at the same offset on every PE

    report_page_size();
    rt.state = lib_state::running;
    rt.init_count = 1;
    if (rt.progress_thread) {
        std::string cpus = progress_thread_cpus(job.local_rank, job.local_size);
        progress_thread_binding = cpus;
        g_progress_stop = false;
        g_progress = std::thread(progress_loop, cpus);
    }
    if (rt.me == 0) {
        print_info();
        for (const std::string &w : unknown_env_warnings(environ)) notice("%s", w.c_str());
    }
    static bool atexit_registered = false;
    if (!atexit_registered) {
        std::atexit(atexit_handler);
        atexit_registered = true;
    }
    // Nobody signals a barrier counter before every PE has zeroed its own.
    bootstrap::barrier_with_progress(nullptr, nullptr);
    return rt.thread_level;
}

void finalize(const char *routine) {
    if (rt.state != lib_state::running) return;  // idempotent
    if (--rt.init_count > 0) return;             // one finalize per init
    stats::report(rt.me, rt.npes);  // before the final barrier, whose waits are not the program's
    // Everyone's operations to us are complete once everyone passed this barrier; our barrier
    // signals themselves must be delivered before the endpoints go away.
    std::vector<context *> owners;
    {
        std::lock_guard<std::mutex> g(g_lanes_lock);
        owners = g_lanes_owners;
    }
    for (context *c : owners) quiet(routine, *c);  // contexts the program did not destroy
    barrier_all(routine, true);
    // From here peers close their endpoints to us, which UCX may report as failures.
    transport::mute_peer_failures();
    quiet(routine, rt.default_ctx);
    for (context *c : owners) release_lanes(*c);
    team_finalize();
    if (g_progress.joinable()) {
        g_progress_stop = true;
        g_progress.join();
    }
    rt.state = lib_state::finalized;
    std::vector<ucp_ep_h> eps;
    for (peer &p : rt.peers) {
        for (auto &k : p.rkey) transport::destroy_rkey(k);
        eps.push_back(p.ep);
    }
    transport::close_endpoints(eps);
    rt.peers.clear();
    // Peers may still hold our endpoints' wireup state; wait for everyone before the memory and
    // the worker go.
    if (bootstrap::usable())
        bootstrap::barrier_with_progress([](void *) { transport::progress(); }, nullptr);
    unmap_static();
    unmap_heap();
    transport::finalize();
    rt.barrier_flags = nullptr;
    rt.default_ctx.reset(0, false);
    rt.worker_addrs.clear();
    rt.worker_addr_offsets.clear();
}

} // namespace ushmem::core
