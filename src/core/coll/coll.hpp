// ushmem core: the collectives' shared machinery (internal to src/core/coll/).
//
// Everything is built from three operations: put + signal (a one-sided atomic add after the data),
// signal alone, and waiting for a number of signals on a counter of our own; plus, when every
// member of the group is reached through the direct mapping (same node), plain loads and stores
// into the members' buffers. See team.hpp for the signalling model and docs/collectives.md for the
// algorithms. One file per family:
//   frame.cpp      a call's frame (team or active set), waiting, signals and transfers
//   select.cpp     the one algorithm-selection table (every family, every override)
//   sync.cpp       barriers and syncs (flat, central, dissemination)
//   node.cpp       teams across nodes: sync, broadcast and reduction through one leader per node
//   broadcast.cpp  collect.cpp (collect, fcollect)  alltoall.cpp (alltoall, alltoalls)
//   reduce.cpp     scan.cpp     check.cpp (SHMEM_DEBUG argument checks)
//   entry.cpp      the entry points of team.hpp (team and active-set forms)
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/messages.hpp"
#include "core/peers.hpp"
#include "core/team.hpp"
#include "core/wait.hpp"
#include "transport/transport.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ushmem::core::coll {

// One collective call's view of its group and symmetric resources.
struct frame {
    const char *routine = nullptr;
    int n = 0, me = -1;
    team *t = nullptr;  // nullptr: an active set
    bool strided = true;
    int start = 0, stride = 1;
    const int *list = nullptr;
    char *cbase = nullptr;  // counters: local address, segment and offset in it
    seg_id cseg = seg_heap;
    std::size_t coff = 0;
    std::uint64_t *seen = nullptr;  // consumed signals: team: per counter id; active set: per word
    std::uint64_t *sent = nullptr;  // team: signals sent to each rank's from(me) (team::sent_from)
    char *gbuf = nullptr;           // gather region of one parity (teams)
    std::size_t gbytes = 0;
    char *cbuf = nullptr;           // chunk region (team scratch, or pWrk)
    std::size_t cbytes = 0;
    bool used_ucx_puts = false;
    bool quiet_waits = false;       // every member's counters are direct: no UCX progress needed to wait

    int pe(int r) const { return strided ? start + stride * r : list[r]; }
    bool legacy() const { return t == nullptr; }
    std::size_t cofs(int id) const {
        return legacy() ? std::size_t(ctr::psync_word(id)) * 8 : ctr::team_offset(id);
    }
    std::uint64_t &seen_of(int id) { return seen[legacy() ? std::size_t(ctr::psync_word(id)) : std::size_t(id)]; }
    std::uint64_t *c(int id) const { return reinterpret_cast<std::uint64_t *>(cbase + cofs(id)); }
    // Per-sender counters exist (teams up to max_from PEs; active sets: one shared word).
    bool has_from() const { return legacy() || n <= ctr::max_from; }
};

// Consumed counts of an active-set collective (they start from zero).
struct as_seen {
    std::uint64_t w[ctr::psync_counter_words] = {};
};

void init_team_frame(frame &f, const char *routine, team &t);
void init_as_frame(frame &f, const char *routine, active_set as, long *psync, as_seen &seen);
void finish_as(frame &f);
// This PE has left the collective of `f` (returned, or gave up at a deadline): its entry word says
// so, so that a member waiting for it does not describe it as inside another collective.
void mark_exit(const frame &f);

// The first half of a team's scratch (64-byte aligned): the gather region (two parities), the rest
// the chunk region; the two halves of an eager broadcast's data (broadcast.cpp).
inline std::size_t scratch_half(const team &t) { return t.scratch_bytes / 2 / 64 * 64; }
// ---- waiting ----------------------------------------------------------------------------------

// A timed collective's deadline (coll_deadline_begin; 0: none). Passing it unwinds the
// collective's algorithm to on_team, which records it; the frame holds nothing to release.
extern thread_local double t_deadline;
extern thread_local bool t_gave_up;
using deadline_passed = wait_deadline_passed;  // what the wait loop throws at t_deadline

// Waits until cond() holds, as the waiting policy says (core/wait_policy.hpp): spin, then sleep
// until the signaller wakes us (or yield, on request). Signals between direct members are plain
// stores and atomics: polling needs no UCX progress (still made now and then, for whatever else
// the program has in flight). Where every progress call is a system call and PEs share CPUs
// (g_wait.no_spin) a wait does not spin first: the PE it awaits may be behind, waiting for this
// very CPU. Except with `sender_ahead`: the awaited PE never waits for this one (an eager
// broadcast's root), its message is on its way, and a yield would cost a context switch for
// nothing (4 PEs over tcp on 2 cores: broadcast 15.6 us yielding at once, 13.2 us spinning first).
// The first polls are inline; then cwait_slow, the wait loop (core/wait.hpp) with the members that
// keep the collective waiting as its timeout's description and t_deadline as its deadline.
void cwait_slow(const frame &f, unsigned progress_mask, bool sender_ahead, bool (*cond)(void *), void *arg);
template <class Cond> void cwait(const frame &f, Cond cond, bool sender_ahead = false) {
    const unsigned every = f.quiet_waits ? 63 : 3;
    const unsigned spin = wait_spins_first(sender_ahead) ? 64 : 1;
    for (unsigned i = 0; i < spin; ++i) {
        if (cond()) return;
        if ((i & every) == every) transport::progress();
    }
    cwait_slow(f, every, sender_ahead, [](void *a) { return (*static_cast<Cond *>(a))(); }, &cond);
}

// k more signals on counter `id`, consumed (sender_ahead: see cwait)
void wait_ctr(frame &f, int id, std::uint64_t k, bool sender_ahead = false);
std::uint64_t take_value(frame &f, int id);        // mailbox: waits until it moves, returns by how much

// Eager broadcasts (broadcast.cpp) end without knowing that every member entered them. Before a
// collective that may write into a member's buffers at its start, wait until every member has
// completed the eager broadcasts so far (a read of each member's ctr::mbox_done: a load, or one
// round of gets), which restores what the next call relies on (docs/collectives.md, "Back-to-back
// calls"). Costs nothing after anything else.
void eager_wait_done(frame &f, std::uint64_t need);
// The largest eager broadcast of a team whose data goes through its scratch (bcast_eager): half the
// scratch (the halves alternate), and one signal message's data at most.
inline std::size_t eager_mid_max(const frame &f) {
    return f.legacy() ? 0 : std::min(signal_message_max, scratch_half(*f.t));
}
inline void eager_settle(frame &f) {
    if (USHMEM_UNLIKELY(f.t && f.t->eager_owed)) {
        eager_wait_done(f, f.t->eager_calls);
        f.t->eager_owed = false;
    }
}

// ---- signals and transfers (frame.cpp) --------------------------------------------------------

extern context g_cctx;  // the collectives' own transfers: their completion is observed through signals
void ucx_add(const char *routine, peer &p, int pe, seg_id s, std::size_t off, std::uint64_t v);
void signal_after(frame &f, int r, int id, bool data_ucx, bool data_direct);
inline void signal(frame &f, int r, int id) { signal_after(f, r, id, false, false); }
bool put_to(frame &f, int r, void *dst, const void *src, std::size_t n);
void put_signal(frame &f, int r, void *dst, const void *src, std::size_t n, int id);
void complete_puts(frame &f);
void put_strided_signal(frame &f, int r, char *dst, std::size_t dstride, const char *src,
                        std::size_t sstride, std::size_t elem, std::size_t count, int id);
char *dptr(frame &f, int r, const void *sym);
bool seg_direct(frame &f, seg_id s);
void set_quiet_waits(frame &f);
bool all_direct(frame &f, const void *a, const void *b);

inline void copy_local(void *d, const void *s, std::size_t n) {
    if (n && d != s) std::memmove(d, s, n);
}

// ---- the algorithm-selection table (select.cpp) -------------------------------------------------

enum class family : std::uint8_t { sync, bcast, collect, alltoall, reduce, scan };
enum class plan : std::uint8_t {
    sync_flat, sync_central, sync_dissemination, sync_node,
    bcast_eager, bcast_flat_sync, bcast_central_sync, bcast_flat, bcast_binomial, bcast_fixed_tree, bcast_pull, bcast_node, bcast_chain, bcast_central_tree,
    collect_flat, collect_ring, collect_barrier, collect_central, collect_node,
    alltoall_flat, alltoall_barrier, alltoall_central, alltoall_node, alltoall_node_read,
    reduce_gather, reduce_scatter, reduce_rd, reduce_node, reduce_node_read, reduce_central, reduce_rsag,
    scan_gather, scan_read, scan_hs,
};
// What the table decides on. `a`, `b`: the symmetric buffers that must be direct on every member
// for the load/store algorithms (looked up only when a row asks). `offsets_known`: collect knows
// every member's offset (a ring needs them).
struct shape {
    family fam;
    frame &f;
    std::size_t bytes = 0;
    const void *a = nullptr, *b = nullptr;
    bool offsets_known = true;
    bool central_ok = false;   // the call has a central variant (fcollect, alltoall(s); not collect)
    std::size_t elem = 1;      // a reduction's element size
    bool reads_ok = false;     // alltoall: the members' sources are symmetric and contiguous (not alltoalls)
    signed char direct_ = -1;  // direct(), once known
    bool direct();             // every member's a, b and counters by load/store
};
plan select(shape &s);
plan select_sync(frame &f);  // the sync a group would use (select on family::sync)

// ---- shared building blocks (sync.cpp) ----------------------------------------------------------

void group_sync(frame &f);                      // every member has entered (the selected sync)
inline void entry_sync(frame &f) { group_sync(f); }
int flat_id(const frame &f, int s);             // the flat sync's counter for signals from rank s
void await_flat(frame &f, int except);          // one flat_id signal from every member but `except`
void flat_exchange_wait(frame &f);              // one from(s) signal from every other member
// This call's half of the team's gather region: the two halves alternate, call by call, on every
// member alike, so a member that enters the next gather exchange while another still reads this
// one writes the other half (docs/collectives.md, "Back-to-back calls").
inline char *gather_region(frame &f) { return f.gbuf + std::size_t(f.t->gather_epoch++ & 1) * f.gbytes; }
// The half that the last gather_region() call returned.
inline char *last_gather_region(frame &f) { return f.gbuf + std::size_t((f.t->gather_epoch - 1) & 1) * f.gbytes; }
char *gather(frame &f, const void *mine, std::size_t bytes, bool upward = false);
bool gather_fits(const frame &f, std::size_t bytes);  // (select.cpp)

// The largest group that flat patterns serve: USHMEM_COLL_FLAT_MAX, or where some node has more PEs
// than CPUs (the start-up vote's oversubscribed, which oversubscribed() returns; read here directly,
// since frame.cpp and node.cpp must not call select.cpp) its _OVERSUBSCRIBED when larger. There every wait costs a context switch, so the patterns of two steps stay ahead of
// trees and dissemination to larger groups: one node, 64 PEs on 2 CPUs, bench/run_coll, limit 16
// against 64: barrier 270 / 93 us, 8 B broadcast 520 / 4.4, 8 B reduce 1378 / 346. Both settings
// are alike on every PE and the vote is the job's, so every member picks the same rows.
inline long coll_flat_max() {
    return rt.agreed.oversubscribed ? std::max(rt.cfg.coll_flat_max, rt.cfg.coll_flat_max_oversub)
                                    : rt.cfg.coll_flat_max;
}
// The central exchange (nodes with more PEs than CPUs): every member puts `bytes` of `mine` into
// rank 0's gather region, at r * bytes (its from(r) signal); returns the region on rank 0, once
// every contribution is in, null elsewhere. Rank 0 then answers each member with one put_signal
// on from(0) (central_reply), which the member awaits (central_wait). 2 (n - 1) messages, as in
// the central sync, against n (n - 1) for the flat exchange.
char *gather_to_root(frame &f, const void *mine, std::size_t bytes);
inline void central_reply(frame &f, int r, void *dst, const void *src, std::size_t bytes) {
    put_signal(f, r, dst, src, bytes, ctr::from(0));
}
void central_wait(frame &f);

// ---- chunked exchanges (reduce.cpp, scan.cpp) --------------------------------------------------

inline int pow2_floor(int n) {  // the largest power of two <= n (n >= 1)
    int p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}
inline int log2_of(int n) {  // rounds of a doubling pattern over n: the smallest r with 2^r >= n
    int r = 0;
    while ((1 << r) < n) ++r;
    return r;
}

// Where the chunks of recursive doubling and reduce-scatter (hs false) and of Hillis-Steele (hs
// true) live: separate halves of a team's chunk scratch. A member that has finished a reduction
// may start a scan (or the reverse) and send its first chunks, which need no credit, while a
// slower member still combines the reduction's last chunk from another sender: in a shared area
// the scan's chunk overwrote it (4 PEs, back-to-back reductions and scans: a sum missing one PE's
// contribution). Within one algorithm a region has one sender, whose credits and drain keep it
// behind the receiver. Active sets have no scans: the reduction takes all of pWrk.
inline std::size_t chunk_split(const frame &f) { return f.legacy() ? f.cbytes : f.cbytes / 2 / 64 * 64; }
inline char *chunk_base(const frame &f, bool hs) { return hs ? f.cbuf + chunk_split(f) : f.cbuf; }
inline std::size_t chunk_area(const frame &f, bool hs) { return hs ? f.cbytes - chunk_split(f) : chunk_split(f); }

// Chunk regions for recursive doubling and Hillis-Steele: region k has two buffers (chunk parity)
// and a data and a credit counter; a sender has at most two chunks in flight per region.
struct regions {
    frame &f;
    bool hs;
    int nreg;
    std::size_t chunk_bytes;
    int sends[ctr::max_regions] = {};

    regions(frame &fr, bool h, int k, std::size_t cb) : f(fr), hs(h), nreg(k), chunk_bytes(cb) {}
    int data_id(int k) const { return hs ? ctr::hs_data(k) : ctr::rd_data(k); }
    int ack_id(int k) const { return hs ? ctr::hs_ack(k) : ctr::rd_ack(k); }
    char *buf(int k, int parity) const {
        return chunk_base(f, hs) + (std::size_t(k) * 2 + std::size_t(parity)) * chunk_bytes;
    }
    void send(int k, int to, const void *data, std::size_t bytes, int parity) {
        if (sends[k] >= 2) wait_ctr(f, ack_id(k), 1);
        put_signal(f, to, buf(k, parity), data, bytes, data_id(k));
        ++sends[k];
    }
    const char *recv(int k, int parity) {
        wait_ctr(f, data_id(k), 1);
        return buf(k, parity);
    }
    void release(int k, int to) { signal(f, to, ack_id(k)); }
    void drain() {
        for (int k = 0; k < nreg; ++k) wait_ctr(f, ack_id(k), std::uint64_t(std::min(sends[k], 2)));
    }
};

// Elements per chunk when the algorithm's chunk area holds 2 * nreg chunks (fails clearly when not
// one fits).
std::size_t chunk_elems(frame &f, bool hs, int nreg, std::size_t elem);

// ---- the families ---------------------------------------------------------------------------------

void bcast_impl(frame &f, void *dest, const void *src, std::size_t bytes, int root, bool team_sem);
void fcollect_impl(frame &f, void *dest, const void *src, std::size_t bytes);
void collect_impl(frame &f, void *dest, const void *src, std::size_t bytes);
void alltoall_impl(frame &f, void *dest, const void *src, std::size_t bytes);
void alltoalls_impl(frame &f, void *dest, const void *src, std::ptrdiff_t dst, std::ptrdiff_t sst,
                    std::size_t nelems, std::size_t elem);
// pwrk (active sets): the user's pWrk, taken as chunk scratch when recursive doubling is selected.
void reduce_impl(frame &f, void *dest, const void *src, std::size_t nelems, reduce_op op,
                 void *pwrk = nullptr, std::size_t pwrk_bytes = 0);
void scan_impl(frame &f, void *dest, const void *src, std::size_t nelems, reduce_op op, bool inclusive);

// ---- teams across nodes (node.cpp): a leader per node on the network ---------------------------

bool node_aware(frame &f);  // a team whose members span nodes, some sharing one (learns t.nodes)
// The node-aware algorithms' view of a call (node.cpp and alltoall.cpp; after node_aware):
// One call's view: node k's ranks, the leader of every node.
struct nodes_view {
    const team &t;
    int mine;  // this member's node
    int count() const { return t.nodes; }
    const int *begin(int k) const { return t.node_ranks.data() + t.node_first[std::size_t(k)]; }
    const int *end(int k) const { return t.node_ranks.data() + t.node_first[std::size_t(k) + 1]; }
    int first(int k) const { return *begin(k); }
};

inline nodes_view view(frame &f) { return nodes_view{*f.t, f.t->node_index[std::size_t(f.me)]}; }

// The leader of node k: `root` on the root's node (a broadcast), else the node's lowest rank.
inline int leader_of(const nodes_view &v, int k, int root) {
    if (root >= 0 && v.t.node_index[std::size_t(root)] == k) return root;
    return v.first(k);
}
void sync_node(frame &f);
void bcast_node(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool team_sem);
void reduce_node(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op);
// Node partials from the members' sources read in place, exchanged by the leaders in chunks of
// node_read_chunk elements (0: not one fits; the selection does not take it then); with elem 1,
// the chunk in bytes that alltoall_node_read uses too.
void reduce_node_read(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op);
std::size_t node_read_chunk(const frame &f, std::size_t elem);
// An all-to-all's destination on every member: n blocks of `nelems` elements of `elem` bytes,
// `stride` bytes apart (alltoall: one element of the block's size per block). The central and
// node variants assemble each member's column (`count` = n * nelems elements, packed) in one
// place: a contiguous one goes straight to the member's dest; a strided one over the network
// would cost a message per element, so it goes packed to the member's own gather region (the
// same half as the sender's: the member does not use it in this call), and the member unpacks it.
struct a2a_dest {
    char *d;
    std::size_t elem, stride, count;
    bool contiguous() const { return stride == elem; }
    void unpack(const char *col) const;
};
// The column `col` (packed) to member `to`, with signal `id`; `region`: this call's gather region.
void a2a_deliver(frame &f, int to, const a2a_dest &d, const char *col, char *region, int id);
// Waits for the column from rank `from`, then unpacks it from `region` when strided.
void a2a_receive(frame &f, int from, const a2a_dest &d, const char *region);
void alltoall_node(frame &f, const a2a_dest &d, const char *src, std::size_t bytes);  // (alltoall.cpp)
void alltoall_node_read(frame &f, char *dest, const char *src, std::size_t bytes);  // (alltoall.cpp)
// off/len: every rank's block (collect); nullptr: rank r's at r * bytes (fcollect).
void collect_node(frame &f, char *dest, const char *src, std::size_t bytes, const std::size_t *off = nullptr,
                  const std::size_t *len = nullptr);

// ---- SHMEM_DEBUG argument checks (check.cpp) --------------------------------------------------

// Which collective, what it calls its count, and what the members must agree on (comma-separated;
// the message joins the last two with "and").
#define USHMEM_COLL_KINDS(X)                                                                      \
    X(sync, "barrier or sync", "", "")                                                            \
    X(broadcast, "broadcast", "nelems * element size (bytes)", "nelems, PE_root")                 \
    X(fcollect, "fcollect", "nelems * element size (bytes)", "nelems")                            \
    X(collect, "collect", "", "")                                                                 \
    X(alltoall, "alltoall", "nelems * element size (bytes)", "nelems")                            \
    X(alltoalls, "alltoalls", "nelems", "dst, sst, nelems")                                       \
    X(reduce, "reduction", "nreduce", "nreduce, type, operation")                                 \
    X(inscan, "inclusive scan", "nelems", "nelems, type")                                         \
    X(exscan, "exclusive scan", "nelems", "nelems, type")                                         \
    X(heap_check, "symmetric heap check", "", "")

enum class coll_kind : std::uint64_t {
    none,
#define X(k, name, count, remedy) k,
    USHMEM_COLL_KINDS(X)
#undef X
};

struct kind_info {
    const char *name, *count, *remedy;
};
const kind_info &info_of(std::uint64_t k);

// What a member passed. `count` is 0 where the members may differ (collect's nelems).
struct coll_args {
    coll_kind kind = coll_kind::none;
    std::uint64_t count = 0, elem = 0, root = 0, dst = 0, sst = 0;
};

void check_team_args(frame &f, const coll_args &a);
void check_as_args(frame &f, const coll_args &a, active_set as);

} // namespace ushmem::core::coll
