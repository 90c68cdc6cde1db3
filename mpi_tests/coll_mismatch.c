/* coll_mismatch: collectives called with arguments that differ between the PEs, which the library
 * must diagnose under SHMEM_DEBUG=1 (registered in coll_mismatch.cmake through expect_error.sh),
 * and the same calls with matching arguments, which must run and give the right results.
 *
 * Usage: coll_mismatch MODE
 *
 * Modes that must abort with "ushmem: ROUTINE (PE p of n): collective arguments differ ...":
 *   bcast_nelems    shmem_broadcastmem, nelems 8 on PE 0 and 16 elsewhere
 *   bcast_root      shmem_long_broadcast, PE_root 0 on even PEs and 1 on odd ones
 *   reduce_nreduce  shmem_int_sum_reduce, nreduce 4 on PE 0 and 8 elsewhere
 *   reduce_op       shmem_int_sum_reduce on PE 0, shmem_int_max_reduce elsewhere
 *   fcollect_nelems shmem_long_fcollect, nelems 1 on PE 0 and 2 elsewhere
 *   alltoall_nelems shmem_int_alltoall, nelems 1 on PE 0 and 2 elsewhere
 *   alltoalls_dst   shmem_int_alltoalls, dst 1 on PE 0 and 2 elsewhere
 *   kinds           shmem_broadcastmem on PE 0, shmem_int_sum_reduce elsewhere
 *   as_nelems       shmem_broadcast64 (active set of all PEs), nelems 1 on PE 0 and 2 elsewhere
 *   as_size         (4 PEs) shmem_broadcast64 on PEs 0 and 1 only, PE_size 2 on PE 0 and 3 on PE 1
 * Mode that must succeed (exit 0):
 *   match           every collective above, team-based and active-set, with matching
 *                   arguments (and collect with different nelems, which is allowed), on the
 *                   world team, a strided split, a 2D split and an active set of the even PEs;
 *                   results checked */
#include "common.h"

#define N 64

static long psync[SHMEM_BCAST_SYNC_SIZE];
static long psync2[SHMEM_BCAST_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];

static void returned(const char *mode) {
    printf("[PE %d] coll_mismatch %s: the mismatched call returned; the library should have aborted\n",
           shmem_my_pe(), mode);
    fflush(stdout);
}

/* The matching calls, `rounds` times, with results checked. */
static void run_match(int rounds) {
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    long *src = shmem_malloc(sizeof(long) * N * (size_t)npes);
    long *dst = shmem_malloc(sizeof(long) * N * (size_t)npes);
    int *isrc = shmem_malloc(sizeof(int) * N * (size_t)npes);
    int *idst = shmem_malloc(sizeof(int) * N * (size_t)npes);
    CHECK(src && dst && isrc && idst, "shmem_malloc failed");
    shmem_team_t half = SHMEM_TEAM_INVALID, xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &half);
    shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt);
    for (int it = 0; it < rounds; ++it) {
        for (int i = 0; i < N * npes; ++i) {
            src[i] = me * 1000 + i + it;
            isrc[i] = me + i + it;
        }
        shmem_barrier_all();
        const int root = it % npes;
        CHECK_EQ_INT(0, shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 8, root), "broadcast");
        for (int i = 0; i < 8; ++i)
            CHECK(dst[i] == root * 1000 + i + it, "broadcast: dst[%d] = %ld, expected %d", i, dst[i],
                  root * 1000 + i + it);
        CHECK_EQ_INT(0, shmem_int_sum_reduce(SHMEM_TEAM_WORLD, idst, isrc, 4), "sum_reduce");
        for (int i = 0; i < 4; ++i)
            CHECK(idst[i] == npes * (i + it) + npes * (npes - 1) / 2, "sum_reduce: [%d] = %d", i, idst[i]);
        shmem_barrier_all(); /* every PE has checked before the next call writes the same dest */
        CHECK_EQ_INT(0, shmem_int_max_reduce(SHMEM_TEAM_WORLD, idst, isrc, 4), "max_reduce");
        CHECK(idst[0] == npes - 1 + it, "max_reduce: %d", idst[0]);
        CHECK_EQ_INT(0, shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, 2), "fcollect");
        for (int p = 0; p < npes; ++p)
            CHECK(dst[2 * p + 1] == p * 1000 + 1 + it, "fcollect: block %d = %ld", p, dst[2 * p + 1]);
        shmem_barrier_all();
        /* collect: every PE may contribute a different number of elements */
        CHECK_EQ_INT(0, shmem_long_collect(SHMEM_TEAM_WORLD, dst, src, (size_t)(me % 3)), "collect");
        CHECK_EQ_INT(0, shmem_int_alltoall(SHMEM_TEAM_WORLD, idst, isrc, 2), "alltoall");
        for (int p = 0; p < npes; ++p)
            CHECK(idst[2 * p] == p + 2 * me + it, "alltoall: from %d = %d", p, idst[2 * p]);
        shmem_barrier_all();
        CHECK_EQ_INT(0, shmem_int_alltoalls(SHMEM_TEAM_WORLD, idst, isrc, 2, 1, 1), "alltoalls");
        CHECK_EQ_INT(0, shmem_int_sum_inscan(SHMEM_TEAM_WORLD, idst, isrc, 3), "inscan");
        CHECK(idst[0] == (me + 1) * it + me * (me + 1) / 2, "inscan: %d", idst[0]);
        shmem_barrier_all();
        CHECK_EQ_INT(0, shmem_int_sum_exscan(SHMEM_TEAM_WORLD, idst, isrc, 3), "exscan");
        CHECK(idst[0] == me * it + me * (me - 1) / 2, "exscan: %d", idst[0]);
        CHECK_EQ_INT(0, shmem_team_sync(SHMEM_TEAM_WORLD), "team_sync");
        shmem_sync_all();
        if (half != SHMEM_TEAM_INVALID) {
            CHECK_EQ_INT(0, shmem_int_sum_reduce(half, idst, isrc, 2), "split reduce");
            const int hn = shmem_team_n_pes(half);
            CHECK(idst[0] == hn * it + 2 * (hn * (hn - 1) / 2), "split reduce: %d", idst[0]);
            CHECK_EQ_INT(0, shmem_broadcastmem(half, dst, src, 16, 0), "split broadcast");
        }
        CHECK_EQ_INT(0, shmem_long_fcollect(xt, dst, src, 1), "2d x fcollect");
        CHECK_EQ_INT(0, shmem_int_max_reduce(yt, idst, isrc, 1), "2d y reduce");
        CHECK_EQ_INT(0, shmem_team_sync(yt), "2d y sync");
        /* Active sets: all PEs, then the even ones; consecutive barriers on one pSync. */
        shmem_barrier(0, 0, npes, psync2);
        shmem_barrier(0, 0, npes, psync2);
        shmem_broadcast64(dst, src, 4, root, 0, 0, npes, psync);
        if (me != root)
            CHECK(dst[0] == root * 1000 + it, "broadcast64: %ld", dst[0]);
        shmem_barrier_all();
        shmem_long_sum_to_all(dst, src, 3, 0, 0, npes, pwrk, psync);
        CHECK(dst[0] == npes * (long)it + 1000L * npes * (npes - 1) / 2, "sum_to_all: %ld", dst[0]);
        shmem_barrier_all();
        shmem_collect64(dst, src, (size_t)(me % 2), 0, 0, npes, psync);
        shmem_barrier_all();
        if (me % 2 == 0) {
            const int ne = (npes + 1) / 2;
            shmem_fcollect64(dst, src, 1, 0, 1, ne, psync);
            for (int p = 0; p < ne; ++p)
                CHECK(dst[p] == 2 * p * 1000 + it, "fcollect64 evens: [%d] = %ld", p, dst[p]);
            shmem_sync(0, 1, ne, psync2);
        }
        shmem_barrier_all();
    }
    for (size_t i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i)
        CHECK(psync[i] == SHMEM_SYNC_VALUE && psync2[i] == SHMEM_SYNC_VALUE,
              "pSync[%zu] = %ld / %ld, not restored to SHMEM_SYNC_VALUE", i, psync[i], psync2[i]);
    if (half != SHMEM_TEAM_INVALID) shmem_team_destroy(half);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    shmem_free(idst);
    shmem_free(isrc);
    shmem_free(dst);
    shmem_free(src);
}

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 2, "usage: coll_mismatch MODE");
    const char *mode = argv[1];
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) psync[i] = psync2[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    long *a = shmem_calloc((size_t)N * (size_t)npes, sizeof(long));
    long *b = shmem_calloc((size_t)N * (size_t)npes, sizeof(long));
    CHECK(a && b, "shmem_calloc failed");
    int *ia = (int *)a, *ib = (int *)b;
    const size_t mine = me == 0 ? 1 : 2; /* the count that differs: PE 0 passes the smaller */

    if (!strcmp(mode, "match")) {
        run_match(20);
        shmem_free(b);
        shmem_free(a);
        shmem_finalize();
        return 0;
    } else if (!strcmp(mode, "bcast_nelems")) {
        shmem_broadcastmem(SHMEM_TEAM_WORLD, b, a, 8 * mine, 0);
    } else if (!strcmp(mode, "bcast_root")) {
        shmem_long_broadcast(SHMEM_TEAM_WORLD, b, a, 4, me % 2);
    } else if (!strcmp(mode, "reduce_nreduce")) {
        shmem_int_sum_reduce(SHMEM_TEAM_WORLD, ib, ia, 4 * mine);
    } else if (!strcmp(mode, "reduce_op")) {
        if (me == 0) shmem_int_sum_reduce(SHMEM_TEAM_WORLD, ib, ia, 4);
        else shmem_int_max_reduce(SHMEM_TEAM_WORLD, ib, ia, 4);
    } else if (!strcmp(mode, "fcollect_nelems")) {
        shmem_long_fcollect(SHMEM_TEAM_WORLD, b, a, mine);
    } else if (!strcmp(mode, "alltoall_nelems")) {
        shmem_int_alltoall(SHMEM_TEAM_WORLD, ib, ia, mine);
    } else if (!strcmp(mode, "alltoalls_dst")) {
        shmem_int_alltoalls(SHMEM_TEAM_WORLD, ib, ia, (ptrdiff_t)mine, 1, 2);
    } else if (!strcmp(mode, "kinds")) {
        if (me == 0) shmem_broadcastmem(SHMEM_TEAM_WORLD, b, a, 8, 0);
        else shmem_int_sum_reduce(SHMEM_TEAM_WORLD, ib, ia, 2);
    } else if (!strcmp(mode, "as_nelems")) {
        shmem_broadcast64(b, a, mine, 0, 0, 0, npes, psync);
    } else if (!strcmp(mode, "as_size")) {
        CHECK(npes >= 4, "as_size needs 4 PEs");
        /* PE 0 sees the set {0, 1}, PE 1 {0, 1, 2}: PE 0 receives PE 1's words and tells. */
        if (me < 2) shmem_broadcast64(b, a, 2, 0, 0, 0, 2 + me, psync);
    } else {
        FAIL("unknown mode %s", mode);
    }
    /* The PEs that made no mismatched call wait here until the library ends the job. */
    shmem_barrier_all();
    returned(mode);
    shmem_finalize();
    return 0;
}
