/* mpi_interop: OpenSHMEM inside a program that uses MPI itself.
 *
 * Usage: mpi_interop world|comm
 *
 *   world: the program calls MPI_Init before shmem_init and MPI_Finalize after shmem_finalize.
 *          PEs are the ranks of MPI_COMM_WORLD (n_pes = size, my_pe = rank); OpenSHMEM and MPI
 *          communication interleave; after shmem_finalize, MPI still works and is not finalized
 *          (the library must leave an MPI it did not initialise alone); MPI_Finalize then
 *          succeeds and the job exits 0.
 *   comm:  (ushmem) shmemx_init_comm on a communicator that splits MPI_COMM_WORLD into two
 *          halves (even and odd ranks): each half is its own OpenSHMEM job, with PEs numbered by
 *          the rank in the sub-communicator. */
#include "common.h"
#include <mpi.h>
#if TEST_WITH_USHMEM
#include <shmemx.h>
#endif

static long slots[4];

#define MPI_CHECK(call)                                                              \
    do {                                                                             \
        int rc_ = (call);                                                            \
        if (rc_ != MPI_SUCCESS) {                                                    \
            fprintf(stderr, "FAIL %s:%d: %s returned %d\n", __FILE__, __LINE__, #call, rc_); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                            \
        }                                                                            \
    } while (0)

/* Ring exchange over OpenSHMEM; `expect_left` is what the left neighbour sends (its identity in
 * MPI terms), to check that PE numbers map to the intended processes. */
static void ring(long mine, long expect_left, const char *what) {
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_barrier_all();
    shmem_long_p(&slots[0], mine, (me + 1) % n);
    shmem_barrier_all();
    CHECK(slots[0] == expect_left, "%s: from the left PE expected %ld, got %ld", what, expect_left,
          slots[0]);
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 2, "usage: mpi_interop world|comm");
    MPI_CHECK(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    if (strcmp(argv[1], "world") == 0) {
        shmem_init();
        CHECK_EQ_INT(size, shmem_n_pes(), "shmem_n_pes() vs MPI_COMM_WORLD size");
        CHECK_EQ_INT(rank, shmem_my_pe(), "shmem_my_pe() vs MPI_COMM_WORLD rank");
        for (int round = 0; round < 5; ++round) {
            ring(100L * round + rank, 100L * round + (rank + size - 1) % size, "ring");
            long sum = -1, mine = rank;
            MPI_CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
            CHECK_EQ_INT((long)size * (size - 1) / 2, sum, "MPI_Allreduce between shmem calls");
            MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        }
        shmem_finalize();

        int flag = 0;
        MPI_CHECK(MPI_Initialized(&flag));
        CHECK_NOSHMEM(flag, "MPI is no longer initialized after shmem_finalize");
        flag = 1;
        MPI_CHECK(MPI_Finalized(&flag));
        CHECK_NOSHMEM(!flag, "shmem_finalize finalized the program's MPI");
        long sum = -1, mine = 1;
        MPI_CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK_NOSHMEM(sum == size, "MPI_Allreduce after shmem_finalize gave %ld", sum);
        MPI_CHECK(MPI_Finalize());
        if (rank == 0) printf("mpi_interop world: OK\n");
        return 0;
    }

#if TEST_WITH_USHMEM
    if (strcmp(argv[1], "comm") == 0) {
        MPI_Comm half;
        MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
        int hrank, hsize;
        MPI_CHECK(MPI_Comm_rank(half, &hrank));
        MPI_CHECK(MPI_Comm_size(half, &hsize));
        shmemx_init_comm(&half);
        CHECK_EQ_INT(hsize, shmem_n_pes(), "shmem_n_pes() vs sub-communicator size");
        CHECK_EQ_INT(hrank, shmem_my_pe(), "shmem_my_pe() vs sub-communicator rank");
        /* World rank of the left PE of this half: ranks of a half are rank%2, rank%2+2, ... */
        int left_world = (rank % 2) + 2 * ((hrank + hsize - 1) % hsize);
        for (int round = 0; round < 5; ++round)
            ring(1000L * round + rank, 1000L * round + left_world, "ring within a half");
        shmem_finalize();
        MPI_CHECK(MPI_Comm_free(&half));
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_CHECK(MPI_Finalize());
        if (rank == 0) printf("mpi_interop comm: OK\n");
        return 0;
    }
#endif
    fprintf(stderr, "mpi_interop: unknown mode '%s'\n", argv[1]);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
}
