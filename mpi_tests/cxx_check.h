// The C++ mpi tests' check (cxx_api.cpp, cxx_timeout.cpp): a failed condition is reported with the
// PE, the place and the condition, and counted, so that one run reports every failure; main() ends
// with a non-zero status when `failures` is not 0.
#pragma once

#include <cstdio>

namespace {
int me, npes;
int failures = 0;
} // namespace

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            std::fprintf(stderr, "PE %d: CHECK FAILED %s:%d: %s\n", me, __FILE__, __LINE__, \
                         #cond);                                                            \
            ++failures;                                                                     \
        }                                                                                   \
    } while (0)
