/* MPI RMA equivalent of shmem_rma.c: the same tests, job plan, timing and RESULT lines.
 *
 * Passive target: MPI_Win_lock_all(MPI_MODE_NOCHECK) once, then
 *   put_lat     MPI_Put(size) + MPI_Win_flush(1)
 *   get_lat     MPI_Get(size) + MPI_Win_flush(1)
 *   put_bw      window x MPI_Put + MPI_Win_flush(1)
 *   get_bw      window x MPI_Get + MPI_Win_flush(1)
 *   msg_rate    window x 8 B MPI_Put + MPI_Win_flush(1)   (millions of puts per second)
 *   spread_rate the same to every rank but 0 in turn, + MPI_Win_flush_all
 *   iput_lat    MPI_Put of 64 longs to a vector type (stride 2) + MPI_Win_flush(1)
 *   iget_lat    MPI_Get of 64 longs from a vector type (stride 2) + MPI_Win_flush(1)
 * (p_lat / g_lat / *_blk / *_nbi_lat have no distinct MPI form and are not offered.)
 * With more than 2 ranks, rank 0 targets the last rank and the others wait in MPI_Barrier.
 *
 * Locations, as in shmem_rma.c: "heap" = memory of a window from MPI_Win_allocate (the analogue of
 * the symmetric heap), "static" = a global array exposed with MPI_Win_create (the analogue of
 * symmetric static data). For a put, src is the local source and dst the remote target.
 *
 * Run with the UCX one-sided component:  mpirun --mca osc ucx -np 2 ./bench_mpi_rma [--quick]
 */
#define _GNU_SOURCE
#include <mpi.h>

#include "rma_common.h"

/* One global block for the static windows: [src | dst]. */
static struct {
    char src[RB_MAX_SIZE];
    char dst[RB_MAX_SIZE];
} g_buf __attribute__((aligned(4096)));

struct ctx {
    MPI_Win win[RB_NLOCS]; /* window over [src | dst] of each location */
    char *base[RB_NLOCS];
    int window;
    int target; /* the last rank */
    MPI_Datatype every_other; /* iput/iget_lat's target type: RB_IPUT_BYTES / 8 longs, stride 2 */
};

static const MPI_Aint SRC_OFF = 0, DST_OFF = (MPI_Aint)RB_MAX_SIZE;

static double run_batch(void *vctx, const struct rb_job *j, long n)
{
    struct ctx *c = vctx;
    const int size = (int)j->size;
    const int w = c->window;
    const int pe = c->target;
    double t0 = rb_now_ns();
    if (rb_is_put(j->test)) {
        char *src = c->base[j->src] + SRC_OFF;
        MPI_Win win = c->win[j->dst];
        const int wn = rb_is_windowed(j->test) ? w : 1;
        if (j->test == RB_IPUT_LAT) {
            for (long i = 0; i < n; ++i) {
                MPI_Put(src, size / 8, MPI_LONG, pe, DST_OFF, 1, c->every_other, win);
                MPI_Win_flush(pe, win);
            }
            return rb_now_ns() - t0;
        }
        if (j->test == RB_SPREAD_RATE) {
            for (long i = 0; i < n; ++i) {
                for (int k = 0; k < wn; ++k) MPI_Put(src, size, MPI_BYTE, 1 + k % pe, DST_OFF, size, MPI_BYTE, win);
                MPI_Win_flush_all(win);
            }
            return rb_now_ns() - t0;
        }
        for (long i = 0; i < n; ++i) {
            for (int k = 0; k < wn; ++k) MPI_Put(src, size, MPI_BYTE, pe, DST_OFF, size, MPI_BYTE, win);
            MPI_Win_flush(pe, win);
        }
    } else {
        char *dst = c->base[j->dst] + DST_OFF;
        MPI_Win win = c->win[j->src];
        const int wn = rb_is_windowed(j->test) ? w : 1;
        if (j->test == RB_IGET_LAT) {
            for (long i = 0; i < n; ++i) {
                MPI_Get(dst, size / 8, MPI_LONG, pe, SRC_OFF, 1, c->every_other, win);
                MPI_Win_flush(pe, win);
            }
            return rb_now_ns() - t0;
        }
        for (long i = 0; i < n; ++i) {
            for (int k = 0; k < wn; ++k) MPI_Get(dst, size, MPI_BYTE, pe, SRC_OFF, size, MPI_BYTE, win);
            MPI_Win_flush(pe, win);
        }
    }
    return rb_now_ns() - t0;
}

static int check_bytes(const char *what, const struct rb_job *j, const char *buf, unsigned char tag, int me)
{
    const unsigned char *b = (const unsigned char *)buf;
    const size_t last = rb_dst_span(j->test, j->size) - 1;
    if (b[0] == tag && b[last] == tag) return 0;
    fprintf(stderr, "CHECK FAILED rank=%d test=%s size=%zu src=%s dst=%s: %s got [0]=%u [last]=%u want %u\n", me,
            rb_test_names[j->test], j->size, rb_loc_names[j->src], rb_loc_names[j->dst], what, b[0], b[last], tag);
    return 1;
}

int main(int argc, char **argv)
{
    struct rb_opts o;
    memset(&o, 0, sizeof o);
    o.supported = (1u << RB_PUT_LAT) | (1u << RB_GET_LAT) | (1u << RB_PUT_BW) | (1u << RB_GET_BW) | (1u << RB_MSG_RATE) |
                  (1u << RB_GET_RATE) | (1u << RB_IPUT_LAT) | (1u << RB_IGET_LAT) | (1u << RB_SPREAD_RATE);
    int prc = rb_parse_opts(argc, argv, &o);

    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (prc != 0 || np < 2) {
        if (me == 0 && prc == 0) fprintf(stderr, "%s: needs 2 ranks or more (got %d)\n", argv[0], np);
        MPI_Finalize();
        return prc == 1 ? 0 : 2;
    }

    struct ctx c;
    memset(&c, 0, sizeof c);
    c.window = o.window;
    c.target = np - 1;
    MPI_Type_vector(RB_IPUT_BYTES / 8, 1, 2, MPI_LONG, &c.every_other);
    MPI_Type_commit(&c.every_other);
    MPI_Win_allocate((MPI_Aint)(2 * RB_MAX_SIZE), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.base[RB_HEAP], &c.win[RB_HEAP]);
    c.base[RB_STATIC] = (char *)&g_buf;
    memset(&g_buf, 0, sizeof g_buf);
    MPI_Win_create(&g_buf, (MPI_Aint)sizeof g_buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.win[RB_STATIC]);
    memset(c.base[RB_HEAP], 0, 2 * RB_MAX_SIZE);
    for (int l = 0; l < RB_NLOCS; ++l) MPI_Win_lock_all(MPI_MODE_NOCHECK, c.win[l]);

    struct rb_job *jobs = calloc(RB_MAX_JOBS, sizeof *jobs);
    struct rb_result *res = calloc(RB_MAX_JOBS, sizeof *res);
    const int njobs = rb_build_jobs(&o, jobs);

    if (me == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
        int len = 0;
        MPI_Get_library_version(lib, &len);
        char *nl = strchr(lib, '\n');
        if (nl) *nl = 0;
        char *comma = strchr(lib, ',');
        if (comma) *comma = 0;
        printf("INFO impl=mpi lib=\"%s\" npes=%d mode=%s jobs=%d window=%d\n", lib, np, o.mode, njobs, o.window);
        printf("INFO pe=0 heap_page_kb=%ld static_page_kb=%ld\n", rb_page_kb(c.base[RB_HEAP]), rb_page_kb(&g_buf));
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == c.target) {
        printf("INFO pe=%d heap_page_kb=%ld static_page_kb=%ld\n", me, rb_page_kb(c.base[RB_HEAP]), rb_page_kb(&g_buf));
        fflush(stdout);
    }

    int errors = 0;
    for (int i = 0; i < njobs; ++i) {
        const struct rb_job *j = &jobs[i];
        const unsigned char tag = rb_tag(i);
        const int put = rb_is_put(j->test);
        /* Source data on the side that owns it; clear the destination on the side that receives. */
        if ((put && me == 0) || (!put && me == c.target))
            memset(c.base[j->src] + SRC_OFF, tag, rb_src_span(j->test, j->size));
        if ((put && me == c.target) || (!put && me == 0))
            memset(c.base[j->dst] + DST_OFF, 0, rb_dst_span(j->test, j->size));
        for (int l = 0; l < RB_NLOCS; ++l) MPI_Win_sync(c.win[l]);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) {
            rb_measure(&o, j, run_batch, &c, &res[i]);
            rb_print_result(&o, &res[i]);
            if (o.check && !put) errors += check_bytes("local destination", j, c.base[j->dst] + DST_OFF, tag, me);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == c.target && o.check && put) {
            MPI_Win_sync(c.win[j->dst]);
            errors += check_bytes("remote target", j, c.base[j->dst] + DST_OFF, tag, me);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        rb_print_table(&o, "mpi_rma", res, njobs);
        printf("DONE errors=%d\n", errors);
        fflush(stdout);
    } else if (errors) {
        printf("DONE pe=%d errors=%d\n", me, errors);
        fflush(stdout);
    }
    for (int l = 0; l < RB_NLOCS; ++l) {
        MPI_Win_unlock_all(c.win[l]);
        MPI_Win_free(&c.win[l]);
    }
    MPI_Type_free(&c.every_other);
    free(jobs);
    free(res);
    MPI_Finalize();
    return errors ? 1 : 0;
}
