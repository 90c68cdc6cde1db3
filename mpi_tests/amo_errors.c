/* amo_errors: misuse of atomics, signals, point-to-point synchronization and locks, one per run
 * (registered through expect_error.sh, which checks the exit status and the message).
 *
 * Usage: amo_errors MODE
 *
 * Only PE 0 makes the erroneous call; the other PEs wait in shmem_barrier_all and are ended by
 * the library's abort. If the call returns, PE 0 says so and the program exits 0, which
 * expect_error.sh reports as a failure. Every mode must abort with "ushmem: ROUTINE (PE 0 of n):":
 *   misaligned_heap    shmem_long_atomic_fetch_add on a heap address that is not 8-byte aligned
 *   misaligned_static  shmem_int_atomic_inc on a static address that is not 4-byte aligned
 *   misaligned_remote  shmem_uint64_atomic_fetch_xor_nbi, misaligned, to the last PE
 *   amo_stack          shmem_int_atomic_set on a stack variable (not symmetric)
 *   amo_pe_n           shmem_long_atomic_fetch to PE n (out of range)
 *   wait_stack         shmem_int_wait_until on a stack variable (ivar must be symmetric)
 *   wait_bad_cmp       shmem_long_wait_until with comparison 42
 *   test_any_stack     shmem_long_test_any on a stack array
 *   sig_bad_op         shmem_putmem_signal with sig_op 7
 *   sig_misaligned     shmem_putmem_signal with a misaligned signal address
 *   signal_fetch_stack shmem_signal_fetch of a stack variable
 *   lock_stack         shmem_set_lock on a stack variable
 *   wait_timeout       shmem_long_wait_until that is never satisfied, with USHMEM_WAIT_TIMEOUT=1
 *                      set by the test: the message names the call and the time waited
 *   wait_timeout_traffic  the same while the other PEs keep putting to another word of PE 0 (over
 *                      tcp every put is a message that PE 0's wait serves, which restarts its
 *                      spin: the timeout must count from the wait's start, not the spin's) */
#include "common.h"

static char g_bytes[64] __attribute__((aligned(64)));

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 2, "usage: amo_errors MODE");
    const char *mode = argv[1];
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    char *heap = shmem_malloc(256);
    CHECK(heap, "shmem_malloc");
    memset(heap, 0, 256);
    shmem_barrier_all();
    if (me != 0) {
        /* For wait_timeout the other PEs stay out of the library (a barrier would time out too). */
        if (strcmp(mode, "wait_timeout") == 0) spin_for(30.0);
        /* Until the job is ended: far longer than the test's timeout. */
        if (strcmp(mode, "wait_timeout_traffic") == 0)
            for (long i = 1;; ++i) {
                shmem_long_p((long *)(heap + 128), i, 0);
                shmem_quiet();
            }
        shmem_barrier_all(); /* PE 0 aborts the job before reaching it */
        shmem_finalize();
        return 0;
    }
    long stack_long[4] = {0};
    int stack_int = 0;
    uint64_t stack_sig = 0;
    uint64_t fetched = 0;
    if (strcmp(mode, "misaligned_heap") == 0) {
        shmem_long_atomic_fetch_add((long *)(heap + 4), 1, 0);
    } else if (strcmp(mode, "misaligned_static") == 0) {
        shmem_int_atomic_inc((int *)(g_bytes + 2), 0);
    } else if (strcmp(mode, "misaligned_remote") == 0) {
        shmem_uint64_atomic_fetch_xor_nbi(&fetched, (uint64_t *)(heap + 12), 1, n - 1);
        shmem_quiet();
    } else if (strcmp(mode, "amo_stack") == 0) {
        shmem_int_atomic_set(&stack_int, 1, 0);
    } else if (strcmp(mode, "amo_pe_n") == 0) {
        (void)shmem_long_atomic_fetch((long *)heap, n);
    } else if (strcmp(mode, "wait_stack") == 0) {
        shmem_int_wait_until(&stack_int, SHMEM_CMP_EQ, 0);
    } else if (strcmp(mode, "wait_bad_cmp") == 0) {
        shmem_long_wait_until((long *)heap, 42, 0);
    } else if (strcmp(mode, "test_any_stack") == 0) {
        (void)shmem_long_test_any(stack_long, 4, NULL, SHMEM_CMP_EQ, 0);
    } else if (strcmp(mode, "sig_bad_op") == 0) {
        shmem_putmem_signal(heap, g_bytes, 8, (uint64_t *)(heap + 64), 1, 7, 0);
    } else if (strcmp(mode, "sig_misaligned") == 0) {
        shmem_putmem_signal(heap, g_bytes, 8, (uint64_t *)(heap + 68), 1, SHMEM_SIGNAL_SET, 0);
    } else if (strcmp(mode, "signal_fetch_stack") == 0) {
        (void)shmem_signal_fetch(&stack_sig);
    } else if (strcmp(mode, "lock_stack") == 0) {
        shmem_set_lock(&stack_long[0]);
    } else if (strcmp(mode, "wait_timeout") == 0 || strcmp(mode, "wait_timeout_traffic") == 0) {
        shmem_long_wait_until((long *)heap, SHMEM_CMP_EQ, 12345);
    } else {
        printf("amo_errors: unknown mode %s\n", mode);
        shmem_global_exit(2);
    }
    printf("[PE %d] amo_errors %s: the erroneous call returned; the library should have aborted\n",
           me, mode);
    fflush(stdout);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
