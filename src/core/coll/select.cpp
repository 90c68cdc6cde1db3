// The one algorithm-selection table of the collectives (coll.hpp): for every family, rows tried in
// order, the first whose condition holds wins. The conditions read the group's size, the message
// size, whether it is an active set, whether every member is reached by load/store (same node),
// and the USHMEM_*_ALGO overrides (an override the group cannot run falls through to the
// automatic rows). docs/collectives.md, "Algorithms and selection", is this table in prose.
#include "core/coll/coll.hpp"
#include "core/log.hpp"

#include <atomic>
#include <initializer_list>
#include <string>
#include <utility>

namespace ushmem::core::coll {

// Whether a gather of `bytes` from every member fits the frame's gather region (a condition of the
// rows below, and of collect.cpp's offsets exchange).
bool gather_fits(const frame &f, std::size_t bytes) {
    return !f.legacy() && f.n <= ctr::max_from && f.n <= coll_flat_max() &&
           bytes * std::size_t(f.n) <= f.gbytes;
}

bool shape::direct() {
    if (direct_ < 0) direct_ = all_direct(f, a, b) ? 1 : 0;
    return direct_ != 0;
}

namespace {

// ---- the facts the rows test ------------------------------------------------------------------

bool small_group(shape &s) { return s.f.n <= coll_flat_max(); }
bool flat_sync_ok(shape &s) {  // the flat and central syncs need a counter per sender
    const frame &f = s.f;
    return (f.legacy() ? f.n <= ctr::bar_rounds : f.has_from());
}
bool fits_gather(shape &s) { return gather_fits(s.f, s.bytes); }
bool small_for_gather(shape &s) { return fits_gather(s) && s.bytes <= rt.cfg.reduce_gather_max; }
bool small_bcast(shape &s) { return s.bytes < rt.cfg.bcast_tree_min; }
// Large reductions: reduce-scatter and allgather (reduce.cpp) move about 2 x the message per PE
// where recursive doubling moves log2(n) x, at the cost of one more step; over tcp they broke even
// at 64 KiB with 2 PEs (36.6 against 37.7 us) and gained above (4 PEs, 1 MiB: 1.48 against
// 2.72 ms). Teams only: an active set has one pSync word per use, not per-sender counters.
bool rsag_ok(shape &s) { return !s.f.legacy() && s.f.has_from(); }
bool large_reduce(shape &s) { return rsag_ok(s) && s.bytes >= (std::size_t(64) << 10); }
// The central variants (gather to rank 0, answer from it): for contributions of `per` bytes that
// rank 0's gather region holds, one from every member, and that the gather would take.
bool central_fits(shape &s, std::size_t per) {
    return s.f.has_from() && gather_fits(s.f, per) && per <= rt.cfg.reduce_gather_max;
}
// Chosen by itself where the members' signals are network messages (each costs its sender and
// receiver system calls, on CPUs the PEs share): 4 PEs over tcp on 2 cores, 8 B reduce and fcollect
// plus a barrier in 12 messages instead of 18, 40-45 against 42-46 us. Not between direct members:
// there signals are stores, and the extra step costs a context switch (3.6-4.2 against 5.0-5.4 us).
// Nor in a team across nodes, whose node leaders send each node's blocks once: 8 B fcollect and
// alltoall, 2 simulated hosts x 2 PEs 15 and 14 us through the leaders against 27 and 28 central
// (MPI 19 and 26); 4 hosts x 8 PEs 160 and 290 against 601 and 631 (MPI 560 and 828). (Before
// the leaders' yield window and the strided puts of evenly spaced ranks, central was ahead.)
bool central_auto(shape &s) { return oversubscribed() && !seg_direct(s.f, s.f.cseg) && !node_aware(s.f); }
// Reductions take it between direct members too once the group is past the flat limit of nodes
// with enough CPUs: every member's gather then costs n - 1 wake-ups where the central one costs
// two. One node on 2 CPUs, 8 B: 64 PEs 109 against 289 us, 32 PEs 39 against 47.
bool central_reduce_auto(shape &s) { return central_auto(s) || (oversubscribed() && s.f.n > rt.cfg.coll_flat_max); }
// Reductions through the leaders with the members' sources read in place: a team across nodes
// whose gather region holds a chunk of at least 64 bytes (or one element) from every node.
bool node_read_ok(shape &s) {
    return !s.f.legacy() && node_aware(s.f) && node_read_chunk(s.f, s.elem) * s.elem >= std::min<std::size_t>(64, s.bytes);
}
// alltoall through the leaders with the rows read in place: the same room (chunks of bytes), of
// at least 64 bytes or a block.
bool a2a_read_ok(shape &s) {
    return s.reads_ok && !s.f.legacy() && node_aware(s.f) && node_read_chunk(s.f, 1) >= std::min<std::size_t>(64, s.bytes);
}
// alltoall through the node leaders (node.cpp): every member's whole source in its leader's
// gather region.
bool node_fits(shape &s) { return s.central_ok && node_aware(s.f) && central_fits(s, s.bytes * std::size_t(s.f.n)); }

bool is(algo have, algo want) { return have == want; }

struct row {
    family fam;
    bool (*when)(shape &);
    plan p;
};

// Overrides first, then the automatic choice. `auto_` rows apply whatever the override (an
// override that does not fit falls through to them).
constexpr row table[] = {
    // ---- barrier / sync: flat (n <= USHMEM_COLL_FLAT_MAX: every PE signals every other, one
    // round); central when the node has more PEs than CPUs (every wait costs a context switch
    // anyway: 2 (n - 1) signals instead of n (n - 1)); dissemination above. A team across nodes,
    // some shared: through one leader per node (node.cpp), which only the node map decides (the
    // same on every member, unlike a node's CPU count).
    {family::sync, [](shape &s) { return is(coll_cfg.barrier, algo::dissemination) || !flat_sync_ok(s); },
     plan::sync_dissemination},
    {family::sync, [](shape &) { return is(coll_cfg.barrier, algo::central); }, plan::sync_central},
    {family::sync, [](shape &) { return is(coll_cfg.barrier, algo::flat); }, plan::sync_flat},
    {family::sync, [](shape &s) { return node_aware(s.f); }, plan::sync_node},
    {family::sync, [](shape &s) { return !small_group(s); }, plan::sync_dissemination},
    {family::sync, [](shape &) { return oversubscribed(); }, plan::sync_central},
    {family::sync, [](shape &) { return true; }, plan::sync_flat},

    // ---- broadcast (then a sync, see broadcast.cpp): teams above max_from PEs have no
    // per-sender counters: fixed tree from rank 0. Small messages in small groups: flat push
    // folded into the flat sync, or into a central sync through the root when the sync would be
    // central (a flat push then the sync when it is dissemination). Larger,
    // same node: pull; otherwise, small groups: the members tell the root they entered, then the
    // binomial tree without a sync; larger groups: binomial then the sync. Small ones in a team
    // across nodes: through the node leaders.
    {family::bcast, [](shape &s) { return !s.f.has_from() || (is(coll_cfg.bcast, algo::tree) && !s.f.legacy()); },
     plan::bcast_fixed_tree},
    {family::bcast, [](shape &) { return is(coll_cfg.bcast, algo::binomial); }, plan::bcast_binomial},
    // Small messages on small teams: pushed into the members' mailbox rings, no sync (eager); up
    // to half the team's scratch too off the direct path, and on it where the node has more PEs
    // than CPUs (otherwise a pull there copies once, not twice: 2 PEs, 16 KiB, 0.45 against 1.1
    // us; but its sync costs each member a wake-up: 4 PEs on 2 cores, 1 KiB, 4.8 against 0.16 us
    // a call, 10.2 against 7.1 us per broadcast + barrier), but not in a team across nodes (its
    // node leaders send each node's data once).
    {family::bcast,
     [](shape &s) {
         return (is(coll_cfg.bcast, algo::eager) || is(coll_cfg.bcast, algo::automatic)) && !s.f.legacy() &&
                s.f.has_from() && small_group(s) &&
                (s.bytes <= ctr::mbox_payload ||
                 (s.bytes <= eager_mid_max(s.f) &&
                  (is(coll_cfg.bcast, algo::eager) || (!s.direct() && !node_aware(s.f)) ||
                   (s.direct() && oversubscribed()))));
     },
     plan::bcast_eager},
    {family::bcast, [](shape &s) { return is(coll_cfg.bcast, algo::automatic) && small_bcast(s) && node_aware(s.f); },
     plan::bcast_node},
    {family::bcast,
     [](shape &s) {
         return (is(coll_cfg.bcast, algo::flat) || (is(coll_cfg.bcast, algo::automatic) && small_group(s) && small_bcast(s))) &&
                select_sync(s.f) == plan::sync_flat;
     },
     plan::bcast_flat_sync},
    {family::bcast,
     [](shape &s) {
         return is(coll_cfg.bcast, algo::automatic) && small_group(s) && small_bcast(s) &&
                select_sync(s.f) == plan::sync_central;
     },
     plan::bcast_central_sync},
    {family::bcast,
     [](shape &s) { return is(coll_cfg.bcast, algo::flat) || (is(coll_cfg.bcast, algo::automatic) && small_group(s) && small_bcast(s)); },
     plan::bcast_flat},
    {family::bcast,
     [](shape &s) { return (is(coll_cfg.bcast, algo::pull) || is(coll_cfg.bcast, algo::automatic)) && small_group(s) && s.direct(); },
     plan::bcast_pull},
    // Large, off the direct path: a pipelined chain (teams: per-sender counters), when asked for.
    {family::bcast,
     [](shape &s) {
         const std::size_t min = rt.cfg.bcast_chain_min;
         return (is(coll_cfg.bcast, algo::chain) || (is(coll_cfg.bcast, algo::automatic) && min > 0 && s.bytes >= min)) &&
                !s.f.legacy() && s.f.n > 2;
     },
     plan::bcast_chain},
    // Larger, small groups (a counter per sender at the root): the members' entry signals to the
    // root, then the binomial tree, no sync (broadcast.cpp).
    {family::bcast,
     [](shape &s) {
         return (is(coll_cfg.bcast, algo::central) || is(coll_cfg.bcast, algo::automatic)) && small_group(s) &&
                flat_sync_ok(s);
     },
     plan::bcast_central_tree},
    {family::bcast, [](shape &) { return true; }, plan::bcast_binomial},

    // ---- collect, fcollect: ring on request (when every offset is known); flat puts + a signal
    // per sender up to USHMEM_COLL_FLAT_MAX; puts then a sync above.
    {family::collect, [](shape &s) { return is(coll_cfg.collect, algo::ring) && s.offsets_known; }, plan::collect_ring},
    {family::collect, [](shape &s) { return is(coll_cfg.collect, algo::node) && s.offsets_known && node_aware(s.f); },
     plan::collect_node},
    {family::collect,
     [](shape &s) {
         return s.central_ok && central_fits(s, s.bytes) &&
                (is(coll_cfg.collect, algo::central) || (is(coll_cfg.collect, algo::automatic) && central_auto(s)));
     },
     plan::collect_central},
    // A team across nodes, when every offset is known (fcollect; collect once the sizes are
    // exchanged): through the node leaders. After the central exchange, which small fcollects take
    // where hosts have more PEs than CPUs: 2 simulated hosts of 1 CPU and 2 PEs, 8 B: 82-89 us
    // central, 96-118 us through the leaders (each leader and member wakes twice on a CPU they
    // share). Not on a collect's size (it differs between members): the rows above it do not
    // read it for collect (central_ok is fcollect's).
    {family::collect,
     [](shape &s) { return s.offsets_known && is(coll_cfg.collect, algo::automatic) && node_aware(s.f); },
     plan::collect_node},
    {family::collect, [](shape &s) { return (is(coll_cfg.collect, algo::flat) || small_group(s)) && s.f.has_from(); },
     plan::collect_flat},
    {family::collect, [](shape &) { return true; }, plan::collect_barrier},

    // ---- alltoall(s): pairwise push with per-sender signals, or puts then a sync.
    {family::alltoall, [](shape &s) { return is(coll_cfg.collect, algo::node) && node_fits(s); }, plan::alltoall_node},
    {family::alltoall,
     [](shape &s) {
         return s.central_ok && central_fits(s, s.bytes * std::size_t(s.f.n)) &&
                (is(coll_cfg.collect, algo::central) || central_auto(s));
     },
     plan::alltoall_central},
    {family::alltoall, [](shape &s) { return is(coll_cfg.collect, algo::automatic) && node_fits(s); }, plan::alltoall_node},
    // Larger, across nodes: the leaders read their members' rows in place and exchange the node's
    // blocks in chunks (alltoall.cpp): 4 simulated hosts x 8 PEs, 4 KiB blocks 2.27 against 10.3 ms.
    {family::alltoall, [](shape &s) { return (is(coll_cfg.collect, algo::automatic) || is(coll_cfg.collect, algo::node)) && a2a_read_ok(s); },
     plan::alltoall_node_read},
    {family::alltoall, [](shape &s) { return small_group(s) && s.f.has_from(); }, plan::alltoall_flat},
    {family::alltoall, [](shape &) { return true; }, plan::alltoall_barrier},

    // ---- reductions: small contributions gather through team scratch; same node: reduce-scatter
    // by reads; otherwise chunked recursive doubling (active sets: through pWrk). Small ones in a
    // team across nodes: node partials through the leaders.
    {family::reduce, [](shape &s) { return is(coll_cfg.reduce, algo::gather) && fits_gather(s); }, plan::reduce_gather},
    {family::reduce, [](shape &) { return is(coll_cfg.reduce, algo::rd); }, plan::reduce_rd},
    {family::reduce, [](shape &s) { return is(coll_cfg.reduce, algo::rsag) && rsag_ok(s); },
     plan::reduce_rsag},
    {family::reduce, [](shape &s) { return is(coll_cfg.reduce, algo::scatter) && s.direct(); }, plan::reduce_scatter},
    {family::reduce, [](shape &s) { return is(coll_cfg.reduce, algo::node) && node_read_ok(s); }, plan::reduce_node_read},
    // Across nodes up to what the gather region holds, not only up to USHMEM_REDUCE_GATHER_MAX:
    // the alternative there is recursive doubling, whose log2(n) steps each cross the network,
    // where the leaders' exchange is one (4 simulated hosts x 8 PEs, 4 KiB: 0.60 against 2.8 ms).
    {family::reduce, [](shape &s) { return is(coll_cfg.reduce, algo::automatic) && fits_gather(s) && node_aware(s.f); },
     plan::reduce_node},
    // Larger, across nodes: the leaders read their members' sources in place and exchange node
    // partials chunk by chunk (node.cpp): 4 simulated hosts x 8 PEs, 64 KiB 1.08 ms, 1 MiB 9.3 ms,
    // against 4.8 and 18.0 by reduce-scatter + allgather over all 32 (MPI: 2.8 and 21.2).
    {family::reduce, [](shape &s) { return is(coll_cfg.reduce, algo::automatic) && node_read_ok(s); },
     plan::reduce_node_read},
    {family::reduce,
     [](shape &s) {
         return central_fits(s, s.bytes) &&
                (is(coll_cfg.reduce, algo::central) || (is(coll_cfg.reduce, algo::automatic) && central_reduce_auto(s)));
     },
     plan::reduce_central},
    {family::reduce, [](shape &s) { return is(coll_cfg.reduce, algo::automatic) && small_for_gather(s); },
     plan::reduce_gather},
    {family::reduce, [](shape &s) { return s.direct(); }, plan::reduce_scatter},
    {family::reduce, [](shape &s) { return large_reduce(s); }, plan::reduce_rsag},
    {family::reduce, [](shape &) { return true; }, plan::reduce_rd},

    // ---- scans: the same, with direct reads and Hillis-Steele.
    {family::scan, [](shape &s) { return is(coll_cfg.scan, algo::gather) && fits_gather(s); }, plan::scan_gather},
    {family::scan, [](shape &) { return is(coll_cfg.scan, algo::hs); }, plan::scan_hs},
    {family::scan, [](shape &s) { return is(coll_cfg.scan, algo::read) && s.direct(); }, plan::scan_read},
    {family::scan, [](shape &s) { return is(coll_cfg.scan, algo::automatic) && small_for_gather(s); }, plan::scan_gather},
    {family::scan, [](shape &s) { return s.direct(); }, plan::scan_read},
    {family::scan, [](shape &) { return true; }, plan::scan_hs},
};

} // namespace

plan select(shape &s) {
    for (const row &r : table)
        if (r.fam == s.fam && r.when(s)) return r.p;
    return plan::sync_dissemination;  // not reached: every family ends with an unconditional row
}

// A team's sync never changes (sizes, node map and settings are fixed): looked up once. Barriers
// take ~0.1 us on a node, and walking the rows is a visible part of that.
// An active set's depends on its size alone: kept per size (sizes up to 64; any thread may fill
// an entry, always with the same value).
namespace {
std::atomic<std::int8_t> by_size[65];  // 0: not yet, else plan + 1
} // namespace

plan select_sync(frame &f) {
    if (f.t && f.t->sync_plan >= 0) return plan(f.t->sync_plan);
    const bool cached = !f.t && f.n < 65;
    if (cached) {
        const std::int8_t c = by_size[f.n].load(std::memory_order_relaxed);
        if (c) return plan(c - 1);
    }
    shape s{family::sync, f};
    const plan p = select(s);
    if (f.t) f.t->sync_plan = std::int8_t(p);
    if (cached) by_size[f.n].store(std::int8_t(int(p) + 1), std::memory_order_relaxed);
    return p;
}

} // namespace ushmem::core::coll

namespace ushmem::core {

coll_settings coll_cfg;

namespace {
algo parse_algo(const char *routine, const char *var, const std::string &v,
                std::initializer_list<std::pair<const char *, algo>> choices) {
    std::string list;
    for (auto &c : choices) {
        if (v == c.first) return c.second;
        list += list.empty() ? "" : ", ";
        list += c.first;
    }
    fatal(routine, "malformed value %s='%s': expected one of %s", var, v.c_str(), list.c_str());
}
} // namespace

// The same answer on every PE (the start-up vote, core/startup_vote.hpp, owns it): it picks the sync
// pattern, and members that picked flat and central syncs would wait for each other forever.
// Nodes may differ (a job across hosts of different sizes): then any node with more PEs than CPUs
// decides.
bool oversubscribed() { return rt.agreed.oversubscribed; }

void coll_select_init(const char *routine) {
    coll_cfg.barrier = parse_algo(routine, "USHMEM_BARRIER_ALGO", rt.cfg.barrier_algo,
                                  {{"auto", algo::automatic}, {"flat", algo::flat}, {"central", algo::central},
                                   {"dissemination", algo::dissemination}});
    coll_cfg.bcast = parse_algo(routine, "USHMEM_BCAST_ALGO", rt.cfg.bcast_algo,
                                {{"auto", algo::automatic}, {"flat", algo::flat},
                                 {"binomial", algo::binomial}, {"tree", algo::tree},
                                 {"pull", algo::pull}, {"eager", algo::eager}, {"chain", algo::chain},
                                 {"central", algo::central}});
    coll_cfg.reduce = parse_algo(routine, "USHMEM_REDUCE_ALGO", rt.cfg.reduce_algo,
                                 {{"auto", algo::automatic}, {"gather", algo::gather},
                                  {"scatter", algo::scatter}, {"rd", algo::rd}, {"central", algo::central}, {"rsag", algo::rsag},
                                  {"node", algo::node}});
    coll_cfg.collect = parse_algo(routine, "USHMEM_COLLECT_ALGO", rt.cfg.collect_algo,
                                  {{"auto", algo::automatic}, {"flat", algo::flat}, {"ring", algo::ring},
                                   {"central", algo::central}, {"node", algo::node}});
    coll_cfg.scan = parse_algo(routine, "USHMEM_SCAN_ALGO", rt.cfg.scan_algo,
                               {{"auto", algo::automatic}, {"gather", algo::gather},
                                {"read", algo::read}, {"hs", algo::hs}});
    // The cached choices are forgotten: the settings and node facts may have changed.
    for (auto &c : coll::by_size) c.store(0, std::memory_order_relaxed);
}
} // namespace ushmem::core
