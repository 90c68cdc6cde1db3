// Remote procedure calls (include/ushmem/rpc.hpp) at any number of PEs: round trips of values,
// spans, vectors and strings; void functions; fire-and-forget counting; an exception in the callee
// rethrown at the caller; a bad PE; unknown function ids and malformed argument bytes refused by
// the target (through the C API); a distributed hash table whose inserts the owner does, every
// element verified; calls from every PE to every PE at once; then() and when_all(); a function
// that itself calls the library; a target asleep in a barrier woken by calls. Mode "mt" (SHMEM_THREAD_MULTIPLE with a progress thread): a
// target that computes without calling the library still answers, its progress thread running the
// function.
#include <ushmem/ushmem.hpp>

#include "cxx_check.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace {
using namespace std::chrono_literals;

struct point {
    double x, y;
    int tag;
};

// Plain functions, named with rpc_fn (the address then works too).
long scale(long v, int by) { return v * by; }
std::vector<int> reversed(std::vector<int> v) { return {v.rbegin(), v.rend()}; }

std::atomic<long> g_ff_count{0};
long g_last_void = -1;
std::unordered_map<std::uint64_t, std::string> g_table;  // this PE's part of the hash table
long *g_sym_flag = nullptr;                              // symmetric: set by a function's put

void test_round_trips() {
    const int to = (me + 1) % npes;
    CHECK(ushmem::rpc(to, [](int a, double b) { return a * b + shmem_my_pe(); }, 3, 2.5).get() == 7.5 + to);
    // A trivially copyable struct there and back.
    const point p = ushmem::rpc(to, [](point q) { return point{q.y, q.x, q.tag + shmem_my_pe()}; },
                                point{1.0, 2.0, 40}).get();
    CHECK(p.x == 2.0 && p.y == 1.0 && p.tag == 40 + to);
    // Spans (received as a span, or as a vector) and strings (as string_view or string).
    std::vector<int> v(1000);
    for (int i = 0; i < 1000; ++i) v[std::size_t(i)] = i * (me + 1);
    const long sum = ushmem::rpc(to, [](std::span<const int> s) {
                         long t = 0;
                         for (int x : s) t += x;
                         return t;
                     }, std::span<const int>(v)).get();
    CHECK(sum == 499500L * (me + 1));
    const std::vector<int> r = ushmem::rpc(to, ushmem::rpc_fn<&reversed>, v).get();
    CHECK(r.size() == v.size() && r.front() == v.back() && r.back() == v.front());
    const std::string s = ushmem::rpc(to, [](std::string_view a, const std::string &b) {
                              return std::string(a) + "+" + b + "@" + std::to_string(shmem_my_pe());
                          }, "left", std::string("right")).get();
    CHECK(s == "left+right@" + std::to_string(to));
    // Empty span and string, and a large one (256 KiB: several fragments over tcp).
    CHECK(ushmem::rpc(to, [](std::span<const double> d, std::string_view t) { return d.size() + t.size(); },
                      std::span<const double>(), std::string()).get() == 0);
    std::vector<std::uint64_t> big(32768);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = i ^ std::uint64_t(me);
    CHECK(ushmem::rpc(to, [](std::vector<std::uint64_t> b) {
              std::uint64_t x = 0;
              for (std::size_t i = 0; i < b.size(); ++i) x += b[i] == (i ^ std::uint64_t((shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes())) ? 1 : 0;
              return x;
          }, big).get() == big.size());
    // A named function, by rpc_fn and by its address (registered by the rpc_fn use).
    CHECK(ushmem::rpc(to, ushmem::rpc_fn<&scale>, 21L, 2).get() == 42);
    CHECK(ushmem::rpc(to, &scale, 5L, 3).get() == 15);
    CHECK(ushmem::rpc(me, &scale, 7L, 3).get() == 21);  // to itself
}

void test_void() {
    const int to = (me + npes - 1) % npes;
    ushmem::rpc_event<void> e = ushmem::rpc(to, [](long v) { g_last_void = v; }, long(me) * 10 + 1);
    e.wait();
    CHECK(e.test());
    CHECK(ushmem::rpc(to, [] { return g_last_void; }).get() == long(me) * 10 + 1);
    ushmem::barrier();  // every PE has read its own value before the next test writes g_last_void
}

void test_fire_and_forget() {
    const int per_pe = 200;
    for (int i = 0; i < per_pe; ++i)
        for (int pe = 0; pe < npes; ++pe) ushmem::rpc_ff(pe, [](int k) { g_ff_count.fetch_add(k); }, 1);
    // The target runs them at its progress: count until every PE's have arrived.
    const long want = long(per_pe) * npes;
    const auto until = std::chrono::steady_clock::now() + 60s;
    while (g_ff_count.load() < want && std::chrono::steady_clock::now() < until) ushmem::progress();
    CHECK(g_ff_count.load() == want);
    ushmem::barrier();
}

void test_errors() {
    const int to = (me + 1) % npes;
    // An exception in the callee comes back as rpc_error with its what() and PE.
    auto e = ushmem::rpc(to, [](int k) -> int {
        throw std::runtime_error("no such key " + std::to_string(k) + " on " + std::to_string(shmem_my_pe()));
    }, 17);
    bool caught = false;
    try {
        (void)e.get();
    } catch (const ushmem::rpc_error &x) {
        caught = true;
        CHECK(x.pe() == to);
        CHECK(x.why() == ushmem::rpc_error::reason::threw);
        CHECK(std::string(x.remote_what()) == "no such key 17 on " + std::to_string(to));
        CHECK(std::string(x.what()).find("no such key 17") != std::string::npos);
        CHECK(x.code() == ushmem::errc::remote_call);
    }
    CHECK(caught);
    // The failure stays: a second get() rethrows it.
    caught = false;
    try {
        (void)e.get();
    } catch (const ushmem::rpc_error &) {
        caught = true;
    }
    CHECK(caught);
    // A void function that throws something not derived from std::exception.
    caught = false;
    try {
        ushmem::rpc(to, [] { throw 42; }).wait();
    } catch (const ushmem::rpc_error &x) {
        caught = std::string(x.remote_what()).find("not derived from std::exception") != std::string::npos;
    }
    CHECK(caught);
    // A bad PE: at once, naming the routine and the PE.
    for (int bad : {npes, -1}) {
        caught = false;
        try {
            (void)ushmem::rpc(bad, [] { return 1; });
        } catch (const ushmem::invalid_argument &x) {
            const std::string w = x.what();
            caught = w.find("rpc") != std::string::npos && w.find("PE " + std::to_string(bad)) != std::string::npos;
            if (!caught) std::fprintf(stderr, "PE %d: bad PE message: %s\n", me, w.c_str());
        }
        CHECK(caught);
        caught = false;
        try {
            ushmem::rpc_ff(bad, [] {});
        } catch (const ushmem::invalid_argument &) {
            caught = true;
        }
        CHECK(caught);
    }
    // An unknown function id and malformed argument bytes, through the C API: the target refuses
    // them with a reply naming the problem (and goes on serving).
    const char junk[3] = {1, 2, 3};
    std::uint64_t req = 0;
    shmemx_rpc_send(to, 0xfffffff0u, junk, sizeof junk, &req);
    void *reply = nullptr;
    std::size_t n = 0;
    int status = -1;
    while (!shmemx_rpc_test(req, &reply, &n, &status)) {}
    CHECK(status == SHMEMX_RPC_UNKNOWN_FUNCTION);
    CHECK(std::string(static_cast<const char *>(reply), n).find("no function with id 4294967280") != std::string::npos);
    shmemx_rpc_free(reply);
    const std::uint32_t id = shmemx_rpc_find(reinterpret_cast<const void *>(&scale));
    CHECK(id != UINT32_MAX);
    shmemx_rpc_send(to, id, junk, sizeof junk, &req);  // scale takes 12 bytes, not 3
    while (!shmemx_rpc_test(req, &reply, &n, &status)) {}
    CHECK(status == SHMEMX_RPC_BAD_ARGS);
    shmemx_rpc_free(reply);
    // Through the C++ API the same failure is an rpc_error (a vector's count that overruns).
    std::uint64_t huge = ~std::uint64_t(0);
    const std::uint32_t rid = shmemx_rpc_find(reinterpret_cast<const void *>(&reversed));
    shmemx_rpc_send(to, rid, &huge, sizeof huge, &req);
    while (!shmemx_rpc_test(req, &reply, &n, &status)) {}
    CHECK(status == SHMEMX_RPC_BAD_ARGS);
    shmemx_rpc_free(reply);
    CHECK(ushmem::rpc(to, &scale, 2L, 2).get() == 4);  // still serving
    ushmem::barrier();
}

// A distributed hash table: key k lives on PE k % npes; inserts and lookups are calls to the owner,
// which alone touches its part.
void test_hash_table() {
    const std::uint64_t per_pe = 500;
    std::vector<ushmem::rpc_event<bool>> inserts;
    for (std::uint64_t i = 0; i < per_pe; ++i) {
        const std::uint64_t key = std::uint64_t(me) * per_pe + i;
        inserts.push_back(ushmem::rpc(int(key % std::uint64_t(npes)), [](std::uint64_t k, std::string_view v) {
            return g_table.emplace(k, std::string(v)).second;
        }, key, "value-" + std::to_string(key * 7 + 1)));
    }
    long fresh = 0;
    for (auto &e : inserts) fresh += e.get() ? 1 : 0;
    CHECK(fresh == long(per_pe));
    ushmem::barrier();
    // Every PE's part holds exactly its keys.
    for (const auto &[k, v] : g_table) CHECK(int(k % std::uint64_t(npes)) == me && v == "value-" + std::to_string(k * 7 + 1));
    const std::uint64_t total = per_pe * std::uint64_t(npes);
    std::uint64_t owned = 0;
    for (int pe = 0; pe < npes; ++pe) owned += ushmem::rpc(pe, [] { return std::uint64_t(g_table.size()); }).get();
    CHECK(owned == total);
    // Every element read back by every PE (in flight together), and a missing key.
    std::vector<ushmem::rpc_event<std::string>> reads;
    for (std::uint64_t key = 0; key < total; ++key)
        reads.push_back(ushmem::rpc(int(key % std::uint64_t(npes)), [](std::uint64_t k) {
            auto it = g_table.find(k);
            return it == g_table.end() ? std::string("missing") : it->second;
        }, key));
    long right = 0;
    for (std::uint64_t key = 0; key < total; ++key) right += reads[key].get() == "value-" + std::to_string(key * 7 + 1);
    CHECK(right == long(total));
    CHECK(ushmem::rpc(0, [](std::uint64_t k) { return g_table.count(k) != 0; }, total * 2).get() == false);
    ushmem::barrier();
}

// Every PE calls every PE at once, many calls each, and waits for them all together.
void test_all_to_all() {
    const int rounds = 50;
    std::vector<ushmem::rpc_event<long>> evs;
    for (int r = 0; r < rounds; ++r)
        for (int pe = 0; pe < npes; ++pe)
            evs.push_back(ushmem::rpc(pe, [](int from, int round) {
                return long(shmem_my_pe()) * 1000000 + long(from) * 1000 + round;
            }, me, r));
    auto all = ushmem::when_all(std::move(evs));
    all.wait(60s);
    std::size_t i = 0;
    long right = 0;
    for (int r = 0; r < rounds; ++r)
        for (int pe = 0; pe < npes; ++pe, ++i)
            right += all.parts()[i].value() == long(pe) * 1000000 + long(me) * 1000 + r;
    CHECK(right == long(rounds) * npes);
    // then(): a continuation on the result.
    const int to = (me + 1) % npes;
    CHECK(ushmem::rpc(to, [] { return shmem_my_pe(); }).then([](int pe) { return pe * 2; }).get() == to * 2);
    ushmem::barrier();
}

// A function that calls the library: it puts into the caller's symmetric flag, which the caller
// waits for (shmem_wait_until is also where this PE serves the calls made to it).
void test_library_inside() {
    *g_sym_flag = 0;
    ushmem::barrier();
    const int to = (me + 1) % npes;
    ushmem::rpc_ff(to, [](int caller) {
        shmem_long_p(g_sym_flag, 1000 + shmem_my_pe(), caller);
        shmem_quiet();
    }, me);
    shmem_long_wait_until(g_sym_flag, SHMEM_CMP_NE, 0);
    CHECK(*g_sym_flag == 1000 + to);
    ushmem::barrier();
}

// A target that waits in a barrier (asleep there, past its spin) is woken by each call: 200 calls
// in well under the 20 s that a 100 ms sleep slice per call would take.
void test_sleeping_target() {
    if (npes < 2) return;
    if (me == 0) {
        const auto t0 = std::chrono::steady_clock::now();
        long right = 0;
        for (int i = 0; i < 200; ++i) right += ushmem::rpc(1, [](int k) { return k + 1; }, i).get() == i + 1;
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        CHECK(right == 200);
        CHECK(s < 10.0);
        if (s >= 10.0) std::fprintf(stderr, "PE 0: 200 calls to a PE in a barrier took %.1f s\n", s);
    }
    ushmem::barrier();
}

// SHMEM_THREAD_MULTIPLE and a progress thread: the target computes (no library call) while PE 0
// calls it; its progress thread runs the function.
void test_progress_thread() {
    if (npes < 2 || !shmemx_progress_thread_running()) {
        if (me == 0) std::printf("cxx_rpc: mt: no progress thread here; skipped\n");
        return;
    }
    static std::atomic<bool> released{false};
    released = false;
    ushmem::barrier();
    if (me == 1) {
        const auto until = std::chrono::steady_clock::now() + 30s;
        while (!released.load() && std::chrono::steady_clock::now() < until) {}  // computing
        CHECK(released.load());
    } else if (me == 0) {
        CHECK(ushmem::rpc(1, [] {
            released = true;
            return 7;
        }).get(20s) == 7);
    }
    ushmem::barrier();
}
} // namespace

int main(int argc, char **argv) {
    const bool mt = argc > 1 && std::strcmp(argv[1], "mt") == 0;
    ushmem::runtime rt(mt ? SHMEM_THREAD_MULTIPLE : SHMEM_THREAD_SINGLE);
    me = rt.my_pe();
    npes = rt.n_pes();
    g_sym_flag = static_cast<long *>(shmem_malloc(sizeof(long)));
    if (mt) {
        CHECK(rt.thread_level() == SHMEM_THREAD_MULTIPLE);
        test_progress_thread();
    }
    test_round_trips();
    ushmem::barrier();
    test_void();
    test_fire_and_forget();
    test_errors();
    test_hash_table();
    test_all_to_all();
    test_library_inside();
    test_sleeping_target();
    shmem_free(g_sym_flag);
    if (me == 0) std::printf("cxx_rpc%s: %s at %d PEs\n", mt ? " mt" : "", failures ? "FAILED" : "ok", npes);
    return failures ? 1 : 0;
}
