// The cost of the C++ API over the C API (2 PEs): PE 0 times, in one run and in alternation,
// the same operation through <shmem.h> and through <ushmem/ushmem.hpp>, to PE 1:
//   put      8-byte blocking put      shmem_putmem            vs ushmem::put(sym_ptr, v)
//   get      8-byte blocking get      shmem_getmem            vs ushmem::get(sym_ptr)
//   fadd     fetch_add on a long      shmem_long_atomic_fetch_add vs ushmem::fetch_add
//   put_nbi  8-byte put + completion  shmem_putmem_nbi + shmem_pe_quiet vs put_async(...).wait()
//   put_val  element put + completion shmem_putmem + shmem_pe_quiet vs put_async(sym_ptr, v).wait()
//   fadd_nbi async fetch_add, waited   shmem_atomic_fetch_add_nbi + shmem_pe_quiet vs
//                                      fetch_add_async(...).get() (its heap slot included)
//   add8     8 non-fetching adds + completion: 8 shmem_atomic_add + shmem_pe_quiet vs a batch of
//            8 add() built once, submit().wait()
//   when_all 2 puts + completion       2 shmem_putmem_nbi + shmem_pe_quiet vs
//                                      when_all(put_async, put_async).wait()
//   then     put + completion + f      shmem_putmem_nbi + shmem_pe_quiet + f vs put_async(...).then(f).wait()
//   co_await put + completion in a coroutine: shmem_putmem_nbi + shmem_pe_quiet vs
//            sync_wait(a task<> that co_awaits put_async) (its frame allocation included)
// Collective rows (both PEs take part; fewer iterations):
//   reduce_all   sum of one long      shmem_long_sum_reduce on a symmetric buffer allocated once vs
//                                     ushmem::reduce_all(v, reduce_op::sum)
//   reduce_async the same             vs reduce_all_async(v, sum).get() (the deferred event)
//   reduce_alloc the same             vs what a one-long sum cost before reduce_all: two
//                                     symmetric<long>(1) + reduce<sum> (allocations, barriers, frees)
//   rpc      a round trip to PE 1 and back with 8 bytes each way: a ping-pong of
//            shmem_putmem_signal + shmem_signal_wait_until (PE 1 answers in a loop of its own) vs
//            ushmem::rpc(1, [](long v) { return v + 1; }, i).get() (PE 1 serves it from a barrier)
//            (fewer iterations: a round trip is microseconds over tcp)
// Output: 'RESULT test=<op>_<c|cxx> size=8 np=2 value=<ns/op> unit=ns best=<ns/op> iters=.. reps=..
// lib=ushmem api=<c|cxx>' and 'RESULT test=<op>_overhead ... value=<cxx-c ns>' (from the best of
// each). --smoke: a few iterations, no timing claim. --rpc: the rpc row alone.
#include <ushmem/ushmem.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {
using clk = std::chrono::steady_clock;

template <class F> double ns_per_op(long iters, F &&f) {
    auto t0 = clk::now();
    for (long i = 0; i < iters; ++i) f(i);
    auto t1 = clk::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / double(iters);
}

struct result {
    std::vector<double> c, cxx;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
double best(const std::vector<double> &v) { return *std::min_element(v.begin(), v.end()); }
} // namespace

int main(int argc, char **argv) {
    bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
    // --rpc: the rpc row alone (over tcp the other rows' 200000 blocking round trips take minutes).
    const bool rpc_only = argc > 1 && std::strcmp(argv[1], "--rpc") == 0;
    ushmem::runtime rt;
    int me = rt.my_pe(), npes = rt.n_pes();
    if (npes != 2) {
        if (me == 0) std::fprintf(stderr, "%s: needs exactly 2 PEs (got %d)\n", argv[0], npes);
        return 1;
    }
    ushmem::symmetric<long> buf(64);
    long *cbuf = buf.data();
    const int peer = 1;
    const long iters = smoke ? 1000 : 200000;
    const int reps = smoke ? 2 : 15;
    auto target = buf.at(0, peer);
    auto counter = buf.at(8, peer);
    auto first = buf.on(peer).subspan(0, 1);  // views are made once, like the C pointers
    volatile long sink = 0;

    const char *names[] = {"put", "get", "fadd", "put_nbi", "put_val", "fadd_nbi", "add8", "when_all", "then", "co_await"};
    constexpr int nres = 10;
    result res[nres];
    auto counter2 = buf.at(16, peer);
    ushmem::batch adds;
    for (std::size_t k = 0; k < 8; ++k) adds.add(buf.at(24 + k, peer), 1L);
    auto second = buf.on(peer).subspan(1, 1);
    long thens = 0;
    if (me == 0 && !rpc_only) {
        for (int r = 0; r < reps; ++r) {
            // Alternate C and C++ within each repetition so that drift affects both alike.
            res[0].c.push_back(ns_per_op(iters, [&](long i) { shmem_putmem(cbuf, &i, sizeof(long), peer); }));
            res[0].cxx.push_back(ns_per_op(iters, [&](long i) { ushmem::put(target, i); }));
            res[1].c.push_back(ns_per_op(iters, [&](long) {
                long v;
                shmem_getmem(&v, cbuf, sizeof(long), peer);
                sink = sink + v;
            }));
            res[1].cxx.push_back(ns_per_op(iters, [&](long) { sink = sink + ushmem::get(target); }));
            res[2].c.push_back(ns_per_op(iters, [&](long) {
                sink = sink + shmem_long_atomic_fetch_add(cbuf + 8, 1, peer);
            }));
            res[2].cxx.push_back(ns_per_op(iters, [&](long) { sink = sink + ushmem::fetch_add(counter, 1L); }));
            res[3].c.push_back(ns_per_op(iters, [&](long i) {
                shmem_putmem_nbi(cbuf, &i, sizeof(long), peer);
                shmem_pe_quiet(&peer, 1);
            }));
            res[3].cxx.push_back(ns_per_op(iters, [&](long i) {
                ushmem::put_async(first, std::span<const long>(&i, 1)).wait();
            }));
            res[4].c.push_back(ns_per_op(iters, [&](long i) {
                shmem_putmem(cbuf, &i, sizeof(long), peer);
                shmem_pe_quiet(&peer, 1);
            }));
            res[4].cxx.push_back(ns_per_op(iters, [&](long i) { ushmem::put_async(target, i).wait(); }));
            res[5].c.push_back(ns_per_op(iters, [&](long) {
                long v;
                shmem_atomic_fetch_add_nbi(&v, cbuf + 16, 1L, peer);
                shmem_pe_quiet(&peer, 1);
                sink = sink + v;
            }));
            res[5].cxx.push_back(ns_per_op(iters, [&](long) { sink = sink + ushmem::fetch_add_async(counter2, 1L).get(); }));
            res[6].c.push_back(ns_per_op(iters, [&](long) {
                for (int k = 0; k < 8; ++k) shmem_atomic_add(cbuf + 24 + k, 1L, peer);
                shmem_pe_quiet(&peer, 1);
            }));
            res[6].cxx.push_back(ns_per_op(iters, [&](long) { adds.submit().wait(); }));
            res[7].c.push_back(ns_per_op(iters, [&](long i) {
                shmem_putmem_nbi(cbuf, &i, sizeof(long), peer);
                shmem_putmem_nbi(cbuf + 1, &i, sizeof(long), peer);
                shmem_pe_quiet(&peer, 1);
            }));
            res[7].cxx.push_back(ns_per_op(iters, [&](long i) {
                ushmem::when_all(ushmem::put_async(first, std::span<const long>(&i, 1)),
                                 ushmem::put_async(second, std::span<const long>(&i, 1)))
                    .wait();
            }));
            res[8].c.push_back(ns_per_op(iters, [&](long i) {
                shmem_putmem_nbi(cbuf, &i, sizeof(long), peer);
                shmem_pe_quiet(&peer, 1);
                ++thens;
            }));
            res[8].cxx.push_back(ns_per_op(iters, [&](long i) {
                ushmem::put_async(first, std::span<const long>(&i, 1)).then([&] { ++thens; }).wait();
            }));
            res[9].c.push_back(ns_per_op(iters, [&](long i) {
                shmem_putmem_nbi(cbuf, &i, sizeof(long), peer);
                shmem_pe_quiet(&peer, 1);
            }));
            res[9].cxx.push_back(ns_per_op(iters, [&](long i) {
                ushmem::sync_wait([](ushmem::sym_span<long> dst, long v) -> ushmem::task<> {
                    co_await ushmem::put_async(dst, std::span<const long>(&v, 1));
                }(first, i));
            }));
        }
        std::printf("INFO impl=ushmem-cxx npes=%d direct=%d iters=%ld reps=%d\n", npes,
                    shmemx_pe_is_direct(peer), iters, reps);
        for (int k = 0; k < nres; ++k) {
            std::printf("RESULT test=%s_c size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem api=c\n",
                        names[k], median(res[k].c), best(res[k].c), iters, reps);
            std::printf("RESULT test=%s_cxx size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem api=cxx\n",
                        names[k], median(res[k].cxx), best(res[k].cxx), iters, reps);
            std::printf("RESULT test=%s_overhead size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem api=cxx-c\n",
                        names[k], median(res[k].cxx) - median(res[k].c), best(res[k].cxx) - best(res[k].c),
                        iters, reps);
        }
    }
    // Collectives: both PEs, alternating C and C++ as above.
    const char *cnames[] = {"reduce_all", "reduce_async", "reduce_alloc"};
    constexpr int ncres = 3;
    result cres[ncres];
    const long citers = smoke ? 200 : 20000;
    long *csrc = static_cast<long *>(shmem_malloc(2 * sizeof(long))), *cdst = csrc + 1;
    long bad = 0;  // sums that were wrong
    auto c_sum = [&](long i) {
        *csrc = i;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, cdst, csrc, 1);
        bad += *cdst != 2 * i;
    };
    for (int r = 0; r < reps; ++r) {
        for (int k = 0; k < ncres; ++k) {
            const long n = k == 2 ? citers / 10 : citers;
            cres[k].c.push_back(ns_per_op(n, c_sum));
            cres[k].cxx.push_back(ns_per_op(n, [&](long i) {
                long s = 0;
                if (k == 0) {
                    s = ushmem::reduce_all(i, ushmem::reduce_op::sum);
                } else if (k == 1) {
                    s = ushmem::reduce_all_async(i, ushmem::reduce_op::sum).get();
                } else {
                    ushmem::symmetric<long> src(1, i), dst(1);
                    ushmem::reduce<ushmem::reduce_op::sum>(ushmem::world(), dst.local(), src.local());
                    s = dst[0];
                }
                bad += s != 2 * i;
            }));
        }
    }
    shmem_free(csrc);
    if (me == 0)
        for (int k = 0; k < ncres; ++k) {
            const long n = k == 2 ? citers / 10 : citers;
            std::printf("RESULT test=%s_c size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem api=c\n",
                        cnames[k], median(cres[k].c), best(cres[k].c), n, reps);
            std::printf("RESULT test=%s_cxx size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem api=cxx\n",
                        cnames[k], median(cres[k].cxx), best(cres[k].cxx), n, reps);
            std::printf("RESULT test=%s_ratio size=8 np=2 value=%.3f unit=x best=%.3f iters=%ld reps=%d lib=ushmem api=cxx/c\n",
                        cnames[k], median(cres[k].cxx) / median(cres[k].c), best(cres[k].cxx) / best(cres[k].c), n, reps);
        }
    int status = 0;
    if (bad != 0) {
        std::fprintf(stderr, "CHECK FAILED pe=%d test=reduce: %ld wrong sums\n", me, bad);
        status = 1;
    }
    if (me == 0 && !rpc_only && thens != 2L * iters * reps) {
        std::fprintf(stderr, "CHECK FAILED pe=0 test=then: %ld continuations, want %ld\n", thens, 2L * iters * reps);
        status = 1;
    }
    ushmem::barrier();
    // The rpc row: both PEs take part (PE 1 answers the ping-pong, and serves the calls).
    {
        ushmem::symmetric<std::uint64_t> sigs(2);  // [0]: PE 0's signal, [1]: PE 1's
        const long rpc_iters = smoke ? 200 : 20000;
        std::uint64_t k = 0;
        result rr;
        for (int r = 0; r < reps; ++r) {
            ushmem::barrier();
            if (me == 0) {
                rr.c.push_back(ns_per_op(rpc_iters, [&](long i) {
                    ++k;
                    shmem_putmem_signal(cbuf + 40, &i, sizeof(long), sigs.data() + 1, k, SHMEM_SIGNAL_SET, peer);
                    shmem_signal_wait_until(sigs.data(), SHMEM_CMP_EQ, k);
                    sink = sink + cbuf[41];
                }));
            } else {
                for (long i = 0; i < rpc_iters; ++i) {
                    ++k;
                    shmem_signal_wait_until(sigs.data() + 1, SHMEM_CMP_EQ, k);
                    const long v = cbuf[40] + 1;
                    shmem_putmem_signal(cbuf + 41, &v, sizeof(long), sigs.data(), k, SHMEM_SIGNAL_SET, 0);
                }
            }
            ushmem::barrier();
            if (me == 0) {
                long wrong = 0;
                rr.cxx.push_back(ns_per_op(rpc_iters, [&](long i) {
                    wrong += ushmem::rpc(peer, [](long v) { return v + 1; }, i).get() != i + 1;
                }));
                if (wrong) {
                    std::fprintf(stderr, "CHECK FAILED pe=0 test=rpc: %ld wrong results\n", wrong);
                    status = 1;
                }
            }
            ushmem::barrier();  // (PE 1 serves the calls here)
        }
        if (me == 0) {
            std::printf("RESULT test=rpc_c size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem api=c\n",
                        median(rr.c), best(rr.c), rpc_iters, reps);
            std::printf("RESULT test=rpc_cxx size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem api=cxx\n",
                        median(rr.cxx), best(rr.cxx), rpc_iters, reps);
            std::printf("RESULT test=rpc_overhead size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem "
                        "api=cxx-c\n", median(rr.cxx) - median(rr.c), best(rr.cxx) - best(rr.c), rpc_iters, reps);
        }
    }
    if (me == 1 && !rpc_only) {
        long want = 2L * iters * reps;
        if (buf[8] != want || buf[16] != want) {
            std::fprintf(stderr, "CHECK FAILED pe=1 test=fadd/fadd_nbi: got %ld, %ld want %ld\n", buf[8], buf[16], want);
            status = 1;
        }
        for (int k = 0; k < 8; ++k)
            if (buf[24 + k] != want) {
                std::fprintf(stderr, "CHECK FAILED pe=1 test=add8: got %ld want %ld\n", buf[24 + k], want);
                status = 1;
            }
    }
    ushmem::barrier();  // (the status is each PE's own: both reach this barrier)
    return status;
}
