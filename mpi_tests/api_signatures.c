/* api_signatures: the routines of the foundation chapters are declared by <shmem.h> with the
 * types of the OpenSHMEM 1.6 synopses, and the library constants have their specified values.
 *
 * Each declaration is compared with the specified function type by a C11 _Generic selection on
 * the routine's address, so a mismatch does not break the build of the other tests: it is
 * reported at run time, with the specified synopsis, and the program exits 1. It runs on one PE
 * and makes no communication; it also checks that the generic (C11) selections compile for the
 * RMA types and pick the routine of the right type. */
#include "common.h"

static int mismatches = 0;

#define SIG(fn, type, synopsis)                                                                \
    do {                                                                                       \
        if (!_Generic(&fn, type: 1, default: 0)) {                                             \
            fprintf(stderr, "MISMATCH: <shmem.h> declares %s differently from the "            \
                            "specification: %s\n", #fn, synopsis);                             \
            ++mismatches;                                                                      \
        }                                                                                      \
    } while (0)

/* One typed family member and its context form, from the C synopses. */
#define SIG_TYPED(T, N)                                                                        \
    SIG(shmem_##N##_put, void (*)(T *, const T *, size_t, int),                                \
        "void shmem_" #N "_put(" #T " *dest, const " #T " *source, size_t nelems, int pe)");    \
    SIG(shmem_ctx_##N##_put, void (*)(shmem_ctx_t, T *, const T *, size_t, int),               \
        "void shmem_ctx_" #N "_put(shmem_ctx_t ctx, " #T " *dest, const " #T " *source, ...)"); \
    SIG(shmem_##N##_get, void (*)(T *, const T *, size_t, int), "shmem_" #N "_get");           \
    SIG(shmem_##N##_put_nbi, void (*)(T *, const T *, size_t, int), "shmem_" #N "_put_nbi");   \
    SIG(shmem_ctx_##N##_get_nbi, void (*)(shmem_ctx_t, T *, const T *, size_t, int),           \
        "shmem_ctx_" #N "_get_nbi");                                                           \
    SIG(shmem_##N##_p, void (*)(T *, T, int), "void shmem_" #N "_p(" #T " *dest, " #T " value, int pe)"); \
    SIG(shmem_##N##_g, T (*)(const T *, int), #T " shmem_" #N "_g(const " #T " *source, int pe)"); \
    SIG(shmem_ctx_##N##_g, T (*)(shmem_ctx_t, const T *, int), "shmem_ctx_" #N "_g");          \
    SIG(shmem_##N##_iput, void (*)(T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int),         \
        "void shmem_" #N "_iput(" #T " *dest, const " #T " *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)"); \
    SIG(shmem_ctx_##N##_iget, void (*)(shmem_ctx_t, T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int), \
        "shmem_ctx_" #N "_iget");                                                              \
    SIG(shmem_##N##_ibput, void (*)(T *, const T *, ptrdiff_t, ptrdiff_t, size_t, size_t, int), \
        "void shmem_" #N "_ibput(" #T " *dest, const " #T " *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)"); \
    SIG(shmem_ctx_##N##_ibget, void (*)(shmem_ctx_t, T *, const T *, ptrdiff_t, ptrdiff_t, size_t, size_t, int), \
        "shmem_ctx_" #N "_ibget")

/* Generic selection: shmem_g(ptr, pe) on a T* must call shmem_N_g, which we observe through the
 * value read from a local symmetric object (the own PE). */
#define GENERIC_SELECTS(T, N)                                                                  \
    do {                                                                                       \
        static T obj = (T)42;                                                                  \
        T v = shmem_g(&obj, shmem_my_pe());                                                    \
        T w = shmem_g(SHMEM_CTX_DEFAULT, (const T *)&obj, shmem_my_pe());                      \
        if (!(v == (T)42 && w == (T)42)) {                                                     \
            fprintf(stderr, "MISMATCH: generic shmem_g on " #T " * read a wrong value\n");     \
            ++mismatches;                                                                      \
        }                                                                                      \
    } while (0)

int main(void) {
    /* Setup, exit and query. */
    SIG(shmem_init, void (*)(void), "void shmem_init(void)");
    SIG(shmem_init_thread, int (*)(int, int *), "int shmem_init_thread(int requested, int *provided)");
    SIG(shmem_query_thread, void (*)(int *), "void shmem_query_thread(int *provided)");
    SIG(shmem_query_initialized, void (*)(int *), "void shmem_query_initialized(int *initialized)");
    SIG(shmem_finalize, void (*)(void), "void shmem_finalize(void)");
    SIG(shmem_my_pe, int (*)(void), "int shmem_my_pe(void)");
    SIG(shmem_n_pes, int (*)(void), "int shmem_n_pes(void)");
    SIG(shmem_global_exit, void (*)(int), "_Noreturn void shmem_global_exit(int status)");
    SIG(shmem_pe_accessible, int (*)(int), "int shmem_pe_accessible(int pe)");
    SIG(shmem_addr_accessible, int (*)(const void *, int),
        "int shmem_addr_accessible(const void *addr, int pe)");
    SIG(shmem_ptr, void *(*)(const void *, int), "void *shmem_ptr(const void *dest, int pe)");
    SIG(shmem_info_get_version, void (*)(int *, int *),
        "void shmem_info_get_version(int *major, int *minor)");
    SIG(shmem_info_get_name, void (*)(char *), "void shmem_info_get_name(char *name)");
    SIG(start_pes, void (*)(int), "void start_pes(int npes)");
    /* Memory management. */
    SIG(shmem_malloc, void *(*)(size_t), "void *shmem_malloc(size_t size)");
    SIG(shmem_calloc, void *(*)(size_t, size_t), "void *shmem_calloc(size_t count, size_t size)");
    SIG(shmem_align, void *(*)(size_t, size_t), "void *shmem_align(size_t alignment, size_t size)");
    SIG(shmem_realloc, void *(*)(void *, size_t), "void *shmem_realloc(void *ptr, size_t size)");
    SIG(shmem_free, void (*)(void *), "void shmem_free(void *ptr)");
    SIG(shmem_malloc_with_hints, void *(*)(size_t, long),
        "void *shmem_malloc_with_hints(size_t size, long hints)");
    /* Memory ordering. */
    SIG(shmem_fence, void (*)(void), "void shmem_fence(void)");
    SIG(shmem_ctx_fence, void (*)(shmem_ctx_t), "void shmem_ctx_fence(shmem_ctx_t ctx)");
    SIG(shmem_quiet, void (*)(void), "void shmem_quiet(void)");
    SIG(shmem_ctx_quiet, void (*)(shmem_ctx_t), "void shmem_ctx_quiet(shmem_ctx_t ctx)");
    SIG(shmem_pe_quiet, void (*)(const int *, size_t),
        "void shmem_pe_quiet(const int *target_pes, size_t npes)");
    SIG(shmem_ctx_pe_quiet, void (*)(shmem_ctx_t, const int *, size_t),
        "void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)");
    SIG(shmem_barrier_all, void (*)(void), "void shmem_barrier_all(void)");
    SIG(shmem_sync_all, void (*)(void), "void shmem_sync_all(void)");
    /* RMA: mem, sized and a sample of the typed routines. */
    SIG(shmem_putmem, void (*)(void *, const void *, size_t, int),
        "void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)");
    SIG(shmem_ctx_putmem, void (*)(shmem_ctx_t, void *, const void *, size_t, int),
        "void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)");
    SIG(shmem_getmem, void (*)(void *, const void *, size_t, int), "shmem_getmem");
    SIG(shmem_getmem_nbi, void (*)(void *, const void *, size_t, int), "shmem_getmem_nbi");
    SIG(shmem_ctx_putmem_nbi, void (*)(shmem_ctx_t, void *, const void *, size_t, int),
        "shmem_ctx_putmem_nbi");
    SIG(shmem_put8, void (*)(void *, const void *, size_t, int), "shmem_put8");
    SIG(shmem_get128, void (*)(void *, const void *, size_t, int), "shmem_get128");
    SIG(shmem_ctx_put64_nbi, void (*)(shmem_ctx_t, void *, const void *, size_t, int),
        "shmem_ctx_put64_nbi");
    SIG(shmem_iput32, void (*)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int),
        "shmem_iput32");
    SIG(shmem_ibget16, void (*)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int),
        "void shmem_ibget16(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)");
    SIG(shmem_ctx_ibput128, void (*)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int),
        "shmem_ctx_ibput128");
    SIG_TYPED(int, int);
    SIG_TYPED(long double, longdouble);
    SIG_TYPED(unsigned char, uchar);
    SIG_TYPED(int64_t, int64);
    SIG_TYPED(size_t, size);
    SIG_TYPED(ptrdiff_t, ptrdiff);

    /* Constants. */
    if (SHMEM_MAJOR_VERSION != 1 || SHMEM_MINOR_VERSION != 6) {
        fprintf(stderr, "MISMATCH: SHMEM_MAJOR/MINOR_VERSION is %d.%d, expected 1.6\n",
                SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
        ++mismatches;
    }
    if (sizeof(SHMEM_VENDOR_STRING) > SHMEM_MAX_NAME_LEN) {
        fprintf(stderr, "MISMATCH: SHMEM_VENDOR_STRING does not fit SHMEM_MAX_NAME_LEN\n");
        ++mismatches;
    }
    if (!(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED &&
          SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
          SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE)) {
        fprintf(stderr, "MISMATCH: the SHMEM_THREAD_* levels are not increasing\n");
        ++mismatches;
    }
    if (SHMEM_CTX_DEFAULT == SHMEM_CTX_INVALID) {
        fprintf(stderr, "MISMATCH: SHMEM_CTX_DEFAULT == SHMEM_CTX_INVALID\n");
        ++mismatches;
    }

    /* The generic selections pick the right routine (needs an initialised library). */
    shmem_init();
    GENERIC_SELECTS(char, char);
    GENERIC_SELECTS(signed char, schar);
    GENERIC_SELECTS(unsigned char, uchar);
    GENERIC_SELECTS(short, short);
    GENERIC_SELECTS(int, int);
    GENERIC_SELECTS(long, long);
    GENERIC_SELECTS(long long, longlong);
    GENERIC_SELECTS(unsigned long long, ulonglong);
    GENERIC_SELECTS(float, float);
    GENERIC_SELECTS(double, double);
    GENERIC_SELECTS(long double, longdouble);
    GENERIC_SELECTS(int8_t, int8);
    GENERIC_SELECTS(uint64_t, uint64);
    GENERIC_SELECTS(size_t, size);
    GENERIC_SELECTS(ptrdiff_t, ptrdiff);
    shmem_finalize();

    if (mismatches) {
        fprintf(stderr, "api_signatures: %d mismatch(es) with the OpenSHMEM 1.6 synopses\n",
                mismatches);
        return 1;
    }
    printf("api_signatures: all declarations match the OpenSHMEM 1.6 synopses\n");
    return 0;
}
