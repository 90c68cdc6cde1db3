// Core's names for the library's one clock (util/clock.hpp: CLOCK_MONOTONIC).
#pragma once

#include "util/clock.hpp"

namespace ushmem::core {
using util::now_nanos;
using util::now_seconds;
} // namespace ushmem::core
