/* rma_strided: strided RMA.
 *
 *   shmem_TYPENAME_iput/iget for the 24 standard RMA types (plain, ctx, generic, generic ctx),
 *   shmem_iputSIZE/igetSIZE (plain, ctx), with target/source strides of 1, 2 and 3 and lengths
 *   from 1 to 100 elements (1000 for the smallest and largest representative types);
 *   shmem_TYPENAME_ibput/ibget and shmem_ibputSIZE/ibgetSIZE (OpenSHMEM 1.6) with several block
 *   sizes, block counts and strides: block b (b < nblocks) of bsize elements goes from
 *   source + b*sst to dest + b*dst.
 * Every transferred element is checked, and so is every element between them, which must be
 * untouched, as must the guard zones around the whole span. */
#include "rma_common.h"

struct shape {
    ptrdiff_t dst, sst;
    size_t bsize, nblocks; /* iput/iget: bsize 1, nblocks = nelems */
};

/* The last iput/iget shape (1000 elements) is used only for the 1- and 16-byte representative
 * types (char, int8, uint8, long double, 8, 128): the smallest and largest elements. */
static const struct shape ishapes[] = {
    {1, 1, 1, 1}, {1, 1, 1, 37}, {2, 1, 1, 100}, {1, 3, 1, 100}, {2, 3, 1, 64}, {3, 2, 1, 1000},
};
#define NLARGE_ISHAPES 1
static int large_strided(const rma_type *t) { return t->wide && (t->size == 1 || t->size == 16); }
static const struct shape bshapes[] = {
    {1, 1, 1, 50},   {4, 4, 4, 10},  {5, 4, 4, 10},   {4, 7, 4, 10},
    {3, 5, 2, 33},   {9, 9, 8, 1},   {20, 16, 7, 64}, {1000, 1024, 1000, 3},
    /* Over emulated RMA a strided transfer goes as messages of up to 64 KiB of blocks: 5000 blocks
     * of 8- and 16-byte elements take two and three. */
    {3, 2, 2, 5000},
};

static size_t span(ptrdiff_t stride, size_t bsize, size_t nblocks) {
    return (nblocks - 1) * (size_t)stride + bsize;
}

/* Checks the strided layout at base + GUARD: block b element j holds element b*sst + j of
 * (pe, tag); the elements between blocks and the guard zones are untouched. */
static void check_layout(const rma_type *t, const unsigned char *base, const struct shape *s,
                         int pe, uint32_t tag, const char *what, int v) {
    size_t es = t->size, dspan = span(s->dst, s->bsize, s->nblocks);
    CHECK_GUARDS(base, dspan * es, "%s: %s %s, dst %td sst %td bsize %zu nblocks %zu", t->name,
                 variant_name[v], what, s->dst, s->sst, s->bsize, s->nblocks);
    const unsigned char *d = base + GUARD;
    for (size_t i = 0; i < dspan; ++i) {
        size_t b = i / (size_t)s->dst, j = i % (size_t)s->dst;
        if (j < s->bsize && b < s->nblocks) {
            size_t from = b * (size_t)s->sst + j;
            CHECK_ELEMS(t, d + i * es, 1, pe, tag, from,
                        "%s: %s %s, dst %td sst %td bsize %zu nblocks %zu: element %zu (block %zu, "
                        "offset %zu) should be source element %zu",
                        t->name, variant_name[v], what, s->dst, s->sst, s->bsize, s->nblocks, i, b,
                        j, from);
        } else {
            CHECK_FILL(d + i * es, es, UNTOUCHED,
                       "%s: %s %s, dst %td sst %td bsize %zu nblocks %zu: element %zu lies between "
                       "blocks",
                       t->name, variant_name[v], what, s->dst, s->sst, s->bsize, s->nblocks, i);
        }
    }
}

/* One round: a strided put (blocked = 0: iput, 1: ibput) to the right neighbour and a strided
 * get (iget, ibget) of the same shape from the left neighbour. The get is checked on return
 * (blocking), the put source is reused at once, and the put is checked by its target after the
 * closing barrier. */
static void round_strided(const rma_type *t, int v, int blocked, const struct shape *s,
                          struct placement pl) {
    alignas(64) unsigned char stack_put[STACK_MAX + 2 * GUARD];
    alignas(64) unsigned char stack_get[STACK_MAX + 2 * GUARD];
    size_t es = t->size;
    size_t dspan = span(s->dst, s->bsize, s->nblocks), sspan = span(s->sst, s->bsize, s->nblocks);
    uint32_t put_tag = next_tag(), get_tag = next_tag();
    unsigned char *pdest = sym_region(0, &pl.put_dest, dspan * es);
    unsigned char *psrc = local_region(0, &pl.put_src, sspan * es, stack_put);
    unsigned char *gsrc = sym_region(1, &pl.get_src, sspan * es);
    unsigned char *gdest = local_region(1, &pl.get_dest, dspan * es, stack_get);

    memset(pdest, UNTOUCHED, dspan * es + 2 * GUARD);
    memset(gdest, UNTOUCHED, dspan * es + 2 * GUARD);
    t->fill(psrc + GUARD, sspan, me, put_tag, 0); /* the whole source span carries data */
    t->fill(gsrc + GUARD, sspan, me, get_tag, 0);
    shmem_barrier_all();
    if (blocked) {
        t->ibput[v](pdest + GUARD, psrc + GUARD, s->dst, s->sst, s->bsize, s->nblocks, right);
        t->ibget[v](gdest + GUARD, gsrc + GUARD, s->dst, s->sst, s->bsize, s->nblocks, left);
    } else {
        t->iput[v](pdest + GUARD, psrc + GUARD, s->dst, s->sst, s->nblocks, right);
        t->iget[v](gdest + GUARD, gsrc + GUARD, s->dst, s->sst, s->nblocks, left);
    }
    check_layout(t, gdest, s, left, get_tag, blocked ? "ibget" : "iget", v);
    memset(psrc + GUARD, SCRIBBLE, sspan * es); /* source reusable on return */
    shmem_barrier_all();
    check_layout(t, pdest, s, left, put_tag, blocked ? "ibput" : "iput", v);
}

static int run_types(const rma_type *types, int ntypes) {
    int rounds = 0;
    const int nis = (int)(sizeof ishapes / sizeof ishapes[0]);
    const int nbs = (int)(sizeof bshapes / sizeof bshapes[0]);
    for (int ti = 0; ti < ntypes; ++ti) {
        const rma_type *t = &types[ti];
        if (!t->iput[0]) continue; /* mem routines have no strided form */
        for (int i = 0; i < nis - (large_strided(t) ? 0 : NLARGE_ISHAPES); ++i, ++rounds)
            round_strided(t, (i + ti) % t->nvariants, 0, &ishapes[i], placement_for(i + ti));
        if (!t->ibput[0]) continue; /* not in the library under test (OSHMEM) */
        for (int i = 0; i < nbs; ++i, ++rounds)
            round_strided(t, (i + ti) % t->nvariants, 1, &bshapes[i], placement_for(i + ti + 1));
    }
    return rounds;
}

int main(void) {
    rma_setup();
    int r = run_types(typed_types, NTYPED);
    NOTE("typed iput/iget/ibput/ibget: %d rounds OK", r);
    r = run_types(sized_types, NSIZED);
    NOTE("sized iput/iget/ibput/ibget: %d rounds OK", r);
    rma_teardown("rma_strided");
    return 0;
}
