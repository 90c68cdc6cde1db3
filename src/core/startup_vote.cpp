#include "core/startup_vote.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/heap_grow.hpp"
#include "core/preflight.hpp"
#include "core/state.hpp"
#include "core/wait_policy.hpp"

#include <vector>

namespace ushmem::core {

void cast_startup_vote(const char *routine, bool needs_progress, bool heap_wanted, bool heap_reserved) {
    // Every word is a MIN over PEs; a "some PE" flag is voted as its negation (0 wins).
    enum : std::size_t { w_first_problem, w_heap_cap, w_no_progress, w_no_block, w_no_oversub, w_wanted, w_reserved, w_fixed };
    const std::string problem = heap_fit_problem();
    std::vector<std::uint64_t> w(w_fixed);
    w[w_first_problem] = problem.empty() ? no_problem : std::uint64_t(rt.me);
    w[w_heap_cap] = heap_cap_here();
    w[w_no_progress] = needs_progress ? 0 : 1;
    w[w_no_block] = waits_block_here(routine) ? 0 : 1;
    w[w_no_oversub] = rt.node_cpus > 0 && rt.local_size > rt.node_cpus ? 0 : 1;
    w[w_wanted] = heap_wanted ? 1 : 0;
    w[w_reserved] = heap_reserved ? 1 : 0;
    settings_vote_words(w);
    if (rt.npes > 1) bootstrap::min_u64s(w.data(), w.size());
    // The reports in the order the checks were made in: the settings first (a heap that differs
    // between PEs is that), then the heap that does not fit.
    check_settings_alike(routine, w.data() + w_fixed);
    check_heap_fits(routine, problem, w[w_first_problem]);
    job_agreement &a = rt.agreed;
    a.heap_cap = w[w_heap_cap];
    a.progress_thread = w[w_no_progress] == 0;
    a.wake_direct = w[w_no_block] == 0;
    a.oversubscribed = w[w_no_oversub] == 0;
    a.heap_wanted = w[w_wanted] == 1;
    a.heap_reserved = w[w_reserved] == 1;
}

} // namespace ushmem::core
