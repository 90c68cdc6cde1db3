// The one clock of core's timeouts and deadlines: CLOCK_MONOTONIC (never set back, counts while
// the PE sleeps in a wait).
#pragma once

#include <time.h>

namespace ushmem::core {

inline double now_seconds() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

} // namespace ushmem::core
