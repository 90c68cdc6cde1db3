/* setup_thread: shmem_init_thread at one thread level, given on the command line, and
 * shmem_query_thread.
 *
 * Usage: setup_thread single|funneled|serialized|multiple
 *
 * Checks: shmem_init_thread returns 0; `provided` is one of the four levels; shmem_query_thread
 * reports the same level; shmem_query_initialized follows init and finalize. With ushmem, the
 * requested level must be provided (ushmem supports SHMEM_THREAD_MULTIPLE). When
 * SHMEM_THREAD_MULTIPLE is provided, two threads of every PE issue puts concurrently and the
 * data is verified. */
#include "common.h"
#include <pthread.h>

#define NTHREADS 2
#define NPUTS 200
#define CHUNK 256 /* bytes per put */

static unsigned char *heap; /* NTHREADS * NPUTS * CHUNK bytes, symmetric */

static void *put_thread(void *arg) {
    int t = (int)(intptr_t)arg;
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    unsigned char buf[CHUNK];
    for (int i = 0; i < NPUTS; ++i) {
        size_t off = ((size_t)t * NPUTS + (size_t)i) * CHUNK;
        fill_bytes(buf, CHUNK, me, (uint32_t)(off / CHUNK));
        shmem_putmem(heap + off, buf, CHUNK, right);
    }
    shmem_quiet();
    return NULL;
}

static const char *level_name(int level) {
    switch (level) {
    case SHMEM_THREAD_SINGLE: return "SHMEM_THREAD_SINGLE";
    case SHMEM_THREAD_FUNNELED: return "SHMEM_THREAD_FUNNELED";
    case SHMEM_THREAD_SERIALIZED: return "SHMEM_THREAD_SERIALIZED";
    case SHMEM_THREAD_MULTIPLE: return "SHMEM_THREAD_MULTIPLE";
    default: return "(not a thread level)";
    }
}

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 2, "usage: setup_thread single|funneled|serialized|multiple");
    int requested;
    if (strcmp(argv[1], "single") == 0) requested = SHMEM_THREAD_SINGLE;
    else if (strcmp(argv[1], "funneled") == 0) requested = SHMEM_THREAD_FUNNELED;
    else if (strcmp(argv[1], "serialized") == 0) requested = SHMEM_THREAD_SERIALIZED;
    else if (strcmp(argv[1], "multiple") == 0) requested = SHMEM_THREAD_MULTIPLE;
    else CHECK_NOSHMEM(0, "unknown thread level '%s'", argv[1]);

    /* The levels are ordered, as the specification requires. */
    CHECK_NOSHMEM(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED &&
                      SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
                      SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
                  "thread level constants are not monotonic");

    int provided = -1;
    int rc = shmem_init_thread(requested, &provided);
    CHECK_NOSHMEM(rc == 0, "shmem_init_thread(%s) returned %d", level_name(requested), rc);
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(provided == SHMEM_THREAD_SINGLE || provided == SHMEM_THREAD_FUNNELED ||
              provided == SHMEM_THREAD_SERIALIZED || provided == SHMEM_THREAD_MULTIPLE,
          "shmem_init_thread set provided = %d", provided);
#if TEST_WITH_USHMEM
    CHECK(provided >= requested, "requested %s, provided %s", level_name(requested),
          level_name(provided));
    int initialized = 0;
    shmem_query_initialized(&initialized);
    CHECK(initialized, "shmem_query_initialized after shmem_init_thread gave 0");
#endif
    int queried = -1;
    shmem_query_thread(&queried);
    CHECK(queried == provided, "shmem_query_thread gave %s, shmem_init_thread provided %s",
          level_name(queried), level_name(provided));

    if (provided == SHMEM_THREAD_MULTIPLE) {
        size_t bytes = (size_t)NTHREADS * NPUTS * CHUNK;
        heap = shmem_malloc(bytes);
        CHECK(heap, "shmem_malloc(%zu)", bytes);
        memset(heap, 0, bytes);
        shmem_barrier_all();
        pthread_t th[NTHREADS];
        for (int t = 0; t < NTHREADS; ++t)
            CHECK(pthread_create(&th[t], NULL, put_thread, (void *)(intptr_t)t) == 0,
                  "pthread_create");
        for (int t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);
        shmem_barrier_all();
        int left = (me + n - 1) % n;
        for (size_t c = 0; c < (size_t)NTHREADS * NPUTS; ++c)
            CHECK_BYTES(heap + c * CHUNK, CHUNK, left, (uint32_t)c,
                        "chunk %zu put by a thread of PE %d under SHMEM_THREAD_MULTIPLE", c, left);
        shmem_free(heap);
    }

    shmem_barrier_all();
    printf("[PE %d] requested %s, provided %s: OK\n", me, level_name(requested),
           level_name(provided));
    shmem_finalize();
#if TEST_WITH_USHMEM
    initialized = -1;
    shmem_query_initialized(&initialized);
    CHECK_NOSHMEM(initialized == 0, "shmem_query_initialized after shmem_finalize gave %d",
                  initialized);
#endif
    return 0;
}
