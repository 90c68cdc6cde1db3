/* Helpers shared by the MPI-launched test programs of ushmem.
 *
 * Every check prints file:line, the PE, what was expected and what was seen, then ends the whole
 * job with shmem_global_exit(1) so that mpirun (and therefore ctest) reports a failure. A check
 * made before shmem_init (or after shmem_finalize) uses CHECK_NOSHMEM, which exits the process
 * with status 1 instead.
 *
 * TEST_WITH_USHMEM is defined by mpi_tests/CMakeLists.txt. Without it the programs build against
 * another OpenSHMEM (e.g. Open MPI's OSHMEM via oshcc) to sanity-check the tests themselves; the
 * parts that need OpenSHMEM 1.5/1.6 routines or ushmem extensions are then left out. */
#ifndef USHMEM_MPI_TESTS_COMMON_H
#define USHMEM_MPI_TESTS_COMMON_H

/* clock_gettime, sched_yield and aligned_alloc under -std=c11; this header comes first. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <inttypes.h>
#include <sched.h>
#include <shmem.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef TEST_WITH_USHMEM
#define TEST_WITH_USHMEM 0
#endif

/* ---- Failure reporting ---- */

static inline int test_pe_for_messages(void) {
    /* Only valid after shmem_init; the failure paths that can run earlier use CHECK_NOSHMEM. */
    return shmem_my_pe();
}

__attribute__((format(printf, 3, 4), noreturn)) static inline void test_fail(const char *file, int line,
                                                                             const char *fmt, ...) {
    /* One write per message, so that the reports of several PEs do not interleave. */
    char msg[1024];
    int len = snprintf(msg, sizeof msg, "FAIL %s:%d [PE %d of %d]: ", file, line,
                       test_pe_for_messages(), shmem_n_pes());
    va_list ap;
    va_start(ap, fmt);
    if (len >= 0 && (size_t)len < sizeof msg) vsnprintf(msg + len, sizeof msg - (size_t)len, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    shmem_global_exit(1);
    exit(1); /* not reached; keeps noreturn true with headers that do not declare it */
}

#define FAIL(...) test_fail(__FILE__, __LINE__, __VA_ARGS__)

/* CHECK(cond, printf-style description): fails the job when cond is false. */
#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fflush(stdout);                                               \
            fprintf(stderr, "check failed: %s\n", #cond);                 \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                   \
        }                                                                 \
    } while (0)

/* Integer comparison with both values printed. */
#define CHECK_EQ_INT(expected, actual, what)                                                     \
    do {                                                                                         \
        long long e_ = (long long)(expected), a_ = (long long)(actual);                          \
        if (e_ != a_)                                                                            \
            test_fail(__FILE__, __LINE__, "%s: expected %lld, got %lld", (what), e_, a_);        \
    } while (0)

#define CHECK_EQ_PTR(expected, actual, what)                                                     \
    do {                                                                                         \
        const void *e_ = (const void *)(expected), *a_ = (const void *)(actual);                 \
        if (e_ != a_) test_fail(__FILE__, __LINE__, "%s: expected %p, got %p", (what), e_, a_); \
    } while (0)

/* For checks made while the library is not initialised: no shmem call is allowed then. */
#define CHECK_NOSHMEM(cond, ...)                                                      \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fflush(stdout);                                                           \
            fprintf(stderr, "FAIL %s:%d [library not initialised]: check failed: %s: ", \
                    __FILE__, __LINE__, #cond);                                       \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            fflush(stderr);                                                           \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

/* ---- Deterministic data patterns ----
 * pattern_word(pe, tag, k) is a well-mixed 32-bit value for element k of the block that `pe`
 * produced in round `tag`, so a misplaced, stale, duplicated or foreign element is detected. */
static inline uint32_t pattern_word(int pe, uint32_t tag, uint64_t k) {
    uint64_t x = (uint64_t)(uint32_t)pe * 0x9E3779B97F4A7C15ull;
    x ^= (uint64_t)tag * 0xC2B2AE3D27D4EB4Full;
    x ^= (k + 1) * 0x165667B19E3779F9ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 32;
    return (uint32_t)x;
}

static inline unsigned char pattern_byte(int pe, uint32_t tag, uint64_t k) {
    return (unsigned char)pattern_word(pe, tag, k);
}

static inline void fill_bytes(void *p, size_t nbytes, int pe, uint32_t tag) {
    unsigned char *b = (unsigned char *)p;
    for (size_t i = 0; i < nbytes; ++i) b[i] = pattern_byte(pe, tag, i);
}

/* Returns the index of the first byte that differs from the pattern, or SIZE_MAX. */
static inline size_t first_bad_byte(const void *p, size_t nbytes, int pe, uint32_t tag) {
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < nbytes; ++i)
        if (b[i] != pattern_byte(pe, tag, i)) return i;
    return SIZE_MAX;
}

/* Fails the job, with a precise report, unless p[0..nbytes) holds pattern (pe, tag). */
#define CHECK_BYTES(p, nbytes, pe, tag, ...)                                                  \
    do {                                                                                      \
        const unsigned char *cb_p = (const unsigned char *)(p);                               \
        size_t cb_n = (nbytes);                                                               \
        size_t cb_i = first_bad_byte(cb_p, cb_n, (pe), (tag));                                \
        if (cb_i != SIZE_MAX) {                                                               \
            size_t cb_bad = 0;                                                                \
            for (size_t cb_j = cb_i; cb_j < cb_n; ++cb_j)                                     \
                cb_bad += cb_p[cb_j] != pattern_byte((pe), (tag), cb_j);                      \
            fflush(stdout);                                                                   \
            fprintf(stderr, "byte %zu of %zu: expected 0x%02x (PE %d's data, round %u), got 0x%02x;" \
                    " %zu bytes differ\n",                                                    \
                    cb_i, cb_n, pattern_byte((pe), (tag), cb_i), (pe), (unsigned)(tag),       \
                    cb_p[cb_i], cb_bad);                                                      \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                                       \
        }                                                                                     \
    } while (0)

/* Fails the job unless every byte of p[0..nbytes) equals `value` (used for guard zones). */
#define CHECK_FILL(p, nbytes, value, ...)                                                    \
    do {                                                                                     \
        const unsigned char *cf_p = (const unsigned char *)(p);                              \
        size_t cf_n = (nbytes);                                                              \
        for (size_t cf_i = 0; cf_i < cf_n; ++cf_i)                                           \
            if (cf_p[cf_i] != (unsigned char)(value)) {                                      \
                fflush(stdout);                                                              \
                fprintf(stderr, "byte %zu of %zu: expected 0x%02x (untouched), got 0x%02x\n", \
                        cf_i, cf_n, (unsigned)(unsigned char)(value), cf_p[cf_i]);           \
                test_fail(__FILE__, __LINE__, __VA_ARGS__);                                  \
            }                                                                                \
    } while (0)

/* ---- For robust_heap.sh and the fault scripts: who this PE is, before shmem_init ---- */

/* Prints "robust: PE <rank> pid <pid> job <hex>": Open MPI names its shared-memory files after the
 * job id (in hex), and the rank is known before shmem_init from the launcher's environment, so the
 * scripts can find what a killed job left behind. */
static inline void print_robust_tag(void) {
    const char *jobid = getenv("OMPI_MCA_ess_base_jobid"), *rank = getenv("OMPI_COMM_WORLD_RANK");
    printf("robust: PE %s pid %ld job %lx\n", rank ? rank : "?", (long)getpid(),
           jobid ? strtoul(jobid, NULL, 10) : 0ul);
    fflush(stdout);
}

/* ---- Time and waiting ---- */

static inline double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Busy-waits (no shmem call) for the given number of seconds. Used only to skew PEs against each
 * other, never as synchronization. */
static inline void spin_for(double seconds) {
    double end = now_seconds() + seconds;
    while (now_seconds() < end) {
    }
}

/* Seconds a wait loop may spin before the test declares the library stuck (a missing delivery or
 * missing progress), so that a hang is reported with context rather than as a ctest timeout. */
#define TEST_WAIT_LIMIT_SECONDS 30.0

/* Spins until the local symmetric int *flag equals `value`. The flag is read with shmem_int_g on
 * the calling PE, which is a local load that also lets the library make progress; sched_yield
 * keeps oversubscribed runs (more PEs than cores) moving. */
#define WAIT_INT_EQ(flag, value, ...)                                                   \
    do {                                                                                \
        double wi_deadline = now_seconds() + TEST_WAIT_LIMIT_SECONDS;                   \
        int wi_seen;                                                                    \
        while ((wi_seen = shmem_int_g((flag), shmem_my_pe())) != (value)) {             \
            if (now_seconds() > wi_deadline) {                                          \
                fprintf(stderr, "waited %.0f s for a flag to become %d; it is %d\n",    \
                        TEST_WAIT_LIMIT_SECONDS, (int)(value), wi_seen);                \
                test_fail(__FILE__, __LINE__, __VA_ARGS__);                             \
            }                                                                           \
            sched_yield();                                                              \
        }                                                                               \
    } while (0)

/* Prints a progress line from PE 0 only. */
#define NOTE(...)                          \
    do {                                   \
        if (shmem_my_pe() == 0) {          \
            printf("[PE 0] " __VA_ARGS__); \
            putchar('\n');                 \
            fflush(stdout);                \
        }                                  \
    } while (0)

#endif /* USHMEM_MPI_TESTS_COMMON_H */
