// The C entry points: validate, then dispatch to core. Shared macros and helpers.
#pragma once

#include <shmem.h>

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/fast_path.hpp"
#include "core/log.hpp"
#include "core/rma.hpp"
#include "core/route.hpp"
#include "core/runtime.hpp"
#include "core/stats.hpp"
#include "core/team.hpp"

#include <climits>
#include <cstdint>

// Every routine is defined under its profiling name pshmem_X, and shmem_X is a weak alias of it
// (OpenSHMEM profiling interface): a tool may define shmem_X and call pshmem_X.
#define USHMEM_EXPORT __attribute__((visibility("default")))
#define USHMEM_DEF(ret, name, params)                                                   \
    extern "C" USHMEM_EXPORT ret name params __attribute__((weak, alias("p" #name)));   \
    extern "C" USHMEM_EXPORT ret p##name params

struct ushmem_ctx {
    ushmem::core::context *impl;
};

// A team handle (api/team.cpp): the core team, nullptr once destroyed (the handle itself is kept,
// so that using a destroyed team is reported rather than undefined).
struct ushmem_team {
    ushmem::core::team *impl;
};

namespace ushmem::api {

using core::rt;

USHMEM_HOT core::context &ctx_of(const char *routine, shmem_ctx_t ctx) {
    if (USHMEM_UNLIKELY(ctx == SHMEM_CTX_INVALID || ctx->impl == nullptr))
        core::fatal(routine, "invalid context handle (SHMEM_CTX_INVALID or a destroyed context); "
                             "pass SHMEM_CTX_DEFAULT or a context from shmem_ctx_create");
    return *ctx->impl;
}

// Contexts created from a team take team-relative PE numbers; the others world ones (checked later
// by check_pe).
[[noreturn]] void fail_team_pe(const char *routine, int pe, int n);
inline int ctx_pe(const char *routine, const core::context &c, int pe) {
    if (USHMEM_LIKELY(c.team_pes == nullptr)) return pe;
    if (USHMEM_UNLIKELY(unsigned(pe) >= unsigned(c.team_n))) fail_team_pe(routine, pe, c.team_n);
    return c.team_pes[pe];
}

// The core team of a handle (checks that the library runs); nullptr for SHMEM_TEAM_INVALID.
// A destroyed team ends the job with a message.
core::team *team_of(const char *routine, shmem_team_t team);

USHMEM_HOT std::size_t bytes_of(const char *routine, std::size_t nelems, std::size_t elem) {
    if (USHMEM_UNLIKELY(nelems > SIZE_MAX / elem))
        core::fatal(routine, "element count %zu is too large (%zu-byte elements overflow size_t); "
                             "a negative count passed as size_t?", nelems, elem);
    return nelems * elem;
}

// The local buffer of a transfer of n > 0 bytes is NULL (the remote one is checked by its
// symmetry): the job ends with a message naming the routine and the count. Every transfer checks
// it; on the put/get fast path that is one test and a branch never taken (fast_direct).
[[noreturn, gnu::cold]] void fail_null_local(const char *r, const char *what, std::size_t n, int pe);
USHMEM_HOT void check_local(const char *r, const char *what, const void *p, std::size_t n, int pe) {
    if (USHMEM_UNLIKELY(p == nullptr && n != 0)) fail_null_local(r, what, n, pe);
}

// Full paths: every check, statistics, resolution of a new peer, UCX. Out of line, reached by a
// tail call from the fast paths below.
[[gnu::noinline]] void put_full(const char *r, core::context &c, void *d, const void *s,
                                std::size_t nelems, std::size_t elem, int pe, bool nbi);
[[gnu::noinline]] void get_full(const char *r, core::context &c, void *d, const void *s,
                                std::size_t nelems, std::size_t elem, int pe, bool nbi);

// The fast path's conditions: the library running, its gate open (core/fast_path.hpp: statistics,
// SHMEM_DEBUG and writers that wake close it) with the PE in range, a non-zero size that does not
// overflow, a local buffer that is not NULL (the full path says so; one test and a branch that is
// never taken, for p and g none: their local buffer is a variable), and a direct route: the
// remote address, else nullptr. Nothing in it calls, so put and get below compile to leaf code
// ending in a jump (to memcpy, or to the full path).
USHMEM_HOT char *fast_direct(const void *remote, const void *local, std::size_t nelems, std::size_t elem,
                             int pe, std::size_t &n) {
    if (USHMEM_UNLIKELY(rt.state != core::lib_state::running)) return nullptr;
    if (USHMEM_UNLIKELY(local == nullptr)) return nullptr;
    if (USHMEM_UNLIKELY(unsigned(pe) >= core::fast_pe_limit)) return nullptr;
    if (USHMEM_UNLIKELY(nelems == 0 || nelems > SIZE_MAX / elem)) return nullptr;
    n = nelems * elem;
    return core::direct_target(remote, n, pe);
}

USHMEM_HOT void fast_put(const char *r, core::context &c, void *d, const void *s, std::size_t nelems,
                     std::size_t elem, int pe, bool nbi) {
    std::size_t n;
    if (char *to = fast_direct(d, s, nelems, elem, pe, n)) {
        c.note_direct();
        core::direct_copy(to, s, n);
        return;
    }
    put_full(r, c, d, s, nelems, elem, pe, nbi);
}

USHMEM_HOT void fast_get(const char *r, core::context &c, void *d, const void *s, std::size_t nelems,
                     std::size_t elem, int pe, bool nbi) {
    std::size_t n;
    if (const char *from = fast_direct(s, d, nelems, elem, pe, n)) {
        core::direct_copy(d, from, n);
        return;
    }
    get_full(r, c, d, s, nelems, elem, pe, nbi);
}

template <class T> USHMEM_HOT void p(const char *r, core::context &c, T *d, T v, int pe) {
    std::size_t n;
    if (char *to = fast_direct(d, &v, 1, sizeof(T), pe, n)) {
        c.note_direct();
        __builtin_memcpy(to, &v, sizeof(T));
        return;
    }
    put_full(r, c, d, &v, 1, sizeof(T), pe, false);
}

template <class T> USHMEM_HOT T g(const char *r, core::context &c, const T *s, int pe) {
    std::size_t n;
    // No local buffer to check (the value is returned): &c stands in for it, a pointer the
    // compiler knows is not NULL (no test), so that v is not passed before it is written (gcc
    // -O0 takes a const pointer to it for a read and fails the build on
    // -Werror=maybe-uninitialized; zeroing v would cost the fast path a store).
    if (const char *from = fast_direct(s, &c, 1, sizeof(T), pe, n)) {
        T v;
        __builtin_memcpy(&v, from, sizeof(T));
        return v;
    }
    T v;
    get_full(r, c, &v, s, 1, sizeof(T), pe, false);
    return v;
}

inline void iput(const char *r, core::context &c, void *d, const void *s, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe) {
    core::check_running(r);
    core::stats::check_pe_and_count(r, pe, core::stats::k_put_strided, bsize * nblocks * elem);
    const std::size_t block = bytes_of(r, bsize, elem);
    check_local(r, "source", s, nblocks ? block : 0, pe);
    core::put_strided(r, c, d, s, dst, sst, bsize, nblocks, elem, pe);
}

inline void iget(const char *r, core::context &c, void *d, const void *s, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe) {
    core::check_running(r);
    core::stats::check_pe_and_count(r, pe, core::stats::k_get_strided, bsize * nblocks * elem);
    const std::size_t block = bytes_of(r, bsize, elem);
    check_local(r, "destination", d, nblocks ? block : 0, pe);
    core::get_strided(r, c, d, s, dst, sst, bsize, nblocks, elem, pe);
}

} // namespace ushmem::api
