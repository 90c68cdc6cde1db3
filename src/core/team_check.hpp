// Checks of the arguments of team splits (core/team.cpp), kept apart from the split itself.
#pragma once

#include "core/team.hpp"

#include <string>

namespace ushmem::core {

// Why (start, stride, size) names no PEs of a parent team of `n` PEs, "" when it is valid.
std::string split_triplet_problem(int n, int start, int stride, int size);

// SHMEM_DEBUG: every PE of `parent` must call the same split with the same arguments (start,
// stride, size for shmem_team_split_strided; xrange for shmem_team_split_2d, the others 0), or
// some get a team and others SHMEM_TEAM_INVALID, and the team's first collective hangs.
// Collective over `parent` (a reduction over its argument area, before the split uses it); when
// they differ, every PE that passed other values than the parent team's PE 0 says what it
// passed, PE 0 says what it passed, and the job ends.
enum class split_kind : int { strided = 1, two_d = 2 };
void check_split_args(const char *routine, team &parent, split_kind kind, int a, int b = 0, int c = 0);

} // namespace ushmem::core
