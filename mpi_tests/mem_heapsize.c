/* mem_heapsize: the symmetric heap has the size that SHMEM_SYMMETRIC_SIZE (or the deprecated
 * SMA_SYMMETRIC_SIZE) asks for, in every accepted notation (the ctest registration sets the
 * variables).
 *
 * Usage: mem_heapsize FITS TOO_BIG
 *   A block of FITS bytes must be allocated (the heap is at least as large as asked) and usable
 *   over its whole extent by every PE; a block of TOO_BIG bytes must not (the setting was not
 *   ignored): shmem_malloc returns NULL and the program goes on. */
#include "common.h"
#if TEST_WITH_USHMEM
#include <shmemx.h>
#endif

int main(int argc, char **argv) {
    CHECK_NOSHMEM(argc == 3, "usage: mem_heapsize FITS TOO_BIG");
    size_t fits = strtoull(argv[1], NULL, 0), too_big = strtoull(argv[2], NULL, 0);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    const char *v = getenv("SHMEM_SYMMETRIC_SIZE"), *sma = getenv("SMA_SYMMETRIC_SIZE");

    void *p = shmem_malloc(too_big);
    CHECK(p == NULL, "SHMEM_SYMMETRIC_SIZE=%s SMA_SYMMETRIC_SIZE=%s: shmem_malloc(%zu) should fail",
          v ? v : "(unset)", sma ? sma : "(unset)", too_big);

    unsigned char *b = shmem_malloc(fits);
    CHECK(b != NULL, "SHMEM_SYMMETRIC_SIZE=%s SMA_SYMMETRIC_SIZE=%s: shmem_malloc(%zu) failed",
          v ? v : "(unset)", sma ? sma : "(unset)", fits);
    /* The whole block is usable: the right neighbour writes it all. */
    unsigned char *src = malloc(fits);
    CHECK(src, "malloc");
    fill_bytes(src, fits, me, 5);
    shmem_putmem(b, src, fits, (me + 1) % n);
    shmem_barrier_all();
    CHECK_BYTES(b, fits, (me + n - 1) % n, 5, "heap block of %zu bytes", fits);
    shmem_barrier_all();
    shmem_free(b);
    free(src);
#if TEST_WITH_USHMEM
    if (me == 0) printf("heap page size: %zu\n", shmemx_heap_page_size());
#endif
    printf("[PE %d] SHMEM_SYMMETRIC_SIZE=%s SMA_SYMMETRIC_SIZE=%s: %zu bytes fit, %zu do not: OK\n",
           me, v ? v : "(unset)", sma ? sma : "(unset)", fits, too_big);
    shmem_finalize();
    return 0;
}
