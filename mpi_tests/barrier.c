/* barrier: shmem_barrier_all and shmem_sync_all really hold every PE until all have arrived,
 * and shmem_barrier_all completes the puts issued before it.
 *
 * In iteration i every PE writes the value i+1 into its own slot of a counter array on every
 * PE (including itself), with shmem_long_p, shmem_long_put, or a put_nbi of a larger block,
 * then calls the barrier, then checks that every slot of its own array holds i+1. A barrier
 * that let a PE through before another PE had arrived (or before that PE's puts were complete)
 * leaves a slot at i. Two arrays alternate, so a fast PE writing iteration i+1 cannot disturb a
 * slow PE still checking iteration i: the fast PE cannot pass barrier i+1 before the slow PE
 * arrives there. Every 16 iterations one PE (rotating) is delayed by a short busy wait before
 * its puts, which makes an early release visible.
 *
 * shmem_sync_all does not complete puts, so each iteration of the sync_all phase calls
 * shmem_quiet first (as the specification requires for this pattern). */
#include "common.h"

#define BARRIER_ITERS 400
#define SYNC_ITERS 400
#define BLOCK_ITERS 40
#define BLOCK_BYTES (64 * 1024)

static int me, npes;
static long counters[2][1024]; /* .bss, [parity][pe] */
static unsigned char *blocks;  /* heap: [parity][pe][BLOCK_BYTES] */

static void check_counters(int parity, long expected, const char *what, int i) {
    for (int pe = 0; pe < npes; ++pe)
        if (counters[parity][pe] != expected)
            FAIL("%s iteration %d: slot of PE %d is %ld, expected %ld (released before PE %d's "
                 "update arrived)",
                 what, i, pe, counters[parity][pe], expected, pe);
}

static void delay_if_chosen(int i) {
    if (i % 16 == 0 && me == (i / 16) % npes) spin_for(0.002);
}

static void test_barrier_all(void) {
    for (int i = 0; i < BARRIER_ITERS; ++i) {
        int parity = i % 2;
        long v = i + 1;
        delay_if_chosen(i);
        for (int k = 0; k < npes; ++k) {
            int pe = (me + k) % npes;
            if (i % 3 == 0) shmem_long_p(&counters[parity][me], v, pe);
            else if (i % 3 == 1) shmem_long_put(&counters[parity][me], &v, 1, pe);
            else shmem_long_put_nbi(&counters[parity][me], &v, 1, pe); /* v lives until the barrier */
        }
        shmem_barrier_all();
        check_counters(parity, v, "shmem_barrier_all", i);
    }
    NOTE("shmem_barrier_all, %d iterations: OK", BARRIER_ITERS);
}

/* Larger puts (rendezvous-sized on most transports) completed by the barrier alone. */
static void test_barrier_blocks(void) {
    unsigned char *src = malloc(BLOCK_BYTES);
    CHECK(src, "malloc");
    for (int i = 0; i < BLOCK_ITERS; ++i) {
        int parity = i % 2;
        uint32_t tag = (uint32_t)(7000 + i);
        fill_bytes(src, BLOCK_BYTES, me, tag);
        delay_if_chosen(i * 16);
        for (int k = 0; k < npes; ++k) {
            int pe = (me + k) % npes;
            unsigned char *dst = blocks + ((size_t)parity * (size_t)npes + (size_t)me) * BLOCK_BYTES;
            if (i % 2) shmem_putmem_nbi(dst, src, BLOCK_BYTES, pe);
            else shmem_putmem(dst, src, BLOCK_BYTES, pe);
        }
        shmem_barrier_all(); /* completes the put_nbi too */
        for (int pe = 0; pe < npes; ++pe)
            CHECK_BYTES(blocks + ((size_t)parity * (size_t)npes + (size_t)pe) * BLOCK_BYTES,
                        BLOCK_BYTES, pe, tag, "iteration %d: 64 KiB block from PE %d after barrier",
                        i, pe);
    }
    free(src);
    NOTE("shmem_barrier_all with 64 KiB puts, %d iterations: OK", BLOCK_ITERS);
}

static void test_sync_all(void) {
    memset(counters, 0, sizeof counters);
    shmem_barrier_all();
    for (int i = 0; i < SYNC_ITERS; ++i) {
        int parity = i % 2;
        long v = i + 1;
        delay_if_chosen(i);
        for (int k = 0; k < npes; ++k) {
            int pe = (me + k) % npes;
            if (i % 2) shmem_long_p(&counters[parity][me], v, pe);
            else shmem_long_put(&counters[parity][me], &v, 1, pe);
        }
        shmem_quiet(); /* sync_all does not complete puts by itself */
        shmem_sync_all();
        check_counters(parity, v, "shmem_quiet + shmem_sync_all", i);
    }
    NOTE("shmem_sync_all, %d iterations: OK", SYNC_ITERS);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 1024, "too many PEs");
    blocks = shmem_malloc(2 * (size_t)npes * BLOCK_BYTES);
    CHECK(blocks, "shmem_malloc");
    shmem_barrier_all();
    test_barrier_all();
    test_barrier_blocks();
    test_sync_all();
    shmem_barrier_all();
    shmem_free(blocks);
    printf("[PE %d] barrier: OK\n", me);
    shmem_finalize();
    return 0;
}
