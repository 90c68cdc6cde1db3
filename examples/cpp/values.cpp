// Values across PEs without symmetric buffers of the program's own: every PE keeps a score in a
// dist_object, reads its neighbour's with a non-blocking fetch, agrees on the total and the best
// with reduce_all, learns the winner's name with broadcast, and, in two coroutines, waits for a
// signal from its left neighbour while it produces its right neighbour's.
#include <ushmem/ushmem.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

struct name {
    char text[16];
};

ushmem::task<std::uint64_t> wait_left(std::uint64_t &sig) {
    // Polled by the driver: the producer below runs meanwhile on this PE.
    co_return co_await ushmem::within(ushmem::signal_wait_until_async(sig, ushmem::cmp::ge, 1),
                                      std::chrono::seconds(30));
}
ushmem::task<> signal_right(ushmem::symmetric<std::uint64_t> &sig, int right) {
    co_await ushmem::yield_now();
    shmem_signal_add(sig.data(), std::uint64_t(right) + 1, right);  // (the C call: a signal alone)
    ushmem::quiet();
}

int main() {
    ushmem::runtime rt;
    const int me = rt.my_pe(), n = rt.n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;

    ushmem::dist_object<long> score(10L * me + 5);  // collective: one long per PE
    const long neighbour = score.fetch(right).get();

    const long total = ushmem::reduce_all(*score, ushmem::reduce_op::sum);
    const long best = ushmem::reduce_all(*score, ushmem::reduce_op::max);

    name mine{};
    std::snprintf(mine.text, sizeof mine.text, "pe-%d", me);
    const name winner = ushmem::broadcast(mine, n - 1);  // the last PE has the best score

    // Deferred: the reduction runs in get(), as a blocking one would.
    auto count = ushmem::reduce_all_async(1, ushmem::reduce_op::sum).then([](int k) { return k * 2; });
    const int twice = count.get();

    ushmem::symmetric<std::uint64_t> sig(1);
    auto waiter = wait_left(sig[0]);
    auto producer = signal_right(sig, right);
    ushmem::run(waiter, producer);
    const std::uint64_t got = waiter.get();

    const bool ok = neighbour == 10L * right + 5 && total == 5L * n * n && best == 10L * (n - 1) + 5 &&
                    std::strcmp(winner.text, ("pe-" + std::to_string(n - 1)).c_str()) == 0 && twice == 2 * n &&
                    got == std::uint64_t(me) + 1;
    std::printf("PE %d: right's score %ld, total %ld, best %ld by %s, signal %llu from PE %d (%s)\n", me, neighbour,
                total, best, winner.text, (unsigned long long)got, left, ok ? "ok" : "WRONG");
    ushmem::barrier();
    return ok ? 0 : 1;
}
