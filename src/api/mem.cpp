// Memory management routines.
#include "api/api.hpp"
#include "core/heap_alloc.hpp"
#include "core/memory.hpp"
#include "core/runtime.hpp"

using namespace ushmem;

// A zero size "performs no action and returns a null pointer" (OpenSHMEM 1.6): no barrier
// either, which is consistent because every PE passes the same size.
USHMEM_DEF(void *, shmem_malloc, (size_t size)) {
    core::check_running("shmem_malloc");
    if (size == 0) return nullptr;
    return core::sym_alloc("shmem_malloc", size, core::heap_allocator::default_alignment);
}

USHMEM_DEF(void *, shmem_malloc_with_hints, (size_t size, long hints)) {
    core::check_running("shmem_malloc_with_hints");
    if (size == 0) return nullptr;
    (void)hints;  // every block already supports remote atomics and signals
    return core::sym_alloc("shmem_malloc_with_hints", size, core::heap_allocator::default_alignment);
}

USHMEM_DEF(void *, shmem_calloc, (size_t count, size_t size)) {
    const char *r = "shmem_calloc";
    core::check_running(r);
    if (count == 0 || size == 0) return nullptr;
    if (count > SIZE_MAX / size) {
        // Too large for any heap: the same answer as an allocation that does not fit.
        core::error(r, "count %zu x size %zu overflows size_t; returning NULL", count, size);
        return core::sym_alloc_refused(r, SIZE_MAX, core::heap_allocator::default_alignment);
    }
    std::size_t bytes = count * size;
    void *p = core::sym_alloc(r, bytes, core::heap_allocator::default_alignment);
    // Zero before anyone may write: sym_alloc's barrier has passed, so zero then barrier again.
    if (p) std::memset(p, 0, bytes);
    core::barrier_all(r, false);
    return p;
}

USHMEM_DEF(void *, shmem_align, (size_t alignment, size_t size)) {
    core::check_running("shmem_align");
    if (alignment == 0 || (alignment & (alignment - 1))) {
        core::error("shmem_align", "alignment %zu is not a power of two; returning NULL", alignment);
        return core::sym_alloc_refused("shmem_align", size, alignment);
    }
    if (size == 0) return nullptr;
    return core::sym_alloc("shmem_align", size, alignment);
}

USHMEM_DEF(void *, shmem_realloc, (void *ptr, size_t size)) {
    core::check_running("shmem_realloc");
    return core::sym_realloc("shmem_realloc", ptr, size);
}

USHMEM_DEF(void, shmem_free, (void *ptr)) {
    core::check_running("shmem_free");
    core::sym_free("shmem_free", ptr);
}

// Deprecated names.
USHMEM_DEF(void *, shmalloc, (size_t size)) {
    core::check_running("shmalloc");
    if (size == 0) return nullptr;
    return core::sym_alloc("shmalloc", size, core::heap_allocator::default_alignment);
}
USHMEM_DEF(void *, shmemalign, (size_t alignment, size_t size)) { return pshmem_align(alignment, size); }
USHMEM_DEF(void *, shrealloc, (void *ptr, size_t size)) {
    core::check_running("shrealloc");
    return core::sym_realloc("shrealloc", ptr, size);
}
USHMEM_DEF(void, shfree, (void *ptr)) {
    core::check_running("shfree");
    core::sym_free("shfree", ptr);
}
