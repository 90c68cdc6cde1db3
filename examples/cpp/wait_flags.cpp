// Waiting on several flags: PE 0 collects one flag per PE and handles them as they arrive
// (wait_until_some), leaving out those already handled (status); then waits, bounded, for all
// of them to reach a second value given per flag (the vector form).
#include <ushmem/ushmem.hpp>

#include <chrono>
#include <cstdio>
#include <vector>

int main() {
    ushmem::runtime rt;
    const int me = rt.my_pe(), n = rt.n_pes();
    ushmem::symmetric<int> flags(std::size_t(n), 0);

    ushmem::put(flags.at(std::size_t(me), 0), 1);  // every PE raises its flag on PE 0
    bool ok = true;
    if (me == 0) {
        std::vector<int> handled(std::size_t(n), 0);  // status: nonzero leaves a flag out
        int left = n;
        while (left > 0) {
            for (std::size_t i : ushmem::wait_until_some(flags.local(), handled, ushmem::cmp::eq, 1)) {
                handled[i] = 1;  // handle PE i's flag once
                --left;
            }
        }
        ok = ushmem::wait_until_any(flags.local(), handled, ushmem::cmp::eq, 1) == std::nullopt;
    }
    ushmem::barrier();

    // Second round: PE i sets its flag to i + 10; PE 0 waits for each flag's own value.
    ushmem::put(flags.at(std::size_t(me), 0), me + 10);
    if (me == 0) {
        auto want = std::vector<int>(std::size_t(n));
        for (int i = 0; i < n; ++i) want[std::size_t(i)] = i + 10;
        ushmem::wait_until_all(flags.local(), ushmem::cmp::eq, want, std::chrono::seconds(30));
        for (int i = 0; i < n; ++i) ok = ok && flags[std::size_t(i)] == i + 10;
    }
    std::printf("PE %d: %s\n", me, ok ? "ok" : "WRONG");
    ushmem::barrier();
    return ok ? 0 : 1;
}
