// Batch operations without result slots (add, inc, set), put_signal and element puts in a batch,
// get into a vector, element put_async, and the multi-variable waits (wait_until_all/any/some and
// their vector forms, unbounded and bounded, a timeout naming the condition) at any number of PEs.
#include <ushmem/ushmem.hpp>

#include "cxx_check.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
using namespace std::chrono_literals;

void test_batch_ops() {
    ushmem::symmetric<long> hits(2);
    ushmem::symmetric<std::uint64_t> flag(1);
    ushmem::symmetric<double> box(4);
    ushmem::symmetric<int> slot{std::size_t(npes)};
    const int right = (me + 1) % npes;

    ushmem::batch b;
    std::vector<double> payload{1.5 + me, 2.5 + me, 3.5 + me};
    b.inc(hits.at(1, right));  // queued, then dropped by clear()
    b.clear();
    CHECK(b.size() == 0 && b.target_pes().empty());
    for (int pe = 0; pe < npes; ++pe) {
        b.add(hits.at(0, pe), 2L);  // no result slot
        b.inc(hits.at(1, pe));
        b.put(slot.at(std::size_t(me), pe), me + 100);  // one element, from a value
    }
    b.put_signal(box.on(right).subspan(0, 3), payload, flag.at(0, right), 1, ushmem::signal_op::add);
    CHECK(b.size() == std::size_t(npes) * 3 + 1);
    b.submit().wait(10s);
    ushmem::wait_until(flag[0], ushmem::cmp::ge, std::uint64_t(1), 10s);
    const int left = (me + npes - 1) % npes;
    CHECK(box[0] == 1.5 + left && box[2] == 3.5 + left);
    ushmem::barrier();
    CHECK(hits[0] == 2L * npes);
    CHECK(hits[1] == long(npes));
    for (int pe = 0; pe < npes; ++pe) CHECK(slot[std::size_t(pe)] == pe + 100);
    ushmem::barrier();

    // set (atomic store) and get into a vector-like destination.
    ushmem::batch s;
    s.set(hits.at(0, right), long(me) * 7);
    s.submit().wait();
    ushmem::barrier();
    CHECK(hits[0] == long(left) * 7);
    ushmem::batch g;
    std::vector<double> back(3);
    g.get(back, box.on(right).subspan(0, 3));
    g.submit().wait();
    CHECK(back[1] == 2.5 + me);
    // Free functions take vectors as destinations too, and element put_async from a value.
    std::vector<double> again(3);
    ushmem::get(again, box.on(right).subspan(0, 3));
    CHECK(again == back);
    ushmem::barrier();
    auto e = ushmem::put_async(box.at(3, right), 42.0 + me);
    e.wait();
    ushmem::barrier();
    CHECK(box[3] == 42.0 + left);
    ushmem::barrier();
}

void test_waits() {
    const std::size_t k = 4;
    ushmem::symmetric<int> ivars(k);
    const int right = (me + 1) % npes;
    const int left = (me + npes - 1) % npes;

    // all: the left neighbour sets every word to 1.
    for (std::size_t i = 0; i < k; ++i) ushmem::put(ivars.at(i, right), 1);
    ushmem::wait_until_all(ivars.local(), ushmem::cmp::eq, 1);
    ushmem::barrier();
    // any / some with a status mask: word 2 is set to 5; word 0 (excluded) to 9.
    for (std::size_t i = 0; i < k; ++i) ivars[i] = 0;
    ushmem::barrier();
    ushmem::put(ivars.at(2, right), 5);
    ushmem::put(ivars.at(0, right), 9);
    ushmem::quiet();
    const std::vector<int> status{1, 0, 0, 0};
    auto any = ushmem::wait_until_any(ivars.local(), status, ushmem::cmp::gt, 0, 10s);
    CHECK(any && *any == 2);
    auto some = ushmem::wait_until_some(ivars.local(), status, ushmem::cmp::gt, 0);
    CHECK(some == std::vector<std::size_t>{2});
    // Vector forms: each word against its own value.
    const std::vector<int> values{9, 0, 5, 0};
    ushmem::wait_until_all(ivars.local(), ushmem::cmp::eq, values, 10s);
    auto any_v = ushmem::wait_until_any(ivars.local(), ushmem::cmp::eq, std::vector<int>{1, 1, 5, 1});
    CHECK(any_v && *any_v == 2);
    auto some_v = ushmem::wait_until_some(ivars.local(), ushmem::cmp::ge, std::vector<int>{9, 1, 5, 1}, 10s);
    CHECK((some_v == std::vector<std::size_t>{0, 2}));
    // Every word excluded: no index.
    CHECK(!ushmem::wait_until_any(ivars.local(), std::vector<int>(k, 1), ushmem::cmp::eq, 0));
    CHECK(ushmem::wait_until_some(ivars.local(), std::vector<int>(k, 1), ushmem::cmp::eq, 0, 1s).empty());

    // A bounded wait that times out: word 1 never reaches 3.
    try {
        ushmem::wait_until_all(ivars.local(), ushmem::cmp::eq, 3, 50ms);
        CHECK(!"no timeout");
    } catch (const ushmem::timeout_error &t) {
        const std::string w = t.what();
        CHECK(t.pe() == me && t.pending().empty() && t.elapsed() >= 50ms);
        CHECK(w.find("wait_until_all: 0 of 4 variables at 0x") != std::string::npos);
        CHECK(w.find(" are == 3 at the deadline") != std::string::npos);
    }
    try {
        (void)ushmem::wait_until_some(ivars.local(), ushmem::cmp::eq, std::vector<int>{1, 1, 1, 1}, 20ms);
        CHECK(!"no timeout");
    } catch (const ushmem::timeout_error &t) {
        CHECK(std::string(t.what()).find("wait_until_some (vector): 0 of 4 variables") != std::string::npos);
    }
    // Bad arguments.
    try {
        (void)ushmem::wait_until_any(ivars.local(), std::vector<int>(2, 0), ushmem::cmp::eq, 0);
        CHECK(!"no invalid_argument");
    } catch (const ushmem::invalid_argument &e) {
        CHECK(std::string(e.what()).find("wait_until_any on PE " + std::to_string(me) + ": status has 2 entries for 4 variables") != std::string::npos);
    }
    (void)left;
    ushmem::barrier();
}

} // namespace

// shmemx_progress_thread_running (which the C++ timeout messages consult) and the direct path as
// the configurations set them: UCX_TLS=tcp starts the progress thread (auto) and turns the
// same-node direct path off; the default configuration needs no thread and goes direct.
void test_transport_state() {
    const char *tls = std::getenv("UCX_TLS");
    const char *pt = std::getenv("USHMEM_PROGRESS_THREAD");
    const char *direct = std::getenv("USHMEM_DIRECT");
    const int right = (me + 1) % npes;
    if (pt != nullptr) return;
    if (tls != nullptr && std::string(tls).rfind("tcp", 0) == 0) {
        CHECK(shmemx_progress_thread_running() == (npes > 1 ? 1 : 0));  // (alone: nothing to progress)
        CHECK(shmemx_pe_is_direct(right) == (right == me ? 1 : 0));
    } else if (tls == nullptr && direct == nullptr) {
        CHECK(shmemx_progress_thread_running() == 0);
        CHECK(shmemx_pe_is_direct(right) == 1);
    }
}

int main() {
    ushmem::runtime rt;
    me = rt.my_pe();
    npes = rt.n_pes();
    test_transport_state();
    test_batch_ops();
    test_waits();
    ushmem::barrier();
    if (me == 0) std::printf("cxx_ops: %s at %d PEs\n", failures ? "FAILED" : "ok", npes);
    return failures ? 1 : 0;
}
