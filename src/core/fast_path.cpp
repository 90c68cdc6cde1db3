// The fast paths' gate (fast_path.hpp).
#include "core/fast_path.hpp"

namespace ushmem::core {

unsigned fast_pe_limit = 0;

namespace {
unsigned g_closers = 0;  // fast_path_closer bits (what closed it, for a debugger); written at init only
} // namespace

void fast_path_start(int npes) {
    g_closers = 0;
    fast_pe_limit = unsigned(npes);
}

void fast_path_close(fast_path_closer why) {
    g_closers |= unsigned(why);
    fast_pe_limit = 0;
}

} // namespace ushmem::core
