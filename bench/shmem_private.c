/* ushmem's own private memory per PE (issue #50; docs/scale.md, "Private memory per added PE").
 *
 * MPI_Init first, so that MPI's own start-up is not counted; then shmem_init. Each PE measures
 *   init_malloc_b   bytes that shmem_init added to malloc's heap (glibc mallinfo2: uordblks +
 *                   hblkhd; it includes what MPI allocates for the calls shmem_init makes)
 *   init_tables_b   bytes committed by ushmem's per-PE tables after shmem_init
 *                   (shmemx_peer_tables): they are mapped, not malloc'd, and the kernel commits a
 *                   page when ushmem first writes to a peer's entry, so mallinfo does not see them
 *   init_private_b  the sum: what shmem_init costs this PE in private memory
 * Then PE 0 talks to every other PE (an 8 B put to each, then a quiet) while the others wait, and
 * measures the same again (all_*: since before shmem_init). The slope of the mean init_private_b
 * between two PE counts is what each added PE of the job costs every PE; PE 0's
 * (all_private_b - init_private_b) / (npes - 1) is what each peer it talks to costs it (UCX's
 * endpoint and keys included).
 * PE 0 prints RESULT lines: the mean over PEs (max too) of the init figures, PE 0's all figures.
 *
 *   SHMEM_SYMMETRIC_SIZE=8M mpirun -np 16 --bind-to none ./bench_shmem_private
 */
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <malloc.h>
#include <stdio.h>

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

enum { M_MALLOC, M_TABLES, M_PRIVATE, NM };
static const char *const init_names[NM] = {"init_malloc_b", "init_tables_b", "init_private_b"};
static const char *const all_names[NM] = {"all_malloc_b", "all_tables_b", "all_private_b"};
static long g_word;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const double m0 = malloc_bytes();
    shmem_init();
    double v[NM];
    v[M_MALLOC] = malloc_bytes() - m0;
    v[M_TABLES] = tables_bytes();
    v[M_PRIVATE] = v[M_MALLOC] + v[M_TABLES];
    const int me = shmem_my_pe(), npes = shmem_n_pes();

    /* Every PE's init figures to PE 0 (MPI: nothing symmetric is allocated, which would add to
     * the figures of the talking phase). */
    double *all = me == 0 ? malloc(sizeof v * (size_t)npes) : NULL;
    MPI_Gather(v, NM, MPI_DOUBLE, all, NM, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    double a[NM] = {0, 0, 0};
    if (me == 0) {
        for (int pe = 1; pe < npes; ++pe) shmem_long_p(&g_word, 1, pe);
        shmem_quiet();
        a[M_MALLOC] = malloc_bytes() - m0;
        a[M_TABLES] = tables_bytes();
        a[M_PRIVATE] = a[M_MALLOC] + a[M_TABLES];
    }
    shmem_barrier_all();
    if (me == 0) {
        printf("INFO impl=ushmem npes=%d bench=private\n", npes);
        for (int m = 0; m < NM; ++m) {
            double sum = 0, mx = all[m];
            for (int pe = 0; pe < npes; ++pe) {
                sum += all[pe * NM + m];
                if (all[pe * NM + m] > mx) mx = all[pe * NM + m];
            }
            printf("RESULT test=%s size=%d src=- dst=- value=%.0f unit=B max=%.0f mean=%.0f\n", init_names[m], npes,
                   sum / npes, mx, sum / npes);
        }
        for (int m = 0; m < NM; ++m)
            printf("RESULT test=%s size=%d src=0 dst=all value=%.0f unit=B\n", all_names[m], npes, a[m]);
        if (npes > 1)
            printf("RESULT test=per_talked_peer_b size=%d src=0 dst=all value=%.0f unit=B\n", npes,
                   (a[M_PRIVATE] - all[M_PRIVATE]) / (npes - 1));
        fflush(stdout);
    }
    free(all);
    shmem_finalize();
    MPI_Finalize();
    return 0;
}
