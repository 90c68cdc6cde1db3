/* Synchronisation collectives and back-to-back collectives under skew: shmem_barrier_all,
 * shmem_sync_all, shmem_team_sync / shmem_sync(team) over every team shape, the active-set
 * shmem_barrier / shmem_sync with pSync reused on consecutive calls, and sequences of different
 * collectives on overlapping teams with no synchronisation between them while some PEs lag
 * (a PE may then already be in the next collective while another has not finished this one). */
#include "coll_common.h"

static int me, npes;
static long *box;   /* symmetric: npes longs */
static long *bufs;  /* symmetric: 8 buffers of 64 longs */
static long psync[SHMEM_BARRIER_SYNC_SIZE], psync_s[SHMEM_SYNC_SIZE];

static unsigned rng = 12345;
static double jitter(void) {
    rng = rng * 1103515245u + 12345u + (unsigned)me;
    return (double)((rng >> 16) % 100) * 1e-6; /* 0..100 us */
}

static void test_barriers(void) {
    for (int it = 0; it < 50; ++it) {
        int next = (me + 1) % npes;
        shmem_long_p(&box[me], it * 1000 + me, next);
        if (it % 3 == 0) spin_for(jitter());
        shmem_barrier_all();
        int prev = (me + npes - 1) % npes;
        CHECK_EQ_INT(it * 1000 + prev, box[prev], "put visible after shmem_barrier_all");
        shmem_barrier_all();
    }
    for (int it = 0; it < 50; ++it) {
        shmem_long_p(&box[me], it * 7 + me, (me + 1) % npes);
        shmem_quiet();
        shmem_sync_all();
        CHECK_EQ_INT(it * 7 + (me + npes - 1) % npes, box[(me + npes - 1) % npes], "put visible after quiet + sync_all");
        shmem_sync_all();
    }
}

static void test_team_sync(struct shape *s) {
    shmem_team_t t = s->team;
    int n = shmem_team_n_pes(t), r = shmem_team_my_pe(t);
    for (int it = 0; it < 40; ++it) {
        int next = world_of(t, (r + 1) % n), prev = world_of(t, (r + n - 1) % n);
        shmem_long_p(&box[me], it * 100 + r, next);
        shmem_quiet();
        if (it % 4 == 1) spin_for(jitter());
        CHECK_EQ_INT(0, it % 2 ? shmem_sync(t) : shmem_team_sync(t), "team sync");
        CHECK_EQ_INT(it * 100 + (r + n - 1) % n, box[prev], "team sync: put visible");
        CHECK_EQ_INT(0, shmem_team_sync(t), "team sync");
    }
    /* Many syncs in a row, some PEs lagging: counting must not mix consecutive syncs. */
    for (int it = 0; it < 200; ++it) {
        if ((it + r) % 17 == 0) spin_for(jitter());
        shmem_team_sync(t);
    }
}

/* Consecutive collectives on two overlapping teams with no sync in between. Each call uses its
 * own destination buffer (so that "dest is ready" holds), but the signals of consecutive calls
 * overtake each other when PEs lag. */
static void test_back_to_back(shmem_team_t a, shmem_team_t b, const char *what) {
    int na = shmem_team_n_pes(a), ra = shmem_team_my_pe(a);
    int in_b = b != SHMEM_TEAM_INVALID;
    for (int it = 0; it < 30; ++it) {
        long *s = bufs, *d = bufs + 64;
        for (int i = 0; i < 8; ++i) s[i] = me * 1000 + it * 10 + i;
        /* A chain of broadcasts with rotating roots into 4 different buffers. */
        for (int k = 0; k < 4; ++k) {
            if ((ra + k + it) % 3 == 0) spin_for(jitter());
            shmem_long_broadcast(a, d + 64 * k, s, 8, (k + it) % na);
        }
        for (int k = 0; k < 4; ++k) {
            int root = world_of(a, (k + it) % na);
            for (int i = 0; i < 8; ++i) CHECK_EQ_INT(root * 1000 + it * 10 + i, d[64 * k + i], what);
        }
        /* Then reductions and fcollect back to back, with team b's operations interleaved. */
        long *rd = bufs + 5 * 64, *fc = bufs + 6 * 64, *rb = bufs + 7 * 64;
        shmem_long_sum_reduce(a, rd, s, 8);
        if (in_b) {
            if ((me + it) % 2) spin_for(jitter());
            shmem_long_max_reduce(b, rb, s, 8);
        }
        shmem_long_fcollect(a, fc, s, 1);
        long expect = 0;
        for (int k = 0; k < na; ++k) expect += world_of(a, k) * 1000 + it * 10 + 3;
        CHECK_EQ_INT(expect, rd[3], what);
        for (int k = 0; k < na; ++k) CHECK_EQ_INT(world_of(a, k) * 1000 + it * 10, fc[k], what);
        if (in_b) {
            int nb = shmem_team_n_pes(b);
            long mx = 0;
            for (int k = 0; k < nb; ++k) mx = world_of(b, k) > mx ? world_of(b, k) : mx;
            CHECK_EQ_INT(mx * 1000 + it * 10 + 1, rb[1], what);
        }
        /* Everyone is done reading this round's buffers before they are rewritten. */
        shmem_team_sync(a);
    }
}

static void test_active_set_barriers(void) {
    /* The same pSync on consecutive barriers and syncs of one active set. */
    for (int it = 0; it < 100; ++it) {
        if (it % 7 == 3) spin_for(jitter());
        shmem_barrier(0, 0, npes, psync);
    }
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) CHECK_EQ_INT(SHMEM_SYNC_VALUE, psync[i], "barrier pSync");
    int stride_log = 1, size = (npes + 1) / 2;
    if (me % 2 == 0)
        for (int it = 0; it < 100; ++it) {
            shmem_long_p(&box[me], it, (me + 2) % (2 * size) < npes ? (me + 2) % (2 * size) : 0);
            shmem_quiet();
            shmem_sync(0, stride_log, size, psync_s);
        }
    shmem_barrier_all();
    for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) CHECK_EQ_INT(SHMEM_SYNC_VALUE, psync_s[i], "sync pSync");
    /* The barrier's completion semantics: puts on the default context are complete. */
    for (int it = 0; it < 20; ++it) {
        shmem_long_p(&box[me], 5000 + it, (me + 1) % npes);
        shmem_barrier(0, 0, npes, psync);
        CHECK_EQ_INT(5000 + it, box[(me + npes - 1) % npes], "put complete after shmem_barrier");
        shmem_barrier(0, 0, npes, psync);
    }
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) psync_s[i] = SHMEM_SYNC_VALUE;
    box = shmem_calloc((size_t)npes, sizeof(long));
    bufs = shmem_calloc(8 * 64, sizeof(long));
    test_barriers();
    make_shapes();
    for (int i = 0; i < nshapes; ++i)
        if (shapes[i].team != SHMEM_TEAM_INVALID) test_team_sync(&shapes[i]);
    shmem_barrier_all();
    /* world with the even PEs interleaved; the even PEs with the 2-D y teams. */
    test_back_to_back(SHMEM_TEAM_WORLD, shapes[2].team, "back to back: world, even");
    if (shapes[2].team != SHMEM_TEAM_INVALID) test_back_to_back(shapes[2].team, shapes[6].team, "back to back: even, y");
    shmem_barrier_all();
    test_active_set_barriers();
    destroy_shapes();
    shmem_free(bufs);
    shmem_free(box);
    NOTE("coll_sync: %d PEs OK", npes);
    shmem_finalize();
    return 0;
}
