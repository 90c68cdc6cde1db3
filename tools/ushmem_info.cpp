// ushmem-info: what ushmem would do on this machine / in this job.
//
//   ushmem-info [--json]                  one PE (MPI singleton)
//   mpirun -np N ushmem-info [--json]     every PE: its heap backing, binding, and the route and UCX
//                                         lanes (RMA, AMO, AM) it uses to reach each peer
//
// Text: version, build options, the settings table (every variable with its current value) and
// the topology, then one section per PE. --json: one JSON document {"ushmem_info": 1, "pes": [...]}
// for tools. A program above the C API: everything comes from shmemx_info().
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {
long g_len;  // symmetric: this PE's report length
long g_max, g_max_src;

int usage(const char *prog, int status) {
    std::fprintf(status ? stderr : stdout,
                 "usage: %s [--json]\n"
                 "  Prints ushmem's version, build options, settings (with their current values),\n"
                 "  the hwloc topology, and for every PE its heap backing, CPU binding, progress\n"
                 "  thread and, for every peer, the route (direct or UCX) and the UCX lanes per\n"
                 "  operation class. Run alone or under mpirun. --json: the same as one JSON document.\n",
                 prog);
    return status;
}
} // namespace

int main(int argc, char **argv) {
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json")) json = true;
        else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return usage(argv[0], 0);
        else {
            std::fprintf(stderr, "ushmem-info: unknown argument '%s'\n", argv[i]);
            return usage(argv[0], 2);
        }
    }
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int header = (!json && me == 0) ? 1 : 0;
    std::size_t len = shmemx_info(json, header, nullptr, 0);
    std::vector<char> mine(len + 1);
    shmemx_info(json, header, mine.data(), mine.size());

    // Gather every PE's report on PE 0 through one symmetric buffer of the largest size.
    g_max_src = long(len) + 1;
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, &g_max, &g_max_src, 1);
    char *sym = static_cast<char *>(shmem_malloc(std::size_t(g_max)));
    if (!sym) {
        std::fprintf(stderr, "ushmem-info: shmem_malloc(%ld) failed; raise SHMEM_SYMMETRIC_SIZE\n", g_max);
        shmem_global_exit(1);
    }
    std::memcpy(sym, mine.data(), len + 1);
    g_len = long(len);
    shmem_barrier_all();
    if (me == 0) {
        std::string out = json ? "{\"ushmem_info\": 1, \"npes\": " + std::to_string(n) + ", \"pes\": [\n" : "";
        std::vector<char> buf(static_cast<std::size_t>(g_max));
        for (int pe = 0; pe < n; ++pe) {
            long l = shmem_long_g(&g_len, pe);
            shmem_getmem(buf.data(), sym, std::size_t(l) + 1, pe);
            if (json) out += pe ? ",\n" : "";
            else if (pe) out += "\n";
            out.append(buf.data(), std::size_t(l));
        }
        if (json) out += "\n]}\n";
        std::fwrite(out.data(), 1, out.size(), stdout);
        std::fflush(stdout);
    }
    shmem_barrier_all();
    shmem_free(sym);
    shmem_finalize();
    return 0;
}
