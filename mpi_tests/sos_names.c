/* Sandia OpenSHMEM's shmemx_ names (include/shmemx.h): each family once, with its data checked,
 * plus shmemx_wtime and the shmemx_pcntr_* performance counters.
 *
 * Usage: sos_names [pcntr]   "pcntr": run with USHMEM_STATS=1, the counters must count exactly;
 * without it (statistics off) every counter must read 0. */
#include "common.h"

#include <shmemx.h>

#define N 8

static long src[2 * N], dst[2 * N];
static uint64_t sig;
static long scan_in, scan_out;

static void check_pcntr(int counting, int me, int n) {
    shmemx_pcntr_t before, after;
    uint64_t v = 12345;
    shmemx_pcntr_get_all(SHMEM_CTX_DEFAULT, &before);
    int right = (me + 1) % n;
    long local[4] = {1, 2, 3, 4};
    /* 3 writes (2 puts, 1 non-fetching atomic) and 2 reads (1 get, 1 fetching atomic). */
    shmem_long_put(dst, local, 4, right);
    shmem_long_put_nbi(dst + 4, local, 4, right);
    shmem_long_atomic_add(&scan_in, 0, right);
    long got[4];
    shmem_long_get(got, src, 4, right);
    (void)shmem_long_atomic_fetch(&scan_in, right);
    shmemx_pcntr_get_issued_write(SHMEM_CTX_DEFAULT, &v);
    CHECK_EQ_INT(counting ? before.completed_put + before.pending_put + 3 : 0, v, "issued_write");
    shmemx_pcntr_get_issued_read(SHMEM_CTX_DEFAULT, &v);
    CHECK_EQ_INT(counting ? before.completed_get + before.pending_get + 2 : 0, v, "issued_read");
    shmem_quiet();
    shmemx_pcntr_get_all(SHMEM_CTX_DEFAULT, &after);
    /* After the quiet every write issued so far is complete; blocking reads completed at once. */
    CHECK_EQ_INT(counting ? before.completed_put + before.pending_put + 3 : 0, after.completed_put,
                 "completed_put after shmem_quiet");
    CHECK_EQ_INT(0, after.pending_put, "pending_put after shmem_quiet");
    CHECK_EQ_INT(counting ? before.completed_get + before.pending_get + 2 : 0, after.completed_get,
                 "completed_get");
    CHECK_EQ_INT(0, after.pending_get, "pending_get");
    shmemx_pcntr_get_completed_write(SHMEM_CTX_DEFAULT, &v);
    CHECK_EQ_INT(after.completed_put, v, "shmemx_pcntr_get_completed_write");
    shmemx_pcntr_get_completed_read(SHMEM_CTX_DEFAULT, &v);
    CHECK_EQ_INT(after.completed_get, v, "shmemx_pcntr_get_completed_read");
    v = 7;
    shmemx_pcntr_get_completed_target(&v);
    CHECK_EQ_INT(0, v, "shmemx_pcntr_get_completed_target");
    /* A put issued after the quiet is pending until the next one. */
    if (counting) {
        shmem_long_put_nbi(dst, local, 1, right);
        shmemx_pcntr_get_all(SHMEM_CTX_DEFAULT, &after);
        CHECK_EQ_INT(1, after.pending_put, "pending_put after a put_nbi");
        shmem_barrier_all();
        shmemx_pcntr_get_all(SHMEM_CTX_DEFAULT, &after);
        CHECK_EQ_INT(0, after.pending_put, "pending_put after shmem_barrier_all");
    }
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    int counting = argc > 1 && strcmp(argv[1], "pcntr") == 0;
    int initialized = -1;
    shmemx_query_initialized(&initialized);
    CHECK_NOSHMEM(initialized == 0, "shmemx_query_initialized before init gave %d", initialized);
    shmem_init();
    shmemx_query_initialized(&initialized);
    CHECK_EQ_INT(1, initialized, "shmemx_query_initialized after init");
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    double t0 = shmemx_wtime();
    CHECK(t0 > 0, "shmemx_wtime returned %f", t0);

    /* ibput / ibget: blocks of 2 elements every 4 (source) into every 3 (dest). */
    for (int i = 0; i < 2 * N; ++i) src[i] = 100L * me + i, dst[i] = -1;
    shmem_barrier_all();
    shmemx_long_ibput(dst, src, 3, 4, 2, 3, right); /* src[0,1],[4,5],[8,9] -> dst[0,1],[3,4],[6,7] */
    shmem_barrier_all();
    static const int placed[] = {0, 1, 3, 4, 6, 7};
    static const int from[] = {0, 1, 4, 5, 8, 9};
    for (int k = 0; k < 6; ++k)
        CHECK_EQ_INT(100L * left + from[k], dst[placed[k]], "dst after shmemx_long_ibput");
    CHECK_EQ_INT(-1, dst[2], "dst[2] (a gap) after shmemx_long_ibput");
    long back[2 * N];
    for (int i = 0; i < 2 * N; ++i) back[i] = -2;
    shmemx_ctx_long_ibget(SHMEM_CTX_DEFAULT, back, src, 4, 3, 2, 2, right); /* src[0,1],[3,4] */
    CHECK_EQ_INT(100L * right + 0, back[0], "back[0] after shmemx_ctx_long_ibget");
    CHECK_EQ_INT(100L * right + 1, back[1], "back[1]");
    CHECK_EQ_INT(-2, back[2], "back[2] (a gap)");
    CHECK_EQ_INT(100L * right + 3, back[4], "back[4]");
    CHECK_EQ_INT(100L * right + 4, back[5], "back[5]");
    int64_t b64[4] = {0};
    shmemx_ibget64(b64, src, 2, 2, 1, 2, right); /* src[0], src[2] -> b64[0], b64[2] */
    CHECK_EQ_INT(100L * right + 0, b64[0], "shmemx_ibget64 b64[0]");
    CHECK_EQ_INT(100L * right + 2, b64[2], "shmemx_ibget64 b64[2]");
    shmem_barrier_all();
    shmemx_ctx_ibput64(SHMEM_CTX_DEFAULT, dst, src, 1, 1, 2, 1, right);
    shmem_barrier_all();
    CHECK_EQ_INT(100L * left, dst[0], "dst[0] after shmemx_ctx_ibput64");
    CHECK_EQ_INT(100L * left + 1, dst[1], "dst[1] after shmemx_ctx_ibput64");

    /* Scans over the world: inclusive and exclusive sums of me+1. */
    scan_in = me + 1;
    CHECK_EQ_INT(0, shmemx_long_sum_inscan(SHMEM_TEAM_WORLD, &scan_out, &scan_in, 1), "inscan rc");
    CHECK_EQ_INT((long)(me + 1) * (me + 2) / 2, scan_out, "shmemx_long_sum_inscan");
    scan_out = -1;
    CHECK_EQ_INT(0, shmemx_long_sum_exscan(SHMEM_TEAM_WORLD, &scan_out, &scan_in, 1), "exscan rc");
    if (me > 0) CHECK_EQ_INT((long)me * (me + 1) / 2, scan_out, "shmemx_long_sum_exscan");
    static double ds_in, ds_out;
    ds_in = 0.5 * (me + 1);
    CHECK_EQ_INT(0, shmemx_double_sum_inscan(SHMEM_TEAM_WORLD, &ds_out, &ds_in, 1), "double inscan rc");
    double dout = 0.25 * (me + 1) * (me + 2);
    CHECK(ds_out == dout, "shmemx_double_sum_inscan: expected %f, got %f", dout, ds_out);

    /* Signals: every PE adds me+1 to PE 0's signal, then PE 0 sets its right neighbour's. */
    sig = 0;
    shmem_barrier_all();
    shmemx_signal_add(&sig, (uint64_t)me + 1, 0);
    shmemx_ctx_signal_add(SHMEM_CTX_DEFAULT, &sig, 0, 0);
    shmem_barrier_all();
    if (me == 0) CHECK_EQ_INT((long)n * (n + 1) / 2, (long)sig, "signal after shmemx_signal_add");
    shmem_barrier_all();
    shmemx_signal_set(&sig, 77, right);
    shmem_barrier_all();
    CHECK_EQ_INT(77, (long)sig, "signal after shmemx_signal_set");
    shmem_barrier_all(); /* every PE has read 77 before the next update */
    shmemx_ctx_signal_set(SHMEM_CTX_DEFAULT, &sig, 78, right);
    shmem_barrier_all();
    CHECK_EQ_INT(78, (long)sig, "signal after shmemx_ctx_signal_set");
    shmem_barrier_all();
    /* SOS's C11 generic forms: a context as first argument selects the ctx_ routine. */
    shmemx_signal_set(SHMEM_CTX_DEFAULT, &sig, 79, right);
    shmem_barrier_all();
    CHECK_EQ_INT(79, (long)sig, "signal after shmemx_signal_set(ctx, ...)");
    shmem_barrier_all();
    shmemx_signal_add(SHMEM_CTX_DEFAULT, &sig, 1, right);
    shmem_barrier_all();
    CHECK_EQ_INT(80, (long)sig, "signal after shmemx_signal_add(ctx, ...)");
    int ig[4] = {0, 0, 0, 0};
    static int isrc[4];
    for (int i = 0; i < 4; ++i) isrc[i] = 10 * me + i;
    shmem_barrier_all();
    shmemx_ibget(SHMEM_CTX_DEFAULT, ig, isrc, 2, 2, 1, 2, right); /* isrc[0], isrc[2] */
    CHECK_EQ_INT(10 * right, ig[0], "shmemx_ibget(ctx, int *) ig[0]");
    CHECK_EQ_INT(10 * right + 2, ig[2], "shmemx_ibget(ctx, int *) ig[2]");
    long lg[2] = {0, 0};
    shmemx_ibget(lg, src, 1, 1, 2, 1, right); /* the long form: src[0], src[1] */
    CHECK_EQ_INT(100L * right, lg[0], "shmemx_ibget(long *) lg[0]");
    CHECK_EQ_INT(100L * right + 1, lg[1], "shmemx_ibget(long *) lg[1]");
    shmem_barrier_all();

    check_pcntr(counting, me, n);
    CHECK(shmemx_wtime() >= t0, "shmemx_wtime went backwards");
    printf("sos_names: PE %d of %d: OK\n", me, n);
    shmem_finalize();
    return 0;
}
