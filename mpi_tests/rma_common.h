/* Shared machinery of the RMA test programs (rma_typed, rma_sized, rma_strided, rma_nbi).
 *
 * A table describes every element type under test: the 24 standard RMA types (typed routines,
 * plain / ctx / C11 generic / C11 generic with ctx), the sized routines (8..128 bits) and the mem
 * routines (plain / ctx). For each it holds a pattern fill and a checker, and thin wrappers with
 * one signature per routine family, so that one harness drives all of them.
 *
 * Data layout: every transfer lands GUARD bytes into its buffer; the GUARD bytes before and after
 * the transferred elements must stay untouched (0xA5), which catches overruns and misplaced
 * transfers. Values are generated from (producing PE, round tag, element index), so data from
 * the wrong PE, an earlier round or the wrong offset is detected. Every PE sends to its right
 * neighbour (me+1)%n and reads from its left neighbour (me+n-1)%n, so at 1 PE all traffic goes
 * to self. */
#ifndef USHMEM_MPI_TESTS_RMA_COMMON_H
#define USHMEM_MPI_TESTS_RMA_COMMON_H

#include "common.h"
#include <stdalign.h>

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define BIG (4 * MiB)       /* largest transfer */
#define SMALL_DATA (64 * KiB) /* capacity of the .data region */
#define STACK_MAX (8 * KiB) /* largest transfer using a stack buffer */
#define GUARD 64
#define UNTOUCHED 0xA5
#define SCRIBBLE 0x5A

/* ---- Regions ----
 * Two sets of each kind, so that one round can put into set 0 while it gets out of set 1.
 * Symmetric: heap blocks (allocated in rma_setup), large .bss arrays and .data arrays.
 * Local (source of a put, destination of a get): private malloc, stack (provided by the caller),
 * static arrays used as plain local memory, and symmetric heap blocks used as plain local
 * memory. */
enum sym_kind { SYM_HEAP, SYM_BSS, SYM_DATA, NSYM };
enum local_kind { LOC_PRIVATE, LOC_STACK, LOC_STATIC, LOC_HEAP, NLOC };

static const char *const sym_name[NSYM] = {"heap", ".bss", ".data"};
static const char *const local_name[NLOC] = {"private", "stack", "static", "heap"};

static alignas(64) unsigned char bss_region[2][BIG + 2 * GUARD];
alignas(64) unsigned char data_region[2][SMALL_DATA + 2 * GUARD] = {{1}, {1}}; /* in .data */
static alignas(64) unsigned char static_local[2][BIG + 2 * GUARD];
static unsigned char *heap_region[2], *heap_local[2], *private_local[2];

static int me, npes, right, left;
static uint32_t round_tag;

static inline uint32_t next_tag(void) { return ++round_tag; } /* same sequence on every PE */

/* Symmetric region of a kind, from set `set`, that can hold `bytes` (.data falls back to the
 * heap when too small). */
static inline unsigned char *sym_region(int set, enum sym_kind *k, size_t bytes) {
    if (*k == SYM_DATA && bytes + 2 * GUARD > sizeof data_region[0]) *k = SYM_HEAP;
    switch (*k) {
    case SYM_HEAP: return heap_region[set];
    case SYM_BSS: return bss_region[set];
    default: return data_region[set];
    }
}

/* Local buffer of a kind, from set `set` (the stack falls back to private memory when small). */
static inline unsigned char *local_region(int set, enum local_kind *k, size_t bytes,
                                          unsigned char *stack) {
    if (*k == LOC_STACK && bytes > STACK_MAX) *k = LOC_PRIVATE;
    switch (*k) {
    case LOC_PRIVATE: return private_local[set];
    case LOC_STACK: return stack;
    case LOC_STATIC: return static_local[set];
    default: return heap_local[set];
    }
}

/* ---- Element types ---- */
typedef void (*fill_fn)(void *p, size_t n, int pe, uint32_t tag, size_t first);
/* Index of the first of n elements that is not (pe, tag, first + i), or SIZE_MAX. */
typedef size_t (*bad_fn)(const void *p, size_t n, int pe, uint32_t tag, size_t first);
typedef void (*rma_fn)(void *d, const void *s, size_t n, int pe);
typedef void (*strided_fn)(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe);
typedef void (*blocked_fn)(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                           size_t nblocks, int pe);
typedef void (*pg_fn)(int variant, int mode, void *buf, size_t k, int pe, uint32_t tag);

/* Routine forms, in table order. Typed types have all four; sized and mem have the first two. */
enum { V_PLAIN, V_CTX, V_GENERIC, V_GENERIC_CTX, NVARIANTS };
static const char *const variant_name[NVARIANTS] = {"plain", "ctx", "generic", "generic ctx"};

typedef struct {
    const char *name; /* TYPENAME, "8".."128", or "mem" */
    size_t size;      /* element size in bytes */
    int wide;         /* tested up to BIG (else up to 64 KiB) */
    int nvariants;
    fill_fn fill;
    bad_fn bad;
    rma_fn put[NVARIANTS], get[NVARIANTS], put_nbi[NVARIANTS], get_nbi[NVARIANTS];
    strided_fn iput[NVARIANTS], iget[NVARIANTS];
    blocked_fn ibput[NVARIANTS], ibget[NVARIANTS]; /* NULL where the library under test lacks them */
    pg_fn pg; /* typed only */
} rma_type;

/* Values of typed elements stay within the exactly representable range of every type (24 bits
 * for float) and are never negative, so == comparison is exact for all of them. */
#define TVAL(T, pe, tag, k)                                                                \
    ((T)(pattern_word((pe), (tag), (k)) &                                                  \
         (sizeof(T) == 1 ? 0x7fu : sizeof(T) == 2 ? 0x7fffu : 0xffffffu)))

/* The 24 standard RMA types: X(type, TYPENAME, wide). */
#define TEST_RMA_TYPES(X)                                                                   \
    X(float, float, 0) X(double, double, 1) X(long double, longdouble, 1) X(char, char, 1)  \
    X(signed char, schar, 0) X(short, short, 0) X(int, int, 1) X(long, long, 1)             \
    X(long long, longlong, 0) X(unsigned char, uchar, 0) X(unsigned short, ushort, 0)       \
    X(unsigned int, uint, 0) X(unsigned long, ulong, 0) X(unsigned long long, ulonglong, 0) \
    X(int8_t, int8, 1) X(int16_t, int16, 0) X(int32_t, int32, 0) X(int64_t, int64, 1)       \
    X(uint8_t, uint8, 1) X(uint16_t, uint16, 0) X(uint32_t, uint32, 0)                      \
    X(uint64_t, uint64, 0) X(size_t, size, 1) X(ptrdiff_t, ptrdiff, 0)

#define CTX SHMEM_CTX_DEFAULT

/* Wrappers for one typed type. The generic forms go through the C11 _Generic macros of
 * <shmem.h>, with and without a context argument. */
#if TEST_WITH_USHMEM
#define DEF_BLOCKED(T, N)                                                                       \
    static void ibput_##N##_0(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,      \
                              size_t nb, int pe) {                                              \
        shmem_##N##_ibput(d, s, a, b, bs, nb, pe);                                              \
    }                                                                                           \
    static void ibput_##N##_1(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,      \
                              size_t nb, int pe) {                                              \
        shmem_ctx_##N##_ibput(CTX, d, s, a, b, bs, nb, pe);                                     \
    }                                                                                           \
    static void ibput_##N##_2(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,      \
                              size_t nb, int pe) {                                              \
        shmem_ibput((T *)d, (const T *)s, a, b, bs, nb, pe);                                    \
    }                                                                                           \
    static void ibput_##N##_3(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,      \
                              size_t nb, int pe) {                                              \
        shmem_ibput(CTX, (T *)d, (const T *)s, a, b, bs, nb, pe);                               \
    }                                                                                           \
    static void ibget_##N##_0(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,      \
                              size_t nb, int pe) {                                              \
        shmem_##N##_ibget(d, s, a, b, bs, nb, pe);                                              \
    }                                                                                           \
    static void ibget_##N##_1(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,      \
                              size_t nb, int pe) {                                              \
        shmem_ctx_##N##_ibget(CTX, d, s, a, b, bs, nb, pe);                                     \
    }                                                                                           \
    static void ibget_##N##_2(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,      \
                              size_t nb, int pe) {                                              \
        shmem_ibget((T *)d, (const T *)s, a, b, bs, nb, pe);                                    \
    }                                                                                           \
    static void ibget_##N##_3(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,      \
                              size_t nb, int pe) {                                              \
        shmem_ibget(CTX, (T *)d, (const T *)s, a, b, bs, nb, pe);                               \
    }
#define BLOCKED_ENTRIES(N)                                                                      \
    .ibput = {ibput_##N##_0, ibput_##N##_1, ibput_##N##_2, ibput_##N##_3},                      \
    .ibget = {ibget_##N##_0, ibget_##N##_1, ibget_##N##_2, ibget_##N##_3},
#else
#define DEF_BLOCKED(T, N)
#define BLOCKED_ENTRIES(N)
#endif

#define DEF_RMA_FORMS(OP, T, N)                                                                 \
    static void OP##_##N##_0(void *d, const void *s, size_t n, int pe) {                       \
        shmem_##N##_##OP(d, s, n, pe);                                                          \
    }                                                                                           \
    static void OP##_##N##_1(void *d, const void *s, size_t n, int pe) {                       \
        shmem_ctx_##N##_##OP(CTX, d, s, n, pe);                                                 \
    }                                                                                           \
    static void OP##_##N##_2(void *d, const void *s, size_t n, int pe) {                       \
        shmem_##OP((T *)d, (const T *)s, n, pe);                                                \
    }                                                                                           \
    static void OP##_##N##_3(void *d, const void *s, size_t n, int pe) {                       \
        shmem_##OP(CTX, (T *)d, (const T *)s, n, pe);                                           \
    }

#define DEF_STRIDED_FORMS(OP, T, N)                                                             \
    static void OP##_##N##_0(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t n,        \
                             int pe) {                                                          \
        shmem_##N##_##OP(d, s, a, b, n, pe);                                                    \
    }                                                                                           \
    static void OP##_##N##_1(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t n,        \
                             int pe) {                                                          \
        shmem_ctx_##N##_##OP(CTX, d, s, a, b, n, pe);                                           \
    }                                                                                           \
    static void OP##_##N##_2(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t n,        \
                             int pe) {                                                          \
        shmem_##OP((T *)d, (const T *)s, a, b, n, pe);                                          \
    }                                                                                           \
    static void OP##_##N##_3(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t n,        \
                             int pe) {                                                          \
        shmem_##OP(CTX, (T *)d, (const T *)s, a, b, n, pe);                                     \
    }

/* The generic shmem_g takes a const source (OpenSHMEM 1.6); OSHMEM only accepts non-const. */
#if TEST_WITH_USHMEM
#define G_SOURCE(T) const T
#else
#define G_SOURCE(T) T
#endif

/* p/g of one element k of a T array: mode 0 = p of TVAL(me, tag, k) to pe, mode 1 = g from pe
 * and compare with TVAL(pe, tag, k). */
#define DEF_PG(T, N)                                                                            \
    static void pg_##N(int variant, int mode, void *buf, size_t k, int pe, uint32_t tag) {     \
        T *a = (T *)buf;                                                                        \
        if (mode == 0) {                                                                        \
            T v = TVAL(T, me, tag, k);                                                          \
            switch (variant) {                                                                  \
            case V_PLAIN: shmem_##N##_p(&a[k], v, pe); break;                                   \
            case V_CTX: shmem_ctx_##N##_p(CTX, &a[k], v, pe); break;                            \
            case V_GENERIC: shmem_p(&a[k], v, pe); break;                                       \
            default: shmem_p(CTX, &a[k], v, pe); break;                                         \
            }                                                                                   \
        } else {                                                                                \
            T got;                                                                              \
            G_SOURCE(T) *ca = a;                                                                \
            switch (variant) {                                                                  \
            case V_PLAIN: got = shmem_##N##_g(&a[k], pe); break;                                \
            case V_CTX: got = shmem_ctx_##N##_g(CTX, &a[k], pe); break;                         \
            case V_GENERIC: got = shmem_g(&ca[k], pe); break;                                   \
            default: got = shmem_g(CTX, &ca[k], pe); break;                                     \
            }                                                                                   \
            T want = TVAL(T, pe, tag, k);                                                       \
            CHECK(got == want, "shmem_%s_g (%s) of element %zu from PE %d: expected %lld, got " \
                  "%lld", #N, variant_name[variant], k, pe, (long long)want, (long long)got);   \
        }                                                                                       \
    }

#define DEF_TYPE(T, N, W)                                                                       \
    static void fill_##N(void *p, size_t n, int pe, uint32_t tag, size_t first) {               \
        T *q = (T *)p;                                                                          \
        for (size_t i = 0; i < n; ++i) q[i] = TVAL(T, pe, tag, first + i);                      \
    }                                                                                           \
    static size_t bad_##N(const void *p, size_t n, int pe, uint32_t tag, size_t first) {        \
        const T *q = (const T *)p;                                                              \
        for (size_t i = 0; i < n; ++i)                                                          \
            if (!(q[i] == TVAL(T, pe, tag, first + i))) return i;                               \
        return SIZE_MAX;                                                                        \
    }                                                                                           \
    DEF_RMA_FORMS(put, T, N)                                                                    \
    DEF_RMA_FORMS(get, T, N)                                                                    \
    DEF_RMA_FORMS(put_nbi, T, N)                                                                \
    DEF_RMA_FORMS(get_nbi, T, N)                                                                \
    DEF_STRIDED_FORMS(iput, T, N)                                                               \
    DEF_STRIDED_FORMS(iget, T, N)                                                               \
    DEF_BLOCKED(T, N)                                                                           \
    DEF_PG(T, N)
TEST_RMA_TYPES(DEF_TYPE)

#define TYPE_ENTRY(T, N, W)                                                                     \
    {.name = #N,                                                                                \
     .size = sizeof(T),                                                                         \
     .wide = W,                                                                                 \
     .nvariants = NVARIANTS,                                                                    \
     .fill = fill_##N,                                                                          \
     .bad = bad_##N,                                                                            \
     .put = {put_##N##_0, put_##N##_1, put_##N##_2, put_##N##_3},                               \
     .get = {get_##N##_0, get_##N##_1, get_##N##_2, get_##N##_3},                               \
     .put_nbi = {put_nbi_##N##_0, put_nbi_##N##_1, put_nbi_##N##_2, put_nbi_##N##_3},           \
     .get_nbi = {get_nbi_##N##_0, get_nbi_##N##_1, get_nbi_##N##_2, get_nbi_##N##_3},           \
     .iput = {iput_##N##_0, iput_##N##_1, iput_##N##_2, iput_##N##_3},                          \
     .iget = {iget_##N##_0, iget_##N##_1, iget_##N##_2, iget_##N##_3},                          \
     BLOCKED_ENTRIES(N).pg = pg_##N},

__attribute__((unused)) static const rma_type typed_types[] = {TEST_RMA_TYPES(TYPE_ENTRY)};
#define NTYPED ((int)(sizeof typed_types / sizeof typed_types[0]))

/* ---- Sized and mem routines: byte patterns, element = BITS/8 bytes ---- */
static inline void fill_sized(size_t es, void *p, size_t n, int pe, uint32_t tag, size_t first) {
    unsigned char *b = (unsigned char *)p;
    for (size_t i = 0; i < n * es; ++i) b[i] = pattern_byte(pe, tag, first * es + i);
}
static inline size_t bad_sized(size_t es, const void *p, size_t n, int pe, uint32_t tag, size_t first) {
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n * es; ++i)
        if (b[i] != pattern_byte(pe, tag, first * es + i)) return i / es;
    return SIZE_MAX;
}

#if TEST_WITH_USHMEM
#define DEF_SIZED_BLOCKED(B)                                                                    \
    static void ibput_s##B##_0(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,     \
                               size_t nb, int pe) {                                             \
        shmem_ibput##B(d, s, a, b, bs, nb, pe);                                                 \
    }                                                                                           \
    static void ibput_s##B##_1(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,     \
                               size_t nb, int pe) {                                             \
        shmem_ctx_ibput##B(CTX, d, s, a, b, bs, nb, pe);                                        \
    }                                                                                           \
    static void ibget_s##B##_0(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,     \
                               size_t nb, int pe) {                                             \
        shmem_ibget##B(d, s, a, b, bs, nb, pe);                                                 \
    }                                                                                           \
    static void ibget_s##B##_1(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t bs,     \
                               size_t nb, int pe) {                                             \
        shmem_ctx_ibget##B(CTX, d, s, a, b, bs, nb, pe);                                        \
    }
#define SIZED_BLOCKED_ENTRIES(B)                                                                \
    .ibput = {ibput_s##B##_0, ibput_s##B##_1}, .ibget = {ibget_s##B##_0, ibget_s##B##_1},
#else
#define DEF_SIZED_BLOCKED(B)
#define SIZED_BLOCKED_ENTRIES(B)
#endif

#define DEF_SIZED(B)                                                                            \
    static void fill_s##B(void *p, size_t n, int pe, uint32_t tag, size_t first) {              \
        fill_sized(B / 8, p, n, pe, tag, first);                                                \
    }                                                                                           \
    static size_t bad_s##B(const void *p, size_t n, int pe, uint32_t tag, size_t first) {       \
        return bad_sized(B / 8, p, n, pe, tag, first);                                          \
    }                                                                                           \
    static void put_s##B##_0(void *d, const void *s, size_t n, int pe) {                        \
        shmem_put##B(d, s, n, pe);                                                              \
    }                                                                                           \
    static void put_s##B##_1(void *d, const void *s, size_t n, int pe) {                        \
        shmem_ctx_put##B(CTX, d, s, n, pe);                                                     \
    }                                                                                           \
    static void get_s##B##_0(void *d, const void *s, size_t n, int pe) {                        \
        shmem_get##B(d, s, n, pe);                                                              \
    }                                                                                           \
    static void get_s##B##_1(void *d, const void *s, size_t n, int pe) {                        \
        shmem_ctx_get##B(CTX, d, s, n, pe);                                                     \
    }                                                                                           \
    static void put_nbi_s##B##_0(void *d, const void *s, size_t n, int pe) {                    \
        shmem_put##B##_nbi(d, s, n, pe);                                                        \
    }                                                                                           \
    static void put_nbi_s##B##_1(void *d, const void *s, size_t n, int pe) {                    \
        shmem_ctx_put##B##_nbi(CTX, d, s, n, pe);                                               \
    }                                                                                           \
    static void get_nbi_s##B##_0(void *d, const void *s, size_t n, int pe) {                    \
        shmem_get##B##_nbi(d, s, n, pe);                                                        \
    }                                                                                           \
    static void get_nbi_s##B##_1(void *d, const void *s, size_t n, int pe) {                    \
        shmem_ctx_get##B##_nbi(CTX, d, s, n, pe);                                               \
    }                                                                                           \
    static void iput_s##B##_0(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t n,       \
                              int pe) {                                                         \
        shmem_iput##B(d, s, a, b, n, pe);                                                       \
    }                                                                                           \
    static void iput_s##B##_1(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t n,       \
                              int pe) {                                                         \
        shmem_ctx_iput##B(CTX, d, s, a, b, n, pe);                                              \
    }                                                                                           \
    static void iget_s##B##_0(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t n,       \
                              int pe) {                                                         \
        shmem_iget##B(d, s, a, b, n, pe);                                                       \
    }                                                                                           \
    static void iget_s##B##_1(void *d, const void *s, ptrdiff_t a, ptrdiff_t b, size_t n,       \
                              int pe) {                                                         \
        shmem_ctx_iget##B(CTX, d, s, a, b, n, pe);                                              \
    }                                                                                           \
    DEF_SIZED_BLOCKED(B)
DEF_SIZED(8)
DEF_SIZED(16)
DEF_SIZED(32)
DEF_SIZED(64)
DEF_SIZED(128)

static void fill_mem(void *p, size_t n, int pe, uint32_t tag, size_t first) {
    fill_sized(1, p, n, pe, tag, first);
}
static size_t bad_mem(const void *p, size_t n, int pe, uint32_t tag, size_t first) {
    return bad_sized(1, p, n, pe, tag, first);
}
static void putmem_0(void *d, const void *s, size_t n, int pe) { shmem_putmem(d, s, n, pe); }
static void putmem_1(void *d, const void *s, size_t n, int pe) {
    shmem_ctx_putmem(CTX, d, s, n, pe);
}
static void getmem_0(void *d, const void *s, size_t n, int pe) { shmem_getmem(d, s, n, pe); }
static void getmem_1(void *d, const void *s, size_t n, int pe) {
    shmem_ctx_getmem(CTX, d, s, n, pe);
}
static void putmem_nbi_0(void *d, const void *s, size_t n, int pe) {
    shmem_putmem_nbi(d, s, n, pe);
}
static void putmem_nbi_1(void *d, const void *s, size_t n, int pe) {
    shmem_ctx_putmem_nbi(CTX, d, s, n, pe);
}
static void getmem_nbi_0(void *d, const void *s, size_t n, int pe) {
    shmem_getmem_nbi(d, s, n, pe);
}
static void getmem_nbi_1(void *d, const void *s, size_t n, int pe) {
    shmem_ctx_getmem_nbi(CTX, d, s, n, pe);
}

#define SIZED_ENTRY(B, W)                                                                       \
    {.name = #B,                                                                                \
     .size = B / 8,                                                                             \
     .wide = W,                                                                                 \
     .nvariants = 2,                                                                            \
     .fill = fill_s##B,                                                                         \
     .bad = bad_s##B,                                                                           \
     .put = {put_s##B##_0, put_s##B##_1},                                                       \
     .get = {get_s##B##_0, get_s##B##_1},                                                       \
     .put_nbi = {put_nbi_s##B##_0, put_nbi_s##B##_1},                                           \
     .get_nbi = {get_nbi_s##B##_0, get_nbi_s##B##_1},                                           \
     .iput = {iput_s##B##_0, iput_s##B##_1},                                                    \
     .iget = {iget_s##B##_0, iget_s##B##_1},                                                    \
     SIZED_BLOCKED_ENTRIES(B)},

/* Sized routines (8..128 bits) and the mem routines (element = 1 byte, no strided forms). */
__attribute__((unused)) static const rma_type sized_types[] = {
    SIZED_ENTRY(8, 1) SIZED_ENTRY(16, 0) SIZED_ENTRY(32, 0) SIZED_ENTRY(64, 1)
    SIZED_ENTRY(128, 1)
    {.name = "mem",
     .size = 1,
     .wide = 1,
     .nvariants = 2,
     .fill = fill_mem,
     .bad = bad_mem,
     .put = {putmem_0, putmem_1},
     .get = {getmem_0, getmem_1},
     .put_nbi = {putmem_nbi_0, putmem_nbi_1},
     .get_nbi = {getmem_nbi_0, getmem_nbi_1}},
};
#define NSIZED ((int)(sizeof sized_types / sizeof sized_types[0]))

/* ---- Checking ---- */

/* Checks n elements at p hold (pe, tag, first..first+n). */
#define CHECK_ELEMS(t, p, n, pe, tag, first, ...)                                               \
    do {                                                                                        \
        size_t ce_i = (t)->bad((p), (n), (pe), (tag), (first));                                 \
        if (ce_i != SIZE_MAX) {                                                                 \
            const unsigned char *ce_b = (const unsigned char *)(p) + ce_i * (t)->size;          \
            fflush(stdout);                                                                     \
            fprintf(stderr, "element %zu of %zu (%s, %zu bytes) is wrong: bytes", ce_i,         \
                    (size_t)(n), (t)->name, (t)->size);                                         \
            for (size_t ce_j = 0; ce_j < (t)->size; ++ce_j) fprintf(stderr, " %02x", ce_b[ce_j]); \
            fprintf(stderr, "; expected data of PE %d, round %u\n", (pe), (unsigned)(tag));     \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                                         \
        }                                                                                       \
    } while (0)

/* Checks the guard zones around a contiguous transfer of `bytes` bytes at base + GUARD. */
#define CHECK_GUARDS(base, bytes, ...)                                                          \
    do {                                                                                        \
        CHECK_FILL((base), GUARD, UNTOUCHED, "guard before the data: " __VA_ARGS__);            \
        CHECK_FILL((base) + GUARD + (bytes), GUARD, UNTOUCHED, "guard after the data: " __VA_ARGS__); \
    } while (0)

/* ---- Contiguous rounds ---- */

/* Where one round puts to and gets from. */
struct placement {
    enum sym_kind put_dest;   /* symmetric destination of the put (set 0) */
    enum local_kind put_src;  /* local source of the put (set 0) */
    enum sym_kind get_src;    /* symmetric source of the get (set 1) */
    enum local_kind get_dest; /* local destination of the get (set 1) */
};

/* Issues n elements of `op` in up to `pieces` operations (1 for a blocking transfer). */
static inline void issue(rma_fn op, size_t es, unsigned char *d, const unsigned char *s, size_t n,
                         size_t pieces, int pe) {
    if (pieces > n) pieces = n;
    if (pieces == 0) pieces = 1;
    size_t per = n / pieces, done = 0;
    for (size_t i = 0; i < pieces; ++i) {
        size_t cnt = i + 1 == pieces ? n - done : per;
        op(d + done * es, s + done * es, cnt, pe);
        done += cnt;
    }
}

/* One round: every PE puts n elements to its right neighbour and gets n elements from its left
 * neighbour, with the routine form v.
 *   nbi = 0: blocking put and get; the get is checked at once, and the put source is reused
 *            (scribbled over) at once.
 *   nbi = 1: put_nbi and get_nbi, each split into up to 64 operations, completed by
 *            quiet_mode 0: shmem_quiet, 1: shmem_ctx_quiet(SHMEM_CTX_DEFAULT), or
 *            2: shmem_barrier_all alone (it completes put_nbi and get_nbi on the default
 *            context); only then is the get checked and the put source reused.
 * After the closing barrier each PE checks the data its left neighbour put, and the guards. */
static inline void round_xfer(const rma_type *t, int v, struct placement pl, size_t n, int nbi,
                              int quiet_mode) {
    alignas(64) unsigned char stack_put[STACK_MAX + 2 * GUARD];
    alignas(64) unsigned char stack_get[STACK_MAX + 2 * GUARD];
    size_t bytes = n * t->size;
    uint32_t put_tag = next_tag(), get_tag = next_tag();
    unsigned char *pdest = sym_region(0, &pl.put_dest, bytes);
    unsigned char *psrc = local_region(0, &pl.put_src, bytes, stack_put);
    unsigned char *gsrc = sym_region(1, &pl.get_src, bytes);
    unsigned char *gdest = local_region(1, &pl.get_dest, bytes, stack_get);
    const char *sfx = nbi ? "_nbi" : "";

    memset(pdest, UNTOUCHED, bytes + 2 * GUARD);
    memset(gdest, UNTOUCHED, bytes + 2 * GUARD);
    t->fill(psrc + GUARD, n, me, put_tag, 0);
    t->fill(gsrc + GUARD, n, me, get_tag, 0);
    shmem_barrier_all(); /* destinations prepared, sources filled, on every PE */

    size_t pieces = nbi ? 64 : 1;
    issue(nbi ? t->put_nbi[v] : t->put[v], t->size, pdest + GUARD, psrc + GUARD, n, pieces, right);
    issue(nbi ? t->get_nbi[v] : t->get[v], t->size, gdest + GUARD, gsrc + GUARD, n, pieces, left);
    if (nbi && quiet_mode == 0) shmem_quiet();
    if (nbi && quiet_mode == 1) shmem_ctx_quiet(CTX);
    if (nbi && quiet_mode == 2) shmem_barrier_all(); /* completes both */
    /* Complete now: the get has landed and the put source may be reused. */
    CHECK_GUARDS(gdest, bytes, "%s: %s get%s of %zu elements from %s into %s memory", t->name,
                 variant_name[v], sfx, n, sym_name[pl.get_src], local_name[pl.get_dest]);
    CHECK_ELEMS(t, gdest + GUARD, n, left, get_tag, 0,
                "%s: %s get%s of %zu elements from %s into %s memory", t->name, variant_name[v],
                sfx, n, sym_name[pl.get_src], local_name[pl.get_dest]);
    memset(psrc + GUARD, SCRIBBLE, bytes);
    shmem_barrier_all(); /* every put is complete and every get has read its source */
    CHECK_GUARDS(pdest, bytes, "%s: %s put%s of %zu elements into %s from %s memory", t->name,
                 variant_name[v], sfx, n, sym_name[pl.put_dest], local_name[pl.put_src]);
    CHECK_ELEMS(t, pdest + GUARD, n, left, put_tag, 0,
                "%s: %s put%s of %zu elements into %s from %s memory", t->name, variant_name[v],
                sfx, n, sym_name[pl.put_dest], local_name[pl.put_src]);
}

/* A placement that varies with r, so that successive rounds use different memory kinds. */
static inline struct placement placement_for(int r) {
    struct placement pl = {(enum sym_kind)(r % NSYM), (enum local_kind)((r + 1) % NLOC),
                           (enum sym_kind)((r + 2) % NSYM), (enum local_kind)((r + 3) % NLOC)};
    return pl;
}

/* ---- Setup ---- */
static inline void rma_setup(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    for (int set = 0; set < 2; ++set) {
        heap_region[set] = shmem_align(64, BIG + 2 * GUARD);
        heap_local[set] = shmem_align(64, BIG + 2 * GUARD);
        CHECK(heap_region[set] && heap_local[set], "shmem_align(64, %zu)", BIG + 2 * GUARD);
        private_local[set] = aligned_alloc(64, BIG + 2 * GUARD);
        CHECK(private_local[set], "aligned_alloc");
    }
}

static inline void rma_teardown(const char *what) {
    shmem_barrier_all();
    for (int set = 0; set < 2; ++set) {
        shmem_free(heap_local[set]);
        shmem_free(heap_region[set]);
        free(private_local[set]);
    }
    printf("[PE %d] %s: OK\n", me, what);
    shmem_finalize();
}

#endif /* USHMEM_MPI_TESTS_RMA_COMMON_H */
