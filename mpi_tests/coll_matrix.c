/* Every collective, back to back, with the sizes alternating across the thresholds where the
 * selection table changes algorithm (issue #48, item 1): a reduction of 4096 longs went through
 * recursive doubling and one of 8192 through reduce-scatter + allgather, and the two shared chunk
 * regions with different partners, which no test saw because every test called one size per
 * phase. Here each round runs a program of calls of every family (team broadcast, fcollect,
 * collect, alltoall, alltoalls, sum/xor/max reductions, inclusive and exclusive scans, syncs; a
 * second, strided team; active-set broadcast and sum_to_all over every PE and over a subset),
 * each call's size picked by (round + step) so that consecutive calls of one family differ, the
 * broadcast root rotating, no barrier between calls. Every element of every dest is verified as
 * the call returns; the source is overwritten and the dest reset right after, as a program may
 * (the specification lets a PE reuse both once the call returns on it). ctest runs it with every
 * algorithm of every family forced (mpi_tests/CMakeLists.txt, label collmatrix) on every path.
 * Argument: rounds (default 24). */
#include "common.h"

static int me, npes, rounds = 24;
/* One tag per call, and the buffers of every call (symmetric: the same on every PE), advanced
 * alike on every PE: a PE outside a team or active set goes through its calls `dry`, taking
 * their tags and buffers without calling. */
static long call_tag;
static int dry;

/* ---- buffers: three dests and two sources, rotating; the largest call fits ---------------- */

#define NDST 3
#define NSRC 2
static size_t buf_bytes;
static char *dstb[NDST], *srcb[NSRC];
static int dst_i, src_i;
static char *next_dst(void) { return dstb[dst_i++ % NDST]; }
static char *next_src(void) { return srcb[src_i++ % NSRC]; }

static const unsigned char SCRIBBLE = 0xA5;
static void scribble(void *p, size_t n) { memset(p, SCRIBBLE, n); }

/* Element k of what PE `pe` contributes to the call tagged `tag`. */
static uint32_t w(int pe, long tag, size_t k) { return pattern_word(pe, (uint32_t)tag, (uint64_t)k); }

static void fail_elem(const char *what, size_t n, size_t k, long long got, long long want) {
    FAIL("%s (call %ld, %zu elements, round-robin sizes): element %zu is %lld, expected %lld", what, call_tag, n, k,
         got, want);
}

/* ---- one call of each family ------------------------------------------------------------- */

static const size_t bcast_sizes[] = {1, 8, 128, 129, 1000, 4096, 16384, 65536, 100000, 600000};
static const size_t collect_sizes[] = {1, 5, 256, 300, 2048, 9000}; /* int32 per PE (fcollect) */
static const size_t reduce_sizes[] = {1, 37, 256, 300, 2048, 4096, 8192, 9000, 20000};
static const size_t a2a_sizes[] = {1, 9, 256, 3000};
static const size_t scan_sizes[] = {1, 256, 300, 3000};
#define PICK(a, i) (a[(size_t)(i) % (sizeof a / sizeof a[0])])

static void do_bcast(shmem_team_t t, int tn, int tme, size_t n, int root) {
    unsigned char *d = (unsigned char *)next_dst(), *s = (unsigned char *)next_src();
    ++call_tag;
    if (dry) return;
    if (tme == root)
        for (size_t k = 0; k < n; ++k) s[k] = (unsigned char)w(root, call_tag, k);
    CHECK_EQ_INT(0, shmem_broadcastmem(t, d, s, n, root), "shmem_broadcastmem");
    scribble(s, n);
    for (size_t k = 0; k < n; ++k)
        if (d[k] != (unsigned char)w(root, call_tag, k)) fail_elem("team broadcast", n, k, d[k], (unsigned char)w(root, call_tag, k));
    scribble(d, n);
    (void)tn;
}

static void do_fcollect(shmem_team_t t, int tn, int tme, size_t n) {
    int32_t *d = (int32_t *)next_dst(), *s = (int32_t *)next_src();
    ++call_tag;
    if (dry) return;
    for (size_t k = 0; k < n; ++k) s[k] = (int32_t)w(tme, call_tag, k);
    CHECK_EQ_INT(0, shmem_int32_fcollect(t, d, s, n), "int32_fcollect");
    scribble(s, n * 4);
    for (int p = 0; p < tn; ++p)
        for (size_t k = 0; k < n; ++k)
            if (d[(size_t)p * n + k] != (int32_t)w(p, call_tag, k))
                fail_elem("team fcollect", n, (size_t)p * n + k, d[(size_t)p * n + k], (int32_t)w(p, call_tag, k));
    scribble(d, n * 4 * (size_t)tn);
}

/* collect: every member contributes a different count */
static void do_collect(shmem_team_t t, int tn, int tme, size_t base) {
    int64_t *d = (int64_t *)next_dst(), *s = (int64_t *)next_src();
    ++call_tag;
    if (dry) return;
    size_t mine = base + (size_t)tme;
    for (size_t k = 0; k < mine; ++k) s[k] = (int64_t)w(tme, call_tag, k);
    CHECK_EQ_INT(0, shmem_int64_collect(t, d, s, mine), "int64_collect");
    scribble(s, mine * 8);
    size_t off = 0;
    for (int p = 0; p < tn; ++p)
        for (size_t k = 0; k < base + (size_t)p; ++k, ++off)
            if (d[off] != (int64_t)w(p, call_tag, k)) fail_elem("team collect", base, off, d[off], (int64_t)w(p, call_tag, k));
    scribble(d, off * 8);
}

static void do_alltoall(shmem_team_t t, int tn, int tme, size_t n) {
    int64_t *d = (int64_t *)next_dst(), *s = (int64_t *)next_src();
    ++call_tag;
    if (dry) return;
    for (size_t k = 0; k < n * (size_t)tn; ++k) s[k] = (int64_t)w(tme, call_tag, k); /* block j to member j */
    CHECK_EQ_INT(0, shmem_int64_alltoall(t, d, s, n), "int64_alltoall");
    scribble(s, n * (size_t)tn * 8);
    for (int p = 0; p < tn; ++p)
        for (size_t k = 0; k < n; ++k) {
            int64_t want = (int64_t)w(p, call_tag, (size_t)tme * n + k);
            if (d[(size_t)p * n + k] != want) fail_elem("team alltoall", n, (size_t)p * n + k, d[(size_t)p * n + k], want);
        }
    scribble(d, n * (size_t)tn * 8);
}

/* alltoalls: dest stride 2 (the gaps keep the scribble), source stride 3 */
static void do_alltoalls(shmem_team_t t, int tn, int tme, size_t n) {
    int64_t *d = (int64_t *)next_dst(), *s = (int64_t *)next_src();
    ++call_tag;
    if (dry) return;
    for (size_t k = 0; k < n * (size_t)tn; ++k) s[k * 3] = (int64_t)w(tme, call_tag, k);
    CHECK_EQ_INT(0, shmem_int64_alltoalls(t, d, s, 2, 3, n), "int64_alltoalls");
    scribble(s, n * (size_t)tn * 24);
    int64_t gap;
    memset(&gap, SCRIBBLE, sizeof gap);
    for (int p = 0; p < tn; ++p)
        for (size_t k = 0; k < n; ++k) {
            size_t at = ((size_t)p * n + k) * 2;
            int64_t want = (int64_t)w(p, call_tag, (size_t)tme * n + k);
            if (d[at] != want) fail_elem("team alltoalls", n, at, d[at], want);
            if (d[at + 1] != gap) fail_elem("team alltoalls (a gap of the dest stride)", n, at + 1, d[at + 1], gap);
        }
    scribble(d, n * (size_t)tn * 16);
}

enum red_op { red_sum, red_xor, red_max };
static const char *red_name[] = {"sum", "xor", "max"};

static int64_t red_want(enum red_op op, int tn, size_t k) {
    int64_t acc = (int64_t)w(0, call_tag, k);
    for (int p = 1; p < tn; ++p) {
        int64_t v = (int64_t)w(p, call_tag, k);
        acc = op == red_sum ? acc + v : op == red_xor ? acc ^ v : (v > acc ? v : acc);
    }
    return acc;
}

static void do_reduce(shmem_team_t t, int tn, int tme, size_t n, enum red_op op) {
    int64_t *d = (int64_t *)next_dst(), *s = (int64_t *)next_src();
    ++call_tag;
    if (dry) return;
    for (size_t k = 0; k < n; ++k) s[k] = (int64_t)w(tme, call_tag, k);
    int rc = op == red_sum ? shmem_int64_sum_reduce(t, d, s, n)
             : op == red_xor ? shmem_int64_xor_reduce(t, d, s, n)
                             : shmem_int64_max_reduce(t, d, s, n);
    CHECK_EQ_INT(0, rc, "int64 reduce");
    scribble(s, n * 8);
    for (size_t k = 0; k < n; ++k) {
        int64_t want = red_want(op, tn, k);
        if (d[k] != want) {
            char what[64];
            snprintf(what, sizeof what, "team %s_reduce", red_name[op]);
            fail_elem(what, n, k, d[k], want);
        }
    }
    scribble(d, n * 8);
}

static void do_scan(shmem_team_t t, int tme, size_t n, int inclusive) {
    int64_t *d = (int64_t *)next_dst(), *s = (int64_t *)next_src();
    ++call_tag;
    if (dry) return;
    for (size_t k = 0; k < n; ++k) s[k] = (int64_t)w(tme, call_tag, k);
    CHECK_EQ_INT(0, inclusive ? shmem_int64_sum_inscan(t, d, s, n) : shmem_int64_sum_exscan(t, d, s, n), "int64 scan");
    scribble(s, n * 8);
    for (size_t k = 0; k < n; ++k) {
        int64_t want = 0;
        for (int p = 0; p < tme + (inclusive ? 1 : 0); ++p) want += (int64_t)w(p, call_tag, k);
        if (tme == 0 && !inclusive) continue; /* PE 0's exclusive scan is undefined */
        if (d[k] != want) fail_elem(inclusive ? "team sum_inscan" : "team sum_exscan", n, k, d[k], want);
    }
    scribble(d, n * 8);
}

/* ---- active sets: two pSync and pWrk arrays alternating ------------------------------------ */

static long psync[2][SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[2][SHMEM_REDUCE_MIN_WRKDATA_SIZE > 4096 ? SHMEM_REDUCE_MIN_WRKDATA_SIZE : 4096];
static int ps_i;

static void as_sum(int start, int log_stride, int size, size_t n) {
    int stride = 1 << log_stride;
    long *d = (long *)next_dst(), *s = (long *)next_src();
    ++call_tag;
    int j = ps_i++ & 1;
    if (me < start || (me - start) % stride || (me - start) / stride >= size) return;
    int rank = (me - start) / stride;
    for (size_t k = 0; k < n; ++k) s[k] = (long)w(rank, call_tag, k);
    shmem_long_sum_to_all(d, s, (int)n, start, log_stride, size, pwrk[j], psync[j]);
    scribble(s, n * 8);
    for (size_t k = 0; k < n; ++k) {
        long want = 0;
        for (int p = 0; p < size; ++p) want += (long)w(p, call_tag, k);
        if (d[k] != want) fail_elem("active-set long_sum_to_all", n, k, d[k], want);
    }
    scribble(d, n * 8);
}

static void as_bcast(int start, int log_stride, int size, size_t n, int root) {
    int stride = 1 << log_stride;
    int64_t *d = (int64_t *)next_dst(), *s = (int64_t *)next_src();
    ++call_tag;
    int j = ps_i++ & 1;
    if (me < start || (me - start) % stride || (me - start) / stride >= size) return;
    int rank = (me - start) / stride;
    if (rank == root)
        for (size_t k = 0; k < n; ++k) s[k] = (int64_t)w(root, call_tag, k);
    shmem_broadcast64(d, s, n, root, start, log_stride, size, psync[j]);
    scribble(s, n * 8);
    if (rank != root)
        for (size_t k = 0; k < n; ++k)
            if (d[k] != (int64_t)w(root, call_tag, k)) fail_elem("active-set broadcast64", n, k, d[k], (int64_t)w(root, call_tag, k));
    scribble(d, n * 8);
}

/* ---- one round: every family, sizes by (round + step) ------------------------------------ */

static void team_round(shmem_team_t t, int r, int with_scans) {
    int tn = shmem_team_n_pes(t), tme = shmem_team_my_pe(t);
    dry = tme < 0;
    /* Bursts: calls of one family back to back, each size the next of its list (so every pair of
     * neighbours in the list, hence every threshold between them, meets in consecutive calls). */
    for (int k = 0; k < 4; ++k) do_reduce(t, tn, tme, PICK(reduce_sizes, r + k), (enum red_op)(k % 3));
    for (int k = 0; k < 3; ++k) do_bcast(t, tn, tme, PICK(bcast_sizes, r + k), (r + k) % tn);
    for (int k = 0; k < 3; ++k) do_fcollect(t, tn, tme, PICK(collect_sizes, r + k));
    for (int k = 0; k < 2; ++k) do_alltoall(t, tn, tme, PICK(a2a_sizes, r + k));
    for (int k = 0; k < 2; ++k) do_collect(t, tn, tme, PICK(collect_sizes, r + k) / 2 + 1);
    if (with_scans)
        for (int k = 0; k < 3; ++k) do_scan(t, tme, PICK(scan_sizes, r + k), k & 1);
    /* Then the families interleaved. */
    int step = 0;
    do_reduce(t, tn, tme, PICK(reduce_sizes, r + step++), red_sum);
    do_bcast(t, tn, tme, PICK(bcast_sizes, r + step++), r % tn);
    do_reduce(t, tn, tme, PICK(reduce_sizes, r + step++), red_sum);
    do_fcollect(t, tn, tme, PICK(collect_sizes, r + step++));
    do_reduce(t, tn, tme, PICK(reduce_sizes, r + step++), red_xor);
    do_bcast(t, tn, tme, PICK(bcast_sizes, r * 3 + step++), (r + 1) % tn);
    do_alltoall(t, tn, tme, PICK(a2a_sizes, r + step++));
    do_reduce(t, tn, tme, PICK(reduce_sizes, r * 5 + step++), red_max);
    do_collect(t, tn, tme, PICK(collect_sizes, r + step++) / 2 + 1);
    if (with_scans) {
        do_scan(t, tme, PICK(scan_sizes, r + step++), 1);
        do_reduce(t, tn, tme, PICK(reduce_sizes, r * 7 + step++), red_sum);
        do_scan(t, tme, PICK(scan_sizes, r * 3 + step++), 0);
    }
    do_alltoalls(t, tn, tme, PICK(a2a_sizes, r + step++) / 2 + 1);
    if (r % 3 == 0 && !dry) CHECK_EQ_INT(0, shmem_team_sync(t), "shmem_team_sync");
    do_bcast(t, tn, tme, PICK(bcast_sizes, r * 7 + step++), (r + 2) % tn);
    dry = 0;
}

int main(int argc, char **argv) {
    if (argc > 1) rounds = atoi(argv[1]);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int j = 0; j < 2; ++j)
        for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; ++k) psync[j][k] = SHMEM_SYNC_VALUE;
    /* the largest: a 600000-byte broadcast, or 9000 int32 (fcollect) / 20000 int64 / alltoalls' strides per PE */
    size_t need = 600000;
    size_t per[] = {9000 * 4 * (size_t)npes, 20000 * 8, 3000 * 8 * (size_t)npes * 3, (4500 + (size_t)npes) * 8 * (size_t)npes};
    for (size_t i = 0; i < sizeof per / sizeof per[0]; ++i)
        if (per[i] > need) need = per[i];
    buf_bytes = need;
    for (int i = 0; i < NDST; ++i) CHECK((dstb[i] = shmem_malloc(buf_bytes)) != NULL, "shmem_malloc of %zu bytes", buf_bytes);
    for (int i = 0; i < NSRC; ++i) CHECK((srcb[i] = shmem_malloc(buf_bytes)) != NULL, "shmem_malloc of %zu bytes", buf_bytes);
    /* Every dest holds the scribble when a call starts (each call resets its dest after checking
     * it; none does before, since a faster member may already be writing into it). */
    for (int i = 0; i < NDST; ++i) scribble(dstb[i], buf_bytes);
    /* A strided team (every other PE from PE 1) beside the world team, when there are 3 PEs or more. */
    shmem_team_t odd = SHMEM_TEAM_INVALID;
    if (npes >= 3) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    shmem_barrier_all(); /* pSync initialised everywhere; from here on, no barrier between calls */
    for (int r = 0; r < rounds; ++r) {
        team_round(SHMEM_TEAM_WORLD, r, 1);
        as_sum(0, 0, npes, PICK(reduce_sizes, r) > 4096 ? 4096 : PICK(reduce_sizes, r));
        as_bcast(0, 0, npes, PICK(a2a_sizes, r), r % npes);
        if (odd != SHMEM_TEAM_INVALID || npes >= 3) team_round(odd, r, 0);
        if (npes >= 3) {
            as_sum(0, 1, (npes + 1) / 2, PICK(reduce_sizes, r + 1) > 512 ? 512 : PICK(reduce_sizes, r + 1));
            as_bcast(0, 1, (npes + 1) / 2, PICK(a2a_sizes, r + 2), r % ((npes + 1) / 2));
        }
    }
    NOTE("%d rounds of every collective, sizes alternating: %ld calls", rounds, call_tag);
    shmem_barrier_all();
    if (odd != SHMEM_TEAM_INVALID) shmem_team_destroy(odd);
    for (int i = 0; i < NDST; ++i) shmem_free(dstb[i]);
    for (int i = 0; i < NSRC; ++i) shmem_free(srcb[i]);
    shmem_finalize();
    return 0;
}
