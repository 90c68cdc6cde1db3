/* ushmem extensions to OpenSHMEM 1.6. Names carry the shmemx_ prefix. */
#ifndef USHMEM_SHMEMX_H
#define USHMEM_SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bootstrap over a communicator other than MPI_COMM_WORLD. `comm` is an MPI_Comm passed as a
 * pointer (void *) so that this header does not require <mpi.h>. The program must have called
 * MPI_Init; PEs are the ranks of the communicator. */
void shmemx_init_comm(const void *mpi_comm);

/* 1 when `pe` is reached by direct load/store on this node, 0 when through UCX. */
int shmemx_pe_is_direct(int pe);

/* 1 when this PE runs ushmem's progress thread (USHMEM_PROGRESS_THREAD, decided at
 * initialisation), 0 otherwise. */
int shmemx_progress_thread_running(void);

/* Page size, in bytes, actually backing this PE's symmetric heap. */
size_t shmemx_heap_page_size(void);

/* What `ushmem-info` shows about this PE (settings, heap backing, route and UCX lanes to every
 * peer, CPU binding and topology): text, with the version/settings/topology header when
 * `header` is non-zero, or one JSON object when `json` is non-zero. Writes at most `len` bytes
 * including the terminating NUL into `buf` and returns the length of the whole report (call again
 * with a larger buffer when it is >= len). Opens an endpoint to every PE; not collective. */
size_t shmemx_info(int json, int header, char *buf, size_t len);

/* The message of the last error that a routine called by this thread reported without ending the
 * job ("shmem_malloc (PE 0 of 4): cannot allocate ..."): an allocation that returned NULL, a team
 * split that returned nonzero (on every PE of the parent team, also those that did not print it).
 * Writes at most `len` bytes including the terminating NUL into `buf` and returns the length of the
 * whole message, 0 when no routine of this thread reported one. The C++ API puts it into its
 * exceptions. */
size_t shmemx_last_error(char *buf, size_t len);

#define SHMEMX_TEAM_NODE SHMEM_TEAM_SHARED

/* Non-blocking shmem_ctx_pe_quiet. Returns 1 when every operation issued on `ctx` to the PEs
 * given (numbered in the context's team; every PE with outstanding operations when target_pes is
 * NULL) is complete, and quiets them as shmem_ctx_pe_quiet would; returns 0 otherwise, after
 * progressing the transport, and stores one PE still incomplete in *pending_pe (when not NULL).
 * Poll it to bound a wait for completion: the first call starts a flush that later calls test. */
int shmemx_ctx_pe_test(shmem_ctx_t ctx, const int *target_pes, size_t npes, int *pending_pe);

/* Gets and fetching atomics issued on `ctx` to `pe` (numbered in the context's team) as
 * non-blocking operations through the transport, and how many of them have completed (their reply
 * arrived), counted since the library was initialised (the context created). Operations on the
 * same-node direct path complete at once and are not counted; nor are puts, whose completion only
 * a flush observes. Either pointer may be NULL. */
void shmemx_ctx_pe_replies(shmem_ctx_t ctx, int pe, uint64_t *issued, uint64_t *completed);

/* Deadline for the team collectives this thread calls (shmem_team_sync, shmem_barrier_all,
 * shmem_sync_all, the shmem_TYPENAME_* and *mem team collectives) until shmemx_coll_timeout_end:
 * one that is still waiting for other PEs `seconds` after shmemx_coll_timeout_begin gives up and
 * returns without its result. shmemx_coll_timeout_end returns 1 when one gave up (0 otherwise)
 * and clears the deadline. After a give-up, the team's collective state is undefined (other members
 * may have counted this PE's signals): use it for no further collective; end the job
 * (shmem_global_exit) or leave the team unused. Active-set (pSync) collectives take no deadline. */
void shmemx_coll_timeout_begin(double seconds);
int shmemx_coll_timeout_end(void);

#ifdef __cplusplus
}
#endif

#endif
