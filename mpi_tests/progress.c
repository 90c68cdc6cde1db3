/* progress: a PE that computes without calling the library still serves the data transfers
 * that target it (network path: the library's progress thread).
 *
 * Run at 2 PEs, in particular with UCX_TLS=tcp,self, where a transfer of 1 MiB needs the target
 * side to make progress. After a barrier, PE 1 computes for 2 seconds (a busy loop on
 * clock_gettime, no OpenSHMEM call). Meanwhile PE 0 puts 1 MiB to PE 1 and calls shmem_quiet,
 * then gets 1 MiB from PE 1, and measures both: each must complete in less than 1 second, i.e.
 * long before PE 1 calls the library again. Afterwards PE 1 checks the data it received and
 * PE 0 checks the data it read.
 *
 * Then the same for a put-with-signal that PE 1 consumed before it computes: PE 1 waits for the
 * signal (shmem_signal_wait_until), then computes for 2 seconds; PE 0's shmem_quiet after the
 * put-with-signal must end in less than 1 second too. Over the network the target acknowledges such
 * a message lazily (the answer it usually sends at once carries the acknowledgement); one that
 * leaves its wait without answering must still send it while it computes.
 *
 * This test is about time by necessity; the bound (1 s against a 2 s computation) is generous. */
#include "common.h"

#define BYTES ((size_t)1 << 20)
#define COMPUTE_SECONDS 2.0
#define BOUND_SECONDS 1.0

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n >= 2, "progress needs at least 2 PEs");
    unsigned char *dst = shmem_malloc(BYTES);
    unsigned char *src = shmem_malloc(BYTES);
    unsigned char *local = malloc(BYTES);
    CHECK(dst && src && local, "allocation");
    memset(dst, 0, BYTES);
    fill_bytes(src, BYTES, me, 77); /* PE 1's src is what PE 0 reads */
    fill_bytes(local, BYTES, me, 78);
    shmem_barrier_all();

    double put_s = 0, get_s = 0;
    if (me == 1) {
        double t0 = now_seconds();
        spin_for(COMPUTE_SECONDS);
        printf("[PE 1] computed for %.2f s without calling the library\n", now_seconds() - t0);
    } else if (me == 0) {
        spin_for(0.05); /* let PE 1 get into its computation */
        double t0 = now_seconds();
        shmem_putmem(dst, local, BYTES, 1);
        shmem_quiet();
        double t1 = now_seconds();
        shmem_getmem(local, src, BYTES, 1);
        double t2 = now_seconds();
        put_s = t1 - t0;
        get_s = t2 - t1;
        printf("[PE 0] put 1 MiB + quiet: %.3f s, get 1 MiB: %.3f s (PE 1 busy for %.1f s)\n",
               put_s, get_s, COMPUTE_SECONDS);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK_BYTES(local, BYTES, 1, 77, "1 MiB read from PE 1");
        CHECK(put_s < BOUND_SECONDS,
              "shmem_putmem + shmem_quiet to a computing PE took %.3f s (bound %.1f s): the target "
              "made no progress while it computed",
              put_s, BOUND_SECONDS);
        CHECK(get_s < BOUND_SECONDS,
              "shmem_getmem from a computing PE took %.3f s (bound %.1f s): the target made no "
              "progress while it computed",
              get_s, BOUND_SECONDS);
    }
    if (me == 1) CHECK_BYTES(dst, BYTES, 0, 78, "1 MiB put by PE 0 while this PE computed");
    shmem_barrier_all();

    /* A put-with-signal consumed by a wait, then a computation. */
    static uint64_t sig;
    static long word;
    const long value = 0x5eed;
    if (me == 1) {
        shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
        CHECK(word == value, "the put-with-signal's data: %ld, expected %ld", word, value);
        double t0 = now_seconds();
        spin_for(COMPUTE_SECONDS);
        printf("[PE 1] consumed the signal, then computed for %.2f s\n", now_seconds() - t0);
    } else if (me == 0) {
        spin_for(0.05); /* let PE 1 get into its wait */
        shmem_long_put_signal(&word, &value, 1, &sig, 1, SHMEM_SIGNAL_SET, 1);
        double t0 = now_seconds();
        shmem_quiet();
        put_s = now_seconds() - t0;
        printf("[PE 0] quiet after a put-with-signal that PE 1 consumed: %.3f s\n", put_s);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(put_s < BOUND_SECONDS,
              "shmem_quiet after a put-with-signal took %.3f s (bound %.1f s): the target, which "
              "consumed the signal and then computed, did not acknowledge it meanwhile",
              put_s, BOUND_SECONDS);
    shmem_free(src);
    shmem_free(dst);
    free(local);
    printf("[PE %d] progress: OK\n", me);
    shmem_finalize();
    return 0;
}
