// The validation every entry point makes (validate.cpp: the messages of its failures): the
// library is running, a PE number is in range, an address is symmetric.
#pragma once

#include "core/compiler.hpp"
#include "core/state.hpp"

#include <cstddef>

namespace ushmem::core {

[[noreturn]] void fail_not_running(const char *routine);
[[noreturn]] void fail_bad_pe(const char *routine, int pe);
[[noreturn]] void fail_not_symmetric(const char *routine, const char *what, const void *addr,
                                     std::size_t len, int pe);

USHMEM_HOT void check_running(const char *routine) {
    if (USHMEM_UNLIKELY(rt.state != lib_state::running)) fail_not_running(routine);
}

USHMEM_HOT void check_pe(const char *routine, int pe) {
    if (USHMEM_UNLIKELY(unsigned(pe) >= unsigned(rt.npes))) fail_bad_pe(routine, pe);
}
} // namespace ushmem::core
