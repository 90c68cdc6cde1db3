// Non-blocking completion tests and deadlines for collectives: what the timed waits of the C++
// API (event::wait(timeout), barrier(timeout), ...) are built on, through the shmemx_ extensions.
#pragma once

#include "core/context.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"

namespace ushmem::core {

// ---- per-PE completion test (timed.cpp) ------------------------------------------------------
// pe_quiet without blocking: true when every operation issued on `c` to `pe` is complete (it is
// then quieted as pe_quiet would); false otherwise, after progressing the transport once. A flush
// of the PE's endpoint is started on the first call and tested, never waited for, by later ones.
// Direct (same-node load/store) PEs complete at once, after a store fence.
bool pe_test(const char *routine, context &c, int pe);

// ---- deadlines for team collectives (core/coll/entry.cpp) -----------------------------------------------
// While a deadline is set (per thread), a team collective whose wait passes it gives up and
// returns; coll_deadline_end() then says so. The team's collective state is then undefined (some
// members may have counted this PE's signals): the team must not be used for collectives again.
void coll_deadline_begin(double seconds_from_now);
// True when a collective gave up since coll_deadline_begin; clears the deadline.
bool coll_deadline_end();

} // namespace ushmem::core
