// ushmem core: runtime state and lifecycle: struct runtime (rt), the library state, the
// validation every entry point makes, init/finalize.
//
// Layering: api (C entry points) -> core (this) -> transport (UCX) / bootstrap (MPI). Core knows
// nothing of the C API's names: every entry point passes its own name down for messages.
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/env.hpp"
#include "core/heap_alloc.hpp"
#include "core/peers.hpp"

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
    peer_table peers;  // the main worker's per-PE state (core/peers.hpp: its contract)
    std::vector<int> node_of;
    int node_cpus = 0;  // CPUs this node's PEs may run on (bootstrap::job::node_cpus; 0: unknown)
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
    // bound" as the largest value), checked before each acknowledged message (atomic.cpp, send_message).
    std::uint64_t inflight_msgs = ~std::uint64_t(0);
    std::int64_t inflight_bytes = INT64_MAX;
};

extern runtime rt;

// ---- validation, shared by every entry point ------------------------------------------------

[[noreturn]] void fail_not_running(const char *routine);
[[noreturn]] void fail_bad_pe(const char *routine, int pe);
[[noreturn]] void fail_not_symmetric(const char *routine, const char *what, const void *addr,
                                     std::size_t len, int pe);

USHMEM_HOT void check_running(const char *routine) {
    if (USHMEM_UNLIKELY(rt.state != lib_state::running)) fail_not_running(routine);
}

USHMEM_HOT void check_pe(const char *routine, int pe) {
    if (USHMEM_UNLIKELY(unsigned(pe) >= unsigned(rt.npes))) fail_bad_pe(routine, pe);
}

// ---- lifecycle and services (runtime.cpp) ---------------------------------------------------
// `comm`: MPI communicator pointer or nullptr. `requested` thread level; returns provided.
int init(const char *routine, const void *comm, int requested);
void finalize(const char *routine);
void barrier_all(const char *routine, bool with_quiet);
// The settings as they act: rt.cfg with what init derived (rt.bulk_min), for SHMEM_INFO.
settings settings_in_effect();
// Local address through which `addr` on `pe` can be loaded/stored, or nullptr.
void *direct_pointer(const void *addr, int pe);
} // namespace ushmem::core
