/* bulk_refused: a bulk message (USHMEM_BULK_MIN) that its target refuses ends the sender's job
 * with a message naming the target, and writes nothing there.
 *
 * Usage: bulk_refused   (2 PEs, UCX_TLS=tcp, USHMEM_TEST_FAULT=reject_bulk)
 *
 * With the fault every PE takes every bulk message for one outside its segments (the check a
 * malformed message fails, a bug of ours). PE 0 puts 1 MiB into PE 1's heap and quiets: the
 * put must not return; the rendezvous's answer carries PE 1's refusal and PE 0's put ends the
 * job naming PE 1 (ctest matches the message). PE 1 meanwhile computes without calling the
 * library (its progress thread serves the request) and watches its buffer: the program fails if
 * a byte of it changes, if PE 0's put returns, or if the job is still running after 20 s. */
#include "common.h"
#include <string.h>
#include <time.h>

#define N (1024 * 1024)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
    shmem_init();
    const int me = shmem_my_pe();
    CHECK(shmem_n_pes() == 2, "bulk_refused runs at 2 PEs");
    unsigned char *dest = shmem_malloc(N);
    CHECK(dest != NULL, "shmem_malloc(%d) failed", N);
    memset(dest, 0x5a, N);
    shmem_barrier_all();
    if (me == 0) {
        static unsigned char src[N];
        memset(src, 0xa5, N);
        shmem_putmem(dest, src, N, 1);
        shmem_quiet();
        FAIL("shmem_putmem and shmem_quiet returned although PE 1 refused the bulk transfer");
    }
    const volatile unsigned char *d = dest;
    const double end = now() + 20;
    while (now() < end) {
        for (size_t i = 0; i < N; i += 4096)
            if (d[i] != 0x5a || d[i + 4095] != 0x5a)
                FAIL("PE 1's buffer was written at byte %zu although PE 1 refused the transfer", i);
    }
    FAIL("PE 0's refused bulk put did not end the job within 20 s");
}
