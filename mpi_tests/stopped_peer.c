/* stopped_peer: a target that stops answering must not hang its initiator silently.
 *
 * Usage: stopped_peer MODE   (2 PEs; run with USHMEM_WAIT_TIMEOUT set and UCX_TLS=tcp,self, where
 *                             the target itself, or its progress thread, must answer every
 *                             operation: a stopped process answers nothing)
 *
 * The last PE tells PE 0 it is about to stop, then stops itself with SIGSTOP (all its threads,
 * the progress thread included). PE 0 repeats MODE's operation against it until one of them can
 * no longer complete; USHMEM_WAIT_TIMEOUT must then end the job with a message that names the
 * stopped PE (checked by expect_error.sh). Modes:
 *   quiet     shmem_putmem + shmem_quiet
 *   pe_quiet  shmem_putmem_nbi + shmem_pe_quiet
 *   get       blocking shmem_getmem
 *   get_nbi   shmem_getmem_nbi + shmem_quiet (over tcp a batch: one request, one reply)
 *   fadd      shmem_long_atomic_fetch_add
 *   fxor      shmem_ulong_atomic_fetch_xor (over tcp UCX's emulated atomic, not the CSWAP
 *             loop) after shmem_long_atomic_add (over tcp an acknowledged message, sent at once)
 *   fence     shmem_putmem + shmem_fence + shmem_putmem + shmem_quiet
 *   iget      shmem_long_iget of 4 elements (over tcp one request message, one reply)
 *   iput      shmem_long_iput of 4 elements + shmem_quiet (one message, then the quiet)
 *   bulk      shmem_putmem of 1 MiB + shmem_quiet (a bulk message, USHMEM_BULK_MIN: the put itself
 *             waits for the target's answer to its request to send)
 *   ctx_put, ctx_signal, ctx_iput, ctx_get_nbi
 *             the same on a private context (its own UCX worker, whose messages the target
 *             acknowledges on UCX's reply endpoint): shmem_ctx_putmem, shmem_ctx_putmem_signal,
 *             shmem_ctx_long_iput, shmem_ctx_getmem_nbi, each + shmem_ctx_quiet; the context's endpoint is connected
 *             before the target stops (what is tested is the quiet, not the connection)
 *   ctx_destroy_put  shmem_ctx_putmem on a private context, then shmem_ctx_destroy without a
 *             quiet: the destroy completes the put first, which must time out like a quiet. Each
 *             round takes the next of CTX_POOL contexts, all connected before the target stops:
 *             a context created after it stopped would time out in its connection instead
 *   ctx_destroy  shmem_ctx_destroy of a private context whose operations all completed before
 *             the target stopped: it closes the context's endpoints (a flush of each) and must
 *             return; PE 0 then says so and calls shmem_global_exit(3)
 *   barrier   every other PE: shmem_barrier_all (the timeout must name the stopped PE as the
 *             member keeping the collective waiting)
 *   reduce    every other PE: shmem_long_sum_reduce on SHMEM_TEAM_WORLD (likewise)
 *   broadcast every other PE: 8 B shmem_broadcastmem from PE 0 on SHMEM_TEAM_WORLD (eager: the
 *             root runs ahead until its mailbox ring is used up, then waits for the stopped PE)
 * If the loop ends (the operations kept completing), PE 0 says so and exits 0, which the test
 * reports as a failure. */
#include "common.h"

#include <signal.h>
#include <unistd.h>

static long flag = 0;
static long data[16];
#define CTX_POOL 16

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 2, "usage: stopped_peer quiet|pe_quiet|get|get_nbi|fadd|fxor|fence|iget|iput|bulk|ctx_put|ctx_signal|ctx_iput|ctx_get_nbi|ctx_destroy_put|ctx_destroy|barrier|reduce|broadcast");
    const char *mode = argv[1];
    shmem_init();
    const int me = shmem_my_pe(), target = shmem_n_pes() - 1;
    CHECK(shmem_n_pes() >= 2, "needs at least 2 PEs");
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT, pool[CTX_POOL];
    int pooled = 0, next = 0;
    if (me == 0 && !strncmp(mode, "ctx_", 4)) {
        pooled = !strcmp(mode, "ctx_destroy_put") ? CTX_POOL : 1;
        for (int k = 0; k < pooled; ++k) {
            CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &pool[k]) == 0, "shmem_ctx_create failed");
            shmem_ctx_putmem_signal(pool[k], data, &data[9], sizeof data[9], (uint64_t *)&data[8], 1,
                                    SHMEM_SIGNAL_ADD, target);
            shmem_ctx_quiet(pool[k]);
        }
        ctx = pool[0];
    }
    /* Every PE runs the same mode: the allocation is collective. */
    char *big = !strcmp(mode, "bulk") ? shmem_calloc(1, (size_t)1 << 20) : NULL;
    shmem_barrier_all();
    if (me == target) {
        shmem_long_p(&flag, 1, 0);
        shmem_quiet();
        raise(SIGSTOP);
        /* Only a SIGCONT (never sent by the test) gets here. */
        shmem_finalize();
        return 0;
    }
    if (!strcmp(mode, "barrier") || !strcmp(mode, "reduce") || !strcmp(mode, "broadcast")) {
        /* Every other PE: the collective that the stopped PE never joins. */
        static long src = 1, dst = 0;
        for (long i = 0; i < 100000000L; ++i) {
            if (!strcmp(mode, "barrier")) shmem_barrier_all();
            else if (!strcmp(mode, "reduce")) shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
            else shmem_broadcastmem(SHMEM_TEAM_WORLD, &dst, &src, sizeof src, 0);
        }
        printf("[PE %d] stopped_peer %s: the collective completed without the stopped PE\n", me, mode);
        fflush(stdout);
        return 0;
    }
    if (me == 0) {
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
        long v = 0;
        int known = 1;
        for (long i = 0; i < 100000000L; ++i) {
            if (!strcmp(mode, "quiet")) {
                shmem_putmem(data, &i, sizeof i, target);
                shmem_quiet();
            } else if (!strcmp(mode, "pe_quiet")) {
                shmem_putmem_nbi(data, &i, sizeof i, target);
                shmem_pe_quiet(&target, 1);
            } else if (!strcmp(mode, "get")) {
                shmem_getmem(&v, data, sizeof v, target);
            } else if (!strcmp(mode, "get_nbi")) {
                shmem_getmem_nbi(&v, data, sizeof v, target);
                shmem_quiet();
            } else if (!strcmp(mode, "fadd")) {
                v += shmem_long_atomic_fetch_add(&data[1], 1, target);
            } else if (!strcmp(mode, "fxor")) {
                shmem_long_atomic_add(&data[2], 1, target);
                v += (long)shmem_ulong_atomic_fetch_xor((unsigned long *)&data[1], 1, target);
            } else if (!strcmp(mode, "iget")) {
                long got[4];
                shmem_long_iget(got, data, 1, 2, 4, target);
                v += got[0];
            } else if (!strcmp(mode, "bulk")) {
                big[0] = (char)i;
                shmem_putmem(big, big, (size_t)1 << 20, target);
                shmem_quiet();
            } else if (!strcmp(mode, "iput")) {
                long put[4] = {i, i, i, i};
                shmem_long_iput(data, put, 2, 1, 4, target);
                shmem_quiet();
            } else if (!strcmp(mode, "ctx_destroy")) {
                shmem_ctx_destroy(ctx);
                printf("[PE 0] stopped_peer ctx_destroy: shmem_ctx_destroy returned\n");
                fflush(stdout);
                shmem_global_exit(3);
            } else if (!strcmp(mode, "ctx_destroy_put")) {
                if (next == pooled) break; /* the target answered them all: the failure below */
                shmem_ctx_putmem(pool[next], data, &i, sizeof i, target);
                shmem_ctx_destroy(pool[next++]);
            } else if (!strncmp(mode, "ctx_", 4)) {
                if (!strcmp(mode, "ctx_get_nbi")) {
                    shmem_ctx_getmem_nbi(ctx, &v, data, sizeof v, target);
                } else if (!strcmp(mode, "ctx_put")) {
                    shmem_ctx_putmem(ctx, data, &i, sizeof i, target);
                } else if (!strcmp(mode, "ctx_signal")) {
                    shmem_ctx_putmem_signal(ctx, data, &i, sizeof i, (uint64_t *)&data[8], 1, SHMEM_SIGNAL_ADD, target);
                } else if (!strcmp(mode, "ctx_iput")) {
                    long put[4] = {i, i, i, i};
                    shmem_ctx_long_iput(ctx, data, put, 2, 1, 4, target);
                } else {
                    known = 0;
                    break;
                }
                shmem_ctx_quiet(ctx);
            } else if (!strcmp(mode, "fence")) {
                shmem_putmem(data, &i, sizeof i, target);
                shmem_fence();
                shmem_putmem(data + 1, &i, sizeof i, target);
                shmem_quiet();
            } else {
                known = 0;
                break;
            }
        }
        CHECK(known, "unknown mode");
        printf("[PE 0] stopped_peer %s: every operation completed against a stopped PE (%ld); "
               "expected USHMEM_WAIT_TIMEOUT to end the job\n", mode, v);
        fflush(stdout);
        return 0;
    }
    /* Other PEs (more than 2): wait for the job to be ended. */
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 2);
    shmem_finalize();
    return 0;
}
