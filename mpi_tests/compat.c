/* Corner cases that public OpenSHMEM test suites exercise (found building the SOS tests with
 * ushmemcc): shmem_ctx_quiet / shmem_ctx_fence on SHMEM_CTX_INVALID are specified as no
 * operation, and zero-length transfers and collectives may pass NULL buffers. */
#include "common.h"

int main(void) {
    shmem_init();
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    int right = (shmem_my_pe() + 1) % shmem_n_pes();
    shmem_putmem(NULL, NULL, 0, right);
    shmem_getmem(NULL, NULL, 0, right);
    shmem_putmem_nbi(NULL, NULL, 0, right);
    shmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_int_iput(NULL, NULL, 1, 1, 0, right);
    shmem_int_iget(NULL, NULL, 1, 1, 0, right);
    shmem_quiet();
    CHECK(shmem_int_broadcast(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0) == 0, "zero-length broadcast");
    CHECK(shmem_int_collect(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "zero-length collect");
    CHECK(shmem_int_fcollect(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "zero-length fcollect");
    CHECK(shmem_int_alltoall(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "zero-length alltoall");
    CHECK(shmem_int_alltoalls(SHMEM_TEAM_WORLD, NULL, NULL, 1, 1, 0) == 0, "zero-length alltoalls");
    CHECK(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "zero-length sum_reduce");
    CHECK(shmem_int_max_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "zero-length max_reduce");
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
