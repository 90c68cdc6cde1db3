/* Shared, library-neutral part of the RMA micro-benchmarks (shmem_rma.c, mpi_rma.c).
 *
 * Plain C11 + POSIX, no dependency on shmem.h or mpi.h: option parsing, the job plan, the timing
 * loop (warm-up, calibrated batches, median of repeats), the RESULT lines and the human table.
 *
 * Measurement model (same for every library so that the columns compare):
 *  - a "job" is one (test, size, source location, target location);
 *  - warm-up: the operation is run in growing batches until `warm_ns` has elapsed; the last batch
 *    gives a per-operation estimate;
 *  - the batch length n is chosen so that one batch lasts about `batch_ns` (n >= 1);
 *  - `reps` batches are timed with clock_gettime(CLOCK_MONOTONIC); value = median over batches of
 *    (batch time / n).  For a latency test one operation is "op + completion" (e.g. putmem + quiet);
 *    for a bandwidth test one operation is a window of `window` non-blocking ops + one completion,
 *    and value = window * size / time (MB/s, 1 MB = 1e6 B, as OSU).
 */
#ifndef USHMEM_BENCH_RMA_COMMON_H
#define USHMEM_BENCH_RMA_COMMON_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smaps.h"

#define RB_MAX_SIZE ((size_t)4 << 20) /* largest message: 4 MiB */
#define RB_MAX_JOBS 1024
#define RB_MAX_REPS 101

enum rb_test {
    RB_PUT_LAT,     /* putmem(size) + quiet            | MPI_Put + MPI_Win_flush            */
    RB_GET_LAT,     /* getmem(size) (blocking)         | MPI_Get + MPI_Win_flush            */
    RB_P_LAT,       /* shmem_long_p + quiet (8 B)      | (n/a)                              */
    RB_G_LAT,       /* shmem_long_g (8 B)              | (n/a)                              */
    RB_PUT_BW,      /* window x putmem_nbi + quiet     | window x MPI_Put + MPI_Win_flush   */
    RB_GET_BW,      /* window x getmem_nbi + quiet     | window x MPI_Get + MPI_Win_flush   */
    RB_PUT_BW_BLK,  /* window x putmem (blocking) + quiet | (n/a)                           */
    RB_GET_BW_BLK,  /* window x getmem (blocking)      | (n/a)                              */
    RB_PUT_NBI_LAT, /* putmem_nbi(size) + quiet        | (n/a: MPI_Put is always non-blocking) */
    RB_GET_NBI_LAT, /* getmem_nbi(size) + quiet        | (n/a)                              */
    RB_MSG_RATE,    /* window x 8 B putmem_nbi + quiet | window x 8 B MPI_Put + MPI_Win_flush */
    RB_GET_RATE,    /* window x 8 B getmem_nbi + quiet | window x 8 B MPI_Get + MPI_Win_flush */
    RB_PUT_RATE,    /* window x 8 B putmem (blocking) + quiet | (n/a): OSU's put_mr, a stream of small puts */
    /* As msg_rate, put k to PE 1 + k % (npes - 1): every PE but 0 in turn, + quiet | MPI_Put in turn +
     * MPI_Win_flush_all. Before the ctx_ tests: Open MPI 4.1.4's OSHMEM hangs in it after them (tcp). */
    RB_SPREAD_RATE,
    RB_FADD_LAT,    /* 8 B fetch-add, raw UCX only (ucx_raw.c): the AMO baseline of the network table;
                       OpenSHMEM and MPI atomics are measured by shmem_amo.c and mpi_amo.c */
    RB_IPUT_LAT,    /* long_iput of size / 8 longs, dest stride 2, + quiet | MPI_Put to a vector type + MPI_Win_flush */
    RB_IGET_LAT,    /* long_iget of size / 8 longs, source stride 2 | MPI_Get from a vector type + MPI_Win_flush */
    RB_CTX_PUT_LAT, /* as put_lat on a SHMEM_CTX_PRIVATE context (ctx_putmem + ctx_quiet) | (n/a) */
    RB_CTX_MSG_RATE, /* as msg_rate on a SHMEM_CTX_PRIVATE context | (n/a) */
    RB_NTESTS
};

static const char *const rb_test_names[RB_NTESTS] = {
    "put_lat", "get_lat", "p_lat", "g_lat", "put_bw", "get_bw", "put_bw_blk", "get_bw_blk",
    "put_nbi_lat", "get_nbi_lat", "msg_rate", "get_rate", "put_rate", "spread_rate", "fadd_lat", "iput_lat", "iget_lat", "ctx_put_lat",
    "ctx_msg_rate",
};
/* The strided put's and get's data: 64 longs (their rows in the reports), every other long of the
 * remote buffer. */
#define RB_IPUT_BYTES 512

enum rb_loc { RB_HEAP, RB_STATIC, RB_NLOCS };
static const char *const rb_loc_names[RB_NLOCS] = {"heap", "static"};

static inline int rb_is_put(int t)
{
    return t == RB_PUT_LAT || t == RB_P_LAT || t == RB_PUT_BW || t == RB_PUT_BW_BLK || t == RB_PUT_NBI_LAT ||
           t == RB_MSG_RATE || t == RB_IPUT_LAT || t == RB_CTX_PUT_LAT || t == RB_CTX_MSG_RATE || t == RB_SPREAD_RATE ||
           t == RB_PUT_RATE;
}
/* Bytes of the destination a job's data spans, and the offset of the last byte it writes (the
 * strided put leaves every other long untouched). */
static inline size_t rb_dst_span(int t, size_t size) { return t == RB_IPUT_LAT ? 2 * size - 8 : size; }
static inline size_t rb_src_span(int t, size_t size) { return t == RB_IGET_LAT ? 2 * size - 8 : size; }
static inline int rb_is_strided(int t) { return t == RB_IPUT_LAT || t == RB_IGET_LAT; }
static inline int rb_is_bw(int t) { return t == RB_PUT_BW || t == RB_GET_BW || t == RB_PUT_BW_BLK || t == RB_GET_BW_BLK; }
/* Message rate: a window of 8 B non-blocking puts (get_rate: gets; put_rate: blocking puts) then one completion; reported in
 * millions of messages per second (the window's operations, not the completions, are the messages). */
static inline int rb_is_rate(int t)
{
    return t == RB_MSG_RATE || t == RB_GET_RATE || t == RB_CTX_MSG_RATE || t == RB_SPREAD_RATE || t == RB_PUT_RATE;
}
static inline int rb_is_windowed(int t) { return rb_is_bw(t) || rb_is_rate(t); }
static inline int rb_is_fixed8(int t)
{
    return t == RB_P_LAT || t == RB_G_LAT || t == RB_MSG_RATE || t == RB_GET_RATE || t == RB_FADD_LAT ||
           t == RB_CTX_MSG_RATE || t == RB_SPREAD_RATE || t == RB_PUT_RATE;
}

struct rb_job {
    int test;
    size_t size;
    int src, dst; /* enum rb_loc; for a put src is local, dst remote; for a get src is remote */
};

struct rb_result {
    struct rb_job job;
    double value; /* us (latency) or MB/s (bandwidth), median over reps */
    double best;  /* min latency or max bandwidth over reps */
    long iters;   /* operations (or windows) per timed batch */
    int reps;
};

struct rb_opts {
    const char *prog;
    unsigned tests;     /* bit mask of tests selected with -t (0: default plan) */
    unsigned amo_tests; /* bit mask over rb_amo_only_names of those -t named (not run by the RMA benchmarks) */
    unsigned supported; /* tests this binary implements */
    unsigned locs;      /* bit mask of src:dst combos selected with -l (bit = src*2+dst), 0: default */
    size_t min_size, max_size;
    unsigned step; /* size multiplier of a sweep (default 2) */
    int window;
    int reps;
    double batch_ns, warm_ns;
    int check;
    int table;
    int quiet_results; /* no RESULT lines (table only) */
    const char *mode;
};

static inline double rb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline void rb_usage(const struct rb_opts *o, FILE *f)
{
    fprintf(f,
            "usage: %s [options]   (2 or more processes: rank/PE 0 initiates, the last one is the target,\n"
            "                        the others only wait in the barriers)\n"
            "  -q, --quick          short batches, few repeats (whole default plan in a few seconds)\n"
            "      --smoke          quickest: few sizes, 2 tiny repeats, no table (for ctest)\n"
            "  -t, --tests LIST     comma list of tests (default: the standard plan below):\n"
            "                       ",
            o->prog);
    for (int t = 0; t < RB_NTESTS; ++t)
        if (o->supported & (1u << t)) fprintf(f, "%s ", rb_test_names[t]);
    fprintf(f,
            "\n"
            "  -l, --locs LIST      comma list of SRC:DST locations, each heap or static (default with -t:\n"
            "                       heap:heap); 'all' = the 4 combinations\n"
            "  -m, --min-size N     smallest size (default 1); K/M suffixes\n"
            "  -M, --max-size N     largest size (default 4M)\n"
            "  -s, --step F         size multiplier of a sweep (default 2)\n"
            "  -w, --window N       ops per bandwidth window (default 64)\n"
            "  -r, --reps N         timed batches per size (default 11, quick 7)\n"
            "  -b, --batch-us N     target duration of a timed batch (default 4000, quick 1000)\n"
            "      --warm-us N      warm-up duration per size (default 10000, quick 3000)\n"
            "      --no-check       do not verify the transferred data\n"
            "      --no-table       no human table at the end\n"
            "      --table-only     no RESULT lines\n"
            "Default plan: put_lat get_lat put_bw get_bw over all sizes heap->heap; p_lat g_lat (8 B);\n"
            "put_nbi_lat get_nbi_lat at 8 B, 1 KiB, 128 KiB; msg_rate, put_rate (8 B, unit Mmsg/s);\n"
            "8 B latencies and 1 MiB bandwidths with a static (global array) source and/or target.\n"
            "Output: 'RESULT test=.. size=.. src=.. dst=.. value=.. unit=us|MB/s best=.. iters=.. reps=..'\n");
}

static inline size_t rb_parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'k' || *end == 'K') v *= 1024;
    else if (*end == 'm' || *end == 'M') v *= 1024 * 1024;
    else if (*end == 'g' || *end == 'G') v *= 1024.0 * 1024 * 1024;
    return (size_t)v;
}

static inline int rb_parse_loc(const char *s, size_t len)
{
    for (int l = 0; l < RB_NLOCS; ++l)
        if (strlen(rb_loc_names[l]) == len && strncmp(s, rb_loc_names[l], len) == 0) return l;
    return -1;
}

/* The index of the n-byte name at s among names[0..count), or -1. */
static inline int rb_name_index(const char *const *names, int count, const char *s, size_t n)
{
    for (int t = 0; t < count; ++t)
        if (strlen(names[t]) == n && strncmp(s, names[t], n) == 0) return t;
    return -1;
}

/* bench_shmem_amo's and bench_mpi_amo's other tests: -t accepts and skips them (rb_opts::amo_tests
 * says which were named), so that raw UCX's fetch-add runs in the same list (and alternation) as
 * theirs (bench/run-all). */
static const char *const rb_amo_only_names[] = {"add_lat", "fxor_lat", "inc_rate", "fadd_nbi_rate"};
#define RB_NAMO ((int)(sizeof rb_amo_only_names / sizeof rb_amo_only_names[0]))

/* Returns 0 on success, 1 for --help (caller exits 0), -1 on error. */

static inline int rb_parse_opts(int argc, char **argv, struct rb_opts *o)
{
    static const struct option lo[] = {
        {"quick", no_argument, 0, 'q'},      {"smoke", no_argument, 0, 'S'},
        {"tests", required_argument, 0, 't'}, {"locs", required_argument, 0, 'l'},
        {"min-size", required_argument, 0, 'm'}, {"max-size", required_argument, 0, 'M'},
        {"window", required_argument, 0, 'w'}, {"reps", required_argument, 0, 'r'},
        {"batch-us", required_argument, 0, 'b'}, {"warm-us", required_argument, 0, 'W'},
        {"no-check", no_argument, 0, 'C'},   {"no-table", no_argument, 0, 'T'},
        {"table-only", no_argument, 0, 'O'}, {"step", required_argument, 0, 's'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int quick = 0, smoke = 0, reps = -1, window = -1, step = -1, any_unsupported = 0;
    double batch_us = -1, warm_us = -1;
    o->prog = argv[0];
    o->tests = 0;
    o->locs = 0;
    o->min_size = 1;
    o->max_size = RB_MAX_SIZE;
    o->check = 1;
    o->table = 1;
    o->quiet_results = 0;
    int c;
    while ((c = getopt_long(argc, argv, "qt:l:m:M:s:w:r:b:h", lo, NULL)) != -1) {
        switch (c) {
        case 'q': quick = 1; break;
        case 'S': smoke = 1; break;
        case 't': {
            char *s = optarg;
            while (*s) {
                size_t n = strcspn(s, ",");
                const int found = rb_name_index(rb_test_names, RB_NTESTS, s, n);
                const int amo = found < 0 ? rb_name_index(rb_amo_only_names, RB_NAMO, s, n) : -1;
                if (found < 0 && amo < 0) {
                    fprintf(stderr, "%s: unknown test '%.*s'\n", o->prog, (int)n, s);
                    return -1;
                }
                if (amo >= 0) {
                    o->amo_tests |= 1u << amo;
                    any_unsupported = 1;
                } else if (o->supported & (1u << found)) o->tests |= 1u << found;
                else any_unsupported = 1; /* e.g. p_lat for MPI: skipped, so one list serves all binaries */
                s += n;
                if (*s == ',') ++s;
            }
            break;
        }
        case 'l': {
            if (strcmp(optarg, "all") == 0) {
                o->locs = 0xf;
                break;
            }
            char *s = optarg;
            while (*s) {
                size_t n = strcspn(s, ",");
                const char *colon = memchr(s, ':', n);
                int a = colon ? rb_parse_loc(s, (size_t)(colon - s)) : -1;
                int b = colon ? rb_parse_loc(colon + 1, n - (size_t)(colon + 1 - s)) : -1;
                if (a < 0 || b < 0) {
                    fprintf(stderr, "%s: bad location pair '%.*s' (want heap|static:heap|static)\n", o->prog,
                            (int)n, s);
                    return -1;
                }
                o->locs |= 1u << (a * 2 + b);
                s += n;
                if (*s == ',') ++s;
            }
            break;
        }
        case 'm': o->min_size = rb_parse_size(optarg); break;
        case 'M': o->max_size = rb_parse_size(optarg); break;
        case 's': step = atoi(optarg); break;
        case 'w': window = atoi(optarg); break;
        case 'r': reps = atoi(optarg); break;
        case 'b': batch_us = atof(optarg); break;
        case 'W': warm_us = atof(optarg); break;
        case 'C': o->check = 0; break;
        case 'T': o->table = 0; break;
        case 'O': o->quiet_results = 1; break;
        case 'h': rb_usage(o, stdout); return 1;
        default: rb_usage(o, stderr); return -1;
        }
    }
    if (any_unsupported && !o->tests) {
        fprintf(stderr, "%s: none of the selected tests is available in this binary\n", o->prog);
        return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", o->prog, argv[optind]);
        return -1;
    }
    if (o->max_size > RB_MAX_SIZE) o->max_size = RB_MAX_SIZE;
    if (o->min_size < 1) o->min_size = 1;
    o->mode = smoke ? "smoke" : quick ? "quick" : "full";
    o->window = window > 0 ? window : 64;
    o->step = step >= 2 ? (unsigned)step : smoke ? 16 : 2;
    o->reps = reps > 0 ? reps : smoke ? 2 : quick ? 7 : 11;
    if (o->reps > RB_MAX_REPS) o->reps = RB_MAX_REPS;
    o->batch_ns = 1e3 * (batch_us > 0 ? batch_us : smoke ? 100 : quick ? 1000 : 4000);
    o->warm_ns = 1e3 * (warm_us >= 0 ? warm_us : smoke ? 100 : quick ? 3000 : 10000);
    if (smoke) {
        if (o->min_size < 8) o->min_size = 8;
        o->table = 0;
    }
    return 0;
}

static inline void rb_add(struct rb_job *jobs, int *n, const struct rb_opts *o, int test, size_t size, int src,
                          int dst)
{
    if (!(o->supported & (1u << test)) || *n >= RB_MAX_JOBS) return;
    if (!rb_is_strided(test) && (size < o->min_size || size > o->max_size)) return;  /* iput/iget_lat: one size */
    jobs[*n].test = test;
    jobs[*n].size = size;
    jobs[*n].src = src;
    jobs[*n].dst = dst;
    ++*n;
}

/* The job list is a pure function of the options, so every process computes the same list. */
static inline int rb_build_jobs(const struct rb_opts *o, struct rb_job *jobs)
{
    int n = 0;
    if (o->tests) {
        unsigned locs = o->locs ? o->locs : 1u; /* heap:heap */
        for (int t = 0; t < RB_NTESTS; ++t) {
            if (!(o->tests & (1u << t))) continue;
            for (unsigned lc = 0; lc < 4; ++lc) {
                if (!(locs & (1u << lc))) continue;
                if (rb_is_fixed8(t) || rb_is_strided(t)) {
                    rb_add(jobs, &n, o, t, rb_is_strided(t) ? RB_IPUT_BYTES : 8, (int)lc / 2, (int)lc % 2);
                    continue;
                }
                for (size_t s = o->min_size; s <= o->max_size; s *= o->step)
                    rb_add(jobs, &n, o, t, s, (int)lc / 2, (int)lc % 2);
            }
        }
        return n;
    }
    /* Default plan. */
    const int sweep[] = {RB_PUT_LAT, RB_GET_LAT, RB_PUT_BW, RB_GET_BW};
    for (unsigned i = 0; i < sizeof sweep / sizeof sweep[0]; ++i)
        for (size_t s = o->min_size; s <= o->max_size; s *= o->step) rb_add(jobs, &n, o, sweep[i], s, RB_HEAP, RB_HEAP);
    rb_add(jobs, &n, o, RB_P_LAT, 8, RB_HEAP, RB_HEAP);
    rb_add(jobs, &n, o, RB_G_LAT, 8, RB_HEAP, RB_HEAP);
    /* Non-blocking latency (issue + quiet) at a few sizes, and the 8 B message rates. */
    for (size_t s = 8; s <= ((size_t)1 << 20); s *= 128) {
        rb_add(jobs, &n, o, RB_PUT_NBI_LAT, s, RB_HEAP, RB_HEAP);
        rb_add(jobs, &n, o, RB_GET_NBI_LAT, s, RB_HEAP, RB_HEAP);
    }
    rb_add(jobs, &n, o, RB_MSG_RATE, 8, RB_HEAP, RB_HEAP);
    rb_add(jobs, &n, o, RB_MSG_RATE, 8, RB_HEAP, RB_STATIC);
    rb_add(jobs, &n, o, RB_PUT_RATE, 8, RB_HEAP, RB_HEAP);
    rb_add(jobs, &n, o, RB_IPUT_LAT, RB_IPUT_BYTES, RB_HEAP, RB_HEAP);
    rb_add(jobs, &n, o, RB_IGET_LAT, RB_IPUT_BYTES, RB_HEAP, RB_HEAP);
    /* Static (global array) source and/or target. */
    rb_add(jobs, &n, o, RB_PUT_LAT, 8, RB_STATIC, RB_HEAP);
    rb_add(jobs, &n, o, RB_PUT_LAT, 8, RB_HEAP, RB_STATIC);
    rb_add(jobs, &n, o, RB_GET_LAT, 8, RB_STATIC, RB_HEAP);
    rb_add(jobs, &n, o, RB_GET_LAT, 8, RB_HEAP, RB_STATIC);
    rb_add(jobs, &n, o, RB_P_LAT, 8, RB_HEAP, RB_STATIC);
    rb_add(jobs, &n, o, RB_G_LAT, 8, RB_STATIC, RB_HEAP);
    const size_t mib = (size_t)1 << 20;
    rb_add(jobs, &n, o, RB_PUT_BW, mib, RB_STATIC, RB_HEAP);
    rb_add(jobs, &n, o, RB_PUT_BW, mib, RB_HEAP, RB_STATIC);
    rb_add(jobs, &n, o, RB_PUT_BW, mib, RB_STATIC, RB_STATIC);
    rb_add(jobs, &n, o, RB_GET_BW, mib, RB_STATIC, RB_HEAP);
    rb_add(jobs, &n, o, RB_GET_BW, mib, RB_HEAP, RB_STATIC);
    rb_add(jobs, &n, o, RB_PUT_LAT, mib, RB_STATIC, RB_HEAP);
    rb_add(jobs, &n, o, RB_PUT_LAT, mib, RB_HEAP, RB_STATIC);
    rb_add(jobs, &n, o, RB_GET_LAT, mib, RB_STATIC, RB_HEAP);
    return n;
}

/* Runs `n` operations (or windows) of job `j` and returns the elapsed nanoseconds. */
typedef double (*rb_batch_fn)(void *ctx, const struct rb_job *j, long n);

static inline int rb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline void rb_measure(const struct rb_opts *o, const struct rb_job *j, rb_batch_fn fn, void *ctx,
                              struct rb_result *r)
{
    /* Warm-up with growing batches; the last one calibrates. */
    long n = 1;
    double total = 0, t = 0;
    long done = 0;
    for (;;) {
        t = fn(ctx, j, n);
        total += t;
        done += n;
        if (total >= o->warm_ns && done >= 4) break;
        if (t < o->warm_ns / 4 && n < (1L << 24)) n *= 2;
    }
    double est = t / (double)n;
    if (est < 1) est = 1;
    double want = o->batch_ns / est;
    long iters = want < 1 ? 1 : want > 1e7 ? 10000000L : (long)want;

    double per[RB_MAX_REPS];
    for (int i = 0; i < o->reps; ++i) per[i] = fn(ctx, j, iters) / (double)iters;
    qsort(per, (size_t)o->reps, sizeof per[0], rb_cmp_double);
    double med = (o->reps % 2) ? per[o->reps / 2] : 0.5 * (per[o->reps / 2 - 1] + per[o->reps / 2]);
    r->job = *j;
    r->iters = iters;
    r->reps = o->reps;
    if (rb_is_rate(j->test)) {
        r->value = (double)o->window / med * 1e3; /* messages per ns -> millions per s */
        r->best = (double)o->window / per[0] * 1e3;
    } else if (rb_is_bw(j->test)) {
        double bytes = (double)o->window * (double)j->size;
        r->value = bytes / med * 1e3; /* B/ns -> MB/s */
        r->best = bytes / per[0] * 1e3;
    } else {
        r->value = med / 1e3; /* us */
        r->best = per[0] / 1e3;
    }
}

static inline const char *rb_unit(int test) { return rb_is_rate(test) ? "Mmsg/s" : rb_is_bw(test) ? "MB/s" : "us"; }

/* `name`: the test's name in the line (rb_print_result: its own). */
static inline void rb_print_result_as(const struct rb_opts *o, const struct rb_result *r, const char *name)
{
    if (o->quiet_results) return;
    const char *fmt = rb_is_bw(r->job.test) ? "RESULT test=%s size=%zu src=%s dst=%s value=%.1f unit=%s best=%.1f "
                                              "iters=%ld reps=%d window=%d\n"
                                            : "RESULT test=%s size=%zu src=%s dst=%s value=%.4f unit=%s best=%.4f "
                                              "iters=%ld reps=%d window=%d\n";
    printf(fmt, name, r->job.size, rb_loc_names[r->job.src], rb_loc_names[r->job.dst], r->value,
           rb_unit(r->job.test), r->best, r->iters, r->reps, rb_is_windowed(r->job.test) ? o->window : 1);
    fflush(stdout);
}

static inline void rb_print_result(const struct rb_opts *o, const struct rb_result *r)
{
    rb_print_result_as(o, r, rb_test_names[r->job.test]);
}

static inline void rb_print_table(const struct rb_opts *o, const char *title, const struct rb_result *res, int n)
{
    if (!o->table || n == 0) return;
    printf("\n# %s (mode %s, median of %d batches; bandwidth window %d)\n", title, o->mode, o->reps, o->window);
    printf("# %-11s %-7s %-7s %9s %12s %12s %-5s %9s\n", "test", "src", "dst", "size", "median", "best", "unit",
           "iters");
    for (int i = 0; i < n; ++i) {
        const struct rb_result *r = &res[i];
        printf(rb_is_bw(r->job.test) ? "  %-11s %-7s %-7s %9zu %12.1f %12.1f %-5s %9ld\n"
                                     : "  %-11s %-7s %-7s %9zu %12.4f %12.4f %-5s %9ld\n",
               rb_test_names[r->job.test], rb_loc_names[r->job.src], rb_loc_names[r->job.dst], r->job.size, r->value,
               r->best, rb_unit(r->job.test), r->iters);
    }
    fflush(stdout);
}

/* Page size (kB) of the mapping that holds `addr`, from /proc/self/smaps; -1 when not found. */
static inline long rb_page_kb(const void *addr) { return smaps_field_kb(addr, "KernelPageSize"); }

/* Fill pattern for the data check: a byte that depends on the job index (never 0). */
static inline unsigned char rb_tag(int job_index) { return (unsigned char)(1 + job_index % 251); }

#endif
