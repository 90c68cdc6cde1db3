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

/* Memory of ushmem's tables indexed by PE (peer entries, completion and acknowledgement counts,
 * team counters), which the kernel commits a page at a time when this PE first writes to a
 * peer's entry: *committed gets the bytes committed now (pages written, and pages only read, which
 * cost nothing: an upper bound), *reserved the address space they hold. Either pointer may be
 * NULL; 0 and 0 before shmem_init. Local, not collective. */
void shmemx_peer_tables(size_t *committed, size_t *reserved);

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

/* ---- Sandia OpenSHMEM (SOS) names ----
 * Programs written for SOS call routines that OpenSHMEM 1.5/1.6 standardised by their shmemx_
 * names. Each is the 1.6 routine under another name (same arguments, same behaviour, errors name
 * the 1.6 routine); generated from the type tables like the 1.6 families. */
#define USHMEM_SOS_DECL_IB(T, N, _)                                                               \
    void shmemx_##N##_ibput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                            size_t nblocks, int pe);                                              \
    void shmemx_ctx_##N##_ibput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,         \
                                ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);             \
    void shmemx_##N##_ibget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                            size_t nblocks, int pe);                                              \
    void shmemx_ctx_##N##_ibget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,         \
                                ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);
USHMEM_RMA_TYPES(USHMEM_SOS_DECL_IB, _)
#undef USHMEM_SOS_DECL_IB
#define USHMEM_SOS_DECL_IB_SIZED(BITS, BYTES, _)                                                 \
    void shmemx_ibput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                            size_t bsize, size_t nblocks, int pe);                               \
    void shmemx_ctx_ibput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,  \
                                ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);            \
    void shmemx_ibget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                            size_t bsize, size_t nblocks, int pe);                               \
    void shmemx_ctx_ibget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,  \
                                ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);
USHMEM_RMA_SIZES(USHMEM_SOS_DECL_IB_SIZED, _)
#undef USHMEM_SOS_DECL_IB_SIZED
#define USHMEM_SOS_DECL_SCAN(T, N, SUFFIX) \
    int shmemx_##N##SUFFIX(shmem_team_t team, T *dest, const T *source, size_t nelems);
USHMEM_REDUCE_ARITH_TYPES(USHMEM_SOS_DECL_SCAN, _sum_inscan)
USHMEM_REDUCE_ARITH_TYPES(USHMEM_SOS_DECL_SCAN, _sum_exscan)
#undef USHMEM_SOS_DECL_SCAN
void shmemx_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
void shmemx_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
void shmemx_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
void shmemx_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
void shmemx_query_initialized(int *initialized);
/* Seconds since an arbitrary moment (CLOCK_MONOTONIC), for timing, as SOS's. */
double shmemx_wtime(void);
#define HAVE_SHMEMX_WTIME 1

/* ---- Performance counters (SOS's shmemx_pcntr_*) ----
 * Read from the statistics ushmem keeps with USHMEM_STATS=1 (which also prints its table at
 * finalize); with statistics off every counter reads 0. Statistics are kept per PE, not per
 * context: the counts are those of every context of this PE (ctx must still be a valid context).
 *   issued_write     puts (blocking, nbi, strided), put-with-signal, signal updates and
 *                    non-fetching atomics issued by this PE
 *   issued_read      gets (blocking, nbi, strided) and fetching atomics issued by this PE
 *   completed_write  the writes that a quiet (shmem_quiet, shmem_ctx_quiet, shmem_barrier_all)
 *                    has completed: those issued before the PE's latest one began
 *   completed_read   issued_read less the gets and fetching atomics on `ctx` whose reply has not
 *                    arrived yet
 *   completed_target 0: one-sided transfers (direct stores, RDMA) are not seen by their target
 * shmemx_pcntr_get_all fills every field, pending_* being issued less completed. */
typedef struct {
    uint64_t pending_put;
    uint64_t pending_get;
    uint64_t completed_put;
    uint64_t completed_get;
    uint64_t target;
} shmemx_pcntr_t;
void shmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_completed_target(uint64_t *cntr_value);
void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr);

/* ---- Remote procedure calls (the C++ API's ushmem::rpc, include/ushmem/rpc.hpp, builds on these) ----
 * A function is registered with its trampoline, which decodes the argument bytes, calls it and
 * encodes its result into *reply (malloc'd, *reply_n bytes; the library frees it). The trampoline
 * returns SHMEMX_RPC_OK, SHMEMX_RPC_THREW (*reply: the text of the error) or SHMEMX_RPC_BAD_ARGS
 * (*reply: what was wrong with the bytes). Every PE must run the same binary: a function's id is
 * its position in a table sorted at shmem_init by where each trampoline lies in its module. */
typedef int (*shmemx_rpc_trampoline)(const void *args, size_t n, void **reply, size_t *reply_n);
#define SHMEMX_RPC_OK 0
#define SHMEMX_RPC_THREW 1
#define SHMEMX_RPC_BAD_ARGS 2
#define SHMEMX_RPC_UNKNOWN_FUNCTION 3 /* the target has no such function, or of other types */
#define SHMEMX_RPC_TARGET_GONE 4      /* the target finalized, or could not take the call */
/* Registers `fn` (at any time, also before shmem_init: the C++ API does it during static
 * initialization). `signature`: a hash of the function's types, which the target compares with its
 * own; `name` (kept, not copied) names it in messages; `key` (may be NULL): what the program holds
 * to name the function at run time (its address), for shmemx_rpc_find. 0, or -1 when out of memory. */
int shmemx_rpc_register(shmemx_rpc_trampoline fn, uint64_t signature, const char *name, const void *key);
/* The id of a registered trampoline, or of the function registered under `key`; UINT32_MAX when
 * there is none. */
uint32_t shmemx_rpc_id(shmemx_rpc_trampoline fn);
uint32_t shmemx_rpc_find(const void *key);
/* Calls function `fn_id` on `pe` with n bytes of arguments (copied before the call returns). With
 * `request` non-NULL the caller awaits the reply (shmemx_rpc_test) under the id stored there; NULL:
 * fire and forget (a failure at the target is printed there). The function runs on `pe` at its next
 * progress point: a wait or test on memory, shmem_barrier_all, shmem_sync_all, shmem_team_sync,
 * shmemx_rpc_test, shmemx_progress, and on the progress thread at SHMEM_THREAD_MULTIPLE. A PE out of
 * range ends the job with a message naming shmemx_rpc_send and the PE. */
void shmemx_rpc_send(int pe, uint32_t fn_id, const void *args, size_t n, uint64_t *request);
/* Progresses (this PE's queued calls run), then returns 1 when the reply to `request` has arrived:
 * *reply (malloc'd; free it with shmemx_rpc_free, or NULL when `reply` is NULL) holds *n bytes, the
 * result (status SHMEMX_RPC_OK) or the text of the failure; the request is then forgotten. 0 otherwise. */
int shmemx_rpc_test(uint64_t request, void **reply, size_t *n, int *status);
/* The reply to `request` will not be awaited: it is dropped when it arrives. */
void shmemx_rpc_cancel(uint64_t request);
void shmemx_rpc_free(void *reply);
/* Progresses the transport and runs the remote procedure calls queued for this PE. */
void shmemx_progress(void);

#ifdef __cplusplus
}
#endif

/* SOS's type-generic forms, as for the 1.6 names: shmemx_ibget/ibput(...) select the typed routine
 * (and the ctx_ form when the first argument is a context); shmemx_signal_add/set(ctx, ...) is
 * shmemx_ctx_signal_add/set. */
#if defined(__cplusplus)
template <class... A> inline void shmemx_ibput(A... a) { shmem_ibput(a...); }
template <class... A> inline void shmemx_ibget(A... a) { shmem_ibget(a...); }
inline void shmemx_signal_add(shmem_ctx_t c, uint64_t *sig_addr, uint64_t signal, int pe) {
    shmemx_ctx_signal_add(c, sig_addr, signal, pe);
}
inline void shmemx_signal_set(shmem_ctx_t c, uint64_t *sig_addr, uint64_t signal, int pe) {
    shmemx_ctx_signal_set(c, sig_addr, signal, pe);
}
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define shmemx_ibput(...) shmem_ibput(__VA_ARGS__)
#define shmemx_ibget(...) shmem_ibget(__VA_ARGS__)
#define shmemx_signal_add(...)                                                                  \
    _Generic((USHMEM_GARG1(__VA_ARGS__, 0)), shmem_ctx_t: shmemx_ctx_signal_add,                \
             default: shmemx_signal_add)(__VA_ARGS__)
#define shmemx_signal_set(...)                                                                  \
    _Generic((USHMEM_GARG1(__VA_ARGS__, 0)), shmem_ctx_t: shmemx_ctx_signal_set,                \
             default: shmemx_signal_set)(__VA_ARGS__)
#endif

#endif
