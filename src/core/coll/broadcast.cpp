// Broadcast (coll.hpp).
#include "core/coll/coll.hpp"
#include "core/log.hpp"

namespace ushmem::core::coll {
namespace {

int high_bit(int v) { return v ? 1 << (31 - __builtin_clz(unsigned(v))) : 0; }

// Root-relative binomial (or flat) tree over per-sender counters. `team_sem`: dest is updated on
// the root too.
void bcast_push(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool flat,
                bool team_sem) {
    const int n = f.n, v = (f.me - root + n) % n;
    if (v != 0) {
        int pv = flat ? 0 : v - high_bit(v);
        wait_ctr(f, ctr::from((root + pv) % n), 1);
    }
    const char *from = v == 0 ? src : dest;
    if (flat) {
        if (v == 0)
            for (int c = 1; c < n; ++c) put_signal(f, (root + c) % n, dest, from, bytes, ctr::from(f.me));
    } else {
        int top = 1;
        while (top < n) top <<= 1;
        int lo = v ? 2 * high_bit(v) : 1;
        for (int d = top; d >= lo; d >>= 1)  // largest subtree first
            if (v + d < n && d >= lo) put_signal(f, (root + d + v) % n, dest, from, bytes, ctr::from(f.me));
    }
    if (v == 0 && team_sem) copy_local(dest, src, bytes);
}

// Teams larger than max_from: a fixed binomial tree rooted at rank 0 (single-sender counters), the
// root first relaying its data to rank 0. With active-set semantics (!team_sem: an active set over
// every PE run as the world team's) the root's dest stays untouched: its parent skips it, and it
// feeds its own subtree from src.
void bcast_fixed_tree(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool team_sem) {
    const int n = f.n, v = f.me;
    if (v == root && root != 0) put_signal(f, 0, dest, src, bytes, ctr::relay);
    const char *from = dest;
    if (v == 0) {
        if (root == 0) {
            from = src;
            if (team_sem) copy_local(dest, src, bytes);
        } else {
            wait_ctr(f, ctr::relay, 1);
        }
    } else if (v == root && !team_sem) {
        from = src;
    } else {
        wait_ctr(f, ctr::tree, 1);
    }
    int top = 1;
    while (top < n) top <<= 1;
    int lo = v ? 2 * high_bit(v) : 1;
    for (int d = top; d >= lo; d >>= 1)
        if (v + d < n && (team_sem || v + d != root)) put_signal(f, v + d, dest, from, bytes, ctr::tree);
}

// Large messages off the direct path: a pipelined chain in root-relative rank order (members of a
// node are consecutive ranks, so the chain crosses each node boundary once). Each member forwards
// segment j to the next as soon as it has it, straight into the next member's dest: the root
// sends the message once instead of log2(n) times (binomial), and the last member has it about one
// segment after the root finished. Where CPUs bound throughput, not links, it gains nothing: 4 PEs
// over tcp on 2 cores, 1 MiB, 4 alternating runs: 0.97-1.42 ms against 0.60-1.35 ms (binomial).
// Hence on request (USHMEM_BCAST_ALGO=chain, USHMEM_BCAST_CHAIN_MIN).
// Segments: 64 KiB, or an eighth of the message when larger. No sync after: the last member has
// the last segment only once every member has forwarded, hence entered the call; it tells every
// other member so (one step, n - 1 signals, where a sync takes two).
void bcast_chain(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool team_sem) {
    const int n = f.n, v = (f.me - root + n) % n;
    const std::size_t seg = std::max<std::size_t>(std::size_t(64) << 10, bytes / 8);
    const int prev = (f.me - 1 + n) % n, next = (f.me + 1) % n, last = (root + n - 1) % n;
    const char *from = v == 0 ? src : dest;
    for (std::size_t at = 0; at < bytes; at += seg) {
        const std::size_t len = std::min(seg, bytes - at);
        if (v != 0) wait_ctr(f, ctr::from(prev), 1);
        if (v != n - 1) put_signal(f, next, dest + at, from + at, len, ctr::from(f.me));
    }
    if (v == 0 && team_sem) copy_local(dest, src, bytes);
    if (v == n - 1) {
        for (int k = 1; k < n; ++k) signal(f, (f.me + k) % n, ctr::from(f.me));
    } else {
        wait_ctr(f, ctr::from(last), 1);
    }
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
    await_flat(f, f.me);
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
// Push and the central sync in one, through the root instead of rank 0: every member tells the
// root it has entered, the root then puts the data to each, its release signal following the
// data. Two steps (the fewest for a broadcast that ends once every member has entered), 2 (n - 1)
// signals: for nodes with more PEs than CPUs, where every wait costs a context switch.
void bcast_central_sync(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool team_sem) {
    if (f.me == root) {
        await_flat(f, root);
        for (int k = 1; k < f.n; ++k) put_signal(f, (root + k) % f.n, dest, src, bytes, flat_id(f, root));
        if (team_sem) copy_local(dest, src, bytes);
    } else {
        signal(f, root, flat_id(f, f.me));
        wait_ctr(f, flat_id(f, root), 1);
    }
}

// Larger messages in small groups off the direct path: the central sync's entry half, then the
// binomial tree, no sync after. Every member tells the root it has entered; the root waits for
// every one of them, then puts the data down the tree. A member then has its data only once the
// root knew that every member had entered, which is what the sync after the push made sure of
// (Back-to-back calls, above): whoever starts call i + 2 has had call i + 1's data, so every
// member has entered call i + 1. The root returns once its puts are out (their local completion),
// not a sync round after the last member has the data. 2 PEs over tcp, 1 MiB: the root's call
// ended with the receiver's sync signal, after the whole transfer and one more trip.
// With 2 PEs the root sends first and waits after: the one member learns from its data that the
// root entered, and the root from the member's signal that it did; a member that enters late then
// finds its data under way instead of waiting a signal's trip for it. (With 3 or more, a member
// would not know whether the others had entered: coll_backtoback fails at 3 and 4 PEs that way.)
void bcast_central_tree(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool team_sem) {
    const bool send_first = f.n == 2;
    if (f.me != root) signal(f, root, flat_id(f, f.me));
    else if (!send_first) await_flat(f, root);
    bcast_push(f, dest, src, bytes, root, false, team_sem);
    if (f.me == root && send_first) await_flat(f, root);
}

// Small messages on small teams, no sync: the root puts the data into slot k = call % mbox_slots of
// every member's mailbox ring (its team slot, not the member's dest), signalling that slot; each
// member waits for its slot and copies it into its own dest. Nobody writes a member's dest but the
// member, so a root may run ahead of the members, up to a whole ring: before reusing slot k, it
// makes sure every member has completed the call that last used it (ctr::mbox_done, read only
// then, and the values kept: a root that keeps the lead reads once per ring less its lead). A
// broadcast loop then costs the root its sends, not a round trip. (Members do not push these
// counts to the root: such a message is consumed by no call, and one still in flight when the
// team is destroyed would land in the slot's next team.) Since the call ends without knowing that
// every member entered it, the next collective that is not a broadcast or a sync first settles
// (eager_settle).
//
// Larger messages off the direct path (up to eager_mid_max: half the team's scratch, 64 KiB at
// most) go the same way, their data into one half of every member's scratch, the halves in turn,
// with slot k's counter as their signal. The scratch is the gather and chunk area of the other
// collectives, which settle first (and syncs do not touch it). Before reusing a half, the root
// makes sure every member completed the call that last used it, as for a slot. Over tcp a 16 KiB
// broadcast then costs the members the data's trip, not a round trip to the root and back first
// (bcast_central_tree).
void bcast_eager(frame &f, char *dest, const char *src, std::size_t bytes, int root, bool team_sem) {
    team &t = *f.t;
    const std::uint64_t call = t.eager_calls++;
    const int k = int(call % ctr::mbox_slots);
    // The slot's last user, call + 1 - slots, is known done after a sync (a broadcast loop with a
    // barrier in it reads nothing: over the network each read is a round trip).
    std::uint64_t need = call >= std::uint64_t(ctr::mbox_slots) ? call + 1 - ctr::mbox_slots : 0;
    char *slot = t.mbox + std::size_t(k) * ctr::mbox_payload;
    if (bytes > ctr::mbox_payload) {
        // Another collective may still be reading a member's scratch (a member leaves a reduction
        // or a scan while another still combines its last chunk there): every member must have
        // entered this call before anyone writes it. Once per run of broadcasts, not per call.
        if (t.scratch_used) {
            group_sync(f);
            t.scratch_used = false;
        }
        const int half = int(t.eager_mid_calls++ & 1);
        slot = t.scratch + std::size_t(half) * scratch_half(t);
        need = std::max(need, t.eager_mid_last[half]);
        t.eager_mid_last[half] = call + 1;
    }
    if (f.me == root) {
        if (need > t.eager_synced) eager_wait_done(f, need);
        for (int j = 1; j < f.n; ++j) put_signal(f, (root + j) % f.n, slot, src, bytes, ctr::mbox(k));
        if (team_sem) copy_local(dest, src, bytes);
    } else {
        wait_ctr(f, ctr::mbox(k), 1, true);
        std::memcpy(dest, slot, bytes);
    }
    __atomic_store_n(f.c(ctr::mbox_done), call + 1, __ATOMIC_RELEASE);
    t.eager_owed = true;
}

} // namespace

void bcast_impl(frame &f, void *dest, const void *src, std::size_t bytes, int root, bool team_sem) {
    if (root < 0 || root >= f.n)
        fatal(f.routine, "PE_root %d is not a PE of the %s (0 to %d)", root,
              team_sem ? "team" : "active set", f.n - 1);
    auto *d = static_cast<char *>(dest);
    auto *s = static_cast<const char *>(src);
    if (f.n == 1 || bytes == 0) {
        if (team_sem) copy_local(d, s, bytes);
        return;
    }
    shape sh{family::bcast, f, bytes, dest, src};
    const plan p = select(sh);
    if (p == plan::bcast_eager) return bcast_eager(f, d, s, bytes, root, team_sem);
    eager_settle(f);
    if (f.t) f.t->scratch_used = true;  // (bcast_node gathers through it)
    switch (p) {
    case plan::bcast_flat_sync: return bcast_flat_sync(f, d, s, bytes, root, team_sem);
    case plan::bcast_central_sync: return bcast_central_sync(f, d, s, bytes, root, team_sem);
    case plan::bcast_node: return bcast_node(f, d, s, bytes, root, team_sem);
    case plan::bcast_fixed_tree: bcast_fixed_tree(f, d, s, bytes, root, team_sem); break;
    case plan::bcast_flat: bcast_push(f, d, s, bytes, root, true, team_sem); break;
    case plan::bcast_pull: bcast_pull(f, d, s, bytes, root, team_sem); break;
    case plan::bcast_chain: return bcast_chain(f, d, s, bytes, root, team_sem);
    case plan::bcast_central_tree: return bcast_central_tree(f, d, s, bytes, root, team_sem);
    default: bcast_push(f, d, s, bytes, root, false, team_sem); break;
    }
    group_sync(f);
}

} // namespace ushmem::core::coll
