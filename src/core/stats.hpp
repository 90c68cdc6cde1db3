// Optional per-PE statistics (USHMEM_STATS=1): operations and bytes by kind and target PE, and
// the time spent in quiet, blocking waits and collectives, printed by each PE at finalize.
//
// Cost when off: none on the data path. RMA and AMO entry points check their target PE against
// the fast paths' gate (fast_path.hpp, fast_pe_limit) instead of the number of PEs
// (check_pe_and_count): that is the same load, compare and branch as the plain check, and with
// statistics on the gate is closed (one of its reasons), so every call takes the cold path, which
// validates the PE and counts the operation. Quiet and collectives test `enabled` once (one
// predictable branch) before timing.
#pragma once

#include "core/clock.hpp"
#include "core/compiler.hpp"
#include "core/fast_path.hpp"
#include "core/runtime.hpp"

#include <cstddef>
#include <cstdint>

namespace ushmem::core::stats {

// Kinds of one-sided operation. Names for the table in stats.cpp (kind_names), same order.
enum kind : std::uint8_t {
    k_put, k_get, k_put_nbi, k_get_nbi, k_put_strided, k_get_strided,
    k_amo, k_amo_fetch, k_put_signal, k_signal, kind_count
};
enum timer : std::uint8_t { t_quiet, t_wait, t_coll, timer_count };

extern bool enabled;

// Sizes the tables (init, after settings are read) and prints them (finalize, every PE).
// With statistics on it closes the fast paths' gate (fast_path.hpp: counted).
void start(int npes, bool on);
void report(int me, int npes);

// Out of line: only reached with statistics on.
void record(kind k, int pe, std::size_t bytes);
[[gnu::cold]] void check_pe_slow(const char *routine, int pe, kind k, std::size_t bytes);

// core::check_pe, and the operation counted when statistics are on.
USHMEM_HOT void check_pe_and_count(const char *routine, int pe, kind k, std::size_t bytes) {
    if (USHMEM_UNLIKELY(unsigned(pe) >= fast_pe_limit)) check_pe_slow(routine, pe, k, bytes);
}
// Performance counters (shmemx_pcntr_*), totals over every target PE. Writes: put, put_nbi,
// put_strided, amo, put_signal, signal; reads: get, get_nbi, get_strided, amo_fetch.
std::uint64_t writes_issued();
std::uint64_t reads_issued();
// Writes completed by a quiet: a quiet that began when `issued` writes had been issued raises the
// count to `issued` when it ends (never lowers it: quiets of several threads may overlap).
std::uint64_t writes_completed();
void writes_completed_upto(std::uint64_t issued);
void add_time(timer t, double seconds);
// A growth of the symmetric heap by `bytes` (core/heap_grow.cpp), or a failed one (bytes 0).
void count_heap_growth(std::size_t bytes);
// Waits inside a collective count as collective time, not wait time.
extern thread_local int coll_depth;

// Times a scope (a quiet, a collective) when statistics are on.
class timed {
  public:
    explicit timed(timer t) : t_(t) {
        if (USHMEM_UNLIKELY(enabled)) {
            start_ = now_seconds();
            if (t == t_coll) ++coll_depth;
        }
    }
    ~timed() {
        if (USHMEM_UNLIKELY(start_ != 0)) {
            if (t_ == t_coll) --coll_depth;
            add_time(t_, now_seconds() - start_);
        }
    }
    timed(const timed &) = delete;
    timed &operator=(const timed &) = delete;

  private:
    timer t_;
    double start_ = 0;
};

} // namespace ushmem::core::stats
