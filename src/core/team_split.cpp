// Team splits (team.hpp): collective over the parent team, which agrees on free slots with a
// reduction (coll/), then sets the new teams up in the pool (team.cpp).
#include "core/team.hpp"

#include "core/env.hpp"
#include "core/log.hpp"
#include "core/team_check.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ushmem::core {

namespace {
void and_u64(void *acc, const void *x, std::size_t n) {
    auto *a = static_cast<std::uint64_t *>(acc);
    auto *b = static_cast<const std::uint64_t *>(x);
    for (std::size_t i = 0; i < n; ++i) a[i] &= b[i];
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
    const std::size_t w = slot_mask_words();
    std::uint64_t *src = parent.args, *res = parent.args + w;
    const reduce_op op{8, and_u64};
    for (unsigned attempt = 0;; ++attempt) {
        const bool mine = offer_free_slots(src);
        reduce(routine, parent, res, src, w, op);
        bool contended = res[w - 1] == 0;
        int got = 0;
        for (int i = 0; i < slot_count() && got < k; ++i)
            if ((res[std::size_t(i) / 64] >> (i % 64)) & 1) slots[got++] = i;
        if (got == k) {  // every PE offered its slots: this split holds every token
            keep_slots(slots, keep, k);
            release_slot_token();
            return true;
        }
        if (mine) release_slot_token();
        if (!contended) {
            error_if(parent.me == 0, routine,
                     "cannot create the team%s: fewer than %d of the %d team slots (USHMEM_MAX_TEAMS, "
                     "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED included) are free on every PE of the "
                     "parent team; destroy teams that are no longer needed with shmem_team_destroy, "
                     "or raise USHMEM_MAX_TEAMS; returning nonzero and SHMEM_TEAM_INVALID",
                     k > 1 ? "s" : "", k, slot_count());
            return false;
        }
        for (unsigned i = 0; i < (1u << std::min(attempt, 10u)); ++i) sched_yield();
    }
}
} // namespace

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
    *out = new_team(slot, std::move(m), num_contexts);
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
    *xout = new_team(slots[0], std::move(xm), x_contexts);
    *yout = new_team(slots[1], std::move(ym), y_contexts);
    return 0;
}

} // namespace ushmem::core
