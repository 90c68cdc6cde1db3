/* The waiting policy (docs/architecture.md, "Waiting"; issue #16): a PE that waits long sleeps
 * instead of burning its CPU, and is woken at once by the PE that completes its wait, on every
 * path (direct stores and atomics on the node, UCX messages seen by the progress thread).
 *
 * Usage: wait_policy. For each kind of wait (barrier, wait_until on a flag written by a plain put,
 * signal_wait_until after put_signal, set_lock on a lock PE 0 holds), PE 0 computes for 300 ms
 * without calling the library and then completes the wait; every other PE waits. Each waiter checks
 * that the data arrived, that its main thread used less than a third of the wait's wall time in
 * CPU (it slept: a spinning or yielding wait uses all of it on an idle core), and that it returned
 * within 60 ms of PE 0's completing call (it was woken, not found by a long timeout).
 *
 * Usage: wait_policy ctx (run over tcp with USHMEM_PROGRESS_THREAD=off, so that a computing PE 0
 * answers nothing until its next library call). Every other PE waits on a private context, which
 * has a UCX worker of its own that no progress thread watches: a quiet after a put (its
 * acknowledgement), a fetch-add and a blocking get, each to PE 0 while it computes for 350 ms.
 * The answer arrives on that worker, so the sleep must end for its events: checked as above, with
 * 30 ms (a sleep that watched only the main worker ends at its 100 ms bound; with 350 ms of
 * computing that bound falls about 50 ms after the answer, and PE 0 sends nothing else to the
 * waiters until 100 ms after it). */
#include "common.h"

#include <stdint.h>

static long flag;
static uint64_t sig;
static long payload[8];
static long lock_word;
static double stamp;        /* PE 0's CLOCK_MONOTONIC when it completed the wait */
static double late_max = 0.060;

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void compute(double seconds) {
    volatile double x = 1;
    const double end = mono() + seconds;
    while (mono() < end)
        for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
}

/* PE 0 writes its completion time to every PE (before the completing call), so that waiters can
 * tell how late they saw it. */
static void announce_stamp(void) {
    double now = mono();
    for (int pe = 1; pe < shmem_n_pes(); ++pe) shmem_double_p(&stamp, now, pe);
    shmem_quiet();
}

static void check_wait_at(const char *kind, double w0, double end, double cpu) {
    const double wall = end - w0, late = end - stamp;
    printf("wait_policy: PE %d %s: waited %.3f s, main thread CPU %.3f s, returned %.1f ms after the "
           "completing call\n", shmem_my_pe(), kind, wall, cpu, late * 1e3);
    CHECK(wall > 0.25, "%s: the wait ended after %.3f s, before PE 0 completed it (300 ms)", kind, wall);
    CHECK(cpu < wall / 3, "%s: the waiting thread used %.3f s of CPU in a %.3f s wait: it did not sleep",
          kind, cpu, wall);
    CHECK(late < late_max, "%s: returned %.1f ms after PE 0 completed the wait: not woken", kind, late * 1e3);
}
static void check_wait(const char *kind, double w0, double c0) {
    const double end = mono();
    check_wait_at(kind, w0, end, thread_cpu() - c0);
}

static long stamped;

static long counter;

/* Waits on a private context (see the usage above): kinds 0 quiet, 1 fetch-add, 2 get. */
static void ctx_waits(int me, int n) {
    static const char *const kinds[] = {"private context: put + quiet", "private context: fetch-add",
                                        "private context: blocking get"};
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create failed");
    late_max = 0.030;
    if (me == 0) payload[1] = 77;
    /* Connect the context's endpoint first: its set-up is not what is measured. */
    if (me != 0) shmem_ctx_long_atomic_add(ctx, &counter, 1, 0);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int k = 0; k < 3; ++k) {
        shmem_barrier_all();
        if (me == 0) {
            compute(0.35);
            /* The completing call: a test, whose progress answers the waiters. Nothing reaches
             * their main worker for 100 ms before or after it: a message there would end a sleep
             * that watches only the main worker by itself. */
            const double now = mono();
            (void)shmem_long_test(&stamped, SHMEM_CMP_EQ, 1);
            compute(0.1);
            for (int pe = 1; pe < n; ++pe) shmem_double_p(&stamp, now, pe);
            shmem_fence();
            for (int pe = 1; pe < n; ++pe) shmem_long_p(&stamped, k + 1, pe);
            shmem_quiet();
            shmem_barrier_all();
            continue;
        }
        double w0 = mono(), c0 = thread_cpu();
        long v = 0;
        if (k == 0) {
            shmem_ctx_long_p(ctx, &payload[2 + me % 6], 1000 + me, 0);
            shmem_ctx_quiet(ctx);
        } else if (k == 1) {
            v = shmem_ctx_long_atomic_fetch_add(ctx, &counter, 1, 0);
        } else {
            shmem_ctx_getmem(ctx, &v, &payload[1], sizeof v, 0);
        }
        const double end = mono(), cpu = thread_cpu() - c0;
        /* The answer came on the context's worker; the stamp comes on the main one, maybe later. */
        shmem_long_wait_until(&stamped, SHMEM_CMP_EQ, k + 1);
        check_wait_at(kinds[k], w0, end, cpu);
        if (k == 1) CHECK(v >= n - 1 && v < 2 * (n - 1), "fetch-add: got %ld, expected %d to %d", v, n - 1, 2 * n - 3);
        if (k == 2) CHECK(v == 77, "get: expected 77, got %ld", v);
        shmem_barrier_all();
    }
    if (me == 0) {
        CHECK(counter == 2 * (n - 1), "counter: expected %d, got %ld", 2 * (n - 1), counter);
        for (int pe = 1; pe < n && pe < 7; ++pe)
            CHECK(payload[2 + pe % 6] == 1000 + pe, "put from PE %d: got %ld", pe, payload[2 + pe % 6]);
    }
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2) {
        printf("wait_policy: 1 PE, nothing to wait for\n");
        shmem_finalize();
        return 0;
    }
    if (argc > 1) {
        CHECK(!strcmp(argv[1], "ctx"), "usage: wait_policy [ctx]");
        ctx_waits(me, n);
        shmem_finalize();
        return 0;
    }

    /* Barrier. */
    shmem_barrier_all();
    if (me == 0) {
        compute(0.3);
        announce_stamp();
        shmem_barrier_all();
    } else {
        double w0 = mono(), c0 = thread_cpu();
        shmem_barrier_all();
        check_wait("barrier", w0, c0);
    }

    /* wait_until on a flag a plain put writes. */
    shmem_barrier_all();
    if (me == 0) {
        compute(0.3);
        announce_stamp();
        for (int pe = 1; pe < n; ++pe) shmem_long_p(&flag, 42, pe);
        shmem_quiet();
    } else {
        double w0 = mono(), c0 = thread_cpu();
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 42);
        check_wait("wait_until", w0, c0);
    }

    /* signal_wait_until after put_signal: the payload must be there with the signal. */
    shmem_barrier_all();
    if (me == 0) {
        long src[8];
        for (int i = 0; i < 8; ++i) src[i] = 100 + i;
        compute(0.3);
        announce_stamp();
        for (int pe = 1; pe < n; ++pe)
            shmem_long_put_signal(payload, src, 8, &sig, 7, SHMEM_SIGNAL_SET, pe);
        shmem_quiet();
    } else {
        double w0 = mono(), c0 = thread_cpu();
        uint64_t v = shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 7);
        check_wait("signal_wait_until", w0, c0);
        CHECK(v == 7, "signal: expected 7, got %" PRIu64, v);
        for (int i = 0; i < 8; ++i) CHECK(payload[i] == 100 + i, "payload[%d]: expected %d, got %ld", i, 100 + i, payload[i]);
    }

    /* set_lock on a lock PE 0 holds while it computes (2 PEs: one waiter, woken by the hand-over). */
    shmem_barrier_all();
    if (n == 2) {
        if (me == 0) {
            shmem_set_lock(&lock_word);
            shmem_barrier_all();
            compute(0.3);
            announce_stamp();
            shmem_clear_lock(&lock_word);
        } else {
            shmem_barrier_all();
            double w0 = mono(), c0 = thread_cpu();
            shmem_set_lock(&lock_word);
            check_wait("set_lock", w0, c0);
            shmem_clear_lock(&lock_word);
        }
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
