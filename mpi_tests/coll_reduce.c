/* Reductions (and/or/xor/max/min/sum/prod) for every type of the team-based table, the scans
 * (sum_inscan/sum_exscan), in place and out of place, over every team shape, and the deprecated
 * active-set *_to_all forms with pWrk/pSync. Expected values are computed locally from the
 * members' world PE numbers, element by element (small integers: exact in every type, whatever
 * order the algorithm combines them in; products take factors of magnitude 1 from PE 16 on, so
 * that a complex float's product of 64 factors stays exact too).
 * Argument "quick": small counts only (used by the algorithm-override runs). */
#include "coll_common.h"

#include <complex.h>

static int me, npes, quick;
static void *src, *dst; /* symmetric */
static size_t maxbytes;

static const size_t counts[] = {1, 3, 64, 1000, 4097, 70001, 300000};
#define NCOUNTS (sizeof counts / sizeof counts[0])

/* Values: small integers, plus an imaginary part for the complex types. */
#define IMAG_UNIT(T) _Generic((T)0, float _Complex: I, double _Complex: I, default: 0)
#define VAL(T, re, im) ((T)(re) + (T)(im) * (T)IMAG_UNIT(T))
/* Signedness without a comparison the compiler would call always-false for unsigned types. */
#define IS_SIGNED(T) ((T)((T)0 - (T)1) / (T)2 == (T)0)

static long long gen_arith_re(int pe, size_t i) { return (long long)((pe + (int)(i % 3)) % 2) + 1; }
static long long gen_arith_im(int pe, size_t i) { return (long long)((pe + (int)i) % 2); }
/* Products: PEs 0-15 as for sums (|product| <= sqrt(5)^16, exact in a float's 24 bits in any
 * order); the others +1 or -1, so that a lost or doubled contribution still changes the sign. */
static long long gen_prod_re(int pe, size_t i) { return pe < 16 ? gen_arith_re(pe, i) : ((pe + (int)i) % 2 ? -1 : 1); }
static long long gen_prod_im(int pe, size_t i) { return pe < 16 ? gen_arith_im(pe, i) : 0; }
static long long gen_minmax(int pe, size_t i, int sgn) {
    long long v = (long long)((pe * 37 + (long long)(i % 1000) * 11) % 101);
    return sgn ? v - 50 : v;
}
static unsigned long long gen_bits(int pe, size_t i) {
    return ((unsigned long long)pe * 0x9E37u + (unsigned long long)i * 0x45u) ^ (1ull << ((pe + (int)i) % 60));
}

#define C_SUM(a, b) ((a) + (b))
#define C_PROD(a, b) ((a) * (b))
#define C_MAX(a, b) ((b) > (a) ? (b) : (a))
#define C_MIN(a, b) ((b) < (a) ? (b) : (a))
#define C_AND(a, b) ((a) & (b))
#define C_OR(a, b) ((a) | (b))
#define C_XOR(a, b) ((a) ^ (b))

#define GEN_ARITH(T, pe, i) VAL(T, gen_arith_re(pe, i), gen_arith_im(pe, i))
#define GEN_PROD(T, pe, i) VAL(T, gen_prod_re(pe, i), gen_prod_im(pe, i))
#define GEN_MINMAX(T, pe, i) ((T)gen_minmax(pe, i, IS_SIGNED(T)))
#define GEN_BITS(T, pe, i) ((T)gen_bits(pe, i))

/* run_<name>(team, count, inplace, kind, shape name): kind 0 reduce, 1 inclusive scan, 2 exclusive
 * scan. FN is the routine under test. */
#define DEF_RUN(T, N, SUFFIX, GEN, COMB) DEF_RUN2(T, N, SUFFIX, GEN, COMB, shmem_##N##SUFFIX)
#define DEF_RUN2(T, N, SUFFIX, GEN, COMB, FN)                                                      \
    static void run_##N##SUFFIX(shmem_team_t t, size_t cnt, int inplace, int kind, const char *sname) { \
        T *s = (T *)src, *d = inplace ? (T *)src : (T *)dst;                                       \
        int n = shmem_team_n_pes(t), r = shmem_team_my_pe(t);                                      \
        for (size_t i = 0; i < cnt; ++i) s[i] = GEN(T, me, i);                                     \
        if (!inplace)                                                                              \
            for (size_t i = 0; i < cnt + 2; ++i) d[i] = (T)77;                                     \
        shmem_team_sync(t);                                                                        \
        CHECK_EQ_INT(0, FN(t, d, s, cnt), "shmem_" #N #SUFFIX " return");                          \
        int last = kind == 0 ? n - 1 : kind == 1 ? r : r - 1;                                      \
        for (size_t i = 0; i < cnt; ++i) {                                                         \
            T acc = (T)0;                                                                          \
            for (int k = 0; k <= last; ++k) {                                                      \
                T v = GEN(T, world_of(t, k), i);                                                   \
                acc = k == 0 ? v : (T)COMB(acc, v);                                                \
            }                                                                                      \
            if (!(d[i] == acc))                                                                    \
                FAIL("%s: shmem_" #N #SUFFIX " (%zu elements%s) element %zu: expected %Lg, got %Lg", \
                     sname, cnt, inplace ? ", in place" : "", i, (long double)acc, (long double)d[i]); \
        }                                                                                          \
        if (!inplace && !(d[cnt] == (T)77 && d[cnt + 1] == (T)77))                                  \
            FAIL("%s: shmem_" #N #SUFFIX " wrote past dest", sname);                               \
        /* No sync after: when a reduction or scan returns, nobody reads our source or writes our \
         * dest any more, and the next run syncs after resetting them. */                         \
    }

#define DEF_RUN_AND(T, N, _) DEF_RUN(T, N, _and_reduce, GEN_BITS, C_AND)
#define DEF_RUN_OR(T, N, _) DEF_RUN(T, N, _or_reduce, GEN_BITS, C_OR)
#define DEF_RUN_XOR(T, N, _) DEF_RUN(T, N, _xor_reduce, GEN_BITS, C_XOR)
#define DEF_RUN_MAX(T, N, _) DEF_RUN(T, N, _max_reduce, GEN_MINMAX, C_MAX)
#define DEF_RUN_MIN(T, N, _) DEF_RUN(T, N, _min_reduce, GEN_MINMAX, C_MIN)
#define DEF_RUN_SUM(T, N, _) DEF_RUN(T, N, _sum_reduce, GEN_ARITH, C_SUM)
#define DEF_RUN_PROD(T, N, _) DEF_RUN(T, N, _prod_reduce, GEN_PROD, C_PROD)
#define DEF_RUN_IN(T, N, _) DEF_RUN(T, N, _sum_inscan, GEN_ARITH, C_SUM)
#define DEF_RUN_EX(T, N, _) DEF_RUN(T, N, _sum_exscan, GEN_ARITH, C_SUM)

USHMEM_REDUCE_BITWISE_TYPES(DEF_RUN_AND, _)
USHMEM_REDUCE_BITWISE_TYPES(DEF_RUN_OR, _)
USHMEM_REDUCE_BITWISE_TYPES(DEF_RUN_XOR, _)
USHMEM_REDUCE_MINMAX_TYPES(DEF_RUN_MAX, _)
USHMEM_REDUCE_MINMAX_TYPES(DEF_RUN_MIN, _)
USHMEM_REDUCE_ARITH_TYPES(DEF_RUN_SUM, _)
USHMEM_REDUCE_ARITH_TYPES(DEF_RUN_PROD, _)
USHMEM_REDUCE_ARITH_TYPES(DEF_RUN_IN, _)
USHMEM_REDUCE_ARITH_TYPES(DEF_RUN_EX, _)

/* The C11 generic names, for one type each. */
static int generic_sum_double(shmem_team_t t, double *d, const double *s, size_t n) { return shmem_sum_reduce(t, d, s, n); }
static int generic_max_int(shmem_team_t t, int *d, const int *s, size_t n) { return shmem_max_reduce(t, d, s, n); }
static int generic_xor_ulong(shmem_team_t t, unsigned long *d, const unsigned long *s, size_t n) {
    return shmem_xor_reduce(t, d, s, n);
}
static int generic_inscan_long(shmem_team_t t, long *d, const long *s, size_t n) { return shmem_sum_inscan(t, d, s, n); }
DEF_RUN2(double, gdouble, _sum_reduce, GEN_ARITH, C_SUM, generic_sum_double)
DEF_RUN2(int, gint, _max_reduce, GEN_MINMAX, C_MAX, generic_max_int)
DEF_RUN2(unsigned long, gulong, _xor_reduce, GEN_BITS, C_XOR, generic_xor_ulong)
DEF_RUN2(long, glong, _sum_inscan, GEN_ARITH, C_SUM, generic_inscan_long)

struct entry {
    const char *name;
    void (*run)(shmem_team_t, size_t, int, int, const char *);
    int kind;
    size_t elem;
    int big; /* also run at large counts */
};

#define E_RED(T, N, SUFFIX, BIG) {"shmem_" #N #SUFFIX, run_##N##SUFFIX, 0, sizeof(T), BIG},
#define E_AND(T, N, _) E_RED(T, N, _and_reduce, 0)
#define E_OR(T, N, _) E_RED(T, N, _or_reduce, 0)
#define E_XOR(T, N, _) E_RED(T, N, _xor_reduce, 0)
#define E_MAX(T, N, _) E_RED(T, N, _max_reduce, 0)
#define E_MIN(T, N, _) E_RED(T, N, _min_reduce, 0)
#define E_SUM(T, N, _) E_RED(T, N, _sum_reduce, 0)
#define E_PROD(T, N, _) E_RED(T, N, _prod_reduce, 0)
#define E_IN(T, N, _) {"shmem_" #N "_sum_inscan", run_##N##_sum_inscan, 1, sizeof(T), 0},
#define E_EX(T, N, _) {"shmem_" #N "_sum_exscan", run_##N##_sum_exscan, 2, sizeof(T), 0},

static const struct entry table[] = {
    USHMEM_REDUCE_BITWISE_TYPES(E_AND, _) USHMEM_REDUCE_BITWISE_TYPES(E_OR, _)
    USHMEM_REDUCE_BITWISE_TYPES(E_XOR, _) USHMEM_REDUCE_MINMAX_TYPES(E_MAX, _)
    USHMEM_REDUCE_MINMAX_TYPES(E_MIN, _) USHMEM_REDUCE_ARITH_TYPES(E_SUM, _)
    USHMEM_REDUCE_ARITH_TYPES(E_PROD, _) USHMEM_REDUCE_ARITH_TYPES(E_IN, _)
    USHMEM_REDUCE_ARITH_TYPES(E_EX, _)
    /* Large counts for representative routines (each algorithm's chunking and slicing). */
    {"shmem_double_sum_reduce (generic)", run_gdouble_sum_reduce, 0, sizeof(double), 1},
    {"shmem_int_max_reduce (generic)", run_gint_max_reduce, 0, sizeof(int), 1},
    {"shmem_ulong_xor_reduce (generic)", run_gulong_xor_reduce, 0, sizeof(unsigned long), 1},
    {"shmem_long_sum_inscan (generic)", run_glong_sum_inscan, 1, sizeof(long), 1},
    {"shmem_complexd_prod_reduce", run_complexd_prod_reduce, 0, sizeof(double _Complex), 1},
    {"shmem_longdouble_sum_exscan", run_longdouble_sum_exscan, 2, sizeof(long double), 1},
    {"shmem_schar_sum_reduce", run_schar_sum_reduce, 0, 1, 1},
};
#define NTABLE (sizeof table / sizeof table[0])

/* Every routine on the world team (1 and 64 elements, out of place and in place) and on one other
 * shape (3 elements, chosen by the routine's index); the large counts of the representative
 * routines on the world and the even PEs. */
static void test_team(struct shape *sh, int shape_index) {
    for (size_t e = 0; e < NTABLE; ++e) {
        const struct entry *t = &table[e];
        int world = sh->team == SHMEM_TEAM_WORLD;
        if (!t->big) {
            if (world) {
                t->run(sh->team, 1, 0, t->kind, sh->name);
                t->run(sh->team, 64, 0, t->kind, sh->name);
                t->run(sh->team, 64, 1, t->kind, sh->name);
            } else if ((int)(e % (size_t)(nshapes - 1)) + 1 == shape_index) {
                t->run(sh->team, 3, 0, t->kind, sh->name);
            }
            continue;
        }
        for (size_t ci = 0; ci < NCOUNTS; ++ci) {
            size_t cnt = counts[ci];
            if (quick && cnt > 4097) continue;
            if (cnt > 64 && !world && strcmp(sh->name, "even") != 0) continue;
            if ((cnt + 2) * t->elem > maxbytes) continue;
            t->run(sh->team, cnt, 0, t->kind, sh->name);
            t->run(sh->team, cnt, 1, t->kind, sh->name);
        }
    }
}

/* ---- active-set *_to_all ---- */
static long psync[SHMEM_REDUCE_SYNC_SIZE], psync_b[SHMEM_BARRIER_SYNC_SIZE];

#define DEF_TOALL(T, N, SUFFIX, GEN, COMB)                                                         \
    static void toall_##N##SUFFIX(int start, int logs, int size, int cnt, void *wrk) {             \
        int stride = 1 << logs;                                                                     \
        T *s = (T *)src, *d = (T *)dst;                                                            \
        for (int i = 0; i < cnt; ++i) s[i] = GEN(T, me, (size_t)i);                                \
        shmem_##N##SUFFIX(d, s, cnt, start, logs, size, (T *)wrk, psync);                          \
        shmem_barrier(start, logs, size, psync_b); /* everyone is done with pSync */               \
        for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i)                                           \
            CHECK(psync[i] == SHMEM_SYNC_VALUE, "shmem_" #N #SUFFIX " restores pSync: word %d is %ld", i, psync[i]); \
        for (int i = 0; i < cnt; ++i) {                                                            \
            T acc = GEN(T, start, (size_t)i);                                                      \
            for (int k = 1; k < size; ++k) acc = (T)COMB(acc, GEN(T, start + k * stride, (size_t)i)); \
            if (!(d[i] == acc))                                                                    \
                FAIL("shmem_" #N #SUFFIX " (%d elements, set %d/%d/%d) element %d: expected %Lg, got %Lg", \
                     cnt, start, logs, size, i, (long double)acc, (long double)d[i]);              \
        }                                                                                          \
        /* Nobody starts the next call, which writes into every member's dest (and pWrk), before \
         * every member has checked pSync and dest: the next call starts right after this. */    \
        shmem_barrier(start, logs, size, psync_b);                                                 \
    }
#define T_AND(T, N, _) DEF_TOALL(T, N, _and_to_all, GEN_BITS, C_AND)
#define T_OR(T, N, _) DEF_TOALL(T, N, _or_to_all, GEN_BITS, C_OR)
#define T_XOR(T, N, _) DEF_TOALL(T, N, _xor_to_all, GEN_BITS, C_XOR)
#define T_MAX(T, N, _) DEF_TOALL(T, N, _max_to_all, GEN_MINMAX, C_MAX)
#define T_MIN(T, N, _) DEF_TOALL(T, N, _min_to_all, GEN_MINMAX, C_MIN)
#define T_SUM(T, N, _) DEF_TOALL(T, N, _sum_to_all, GEN_ARITH, C_SUM)
#define T_PROD(T, N, _) DEF_TOALL(T, N, _prod_to_all, GEN_PROD, C_PROD)
USHMEM_TO_ALL_BITWISE_TYPES(T_AND, _)
USHMEM_TO_ALL_BITWISE_TYPES(T_OR, _)
USHMEM_TO_ALL_BITWISE_TYPES(T_XOR, _)
USHMEM_TO_ALL_MINMAX_TYPES(T_MAX, _)
USHMEM_TO_ALL_MINMAX_TYPES(T_MIN, _)
USHMEM_TO_ALL_ARITH_TYPES(T_SUM, _)
USHMEM_TO_ALL_ARITH_TYPES(T_PROD, _)

typedef void (*toall_fn)(int, int, int, int, void *);
#define F_AND(T, N, _) toall_##N##_and_to_all,
#define F_OR(T, N, _) toall_##N##_or_to_all,
#define F_XOR(T, N, _) toall_##N##_xor_to_all,
#define F_MAX(T, N, _) toall_##N##_max_to_all,
#define F_MIN(T, N, _) toall_##N##_min_to_all,
#define F_SUM(T, N, _) toall_##N##_sum_to_all,
#define F_PROD(T, N, _) toall_##N##_prod_to_all,
static const toall_fn toall_table[] = {
    USHMEM_TO_ALL_BITWISE_TYPES(F_AND, _) USHMEM_TO_ALL_BITWISE_TYPES(F_OR, _)
    USHMEM_TO_ALL_BITWISE_TYPES(F_XOR, _) USHMEM_TO_ALL_MINMAX_TYPES(F_MAX, _)
    USHMEM_TO_ALL_MINMAX_TYPES(F_MIN, _) USHMEM_TO_ALL_ARITH_TYPES(F_SUM, _)
    USHMEM_TO_ALL_ARITH_TYPES(F_PROD, _)};

static void test_active_set(int start, int logs, int size, void *wrk) {
    int stride = 1 << logs;
    int member = me >= start && (me - start) % stride == 0 && (me - start) / stride < size;
    if (member) {
        const int cnts[] = {1, 5, 300, 20000};
        for (size_t f = 0; f < sizeof toall_table / sizeof toall_table[0]; ++f)
            for (int c = 0; c < 4; ++c) {
                if (c == 3 && (f % 7 || quick)) continue;
                toall_table[f](start, logs, size, cnts[c], wrk); /* ends with a barrier */
            }
    }
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync_b[i] = SHMEM_SYNC_VALUE;
    maxbytes = (size_t)300002 * sizeof(long double _Complex);
    src = shmem_malloc(maxbytes);
    dst = shmem_malloc(maxbytes);
    /* pWrk: max(nreduce / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements of the largest type. */
    void *wrk = shmem_malloc((20000 / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE) * sizeof(long double _Complex));
    CHECK(src && dst && wrk, "symmetric buffers");
    double t0 = now_seconds();
    make_shapes();
    for (int i = 0; i < nshapes; ++i)
        if (shapes[i].team != SHMEM_TEAM_INVALID) test_team(&shapes[i], i);
    shmem_barrier_all();
    NOTE("team reductions and scans: %.1f s", now_seconds() - t0);
    t0 = now_seconds();
    test_active_set(0, 0, npes, wrk);
    test_active_set(0, 1, (npes + 1) / 2, wrk);
    if (npes >= 3) test_active_set(1, 0, npes - 1, wrk);
    NOTE("active-set reductions: %.1f s", now_seconds() - t0);
    destroy_shapes();
    shmem_free(wrk);
    shmem_free(dst);
    shmem_free(src);
    NOTE("coll_reduce: %d PEs OK", npes);
    shmem_finalize();
    return 0;
}
