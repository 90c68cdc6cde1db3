/* put_pack: non-blocking puts packed into one message (USHMEM_PUT_PACK, core/put_pack.cpp).
 *
 * Usage: put_pack held|held-mt|free   (with 1 PE it only checks the data sections)
 *
 * Where puts to a PE go as acknowledged messages (UCX_TLS=tcp), small put_nbi's to one PE are
 * packed and leave together. Each section fails if the pack is sent too late, or out of order:
 *   held     (packing expected: PE 0 -> PE 1 is not direct and USHMEM_PUT_PACK is on) a put_nbi is
 *            held while its PE makes no library call: PE 1 polls for 100 ms without seeing it
 *            while PE 0 sits in an MPI receive; then PE 0 calls shmem_long_test (false) and PE 1
 *            waits for the data. `free`: no packing expected, PE 1 waits for the data instead.
 *            That the first half holds at all is what makes the sections below test the pack.
 *   release  PE 0 put_nbi's data and waits (wait_until) for PE 1's answer without a quiet; PE 1
 *            answers once the data is there. The pack must leave when the wait starts; the same
 *            with a loop of shmem_test, and with a blocking get from PE 1 of another word.
 *   order    a run of put_nbi's of 1 to 700 bytes (packed and not), overlapping (the later wins),
 *            and a put_nbi then a blocking put of one word (the blocking one joins the pack), then: fence + flag put (PE 1 waits for the flag, then checks every byte); put_nbi +
 *            blocking get of the same bytes (ushmem orders a get behind earlier puts to its PE);
 *            put_nbi + fence + fetch-add of the same word; put_nbi + put-with-signal.
 *   switch   put_nbi's alternating between two PEs, then pe_quiet of one and a flag to it: that
 *            PE checks its data at once; after a quiet both are checked.
 *   ctx      the order section on a SHMEM_CTX_PRIVATE context, whose flag put must arrive
 *            without the context's quiet (its worker's first connection to the PE).
 *   finalize a put_nbi on a shareable context never quieted nor destroyed arrives by the end of
 *            shmem_finalize (checked after it, through MPI).
 *   held-mt  as held, at SHMEM_THREAD_MULTIPLE, where only private contexts pack: the held and
 *            release sections on a private context.
 *   spread   PE 0 put_nbi's to every other PE in turn. held, with a pack per PE
 *            (USHMEM_PUT_PACK_PES >= npes - 1): none leaves while PE 0 sits in an MPI receive,
 *            then a test sends them all. Then rounds of overlapping puts to every PE in turn (with
 *            fewer slots than PEs, packs leave to make room): after a quiet every PE holds the last
 *            round's bytes.
 *   amo      (in every mode) a non-fetching atomic is sent at once, not held like a put_nbi, and
 *            takes the context's open pack with it: PE 0 put_nbi's a word, atomic_add's a counter
 *            (64-bit) and xor's another (32-bit) on PE 1, then sits in an MPI receive; PE 1 waits
 *            for both atomics' values, then (held: packing expected) finds the word. Then PE 0's
 *            fetching atomics to PE 1 see its earlier atomics without a quiet, on the context.
 *   signal   (in every mode) put-with-signal (nbi and blocking, add and set) and signal_add after
 *            a put_nbi each: each signal arrives while PE 0 sits in an MPI receive, its data
 *            with it; held, the put_nbi before it too (it travels in the pack with the signal).
 * USHMEM_WAIT_TIMEOUT bounds every wait (ctest sets it): a pack that never leaves fails with the
 * library's timeout message instead of hanging. */
#include "common.h"
#include <mpi.h>
#if TEST_WITH_USHMEM
#include <shmemx.h>
#endif

#define AREA 8192
static unsigned char area[AREA];   /* static: the symmetric data segment */
static unsigned char expect[AREA]; /* what area on the target must hold */
static long flag, word, answer, later;
static uint64_t sig;
static int me, npes;

static unsigned char byte_of(int round, size_t i) { return (unsigned char)(round * 31 + i * 7 + 1); }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_held(shmem_ctx_t ctx, int expect_held) {
    static long x;
    x = 0;
    shmem_barrier_all();
    if (me == 0) {
        long v = 4242;
        int token = 1;
        shmem_ctx_long_put_nbi(ctx, &x, &v, 1, 1);
        MPI_Send(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* A test whose condition is false sends this thread's packs. */
        static long never;
        CHECK(shmem_long_test(&never, SHMEM_CMP_EQ, 1) == 0, "shmem_long_test of an unset word");
    } else if (me == 1) {
        int token;
        MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (expect_held) {
            /* PE 0 is in MPI_Recv: its pack stays. shmem_long_test drives this PE's UCX. */
            const double end = now_s() + 0.1;
            while (now_s() < end) CHECK(shmem_long_test(&x, SHMEM_CMP_EQ, 4242) == 0, "a put_nbi left its pack while its PE made no library call");
        }
        MPI_Send(&token, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
        shmem_long_wait_until(&x, SHMEM_CMP_EQ, 4242);
    }
    shmem_barrier_all();
    NOTE("held (%s): OK", expect_held ? "held until PE 0's next call" : "not held");
}

/* PE 0 -> PE 1: data by put_nbi, then PE 0 waits for PE 1's answer (kind 0: wait_until, 1: a
 * test loop, 2: a blocking get that spins until PE 1 answered). */
static void test_release(shmem_ctx_t ctx, int kind) {
    static long data;
    data = 0;
    answer = 0;
    shmem_barrier_all();
    const long v = 1000 + kind;
    if (me == 0) {
        shmem_ctx_long_put_nbi(ctx, &data, &v, 1, 1);
        if (kind == 0) {
            shmem_long_wait_until(&answer, SHMEM_CMP_EQ, v);
        } else if (kind == 1) {
            while (!shmem_long_test(&answer, SHMEM_CMP_EQ, v)) {
            }
        } else {
            /* A get from PE 1 on the context is another operation to that PE: the pack leaves
             * before it. */
            while (shmem_ctx_long_g(ctx, &answer, 1) != v) {
            }
        }
    } else if (me == 1) {
        shmem_long_wait_until(&data, SHMEM_CMP_EQ, v);
        if (kind == 2) {
            answer = v; /* read by PE 0's get */
        } else {
            shmem_long_p(&answer, v, 0);
            shmem_quiet();
        }
    }
    shmem_barrier_all();
    NOTE("release by %s: OK", kind == 0 ? "wait_until" : kind == 1 ? "test" : "get");
}

static void test_amo(shmem_ctx_t ctx, int held) {
    static long x, counter;
    static unsigned int bits;
    x = counter = 0;
    bits = 0x0f0f0f0fu;
    shmem_barrier_all();
    if (me == 0) {
        const long v = 5151;
        int token = 1;
        shmem_ctx_long_put_nbi(ctx, &x, &v, 1, 1);
        shmem_ctx_long_atomic_add(ctx, &counter, 3, 1);
        shmem_ctx_uint_atomic_xor(ctx, &bits, 0xffff0000u, 1);
        MPI_Send(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (me == 1) {
        int token;
        MPI_Recv(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* PE 0 is in MPI_Recv until this PE answers: the atomics must have been sent already. */
        shmem_long_wait_until(&counter, SHMEM_CMP_EQ, 3);
        shmem_uint_wait_until(&bits, SHMEM_CMP_EQ, 0xf0f00f0fu);
        if (held) CHECK(x == 5151, "a put_nbi packed before an atomic_add did not travel with it: %ld, expected 5151", x);
        MPI_Send(&token, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
    }
    shmem_barrier_all();
    if (me == 0) {
        long got;
        for (int i = 0; i < 10; ++i) shmem_ctx_long_atomic_add(ctx, &counter, 2, 1);
        shmem_ctx_long_atomic_set(ctx, &x, 1L << 40, 1);
        shmem_ctx_ulong_atomic_or(ctx, (unsigned long *)&x, 5, 1);
        CHECK((got = shmem_ctx_long_atomic_fetch_add(ctx, &counter, 1, 1)) == 23, "fetch_add after 10 adds returned %ld, expected 23", got);
        CHECK((got = (long)shmem_ctx_ulong_atomic_fetch_xor(ctx, (unsigned long *)&x, 4, 1)) == (1L << 40 | 5),
              "fetch_xor after set and or returned %#lx, expected %#lx", (unsigned long)got, (unsigned long)(1L << 40 | 5));
        unsigned int u;
        shmem_ctx_uint_atomic_and(ctx, &bits, 0xff00ff00u, 1);
        CHECK((u = shmem_ctx_uint_atomic_fetch_or(ctx, &bits, 1u, 1)) == 0xf0000f00u, "fetch_or after and returned %#x, expected 0xf0000f00", u);
        CHECK((u = shmem_ctx_uint_atomic_fetch_and(ctx, &bits, 0xfffu, 1)) == 0xf0000f01u, "fetch_and returned %#x, expected 0xf0000f01", u);
        CHECK((u = shmem_ctx_uint_atomic_fetch(ctx, &bits, 1)) == 0xf01u, "fetch returned %#x, expected 0xf01", u);
        CHECK((got = shmem_ctx_long_atomic_fetch(ctx, &x, 1)) == (1L << 40 | 1), "fetch returned %#lx, expected %#lx",
              (unsigned long)got, (unsigned long)(1L << 40 | 1));
    }
    shmem_barrier_all();
    if (me == 1) CHECK(counter == 24 && x == (1L << 40 | 1) && bits == 0xf01u, "after the atomics PE 1 holds %ld, %#lx, %#x",
                       counter, (unsigned long)x, bits);
    shmem_barrier_all();
    NOTE("amo: OK");
}

static void test_spread(int held) {
    static long w;
    static unsigned char src[3][AREA];
    const char *slots = getenv("USHMEM_PUT_PACK_PES");
    const int per_pe = held && npes > 2 && (!slots || atoi(slots) >= npes - 1);
    const size_t len = 96, step = 40, covered = (AREA - len) / step * step + len;
    w = 0;
    memset(area, 0, AREA);
    shmem_barrier_all();
    if (me == 0) {
        int token = 1;
        for (long k = 1; k <= 2; ++k) /* 2 records: they fit the 64-byte pack of put_pack_small */
            for (int pe = 1; pe < npes; ++pe) shmem_long_put_nbi(&w, &k, 1, pe);
        for (int pe = 1; pe < npes; ++pe) MPI_Send(&token, 1, MPI_INT, pe, 11, MPI_COMM_WORLD);
        for (int pe = 1; pe < npes; ++pe) MPI_Recv(&token, 1, MPI_INT, pe, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        static long never;
        CHECK(shmem_long_test(&never, SHMEM_CMP_EQ, 1) == 0, "shmem_long_test of an unset word");
    } else {
        int token;
        MPI_Recv(&token, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int mine_held = per_pe;
#if TEST_WITH_USHMEM
        if (shmemx_pe_is_direct(0)) mine_held = 0; /* PE 0's puts here are stores (two hosts: same host) */
#endif
        if (mine_held) {
            const double end = now_s() + 0.1;
            while (now_s() < end)
                CHECK(shmem_long_test(&w, SHMEM_CMP_NE, 0) == 0,
                      "a put_nbi to PE %d left its pack while PE 0 alternated between %d PEs and made no library call", me,
                      npes - 1);
        }
        MPI_Send(&token, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);
        shmem_long_wait_until(&w, SHMEM_CMP_EQ, 2);
    }
    shmem_barrier_all();
    if (me == 0) {
        for (int r = 0; r < 3; ++r) {
            for (size_t i = 0; i < AREA; ++i) src[r][i] = byte_of(r + 1, i);
            for (size_t at = 0; at + len <= AREA; at += step)
                for (int pe = 1; pe < npes; ++pe) shmem_putmem_nbi(area + at, src[r] + at, len, pe);
        }
        shmem_quiet();
    }
    shmem_barrier_all();
    if (me != 0)
        for (size_t i = 0; i < AREA; ++i) {
            const unsigned char want = i < covered ? byte_of(3, i) : 0;
            CHECK(area[i] == want, "spread: byte %zu from PE 0 is %u, expected %u", i, area[i], want);
        }
    shmem_barrier_all();
    NOTE("spread (%s): OK", per_pe ? "held per PE" : "not checked held");
}

/* A run of put_nbi's from `src` into area on `pe`: sizes 1..700 bytes, overlapping; expect[]
 * gets the result. */
static void put_run(shmem_ctx_t ctx, int pe, int round, const unsigned char *src) {
    size_t at = 0;
    for (int k = 0; k < 300; ++k) {
        const size_t n = (size_t)(k % 9 == 8 ? 700 : 1 + (k * 13) % 96);
        if (at + n > AREA) at = (size_t)(k * 37) % 512;
        shmem_ctx_putmem_nbi(ctx, area + at, src + at, n, pe);
        memcpy(expect + at, src + at, n);
        at += n / 2 + 1; /* overlaps the next put */
    }
    (void)round;
}

static void check_area(int from, const char *what) {
    for (size_t i = 0; i < AREA; ++i)
        if (area[i] != expect[i])
            FAIL("%s: byte %zu from PE %d is %u, expected %u", what, i, from, area[i], expect[i]);
}

static void test_order(shmem_ctx_t ctx, const char *name) {
    static unsigned char src[AREA];
    const int round = name[0];
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    memset(area, 0, AREA);
    memset(expect, 0, AREA);
    flag = 0;
    later = 0;
    for (size_t i = 0; i < AREA; ++i) src[i] = byte_of(round, i);
    shmem_barrier_all();
    /* fence + flag put; before the fence a blocking put of a word a put_nbi wrote just before
     * (it joins their pack: the later must win) */
    const long first = 1000 + me, second = 2000 + me;
    put_run(ctx, right, round, src);
    shmem_ctx_long_put_nbi(ctx, &later, &first, 1, right);
    shmem_ctx_long_put(ctx, &later, &second, 1, right);
    shmem_ctx_fence(ctx);
    shmem_ctx_long_p(ctx, &flag, 1, right);
    /* No quiet: the flag must arrive anyway, also from a private context's own worker, which
     * this wait on the default context does not drive. */
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    check_area(left, "after fence and flag");
    CHECK(later == 2000 + left, "%s: a blocking put after a put_nbi of the same word from PE %d: %ld, expected %ld", name,
          left, later, 2000L + left);
    shmem_barrier_all();
    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_quiet(ctx);
    shmem_barrier_all();

    /* put_nbi then a blocking get of the same bytes */
    for (int k = 0; k < 50; ++k) {
        unsigned char b[24], got[24];
        for (int i = 0; i < 24; ++i) b[i] = (unsigned char)(k + i + me);
        shmem_ctx_putmem_nbi(ctx, area + 64 * (size_t)k, b, 24, right);
        shmem_ctx_getmem(ctx, got, area + 64 * (size_t)k, 24, right);
        CHECK(memcmp(b, got, 24) == 0, "%s: a get after a put_nbi to PE %d did not see it (k=%d)", name, right, k);
    }
    /* put_nbi + fence + fetch-add of the same word */
    for (long k = 0; k < 50; ++k) {
        const long v = 100 * k + me;
        shmem_ctx_long_put_nbi(ctx, &word, &v, 1, right);
        shmem_ctx_fence(ctx);
        const long old = shmem_ctx_long_atomic_fetch_add(ctx, &word, 1, right);
        CHECK(old == v, "%s: fetch-add after put_nbi + fence on PE %d returned %ld, expected %ld", name, right, old, v);
    }
#if TEST_WITH_USHMEM || SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
    /* put_nbi's, fence, then put-with-signal: the target sees all of them with the signal */
    shmem_barrier_all();
    memset(area, 0, AREA);
    memset(expect, 0, AREA);
    sig = 0;
    shmem_barrier_all();
    put_run(ctx, right, round + 1, src);
    shmem_ctx_fence(ctx);
    shmem_ctx_putmem_signal(ctx, area + AREA - 8, src + AREA - 8, 8, &sig, 1, SHMEM_SIGNAL_SET, right);
    memcpy(expect + AREA - 8, src + AREA - 8, 8);
    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_quiet(ctx);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
    check_area(left, "after fence and put-with-signal");
#endif
    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    NOTE("order (%s): OK", name);
}

static void test_switch(void) {
    if (npes < 3) return;
    /* Every PE writes to both neighbours' halves: slot [0, AREA/2) from the left, the rest from
     * the right. */
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    static unsigned char src[AREA];
    memset(area, 0, AREA);
    flag = 0;
    for (size_t i = 0; i < AREA; ++i) src[i] = byte_of(me, i);
    shmem_barrier_all();
    for (size_t i = 0; i < AREA / 2; i += 8) {
        shmem_putmem_nbi(area + i, src + i, 8, right);                      /* my half there */
        shmem_putmem_nbi(area + AREA / 2 + i, src + AREA / 2 + i, 8, left); /* my half there */
    }
    shmem_pe_quiet(&right, 1);
    shmem_long_atomic_add(&flag, 1, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_GE, 1);
    for (size_t i = 0; i < AREA / 2; ++i)
        CHECK(area[i] == byte_of(left, i), "after pe_quiet: byte %zu from PE %d is %u, expected %u", i, left, area[i], byte_of(left, i));
    shmem_quiet();
    shmem_barrier_all();
    for (size_t i = AREA / 2; i < AREA; ++i)
        CHECK(area[i] == byte_of(right, i), "after quiet: byte %zu from PE %d is %u, expected %u", i, right, area[i], byte_of(right, i));
    shmem_barrier_all();
    NOTE("switch: OK");
}

#if TEST_WITH_USHMEM
/* Put-with-signal and signal_add after put_nbi's to the same PE: the signal leaves at once (PE 0
 * then sits in an MPI receive), its own data with it; held, the packed put_nbi's travel in the same
 * message, ahead of the signal. */
static void test_signal(shmem_ctx_t ctx, int held) {
    static long x[3], y[3];
    static uint64_t sigs[3];
    memset(x, 0, sizeof x);
    memset(y, 0, sizeof y);
    memset(sigs, 0, sizeof sigs);
    shmem_barrier_all();
    if (me == 0) {
        int token = 1;
        const long xv[3] = {6161, 6262, 6363}, yv[3] = {7171, 0, 7373};
        shmem_ctx_long_put_nbi(ctx, &x[0], &xv[0], 1, 1);
        shmem_ctx_putmem_signal_nbi(ctx, &y[0], &yv[0], sizeof y[0], &sigs[0], 5, SHMEM_SIGNAL_ADD, 1);
        shmem_ctx_long_put_nbi(ctx, &x[1], &xv[1], 1, 1);
        shmem_ctx_signal_add(ctx, &sigs[1], 9, 1);
        shmem_ctx_long_put_nbi(ctx, &x[2], &xv[2], 1, 1);
        shmem_ctx_putmem_signal(ctx, &y[2], &yv[2], sizeof y[2], &sigs[2], 11, SHMEM_SIGNAL_SET, 1);
        MPI_Send(&token, 1, MPI_INT, 1, 11, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (me == 1) {
        int token;
        const uint64_t want[3] = {5, 9, 11};
        const long xv[3] = {6161, 6262, 6363}, yv[3] = {7171, 0, 7373};
        MPI_Recv(&token, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < 3; ++k) {
            shmem_signal_wait_until(&sigs[k], SHMEM_CMP_EQ, want[k]);
            CHECK(y[k] == yv[k], "signal %d: the put-with-signal's data is %ld once its signal is in, expected %ld", k,
                  y[k], yv[k]);
            if (held)
                CHECK(x[k] == xv[k], "signal %d: a put_nbi packed before it did not travel ahead of the signal: %ld, "
                      "expected %ld", k, x[k], xv[k]);
        }
        MPI_Send(&token, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);
    }
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    if (me == 1) CHECK(x[0] == 6161 && x[1] == 6262 && x[2] == 6363, "after the quiet PE 1 holds %ld %ld %ld", x[0], x[1], x[2]);
    shmem_barrier_all();
    NOTE("signal: OK");
}
#endif

int main(int argc, char **argv) {
    const int mt = argc == 2 && !strcmp(argv[1], "held-mt");
    if (argc != 2 || (strcmp(argv[1], "held") && strcmp(argv[1], "free") && !mt)) {
        fprintf(stderr, "usage: %s held|held-mt|free\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    if (mt) {
        int provided = 0;
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
        CHECK(provided == SHMEM_THREAD_MULTIPLE, "shmem_init_thread(SHMEM_THREAD_MULTIPLE) provided %d", provided);
    } else {
        shmem_init();
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create(SHMEM_CTX_PRIVATE)");
    /* At SHMEM_THREAD_MULTIPLE only private contexts pack: the held and release sections use
     * one there. */
    const shmem_ctx_t first = mt ? ctx : SHMEM_CTX_DEFAULT;
    if (npes >= 2) {
        int held = strcmp(argv[1], "free") != 0;
#if TEST_WITH_USHMEM
        if (held && (me == 0 || me == 1) && shmemx_pe_is_direct(1 - me)) {
            fprintf(stderr, "put_pack held: PE 0 and PE 1 reach each other directly here (no packing); run over UCX_TLS=tcp\n");
            shmem_global_exit(2);
        }
#endif
        test_held(first, held);
        for (int kind = 0; kind < 3; ++kind) test_release(first, kind);
        test_amo(first, held);
#if TEST_WITH_USHMEM
        test_signal(first, held);
#endif
        test_spread(held && !mt);
        if (first != SHMEM_CTX_DEFAULT) shmem_ctx_quiet(first);
    }
    test_order(SHMEM_CTX_DEFAULT, "default context");
    test_switch();
    test_order(ctx, "private context");
    shmem_ctx_destroy(ctx);
    /* A put_nbi on a shareable context that the program neither quiets nor destroys: finalize
     * delivers it (packed below SHMEM_THREAD_MULTIPLE). The static word keeps its value after
     * shmem_finalize; MPI orders the check after PE 1's finalize. */
    static long at_exit;
    shmem_ctx_t shared;
    CHECK(shmem_ctx_create(0, &shared) == 0, "shmem_ctx_create(0)");
    shmem_barrier_all();
    if (me == 0 && npes >= 2) {
        const long v = 777;
        shmem_ctx_long_put_nbi(shared, &at_exit, &v, 1, 1);
    }
    shmem_finalize();
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) CHECK_NOSHMEM(at_exit == 777, "a put_nbi left open at finalize: PE 1 holds %ld, expected 777", at_exit);
    MPI_Finalize();
    return 0;
}
