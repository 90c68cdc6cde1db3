// A 1-D periodic 3-point average over a block-distributed array, one coroutine per step: the
// ghost cells are fetched from both neighbours with get_async, the interior is computed while
// they are in flight, and the coroutine co_awaits them (bounded) only for the two edge cells.
#include <ushmem/ushmem.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <span>
#include <utility>

ushmem::task<void> step(const ushmem::symmetric<double> &u, ushmem::symmetric<double> &next, int left,
                        int right) {
    const std::size_t n = u.size();
    double ghost_l = 0, ghost_r = 0;
    auto ghosts = ushmem::when_all(ushmem::get_async(std::span(&ghost_l, 1), u.on(left).subspan(n - 1, 1)),
                                   ushmem::get_async(std::span(&ghost_r, 1), u.on(right).subspan(0, 1)));
    for (std::size_t i = 1; i + 1 < n; ++i)  // the interior, overlapped with the two gets
        next[i] = (u[i - 1] + u[i] + u[i + 1]) / 3;
    co_await ushmem::within(ghosts, std::chrono::seconds(10));  // timeout_error if a neighbour is stuck
    next[0] = (ghost_l + u[0] + u[1]) / 3;
    next[n - 1] = (u[n - 2] + u[n - 1] + ghost_r) / 3;
}

int main() {
    ushmem::runtime rt;
    const int me = rt.my_pe(), npes = rt.n_pes();
    const int left = (me + npes - 1) % npes, right = (me + 1) % npes;
    const std::size_t n = 1000, total = n * std::size_t(npes);

    ushmem::symmetric<double> u(n), next(n);
    for (std::size_t i = 0; i < n; ++i) u[i] = double(std::size_t(me) * n + i);  // the global index
    ushmem::barrier();

    bool ok = true;
    for (int iter = 0; iter < 10; ++iter) {
        ushmem::sync_wait(step(u, next, left, right));
        ushmem::barrier();  // every PE has read u before anyone overwrites it
        if (iter == 0) {    // the average of i-1, i, i+1 is i, except where the ring wraps
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t g = std::size_t(me) * n + i;
                const double want = g == 0            ? double(total) / 3
                                    : g == total - 1 ? double(2 * total - 3) / 3
                                                     : double(g);
                ok = ok && std::fabs(next[i] - want) < 1e-9;
            }
        }
        std::swap(u, next);
    }
    // The average conserves the sum.
    ushmem::symmetric<double> local(1), sum(1);
    for (double v : u.local()) local[0] += v;
    ushmem::reduce<ushmem::reduce_op::sum>(ushmem::world(), sum.local(), local.local());
    const double want = double(total) * double(total - 1) / 2;
    ok = ok && std::fabs(sum[0] - want) < 1e-6 * want;
    std::printf("PE %d: sum %.1f after 10 steps (%s)\n", me, sum[0], ok ? "ok" : "WRONG");
    ushmem::barrier();
    return ok ? 0 : 1;
}
