// USHMEM_STATS: counters and the finalize table (see stats.hpp).
#include "core/stats.hpp"
#include "core/runtime.hpp"
#include "util/lazy_array.hpp"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

namespace ushmem::core::stats {

bool enabled = false;
thread_local int coll_depth = 0;

namespace {
const char *const kind_names[kind_count] = {"put",  "get",        "put_nbi", "get_nbi", "put_strided",
                                            "get_strided", "amo", "amo_fetch", "put_signal", "signal"};
const char *const timer_names[timer_count] = {"quiet", "wait", "collectives"};

struct cell {
    std::atomic<std::uint64_t> count{0}, bytes{0};
};
// [target PE][kind]; atomics because SHMEM_THREAD_MULTIPLE threads count concurrently. Lazy
// (util/lazy_array.hpp): a PE's cells cost memory once an operation to it is counted.
util::lazy_array<cell> g_cells;
int g_npes = 0;
std::atomic<std::uint64_t> g_time_ns[timer_count];
std::atomic<std::uint64_t> g_time_calls[timer_count];
std::atomic<std::uint64_t> g_writes_completed{0};
} // namespace

void start(int npes, bool on) {
    enabled = on;
    if (on) fast_path_close(fast_path_closer::counted);
    g_npes = npes;
    g_cells.reset(on ? std::size_t(npes) * kind_count : 0);
    for (int t = 0; t < timer_count; ++t) g_time_ns[t] = 0, g_time_calls[t] = 0;
    g_writes_completed = 0;
}

void record(kind k, int pe, std::size_t bytes) {
    if (pe < 0 || pe >= g_npes) return;
    cell &c = g_cells[std::size_t(pe) * kind_count + k];
    c.count.fetch_add(1, std::memory_order_relaxed);
    c.bytes.fetch_add(bytes, std::memory_order_relaxed);
}

namespace {
std::uint64_t count_kinds(std::initializer_list<kind> kinds) {
    std::uint64_t n = 0;
    for (int pe = 0; pe < g_npes && !g_cells.empty(); ++pe)
        for (kind k : kinds) n += g_cells[std::size_t(pe) * kind_count + k].count.load(std::memory_order_relaxed);
    return n;
}
} // namespace

std::uint64_t writes_issued() {
    return count_kinds({k_put, k_put_nbi, k_put_strided, k_amo, k_put_signal, k_signal});
}
std::uint64_t reads_issued() { return count_kinds({k_get, k_get_nbi, k_get_strided, k_amo_fetch}); }
std::uint64_t writes_completed() { return g_writes_completed.load(std::memory_order_relaxed); }
void writes_completed_upto(std::uint64_t issued) {
    std::uint64_t cur = g_writes_completed.load(std::memory_order_relaxed);
    while (cur < issued && !g_writes_completed.compare_exchange_weak(cur, issued, std::memory_order_relaxed)) {
    }
}

void check_pe_slow(const char *routine, int pe, kind k, std::size_t bytes) {
    check_pe(routine, pe);  // a bad PE ends the job here, with or without statistics
    if (enabled) record(k, pe, bytes);
}

void add_time(timer t, double seconds) {
    if (t == t_wait && coll_depth > 0) return;  // inside a collective: part of its time
    g_time_calls[t].fetch_add(1, std::memory_order_relaxed);
    g_time_ns[t].fetch_add(std::uint64_t(seconds * 1e9), std::memory_order_relaxed);
}

namespace {
std::atomic<std::uint64_t> g_growths{0}, g_growth_failures{0}, g_growth_bytes{0};
} // namespace

void count_heap_growth(std::size_t bytes) {
    if (!enabled) return;
    if (bytes) {
        g_growths.fetch_add(1, std::memory_order_relaxed);
        g_growth_bytes.fetch_add(bytes, std::memory_order_relaxed);
    } else {
        g_growth_failures.fetch_add(1, std::memory_order_relaxed);
    }
}

void report(int me, int npes) {
    if (!enabled) return;
    // One write per PE, every line tagged with the PE, so that the tables of several PEs stay
    // readable (and parseable) when mpirun interleaves their output.
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "[PE %d] ushmem statistics (USHMEM_STATS) of PE %d of %d\n", me, me, npes);
    out += line;
    std::snprintf(line, sizeof line, "[PE %d] %-12s %9s %14s %18s\n", me, "operation", "target", "count", "bytes");
    out += line;
    std::uint64_t total_ops = 0, total_bytes = 0;
    for (int k = 0; k < kind_count; ++k)
        for (int pe = 0; pe < g_npes; ++pe) {
            const cell &c = g_cells[std::size_t(pe) * kind_count + std::size_t(k)];
            std::uint64_t n = c.count.load(std::memory_order_relaxed);
            if (!n) continue;
            std::uint64_t b = c.bytes.load(std::memory_order_relaxed);
            total_ops += n;
            total_bytes += b;
            std::snprintf(line, sizeof line, "[PE %d] %-12s %9d %14" PRIu64 " %18" PRIu64 "\n", me,
                          kind_names[k], pe, n, b);
            out += line;
        }
    std::snprintf(line, sizeof line, "[PE %d] %-12s %9s %14" PRIu64 " %18" PRIu64 "\n", me, "total", "all",
                  total_ops, total_bytes);
    out += line;
    for (int t = 0; t < timer_count; ++t) {
        std::snprintf(line, sizeof line, "[PE %d] time in %-12s %12.6f s %10" PRIu64 " calls\n", me,
                      timer_names[t], double(g_time_ns[t].load()) * 1e-9, g_time_calls[t].load());
        out += line;
    }
    if (g_growths.load() || g_growth_failures.load()) {
        std::snprintf(line, sizeof line, "[PE %d] heap growths %" PRIu64 " (%" PRIu64 " bytes mapped), %" PRIu64
                                         " refused\n", me, g_growths.load(), g_growth_bytes.load(), g_growth_failures.load());
        out += line;
    }
    // The per-PE tables (util/lazy_array.hpp): what talking to peers has committed so far.
    const util::lazy_totals lazy = util::lazy_arrays_committed();
    std::snprintf(line, sizeof line, "[PE %d] per-PE tables %zu bytes committed, %zu reserved (%zu arrays)\n", me,
                  lazy.committed, lazy.reserved, lazy.arrays);
    out += line;
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
}

} // namespace ushmem::core::stats
