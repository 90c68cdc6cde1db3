// One-process hot paths (Google Benchmark): the pieces of the data path that do not need a peer.
// They run without shmem_init: each benchmark sets up just the state it measures.
#include "core/context.hpp"
#include "core/env.hpp"
#include "core/heap_alloc.hpp"
#include "core/ordering.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "core/runtime.hpp"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

using namespace ushmem::core;

// Symmetric address -> (segment, offset): runs on every RMA and AMO call. The argument picks an
// address in the heap (0) or in the static segment (1), which is checked second.
static void BM_Locate(benchmark::State &st) {
    static std::vector<char> heap(1 << 20), stat(1 << 16);
    rt.seg[seg_heap].base = reinterpret_cast<std::uintptr_t>(heap.data());
    rt.seg[seg_heap].size = heap.size();
    rt.seg[seg_static].base = reinterpret_cast<std::uintptr_t>(stat.data());
    rt.seg[seg_static].size = stat.size();
    const char *p = st.range(0) == 0 ? heap.data() + 4096 : stat.data() + 128;
    for (auto _ : st) {
        seg_id s = seg_heap;
        std::size_t off = 0;
        benchmark::DoNotOptimize(p);
        bool ok = locate(p, 8, s, off);
        benchmark::DoNotOptimize(ok);
        benchmark::DoNotOptimize(off);
    }
}
BENCHMARK(BM_Locate)->ArgName("static")->Arg(0)->Arg(1);

// Completion state: marking a PE after a UCX operation (first and repeated), and the quiet fast
// path with nothing outstanding.
static void BM_NotePendingRepeat(benchmark::State &st) {
    context c;
    c.reset(1024, false);
    c.note_pending(7);
    for (auto _ : st) {
        c.note_pending(7);
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_NotePendingRepeat);

static void BM_QuietNothingOutstanding(benchmark::State &st) {
    context c;
    c.reset(1024, false);
    for (auto _ : st) {
        quiet("bench", c);
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_QuietNothingOutstanding);

static void BM_QuietAfterDirectStore(benchmark::State &st) {
    context c;
    c.reset(1024, false);
    for (auto _ : st) {
        c.note_direct();
        quiet("bench", c);
    }
}
BENCHMARK(BM_QuietAfterDirectStore);

// The symmetric allocator: a malloc/free pair on a heap with many live blocks.
static void BM_AllocFree(benchmark::State &st) {
    heap_allocator h(std::size_t(1) << 30);
    std::vector<std::size_t> live;
    std::mt19937 rng(1);
    for (int i = 0; i < int(st.range(0)); ++i) live.push_back(*h.allocate(64 + rng() % 4096));
    for (std::size_t i = 0; i < live.size(); i += 2) h.release(live[i]);  // fragment it
    for (auto _ : st) {
        auto o = h.allocate(1024);
        benchmark::DoNotOptimize(o);
        h.release(*o);
    }
}
BENCHMARK(BM_AllocFree)->Arg(16)->Arg(1024)->Arg(16384);

static void BM_ParseSize(benchmark::State &st) {
    std::size_t v;
    std::string err;
    for (auto _ : st) {
        bool ok = parse_size("256M", v, err);
        benchmark::DoNotOptimize(ok);
        benchmark::DoNotOptimize(v);
    }
}
BENCHMARK(BM_ParseSize);

BENCHMARK_MAIN();
