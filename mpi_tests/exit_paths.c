/* exit_paths: how a job ends when its PEs do not all end it the ordinary way (issue #7).
 *
 * Usage: exit_paths MODE [ARGS]. Every PE first prints "exit_paths: PE p pid P job J"
 * (exit_paths.sh finds what the job left behind from them).
 *
 *   exit_wait VIA N   the last PE's main thread waits in shmem_long_wait_until for a flag nobody
 *                     sets, and calls exit(N) from a second thread (VIA thread) or from a SIGUSR1
 *                     handler that interrupts the wait (VIA signal). With N != 0 every other PE
 *                     waits for a flag nobody sets as well: the job must end with status N (not
 *                     hang in an implicit finalize). With N == 0 the others call shmem_finalize:
 *                     the exiting PE's implicit finalize meets theirs and the job ends with 0.
 *   exit_early S      every PE but 0 returns from main at once, without shmem_finalize; PE 0
 *                     stays busy outside the library for S seconds, then calls shmem_finalize.
 *                     Their implicit finalize waits for PE 0 and names it (USHMEM_FINALIZE_NOTICE),
 *                     or ends the job (USHMEM_WAIT_TIMEOUT).
 *   global_exit KIND  PE 0 calls shmem_global_exit(5) while every other PE is in KIND: wait (a
 *                     shmem_long_wait_until nobody satisfies), bcast (shmem_broadcastmem rooted at
 *                     PE 0, which never joins), sync (shmem_team_sync) or get (a loop of blocking
 *                     gets from PE 0). The job must end with status 5. With KIND all every PE
 *                     calls shmem_global_exit(5) at once, leaving a barrier: the job must still
 *                     end with 5 and leave nothing behind (exit_paths.sh --repeat: Open MPI's
 *                     mpirun crashed in about one such job in ten when every PE called MPI_Abort).
 *   fork              every PE forks a child that writes a byte to a pipe and calls exit(0); the
 *                     parent reads it and reaps the child, then the job puts, synchronizes and
 *                     checks: the child's exit must not have touched the parent's library state.
 *   fragment          (2 PEs, small heap) fill the heap with 64 KiB blocks, free every other one,
 *                     then ask for 192 KiB: less than the free bytes, more than the largest free
 *                     block. shmem_malloc returns NULL on every PE with a message saying so; the
 *                     heap then still works. */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

static long never;       /* a flag nobody sets */
static long ready;       /* global_exit: PEs about to block, counted on PE 0 */
static long ring[4];     /* puts between neighbours */
static char bcast_src[64], bcast_dst[64];
static long written_by_child; /* static data: may be shared memory (docs/user-guide.md) */

static atomic_int main_waiting;
static int exit_status;
static pthread_t main_thread;
static double main_cpu_at_wait; /* the main thread's CPU time when it started to wait */

static double thread_cpu_seconds(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void announce(void) {
    /* Open MPI names its shared-memory files after the job id (in hex). */
    const char *jobid = getenv("OMPI_MCA_ess_base_jobid");
    printf("exit_paths: PE %d pid %ld job %lx\n", shmem_my_pe(), (long)getpid(),
           jobid ? strtoul(jobid, NULL, 10) : 0ul);
    fflush(stdout);
}

/* A put to the right neighbour, checked after a barrier: endpoints are in use at the exit. */
static void ring_exchange(long tag) {
    int me = shmem_my_pe(), n = shmem_n_pes(), left = (me + n - 1) % n;
    shmem_long_p(&ring[0], tag + me, (me + 1) % n);
    shmem_barrier_all();
    CHECK(ring[0] == tag + left, "ring slot from PE %d: expected %ld, got %ld", left, tag + left, ring[0]);
    shmem_barrier_all(); /* everyone has checked before the next exchange reuses the slot */
}

static void on_usr1(int sig) {
    (void)sig;
    exit(exit_status); /* what some programs do on a signal; the library must cope */
}

static void *exiter(void *via_signal) {
    /* Until the main thread is in the wait's slow part: the library holds the program's
     * asynchronous signals only around the UCX calls of that part (its first spin is not covered;
     * docs/user-guide.md). A spinning wait gets there within 2 ms of CPU time: 50 ms of it is
     * proof; a wait that sleeps (the "block" policy of an oversubscribed node) uses almost no CPU,
     * and gets there within microseconds: half a second of wall time is then proof enough. */
    while (!atomic_load(&main_waiting)) sched_yield();
    clockid_t main_clock;
    CHECK(pthread_getcpuclockid(main_thread, &main_clock) == 0, "pthread_getcpuclockid");
    const double wall_start = thread_cpu_seconds(CLOCK_MONOTONIC);
    while (thread_cpu_seconds(main_clock) < main_cpu_at_wait + 0.05 &&
           thread_cpu_seconds(CLOCK_MONOTONIC) < wall_start + 0.5)
        sched_yield();
    printf("exit_paths: PE %d calling exit(%d) from %s while its main thread waits\n", shmem_my_pe(),
           exit_status, via_signal ? "a signal handler" : "a second thread");
    fflush(stdout);
    if (via_signal) pthread_kill(main_thread, SIGUSR1);
    else exit(exit_status);
    return NULL;
}

static int exit_wait(const char *via, int status) {
    int me = shmem_my_pe(), n = shmem_n_pes();
    ring_exchange(100);
    if (me == n - 1) {
        int signal = strcmp(via, "signal") == 0;
        CHECK(signal || strcmp(via, "thread") == 0, "exit_wait: VIA is thread or signal, not '%s'", via);
        exit_status = status;
        main_thread = pthread_self();
        if (signal) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_usr1;
            sigemptyset(&sa.sa_mask);
            CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction: %s", strerror(errno));
        }
        pthread_t t;
        CHECK(pthread_create(&t, NULL, exiter, signal ? (void *)1 : NULL) == 0, "pthread_create");
        main_cpu_at_wait = thread_cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
        atomic_store(&main_waiting, 1);
        shmem_long_wait_until(&never, SHMEM_CMP_NE, 0);
        FAIL("the wait for a flag nobody sets returned (never = %ld)", never);
    }
    if (status != 0) {
        shmem_long_wait_until(&never, SHMEM_CMP_NE, 0);
        FAIL("the wait for a flag nobody sets returned (never = %ld)", never);
    }
    shmem_finalize();
    printf("exit_paths: PE %d finalized while PE %d exited from inside a wait\n", me, n - 1);
    return 0;
}

static int exit_early(int seconds) {
    int me = shmem_my_pe();
    ring_exchange(200);
    if (me != 0) {
        printf("exit_paths: PE %d returning from main without shmem_finalize\n", me);
        fflush(stdout);
        return 0;
    }
    /* A PE that is late (computing): not a synchronization, the condition under test. */
    for (int i = 0; i < seconds * 10; ++i) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    shmem_finalize();
    printf("exit_paths: PE 0 finalized after %d s\n", seconds);
    return 0;
}

static int global_exit(const char *kind) {
    int me = shmem_my_pe(), n = shmem_n_pes();
    ring_exchange(300);
    if (strcmp(kind, "all") == 0) {
        shmem_barrier_all();
        if (me == 0) printf("exit_paths: every PE calling shmem_global_exit(5)\n");
        fflush(stdout);
        shmem_global_exit(5);
        FAIL("shmem_global_exit returned");
    }
    if (me == 0) {
        shmem_long_wait_until(&ready, SHMEM_CMP_EQ, n - 1);
        printf("exit_paths: PE 0 calling shmem_global_exit(5) while the other PEs are in %s\n", kind);
        fflush(stdout);
        shmem_global_exit(5);
        FAIL("shmem_global_exit returned");
    }
    shmem_long_atomic_inc(&ready, 0);
    shmem_quiet();
    if (strcmp(kind, "wait") == 0) {
        shmem_long_wait_until(&never, SHMEM_CMP_NE, 0);
    } else if (strcmp(kind, "bcast") == 0) {
        shmem_broadcastmem(SHMEM_TEAM_WORLD, bcast_dst, bcast_src, sizeof bcast_src, 0);
    } else if (strcmp(kind, "sync") == 0) {
        shmem_team_sync(SHMEM_TEAM_WORLD);
    } else if (strcmp(kind, "get") == 0) {
        while (shmem_long_g(&never, 0) == 0) {
        }
    } else {
        FAIL("global_exit: KIND is wait, bcast, sync or get, not '%s'", kind);
    }
    FAIL("%s returned although PE 0 never joined it", kind);
}

static int fork_child(void) {
    int me = shmem_my_pe();
    ring_exchange(400);
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
    fflush(stdout); /* or the child's exit flushes the parent's buffered lines a second time */
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* The child: nothing of OpenSHMEM (docs/user-guide.md), then an ordinary exit(). */
        written_by_child = 1;
        char c = 'x';
        ssize_t w = write(fds[1], &c, 1);
        exit(w == 1 ? 0 : 3);
    }
    close(fds[1]);
    char c = 0;
    CHECK(read(fds[0], &c, 1) == 1 && c == 'x', "reading the child's byte: %s", strerror(errno));
    close(fds[0]);
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child ended with %s %d",
          WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    /* What docs/user-guide.md warns about: the program's globals may be shared memory (the
     * default transports), and then a child's writes to them are the parent's. Shown, not checked:
     * it depends on the transport. */
    if (me == 0) printf("exit_paths: PE 0: the child's write to a global is %s the parent\n",
                        written_by_child ? "seen by" : "private to");
    /* The parent's library is intact: puts, barriers and the heap work. */
    ring_exchange(500);
    long *blk = shmem_malloc(sizeof(long));
    CHECK(blk != NULL, "shmem_malloc after the child's exit");
    shmem_long_p(blk, 600 + me, (me + 1) % shmem_n_pes());
    shmem_barrier_all();
    CHECK(*blk == 600 + (me + shmem_n_pes() - 1) % shmem_n_pes(), "heap put after fork: got %ld", *blk);
    shmem_free(blk);
    shmem_finalize();
    printf("exit_paths: PE %d: child %ld exited 0 without touching the library; puts and barriers OK\n",
           me, (long)pid);
    return 0;
}

static int fragment(void) {
    enum { block = 64 << 10, max_blocks = 4096 };
    static void *blocks[max_blocks];
    int me = shmem_my_pe(), n = shmem_n_pes(), count = 0;
    while (count < max_blocks && (blocks[count] = shmem_malloc(block)) != NULL) ++count;
    CHECK(count >= 8 && count < max_blocks, "filled the heap with %d blocks of %d bytes", count, block);
    for (int i = 1; i < count; i += 2) shmem_free(blocks[i]);
    /* Free: about count/2 blocks; the largest free block: one freed block (plus, if the last
     * block was freed, the tail of the heap smaller than a block). */
    size_t request = 3 * (size_t)block;
    printf("exit_paths: PE %d: %d blocks, every other one freed; asking for %zu bytes\n", me, count, request);
    fflush(stdout);
    void *big = shmem_malloc(request);
    CHECK(big == NULL, "shmem_malloc(%zu) with no free block that large returned %p", request, big);
    /* The heap still works: a block that fits lands in a hole, and puts into it arrive. */
    long *fit = shmem_malloc(block);
    CHECK(fit != NULL, "shmem_malloc(%d) with free blocks of that size returned NULL", block);
    fit[0] = -1;
    shmem_barrier_all();
    shmem_long_p(fit, 700 + me, (me + 1) % n);
    shmem_barrier_all();
    CHECK(fit[0] == 700 + (me + n - 1) % n, "put into the block after the failed request: got %ld", fit[0]);
    shmem_free(fit);
    for (int i = 0; i < count; i += 2) shmem_free(blocks[i]);
    void *again = shmem_malloc(request);
    CHECK(again != NULL, "shmem_malloc(%zu) after freeing every block returned NULL", request);
    shmem_free(again);
    shmem_finalize();
    printf("exit_paths: PE %d: fragmented request refused with NULL, heap usable after: OK\n", me);
    return 0;
}

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc >= 2, "usage: exit_paths MODE [ARGS]");
    const char *mode = argv[1];
    shmem_init();
    announce();
    if (strcmp(mode, "exit_wait") == 0 && argc == 4) return exit_wait(argv[2], atoi(argv[3]));
    if (strcmp(mode, "exit_early") == 0 && argc == 3) return exit_early(atoi(argv[2]));
    if (strcmp(mode, "global_exit") == 0 && argc == 3) return global_exit(argv[2]);
    if (strcmp(mode, "fork") == 0) return fork_child();
    if (strcmp(mode, "fragment") == 0) return fragment();
    FAIL("unknown mode or wrong arguments: '%s' (%d arguments)", mode, argc - 1);
}
