/* amo: atomic memory operations, every routine and type, on every route.
 *
 *   per-type sequences: for every type of the extended, standard and bitwise AMO tables, every
 *       PE runs a fixed sequence of operations on its own slot on every PE (itself included),
 *       in the symmetric heap and in static data, through the typed routine, its shmem_ctx_ form,
 *       the C11 generic and its context form, and the deprecated names. Each operation's returned old value is checked, and the NEW VALUE IN
 *       MEMORY is checked both with shmem_atomic_fetch right after the operation and, after a
 *       barrier, by the owner of the slot reading its memory directly. fetch_and/or/xor are run
 *       against known bit patterns so that the UCX 1.13.1 bug (old value written back by fetching
 *       AND/OR/XOR on shared memory) shows as a wrong new value.
 *   contention: every PE fetch_adds 1 to one word many times: the total is exact and the old
 *       values seen by all PEs together are exactly 0 .. total-1 (all distinct); the same with
 *       fetch_inc, and with non-fetching add/inc checked by total only.
 *   compare_swap rounds: every PE races to swap one word from the previous round's value; in
 *       every round exactly one PE wins (counted with an atomic add on PE 0).
 *   bitwise contention: every PE sets its own bit of a shared word with fetch_or, toggles another
 *       with fetch_xor 3 times, clears a third with fetch_and (and the non-fetching forms on a
 *       second word); final values exact, and no PE's old value shows its own bit changed by
 *       someone else.
 *   misuse is covered by amo_errors.c. */
#include "common.h"

#define NSLOT_MAX 64 /* PEs supported by the per-PE slots */
#define CONTENTION_ITERS_MAX 400
/* Over tcp every AMO is emulated by the target's UCX progress: fewer iterations keep the run
 * short on an oversubscribed node (4 PEs and their progress threads on 2 cores). */
static int CONTENTION_ITERS = CONTENTION_ITERS_MAX;
#define CSWAP_ROUNDS 100

static int me, npes;
static shmem_ctx_t ctx2; /* a second context for the ctx forms */

/* Static (global) targets: one slot per PE per type, and the contention words. */
static long long g_slots[NSLOT_MAX] __attribute__((aligned(64)));
static long long g_word[4] __attribute__((aligned(64)));
static long long *h_slots; /* heap counterparts */
static long long *h_word;
static long long *h_oldvals; /* PE 0 gathers old values here: npes * CONTENTION_ITERS */
static long *h_wins;         /* compare_swap round winners, on PE 0 */

/* Which API form an operation uses: 0 typed, 1 ctx typed (default ctx), 2 ctx typed (created
 * ctx), 3 C11 generic, 4 C11 generic with context. */
#define NFORMS 5
static const char *const form_name[NFORMS] = {"typed", "ctx typed (SHMEM_CTX_DEFAULT)",
                                              "ctx typed (created ctx)", "generic", "generic ctx"};
static int checks;

#define FORM_CALL(form, N, OP, ...)                                                                \
    ((form) == 0   ? shmem_##N##_##OP(__VA_ARGS__)                                                 \
     : (form) == 1 ? shmem_ctx_##N##_##OP(SHMEM_CTX_DEFAULT, __VA_ARGS__)                          \
     : (form) == 2 ? shmem_ctx_##N##_##OP(ctx2, __VA_ARGS__)                                       \
     : (form) == 3 ? shmem_##OP(__VA_ARGS__)                                                       \
                   : shmem_##OP(ctx2, __VA_ARGS__))

static void quiet_all(void) {
    shmem_quiet();
    if (ctx2 != SHMEM_CTX_DEFAULT) shmem_ctx_quiet(ctx2);
}

/* Value comparisons as bit patterns (floats included). */
#define SAME(T, a, b) (memcmp(&(a), &(b), sizeof(T)) == 0)
#define CHECK_VAL(T, N, expected, actual, ...)                                                    \
    do {                                                                                          \
        T ce_ = (expected), ca_ = (actual);                                                       \
        ++checks;                                                                                 \
        if (!SAME(T, ce_, ca_)) {                                                                 \
            fprintf(stderr, "%s: expected %.17g (0x%llx), got %.17g (0x%llx)\n", #N, (double)ce_, \
                    (unsigned long long)bits_of(&ce_, sizeof(T)), (double)ca_,                    \
                    (unsigned long long)bits_of(&ca_, sizeof(T)));                                \
            FAIL(__VA_ARGS__);                                                                    \
        }                                                                                         \
    } while (0)

static uint64_t bits_of(const void *p, size_t n) {
    uint64_t b = 0;
    memcpy(&b, p, n);
    return b;
}

/* Where: 0 heap, 1 static. Each type uses the slots as arrays of its own type: slot index
 * `me` of a T array laid over g_slots / h_slots (8 bytes per slot is enough for every type). */
static void *slots_of(int where) { return where ? (void *)g_slots : (void *)h_slots; }
static const char *const where_name[2] = {"heap", "static"};

/* ---- per-type sequences ---------------------------------------------------------------------
 * For every target t and location, PE `me` works on element `me` of a T array. After the
 * sequence the final value of that element is `fin`; the owner checks it after a barrier via
 * check_final (all PEs publish their expected finals to the owner with a put). */
static uint64_t *h_final; /* symmetric: [where][user] expected final bits, written by users */

static void publish_final(int where, int t, const void *val, size_t size) {
    uint64_t b = 0;
    memcpy(&b, val, size);
    shmem_uint64_p(&h_final[where * NSLOT_MAX + me], b, t);
}

/* The owner compares its own memory (plain loads: the barrier completed every update) with the
 * finals the users published. */
static void check_finals(const char *type, size_t size) {
    shmem_barrier_all();
    for (int where = 0; where < 2; ++where) {
        const unsigned char *base = slots_of(where);
        for (int p = 0; p < npes; ++p) {
            uint64_t have = 0, want = h_final[where * NSLOT_MAX + p];
            memcpy(&have, base + (size_t)p * size, size);
            ++checks;
            if (have != want)
                FAIL("%s: slot of PE %d in my %s memory holds 0x%llx after the barrier, expected "
                     "0x%llx (the last operation's new value)",
                     type, p, where_name[where], (unsigned long long)have, (unsigned long long)want);
        }
    }
    shmem_barrier_all();
}

/* Extended types: fetch, set, swap, fetch_nbi, swap_nbi, and the deprecated fetch/set/swap for
 * the types that have them (DEPR=1). */
#define DEFINE_EXT(T, N, DEPR)                                                                     \
    static void ext_##N(void) {                                                                    \
        for (int where = 0; where < 2; ++where)                                                    \
            for (int t = 0; t < npes; ++t) {                                                       \
                T *d = (T *)slots_of(where) + me;                                                  \
                int form = (t + where) % NFORMS;                                                   \
                T v0 = (T)(me * 8 + t + 1), v1 = (T)(v0 + 3), v2 = (T)(v0 + 6), v3 = (T)(v0 + 9);  \
                T f, r;                                                                            \
                FORM_CALL(form, N, atomic_set, d, v0, t);                                          \
                quiet_all();                                                                       \
                r = FORM_CALL(form, N, atomic_fetch, d, t);                                        \
                CHECK_VAL(T, N, v0, r, "%s atomic_set/fetch (%s) %s PE %d", #N, form_name[form],   \
                          where_name[where], t);                                                   \
                r = FORM_CALL(form, N, atomic_swap, d, v1, t);                                     \
                CHECK_VAL(T, N, v0, r, "%s atomic_swap old (%s)", #N, form_name[form]);            \
                r = shmem_##N##_atomic_fetch(d, t);                                                \
                CHECK_VAL(T, N, v1, r, "%s atomic_swap new value (%s)", #N, form_name[form]);      \
                f = (T)0;                                                                          \
                FORM_CALL(form, N, atomic_fetch_nbi, &f, d, t);                                    \
                quiet_all();                                                                       \
                CHECK_VAL(T, N, v1, f, "%s atomic_fetch_nbi (%s)", #N, form_name[form]);           \
                f = (T)0;                                                                          \
                FORM_CALL(form, N, atomic_swap_nbi, &f, d, v2, t);                                 \
                quiet_all();                                                                       \
                CHECK_VAL(T, N, v1, f, "%s atomic_swap_nbi old (%s)", #N, form_name[form]);        \
                r = shmem_##N##_atomic_fetch(d, t);                                                \
                CHECK_VAL(T, N, v2, r, "%s atomic_swap_nbi new value (%s)", #N, form_name[form]);  \
                if (DEPR) {                                                                        \
                    DEPR_EXT_##DEPR(T, N, d, t, v2, v3);                                           \
                    publish_final(where, t, &v3, sizeof(T));                                       \
                } else {                                                                           \
                    publish_final(where, t, &v2, sizeof(T));                                       \
                }                                                                                  \
            }                                                                                      \
        check_finals(#N " (extended AMO)", sizeof(T));                                             \
    }
#define DEPR_EXT_0(T, N, d, t, v2, v3)
#define DEPR_EXT_1(T, N, d, t, v2, v3)                                                             \
    do {                                                                                           \
        T r_ = shmem_##N##_fetch(d, t);                                                            \
        CHECK_VAL(T, N, v2, r_, "shmem_%s_fetch (deprecated)", #N);                                \
        r_ = shmem_fetch(d, t);                                                                    \
        CHECK_VAL(T, N, v2, r_, "shmem_fetch (deprecated generic)");                               \
        r_ = shmem_##N##_swap(d, v3, t);                                                           \
        CHECK_VAL(T, N, v2, r_, "shmem_%s_swap (deprecated)", #N);                                 \
        r_ = shmem_swap(d, v2, t);                                                                 \
        CHECK_VAL(T, N, v3, r_, "shmem_swap (deprecated generic)");                                \
        shmem_##N##_set(d, v3, t);                                                                 \
        shmem_quiet();                                                                             \
        CHECK_VAL(T, N, v3, shmem_##N##_atomic_fetch(d, t), "shmem_%s_set (deprecated)", #N);      \
        shmem_set(d, v2, t);                                                                       \
        shmem_quiet();                                                                             \
        CHECK_VAL(T, N, v2, shmem_##N##_atomic_fetch(d, t), "shmem_set (deprecated generic)");     \
        shmem_##N##_set(d, v3, t);                                                                 \
        shmem_quiet();                                                                             \
    } while (0)

DEFINE_EXT(float, float, 1)
DEFINE_EXT(double, double, 1)
DEFINE_EXT(int, int, 1)
DEFINE_EXT(long, long, 1)
DEFINE_EXT(long long, longlong, 1)
DEFINE_EXT(unsigned int, uint, 0)
DEFINE_EXT(unsigned long, ulong, 0)
DEFINE_EXT(unsigned long long, ulonglong, 0)
DEFINE_EXT(int32_t, int32, 0)
DEFINE_EXT(int64_t, int64, 0)
DEFINE_EXT(uint32_t, uint32, 0)
DEFINE_EXT(uint64_t, uint64, 0)
DEFINE_EXT(size_t, size, 0)
DEFINE_EXT(ptrdiff_t, ptrdiff, 0)

/* Standard types: compare_swap, fetch_inc, inc, fetch_add, add and the nbi forms; deprecated
 * cswap/finc/inc/fadd/add for int, long, long long. Values include negative ones for the signed
 * types (two's complement add). */
#define DEFINE_STD(T, N, DEPR)                                                                     \
    static void std_##N(void) {                                                                    \
        for (int where = 0; where < 2; ++where)                                                    \
            for (int t = 0; t < npes; ++t) {                                                       \
                T *d = (T *)slots_of(where) + me;                                                  \
                int form = (t + where + 1) % NFORMS;                                               \
                T v0 = (T)(100 + me * 8 + t), x = (T)7, f, r, cur;                                 \
                shmem_##N##_atomic_set(d, v0, t);                                                  \
                shmem_quiet();                                                                     \
                r = FORM_CALL(form, N, atomic_compare_swap, d, (T)(v0 + 1), (T)55, t);             \
                CHECK_VAL(T, N, v0, r, "%s compare_swap (no match) old (%s) %s PE %d", #N,         \
                          form_name[form], where_name[where], t);                                  \
                CHECK_VAL(T, N, v0, shmem_##N##_atomic_fetch(d, t),                                \
                          "%s compare_swap (no match) must not change memory (%s)", #N,            \
                          form_name[form]);                                                        \
                r = FORM_CALL(form, N, atomic_compare_swap, d, v0, (T)(v0 + 50), t);               \
                CHECK_VAL(T, N, v0, r, "%s compare_swap (match) old (%s)", #N, form_name[form]);   \
                cur = (T)(v0 + 50);                                                                \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t),                               \
                          "%s compare_swap (match) new value (%s)", #N, form_name[form]);          \
                r = FORM_CALL(form, N, atomic_fetch_inc, d, t);                                    \
                CHECK_VAL(T, N, cur, r, "%s fetch_inc old (%s)", #N, form_name[form]);             \
                cur = (T)(cur + 1);                                                                \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t), "%s fetch_inc new (%s)", #N,  \
                          form_name[form]);                                                        \
                FORM_CALL(form, N, atomic_inc, d, t);                                              \
                quiet_all();                                                                       \
                cur = (T)(cur + 1);                                                                \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t), "%s inc new (%s)", #N,        \
                          form_name[form]);                                                        \
                r = FORM_CALL(form, N, atomic_fetch_add, d, x, t);                                 \
                CHECK_VAL(T, N, cur, r, "%s fetch_add old (%s)", #N, form_name[form]);             \
                cur = (T)(cur + x);                                                                \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t), "%s fetch_add new (%s)", #N,  \
                          form_name[form]);                                                        \
                FORM_CALL(form, N, atomic_add, d, (T)(x * 2), t);                                  \
                quiet_all();                                                                       \
                cur = (T)(cur + x * 2);                                                            \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t), "%s add new (%s)", #N,        \
                          form_name[form]);                                                        \
                /* A negative (or wrapping) addend. */                                             \
                r = FORM_CALL(form, N, atomic_fetch_add, d, (T)-3, t);                             \
                CHECK_VAL(T, N, cur, r, "%s fetch_add(-3) old (%s)", #N, form_name[form]);         \
                cur = (T)(cur + (T)-3);                                                            \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t), "%s fetch_add(-3) new (%s)",  \
                          #N, form_name[form]);                                                    \
                f = (T)0;                                                                          \
                FORM_CALL(form, N, atomic_compare_swap_nbi, &f, d, cur, (T)(cur + 10), t);         \
                quiet_all();                                                                       \
                CHECK_VAL(T, N, cur, f, "%s compare_swap_nbi old (%s)", #N, form_name[form]);      \
                cur = (T)(cur + 10);                                                               \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t),                               \
                          "%s compare_swap_nbi new (%s)", #N, form_name[form]);                    \
                f = (T)0;                                                                          \
                FORM_CALL(form, N, atomic_compare_swap_nbi, &f, d, (T)(cur + 1), (T)1, t);         \
                quiet_all();                                                                       \
                CHECK_VAL(T, N, cur, f, "%s compare_swap_nbi (no match) old (%s)", #N,             \
                          form_name[form]);                                                        \
                f = (T)0;                                                                          \
                FORM_CALL(form, N, atomic_fetch_inc_nbi, &f, d, t);                                \
                quiet_all();                                                                       \
                CHECK_VAL(T, N, cur, f, "%s fetch_inc_nbi old (%s)", #N, form_name[form]);         \
                cur = (T)(cur + 1);                                                                \
                f = (T)0;                                                                          \
                FORM_CALL(form, N, atomic_fetch_add_nbi, &f, d, (T)5, t);                          \
                quiet_all();                                                                       \
                CHECK_VAL(T, N, cur, f, "%s fetch_add_nbi old (%s)", #N, form_name[form]);         \
                cur = (T)(cur + 5);                                                                \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t), "%s fetch_add_nbi new (%s)",  \
                          #N, form_name[form]);                                                    \
                DEPR_STD_##DEPR(T, N, d, t, cur);                                                  \
                publish_final(where, t, &cur, sizeof(T));                                          \
            }                                                                                      \
        check_finals(#N " (standard AMO)", sizeof(T));                                             \
    }
#define DEPR_STD_0(T, N, d, t, cur)
#define DEPR_STD_1(T, N, d, t, cur)                                                                \
    do {                                                                                           \
        T r_ = shmem_##N##_cswap(d, cur, (T)(cur + 2), t);                                         \
        CHECK_VAL(T, N, cur, r_, "shmem_%s_cswap (deprecated)", #N);                               \
        cur = (T)(cur + 2);                                                                        \
        r_ = shmem_cswap(d, cur, (T)(cur + 2), t);                                                 \
        CHECK_VAL(T, N, cur, r_, "shmem_cswap (deprecated generic)");                              \
        cur = (T)(cur + 2);                                                                        \
        r_ = shmem_##N##_finc(d, t);                                                               \
        CHECK_VAL(T, N, cur, r_, "shmem_%s_finc (deprecated)", #N);                                \
        r_ = shmem_finc(d, t);                                                                     \
        CHECK_VAL(T, N, (T)(cur + 1), r_, "shmem_finc (deprecated generic)");                      \
        cur = (T)(cur + 2);                                                                        \
        shmem_##N##_inc(d, t);                                                                     \
        shmem_inc(d, t);                                                                           \
        shmem_quiet();                                                                             \
        cur = (T)(cur + 2);                                                                        \
        r_ = shmem_##N##_fadd(d, (T)4, t);                                                         \
        CHECK_VAL(T, N, cur, r_, "shmem_%s_fadd (deprecated); inc/inc before", #N);                \
        r_ = shmem_fadd(d, (T)4, t);                                                               \
        CHECK_VAL(T, N, (T)(cur + 4), r_, "shmem_fadd (deprecated generic)");                      \
        cur = (T)(cur + 8);                                                                        \
        shmem_##N##_add(d, (T)6, t);                                                               \
        shmem_add(d, (T)6, t);                                                                     \
        shmem_quiet();                                                                             \
        cur = (T)(cur + 12);                                                                       \
        CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t), "shmem_%s_add (deprecated)", #N);     \
    } while (0)

DEFINE_STD(int, int, 1)
DEFINE_STD(long, long, 1)
DEFINE_STD(long long, longlong, 1)
DEFINE_STD(unsigned int, uint, 0)
DEFINE_STD(unsigned long, ulong, 0)
DEFINE_STD(unsigned long long, ulonglong, 0)
DEFINE_STD(int32_t, int32, 0)
DEFINE_STD(int64_t, int64, 0)
DEFINE_STD(uint32_t, uint32, 0)
DEFINE_STD(uint64_t, uint64, 0)
DEFINE_STD(size_t, size, 0)
DEFINE_STD(ptrdiff_t, ptrdiff, 0)

/* Bitwise types: every fetching, non-fetching and nbi form of and/or/xor against known patterns;
 * old value and new value checked each time. */
#define DEFINE_BITWISE(T, N)                                                                       \
    static void bitwise_##N(void) {                                                                \
        const T p0 = (T)(0x5AC3A55Aull | (0x0F0F0F0Full << (sizeof(T) * 4)));                  \
        const T m1 = (T)0x0FF00FF0ul, m2 = (T)0x33333333ul, m3 = (T)(~(T)0 ^ (T)0x81u);            \
        for (int where = 0; where < 2; ++where)                                                    \
            for (int t = 0; t < npes; ++t) {                                                       \
                T *d = (T *)slots_of(where) + me;                                                  \
                int form = (t + where + 2) % NFORMS;                                               \
                T cur = (T)(p0 ^ (T)(me * 0x10101u + t)), r, f, want;                              \
                shmem_##N##_atomic_set(d, cur, t);                                                 \
                shmem_quiet();                                                                     \
                /* fetching */                                                                     \
                r = FORM_CALL(form, N, atomic_fetch_and, d, m1, t);                                \
                CHECK_VAL(T, N, cur, r, "%s fetch_and old (%s) %s PE %d", #N, form_name[form],     \
                          where_name[where], t);                                                   \
                want = (T)(cur & m1);                                                              \
                CHECK_VAL(T, N, want, shmem_##N##_atomic_fetch(d, t),                              \
                          "%s fetch_and NEW VALUE in memory (%s) %s PE %d", #N, form_name[form],   \
                          where_name[where], t);                                                   \
                cur = want;                                                                        \
                r = FORM_CALL(form, N, atomic_fetch_or, d, m2, t);                                 \
                CHECK_VAL(T, N, cur, r, "%s fetch_or old (%s)", #N, form_name[form]);              \
                want = (T)(cur | m2);                                                              \
                CHECK_VAL(T, N, want, shmem_##N##_atomic_fetch(d, t),                              \
                          "%s fetch_or NEW VALUE in memory (%s) %s PE %d", #N, form_name[form],    \
                          where_name[where], t);                                                   \
                cur = want;                                                                        \
                r = FORM_CALL(form, N, atomic_fetch_xor, d, m3, t);                                \
                CHECK_VAL(T, N, cur, r, "%s fetch_xor old (%s)", #N, form_name[form]);             \
                want = (T)(cur ^ m3);                                                              \
                CHECK_VAL(T, N, want, shmem_##N##_atomic_fetch(d, t),                              \
                          "%s fetch_xor NEW VALUE in memory (%s) %s PE %d", #N, form_name[form],   \
                          where_name[where], t);                                                   \
                cur = want;                                                                        \
                /* xor with the value itself: the result must be 0 only because we asked for it */ \
                r = FORM_CALL(form, N, atomic_fetch_xor, d, (T)0, t);                              \
                CHECK_VAL(T, N, cur, r, "%s fetch_xor(0) old (%s)", #N, form_name[form]);          \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t),                               \
                          "%s fetch_xor(0) must leave memory unchanged (%s)", #N, form_name[form]); \
                /* non-fetching */                                                                 \
                FORM_CALL(form, N, atomic_and, d, m3, t);                                          \
                quiet_all();                                                                       \
                cur = (T)(cur & m3);                                                               \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t), "%s and new (%s) %s PE %d",   \
                          #N, form_name[form], where_name[where], t);                              \
                FORM_CALL(form, N, atomic_or, d, m1, t);                                           \
                quiet_all();                                                                       \
                cur = (T)(cur | m1);                                                               \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t), "%s or new (%s) %s PE %d",    \
                          #N, form_name[form], where_name[where], t);                              \
                FORM_CALL(form, N, atomic_xor, d, m2, t);                                          \
                quiet_all();                                                                       \
                cur = (T)(cur ^ m2);                                                               \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t), "%s xor new (%s) %s PE %d",   \
                          #N, form_name[form], where_name[where], t);                              \
                /* nbi */                                                                          \
                f = (T)0;                                                                          \
                FORM_CALL(form, N, atomic_fetch_and_nbi, &f, d, m2, t);                            \
                quiet_all();                                                                       \
                CHECK_VAL(T, N, cur, f, "%s fetch_and_nbi old (%s)", #N, form_name[form]);         \
                cur = (T)(cur & m2);                                                               \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t),                               \
                          "%s fetch_and_nbi NEW VALUE (%s) %s PE %d", #N, form_name[form],         \
                          where_name[where], t);                                                   \
                f = (T)0;                                                                          \
                FORM_CALL(form, N, atomic_fetch_or_nbi, &f, d, m3, t);                             \
                quiet_all();                                                                       \
                CHECK_VAL(T, N, cur, f, "%s fetch_or_nbi old (%s)", #N, form_name[form]);          \
                cur = (T)(cur | m3);                                                               \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t),                               \
                          "%s fetch_or_nbi NEW VALUE (%s) %s PE %d", #N, form_name[form],          \
                          where_name[where], t);                                                   \
                f = (T)0;                                                                          \
                FORM_CALL(form, N, atomic_fetch_xor_nbi, &f, d, p0, t);                            \
                quiet_all();                                                                       \
                CHECK_VAL(T, N, cur, f, "%s fetch_xor_nbi old (%s)", #N, form_name[form]);         \
                cur = (T)(cur ^ p0);                                                               \
                CHECK_VAL(T, N, cur, shmem_##N##_atomic_fetch(d, t),                               \
                          "%s fetch_xor_nbi NEW VALUE (%s) %s PE %d", #N, form_name[form],         \
                          where_name[where], t);                                                   \
                publish_final(where, t, &cur, sizeof(T));                                          \
            }                                                                                      \
        check_finals(#N " (bitwise AMO)", sizeof(T));                                              \
    }

DEFINE_BITWISE(unsigned int, uint)
DEFINE_BITWISE(unsigned long, ulong)
DEFINE_BITWISE(unsigned long long, ulonglong)
DEFINE_BITWISE(int32_t, int32)
DEFINE_BITWISE(int64_t, int64)
DEFINE_BITWISE(uint32_t, uint32)
DEFINE_BITWISE(uint64_t, uint64)

/* ---- contention ------------------------------------------------------------------------------ */

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* All PEs fetch_add (or fetch_inc) 1 to one word on PE `t`; old values gathered on PE 0 must be
 * exactly 0 .. total-1. 8-byte (long long) and 4-byte (int, through a second word) variants. */
static void contention_fetch_add(long long *word, int t, int use_inc, const char *where) {
    long long *mine = malloc(sizeof(long long) * CONTENTION_ITERS);
    CHECK(mine, "malloc");
    if (me == t) *word = 0;
    shmem_barrier_all();
    for (int i = 0; i < CONTENTION_ITERS; ++i) {
        mine[i] = use_inc ? shmem_longlong_atomic_fetch_inc(word, t)
                          : shmem_longlong_atomic_fetch_add(word, 1, t);
        if (i && mine[i] <= mine[i - 1])
            FAIL("%s contention on PE %d (%s): old values not increasing: %lld then %lld",
                 use_inc ? "fetch_inc" : "fetch_add", t, where, mine[i - 1], mine[i]);
    }
    shmem_longlong_put(h_oldvals + (size_t)me * CONTENTION_ITERS, mine, CONTENTION_ITERS, 0);
    shmem_barrier_all();
    long long total = (long long)npes * CONTENTION_ITERS;
    CHECK_EQ_INT(total, shmem_longlong_atomic_fetch(word, t), "contention total");
    if (me == 0) {
        qsort(h_oldvals, (size_t)total, sizeof(long long), cmp_ll);
        for (long long k = 0; k < total; ++k)
            if (h_oldvals[k] != k)
                FAIL("%s contention on PE %d (%s): sorted old values at %lld is %lld: values "
                     "duplicated or lost",
                     use_inc ? "fetch_inc" : "fetch_add", t, where, k, h_oldvals[k]);
    }
    free(mine);
    shmem_barrier_all();
}

static void contention_post(int *word, int t, const char *where) {
    if (me == t) *word = 0;
    shmem_barrier_all();
    for (int i = 0; i < CONTENTION_ITERS; ++i) {
        if (i % 2) shmem_int_atomic_inc(word, t);
        else shmem_int_atomic_add(word, 3, t);
    }
    shmem_barrier_all(); /* completes the non-fetching AMOs */
    int want = npes * (CONTENTION_ITERS / 2) * 4;
    if (me == t) CHECK_EQ_INT(want, *(volatile int *)word, "add/inc contention total (local read)");
    CHECK_EQ_INT(want, shmem_int_atomic_fetch(word, t), "add/inc contention total");
    (void)where;
    shmem_barrier_all();
}

static void contention_int_fetch_add(int *word, int t) {
    if (me == t) *word = 0;
    shmem_barrier_all();
    int prev = -1;
    for (int i = 0; i < CONTENTION_ITERS; ++i) {
        int o = shmem_int_atomic_fetch_add(word, 2, t);
        CHECK(o > prev && o % 2 == 0, "int fetch_add contention: old %d after %d", o, prev);
        prev = o;
    }
    shmem_barrier_all();
    CHECK_EQ_INT(2 * npes * CONTENTION_ITERS, shmem_int_atomic_fetch(word, t), "int fetch_add total");
    shmem_barrier_all();
}

/* compare_swap rounds: exactly one winner per round. */
static void cswap_rounds(long *word, int t) {
    if (me == t) *word = -1;
    if (me == 0)
        for (int r = 0; r < CSWAP_ROUNDS; ++r) h_wins[r] = 0;
    shmem_barrier_all();
    long cond = -1;
    for (int r = 0; r < CSWAP_ROUNDS; ++r) {
        long mine = (long)r * 1000 + me;
        long old = shmem_long_atomic_compare_swap(word, cond, mine, t);
        if (old == cond) shmem_long_atomic_inc(&h_wins[r], 0);
        shmem_barrier_all();
        long now = shmem_long_atomic_fetch(word, t);
        CHECK(now / 1000 == r && now % 1000 < npes, "cswap round %d: word holds %ld", r, now);
        if (old == cond) CHECK_EQ_INT(mine, now, "cswap winner's value in memory");
        cond = now;
        shmem_barrier_all(); /* everyone has read this round's value before the next one starts */
    }
    shmem_barrier_all();
    if (me == 0)
        for (int r = 0; r < CSWAP_ROUNDS; ++r)
            CHECK_EQ_INT(1, h_wins[r], "compare_swap winners in one round");
    shmem_barrier_all();
}

/* Bitwise contention: bit b(me) per operation kind. */
static void bitwise_contention(uint64_t *word, int t, int fetching) {
    const uint64_t or_bit = 1ull << me, xor_bit = 1ull << (me + 16), and_bit = 1ull << (me + 32);
    if (me == t) *word = 0xFFFFFFFF00000000ull; /* and-bits set, or/xor bits clear */
    shmem_barrier_all();
    for (int rep = 0; rep < 3; ++rep) {
        if (fetching) {
            uint64_t o = shmem_uint64_atomic_fetch_xor(word, xor_bit, t);
            CHECK(((o & xor_bit) != 0) == (rep % 2 != 0), "fetch_xor contention: my bit in old "
                  "value 0x%llx wrong at rep %d", (unsigned long long)o, rep);
        } else {
            shmem_uint64_atomic_xor(word, xor_bit, t);
        }
    }
    if (fetching) {
        uint64_t o = shmem_uint64_atomic_fetch_or(word, or_bit, t);
        CHECK(!(o & or_bit), "fetch_or contention: my bit already set in 0x%llx", (unsigned long long)o);
        o = shmem_uint64_atomic_fetch_and(word, ~and_bit, t);
        CHECK(o & and_bit, "fetch_and contention: my bit already clear in 0x%llx", (unsigned long long)o);
    } else {
        shmem_uint64_atomic_or(word, or_bit, t);
        shmem_uint64_atomic_and(word, ~and_bit, t);
    }
    shmem_barrier_all();
    uint64_t mask = npes >= 16 ? 0xFFFFull : ((1ull << npes) - 1);
    uint64_t want = (0xFFFFFFFF00000000ull & ~(mask << 32)) | mask | (mask << 16);
    uint64_t have = shmem_uint64_atomic_fetch(word, t);
    if (have != want)
        FAIL("%s bitwise contention on PE %d: word is 0x%016llx, expected 0x%016llx (lost update)",
             fetching ? "fetching" : "non-fetching", t, (unsigned long long)have,
             (unsigned long long)want);
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > 16) {
        NOTE("amo: needs at most 16 PEs; skipped");
        shmem_finalize();
        return 0;
    }
    /* The ctx forms run on a created context (its own completion state). */
    CHECK(shmem_ctx_create(0, &ctx2) == 0, "shmem_ctx_create");
    h_slots = shmem_calloc(NSLOT_MAX, sizeof(long long));
    h_word = shmem_calloc(4, sizeof(long long));
    h_final = shmem_calloc(2 * NSLOT_MAX, sizeof(uint64_t));
    {
        const char *tls = getenv("UCX_TLS");
        if (tls && strstr(tls, "tcp")) CONTENTION_ITERS = CONTENTION_ITERS_MAX / 4;
    }
    h_oldvals = shmem_calloc((size_t)npes * CONTENTION_ITERS_MAX, sizeof(long long));
    h_wins = shmem_calloc(CSWAP_ROUNDS, sizeof(long));
    CHECK(h_slots && h_word && h_final && h_oldvals && h_wins, "shmem_calloc");

    double t0 = now_seconds();
    ext_float(); ext_double(); ext_int(); ext_long(); ext_longlong(); ext_uint(); ext_ulong();
    ext_ulonglong(); ext_int32(); ext_int64(); ext_uint32(); ext_uint64(); ext_size(); ext_ptrdiff();
    NOTE("[%.1f s] extended AMO types: fetch/set/swap/fetch_nbi/swap_nbi + deprecated: OK", now_seconds() - t0);
    std_int(); std_long(); std_longlong(); std_uint(); std_ulong(); std_ulonglong(); std_int32();
    std_int64(); std_uint32(); std_uint64(); std_size(); std_ptrdiff();
    NOTE("[%.1f s] standard AMO types: compare_swap/fetch_inc/inc/fetch_add/add (+nbi) + deprecated: OK", now_seconds() - t0);
    bitwise_uint(); bitwise_ulong(); bitwise_ulonglong(); bitwise_int32(); bitwise_int64();
    bitwise_uint32(); bitwise_uint64();
    NOTE("[%.1f s] bitwise AMO types: and/or/xor, fetching, non-fetching, nbi, new values checked: OK", now_seconds() - t0);

    for (int k = 0; k < 2; ++k) {
        int t = k == 0 ? 0 : npes - 1;
        contention_fetch_add(&h_word[0], t, 0, "heap");
        contention_fetch_add(&g_word[0], t, 1, "static");
        contention_post((int *)&h_word[1], t, "heap");
        contention_post((int *)&g_word[1], t, "static");
        contention_int_fetch_add((int *)&g_word[2], t);
        cswap_rounds((long *)&h_word[2], t);
        cswap_rounds((long *)&g_word[3], t);
        bitwise_contention((uint64_t *)&h_word[3], t, 1);
        bitwise_contention((uint64_t *)&g_word[1], t, 0);
        bitwise_contention((uint64_t *)&g_word[1], t, 1);
    }
    NOTE("[%.1f s] contention: fetch_add/fetch_inc distinct old values, add/inc totals, compare_swap one "
         "winner per round, bitwise no lost update: OK", now_seconds() - t0);

    shmem_barrier_all();
    NOTE("amo: %d checks on PE 0, all OK (%d PEs)", checks, npes);
    shmem_free(h_wins);
    shmem_free(h_oldvals);
    shmem_free(h_final);
    shmem_free(h_word);
    shmem_free(h_slots);
    shmem_ctx_destroy(ctx2);
    shmem_finalize();
    return 0;
}
