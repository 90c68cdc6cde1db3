/* setup: library setup, exit and query routines.
 *
 *   shmem_query_initialized before shmem_init (0), after it (1) and after shmem_finalize (0);
 *   shmem_my_pe / shmem_n_pes (range, agreement with the launcher, every PE number used once);
 *   shmem_info_get_version / shmem_info_get_name against the library constants;
 *   shmem_pe_accessible, shmem_addr_accessible for heap, .data, .bss, stack and private memory;
 *   shmem_ptr for the own PE (the address itself) and for peers (NULL, or a pointer through which
 *   loads see the peer's data and stores reach it);
 *   a second shmem_finalize after the last one (ushmem makes it a no-op).
 *
 * Usage: setup [--config=default|tcp|nodirect|twohost]
 * With ushmem, the config says what shmem_ptr/shmemx_pe_is_direct must report for peers on this
 * node: default -> direct load/store to every peer; nodirect (USHMEM_DIRECT=0) and tcp
 * (UCX_TLS=tcp,self) -> none, every transfer goes through UCX; twohost (a job across simulated
 * hosts, ci/cluster.sh) -> exactly the peers whose host name is this PE's, and both kinds exist.
 * This also proves that the configurations of the other tests exercise the paths they are meant
 * to. */
#include "common.h"

#include <unistd.h> /* gethostname */
#if TEST_WITH_USHMEM
#include <shmemx.h>
#endif

#define NVALS 16

/* Symmetric static objects: one in .data (initialised), one in .bss (zero-initialised). */
long data_obj[NVALS] = {1, 2, 3};
long bss_obj[NVALS];
/* Gathered on PE 0: how many PEs reported each PE number. */
int pe_seen[1024];
/* This PE's host name, which the others read (config twohost). */
char host_name[256];

static const char *config = "default";

static void check_pe_numbers(void) {
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n >= 1 && n <= 1024, "shmem_n_pes() = %d", n);
    CHECK(me >= 0 && me < n, "shmem_my_pe() = %d not in [0, %d)", me, n);
    /* The launcher tells how many processes it started; every one of them is a PE. */
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (size) CHECK_EQ_INT(atoi(size), n, "shmem_n_pes() vs OMPI_COMM_WORLD_SIZE");
    CHECK_EQ_INT(me, shmem_my_pe(), "shmem_my_pe() is stable");
    CHECK_EQ_INT(n, shmem_n_pes(), "shmem_n_pes() is stable");

    /* Each PE adds one at index my_pe on PE 0; PE 0 then sees every PE number exactly once. */
    shmem_barrier_all();
    int one = 1;
    /* Read-modify-write by PE 0 alone would be racy; instead each PE writes its own slot. */
    shmem_int_put(&pe_seen[me], &one, 1, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 0; pe < n; ++pe)
            CHECK_EQ_INT(1, pe_seen[pe], "PE number reported by exactly one PE");
}

static void check_info(void) {
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
#if TEST_WITH_USHMEM
    CHECK(major == 1 && minor == 6, "shmem_info_get_version gave %d.%d, expected 1.6", major,
          minor);
#endif
    CHECK_EQ_INT(SHMEM_MAJOR_VERSION, major, "major version vs SHMEM_MAJOR_VERSION");
    CHECK_EQ_INT(SHMEM_MINOR_VERSION, minor, "minor version vs SHMEM_MINOR_VERSION");
    CHECK_EQ_INT(_SHMEM_MAJOR_VERSION, major, "major version vs _SHMEM_MAJOR_VERSION");
    CHECK_EQ_INT(_SHMEM_MINOR_VERSION, minor, "minor version vs _SHMEM_MINOR_VERSION");

    /* The name buffer is pre-filled so that a missing terminator is seen. */
    char name[SHMEM_MAX_NAME_LEN + 16];
    memset(name, 'X', sizeof name);
    shmem_info_get_name(name);
    size_t len = strnlen(name, SHMEM_MAX_NAME_LEN);
    CHECK(len < SHMEM_MAX_NAME_LEN, "shmem_info_get_name: no terminator within %d bytes",
          SHMEM_MAX_NAME_LEN);
    CHECK(len > 0, "shmem_info_get_name returned an empty name");
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0,
          "shmem_info_get_name gave \"%s\", SHMEM_VENDOR_STRING is \"%s\"", name,
          SHMEM_VENDOR_STRING);
    for (size_t i = SHMEM_MAX_NAME_LEN; i < sizeof name; ++i)
        CHECK(name[i] == 'X', "shmem_info_get_name wrote past SHMEM_MAX_NAME_LEN (byte %zu)", i);
}

static void check_accessible(long *heap) {
    int me = shmem_my_pe(), n = shmem_n_pes();
    long stack_obj[4] = {0};
    long *private_obj = malloc(sizeof(long) * 4);
    CHECK(private_obj, "malloc");

    for (int pe = 0; pe < n; ++pe) {
        CHECK_EQ_INT(1, shmem_pe_accessible(pe), "shmem_pe_accessible(valid pe)");
        CHECK_EQ_INT(1, shmem_addr_accessible(heap, pe), "shmem_addr_accessible(heap)");
        CHECK_EQ_INT(1, shmem_addr_accessible(heap + NVALS - 1, pe),
                     "shmem_addr_accessible(last element of a heap block)");
        CHECK_EQ_INT(1, shmem_addr_accessible(data_obj, pe), "shmem_addr_accessible(.data)");
        CHECK_EQ_INT(1, shmem_addr_accessible(&data_obj[NVALS - 1], pe),
                     "shmem_addr_accessible(.data, last element)");
        CHECK_EQ_INT(1, shmem_addr_accessible(bss_obj, pe), "shmem_addr_accessible(.bss)");
        CHECK_EQ_INT(1, shmem_addr_accessible(&bss_obj[NVALS - 1], pe),
                     "shmem_addr_accessible(.bss, last element)");
        CHECK_EQ_INT(0, shmem_addr_accessible(stack_obj, pe), "shmem_addr_accessible(stack)");
        CHECK_EQ_INT(0, shmem_addr_accessible(private_obj, pe),
                     "shmem_addr_accessible(private malloc)");
    }
    const int bad_pes[] = {-1, n, n + 1, -1000000, 0x7fffffff};
    for (size_t i = 0; i < sizeof bad_pes / sizeof bad_pes[0]; ++i) {
        CHECK(shmem_pe_accessible(bad_pes[i]) == 0, "shmem_pe_accessible(%d) should be 0",
              bad_pes[i]);
#if TEST_WITH_USHMEM /* OSHMEM answers 1 for any pe here */
        CHECK(shmem_addr_accessible(heap, bad_pes[i]) == 0,
              "shmem_addr_accessible(heap, %d) should be 0", bad_pes[i]);
#endif
    }
    (void)me;
    free(private_obj);
}

/* shmem_ptr: for the own PE the address itself; for a peer either NULL or a pointer through which
 * plain loads see the peer's copy and plain stores change it. */
static void check_ptr(long *heap) {
    int me = shmem_my_pe(), n = shmem_n_pes();

    CHECK_EQ_PTR(heap, shmem_ptr(heap, me), "shmem_ptr(heap, my_pe)");
    CHECK_EQ_PTR(&heap[3], shmem_ptr(&heap[3], me), "shmem_ptr(heap + 3, my_pe)");
    void *own_static = shmem_ptr(bss_obj, me);
    CHECK(own_static == NULL || own_static == (void *)bss_obj,
          "shmem_ptr(.bss, my_pe) = %p, expected NULL or %p", own_static, (void *)bss_obj);

    /* Every PE writes its own copies; after the barrier a direct pointer must show them. */
    for (int k = 0; k < NVALS; ++k) {
        heap[k] = 1000L * (me + 1) + k;
        bss_obj[k] = 2000L * (me + 1) + k;
    }
    gethostname(host_name, sizeof host_name - 1);
    shmem_barrier_all();
    int direct_peers = 0;
    for (int pe = 0; pe < n; ++pe) {
        if (pe == me) continue;
        const long *ph = shmem_ptr(heap, pe);
        const long *ps = shmem_ptr(bss_obj, pe);
        if (strcmp(config, "twohost") == 0) {
            char peer_host[sizeof host_name];
            shmem_getmem(peer_host, host_name, sizeof peer_host, pe);
            const int same = strcmp(peer_host, host_name) == 0;
            CHECK((ph != NULL) == same,
                  "config twohost: PE %d runs on %s and this PE on %s: shmem_ptr(heap, %d) should be "
                  "%s, got %p", pe, peer_host, host_name, pe, same ? "direct" : "NULL", (const void *)ph);
        }
        if (ph) {
            ++direct_peers;
            CHECK(ph != heap, "shmem_ptr(heap, %d) returned my own address", pe);
            for (int k = 0; k < NVALS; ++k)
                CHECK(ph[k] == 1000L * (pe + 1) + k,
                      "load through shmem_ptr(heap, %d)[%d]: expected %ld, got %ld", pe, k,
                      1000L * (pe + 1) + k, ph[k]);
            /* Interior addresses map to the matching interior address. */
            const long *ph5 = shmem_ptr(&heap[5], pe);
            CHECK(ph5 == ph + 5, "shmem_ptr(heap + 5, %d) = %p, expected %p", pe,
                  (const void *)ph5, (const void *)(ph + 5));
        }
        if (ps)
            for (int k = 0; k < NVALS; ++k)
                CHECK(ps[k] == 2000L * (pe + 1) + k,
                      "load through shmem_ptr(.bss, %d)[%d]: expected %ld, got %ld", pe, k,
                      2000L * (pe + 1) + k, ps[k]);
#if TEST_WITH_USHMEM
        CHECK_EQ_INT(ph != NULL, shmemx_pe_is_direct(pe),
                     "shmemx_pe_is_direct(pe) agrees with shmem_ptr(heap, pe) != NULL");
        if (strcmp(config, "default") == 0)
            CHECK(ph != NULL, "config default: PE %d is on this node, shmem_ptr should be direct",
                  pe);
        if (strcmp(config, "nodirect") == 0 || strcmp(config, "tcp") == 0)
            CHECK(ph == NULL && ps == NULL,
                  "config %s: every transfer goes through UCX, shmem_ptr(.., %d) should be NULL",
                  config, pe);
#endif
    }
    shmem_barrier_all();

    /* Stores through the pointer reach the peer: each PE writes into the slot of its right
     * neighbour's heap copy (when direct), and the neighbour checks after a barrier. */
    int right = (me + 1) % n, left = (me + n - 1) % n;
    long *pr = shmem_ptr(heap, right);
    int wrote = 0;
    if (pr && right != me) {
        pr[NVALS - 1] = -7000L - me;
        wrote = 1;
    }
    /* Tell the right neighbour whether to expect the store (its data_obj[0] := wrote). */
    shmem_barrier_all();
    long flag = wrote;
    shmem_long_put(&data_obj[0], &flag, 1, right);
    shmem_barrier_all();
    if (data_obj[0])
        CHECK(heap[NVALS - 1] == -7000L - left,
              "store through shmem_ptr by PE %d: expected %ld, got %ld", left, -7000L - left,
              heap[NVALS - 1]);
    if (strcmp(config, "twohost") == 0)
        CHECK(direct_peers >= 1 && direct_peers < n - 1,
              "config twohost: %d of %d peers are direct; a job across hosts with 2 PEs per host "
              "has both kinds", direct_peers, n - 1);
    printf("[PE %d] shmem_ptr gives direct access to %d of %d peers (config %s)\n", me,
           direct_peers, n - 1, config);
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; ++i)
        if (strncmp(argv[i], "--config=", 9) == 0) config = argv[i] + 9;

#if TEST_WITH_USHMEM
    /* Callable at any time, including before shmem_init. */
    int initialized = -1;
    shmem_query_initialized(&initialized);
    CHECK_NOSHMEM(initialized == 0, "shmem_query_initialized before shmem_init gave %d",
                  initialized);
#endif

    shmem_init();

#if TEST_WITH_USHMEM
    initialized = -1;
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "shmem_query_initialized after shmem_init gave 0");
#endif
    check_pe_numbers();
    check_info();

    long *heap = shmem_malloc(NVALS * sizeof(long));
    CHECK(heap != NULL, "shmem_malloc(%zu)", NVALS * sizeof(long));
    check_accessible(heap);
    check_ptr(heap);
    shmem_free(heap);

    int me = shmem_my_pe();
    shmem_finalize();

#if TEST_WITH_USHMEM
    initialized = -1;
    shmem_query_initialized(&initialized);
    CHECK_NOSHMEM(initialized == 0, "shmem_query_initialized after shmem_finalize gave %d",
                  initialized);
    /* ushmem: a shmem_finalize after the last one does nothing. */
    shmem_finalize();
    initialized = -1;
    shmem_query_initialized(&initialized);
    CHECK_NOSHMEM(initialized == 0, "shmem_query_initialized after a second finalize gave %d",
                  initialized);
#endif
    printf("[PE %d] setup: OK\n", me);
    return 0;
}
