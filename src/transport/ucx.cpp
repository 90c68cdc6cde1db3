#include "transport/ucx.hpp"

#include "util/strided.hpp"
#include "util/text.hpp"

#include <linux/futex.h>
#include <memory>
#include <pthread.h>
#include <signal.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>

#include <cstdio>
#include <cstdlib>
#include <cinttypes>
#include <cstring>
#include <mutex>

#include <ucs/debug/log_def.h>

namespace ushmem::transport {

namespace {
ucp_context_h g_context = nullptr;
bool g_bulk_ordered = false;  // bulk_ordered()
ucp_worker_h &g_worker = detail::main_worker;
// The main worker's wakeup fd: -2 not fetched yet (main_efd), -1 none. Reset with the worker.
std::atomic<int> g_main_efd{-2};
lanes_info g_lanes;
// Written by completion callbacks, which run on whichever thread progresses a worker (contexts
// with their own worker may be driven by several threads at once).
std::atomic<ucs_status_t> g_async_error{UCS_OK};

// UCX prints its resources to a FILE; read them back (util::parse_ucx_resources) to learn which
// transports can do RMA one-sidedly. Only sysv/posix (on the node) and RDMA transports (across
// nodes) can: with tcp alone UCX emulates RMA with active messages that the target must progress.
void inspect_lanes() {
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    ucp_context_print_info(g_context, f);
    fclose(f);
    util::ucx_resources r = util::parse_ucx_resources(std::string_view(buf, len));
    free(buf);
    g_lanes.has_shared_memory_rma = r.shared_memory_rma;
    g_lanes.has_network_rdma = r.network_rdma;
    g_lanes.resources = r.names;
}
} // namespace

namespace {
// ---- small messages as one contiguous send -------------------------------------------------
// UCX sends a contiguous active message that fits its "short" limit (with 256 KiB segments, every
// message up to 256 KiB) through uct_ep_am_short_iov, which over tcp is always a sendmsg() of 3 or
// 4 pieces: its header, ours, the data. One send() of a buffer costs the kernel less: loopback TCP
// ping-pong of 69-byte messages on the project's VM, 9.5-9.7 us per round trip with send(), 10.3-10.5
// with sendmsg() of 4 pieces. Through UCX's "bcopy" path a message is copied into the
// endpoint's segment and leaves in one send(), and that path is the one a generic datatype takes
// (never the short one, never zero-copy). So messages up to small_message_max bytes go with
// g_bytes_dt below; larger ones keep the short path's zero-copy sendmsg, which saves copying them
// (UCX's own am_short switches the same way at its UCX_TCP_SENDV_THRESH, 2 KiB). 2 PEs over tcp,
// an 8 B broadcast between barriers, 5 alternating runs: the root's call 5.80-6.01 us against
// 5.99-6.11, the barrier 8.54-8.79 against 8.66-9.02.
constexpr std::size_t small_message_max = 2048;
// Where a message's bytes are: at the end of its allocation (message_alloc), so that it lives
// until UCX has sent the message and called back (or returned at once).
struct packed_bytes {
    const char *p;
    std::size_t n;
};
void *bytes_start_pack(void *, const void *buffer, size_t) { return const_cast<void *>(buffer); }
size_t bytes_packed_size(void *state) { return static_cast<packed_bytes *>(state)->n; }
size_t bytes_pack(void *state, size_t offset, void *dest, size_t max_length) {
    const auto &b = *static_cast<packed_bytes *>(state);
    const std::size_t k = std::min(max_length, b.n - offset);
    std::memcpy(dest, b.p + offset, k);
    return k;
}
void bytes_finish(void *) {}
// Never received into: ushmem's handlers read their messages from UCX's buffers.
void *bytes_start_unpack(void *, void *, size_t) { return nullptr; }
ucs_status_t bytes_unpack(void *, size_t, const void *, size_t) { return UCS_ERR_UNSUPPORTED; }
ucp_datatype_t g_bytes_dt = 0;  // created by init(), destroyed by finalize()

std::size_t packed_offset(std::size_t bytes) {
    return (bytes + alignof(packed_bytes) - 1) / alignof(packed_bytes) * alignof(packed_bytes);
}
// The buffer of one of ushmem's own messages: `bytes` of header and data, then room for their
// packed_bytes. Freed with std::free.
void *message_alloc(std::size_t bytes) { return std::malloc(packed_offset(bytes) + sizeof(packed_bytes)); }
} // namespace

bool init(std::string &err) {
    ucp_config_t *config = nullptr;
    ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
    if (st != UCS_OK) {
        err = std::string("ucp_config_read: ") + ucs_status_string(st);
        return false;
    }
    // A worker in MULTI thread mode (SHMEM_THREAD_MULTIPLE, or a progress thread) is guarded by a
    // spinlock by default. With more threads than cores (a progress thread per PE, PEs sharing
    // cores) a thread preempted while holding it makes the others spin for a whole time slice: a
    // barrier over UCX_TLS=tcp at 4 PEs on 2 cores took ~4 ms instead of ~0.15 ms. A mutex puts
    // them to sleep instead. (SINGLE workers take no lock; the user's UCX_USE_MT_MUTEX wins.)
    if (!std::getenv("UCX_USE_MT_MUTEX")) ucp_config_modify(config, "USE_MT_MUTEX", "y");
    // Over tcp, RMA is emulated with active messages that UCX copies through its own segments, and
    // each segment is a send and a receive: with the default 8 KiB, a 1 MiB put moved 1.2 GB/s on
    // loopback (raw UCX, this machine) and large collectives trailed Open MPI's tcp BTL 4-25x;
    // 256 KiB segments moved 4.8 GB/s (ucx_perftest ucp_put_bw; 8 B latency unchanged). The
    // buffers come from per-interface pools (8 segments per growth step), not per endpoint.
    // The user's UCX_TCP_TX_SEG_SIZE / UCX_TCP_RX_SEG_SIZE win.
    if (!std::getenv("UCX_TCP_TX_SEG_SIZE")) ucp_config_modify(config, "TX_SEG_SIZE", "256k");
    if (!std::getenv("UCX_TCP_RX_SEG_SIZE")) ucp_config_modify(config, "RX_SEG_SIZE", "256k");
    // What ucp_mem_map(ALLOCATE) may fall back to when System V refuses a segment (the heap, the
    // static data): UCX's default list goes on to its posix transport, which creates a file in
    // /dev/shm and writes the whole size into it, 64 KiB at a time, to test that it fits: minutes
    // for a large heap, all of it committed, and the file stays behind if the job is killed
    // meanwhile (and when /dev/shm is smaller, it is filled before the allocation fails). Without
    // it (and without md:*, which names posix too) UCX goes on to private huge pages, THP and
    // anonymous memory instead, which leave nothing behind. The user's UCX_ALLOC_PRIO wins.
    if (!std::getenv("UCX_ALLOC_PRIO")) ucp_config_modify(config, "ALLOC_PRIO", "md:sysv,huge,thp,mmap,heap");
    // Bulk messages (bulk_nbx) are ordered with what follows them only if their fragments share
    // the active-message lane: more eager rails (UCX_MAX_EAGER_RAILS, 1 by default in 1.13) would
    // spread them over other connections, so the core does not use them then.
    const char *rails = std::getenv("UCX_MAX_EAGER_RAILS");
    g_bulk_ordered = !rails || std::strcmp(rails, "1") == 0;
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    // WAKEUP: the progress thread sleeps on the worker's event fd (serve()).
    // AM: signal messages (signal_nbx), where RMA is emulated anyway.
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP | UCP_FEATURE_AM;
    // Contexts created by the program may give threads their own workers on this UCX context.
    params.mt_workers_shared = 1;
    st = ucp_init(&params, config, &g_context);
    ucp_config_release(config);
    if (st != UCS_OK) {
        err = std::string("ucp_init: ") + ucs_status_string(st);
        return false;
    }
    static const ucp_generic_dt_ops_t bytes_ops = {bytes_start_pack, bytes_start_unpack, bytes_packed_size,
                                                   bytes_pack, bytes_unpack, bytes_finish};
    // Without it, small messages take UCX's short path (above): slower, still correct.
    if (ucp_dt_create_generic(&bytes_ops, nullptr, &g_bytes_dt) != UCS_OK) g_bytes_dt = 0;
    inspect_lanes();
    return true;
}

namespace {
ucp_worker_h new_worker(ucs_thread_mode_t mode, std::string &err) {
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = mode;
    ucp_worker_h w = nullptr;
    ucs_status_t st = ucp_worker_create(g_context, &wp, &w);
    if (st != UCS_OK) {
        err = std::string("ucp_worker_create: ") + ucs_status_string(st) +
              " (if UCX_SYSV_HUGETLB_MODE=y is set, the huge page pool may be empty)";
        return nullptr;
    }
    return w;
}

signal_handler g_signal_handler = nullptr;
ack_receiver g_ack_receive = nullptr;
std::uint32_t g_ack_me = 0;
thread_local ucp_worker_h t_own_wait = nullptr;  // own_wait_scope
void owe_ack(std::uint32_t pe, std::uint32_t stream, bool lazy);  // below, with the other replies
void ack_now(const ucp_am_recv_param_t *param);

bulk_checker g_bulk_check = nullptr;
bool g_reject_bulk = false;  // inject_rejected_bulk()

// A bulk message's data is in (bulk_nbx): its signal and acknowledgement, as for an eager one. Runs
// inside the progress call that completed the receive, so what it owes leaves as a handler's does.
void bulk_landed(void *request, ucs_status_t status, size_t, void *user_data) {
    auto *h = static_cast<signal_header *>(user_data);
    if (status == UCS_OK) {
        g_signal_handler(*h, nullptr, 0);  // (no data: the signal alone; elem is 0, checked on arrival)
        const std::uint32_t kind = h->ack & 0xff;
        if (kind) owe_ack(h->from, h->ack >> 8, kind == ack_lazy);
    } else {
        // The sender is gone (its peer-failure handler ends the job) or the receive was cancelled at
        // finalize: the data is incomplete, so the signal is not given.
        std::fprintf(stderr, "ushmem: receiving a bulk message for [%#" PRIx64 ", ...) failed: %s\n", h->data_addr,
                     ucs_status_string(status));
    }
    std::free(h);
    ucp_request_free(request);
}

// `arg`: the worker it arrived on (bulk messages need it to receive their data).
ucs_status_t on_signal_message(void *arg, const void *header, size_t header_length, void *data, size_t length,
                               const ucp_am_recv_param_t *param) {
    // A malformed message is a bug of ours, not the program's: it is dropped loudly rather than
    // written anywhere.
    const bool rndv = param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV;
    if (header_length != sizeof(signal_header) || !g_signal_handler) {
        std::fprintf(stderr, "ushmem: internal error: malformed signal message (header %zu bytes, rndv %d)\n",
                     header_length, rndv ? 1 : 0);
        return UCS_OK;
    }
    signal_header h;
    std::memcpy(&h, header, sizeof h);
    if (h.acks && g_ack_receive) g_ack_receive(h.from, h.acks);  // (which checks `from`)
    const std::uint32_t kind = h.ack & 0xff;
    if (rndv) {  // bulk_nbx: the data is still at the sender; it lands in place, then bulk_landed
        // A bulk message this PE does not take is refused with a status, not only dropped: UCX
        // returns it to the sender in the rendezvous's answer (ATS), whose request then fails and
        // ends the job naming this PE, where an answer of UCS_OK would complete the sender's
        // transfer and leave its quiet waiting for an acknowledgement that never comes.
        if (h.elem || h.op == signal_op::pack || kind == ack_reply || !g_bulk_check || !arg ||
            __builtin_expect(g_reject_bulk, 0) || !g_bulk_check(h.data_addr, length)) {
            std::fprintf(stderr, "ushmem: internal error: a bulk message from PE %u for [%#" PRIx64 ", +%zu) is "
                                 "malformed or lies outside this PE's symmetric segments; refused\n",
                         h.from, h.data_addr, length);
            return UCS_ERR_INVALID_ADDR;  // (UCX releases the rendezvous's descriptor)
        }
        auto *keep = static_cast<signal_header *>(std::malloc(sizeof h));
        if (!keep) {
            std::fprintf(stderr, "ushmem: out of memory for a bulk message from PE %u; refused\n", h.from);
            return UCS_ERR_NO_MEMORY;
        }
        *keep = h;
        ucp_request_param_t prm;
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMORY_TYPE |
                           UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
        prm.cb.recv_am = bulk_landed;
        prm.user_data = keep;
        prm.memory_type = UCS_MEMORY_TYPE_HOST;
        // Inside the worker's progress (its lock, if shared, is held): UCX allows this here.
        void *r = ucp_am_recv_data_nbx(static_cast<ucp_worker_h>(arg), data, reinterpret_cast<void *>(h.data_addr),
                                       length, &prm);
        if (UCS_PTR_IS_ERR(r)) {
            std::fprintf(stderr, "ushmem: receiving a bulk message of %zu bytes from PE %u failed: %s\n", length,
                         h.from, ucs_status_string(UCS_PTR_STATUS(r)));
            std::free(keep);
            return UCS_PTR_STATUS(r);  // to the sender, as above
        }
        return UCS_INPROGRESS;  // the descriptor is UCX's again once the receive completes
    }
    g_signal_handler(h, data, length);
    if (kind == ack_reply) ack_now(param);
    else if (kind) owe_ack(h.from, h.ack >> 8, kind == ack_lazy);
    return UCS_OK;
}

void signal_sent(void *request, ucs_status_t status, void *copy) {
    std::free(copy);
    nbi_completion(request, status, nullptr);
}

// The bytes of signal messages (signal_nbx) that this PE holds per target PE until UCX has sent
// them (held_bytes): a target that stops reading its socket (SIGSTOP, a debugger) leaves them all
// queued on its endpoint (UCX's pending requests hold the copies), and the core bounds them
// (USHMEM_INFLIGHT_BYTES). Counted before the send, so never below 0 (signed: a wrong count shows
// as such, not as 2^64). Acknowledgements and get requests are not counted (small, and bounded by
// what they answer).
std::unique_ptr<std::atomic<std::int64_t>[]> g_held;
std::uint32_t g_held_n = 0;
// Ahead of such a message's header in its allocation: which counter it is on, and how much.
struct alignas(16) held_tag {
    std::uint32_t pe;
    std::int64_t bytes;
};
void signal_sent_held(void *request, ucs_status_t status, void *owner) {
    const auto *t = static_cast<const held_tag *>(owner);
    g_held[t->pe].fetch_sub(t->bytes, std::memory_order_release);
    signal_sent(request, status, owner);
}
} // namespace



void set_signal_handler(signal_handler h) { g_signal_handler = h; }
namespace {
// The acknowledgements owed (owe_ack, send_owed_acks): a count per sender PE and the list of the
// PEs with a count. The handlers that owe them run under the worker's serialization and the
// senders on any thread that progressed it: a lock of their own, held for a few stores.
struct owed_acks {
    std::atomic_flag lock = ATOMIC_FLAG_INIT;
    std::vector<std::uint32_t> count;  // per PE: its main worker's stream (0)
    std::vector<std::uint32_t> pes;    // the PEs whose count is not 0
    // ack_lazy (main worker's stream): per PE, how many, and the number of the send_owed_acks call
    // during whose progress call the first of them was owed (`calls` then); sent by a later call.
    std::vector<std::uint32_t> lazy;
    std::vector<std::uint64_t> lazy_since;
    std::vector<std::uint32_t> lazy_pes;  // the PEs whose lazy count is not 0
    std::uint64_t calls = 0;
    // Other streams (a context's own worker: create_extra_worker): few at a time, searched.
    struct stream_count {
        std::uint32_t pe, stream, n;
    };
    std::vector<stream_count> streams;
    void acquire() {
        while (lock.test_and_set(std::memory_order_acquire)) __builtin_ia32_pause();
    }
    void release() { lock.clear(std::memory_order_release); }
    // Under the lock: owes PE `pe` n more lazily, due after the current progress call.
    void add_lazy(std::uint32_t pe, std::uint32_t n) {
        if (lazy[pe] == 0) {
            lazy_since[pe] = calls;
            lazy_pes.push_back(pe);
        }
        lazy[pe] += n;
    }
    // Under the lock: takes PE `pe`'s lazy count (0 if none).
    std::uint32_t take_lazy(std::uint32_t pe) {
        const std::uint32_t n = lazy[pe];
        if (n) {
            lazy[pe] = 0;
            erase(lazy_pes, pe);
        }
        return n;
    }
    bool none() const { return pes.empty() && streams.empty() && lazy_pes.empty(); }
    static void erase(std::vector<std::uint32_t> &v, std::uint32_t pe) {
        for (std::size_t i = 0; i < v.size(); ++i)
            if (v[i] == pe) {
                v[i] = v.back();
                v.pop_back();
                return;
            }
    }
};
owed_acks g_owed;

// The acknowledgement streams of contexts' own workers (create_extra_worker): stream s is entry
// s - 1. Never reused: an acknowledgement that comes after its context is gone (a quiet that timed
// out, then the context's destruction) finds an empty entry, never another context's counts.
struct ack_stream {
    std::atomic<std::uint64_t> *done;
    ucp_worker_h worker;
};
std::mutex g_streams_lock;
std::vector<ack_stream> g_streams;

// n messages of `stream` from this PE to PE `from` are stored there (main worker's ack handler).
void stream_acked(std::uint32_t stream, std::uint32_t from, std::uint32_t n) {
    std::lock_guard<std::mutex> g(g_streams_lock);
    if (stream - 1 >= g_streams.size()) {
        std::fprintf(stderr, "ushmem: internal error: an acknowledgement for stream %u (%zu known)\n", stream,
                     g_streams.size());
        return;
    }
    const ack_stream &e = g_streams[stream - 1];
    if (!e.done) return;  // its context is gone
    e.done[from].fetch_add(n, std::memory_order_release);
    // The context's thread may sleep on its own worker's fd (own_wait_scope) while another thread
    // (the progress thread) ran this: wake it (thread-safe, and under the lock: the worker lives).
    if (t_own_wait != e.worker) ucp_worker_signal(e.worker);
}
std::uint32_t register_ack_stream(std::atomic<std::uint64_t> *acks_done, ucp_worker_h w) {
    std::lock_guard<std::mutex> g(g_streams_lock);
    if (g_streams.size() >= (1u << 24) - 1) return 0;  // the header's 24 bits are used up
    g_streams.push_back({acks_done, w});
    return std::uint32_t(g_streams.size());
}
void unregister_ack_stream(std::uint32_t stream) {
    std::lock_guard<std::mutex> g(g_streams_lock);
    if (stream && stream - 1 < g_streams.size()) g_streams[stream - 1] = {nullptr, nullptr};
}
std::atomic<ack_endpoint> g_ack_endpoint{nullptr};
std::atomic<bool> g_acks_stopped{false};

// What signal_nbx carries to PE `pe` (signal_header::acks): every acknowledgement owed to it on
// the main worker's stream, lazy or not, taken off the owed ones. 0 when none, or too many for
// the field (then they go as an acknowledgement of their own).
std::uint32_t take_acks_for(std::uint32_t pe) {
    if (__builtin_expect(!detail::acks_owed.load(std::memory_order_relaxed), 1)) return 0;
    if (!g_ack_endpoint.load(std::memory_order_relaxed) || g_acks_stopped.load(std::memory_order_relaxed)) return 0;
    g_owed.acquire();
    std::uint32_t n = 0;
    if (pe < g_owed.count.size() && std::uint64_t(g_owed.count[pe]) + g_owed.lazy[pe] < (1u << 24)) {
        n = g_owed.take_lazy(pe);
        if (g_owed.count[pe]) {
            n += g_owed.count[pe];
            g_owed.count[pe] = 0;
            owed_acks::erase(g_owed.pes, pe);
        }
        if (g_owed.none()) detail::acks_owed.store(false, std::memory_order_relaxed);
    }
    g_owed.release();
    return n;
}
// The acknowledgements owed to PE `to`, carried by a message to it (signal_header::acks, `from`).
void carry_acks(signal_header &h, std::uint32_t to) {
    if (const std::uint32_t acks = take_acks_for(to)) {  // one load when none are owed
        h.acks = acks & ((1u << 24) - 1);
        h.from = g_ack_me;
    }
}
} // namespace

void set_ack_handler(ack_receiver receive, std::uint32_t me, std::uint32_t npes) {
    g_ack_receive = receive;
    g_ack_me = me;
    g_owed.count.assign(npes, 0);
    g_held.reset(new std::atomic<std::int64_t>[npes]());
    g_held_n = npes;
    detail::held = g_held.get();
    g_owed.pes.clear();
    g_owed.pes.reserve(npes);
    g_owed.lazy.assign(npes, 0);
    g_owed.lazy_since.assign(npes, 0);
    g_owed.lazy_pes.clear();
    g_owed.lazy_pes.reserve(npes);
    g_owed.streams.clear();
    g_ack_endpoint.store(nullptr);
    g_acks_stopped.store(false);
}
void set_ack_endpoint(ack_endpoint endpoint_of) {
    g_ack_endpoint.store(endpoint_of);
    detail::acks_owed.store(true);  // what arrived before it goes out at the next progress
}
void stop_acks() { g_acks_stopped.store(true); }
namespace {
// Sends one of ushmem's own messages from `copy` (from message_alloc: a header of `hlen` bytes
// followed by n bytes of data), fire and forget: freed at once when UCX sent it inline or refused
// it, else by `sent`. Eager only: the handler must get the data in the message (a rendezvous would
// need a receive). Returns UCX's answer.
// `borrowed`: the n bytes are there instead, the caller's (large messages only: the short path's
// sendmsg reads them where they are); `copy` then holds the header alone.
// `owner`: the allocation that holds `copy` (freed instead of it, and given to `sent`), when the
// copy does not start it (signal_nbx: a held_tag first).
void *am_send_copy(ucp_ep_h ep, unsigned id, void *copy, std::size_t hlen, std::size_t n, std::uint32_t flags,
                   ucp_send_nbx_callback_t sent, const void *borrowed = nullptr, void *owner = nullptr) {
    if (!owner) owner = copy;
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    prm.flags = UCP_AM_SEND_FLAG_EAGER | flags;
    prm.cb.send = sent;
    prm.user_data = owner;
    const char *data = borrowed ? static_cast<const char *>(borrowed) : static_cast<char *>(copy) + hlen;
    void *r;
    if (!borrowed && hlen + n <= small_message_max && g_bytes_dt) {
        auto *b = reinterpret_cast<packed_bytes *>(static_cast<char *>(copy) + packed_offset(hlen + n));
        *b = packed_bytes{data, n};
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
        prm.datatype = g_bytes_dt;
        r = ucp_am_send_nbx(ep, id, copy, hlen, b, 1, &prm);
    } else {
        r = ucp_am_send_nbx(ep, id, copy, hlen, data, n, &prm);
    }
    if (r == nullptr || UCS_PTR_IS_ERR(r)) std::free(owner);
    return r;
}

gather_packer g_gather_pack = nullptr;
bool g_short_batch_replies = false;  // inject_short_batch_replies()
gather_receiver g_gather_receive = nullptr;

// The reply's buffer (cookie and data) is ours until UCX has sent it; an error (the initiator is
// gone) is the initiator's business, not a failure of this PE's own operations.
void reply_sent(void *request, ucs_status_t, void *copy) {
    std::free(copy);
    ucp_request_free(request);
}

ucs_status_t on_gather_request(void *, const void *header, size_t header_length, void *data, size_t length,
                               const ucp_am_recv_param_t *param) {
    if (header_length != sizeof(gather_header) || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ||
        (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) || !g_gather_pack) {
        std::fprintf(stderr, "ushmem: internal error: malformed get request (header %zu bytes)\n", header_length);
        return UCS_OK;
    }
    gather_header h;
    std::memcpy(&h, header, sizeof h);
    const std::size_t n = gather_reply_bytes(h);
    auto *copy = static_cast<char *>(message_alloc(sizeof h.cookie + n));
    if (!copy) {
        std::fprintf(stderr, "ushmem: out of memory for the reply to a get request (%zu bytes)\n", n);
        return UCS_OK;
    }
    std::memcpy(copy, &h.cookie, sizeof h.cookie);
    g_gather_pack(h, data, length, copy + sizeof h.cookie);
    // Inside the worker's progress (its lock, if shared, is held): UCX allows sends here.
    const std::size_t sent = __builtin_expect(g_short_batch_replies, 0) && h.elem == 0 && n ? n - 1 : n;
    am_send_copy(param->reply_ep, gather_reply_am_id, copy, sizeof h.cookie, sent, 0, reply_sent);
    return UCS_OK;
}

// A message that asked for an acknowledgement (signal_header::ack) ran: owed to its sender until
// the progress call returns (send_owed_acks), or (`lazy`) the next one does.
void owe_ack(std::uint32_t pe, std::uint32_t stream, bool lazy) {
    g_owed.acquire();
    if (pe >= g_owed.count.size()) {
        g_owed.release();
        std::fprintf(stderr, "ushmem: internal error: a signal message from PE %u asks for an acknowledgement (%zu PEs)\n",
                     pe, g_owed.count.size());
        return;
    }
    if (lazy) {
        g_owed.add_lazy(pe, 1);
    } else if (stream == 0) {
        if (g_owed.count[pe]++ == 0) g_owed.pes.push_back(pe);
    } else {
        bool found = false;
        for (auto &e : g_owed.streams)
            if (e.pe == pe && e.stream == stream) {
                ++e.n;
                found = true;
                break;
            }
        if (!found) g_owed.streams.push_back({pe, stream, 1});
    }
    detail::acks_owed.store(true, std::memory_order_relaxed);
    g_owed.release();
}

// A message of a context's own worker (ack_reply): acknowledged here, inside the handler, where
// UCX's reply endpoint is valid (its worker's lock, if shared, is held: UCX allows sends here).
void ack_now(const ucp_am_recv_param_t *param) {
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)) {
        std::fprintf(stderr, "ushmem: internal error: a signal message asks for an acknowledgement on a reply "
                             "endpoint without one\n");
        return;
    }
    auto *copy = static_cast<std::uint32_t *>(message_alloc(3 * sizeof(std::uint32_t)));
    if (!copy) {
        std::fprintf(stderr, "ushmem: out of memory for an acknowledgement\n");
        return;
    }
    copy[0] = g_ack_me;
    copy[1] = 1;
    copy[2] = 0;  // the worker it arrives on tells whose it is
    am_send_copy(param->reply_ep, ack_am_id, copy, 3 * sizeof(std::uint32_t), 0, 0, reply_sent);
}

// `arg`: a context's own worker's counts (create_extra_worker), nullptr on the main worker.
ucs_status_t on_ack(void *arg, const void *header, size_t header_length, void *, size_t length,
                    const ucp_am_recv_param_t *) {
    std::uint32_t a[3];  // from, how many, stream
    if (header_length != sizeof a || length != 0 || !g_ack_receive) {
        std::fprintf(stderr, "ushmem: internal error: malformed acknowledgement (header %zu bytes)\n", header_length);
        return UCS_OK;
    }
    std::memcpy(a, header, sizeof a);
    if (!arg && a[2] == 0) {
        g_ack_receive(a[0], a[1]);
    } else if (a[0] >= g_owed.count.size()) {  // from a peer of this job: a bug of ours, dropped loudly
        std::fprintf(stderr, "ushmem: internal error: an acknowledgement from PE %u (%zu PEs)\n", a[0],
                     g_owed.count.size());
    } else if (arg) {
        static_cast<std::atomic<std::uint64_t> *>(arg)[a[0]].fetch_add(a[1], std::memory_order_release);
    } else {
        stream_acked(a[2], a[0], a[1]);
    }
    return UCS_OK;
}

ucs_status_t on_gather_reply(void *, const void *header, size_t header_length, void *data, size_t length,
                             const ucp_am_recv_param_t *param) {
    if (header_length != sizeof(std::uint64_t) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ||
        !g_gather_receive) {
        std::fprintf(stderr, "ushmem: internal error: malformed get reply (header %zu bytes)\n", header_length);
        return UCS_OK;
    }
    std::uint64_t cookie;
    std::memcpy(&cookie, header, sizeof cookie);
    g_gather_receive(cookie, data, length);
    return UCS_OK;
}
} // namespace

void set_gather_handlers(gather_packer pack, gather_receiver receive) {
    g_gather_pack = pack;
    g_gather_receive = receive;
}

void inject_short_batch_replies() { g_short_batch_replies = true; }
void inject_rejected_bulk() { g_reject_bulk = true; }

void send_owed_acks() {
    const ack_endpoint endpoint_of = g_ack_endpoint.load(std::memory_order_acquire);
    const bool drop = g_acks_stopped.load(std::memory_order_relaxed);
    if (!endpoint_of && !drop) return;  // init: peers not known yet, they stay owed
    bool first = true;
    std::uint64_t call = 0;
    for (;;) {
        // A batch at a time, taken under the lock and sent outside it (endpoint_of may create an
        // endpoint; another thread's handler may owe more meanwhile).
        std::uint32_t batch[32][3];  // to PE, how many, stream
        std::size_t k = 0;
        g_owed.acquire();
        if (first) {
            call = g_owed.calls++;
            first = false;
        }
        while (k < 32 && !g_owed.pes.empty()) {
            const std::uint32_t pe = g_owed.pes.back();
            g_owed.pes.pop_back();
            batch[k][0] = pe;
            batch[k][1] = g_owed.count[pe] + g_owed.take_lazy(pe);  // (one acknowledgement for both)
            batch[k][2] = 0;
            g_owed.count[pe] = 0;
            ++k;
        }
        // Lazy ones owed before this progress call: the message's receiver did not answer its
        // sender at once (or it would have carried them).
        for (std::size_t i = 0; k < 32 && i < g_owed.lazy_pes.size();) {
            const std::uint32_t pe = g_owed.lazy_pes[i];
            if (g_owed.lazy_since[pe] >= call) {
                ++i;
                continue;
            }
            batch[k][0] = pe;
            batch[k][1] = g_owed.take_lazy(pe);
            batch[k][2] = 0;
            ++k;
        }
        while (k < 32 && !g_owed.streams.empty()) {
            const owed_acks::stream_count e = g_owed.streams.back();
            g_owed.streams.pop_back();
            batch[k][0] = e.pe;
            batch[k][1] = e.n;
            batch[k][2] = e.stream;
            ++k;
        }
        if (g_owed.none()) detail::acks_owed.store(false, std::memory_order_relaxed);
        g_owed.release();
        for (std::size_t i = 0; i < k && !drop; ++i) {
            // No endpoint: finalize closes them, and no PE waits for an acknowledgement any more.
            const ucp_ep_h ep = endpoint_of(batch[i][0]);
            if (!ep) continue;
            auto *copy = static_cast<std::uint32_t *>(message_alloc(sizeof batch[i]));
            if (!copy) {
                std::fprintf(stderr, "ushmem: out of memory for an acknowledgement\n");
                continue;
            }
            copy[0] = g_ack_me;
            copy[1] = batch[i][1];
            copy[2] = batch[i][2];
            // An error (the sender is gone) is the sender's business, as for the strided get's reply.
            drive d(g_worker);
            am_send_copy(ep, ack_am_id, copy, sizeof batch[i], 0, 0, reply_sent);
        }
        if (k < 32) return;
    }
}

void allow_lazy_acks(bool on) { detail::lazy_acks = on; }

void defer_owed_acks() {
    g_owed.acquire();
    // As send_owed_acks would, at the end of this progress call: those owed now (count) become
    // lazy, and the lazy ones (these included) are due at the next call (calls advanced).
    for (const std::uint32_t pe : g_owed.pes) {
        g_owed.add_lazy(pe, g_owed.count[pe]);
        g_owed.count[pe] = 0;
    }
    g_owed.pes.clear();
    ++g_owed.calls;
    g_owed.release();
}

namespace {
// Sends issued by the core: under the worker's lock, counted (issue_op).
const char *send_copy(ucp_worker_h w, ucp_ep_h ep, unsigned id, void *copy, std::size_t hlen, std::size_t n,
                      std::uint32_t flags, const void *borrowed = nullptr) {
    void *r = issue_op(w, [&] { return am_send_copy(ep, id, copy, hlen, n, flags, signal_sent, borrowed); });
    return UCS_PTR_IS_ERR(r) ? ucs_status_string(UCS_PTR_STATUS(r)) : nullptr;
}
} // namespace

const char *gather_nbx(ucp_worker_h w, ucp_ep_h ep, const gather_header &h, const void *data, std::size_t n) {
    auto *copy = static_cast<char *>(message_alloc(sizeof h + n));
    if (!copy) return "out of memory for a get request";
    std::memcpy(copy, &h, sizeof h);
    if (n) std::memcpy(copy + sizeof h, data, n);
    return send_copy(w, ep, gather_am_id, copy, sizeof h, n, UCP_AM_SEND_FLAG_REPLY);
}

const char *signal_nbx(ucp_worker_h w, ucp_ep_h ep, std::uint32_t to, const signal_header &hdr, const void *data,
                       std::size_t n, std::size_t src_stride, bool lend) {
    // Lent data (the caller keeps it until the message's acknowledgement): above the small
    // messages' limit UCX sends it from where it is, so it is not copied (2 PEs over tcp, 64
    // put_nbi's + quiet: 16 KiB 8.5-12.0 us per put against 9.8-13.9 copied; docs/architecture.md).
    const bool borrow = lend && !src_stride && n > small_message_max;
    // One allocation for both (glibc's per-thread cache: tens of nanoseconds against the
    // microseconds of a message).
    // The allocation starts with a held_tag (what its callback takes off the target's count).
    const std::size_t bytes = sizeof(held_tag) + sizeof hdr + (borrow ? 0 : n);
    auto *owner = static_cast<char *>(message_alloc(bytes));
    if (!owner) return "out of memory for a signal message";
    char *copy = owner + sizeof(held_tag);
    const bool counted = to < g_held_n;
    if (counted) {
        // Counted before it is sent: the callback, on any thread, takes it off.
        *reinterpret_cast<held_tag *>(owner) = held_tag{to, std::int64_t(bytes)};
        g_held[to].fetch_add(std::int64_t(bytes), std::memory_order_relaxed);
    }
    signal_header h = hdr;
    carry_acks(h, to);
    std::memcpy(copy, &h, sizeof h);
    if (src_stride && hdr.elem) {
        util::copy_strided(copy + sizeof hdr, hdr.elem, data, src_stride, hdr.elem, n / hdr.elem);
    } else if (n && !borrow) {
        std::memcpy(copy + sizeof hdr, data, n);
    }
    void *r = issue_op(w, [&] {
        return am_send_copy(ep, signal_am_id, copy, sizeof hdr, n, hdr.ack == ack_reply ? UCP_AM_SEND_FLAG_REPLY : 0,
                            counted ? signal_sent_held : signal_sent, borrow ? data : nullptr, owner);
    });
    // Sent at once or refused: am_send_copy freed it, and no callback comes.
    if (counted && (r == nullptr || UCS_PTR_IS_ERR(r))) g_held[to].fetch_sub(std::int64_t(bytes), std::memory_order_relaxed);
    return UCS_PTR_IS_ERR(r) ? ucs_status_string(UCS_PTR_STATUS(r)) : nullptr;
}

void *bulk_nbx(ucp_worker_h w, ucp_ep_h ep, std::uint32_t to, signal_header &h, const void *data, std::size_t n) {
    carry_acks(h, to);
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    prm.flags = UCP_AM_SEND_FLAG_RNDV;
    prm.memory_type = UCS_MEMORY_TYPE_HOST;
    // UCX 1.13 reads the header until the request completes (it has no UCP_AM_SEND_FLAG_COPY_HEADER).
    return issue_op(w, [&] { return ucp_am_send_nbx(ep, signal_am_id, &h, sizeof h, data, n, &prm); });
}

void set_bulk_checker(bulk_checker check) { g_bulk_check = check; }
bool bulk_ordered() { return g_bulk_ordered; }

namespace {
// The handlers of ushmem's own messages, on every worker: signal and strided messages and strided
// get requests arrive on the main one (peers connect to it), the replies to a strided get on the
// worker that asked (a context's own, too).
ucs_status_t set_handlers(ucp_worker_h w, void *ack_counts) {
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    const std::pair<unsigned, ucp_am_recv_callback_t> handlers[] = {
        {signal_am_id, on_signal_message}, {gather_am_id, on_gather_request}, {gather_reply_am_id, on_gather_reply},
        {ack_am_id, on_ack}};
    for (const auto &[id, cb] : handlers) {
        hp.id = id;
        hp.cb = cb;
        hp.arg = id == ack_am_id ? ack_counts : id == signal_am_id ? static_cast<void *>(w) : nullptr;
        if (ucs_status_t st = ucp_worker_set_am_recv_handler(w, &hp); st != UCS_OK) return st;
    }
    return UCS_OK;
}
} // namespace

bool create_worker(bool thread_multiple, std::string &err) {
    g_main_efd.store(-2);
    detail::main_multi = thread_multiple;
    g_worker = new_worker(thread_multiple      ? UCS_THREAD_MODE_MULTI
                          : detail::main_shared ? UCS_THREAD_MODE_SERIALIZED
                                                : UCS_THREAD_MODE_SINGLE,
                          err);
    if (!g_worker) return false;
    ucs_status_t st = set_handlers(g_worker, nullptr);
    if (st != UCS_OK) {
        err = std::string("ucp_worker_set_am_recv_handler: ") + ucs_status_string(st);
        ucp_worker_destroy(g_worker);
        g_worker = nullptr;
        return false;
    }
    return true;
}

void share_main_worker() { detail::main_shared = true; }

ucp_worker_h create_extra_worker(bool multi_thread, std::atomic<std::uint64_t> *acks_done, std::uint32_t &stream,
                                 std::string &err) {
    // SERIALIZED, not SINGLE: a context's owner may be one thread at a time, not always the same.
    ucp_worker_h w = new_worker(multi_thread ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SERIALIZED, err);
    if (!w) return nullptr;
    if (ucs_status_t st = set_handlers(w, acks_done); st != UCS_OK) {
        err = std::string("ucp_worker_set_am_recv_handler: ") + ucs_status_string(st);
        ucp_worker_destroy(w);
        return nullptr;
    }
    stream = register_ack_stream(acks_done, w);
    return w;
}

void destroy_extra_worker(ucp_worker_h w, std::uint32_t stream) {
    unregister_ack_stream(stream);  // first: the main worker's handler may signal `w` until then
    if (w) ucp_worker_destroy(w);
}

void finalize() {
    if (g_worker) ucp_worker_destroy(g_worker);
    g_worker = nullptr;
    g_main_efd.store(-2);
    detail::main_shared = false;
    detail::main_multi = false;
    if (g_context) ucp_cleanup(g_context);
    g_context = nullptr;
    if (g_bytes_dt) ucp_dt_destroy(g_bytes_dt);
    g_bytes_dt = 0;
    g_lanes = lanes_info{};
    g_async_error.store(UCS_OK);
}

ucp_context_h context() { return g_context; }
const lanes_info &lanes() { return g_lanes; }

std::vector<std::uint8_t> worker_address() {
    ucp_address_t *addr = nullptr;
    size_t len = 0;
    std::vector<std::uint8_t> out;
    if (ucp_worker_get_address(g_worker, &addr, &len) == UCS_OK) {
        out.assign(reinterpret_cast<std::uint8_t *>(addr), reinterpret_cast<std::uint8_t *>(addr) + len);
        ucp_worker_release_address(g_worker, addr);
    }
    return out;
}

static bool do_map(void *addr, std::size_t len, unsigned flags, memory &m, std::string &err) {
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                    UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.address = addr;
    mp.length = len;
    mp.flags = flags;
    ucs_status_t st = ucp_mem_map(g_context, &mp, &m.memh);
    if (st != UCS_OK) {
        err = std::string("ucp_mem_map: ") + ucs_status_string(st);
        m.memh = nullptr;
        return false;
    }
    ucp_mem_attr_t attr{};
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
    ucp_mem_query(m.memh, &attr);
    m.address = attr.address;
    m.length = attr.length;
    m.allocated = (flags & UCP_MEM_MAP_ALLOCATE) != 0;
    return true;
}

bool map_allocate(void *addr, std::size_t len, bool fixed, memory &m, std::string &err) {
    return do_map(addr, len, UCP_MEM_MAP_ALLOCATE | (fixed ? UCP_MEM_MAP_FIXED : 0), m, err);
}

namespace {
ucs_log_func_rc_t swallow_log(const char *, unsigned, const char *, ucs_log_level_t,
                              const ucs_log_component_config_t *, const char *, va_list) {
    return UCS_LOG_FUNC_RC_STOP;
}
} // namespace

bool map_allocate_quiet(void *addr, std::size_t len, bool fixed, memory &m, std::string &err) {
    ucs_log_push_handler(swallow_log);
    bool ok = map_allocate(addr, len, fixed, m, err);
    ucs_log_pop_handler();
    return ok;
}

bool map_register(void *addr, std::size_t len, memory &m, std::string &err) {
    return do_map(addr, len, 0, m, err);
}

void unmap(memory &m) {
    if (m.memh && g_context) ucp_mem_unmap(g_context, m.memh);
    m = memory{};
}

std::vector<std::uint8_t> pack_rkey(const memory &m) {
    void *buf = nullptr;
    size_t len = 0;
    std::vector<std::uint8_t> out;
    if (ucp_rkey_pack(g_context, m.memh, &buf, &len) == UCS_OK) {
        out.assign(static_cast<std::uint8_t *>(buf), static_cast<std::uint8_t *>(buf) + len);
        ucp_rkey_buffer_release(buf);
    }
    return out;
}

namespace {
std::atomic<peer_failure_handler> g_peer_failure{nullptr};

void on_ep_error(void *arg, ucp_ep_h, ucs_status_t status) {
    // Runs inside ucp_worker_progress on whichever thread drives the worker.
    if (peer_failure_handler h = g_peer_failure.load(std::memory_order_acquire))
        h(int(reinterpret_cast<std::intptr_t>(arg)), status);
}
} // namespace

void set_peer_failure_handler(peer_failure_handler handler) {
    g_peer_failure.store(handler, std::memory_order_release);
}

void mute_peer_failures() { g_peer_failure.store(nullptr, std::memory_order_release); }

ucp_ep_h connect(ucp_worker_h w, const std::uint8_t *worker_addr, int peer_id, bool detect_failure,
                 std::string &err) {
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = reinterpret_cast<const ucp_address_t *>(worker_addr);
    if (detect_failure && g_peer_failure.load(std::memory_order_relaxed)) {
        ep.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
        ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        ep.err_handler.cb = on_ep_error;
        ep.err_handler.arg = reinterpret_cast<void *>(std::intptr_t(peer_id));
    }
    ucp_ep_h h = nullptr;
    drive d(w);
    ucs_status_t st = ucp_ep_create(w, &ep, &h);
    if (st != UCS_OK) {
        err = std::string("ucp_ep_create: ") + ucs_status_string(st);
        return nullptr;
    }
    return h;
}

ucp_rkey_h unpack_rkey(ucp_ep_h ep, const std::uint8_t *packed, std::string &err) {
    ucp_rkey_h rkey = nullptr;
    // (rkeys belong to the context, but unpacking reads the endpoint's configuration)
    drive d(g_worker);
    ucs_status_t st = ucp_ep_rkey_unpack(ep, packed, &rkey);
    if (st != UCS_OK) {
        err = std::string("ucp_ep_rkey_unpack: ") + ucs_status_string(st);
        return nullptr;
    }
    return rkey;
}

void *rkey_ptr(ucp_rkey_h rkey, std::uint64_t remote_addr) {
    void *p = nullptr;
    return ucp_rkey_ptr(rkey, remote_addr, &p) == UCS_OK ? p : nullptr;
}

void destroy_rkey(ucp_rkey_h rkey) {
    drive d(g_worker);
    if (rkey) ucp_rkey_destroy(rkey);
}

void print_ep_info(ucp_ep_h ep, FILE *f) {
    drive d(g_worker);
    ucp_ep_print_info(ep, f);
}

namespace {
long now_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return long(ts.tv_sec) * 1000000000L + ts.tv_nsec;
}

// Drives `w` until `request` completes, or (deadline_ns > 0, CLOCK_MONOTONIC) until that time has
// passed; returns its status (UCS_INPROGRESS: given up), and leaves freeing it to the caller.
// Spins briefly, then yields: the peer that must answer may share our core (more PEs than cores),
// and a tight loop would keep it from running.
ucs_status_t drive_request(void *request, ucp_worker_h w, long deadline_ns) {
    ucs_status_t st;
    for (unsigned i = 0; (st = ucp_request_check_status(request)) == UCS_INPROGRESS; ++i) {
        if (progress_both(w) != 0 || i <= 256) continue;
        if (deadline_ns > 0 && now_ns() > deadline_ns) break;
        sched_yield();
    }
    return st;
}
} // namespace

void close_endpoints(std::vector<ucp_ep_h> &eps, ucp_worker_h w, long flush_grace_ns) {
    std::vector<void *> reqs;
    // First a flush of each, while every peer still progresses (finalize: before the barrier
    // after which workers go). It completes an endpoint's wireup too: an endpoint created late
    // (in the final barrier) may still await its peer's wireup reply, and the peer, once its
    // reply is queued, may go through that barrier and destroy its worker before the reply's
    // connection is made. UCX 1.13 then fails the connection, and purging the queued reply trips
    // an assertion that aborts the PE at exit (1 run in 68 of a two-host job that only calls
    // shmem_init and shmem_finalize). Errors (a peer already gone) are the force close's business.
    // The flushes wait at most `flush_grace_ns` in all: a peer that no longer answers (stopped,
    // hung) would otherwise hold the caller forever, and a flush has nothing of the caller's to
    // deliver (its quiet completed every operation). One still unfinished is released (UCP frees
    // it when the force close below purges it).
    for (ucp_ep_h ep : eps) {
        if (!ep) continue;
        ucp_request_param_t prm{};
        void *r = ep_flush_nbx(w, ep, &prm);
        if (UCS_PTR_IS_PTR(r)) reqs.push_back(r);
    }
    const long deadline = now_ns() + flush_grace_ns;
    bool late = false;
    for (void *r : reqs) {
        if (!late) late = drive_request(r, w, deadline) == UCS_INPROGRESS;
        request_free(w, r);
    }
    reqs.clear();
    for (ucp_ep_h &ep : eps) {
        if (!ep) continue;
        ucp_request_param_t prm{};
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
        // Force mode: everything was flushed by the final quiet and the peers passed a barrier
        // after it, so no operation is in flight; force does not need the peer to answer, which
        // matters when the peer is already tearing down.
        void *r;
        {
            drive d(w);
            r = ucp_ep_close_nbx(ep, &prm);
        }
        if (UCS_PTR_IS_PTR(r)) reqs.push_back(r);
        ep = nullptr;
    }
    for (void *r : reqs) wait(r, w);
}

namespace {
// The PE's progress calls on the shared main worker (a futex word serve() parks on). Relaxed
// increments: a lost one does not matter, only that it moves.
std::atomic<int> g_pe_progress{0};
// What serve()'s park sleeps on: moved only to end the park early (the PE blocks, the job stops).
// Not g_pe_progress itself: a PE that progresses in a loop moves that word faster than the thread
// can sleep on it, and each park ended at once (thousands of wake-ups a second on the PE's core).
std::atomic<int> g_park_word{0};
// Where the progress thread is: serving (progressing, or about to sleep), asleep in poll() on the
// worker's event fd, or woken from there by the PE (kicked).
enum : int { srv_serving = 0, srv_polling = 1, srv_kicked = 2 };
std::atomic<int> g_serve_state{srv_serving};
// The progress thread asleep in poll() on the worker's fd is woken to park (kicked). One load
// when it is not asleep there.
void kick_server() {
    int polling = srv_polling;
    if (__builtin_expect(g_serve_state.load(std::memory_order_relaxed) == srv_polling, 0) &&
        g_serve_state.compare_exchange_strong(polling, srv_kicked))
        ucp_worker_signal(g_worker);
}
// Set by a PE that blocks in a wait (pe_blocking), cleared by its next progress call: the
// thread's hand-off park ends at once.
std::atomic<bool> g_pe_blocked{false};
// Threads of the PE that sleep on the worker's event fd themselves (sleep_for_events), or are about
// to: the progress thread stays parked meanwhile, or both would be woken by every message.
std::atomic<int> g_pe_polling{0};
// At SHMEM_THREAD_MULTIPLE several threads of the PE may sleep for events at once. They cannot all
// sleep on the event fd: a wake-up there is re-checked when the sleeper runs, and by then another
// thread's arm (which drains the fd's signal) or progress (which reads the sockets) has often taken
// it back, so the sleep ran to its bound while its condition was already true (4 PEs x 2 threads
// over tcp on 2 cores, collectives on two teams at once: hundreds of 100 ms sleeps, 31 ms per
// collective). So one thread at a time watches the fd (g_fd_watched); the others sleep on a futex
// (g_event_seq) that every thread which serves events while any sleeps moves and wakes, as does
// the watcher when it leaves (one of the others then watches).
std::atomic<int> g_fd_watched{0};
std::atomic<std::uint32_t> g_event_seq{0};
std::atomic<int> g_seq_sleepers{0};
// The sequence a thread saw before its last look at its condition (pe_polling(true)): a later
// move means events were served since, which that look may have missed.
thread_local std::uint32_t t_seen_seq = 0;

void wake_seq_sleepers() {
    g_event_seq.fetch_add(1, std::memory_order_seq_cst);
    if (g_seq_sleepers.load(std::memory_order_seq_cst) > 0)
        syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&g_event_seq), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}
// Threads of the PE in the slow part of a library wait (pe_waiting).
std::atomic<int> g_pe_waiting{0};
} // namespace

void pe_blocking() {
    if (!detail::main_shared) return;
    g_pe_blocked.store(true, std::memory_order_seq_cst);
    g_pe_progress.fetch_add(1, std::memory_order_seq_cst);
    g_park_word.fetch_add(1, std::memory_order_seq_cst);
    syscall(SYS_futex, reinterpret_cast<int *>(&g_park_word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

unsigned progress_shared() {
    g_pe_progress.store(g_pe_progress.load(std::memory_order_relaxed) + 1, std::memory_order_seq_cst);
    if (__builtin_expect(g_pe_blocked.load(std::memory_order_relaxed), 0)) g_pe_blocked.store(false);
    // The progress thread sleeps in poll() on the worker's fd: every message that arrives now would
    // wake it (inside the kernel, only to find the PE has read it already), taking the PE's core
    // for a context switch each time. One signal now sends it to park instead, for as long as the
    // PE keeps progressing (serve()).
    kick_server();
    unsigned n;
    {
        drive d(g_worker);
        n = ucp_worker_progress(g_worker);
    }
    signal_pollers(n);
    return n;
}

unsigned progress_both(ucp_worker_h w) {
    if (w == g_worker) return progress();
    unsigned n = ucp_worker_progress(w);  // a context's own worker: never shared
    // Waiting on a context's own worker, keep answering the peers that target the main one:
    // over an emulated transport two PEs that each wait on their own worker would otherwise wait
    // for each other forever.
    return n + progress();
}

ucs_status_t wait(void *request, ucp_worker_h w) {
    const ucs_status_t st = drive_request(request, w, 0);
    request_free(w, request);
    return st;
}

// ---- the main worker's lock ----------------------------------------------------------------
namespace {
long futex(std::atomic<int> *addr, int op, int val) {
    return syscall(SYS_futex, reinterpret_cast<int *>(addr), op, val, nullptr, nullptr, 0);
}
} // namespace

void worker_lock::lock_slow() {
    // The holder is inside one UCX call: spin for about as long as such a call takes, then sleep
    // (the holder may be descheduled: more threads than cores is the common case here).
    for (int i = 0; i < 200; ++i) {
        __builtin_ia32_pause();
        if (word_.load(std::memory_order_relaxed) == 0 && try_lock()) return;
    }
    // Drepper's futex mutex: 2 marks that a sleeper may be waiting, so that unlock wakes one.
    while (word_.exchange(2, std::memory_order_acquire) != 0) futex(&word_, FUTEX_WAIT_PRIVATE, 2);
}

void worker_lock::wake() { futex(&word_, FUTEX_WAKE_PRIVATE, 1); }

// ---- the progress thread's loop ------------------------------------------------------------
namespace {
// The main worker's wakeup fd (-1: none), fetched once per worker for serve() and
// sleep_for_events() (two threads fetching at once store the same fd).
int main_efd() {
    int efd = g_main_efd.load(std::memory_order_acquire);
    if (efd != -2) return efd;
    {
        drive d(g_worker);
        if (ucp_worker_get_efd(g_worker, &efd) != UCS_OK) efd = -1;
    }
    g_main_efd.store(efd, std::memory_order_release);
    return efd;
}
} // namespace

void serve(const std::atomic<bool> &stop, long spin_ns, long handoff_ns, bool (*on_events)(),
           long (*held_work)(bool &sent)) {
    const int efd = main_efd();
    long last_event = 0;
    while (!stop.load(std::memory_order_relaxed)) {
        // While the PE progresses the worker itself (it waits in the library), what arrives is
        // its to serve: stay parked until it has not progressed for a whole hand-off period.
        // Each look that finds it still progressing doubles the period (up to 32 x): every look
        // is a context switch on the PE's core, and at a fixed 100 us they cost a communication
        // loop over tcp up to 40% (put+quiet 24-33 us against 17.5 us for raw UCX). The price is
        // the first message to a PE that has just started computing: served within the current
        // period (at most 3.2 ms by default); later ones at once, the thread then serving.
        //
        // A PE that issues operations is busy in the library too, but it does not serve its peers
        // while it only issues (atomics on its own memory in a loop, say, or a stream of large
        // puts over tcp, which UCX sends inside ucp_put_nbx: milliseconds with no progress call).
        // Taking over then would take the worker lock in turn with the PE (1 MiB puts: 3.5-4.1
        // GB/s, against 4.6-5.1 without the thread). So the thread asks the PE to progress the
        // worker at its next operation (issue_op) and stays parked; if the PE neither progresses
        // nor issues by the next look, it is away and the thread serves.
        long park_ns = handoff_ns;
        long held_ns = 0;  // what held_work asked for at the last look (0: nothing held)
        unsigned issued_seen = detail::pe_issue.n.load(std::memory_order_relaxed);
        for (int seen = g_pe_progress.load(std::memory_order_relaxed);;) {
            // The word first, then the flag: pe_blocking() sets them in the other order, so
            // either the flag is seen here or the futex call finds the word moved.
            const int word = g_park_word.load(std::memory_order_seq_cst);
            if (g_pe_blocked.load(std::memory_order_seq_cst) || stop.load(std::memory_order_relaxed)) break;
            const long nap = held_ns > 0 ? std::min(park_ns, held_ns) : park_ns;
            const struct timespec park{nap / 1000000000L, nap % 1000000000L};
            syscall(SYS_futex, reinterpret_cast<int *>(&g_park_word), FUTEX_WAIT_PRIVATE, word, &park, nullptr, 0);
            const int now = g_pe_progress.load(std::memory_order_relaxed);
            const unsigned issued = detail::pe_issue.n.load(std::memory_order_relaxed);
            if (stop.load(std::memory_order_relaxed) || g_pe_blocked.load()) break;
            if (held_work) {
                // Without an ask pending: our own sends (issue_op) must not answer it for the PE.
                detail::pe_issue.asked.store(false, std::memory_order_relaxed);
                bool sent = false;
                held_ns = held_work(sent);
                if (sent) {
                    // Our sends moved the PE's counts: judge the PE at the next look.
                    seen = g_pe_progress.load(std::memory_order_relaxed);
                    issued_seen = detail::pe_issue.n.load(std::memory_order_relaxed);
                    continue;
                }
            }
            const bool issuing = issued != issued_seen || (issued & 1) != 0;
            if (now == seen && issuing) detail::pe_issue.asked.store(true, std::memory_order_relaxed);
            if (now == seen && !issuing && !g_pe_polling.load(std::memory_order_relaxed) &&
                g_pe_waiting.load(std::memory_order_relaxed) == 0)
                break;
            seen = now;
            issued_seen = issued;
            park_ns = std::min(park_ns * 2, handoff_ns * 32);
        }
        detail::pe_issue.asked.store(false, std::memory_order_relaxed);
        // The PE is away (computing): serve until nothing is left, then sleep on the event fd.
        const int pe_seen = g_pe_progress.load(std::memory_order_relaxed);
        while (!stop.load(std::memory_order_relaxed)) {
            unsigned n;
            {
                drive d(g_worker);
                n = ucp_worker_progress(g_worker);
            }
            settle_acks();
            if (n) {
                const bool woke = on_events && on_events();
                // The PE drives the worker again (its quiet, its wait): leave it the worker, as
                // after a sleep. Looked at here too, not only once the worker is drained: a
                // stream of large puts keeps both sides busy, and the thread would take the lock
                // in turn with the PE's quiet to its end.
                if (g_pe_progress.load(std::memory_order_relaxed) != pe_seen && !g_pe_blocked.load(std::memory_order_relaxed) &&
                    !g_pe_polling.load(std::memory_order_relaxed))
                    break;
                // The PE may be asleep on the event fd, which our progress just drained: signal
                // it, and leave the fd to it (park), or our next arm would drain the signal.
                std::atomic_thread_fence(std::memory_order_seq_cst);
                if (g_pe_polling.load(std::memory_order_relaxed)) {
                    if (detail::main_multi) rouse_event_sleepers();  // and the sequence's sleepers
                    else ucp_worker_signal(g_worker);
                    break;
                }
                // A PE woken here wants the CPU (on a shared core, ours): no poll after this event.
                last_event = spin_ns && !woke ? now_ns() : 0;
                continue;
            }
            // Right after activity more usually follows (the next request of a loop, the reply to
            // a request just served): poll a little before a wakeup, while the PE computes. Not
            // while it waits in the library (blocked, or yielding: what we served may be what it
            // waits for, and on a shared core our poll would keep it from running: 2 hosts of 1
            // CPU and 2 PEs, barrier 100-135 us polling, 60-88 not, as before the poll), nor
            // after an event that woke a thread of the PE; when the PE is back driving the worker
            // itself, park, as after a sleep.
            if (spin_ns && last_event && now_ns() - last_event < spin_ns &&
                !g_pe_blocked.load(std::memory_order_relaxed) && g_pe_waiting.load(std::memory_order_relaxed) == 0) {
                if (g_pe_progress.load(std::memory_order_relaxed) != pe_seen) break;
                for (int i = 0; i < 32; ++i) __builtin_ia32_pause();
                continue;
            }
            // The PE sleeps on the fd itself: arming here could drain a signal meant for it.
            if (g_pe_polling.load(std::memory_order_seq_cst)) break;
            ucs_status_t st;
            {
                drive d(g_worker);
                st = ucp_worker_arm(g_worker);
            }
            if (st == UCS_ERR_BUSY) continue;  // events arrived meanwhile: progress them first
            const int seen = g_pe_progress.load(std::memory_order_relaxed);
            if (st != UCS_OK || efd < 0) {
                sched_yield();  // no wakeup mechanism on some transport: poll, yielding the core
                if (g_pe_progress.load(std::memory_order_relaxed) != seen) break;
                continue;
            }
            // Announce the sleep, then look once more whether the PE started progressing in the
            // meantime (it reads the state after counting its progress call: one of us sees the
            // other), and at what it holds back (a pack opened after this look rouses us:
            // rouse_server). Held work bounds the sleep.
            g_serve_state.store(srv_polling, std::memory_order_seq_cst);
            bool sent = false;
            const long held_ns = held_work ? held_work(sent) : 0;
            bool timed_out = false;
            if (!sent && g_pe_progress.load(std::memory_order_seq_cst) == seen && !stop.load(std::memory_order_relaxed)) {
                struct pollfd pfd{efd, POLLIN, 0};
                if (held_ns > 0) {
                    const struct timespec ts{held_ns / 1000000000L, held_ns % 1000000000L};
                    timed_out = ppoll(&pfd, 1, &ts, nullptr) == 0;
                } else {
                    poll(&pfd, 1, -1);
                }
            }
            const bool kicked = g_serve_state.exchange(srv_serving) == srv_kicked;
            // The PE is back: park (unless it is blocked: its pe_blocking() moved the count too).
            if ((kicked || g_pe_progress.load(std::memory_order_relaxed) != seen) && !g_pe_blocked.load()) break;
            if (spin_ns && !timed_out) last_event = now_ns();
        }
    }
}

namespace {

// The scope's worker, drained then armed (UCX's rule), ready for poll(): its fd, -1 when it has
// events pending (the caller progresses them), -2 when it has no fd (no wakeup support).
int arm_own_wait() {
    ucp_worker_h w = t_own_wait;
    if (ucp_worker_progress(w) != 0) return -1;  // a context's own worker: never shared
    int efd = -1;
    if (ucp_worker_get_efd(w, &efd) != UCS_OK) return -2;
    const ucs_status_t st = ucp_worker_arm(w);
    return st == UCS_ERR_BUSY ? -1 : st == UCS_OK ? efd : -2;
}
} // namespace

own_wait_scope::own_wait_scope(ucp_worker_h w) : prev_(t_own_wait), set_(w && w != g_worker) {
    if (set_) t_own_wait = w;
}
own_wait_scope::~own_wait_scope() {
    if (set_) t_own_wait = prev_;
}
bool in_own_wait() { return t_own_wait != nullptr; }

bool sleep_for_own_events(long ns, const sigset_t *during) {
    const struct timespec ts{ns / 1000000000L, ns % 1000000000L};
    const int efd = arm_own_wait();
    if (efd == -1) return true;
    if (efd < 0) {
        nanosleep(&ts, nullptr);
        return false;
    }
    struct pollfd pfd{efd, POLLIN, 0};
    return ppoll(&pfd, 1, &ts, during) > 0;
}

namespace {
// A thread of a multi-threaded PE while another watches the event fd: sleeps on the sequence.
bool sleep_for_seq(long ns, const sigset_t *during) {
    g_seq_sleepers.fetch_add(1, std::memory_order_seq_cst);
    bool roused = true;
    // The watcher may have left before we counted ourselves (it wakes only counted sleepers).
    if (g_fd_watched.load(std::memory_order_seq_cst) != 0) {
        const struct timespec ts{ns / 1000000000L, ns % 1000000000L};
        sigset_t held;
        if (during) pthread_sigmask(SIG_SETMASK, during, &held);  // signals in while asleep, as ppoll's
        const long r = syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&g_event_seq), FUTEX_WAIT_PRIVATE,
                               t_seen_seq, &ts, nullptr, 0);
        roused = r == 0 || errno == EAGAIN;  // EAGAIN: the sequence moved since our last look
        if (during) pthread_sigmask(SIG_SETMASK, &held, nullptr);
    }
    g_seq_sleepers.fetch_sub(1, std::memory_order_seq_cst);
    return roused;
}

bool sleep_on_fd(long ns, const sigset_t *during);
} // namespace

bool sleep_for_events(long ns, const sigset_t *during) {
    if (!detail::main_multi) return sleep_on_fd(ns, during);
    if (g_fd_watched.exchange(1, std::memory_order_seq_cst) != 0) return sleep_for_seq(ns, during);
    // Events served by another thread since our last look: it may be what we wait for.
    bool roused = g_event_seq.load(std::memory_order_seq_cst) != t_seen_seq || sleep_on_fd(ns, during);
    g_fd_watched.store(0, std::memory_order_seq_cst);
    // Whoever sleeps on the sequence looks again, and one of them watches the fd if still needed.
    if (g_seq_sleepers.load(std::memory_order_seq_cst) > 0) wake_seq_sleepers();
    return roused;
}

namespace {
bool sleep_on_fd(long ns, const sigset_t *during) {
    const int efd = main_efd();
    ucs_status_t st = UCS_OK;
    unsigned n;
    {
        drive d(g_worker);
        // Arm only a drained worker (UCX's rule): work found here may be what the caller waits for.
        n = ucp_worker_progress(g_worker);
        if (n == 0) st = efd >= 0 ? ucp_worker_arm(g_worker) : UCS_ERR_UNSUPPORTED;
    }
    // Other threads of the PE may sleep on the sequence: what we served may be theirs.
    if (detail::main_multi && n != 0 && g_pe_polling.load(std::memory_order_seq_cst) > 1) wake_seq_sleepers();
    settle_acks();
    if (n != 0 || st == UCS_ERR_BUSY) return true;  // events pending: the caller progresses them
    struct pollfd pfd[2] = {{efd, POLLIN, 0}, {-1, POLLIN, 0}};
    nfds_t nfds = 1;
    if (t_own_wait) {  // what the wait is for arrives on that worker
        const int own = arm_own_wait();
        if (own == -1) return true;
        if (own >= 0) pfd[nfds++].fd = own;
    }
    const struct timespec ts{ns / 1000000000L, ns % 1000000000L};
    if (st != UCS_OK) {
        nanosleep(&ts, nullptr);
        return false;
    }
    return ppoll(pfd, nfds, &ts, during) > 0;
}
} // namespace

void pe_polling(bool on) {
    if (on && detail::main_multi) t_seen_seq = g_event_seq.load(std::memory_order_seq_cst);
    g_pe_polling.fetch_add(on ? 1 : -1, std::memory_order_seq_cst);
}

namespace {
bool (*g_served_hook)() = nullptr;
} // namespace
void set_served_hook(bool (*hook)()) { g_served_hook = hook; }

void signal_pollers_slow() {
    // Threads asleep on the core's wake word (waits where not every lane is emulated: some peers
    // direct, as on two hosts): the progress thread wakes them after what it serves, but while a
    // thread of the PE progresses the worker the thread stays parked (4 PEs on two hosts, 4
    // threads each: such sleeps ran to their 100 ms bound).
    if (g_served_hook) g_served_hook();
    rouse_event_sleepers();
}

void rouse_event_sleepers() {
    // The events just served are in memory before the count is read; a sleeper counted itself
    // before its last look (one of us sees the other). This thread's own count is 0 here: it
    // progresses outside its sleep.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (g_pe_polling.load(std::memory_order_relaxed) == 0) return;
    wake_seq_sleepers();
    if (g_fd_watched.load(std::memory_order_seq_cst) != 0) ucp_worker_signal(g_worker);
}

void pe_waiting(bool on) {
    if (detail::main_shared) g_pe_waiting.fetch_add(on ? 1 : -1, std::memory_order_relaxed);
}

void stop_serving() {
    // Thread-safe by UCX's contract: wakes the poll() of serve(); the futex wakes its hand-off wait.
    if (g_worker) ucp_worker_signal(g_worker);
    g_park_word.fetch_add(1, std::memory_order_seq_cst);
    syscall(SYS_futex, reinterpret_cast<int *>(&g_park_word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void rouse_server() {
    // After the caller's store of what it holds (Dekker's, against serve()'s announcement of its
    // sleep and its look at held_work after it).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    kick_server();
}

void answer_progress_ask() {
    detail::pe_issue.asked.store(false, std::memory_order_relaxed);
    progress_shared();
    settle_acks();
}

void nbi_completion(void *request, ucs_status_t status, void *) {
    ucs_status_t none = UCS_OK;
    if (status != UCS_OK) g_async_error.compare_exchange_strong(none, status);
    ucp_request_free(request);
}

ucs_status_t take_async_error() {
    if (g_async_error.load(std::memory_order_relaxed) == UCS_OK) return UCS_OK;
    return g_async_error.exchange(UCS_OK);
}

} // namespace ushmem::transport
