// dist_array<T> (<ushmem/dist_array.hpp>) at any number of PEs: ownership of every index, the
// local part and for_each, global get/put/fetch_add by index (a histogram), bulk get/put of ranges
// that span owners (one batch), bounds errors, and an array over a split team with PEs outside it.
#include <ushmem/ushmem.hpp>

#include "cxx_check.h"

#include <chrono>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

namespace {
using namespace std::chrono_literals;

template <class F> bool throws_invalid(F &&f, const std::string &needle) {
    try {
        f();
    } catch (const ushmem::invalid_argument &e) {
        if (std::string(e.what()).find(needle) != std::string::npos) return true;
        std::fprintf(stderr, "PE %d: message '%s' lacks '%s'\n", me, e.what(), needle.c_str());
        return false;
    }
    return false;
}

void test_world(std::size_t n) {
    ushmem::dist_array<long> a(n);
    const std::size_t block = (n + std::size_t(npes) - 1) / std::size_t(npes);
    CHECK(a.size() == n && a.block() == block && a.team_size() == npes && a.team_rank() == me);
    // Ownership: every index has exactly one owner; the local ranges tile [0, n).
    for (std::size_t i = 0; i < n; ++i) {
        CHECK(a.owner(i) == int(i / block));
        CHECK(a.owner_pe(i) == int(i / block));
    }
    auto [first, last] = a.local_range();
    CHECK(first == std::min(n, std::size_t(me) * block) && last == std::min(n, first + block));
    CHECK(a.local_span().size() == last - first);
    a.for_each([](std::size_t i, long &v) { v = long(i) * 3; });
    ushmem::barrier();

    // Global get by index reads the owner's element.
    for (std::size_t i = std::size_t(me); i < n; i += 7) CHECK(a.get(i) == long(i) * 3);
    ushmem::barrier();
    // Histogram: every PE adds 1 to each bin i with i % npes == me, and me+1 to bin 0.
    for (std::size_t i = 0; i < n; ++i) a.put(i, 0L);  // every PE writes the same zeros
    ushmem::barrier();
    for (std::size_t i = std::size_t(me); i < n; i += std::size_t(npes)) (void)a.fetch_add(i, 1L);
    const long before = a.fetch_add(0, long(me) + 1);
    CHECK(before >= 0);
    ushmem::barrier();
    long local_sum = 0;
    a.for_each([&](long &v) { local_sum += v; });
    std::size_t checked = 0;
    a.for_each([&](std::size_t i, long &v) {
        CHECK(v == (i == 0 ? 1 + long(npes) * (npes + 1) / 2 : 1));
        ++checked;
    });
    CHECK(checked == last - first);
    auto bin0 = a.fetch_add_async(0, 0L);  // asynchronous, by index
    CHECK(bin0.get(10s) == 1 + long(npes) * (npes + 1) / 2);
    CHECK(ushmem::load(a.at(n - 1)) == 1);  // at(): any atomic on the owner's element
    ushmem::barrier();

    // Bulk: PE me writes the range [me * 5, me * 5 + k) (it crosses owners when block is small),
    // then reads the whole array back in one get.
    if (n >= std::size_t(npes) * 5) {
        std::vector<long> vals(5);
        for (std::size_t j = 0; j < 5; ++j) vals[j] = 10000 + long(me) * 5 + long(j);
        a.put(std::size_t(me) * 5, vals, 10s);
        ushmem::barrier();
        std::vector<long> all(n);
        a.get(0, all);
        for (std::size_t i = 0; i < std::size_t(npes) * 5; ++i) CHECK(all[i] == 10000 + long(i));
        for (std::size_t i = std::size_t(npes) * 5; i < n; ++i) CHECK(all[i] == 1);
        auto e = a.get_async(n - 3, std::span<long>(all.data(), 3));
        e.wait(10s);
        CHECK(all[2] == (n - 1 < std::size_t(npes) * 5 ? 10000 + long(n - 1) : 1));
    }
    ushmem::barrier();

    // Bounds.
    CHECK(throws_invalid([&] { (void)a.get(n); }, "dist_array::at on PE " + std::to_string(me) + ": index " + std::to_string(n) + " beyond size"));
    std::vector<long> two(2);
    CHECK(throws_invalid([&] { a.get(n - 1, two); }, "dist_array::get on PE " + std::to_string(me) + ": range"));
    ushmem::barrier();
}

// Over the even PEs of the world; odd PEs take part in the construction only.
void test_team() {
    if (npes < 2) return;
    ushmem::team even = ushmem::world().split_strided(0, 2, (npes + 1) / 2);
    const std::size_t n = 10;
    ushmem::dist_array<int> a(n, even);
    if (!even.valid()) {
        CHECK(a.team_size() == 0 && a.team_rank() == -1 && a.local_span().empty());
        CHECK(throws_invalid([&] { (void)a.get(0); }, "is not a member of the array's team"));
        ushmem::barrier();
        ushmem::barrier();
        return;
    }
    const int p = even.n_pes();
    const std::size_t block = (n + std::size_t(p) - 1) / std::size_t(p);
    CHECK(a.block() == block && a.team_size() == p && a.team_rank() == me / 2);
    // The owner of the last index is a world PE that is even.
    CHECK(a.owner_pe(n - 1) == 2 * int((n - 1) / block));
    a.for_each([](std::size_t i, int &v) { v = int(i) + 1; });
    ushmem::barrier();
    int sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += a.get(i);
    CHECK(sum == int(n * (n + 1) / 2));
    ushmem::barrier();
}

} // namespace

int main() {
    ushmem::runtime rt;
    me = rt.my_pe();
    npes = rt.n_pes();
    test_world(23);  // not a multiple of the PE count: a short last block
    test_world(3);   // fewer elements than PEs at 4: empty members
    test_team();
    ushmem::barrier();
    if (me == 0) std::printf("cxx_dist: %s at %d PEs\n", failures ? "FAILED" : "ok", npes);
    return failures ? 1 : 0;
}
