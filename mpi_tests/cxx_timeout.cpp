// Timeouts that fire: a target PE that does not progress the transport makes the origin's bounded
// waits throw timeout_error naming that PE; once the target progresses, the same operations complete
// and their data arrives.
//
// The RMA part is deterministic only where completion needs the target's progress: UCX_TLS=tcp,self
// (every RMA software-emulated) with USHMEM_PROGRESS_THREAD=off (registered that way only). The
// collective part needs nothing of the transport and runs everywhere. The target
// "computes" by polling an MPI receive: MPI has its own UCX worker, so this never progresses
// ushmem's, and the origin sends that message only after its timeouts have fired (no sleep, no
// timing assumption beyond the 1 ms limit being shorter than the 60 s the test may take).
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <ushmem/ushmem.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {
int me, failures = 0;
#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            std::fprintf(stderr, "PE %d: CHECK FAILED %s:%d: %s\n", me, __FILE__, __LINE__, \
                         #cond);                                                             \
            ++failures;                                                                      \
        }                                                                                    \
    } while (0)

// The target computes (no ushmem call) until the origin's MPI message `tag` arrives.
void compute_until_released(int tag) {
    int go = 0;
    MPI_Request rq;
    MPI_Irecv(&go, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, &rq);
    int done = 0;
    while (!done) MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
}
void release_target(int tag) {
    int go = 1;
    MPI_Send(&go, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
}
// The origin waits until the target has entered its computation.
void target_is_computing(int tag) {
    int x = 0;
    if (me == 1) MPI_Send(&x, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
    else MPI_Recv(&x, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

template <class F> void expect_timeout(F &&f, int pe, const char *what) {
    try {
        f();
        std::fprintf(stderr, "PE %d: %s: no timeout_error\n", me, what);
        ++failures;
    } catch (const ushmem::timeout_error &e) {
        CHECK(e.pe() == pe);
        CHECK(e.code() == ushmem::errc::timeout);
        CHECK(e.elapsed() >= std::chrono::milliseconds(1));
        CHECK(std::string(e.what()).find("PE " + std::to_string(pe)) != std::string::npos);
    }
}
} // namespace

// Argument "rma": part 1 (needs tcp without progress thread) and part 2; "coll": part 2 only,
// deterministic in every configuration. PE 0 is the origin, PE 1 the target, others only join
// the world barriers.
int main(int argc, char **argv) {
    using namespace std::chrono_literals;
    ushmem::runtime rt;
    me = rt.my_pe();
    const bool rma = argc > 1 && std::string(argv[1]) == "rma";
    if (rt.n_pes() < 2) {
        if (me == 0) std::fprintf(stderr, "cxx_timeout: run with at least 2 PEs\n");
        return 1;
    }
    const std::size_t n = std::size_t(1) << 17;  // 1 MiB of longs
    ushmem::symmetric<long> data(n), ctr(1);
    std::vector<long> src(n);
    for (std::size_t i = 0; i < n; ++i) src[i] = long(i) * 3 + 1;

    // 1. put_async + fetch_add_async to a computing PE: wait(1 ms), get(1 ms), quiet(pe, 1 ms)
    //    throw naming PE 1; after the release, wait() completes and the data is there.
    if (!rma || me > 1) {
    } else if (me == 1) {
        target_is_computing(1);
        compute_until_released(2);
    } else {
        target_is_computing(1);
        auto e = ushmem::put_async(data.on(1), src);
        expect_timeout([&] { e.wait(1ms); }, 1, "event::wait");
        CHECK(!e.test());
        auto f = ushmem::fetch_add_async(ctr.at(0, 1), 5L);
        expect_timeout([&] { (void)f.get(1ms); }, 1, "value_event::get");
        expect_timeout([&] { ushmem::quiet(1, 1ms); }, 1, "quiet(pe)");
        release_target(2);
        e.wait();
        CHECK(f.get() == 0);
        CHECK(e.test());
    }
    ushmem::barrier(30s);
    if (rma && me == 1) {
        for (std::size_t i = 0; i < n; ++i) CHECK(data[i] == long(i) * 3 + 1);
        CHECK(ctr[0] == 5);
    }

    // 2. A team sync that PE 1 does not join in time: PE 0's bounded sync throws naming itself.
    //    The team's collective state is then undefined, so it is left unused (moved to a leaked
    //    heap object: its destroy would be a collective on that state).
    {
        auto *t = new ushmem::team(ushmem::world().split_strided(0, 1, 2));
        if (me > 1) {
        } else if (me == 1) {
            target_is_computing(3);
            compute_until_released(4);
        } else {
            target_is_computing(3);
            expect_timeout([&] { t->sync(1ms); }, 0, "team sync");
            release_target(4);
        }
    }
    ushmem::barrier(30s);
    if (failures) {
        std::fprintf(stderr, "PE %d: %d failures\n", me, failures);
        shmem_global_exit(1);
    }
    if (me == 0) std::printf("cxx_timeout %s: OK (%d PEs)\n", rma ? "rma" : "coll", rt.n_pes());
    return 0;
}
