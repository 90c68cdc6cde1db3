// Teams: the slot pool, the predefined teams, splits and destroy. See team.hpp for the model.
#include "core/team.hpp"
#include "bootstrap/bootstrap.hpp"

#include "core/env.hpp"
#include "core/log.hpp"
#include "core/ordering.hpp"
#include "core/peers.hpp"
#include "core/team_check.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstring>

namespace ushmem::core {

team team_world;
team team_shared;
coll_settings coll_cfg;

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
    bool oversub = false;
} g;

void and_u64(void *acc, const void *x, std::size_t n) {
    auto *a = static_cast<std::uint64_t *>(acc);
    auto *b = static_cast<const std::uint64_t *>(x);
    for (std::size_t i = 0; i < n; ++i) a[i] &= b[i];
}

void setup(team &t, int slot, std::vector<int> members, int num_contexts) {
    t.slot = slot;
    t.n = int(members.size());
    t.members = std::move(members);
    t.num_contexts = num_contexts;
    t.gather_epoch = 0;
    t.sent_from.assign(t.members.size(), 0);
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
    t.eager_seen.assign(t.members.size(), 0);
    t.eager_mid_calls = 0;
    t.eager_mid_last[0] = t.eager_mid_last[1] = 0;
    t.scratch_used = false;
}

// Agree with the other PEs of `parent` on `k` slots free on all of them (collective over parent);
// this PE keeps (marks used) slot i when keep[i]. Returns false on every parent PE when there are
// not k such slots.
//
// Splits of different parents may run at once in different threads. Only the split holding this
// PE's token offers its free slots; another one offers none (and says so in the contention
// word), which makes the AND empty on every PE of its parent, and they all try again. A slot is
// marked used before the token is given back, so two splits never take the same slot here.
bool agree_slots(const char *routine, team &parent, int k, int *slots, const bool *keep) {
    const std::size_t w = g.l.mask_words;
    std::uint64_t *src = parent.args, *res = parent.args + w;
    const reduce_op op{8, and_u64};
    for (unsigned attempt = 0;; ++attempt) {
        bool mine = !g.token.exchange(true, std::memory_order_acquire);
        if (mine) {
            std::lock_guard<std::mutex> lk(g.lock);
            for (std::size_t i = 0; i + 1 < w; ++i) src[i] = ~g.used[i];
            if (g.l.nslots % 64) src[w - 2] &= (std::uint64_t(1) << (g.l.nslots % 64)) - 1;
            src[w - 1] = ~std::uint64_t(0);  // not contended
        } else {
            std::fill(src, src + w, std::uint64_t(0));
        }
        reduce(routine, parent, res, src, w, op);
        bool contended = res[w - 1] == 0;
        int got = 0;
        for (int i = 0; i < g.l.nslots && got < k; ++i)
            if ((res[std::size_t(i) / 64] >> (i % 64)) & 1) slots[got++] = i;
        if (got == k) {  // every PE offered its slots: this split holds every token
            {
                std::lock_guard<std::mutex> lk(g.lock);
                for (int i = 0; i < k; ++i)
                    if (keep[i]) g.used[std::size_t(slots[i]) / 64] |= std::uint64_t(1) << (slots[i] % 64);
            }
            g.token.store(false, std::memory_order_release);
            return true;
        }
        if (mine) g.token.store(false, std::memory_order_release);
        if (!contended) {
            error_if(parent.me == 0, routine,
                     "cannot create the team%s: fewer than %d of the %d team slots (USHMEM_MAX_TEAMS, "
                     "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED included) are free on every PE of the "
                     "parent team; destroy teams that are no longer needed with shmem_team_destroy, "
                     "or raise USHMEM_MAX_TEAMS; returning nonzero and SHMEM_TEAM_INVALID",
                     k > 1 ? "s" : "", k, g.l.nslots);
            return false;
        }
        for (unsigned i = 0; i < (1u << std::min(attempt, 10u)); ++i) sched_yield();
    }
}

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
bool oversubscribed() { return g.oversub; }

std::size_t team_pool_bytes(const settings &cfg) {
    pool_layout l = layout_of(cfg);
    // The slots cannot wrap (preflight bounds USHMEM_TEAM_SCRATCH); the world scratch may be as
    // large as a size parses to: SIZE_MAX says the sum does not fit.
    const std::size_t slots = std::size_t(l.nslots) * l.slot_bytes + 4096;  // + alignment slack
    return l.world_scratch > SIZE_MAX - slots ? SIZE_MAX : slots + l.world_scratch;
}

void team_init(const char *routine) {
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
                                  {"scatter", algo::scatter}, {"rd", algo::rd}, {"central", algo::central}, {"rsag", algo::rsag}});
    coll_cfg.collect = parse_algo(routine, "USHMEM_COLLECT_ALGO", rt.cfg.collect_algo,
                                  {{"auto", algo::automatic}, {"flat", algo::flat}, {"ring", algo::ring},
                                   {"central", algo::central}, {"node", algo::node}});
    coll_cfg.scan = parse_algo(routine, "USHMEM_SCAN_ALGO", rt.cfg.scan_algo,
                               {{"auto", algo::automatic}, {"gather", algo::gather},
                                {"read", algo::read}, {"hs", algo::hs}});

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
    coll_context().reset(rt.npes, rt.thread_level == 3 /* SHMEM_THREAD_MULTIPLE */ || rt.progress_thread);

    int local = 0;
    std::vector<int> world(std::size_t(rt.npes)), shared;
    for (int pe = 0; pe < rt.npes; ++pe) {
        world[std::size_t(pe)] = pe;
        if (rt.node_of[std::size_t(pe)] == rt.node_of[std::size_t(rt.me)]) {
            shared.push_back(pe);
            ++local;
        }
    }
    // The same answer on every PE (a collective over the bootstrap): it picks the sync pattern, and
    // members that picked flat and central syncs would wait for each other forever. Nodes may
    // differ (a job across hosts of different sizes): then any node with more PEs than CPUs decides.
    coll_reset_choices();
    g.oversub = bootstrap::max_u64(rt.node_cpus > 0 && local > rt.node_cpus ? 1 : 0) != 0;
    setup(team_world, 0, std::move(world), 0);
    team_world.predefined = true;
    setup(team_shared, 1, std::move(shared), 0);
    team_shared.predefined = true;
}

void team_finalize() {
    quiet("shmem_finalize", coll_context());
    coll_context().reset(0, false);
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
        t->ctr = nullptr;
        t->args = nullptr;
        t->scratch = nullptr;
    }
    g.base = nullptr;
    g.used.clear();
    g.seen.clear();
}

int team_split_strided(const char *routine, team &parent, int start, int stride, int size,
                       int num_contexts, team **out) {
    *out = nullptr;
    if (rt.cfg.debug) check_split_args(routine, parent, split_kind::strided, start, stride, size);
    // Every parent PE passes the same triplet, so every one takes the same branch here (and keeps
    // the reason as its last error; PE 0 of the parent prints it).
    const std::string bad = split_triplet_problem(parent.n, start, stride, size);
    if (!bad.empty()) {
        error_if(parent.me == 0, routine,
                 "invalid PE triplet (start %d, stride %d, size %d) for a parent team of %d PEs: %s; "
                 "start and start + stride * (size - 1) must be PE numbers of the parent team (0 to "
                 "%d), size positive, and stride 0 only with size 1; returning nonzero and "
                 "SHMEM_TEAM_INVALID",
                 start, stride, size, parent.n, bad.c_str(), parent.n - 1);
        return 1;
    }
    std::vector<int> m(static_cast<std::size_t>(size));
    bool member = false;
    for (int i = 0; i < size; ++i) {
        int pr = start + stride * i;
        m[std::size_t(i)] = parent.world_pe(pr);
        if (pr == parent.me) member = true;
    }
    int slot;
    if (!agree_slots(routine, parent, 1, &slot, &member)) return 1;
    if (!member) return 0;
    team *t = new team;
    setup(*t, slot, std::move(m), num_contexts);
    {
        std::lock_guard<std::mutex> lk(g.lock);
        g.live.push_back(t);
    }
    *out = t;
    return 0;
}

int team_split_2d(const char *routine, team &parent, int xrange, int x_contexts, int y_contexts,
                  team **xout, team **yout) {
    *xout = *yout = nullptr;
    if (rt.cfg.debug) check_split_args(routine, parent, split_kind::two_d, xrange);
    if (xrange <= 0) {
        error_if(parent.me == 0, routine, "xrange %d is invalid: it must be positive; returning nonzero and "
                                          "SHMEM_TEAM_INVALID", xrange);
        return 1;
    }
    const int N = parent.n;
    if (xrange > N) xrange = N;
    int slots[2];
    const bool keep[2] = {true, true};
    if (!agree_slots(routine, parent, 2, slots, keep)) return 1;
    const int x = parent.me % xrange, y = parent.me / xrange;
    std::vector<int> xm, ym;
    for (int pr = y * xrange; pr < std::min(N, (y + 1) * xrange); ++pr) xm.push_back(parent.world_pe(pr));
    for (int pr = x; pr < N; pr += xrange) ym.push_back(parent.world_pe(pr));
    team *tx = new team, *ty = new team;
    setup(*tx, slots[0], std::move(xm), x_contexts);
    setup(*ty, slots[1], std::move(ym), y_contexts);
    {
        std::lock_guard<std::mutex> lk(g.lock);
        g.live.push_back(tx);
        g.live.push_back(ty);
    }
    *xout = tx;
    *yout = ty;
    return 0;
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
