// Symmetric heap management. Collective: every PE makes the same calls in the same order, the
// allocator is deterministic, so every PE gets the same offset without exchanging anything.
//
// That only holds while the PEs' calls match. A block freed on some PEs only (a C++ symmetric<>
// destroyed during exception unwinding on one PE), or different sizes, make the heaps differ from
// then on: the same allocation returns different offsets on different PEs and data silently lands
// in the wrong place. So the barrier that every collective memory call has anyway (at the end of an
// allocation, at the start of a free) is a small world reduction instead: the PEs compare a
// fingerprint of the call and of their heap (heap_sync), which costs about what the barrier did,
// and a difference ends the job with what each PE asked for.
#include "core/runtime.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/agree.hpp"
#include "core/compiler.hpp"
#include "core/env.hpp"
#include "core/heap_alloc.hpp"
#include "core/heap_grow.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "core/ordering.hpp"
#include "core/peers.hpp"
#include "core/team.hpp"


#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace ushmem::core {
namespace {
void *at(std::size_t off) { return reinterpret_cast<void *>(rt.seg[seg_heap].base + off); }

bool heap_offset(const void *ptr, std::size_t &off) {
    std::uintptr_t a = reinterpret_cast<std::uintptr_t>(ptr), b = rt.seg[seg_heap].base;
    if (a < b || a >= b + rt.heap.capacity()) return false;  // (capacity: past a grown heap's last chunk)
    off = a - b;
    return rt.heap.block_size(off) != 0;
}

// ---- heap consistency ------------------------------------------------------------------------

enum class heap_op : std::uint64_t { alloc = 1, refused, free, realloc, realloc_end, grow };

// One collective memory call of this PE, as compared (fingerprint) and reported.
struct heap_call {
    std::uint64_t seq;     // collective memory calls so far on this PE, this one included
    std::uint64_t op;      // heap_op
    std::uint64_t size;    // bytes asked for (alloc, refused, realloc), or of the block (free)
    std::uint64_t align;   // alignment asked for (alloc, refused)
    std::uint64_t offset;  // the block: returned (alloc, realloc_end; ~0 for NULL), or given
    std::uint64_t blocks;  // blocks the program holds after the call (alloc) or before it
    std::uint64_t bytes;   // and their bytes
};

// The program's blocks exclude what init reserved (the runtime area, the team slots).
struct {
    std::uint64_t calls = 0;
    std::size_t base_blocks = 0, base_free = 0;
} g_heap;

heap_call record(heap_op op, std::uint64_t size, std::uint64_t align, std::uint64_t offset) {
    return {++g_heap.calls,
            std::uint64_t(op),
            size,
            align,
            offset,
            rt.heap.live_blocks() - g_heap.base_blocks,
            g_heap.base_free - rt.heap.free_bytes()};
}

// What must be equal on every PE: the call's place in the sequence, its kind, its block and the
// heap it leaves. (Not the size itself: sizes that round to the same block keep the heaps equal.)
std::uint64_t heap_fingerprint(const heap_call &c) {
    return fnv1a().add(c.seq).add(c.op).add(c.offset).add(c.blocks).add(c.bytes).h;
}

// What heap_sync compares. Under SHMEM_DEBUG also the size and alignment asked for, which catches
// the classic symmetric-allocation bug (PEs asking for different sizes) where it happens even when
// the sizes round to the same block. This check must be part of heap_sync's own reduction, which
// every collective memory call reaches alike: as a separate exchange before the allocation it
// hung the job whenever the PEs' calls already differed (issue #48: PE 0 in a free's heap_sync,
// the others in an allocation's exchange, each waiting for the other). SHMEM_DEBUG is the same on
// every PE (check_settings_alike), so all compare the same thing.
std::uint64_t fingerprint(const heap_call &c) {
    const std::uint64_t h = heap_fingerprint(c);
    return rt.cfg.debug ? fnv1a().add(h).add(c.size).add(c.align).h : h;
}

std::string describe(const heap_call &c) {
    char buf[256];
    switch (heap_op(c.op)) {
    case heap_op::alloc:
    case heap_op::refused:
        std::snprintf(buf, sizeof buf, "an allocation of %" PRIu64 " bytes (alignment %" PRIu64 ")%s", c.size,
                      c.align, heap_op(c.op) == heap_op::refused ? " refused before the heap" : "");
        break;
    case heap_op::free:
        std::snprintf(buf, sizeof buf, "a free of the %" PRIu64 "-byte block at heap offset %#" PRIx64, c.size,
                      c.offset);
        break;
    case heap_op::realloc:
        std::snprintf(buf, sizeof buf, "a reallocation to %" PRIu64 " bytes of the block at heap offset %#" PRIx64,
                      c.size, c.offset);
        break;
    case heap_op::grow:
        std::snprintf(buf, sizeof buf, "an allocation of %" PRIu64 " bytes (alignment %" PRIu64 ") that grows the heap",
                      c.size, c.align);
        break;
    case heap_op::realloc_end:
        std::snprintf(buf, sizeof buf, "the end of a reallocation to %" PRIu64 " bytes", c.size);
        break;
    default:
        std::snprintf(buf, sizeof buf, "an unknown call");
    }
    std::string s = buf;
    std::snprintf(buf, sizeof buf, ", with %" PRIu64 " block%s (%" PRIu64 " bytes) allocated by the program", c.blocks,
                  c.blocks == 1 ? "" : "s", c.bytes);
    return s + buf;
}

// The fingerprints differ: gather every PE's call (over MPI: an error path), and PE 0 says who did
// what. Every PE gets here from the same reduction, so all take part in the gather.
[[noreturn]] void report_desync(const char *routine, const heap_call &mine) {
    std::vector<heap_call> all(std::size_t(rt.npes));
    bootstrap::allgather(&mine, sizeof mine, all.data());
    if (rt.me != 0) {
        // PE 0 reports and ends the job; waiting for it here keeps the report to one message.
        bootstrap::barrier_with_progress(nullptr, nullptr);
        bootstrap::abort_job(1);
    }
    // Only the sizes or alignments asked for differ (SHMEM_DEBUG): the heaps still match, so say
    // that rather than that they no longer do.
    const bool heaps_match = std::all_of(all.begin(), all.end(), [&](const heap_call &c) {
        return heap_fingerprint(c) == heap_fingerprint(mine);
    });
    if (heaps_match) {
        auto lo_hi = [&all](std::uint64_t heap_call::*field) {
            auto [lo, hi] = std::minmax_element(all.begin(), all.end(),
                                                [field](const heap_call &a, const heap_call &b) { return a.*field < b.*field; });
            return std::pair{(*lo).*field, (*hi).*field};
        };
        const auto [slo, shi] = lo_hi(&heap_call::size);
        const auto [alo, ahi] = lo_hi(&heap_call::align);
        fatal(routine, "symmetric allocation with different arguments on different PEs (sizes "
                       "%" PRIu64 "..%" PRIu64 ", alignments %" PRIu64 "..%" PRIu64 "); every PE must "
                       "request the same size and alignment (checked because SHMEM_DEBUG is set)",
              slo, shi, alo, ahi);
    }
    // The PEs grouped by what they did, in the order of their first PE.
    std::vector<std::string> did;
    for (const heap_call &c : all)
        did.push_back("collective memory call " + std::to_string(c.seq) + ": " + describe(c));
    const auto groups = group_by(did);
    std::string what;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (g == 8) {
            what += "; and " + std::to_string(groups.size() - 8) + " more different calls";
            break;
        }
        what += g ? "; " : "";
        what += (groups[g].second.size() == 1 ? "PE" : "PEs") + pe_list(groups[g].second) + ": " + groups[g].first;
    }
    fatal(routine,
          "the symmetric heap is no longer the same on every PE: the PEs' collective memory calls "
          "do not match (%s). Every PE must make the same shmem_malloc/shmem_calloc/shmem_align/"
          "shmem_realloc/shmem_free calls in the same order with the same sizes; a block freed on "
          "some PEs only (e.g. a C++ ushmem::symmetric<> destroyed during exception unwinding on "
          "one PE, see docs/cpp.md) or sizes that differ between PEs lead here",
          what.c_str());
}

// The barrier of a collective memory call (quiet, then every PE arrives), which also checks that
// every PE made the same call on the same heap.
void heap_sync(const char *routine, const heap_call &c) {
    quiet(routine, rt.default_ctx);
    if (rt.npes == 1) return;
    // Two words at a fixed place of the runtime area: min of the fingerprint and of its complement
    // (the max) in one reduction; equal everywhere iff min == max.
    std::uint64_t *w = rt.runtime_words + heap_check_word;
    const std::uint64_t h = fingerprint(c);
    w[0] = h;
    w[1] = ~h;
    heap_check_reduce(routine, w + 2, w, 2, reduce_op{8, min_u64_combine});
    if (USHMEM_LIKELY(w[2] == ~w[3])) return;
    report_desync(routine, c);
}

// The heap could not satisfy `size` at `alignment`: say why, with the numbers and the remedy.
void report_exhausted(const char *routine, std::size_t size, std::size_t alignment) {
    const std::size_t free = rt.heap.free_bytes(), largest = rt.heap.largest_free_block();
    const std::string grow =
        size_setting_for(std::uint64_t(rt.cfg.symmetric_size) + std::min<std::uint64_t>(size, UINT64_MAX / 2));
    if (largest >= size && alignment > heap_allocator::default_alignment) {
        // A block is large enough: only the alignment keeps it from fitting.
        error(routine,
              "cannot allocate %zu bytes aligned to %zu bytes (%s): no free block of the symmetric "
              "heap (SHMEM_SYMMETRIC_SIZE=%zu, largest free block %zu bytes) contains an address "
              "with that alignment followed by %zu bytes; ask for a smaller alignment (one below "
              "the heap size, a power of two) or raise SHMEM_SYMMETRIC_SIZE; returning NULL",
              size, alignment, format_bytes_approx(alignment).c_str(), rt.cfg.symmetric_size, largest, size);
        return;
    }
    // Enough free bytes but no block that large: say so, or the numbers look contradictory.
    const char *fragmented = free >= size ? " (the free space is fragmented: free blocks that are "
                                            "adjacent in the heap merge, so freeing the blocks "
                                            "between free ones helps)" : "";
    error(routine,
          "cannot allocate %zu bytes: %zu bytes free in the symmetric heap, largest free block "
          "%zu bytes%s, heap size SHMEM_SYMMETRIC_SIZE=%zu; raise SHMEM_SYMMETRIC_SIZE (e.g. "
          "SHMEM_SYMMETRIC_SIZE=%s) or free symmetric memory; returning NULL",
          size, free, largest, fragmented, rt.cfg.symmetric_size, grow.c_str());
}
// The heap has no room for `size` at `alignment`: grow it (every PE alike: the allocators are
// the same) and allocate again. When it cannot grow, says why with the numbers and the remedy,
// or, growth off, as a fixed heap always did.
std::optional<std::size_t> allocate_growing(const char *routine, std::size_t size, std::size_t alignment) {
    std::string why;
    if (rt.grown.on) {
        // Every PE must be in this same allocation before growth's exchanges: one whose call
        // differs would wait in another collective, and both would hang. The heap check's
        // reduction tells instead (a PE not growing is in its own call's; counted as one call).
        heap_sync(routine, record(heap_op::grow, size, alignment, ~std::uint64_t(0)));
        --g_heap.calls;
    }
    if (grow_heap(routine, size, alignment, why)) {
        if (auto off = rt.heap.allocate(size, alignment)) return off;
        why = "internal error: the heap grew but the allocation still does not fit";
    }
    // No growth (off), or an alignment as large as the whole reservation with a free block large
    // enough: only a smaller alignment helps, which is what the fixed heap's message says.
    const bool alignment_alone = alignment > heap_allocator::default_alignment &&
                                 alignment >= rt.grown.start + rt.grown.limit &&
                                 rt.heap.largest_free_block() >= size;
    if (why.empty() || alignment_alone) {
        report_exhausted(routine, size, alignment);
        return std::nullopt;
    }
    error(routine, "cannot allocate %zu bytes (alignment %zu): %zu bytes free in the symmetric heap, largest "
                   "free block %zu bytes, and %s; returning NULL",
          size, alignment, rt.heap.free_bytes(), rt.heap.largest_free_block(), why.c_str());
    return std::nullopt;
}
} // namespace

void heap_calls_start() {
    g_heap.calls = 0;
    g_heap.base_blocks = rt.heap.live_blocks();
    g_heap.base_free = rt.heap.free_bytes();
}

void *sym_alloc(const char *routine, std::size_t size, std::size_t alignment) {
    if (alignment & (alignment - 1))
        fatal(routine, "alignment %zu is not a power of two", alignment);
    // Identical decisions on every PE; NULL on every PE when it does not fit.
    auto off = rt.heap.allocate(size, alignment);
    if (!off) off = allocate_growing(routine, size, alignment);
    // The specification's barrier at the end: no PE uses the block before all have it.
    heap_sync(routine, record(heap_op::alloc, size, alignment, off ? *off : ~std::uint64_t(0)));
    return off ? at(*off) : nullptr;
}

void *sym_alloc_refused(const char *routine, std::size_t size, std::size_t alignment) {
    heap_sync(routine, record(heap_op::refused, size, alignment, ~std::uint64_t(0)));
    return nullptr;
}

void sym_free(const char *routine, void *ptr) {
    std::size_t off = 0;
    // A pointer that is no block ends the job at once (the other PEs wait in heap_sync until then).
    if (ptr && !heap_offset(ptr, off))
        fatal(routine, "%p was not returned by shmem_malloc, shmem_calloc, shmem_align or "
                       "shmem_realloc, or was already freed", ptr);
    // The barrier at the start: nobody may still be writing into the block being freed.
    heap_sync(routine, record(heap_op::free, ptr ? rt.heap.block_size(off) : 0, 0, ptr ? off : ~std::uint64_t(0)));
    if (ptr) rt.heap.release(off);
}

void *sym_realloc(const char *routine, void *ptr, std::size_t size) {
    if (!ptr) return sym_alloc(routine, size, heap_allocator::default_alignment);
    std::size_t off = 0;
    if (!heap_offset(ptr, off))
        fatal(routine, "%p was not returned by a symmetric allocation routine, or was already freed", ptr);
    heap_sync(routine, record(heap_op::realloc, size, 0, off));
    if (size == 0) {
        rt.heap.release(off);
        return nullptr;
    }
    void *result = ptr;
    if (!rt.heap.resize_in_place(off, size)) {
        std::size_t old = rt.heap.block_size(off);
        auto moved = rt.heap.allocate(size);
        if (!moved) moved = allocate_growing(routine, size, heap_allocator::default_alignment);
        if (!moved) {
            result = nullptr;  // the old block stays valid, as with realloc(3)
        } else {
            std::memcpy(at(*moved), ptr, old < size ? old : size);
            rt.heap.release(off);
            result = at(*moved);
        }
    }
    const std::uint64_t now = result ? reinterpret_cast<std::uintptr_t>(result) - rt.seg[seg_heap].base
                                     : ~std::uint64_t(0);
    heap_sync(routine, record(heap_op::realloc_end, size, 0, now));
    return result;
}

} // namespace ushmem::core
