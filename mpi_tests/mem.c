/* mem: symmetric heap management.
 *
 *   shmem_malloc / shmem_calloc / shmem_align / shmem_realloc / shmem_free /
 *   shmem_malloc_with_hints: results are usable, aligned, zeroed (calloc), preserved (realloc),
 *   and symmetric: a put to the address returned on this PE lands in the block the peer got
 *   from the same call (checked for every block, over its whole extent);
 *   size 0 gives a null pointer (OpenSHMEM 1.6), shmem_free(NULL) does nothing, a calloc whose
 *   count * size overflows returns a null pointer (section "zero");
 *   a long deterministic random sequence of allocations, reallocations and frees with data
 *   verification (local contents never disturbed by another block, remote reads see the peer's
 *   block);
 *   exhaustion: a request larger than the heap returns NULL on every PE, the heap keeps working,
 *   and after filling the heap with 1 MiB blocks and freeing them, one large block fits again.
 *
 * Usage: mem [SECTION...], sections basic zero calloc align realloc hints random exhaustion
 * (default: all). Expects SHMEM_SYMMETRIC_SIZE=64M (set by the ctest registration). */
#include "common.h"
#include <stdalign.h>
#include <stddef.h>

#define MiB ((size_t)1 << 20)
#define HEAP_BYTES (64 * MiB)

static int me, npes, right, left;
static uint32_t round_tag = 1000; /* advanced identically on every PE */

/* Collective symmetry check for a block of `size` bytes returned on every PE by one call: each PE
 * writes a fresh pattern over the whole block of its right neighbour, then checks its own block
 * holds the left neighbour's pattern. A block at a different offset on a peer would either miss
 * or be clobbered. */
static void check_symmetric(void *p, size_t size, const char *what) {
    uint32_t tag = ++round_tag;
    for (int pe = 0; pe < npes; ++pe)
        CHECK(shmem_addr_accessible(p, pe), "%s: shmem_addr_accessible(%p, %d) = 0", what, p, pe);
    unsigned char *src = malloc(size);
    CHECK(src, "malloc(%zu)", size);
    fill_bytes(src, size, me, tag);
    shmem_barrier_all(); /* nobody still reads the block */
    shmem_putmem(p, src, size, right);
    shmem_barrier_all();
    CHECK_BYTES(p, size, left, tag, "%s (%zu bytes): block written by PE %d", what, size, left);
    shmem_barrier_all();
    free(src);
}

/* "Suitably aligned so that it may be assigned to a pointer to any type of object." */
#if TEST_WITH_USHMEM
#define ANY_TYPE_ALIGN alignof(max_align_t)
#else
#define ANY_TYPE_ALIGN ((size_t)8) /* OSHMEM only aligns to 8 */
#endif
static void check_max_aligned(const void *p, const char *what) {
    CHECK(((uintptr_t)p % ANY_TYPE_ALIGN) == 0, "%s returned %p, not aligned to %zu", what, p,
          (size_t)ANY_TYPE_ALIGN);
}

static void test_malloc_basic(void) {
    static const size_t sizes[] = {1, 8, 100, 4096, 65536 + 3, MiB, 4 * MiB + 5};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    unsigned char *blocks[NS];
    /* All blocks live at once: they must not overlap. */
    for (int i = 0; i < NS; ++i) {
        blocks[i] = shmem_malloc(sizes[i]);
        CHECK(blocks[i], "shmem_malloc(%zu) returned NULL", sizes[i]);
        check_max_aligned(blocks[i], "shmem_malloc");
        fill_bytes(blocks[i], sizes[i], me, 100 + (uint32_t)i);
    }
    for (int i = 0; i < NS; ++i)
        CHECK_BYTES(blocks[i], sizes[i], me, 100 + (uint32_t)i,
                    "shmem_malloc block %d (%zu bytes) overlaps another block", i, sizes[i]);
    for (int i = 0; i < NS; ++i) check_symmetric(blocks[i], sizes[i], "shmem_malloc");
    /* Free in an order different from allocation. */
    for (int i = 0; i < NS; i += 2) shmem_free(blocks[i]);
    for (int i = 1; i < NS; i += 2) shmem_free(blocks[i]);
    shmem_free(NULL); /* no action */
    NOTE("malloc/free: OK");
}

static void test_zero_sizes(void) {
#if TEST_WITH_USHMEM
    /* OpenSHMEM 1.6: "When size is zero, the routine performs no action and returns a null
     * pointer." */
    CHECK_EQ_PTR(NULL, shmem_malloc(0), "shmem_malloc(0)");
    CHECK_EQ_PTR(NULL, shmem_calloc(0, 8), "shmem_calloc(0, 8)");
    CHECK_EQ_PTR(NULL, shmem_calloc(8, 0), "shmem_calloc(8, 0)");
    CHECK_EQ_PTR(NULL, shmem_align(64, 0), "shmem_align(64, 0)");
    CHECK_EQ_PTR(NULL, shmem_malloc_with_hints(0, 0), "shmem_malloc_with_hints(0, 0)");
    CHECK_EQ_PTR(NULL, shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE),
                 "shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE)");
#else
    /* Older specifications allowed a unique pointer; it must then be freeable. */
    void *z = shmem_malloc(0);
    void *y = shmem_malloc(0);
    CHECK(z == NULL || z != y, "two shmem_malloc(0) returned the same non-null pointer");
    shmem_free(y);
    shmem_free(z);
#endif
    /* count * size overflows size_t: the allocation cannot succeed, so NULL is returned. */
    void *o = shmem_calloc(SIZE_MAX / 2, 4);
    CHECK_EQ_PTR(NULL, o, "shmem_calloc(SIZE_MAX / 2, 4) (count * size overflows)");
    NOTE("zero sizes, calloc overflow: OK");
}

static void test_calloc(void) {
    static const size_t shapes[][2] = {{1, 1}, {7, 3}, {1000, 8}, {4096, 17}, {MiB / 16, 16}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        size_t count = shapes[s][0], size = shapes[s][1], bytes = count * size;
        /* Dirty memory of that size first, so a reused block would show old bytes. */
        unsigned char *dirty = shmem_malloc(bytes);
        CHECK(dirty, "shmem_malloc(%zu)", bytes);
        memset(dirty, 0xEE, bytes);
        shmem_free(dirty);
        unsigned char *z = shmem_calloc(count, size);
        CHECK(z, "shmem_calloc(%zu, %zu) returned NULL", count, size);
        check_max_aligned(z, "shmem_calloc");
        CHECK_FILL(z, bytes, 0, "shmem_calloc(%zu, %zu) memory is not zeroed", count, size);
        shmem_barrier_all(); /* every PE checked its zeroes before the symmetry check writes */
        check_symmetric(z, bytes, "shmem_calloc");
        shmem_free(z);
    }
    NOTE("calloc: OK");
}

static void test_align(void) {
    enum { NA = 19 }; /* 8 B .. 2 MiB */
    unsigned char *small[NA], *sized[NA];
    for (int i = 0; i < NA; ++i) {
        size_t a = (size_t)8 << i;
        small[i] = shmem_align(a, 100);
        CHECK(small[i], "shmem_align(%zu, 100) returned NULL", a);
        CHECK(((uintptr_t)small[i] % a) == 0, "shmem_align(%zu, 100) returned %p", a,
              (void *)small[i]);
        sized[i] = shmem_align(a, a);
        CHECK(sized[i], "shmem_align(%zu, %zu) returned NULL", a, a);
        CHECK(((uintptr_t)sized[i] % a) == 0, "shmem_align(%zu, %zu) returned %p", a, a,
              (void *)sized[i]);
        fill_bytes(small[i], 100, me, 300 + (uint32_t)i);
        fill_bytes(sized[i], a, me, 400 + (uint32_t)i);
    }
    for (int i = 0; i < NA; ++i) {
        size_t a = (size_t)8 << i;
        CHECK_BYTES(small[i], 100, me, 300 + (uint32_t)i, "shmem_align(%zu, 100) block overlaps", a);
        CHECK_BYTES(sized[i], a, me, 400 + (uint32_t)i, "shmem_align(%zu, %zu) block overlaps", a, a);
    }
    for (int i = 0; i < NA; ++i) {
        size_t a = (size_t)8 << i;
        check_symmetric(small[i], 100, "shmem_align(a, 100)");
        check_symmetric(sized[i], a, "shmem_align(a, a)");
    }
    for (int i = NA - 1; i >= 0; --i) {
        shmem_free(sized[i]);
        shmem_free(small[i]);
    }
    NOTE("align 8 B .. 2 MiB: OK");
}

static void test_realloc(void) {
    /* Grow while a neighbouring block is live (forces a move or an in-place extension). */
    unsigned char *a = shmem_malloc(1000);
    unsigned char *b = shmem_malloc(1000);
    CHECK(a && b, "shmem_malloc(1000) x2");
    fill_bytes(a, 1000, me, 500);
    fill_bytes(b, 1000, me, 501);
    a = shmem_realloc(a, 300000);
    CHECK(a, "shmem_realloc(a, 300000) returned NULL");
    check_max_aligned(a, "shmem_realloc");
    CHECK_BYTES(a, 1000, me, 500, "first 1000 bytes after growing with shmem_realloc");
    CHECK_BYTES(b, 1000, me, 501, "neighbouring block after shmem_realloc of another");
    shmem_barrier_all();
    check_symmetric(a, 300000, "shmem_realloc (grown)");

    /* Shrink: contents preserved up to the new size. */
    fill_bytes(a, 300000, me, 502);
    a = shmem_realloc(a, 777);
    CHECK(a, "shmem_realloc(a, 777) returned NULL");
    CHECK_BYTES(a, 777, me, 502, "contents after shrinking with shmem_realloc");
    check_symmetric(a, 777, "shmem_realloc (shrunk)");

    /* A request that cannot be met returns NULL and leaves the block unchanged (a heap that grows,
     * USHMEM_HEAP_GROW, meets 4 x the heap: then 16 TiB, past its reservation). */
    fill_bytes(a, 777, me, 503);
    const char *grow = getenv("USHMEM_HEAP_GROW");
    size_t too_big = TEST_WITH_USHMEM && !(grow && grow[0] == '0') ? (size_t)1 << 44 : 4 * HEAP_BYTES;
    unsigned char *big = shmem_realloc(a, too_big);
    CHECK_EQ_PTR(NULL, big, "shmem_realloc(a, 4 x heap size)");
    CHECK_BYTES(a, 777, me, 503, "block after a failed shmem_realloc");
    check_symmetric(a, 777, "block after a failed shmem_realloc");

    /* realloc(NULL, n) behaves like malloc(n). */
    unsigned char *c = shmem_realloc(NULL, 4096);
    CHECK(c, "shmem_realloc(NULL, 4096) returned NULL");
    check_symmetric(c, 4096, "shmem_realloc(NULL, 4096)");

    /* realloc(p, 0) frees p; whatever it returns, the heap must go on working. */
    (void)shmem_realloc(c, 0);
    shmem_free(b);
    shmem_free(a);
    unsigned char *d = shmem_malloc(MiB);
    CHECK(d, "shmem_malloc after realloc tests");
    check_symmetric(d, MiB, "shmem_malloc after realloc tests");
    shmem_free(d);
    NOTE("realloc: OK");
}

static void test_hints(void) {
#if TEST_WITH_USHMEM
    static const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                                 SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    void *p[4];
    for (int i = 0; i < 4; ++i) {
        p[i] = shmem_malloc_with_hints(8192 + (size_t)i, hints[i]);
        CHECK(p[i], "shmem_malloc_with_hints(%zu, %ld) returned NULL", 8192 + (size_t)i, hints[i]);
        check_max_aligned(p[i], "shmem_malloc_with_hints");
    }
    for (int i = 0; i < 4; ++i) check_symmetric(p[i], 8192 + (size_t)i, "shmem_malloc_with_hints");
    /* shmem_realloc keeps working on a hinted block. */
    fill_bytes(p[1], 8193, me, 600);
    p[1] = shmem_realloc(p[1], 100000);
    CHECK(p[1], "shmem_realloc of a hinted block returned NULL");
    CHECK_BYTES(p[1], 8193, me, 600, "hinted block after shmem_realloc");
    for (int i = 0; i < 4; ++i) shmem_free(p[i]);
    NOTE("malloc_with_hints: OK");
#endif
}

/* ---- Deterministic random sequence ---- */

static uint64_t rng_state = 0x1234567887654321ull;
static uint32_t rng(void) { /* xorshift64*: identical on every PE */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

#define NSLOTS 48
#define NSTEPS 500

static void test_random(void) {
    unsigned char *slot[NSLOTS] = {0};
    size_t slot_size[NSLOTS] = {0};
    uint32_t slot_tag[NSLOTS] = {0};
    size_t live = 0;
    unsigned char *tmp = malloc(4 * MiB);
    CHECK(tmp, "malloc");
    int n_alloc = 0, n_free = 0, n_realloc = 0, n_remote = 0;

    for (int step = 0; step < NSTEPS; ++step) {
        int s = (int)(rng() % NSLOTS);
        uint32_t r = rng() % 100;
        if (slot[s] == NULL) {
            /* Allocate: mostly small, sometimes medium, rarely large; keep under 40 MiB live. */
            size_t size;
            uint32_t k = rng() % 100;
            if (k < 70) size = 1 + rng() % 4096;
            else if (k < 95) size = 4096 + rng() % (256 * 1024);
            else size = MiB + rng() % (3 * MiB);
            if (live + size > 40 * MiB) continue;
            uint32_t how = rng() % 3;
            if (how == 0) slot[s] = shmem_malloc(size);
            else if (how == 1) slot[s] = shmem_calloc(1, size);
            else {
                size_t a = (size_t)8 << (rng() % 10);
                slot[s] = shmem_align(a, size);
                CHECK(((uintptr_t)slot[s] % a) == 0, "step %d: shmem_align(%zu, ..) gave %p", step,
                      a, (void *)slot[s]);
            }
            CHECK(slot[s], "step %d: allocation of %zu bytes (%zu live) returned NULL", step, size,
                  live);
            if (how == 1) CHECK_FILL(slot[s], size, 0, "step %d: shmem_calloc not zeroed", step);
            slot_size[s] = size;
            slot_tag[s] = (uint32_t)(10000 + step);
            fill_bytes(slot[s], size, me, slot_tag[s]);
            live += size;
            ++n_alloc;
        } else if (r < 45) {
            CHECK_BYTES(slot[s], slot_size[s], me, slot_tag[s], "step %d: slot %d before free",
                        step, s);
            shmem_free(slot[s]);
            live -= slot_size[s];
            slot[s] = NULL;
            ++n_free;
        } else if (r < 70) {
            size_t newsize = 1 + rng() % (slot_size[s] * 2 < 512 * 1024 ? slot_size[s] * 2 : 512 * 1024);
            if (live - slot_size[s] + newsize > 40 * MiB) continue;
            unsigned char *q = shmem_realloc(slot[s], newsize);
            CHECK(q, "step %d: shmem_realloc to %zu returned NULL", step, newsize);
            size_t keep = newsize < slot_size[s] ? newsize : slot_size[s];
            CHECK_BYTES(q, keep, me, slot_tag[s], "step %d: contents after shmem_realloc %zu -> %zu",
                        step, slot_size[s], newsize);
            live = live - slot_size[s] + newsize;
            slot[s] = q;
            slot_size[s] = newsize;
            slot_tag[s] = (uint32_t)(10000 + step);
            fill_bytes(q, newsize, me, slot_tag[s]);
            ++n_realloc;
        } else {
            /* Remote read of the right neighbour's copy of this block. */
            size_t len = slot_size[s] < 4 * MiB ? slot_size[s] : 4 * MiB;
            shmem_barrier_all(); /* the owner has finished filling its block */
            shmem_getmem(tmp, slot[s], len, right);
            CHECK_BYTES(tmp, len, right, slot_tag[s], "step %d: getmem of slot %d from PE %d",
                        step, s, right);
            shmem_barrier_all(); /* the owner must not refill the block while we read it */
            ++n_remote;
        }
        if (step % 50 == 49) /* nothing was disturbed by any other block */
            for (int i = 0; i < NSLOTS; ++i)
                if (slot[i])
                    CHECK_BYTES(slot[i], slot_size[i], me, slot_tag[i],
                                "step %d: slot %d (%zu bytes) was disturbed", step, i, slot_size[i]);
    }
    shmem_barrier_all(); /* peers may still be reading our blocks */
    for (int i = 0; i < NSLOTS; ++i)
        if (slot[i]) shmem_free(slot[i]);
    free(tmp);
    NOTE("random sequence: %d allocations, %d frees, %d reallocs, %d remote reads: OK", n_alloc,
         n_free, n_realloc, n_remote);
}

static void test_exhaustion(void) {
    /* More than the whole heap: NULL on every PE, and the library goes on. */
    void *p = shmem_malloc(2 * HEAP_BYTES);
    CHECK_EQ_PTR(NULL, p, "shmem_malloc(2 x SHMEM_SYMMETRIC_SIZE)");
    p = shmem_align(2 * MiB, 2 * HEAP_BYTES);
    CHECK_EQ_PTR(NULL, p, "shmem_align(2 MiB, 2 x SHMEM_SYMMETRIC_SIZE)");
    p = shmem_calloc(HEAP_BYTES / 8, 16);
    CHECK_EQ_PTR(NULL, p, "shmem_calloc for 2 x SHMEM_SYMMETRIC_SIZE");
    p = shmem_malloc(SIZE_MAX / 2);
    CHECK_EQ_PTR(NULL, p, "shmem_malloc(SIZE_MAX / 2)");

    unsigned char *small = shmem_malloc(4096);
    CHECK(small, "shmem_malloc(4096) after failed requests returned NULL");
    check_symmetric(small, 4096, "shmem_malloc(4096) after failed requests");
    shmem_free(small);

    /* Fill the heap with 1 MiB blocks; every PE must fail at the same point. */
    enum { MAXB = 1024 };
    static void *blk[MAXB];
    int count = 0;
    while (count < MAXB) {
        blk[count] = shmem_malloc(MiB);
        if (!blk[count]) break;
        ++count;
    }
    CHECK(count < MAXB, "more than %d MiB allocated from a 64 MiB heap", MAXB);
    CHECK(count >= 48, "only %d blocks of 1 MiB fit in a 64 MiB heap", count);
    static int counts[1024];
    shmem_int_p(&counts[me], count, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 0; pe < npes; ++pe)
            CHECK(counts[pe] == count, "PE %d fit %d blocks of 1 MiB, PE 0 fit %d", pe, counts[pe],
                  count);
    /* The last block is still usable and symmetric. */
    check_symmetric(blk[count - 1], MiB, "last 1 MiB block before exhaustion");
    for (int i = 0; i < count; ++i) shmem_free(blk[i]);
    /* Freed space coalesces: one block nearly as large as all of them fits. */
    size_t bigsize = (size_t)(count - 1) * MiB;
    unsigned char *big = shmem_malloc(bigsize);
    CHECK(big, "shmem_malloc(%zu) after freeing %d blocks of 1 MiB returned NULL", bigsize, count);
    check_symmetric(big, bigsize, "large block after exhaustion");
    shmem_free(big);
    NOTE("exhaustion: %d x 1 MiB fit, oversized requests returned NULL: OK", count);
}

int main(int argc, char **argv) {
    /* Sections to run (default: all): basic zero calloc align realloc hints random exhaustion */
    static const char *const all[] = {"basic", "zero", "calloc", "align", "realloc", "hints",
                                      "random", "exhaustion"};
    static void (*const fns[])(void) = {test_malloc_basic, test_zero_sizes, test_calloc,
                                        test_align, test_realloc, test_hints, test_random,
                                        test_exhaustion};
    enum { NSEC = sizeof all / sizeof all[0] };
    int run[NSEC];
    for (int i = 0; i < NSEC; ++i) {
        run[i] = argc == 1;
        for (int a = 1; a < argc; ++a) run[i] |= strcmp(argv[a], all[i]) == 0;
    }
    for (int a = 1; a < argc; ++a) {
        int known = 0;
        for (int i = 0; i < NSEC; ++i) known |= strcmp(argv[a], all[i]) == 0;
        CHECK_NOSHMEM(known, "unknown section '%s'", argv[a]);
    }

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    for (int i = 0; i < NSEC; ++i)
        if (run[i]) fns[i]();
    shmem_finalize();
    printf("[PE %d] mem: OK\n", me);
    return 0;
}
