// The one describer of the PEs a wait is missing (wait_missing.hpp).
#include "core/wait_missing.hpp"

#include "core/state.hpp"

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

void describe_no_answer_from(char *buf, std::size_t len, const char *what, int pe) {
    std::snprintf(buf, len, "%s; no answer yet from PE %d%s", what, pe, no_answer_hint());
}

void describe_no_answer(char *buf, std::size_t len, const char *op, const missing_pes &pes) {
    std::snprintf(buf, len, "the completion of %s; no answer yet from PE%s%s", op, pes.text("").c_str(),
                  no_answer_hint());
}

} // namespace ushmem::core
