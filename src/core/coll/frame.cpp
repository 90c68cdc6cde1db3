// The collectives' frame (a team's or an active set's view of one call), waiting, and the
// signals and transfers every algorithm is built from (coll.hpp).
#include "core/coll/coll.hpp"
#include "core/context.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "core/messages.hpp"
#include "core/ordering.hpp"
#include "core/peers.hpp"
#include "core/rma.hpp"
#include "core/route.hpp"
#include "core/wait.hpp"
#include "core/peer_words.hpp"
#include "core/wait_missing.hpp"
#include "transport/transport.hpp"
#include "util/strided.hpp"


#include <vector>

namespace ushmem::core::coll {

context g_cctx;


namespace {
// The entry word (memory.hpp, coll_entry_word): the group (team slot + 1; as_group for active
// sets) in the top 16 bits, whether this PE is inside that collective (bit 47: set on entry,
// cleared on leaving it), the count of frames entered on the group below. 0: no collective since
// shmem_init (init clears the word after its own collectives). Two stores to this PE's own runtime
// area per call; read only by a member whose wait timed out.
constexpr std::uint64_t as_group = 0xffff, inside_bit = 1ull << 47, calls_mask = inside_bit - 1;
std::uint64_t g_as_calls = 0;
std::uint64_t entry_code(std::uint64_t group, std::uint64_t calls) { return group << 48 | (calls & calls_mask); }
std::uint64_t my_entry(const frame &f) {
    return f.legacy() ? entry_code(as_group, g_as_calls) : entry_code(std::uint64_t(f.t->slot) + 1, f.t->calls);
}
// After the call's count was advanced and the frame filled in.
void mark_entry(const frame &f) {
    __atomic_store_n(rt.runtime_words + coll_entry_word, my_entry(f) | inside_bit, __ATOMIC_RELEASE);
}
} // namespace

void mark_exit(const frame &f) { __atomic_store_n(rt.runtime_words + coll_entry_word, my_entry(f), __ATOMIC_RELEASE); }

void init_team_frame(frame &f, const char *routine, team &t) {
    ++t.calls;
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
    const std::size_t half = scratch_half(t);
    f.gbuf = t.scratch;
    f.gbytes = half / 2 / 64 * 64;  // two parities
    f.cbuf = t.scratch + half;
    f.cbytes = t.scratch_bytes - half;
    mark_entry(f);
}


void init_as_frame(frame &f, const char *routine, active_set as, long *psync, as_seen &seen) {
    ++g_as_calls;
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
    mark_entry(f);
}

// Gives back what an active-set collective consumed from its pSync, restoring SHMEM_SYNC_VALUE
// (signals of a next barrier that may already have arrived stay counted).
void finish_as(frame &f) {
    for (std::size_t w = 0; w < ctr::psync_counter_words; ++w)
        if (f.seen[w]) __atomic_fetch_sub(reinterpret_cast<std::uint64_t *>(f.cbase) + w, f.seen[w], __ATOMIC_ACQ_REL);
}

namespace {
// The members that keep this collective from completing, as " PE 2 (has not reached this call)
// PE 3 (no answer: ...)" (the describer: core/wait_missing.hpp): each member's entry word says
// which collective it entered last and whether it is still inside it. A member whose word is 0 has
// entered none since shmem_init (it is in user code or in other library calls: init's own
// collectives, on other teams, do not count); one at an earlier call of the same group, or out of
// every collective, has not reached this one; one inside another group's collective is elsewhere;
// one that does not answer within a second (over an emulated transport a stopped, hung or dead PE
// cannot) is named so. Members in this very call are waiting too and are not listed.
std::string members_missing(const frame &f) {
    std::vector<int> pes;
    for (int r = 0; r < f.n; ++r)
        if (r != f.me) pes.push_back(f.pe(r));
    std::vector<std::uint64_t> words;
    std::vector<bool> answered;
    read_runtime_words(f.routine, coll_entry_word, pes, 1.0, words, answered);
    const std::uint64_t mine = my_entry(f);
    missing_pes list(16, "PE ");
    for (std::size_t i = 0; i < pes.size(); ++i) {
        const char *why = nullptr;
        const std::uint64_t w = words[i];
        if (!answered[i]) why = "no answer: stopped, hung, dead or unreachable";
        else if (w == 0) why = "has entered no collective since shmem_init";
        else if (w >> 48 != mine >> 48) why = w & inside_bit ? "in a collective of another team or active set"
                                                             : "has not reached this call";
        else if ((w & calls_mask) < (mine & calls_mask)) why = "has not reached this call";
        if (why) list.add(pes[i], why);
    }
    return list.text(" none found (every member is in this call: a signal was lost?)");
}

// What a collective's wait is for, in the USHMEM_WAIT_TIMEOUT message (built when it fires).
void describe_members(const void *arg, char *buf, std::size_t len) {
    const frame &f = *static_cast<const frame *>(arg);
    const std::string missing = members_missing(f);
    std::snprintf(buf, len,
                  "a signal from another PE of the %s (%d PEs); the members keeping it waiting:%s. Every "
                  "member must call the same collectives in the same order",
                  f.legacy() ? "active set" : "team", f.n, missing.c_str());
}

// The wait loop's spec of a collective's waits: described by the members missing, ended by the
// thread's deadline (timed collectives), not parked at an exit (the exit's own finalize runs
// collectives on the exiting thread) and not counted as wait time (statistics count the
// collective's).
wait_spec coll_spec(const frame &f) {
    wait_spec s{f.routine, "a signal from another PE of the team", describe_members, &f};
    s.parks_at_exit = false;
    s.deadline = t_deadline;
    s.stats_time = false;
    return s;
}
} // namespace

thread_local double t_deadline = 0;
thread_local bool t_gave_up = false;

void cwait_slow(const frame &f, unsigned progress_mask, bool sender_ahead, bool (*cond)(void *), void *arg) {
    wait_spec s = coll_spec(f);
    s.progress_mask = progress_mask;
    s.awaited_ahead = sender_ahead;
    wait_loop(s, cond, arg);
}

// Waits for k more signals on counter `id` and consumes them.
void wait_ctr(frame &f, int id, std::uint64_t k, bool sender_ahead) {
    if (k == 0) return;
    std::uint64_t &seen = f.seen_of(id);
    const std::uint64_t want = seen + k;
    const std::uint64_t *p = f.c(id);
    if (__atomic_load_n(p, __ATOMIC_ACQUIRE) < want)
        cwait(f, [p, want] { return __atomic_load_n(p, __ATOMIC_ACQUIRE) >= want; }, sender_ahead);
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

// ---- eager broadcasts' completion (coll.hpp) ---------------------------------------------------

// Waits until every other member's ctr::mbox_done has reached `need`. Direct members' words are
// loaded; the others' are read with one round of non-blocking gets and a quiet, repeated while some
// are behind. Nothing signals a change of these words, so the wait loop polls them (a round per
// poll) and idles between polls as for anything not signalled (wait_kind::polled: spins, yields,
// then sleeps in slices growing with the time waited): a root gets here only when it is a whole
// mailbox ring ahead of a member, i.e. that member is short of CPU.
namespace {
struct eager_poll {
    frame *f;
    std::uint64_t need;
    std::vector<std::uint64_t> got;
};

// One round of reads; true when no member is behind.
bool eager_all_done(void *arg) {
    eager_poll &e = *static_cast<eager_poll *>(arg);
    frame &f = *e.f;
    team &t = *f.t;
    const std::size_t off = f.coff + f.cofs(ctr::mbox_done);
    bool gets = false;
    for (int r = 0; r < f.n; ++r) {
        if (r == f.me || t.eager_seen[std::size_t(r)] >= e.need) continue;
        const int pe = f.pe(r);
        peer &p = target(f.routine, pe, f.cseg);
        if (p.how[f.cseg] == route::direct) {
            t.eager_seen[std::size_t(r)] =
                __atomic_load_n(reinterpret_cast<const std::uint64_t *>(p.direct[f.cseg] + off), __ATOMIC_ACQUIRE);
        } else {
            get_ucx(f.routine, g_cctx, p, pe, f.cseg, off, &e.got[std::size_t(r)], 8, true);
            gets = true;
        }
    }
    if (gets) {
        quiet(f.routine, g_cctx);
        for (int r = 0; r < f.n; ++r)
            if (e.got[std::size_t(r)] > t.eager_seen[std::size_t(r)]) t.eager_seen[std::size_t(r)] = e.got[std::size_t(r)];
    }
    for (int r = 0; r < f.n; ++r)
        if (r != f.me && t.eager_seen[std::size_t(r)] < e.need) return false;
    return true;
}
} // namespace

void eager_wait_done(frame &f, std::uint64_t need) {
    eager_poll e{&f, need, std::vector<std::uint64_t>(std::size_t(f.n), 0)};
    if (eager_all_done(&e)) return;
    wait_spec s = coll_spec(f);
    s.kind = wait_kind::polled;
    wait_loop(s, eager_all_done, &e);
}

// ---- signals and transfers --------------------------------------------------------------------

void ucx_add(const char *routine, peer &p, int pe, seg_id s, std::size_t off, std::uint64_t v) {
    if (p.msg_signals) {  // emulated atomics: a message without the atomic's reply (messages.hpp)
        signal_message(routine, g_cctx, p, pe, 0, nullptr, 0, p.rbase[s] + off, v, transport::signal_op::add);
        return;
    }
    if (const char *err = transport::add_nbi(p.ep, p.rbase[s] + off, p.rkey[s], v))
        fatal(routine, "signal to PE %d failed: %s", pe, err);
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
        // meanwhile re-checks its condition for a while after announcing itself (wait_policy.cpp), which
        // outlasts any store buffer's drain.
        if (own) __atomic_store_n(w, ++f.sent[r], __ATOMIC_RELEASE);
        else __atomic_fetch_add(w, 1, __ATOMIC_RELEASE);
        wake_peer(p);
        return;
    }
    if (own) ++f.sent[r];  // the adds keep the counter equal to the count as well
    if (data_ucx) transport::worker_fence();
    else if (data_direct) store_fence();
    ucx_add(f.routine, p, pe, f.cseg, off, 1);
}

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
    // Large, where signals are messages: one bulk message, ahead of whatever this PE sends next.
    if (p.msg_signals && bulk_size(n)) {
        signal_message(f.routine, g_cctx, p, pe, p.rbase[ds] + doff, src, n, 0, 0, transport::signal_op::add);
        return false;
    }
    put_ucx(f.routine, g_cctx, p, pe, ds, doff, src, n, false);
    f.used_ucx_puts = true;
    return true;
}

void put_signal(frame &f, int r, void *dst, const void *src, std::size_t n, int id) {
    if (n) {
        // Where signals are messages anyway, data and signal in one message: no fence, one
        // message on the critical path instead of put, fence and atomic.
        const int pe = f.pe(r);
        peer &p = target(f.routine, pe, f.cseg);
        if (p.msg_signals && p.how[f.cseg] == route::ucx) {
            seg_id ds;
            std::size_t doff;
            locate_or_fail(f.routine, "destination", dst, n, pe, ds, doff);
            if (const peer &dp = target(f.routine, pe, ds); dp.how[ds] == route::ucx) {
                if (f.sent && id == ctr::from(f.me)) ++f.sent[r];  // as signal_after
                const std::uint64_t to = dp.rbase[ds] + doff, sig = p.rbase[f.cseg] + f.coff + f.cofs(id);
                // Larger than a message: one bulk message (signal_message), or messages of up to
                // signal_message_max with the signal in the last, which one endpoint delivers after
                // the others. A UCX put needed a fence before the signal: a round trip over tcp.
                const std::size_t step = bulk_size(n) ? n : signal_message_max;
                const char *from = static_cast<const char *>(src);
                for (std::size_t at = 0; at < n; at += step) {
                    const std::size_t len = std::min(step, n - at);
                    const bool last = at + len == n;
                    signal_message(f.routine, g_cctx, p, pe, to + at, from + at, len, last ? sig : 0, last ? 1 : 0,
                                   transport::signal_op::add);
                }
                return;
            }
        }
    }
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
        // The counters' entry (another one when either lies in a grown heap chunk: route.hpp).
        const peer &cp = ds == f.cseg ? p : target(f.routine, pe, f.cseg);
        if (p.how[ds] == route::direct) {
            char *d = p.direct[ds] + doff;
            util::copy_strided(d, dstride, src, sstride, elem, count);
            dir = true;
        } else if (p.msg_signals && elem <= signal_message_max && cp.how[f.cseg] == route::ucx &&
                   (count * elem <= signal_message_max || dstride != elem)) {
            // Emulated RMA: the elements in messages of up to signal_message_max bytes (messages.hpp),
            // the signal in the last one (after a fence when there are several), not a message
            // per element and a flush (alltoalls of 1 MiB blocks, dest stride 2: 131072 puts).
            std::uint64_t sig = 0;
            if (id >= 0) {
                if (f.sent && id == ctr::from(f.me)) ++f.sent[r];  // as signal_after
                sig = cp.rbase[f.cseg] + f.coff + f.cofs(id);
            }
            strided_messages(f.routine, g_cctx, p, pe, p.rbase[ds] + doff, dstride, src, sstride, elem, count, sig);
            if (id < 0) f.used_ucx_puts = true;
            return;
        } else if (dstride == elem) {
            std::vector<char> pack(count * elem);
            util::copy_strided(pack.data(), elem, src, sstride, elem, count);
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
    // The team caches the answer per segment; a grown heap chunk's (is_chunk) is not cached.
    const bool cache = f.t && !is_chunk(s);
    if (cache && f.t->direct[s] >= 0) return f.t->direct[s] != 0;
    bool d = true;
    for (int r = 0; r < f.n && d; ++r) d = target(f.routine, f.pe(r), s).how[s] == route::direct;
    if (cache) f.t->direct[s] = d ? 1 : 0;
    return d;
}

// Small teams talk to every member anyway: find out once whether they are all direct.
void set_quiet_waits(frame &f) {
    if (f.t && (f.t->direct[seg_heap] >= 0 || f.n <= coll_flat_max()))
        f.quiet_waits = seg_direct(f, seg_heap);
}

// Every member's `a` and `b` (symmetric) and counters reachable by loads and stores from here.
bool all_direct(frame &f, const void *a, const void *b) {
    seg_id sa, sb;
    std::size_t o;
    if (!locate(a, 1, sa, o) || !locate(b, 1, sb, o)) return false;
    return seg_direct(f, f.cseg) && seg_direct(f, sa) && seg_direct(f, sb);
}


} // namespace ushmem::core::coll
