/* rma_typed: blocking typed RMA for all 24 standard RMA types.
 *
 *   shmem_TYPENAME_put/get, shmem_ctx_TYPENAME_put/get (SHMEM_CTX_DEFAULT), the C11 generic
 *   shmem_put/shmem_get with and without a context, for transfer sizes of 1 B, 7 B, 8 B,
 *   4 KiB + 3, 64 KiB and, for a representative set of types (char, int, long, double,
 *   long double, int8, int64, uint8, size), 1 MiB and 4 MiB;
 *   destinations on the symmetric heap, in .bss and in .data; put sources and get destinations
 *   in private memory, on the stack, in static memory and on the symmetric heap;
 *   shmem_TYPENAME_p/g in all four forms, to and from both neighbours and the own PE, on the heap
 *   or in .bss.
 * Every element and the guard bytes around it are checked. Transfers of 4 KiB + 3 or less use
 * every form; larger ones rotate through the forms. */
#include "rma_common.h"

static const size_t ladder[] = {1, 7, 8, 4 * KiB + 3, 64 * KiB, MiB, 4 * MiB};
#define NLADDER ((int)(sizeof ladder / sizeof ladder[0]))

static void test_put_get(void) {
    int rounds = 0;
    for (int ti = 0; ti < NTYPED; ++ti) {
        const rma_type *t = &typed_types[ti];
        for (int si = 0; si < NLADDER; ++si) {
            if (ladder[si] > 64 * KiB && !t->wide) break;
            size_t n = ladder[si] / t->size ? ladder[si] / t->size : 1;
            for (int v = 0; v < t->nvariants; ++v) {
                if (ladder[si] > 4 * KiB + 3 && v != (ti + si) % t->nvariants) continue;
                round_xfer(t, v, placement_for(ti + si + v), n, 0, 0);
                ++rounds;
            }
        }
    }
    NOTE("typed put/get: %d rounds OK", rounds);
}

/* p and g on K elements of a symmetric T array (on the heap for even-numbered types, in .bss
 * for odd ones), rotating through the four forms. */
#define K 12
static void test_p_g(void) {
    for (int ti = 0; ti < NTYPED; ++ti) {
        const rma_type *t = &typed_types[ti];
        enum sym_kind sk = ti % 2 ? SYM_BSS : SYM_HEAP;
        unsigned char *buf = sym_region(0, &sk, K * t->size);
        size_t bytes = K * t->size;

        /* p: every element of the right neighbour's array. */
        uint32_t tag = next_tag();
        memset(buf, UNTOUCHED, bytes + 2 * GUARD);
        shmem_barrier_all();
        for (size_t k = 0; k < K; ++k)
            t->pg((int)((k + (size_t)ti) % NVARIANTS), 0, buf + GUARD, k, right, tag);
        shmem_barrier_all();
        CHECK_GUARDS(buf, bytes, "shmem_%s_p into %s", t->name, sym_name[sk]);
        CHECK_ELEMS(t, buf + GUARD, K, left, tag, 0, "shmem_%s_p into %s", t->name, sym_name[sk]);
        shmem_barrier_all();

        /* g: every element from the left neighbour and from the own PE; every third from the
         * right neighbour. */
        tag = next_tag();
        t->fill(buf + GUARD, K, me, tag, 0);
        shmem_barrier_all();
        for (size_t k = 0; k < K; ++k) {
            int v = (int)((k + (size_t)ti) % NVARIANTS);
            t->pg(v, 1, buf + GUARD, k, left, tag);
            t->pg(v, 1, buf + GUARD, k, me, tag);
            if (k % 3 == 0) t->pg(v, 1, buf + GUARD, k, right, tag);
        }
        shmem_barrier_all();
    }
    NOTE("typed p/g: OK");
}

int main(void) {
    rma_setup();
    test_p_g();
    test_put_get();
    rma_teardown("rma_typed");
    return 0;
}
