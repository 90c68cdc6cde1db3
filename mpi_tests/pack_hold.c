/* pack_hold: a put pack that its thread leaves alone is sent by the progress thread
 * (USHMEM_PUT_PACK_HOLD, core/put_pack.cpp's send_held_packs), and blocking puts and non-fetching
 * atomics join packs with USHMEM_PUT_PACK_BLOCKING.
 *
 * Usage: pack_hold nbi|blocking HOLD_SECONDS   (HOLD_SECONDS: the USHMEM_PUT_PACK_HOLD ctest sets)
 *
 * PE 0 -> PE 1 (reached over UCX: run over UCX_TLS=tcp), one round per operation:
 *   nbi       a put_nbi of a long, a put_nbi of 300 bytes;
 *   blocking  shmem_long_p, a blocking putmem of 300 bytes, atomic_add, atomic_set, atomic_inc
 *             (each packed, as a put_nbi is).
 * After each operation PE 0 tells PE 1 by an MPI message (which does not touch the pack) and then
 * computes: it spins reading its own `answer` word, with no library call, for at most 20 s. PE 1
 * waits for the operation's effect (wait_until, bounded by USHMEM_WAIT_TIMEOUT), checks it, and
 * puts the round's number into PE 0's `answer` (PE 0's progress thread applies it). Fails if:
 *   - PE 0 never sees its answer: the pack stayed while PE 0 computed (the hold's send missing);
 *   - PE 0 gets its answer sooner than half the hold after it issued the operation: the operation
 *     was not held in a pack at all (so the first check would prove nothing), or the progress
 *     thread sent the pack before the hold ran out;
 *   - the data or the atomic's result is wrong.
 * Then the same operations in a stream (64 of each, then a quiet), checked after a barrier: the
 * packs that leave when full and at the quiet carry the same data as the held ones.
 *
 * Usage: pack_hold relay ROUNDS   (with USHMEM_PUT_PACK_BLOCKING=1 and a short hold)
 *   The hand-off between a PE's waits and its progress thread, ROUNDS times, in pairs of PEs (0
 *   and 1, 2 and 3): the even PE waits in shmem_long_wait_until for its partner's `go` (its first
 *   progress call kicks a progress thread asleep in poll() back to its park; the wait then sleeps
 *   on the worker's fd itself, arming the worker), then puts a word to the partner (held in a
 *   pack) and computes until the partner answers, at most 20 s. The odd PE computes a varying
 *   while before each `go`, so that the wait sometimes sleeps. A kick lost in that hand-off (the
 *   PE's arm drained UCX's signal before the thread ran) left the thread asleep, and every later
 *   kick with it, while the pack waited: no answer (mpi.pack_hold_blocking failed so in CI under
 *   TSan). Run with UCX_KEEPALIVE_INTERVAL well above 20 s: UCX's keepalive timer (20 s) woke
 *   such a thread, mostly in time to hide it. */
#include "common.h"
#include <mpi.h>
#if TEST_WITH_USHMEM
#include <shmemx.h>
#endif

#define BIG 300
static long word, counter, setword, answer, go;
static unsigned char area[BIG];
static long stream_words[64];
static long stream_counter;
static int me, npes;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned char byte_of(int round, int i) { return (unsigned char)(round * 37 + i * 11 + 3); }

/* PE 0's side of one round: the operation was issued at `issued`; tell PE 1, then compute until
 * it answers. The hold is judged here, on this PE's clock from the issue to the answer: an answer
 * can only follow the operation's arrival, so one sooner than half the hold means it was not held,
 * and a late PE 1 only makes it later. (PE 1 judged it from the return of its MPI_Recv, which may
 * come late on a loaded machine while its progress thread applies the pack on time: "arrived
 * 0.045 s after", a false "not held", at a load of 50-90 on 2 CPUs.) */
static void pe0_compute(int round, const char *what, double hold, double issued) {
    int token = round;
    MPI_Send(&token, 1, MPI_INT, 1, 30, MPI_COMM_WORLD);
    const double deadline = now_s() + 20 + hold;
    while (*(volatile long *)&answer != round) {
        if (now_s() > deadline)
            FAIL("round %d (%s): no answer from PE 1 after %.0f s while this PE computed: its pack was never "
                 "sent (USHMEM_PUT_PACK_HOLD=%g)", round, what, 20 + hold, hold);
    }
    const double took = now_s() - issued;
    CHECK(took >= hold / 2, "round %d (%s): answered %.4f s after this PE issued it, before half the hold (%g s): "
          "not held in a pack", round, what, took, hold);
    NOTE("round %d (%s): answered %.3f s after it was issued (hold %g s): held, then sent by the progress thread",
         round, what, took, hold);
}

/* PE 1's side: wait for PE 0's message, then for the effect. */
static void pe1_wait_start(int round) {
    int token = 0;
    MPI_Recv(&token, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(token == round, "round %d: PE 0 announced round %d", round, token);
}

/* The 300 bytes travel in one record: wait (25 s at most) for the last, then check them all. */
static void wait_last_byte(int round) {
    const double deadline = now_s() + 25;
    while (*(volatile unsigned char *)&area[BIG - 1] != byte_of(round, BIG - 1)) {
        shmem_long_test(&word, SHMEM_CMP_EQ, -1); /* drives this PE's progress */
        CHECK(now_s() < deadline, "round %d: 300 bytes from PE 0 not in after 25 s", round);
    }
}

static void pe1_answer(int round) {
    shmem_long_p(&answer, round, 0);
    shmem_quiet();
}

static void round_nbi(int round, int kind, double hold) {
    const char *what = kind == 0 ? "put_nbi of a long" : "put_nbi of 300 bytes";
    word = 0;
    memset(area, 0, sizeof area);
    answer = 0;
    shmem_barrier_all();
    if (me == 0) {
        const long v = 5000 + round;
        unsigned char src[BIG];
        for (int i = 0; i < BIG; ++i) src[i] = byte_of(round, i);
        const double issued = now_s();
        if (kind == 0) shmem_long_put_nbi(&word, &v, 1, 1);
        else shmem_putmem_nbi(area, src, BIG, 1);
        pe0_compute(round, what, hold, issued);
    } else if (me == 1) {
        pe1_wait_start(round);
        if (kind == 0) {
            shmem_long_wait_until(&word, SHMEM_CMP_EQ, 5000 + round);
        } else {
            wait_last_byte(round);
            for (int i = 0; i < BIG; ++i)
                CHECK(area[i] == byte_of(round, i), "round %d: byte %d is %u, expected %u", round, i, area[i], byte_of(round, i));
        }
        pe1_answer(round);
    }
    shmem_barrier_all();
}

static void round_blocking(int round, int kind, double hold) {
    static const char *names[] = {"shmem_long_p", "blocking putmem of 300 bytes", "atomic_add", "atomic_set",
                                  "atomic_inc"};
    word = 0;
    counter = 100;
    setword = 0;
    memset(area, 0, sizeof area);
    answer = 0;
    shmem_barrier_all();
    if (me == 0) {
        unsigned char src[BIG];
        for (int i = 0; i < BIG; ++i) src[i] = byte_of(round, i);
        const double issued = now_s();
        switch (kind) {
        case 0: shmem_long_p(&word, 7000 + round, 1); break;
        case 1: shmem_putmem(area, src, BIG, 1); memset(src, 0, BIG); break; /* source reusable on return */
        case 2: shmem_long_atomic_add(&counter, 23, 1); break;
        case 3: shmem_long_atomic_set(&setword, 9000 + round, 1); break;
        default: shmem_long_atomic_inc(&counter, 1); break;
        }
        pe0_compute(round, names[kind], hold, issued);
    } else if (me == 1) {
        pe1_wait_start(round);
        switch (kind) {
        case 0: shmem_long_wait_until(&word, SHMEM_CMP_EQ, 7000 + round); break;
        case 1:
            wait_last_byte(round);
            for (int i = 0; i < BIG; ++i)
                CHECK(area[i] == byte_of(round, i), "round %d: byte %d is %u, expected %u", round, i, area[i], byte_of(round, i));
            break;
        case 2: shmem_long_wait_until(&counter, SHMEM_CMP_EQ, 123); break;
        case 3: shmem_long_wait_until(&setword, SHMEM_CMP_EQ, 9000 + round); break;
        default: shmem_long_wait_until(&counter, SHMEM_CMP_EQ, 101); break;
        }
        pe1_answer(round);
    }
    shmem_barrier_all();
}

/* Computes for about `us` microseconds (no library call). */
static void compute_for(double us) {
    const double until = now_s() + us * 1e-6;
    while (now_s() < until) {
    }
}

static void relay(int rounds) {
    word = go = answer = 0;
    shmem_barrier_all();
    const int partner = me ^ 1; /* pairs 0-1, 2-3, ...: at 4 PEs two pairs share the 2 CPUs */
    unsigned seed = 12345u + (unsigned)me;
    for (int r = 1; r <= rounds && partner < npes; ++r) {
        seed = seed * 1103515245u + 12345u;
        if (me % 2 == 0) {
            /* Computing a little first lets the progress thread go to sleep in poll() (the wait's
             * first progress call then kicks it) */
            compute_for((double)((seed >> 16) % 200));
            shmem_long_wait_until(&go, SHMEM_CMP_EQ, r);
            shmem_long_p(&word, r, partner); /* held in the pack until the progress thread sends it */
            const double deadline = now_s() + 20;
            while (*(volatile long *)&answer != r) {
                if (now_s() > deadline)
                    FAIL("relay round %d of %d: no answer from PE %d after 20 s while this PE computed: its pack "
                         "was never sent (the progress thread slept through the pack's hold)", r, rounds, partner);
            }
        } else {
            /* Up to twice a spinning wait's 2 ms: the wait often sleeps, after it kicked its thread
             * without a free CPU for it (this PE computes meanwhile) */
            compute_for((double)((seed >> 16) % 4000));
            shmem_long_p(&go, r, partner);
            shmem_quiet();
            shmem_long_wait_until(&word, SHMEM_CMP_EQ, r);
            shmem_long_p(&answer, r, partner);
            shmem_quiet();
        }
    }
    shmem_barrier_all();
    NOTE("relay: %d rounds OK", rounds);
}

/* Streams to every other PE: 64 of each operation, then one quiet; every PE checks what it got. */
static void streams(int blocking) {
    memset(stream_words, 0, sizeof stream_words);
    stream_counter = 0;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; ++pe) {
        if (pe == me) continue;
        for (int i = 0; i < 64; ++i) {
            const long v = (long)me * 1000 + i;
            if (blocking) {
                if (i % 2) shmem_long_p(&stream_words[i], v, pe);
                else shmem_long_put(&stream_words[i], &v, 1, pe);
                shmem_long_atomic_add(&stream_counter, 1, pe);
            } else {
                shmem_long_put_nbi(&stream_words[i], &v, 1, pe);
            }
        }
    }
    shmem_quiet();
    shmem_barrier_all();
    /* Every PE wrote every word: the last writer is unknown, but each word holds some PE's value
     * for its index, and the counter counts every atomic. */
    for (int i = 0; i < 64; ++i) {
        const long v = stream_words[i];
        CHECK(npes == 1 || (v % 1000 == i && v / 1000 >= 0 && v / 1000 < npes && v / 1000 != me),
              "stream word %d holds %ld", i, v);
    }
    if (blocking) CHECK(stream_counter == 64L * (npes - 1), "stream counter %ld, expected %ld", stream_counter, 64L * (npes - 1));
    shmem_barrier_all();
    NOTE("streams (%s): OK", blocking ? "blocking puts and atomics" : "put_nbi");
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "nbi") && strcmp(argv[1], "blocking") && strcmp(argv[1], "relay"))) {
        fprintf(stderr, "usage: %s nbi|blocking HOLD_SECONDS | relay ROUNDS\n", argv[0]);
        return 2;
    }
    const int blocking = !strcmp(argv[1], "blocking");
    const double hold = atof(argv[2]);
    MPI_Init(&argc, &argv);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes >= 2) {
#if TEST_WITH_USHMEM
        if ((me == 0 || me == 1) && shmemx_pe_is_direct(1 - me)) {
            fprintf(stderr, "pack_hold: PE 0 and PE 1 reach each other directly here (no packing); run over UCX_TLS=tcp\n");
            shmem_global_exit(2);
        }
#endif
        int round = 1;
        if (!strcmp(argv[1], "relay")) {
            relay(atoi(argv[2]));
        } else if (blocking) {
            for (int kind = 0; kind < 5; ++kind) round_blocking(round++, kind, hold);
        } else {
            for (int kind = 0; kind < 2; ++kind) round_nbi(round++, kind, hold);
        }
    }
    if (strcmp(argv[1], "relay")) streams(blocking);
    shmem_finalize();
    MPI_Finalize();
    return 0;
}
