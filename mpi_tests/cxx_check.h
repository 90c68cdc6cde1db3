// The C++ mpi tests' check (cxx_api.cpp, cxx_timeout.cpp, ...): a failed condition is reported with the
// PE, the place and the condition, and counted, so that one run reports every failure; main() ends
// with a non-zero status when `failures` is not 0.
#pragma once

#include <cstdio>
#include <exception>
#include <string>

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

// Runs f, which must throw E; returns its what() ("" when it did not throw E, saying why).
template <class E, class F> std::string message_of(F f) {
    try {
        f();
    } catch (const E &e) {
        return e.what();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "PE %d: unexpected exception: %s\n", me, e.what());
        return "";
    }
    std::fprintf(stderr, "PE %d: no exception\n", me);
    return "";
}
