/* Data-movement collectives: broadcast, collect, fcollect, alltoall, alltoalls, team-based (typed,
 * mem and the C11 generic names) over every team shape, and the deprecated active-set forms
 * (32/64-bit, pSync restored and reusable). Every destination element is checked against the
 * data its source PE produced, and the bytes after the destination must stay untouched.
 * Argument "quick": small sizes only (used by the algorithm-override runs). */
#include "coll_common.h"

#define GUARD 64
#define MAXBYTES ((size_t)2 << 20) /* per PE and block: the largest message */

static int me, npes, quick;
static char *src, *dst;  /* symmetric, MAXBYTES (quick: 256 KiB) * npes + GUARD each */
static uint32_t tag = 1; /* changes every call, so stale data is caught; the same sequence on
                          * every member of a shape (set at its start) */

static const size_t sizes[] = {1, 8, 13, 1024, 4099, 65536, 262147, (size_t)1 << 20, MAXBYTES};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static int size_ok(size_t bytes, int n, int big_team_shapes) {
    if (quick && bytes > 65536) return 0;
    if (bytes * (size_t)n > MAXBYTES * 2) return 0;           /* keep the runs short */
    if (bytes > 65536 && !big_team_shapes) return 0;          /* big sizes on the world only */
    return 1;
}

static void prepare_dst(size_t bytes) { memset(dst, 0xEE, bytes + GUARD); }

static void test_broadcast(struct shape *s) {
    shmem_team_t t = s->team;
    int n = shmem_team_n_pes(t);
    int roots[3] = {0, n - 1, n / 2};
    for (size_t si = 0; si < NSIZES; ++si) {
        size_t bytes = sizes[si];
        if (!size_ok(bytes, 1, t == SHMEM_TEAM_WORLD)) continue;
        for (int k = 0; k < 3; ++k) {
            int root = roots[k], wroot = world_of(t, root);
            ++tag;
            fill_bytes(src, bytes, me, tag);
            prepare_dst(bytes);
            shmem_team_sync(t);
            CHECK_EQ_INT(0, shmem_broadcastmem(t, dst, src, bytes, root), "broadcastmem");
            CHECK_BYTES(dst, bytes, wroot, tag, "%s: broadcastmem %zu bytes from root %d", s->name, bytes, root);
            CHECK_FILL(dst + bytes, GUARD, 0xEE, "%s: broadcastmem wrote past dest", s->name);
        }
    }
    /* Typed forms and the generic name, in place of a few types. */
    for (int k = 0; k < 2; ++k) {
        int root = k ? n - 1 : 0, wroot = world_of(t, root);
        size_t cnt = 37;
        long *ls = (long *)src, *ld = (long *)dst;
        for (size_t i = 0; i < cnt; ++i) ls[i] = (long)(me * 1000 + (int)i);
        shmem_team_sync(t);
        CHECK_EQ_INT(0, shmem_long_broadcast(t, ld, ls, cnt, root), "long_broadcast");
        for (size_t i = 0; i < cnt; ++i) CHECK_EQ_INT(wroot * 1000 + (int)i, ld[i], "long_broadcast element");
        long double *xs = (long double *)src, *xd = (long double *)dst;
        for (size_t i = 0; i < cnt; ++i) xs[i] = (long double)(me * 1000 + (int)i) + 0.25L;
        shmem_team_sync(t);
        CHECK_EQ_INT(0, shmem_broadcast(t, xd, xs, cnt, root), "generic broadcast (long double)");
        for (size_t i = 0; i < cnt; ++i)
            CHECK(xd[i] == (long double)(wroot * 1000 + (int)i) + 0.25L, "%s: longdouble_broadcast [%zu]", s->name, i);
        signed char *cs = (signed char *)src, *cd = (signed char *)dst;
        for (size_t i = 0; i < cnt; ++i) cs[i] = (signed char)(me * 3 + (int)i);
        shmem_team_sync(t);
        CHECK_EQ_INT(0, shmem_schar_broadcast(t, cd, cs, cnt, root), "schar_broadcast");
        for (size_t i = 0; i < cnt; ++i) CHECK_EQ_INT((signed char)(wroot * 3 + (int)i), cd[i], "schar element");
    }
    shmem_team_sync(t);
}

static void test_fcollect(struct shape *s) {
    shmem_team_t t = s->team;
    int n = shmem_team_n_pes(t);
    for (size_t si = 0; si < NSIZES; ++si) {
        size_t bytes = sizes[si];
        if (!size_ok(bytes, n, t == SHMEM_TEAM_WORLD)) continue;
        ++tag;
        fill_bytes(src, bytes, me, tag);
        prepare_dst(bytes * (size_t)n);
        shmem_team_sync(t);
        CHECK_EQ_INT(0, shmem_fcollectmem(t, dst, src, bytes), "fcollectmem");
        for (int r = 0; r < n; ++r)
            CHECK_BYTES(dst + (size_t)r * bytes, bytes, world_of(t, r), tag, "%s: fcollectmem %zu bytes, block %d",
                        s->name, bytes, r);
        CHECK_FILL(dst + bytes * (size_t)n, GUARD, 0xEE, "%s: fcollectmem wrote past dest", s->name);
    }
    /* Typed: int and double. */
    int *is = (int *)src, *id = (int *)dst;
    size_t cnt = 19;
    for (size_t i = 0; i < cnt; ++i) is[i] = me * 100 + (int)i;
    shmem_team_sync(t);
    CHECK_EQ_INT(0, shmem_int_fcollect(t, id, is, cnt), "int_fcollect");
    for (int r = 0; r < n; ++r)
        for (size_t i = 0; i < cnt; ++i) CHECK_EQ_INT(world_of(t, r) * 100 + (int)i, id[(size_t)r * cnt + i], "int_fcollect");
    double *ds = (double *)src, *dd = (double *)dst;
    for (size_t i = 0; i < cnt; ++i) ds[i] = me + 0.5 * (double)i;
    shmem_team_sync(t);
    CHECK_EQ_INT(0, shmem_fcollect(t, dd, ds, cnt), "generic fcollect (double)");
    for (int r = 0; r < n; ++r)
        for (size_t i = 0; i < cnt; ++i)
            CHECK(dd[(size_t)r * cnt + i] == world_of(t, r) + 0.5 * (double)i, "%s: double fcollect", s->name);
    shmem_team_sync(t);
}

static void test_collect(struct shape *s) {
    shmem_team_t t = s->team;
    int n = shmem_team_n_pes(t), r = shmem_team_my_pe(t);
    size_t bases[] = {0, 1, 7, 1000, 70000};
    for (size_t bi = 0; bi < sizeof bases / sizeof bases[0]; ++bi) {
        /* PE r contributes base * (r + 1) % ... bytes: sizes differ, some may be 0. */
        size_t mine = (bases[bi] * (size_t)(r + 1) + (size_t)r) % (bases[bi] ? 3 * bases[bi] : 2);
        size_t total = 0, off = 0;
        for (int k = 0; k < n; ++k) {
            size_t sk = (bases[bi] * (size_t)(k + 1) + (size_t)k) % (bases[bi] ? 3 * bases[bi] : 2);
            if (k < r) off += sk;
            total += sk;
        }
        if (quick && total > 65536 * 4) continue;
        (void)off;
        ++tag;
        fill_bytes(src, mine, me, tag);
        prepare_dst(total);
        shmem_team_sync(t);
        CHECK_EQ_INT(0, shmem_collectmem(t, dst, src, mine), "collectmem");
        size_t o = 0;
        for (int k = 0; k < n; ++k) {
            size_t sk = (bases[bi] * (size_t)(k + 1) + (size_t)k) % (bases[bi] ? 3 * bases[bi] : 2);
            CHECK_BYTES(dst + o, sk, world_of(t, k), tag, "%s: collectmem block %d (%zu bytes at %zu)", s->name, k, sk, o);
            o += sk;
        }
        CHECK_FILL(dst + total, GUARD, 0xEE, "%s: collectmem wrote past dest", s->name);
    }
    /* Typed: long with nelems = rank + 1. */
    long *ls = (long *)src, *ld = (long *)dst;
    for (int i = 0; i <= r; ++i) ls[i] = me * 10 + i;
    shmem_team_sync(t);
    CHECK_EQ_INT(0, shmem_long_collect(t, ld, ls, (size_t)r + 1), "long_collect");
    size_t o = 0;
    for (int k = 0; k < n; ++k)
        for (int i = 0; i <= k; ++i) CHECK_EQ_INT(world_of(t, k) * 10 + i, ld[o++], "long_collect element");
    shmem_team_sync(t);
}

static void test_alltoall(struct shape *s) {
    shmem_team_t t = s->team;
    int n = shmem_team_n_pes(t), r = shmem_team_my_pe(t);
    for (size_t si = 0; si < NSIZES; ++si) {
        size_t bytes = sizes[si];
        if (!size_ok(bytes, n, t == SHMEM_TEAM_WORLD)) continue;
        ++tag;
        for (int j = 0; j < n; ++j) fill_bytes(src + (size_t)j * bytes, bytes, me, tag * 64 + (uint32_t)j);
        prepare_dst(bytes * (size_t)n);
        shmem_team_sync(t);
        CHECK_EQ_INT(0, shmem_alltoallmem(t, dst, src, bytes), "alltoallmem");
        for (int j = 0; j < n; ++j)
            CHECK_BYTES(dst + (size_t)j * bytes, bytes, world_of(t, j), tag * 64 + (uint32_t)r,
                        "%s: alltoallmem %zu bytes, block from rank %d", s->name, bytes, j);
        CHECK_FILL(dst + bytes * (size_t)n, GUARD, 0xEE, "%s: alltoallmem wrote past dest", s->name);
    }
    /* alltoalls: int elements, dst stride 2, sst 3; untouched elements keep their fill. 20000
     * elements (80 KB a block) go over the network in several messages per block, the signal
     * with the last. */
    static const size_t counts[] = {5, 20000};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ++ci) {
        size_t cnt = counts[ci];
        int *is = (int *)src, *id = (int *)dst;
        for (int j = 0; j < n; ++j)
            for (size_t i = 0; i < cnt; ++i) is[((size_t)j * cnt + i) * 3] = me * 100000 + j * 1000 + (int)(i % 1000);
        for (size_t i = 0; i < (size_t)n * cnt * 2; ++i) id[i] = -7;
        shmem_team_sync(t);
        CHECK_EQ_INT(0, shmem_int_alltoalls(t, id, is, 2, 3, cnt), "int_alltoalls");
        for (int j = 0; j < n; ++j)
            for (size_t i = 0; i < cnt; ++i) {
                CHECK_EQ_INT(world_of(t, j) * 100000 + r * 1000 + (int)(i % 1000), id[((size_t)j * cnt + i) * 2],
                             cnt > 5 ? "alltoalls element (80 KB blocks)" : "alltoalls element");
                CHECK_EQ_INT(-7, id[((size_t)j * cnt + i) * 2 + 1], "alltoalls gap");
            }
    }
    /* alltoallsmem with unit strides equals alltoallmem; and the typed/generic alltoall. */
    ++tag;
    for (int j = 0; j < n; ++j) fill_bytes(src + (size_t)j * 3, 3, me, tag * 64 + (uint32_t)j);
    shmem_team_sync(t);
    CHECK_EQ_INT(0, shmem_alltoallsmem(t, dst, src, 1, 1, 3), "alltoallsmem");
    for (int j = 0; j < n; ++j) CHECK_BYTES(dst + (size_t)j * 3, 3, world_of(t, j), tag * 64 + (uint32_t)r, "alltoallsmem");
    long *ls = (long *)src, *ld = (long *)dst;
    for (int j = 0; j < n; ++j) ls[j] = me * 100 + j;
    shmem_team_sync(t);
    CHECK_EQ_INT(0, shmem_alltoall(t, ld, ls, 1), "generic alltoall (long)");
    for (int j = 0; j < n; ++j) CHECK_EQ_INT(world_of(t, j) * 100 + r, ld[j], "alltoall long element");
    shmem_team_sync(t);
}

/* Active-set forms over (start, logstride, size): every PE of the world calls the routine only if
 * it is in the set. pSync must be all SHMEM_SYNC_VALUE again after each call. */
static long psync[SHMEM_SYNC_SIZE];
static long psync2[SHMEM_SYNC_SIZE];

/* Called between two barriers on psync2: nobody is in a collective on psync then. */
static void check_psync(const char *what, int start, int logs, int size) {
    for (int i = 0; i < SHMEM_SYNC_SIZE; ++i)
        CHECK(psync[i] == SHMEM_SYNC_VALUE, "%s: word %d is %ld", what, i, psync[i]);
    shmem_barrier(start, logs, size, psync2);
}

static void test_active_set(int start, int logs, int size) {
    int stride = 1 << logs;
    if (me < start || (me - start) % stride || (me - start) / stride >= size) {
        shmem_barrier_all();
        return;
    }
    int r = (me - start) / stride;
    for (int rep = 0; rep < 2; ++rep) {
        size_t cnt = rep ? 1000 : 3;
        for (int root = 0; root < size; root += size > 1 ? size - 1 : 1) {
            int64_t *s64 = (int64_t *)src, *d64 = (int64_t *)dst;
            for (size_t i = 0; i < cnt; ++i) s64[i] = (int64_t)me * 1000000 + (int64_t)i;
            for (size_t i = 0; i < cnt; ++i) d64[i] = -1;
            shmem_barrier(start, logs, size, psync2); /* every dest ready */
            shmem_broadcast64(d64, s64, cnt, root, start, logs, size, psync);
            for (size_t i = 0; i < cnt; ++i)
                CHECK_EQ_INT(r == root ? -1 : (int64_t)(start + root * stride) * 1000000 + (int64_t)i, d64[i],
                             "broadcast64 (dest untouched on the root)");
            shmem_barrier(start, logs, size, psync2);
            check_psync("broadcast64 restores pSync", start, logs, size);
            int32_t *s32 = (int32_t *)src, *d32 = (int32_t *)dst;
            for (size_t i = 0; i < cnt; ++i) s32[i] = me * 1000 + (int32_t)i;
            shmem_broadcast32(d32, s32, cnt, root, start, logs, size, psync);
            if (r != root)
                for (size_t i = 0; i < cnt; ++i)
                    CHECK_EQ_INT((start + root * stride) * 1000 + (int32_t)i, d32[i], "broadcast32");
            shmem_barrier(start, logs, size, psync2);
        }
        int32_t *s32 = (int32_t *)src, *d32 = (int32_t *)dst;
        for (size_t i = 0; i < cnt; ++i) s32[i] = me * 100000 + (int32_t)i;
        shmem_fcollect32(d32, s32, cnt, start, logs, size, psync);
        for (int k = 0; k < size; ++k)
            for (size_t i = 0; i < cnt; ++i)
                CHECK_EQ_INT((start + k * stride) * 100000 + (int32_t)i, d32[(size_t)k * cnt + i], "fcollect32");
        shmem_barrier(start, logs, size, psync2);
        check_psync("fcollect32 restores pSync", start, logs, size);
        int64_t *s64 = (int64_t *)src, *d64 = (int64_t *)dst;
        for (int i = 0; i <= r; ++i) s64[i] = me * 100 + i;
        shmem_collect64(d64, s64, (size_t)r + 1, start, logs, size, psync);
        size_t o = 0;
        for (int k = 0; k < size; ++k)
            for (int i = 0; i <= k; ++i) CHECK_EQ_INT((start + k * stride) * 100 + i, d64[o++], "collect64");
        shmem_barrier(start, logs, size, psync2);
        check_psync("collect64 restores pSync", start, logs, size);
        for (int k = 0; k < size; ++k) s64[k] = me * 100 + k;
        shmem_alltoall64(d64, s64, 1, start, logs, size, psync);
        for (int k = 0; k < size; ++k) CHECK_EQ_INT((start + k * stride) * 100 + r, d64[k], "alltoall64");
        shmem_barrier(start, logs, size, psync2);
        check_psync("alltoall64 restores pSync", start, logs, size);
        for (int k = 0; k < size; ++k) s32[k * 2] = me * 100 + k;
        shmem_alltoalls32(d32, s32, 1, 2, 1, start, logs, size, psync);
        for (int k = 0; k < size; ++k) CHECK_EQ_INT((start + k * stride) * 100 + r, d32[k], "alltoalls32");
        shmem_barrier(start, logs, size, psync2);
        shmem_collect32(d32, s32, (size_t)r % 2, start, logs, size, psync);
        shmem_fcollect64(d64, s64, 2, start, logs, size, psync2);
        shmem_alltoall32(d32, s32, 1, start, logs, size, psync);
        shmem_alltoalls64(d64, s64, 1, 1, 1, start, logs, size, psync2);
        shmem_barrier(start, logs, size, psync);
        shmem_barrier(start, logs, size, psync2);
        check_psync("after a barrier", start, logs, size);
    }
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) psync[i] = psync2[i] = SHMEM_SYNC_VALUE;
    /* quick: no message above 64 KiB, and alltoalls' 80 KB blocks at source stride 3 (240 KB):
     * 256 KiB per PE, so that a 64-PE job needs 16 MiB per buffer, not 128 */
    const size_t per = quick ? (size_t)256 << 10 : MAXBYTES;
    src = shmem_malloc(per * (size_t)npes + GUARD);
    dst = shmem_malloc(per * (size_t)npes + GUARD);
    CHECK(src && dst, "symmetric buffers");
    shmem_barrier_all();
    make_shapes();
    for (int i = 0; i < nshapes; ++i) {
        struct shape *s = &shapes[i];
        if (s->team == SHMEM_TEAM_INVALID) continue;
        tag = 1000u * (uint32_t)(i + 1);
        test_broadcast(s);
        test_fcollect(s);
        test_collect(s);
        test_alltoall(s);
    }
    shmem_barrier_all();
    test_active_set(0, 0, npes);
    test_active_set(0, 1, (npes + 1) / 2);
    test_active_set(npes - 1, 0, 1);
    if (npes >= 3) test_active_set(1, 0, npes - 1);
    destroy_shapes();
    shmem_free(src);
    shmem_free(dst);
    NOTE("coll_data: %d PEs OK", npes);
    shmem_finalize();
    return 0;
}
