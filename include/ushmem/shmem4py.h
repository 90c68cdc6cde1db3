/* ushmem: configuration for shmem4py (the Python binding, github.com/mpi4py/shmem4py).
 *
 * shmem4py recognises OpenSHMEM implementations by their vendor macros and otherwise declares
 * fallbacks for every OpenSHMEM 1.5 family, which collide with ushmem's real routines. Building
 * shmem4py with   CFLAGS="-include ushmem/shmem4py.h"   (docs/python.md) defines its
 * PySHMEM_HAVE_<family> macros from ushmem's feature macros (<ushmem/c/features.h>), so that it
 * uses ushmem's routines. Nothing else here: shmem4py needs no compatibility code for ushmem. */
#ifndef USHMEM_SHMEM4PY_H
#define USHMEM_SHMEM4PY_H

#include <shmem.h>

#if defined(USHMEM_HAVE_shmem_malloc_with_hints)
#define PySHMEM_HAVE_shmem_malloc_with_hints 1
#endif
#if defined(USHMEM_HAVE_shmem_team_t)
#define PySHMEM_HAVE_shmem_team_t 1
#endif
#if defined(USHMEM_HAVE_SHMEM_CTX_INVALID)
#define PySHMEM_HAVE_SHMEM_CTX_INVALID 1
#endif
#if defined(USHMEM_HAVE_shmem_amo_nbi)
#define PySHMEM_HAVE_shmem_amo_nbi 1
#endif
#if defined(USHMEM_HAVE_shmem_put_signal)
#define PySHMEM_HAVE_shmem_put_signal 1
#endif
#if defined(USHMEM_HAVE_shmem_signal_fetch)
#define PySHMEM_HAVE_shmem_signal_fetch 1
#endif
#if defined(USHMEM_HAVE_shmem_signal_wait_until)
#define PySHMEM_HAVE_shmem_signal_wait_until 1
#endif
#if defined(USHMEM_HAVE_shmem_broadcast)
#define PySHMEM_HAVE_shmem_broadcast 1
#endif
#if defined(USHMEM_HAVE_shmem_collect)
#define PySHMEM_HAVE_shmem_collect 1
#endif
#if defined(USHMEM_HAVE_shmem_fcollect)
#define PySHMEM_HAVE_shmem_fcollect 1
#endif
#if defined(USHMEM_HAVE_shmem_alltoall)
#define PySHMEM_HAVE_shmem_alltoall 1
#endif
#if defined(USHMEM_HAVE_shmem_alltoalls)
#define PySHMEM_HAVE_shmem_alltoalls 1
#endif
#if defined(USHMEM_HAVE_shmem_broadcastmem)
#define PySHMEM_HAVE_shmem_broadcastmem 1
#endif
#if defined(USHMEM_HAVE_shmem_collectmem)
#define PySHMEM_HAVE_shmem_collectmem 1
#endif
#if defined(USHMEM_HAVE_shmem_fcollectmem)
#define PySHMEM_HAVE_shmem_fcollectmem 1
#endif
#if defined(USHMEM_HAVE_shmem_alltoallmem)
#define PySHMEM_HAVE_shmem_alltoallmem 1
#endif
#if defined(USHMEM_HAVE_shmem_alltoallsmem)
#define PySHMEM_HAVE_shmem_alltoallsmem 1
#endif
#if defined(USHMEM_HAVE_shmem_reduce)
#define PySHMEM_HAVE_shmem_reduce 1
#endif
#if defined(USHMEM_HAVE_shmem_wait_test_many)
#define PySHMEM_HAVE_shmem_wait_test_many 1
#endif
#if defined(USHMEM_HAVE_shmem_pcontrol)
#define PySHMEM_HAVE_shmem_pcontrol 1
#endif

#endif /* USHMEM_SHMEM4PY_H */
