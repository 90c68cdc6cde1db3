// The one-sided collectives, over teams (team slots) and active sets (pSync). Everything is built
// from three operations: put + signal (a one-sided atomic add after the data), signal alone, and
// waiting for a number of signals on a counter of our own; plus, when every member of the group
// is reached through the direct mapping (same node), plain loads and stores into the members'
// buffers. See team.hpp for the signalling model and docs/collectives.md for the algorithms.
#include "core/team.hpp"
#include "core/wait.hpp"
#include "core/timed.hpp"

#include "core/log.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <utility>
#include <vector>

namespace ushmem::core {
namespace {

context g_cctx;  // the collectives' own transfers: their completion is observed through signals


double now_seconds() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

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

void init_team_frame(frame &f, const char *routine, team &t) {
    f.routine = routine;
    f.n = t.n;
    f.me = t.me;
    f.t = &t;
    f.strided = t.strided;
    f.start = t.start;
    f.stride = t.stride;
    f.list = t.members.data();
    f.cbase = t.ctr;
    f.cseg = seg_heap;
    f.coff = std::size_t(reinterpret_cast<std::uintptr_t>(t.ctr) - rt.seg[seg_heap].base);
    f.seen = slot_seen(t.slot);
    f.sent = t.sent_from.data();
    std::size_t half = team_scratch_bytes() / 2 / 64 * 64;
    f.gbuf = t.scratch;
    f.gbytes = half / 2 / 64 * 64;  // two parities
    f.cbuf = t.scratch + half;
    f.cbytes = team_scratch_bytes() - half;
}

// Consumed counts of an active-set collective (they start from zero).
struct as_seen {
    std::uint64_t w[ctr::psync_counter_words] = {};
};

void init_as_frame(frame &f, const char *routine, active_set as, long *psync, as_seen &seen) {
    f.routine = routine;
    if (as.size < 1 || as.log_stride < 0 || as.log_stride > 30 || as.start < 0 ||
        (long long)as.start + ((long long)(as.size - 1) << as.log_stride) >= rt.npes)
        fatal(routine, "invalid active set (PE_start %d, logPE_stride %d, PE_size %d) for %d PEs: "
                       "PE_size must be positive, logPE_stride >= 0, and PE_start + (PE_size - 1) * "
                       "2^logPE_stride a valid PE number",
              as.start, as.log_stride, as.size, rt.npes);
    f.n = as.size;
    f.strided = true;
    f.start = as.start;
    f.stride = 1 << as.log_stride;
    long d = long(rt.me) - as.start;
    if (d < 0 || d % f.stride || d / f.stride >= as.size)
        fatal(routine, "PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size %d); only "
                       "the PEs of the active set may call an active-set collective",
              rt.me, as.start, as.log_stride, as.size);
    f.me = int(d / f.stride);
    if (!psync) fatal(routine, "pSync is a null pointer; pass a symmetric array of SHMEM_*_SYNC_SIZE longs");
    locate_or_fail(routine, "pSync", psync, ctr::psync_words * 8, rt.me, f.cseg, f.coff);
    if (reinterpret_cast<std::uintptr_t>(psync) & 7)
        fatal(routine, "pSync %p is not aligned to 8 bytes", static_cast<void *>(psync));
    f.cbase = reinterpret_cast<char *>(psync);
    f.seen = seen.w;
}

// Gives back what an active-set collective consumed from its pSync, restoring SHMEM_SYNC_VALUE
// (signals of a next barrier that may already have arrived stay counted).
void finish_as(frame &f) {
    for (std::size_t w = 0; w < ctr::psync_counter_words; ++w)
        if (f.seen[w]) __atomic_fetch_sub(reinterpret_cast<std::uint64_t *>(f.cbase) + w, f.seen[w], __ATOMIC_ACQ_REL);
}

// ---- waiting ----------------------------------------------------------------------------------

[[noreturn]] void fail_timeout(const frame &f, double waited) {
    fatal(f.routine,
          "timed out after %.1f s (USHMEM_WAIT_TIMEOUT) waiting for a signal from another PE of the "
          "%s (%d PEs); has every member called the same collectives in the same order?",
          waited, f.legacy() ? "active set" : "team", f.n);
}

// A timed collective's deadline (coll_deadline_begin; 0: none). Passing it unwinds the
// collective's algorithm to on_team, which records it; the frame holds nothing to release.
thread_local double t_deadline = 0;
thread_local bool t_gave_up = false;
struct deadline_passed {};

// Waits until cond() holds, as the waiting policy says (core/wait.hpp): spin, then sleep until the
// signaller wakes us (or yield, on request). Signals between direct members are plain stores and
// atomics: polling needs no UCX progress (still made now and then, for whatever else the program
// has in flight).
template <class Cond> void cwait(const frame &f, Cond cond) {
    const unsigned every = f.quiet_waits ? 63 : 3;
    for (unsigned i = 0; i < 64; ++i) {
        if (cond()) return;
        if ((i & every) == every) transport::progress();
    }
    const double timeout = rt.cfg.wait_timeout;
    wait_state w(wait_kind::signalled, every);
    for (unsigned long i = 1;; ++i) {
        if (cond()) return;
        w.idle([](void *a) { return (*static_cast<Cond *>(a))(); }, &cond);
        if (w.slow() || (i & 255) == 0) {
            if (timeout > 0 && w.waited_seconds() > timeout) fail_timeout(f, w.waited_seconds());
            if (t_deadline > 0 && now_seconds() > t_deadline) throw deadline_passed{};
        }
    }
}

// Waits for k more signals on counter `id` and consumes them.
void wait_ctr(frame &f, int id, std::uint64_t k) {
    if (k == 0) return;
    std::uint64_t &seen = f.seen_of(id);
    const std::uint64_t want = seen + k;
    const std::uint64_t *p = f.c(id);
    if (__atomic_load_n(p, __ATOMIC_ACQUIRE) < want)
        cwait(f, [p, want] { return __atomic_load_n(p, __ATOMIC_ACQUIRE) >= want; });
    seen = want;
}

// Mailbox: waits until counter `id` moves, consumes and returns the amount it moved by.
std::uint64_t take_value(frame &f, int id) {
    std::uint64_t &seen = f.seen_of(id);
    const std::uint64_t old = seen;
    const std::uint64_t *p = f.c(id);
    cwait(f, [p, old] { return __atomic_load_n(p, __ATOMIC_ACQUIRE) != old; });
    std::uint64_t v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    seen = v;
    return v - old;
}

// ---- signals and transfers --------------------------------------------------------------------

void ucx_add(const char *routine, peer &p, int pe, seg_id s, std::size_t off, std::uint64_t v) {
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_CALLBACK;
    prm.datatype = ucp_dt_make_contig(8);
    prm.cb.send = transport::nbi_completion;
    void *r = transport::atomic_nbx(transport::worker(), p.ep, UCP_ATOMIC_OP_ADD, &v, p.rbase[s] + off, p.rkey[s], &prm);
    if (UCS_PTR_IS_ERR(r))
        fatal(routine, "signal to PE %d failed: %s", pe, ucs_status_string(UCS_PTR_STATUS(r)));
    g_cctx.note_pending(pe);
}

// Signal counter `id` of rank r, after whatever was sent to it before: `data_ucx` says whether
// data went through UCX since (then it must be delivered first), `data_direct` whether it was
// stored directly.
void signal_after(frame &f, int r, int id, bool data_ucx, bool data_direct) {
    const int pe = f.pe(r);
    peer &p = target(f.routine, pe, f.cseg);
    const std::size_t off = f.coff + f.cofs(id);
    // A team's from(me) counter on rank r has one writer, us: its value is the number we sent.
    const bool own = f.sent && id == ctr::from(f.me);
    if (p.how[f.cseg] == route::direct) {
        if (data_ucx) pe_quiet(f.routine, g_cctx, pe);
        else if (data_direct) store_fence();
        auto *w = reinterpret_cast<std::uint64_t *>(p.direct[f.cseg] + off);
        // A plain store, not xchg: a locked operation on the line the target spins on waits for
        // its transfer (+0.15 us per barrier here), a store leaves through the store buffer. The
        // sleepers word may then be read before the store is visible; a target that goes to sleep
        // meanwhile re-checks its condition for a while after announcing itself (wait.cpp), which
        // outlasts any store buffer's drain.
        if (own) __atomic_store_n(w, ++f.sent[r], __ATOMIC_RELEASE);
        else __atomic_fetch_add(w, 1, __ATOMIC_RELEASE);
        wake_peer(p);
        return;
    }
    if (own) ++f.sent[r];  // the adds keep the counter equal to the count as well
    if (data_ucx) transport::fence();
    else if (data_direct) store_fence();
    ucx_add(f.routine, p, pe, f.cseg, off, 1);
}

void signal(frame &f, int r, int id) { signal_after(f, r, id, false, false); }

// Copies n bytes to the symmetric address `dst` on rank r; true if it went through UCX.
bool put_to(frame &f, int r, void *dst, const void *src, std::size_t n) {
    if (n == 0) return false;
    const int pe = f.pe(r);
    seg_id ds;
    std::size_t doff;
    locate_or_fail(f.routine, "destination", dst, n, pe, ds, doff);
    peer &p = target(f.routine, pe, ds);
    if (p.how[ds] == route::direct) {
        std::memcpy(p.direct[ds] + doff, src, n);
        return false;
    }
    put_ucx(f.routine, g_cctx, p, pe, ds, doff, src, n, false);
    f.used_ucx_puts = true;
    return true;
}

void put_signal(frame &f, int r, void *dst, const void *src, std::size_t n, int id) {
    bool ucx = put_to(f, r, dst, src, n);
    signal_after(f, r, id, ucx, n && !ucx);
}

// After puts without signals: make them visible before what follows (a barrier's signals).
void complete_puts(frame &f) {
    store_fence();
    if (f.used_ucx_puts) quiet(f.routine, g_cctx);
    f.used_ucx_puts = false;
}

// Strided copy of `count` elements of `elem` bytes to the symmetric `dst` on rank r (element i at
// dst + i * dstride, from src + i * sstride), then signal counter `id` there (id < 0: no signal).
void put_strided_signal(frame &f, int r, char *dst, std::size_t dstride, const char *src,
                        std::size_t sstride, std::size_t elem, std::size_t count, int id) {
    bool ucx = false, dir = false;
    if (count) {
        const int pe = f.pe(r);
        seg_id ds;
        std::size_t doff;
        locate_or_fail(f.routine, "destination", dst, (count - 1) * dstride + elem, pe, ds, doff);
        peer &p = target(f.routine, pe, ds);
        if (p.how[ds] == route::direct) {
            char *d = p.direct[ds] + doff;
            for (std::size_t i = 0; i < count; ++i) std::memcpy(d + i * dstride, src + i * sstride, elem);
            dir = true;
        } else if (dstride == elem) {
            std::vector<char> pack(count * elem);
            for (std::size_t i = 0; i < count; ++i) std::memcpy(pack.data() + i * elem, src + i * sstride, elem);
            put_ucx(f.routine, g_cctx, p, pe, ds, doff, pack.data(), pack.size(), false);
            ucx = true;
        } else {
            for (std::size_t i = 0; i < count; ++i)
                put_ucx(f.routine, g_cctx, p, pe, ds, doff + i * dstride, src + i * sstride, elem, true);
            pe_quiet(f.routine, g_cctx, pe);  // the sources of the nbi puts must stay valid until then
            ucx = true;
        }
        if (ucx) f.used_ucx_puts = true;
    }
    if (id >= 0) signal_after(f, r, id, ucx, dir);
}

// Local address of the symmetric `sym` on rank r; only for groups that are all direct.
char *dptr(frame &f, int r, const void *sym) {
    seg_id s = seg_heap;
    std::size_t off = 0;
    locate(sym, 1, s, off);
    peer &p = target(f.routine, f.pe(r), s);
    return p.direct[s] + off;
}

bool seg_direct(frame &f, seg_id s) {
    if (f.t && f.t->direct[s] >= 0) return f.t->direct[s] != 0;
    bool d = true;
    for (int r = 0; r < f.n && d; ++r) d = target(f.routine, f.pe(r), s).how[s] == route::direct;
    if (f.t) f.t->direct[s] = d ? 1 : 0;
    return d;
}

// Small teams talk to every member anyway: find out once whether they are all direct.
void set_quiet_waits(frame &f) {
    if (f.t && (f.t->direct[seg_heap] >= 0 || f.n <= rt.cfg.coll_flat_max))
        f.quiet_waits = seg_direct(f, seg_heap);
}

// Every member's `a` and `b` (symmetric) and counters reachable by loads and stores from here.
bool all_direct(frame &f, const void *a, const void *b) {
    seg_id sa, sb;
    std::size_t o;
    if (!locate(a, 1, sa, o) || !locate(b, 1, sb, o)) return false;
    return seg_direct(f, f.cseg) && seg_direct(f, sa) && seg_direct(f, sb);
}

inline void copy_local(void *d, const void *s, std::size_t n) {
    if (n && d != s) std::memmove(d, s, n);
}

// ---- synchronisation ------------------------------------------------------------------------

void dissemination(frame &f) {
    for (int r = 0, d = 1; d < f.n; d <<= 1, ++r) {
        signal(f, (f.me + d) % f.n, ctr::bar(r));
        wait_ctr(f, ctr::bar(r), 1);
    }
}

// Every other member's from(me) counter, then one signal from each.
void flat_exchange_wait(frame &f) {
    for (int s = 0; s < f.n; ++s)
        if (s != f.me) wait_ctr(f, ctr::from(s), 1);
}

// Synchronisation of the whole group. Small groups: every member signals every other one on a
// counter of its own (one round instead of log2(n)); on an oversubscribed node, gather and release
// through rank 0; larger groups: dissemination. The per-sender counters
// of a team are its from(s); an active set uses its barrier words (single-sender, so the same pSync
// may serve consecutive barriers).
enum class sync_pattern { flat, central, dissemination };

sync_pattern pick_sync(const frame &f) {
    const algo a = coll_cfg.barrier;
    const bool small = (f.legacy() ? f.n <= ctr::bar_rounds : f.has_from()) &&
                       (f.n <= rt.cfg.coll_flat_max || a == algo::flat || a == algo::central);
    if (!small || a == algo::dissemination) return sync_pattern::dissemination;
    // More PEs than CPUs: every wait costs a context switch anyway, so take the pattern with the
    // fewest signals (below).
    if (a == algo::central || (a == algo::automatic && oversubscribed())) return sync_pattern::central;
    return sync_pattern::flat;
}

// The flat pattern's counter for signals from rank s: a team's from(s), an active set's bar(s).
int flat_id(const frame &f, int s) { return f.legacy() ? ctr::bar(s) : ctr::from(s); }

void group_sync(frame &f) {
    const sync_pattern p = pick_sync(f);
    if (p == sync_pattern::dissemination) return dissemination(f);
    auto id = [&f](int s) { return flat_id(f, s); };
    if (p == sync_pattern::central) {
        // Gather to rank 0, which releases the others (2 (n - 1) signals instead of n (n - 1)).
        // Rank 0 leaves first, which also lets whatever it does next (e.g. the root of a
        // broadcast) start while the others are still being scheduled.
        if (f.me == 0) {
            for (int s = 1; s < f.n; ++s) wait_ctr(f, id(s), 1);
            for (int k = 1; k < f.n; ++k) signal(f, k, id(0));
        } else {
            signal(f, 0, id(f.me));
            wait_ctr(f, id(0), 1);
        }
        return;
    }
    const int mine = id(f.me);
    for (int k = 1; k < f.n; ++k) signal(f, (f.me + k) % f.n, mine);
    for (int s = 0; s < f.n; ++s)
        if (s != f.me) wait_ctr(f, id(s), 1);
}

// Entry: every member has called the collective (its source is ready, its dest may be written).
void entry_sync(frame &f) { group_sync(f); }

// Every member's `bytes` bytes of `mine` into this member's gather region (teams, n <= max_from),
// rank r's at r * bytes; returns the region. `upward`: only higher ranks need the data (the others
// get the signal alone, which keeps the exchange all-to-all: see the parity argument in
// docs/collectives.md).
char *gather(frame &f, const void *mine, std::size_t bytes, bool upward = false) {
    char *buf = f.gbuf + std::size_t(f.t->gather_epoch++ & 1) * f.gbytes;
    std::memcpy(buf + std::size_t(f.me) * bytes, mine, bytes);
    for (int k = 1; k < f.n; ++k) {
        int j = (f.me + k) % f.n;
        put_signal(f, j, buf + std::size_t(f.me) * bytes, mine, (upward && j < f.me) ? 0 : bytes,
                   ctr::from(f.me));
    }
    flat_exchange_wait(f);
    return buf;
}

bool gather_fits(const frame &f, std::size_t bytes) {
    return !f.legacy() && f.n <= ctr::max_from && f.n <= rt.cfg.coll_flat_max &&
           bytes * std::size_t(f.n) <= f.gbytes;
}

// ---- broadcast --------------------------------------------------------------------------------

int high_bit(int v) { return v ? 1 << (31 - __builtin_clz(unsigned(v))) : 0; }

// Root-relative binomial (or flat) tree over per-sender counters. `team_sem`: dest is updated on
// the root too.
void bcast_push(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool flat,
                bool team_sem) {
    const int n = f.n, v = (f.me - root + n) % n;
    if (v == 0) {
        if (team_sem) copy_local(dest, src, bytes);
    } else {
        int pv = flat ? 0 : v - high_bit(v);
        wait_ctr(f, ctr::from((root + pv) % n), 1);
    }
    const char *from = v == 0 ? src : dest;
    if (flat) {
        if (v == 0)
            for (int c = 1; c < n; ++c) put_signal(f, (root + c) % n, dest, from, bytes, ctr::from(f.me));
        return;
    }
    int top = 1;
    while (top < n) top <<= 1;
    int lo = v ? 2 * high_bit(v) : 1;
    for (int d = top; d >= lo; d >>= 1)  // largest subtree first
        if (v + d < n && d >= lo) put_signal(f, (root + d + v) % n, dest, from, bytes, ctr::from(f.me));
}

// Teams larger than max_from: a fixed binomial tree rooted at rank 0 (single-sender counters), the
// root first relaying its data to rank 0.
void bcast_fixed_tree(frame &f, char *dest, const char *src, std::size_t bytes, int root) {
    const int n = f.n, v = f.me;
    if (v == root && root != 0) put_signal(f, 0, dest, src, bytes, ctr::relay);
    const char *from = dest;
    if (v == 0) {
        if (root == 0) {
            from = src;
            copy_local(dest, src, bytes);
        } else {
            wait_ctr(f, ctr::relay, 1);
        }
    } else {
        wait_ctr(f, ctr::tree, 1);
    }
    int top = 1;
    while (top < n) top <<= 1;
    int lo = v ? 2 * high_bit(v) : 1;
    for (int d = top; d >= lo; d >>= 1)
        if (v + d < n) put_signal(f, v + d, dest, from, bytes, ctr::tree);
}

// Same node: the root says its source is ready, everyone copies it. The sync that follows
// (bcast_impl) keeps the root's source in place until every member has copied it.
void bcast_pull(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool team_sem) {
    if (f.me == root) {
        for (int k = 1; k < f.n; ++k) signal(f, (root + k) % f.n, ctr::from(root));
        if (team_sem) copy_local(dest, src, bytes);
    } else {
        wait_ctr(f, ctr::from(root), 1);
        std::memcpy(dest, dptr(f, root, src), bytes);
    }
}

// Flat push and the flat sync in one: the root's sync signal to each member follows its data (the
// flat sync's counter of the root), every other member signals every member as in the sync. One
// sync's cost, whatever the route: a receiver has its data when the root's signal is in.
void bcast_flat_sync(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool team_sem) {
    if (f.me == root) {
        for (int k = 1; k < f.n; ++k) put_signal(f, (root + k) % f.n, dest, src, bytes, flat_id(f, root));
        if (team_sem) copy_local(dest, src, bytes);
    } else {
        const int mine = flat_id(f, f.me);
        for (int k = 1; k < f.n; ++k) signal(f, (f.me + k) % f.n, mine);
    }
    for (int s = 0; s < f.n; ++s)
        if (s != f.me) wait_ctr(f, flat_id(f, s), 1);
}

// Broadcast: the algorithm, then a sync of the group.
//
// Every collective must end only once every member has entered it (the others reach that through
// their all-to-all exchanges; see docs/collectives.md, "Back-to-back calls"). A broadcast would
// not: a root waits for nobody, and a receiver hears only from its parent. Then a member two calls
// ahead writes the dest (and, for active sets, the pSync words) of a member that is still checking
// and resetting this call's data: the idiom of back-to-back calls alternating two pSync and dest
// buffers with no barrier in between (Mellanox's verifier; issue #12, mpi_tests/coll_backtoback),
// which every other implementation runs (OSHMEM's broadcast ends with a barrier). With the sync,
// whoever starts call i + 2 knows that every member has entered call i + 1, hence is done with
// call i. Small messages in small groups fold the data into the sync (bcast_flat_sync): one
// sync's cost in all.
void bcast_impl(frame &f, void *dest, const void *src, std::size_t bytes, int root, bool team_sem) {
    if (root < 0 || root >= f.n)
        fatal(f.routine, "PE_root %d is not a PE of the %s (0 to %d)", root,
              f.legacy() ? "active set" : "team", f.n - 1);
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    if (f.n == 1 || bytes == 0) {
        if (team_sem) copy_local(d, s, bytes);
        return;
    }
    const algo a = coll_cfg.bcast;
    const bool small_team = f.n <= rt.cfg.coll_flat_max;
    const bool small_msg = bytes < rt.cfg.bcast_tree_min;
    if (!f.has_from() || (a == algo::tree && !f.legacy())) {
        bcast_fixed_tree(f, d, s, bytes, root);
    } else if (a == algo::binomial) {
        bcast_push(f, d, s, bytes, root, false, team_sem);
    } else if (a == algo::flat || (a == algo::automatic && small_team && small_msg)) {
        if (pick_sync(f) == sync_pattern::flat) return bcast_flat_sync(f, d, s, bytes, root, team_sem);
        bcast_push(f, d, s, bytes, root, true, team_sem);
    } else if (small_team && all_direct(f, dest, src) && (a == algo::pull || a == algo::automatic)) {
        bcast_pull(f, d, s, bytes, root, team_sem);
    } else {
        bcast_push(f, d, s, bytes, root, false, team_sem);
    }
    group_sync(f);
}

// ---- collect, fcollect ------------------------------------------------------------------------

// offsets[r]: where rank r's block starts; sizes[r]: its length. Data of every rank goes straight
// to its final place in every member's dest.
// The other PEs' copies first: they can go on while we copy our own block.
void collect_flat(frame &f, char *dest, const char *src, std::size_t bytes, std::size_t my_off) {
    for (int k = 1; k < f.n; ++k) put_signal(f, (f.me + k) % f.n, dest + my_off, src, bytes, ctr::from(f.me));
    copy_local(dest + my_off, src, bytes);
    flat_exchange_wait(f);
}

void collect_barrier(frame &f, char *dest, const char *src, std::size_t bytes, std::size_t my_off) {
    for (int k = 1; k < f.n; ++k) put_to(f, (f.me + k) % f.n, dest + my_off, src, bytes);
    copy_local(dest + my_off, src, bytes);
    complete_puts(f);
    group_sync(f);
}

void collect_ring(frame &f, char *dest, const char *src, const std::vector<std::size_t> &off,
                  const std::vector<std::size_t> &len) {
    const int n = f.n, next = (f.me + 1) % n;
    copy_local(dest + off[std::size_t(f.me)], src, len[std::size_t(f.me)]);
    for (int s = 0; s < n - 1; ++s) {
        std::size_t b = std::size_t((f.me - s + n) % n);
        put_signal(f, next, dest + off[b], dest + off[b], len[b], ctr::ring);
        wait_ctr(f, ctr::ring, 1);
    }
}

void fcollect_impl(frame &f, void *dest, const void *src, std::size_t bytes) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t my_off = std::size_t(f.me) * bytes;
    if (f.n == 1) return copy_local(d, s, bytes);
    if (bytes == 0) return;
    const algo a = coll_cfg.collect;
    if (a == algo::ring) {
        std::vector<std::size_t> off(std::size_t(f.n)), len(std::size_t(f.n), bytes);
        for (int r = 0; r < f.n; ++r) off[std::size_t(r)] = std::size_t(r) * bytes;
        return collect_ring(f, d, s, off, len);
    }
    if ((a == algo::flat || f.n <= rt.cfg.coll_flat_max) && f.has_from()) return collect_flat(f, d, s, bytes, my_off);
    collect_barrier(f, d, s, bytes, my_off);
}

void collect_impl(frame &f, void *dest, const void *src, std::size_t bytes) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    if (f.n == 1) return copy_local(d, s, bytes);
    const algo a = coll_cfg.collect;
    if (gather_fits(f, 8)) {
        // Every PE learns every size: offsets for all, so any data algorithm works.
        std::uint64_t mine = bytes;
        const auto *sz = reinterpret_cast<const std::uint64_t *>(gather(f, &mine, 8));
        std::vector<std::size_t> off(std::size_t(f.n)), len(std::size_t(f.n));
        std::size_t acc = 0;
        for (int r = 0; r < f.n; ++r) {
            off[std::size_t(r)] = acc;
            len[std::size_t(r)] = sz[r];
            acc += sz[r];
        }
        if (a == algo::ring) return collect_ring(f, d, s, off, len);
        return collect_flat(f, d, s, bytes, off[std::size_t(f.me)]);
    }
    // Offsets by a chain: rank r learns the total of ranks below it from rank r - 1.
    std::size_t my_off = 0;
    if (f.me > 0) my_off = std::size_t(take_value(f, ctr::value) - 1);
    if (f.me < f.n - 1) {
        const int pe = f.pe(f.me + 1);
        peer &p = target(f.routine, pe, f.cseg);
        const std::size_t off = f.coff + f.cofs(ctr::value);
        const std::uint64_t v = my_off + bytes + 1;
        if (p.how[f.cseg] == route::direct) {
            __atomic_fetch_add(reinterpret_cast<std::uint64_t *>(p.direct[f.cseg] + off), v, __ATOMIC_RELEASE);
            wake_peer(p);
        } else
            ucx_add(f.routine, p, pe, f.cseg, off, v);
    }
    if (f.legacy() && f.n <= rt.cfg.coll_flat_max) return collect_flat(f, d, s, bytes, my_off);
    collect_barrier(f, d, s, bytes, my_off);
}

// ---- alltoall, alltoalls ----------------------------------------------------------------------

void alltoall_impl(frame &f, void *dest, const void *src, std::size_t bytes) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t me = std::size_t(f.me);
    if (f.n == 1 || bytes == 0) return copy_local(d + me * bytes, s + me * bytes, bytes);
    const bool flat = f.n <= rt.cfg.coll_flat_max && f.has_from();
    for (int k = 1; k < f.n; ++k) {
        int j = (f.me + k) % f.n;
        if (flat) put_signal(f, j, d + me * bytes, s + std::size_t(j) * bytes, bytes, ctr::from(f.me));
        else put_to(f, j, d + me * bytes, s + std::size_t(j) * bytes, bytes);
    }
    copy_local(d + me * bytes, s + me * bytes, bytes);  // after the others': they can go on
    if (flat) return flat_exchange_wait(f);
    complete_puts(f);
    group_sync(f);
}

void alltoalls_impl(frame &f, void *dest, const void *src, std::ptrdiff_t dst, std::ptrdiff_t sst,
                    std::size_t nelems, std::size_t elem) {
    if (dst < 1 || sst < 1)
        fatal(f.routine, "strides dst %td and sst %td must be >= 1", dst, sst);
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t me = std::size_t(f.me), ds = std::size_t(dst) * elem, ss = std::size_t(sst) * elem;
    // Own block: local strided copy.
    for (std::size_t i = 0; i < nelems; ++i)
        std::memmove(d + (me * nelems + i) * ds, s + (me * nelems + i) * ss, elem);
    if (f.n == 1 || nelems == 0) return;
    const bool flat = f.n <= rt.cfg.coll_flat_max && f.has_from();
    for (int k = 1; k < f.n; ++k) {
        std::size_t j = std::size_t((f.me + k) % f.n);
        put_strided_signal(f, int(j), d + me * nelems * ds, ds, s + j * nelems * ss, ss, elem, nelems,
                           flat ? ctr::from(f.me) : -1);
    }
    if (flat) return flat_exchange_wait(f);
    complete_puts(f);
    group_sync(f);
}

// ---- reductions and scans ---------------------------------------------------------------------

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
        return f.cbuf + (std::size_t(k) * 2 + std::size_t(parity)) * chunk_bytes;
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

std::size_t chunk_elems(frame &f, int nreg, std::size_t elem) {
    std::size_t ce = f.cbytes / (2 * std::size_t(nreg)) / elem;
    if (ce == 0)
        fatal(f.routine, "the work array is too small for %d PEs (%zu bytes; need at least %zu)%s", f.n,
              f.cbytes, 2 * std::size_t(nreg) * elem,
              f.legacy() ? "" : "; raise USHMEM_TEAM_SCRATCH");
    return ce;
}

// Chunked recursive doubling (any route). Non-powers of two: the PEs above the largest power of
// two fold their data into a partner first and get the result back at the end.
void reduce_rd(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op) {
    const std::size_t E = op.elem;
    int p2 = 1;
    while (p2 * 2 <= f.n) p2 *= 2;
    const int rem = f.n - p2;
    int rounds = 0;
    while ((1 << rounds) < p2) ++rounds;
    regions R(f, false, rounds + 1, 0);
    const std::size_t ce = chunk_elems(f, rounds + 1, E);
    R.chunk_bytes = ce * E;
    copy_local(dest, src, nelems * E);
    std::size_t idx = 0;
    for (std::size_t c0 = 0; c0 < nelems; c0 += ce, ++idx) {
        const std::size_t len = std::min(ce, nelems - c0), bytes = len * E;
        const int par = int(idx & 1);
        char *acc = dest + c0 * E;
        if (f.me >= p2) {
            R.send(0, f.me - p2, acc, bytes, par);
            wait_ctr(f, ctr::result, 1);
            continue;
        }
        if (f.me < rem) {
            op.combine(acc, R.recv(0, par), len);
            R.release(0, f.me + p2);
        }
        for (int r = 0; r < rounds; ++r) {
            const int partner = f.me ^ (1 << r);
            R.send(r + 1, partner, acc, bytes, par);
            op.combine(acc, R.recv(r + 1, par), len);
            R.release(r + 1, partner);
        }
        if (f.me < rem) put_signal(f, f.me + p2, acc, acc, bytes, ctr::result);
    }
    R.drain();
}

// Same node: every PE reduces its slice of the elements by reading every member's source, then
// writes the result slice into every member's dest. Needs no scratch; every slice is computed by
// one PE, so every PE gets bit-identical results.
void reduce_scatter_direct(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op) {
    const std::size_t E = op.elem;
    entry_sync(f);
    std::vector<const char *> srcs(std::size_t(f.n));
    std::vector<char *> dsts(std::size_t(f.n));
    for (int r = 0; r < f.n; ++r) {
        srcs[std::size_t(r)] = dptr(f, r, src);
        dsts[std::size_t(r)] = dptr(f, r, dest);
    }
    const std::size_t lo = nelems * std::size_t(f.me) / std::size_t(f.n);
    const std::size_t hi = nelems * std::size_t(f.me + 1) / std::size_t(f.n);
    const std::size_t B = std::max<std::size_t>(1, 16384 / E);
    for (std::size_t b = lo; b < hi; b += B) {
        const std::size_t len = std::min(B, hi - b), off = b * E, bytes = len * E;
        char *acc = dest + off;
        copy_local(acc, src + off, bytes);
        for (int r = 0; r < f.n; ++r)
            if (r != f.me) op.combine(acc, srcs[std::size_t(r)] + off, len);
        for (int k = 1; k < f.n; ++k) std::memcpy(dsts[std::size_t((f.me + k) % f.n)] + off, acc, bytes);
    }
    store_fence();
    for (int k = 1; k < f.n; ++k) signal(f, (f.me + k) % f.n, ctr::done);
    wait_ctr(f, ctr::done, std::uint64_t(f.n - 1));
}

void reduce_gather(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op) {
    const std::size_t bytes = nelems * op.elem;
    const char *buf = gather(f, src, bytes);
    std::memcpy(dest, buf, bytes);
    for (int r = 1; r < f.n; ++r) op.combine(dest, buf + std::size_t(r) * bytes, nelems);
}

void reduce_impl(frame &f, void *dest, const void *src, std::size_t nelems, reduce_op op) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t bytes = nelems * op.elem;
    if (f.n == 1 || nelems == 0) return copy_local(d, s, bytes);
    const algo a = coll_cfg.reduce;
    const bool fits = gather_fits(f, bytes);
    if (a == algo::gather && fits) return reduce_gather(f, d, s, nelems, op);
    if (a == algo::rd) return reduce_rd(f, d, s, nelems, op);
    const bool direct = all_direct(f, dest, src);
    if (a == algo::scatter && direct) return reduce_scatter_direct(f, d, s, nelems, op);
    if (a == algo::automatic && fits && bytes <= rt.cfg.reduce_gather_max) return reduce_gather(f, d, s, nelems, op);
    if (direct) return reduce_scatter_direct(f, d, s, nelems, op);
    reduce_rd(f, d, s, nelems, op);
}

// Scans. `acc` holds the running inclusive partial; exclusive scans also sum what they receive.
void scan_hs(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op, bool incl) {
    const std::size_t E = op.elem;
    int rounds = 0;
    while ((1 << rounds) < f.n) ++rounds;
    regions R(f, true, rounds, 0);
    const std::size_t ce = chunk_elems(f, std::max(rounds, 1), E);
    R.chunk_bytes = ce * E;
    std::vector<char> tmp;
    char *accbase = dest;
    if (!incl) {
        tmp.assign(src, src + nelems * E);
        accbase = tmp.data();
        std::memset(dest, 0, nelems * E);
    } else {
        copy_local(dest, src, nelems * E);
    }
    std::size_t idx = 0;
    for (std::size_t c0 = 0; c0 < nelems; c0 += ce, ++idx) {
        const std::size_t len = std::min(ce, nelems - c0), bytes = len * E;
        const int par = int(idx & 1);
        char *acc = accbase + c0 * E;
        for (int r = 0; r < rounds; ++r) {
            const int d = 1 << r;
            if (f.me + d < f.n) R.send(r, f.me + d, acc, bytes, par);
            if (f.me - d >= 0) {
                const char *b = R.recv(r, par);
                if (!incl) op.combine(dest + c0 * E, b, len);
                op.combine(acc, b, len);
                R.release(r, f.me - d);
            }
        }
    }
    R.drain();
    // Rank r heard from the ranks below it only: end once every member has entered (bcast_impl).
    group_sync(f);
}

void scan_read(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op, bool incl) {
    const std::size_t E = op.elem, bytes = nelems * E;
    entry_sync(f);
    const bool inplace = dest == src;
    std::vector<char> tmp;
    char *out = dest;
    if (inplace) {
        tmp.resize(bytes);
        out = tmp.data();
    }
    const int last = incl ? f.me : f.me - 1;  // ranks 0..last contribute
    if (last < 0) {
        std::memset(out, 0, bytes);
    } else {
        std::vector<const char *> srcs(std::size_t(last + 1));
        for (int r = 0; r <= last; ++r) srcs[std::size_t(r)] = r == f.me ? src : dptr(f, r, src);
        const std::size_t B = std::max<std::size_t>(1, 16384 / E);
        for (std::size_t b = 0; b < nelems; b += B) {
            const std::size_t len = std::min(B, nelems - b), off = b * E;
            std::memcpy(out + off, srcs[0] + off, len * E);
            for (int r = 1; r <= last; ++r) op.combine(out + off, srcs[std::size_t(r)] + off, len);
        }
    }
    store_fence();
    for (int r = 0; r < f.me; ++r) signal(f, r, ctr::done);  // done reading rank r's source
    wait_ctr(f, ctr::done, std::uint64_t(f.n - 1 - f.me));      // the ranks above read ours
    if (inplace) std::memcpy(dest, out, bytes);
}

void scan_gather(frame &f, char *dest, const char *src, std::size_t nelems, reduce_op op, bool incl) {
    const std::size_t bytes = nelems * op.elem;
    const char *buf = gather(f, src, bytes, true);
    const int last = incl ? f.me : f.me - 1;
    if (last < 0) return (void)std::memset(dest, 0, bytes);
    std::memcpy(dest, buf, bytes);
    for (int r = 1; r <= last; ++r) op.combine(dest, buf + std::size_t(r) * bytes, nelems);
}

// ---- SHMEM_DEBUG: the same collective with the same arguments on every member ----------------
//
// A member that passes another count, root, type or operation than the others, or calls another
// collective at the same point, makes the algorithms exchange mismatched data and signals: wrong
// results, a hang, or memory overwritten far from the mistake. Under SHMEM_DEBUG every collective
// first compares what each member passed, over the same one-sided machinery (never MPI):
//  - teams: a dissemination all-reduce of the minimum and maximum of a few words, into the
//    slot's own check area and counters (team.hpp, ctr::check), so that no state of the real
//    algorithms (gather parities, chunk credits, per-sender counts) moves;
//  - active sets: there is no room for data in a pSync, so every member adds its words to the
//    last words of every member's pSync and then an arrival count; a member whose own values
//    times the number of members differ from the sums knows that some member passed other ones.
// Without SHMEM_DEBUG this costs one predictable branch per collective.

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
    X(exscan, "exclusive scan", "nelems", "nelems, type")

enum class coll_kind : std::uint64_t {
    none,
#define X(k, name, count, remedy) k,
    USHMEM_COLL_KINDS(X)
#undef X
};

struct kind_info {
    const char *name, *count, *remedy;
};
constexpr kind_info kind_table[] = {
    {"?", "", ""},
#define X(k, name, count, remedy) {name, count, remedy},
    USHMEM_COLL_KINDS(X)
#undef X
};
const kind_info &info_of(std::uint64_t k) {
    return kind_table[k < std::size(kind_table) ? std::size_t(k) : 0];
}

// What a member passed. `count` is 0 where the members may differ (collect's nelems).
struct coll_args {
    coll_kind kind = coll_kind::none;
    std::uint64_t count = 0, elem = 0, root = 0, dst = 0, sst = 0;
};

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return mix(a ^ mix(b)); }

// The routine's name tells the element type and the reduction operation (FNV-1a). Every barrier
// and sync routine synchronises the same PEs, so they are not told apart.
std::uint64_t routine_id(const frame &f, const coll_args &a) {
    if (a.kind == coll_kind::sync) return 0;
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = f.routine; *p; ++p) h = (h ^ std::uint8_t(*p)) * 0x100000001b3ull;
    return h;
}

// Appends to a message buffer.
struct text {
    char buf[1024] = "";
    std::size_t len = 0;
    void add(const char *fmt, ...) __attribute__((format(printf, 2, 3))) {
        if (len >= sizeof buf) return;
        va_list ap;
        va_start(ap, fmt);
        int k = std::vsnprintf(buf + len, sizeof buf - len, fmt, ap);
        va_end(ap);
        if (k > 0) len = std::min(sizeof buf, len + std::size_t(k));
    }
    const char *sep() const { return len ? ", " : ""; }
};

[[noreturn]] void report_mismatch(const frame &f, const coll_args &a, const text &what, const char *group) {
    // ", with the same A, B and C": the active set's triple, then the collective's arguments.
    const char *args = info_of(std::uint64_t(a.kind)).remedy;
    text list, same;
    if (f.legacy()) list.add("PE_start, logPE_stride, PE_size%s", *args ? ", " : "");
    list.add("%s", args);
    if (list.len) {
        const char *last = std::strrchr(list.buf, ',');
        if (last) same.add(", with the same %.*s and%s", int(last - list.buf), list.buf, last + 1);
        else same.add(", with the same %s", list.buf);
    }
    fatal(f.routine,
          "collective arguments differ between the PEs of the %s (%d PEs, this PE is number %d in it): %s "
          "(every PE of the %s must make the same collective calls in the same order%s; checked "
          "because SHMEM_DEBUG is set)",
          group, f.n, f.me, what.buf, group, same.buf);
}

// Teams: the fields compared, as minima and maxima over the members.
enum : int { fk_kind, fk_routine, fk_count, fk_elem, fk_root, fk_dst, fk_sst, fk_fields };
static_assert(fk_fields == ctr::check_fields);

void check_team_args(frame &f, const coll_args &a) {
    if (f.n == 1) return;
    int rounds = 0;
    while ((1 << rounds) < f.n) ++rounds;
    if (rounds > ctr::check_rounds) return;  // (a team of more than 2^20 PEs: same on every member)
    constexpr int F = fk_fields;
    std::uint64_t v[2 * F] = {std::uint64_t(a.kind), routine_id(f, a), a.count, a.elem, a.root, a.dst, a.sst};
    std::copy(v, v + F, v + F);
    // Consumed round-0 signals = checks completed on this slot, the same on every member.
    const int parity = int(f.seen_of(ctr::check(0)) & 1);
    for (int r = 0, d = 1; r < rounds; ++r, d <<= 1) {
        char *rec = f.t->ctr + ctr::check_offset(parity, r);
        put_signal(f, (f.me + d) % f.n, rec, v, sizeof v, ctr::check(r));
        wait_ctr(f, ctr::check(r), 1);
        const auto *in = reinterpret_cast<const std::uint64_t *>(rec);
        for (int i = 0; i < F; ++i) {
            v[i] = std::min(v[i], in[i]);
            v[F + i] = std::max(v[F + i], in[F + i]);
        }
    }
    const std::uint64_t *lo = v, *hi = v + F;
    bool same = true;
    for (int i = 0; i < F; ++i) same = same && lo[i] == hi[i];
    if (USHMEM_LIKELY(same)) return;
    text what;
    if (lo[fk_kind] != hi[fk_kind]) {
        what.add("different collectives at the same point, %s and %s (this PE called %s)",
                 info_of(lo[fk_kind]).name, info_of(hi[fk_kind]).name, f.routine);
    } else {
        if (lo[fk_routine] != hi[fk_routine])
            what.add("different %s routines, another element type or operation (this PE called %s)",
                     info_of(lo[fk_kind]).name, f.routine);
        const struct {
            int field;
            const char *label;
        } shown[] = {{fk_count, info_of(lo[fk_kind]).count}, {fk_elem, "element size (bytes)"},
                     {fk_root, "PE_root"}, {fk_dst, "dst"}, {fk_sst, "sst"}};
        for (const auto &s : shown)
            if (lo[s.field] != hi[s.field])
                what.add("%s%s %" PRIu64 "..%" PRIu64, what.sep(), s.label, lo[s.field], hi[s.field]);
    }
    report_mismatch(f, a, what, "team");
}

// Active sets: the words after the counters of every member's pSync (ctr::psync_counter_words):
// the arrival count, then the sums of these groups.
enum : int { ak_what, ak_count, ak_root, ak_set, ak_aux, ak_groups };
static_assert(1 + ak_groups == ctr::psync_check_words);

void check_as_args(frame &f, const coll_args &a, active_set as) {
    if (f.n == 1) return;
    const std::uint64_t v[ak_groups] = {
        mix(std::uint64_t(a.kind), routine_id(f, a)), a.count, a.root,
        mix(mix(std::uint64_t(std::uint32_t(as.start)), std::uint64_t(std::uint32_t(as.log_stride))),
            std::uint64_t(std::uint32_t(as.size))),
        mix(mix(a.elem, a.dst), a.sst)};
    const std::size_t arrivals = ctr::psync_counter_words, sums = arrivals + 1;
    auto add = [&f](int r, std::size_t word, std::uint64_t x) {
        const int pe = f.pe(r);
        peer &p = target(f.routine, pe, f.cseg);
        const std::size_t off = f.coff + word * 8;
        if (p.how[f.cseg] == route::direct) {
            __atomic_fetch_add(reinterpret_cast<std::uint64_t *>(p.direct[f.cseg] + off), x, __ATOMIC_RELEASE);
            wake_peer(p);
            return false;
        }
        ucx_add(f.routine, p, pe, f.cseg, off, x);
        return true;
    };
    for (int k = 0; k < f.n; ++k) {
        const int r = (f.me + k) % f.n;
        bool ucx = false;
        for (int g = 0; g < ak_groups; ++g) ucx = add(r, sums + std::size_t(g), v[g]) || ucx;
        if (ucx) transport::fence();  // the sums before the arrival
        add(r, arrivals, 1);
    }
    auto *w = reinterpret_cast<std::uint64_t *>(f.cbase);
    const std::uint64_t n = std::uint64_t(f.n);
    cwait(f, [w, arrivals, n] { return __atomic_load_n(w + arrivals, __ATOMIC_ACQUIRE) >= n; });
    std::uint64_t s[ak_groups];
    for (int g = 0; g < ak_groups; ++g) s[g] = __atomic_load_n(w + sums + std::size_t(g), __ATOMIC_ACQUIRE);
    // Give back what this check added, restoring SHMEM_SYNC_VALUE. No member adds the next
    // collective's words before this PE has taken part in this one (see finish_as).
    for (int g = 0; g < ak_groups; ++g) __atomic_fetch_sub(w + sums + std::size_t(g), s[g], __ATOMIC_ACQ_REL);
    __atomic_fetch_sub(w + arrivals, n, __ATOMIC_ACQ_REL);
    // Each member's value times n equals the sum on every member only if all values are equal.
    bool same = true;
    for (int g = 0; g < ak_groups; ++g) same = same && s[g] == n * v[g];
    if (USHMEM_LIKELY(same)) return;
    text what;
    auto mean = [&s, n](int g) { return double(s[g]) / double(n); };
    if (s[ak_what] != n * v[ak_what])
        what.add("another collective routine on another PE (this PE called %s)", f.routine);
    if (s[ak_set] != n * v[ak_set])
        what.add("%sPE_start, logPE_stride or PE_size (this PE passed %d, %d, %d)", what.sep(), as.start,
                 as.log_stride, as.size);
    if (s[ak_count] != n * v[ak_count] && *info_of(std::uint64_t(a.kind)).count)
        what.add("%s%s (this PE %" PRIu64 ", mean over the set %.6g)", what.sep(), info_of(std::uint64_t(a.kind)).count,
                 a.count, mean(ak_count));
    if (s[ak_root] != n * v[ak_root])
        what.add("%sPE_root (this PE %" PRIu64 ", mean over the set %.6g)", what.sep(), a.root, mean(ak_root));
    if (s[ak_aux] != n * v[ak_aux]) what.add("%selement size, dst or sst", what.sep());
    report_mismatch(f, a, what, "active set");
}

} // namespace

context &coll_context() { return g_cctx; }

// ---- team entry points ------------------------------------------------------------------------

void scan_impl(frame &f, void *dest, const void *src, std::size_t nelems, reduce_op op, bool inclusive);

// Every team collective runs on a frame describing the team; `body` is the algorithm.
// `args`: what this member passed, compared with the other members' under SHMEM_DEBUG.
template <class Body> void on_team(const char *routine, team &t, const coll_args &args, Body body) {
    frame f;
    init_team_frame(f, routine, t);
    set_quiet_waits(f);
    if (USHMEM_LIKELY(t_deadline == 0)) {
        if (USHMEM_UNLIKELY(rt.cfg.debug)) check_team_args(f, args);
        return body(f);
    }
    try {
        if (USHMEM_UNLIKELY(rt.cfg.debug)) check_team_args(f, args);
        body(f);
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

void scan(const char *routine, team &t, void *dest, const void *src, std::size_t nelems, reduce_op op,
          bool inclusive) {
    on_team(routine, t, {inclusive ? coll_kind::inscan : coll_kind::exscan, nelems, op.elem},
            [&](frame &f) { scan_impl(f, dest, src, nelems, op, inclusive); });
}

void scan_impl(frame &f, void *dest, const void *src, std::size_t nelems, reduce_op op, bool inclusive) {
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    const std::size_t bytes = nelems * op.elem;
    if (nelems == 0) return;
    if (f.n == 1) {
        if (inclusive) copy_local(d, s, bytes);
        else std::memset(d, 0, bytes);
        return;
    }
    const algo a = coll_cfg.scan;
    const bool fits = gather_fits(f, bytes);
    if (a == algo::gather && fits) return scan_gather(f, d, s, nelems, op, inclusive);
    if (a == algo::hs) return scan_hs(f, d, s, nelems, op, inclusive);
    const bool direct = all_direct(f, dest, src);
    if (a == algo::read && direct) return scan_read(f, d, s, nelems, op, inclusive);
    if (a == algo::automatic && fits && bytes <= rt.cfg.reduce_gather_max)
        return scan_gather(f, d, s, nelems, op, inclusive);
    if (direct) return scan_read(f, d, s, nelems, op, inclusive);
    scan_hs(f, d, s, nelems, op, inclusive);
}

// ---- active-set entry points ------------------------------------------------------------------

// Every active-set collective runs on a frame describing the set and its pSync.
template <class Body>
void on_active_set(const char *routine, active_set as, long *psync, const coll_args &args, Body body) {
    frame f;
    as_seen seen;
    init_as_frame(f, routine, as, psync, seen);
    if (USHMEM_UNLIKELY(rt.cfg.debug)) check_as_args(f, args, as);
    body(f);
    finish_as(f);
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
    on_active_set(routine, as, psync, {coll_kind::reduce, nelems, op.elem}, [&](frame &f) {
        auto *d = static_cast<char *>(dest);
        auto *s = static_cast<const char *>(src);
        if (f.n == 1 || nelems == 0) {
            copy_local(d, s, nelems * op.elem);
        } else if (all_direct(f, dest, src)) {
            reduce_scatter_direct(f, d, s, nelems, op);
        } else {
            if (!pwrk) fatal(routine, "pWrk is a null pointer; pass a symmetric work array");
            seg_id ws;
            std::size_t wo;
            locate_or_fail(routine, "pWrk", pwrk, pwrk_bytes, rt.me, ws, wo);
            f.cbuf = static_cast<char *>(pwrk);
            f.cbytes = pwrk_bytes;
            reduce_rd(f, d, s, nelems, op);
        }
    });
}

} // namespace ushmem::core
