// ushmem install test, C++: every PE puts its number into its right neighbour's symmetric
// buffer. Built from outside the source tree against an installed ushmem (see run.sh).
// With -DUSHMEM_HELLO_MPI it also calls MPI, as a hybrid program built with ushmemcxx may.
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>
#include <string>
#include <vector>

#ifdef USHMEM_HELLO_MPI
#include <mpi.h>
#endif

int main() {
    shmem_init();
    const int me = shmem_my_pe();
    const int npes = shmem_n_pes();

    constexpr std::size_t n = 4;
    auto *inbox = static_cast<long *>(shmem_calloc(n, sizeof(long)));
    if (inbox == nullptr) {
        std::fprintf(stderr, "PE %d: shmem_calloc failed\n", me);
        shmem_global_exit(2);
    }
    shmem_barrier_all();

    std::vector<long> mine(n);
    for (std::size_t i = 0; i < n; ++i)
        mine[i] = 100L * me + static_cast<long>(i);
    const int right = (me + 1) % npes;
    shmem_long_put(inbox, mine.data(), n, right);
    shmem_barrier_all();

    const int left = (me + npes - 1) % npes;
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i)
        ok = ok && inbox[i] == 100L * left + static_cast<long>(i);

#ifdef USHMEM_HELLO_MPI
    int mpi_initialized = 0, mpi_size = -1;
    MPI_Initialized(&mpi_initialized);
    if (mpi_initialized)
        MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    std::printf("PE %d: MPI initialized=%d size=%d\n", me, mpi_initialized, mpi_size);
#endif

    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    const std::string status = ok ? "OK" : "FAILED";
    std::printf("hello.cpp: PE %d of %d: %s (library \"%s\")\n", me, npes, status.c_str(), name);
    std::fflush(stdout);

    shmem_free(inbox);
    shmem_finalize();
    return ok ? 0 : 1;
}
