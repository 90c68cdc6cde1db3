// A histogram in a dist_array: every PE counts its keys into the global bins with one batch of
// non-fetching increments (no result slots), then reads a window that spans several owners in
// one bulk get, and tells its right neighbour with a signalled put that it is done.
#include <ushmem/ushmem.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    ushmem::runtime rt;
    const int me = rt.my_pe(), n = rt.n_pes();
    const std::size_t bins = 100;

    ushmem::dist_array<long> hist(bins);  // block-distributed over every PE, zeroed
    ushmem::symmetric<long> note(1);
    ushmem::symmetric<std::uint64_t> done(1);

    // Keys me, me + 1, ..., me + 199: each PE hits every bin twice.
    ushmem::batch b;
    for (std::size_t k = 0; k < 2 * bins; ++k) b.inc(hist.at((std::size_t(me) + k) % bins));
    b.submit().wait(std::chrono::seconds(30));
    ushmem::barrier();

    bool ok = true;
    hist.for_each([&](std::size_t, long &v) { ok = ok && v == 2L * n; });  // this PE's bins

    std::vector<long> window(bins / 2);
    hist.get(bins / 4, window, std::chrono::seconds(30));  // across owners: one batch
    for (long v : window) ok = ok && v == 2L * n;

    // Done: a put with a signal to the right neighbour; wait for the left one's.
    const int right = (me + 1) % n;
    std::vector<long> mine{long(me)};
    ushmem::batch s;
    s.put_signal(note.on(right), mine, done.at(0, right), 1, ushmem::signal_op::set);
    s.submit().wait();
    ushmem::wait_until(done[0], ushmem::cmp::eq, std::uint64_t(1), std::chrono::seconds(30));
    ok = ok && note[0] == (me + n - 1) % n;

    std::printf("PE %d: bins %zu..%zu of %zu, owner of bin 99: PE %d (%s)\n", me, hist.local_range().first,
                hist.local_range().second, bins, hist.owner_pe(bins - 1), ok ? "ok" : "WRONG");
    ushmem::barrier();
    return ok ? 0 : 1;
}
