// Symmetric memory management (memory.cpp): shmem_malloc and friends, and the runtime area's
// words that other parts read on every PE.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ushmem::core {

// Symmetric memory management (memory.cpp). Collective.
// Words [heap_check_word, +4) of the runtime area (rt.runtime_words points at its start): the
// reduction by which every collective memory call checks that the PEs' heaps still match.
constexpr std::size_t heap_check_word = 128;
// Word coll_entry_word of the runtime area: the collective this PE entered last, as
// coll_entry(group, calls): a timed-out collective reads the members' words to name those that
// never reached it (coll/frame.cpp, with read_runtime_words: peer_words.hpp).
constexpr std::size_t coll_entry_word = 256;
// At init, once the runtime's own blocks are allocated: the program's calls are counted from here.
void heap_calls_start();
void *sym_alloc(const char *routine, std::size_t size, std::size_t alignment);
// An allocation refused before the heap (bad alignment, overflowing count): the call's barrier,
// counted and compared like an allocation that returned NULL. Returns nullptr.
void *sym_alloc_refused(const char *routine, std::size_t size, std::size_t alignment);
void sym_free(const char *routine, void *ptr);
void *sym_realloc(const char *routine, void *ptr, std::size_t size);
} // namespace ushmem::core
