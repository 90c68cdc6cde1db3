#include "core/log.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/runtime.hpp"

#include <cstdarg>
#include <cstdio>

namespace ushmem::core {
namespace {
void vreport(const char *routine, const char *fmt, va_list ap) {
    char msg[2048];
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    // One write per message, so that lines from different PEs do not interleave.
    if (rt.me >= 0)
        std::fprintf(stderr, "ushmem: %s (PE %d of %d): %s\n", routine, rt.me, rt.npes, msg);
    else
        std::fprintf(stderr, "ushmem: %s (PE ? of ?): %s\n", routine, msg);
    std::fflush(stderr);
}
} // namespace

void fatal(const char *routine, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(routine, fmt, ap);
    va_end(ap);
    std::fflush(stdout);
    bootstrap::abort_job(1);
}

void error(const char *routine, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(routine, fmt, ap);
    va_end(ap);
}

void notice(const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "ushmem: notice: %s\n", msg);
    std::fflush(stderr);
}

} // namespace ushmem::core
