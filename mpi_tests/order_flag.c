/* Delivery order across fence and quiet, the pattern of issue #48 (item 2) and of Mellanox's
 * verifier (data:int_put, data:put128): every PE puts a block to the next PE, orders it with
 * shmem_fence or shmem_quiet (alternating), then sets a flag there with shmem_int_p; the receiver
 * waits for the flag and must then see every element of the block. Sizes from one element to 1 MiB
 * (past the message, bulk and put-pack thresholds of the network path), blocking and non-blocking
 * puts, the default and a private context; then the verifier's form: fill with -1, barrier, put,
 * barrier, check. The receiver acknowledges each block before the sender reuses its buffer.
 * ctest runs it on every path at 2 to 5 PEs, alone and beside a CPU load (mpi_tests/cpu_load.sh):
 * the reported overtaking appeared only with more PEs than free CPUs.
 * Argument: cycles per phase (default 200). */
#include "common.h"

#include <unistd.h>

#define MAXN (1 << 18) /* ints: 1 MiB */

static int me, npes, next, prev, cycles = 200;
static int *buf, *src;
static int flag, ack; /* static data: symmetric too */

static int val(int pe, int cycle, size_t k) { return -(int)(pattern_word(pe, (uint32_t)cycle, k) & 0x3fffffff) - 2; }

static size_t size_of(int c) {
    static const size_t sizes[] = {1, 2, 3, 16, 17, 255, 256, 512, 1024, 2047, 2048, 4096, 8096, 16384, 65536, MAXN};
    return sizes[(size_t)c % (sizeof sizes / sizeof sizes[0])];
}

static void check_block(const char *what, int c, size_t n, int from) {
    for (size_t k = 0; k < n; ++k) {
        int want = val(from, c, k);
        if (buf[k] != want) {
            int seen = buf[k];
            /* Was it late, or lost? Look again after a while (diagnosis only: the test has failed). */
            struct timespec ts = {0, 200 * 1000 * 1000};
            nanosleep(&ts, NULL);
            FAIL("%s: cycle %d, %zu ints from PE %d: element %zu is %d, expected %d, after the flag (200 ms later: %d)",
                 what, c, n, from, k, seen, want, buf[k]);
        }
    }
}

/* Put, fence or quiet, flag; the receiver checks, then acknowledges. */
static void phase_flag(const char *what, shmem_ctx_t ctx, int nbi) {
    for (int c = 0; c < cycles; ++c) {
        size_t n = size_of(c);
        for (size_t k = 0; k < n; ++k) src[k] = val(me, c, k);
        if (nbi) shmem_ctx_int_put_nbi(ctx, buf, src, n, next);
        else shmem_ctx_int_put(ctx, buf, src, n, next);
        if (c & 1) shmem_ctx_quiet(ctx);
        else shmem_ctx_fence(ctx);
        shmem_ctx_int_p(ctx, &flag, c + 1, next);
        if (nbi && !(c & 1)) shmem_ctx_quiet(ctx); /* the nbi source is reused next cycle */
        shmem_int_wait_until(&flag, SHMEM_CMP_GE, c + 1);
        check_block(what, c, n, prev);
        shmem_int_p(&ack, c + 1, prev); /* our buffer may be written again */
        shmem_int_wait_until(&ack, SHMEM_CMP_GE, c + 1);
    }
    shmem_barrier_all();
    flag = ack = 0;
    shmem_barrier_all();
}

/* The verifier's form: no flag, the barrier orders (and completes) the put. */
static void phase_barrier(void) {
    for (int c = 0; c < cycles; ++c) {
        size_t n = size_of(c * 7 + 3);
        for (size_t k = 0; k < n; ++k) buf[k] = -1;
        for (size_t k = 0; k < n; ++k) src[k] = val(me, c + 100000, k);
        shmem_barrier_all();
        shmem_int_put(buf, src, n, next);
        shmem_barrier_all();
        check_block("put then barrier_all", c + 100000, n, prev);
    }
}

int main(int argc, char **argv) {
    if (argc > 1) cycles = atoi(argv[1]);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next = (me + 1) % npes;
    prev = (me + npes - 1) % npes;
    buf = shmem_malloc(MAXN * sizeof(int));
    src = malloc(MAXN * sizeof(int));
    CHECK(buf && src, "allocations");
    shmem_barrier_all();
    phase_flag("put, fence or quiet, flag", SHMEM_CTX_DEFAULT, 0);
    phase_flag("put_nbi, fence or quiet, flag", SHMEM_CTX_DEFAULT, 1);
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0) {
        phase_flag("private context: put, fence or quiet, flag", ctx, 0);
        phase_flag("private context: put_nbi, fence or quiet, flag", ctx, 1);
        shmem_ctx_destroy(ctx);
    }
    phase_barrier();
    NOTE("%d cycles of each phase, blocks of 1 to %d ints, in order", cycles, MAXN);
    shmem_free(buf);
    free(src);
    shmem_finalize();
    return 0;
}
