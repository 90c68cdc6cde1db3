/* order: ordering and completion of RMA: shmem_fence, shmem_quiet, shmem_pe_quiet and their
 * context forms.
 *
 *   fence: each PE, many times, puts a data block (in several pieces, of 8 B to 1 MiB) to its
 *          right neighbour, calls shmem_fence (or shmem_ctx_fence(SHMEM_CTX_DEFAULT)) and then
 *          puts a flag. The neighbour spins on the flag and, once it sees it, the whole block
 *          must be there (fence orders puts to one PE). It then acknowledges, so the next
 *          iteration does not overwrite data still being checked.
 *   quiet: the same with shmem_quiet / shmem_ctx_quiet between data and flag, the data sent with
 *          blocking puts or put_nbi; after the quiet the initiator also reads the block back
 *          with a get and must see it complete ("complete and visible to all PEs").
 *   pe_quiet: the same with shmem_pe_quiet / shmem_ctx_pe_quiet on the single target; puts to
 *          every PE (including the own PE) each completed by a pe_quiet on that PE and checked by
 *          a get; pe_quiet on a list of all PEs; an empty list.
 *   Nothing outstanding: fence, quiet, ctx forms and pe_quiet on every PE return.
 *   First contact: right after init, before any collective, PE 0 puts to every PE, quiets and
 *          reads every block back. Over tcp a target acknowledges PE 0's puts through an
 *          endpoint of its own to PE 0, which it creates for that: it has sent nothing yet.
 *
 * The spin reads the local flag with shmem_int_g(&flag, my_pe), a local load through the library
 * (no wait_until yet), with sched_yield for oversubscribed runs; it gives up after 30 s with a
 * message (lost data or missing progress). */
#include "common.h"
#include <stdatomic.h>

#define MiB ((size_t)1 << 20)
#define FENCE_ITERS 200
#define QUIET_ITERS 100
#define PE_QUIET_ITERS 100

static int me, npes, right, left;
static unsigned char *block;  /* symmetric, 1 MiB: the data */
static unsigned char *source; /* private, 1 MiB */
static unsigned char *readback;
static int bss_flags[2];   /* symmetric .bss flag and acknowledgement */
static int *flag, *ack;    /* the pair in use: bss_flags or a heap pair */
static int *heap_flags;
static int seq;       /* flag/ack value of the current iteration, same sequence on every PE */

static size_t iter_size(int i) {
    static const size_t sizes[] = {8, 1024, 64 * 1024, 4096 + 3};
    return i % 16 == 15 ? MiB : sizes[i % 4];
}

/* Sends the data block to the right neighbour in up to four pieces (put or put_nbi). */
static void send_block(size_t size, uint32_t tag, int nbi) {
    fill_bytes(source, size, me, tag);
    size_t piece = size >= 4 ? size / 4 : size, done = 0;
    while (done < size) {
        size_t len = size - done < piece ? size - done : piece;
        if (nbi) shmem_putmem_nbi(block + done, source + done, len, right);
        else shmem_putmem(block + done, source + done, len, right);
        done += len;
    }
}

/* Receiver side: wait for the flag of this iteration, check the block from the left neighbour,
 * acknowledge; then wait for the right neighbour's acknowledgement of our block. */
static void receive_and_ack(size_t size, uint32_t tag, const char *what, int i) {
    WAIT_INT_EQ(flag, seq, "%s iteration %d: flag from PE %d", what, i, left);
    atomic_thread_fence(memory_order_acquire);
    CHECK_BYTES(block, size, left, tag,
                "%s iteration %d: the flag from PE %d arrived before its data (%zu bytes)", what, i,
                left, size);
    shmem_int_p(ack, seq, left);
    WAIT_INT_EQ(ack, seq, "%s iteration %d: acknowledgement from PE %d", what, i, right);
}

/* The flags live in .bss for the fence test and on the heap for the others. (OSHMEM, used to
 * sanity-check these tests, only delivers to static data when the target calls into the
 * library, so there the heap is used throughout.) */
static void use_flags(int in_bss) {
    shmem_barrier_all();
    flag = in_bss && TEST_WITH_USHMEM ? &bss_flags[0] : &heap_flags[0];
    ack = in_bss && TEST_WITH_USHMEM ? &bss_flags[1] : &heap_flags[1];
    *flag = *ack = seq;
    shmem_barrier_all();
}

static void test_fence(void) {
    use_flags(1);
    for (int i = 0; i < FENCE_ITERS; ++i) {
        size_t size = iter_size(i);
        uint32_t tag = (uint32_t)(1000 + i);
        ++seq;
        send_block(size, tag, i % 3 == 2);
        if (i % 2) shmem_ctx_fence(SHMEM_CTX_DEFAULT);
        else shmem_fence();
        shmem_int_p(flag, seq, right);
        if (i % 3 == 2) shmem_quiet(); /* the nbi source is reused in the next iteration */
        receive_and_ack(size, tag, "fence", i);
    }
    shmem_barrier_all();
    NOTE("fence ordering, %d iterations: OK", FENCE_ITERS);
}

static void test_quiet(void) {
    use_flags(0);
    for (int i = 0; i < QUIET_ITERS; ++i) {
        size_t size = iter_size(i);
        uint32_t tag = (uint32_t)(2000 + i);
        int nbi = i % 2;
        ++seq;
        send_block(size, tag, nbi);
        if (i % 4 < 2) shmem_quiet();
        else shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
        /* Complete and visible: the initiator reads its own data back. */
        memset(readback, 0, size);
        shmem_getmem(readback, block, size, right);
        CHECK_BYTES(readback, size, me, tag,
                    "quiet iteration %d: data put to PE %d (%s) not visible after quiet", i, right,
                    nbi ? "put_nbi" : "put");
        shmem_int_p(flag, seq, right);
        receive_and_ack(size, tag, "quiet", i);
    }
    shmem_barrier_all();
    NOTE("quiet completion, %d iterations: OK", QUIET_ITERS);
}

#if TEST_WITH_USHMEM
/* OpenSHMEM 1.6 declares shmem_pe_quiet(const int *target_pes, size_t npes) and
 * shmem_ctx_pe_quiet(shmem_ctx_t, const int *, size_t). Call whichever form <shmem.h> declares,
 * so this test runs either way; the api_signatures test reports a header that differs. */
typedef void (*spec_pe_quiet_t)(const int *, size_t);
typedef void (*spec_ctx_pe_quiet_t)(shmem_ctx_t, const int *, size_t);
typedef void (*single_pe_quiet_t)(int);
typedef void (*single_ctx_pe_quiet_t)(shmem_ctx_t, int);
typedef void (*any_fn_t)(void);
#define HEADER_PE_QUIET_IS_SPEC _Generic(&shmem_pe_quiet, spec_pe_quiet_t: 1, default: 0)

static void pe_quiet_list(int use_ctx, const int *pes, size_t n) {
    /* Only the branch matching the declaration runs; the function pointers are held in
     * variables so that the compiler does not object to the other branch. */
    if (HEADER_PE_QUIET_IS_SPEC) {
        spec_pe_quiet_t f = (spec_pe_quiet_t)(any_fn_t)shmem_pe_quiet;
        spec_ctx_pe_quiet_t fc = (spec_ctx_pe_quiet_t)(any_fn_t)shmem_ctx_pe_quiet;
        if (use_ctx) fc(SHMEM_CTX_DEFAULT, pes, n);
        else f(pes, n);
    } else {
        single_pe_quiet_t f = (single_pe_quiet_t)(any_fn_t)shmem_pe_quiet;
        single_ctx_pe_quiet_t fc = (single_ctx_pe_quiet_t)(any_fn_t)shmem_ctx_pe_quiet;
        for (size_t k = 0; k < n; ++k) {
            if (use_ctx) fc(SHMEM_CTX_DEFAULT, pes[k]);
            else f(pes[k]);
        }
    }
}

static void test_pe_quiet(void) {
    use_flags(0);
    for (int i = 0; i < PE_QUIET_ITERS; ++i) {
        size_t size = iter_size(i);
        uint32_t tag = (uint32_t)(3000 + i);
        int nbi = i % 2;
        ++seq;
        send_block(size, tag, nbi);
        pe_quiet_list(i % 4 >= 2, &right, 1);
        memset(readback, 0, size);
        shmem_getmem(readback, block, size, right);
        CHECK_BYTES(readback, size, me, tag,
                    "pe_quiet iteration %d: data put to PE %d (%s) not visible after "
                    "shmem_%spe_quiet(PE %d)",
                    i, right, nbi ? "put_nbi" : "put", i % 4 >= 2 ? "ctx_" : "", right);
        shmem_int_p(flag, seq, right);
        receive_and_ack(size, tag, "pe_quiet", i);
    }
    shmem_barrier_all();

    /* To every PE, including the own: slot [me] of PE pe, completed by pe_quiet(pe). */
    const size_t blk = 4096;
    CHECK((size_t)npes * blk <= MiB, "too many PEs");
    for (int round = 0; round < 4; ++round) {
        uint32_t tag = (uint32_t)(4000 + round);
        for (int pe = 0; pe < npes; ++pe) {
            fill_bytes(source, blk, me, tag + 100u * (uint32_t)pe);
            if (round % 2) shmem_putmem_nbi(block + (size_t)me * blk, source, blk, pe);
            else shmem_putmem(block + (size_t)me * blk, source, blk, pe);
            pe_quiet_list(round >= 2, &pe, 1);
            memset(readback, 0, blk);
            shmem_getmem(readback, block + (size_t)me * blk, blk, pe);
            CHECK_BYTES(readback, blk, me, tag + 100u * (uint32_t)pe,
                        "round %d: slot on PE %d not visible after pe_quiet(PE %d)", round, pe, pe);
        }
        shmem_barrier_all();
        for (int pe = 0; pe < npes; ++pe)
            CHECK_BYTES(block + (size_t)pe * blk, blk, pe, tag + 100u * (uint32_t)me,
                        "round %d: slot written by PE %d", round, pe);
        shmem_barrier_all();
    }

    /* One pe_quiet over a list of all PEs completes put_nbi to all of them. */
    int *all = malloc(sizeof(int) * (size_t)npes);
    CHECK(all, "malloc");
    for (int pe = 0; pe < npes; ++pe) all[pe] = (pe + me) % npes; /* any order */
    unsigned char *srcs = malloc((size_t)npes * blk);
    CHECK(srcs, "malloc");
    uint32_t tag = 5000;
    for (int pe = 0; pe < npes; ++pe) {
        fill_bytes(srcs + (size_t)pe * blk, blk, me, tag + (uint32_t)pe);
        shmem_putmem_nbi(block + (size_t)me * blk, srcs + (size_t)pe * blk, blk, pe);
    }
    pe_quiet_list(0, all, (size_t)npes);
    memset(srcs, 0x5A, (size_t)npes * blk); /* sources reusable after completion */
    shmem_barrier_all();
    for (int pe = 0; pe < npes; ++pe)
        CHECK_BYTES(block + (size_t)pe * blk, blk, pe, tag + (uint32_t)me,
                    "slot written by PE %d, completed by pe_quiet on all PEs", pe);
    /* An empty list returns at once; a list is not modified. */
    pe_quiet_list(0, NULL, 0);
    pe_quiet_list(1, all, 0);
    for (int pe = 0; pe < npes; ++pe)
        CHECK_EQ_INT((pe + me) % npes, all[pe], "target_pes array modified by pe_quiet");
    shmem_barrier_all();
    free(srcs);
    free(all);
    NOTE("pe_quiet, %d iterations and all-PE rounds: OK", PE_QUIET_ITERS);
}
#endif

static void test_nothing_outstanding(void) {
    shmem_quiet();
    shmem_fence();
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    shmem_ctx_fence(SHMEM_CTX_DEFAULT);
    shmem_quiet();
    shmem_quiet();
#if TEST_WITH_USHMEM
    for (int pe = 0; pe < npes; ++pe) {
        pe_quiet_list(0, &pe, 1);
        pe_quiet_list(1, &pe, 1);
    }
#endif
    shmem_barrier_all();
    NOTE("fence/quiet with nothing outstanding: OK");
}

#define FIRST_N 64
static long first_contact[FIRST_N]; /* symmetric .bss */

static void test_first_contact_put(void) {
    if (me != 0) return;
    long v[FIRST_N], back[FIRST_N];
    for (int pe = 0; pe < npes; ++pe) {
        for (int k = 0; k < FIRST_N; ++k) v[k] = 1000L * pe + k + 1;
        shmem_long_put(first_contact, v, FIRST_N, pe);
    }
    shmem_quiet();
    for (int pe = 0; pe < npes; ++pe) {
        shmem_long_get(back, first_contact, FIRST_N, pe);
        for (int k = 0; k < FIRST_N; ++k)
            CHECK(back[k] == 1000L * pe + k + 1, "first contact: PE %d element %d is %ld after the quiet", pe, k,
                  back[k]);
    }
}

/* After a barrier: every PE holds what PE 0 put. */
static void test_first_contact_check(void) {
    for (int k = 0; k < FIRST_N; ++k)
        CHECK(first_contact[k] == 1000L * me + k + 1, "first contact: element %d is %ld", k, first_contact[k]);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    test_first_contact_put(); /* first: before any collective has connected the PEs */
    block = shmem_malloc(MiB);
    heap_flags = shmem_calloc(2, sizeof(int));
    source = malloc(MiB);
    readback = malloc(MiB);
    CHECK(block && heap_flags && source && readback, "allocation");
    test_first_contact_check();

    test_nothing_outstanding();
    test_fence();
    test_quiet();
#if TEST_WITH_USHMEM
    test_pe_quiet();
#endif
    test_nothing_outstanding();

    shmem_barrier_all();
    shmem_free(heap_flags);
    shmem_free(block);
    free(source);
    free(readback);
    printf("[PE %d] order: OK\n", me);
    shmem_finalize();
    return 0;
}
