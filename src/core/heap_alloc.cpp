#include "core/heap_alloc.hpp"

#include <algorithm>
#include <cstdint>

namespace ushmem::core {

void heap_allocator::reset(std::size_t size) {
    capacity_ = size & ~(default_alignment - 1);
    free_.clear();
    used_.clear();
    edges_.clear();
    free_bytes_ = capacity_;
    if (capacity_) free_.emplace(0, capacity_);
}

std::optional<std::size_t> heap_allocator::allocate(std::size_t size, std::size_t alignment) {
    if (alignment == 0 || (alignment & (alignment - 1))) return std::nullopt;
    if (alignment < default_alignment) alignment = default_alignment;
    if (size == 0) size = 1;  // distinct blocks for zero-size requests keep free() simple
    if (size > capacity_ || size > SIZE_MAX / 2) return std::nullopt;
    size = round_up(size, default_alignment);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
        std::size_t start = it->first, len = it->second;
        std::size_t aligned = round_up(start, alignment);
        if (aligned < start || aligned - start >= len || len - (aligned - start) < size) continue;
        free_.erase(it);
        if (aligned > start) free_.emplace(start, aligned - start);
        std::size_t tail = start + len - (aligned + size);
        if (tail) free_.emplace(aligned + size, tail);
        used_.emplace(aligned, size);
        free_bytes_ -= size;
        return aligned;
    }
    return std::nullopt;
}

void heap_allocator::insert_free(std::size_t off, std::size_t len) {
    auto next = free_.lower_bound(off);
    if (next != free_.begin() && !edges_.count(off)) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == off) {
            off = prev->first;
            len += prev->second;
            free_.erase(prev);
        }
    }
    if (next != free_.end() && off + len == next->first && !edges_.count(off + len)) {
        len += next->second;
        free_.erase(next);
    }
    free_.emplace(off, len);
}

bool heap_allocator::release(std::size_t offset) {
    auto it = used_.find(offset);
    if (it == used_.end()) return false;
    std::size_t len = it->second;
    used_.erase(it);
    free_bytes_ += len;
    insert_free(offset, len);
    return true;
}

std::size_t heap_allocator::block_size(std::size_t offset) const {
    auto it = used_.find(offset);
    return it == used_.end() ? 0 : it->second;
}

bool heap_allocator::resize_in_place(std::size_t offset, std::size_t new_size) {
    auto it = used_.find(offset);
    if (it == used_.end()) return false;
    if (new_size == 0) new_size = 1;
    new_size = round_up(new_size, default_alignment);
    std::size_t old = it->second;
    if (new_size <= old) {
        if (new_size < old) {
            it->second = new_size;
            free_bytes_ += old - new_size;
            insert_free(offset + new_size, old - new_size);
        }
        return true;
    }
    auto nf = free_.find(offset + old);
    if (nf == free_.end() || edges_.count(offset + old) || nf->second < new_size - old) return false;
    std::size_t grow = new_size - old, rest = nf->second - grow;
    free_.erase(nf);
    if (rest) free_.emplace(offset + new_size, rest);
    it->second = new_size;
    free_bytes_ -= grow;
    return true;
}

void heap_allocator::add_region(std::size_t offset, std::size_t len) {
    len &= ~(default_alignment - 1);
    if (!len) return;
    edges_.insert(offset);
    edges_.insert(offset + len);
    capacity_ = offset + len;
    free_bytes_ += len;
    insert_free(offset, len);
}

std::size_t heap_allocator::largest_free_block() const {
    std::size_t m = 0;
    for (auto &[o, l] : free_) m = std::max(m, l);
    return m;
}

} // namespace ushmem::core
