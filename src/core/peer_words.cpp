// Reading a word of peers' runtime areas (peer_words.hpp).
#include "core/peer_words.hpp"

#include "core/clock.hpp"
#include "core/rma.hpp"
#include "core/state.hpp"
#include "core/timed.hpp"
#include "core/wait.hpp"

namespace ushmem::core {

namespace {
struct answer_wait {
    const char *routine;
    int pe;
};
bool answered_now(void *a) {
    const auto &w = *static_cast<const answer_wait *>(a);
    return pe_test(w.routine, rt.default_ctx, w.pe);
}
} // namespace

void read_runtime_words(const char *routine, std::size_t word, const std::vector<int> &pes, double answer_s,
                        std::vector<std::uint64_t> &out, std::vector<bool> &answered) {
    const std::size_t n = pes.size();
    // Deliberately never freed when a get does not answer: a late answer must land somewhere.
    auto *vals = new std::uint64_t[n + 1]();
    const std::uint64_t *src = rt.runtime_words + word;
    // get() reads a direct peer's word at once (pe_test is then true at once too); through UCX it
    // is a non-blocking get, awaited below: pe_test polls, the wait loop idles between its polls
    // (nothing signals its answer: wait_kind::polled) and gives up at the bound.
    for (std::size_t i = 0; i < n; ++i)
        if (pes[i] != rt.me) get(routine, rt.default_ctx, &vals[i], src, sizeof *vals, pes[i], true);
        else vals[i] = __atomic_load_n(src, __ATOMIC_ACQUIRE);
    answered.assign(n, true);
    const double give_up = now_seconds() + answer_s;
    bool all = true;
    for (std::size_t i = 0; i < n; ++i) {
        if (pes[i] == rt.me) continue;
        answer_wait a{routine, pes[i]};
        if (!answered_now(&a)) {
            const double left = give_up - now_seconds();
            wait_spec s{routine, "the answer of a PE to a read of its state"};
            s.kind = wait_kind::polled;
            s.parks_at_exit = false;  // (it runs inside a timeout's message, maybe during an exit)
            s.stats_time = false;
            s.bound = left > 1e-9 ? left : 1e-9;
            wait_loop(s, answered_now, &a);
        }
        answered[i] = pe_test(routine, rt.default_ctx, pes[i]);
        all = all && answered[i];
    }
    out.assign(vals, vals + n);
    if (all) delete[] vals;
}

} // namespace ushmem::core
