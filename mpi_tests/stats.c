/* USHMEM_STATS=1: a known mix of operations to the right neighbour; mpi_tests/stats_check.sh
 * compares the table every PE prints at finalize with these counts (keep the two in step). */
#include "common.h"

static long words[16];
static long counter;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n;
    long v[2] = {me, me};
    for (int i = 0; i < 10; ++i) shmem_putmem(&words[0], v, 8, right);       /* put: 10 x 8 B */
    for (int i = 0; i < 5; ++i) shmem_long_p(&words[1], me, right);          /* put: 5 x 8 B */
    shmem_putmem_nbi(&words[4], v, 16, right);                                /* put_nbi: 16 B */
    shmem_quiet();
    long got[2];
    for (int i = 0; i < 3; ++i) shmem_getmem(got, &words[8], 16, right);     /* get: 3 x 16 B */
    for (int i = 0; i < 4; ++i) shmem_long_atomic_fetch_add(&counter, 1, right); /* amo_fetch: 4 x 8 B */
    for (int i = 0; i < 2; ++i) shmem_long_atomic_add(&counter, 1, right);   /* amo: 2 x 8 B */
    shmem_quiet();
    shmem_barrier_all();                                                      /* collectives: 1 */
    CHECK(counter == 6, "counter = %ld after 6 atomic adds from PE %d", counter, (me + n - 1) % n);
    shmem_finalize();
    return 0;
}
