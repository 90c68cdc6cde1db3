// Checks of team split arguments (team_check.hpp).
#include "core/team_check.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/agree.hpp"
#include "core/log.hpp"

#include <algorithm>
#include <cstdio>

namespace ushmem::core {

std::string split_triplet_problem(int n, int start, int stride, int size) {
    char buf[320];
    const long long last = (long long)start + (long long)stride * (size - 1);
    if (size <= 0)
        std::snprintf(buf, sizeof buf, "size %d is not positive", size);
    else if (start < 0 || start >= n)
        std::snprintf(buf, sizeof buf, "start %d is not a PE number of the parent team (0 to %d)", start, n - 1);
    else if (stride == 0 && size > 1)
        std::snprintf(buf, sizeof buf, "stride 0 names the same PE %d times (stride 0 is valid with size 1 only)",
                      size);
    else if (last < 0 || last >= n)
        std::snprintf(buf, sizeof buf,
                      "its last PE, start + stride * (size - 1) = %d + %d * %d = %lld, is not a PE number of "
                      "the parent team (0 to %d)",
                      start, stride, size - 1, last, n - 1);
    else
        return {};
    return buf;
}

namespace {
// The arguments, packed in two words (compared whole).
struct packed {
    std::uint64_t w[2];
};
packed pack(split_kind kind, int a, int b, int c) {
    return {{std::uint64_t(kind) << 32 | std::uint32_t(a), std::uint64_t(std::uint32_t(b)) << 32 | std::uint32_t(c)}};
}
std::string describe(const packed &p) {
    const int kind = int(p.w[0] >> 32), a = int(std::uint32_t(p.w[0])), b = int(p.w[1] >> 32),
              c = int(std::uint32_t(p.w[1]));
    char buf[160];
    if (kind == int(split_kind::two_d)) std::snprintf(buf, sizeof buf, "shmem_team_split_2d with xrange %d", a);
    else std::snprintf(buf, sizeof buf, "shmem_team_split_strided with start %d, stride %d, size %d", a, b, c);
    return buf;
}
} // namespace

void check_split_args(const char *routine, team &parent, split_kind kind, int a, int b, int c) {
    if (parent.n == 1) return;
    // The parent's argument area (at least 8 words; agree_slots uses it after this): the
    // arguments and their complements in, their minima out (min == ~min(~x): all equal).
    std::uint64_t *w = parent.args;
    const packed mine = pack(kind, a, b, c);
    w[0] = mine.w[0];
    w[1] = mine.w[1];
    w[2] = ~mine.w[0];
    w[3] = ~mine.w[1];
    reduce(routine, parent, w + 4, w, 4, reduce_op{8, min_u64_combine});
    if (w[4] == ~w[6] && w[5] == ~w[7]) return;
    // They differ: PE 0 of the parent gives its arguments to every member, and each one that
    // passed others names itself.
    broadcast(routine, parent, w + 4, w, 2 * sizeof(std::uint64_t), 0);
    const packed first{{w[4], w[5]}};
    if (parent.me == 0)
        error(routine,
              "team split arguments differ between the %d PEs of the parent team: this PE (PE 0 of the "
              "parent team) called %s; the PEs that called it otherwise say so. Every PE of the parent "
              "team must call the same split with the same arguments, or some PEs get a team and "
              "others SHMEM_TEAM_INVALID and the new team's first collective hangs (checked because "
              "SHMEM_DEBUG is set)",
              parent.n, describe(mine).c_str());
    else if (first.w[0] != mine.w[0] || first.w[1] != mine.w[1])
        error(routine,
              "team split arguments differ between the PEs of the parent team: this PE (PE %d of the "
              "parent team) called %s, PE 0 of the parent team (world PE %d) called %s (checked because "
              "SHMEM_DEBUG is set)",
              parent.me, describe(mine).c_str(), parent.world_pe(0), describe(first).c_str());
    // Every message is out before the job ends.
    team_sync(routine, parent);
    bootstrap::abort_job(1);
}

} // namespace ushmem::core
