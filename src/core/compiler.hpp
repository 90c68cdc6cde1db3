// Branch hints and the forced inlining of the data path, for every core header.
#pragma once

#define USHMEM_LIKELY(x) __builtin_expect(!!(x), 1)
#define USHMEM_UNLIKELY(x) __builtin_expect(!!(x), 0)
// The data path is a handful of instructions per call: keep it in the C entry point, whatever
// the compiler's size heuristics say.
#define USHMEM_HOT inline __attribute__((always_inline))
