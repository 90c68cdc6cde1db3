// transport/memory.hpp: memory registered with UCX (ucp_mem_map) and its packed remote keys.
#pragma once

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ushmem::transport {

struct memory {
    ucp_mem_h memh = nullptr;
    void *address = nullptr;
    std::size_t length = 0;
    bool allocated = false;  // UCX allocated it (true one-sided access on the node)
};

// UCX-allocated memory at `addr` (exactly there if `fixed`). Contents are not preserved.
bool map_allocate(void *addr, std::size_t len, bool fixed, memory &m, std::string &err);
// Like map_allocate, but UCX's own error messages are suppressed while it runs. Used for the
// static data, where UCX first tries huge pages at an address that cannot take them and logs
// an error before falling back to small pages (the fallback is the expected outcome), and where
// nothing may print while the program's data is being moved.
bool map_allocate_quiet(void *addr, std::size_t len, bool fixed, memory &m, std::string &err);
// Register memory the program already owns (reachable through UCX, emulated on the node).
bool map_register(void *addr, std::size_t len, memory &m, std::string &err);
void unmap(memory &m);
std::vector<std::uint8_t> pack_rkey(const memory &m);

} // namespace ushmem::transport
