/* MPI one-sided atomics equivalent of shmem_amo.c (the rows MPI has), for the side-by-side table.
 *
 * Passive target, MPI_Win_lock_all(MPI_MODE_NOCHECK) once; rank 0 initiates, the last rank is the
 * target and waits in MPI_Barrier (with more than 2 ranks the others wait there too). Every
 * fetching operation is completed with MPI_Win_flush(target), which is
 * what a blocking OpenSHMEM fetching AMO implies.
 *
 *   fadd_lat   MPI_Fetch_and_op(MPI_SUM) + flush       (shmem_long_atomic_fetch_add)
 *   fetch_lat  MPI_Fetch_and_op(MPI_NO_OP) + flush     (shmem_long_atomic_fetch)
 *   swap_lat   MPI_Fetch_and_op(MPI_REPLACE) + flush   (shmem_long_atomic_swap)
 *   cswap_lat  MPI_Compare_and_swap + flush            (shmem_long_atomic_compare_swap)
 *   add_lat    MPI_Accumulate(MPI_SUM) + flush         (shmem_long_atomic_add + shmem_quiet)
 *   inc_rate   MPI_Accumulate(MPI_SUM), flush every 64 (shmem_long_atomic_inc issue rate)
 *   fadd_nbi_rate MPI_Fetch_and_op(MPI_SUM) into 64 results, flush every 64
 *              (shmem_long_atomic_fetch_add_nbi issue rate)
 *   fxor_lat   MPI_Fetch_and_op(MPI_BXOR) of a high bit + flush (shmem_ulong_atomic_fetch_xor;
 *              an odd batch evened out after the timing)
 *
 * Locations: heap = MPI_Win_allocate, static = a global exposed with MPI_Win_create. Output lines
 * are those of shmem_amo.c (RESULT test=.. size=8 src=LOC dst=LOC value=.. unit=us ...).
 *
 *   mpirun --mca osc ucx -np 2 ./bench_mpi_amo [--quick|--smoke] [-r reps] [-t fadd_lat,...]
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_list.h"

enum test { T_FADD, T_FETCH, T_SWAP, T_CSWAP, T_ADD, T_INC_RATE, T_FXOR, T_FADD_NBI_RATE, NTESTS };
static const char *const test_names[NTESTS] = {"fadd_lat", "fetch_lat", "swap_lat", "cswap_lat",
                                               "add_lat",  "inc_rate",  "fxor_lat", "fadd_nbi_rate"};
#define FXOR_BIT (1UL << 62) /* far above the counts the adding tests leave in the word */
enum { HEAP, STATIC, NLOCS };
static const char *const loc_names[NLOCS] = {"heap", "static"};
#define MAX_REPS 101

static long g_word __attribute__((aligned(64)));

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int tgt; /* the target: the last rank */
static long expected_total; /* what the adding tests must have left in the target word */

static double run_batch(int t, MPI_Win win, long n)
{
    const long one = 1, zero = 0;
    long got = 0, acc = 0;
    long results[64]; /* fadd_nbi_rate: each fetch of a window has its own result, read after the flush */
    double t0 = now_ns();
    for (long i = 0; i < n; ++i) {
        switch (t) {
        case T_FADD: MPI_Fetch_and_op(&one, &got, MPI_LONG, tgt, 0, MPI_SUM, win); break;
        case T_FETCH: MPI_Fetch_and_op(&zero, &got, MPI_LONG, tgt, 0, MPI_NO_OP, win); break;
        case T_SWAP: MPI_Fetch_and_op(&expected_total, &got, MPI_LONG, tgt, 0, MPI_REPLACE, win); break;
        case T_CSWAP: {
            long want = expected_total + (i & 1);
            MPI_Compare_and_swap(&want, &expected_total, &got, MPI_LONG, tgt, 0, win);
            break;
        }
        case T_ADD:
        case T_INC_RATE: MPI_Accumulate(&one, 1, MPI_LONG, tgt, 0, 1, MPI_LONG, MPI_SUM, win); break;
        case T_FXOR: {
            unsigned long bit = FXOR_BIT, old = 0;
            MPI_Fetch_and_op(&bit, &old, MPI_UNSIGNED_LONG, tgt, 0, MPI_BXOR, win);
            got = (long)old;
            break;
        }
        case T_FADD_NBI_RATE: MPI_Fetch_and_op(&one, &results[i & 63], MPI_LONG, tgt, 0, MPI_SUM, win); break;
        }
        const int windowed = t == T_INC_RATE || t == T_FADD_NBI_RATE;
        if (!windowed || (i & 63) == 63) {
            MPI_Win_flush(tgt, win);
            if (t == T_FADD_NBI_RATE) got = results[0];
        }
        acc += got;
    }
    if (t == T_INC_RATE || t == T_FADD_NBI_RATE) MPI_Win_flush(tgt, win);
    if (t == T_FADD || t == T_ADD || t == T_INC_RATE || t == T_FADD_NBI_RATE) expected_total += n;
    double t1 = now_ns();
    if (t == T_FXOR && (n & 1)) { /* back to the value the checks expect */
        unsigned long bit = FXOR_BIT, old = 0;
        MPI_Fetch_and_op(&bit, &old, MPI_UNSIGNED_LONG, tgt, 0, MPI_BXOR, win);
        MPI_Win_flush(tgt, win);
    }
    if (t == T_CSWAP) { /* a matching compare-and-swap changed the word: restore it, outside the timing */
        MPI_Fetch_and_op(&expected_total, &got, MPI_LONG, tgt, 0, MPI_REPLACE, win);
        MPI_Win_flush(tgt, win);
    }
    __asm__ volatile("" : : "r"(acc)); /* keep the fetched values alive */
    return t1 - t0;
}

int main(int argc, char **argv)
{
    int quick = 0, smoke = 0, reps = -1;
    unsigned tests = 0; /* bit mask; 0 = all */
    for (int i = 1; i < argc; ++i) {
        if ((!strcmp(argv[i], "-t") || !strcmp(argv[i], "--tests")) && i + 1 < argc) {
            if (bench_test_list(argv[0], argv[++i], test_names, NTESTS, &tests)) return 2;
        } else if (!strcmp(argv[i], "--quick") || !strcmp(argv[i], "-q")) quick = 1;
        else if (!strcmp(argv[i], "--smoke")) smoke = 1;
        else if ((!strcmp(argv[i], "-r") || !strcmp(argv[i], "--reps")) && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-table") || !strcmp(argv[i], "--no-check")) continue;
        else {
            fprintf(stderr, "usage: %s [--quick|--smoke] [-r reps] [-t test,...]   (2 ranks, --mca osc ucx)\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1) reps = smoke ? 2 : quick ? 7 : 11;
    if (reps > MAX_REPS) reps = MAX_REPS;
    const double batch_ns = smoke ? 1e5 : quick ? 1e6 : 4e6, warm_ns = smoke ? 1e5 : quick ? 3e6 : 1e7;

    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tgt = np - 1;
    if (np < 2) {
        if (me == 0) fprintf(stderr, "%s: needs 2 ranks or more (got %d)\n", argv[0], np);
        MPI_Finalize();
        return 2;
    }
    MPI_Win win[NLOCS];
    long *heap = NULL;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &heap, &win[HEAP]);
    MPI_Win_create(&g_word, sizeof g_word, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win[STATIC]);
    long *words[NLOCS] = {heap, &g_word};
    for (int l = 0; l < NLOCS; ++l) MPI_Win_lock_all(MPI_MODE_NOCHECK, win[l]);
    if (me == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
        int len = 0;
        MPI_Get_library_version(lib, &len);
        lib[strcspn(lib, ",\n")] = 0;
        printf("INFO impl=mpi lib=\"%s\" npes=%d mode=%s bench=amo\n", lib, np, smoke ? "smoke" : quick ? "quick" : "full");
        fflush(stdout);
    }
    int errors = 0;
    for (int t = 0; t < NTESTS; ++t) {
        if (tests && !(tests & (1u << t))) continue;
        for (int l = 0; l < NLOCS; ++l) {
            *words[l] = 0;
            MPI_Win_sync(win[l]);
            expected_total = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 0) {
                double per[MAX_REPS], total = 0, last = 0;
                long n = 1, done = 0;
                for (;;) { /* warm-up with growing batches; the last one calibrates */
                    last = run_batch(t, win[l], n);
                    total += last;
                    done += n;
                    if (total >= warm_ns && done >= 4) break;
                    if (last < warm_ns / 4 && n < (1L << 24)) n *= 2;
                }
                double est = last / (double)n, want = batch_ns / (est < 1 ? 1 : est);
                long iters = want < 1 ? 1 : want > 1e7 ? 10000000L : (long)want;
                for (int r = 0; r < reps; ++r) per[r] = run_batch(t, win[l], iters) / (double)iters;
                qsort(per, (size_t)reps, sizeof per[0], cmp_double);
                double med = reps % 2 ? per[reps / 2] : 0.5 * (per[reps / 2 - 1] + per[reps / 2]);
                printf("RESULT test=%s size=8 src=%s dst=%s value=%.4f unit=us best=%.4f iters=%ld reps=%d window=1\n",
                       test_names[t], loc_names[l], loc_names[l], med / 1e3, per[0] / 1e3, iters, reps);
                fflush(stdout);
                long have = 0;
                const long zero = 0;
                MPI_Fetch_and_op(&zero, &have, MPI_LONG, tgt, 0, MPI_NO_OP, win[l]);
                MPI_Win_flush(tgt, win[l]);
                if (have != expected_total) {
                    fprintf(stderr, "CHECK FAILED test=%s loc=%s: target word %ld, expected %ld\n", test_names[t],
                            loc_names[l], have, expected_total);
                    ++errors;
                }
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    for (int l = 0; l < NLOCS; ++l) {
        MPI_Win_unlock_all(win[l]);
        MPI_Win_free(&win[l]);
    }
    MPI_Finalize();
    return errors ? 1 : 0;
}
