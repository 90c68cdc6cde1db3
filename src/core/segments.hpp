// Creating and removing the symmetric segments.
#pragma once

#include "core/runtime.hpp"

namespace ushmem::core {

// The heap: UCX-allocated (sysv, huge pages when the pool has them) at one address on every PE
// when possible. Collective (agrees on the address with the other PEs).
void map_heap(const char *routine);
// The program's writable global/static data, moved onto UCX-allocated memory with its contents.
void map_static(const char *routine);
// Reverse of the above; static data returns to private memory with its current contents.
void unmap_static();
void unmap_heap();

// UCX creates its System V segments (our heap and static data, and its own FIFOs) with mode
// 0660: group members could shmat them by id. Sets 0600 on every SysV segment mapped in this
// process that this process created (docs/security.md). Returns how many it changed.
int restrict_shm_permissions();

// Page size backing the mapping that starts at `addr` (from /proc/self/smaps), 0 if unknown.
std::size_t mapping_page_size(std::uintptr_t addr);

// NUMA placement and progress-thread binding (hwloc). No-ops on single-node machines.
void place_heap_on_local_numa(void *addr, std::size_t len);
// The CPU set (hwloc list string) the progress thread should be bound to, "" for none.
std::string progress_thread_cpus(int local_rank, int local_size);
void bind_current_thread(const std::string &cpus);

} // namespace ushmem::core
