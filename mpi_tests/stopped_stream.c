/* stopped_stream: a stream of blocking puts to a stopped PE must not grow its sender without end
 * (issue #48, item 4: over tcp 4 KiB puts grew the sender from 38 MiB to 3.3 GiB in 10 s, and
 * USHMEM_WAIT_TIMEOUT never fired, since no put ever waited).
 *
 * Usage: stopped_stream timeout|resume [RSS_GROWTH_MIB]   (2 PEs, UCX_TLS=tcp,self)
 *
 * PE 1 publishes its pid, then stops itself with SIGSTOP (all its threads, the progress thread
 * too: it acknowledges nothing, and reads nothing off its sockets). PE 0 waits until /proc says
 * it is stopped, then streams 4 KiB blocking puts into a ring of SLOTS slots on it, checking its
 * own resident size (/proc/self/statm) every few puts: more than RSS_GROWTH_MIB (default 256)
 * above where the stream began fails the job. What a put that reaches the in-flight bound
 * (USHMEM_INFLIGHT_MSGS, USHMEM_INFLIGHT_BYTES) does is to wait, so:
 *   timeout  the stream runs for up to STREAM_S seconds; with USHMEM_WAIT_TIMEOUT set below that
 *            the job must end with the timeout message naming PE 1 (expect_error.sh checks it).
 *            Still streaming after STREAM_S seconds: fails (no put waited).
 *   resume   a helper thread of PE 0 sends SIGCONT to PE 1 after STOP_S seconds (PE 0's own
 *            thread may be waiting in a put by then); the stream goes on for RESUME_S seconds
 *            more, then quiet, and PE 1 checks that every slot holds the last put to it: the job
 *            must complete normally. Prints the growth and the longest single put. */
#include "common.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#define SLOTS 256
#define PUT_BYTES 4096
#define STREAM_S 8.0
#define STOP_S 4.0
#define RESUME_S 2.0

static long pid_of = 0;  /* PE 1's pid, put to PE 0 before PE 1 stops (a get could meet it stopped) */
static long total = 0;   /* puts PE 0 made, put to PE 1 at the end (resume) */
static long ring[SLOTS][PUT_BYTES / sizeof(long)];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Resident bytes of this process. */
static double rss_mib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
        fclose(f);
    }
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

/* Whether process `pid` is stopped (state T in /proc/PID/stat; the PEs share a node here). */
static int is_stopped(long pid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    return p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
}

static void *resumer(void *arg) {
    /* A thread of its own: PE 0's main thread may be waiting inside a put when it is time. */
    struct timespec ts = {(time_t)STOP_S, 0};
    nanosleep(&ts, NULL);
    kill((pid_t)*(long *)arg, SIGCONT);
    return NULL;
}

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc >= 2 && (!strcmp(argv[1], "timeout") || !strcmp(argv[1], "resume")),
                  "usage: stopped_stream timeout|resume [RSS_GROWTH_MIB]");
    const int resume = !strcmp(argv[1], "resume");
    const double bound_mib = argc > 2 ? atof(argv[2]) : 256.0;
    shmem_init();
    const int me = shmem_my_pe();
    CHECK(shmem_n_pes() == 2, "needs 2 PEs");
    if (me == 1) {
        shmem_long_p(&pid_of, (long)getpid(), 0);
        shmem_quiet();
    }
    shmem_barrier_all();
    if (me == 1) {
        raise(SIGSTOP);
        /* resume: PE 0's SIGCONT. Its puts and the total are in once PE 0 reaches the barrier
         * (it quiets first). */
        shmem_barrier_all();
        long bad = 0;
        for (int s = 0; s < SLOTS; ++s) {
            /* The last put to slot s was number total - 1 - ((total - 1 - s) mod SLOTS). */
            const long want = total > s ? total - 1 - ((total - 1 - s) % SLOTS) : 0;
            for (size_t k = 0; k < PUT_BYTES / sizeof(long); ++k)
                if (ring[s][k] != want) ++bad;
        }
        CHECK(bad == 0, "%ld words of the ring differ from the last puts (%ld puts)", bad, total);
        shmem_barrier_all();
        shmem_finalize();
        return 0;
    }
    const long peer = pid_of;
    const double t_wait = now_s();
    while (!is_stopped(peer)) {
        CHECK(now_s() - t_wait < 10, "PE 1 (pid %ld) did not stop", peer);
        usleep(1000);
    }
    pthread_t th;
    if (resume) CHECK(pthread_create(&th, NULL, resumer, (void *)&peer) == 0, "pthread_create failed");
    static long src[PUT_BYTES / sizeof(long)];
    const double rss0 = rss_mib(), t0 = now_s();
    double rss_max = rss0, slowest = 0, t_end = t0 + (resume ? STOP_S + RESUME_S : STREAM_S);
    long i = 0;
    for (;; ++i) {
        for (size_t k = 0; k < PUT_BYTES / sizeof(long); ++k) src[k] = i;
        const double t = now_s();
        shmem_putmem(ring[i % SLOTS], src, PUT_BYTES, 1);
        const double t2 = now_s();
        if (t2 - t > slowest) slowest = t2 - t;
        if ((i & 63) == 0 || t2 - t > 0.01) {
            const double r = rss_mib();
            if (r > rss_max) rss_max = r;
            CHECK(r - rss0 < bound_mib,
                  "stopped_stream %s: resident size grew from %.1f to %.1f MiB (bound +%.0f) after %ld puts "
                  "in %.2f s to a stopped PE",
                  argv[1], rss0, r, bound_mib, i + 1, t2 - t0);
        }
        if (t2 >= t_end) break;
    }
    ++i; /* puts made */
    if (!resume) {
        printf("[PE 0] stopped_stream timeout: %ld puts to a stopped PE in %.1f s kept completing; expected "
               "USHMEM_WAIT_TIMEOUT to end the job (resident %.1f -> %.1f MiB)\n",
               i, now_s() - t0, rss0, rss_max);
        fflush(stdout);
        shmem_global_exit(1);
    }
    pthread_join(th, NULL);
    const double tq = now_s();
    shmem_quiet();
    total = i;
    shmem_long_p(&total, i, 1);
    shmem_quiet();
    const double quiet_s = now_s() - tq;
    shmem_barrier_all();  /* PE 1 checks the ring */
    shmem_barrier_all();
    printf("[PE 0] stopped_stream resume: OK, %ld puts of %d B; resident %.1f -> max %.1f MiB (+%.1f); "
           "longest put %.3f s; final quiet %.3f s\n",
           i, PUT_BYTES, rss0, rss_max, rss_max - rss0, slowest, quiet_s);
    fflush(stdout);
    shmem_finalize();
    return 0;
}
