// transport/handles.hpp: the names the core uses for UCX's handles and statuses, so that it never
// spells a ucp_ or ucs_ name itself: aliases (zero cost: the same types), status constants, and
// the tests on what a *_nbx call returned (nullptr: done at once; an error; a request).
#pragma once

#include <ucp/api/ucp.h>

namespace ushmem::transport {

using worker_h = ucp_worker_h;
using ep_h = ucp_ep_h;
using rkey_h = ucp_rkey_h;
using status = ucs_status_t;
constexpr status status_ok = UCS_OK;
constexpr status status_in_progress = UCS_INPROGRESS;

// A *_nbx call's answer: an error (not a request), and which.
inline bool is_error(const void *r) { return UCS_PTR_IS_ERR(r); }
inline status error_of(const void *r) { return UCS_PTR_STATUS(r); }
inline const char *status_string(status st) { return ucs_status_string(st); }
// UCX's version, for reports (ushmem-info).
inline const char *ucx_version() { return ucp_get_version_string(); }

// The atomic operations the core issues (the values are UCX's: converting is free).
enum class atomic_op : int {
    add = UCP_ATOMIC_OP_ADD,
    swap = UCP_ATOMIC_OP_SWAP,
    cswap = UCP_ATOMIC_OP_CSWAP,
    band = UCP_ATOMIC_OP_AND,
    bor = UCP_ATOMIC_OP_OR,
    bxor = UCP_ATOMIC_OP_XOR,
};

} // namespace ushmem::transport
