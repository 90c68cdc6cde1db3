/* Back-to-back collectives with no barrier between calls (issue #12, item 5): the legacy idiom of
 * Mellanox's verifier (coll broadcast32/broadcast64/broadcast): consecutive calls alternate two
 * pSync arrays (and pWrk arrays) and two dest buffers; every PE checks its dest right after the
 * call returns and then resets it. A sender that runs ahead of a receiver by two calls must not
 * write into the dest (or pSync) that the receiver is still checking: on return, every PE's dest
 * holds this call's data. Covered: active-set broadcast (fixed and rotating root, whole world and
 * a strided subset), fcollect, collect, alltoall, sum_to_all; and the team forms (broadcast,
 * fcollect, collect, alltoall, alltoalls, sum_reduce, sum_inscan) alternating dest buffers the same way,
 * team broadcasts alternating with fcollects, and active sets over every PE between team calls.
 * Argument: the number of rounds of every phase (default 1000). */
#include "common.h"

#define MAXN 64 /* elements per block */

static int me, npes, rounds = 1000;
static long psync[2][SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[2][SHMEM_REDUCE_MIN_WRKDATA_SIZE + MAXN];
static int64_t *src, *dst[2]; /* symmetric, MAXN * npes elements each */

/* Element k of what PE `pe` contributes in round r. */
static int64_t val(int pe, int r, int k) { return (int64_t)pattern_word(pe, (uint32_t)r + 1, (uint64_t)k) + 1; }

static const int64_t RESET = -1;

static void reset(int64_t *d, size_t n) {
    for (size_t i = 0; i < n; ++i) d[i] = RESET;
}

static void expect(const int64_t *d, int pe, int r, int k0, int count, const char *what, int round) {
    for (int k = 0; k < count; ++k)
        if (d[k] != val(pe, r, k0 + k))
            FAIL("%s, round %d: element %d is %" PRId64 ", expected %" PRId64 " (PE %d's data)%s", what, round,
                 k, d[k], val(pe, r, k0 + k), pe, d[k] == RESET ? ": the dest was not written by this call" : "");
}

static void fill_src(int r, int count) {
    for (int k = 0; k < count; ++k) src[k] = val(me, r, k);
}

/* ---- active sets -------------------------------------------------------------------------- */

static void as_broadcast(const char *name, int start, int log_stride, int size, int rotate, int nelems) {
    int stride = 1 << log_stride;
    if (me < start || (me - start) % stride || (me - start) / stride >= size) return;
    int rank = (me - start) / stride;
    for (int i = 0; i < rounds; ++i) {
        int root = rotate ? i % size : 0, wroot = start + root * stride;
        int64_t *d = dst[i & 1];
        if (rank == root) fill_src(i, nelems);
        shmem_broadcast64(d, src, (size_t)nelems, root, start, log_stride, size, psync[i & 1]);
        if (rank != root) {
            expect(d, wroot, i, 0, nelems, name, i);
            reset(d, (size_t)nelems);
        }
    }
}

static void as_fcollect(int nelems) {
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[i & 1];
        fill_src(i, nelems);
        shmem_fcollect64(d, src, (size_t)nelems, 0, 0, npes, psync[i & 1]);
        for (int p = 0; p < npes; ++p) expect(d + p * nelems, p, i, 0, nelems, "fcollect64", i);
        reset(d, (size_t)(nelems * npes));
    }
}

static void as_collect(void) {
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[i & 1];
        int mine = 1 + (me + i) % 3; /* the counts differ between PEs and rounds */
        fill_src(i, mine);
        shmem_collect64(d, src, (size_t)mine, 0, 0, npes, psync[i & 1]);
        int off = 0;
        for (int p = 0; p < npes; ++p) {
            int c = 1 + (p + i) % 3;
            expect(d + off, p, i, 0, c, "collect64", i);
            off += c;
        }
        reset(d, (size_t)off);
    }
}

static void as_alltoall(int nelems) {
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[i & 1];
        fill_src(i, nelems * npes); /* block j (elements j * nelems ...) goes to PE j */
        shmem_alltoall64(d, src, (size_t)nelems, 0, 0, npes, psync[i & 1]);
        for (int p = 0; p < npes; ++p) expect(d + p * nelems, p, i, me * nelems, nelems, "alltoall64", i);
        reset(d, (size_t)(nelems * npes));
    }
}

/* Sums over every PE of (base + k) * (pe + 1), element k of each PE's source. */
static void expect_sums(const long *d, int nelems, long base, const char *what, int round) {
    long w = (long)npes * (npes + 1) / 2;
    for (int k = 0; k < nelems; ++k)
        if (d[k] != (base + k) * w)
            FAIL("%s, round %d: element %d is %ld, expected %ld", what, round, k, d[k], (base + k) * w);
}

static void as_sum(int nelems) {
    for (int i = 0; i < rounds; ++i) {
        long *d = (long *)dst[i & 1];
        long *s = (long *)src;
        for (int k = 0; k < nelems; ++k) s[k] = (long)(i * 7 + k) * (me + 1);
        shmem_long_sum_to_all(d, s, nelems, 0, 0, npes, pwrk[i & 1], psync[i & 1]);
        expect_sums(d, nelems, i * 7, "long_sum_to_all", i);
        reset((int64_t *)d, (size_t)nelems);
    }
}

/* ---- teams -------------------------------------------------------------------------------- */

static void team_ops(int nelems) {
    shmem_team_t t = SHMEM_TEAM_WORLD;
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[i & 1];
        int root = i % npes;
        if (me == root) fill_src(i, nelems);
        CHECK_EQ_INT(0, shmem_int64_broadcast(t, d, src, (size_t)nelems, root), "int64_broadcast");
        expect(d, root, i, 0, nelems, "team broadcast", i);
        reset(d, (size_t)nelems);
    }
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[i & 1];
        fill_src(i, nelems);
        CHECK_EQ_INT(0, shmem_int64_fcollect(t, d, src, (size_t)nelems), "int64_fcollect");
        for (int p = 0; p < npes; ++p) expect(d + p * nelems, p, i, 0, nelems, "team fcollect", i);
        reset(d, (size_t)(nelems * npes));
    }
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[i & 1];
        int mine = 1 + (me + i) % 3;
        fill_src(i, mine);
        CHECK_EQ_INT(0, shmem_int64_collect(t, d, src, (size_t)mine), "int64_collect");
        int off = 0;
        for (int p = 0; p < npes; ++p) {
            int c = 1 + (p + i) % 3;
            expect(d + off, p, i, 0, c, "team collect", i);
            off += c;
        }
        reset(d, (size_t)off);
    }
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[i & 1];
        fill_src(i, nelems * npes);
        CHECK_EQ_INT(0, shmem_int64_alltoall(t, d, src, (size_t)nelems), "int64_alltoall");
        for (int p = 0; p < npes; ++p) expect(d + p * nelems, p, i, me * nelems, nelems, "team alltoall", i);
        reset(d, (size_t)(nelems * npes));
    }
    /* alltoalls, dst stride 2 (the gaps must keep RESET), sst 3: a strided dest takes the packed
     * column through the member's own scratch in the central and node exchanges. */
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[i & 1];
        for (int k = 0; k < nelems * npes; ++k) src[k * 3] = val(me, i, k);
        CHECK_EQ_INT(0, shmem_int64_alltoalls(t, d, src, 2, 3, (size_t)nelems), "int64_alltoalls");
        for (int p = 0; p < npes; ++p)
            for (int k = 0; k < nelems; ++k) {
                int64_t got = d[(p * nelems + k) * 2], want = val(p, i, me * nelems + k);
                if (got != want)
                    FAIL("team alltoalls, round %d: element %d from PE %d is %" PRId64 ", expected %" PRId64 "%s", i,
                         k, p, got, want, got == RESET ? ": the dest was not written by this call" : "");
                CHECK_EQ_INT(RESET, d[(p * nelems + k) * 2 + 1], "team alltoalls: a gap of the dest stride was written");
            }
        reset(d, (size_t)(2 * nelems * npes));
    }
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[i & 1];
        for (int k = 0; k < nelems; ++k) src[k] = (int64_t)(i * 7 + k) * (me + 1);
        CHECK_EQ_INT(0, shmem_int64_sum_reduce(t, d, src, (size_t)nelems), "int64_sum_reduce");
        int64_t w = (int64_t)npes * (npes + 1) / 2;
        for (int k = 0; k < nelems; ++k)
            if (d[k] != (int64_t)(i * 7 + k) * w)
                FAIL("team sum_reduce, round %d: element %d is %" PRId64 ", expected %" PRId64, i, k, d[k],
                     (int64_t)(i * 7 + k) * w);
        reset(d, (size_t)nelems);
    }
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[i & 1];
        for (int k = 0; k < nelems; ++k) src[k] = (int64_t)(i * 7 + k) * (me + 1);
        CHECK_EQ_INT(0, shmem_int64_sum_inscan(t, d, src, (size_t)nelems), "int64_sum_inscan");
        int64_t w = (int64_t)(me + 1) * (me + 2) / 2;
        for (int k = 0; k < nelems; ++k)
            if (d[k] != (int64_t)(i * 7 + k) * w)
                FAIL("team sum_inscan, round %d: element %d is %" PRId64 ", expected %" PRId64, i, k, d[k],
                     (int64_t)(i * 7 + k) * w);
        reset(d, (size_t)nelems);
    }
}

/* Broadcasts of small messages end without a sync (eager: the root pushes into the members'
 * mailboxes), so the collective after one must not write into a member still checking the call
 * before: broadcast and fcollect alternate, call c into dst[c & 1], the broadcast's root fixed (the
 * root runs ahead) or rotating. */
static void team_mixed(int nelems, int rotate) {
    shmem_team_t t = SHMEM_TEAM_WORLD;
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[0];
        int root = rotate ? i % npes : 0;
        if (me == root) fill_src(i, nelems);
        CHECK_EQ_INT(0, shmem_int64_broadcast(t, d, src, (size_t)nelems, root), "int64_broadcast");
        expect(d, root, i, 0, nelems, "team broadcast then fcollect: the broadcast", i);
        reset(d, (size_t)nelems);
        d = dst[1];
        fill_src(i, nelems);
        CHECK_EQ_INT(0, shmem_int64_fcollect(t, d, src, (size_t)nelems), "int64_fcollect");
        for (int p = 0; p < npes; ++p) expect(d + p * nelems, p, i, 0, nelems, "team broadcast then fcollect: the fcollect", i);
        reset(d, (size_t)(nelems * npes));
    }
}

/* Active sets over every PE (run as the world team's collectives unless
 * USHMEM_ACTIVE_SET_WORLD_TEAM=0) interleaved with the world team's own, no sync between: the
 * two kinds must be ordered alike on every PE. */
static void as_team_mixed(int nelems) {
    shmem_team_t t = SHMEM_TEAM_WORLD;
    for (int i = 0; i < rounds; ++i) {
        int64_t *d = dst[0];
        int root = i % npes;
        if (me == root) fill_src(i, nelems);
        shmem_broadcast64(d, src, (size_t)nelems, root, 0, 0, npes, psync[i & 1]);
        if (me != root) expect(d, root, i, 0, nelems, "active-set broadcast then team fcollect: the broadcast", i);
        reset(d, (size_t)nelems);
        d = dst[1];
        fill_src(i, nelems);
        CHECK_EQ_INT(0, shmem_int64_fcollect(t, d, src, (size_t)nelems), "int64_fcollect");
        for (int p = 0; p < npes; ++p)
            expect(d + p * nelems, p, i, 0, nelems, "active-set broadcast then team fcollect: the fcollect", i);
        reset(d, (size_t)(nelems * npes));
        long *ld = (long *)dst[0], *ls = (long *)src; /* dest buffers alternate call by call */
        for (int k = 0; k < nelems; ++k) ls[k] = (long)(i * 3 + k) * (me + 1);
        shmem_long_sum_to_all(ld, ls, nelems, 0, 0, npes, pwrk[i & 1], psync[(i + 1) & 1]);
        expect_sums(ld, nelems, i * 3, "active-set sum_to_all after team fcollect", i);
        reset((int64_t *)ld, (size_t)nelems);
        ld = (long *)dst[1];
        CHECK_EQ_INT(0, shmem_long_sum_reduce(t, ld, ls, (size_t)nelems), "long_sum_reduce");
        expect_sums(ld, nelems, i * 3, "team sum_reduce after active-set sum_to_all", i);
        reset((int64_t *)ld, (size_t)nelems);
    }
}

int main(int argc, char **argv) {
    if (argc > 1) rounds = atoi(argv[1]);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int j = 0; j < 2; ++j)
        for (int w = 0; w < SHMEM_REDUCE_SYNC_SIZE; ++w) psync[j][w] = SHMEM_SYNC_VALUE;
    size_t bytes = sizeof(int64_t) * MAXN * (size_t)npes;
    src = shmem_malloc(bytes);
    dst[0] = shmem_malloc(bytes);
    dst[1] = shmem_malloc(bytes);
    CHECK(src && dst[0] && dst[1], "shmem_malloc of %zu bytes", bytes);
    reset(dst[0], MAXN * (size_t)npes);
    reset(dst[1], MAXN * (size_t)npes);
    shmem_barrier_all(); /* pSync initialised everywhere; from here on, no barrier between calls */

    as_broadcast("broadcast64, root 0", 0, 0, npes, 0, 1);
    as_broadcast("broadcast64, root 0, 37 elements", 0, 0, npes, 0, 37);
    as_broadcast("broadcast64, rotating root", 0, 0, npes, 1, 1);
    if (npes > 2) as_broadcast("broadcast64, even PEs", 0, 1, (npes + 1) / 2, 0, 3);
    NOTE("active-set broadcasts: %d rounds each", rounds);
    shmem_barrier_all(); /* the odd PEs skipped the subset's broadcasts */
    as_fcollect(1);
    as_fcollect(5);
    as_collect();
    as_alltoall(2);
    as_sum(1);
    as_sum(MAXN);
    NOTE("active-set fcollect, collect, alltoall, sum_to_all: %d rounds each", rounds);
    team_ops(1);
    team_ops(9);
    team_ops(20); /* 160 B (the most alltoalls fits): past a mailbox, an eager broadcast goes through the scratch */
    NOTE("team broadcast, fcollect, collect, alltoall, alltoalls, sum_reduce, sum_inscan: %d rounds each", rounds);
    team_mixed(1, 0);
    team_mixed(3, 1);
    team_mixed(MAXN, 0);
    team_mixed(MAXN, 1);
    NOTE("team broadcast then fcollect, fixed and rotating root: %d rounds each", rounds);
    as_team_mixed(1);
    as_team_mixed(MAXN);
    NOTE("active-set broadcast and sum_to_all over every PE between team fcollects and reductions: %d rounds each",
         rounds);
    shmem_barrier_all();
    for (int j = 0; j < 2; ++j)
        for (int w = 0; w < SHMEM_REDUCE_SYNC_SIZE; ++w)
            CHECK_EQ_INT(SHMEM_SYNC_VALUE, psync[j][w], "pSync word restored to SHMEM_SYNC_VALUE");
    shmem_free(src);
    shmem_free(dst[0]);
    shmem_free(dst[1]);
    shmem_finalize();
    return 0;
}
