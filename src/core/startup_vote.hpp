// The start-up decisions that every PE must take alike and that each PE can prepare from its own
// facts, made in one reduction (issue #50). Each was a reduction of its own, and a collective over
// the job costs O(log n) rounds: with 32 PEs on four simulated hosts of a 2-core machine one took
// 100-500 ms, and init made about fifteen of them.
#pragma once

#include <cstdint>
#include <string>

namespace ushmem::core {

// What the vote decided. Owner: rt.agreed (state.hpp). Written once by cast_startup_vote (init,
// after the UCX context exists and before anything symmetric is mapped); read after that by
// map_heap, wait_setup and coll_select_init; never changed until the next init.
struct job_agreement {
    // The grown heap's automatic cap (USHMEM_HEAP_MAX unset): the least over PEs of their node's
    // memory shared among its PEs (heap_grow.cpp). Unused when USHMEM_HEAP_MAX is set.
    std::uint64_t heap_cap = 0;
    bool progress_thread = false;  // some PE needs a progress thread (then every PE runs one)
    bool wake_direct = false;      // some PE blocks in its waits: writers of direct data wake it
    bool oversubscribed = false;   // some node has more PEs than CPUs (the collectives' sync pattern)
    bool heap_wanted = false;      // every PE wants the heap at a fixed address (USHMEM_HEAP_ADDRESS)
    bool heap_reserved = false;    // every PE reserved the heap's fixed range (segments.cpp, map_heap)
};

// Collective over the job (one reduction): every PE's facts in, rt.agreed out. Before that, on a
// disagreement or a heap that does not fit, ends the job with the report the checks make
// (core/preflight.hpp). `needs_progress`: this PE's own need (runtime.cpp decides it);
// `heap_wanted`, `heap_reserved`: whether this PE wants a fixed heap address and reserved its
// range (segments.hpp, reserve_heap).
void cast_startup_vote(const char *routine, bool needs_progress, bool heap_wanted, bool heap_reserved);

} // namespace ushmem::core
