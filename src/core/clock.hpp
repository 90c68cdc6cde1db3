// The one clock of core: CLOCK_MONOTONIC (never set back, counts while the PE sleeps in a wait),
// for timeouts, deadlines, the waiting policy's spins and sleeps, the put packs' hold, statistics
// and shmemx_wtime. A vDSO call (~20 ns here): the hot waits read it only past their first polls.
// (The transport reads the same clock itself, transport::now_ns: it cannot include core.)
#pragma once

#include <time.h>

namespace ushmem::core {

inline long now_nanos() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return long(ts.tv_sec) * 1000000000L + ts.tv_nsec;
}

inline double now_seconds() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

} // namespace ushmem::core
