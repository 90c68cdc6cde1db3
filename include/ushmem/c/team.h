/* ushmem: OpenSHMEM 1.6 team management and communication contexts. Included by <shmem.h>.
 *
 * Teams: at most USHMEM_MAX_TEAMS (default 64) may exist at once on a PE, SHMEM_TEAM_WORLD and
 * SHMEM_TEAM_SHARED included; a split that would exceed it returns nonzero on every PE of the
 * parent team, with SHMEM_TEAM_INVALID, and prints a message naming the variable. */
#ifndef USHMEM_C_TEAM_H
#define USHMEM_C_TEAM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Team management ---- */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);

/* ---- Communication contexts ---- */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
/* Sessions: hints; accepted and checked, no effect on the data path. */
void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config,
                             long config_mask);
void shmem_ctx_session_stop(shmem_ctx_t ctx);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* USHMEM_C_TEAM_H */
