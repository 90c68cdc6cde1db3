/* fault_input: bad arguments to the families that mpi_tests/err.c and amo_errors.c do not
 * cover, one per run; each must end the job with "ushmem: ROUTINE (PE 0 of N): problem ...".
 *
 * Usage: fault_input MODE   (the modes are the rows of the table below; reliability.cmake
 * registers each with the message it expects). Only PE 0 makes the bad call; the others wait in
 * a barrier and are ended by the abort. If the call returns, PE 0 says so and exits 0, which
 * expect_error.sh reports as a failure. */
#include "common.h"

static long *heap;
static long stack_like[64]; /* replaced by a real stack array where the mode needs one */
static shmem_team_t dead_team;
static shmem_ctx_t dead_ctx;

static void bcast_stack(void) {
    long dst[8];
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, heap, 8, 0);
}
static void reduce_stack(void) {
    long dst[8];
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, heap, 8);
}
static void collect_stack(void) {
    long src[8] = {0};
    shmem_long_fcollect(SHMEM_TEAM_WORLD, heap, src, 1);
}
static void alltoall_pe_size(void) { shmem_long_alltoall(SHMEM_TEAM_WORLD, heap, heap + 64, (size_t)-1 / 16); }
static void get_nbi_pe_neg(void) { shmem_long_get_nbi(stack_like, heap, 1, -5); }
static void amo_pe_neg(void) { shmem_long_atomic_add(heap, 1, -1); }
static void signal_stack(void) {
    uint64_t sig = 0;
    shmem_putmem_signal(heap, stack_like, 8, &sig, 1, SHMEM_SIGNAL_SET, 1 % shmem_n_pes());
}
static void put_null(void) { shmem_putmem(NULL, stack_like, 64, 0); }
static void get_null_src(void) { shmem_getmem(stack_like, NULL, 64, 0); }
static void put_huge_count(void) { shmem_long_put(heap, stack_like, (size_t)-1 / 4, 0); }
static void iput_zero_stride(void) { shmem_long_iput(heap, stack_like, 0, 1, 4, 0); }
static void team_destroyed(void) { (void)shmem_team_n_pes(dead_team); shmem_team_sync(dead_team); }
static void ctx_destroyed(void) { shmem_ctx_long_p(dead_ctx, heap, 1, 0); }
static void free_twice(void) {
    void *p = shmem_malloc(64);
    shmem_free(p);
    shmem_free(p);
}

static const struct {
    const char *name;
    void (*call)(void);
    int collective; /* every PE makes the call (the others would wait in it otherwise) */
} modes[] = {
    {"bcast_stack", bcast_stack, 1},     {"reduce_stack", reduce_stack, 1},
    {"collect_stack", collect_stack, 1}, {"alltoall_huge", alltoall_pe_size, 1},
    {"get_nbi_pe_neg", get_nbi_pe_neg, 0}, {"amo_pe_neg", amo_pe_neg, 0},
    {"signal_stack", signal_stack, 0},   {"put_null", put_null, 0},
    {"get_null_src", get_null_src, 0},   {"put_huge_count", put_huge_count, 0},
    {"iput_zero_stride", iput_zero_stride, 0}, {"team_destroyed", team_destroyed, 0},
    {"ctx_destroyed", ctx_destroyed, 0}, {"free_twice", free_twice, 1},
};

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 2, "usage: fault_input MODE");
    shmem_init();
    heap = shmem_calloc(1024, sizeof(long));
    CHECK(heap, "shmem_calloc");
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0, &dead_team);
    shmem_team_destroy(dead_team);
    CHECK(shmem_ctx_create(0, &dead_ctx) == 0, "shmem_ctx_create");
    shmem_ctx_destroy(dead_ctx);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
        if (strcmp(argv[1], modes[i].name) != 0) continue;
        shmem_barrier_all();
        if (modes[i].collective || shmem_my_pe() == 0) modes[i].call();
        printf("[PE %d] fault_input %s: the erroneous call returned; the library should have "
               "aborted\n", shmem_my_pe(), argv[1]);
        fflush(stdout);
        shmem_barrier_all();
        shmem_finalize();
        return 0;
    }
    FAIL("unknown mode '%s'", argv[1]);
}
