/* The clock and the sort order the benchmarks share (shmem_amo.c, shmem_heap_grow.c, compute_common.h):
 * header-only, so that each program still builds alone with oshcc against OSHMEM. */
#ifndef USHMEM_BENCH_TIMING_H
#define USHMEM_BENCH_TIMING_H

#include <time.h>

/* Monotonic nanoseconds, as a double (differences of a few seconds keep ns resolution). */
static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* qsort order of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
