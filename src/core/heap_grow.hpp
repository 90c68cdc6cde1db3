// Growing the symmetric heap (USHMEM_HEAP_GROW): the reservation's plan, mapping chunks at the
// same heap offset on every PE, agreeing that all of them succeeded, exchanging their rkeys, and
// unmapping them at finalize. State: rt.grown (core/peers.hpp, heap_growth: its contract).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ushmem::core {

// This PE's vote (core/startup_vote.hpp) for the automatic USHMEM_HEAP_MAX: its node's memory
// shared among the node's PEs, at most 64 GiB.
std::uint64_t heap_cap_here();
// Plans the growth for an initial heap of `initial` bytes (init, before the heap is mapped; every
// PE alike with the vote's rt.agreed.heap_cap as `auto_cap`, the cap when USHMEM_HEAP_MAX is
// unset; reserve_heap plans with heap_cap_here() before the vote): fills rt.grown's sizes and
// returns the bytes to reserve from the heap's base (`initial` when growth is off).
std::size_t plan_heap_growth(const char *routine, std::size_t initial, std::uint64_t auto_cap);
// After the heap is mapped: growth is on when planned and the heap is at the same fixed address
// on every PE (`fixed`); sizes the chunk table.
void enable_heap_growth(bool fixed);

// Collective (every PE in the same allocation, its allocator in the same state): maps enough
// chunks after the heap's mapped part for `size` bytes at `alignment`, adds them to rt.heap and
// returns true; false on every PE alike when some PE could not (the reservation full, no memory),
// with `why` naming what, each PE having unmapped its part.
bool grow_heap(const char *routine, std::size_t size, std::size_t alignment, std::string &why);

// Finalize, after every peer's rkeys to the chunks are destroyed: unmaps every chunk, then the
// reservation (the initial heap is unmapped before by unmap_heap).
void unmap_heap_chunks();

// One line for SHMEM_INFO and ushmem-info: reserved range, mapped size, chunks and page sizes.
std::string heap_growth_text();
// The same as a JSON object (ushmem-info --json): on, reserved, mapped, chunks, growths, failures,
// and each chunk's offset, size and page size.
std::string heap_growth_json();

} // namespace ushmem::core
