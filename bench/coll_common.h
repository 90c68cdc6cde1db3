/* Shared, library-neutral part of the collective micro-benchmarks (shmem_coll.c, mpi_coll.c):
 * options, the job plan, the timing loop and the RESULT lines. Plain C11 + POSIX.
 *
 * Measurement (as OSU's osu_bcast, osu_allreduce, ...; the same for every library so that the
 *  columns compare):
 *  - a job is one (test, size). Every call is timed on its own (clock_gettime around it) and
 *    followed by an untimed barrier of the library under test, so that every call starts from
 *    synchronised processes and measures a latency, not a pipelined rate. The barrier test times
 *    back-to-back barriers.
 *  - warm-up, then the batch length n is chosen so that one batch lasts about `batch_ns`; every
 *    process gets the same n (a collective decision);
 *  - `reps` batches; a batch's value is the average over processes of (the process's summed call
 *    times / n); the reported value is the median over batches, `best` the smallest.
 *  - on a loaded machine (bench/run-all's load section) a batch length calibrated once is wrong both
 *    ways: a lucky fast warm-up makes a batch of a collapsing library last minutes, and a batch
 *    shorter than a few scheduler time slices (~3 ms each) mostly falls between them and reports
 *    the idle figure (measured here beside two compiler loops: 100 and 1000 barriers per batch
 *    gave the idle 0.3 us, 10000 gave 3.3 us). --min-batch-ms T makes every batch last at least T
 *    on the slowest process, whatever the speed of the moment: it runs chunks of 1, 2, 4, ... calls
 *    and stops after the chunk that brings the batch to T (one max-reduction between chunks, not
 *    timed); the value is the batch's summed call time / its calls. --iters N fixes the batch
 *    length instead. --max-s S takes no further batch once a job has run S seconds (at least one
 *    batch; the RESULT line's reps= says how many were taken), which bounds a collapsing library.
 *  - sizes: barrier 0; broadcast and reduce: the whole message; fcollect: each process's
 *    contribution; alltoall and alltoalls: each block (process-to-process message), as OSU;
 *    getall: each block too.
 * The library side supplies the hooks at the bottom (one call, barrier, sum/max of one double). */
#ifndef USHMEM_BENCH_COLL_COMMON_H
#define USHMEM_BENCH_COLL_COMMON_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CB_MAX_SIZE ((size_t)1 << 20)
#define CB_MAX_REPS 101
#define CB_MAX_SIZES 32

enum cb_test { CB_BARRIER, CB_BCAST, CB_REDUCE, CB_FCOLLECT, CB_ALLTOALL, CB_ALLTOALLS, CB_GETALL, CB_PINGPONG, CB_NTESTS };
static const char *const cb_test_names[CB_NTESTS] = {"barrier", "broadcast", "reduce", "fcollect", "alltoall",
                                                     "alltoalls", "getall", "pingpong"};
/* pingpong: not a collective either: each process and its partner exchange CB_PP_TRIPS round trips
 * per call, the lower one sending first, each message `size` bytes into the partner's dest plus its
 * notification (put-with-signal and a wait for the signal; without OpenSHMEM 1.5, a put, a fence
 * and a flag put; MPI: MPI_Send and MPI_Recv). Partners are on different hosts when the job spans
 * several (cb_pp_pair: the i-th process of the first host with the i-th of the second, the third
 * host's with the fourth's, ..., whatever the launcher's mapping), else process r and r + np / 2.
 * The value is per one-way trip (the call's time / (2 CB_PP_TRIPS)), as OSU's latency tests
 * report: both partners spend the whole exchange in the call, so the average over processes is
 * the exchange's time. A process without a partner (an odd count, hosts of unequal sizes) is left
 * out of the average. Only when named, and at sizes up to CB_GETALL_MAX. */
#define CB_PP_TRIPS 10
static int *cb_pp_peer; /* partner of each process (-1: none), from cb_pp_pair */
static inline int cb_pp_half(int me, int np) /* one host's pairs: r and r + np / 2 */
{
    const int half = np / 2;
    return me < half ? me + half : me < 2 * half ? me - half : -1;
}
static inline int cb_pp_partner(int me, int np) { return cb_pp_peer ? cb_pp_peer[me] : cb_pp_half(me, np); }
/* getall: not a collective, the pattern of one (SOS's spam all2all_get): every process fetches its
 * block from every other one with blocking gets, the next process first (shmem_getmem; MPI_Get +
 * MPI_Win_flush), so that every process waits for answers while the others wait for its own. Over
 * a network each get needs its target's CPU: on a node with more processes than CPUs, how a waiting
 * process shares the CPU decides it. Only when named, and at sizes up to CB_GETALL_MAX. */
#define CB_GETALL_MAX ((size_t)1024)
/* alltoalls: 64-bit elements, source stride 1, dest stride 2 (CB_STRIDE): block j of a process's
 * source is `size` bytes; the block from process p lands at element 2 * p * size / 8 of the dest,
 * every other element, the elements between left alone (checked). Only at sizes up to
 * CB_ALLTOALLS_MAX: a library that moves it element by element over the network (OSHMEM over tcp)
 * takes seconds per call above. */
#define CB_STRIDE 2
#define CB_ALLTOALLS_MAX ((size_t)1024)

/* alltoalls' data: element k of process p's block j (never 0, the value of the dest's gaps); the
 * source of process `me`, and the check of its dest (0: as expected). */
static inline int64_t cb_pat64(int p, size_t j, size_t k) { return (int64_t)p * 1000003 + (int64_t)j * 1009 + (int64_t)k + 1; }
static inline void cb_fill_alltoalls(void *src, int np, int me, size_t n64)
{
    for (int j = 0; j < np; ++j)
        for (size_t k = 0; k < n64; ++k) ((int64_t *)src)[(size_t)j * n64 + k] = cb_pat64(me, (size_t)j, k);
}
static inline int cb_check_alltoalls(const void *dst, int np, int me, size_t n64)
{
    for (int p = 0; p < np; ++p)
        for (size_t k = 0; k < n64; ++k) {
            const int64_t *e = (const int64_t *)dst + ((size_t)p * n64 + k) * CB_STRIDE;
            if (e[0] != cb_pat64(p, (size_t)me, k) || e[1] != 0) return 1;
        }
    return 0;
}

struct cb_opts {
    const char *prog;
    unsigned tests;
    size_t sizes[CB_MAX_SIZES];
    int nsizes;
    int reps;
    long iters;    /* fixed calls per batch (--iters); 0: calibrated to batch_ns */
    double min_batch_ns; /* --min-batch-ms: batches grow until they last this long; 0: off */
    double max_ns; /* --max-s: no new batch after this much time in a job; 0: no limit */
    double batch_ns, warm_ns;
    int check;
    int table;
    int smoke;
};

static inline double cb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline size_t cb_parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'k' || *end == 'K') v *= 1024;
    else if (*end == 'm' || *end == 'M') v *= 1024 * 1024;
    return (size_t)v;
}

static inline void cb_usage(const char *prog, const char *extra)
{
    printf("usage: %s [options]   (any number of processes)\n"
           "  -q, --quick        short batches, fewer repeats\n"
           "      --smoke        quickest (ctest): two sizes, 2 repeats\n"
           "  -t, --tests LIST   comma list of: barrier broadcast reduce fcollect alltoall alltoalls getall\n"
           "                     pingpong (default all but getall and pingpong; alltoalls, getall and pingpong\n"
           "                     only at sizes up to 1K)\n"
           "  -s, --sizes LIST   comma list of sizes in bytes, K/M suffixes (default 8,1K,64K,1M; max 1M)\n"
           "  -r, --reps N       timed batches per job (default 11, quick 7)\n"
           "  -b, --batch-us N   target duration of a batch (default 4000, quick 1500)\n"
           "      --iters N      fixed calls per batch instead of calibrating to --batch-us\n"
           "      --min-batch-ms T  every batch grows (1, 2, 4, ... calls) until it lasted T ms (loaded machines)\n"
           "      --max-s S      take no further batch once a job has run S seconds (at least one)\n"
           "      --no-check     do not verify the results\n"
           "      --no-table     no human table at the end\n"
           "%s"
           "Output: 'RESULT test=.. size=.. np=.. value=.. unit=us best=.. iters=.. reps=.. lib=.. api=..'\n",
           prog, extra);
}

/* Returns 0, 1 for --help (caller exits 0), -1 on error; `api` receives --api's value if any. */
static inline int cb_parse(int argc, char **argv, struct cb_opts *o, const char **api)
{
    static const struct option lo[] = {{"quick", no_argument, 0, 'q'},   {"smoke", no_argument, 0, 'S'},
                                       {"tests", required_argument, 0, 't'}, {"sizes", required_argument, 0, 's'},
                                       {"reps", required_argument, 0, 'r'}, {"batch-us", required_argument, 0, 'b'},
                                       {"no-check", no_argument, 0, 'C'}, {"no-table", no_argument, 0, 'T'},
                                       {"api", required_argument, 0, 'A'},  {"help", no_argument, 0, 'h'},
                                       {"iters", required_argument, 0, 'I'}, {"max-s", required_argument, 0, 'X'},
                                       {"min-batch-ms", required_argument, 0, 'B'},
                                       {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->prog = argv[0];
    o->reps = 11;
    o->batch_ns = 4e6;
    o->warm_ns = 10e6;
    o->check = 1;
    o->table = 1;
    int c, reps_set = 0, batch_set = 0;
    while ((c = getopt_long(argc, argv, "qt:s:r:b:h", lo, NULL)) != -1) {
        switch (c) {
        case 'q':
            if (!reps_set) o->reps = 7;
            if (!batch_set) o->batch_ns = 1.5e6;
            o->warm_ns = 4e6;
            break;
        case 'S':
            o->smoke = 1;
            o->reps = 2;
            o->batch_ns = 2e5;
            o->warm_ns = 2e5;
            o->table = 0;
            break;
        case 't': {
            char *s = strdup(optarg), *save = NULL;
            for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                int f = -1;
                for (int t = 0; t < CB_NTESTS; ++t)
                    if (strcmp(tok, cb_test_names[t]) == 0) f = t;
                if (f < 0) {
                    fprintf(stderr, "%s: unknown test '%s'\n", o->prog, tok);
                    return -1;
                }
                o->tests |= 1u << f;
            }
            free(s);
            break;
        }
        case 's': {
            char *s = strdup(optarg), *save = NULL;
            o->nsizes = 0;
            for (char *tok = strtok_r(s, ",", &save); tok && o->nsizes < CB_MAX_SIZES; tok = strtok_r(NULL, ",", &save)) {
                size_t v = cb_parse_size(tok);
                if (v == 0 || v > CB_MAX_SIZE) {
                    fprintf(stderr, "%s: size '%s' must be 1..1M\n", o->prog, tok);
                    return -1;
                }
                o->sizes[o->nsizes++] = v;
            }
            free(s);
            break;
        }
        case 'r':
            o->reps = atoi(optarg);
            reps_set = 1;
            if (o->reps < 1 || o->reps > CB_MAX_REPS) {
                fprintf(stderr, "%s: --reps must be 1..%d\n", o->prog, CB_MAX_REPS);
                return -1;
            }
            break;
        case 'b':
            o->batch_ns = atof(optarg) * 1e3;
            batch_set = 1;
            break;
        case 'C': o->check = 0; break;
        case 'T': o->table = 0; break;
        case 'A': *api = optarg; break;
        case 'I': o->iters = atol(optarg); break;
        case 'B': o->min_batch_ns = atof(optarg) * 1e6; break;
        case 'X': o->max_ns = atof(optarg) * 1e9; break;
        case 'h': return 1;
        default: return -1;
        }
    }
    if (!o->tests) o->tests = ((1u << CB_NTESTS) - 1) & ~(1u << CB_GETALL) & ~(1u << CB_PINGPONG);
    if (!o->nsizes) {
        if (o->smoke) {
            o->sizes[0] = 8;
            o->sizes[1] = 65536;
            o->nsizes = 2;
        } else {
            const size_t def[] = {8, 1024, 65536, 1048576};
            for (int i = 0; i < 4; ++i) o->sizes[i] = def[i];
            o->nsizes = 4;
        }
    }
    return 0;
}

/* Library hooks, defined by shmem_coll.c / mpi_coll.c. */
static void cb_op(int test, size_t size, long i); /* call number i of the test */
static void cb_barrier(void);
static double cb_sum(double mine);  /* over all processes, result on every process */
static double cb_max(double mine);
static int cb_rank(void);
static int cb_nprocs(void);

/* n timed calls; returns the summed call time (ns) on this process. */
static inline double cb_run(int test, size_t size, long n)
{
    if (test == CB_BARRIER) {
        double t0 = cb_now_ns();
        for (long i = 0; i < n; ++i) cb_barrier();
        return cb_now_ns() - t0;
    }
    double sum = 0;
    for (long i = 0; i < n; ++i) {
        double t0 = cb_now_ns();
        cb_op(test, size, i);
        sum += cb_now_ns() - t0;
        cb_barrier();
    }
    return sum;
}

static inline int cb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct cb_result {
    int test;
    size_t size;
    double value, best; /* us per call (pingpong: per one-way trip) */
    long iters;
    int reps; /* batches taken (fewer than asked when --max-s ended the job) */
};

static inline void cb_measure(const struct cb_opts *o, int test, size_t size, struct cb_result *r)
{
    const int np = cb_nprocs();
    /* Warm-up with growing batches (every process the same n: a collective decision). */
    /* The estimate is the fastest warm-up batch per call: on a shared machine a batch may lose the
     * CPU, which would make the timed batches needlessly short. */
    long iters = o->iters;
    const double start = cb_now_ns();
    if (o->min_batch_ns > 0) {
        cb_barrier();
        cb_run(test, size, 100);
    } else if (iters > 0) {
        cb_barrier();
        cb_run(test, size, iters < 100 ? iters : 100);
    } else {
        long n = 1;
        double total = 0, est = 1e18;
        for (;;) {
            cb_barrier();
            double t = cb_max(cb_run(test, size, n));
            total += t;
            if (t / (double)n < est) est = t / (double)n;
            if (total >= o->warm_ns) break;
            if (n < (1L << 22)) n *= 2;
        }
        if (est < 1) est = 1;
        double want = o->batch_ns / est;
        iters = want < 1 ? 1 : want > 1e6 ? 1000000L : (long)want;
    }
    double per[CB_MAX_REPS];
    int reps = 0;
    long calls_max = 0;
    while (reps < o->reps) {
        cb_barrier();
        double mine;
        if (o->min_batch_ns > 0) {
            double t0 = cb_now_ns(), sum = 0;
            long calls = 0;
            for (long chunk = 1;; chunk *= 2) {
                sum += cb_run(test, size, chunk);
                calls += chunk;
                if (cb_max(cb_now_ns() - t0) >= o->min_batch_ns) break;
            }
            mine = sum / (double)calls;
            if (calls > calls_max) calls_max = calls;
            iters = calls_max; /* reported: the longest batch */
        } else {
            mine = cb_run(test, size, iters) / (double)iters;
        }
        if (test == CB_PINGPONG) { /* per one-way trip, over the processes with a partner */
            mine /= 2.0 * CB_PP_TRIPS;
            const int paired = cb_pp_partner(cb_rank(), np) >= 0;
            per[reps++] = cb_sum(paired ? mine : 0) / cb_sum(paired);
        } else {
            per[reps++] = cb_sum(mine) / np;
        }
        if (o->max_ns > 0 && cb_max(cb_now_ns() - start) > o->max_ns) break;
    }
    qsort(per, (size_t)reps, sizeof per[0], cb_cmp_double);
    r->test = test;
    r->size = test == CB_BARRIER ? 0 : size;
    r->value = ((reps % 2) ? per[reps / 2] : 0.5 * (per[reps / 2 - 1] + per[reps / 2])) / 1e3;
    r->best = per[0] / 1e3;
    r->iters = iters;
    r->reps = reps;
}

static inline void cb_print(const struct cb_result *r, const char *lib, const char *api)
{
    if (cb_rank() != 0) return;
    printf("RESULT test=%s size=%zu np=%d value=%.4f unit=us best=%.4f iters=%ld reps=%d lib=%s api=%s\n",
           cb_test_names[r->test], r->size, cb_nprocs(), r->value, r->best, r->iters, r->reps, lib, api);
    fflush(stdout);
}

static inline void cb_table(const struct cb_opts *o, const struct cb_result *res, int n, const char *title)
{
    if (!o->table || cb_rank() != 0) return;
    printf("\n# %s, %d processes (us per call, pingpong per one-way trip; median of %d batches)\n", title, cb_nprocs(), o->reps);
    printf("# %-10s %9s %12s %12s %9s\n", "test", "size", "median", "best", "iters");
    for (int i = 0; i < n; ++i)
        printf("  %-10s %9zu %12.4f %12.4f %9ld\n", cb_test_names[res[i].test], res[i].size, res[i].value,
               res[i].best, res[i].iters);
    fflush(stdout);
}

/* The pingpong partners (cb_pp_partner): every process learns every process's host (a 31-bit hash
 * of its name, exact in a double, one cb_sum per process: at start-up, only when pingpong runs). */
static inline void cb_pp_pair(void)
{
    const int np = cb_nprocs(), me = cb_rank();
    char name[256] = "";
    gethostname(name, sizeof name - 1);
    uint32_t h = 2166136261u;
    for (const char *c = name; *c; ++c) h = (h ^ (uint8_t)*c) * 16777619u;
    h &= 0x7fffffffu;
    double *host = malloc(sizeof(double) * (size_t)np);
    int *group = malloc(sizeof(int) * (size_t)np), *index = malloc(sizeof(int) * (size_t)np);
    cb_pp_peer = malloc(sizeof(int) * (size_t)np);
    if (!host || !group || !index || !cb_pp_peer) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    int ngroups = 0;
    for (int p = 0; p < np; ++p) { /* groups in order of their first process; index: place in it */
        host[p] = cb_sum(p == me ? (double)h : 0.0);
        group[p] = -1;
        index[p] = 0;
        for (int q = 0; q < p; ++q)
            if (host[q] == host[p]) {
                group[p] = group[q];
                ++index[p];
            }
        if (group[p] < 0) group[p] = ngroups++;
    }
    for (int p = 0; p < np; ++p) {
        cb_pp_peer[p] = ngroups == 1 ? cb_pp_half(p, np) : -1;
        if (ngroups == 1) continue;
        const int g = group[p] ^ 1; /* 0 with 1, 2 with 3, ... */
        for (int q = 0; q < np; ++q)
            if (group[q] == g && index[q] == index[p]) cb_pp_peer[p] = q;
    }
    free(host);
    free(group);
    free(index);
}

/* Runs the plan; `check(test, size)` verifies one call's result (0 ok). Returns the exit code. */
static inline int cb_main(const struct cb_opts *o, int (*check)(int, size_t), const char *lib, const char *api,
                          const char *title)
{
    struct cb_result res[CB_NTESTS * CB_MAX_SIZES];
    int nres = 0, bad = 0;
    if (o->tests & (1u << CB_PINGPONG)) cb_pp_pair();
    for (int t = 0; t < CB_NTESTS; ++t) {
        if (!(o->tests & (1u << t))) continue;
        for (int si = 0; si < o->nsizes; ++si) {
            size_t size = o->sizes[si];
            if (t == CB_BARRIER && si > 0) break;
            if (t == CB_ALLTOALLS && size > CB_ALLTOALLS_MAX) continue;
            if ((t == CB_GETALL || t == CB_PINGPONG) && size > CB_GETALL_MAX) continue;
            if (t == CB_PINGPONG && cb_nprocs() < 2) continue;
            cb_measure(o, t, size, &res[nres]);
            cb_print(&res[nres], lib, api);
            ++nres;
            if (o->check) {
                cb_barrier();
                int mine = check(t, size);
                if (cb_max(mine ? 1.0 : 0.0) > 0) {
                    if (cb_rank() == 0) printf("CHECK FAILED test=%s size=%zu\n", cb_test_names[t], size);
                    bad = 1;
                }
            }
        }
    }
    cb_table(o, res, nres, title);
    return bad;
}

#endif
