// transport/am/acks.cpp: acknowledgements owed and sent: the owed list (per sender, lazy ones,
// contexts' streams), what a message carries along, the batch sent after a progress call, and the
// replies sent at once on UCX's reply endpoint.
#include "transport/am/acks.hpp"

#include "transport/am/internal.hpp"
#include "transport/internal.hpp"
#include "transport/worker.hpp"
#include "util/lazy_array.hpp"

#include <cstdio>
#include <mutex>
#include <vector>

namespace ushmem::transport {

using namespace am;

ack_receiver am::g_ack_receive = nullptr;
std::uint32_t am::g_ack_me = 0;

namespace {
// A list of distinct PEs (so at most npes of them), in a lazy array (util/lazy_array.hpp): no
// allocation when a handler owes an acknowledgement, and a page of it committed only when that
// many PEs are listed at once.
struct pe_list {
    util::lazy_array<std::uint32_t> v;
    std::size_t n = 0;
    void reset(std::size_t npes) {
        v.reset(npes);
        n = 0;
    }
    bool empty() const { return n == 0; }
    std::size_t size() const { return n; }
    std::uint32_t operator[](std::size_t i) const { return v[i]; }
    std::uint32_t back() const { return v[n - 1]; }
    void push_back(std::uint32_t pe) { v[n++] = pe; }
    void pop_back() { --n; }
    void clear() { n = 0; }
    const std::uint32_t *begin() const { return v.data(); }
    const std::uint32_t *end() const { return v.data() + n; }
    void erase(std::uint32_t pe) {
        for (std::size_t i = 0; i < n; ++i)
            if (v[i] == pe) {
                v[i] = v[n - 1];
                --n;
                return;
            }
    }
};

// The acknowledgements owed (owe_ack, send_owed_acks): a count per sender PE and the list of the
// PEs with a count. The handlers that owe them run under the worker's serialization and the
// senders on any thread that progressed it: a lock of their own, held for a few stores. The
// per-PE arrays are lazy (util/lazy_array.hpp): a sender's page is committed when it is first owed.
struct owed_acks {
    std::atomic_flag lock = ATOMIC_FLAG_INIT;
    util::lazy_array<std::uint32_t> count;  // per PE: its main worker's stream (0)
    pe_list pes;                            // the PEs whose count is not 0
    // ack_lazy (main worker's stream): per PE, how many, and the number of the send_owed_acks call
    // during whose progress call the first of them was owed (`calls` then); sent by a later call.
    util::lazy_array<std::uint32_t> lazy;
    util::lazy_array<std::uint64_t> lazy_since;
    pe_list lazy_pes;  // the PEs whose lazy count is not 0
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
            lazy_pes.erase(pe);
        }
        return n;
    }
    bool none() const { return pes.empty() && streams.empty() && lazy_pes.empty(); }
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
} // namespace

void am::stream_acked(std::uint32_t stream, std::uint32_t from, std::uint32_t n) {
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
std::uint32_t am::register_ack_stream(std::atomic<std::uint64_t> *acks_done, ucp_worker_h w) {
    std::lock_guard<std::mutex> g(g_streams_lock);
    if (g_streams.size() >= (1u << 24) - 1) return 0;  // the header's 24 bits are used up
    g_streams.push_back({acks_done, w});
    return std::uint32_t(g_streams.size());
}
void am::unregister_ack_stream(std::uint32_t stream) {
    std::lock_guard<std::mutex> g(g_streams_lock);
    if (stream && stream - 1 < g_streams.size()) g_streams[stream - 1] = {nullptr, nullptr};
}

// What signal_nbx carries to PE `pe` (signal_header::acks): every acknowledgement owed to it on
// the main worker's stream, lazy or not, taken off the owed ones. 0 when none, or too many for
// the field (then they go as an acknowledgement of their own).
std::uint32_t am::take_acks_for(std::uint32_t pe) {
    if (__builtin_expect(!detail::shared.acks_owed.load(std::memory_order_relaxed), 1)) return 0;
    if (!detail::shared.ack_endpoint_of.load(std::memory_order_relaxed) || detail::shared.acks_stopped.load(std::memory_order_relaxed)) return 0;
    g_owed.acquire();
    std::uint32_t n = 0;
    if (pe < g_owed.count.size() && std::uint64_t(g_owed.count[pe]) + g_owed.lazy[pe] < (1u << 24)) {
        n = g_owed.take_lazy(pe);
        if (g_owed.count[pe]) {
            n += g_owed.count[pe];
            g_owed.count[pe] = 0;
            g_owed.pes.erase(pe);
        }
        if (g_owed.none()) detail::shared.acks_owed.store(false, std::memory_order_relaxed);
    }
    g_owed.release();
    return n;
}
// The acknowledgements owed to PE `to`, carried by a message to it (signal_header::acks, `from`).

std::size_t am::ack_pes() { return g_owed.count.size(); }

void set_ack_handler(ack_receiver receive, std::uint32_t me, std::uint32_t npes) {
    g_ack_receive = receive;
    g_ack_me = me;
    g_owed.count.reset(npes);
    size_held(npes);
    g_owed.pes.reset(npes);
    g_owed.lazy.reset(npes);
    g_owed.lazy_since.reset(npes);
    g_owed.lazy_pes.reset(npes);
    g_owed.streams.clear();
    detail::shared.ack_endpoint_of.store(nullptr);
    detail::shared.acks_stopped.store(false);
}
void am::release_ack_state() {
    g_owed.lazy_pes.reset(0);
    g_owed.lazy_since.release();
    g_owed.lazy.release();
    g_owed.pes.reset(0);
    size_held(0);
    g_owed.count.release();
    g_owed.streams.clear();
}
void set_ack_endpoint(ack_endpoint endpoint_of) {
    detail::shared.ack_endpoint_of.store(endpoint_of);
    detail::shared.acks_owed.store(true);  // what arrived before it goes out at the next progress
}
void stop_acks() { detail::shared.acks_stopped.store(true); }

// A message that asked for an acknowledgement (signal_header::ack) ran: owed to its sender until
// the progress call returns (send_owed_acks), or (`lazy`) the next one does.
void am::owe_ack(std::uint32_t pe, std::uint32_t stream, bool lazy) {
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
    detail::shared.acks_owed.store(true, std::memory_order_relaxed);
    g_owed.release();
}

// A message of a context's own worker (ack_reply): acknowledged here, inside the handler, where
// UCX's reply endpoint is valid (its worker's lock, if shared, is held: UCX allows sends here).
void am::ack_now(const ucp_am_recv_param_t *param) {
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

void send_owed_acks() {
    const ack_endpoint endpoint_of = detail::shared.ack_endpoint_of.load(std::memory_order_acquire);
    const bool drop = detail::shared.acks_stopped.load(std::memory_order_relaxed);
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
        if (g_owed.none()) detail::shared.acks_owed.store(false, std::memory_order_relaxed);
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
            drive d(detail::shared.main_worker);
            am_send_copy(ep, ack_am_id, copy, sizeof batch[i], 0, 0, reply_sent);
        }
        if (k < 32) return;
    }
}

void allow_lazy_acks(bool on) { detail::shared.lazy_acks = on; }

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

} // namespace ushmem::transport
