// The one clock of the library: CLOCK_MONOTONIC (never set back, counts while a PE sleeps in a
// wait), for timeouts, deadlines, the waiting policy's spins and sleeps, the put packs' hold,
// statistics, shmemx_wtime, and the transport's flush grace and progress thread. A vDSO call (~20 ns
// here): the hot waits read it only past their first polls. In util so that every layer reads the
// same clock (core/clock.hpp brings it into core).
#pragma once

#include <time.h>

namespace ushmem::util {

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

} // namespace ushmem::util
