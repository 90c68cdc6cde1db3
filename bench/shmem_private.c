/* ushmem's own private memory per PE (issue #50; docs/scale.md, "Private memory per added PE").
 *
 * MPI_Init first, so that MPI's own start-up is not counted; then shmem_init. Each PE measures
 *   init_malloc_b       bytes that shmem_init added to malloc's heap (glibc mallinfo2: uordblks +
 *                       hblkhd; it includes what MPI and UCX allocate for the calls shmem_init
 *                       makes, which varies by tens of kB from PE to PE and run to run)
 *   init_tables_b       bytes committed by ushmem's per-PE tables after shmem_init
 *                       (shmemx_peer_tables): they are mapped, not malloc'd, and the kernel commits
 *                       a page when ushmem first writes to a peer's entry, so mallinfo does not see
 *                       them
 *   init_private_b      init_malloc_b + init_tables_b
 *   init_own_malloc_b   with bench/malloc_attrib.c preloaded (else absent): the bytes ushmem's own
 *                       code malloc'd during shmem_init and still holds, without MPI's and UCX's
 *   init_own_private_b  init_own_malloc_b + init_tables_b: ushmem's own private memory
 *   sync_tables_b       the tables' committed bytes after one shmem_barrier_all (its partners
 *                       contacted)
 *   sync_own_private_b  ushmem's own private memory then (preloaded only)
 * Then PE 0 talks to every other PE (an 8 B put to each, then a quiet) while the others wait, and
 * measures again (all_*: since before shmem_init); per_talked_peer_b is its growth per peer since
 * the barrier (mallinfo's: UCX's endpoint and keys included), per_talked_peer_own_b that of
 * ushmem's own (its own malloc'd bytes and its tables).
 * The slope of init_*private_b between two PE counts is what each added PE of the job costs a PE.
 * PE 0 prints RESULT lines: mean (min, median, max too) over PEs of the per-PE figures, and PE 0's
 * all_* figures.
 *
 *   SHMEM_SYMMETRIC_SIZE=8M mpirun -np 16 --bind-to none ./bench_shmem_private
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "timing.h"

static double malloc_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (double)(mi.uordblks + mi.hblkhd);
}

static double tables_bytes(void)
{
    size_t committed = 0;
    shmemx_peer_tables(&committed, NULL);
    return (double)committed;
}

/* bench/malloc_attrib.c's count, when it is preloaded. */
static size_t (*g_own)(void);
static double own_bytes(void) { return g_own ? (double)g_own() : 0; }

enum { M_MALLOC, M_TABLES, M_PRIVATE, M_OWN, M_OWN_PRIVATE, M_SYNC_TABLES, M_SYNC_OWN_PRIVATE, NM };
static const char *const names[NM] = {"init_malloc_b",      "init_tables_b", "init_private_b",
                                      "init_own_malloc_b",  "init_own_private_b", "sync_tables_b",
                                      "sync_own_private_b"};
enum { A_MALLOC, A_TABLES, A_PRIVATE, A_OWN, A_OWN_PRIVATE, NA };
static const char *const all_names[NA] = {"all_malloc_b", "all_tables_b", "all_private_b", "all_own_malloc_b",
                                          "all_own_private_b"};
static long g_word;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    g_own = (size_t(*)(void))dlsym(RTLD_DEFAULT, "malloc_attrib_bytes");
    const double m0 = malloc_bytes(), o0 = own_bytes();
    shmem_init();
    double v[NM];
    v[M_MALLOC] = malloc_bytes() - m0;
    v[M_OWN] = own_bytes() - o0;
    v[M_TABLES] = tables_bytes();
    v[M_PRIVATE] = v[M_MALLOC] + v[M_TABLES];
    v[M_OWN_PRIVATE] = v[M_OWN] + v[M_TABLES];
    shmem_barrier_all();
    v[M_SYNC_TABLES] = tables_bytes();
    /* Where PE 0's talking starts from (its figures after the barrier). */
    const double sync_private = malloc_bytes() - m0 + v[M_SYNC_TABLES];
    const double sync_own_private = own_bytes() - o0 + v[M_SYNC_TABLES];
    v[M_SYNC_OWN_PRIVATE] = sync_own_private;
    const int me = shmem_my_pe(), npes = shmem_n_pes();

    /* Every PE's figures to PE 0 over MPI: nothing symmetric is allocated, which would add to
     * the figures of the talking phase. */
    double *all = me == 0 ? malloc(sizeof v * (size_t)npes) : NULL;
    MPI_Gather(v, NM, MPI_DOUBLE, all, NM, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    double a[NA] = {0};
    if (me == 0) {
        for (int pe = 1; pe < npes; ++pe) shmem_long_p(&g_word, 1, pe);
        shmem_quiet();
        a[A_MALLOC] = malloc_bytes() - m0;
        a[A_OWN] = own_bytes() - o0;
        a[A_TABLES] = tables_bytes();
        a[A_PRIVATE] = a[A_MALLOC] + a[A_TABLES];
        a[A_OWN_PRIVATE] = a[A_OWN] + a[A_TABLES];
    }
    shmem_barrier_all();
    if (me == 0) {
        printf("INFO impl=ushmem npes=%d bench=private own_malloc=%s\n", npes, g_own ? "counted" : "not preloaded");
        double *col = malloc(sizeof(double) * (size_t)npes);
        for (int m = 0; m < NM; ++m) {
            if (!g_own && (m == M_OWN || m == M_OWN_PRIVATE || m == M_SYNC_OWN_PRIVATE)) continue;
            double sum = 0;
            for (int pe = 0; pe < npes; ++pe) {
                col[pe] = all[pe * NM + m];
                sum += col[pe];
            }
            qsort(col, (size_t)npes, sizeof *col, cmp_double);
            /* The median too: a few PEs' malloc'd bytes vary from run to run (MPI's and UCX's
             * buffers grow with what arrives while they start), which moves the mean. */
            printf("RESULT test=%s size=%d src=- dst=- value=%.0f unit=B min=%.0f median=%.0f max=%.0f mean=%.0f\n",
                   names[m], npes, sum / npes, col[0], col[npes / 2], col[npes - 1], sum / npes);
        }
        free(col);
        for (int m = 0; m < NA; ++m)
            if (g_own || (m != A_OWN && m != A_OWN_PRIVATE))
                printf("RESULT test=%s size=%d src=0 dst=all value=%.0f unit=B\n", all_names[m], npes, a[m]);
        if (npes > 1) {
            printf("RESULT test=per_talked_peer_b size=%d src=0 dst=all value=%.0f unit=B\n", npes,
                   (a[A_PRIVATE] - sync_private) / (npes - 1));
            if (g_own)
                printf("RESULT test=per_talked_peer_own_b size=%d src=0 dst=all value=%.0f unit=B\n", npes,
                       (a[A_OWN_PRIVATE] - sync_own_private) / (npes - 1));
        }
        fflush(stdout);
    }
    free(all);
    shmem_finalize();
    MPI_Finalize();
    return 0;
}
