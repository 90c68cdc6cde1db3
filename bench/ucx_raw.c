/* Raw UCX baseline for the RMA benchmark: the same tests, plan, timing and RESULT lines as
 * shmem_rma.c (rma_common.h), done directly with UCP and no ushmem, so that a run under the same
 * UCX_TLS shows what the ushmem layer adds on the network path.
 *
 * Bootstrapped over MPI (worker addresses, packed rkeys and segment addresses are exchanged with
 * MPI_Allgather). Rank 0 initiates; rank 1 is the target and drives ucp_worker_progress while it
 * waits (MPI_Ibarrier + MPI_Test), because with UCX_TLS=tcp RMA is emulated in software on the
 * target, as in ushmem's progress thread.
 *
 *   put_lat   ucp_put_nbx(size) + ucp_worker_flush_nbx
 *   get_lat   ucp_get_nbx(size) + ucp_worker_flush_nbx
 *   put_bw    window x ucp_put_nbx + one worker flush
 *   get_bw    window x ucp_get_nbx + one worker flush
 *   msg_rate  window x 8 B ucp_put_nbx + one worker flush
 *   fadd_lat  8 B ucp_atomic_op_nbx(UCP_ATOMIC_OP_ADD) with a reply buffer, waited for (a fetch-add;
 *             not in the default plan, -t fadd_lat; the context then also asks for UCP_FEATURE_AMO64)
 * Memory: one ucp_mem_map(UCP_MEM_MAP_ALLOCATE) segment [src | dst] of 2 x 4 MiB per rank (what
 * ushmem's heap is); only the heap location is offered.
 * It also prints the sizes that the scale projection (docs/benchmarks.md) uses:
 *   INFO worker_address_bytes=N rkey_bytes=N
 *
 *   mpirun -np 2 -x UCX_TLS=tcp,self ./bench_ucx_raw [rma_common options]
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <ucp/api/ucp.h>

#include "mpi_pair.h"
#include "rma_common.h"

struct ctx {
    ucp_worker_h worker;
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    char *base;        /* local [src | dst] */
    uint64_t rbase;    /* the peer's */
    int window;
    long fadds;        /* fetch-adds issued in the current job (its data check) */
};

static void wait_req(ucp_worker_h w, void *req, const char *what)
{
    if (req == NULL) return;
    if (UCS_PTR_IS_ERR(req)) {
        fprintf(stderr, "bench_ucx_raw: %s failed: %s\n", what, ucs_status_string(UCS_PTR_STATUS(req)));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    while (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(w);
    ucp_request_free(req);
}

/* Issued operations: a returned request is released at once (UCP frees it when it completes);
 * the flush that follows is what the benchmark waits for. */
static inline void issue(struct ctx *c, int put, void *local, uint64_t remote, size_t size)
{
    ucp_request_param_t p = {0};
    void *req = put ? ucp_put_nbx(c->ep, local, size, remote, c->rkey, &p)
                    : ucp_get_nbx(c->ep, local, size, remote, c->rkey, &p);
    if (UCS_PTR_IS_ERR(req)) {
        fprintf(stderr, "bench_ucx_raw: ucp_%s_nbx failed: %s\n", put ? "put" : "get",
                ucs_status_string(UCS_PTR_STATUS(req)));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (req) ucp_request_free(req);
}

static inline void flush(struct ctx *c)
{
    ucp_request_param_t p = {0};
    wait_req(c->worker, ucp_worker_flush_nbx(c->worker, &p), "ucp_worker_flush_nbx");
}

/* A fetch-add of `add` to the peer's word at the start of its dst half; returns the old value. */
static uint64_t fetch_add(struct ctx *c, uint64_t add)
{
    uint64_t old = 0;
    ucp_request_param_t p = {0};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    p.datatype = ucp_dt_make_contig(sizeof add);
    p.reply_buffer = &old;
    wait_req(c->worker, ucp_atomic_op_nbx(c->ep, UCP_ATOMIC_OP_ADD, &add, 1, c->rbase + RB_MAX_SIZE, c->rkey, &p),
             "ucp_atomic_op_nbx");
    return old;
}

static double run_batch(void *vctx, const struct rb_job *j, long n)
{
    struct ctx *c = vctx;
    if (j->test == RB_FADD_LAT) {
        uint64_t acc = 0;
        double t0 = rb_now_ns();
        for (long i = 0; i < n; ++i) acc += fetch_add(c, 1);
        double t1 = rb_now_ns();
        c->fadds += n;
        __asm__ volatile("" : : "r"(acc)); /* keep the fetched values alive */
        return t1 - t0;
    }
    const int put = rb_is_put(j->test);
    const int wn = rb_is_windowed(j->test) ? c->window : 1;
    /* put: local src -> remote dst; get: remote src -> local dst */
    char *local = put ? c->base : c->base + RB_MAX_SIZE;
    const uint64_t remote = put ? c->rbase + RB_MAX_SIZE : c->rbase;
    double t0 = rb_now_ns();
    for (long i = 0; i < n; ++i) {
        for (int k = 0; k < wn; ++k) issue(c, put, local, remote, j->size);
        flush(c);
    }
    return rb_now_ns() - t0;
}

/* A barrier that keeps this rank's UCX worker progressing (the target of emulated RMA). */
static void progress_barrier(ucp_worker_h w)
{
    MPI_Request r;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    while (!done) {
        while (ucp_worker_progress(w)) { /* drain UCX first: MPI_Test costs far more than a progress call */
        }
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    }
}

static void *allgather(const void *mine, size_t len, size_t *offsets, int np)
{
    int *lens = calloc((size_t)np, sizeof *lens), *displs = calloc((size_t)np, sizeof *displs);
    int l = (int)len, total = 0;
    MPI_Allgather(&l, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < np; ++i) {
        displs[i] = total;
        offsets[i] = (size_t)total;
        total += lens[i];
    }
    char *all = malloc((size_t)total);
    MPI_Allgatherv(mine, l, MPI_BYTE, all, lens, displs, MPI_BYTE, MPI_COMM_WORLD);
    free(lens);
    free(displs);
    return all;
}

#define CHECK_UCS(call)                                                                                            \
    do {                                                                                                           \
        ucs_status_t st_ = (call);                                                                                 \
        if (st_ != UCS_OK) {                                                                                       \
            fprintf(stderr, "bench_ucx_raw: %s: %s\n", #call, ucs_status_string(st_));                           \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                                          \
        }                                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    struct rb_opts o;
    memset(&o, 0, sizeof o);
    o.supported = (1u << RB_PUT_LAT) | (1u << RB_GET_LAT) | (1u << RB_PUT_BW) | (1u << RB_GET_BW) | (1u << RB_MSG_RATE) |
                  (1u << RB_GET_RATE) | (1u << RB_FADD_LAT);
    int prc = rb_parse_opts(argc, argv, &o);
    int me;
    const int ended = rb_mpi_pair_start(&argc, &argv, prc, &me);
    if (ended >= 0) return ended;

    ucp_config_t *cfg;
    CHECK_UCS(ucp_config_read(NULL, NULL, &cfg));
    ucp_params_t pp = {0};
    pp.field_mask = UCP_PARAM_FIELD_FEATURES;
    /* Atomics only when asked for: the RMA rows keep the context they always had. */
    pp.features = UCP_FEATURE_RMA | ((o.tests & (1u << RB_FADD_LAT)) ? UCP_FEATURE_AMO64 : 0);
    ucp_context_h uctx;
    CHECK_UCS(ucp_init(&pp, cfg, &uctx));
    ucp_config_release(cfg);
    ucp_worker_params_t wp = {0};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.window = o.window;
    CHECK_UCS(ucp_worker_create(uctx, &wp, &c.worker));

    ucp_address_t *addr;
    size_t addr_len;
    CHECK_UCS(ucp_worker_get_address(c.worker, &addr, &addr_len));
    size_t aoff[2];
    const int np = 2;
    char *addrs = allgather(addr, addr_len, aoff, np);
    ucp_worker_release_address(c.worker, addr);

    ucp_mem_map_params_t mp = {0};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.length = 2 * RB_MAX_SIZE;
    mp.flags = UCP_MEM_MAP_ALLOCATE;
    ucp_mem_h memh;
    CHECK_UCS(ucp_mem_map(uctx, &mp, &memh));
    ucp_mem_attr_t ma = {0};
    ma.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
    CHECK_UCS(ucp_mem_query(memh, &ma));
    c.base = ma.address;
    memset(c.base, 0, 2 * RB_MAX_SIZE);
    void *rkbuf;
    size_t rklen;
    CHECK_UCS(ucp_rkey_pack(uctx, memh, &rkbuf, &rklen));
    size_t roff[2];
    char *rkeys = allgather(rkbuf, rklen, roff, np);
    ucp_rkey_buffer_release(rkbuf);
    uint64_t bases[2], mine = (uint64_t)(uintptr_t)c.base;
    MPI_Allgather(&mine, 1, MPI_UINT64_T, bases, 1, MPI_UINT64_T, MPI_COMM_WORLD);

    const int peer = 1 - me;
    ucp_ep_params_t ep = {0};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = (const ucp_address_t *)(addrs + aoff[peer]);
    CHECK_UCS(ucp_ep_create(c.worker, &ep, &c.ep));
    CHECK_UCS(ucp_ep_rkey_unpack(c.ep, rkeys + roff[peer], &c.rkey));
    c.rbase = bases[peer];

    struct rb_job *jobs = calloc(RB_MAX_JOBS, sizeof *jobs);
    struct rb_result *res = calloc(RB_MAX_JOBS, sizeof *res);
    int njobs = 0;
    {
        struct rb_job *all = calloc(RB_MAX_JOBS, sizeof *all);
        const int nall = rb_build_jobs(&o, all);
        for (int i = 0; i < nall; ++i) /* the heap segment only */
            if (all[i].src == RB_HEAP && all[i].dst == RB_HEAP) jobs[njobs++] = all[i];
        free(all);
    }
    if (me == 0) {
        printf("INFO impl=ucx lib=\"UCX %s\" npes=%d mode=%s jobs=%d window=%d\n", ucp_get_version_string(), np, o.mode,
               njobs, o.window);
        printf("INFO worker_address_bytes=%zu rkey_bytes=%zu\n", addr_len, rklen);
        printf("INFO pe=0 heap_page_kb=%ld static_page_kb=-1\n", rb_page_kb(c.base));
        fflush(stdout);
    }
    int errors = 0;
    for (int i = 0; i < njobs; ++i) {
        const struct rb_job *j = &jobs[i];
        const unsigned char tag = rb_tag(i);
        const int put = rb_is_put(j->test);
        if (j->test == RB_FADD_LAT) { /* the target's word starts at 0; the initiator checks the sum */
            if (me == 1) memset(c.base + RB_MAX_SIZE, 0, sizeof(uint64_t));
            c.fadds = 0;
            progress_barrier(c.worker);
            if (me == 0) {
                rb_measure(&o, j, run_batch, &c, &res[i]);
                rb_print_result(&o, &res[i]);
                const uint64_t have = fetch_add(&c, 0);
                if (o.check && have != (uint64_t)c.fadds) {
                    fprintf(stderr, "CHECK FAILED rank=0 test=fadd_lat: target word %llu, expected %ld\n",
                            (unsigned long long)have, c.fadds);
                    ++errors;
                }
            }
            progress_barrier(c.worker);
            continue;
        }
        if ((put && me == 0) || (!put && me == 1)) memset(c.base, tag, j->size);
        if ((put && me == 1) || (!put && me == 0)) memset(c.base + RB_MAX_SIZE, 0, j->size);
        progress_barrier(c.worker);
        if (me == 0) {
            rb_measure(&o, j, run_batch, &c, &res[i]);
            rb_print_result(&o, &res[i]);
        }
        progress_barrier(c.worker);
        if (o.check && ((put && me == 1) || (!put && me == 0))) {
            const unsigned char *b = (const unsigned char *)c.base + RB_MAX_SIZE;
            if (b[0] != tag || b[j->size - 1] != tag) {
                fprintf(stderr, "CHECK FAILED rank=%d test=%s size=%zu: got [0]=%u [last]=%u want %u\n", me,
                        rb_test_names[j->test], j->size, b[0], b[j->size - 1], tag);
                ++errors;
            }
        }
    }
    progress_barrier(c.worker);
    if (me == 0) {
        rb_print_table(&o, "ucx_raw", res, njobs);
        printf("DONE errors=%d\n", errors);
        fflush(stdout);
    }
    ucp_rkey_destroy(c.rkey);
    ucp_request_param_t cp = {0};
    wait_req(c.worker, ucp_ep_close_nbx(c.ep, &cp), "ucp_ep_close_nbx");
    progress_barrier(c.worker);
    ucp_mem_unmap(uctx, memh);
    ucp_worker_destroy(c.worker);
    ucp_cleanup(uctx);
    free(addrs);
    free(rkeys);
    free(jobs);
    free(res);
    MPI_Finalize();
    return errors ? 1 : 0;
}
