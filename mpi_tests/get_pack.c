/* get_pack: small get_nbi's batched into one request and one reply (core/put_pack.cpp).
 *
 * Usage: get_pack held|free   (with 1 PE only the data sections run, against PE 0 itself)
 *
 * Where puts to a PE are packed (UCX_TLS=tcp), small get_nbi's to it are batched: a request lists
 * them, the reply carries their bytes. Each section fails if a get reads the wrong bytes, or at
 * the wrong time:
 *   held     (batching expected) PE 0 get_nbi's a word of PE 1, then makes no library call for
 *            100 ms: sent at once, the get would complete meanwhile (its progress thread drives
 *            its UCX); batched, it stays undone until the quiet. `free` (no batching: direct and
 *            UCX shared memory, USHMEM_PUT_PACK=0) skips it. That it holds is what makes the
 *            sections below test the batch.
 *   data     4000 get_nbi's of 1 to 700 bytes (batched up to the pack's size, larger not) from
 *            pseudo-random places of a 64 KiB area of the next PE, into one buffer, then a
 *            quiet: every byte is checked. The batches fill (256 records of 16 bytes in a 4 KiB
 *            pack) and reach the reply's 64 KiB limit; a batch per PE is open at once.
 *   order    program order against puts and atomics to the same PE: put_nbi x then get_nbi x
 *            reads the put; get_nbi y then put_nbi y reads the old y; get_nbi z then atomic_add
 *            z reads the old z, then a fetch reads the add; a blocking get after get_nbi's.
 *   pe_quiet with 3 PEs or more: get_nbi's from two PEs, shmem_pe_quiet of one: its gets are in
 *            (the other's after a quiet).
 *   pe_test  shmemx_ctx_pe_test polled until true: the gets are in.
 *   ctx      the data section on a SHMEM_CTX_PRIVATE context (its own worker), completed by
 *            shmem_ctx_quiet; then get_nbi's left to shmem_ctx_destroy's quiet.
 *   wait     PE 0 get_nbi's a word of PE 1 into a symmetric word and waits (wait_until) for the
 *            value to land there, with no quiet: the batch must leave when the wait starts.
 * Fetching non-blocking atomics (fetch_add_nbi, compare_swap_nbi, ...) join the same batches:
 *   held-amo as `held`, with a fetch_add_nbi: its old value stays unwritten until the quiet.
 *   amo      (default context, then a private one) every PE issues 1500 fetch_add_nbi's of 1 on
 *            the counters of random PEs: per target, one PE's old values increase in its issue
 *            order, and the old values all PEs got from a target are exactly 0 .. its final
 *            count - 1 (each marked once in a symmetric table there); a chain of 300
 *            compare_swap_nbi's (i -> i + 1) on a word of the next PE all succeed in order; a
 *            put_nbi, fetch_nbi, swap_nbi, 32-bit fetch_and/or/xor_nbi and a blocking fetch in
 *            program order against them.
 * USHMEM_WAIT_TIMEOUT bounds every wait (ctest sets it).
 *
 * Usage: get_pack short   (2 PEs, UCX_TLS=tcp, USHMEM_TEST_FAULT=short_get_replies on PE 1)
 *   PE 0 get_nbi's a word of PE 1 and quiets; PE 1's reply to the batch is one byte short (the
 *   injected fault). The initiator must say so, write nothing, and its quiet must end with the
 *   timeout naming PE 1: the program fails if the quiet returns, and says whether the word was
 *   written. */
#include "common.h"
#include <mpi.h>
#if TEST_WITH_USHMEM
#include <shmemx.h>
#endif

#define AREA 65536
#define GETS 4000
static unsigned char area[AREA]; /* static: the symmetric data segment */
static long word, answer;
static long xs[4];
static int me, npes;

static unsigned char byte_at(int pe, size_t i) { return (unsigned char)(pe * 53 + i * 13 + (i >> 8) + 1); }

static void fill_area(void) {
    for (size_t i = 0; i < AREA; ++i) area[i] = byte_at(me, i);
}

/* The long at byte offset `off` of PE pe's area. */
static long long_at(int pe, size_t off) {
    unsigned char b[8];
    long v;
    for (int i = 0; i < 8; ++i) b[i] = byte_at(pe, off + (size_t)i);
    memcpy(&v, b, 8);
    return v;
}

static unsigned long rng_state;
static unsigned long rnd(void) {
    rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
    return rng_state >> 33;
}

/* GETS get_nbi's from PE `from` (on ctx) of random sizes and places, then the context's quiet. */
static void test_data(shmem_ctx_t ctx, int from, const char *what) {
    static size_t off[GETS], len[GETS], at[GETS];
    const size_t cap = 700 * GETS;
    unsigned char *dst = malloc(cap);
    CHECK(dst != NULL, "malloc");
    memset(dst, 0, cap);
    rng_state = 12345u + (unsigned long)me;
    size_t used = 0;
    for (int k = 0; k < GETS; ++k) {
        len[k] = 1 + rnd() % (k % 10 == 9 ? 700 : 64); /* mostly small, some past the pack's item */
        off[k] = rnd() % (AREA - len[k] + 1);
        at[k] = used;
        used += len[k];
        shmem_ctx_getmem_nbi(ctx, dst + at[k], area + off[k], len[k], from);
    }
    shmem_ctx_quiet(ctx);
    for (int k = 0; k < GETS; ++k)
        for (size_t i = 0; i < len[k]; ++i)
            if (dst[at[k] + i] != byte_at(from, off[k] + i))
                FAIL("%s: get %d (%zu bytes at %zu from PE %d): byte %zu is %u, expected %u", what, k, len[k], off[k],
                     from, i, dst[at[k] + i], byte_at(from, off[k] + i));
    free(dst);
}

/* Batches to every other PE at once, interleaved. */
static void test_spread(void) {
    enum { N = 600 };
    static long got[N];
    rng_state = 777u + (unsigned long)me;
    int pes[N];
    size_t offs[N];
    for (int k = 0; k < N; ++k) {
        pes[k] = npes > 1 ? (me + 1 + (int)(rnd() % (unsigned long)(npes - 1))) % npes : me;
        offs[k] = (rnd() % (AREA / 8)) * 8;
        shmem_long_get_nbi(&got[k], (const long *)(area + offs[k]), 1, pes[k]);
    }
    shmem_quiet();
    for (int k = 0; k < N; ++k) {
        const long want = long_at(pes[k], offs[k]);
        CHECK(got[k] == want, "spread: get %d of 8 bytes at %zu from PE %d: %#lx, expected %#lx", k, offs[k], pes[k],
              got[k], want);
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_held(void) {
#if TEST_WITH_USHMEM
    word = 4242;
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmemx_progress_thread_running(), "held: expects the progress thread (UCX_TLS=tcp's default), which "
              "would complete a get_nbi that was not held");
        static volatile long got;
        got = 0;
        shmem_long_get_nbi((long *)&got, &word, 1, 1);
        /* No library call for 100 ms: sent at once, the get would be completed meanwhile by this
         * PE's progress thread (PE 1's answers); held in its batch, it stays 0. */
        const double end = now_s() + 0.1;
        while (now_s() < end) CHECK(got == 0, "held: a get_nbi completed while its PE made no library call: not batched");
        shmem_quiet();
        CHECK(got == 4242, "held: the get_nbi read %ld after the quiet, expected 4242", got);
    }
    shmem_barrier_all();
#endif
}

static void test_order(void) {
    const int to = (me + 1) % npes;
    for (int i = 0; i < 4; ++i) xs[i] = 100 + i;
    shmem_barrier_all();
    long x = 0, y = 0, z = 0, z2 = 0, b = 0, five = 5, seven = 7;
    shmem_long_put_nbi(&xs[0], &five, 1, to);
    shmem_long_get_nbi(&x, &xs[0], 1, to);
    shmem_long_get_nbi(&y, &xs[1], 1, to);
    shmem_long_put_nbi(&xs[1], &seven, 1, to);
    shmem_long_get_nbi(&z, &xs[2], 1, to);
    shmem_long_atomic_add(&xs[2], 10, to);
    z2 = shmem_long_atomic_fetch(&xs[2], to);
    shmem_long_get_nbi(&answer, &xs[3], 1, to);
    shmem_getmem(&b, &xs[3], sizeof b, to);
    shmem_quiet();
    CHECK(x == 5, "order: put_nbi 5 then get_nbi of it read %ld", x);
    CHECK(y == 101, "order: get_nbi then put_nbi 7 of the same word: the get read %ld, expected 101", y);
    CHECK(z == 102 && z2 == 112, "order: get_nbi then atomic_add 10: the get read %ld (expected 102), a fetch %ld (112)",
          z, z2);
    CHECK(answer == 103 && b == 103, "order: get_nbi then a blocking get of the same word: %ld and %ld, expected 103",
          answer, b);
    shmem_barrier_all();
    CHECK(xs[0] == 5 && xs[1] == 7 && xs[2] == 112, "order: this PE's words are %ld %ld %ld, expected 5 7 112", xs[0],
          xs[1], xs[2]);
}

static void test_pe_quiet(void) {
    if (npes < 3) return;
    const int a = (me + 1) % npes, c = (me + 2) % npes;
    enum { N = 300 };
    static long ga[N], gc[N];
    for (int k = 0; k < N; ++k) {
        shmem_long_get_nbi(&ga[k], (const long *)(area + 8 * (size_t)k), 1, a);
        shmem_long_get_nbi(&gc[k], (const long *)(area + 8 * (size_t)k), 1, c);
    }
    shmem_pe_quiet(&a, 1);
    for (int k = 0; k < N; ++k) {
        const long want = long_at(a, 8 * (size_t)k);
        CHECK(ga[k] == want, "pe_quiet: get %d from PE %d after shmem_pe_quiet of it: %#lx, expected %#lx", k, a, ga[k],
              want);
    }
    shmem_quiet();
    for (int k = 0; k < N; ++k) {
        const long want = long_at(c, 8 * (size_t)k);
        CHECK(gc[k] == want, "pe_quiet: get %d from PE %d after the quiet: %#lx, expected %#lx", k, c, gc[k], want);
    }
}

static void test_pe_test(void) {
#if TEST_WITH_USHMEM
    const int to = (me + 1) % npes;
    enum { N = 200 };
    static long g[N];
    for (int k = 0; k < N; ++k) shmem_long_get_nbi(&g[k], (const long *)(area + 8 * (size_t)k), 1, to);
    long polls = 0;
    while (!shmemx_ctx_pe_test(SHMEM_CTX_DEFAULT, &to, 1, NULL)) ++polls;
    for (int k = 0; k < N; ++k) {
        const long want = long_at(to, 8 * (size_t)k);
        CHECK(g[k] == want, "pe_test: get %d from PE %d once shmemx_ctx_pe_test said done (%ld polls): %#lx, "
              "expected %#lx", k, to, polls, g[k], want);
    }
#endif
}

static void test_ctx(void) {
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create failed");
    test_data(ctx, (me + 1) % npes, "ctx");
    long got[64];
    for (int k = 0; k < 64; ++k) shmem_ctx_long_get_nbi(ctx, &got[k], (const long *)(area + 8 * (size_t)k), 1, (me + 1) % npes);
    shmem_ctx_destroy(ctx); /* its quiet completes them */
    for (int k = 0; k < 64; ++k) {
        const long want = long_at((me + 1) % npes, 8 * (size_t)k);
        CHECK(got[k] == want, "ctx: get %d left to shmem_ctx_destroy: %#lx, expected %#lx", k, got[k], want);
    }
}

static void test_wait(void) {
    static long got; /* symmetric: waited on */
    got = 0;
    word = 4242;
    shmem_barrier_all();
    if (me == 0) {
        /* No quiet: the wait on the get's own destination must send the batch (not valid
         * OpenSHMEM, as waiting for a put never completed is not, but it works everywhere else). */
        shmem_long_get_nbi(&got, &word, 1, 1);
        shmem_long_wait_until(&got, SHMEM_CMP_EQ, 4242);
        shmem_quiet();
        CHECK(got == 4242, "wait: get_nbi read %ld, expected 4242", got);
    }
    shmem_barrier_all();
}

static void test_held_amo(void) {
#if TEST_WITH_USHMEM
    word = 4242;
    shmem_barrier_all();
    if (me == 0) {
        static volatile long got;
        got = -1;
        shmem_long_atomic_fetch_add_nbi((long *)&got, &word, 3, 1);
        const double end = now_s() + 0.1;
        while (now_s() < end)
            CHECK(got == -1, "held-amo: a fetch_add_nbi completed while its PE made no library call: not batched");
        shmem_quiet();
        CHECK(got == 4242, "held-amo: the fetch_add_nbi fetched %ld after the quiet, expected 4242", got);
        CHECK(shmem_long_atomic_fetch(&word, 1) == 4245, "held-amo: the word is not 4245 after the fetch_add_nbi of 3");
    }
    shmem_barrier_all();
#endif
}

#define AMO_N 1500
#define CHAIN 300
#define MAX_PES 8
static long counter;                        /* fetch_add_nbi target on every PE */
static unsigned char seen[MAX_PES * AMO_N]; /* seen[v] on PE t: some PE fetched v from t's counter */
static long chain[MAX_PES];                 /* chain[p] on PE p + 1: p's compare_swap_nbi chain */
static unsigned int bits32[MAX_PES];        /* bits32[p] on PE p + 1: p's 32-bit bitwise ops */

static void test_amo(shmem_ctx_t ctx, const char *what) {
    static long got[AMO_N], olds[CHAIN], tail[4];
    static int pes[AMO_N];
    static unsigned int b32[3];
    static int i32;
    const long one = 1;
    counter = 0;
    memset(seen, 0, sizeof seen);
    const int next = (me + 1) % npes;
    chain[(me + npes - 1) % npes] = 0;
    bits32[(me + npes - 1) % npes] = 0xf0f0f0f0u;
    shmem_barrier_all();
    rng_state = 999u + (unsigned long)me;
    for (int k = 0; k < AMO_N; ++k) {
        pes[k] = (int)(rnd() % (unsigned long)npes);
        got[k] = -1;
        shmem_ctx_long_atomic_fetch_add_nbi(ctx, &got[k], &counter, one, pes[k]);
    }
    for (int i = 0; i < CHAIN; ++i) shmem_ctx_long_atomic_compare_swap_nbi(ctx, &olds[i], &chain[me], i, i + 1, next);
    const long thousand = 1000;
    shmem_ctx_long_put_nbi(ctx, &chain[me], &thousand, 1, next);
    shmem_ctx_long_atomic_fetch_nbi(ctx, &tail[0], &chain[me], next);
    shmem_ctx_long_atomic_swap_nbi(ctx, &tail[1], &chain[me], 2000, next);
    shmem_ctx_long_atomic_add(ctx, &chain[me], 5, next);
    shmem_ctx_long_atomic_compare_swap_nbi(ctx, &tail[2], &chain[me], 2005, 3000, next);
    shmem_ctx_uint_atomic_fetch_and_nbi(ctx, &b32[0], &bits32[me], 0xff00ff00u, next);
    shmem_ctx_uint_atomic_fetch_or_nbi(ctx, &b32[1], &bits32[me], 0x0000000fu, next);
    shmem_ctx_uint_atomic_fetch_xor_nbi(ctx, &b32[2], &bits32[me], 0x80000001u, next);
    i32 = -7;
    shmem_ctx_int_atomic_fetch_add_nbi(ctx, &i32, (int *)&bits32[me], 1, next);
    /* A blocking fetch after them: the batch leaves first, so it sees every one of them. */
    tail[3] = shmem_ctx_long_atomic_fetch(ctx, &chain[me], next);
    shmem_ctx_quiet(ctx);
    long last[MAX_PES];
    for (int p = 0; p < MAX_PES; ++p) last[p] = -1;
    for (int k = 0; k < AMO_N; ++k) {
        CHECK(got[k] > last[pes[k]], "%s: fetch_add_nbi %d on PE %d fetched %ld after %ld: not in issue order", what, k,
              pes[k], got[k], last[pes[k]]);
        CHECK(got[k] < (long)npes * AMO_N, "%s: fetch_add_nbi %d on PE %d fetched %ld", what, k, pes[k], got[k]);
        last[pes[k]] = got[k];
    }
    for (int i = 0; i < CHAIN; ++i)
        CHECK(olds[i] == i, "%s: compare_swap_nbi %d (%d -> %d) on PE %d found %ld", what, i, i, i + 1, next, olds[i]);
    CHECK(tail[0] == 1000 && tail[1] == 1000 && tail[2] == 2005 && tail[3] == 3000,
          "%s: put_nbi 1000, fetch_nbi, swap_nbi 2000, add 5, compare_swap_nbi 2005 -> 3000, fetch: fetched %ld %ld "
          "%ld %ld, expected 1000 1000 2005 3000", what, tail[0], tail[1], tail[2], tail[3]);
    const unsigned int a = 0xf0f0f0f0u & 0xff00ff00u, o = a | 0xfu, x = o ^ 0x80000001u;
    CHECK(b32[0] == 0xf0f0f0f0u && b32[1] == a && b32[2] == o && (unsigned int)i32 == x,
          "%s: 32-bit fetch_and/or/xor_nbi, fetch_add_nbi fetched %#x %#x %#x %#x, expected %#x %#x %#x %#x", what,
          b32[0], b32[1], b32[2], (unsigned int)i32, 0xf0f0f0f0u, a, o, x);
    /* Mark every fetched value in its target's table. */
    const unsigned char yes = 1;
    for (int k = 0; k < AMO_N; ++k) shmem_ctx_putmem_nbi(ctx, &seen[got[k]], &yes, 1, pes[k]);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(chain[(me + npes - 1) % npes] == 3000, "%s: chain word %ld, expected 3000", what,
          chain[(me + npes - 1) % npes]);
    CHECK(bits32[(me + npes - 1) % npes] == x + 1, "%s: 32-bit word %#x, expected %#x", what,
          bits32[(me + npes - 1) % npes], x + 1);
    for (long v = 0; v < (long)sizeof seen; ++v)
        CHECK(seen[v] == (v < counter), "%s: counter %ld on PE %d: old value %ld fetched %s", what, counter, me, v,
              v < counter ? "by nobody (another fetched twice)" : "beyond the count");
    static long total, sum_src;
    sum_src = counter;
    shmem_barrier_all();
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total, &sum_src, 1);
    CHECK(total == (long)npes * AMO_N, "%s: the counters add up to %ld, expected %ld", what, total, (long)npes * AMO_N);
    shmem_barrier_all();
}

/* `short`: see the header. Only PE 0 issues; PE 1 serves from the barrier (its progress thread). */
static void test_short(void) {
    CHECK(npes == 2, "get_pack short runs at 2 PEs");
    static long got = -1;
    if (me == 0) {
        shmem_long_get_nbi(&got, (const long *)area, 1, 1);
        shmem_quiet();
        FAIL("shmem_quiet returned although PE 1's reply was short (the word %s written)",
             got == long_at(1, 0) ? "was" : "was not");
    }
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 2 && (!strcmp(argv[1], "held") || !strcmp(argv[1], "free") || !strcmp(argv[1], "short")),
                  "usage: get_pack held|free|short");
    const int held = !strcmp(argv[1], "held");
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    fill_area();
    shmem_barrier_all();
    if (!strcmp(argv[1], "short")) test_short();
    if (held && npes >= 2) test_held();
    test_data(SHMEM_CTX_DEFAULT, (me + 1) % npes, "data");
    test_spread();
    test_order();
    test_pe_quiet();
    test_pe_test();
    test_ctx();
    if (npes >= 2) test_wait();
    if (held && npes >= 2) test_held_amo();
    CHECK(npes <= MAX_PES, "at most %d PEs", MAX_PES);
    test_amo(SHMEM_CTX_DEFAULT, "amo");
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create failed");
    test_amo(ctx, "amo ctx");
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0) printf("get_pack %s: OK (%d PEs)\n", argv[1], npes);
    shmem_finalize();
    MPI_Finalize();
    return 0;
}
