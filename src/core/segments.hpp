// Creating and removing the symmetric segments.
#pragma once

#include "core/mappings.hpp"
#include "core/runtime.hpp"

#include <sched.h>

namespace ushmem::core {

// The heap: UCX-allocated (sysv, huge pages when the pool has them) at one address on every PE
// when possible. In two steps around the start-up vote (core/startup_vote.hpp): reserve_heap
// (local) reserves the fixed address's range and says whether it could; map_heap, given whether
// every PE wants a fixed address and whether every PE could reserve it (the vote), maps the heap
// there, or, when some could not, tries the heap alone (collective then) before settling for an
// address per PE. heap_wanted: this PE's USHMEM_HEAP_ADDRESS asks for a fixed address.
bool reserve_heap(const char *routine);
bool heap_wanted();
void map_heap(const char *routine, bool all_want, bool all_reserved);
// The program's writable global/static data, moved onto UCX-allocated memory with its contents.
void map_static(const char *routine);
// Reverse of the above; static data returns to private memory with its current contents.
void unmap_static();
void unmap_heap();

// Progress-thread binding (hwloc). No-op on single-node machines.
// The CPU set (hwloc list string) the progress thread should be bound to, "" for none.
std::string progress_thread_cpus(int local_rank, const cpu_set_t &node_used, bool any_unbound);
void bind_current_thread(const std::string &cpus);

} // namespace ushmem::core
