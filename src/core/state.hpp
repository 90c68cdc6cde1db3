// The runtime state (`rt`, defined in state.cpp): what init set up and every part of core reads.
// Its own file, below everything that reads it: the lifecycle (runtime.{hpp,cpp}) writes it at
// init and finalize and calls down into the parts of core, and nothing calls up into the lifecycle
// to read it (tools/call_graph.py, ctest call_graph).
//
// Contract: written by init and finalize on the thread that calls them (the program's, with no
// other thread of the library running: the progress thread starts after init has filled it and is
// joined before finalize clears it); read-only in between, except the fields whose comments say
// otherwise (peers: peers.hpp; default_ctx: context.hpp; heap: memory.cpp under its lock).
#pragma once

#include "core/context.hpp"
#include "core/env.hpp"
#include "core/heap_alloc.hpp"
#include "core/peers.hpp"
#include "core/startup_vote.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ushmem::core {

constexpr int thread_multiple = 3;  // same value as SHMEM_THREAD_MULTIPLE; core keeps its own name

enum class lib_state : int { uninitialized = 0, running = 1, finalized = 2 };

struct runtime {
    lib_state state = lib_state::uninitialized;
    int me = -1;
    int npes = 0;
    int init_count = 0;
    int thread_level = 0;
    segment seg[seg_count];
    heap_growth grown;  // the heap's chunks beyond seg[seg_heap] (core/peers.hpp: its contract)
    peer_table peers;  // the main worker's per-PE state (core/peers.hpp: its contract)
    std::vector<int> node_of;
    int local_rank = -1, local_size = 0;  // this PE's rank among its node's PEs, and their count
    int node_cpus = 0;  // CPUs this node's PEs may run on (bootstrap::job::node_cpus; 0: unknown)
    job_agreement agreed;  // what every PE decided alike at init (core/startup_vote.hpp: its contract)
    context default_ctx;
    settings cfg;  // as the user set them (load_settings); never changed after
    // Derived at init from cfg where this machine or UCX allows less (settings_in_effect shows them):
    std::size_t bulk_min = 0;  // USHMEM_BULK_MIN, or 0 where bulk messages cannot keep their order
    heap_allocator heap;
    std::size_t user_heap_offset = 0;  // the runtime's own symmetric area precedes user blocks
    std::uint64_t *runtime_words = nullptr;  // the runtime's own symmetric area (runtime.cpp, runtime_area)
    bool progress_thread = false;
    std::string resolve_error;
    // The bound on what is in flight to one PE (USHMEM_INFLIGHT_MSGS, USHMEM_INFLIGHT_BYTES; "no
    // bound" as the largest value), checked before each acknowledged message (messages.cpp, send_message).
    std::uint64_t inflight_msgs = ~std::uint64_t(0);
    std::int64_t inflight_bytes = INT64_MAX;
};

extern runtime rt;

// The settings as they act: rt.cfg with what init derived (rt.bulk_min), for SHMEM_INFO.
settings settings_in_effect();
} // namespace ushmem::core
