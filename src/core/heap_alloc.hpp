// The symmetric heap allocator. It hands out offsets into the heap; its metadata lives in
// ordinary memory, never in the heap, so a stray remote write cannot corrupt it. Every PE runs
// the same sequence of calls (allocation is collective), and the algorithm is deterministic, so
// every PE computes the same offsets without communicating.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>

namespace ushmem::core {

class heap_allocator {
  public:
    static constexpr std::size_t default_alignment = 64;  // a cache line; >= any C type's alignment

    heap_allocator() = default;
    explicit heap_allocator(std::size_t size) { reset(size); }
    void reset(std::size_t size);

    // First fit by address. `alignment` must be a power of two. nullopt when nothing fits.
    std::optional<std::size_t> allocate(std::size_t size, std::size_t alignment = default_alignment);
    // Returns false when `offset` is not the start of a live block.
    bool release(std::size_t offset);
    // Size of the live block starting at `offset`, 0 if none.
    std::size_t block_size(std::size_t offset) const;
    // Try to change a block's size where it stands (shrink, or grow into a free neighbour).
    bool resize_in_place(std::size_t offset, std::size_t new_size);
    // Adds [offset, offset + len) (beyond the capacity so far, 64-byte aligned) as a region of
    // its own: a grown heap's chunk. No block and no free range spans a region's edge, so a block
    // lies in one chunk (one UCX allocation) whatever is freed around it.
    void add_region(std::size_t offset, std::size_t len);

    std::size_t capacity() const { return capacity_; }
    std::size_t free_bytes() const { return free_bytes_; }
    std::size_t largest_free_block() const;
    std::size_t live_blocks() const { return used_.size(); }

  private:
    static std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) & ~(a - 1); }
    void insert_free(std::size_t off, std::size_t len);  // coalesces with neighbours

    std::size_t capacity_ = 0;
    std::size_t free_bytes_ = 0;
    std::map<std::size_t, std::size_t> free_;  // offset -> length
    std::map<std::size_t, std::size_t> used_;  // offset -> length
    std::set<std::size_t> edges_;              // region edges (add_region) that nothing spans
};

} // namespace ushmem::core
