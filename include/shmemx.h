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

/* Page size, in bytes, actually backing this PE's symmetric heap. */
size_t shmemx_heap_page_size(void);

#define SHMEMX_TEAM_NODE SHMEM_TEAM_SHARED

#ifdef __cplusplus
}
#endif

#endif
