// Reading one word of peers' runtime areas (peer_words.cpp): what the describers of collectives
// and of finalize read to say what their peers are doing. Above the data path and the waits (it
// gets, tests and waits), below the describers' callers (coll/frame.cpp, runtime.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ushmem::core {

// Reads word `word` of the runtime area of each PE in `pes`: direct peers in place, the others
// with a get given `answer_s` seconds to answer (over an emulated transport a stopped or dead peer
// never answers). out[i]: the value, answered[i]: whether it came. (The describers of collectives
// and of finalize read what their peers are doing this way.)
void read_runtime_words(const char *routine, std::size_t word, const std::vector<int> &pes, double answer_s,
                        std::vector<std::uint64_t> &out, std::vector<bool> &answered);

} // namespace ushmem::core
