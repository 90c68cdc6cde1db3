/* OSU-style OpenSHMEM atomics and signaling micro-benchmark: latency of 8-byte AMOs and of
 * put-with-signal between 2 PEs.
 *
 * Uses only <shmem.h>, so the same source builds against ushmem (CMake target bench_shmem_amo)
 * and against Open MPI's OSHMEM (`oshcc -O2 -std=gnu11`, OpenSHMEM 1.4: the 1.5/1.6 routines are
 * left out by the version test below). PE 0 initiates; the last PE is the target and waits in
 * shmem_barrier_all, except in the ping-pong tests where both take turns; with more than 2 PEs
 * (the two-host rows) the others only wait in shmem_barrier_all.
 *
 *   fadd_lat      shmem_long_atomic_fetch_add                     (blocking, per operation)
 *   finc_lat      shmem_long_atomic_fetch_inc
 *   fetch_lat     shmem_long_atomic_fetch
 *   cswap_lat     shmem_long_atomic_compare_swap (alternately matching and not)
 *   swap_lat      shmem_long_atomic_swap
 *   add_lat       shmem_long_atomic_add + shmem_quiet             (non-fetching, completed)
 *   inc_rate      shmem_long_atomic_inc, shmem_quiet every 64      (issue rate, per operation)
 *   fadd_nbi_rate shmem_long_atomic_fetch_add_nbi, shmem_quiet every 64 (fetching issue rate) [1.5+]
 *   fxor_lat      shmem_ulong_atomic_fetch_xor of a high bit (the word changes every call; an
 *                 odd batch is evened out by one more call after the timing)
 *   wait_pingpong PE 0 atomic_set -> PE 1 wait_until, and back    (half round trip)
 *   psig_lat      shmem_putmem_signal(8 B, SHMEM_SIGNAL_ADD) + shmem_quiet    [1.5+]
 *   sig_pingpong  putmem_signal(8 B, SET) -> signal_wait_until, and back (half round trip) [1.5+]
 *
 * Every test runs with the target word on the symmetric heap (shmem_malloc) and in static data (a
 * global). Output: one line per test and location, same format as bench/shmem_rma.c:
 *   RESULT test=fadd_lat size=8 src=heap dst=heap value=0.0123 unit=us best=0.0119 iters=.. reps=.. window=1
 * (src and dst both name the target's location.) Values are medians over `reps` timed batches.
 *
 * Run: mpirun -np 2 ./bench_shmem_amo [--quick|--smoke] [-t test,test] [-r reps]
 */
#define _GNU_SOURCE
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_list.h"
#include "timing.h"

#if SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105
#define HAVE_SIGNAL 1
#else
#define HAVE_SIGNAL 0
#endif

enum test {
    T_FADD, T_FINC, T_FETCH, T_CSWAP, T_SWAP, T_ADD, T_INC_RATE, T_FXOR, T_WAIT_PP, T_PSIG, T_SIG_PP,
    T_FADD_NBI_RATE, NTESTS
};
static const char *const test_names[NTESTS] = {"fadd_lat", "finc_lat",  "fetch_lat",     "cswap_lat",
                                               "swap_lat", "add_lat",   "inc_rate",      "fxor_lat",
                                               "wait_pingpong", "psig_lat", "sig_pingpong",
                                               "fadd_nbi_rate"};
static int pingpong(int t) { return t == T_WAIT_PP || t == T_SIG_PP; }
static int available(int t) { return HAVE_SIGNAL || (t != T_PSIG && t != T_SIG_PP && t != T_FADD_NBI_RATE); }

enum { HEAP, STATIC, NLOCS };
static const char *const loc_names[NLOCS] = {"heap", "static"};

#define MAX_REPS 101

static long g_word __attribute__((aligned(64)));
static long g_flag __attribute__((aligned(64)));
static uint64_t g_sig __attribute__((aligned(64)));
static long g_payload[8] __attribute__((aligned(64)));
static long g_iters; /* PE 0 tells PE 1 the batch length of a ping-pong */

struct target {
    long *word;   /* AMO target */
    long *flag;   /* ping-pong flag */
    uint64_t *sig;
    long *payload;
};

static int me;
static int tgt; /* the target: the last PE */
#define FXOR_BIT (1UL << 62) /* far above the counts the adding tests leave in the word */
static long expected_total; /* what fetch_add/inc tests must have left in the word */

/* Runs n operations of test t (PE 0's side, or both sides of a ping-pong); returns ns. */
static long seq; /* ping-pong sequence number, same on both PEs */
static double run_batch(int t, struct target *g, long n) {
    const int peer = me == 0 ? tgt : 0;
    long acc = 0;
    double t0 = now_ns();
    switch (t) {
    case T_FADD:
        for (long i = 0; i < n; ++i) acc += shmem_long_atomic_fetch_add(g->word, 1, tgt);
        expected_total += n;
        break;
    case T_FINC:
        for (long i = 0; i < n; ++i) acc += shmem_long_atomic_fetch_inc(g->word, tgt);
        expected_total += n;
        break;
    case T_FETCH:
        for (long i = 0; i < n; ++i) acc += shmem_long_atomic_fetch(g->word, tgt);
        break;
    case T_CSWAP:
        for (long i = 0; i < n; ++i) acc += shmem_long_atomic_compare_swap(g->word, expected_total, expected_total + (i & 1), tgt);
        break;
    case T_SWAP:
        for (long i = 0; i < n; ++i) acc += shmem_long_atomic_swap(g->word, expected_total, tgt);
        break;
    case T_ADD:
        for (long i = 0; i < n; ++i) {
            shmem_long_atomic_add(g->word, 1, tgt);
            shmem_quiet();
        }
        expected_total += n;
        break;
    case T_INC_RATE:
        for (long i = 0; i < n; ++i) {
            shmem_long_atomic_inc(g->word, tgt);
            if ((i & 63) == 63) shmem_quiet();
        }
        shmem_quiet();
        expected_total += n;
        break;
    case T_FXOR:
        for (long i = 0; i < n; ++i) acc += (long)shmem_ulong_atomic_fetch_xor((unsigned long *)g->word, FXOR_BIT, tgt);
        break;
    case T_WAIT_PP:
        for (long i = 0; i < n; ++i) {
            ++seq;
            if (me == 0) {
                shmem_long_atomic_set(g->flag, seq, peer);
                shmem_long_wait_until(g->flag, SHMEM_CMP_EQ, seq);
            } else {
                shmem_long_wait_until(g->flag, SHMEM_CMP_EQ, seq);
                shmem_long_atomic_set(g->flag, seq, peer);
            }
        }
        break;
#if HAVE_SIGNAL
    case T_FADD_NBI_RATE: {
        static long fetched[64];
        for (long i = 0; i < n; ++i) {
            shmem_long_atomic_fetch_add_nbi(&fetched[i & 63], g->word, 1, tgt);
            if ((i & 63) == 63) shmem_quiet();
        }
        shmem_quiet();
        acc += fetched[0];
        expected_total += n;
        break;
    }
    case T_PSIG:
        for (long i = 0; i < n; ++i) {
            shmem_putmem_signal(g->payload, &i, 8, g->sig, 1, SHMEM_SIGNAL_ADD, tgt);
            shmem_quiet();
        }
        break;
    case T_SIG_PP:
        for (long i = 0; i < n; ++i) {
            ++seq;
            if (me == 0) {
                shmem_putmem_signal(g->payload, &seq, 8, g->sig, (uint64_t)seq, SHMEM_SIGNAL_SET, peer);
                shmem_signal_wait_until(g->sig, SHMEM_CMP_EQ, (uint64_t)seq);
            } else {
                shmem_signal_wait_until(g->sig, SHMEM_CMP_EQ, (uint64_t)seq);
                shmem_putmem_signal(g->payload, &seq, 8, g->sig, (uint64_t)seq, SHMEM_SIGNAL_SET, peer);
            }
        }
        break;
#endif
    default: break;
    }
    double t1 = now_ns();
    if (t == T_FXOR && (n & 1)) /* back to the value the checks expect */
        acc += (long)shmem_ulong_atomic_fetch_xor((unsigned long *)g->word, FXOR_BIT, tgt);
    if (acc == 42) fprintf(stderr, " "); /* keep acc alive */
    return t1 - t0;
}

struct opts {
    unsigned tests; /* bit mask; 0 = all available */
    int reps;
    double batch_ns, warm_ns;
    int smoke;
    const char *mode;
};

static int parse(int argc, char **argv, struct opts *o) {
    int quick = 0;
    o->tests = 0;
    o->reps = -1;
    o->smoke = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--quick") || !strcmp(a, "-q")) quick = 1;
        else if (!strcmp(a, "--smoke")) o->smoke = 1;
        else if ((!strcmp(a, "-r") || !strcmp(a, "--reps")) && i + 1 < argc) o->reps = atoi(argv[++i]);
        else if ((!strcmp(a, "-t") || !strcmp(a, "--tests")) && i + 1 < argc) {
            if (bench_test_list(argv[0], argv[++i], test_names, NTESTS, &o->tests)) return -1;
            /* Skipped, not an error: bench/run-all gives every library the same list, and a
             * 1.4 library's cell of such a row reads n/a. */
            for (int t = 0; t < NTESTS; ++t)
                if ((o->tests & (1u << t)) && !available(t)) {
                    fprintf(stderr, "%s: skipping test '%s': it needs OpenSHMEM 1.5 or later\n", argv[0], test_names[t]);
                    o->tests &= ~(1u << t);
                    if (!o->tests) return -1;
                }
        } else if (!strcmp(a, "--no-table") || !strcmp(a, "--no-check")) {
            /* accepted for bench/run compatibility */
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: %s [--quick|--smoke] [-t test,...] [-r reps]   (2 PEs)\ntests:", argv[0]);
            for (int t = 0; t < NTESTS; ++t)
                if (available(t)) printf(" %s", test_names[t]);
            printf("\n");
            return 1;
        } else {
            fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", argv[0], a);
            return -1;
        }
    }
    o->mode = o->smoke ? "smoke" : quick ? "quick" : "full";
    if (o->reps < 1) o->reps = o->smoke ? 2 : quick ? 7 : 11;
    if (o->reps > MAX_REPS) o->reps = MAX_REPS;
    o->batch_ns = o->smoke ? 1e5 : quick ? 1e6 : 4e6;
    o->warm_ns = o->smoke ? 1e5 : quick ? 3e6 : 1e7;
    return 0;
}

int main(int argc, char **argv) {
    struct opts o;
    int prc = parse(argc, argv, &o);
    shmem_init();
    me = shmem_my_pe();
    const int npes = shmem_n_pes();
    tgt = npes - 1;
    if (prc != 0 || npes < 2) {
        if (me == 0 && prc == 0) fprintf(stderr, "%s: needs 2 PEs or more (got %d)\n", argv[0], npes);
        shmem_finalize();
        return prc == 1 ? 0 : 2;
    }
    long *h = shmem_malloc(16 * sizeof(long));
    if (!h) {
        fprintf(stderr, "pe %d: shmem_malloc failed\n", me);
        shmem_global_exit(3);
    }
    memset(h, 0, 16 * sizeof(long));
    struct target tg[NLOCS] = {
        {&h[0], &h[1], (uint64_t *)&h[2], &h[8]},
        {&g_word, &g_flag, &g_sig, g_payload},
    };
    if (me == 0) {
        char name[SHMEM_MAX_NAME_LEN + 1] = {0};
        int major = 0, minor = 0;
        shmem_info_get_name(name);
        shmem_info_get_version(&major, &minor);
        printf("INFO impl=shmem lib=\"%s\" spec=%d.%d npes=%d mode=%s bench=amo\n", name, major, minor,
               npes, o.mode);
        fflush(stdout);
    }
    int errors = 0;
    for (int t = 0; t < NTESTS; ++t) {
        if (!available(t) || (o.tests && !(o.tests & (1u << t)))) continue;
        for (int l = 0; l < NLOCS; ++l) {
            struct target *g = &tg[l];
            shmem_barrier_all();
            *g->word = 0;
            *g->flag = 0;
            *g->sig = 0;
            expected_total = 0;
            seq = 0;
            shmem_barrier_all();
            double per[MAX_REPS];
            long iters = 1;
            if (pingpong(t)) {
                /* Both PEs run every batch: PE 0 calibrates and tells the target the batch length. */
                const int player = me == 0 || me == tgt;
                long warm = o.smoke ? 20 : 500;
                double w = player ? run_batch(t, g, warm) : 1;
                if (me == 0) {
                    double want = o.batch_ns / (w / (double)warm);
                    g_iters = want < 1 ? 1 : want > 1e6 ? 1000000 : (long)want;
                }
                shmem_barrier_all();
                iters = shmem_long_g(&g_iters, 0);
                for (int r = 0; r < o.reps; ++r) {
                    shmem_barrier_all();
                    if (player) per[r] = run_batch(t, g, iters) / (double)iters / 2; /* half round trip */
                }
            } else if (me == 0) {
                long n = 1, done = 0;
                double total = 0, last = 0;
                for (;;) {
                    last = run_batch(t, g, n);
                    total += last;
                    done += n;
                    if (total >= o.warm_ns && done >= 4) break;
                    if (last < o.warm_ns / 4 && n < (1L << 24)) n *= 2;
                }
                double est = last / (double)n;
                if (est < 1) est = 1;
                double want = o.batch_ns / est;
                iters = want < 1 ? 1 : want > 1e7 ? 10000000L : (long)want;
                for (int r = 0; r < o.reps; ++r) per[r] = run_batch(t, g, iters) / (double)iters;
            }
            shmem_barrier_all();
            if (me == 0) {
                qsort(per, (size_t)o.reps, sizeof per[0], cmp_double);
                double med = o.reps % 2 ? per[o.reps / 2] : 0.5 * (per[o.reps / 2 - 1] + per[o.reps / 2]);
                printf("RESULT test=%s size=8 src=%s dst=%s value=%.4f unit=us best=%.4f iters=%ld reps=%d "
                       "window=1\n",
                       test_names[t], loc_names[l], loc_names[l], med / 1e3, per[0] / 1e3, iters, o.reps);
                fflush(stdout);
                if (t == T_FADD || t == T_FINC || t == T_ADD || t == T_INC_RATE || t == T_FADD_NBI_RATE) {
                    long have = shmem_long_atomic_fetch(g->word, tgt);
                    if (have != expected_total) {
                        fprintf(stderr, "CHECK FAILED test=%s loc=%s: target word %ld, expected %ld\n",
                                test_names[t], loc_names[l], have, expected_total);
                        ++errors;
                    }
                }
            }
        }
    }
    shmem_barrier_all();
    shmem_free(h);
    shmem_finalize();
    return errors ? 1 : 0;
}
