// Timeouts that fire, and the same calls succeeding once every PE takes part. PE 0 is the origin;
// the other PEs "compute" (poll an MPI receive, never calling ushmem) until PE 0 has caught its
// timeout_error and releases them with an MPI message: no sleep, no timing assumption beyond the
// 1 ms limits being shorter than the time the test may take. MPI has its own UCX worker, so the
// computing PEs never progress ushmem's.
//
// Modes (argv[1]):
//   rma    bounded RMA, atomics, events, batches, quiet. Deterministic only where completion
//          needs the target's progress: UCX_TLS=tcp,self with USHMEM_PROGRESS_THREAD=off (it is
//          registered that way only). pending() must name PE 1 with issued > completed.
//   coll   bounded team collectives and splits on two-PE teams: the timed-out team becomes
//          unusable (error(team_unusable), leaked by its destructor); fresh teams then succeed.
//   world_barrier, world_alloc, world_free
//          one bounded world-team call each (barrier, symmetric allocation, symmetric free) that
//          times out on PE 0 and leaves the world team unusable on it: later barriers and
//          allocations there throw error(team_unusable) and a live symmetric<> is leaked, not
//          freed. The other PEs make no further world collective (only finalize's, whose teardown
//          waits for every PE through MPI).
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <ushmem/ushmem.hpp>

#include "cxx_check.h"

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {
using namespace std::chrono_literals;
int tag = 100;  // each computing phase uses two fresh tags

// Runs origin() on PE 0 while the PEs in `computing` (1 when null: PE 1 only; else every PE but 0)
// compute until PE 0 releases them; PEs that do not compute do nothing here.
template <class Origin> void while_computing(bool all_others, Origin origin) {
    const int ready = tag++, go = tag++;
    const bool computes = me == 1 || (all_others && me > 0);
    int x = 0;
    if (computes) {
        MPI_Send(&x, 1, MPI_INT, 0, ready, MPI_COMM_WORLD);
        MPI_Request rq;
        MPI_Irecv(&x, 1, MPI_INT, 0, go, MPI_COMM_WORLD, &rq);
        int done = 0;
        while (!done) MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    } else if (me == 0) {
        const int last = all_others ? npes - 1 : 1;
        for (int pe = 1; pe <= last; ++pe) MPI_Recv(&x, 1, MPI_INT, pe, ready, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        origin();
        for (int pe = 1; pe <= last; ++pe) MPI_Send(&x, 1, MPI_INT, pe, go, MPI_COMM_WORLD);
    }
}

// f() must throw timeout_error. RMA waits (`issued` > 0): pending() lists PE 1 first with
// `issued` operations, none complete. Collectives (issued == 0): pe() is this PE, no list.
template <class F> void expect_timeout(const char *what, std::size_t issued, F &&f) {
    try {
        f();
        std::fprintf(stderr, "PE %d: %s: no timeout_error\n", me, what);
        ++failures;
    } catch (const ushmem::timeout_error &e) {
        const std::string w = e.what();
        CHECK(e.code() == ushmem::errc::timeout);
        CHECK(e.elapsed() >= 1ms);
        if (issued == 0) {
            CHECK(e.pe() == me);
            CHECK(e.pending().empty());
            CHECK(w.find("PE " + std::to_string(me)) != std::string::npos);
        } else {
            CHECK(e.pe() == 1);
            CHECK(!e.pending().empty() && e.pending()[0].pe == 1);
            if (!e.pending().empty()) {
                const ushmem::pe_progress &p = e.pending()[0];
                if (issued != ushmem::pe_progress::not_counted) CHECK(p.issued > p.completed);
                CHECK(p.issued == issued);
            }
            const std::string text = issued == ushmem::pe_progress::not_counted
                                         ? "PE 1: operations incomplete (not counted)"
                                         : "PE 1: 0 of " + std::to_string(issued) + " operation";
            if (w.find(text) == std::string::npos) {
                std::fprintf(stderr, "PE %d: %s: '%s' not in: %s\n", me, what, text.c_str(), w.c_str());
                ++failures;
            }
            // The remedy advises the progress thread only where it does not run.
            CHECK((w.find("enable USHMEM_PROGRESS_THREAD") != std::string::npos) ==
                  (shmemx_progress_thread_running() == 0));
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "PE %d: %s: unexpected exception: %s\n", me, what, e.what());
        ++failures;
    }
}

// f() must throw ushmem::error(team_unusable) naming this PE.
template <class F> void expect_unusable(const char *what, F &&f) {
    try {
        f();
        std::fprintf(stderr, "PE %d: %s: no error on an unusable team\n", me, what);
        ++failures;
    } catch (const ushmem::timeout_error &e) {
        std::fprintf(stderr, "PE %d: %s: timeout instead of team_unusable: %s\n", me, what, e.what());
        ++failures;
    } catch (const ushmem::error &e) {
        CHECK(e.code() == ushmem::errc::team_unusable);
        CHECK(std::string(e.what()).find("on PE " + std::to_string(me)) != std::string::npos);
    }
}

// A fetch from `p`, awaited under `limit`.
ushmem::task<long> fetch_within(ushmem::sym_ptr<long> p, ushmem::wait_limit limit) {
    co_return co_await ushmem::within(ushmem::fetch_add_async(p, 0L), limit);
}

void rma_mode() {
    const std::size_t n = std::size_t(1) << 14;
    ushmem::symmetric<long> data(n), ctr(4);
    ushmem::symmetric<long> flag_data(1);  // put_signal's data: ordered with nothing else
    ushmem::symmetric<std::uint64_t> sig(1);
    std::vector<long> src(n), back(n, -1);
    // A value_event must outlive its operation, which a timeout leaves in flight: it is created in
    // PE 0's timed phase and read once PE 1 progresses again.
    std::unique_ptr<ushmem::value_event<long>> f;
    for (std::size_t i = 0; i < n; ++i) src[i] = long(i) * 3 + 1;
    long one = 7, got_one = -1;
    ushmem::dist_array<long> spread(4 * std::size_t(npes));  // indices 4..7 on PE 1
    std::vector<long> window(4, -1);

    // 1. Every bounded wait on operations to a computing PE 1 times out naming it; released, the
    //    operations complete (their buffers were kept) and the data is there.
    while_computing(false, [&] {
        auto e = ushmem::put_async(data.on(1), src);
        expect_timeout("event::wait", 1, [&] { e.wait(1ms); });
        CHECK(!e.test());
        f.reset(new ushmem::value_event<long>(ushmem::fetch_add_async(ctr.at(0, 1), 5L)));
        expect_timeout("value_event::get", 1, [&] { (void)f->get(1ms); });
        expect_timeout("quiet(pe)", 1, [&] { ushmem::quiet(1, 1ms); });
        expect_timeout("quiet()", ushmem::pe_progress::not_counted, [&] { ushmem::quiet(1ms); });
        // The blocking forms, bounded: async + wait(limit).
        expect_timeout("put(span)", 1, [&] { ushmem::put(data.on(1), src, 1ms); });
        expect_timeout("put(ptr)", 1, [&] { ushmem::put(ctr.at(1, 1), 11L, 1ms); });
        expect_timeout("get(span)", 1, [&] { ushmem::get(std::span<long>(back), data.on(1), 1ms); });
        expect_timeout("get(ptr)", 1, [&] { (void)ushmem::get(ctr.at(1, 1), 1ms); });
        expect_timeout("fetch_add", 1, [&] { (void)ushmem::fetch_add(ctr.at(2, 1), 1L, 1ms); });
        expect_timeout("compare_swap", 1, [&] { (void)ushmem::compare_swap(ctr.at(3, 1), 0L, 9L, 1ms); });
        expect_timeout("add", 1, [&] { ushmem::add(ctr.at(2, 1), 1L, 1ms); });
        expect_timeout("put_signal", 1, [&] {
            ushmem::put_signal(flag_data.on(1), std::span<const long>(&one, 1), sig.at(0, 1), 1,
                               ushmem::signal_op::add, 1ms);
        });
        // Composed: when_all of a put and a fetch to PE 1 lists PE 1 once, with both operations;
        // a bounded co_await (within) throws from the co_await. (Their value_events are dropped in
        // flight: they leak their slots, into which the late replies land.)
        expect_timeout("when_all", 2, [&] {
            auto w = ushmem::when_all(ushmem::put_async(data.on(1).subspan(0, 8), std::span<const long>(src).subspan(0, 8)),
                                      ushmem::fetch_add_async(ctr.at(0, 1), 0L));
            w.wait(1ms);
        });
        expect_timeout("co_await within", 1, [&] { (void)ushmem::sync_wait(fetch_within(ctr.at(0, 1), 1ms)); });
        expect_timeout("dist_array::get", 1, [&] { spread.get(4, window, 1ms); });
        // A batch: 3 puts and a get to PE 1, 2 puts to PE 2 (waiting in a barrier, so it
        // progresses), one to this PE. Only PEs 1 and 2 can be listed, each with its own count;
        // PE 1 must be.
        ushmem::batch b;
        const auto part = [&](std::size_t i) { return std::span<const long>(src).subspan(n / 2 + i * 8, 8); };
        const auto at = [&](int pe, std::size_t i) { return data.on(pe).subspan(n / 2 + i * 8, 8); };
        for (std::size_t i = 0; i < 3; ++i) b.put(at(1, i), part(i));
        b.get(std::span<long>(&got_one, 1), data.on(1).subspan(5, 1));
        if (npes > 2)
            for (std::size_t i = 0; i < 2; ++i) b.put(at(2, i), part(i));
        b.put(at(0, 0), part(0));
        auto be = b.submit();
        try {
            be.wait(200ms);
            std::fprintf(stderr, "PE %d: batch: no timeout_error\n", me);
            ++failures;
        } catch (const ushmem::timeout_error &e) {
            bool saw1 = false;
            for (const ushmem::pe_progress &p : e.pending()) {
                CHECK(p.pe == 1 || p.pe == 2);
                CHECK(p.issued == (p.pe == 1 ? 4u : 2u));
                CHECK(p.completed < p.issued);
                saw1 = saw1 || p.pe == 1;
            }
            CHECK(saw1);
            CHECK(std::string(e.what()).find("PE 1: 0 of 4 operations complete") != std::string::npos);
        }
    });
    if (me == 0) {  // every operation above completes now that PE 1 progresses
        CHECK(f->get() == 0);
        ushmem::quiet();
    }
    ushmem::barrier(30s);
    if (me == 1) {
        for (std::size_t i = 0; i < n; ++i) CHECK(data[i] == long(i) * 3 + 1);
        CHECK(ctr[0] == 5 && ctr[1] == 11 && ctr[2] == 2 && ctr[3] == 9);
        CHECK(flag_data[0] == 7 && sig[0] == 1);
    }
    if (me == 0) {
        CHECK(back[5] == 16);
        CHECK(got_one == 16);  // ordered behind the earlier puts to PE 1
    }
    ushmem::barrier(30s);

    // 2. The same bounded calls succeed when PE 1 takes part (it waits in a barrier, which
    //    progresses the transport).
    if (me == 0) {
        try {
            ushmem::put(data.on(1), src, 30s);
            ushmem::put(ctr.at(1, 1), 21L, 30s);
            CHECK(ushmem::get(ctr.at(1, 1), 30s) == 21);
            ushmem::get(std::span<long>(back), data.on(1), 30s);
            CHECK(back[9] == 28);
            CHECK(ushmem::fetch_add(ctr.at(0, 1), 1L, 30s) == 5);
            CHECK(ushmem::compare_swap(ctr.at(3, 1), 9L, 4L, 30s) == 9);
            CHECK(ushmem::load(ctr.at(3, 1), 30s) == 4);
            ushmem::store(ctr.at(3, 1), 8L, 30s);
            CHECK(ushmem::swap(ctr.at(3, 1), 6L, 30s) == 8);
            ushmem::inc(ctr.at(2, 1), 30s);
            CHECK(ushmem::fetch_inc(ctr.at(2, 1), 30s) == 3);
            ushmem::put_signal(flag_data.on(1), std::span<const long>(&one, 1), sig.at(0, 1), 5,
                               ushmem::signal_op::set, 30s);
            ushmem::batch b;
            for (int pe = 0; pe < npes; ++pe) b.put(data.on(pe).subspan(n - 4, 4), std::span<const long>(src).subspan(0, 4));
            b.submit().wait(30s);
            ushmem::quiet(30s);
            // Composed and awaited, bounded, succeeding.
            auto [v] = ushmem::when_all(ushmem::put_async(ctr.at(1, 1), 33L), ushmem::fetch_add_async(ctr.at(0, 1), 0L))
                           .get(30s);
            CHECK(v == 6);
            CHECK(ushmem::sync_wait(fetch_within(ctr.at(1, 1), 30s)) == 33);
            // The replies counter behind pe_progress::completed: 18 gets and fetching atomics went
            // to PE 1 through UCX (9 above, 9 here), all complete now.
            std::uint64_t issued = 0, done = 0;
            shmemx_ctx_pe_replies(SHMEM_CTX_DEFAULT, 1, &issued, &done);
            CHECK(issued == 18 && done == 18);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "PE %d: bounded call failed with every PE taking part: %s\n", me, e.what());
            ++failures;
        }
    }
    ushmem::barrier(30s);
    if (me == 1) CHECK(sig[0] == 5 && ctr[2] == 4 && ctr[3] == 6 && data[n - 3] == 4);
}

// A fresh two-PE team {0, 1} (split of the world: collective over every PE; invalid on PEs > 1).
ushmem::team pair_team() { return ushmem::world().split_strided(0, 1, 2); }

void coll_mode() {
    ushmem::symmetric<long> a(8), b(8 * std::size_t(npes));
    // Each bounded team call: times out on PE 0 while PE 1 computes; the team is then unusable
    // (the same call, bounded or not, throws team_unusable; the destructor leaks it).
    struct coll_case {
        const char *name;
        void (*call)(const ushmem::team &, ushmem::symmetric<long> &, ushmem::symmetric<long> &,
                     ushmem::wait_limit);
    };
    const coll_case cases[] = {
        {"team sync", [](const ushmem::team &t, auto &, auto &, ushmem::wait_limit l) { t.sync(l); }},
        {"barrier(team)", [](const ushmem::team &t, auto &, auto &, ushmem::wait_limit l) { ushmem::barrier(t, l); }},
        {"broadcast",
         [](const ushmem::team &t, auto &x, auto &y, ushmem::wait_limit l) {
             // Root 1: the root pushes the data and may not wait; PE 0 receives, so it waits.
             ushmem::broadcast(t, y.local().subspan(0, 8), x.local(), 1, l);
         }},
        {"reduce",
         [](const ushmem::team &t, auto &x, auto &y, ushmem::wait_limit l) {
             ushmem::reduce<ushmem::reduce_op::sum>(t, y.local().subspan(0, 8), x.local(), l);
         }},
        {"fcollect",
         [](const ushmem::team &t, auto &x, auto &y, ushmem::wait_limit l) { ushmem::fcollect(t, y.local(), x.local(), l); }},
        {"alltoall",
         [](const ushmem::team &t, auto &x, auto &y, ushmem::wait_limit l) {
             ushmem::alltoall(t, y.local(), x.local(), 4, l);
         }},
        {"split_strided",
         [](const ushmem::team &t, auto &, auto &, ushmem::wait_limit l) {
             ushmem::team sub = t.split_strided(0, 1, 2, l);
             if (!sub.valid()) throw std::logic_error("split_strided: no team");
         }},
        {"split_2d",
         [](const ushmem::team &t, auto &, auto &, ushmem::wait_limit l) {
             auto [x, y] = t.split_2d(1, l);
             if (!x.valid() || !y.valid()) throw std::logic_error("split_2d: no team");
         }},
    };
    for (const coll_case &c : cases) {
        for (int i = 0; i < 8; ++i) a[std::size_t(i)] = me * 100 + i;
        {
            ushmem::team t = pair_team();
            while_computing(false, [&] {
                expect_timeout(c.name, 0, [&] { c.call(t, a, b, 1ms); });
                CHECK(!t.usable());
                expect_unusable(c.name, [&] { c.call(t, a, b, 1ms); });
                expect_unusable(c.name, [&] { c.call(t, a, b, {}); });
            });
        }  // PE 0 leaks its unusable team (one stderr line), PE 1 destroys its own
        ushmem::barrier(30s);
        {
            ushmem::team t = pair_team();
            if (me < 2) {
                try {
                    c.call(t, a, b, 30s);
                    CHECK(t.usable());
                } catch (const std::exception &e) {
                    std::fprintf(stderr, "PE %d: %s failed with every member taking part: %s\n", me, c.name, e.what());
                    ++failures;
                }
            }
        }
        ushmem::barrier(30s);
    }
    // Results of a bounded collective that completed.
    {
        ushmem::team t = pair_team();
        if (me < 2) {
            ushmem::reduce<ushmem::reduce_op::sum>(t, b.local().subspan(0, 8), a.local(), 30s);
            CHECK(b[3] == 0 + 3 + 100 + 3);
            // Another dest: the root may start the broadcast while PE 0 still writes the reduction's
            // result (the specification requires dest to be ready when any PE enters).
            ushmem::broadcast(t, b.local().subspan(8, 8), a.local(), 1, 30s);
            CHECK(b[8 + 2] == 102);
        }
    }
    ushmem::barrier(30s);
}

// One world-team timeout on PE 0 (the others compute), then the world team is unusable there.
void world_mode(const std::string &which) {
    // First, with every PE taking part, every bounded world call succeeds.
    {
        ushmem::barrier(30s);
        ushmem::sync_all(30s);
        ushmem::symmetric<long> s(8, 30s), u(8, 3L, 30s);
        CHECK(s[7] == 0 && u[7] == 3);
        s.free(30s);
        CHECK(s.data() == nullptr);
    }
    // Every PE allocates these; only PE 0 destroys its own (after the timeout: leaked, not freed),
    // the others never free theirs, since PE 0 will not join a free.
    auto *kept = new ushmem::symmetric<long>(8);
    ushmem::symmetric<long> *doomed = nullptr;
    if (which == "world_free") doomed = new ushmem::symmetric<long>(8);
    ushmem::barrier(30s);
    while_computing(true, [&] {
        if (which == "world_barrier") {
            expect_timeout("barrier", 0, [] { ushmem::barrier(1ms); });
        } else if (which == "world_alloc") {
            expect_timeout("symmetric allocation", 0, [] { ushmem::symmetric<long> s(1024, 1ms); });
        } else {
            expect_timeout("symmetric free", 0, [&] { doomed->free(1ms); });
            CHECK(doomed->data() == nullptr);
        }
        CHECK(!ushmem::world().usable());
        expect_unusable("barrier", [] { ushmem::barrier(); });
        expect_unusable("bounded barrier", [] { ushmem::barrier(1s); });
        expect_unusable("sync_all", [] { ushmem::sync_all(); });
        expect_unusable("symmetric allocation", [] { ushmem::symmetric<long> s(4); });
        expect_unusable("symmetric free", [&] { kept->free(); });
        CHECK(kept->data() != nullptr);
        delete kept;  // leaked with one line on stderr: the world team is unusable
        delete doomed;
    });
}
} // namespace

int main(int argc, char **argv) {
    ushmem::runtime rt;
    me = rt.my_pe();
    npes = rt.n_pes();
    const std::string mode = argc > 1 ? argv[1] : "";
    if (npes < 2) {
        if (me == 0) std::fprintf(stderr, "cxx_timeout: run with at least 2 PEs\n");
        return 1;
    }
    if (mode == "rma") rma_mode();
    else if (mode == "coll") coll_mode();
    else if (mode == "world_barrier" || mode == "world_alloc" || mode == "world_free") world_mode(mode);
    else {
        if (me == 0) std::fprintf(stderr, "cxx_timeout: unknown mode '%s'\n", mode.c_str());
        return 1;
    }
    // Failures are counted per PE; the world team may be unusable on PE 0, so the verdict goes
    // through MPI.
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (failures) std::fprintf(stderr, "PE %d: %d failures\n", me, failures);
    if (me == 0 && all == 0) std::printf("cxx_timeout %s: OK (%d PEs)\n", mode.c_str(), npes);
    return all ? 1 : 0;
}
