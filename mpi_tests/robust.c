/* robust: what a hostile but realistic user does (issue #13), one case per run, registered by
 * mpi_tests/robust.cmake through expect_error.sh or robust_heap.sh, which check the outcome and the
 * message.
 *
 * Usage: robust MODE
 *
 * Start-up (the environment or the launch makes the case):
 * Every mode first prints "robust: PE p pid P job J" (robust_heap.sh finds what the job left behind
 * with them).
 *   init_only          initializes; if shmem_init returns, says "robust: PE p: shmem_init
 *                      returned" and exits 0
 *   late_after_init    the last PE sleeps in user code right after shmem_init while the others
 *                      call shmem_barrier_all: with USHMEM_WAIT_TIMEOUT their barrier must time
 *                      out saying that PE has entered no collective since shmem_init (issue #48)
 *   heap_map           prints this PE's heap mapping from /proc/self/maps ("robust: PE p heap
 *                      mapping: ..."), checks puts and gets around the ring, exits 0
 * A NULL local buffer with a nonzero count (PE 0 only; must abort naming the routine):
 *   null_put null_get null_long_put_nbi null_ctx_getmem_nbi null_long_iput null_put_signal
 *   null_zero_ok       the same routines with a count of 0: no effect, exit 0
 * SHMEM_DEBUG (set by the test):
 *   overlap_put        shmem_putmem to this PE itself between overlapping ranges: must abort
 *   overlap_get        shmem_getmem likewise
 *   overlap_ok         disjoint ranges to itself, and overlapping ones to another PE: exit 0
 *   split_mismatch     shmem_team_split_strided with size n on PE 0 and n - 1 elsewhere: must abort
 *   split_2d_mismatch  shmem_team_split_2d with xrange 1 on PE 0 and 2 elsewhere: must abort
 *   split_debug_ok     the same splits with the same arguments everywhere: teams work, exit 0
 * The symmetric heap:
 *   heap_leak          every PE but PE 0 frees a block (PE 0 "leaks" it, as a C++ symmetric<>
 *                      destroyed during unwinding on one PE does), then all allocate: must abort
 *                      at that allocation naming what each PE did
 *   heap_sizes         every PE allocates a different size: must abort at that allocation
 *   heap_free_one      PE 0 alone frees a block, then all allocate: must abort at once naming the
 *                      mismatch, with SHMEM_DEBUG=1 too (issue #48: it hung there)
 *   heap_ok            a long sequence of allocations, frees, reallocations and refused requests,
 *                      alike on every PE: every block at the same address everywhere, exit 0
 *   align_huge         shmem_align(2^40, 64): NULL and a message blaming the alignment, exit 0 */
#include "common.h"

#include <unistd.h>

static int me, npes;

static int peer_of_0(void) { return 1 % npes; }

static void returned(const char *mode) {
    printf("[PE %d] robust %s: the erroneous call returned; the library should have aborted\n", me, mode);
    fflush(stdout);
}

/* The line of /proc/self/maps whose range holds `heap`. */
static void print_heap_mapping(void *heap) {
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f, "open /proc/self/maps");
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= (uintptr_t)heap && (uintptr_t)heap < hi)
            printf("robust: PE %d heap mapping: %s", me, line);
    }
    fclose(f);
    fflush(stdout);
}

/* Puts to the next PE and gets from the previous one, checked. */
static void ring_check(long *buf, int n) {
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    long src[64], got[64];
    for (int i = 0; i < n; ++i) src[i] = 1000L * me + i;
    shmem_long_put(buf, src, (size_t)n, next);
    shmem_barrier_all();
    for (int i = 0; i < n; ++i) CHECK(buf[i] == 1000L * prev + i, "ring put: element %d is %ld", i, buf[i]);
    shmem_long_get(got, buf, (size_t)n, next);
    for (int i = 0; i < n; ++i) CHECK(got[i] == 1000L * me + i, "ring get: element %d is %ld", i, got[i]);
    shmem_barrier_all();
}

static int split_and_use(shmem_team_t parent, int start, int stride, int size) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(parent, start, stride, size, NULL, 0, &t);
    if (t != SHMEM_TEAM_INVALID) {
        shmem_team_sync(t);
        shmem_team_destroy(t);
    }
    return rc;
}

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 2, "usage: robust MODE");
    const char *mode = argv[1];

    print_robust_tag();
    if (strcmp(mode, "init_only") == 0) {
        shmem_init();
        printf("robust: PE %d: shmem_init returned\n", shmem_my_pe());
        shmem_finalize();
        return 0;
    }
    if (strcmp(mode, "late_after_init") == 0) {
        shmem_init();
        me = shmem_my_pe();
        /* The sleep is the point: the last PE is late, in user code, and never calls anything;
         * the others' timeout ends the job long before it wakes. */
        if (shmem_my_pe() == shmem_n_pes() - 1) sleep(60);
        else shmem_barrier_all();
        returned(mode);
        return 1;
    }

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int peer = (me + 1) % npes;
    long *heap = shmem_malloc(4096 * sizeof(long));
    CHECK(heap, "shmem_malloc");
    memset(heap, 0, 4096 * sizeof(long));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    CHECK(sig, "shmem_calloc");
    shmem_barrier_all();

    if (strcmp(mode, "heap_map") == 0) {
        print_heap_mapping(heap);
        ring_check(heap, 64);
        printf("robust: PE %d heap_map: OK\n", me);
    } else if (strncmp(mode, "null_", 5) == 0) {
        size_t n = strcmp(mode, "null_zero_ok") == 0 ? 0 : 8;
        if (me == 0) {
            if (n == 0 || strcmp(mode, "null_put") == 0) shmem_putmem(heap, NULL, n, peer);
            if (n == 0 || strcmp(mode, "null_get") == 0) shmem_getmem(NULL, heap, n, peer);
            if (n == 0 || strcmp(mode, "null_long_put_nbi") == 0) shmem_long_put_nbi(heap, NULL, n, peer);
            if (n == 0 || strcmp(mode, "null_ctx_getmem_nbi") == 0)
                shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, NULL, heap, n, peer);
            if (n == 0 || strcmp(mode, "null_long_iput") == 0) shmem_long_iput(heap, NULL, 2, 1, n, peer);
            if (n == 0 || strcmp(mode, "null_put_signal") == 0)
                shmem_putmem_signal(heap, NULL, n, sig, 1, SHMEM_SIGNAL_SET, peer);
            shmem_quiet();
            if (n != 0) returned(mode);
        }
        shmem_barrier_all();
        if (n == 0) {
            /* (The signal of a put_signal is set whatever the count: PE 0's peer has it.) */
            CHECK(heap[0] == 0, "zero-count transfers changed memory: %ld", heap[0]);
            CHECK(*sig == (me == peer_of_0() ? 1u : 0u), "signal %" PRIu64, *sig);
            printf("robust: PE %d null_zero_ok: OK\n", me);
        }
    } else if (strcmp(mode, "overlap_put") == 0 || strcmp(mode, "overlap_get") == 0) {
        if (me == 0) {
            if (mode[8] == 'p') shmem_putmem(heap + 1, heap, 64, me);
            else shmem_getmem(heap, heap + 1, 64, me);
            returned(mode);
        }
        shmem_barrier_all();
    } else if (strcmp(mode, "overlap_ok") == 0) {
        for (int i = 0; i < 64; ++i) heap[i] = 10L * me + i;
        shmem_putmem(heap + 64, heap, 64 * sizeof(long), me); /* disjoint, to itself */
        shmem_getmem(heap + 128, heap, 64 * sizeof(long), me);
        for (int i = 0; i < 64; ++i)
            CHECK(heap[64 + i] == 10L * me + i && heap[128 + i] == 10L * me + i, "self copy %d", i);
        shmem_barrier_all();
        /* The same overlapping addresses on another PE are two different memories. */
        if (npes > 1) {
            /* (PE 0 alone, so that no put changes a source while it is read.) */
            if (me == 0) shmem_putmem(heap + 1, heap, 8 * sizeof(long), 1);
            shmem_barrier_all();
            if (me == 1)
                for (int i = 0; i < 8; ++i) CHECK(heap[1 + i] == i, "put to PE 1, element %d: %ld", i, heap[1 + i]);
        }
        printf("robust: PE %d overlap_ok: OK\n", me);
    } else if (strcmp(mode, "split_mismatch") == 0) {
        split_and_use(SHMEM_TEAM_WORLD, 0, 1, me == 0 ? npes : npes - 1);
        returned(mode);
    } else if (strcmp(mode, "split_2d_mismatch") == 0) {
        shmem_team_t x, y;
        shmem_team_split_2d(SHMEM_TEAM_WORLD, me == 0 ? 1 : 2, NULL, 0, &x, NULL, 0, &y);
        returned(mode);
    } else if (strcmp(mode, "split_debug_ok") == 0) {
        CHECK(split_and_use(SHMEM_TEAM_WORLD, 0, 1, npes) == 0, "full split");
        CHECK(split_and_use(SHMEM_TEAM_WORLD, npes - 1, -1, npes) == 0, "reversed split");
        CHECK(split_and_use(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2) == 0, "even split");
        /* An invalid triplet, alike everywhere: nonzero on every PE, no abort. */
        CHECK(split_and_use(SHMEM_TEAM_WORLD, 0, 1, npes + 1) != 0, "invalid triplet accepted");
        shmem_team_t x, y;
        CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y) == 0, "split_2d");
        shmem_team_sync(x);
        shmem_team_sync(y);
        shmem_team_destroy(x);
        shmem_team_destroy(y);
        printf("robust: PE %d split_debug_ok: OK\n", me);
    } else if (strcmp(mode, "heap_leak") == 0) {
        long *a = shmem_malloc(4096);
        CHECK(a, "shmem_malloc");
        if (me != 0) shmem_free(a); /* PE 0 keeps it: the heaps now differ */
        long *b = shmem_malloc(4096);
        printf("[PE %d] robust heap_leak: the allocation after the lost free returned %p\n", me, (void *)b);
        returned(mode);
        shmem_barrier_all();
    } else if (strcmp(mode, "heap_free_one") == 0) {
        long *a = shmem_malloc(4096);
        CHECK(a, "shmem_malloc");
        if (me == 0) shmem_free(a); /* the others keep it: the heaps now differ */
        long *b = shmem_malloc(4096);
        printf("[PE %d] robust heap_free_one: the allocation after the lone free returned %p\n", me, (void *)b);
        returned(mode);
        shmem_barrier_all();
    } else if (strcmp(mode, "heap_sizes") == 0) {
        void *p = shmem_malloc((size_t)(me + 1) * 100000);
        printf("[PE %d] robust heap_sizes: returned %p\n", me, p);
        returned(mode);
        shmem_barrier_all();
    } else if (strcmp(mode, "heap_ok") == 0) {
        void *blocks[16] = {0};
        uintptr_t *addrs = shmem_malloc(16 * sizeof(uintptr_t) * (size_t)npes);
        CHECK(addrs, "shmem_malloc");
        for (int round = 0; round < 40; ++round) {
            int k = round % 16;
            if (blocks[k] && round % 3 == 0) {
                shmem_free(blocks[k]);
                blocks[k] = NULL;
            } else if (blocks[k]) {
                blocks[k] = shmem_realloc(blocks[k], (size_t)(round + 1) * 3000);
            } else if (round % 5 == 0) {
                blocks[k] = shmem_align(4096, (size_t)round * 100 + 1);
            } else {
                blocks[k] = shmem_calloc((size_t)round + 1, 64);
            }
            if (round == 7) CHECK(shmem_align(3, 64) == NULL, "shmem_align(3) accepted");
            if (round == 9) CHECK(shmem_calloc(SIZE_MAX / 2, 4) == NULL, "overflowing calloc accepted");
        }
        /* Every block at the same address on every PE. */
        for (int k = 0; k < 16; ++k) addrs[me * 16 + k] = (uintptr_t)blocks[k];
        shmem_barrier_all();
        for (int pe = 0; pe < npes; ++pe) {
            uintptr_t theirs[16];
            shmem_getmem(theirs, addrs + pe * 16, sizeof theirs, pe);
            for (int k = 0; k < 16; ++k)
                CHECK(theirs[k] == (uintptr_t)blocks[k], "block %d: %#lx here, %#lx on PE %d", k,
                      (unsigned long)blocks[k], (unsigned long)theirs[k], pe);
        }
        shmem_barrier_all();
        for (int k = 0; k < 16; ++k) shmem_free(blocks[k]);
        shmem_free(addrs);
        printf("robust: PE %d heap_ok: OK\n", me);
    } else if (strcmp(mode, "align_huge") == 0) {
        void *p = shmem_align((size_t)1 << 40, 64);
        CHECK(p == NULL, "shmem_align(2^40, 64) returned %p", p);
        printf("robust: PE %d align_huge: NULL\n", me);
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    shmem_free(sig);
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
