// transport/am/held.cpp: the bytes of signal messages held per target PE until UCX has sent them
// (the counts that signal_nbx adds to and its callback takes from; held_bytes reads them). Below
// both send.cpp, which counts, and acks.cpp, which sizes them at init (set_ack_handler).
#include "transport/am/internal.hpp"

namespace ushmem::transport::am {

util::lazy_array<std::atomic<std::int64_t>> g_held;
std::uint32_t g_held_n = 0;

void size_held(std::uint32_t npes) {
    detail::shared.held = nullptr;
    g_held_n = 0;
    g_held.reset(npes);
    g_held_n = npes;
    detail::shared.held = g_held.data();
}

} // namespace ushmem::transport::am
