// SHMEM_DEBUG: the same collective with the same arguments on every member (coll.hpp).
#include "core/coll/coll.hpp"
#include "core/compiler.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "core/wait.hpp"
#include "transport/transport.hpp"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <iterator>

namespace ushmem::core::coll {

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


constexpr kind_info kind_table[] = {
    {"?", "", ""},
#define X(k, name, count, remedy) {name, count, remedy},
    USHMEM_COLL_KINDS(X)
#undef X
};
const kind_info &info_of(std::uint64_t k) {
    return kind_table[k < std::size(kind_table) ? std::size_t(k) : 0];
}

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return mix(a ^ mix(b)); }

// The routine's name tells the element type and the reduction operation (FNV-1a). Every barrier
// and sync routine synchronises the same PEs, so they are not told apart; nor are the memory
// routines in their heap check (memory.cpp), which compares what each PE did itself and names it.
std::uint64_t routine_id(const frame &f, const coll_args &a) {
    if (a.kind == coll_kind::sync || a.kind == coll_kind::heap_check) return 0;
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

} // namespace

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
        if (ucx) transport::worker_fence();  // the sums before the arrival
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


} // namespace ushmem::core::coll
