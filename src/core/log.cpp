#include "core/log.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/runtime.hpp"

#include <cstdarg>
#include <cstdio>

namespace ushmem::core {
namespace {
thread_local char t_last[4096];

// "<routine> (PE <me> of <n>): <message>" into t_last.
void vrecord(const char *routine, const char *fmt, va_list ap) {
    char msg[4000];
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    if (rt.me >= 0) std::snprintf(t_last, sizeof t_last, "%s (PE %d of %d): %s", routine, rt.me, rt.npes, msg);
    else std::snprintf(t_last, sizeof t_last, "%s (PE ? of ?): %s", routine, msg);
}

void vreport(const char *routine, const char *fmt, va_list ap) {
    vrecord(routine, fmt, ap);
    // One write per message, so that lines from different PEs do not interleave.
    std::fprintf(stderr, "ushmem: %s\n", t_last);
    std::fflush(stderr);
}
} // namespace

void error_if(bool print, const char *routine, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (print) vreport(routine, fmt, ap);
    else vrecord(routine, fmt, ap);
    va_end(ap);
}

const char *last_error() { return t_last; }

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
