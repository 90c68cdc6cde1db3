// The entry points of team.hpp: every collective runs its algorithm (the other files of
// src/core/coll/) on a frame describing the team or the active set.
#include "core/coll/coll.hpp"
#include "core/clock.hpp"
#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/ordering.hpp"
#include "core/timed.hpp"

#include <utility>

namespace ushmem::core {

using namespace coll;

void coll_init(const char *routine) {
    coll_select_init(routine);
    coll::g_cctx.reset(rt.npes, rt.thread_level == thread_multiple || rt.progress_thread);
}

void coll_finalize() {
    quiet("shmem_finalize", coll::g_cctx);
    coll::g_cctx.reset(0, false);
}

// ---- team entry points ------------------------------------------------------------------------

// Every team collective runs on a frame describing the team; `body` is the algorithm.
// `args`: what this member passed, compared with the other members' under SHMEM_DEBUG.
template <class Body> void on_team(const char *routine, team &t, const coll_args &args, Body body) {
    frame f;
    init_team_frame(f, routine, t);
    // However the call ends (returns, gives up at a deadline), this PE is no longer inside it.
    struct leave {
        const frame &f;
        ~leave() { mark_exit(f); }
    } left{f};
    set_quiet_waits(f);
    // After eager broadcasts (coll.hpp): a sync ends once every member entered it, which settles
    // them; a broadcast decides itself (bcast_impl); anything else settles first.
    auto run = [&] {
        if (USHMEM_UNLIKELY(rt.cfg.debug)) check_team_args(f, args);
        if (args.kind != coll_kind::sync && args.kind != coll_kind::broadcast) {
            eager_settle(f);
            t.scratch_used = true;
        }
        body(f);
        // A sync ends once every member entered it, hence completed the broadcasts before it:
        // a root reuses their mailbox slots without reading the members' counts (bcast_eager).
        if (args.kind == coll_kind::sync) {
            t.scratch_used = false;
            t.eager_owed = false;
            t.eager_synced = t.eager_calls;
        }
    };
    if (USHMEM_LIKELY(t_deadline == 0)) return run();
    try {
        run();
    } catch (const deadline_passed &) {
        t_gave_up = true;
    }
}

void coll_deadline_begin(double seconds_from_now) {
    t_gave_up = false;
    // A deadline already due still lets the collective try: it gives up at its first long wait.
    t_deadline = now_seconds() + (seconds_from_now > 0 ? seconds_from_now : 1e-9);
}

bool coll_deadline_end() {
    t_deadline = 0;
    return std::exchange(t_gave_up, false);
}

void team_sync(const char *routine, team &t) {
    if (t.n == 1) return;
    on_team(routine, t, {coll_kind::sync}, [](frame &f) { group_sync(f); });
}

void world_sync(const char *routine) { team_sync(routine, team_world); }

void broadcast(const char *routine, team &t, void *dest, const void *src, std::size_t bytes, int root) {
    on_team(routine, t, {coll_kind::broadcast, bytes, 0, std::uint64_t(root)},
            [&](frame &f) { bcast_impl(f, dest, src, bytes, root, true); });
}

void fcollect(const char *routine, team &t, void *dest, const void *src, std::size_t bytes) {
    on_team(routine, t, {coll_kind::fcollect, bytes}, [&](frame &f) { fcollect_impl(f, dest, src, bytes); });
}

void collect(const char *routine, team &t, void *dest, const void *src, std::size_t bytes) {
    on_team(routine, t, {coll_kind::collect}, [&](frame &f) { collect_impl(f, dest, src, bytes); });
}

void alltoall(const char *routine, team &t, void *dest, const void *src, std::size_t bytes) {
    on_team(routine, t, {coll_kind::alltoall, bytes}, [&](frame &f) { alltoall_impl(f, dest, src, bytes); });
}

void alltoalls(const char *routine, team &t, void *dest, const void *src, std::ptrdiff_t dst,
               std::ptrdiff_t sst, std::size_t nelems, std::size_t elem) {
    on_team(routine, t, {coll_kind::alltoalls, nelems, elem, 0, std::uint64_t(dst), std::uint64_t(sst)},
            [&](frame &f) { alltoalls_impl(f, dest, src, dst, sst, nelems, elem); });
}

void reduce(const char *routine, team &t, void *dest, const void *src, std::size_t nelems, reduce_op op) {
    on_team(routine, t, {coll_kind::reduce, nelems, op.elem}, [&](frame &f) { reduce_impl(f, dest, src, nelems, op); });
}

// PEs whose memory calls differ (a free on one, an allocation on another) meet here alike: the
// heap check then names what each did. Compared as a reduce under its routine's name, SHMEM_DEBUG
// reported "different reduction routines" instead (issue #48).
void heap_check_reduce(const char *routine, void *dest, const void *src, std::size_t nelems, reduce_op op) {
    on_team(routine, team_world, {coll_kind::heap_check, nelems, op.elem},
            [&](frame &f) { reduce_impl(f, dest, src, nelems, op); });
}

void scan(const char *routine, team &t, void *dest, const void *src, std::size_t nelems, reduce_op op,
          bool inclusive) {
    on_team(routine, t, {inclusive ? coll_kind::inscan : coll_kind::exscan, nelems, op.elem},
            [&](frame &f) { scan_impl(f, dest, src, nelems, op, inclusive); });
}

// ---- active-set entry points ------------------------------------------------------------------

// Every active-set collective runs on a frame describing the set and its pSync, except one over
// every PE (what most legacy programs pass: OSU's benchmarks, SOS's tests), which runs as
// SHMEM_TEAM_WORLD's (USHMEM_ACTIVE_SET_WORLD_TEAM): its members call it in the same order as the
// world team's collectives, so the team's sequencing orders them alike, and it gets the team's
// scratch and algorithms. Through pSync and pWrk instead, a reduction goes in chunks of the
// minimal pWrk (max(nreduce / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements), an exchange
// each: OSU's float sum of 1 KiB over tcp took 60 us at 2 PEs and 590-650 at 4 (OSHMEM 11 and
// 55). The set and pSync are still checked (and, under SHMEM_DEBUG, the arguments as an active
// set's); pSync and pWrk are left untouched.
template <class Body>
void on_active_set(const char *routine, active_set as, long *psync, const coll_args &args, Body body) {
    frame f;
    as_seen seen;
    init_as_frame(f, routine, as, psync, seen);
    if (USHMEM_UNLIKELY(rt.cfg.debug)) check_as_args(f, args, as);
    if (as.start == 0 && as.log_stride == 0 && as.size == rt.npes && rt.cfg.as_world_team)
        return on_team(routine, team_world, args, body);
    body(f);
    finish_as(f);
    mark_exit(f);
}

void barrier_as(const char *routine, active_set as, long *psync, bool with_quiet) {
    if (with_quiet) quiet(routine, rt.default_ctx);
    on_active_set(routine, as, psync, {coll_kind::sync}, [](frame &f) { group_sync(f); });
}

void broadcast_as(const char *routine, active_set as, void *dest, const void *src, std::size_t bytes,
                  int root, long *psync) {
    on_active_set(routine, as, psync, {coll_kind::broadcast, bytes, 0, std::uint64_t(root)},
                  [&](frame &f) { bcast_impl(f, dest, src, bytes, root, false); });
}

void fcollect_as(const char *routine, active_set as, void *dest, const void *src, std::size_t bytes,
                 long *psync) {
    on_active_set(routine, as, psync, {coll_kind::fcollect, bytes}, [&](frame &f) { fcollect_impl(f, dest, src, bytes); });
}

void collect_as(const char *routine, active_set as, void *dest, const void *src, std::size_t bytes,
                long *psync) {
    on_active_set(routine, as, psync, {coll_kind::collect}, [&](frame &f) { collect_impl(f, dest, src, bytes); });
}

void alltoall_as(const char *routine, active_set as, void *dest, const void *src, std::size_t bytes,
                 long *psync) {
    on_active_set(routine, as, psync, {coll_kind::alltoall, bytes}, [&](frame &f) { alltoall_impl(f, dest, src, bytes); });
}

void alltoalls_as(const char *routine, active_set as, void *dest, const void *src, std::ptrdiff_t dst,
                  std::ptrdiff_t sst, std::size_t nelems, std::size_t elem, long *psync) {
    on_active_set(routine, as, psync,
                  {coll_kind::alltoalls, nelems, elem, 0, std::uint64_t(dst), std::uint64_t(sst)},
                  [&](frame &f) { alltoalls_impl(f, dest, src, dst, sst, nelems, elem); });
}

void reduce_as(const char *routine, active_set as, void *dest, const void *src, std::size_t nelems,
               reduce_op op, void *pwrk, std::size_t pwrk_bytes, long *psync) {
    on_active_set(routine, as, psync, {coll_kind::reduce, nelems, op.elem},
                  [&](frame &f) { reduce_impl(f, dest, src, nelems, op, pwrk, pwrk_bytes); });
}

} // namespace ushmem::core
