/* The -t option of the benchmarks that take a comma list of test names (shmem_amo.c, mpi_amo.c,
 * compute_common.h): names into a bit mask. Plain C, no library header. */
#ifndef USHMEM_BENCH_TEST_LIST_H
#define USHMEM_BENCH_TEST_LIST_H

#include <stdio.h>
#include <string.h>

/* Adds to *mask the bit (1 << index in names[0..n-1]) of every name of the comma list; returns 0,
 * or -1 after saying which name is unknown. */
static inline int bench_test_list(const char *prog, const char *list, const char *const *names, int n,
                                  unsigned *mask)
{
    const char *s = list;
    while (*s) {
        const size_t len = strcspn(s, ",");
        int found = -1;
        for (int t = 0; t < n; ++t)
            if (strlen(names[t]) == len && !strncmp(s, names[t], len)) found = t;
        if (found < 0) {
            fprintf(stderr, "%s: unknown test '%.*s'\n", prog, (int)len, s);
            return -1;
        }
        *mask |= 1u << found;
        s += len;
        if (*s == ',') ++s;
    }
    return 0;
}

#endif
