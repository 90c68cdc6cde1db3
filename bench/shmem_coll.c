/* OSU-style OpenSHMEM collective micro-benchmark: barrier, broadcast, reduce (double sum),
 * fcollect, alltoall and alltoalls (64-bit elements, dest stride 2) over all PEs, at 8 B, 1 KiB,
 * 64 KiB and 1 MiB by default.
 *
 * Only <shmem.h>. With an OpenSHMEM 1.5+ library (ushmem) the team-based routines on
 * SHMEM_TEAM_WORLD are measured by default (--api team); --api legacy measures the deprecated
 * active-set forms (shmem_broadcast64, shmem_double_sum_to_all, shmem_fcollect64,
 * shmem_alltoall64, shmem_alltoalls64 with pSync/pWrk; two pSync arrays alternate, as in OSU's osu_oshm_* tests), which
 * is all an OpenSHMEM 1.4 library (Open MPI's OSHMEM, built with `oshcc -O2`) offers. The barrier
 * (also the untimed one between calls, see coll_common.h) is shmem_barrier_all in both.
 *
 *   mpirun -np 4 ./bench_shmem_coll [--quick] [--api team|legacy] ...   (see --help)
 */
#define _GNU_SOURCE
#include <shmem.h>

#include "coll_common.h"

#if SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
#define HAVE_TEAMS 1
#else
#define HAVE_TEAMS 0
#endif
#ifndef SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE _SHMEM_REDUCE_MIN_WRKDATA_SIZE
#endif
#ifndef SHMEM_SYNC_SIZE
#define SHMEM_SYNC_SIZE _SHMEM_SYNC_SIZE
#endif

static int me, npes, legacy;
static char *src, *dst;
static double *wrk;
static long psync[2][SHMEM_SYNC_SIZE];
static double vals[1024];  /* cb_sum / cb_max: one slot per PE on PE 0 */
static double result;
#if HAVE_TEAMS
static uint64_t pp_sig; /* pingpong's notification: the number of the message (put-with-signal) */
#endif
static long pp_flag;    /* the same without OpenSHMEM 1.5 (a put, a fence, a flag put) */
static long pp_sent;    /* messages so far, the same count on both partners */

static int cb_rank(void) { return me; }
static int cb_nprocs(void) { return npes; }
static void cb_barrier(void) { shmem_barrier_all(); }

static double combine(double mine, int is_max) {
    shmem_double_p(&vals[me], mine, 0);
    shmem_barrier_all();
    if (me == 0) {
        double acc = vals[0];
        for (int i = 1; i < npes; ++i) acc = is_max ? (vals[i] > acc ? vals[i] : acc) : acc + vals[i];
        for (int pe = 0; pe < npes; ++pe) shmem_double_p(&result, acc, pe);
    }
    shmem_barrier_all();
    return result;
}
static double cb_sum(double mine) { return combine(mine, 0); }
static double cb_max(double mine) { return combine(mine, 1); }

static void cb_op(int test, size_t size, long i) {
    const size_t n64 = size / 8 ? size / 8 : 1;
    long *ps = psync[i & 1];
    switch (test) {
    case CB_BARRIER: shmem_barrier_all(); break;
    case CB_BCAST:
#if HAVE_TEAMS
        if (!legacy) {
            shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, size, 0);
            break;
        }
#endif
        shmem_broadcast64(dst, src, n64, 0, 0, 0, npes, ps);
        break;
    case CB_REDUCE:
#if HAVE_TEAMS
        if (!legacy) {
            shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)dst, (double *)src, n64);
            break;
        }
#endif
        shmem_double_sum_to_all((double *)dst, (double *)src, (int)n64, 0, 0, npes, wrk, ps);
        break;
    case CB_FCOLLECT:
#if HAVE_TEAMS
        if (!legacy) {
            shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, size);
            break;
        }
#endif
        shmem_fcollect64(dst, src, n64, 0, 0, npes, ps);
        break;
    case CB_ALLTOALL:
#if HAVE_TEAMS
        if (!legacy) {
            shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, size);
            break;
        }
#endif
        shmem_alltoall64(dst, src, n64, 0, 0, npes, ps);
        break;
    case CB_ALLTOALLS:
#if HAVE_TEAMS
        if (!legacy) {
            shmem_int64_alltoalls(SHMEM_TEAM_WORLD, (int64_t *)dst, (const int64_t *)src, CB_STRIDE, 1, n64);
            break;
        }
#endif
        shmem_alltoalls64(dst, src, CB_STRIDE, 1, n64, 0, 0, npes, ps);
        break;
    case CB_GETALL:
        for (int k = 1; k < npes; ++k) {
            const int p = (me + k) % npes;
            shmem_getmem(dst + (size_t)p * size, src + (size_t)me * size, size, p);
        }
        break;
    case CB_PINGPONG: {
        const int peer = cb_pp_partner(me, npes);
        if (peer < 0) break;
        for (int k = 0; k < 2 * CB_PP_TRIPS; ++k) {
            const long m = ++pp_sent;
            if ((k & 1) == (me > peer)) { /* this one's turn to send */
#if HAVE_TEAMS
                if (!legacy) {
                    shmem_putmem_signal(dst, src, size, &pp_sig, (uint64_t)m, SHMEM_SIGNAL_SET, peer);
                    continue;
                }
#endif
                shmem_putmem(dst, src, size, peer);
                shmem_fence();
                shmem_long_p(&pp_flag, m, peer);
            } else {
#if HAVE_TEAMS
                if (!legacy) {
                    shmem_signal_wait_until(&pp_sig, SHMEM_CMP_GE, (uint64_t)m);
                    continue;
                }
#endif
                shmem_long_wait_until(&pp_flag, SHMEM_CMP_GE, m);
            }
        }
        break;
    }
    }
}

/* Source data: byte k of PE p's buffer (for alltoall: of its block j) is a function of (p, j, k);
 * for the reduction, double k of PE p is p + k % 7. */
static unsigned char pat(int pe, size_t j, size_t k) { return (unsigned char)(pe * 31 + (int)j * 7 + (int)(k % 251)); }

static void fill(size_t size) {
    for (int j = 0; j < npes; ++j)
        for (size_t k = 0; k < size; ++k) src[(size_t)j * size + k] = (char)pat(me, (size_t)j, k);
}

/* One more call, checked. Sizes are multiples of 8 (the 64-bit legacy forms). */
static int check(int test, size_t size) {
    size_t n64 = size / 8 ? size / 8 : 1;
    if (test == CB_BARRIER) return 0;
    if (test == CB_REDUCE) {
        double *s = (double *)src;
        for (size_t k = 0; k < n64; ++k) s[k] = me + (double)(k % 7);
    } else if (test == CB_ALLTOALLS) {
        cb_fill_alltoalls(src, npes, me, n64);
    } else {
        fill(size);
    }
    memset(dst, 0, size * (size_t)npes * CB_STRIDE);
    shmem_barrier_all();
    cb_op(test, size, 0);
    shmem_barrier_all();
    int bad = 0;
    switch (test) {
    case CB_BCAST:
        if (me != 0 || !legacy)
            for (size_t k = 0; k < size && !bad; ++k) bad = (unsigned char)dst[k] != pat(0, 0, k);
        break;
    case CB_REDUCE:
        for (size_t k = 0; k < n64 && !bad; ++k)
            bad = ((double *)dst)[k] != (double)npes * (npes - 1) / 2 + (double)npes * (double)(k % 7);
        break;
    case CB_FCOLLECT:
        for (int p = 0; p < npes && !bad; ++p)
            for (size_t k = 0; k < size && !bad; ++k) bad = (unsigned char)dst[(size_t)p * size + k] != pat(p, 0, k);
        break;
    case CB_ALLTOALL:
    case CB_GETALL: /* (getall leaves its own block alone) */
        for (int p = 0; p < npes && !bad; ++p)
            for (size_t k = 0; k < size && !bad && (test == CB_ALLTOALL || p != me); ++k)
                bad = (unsigned char)dst[(size_t)p * size + k] != pat(p, (size_t)me, k);
        break;
    case CB_ALLTOALLS: bad = cb_check_alltoalls(dst, npes, me, n64); break;
    case CB_PINGPONG: { /* the partner's source, block 0 */
        const int peer = cb_pp_partner(me, npes);
        for (size_t k = 0; k < size && peer >= 0 && !bad; ++k) bad = (unsigned char)dst[k] != pat(peer, 0, k);
        break;
    }
    }
    return bad;
}

int main(int argc, char **argv) {
    struct cb_opts o;
    const char *api = HAVE_TEAMS ? "team" : "legacy";
    int rc = cb_parse(argc, argv, &o, &api);
    if (rc) {
        if (rc > 0) cb_usage(argv[0], "      --api team|legacy  team-based routines (OpenSHMEM 1.5+) or active-set forms\n");
        return rc > 0 ? 0 : 2;
    }
    legacy = strcmp(api, "legacy") == 0;
    if (!HAVE_TEAMS && !legacy) {
        fprintf(stderr, "%s: this OpenSHMEM library has no teams (%d.%d); use --api legacy\n", argv[0],
                SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
        return 2;
    }
    for (int s = 0; s < o.nsizes; ++s)
        if (o.sizes[s] % 8) {
            fprintf(stderr, "%s: sizes must be multiples of 8 (64-bit elements)\n", argv[0]);
            return 2;
        }
    for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) psync[0][i] = psync[1][i] = SHMEM_SYNC_VALUE;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > 1024) {
        if (me == 0) fprintf(stderr, "%s: at most 1024 PEs\n", argv[0]);
        shmem_finalize();
        return 2;
    }
    size_t maxsize = 0;
    for (int s = 0; s < o.nsizes; ++s) maxsize = o.sizes[s] > maxsize ? o.sizes[s] : maxsize;
    src = shmem_malloc(maxsize * (size_t)npes);
    dst = shmem_malloc(maxsize * (size_t)npes * CB_STRIDE);
    size_t nw = maxsize / 8 / 2 + 1;
    wrk = shmem_malloc((nw > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? nw : SHMEM_REDUCE_MIN_WRKDATA_SIZE) * sizeof(double));
    if (!src || !dst || !wrk) {
        if (me == 0) fprintf(stderr, "%s: cannot allocate 3 x %zu bytes of symmetric heap\n", argv[0], maxsize * (size_t)npes);
        shmem_global_exit(1);
    }
    memset(src, 1, maxsize * (size_t)npes);
    shmem_barrier_all();
    char name[SHMEM_MAX_NAME_LEN + 1] = "", tag[SHMEM_MAX_NAME_LEN + 1];
    shmem_info_get_name(name);
    size_t i = 0;
    for (; name[i] && name[i] != ' ' && i < sizeof tag - 1; ++i) tag[i] = name[i];
    tag[i] = '\0';
    if (me == 0) printf("INFO impl=shmem lib=\"%s\" api=%s np=%d version=%d.%d\n", name, api, npes,
                        SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    rc = cb_main(&o, check, tag, api, "OpenSHMEM collectives");
    shmem_barrier_all();
    shmem_free(wrk);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return rc;
}
