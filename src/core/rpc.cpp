// core/rpc.cpp: remote procedure calls: the function table, the calls this PE runs (queued by the
// transport's handler, run by transport::run_rpcs where it is safe), the requests it awaits.
#include "core/rpc.hpp"

#include "core/log.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"
#include "transport/am/rpc.hpp"
#include "transport/progress.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ushmem::core {

namespace {
// ---- the function table --------------------------------------------------------------------------
// Identifying a function across processes: its id is its position in this table. The table is
// sorted by where each trampoline lies in its module (the module's file name, then the offset from
// its load address), which is the same in every process of one binary whatever ASLR did, and
// whatever order static initialization registered them in (unordered for template members). A raw
// offset of the function from a known symbol would need no table, but the target could then be
// sent to any address: the table lets it refuse an id it does not have, and the signature hash an
// entry whose types differ. The table's checksum travels with every request, so a PE of another
// build is told so at its first call, without a collective at first use.
struct entry {
    rpc_trampoline fn;
    std::uint64_t signature;
    const char *name;
    const void *key;
    std::string module;
    std::uintptr_t offset;
};
struct table {
    std::mutex lock;
    std::vector<entry> all;
    std::unordered_map<const void *, std::uint32_t> by_fn, by_key;
    bool sorted = false;
    std::uint64_t checksum = 0;
};
// Never destroyed: registrations run during static initialization (before this file's statics
// might be constructed) and a late call may look it up during exit.
table &tab() {
    static table *t = new table;
    return *t;
}

std::uint64_t fnv(std::uint64_t h, const void *p, std::size_t n) {
    const auto *b = static_cast<const unsigned char *>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

void locate_entry(entry &e) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(e.fn), &info) && info.dli_fbase) {
        const char *file = info.dli_fname ? std::strrchr(info.dli_fname, '/') : nullptr;
        e.module = file ? file + 1 : (info.dli_fname ? info.dli_fname : "");
        e.offset = reinterpret_cast<std::uintptr_t>(e.fn) - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    } else {
        e.offset = reinterpret_cast<std::uintptr_t>(e.fn);  // (not in a module: a static binary)
    }
}

// Under t.lock.
void index(table &t) {
    t.by_fn.clear();
    t.by_key.clear();
    t.checksum = 0xcbf29ce484222325ull;
    for (std::uint32_t i = 0; i < t.all.size(); ++i) {
        const entry &e = t.all[i];
        t.by_fn.emplace(reinterpret_cast<const void *>(e.fn), i);
        if (e.key) t.by_key.emplace(e.key, i);
        t.checksum = fnv(t.checksum, e.module.data(), e.module.size());
        t.checksum = fnv(t.checksum, &e.offset, sizeof e.offset);
        t.checksum = fnv(t.checksum, &e.signature, sizeof e.signature);
    }
}

// At init: every module loaded with the program has registered its functions by now. Later ones
// (dlopen) are appended in the order they register, which must then be the same on every PE.
void sort_table() {
    table &t = tab();
    std::lock_guard<std::mutex> g(t.lock);
    if (t.sorted) return;
    std::sort(t.all.begin(), t.all.end(), [](const entry &a, const entry &b) {
        return a.module != b.module ? a.module < b.module : a.offset < b.offset;
    });
    t.sorted = true;
    index(t);
}

// ---- calls received, to run ----------------------------------------------------------------------
struct call {
    transport::rpc_header h;
    char *args;  // malloc'd (16-byte aligned), n bytes
    std::size_t n;
};
std::mutex g_calls_lock;
std::deque<call> g_calls;

// ---- requests awaited ----------------------------------------------------------------------------
struct outcome {
    bool done = false;
    std::uint32_t status = 0;
    char *reply = nullptr;  // malloc'd
    std::size_t n = 0;
};
std::mutex g_req_lock;
std::unordered_map<std::uint64_t, outcome> g_reqs;
std::uint64_t g_next_request = 1;

void deliver_reply(std::uint64_t request, std::uint32_t status, const void *data, std::size_t n) {
    char *copy = static_cast<char *>(std::malloc(n ? n : 1));
    if (!copy) {
        status = transport::rpc_gone;
        n = 0;
    } else if (n) {
        std::memcpy(copy, data, n);
    }
    std::lock_guard<std::mutex> g(g_req_lock);
    auto it = g_reqs.find(request);
    if (it == g_reqs.end() || it->second.done) {  // cancelled (or a reply twice: never from us)
        std::free(copy);
        return;
    }
    it->second = outcome{true, status, copy, n};
}

// The transport's handlers (inside UCX's callback, any thread): copy and queue, nothing more.
void on_request(const transport::rpc_header &h, const void *data, std::size_t n) {
    if (h.from >= std::uint32_t(rt.npes)) {
        std::fprintf(stderr, "ushmem: internal error: a remote procedure call from PE %u (%d PEs); dropped\n",
                     h.from, rt.npes);
        return;
    }
    char *copy = static_cast<char *>(std::malloc(n ? n : 1));
    if (!copy) {
        std::fprintf(stderr, "ushmem: out of memory for a remote procedure call of %zu bytes from PE %u; "
                             "dropped\n", n, h.from);
        return;
    }
    if (n) std::memcpy(copy, data, n);
    std::lock_guard<std::mutex> g(g_calls_lock);
    g_calls.push_back(call{h, copy, n});
    transport::detail::rpc_queued.store(true, std::memory_order_release);
}

void on_reply(const transport::rpc_reply_header &h, const void *data, std::size_t n) {
    deliver_reply(h.request, h.status, data, n);
}

// Why a call cannot run here (status and text), or rpc_ok.
std::uint32_t check_call(const transport::rpc_header &h, std::string &why, rpc_trampoline &fn) {
    if (rt.state != lib_state::running) {
        why = "the target PE has finalized";
        return transport::rpc_gone;
    }
    table &t = tab();
    std::lock_guard<std::mutex> g(t.lock);
    if (h.fn >= t.all.size()) {
        why = "no function with id " + std::to_string(h.fn) + " here (this PE's table has " +
              std::to_string(t.all.size()) + "): is every PE running the same binary?";
        return transport::rpc_unknown_fn;
    }
    const entry &e = t.all[h.fn];
    if (std::uint32_t(e.signature) != h.fn_check || h.table != t.checksum) {
        why = std::string("function id ") + std::to_string(h.fn) + " is '" + (e.name ? e.name : "?") +
              "' here, of another signature or table than the caller's: is every PE running the same binary?";
        return transport::rpc_unknown_fn;
    }
    fn = e.fn;
    return transport::rpc_ok;
}

void reply_to(const call &c, std::uint32_t status, const void *data, std::size_t n) {
    if (!c.h.request) {  // fire and forget: nobody to tell but this PE's stderr
        if (status != transport::rpc_ok)
            error("rpc_ff", "a call from PE %u failed here: %.*s", c.h.from, int(n), static_cast<const char *>(data));
        return;
    }
    if (c.h.from == std::uint32_t(rt.me)) return deliver_reply(c.h.request, status, data, n);
    const transport::rpc_reply_header r{c.h.request, status, std::uint32_t(rt.me)};
    if (const char *err = transport::rpc_reply_nbx(c.h.from, r, data, n))
        error("rpc", "cannot send the reply to a call from PE %u: %s", c.h.from, err);
}

// One thread at a time runs this PE's calls (g_run_lock): at SHMEM_THREAD_MULTIPLE the progress
// thread and the PE's own threads all reach rpc_points, and the program's functions would
// otherwise run concurrently with one another (a hash table's inserts racing on its part: the
// 4-PE mt test lost entries about one run in six). A thread that finds it taken leaves the queue
// to the one running it.
std::mutex g_run_lock;

void run_batch(std::deque<call> &batch);

// transport::run_rpcs: the calls queued so far, and those that arrive meanwhile, for a few rounds
// (then the next rpc_point goes on: a stream of calls must not keep the PE here forever).
void run_queued() {
    std::unique_lock<std::mutex> running(g_run_lock, std::try_to_lock);
    if (!running.owns_lock()) return;
    for (int round = 0; round < 4; ++round) {
        std::deque<call> batch;
        {
            std::lock_guard<std::mutex> g(g_calls_lock);
            batch.swap(g_calls);
            transport::detail::rpc_queued.store(false, std::memory_order_relaxed);
        }
        if (batch.empty()) return;
        run_batch(batch);
    }
}

void run_batch(std::deque<call> &batch) {
    for (call &c : batch) {
        std::string why;
        rpc_trampoline fn = nullptr;
        std::uint32_t status = check_call(c.h, why, fn);
        void *out = nullptr;
        std::size_t out_n = 0;
        if (status == transport::rpc_ok) {
            const int r = fn(c.args, c.n, &out, &out_n);
            status = r == 0 ? transport::rpc_ok : r == 1 ? transport::rpc_threw : transport::rpc_bad_args;
            reply_to(c, status, out, out_n);
        } else {
            reply_to(c, status, why.data(), why.size());
        }
        std::free(out);
        std::free(c.args);
        c.args = nullptr;
    }
}
} // namespace

int rpc_register(rpc_trampoline fn, std::uint64_t signature, const char *name, const void *key) {
    table &t = tab();
    std::lock_guard<std::mutex> g(t.lock);
    if (t.by_fn.count(reinterpret_cast<const void *>(fn))) return 0;  // (identical code folded into one)
    try {
        entry e{fn, signature, name, key, {}, 0};
        locate_entry(e);
        t.all.push_back(std::move(e));
        index(t);  // (a sorted table stays so: a late entry goes last)
    } catch (...) {
        return -1;
    }
    return 0;
}

std::uint32_t rpc_id(const void *fn_or_key, bool by_key) {
    sort_table();
    table &t = tab();
    std::lock_guard<std::mutex> g(t.lock);
    const auto &m = by_key ? t.by_key : t.by_fn;
    auto it = m.find(fn_or_key);
    return it == m.end() ? UINT32_MAX : it->second;
}

void rpc_init() {
    sort_table();
    transport::set_rpc_handlers(on_request, on_reply);
    // The program's functions run on the progress thread only where its thread level says that
    // any thread may call the library at any time (SHMEM_THREAD_MULTIPLE); below that the program
    // promised one thread at a time, its own, so they wait for one of its rpc_points.
    transport::set_rpc_runner(run_queued, rt.thread_level == thread_multiple);
}

void rpc_finalize() {
    {
        std::lock_guard<std::mutex> g(g_calls_lock);
        for (call &c : g_calls) std::free(c.args);
        g_calls.clear();
        transport::detail::rpc_queued.store(false, std::memory_order_relaxed);
    }
    std::lock_guard<std::mutex> g(g_req_lock);
    for (auto &[id, o] : g_reqs) std::free(o.reply);
    g_reqs.clear();
}

std::uint64_t rpc_send(const char *routine, int pe, std::uint32_t fn, const void *args, std::size_t n,
                       bool want_reply) {
    table &t = tab();
    transport::rpc_header h{};
    {
        // An id this PE does not have either goes as it is: the target refuses it with a reply that
        // names it (the C++ API never sends one; a C program may).
        std::lock_guard<std::mutex> g(t.lock);
        h.fn = fn;
        h.fn_check = fn < t.all.size() ? std::uint32_t(t.all[fn].signature) : 0;
        h.table = t.checksum;
    }
    h.from = std::uint32_t(rt.me);
    if (want_reply) {
        std::lock_guard<std::mutex> g(g_req_lock);
        h.request = g_next_request++;
        g_reqs.emplace(h.request, outcome{});
    }
    if (pe == rt.me) {  // to itself: queued as if it had arrived (run at the next rpc_point)
        on_request(h, args, n);
        return h.request;
    }
    if (const char *err = transport::rpc_request_nbx(std::uint32_t(pe), h, args, n))
        fatal(routine, "cannot send a remote procedure call to PE %d: %s", pe, err);
    // A target on this node may sleep on its wake word in a wait (a barrier, wait_until) that only
    // the library's own signals wake: a message over UCX's shared memory wakes nothing there, and
    // it slept out its slice (100 ms) per call (the rpc row of bench/cxx_overhead.cpp). Over the
    // network its progress thread, or its sleep on the worker's fd, sees the message.
    wake_pe(routine, pe);
    return h.request;
}

int rpc_test(std::uint64_t request, void **reply, std::size_t *n, int *status) {
    rpc_progress();
    std::lock_guard<std::mutex> g(g_req_lock);
    auto it = g_reqs.find(request);
    if (it == g_reqs.end() || !it->second.done) return 0;
    if (reply) *reply = it->second.reply;
    else std::free(it->second.reply);
    if (n) *n = it->second.n;
    if (status) *status = int(it->second.status);
    g_reqs.erase(it);
    return 1;
}

void rpc_cancel(std::uint64_t request) {
    std::lock_guard<std::mutex> g(g_req_lock);
    auto it = g_reqs.find(request);
    if (it == g_reqs.end()) return;
    std::free(it->second.reply);
    g_reqs.erase(it);
}

void rpc_progress() {
    const transport::rpc_point here;
    transport::progress();
    transport::run_rpcs();  // (self-calls queued without a message: progress() may find none)
}

} // namespace ushmem::core
