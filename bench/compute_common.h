/* Shared, library-neutral part of the computing-target benchmark (shmem_compute.c, mpi_compute.c):
 * how long an 8 B put + completion, a get and a fetch-add take while the target computes without
 * calling the communication library, against the same operations while the target waits inside
 * the library (idle target). On a transport that emulates RMA in software (UCX_TLS=tcp) the target
 * must progress for an operation to complete: a library without asynchronous progress makes the
 * initiator wait until the target calls it again. Plain C11 + POSIX.
 *
 * One period, the same for both conditions (D = --compute-ms):
 *   every process  barrier
 *   target (last)  computing: a busy loop of D ms that calls nothing but clock_gettime, then barrier;
 *                  idle: straight into the barrier (waits inside the library, which progresses)
 *   initiator (0)  waits D/10 after the barrier (the target is then inside its loop), then times
 *                  operations one by one until D/2 has passed since the barrier (at least one
 *                  operation), then barrier
 *   others         barrier; with --others compute, in a computing period they run the same busy loop
 *                  as the target first (a node where every PE computes: with many PEs per node the
 *                  target's progress then competes with all of them for the CPUs)
 * A period's value is the median of its operation times; the reported value is the median over
 * `reps` periods of each condition (an idle and a computing period alternate), `worst` the longest
 * single operation, `ops` the operations timed per period (median). Without progress only one
 * operation fits in a computing period and it takes about D - D/10.
 *
 * Hang watchdog: the initiator arms alarm(D + hang_s) around each period; when it fires it prints
 *   HANG test=.. cond=.. rep=.. after_s=..
 * and exits with status 4 (mpirun then ends the job), so that a library that never completes the
 * operation is named rather than waited for. bench/run-all marks such a row "hangs".
 *
 * Output (process 0):
 *   RESULT test=put_lat size=8 src=target dst=idle|computing value=.. unit=us best=.. worst=.. ops=.. reps=..
 *   RESULT test=put_lat_worst size=8 src=target dst=idle|computing value=.. unit=us   (the longest operation)
 * The library file supplies the hooks at the bottom. */
#ifndef USHMEM_BENCH_COMPUTE_COMMON_H
#define USHMEM_BENCH_COMPUTE_COMMON_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_list.h"
#include "timing.h"

enum cx_test { CX_PUT, CX_GET, CX_FADD, CX_NTESTS };
static const char *const cx_test_names[CX_NTESTS] = {"put_lat", "get_lat", "fadd_lat"};
enum cx_cond { CX_IDLE, CX_COMPUTING, CX_NCONDS };
static const char *const cx_cond_names[CX_NCONDS] = {"idle", "computing"};

#define CX_MAX_REPS 101
#define CX_MAX_OPS 200000 /* per period */

struct cx_opts {
    unsigned tests;
    unsigned conds; /* bit mask of enum cx_cond */
    int reps;
    double compute_ms;
    int hang_s;
    int stall_target; /* --stall-target: the target never ends a computing period (tests the watchdog) */
    int others_compute; /* --others compute: processes 1..n-2 compute in a computing period too */
    const char *mode;
};


static inline double cx_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The target's computation: arithmetic and the clock, no library call. */
static inline void cx_compute(double ms)
{
    volatile double x = 1.0;
    const double end = now_ns() + ms * 1e6;
    while (now_ns() < end)
        for (int i = 0; i < 200; ++i) x = x * 1.0000001 + 1e-9;
}

static inline void cx_usage(const char *prog)
{
    printf("usage: %s [options]   (2 or more processes: 0 initiates, the last one is the target)\n"
           "  -q, --quick          5 periods of 100 ms per condition\n"
           "      --smoke          2 periods of 20 ms (ctest)\n"
           "  -t, --tests LIST     comma list of put_lat get_lat fadd_lat (default all, in that order)\n"
           "      --conds LIST     idle, computing or both (default); bench/run-all measures the idle figure\n"
           "                       of a test that hung with --conds idle\n"
           "  -r, --reps N         periods per condition (default 11)\n"
           "      --compute-ms D   the target's busy loop (default 200)\n"
           "      --hang-s S       watchdog: a period not done after D + S seconds prints HANG and exits 4\n"
           "                       (default 10)\n"
           "      --others idle|compute  what processes 1..n-2 do in a computing period: wait in the\n"
           "                       barrier (idle, the default) or run the target's busy loop too\n"
           "      --stall-target   the target never ends its computing period: checks the watchdog and\n"
           "                       bench/run-all's handling of a library that hangs\n"
           "Output: 'RESULT test=.. size=8 src=target dst=idle|computing value=.. unit=us best=.. worst=.. "
           "ops=.. reps=..'\n",
           prog);
}

/* Returns 0, 1 for --help (caller exits 0), -1 on error. */
static inline int cx_parse(int argc, char **argv, struct cx_opts *o)
{
    int quick = 0, smoke = 0;
    memset(o, 0, sizeof *o);
    o->reps = -1;
    o->compute_ms = -1;
    o->hang_s = 10;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "-q") || !strcmp(a, "--quick")) quick = 1;
        else if (!strcmp(a, "--smoke")) smoke = 1;
        else if (!strcmp(a, "--stall-target")) o->stall_target = 1;
        else if ((!strcmp(a, "-r") || !strcmp(a, "--reps")) && i + 1 < argc) o->reps = atoi(argv[++i]);
        else if (!strcmp(a, "--compute-ms") && i + 1 < argc) o->compute_ms = atof(argv[++i]);
        else if (!strcmp(a, "--hang-s") && i + 1 < argc) o->hang_s = atoi(argv[++i]);
        else if (!strcmp(a, "--others") && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "idle") && strcmp(v, "compute")) {
                fprintf(stderr, "%s: --others takes idle or compute\n", argv[0]);
                return -1;
            }
            o->others_compute = !strcmp(v, "compute");
        }
        else if (!strcmp(a, "--conds") && i + 1 < argc) {
            const char *v = argv[++i];
            o->conds = strstr(v, "idle") ? 1u << CX_IDLE : 0;
            o->conds |= strstr(v, "computing") ? 1u << CX_COMPUTING : 0;
            if (!o->conds) {
                fprintf(stderr, "%s: --conds takes idle, computing or idle,computing\n", argv[0]);
                return -1;
            }
        }
        else if ((!strcmp(a, "-t") || !strcmp(a, "--tests")) && i + 1 < argc) {
            if (bench_test_list(argv[0], argv[++i], cx_test_names, CX_NTESTS, &o->tests)) return -1;
        } else if (!strcmp(a, "--no-table") || !strcmp(a, "--no-check")) {
            /* accepted like the other benchmarks (no table; the check is cheap and always on) */
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            cx_usage(argv[0]);
            return 1;
        } else {
            fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", argv[0], a);
            return -1;
        }
    }
    if (!o->tests) o->tests = (1u << CX_NTESTS) - 1;
    if (!o->conds) o->conds = (1u << CX_NCONDS) - 1;
    o->mode = smoke ? "smoke" : quick ? "quick" : "full";
    if (o->reps < 1) o->reps = smoke ? 2 : quick ? 5 : 11;
    if (o->reps > CX_MAX_REPS) o->reps = CX_MAX_REPS;
    if (o->compute_ms <= 0) o->compute_ms = smoke ? 20 : quick ? 100 : 200;
    if (o->hang_s < 1) o->hang_s = 1;
    return 0;
}

/* The target's words, one per test (symmetric / in the window, in this order): the put's target,
 * the get's source (holding CX_GET_VALUE from the start) and the fetch-add's target (0 at start). */
enum { CX_W_PUT, CX_W_GET, CX_W_FADD, CX_NWORDS };
#define CX_GET_VALUE 0x5eed1234L

/* Library hooks, defined by shmem_compute.c / mpi_compute.c. */
static int cx_rank(void);
static int cx_nprocs(void);
static void cx_barrier(void);
static void cx_op(int test, long seq); /* one operation of `test` to the target; seq = 1, 2, ... */
static long cx_read_word(int word);    /* the target's word, read by the initiator */

/* After a test's last period, on the initiator: the target's word must hold what `nops` operations
 * (the last with sequence number `last_seq`) left there. Returns 0 when it does. */
static inline int cx_check(int test, long nops, long last_seq)
{
    const int w = test == CX_PUT ? CX_W_PUT : test == CX_GET ? CX_W_GET : CX_W_FADD;
    const long want = test == CX_PUT ? last_seq : test == CX_GET ? CX_GET_VALUE : nops;
    const long have = cx_read_word(w);
    if (have == want) return 0;
    fprintf(stderr, "CHECK FAILED test=%s: the target's word is %ld, expected %ld\n", cx_test_names[test], have, want);
    return 1;
}

static char cx_hang_msg[160];
static void cx_on_alarm(int sig)
{
    (void)sig;
    ssize_t r = write(STDOUT_FILENO, cx_hang_msg, strlen(cx_hang_msg));
    (void)r;
    _exit(4);
}

/* Runs the plan; returns the number of failed checks (on process 0). */
static inline int cx_main(const struct cx_opts *o)
{
    const int me = cx_rank(), target = cx_nprocs() - 1;
    const double d_ns = o->compute_ms * 1e6, lead_ns = d_ns / 10, window_ns = d_ns / 2;
    const unsigned alarm_s = (unsigned)(o->compute_ms / 1000 + 1) + (unsigned)o->hang_s;
    static double op_ns[CX_MAX_OPS];
    int errors = 0;
    long seq = 0;
    if (me == 0) signal(SIGALRM, cx_on_alarm);
    for (int t = 0; t < CX_NTESTS; ++t) {
        if (!(o->tests & (1u << t))) continue;
        double med[CX_NCONDS][CX_MAX_REPS], ops[CX_NCONDS][CX_MAX_REPS], worst[CX_NCONDS] = {0, 0};
        long nops = 0;
        /* Warm-up: one idle period, not recorded (endpoints, first-touch, connection set-up). */
        for (int r = -1; r < o->reps; ++r) {
            for (int c = 0; c < CX_NCONDS; ++c) {
                if ((r < 0 && c == CX_COMPUTING) || (r >= 0 && !(o->conds & (1u << c)))) continue;
                if (me == 0) {
                    snprintf(cx_hang_msg, sizeof cx_hang_msg, "HANG test=%s cond=%s rep=%d after_s=%u\n",
                             cx_test_names[t], cx_cond_names[c], r, alarm_s);
                    fflush(stdout);
                    alarm(alarm_s);
                }
                cx_barrier();
                if (me == target && c == CX_COMPUTING) {
                    cx_compute(o->compute_ms);
                    while (o->stall_target) sleep(1);
                } else if (o->others_compute && me != 0 && c == CX_COMPUTING) {
                    cx_compute(o->compute_ms);
                }
                if (me == 0) {
                    const double t0 = now_ns();
                    while (now_ns() - t0 < lead_ns) {
                    }
                    int n = 0;
                    double now = now_ns();
                    do {
                        const double a = now;
                        cx_op(t, ++seq);
                        now = now_ns();
                        op_ns[n++] = now - a;
                    } while (now - t0 < window_ns && n < CX_MAX_OPS);
                    nops += n;
                    if (r >= 0) {
                        ops[c][r] = n;
                        for (int i = 0; i < n; ++i)
                            if (op_ns[i] > worst[c]) worst[c] = op_ns[i];
                        med[c][r] = cx_median(op_ns, n);
                    }
                }
                cx_barrier();
                if (me == 0) alarm(0);
            }
        }
        if (me == 0) {
            for (int c = 0; c < CX_NCONDS; ++c) {
                if (!(o->conds & (1u << c))) continue;
                const double value = cx_median(med[c], o->reps), best = med[c][0];
                printf("RESULT test=%s size=8 src=target dst=%s value=%.4f unit=us best=%.4f worst=%.4f ops=%.0f "
                       "reps=%d compute_ms=%.0f others=%s np=%d\n",
                       cx_test_names[t], cx_cond_names[c], value / 1e3, best / 1e3, worst[c] / 1e3,
                       cx_median(ops[c], o->reps), o->reps, o->compute_ms, o->others_compute ? "compute" : "idle",
                       cx_nprocs());
                /* The longest single operation on a line of its own, for the report's "worst" column. */
                printf("RESULT test=%s_worst size=8 src=target dst=%s value=%.4f unit=us\n", cx_test_names[t],
                       cx_cond_names[c], worst[c] / 1e3);
            }
            fflush(stdout);
            if (cx_check(t, nops, seq)) {
                printf("CHECK FAILED test=%s\n", cx_test_names[t]);
                fflush(stdout);
                ++errors;
            }
        }
        cx_barrier();
    }
    return errors;
}

#endif
