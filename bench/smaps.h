/* Reading one field of the /proc/self/smaps entry of the mapping that holds an address: the page
 * size behind a buffer (rma_common.h) and the resident size of the heap (shmem_scale.c); and one
 * field of /proc/self/status (shmem_scale.c, mpi_scale.c). */
#ifndef USHMEM_BENCH_SMAPS_H
#define USHMEM_BENCH_SMAPS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A "Key:   N kB" field of /proc/self/status; -1 when absent. */
static inline long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* Value in kB of `field` (e.g. "Rss", "KernelPageSize") for the mapping holding `addr`; -1 when
 * the mapping or the field is not found. */
static inline long smaps_field_kb(const void *addr, const char *field)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    const size_t flen = strlen(field);
    int inside = 0;
    long kb = -1;
    uintptr_t a = (uintptr_t)addr;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char sp;
        if (sscanf(line, "%lx-%lx%c", &lo, &hi, &sp) == 3 && sp == ' ') {
            if (inside) break;
            inside = a >= lo && a < hi;
            continue;
        }
        if (inside && strncmp(line, field, flen) == 0 && line[flen] == ':' &&
            sscanf(line + flen + 1, " %ld kB", &kb) == 1)
            break;
    }
    fclose(f);
    return inside ? kb : -1;
}

#endif
