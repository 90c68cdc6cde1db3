// Teams: the slot pool, the predefined teams, their set-up at init and destroy; the pool's side of
// a split (team_split.cpp runs the split, a collective). See team.hpp for the model.
#include "core/team.hpp"

#include "core/env.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstring>

namespace ushmem::core {

team team_world;
team team_shared;

namespace {
constexpr std::size_t line = 64;
// The counters, and (SHMEM_DEBUG only: every PE must set it alike) the records of the collective
// argument check, 4.4 KiB per slot that a run without the check does not reserve.
constexpr std::size_t ctr_bytes_plain = ctr::check_offset(0, 0);
static_assert(ctr_bytes_plain % 64 == 0);

struct pool_layout {
    int nslots = 0;
    std::size_t mask_words = 0;  // 64 slots per word
    std::size_t args_bytes = 0;  // two masks (source and result of the slot agreement) + 1 word
    std::size_t scratch = 0;
    std::size_t ctr_bytes = 0;   // counters (+ check records under SHMEM_DEBUG)
    std::size_t mbox_bytes = ctr::mbox_slots * ctr::mbox_payload;
    std::size_t slot_bytes = 0;
    std::size_t world_scratch = 0;  // SHMEM_TEAM_WORLD's own scratch, after the slots (0: its slot's)
};

pool_layout layout_of(const settings &cfg) {
    pool_layout l;
    l.nslots = int(cfg.max_teams);  // 2 to 2^20 (env_defs.h, checked at load)
    l.mask_words = (std::size_t(l.nslots) + 63) / 64 + 1;  // + the contention word
    l.args_bytes = (2 * l.mask_words * 8 + line - 1) / line * line;
    // At least 4K (USHMEM_TEAM_SCRATCH's range, env_defs.h): the collectives split it in quarters.
    l.scratch = (cfg.team_scratch + line - 1) / line * line;
    l.ctr_bytes = cfg.debug ? ctr::team_bytes : ctr_bytes_plain;
    l.slot_bytes = l.ctr_bytes + l.args_bytes + l.mbox_bytes + l.scratch;
    // The world team's reductions and scans chunk their data through scratch: each chunk costs an
    // exchange, and over the network an exchange costs a round trip's worth of system calls and
    // wake-ups whatever its size (4 PEs over tcp, 64 KiB reduction: 2.5 ms through 32 KiB of
    // scratch, 0.14 ms through 1 MiB). Other teams keep USHMEM_TEAM_SCRATCH: there may be many.
    l.world_scratch = cfg.world_scratch > l.scratch ? cfg.world_scratch : 0;  // nothing follows it: no rounding
    return l;
}

struct pool_state {
    pool_layout l;
    char *base = nullptr;
    std::vector<std::uint64_t> used;  // slots of teams this PE belongs to
    std::vector<std::uint64_t> seen;  // nslots * ctr::count consumed-signal counts
    std::mutex lock;                  // used, live
    std::vector<team *> live;         // split teams not destroyed yet (invalidated at finalize)
    std::atomic<bool> token{false};   // held by the split that offers this PE's free slots
} g;

void setup(team &t, int slot, std::vector<int> members, int num_contexts) {
    t.slot = slot;
    t.n = int(members.size());
    t.members = std::move(members);
    t.num_contexts = num_contexts;
    t.gather_epoch = 0;
    t.sent_from.reset(t.members.size());
    t.direct[0] = t.direct[1] = -1;
    t.sync_plan = -1;  // the collectives' cached choices (coll/select.cpp, coll/node.cpp)
    t.nodes = -1;
    t.strided = true;
    t.start = t.members[0];
    t.stride = t.n > 1 ? t.members[1] - t.members[0] : 1;
    if (t.n > 1 && t.stride == 0) t.strided = false;
    for (int r = 2; r < t.n && t.strided; ++r)
        if (t.members[std::size_t(r)] - t.members[std::size_t(r - 1)] != t.stride) t.strided = false;
    t.by_world.clear();
    if (!t.strided) {
        for (int r = 0; r < t.n; ++r) t.by_world.emplace_back(t.members[std::size_t(r)], r);
        std::sort(t.by_world.begin(), t.by_world.end());
    }
    t.me = t.rank_of(rt.me);
    char *s = g.base + std::size_t(slot) * g.l.slot_bytes;
    t.ctr = s;
    t.args = reinterpret_cast<std::uint64_t *>(s + g.l.ctr_bytes);
    t.mbox = s + g.l.ctr_bytes + g.l.args_bytes;
    t.scratch = t.mbox + g.l.mbox_bytes;
    t.scratch_bytes = g.l.scratch;
    if (slot == 0 && g.l.world_scratch) {
        t.scratch = g.base + std::size_t(g.l.nslots) * g.l.slot_bytes;
        t.scratch_bytes = g.l.world_scratch;
    }
    t.eager_calls = 0;
    t.eager_synced = 0;
    t.eager_owed = false;
    t.eager_seen.reset(t.members.size());
    t.eager_mid_calls = 0;
    t.eager_mid_last[0] = t.eager_mid_last[1] = 0;
    t.scratch_used = false;
}

} // namespace

int team::rank_of(int world) const {
    if (strided) {
        if (n == 1) return world == start ? 0 : -1;
        long d = long(world) - start;
        if (d % stride) return -1;
        long r = d / stride;
        return r >= 0 && r < n ? int(r) : -1;
    }
    auto it = std::lower_bound(by_world.begin(), by_world.end(), std::make_pair(world, -1));
    return it != by_world.end() && it->first == world ? it->second : -1;
}

std::uint64_t *slot_seen(int slot) { return g.seen.data() + std::size_t(slot) * ctr::count; }

std::size_t team_pool_bytes(const settings &cfg) {
    pool_layout l = layout_of(cfg);
    // The slots cannot wrap (preflight bounds USHMEM_TEAM_SCRATCH); the world scratch may be as
    // large as a size parses to: SIZE_MAX says the sum does not fit.
    const std::size_t slots = std::size_t(l.nslots) * l.slot_bytes + 4096;  // + alignment slack
    return l.world_scratch > SIZE_MAX - slots ? SIZE_MAX : slots + l.world_scratch;
}

void team_init(const char *routine) {
    g.l = layout_of(rt.cfg);
    std::size_t bytes = std::size_t(g.l.nslots) * g.l.slot_bytes + g.l.world_scratch;
    auto off = rt.heap.allocate(bytes, 4096);
    if (!off)
        fatal(routine, "cannot reserve %zu bytes of symmetric heap for %d teams (USHMEM_MAX_TEAMS) of "
                       "%zu bytes scratch (USHMEM_TEAM_SCRATCH), and %zu for SHMEM_TEAM_WORLD's (USHMEM_WORLD_SCRATCH)",
              bytes, g.l.nslots, g.l.scratch, g.l.world_scratch);
    g.base = reinterpret_cast<char *>(rt.seg[seg_heap].base + *off);
    std::memset(g.base, 0, bytes);
    g.used.assign((std::size_t(g.l.nslots) + 63) / 64, 0);
    g.used[0] = 3;  // SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED
    g.seen.assign(std::size_t(g.l.nslots) * ctr::count, 0);
    g.token.store(false);

    std::vector<int> world(std::size_t(rt.npes)), shared;
    for (int pe = 0; pe < rt.npes; ++pe) {
        world[std::size_t(pe)] = pe;
        if (rt.node_of[std::size_t(pe)] == rt.node_of[std::size_t(rt.me)]) shared.push_back(pe);
    }
    setup(team_world, 0, std::move(world), 0);
    team_world.predefined = true;
    setup(team_shared, 1, std::move(shared), 0);
    team_shared.predefined = true;
}

void team_finalize() {
    {
        // Teams the program did not destroy: their handles now report a destroyed team.
        std::lock_guard<std::mutex> lk(g.lock);
        for (team *t : g.live) t->slot = -1;
        g.live.clear();
    }
    for (team *t : {&team_world, &team_shared}) {
        t->slot = -1;
        t->n = 0;
        t->me = -1;
        t->members.clear();
        t->by_world.clear();
        t->sent_from.release();
        t->eager_seen.release();
        t->ctr = nullptr;
        t->args = nullptr;
        t->scratch = nullptr;
    }
    g.base = nullptr;
    g.used.clear();
    g.seen.clear();
}


// ---- the slot pool's side of a split (team.hpp; team_split.cpp agrees on the slots) ------------

std::size_t slot_mask_words() { return g.l.mask_words; }
int slot_count() { return g.l.nslots; }

bool offer_free_slots(std::uint64_t *src) {
    const std::size_t w = g.l.mask_words;
    const bool mine = !g.token.exchange(true, std::memory_order_acquire);
    if (mine) {
        std::lock_guard<std::mutex> lk(g.lock);
        for (std::size_t i = 0; i + 1 < w; ++i) src[i] = ~g.used[i];
        if (g.l.nslots % 64) src[w - 2] &= (std::uint64_t(1) << (g.l.nslots % 64)) - 1;
        src[w - 1] = ~std::uint64_t(0);  // not contended
    } else {
        std::fill(src, src + w, std::uint64_t(0));
    }
    return mine;
}

void keep_slots(const int *slots, const bool *keep, int k) {
    std::lock_guard<std::mutex> lk(g.lock);
    for (int i = 0; i < k; ++i)
        if (keep[i]) g.used[std::size_t(slots[i]) / 64] |= std::uint64_t(1) << (slots[i] % 64);
}

void release_slot_token() { g.token.store(false, std::memory_order_release); }

team *new_team(int slot, std::vector<int> members, int num_contexts) {
    team *t = new team;
    setup(*t, slot, std::move(members), num_contexts);
    std::lock_guard<std::mutex> lk(g.lock);
    g.live.push_back(t);
    return t;
}

void team_destroy(const char *routine, team *t) {
    if (!t) return;
    if (t->predefined) {
        error(routine, "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed; ignored");
        return;
    }
    // No synchronisation is needed: every signal a collective sends is consumed within it, so
    // nothing is in flight to this slot once this PE has left the team's last collective, and no
    // member can take the slot for a new team before this PE has destroyed this one (the slot
    // stays marked used here until then). Counters and consumed counts go back to zero, as the
    // next team's members (and their plain-store signals, see team::sent_from) expect.
    std::memset(t->ctr, 0, g.l.ctr_bytes);
    std::fill(slot_seen(t->slot), slot_seen(t->slot) + ctr::count, std::uint64_t(0));
    {
        std::lock_guard<std::mutex> lk(g.lock);
        g.used[std::size_t(t->slot) / 64] &= ~(std::uint64_t(1) << (t->slot % 64));
        g.live.erase(std::remove(g.live.begin(), g.live.end(), t), g.live.end());
    }
    delete t;
}

} // namespace ushmem::core
