// transport/endpoint.hpp: endpoints to peers (with peer-failure detection), remote keys and
// their direct mappings (rkey_ptr), closing endpoints at finalize.
#pragma once

#include "transport/shared_state.hpp"
#include "transport/worker.hpp"

#include <ucp/api/ucp.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ushmem::transport {

// Endpoints and remote keys, created on first use by the core. With `detect_failure` (and a
// handler set) the endpoint asks UCX for peer-failure detection, UCP_ERR_HANDLING_MODE_PEER, and
// `handler(peer_id, status)` runs from progress when UCX finds the peer gone (keepalive,
// connection reset). UCX 1.13's shared-memory transports (sysv, posix, cma) cannot detect a dead
// peer, so such an endpoint gives them up for tcp: the core asks for it only where the lanes are
// network ones anyway.
ucp_ep_h connect(ucp_worker_h w, const std::uint8_t *worker_addr, int peer_id, bool detect_failure,
                 std::string &err);
inline ucp_ep_h connect(const std::uint8_t *worker_addr, int peer_id, bool detect_failure, std::string &err) {
    return connect(worker(), worker_addr, peer_id, detect_failure, err);
}
void set_peer_failure_handler(peer_failure_handler handler);
// Stop reporting peer failures (finalize: peers closing their endpoints are not failures).
void mute_peer_failures();
ucp_rkey_h unpack_rkey(ucp_ep_h ep, const std::uint8_t *packed, std::string &err);
void *rkey_ptr(ucp_rkey_h rkey, std::uint64_t remote_addr);  // nullptr when not mappable
void destroy_rkey(ucp_rkey_h rkey);
// Close endpoints: flush each (waiting at most flush_grace_ns for all), then close them in force
// mode, driving progress until all are closed.
void close_endpoints(std::vector<ucp_ep_h> &eps, ucp_worker_h w, long flush_grace_ns = 1000000000L);
inline void close_endpoints(std::vector<ucp_ep_h> &eps) { close_endpoints(eps, worker()); }
// UCX's report of an endpoint's lanes (ushmem-info).
void print_ep_info(ucp_ep_h ep, FILE *f);

} // namespace ushmem::transport
