// The node_table class itself: holding, moving and releasing a table (node_table.hpp). Apart from
// its making (node_table.cpp, which reads the runtime's state) because that state owns tables and
// releases them: the two files would otherwise call each other (tools/call_graph.py).
#include "core/node_table.hpp"

#include <sys/shm.h>

#include <atomic>

namespace ushmem::core {

namespace {
std::atomic<std::size_t> g_mapped{0};  // shared tables this process maps (SHMEM_INFO)
} // namespace

node_table &node_table::operator=(node_table &&o) noexcept {
    if (this == &o) return *this;
    release();
    words_ = o.words_;
    shm_ = o.shm_;
    private_ = std::move(o.private_);
    bytes_ = o.bytes_;
    o.words_ = nullptr;
    o.shm_ = nullptr;
    o.bytes_ = 0;
    return *this;
}

void node_table::release() {
    if (shm_) {
        shmdt(shm_);
        g_mapped.fetch_sub(1, std::memory_order_relaxed);
    }
    shm_ = nullptr;
    words_ = nullptr;
    bytes_ = 0;
    std::vector<std::uint64_t>().swap(private_);
}

void node_table::adopt_shared(void *shm, std::size_t bytes) {
    release();
    shm_ = shm;
    words_ = static_cast<const std::uint64_t *>(shm);
    bytes_ = bytes;
    g_mapped.fetch_add(1, std::memory_order_relaxed);
}

void node_table::adopt_private(std::vector<std::uint64_t> &&words, std::size_t bytes) {
    release();
    private_ = std::move(words);
    words_ = private_.data();
    bytes_ = bytes;
}

std::size_t node_tables_mapped() { return g_mapped.load(std::memory_order_relaxed); }

} // namespace ushmem::core
