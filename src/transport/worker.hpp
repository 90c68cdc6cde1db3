// transport/worker.hpp: UCX workers (the main one, contexts' own), how calls into a worker are
// serialized with the progress thread (drive, issue, issue_op), and the request wrappers: the
// data-path calls, request status, freeing and waiting, fire-and-forget completion.
#pragma once

#include "transport/handles.hpp"
#include "transport/shared_state.hpp"

#include <ucp/api/ucp.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ushmem::transport {

// Creating workers with ushmem's message handlers on them (worker_setup.cpp, above am/).
// The main worker. `thread_multiple`: thread mode MULTI (SHMEM_THREAD_MULTIPLE: the program's
// threads call UCX at once); else SERIALIZED when a progress thread will share it
// (share_main_worker() was called), else SINGLE.
bool create_worker(bool thread_multiple, std::string &err);
// A further worker on the same UCX context, for a communication context that needs its own
// completion (core::context_lanes). Not driven by the progress thread. `acks_done`: one counter
// per PE, to which the acknowledgements of its messages add, whichever way they come (ack_reply
// on this worker; ack_owed tagged with `stream`, which this sets: 1 to 2^24 - 1, or 0 when none is
// left, then every message asks for ack_reply). destroy_extra_worker ends the stream first:
// acknowledgements that come later are dropped.
ucp_worker_h create_extra_worker(bool multi_thread, std::atomic<std::uint64_t> *acks_done, std::uint32_t &stream,
                                 std::string &err);
void destroy_extra_worker(ucp_worker_h w, std::uint32_t stream);
inline ucp_worker_h worker() { return detail::shared.main_worker; }

std::vector<std::uint8_t> worker_address();
// From now on a progress thread shares the main worker: calls into it take its lock. (The context
// always has UCP_FEATURE_WAKEUP: it costs two file descriptors per worker and nothing on the data
// path, since only armed interfaces make senders signal.)
// False (err says why) when the progress thread's wake-up (shared_state.hpp, kick_fd) cannot be made.
bool share_main_worker(std::string &err);

// Holds the main worker's lock for its scope when `w` is the main worker and it is shared.
class drive {
public:
    explicit drive(ucp_worker_h w) : on_(__builtin_expect(detail::shared.main_shared, 0) && w == detail::shared.main_worker) {
        if (on_) detail::shared.main_lock.lock();
    }
    ~drive() {
        if (on_) detail::shared.main_lock.unlock();
    }
    drive(const drive &) = delete;
    drive &operator=(const drive &) = delete;

protected:
    bool on_;
};

// An operation issued on the main worker, counted when the worker is shared (detail::shared.pe_issue).
class issue : public drive {
public:
    explicit issue(ucp_worker_h w) : drive(w) {
        if (on_) bump();
    }
    ~issue() {
        if (on_) bump();
    }

private:
    static void bump() {
        detail::shared.pe_issue.n.store(detail::shared.pe_issue.n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
};
// The progress thread found the PE issuing and asked it to progress the worker itself, so that it
// goes on serving its peers while it streams operations and the thread can stay parked (serve()).
void answer_progress_ask();
// Every operation the core issues on a worker: `call` (the UCX call) under the worker's lock,
// counted, then the thread's ask answered, once the lock is released (the answer progresses under
// it). One load per operation; the ask comes at most once per look of the thread. Always inlined:
// it is the data path's wrapper of every UCX call, and GCC's choice otherwise varies with the size
// of the calling file (core/rma.cpp, once the message protocol left it, called it out of line).
template <class Call> [[gnu::always_inline]] inline void *issue_op(ucp_worker_h w, Call call) {
    void *r;
    {
        issue d(w);
        r = call();
    }
    if (__builtin_expect(detail::shared.pe_issue.asked.load(std::memory_order_relaxed), 0)) answer_progress_ask();
    return r;
}

// ---- data-path calls (every UCX call of the core goes through these) --------------------------
inline void *put_nbx(ucp_worker_h w, ucp_ep_h ep, const void *buf, std::size_t n, std::uint64_t raddr,
                     ucp_rkey_h rkey, const ucp_request_param_t *prm) {
    return issue_op(w, [&] { return ucp_put_nbx(ep, buf, n, raddr, rkey, prm); });
}
inline void *get_nbx(ucp_worker_h w, ucp_ep_h ep, void *buf, std::size_t n, std::uint64_t raddr,
                     ucp_rkey_h rkey, const ucp_request_param_t *prm) {
    return issue_op(w, [&] { return ucp_get_nbx(ep, buf, n, raddr, rkey, prm); });
}
inline void *atomic_nbx(ucp_worker_h w, ucp_ep_h ep, ucp_atomic_op_t op, const void *operand,
                        std::uint64_t raddr, ucp_rkey_h rkey, const ucp_request_param_t *prm) {
    return issue_op(w, [&] { return ucp_atomic_op_nbx(ep, op, operand, 1, raddr, rkey, prm); });
}
// A fire-and-forget 64-bit remote add (the collectives' signals; completion through flush, errors
// through nbi_completion). nullptr, or UCX's description of why it could not be issued.
void nbi_completion(void *request, ucs_status_t status, void *user_data);
inline const char *add_nbi(ucp_ep_h ep, std::uint64_t raddr, ucp_rkey_h rkey, std::uint64_t v) {
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_CALLBACK;
    prm.datatype = ucp_dt_make_contig(8);
    prm.cb.send = nbi_completion;
    void *r = atomic_nbx(worker(), ep, UCP_ATOMIC_OP_ADD, &v, raddr, rkey, &prm);
    return UCS_PTR_IS_ERR(r) ? ucs_status_string(UCS_PTR_STATUS(r)) : nullptr;
}
// ---- the core's operations, with their request parameters built here ---------------------------
// Completion of a counted non-blocking get or fetching atomic: adds 1 to `done_counter` (a
// context's reply_done of its PE), then as nbi_completion.
void counted_completion(void *request, ucs_status_t status, void *done_counter);
// Issues a put (named apart from core::put, the OpenSHMEM put, which picks the route). `nbi`: the request frees itself (completion through flush, errors through
// take_async_error); else the caller waits for the request it returns (local completion).
inline void *issue_put(ucp_worker_h w, ucp_ep_h ep, const void *src, std::size_t n, std::uint64_t raddr, ucp_rkey_h rkey,
                       bool nbi) {
    ucp_request_param_t prm;
    if (nbi) {
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
        prm.cb.send = nbi_completion;
    } else {
        prm.op_attr_mask = 0;
    }
    return put_nbx(w, ep, src, n, raddr, rkey, &prm);
}
// Issues a get (named apart from core::get). `done`: non-null for a counted non-blocking one (counted_completion adds to it); null:
// the caller waits for the request it returns.
inline void *issue_get(ucp_worker_h w, ucp_ep_h ep, void *dst, std::size_t n, std::uint64_t raddr, ucp_rkey_h rkey,
                       std::atomic<std::uint64_t> *done) {
    ucp_request_param_t prm;
    if (done) {
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        prm.cb.send = counted_completion;
        prm.user_data = done;
    } else {
        prm.op_attr_mask = 0;
    }
    return get_nbx(w, ep, dst, n, raddr, rkey, &prm);
}
// An atomic on `size` bytes. `reply`: reply buffer (fetching form) or nullptr. `async`: the
// request frees itself (completion is observed by quiet); otherwise the caller waits for it.
// `done`: an async fetching one's reply counter, counted by its callback (counted_completion).
inline void *atomic(ucp_worker_h w, ucp_ep_h ep, atomic_op op, const void *operand, std::size_t size,
                    std::uint64_t raddr, ucp_rkey_h rkey, void *reply, bool async,
                    std::atomic<std::uint64_t> *done = nullptr) {
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    prm.datatype = ucp_dt_make_contig(size);
    if (reply) {
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        prm.reply_buffer = reply;
    }
    if (async) {
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK;
        prm.cb.send = nbi_completion;
        if (done) {
            prm.op_attr_mask |= UCP_OP_ATTR_FIELD_USER_DATA;
            prm.cb.send = counted_completion;
            prm.user_data = done;
        }
    }
    return atomic_nbx(w, ep, ucp_atomic_op_t(op), operand, raddr, rkey, &prm);
}
inline void *ep_flush_nbx(ucp_worker_h w, ucp_ep_h ep, const ucp_request_param_t *prm) {
    drive d(w);
    return ucp_ep_flush_nbx(ep, prm);
}
inline void *worker_flush_nbx(ucp_worker_h w, const ucp_request_param_t *prm) {
    drive d(w);
    return ucp_worker_flush_nbx(w, prm);
}
// Flushes for the core's quiets: the request to wait for, nullptr (nothing outstanding), or an
// error pointer.
inline void *ep_flush(ucp_worker_h w, ucp_ep_h ep) {
    ucp_request_param_t prm{};
    return ep_flush_nbx(w, ep, &prm);
}
inline void *worker_flush(ucp_worker_h w) {
    ucp_request_param_t prm{};
    return worker_flush_nbx(w, &prm);
}
// A flush whose completion stores `Value` (release) into `word` and frees its request, inside
// the progress call that completes it (a test of one PE's completion: core/timed.cpp). An error
// status is stored as done as well: the caller's quiet reports it. Returns as ep_flush; on
// nullptr or an error no store comes.
template <int Value> void *ep_flush_then_store(ucp_worker_h w, ucp_ep_h ep, std::atomic<int> *word) {
    ucp_request_param_t prm{};
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    prm.cb.send = [](void *request, ucs_status_t, void *user) {
        static_cast<std::atomic<int> *>(user)->store(Value, std::memory_order_release);
        ucp_request_free(request);  // inside progress: the worker is ours already (no drive)
    };
    prm.user_data = word;
    return ep_flush_nbx(w, ep, &prm);
}
// A request's status can be read without the lock (UCX reads one field); freeing it cannot.
inline ucs_status_t request_status(void *request) { return ucp_request_check_status(request); }
inline void request_free(ucp_worker_h w, void *request) {
    drive d(w);
    ucp_request_free(request);
}

// Wait for a request returned by a *_nbx call (not NULL, not an error), then free it. For the
// transport's own housekeeping (closing endpoints); the core's waits go through core::await_requests,
// which bounds them (USHMEM_WAIT_TIMEOUT) and says what they wait for.
ucs_status_t wait_and_free(void *request, ucp_worker_h w);
// Orders the worker's later operations after its earlier ones (ucp_worker_fence). Named apart
// from core::fence, the OpenSHMEM fence, which settles packs and direct stores too.
inline void worker_fence(ucp_worker_h w) {
    drive d(w);
    ucp_worker_fence(w);
}
inline void worker_fence() { worker_fence(worker()); }

// First error reported by a fire-and-forget request, UCS_OK if none.
ucs_status_t take_async_error();

} // namespace ushmem::transport
