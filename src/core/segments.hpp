// Creating and removing the symmetric segments.
#pragma once

#include "core/mappings.hpp"
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

// Progress-thread binding (hwloc). No-op on single-node machines.
// The CPU set (hwloc list string) the progress thread should be bound to, "" for none.
std::string progress_thread_cpus(int local_rank, int local_size);
void bind_current_thread(const std::string &cpus);

} // namespace ushmem::core
