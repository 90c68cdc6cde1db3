/* fault: one PE dies with SIGKILL while the others are busy; run by fault.sh, which checks that
 * the job ends quickly, names the dead PE and leaves nothing behind.
 *
 * Usage: fault PHASE [VICTIM]
 *   PHASE   rma         the others put + quiet and get to every PE (the victim included)
 *           atomics     the others fetch_add and compare_swap on every PE
 *           wait        the others wait for a flag that only the victim would set
 *           collective  everyone loops on broadcast + barrier; the victim dies between two
 *   VICTIM  the PE that kills itself (default: the last one), or "none": no PE kills itself, and
 *           every PE prints "fault: PE p running (PHASE)" after 200 iterations (wait: before it
 *           waits), so that a script can kill processes from outside (fault_host.sh kills a
 *           whole simulated host)
 *
 * Every PE prints "fault: PE p pid P job J" first (fault.sh uses them to find what the job left);
 * the victim prints "fault: PE v dies now" and raises SIGKILL after some iterations of the phase,
 * so it dies in the middle of the others' operations, not before them. The survivors loop until
 * the launcher or the library ends them; if the loop ever finishes (60 s), the program says so and
 * exits 3, which fault.sh reports as a failure. */
#include "common.h"

#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc >= 2, "usage: fault rma|atomics|wait|collective [VICTIM]");
    const char *phase = argv[1];
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int victim = argc < 3 ? n - 1 : strcmp(argv[2], "none") == 0 ? -1 : atoi(argv[2]);
    CHECK(victim >= -1 && victim < n, "victim %d out of range", victim);
    long *buf = shmem_calloc(1024, sizeof(long));
    static long flag, bcast_src[64], bcast_dst[64];
    CHECK(buf, "shmem_calloc");
    /* Open MPI names its shared-memory files after the job id (in hex). */
    const char *jobid = getenv("OMPI_MCA_ess_base_jobid");
    printf("fault: PE %d pid %ld job %lx\n", me, (long)getpid(), jobid ? strtoul(jobid, NULL, 10) : 0ul);
    fflush(stdout);
    shmem_barrier_all();

    long local[1024] = {0};
    double end = now_seconds() + 60;
    for (long it = 0; now_seconds() < end; ++it) {
        /* (Fewer iterations without a victim: a killed host's PEs stop wherever they are, and
         * over the network an iteration takes a thousand times longer than on the node. The wait
         * phase has a single iteration: everyone waits.) */
        if (victim < 0 && it == (strcmp(phase, "wait") == 0 ? 0 : 200)) {
            printf("fault: PE %d running (%s)\n", me, phase);
            fflush(stdout);
        }
        if (me == victim && it == 2000) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts); /* fault.sh measures from here to the job's end */
            printf("fault: PE %d dies now (%s) at %ld.%09ld\n", me, phase, (long)ts.tv_sec, ts.tv_nsec);
            fflush(stdout);
            raise(SIGKILL);
        }
        int t = (int)(it % n);
        if (strcmp(phase, "rma") == 0) {
            shmem_long_put(buf, local, 1024, t);
            shmem_quiet();
            shmem_long_get(local, buf, 16, t);
        } else if (strcmp(phase, "atomics") == 0) {
            shmem_long_atomic_fetch_add(&buf[0], 1, t);
            shmem_long_atomic_compare_swap(&flag, 0, 0, t);
        } else if (strcmp(phase, "wait") == 0) {
            if (me != victim) shmem_long_wait_until(&flag, SHMEM_CMP_NE, 0);
        } else if (strcmp(phase, "collective") == 0) {
            shmem_broadcastmem(SHMEM_TEAM_WORLD, bcast_dst, bcast_src, sizeof bcast_src, 0);
            shmem_barrier_all();
        } else {
            FAIL("unknown phase '%s'", phase);
        }
    }
    printf("fault: PE %d still running after 60 s: nothing ended the job\n", me);
    return 3;
}
