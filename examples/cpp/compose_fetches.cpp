// Composition: every PE draws a variable number of tickets from every other PE's counter with
// asynchronous fetches kept in a std::vector, joins them with when_all, and formats a summary in a
// then() continuation that runs once, when the joined fetches complete.
#include <ushmem/ushmem.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

int main() {
    ushmem::runtime rt;
    const int me = rt.my_pe(), n = rt.n_pes();
    ushmem::symmetric<long> counter(1);

    // PE me draws me + 1 tickets from each PE: the count is known only at run time.
    std::vector<ushmem::value_event<long>> draws;
    for (int pe = 0; pe < n; ++pe)
        for (int k = 0; k <= me; ++k) draws.push_back(ushmem::fetch_add_async(counter.at(0, pe), 1L));

    int summaries = 0;
    auto summary = ushmem::when_all(std::move(draws)).then([&](const std::vector<long> &tickets) {
        ++summaries;
        long highest = -1;
        for (long t : tickets) highest = t > highest ? t : highest;
        return std::to_string(tickets.size()) + " tickets, highest " + std::to_string(highest);
    });
    const std::string text = summary.get(std::chrono::seconds(30));  // bounded: timeout_error names the PEs
    ushmem::barrier();

    // Every PE's counter was drawn 1 + 2 + ... + n times.
    const bool ok = counter[0] == long(n) * (n + 1) / 2 && summaries == 1 &&
                    text.rfind(std::to_string(n * (me + 1)) + " tickets", 0) == 0;
    std::printf("PE %d: %s (%s)\n", me, text.c_str(), ok ? "ok" : "WRONG");
    ushmem::barrier();
    return ok ? 0 : 1;
}
