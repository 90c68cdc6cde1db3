// Barriers and syncs, and the flat exchanges the other families share (coll.hpp).
#include "core/coll/coll.hpp"

namespace ushmem::core::coll {

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

// Synchronisation of the whole group, as the selection table says (select.cpp). Flat: every member
// signals every other one on a counter of its own (one round instead of log2(n)); central: gather
// to rank 0 and release; dissemination: log2(n) rounds. The per-sender counters of a team are its
// from(s); an active set uses its barrier words (single-sender, so the same pSync may serve
// consecutive barriers).
int flat_id(const frame &f, int s) { return f.legacy() ? ctr::bar(s) : ctr::from(s); }

void await_flat(frame &f, int except) {
    for (int s = 0; s < f.n; ++s)
        if (s != except) wait_ctr(f, flat_id(f, s), 1);
}

void group_sync(frame &f) {
    const plan p = select_sync(f);
    if (p == plan::sync_dissemination) return dissemination(f);
    if (p == plan::sync_node) return sync_node(f);
    auto id = [&f](int s) { return flat_id(f, s); };
    if (p == plan::sync_central) {
        // Gather to rank 0, which releases the others (2 (n - 1) signals instead of n (n - 1)).
        // Rank 0 leaves first, which also lets whatever it does next (e.g. the root of a
        // broadcast) start while the others are still being scheduled.
        if (f.me == 0) {
            await_flat(f, 0);
            for (int k = 1; k < f.n; ++k) signal(f, k, id(0));
        } else {
            signal(f, 0, id(f.me));
            wait_ctr(f, id(0), 1);
        }
        return;
    }
    const int mine = id(f.me);
    for (int k = 1; k < f.n; ++k) signal(f, (f.me + k) % f.n, mine);
    await_flat(f, f.me);
}

// Every member's `bytes` bytes of `mine` into this member's gather region (teams, n <= max_from),
// rank r's at r * bytes; returns the region. `upward`: only higher ranks need the data (the others
// get the signal alone, which keeps the exchange all-to-all: see the parity argument in
// docs/collectives.md).
char *gather(frame &f, const void *mine, std::size_t bytes, bool upward) {
    char *buf = gather_region(f);
    std::memcpy(buf + std::size_t(f.me) * bytes, mine, bytes);
    for (int k = 1; k < f.n; ++k) {
        int j = (f.me + k) % f.n;
        put_signal(f, j, buf + std::size_t(f.me) * bytes, mine, (upward && j < f.me) ? 0 : bytes,
                   ctr::from(f.me));
    }
    flat_exchange_wait(f);
    return buf;
}

char *gather_to_root(frame &f, const void *mine, std::size_t bytes) {
    char *buf = gather_region(f);
    if (f.me != 0) {
        put_signal(f, 0, buf + std::size_t(f.me) * bytes, mine, bytes, ctr::from(f.me));
        return nullptr;
    }
    std::memcpy(buf, mine, bytes);
    for (int s = 1; s < f.n; ++s) wait_ctr(f, ctr::from(s), 1);
    return buf;
}

void central_wait(frame &f) { wait_ctr(f, ctr::from(0), 1); }

} // namespace ushmem::core::coll
