// shmemx extensions for bounded waits (core/timed.hpp): a non-blocking per-PE quiet and a deadline
// for team collectives. The C++ API's timed overloads are built on them.
#include "api/api.hpp"
#include "core/context.hpp"
#include "core/ordering.hpp"
#include "core/runtime.hpp"
#include "core/timed.hpp"

#include <shmemx.h>

#include <vector>

using namespace ushmem;

namespace {
// `pe` (world numbering) in the context's team numbering.
int team_numbered(const core::context &c, int pe) {
    if (c.team_pes == nullptr) return pe;
    for (int i = 0; i < c.team_n; ++i)
        if (c.team_pes[i] == pe) return i;
    return -1;
}
} // namespace

USHMEM_DEF(int, shmemx_ctx_pe_test,
           (shmem_ctx_t ctx, const int *target_pes, size_t npes, int *pending_pe)) {
    const char *r = "shmemx_ctx_pe_test";
    core::check_running(r);
    core::context &c = api::ctx_of(r, ctx);
    if (target_pes == nullptr) {
        // Every PE with outstanding operations: test each (a copy: a completed test edits the list).
        std::vector<int> pes;
        {
            std::unique_lock<std::mutex> g(c.lock, std::defer_lock);
            if (c.thread_safe) g.lock();
            pes = c.pending_list;
        }
        int done = 1;
        for (int pe : pes)
            if (!core::pe_test(r, c, pe)) {
                if (done && pending_pe) *pending_pe = team_numbered(c, pe);
                done = 0;
            }
        if (done && c.direct_dirty.load(std::memory_order_relaxed)) core::quiet(r, c);
        return done;
    }
    int done = 1;
    for (size_t i = 0; i < npes; ++i) {
        int pe = api::ctx_pe(r, c, target_pes[i]);
        core::check_pe(r, pe);
        if (!core::pe_test(r, c, pe)) {
            if (done && pending_pe) *pending_pe = target_pes[i];
            done = 0;
        }
    }
    return done;
}

USHMEM_DEF(void, shmemx_ctx_pe_replies,
           (shmem_ctx_t ctx, int pe, uint64_t *issued, uint64_t *completed)) {
    const char *r = "shmemx_ctx_pe_replies";
    core::check_running(r);
    core::context &c = api::ctx_of(r, ctx);
    const int wpe = api::ctx_pe(r, c, pe);
    core::check_pe(r, wpe);
    // Completed first: a reply counted is then never missing from `issued`.
    const std::uint64_t done = c.reply_done(wpe).load(std::memory_order_acquire);
    if (completed) *completed = done;
    if (issued) *issued = c.reply_issued(wpe).load(std::memory_order_relaxed);
}

USHMEM_DEF(void, shmemx_coll_timeout_begin, (double seconds)) {
    core::check_running("shmemx_coll_timeout_begin");
    core::coll_deadline_begin(seconds);
}

USHMEM_DEF(int, shmemx_coll_timeout_end, (void)) {
    core::check_running("shmemx_coll_timeout_end");
    return core::coll_deadline_end() ? 1 : 0;
}
