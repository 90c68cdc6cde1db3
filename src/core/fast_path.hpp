// The gate of the C API's inline fast paths (api/api.hpp, fast_direct) and of the RMA and AMO
// entry points' cheap PE check (stats.hpp, check_pe_and_count): one word that every such call
// compares its target PE with. Open (the number of PEs), a call to a PE in range may copy directly
// without core's full path; closed (0), every call takes the full path (api/rma.cpp's put_full...),
// which validates the PE, counts the operation and wakes a sleeping target.
//
// Each reason to close it is named here, set once at init (runtime.cpp, stats.cpp, wait_policy.cpp) and never
// reopened while the library runs; none of them is a statistics switch in disguise:
//   counted  USHMEM_STATS: every operation is counted (stats.hpp);
//   checked  SHMEM_DEBUG: every call's arguments are checked;
//   wakes    the waiting policy makes direct writers wake sleeping targets (wait_policy.hpp,
//            g_wake_direct): the inline copy does not, the full path does (a correctness reason).
#pragma once

namespace ushmem::core {

// Read by the inline fast paths (one load, compare and branch): see above.
extern unsigned fast_pe_limit;

enum class fast_path_closer : unsigned { counted = 1, checked = 2, wakes = 4 };
// At init, before any closer: the gate open for `npes` PEs, no reason recorded.
void fast_path_start(int npes);
// Closes the gate for `why` (several reasons may close it; it stays closed until the next init).
void fast_path_close(fast_path_closer why);

} // namespace ushmem::core
