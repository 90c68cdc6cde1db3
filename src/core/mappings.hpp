// Facts about this process's mappings shared by the heap, its grown chunks and the static data
// (mappings.cpp): below segments.cpp and heap_grow.cpp, which both use them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ushmem::core {

// UCX creates its System V segments (our heap and static data, and its own FIFOs) with mode
// 0660: group members could shmat them by id. Sets 0600 on every SysV segment mapped in this
// process that this process created (docs/security.md). Returns how many it changed.
int restrict_shm_permissions();

// Page size backing the mapping that starts at `addr` (from /proc/self/smaps), 0 if unknown.
std::size_t mapping_page_size(std::uintptr_t addr);

// NUMA placement of a heap range next to this PE (hwloc). A no-op on single-node machines.
void place_heap_on_local_numa(void *addr, std::size_t len);

} // namespace ushmem::core
