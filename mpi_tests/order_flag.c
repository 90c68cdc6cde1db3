/* Delivery order across fence and quiet, the pattern of issue #48 (item 2) and of Mellanox's
 * verifier (data:int_put, data:put128): every PE puts a block to the next PE, orders it with
 * shmem_fence or shmem_quiet (alternating), then sets a flag there with shmem_int_p; the receiver
 * waits for the flag and must then see every element of the block. Sizes from one element to 1 MiB
 * (past the message, bulk and put-pack thresholds of the network path), blocking and non-blocking
 * puts, the default and a private context; then the verifier's form: fill with -1, barrier, put,
 * barrier, check. The receiver acknowledges each block before the sender reuses its buffer.
 * ctest runs it on every path at 2 to 5 PEs, alone and beside a CPU load (mpi_tests/cpu_load.sh):
 * the reported overtaking appeared only with more PEs than free CPUs.
 * Last, the verifier's exact flag protocol (phase_reset): the receiver polls its flag without the
 * library, takes the value, resets the flag to 0 and checks the block; the value must be this
 * cycle's. Root cause of item 2: a put of one 4- or 8-byte element was stored twice (two
 * overlapping halves, as glibc's memcpy of a run-time size also does); a writer descheduled
 * between the two stores wrote the flag again after the receiver had reset it, so the receiver
 * saw the previous cycle's value at once in the next cycle and checked a block not yet sent.
 * Argument: cycles per phase (default 200; the reset phase runs 10 times as many). */
#include "common.h"

#include <string.h>
#include <unistd.h>

#define MAXN (1 << 18) /* ints: 1 MiB */

static int me, npes, next, prev, cycles = 200;
static int *buf, *src;
static int flag, ack; /* static data: symmetric too */
static int rflag;      /* the reset phase's flag in static data, as the verifier's */
static long *lflag;    /* and in the heap */

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

/* The verifier's protocol (its wait_for_put_completion): fence, set the flag, poll it without the
 * library, reset it. Flags of 4 and 8 bytes, in static data and in the heap, set by shmem_TYPE_p
 * and by a put of one element; blocks of 1 to 17 ints and 8096 (the verifier's largest). */
static void phase_reset(int rcycles) {
    static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 64, 8096};
    double t0 = now_seconds();
    for (int c = 0; c < rcycles; ++c) {
        const int kind = c % 4, token = c + 1;
        size_t n = sizes[(size_t)(c / 4) % (sizeof sizes / sizeof sizes[0])];
        for (size_t k = 0; k < n; ++k) buf[k] = -1;
        for (size_t k = 0; k < n; ++k) src[k] = val(me, c + 200000, k);
        shmem_barrier_all();
        shmem_int_put(buf, src, n, next);
        if (c & 1) shmem_quiet();
        else shmem_fence();
        long v;
        switch (kind) {
        case 0: shmem_int_p(&rflag, token, next); break;
        case 1: shmem_int_put(&rflag, &token, 1, next); break;
        case 2: shmem_long_p(lflag, token, next); break;
        default: { long t = token; shmem_long_put(lflag, &t, 1, next); }
        }
        double w0 = now_seconds();
        for (unsigned long i = 0;; ++i) {
            v = kind < 2 ? *(volatile int *)&rflag : *(volatile long *)lflag;
            if (v) break;
            if ((i & 4095) == 4095 && now_seconds() - w0 > 60)
                FAIL("reset phase: cycle %d: no flag from PE %d after 60 s", c, prev);
        }
        if (v != token)
            FAIL("reset phase: cycle %d (%s): the flag holds %ld, expected %d: the value of cycle %ld, written "
                 "again after this PE had seen it and reset the flag to 0",
                 c, kind == 0 ? "shmem_int_p, static" : kind == 1 ? "shmem_int_put of 1, static"
                    : kind == 2 ? "shmem_long_p, heap" : "shmem_long_put of 1, heap", v, token, v - 1);
        if (kind < 2) rflag = 0;
        else *lflag = 0;
        check_block("verifier's protocol: put, fence or quiet, flag, reset", c + 200000, n, prev);
    }
    shmem_barrier_all();
    NOTE("reset phase: %d cycles in %.1f s", rcycles, now_seconds() - t0);
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
    lflag = shmem_calloc(1, sizeof(long));
    CHECK(lflag != NULL, "allocation");
    shmem_barrier_all();
    /* Not on the same node through UCX (USHMEM_DIRECT=0): there UCX's shared-memory transports copy a
     * put's bytes themselves, with memcpy, which stores a 4- or 8-byte value twice (docs/user-guide.md,
     * "Flags"); ushmem's own stores (the direct path) and its message handlers (the network path)
     * write each byte once. */
    const char *direct = getenv("USHMEM_DIRECT");
    if (direct && strcmp(direct, "0") == 0)
        NOTE("reset phase skipped: USHMEM_DIRECT=0 hands same-node puts to UCX's own copy");
    else
        phase_reset(cycles * 10);
    shmem_free(lflag);
    NOTE("%d cycles of each phase, blocks of 1 to %d ints, in order", cycles, MAXN);
    shmem_free(buf);
    free(src);
    shmem_finalize();
    return 0;
}
