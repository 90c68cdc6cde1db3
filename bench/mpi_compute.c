/* Computing-target benchmark, MPI side (bench/compute_common.h has the method): MPI_Put 8 B +
 * MPI_Win_flush, MPI_Get + MPI_Win_flush and MPI_Fetch_and_op(MPI_SUM) + MPI_Win_flush from rank 0
 * to the last rank of a window from MPI_Win_allocate under MPI_Win_lock_all, while that rank
 * computes without calling MPI and while it waits in MPI_Barrier (idle).
 *
 *   UCX_TLS=tcp,self mpirun --mca osc ucx -np 2 ./bench_mpi_compute [--quick|--smoke] [-t put_lat,..]
 */
#define _GNU_SOURCE
#include <mpi.h>

#include "compute_common.h"

static MPI_Win g_win;
static long *g_words; /* the window: CX_NWORDS words (compute_common.h) */
static volatile long g_sink; /* keeps the fetched values alive */
static int g_me, g_np;

static int cx_rank(void) { return g_me; }
static int cx_nprocs(void) { return g_np; }
static void cx_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }

static void cx_op(int test, long seq)
{
    const int pe = g_np - 1;
    long v = 0;
    const long one = 1;
    switch (test) {
    case CX_PUT: MPI_Put(&seq, 1, MPI_LONG, pe, CX_W_PUT, 1, MPI_LONG, g_win); break;
    case CX_GET: MPI_Get(&v, 1, MPI_LONG, pe, CX_W_GET, 1, MPI_LONG, g_win); break;
    case CX_FADD: MPI_Fetch_and_op(&one, &v, MPI_LONG, pe, CX_W_FADD, MPI_SUM, g_win); break;
    }
    MPI_Win_flush(pe, g_win);
    g_sink += v;
}

static long cx_read_word(int word)
{
    long have = 0;
    MPI_Get(&have, 1, MPI_LONG, g_np - 1, word, 1, MPI_LONG, g_win);
    MPI_Win_flush(g_np - 1, g_win);
    return have;
}

int main(int argc, char **argv)
{
    struct cx_opts o;
    int prc = cx_parse(argc, argv, &o);
    if (prc) return prc > 0 ? 0 : 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_me);
    MPI_Comm_size(MPI_COMM_WORLD, &g_np);
    if (g_np < 2) {
        if (g_me == 0) fprintf(stderr, "%s: needs 2 ranks or more\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    MPI_Win_allocate(CX_NWORDS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &g_words, &g_win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, g_win);
    g_words[CX_W_PUT] = g_words[CX_W_FADD] = 0;
    g_words[CX_W_GET] = CX_GET_VALUE;
    MPI_Win_sync(g_win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_me == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
        int len = 0;
        MPI_Get_library_version(lib, &len);
        lib[strcspn(lib, ",\n")] = 0;
        printf("INFO impl=mpi lib=\"%s\" npes=%d mode=%s compute_ms=%.0f reps=%d\n", lib, g_np, o.mode, o.compute_ms,
               o.reps);
        fflush(stdout);
    }
    int errors = cx_main(&o);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock_all(g_win);
    MPI_Win_free(&g_win);
    MPI_Finalize();
    return errors ? 1 : 0;
}
