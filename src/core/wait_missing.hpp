// The one describer of the PEs a wait is missing, for USHMEM_WAIT_TIMEOUT messages and notices
// (wait_missing.cpp): which PEs have not answered a quiet or a request, which members keep a
// collective waiting, which PEs have not reached finalize, which PEs this PE has outstanding
// operations to. Built only when a message is written: nothing here is on a fast path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

// What a timeout adds after "no answer yet from PE n": why a PE may not answer, and, without a
// progress thread, the setting that makes one answer for a PE that computes.
const char *no_answer_hint();

// Reads word `word` of the runtime area of each PE in `pes`: direct peers in place, the others
// with a get given `answer_s` seconds to answer (over an emulated transport a stopped or dead peer
// never answers). out[i]: the value, answered[i]: whether it came. (The describers of collectives
// and of finalize read what their peers are doing this way.)
void read_runtime_words(const char *routine, std::size_t word, const std::vector<int> &pes, double answer_s,
                        std::vector<std::uint64_t> &out, std::vector<bool> &answered);

} // namespace ushmem::core
