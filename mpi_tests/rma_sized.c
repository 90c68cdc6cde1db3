/* rma_sized: blocking sized and mem RMA.
 *
 *   shmem_putSIZE/getSIZE and shmem_ctx_putSIZE/getSIZE for SIZE = 8, 16, 32, 64, 128, and
 *   shmem_putmem/getmem and shmem_ctx_putmem/getmem, for transfer sizes of 1 B, 7 B, 8 B,
 *   4 KiB + 3, 64 KiB, 1 MiB and 4 MiB (1 MiB and 4 MiB for 8, 64, 128 and mem), into and out of
 *   the symmetric heap, .bss and .data, from and to private, stack, static and heap memory;
 *   zero-length transfers change nothing;
 *   a put/get pair to every PE (not just the neighbours), including the own PE. */
#include "rma_common.h"

static const size_t ladder[] = {1, 7, 8, 4 * KiB + 3, 64 * KiB, MiB, 4 * MiB};
#define NLADDER ((int)(sizeof ladder / sizeof ladder[0]))

static void test_ladder(void) {
    int rounds = 0;
    for (int ti = 0; ti < NSIZED; ++ti) {
        const rma_type *t = &sized_types[ti];
        for (int si = 0; si < NLADDER; ++si) {
            if (ladder[si] > 64 * KiB && !t->wide) break;
            size_t n = ladder[si] / t->size ? ladder[si] / t->size : 1;
            for (int v = 0; v < t->nvariants; ++v) {
                if (ladder[si] > 64 * KiB && v != (ti + si) % t->nvariants) continue;
                round_xfer(t, v, placement_for(ti + si + v), n, 0, 0);
                ++rounds;
            }
        }
    }
    NOTE("sized and mem put/get: %d rounds OK", rounds);
}

/* nelems = 0: nothing is written, at the destination or locally. */
static void test_zero_length(void) {
    unsigned char local[GUARD];
    memset(heap_region[0], UNTOUCHED, 2 * GUARD);
    memset(local, UNTOUCHED, sizeof local);
    shmem_barrier_all();
    shmem_putmem(heap_region[0] + GUARD, local, 0, right);
    shmem_ctx_putmem(CTX, heap_region[0] + GUARD, local, 0, right);
    shmem_put64(heap_region[0] + GUARD, local, 0, right);
    shmem_int_put((int *)(heap_region[0] + GUARD), (const int *)local, 0, right);
    shmem_putmem_nbi(heap_region[0] + GUARD, local, 0, right);
    shmem_getmem(local, heap_region[0] + GUARD, 0, left);
    shmem_get32(local, heap_region[0] + GUARD, 0, left);
    shmem_getmem_nbi(local, heap_region[0] + GUARD, 0, left);
    shmem_quiet();
    shmem_barrier_all();
    CHECK_FILL(heap_region[0], 2 * GUARD, UNTOUCHED, "zero-length puts wrote to the destination");
    CHECK_FILL(local, sizeof local, UNTOUCHED, "zero-length gets wrote to the local buffer");
    shmem_barrier_all();
    NOTE("zero-length transfers: OK");
}

/* Every PE puts a distinct 4 KiB + 3 block into slot [me] of every PE's heap region (including
 * its own), then reads slot [pe] of every PE back with getmem. */
static void test_all_pairs(void) {
    const size_t blk = 4 * KiB + 3, stride = 4 * KiB + 64;
    CHECK((size_t)npes * stride <= BIG, "too many PEs for the all-pairs test");
    uint32_t tag = next_tag();
    round_tag += (uint32_t)npes; /* tags tag .. tag + npes - 1 are used below */
    memset(heap_region[0], UNTOUCHED, (size_t)npes * stride);
    unsigned char *src = private_local[0];
    shmem_barrier_all();
    for (int pe = 0; pe < npes; ++pe) {
        fill_bytes(src, blk, me, tag + (uint32_t)pe);
        shmem_putmem(heap_region[0] + (size_t)me * stride, src, blk, pe);
    }
    shmem_barrier_all();
    for (int pe = 0; pe < npes; ++pe) {
        CHECK_BYTES(heap_region[0] + (size_t)pe * stride, blk, pe, tag + (uint32_t)me,
                    "slot written by PE %d", pe);
        CHECK_FILL(heap_region[0] + (size_t)pe * stride + blk, stride - blk, UNTOUCHED,
                   "bytes after the slot written by PE %d", pe);
    }
    /* Read back: slot [me] of PE pe holds what this PE sent to pe. */
    for (int pe = 0; pe < npes; ++pe) {
        memset(src, 0, blk);
        shmem_getmem(src, heap_region[0] + (size_t)me * stride, blk, pe);
        CHECK_BYTES(src, blk, me, tag + (uint32_t)pe, "getmem from PE %d of my own slot", pe);
    }
    shmem_barrier_all();
    NOTE("put/get to every PE: OK");
}

int main(void) {
    rma_setup();
    test_zero_length();
    test_all_pairs();
    test_ladder();
    rma_teardown("rma_sized");
    return 0;
}
