/* Teams: the predefined teams, strided and 2-D splits (relative to the parent, nested, reversed,
 * single PE), PE translation, configuration, shmem_team_ptr, team contexts with team-relative PE
 * numbers, many teams alive at once, slot reuse after destroy, and exhaustion of
 * USHMEM_MAX_TEAMS (argument "exhaust N": the test is run with USHMEM_MAX_TEAMS=N). */
#include "common.h"

static int me, npes;

/* World PE of every member of `team`, checked against shmem_team_translate_pe both ways. */
static void check_members(shmem_team_t team, const int *expect, int n, const char *what) {
    CHECK_EQ_INT(n, shmem_team_n_pes(team), what);
    int mine = -1;
    for (int i = 0; i < n; ++i) {
        CHECK_EQ_INT(expect[i], shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD), what);
        CHECK_EQ_INT(i, shmem_team_translate_pe(SHMEM_TEAM_WORLD, expect[i], team), what);
        if (expect[i] == me) mine = i;
    }
    CHECK_EQ_INT(mine, shmem_team_my_pe(team), what);
    CHECK_EQ_INT(-1, shmem_team_translate_pe(team, n, SHMEM_TEAM_WORLD), what);
    CHECK_EQ_INT(-1, shmem_team_translate_pe(team, -1, SHMEM_TEAM_WORLD), what);
}

/* Every member adds its world PE + 1 into every member's slot of `sum` (a symmetric long array of
 * npes) through a team context with team-relative PE numbers, then checks after a team sync. */
static long team_ctr;
static uint64_t team_sig;
static void check_team_ctx(shmem_team_t team, long *box, const char *what) {
    int n = shmem_team_n_pes(team), r = shmem_team_my_pe(team);
    shmem_ctx_t ctx;
    CHECK_EQ_INT(0, shmem_team_create_ctx(team, 0, &ctx), what);
    shmem_team_t back;
    CHECK_EQ_INT(0, shmem_ctx_get_team(ctx, &back), what);
    CHECK(back == team, "%s: shmem_ctx_get_team returned another team", what);
    for (int i = 0; i < npes; ++i) box[i] = -1;
    shmem_team_sync(team);
    for (int t = 0; t < n; ++t) shmem_ctx_long_p(ctx, &box[r], (long)me + 1, t);
    shmem_ctx_quiet(ctx);
    shmem_team_sync(team);
    for (int t = 0; t < n; ++t)
        CHECK_EQ_INT(shmem_team_translate_pe(team, t, SHMEM_TEAM_WORLD) + 1, box[t], what);
    /* A get through the context, team-relative too. */
    long v = shmem_ctx_long_g(ctx, &box[0], (r + 1) % n);
    CHECK_EQ_INT(shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD) + 1, v, what);
    /* Atomics and signals through the context take team-relative PEs too: everything lands on
     * team rank 0 / n - 1 (world PEs that differ from 0 / n - 1 in reversed and strided teams). */
    team_ctr = 0;
    team_sig = 0;
    shmem_team_sync(team);
    long old = shmem_ctx_long_atomic_fetch_add(ctx, &team_ctr, 1, 0);
    CHECK(old >= 0 && old < 2 * n, "%s: fetch_add through a team context returned %ld", what, old);
    shmem_ctx_long_atomic_add(ctx, &team_ctr, 1, 0);
    long fetched = -1;
    shmem_ctx_long_atomic_fetch_nbi(ctx, &fetched, &team_ctr, 0);
    shmem_ctx_signal_add(ctx, &team_sig, 1, n - 1);
    shmem_ctx_long_put_signal(ctx, &box[r], &box[r], 1, &team_sig, 1, SHMEM_SIGNAL_ADD, n - 1);
    shmem_ctx_quiet(ctx);
    CHECK(fetched >= 1 && fetched <= 2 * n, "%s: fetch_nbi through a team context returned %ld", what, fetched);
    shmem_team_sync(team);
    if (r == 0) CHECK_EQ_INT(2 * n, team_ctr, what);
    if (r == n - 1) CHECK_EQ_INT(2 * n, (long)team_sig, what);
    shmem_team_sync(team);
    shmem_ctx_destroy(ctx);
}

static void test_predefined(long *box) {
    CHECK_EQ_INT(me, shmem_team_my_pe(SHMEM_TEAM_WORLD), "world my_pe");
    CHECK_EQ_INT(npes, shmem_team_n_pes(SHMEM_TEAM_WORLD), "world n_pes");
    CHECK_EQ_INT(-1, shmem_team_my_pe(SHMEM_TEAM_INVALID), "invalid my_pe");
    CHECK_EQ_INT(-1, shmem_team_n_pes(SHMEM_TEAM_INVALID), "invalid n_pes");
    CHECK_EQ_INT(-1, shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), "translate invalid");
    int world[64];
    for (int i = 0; i < npes; ++i) world[i] = i;
    check_members(SHMEM_TEAM_WORLD, world, npes, "world");
    /* All PEs of these tests run on one node: SHMEM_TEAM_SHARED is the world. */
    int ns = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(ns >= 1 && ns <= npes, "shared team size %d", ns);
    for (int i = 0; i < ns; ++i) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
        CHECK(w >= 0 && w < npes, "shared member %d is world PE %d", i, w);
        CHECK(shmem_addr_accessible(box, w), "shared member reachable");
    }
    shmem_team_config_t cfg = {.num_contexts = 99};
    CHECK_EQ_INT(0, shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), "get_config");
    CHECK_EQ_INT(0, cfg.num_contexts, "world num_contexts");
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0, "get_config invalid");
    for (int pe = 0; pe < npes; ++pe)
        CHECK_EQ_PTR(shmem_ptr(box, pe), shmem_team_ptr(SHMEM_TEAM_WORLD, box, pe), "team_ptr world");
    CHECK_EQ_PTR(NULL, shmem_team_ptr(SHMEM_TEAM_INVALID, box, 0), "team_ptr invalid");
    for (int i = 0; i < ns; ++i)
        CHECK_EQ_PTR(shmem_ptr(box, shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD)),
                     shmem_team_ptr(SHMEM_TEAM_SHARED, box, i), "team_ptr shared");
    shmem_ctx_t ctx;
    CHECK_EQ_INT(0, shmem_ctx_create(0, &ctx), "ctx_create");
    shmem_team_t t;
    CHECK_EQ_INT(0, shmem_ctx_get_team(ctx, &t), "ctx_get_team");
    CHECK(t == SHMEM_TEAM_WORLD, "shmem_ctx_create's team is SHMEM_TEAM_WORLD");
    CHECK_EQ_INT(0, shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t), "ctx_get_team default");
    CHECK(t == SHMEM_TEAM_WORLD, "the default context's team is SHMEM_TEAM_WORLD");
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID, "get_team invalid");
    shmem_ctx_destroy(ctx);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    check_team_ctx(SHMEM_TEAM_WORLD, box, "world team ctx");
    check_team_ctx(SHMEM_TEAM_SHARED, box, "shared team ctx");
}

/* Splits `parent` with (start, stride, size) and checks the result against the parent's world
 * numbers; returns the new team (or SHMEM_TEAM_INVALID on non-members). */
static shmem_team_t split_check(shmem_team_t parent, int start, int stride, int size, long *box,
                                const char *what) {
    int pn = shmem_team_n_pes(parent);
    shmem_team_config_t cfg = {.num_contexts = 2};
    shmem_team_t t = SHMEM_TEAM_WORLD;
    CHECK_EQ_INT(0, shmem_team_split_strided(parent, start, stride, size, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t),
                 what);
    int expect[64], member = 0;
    for (int i = 0; i < size; ++i) {
        int pr = start + stride * i;
        CHECK(pr >= 0 && pr < pn, "%s: bad test triplet", what);
        expect[i] = shmem_team_translate_pe(parent, pr, SHMEM_TEAM_WORLD);
        if (expect[i] == me) member = 1;
    }
    if (!member) {
        CHECK(t == SHMEM_TEAM_INVALID, "%s: a PE outside the new team gets SHMEM_TEAM_INVALID", what);
        return t;
    }
    CHECK(t != SHMEM_TEAM_INVALID, "%s: member got SHMEM_TEAM_INVALID", what);
    check_members(t, expect, size, what);
    shmem_team_config_t got = {0};
    CHECK_EQ_INT(0, shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got), what);
    CHECK_EQ_INT(2, got.num_contexts, what);
    /* Translation between the parent and the child. */
    for (int i = 0; i < size; ++i) CHECK_EQ_INT(start + stride * i, shmem_team_translate_pe(t, i, parent), what);
    check_team_ctx(t, box, what);
    return t;
}

static void test_strided(long *box) {
    shmem_team_t even = split_check(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, box, "even PEs");
    if (npes >= 2) {
        shmem_team_t odd = split_check(SHMEM_TEAM_WORLD, 1, 2, npes / 2, box, "odd PEs");
        shmem_team_destroy(odd);
    }
    shmem_team_t rev = split_check(SHMEM_TEAM_WORLD, npes - 1, -1, npes, box, "reversed world");
    /* Nested: the stride is relative to the parent. Split the reversed world into its even ranks
     * (world PEs npes-1, npes-3, ...), then that into its second half. */
    shmem_team_t nest = split_check(rev, 0, 2, (npes + 1) / 2, box, "even ranks of reversed");
    int nn = (npes + 1) / 2;
    if (nest != SHMEM_TEAM_INVALID && nn >= 2) {
        shmem_team_t deep = split_check(nest, 1, 1, nn - 1, box, "nested twice");
        shmem_team_destroy(deep);
    }
    /* Members of nest run a split among themselves only (collective over the parent). */
    for (int k = 0; k < npes; ++k) {
        shmem_team_t one = split_check(SHMEM_TEAM_WORLD, k, 0, 1, box, "single PE (stride 0)");
        if (one != SHMEM_TEAM_INVALID) {
            CHECK_EQ_INT(0, shmem_team_sync(one), "sync of a single-PE team");
            shmem_team_destroy(one);
        }
    }
    /* Invalid triplets: nonzero and SHMEM_TEAM_INVALID on every PE, no collective needed. */
    shmem_team_t bad = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &bad) != 0 &&
              bad == SHMEM_TEAM_INVALID, "size beyond the parent");
    bad = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &bad) != 0 && bad == SHMEM_TEAM_INVALID,
          "size 0");
    bad = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &bad) != 0 &&
              bad == SHMEM_TEAM_INVALID, "invalid parent");
    if (npes >= 2) {
        bad = SHMEM_TEAM_WORLD;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &bad) != 0 &&
                  bad == SHMEM_TEAM_INVALID, "stride 0 with size 2");
    }
    shmem_team_destroy(nest);
    shmem_team_destroy(rev);
    shmem_team_destroy(even);
    shmem_team_destroy(SHMEM_TEAM_INVALID);
}

static void test_2d(long *box) {
    for (int xr = 1; xr <= npes + 1; ++xr) {
        shmem_team_t x, y;
        CHECK_EQ_INT(0, shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &x, NULL, 0, &y), "split_2d");
        int xe = xr > npes ? npes : xr;
        int xc = me % xe, yc = me / xe;
        int xm[64], ym[64], nx = 0, ny = 0;
        for (int p = yc * xe; p < (yc + 1) * xe && p < npes; ++p) xm[nx++] = p;
        for (int p = xc; p < npes; p += xe) ym[ny++] = p;
        check_members(x, xm, nx, "2d x team");
        check_members(y, ym, ny, "2d y team");
        CHECK_EQ_INT(xc, shmem_team_my_pe(x), "x coordinate");
        CHECK_EQ_INT(yc, shmem_team_my_pe(y), "y coordinate");
        check_team_ctx(x, box, "2d x team ctx");
        check_team_ctx(y, box, "2d y team ctx");
        /* The two teams work alongside each other. */
        shmem_team_sync(x);
        shmem_team_sync(y);
        shmem_team_destroy(x);
        shmem_team_destroy(y);
    }
    shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0 && x == SHMEM_TEAM_INVALID &&
              y == SHMEM_TEAM_INVALID, "xrange 0");
}

/* Many teams at once, then all destroyed and made again (their slots are reused): each works. */
static void test_many(long *box, int count) {
    shmem_team_t t[64];
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < count; ++i) {
            CHECK_EQ_INT(0, shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t[i]), "many");
            CHECK_EQ_INT(me, shmem_team_my_pe(t[i]), "many: my_pe");
        }
        for (int i = count - 1; i >= 0; --i) {
            long *v = box;
            v[0] = me + 1;
            long sum = 0;
            CHECK_EQ_INT(0, shmem_team_sync(t[i]), "many: sync");
            for (int pe = 0; pe < npes; ++pe) sum += shmem_long_g(&v[0], pe);
            CHECK_EQ_INT((long)npes * (npes + 1) / 2, sum, "many: reads after sync");
            CHECK_EQ_INT(0, shmem_team_sync(t[i]), "many: sync");
        }
        for (int i = 0; i < count; ++i) shmem_team_destroy(t[i]);
    }
}

/* With USHMEM_MAX_TEAMS=limit: limit - 2 user teams fit, the next split fails on every PE. */
static void test_exhaust(long *box, int limit) {
    shmem_team_t t[64];
    int n = limit - 2;
    for (int i = 0; i < n; ++i)
        CHECK_EQ_INT(0, shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t[i]), "below the limit");
    shmem_team_t extra = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &extra) != 0, "beyond the limit");
    CHECK(extra == SHMEM_TEAM_INVALID, "beyond the limit: SHMEM_TEAM_INVALID");
    shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, &y) != 0, "2d beyond the limit");
    shmem_team_destroy(t[0]);
    /* One slot free: a strided split works, a 2-D one (two slots) does not. */
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, &y) != 0, "2d with one slot");
    CHECK_EQ_INT(0, shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t[0]), "after a destroy");
    check_team_ctx(t[0], box, "reused slot");
    for (int i = 0; i < n; ++i) shmem_team_destroy(t[i]);
    NOTE("exhaustion at USHMEM_MAX_TEAMS=%d reported as expected", limit);
}

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 64, "this test handles up to 64 PEs");
    long *box = shmem_calloc((size_t)npes, sizeof(long));
    if (argc > 2 && strcmp(argv[1], "exhaust") == 0) {
        test_exhaust(box, atoi(argv[2]));
    } else {
        test_predefined(box);
        test_strided(box);
        test_2d(box);
        test_many(box, 20);
    }
    shmem_free(box);
    NOTE("team: %d PEs OK", npes);
    shmem_finalize();
    return 0;
}
