/* stress: randomized, model-checked sequences of RMA, AMO, signal, fence and quiet operations.
 *
 * Usage: stress [OPS_PER_PE [SEED]]     (also USHMEM_STRESS_SEED=S; argv wins)
 *
 * Every PE draws its own sequence of operations from a generator seeded with (SEED, PE), so a run
 * is reproducible up to the interleaving of PEs; PE 0 prints the seed and the command line that
 * repeats the run. The model is exact because ownership is disjoint:
 *
 *  - slots: on every PE, in the heap and in static data, PE w owns SLOTS 64-bit words (index
 *    w*SLOTS..). Only w writes them, with p, put, iput, put_nbi, atomic set/add/xor/swap/
 *    compare_swap and fetching and/or/xor/add. For each slot w keeps the value it holds once all
 *    of w's operations are delivered ("last"), the value at the last quiet ("committed") and the
 *    values written since ("pending"). What may be observed follows OpenSHMEM's rules:
 *      * a get, get_nbi (checked at the quiet that completes it) or atomic_fetch may see the
 *        committed value or any pending one (gets are not ordered by fence);
 *      * two writes to one slot must be separated by a fence or quiet (otherwise their order, and
 *        so the final value, would be undefined); the generator inserts one when needed;
 *      * a fetching AMO issued after such a fence must see exactly "last" (fence orders delivery
 *        of puts and AMOs to a PE), and its result becomes the new "last";
 *      * after quiet + barrier, a get of every slot must return exactly "last".
 *  - counters: every PE adds random positive amounts (atomic_add, atomic_fetch_add) to shared
 *    counters on random PEs; a fetch_add must return at least what the same PE saw plus added
 *    before; after each epoch the sums of everyone's contributions (a sum reduction) must equal
 *    the counters exactly.
 *  - messages: w sends a data block to t with put_signal (SET or ADD, blocking or nbi) or with
 *    put + fence + atomic set of the signal; t polls its signals, and a signal it sees must imply
 *    the whole block (the data of exactly that sequence number). t then acknowledges with an
 *    atomic set on w, and w sends to t again only after the acknowledgement, so a block is never
 *    overwritten while it is read. Blocks alternate between heap and static mailboxes.
 *
 * The run is split into epochs; each ends with every PE draining its messages, quiet, barrier
 * and the exact checks. A mismatch is reported with the seed, PE, operation number and location
 * (up to 20 per PE); the job fails at the end if any PE saw one. PE 0 prints the total number of
 * operations and mismatches. */
#include "common.h"

#include <shmemx.h>

#define MAX_PES 16
#define SLOTS 16              /* words owned per writer, per target, per memory kind */
#define MAX_PEND 6            /* pending values kept per slot before a quiet is forced */
#define MAX_GET_NBI 32        /* outstanding get_nbi words before a quiet is forced */
#define MB_LEN 12             /* words per message block */
#define NC 4                  /* shared counters per PE and memory kind */
#define EPOCH_OPS 25000       /* operations per PE between exact checks */
#define MAX_REPORTS 20

enum { HEAP = 0, STATIC = 1, KINDS = 2 };

/* Symmetric static data (moved onto shared memory by ushmem, or registered in place). */
static uint64_t s_slots[MAX_PES * SLOTS];
static uint64_t s_counters[NC];
static uint64_t s_mbox[MAX_PES * MB_LEN];
static long s_ack[MAX_PES];        /* on the sender: last sequence number target t acknowledged */
static long s_finished;            /* on PE 0: PEs done draining, summed over epochs */

/* Symmetric heap data. */
static uint64_t *h_slots, *h_counters, *h_mbox;
static uint64_t *h_sig;            /* on the receiver: signal of sender w */
static long *h_contrib, *h_totals; /* reduction source and destination, KINDS*MAX_PES*NC */

typedef struct {
    uint64_t committed, last;
    uint64_t pend[MAX_PEND];
    int npend;
    unsigned wgen; /* fence generation of the last write (ordering needed if == current) */
} slot_model;

static slot_model model[KINDS][MAX_PES][SLOTS];
static unsigned fence_gen = 1;

typedef struct {
    int kind, pe, slot;
    uint64_t *dest;
    long op;
} get_nbi_rec;
static get_nbi_rec gnbi[MAX_GET_NBI];
static uint64_t gnbi_buf[MAX_GET_NBI];
static int ngnbi;

/* Sources of put_nbi, freed by the next quiet. */
#define NBI_RING 4096
static uint64_t nbi_ring[NBI_RING];
static int nbi_ring_used;

static uint64_t contrib[KINDS][MAX_PES][NC];    /* what this PE added to counter c on PE t */
static uint64_t seen_floor[KINDS][MAX_PES][NC]; /* lower bound of counter c on PE t */

static long sent[MAX_PES], recvd[MAX_PES];
static uint64_t send_buf[MAX_PES][MB_LEN]; /* a nbi source stays untouched until acknowledged */

static int me, npes;
static uint64_t seed;
static uint64_t rng_state;
static long op_no, mismatches;

static uint64_t rng(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int rnd(int n) { return (int)(rng() % (uint64_t)n); }

static uint64_t *slot_addr(int kind, int owner, int slot) {
    return (kind == HEAP ? h_slots : s_slots) + owner * SLOTS + slot;
}
static uint64_t *counter_addr(int kind, int c) { return (kind == HEAP ? h_counters : s_counters) + c; }
static uint64_t *mbox_addr(int kind, int sender) {
    return (kind == HEAP ? h_mbox : s_mbox) + sender * MB_LEN;
}
static uint64_t msg_word(int from, int to, long seq, int k) {
    return ((uint64_t)pattern_word(from * MAX_PES + to, (uint32_t)seq, (uint64_t)k) << 32) |
           pattern_word(to, (uint32_t)seq, (uint64_t)k + 1000);
}

static void mismatch(const char *what, int kind, int pe, int slot, uint64_t got, uint64_t want) {
    if (++mismatches <= MAX_REPORTS) {
        fprintf(stderr,
                "stress MISMATCH [seed %" PRIu64 ", PE %d, op %ld]: %s: %s word %d on PE %d: got "
                "0x%016" PRIx64 ", expected 0x%016" PRIx64 "\n",
                seed, me, op_no, what, kind == HEAP ? "heap" : "static", slot, pe, got, want);
        fflush(stderr);
    }
}

/* May `v` be observed by a get of the slot now? */
static int observable(const slot_model *m, uint64_t v) {
    if (v == m->committed) return 1;
    for (int i = 0; i < m->npend; ++i)
        if (m->pend[i] == v) return 1;
    return 0;
}

static void check_observed(const char *what, int kind, int pe, int slot, uint64_t v) {
    const slot_model *m = &model[kind][pe][slot];
    if (!observable(m, v)) mismatch(what, kind, pe, slot, v, m->last);
}

static void do_quiet(void) {
    shmem_quiet();
    for (int i = 0; i < ngnbi; ++i)
        check_observed("get_nbi", gnbi[i].kind, gnbi[i].pe, gnbi[i].slot, *gnbi[i].dest);
    ngnbi = 0;
    nbi_ring_used = 0;
    for (int k = 0; k < KINDS; ++k)
        for (int t = 0; t < npes; ++t)
            for (int s = 0; s < SLOTS; ++s) {
                slot_model *m = &model[k][t][s];
                m->committed = m->last;
                m->npend = 0;
            }
    ++fence_gen;
}

static void do_fence(void) {
    shmem_fence();
    ++fence_gen;
}

/* Before writing slots [s, s+n*stride) of (kind, t): order after earlier writes, make room. */
static void prepare_write(int kind, int t, int s, int n, int stride) {
    int need_order = 0, full = 0;
    for (int i = 0; i < n; ++i) {
        const slot_model *m = &model[kind][t][s + i * stride];
        need_order |= m->npend > 0 && m->wgen == fence_gen;
        full |= m->npend == MAX_PEND;
    }
    if (full || (need_order && rnd(4) == 0))
        do_quiet();
    else if (need_order)
        do_fence();
}

static void record_write(int kind, int t, int slot, uint64_t v) {
    slot_model *m = &model[kind][t][slot];
    m->last = v;
    m->pend[m->npend++] = v;
    m->wgen = fence_gen;
}

static void op_put(int variant) {
    int kind = rnd(KINDS), t = rnd(npes);
    int stride = variant == 2 ? 1 + rnd(3) : 1;
    int maxn = variant == 0 ? 1 : (SLOTS - 1) / stride + 1;
    int n = 1 + rnd(maxn < 5 ? maxn : 5);
    int s = rnd(SLOTS - (n - 1) * stride);
    prepare_write(kind, t, s, n, stride);
    uint64_t v[SLOTS];
    for (int i = 0; i < n; ++i) v[i] = rng();
    uint64_t *dst = slot_addr(kind, me, s);
    switch (variant) {
    case 0: shmem_uint64_p(dst, v[0], t); break;
    case 1: shmem_uint64_put(dst, v, (size_t)n, t); break;
    case 2: shmem_uint64_iput(dst, v, (ptrdiff_t)stride, 1, (size_t)n, t); break;
    case 3: {
        /* The source of a put_nbi may be reused only after the quiet that completes it (a fence
         * does not): take it from a ring that do_quiet frees. */
        if (nbi_ring_used + n > NBI_RING) do_quiet();
        uint64_t *src = nbi_ring + nbi_ring_used;
        nbi_ring_used += n;
        memcpy(src, v, (size_t)n * sizeof v[0]);
        shmem_uint64_put_nbi(dst, src, (size_t)n, t);
        break;
    }
    }
    for (int i = 0; i < n; ++i) record_write(kind, t, s + i * stride, v[i]);
}

static void op_amo_own(int variant) {
    int kind = rnd(KINDS), t = rnd(npes), s = rnd(SLOTS);
    uint64_t *dst = slot_addr(kind, me, s);
    slot_model *m = &model[kind][t][s];
    uint64_t x = rng(), old, nv;
    /* Ordered after earlier writes of the slot, so that a fetching AMO must return exactly
     * "last" and a non-fetching one has a known result. */
    prepare_write(kind, t, s, 1, 1);
    switch (variant) {
    case 0: shmem_uint64_atomic_set(dst, x, t); nv = x; break;
    case 1: shmem_uint64_atomic_add(dst, x, t); nv = m->last + x; break;
    case 2: shmem_uint64_atomic_xor(dst, x, t); nv = m->last ^ x; break;
    case 3:
        old = shmem_uint64_atomic_swap(dst, x, t);
        if (old != m->last) mismatch("atomic_swap", kind, t, s, old, m->last);
        nv = x;
        break;
    case 4:
        old = shmem_uint64_atomic_compare_swap(dst, m->last, x, t);
        if (old != m->last) mismatch("atomic_compare_swap", kind, t, s, old, m->last);
        nv = x;
        break;
    case 5:
        old = shmem_uint64_atomic_fetch_xor(dst, x, t);
        if (old != m->last) mismatch("atomic_fetch_xor", kind, t, s, old, m->last);
        nv = m->last ^ x;
        break;
    case 6: {
        uint64_t y = x | rng(); /* mostly ones, so that values do not decay to 0 */
        old = shmem_uint64_atomic_fetch_and(dst, y, t);
        if (old != m->last) mismatch("atomic_fetch_and", kind, t, s, old, m->last);
        nv = m->last & y;
        break;
    }
    case 7:
        old = shmem_uint64_atomic_fetch_or(dst, x, t);
        if (old != m->last) mismatch("atomic_fetch_or", kind, t, s, old, m->last);
        nv = m->last | x;
        break;
    default:
        old = shmem_uint64_atomic_fetch_add(dst, x, t);
        if (old != m->last) mismatch("atomic_fetch_add", kind, t, s, old, m->last);
        nv = m->last + x;
        break;
    }
    record_write(kind, t, s, nv);
}

static void op_get(int variant) {
    int kind = rnd(KINDS), t = rnd(npes);
    int n = variant == 1 ? 1 + rnd(6) : 1;
    int s = rnd(SLOTS - n + 1);
    uint64_t *src = slot_addr(kind, me, s);
    uint64_t v[SLOTS];
    switch (variant) {
    case 0: v[0] = shmem_uint64_g(src, t); break;
    case 1: shmem_uint64_get(v, src, (size_t)n, t); break;
    case 2: v[0] = shmem_uint64_atomic_fetch(src, t); break;
    case 3:
        if (ngnbi == MAX_GET_NBI) do_quiet();
        gnbi[ngnbi] = (get_nbi_rec){kind, t, s, &gnbi_buf[ngnbi], op_no};
        shmem_uint64_get_nbi(&gnbi_buf[ngnbi], src, 1, t);
        ++ngnbi;
        return;
    }
    static const char *const names[] = {"g", "get", "atomic_fetch"};
    for (int i = 0; i < n; ++i) check_observed(names[variant], kind, t, s + i, v[i]);
}

static void op_counter(int fetching) {
    int kind = rnd(KINDS), t = rnd(npes), c = rnd(NC);
    uint64_t x = 1 + (rng() & 0xffff);
    if (fetching) {
        uint64_t old = shmem_uint64_atomic_fetch_add(counter_addr(kind, c), x, t);
        if (old < seen_floor[kind][t][c])
            mismatch("counter fetch_add went backwards", kind, t, c, old, seen_floor[kind][t][c]);
        seen_floor[kind][t][c] = old + x;
    } else {
        shmem_uint64_atomic_add(counter_addr(kind, c), x, t);
    }
    contrib[kind][t][c] += x;
}

static void send_message(void) {
    int t = rnd(npes);
    if (shmem_long_atomic_fetch(&s_ack[t], me) != sent[t]) return; /* previous one not yet read */
    long seq = sent[t] + 1;
    uint64_t *buf = send_buf[t];
    for (int k = 0; k < MB_LEN; ++k) buf[k] = msg_word(me, t, seq, k);
    uint64_t *dst = mbox_addr(seq & 1 ? STATIC : HEAP, me);
    size_t bytes = sizeof send_buf[t];
    switch (rnd(5)) {
    case 0: shmem_putmem_signal(dst, buf, bytes, &h_sig[me], (uint64_t)seq, SHMEM_SIGNAL_SET, t); break;
    case 1: shmem_putmem_signal(dst, buf, bytes, &h_sig[me], 1, SHMEM_SIGNAL_ADD, t); break;
    case 2:
        shmem_putmem_signal_nbi(dst, buf, bytes, &h_sig[me], (uint64_t)seq, SHMEM_SIGNAL_SET, t);
        break;
    case 3: shmem_putmem_signal_nbi(dst, buf, bytes, &h_sig[me], 1, SHMEM_SIGNAL_ADD, t); break;
    default: /* the fence ordering check: data, fence, flag */
        shmem_uint64_put(dst, buf, MB_LEN, t);
        do_fence();
        shmem_uint64_atomic_set(&h_sig[me], (uint64_t)seq, t);
        break;
    }
    sent[t] = seq;
}

static void poll_messages(void) {
    for (int w = 0; w < npes; ++w) {
        uint64_t sig = shmem_signal_fetch(&h_sig[w]);
        if ((long)sig == recvd[w]) continue;
        if ((long)sig != recvd[w] + 1) {
            mismatch("signal skipped a sequence number", HEAP, me, w, sig, (uint64_t)recvd[w] + 1);
            recvd[w] = (long)sig;
            continue;
        }
        long seq = (long)sig;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        const volatile uint64_t *mb = mbox_addr(seq & 1 ? STATIC : HEAP, w);
        for (int k = 0; k < MB_LEN; ++k) {
            uint64_t want = msg_word(w, me, seq, k);
            if (mb[k] != want) {
                mismatch("signal seen before its data", seq & 1 ? STATIC : HEAP, me, w * MB_LEN + k,
                         mb[k], want);
                break;
            }
        }
        recvd[w] = seq;
        shmem_long_atomic_set(&s_ack[me], seq, w);
    }
}

/* End of an epoch: deliver and acknowledge every message, then check everything exactly. */
static void end_epoch(int epoch) {
    do_quiet();
    int done = 0;
    /* Only a hang detector (it also waits for the slowest PE's epoch, 10-15 s under TSan with tcp
     * on 2 cores): well beyond that, and still within the ctest timeout (240 s). */
    double deadline = now_seconds() + 180;
    for (;;) {
        poll_messages();
        if (!done) {
            done = 1;
            for (int t = 0; t < npes; ++t) done &= shmem_long_atomic_fetch(&s_ack[t], me) == sent[t];
            if (done) shmem_long_atomic_inc(&s_finished, 0);
        }
        if (done && shmem_long_atomic_fetch(&s_finished, 0) >= (long)npes * epoch) break;
        CHECK(now_seconds() < deadline, "epoch %d: messages not acknowledged within 180 s", epoch);
        sched_yield();
    }
    shmem_quiet();
    shmem_barrier_all();

    /* Every slot this PE owns, on every PE: exactly the last value written. */
    for (int k = 0; k < KINDS; ++k)
        for (int t = 0; t < npes; ++t) {
            uint64_t v[SLOTS];
            shmem_uint64_get(v, slot_addr(k, me, 0), SLOTS, t);
            for (int s = 0; s < SLOTS; ++s)
                if (v[s] != model[k][t][s].last) mismatch("final value", k, t, s, v[s], model[k][t][s].last);
        }
    /* Counters: the sum of every PE's contributions. */
    for (int k = 0; k < KINDS; ++k)
        for (int t = 0; t < MAX_PES; ++t)
            for (int c = 0; c < NC; ++c) h_contrib[(k * MAX_PES + t) * NC + c] = (long)contrib[k][t][c];
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, h_totals, h_contrib, KINDS * MAX_PES * NC);
    for (int k = 0; k < KINDS; ++k)
        for (int c = 0; c < NC; ++c) {
            uint64_t want = (uint64_t)h_totals[(k * MAX_PES + me) * NC + c];
            uint64_t got = *counter_addr(k, c);
            if (got != want) mismatch("counter total", k, me, c, got, want);
        }
    shmem_barrier_all(); /* nobody starts the next epoch's adds before everyone has checked */
}

int main(int argc, char **argv) {
    long ops = argc > 1 ? atol(argv[1]) : 100000;
    const char *env_seed = getenv("USHMEM_STRESS_SEED");
    seed = argc > 2 ? strtoull(argv[2], NULL, 0) : env_seed ? strtoull(env_seed, NULL, 0) : 20261121;
    CHECK_NOSHMEM(ops > 0, "usage: stress [OPS_PER_PE [SEED]]");

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAX_PES, "at most %d PEs", MAX_PES);
    h_slots = shmem_calloc(MAX_PES * SLOTS, sizeof(uint64_t));
    h_counters = shmem_calloc(NC, sizeof(uint64_t));
    h_mbox = shmem_calloc(MAX_PES * MB_LEN, sizeof(uint64_t));
    h_sig = shmem_calloc(MAX_PES, sizeof(uint64_t));
    h_contrib = shmem_calloc(KINDS * MAX_PES * NC, sizeof(long));
    h_totals = shmem_calloc(KINDS * MAX_PES * NC, sizeof(long));
    CHECK(h_slots && h_counters && h_mbox && h_sig && h_contrib && h_totals, "shmem_calloc");
    rng_state = seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(me + 1));
    if (me == 0) {
        printf("stress: seed %" PRIu64 ", %d PEs, %ld operations per PE (repeat with "
               "USHMEM_STRESS_SEED=%" PRIu64 " or `stress %ld %" PRIu64 "`)\n",
               seed, npes, ops, seed, ops, seed);
        fflush(stdout);
    }

    double t0 = now_seconds();
    int epoch = 0;
    for (op_no = 1; op_no <= ops; ++op_no) {
        int r = rnd(100);
        if (r < 10) op_put(0);
        else if (r < 18) op_put(1);
        else if (r < 22) op_put(2);
        else if (r < 30) op_put(3);
        else if (r < 46) op_amo_own(rnd(9));
        else if (r < 54) op_get(0);
        else if (r < 59) op_get(1);
        else if (r < 63) op_get(2);
        else if (r < 68) op_get(3);
        else if (r < 74) op_counter(0);
        else if (r < 79) op_counter(1);
        else if (r < 86) send_message();
        else if (r < 94) poll_messages();
        else if (r < 97) do_fence();
        else do_quiet();
        if (op_no % EPOCH_OPS == 0 || op_no == ops) end_epoch(++epoch);
    }
    double secs = now_seconds() - t0;

    static long total_ops, total_bad, local_ops, local_bad;
    local_ops = ops;
    local_bad = mismatches;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total_ops, &local_ops, 1);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total_bad, &local_bad, 1);
    if (me == 0) {
        printf("stress: seed %" PRIu64 ": %ld operations on %d PEs in %.1f s (%.0f ops/s), %d "
               "epochs, %ld mismatches\n",
               seed, total_ops, npes, secs, (double)total_ops / secs, epoch, total_bad);
        fflush(stdout);
    }
    CHECK(total_bad == 0, "%ld mismatches against the model (seed %" PRIu64 ")", total_bad, seed);
    shmem_finalize();
    return 0;
}
