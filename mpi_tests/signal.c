/* signal: put-with-signal and the signal routines.
 *
 *   rounds: every PE sends a payload to its right neighbour with a put-with-signal and waits for
 *       the neighbour's acknowledgement (shmem_signal_add on an ack word, awaited with
 *       shmem_signal_wait_until). The receiver waits for the signal with
 *       shmem_signal_wait_until and, the moment it sees it, checks THE WHOLE PAYLOAD: the signal
 *       must never be visible before its data. Rounds alternate SHMEM_SIGNAL_SET (the signal is
 *       set to the round number) and SHMEM_SIGNAL_ADD (1 is added), blocking and nbi forms,
 *       payloads of 8 B to 1 MiB (1 MiB memcpy uses non-temporal stores), destination and signal
 *       each on the heap or in static data, and go through every routine: the 24 typed forms,
 *       the sized and mem forms, their ctx forms, and the C11 generic shmem_put_signal[_nbi].
 *   a burst: 2000 small rounds back to back (no acknowledgement wait in between beyond what the
 *       payload reuse needs) to catch any reordering of a signal ahead of its data.
 *   signal_add / signal_set / their ctx forms and C11 generic forms / signal_fetch: every PE adds
 *       to one signal word on every PE, totals exact; set then fetch; signal_wait_until's return
 *       value satisfies the condition. */
#include "common.h"

#define MiB ((size_t)1 << 20)
#define PAYLOAD_MAX (MiB + 64)

static int me, npes, right, left;
static unsigned char g_dest[PAYLOAD_MAX] __attribute__((aligned(64)));
static uint64_t g_sig[4] __attribute__((aligned(64)));
static unsigned char *h_dest;
static uint64_t *h_sig;    /* [0] data signal, [1] ack, [2..] signal_add/set tests */
static unsigned char *src; /* private source */
static uint64_t sig_value; /* value the data signal has after the last round (same sequence on all) */
static uint64_t acks[2];   /* acknowledgements received so far on the heap / static ack word */
static int checks;

/* The routine a round uses: which function family sends the payload. */
enum via { VIA_TYPED, VIA_CTX_TYPED, VIA_SIZED, VIA_CTX_SIZED, VIA_MEM, VIA_CTX_MEM, VIA_GENERIC,
           VIA_GENERIC_CTX, NVIA };
static const char *const via_name[NVIA] = {"typed", "ctx typed", "sized", "ctx sized", "mem",
                                           "ctx mem", "generic", "generic ctx"};

/* Typed put_signal for every RMA type, selected by index. n is in bytes (a multiple of the size). */
#define TYPED_LIST(X)                                                                               \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)                      \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)          \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)            \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)                     \
    X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
#define COUNT_ONE(T, N) +1
enum { NTYPED = 0 TYPED_LIST(COUNT_ONE) };
static const size_t typed_size[] = {
#define SIZE_ONE(T, N) sizeof(T),
    TYPED_LIST(SIZE_ONE)};

static void typed_put_signal(int ti, int ctxform, int nbi, void *d, const void *s, size_t bytes,
                             uint64_t *sig, uint64_t v, int op, int pe) {
    int k = 0;
#define CALL_ONE(T, N)                                                                             \
    if (k++ == ti) {                                                                               \
        size_t n_ = bytes / sizeof(T);                                                             \
        if (ctxform && nbi)                                                                        \
            shmem_ctx_##N##_put_signal_nbi(SHMEM_CTX_DEFAULT, (T *)d, (const T *)s, n_, sig, v, op, pe); \
        else if (ctxform)                                                                          \
            shmem_ctx_##N##_put_signal(SHMEM_CTX_DEFAULT, (T *)d, (const T *)s, n_, sig, v, op, pe); \
        else if (nbi)                                                                              \
            shmem_##N##_put_signal_nbi((T *)d, (const T *)s, n_, sig, v, op, pe);                  \
        else                                                                                       \
            shmem_##N##_put_signal((T *)d, (const T *)s, n_, sig, v, op, pe);                      \
        return;                                                                                    \
    }
    TYPED_LIST(CALL_ONE)
#undef CALL_ONE
    FAIL("no typed routine %d", ti);
}

static void sized_put_signal(int bits, int ctxform, int nbi, void *d, const void *s, size_t bytes,
                             uint64_t *sig, uint64_t v, int op, int pe) {
#define SIZED(B)                                                                                   \
    case B:                                                                                        \
        if (ctxform && nbi)                                                                        \
            shmem_ctx_put##B##_signal_nbi(SHMEM_CTX_DEFAULT, d, s, bytes / (B / 8), sig, v, op, pe); \
        else if (ctxform)                                                                          \
            shmem_ctx_put##B##_signal(SHMEM_CTX_DEFAULT, d, s, bytes / (B / 8), sig, v, op, pe);   \
        else if (nbi)                                                                              \
            shmem_put##B##_signal_nbi(d, s, bytes / (B / 8), sig, v, op, pe);                      \
        else                                                                                       \
            shmem_put##B##_signal(d, s, bytes / (B / 8), sig, v, op, pe);                          \
        return;
    switch (bits) {
        SIZED(8) SIZED(16) SIZED(32) SIZED(64) SIZED(128)
    }
#undef SIZED
    FAIL("no sized routine %d", bits);
}

/* One round: send `bytes` to the right neighbour, receive as many from the left. */
static void round_trip(int r, enum via via, int nbi, int op, size_t bytes, int dest_static,
                       int sig_static, int variant) {
    unsigned char *dest = dest_static ? g_dest : h_dest;
    uint64_t *sig = sig_static ? &g_sig[0] : &h_sig[0];
    const int ack_static = !sig_static; /* the other kind */
    uint64_t *ack = ack_static ? &g_sig[1] : &h_sig[1];
    const uint32_t tag = (uint32_t)r;
    uint64_t next = sig_value + 1;
    uint64_t v = op == SHMEM_SIGNAL_SET ? next : 1;
    fill_bytes(src, bytes, me, tag);
    switch (via) {
    case VIA_TYPED:
    case VIA_CTX_TYPED: {
        int ti = variant % NTYPED;
        while (bytes % typed_size[ti]) ti = (ti + 1) % NTYPED;
        typed_put_signal(ti, via == VIA_CTX_TYPED, nbi, dest, src, bytes, sig, v, op, right);
        break;
    }
    case VIA_SIZED:
    case VIA_CTX_SIZED: {
        static const int bits[] = {8, 16, 32, 64, 128};
        int b = bits[variant % 5];
        while (bytes % (size_t)(b / 8)) b /= 2;
        sized_put_signal(b, via == VIA_CTX_SIZED, nbi, dest, src, bytes, sig, v, op, right);
        break;
    }
    case VIA_MEM:
        if (nbi) shmem_putmem_signal_nbi(dest, src, bytes, sig, v, op, right);
        else shmem_putmem_signal(dest, src, bytes, sig, v, op, right);
        break;
    case VIA_CTX_MEM:
        if (nbi) shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, dest, src, bytes, sig, v, op, right);
        else shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, dest, src, bytes, sig, v, op, right);
        break;
    case VIA_GENERIC:
    case VIA_GENERIC_CTX: {
        /* long elements when the size allows, else char. */
        if (bytes % sizeof(long) == 0) {
            long *d = (long *)dest;
            const long *s = (const long *)src;
            size_t n = bytes / sizeof(long);
            if (via == VIA_GENERIC_CTX && nbi) shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, d, s, n, sig, v, op, right);
            else if (via == VIA_GENERIC_CTX) shmem_put_signal(SHMEM_CTX_DEFAULT, d, s, n, sig, v, op, right);
            else if (nbi) shmem_put_signal_nbi(d, s, n, sig, v, op, right);
            else shmem_put_signal(d, s, n, sig, v, op, right);
        } else {
            char *d = (char *)dest;
            const char *s = (const char *)src;
            if (via == VIA_GENERIC_CTX && nbi) shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, d, s, bytes, sig, v, op, right);
            else if (via == VIA_GENERIC_CTX) shmem_put_signal(SHMEM_CTX_DEFAULT, d, s, bytes, sig, v, op, right);
            else if (nbi) shmem_put_signal_nbi(d, s, bytes, sig, v, op, right);
            else shmem_put_signal(d, s, bytes, sig, v, op, right);
        }
        break;
    }
    default: FAIL("bad via");
    }
    /* Receive: the signal first, then the whole payload must be there. */
    uint64_t seen = shmem_signal_wait_until(sig, SHMEM_CMP_GE, next);
    CHECK(seen == next, "round %d: signal is %llu, expected %llu (%s %s%s)", r,
          (unsigned long long)seen, (unsigned long long)next, via_name[via],
          op == SHMEM_SIGNAL_SET ? "SET" : "ADD", nbi ? " nbi" : "");
    CHECK_BYTES(dest, bytes, left, tag,
                "round %d: signal seen before the data: %zu bytes via %s put_signal%s (%s), dest %s, "
                "signal %s",
                r, bytes, via_name[via], nbi ? "_nbi" : "", op == SHMEM_SIGNAL_SET ? "SET" : "ADD",
                dest_static ? "static" : "heap", sig_static ? "static" : "heap");
    ++checks;
    CHECK_EQ_INT(next, shmem_signal_fetch(sig), "shmem_signal_fetch after the round");
    sig_value = next;
    /* Acknowledge to the left neighbour; wait for the right one's before reusing our buffers. */
    if (r % 2) shmem_signal_add(ack, 1, left);
    else shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, ack, 1, left);
    ++acks[ack_static];
    shmem_signal_wait_until(ack, SHMEM_CMP_EQ, acks[ack_static]);
    if (nbi) shmem_quiet();
}

/* signal_add / signal_set on every PE's word; totals and values. */
static void test_signal_ops(void) {
    for (int where = 0; where < 2; ++where) {
        uint64_t *w = where ? &g_sig[2] : &h_sig[2];
        *w = 0;
        shmem_barrier_all();
        for (int t = 0; t < npes; ++t) {
            switch ((t + me) % 4) {
            case 0: shmem_signal_add(w, (uint64_t)me + 1, t); break;
            case 1: shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, w, (uint64_t)me + 1, t); break;
            case 2: shmem_signal_add(SHMEM_CTX_DEFAULT, w, (uint64_t)me + 1, t); break; /* C11 generic */
            default: shmem_signal_add(w, (uint64_t)me + 1, t); break;
            }
        }
        shmem_barrier_all();
        uint64_t want = (uint64_t)npes * (npes + 1) / 2;
        CHECK_EQ_INT(want, shmem_signal_fetch(w), "signal_add total");
        CHECK_EQ_INT(want, shmem_signal_wait_until(w, SHMEM_CMP_EQ, want), "signal_wait_until value");
        shmem_barrier_all();
        /* set: PE me sets its right neighbour's word to a value naming itself. */
        uint64_t v = 0xABCD000000000000ull | (uint64_t)me;
        switch (me % 3) {
        case 0: shmem_signal_set(w, v, right); break;
        case 1: shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, w, v, right); break;
        default: shmem_signal_set(SHMEM_CTX_DEFAULT, w, v, right); break;
        }
        uint64_t want_set = 0xABCD000000000000ull | (uint64_t)left;
        uint64_t got = shmem_signal_wait_until(w, SHMEM_CMP_EQ, want_set);
        CHECK_EQ_INT(want_set, got, "signal_set value seen by signal_wait_until");
        shmem_barrier_all();
        CHECK_EQ_INT(want_set, shmem_signal_fetch(w), "signal_set then signal_fetch");
        /* The other comparison operators of signal_wait_until, satisfied at once. */
        CHECK_EQ_INT(want_set, shmem_signal_wait_until(w, SHMEM_CMP_NE, 0), "wait NE");
        CHECK_EQ_INT(want_set, shmem_signal_wait_until(w, SHMEM_CMP_GT, 1), "wait GT");
        CHECK_EQ_INT(want_set, shmem_signal_wait_until(w, SHMEM_CMP_LE, want_set), "wait LE");
        CHECK_EQ_INT(want_set, shmem_signal_wait_until(w, SHMEM_CMP_LT, UINT64_MAX), "wait LT");
        shmem_barrier_all();
    }
    NOTE("signal_add/signal_set/signal_fetch/signal_wait_until: OK");
}

/* A zero-length put_signal still delivers the signal (heap and static words, SET and ADD). */
static void test_zero_length(void) {
    for (int where = 0; where < 2; ++where) {
        uint64_t *w = where ? &g_sig[3] : &h_sig[3];
        *w = 0;
        shmem_barrier_all();
        shmem_putmem_signal(where ? (void *)g_dest : (void *)h_dest, src, 0, w, 7, SHMEM_SIGNAL_SET, right);
        CHECK_EQ_INT(7, shmem_signal_wait_until(w, SHMEM_CMP_EQ, 7), "zero-length put_signal SET");
        shmem_barrier_all();
        shmem_putmem_signal_nbi(where ? (void *)h_dest : (void *)g_dest, src, 0, w, 2, SHMEM_SIGNAL_ADD, right);
        shmem_quiet();
        CHECK_EQ_INT(9, shmem_signal_wait_until(w, SHMEM_CMP_EQ, 9), "zero-length put_signal_nbi ADD");
        shmem_barrier_all();
    }
    NOTE("zero-length put_signal: OK");
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    h_dest = shmem_malloc(PAYLOAD_MAX);
    h_sig = shmem_calloc(4, sizeof(uint64_t));
    src = malloc(PAYLOAD_MAX);
    CHECK(h_dest && h_sig && src, "allocation");
    memset(h_dest, 0, PAYLOAD_MAX);
    shmem_barrier_all();
    test_signal_ops();
    {
        /* The data signal is the heap or the static word, each with its own value sequence. */
        uint64_t seq_heap = 0, seq_static = 0;
        h_sig[0] = g_sig[0] = 0;
        h_sig[1] = g_sig[1] = 0;
        shmem_barrier_all();
        /* 2000 and 2001: over an emulated transport, with ushmem's 48-byte message header, the
         * last message that goes as one contiguous send (2048 bytes, transport's
         * small_message_max) and the first that goes as pieces. */
        static const size_t sizes[] = {8, 16, 1000, 2000, 2001, 4096, 64 * 1024 + 8, MiB};
        int r = 0;
        for (int via = 0; via < NVIA; ++via)
            for (int si = 0; si < (int)(sizeof sizes / sizeof sizes[0]); ++si)
                for (int combo = 0; combo < 4; ++combo) {
                    int nbi = (r / 2) % 2, op = r % 2 ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
                    int sig_static = combo >> 1;
                    sig_value = sig_static ? seq_static : seq_heap;
                    round_trip(r, (enum via)via, nbi, op, sizes[si], combo & 1, sig_static, r);
                    if (sig_static) seq_static = sig_value;
                    else seq_heap = sig_value;
                    ++r;
                }
        for (int ti = 0; ti < NTYPED; ++ti)
            for (int f = 0; f < 4; ++f) {
                size_t bytes = typed_size[ti] == 16 ? 32 : 24;
                int sig_static = (ti / 2) % 2;
                sig_value = sig_static ? seq_static : seq_heap;
                round_trip(r, f < 2 ? VIA_TYPED : VIA_CTX_TYPED, f % 2,
                           (f / 2) ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET, bytes, ti % 2, sig_static, ti);
                if (sig_static) seq_static = sig_value;
                else seq_heap = sig_value;
                ++r;
            }
        for (int b = 0; b < 5; ++b)
            for (int f = 0; f < 4; ++f) {
                int sig_static = f % 2;
                sig_value = sig_static ? seq_static : seq_heap;
                round_trip(r, f < 2 ? VIA_SIZED : VIA_CTX_SIZED, f % 2,
                           f / 2 ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET, 64, b % 2, sig_static, b);
                if (sig_static) seq_static = sig_value;
                else seq_heap = sig_value;
                ++r;
            }
        NOTE("put_signal rounds: %d rounds over every routine, payload complete whenever the "
             "signal was seen: OK", r);
        /* Burst: one signal word (heap), data alternating heap/static. */
        sig_value = seq_heap;
        /* Over tcp, or with static data reached through UCX emulation, every round waits for
         * the peers' progress: fewer rounds keep an oversubscribed run short. */
        const char *tls = getenv("UCX_TLS"), *sd = getenv("USHMEM_STATIC_DATA");
        int slow = (tls && strstr(tls, "tcp")) || (sd && strcmp(sd, "0") == 0);
        int burst = slow ? 300 : 2000;
        for (int i = 0; i < burst; ++i) {
            size_t bytes = 64 + (size_t)(i % 16) * 256;
            round_trip(100000 + i, i % 3 == 0 ? VIA_MEM : VIA_GENERIC, i % 2,
                       i % 4 < 2 ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET, bytes, (i / 2) % 2, 0, i);
        }
        NOTE("put_signal burst: %d rounds OK", burst);
        shmem_barrier_all();
        test_zero_length();
    }
    shmem_barrier_all();
    NOTE("signal: all OK (%d PEs, %d payload checks on PE 0)", npes, checks);
    free(src);
    shmem_free(h_sig);
    shmem_free(h_dest);
    shmem_finalize();
    return 0;
}
