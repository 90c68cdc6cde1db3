// Team management entry points and the predefined team handles.
#include "api/api.hpp"
#include "core/compiler.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"

using namespace ushmem;
using ushmem::api::rt;

// The predefined handles: link-time constants that point at the runtime's predefined teams.
USHMEM_EXPORT ushmem_team ushmem_team_world_ = {&core::team_world};
USHMEM_EXPORT ushmem_team ushmem_team_shared_ = {&core::team_shared};

namespace ushmem::api {

[[noreturn]] void fail_team_pe(const char *routine, int pe, int n) {
    core::fatal(routine, "PE %d is not a PE of the context's team (0 to %d): a context created by "
                         "shmem_team_create_ctx numbers PEs within its team",
                pe, n - 1);
}

core::team *team_of(const char *routine, shmem_team_t team) {
    core::check_running(routine);
    if (team == SHMEM_TEAM_INVALID) return nullptr;
    if (USHMEM_UNLIKELY(team->impl == nullptr || team->impl->slot < 0))
        core::fatal(routine, "the team handle refers to a destroyed team (shmem_team_destroy was called "
                             "on it)");
    return team->impl;
}

// Destroys the shareable contexts created from a team (api/ctx.cpp).
void destroy_team_contexts(const char *routine, ushmem_team *team);

} // namespace ushmem::api

namespace {
int config_contexts(const shmem_team_config_t *config, long mask) {
    return (config && (mask & SHMEM_TEAM_NUM_CONTEXTS)) ? config->num_contexts : 0;
}

shmem_team_t wrap(core::team *t) { return t ? new ushmem_team{t} : SHMEM_TEAM_INVALID; }
} // namespace

USHMEM_DEF(int, shmem_team_my_pe, (shmem_team_t team)) {
    core::team *t = api::team_of("shmem_team_my_pe", team);
    return t ? t->me : -1;
}

USHMEM_DEF(int, shmem_team_n_pes, (shmem_team_t team)) {
    core::team *t = api::team_of("shmem_team_n_pes", team);
    return t ? t->n : -1;
}

USHMEM_DEF(int, shmem_team_get_config, (shmem_team_t team, long config_mask, shmem_team_config_t *config)) {
    core::team *t = api::team_of("shmem_team_get_config", team);
    if (!t) return -1;
    if ((config_mask & SHMEM_TEAM_NUM_CONTEXTS) && config) config->num_contexts = t->num_contexts;
    return 0;
}

USHMEM_DEF(int, shmem_team_translate_pe, (shmem_team_t src_team, int src_pe, shmem_team_t dest_team)) {
    const char *r = "shmem_team_translate_pe";
    core::team *s = api::team_of(r, src_team), *d = api::team_of(r, dest_team);
    if (!s || !d || src_pe < 0 || src_pe >= s->n) return -1;
    return d->rank_of(s->world_pe(src_pe));
}

USHMEM_DEF(int, shmem_team_split_strided,
           (shmem_team_t parent_team, int start, int stride, int size, const shmem_team_config_t *config,
            long config_mask, shmem_team_t *new_team)) {
    const char *r = "shmem_team_split_strided";
    core::team *p = api::team_of(r, parent_team);
    if (new_team) *new_team = SHMEM_TEAM_INVALID;
    if (!p) return -1;
    if (!new_team) core::fatal(r, "new_team is a null pointer");
    core::team *t = nullptr;
    int rc = core::team_split_strided(r, *p, start, stride, size, config_contexts(config, config_mask), &t);
    *new_team = wrap(t);
    return rc;
}

USHMEM_DEF(int, shmem_team_split_2d,
           (shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask,
            shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask,
            shmem_team_t *yaxis_team)) {
    const char *r = "shmem_team_split_2d";
    core::team *p = api::team_of(r, parent_team);
    if (xaxis_team) *xaxis_team = SHMEM_TEAM_INVALID;
    if (yaxis_team) *yaxis_team = SHMEM_TEAM_INVALID;
    if (!p) return -1;
    if (!xaxis_team || !yaxis_team) core::fatal(r, "xaxis_team and yaxis_team must not be null pointers");
    core::team *x = nullptr, *y = nullptr;
    int rc = core::team_split_2d(r, *p, xrange, config_contexts(xaxis_config, xaxis_mask),
                                 config_contexts(yaxis_config, yaxis_mask), &x, &y);
    *xaxis_team = wrap(x);
    *yaxis_team = wrap(y);
    return rc;
}

USHMEM_DEF(void, shmem_team_destroy, (shmem_team_t team)) {
    const char *r = "shmem_team_destroy";
    core::team *t = api::team_of(r, team);
    if (!t) return;
    if (t->predefined) {
        core::error(r, "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed; ignored");
        return;
    }
    api::destroy_team_contexts(r, team);
    core::team_destroy(r, t);
    team->impl = nullptr;  // the handle stays allocated: a later use is reported, not undefined
}

USHMEM_DEF(void *, shmem_team_ptr, (shmem_team_t team, const void *dest, int pe)) {
    core::team *t = api::team_of("shmem_team_ptr", team);
    if (!t || pe < 0 || pe >= t->n) return nullptr;
    return core::direct_pointer(dest, t->world_pe(pe));
}
