/* The waiting policy (docs/architecture.md, "Waiting"; issue #16): a PE that waits long sleeps
 * instead of burning its CPU, and is woken at once by the PE that completes its wait, on every
 * path (direct stores and atomics on the node, UCX messages seen by the progress thread).
 *
 * Usage: wait_policy. For each kind of wait (barrier, wait_until on a flag written by a plain put,
 * signal_wait_until after put_signal, set_lock on a lock PE 0 holds), PE 0 computes for 300 ms
 * without calling the library and then completes the wait; every other PE waits. Each waiter checks
 * that the data arrived, that its main thread used less than a third of the wait's wall time in
 * CPU (it slept: a spinning or yielding wait uses all of it on an idle core), and that it returned
 * within 60 ms of PE 0's completing call (it was woken, not found by a long timeout). */
#include "common.h"

#include <stdint.h>

static long flag;
static uint64_t sig;
static long payload[8];
static long lock_word;
static double stamp;        /* PE 0's CLOCK_MONOTONIC when it completed the wait */

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

static void check_wait(const char *kind, double w0, double c0) {
    const double end = mono(), wall = end - w0, cpu = thread_cpu() - c0, late = end - stamp;
    printf("wait_policy: PE %d %s: waited %.3f s, main thread CPU %.3f s, returned %.1f ms after the "
           "completing call\n", shmem_my_pe(), kind, wall, cpu, late * 1e3);
    CHECK(wall > 0.25, "%s: the wait ended after %.3f s, before PE 0 completed it (300 ms)", kind, wall);
    CHECK(cpu < wall / 3, "%s: the waiting thread used %.3f s of CPU in a %.3f s wait: it did not sleep",
          kind, cpu, wall);
    CHECK(late < 0.060, "%s: returned %.1f ms after PE 0 completed the wait: not woken", kind, late * 1e3);
}

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2) {
        printf("wait_policy: 1 PE, nothing to wait for\n");
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
