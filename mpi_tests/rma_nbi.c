/* rma_nbi: nonblocking RMA.
 *
 *   shmem_TYPENAME_put_nbi/get_nbi for the 24 standard RMA types (plain, ctx, generic, generic
 *   ctx), shmem_putSIZE_nbi/getSIZE_nbi and shmem_putmem_nbi/getmem_nbi (plain, ctx): each
 *   transfer is split into many nonblocking operations (up to 64) that are completed together by
 *   shmem_quiet, shmem_ctx_quiet(SHMEM_CTX_DEFAULT) or shmem_barrier_all alone (which completes
 *   put_nbi and get_nbi issued on the default context); only then is the source reused or the
 *   destination read;
 *   a burst of put_nbi to every PE (including the own PE) followed by one shmem_quiet, and a burst
 *   of get_nbi from every PE. */
#include "rma_common.h"

static const size_t ladder[] = {1, 7, 4 * KiB + 3, 64 * KiB, MiB};
#define NLADDER ((int)(sizeof ladder / sizeof ladder[0]))

static int run_types(const rma_type *types, int ntypes) {
    int rounds = 0;
    for (int ti = 0; ti < ntypes; ++ti) {
        const rma_type *t = &types[ti];
        for (int si = 0; si < NLADDER; ++si) {
            if (ladder[si] > 64 * KiB && !t->wide) break;
            size_t n = ladder[si] / t->size ? ladder[si] / t->size : 1;
            for (int v = 0; v < t->nvariants; ++v) {
                if (ladder[si] > 4 * KiB + 3 && v != (ti + si) % t->nvariants) continue;
                /* Completion: 0 shmem_quiet, 1 shmem_ctx_quiet, 2 shmem_barrier_all only. */
                int r = ti + si + v;
                round_xfer(t, v, placement_for(r), n, 1, r % 3);
                ++rounds;
            }
        }
    }
    return rounds;
}

/* Every PE put_nbi's a distinct block into slot [me] of every PE, then one shmem_quiet; after a
 * barrier each PE checks all slots. Then every PE get_nbi's slot [pe] from every PE and checks
 * after one shmem_quiet. */
static void test_burst(void) {
    const size_t blk = 1000, stride = 1024;
    CHECK((size_t)npes * stride <= BIG, "too many PEs");
    uint32_t tag = next_tag();
    round_tag += (uint32_t)npes;
    memset(heap_region[0], UNTOUCHED, (size_t)npes * stride);
    unsigned char *src = private_local[0]; /* one source block per target, all live until quiet */
    for (int pe = 0; pe < npes; ++pe) fill_bytes(src + (size_t)pe * stride, blk, me, tag + (uint32_t)pe);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; ++pe)
        shmem_putmem_nbi(heap_region[0] + (size_t)me * stride, src + (size_t)pe * stride, blk, pe);
    shmem_quiet();
    memset(src, SCRIBBLE, (size_t)npes * stride);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; ++pe) {
        CHECK_BYTES(heap_region[0] + (size_t)pe * stride, blk, pe, tag + (uint32_t)me,
                    "putmem_nbi burst: slot written by PE %d", pe);
        CHECK_FILL(heap_region[0] + (size_t)pe * stride + blk, stride - blk, UNTOUCHED,
                   "putmem_nbi burst: after the slot written by PE %d", pe);
    }
    /* Slot [me] of PE pe holds what this PE sent to pe. */
    memset(src, 0, (size_t)npes * stride);
    for (int pe = 0; pe < npes; ++pe)
        shmem_getmem_nbi(src + (size_t)pe * stride, heap_region[0] + (size_t)me * stride, blk, pe);
    shmem_quiet();
    for (int pe = 0; pe < npes; ++pe)
        CHECK_BYTES(src + (size_t)pe * stride, blk, me, tag + (uint32_t)pe,
                    "getmem_nbi burst: my slot on PE %d", pe);
    shmem_barrier_all();

    /* Many small nonblocking puts to the same target, one quiet. */
    tag = next_tag();
    const size_t nsmall = 4096;
    memset(heap_region[0], UNTOUCHED, nsmall * sizeof(long) + 2 * GUARD);
    long *vals = (long *)private_local[0];
    for (size_t k = 0; k < nsmall; ++k) vals[k] = (long)pattern_word(me, tag, k);
    shmem_barrier_all();
    for (size_t k = 0; k < nsmall; ++k)
        shmem_long_put_nbi((long *)(heap_region[0] + GUARD) + k, &vals[k], 1, right);
    shmem_quiet();
    shmem_barrier_all();
    const long *got = (const long *)(heap_region[0] + GUARD);
    for (size_t k = 0; k < nsmall; ++k)
        CHECK(got[k] == (long)pattern_word(left, tag, k),
              "element %zu of %zu single-element long_put_nbi from PE %d: expected %ld, got %ld", k,
              nsmall, left, (long)pattern_word(left, tag, k), got[k]);
    CHECK_FILL(heap_region[0], GUARD, UNTOUCHED, "guard before 4096 long_put_nbi");
    CHECK_FILL(heap_region[0] + GUARD + nsmall * sizeof(long), GUARD, UNTOUCHED,
               "guard after 4096 long_put_nbi");
    shmem_barrier_all();
    NOTE("nbi bursts: OK");
}

int main(void) {
    rma_setup();
    test_burst();
    int r = run_types(typed_types, NTYPED);
    NOTE("typed put_nbi/get_nbi: %d rounds OK", r);
    r = run_types(sized_types, NSIZED);
    NOTE("sized and mem put_nbi/get_nbi: %d rounds OK", r);
    rma_teardown("rma_nbi");
    return 0;
}
