// ushmem core: teams and the one-sided collectives (team.cpp, coll/).
//
// Symmetric resources. Every team owns one slot of a pool that is allocated at init, at the same
// heap offset on every PE (USHMEM_MAX_TEAMS slots). A slot holds the team's signal counters (one
// per 64-byte line), a small argument area, and USHMEM_TEAM_SCRATCH bytes of scratch. The members
// of a new team agree on its slot inside the split, which is collective over the parent team: an
// AND reduction of every parent member's free-slot mask (over the parent's own slot) gives the
// slots free on all of them, and the lowest is taken. SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED own
// slots 0 and 1.
//
// Signalling model. All synchronisation is counting: a signal is a one-sided atomic add to a
// counter of the target (a CPU atomic through the direct mapping on the node, a UCX atomic
// otherwise), and a PE waiting for k signals waits until its counter reaches the number it has
// consumed so far plus k (the consumed numbers are kept locally, per slot). Every signal sent
// within a collective is consumed by its target within the same collective, so counters never need
// resetting, a slot can be handed to a new team as it is, and a team can be destroyed without
// synchronisation. The active-set (legacy) collectives use the same code with the user's pSync as
// the counters: they start from zero and give back exactly what they consumed before returning,
// which restores pSync to SHMEM_SYNC_VALUE as the specification requires.
#pragma once

#include "core/context.hpp"
#include "core/env.hpp"
#include "core/peers.hpp"
#include "core/runtime.hpp"
#include "util/lazy_array.hpp"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace ushmem::core {

// Counters. Team slots have them at fixed offsets (the hot ones one per cache line); the
// active-set collectives map them onto the words of the user's pSync array. Two kinds:
//  - single-sender: only one PE ever signals it in a team (a fixed partner), so the counts of
//    consecutive collectives cannot mix;
//  - `from(s)`: one counter per sender rank (teams up to max_from PEs), for the patterns where
//    the sender varies from call to call (the root of a broadcast, every PE in a gather): a PE
//    may already be in the next collective while another has not sent this one's signal yet.
//    pSync arrays may only be reused once the previous collective completed everywhere (except
//    by consecutive barriers, which use only single-sender counters), so there every from(s)
//    is the same word.
//  - `done`, `relay`: several senders, but only in patterns where nobody can send the next
//    collective's signal before the receiver has consumed this one's.
namespace ctr {
constexpr int bar_rounds = 32;  // dissemination rounds
constexpr int max_from = 64;    // per-sender counters
constexpr int max_regions = 25; // chunk regions of recursive doubling / Hillis-Steele
constexpr int bar(int r) { return r; }
constexpr int from(int s) { return bar_rounds + s; }
constexpr int done = bar_rounds + max_from;  // 96
constexpr int tree = done + 1;     // fixed broadcast tree of large teams: from the parent
constexpr int relay = done + 2;    // large teams: the root's data to rank 0
constexpr int value = done + 3;    // mailbox carrying a value (collect offsets chain)
constexpr int result = done + 4;   // recursive doubling: the result sent to a folded PE
constexpr int ring = done + 5;     // ring collect: from the previous PE
constexpr int hot = done + 6;      // ids below this have a cache line each in a team slot
constexpr int rd_data(int k) { return hot + 2 * k; }
constexpr int rd_ack(int k) { return hot + 2 * k + 1; }
constexpr int hs_data(int k) { return hot + 2 * max_regions + 2 * k; }
constexpr int hs_ack(int k) { return hot + 2 * max_regions + 2 * k + 1; }
// SHMEM_DEBUG argument check of team collectives (coll/check.cpp, check_team_args): a dissemination
// min/max exchange of a few words, round r from the fixed partner me - 2^r (single-sender), into
// a record area after the counters (two parities, like the gather region). Teams only: never
// mapped onto a pSync.
constexpr int check_rounds = 20;  // teams up to 2^20 PEs
constexpr int check_fields = 7;   // see coll/check.cpp: what is compared
constexpr int check(int r) { return hot + 4 * max_regions + r; }
// Eager broadcast of small messages (coll/broadcast.cpp, bcast_eager): a ring of mailbox slots in
// every member's team slot; slot k's arrivals, and the eager broadcasts this PE has completed
// (written by its owner only, read by roots that must know a slot is free again). Teams only.
constexpr int mbox_slots = 32;
constexpr std::size_t mbox_payload = 128;  // bytes per mailbox slot: the largest eager broadcast
constexpr int mbox(int k) { return check(check_rounds) + k; }
constexpr int mbox_done = mbox(mbox_slots);
constexpr int count = mbox_done + 1;
// Byte offset of counter `id` in a team slot.
constexpr std::size_t team_offset(int id) {
    return id < hot ? std::size_t(id) * 64 : std::size_t(hot) * 64 + std::size_t(id - hot) * 8;
}
constexpr std::size_t check_record = 2 * check_fields * 8;  // minima, then maxima
constexpr std::size_t check_offset(int parity, int round) {
    return (team_offset(count) + 63) / 64 * 64 + (std::size_t(parity) * check_rounds + std::size_t(round)) * check_record;
}
constexpr std::size_t team_bytes = (check_offset(2, 0) + 63) / 64 * 64;
// Word of counter `id` in a pSync array (ids below check(0) only).
constexpr int psync_word(int id) {
    return id < bar_rounds ? id
           : id < done     ? bar_rounds
           : id < hot      ? bar_rounds + 1 + (id - done)
           : id < hs_data(0) ? 40 + (id - hot)
                             : 40 + (id - hs_data(0));
}
// The counters, then the words of the SHMEM_DEBUG check of active-set collectives (coll/check.cpp,
// check_as_args): an arrival count and sums of what every member passed. SHMEM_*_SYNC_SIZE
// (96) covers both (asserted in api/coll.cpp).
constexpr std::size_t psync_counter_words = 40 + 2 * max_regions;
constexpr std::size_t psync_check_words = 6;
constexpr std::size_t psync_words = psync_counter_words + psync_check_words;
} // namespace ctr

struct team {
    int slot = -1;
    int n = 0;            // size
    int me = -1;          // this PE's number in the team
    bool strided = true;  // world PE of rank r = start + stride * r
    int start = 0, stride = 1;
    std::vector<int> members;                  // world PE of every rank
    std::vector<std::pair<int, int>> by_world;  // (world PE, rank), sorted: for non-strided teams
    int num_contexts = 0;
    bool predefined = false;
    char *ctr = nullptr;               // the slot's counters (symmetric), see ctr::team_offset
    std::uint64_t *args = nullptr;     // the slot's argument area (symmetric), 2 * mask words
    char *scratch = nullptr;           // the slot's scratch (symmetric)
    std::size_t scratch_bytes = 0;     // its size (SHMEM_TEAM_WORLD's: USHMEM_WORLD_SCRATCH)
    char *mbox = nullptr;              // the slot's eager-broadcast mailboxes (symmetric), ctr::mbox_slots
    std::uint64_t eager_calls = 0;     // eager broadcasts entered on this team
    bool eager_owed = false;           // some ended without knowing every member entered (bcast_eager)
    // Per rank: eager broadcasts it is known to have completed. Lazy (util/lazy_array.hpp), as
    // sent_from: zero until this PE first counts that rank's, a page of ranks at a time.
    util::lazy_array<std::uint64_t> eager_seen;
    std::uint64_t eager_synced = 0;    // eager broadcasts every member completed: those before the last sync
    // Eager broadcasts larger than a mailbox (coll/broadcast.cpp): their data goes to one of the two
    // halves of the scratch, in turn; the eager call that last used each half, + 1 (0: none yet).
    std::uint64_t eager_mid_calls = 0;
    std::uint64_t eager_mid_last[2] = {0, 0};
    // A collective that may use the scratch (anything but a sync or an eager broadcast) ran since
    // the last sync: a member may still read its scratch, so the next eager broadcast through the
    // scratch syncs first.
    bool scratch_used = false;
    std::uint64_t calls = 0;           // collective frames entered on this team (coll_entry_word)
    std::uint64_t gather_epoch = 0;    // gather exchanges through scratch so far (their parity)
    // Signals this PE sent to rank r's from(me) counter, which nobody else writes: a direct signal
    // there is a plain store of the count, not an atomic add (the sender does not wait for the
    // line). Counters and counts start from zero with the team: a destroyed team's slot is zeroed.
    util::lazy_array<std::uint64_t> sent_from;
    std::int8_t direct[seg_count] = {-1, -1};  // every member reached directly? (-1: not known)
    std::int8_t sync_plan = -1;  // the sync the selection table picks for it (coll/select.cpp; -1: not yet)
    // Node structure (coll/node.cpp), worked out at first use from rt.node_of: the members grouped
    // by node, nodes in the order of their lowest rank, ranks ascending within a node.
    int nodes = -1;                      // distinct nodes among the members (-1: not known yet)
    std::vector<int> node_index;         // node of every rank
    std::vector<int> node_first;         // node k's ranks: node_ranks[node_first[k] .. node_first[k + 1])
    std::vector<int> node_ranks;

    int world_pe(int r) const { return strided ? start + stride * r : members[std::size_t(r)]; }
    int rank_of(int world) const;  // -1 when not a member
};

// Algorithm overrides (USHMEM_*_ALGO), parsed at init (coll_init; coll/select.cpp).
enum class algo : std::uint8_t {
    automatic, flat, central, dissemination, binomial, tree, pull, gather, scatter, rd, ring, read, hs, eager, rsag, chain, node
};
struct coll_settings {
    algo barrier = algo::automatic, bcast = algo::automatic, reduce = algo::automatic, collect = algo::automatic,
         scan = algo::automatic;
};
extern coll_settings coll_cfg;

// The predefined teams, set up at init.
extern team team_world;
extern team team_shared;

// ---- pool and lifecycle (team.cpp; the splits: team_split.cpp) ----------------------------------------------------------
std::size_t team_pool_bytes(const settings &cfg);  // symmetric bytes the pool adds to the heap
void team_init(const char *routine);                // allocate the pool, set up the predefined teams
void team_finalize();

// Team creation, collective over `parent`. Returns 0 on every parent PE on success, with *out the
// new team on its members and nullptr elsewhere; nonzero on every parent PE when the triplet is
// invalid or no slot is free on all parent PEs (*out = nullptr).
int team_split_strided(const char *routine, team &parent, int start, int stride, int size,
                       int num_contexts, team **out);
int team_split_2d(const char *routine, team &parent, int xrange, int x_contexts, int y_contexts,
                  team **xout, team **yout);
void team_destroy(const char *routine, team *t);

// The slot pool's side of a split (team.cpp; team_split.cpp calls them). A split that holds this
// PE's token offers its free slots (the others offer none, so that the AND over the parent is
// empty and they try again); a slot is kept (marked used) before the token is given back.
std::size_t slot_mask_words();  // words of a slot mask: one bit per slot, and the contention word
int slot_count();               // USHMEM_MAX_TEAMS
// Takes the token if free: the free slots in src (slot_mask_words words, the last all ones: not
// contended) and true; otherwise zeros and false.
bool offer_free_slots(std::uint64_t *src);
void keep_slots(const int *slots, const bool *keep, int k);  // slots[i] marked used where keep[i]
void release_slot_token();
// A new team in `slot` with these members (world PE numbers), listed live until destroyed.
team *new_team(int slot, std::vector<int> members, int num_contexts);

// ---- collectives (coll/) -----------------------------------------------------------------
// acc[i] = acc[i] OP x[i] for i < n elements; elem is the element size in bytes.
using combine_fn = void (*)(void *acc, const void *x, std::size_t n);
struct reduce_op {
    std::size_t elem;
    combine_fn combine;
};

// Team-based (1.5/1.6). The caller has checked that the library runs and the team is valid.
void team_sync(const char *routine, team &t);
void broadcast(const char *routine, team &t, void *dest, const void *src, std::size_t bytes, int root);
void fcollect(const char *routine, team &t, void *dest, const void *src, std::size_t bytes);
void collect(const char *routine, team &t, void *dest, const void *src, std::size_t bytes);
void alltoall(const char *routine, team &t, void *dest, const void *src, std::size_t bytes);
void alltoalls(const char *routine, team &t, void *dest, const void *src, std::ptrdiff_t dst,
               std::ptrdiff_t sst, std::size_t nelems, std::size_t elem);
void reduce(const char *routine, team &t, void *dest, const void *src, std::size_t nelems, reduce_op op);
void scan(const char *routine, team &t, void *dest, const void *src, std::size_t nelems, reduce_op op,
          bool inclusive);
// The world reduction of a collective memory call's heap check (memory.cpp, heap_sync): a reduce
// that SHMEM_DEBUG's argument check treats as one collective whichever memory routine calls it.
void heap_check_reduce(const char *routine, void *dest, const void *src, std::size_t nelems, reduce_op op);

// Active-set-based (deprecated forms): PE_start, 2^logPE_stride, PE_size, and the user's pSync.
struct active_set {
    int start, log_stride, size;
};
void barrier_as(const char *routine, active_set as, long *psync, bool with_quiet);
void broadcast_as(const char *routine, active_set as, void *dest, const void *src, std::size_t bytes,
                  int root, long *psync);
void fcollect_as(const char *routine, active_set as, void *dest, const void *src, std::size_t bytes,
                 long *psync);
void collect_as(const char *routine, active_set as, void *dest, const void *src, std::size_t bytes,
                long *psync);
void alltoall_as(const char *routine, active_set as, void *dest, const void *src, std::size_t bytes,
                 long *psync);
void alltoalls_as(const char *routine, active_set as, void *dest, const void *src, std::ptrdiff_t dst,
                  std::ptrdiff_t sst, std::size_t nelems, std::size_t elem, long *psync);
// pwrk: pWrk, pwrk_bytes: its size (max(nreduce / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements).
void reduce_as(const char *routine, active_set as, void *dest, const void *src, std::size_t nelems,
               reduce_op op, void *pwrk, std::size_t pwrk_bytes, long *psync);

// ---- shared between team.cpp and coll/ --------------------------------------------------
std::uint64_t *slot_seen(int slot);   // the consumed-signal counts of a slot (local memory; team.cpp)
bool oversubscribed();                // some node has more PEs than CPUs (the same on every PE; coll/select.cpp)

// ---- the collectives' lifecycle (coll/entry.cpp; init calls it before team_init, finalize before
// team_finalize) -------------------------------------------------------------------------------
// The USHMEM_*_ALGO overrides parsed (coll_cfg), cached choices forgotten; the collectives'
// context set up.
void coll_init(const char *routine);
void coll_select_init(const char *routine);  // (coll/select.cpp: coll_init's part of it)
// The collectives' context completed and released.
void coll_finalize();

// The world barrier behind shmem_barrier_all / shmem_sync_all and the memory routines.
void world_sync(const char *routine);

} // namespace ushmem::core
