/* ushmem loaded with dlopen, as Python, Julia and R load it: the program is not linked against
 * libushmem and reaches every routine through dlsym. Usage: dlopen PATH/TO/libushmem.so
 *
 * Runs RMA (put/get on the heap and on a global of the program), atomics (fetch-add from every PE
 * on one counter, on the heap and on a global) and a collective (sum reduction over the world
 * team), checking every value.
 *
 * Built twice (mpi_tests/CMakeLists.txt): as a PIE, and as a non-PIE program that takes the
 * address of free(). The second is the layout of Debian's /usr/bin/python3 that made shmem_init
 * crash: free()'s canonical address is then a stub of the program jumping through the program's
 * own writable GOT, which lies in the static data that shmem_init moves onto shared memory
 * (docs/python.md, "Why dlopen used to crash"). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static void *lib;

static void *sym(const char *name) {
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "FAIL: dlsym(%s): %s\n", name, dlerror());
        exit(1);
    }
    return p;
}

/* Symmetric because they are globals of the program. */
static long global_counter;
long global_array[4];

#ifdef DLOPEN_TAKE_FREE_ADDRESS
/* Non-PIE code taking free()'s address as an immediate (not a data relocation) makes a PLT stub of
 * this program free()'s canonical address. */
void (*volatile free_ptr)(void *);
#endif

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/TO/libushmem.so\n", argv[0]);
        return 2;
    }
#ifdef DLOPEN_TAKE_FREE_ADDRESS
    free_ptr = free;
#endif
    lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        fprintf(stderr, "FAIL: dlopen(%s): %s\n", argv[1], dlerror());
        return 1;
    }
    void (*init)(void) = (void (*)(void))sym("shmem_init");
    void (*finalize)(void) = (void (*)(void))sym("shmem_finalize");
    int (*my_pe)(void) = (int (*)(void))sym("shmem_my_pe");
    int (*n_pes)(void) = (int (*)(void))sym("shmem_n_pes");
    void *(*malloc_)(size_t) = (void *(*)(size_t))sym("shmem_malloc");
    void (*free_)(void *) = (void (*)(void *))sym("shmem_free");
    void (*barrier_all)(void) = (void (*)(void))sym("shmem_barrier_all");
    void (*long_put)(long *, const long *, size_t, int) =
        (void (*)(long *, const long *, size_t, int))sym("shmem_long_put");
    void (*long_get)(long *, const long *, size_t, int) =
        (void (*)(long *, const long *, size_t, int))sym("shmem_long_get");
    long (*fetch_add)(long *, long, int) = (long (*)(long *, long, int))sym("shmem_long_atomic_fetch_add");
    int (*sum_reduce)(shmem_team_t, long *, const long *, size_t) =
        (int (*)(shmem_team_t, long *, const long *, size_t))sym("shmem_long_sum_reduce");
    void (*global_exit)(int) = (void (*)(int))sym("shmem_global_exit");
    shmem_team_t world = (shmem_team_t)sym("ushmem_team_world_");

    init();
    int me = my_pe(), n = n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int bad = 0;
#define EXPECT(cond, ...)                                                  \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "FAIL %s:%d [PE %d of %d]: ", __FILE__, __LINE__, me, n); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            bad = 1;                                                       \
        }                                                                  \
    } while (0)

    /* RMA: each PE puts its number to its right neighbour, on the heap and into a global. */
    long *heap = malloc_(4 * sizeof(long));
    EXPECT(heap != NULL, "shmem_malloc returned NULL");
    if (!heap) global_exit(1);
    long mine[4];
    for (int i = 0; i < 4; ++i) mine[i] = 1000L * me + i;
    barrier_all();
    long_put(heap, mine, 4, right);
    long_put(global_array, mine, 4, right);
    barrier_all();
    for (int i = 0; i < 4; ++i) {
        EXPECT(heap[i] == 1000L * left + i, "heap[%d] = %ld after the put from PE %d, expected %ld", i,
               heap[i], left, 1000L * left + i);
        EXPECT(global_array[i] == 1000L * left + i, "global_array[%d] = %ld, expected %ld", i,
               global_array[i], 1000L * left + i);
    }
    long got[4] = {0};
    long_get(got, global_array, 4, right);
    for (int i = 0; i < 4; ++i)
        EXPECT(got[i] == 1000L * me + i, "get from PE %d: got[%d] = %ld, expected %ld", right, i, got[i],
               1000L * me + i);

    /* Atomics: every PE adds me+1 to PE 0's counters, on the heap and the global. */
    heap[0] = 0;
    global_counter = 0;
    barrier_all();
    long before = fetch_add(&heap[0], me + 1, 0);
    EXPECT(before >= 0 && before < (long)n * (n + 1) / 2, "fetch_add returned %ld", before);
    fetch_add(&global_counter, me + 1, 0);
    barrier_all();
    if (me == 0) {
        long want = (long)n * (n + 1) / 2;
        EXPECT(heap[0] == want, "heap counter %ld after every PE's fetch_add, expected %ld", heap[0], want);
        EXPECT(global_counter == want, "global counter %ld, expected %ld", global_counter, want);
    }

    /* A collective: the sum of every PE's number. */
    long *src = malloc_(sizeof(long)), *dst = malloc_(sizeof(long));
    *src = me + 1;
    *dst = -1;
    int rc = sum_reduce(world, dst, src, 1);
    EXPECT(rc == 0, "shmem_long_sum_reduce returned %d", rc);
    EXPECT(*dst == (long)n * (n + 1) / 2, "sum_reduce gave %ld, expected %ld", *dst, (long)n * (n + 1) / 2);

    barrier_all();
    free_(src);
    free_(dst);
    free_(heap);
    if (bad) global_exit(1);
    printf("dlopen: PE %d of %d: OK\n", me, n);
    finalize();
    return 0;
}
