/* p2p: point-to-point synchronization, every routine and type, ivars on the heap and in static
 * data, updated by the left neighbour with puts and with AMOs.
 *
 *   wait_until / test: for every point-to-point type, a sequence of steps, one per comparison
 *       operator (EQ, NE, GT, GE, LT, LE, and LT against (T)-1 for the signed/unsigned corner);
 *       in each the left neighbour writes the value that satisfies the condition (after a short
 *       delay, so the wait really waits) and this PE waits for it with the typed routine, the
 *       C11 generic (rotating), then checks every operator with test. The deprecated
 *       shmem_TYPENAME_wait, shmem_wait and the non-generic shmem_wait_until(long *) too.
 *   the set forms: wait_until_any (with and without a status mask), wait_until_some (collecting
 *       until every expected index was returned, each once), wait_until_all (with a mask
 *       excluding an element that never changes), the _vector forms with per-element values,
 *       test_all/any/some and their _vector forms against known states (exact results), the
 *       fairness of test_any (two satisfied elements are both returned by repeated calls), and
 *       the empty sets (nelems 0, or every element masked): SIZE_MAX / 0 / 1 / immediate.
 *   signal_wait_until is covered by signal.c. */
#include "common.h"

#define NV 8 /* elements of the set forms */

static int me, npes, right, left;
static long long g_ivars[NV] __attribute__((aligned(64)));
static long long *h_ivars;
static int checks;

static void *ivars_of(int where) { return where ? (void *)g_ivars : (void *)h_ivars; }
static const char *const where_name[2] = {"heap", "static"};

/* Clears this PE's ivars (both locations) between phases. */
static void reset_ivars(void) {
    shmem_barrier_all();
    memset(g_ivars, 0, sizeof g_ivars);
    memset(h_ivars, 0, NV * sizeof(long long));
    shmem_barrier_all();
}

/* A short delay before some writes, so that the waits really wait (the reader usually arrives
 * first); none over tcp, where every write is slow already. */
static int delay_writes = 1;
static void maybe_delay(int k) {
    if (delay_writes && k % 3 == 0) spin_for(50e-6);
}

#define CMP_NAME(c)                                                                                \
    ((c) == SHMEM_CMP_EQ   ? "EQ"                                                                  \
     : (c) == SHMEM_CMP_NE ? "NE"                                                                  \
     : (c) == SHMEM_CMP_GT ? "GT"                                                                  \
     : (c) == SHMEM_CMP_GE ? "GE"                                                                  \
     : (c) == SHMEM_CMP_LT ? "LT"                                                                  \
                           : "LE")

/* HAS_AMO: the type has shmem_TYPENAME_atomic_set (short and unsigned short do not). */
#define WRITE_0(T, N, p, v, pe, k) shmem_##N##_p(p, v, pe)
#define WRITE_1(T, N, p, v, pe, k)                                                                 \
    do {                                                                                           \
        if ((k) % 2) shmem_##N##_atomic_set(p, v, pe);                                             \
        else shmem_##N##_p(p, v, pe);                                                              \
    } while (0)
/* Deprecated shmem_TYPENAME_wait exists for short, int, long, long long. */
#define DEPR_WAIT_0(T, N, iv)
#define DEPR_WAIT_1(T, N, iv)                                                                      \
    do {                                                                                           \
        shmem_##N##_p(iv, (T)0, right);                                                            \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        maybe_delay(0);                                                                            \
        shmem_##N##_p(iv, (T)9, right);                                                            \
        shmem_quiet();                                                                             \
        shmem_##N##_wait(iv, (T)0); /* wait while equal to 0 */                                    \
        CHECK_EQ_INT(9, *iv, "shmem_" #N "_wait returned before the value changed");               \
        shmem_barrier_all();                                                                       \
    } while (0)

#define DEFINE_SINGLE(T, N, HAS_AMO, DEPR)                                                         \
    static void single_##N(void) {                                                                 \
        static const int cmps[] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE,         \
                                   SHMEM_CMP_LT, SHMEM_CMP_LE, SHMEM_CMP_EQ};                      \
        /* (comparison value, value written): the written one satisfies the comparison, the one   \
         * before it does not. The last step writes (T)-4: a negative or a huge value. */          \
        const T cmpv[] = {(T)5, (T)5, (T)6, (T)9, (T)3, (T)1, (T)-4};                              \
        const T newv[] = {(T)5, (T)6, (T)7, (T)9, (T)2, (T)1, (T)-4};                              \
        T zero = (T)0;                                                                             \
        for (int where = 0; where < 2; ++where) {                                                  \
            T *iv = (T *)ivars_of(where);                                                          \
            reset_ivars();                                                                         \
            for (int k = 0; k < 7; ++k) {                                                          \
                shmem_barrier_all();                                                               \
                maybe_delay(k);                                                                    \
                WRITE_##HAS_AMO(T, N, iv, newv[k], right, k);                                      \
                shmem_quiet();                                                                     \
                if ((k + where) % 2) shmem_##N##_wait_until(iv, cmps[k], cmpv[k]);                 \
                else shmem_wait_until(iv, cmps[k], cmpv[k]);                                       \
                T seen = *(volatile T *)iv;                                                        \
                ++checks;                                                                          \
                if (memcmp(&seen, &newv[k], sizeof(T)) != 0)                                       \
                    FAIL("shmem_%s_wait_until(%s, %s) returned with the ivar at %lld, not the "    \
                         "written %lld",                                                           \
                         #N, CMP_NAME(cmps[k]), where_name[where], (long long)seen,                \
                         (long long)newv[k]);                                                      \
                /* test: every operator against the value now in place. */                        \
                const T x = newv[k];                                                               \
                CHECK_EQ_INT(1, shmem_##N##_test(iv, SHMEM_CMP_EQ, x), #N " test EQ");             \
                CHECK_EQ_INT(0, shmem_##N##_test(iv, SHMEM_CMP_NE, x), #N " test NE");             \
                CHECK_EQ_INT(1, shmem_test(iv, SHMEM_CMP_GE, x), #N " test GE (generic)");         \
                CHECK_EQ_INT(1, shmem_##N##_test(iv, SHMEM_CMP_LE, x), #N " test LE");             \
                CHECK_EQ_INT(0, shmem_test(iv, SHMEM_CMP_GT, x), #N " test GT (generic)");         \
                CHECK_EQ_INT(0, shmem_##N##_test(iv, SHMEM_CMP_LT, x), #N " test LT");             \
                CHECK_EQ_INT(1, shmem_##N##_test(iv, cmps[k], cmpv[k]), #N " test (step cond)");   \
                /* Signedness: (T)-4 < 0 exactly when T is signed (C's own comparison). */         \
                CHECK_EQ_INT(newv[6] < zero && k == 6, shmem_##N##_test(iv, SHMEM_CMP_LT, zero),    \
                             #N " test LT 0 (signed comparison)");                                 \
                checks += 8;                                                                       \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
            DEPR_WAIT_##DEPR(T, N, iv);                                                            \
        }                                                                                          \
    }

DEFINE_SINGLE(short, short, 0, 1)
DEFINE_SINGLE(unsigned short, ushort, 0, 0)
DEFINE_SINGLE(int, int, 1, 1)
DEFINE_SINGLE(long, long, 1, 1)
DEFINE_SINGLE(long long, longlong, 1, 1)
DEFINE_SINGLE(unsigned int, uint, 1, 0)
DEFINE_SINGLE(unsigned long, ulong, 1, 0)
DEFINE_SINGLE(unsigned long long, ulonglong, 1, 0)
DEFINE_SINGLE(int32_t, int32, 1, 0)
DEFINE_SINGLE(int64_t, int64, 1, 0)
DEFINE_SINGLE(uint32_t, uint32, 1, 0)
DEFINE_SINGLE(uint64_t, uint64, 1, 0)
DEFINE_SINGLE(size_t, size, 1, 0)
DEFINE_SINGLE(ptrdiff_t, ptrdiff, 1, 0)

/* ---- the set forms -------------------------------------------------------------------------- */

#define DEFINE_SETS(T, N, HAS_AMO)                                                                 \
    static void sets_##N(void) {                                                                   \
        for (int where = 0; where < 2; ++where) {                                                  \
            T *iv = (T *)ivars_of(where);                                                          \
            int st[NV];                                                                            \
            size_t idx[NV];                                                                        \
            T vals[NV];                                                                            \
            /* any: elements 5 then 2 become 1; with 5 masked the answer is 2. */                 \
            reset_ivars();                                                                         \
            maybe_delay(0);                                                                        \
            WRITE_##HAS_AMO(T, N, &iv[5], (T)1, right, 1);                                         \
            shmem_quiet();                                                                         \
            size_t r = where ? shmem_wait_until_any(iv, NV, NULL, SHMEM_CMP_EQ, (T)1)              \
                             : shmem_##N##_wait_until_any(iv, NV, NULL, SHMEM_CMP_EQ, (T)1);       \
            CHECK_EQ_INT(5, r, #N " wait_until_any");                                              \
            shmem_barrier_all();                                                                   \
            maybe_delay(0);                                                                        \
            WRITE_##HAS_AMO(T, N, &iv[2], (T)1, right, 0);                                         \
            shmem_quiet();                                                                         \
            for (int i = 0; i < NV; ++i) st[i] = i == 5;                                           \
            r = shmem_##N##_wait_until_any(iv, NV, st, SHMEM_CMP_EQ, (T)1);                        \
            CHECK_EQ_INT(2, r, #N " wait_until_any with element 5 masked");                        \
            /* test_any fairness: both satisfied elements come back from repeated calls. */       \
            {                                                                                      \
                int got2 = 0, got5 = 0;                                                            \
                for (int i = 0; i < 4; ++i) {                                                      \
                    size_t a = shmem_##N##_test_any(iv, NV, NULL, SHMEM_CMP_EQ, (T)1);             \
                    CHECK(a == 2 || a == 5, #N " test_any returned %zu", a);                       \
                    got2 |= a == 2;                                                                \
                    got5 |= a == 5;                                                                \
                }                                                                                  \
                CHECK(got2 && got5, #N " test_any: repeated calls must return both satisfied "     \
                      "elements (2: %d, 5: %d)", got2, got5);                                      \
                CHECK_EQ_INT(SIZE_MAX == shmem_##N##_test_any(iv, NV, NULL, SHMEM_CMP_EQ, (T)7), 1, \
                             #N " test_any with nothing satisfied");                               \
            }                                                                                      \
            /* some: elements 1, 4, 6 become 3 (one by one); collect until all three seen. */     \
            reset_ivars();                                                                         \
            {                                                                                      \
                static const int want[3] = {1, 4, 6};                                              \
                for (int j = 0; j < 3; ++j) {                                                      \
                    maybe_delay(j);                                                                \
                    WRITE_##HAS_AMO(T, N, &iv[want[j]], (T)3, right, j);                           \
                    shmem_quiet();                                                                 \
                }                                                                                  \
                int seen[NV] = {0}, nseen = 0, calls = 0;                                          \
                for (int i = 0; i < NV; ++i) st[i] = 0;                                            \
                while (nseen < 3) {                                                                \
                    size_t n = calls % 2 ? shmem_wait_until_some(iv, NV, idx, st, SHMEM_CMP_EQ, (T)3) \
                                         : shmem_##N##_wait_until_some(iv, NV, idx, st, SHMEM_CMP_EQ, (T)3); \
                    ++calls;                                                                       \
                    CHECK(n >= 1 && n <= 3, #N " wait_until_some returned %zu", n);                \
                    for (size_t q = 0; q < n; ++q) {                                               \
                        CHECK(idx[q] == 1 || idx[q] == 4 || idx[q] == 6,                           \
                              #N " wait_until_some index %zu", idx[q]);                            \
                        CHECK(!seen[idx[q]], #N " wait_until_some returned %zu twice", idx[q]);    \
                        seen[idx[q]] = 1;                                                          \
                        st[idx[q]] = 1; /* done with it: mask it */                                \
                        ++nseen;                                                                   \
                    }                                                                              \
                }                                                                                  \
                shmem_barrier_all();                                                               \
                CHECK_EQ_INT(3, shmem_##N##_test_some(iv, NV, idx, NULL, SHMEM_CMP_EQ, (T)3),      \
                             #N " test_some");                                                     \
                CHECK(idx[0] + idx[1] + idx[2] == 11, #N " test_some indices");                    \
                CHECK_EQ_INT(0, shmem_test_some(iv, NV, idx, NULL, SHMEM_CMP_GT, (T)3),            \
                             #N " test_some none");                                                \
                CHECK_EQ_INT(0, shmem_##N##_test_all(iv, NV, NULL, SHMEM_CMP_EQ, (T)3),            \
                             #N " test_all (not all)");                                            \
                for (int i = 0; i < NV; ++i) st[i] = !(i == 1 || i == 4 || i == 6);                \
                CHECK_EQ_INT(1, shmem_##N##_test_all(iv, NV, st, SHMEM_CMP_EQ, (T)3),              \
                             #N " test_all (masked)");                                             \
            }                                                                                      \
            /* all: every element but 3 (masked) becomes 4. */                                    \
            reset_ivars();                                                                         \
            for (int i = 0; i < NV; ++i) {                                                         \
                if (i == 3) continue;                                                              \
                maybe_delay(i);                                                                    \
                WRITE_##HAS_AMO(T, N, &iv[i], (T)4, right, i);                                     \
            }                                                                                      \
            shmem_quiet();                                                                         \
            for (int i = 0; i < NV; ++i) st[i] = i == 3;                                           \
            if (where) shmem_wait_until_all(iv, NV, st, SHMEM_CMP_EQ, (T)4);                       \
            else shmem_##N##_wait_until_all(iv, NV, st, SHMEM_CMP_EQ, (T)4);                       \
            for (int i = 0; i < NV; ++i)                                                           \
                CHECK_EQ_INT(i == 3 ? 0 : 4, ((volatile T *)iv)[i], #N " after wait_until_all");   \
            CHECK_EQ_INT(1, shmem_##N##_test_all(iv, NV, st, SHMEM_CMP_EQ, (T)4), #N " test_all"); \
            /* vector forms: element i becomes i + 10, compared with its own value. */            \
            reset_ivars();                                                                         \
            for (int i = 0; i < NV; ++i) vals[i] = (T)(i + 10);                                    \
            for (int i = NV - 1; i >= 0; --i) {                                                    \
                maybe_delay(i);                                                                    \
                WRITE_##HAS_AMO(T, N, &iv[i], (T)(i + 10), right, i);                              \
            }                                                                                      \
            shmem_quiet();                                                                         \
            if (where) shmem_wait_until_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, vals);              \
            else shmem_##N##_wait_until_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, vals);              \
            CHECK_EQ_INT(1, shmem_##N##_test_all_vector(iv, NV, NULL, SHMEM_CMP_GE, vals),         \
                         #N " test_all_vector");                                                   \
            vals[3] = (T)100; /* element 3 now fails EQ and GE */                                  \
            CHECK_EQ_INT(0, shmem_test_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, vals),               \
                         #N " test_all_vector (one fails)");                                       \
            for (int i = 0; i < NV; ++i) st[i] = i != 3;                                           \
            CHECK_EQ_INT(SIZE_MAX == shmem_##N##_test_any_vector(iv, NV, st, SHMEM_CMP_EQ, vals), 1, \
                         #N " test_any_vector (only the failing one in the set)");                 \
            CHECK_EQ_INT(3, shmem_##N##_test_any_vector(iv, NV, st, SHMEM_CMP_LT, vals),           \
                         #N " test_any_vector LT");                                                \
            CHECK_EQ_INT(3, shmem_##N##_wait_until_any_vector(iv, NV, st, SHMEM_CMP_NE, vals),     \
                         #N " wait_until_any_vector");                                             \
            CHECK_EQ_INT(NV - 1, shmem_##N##_test_some_vector(iv, NV, idx, NULL, SHMEM_CMP_EQ, vals), \
                         #N " test_some_vector");                                                  \
            for (size_t q = 0; q < NV - 1; ++q) CHECK(idx[q] != 3, #N " test_some_vector index 3"); \
            CHECK_EQ_INT(NV, shmem_wait_until_some_vector(iv, NV, idx, NULL, SHMEM_CMP_LE, vals),  \
                         #N " wait_until_some_vector (generic)");                                  \
            CHECK_EQ_INT(1, shmem_##N##_wait_until_some_vector(iv, NV, idx, NULL, SHMEM_CMP_LT, vals), \
                         #N " wait_until_some_vector LT");                                         \
            CHECK_EQ_INT(3, idx[0], #N " wait_until_some_vector LT index");                        \
            CHECK(shmem_wait_until_any_vector(iv, NV, NULL, SHMEM_CMP_LE, vals) < NV,              \
                  #N " wait_until_any_vector LE (generic)");                                       \
            /* empty sets */                                                                       \
            for (int i = 0; i < NV; ++i) st[i] = 1;                                                \
            shmem_##N##_wait_until_all(iv, 0, NULL, SHMEM_CMP_EQ, (T)77);                          \
            shmem_##N##_wait_until_all(iv, NV, st, SHMEM_CMP_EQ, (T)77);                           \
            shmem_##N##_wait_until_all_vector(iv, NV, st, SHMEM_CMP_EQ, vals);                     \
            CHECK_EQ_INT(SIZE_MAX == shmem_##N##_wait_until_any(iv, NV, st, SHMEM_CMP_EQ, (T)77), 1, \
                         #N " wait_until_any empty set");                                          \
            CHECK_EQ_INT(SIZE_MAX == shmem_##N##_wait_until_any(iv, 0, NULL, SHMEM_CMP_EQ, (T)77), 1, \
                         #N " wait_until_any nelems 0");                                           \
            CHECK_EQ_INT(SIZE_MAX == shmem_##N##_wait_until_any_vector(iv, NV, st, SHMEM_CMP_EQ, vals), 1, \
                         #N " wait_until_any_vector empty set");                                   \
            CHECK_EQ_INT(0, shmem_##N##_wait_until_some(iv, NV, idx, st, SHMEM_CMP_EQ, (T)77),     \
                         #N " wait_until_some empty");                                             \
            CHECK_EQ_INT(0, shmem_##N##_wait_until_some_vector(iv, 0, NULL, NULL, SHMEM_CMP_EQ, NULL), \
                         #N " wait_until_some_vector nelems 0");                                   \
            CHECK_EQ_INT(1, shmem_##N##_test_all(iv, 0, NULL, SHMEM_CMP_EQ, (T)77),                \
                         #N " test_all nelems 0");                                                 \
            CHECK_EQ_INT(1, shmem_##N##_test_all_vector(iv, NV, st, SHMEM_CMP_EQ, vals),           \
                         #N " test_all_vector empty");                                             \
            CHECK_EQ_INT(SIZE_MAX == shmem_##N##_test_any(iv, NV, st, SHMEM_CMP_EQ, (T)77), 1,     \
                         #N " test_any empty");                                                    \
            CHECK_EQ_INT(0, shmem_##N##_test_some(iv, 0, idx, NULL, SHMEM_CMP_EQ, (T)77),          \
                         #N " test_some nelems 0");                                                \
            CHECK_EQ_INT(0, shmem_##N##_test_some_vector(iv, NV, idx, st, SHMEM_CMP_EQ, vals),     \
                         #N " test_some_vector empty");                                            \
            checks += 40;                                                                          \
        }                                                                                          \
    }

DEFINE_SETS(short, short, 0)
DEFINE_SETS(unsigned short, ushort, 0)
DEFINE_SETS(int, int, 1)
DEFINE_SETS(long, long, 1)
DEFINE_SETS(long long, longlong, 1)
DEFINE_SETS(unsigned int, uint, 1)
DEFINE_SETS(unsigned long, ulong, 1)
DEFINE_SETS(unsigned long long, ulonglong, 1)
DEFINE_SETS(int32_t, int32, 1)
DEFINE_SETS(int64_t, int64, 1)
DEFINE_SETS(uint32_t, uint32, 1)
DEFINE_SETS(uint64_t, uint64, 1)
DEFINE_SETS(size_t, size, 1)
DEFINE_SETS(ptrdiff_t, ptrdiff, 1)

/* Deprecated long forms: shmem_wait (wait while equal) and the non-generic shmem_wait_until. */
static void deprecated_long(void) {
    for (int where = 0; where < 2; ++where) {
        long *iv = (long *)ivars_of(where);
        reset_ivars();
        maybe_delay(0);
        shmem_long_atomic_set(iv, 42, right);
        shmem_quiet();
        shmem_wait(iv, 0);
        CHECK_EQ_INT(42, *(volatile long *)iv, "shmem_wait returned before the change");
        shmem_barrier_all();
        maybe_delay(0);
        shmem_long_atomic_add(iv, 8, right);
        shmem_quiet();
        (shmem_wait_until)(iv, SHMEM_CMP_GE, 50); /* the function, not the C11 generic macro */
        CHECK_EQ_INT(50, *(volatile long *)iv, "shmem_wait_until (deprecated function form)");
        shmem_barrier_all();
    }
}

/* Waits whose satisfying update is an AMO from several PEs: all PEs add 1 to PE 0's ivar; PE 0
 * waits for npes; every PE then waits on its own ivar for PE 0's release (a tiny barrier). */
static void amo_driven(void) {
    for (int where = 0; where < 2; ++where) {
        long long *iv = (long long *)ivars_of(where);
        reset_ivars();
        for (int rep = 1; rep <= 20; ++rep) {
            shmem_longlong_atomic_inc(&iv[0], 0);
            if (me == 0) {
                shmem_longlong_wait_until(&iv[0], SHMEM_CMP_GE, (long long)npes * rep);
                for (int t = 0; t < npes; ++t) shmem_longlong_atomic_set(&iv[1], rep, t);
            }
            shmem_longlong_wait_until(&iv[1], SHMEM_CMP_EQ, rep);
        }
        shmem_barrier_all();
        if (me == 0) CHECK_EQ_INT((long long)npes * 20, iv[0], "AMO-driven wait_until total");
    }
    NOTE("AMO-driven waits (counter + release, 20 rounds): OK");
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    (void)left;
    const char *tls = getenv("UCX_TLS");
    if (tls && strstr(tls, "tcp")) delay_writes = 0;
    h_ivars = shmem_calloc(NV, sizeof(long long));
    CHECK(h_ivars, "shmem_calloc");

    single_short(); single_ushort(); single_int(); single_long(); single_longlong(); single_uint();
    single_ulong(); single_ulonglong(); single_int32(); single_int64(); single_uint32();
    single_uint64(); single_size(); single_ptrdiff();
    NOTE("wait_until/test, every type and comparison, typed and generic, deprecated _wait: OK");
    sets_short(); sets_ushort(); sets_int(); sets_long(); sets_longlong(); sets_uint(); sets_ulong();
    sets_ulonglong(); sets_int32(); sets_int64(); sets_uint32(); sets_uint64(); sets_size();
    sets_ptrdiff();
    NOTE("wait_until/test _all/_any/_some and _vector forms, masks, empty sets, fairness: OK");
    deprecated_long();
    NOTE("shmem_wait, shmem_wait_until(long *) function form: OK");
    amo_driven();

    shmem_barrier_all();
    NOTE("p2p: all OK (%d PEs, %d checks on PE 0)", npes, checks);
    shmem_free(h_ivars);
    shmem_finalize();
    return 0;
}
