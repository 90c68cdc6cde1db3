/* setup_nested: matched series of initialisation and finalisation calls.
 *
 * Usage: setup_nested nested|reinit|cycles N
 *
 *   nested: shmem_init twice, then shmem_finalize twice. The first finalize is not the last of
 *           the series: the library stays initialised and usable (query_initialized 1, RMA and
 *           barrier work, symmetric memory keeps its contents). The second one finalises
 *           (query_initialized 0). A further shmem_finalize is a no-op in ushmem.
 *   reinit: shmem_init, work, shmem_finalize, then shmem_init again ("may be re-initialized
 *           with a subsequent call to an initialization routine"), work, shmem_finalize.
 *   cycles N: N series of shmem_init then shmem_finalize with nothing between, then one with
 *           work. Each series' endpoints are first used by finalize's own barrier: across hosts
 *           (twohost) a PE once aborted in UCX at the end of such a series, about one job in 50,
 *           when a peer left before an endpoint's wireup had finished (finalize now flushes every
 *           endpoint before the workers go). Every series must end cleanly. */
#include "common.h"

static long static_buf[64];

/* One round of real communication: each PE puts a pattern to its right neighbour's heap block
 * and .bss array, then checks what its left neighbour put. */
static void exchange(long *heap, uint32_t tag) {
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char src[sizeof static_buf];
    fill_bytes(src, sizeof src, me, tag);
    shmem_barrier_all();
    shmem_putmem(heap, src, sizeof src, right);
    shmem_putmem(static_buf, src, sizeof src, right);
    shmem_barrier_all();
    CHECK_BYTES(heap, sizeof static_buf, left, tag, "heap block put by PE %d (round %u)", left,
                (unsigned)tag);
    CHECK_BYTES(static_buf, sizeof static_buf, left, tag, ".bss array put by PE %d (round %u)",
                left, (unsigned)tag);
    shmem_barrier_all();
}

static int query_initialized(void) {
#if TEST_WITH_USHMEM
    int v = -1;
    shmem_query_initialized(&v);
    return v;
#else
    return -1;
#endif
}

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc >= 2, "usage: setup_nested nested|reinit|cycles N");
    const int expect_query = TEST_WITH_USHMEM; /* OSHMEM 1.4 has no shmem_query_initialized */

    if (strcmp(argv[1], "nested") == 0) {
        shmem_init();
        int me = shmem_my_pe(), n = shmem_n_pes();
        shmem_init(); /* nested: must be matched by a second finalize */
        CHECK_EQ_INT(me, shmem_my_pe(), "my_pe after a nested shmem_init");
        CHECK_EQ_INT(n, shmem_n_pes(), "n_pes after a nested shmem_init");
        long *heap = shmem_malloc(sizeof static_buf);
        CHECK(heap, "shmem_malloc");
        exchange(heap, 1);

        shmem_finalize(); /* not the last one: acts as a barrier, frees nothing */
        if (expect_query)
            CHECK(query_initialized() != 0,
                  "shmem_query_initialized after the first of two shmem_finalize gave 0");
        CHECK_EQ_INT(me, shmem_my_pe(), "my_pe after an inner shmem_finalize");
        exchange(heap, 2); /* the heap block survived the inner finalize */
        shmem_free(heap);

        shmem_finalize(); /* the last one */
        if (expect_query)
            CHECK_NOSHMEM(query_initialized() == 0,
                          "shmem_query_initialized after the last shmem_finalize gave nonzero");
#if TEST_WITH_USHMEM
        shmem_finalize(); /* ushmem: one more is harmless */
        CHECK_NOSHMEM(query_initialized() == 0,
                      "shmem_query_initialized after an extra shmem_finalize gave nonzero");
#endif
        printf("[PE %d] nested init/finalize: OK\n", me);
        return 0;
    }

    if (strcmp(argv[1], "reinit") == 0) {
        shmem_init();
        int me = shmem_my_pe(), n = shmem_n_pes();
        long *heap = shmem_malloc(sizeof static_buf);
        CHECK(heap, "shmem_malloc");
        exchange(heap, 10);
        shmem_free(heap);
        shmem_finalize();
        if (expect_query)
            CHECK_NOSHMEM(query_initialized() == 0,
                          "shmem_query_initialized after shmem_finalize gave nonzero");

        shmem_init(); /* a new series */
        if (expect_query)
            CHECK(query_initialized() != 0, "shmem_query_initialized after re-init gave 0");
        CHECK_EQ_INT(me, shmem_my_pe(), "my_pe after re-initialisation");
        CHECK_EQ_INT(n, shmem_n_pes(), "n_pes after re-initialisation");
        heap = shmem_malloc(sizeof static_buf);
        CHECK(heap, "shmem_malloc after re-initialisation");
        exchange(heap, 11);
        shmem_free(heap);
        shmem_finalize();
        if (expect_query)
            CHECK_NOSHMEM(query_initialized() == 0,
                          "shmem_query_initialized after the second series gave nonzero");
        printf("[PE %d] re-initialisation: OK\n", me);
        return 0;
    }
    if (strcmp(argv[1], "cycles") == 0) {
        CHECK_NOSHMEM(argc == 3 && atoi(argv[2]) > 0, "usage: setup_nested cycles N");
        const int cycles = atoi(argv[2]);
        for (int i = 0; i < cycles; ++i) {
            shmem_init();
            shmem_finalize();
        }
        if (expect_query)
            CHECK_NOSHMEM(query_initialized() == 0, "shmem_query_initialized after %d series gave nonzero",
                          cycles);
        shmem_init();
        long *heap = shmem_malloc(sizeof static_buf);
        CHECK(heap, "shmem_malloc after %d series", cycles);
        exchange(heap, 12);
        shmem_free(heap);
        const int me = shmem_my_pe();
        shmem_finalize();
        printf("[PE %d] %d init/finalize series: OK\n", me, cycles + 1);
        return 0;
    }
    CHECK_NOSHMEM(0, "unknown mode '%s'", argv[1]);
    return 1;
}
