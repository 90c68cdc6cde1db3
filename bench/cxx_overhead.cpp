// The cost of the C++ API over the C API (2 PEs): PE 0 times, in one run and in alternation,
// the same operation through <shmem.h> and through <ushmem/ushmem.hpp>, to PE 1:
//   put      8-byte blocking put      shmem_putmem            vs ushmem::put(sym_ptr, v)
//   get      8-byte blocking get      shmem_getmem            vs ushmem::get(sym_ptr)
//   fadd     fetch_add on a long      shmem_long_atomic_fetch_add vs ushmem::fetch_add
//   put_nbi  8-byte put + completion  shmem_putmem_nbi + shmem_pe_quiet vs put_async(...).wait()
// Output: 'RESULT test=<op>_<c|cxx> size=8 np=2 value=<ns/op> unit=ns best=<ns/op> iters=.. reps=..
// lib=ushmem api=<c|cxx>' and 'RESULT test=<op>_overhead ... value=<cxx-c ns>' (from the best of
// each). --smoke: a few iterations, no timing claim.
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

    const char *names[] = {"put", "get", "fadd", "put_nbi"};
    result res[4];
    if (me == 0) {
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
        }
        std::printf("INFO impl=ushmem-cxx npes=%d direct=%d iters=%ld reps=%d\n", npes,
                    shmemx_pe_is_direct(peer), iters, reps);
        for (int k = 0; k < 4; ++k) {
            std::printf("RESULT test=%s_c size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem api=c\n",
                        names[k], median(res[k].c), best(res[k].c), iters, reps);
            std::printf("RESULT test=%s_cxx size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem api=cxx\n",
                        names[k], median(res[k].cxx), best(res[k].cxx), iters, reps);
            std::printf("RESULT test=%s_overhead size=8 np=2 value=%.3f unit=ns best=%.3f iters=%ld reps=%d lib=ushmem api=cxx-c\n",
                        names[k], median(res[k].cxx) - median(res[k].c), best(res[k].cxx) - best(res[k].c),
                        iters, reps);
        }
    }
    ushmem::barrier();
    if (me == 1) {
        long want = 2L * iters * reps;
        if (buf[8] != want) {
            std::fprintf(stderr, "CHECK FAILED pe=1 test=fadd: got %ld want %ld\n", buf[8], want);
            return 1;
        }
    }
    ushmem::barrier();
    return 0;
}
