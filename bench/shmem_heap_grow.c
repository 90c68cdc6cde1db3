/* shmem_heap_grow: what a heap that grows costs (issue #51). PE 0 prints:
 *   RESULT test=malloc_fits  size=65536 src=pe0 dst=initial value=US unit=us   (median shmem_malloc that fits)
 *   RESULT test=malloc_grows size=CHUNK src=pe0 dst=grown   value=US unit=us   (median shmem_malloc that maps a chunk)
 *   RESULT test=put_quiet_lat size=8 src=pe0 dst=initial|grown value=NS unit=ns (8 B put + quiet to PE 1)
 *   RESULT test=fadd_lat      size=8 src=pe0 dst=initial|grown value=NS unit=ns (8 B fetch-add on PE 1)
 * The growing allocations ask for USHMEM_HEAP_CHUNK bytes less 4 KiB, so that each maps one chunk.
 * Run: SHMEM_SYMMETRIC_SIZE=16M mpirun -np 2 bench_shmem_heap_grow [--smoke] [--iters N]. */
#define _GNU_SOURCE
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "timing.h"

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* Median over `rounds` of the mean time of `reps` 8 B puts + quiet (or fetch-adds) at `dst` on PE 1. */
static double latency(long *dst, int fadd, int rounds, int reps) {
    double t[64];
    long v = 1;
    for (int r = 0; r < rounds; ++r) {
        double t0 = now_ns();
        for (int i = 0; i < reps; ++i) {
            if (fadd) v += shmem_long_atomic_fetch_add(dst, 1, 1);
            else {
                shmem_long_put(dst, &v, 1, 1);
                shmem_quiet();
            }
        }
        t[r] = (now_ns() - t0) / reps;
    }
    if (v == 42) printf("#\n"); /* keeps the fetched values alive */
    return median(t, rounds);
}

int main(int argc, char **argv) {
    int iters = 8, rounds = 15, reps = 20000;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--smoke")) iters = 3, rounds = 3, reps = 1000;
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
    }
    if (iters < 1 || iters > 64) iters = 8;
    if (rounds > 64) rounds = 64;
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    const char *c = getenv("USHMEM_HEAP_CHUNK");
    size_t chunk = 64u << 20;
    if (c) {
        char *end;
        chunk = strtoull(c, &end, 10);
        if (*end == 'M' || *end == 'm') chunk <<= 20;
        else if (*end == 'G' || *end == 'g') chunk <<= 30;
        else if (*end == 'K' || *end == 'k') chunk <<= 10;
    }
    if (np < 2) {
        if (me == 0) fprintf(stderr, "%s: needs 2 PEs\n", argv[0]);
        shmem_finalize();
        return 1;
    }
    double t[64];
    /* Allocations that fit the initial heap. */
    void *fit[64];
    for (int i = 0; i < iters; ++i) {
        shmem_barrier_all();
        double t0 = now_ns();
        fit[i] = shmem_malloc(65536);
        t[i] = (now_ns() - t0) / 1e3;
        if (!fit[i]) { fprintf(stderr, "CHECK FAILED pe=%d test=malloc_fits: NULL\n", me); shmem_global_exit(1); }
    }
    if (me == 0) printf("RESULT test=malloc_fits size=65536 src=pe0 dst=initial value=%.1f unit=us\n", median(t, iters));
    /* Allocations that each map a chunk: those whose block starts a new chunk (chunk-aligned, above
     * every earlier block); the first ones may still fit the initial heap's free space. */
    void *grown[256];
    int n_grown = 0, samples = 0;
    uintptr_t top = 0;
    while (samples < iters && n_grown < 256) {
        shmem_barrier_all();
        double t0 = now_ns();
        void *p = shmem_malloc(chunk - 4096);
        double us = (now_ns() - t0) / 1e3;
        if (!p) { fprintf(stderr, "CHECK FAILED pe=%d test=malloc_grows: NULL\n", me); shmem_global_exit(1); }
        grown[n_grown++] = p;
        if (((uintptr_t)p & (chunk - 1)) == 0 && (uintptr_t)p >= top) t[samples++] = us;
        if ((uintptr_t)p + chunk > top) top = (uintptr_t)p + chunk;
    }
    if (me == 0) printf("RESULT test=malloc_grows size=%zu src=pe0 dst=grown value=%.1f unit=us\n", chunk, median(t, samples));
    /* The hot path into the initial heap and into the last chunk. */
    long *in_initial = fit[0], *in_grown = grown[n_grown - 1];
    *in_initial = *in_grown = 0;
    shmem_barrier_all();
    if (me == 0) {
        for (int fadd = 0; fadd < 2; ++fadd) {
            latency(in_initial, fadd, 2, reps / 10); /* warm up both routes */
            latency(in_grown, fadd, 2, reps / 10);
            double a = latency(in_initial, fadd, rounds, reps), b = latency(in_grown, fadd, rounds, reps);
            const char *name = fadd ? "fadd_lat" : "put_quiet_lat";
            printf("RESULT test=%s size=8 src=pe0 dst=initial value=%.1f unit=ns\n", name, a);
            printf("RESULT test=%s size=8 src=pe0 dst=grown value=%.1f unit=ns\n", name, b);
        }
    }
    shmem_barrier_all();
    for (int i = 0; i < n_grown; ++i) shmem_free(grown[i]);
    for (int i = 0; i < iters; ++i) shmem_free(fit[i]);
    shmem_finalize();
    return 0;
}
