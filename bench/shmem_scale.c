/* Scale benchmark: shmem_init wall time and per-PE memory, at any number of PEs.
 *
 * Only <shmem.h>, so the same source builds against ushmem (CMake target bench_shmem_scale) and
 * against Open MPI's OSHMEM (`oshcc -O2`). Each PE measures:
 *   init_us        wall time of shmem_init() on this PE (CLOCK_MONOTONIC around the call; it includes
 *                  MPI's start-up, which both libraries do inside shmem_init)
 *   init_cpu_us    CPU time of the process (every thread) over the same call: the work a PE does,
 *                  which with more PEs than cores is what the wall time adds up from (the mean
 *                  over PEs is reported, like the memory figures)
 *   rss_kb         VmRSS after init, minus the resident pages of the symmetric heap mapping
 *   anon_kb        RssAnon after init (private memory: the library's tables, UCX and MPI state)
 *   lib_anon_kb    RssAnon after init minus RssAnon before it: what initialisation allocated
 *   heap_rss_kb    resident kB of the heap mapping (Rss; hugetlb pages are not in VmRSS at all)
 *   hugetlb_kb     HugetlbPages (huge pages mapped: the heap and UCX's own segments)
 *   malloc_kb      bytes in use in malloc's heap after init (glibc mallinfo2: uordblks + hblkhd), the
 *                  private tables of the library, MPI and UCX; the slope of its mean over PE counts
 *                  is the private memory each added PE costs every PE (issue #50)
 *   *_all          the same after one 8 B put to every other PE and a quiet, which makes a library
 *                  with lazily created endpoints create all of them (O(peers talked to))
 * Why VmRSS minus the heap mapping's Rss: the heap is the user's data, sized by
 * SHMEM_SYMMETRIC_SIZE, not the library's cost. On 4 KiB pages a shared heap mapping's touched
 * pages are in RssShmem (and so in VmRSS); on huge pages (hugetlb) they are in neither, so
 * subtracting the mapping's own Rss is right in both cases. The heap mapping is the smaps entry
 * that holds a shmem_malloc'd address.
 * PE 0 prints RESULT lines with the maximum (init_us) and the mean and max over PEs (memory):
 *   RESULT test=init_us size=NPES value=.. unit=us max=.. mean=..
 *
 *   mpirun -np 16 ./bench_shmem_scale     (SHMEM_SYMMETRIC_SIZE / SMA_SYMMETRIC_SIZE small, e.g. 8M)
 */
#define _GNU_SOURCE
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smaps.h"

#include <malloc.h>

/* kB in use in malloc's heap (small blocks and mmapped large ones). */
static double malloc_kb(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (double)(mi.uordblks + mi.hblkhd) / 1024.0;
}

#define MAX_PES 1024
enum { M_INIT, M_INIT_CPU, M_RSS, M_ANON, M_LIB_ANON, M_HEAP_RSS, M_HUGETLB, M_RSS_ALL, M_ANON_ALL, M_MALLOC, NM };
static const char *const m_names[NM] = {"init_us",     "init_cpu_us", "rss_kb",     "anon_kb",    "lib_anon_kb", "heap_rss_kb",
                                        "hugetlb_kb", "rss_all_kb", "anon_all_kb", "malloc_kb"};
static double g_all[MAX_PES][NM]; /* PE 0 gathers every PE's figures here */
static long g_word;

static double clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}


/* Rss (kB) of the smaps mapping that holds addr; 0 when not found. */
static long mapping_rss_kb(const void *addr)
{
    long kb = smaps_field_kb(addr, "Rss");
    return kb < 0 ? 0 : kb;
}

int main(void)
{
    const long anon0 = status_kb("RssAnon");
    const double t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    shmem_init();
    const double t1 = clock_ns(CLOCK_MONOTONIC), c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes > MAX_PES) {
        if (me == 0) fprintf(stderr, "bench_shmem_scale: at most %d PEs (got %d)\n", MAX_PES, npes);
        shmem_global_exit(2);
    }
    long *heap = shmem_malloc(4096);
    if (!heap) {
        fprintf(stderr, "bench_shmem_scale: pe %d: shmem_malloc(4096) failed\n", me);
        shmem_global_exit(3);
    }
    heap[0] = me;
    shmem_barrier_all();
    double v[NM];
    v[M_INIT] = (t1 - t0) / 1e3;
    v[M_INIT_CPU] = (c1 - c0) / 1e3;
    v[M_HEAP_RSS] = (double)mapping_rss_kb(heap);
    v[M_RSS] = (double)status_kb("VmRSS") - v[M_HEAP_RSS];
    v[M_ANON] = (double)status_kb("RssAnon");
    v[M_LIB_ANON] = v[M_ANON] - (double)anon0;
    v[M_HUGETLB] = (double)status_kb("HugetlbPages");
    v[M_MALLOC] = malloc_kb();
    /* Talk to every PE once (an 8 B put each, one quiet): lazy endpoints and rkeys get created. */
    for (int k = 1; k < npes; ++k) shmem_long_p(&g_word, me, (me + k) % npes);
    shmem_quiet();
    shmem_barrier_all();
    v[M_RSS_ALL] = (double)status_kb("VmRSS") - (double)mapping_rss_kb(heap);
    v[M_ANON_ALL] = (double)status_kb("RssAnon");
    shmem_putmem(g_all[me], v, sizeof v, 0);
    shmem_quiet();
    shmem_barrier_all();
    if (me == 0) {
        char name[SHMEM_MAX_NAME_LEN + 1] = {0};
        shmem_info_get_name(name);
        printf("INFO impl=shmem lib=\"%s\" npes=%d bench=scale page_kb_heap_rss=%.0f\n", name, npes, v[M_HEAP_RSS]);
        for (int m = 0; m < NM; ++m) {
            double mx = g_all[0][m], sum = 0;
            for (int pe = 0; pe < npes; ++pe) {
                sum += g_all[pe][m];
                if (g_all[pe][m] > mx) mx = g_all[pe][m];
            }
            /* init: the job is ready when the slowest PE is; memory: the typical PE. */
            const double value = m == M_INIT ? mx : sum / npes;
            printf("RESULT test=%s size=%d src=- dst=- value=%.1f unit=%s max=%.1f mean=%.1f\n", m_names[m], npes,
                   value, m <= M_INIT_CPU ? "us" : "kB", mx, sum / npes);
        }
        fflush(stdout);
    }
    shmem_barrier_all();
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
