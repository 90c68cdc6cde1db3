/* CPU that a PE's threads use while the job idles: shmem_init, shmem_barrier_all, then the program
 * sleeps S seconds (nanosleep; no library call), shmem_barrier_all, shmem_finalize. With
 * --wait barrier, only PE 0 sleeps: every other PE waits those S seconds inside shmem_barrier_all
 * (what a PE costs the node while it waits for a slow one). Every PE reads
 * the CPU time of each of its threads (/proc/self/task/TID/schedstat, nanoseconds; utime+stime of
 * .../stat where schedstat is absent) and its voluntary context switches (wake-ups) just before and
 * just after the sleep, and prints the differences:
 *
 *   INFO pe=P task tid=.. name=".." role=main|newest|other cpu_ms=.. wakeups=..
 *   RESULT test=idle_threads size=0 src=peP dst=non_main value=N unit=threads
 *   RESULT test=idle_cpu_ms size=0 src=peP dst=newest|others|main value=.. unit=ms seconds=S
 *   RESULT test=idle_wakeups_per_s size=0 src=peP dst=newest|others value=.. unit=/s
 *   RESULT test=idle_cpu_pct size=0 src=peP dst=all value=.. unit=%   (all threads, % of one CPU)
 *   RESULT test=idle_rss_kb size=0 src=peP dst=rss|anon|shmem|hugetlb value=.. unit=kB
 * (the last from /proc/self/status at the end of the wait: VmRSS, RssAnon, RssShmem, HugetlbPages;
 * huge pages are not in VmRSS). With --wait barrier, PE 0's lines describe its sleep.
 *
 * "newest" is the non-main thread created last: ushmem starts its progress thread at the very end
 * of shmem_init (src/core/runtime.cpp), after MPI's and UCX's own threads, so with ushmem it is the
 * progress thread when one runs (USHMEM_PROGRESS_THREAD=off shows the job without it); "others"
 * sums the remaining non-main threads (UCX's async thread, Open MPI's and PMIx's progress threads).
 * Only <shmem.h> (OpenSHMEM 1.4): builds with oshcc too, for the same figures of Open MPI's OSHMEM.
 *
 *   UCX_TLS=tcp,self mpirun -np 2 ./bench_shmem_idle [--seconds S] [--smoke]
 */
#define _GNU_SOURCE
#include <shmem.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "smaps.h"

#define MAX_TASKS 256

struct task {
    long tid;
    char name[32];
    unsigned long long start; /* starttime (clock ticks since boot) */
    double cpu_ns;
    long wakeups;
};

static int read_file(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return 0;
}

static void read_task(struct task *t)
{
    char path[96], buf[2048];
    snprintf(path, sizeof path, "/proc/self/task/%ld/comm", t->tid);
    if (read_file(path, t->name, sizeof t->name) == 0) t->name[strcspn(t->name, "\n")] = '\0';
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", t->tid);
    unsigned long ut = 0, st = 0;
    if (read_file(path, buf, sizeof buf) == 0) {
        /* Fields after the ")" that closes the name: state is field 3; utime 14, stime 15, starttime 22. */
        char *p = strrchr(buf, ')');
        int field = 2;
        for (char *tok = p ? strtok(p + 1, " ") : NULL; tok; tok = strtok(NULL, " ")) {
            ++field;
            if (field == 14) ut = strtoul(tok, NULL, 10);
            if (field == 15) st = strtoul(tok, NULL, 10);
            if (field == 22) {
                t->start = strtoull(tok, NULL, 10);
                break;
            }
        }
    }
    snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", t->tid);
    if (read_file(path, buf, sizeof buf) == 0) t->cpu_ns = strtod(buf, NULL);
    else t->cpu_ns = (double)(ut + st) * 1e9 / (double)sysconf(_SC_CLK_TCK);
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", t->tid);
    t->wakeups = 0;
    if (read_file(path, buf, sizeof buf) == 0) {
        char *v = strstr(buf, "voluntary_ctxt_switches:");
        if (v) t->wakeups = strtol(v + strlen("voluntary_ctxt_switches:"), NULL, 10);
    }
}

static int list_tasks(struct task *ts)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_TASKS) {
        if (e->d_name[0] == '.') continue;
        memset(&ts[n], 0, sizeof ts[n]);
        ts[n].tid = strtol(e->d_name, NULL, 10);
        read_task(&ts[n]);
        ++n;
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    double seconds = 10;
    int in_barrier = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--smoke")) seconds = 1;
        else if (!strcmp(argv[i], "--wait") && i + 1 < argc && (!strcmp(argv[i + 1], "sleep") || !strcmp(argv[i + 1], "barrier")))
            in_barrier = !strcmp(argv[++i], "barrier");
        else if (!strcmp(argv[i], "--quick") || !strcmp(argv[i], "--no-table")) continue;
        else {
            printf("usage: %s [--seconds S (default 10)] [--smoke (1 s)] [--wait sleep|barrier]\n", argv[0]);
            return strcmp(argv[i], "-h") && strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    shmem_init();
    const int me = shmem_my_pe();
    const long main_tid = (long)getpid();
    static struct task before[MAX_TASKS], after[MAX_TASKS];
    shmem_barrier_all();
    const int nb = list_tasks(before);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!in_barrier || me == 0) {
        struct timespec left = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
        while (nanosleep(&left, &left) != 0 && errno == EINTR) {
        }
    }
    if (in_barrier) shmem_barrier_all();
    const int na = list_tasks(after);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double elapsed = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    /* The newest non-main thread: the latest start time, the larger thread id among equals. */
    long newest = -1;
    unsigned long long newest_start = 0;
    for (int i = 0; i < na; ++i)
        if (after[i].tid != main_tid && (newest < 0 || after[i].start > newest_start ||
                                         (after[i].start == newest_start && after[i].tid > newest))) {
            newest = after[i].tid;
            newest_start = after[i].start;
        }
    double cpu[3] = {0, 0, 0}; /* main, newest, others */
    long wake[3] = {0, 0, 0};
    int nthreads = 0;
    for (int i = 0; i < na; ++i) {
        const struct task *a = &after[i], *b = NULL;
        for (int j = 0; j < nb; ++j)
            if (before[j].tid == a->tid) b = &before[j];
        const double c = a->cpu_ns - (b ? b->cpu_ns : 0);
        const long w = a->wakeups - (b ? b->wakeups : 0);
        const int role = a->tid == main_tid ? 0 : a->tid == newest ? 1 : 2;
        static const char *const roles[3] = {"main", "newest", "other"};
        cpu[role] += c;
        wake[role] += w;
        nthreads += role != 0;
        printf("INFO pe=%d task tid=%ld name=\"%s\" role=%s cpu_ms=%.3f wakeups=%ld%s\n", me, a->tid, a->name,
               roles[role], c / 1e6, w, b ? "" : " (started during the sleep)");
    }
    printf("RESULT test=idle_threads size=0 src=pe%d dst=non_main value=%d unit=threads\n", me, nthreads);
    printf("RESULT test=idle_cpu_ms size=0 src=pe%d dst=newest value=%.3f unit=ms seconds=%g\n", me, cpu[1] / 1e6,
           seconds);
    printf("RESULT test=idle_cpu_ms size=0 src=pe%d dst=others value=%.3f unit=ms seconds=%g\n", me, cpu[2] / 1e6,
           seconds);
    printf("RESULT test=idle_cpu_ms size=0 src=pe%d dst=main value=%.3f unit=ms seconds=%g\n", me, cpu[0] / 1e6,
           seconds);
    printf("RESULT test=idle_wakeups_per_s size=0 src=pe%d dst=newest value=%.1f unit=/s\n", me,
           (double)wake[1] / seconds);
    printf("RESULT test=idle_wakeups_per_s size=0 src=pe%d dst=others value=%.1f unit=/s\n", me,
           (double)wake[2] / seconds);
    printf("RESULT test=idle_cpu_pct size=0 src=pe%d dst=all value=%.3f unit=%% seconds=%.3f wait=%s\n", me,
           (cpu[0] + cpu[1] + cpu[2]) / 1e7 / elapsed, elapsed, in_barrier ? (me ? "barrier" : "sleep+barrier") : "sleep");
    static const char *const rss_keys[4][2] = {{"VmRSS", "rss"}, {"RssAnon", "anon"}, {"RssShmem", "shmem"}, {"HugetlbPages", "hugetlb"}};
    for (int k = 0; k < 4; ++k)
        printf("RESULT test=idle_rss_kb size=0 src=pe%d dst=%s value=%ld unit=kB\n", me, rss_keys[k][1], status_kb(rss_keys[k][0]));
    fflush(stdout);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
