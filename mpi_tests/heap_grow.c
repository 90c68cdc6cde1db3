/* heap_grow: the symmetric heap grows (USHMEM_HEAP_GROW, issue #51). The ctest registration gives a
 * small initial heap and small chunks (SHMEM_SYMMETRIC_SIZE=4M, USHMEM_HEAP_CHUNK=2M).
 *
 * Usage: heap_grow MODE
 *   grow   blocks of mixed sizes until the heap has grown by at least 16 chunks, then puts, gets,
 *          AMOs, signals and collectives into every block from every PE, every element verified;
 *          a block larger than a chunk (one growth of several chunks) written across its 2 MiB
 *          boundaries; realloc that moves a block into a new chunk; shmem_ptr and
 *          shmem_addr_accessible on grown blocks; all freed, then the space reused without growth.
 *   fail   (USHMEM_HEAP_MAX small) an allocation past the reservation returns NULL on every PE with
 *          a message naming USHMEM_HEAP_MAX; smaller allocations still work afterwards.
 *   refused (USHMEM_TEST_FAULT=refuse_growth) the last PE fails to map the first chunk: NULL on every
 *          PE with a message naming that PE, and the next growth works.
 *   cross  a put from the end of one chunk into the next: refused as not symmetric (expect_error.sh).
 *   fixed  (USHMEM_HEAP_GROW=0) the heap does not grow: NULL with the fixed heap's message.
 *   kill   grows, then the last PE kills itself (SIGKILL): run under robust_heap.sh, which checks
 *          that nothing is left in System V or /dev/shm. */
#include "common.h"
#include <shmemx.h>
#include <signal.h>
#include <unistd.h>

#define NB 40
#define MIB ((size_t)1 << 20)

static const size_t sizes[] = {1536 * 1024, 64 * 1024, 1900 * 1024, 300 * 1024, 1024 * 1024, 700 * 1024};

static void check_last_error(const char *want) {
    char msg[1024];
    shmemx_last_error(msg, sizeof msg);
    CHECK(strstr(msg, want) != NULL, "the last error should name %s; it is: %s", want, msg);
}

/* Every PE puts its pattern into its right neighbour's [b, b + n); checks what its left put. */
static void put_check(unsigned char *b, size_t n, uint32_t tag, const char *what) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    unsigned char *src = malloc(n);
    CHECK(src, "malloc");
    fill_bytes(src, n, me, tag);
    shmem_putmem(b, src, n, (me + 1) % np);
    shmem_barrier_all();
    CHECK_BYTES(b, n, (me + np - 1) % np, tag, "%s: put of %zu bytes", what, n);
    /* And back with a get: the right neighbour's copy holds this PE's pattern. */
    memset(src, 0, n);
    shmem_getmem(src, b, n, (me + 1) % np);
    CHECK_BYTES(src, n, me, tag, "%s: get of %zu bytes", what, n);
    free(src);
    shmem_barrier_all();
}

static void grow(void) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    unsigned char *b[NB];
    size_t n[NB];
    uintptr_t granules[NB];
    int distinct = 0;
    for (int i = 0; i < NB; ++i) {
        n[i] = sizes[i % 6];
        b[i] = shmem_malloc(n[i]);
        CHECK(b[i] != NULL, "block %d of %zu bytes", i, n[i]);
        uintptr_t g = (uintptr_t)b[i] >> 21;
        int seen = 0;
        for (int j = 0; j < distinct; ++j) seen |= granules[j] == g;
        if (!seen) granules[distinct++] = g;
    }
    /* Blocks in at least 16 chunks beyond the initial heap's (2 MiB chunks: one granule each). */
    CHECK(distinct >= 18, "blocks lie in only %d distinct 2 MiB ranges; the heap should have grown by 16 chunks",
          distinct);

    /* Puts and gets into every block, whole. */
    for (int i = 0; i < NB; ++i) put_check(b[i], n[i], (uint32_t)i, "grown heap block");

    /* A private context (its own UCX worker, USHMEM_CTX_WORKERS): puts, gets and an AMO into every
     * block through that worker's rkeys for the chunks. */
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");
    for (int i = 0; i < NB; ++i) {
        unsigned char piece[512];
        fill_bytes(piece, sizeof piece, me, 900 + (uint32_t)i);
        shmem_ctx_putmem(ctx, b[i] + n[i] - 1024, piece, sizeof piece, (me + 1) % np);
    }
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < NB; ++i) {
        unsigned char piece[512];
        CHECK_BYTES(b[i] + n[i] - 1024, sizeof piece, (me + np - 1) % np, 900 + (uint32_t)i,
                    "private context put into block %d", i);
        shmem_ctx_getmem(ctx, piece, b[i] + n[i] - 1024, sizeof piece, (me + 1) % np);
        CHECK_BYTES(piece, sizeof piece, me, 900 + (uint32_t)i, "private context get from block %d", i);
        *(uint64_t *)(b[i] + n[i] - 256) = 0;
    }
    shmem_barrier_all();
    for (int i = 0; i < NB; ++i)
        for (int pe = 0; pe < np; ++pe) shmem_ctx_uint64_atomic_add(ctx, (uint64_t *)(b[i] + n[i] - 256), 1, pe);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < NB; ++i)
        CHECK(*(uint64_t *)(b[i] + n[i] - 256) == (uint64_t)np, "private context AMOs into block %d: %" PRIu64, i,
              *(uint64_t *)(b[i] + n[i] - 256));
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    /* The whole blocks again (the context overwrote their ends). */
    for (int i = 0; i < NB; ++i) put_check(b[i], n[i], (uint32_t)i, "grown heap block (again)");

    /* shmem_ptr and shmem_addr_accessible. */
    for (int i = 0; i < NB; ++i) {
        int right = (me + 1) % np;
        CHECK(shmem_addr_accessible(b[i], right), "block %d not accessible on PE %d", i, right);
        unsigned char *p = shmem_ptr(b[i], right);
        if (p) CHECK_BYTES(p, n[i], me, (uint32_t)i, "block %d read through shmem_ptr", i);
        CHECK(shmem_ptr(b[i], me) == b[i], "shmem_ptr of own block %d", i);
    }
    shmem_barrier_all();

    /* AMOs: a counter at the start and one at the end of every block, from every PE to every PE. */
    for (int i = 0; i < NB; ++i) {
        *(uint64_t *)b[i] = 1000;
        *(uint64_t *)(b[i] + n[i] - 8) = 0;
    }
    shmem_barrier_all();
    for (int i = 0; i < NB; ++i)
        for (int pe = 0; pe < np; ++pe) {
            shmem_uint64_atomic_add((uint64_t *)b[i], (uint64_t)me + 1, pe);
            (void)shmem_uint64_atomic_fetch_add((uint64_t *)(b[i] + n[i] - 8), 1, pe);
            (void)shmem_uint64_atomic_fetch_or((uint64_t *)(b[i] + n[i] - 8), (uint64_t)1 << (40 + me % 16), pe);
        }
    shmem_barrier_all();
    uint64_t or_bits = 0;
    for (int pe = 0; pe < np; ++pe) or_bits |= (uint64_t)1 << (40 + pe % 16);
    for (int i = 0; i < NB; ++i) {
        CHECK(*(uint64_t *)b[i] == 1000 + (uint64_t)np * (np + 1) / 2, "block %d: atomic adds give %" PRIu64, i,
              *(uint64_t *)b[i]);
        uint64_t end = *(uint64_t *)(b[i] + n[i] - 8);
        CHECK((end & 0xffffffffull) == (uint64_t)np && (end >> 32) == (or_bits >> 32),
              "block %d: fetch_add and fetch_or give %#" PRIx64, i, end);
        uint64_t old = shmem_uint64_atomic_compare_swap((uint64_t *)b[i], 1000 + (uint64_t)np * (np + 1) / 2,
                                                        7, me);
        CHECK(old == 1000 + (uint64_t)np * (np + 1) / 2 && *(uint64_t *)b[i] == 7, "block %d: compare_swap", i);
    }
    shmem_barrier_all();

    /* Signals: data into block i, its signal in block (i + 7) % NB (another chunk), to the right. */
    for (int i = 0; i < NB; ++i) memset(b[i], 0, 64);
    shmem_barrier_all();
    unsigned char src[256];
    for (int i = 0; i < NB; ++i) {
        fill_bytes(src, sizeof src, me, 100 + (uint32_t)i);
        shmem_putmem_signal(b[i] + 64, src, sizeof src, (uint64_t *)b[(i + 7) % NB] + 1, 1, SHMEM_SIGNAL_ADD,
                            (me + 1) % np);
        shmem_uint64_atomic_set((uint64_t *)b[i] + 2, 5, (me + 1) % np);
    }
    for (int i = 0; i < NB; ++i) {
        shmem_uint64_wait_until((uint64_t *)b[(i + 7) % NB] + 1, SHMEM_CMP_GE, 1);
        CHECK_BYTES(b[i] + 64, sizeof src, (me + np - 1) % np, 100 + (uint32_t)i, "put_signal into block %d", i);
    }
    shmem_barrier_all();
    for (int i = 0; i < NB; ++i) {
        CHECK(((uint64_t *)b[(i + 7) % NB])[1] == 1, "block %d's signal", (i + 7) % NB);
        CHECK(((uint64_t *)b[i])[2] == 5, "block %d's atomic set", i);
    }
    shmem_barrier_all();

    /* Collectives with source and destination in grown blocks. */
    for (int i = 1; i < NB; i += 5) {
        size_t len = 4096;
        if (me == i % np) fill_bytes(b[i - 1], len, me, 200 + (uint32_t)i);
        shmem_barrier_all();
        shmem_broadcastmem(SHMEM_TEAM_WORLD, b[i], b[i - 1], len, i % np);
        CHECK_BYTES(b[i], len, i % np, 200 + (uint32_t)i, "broadcast into block %d", i);
        fill_bytes(b[i - 1], 1024, me, 300 + (uint32_t)i);
        shmem_fcollectmem(SHMEM_TEAM_WORLD, b[i] + 8192, b[i - 1], 1024);
        for (int pe = 0; pe < np; ++pe)
            CHECK_BYTES(b[i] + 8192 + (size_t)pe * 1024, 1024, pe, 300 + (uint32_t)i, "fcollect into block %d", i);
        long *s = (long *)(b[i - 1] + 4096), *d = (long *)(b[i] + 32768);
        for (int k = 0; k < 512; ++k) s[k] = (long)(me + 1) * k;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, d, s, 512);
        for (int k = 0; k < 512; ++k)
            CHECK(d[k] == (long)np * (np + 1) / 2 * k, "sum_reduce into block %d: element %d is %ld", i, k, d[k]);
        shmem_barrier_all();
    }

    /* A block larger than a chunk: one growth of several chunks, written across its 2 MiB edges. */
    size_t bign = 5 * MIB;
    unsigned char *big = shmem_malloc(bign);
    CHECK(big != NULL, "block of 5 MiB");
    put_check(big, bign, 500, "5 MiB block");
    unsigned char piece[200];
    const size_t at[] = {2 * MIB - 100, 4 * MIB - 100, 6 * MIB - 200 > bign ? bign - 200 : 6 * MIB - 200};
    for (int k = 0; k < 3; ++k) {
        fill_bytes(piece, sizeof piece, me, 600 + (uint32_t)k);
        shmem_putmem(big + at[k], piece, sizeof piece, (me + 1) % np);
    }
    shmem_barrier_all();
    for (int k = 0; k < 3; ++k)
        CHECK_BYTES(big + at[k], sizeof piece, (me + np - 1) % np, 600 + (uint32_t)k,
                    "put across the 2 MiB boundary at offset %zu of the 5 MiB block", at[k]);
    shmem_barrier_all();

    /* realloc into a new chunk: the contents move, remote access follows. */
    unsigned char *r = shmem_malloc(1800 * 1024);
    CHECK(r != NULL, "block to realloc");
    fill_bytes(r, 1800 * 1024, me, 700);
    unsigned char *r2 = shmem_realloc(r, 3 * MIB + 100);
    CHECK(r2 != NULL, "realloc to 3 MiB");
    CHECK_BYTES(r2, 1800 * 1024, me, 700, "contents after realloc (moved from %p to %p)", (void *)r, (void *)r2);
    shmem_barrier_all();
    put_check(r2, 3 * MIB + 100, 701, "realloc'd block");

    /* Freed space is reused: with everything freed, the same sizes fit without growing. */
    uintptr_t hi = 0;
    for (int i = 0; i < NB; ++i)
        if ((uintptr_t)b[i] + n[i] > hi) hi = (uintptr_t)b[i] + n[i];
    for (int i = 0; i < NB; ++i) shmem_free(b[i]);
    for (int i = 0; i < NB; ++i) {
        b[i] = shmem_malloc(n[i]);
        CHECK(b[i] != NULL && (uintptr_t)b[i] + n[i] <= hi, "block %d after freeing: %p, beyond %#" PRIxPTR, i,
              (void *)b[i], hi);
    }
    put_check(b[NB - 1], n[NB - 1], 800, "reused block");
    for (int i = 0; i < NB; ++i) shmem_free(b[i]);
    shmem_free(big);
    shmem_free(r2);
    printf("[PE %d] heap_grow: %d blocks in %d 2 MiB ranges, data, AMOs, signals, collectives, realloc: OK\n",
           me, NB, distinct);
}

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 2, "usage: heap_grow grow|fail|refused|cross|fixed|kill");
    const char *mode = argv[1];
    print_robust_tag(); /* robust_heap.sh finds what the job left behind by it */
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (!strcmp(mode, "grow")) {
        grow();
    } else if (!strcmp(mode, "fail")) {
        unsigned char *a = shmem_malloc(6 * MIB);
        CHECK(a != NULL, "6 MiB within USHMEM_HEAP_MAX");
        unsigned char *p = shmem_malloc(64 * MIB);
        CHECK(p == NULL, "64 MiB past USHMEM_HEAP_MAX should fail");
        check_last_error("USHMEM_HEAP_MAX");
        unsigned char *q = shmem_malloc(MIB);
        CHECK(q != NULL, "1 MiB after the failure");
        put_check(q, MIB, 1, "block after a failed growth");
        put_check(a, 6 * MIB, 2, "block grown before the failure");
        shmem_free(q);
        shmem_free(a);
        printf("[PE %d] heap_grow fail: NULL past USHMEM_HEAP_MAX, smaller blocks after: OK\n", me);
    } else if (!strcmp(mode, "refused")) {
        /* USHMEM_TEST_FAULT=refuse_growth: the last PE cannot map the first chunk. Every PE gets NULL
         * and the message naming that PE; the reservation is whole again, so the next growth works. */
        unsigned char *p = shmem_malloc(6 * MIB);
        CHECK(p == NULL, "a growth refused on PE %d should fail on every PE", np - 1);
        char want[64];
        snprintf(want, sizeof want, "could not grow by 6.0 MiB at 0x");
        check_last_error(want);
        snprintf(want, sizeof want, "on PE %d (refused by USHMEM_TEST_FAULT", np - 1);
        check_last_error(want);
        unsigned char *q = shmem_malloc(6 * MIB);
        CHECK(q != NULL, "the next growth");
        put_check(q, 6 * MIB, 5, "block of the growth after a refused one");
        shmem_free(q);
        printf("[PE %d] heap_grow refused: NULL on every PE, then growth works: OK\n", me);
    } else if (!strcmp(mode, "cross")) {
        /* A put that runs from one chunk into the next (two blocks, two UCX allocations): not one
         * symmetric object, reported as such (run under expect_error.sh). */
        unsigned char *a = shmem_malloc(2 * MIB - 4096), *b = shmem_malloc(2 * MIB - 4096),
                      *c = shmem_malloc(2 * MIB - 4096), *d = shmem_malloc(2 * MIB - 4096);
        CHECK(a && b && c && d, "blocks");
        CHECK((size_t)(d - c) == 2 * MIB, "c and d should start consecutive chunks: %p %p", (void *)c, (void *)d);
        unsigned char buf[256] = {0};
        shmem_putmem(c + 2 * MIB - 100, buf, 200, (me + 1) % np);
        FAIL("a put across two chunks was not refused");
    } else if (!strcmp(mode, "fixed")) {
        unsigned char *p = shmem_malloc(64 * MIB);
        CHECK(p == NULL, "64 MiB with USHMEM_HEAP_GROW=0 should fail");
        check_last_error("raise SHMEM_SYMMETRIC_SIZE");
        unsigned char *q = shmem_malloc(MIB);
        CHECK(q != NULL, "1 MiB in the fixed heap");
        put_check(q, MIB, 3, "fixed heap block");
        shmem_free(q);
        printf("[PE %d] heap_grow fixed: OK\n", me);
    } else if (!strcmp(mode, "kill")) {
        unsigned char *b[8];
        for (int i = 0; i < 8; ++i) {
            b[i] = shmem_malloc(1900 * 1024);
            CHECK(b[i] != NULL, "block %d", i);
        }
        put_check(b[7], 1900 * 1024, 4, "grown block");
        printf("[PE %d] heap_grow: grown\n", me);
        fflush(stdout);
        shmem_barrier_all();
        if (me == np - 1) raise(SIGKILL);
        shmem_barrier_all(); /* the others wait here until the launcher ends the job */
    } else {
        FAIL("unknown mode %s", mode);
    }
    shmem_finalize();
    return 0;
}
