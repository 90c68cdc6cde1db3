/* LD_PRELOAD library: the bytes that one library's own code has malloc'd and not freed.
 *
 * mallinfo2 counts every library of the process: behind shmem_init, MPI's and UCX's allocations
 * vary by tens of kB from PE to PE and run to run (buffers that grow with what arrives while they
 * start), more than the per-PE tables being measured. This library attributes each allocation to
 * the first caller on the stack outside libc, libstdc++, libgcc_s and itself, and counts the live
 * bytes of those whose caller lies in the library named by MALLOC_ATTRIB_LIB (default
 * "libushmem."): ushmem's own std::vector and new, not what MPI or UCX allocate when ushmem calls
 * them. bench/shmem_private.c reads the count through malloc_attrib_bytes() when this library is
 * preloaded:
 *
 *   LD_PRELOAD=./libbench_malloc_attrib.so mpirun ... ./bench_shmem_private
 *
 * Costs a stack walk per allocation of the process: a measurement tool, not for timing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

/* Code ranges: [0] the library counted, then those skipped over on the stack. */
enum { MAX_RANGES = 16 };
static struct {
    uintptr_t lo, hi;
} g_range[MAX_RANGES];
static int g_nranges = -1, g_target = 0; /* g_target: 1 when range 0 was found */

static int in_range(uintptr_t a, int i) { return a >= g_range[i].lo && a < g_range[i].hi; }

static int note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *target = getenv("MALLOC_ATTRIB_LIB");
    if (!target) target = "libushmem.";
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    int slot = -1;
    if (strstr(base, target) == base) {
        slot = 0;
        g_target = 1;
    } else if (strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libstdc++.so", 12) == 0 ||
               strncmp(base, "libgcc_s.so", 11) == 0 || strstr(base, "malloc_attrib")) {
        if (g_nranges >= MAX_RANGES) return 0;
        slot = g_nranges++;
    }
    if (slot < 0) return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        g_range[slot].lo = info->dlpi_addr + ph->p_vaddr;
        g_range[slot].hi = g_range[slot].lo + ph->p_memsz;
    }
    return 0;
}

/* The live allocations attributed to the library: pointer -> size, open addressing. */
enum { SLOTS = 1 << 20 };
static uintptr_t g_key[SLOTS];
static size_t g_size[SLOTS];
static const uintptr_t TOMB = 1;
static volatile int g_lock;
static size_t g_bytes, g_count;
static __thread int t_inside __attribute__((tls_model("initial-exec")));

static void lock(void)
{
    while (__atomic_exchange_n(&g_lock, 1, __ATOMIC_ACQUIRE)) __builtin_ia32_pause();
}
static void unlock(void) { __atomic_store_n(&g_lock, 0, __ATOMIC_RELEASE); }
static size_t slot_of(uintptr_t p) { return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull >> 44) & (SLOTS - 1); }

/* Whether the allocation being made comes from the library's own code. */
static int attributed(void)
{
    if (t_inside) return 0;
    t_inside = 1;  /* backtrace and dl_iterate_phdr may allocate */
    if (g_nranges < 0) {
        g_nranges = 1;
        dl_iterate_phdr(note_object, NULL);
    }
    int mine = 0;
    if (g_target) {
        void *frames[12];
        const int n = backtrace(frames, 12);
        for (int f = 1; f < n; ++f) {
            const uintptr_t a = (uintptr_t)frames[f];
            int skipped = 0;
            for (int i = 1; i < g_nranges && !skipped; ++i) skipped = in_range(a, i);
            if (skipped) continue;
            mine = in_range(a, 0);
            break;
        }
    }
    t_inside = 0;
    return mine;
}

static void add(void *p, size_t n)
{
    if (!p) return;
    lock();
    size_t i = slot_of((uintptr_t)p);
    while (g_key[i] > TOMB) i = (i + 1) & (SLOTS - 1);
    g_key[i] = (uintptr_t)p;
    g_size[i] = n;
    g_bytes += n;
    ++g_count;
    unlock();
}

static void drop(void *p)
{
    if (!p || !g_count) return;
    lock();
    for (size_t i = slot_of((uintptr_t)p); g_key[i]; i = (i + 1) & (SLOTS - 1))
        if (g_key[i] == (uintptr_t)p) {
            g_key[i] = TOMB;
            g_bytes -= g_size[i];
            --g_count;
            break;
        }
    unlock();
}

size_t malloc_attrib_bytes(void) { return __atomic_load_n(&g_bytes, __ATOMIC_RELAXED); }
size_t malloc_attrib_count(void) { return __atomic_load_n(&g_count, __ATOMIC_RELAXED); }

void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    if (attributed()) add(p, n);
    return p;
}
void *calloc(size_t k, size_t n)
{
    void *p = __libc_calloc(k, n);
    if (attributed()) add(p, k * n);
    return p;
}
void *realloc(void *old, size_t n)
{
    drop(old);
    void *p = __libc_realloc(old, n);
    if (attributed()) add(p, n);
    return p;
}
void free(void *p)
{
    drop(p);
    __libc_free(p);
}
void *memalign(size_t a, size_t n)
{
    void *p = __libc_memalign(a, n);
    if (attributed()) add(p, n);
    return p;
}
void *aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n)
{
    void *p = __libc_memalign(a, n);
    if (!p) return 12; /* ENOMEM */
    if (attributed()) add(p, n);
    *out = p;
    return 0;
}
