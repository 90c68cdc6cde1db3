// Asynchronous puts with events, a signal, and atomics on a shared counter.
#include <ushmem/ushmem.hpp>

#include <cstdio>
#include <numeric>
#include <vector>

int main() {
    ushmem::runtime rt;
    const int me = rt.my_pe(), n = rt.n_pes();
    const std::size_t block = 1024;

    ushmem::symmetric<double> table(block * std::size_t(n));
    ushmem::symmetric<long> counter(1);
    ushmem::symmetric<std::uint64_t> arrived(1);

    // Scatter one block to every PE without waiting in between...
    std::vector<double> mine(block);
    std::iota(mine.begin(), mine.end(), me * 1e6);
    std::vector<ushmem::event> sent;
    for (int pe = 0; pe < n; ++pe)
        sent.push_back(ushmem::put_async(table.on(pe).subspan(std::size_t(me) * block, block), mine));
    // ...then complete them, here in any order: each wait is a quiet of its PE only.
    for (auto &e : sent) e.wait();

    // Take a ticket from PE 0's counter (blocking) and one more asynchronously.
    long ticket = ushmem::fetch_add(counter.at(0, 0), 1L);
    auto later = ushmem::fetch_add_async(counter.at(0, 0), 1L);
    long ticket2 = later.get();

    // Tell the right neighbour we are done with a put-with-signal; wait for the left one.
    std::vector<double> hello{double(me)};
    auto s = ushmem::put_signal_async(table.on((me + 1) % n).subspan(0, 1), hello,
                                      arrived.at(0, (me + 1) % n), 1, ushmem::signal_op::add);
    ushmem::wait_until(arrived, 0, ushmem::cmp::ge, std::uint64_t(1), std::chrono::seconds(30));
    s.wait();
    ushmem::barrier();

    bool ok = ticket >= 0 && ticket2 > ticket && ticket2 < 2 * n;
    for (int pe = 0; pe < n; ++pe)
        ok = ok && table[std::size_t(pe) * block + 5] == pe * 1e6 + 5;
    if (me == 0) ok = ok && counter[0] == 2L * n;
    std::printf("PE %d: tickets %ld, %ld (%s)\n", me, ticket, ticket2, ok ? "ok" : "WRONG");
    ushmem::barrier();
    return ok ? 0 : 1;
}
