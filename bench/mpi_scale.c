/* The MPI_Init-alone baseline of bench/shmem_scale.c (issue #50): the same figures for a program
 * that only calls MPI_Init, i.e. the launcher's and MPI's own share of a shmem_init, against which
 * ushmem's and OSHMEM's shares are computed (both run MPI's start-up inside shmem_init).
 *   init_us    wall time of MPI_Init on the slowest process
 *   init_cpu_us CPU time of the process over MPI_Init, mean over processes
 *   malloc_kb  bytes in use in malloc's heap after MPI_Init (glibc mallinfo2), mean over processes
 *   anon_kb    RssAnon after MPI_Init, mean over processes
 * Process 0 prints RESULT lines in bench/shmem_scale.c's format.
 *   mpirun -np 16 ./bench_mpi_scale */
#define _GNU_SOURCE
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smaps.h"

static double clock_us(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}


int main(int argc, char **argv)
{
    const double t0 = clock_us(CLOCK_MONOTONIC), c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
    MPI_Init(&argc, &argv);
    const double t1 = clock_us(CLOCK_MONOTONIC), c1 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
    struct mallinfo2 mi = mallinfo2();
    double v[4] = {t1 - t0, (double)(mi.uordblks + mi.hblkhd) / 1024.0, (double)status_kb("RssAnon"), c1 - c0};
    int me = 0, n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double mx[4], sum[4];
    MPI_Reduce(v, mx, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(v, sum, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        static const char *const names[4] = {"init_us", "malloc_kb", "anon_kb", "init_cpu_us"};
        printf("INFO impl=mpi lib=\"MPI_Init alone\" npes=%d bench=scale\n", n);
        for (int m = 0; m < 4; ++m)
            printf("RESULT test=%s size=%d src=- dst=- value=%.1f unit=%s max=%.1f mean=%.1f\n", names[m], n,
                   m == 0 ? mx[m] : sum[m] / n, (m == 0 || m == 3) ? "us" : "kB", mx[m], sum[m] / n);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
