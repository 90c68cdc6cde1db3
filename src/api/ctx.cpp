// Communication contexts: creation, destruction, their team; session hints.
//
// A context is its own completion state (core::context: the PEs with outstanding UCX operations and
// whether direct stores were made), so shmem_ctx_quiet on one context flushes only the endpoints
// that context used. PRIVATE and SERIALIZED contexts also get their own UCX worker and endpoints
// (core::context_lanes), so their quiet never waits for another context's operations; the others
// share the PE's worker (MULTI thread mode under SHMEM_THREAD_MULTIPLE). See docs/collectives.md,
// "Contexts".
#include "api/api.hpp"
#include "core/context.hpp"
#include "core/lanes.hpp"
#include "core/log.hpp"
#include "core/ordering.hpp"
#include "core/put_pack.hpp"
#include "core/runtime.hpp"

#include <mutex>
#include <vector>

using namespace ushmem;
using ushmem::api::rt;

namespace {
struct ctx_object {
    ushmem_ctx handle;    // first: a shmem_ctx_t points here
    core::context impl;
    ushmem_team *team = nullptr;
    long options = 0;
};

std::mutex g_lock;
std::vector<ctx_object *> g_live;  // to destroy a team's shareable contexts with the team
std::vector<ctx_object *> g_free;  // destroyed ones, reused: a destroyed handle stays detectable

ctx_object *object_of(shmem_ctx_t ctx) { return reinterpret_cast<ctx_object *>(ctx); }

int create(const char *routine, shmem_team_t team, long options, shmem_ctx_t *ctx) {
    core::team *t = api::team_of(routine, team);
    if (!ctx) core::fatal(routine, "ctx is a null pointer");
    *ctx = SHMEM_CTX_INVALID;
    if (!t) return -1;
    ctx_object *o;
    {
        std::lock_guard<std::mutex> g(g_lock);
        if (!g_free.empty()) {
            o = g_free.back();
            g_free.pop_back();
        } else {
            o = new ctx_object;
        }
        g_live.push_back(o);
    }
    // Threads may share a context only without PRIVATE and SERIALIZED, and only at MULTIPLE.
    const bool shared = rt.thread_level == SHMEM_THREAD_MULTIPLE &&
                        !(options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED));
    o->impl.reset(rt.npes, shared);
    // One owner thread at a time: its own worker isolates its completion and takes no lock.
    o->impl.own_worker = rt.cfg.ctx_workers && (options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED));
    o->impl.acked_msgs = rt.cfg.acked_messages;
    o->impl.private_ctx = (options & SHMEM_CTX_PRIVATE) != 0;
    core::enable_packing(o->impl);
    o->impl.team_pes = t == &core::team_world ? nullptr : t->members.data();
    o->impl.team_n = t->n;
    o->team = team;
    o->options = options;
    o->handle.impl = &o->impl;
    *ctx = &o->handle;
    return 0;
}

void destroy(const char *routine, ctx_object *o) {
    core::quiet(routine, o->impl);  // the implicit quiet of shmem_ctx_destroy
    core::retire_packs(o->impl);  // the progress thread may be finishing a send of its last pack
    core::forget_get_batches(o->impl);  // any left by a quiet that a C++ deadline ended
    core::release_lanes(o->impl);
    o->impl.own_worker = false;
    o->handle.impl = nullptr;
    o->impl.reset(0, false);
    o->impl.team_pes = nullptr;
    o->team = nullptr;
    std::lock_guard<std::mutex> g(g_lock);
    for (std::size_t i = 0; i < g_live.size(); ++i)
        if (g_live[i] == o) {
            g_live[i] = g_live.back();
            g_live.pop_back();
            break;
        }
    g_free.push_back(o);
}
} // namespace

namespace ushmem::api {
void destroy_team_contexts(const char *routine, ushmem_team *team) {
    std::vector<ctx_object *> mine;
    {
        std::lock_guard<std::mutex> g(g_lock);
        for (ctx_object *o : g_live)
            if (o->team == team && !(o->options & SHMEM_CTX_PRIVATE)) mine.push_back(o);
    }
    for (ctx_object *o : mine) destroy(routine, o);
}
} // namespace ushmem::api

USHMEM_DEF(int, shmem_ctx_create, (long options, shmem_ctx_t *ctx)) {
    return create("shmem_ctx_create", SHMEM_TEAM_WORLD, options, ctx);
}

USHMEM_DEF(int, shmem_team_create_ctx, (shmem_team_t team, long options, shmem_ctx_t *ctx)) {
    return create("shmem_team_create_ctx", team, options, ctx);
}

USHMEM_DEF(void, shmem_ctx_destroy, (shmem_ctx_t ctx)) {
    const char *r = "shmem_ctx_destroy";
    core::check_running(r);
    if (ctx == SHMEM_CTX_INVALID) return;
    if (ctx == SHMEM_CTX_DEFAULT) {
        core::error(r, "SHMEM_CTX_DEFAULT cannot be destroyed; ignored");
        return;
    }
    if (ctx->impl == nullptr)
        core::fatal(r, "the context was already destroyed (by shmem_ctx_destroy, or with its team by "
                       "shmem_team_destroy)");
    destroy(r, object_of(ctx));
}

USHMEM_DEF(int, shmem_ctx_get_team, (shmem_ctx_t ctx, shmem_team_t *team)) {
    const char *r = "shmem_ctx_get_team";
    core::check_running(r);
    if (!team) core::fatal(r, "team is a null pointer");
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    if (ctx == SHMEM_CTX_DEFAULT) {
        *team = SHMEM_TEAM_WORLD;
        return 0;
    }
    api::ctx_of(r, ctx);  // reports a destroyed context
    *team = object_of(ctx)->team;
    return 0;
}

USHMEM_DEF(void, shmem_ctx_session_start,
           (shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config, long config_mask)) {
    const char *r = "shmem_ctx_session_start";
    core::check_running(r);
    (void)options;
    (void)config;
    (void)config_mask;
    if (ctx != SHMEM_CTX_INVALID) api::ctx_of(r, ctx);
}

USHMEM_DEF(void, shmem_ctx_session_stop, (shmem_ctx_t ctx)) {
    const char *r = "shmem_ctx_session_stop";
    core::check_running(r);
    if (ctx != SHMEM_CTX_INVALID) api::ctx_of(r, ctx);
}
