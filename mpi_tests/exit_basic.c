/* exit_basic: the smallest complete program, for start-up and shutdown.
 *
 * Usage: exit_basic [--no-finalize | --status N]
 *
 *   (no option)     shmem_init, a put to the right neighbour, shmem_barrier_all, check,
 *                   shmem_finalize, return 0. Registered as well in a loop of many consecutive
 *                   runs: start-up and shutdown must be reliable, not merely usually work.
 *   --no-finalize   the same without shmem_finalize: the library finalises at exit and the job
 *                   must still end cleanly with status 0.
 *   --status N      as the first, then return N from main: the library must not change the
 *                   program's exit status. */
#include "common.h"

static long slot[2];

int main(int argc, char **argv) {
    int finalize = 1, status = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--no-finalize") == 0) finalize = 0;
        else if (strcmp(argv[i], "--status") == 0 && i + 1 < argc) status = atoi(argv[++i]);
        else CHECK_NOSHMEM(0, "unknown argument '%s'", argv[i]);
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int left = (me + n - 1) % n;
    shmem_long_p(&slot[0], 1000 + me, (me + 1) % n); /* endpoints are in use at shutdown */
    shmem_barrier_all();
    CHECK(slot[0] == 1000 + left, "slot written by PE %d: expected %d, got %ld", left, 1000 + left,
          slot[0]);
    if (finalize) shmem_finalize();
    if (me == 0)
        printf("exit_basic: %d PEs, %s, returning %d\n", n,
               finalize ? "finalized" : "exiting without shmem_finalize", status);
    return status;
}
