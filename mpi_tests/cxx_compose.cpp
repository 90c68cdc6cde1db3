// Composing completions (<ushmem/compose.hpp>) and coroutines (<ushmem/coro.hpp>) at any number
// of PEs: when_all over events, value_events and a vector of pending fetches, then() continuations
// run once with the fetched value, movable value_events, co_await in tasks driven together,
// bounded co_await and when_all that succeed, and task exceptions.
#include <ushmem/ushmem.hpp>

#include "cxx_check.h"

#include <array>
#include <chrono>
#include <coroutine>
#include <span>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {
using namespace std::chrono_literals;

// when_all(events...), when_all(vector<event>), when_all(vector<value_event>), then().
void test_compose() {
    const std::size_t n = 32;
    ushmem::symmetric<long> data(n * std::size_t(npes));
    ushmem::symmetric<long> counter(1);
    std::vector<long> mine(n);
    std::iota(mine.begin(), mine.end(), long(me) * 1000);

    // Variadic: a put to every PE's slot for me joined with a fetch_add on PE 0.
    std::vector<ushmem::event> puts;
    for (int pe = 0; pe < npes; ++pe)
        puts.push_back(ushmem::put_async(data.on(pe).subspan(std::size_t(me) * n, n), mine));
    auto all = ushmem::when_all(ushmem::when_all(puts), ushmem::fetch_add_async(counter.at(0, 0), 1L));
    auto [ticket] = all.get(10s);
    CHECK(ticket >= 0 && ticket < npes);
    CHECK(all.test());
    ushmem::barrier();
    for (int pe = 0; pe < npes; ++pe)
        CHECK(data[std::size_t(pe) * n + 7] == long(pe) * 1000 + 7);
    if (me == 0) CHECK(counter[0] == npes);
    ushmem::barrier();

    // A variable number of pending fetches in a vector (value_event moves), joined: the values in
    // order. Each PE reads element i of every PE's block from PE i % npes.
    std::vector<ushmem::value_event<long>> fetches;
    for (int pe = 0; pe < npes; ++pe)
        for (std::size_t i = 0; i < 4; ++i)
            fetches.push_back(ushmem::fetch_add_async(data.at(std::size_t(pe) * n + i, int(i) % npes), 0L));
    CHECK(fetches.size() == std::size_t(npes) * 4);
    std::vector<long> got = ushmem::when_all(std::move(fetches)).get();
    CHECK(got.size() == std::size_t(npes) * 4);
    for (int pe = 0; pe < npes; ++pe)
        for (std::size_t i = 0; i < 4; ++i) CHECK(got[std::size_t(pe) * 4 + i] == long(pe) * 1000 + long(i));
    ushmem::barrier();  // every PE has read before the puts below change element 0 of a block

    // then(): runs once, with the fetched value; chains; on an event, f().
    int runs = 0;
    const int right = (me + 1) % npes;
    auto doubled = ushmem::fetch_add_async(data.at(std::size_t(right) * n + 3, right), 0L)
                       .then([&](long v) { ++runs; return v * 2; })
                       .then([&](long v) { ++runs; return std::to_string(v); });
    CHECK(doubled.get() == std::to_string((long(right) * 1000 + 3) * 2));
    CHECK(doubled.get() == std::to_string((long(right) * 1000 + 3) * 2));
    CHECK(runs == 2);  // once each, not once per get()
    bool sent = false;
    auto after = ushmem::put_async(data.at(std::size_t(me) * n, right), -5L).then([&] { sent = true; });
    while (!after.test()) {
    }
    CHECK(sent);
    // Other ranges: a std::array and a std::span of events (copied in).
    std::array<ushmem::event, 2> pair{ushmem::put_async(data.at(std::size_t(me) * n + 1, right), -6L),
                                      ushmem::put_async(data.at(std::size_t(me) * n + 2, right), -7L)};
    auto both = ushmem::when_all(pair);
    CHECK(both.size() == 2);
    both.wait(10s);
    ushmem::when_all(std::span<const ushmem::event>(puts)).wait();
    // The continuation of a when_all over the per-PE puts sees every one complete.
    int joined = 0;
    ushmem::when_all(puts).then([&] { ++joined; }).wait(10s);
    CHECK(joined == 1);
    ushmem::barrier();
    CHECK(data[std::size_t((me + npes - 1) % npes) * n] == -5);
    CHECK(data[std::size_t((me + npes - 1) % npes) * n + 1] == -6 && data[std::size_t((me + npes - 1) % npes) * n + 2] == -7);

    // A moved value_event still receives its reply; a moved-from one is empty.
    auto a = ushmem::fetch_add_async(counter.at(0, 0), 0L);
    ushmem::value_event<long> b(std::move(a));
    CHECK(b.get() == npes);
    ushmem::barrier();
}

// ---- coroutines ----

// Reads the right neighbour's block with get_async and sums it; computes on local data between
// the issue and the co_await.
ushmem::task<long> sum_remote(const ushmem::symmetric<long> &data, int pe, std::size_t n, long &local_work) {
    std::vector<long> buf(n);
    auto e = ushmem::get_async(buf, data.on(pe).subspan(0, n));
    for (std::size_t i = 0; i < n; ++i) local_work += data[i];  // overlapped with the get
    co_await e;
    long s = 0;
    for (long v : buf) s += v;
    co_return s;
}

ushmem::task<long> fetch_twice(const ushmem::symmetric<long> &ctr, int pe) {
    long a = co_await ushmem::fetch_add_async(ctr.at(0, pe), 1L);
    co_await ushmem::yield_now();
    long b = co_await ushmem::within(ushmem::fetch_add_async(ctr.at(0, pe), 1L), 10s);
    co_return b - a;  // 1 when nobody else incremented in between, more otherwise
}

ushmem::task<long> nested(const ushmem::symmetric<long> &data, int pe, std::size_t n, long &work) {
    long s = co_await sum_remote(data, pe, n, work);
    auto [x, y] = co_await ushmem::when_all(ushmem::fetch_add_async(data.at(0, pe), 0L),
                                            ushmem::fetch_add_async(data.at(1, pe), 0L));
    co_return s + x + y;
}

ushmem::task<void> throws_after_await(const ushmem::symmetric<long> &ctr) {
    co_await ushmem::fetch_add_async(ctr.at(0, 0), 0L);
    throw std::runtime_error("from the task");
}

ushmem::task<int> catches_child(const ushmem::symmetric<long> &ctr) {
    try {
        co_await throws_after_await(ctr);
    } catch (const std::runtime_error &e) {
        co_return std::string(e.what()) == "from the task" ? 1 : 2;
    }
    co_return 0;
}

ushmem::task<void> foreign_await() { co_await std::suspend_always{}; }

void test_coroutines() {
    const std::size_t n = 64;
    ushmem::symmetric<long> data(n);
    ushmem::symmetric<long> ctr(1);
    for (std::size_t i = 0; i < n; ++i) data[i] = long(me) * 100 + long(i);
    ushmem::barrier();
    const int right = (me + 1) % npes;
    const long expect_right = long(right) * 100 * long(n) + long(n * (n - 1) / 2);
    const long expect_mine = long(me) * 100 * long(n) + long(n * (n - 1) / 2);

    long work = 0;
    CHECK(ushmem::sync_wait(sum_remote(data, right, n, work)) == expect_right);
    CHECK(work == expect_mine);

    // Several tasks driven together: one per PE, and the fetches.
    std::vector<long> works(2, 0);  // one per task that sums (not per PE: 1 PE runs this too)
    auto t0 = sum_remote(data, 0, n, works[0]);
    auto t1 = fetch_twice(ctr, right);
    auto t2 = nested(data, right, n, works[1]);
    ushmem::run(t0, t1, t2);
    CHECK(t0.get() == long(n * (n - 1) / 2));
    const long d = t1.get();
    CHECK(d >= 1 && d < 2 * npes);
    CHECK(t2.get() == expect_right + long(right) * 200 + 1);
    ushmem::barrier();
    CHECK(ctr[0] == 2);  // the left neighbour's two increments

    // An exception in a task reaches get() (and sync_wait).
    auto bad = throws_after_await(ctr);
    ushmem::run(bad);
    bool caught = false;
    try {
        bad.get();
    } catch (const std::runtime_error &e) {
        caught = std::string(e.what()) == "from the task";
    }
    CHECK(caught);

    // A child's exception reaches the parent's co_await.
    CHECK(ushmem::sync_wait(catches_child(ctr)) == 1);
    // A task suspended on an awaitable the driver does not know: run() says so.
    bool refused = false;
    try {
        ushmem::sync_wait(foreign_await());
    } catch (const ushmem::invalid_argument &e) {
        refused = std::string(e.what()).find("a task is suspended on something other than a ushmem completion") !=
                  std::string::npos;
    }
    CHECK(refused);

    // co_await outside a driver (a task resumed by hand): waits in place.
    auto lone = sum_remote(data, right, n, work);
    lone.start();
    CHECK(lone.done() && lone.get() == expect_right);
    ushmem::barrier();
}

} // namespace

int main() {
    ushmem::runtime rt;
    me = rt.my_pe();
    npes = rt.n_pes();
    test_compose();
    test_coroutines();
    ushmem::barrier();
    if (me == 0) std::printf("cxx_compose: %s at %d PEs\n", failures ? "FAILED" : "ok", npes);
    return failures ? 1 : 0;
}
