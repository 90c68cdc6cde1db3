// A batch of operations to several PEs, errors as exceptions, a team split and collectives.
#include <ushmem/ushmem.hpp>

#include <cstdio>
#include <vector>

int main() {
    ushmem::runtime rt;
    const int me = rt.my_pe(), n = rt.n_pes();
    bool ok = true;

    ushmem::symmetric<int> slots(static_cast<std::size_t>(n));
    ushmem::symmetric<long> hits(1);
    std::vector<int> one{me + 1};
    std::vector<long> old(static_cast<std::size_t>(n));

    // Queue one put and one fetch_add per PE; submit once; one event for all of them.
    ushmem::batch b;
    for (int pe = 0; pe < n; ++pe) {
        b.put(slots.on(pe).subspan(std::size_t(me), 1), one);
        b.fetch_add(hits.at(0, pe), 1L, &old[std::size_t(pe)]);
    }
    // A bad operation is refused when queued, and the message names its index.
    try {
        b.put(n, slots.data(), one.data(), 1);  // PE out of range
        ok = false;
    } catch (const ushmem::invalid_argument &e) {
        if (me == 0) std::printf("refused as expected: %s\n", e.what());
    }
    b.submit().wait();
    ushmem::barrier();
    for (int pe = 0; pe < n; ++pe) ok = ok && slots[std::size_t(pe)] == pe + 1;
    ok = ok && hits[0] == n;

    // Collectives over spans of symmetric arrays.
    auto world = ushmem::world();
    ushmem::symmetric<long> x(2), sum(2), all(2 * std::size_t(n));
    x[0] = me;
    x[1] = 1;
    ushmem::barrier();
    ushmem::reduce<ushmem::reduce_op::sum>(world, sum.local(), std::span<const long>(x.local()));
    ok = ok && sum[0] == long(n) * (n - 1) / 2 && sum[1] == n;
    ushmem::fcollect(world, all.local(), std::span<const long>(x.local()));
    for (int pe = 0; pe < n; ++pe) ok = ok && all[2 * std::size_t(pe)] == pe;
    // Prefix sums (exclusive: PE r gets the sum over PEs 0..r-1), bounded by a deadline.
    ushmem::sum_exscan(world, sum.local(), std::span<const long>(x.local()), std::chrono::seconds(30));
    ok = ok && sum[0] == long(me) * (me - 1) / 2 && sum[1] == me;
    // A 2D grid of 2 columns: this PE's row and column.
    {
        auto [row, col] = world.split_2d(2);
        ok = ok && row.my_pe() == me % 2 && col.my_pe() == me / 2;
        col.sync(std::chrono::seconds(30));
    }

    // A team of the even PEs; the odd ones get an invalid team.
    ushmem::team even = world.split_strided(0, 2, (n + 1) / 2);
    if (even.valid()) {
        ushmem::symmetric<long> esum(1);  // symmetric allocations are world-collective
        (void)esum;
        ok = ok && even.my_pe() == me / 2;
    } else {
        ushmem::symmetric<long> esum(1);
        (void)esum;
    }

    // Timeouts: nobody writes this flag.
    ushmem::symmetric<int> never(1);
    try {
        ushmem::wait_until(never, 0, ushmem::cmp::ne, 0, std::chrono::milliseconds(50));
        ok = false;
    } catch (const ushmem::timeout_error &e) {
        ok = ok && e.pe() == me;
    }

    std::printf("PE %d: %s\n", me, ok ? "ok" : "WRONG");
    ushmem::barrier();
    return ok ? 0 : 1;
}
