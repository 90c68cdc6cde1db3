// The one describer of the PEs a wait is missing (wait_missing.hpp).
#include "core/wait_missing.hpp"

#include "core/clock.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/timed.hpp"
#include "core/wait.hpp"

#include <cstdio>

namespace ushmem::core {

void missing_pes::add(int pe, const char *why) {
    if (++listed_ > limit_) return;  // counted: " and N more"
    if (pe >= 0) list_.append(" ").append(each_).append(std::to_string(pe));
    // (append, not "lit" + string: GCC 12 at -O3 warns falsely about restrict there)
    if (why) list_.append(" (").append(why).append(")");
}

std::string missing_pes::text(const char *none) const {
    if (listed_ == 0) return none;
    std::string s = list_;
    if (listed_ > limit_) s.append(" and ").append(std::to_string(listed_ - limit_)).append(" more");
    return s;
}

const char *no_answer_hint() {
    return rt.progress_thread ? " (a progress thread answers for every PE, even one that computes: that PE is "
                                "stopped, hung, overloaded or unreachable)"
                              : " (that PE is stopped, hung, overloaded or unreachable, or, over a transport "
                                "that emulates RMA, computes without calling the library: "
                                "USHMEM_PROGRESS_THREAD=on makes a thread answer for it)";
}

void describe_no_answer(char *buf, std::size_t len, const char *op, const missing_pes &pes) {
    std::snprintf(buf, len, "the completion of %s; no answer yet from PE%s%s", op, pes.text("").c_str(),
                  no_answer_hint());
}

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
