// The C++ API (<ushmem/ushmem.hpp>) at any number of PEs: typed round trips, events waited out
// of order, atomics with exact results, batches (including a bad operation reported by index),
// timeouts naming the PE, invalid arguments thrown at the call, collectives and teams.
#include <ushmem/ushmem.hpp>

#include "cxx_check.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>
#include <vector>

namespace {

template <class E, class F> bool throws_with(F &&f, const std::string &needle) {
    try {
        f();
    } catch (const E &e) {
        if (std::string(e.what()).find(needle) == std::string::npos) {
            std::fprintf(stderr, "PE %d: message '%s' lacks '%s'\n", me, e.what(), needle.c_str());
            return false;
        }
        return true;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "PE %d: wrong exception: %s\n", me, e.what());
        return false;
    }
    return false;
}

void test_rma() {
    const std::size_t n = 64;
    ushmem::symmetric<double> d(n * std::size_t(npes));
    ushmem::symmetric<int> iv(n);
    std::vector<double> src(n);
    for (std::size_t i = 0; i < n; ++i) src[i] = me * 1000.0 + double(i) + 0.25;
    // Every PE writes its block into slot `me` of every PE.
    for (int pe = 0; pe < npes; ++pe) ushmem::put(d.on(pe).subspan(std::size_t(me) * n, n), src);
    ushmem::barrier();
    for (int pe = 0; pe < npes; ++pe)
        for (std::size_t i = 0; i < n; ++i)
            CHECK(d[std::size_t(pe) * n + i] == pe * 1000.0 + double(i) + 0.25);
    // Blocking get back from the right neighbour, element access.
    int right = (me + 1) % npes;
    std::vector<double> back(n);
    ushmem::get(std::span<double>(back), d.on(right).subspan(std::size_t(me) * n, n));
    for (std::size_t i = 0; i < n; ++i) CHECK(back[i] == src[i]);
    ushmem::put(iv.at(3, right), 40 + me);
    ushmem::barrier();
    CHECK(iv[3] == 40 + (me + npes - 1) % npes);
    CHECK(iv.on(right).get(3) == 40 + me);
    ushmem::barrier();
}

void test_events_out_of_order() {
    const std::size_t n = 256;
    ushmem::symmetric<long> dst(n * std::size_t(npes));
    std::vector<std::vector<long>> src(static_cast<std::size_t>(npes), std::vector<long>(n));
    std::vector<ushmem::event> evs;
    for (int pe = 0; pe < npes; ++pe) {
        for (std::size_t i = 0; i < n; ++i) src[std::size_t(pe)][i] = long(me) << 32 | long(pe) << 16 | long(i);
        evs.push_back(ushmem::put_async(dst.on(pe).subspan(std::size_t(me) * n, n), src[std::size_t(pe)]));
    }
    for (auto it = evs.rbegin(); it != evs.rend(); ++it) it->wait();
    ushmem::barrier();
    for (int pe = 0; pe < npes; ++pe)
        for (std::size_t i = 0; i < n; ++i)
            CHECK(dst[std::size_t(pe) * n + i] == (long(pe) << 32 | long(me) << 16 | long(i)));
    // Gets to every PE, waited in reverse, plus a timed wait.
    std::vector<std::vector<long>> got(static_cast<std::size_t>(npes), std::vector<long>(n));
    std::vector<ushmem::event> gevs;
    for (int pe = 0; pe < npes; ++pe)
        gevs.push_back(ushmem::get_async(std::span<long>(got[std::size_t(pe)]),
                                         dst.on(pe).subspan(std::size_t(me) * n, n)));
    for (std::size_t k = gevs.size(); k-- > 0;) {
        if (k % 2) gevs[k].wait(std::chrono::seconds(10));
        else if (!gevs[k].test()) {  // test() does not block: poll, then a bounded wait
            gevs[k].wait(std::chrono::seconds(10));
            CHECK(gevs[k].test());
        }
    }
    for (int pe = 0; pe < npes; ++pe)
        for (std::size_t i = 0; i < n; ++i)
            CHECK(got[std::size_t(pe)][i] == (long(me) << 32 | long(pe) << 16 | long(i)));
    ushmem::barrier();
    // The same through a private context: events carry it, waiting quiets that context only.
    {
        ushmem::context ctx(SHMEM_CTX_PRIVATE);
        std::vector<long> v(n, me + 17);
        int right = (me + 1) % npes;
        auto e = ushmem::put_async(dst.on(right).subspan(std::size_t(me) * n, n), v, ctx);
        CHECK(e.context() == ctx.handle());
        e.wait();
        long one = ushmem::fetch_add(dst.at(0, right), 0L, ctx);
        (void)one;
    }
    ushmem::barrier();
    int left = (me + npes - 1) % npes;
    CHECK(dst[std::size_t(left) * n + n - 1] == left + 17);
    ushmem::barrier();
}

void test_put_signal() {
    const std::size_t n = 128;
    ushmem::symmetric<int> data(n);
    ushmem::symmetric<std::uint64_t> sig(1);
    std::vector<int> src(n);
    std::iota(src.begin(), src.end(), me * 7);
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    auto e = ushmem::put_signal_async(data.on(right), src, sig.at(0, right), 1);
    ushmem::wait_until(sig, 0, ushmem::cmp::eq, std::uint64_t(1), std::chrono::seconds(30));
    for (std::size_t i = 0; i < n; ++i) CHECK(data[i] == left * 7 + int(i));
    e.wait();
    ushmem::barrier();
}

void test_atomics() {
    ushmem::symmetric<long> c(4);
    ushmem::symmetric<std::uint64_t> bits(1);
    ushmem::symmetric<double> dv(1);
    ushmem::barrier();
    // Every PE adds me+1 to PE 0's counter 100 times: exact total.
    for (int k = 0; k < 100; ++k) (void)ushmem::fetch_add(c.at(0, 0), long(me + 1));
    for (int k = 0; k < 50; ++k) ushmem::add(c.at(1, 0), 2L);
    for (int k = 0; k < 10; ++k) {
        auto e = ushmem::fetch_add_async(c.at(2, 0), 3L);
        CHECK(e.get() % 3 == 0);
    }
    ushmem::inc(c.at(3, 0));
    // Bits: PE me sets bit me of PE 0's word (or), xor twice = identity.
    (void)ushmem::fetch_or(bits.at(0, 0), std::uint64_t(1) << (me % 64));
    ushmem::atomic_xor(bits.at(0, 0), std::uint64_t(1) << 63);
    auto xe = ushmem::fetch_xor_async(bits.at(0, 0), std::uint64_t(1) << 63);
    (void)xe.get();
    ushmem::barrier();
    if (me == 0) {
        long want = 100L * npes * (npes + 1) / 2;
        CHECK(c[0] == want);
        CHECK(c[1] == 100L * npes);
        CHECK(c[2] == 30L * npes);
        CHECK(c[3] == npes);
        std::uint64_t wbits = 0;
        for (int pe = 0; pe < npes; ++pe) wbits |= std::uint64_t(1) << (pe % 64);
        CHECK(bits[0] == wbits);
    }
    ushmem::barrier();
    // compare_swap: exactly one PE wins.
    int right = (me + 1) % npes;
    (void)right;
    long old = ushmem::compare_swap(c.at(3, 0), long(npes), long(1000 + me));
    ushmem::barrier();
    long winner = ushmem::load(c.at(3, 0));
    CHECK(winner >= 1000 && winner < 1000 + npes);
    CHECK((old == npes) == (winner == 1000 + me));
    ushmem::barrier();
    // swap / store / load on doubles (extended types), async forms.
    if (me == 0) ushmem::store(dv.at(0, 0), 1.5);
    ushmem::barrier();
    if (me == npes - 1) {
        double prev = ushmem::swap(dv.at(0, 0), 2.5);
        CHECK(prev == 1.5);
        auto le = ushmem::load_async(dv.at(0, 0));
        CHECK(le.get() == 2.5);
        auto se = ushmem::swap_async(dv.at(0, 0), 3.5);
        CHECK(se.get() == 2.5);
        auto ce = ushmem::compare_swap_async(c.at(1, 0), 100L * npes, 7L);
        CHECK(ce.get() == 100L * npes);
        auto ae = ushmem::fetch_and_async(bits.at(0, 0), std::uint64_t(1));
        (void)ae.get();
        CHECK(ushmem::fetch_and(bits.at(0, 0), ~std::uint64_t(0)) == 1);
    }
    ushmem::barrier();
    if (me == 0) {
        CHECK(dv[0] == 3.5);
        CHECK(c[1] == 7);
        CHECK(bits[0] == 1);
    }
    ushmem::barrier();
}

void test_batch() {
    const std::size_t n = 16;
    ushmem::symmetric<int> a(n * std::size_t(npes));
    ushmem::symmetric<long> ctr(1);
    std::vector<int> src(n);
    std::iota(src.begin(), src.end(), me * 100);
    std::vector<long> fetched(static_cast<std::size_t>(npes), -1);
    ushmem::batch b;
    for (int pe = 0; pe < npes; ++pe) {
        std::size_t i = b.put(a.on(pe).subspan(std::size_t(me) * n, n), src);
        CHECK(i == std::size_t(2 * pe));
        i = b.fetch_add(ctr.at(0, pe), 1L, &fetched[std::size_t(pe)]);
        CHECK(i == std::size_t(2 * pe + 1));
    }
    std::size_t next = b.size();
    std::string idx = "#" + std::to_string(next);
    // Bad operations: reported with the index they would have had, and not queued.
    CHECK(throws_with<ushmem::invalid_argument>([&] { b.put(npes, a.data(), src.data(), n); }, idx));
    CHECK(throws_with<ushmem::invalid_argument>([&] { b.put(npes, a.data(), src.data(), n); },
                                                "out of range"));
    int stack_buf[4] = {0, 0, 0, 0};
    CHECK(throws_with<ushmem::invalid_argument>([&] { b.put(0, stack_buf, src.data(), 4); }, idx));
    std::vector<int> heap_local(4);
    CHECK(throws_with<ushmem::invalid_argument>([&] { b.get(0, src.data(), heap_local.data(), 4); },
                                                "not symmetric"));
    CHECK(throws_with<ushmem::invalid_argument>([&] { b.put(npes - 1, heap_local.data(), src.data(), 4); },
                                                "PE " + std::to_string(npes - 1)));
    long r = 0;
    auto misaligned = ushmem::sym_ptr<long>(
        ushmem::detail::unchecked, reinterpret_cast<long *>(reinterpret_cast<char *>(ctr.data()) + 4), 0);
    CHECK(throws_with<ushmem::invalid_argument>([&] { b.fetch_add(misaligned, 1L, &r); }, "aligned"));
    CHECK(throws_with<ushmem::invalid_argument>([&] { b.fetch_add(ctr.at(0, 0), 1L, static_cast<long *>(nullptr)); }, idx));
    CHECK(b.size() == next);
    b.submit().wait();
    ushmem::barrier();
    for (int pe = 0; pe < npes; ++pe)
        for (std::size_t i = 0; i < n; ++i) CHECK(a[std::size_t(pe) * n + i] == pe * 100 + int(i));
    CHECK(ctr[0] == npes);
    for (long f : fetched) CHECK(f >= 0 && f < npes);
    ushmem::barrier();
    // Submitted again: the puts repeat, the counters count twice.
    b.submit().wait();
    ushmem::barrier();
    CHECK(ctr[0] == 2L * npes);
    for (long f : fetched) CHECK(f >= npes && f < 2 * npes);
    ushmem::barrier();
}

void test_errors() {
    ushmem::symmetric<int> a(8);
    CHECK(throws_with<ushmem::invalid_argument>([&] { (void)a.on(npes); }, "PE " + std::to_string(npes)));
    CHECK(throws_with<ushmem::invalid_argument>([&] { (void)a.on(-1); }, "out of range"));
    CHECK(throws_with<ushmem::invalid_argument>([&] { (void)a.on(0).subspan(4, 5); }, "beyond"));
    CHECK(throws_with<ushmem::invalid_argument>([&] { (void)a.at(8, 0); }, "index 8"));
    std::vector<int> big(9);
    CHECK(throws_with<ushmem::invalid_argument>([&] { ushmem::put(a.on(0), big); }, "9 elements"));
    int local = 0;
    CHECK(throws_with<ushmem::invalid_argument>([&] { ushmem::sym_ptr<int> p(&local, 0); }, "not symmetric"));
    CHECK(throws_with<ushmem::invalid_argument>([&] { ushmem::sym_ptr<int> p(a.data(), npes); }, "out of range"));
    std::vector<int> heap_local(9);
    CHECK(throws_with<ushmem::invalid_argument>([&] { ushmem::sym_span<int> s(heap_local.data(), 9, 0); },
                                                "not symmetric"));
    try {
        ushmem::quiet(npes);
        CHECK(false);
    } catch (const ushmem::error &e) {
        CHECK(e.code() == ushmem::errc::invalid_argument);
    }
    // Timeout: nobody sets the flag; the error names this PE and the time waited.
    ushmem::symmetric<int> flag(1);
    auto t0 = std::chrono::steady_clock::now();
    try {
        ushmem::wait_until(flag, 0, ushmem::cmp::eq, 1, std::chrono::milliseconds(200));
        CHECK(false);
    } catch (const ushmem::timeout_error &e) {
        CHECK(e.pe() == me);
        CHECK(std::string(e.what()).find("PE " + std::to_string(me)) != std::string::npos);
        CHECK(e.elapsed() >= std::chrono::milliseconds(200));
        CHECK(e.code() == ushmem::errc::timeout);
    }
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
    // Heap exhaustion: every PE gets bad_symmetric_alloc, naming the variable (the growing heap's
    // limit, USHMEM_HEAP_MAX: 16 TiB is more than its reservation).
    CHECK(throws_with<ushmem::bad_symmetric_alloc>(
        [&] { ushmem::symmetric<char> huge(std::size_t(1) << 44); }, "USHMEM_HEAP_MAX"));
    ushmem::barrier();
}

void test_collectives() {
    auto world = ushmem::world();
    CHECK(world.n_pes() == npes && world.my_pe() == me);
    ushmem::symmetric<long> src(4), dst(4 * std::size_t(npes)), red(4);
    for (int i = 0; i < 4; ++i) src[std::size_t(i)] = me * 10 + i;
    ushmem::barrier();
    ushmem::reduce<ushmem::reduce_op::sum>(world, red.local(), std::span<const long>(src.local()));
    for (int i = 0; i < 4; ++i) CHECK(red[std::size_t(i)] == 10L * npes * (npes - 1) / 2 + long(i) * npes);
    // The next reduction writes into every PE's `red` (dest must be ready on all PEs): a faster
    // PE must not overwrite it while this one is still checking the sums.
    ushmem::barrier();
    ushmem::reduce<ushmem::reduce_op::max>(world, red.local(), std::span<const long>(src.local()));
    CHECK(red[0] == 10L * (npes - 1));
    ushmem::fcollect(world, dst.local(), std::span<const long>(src.local()));
    for (int pe = 0; pe < npes; ++pe)
        for (int i = 0; i < 4; ++i) CHECK(dst[std::size_t(pe * 4 + i)] == pe * 10 + i);
    ushmem::broadcast(world, red.local(), std::span<const long>(src.local()), npes - 1);
    for (int i = 0; i < 4; ++i) CHECK(red[std::size_t(i)] == (npes - 1) * 10 + i);
    ushmem::symmetric<int> at_src(static_cast<std::size_t>(npes)), at_dst(static_cast<std::size_t>(npes));
    for (int pe = 0; pe < npes; ++pe) at_src[std::size_t(pe)] = me * 100 + pe;
    ushmem::barrier();
    ushmem::alltoall(world, at_dst.local(), std::span<const int>(at_src.local()), 1);
    for (int pe = 0; pe < npes; ++pe) CHECK(at_dst[std::size_t(pe)] == pe * 100 + me);
    // Split: the even PEs.
    {
        ushmem::team even = world.split_strided(0, 2, (npes + 1) / 2);
        CHECK(even.valid() == (me % 2 == 0));
        if (even.valid()) {
            CHECK(even.my_pe() == me / 2);
            CHECK(even.translate(even.my_pe(), world) == me);
            even.sync();
        }
    }
    ushmem::barrier();
}

// The wrappers over split_2d, collect, alltoalls, scans and strided RMA; data checked element by
// element. Bounded forms of the blocking calls succeed when every PE takes part.
void test_more_collectives() {
    using namespace std::chrono_literals;
    auto world = ushmem::world();
    // Strided put/get: every other element of a local array into every third slot of the right
    // neighbour's array, and back.
    {
        const std::size_t n = 5;
        ushmem::symmetric<std::uint32_t> a(3 * n);
        std::vector<std::uint32_t> src(2 * n);
        for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::uint32_t(me * 1000 + int(i));
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;
        ushmem::iput(a.on(right), 3, src, 2, n);
        ushmem::barrier(30s);
        for (std::size_t i = 0; i < 3 * n; ++i)
            CHECK(a[i] == (i % 3 == 0 ? std::uint32_t(left * 1000 + int(2 * (i / 3))) : 0u));
        std::vector<std::uint32_t> back(2 * n, 7u);
        ushmem::iget(std::span<std::uint32_t>(back), 2, a.on(left), 3, n);
        int leftleft = (left + npes - 1) % npes;
        for (std::size_t i = 0; i < 2 * n; ++i)
            CHECK(back[i] == (i % 2 == 0 ? std::uint32_t(leftleft * 1000 + int(i)) : 7u));
        CHECK(throws_with<ushmem::invalid_argument>([&] { ushmem::iput(a.on(right), 4, src, 2, n); },
                                                    "need 17 elements"));
        CHECK(throws_with<ushmem::invalid_argument>([&] { ushmem::iput(a.on(right), 0, src, 2, n); },
                                                    "stride 0"));
        ushmem::barrier();
    }
    // collect: PE r contributes r + 1 elements of value r * 10 + k.
    {
        const std::size_t total = std::size_t(npes) * std::size_t(npes + 1) / 2;
        const std::size_t np = std::size_t(npes);
        ushmem::symmetric<long> src(np), dst(total);
        for (int k = 0; k <= me; ++k) src[std::size_t(k)] = me * 10L + k;
        ushmem::barrier();
        ushmem::collect(world, dst.local(), std::span<const long>(src.data(), std::size_t(me) + 1), 30s);
        std::size_t at = 0;
        for (int r = 0; r < npes; ++r)
            for (int k = 0; k <= r; ++k) CHECK(dst[at++] == r * 10L + k);
        CHECK(at == total);
    }
    // alltoalls: 2 elements per PE, source stride 2, destination stride 3.
    {
        const std::size_t per = 2, tot = per * std::size_t(npes);
        ushmem::symmetric<std::int64_t> src(2 * tot), dst(3 * tot, -1);
        for (std::size_t i = 0; i < tot; ++i) src[2 * i] = me * 100 + std::int64_t(i);
        ushmem::barrier();
        ushmem::alltoalls(world, dst.local(), 3, std::span<const std::int64_t>(src.local()), 2, per);
        for (int r = 0; r < npes; ++r)
            for (std::size_t j = 0; j < per; ++j) {
                std::size_t i = std::size_t(r) * per + j;  // element from PE r
                CHECK(dst[3 * i] == r * 100 + std::int64_t(std::size_t(me) * per + j));
                CHECK(dst[3 * i + 1] == -1 && dst[3 * i + 2] == -1);
            }
        ushmem::barrier();
    }
    // Inclusive and exclusive prefix sums.
    {
        ushmem::symmetric<int> src(3), in(3), ex(3);
        for (int k = 0; k < 3; ++k) src[std::size_t(k)] = (me + 1) * (k + 1);
        ushmem::barrier();
        ushmem::sum_inscan(world, in.local(), std::span<const int>(src.local()));
        ushmem::sum_exscan(world, ex.local(), std::span<const int>(src.local()), 30s);
        for (int k = 0; k < 3; ++k) {
            CHECK(in[std::size_t(k)] == (me + 1) * (me + 2) / 2 * (k + 1));
            CHECK(ex[std::size_t(k)] == me * (me + 1) / 2 * (k + 1));
        }
    }
    // split_2d: rows of 2 columns.
    {
        auto [x, y] = world.split_2d(2);
        CHECK(x.valid() && y.valid());
        CHECK(x.my_pe() == me % 2 && y.my_pe() == me / 2);
        CHECK(x.n_pes() == std::min(2, npes - (me / 2) * 2));
        CHECK(y.n_pes() == (npes - me % 2 + 1) / 2);
        CHECK(x.translate(x.my_pe(), world) == me && y.translate(0, world) == me % 2);
        ushmem::symmetric<int> s(1, me), r(1);
        ushmem::reduce<ushmem::reduce_op::sum>(y, r.local(), std::span<const int>(s.local()), 30s);
        int want = 0;
        for (int pe = me % 2; pe < npes; pe += 2) want += pe;
        CHECK(r[0] == want);
        x.sync(30s);
        ushmem::barrier(y, 30s);
    }
    // Bounded forms that complete: quiet, events, value events, broadcast, fcollect, alltoall.
    {
        const std::size_t np = std::size_t(npes);
        ushmem::symmetric<long> a(np), b(np * np);
        int right = (me + 1) % npes;
        std::vector<long> v(1, me + 5);
        auto e = ushmem::put_async(a.on(right).subspan(std::size_t(me), 1), v);
        e.wait(30s);
        CHECK(e.test());
        auto f = ushmem::fetch_add_async(a.at(0, right), 0L);
        (void)f.get(30s);
        ushmem::quiet(30s);
        ushmem::quiet(right, 30s);
        ushmem::sync_all(30s);
        CHECK(a[std::size_t((me + npes - 1) % npes)] == (me + npes - 1) % npes + 5);
        ushmem::barrier(30s);  // every PE has read `a` before the broadcast overwrites it
        ushmem::symmetric<long> c(np);
        ushmem::broadcast(world, c.local(), std::span<const long>(a.local()), 0, 30s);
        for (std::size_t r = 0; r < np; ++r) CHECK(c[r] == (r + 1 == np ? npes + 4 : 0));  // PE 0's a
        ushmem::fcollect(world, b.local(), std::span<const long>(c.local()), 30s);
        for (std::size_t r = 0; r < np * np; ++r) CHECK(b[r] == c[r % np]);
        ushmem::alltoall(world, a.local(), std::span<const long>(b.local()).first(np), 1, 30s);
        for (std::size_t r = 0; r < np; ++r) CHECK(a[r] == c[std::size_t(me)]);
        ushmem::barrier(30s);
    }
}
} // namespace

int main() {
    ushmem::runtime rt;
    me = rt.my_pe();
    npes = rt.n_pes();
    try {
        test_rma();
        test_events_out_of_order();
        test_put_signal();
        test_atomics();
        test_batch();
        test_errors();
        test_collectives();
        test_more_collectives();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "PE %d: unexpected exception: %s\n", me, e.what());
        ++failures;
    }
    if (failures) {
        std::fprintf(stderr, "PE %d: %d failures\n", me, failures);
        shmem_global_exit(1);
    }
    if (me == 0) std::printf("cxx_api: OK (%d PEs)\n", npes);
    return 0;
}
