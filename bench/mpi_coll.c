/* The MPI equivalents of bench/shmem_coll.c, measured the same way (bench/coll_common.h):
 * MPI_Barrier, MPI_Bcast (bytes, root 0), MPI_Allreduce (MPI_DOUBLE, MPI_SUM), MPI_Allgather
 * (bytes per process) and MPI_Alltoall (bytes per block) on MPI_COMM_WORLD; alltoalls: MPI_Alltoall of
 * MPI_INT64_T blocks into a receive type of every other element (a vector resized to the block's
 * span), the strided layout of shmem_int64_alltoalls with dest stride 2; getall: MPI_Get of each
 * block + MPI_Win_flush of its target, from every other process in turn (a window over the source,
 * passive target, made only when getall runs).
 *
 *   mpirun -np 4 ./bench_mpi_coll [--quick] ...   (see --help)
 */
#define _GNU_SOURCE
#include <mpi.h>

#include "coll_common.h"

static int me, np;
static char *src, *dst;
static MPI_Win win = MPI_WIN_NULL; /* getall's */

/* The receive type of alltoalls for n64 elements per block, made once per size (the jobs of one
 * size run back to back). */
static MPI_Datatype t_strided = MPI_DATATYPE_NULL;
static MPI_Datatype strided_type(int n64) {
    static int made = -1;
    if (made != n64) {
        if (t_strided != MPI_DATATYPE_NULL) MPI_Type_free(&t_strided);
        MPI_Datatype v;
        MPI_Type_vector(n64, 1, CB_STRIDE, MPI_INT64_T, &v);
        MPI_Type_create_resized(v, 0, (MPI_Aint)n64 * CB_STRIDE * 8, &t_strided);
        MPI_Type_free(&v);
        MPI_Type_commit(&t_strided);
        made = n64;
    }
    return t_strided;
}

static int cb_rank(void) { return me; }
static int cb_nprocs(void) { return np; }
static void cb_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
static double cb_sum(double mine) {
    double r;
    MPI_Allreduce(&mine, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return r;
}
static double cb_max(double mine) {
    double r;
    MPI_Allreduce(&mine, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return r;
}

static void cb_op(int test, size_t size, long i) {
    const int cnt = (int)size, n64 = (int)(size / 8 ? size / 8 : 1);
    (void)i;
    switch (test) {
    case CB_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case CB_BCAST: MPI_Bcast(me == 0 ? src : dst, cnt, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case CB_REDUCE: MPI_Allreduce(src, dst, n64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case CB_FCOLLECT: MPI_Allgather(src, cnt, MPI_BYTE, dst, cnt, MPI_BYTE, MPI_COMM_WORLD); break;
    case CB_ALLTOALL: MPI_Alltoall(src, cnt, MPI_BYTE, dst, cnt, MPI_BYTE, MPI_COMM_WORLD); break;
    case CB_ALLTOALLS: MPI_Alltoall(src, n64, MPI_INT64_T, dst, 1, strided_type(n64), MPI_COMM_WORLD); break;
    case CB_GETALL:
        for (int k = 1; k < np; ++k) {
            const int p = (me + k) % np;
            MPI_Get(dst + (size_t)p * size, cnt, MPI_BYTE, p, (MPI_Aint)me * (MPI_Aint)size, cnt, MPI_BYTE, win);
            MPI_Win_flush(p, win);
        }
        break;
    case CB_PINGPONG: {
        const int peer = cb_pp_partner(me, np);
        if (peer < 0) break;
        for (int k = 0; k < 2 * CB_PP_TRIPS; ++k) {
            if ((k & 1) == (me > peer)) MPI_Send(src, cnt, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
            else MPI_Recv(dst, cnt, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        break;
    }
    }
}

static unsigned char pat(int pe, size_t j, size_t k) { return (unsigned char)(pe * 31 + (int)j * 7 + (int)(k % 251)); }

static int check(int test, size_t size) {
    size_t n64 = size / 8 ? size / 8 : 1;
    if (test == CB_BARRIER) return 0;
    if (test == CB_REDUCE) {
        for (size_t k = 0; k < n64; ++k) ((double *)src)[k] = me + (double)(k % 7);
    } else if (test == CB_ALLTOALLS) {
        cb_fill_alltoalls(src, np, me, n64);
    } else {
        for (int j = 0; j < np; ++j)
            for (size_t k = 0; k < size; ++k) src[(size_t)j * size + k] = (char)pat(me, (size_t)j, k);
    }
    memset(dst, 0, size * (size_t)np * CB_STRIDE);
    if (test == CB_GETALL) { /* one-sided: every source filled (and synced into the window) first */
        MPI_Win_sync(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    cb_op(test, size, 0);
    if (test == CB_GETALL) MPI_Barrier(MPI_COMM_WORLD);
    int bad = 0;
    switch (test) {
    case CB_BCAST:
        if (me != 0)
            for (size_t k = 0; k < size && !bad; ++k) bad = (unsigned char)dst[k] != pat(0, 0, k);
        break;
    case CB_REDUCE:
        for (size_t k = 0; k < n64 && !bad; ++k)
            bad = ((double *)dst)[k] != (double)np * (np - 1) / 2 + (double)np * (double)(k % 7);
        break;
    case CB_FCOLLECT:
        for (int p = 0; p < np && !bad; ++p)
            for (size_t k = 0; k < size && !bad; ++k) bad = (unsigned char)dst[(size_t)p * size + k] != pat(p, 0, k);
        break;
    case CB_ALLTOALL:
    case CB_GETALL: /* (getall leaves its own block alone) */
        for (int p = 0; p < np && !bad; ++p)
            for (size_t k = 0; k < size && !bad && (test == CB_ALLTOALL || p != me); ++k)
                bad = (unsigned char)dst[(size_t)p * size + k] != pat(p, (size_t)me, k);
        break;
    case CB_ALLTOALLS: bad = cb_check_alltoalls(dst, np, me, n64); break;
    case CB_PINGPONG: { /* the partner's source, block 0 */
        const int peer = cb_pp_partner(me, np);
        for (size_t k = 0; k < size && peer >= 0 && !bad; ++k) bad = (unsigned char)dst[k] != pat(peer, 0, k);
        break;
    }
    }
    return bad;
}

int main(int argc, char **argv) {
    struct cb_opts o;
    const char *api = "mpi";
    int rc = cb_parse(argc, argv, &o, &api);
    if (rc) {
        if (rc > 0) cb_usage(argv[0], "");
        return rc > 0 ? 0 : 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t maxsize = 0;
    for (int s = 0; s < o.nsizes; ++s) maxsize = o.sizes[s] > maxsize ? o.sizes[s] : maxsize;
    src = malloc(maxsize * (size_t)np);
    dst = malloc(maxsize * (size_t)np * CB_STRIDE);
    if (!src || !dst) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(src, 1, maxsize * (size_t)np);
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(ver, &len);
    for (int i = 0; i < len; ++i)
        if (ver[i] == '\n' || ver[i] == ',') ver[i] = '\0';
    if (me == 0) printf("INFO impl=mpi lib=\"%s\" np=%d\n", ver, np);
    if (o.tests & (1u << CB_GETALL)) {
        MPI_Win_create(src, (MPI_Aint)(maxsize * (size_t)np), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    }
    rc = cb_main(&o, check, "mpi", api, "MPI collectives");
    if (win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }
    if (t_strided != MPI_DATATYPE_NULL) MPI_Type_free(&t_strided);
    free(src);
    free(dst);
    MPI_Finalize();
    return rc;
}
