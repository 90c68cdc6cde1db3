/* The start of the two-rank MPI programs of the RMA benchmarks that have no OpenSHMEM layer
 * (ucx_raw.c, tcp_floor.c): MPI_Init after the options were parsed (prc: rb_parse_opts' result),
 * then exactly two ranks, or the program ends here. Returns -1 to go on (*me set), or the exit
 * code (0 after --help, 2 on a bad option or rank count). */
#ifndef USHMEM_BENCH_MPI_PAIR_H
#define USHMEM_BENCH_MPI_PAIR_H

#include <mpi.h>
#include <stdio.h>

static inline int rb_mpi_pair_start(int *argc, char ***argv, int prc, int *me)
{
    int np;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (prc == 0 && np == 2) return -1;
    if (*me == 0 && prc == 0) fprintf(stderr, "%s: needs exactly 2 ranks (got %d)\n", (*argv)[0], np);
    MPI_Finalize();
    return prc == 1 ? 0 : 2;
}

#endif
