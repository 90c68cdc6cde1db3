/* Computing-target benchmark, OpenSHMEM side (bench/compute_common.h has the method): 8 B
 * shmem_putmem + shmem_quiet, shmem_getmem and shmem_long_atomic_fetch_add from PE 0 to the last
 * PE, while that PE computes without calling the library and while it waits in
 * shmem_barrier_all (idle). Only <shmem.h> (OpenSHMEM 1.4), so the same source builds against
 * ushmem (CMake target bench_shmem_compute) and Open MPI's OSHMEM (`oshcc -O2`).
 *
 *   UCX_TLS=tcp,self mpirun -np 2 ./bench_shmem_compute [--quick|--smoke] [-t put_lat,..]
 */
#define _GNU_SOURCE
#include <shmem.h>

#include "compute_common.h"

static long *g_words; /* symmetric: CX_NWORDS words (compute_common.h) */
static volatile long g_sink; /* keeps the fetched values alive */

static int cx_rank(void) { return shmem_my_pe(); }
static int cx_nprocs(void) { return shmem_n_pes(); }
static void cx_barrier(void) { shmem_barrier_all(); }

static void cx_op(int test, long seq)
{
    const int pe = shmem_n_pes() - 1;
    switch (test) {
    case CX_PUT:
        shmem_putmem(&g_words[CX_W_PUT], &seq, sizeof seq, pe);
        shmem_quiet();
        break;
    case CX_GET: {
        long v;
        shmem_getmem(&v, &g_words[CX_W_GET], sizeof v, pe);
        g_sink += v;
        break;
    }
    case CX_FADD: g_sink += shmem_long_atomic_fetch_add(&g_words[CX_W_FADD], 1, pe); break;
    }
}

static long cx_read_word(int word) { return shmem_long_g(&g_words[word], shmem_n_pes() - 1); }

int main(int argc, char **argv)
{
    struct cx_opts o;
    int prc = cx_parse(argc, argv, &o);
    if (prc) return prc > 0 ? 0 : 2;
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "%s: needs 2 PEs or more\n", argv[0]);
        shmem_finalize();
        return 2;
    }
    g_words = shmem_malloc(CX_NWORDS * sizeof(long));
    if (!g_words) {
        fprintf(stderr, "pe %d: shmem_malloc failed\n", me);
        shmem_global_exit(3);
    }
    g_words[CX_W_PUT] = g_words[CX_W_FADD] = 0;
    g_words[CX_W_GET] = CX_GET_VALUE;
    shmem_barrier_all();
    if (me == 0) {
        char name[SHMEM_MAX_NAME_LEN + 1] = {0};
        shmem_info_get_name(name);
        printf("INFO impl=shmem lib=\"%s\" npes=%d mode=%s compute_ms=%.0f reps=%d\n", name, npes, o.mode,
               o.compute_ms, o.reps);
        fflush(stdout);
    }
    int errors = cx_main(&o);
    shmem_barrier_all();
    shmem_free(g_words);
    shmem_finalize();
    return errors ? 1 : 0;
}
