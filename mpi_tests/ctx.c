/* Communication contexts under SHMEM_THREAD_MULTIPLE: several threads, each driving its own
 * context (private, serialized or default options; world or team contexts with team-relative PE
 * numbers), one context shared by all threads, the implicit quiet of shmem_ctx_destroy, and the
 * independence of the contexts' completion (a quiet on one context completes that context's
 * operations, whatever the others are doing), strided puts and gets and put-with-signal through
 * each context. Every transferred word is checked. */
#include "common.h"

#include <pthread.h>

#define NTHREADS 4
#define WORDS 512 /* per (thread, source PE) */

static int me, npes;
static long *area;   /* symmetric: [NTHREADS][npes][WORDS] */
static long *shared; /* symmetric: [NTHREADS][npes] */
static shmem_ctx_t shared_ctx;
static shmem_team_t rev; /* the world reversed: team rank r is world PE npes - 1 - r */

static long value(int thread, int src_pe, int round, int k) {
    return (long)thread * 100000000L + (long)src_pe * 1000000L + (long)round * 10000L + k;
}

static long *slot(int thread, int src_pe) { return area + ((size_t)thread * (size_t)npes + (size_t)src_pe) * WORDS; }

/* Strided transfers and put-with-signal through each context (over tcp: messages of ushmem's own,
 * sent through the context's own worker where it has one). */
#define SWORDS 64
static long *sarea;     /* symmetric: [NTHREADS][npes][2 * SWORDS], every other word written */
static long *parea;     /* symmetric: [NTHREADS][npes][8], put_signal's data */
static uint64_t *sigs;  /* symmetric: [NTHREADS][npes], put_signal's signal (one add per round) */
static size_t tp(int thread, int src_pe) { return (size_t)thread * (size_t)npes + (size_t)src_pe; }

struct job {
    int thread;
    int round;
};

static void *worker(void *arg) {
    struct job *j = arg;
    const int th = j->thread, round = j->round;
    const long opts[NTHREADS] = {SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, 0, SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    shmem_ctx_t ctx;
    int team_ctx = th == 2;
    int rc = team_ctx ? shmem_team_create_ctx(rev, opts[th], &ctx) : shmem_ctx_create(opts[th], &ctx);
    CHECK_EQ_INT(0, rc, "context creation in a thread");
    long buf[WORDS];
    for (int k = 0; k < WORDS; ++k) buf[k] = value(th, me, round, k);
    for (int pe = 0; pe < npes; ++pe) {
        int target = team_ctx ? npes - 1 - pe : pe; /* team contexts take team ranks */
        /* Word by word (p), a block (put) and a non-blocking block (put_nbi). */
        for (int k = 0; k < 16; ++k) shmem_ctx_long_p(ctx, slot(th, me) + k, buf[k], target);
        shmem_ctx_long_put(ctx, slot(th, me) + 16, buf + 16, 200, target);
        shmem_ctx_long_put_nbi(ctx, slot(th, me) + 216, buf + 216, WORDS - 216, target);
        /* The shared context: every thread at once. */
        shmem_ctx_long_p(shared_ctx, &shared[(size_t)th * (size_t)npes + (size_t)me], value(th, me, round, 0), pe);
    }
    shmem_ctx_quiet(ctx);
    /* Read back through the context: what this thread wrote on every PE. */
    long back[WORDS];
    for (int pe = 0; pe < npes; ++pe) {
        int target = team_ctx ? npes - 1 - pe : pe;
        shmem_ctx_long_get(ctx, back, slot(th, me), WORDS, target);
        for (int k = 0; k < WORDS; ++k)
            if (back[k] != buf[k])
                FAIL("thread %d: word %d on PE %d after ctx_quiet: expected %ld, got %ld", th, k, pe, buf[k], back[k]);
    }
    /* Strided put (dest stride 2) and put-with-signal, then quiet; read back with a strided get
     * (source stride 2) and gets of the data and the signal, all through the context. */
    for (int pe = 0; pe < npes; ++pe) {
        int target = team_ctx ? npes - 1 - pe : pe;
        shmem_ctx_long_iput(ctx, sarea + tp(th, me) * 2 * SWORDS, buf, 2, 1, SWORDS, target);
        shmem_ctx_long_put_signal(ctx, parea + tp(th, me) * 8, buf + SWORDS, 8, &sigs[tp(th, me)], 1,
                                  SHMEM_SIGNAL_ADD, target);
    }
    shmem_ctx_quiet(ctx);
    for (int pe = 0; pe < npes; ++pe) {
        int target = team_ctx ? npes - 1 - pe : pe;
        long sback[SWORDS], pback[8];
        shmem_ctx_long_iget(ctx, sback, sarea + tp(th, me) * 2 * SWORDS, 1, 2, SWORDS, target);
        shmem_ctx_long_get(ctx, pback, parea + tp(th, me) * 8, 8, target);
        for (int k = 0; k < SWORDS; ++k)
            if (sback[k] != buf[k])
                FAIL("thread %d: strided word %d on PE %d: expected %ld, got %ld", th, k, pe, buf[k], sback[k]);
        for (int k = 0; k < 8; ++k)
            if (pback[k] != buf[SWORDS + k])
                FAIL("thread %d: put_signal word %d on PE %d: expected %ld, got %ld", th, k, pe, buf[SWORDS + k], pback[k]);
        uint64_t sig = 0;
        shmem_ctx_getmem(ctx, &sig, &sigs[tp(th, me)], sizeof sig, target);
        CHECK_EQ_INT(round + 1, sig, "put_signal's signal through a context (one add per round)");
    }
    /* Pending non-blocking puts at destroy: its implicit quiet completes them. */
    for (int pe = 0; pe < npes; ++pe)
        shmem_ctx_long_put_nbi(ctx, slot(th, me), buf, WORDS, team_ctx ? npes - 1 - pe : pe);
    shmem_ctx_destroy(ctx);
    return NULL;
}

/* Collectives on different teams at once, one thread each (allowed at SHMEM_THREAD_MULTIPLE), and
 * splits of different parents at once. */
struct team_job {
    shmem_team_t team;
    long *buf; /* symmetric, 2 * npes longs of its own */
    int id;
};

static void *team_worker(void *arg) {
    struct team_job *j = arg;
    int n = shmem_team_n_pes(j->team);
    for (int it = 0; it < 200; ++it) {
        long mine = (long)me * 1000 + it + j->id;
        j->buf[0] = mine;
        CHECK_EQ_INT(0, shmem_long_sum_reduce(j->team, j->buf + 1, j->buf, 1), "concurrent reduce");
        long expect = 0;
        for (int r = 0; r < n; ++r) expect += (long)shmem_team_translate_pe(j->team, r, SHMEM_TEAM_WORLD) * 1000 + it + j->id;
        CHECK_EQ_INT(expect, j->buf[1], "concurrent reduce result");
        CHECK_EQ_INT(0, shmem_long_fcollect(j->team, j->buf + 2, j->buf, 1), "concurrent fcollect");
        CHECK_EQ_INT(0, shmem_team_sync(j->team), "concurrent sync");
    }
    /* A split of this thread's team while the other thread splits its own. */
    for (int k = 0; k < 10; ++k) {
        shmem_team_t t;
        CHECK_EQ_INT(0, shmem_team_split_strided(j->team, 0, 1, n, NULL, 0, &t), "concurrent split");
        CHECK_EQ_INT(0, shmem_team_sync(t), "sync of a concurrently split team");
        shmem_team_destroy(t);
    }
    return NULL;
}

static void test_concurrent_teams(void) {
    shmem_team_t dup;
    CHECK_EQ_INT(0, shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &dup), "dup of world");
    long *bufs = shmem_calloc(2 * ((size_t)npes + 2), sizeof(long));
    struct team_job jobs[2] = {{SHMEM_TEAM_WORLD, bufs, 0}, {dup, bufs + npes + 2, 1}};
    pthread_t tid[2];
    for (int t = 0; t < 2; ++t) CHECK(pthread_create(&tid[t], NULL, team_worker, &jobs[t]) == 0, "pthread_create");
    for (int t = 0; t < 2; ++t) pthread_join(tid[t], NULL);
    shmem_barrier_all();
    shmem_free(bufs);
    shmem_team_destroy(dup);
}

int main(void) {
    int provided = -1;
    CHECK_NOSHMEM(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "shmem_init_thread");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided thread level %d", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    area = shmem_calloc((size_t)NTHREADS * (size_t)npes * WORDS, sizeof(long));
    shared = shmem_calloc((size_t)NTHREADS * (size_t)npes, sizeof(long));
    sarea = shmem_calloc((size_t)NTHREADS * (size_t)npes * 2 * SWORDS, sizeof(long));
    parea = shmem_calloc((size_t)NTHREADS * (size_t)npes * 8, sizeof(long));
    sigs = shmem_calloc((size_t)NTHREADS * (size_t)npes, sizeof(uint64_t));
    CHECK(area && shared && sarea && parea && sigs, "symmetric buffers");
    CHECK_EQ_INT(0, shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev), "reversed team");
    CHECK_EQ_INT(0, shmem_ctx_create(0, &shared_ctx), "shared context");
    for (int round = 0; round < 3; ++round) {
        pthread_t tid[NTHREADS];
        struct job jobs[NTHREADS];
        for (int t = 0; t < NTHREADS; ++t) {
            jobs[t].thread = t;
            jobs[t].round = round;
            CHECK(pthread_create(&tid[t], NULL, worker, &jobs[t]) == 0, "pthread_create");
        }
        for (int t = 0; t < NTHREADS; ++t) pthread_join(tid[t], NULL);
        shmem_ctx_quiet(shared_ctx);
        shmem_barrier_all();
        for (int t = 0; t < NTHREADS; ++t)
            for (int pe = 0; pe < npes; ++pe) {
                const long *s = slot(t, pe);
                for (int k = 0; k < WORDS; ++k)
                    if (s[k] != value(t, pe, round, k))
                        FAIL("round %d: thread %d of PE %d, word %d: expected %ld, got %ld", round, t, pe, k,
                             value(t, pe, round, k), s[k]);
                CHECK_EQ_INT(value(t, pe, round, 0), shared[(size_t)t * (size_t)npes + (size_t)pe], "shared context");
            }
        shmem_barrier_all();
    }
    /* Independence: a quiet on an idle context returns while another context has a lot in flight,
     * and each quiet completes its own context's puts. */
    shmem_ctx_t a, b;
    CHECK_EQ_INT(0, shmem_ctx_create(SHMEM_CTX_PRIVATE, &a), "ctx a");
    CHECK_EQ_INT(0, shmem_ctx_create(SHMEM_CTX_PRIVATE, &b), "ctx b");
    long *big = shmem_malloc((size_t)1 << 20);
    char *src = calloc(1, (size_t)1 << 20); /* not big itself: a put to this PE would overlap */
    CHECK(big && src, "1 MiB buffers");
    for (int pe = 0; pe < npes; ++pe) shmem_ctx_putmem_nbi(a, big, src, (size_t)1 << 20, pe);
    shmem_ctx_quiet(b);
    shmem_ctx_long_p(b, &shared[0], 4242, (me + 1) % npes);
    shmem_ctx_quiet(b);
    shmem_ctx_quiet(a);
    shmem_barrier_all();
    CHECK_EQ_INT(4242, shared[0], "put on ctx b complete after its quiet");
    shmem_ctx_destroy(a);
    shmem_ctx_destroy(b);
    free(src);
    shmem_ctx_destroy(shared_ctx);
    test_concurrent_teams();
    shmem_team_destroy(rev);
    shmem_free(big);
    shmem_free(sigs);
    shmem_free(parea);
    shmem_free(sarea);
    shmem_free(shared);
    shmem_free(area);
    NOTE("ctx: %d PEs x %d threads OK", npes, NTHREADS);
    shmem_finalize();
    return 0;
}
