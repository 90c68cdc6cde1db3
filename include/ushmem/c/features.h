/* ushmem: what this library provides, as preprocessor macros (included by <shmem.h>).
 *
 * For programs and binding generators (shmem4py, bindgen, Julia or R wrappers) that decide at
 * compile time which OpenSHMEM routines to declare, wrap or emulate: each USHMEM_HAVE_<name> is 1
 * when the whole family named after its specification routine or type is provided, and is not
 * defined otherwise. Test with #if defined(USHMEM_HAVE_...) (or #ifdef). SHMEM_MAJOR_VERSION and
 * SHMEM_MINOR_VERSION in <shmem.h> give the specification version, which ushmem implements
 * completely (docs/coverage.md); USHMEM_VERSION_* give this library's release.
 * <ushmem/shmem4py.h> turns these into the configuration macros shmem4py expects (docs/python.md). */
#ifndef USHMEM_C_FEATURES_H
#define USHMEM_C_FEATURES_H

/* ---- Library release (CMakeLists.txt checks these against the project version) ---- */
#define USHMEM_VERSION_MAJOR 0
#define USHMEM_VERSION_MINOR 1
#define USHMEM_VERSION_PATCH 0
#define USHMEM_VERSION_STRING "0.1.0"
/* One number that compares: major * 10000 + minor * 100 + patch. */
#define USHMEM_NUMVERSION (USHMEM_VERSION_MAJOR * 10000 + USHMEM_VERSION_MINOR * 100 + USHMEM_VERSION_PATCH)
/* The implementation is ushmem (a vendor check for `#if defined(USHMEM_NUMVERSION)` works too). */
#define USHMEM 1

/* ---- OpenSHMEM 1.0-1.4: setup, RMA (typed, sized, strided, nbi), AMOs, locks, wait/test,
 * active-set collectives, contexts ---- */
#define USHMEM_HAVE_shmem_ctx_t 1
#define USHMEM_HAVE_SHMEM_CTX_INVALID 1
#define USHMEM_HAVE_shmem_sync_all 1
#define USHMEM_HAVE_shmem_calloc 1
#define USHMEM_HAVE_shmem_test 1
#define USHMEM_HAVE_shmem_to_all 1          /* shmem_TYPENAME_OP_to_all (deprecated in 1.5) */

/* ---- OpenSHMEM 1.5 ---- */
#define USHMEM_HAVE_shmem_team_t 1          /* teams: split_strided, split_2d, ctx, config, ... */
#define USHMEM_HAVE_shmem_malloc_with_hints 1
#define USHMEM_HAVE_shmem_amo_nbi 1         /* non-blocking fetching AMOs, every AMO type */
#define USHMEM_HAVE_shmem_put_signal 1      /* shmem_put_signal{,_nbi}, typed, sized and mem */
#define USHMEM_HAVE_shmem_signal_fetch 1
#define USHMEM_HAVE_shmem_signal_wait_until 1
#define USHMEM_HAVE_shmem_broadcast 1       /* team-based typed collectives */
#define USHMEM_HAVE_shmem_collect 1
#define USHMEM_HAVE_shmem_fcollect 1
#define USHMEM_HAVE_shmem_alltoall 1
#define USHMEM_HAVE_shmem_alltoalls 1
#define USHMEM_HAVE_shmem_broadcastmem 1
#define USHMEM_HAVE_shmem_collectmem 1
#define USHMEM_HAVE_shmem_fcollectmem 1
#define USHMEM_HAVE_shmem_alltoallmem 1
#define USHMEM_HAVE_shmem_alltoallsmem 1
#define USHMEM_HAVE_shmem_reduce 1          /* shmem_TYPENAME_OP_reduce on teams */
#define USHMEM_HAVE_shmem_wait_test_many 1  /* wait_until/test _all/_any/_some and _vector */
#define USHMEM_HAVE_shmem_pcontrol 1
#define USHMEM_HAVE_shmem_team_ptr 1
#define USHMEM_HAVE_shmem_ctx_get_team 1

/* ---- OpenSHMEM 1.6 ---- */
#define USHMEM_HAVE_shmem_ibget 1           /* blocked strided RMA: ibget/ibput, typed and sized */
#define USHMEM_HAVE_shmem_ibput 1
#define USHMEM_HAVE_shmem_scan 1            /* shmem_TYPENAME_sum_inscan / _exscan */
#define USHMEM_HAVE_shmem_signal_add 1      /* shmem_signal_add / shmem_signal_set */
#define USHMEM_HAVE_shmem_ctx_session 1     /* shmem_ctx_session_start / _stop */
#define USHMEM_HAVE_shmem_pe_quiet 1
#define USHMEM_HAVE_shmem_team_config_t_num_contexts 1

/* ---- Extensions (<shmemx.h>) ---- */
#define USHMEM_HAVE_shmemx_init_comm 1      /* bootstrap over an MPI communicator */
#define USHMEM_HAVE_shmemx_sos_names 1      /* SOS's shmemx_ names of 1.6 routines, shmemx_wtime */
#define USHMEM_HAVE_shmemx_pcntr 1          /* shmemx_pcntr_* performance counters */

#endif /* USHMEM_C_FEATURES_H */
