/* lost_wakeup: the detector of lost wake-ups must fire when a wake-up is lost.
 *
 * Under SHMEM_DEBUG=1 a wait that every waker should end, but that slept to its bound although its
 * condition was met, prints "missed wake-up" (core/wait.cpp); other tests (ctx_wakeups) fail on that
 * line, so it must be known to appear when a wake-up is in fact lost. Run with
 * USHMEM_TEST_FAULT=lose_wakeups (the PEs wake no sleeper), USHMEM_WAIT_POLICY=block (waits sleep
 * at once and direct stores wake them, so a wait on a flag is one that every waker should end),
 * SHMEM_DEBUG=1, 2 PEs on one node (the flag is set by a direct atomic).
 *
 * Rounds r = 1, 2, ...: PE 1 waits until flag >= r, then reports; PE 0 computes for 2^(r-1) ms,
 * sets the flag to r with an atomic (whose wake-up the fault drops), and waits for the report. The
 * rounds end at the first whose flag-to-report time on PE 0 reached LOST_MS (a sleeper, PE 1 or
 * PE 0 itself, slept to its bound: a wake-up was lost while it slept), at most ROUNDS of them.
 * Without the fault the report comes within microseconds and the program fails, so a run that
 * passes shows a lost wake-up; ctest checks that the library said so. The growing delay only
 * makes it certain that PE 1 is asleep before the flag is set in some round. */
#include "common.h"

#define ROUNDS 12
#define LOST_MS 80 /* the bound of a sleep that a waker should end is 100 ms */

int main(void) {
    static long flag, report, lost;
    shmem_init();
    const int me = shmem_my_pe();
    CHECK(shmem_n_pes() == 2, "lost_wakeup runs at 2 PEs");
    shmem_barrier_all();
    int r = 1;
    double worst_ms = 0;
    for (; r <= ROUNDS; ++r) {
        if (me == 1) {
            shmem_long_wait_until(&flag, SHMEM_CMP_GE, r);
            shmem_long_atomic_set(&report, r, 0);
        } else {
            spin_for((double)(1L << (r - 1)) / 1e3);  /* 2^(r-1) ms */
            const double t0 = now_seconds();
            shmem_long_atomic_set(&flag, r, 1);
            shmem_long_wait_until(&report, SHMEM_CMP_GE, r);
            const double ms = (now_seconds() - t0) * 1e3;
            if (ms > worst_ms) worst_ms = ms;
            lost = ms >= LOST_MS;
        }
        shmem_barrier_all();
        if (me == 1) lost = shmem_long_g(&lost, 0);
        if (lost) break;
    }
    if (me == 0) { /* (PE 1 follows PE 0's verdict) */
        CHECK(lost, "no report took %d ms in %d rounds (the longest %.3f ms): no wake-up was lost (is "
                    "USHMEM_TEST_FAULT=lose_wakeups set, with USHMEM_WAIT_POLICY=block?)", LOST_MS, ROUNDS, worst_ms);
        printf("lost_wakeup: a sleeper slept to its bound in round %d\n", r);
    }
    shmem_finalize();
    return 0;
}
