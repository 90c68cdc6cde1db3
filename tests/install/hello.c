/* ushmem install test, C: every PE puts its number into its right neighbour's symmetric buffer.
 * Built from outside the source tree against an installed ushmem (see run.sh).
 * With -DUSHMEM_HELLO_MPI it also calls MPI, as a hybrid program built with ushmemcc may. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

#ifdef USHMEM_HELLO_MPI
#include <mpi.h>
#endif

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();

    int *inbox = (int *)shmem_malloc(sizeof(int));
    if (inbox == NULL) {
        fprintf(stderr, "PE %d: shmem_malloc failed\n", me);
        shmem_global_exit(2);
    }
    *inbox = -1;
    shmem_barrier_all();

    int right = (me + 1) % npes;
    shmem_int_put(inbox, &me, 1, right);
    shmem_barrier_all();

    int expected = (me + npes - 1) % npes;
    int ok = *inbox == expected;

#ifdef USHMEM_HELLO_MPI
    int mpi_initialized = 0, mpi_size = -1;
    MPI_Initialized(&mpi_initialized);
    if (mpi_initialized)
        MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    printf("PE %d: MPI initialized=%d size=%d\n", me, mpi_initialized, mpi_size);
#endif

    printf("hello.c: PE %d of %d: %s (got %d from the left neighbour, expected %d)\n", me, npes,
           ok ? "OK" : "FAILED", *inbox, expected);
    fflush(stdout);

    shmem_free(inbox);
    shmem_finalize();
    return ok ? 0 : 1;
}
