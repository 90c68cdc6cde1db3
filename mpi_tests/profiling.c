/* The OpenSHMEM profiling interface: a tool defines its own shmem_putmem (and shmem_barrier_all)
 * that counts the call and forwards to pshmem_putmem; the program's calls must reach the wrapper
 * and the data must still arrive. shmem_pcontrol must be callable at every level. */
#include "common.h"

#include <pshmem.h>

static int putmem_calls, barrier_calls;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
    ++putmem_calls;
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_barrier_all(void) {
    ++barrier_calls;
    pshmem_barrier_all();
}

static long target[4];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_pcontrol(0);
    shmem_pcontrol(1);
    shmem_pcontrol(2, "extra arguments are allowed");
    long v[4] = {me, me + 1, me + 2, me + 3};
    int to = (me + 1) % n;
    shmem_putmem(target, v, sizeof v, to);
    shmem_barrier_all();
    int from = (me + n - 1) % n;
    for (int i = 0; i < 4; ++i)
        CHECK(target[i] == from + i, "target[%d] = %ld, expected %d", i, target[i], from + i);
    CHECK(putmem_calls == 1, "the shmem_putmem wrapper ran %d times, expected 1", putmem_calls);
    CHECK(barrier_calls == 1, "the shmem_barrier_all wrapper ran %d times, expected 1", barrier_calls);
    /* Every PE must finish reading target before the next put overwrites it. */
    pshmem_barrier_all();
    /* A routine not wrapped still works, and its profiling name is the same routine. */
    pshmem_long_p(&target[0], -1, to);
    pshmem_barrier_all();
    CHECK(target[0] == -1, "pshmem_long_p: target[0] = %ld, expected -1", target[0]);
    shmem_finalize();
    if (me == 0) printf("profiling: OK\n");
    return 0;
}
