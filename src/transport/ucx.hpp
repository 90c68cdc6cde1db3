// ushmem transport: everything that calls UCX. The core drives it through these functions and
// the few inline data-path calls below; it never includes <ucp/api/ucp.h> itself for anything
// but the handle types.
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <signal.h>
#include <string>
#include <vector>

namespace ushmem::transport {

struct memory {
    ucp_mem_h memh = nullptr;
    void *address = nullptr;
    std::size_t length = 0;
    bool allocated = false;  // UCX allocated it (true one-sided access on the node)
};

struct lanes_info {
    bool has_shared_memory_rma = false;  // sysv/posix: one-sided on the node
    bool has_network_rdma = false;       // rc/dc/...: one-sided across nodes
    std::string resources;               // transport names, for SHMEM_INFO
};

// ---- who drives the main worker -------------------------------------------------------------
// The main worker is created SINGLE (one thread only) unless a progress thread shares it; then it
// is SERIALIZED (MULTI under SHMEM_THREAD_MULTIPLE) and every call into it, from the PE's threads
// and from the progress thread, holds `main_lock`. Our own lock rather than UCX's MULTI mode: it
// spins before it sleeps (the holder's critical section is one UCX call, a microsecond over tcp),
// where UCX's mutex puts a contender to sleep at once, and the progress thread can try it without
// blocking. Everything that calls into a worker goes through this header, so nothing can forget
// the lock; SINGLE workers (no progress thread) pay one predictable branch.
class worker_lock {
public:
    void lock() {
        int free = 0;
        if (__builtin_expect(!word_.compare_exchange_strong(free, 1, std::memory_order_acquire,
                                                            std::memory_order_relaxed), 0))
            lock_slow();
    }
    bool try_lock() {
        int free = 0;
        return word_.compare_exchange_strong(free, 1, std::memory_order_acquire, std::memory_order_relaxed);
    }
    void unlock() {
        if (__builtin_expect(word_.exchange(0, std::memory_order_release) == 2, 0)) wake();
    }

private:
    void lock_slow();
    void wake();
    std::atomic<int> word_{0};  // 0 free, 1 held, 2 held and someone may sleep on it (futex)
};

namespace detail {
inline ucp_worker_h main_worker = nullptr;
inline bool main_shared = false;  // a progress thread shares the main worker: lock around calls
inline worker_lock main_lock;
// Threads of the PE share the main worker (SHMEM_THREAD_MULTIPLE): one thread's progress may serve
// what another sleeps for (signal_pollers).
inline bool main_multi = false;
// A PE that issues operations on the shared main worker: counted, once on the way in and once on
// the way out (odd: inside a call, which over tcp sends a large put before it returns, for
// hundreds of microseconds), and asked by the progress thread to progress the worker itself
// (serve()). Its own cache line: the PE writes `n` on every operation and reads `asked`; the
// thread reads `n` and writes `asked` once per look.
struct alignas(64) issue_state {
    std::atomic<unsigned> n{0};
    std::atomic<bool> asked{false};
};
inline issue_state pe_issue;
} // namespace detail

// The UCX context; lanes() is known after it.
bool init(std::string &err);
// The main worker. `thread_multiple`: thread mode MULTI (SHMEM_THREAD_MULTIPLE: the program's
// threads call UCX at once); else SERIALIZED when a progress thread will share it
// (share_main_worker() was called), else SINGLE.
bool create_worker(bool thread_multiple, std::string &err);
void finalize();  // worker and context; everything else must already be released
// A further worker on the same UCX context, for a communication context that needs its own
// completion (core::context_lanes). Not driven by the progress thread. `acks_done`: one counter
// per PE, to which the acknowledgements of its messages add, whichever way they come (ack_reply
// on this worker; ack_owed tagged with `stream`, which this sets: 1 to 2^24 - 1, or 0 when none is
// left, then every message asks for ack_reply). destroy_extra_worker ends the stream first:
// acknowledgements that come later are dropped.
ucp_worker_h create_extra_worker(bool multi_thread, std::atomic<std::uint64_t> *acks_done, std::uint32_t &stream,
                                 std::string &err);
void destroy_extra_worker(ucp_worker_h w, std::uint32_t stream);
ucp_context_h context();
inline ucp_worker_h worker() { return detail::main_worker; }
const lanes_info &lanes();

std::vector<std::uint8_t> worker_address();

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
using peer_failure_handler = void (*)(int peer_id, ucs_status_t status);
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

// Holds the main worker's lock for its scope when `w` is the main worker and it is shared.
class drive {
public:
    explicit drive(ucp_worker_h w) : on_(__builtin_expect(detail::main_shared, 0) && w == detail::main_worker) {
        if (on_) detail::main_lock.lock();
    }
    ~drive() {
        if (on_) detail::main_lock.unlock();
    }
    drive(const drive &) = delete;
    drive &operator=(const drive &) = delete;

protected:
    bool on_;
};

// An operation issued on the main worker, counted when the worker is shared (detail::pe_issue).
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
        detail::pe_issue.n.store(detail::pe_issue.n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
};
// The progress thread found the PE issuing and asked it to progress the worker itself, so that it
// goes on serving its peers while it streams operations and the thread can stay parked (serve()).
void answer_progress_ask();
// Every operation the core issues on a worker: `call` (the UCX call) under the worker's lock,
// counted, then the thread's ask answered, once the lock is released (the answer progresses under
// it). One load per operation; the ask comes at most once per look of the thread.
template <class Call> void *issue_op(ucp_worker_h w, Call call) {
    void *r;
    {
        issue d(w);
        r = call();
    }
    if (__builtin_expect(detail::pe_issue.asked.load(std::memory_order_relaxed), 0)) answer_progress_ask();
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
// ---- signals as active messages ----------------------------------------------------------------
// Where a peer's RMA and atomics are emulated (UCX_TLS=tcp: the target's CPU executes them from
// active messages), a put followed by a remote add costs a fence and an atomic whose reply the
// target must send: three messages on the critical path where one suffices. A signal message
// carries the data and the signal together; the target's handler (installed by the core) stores
// the data and then updates the signal word, in that order. No reply: completion is the endpoint's
// flush, as for any put. `op`: what the handler does to the signal word.
constexpr unsigned signal_am_id = 17;
// pack: no signal; the data is a put pack (util/put_pack.hpp), many puts in one message.
enum class signal_op : std::uint8_t { add = 0, set = 1, pack = 2 };
struct signal_header {
    std::uint64_t data_addr = 0;  // target address of the data (ignored when there is none)
    std::uint64_t sig_addr = 0;   // target address of the 64-bit signal word; 0: no signal
    std::uint64_t value = 0;
    signal_op op = signal_op::add;
    // Acknowledgements carried along (signal_nbx): this many more of the messages that the
    // receiver sent from its main worker to PE `from` are stored there. Filled in by signal_nbx,
    // never by its caller.
    std::uint32_t acks : 24 = 0;
    // 0: the data is stored contiguously at data_addr. Otherwise it is elements of `elem` bytes,
    // stored dst_stride bytes apart from data_addr on: a strided put over an emulated transport
    // in one message, where puts would cost a message (and a system call each side) per element.
    std::uint32_t elem = 0;
    std::uint64_t dst_stride = 0;
    // Non-zero (ack_owed, ack_reply, ack_lazy): once the handler has run, the target acknowledges it to
    // PE `from` (ack_am_id). Waiting for the acknowledgements of the messages sent to a PE
    // completes them, in place of an endpoint flush, which over an emulated transport is a
    // request and a reply of its own (4 messages per put + quiet with UCX's puts, 2 this way).
    std::uint32_t ack = 0;
    std::uint32_t from = 0;  // the sender's PE (with ack or acks)
};
// 48 bytes: ushmem's messages up to small_message_max (ucx.cpp) are sent whole, header included,
// and the tests' sizes around that limit (mpi_tests/signal.c) count on it.
static_assert(sizeof(signal_header) == 48, "signal_header is 48 bytes");
// Runs in the progress of the main worker (the PE's or the progress thread's) for each message.
using signal_handler = void (*)(const signal_header &h, const void *data, std::size_t n);
void set_signal_handler(signal_handler h);  // before create_worker()
// Acknowledgements. A message that asks for one is acknowledged once its handler has run, but
// not from inside the handler: the target owes it until the progress call that ran the handler
// returns, and then sends one acknowledgement per sender for all the messages of that call, which
// carries their number. A stream of small puts over tcp costs the target a send (and the sender a
// receive) per batch the target finds, not per put. It goes out through the target's own endpoint
// to the sender (`endpoint_of`, from the core, which creates it when the target had none): UCX's
// reply endpoint may be one UCX destroys inside that same progress call (a sender that died), and
// a message sent without UCX's reply flag is a plain short message, one copy and one send.
// `me`: this PE's rank, which its acknowledgements carry; `receive(from, n)` runs on the sender in
// progress of its main worker. `npes`: the PEs a message may come from.
// signal_header::ack: the kind in its low 8 bits. ack_owed: owed, then sent as above, to the
// sender's main worker, which adds it to the counts of stream `ack >> 8`: 0 for its own, else a
// context's own worker's (create_extra_worker). A context's own worker is not the one peers
// connect to, so its acknowledgements travel to the main worker too, batched the same way; the
// handler there adds them to the context's counts and signals its worker, on whose fd the
// context's waits sleep (own_wait_scope). ack_reply (sent with UCX's reply flag): the target
// answers at once, from inside the handler, on UCX's reply endpoint (valid there), so the answer
// shares the message's connection; it arrives on the sending worker, which adds it to the counts
// given at its creation. The core asks for it for a context's first message to a PE after a
// completion (a put + quiet), and where no stream is left.
// ack_lazy (put_signal's and signal updates' messages to the main worker): owed as ack_owed, but
// the progress call that ran the handler does not send it; the next one does (on any thread), or
// before that a message this PE sends to the sender carries it (signal_header::acks), all the
// owed ones of that PE with it. A signal's receiver usually waits for it and answers at once: a
// ping-pong of put_signal over tcp sent an acknowledgement before every answer, a system call on
// the critical path of each leg (one way 20.4-21.2 us against 6.9-8.4 without, 2 PEs, one node).
constexpr std::uint32_t ack_owed = 1, ack_reply = 2, ack_lazy = 3;
constexpr unsigned ack_am_id = 20;
using ack_receiver = void (*)(std::uint32_t from, std::uint32_t n);
void set_ack_handler(ack_receiver receive, std::uint32_t me, std::uint32_t npes);  // before create_worker()
// The endpoint to PE `pe` for its acknowledgements. Until it is set (init, before the core's peers
// exist) acknowledgements stay owed; after stop_acks() (finalize, before the endpoints close: no
// PE waits for one any more) they are dropped.
using ack_endpoint = ucp_ep_h (*)(std::uint32_t pe);
void set_ack_endpoint(ack_endpoint endpoint_of);
void stop_acks();
// Sends what the last progress calls' handlers owe (ack_lazy: what was owed before the last call).
void send_owed_acks();
namespace detail {
inline std::atomic<bool> acks_owed{false};  // some are owed, lazy ones included
}
// After every progress of the main worker, outside its lock (endpoint_of may create an endpoint,
// which takes it): one load when nothing is owed.
inline void settle_acks() {
    if (__builtin_expect(detail::acks_owed.load(std::memory_order_relaxed), 0)) send_owed_acks();
}
// Sends one signal message, fire and forget: header and data are copied first (data the caller
// lends excepted, below), so the caller never waits for the message to leave (a peer that is
// stopped, or that has not yet accepted the connection, would otherwise block the sender).
// Completion through flush, or through the acknowledgement (hdr.ack); errors through
// take_async_error. nullptr, or UCX's description of why it could not be issued.
// src_stride (strided messages, hdr.elem != 0): the n bytes are n / hdr.elem elements, src_stride
// bytes apart in `data`, packed into the message; 0: contiguous.
// `w`: the worker of `ep` (the main one, or a context's own). `to`: the PE `ep` leads to; the
// acknowledgements owed to it go along (signal_header::acks).
// `lend`: the caller keeps `data` as it is until the message is acknowledged (a put_nbi's source,
// which the program may not change before its quiet): large contiguous data is then sent from
// there, not copied.
const char *signal_nbx(ucp_worker_h w, ucp_ep_h ep, std::uint32_t to, const signal_header &hdr, const void *data,
                       std::size_t n, std::size_t src_stride = 0, bool lend = false);
// Bytes of signal messages to PE `pe` (header, data and this PE's bookkeeping) that UCX has not
// sent yet, whose copies this PE holds: the memory a target that stops reading costs its senders.
namespace detail {
inline std::atomic<std::int64_t> *held = nullptr;  // per PE (set_ack_handler sizes it)
}
inline std::int64_t held_bytes(std::uint32_t pe) {
    return detail::held ? detail::held[pe].load(std::memory_order_acquire) : 0;
}
// Large data in one signal message, by UCX's rendezvous (the core uses it from USHMEM_BULK_MIN).
// Over tcp an eager message of more than UCX's fragment (64 KiB) is reassembled on the receiver
// and then copied into place: two copies of every byte there on top of the kernel's, and one on
// the sender into the message. In a rendezvous the receiver names the destination first
// (ucp_am_recv_data_nbx): over tcp UCX 1.13 then sends the data as fragments of up to 64 KiB
// from where it is (no copy on the sender), which the receiver copies into place as each arrives
// (one copy). The handshake (request to send, ready to receive) costs a round trip, so it pays
// only on large transfers. The header, the signal and the acknowledgement are those of
// signal_nbx: the handler stores nothing until every byte is in, then updates the signal word
// and owes the acknowledgement (never ack_reply: UCX's reply endpoint exists only inside the
// handler, which runs when the request to send arrives). Returns the request, which the caller
// waits for (core::await_request, which frees it): the data is then out of `data` and handed to
// the transport ahead of anything the caller sends to that PE afterwards, over one lane (one eager
// rail: bulk_ordered()), so the receiver stores it first. Until then the caller keeps `data`
// unchanged and `hdr` alive (UCX reads it until completion; this fills in its `acks`). nullptr
// when it completed at once; an error pointer when it could not be issued.
void *bulk_nbx(ucp_worker_h w, ucp_ep_h ep, std::uint32_t to, signal_header &hdr, const void *data, std::size_t n);
// Target side: whether [addr, addr + n) lies in this PE's symmetric segments (installed by the core
// before create_worker()): a bulk message's destination is checked before anything is received.
using bulk_checker = bool (*)(std::uint64_t addr, std::size_t n);
void set_bulk_checker(bulk_checker check);
// Whether bulk messages keep their order (one eager rail; after init()).
bool bulk_ordered();
// ---- strided gets as active messages -------------------------------------------------------------
// Where a peer's RMA is emulated, a strided get (iget, ibget) costs a request and a reply message
// per element (64 longs over tcp: 0.4 ms). One request names the elements instead; the target's
// handler packs them into one reply, whose handler (on the initiator) unpacks them. Fire and
// forget on both sides: the initiator's core waits for its reply handler to have run.
constexpr unsigned gather_am_id = 18, gather_reply_am_id = 19;
// The same request and reply carry batches of small get_nbi's (elem 0): the request's data then
// lists them (the core's format) and src_stride states the reply's size.
struct gather_header {
    std::uint64_t src_addr;    // first element on the target
    std::uint64_t src_stride;  // bytes from one element to the next there (elem 0: the reply's bytes)
    std::uint64_t cookie;      // the initiator's, sent back with the reply
    std::uint32_t elem;        // bytes per element (0: a list in the request's data)
    std::uint32_t count;       // elements
};
// The reply's size in bytes.
inline std::size_t gather_reply_bytes(const gather_header &h) {
    return h.elem ? std::size_t(h.elem) * h.count : std::size_t(h.src_stride);
}
// Target side: checks the ranges and packs gather_reply_bytes(h) bytes into `out` (installed by
// the core). `data`, n: the request's data.
using gather_packer = void (*)(const gather_header &h, const void *data, std::size_t n, void *out);
// Initiator side: the reply to `cookie`, n bytes packed.
using gather_receiver = void (*)(std::uint64_t cookie, const void *data, std::size_t n);
void set_gather_handlers(gather_packer pack, gather_receiver receive);  // before create_worker()
// A fault for the tests (USHMEM_TEST_FAULT=short_get_replies): replies to get batches (elem 0) go
// one byte short, so that a test sees the initiator notice it.
void inject_short_batch_replies();
// A fault for the tests (USHMEM_TEST_FAULT=reject_bulk): this PE takes every bulk message for one
// outside its segments, so that a test sees the sender's transfer fail, naming this PE.
void inject_rejected_bulk();
// Sends a request with n bytes of data (the reply comes to this worker's handler). nullptr, or why
// it could not be sent.
const char *gather_nbx(ucp_worker_h w, ucp_ep_h ep, const gather_header &h, const void *data = nullptr,
                       std::size_t n = 0);
inline void *ep_flush_nbx(ucp_worker_h w, ucp_ep_h ep, const ucp_request_param_t *prm) {
    drive d(w);
    return ucp_ep_flush_nbx(ep, prm);
}
inline void *worker_flush_nbx(ucp_worker_h w, const ucp_request_param_t *prm) {
    drive d(w);
    return ucp_worker_flush_nbx(w, prm);
}
// A request's status can be read without the lock (UCX reads one field); freeing it cannot.
inline ucs_status_t request_status(void *request) { return ucp_request_check_status(request); }
inline void request_free(ucp_worker_h w, void *request) {
    drive d(w);
    ucp_request_free(request);
}
// UCX's report of an endpoint's lanes (ushmem-info).
void print_ep_info(ucp_ep_h ep, FILE *f);

// Progress and completion. The forms with a worker drive that worker (a context's own) and the
// main one.
unsigned progress_shared();  // the main worker, under its lock; counted (serve()); no settle_acks
// After a progress call that served events at SHMEM_THREAD_MULTIPLE: runs the served hook (the
// core's wake word), then rouse_event_sleepers(); events this thread just served may be what
// another thread of the PE waits for.
void signal_pollers_slow();
// Wakes the threads of the PE about to sleep or asleep for events (sleep_for_events), if any: the
// sequence's sleepers, and the fd's watcher through ucp_worker_signal.
void rouse_event_sleepers();
// At SHMEM_THREAD_MULTIPLE, called after every progress call of a thread of the PE that served
// events: wakes the PE's threads asleep elsewhere than on the fd (the core's wake word).
void set_served_hook(bool (*hook)());
inline void signal_pollers(unsigned served) {
    if (__builtin_expect(detail::main_multi, 0) && served) signal_pollers_slow();
}
// The main worker's progress, without sending what its handlers owe (progress() does).
inline unsigned progress_main() {
    if (__builtin_expect(detail::main_shared, 0)) return progress_shared();
    const unsigned n = ucp_worker_progress(detail::main_worker);
    signal_pollers(n);
    return n;
}
inline unsigned progress() {
    const unsigned n = progress_main();
    settle_acks();
    return n;
}
// The acknowledgements owed now become lazy ones owed by this progress call (ack_lazy): the next
// call sends them, or a message to their PE before it carries them.
void defer_owed_acks();
// Whether acknowledgements may be held lazily (ack_lazy, progress_answering): only where every PE
// has a progress thread, which sends them once its PE has left the library (set at init).
void allow_lazy_acks(bool on);
namespace detail {
inline bool lazy_acks = false;
}
// progress() for a wait on data that a peer's message may bring (wait_until, signal_wait_until):
// when `satisfied()` holds after the call, the acknowledgements that its messages owe are
// deferred (defer_owed_acks), and the result is true. The waiting PE is about to answer, usually
// to the PE whose message it awaited, and the answer carries them: a put + fence + flag put
// ping-pong over tcp otherwise sent an acknowledgement ahead of every answer.
template <class Cond> inline bool progress_answering(Cond satisfied) {
    if (!detail::lazy_acks) {
        progress();
        return satisfied();
    }
    if (progress_main() && satisfied()) {
        if (detail::acks_owed.load(std::memory_order_relaxed)) defer_owed_acks();
        return true;
    }
    settle_acks();
    return false;
}
unsigned progress_both(ucp_worker_h w);
inline unsigned progress_worker(ucp_worker_h w) {  // that worker alone
    unsigned n;
    {
        drive d(w);
        n = ucp_worker_progress(w);
    }
    settle_acks();
    return n;
}
// Wait for a request returned by a *_nbx call (not NULL, not an error), then free it. For the
// transport's own housekeeping (closing endpoints); the core's waits go through core::await_requests,
// which bounds them (USHMEM_WAIT_TIMEOUT) and says what they wait for.
ucs_status_t wait(void *request, ucp_worker_h w);
inline ucs_status_t wait(void *request) { return wait(request, worker()); }
inline void fence(ucp_worker_h w) {
    drive d(w);
    ucp_worker_fence(w);
}
inline void fence() { fence(worker()); }

// ---- the progress thread's side ------------------------------------------------------------
// Serves the main worker until `stop` is set and stop_serving() is called: progresses while there
// is work (polling `spin_ns` more after the last event: 50 us with a core of its own, 30 us on the
// PE's), then arms the worker's wakeup fd and sleeps in poll() until UCX has something for it: a
// message that arrives while the PE computes wakes it at once. While the PE drives the worker
// itself (it waits in the library: its progress() calls are counted), the thread stays out of its
// way, parked, and takes over once the PE has not progressed for `handoff_ns`: otherwise every
// message of a communication loop would wake a thread that has nothing to do but preempt the PE
// (the PE's core is usually the only one it can run on). Requires share_main_worker().
// `on_events` (may be null) runs after every progress call that found work: the core wakes a PE
// blocked in a wait there (core/wait.cpp), since it is the thread that sees the network's messages.
// It returns whether it woke a thread of the PE (which then wants the CPU: no poll after it).
// `held_work` (may be null) runs at every look of the thread, parked or about to sleep: the core
// sends what its PE holds back while it computes (put packs), and returns within how many ns it
// wants the next look (0: nothing held), which then bounds the park and the sleep; `sent` tells
// that it issued operations itself (they moved the PE's issue count).
void serve(const std::atomic<bool> &stop, long spin_ns, long handoff_ns, bool (*on_events)(),
           long (*held_work)(bool &sent));
void stop_serving();  // wakes serve() (ucp_worker_signal) so that it sees `stop`
// Something held back for the progress thread to send was added while the thread may be asleep
// on the worker's events (waiting for the next message): it is woken to park instead, and so
// looks at it (held_work). A full fence and one load when the thread is not asleep there; called
// when the first pack opens, not per put.
void rouse_server();
// The PE is about to block in a wait (not progressing): the progress thread must not stay parked
// for its hand-off period, or the messages the PE waits for would sit unread until it ends.
// Cleared by the PE's next progress call.
void pe_blocking();
// For a PE that drives the main worker itself (no progress thread): sleep up to `ns` until UCX has
// something for the worker (its wakeup fd), so a message from the network ends the sleep at once
// instead of at the end of a slice. Returns at once when events are already pending.
// Between pe_polling(true) and pe_polling(false) the PE is about to sleep or sleeps there: the
// progress thread stays parked, and if it serves a message meanwhile it signals the worker
// (ucp_worker_signal), so that the PE's sleep ends: a condition that the thread's progress made
// true after the PE last looked would otherwise go unseen until the sleep's bound. Set it before
// the last look at the condition (both sides fence: one of them sees the other).
// `during`: the signal mask while asleep (the caller's own, when it holds signals around its
// UCX calls), or null for the current one.
// Returns whether it ended for events (or found them pending), false when the bound passed or a
// signal interrupted it.
bool sleep_for_events(long ns, const sigset_t *during);
// A wait of the calling thread on a context's own worker (its completions, replies and
// acknowledgements arrive there, and no progress thread watches it): while one is in scope, the
// waits' sleeps also end for that worker's events (sleep_for_events, sleep_for_own_events),
// instead of at their bound. No-op for the main worker.
class own_wait_scope {
public:
    explicit own_wait_scope(ucp_worker_h w);
    ~own_wait_scope();
    own_wait_scope(const own_wait_scope &) = delete;
    own_wait_scope &operator=(const own_wait_scope &) = delete;

private:
    ucp_worker_h prev_;
    bool set_;
};
bool in_own_wait();  // an own_wait_scope of this thread is open
// Sleeps until the scope's worker has events, `ns` passed or a signal came (as sleep_for_events,
// where the main worker's events are not this sleep's business: the progress thread serves them).
bool sleep_for_own_events(long ns, const sigset_t *during);
void pe_polling(bool on);
// Between pe_waiting(true) and pe_waiting(false) a thread of the PE is in the slow part of a
// library wait (past its spin: yielding or sleeping), which progresses the main worker whenever it
// runs: the progress thread stays parked even when the PE's progress count stands still. With more
// threads than CPUs the PE is often runnable but not running for a slice; taking over then (the
// thread's wake-up, the PE's kick that sends it back, the worker lock passed between them) serves
// nothing the PE would not serve when it next runs (docs/architecture.md has the figures).
// Counted: several threads of the PE may wait at once.
void pe_waiting(bool on);
// From now on a progress thread shares the main worker: calls into it take its lock. (The context
// always has UCP_FEATURE_WAKEUP: it costs two file descriptors per worker and nothing on the data
// path, since only armed interfaces make senders signal.)
void share_main_worker();

// The callback for fire-and-forget requests (nbi operations): completion is observed through
// endpoint or worker flush, so the callback only records an error and frees the request.
void nbi_completion(void *request, ucs_status_t status, void *user_data);
// First error reported by a fire-and-forget request, UCS_OK if none.
ucs_status_t take_async_error();

} // namespace ushmem::transport
