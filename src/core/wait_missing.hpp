// The one describer of the PEs a wait is missing, for USHMEM_WAIT_TIMEOUT messages and notices
// (wait_missing.cpp): which PEs have not answered a quiet or a request, which members keep a
// collective waiting, which PEs have not reached finalize, which PEs this PE has outstanding
// operations to. Built only when a message is written: nothing here is on a fast path.
#pragma once

#include <cstddef>
#include <string>

namespace ushmem::core {

// A list of PEs as text: " 3 5 (no answer) 7", or with `each` = "PE " " PE 3 (why) PE 5 (why)";
// after `limit` PEs " and N more". add(-1, why) stands for every PE (" (all PEs of a worker flush)").
class missing_pes {
public:
    explicit missing_pes(int limit = 16, const char *each = "") : limit_(limit), each_(each) {}
    void add(int pe, const char *why = nullptr);
    bool empty() const { return listed_ == 0; }
    // The list, or `none` when nothing was added.
    std::string text(const char *none) const;

private:
    std::string list_;
    int limit_;
    const char *each_;
    int listed_ = 0;
};

// The text of a completion's timeout: "the completion of OP; no answer yet from PE a b ..." then
// why a PE may not answer (no_answer_hint), into buf.
void describe_no_answer(char *buf, std::size_t len, const char *op, const missing_pes &pes);
// The same for one PE and any wait: "<what>; no answer yet from PE n" then the hint, into buf.
void describe_no_answer_from(char *buf, std::size_t len, const char *what, int pe);

// What a timeout adds after "no answer yet from PE n": why a PE may not answer, and, without a
// progress thread, the setting that makes one answer for a PE that computes.
const char *no_answer_hint();

} // namespace ushmem::core
