/* Sleepers woken by signallers that never touched their heap.
 *
 * A PE that sleeps in a wait counts itself in a wake word in its heap; a same-node PE that stores
 * a signal directly reads that word and wakes it. Routes to a peer's segments are resolved on
 * first use, so a program whose first contact with a peer is in static data (the pSync of an
 * active-set barrier, a flag in .bss) may signal a peer whose heap it has never mapped. Before
 * the fix the signaller then skipped the wake-up: the sleeper slept to its 100 ms bound (OSU's
 * osu_oshm_barrier at 4 PEs on 2 cores: 100 ms per barrier for its first calls).
 *
 * Every section starts right after shmem_init, touching only static data, with one PE in turn
 * late so that the others are asleep when its signal comes. Run with USHMEM_WAIT_POLICY=block
 * SHMEM_DEBUG=1 USHMEM_ACTIVE_SET_WORLD_TEAM=0 (the active sets here span every PE; run as the
 * world team's collectives they would signal through heap counters and map every heap first): a
 * sleep that runs to its bound with its condition met says "missed wake-up", which fails the test
 * (FAIL_REGULAR_EXPRESSION). The data checks fail it too. */
#include "common.h"

static long psync_a[SHMEM_BARRIER_SYNC_SIZE], psync_b[SHMEM_BARRIER_SYNC_SIZE];
static long psync_s[SHMEM_SYNC_SIZE];
static long flag;         /* static: written by the PE before us */
static uint64_t sig;      /* static: put-with-signal's signal */
static long landing[4];   /* static: put-with-signal's data */
static long counter;      /* static: atomic adds from every other PE */

int main(void) {
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync_a[i] = psync_b[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) psync_s[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const double late = 0.02; /* long enough for the others to go to sleep */

    /* Active-set barriers on static pSyncs (alternating, as OSU's barrier test does), each PE
     * late in turn; then active-set syncs. */
    for (int round = 0; round < 2 * n; ++round) {
        if (round % n == me) spin_for(late);
        shmem_barrier(0, 0, n, round % 2 ? psync_a : psync_b);
    }
    for (int round = 0; round < n; ++round) {
        if (round == me) spin_for(late);
        shmem_sync(0, 0, n, psync_s);
    }

    /* Point to point on static data: a ring of flags, each PE waiting for the one before it,
     * which is late. */
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    for (int round = 1; round <= 3; ++round) {
        if (me == round % n) spin_for(late);
        shmem_long_atomic_set(&flag, round, next);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, round);
        CHECK_EQ_INT(round, shmem_long_atomic_fetch(&flag, me), "flag from the previous PE");
        shmem_barrier(0, 0, n, round % 2 ? psync_a : psync_b);
    }

#if TEST_WITH_USHMEM
    /* Put-with-signal into static data, waited on with signal_wait_until (OpenSHMEM 1.5). */
    if (me == 0) spin_for(late);
    long mine[4] = {me, me + 1, me + 2, me + 3};
    shmem_long_put_signal(landing, mine, 4, &sig, 1, SHMEM_SIGNAL_SET, next);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < 4; ++i) CHECK_EQ_INT(prev + i, landing[i], "put-with-signal data");
#else
    (void)sig;
    (void)landing;
#endif

    /* Atomic adds from every other PE into PE 0's static counter, PE 0 waiting for all. */
    shmem_barrier(0, 0, n, psync_a);
    if (me != 0) {
        if (me == n - 1) spin_for(late);
        shmem_long_atomic_add(&counter, 1, 0);
    } else {
        shmem_long_wait_until(&counter, SHMEM_CMP_EQ, n - 1);
        CHECK_EQ_INT(n - 1, shmem_long_atomic_fetch(&counter, 0), "adds from every other PE");
    }

    shmem_finalize();
    if (me == 0) printf("wake_routes: ok (%d PEs)\n", n);
    return 0;
}
