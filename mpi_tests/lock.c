/* lock: shmem_set_lock / shmem_test_lock / shmem_clear_lock under contention from every PE.
 *
 *   mutual exclusion: every PE, many times, takes the lock and does a read-modify-write of a
 *       counter on another PE with a plain get and a plain put (no atomics), while an "inside"
 *       counter (fetch_inc on entry must return 0; decremented with a non-fetching add before
 *       release) detects two PEs in the critical section. clear_lock must complete the put and
 *       the add (it quiets first): the final counter is exact, no update lost.
 *       Lock and counter each on the heap and in static data.
 *   test_lock: the same loop taking the lock with test_lock only (spinning on it).
 *   nested locks: two locks held at once (always taken in the same order), two counters.
 *   test_lock on a held lock returns 1 without taking it, and 0 once it is free.
 *   After use (ushmem): the lock words are back to 0 on every PE. */
#include "common.h"

static int me, npes;
static long g_lock __attribute__((aligned(8)));
static long g_lock2 __attribute__((aligned(8)));
static long g_counter;
static long *h_lock, *h_counter, *h_inside;
static int iters = 300;

static void critical_rmw(long *counter, int owner, const char *what, int i) {
    long o = shmem_long_atomic_fetch_inc(h_inside, 0);
    if (o != 0) FAIL("%s iteration %d: %ld other PE(s) inside the critical section", what, i, o);
    long v = shmem_long_g(counter, owner);
    if (i % 7 == 0) spin_for(2e-6); /* widen the window a little */
    shmem_long_p(counter, v + 1, owner);
    shmem_long_atomic_add(h_inside, -1, 0); /* completed by clear_lock's quiet */
}

static void reset_counters(void) {
    shmem_barrier_all();
    g_counter = 0;
    *h_counter = 0;
    *h_inside = 0;
    shmem_barrier_all();
}

static void check_total(long *counter, int owner, long want, const char *what) {
    shmem_barrier_all();
    long have = shmem_long_g(counter, owner);
    if (have != want)
        FAIL("%s: counter on PE %d is %ld, expected %ld (%ld updates lost)", what, owner, have, want,
             want - have);
    shmem_barrier_all();
}

static void test_mutex(void) {
    for (int k = 0; k < 4; ++k) {
        long *lock = k % 2 ? &g_lock : h_lock;
        long *counter = k / 2 ? &g_counter : h_counter;
        int owner = (k + 1) % npes;
        char what[96];
        snprintf(what, sizeof what, "set_lock (lock %s, counter %s on PE %d)", k % 2 ? "static" : "heap",
                 k / 2 ? "static" : "heap", owner);
        reset_counters();
        for (int i = 0; i < iters; ++i) {
            shmem_set_lock(lock);
            critical_rmw(counter, owner, what, i);
            shmem_clear_lock(lock);
        }
        check_total(counter, owner, (long)npes * iters, what);
    }
    NOTE("set_lock/clear_lock: %d x %d critical sections, no lost update, never two inside: OK",
         npes, iters);
}

static void test_trylock(void) {
    reset_counters();
    long attempts = 0;
    for (int i = 0; i < iters; ++i) {
        while (shmem_test_lock(h_lock) != 0) {
            ++attempts;
            sched_yield(); /* 4 PEs on 2 cores: let the holder run */
        }
        critical_rmw(&g_counter, npes - 1, "test_lock", i);
        shmem_clear_lock(h_lock);
    }
    check_total(&g_counter, npes - 1, (long)npes * iters, "test_lock");
    NOTE("test_lock/clear_lock: OK (PE 0 found the lock held %ld times)", attempts);
}

static void test_nested(void) {
    reset_counters();
    for (int i = 0; i < iters / 2; ++i) {
        shmem_set_lock(&g_lock);
        shmem_set_lock(h_lock);
        critical_rmw(h_counter, 0, "nested locks (heap counter)", i);
        long v = shmem_long_g(&g_counter, npes - 1);
        shmem_long_p(&g_counter, v + 2, npes - 1);
        shmem_clear_lock(h_lock);
        shmem_clear_lock(&g_lock);
    }
    check_total(h_counter, 0, (long)npes * (iters / 2), "nested locks (heap counter)");
    check_total(&g_counter, npes - 1, 2L * npes * (iters / 2), "nested locks (static counter)");
    NOTE("two locks held at once: OK");
}

static void test_held(void) {
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ_INT(0, shmem_test_lock(&g_lock2), "test_lock on a free lock");
    }
    shmem_barrier_all();
    if (me != 0) CHECK_EQ_INT(1, shmem_test_lock(&g_lock2), "test_lock on a lock PE 0 holds");
    shmem_barrier_all();
    if (me == 0) shmem_clear_lock(&g_lock2);
    shmem_barrier_all();
    /* Now free: exactly one PE gets it with test_lock. */
    int got = shmem_test_lock(&g_lock2) == 0;
    long winners = 0;
    static long g_winners;
    g_winners = 0;
    shmem_barrier_all();
    if (got) shmem_long_atomic_inc(&g_winners, 0);
    shmem_barrier_all();
    if (me == 0) {
        winners = g_winners;
        CHECK_EQ_INT(1, winners, "PEs that took a free lock with one test_lock each");
    }
    shmem_barrier_all();
    if (got) shmem_clear_lock(&g_lock2);
    shmem_barrier_all();
    NOTE("test_lock on a held lock returns 1, one winner on a free one: OK");
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const char *tls = getenv("UCX_TLS");
    if (tls && strstr(tls, "tcp")) iters = 60; /* emulated AMOs: keep the run short */
    h_lock = shmem_calloc(1, sizeof(long));
    h_counter = shmem_calloc(1, sizeof(long));
    h_inside = shmem_calloc(1, sizeof(long));
    CHECK(h_lock && h_counter && h_inside, "shmem_calloc");
    shmem_barrier_all();

    test_mutex();
    test_trylock();
    test_nested();
    test_held();

    shmem_barrier_all();
#if TEST_WITH_USHMEM
    /* ushmem leaves a free lock's words as it found them. */
    CHECK_EQ_INT(0, *h_lock, "heap lock word after use");
    CHECK_EQ_INT(0, g_lock, "static lock word after use");
    CHECK_EQ_INT(0, g_lock2, "second static lock word after use");
#endif
    shmem_barrier_all();
    NOTE("lock: all OK (%d PEs)", npes);
    shmem_free(h_inside);
    shmem_free(h_counter);
    shmem_free(h_lock);
    shmem_finalize();
    return 0;
}
