/* OSU-style OpenSHMEM RMA micro-benchmark: latency and bandwidth of put/get between 2 PEs.
 *
 * Uses only <shmem.h> (OpenSHMEM 1.4 subset), so the same source builds against ushmem (CMake target
 * bench_shmem_rma) and against Open MPI's OSHMEM (`oshcc -O2`), which gives a side-by-side figure.
 * PE 0 initiates every operation; the last PE is the target and only waits in shmem_barrier_all
 * (with more than 2 PEs the others wait there too: the figure then includes their noise).
 *
 *   put_lat     shmem_putmem(size) + shmem_quiet          (per operation)
 *   get_lat     shmem_getmem(size)                        (blocking)
 *   p_lat       shmem_long_p + shmem_quiet                (8 B)
 *   g_lat       shmem_long_g                              (8 B)
 *   put_bw      window x shmem_putmem_nbi + shmem_quiet   (OSU-style window)
 *   get_bw      window x shmem_getmem_nbi + shmem_quiet
 *   put_bw_blk  window x shmem_putmem + shmem_quiet
 *   get_bw_blk  window x shmem_getmem
 *   put_nbi_lat shmem_putmem_nbi(size) + shmem_quiet
 *   get_nbi_lat shmem_getmem_nbi(size) + shmem_quiet
 *   msg_rate    window x 8 B shmem_putmem_nbi + shmem_quiet  (millions of puts per second)
 *   put_rate    window x 8 B shmem_putmem + shmem_quiet  (the same with blocking puts: OSU's put_mr)
 *   iput_lat    shmem_long_iput of 64 longs, dest stride 2, + shmem_quiet (size 512 B)
 *   iget_lat    shmem_long_iget of 64 longs, source stride 2 (size 512 B)
 *   ctx_put_lat, ctx_msg_rate   put_lat and msg_rate on a SHMEM_CTX_PRIVATE context (shmem_ctx_*)
 *   spread_rate as msg_rate, the puts to every PE but 0 in turn (at 2 PEs: msg_rate)
 *
 * Locations: "heap" = shmem_malloc'd symmetric heap, "static" = a global array (symmetric data
 * segment). For a put, src is the local source and dst the remote target; for a get, src is the
 * remote source and dst the local destination.
 *
 * Run: mpirun -np 2 ./bench_shmem_rma [--quick] ...   (see --help). Needs 2 PEs or more.
 */
#define _GNU_SOURCE
#include <shmem.h>

#include "rma_common.h"

/* Global arrays: symmetric static data. Page aligned so that they start on a page of their own. */
static char g_src[RB_MAX_SIZE] __attribute__((aligned(4096)));
static char g_dst[RB_MAX_SIZE] __attribute__((aligned(4096)));
static long g_lsrc __attribute__((aligned(64)));
static long g_ldst __attribute__((aligned(64)));

struct ctx {
    char *src[RB_NLOCS]; /* [heap, static]: buffers that are a put's source / a get's remote source */
    char *dst[RB_NLOCS]; /* buffers that are a put's remote target / a get's local destination */
    long *lsrc[RB_NLOCS]; /* 8-byte words for p_lat / g_lat, same roles */
    long *ldst[RB_NLOCS];
    int window;
    int target; /* the last PE */
    long sink;
    shmem_ctx_t priv; /* ctx_put_lat, ctx_msg_rate: a SHMEM_CTX_PRIVATE context (its own UCX worker in ushmem) */
};

static double run_batch(void *vctx, const struct rb_job *j, long n)
{
    struct ctx *c = vctx;
    char *src = c->src[j->src];
    char *dst = c->dst[j->dst];
    const size_t size = j->size;
    const int w = c->window;
    const int pe = c->target;
    long acc = 0;
    double t0 = rb_now_ns();
    switch (j->test) {
    case RB_PUT_LAT:
        for (long i = 0; i < n; ++i) {
            shmem_putmem(dst, src, size, pe);
            shmem_quiet();
        }
        break;
    case RB_GET_LAT:
        for (long i = 0; i < n; ++i) shmem_getmem(dst, src, size, pe);
        break;
    case RB_P_LAT: {
        long *target = c->ldst[j->dst];
        const long v = *(volatile long *)c->lsrc[j->src]; /* local value: tag set by the check code */
        for (long i = 0; i < n; ++i) {
            shmem_long_p(target, v, pe);
            shmem_quiet();
        }
        break;
    }
    case RB_G_LAT: {
        const long *source = c->lsrc[j->src];
        for (long i = 0; i < n; ++i) acc += shmem_long_g(source, pe);
        break;
    }
    case RB_PUT_NBI_LAT:
        for (long i = 0; i < n; ++i) {
            shmem_putmem_nbi(dst, src, size, pe);
            shmem_quiet();
        }
        break;
    case RB_GET_NBI_LAT:
        for (long i = 0; i < n; ++i) {
            shmem_getmem_nbi(dst, src, size, pe);
            shmem_quiet();
        }
        break;
    case RB_IPUT_LAT:
        for (long i = 0; i < n; ++i) {
            shmem_long_iput((long *)(void *)dst, (const long *)(const void *)src, 2, 1, size / 8, pe);
            shmem_quiet();
        }
        break;
    case RB_IGET_LAT:
        for (long i = 0; i < n; ++i) shmem_long_iget((long *)(void *)dst, (const long *)(const void *)src, 1, 2, size / 8, pe);
        break;
    case RB_CTX_PUT_LAT:
        for (long i = 0; i < n; ++i) {
            shmem_ctx_putmem(c->priv, dst, src, size, pe);
            shmem_ctx_quiet(c->priv);
        }
        break;
    case RB_CTX_MSG_RATE:
        for (long i = 0; i < n; ++i) {
            for (int k = 0; k < w; ++k) shmem_ctx_putmem_nbi(c->priv, dst, src, size, pe);
            shmem_ctx_quiet(c->priv);
        }
        break;
    case RB_SPREAD_RATE: {
        const int others = shmem_n_pes() - 1;
        for (long i = 0; i < n; ++i) {
            for (int k = 0; k < w; ++k) shmem_putmem_nbi(dst, src, size, 1 + k % others);
            shmem_quiet();
        }
        break;
    }
    case RB_MSG_RATE:
    case RB_PUT_BW:
        for (long i = 0; i < n; ++i) {
            for (int k = 0; k < w; ++k) shmem_putmem_nbi(dst, src, size, pe);
            shmem_quiet();
        }
        break;
    case RB_GET_RATE:
    case RB_GET_BW:
        for (long i = 0; i < n; ++i) {
            for (int k = 0; k < w; ++k) shmem_getmem_nbi(dst, src, size, pe);
            shmem_quiet();
        }
        break;
    case RB_PUT_RATE:
    case RB_PUT_BW_BLK:
        for (long i = 0; i < n; ++i) {
            for (int k = 0; k < w; ++k) shmem_putmem(dst, src, size, pe);
            shmem_quiet();
        }
        break;
    case RB_GET_BW_BLK:
        for (long i = 0; i < n; ++i)
            for (int k = 0; k < w; ++k) shmem_getmem(dst, src, size, pe);
        break;
    default: break;
    }
    double t1 = rb_now_ns();
    c->sink += acc;
    return t1 - t0;
}

static int check_bytes(const char *what, const struct rb_job *j, const char *buf, unsigned char tag, int me)
{
    const unsigned char *b = (const unsigned char *)buf;
    const size_t last = rb_dst_span(j->test, j->size) - 1;
    if (b[0] == tag && b[last] == tag) return 0;
    fprintf(stderr, "CHECK FAILED pe=%d test=%s size=%zu src=%s dst=%s: %s got [0]=%u [last]=%u want %u\n", me,
            rb_test_names[j->test], j->size, rb_loc_names[j->src], rb_loc_names[j->dst], what, b[0], b[last], tag);
    return 1;
}

int main(int argc, char **argv)
{
    struct rb_opts o;
    memset(&o, 0, sizeof o);
    o.supported = ((1u << RB_NTESTS) - 1) & ~(1u << RB_FADD_LAT); /* atomics: shmem_amo.c */
    int prc = rb_parse_opts(argc, argv, &o);

    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    if (prc != 0 || npes < 2) {
        if (me == 0 && prc == 0) fprintf(stderr, "%s: needs 2 PEs or more (got %d)\n", argv[0], npes);
        shmem_finalize();
        return prc == 1 ? 0 : 2;
    }

    struct ctx c;
    memset(&c, 0, sizeof c);
    c.window = o.window;
    c.target = npes - 1;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &c.priv) != 0) {
        fprintf(stderr, "pe %d: shmem_ctx_create(SHMEM_CTX_PRIVATE) failed\n", me);
        shmem_global_exit(3);
    }
    c.src[RB_HEAP] = shmem_malloc(RB_MAX_SIZE);
    c.dst[RB_HEAP] = shmem_malloc(RB_MAX_SIZE);
    long *hl = shmem_malloc(2 * sizeof(long));
    if (!c.src[RB_HEAP] || !c.dst[RB_HEAP] || !hl) {
        fprintf(stderr, "pe %d: shmem_malloc of 2 x %zu B failed (symmetric heap too small?)\n", me, RB_MAX_SIZE);
        shmem_global_exit(3);
    }
    c.src[RB_STATIC] = g_src;
    c.dst[RB_STATIC] = g_dst;
    c.lsrc[RB_HEAP] = &hl[0];
    c.ldst[RB_HEAP] = &hl[1];
    c.lsrc[RB_STATIC] = &g_lsrc;
    c.ldst[RB_STATIC] = &g_ldst;
    /* Touch everything so no page fault lands in a timed loop. */
    memset(c.src[RB_HEAP], 0, RB_MAX_SIZE);
    memset(c.dst[RB_HEAP], 0, RB_MAX_SIZE);
    memset(g_src, 0, RB_MAX_SIZE);
    memset(g_dst, 0, RB_MAX_SIZE);
    hl[0] = hl[1] = 0;
    g_lsrc = g_ldst = 0;

    struct rb_job *jobs = calloc(RB_MAX_JOBS, sizeof *jobs);
    struct rb_result *res = calloc(RB_MAX_JOBS, sizeof *res);
    const int njobs = rb_build_jobs(&o, jobs);

    if (me == 0) {
        int major = 0, minor = 0;
        char name[256] = {0};
        shmem_info_get_version(&major, &minor);
        shmem_info_get_name(name);
        printf("INFO impl=shmem lib=\"%s\" spec=%d.%d npes=%d mode=%s jobs=%d window=%d\n", name, major, minor, npes,
               o.mode, njobs, o.window);
        printf("INFO pe=0 heap_page_kb=%ld static_page_kb=%ld\n", rb_page_kb(c.dst[RB_HEAP]), rb_page_kb(g_dst));
        fflush(stdout);
    }
    shmem_barrier_all();
    if (me == c.target) {
        printf("INFO pe=%d heap_page_kb=%ld static_page_kb=%ld\n", me, rb_page_kb(c.dst[RB_HEAP]), rb_page_kb(g_dst));
        fflush(stdout);
    }

    int errors = 0;
    for (int i = 0; i < njobs; ++i) {
        const struct rb_job *j = &jobs[i];
        const unsigned char tag = rb_tag(i);
        const int put = rb_is_put(j->test);
        const int word = j->test == RB_P_LAT || j->test == RB_G_LAT; /* long words, not byte buffers */
        /* Prepare the data the operation moves: the initiator's source for a put, the target's for a get. */
        if ((put && me == 0) || (!put && me == c.target)) {
            if (word) *c.lsrc[j->src] = tag;
            else memset(c.src[j->src], tag, rb_src_span(j->test, j->size));
        }
        /* Clear what the operation writes: the target's buffer for a put, the initiator's for a get. */
        if ((put && me == c.target) || (!put && me == 0)) {
            if (word) *c.ldst[j->dst] = 0;
            else memset(c.dst[j->dst], 0, rb_dst_span(j->test, j->size));
        }
        shmem_barrier_all();
        if (me == 0) {
            rb_measure(&o, j, run_batch, &c, &res[i]);
            rb_print_result(&o, &res[i]);
            if (o.check && !put) {
                if (word) {
                    long v = shmem_long_g(c.lsrc[j->src], c.target);
                    if (v != tag) {
                        fprintf(stderr, "CHECK FAILED pe=0 test=%s: got %ld want %u\n", rb_test_names[j->test], v, tag);
                        ++errors;
                    }
                } else {
                    errors += check_bytes("local destination", j, c.dst[j->dst], tag, me);
                }
            }
        }
        shmem_barrier_all();
        if (me == c.target && o.check && put) {
            if (word) {
                long v = *(volatile long *)c.ldst[j->dst];
                if (v != tag) {
                    fprintf(stderr, "CHECK FAILED pe=%d test=%s dst=%s: got %ld want %u\n", me,
                            rb_test_names[j->test], rb_loc_names[j->dst], v, tag);
                    ++errors;
                }
            } else {
                errors += check_bytes("remote target", j, c.dst[j->dst], tag, me);
            }
        }
    }
    shmem_barrier_all();
    if (me == 0) {
        rb_print_table(&o, "shmem_rma", res, njobs);
        printf("DONE errors=%d sink=%ld\n", errors, c.sink & 1);
        fflush(stdout);
    } else if (errors) {
        printf("DONE pe=%d errors=%d\n", me, errors);
        fflush(stdout);
    }
    shmem_free(hl);
    shmem_free(c.dst[RB_HEAP]);
    shmem_free(c.src[RB_HEAP]);
    free(jobs);
    free(res);
    shmem_ctx_destroy(c.priv);
    shmem_finalize();
    return errors ? 1 : 0;
}
