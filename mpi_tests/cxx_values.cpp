// The C++ API's value collectives, dist_object, awaitable waits, flattening then and block-cyclic
// dist_array (issue #52, items 9 to 12), each checked by value.
//
// Usage: cxx_values MODE, MODE one of
//   reduce       reduce_all of every op on int, long, double, unsigned long, on the world, on the
//                shared team and on two overlapping split teams used in turn (each gets its own
//                slot); bad op -> invalid_argument; 1000 sums in a row
//   broadcast    broadcast of a long, a 16-byte struct and a 1000-byte struct (several pieces),
//                from every root; a bad root -> invalid_argument
//   async        reduce_all_async / broadcast_async: get, co_await in a task, when_all with a put,
//                then; moved-from throws; runs once (a second get returns the same value)
//   dist_object  dist_object<long> and of a struct: local access, fetch (value_event), get, set,
//                set_async, fetch_add on at(r), over the world and over a split team
//   wait         co_await wait_until_async / signal_wait_until_async in a task while another task
//                of the same PE produces what the neighbour waits for (needs the driver to poll
//                both); blocking and bounded signal_wait_until
//   then_flat    then(f) with f returning an event, a value_event and another then: the value is
//                the inner one; a moved-from event to several PEs is still the same event
//   cyclic       dist_array with block_cyclic{b}: ownership, local_size, for_each indices, bulk
//                get/put across blocks, inc and add
// Exits 0 when every check holds.
#include <ushmem/ushmem.hpp>

#include "cxx_check.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {
using namespace std::chrono_literals;
using ushmem::reduce_op;

template <class E, class F> bool throws(F f) {
    try {
        f();
    } catch (const E &) {
        return true;
    } catch (...) {
        return false;
    }
    return false;
}

void reduce_on(const ushmem::team &t) {
    if (!t.valid()) return;
    const int r = t.my_pe(), n = t.n_pes();
    CHECK(ushmem::reduce_all(r + 1, reduce_op::sum, t) == n * (n + 1) / 2);
    CHECK(ushmem::reduce_all(long(r) + 1, reduce_op::prod, t) == [n] { long p = 1; for (int i = 1; i <= n; ++i) p *= i; return p; }());
    CHECK(ushmem::reduce_all(double(r) * 0.5, reduce_op::max, t) == (n - 1) * 0.5);
    CHECK(ushmem::reduce_all(r - 3, reduce_op::min, t) == -3);
    CHECK(ushmem::reduce_all(1ul << r, reduce_op::bit_or, t) == (1ul << n) - 1);
    CHECK(ushmem::reduce_all(~0ul ^ (1ul << r), reduce_op::bit_and, t) == ~((1ul << n) - 1));
    CHECK(ushmem::reduce_all(1u << r, reduce_op::bit_xor, t) == (1u << n) - 1);
    CHECK(ushmem::reduce_all(1.0f, reduce_op::sum, t, 30s) == float(n));
}

void test_reduce() {
    reduce_on(ushmem::world());
    reduce_on(ushmem::team::shared());
    CHECK(ushmem::reduce_all(2L, reduce_op::sum, 10s) == 2L * npes);
    // Two overlapping teams (the first and the last n/2 + 1 PEs), used alternately: their slots differ.
    const int h = npes / 2 + 1 > npes ? npes : npes / 2 + 1;
    auto a = ushmem::world().split_strided(0, 1, h);
    auto b = ushmem::world().split_strided(npes - h, 1, h);
    for (int k = 0; k < 20; ++k) {
        if (a.valid()) CHECK(ushmem::reduce_all(long(me + k), reduce_op::sum, a) == long(h) * k + long(h) * (h - 1) / 2);
        if (b.valid())
            CHECK(ushmem::reduce_all(long(me), reduce_op::max, b) == long(npes - 1));
    }
    reduce_on(a);
    {  // a team made and destroyed repeatedly: its slot is given back each time
        for (int k = 0; k < 100; ++k) {
            auto c = ushmem::world().split_strided(0, 1, npes);
            CHECK(ushmem::reduce_all(1, reduce_op::sum, c) == npes);
        }
    }
    CHECK(throws<ushmem::invalid_argument>([] { (void)ushmem::reduce_all(1.0, reduce_op::bit_and); }));
    long total = 0;
    for (int k = 0; k < 1000; ++k) total += ushmem::reduce_all(long(k), reduce_op::sum);
    CHECK(total == long(npes) * 999 * 1000 / 2);
}

struct pair16 {
    long a;
    double b;
};
struct big {
    char bytes[1000];
};

void test_broadcast() {
    for (int root = 0; root < npes; ++root) {
        CHECK(ushmem::broadcast(long(me * 7 + 1), root) == long(root * 7 + 1));
        const pair16 p = ushmem::broadcast(pair16{me, me * 0.25}, root);
        CHECK(p.a == root && p.b == root * 0.25);
        big x;
        std::memset(x.bytes, 'a' + me % 26, sizeof x.bytes);
        x.bytes[999] = char(me);
        const big y = ushmem::broadcast(x, root, ushmem::world(), 30s);
        CHECK(y.bytes[0] == 'a' + root % 26 && y.bytes[500] == 'a' + root % 26 && y.bytes[999] == char(root));
    }
    CHECK(throws<ushmem::invalid_argument>([] { (void)ushmem::broadcast(1, npes); }));
    auto odd = ushmem::world().split_strided(npes > 1 ? 1 : 0, 2, npes > 1 ? npes / 2 : 1);
    if (odd.valid()) CHECK(ushmem::broadcast(me, 0, odd) == (npes > 1 ? 1 : 0));
}

ushmem::task<long> sum_task(long v) { co_return co_await ushmem::reduce_all_async(v, reduce_op::sum); }

void test_async() {
    auto e = ushmem::reduce_all_async(long(me), reduce_op::sum);
    const long want = long(npes) * (npes - 1) / 2;
    CHECK(e.get() == want);
    CHECK(e.get() == want && e.test() && e.value() == want);  // ran once
    CHECK(ushmem::sync_wait(sum_task(me)) == want);
    // when_all with an RMA event, then a continuation on the result.
    ushmem::symmetric<long> box(1);
    auto both = ushmem::when_all(ushmem::put_async(box.at(0, (me + 1) % npes), long(me)),
                                 ushmem::broadcast_async(42L + me, npes - 1));
    auto [bcast] = both.get();
    CHECK(bcast == 42L + npes - 1);
    auto doubled = ushmem::reduce_all_async(1, reduce_op::sum).then([](int s) { return 2 * s; });
    CHECK(doubled.get() == 2 * npes);
    auto moved = ushmem::reduce_all_async(1, reduce_op::max);
    auto into = std::move(moved);
    CHECK(throws<ushmem::invalid_argument>([&] { (void)moved.get(); }));
    CHECK(throws<ushmem::invalid_argument>([&] { (void)moved.test(); }));
    CHECK(into.get() == 1);
    ushmem::barrier();
    CHECK(box[0] == (me + npes - 1) % npes);
    auto bad = ushmem::broadcast_async(1, -1);
    CHECK(throws<ushmem::invalid_argument>([&] { bad.wait(); }));
    CHECK(bad.test() && throws<ushmem::invalid_argument>([&] { (void)bad.get(); }));  // failed stays failed
}

struct cell {
    int id;
    double w;
};

void test_dist_object() {
    ushmem::dist_object<long> d(100L + me);
    CHECK(*d == 100 + me && d.local() == 100 + me && d.team_rank() == me && d.team_size() == npes);
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    auto f = d.fetch(right);
    CHECK(f.get() == 100 + right);
    CHECK(d.get(left, 10s) == 100 + left);
    std::vector<ushmem::value_event<long>> all;
    for (int r = 0; r < npes; ++r) all.push_back(d.fetch(r));
    const std::vector<long> vals = ushmem::when_all(std::move(all)).get();
    for (int r = 0; r < npes; ++r) CHECK(vals[std::size_t(r)] == 100 + r);
    ushmem::barrier();
    d.set(right, 1000L + me);
    ushmem::barrier();
    CHECK(*d == 1000 + left);
    ushmem::barrier();  // (read before another PE adds)
    (void)ushmem::fetch_add(d.at(0), 1L);
    ushmem::barrier();
    if (me == 0) CHECK(*d == 1000 + left + npes);
    CHECK(throws<ushmem::invalid_argument>([&] { (void)d.fetch(npes); }));

    ushmem::dist_object<cell> c(cell{me, me * 1.5});
    c->w += 1;
    ushmem::barrier();
    const cell got = c.fetch(left).get();
    CHECK(got.id == left && got.w == left * 1.5 + 1);
    ushmem::barrier();
    c.set_async(right, cell{-me, 0.0}).wait();
    ushmem::barrier();
    CHECK(c->id == -left);

    // Over the even PEs; the odd ones take part in the construction and hold nothing addressable.
    auto even = ushmem::world().split_strided(0, 2, (npes + 1) / 2);
    ushmem::dist_object<int> e(me * 3, even);
    if (even.valid()) {
        const int n = even.n_pes(), r = even.my_pe();
        CHECK(e.team_size() == n && e.team_rank() == r);
        CHECK(e.fetch((r + 1) % n).get() == ((r + 1) % n) * 2 * 3);
    } else {
        CHECK(e.team_rank() == -1 && throws<ushmem::invalid_argument>([&] { (void)e.fetch(0); }));
    }
    ushmem::barrier();
}

// One task waits for the left neighbour's flag and signal; another (on the same PE) sets the right
// neighbour's only after a few yields. Were the waiter to block in shmem_wait_until, no PE's
// producer would run (at 1 PE the waiter waits for its own PE's producer): the run completes only
// because the driver polls the awaitable waits and resumes the producer meanwhile.
ushmem::task<int> waiter(ushmem::symmetric<int> &flag, std::uint64_t &sig) {
    co_await ushmem::wait_until_async(flag, 0, ushmem::cmp::eq, 1);
    const std::uint64_t s = co_await ushmem::within(ushmem::signal_wait_until_async(sig, ushmem::cmp::ge, 5), 30s);
    co_return int(s);
}
ushmem::task<> producer(ushmem::symmetric<int> &flag, ushmem::symmetric<std::uint64_t> &sig, bool *ran) {
    const int right = (me + 1) % npes;
    for (int i = 0; i < 5; ++i) co_await ushmem::yield_now();
    *ran = true;
    ushmem::put(flag.at(0, right), 1);
    ushmem::quiet();
    shmem_signal_add(sig.data(), 5, right);
    ushmem::quiet();
}

void test_wait() {
    ushmem::symmetric<int> flag(1);
    ushmem::symmetric<std::uint64_t> sig(1);
    bool ran = false;
    auto w = waiter(flag, sig[0]);
    auto p = producer(flag, sig, &ran);
    ushmem::run(w, p);
    CHECK(w.get() == 5 && ran);
    ushmem::barrier();
    // Blocking and bounded forms; a timeout names the signal wait.
    shmem_signal_add(sig.data(), 2, (me + 1) % npes);
    ushmem::quiet();
    CHECK(ushmem::signal_wait_until(sig[0], ushmem::cmp::ge, 7) >= 7);
    CHECK(ushmem::signal_wait_until(sig[0], ushmem::cmp::eq, 7, 10s) == 7);
    bool timed_out = false;
    try {
        (void)ushmem::signal_wait_until(sig[0], ushmem::cmp::gt, 100, 20ms);
    } catch (const ushmem::timeout_error &e) {
        timed_out = std::string(e.what()).find("signal_wait_until: the variable") != std::string::npos;
    }
    CHECK(timed_out);
    auto ready = ushmem::wait_until_async(flag, 0, ushmem::cmp::eq, 1);
    CHECK(ready.test());
    ready.wait(1s);
    ushmem::barrier();
}

void test_then_flat() {
    ushmem::symmetric<long> x(2);
    const int right = (me + 1) % npes;
    // f returns an event: the result is an event without a value.
    auto put_then_put = ushmem::put_async(x.at(0, right), 5L).then([&] { return ushmem::put_async(x.at(1, right), 6L); });
    static_assert(std::is_void_v<decltype(put_then_put)::value_type>);
    put_then_put.wait();
    // f returns a value_event: the value is the fetched long, not the event.
    auto chained = ushmem::fetch_add_async(x.at(0, right), 0L).then([&](long) {
        return ushmem::fetch_add_async(x.at(1, right), 10L);
    });
    static_assert(std::is_same_v<decltype(chained)::value_type, long>);
    ushmem::barrier();
    const long old = chained.get(10s);
    CHECK(old == 6);  // (the put completed before the barrier; only the left neighbour adds here)
    // f returns another then (a value through two steps), and co_await reads the inner value.
    auto two = ushmem::reduce_all_async(1, reduce_op::sum).then([](int n) {
        return ushmem::reduce_all_async(n * 10, reduce_op::max).then([](int m) { return std::to_string(m); });
    });
    static_assert(std::is_same_v<decltype(two)::value_type, std::string>);
    CHECK(two.get() == std::to_string(npes * 10));
    ushmem::barrier();
    CHECK(x[1] == 16);
    // A moved-from event to several PEs is the same event (moving copies), still valid to wait.
    ushmem::symmetric<long> y(static_cast<std::size_t>(npes));
    ushmem::batch b;
    for (int pe = 0; pe < npes; ++pe) b.put(y.at(std::size_t(me), pe), long(me));
    ushmem::event e = b.submit();
    ushmem::event moved_to = std::move(e);
    CHECK(e.pes().size() == moved_to.pes().size() && e.pes().size() == std::size_t(npes));
    e.wait();
    moved_to.wait(10s);
    ushmem::barrier();
    for (int pe = 0; pe < npes; ++pe) CHECK(y[std::size_t(pe)] == pe);
}

void test_cyclic() {
    const std::size_t n = 23, b = 3;
    ushmem::dist_array<long> a(n, ushmem::block_cyclic{b});
    CHECK(a.block() == b && a.cyclic() == (8 > std::size_t(npes)));
    std::size_t mine = 0;
    a.for_each([&](std::size_t i, long &v) {
        CHECK(a.owner(i) == int((i / b) % std::size_t(npes)));
        v = long(i);
        ++mine;
    });
    CHECK(mine == a.local_size());
    CHECK(ushmem::reduce_all(long(mine), reduce_op::sum) == long(n));
    ushmem::barrier();
    for (std::size_t i = 0; i < n; ++i) CHECK(a.get(i) == long(i));
    std::vector<long> all(n - 2);
    a.get(1, all, 10s);  // across every block and owner
    for (std::size_t i = 0; i < all.size(); ++i) CHECK(all[i] == long(i + 1));
    ushmem::barrier();
    for (std::size_t i = 0; i < n; ++i) {
        a.inc(i);
        a.add(i, 2L);
    }
    ushmem::barrier();
    std::vector<long> after(n);
    a.get(0, after);
    for (std::size_t i = 0; i < n; ++i) CHECK(after[i] == long(i) + 3L * npes);
    ushmem::barrier();
    if (me == 0) {
        std::vector<long> ones(n, 1);
        a.put(0, ones);
    }
    ushmem::barrier();
    a.for_each([&](long &v) { CHECK(v == 1); });
    if (a.cyclic()) CHECK(throws<ushmem::invalid_argument>([&] { (void)a.local_range(); }));
    CHECK(throws<ushmem::invalid_argument>([] { ushmem::dist_array<int> z(4, ushmem::block_cyclic{0}); }));
    ushmem::barrier();
    // The default distribution is unchanged: one block per member.
    ushmem::dist_array<int> d(10);
    CHECK(!d.cyclic() && d.local_range().second - d.local_range().first == d.local_size());
    ushmem::symmetric<int> s(3);
    CHECK(throws<ushmem::invalid_argument>([&] { (void)s.at(3); }) && &s.at(2) == &s[2]);
}
} // namespace

int main(int argc, char **argv) {
    ushmem::runtime rt;
    me = rt.my_pe();
    npes = rt.n_pes();
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "reduce") test_reduce();
    else if (mode == "broadcast") test_broadcast();
    else if (mode == "async") test_async();
    else if (mode == "dist_object") test_dist_object();
    else if (mode == "wait") test_wait();
    else if (mode == "then_flat") test_then_flat();
    else if (mode == "cyclic") test_cyclic();
    else {
        std::fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
        return 2;
    }
    ushmem::barrier();
    if (failures == 0 && me == 0) std::printf("cxx_values %s: ok (%d PEs)\n", mode.c_str(), npes);
    return failures == 0 ? 0 : 1;
}
