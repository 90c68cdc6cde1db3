/* err: erroneous uses that the library must diagnose, one per run (registered through
 * expect_error.sh, which checks the exit status and the message).
 *
 * Usage: err MODE
 *
 * Unless noted, only PE 0 makes the erroneous call; the other PEs wait in shmem_barrier_all and
 * are ended by the library's abort. If the erroneous call returns, PE 0 says so and the program
 * exits 0, which expect_error.sh reports as a failure (the job was expected to abort).
 *
 * Modes that must abort with a message "ushmem: ROUTINE (PE p of n): ...":
 *   put_stack          shmem_putmem to a stack address (not symmetric)
 *   ctx_put_stack      shmem_ctx_putmem to a stack address
 *   iput_stack         shmem_int_iput to a stack address
 *   put_pe_n           shmem_int_p to PE n (out of range)
 *   put_pe_neg         shmem_long_put to PE -1
 *   nbi_pe_n           shmem_putmem_nbi to PE n
 *   get_src_stack      shmem_getmem from a stack address (source not symmetric)
 *   g_src_stack        shmem_int_g from a stack address
 *   put_overrun        shmem_putmem whose destination range runs past the end of the heap
 *   team_ctx_amo_pe    shmem_ctx_long_atomic_add through a one-PE team's context to PE 1
 *   team_ctx_signal_pe shmem_ctx_signal_add likewise
 *   malloc_before_init shmem_malloc before shmem_init (every PE)
 *   put_after_finalize shmem_putmem after shmem_finalize (every PE)
 *   badenv             shmem_init with a malformed SHMEM_SYMMETRIC_SIZE (set by the test)
 *   global_exit        PE 0 calls shmem_global_exit(7): the job ends with status 7
 * Modes that must succeed (exit 0):
 *   get_dest_stack_ok  shmem_getmem into a stack buffer (a local destination may be anywhere)
 *   malloc_exhaust     shmem_malloc beyond SHMEM_SYMMETRIC_SIZE: NULL and a message, no abort
 *   malloc_huge        shmem_malloc((size_t)-1): NULL and a message, no abort */
#include "common.h"

static void returned(const char *mode) {
    printf("[PE %d] err %s: the erroneous call returned; the library should have aborted\n",
           shmem_my_pe(), mode);
    fflush(stdout);
}

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 2, "usage: err MODE");
    const char *mode = argv[1];

    if (strcmp(mode, "malloc_before_init") == 0) {
        void *p = shmem_malloc(100);
        printf("err %s: shmem_malloc before shmem_init returned %p; the library should have "
               "aborted\n",
               mode, p);
        return 0;
    }

    shmem_init(); /* "badenv" aborts in here */
    if (strcmp(mode, "badenv") == 0) {
        printf("[PE %d] err badenv: shmem_init accepted SHMEM_SYMMETRIC_SIZE=%s\n", shmem_my_pe(),
               getenv("SHMEM_SYMMETRIC_SIZE") ? getenv("SHMEM_SYMMETRIC_SIZE") : "(unset)");
        shmem_finalize();
        return 0;
    }

    int me = shmem_my_pe(), n = shmem_n_pes();
    int peer = (me + 1) % n;
    long *heap = shmem_malloc(1024 * sizeof(long));
    CHECK(heap, "shmem_malloc");
    long local[16] = {0};
    long stack_target[16] = {0};
    shmem_barrier_all();

    if (strcmp(mode, "get_dest_stack_ok") == 0) {
        for (int k = 0; k < 16; ++k) heap[k] = 100L * me + k;
        shmem_barrier_all();
        long dest[16] = {0}; /* on the stack: fine as the local destination of a get */
        shmem_getmem(dest, heap, sizeof dest, peer);
        for (int k = 0; k < 16; ++k)
            CHECK(dest[k] == 100L * peer + k, "element %d: expected %ld, got %ld", k,
                  100L * peer + k, dest[k]);
        shmem_long_get(dest, heap, 16, peer);
        shmem_barrier_all();
        printf("[PE %d] get into a stack buffer: OK\n", me);
        shmem_finalize();
        return 0;
    }
    if (strcmp(mode, "malloc_exhaust") == 0 || strcmp(mode, "malloc_huge") == 0) {
        size_t size = strcmp(mode, "malloc_exhaust") == 0 ? (size_t)128 << 20 : (size_t)-1;
        void *p = shmem_malloc(size);
        CHECK(p == NULL, "shmem_malloc(%zu) with a 64 MiB heap returned %p", size, p);
        /* The library goes on working. */
        long *q = shmem_malloc(4096);
        CHECK(q, "shmem_malloc(4096) after a failed request");
        shmem_long_p(q, me + 1, peer);
        shmem_barrier_all();
        CHECK(*q == (me + n - 1) % n + 1, "put after a failed shmem_malloc: got %ld", *q);
        shmem_free(q);
        printf("[PE %d] shmem_malloc(%zu) returned NULL and the library went on: OK\n", me, size);
        shmem_finalize();
        return 0;
    }
    if (strcmp(mode, "put_after_finalize") == 0) {
        shmem_barrier_all();
        shmem_finalize();
        shmem_putmem(heap, local, sizeof local, peer);
        printf("err %s: shmem_putmem after shmem_finalize returned; the library should have "
               "aborted\n",
               mode);
        return 0;
    }

    if (strncmp(mode, "team_ctx_", 9) == 0) {
        /* A team of PE 0 alone (collective split): through its context, PE 1 is outside the
         * team's numbering, for atomics and signals as for RMA. */
        shmem_team_t solo;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &solo);
        if (me == 0) {
            shmem_ctx_t ctx;
            CHECK(shmem_team_create_ctx(solo, 0, &ctx) == 0, "shmem_team_create_ctx");
            if (strcmp(mode, "team_ctx_amo_pe") == 0) shmem_ctx_long_atomic_add(ctx, heap, 1, 1);
            else if (strcmp(mode, "team_ctx_signal_pe") == 0) shmem_ctx_signal_add(ctx, (uint64_t *)heap, 1, 1);
            else FAIL("unknown mode '%s'", mode);
            returned(mode);
        }
    } else if (me == 0) {
        if (strcmp(mode, "put_stack") == 0) {
            shmem_putmem(stack_target, local, sizeof local, peer);
        } else if (strcmp(mode, "ctx_put_stack") == 0) {
            shmem_ctx_putmem(SHMEM_CTX_DEFAULT, stack_target, local, sizeof local, peer);
        } else if (strcmp(mode, "iput_stack") == 0) {
            shmem_int_iput((int *)stack_target, (const int *)local, 2, 1, 4, peer);
        } else if (strcmp(mode, "put_pe_n") == 0) {
            shmem_int_p((int *)heap, 1, n);
        } else if (strcmp(mode, "put_pe_neg") == 0) {
            shmem_long_put(heap, local, 4, -1);
        } else if (strcmp(mode, "nbi_pe_n") == 0) {
            shmem_putmem_nbi(heap, local, sizeof local, n);
            shmem_quiet();
        } else if (strcmp(mode, "get_src_stack") == 0) {
            shmem_getmem(local, stack_target, sizeof local, peer);
        } else if (strcmp(mode, "g_src_stack") == 0) {
            int v = shmem_int_g((const int *)stack_target, peer);
            printf("shmem_int_g returned %d\n", v);
        } else if (strcmp(mode, "put_overrun") == 0) {
            /* Starts inside a heap block, runs 128 MiB on: past the end of a 64 MiB heap. */
            size_t len = (size_t)128 << 20;
            unsigned char *big = malloc(len);
            CHECK(big, "malloc");
            shmem_putmem(heap, big, len, peer);
        } else if (strcmp(mode, "global_exit") == 0) {
            printf("[PE 0] calling shmem_global_exit(7)\n");
            fflush(stdout);
            shmem_global_exit(7);
        } else {
            FAIL("unknown mode '%s'", mode);
        }
        returned(mode);
    }
    shmem_barrier_all();
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
