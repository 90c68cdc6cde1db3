// The messages of the validation that fails (validate.hpp): each ends the program (fatal).
#include "core/validate.hpp"

#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/state.hpp"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ushmem::core {

[[noreturn]] void fail_not_running(const char *routine) {
    if (rt.state == lib_state::finalized)
        fatal(routine, "called after shmem_finalize; the library is finalized (call shmem_init "
                       "again to re-initialize it)");
    fatal(routine, "called before shmem_init; initialize the library first with shmem_init or "
                   "shmem_init_thread");
}

[[noreturn]] void fail_bad_pe(const char *routine, int pe) {
    fatal(routine, "PE %d is out of range; valid PEs are 0 to %d (shmem_n_pes() - 1)", pe, rt.npes - 1);
}

[[noreturn]] void fail_not_symmetric(const char *routine, const char *what, const void *addr,
                                     std::size_t len, int pe) {
    const segment &h = rt.seg[seg_heap], &s = rt.seg[seg_static];
    const heap_growth &g = rt.grown;
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(addr);
    const bool in_grown = g.mapped && a >= h.base + g.start && a < h.base + g.start + g.mapped;
    auto grown_range_text = [&]() -> std::string {
        if (!g.mapped) return "";
        char b[96];
        std::snprintf(b, sizeof b, " and its grown part [%#" PRIxPTR ", %#" PRIxPTR ")", h.base + g.start,
                      h.base + g.start + g.mapped);
        return b;
    };
    fatal(routine,
          "%s %p (%zu bytes, target PE %d) is not symmetric: it is outside the symmetric heap "
          "[%#" PRIxPTR ", %#" PRIxPTR ")%s and the static data [%#" PRIxPTR ", %#" PRIxPTR "); pass "
          "memory from shmem_malloc or a global/static variable%s",
          what, addr, len, pe, h.base, h.base + h.size, grown_range_text().c_str(), s.base, s.base + s.size,
          (h.base && a >= h.base && a < h.base + h.size)
              ? " (the range runs past the end of the heap)"
              : in_grown ? " (the range runs past the end of its heap chunk: chunks are separate allocations)"
                         : "");
}

} // namespace ushmem::core
