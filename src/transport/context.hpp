// transport/context.hpp: the UCX context (ucp_init and its configuration), what its lanes can
// do, and the teardown of worker and context.
#pragma once

#include <ucp/api/ucp.h>

#include <string>

namespace ushmem::transport {

struct lanes_info {
    bool has_shared_memory_rma = false;  // sysv/posix: one-sided on the node
    bool has_network_rdma = false;       // rc/dc/...: one-sided across nodes
    std::string resources;               // transport names, for SHMEM_INFO
};

// The UCX context; lanes() is known after it.
bool start_context(std::string &err);  // (not core::init: that is shmem_init's)
void stop_context();  // worker and context; everything else must already be released
ucp_context_h context();
const lanes_info &lanes();
// Whether bulk messages keep their order (one eager rail; after start_context()).
bool bulk_ordered();

} // namespace ushmem::transport
