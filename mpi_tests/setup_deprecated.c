/* setup_deprecated: the deprecated setup and allocation routines still work.
 *
 *   start_pes(0) initialises (a second call has no effect); _my_pe/_num_pes agree with
 *   shmem_my_pe/shmem_n_pes; shmalloc, shmemalign, shrealloc and shfree behave as their
 *   shmem_ counterparts; the program then returns from main without shmem_finalize, which
 *   start_pes allows (implicit finalisation at exit), and must exit 0. */
#include "common.h"

int main(void) {
    start_pes(0);
    start_pes(0); /* "Calling start_pes more than once has no subsequent effect." */
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK_EQ_INT(me, _my_pe(), "_my_pe() vs shmem_my_pe()");
    CHECK_EQ_INT(n, _num_pes(), "_num_pes() vs shmem_n_pes()");
    CHECK(me >= 0 && me < n, "my_pe %d not in [0, %d)", me, n);
#if TEST_WITH_USHMEM
    int initialized = 0;
    shmem_query_initialized(&initialized);
    CHECK(initialized, "shmem_query_initialized after start_pes gave 0");
#endif

    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *a = shmalloc(1000);
    CHECK(a, "shmalloc(1000)");
    unsigned char *b = shmemalign(4096, 5000);
    CHECK(b, "shmemalign(4096, 5000)");
    CHECK(((uintptr_t)b & 4095) == 0, "shmemalign(4096, ..) returned %p", (void *)b);

    unsigned char src[5000];
    fill_bytes(src, sizeof src, me, 1);
    shmem_putmem(a, src, 1000, right);
    shmem_putmem(b, src, 5000, right);
    shmem_barrier_all();
    CHECK_BYTES(a, 1000, left, 1, "shmalloc block written by PE %d", left);
    CHECK_BYTES(b, 5000, left, 1, "shmemalign block written by PE %d", left);

    /* shrealloc keeps the contents up to the smaller size. */
    a = shrealloc(a, 200000);
    CHECK(a, "shrealloc(a, 200000)");
    CHECK_BYTES(a, 1000, left, 1, "contents after shrealloc to a larger size");
    shmem_barrier_all();
    shmem_putmem(a + 150000, src, 5000, right);
    shmem_barrier_all();
    CHECK_BYTES(a + 150000, 5000, left, 1, "grown part of a shrealloc'd block");
    shfree(b);
    shfree(a);
    shmem_barrier_all();
    printf("[PE %d] deprecated routines: OK (exiting without shmem_finalize)\n", me);
    return 0;
}
