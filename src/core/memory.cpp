// Symmetric heap management. Collective: every PE makes the same calls in the same order, the
// allocator is deterministic, so every PE gets the same offset without exchanging anything.
#include "core/runtime.hpp"

#include "bootstrap/bootstrap.hpp"

#include <algorithm>
#include <cinttypes>
#include <string>
#include <cstdint>

namespace ushmem::core {
namespace {
void report_exhausted(const char *routine, std::size_t size) {
    // Suggest the next power of two that would hold the current heap plus this request.
    std::string hint = "";
    if (size < (std::size_t(1) << 46))
        hint = " (e.g. SHMEM_SYMMETRIC_SIZE=" +
               std::to_string(std::max<std::size_t>(1, (std::size_t(1) << (64 - __builtin_clzll(
                   (rt.cfg.symmetric_size + size) | 1))) >> 20)) + "M)";
    const std::size_t free = rt.heap.free_bytes(), largest = rt.heap.largest_free_block();
    // Enough free bytes but no block that large: say so, or the numbers look contradictory.
    const char *fragmented = free >= size ? " (the free space is fragmented: free blocks that are "
                                            "adjacent in the heap merge, so freeing the blocks "
                                            "between free ones helps)" : "";
    error(routine,
          "cannot allocate %zu bytes: %zu bytes free in the symmetric heap, largest free block %zu "
          "bytes%s, heap size SHMEM_SYMMETRIC_SIZE=%zu; raise SHMEM_SYMMETRIC_SIZE%s or free "
          "symmetric memory; returning NULL",
          size, free, largest, fragmented, rt.cfg.symmetric_size, hint.c_str());
}

void *at(std::size_t off) { return reinterpret_cast<void *>(rt.seg[seg_heap].base + off); }

bool heap_offset(const void *ptr, std::size_t &off) {
    std::uintptr_t a = reinterpret_cast<std::uintptr_t>(ptr), b = rt.seg[seg_heap].base;
    if (a < b || a >= b + rt.seg[seg_heap].size) return false;
    off = a - b;
    return rt.heap.block_size(off) != 0;
}

// Under SHMEM_DEBUG, catch the classic symmetric-allocation bug (PEs asking for different sizes,
// which desynchronises every later offset) where it happens rather than as corruption later.
void check_same_everywhere(const char *routine, std::size_t size, std::size_t alignment) {
    if (!rt.cfg.debug || !bootstrap::usable()) return;
    std::uint64_t lo = bootstrap::min_u64(size), hi = bootstrap::max_u64(size);
    std::uint64_t alo = bootstrap::min_u64(alignment), ahi = bootstrap::max_u64(alignment);
    if (lo != hi || alo != ahi)
        fatal(routine, "symmetric allocation with different arguments on different PEs (sizes "
                       "%" PRIu64 "..%" PRIu64 ", alignments %" PRIu64 "..%" PRIu64 "); every PE must "
                       "request the same size and alignment (checked because SHMEM_DEBUG is set)",
              lo, hi, alo, ahi);
}
} // namespace

void *sym_alloc(const char *routine, std::size_t size, std::size_t alignment) {
    if (alignment & (alignment - 1))
        fatal(routine, "alignment %zu is not a power of two", alignment);
    check_same_everywhere(routine, size, alignment);
    // Identical decisions on every PE; NULL on every PE when it does not fit.
    auto off = rt.heap.allocate(size, alignment);
    if (!off) report_exhausted(routine, size);
    // The specification's barrier at the end: no PE uses the block before all have it.
    barrier_all(routine, true);
    return off ? at(*off) : nullptr;
}

void sym_free(const char *routine, void *ptr) {
    // The barrier at the start: nobody may still be writing into the block being freed.
    barrier_all(routine, true);
    if (!ptr) return;
    std::size_t off;
    if (!heap_offset(ptr, off))
        fatal(routine, "%p was not returned by shmem_malloc, shmem_calloc, shmem_align or "
                       "shmem_realloc, or was already freed", ptr);
    rt.heap.release(off);
}

void *sym_realloc(const char *routine, void *ptr, std::size_t size) {
    if (!ptr) return sym_alloc(routine, size, heap_allocator::default_alignment);
    barrier_all(routine, true);
    std::size_t off;
    if (!heap_offset(ptr, off))
        fatal(routine, "%p was not returned by a symmetric allocation routine, or was already freed", ptr);
    if (size == 0) {
        rt.heap.release(off);
        return nullptr;
    }
    void *result = ptr;
    if (!rt.heap.resize_in_place(off, size)) {
        std::size_t old = rt.heap.block_size(off);
        auto moved = rt.heap.allocate(size);
        if (!moved) {
            report_exhausted(routine, size);
            result = nullptr;  // the old block stays valid, as with realloc(3)
        } else {
            std::memcpy(at(*moved), ptr, old < size ? old : size);
            rt.heap.release(off);
            result = at(*moved);
        }
    }
    barrier_all(routine, true);
    return result;
}

} // namespace ushmem::core
