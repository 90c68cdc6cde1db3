// ushmem core: the lifecycle (runtime.cpp): init, finalize, the world barrier's entry and the
// direct pointer. It calls down into every part of core; nothing in core calls up into it. The
// state it fills lives below it (state.hpp), the validation every entry point makes in
// validate.hpp; both are included here for the entry points (api/), which use all three.
//
// Layering: api (C entry points) -> core (this) -> transport (UCX) / bootstrap (MPI). Core knows
// nothing of the C API's names: every entry point passes its own name down for messages.
#pragma once

#include "core/state.hpp"
#include "core/validate.hpp"

namespace ushmem::core {

// ---- lifecycle and services (runtime.cpp) ---------------------------------------------------
// `comm`: MPI communicator pointer or nullptr. `requested` thread level; returns provided.
int init(const char *routine, const void *comm, int requested);
void finalize(const char *routine);
void barrier_all(const char *routine, bool with_quiet);
// Local address through which `addr` on `pe` can be loaded/stored, or nullptr.
void *direct_pointer(const void *addr, int pe);
} // namespace ushmem::core
